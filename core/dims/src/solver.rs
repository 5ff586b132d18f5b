//! [`solve`]: is there a value for every symbol that satisfies a set of constraints?
//!
//! The answer is a [`Solution`]: `Sat` with a model (every constraint is evaluated under
//! it before it is returned, so a model is never wrong), `Unsat` with a conflicting
//! subset of the input (proven unsatisfiable, then shrunk by deleting what the proof
//! does not need), or `Unknown` with the reason. It is bounded and honest, not
//! complete: the facts prover ([`Facts`]) propagates equalities, bounds and
//! refutations, and a depth-first search tries small values for the symbols left
//! free. `Unsat` is claimed only when the facts contradict each other, refute one of
//! the constraints, or the search enumerated every value the facts allow (finite
//! intervals only) without finding a model.
//!
//! Symbols range over the integers; extent symbols (`Atom::Sym`) over the nonnegative
//! ones. Each `Dyn` extent is an unknown of its own (as in `Facts::ask`), solved for
//! like a symbol but left out of the model.

use super::constraint::Constraint;
use super::dim::{Atom, Dim};
use super::facts::{dyn_occurrences, Facts, Truth, Why};
use super::symbol::{Provenance, Symbol};
use std::cell::Cell;
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
    if constraints.iter().any(opaque) {
        return Solution::Unknown(Why::Opaque);
    }
    // Each Dyn occurrence becomes an unknown of its own.
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
    match search(&work, &all, MAX_NODES) {
        Search::Model(values) => {
            let values = values
                .into_iter()
                .filter(|(s, _)| !matches!(s.provenance(), Provenance::DynOccurrence(_)))
                .collect();
            Solution::Sat(Model { values })
        }
        Search::Exhausted => Solution::Unsat(shrink(&work, all)),
        Search::Incomplete => Solution::Unknown(Why::Budget),
    }
}

fn opaque(c: &Constraint) -> bool {
    match c {
        Constraint::Opaque(_) => true,
        Constraint::And(v) | Constraint::Or(v) => v.iter().any(opaque),
        _ => c.dims().iter().any(|d| d.is_opaque()),
    }
}

/// Deletion-based minimisation: drop each constraint in turn while what is left is
/// still proven unsatisfiable (by the same sound means, on a smaller budget).
fn shrink(work: &[Constraint], mut keep: Vec<usize>) -> Vec<usize> {
    let mut i = 0;
    while i < keep.len() {
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
    vars.sort();
    anchors.sort_by_key(|v| (v.unsigned_abs(), *v < 0));
    let domain = vars
        .iter()
        .filter(|a| matches!(a, Atom::Sym(_)))
        .map(|a| Constraint::Le(Dim::zero(), Dim::atom(a.clone())))
        .collect();
    let s = Searcher {
        constraints,
        domain,
        vars,
        anchors,
        nodes: Cell::new(max_nodes),
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
        let refuted = |c: &Constraint| facts.ask(c) == Truth::Refuted;
        if self
            .constraints
            .iter()
            .copied()
            .chain(&self.domain)
            .any(refuted)
        {
            return None;
        }
        let mut free = None;
        let mut values = BTreeMap::new();
        for a in &self.vars {
            let d = Dim::atom(a.clone());
            let n = facts.normalize(&d);
            match n.as_known() {
                Some(v) => {
                    let s = a.symbol().cloned();
                    values.extend(s.map(|s| (s, v)));
                }
                // Prefer a symbol the facts leave free over one they define by others.
                None if n == d => {
                    free = Some(a);
                    break;
                }
                None => {
                    free = free.or(Some(a));
                }
            }
        }
        let Some(x) = free else {
            return self.check(values);
        };
        let (lo, hi) = facts.bounds(&Dim::atom(x.clone()));
        let lo = match x {
            Atom::Sym(_) => Some(lo.map_or(0, |l| l.max(0))),
            _ => lo,
        };
        let candidates: Vec<i64> = match (lo, hi) {
            (Some(l), Some(h)) if h < l => return None,
            (Some(l), Some(h)) if h.checked_sub(l).is_some_and(|w| w < MAX_DOMAIN) => {
                (l..=h).collect()
            }
            _ => {
                self.complete.set(false);
                let within = |v: &i64| lo.is_none_or(|l| *v >= l) && hi.is_none_or(|h| *v <= h);
                let near_bounds = [lo, hi].into_iter().flatten().flat_map(|b| {
                    (0..8).flat_map(move |k| [b.saturating_add(k), b.saturating_sub(k)])
                });
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
        };
        let xd = Dim::atom(x.clone());
        for v in candidates {
            let next = facts.with(&Constraint::Eq(xd.clone(), Dim::known(v)));
            if let Some(m) = self.dfs(&next) {
                return Some(m);
            }
            if self.nodes.get() == 0 {
                break;
            }
        }
        None
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
