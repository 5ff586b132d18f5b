//! The `shapex` CLI contract: formats, directory recursion, stdin, exit codes.
#![cfg(not(target_arch = "wasm32"))]

use std::io::Write;
use std::process::{Command, Stdio};

fn shapex(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shapex"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn shapex");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("shapex-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    dir
}

#[test]
fn clean_file_exits_zero_and_reports_json_contract() {
    let (code, out, _) = shapex(&["check", "--format", "json", "-"], "x = 1;\ny = x + 2;\n");
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["file"], "<stdin>");
    assert_eq!(v["lang"], "matlab");
    assert_eq!(v["parse_ok"], true);
    assert!(v["diagnostics"].as_array().unwrap().is_empty());
    assert_eq!(v["statements"].as_array().unwrap().len(), 2);
    assert_eq!(v["statements"][1]["line"], 2);
    assert_eq!(v["statements"][1]["kind"], "assign");
}

#[test]
fn syntax_error_exits_one_with_file_line_col_text() {
    let (code, out, _) = shapex(&["check", "-"], "a = 1;\nb = (a + 2;\nc = 3;\n");
    assert_eq!(code, 1, "stdout: {out}");
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("<stdin>:2:"), "got {first}");
    assert!(first.contains(": error: "), "got {first}");
}

#[test]
fn directories_recurse_into_m_files_and_jsonl_has_one_line_each() {
    let dir = temp_dir("dir");
    std::fs::write(dir.join("a.m"), "x = 1;\n").unwrap();
    std::fs::write(dir.join("sub/b.m"), "y = [1 2];\n").unwrap();
    std::fs::write(dir.join("notes.txt"), "not matlab (\n").unwrap();
    let (code, out, _) = shapex(&["check", "--format", "jsonl", dir.to_str().unwrap()], "");
    assert_eq!(code, 0, "{out}");
    let files: Vec<String> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["file"].to_string())
        .collect();
    assert_eq!(files.len(), 2, "{out}");
    assert!(files[0].ends_with("a.m\"") && files[1].ends_with("b.m\""));
}

#[test]
fn usage_and_io_errors_exit_two() {
    assert_eq!(shapex(&["check"], "").0, 2);
    assert_eq!(shapex(&["frobnicate"], "").0, 2);
    let (code, _, err) = shapex(&["check", "/no/such/file.m"], "");
    assert_eq!(code, 2);
    assert!(err.contains("/no/such/file.m"));
}

#[test]
fn languages_come_from_the_registry_and_options_are_generic() {
    let (code, out, _) = shapex(&["languages"], "");
    assert_eq!(code, 0);
    let matlab = out
        .lines()
        .find(|l| l.starts_with("matlab\t"))
        .expect("MATLAB is registered");
    assert!(
        matlab.contains(".m") && matlab.contains("mode=modern|paper"),
        "{matlab}"
    );
    // `--set mode=paper` is `--mode paper`: strict MATLAB 5 rejects broadcasting.
    let src = "a = ones(3,1) + ones(1,3);\n";
    let (modern, _, _) = shapex(&["check", "-"], src);
    let (paper, out, _) = shapex(&["check", "--set", "mode=paper", "-"], src);
    assert_eq!((modern, paper), (0, 1), "{out}");
    assert_eq!(shapex(&["check", "--mode", "paper", "-"], src).0, 1);
    let (code, _, err) = shapex(&["check", "--lang", "cobol", "-"], src);
    assert_eq!(code, 2);
    assert!(err.contains("unknown language `cobol`"), "{err}");
}

#[test]
fn explain_prints_a_codes_explanation() {
    let (code, out, _) = shapex(&["explain", "shape.mtimes"], "");
    assert_eq!(code, 0);
    assert!(
        out.starts_with("shape.mtimes: ") && out.contains("columns"),
        "{out}"
    );
    assert_eq!(shapex(&["explain", "no.such.code"], "").0, 2);
}
