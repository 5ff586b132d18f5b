//! The user-visible state that is autosaved and shared by URL: code, language,
//! semantics mode, selected view and shape notation.

use serde::{Deserialize, Serialize};
use shapex::{Lang, Mode};

/// The right-hand tabs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum View {
    #[default]
    Shapes,
    Checks,
    Ir,
    Outline,
    Diagnostics,
}

impl View {
    pub const ALL: [View; 5] = [
        View::Shapes,
        View::Checks,
        View::Ir,
        View::Outline,
        View::Diagnostics,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            View::Shapes => "shapes",
            View::Checks => "checks",
            View::Ir => "ir",
            View::Outline => "outline",
            View::Diagnostics => "diagnostics",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            View::Shapes => "Shapes",
            View::Checks => "Checks",
            View::Ir => "IR",
            View::Outline => "Outline",
            View::Diagnostics => "Diagnostics",
        }
    }
}

/// How shape tuples are written: the paper's `<3,4>` or the familiar `3×4`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Notation {
    #[default]
    Paper,
    Times,
}

/// Everything a share link or the autosave restores. Missing fields take defaults so
/// that older saves still load.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ViewState {
    pub code: String,
    pub lang: Lang,
    pub mode: Mode,
    pub view: View,
    pub notation: Notation,
}

/// Parses one of our lowercase enum names (`"paper"`, `"checks"`, …) via serde.
pub fn parse_name<T: serde::de::DeserializeOwned>(name: &str) -> Option<T> {
    serde_json::from_value(serde_json::Value::String(name.to_string())).ok()
}
