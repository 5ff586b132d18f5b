//! Fuzz target: any bytes, read as UTF-8 (lossily), through `shapex::analyze`
//! with default options. `analyze` must return for every input without panicking,
//! hanging or exhausting memory (ARCHITECTURE.md, Invariants). Run with scripts/fuzz.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shapex::{Analyzer, Options};
use std::sync::OnceLock;

/// One analyzer for the whole run: building the builtin table is the largest fixed
/// cost of a call, and `Analyzer` keeps no state between calls.
static ANALYZER: OnceLock<Analyzer> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let source = String::from_utf8_lossy(data);
    let analyzer = ANALYZER.get_or_init(Analyzer::new);
    let report = analyzer.analyze(&source, &Options::default());
    // Spans index the text: every diagnostic's must lie within it.
    for d in &report.diagnostics {
        assert!(d.span.start <= d.span.end && d.span.end <= source.len());
    }
});
