//! Witnesses checked against PyTorch (issue #26 item 3): every PyTorch fixture is
//! analysed with witnesses on, and every statement whose witness comes with a repro
//! is run, the repro written into the file as the app writes it, by a Python with
//! `torch`; it must stop with an exception raised from that statement's line.
//!
//! PyTorch is 5 GB with its CUDA libraries, more than CI should fetch on every run, so
//! this is an option: `SHAPEX_TORCH_PYTHON` names a Python that imports `torch`
//! (`python3 -m venv /work/torchenv && /work/torchenv/bin/pip install torch`, then
//! `SHAPEX_TORCH_PYTHON=/work/torchenv/bin/python`). Without it the repros are still
//! made and counted, so a change that loses them fails everywhere.

use shapex_tests::witness::fixture_repros;
use std::process::Command;

/// Fewer repros than this over the fixtures means witnesses were lost.
const MIN_CASES: usize = 3;

/// Exceptions that are the program's or the harness's mistake, not a shape error.
const NOT_SHAPE_ERRORS: &[&str] = &["NameError", "ImportError", "AttributeError", "SyntaxError"];

/// Runs every case in one Python and prints, per case, `CASE i ran` or `CASE i failed
/// EXCEPTION LINE…` with the lines of the case's file in the traceback.
const DRIVER: &str = r#"
import runpy, sys, traceback, warnings
warnings.simplefilter("ignore")
for i, path in enumerate(sys.argv[1:]):
    try:
        runpy.run_path(path, run_name="__main__")
        print(f"CASE {i} ran")
    except Exception as e:
        lines = [str(f.lineno) for f in traceback.extract_tb(e.__traceback__) if f.filename == path]
        print(f"CASE {i} failed {type(e).__name__} {' '.join(lines)}")
"#;

#[test]
fn every_witness_of_the_fixtures_fails_in_pytorch_where_we_say() {
    let cases = fixture_repros("py", "py", "py");
    assert!(
        cases.len() >= MIN_CASES,
        "only {} repros over the PyTorch fixtures",
        cases.len()
    );
    let Some(python) = std::env::var_os("SHAPEX_TORCH_PYTHON") else {
        eprintln!(
            "torch_witness: {} repros made; set SHAPEX_TORCH_PYTHON to a Python with torch \
             to run them",
            cases.len()
        );
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let mut paths = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let path = dir.path().join(format!("case{i}.py"));
        std::fs::write(&path, &c.repro).unwrap();
        paths.push(path);
    }
    let out = Command::new(&python)
        .arg("-c")
        .arg(DRIVER)
        .args(&paths)
        .output()
        .expect("SHAPEX_TORCH_PYTHON runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut wrong = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let prefix = format!("CASE {i} ");
        let result = stdout.lines().find(|l| l.starts_with(&prefix));
        let ok = result.is_some_and(|r| {
            let mut words = r[prefix.len()..].split(' ');
            let failed = words.next() == Some("failed");
            let exception = words.next().unwrap_or("");
            let line = c.line.to_string();
            failed && !NOT_SHAPE_ERRORS.contains(&exception) && words.any(|w| w == line)
        });
        if !ok {
            wrong.push(format!(
                "{} line {}: PyTorch: {}",
                c.fixture,
                c.line,
                result.unwrap_or("no result")
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} witnesses do not fail in PyTorch where we say:\n{}\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "{} witnesses of the fixtures fail in PyTorch where we say",
        cases.len()
    );
}
