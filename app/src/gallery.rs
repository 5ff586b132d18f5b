//! The examples menu, embedded at compile time from `tests/fixtures/gallery.json`
//! (see `build.rs`): the tests and the app read the same files.

use crate::state::{View, ViewState};
use shapex::{Lang, Mode};

/// One gallery example, as listed in `gallery.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GalleryEntry {
    pub id: &'static str,
    pub title: &'static str,
    /// Path relative to `tests/fixtures`.
    pub file: &'static str,
    pub lang: &'static str,
    pub mode: &'static str,
    pub view: &'static str,
    pub citation: &'static str,
    pub source: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/gallery_gen.rs"));

/// The example shown on a first visit and after a damaged link.
pub const DEFAULT_ID: &str = "joisha-example3";

pub fn find(id: &str) -> Option<&'static GalleryEntry> {
    GALLERY.iter().find(|e| e.id == id)
}

pub fn default_entry() -> &'static GalleryEntry {
    find(DEFAULT_ID).unwrap_or(&GALLERY[0])
}

impl GalleryEntry {
    /// The editor state this example opens with; unknown settings fall back to defaults.
    pub fn state(&self, notation: crate::state::Notation) -> ViewState {
        ViewState {
            code: self.source.to_string(),
            lang: crate::state::parse_name::<Lang>(self.lang).unwrap_or_default(),
            mode: crate::state::parse_name::<Mode>(self.mode).unwrap_or_default(),
            view: crate::state::parse_name::<View>(self.view).unwrap_or_default(),
            notation,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Notation;

    #[test]
    fn default_example_is_joisha_example3_and_every_entry_has_source() {
        assert_eq!(default_entry().id, "joisha-example3");
        for e in GALLERY {
            assert!(
                e.source.starts_with('%'),
                "{} must start with a citation comment",
                e.id
            );
        }
    }

    #[test]
    fn entry_settings_are_read_from_the_index() {
        let s = find("joisha-example3").unwrap().state(Notation::Paper);
        assert_eq!(s.mode, Mode::Paper);
        assert_eq!(s.view, View::Checks);
        assert!(s.code.contains("c = a*b;"));
    }
}
