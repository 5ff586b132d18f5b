//! Shape Explorer's analysis core. Pure: text in, serializable [`Report`] out — no I/O,
//! no global state, no web APIs — so it builds for native (the `shapex` CLI, tests,
//! benchmarks) and for wasm32 (the app) alike.

pub mod builtins;
pub mod checks;
pub mod dims;
pub mod driver;
pub mod flow;
pub mod format;
pub mod report;
pub mod samples;
pub mod shape;
pub mod span;
pub mod syntax;
pub mod tame;
pub mod values;

pub use driver::{analyze, Analyzer};
pub use report::{Diagnostic, Lang, Mode, Options, Report, Severity};
pub use span::{LineIndex, Span};
