//! The plug-in contract: what a language gives the house. The façade keeps one
//! registry of [`Language`]s; the app builds its language list, tagline, option
//! controls, highlighter and tabs from [`LanguageInfo`], and the CLI its `--lang` and
//! file extensions, so adding a language changes no generic code beyond registering it.

use crate::view::ViewSpec;
use crate::Report;
use serde::{Deserialize, Serialize};
use shapex_text::Token;
use std::any::Any;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A language's analysis. Implementations hold only read-only tables built once, so
/// one value serves every call; `analyze` never panics on any input.
/// What the page needs of a language, without its analysis: its facts and its
/// highlighting. Each plug-in makes one with [`Language::face`], which builds no
/// analysis tables, so a binary that only lists languages and paints text (the app's
/// page) links no analyser; the analysis runs in the worker.
#[derive(Clone)]
pub struct Face {
    pub info: LanguageInfo,
    /// Display tokens of one line (see [`Language::tokens`]).
    pub tokens: fn(&str) -> Vec<Token>,
}

pub trait Language: Send + Sync {
    /// The language's facts and highlighting alone (what [`Language::info`] and
    /// [`Language::tokens`] give), made without building the analyser.
    fn face() -> Face
    where
        Self: Sized;

    /// Static facts about the language (plain data).
    fn info(&self) -> &LanguageInfo;

    /// Analyses `source` under `options` (whose `lang` is this language's id).
    fn analyze(&self, source: &str, options: &Options) -> Report;

    /// Analyses a new version of a text analysed before with the same `memo` (an
    /// editor's successive edits), reusing what the edit cannot have changed. The report
    /// equals [`Language::analyze`]'s for every memo; this default reuses nothing.
    fn analyze_incremental(&self, source: &str, options: &Options, memo: &mut Memo) -> Report {
        let _ = memo;
        self.analyze(source, options)
    }

    /// Analyses the file `sources.path` among the other files it may call into (a
    /// folder, the app's tabs), reusing `memo` as [`Language::analyze_incremental`]
    /// does. This default sees the one file alone; a language whose programs span files
    /// (MATLAB's path) resolves calls through [`Sources::read`].
    fn analyze_sources(&self, sources: &Sources, options: &Options, memo: &mut Memo) -> Report {
        self.analyze_incremental(sources.text, options, memo)
    }

    /// Display tokens of one line, for highlighting (no analysis, never fails).
    fn tokens(&self, line: &str) -> Vec<Token>;

    /// The longer explanation of a diagnostic code this language reports
    /// (`shapex explain CODE`), or `None` for a code it never reports.
    fn explain(&self, _code: &str) -> Option<String> {
        None
    }

    /// The paths, in the order the language tries them, of the files a use of `name`
    /// in the file `path` may reach when the file itself does not define it (MATLAB's
    /// path: `private/NAME.m`, `NAME.m` beside the file, then each of `search`): what
    /// [`Language::analyze_sources`] asks [`Sources::read`] for, for an editor's go to
    /// definition. This default: a language whose programs are one file reaches none.
    fn lookup(&self, _path: &str, _name: &str, _search: &[String]) -> Vec<String> {
        Vec::new()
    }
}

/// One file to analyse and the files around it, read on demand: the core does no I/O,
/// so the caller (the CLI's file system, the app's tabs) answers [`Sources::read`].
pub struct Sources<'a> {
    /// The analysed file's path, `/`-separated (`src/main.m`; a bare name is in the
    /// root folder).
    pub path: &'a str,
    pub text: &'a str,
    /// The text of another file by its `/`-separated path, or `None` when there is
    /// none. Asked only for the paths a call can reach (MATLAB: `NAME.m` beside the
    /// file, in its `private/` folder, in a search folder).
    pub read: &'a dyn Fn(&str) -> Option<Arc<str>>,
    /// Folders searched after the file's own, in order (the CLI's `--path DIR`).
    pub search: &'a [String],
}

impl<'a> Sources<'a> {
    /// `text` as the file `path` with no other file around it.
    pub fn alone(path: &'a str, text: &'a str) -> Sources<'a> {
        Sources {
            path,
            text,
            read: &|_| None,
            search: &[],
        }
    }

    /// The folder of [`Sources::path`] (`""` for the root).
    pub fn folder(&self) -> &'a str {
        self.path.rsplit_once('/').map_or("", |(dir, _)| dir)
    }
}

/// What a caller keeps between analyses of successive versions of one text, for
/// [`Language::analyze_incremental`]. Opaque to the caller: each language decides what
/// it keeps. A fresh memo only means that nothing is reused.
#[derive(Default)]
pub struct Memo {
    state: Option<Box<dyn Any>>,
    retired: Option<Box<dyn Any>>,
}

impl Memo {
    /// The state of type `T` this memo holds: a fresh one if it holds none yet (or
    /// another language's).
    pub fn state<T: Default + 'static>(&mut self) -> &mut T {
        let kept = self.state.take().filter(|b| b.is::<T>());
        self.state
            .insert(kept.unwrap_or_else(|| Box::<T>::default()))
            .downcast_mut::<T>()
            .expect("the memo holds a T: it was just checked or made")
    }

    /// Keeps what the last analysis built and no longer needs (a syntax tree, a
    /// program) until [`Memo::free`] or the next `retire`: freeing a 10,000-line
    /// file's takes a tenth of a keystroke's re-analysis, which a caller can spend
    /// after it has shown the result.
    pub fn retire(&mut self, garbage: Box<dyn Any>) {
        self.retired = Some(garbage);
    }

    /// Frees what [`Memo::retire`] kept.
    pub fn free(&mut self) {
        self.retired = None;
    }
}

/// What the app and the CLI know about a language before analysing anything.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LanguageInfo {
    /// Stable id, used in share links, `--lang` and the gallery (`"matlab"`).
    pub id: &'static str,
    pub name: &'static str,
    /// File extensions without the dot (`["m"]`).
    pub extensions: &'static [&'static str],
    /// One sentence under the app's title while this language is selected.
    pub tagline: &'static str,
    pub options: Vec<OptionSpec>,
    /// The views the language fills, in tab order.
    pub views: Vec<ViewSpec>,
    /// Its reports print array shapes (`<3,4>`), so the app offers the Notation
    /// control (`<3,4>` or `3×4`) while it is selected.
    pub prints_shapes: bool,
    /// How its comments and strings look to a tool that reads comments without
    /// parsing (the fixtures' expectation comments).
    pub lexical: Lexical,
}

/// Where a language's comments start, seen without parsing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Lexical {
    /// What starts a comment to the end of the line (`%`, `#`, `--`); `/*` starts one
    /// that may close with `*/` on the same line.
    pub comments: &'static [&'static str],
    /// What delimits a string, in which no comment starts. A `'` starts a string only
    /// where no value precedes it (after one, MATLAB's `'` is a transpose).
    pub quotes: &'static [char],
}

/// One option of a language, offered as a choice between named values.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OptionSpec {
    /// Key in [`Options::settings`] (`"mode"`).
    pub key: &'static str,
    pub label: &'static str,
    /// (value, label); the first is the default. No choices: a free-text option
    /// (faces show a text box; its default is empty).
    pub choices: Vec<(&'static str, &'static str)>,
    /// (value, what it means in a sentence), shown beside the control and when a value
    /// other than the default is in force.
    pub help: Vec<(&'static str, &'static str)>,
    /// A free-text option's hint while empty (`(the last one)`).
    #[serde(skip_serializing_if = "str::is_empty")]
    pub placeholder: &'static str,
    /// A free-text option of several lines (one constraint per line): a text area.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub multiline: bool,
    /// Set by a view rather than typed (the lattice's expanded nodes): faces show no
    /// control, but keep it in the settings, autosave and share links like any other.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
}

impl OptionSpec {
    pub fn default_value(&self) -> &'static str {
        self.choices.first().map_or("", |c| c.0)
    }
}

/// Which language to analyse and its settings (`mode = paper`). Languages read their
/// own keys and take defaults for missing or unknown values.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Options {
    pub lang: String,
    #[serde(default)]
    pub settings: BTreeMap<String, String>,
    /// The views to build, by id; `None` builds every view. A face showing one view at
    /// a time asks for that one: building a 10,000-line file's views costs as much as
    /// re-analysing it after a keystroke. The statements and diagnostics are always
    /// filled, and no view changes what they say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub views: Option<BTreeSet<String>>,
    /// Whether to find witnesses (`StatementReport::witness`): sizes under which each
    /// run-time check and definite error fails. Off by default, since each is a search.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub witness: bool,
}

impl Options {
    pub fn new(lang: &str) -> Options {
        Options {
            lang: lang.to_string(),
            settings: BTreeMap::new(),
            views: None,
            witness: false,
        }
    }

    /// These options building only the views `ids` (none when empty).
    pub fn with_views<'a>(mut self, ids: impl IntoIterator<Item = &'a str>) -> Options {
        self.views = Some(ids.into_iter().map(str::to_string).collect());
        self
    }

    /// Whether the view `id` is to be built.
    pub fn wants(&self, id: &str) -> bool {
        self.views.as_ref().is_none_or(|v| v.contains(id))
    }

    pub fn with(mut self, key: &str, value: &str) -> Options {
        self.settings.insert(key.to_string(), value.to_string());
        self
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.settings.get(key).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::Memo;
    use std::rc::Rc;

    /// What a memo retires lives until it is freed or the next retire, never longer.
    #[test]
    fn retired_garbage_lives_until_freed_or_replaced() {
        let mut memo = Memo::default();
        let (first, second) = (Rc::new(1), Rc::new(2));
        memo.retire(Box::new(first.clone()));
        assert_eq!(Rc::strong_count(&first), 2);
        memo.retire(Box::new(second.clone()));
        assert_eq!(Rc::strong_count(&first), 1);
        memo.free();
        assert_eq!(Rc::strong_count(&second), 1);
    }
}
