//! The size errors the checks find, as data (a face renders them; the analysis also
//! turns them into diagnostics).

use crate::graph::VertexId;
use serde::{Deserialize, Serialize};
use shapex_text::Span;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Site {
    /// A call whose actuals give one of the callee's extents different classes.
    Call { callee: String },
    /// A procedure whose out / in out formals are not guaranteed their extent at exit.
    Exit { procedure: String },
}

/// A checked vertex that is not uniform.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SizeError {
    pub site: Site,
    /// The signature's extent name.
    pub extent: String,
    /// Every input of the vertex (`a dim 2`, `entry S`) with its class's name.
    pub inputs: Vec<(String, String)>,
    pub vertex: VertexId,
    /// The call's span, or the procedure header's.
    pub span: Span,
}

impl SizeError {
    pub fn message(&self) -> String {
        let inputs: Vec<String> = self
            .inputs
            .iter()
            .map(|(what, class)| format!("{what} = {class}"))
            .collect();
        match &self.site {
            Site::Call { callee } => {
                format!("extent {} of {callee}: {}", self.extent, inputs.join(", "))
            }
            Site::Exit { procedure } => format!(
                "extent {} of {procedure} at exit: {}",
                self.extent,
                inputs.join(", ")
            ),
        }
    }
}
