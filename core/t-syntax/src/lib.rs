//! The front end of Derby & Zorn's Language T ("A Type System for Languages with
//! Dynamic Arrays", 1998): a pest grammar (`t.pest`), the spanned [`ast`], recovery at
//! the next statement, and the builtin prelude (`prelude.t`). No analysis here.

pub mod ast;
mod parser;
mod prelude;
#[cfg(test)]
mod tests;

pub use parser::parse;
pub use prelude::{prelude, Origin, Signatures, PRELUDE};

use shapex_text::Diagnostic;

/// The result of parsing one file: the program (always present; statements that
/// failed to parse are [`ast::StmtKind::Error`]) and the syntax diagnostics.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub program: ast::Program,
    pub diagnostics: Vec<Diagnostic>,
}
