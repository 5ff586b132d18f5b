//! Split(S) of §7.2, shared by both solvers: set the uniform members aside, group the
//! others by (context, predecessors' blocks), then re-integrate the uniform members by
//! propagation (decision D6): a set-aside vertex reached, through set-aside vertices,
//! from one group only joins it; one reached from several goes into one extra set L.
//!
//! The propagation is what makes the result the minimum: checking a set-aside vertex
//! against its direct predecessors only fails on chains of calls, and a least fixed
//! point fails on loop heads, which sit on cycles of set-aside vertices (the spec, §3.3).

use crate::graph::{ExtentGraph, VertexId};
use std::collections::HashMap;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    Group(usize),
    Multi,
}

/// The pieces of block `id` (its `members`, ascending) under the partition `block_of`:
/// one piece when the block is stable. Pieces are ascending, in the order of their
/// first non-uniform member, L last. Costs O(|B| + arcs into and out of B).
pub(crate) fn split(
    graph: &ExtentGraph,
    succs: &[Vec<VertexId>],
    block_of: &[usize],
    id: usize,
    members: &[VertexId],
) -> Vec<Vec<VertexId>> {
    let in_block = |p: &VertexId| block_of[*p] == id;
    let uniform = |x: VertexId| graph.vertices[x].preds.iter().all(in_block);
    let (set_aside, rest): (Vec<VertexId>, Vec<VertexId>) =
        members.iter().partition(|&&x| uniform(x));
    if rest.is_empty() {
        return vec![members.to_vec()];
    }
    let (mut groups, group_of) = group(graph, block_of, &rest);
    let marks = reintegrate(succs, &set_aside, &rest, &group_of);
    let mut extra = Vec::new();
    for &u in &set_aside {
        match marks.get(&u) {
            Some(Mark::Group(g)) => groups[*g].push(u),
            // Reached from several groups: it has just become non-uniform. (Not
            // reached at all cannot happen in a constructed graph: every vertex has a
            // path from ⊥, which enters the block through a non-uniform member.)
            _ => extra.push(u),
        }
    }
    if !extra.is_empty() {
        groups.push(extra);
    }
    for g in &mut groups {
        g.sort_unstable();
    }
    groups
}

/// The non-uniform members grouped by (context, blocks of S_1, S_2, …), and each one's
/// group, parallel to `rest`.
fn group(
    graph: &ExtentGraph,
    block_of: &[usize],
    rest: &[VertexId],
) -> (Vec<Vec<VertexId>>, Vec<usize>) {
    let mut index: HashMap<(u32, Vec<usize>), usize> = HashMap::new();
    let mut groups: Vec<Vec<VertexId>> = Vec::new();
    let mut group_of = Vec::with_capacity(rest.len());
    for &x in rest {
        let v = &graph.vertices[x];
        let key = (v.context, v.preds.iter().map(|&p| block_of[p]).collect());
        let next = groups.len();
        let g = *index.entry(key).or_insert(next);
        if g == next {
            groups.push(Vec::new());
        }
        groups[g].push(x);
        group_of.push(g);
    }
    (groups, group_of)
}

/// Propagates group membership forward from the non-uniform members through the
/// set-aside ones; each mark changes at most twice (none → group → multi).
fn reintegrate(
    succs: &[Vec<VertexId>],
    set_aside: &[VertexId],
    rest: &[VertexId],
    group_of: &[usize],
) -> HashMap<VertexId, Mark> {
    let mut marks: HashMap<VertexId, Option<Mark>> = set_aside.iter().map(|&u| (u, None)).collect();
    let mut work: Vec<(VertexId, Mark)> = rest
        .iter()
        .zip(group_of)
        .map(|(&x, &g)| (x, Mark::Group(g)))
        .collect();
    while let Some((y, mark)) = work.pop() {
        for &u in &succs[y] {
            let Some(slot) = marks.get_mut(&u) else {
                continue;
            };
            let next = match *slot {
                None => mark,
                Some(old) if old == mark || old == Mark::Multi => continue,
                Some(_) => Mark::Multi,
            };
            *slot = Some(next);
            work.push((u, next));
        }
    }
    marks
        .into_iter()
        .filter_map(|(u, m)| m.map(|m| (u, m)))
        .collect()
}
