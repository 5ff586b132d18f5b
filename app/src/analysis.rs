//! The one place the app touches the core: the analysis, the language registry and
//! display tokens. Everything else receives a [`Report`] or plain [`LanguageInfo`], so
//! moving analysis into a Web Worker later changes only this module.

use shapex::report::{LanguageInfo, Token};
use shapex::{Analyzer, Options, Report};

/// How long typing must pause before re-analysis (the highlight layer updates on
/// every keystroke regardless).
pub const DEBOUNCE_MS: u64 = 120;

thread_local! {
    /// Built once per page: the builtin tables are the analyses' largest fixed cost.
    static ANALYZER: Analyzer = Analyzer::new();
}

pub fn analyze(source: &str, options: &Options) -> Report {
    ANALYZER.with(|a| a.analyze(source, options))
}

/// Every registered language, in menu order (the first is the default).
pub fn languages() -> Vec<LanguageInfo> {
    ANALYZER.with(|a| a.languages().map(|l| l.info().clone()).collect())
}

/// The language `id`, or the default one when `id` is unknown (an old or hand-edited
/// link), so the page always has a language to show.
pub fn language(id: &str) -> LanguageInfo {
    let all = languages();
    all.iter().find(|l| l.id == id).unwrap_or(&all[0]).clone()
}

/// Display tokens of one line in language `lang` (none for an unknown language).
pub fn tokens(lang: &str, line: &str) -> Vec<Token> {
    ANALYZER.with(|a| a.language(lang).map(|l| l.tokens(line)).unwrap_or_default())
}
