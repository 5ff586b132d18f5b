//! Embeds the examples gallery at compile time: reads `tests/fixtures/gallery.json`
//! and writes `gallery_gen.rs` with one `include_str!` per listed file, so a missing
//! or misspelt example fails the build instead of the page.

use std::{env, fs, path::PathBuf};

#[derive(serde::Deserialize)]
struct Entry {
    id: String,
    title: String,
    file: String,
    lang: String,
    mode: String,
    view: String,
    citation: String,
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
        out.push_str(&format!(
            "    GalleryEntry {{ id: {:?}, title: {:?}, file: {:?}, lang: {:?}, mode: {:?}, view: {:?}, citation: {:?}, source: include_str!({:?}) }},\n",
            e.id, e.title, e.file, e.lang, e.mode, e.view, e.citation, path.display().to_string()
        ));
    }
    out.push_str("];\n");
    let dest = PathBuf::from(env::var("OUT_DIR").expect("cargo sets it")).join("gallery_gen.rs");
    fs::write(&dest, out).expect("write gallery_gen.rs");
}
