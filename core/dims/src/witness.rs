//! [`witness`]: concrete sizes under which a conformance condition θ fails, and sizes
//! under which it holds, given what is known where it is checked.
//!
//! Both come from [`satisfy`] over the facts' constraints with ¬θ (or θ), so each model
//! satisfies every fact and has been evaluated against the condition before it is
//! returned: a `fails` model makes θ false, a `passes` model makes it true. What θ
//! cannot say over extents (an `Opaque` part) is treated as follows: a conjunct that is
//! opaque is left out when looking for a failure (θ fails whenever one of its other
//! conjuncts does), and a θ with any opaque part has no `passes` model (nothing can
//! show that the opaque part holds). A fact that is opaque is dropped, since no model
//! can be checked against it; so is every fact the condition does not depend on, that
//! is, whose symbols are not connected to θ's through the facts: they constrain other
//! symbols only, which the witness does not name.

use super::constraint::Constraint;
use super::dim::{Atom, Dim};
use super::facts::Facts;
use super::solver::{satisfy, Model};
use super::symbol::{Provenance, Symbol};
use std::collections::BTreeSet;

/// Search nodes each model may cost: a witness is a convenience, and a check whose
/// model is not found quickly has none rather than slowing every analysis.
const NODES: u32 = 100;

/// Sizes under which a condition fails and sizes under which it holds; either is
/// `None` when none was found (it may not exist, or the search gave up).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Witness {
    pub fails: Option<Model>,
    pub passes: Option<Model>,
}

/// A witness of `theta` under `facts` (see the module documentation).
pub fn witness(facts: &Facts, theta: &Constraint) -> Witness {
    let checkable: Vec<Constraint> = theta
        .conjuncts()
        .into_iter()
        .filter(|c| !is_opaque(c))
        .collect();
    let failing = Constraint::and(checkable.iter().cloned());
    let facts: Vec<Constraint> = facts
        .as_constraints()
        .into_iter()
        .filter(|c| !is_opaque(c))
        .collect();
    let relevant = connected(&facts, theta);
    let preferred = preferences(&relevant, theta);
    let model = |goal: Constraint| {
        let mut set = relevant.clone();
        set.push(goal);
        // The plainest sizes first: a repro of empty or 3-D arrays is correct but
        // not what a reader's program meets.
        preferred.iter().find_map(|tier| {
            let mut set = set.clone();
            set.extend(tier.iter().cloned());
            satisfy(&set, NODES)
        })
    };
    let fails = match failing {
        Constraint::True => None,
        c => model(c.not()),
    };
    let passes = match is_opaque(theta) {
        true => None,
        false => model(theta.clone()),
    };
    Witness { fails, passes }
}

/// Extra constraints a model is looked for under, plainest first, the last none:
/// every extent at least 1 and an input's third and later extents 1; then every
/// extent at least 1.
fn preferences(facts: &[Constraint], theta: &Constraint) -> Vec<Vec<Constraint>> {
    let mut atoms: BTreeSet<Atom> = BTreeSet::new();
    for c in facts.iter().chain([theta]) {
        let leaves = c.dims().into_iter().flat_map(|d| d.leaves());
        atoms.extend(leaves.filter(|a| a.symbol().is_some()).cloned());
    }
    let one = Dim::known(1);
    let positive: Vec<Constraint> = atoms
        .iter()
        .map(|a| Constraint::le(&one, &Dim::atom(a.clone())))
        .collect();
    let flat = atoms.iter().filter_map(|a| match a.symbol()?.provenance() {
        Provenance::InputExtent { component, .. } if *component >= 2 => {
            Some(Constraint::eq(&Dim::atom(a.clone()), &one))
        }
        _ => None,
    });
    let plain: Vec<Constraint> = positive.iter().cloned().chain(flat).collect();
    vec![plain, positive, Vec::new()]
}

/// The facts whose symbols are connected to `theta`'s, directly or through other
/// facts.
fn connected(facts: &[Constraint], theta: &Constraint) -> Vec<Constraint> {
    let mut reached: BTreeSet<Symbol> = symbols(theta);
    let mut taken = vec![false; facts.len()];
    let syms: Vec<BTreeSet<Symbol>> = facts.iter().map(symbols).collect();
    loop {
        let mut grew = false;
        for (i, s) in syms.iter().enumerate() {
            if !taken[i] && (s.is_empty() || !s.is_disjoint(&reached)) {
                taken[i] = true;
                grew = true;
                reached.extend(s.iter().cloned());
            }
        }
        if !grew {
            break;
        }
    }
    facts
        .iter()
        .zip(taken)
        .filter(|(_, t)| *t)
        .map(|(c, _)| c.clone())
        .collect()
}

/// The symbols a constraint mentions, inside `max(·,0)` and `floor(·/·)` too.
pub fn symbols(c: &Constraint) -> BTreeSet<Symbol> {
    c.dims()
        .into_iter()
        .flat_map(|d| d.leaves())
        .filter_map(Atom::symbol)
        .cloned()
        .collect()
}

fn is_opaque(c: &Constraint) -> bool {
    match c {
        Constraint::Opaque(_) => true,
        Constraint::And(v) | Constraint::Or(v) => v.iter().any(is_opaque),
        _ => c.dims().iter().any(|d| d.is_opaque()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(n: &str) -> Dim {
        Dim::sym(n)
    }

    fn value(m: &Model, name: &str) -> Option<i64> {
        m.iter().find(|(s, _)| s.name() == name).map(|(_, v)| v)
    }

    /// `a*b` of `<m,p>` and `<q,n>`: θ is `p == q` (the scalar cases left aside).
    #[test]
    fn a_run_time_check_fails_and_passes_and_each_model_is_checked() {
        let theta = Constraint::eq(&s("p"), &s("q"));
        let w = witness(&Facts::new(), &theta);
        let fails = w.fails.expect("p != q has a model");
        let passes = w.passes.expect("p == q has a model");
        assert!(fails.satisfies(&theta.not()));
        assert!(passes.satisfies(&theta));
        assert_ne!(value(&fails, "p"), value(&fails, "q"));
    }

    /// What the facts say is respected, and facts over other symbols are left out.
    #[test]
    fn facts_bind_the_witness_and_unrelated_facts_are_not_named() {
        let theta = Constraint::eq(&s("p"), &Dim::known(3));
        let mut facts = Facts::new();
        facts.assume(&Constraint::le(&Dim::known(5), &s("p")));
        facts.assume(&Constraint::eq(&s("r"), &Dim::known(7)));
        let w = witness(&facts, &theta);
        let fails = w.fails.expect("p ≥ 5 fails p == 3");
        assert!(value(&fails, "p").is_some_and(|p| p >= 5));
        assert_eq!(value(&fails, "r"), None);
        assert_eq!(w.passes, None, "p ≥ 5 never has p == 3");
    }

    /// A definite error (θ refuted) fails under any sizes that reach it; an opaque
    /// part of θ keeps the failure of the others but has no passing sizes.
    #[test]
    fn errors_and_opaque_parts() {
        let w = witness(&Facts::new(), &Constraint::False);
        assert!(w.fails.is_some_and(|m| m.is_empty()));
        assert_eq!(w.passes, None);
        let theta = Constraint::and([
            Constraint::Opaque("the index is in bounds".into()),
            Constraint::eq(&s("p"), &Dim::known(2)),
        ]);
        let w = witness(&Facts::new(), &theta);
        assert!(w.fails.is_some_and(|m| value(&m, "p") != Some(2)));
        assert_eq!(w.passes, None);
        let w = witness(&Facts::new(), &Constraint::Opaque("x".into()));
        assert_eq!(w, Witness::default());
    }
}
