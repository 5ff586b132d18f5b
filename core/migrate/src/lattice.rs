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
//! so a ResNet-size model stays a handful of solver runs. The reader then expands the
//! nodes they ask about (lazy expansion, issue #21 item 6): an expanded node brings
//! its upper and lower covers, decided by downward closure where it applies.

use crate::migration::{Migration, Verdict, MAX_RANK};
use crate::types::TensorType;
use std::collections::HashMap;

/// Positions up to which every skeleton is decided (2^6 = 64 nodes).
pub const FULL: usize = 6;

/// At most this many expanded nodes are honoured: each brings up to 63 nodes, and a
/// reader expands by hand, so a longer list (a crafted link) only costs drawing time.
pub const MAX_EXPANDED: usize = 64;

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

impl Poset {
    /// Each shown skeleton's node.
    fn index(&self) -> HashMap<u64, usize> {
        let shown = self.nodes.iter().enumerate();
        shown.filter_map(|(k, n)| Some((n.statics?, k))).collect()
    }

    /// The skeletons one position away from `mask`: its upper covers (one more
    /// position a number) and lower covers (one fewer).
    fn neighbours(&self, mask: u64) -> impl Iterator<Item = u64> {
        (0..self.positions.len()).map(move |b| mask ^ (1 << b))
    }

    /// For each node, whether it has a neighbour not shown (the reader may expand it).
    pub fn expandable(&self) -> Vec<bool> {
        let index = self.index();
        let hidden = |mask: u64| self.neighbours(mask).any(|m| !index.contains_key(&m));
        self.nodes
            .iter()
            .map(|n| n.statics.is_some_and(hidden))
            .collect()
    }
}

/// The expanded skeletons of the `expand` setting: hexadecimal masks (a vertex id's
/// `m` may prefix them) separated by commas or spaces; a malformed entry is left out.
pub fn parse_expanded(setting: &str) -> Vec<u64> {
    let mut masks: Vec<u64> = setting
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter_map(|e| {
            let hex = e.strip_prefix('m').unwrap_or(e);
            u64::from_str_radix(hex, 16).ok()
        })
        .collect();
    masks.sort_unstable();
    masks.dedup();
    masks.truncate(MAX_EXPANDED);
    masks
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
/// Q2's) or else the highest ranks whose all-`Dyn` skeleton is inhabited. Past
/// [`FULL`] positions, each node of `expanded` (masks) that is shown brings its
/// covers; a mask of no shown node (stale: the program changed) is ignored.
pub fn poset(m: &Migration, witness: Option<&[(String, TensorType)]>, expanded: &[u64]) -> Poset {
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
        expand(m, &mut p, expanded);
        reduce(&mut p);
    }
    p
}

/// Keeps the drawing a Hasse diagram of the nodes shown: the chain's edge to the top
/// may span several positions, and once expansion shows nodes between its ends it is
/// no longer a cover; it is replaced by edges to its upper end from the highest of
/// them (the expansion already joins them to the rest).
fn reduce(p: &mut Poset) {
    let mask = |k: usize| p.nodes[k].statics;
    let below = |a: u64, b: u64| a != b && a & !b == 0;
    let mut covers: Vec<(usize, usize)> = Vec::new();
    for &(lo, hi) in &p.covers {
        let (Some(a), Some(b)) = (mask(lo), mask(hi)) else {
            covers.push((lo, hi));
            continue;
        };
        let between: Vec<(usize, u64)> = (0..p.nodes.len())
            .filter_map(|k| Some((k, mask(k)?)))
            .filter(|&(_, m)| below(a, m) && below(m, b))
            .collect();
        if between.is_empty() {
            covers.push((lo, hi));
        }
        for &(k, m) in &between {
            if !between.iter().any(|&(_, n)| below(m, n)) {
                covers.push((k, hi));
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    covers.retain(|e| seen.insert(*e));
    p.covers = covers;
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
    let mut index = HashMap::new();
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

/// Lazy expansion: every expanded node shown brings its neighbours. Nodes are
/// expanded in rounds until none of the rest is shown, so a node shown only by another
/// expansion is expanded too, and the result depends on the set, not its order.
fn expand(mig: &Migration, p: &mut Poset, expanded: &[u64]) {
    let mut index = p.index();
    let mut pending: Vec<u64> = expanded.to_vec();
    loop {
        let (now, later): (Vec<u64>, Vec<u64>) =
            pending.into_iter().partition(|m| index.contains_key(m));
        if now.is_empty() {
            return;
        }
        for mask in now {
            let missing: Vec<u64> = p.neighbours(mask).collect();
            for m in missing {
                if !index.contains_key(&m) {
                    let k = add(mig, p, &index, m);
                    index.insert(m, k);
                }
            }
        }
        pending = later;
    }
}

/// Adds skeleton `mask` with cover edges to every shown node one position away.
fn add(mig: &Migration, p: &mut Poset, index: &HashMap<u64, usize>, mask: u64) -> usize {
    let (state, solved) = match closure(p, mask) {
        Some(state) => (state, false),
        None => (solve(mig, &p.ranks, &p.positions, mask), true),
    };
    let k = push(p, mask, state, solved);
    let shown: Vec<(u64, usize)> = p
        .neighbours(mask)
        .filter_map(|m| index.get(&m).map(|&j| (m, j)))
        .collect();
    for (m, j) in shown {
        p.covers.push(if m < mask { (j, k) } else { (k, j) });
    }
    k
}

/// A skeleton's verdict by downward closure from the shown nodes, if it follows: above
/// an empty node, empty; below an inhabited node, inhabited with that node's migration
/// projected to `mask`. Unknown nodes decide nothing.
fn closure(p: &Poset, mask: u64) -> Option<Verdict> {
    let subset = |a: u64, b: u64| a & !b == 0;
    let below_empty = p.nodes.iter().find(|n| {
        matches!(n.state, Verdict::Unsat(_)) && n.statics.is_some_and(|s| subset(s, mask))
    });
    if let Some(e) = below_empty {
        return Some(e.state.clone());
    }
    let above_inhabited = p
        .nodes
        .iter()
        .find(|n| matches!(n.state, Verdict::Sat(_)) && n.statics.is_some_and(|s| subset(mask, s)));
    above_inhabited.map(|n| project(&n.state, &p.positions, mask))
}

#[cfg(test)]
mod tests;
