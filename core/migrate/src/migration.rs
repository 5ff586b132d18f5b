//! **Migration** (Migeed et al. 2024, §2 and §5; spec 004 §2.6, §6.2): the three
//! questions, answered by [`Gen`] over declaration skeletons and `shapex_dims::solve`.
//!
//! - **Q1**: is there a *static migration* — numbers for every `Dyn` of `forward`'s
//!   parameter annotations (a whole `Dyn` first gets a rank, 1 to 4) — under which
//!   the model type-checks? **Q2**: the same under the user's constraints.
//! - **Q3**: for each `if` whose condition is a comparison of sizes, can it be true,
//!   can it be false, for inputs of the annotated types that satisfy the user's
//!   constraints and get that far without a shape error (Algorithm 2's prefix)?
//!
//! What each answer promises: "yes" comes with a witness that was substituted into the
//! declarations and re-checked by the gradual checker; "no" and "impossible" only when
//! the solver proved the generated constraints unsatisfiable (they are implied by
//! success, see [`crate::gen`]), with the conflicting operations; anything else is
//! "unknown", with the reason.

use crate::gen::{Gen, Origin, Test};
use crate::subject::{Recheck, Subject};
use crate::types::{Dim, TensorType};
use shapex_dims::{solve, Constraint, Dim as Poly, Solution, Symbol};
use shapex_migrate_syntax::user::{Cmp, Term, UserConstraint, Written};
use shapex_text::{Diagnostic, Span};
use std::cell::RefCell;
use std::collections::BTreeMap;

/// The rank a whole `Dyn` may take (the paper's bound, §4).
pub const MAX_RANK: usize = 4;
/// Rank combinations tried for several whole-`Dyn` parameters.
const MAX_COMBINATIONS: usize = 64;

/// What the questions of one analysis may spend on the solver, in units of a solver
/// run over a small set (a large set costs more, by its size): past it, answers are
/// unknown, so a huge model keeps the page's result coming in bounded time.
pub struct Fuel(std::cell::Cell<u32>, u32);

/// The units one analysis gets.
pub const FUEL: u32 = 160;

impl Fuel {
    pub fn new(units: u32) -> Fuel {
        Fuel(std::cell::Cell::new(units), units)
    }

    /// Takes what solving `set` costs; `false` when too little is left.
    fn take(&self, set: &[Constraint]) -> bool {
        // A search node asks every constraint, and the facts it keeps grow with the
        // set: a run's time grows about with the square of the set's size.
        let size = set.iter().map(size).sum::<usize>() as u64;
        let cost = 1 + u32::try_from(size * size / 20_000).unwrap_or(u32::MAX);
        let left = self.0.get();
        self.0.set(left.saturating_sub(cost));
        // The first run may take more (Q1 gets its answer when it can), within reason.
        left >= cost || (left == self.1 && cost <= 4 * self.1)
    }
}

/// A constraint's size as the solver meets it: a disjunction is split on.
fn size(c: &Constraint) -> usize {
    match c {
        Constraint::Or(v) => 2 + 3 * v.iter().map(size).sum::<usize>(),
        Constraint::And(v) => v.iter().map(size).sum(),
        _ => 1,
    }
}

/// Says why an answer is unknown when the fuel ran out.
const NO_FUEL: &str = "the constraints are too many for the solver budget of one analysis (annotate sizes or add constraints to make them fewer)";

/// An answer to Q1 or Q2.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// A static migration: every parameter's type, re-checked.
    Sat(Vec<(String, TensorType)>),
    /// None exists: the operations whose requirements conflict (for every rank tried,
    /// those of the first).
    Unsat(Vec<Origin>),
    Unknown(String),
    /// A static annotation the gradual checker accepts, but with which it still meets a
    /// value it cannot follow: a construct it does not model (the first at the span),
    /// or a rule that gives `Dyn`, so `forward`'s result is not static. PyTorch may
    /// refuse it, so it is no answer.
    Candidate(Vec<(String, TensorType)>, Option<Span>),
}

/// Whether one arm of an `if` can run (Q3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Possibility {
    Possible,
    Impossible,
    Unknown,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BranchAnswer {
    /// The `if` statement (or the assignment of a comparison to `var`).
    pub span: Span,
    pub var: Option<String>,
    pub then: Possibility,
    pub orelse: Possibility,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Answers {
    /// The gradual checker found an error: the migration space is empty.
    pub ill_typed: bool,
    pub q1: Verdict,
    /// Only when the user gave constraints.
    pub q2: Option<Verdict>,
    pub branches: Vec<BranchAnswer>,
    /// What Gen required over the parameters as annotated (Dyn positions unknown),
    /// the user's constraints last: the constraint set the questions are asked of.
    pub constraints: Vec<Origin>,
    /// Constraints that name nothing the model has, or cannot be used.
    pub notes: Vec<Diagnostic>,
}

/// The questions for `subject` (as annotated) under `user`.
pub fn answer(subject: &dyn Subject, user: &[Written], fuel: &Fuel) -> Answers {
    let notes = RefCell::new(Vec::new());
    let m = Migration::new(subject, user, &notes, fuel);
    let errors = errors(subject);
    let ill_typed = !errors.is_empty();
    let q1 = if ill_typed {
        Verdict::Unsat(errors.clone())
    } else {
        m.with_user(&[]).static_migration()
    };
    let q2 = (!user.is_empty()).then(|| {
        if ill_typed {
            Verdict::Unsat(errors)
        } else {
            m.static_migration()
        }
    });
    let (branches, constraints) = m.branches();
    Answers {
        ill_typed,
        q1,
        q2,
        branches,
        constraints,
        notes: notes.into_inner(),
    }
}

/// The gradual checker's errors as the conflict of an empty migration space.
fn errors(subject: &dyn Subject) -> Vec<Origin> {
    subject
        .errors()
        .into_iter()
        .filter(|d| d.severity == shapex_text::Severity::Error)
        .map(|d| Origin {
            constraint: Constraint::False,
            span: d.span,
            why: d.message,
        })
        .collect()
}

/// The questions' context: the program, the user's constraints, where notes go, and
/// what the solver may still spend.
#[derive(Clone, Copy)]
pub struct Migration<'a> {
    pub subject: &'a dyn Subject,
    pub user: &'a [Written],
    /// Where the answers and the user's constraints are attached (an empty span at
    /// the start of the subject's header).
    pub header: Span,
    pub notes: &'a RefCell<Vec<Diagnostic>>,
    pub fuel: &'a Fuel,
}

impl<'a> Migration<'a> {
    pub fn new(
        subject: &'a dyn Subject,
        user: &'a [Written],
        notes: &'a RefCell<Vec<Diagnostic>>,
        fuel: &'a Fuel,
    ) -> Migration<'a> {
        let h = subject.header();
        Migration {
            subject,
            user,
            header: Span::new(h.start, h.start),
            notes,
            fuel,
        }
    }

    /// The same questions under other constraints (Q1 asks under none).
    pub fn with_user(self, user: &'a [Written]) -> Migration<'a> {
        Migration { user, ..self }
    }

    fn inputs(&self) -> &'a [(String, TensorType)] {
        self.subject.declarations()
    }
}

/// The name of the unknown for position `j` of parameter `x`.
fn position(x: &str, j: usize) -> String {
    format!("{x}[{j}]")
}

/// The parameters' types with every `Dyn` position an unknown; a whole `Dyn` gets the
/// rank `ranks` gives it (or stays `Dyn`). Also the unknowns made.
fn skeleton(
    gen: &mut Gen,
    inputs: &[(String, TensorType)],
    ranks: &[Option<usize>],
    is_static: &dyn Fn(usize, usize) -> bool,
) -> (Vec<TensorType>, Vec<String>) {
    let mut names = Vec::new();
    let mut types = Vec::new();
    for (i, ((x, t), rank)) in inputs.iter().zip(ranks).enumerate() {
        let dims: Vec<Dim> = match (t.dims(), rank) {
            (Some(ds), _) => ds.to_vec(),
            (None, Some(r)) => vec![Dim::Dyn; *r],
            (None, None) => {
                types.push(TensorType::Dyn);
                continue;
            }
        };
        let mut out = Vec::new();
        for (j, d) in dims.into_iter().enumerate() {
            out.push(if d.is_dyn() && is_static(i, j) {
                let name = position(x, j);
                names.push(name.clone());
                gen.dim(Poly::sym(&name))
            } else {
                d
            });
        }
        types.push(TensorType::Tensor(out));
    }
    (types, names)
}

/// The ranks a whole-`Dyn` parameter may take under the user's constraints, highest
/// first (batched tensors, the paper's rank-4 examples).
fn ranks_allowed(x: &str, user: &[Written]) -> Vec<usize> {
    (1..=MAX_RANK)
        .rev()
        .filter(|r| {
            user.iter().all(|w| match &w.constraint {
                UserConstraint::Rank { var, cmp, rank } if var == x => {
                    compare(*cmp, *r as i64, i64::from(*rank))
                }
                UserConstraint::Shape { var, dims } if var == x => dims.len() == *r,
                _ => true,
            })
        })
        .collect()
}

/// The rank the user's constraints fix for `x`, if they do.
fn rank_fixed(x: &str, user: &[Written]) -> Option<usize> {
    match ranks_allowed(x, user).as_slice() {
        [r] => Some(*r),
        _ => None,
    }
}

fn compare(cmp: Cmp, a: i64, b: i64) -> bool {
    match cmp {
        Cmp::Eq => a == b,
        Cmp::Ne => a != b,
        Cmp::Lt => a < b,
        Cmp::Le => a <= b,
        Cmp::Gt => a > b,
        Cmp::Ge => a >= b,
    }
}

/// Every combination of ranks for the whole-`Dyn` parameters (each choice `None` for
/// a parameter with a rank), at most [`MAX_COMBINATIONS`].
fn rank_combinations(inputs: &[(String, TensorType)], user: &[Written]) -> Vec<Vec<Option<usize>>> {
    let mut out: Vec<Vec<Option<usize>>> = vec![Vec::new()];
    for (x, t) in inputs {
        let choices: Vec<Option<usize>> = match t {
            TensorType::Tensor(_) => vec![None],
            TensorType::Dyn => ranks_allowed(x, user).into_iter().map(Some).collect(),
        };
        out = out
            .iter()
            .flat_map(|prefix| {
                choices.iter().map(move |c| {
                    let mut v = prefix.clone();
                    v.push(*c);
                    v
                })
            })
            .take(MAX_COMBINATIONS)
            .collect();
    }
    out
}

impl Migration<'_> {
    /// Q1 (no user constraints) or Q2: the all-static skeleton of each rank combination.
    fn static_migration(&self) -> Verdict {
        let combos = rank_combinations(self.inputs(), self.user);
        if combos.is_empty() {
            return Verdict::Unsat(vec![Origin {
                constraint: Constraint::False,
                span: self.header,
                why: format!("your constraints allow no rank from 1 to {MAX_RANK}"),
            }]);
        }
        let mut first_conflict: Option<Vec<Origin>> = None;
        let mut unknown = None;
        let mut candidate = None;
        for ranks in combos {
            match self.try_skeleton(&ranks, &|_, _| true) {
                sat @ Verdict::Sat(_) => return sat,
                Verdict::Candidate(w, at) => {
                    candidate.get_or_insert((w, at));
                }
                // The rank most likely meant (the first tried) unless its conflict is
                // only structural (a rank an operation refuses) and a later one's says
                // more.
                Verdict::Unsat(conflict) => {
                    let structural =
                        |c: &[Origin]| c.iter().all(|o| o.constraint == Constraint::False);
                    match &first_conflict {
                        Some(old) if !structural(old) || structural(&conflict) => {}
                        _ => first_conflict = Some(conflict),
                    }
                }
                Verdict::Unknown(why) => {
                    unknown.get_or_insert(why);
                }
            }
        }
        if let Some((w, at)) = candidate {
            return Verdict::Candidate(w, at);
        }
        match (unknown, first_conflict) {
            (Some(why), _) => Verdict::Unknown(why),
            (None, Some(conflict)) => Verdict::Unsat(conflict),
            (None, None) => Verdict::Unknown("nothing was tried".into()),
        }
    }

    /// Whether a skeleton has a migration — the declarations' ranks (for whole `Dyn`s)
    /// and which `Dyn` positions are numbers, the others staying `Dyn` — under the
    /// user's constraints: `Sat` with a migration of it, re-checked, `Unsat` with the
    /// conflict.
    pub(crate) fn try_skeleton(
        &self,
        ranks: &[Option<usize>],
        is_static: &dyn Fn(usize, usize) -> bool,
    ) -> Verdict {
        let set = self.skeleton_constraints(ranks, is_static);
        let constraints: Vec<Constraint> = set.iter().map(|o| o.constraint.clone()).collect();
        if !self.fuel.take(&constraints) {
            return Verdict::Unknown(NO_FUEL.into());
        }
        match solve(&constraints) {
            Solution::Sat(m) => {
                let value = |n: &str| m.get(&Symbol::user(n)).unwrap_or(1);
                let witness = substitute(self.inputs(), ranks, is_static, &value);
                let types = witness.iter().map(|(_, t)| t.clone()).collect();
                let all_static = witness.iter().all(|(_, t)| t.is_static());
                match self.subject.recheck(types) {
                    Recheck::LosesTrack(at) if all_static => Verdict::Candidate(witness, at),
                    Recheck::LosesTrack(_) | Recheck::Follows => Verdict::Sat(witness),
                    Recheck::IllTyped => Verdict::Unknown(
                        "the solver's candidate did not type-check (a rule the constraints do not fully capture)".into(),
                    ),
                }
            }
            Solution::Unsat(core) => Verdict::Unsat(explained(&set, &core)),
            Solution::Unknown(why) => {
                Verdict::Unknown(format!("the solver could not decide ({why:?})"))
            }
        }
    }
}

/// A conflict (indices into `set`) with the definitions of the unknowns Gen named
/// (`#3 == #1-1`, a window's output) that it mentions, transitively: still a
/// conflict, and one a reader can follow back to the parameters' sizes.
fn explained(set: &[Origin], core: &[usize]) -> Vec<Origin> {
    let mut keep: Vec<usize> = core.to_vec();
    let mut i = 0;
    while i < keep.len() && keep.len() < 64 {
        let names: Vec<String> = keep_names(&set[keep[i]].constraint);
        for (j, o) in set.iter().enumerate() {
            if keep.contains(&j) {
                continue;
            }
            if let Constraint::Eq(a, _) = &o.constraint {
                if a.as_atom()
                    .and_then(|x| x.symbol())
                    .is_some_and(|x| names.iter().any(|n| n == x.name()))
                {
                    keep.push(j);
                }
            }
        }
        i += 1;
    }
    keep.iter().map(|&k| set[k].clone()).collect()
}

/// The names of Gen's own unknowns (`#3`) a constraint mentions.
fn keep_names(c: &Constraint) -> Vec<String> {
    c.dims()
        .iter()
        .flat_map(|d| d.leaves())
        .filter_map(|a| a.symbol())
        .map(|x| x.name().to_string())
        .filter(|n| n.starts_with('#'))
        .collect()
}

impl Migration<'_> {
    /// What a skeleton's migrations must satisfy: Gen's requirements, every unknown at
    /// least 1, and the user's constraints.
    fn skeleton_constraints(
        &self,
        ranks: &[Option<usize>],
        is_static: &dyn Fn(usize, usize) -> bool,
    ) -> Vec<Origin> {
        let mut gen = Gen::symbolic();
        let (types, names) = skeleton(&mut gen, self.inputs(), ranks, is_static);
        let gen = self.subject.generate(types.clone(), gen);
        let mut set = gen.required();
        set.extend(names.iter().map(|n| Origin {
            constraint: Constraint::le(&Poly::one(), &Poly::sym(n)),
            span: self.header,
            why: format!("{n} is a size, at least 1"),
        }));
        set.extend(self.resolve_all(&types, &gen));
        set
    }

    /// Gen over the declarations as annotated (each `Dyn` position an unknown size, a
    /// whole `Dyn` of the rank the constraints fix or left `Dyn`), and the user's
    /// constraints over it.
    fn as_annotated(&self) -> (Gen, Vec<Origin>) {
        let ranks: Vec<Option<usize>> = self
            .inputs()
            .iter()
            .map(|(x, t)| match t {
                TensorType::Dyn => rank_fixed(x, self.user),
                _ => None,
            })
            .collect();
        let mut gen = Gen::symbolic();
        let (types, _) = skeleton(&mut gen, self.inputs(), &ranks, &|_, _| true);
        let gen = self.subject.generate(types.clone(), gen);
        let given = self.resolve_all(&types, &gen);
        (gen, given)
    }
}

/// Every constraint set the questions solve, named (Q1's and Q2's all-static skeleton
/// per rank combination; each `if` of Q3 with its condition and its negation): for
/// differential tests against another solver, and for benchmarks.
pub fn constraint_sets(subject: &dyn Subject, user: &[Written]) -> Vec<(String, Vec<Constraint>)> {
    let mut out = Vec::new();
    let notes = RefCell::new(Vec::new());
    let fuel = Fuel::new(0);
    let m = Migration::new(subject, user, &notes, &fuel);
    let all = |_: usize, _: usize| true;
    for (q, given) in [("Q1", &[][..]), ("Q2", user)] {
        if q == "Q2" && user.is_empty() {
            continue;
        }
        for ranks in rank_combinations(subject.declarations(), given) {
            let set = m.with_user(given).skeleton_constraints(&ranks, &all);
            let name = format!("{q} ranks {ranks:?}");
            out.push((name, set.into_iter().map(|o| o.constraint).collect()));
        }
    }
    let (gen, given) = m.as_annotated();
    for (k, test) in gen.tests.iter().enumerate() {
        let base = prefix_and(test, &given);
        for (arm, c) in [
            ("then", test.condition.clone()),
            ("else", test.condition.not()),
        ] {
            let mut set = base.clone();
            set.push(c);
            out.push((format!("Q3 test {k} {arm}"), set));
        }
    }
    out
}

/// What Q3 asks an `if` under (Algorithm 2's prefix) with the user's constraints.
fn prefix_and(test: &Test, given: &[Origin]) -> Vec<Constraint> {
    let all = test.prefix.iter().chain(given);
    all.map(|o| o.constraint.clone()).collect()
}

/// The parameters' types with the unknowns' values.
fn substitute(
    inputs: &[(String, TensorType)],
    ranks: &[Option<usize>],
    is_static: &dyn Fn(usize, usize) -> bool,
    value: &dyn Fn(&str) -> i64,
) -> Vec<(String, TensorType)> {
    inputs
        .iter()
        .zip(ranks)
        .enumerate()
        .map(|(i, ((x, t), rank))| {
            let dims: Vec<Dim> = match (t.dims(), rank) {
                (Some(ds), _) => ds.to_vec(),
                (None, Some(r)) => vec![Dim::Dyn; *r],
                (None, None) => return (x.clone(), TensorType::Dyn),
            };
            let dims = dims
                .into_iter()
                .enumerate()
                .map(|(j, d)| match d {
                    Dim::Dyn if is_static(i, j) => Dim::Nat(value(&position(x, j)).max(0) as u64),
                    d => d,
                })
                .collect();
            (x.clone(), TensorType::Tensor(dims))
        })
        .collect()
}

impl Migration<'_> {
    /// Q3 over the declarations as annotated: each `Dyn` position an unknown size
    /// (≥ 0, as tensors may be empty); also the whole constraint set asked.
    fn branches(&self) -> (Vec<BranchAnswer>, Vec<Origin>) {
        let (gen, given) = self.as_annotated();
        let mut all = gen.required();
        all.extend(given.iter().cloned());
        // Per `if` (it may be reached several times): what each visit says of each arm.
        type Visits = (Span, Option<String>, Vec<Possibility>, Vec<Possibility>);
        let mut by_if: BTreeMap<(usize, usize), Visits> = BTreeMap::new();
        for test in &gen.tests {
            let base = prefix_and(test, &given);
            let possible = |c: Constraint| {
                let mut set = base.clone();
                set.push(c);
                if !self.fuel.take(&set) {
                    return Possibility::Unknown;
                }
                match solve(&set) {
                    Solution::Sat(_) => Possibility::Possible,
                    Solution::Unsat(_) => Possibility::Impossible,
                    Solution::Unknown(_) => Possibility::Unknown,
                }
            };
            let entry = by_if
                .entry((test.span.start, test.span.end))
                .or_insert_with(|| (test.span, test.var.clone(), Vec::new(), Vec::new()));
            entry.2.push(possible(test.condition.clone()));
            entry.3.push(possible(test.condition.not()));
        }
        let fold = |v: &[Possibility]| {
            if v.contains(&Possibility::Possible) {
                Possibility::Possible
            } else if v.iter().all(|p| *p == Possibility::Impossible) {
                Possibility::Impossible
            } else {
                Possibility::Unknown
            }
        };
        let answers = by_if
            .into_values()
            .map(|(span, var, t, e)| BranchAnswer {
                span,
                var,
                then: fold(&t),
                orelse: fold(&e),
            })
            .collect();
        (answers, all)
    }

    /// The user's constraints over a skeleton: each as a constraint on the unknowns.
    fn resolve_all(&self, types: &[TensorType], gen: &Gen) -> Vec<Origin> {
        let r = Resolver {
            inputs: self.inputs(),
            types,
            gen,
        };
        let mut out = Vec::new();
        for w in self.user {
            match r.constraint(&w.constraint) {
                Ok(c) => out.push(Origin {
                    constraint: c,
                    span: self.header,
                    why: format!("your constraint `{}` (line {})", w.text, w.line),
                }),
                Err(message) => {
                    let d = Diagnostic::warning(
                        "mig.constraint",
                        format!("constraint line {}: {message}; it is left out", w.line),
                        self.header,
                    );
                    let mut notes = self.notes.borrow_mut();
                    if !notes.contains(&d) {
                        notes.push(d);
                    }
                }
            }
        }
        out
    }
}

struct Resolver<'r> {
    inputs: &'r [(String, TensorType)],
    types: &'r [TensorType],
    gen: &'r Gen,
}

impl Resolver<'_> {
    fn tensor(&self, x: &str) -> Option<&TensorType> {
        let i = self.inputs.iter().position(|(n, _)| n == x)?;
        self.types.get(i)
    }

    /// A term's value: `Ok(None)` when it is a `Dyn` dimension.
    fn term(&self, t: &Term) -> Result<Option<Poly>, String> {
        let bin = |a: &Term, b: &Term, f: &dyn Fn(&Poly, &Poly) -> Poly| {
            Ok(match (self.term(a)?, self.term(b)?) {
                (Some(x), Some(y)) => Some(f(&x, &y)),
                _ => None,
            })
        };
        match t {
            Term::Int(n) => Ok(Some(Poly::known(*n))),
            Term::Name(n) if self.tensor(n).is_some() => Err(format!(
                "`{n}` is a tensor: name one of its sizes (`{n}.size(0)`) or its shape"
            )),
            Term::Name(n) => Ok(Some(
                self.gen
                    .named
                    .get(n)
                    .cloned()
                    .unwrap_or_else(|| Poly::sym(n)),
            )),
            Term::Size(x, i) => {
                let t = self
                    .tensor(x)
                    .ok_or_else(|| format!("`{x}` is not a parameter of forward"))?;
                let Some(ds) = t.dims() else {
                    return Ok(None);
                };
                let k = crate::forward::ops::axis(*i, ds.len())
                    .ok_or_else(|| format!("`{x}` has no dimension {i}"))?;
                Ok(self.gen.poly(ds[k]))
            }
            Term::Add(a, b) => bin(a, b, &|x, y| x.add(y)),
            Term::Sub(a, b) => bin(a, b, &|x, y| x.sub(y)),
            Term::Mul(a, b) => bin(a, b, &|x, y| x.mul(y)),
        }
    }

    fn constraint(&self, c: &UserConstraint) -> Result<Constraint, String> {
        let yes = |b: bool| {
            if b {
                Constraint::True
            } else {
                Constraint::False
            }
        };
        Ok(match c {
            UserConstraint::IsDyn { term, dyn_ } => {
                let is = match term {
                    Term::Name(x) if self.tensor(x).is_some() => {
                        self.tensor(x).is_some_and(|t| t.dims().is_none())
                    }
                    t => self.term(t)?.is_none(),
                };
                yes(is == *dyn_)
            }
            UserConstraint::Rank { var, cmp, rank } => {
                let t = self
                    .tensor(var)
                    .ok_or_else(|| format!("`{var}` is not a parameter of forward"))?;
                match t.rank() {
                    Some(r) => yes(compare(*cmp, r as i64, i64::from(*rank))),
                    None => Constraint::True,
                }
            }
            UserConstraint::Shape { var, dims } => {
                let t = self
                    .tensor(var)
                    .ok_or_else(|| format!("`{var}` is not a parameter of forward"))?;
                let Some(ds) = t.dims() else {
                    return Ok(Constraint::True);
                };
                if ds.len() != dims.len() {
                    return Ok(Constraint::False);
                }
                let mut parts = Vec::new();
                for (d, want) in ds.iter().zip(dims) {
                    if let (Some(p), Some(w)) = (self.gen.poly(*d), want) {
                        if let Some(w) = self.term(w)? {
                            parts.push(Constraint::eq(&p, &w));
                        }
                    }
                }
                Constraint::and(parts)
            }
            UserConstraint::Compare { left, cmp, right } => {
                match (self.term(left)?, self.term(right)?) {
                    (Some(a), Some(b)) => match cmp {
                        Cmp::Eq => Constraint::eq(&a, &b),
                        Cmp::Ne => Constraint::ne(&a, &b),
                        Cmp::Lt => Constraint::lt(&a, &b),
                        Cmp::Le => Constraint::le(&a, &b),
                        Cmp::Gt => Constraint::lt(&b, &a),
                        Cmp::Ge => Constraint::le(&b, &a),
                    },
                    // A comparison with a `Dyn` side is vacuously true (item 4).
                    _ => Constraint::True,
                }
            }
            UserConstraint::In { term, options } => match self.term(term)? {
                None => yes(options.contains(&None)),
                Some(p) => Constraint::or(
                    options
                        .iter()
                        .flatten()
                        .map(|k| Constraint::eq(&p, &Poly::known(*k))),
                ),
            },
        })
    }
}

#[cfg(test)]
mod tests;
mod witness;
