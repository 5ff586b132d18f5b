//! The user-visible state that is autosaved and shared by URL: the files (the active
//! one's text is `code`), language, the language's settings, selected view and shape
//! notation.

pub use shapex::report::Notation;

pub use shapex_share::{File, ViewState, GENERIC_VIEWS};

/// The name of a program's only file until the user names it: `main.` and the
/// language's first extension (`main.m`).
pub fn default_name(lang: &str) -> String {
    let ext = crate::analysis::language(lang)
        .extensions
        .first()
        .copied()
        .unwrap_or("txt");
    format!("main.{ext}")
}

/// A state's files as the page's tabs (the active file's name defaults by language).
pub trait Tabs {
    fn active_name(&self) -> String;
    fn files(&self) -> Vec<File>;
    fn set_files(&mut self, files: Vec<File>, active: usize);
}

impl Tabs for ViewState {
    /// The active file's name, the language's default when it has none.
    fn active_name(&self) -> String {
        if self.name.is_empty() {
            default_name(&self.lang)
        } else {
            self.name.clone()
        }
    }

    /// Every file in tab order, the active one included.
    fn files(&self) -> Vec<File> {
        let mut all = self.others.clone();
        let active = File {
            name: self.active_name(),
            code: self.code.clone(),
        };
        all.insert(self.active.min(all.len()), active);
        all
    }

    /// Makes `files[active]` the active file (the editor's), the rest the others.
    fn set_files(&mut self, mut files: Vec<File>, active: usize) {
        if files.is_empty() {
            files.push(File {
                name: default_name(&self.lang),
                code: String::new(),
            });
        }
        let active = active.min(files.len() - 1);
        let File { name, code } = files.remove(active);
        self.name = name;
        self.code = code;
        self.others = files;
        self.active = active;
    }
}

/// Why `name` cannot be a file of a `lang` program beside `taken` (the other files'
/// names), in words; `Ok` when it can. A call reaches a file by its name, so a name is
/// an identifier, with one of the language's extensions, at the root or in `private/`.
pub fn check_name<'a>(
    name: &str,
    lang: &str,
    mut taken: impl Iterator<Item = &'a str>,
) -> Result<(), String> {
    let extensions = crate::analysis::language(lang).extensions;
    let listed = extensions
        .iter()
        .map(|e| format!(".{e}"))
        .collect::<Vec<_>>()
        .join(" or ");
    let bare = name.strip_prefix("private/").unwrap_or(name);
    let Some((stem, ext)) = bare.rsplit_once('.') else {
        return Err(format!("“{name}” needs an extension ({listed})."));
    };
    if !extensions.contains(&ext) {
        return Err(format!("“{name}” must end in {listed}."));
    }
    let word = stem.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !word {
        return Err(format!(
            "“{name}”: a file name is a letter then letters, digits or _ (optionally in private/)."
        ));
    }
    if taken.any(|t| t == name) {
        return Err(format!("There is already a file named “{name}”."));
    }
    Ok(())
}

/// `files` as a `lang` program's: a name with an extension `lang` does not claim takes
/// its first (`main.m` → `main.t`) unless that name is taken, so calls still reach them.
pub fn for_language(mut files: Vec<File>, lang: &str) -> Vec<File> {
    let extensions = crate::analysis::language(lang).extensions;
    let Some(first) = extensions.first() else {
        return files;
    };
    for i in 0..files.len() {
        let name = &files[i].name;
        let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
        if extensions.contains(&ext) {
            continue;
        }
        let renamed = format!("{stem}.{first}");
        if files.iter().all(|f| f.name != renamed) {
            files[i].name = renamed;
        }
    }
    files
}

/// Files opened together (name on disk, text) as one program's tabs: each keeps its
/// name when it is a valid, new one (so calls reach it), else gets a fresh one; the
/// active one is `main.*` when there is one (a program's usual entry), else the first.
pub fn opened(chosen: Vec<(String, String)>, lang: &str) -> (Vec<File>, usize) {
    let mut files: Vec<File> = Vec::with_capacity(chosen.len());
    for (name, code) in chosen {
        let taken: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
        let name = match check_name(&name, lang, taken.iter().map(String::as_str)) {
            Ok(()) => name,
            Err(_) => fresh_name(lang, &taken),
        };
        files.push(File { name, code });
    }
    let main = files.iter().position(|f| f.name.starts_with("main."));
    (files, main.unwrap_or(0))
}

/// A name for a new file not among `taken`: `helper.m`, `helper2.m`, …
pub fn fresh_name(lang: &str, taken: &[String]) -> String {
    let ext = crate::analysis::language(lang)
        .extensions
        .first()
        .copied()
        .unwrap_or("txt");
    (1..)
        .map(|i| match i {
            1 => format!("helper.{ext}"),
            _ => format!("helper{i}.{ext}"),
        })
        .find(|n| !taken.contains(n))
        .expect("some name is free")
}

#[cfg(test)]
mod tests {

    #[test]
    fn files_opened_together_keep_their_names_and_main_is_active() {
        let chosen = vec![
            ("gram.m".to_string(), "function g = gram(x)\n".to_string()),
            ("main.m".to_string(), "a = gram(1);\n".to_string()),
            ("my-notes.m".to_string(), "x = 1;\n".to_string()),
            ("gram.m".to_string(), "function g = gram(x)\n".to_string()),
        ];
        let (files, active) = opened(chosen, "matlab");
        let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["gram.m", "main.m", "helper.m", "helper2.m"]);
        assert_eq!(active, 1);
    }

    use super::*;

    fn two_files() -> ViewState {
        let mut s = ViewState {
            lang: "matlab".into(),
            ..ViewState::default()
        };
        s.set_files(
            vec![
                File {
                    name: "main.m".into(),
                    code: "a = helper(ones(4,1));\n".into(),
                },
                File {
                    name: "helper.m".into(),
                    code: "function y = helper(x)\ny = x .* x;\nend\n".into(),
                },
            ],
            1,
        );
        s
    }

    #[test]
    fn an_old_save_opens_as_one_file_named_by_the_language() {
        let s: ViewState = serde_json::from_str(r#"{"code":"x = 1;","lang":"matlab"}"#).unwrap();
        assert_eq!(
            s.files(),
            vec![File {
                name: "main.m".into(),
                code: "x = 1;".into()
            }]
        );
        // And one file saves as before: no names, no others.
        let json = serde_json::to_string(&s).unwrap();
        assert!(!json.contains("others") && !json.contains("name"), "{json}");
    }

    #[test]
    fn files_round_trip_through_json_in_tab_order() {
        let s = two_files();
        assert_eq!(s.code, "function y = helper(x)\ny = x .* x;\nend\n");
        assert_eq!(s.active_name(), "helper.m");
        let back: ViewState = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        let names: Vec<_> = back.files().into_iter().map(|f| f.name).collect();
        assert_eq!(names, ["main.m", "helper.m"]);
    }

    #[test]
    fn names_are_identifiers_with_the_languages_extension_and_unique() {
        let taken = ["main.m"];
        let ok = |n| check_name(n, "matlab", taken.iter().copied());
        assert_eq!(ok("helper.m"), Ok(()));
        assert_eq!(ok("private/helper_2.m"), Ok(()));
        for bad in [
            "main.m",
            "helper",
            "helper.py",
            "2x.m",
            "a b.m",
            "../x.m",
            "sub/x.m",
            ".m",
        ] {
            assert!(ok(bad).is_err(), "{bad}");
        }
        assert_eq!(fresh_name("matlab", &["main.m".into()]), "helper.m");
        // Another language's extension follows a language change, unless taken.
        let file = |name: &str| File {
            name: name.into(),
            code: String::new(),
        };
        let t = crate::analysis::language("t").extensions[0];
        let renamed = for_language(vec![file("main.m"), file("helper.m")], "t");
        assert_eq!(renamed[0].name, format!("main.{t}"));
        assert_eq!(renamed[1].name, format!("helper.{t}"));
        assert_eq!(
            fresh_name("matlab", &["main.m".into(), "helper.m".into()]),
            "helper2.m"
        );
    }
}
