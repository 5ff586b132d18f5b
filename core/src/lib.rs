//! Shape Explorer's analysis core. Pure: text in, serializable [`Report`] out — no I/O,
//! no global state, no web APIs — so it builds for native (the `shapex` CLI, tests,
//! benchmarks) and for wasm32 (the app) alike.

pub mod driver;
pub mod report;
pub mod span;
pub mod syntax;

pub use driver::analyze;
pub use report::{Diagnostic, Lang, Mode, Options, Report, Severity};
pub use span::{LineIndex, Span};
