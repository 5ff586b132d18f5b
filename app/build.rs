//! Embeds the examples gallery at compile time: reads `tests/fixtures/gallery.json`
//! and writes `gallery_gen.rs` with each listed file's text, so a missing or misspelt
//! example fails the build instead of the page. The fixtures' expectations for the
//! tests (`% expect: …` / `# expect: …` trailing comments, `% mode:` and `% differential` front
//! matter) are taken out: a student reads the program, not its test.

use std::{env, fs, path::PathBuf};

#[derive(serde::Deserialize)]
struct Entry {
    id: String,
    title: String,
    file: String,
    lang: String,
    /// The examples menu's group (`<optgroup>`): a paper, or "Start here".
    group: String,
    /// Language settings the example opens with (`{"mode": "paper"}`).
    #[serde(default)]
    settings: std::collections::BTreeMap<String, String>,
    view: String,
    citation: String,
    /// The program's other files (paths relative to `file`'s folder), opened as tabs
    /// after it: a call in `file` may run them.
    #[serde(default)]
    others: Vec<String>,
}

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let fixtures = manifest.join("../tests/fixtures");
    let index = fixtures.join("gallery.json");
    println!("cargo:rerun-if-changed={}", index.display());
    let text = fs::read_to_string(&index)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", index.display()));
    let entries: Vec<Entry> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("bad {}: {e}", index.display()));
    assert!(!entries.is_empty(), "gallery.json lists no examples");

    let mut out = String::from("pub static GALLERY: &[GalleryEntry] = &[\n");
    for e in &entries {
        let path = fixtures.join(&e.file);
        let path = path
            .canonicalize()
            .unwrap_or_else(|err| panic!("gallery entry `{}`: {}: {err}", e.id, path.display()));
        println!("cargo:rerun-if-changed={}", path.display());
        let text = fs::read_to_string(&path)
            .unwrap_or_else(|err| panic!("gallery entry `{}`: {}: {err}", e.id, path.display()));
        let folder = path.parent().expect("a file has a folder");
        let others: Vec<(String, String)> = e
            .others
            .iter()
            .map(|name| {
                let other = folder.join(name);
                println!("cargo:rerun-if-changed={}", other.display());
                let text = fs::read_to_string(&other).unwrap_or_else(|err| {
                    panic!("gallery entry `{}`: {}: {err}", e.id, other.display())
                });
                (name.clone(), without_expectations(&text))
            })
            .collect();
        let name = path
            .file_name()
            .expect("a file has a name")
            .to_string_lossy();
        out.push_str(&format!(
            "    GalleryEntry {{ id: {:?}, title: {:?}, file: {:?}, lang: {:?}, group: {:?}, settings: &{:?}, view: {:?}, citation: {:?}, source: {:?}, name: {:?}, others: &{:?} }},\n",
            e.id, e.title, e.file, e.lang, e.group, e.settings.iter().collect::<Vec<_>>(), e.view, e.citation, without_expectations(&text), name, others
        ));
    }
    out.push_str("];\n");
    let dest = PathBuf::from(env::var("OUT_DIR").expect("cargo sets it")).join("gallery_gen.rs");
    fs::write(&dest, out).expect("write gallery_gen.rs");
}

/// The program without the fixture's test annotations (see the module doc).
fn without_expectations(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let trimmed = line.trim();
        let front_matter = ["% mode:", "% entry:", "% differential"]
            .iter()
            .any(|p| trimmed.starts_with(p));
        if front_matter {
            continue;
        }
        // `%` (MATLAB, Language T), `#` (Python, the gradual calculus), `//` comments.
        let at = ["% expect", "# expect", "// expect"]
            .iter()
            .filter_map(|m| line.find(m))
            .min();
        let code = match at {
            // A trailing expectation; a line that is only one goes entirely.
            Some(at) if line[..at].trim().is_empty() => continue,
            Some(at) => line[..at].trim_end(),
            None => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}
