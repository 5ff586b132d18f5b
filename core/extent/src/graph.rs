//! The abstract extent graph (Derby & Zorn §7, the spec's §2): a directed graph whose
//! arcs into a vertex are ordered, each vertex with a context label. A vertex stands
//! for one dimension of one variable at one program point, or for one extent of a
//! signature at a call or at a procedure's entry or exit. Vertex 0 is ⊥.

use serde::{Deserialize, Serialize};
use shapex_text::Span;

/// A vertex's index in [`ExtentGraph::vertices`].
pub type VertexId = usize;

/// The distinguished "undefined" vertex.
pub const BOTTOM: VertexId = 0;

/// A context label c(v): vertices of one label stand for the same program point, so
/// only they are compared by their predecessors' classes (condition C1).
pub type Context = u32;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Vertex {
    pub context: Context,
    /// S_1(v), S_2(v), …: the ordered immediate predecessors (the paper's "ancestors").
    pub preds: Vec<VertexId>,
    pub origin: Origin,
    /// What each predecessor stands for, for the vertices that are checked (calls with
    /// inputs, procedure exits); parallel to `preds` there, empty elsewhere.
    pub inputs: Vec<Input>,
}

/// Why a vertex exists: which rule of the construction made it, and where.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Origin {
    Bottom,
    /// Step 1 of the procedure rule: an extent of an `in`/`in out` formal at entry.
    Entry {
        extent: String,
        span: Span,
    },
    /// Step 4 of the procedure rule: an extent of an `out`/`in out` formal at exit.
    Exit {
        extent: String,
        span: Span,
    },
    /// `decl v[A,B]`: a named extent of this procedure, fed by ⊥ like an entry extent.
    Decl {
        extent: String,
        span: Span,
    },
    /// Step 1 of the call rule: one extent name of the callee's signature.
    Call {
        callee: String,
        extent: String,
        span: Span,
    },
    /// Where an `if`'s branches leave different wires for `var`'s dimension `dim`.
    Merge {
        var: String,
        dim: usize,
        span: Span,
    },
    /// A `while` loop head for `var`'s dimension `dim` (preds: before the loop, after
    /// its body). The loop's output is the head (decision D1).
    LoopHead {
        var: String,
        dim: usize,
        span: Span,
    },
}

impl Origin {
    pub fn span(&self) -> Option<Span> {
        match self {
            Origin::Bottom => None,
            Origin::Entry { span, .. }
            | Origin::Exit { span, .. }
            | Origin::Decl { span, .. }
            | Origin::Call { span, .. }
            | Origin::Merge { span, .. }
            | Origin::LoopHead { span, .. } => Some(*span),
        }
    }

    /// The text a drawing puts in the vertex.
    pub fn label(&self) -> String {
        match self {
            Origin::Bottom => "⊥".to_string(),
            Origin::Entry { extent, .. } => format!("entry {extent}"),
            Origin::Exit { extent, .. } => format!("exit {extent}"),
            Origin::Decl { extent, .. } => format!("decl {extent}"),
            Origin::Call { callee, extent, .. } => format!("{callee} {extent}"),
            Origin::Merge { var, dim, .. } => format!("if {var}.{dim}"),
            Origin::LoopHead { var, dim, .. } => format!("head {var}.{dim}"),
        }
    }
}

/// What a checked vertex's predecessor stands for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Input {
    /// Dimension `dim` (1-based) of the actual or formal `var`.
    Dim { var: String, dim: usize },
    /// The procedure's entry extent of the same name (step 6).
    Entry { extent: String },
}

impl std::fmt::Display for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Input::Dim { var, dim } => write!(f, "{var} dim {dim}"),
            Input::Entry { extent } => write!(f, "entry {extent}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExtentGraph {
    pub vertices: Vec<Vertex>,
    contexts: Context,
}

impl Default for ExtentGraph {
    fn default() -> Self {
        Self::new()
    }
}

impl ExtentGraph {
    /// A graph holding only ⊥.
    pub fn new() -> Self {
        ExtentGraph {
            vertices: vec![Vertex {
                context: 0,
                preds: Vec::new(),
                origin: Origin::Bottom,
                inputs: Vec::new(),
            }],
            contexts: 1,
        }
    }

    /// A brand-new context label.
    pub fn fresh_context(&mut self) -> Context {
        self.contexts += 1;
        self.contexts - 1
    }

    pub fn add(&mut self, context: Context, preds: Vec<VertexId>, origin: Origin) -> VertexId {
        self.vertices.push(Vertex {
            context,
            preds,
            origin,
            inputs: Vec::new(),
        });
        self.vertices.len() - 1
    }

    pub fn len(&self) -> usize {
        self.vertices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }

    /// The number of arcs.
    pub fn arcs(&self) -> usize {
        self.vertices.iter().map(|v| v.preds.len()).sum()
    }

    /// For every vertex, the vertices it is a predecessor of (each once per arc).
    pub fn successors(&self) -> Vec<Vec<VertexId>> {
        let mut succs = vec![Vec::new(); self.vertices.len()];
        for (v, vertex) in self.vertices.iter().enumerate() {
            for &p in &vertex.preds {
                succs[p].push(v);
            }
        }
        succs
    }
}
