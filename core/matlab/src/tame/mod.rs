//! The Tame IR (Dubrau 2012, ch. 4): three-address statements lowered from the MATLAB
//! AST, each mapped back to a source span, and pretty-printed back to MATLAB.

pub mod clearing;
pub mod ir;
pub mod link;
mod lower;
mod names;
mod print;

pub use clearing::{clearing, Clearing};
pub use ir::*;
pub use lower::WILD;
pub use lower::{lower, lower_with_prefix, Lowered, TEMP_PREFIX};
pub use print::{literal, print_program, print_with_origins};

#[cfg(test)]
mod tests;
