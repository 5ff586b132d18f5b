//! The state a share link and the autosave carry (`ViewState`: the program's files, its
//! language and settings, the view on screen, the notation, a replay step), and the
//! link format (`link`): what the playground opens and `shapex share` prints. Pure,
//! so the app and the CLI make the same links from one definition.

pub mod link;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use shapex_report::Notation;

/// The views every language has, after its own (built from statements and
/// diagnostics, which every Report carries): tabs a link may name too.
pub const GENERIC_VIEWS: [(&str, &str); 2] =
    [("outline", "Outline"), ("diagnostics", "Diagnostics")];

/// Everything a share link or the autosave restores. Missing fields take defaults so
/// that older saves and links still load; `#v1/` links made before languages were
/// plug-ins carry MATLAB's `mode` at the top level, which [`ViewState::from`] moves
/// into `settings`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "SavedState")]
pub struct ViewState {
    /// The active file's text (the editor's).
    pub code: String,
    /// The active file's name; empty for the language's default (the app's
    /// `default_name`, `main.m`), which is what saves and links from before files had
    /// names open as.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The other files, in tab order (a call in the active file may run them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<File>,
    /// The active file's place among all the tabs (`others` fill the rest in order).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub active: usize,
    pub lang: String,
    /// The language's options (`mode = paper`); missing keys take the language default.
    pub settings: BTreeMap<String, String>,
    /// The selected tab's id (`shapes`, `checks`, `outline`, …).
    pub view: String,
    pub notation: Notation,
    /// The replay step a graph view shows, when not the final graph.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
}

impl Default for ViewState {
    fn default() -> Self {
        ViewState {
            code: String::new(),
            name: String::new(),
            others: Vec::new(),
            active: 0,
            // No language is the default: the start comes from the gallery's first
            // example, a link or a save, each naming its language.
            lang: String::new(),
            settings: BTreeMap::new(),
            view: "shapes".into(),
            notation: Notation::default(),
            step: None,
        }
    }
}

/// What older and current saves may contain.
#[derive(Deserialize)]
#[serde(default)]
struct SavedState {
    code: String,
    name: String,
    others: Vec<File>,
    active: usize,
    lang: String,
    settings: BTreeMap<String, String>,
    /// Before plug-ins: MATLAB's semantics mode at the top level.
    mode: Option<String>,
    view: String,
    notation: Notation,
    step: Option<usize>,
}

impl Default for SavedState {
    fn default() -> Self {
        let d = ViewState::default();
        SavedState {
            code: d.code,
            name: d.name,
            others: d.others,
            active: d.active,
            // Saves from before languages were plug-ins name none: they were MATLAB's.
            lang: "matlab".into(),
            settings: d.settings,
            mode: None,
            view: d.view,
            notation: d.notation,
            step: None,
        }
    }
}

impl From<SavedState> for ViewState {
    fn from(s: SavedState) -> ViewState {
        let mut settings = s.settings;
        if let Some(mode) = s.mode {
            settings.entry("mode".into()).or_insert(mode);
        }
        ViewState {
            code: s.code,
            name: s.name,
            // A hand-edited position past the end puts the active file last.
            active: s.active.min(s.others.len()),
            others: s.others,
            lang: s.lang,
            settings,
            view: s.view,
            notation: s.notation,
            step: s.step,
        }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One file of the program: a tab.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct File {
    /// `/`-separated path in the program's root folder (`helper.m`, `private/f.m`).
    pub name: String,
    pub code: String,
}
