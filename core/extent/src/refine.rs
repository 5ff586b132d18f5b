//! The paper's solver (§7.2): partition refinement from {⊥}, V − {⊥}, every block
//! split in each pass against the previous pass's partition (decision D7), until a
//! whole pass splits nothing. O(|V|) per pass, at most |V| passes.

use crate::graph::{ExtentGraph, BOTTOM};
use crate::partition::Partition;
use crate::split::split;
use crate::steps::RefineStep;

/// The minimum solution, with the partition after each pass (pass 0: the initial one;
/// at most [`MAX_RECORDED`] of them, the last always the final partition).
pub fn refine(graph: &ExtentGraph) -> (Partition, Vec<RefineStep>) {
    let succs = graph.successors();
    let mut blocks = initial_blocks(graph);
    let mut block_of = block_assignment(graph.len(), &blocks);
    let mut passes = vec![RefineStep {
        pass: 0,
        partition: Partition::from_blocks(&block_of),
    }];
    let mut pass = 0;
    loop {
        let mut next = Vec::with_capacity(blocks.len());
        for (id, members) in blocks.iter().enumerate() {
            next.extend(split(graph, &succs, &block_of, id, members));
        }
        let changed = next.len() != blocks.len();
        blocks = next;
        block_of = block_assignment(graph.len(), &blocks);
        if !changed {
            return (Partition::from_blocks(&block_of), passes);
        }
        pass += 1;
        let step = RefineStep {
            pass,
            partition: Partition::from_blocks(&block_of),
        };
        // Replay data stays O(|V|·MAX_RECORDED) however many passes a graph needs:
        // past the cap only the latest pass is kept (its number shows the gap).
        if passes.len() >= MAX_RECORDED {
            passes.pop();
        }
        passes.push(step);
    }
}

/// How many passes' partitions [`refine`] keeps for a replay.
pub const MAX_RECORDED: usize = 256;

/// {⊥} and V − {⊥} (the second left out when empty).
pub(crate) fn initial_blocks(graph: &ExtentGraph) -> Vec<Vec<usize>> {
    let rest: Vec<usize> = (0..graph.len()).filter(|&v| v != BOTTOM).collect();
    let mut blocks = vec![vec![BOTTOM]];
    if !rest.is_empty() {
        blocks.push(rest);
    }
    blocks
}

pub(crate) fn block_assignment(n: usize, blocks: &[Vec<usize>]) -> Vec<usize> {
    let mut block_of = vec![0; n];
    for (id, members) in blocks.iter().enumerate() {
        for &v in members {
            block_of[v] = id;
        }
    }
    block_of
}
