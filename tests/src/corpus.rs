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
