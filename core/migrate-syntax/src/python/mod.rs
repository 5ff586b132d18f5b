//! The Python front end: PyTorch model code as people write it (issue #21 item 1).
//! `lines` finds logical lines and indentation, `parser` groups blocks and parses each
//! line with the grammar `py.pest` into the spanned AST of `ast`.

pub mod ast;
mod lines;
mod parser;
#[cfg(test)]
mod tests;

pub use parser::{parse, ParsedModule, MAX_BLOCKS, MAX_DEPTH};
