//! Diagnostics: what went wrong (or may go wrong) where, with a stable code, in every
//! language. Spans are byte offsets; [`Range`] is what users see.

use crate::span::{LineIndex, Span};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// A 1-based source range as users see it (columns count characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Range {
    pub line: u32,
    pub col: u32,
    pub end_line: u32,
    pub end_col: u32,
}

impl Range {
    pub fn of(span: Span, index: &LineIndex) -> Range {
        let a = index.line_col(span.start);
        let b = index.line_col(span.end);
        Range {
            line: a.line,
            col: a.col,
            end_line: b.line,
            end_col: b.col,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable code, e.g. `syntax.unbalanced`, `shape.mtimes.inner`.
    pub code: String,
    pub message: String,
    pub span: Span,
    /// Filled from `span` when the report is assembled.
    #[serde(flatten)]
    pub range: Range,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// A suggested edit that resolves the diagnostic (one click in an editor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
}

/// A suggested fix: replace the text at `span` with `replacement` (`*` → `.*`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fix {
    /// What the fix does, in a few words ("use element-wise .*").
    pub title: String,
    pub span: Span,
    /// Filled from `span` when the report is assembled, like a diagnostic's.
    #[serde(flatten)]
    pub range: Range,
    pub replacement: String,
}

impl Fix {
    pub fn new(title: impl Into<String>, span: Span, replacement: impl Into<String>) -> Fix {
        Fix {
            title: title.into(),
            span,
            range: Range::default(),
            replacement: replacement.into(),
        }
    }

    /// `source` with the fix applied (unchanged when the span is not in it).
    pub fn apply(&self, source: &str) -> String {
        match (source.get(..self.span.start), source.get(self.span.end..)) {
            (Some(before), Some(after)) if self.span.start <= self.span.end => {
                format!("{before}{}{after}", self.replacement)
            }
            _ => source.to_string(),
        }
    }
}

impl Diagnostic {
    pub fn new(severity: Severity, code: &str, message: impl Into<String>, span: Span) -> Self {
        Diagnostic {
            severity,
            code: code.to_string(),
            message: message.into(),
            span,
            range: Range::default(),
            help: None,
            fix: None,
        }
    }

    pub fn error(code: &str, message: impl Into<String>, span: Span) -> Self {
        Self::new(Severity::Error, code, message, span)
    }

    pub fn warning(code: &str, message: impl Into<String>, span: Span) -> Self {
        Self::new(Severity::Warning, code, message, span)
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_fix(mut self, fix: Fix) -> Self {
        self.fix = Some(fix);
        self
    }
}
