//! The migration poset drawn as a Hasse diagram of *skeletons* (spec 004 §2.1 facts
//! 3–5, §6.2 "Lattice UI"): a node says, for each `Dyn` position of `forward`'s
//! parameters (at one rank per whole `Dyn`), whether it is a number or stays `Dyn`; an
//! edge makes one more position a number. A node is *inhabited* when some migration
//! has that skeleton ([`Migration::try_skeleton`]). Verdict nodes are downward closed (the
//! gradual guarantee), so a node above an empty one is empty without asking, and below
//! an inhabited one inhabited. The *frontier* is the maximal inhabited nodes.
//! (Mig(P) itself has no top in general and is infinite: the UI never calls it a
//! lattice of migrations; this is the finite poset of their shapes.)
//!
//! Up to [`FULL`] positions every node is decided; past that only the greedy chain
//! (one position at a time, kept when the node stays inhabited: fact 5) and the top,
//! so a ResNet-size model stays a handful of solver runs.

use crate::migration::{Migration, Verdict, MAX_RANK};
use crate::types::TensorType;

/// Positions up to which every skeleton is decided (2^6 = 64 nodes).
pub const FULL: usize = 6;

/// One skeleton: the set of positions that are numbers (a bit per position), or the
/// parameters as annotated (below the all-`Dyn` skeleton of the chosen ranks).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub statics: Option<u64>,
    pub state: Verdict,
    /// Decided by the solver (`true`), or by downward closure from a decided node.
    pub solved: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Poset {
    /// The `Dyn` positions: (parameter index, dimension index).
    pub positions: Vec<(usize, usize)>,
    /// The rank each whole-`Dyn` parameter takes in the skeletons.
    pub ranks: Vec<Option<usize>>,
    pub nodes: Vec<Node>,
    /// Cover edges, lower node to upper node (indices into `nodes`).
    pub covers: Vec<(usize, usize)>,
    /// Nodes in the order the solver decided them.
    pub order: Vec<usize>,
    /// Whether every skeleton is here (else the greedy chain and the top).
    pub complete: bool,
}

/// Decides one skeleton: `mask` says which of `positions` are numbers.
fn solve(
    m: &Migration,
    ranks: &[Option<usize>],
    positions: &[(usize, usize)],
    mask: u64,
) -> Verdict {
    let is_static = |i: usize, j: usize| {
        positions
            .iter()
            .position(|&p| p == (i, j))
            .is_some_and(|k| mask & (1 << k) != 0)
    };
    m.try_skeleton(ranks, &is_static)
}

/// The skeleton poset of a well-typed program, at the ranks of `witness` (Q1's or
/// Q2's) or else the highest ranks whose all-`Dyn` skeleton is inhabited.
pub fn poset(m: &Migration, witness: Option<&[(String, TensorType)]>) -> Poset {
    let inputs = m.subject.declarations();
    let ranks = choose_ranks(m, witness);
    let positions: Vec<(usize, usize)> = inputs
        .iter()
        .zip(&ranks)
        .enumerate()
        .flat_map(|(i, ((_, t), r))| {
            let dims: Vec<bool> = match (t.dims(), r) {
                (Some(ds), _) => ds.iter().map(|d| d.is_dyn()).collect(),
                (None, Some(r)) => vec![true; *r],
                (None, None) => Vec::new(),
            };
            dims.into_iter()
                .enumerate()
                .filter(|(_, dyn_)| *dyn_)
                .map(move |(j, _)| (i, j))
                .collect::<Vec<_>>()
        })
        .take(63)
        .collect();
    let mut p = Poset {
        positions,
        ranks,
        nodes: Vec::new(),
        covers: Vec::new(),
        order: Vec::new(),
        complete: false,
    };
    let bottom = annotated_bottom(&mut p, inputs);
    if p.positions.len() <= FULL {
        full(m, &mut p, bottom);
    } else {
        chain(m, &mut p, bottom);
    }
    p
}

/// The ranks the skeletons take: the witness's, else for each whole `Dyn` the highest
/// rank whose all-`Dyn` skeleton (with the others as annotated) is inhabited.
fn choose_ranks(m: &Migration, witness: Option<&[(String, TensorType)]>) -> Vec<Option<usize>> {
    let inputs = m.subject.declarations();
    let mut ranks: Vec<Option<usize>> = vec![None; inputs.len()];
    for (i, (_, t)) in inputs.iter().enumerate() {
        if t.dims().is_some() {
            continue;
        }
        if let Some(w) = witness {
            ranks[i] = w.get(i).and_then(|(_, t)| t.rank());
            continue;
        }
        for r in (1..=MAX_RANK).rev() {
            let mut trial = ranks.clone();
            trial[i] = Some(r);
            if let Verdict::Sat(_) = solve(m, &trial, &[], 0) {
                ranks[i] = Some(r);
                break;
            }
        }
    }
    ranks
}

/// A node for the parameters as annotated when a whole `Dyn` was given a rank: the
/// program itself, inhabited as it is well typed.
fn annotated_bottom(p: &mut Poset, inputs: &[(String, TensorType)]) -> Option<usize> {
    let refined = inputs
        .iter()
        .zip(&p.ranks)
        .any(|((_, t), r)| t.dims().is_none() && r.is_some());
    refined.then(|| {
        p.nodes.push(Node {
            statics: None,
            state: Verdict::Sat(inputs.to_vec()),
            solved: false,
        });
        0
    })
}

fn push(p: &mut Poset, mask: u64, state: Verdict, solved: bool) -> usize {
    p.nodes.push(Node {
        statics: Some(mask),
        state,
        solved,
    });
    let k = p.nodes.len() - 1;
    if solved {
        p.order.push(k);
    }
    k
}

/// Every skeleton, in order of how many positions are numbers; a node above an empty
/// node is empty without a solver run, and when the top is inhabited, every node is.
fn full(mig: &Migration, p: &mut Poset, bottom: Option<usize>) {
    let n = p.positions.len();
    let top_mask = (1u64 << n) - 1;
    let ranks = p.ranks.clone();
    let positions = p.positions.clone();
    let top = solve(mig, &ranks, &positions, top_mask);
    let all_inhabited = matches!(top, Verdict::Sat(_));
    let mut masks: Vec<u64> = (0..=top_mask).collect();
    masks.sort_by_key(|m| (m.count_ones(), *m));
    let mut index = std::collections::HashMap::new();
    for m in masks {
        let below: Vec<usize> = (0..n)
            .filter(|b| m & (1 << b) != 0)
            .filter_map(|b| index.get(&(m & !(1 << b))).copied())
            .collect();
        let (state, solved) = if m == top_mask {
            (top.clone(), true)
        } else if all_inhabited {
            (project(&top, &positions, m), false)
        } else if let Some(&e) = below
            .iter()
            .find(|&&k| matches!(p.nodes[k].state, Verdict::Unsat(_)))
        {
            (p.nodes[e].state.clone(), false)
        } else {
            (solve(mig, &ranks, &positions, m), true)
        };
        let k = push(p, m, state, solved);
        index.insert(m, k);
        p.covers.extend(below.into_iter().map(|b| (b, k)));
        if m == 0 {
            p.covers.extend(bottom.map(|b| (b, k)));
        }
    }
    // The solver's order: bottom-up, the top (asked first) last unless it decided all.
    if !all_inhabited {
        p.order.retain(|&k| p.nodes[k].statics != Some(top_mask));
        if let Some(&k) = index.get(&top_mask) {
            p.order.push(k);
        }
    }
    p.complete = true;
}

/// An inhabited node's migration with the positions not in `mask` back to `Dyn`
/// (less precise, so still a migration: the gradual guarantee).
fn project(top: &Verdict, positions: &[(usize, usize)], mask: u64) -> Verdict {
    let Verdict::Sat(w) = top else {
        return top.clone();
    };
    let mut w = w.clone();
    for (k, &(i, j)) in positions.iter().enumerate() {
        if mask & (1 << k) == 0 {
            if let Some((_, TensorType::Tensor(ds))) = w.get_mut(i) {
                if let Some(d) = ds.get_mut(j) {
                    *d = crate::types::Dim::Dyn;
                }
            }
        }
    }
    Verdict::Sat(w)
}

/// Fact 5's greedy pass: from the all-`Dyn` skeleton, make each position a number in
/// turn and keep it while the skeleton stays inhabited; the top is asked too.
fn chain(mig: &Migration, p: &mut Poset, bottom: Option<usize>) {
    let n = p.positions.len();
    let (ranks, positions) = (p.ranks.clone(), p.positions.clone());
    let state = solve(mig, &ranks, &positions, 0);
    let mut at = push(p, 0, state, true);
    p.covers.extend(bottom.map(|b| (b, at)));
    let mut mask = 0u64;
    for b in 0..n {
        let m = mask | (1 << b);
        let state = solve(mig, &ranks, &positions, m);
        let keep = matches!(state, Verdict::Sat(_));
        let k = push(p, m, state, true);
        p.covers.push((at, k));
        if keep {
            mask = m;
            at = k;
        }
    }
    let top_mask = (1u64 << n) - 1;
    if mask != top_mask {
        let state = solve(mig, &ranks, &positions, top_mask);
        let k = push(p, top_mask, state, true);
        p.covers.push((at, k));
    }
}
