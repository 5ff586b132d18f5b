//! The one place the app runs the analysis. Everything else receives a [`Report`],
//! so moving analysis into a Web Worker later changes only this module.

use shapex::{Analyzer, Options, Report};

/// How long typing must pause before re-analysis (the highlight layer updates on
/// every keystroke regardless).
pub const DEBOUNCE_MS: u64 = 120;

thread_local! {
    /// Built once per page: the builtin table is the analysis's largest fixed cost.
    static ANALYZER: Analyzer = Analyzer::new();
}

pub fn analyze(source: &str, options: &Options) -> Report {
    ANALYZER.with(|a| a.analyze(source, options))
}
