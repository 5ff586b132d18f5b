//! The examples menu, embedded at compile time from `tests/fixtures/gallery.json`
//! (see `build.rs`): the tests and the app read the same files.

use crate::state::ViewState;

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
    /// The editor state this example opens with; the language takes defaults for
    /// settings the index leaves out (and views it does not offer).
    pub fn state(&self, notation: crate::state::Notation) -> ViewState {
        let mut settings = std::collections::BTreeMap::new();
        if !self.mode.is_empty() {
            settings.insert("mode".to_string(), self.mode.to_string());
        }
        ViewState {
            code: self.source.to_string(),
            lang: self.lang.to_string(),
            settings,
            view: self.view.to_string(),
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
        let languages = crate::analysis::languages();
        for e in GALLERY {
            let lang = languages
                .iter()
                .find(|l| l.id == e.lang)
                .unwrap_or_else(|| panic!("{}: unknown language {}", e.id, e.lang));
            assert!(
                lang.views.iter().any(|v| v.id == e.view)
                    || crate::state::GENERIC_VIEWS.iter().any(|g| g.0 == e.view),
                "{}: {} has no view {}",
                e.id,
                e.lang,
                e.view
            );
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
        assert_eq!(s.settings["mode"], "paper");
        assert_eq!(s.view, "checks");
        assert_eq!(s.lang, "matlab");
        assert!(s.code.contains("c = a*b;"));
    }
}
