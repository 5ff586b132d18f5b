//! Runs the whole analysis (parse → Tame IR → value analysis) on every m-file Octave
//! ships: none may panic or hang, and every definite shape error on this working code
//! is listed. Octave's own files run, so a definite error there is either a real bug
//! in Octave or a false alarm of ours; the reviewed ones are in `REVIEWED` with the
//! reason, and any other fails the test.

use shapex::{analyze, Options, Severity};
use shapex_tests::require::{require, Tool};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

/// Definite errors reviewed by hand: (file name, line, why it is right).
const REVIEWED: &[(&str, u32, &str)] = &[];

/// Generous: a debug build analyses a typical file in milliseconds.
const PER_FILE_LIMIT: Duration = Duration::from_secs(60);

fn corpus_files() -> Vec<PathBuf> {
    shapex_tests::corpus::octave_m_files()
}

/// Analyses one file on a worker thread so a hang is reported, not waited on forever.
fn analyse_with_limit(source: String) -> Result<Vec<(u32, String)>, String> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            let result = std::panic::catch_unwind(|| analyze(&source, &Options::new("matlab")));
            let _ = tx.send(result.map(|r| {
                r.diagnostics
                    .into_iter()
                    .filter(|d| d.severity == Severity::Error && d.code.starts_with("shape."))
                    .map(|d| (d.range.line, d.message))
                    .collect()
            }));
        })
        .map_err(|e| e.to_string())?;
    match rx.recv_timeout(PER_FILE_LIMIT) {
        Ok(Ok(errors)) => Ok(errors),
        Ok(Err(_)) => Err("panicked".into()),
        Err(_) => Err(format!("did not finish within {PER_FILE_LIMIT:?}")),
    }
}

#[test]
fn every_octave_file_is_analysed_without_panic_hang_or_unreviewed_definite_error() {
    if require(Tool::OctaveMFiles).is_none() {
        return;
    }
    let files = corpus_files();
    let mut broken = vec![];
    let mut definite = vec![];
    for path in &files {
        let source = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        match analyse_with_limit(source) {
            Ok(errors) => definite.extend(errors.into_iter().map(|(l, m)| (name.clone(), l, m))),
            Err(why) => broken.push(format!("{}: {why}", path.display())),
        }
    }
    let unreviewed: Vec<String> = definite
        .iter()
        .filter(|(f, l, _)| !REVIEWED.iter().any(|(rf, rl, _)| rf == f && rl == l))
        .map(|(f, l, m)| format!("{f}:{l}: {m}"))
        .collect();
    eprintln!(
        "analysed {} files: {} definite shape errors ({} reviewed)",
        files.len(),
        definite.len(),
        definite.len() - unreviewed.len()
    );
    assert!(
        broken.is_empty(),
        "files that broke the analysis:\n{}",
        broken.join("\n")
    );
    assert!(
        unreviewed.is_empty(),
        "{} unreviewed definite errors in working code:\n{}",
        unreviewed.len(),
        unreviewed.join("\n")
    );
}
