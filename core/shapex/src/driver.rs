//! Runs the pipeline for one source text: the language's analysis → [`Report`].
//! The app and the CLI call only [`Analyzer::analyze`] (or [`analyze`]), so every
//! analysis is reachable from both.

use shapex_matlab::Matlab;
use shapex_report::{Lang, Options, Report};

/// Every language's analysis with its read-only tables built once, so callers that
/// analyse on every keystroke (the app) keep one `Analyzer`; it holds no state between
/// calls.
#[derive(Default)]
pub struct Analyzer {
    matlab: Matlab,
}

impl Analyzer {
    pub fn new() -> Analyzer {
        Analyzer::default()
    }

    /// Analyses `source` and returns the report. Never panics on any input.
    pub fn analyze(&self, source: &str, options: &Options) -> Report {
        match options.lang {
            Lang::Matlab => self.matlab.analyze(source, options),
        }
    }
}

/// Analyses `source` with a fresh [`Analyzer`]. Never panics on any input.
pub fn analyze(source: &str, options: &Options) -> Report {
    Analyzer::new().analyze(source, options)
}
