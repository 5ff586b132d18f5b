//! The m-files Octave ships (`/usr/share/octave/*/m/**.m`): working MATLAB-dialect code
//! used as the parse-coverage corpus, the no-false-alarm corpus, and the parse benchmark.

use std::path::{Path, PathBuf};

/// Every `*.m` file under `/usr/share/octave/*/m`, sorted; empty when Octave is absent.
pub fn octave_m_files() -> Vec<PathBuf> {
    let mut files = vec![];
    if let Ok(versions) = std::fs::read_dir("/usr/share/octave") {
        for v in versions.flatten() {
            collect(&v.path().join("m"), &mut files);
        }
    }
    files.sort();
    files
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "m") {
            out.push(p);
        }
    }
}

/// A file's text; Octave's files include Latin-1 comments, read lossily.
pub fn read_lossy(path: &Path) -> String {
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

/// A realistic MATLAB file of at least `lines` lines, for benchmarks: Octave's own
/// function files (those closed by `endfunction`, so they can share a file), in sorted
/// order, concatenated into one file whose first function is the primary one. `None`
/// without Octave's m-files.
pub fn octave_program(lines: usize) -> Option<String> {
    let mut out = String::new();
    let mut count = 0;
    for path in octave_m_files() {
        let text = read_lossy(&path);
        let first_code = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('%') && !l.starts_with('#'));
        if !first_code.is_some_and(|l| l.starts_with("function"))
            || !text.contains("endfunction")
            || text.contains("classdef")
        {
            continue;
        }
        out.push_str(&text);
        if !out.ends_with('\n') {
            out.push('\n');
        }
        count += text.lines().count();
        if count >= lines {
            return Some(out);
        }
    }
    None
}

/// A realistic MATLAB script of at least `lines` lines, for benchmarks of edits inside
/// one long function: the bodies of Octave's single-function files (between the
/// header and the closing `endfunction`), one after another, as one script. Files that
/// `return` (which would end the script early) or define more than one function are
/// left out. `None` without Octave's m-files.
pub fn octave_script(lines: usize) -> Option<String> {
    let mut out = String::new();
    let mut count = 0;
    for path in octave_m_files() {
        let Some(body) = function_body(&read_lossy(&path)) else {
            continue;
        };
        out.push_str(&body);
        count += body.lines().count();
        if count >= lines {
            return Some(out);
        }
    }
    None
}

/// The body of a file holding exactly one function closed by `endfunction`.
fn function_body(text: &str) -> Option<String> {
    let code = |l: &&str| {
        let t = l.trim_start();
        !t.starts_with('%') && !t.starts_with('#')
    };
    let lines: Vec<&str> = text.lines().collect();
    let headers: Vec<usize> = (0..lines.len())
        .filter(|&i| code(&lines[i]) && lines[i].trim_start().starts_with("function"))
        .collect();
    let [header] = headers[..] else { return None };
    let close = lines.iter().rposition(|l| l.trim() == "endfunction")?;
    let body = lines.get(header + 1..close)?;
    let wild = |l: &&&str| {
        let t = l.trim_start();
        t.starts_with("return")
            || t.starts_with("unwind_protect")
            || t.contains("classdef")
            || t.contains("endfunction")
    };
    if lines[header].trim_end().ends_with("...") || body.is_empty() || body.iter().any(|l| wild(&l))
    {
        return None;
    }
    Some(body.iter().map(|l| format!("{l}\n")).collect())
}
