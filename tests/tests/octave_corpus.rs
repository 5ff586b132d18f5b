//! Parses every `*.m` file that ships with Octave and requires ≥98% of them to parse
//! without error diagnostics (classdef files count as parsed: they are recognised and
//! deliberately not analysed). Also asserts that no file makes the parser panic.

use shapex::{LineIndex, Severity};
use shapex_matlab_syntax::parse;
use shapex_tests::require::{require, Tool};
use std::path::PathBuf;
use std::time::Instant;

const REQUIRED: f64 = 98.0;

fn corpus_files() -> Vec<PathBuf> {
    shapex_tests::corpus::octave_m_files()
}

#[test]
fn octave_corpus_parses() {
    if require(Tool::OctaveMFiles).is_none() {
        return;
    }
    let files = corpus_files();
    let mut ok = 0usize;
    let mut bytes = 0usize;
    let mut failures = vec![];
    let mut panics = vec![];
    let start = Instant::now();
    for path in &files {
        let bytes_read = std::fs::read(path).unwrap_or_default();
        // Octave's sources are UTF-8; a few may be Latin-1: decode lossily.
        let text = String::from_utf8_lossy(&bytes_read).into_owned();
        bytes += text.len();
        match std::panic::catch_unwind(|| parse(&text)) {
            Err(_) => panics.push(path.clone()),
            Ok(parsed) => {
                let first_error = parsed
                    .diagnostics
                    .iter()
                    .find(|d| d.severity == Severity::Error);
                match first_error {
                    None => ok += 1,
                    Some(d) => {
                        let lc = LineIndex::new(&text).line_col(d.span.start);
                        let line = text.lines().nth(lc.line as usize - 1).unwrap_or("");
                        failures.push(format!(
                            "{}:{}:{}: {} [{}]\n    | {}",
                            path.display(),
                            lc.line,
                            lc.col,
                            d.message,
                            d.code,
                            line.trim()
                        ));
                    }
                }
            }
        }
    }
    let elapsed = start.elapsed();
    let pct = 100.0 * ok as f64 / files.len() as f64;
    println!(
        "octave corpus: {ok}/{} files parse cleanly ({pct:.2}%); {bytes} bytes in {:.2?} ({:.2} MB/s, debug build)",
        files.len(),
        elapsed,
        bytes as f64 / 1e6 / elapsed.as_secs_f64()
    );
    // SHAPEX_CORPUS_ALL=1 lists every failure, not just the first 20.
    let shown = if std::env::var_os("SHAPEX_CORPUS_ALL").is_some() {
        failures.len()
    } else {
        20
    };
    for f in failures.iter().take(shown) {
        println!("{f}");
    }
    assert!(panics.is_empty(), "parser panicked on: {panics:?}");
    assert!(
        pct >= REQUIRED,
        "only {pct:.2}% of the corpus parses (need {REQUIRED}%)"
    );
}
