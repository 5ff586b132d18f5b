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
    /// The examples menu's group: a paper, or "Start here".
    pub group: &'static str,
    /// Language settings the example opens with (a paper's MATLAB 5 semantics).
    pub settings: &'static [(&'static str, &'static str)],
    pub view: &'static str,
    pub citation: &'static str,
    pub source: &'static str,
    /// The file's name (`main.m`): its tab's, when the example has other files.
    pub name: &'static str,
    /// The program's other files (name, text), opened as tabs after it.
    pub others: &'static [(&'static str, &'static str)],
}

include!(concat!(env!("OUT_DIR"), "/gallery_gen.rs"));

/// The example shown on a first visit: a modern MATLAB shape bug with its fix.
pub const DEFAULT_ID: &str = "start-here";

pub fn find(id: &str) -> Option<&'static GalleryEntry> {
    GALLERY.iter().find(|e| e.id == id)
}

pub fn default_entry() -> &'static GalleryEntry {
    find(DEFAULT_ID).unwrap_or(&GALLERY[0])
}

/// The menu's groups in order of first appearance, each with its entries.
pub fn groups() -> Vec<(&'static str, Vec<&'static GalleryEntry>)> {
    let mut out: Vec<(&str, Vec<&GalleryEntry>)> = Vec::new();
    for e in GALLERY {
        match out.iter_mut().find(|(g, _)| *g == e.group) {
            Some((_, list)) => list.push(e),
            None => out.push((e.group, vec![e])),
        }
    }
    out
}

/// Whether `code` is an example's text as shipped (so replacing it loses nothing).
pub fn is_example_text(code: &str) -> bool {
    let code = code.trim();
    GALLERY
        .iter()
        .any(|e| e.source.trim() == code || e.others.iter().any(|(_, text)| text.trim() == code))
}

impl GalleryEntry {
    /// The editor state this example opens with; the language takes defaults for
    /// settings the index leaves out (and views it does not offer).
    pub fn state(&self, notation: crate::state::Notation) -> ViewState {
        let settings = self
            .settings
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let others: Vec<crate::state::File> = self
            .others
            .iter()
            .map(|(name, code)| crate::state::File {
                name: name.to_string(),
                code: code.to_string(),
            })
            .collect();
        ViewState {
            code: self.source.to_string(),
            // A one-file example keeps the language's default name (`main.m`).
            name: match others.is_empty() {
                true => String::new(),
                false => self.name.to_string(),
            },
            others,
            lang: self.lang.to_string(),
            settings,
            view: self.view.to_string(),
            notation,
            ..ViewState::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Notation;

    #[test]
    fn default_example_is_modern_and_every_entry_has_source() {
        let d = default_entry();
        assert_eq!(d.id, "start-here");
        assert!(
            d.settings.is_empty(),
            "the first screen uses today's MATLAB"
        );
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
            // A citation comment first, in the language's own comment syntax.
            let first = e.source.lines().next().unwrap_or("");
            let tokens = crate::analysis::tokens(e.lang, first);
            assert!(
                tokens
                    .first()
                    .is_some_and(|t| t.start == 0 && t.kind == shapex::report::TokenKind::Comment),
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

    #[test]
    fn an_example_of_several_files_opens_them_as_tabs() {
        let s = find("tamer-folder").unwrap().state(Notation::Paper);
        assert_eq!(s.name, "main.m");
        let names: Vec<&str> = s.others.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["gram.m", "private/widen.m", "squared.m"]);
        assert!(s.others.iter().all(|f| is_example_text(&f.code)));
        assert!(!s.code.contains("expect"), "{}", s.code);
    }

    #[test]
    fn groups_keep_order_and_every_entry() {
        let groups = groups();
        assert_eq!(groups[0].0, "Start here");
        assert_eq!(
            groups.iter().map(|g| g.1.len()).sum::<usize>(),
            GALLERY.len()
        );
    }

    #[test]
    fn the_default_example_has_a_definite_error_with_a_fix() {
        let d = default_entry();
        let report = shapex::analyze(d.source, &shapex::Options::new(d.lang));
        assert!(
            report
                .diagnostics
                .iter()
                .any(|x| x.code.starts_with("shape.mtimes")),
            "{:?}",
            report.diagnostics
        );
    }
}
