//! The language registry and the one entry point: [`Analyzer::analyze`] finds the
//! language named in the options and runs its analysis. The app and the CLI call only
//! this (or [`analyze`]), so every analysis is reachable from both.

use shapex_report::{
    Diagnostic, Face, Language, LanguageInfo, Memo, Options, Report, Sources, Span,
};
use std::collections::HashMap;

/// Every registered language with its read-only tables built once, so callers that
/// analyse on every keystroke (the app) keep one `Analyzer`; it holds no state between
/// calls.
pub struct Analyzer {
    languages: Vec<Box<dyn Language>>,
}

impl Default for Analyzer {
    fn default() -> Self {
        Analyzer::new()
    }
}

/// The registry: adding a language is one line in the `registry!` below. It makes
/// [`faces`] (each language's facts and highlighting, for the app's page, which must
/// not link the analysers) and `registered` (the analysers), in one order.
macro_rules! registry {
    ($($language:ty),* $(,)?) => {
        /// Every registered language's [`Face`], in menu order (the first is the
        /// default): no analysis tables are built and no analyser is linked.
        pub fn faces() -> Vec<Face> {
            vec![$(<$language as Language>::face()),*]
        }

        fn registered() -> Vec<Box<dyn Language>> {
            vec![$(Box::new(<$language>::default()) as Box<dyn Language>),*]
        }
    };
}

registry![
    shapex_matlab::Matlab,
    shapex_t::LanguageT,
    shapex_migrate::Migrate,
    shapex_vec::LanguageVec,
];

impl Analyzer {
    pub fn new() -> Analyzer {
        Analyzer {
            languages: registered(),
        }
    }

    /// Every language, in the order the app lists them (the first is the default).
    pub fn languages(&self) -> impl Iterator<Item = &dyn Language> {
        self.languages.iter().map(|l| l.as_ref())
    }

    /// The language with id `id`.
    pub fn language(&self, id: &str) -> Option<&dyn Language> {
        self.languages().find(|l| l.info().id == id)
    }

    /// The language whose extensions include `path`'s.
    pub fn language_for_path(&self, path: &str) -> Option<&LanguageInfo> {
        let ext = path.rsplit_once('.')?.1;
        self.languages()
            .map(|l| l.info())
            .find(|i| i.extensions.contains(&ext))
    }

    /// Analyses `source` and returns the report. Never panics on any input; an unknown
    /// language is an error diagnostic, not a crash.
    pub fn analyze(&self, source: &str, options: &Options) -> Report {
        match self.language(&options.lang) {
            Some(lang) => wanted(lang.analyze(source, options), options),
            None => {
                let known: Vec<&str> = self.languages().map(|l| l.info().id).collect();
                let mut report = Report {
                    lang: options.lang.clone(),
                    diagnostics: vec![Diagnostic::error(
                        "lang.unknown",
                        format!(
                            "unknown language `{}` (known: {})",
                            options.lang,
                            known.join(", ")
                        ),
                        Span::new(0, 0),
                    )],
                    ..Report::default()
                };
                report.resolve_positions(source);
                report
            }
        }
    }
}

/// `report` with only the views `options` asks for, whichever a language built.
fn wanted(mut report: Report, options: &Options) -> Report {
    report.views.retain(|v| options.wants(&v.id));
    report
}

/// What a caller that analyses one text edit after edit (the app's worker) keeps
/// between analyses, so each re-analyses only what the edit can affect: one memo per
/// language. Reports never depend on it.
#[derive(Default)]
pub struct Session {
    memos: HashMap<String, Memo>,
}

impl Session {
    /// Frees what the last analyses built and no longer need (the languages'
    /// [`Memo::retire`]): a caller that shows results calls it after showing one.
    pub fn free(&mut self) {
        self.memos.values_mut().for_each(Memo::free);
    }
}

impl Analyzer {
    /// [`Analyzer::analyze`], reusing what `session` kept from the texts analysed in it
    /// before (incremental re-analysis). The report is the same as `analyze`'s.
    pub fn analyze_in(&self, session: &mut Session, source: &str, options: &Options) -> Report {
        match self.language(&options.lang) {
            Some(lang) => {
                let memo = session.memos.entry(options.lang.clone()).or_default();
                wanted(lang.analyze_incremental(source, options, memo), options)
            }
            None => self.analyze(source, options),
        }
    }
}

impl Analyzer {
    /// [`Analyzer::analyze_in`] of the file `sources.path`, its calls into the other
    /// files of `sources` resolved as its language does (MATLAB's path). The report is
    /// the one file's.
    pub fn analyze_sources_in(
        &self,
        session: &mut Session,
        sources: &Sources,
        options: &Options,
    ) -> Report {
        match self.language(&options.lang) {
            Some(lang) => {
                let memo = session.memos.entry(options.lang.clone()).or_default();
                wanted(lang.analyze_sources(sources, options, memo), options)
            }
            None => self.analyze(sources.text, options),
        }
    }
}

/// Analyses `source` with a fresh [`Analyzer`]. Never panics on any input.
pub fn analyze(source: &str, options: &Options) -> Report {
    Analyzer::new().analyze(source, options)
}
