//! The user-visible state that is autosaved and shared by URL: code, language, the
//! language's settings, selected view and shape notation.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use shapex::report::Notation;

/// The views every language has, after its own (built from statements and
/// diagnostics, which every Report carries).
pub const GENERIC_VIEWS: [(&str, &str); 2] =
    [("outline", "Outline"), ("diagnostics", "Diagnostics")];

/// Everything a share link or the autosave restores. Missing fields take defaults so
/// that older saves and links still load; `#v1/` links made before languages were
/// plug-ins carry MATLAB's `mode` at the top level, which [`ViewState::from`] moves
/// into `settings`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "SavedState")]
pub struct ViewState {
    pub code: String,
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
            lang: s.lang,
            settings,
            view: s.view,
            notation: s.notation,
            step: s.step,
        }
    }
}
