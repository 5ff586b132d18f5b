//! MATLAB (and the Octave dialect) front end: a pest grammar (`matlab.pest`) and the
//! builder that turns its parse tree into the spanned [`ast`].

pub mod ast;
mod blocks;
mod depth;
mod expr;
pub mod highlight;
#[cfg(test)]
mod incremental_tests;
mod lexical;
mod parser;
mod recover;
mod shift;
mod tables;
#[cfg(test)]
mod tests;

pub use parser::{parse, parse_with, ParseMemo};

use shapex_text::Diagnostic;

/// The result of parsing one file: the AST (always present; statements that failed to
/// parse become [`ast::StmtKind::Error`]) and the syntax diagnostics.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub file: ast::File,
    pub diagnostics: Vec<Diagnostic>,
}
