//! The worked examples of `shapex-vec-syntax` (spec 003's, each citing its section),
//! shared by this crate's tests.

use shapex_vec_syntax::ast::Program;
use shapex_vec_syntax::parse;

pub const CH2: &str = include_str!("../../vec-syntax/examples/ch2_size.vec");
pub const CH3: &str = include_str!("../../vec-syntax/examples/ch3_evaluation.vec");
pub const CH4: &str = include_str!("../../vec-syntax/examples/ch4_shapes.vec");
pub const CH4P: &str = include_str!("../../vec-syntax/examples/ch4_shape_programs.vec");
pub const CH5: &str = include_str!("../../vec-syntax/examples/ch5_size_c.vec");
pub const CH6: &str = include_str!("../../vec-syntax/examples/ch6_extensions.vec");

/// `source` parsed, with no syntax diagnostic.
pub fn program(source: &str) -> Program {
    let parsed = parse(source);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    parsed.program
}
