//! The [`Report`]: the only thing the app and the CLI see. Plain serializable data —
//! per-statement results, diagnostics, and one payload per view.

use serde::{Deserialize, Serialize};
pub use shapex_text::{Diagnostic, LineIndex, Range, Severity, Span};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    Matlab,
}

impl Lang {
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::Matlab => "matlab",
        }
    }
}

/// Which MATLAB semantics the shape rules follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// MATLAB R2016b+ / Octave: implicit expansion (broadcasting) for element-wise ops.
    #[default]
    Modern,
    /// Strict MATLAB 5 semantics, as in Joisha et al. 2000.
    Paper,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    pub lang: Lang,
    pub mode: Mode,
}

/// One extent of a shape as shown to users and in the CLI JSON: a known integer or a
/// symbolic expression (`"n"`, `"p1+q1"`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum DimView {
    Known(i64),
    Symbolic(String),
}

/// A shape in the CLI contract: `{"dims": [3, "n"]}`, `{"illegal": true}`, or
/// `{"dims": null}` (unknown rank).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ShapeView {
    Illegal { illegal: bool },
    Dims { dims: Option<Vec<DimView>> },
}

/// Status of a statement's conformance condition θ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckStatus {
    /// θ holds for every input that reaches the statement.
    Proven,
    /// θ depends on unknown extents: a run-time check is needed.
    Runtime,
    /// θ is false: the statement always fails.
    Error,
    /// The statement has no shape condition.
    #[default]
    None,
}

/// A variable defined by a statement, with its shape after the statement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Def {
    pub name: String,
    pub shape: ShapeView,
    /// The shape in the paper's notation, e.g. `<3,n>`.
    #[serde(default)]
    pub display: String,
    /// MATLAB class when known (`double`, `logical`, `char`, `cell`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
}

/// The shape analysis of one statement: what rule applied and under which condition.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StatementReport {
    pub span: Span,
    #[serde(flatten)]
    pub range: Range,
    /// `assign`, `expr`, `if`, `for`, `while`, `function`, `command`, `error`, …
    pub kind: String,
    /// Nesting depth (0 = top level of a script or function body), for the outline.
    pub depth: u32,
    /// A short label for the outline (e.g. the assigned names or the function name).
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub defs: Vec<Def>,
    #[serde(default)]
    pub check: CheckStatus,
    /// The conformance condition θ in the paper's terms, e.g. `p2 == q1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// The rule applied and where it comes from (paper table or "extension").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// No execution reaches this statement (a branch whose condition is known to be
    /// false, code after a definite error or `error(...)`): the views say "not
    /// reached", and the CLI's JSON has `"reachable": false`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nonviable: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub lang: Lang,
    pub mode: Mode,
    pub parse_ok: bool,
    pub diagnostics: Vec<Diagnostic>,
    pub statements: Vec<StatementReport>,
    /// The Tame IR pretty-printed as MATLAB (IR view); empty until lowering runs.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ir: String,
    /// The program with the conformance checks the analysis could not discharge inlined
    /// as `▶` lines, after redundant ones are removed (the paper's Figures 4–6).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub checks: String,
}

impl Report {
    pub fn error_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// Fills every `range` from its `span` and orders diagnostics by position.
    pub fn resolve_positions(&mut self, source: &str) {
        let index = LineIndex::new(source);
        for d in &mut self.diagnostics {
            d.range = Range::of(d.span, &index);
        }
        for s in &mut self.statements {
            s.range = Range::of(s.span, &index);
        }
        self.diagnostics.sort_by_key(|d| (d.span.start, d.severity));
    }
}
