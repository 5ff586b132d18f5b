//! Symbols the analysis mints (`c~c1`, `a~j1@2`, `n#2`) read by their aliases (`?₁`,
//! `n₂`) in every face a student reads — the notes and tooltips (`Def::shown`,
//! `Def::title`), the Shapes table, the Checks view and the CLI's text — with a legend,
//! while the CLI's JSON keeps the exact names. Checked on every MATLAB fixture.

use shapex::report::{Notation, Payload, Report};
use shapex::{analyze, format, Options};
use std::path::{Path, PathBuf};

fn fixtures(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("fixtures directory") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            fixtures(&path, out);
        } else if path.extension().is_some_and(|e| e == "m") {
            out.push(path);
        }
    }
}

/// The minted names `text` shows: a word with `~`, `#` or `@` inside it.
fn minted(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '~' | '#' | '@' | '.')))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| {
            let inner = w.trim_start_matches(['~', '#', '@']);
            inner.chars().next().is_some_and(char::is_alphabetic)
                && inner.contains(['~', '#', '@'])
                && !inner.ends_with(['~', '#', '@'])
        })
        .map(str::to_string)
        .collect()
}

/// A diagnostic's message without the source it quotes (`` `c = a*b` fails``).
fn unquoted(message: &str) -> String {
    message
        .split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .map(|(_, p)| p)
        .collect()
}

fn faces(report: &Report) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for s in &report.statements {
        for d in &s.defs {
            for notation in [Notation::Paper, Notation::Times] {
                let shown = d.shown(s, notation);
                out.push((format!("note of {}", d.name), shown.clone()));
                out.push((format!("title of {}", d.name), d.title(&shown, s)));
            }
        }
    }
    if let Some(Payload::Table(t)) = report.view("shapes") {
        out.push(("Shapes table".into(), format!("{:?}", t.rows)));
    }
    if let Some(Payload::AnnotatedSource(a)) = report.view("checks") {
        for n in &a.notes {
            out.push(("Checks view".into(), n.text.clone()));
        }
    }
    for d in &report.diagnostics {
        let shown = report.aliased(&d.message, d.span);
        out.push((format!("diagnostic {}", d.code), unquoted(&shown.text)));
    }
    out
}

/// The CLI's JSON without its statements' `symbols[]`, and those apart.
fn json_without_symbols(report: &Report) -> (String, String) {
    let mut json = format::to_json_value("f.m", report, &format::Views::Only(vec![]));
    let mut symbols = Vec::new();
    for s in json["statements"].as_array_mut().expect("statements") {
        if let Some(notes) = s.as_object_mut().and_then(|s| s.remove("symbols")) {
            symbols.push(notes);
        }
    }
    (
        json.to_string(),
        serde_json::Value::from(symbols).to_string(),
    )
}

#[test]
fn every_face_shows_aliases_and_the_json_keeps_names() {
    let mut files = Vec::new();
    fixtures(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/matlab"),
        &mut files,
    );
    files.sort();
    assert!(files.len() > 20, "{files:?}");
    let mut problems = Vec::new();
    let mut aliased = 0;
    for path in &files {
        let source = std::fs::read_to_string(path).expect("fixture");
        let report = analyze(&source, &Options::new("matlab"));
        for (face, text) in faces(&report) {
            let left = minted(&text);
            if !left.is_empty() {
                problems.push(format!("{}: {face} shows {left:?}: {text}", path.display()));
            }
        }
        let legend = report.legend();
        aliased += legend.iter().filter(|n| n.is_aliased()).count();
        // One alias per symbol, and no alias for two.
        for (i, a) in legend.iter().enumerate() {
            for b in &legend[i + 1..] {
                if a.alias == b.alias && a.is_aliased() {
                    problems.push(format!("{}: {a:?} and {b:?}", path.display()));
                }
            }
        }
        // The JSON keeps the exact names; only `symbols[]` says how they read.
        let (json, symbols) = json_without_symbols(&report);
        for n in legend.iter().filter(|n| n.is_aliased()) {
            if !json.contains(&n.name) || json.contains(&n.alias) || !symbols.contains(&n.alias) {
                problems.push(format!("{}: JSON and {n:?}", path.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(aliased > 10, "the fixtures mint symbols: {aliased}");
}

#[test]
fn text_format_shows_aliases_with_their_legend() {
    let source = "function g(a, b, n)\nc = a;\nfor i = 1:n\n    c = a.*b;\n    a = c;\nend\nend\n";
    let report = analyze(source, &Options::new("matlab"));
    let text = format::to_text("g.m", &report);
    assert!(minted(&text).is_empty(), "{text}");
    assert!(
        // Inputs have open rank, so c = a.*b has a third extent too (issue #19).
        text.contains("<?₁,?₂,?₃>")
            && text.contains("\n    where ?₁ = rows of c, known when line 4 runs")
            && text.contains("\n    where ?₂ = columns of c"),
        "{text}"
    );
    assert_eq!(text.matches("where ?₁").count(), 1, "{text}");
    let (json, symbols) = json_without_symbols(&report);
    assert!(json.contains("c~c1@1") && !json.contains('?'), "{json}");
    assert!(
        symbols.contains(r#"{"alias":"?₁","meaning":"rows of c, known when line 4 runs"#),
        "{symbols}"
    );
}

/// Two functions mint symbols of the same name: each is its own symbol with its own
/// alias, and a diagnostic in either reads its own function's.
#[test]
fn two_functions_names_are_told_apart() {
    let one = "function c = f(a, b)\n  c = a .* b;\n  d = [c; zeros(1, 3)];\nend\n";
    let source = format!("{one}{}", one.replace("function c = f", "function c = g"));
    let report = analyze(&source, &Options::new("matlab"));
    let legend = report.legend();
    let named: Vec<_> = legend.iter().filter(|n| n.name == "c~c1").collect();
    assert_eq!(named.len(), 2, "{legend:?}");
    assert_ne!(named[0].alias, named[1].alias, "{legend:?}");
    for (line, note) in [(3, named[0]), (7, named[1])] {
        let s = report
            .statements
            .iter()
            .find(|s| s.range.line == line)
            .expect("statement");
        assert!(
            s.symbols
                .iter()
                .any(|n| n.name == "c~c1" && n.alias == note.alias),
            "line {line}: {:?}",
            s.symbols
        );
        assert_eq!(report.aliased("c~c1", s.span).text, note.alias);
    }
}
