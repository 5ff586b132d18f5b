//! The [`Report`]: the only thing the app and the CLI see, in any language. Plain
//! serializable data — diagnostics, per-statement results, and the language's views
//! as payloads of a few generic kinds ([`view::Payload`]) — plus the [`Language`]
//! plug-in contract every language implements.

pub mod language;
pub mod legend;
mod statement;
pub mod view;

pub use language::{Face, Language, LanguageInfo, Lexical, Memo, OptionSpec, Options, Sources};
pub use shapex_text::{
    common_ends, Diagnostic, Fix, LineIndex, Range, Severity, Span, Token, TokenKind,
};
pub use statement::{
    bounded, CheckStatus, Def, DimView, Notation, Ref, ShapeView, StatementReport, SymbolNote,
    Witness,
};
pub use view::{Payload, View, ViewSpec};

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The language's id (`"matlab"`).
    pub lang: String,
    /// Every option of the language with the value the analysis used (defaults filled).
    #[serde(default)]
    pub settings: BTreeMap<String, String>,
    pub parse_ok: bool,
    pub diagnostics: Vec<Diagnostic>,
    /// One per source statement, in source order (the outline, the notes beside the
    /// code and the CLI's `statements[]`); empty for languages without statements.
    pub statements: Vec<StatementReport>,
    /// The language's views, in tab order.
    #[serde(default)]
    pub views: Vec<View>,
    /// What the language concludes about the program as a whole, by name (VEC's
    /// `shape_program`, `shape_signature`, `result`): text the CLI's JSON prints as
    /// top-level fields beside the contract's, which a fact never replaces.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub facts: BTreeMap<String, String>,
    /// What pointing at a piece of the source shows (a subterm's type and shape), for
    /// a face's hover: the innermost hover containing the pointer wins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hovers: Vec<Hover>,
    /// Texts the statements' [`Ref`]s point at, by key (a builtin's rule, once per
    /// builtin the program calls, however often), for a face's hover.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub glossary: BTreeMap<String, String>,
}

/// A hover: the text shown while the pointer is over `span`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hover {
    pub span: Span,
    /// Filled from `span` by [`Report::resolve_positions`].
    #[serde(flatten)]
    pub range: Range,
    pub text: String,
}

impl Report {
    /// The payload of view `id`, if the language filled it.
    pub fn view(&self, id: &str) -> Option<&Payload> {
        self.views.iter().find(|v| v.id == id).map(|v| &v.payload)
    }

    /// The glossary text of the statement ref covering byte `at` of the source (a
    /// MATLAB builtin's rule over its name in a call), for every face's hover.
    pub fn glossary_at(&self, at: usize) -> Option<&str> {
        self.statements
            .iter()
            .filter(|s| (s.span.start..s.span.end).contains(&at))
            .flat_map(|s| s.refs.iter().map(move |r| (s.ref_span(r), r)))
            .find(|(span, _)| (span.start..span.end).contains(&at))
            .and_then(|(_, r)| self.glossary.get(&r.entry))
            .map(String::as_str)
    }

    pub fn setting(&self, key: &str) -> Option<&str> {
        self.settings.get(key).map(String::as_str)
    }

    pub fn error_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// Fills every `range` from its `span` and orders diagnostics by position.
    pub fn resolve_positions(&mut self, source: &str) {
        let index = LineIndex::new(source);
        for d in &mut self.diagnostics {
            d.range = Range::of(d.span, &index);
            if let Some(fix) = &mut d.fix {
                fix.range = Range::of(fix.span, &index);
            }
        }
        for s in &mut self.statements {
            s.range = Range::of(s.span, &index);
            if let Some(fix) = s.witness.as_mut().and_then(|w| w.repro.as_mut()) {
                fix.range = Range::of(fix.span, &index);
            }
        }
        for h in &mut self.hovers {
            h.range = Range::of(h.span, &index);
        }
        self.diagnostics.sort_by_key(|d| (d.span.start, d.severity));
    }
}
