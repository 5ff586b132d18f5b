//! Shape Explorer's analysis core, as the app and the CLI see it: the language registry
//! and the driver that runs a language's analysis, and the CLI's output formats. Pure: text in, serializable
//! [`Report`] out — no I/O, no global state, no web APIs — so it builds for native (the
//! `shapex` CLI, tests, benchmarks) and for wasm32 (the app) alike.

pub mod driver;
pub mod format;
pub mod sarif;

pub use driver::{analyze, faces, Analyzer, Session};
pub use shapex_matlab::samples;
pub use shapex_report as report;
pub use shapex_report::{
    Diagnostic, Face, Language, LanguageInfo, Options, Report, Severity, Sources,
};
pub use shapex_text::{LineIndex, Span};
