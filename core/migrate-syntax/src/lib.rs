//! The front end of the gradual tensor calculus of Migeed, Reed, Ansel & Palsberg,
//! "Generalizing Shape Analysis with Gradual Types" (ECOOP 2024): a pest grammar for
//! Figure 1's core calculus (`core.pest`), the spanned [`ast`], recovery at the next
//! declaration, and the display tokens ([`tokens`]); and PyTorch model code as people
//! write it ([`python`]). No analysis here.

pub mod ast;
mod highlight;
mod parser;
pub mod python;
#[cfg(test)]
mod tests;
pub mod user;

pub use highlight::tokens;
pub use parser::{parse, MAX_NESTING};

use shapex_text::Diagnostic;

/// The result of parsing one file: the program (always present; statements that
/// failed to parse are [`ast::Item::Error`]) and the syntax diagnostics (`syntax.*`).
#[derive(Clone, Debug)]
pub struct Parsed {
    pub program: ast::Program,
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    /// No syntax error: every statement parsed and the program has the shape
    /// `decl* return e`.
    pub fn ok(&self) -> bool {
        self.diagnostics
            .iter()
            .all(|d| d.severity != shapex_text::Severity::Error)
    }
}
