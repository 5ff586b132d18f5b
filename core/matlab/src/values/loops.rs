//! Loop study: the first iterations of a loop simulated one by one, without joins.
//!
//! The fixed point of the flow framework joins every iteration into one fact, so a
//! variable that is `<1,1>` on entry and `<3,4>` afterwards becomes `<a~1,a~2>`, and
//! Joisha's Example 4 (§9: "a can change shape only at the first iteration") can no
//! longer be proven. Simulating iterations 1, 2, … exactly recovers it: when the
//! variables stop changing (or the loop provably ends) the simulated iterations are all
//! the iterations there are. The same simulation finds Figure 7's failure in the second
//! iteration (§12), and the per-iteration shapes give the preallocation hints of
//! Figures 7–8.
//!
//! The flow framework asks for a study while it analyses the loop ([`exact_exit`]); once
//! the top-level statement holding the loop is analysed, [`refine`] puts the study's
//! per-iteration results in place of the fixed point's and adds the loop's notes.

use super::results::{LoopStudy, StmtResult};
use super::state::ValueAnalysis;
use super::transfer::collect;
use super::{Env, Value};
use crate::flow::{self, FlowResult, State};
use crate::shape::{Notation, Shape};
use crate::tame::{ForIter, Function, Stmt, StmtKind, Var};
use shapex_dims::{Constraint, Dim, Truth};
use shapex_report::Diagnostic;
use shapex_text::Span;
use std::rc::Rc;

/// How many iterations are simulated when the trip count is unknown (or above
/// [`MAX_EXACT_ITERATIONS`]) before falling back to the fixed point alone.
pub const SIMULATED_ITERATIONS: usize = 4;

/// A counted loop with at most this many iterations is simulated through every one of
/// them, so the shapes after it are exact; longer loops use the fixed point (widening).
pub const MAX_EXACT_ITERATIONS: usize = 1_000;

/// The facts' split weight (`Facts::split_weight`) that makes one more statement's
/// worth of work.
pub const SPLIT_WEIGHT_PER_STATEMENT: usize = 2;

/// Runs `body` from `seed` as if it were a function body.
fn run_block(
    a: &ValueAnalysis,
    template: &Function,
    body: &[Stmt],
    seed: Env,
) -> (flow::FlowResult<Env>, Function) {
    // Only the body matters to the framework: copying the enclosing function's other
    // statements for every simulated iteration made long programs quadratic.
    let func = Function {
        name: template.name.clone(),
        kind: template.kind,
        parent: None,
        params: vec![],
        outputs: vec![],
        body: body.to_vec(),
        variables: vec![],
        span: template.span,
    };
    (flow::analyze_function(a, &func, seed), func)
}

/// The state after loop `stmt` from `entry` when its study accounts for every
/// iteration (the flow framework's [`flow::Analysis::exact_loop`]).
pub fn exact_exit(a: &ValueAnalysis, stmt: &Stmt, entry: &Env) -> Option<State<Env>> {
    // Only a loop whose trip count is known can be accounted for exactly; simulating
    // the others here (inside every iteration of an enclosing loop) would cost much and
    // give nothing the fixed point does not.
    let counted = match &stmt.kind {
        StmtKind::For { iter, .. } => ForValues::of(entry, iter)
            .trips
            .is_some_and(|n| n <= MAX_EXACT_ITERATIONS as i64),
        StmtKind::While { header, cond, .. } => {
            let template = a.template.borrow().clone()?;
            let (flow, _) = run_block(a, &template, header, entry.clone());
            let known = |e: &Env| e.get(cond)?.scalar.as_ref()?.as_known();
            flow.exit.fact().and_then(known).is_some()
        }
        _ => false,
    };
    if !counted {
        return None;
    }
    cached_study(a, stmt, entry)?.exact_exit.clone()
}

/// The study of `stmt` from `entry`, computed once per entry state and iteration
/// context (the flow framework asks for it, then the results are refined with it).
fn cached_study(a: &ValueAnalysis, stmt: &Stmt, entry: &Env) -> Option<Rc<LoopStudy>> {
    let key = (stmt.id, a.symbols.iteration_path());
    if let Some((e, study)) = a.studies.borrow().get(&key) {
        if e == entry {
            return study.clone();
        }
    }
    let study = study(a, stmt, entry).map(Rc::new);
    a.studies
        .borrow_mut()
        .insert(key, (entry.clone(), study.clone()));
    study
}

/// Simulates loop `stmt` from `entry`; `None` for loops it cannot simulate faithfully
/// (bodies that jump out with break/continue/return).
fn study(a: &ValueAnalysis, stmt: &Stmt, entry: &Env) -> Option<LoopStudy> {
    let mut sim = LoopSim::new(a, stmt, entry)?;
    while sim.next() {}
    Some(sim.finish())
}

/// One loop simulated iteration by iteration, without joins (see the module's docs):
/// the state the next iteration starts from, and what the iterations so far showed.
struct LoopSim<'a, 'b> {
    a: &'a ValueAnalysis<'b>,
    /// The enclosing function without its body: what a simulated block runs in.
    template: Function,
    /// The loop.
    stmt: &'a Stmt,
    /// A while loop's header (computes `cond`) and condition; none for a for loop.
    header: &'a [Stmt],
    cond: Option<&'a Var>,
    body: &'a [Stmt],
    /// A for loop's values.
    values: Option<ForValues>,
    trips: Option<i64>,
    /// The iterations it may simulate.
    limit: usize,
    /// The cost of one iteration, before the facts weigh it.
    statements: usize,
    /// The state the next iteration starts from.
    env: Env,
    /// The next iteration, 1-based.
    j: usize,
    /// Every iteration so far certainly ran.
    certain: bool,
    /// The loop ended, and every iteration certainly ran.
    complete: bool,
    study: LoopStudy,
}

impl<'a, 'b> LoopSim<'a, 'b> {
    /// `None` for what is not a loop, a body that jumps out, or no function to run it in.
    fn new(a: &'a ValueAnalysis<'b>, stmt: &'a Stmt, entry: &Env) -> Option<Self> {
        let (header, cond, body): (&[Stmt], Option<&Var>, &[Stmt]) = match &stmt.kind {
            StmtKind::For { body, .. } => (&[], None, body),
            StmtKind::While { header, cond, body } => (header, Some(cond), body),
            _ => return None,
        };
        if jumps(body) {
            return None;
        }
        let template = a.template.borrow().clone()?;
        let values = match &stmt.kind {
            StmtKind::For { iter, .. } => Some(ForValues::of(entry, iter)),
            _ => None,
        };
        let trips = values.as_ref().and_then(|v| v.trips);
        // A counted loop, or a while loop whose condition keeps folding, may be simulated
        // to its end; others only for their first iterations (see `next`).
        let limit = match (trips, cond) {
            (Some(n), _) if n <= MAX_EXACT_ITERATIONS as i64 => n as usize,
            (None, Some(_)) => MAX_EXACT_ITERATIONS,
            _ => SIMULATED_ITERATIONS,
        };
        let study = LoopStudy {
            iterations: vec![],
            certain: vec![],
            bindings: vec![],
            entry: entry.clone(),
            exits: vec![],
            settled: false,
            exact_exit: None,
            top_level: body.iter().map(|s| s.id).collect(),
        };
        Some(LoopSim {
            a,
            template,
            stmt,
            header,
            cond,
            body,
            values,
            trips,
            limit,
            statements: size(body) + size(header) + 1,
            env: entry.clone(),
            j: 1,
            certain: true,
            complete: false,
            study,
        })
    }

    /// Simulates iteration `j` from `env` and records it in the study: true when it ran
    /// and another may follow, false when the simulation is over, because the loop
    /// ended (or settled) or because it stops here. Not called again after false.
    fn next(&mut self) -> bool {
        if self.trips.is_some_and(|n| self.j as i64 > n) {
            return self.ended();
        }
        if !self.may_simulate() {
            return false;
        }
        let j = self.j;
        let iteration = self.a.symbols.in_iteration(j as u32, || self.iteration());
        self.j += 1;
        match iteration {
            Iteration::Ended(end) => {
                // A while condition that folded to false: the loop ends here.
                self.env = end;
                self.ended()
            }
            Iteration::Unknown => false,
            Iteration::Ran {
                results,
                certain,
                binding,
                exit,
            } => self.record(results, certain, binding, exit),
        }
    }

    /// Whether iteration `j` may be simulated; if so its cost is taken from the budget.
    fn may_simulate(&self) -> bool {
        let uncertain = self.study.certain.last() == Some(&false);
        // The budget counts work, not statements: each statement of the iteration is
        // weighed by the disjunctions its questions may split on, which grow with
        // every iteration whose checks pass on extents of unknown size (`c = a.*b` on
        // inputs). A thousand such iterations took tens of seconds; weighed, they stop
        // after a few dozen and the fixed point, which is sound, gives the loop's result.
        let cost =
            self.statements * (1 + self.env.facts.split_weight() / SPLIT_WEIGHT_PER_STATEMENT);
        !(self.j > self.limit
            || (uncertain && self.j > SIMULATED_ITERATIONS)
            || !self.a.spend_simulation(cost))
    }

    /// The loop ended before iteration `j`: the iterations simulated are all there are.
    fn ended(&mut self) -> bool {
        self.study.settled = true;
        self.complete = self.certain;
        false
    }

    /// Records an iteration that ran; whether another may follow.
    fn record(
        &mut self,
        results: Vec<StmtResult>,
        start_certain: bool,
        binding: Option<String>,
        exit: Option<Env>,
    ) -> bool {
        self.certain &= start_certain && (self.trips.is_some() || self.cond.is_some());
        self.study.iterations.push(results);
        self.study.certain.push(self.certain);
        self.study.bindings.push(binding);
        let Some(exit) = exit else {
            // The iteration never reaches its end (a definite error or `error(...)`).
            self.study.settled = true;
            if self.certain {
                self.study.exact_exit = Some(State::Nonviable);
            }
            return false;
        };
        let unchanged = self.trips.is_none() && same_but(&exit, &self.env, self.stmt);
        self.study.exits.push(exit.clone());
        self.env = exit;
        if unchanged {
            // Another iteration would start from the same state (its loop variable is
            // a fresh unknown again), so it would do the same: nothing more to learn.
            self.study.settled = true;
            return false;
        }
        true
    }

    /// The study; when the loop ended and each iteration certainly ran, the code after
    /// the loop continues from the last iteration's end.
    fn finish(mut self) -> LoopStudy {
        if self.complete {
            self.study.exact_exit = Some(State::Reachable(self.env));
        }
        self.study
    }

    /// Iteration `j` from `env`.
    fn iteration(&self) -> Iteration {
        let (start, certain, binding) = match self.start() {
            Ok(start) => start,
            Err(ended) => return ended,
        };
        let (flow, func) = run_block(self.a, &self.template, self.body, start);
        let mut results = Vec::new();
        collect(
            self.a,
            &|n| self.a.is_temp(n),
            &flow,
            &func.body,
            &mut results,
        );
        Iteration::Ran {
            results,
            certain,
            binding,
            exit: flow.exit.fact().cloned(),
        }
    }

    /// Iteration `j`'s start: the loop variable bound, or the condition evaluated (and
    /// whether it certainly holds), with the loop variable's value when known; or why
    /// the iteration does not run its body.
    fn start(&self) -> Result<(Env, bool, Option<String>), Iteration> {
        let mut certain = true;
        let mut binding = None;
        let start = match (&self.stmt.kind, &self.values) {
            (StmtKind::For { var, iter, .. }, Some(values)) => {
                let mut start = self.a.bind_loop_variable(self.stmt, var, iter, &self.env);
                if let (State::Reachable(e), Some(v)) = (&mut start, values.element(self.j)) {
                    binding = Some(format!("{var} = {}", v.display()));
                    e.vars.insert(var.clone(), v);
                }
                start
            }
            _ => {
                let (flow, _) = run_block(self.a, &self.template, self.header, self.env.clone());
                let Some(after) = flow.exit.fact().cloned() else {
                    return Err(Iteration::Unknown);
                };
                let Some(cond) = self.cond else {
                    return Err(Iteration::Unknown);
                };
                match after.get(cond).and_then(|v| v.scalar.as_ref()?.as_known()) {
                    Some(0) => return Err(Iteration::Ended(after)),
                    Some(_) => {}
                    None => certain = false,
                }
                State::Reachable(after)
            }
        };
        let Some(start) = start.fact().cloned() else {
            return Err(Iteration::Unknown);
        };
        Ok((start, certain, binding))
    }
}

/// What one simulated iteration did.
enum Iteration {
    /// The while condition folded to false before the body: the loop has ended.
    Ended(Env),
    /// The iteration's start could not be computed.
    Unknown,
    Ran {
        results: Vec<StmtResult>,
        /// Whether the iteration certainly starts (its condition folded to true).
        certain: bool,
        binding: Option<String>,
        exit: Option<Env>,
    },
}

/// Whether two states agree on every variable but `stmt`'s loop variable.
fn same_but(x: &Env, y: &Env, stmt: &Stmt) -> bool {
    match &stmt.kind {
        StmtKind::For { var, .. } => {
            let mut x = x.vars.clone();
            let mut y = y.vars.clone();
            x.remove(var);
            y.remove(var);
            x == y
        }
        _ => x.vars == y.vars,
    }
}

/// Statements in `stmts`, nested ones included: the cost of simulating them once.
fn size(stmts: &[Stmt]) -> usize {
    stmts
        .iter()
        .map(|s| 1 + s.children().iter().map(|c| size(c)).sum::<usize>())
        .sum()
}

/// The state after `for var = iter` from the state `exit` its iterations (or none)
/// leave: MATLAB empties the loop variable when no iteration runs (`[]`; Octave a 1×0
/// row), so unless an iteration surely ran its value is unknown. Sure means a trip
/// count known to be positive: `exit` joins every way out, the loop entry included, so
/// a constant bound there is the one the loop started with.
pub fn for_exit(var: &Var, iter: &ForIter, exit: &Env) -> State<Env> {
    let ran = ForValues::of(exit, iter).trips.is_some_and(|n| n > 0);
    let mut env = exit.clone();
    if !ran {
        env.vars.insert(var.clone(), Value::unknown());
    }
    State::Reachable(env)
}

/// What a `for` loop iterates over, as far as it is known.
struct ForValues {
    /// The number of iterations, capped at `i64::MAX` (which then stands for "at least
    /// that many": every use compares it with small numbers).
    trips: Option<i64>,
    /// The elements, when each is a known integer (`1:4`, `[2 4 7]`).
    range: Option<(i64, i64)>,
    elems: Option<Vec<Dim>>,
}

impl ForValues {
    fn of(env: &Env, iter: &ForIter) -> ForValues {
        match iter {
            ForIter::Range { lower, step, upper } => {
                let val = |v: &Var| env.get(v)?.scalar.as_ref()?.as_known();
                let st = match step {
                    Some(s) => val(s),
                    None => Some(1),
                };
                match (val(lower), st, val(upper)) {
                    (Some(lo), Some(st), Some(hi)) => {
                        let trips = range_trips(lo, st, hi);
                        ForValues {
                            trips: Some(trips),
                            range: Some((lo, st)),
                            elems: None,
                        }
                    }
                    _ => ForValues {
                        trips: None,
                        range: None,
                        elems: None,
                    },
                }
            }
            ForIter::Columns(v) => {
                let value = env.get(v);
                // Extents are nonnegative, so a saturated product is still "at least";
                // a zero extent anywhere still makes it 0.
                let trips = value
                    .and_then(|v| v.shape.as_tuple()?.all_known())
                    .map(|t| {
                        let zero = t[1..].iter().any(|&e| e <= 0);
                        let product = t[1..].iter().fold(1i64, |p, &e| p.saturating_mul(e));
                        if zero {
                            0
                        } else {
                            product
                        }
                    });
                let row = value.is_some_and(|v| {
                    v.shape
                        .as_tuple()
                        .is_some_and(|t| t.rank() == 2 && t.extent(0).as_known() == Some(1))
                });
                ForValues {
                    trips,
                    range: None,
                    elems: value.and_then(|v| v.elems.clone()).filter(|_| row),
                }
            }
        }
    }

    /// The loop variable's value in iteration `j` (1-based), when it is known.
    fn element(&self, j: usize) -> Option<Value> {
        let k = j as i64 - 1;
        let v = match (&self.range, &self.elems) {
            (Some((lo, st)), _) => Dim::known(lo.checked_add(st.checked_mul(k)?)?),
            (None, Some(e)) => e.get(k as usize)?.clone(),
            _ => return None,
        };
        let number = v.as_known().map(|n| n as f64);
        Some(Value {
            number,
            ..Value::scalar(Some(v))
        })
    }
}

/// The trip count of `for v = lo:st:hi` over integers, as MATLAB counts it:
/// `max(floor((hi - lo) / st) + 1, 0)`, 0 for a zero step; computed in i128 (no
/// overflow for any i64 bounds) and capped at `i64::MAX`.
fn range_trips(lo: i64, st: i64, hi: i64) -> i64 {
    if st == 0 {
        return 0;
    }
    let (span, st) = (i128::from(hi) - i128::from(lo), i128::from(st));
    let mut q = span / st;
    if span % st != 0 && ((span < 0) != (st < 0)) {
        q -= 1;
    }
    i64::try_from((q + 1).max(0)).unwrap_or(i64::MAX)
}

trait DisplayValue {
    fn display(&self) -> String;
}

impl DisplayValue for Value {
    fn display(&self) -> String {
        self.scalar
            .as_ref()
            .map_or_else(|| "?".to_string(), |d| d.to_string())
    }
}

/// Whether `stmts` contain a break/continue/return that leaves this loop body.
fn jumps(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Break | StmtKind::Continue | StmtKind::Return => true,
        // Inner loops own their break/continue, but a return still leaves.
        StmtKind::For { body, .. } | StmtKind::While { body, .. } => returns(body),
        _ => s.children().iter().any(|c| jumps(c)),
    })
}

fn returns(stmts: &[Stmt]) -> bool {
    stmts
        .iter()
        .any(|s| matches!(s.kind, StmtKind::Return) || s.children().iter().any(|c| returns(c)))
}

/// The variables the loop body assigns (temporaries aside), sorted.
fn assigned_names(study: &LoopStudy, is_temp: &dyn Fn(&str) -> bool) -> Vec<String> {
    // Only what the body assigns can change: scanning the whole environment for every
    // loop would make long programs quadratic.
    let mut names: Vec<String> = study
        .iterations
        .iter()
        .flatten()
        .flat_map(|r| r.defs.iter().map(|(n, _)| n))
        .filter(|n| !is_temp(n))
        .cloned()
        .collect();
    names.sort();
    names.dedup();
    names
}

/// `name`'s shape on entry and after each simulated iteration, as text.
fn shape_history(study: &LoopStudy, name: &str) -> Vec<String> {
    let show = |e: &Env| {
        e.get(name).map_or("undefined".to_string(), |v| {
            v.shape.display(Notation::Paper)
        })
    };
    std::iter::once(&study.entry)
        .chain(&study.exits)
        .map(show)
        .collect()
}

/// The history for a note: short ones whole, long ones by their first and last
/// iterations (`<0,0> → <1,1> → <1,2> → … → <1,1000>`), with `…` at the end when the
/// loop may run on past the simulated iterations.
fn history_text(study: &LoopStudy, name: &str) -> String {
    let h = shape_history(study, name);
    let mut text = if h.len() > 8 {
        let mut parts = h[..4].to_vec();
        parts.push(format!("… ({} iterations)", h.len() - 1));
        parts.push(h[h.len() - 1].clone());
        parts.join(" → ")
    } else {
        h.join(" → ")
    };
    if study.exact_exit.is_none() {
        text.push_str(" → …");
    }
    text
}

/// Joins the per-iteration results of one statement into one; `fresh` names the
/// extents that differ between iterations.
fn combine(results: &[&StmtResult], fresh: &dyn Fn(&str, usize) -> Dim) -> Option<StmtResult> {
    let viable: Vec<&&StmtResult> = results.iter().filter(|r| r.viable).collect();
    let last: &StmtResult = match viable.last() {
        Some(r) => r,
        None => results.last()?,
    };
    let mut combined = last.clone();
    for r in &viable {
        for (name, value) in &r.defs {
            if let Some((_, v)) = combined.defs.iter_mut().find(|(n, _)| n == name) {
                *v = v.join(value, &mut |k| fresh(name, k));
            }
        }
    }
    // An extent is bounded by the largest of its bounds in the iterations (each
    // proven by that iteration's facts), when every iteration bounds it.
    combined.bounds = combined
        .defs
        .iter()
        .map(|(name, value)| {
            let per: Vec<Vec<Option<i64>>> = viable
                .iter()
                .map(|r| iteration_bounds(r, name))
                .collect::<Option<_>>()?;
            let t = value.shape.as_tuple()?;
            let mut bounded = false;
            let out: Vec<Option<i64>> = t
                .dims()
                .iter()
                .enumerate()
                .map(|(k, d)| {
                    let hi = per
                        .iter()
                        .map(|b| b.get(k).copied().flatten())
                        .collect::<Option<Vec<i64>>>()?
                        .into_iter()
                        .max();
                    bounded |= hi.is_some() && !d.is_known();
                    d.as_known().or(hi)
                })
                .collect();
            bounded.then_some(out)
        })
        .collect();
    // The check is the worst over the iterations: one that needs a run-time check
    // makes the statement need it, even if later iterations are proven.
    let rank = |r: &StmtResult| {
        r.effect
            .outcomes
            .iter()
            .map(|o| match o.status {
                Truth::Refuted => 3,
                Truth::Unknown => 2,
                Truth::Proven => 1,
            })
            .max()
            .unwrap_or(0)
    };
    if let Some(worst) = viable.iter().max_by_key(|r| rank(r)) {
        if rank(worst) > rank(&combined) {
            combined.effect = worst.effect.clone();
            combined.facts_before = worst.facts_before.clone();
        }
    }
    combined.viable = !viable.is_empty();
    Some(combined)
}

/// The bounds of `name`'s extents after one iteration's statement: its own known
/// extents, else what that iteration's facts proved (`None` for an unknown rank).
fn iteration_bounds(r: &StmtResult, name: &str) -> Option<Vec<Option<i64>>> {
    let i = r.defs.iter().position(|(n, _)| n == name)?;
    let t = r.defs[i].1.shape.as_tuple()?;
    let proven = r.bounds.get(i).cloned().flatten();
    Some(
        t.dims()
            .iter()
            .enumerate()
            .map(|(k, d)| {
                d.as_known()
                    .or_else(|| proven.as_ref()?.get(k).copied().flatten())
            })
            .collect(),
    )
}

/// Refines the results of `stmt`'s loops not nested in another loop with their studies
/// (in order, as the symbols they mint are numbered): `results` are those of `stmt` and
/// the statements in it. The loops' notes.
pub(super) fn refine(
    a: &ValueAnalysis,
    is_temp: &dyn Fn(&str) -> bool,
    stmt: &Stmt,
    flow: &FlowResult<Env>,
    results: &mut [StmtResult],
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for l in outermost_loops(std::slice::from_ref(stmt)) {
        let Some(entry) = flow.before.get(&l.id).and_then(|s| s.fact()) else {
            continue;
        };
        let Some(study) = cached_study(a, l, entry) else {
            continue;
        };
        let fresh = |name: &str, k: usize| a.symbols.mint(&format!("{name}~j"), k, l.id, false);
        // A loop's results are the loop's and then its body's, in a row: the study
        // touches nothing else (walking every statement per loop made long scripts
        // quadratic).
        let first = results.iter().position(|r| r.id == l.id).unwrap_or(0);
        let last = (first + subtree_len(l)).min(results.len());
        apply_study(
            l,
            &study,
            is_temp,
            &fresh,
            &mut results[first..last],
            &mut diagnostics,
        );
    }
    diagnostics
}

/// How many statements `stmt` is, with every statement nested in it.
fn subtree_len(stmt: &Stmt) -> usize {
    1 + stmt
        .children()
        .iter()
        .flat_map(|c| c.iter())
        .map(subtree_len)
        .sum::<usize>()
}

/// Loops not nested in another loop.
fn outermost_loops(stmts: &[Stmt]) -> Vec<&Stmt> {
    let mut out = Vec::new();
    for s in stmts {
        match s.kind {
            StmtKind::For { .. } | StmtKind::While { .. } => out.push(s),
            _ => s
                .children()
                .iter()
                .for_each(|c| out.extend(outermost_loops(c))),
        }
    }
    out
}

/// Refines the fixed-point results of a loop's body with its simulated iterations.
fn apply_study(
    stmt: &Stmt,
    study: &LoopStudy,
    is_temp: &dyn Fn(&str) -> bool,
    fresh: &dyn Fn(&str, usize) -> shapex_dims::Dim,
    statements: &mut [StmtResult],
    diagnostics: &mut Vec<Diagnostic>,
) {
    let refuted =
        |r: &StmtResult| r.viable && r.effect.outcomes.iter().any(|o| o.status == Truth::Refuted);
    for slot in statements.iter_mut() {
        let per_iteration: Vec<&StmtResult> = study
            .iterations
            .iter()
            .filter_map(|it| it.iter().find(|r| r.id == slot.id))
            .collect();
        if per_iteration.is_empty() {
            continue;
        }
        let first_failure = study.iterations.iter().enumerate().find_map(|(j, it)| {
            it.iter()
                .find(|r| r.id == slot.id && refuted(r))
                .map(|r| (j, r))
        });
        match first_failure {
            Some((j, r)) if study.certain[j] && study.top_level.contains(&slot.id) => {
                *slot = StmtResult {
                    iteration: Some((j + 1, study.bindings[j].clone())),
                    ..r.clone()
                };
            }
            Some((j, r)) => diagnostics.push(Diagnostic::warning(
                "shape.loop.iteration",
                format!(
                    "fails on iteration {} if the loop runs that long: {} requires {}",
                    j + 1,
                    r.effect
                        .outcomes
                        .iter()
                        .find(|o| o.status == Truth::Refuted)
                        .map_or("", |o| o.rule.name()),
                    r.effect
                        .outcomes
                        .iter()
                        .find(|o| o.status == Truth::Refuted)
                        .map_or(String::new(), |o| o.theta.to_string()),
                ),
                r.span,
            )),
            None if study.settled => {
                if let Some(c) = combine(&per_iteration, fresh) {
                    *slot = c;
                }
            }
            None => {}
        }
    }
    if let Some(note) = loop_note(study, is_temp, stmt.origin) {
        diagnostics.push(note);
    }
    diagnostics.extend(prealloc_hints(study, is_temp, stmt.origin));
}

/// Joisha §9's inferences about a loop: which variables keep their shape in every
/// iteration and which change it only on the first.
fn loop_note(study: &LoopStudy, is_temp: &dyn Fn(&str) -> bool, span: Span) -> Option<Diagnostic> {
    if !study.settled || study.exits.is_empty() {
        return None;
    }
    // A variable whose shape the loop leaves unknown teaches nothing ("r keeps ? in
    // every iteration" was 2 in 5 of the notes on the real-code corpus): say nothing.
    let unknown = Shape::Unknown.display(crate::shape::Notation::Paper);
    // Nor does one that is π in some iteration: the definite error that made it says
    // so, and "h is π in every iteration" for each value computed from it repeats it.
    let illegal = Shape::Illegal.display(crate::shape::Notation::Paper);
    let mut parts = Vec::new();
    for name in assigned_names(study, is_temp) {
        let h = shape_history(study, &name);
        let steady = h[1..].windows(2).all(|w| w[0] == w[1]);
        if h.last() == Some(&unknown) || h.contains(&illegal) {
            continue;
        }
        if h.iter().all(|s| *s == h[0]) {
            parts.push(format!("{name} keeps {} in every iteration", h[0]));
        } else if steady && h[0] == "undefined" {
            parts.push(format!("{name} is {} in every iteration", h[1]));
        } else if steady && h[0] != h[1] {
            parts.push(format!(
                "{name} changes shape only on the first iteration ({} → {})",
                h[0], h[1]
            ));
        }
    }
    (!parts.is_empty()).then(|| {
        Diagnostic::new(
            crate::Severity::Info,
            "shape.loop",
            format!("loop shapes (Joisha et al. §9): {}", parts.join("; ")),
            span,
        )
    })
}

/// Figures 7–8: a variable that grows on every simulated iteration is worth
/// preallocating. Growth must be provable (more elements after each iteration than
/// before), not merely a symbolic extent written differently.
fn prealloc_hints(
    study: &LoopStudy,
    is_temp: &dyn Fn(&str) -> bool,
    span: Span,
) -> Vec<Diagnostic> {
    if study.exits.len() < 2 {
        return vec![];
    }
    let names = assigned_names(study, is_temp);
    let mut hints = Vec::new();
    for name in names {
        let mut envs = std::iter::once(&study.entry).chain(&study.exits);
        let Some(first) = envs.next() else { continue };
        let mut prev = first.get(&name).map(|v| v.shape.clone());
        let mut grows = prev.is_some();
        for env in envs {
            let next = env.get(&name).map(|v| v.shape.clone());
            grows &= match (&prev, &next) {
                (Some(Shape::Tuple(a)), Some(Shape::Tuple(b))) => env
                    .facts
                    .ask(&Constraint::lt(&a.numel(), &b.numel()))
                    .is_proven(),
                _ => false,
            };
            prev = next;
        }
        if grows {
            let h = history_text(study, &name);
            hints.push(Diagnostic::new(
                crate::Severity::Info,
                "shape.prealloc",
                format!(
                    "{name} grows on every iteration ({h}): preallocate it before the loop (Joisha et al. §12, Figures 7–8)"
                ),
                span,
            ));
        }
    }
    hints
}
