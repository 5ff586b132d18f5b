//! A solution τ of the extent graph as a partition of its vertices into extent classes,
//! numbered canonically (by each class's smallest vertex, so ⊥'s class is 0): two
//! solvers, or two runs, give equal values exactly when they give the same partition.

use crate::graph::{ExtentGraph, VertexId, BOTTOM};
use serde::{Deserialize, Serialize};

/// One abstract extent: a class of the solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ExtentClass(pub u32);

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Partition {
    /// The class of each vertex.
    pub class: Vec<ExtentClass>,
}

impl Partition {
    /// The canonical partition of a block assignment (any block ids).
    pub fn from_blocks(block_of: &[usize]) -> Self {
        // The solvers' ids are below the vertex count: number them through an array.
        let blocks = block_of
            .iter()
            .map(|&b| b.saturating_add(1))
            .max()
            .unwrap_or(0);
        if blocks <= 2 * block_of.len() + 16 {
            return Self::numbered(block_of.iter().copied(), blocks);
        }
        let mut number = std::collections::HashMap::new();
        let class = block_of
            .iter()
            .map(|b| {
                let next = number.len() as u32;
                ExtentClass(*number.entry(*b).or_insert(next))
            })
            .collect();
        Partition { class }
    }

    /// The canonical partition of a block assignment whose ids are below `blocks`.
    pub(crate) fn from_dense_blocks(block_of: &[u32], blocks: usize) -> Self {
        Self::numbered(block_of.iter().map(|&b| b as usize), blocks)
    }

    /// Numbers the blocks (ids below `blocks`) in order of first appearance: one array
    /// lookup per vertex, no hashing.
    fn numbered(block_of: impl Iterator<Item = usize>, blocks: usize) -> Self {
        let mut number = vec![u32::MAX; blocks];
        let mut next = 0;
        let class = block_of
            .map(|b| {
                if number[b] == u32::MAX {
                    number[b] = next;
                    next += 1;
                }
                ExtentClass(number[b])
            })
            .collect();
        Partition { class }
    }

    pub fn of(&self, v: VertexId) -> ExtentClass {
        self.class[v]
    }

    /// The number of classes (abstract extents, ⊥'s included).
    pub fn count(&self) -> usize {
        self.class
            .iter()
            .map(|c| c.0 as usize + 1)
            .max()
            .unwrap_or(0)
    }

    /// uniform(x): every predecessor of x has x's class (no generalisation at x).
    pub fn uniform(&self, graph: &ExtentGraph, v: VertexId) -> bool {
        graph.vertices[v]
            .preds
            .iter()
            .all(|&p| self.class[p] == self.class[v])
    }

    /// Whether this is a solution (conditions C1 and C2 of §7.2). Quadratic: for tests
    /// and small graphs.
    pub fn is_solution(&self, graph: &ExtentGraph) -> bool {
        let n = graph.len();
        let c2 = (0..n).all(|x| x == BOTTOM || self.class[x] != self.class[BOTTOM]);
        c2 && (0..n).all(|x| ((x + 1)..n).all(|y| self.c1(graph, x, y)))
    }

    fn c1(&self, graph: &ExtentGraph, x: VertexId, y: VertexId) -> bool {
        if self.class[x] != self.class[y] || self.uniform(graph, x) || self.uniform(graph, y) {
            return true;
        }
        let (a, b) = (&graph.vertices[x], &graph.vertices[y]);
        a.context == b.context
            && a.preds.len() == b.preds.len()
            && a.preds
                .iter()
                .zip(&b.preds)
                .all(|(&p, &q)| self.class[p] == self.class[q])
    }
}
