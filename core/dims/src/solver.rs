//! [`solve`]: is there a value for every symbol that satisfies a set of constraints?
//!
//! The answer is a [`Solution`]: `Sat` with a model (every constraint is evaluated under
//! it before it is returned, so a model is never wrong), `Unsat` with a conflicting
//! subset of the input (proven unsatisfiable, then shrunk by deleting what the proof
//! does not need), or `Unknown` with the reason. It is bounded and honest, not
//! complete: the facts prover ([`Facts`]) propagates equalities, bounds and
//! refutations, bounds propagation over the linear conditions (see `propagate.rs`)
//! narrows each symbol to an interval, and a depth-first search tries values for the
//! symbols left free. A symbol whose values are finitely many — a narrow interval, a
//! factor of a product equal to a constant (`a*b*c == 150528`: a divisor), a symbol a
//! disjunction pins (`s ∈ {2, 4, 9}`) — is branched on first and searched
//! exhaustively, in ascending order, so the model found is the smallest in the order
//! of the symbols (minted symbols by their table id, after the others) as far as every
//! symbol before it was searched that way. `Unsat` is
//! claimed only when the facts contradict each other, refute one of the constraints,
//! propagation empties an interval, or the search enumerated every value of such
//! finite domains without finding a model; running out of search nodes is `Unknown`.
//!
//! Symbols range over the integers; extent symbols (`Atom::Sym`) over the nonnegative
//! ones. Each `Dyn` extent is an unknown of its own (as in `Facts::ask`), solved for
//! like a symbol but left out of the model.

use super::constraint::Constraint;
use super::dim::{Atom, Dim};
use super::facts::{dyn_occurrences, Facts, Truth, Why};
use super::propagate::{divisor_domain, pinned_values, Iv, Propagator};
use super::symbol::{Provenance, Symbol};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

/// Values for symbols.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Model {
    values: BTreeMap<Symbol, i64>,
}

impl Model {
    pub fn get(&self, s: &Symbol) -> Option<i64> {
        self.values.get(s).copied()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Symbol, i64)> {
        self.values.iter().map(|(s, v)| (s, *v))
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Whether `c` evaluates to true under the model (`false` if it cannot be
    /// evaluated: an unbound symbol, a division by zero, an overflow).
    pub fn satisfies(&self, c: &Constraint) -> bool {
        c.eval_symbols(&|s| self.get(s)) == Some(true)
    }
}

/// The answer of [`solve`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Solution {
    /// A model satisfying every constraint (checked by evaluation).
    Sat(Model),
    /// The indices (into the input, ascending) of a subset of the constraints that
    /// has no model.
    Unsat(Vec<usize>),
    /// Neither could be established: `Why::Budget` when the search ran out of nodes or
    /// met an unbounded symbol, `Why::Opaque` for an opaque constraint or overflowed
    /// extent.
    Unknown(Why),
}

/// Search nodes (a value tried for a symbol) one `solve` may spend looking for a model.
const MAX_NODES: u32 = 4_000;
/// Search nodes each deletion step of the conflict minimisation may spend.
const CORE_NODES: u32 = 400;
/// A symbol whose allowed values (from the facts) are at most this many is searched
/// exhaustively; others are tried at small values only, so failing to find a model
/// among them proves nothing.
const MAX_DOMAIN: i64 = 64;
/// How many values an unbounded symbol is tried at.
const TRIES: usize = 40;

/// Satisfiability of the conjunction of `constraints` (see the module documentation).
pub fn solve(constraints: &[Constraint]) -> Solution {
    match searched(constraints, MAX_NODES) {
        Ok((Search::Exhausted, work)) => {
            let all: Vec<usize> = (0..work.len()).collect();
            Solution::Unsat(shrink(&work, all))
        }
        Ok((Search::Model(values), _)) => Solution::Sat(model(values)),
        Ok((Search::Incomplete, _)) => Solution::Unknown(Why::Budget),
        Err(why) => Solution::Unknown(why),
    }
}

/// A model of `constraints` found within `nodes` search nodes, if any: [`solve`]
/// without the proof of unsatisfiability, for callers that want only a model (a
/// witness), where shrinking a conflict would be wasted work.
pub fn satisfy(constraints: &[Constraint], nodes: u32) -> Option<Model> {
    match searched(constraints, nodes.min(MAX_NODES)) {
        Ok((Search::Model(values), _)) => Some(model(values)),
        _ => None,
    }
}

/// The search over `constraints` with each `Dyn` occurrence an unknown of its own, and
/// the constraints it searched.
fn searched(constraints: &[Constraint], nodes: u32) -> Result<(Search, Vec<Constraint>), Why> {
    if constraints.iter().any(opaque) {
        return Err(Why::Opaque);
    }
    let next = Cell::new(0);
    let work: Vec<Constraint> = constraints
        .iter()
        .map(|c| {
            if c.mentions_dyn() {
                dyn_occurrences(c, &next)
            } else {
                c.clone()
            }
        })
        .collect();
    let all: Vec<usize> = (0..work.len()).collect();
    Ok((search(&work, &all, nodes), work))
}

/// The model of a search's values, without the `Dyn` occurrences' unknowns.
fn model(values: BTreeMap<Symbol, i64>) -> Model {
    let values = values
        .into_iter()
        .filter(|(s, _)| !matches!(s.provenance(), Provenance::DynOccurrence(_)))
        .collect();
    Model { values }
}

/// Calls `meet` with the values, if any.
fn meet_some(meet: &mut impl FnMut(Vec<i64>), values: Option<Vec<i64>>) {
    if let Some(v) = values {
        meet(v);
    }
}

/// What is known of atom `a` before propagation: its value when the facts fix it,
/// else the facts' bounds (and `≥ 0` for extents and other nonnegative atoms).
fn initial(a: &Atom, facts: &Facts, known: &BTreeMap<&Atom, i64>) -> Iv {
    if let Some(v) = known.get(a) {
        return Iv::point(i128::from(*v));
    }
    let base = if a.is_nonneg() { Iv::nonneg() } else { Iv::ALL };
    if a.symbol().is_none() {
        return base;
    }
    let (lo, hi) = facts.bounds(&Dim::atom(a.clone()));
    base.meet(Iv {
        lo: lo.map(i128::from),
        hi: hi.map(i128::from),
    })
}

/// The equations (as `a - b`) and the disjunctions among the conjuncts of `c`.
fn collect<'a>(c: &'a Constraint, eqs: &mut Vec<Dim>, ors: &mut Vec<&'a [Constraint]>) {
    match c {
        Constraint::Eq(a, b) => eqs.push(a.sub(b)),
        Constraint::Or(v) => ors.push(v),
        Constraint::And(v) => v.iter().for_each(|x| collect(x, eqs, ors)),
        _ => {}
    }
}

fn opaque(c: &Constraint) -> bool {
    match c {
        Constraint::Opaque(_) => true,
        Constraint::And(v) | Constraint::Or(v) => v.iter().any(opaque),
        _ => c.dims().iter().any(|d| d.is_opaque()),
    }
}

/// Each search node asks every constraint, so a node costs about the set's [`weight`]:
/// past [`SMALL_SET`] the nodes are cut to keep the work (nodes × weight) bounded — a
/// larger set is more often Unknown, never answered wrongly.
const SMALL_SET: usize = 100;
/// The least nodes a search gets however large its set.
const MIN_NODES: u32 = 40;

/// What asking a constraint at a node costs, roughly: a disjunction is split on, so it
/// weighs its alternatives (and what is inside them).
fn weight(c: &Constraint) -> usize {
    match c {
        Constraint::Or(v) => 2 + 3 * v.iter().map(weight).sum::<usize>(),
        Constraint::And(v) => v.iter().map(weight).sum(),
        _ => 1,
    }
}

fn scaled(max_nodes: u32, constraints: usize) -> u32 {
    if constraints <= SMALL_SET {
        return max_nodes;
    }
    let work = u64::from(max_nodes) * SMALL_SET as u64;
    let nodes = work / constraints as u64;
    u32::try_from(nodes).unwrap_or(u32::MAX).max(MIN_NODES)
}

/// Deletion steps the conflict minimisation may take: past them the conflict found so
/// far is returned (still proven unsatisfiable, only not minimal).
const SHRINK_STEPS: usize = 200;

/// Deletion-based minimisation: drop each constraint in turn while what is left is
/// still proven unsatisfiable (by the same sound means, on a smaller budget).
fn shrink(work: &[Constraint], mut keep: Vec<usize>) -> Vec<usize> {
    let mut i = 0;
    let mut steps = 0;
    while i < keep.len() && steps < SHRINK_STEPS {
        steps += 1;
        let trial: Vec<usize> = keep
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, k)| *k)
            .collect();
        if matches!(search(work, &trial, CORE_NODES), Search::Exhausted) {
            keep = trial;
        } else {
            i += 1;
        }
    }
    keep
}

enum Search {
    /// A model (checked), including the `Dyn` occurrences' values.
    Model(BTreeMap<Symbol, i64>),
    /// No model exists: every value the facts allow was tried (or the facts alone
    /// refute the constraints).
    Exhausted,
    /// No model found, but not every value was tried.
    Incomplete,
}

struct Searcher<'a> {
    constraints: Vec<&'a Constraint>,
    /// `0 ≤ x` for every extent symbol `x`: implicit in the facts while `x` is free,
    /// but lost when `x` is rewritten to an expression (`b := 3*a - 7`), so stated.
    domain: Vec<Constraint>,
    /// The symbol atoms to assign, in a fixed order.
    vars: Vec<Atom>,
    /// Values worth trying for unbounded symbols: small ones and the constants the
    /// constraints mention, with their neighbours.
    anchors: Vec<i64>,
    nodes: Cell<u32>,
    complete: Cell<bool>,
    /// Linear conditions every model satisfies, for bounds propagation.
    prop: Propagator,
    /// The equations among the conjuncts, as `a - b` (products equal to constants).
    eqs: Vec<Dim>,
    /// The disjunctions among the conjuncts (`s ∈ {2, 4, 9}`).
    ors: Vec<&'a [Constraint]>,
    /// Divisors of the constants met so far.
    divisors: RefCell<BTreeMap<u64, Vec<u64>>>,
}

/// Looks for a model of the constraints `which` selects.
fn search(work: &[Constraint], which: &[usize], max_nodes: u32) -> Search {
    let constraints: Vec<&Constraint> = which.iter().map(|&i| &work[i]).collect();
    let mut vars: Vec<Atom> = Vec::new();
    let mut anchors: Vec<i64> = (-8..=8).collect();
    for c in &constraints {
        for d in c.dims() {
            for a in d.leaves() {
                if !vars.contains(a) {
                    vars.push(a.clone());
                }
            }
            for k in [d.constant(), d.constant().saturating_neg()] {
                for v in [k.saturating_sub(1), k, k.saturating_add(1)] {
                    if !anchors.contains(&v) {
                        anchors.push(v);
                    }
                }
            }
        }
    }
    // The order models are smallest in: minted symbols by id (the order the analysis
    // made them), after the symbols no table minted, each kind in atom order.
    vars.sort_by(|x, y| {
        let id = |a: &Atom| a.symbol().and_then(Symbol::id);
        id(x).cmp(&id(y)).then_with(|| x.cmp(y))
    });
    anchors.sort_by_key(|v| (v.unsigned_abs(), *v < 0));
    let domain = vars
        .iter()
        .filter(|a| matches!(a, Atom::Sym(_)))
        .map(|a| Constraint::Le(Dim::zero(), Dim::atom(a.clone())))
        .collect();
    let (mut eqs, mut ors) = (Vec::new(), Vec::new());
    for c in &constraints {
        collect(c, &mut eqs, &mut ors);
    }
    let nodes = scaled(max_nodes, constraints.iter().map(|c| weight(c)).sum());
    let s = Searcher {
        prop: Propagator::new(constraints.iter().copied()),
        eqs,
        ors,
        divisors: RefCell::default(),
        constraints,
        domain,
        vars,
        anchors,
        nodes: Cell::new(nodes),
        complete: Cell::new(true),
    };
    let facts = Facts::from_constraints(s.constraints.iter().copied().chain(&s.domain));
    match s.dfs(&facts) {
        Some(m) => Search::Model(m),
        None if s.complete.get() => Search::Exhausted,
        None => Search::Incomplete,
    }
}

impl Searcher<'_> {
    fn spend(&self) -> bool {
        let left = self.nodes.get();
        if left == 0 {
            self.complete.set(false);
            return false;
        }
        self.nodes.set(left - 1);
        true
    }

    /// A model of the constraints consistent with `facts` (which hold the constraints
    /// and the values chosen so far), or `None` when there is none (or none was found:
    /// then `complete` is cleared).
    fn dfs(&self, facts: &Facts) -> Option<BTreeMap<Symbol, i64>> {
        if !self.spend() {
            return None;
        }
        // Sound pruning: the facts are consequences of the constraints and the choices,
        // so a contradiction or a refuted constraint means this branch has no model.
        if facts.is_contradictory() {
            return None;
        }
        let refuted =
            |c: &Constraint| facts.ask(c) == Truth::Refuted || no_integer_solution(facts, c);
        if self
            .constraints
            .iter()
            .copied()
            .chain(&self.domain)
            .any(refuted)
        {
            return None;
        }
        let (known, free) = self.classify(facts);
        if free.is_empty() {
            let values = known
                .iter()
                .filter_map(|(a, v)| Some((a.symbol()?.clone(), *v)))
                .collect();
            return self.check(values);
        }
        // Bounds every model of this branch respects; none: the branch has no model.
        let bounds = self.prop.run(|a| initial(a, facts, &known))?;
        let (x, candidates) = self.choose(&free, facts, &bounds)?;
        let xd = Dim::atom(x.clone());
        for v in candidates {
            let next = facts.with(&Constraint::Eq(xd.clone(), Dim::known(v)));
            if let Some(m) = self.dfs(&next) {
                return Some(m);
            }
            if self.nodes.get() == 0 {
                // The values not tried may hold a model.
                self.complete.set(false);
                break;
            }
        }
        None
    }

    /// The symbols whose values the facts fix, and those to branch on: the ones the
    /// facts leave free, or else (all are defined by others) the first unknown one.
    fn classify(&self, facts: &Facts) -> (BTreeMap<&Atom, i64>, Vec<&Atom>) {
        let mut known = BTreeMap::new();
        let (mut free, mut defined) = (Vec::new(), None);
        for a in &self.vars {
            let d = Dim::atom(a.clone());
            let n = facts.normalize(&d);
            match n.as_known() {
                Some(v) => {
                    known.insert(a, v);
                }
                None if n == d => free.push(a),
                None => defined = defined.or(Some(a)),
            }
        }
        if free.is_empty() {
            free.extend(defined);
        }
        (known, free)
    }

    /// The symbol to branch on and the values to try: the first symbol (in the fixed
    /// order) whose values are a finite set — every one of them is tried, so the branch
    /// is searched exhaustively — else the first symbol, at a few values only (the
    /// search is then incomplete). `None` when the first symbol can take no value.
    fn choose<'s>(
        &'s self,
        free: &[&'s Atom],
        facts: &Facts,
        bounds: &[Iv],
    ) -> Option<(&'s Atom, Vec<i64>)> {
        let eqs: Vec<Dim> = self.eqs.iter().map(|d| facts.normalize(d)).collect();
        let mut first = None;
        for &x in free {
            let iv = self
                .prop
                .position(x)
                .map_or_else(|| initial(x, facts, &BTreeMap::new()), |i| bounds[i]);
            match self.finite_domain(x, iv, &eqs, facts) {
                Some(values) => return Some((x, values)),
                None => first = first.or(Some((x, iv))),
            }
        }
        let (x, iv) = first?;
        self.complete.set(false);
        let values = match congruence(x, &eqs) {
            Some((r, m)) => stepped(iv, r, m),
            None => self.open_candidates(iv),
        };
        Some((x, values))
    }

    /// Every value `x` may take, ascending, when they are finitely many (a product
    /// equal to a constant, a disjunction that pins `x`, a narrow interval).
    fn finite_domain(&self, x: &Atom, iv: Iv, eqs: &[Dim], facts: &Facts) -> Option<Vec<i64>> {
        let mut set: Option<Vec<i64>> = None;
        let mut meet = |vs: Vec<i64>| {
            set = Some(match set.take() {
                Some(old) => old.into_iter().filter(|v| vs.contains(v)).collect(),
                None => vs,
            });
        };
        let mut cache = self.divisors.borrow_mut();
        for d in eqs {
            meet_some(&mut meet, divisor_domain(d, x, &mut cache));
        }
        let norm = |d: &Dim| facts.normalize(d);
        for alts in &self.ors {
            meet_some(&mut meet, pinned_values(alts, x, &norm));
        }
        let within = |v: &i64| {
            iv.lo.is_none_or(|l| i128::from(*v) >= l) && iv.hi.is_none_or(|h| i128::from(*v) <= h)
        };
        if let Some(s) = set {
            return Some(s.into_iter().filter(within).collect());
        }
        let l = i64::try_from(iv.lo?).ok()?;
        let h = i64::try_from(iv.hi?).ok()?;
        if h < l {
            return Some(vec![]);
        }
        h.checked_sub(l)
            .is_some_and(|w| w < MAX_DOMAIN)
            .then(|| (l..=h).collect())
    }

    /// A few values for a symbol with many possible ones: near its bounds and near the
    /// constants the constraints mention, smallest magnitude first.
    fn open_candidates(&self, iv: Iv) -> Vec<i64> {
        let lo = iv.lo.and_then(|l| i64::try_from(l).ok());
        let hi = iv.hi.and_then(|h| i64::try_from(h).ok());
        let within = |v: &i64| lo.is_none_or(|l| *v >= l) && hi.is_none_or(|h| *v <= h);
        let near_bounds = [lo, hi]
            .into_iter()
            .flatten()
            .flat_map(|b| (0..8).flat_map(move |k| [b.saturating_add(k), b.saturating_sub(k)]));
        let mut c: Vec<i64> = Vec::new();
        for v in near_bounds.chain(self.anchors.iter().copied()) {
            if within(&v) && !c.contains(&v) {
                c.push(v);
            }
        }
        c.sort_by_key(|v| (v.unsigned_abs(), *v < 0));
        c.truncate(TRIES);
        c
    }

    /// Every symbol has a value: a model if every constraint evaluates to true (and
    /// every extent symbol is ≥ 0). Otherwise this branch has no model — unless some
    /// constraint could not be evaluated (a division by zero), which proves nothing.
    fn check(&self, values: BTreeMap<Symbol, i64>) -> Option<BTreeMap<Symbol, i64>> {
        let extents_ok = self.vars.iter().all(|a| match a {
            Atom::Sym(s) => values.get(s).is_some_and(|v| *v >= 0),
            _ => true,
        });
        let mut ok = extents_ok;
        for c in &self.constraints {
            match c.eval_symbols(&|s| values.get(s).copied()) {
                Some(true) => {}
                Some(false) => ok = false,
                None => {
                    self.complete.set(false);
                    ok = false;
                }
            }
        }
        ok.then_some(values)
    }
}

/// The residue class `x ≡ r (mod m)` an equation puts `x` in when `x` occurs in it only
/// as a term `c·x`: the other terms and the constant are `k` plus multiples of `g`, the
/// gcd of the other coefficients, so `c·x + k ≡ 0 (mod g)` (`27·n == 183·q` makes `q` a
/// multiple of 9). Of every such equation, the largest modulus; `None` when none says
/// more than "any integer". What `x` must satisfy, so trying only those values loses
/// no model, and a large witness (`n = 61`) is among the first tried.
fn congruence(x: &Atom, eqs: &[Dim]) -> Option<(i64, i64)> {
    let mut best: Option<(i64, i64)> = None;
    for d in eqs {
        let mut c = None;
        let mut g: i64 = 0;
        let mut alone = true;
        for (m, coef) in d.terms() {
            let atoms = m.atoms();
            if atoms.is_empty() {
                continue;
            }
            if atoms.contains(x) {
                alone &= atoms.len() == 1 && c.is_none();
                c = Some(*coef);
            } else {
                g = gcd(g, coef.unsigned_abs().min(i64::MAX as u64) as i64);
            }
        }
        let (Some(c), true) = (c, alone) else {
            continue;
        };
        if let Some((r, m)) = residue(c, d.constant(), g) {
            if best.is_none_or(|(_, b)| m > b) {
                best = Some((r, m));
            }
        }
    }
    best
}

/// The solutions of `c·x + k ≡ 0 (mod g)` as `x ≡ r (mod m)`, when there are some and
/// `m > 1`.
fn residue(c: i64, k: i64, g: i64) -> Option<(i64, i64)> {
    let (c, k, g) = (i128::from(c), i128::from(k), i128::from(g));
    if g <= 1 {
        return None;
    }
    let d = gcd128(c.rem_euclid(g), g);
    if k.rem_euclid(d) != 0 {
        return None;
    }
    let m = g / d;
    if m <= 1 {
        return None;
    }
    let inv = inverse((c / d).rem_euclid(m), m)?;
    let r = ((-k / d).rem_euclid(m) * inv).rem_euclid(m);
    Some((i64::try_from(r).ok()?, i64::try_from(m).ok()?))
}

fn gcd128(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs()
    } else {
        gcd128(b, a % b)
    }
}

/// `a⁻¹ mod m` for coprime `a` and `m` (the extended Euclidean algorithm).
fn inverse(a: i128, m: i128) -> Option<i128> {
    let (mut r0, mut r1, mut s0, mut s1) = (a, m, 1i128, 0i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (s0, s1) = (s1, s0 - q * s1);
    }
    (r0 == 1).then(|| s0.rem_euclid(m))
}

/// The first [`TRIES`] values of `iv` (from its lower bound, or 0) that are `≡ r (mod m)`.
fn stepped(iv: Iv, r: i64, m: i64) -> Vec<i64> {
    let lo = iv.lo.and_then(|l| i64::try_from(l).ok()).unwrap_or(0);
    let hi = iv.hi.and_then(|h| i64::try_from(h).ok());
    let Some(first) = lo
        .checked_sub(lo.rem_euclid(m))
        .and_then(|b| b.checked_add(r))
        .map(|v| if v < lo { v.saturating_add(m) } else { v })
    else {
        return Vec::new();
    };
    (0..TRIES as i64)
        .map_while(|i| first.checked_add(i.checked_mul(m)?))
        .take_while(|v| hi.is_none_or(|h| *v <= h))
        .collect()
}

/// Whether an equation (or a conjunct of one) has no integer solution by the gcd test:
/// in `Σ cᵢ·mᵢ + k == 0` over integer-valued atoms (as the facts normalise it), every
/// non-constant term is a multiple of `g = gcd(cᵢ)`, so `g` must divide `k`
/// (`4·(h−2)·(w−2) == 175`, expanded, has none); a conjunction with a conjunct that
/// has none, a disjunction whose every alternative has none. A proof, so the search
/// may prune.
fn no_integer_solution(facts: &Facts, c: &Constraint) -> bool {
    match c {
        Constraint::Eq(a, b) => {
            let d = facts.normalize(&a.sub(b));
            if d.is_opaque() || d.is_dyn() {
                return false;
            }
            let mut g: i64 = 0;
            for (m, coef) in d.terms() {
                if !m.atoms().is_empty() {
                    g = gcd(g, coef.unsigned_abs().min(i64::MAX as u64) as i64);
                }
            }
            g > 1 && d.constant() % g != 0
        }
        Constraint::And(v) => v.iter().any(|c| no_integer_solution(facts, c)),
        // A disjunction none of whose alternatives has one (`x == 2·q ∨ 9·q == 2` at
        // `x = 9`, a reshape's divisibility either way).
        Constraint::Or(v) => !v.is_empty() && v.iter().all(|c| no_integer_solution(facts, c)),
        _ => false,
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}
