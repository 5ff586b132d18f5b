//! `cargo run --release -p shapex-tests --bin corpus-calls -- DIR [MIN_FILES]`: the calls
//! real code makes (issue #24 item 1) — the share of call sites whose function is known
//! (the builtin table, or a function the corpus defines), then every name neither knows
//! that at least MIN_FILES files (default 20) call, as `name files sites`.

use shapex_tests::calls::{self, Known};
use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next() else {
        eprintln!("usage: corpus-calls DIR [MIN_FILES]");
        std::process::exit(2);
    };
    let min: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let files: Vec<(PathBuf, String)> = walkdir::WalkDir::new(&dir)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "m"))
        .map(|e| {
            let text = shapex_tests::corpus::read_lossy(e.path());
            (e.into_path(), text)
        })
        .collect();
    let table = shapex_matlab::builtins::BuiltinTable::standard();
    let counts = calls::count(std::path::Path::new(&dir), &files, &table);
    let (b, d, w, u) = (
        counts.sites(Known::Builtin),
        counts.sites(Known::Defined),
        counts.sites(Known::Wild),
        counts.sites(Known::Unknown),
    );
    let all = (b + d + w + u).max(1);
    let pct = |n: usize| 100.0 * n as f64 / all as f64;
    // Wild calls are told apart, not counted as known: the analysis knows only that
    // what they may change is unknown.
    println!(
        "{} files, {all} call sites by name: builtin table {b} ({:.2} %), defined in the corpus {d} ({:.2} %), known {:.2} %, wild {w} ({:.2} %), unknown {u} ({:.2} %)",
        counts.files,
        pct(b),
        pct(d),
        pct(b + d),
        pct(w),
        pct(u)
    );
    let unknown = counts.called(Known::Unknown, min);
    println!(
        "{} unknown names called by at least {min} files:",
        unknown.len()
    );
    for (name, files, sites) in unknown {
        println!("{name} {files} {sites}");
    }
}
