//! The standard library of the thesis (§3.3; spec 003 §2.6), written in VEC.

use crate::ast::Program;

/// The prelude's text (`prelude.vec`).
pub const PRELUDE: &str = include_str!("prelude.vec");

/// The prelude parsed (its spans are offsets into [`PRELUDE`]). A program's own
/// definition of one of its names shadows it.
pub fn prelude() -> Program {
    crate::parse(PRELUDE).program
}
