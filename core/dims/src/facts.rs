//! [`Facts`]: what is known about extents at one program point.
//!
//! Equalities are kept solved: each learned `d == 0` with a unit-coefficient atom `x`
//! becomes a rewrite `x := rest` (a union-find with offsets generalised to linear
//! combinations, so `a == b+1` and `p2 == q1` both work); other equalities, `≠` facts
//! and `≥ 0` facts are kept as polynomials. Questions are answered by normalising and
//! then by interval reasoning (extent symbols are ≥ 0). Every step spends from a budget;
//! running out answers `Unknown`, never a guess — and [`Facts::ask_explained`] says so
//! ([`Why::Budget`]), as it does when a fact the question depends on was dropped
//! because the stored facts reached their bound.

use super::constraint::Constraint;
use super::dim::{Atom, Dim};
use super::symbol::Symbol;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The answer to a question about extents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Truth {
    /// Holds for every value of the unknowns consistent with the facts.
    Proven,
    /// Fails for every value of the unknowns consistent with the facts.
    Refuted,
    Unknown,
}

impl std::ops::Not for Truth {
    type Output = Truth;
    fn not(self) -> Truth {
        match self {
            Truth::Proven => Truth::Refuted,
            Truth::Refuted => Truth::Proven,
            Truth::Unknown => Truth::Unknown,
        }
    }
}

impl Truth {
    pub fn from_bool(b: bool) -> Truth {
        if b {
            Truth::Proven
        } else {
            Truth::Refuted
        }
    }

    pub fn is_proven(self) -> bool {
        self == Truth::Proven
    }

    pub fn is_refuted(self) -> bool {
        self == Truth::Refuted
    }
}

/// Why a question was left `Unknown`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Why {
    /// The facts leave it open: some values consistent with them satisfy it, others
    /// may not (as far as the prover can tell within its budget, which was not spent).
    Open,
    /// The prover's budget ran out (steps, case-split depth, normalisation rounds), or
    /// a fact the question depends on was dropped because the stored facts reached
    /// their bound: more work might decide it.
    Budget,
    /// It involves something no reasoning applies to: an overflowed extent or a
    /// condition not expressible over extents (`Constraint::Opaque`).
    Opaque,
    /// The facts contradict each other (the program point is unreachable): nothing is
    /// claimed.
    Unreachable,
}

/// An answer with its reason: `why` is `Some` exactly when `truth` is `Unknown`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Answer {
    pub truth: Truth,
    pub why: Option<Why>,
}

impl Answer {
    fn decided(truth: Truth) -> Answer {
        Answer { truth, why: None }
    }

    fn unknown(why: Why) -> Answer {
        Answer {
            truth: Truth::Unknown,
            why: Some(why),
        }
    }

    /// Unknown because a bound on the prover's work or on the stored facts was reached.
    pub fn is_budget(&self) -> bool {
        self.why == Some(Why::Budget)
    }
}

/// Steps one `ask` may spend before answering `Unknown`.
const DEFAULT_BUDGET: u32 = 10_000;
/// At most this many unsolved facts of each kind (and solved rewrites) are kept: facts
/// only ever help, so dropping new ones past the bound is sound, and it keeps every
/// `ask` cheap on long programs. What is dropped is recorded (see [`Dropped`]).
const MAX_STORED: usize = 48;
/// At most this many symbols of dropped facts are remembered; past it, every `Unknown`
/// may be for want of a dropped fact.
const MAX_DROPPED_ATOMS: usize = 64;
/// Rounds of normalisation before giving up on a fixpoint.
const NORMALIZE_ROUNDS: usize = 8;

#[derive(Clone, Debug, Default)]
struct Inner {
    /// Solved equalities `atom := dim`; right sides are fully normalised.
    subst: BTreeMap<Atom, Dim>,
    /// Unsolved equalities `d == 0` (no unit-coefficient atom to pivot on).
    zeros: Vec<Dim>,
    /// `d ≠ 0`.
    nonzero: Vec<Dim>,
    /// `d ≥ 0`.
    nonneg: Vec<Dim>,
    /// Disjunctions (each alternative a conjunction): what a run-time check that passed
    /// established when several of its cases stay possible (`t` is scalar, or it has
    /// three columns). Questions the other facts leave open are answered by splitting
    /// on them: proven (refuted) when proven (refuted) under every alternative.
    /// Each shared, so copying the facts to change them does not copy these.
    disjunctions: Vec<Arc<[Constraint]>>,
    /// The facts contradict each other: the program point is unreachable.
    contradictory: bool,
    /// What was dropped at a bound: it explains `Unknown` answers and never changes
    /// one, so it takes no part in equality (fixed points converge exactly as before).
    dropped: Dropped,
    /// What the `≥ 0` facts bound single atoms to, computed once per state of the facts
    /// (see [`Facts::inner_mut`]): interval reasoning asks it for every atom of every
    /// question, and recomputing it each time made loops with many facts slow.
    bounds: BoundCache,
}

impl PartialEq for Inner {
    fn eq(&self, o: &Inner) -> bool {
        self.subst == o.subst
            && self.zeros == o.zeros
            && self.nonzero == o.nonzero
            && self.nonneg == o.nonneg
            && self.disjunctions == o.disjunctions
            && self.contradictory == o.contradictory
    }
}

impl Eq for Inner {}

/// The symbols of facts dropped because a bound was reached (the stored facts were
/// full, an equality took too many steps to solve, the oldest disjunction made room).
/// A later `Unknown` about anything connected to them is reported as [`Why::Budget`].
#[derive(Clone, Debug, Default)]
struct Dropped {
    atoms: Vec<Atom>,
    /// Too many to remember: any `Unknown` may be for want of a dropped fact.
    all: bool,
}

impl Dropped {
    fn record(&mut self, c: &Constraint) {
        for d in c.dims() {
            for a in d.leaves() {
                self.add(a);
            }
        }
    }

    fn add(&mut self, a: &Atom) {
        if self.atoms.contains(a) {
            return;
        }
        if self.atoms.len() >= MAX_DROPPED_ATOMS {
            self.all = true;
        } else {
            self.atoms.push(a.clone());
        }
    }

    fn merge(&mut self, o: &Dropped) {
        self.all |= o.all;
        o.atoms.iter().for_each(|a| self.add(a));
    }

    fn any(&self) -> bool {
        self.all || !self.atoms.is_empty()
    }
}

/// A lazily computed map atom → interval; never part of the facts' identity.
#[derive(Clone, Debug, Default)]
struct BoundCache(std::sync::OnceLock<BTreeMap<Atom, Interval>>);

impl PartialEq for BoundCache {
    fn eq(&self, _: &BoundCache) -> bool {
        true
    }
}

impl Eq for BoundCache {}

/// At most this many disjunctions are kept (the oldest are dropped: sound, as facts
/// only ever help), and questions split on at most this many of them in a row.
const MAX_DISJUNCTIONS: usize = 12;
const MAX_SPLIT_DEPTH: u32 = 3;
/// Budget steps one case of a split costs.
const SPLIT_COST: u32 = 500;

/// Facts at a program point. Cloning is O(1) (shared until modified).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    inner: Arc<Inner>,
}

/// Extended integers for interval reasoning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ext {
    NegInf,
    Fin(i128),
    PosInf,
}

impl Ext {
    fn add(self, o: Ext) -> Ext {
        match (self, o) {
            (Ext::Fin(a), Ext::Fin(b)) => a.checked_add(b).map_or(sat(a), Ext::Fin),
            (Ext::NegInf, _) | (_, Ext::NegInf) => Ext::NegInf,
            _ => Ext::PosInf,
        }
    }

    fn mul(self, o: Ext) -> Ext {
        let sign = |e: Ext| match e {
            Ext::NegInf => -1,
            Ext::PosInf => 1,
            Ext::Fin(v) => v.signum(),
        };
        match (self, o) {
            (Ext::Fin(a), Ext::Fin(b)) => a.checked_mul(b).map_or(
                if (a < 0) != (b < 0) {
                    Ext::NegInf
                } else {
                    Ext::PosInf
                },
                Ext::Fin,
            ),
            _ => match sign(self) * sign(o) {
                0 => Ext::Fin(0),
                s if s > 0 => Ext::PosInf,
                _ => Ext::NegInf,
            },
        }
    }
}

fn sat(a: i128) -> Ext {
    if a > 0 {
        Ext::PosInf
    } else {
        Ext::NegInf
    }
}

#[derive(Clone, Copy, Debug)]
struct Interval {
    lo: Ext,
    hi: Ext,
}

impl Interval {
    const ALL: Interval = Interval {
        lo: Ext::NegInf,
        hi: Ext::PosInf,
    };

    fn point(v: i128) -> Interval {
        Interval {
            lo: Ext::Fin(v),
            hi: Ext::Fin(v),
        }
    }

    fn add(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.add(o.lo),
            hi: self.hi.add(o.hi),
        }
    }

    fn mul(self, o: Interval) -> Interval {
        let c = [
            self.lo.mul(o.lo),
            self.lo.mul(o.hi),
            self.hi.mul(o.lo),
            self.hi.mul(o.hi),
        ];
        Interval {
            lo: c.iter().copied().min().unwrap_or(Ext::NegInf),
            hi: c.iter().copied().max().unwrap_or(Ext::PosInf),
        }
    }

    fn meet(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.max(o.lo),
            hi: self.hi.min(o.hi),
        }
    }

    fn max0(self) -> Interval {
        Interval {
            lo: self.lo.max(Ext::Fin(0)),
            hi: self.hi.max(Ext::Fin(0)),
        }
    }
}

/// A per-ask budget of reasoning steps; `exhausted` records that some bound (steps,
/// depth, rounds) cut the reasoning short.
struct Budget {
    left: Cell<u32>,
    exhausted: Cell<bool>,
}

impl Budget {
    fn new(steps: u32) -> Budget {
        Budget {
            left: Cell::new(steps),
            exhausted: Cell::new(false),
        }
    }

    fn spend(&self) -> bool {
        let left = self.left.get();
        if left == 0 {
            self.exhausted.set(true);
            return false;
        }
        self.left.set(left - 1);
        true
    }

    fn spend_many(&self, n: u32) -> bool {
        let left = self.left.get();
        if left < n {
            self.left.set(0);
            self.exhausted.set(true);
            return false;
        }
        self.left.set(left - n);
        true
    }

    /// A bound other than the step count was reached.
    fn cut(&self) {
        self.exhausted.set(true);
    }
}

impl Facts {
    pub fn new() -> Facts {
        Facts::default()
    }

    /// The facts for changing: unshared, and with the cached atom bounds cleared.
    fn inner_mut(&mut self) -> &mut Inner {
        let inner = Arc::make_mut(&mut self.inner);
        inner.bounds = BoundCache::default();
        inner
    }

    /// The bounds the `≥ 0` facts put on single atoms (`c*a + k ≥ 0`), met per atom.
    fn atom_bounds(&self) -> &BTreeMap<Atom, Interval> {
        self.inner.bounds.0.get_or_init(|| {
            let mut out: BTreeMap<Atom, Interval> = BTreeMap::new();
            for e in &self.inner.nonneg {
                if let Some((a, iv)) = self.bound_from(e) {
                    let met = match out.get(&a) {
                        Some(old) => old.meet(iv),
                        None => iv,
                    };
                    out.insert(a, met);
                }
            }
            out
        })
    }

    /// Facts from a list of constraints, assumed in order.
    pub fn from_constraints<'a>(cs: impl IntoIterator<Item = &'a Constraint>) -> Facts {
        let mut f = Facts::new();
        for c in cs {
            f.assume(c);
        }
        f
    }

    /// How many `≥ 0` facts (bounds, orders) are kept at most: see [`Facts::room`].
    pub const CAPACITY: usize = MAX_STORED;

    /// How many more `≥ 0` facts can be stored before new ones are dropped (out of
    /// [`Facts::CAPACITY`]): a caller adding facts that are merely nice to have (a
    /// display's bounds) can leave the room to the facts that checks need.
    pub fn room(&self) -> usize {
        MAX_STORED.saturating_sub(self.inner.nonneg.len())
    }

    /// True when the facts contradict each other (the point is unreachable).
    pub fn is_contradictory(&self) -> bool {
        self.inner.contradictory
    }

    /// Rewrites `d` to class representatives: solved atoms are replaced, opaque atoms
    /// are rebuilt from normalised arguments, and `max(x,0)` is simplified when the
    /// facts fix the sign of `x`.
    pub fn normalize(&self, d: &Dim) -> Dim {
        let budget = Budget::new(DEFAULT_BUDGET);
        self.normalize_with(d, &budget)
    }

    /// Bounds on the values of `d` consistent with the facts (`None`: unbounded, or
    /// beyond `i64`). Sound, not tight: every value of `d` lies within them (and when
    /// the facts are contradictory there is no value, so the bounds mean nothing).
    pub fn bounds(&self, d: &Dim) -> (Option<i64>, Option<i64>) {
        let budget = Budget::new(DEFAULT_BUDGET);
        let d = self.normalize_with(d, &budget);
        let iv = self.interval(&d, &budget, 0);
        let hi = iv.hi.min(self.upper(&d, &budget, 0));
        let fin = |e: Ext| match e {
            Ext::Fin(v) => i64::try_from(v).ok(),
            _ => None,
        };
        (fin(iv.lo), fin(hi))
    }

    /// An upper bound of `d`, tighter than its interval's where `d` subtracts a
    /// `max(e,0)`: that is at least `e`, so `d` is at most `d` with it replaced by `e`
    /// (`min(n,10)`, which is `n - max(n-10,0)`, is at most `n - (n-10) = 10`); and
    /// `max(x,0)` is at most the larger of 0 and `x`'s upper bound.
    fn upper(&self, d: &Dim, budget: &Budget, depth: u32) -> Ext {
        let mut best = self.interval(d, budget, depth).hi;
        if depth > 3 {
            return best;
        }
        if let Some(Atom::Max0(x)) = d.as_atom() {
            best = best.min(self.upper(x, budget, depth + 1).max(Ext::Fin(0)));
        }
        let mut replaced = Dim::zero();
        let mut changed = false;
        for (m, c) in d.terms() {
            let term = match m.atoms() {
                [Atom::Max0(e)] if *c < 0 => {
                    changed = true;
                    (**e).clone()
                }
                _ => Dim::atom_product(m),
            };
            replaced = replaced.add(&term.mul(&Dim::known(*c)));
        }
        if changed && !replaced.is_opaque() {
            best = best.min(self.upper(&replaced, budget, depth + 1));
        }
        best
    }

    fn normalize_with(&self, d: &Dim, budget: &Budget) -> Dim {
        let mut cur = d.clone();
        for round in 0..NORMALIZE_ROUNDS {
            if self.inner.subst.is_empty() && self.inner.nonneg.is_empty() {
                return cur;
            }
            let next = cur.substitute(&|a| self.rewrite_atom(a, budget));
            if next == cur {
                break;
            }
            if round + 1 == NORMALIZE_ROUNDS {
                budget.cut();
            }
            cur = next;
        }
        cur
    }

    fn rewrite_atom(&self, a: &Atom, budget: &Budget) -> Option<Dim> {
        if let Some(r) = self.inner.subst.get(a) {
            return Some(r.clone());
        }
        if let Atom::Max0(x) = a {
            let x = x.substitute(&|b| self.inner.subst.get(b).cloned());
            let iv = self.interval(&x, budget, 0);
            if iv.lo >= Ext::Fin(0) {
                return Some(x);
            }
            if iv.hi <= Ext::Fin(0) {
                return Some(Dim::zero());
            }
            let m = x.max0();
            return Some(self.inner.subst.get_or_none(&m).unwrap_or(m));
        }
        None
    }

    /// Proven / Refuted / Unknown for `c` under these facts.
    ///
    /// **`Dyn`.** Each occurrence of the gradual `Dyn` extent is its own unknown
    /// nonnegative integer about which the facts know nothing: `c` is proven when it
    /// holds for every value of every occurrence (and of the other unknowns), refuted
    /// when it fails for every value. So `Dyn ≥ 0` is proven, `Dyn < 0` refuted,
    /// `Dyn == 4`, `Dyn == Dyn` and `Dyn ≤ Dyn` are unknown (two `Dyn`s are not one
    /// value), and `Dyn + 1` is `Dyn` (`Dyn + 1 ≥ 1` is unknown: arithmetic forgets).
    /// Gradual consistency (`d ~ Dyn`) is "not refuted". Facts never learn anything
    /// from a constraint that mentions `Dyn` (see [`Facts::assume`]).
    pub fn ask(&self, c: &Constraint) -> Truth {
        self.answer(c, false).truth
    }

    /// [`Facts::ask`] with the reason for an `Unknown`: [`Why::Budget`] when a bound
    /// on the work (steps, case splits, normalisation rounds) was reached while
    /// answering, or when a fact connected to the question was dropped at a bound on
    /// the stored facts; the truth is exactly `ask`'s.
    pub fn ask_explained(&self, c: &Constraint) -> Answer {
        self.answer(c, true)
    }

    /// The answer; the reason for an `Unknown` is worked out only when `explain` (plain
    /// `ask` does not pay for it, and says `Open`).
    fn answer(&self, c: &Constraint, explain: bool) -> Answer {
        if self.inner.contradictory {
            // Unreachable point: claim nothing rather than "everything holds".
            return Answer::unknown(Why::Unreachable);
        }
        if c.any_dim(&mut |d| d.is_opaque()) {
            // An overflowed extent is no number in particular: nothing follows.
            return Answer::unknown(Why::Opaque);
        }
        let fresh;
        let c = if c.mentions_dyn() {
            fresh = dyn_occurrences(c, &Cell::new(0));
            &fresh
        } else {
            c
        };
        let budget = Budget::new(DEFAULT_BUDGET);
        let truth = self.ask_split(c, &budget, 0);
        if truth != Truth::Unknown {
            return Answer::decided(truth);
        }
        if !explain {
            return Answer::unknown(Why::Open);
        }
        if budget.exhausted.get() || self.dropped_reaches(c) {
            Answer::unknown(Why::Budget)
        } else if has_opaque(c) {
            Answer::unknown(Why::Opaque)
        } else {
            Answer::unknown(Why::Open)
        }
    }

    /// Whether a dropped fact may bear on `c`: it mentions a symbol connected to `c`'s
    /// through the stored facts (facts about unconnected symbols cannot decide it).
    fn dropped_reaches(&self, c: &Constraint) -> bool {
        let dropped = &self.inner.dropped;
        if !dropped.any() {
            return false;
        }
        if dropped.all {
            return true;
        }
        let leaves = |c: &Constraint| -> Vec<Atom> {
            let mut out: Vec<Atom> = Vec::new();
            for d in c.dims() {
                for a in d.leaves() {
                    if !out.contains(a) {
                        out.push(a.clone());
                    }
                }
            }
            out
        };
        let mut reached = leaves(c);
        let mut facts: Vec<Vec<Atom>> = self.as_constraints().iter().map(leaves).collect();
        loop {
            let before = reached.len();
            facts.retain(|f| {
                if f.iter().any(|a| reached.contains(a)) {
                    for a in f {
                        if !reached.contains(a) {
                            reached.push(a.clone());
                        }
                    }
                    false
                } else {
                    true
                }
            });
            if reached.len() == before {
                break;
            }
        }
        reached.iter().any(|a| dropped.atoms.contains(a))
    }

    /// `ask_with`, then, if that leaves `c` open, a case split on the first disjunction
    /// that shares a symbol with `c`.
    fn ask_split(&self, c: &Constraint, budget: &Budget, depth: u32) -> Truth {
        let base = self.ask_with(c, budget);
        if base != Truth::Unknown || self.inner.disjunctions.is_empty() {
            return base;
        }
        if depth >= MAX_SPLIT_DEPTH {
            // A disjunction that could still decide `c` is left unsplit.
            let mine = atoms_of(c);
            let mut alts = self.inner.disjunctions.iter().flat_map(|d| d.iter());
            if alts.any(|a| shares_atom(a, &mine)) {
                budget.cut();
            }
            return base;
        }
        if let Constraint::And(parts) = c {
            // Each conjunct may need a split of its own (one per extent of a shape).
            let mut all = true;
            for p in parts {
                match self.ask_split(p, budget, depth) {
                    Truth::Refuted => return Truth::Refuted,
                    Truth::Unknown => all = false,
                    Truth::Proven => {}
                }
            }
            return if all { Truth::Proven } else { Truth::Unknown };
        }
        // The most recent disjunction about what `c` mentions.
        let mine = atoms_of(c);
        let Some(k) = self
            .inner
            .disjunctions
            .iter()
            .rposition(|alts| alts.iter().any(|a| shares_atom(a, &mine)))
        else {
            return base;
        };
        let mut rest = self.clone();
        let alts = rest.inner_mut().disjunctions.remove(k);
        let mut answers = Vec::new();
        for alt in alts.iter() {
            // Assuming an alternative costs far more than one step: charge for it, so
            // a question splits on a bounded number of cases.
            if !budget.spend_many(SPLIT_COST) {
                return Truth::Unknown;
            }
            let f = rest.with(alt);
            if f.is_contradictory() {
                continue;
            }
            let t = f.ask_split(c, budget, depth + 1);
            if t == Truth::Unknown {
                return Truth::Unknown;
            }
            answers.push(t);
        }
        match answers.first() {
            Some(&t) if answers.iter().all(|&x| x == t) => t,
            // Every alternative contradicts the facts: the point is unreachable.
            None => Truth::Unknown,
            _ => Truth::Unknown,
        }
    }

    fn ask_with(&self, c: &Constraint, budget: &Budget) -> Truth {
        if !budget.spend() {
            return Truth::Unknown;
        }
        match c {
            Constraint::True => Truth::Proven,
            Constraint::False => Truth::Refuted,
            Constraint::Opaque(_) => Truth::Unknown,
            Constraint::Eq(a, b) => self.zero_test(&a.sub(b), budget),
            Constraint::Ne(a, b) => !self.zero_test(&a.sub(b), budget),
            Constraint::Le(a, b) => self.nonneg_test(&b.sub(a), budget),
            Constraint::Lt(a, b) => self.nonneg_test(&b.sub(a).add_const(-1), budget),
            Constraint::And(v) => {
                let mut all = true;
                for x in v {
                    match self.ask_with(x, budget) {
                        Truth::Refuted => return Truth::Refuted,
                        Truth::Unknown => all = false,
                        Truth::Proven => {}
                    }
                }
                if all {
                    Truth::Proven
                } else {
                    Truth::Unknown
                }
            }
            Constraint::Or(v) => {
                let mut none = true;
                for x in v {
                    match self.ask_with(x, budget) {
                        Truth::Proven => return Truth::Proven,
                        Truth::Unknown => none = false,
                        Truth::Refuted => {}
                    }
                }
                if none {
                    Truth::Refuted
                } else {
                    Truth::Unknown
                }
            }
        }
    }

    /// Is `d == 0`?
    fn zero_test(&self, d: &Dim, budget: &Budget) -> Truth {
        let d = self.normalize_with(d, budget);
        if d.is_zero() {
            return Truth::Proven;
        }
        if d.is_known() {
            return Truth::Refuted;
        }
        for z in &self.inner.zeros {
            let z = self.normalize_with(z, budget);
            if is_multiple(&d, &z) {
                return Truth::Proven;
            }
        }
        for n in &self.inner.nonzero {
            let n = self.normalize_with(n, budget);
            if n == d || n == d.neg() {
                return Truth::Refuted;
            }
        }
        let iv = self.interval(&d, budget, 0);
        if iv.lo > Ext::Fin(0) || iv.hi < Ext::Fin(0) {
            return Truth::Refuted;
        }
        Truth::Unknown
    }

    /// Is `d ≥ 0`?
    fn nonneg_test(&self, d: &Dim, budget: &Budget) -> Truth {
        let d = self.normalize_with(d, budget);
        match self.nonneg_linear(&d, budget) {
            Truth::Unknown => {}
            t => return t,
        }
        // max(x,0) ≥ x: where a `max(x,0)` term has a positive coefficient, d is at least
        // d with x in its place, so that smaller value being ≥ 0 proves d ≥ 0
        // (`P ≤ n ⊢ P ≤ max(n,0)`, the loop variable within a created extent).
        let lower: Dim = d.terms().iter().fold(Dim::zero(), |acc, (m, c)| {
            let term = match m.atoms() {
                [Atom::Max0(x)] if *c > 0 => x.mul(&Dim::known(*c)),
                _ => Dim::atom_product(m).mul(&Dim::known(*c)),
            };
            acc.add(&term)
        });
        if lower != d && self.nonneg_linear(&lower, budget) == Truth::Proven {
            return Truth::Proven;
        }
        self.nonneg_by_cases(&d, budget)
    }

    /// A `max(x,0)` with a negative coefficient is x or 0: d ≥ 0 when it holds in both
    /// cases (`n - max(n-1, 0)`, which is min(n, 1), is ≥ 0 for an extent n).
    fn nonneg_by_cases(&self, d: &Dim, budget: &Budget) -> Truth {
        let Some(x) = d.terms().iter().find_map(|(m, c)| match m.atoms() {
            [Atom::Max0(x)] if *c < 0 => Some(x.as_ref().clone()),
            _ => None,
        }) else {
            return Truth::Unknown;
        };
        let atom = Atom::Max0(Arc::new(x.clone()));
        let holds = |case: Constraint, by: &Dim| {
            let facts = self.with(&case);
            let rest = d.substitute(&|a| (*a == atom).then(|| by.clone()));
            facts.is_contradictory() || facts.nonneg_test(&rest, budget) == Truth::Proven
        };
        let zero = Dim::zero();
        if holds(Constraint::le(&zero, &x), &x) && holds(Constraint::le(&x, &zero), &zero) {
            Truth::Proven
        } else {
            Truth::Unknown
        }
    }

    fn nonneg_linear(&self, d: &Dim, budget: &Budget) -> Truth {
        let d = d.clone();
        let iv = self.interval(&d, budget, 0);
        if iv.lo >= Ext::Fin(0) {
            return Truth::Proven;
        }
        if iv.hi < Ext::Fin(0) {
            return Truth::Refuted;
        }
        // d ≥ e ≥ 0 when d − e is a nonnegative constant; d ≤ c − e < 0 when d + e = c < 0.
        for e in &self.inner.nonneg {
            let e = self.normalize_with(e, budget);
            if d.sub(&e).as_known().is_some_and(|c| c >= 0) {
                return Truth::Proven;
            }
            if d.add(&e).as_known().is_some_and(|c| c < 0) {
                return Truth::Refuted;
            }
        }
        Truth::Unknown
    }

    /// An interval containing every value of `d` consistent with the facts.
    fn interval(&self, d: &Dim, budget: &Budget, depth: u32) -> Interval {
        let mut acc = Interval::point(0);
        for (m, c) in d.terms() {
            let mut p = Interval::point(i128::from(*c));
            for a in m.atoms() {
                p = p.mul(self.atom_interval(a, budget, depth));
            }
            acc = acc.add(p);
        }
        acc
    }

    fn atom_interval(&self, a: &Atom, budget: &Budget, depth: u32) -> Interval {
        if depth > 4 {
            budget.cut();
        }
        if depth > 4 || !budget.spend() {
            return if a.is_nonneg() {
                Interval {
                    lo: Ext::Fin(0),
                    hi: Ext::PosInf,
                }
            } else {
                Interval::ALL
            };
        }
        let base = match a {
            Atom::Sym(_) | Atom::Dyn => Interval {
                lo: Ext::Fin(0),
                hi: Ext::PosInf,
            },
            Atom::Val(_) => Interval::ALL,
            Atom::Max0(x) => self.interval(x, budget, depth + 1).max0(),
            Atom::FloorDiv(..) if a.is_nonneg() => Interval {
                lo: Ext::Fin(0),
                hi: Ext::PosInf,
            },
            Atom::FloorDiv(..) => Interval::ALL,
        };
        match self.atom_bounds().get(a) {
            Some(bound) => base.meet(*bound),
            None => base,
        }
    }

    /// The atom `a` and its bound when `e ≥ 0` is `c*a + k ≥ 0`.
    fn bound_from(&self, e: &Dim) -> Option<(Atom, Interval)> {
        // Only the solved equalities are applied here: full normalisation would ask for
        // intervals again and could recurse.
        let e = e.substitute(&|b| self.inner.subst.get(b).cloned());
        let k = i128::from(e.constant());
        let rest = e.sub(&Dim::known(e.constant()));
        let [(m, c)] = rest.terms() else {
            return None;
        };
        let [a] = m.atoms() else {
            return None;
        };
        let c = i128::from(*c);
        // c*a + k ≥ 0  ⇒  a ≥ ceil(-k/c) (c > 0)  or  a ≤ floor(k/-c) (c < 0).
        let bound = if c > 0 {
            Interval {
                lo: Ext::Fin((-k).div_euclid(c) + i128::from((-k).rem_euclid(c) != 0)),
                hi: Ext::PosInf,
            }
        } else {
            Interval {
                lo: Ext::NegInf,
                hi: Ext::Fin(k.div_euclid(-c)),
            }
        };
        Some((a.clone(), bound))
    }

    /// Adds what can be learned from `c` holding: equalities are solved, `≠`/`≤`/`<`
    /// recorded, conjunctions split, and a disjunction is used when all but one of its
    /// disjuncts are refuted. A comparison (or disjunction) that mentions `Dyn` teaches
    /// nothing: `Dyn` is some value, not one the facts could name.
    pub fn assume(&mut self, c: &Constraint) {
        if !matches!(c, Constraint::And(_)) && c.mentions_dyn() {
            return;
        }
        match c {
            Constraint::True | Constraint::Opaque(_) => {}
            Constraint::False => self.inner_mut().contradictory = true,
            Constraint::Eq(a, b) => self.add_zero(a.sub(b)),
            Constraint::Ne(a, b) => {
                let d = self.normalize(&a.sub(b));
                if d.is_zero() {
                    self.inner_mut().contradictory = true;
                } else if !d.is_known() {
                    let inner = self.inner_mut();
                    push_bounded(&mut inner.nonzero, &mut inner.dropped, d, Constraint::Ne);
                }
            }
            Constraint::Le(a, b) => self.add_nonneg(b.sub(a)),
            Constraint::Lt(a, b) => self.add_nonneg(b.sub(a).add_const(-1)),
            Constraint::And(v) => v.iter().for_each(|x| self.assume(x)),
            Constraint::Or(v) => {
                // Plain questions (no case splits): assuming must stay cheap.
                let plain = |x: &Constraint| self.ask_with(x, &Budget::new(DEFAULT_BUDGET));
                let open: Vec<&Constraint> = v.iter().filter(|x| !plain(x).is_refuted()).collect();
                match open.as_slice() {
                    [] => self.inner_mut().contradictory = true,
                    [only] => self.assume(only),
                    _ if open.iter().any(|x| plain(x).is_proven()) => {}
                    _ => {
                        let alts: Vec<Constraint> = open.into_iter().cloned().collect();
                        let inner = self.inner_mut();
                        if !inner.disjunctions.iter().any(|d| d[..] == alts[..]) {
                            if inner.disjunctions.len() >= MAX_DISJUNCTIONS {
                                let oldest = inner.disjunctions.remove(0);
                                inner.dropped.record(&Constraint::Or(oldest.to_vec()));
                            }
                            inner.disjunctions.push(alts.into());
                        }
                    }
                }
            }
        }
    }

    /// Returns a copy with `c` assumed.
    pub fn with(&self, c: &Constraint) -> Facts {
        let mut f = self.clone();
        f.assume(c);
        f
    }

    fn add_nonneg(&mut self, d: Dim) {
        let d = self.normalize(&d);
        match d.as_known() {
            Some(v) if v < 0 => self.inner_mut().contradictory = true,
            Some(_) => {}
            None if d.is_nonneg() => {}
            None => {
                let inner = self.inner_mut();
                push_bounded(&mut inner.nonneg, &mut inner.dropped, d, |d, z| {
                    Constraint::Le(z, d)
                });
            }
        }
    }

    /// Learns `d == 0`.
    fn add_zero(&mut self, d: Dim) {
        let mut work = vec![d];
        let mut steps = 0;
        while let Some(d) = work.pop() {
            steps += 1;
            if steps > 64 {
                // Left unsolved: recorded as dropped, with what is still queued.
                let inner = self.inner_mut();
                for d in std::iter::once(d).chain(work) {
                    inner.dropped.record(&Constraint::Eq(d, Dim::zero()));
                }
                break;
            }
            let d = self.normalize(&d);
            if d.is_zero() {
                continue;
            }
            if d.is_known() || d.is_positive() || d.neg().is_positive() {
                self.inner_mut().contradictory = true;
                continue;
            }
            match pivot(&d) {
                Some(_) if self.inner.subst.len() >= MAX_STORED => {
                    let inner = self.inner_mut();
                    inner.dropped.record(&Constraint::Eq(d, Dim::zero()));
                }
                Some((x, rhs)) => work.extend(self.bind(x, rhs)),
                None => {
                    let inner = self.inner_mut();
                    push_bounded(&mut inner.zeros, &mut inner.dropped, d, Constraint::Eq);
                }
            }
        }
    }

    /// Records `x := rhs` and re-normalises the existing rewrites; keys that are opaque
    /// atoms whose arguments changed are returned as new equalities to solve.
    fn bind(&mut self, x: Atom, rhs: Dim) -> Vec<Dim> {
        let inner = self.inner_mut();
        inner.subst.insert(x.clone(), rhs);
        // The rewrites alone (moved there, not copied), read while the new ones are
        // made.
        let solo = Facts {
            inner: Arc::new(Inner {
                subst: std::mem::take(&mut inner.subst),
                ..Inner::default()
            }),
        };
        let mut redo = Vec::new();
        for (k, v) in &solo.inner.subst {
            let k = k.clone();
            let v = solo.normalize(v);
            // Rewrite inside the key's arguments only (looking the key itself up would
            // just return `v`).
            let sub = |a: &Atom| solo.inner.subst.get(a).cloned();
            let kd = match &k {
                Atom::Max0(y) => y.substitute(&sub).max0(),
                Atom::FloorDiv(n, d) => n.substitute(&sub).floor_div(&d.substitute(&sub)),
                _ => Dim::atom(k.clone()),
            };
            match kd.as_atom() {
                Some(a) if *a == k => {
                    inner.subst.insert(k, v);
                }
                _ => redo.push(kd.sub(&v)),
            }
        }
        redo
    }

    /// The facts that hold after either branch: a fact of one side is kept when the
    /// other side proves it.
    pub fn meet_of_branches(a: &Facts, b: &Facts) -> Facts {
        if a.is_contradictory() {
            return b.clone();
        }
        if b.is_contradictory() || a == b {
            return a.clone();
        }
        let mut out = Facts::new();
        let plain = |f: &Facts, c: &Constraint| f.ask_with(c, &Budget::new(DEFAULT_BUDGET));
        for (this, other) in [(a, b), (b, a)] {
            for c in this.as_constraints() {
                let kept = match &c {
                    // A disjunction survives a merge when both paths hold it.
                    Constraint::Or(alts) => {
                        other.inner.disjunctions.iter().any(|d| d[..] == alts[..])
                    }
                    _ => plain(other, &c).is_proven(),
                };
                if kept {
                    out.assume(&c);
                }
            }
        }
        // Facts dropped on either path may be missing from the meet too.
        if a.inner.dropped.any() || b.inner.dropped.any() {
            let inner = out.inner_mut();
            inner.dropped.merge(&a.inner.dropped);
            inner.dropped.merge(&b.inner.dropped);
        }
        out
    }

    /// Every fact as a constraint (for display and for joins).
    /// The work a case split over the stored disjunctions may take: their atoms, each
    /// disjunction's counted once per alternative (a question the other facts leave
    /// open is asked again under every alternative). It grows with every check passed
    /// on extents of unknown size, while the other stored facts answer from a cached
    /// interval per atom; a caller that budgets its own work by statements can weigh
    /// each statement by it.
    pub fn split_weight(&self) -> usize {
        self.inner
            .disjunctions
            .iter()
            .map(|alts| {
                let atoms: usize = alts
                    .iter()
                    .flat_map(|c| c.dims())
                    .map(|d| d.leaves().len())
                    .sum();
                atoms * alts.len()
            })
            .sum()
    }

    pub fn as_constraints(&self) -> Vec<Constraint> {
        let i = &self.inner;
        let mut out: Vec<Constraint> = i
            .subst
            .iter()
            .map(|(k, v)| Constraint::Eq(Dim::atom(k.clone()), v.clone()))
            .collect();
        out.extend(
            i.zeros
                .iter()
                .map(|d| Constraint::Eq(d.clone(), Dim::zero())),
        );
        out.extend(
            i.nonzero
                .iter()
                .map(|d| Constraint::Ne(d.clone(), Dim::zero())),
        );
        out.extend(
            i.nonneg
                .iter()
                .map(|d| Constraint::Le(Dim::zero(), d.clone())),
        );
        out.extend(
            i.disjunctions
                .iter()
                .map(|alts| Constraint::Or(alts.to_vec())),
        );
        if i.contradictory {
            out.push(Constraint::False);
        }
        out
    }

    /// `c` with its extents normalised and every part the facts decide replaced by
    /// `true`/`false`: the residual check still needed at run time.
    pub fn simplify(&self, c: &Constraint) -> Constraint {
        match c {
            Constraint::And(v) => Constraint::and(v.iter().map(|x| self.simplify(x))),
            Constraint::Or(v) => Constraint::or(v.iter().map(|x| self.simplify(x))),
            _ => match self.ask(c) {
                Truth::Proven => Constraint::True,
                Truth::Refuted => Constraint::False,
                Truth::Unknown => c.map_dims(&|d| self.normalize(d)),
            },
        }
    }
}

trait GetOrNone {
    fn get_or_none(&self, d: &Dim) -> Option<Dim>;
}

impl GetOrNone for BTreeMap<Atom, Dim> {
    /// The rewrite of `d` when `d` is exactly a solved atom.
    fn get_or_none(&self, d: &Dim) -> Option<Dim> {
        d.as_atom().and_then(|a| self.get(a)).cloned()
    }
}

/// Chooses the atom to eliminate from `d == 0`: a top-level atom with coefficient ±1,
/// alone in its monomial and mentioned nowhere else in `d`. The greatest such atom is
/// taken so that opaque atoms are solved first and, among symbols, later names are
/// rewritten to earlier ones (`q1 := p2`). Returns the atom and its value.
fn pivot(d: &Dim) -> Option<(Atom, Dim)> {
    if d.is_dyn() {
        return None;
    }
    // The term `c*a` itself is term `i`: `d - c*a` is `d` without it.
    let candidates = d
        .terms()
        .iter()
        .enumerate()
        .filter_map(|(i, (m, c))| match m.atoms() {
            [a] if c.unsigned_abs() == 1 => Some((i, a, *c)),
            _ => None,
        });
    let (i, x, c) = candidates
        .filter(|(i, a, _)| !d.mentions_outside_term(*i, a))
        .max_by(|a, b| a.1.cmp(b.1))?;
    // c*x + rest = 0  ⇒  x = -rest/c = -c*rest (c = ±1).
    let rest = d.without_term(i);
    Some((x.clone(), rest.mul(&Dim::known(-c))))
}

/// `d == k*z` for some nonzero integer k.
fn is_multiple(d: &Dim, z: &Dim) -> bool {
    let (Some((_, dc)), Some((_, zc))) = (d.terms().last(), z.terms().last()) else {
        return false;
    };
    if *zc == 0 || dc % zc != 0 {
        return false;
    }
    z.mul(&Dim::known(dc / zc)) == *d
}

/// Adds `d` unless it is already known or the list is full (see [`MAX_STORED`]); a
/// fact dropped for want of room is recorded, as the constraint `fact(d, 0)`.
fn push_bounded(
    list: &mut Vec<Dim>,
    dropped: &mut Dropped,
    d: Dim,
    fact: impl Fn(Dim, Dim) -> Constraint,
) {
    if list.contains(&d) {
        return;
    }
    if list.len() < MAX_STORED {
        list.push(d);
    } else {
        dropped.record(&fact(d, Dim::zero()));
    }
}

/// `c` with each `Dyn` extent replaced by a symbol of its own (numbered from `next`),
/// so a question about `Dyn` is a question about fresh unknowns no fact mentions.
pub(crate) fn dyn_occurrences(c: &Constraint, next: &Cell<u32>) -> Constraint {
    c.map_dims(&|d| {
        if d.is_dyn() {
            let k = next.get();
            next.set(k + 1);
            Dim::extent_of(&Symbol::dyn_occurrence(k))
        } else {
            d.clone()
        }
    })
}

/// Whether `c` contains a part no reasoning applies to.
fn has_opaque(c: &Constraint) -> bool {
    match c {
        Constraint::Opaque(_) => true,
        Constraint::And(v) | Constraint::Or(v) => v.iter().any(has_opaque),
        _ => c.any_dim(&mut |d| d.is_opaque()),
    }
}

/// The top-level atoms of `c`'s extents (for [`shares_atom`]).
fn atoms_of(c: &Constraint) -> Vec<&Atom> {
    c.dims().into_iter().flat_map(|d| d.atoms()).collect()
}

/// Whether `a` and a constraint whose atoms are `mine` (see [`atoms_of`]) mention a
/// common symbol (a disjunction can only decide questions about what it mentions).
fn shares_atom(a: &Constraint, mine: &[&Atom]) -> bool {
    a.any_dim(&mut |d| d.atoms().any(|x| mine.contains(&x)))
}
