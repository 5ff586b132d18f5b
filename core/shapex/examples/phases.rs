//! Prints the time of each phase (parse, lower, whole analysis, JSON both ways) for
//! one file: `cargo run --release -p shapex --example phases -- FILE.m`. For profiling.

use std::time::Instant;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let src = std::fs::read_to_string(path).unwrap();
    let t = Instant::now();
    let parsed = shapex_matlab_syntax::parse(&src);
    let t_parse = t.elapsed();
    let t = Instant::now();
    let lowered = shapex_matlab::tame::lower(&parsed.file);
    let t_lower = t.elapsed();
    let table = shapex_matlab::builtins::BuiltinTable::standard();
    let t = Instant::now();
    let result = shapex_matlab::values::analyze_program(
        &lowered.program,
        &table,
        shapex_matlab::Mode::Modern,
    );
    let t_values = t.elapsed();
    let t = Instant::now();
    let mut report = shapex::Report::default();
    let mut statements = Vec::new();
    shapex_matlab::values::fill_report(&src, &result, &mut statements, &mut report.diagnostics);
    let t_fill = t.elapsed();
    let a = shapex::Analyzer::new();
    let t = Instant::now();
    let r = a.analyze(&src, &shapex::Options::new("matlab"));
    let t_all = t.elapsed();
    let t = Instant::now();
    let json = serde_json::to_string(&r).unwrap();
    let t_json = t.elapsed();
    let t = Instant::now();
    let _back: shapex::Report = serde_json::from_str(&json).unwrap();
    let t_back = t.elapsed();
    println!("parse {t_parse:?} lower {t_lower:?} values {t_values:?} fill(no statements) {t_fill:?} (functions {}) analyze-all {t_all:?} to-json {t_json:?} ({} bytes) from-json {t_back:?}", lowered.program.functions.len(), json.len());
    // Incremental: the same file after one keystroke in its middle.
    let mut session = shapex::Session::default();
    let options = shapex::Options::new("matlab");
    let _ = a.analyze_in(&mut session, &src, &options);
    let middle = src.len() / 2;
    let at = src[middle..].find('\n').map_or(src.len(), |n| middle + n);
    let edited = format!("{} {}", &src[..at], &src[at..]);
    let t = Instant::now();
    let again = a.analyze_in(&mut session, &edited, &options);
    let t_again = t.elapsed();
    let fresh = a.analyze(&edited, &options);
    println!(
        "after one keystroke: incremental {t_again:?} (same as a full analysis: {})",
        serde_json::to_string(&again).ok() == serde_json::to_string(&fresh).ok()
    );
}
