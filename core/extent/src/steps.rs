//! Replay steps as plain data, for a face to show the graph being built statement by
//! statement and then solved pass by pass.

use crate::graph::VertexId;
use crate::partition::Partition;
use serde::{Deserialize, Serialize};
use shapex_text::Span;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Step {
    Construct(ConstructStep),
    Refine(RefineStep),
}

/// One rule of the construction applied: the vertices and arcs it added, and the wires
/// of every array variable after it (variable, one vertex per dimension).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConstructStep {
    pub span: Span,
    /// "entry", "call copy", "if", "loop heads", "loop back arcs", "decl x", "exit".
    pub what: String,
    pub vertices: Vec<VertexId>,
    /// (from, to): from is the to-vertex's predecessor.
    pub arcs: Vec<(VertexId, VertexId)>,
    pub wires: Vec<(String, Vec<VertexId>)>,
}

/// The partition after one pass of the paper's refinement (pass 0 is the initial
/// {⊥}, V − {⊥}).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RefineStep {
    pub pass: usize,
    pub partition: Partition,
}
