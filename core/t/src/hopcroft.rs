//! A Hopcroft-style solver, beyond the paper (its authors left an O(s log s) method as
//! an open problem). It computes the same partition as [`crate::refine`] with a
//! worklist instead of whole passes:
//!
//! - a block is split again only when its own members changed or when a predecessor of
//!   one of its members moved to another block (nothing else enters `split`);
//! - when a block splits, its largest piece keeps the block's id and only the others
//!   move, so only their successors' blocks are queued, and a vertex moves only into a
//!   piece at most half its old block's size most of the time (Hopcroft's "process the
//!   smaller half").
//!
//! Each re-split of a queued block costs O(|B| + its arcs), so the bound proved for
//! Hopcroft's algorithm is not proved here; `tests` measures it.

use crate::graph::{ExtentGraph, VertexId};
use crate::partition::Partition;
use crate::refine::{block_assignment, initial_blocks};
use crate::split::split;

pub fn refine_hopcroft(graph: &ExtentGraph) -> Partition {
    let succs = graph.successors();
    let mut blocks = initial_blocks(graph);
    let mut block_of = block_assignment(graph.len(), &blocks);
    let mut queued = vec![true; blocks.len()];
    let mut queue: Vec<usize> = (0..blocks.len()).collect();
    while let Some(id) = queue.pop() {
        queued[id] = false;
        let mut pieces = split(graph, &succs, &block_of, id, &blocks[id]);
        if pieces.len() == 1 {
            continue;
        }
        let keep = largest(&pieces);
        blocks[id] = std::mem::take(&mut pieces[keep]);
        let mut moved: Vec<VertexId> = Vec::new();
        for (j, piece) in pieces.into_iter().enumerate() {
            if j == keep {
                continue;
            }
            let new = blocks.len();
            for &v in &piece {
                block_of[v] = new;
            }
            moved.extend(&piece);
            blocks.push(piece);
            queued.push(false);
            enqueue(&mut queue, &mut queued, new);
        }
        enqueue(&mut queue, &mut queued, id);
        for v in moved {
            for &s in &succs[v] {
                enqueue(&mut queue, &mut queued, block_of[s]);
            }
        }
    }
    Partition::from_blocks(&block_of)
}

fn largest(pieces: &[Vec<VertexId>]) -> usize {
    let mut best = 0;
    for (j, piece) in pieces.iter().enumerate() {
        if piece.len() > pieces[best].len() {
            best = j;
        }
    }
    best
}

fn enqueue(queue: &mut Vec<usize>, queued: &mut [bool], id: usize) {
    if !queued[id] {
        queued[id] = true;
        queue.push(id);
    }
}
