//! Fuzz target: any bytes, read as UTF-8 (lossily), through `shapex::analyze`
//! with default options. `analyze` must return for every input without panicking,
//! hanging or exhausting memory (ARCHITECTURE.md, Invariants). And incremental
//! re-analysis must give the same report: the text is also analysed in a `Session`
//! that saw it first without its middle third (an edit that inserts that third), and
//! so is a longer script made of the input three times, edited inside its second copy
//! (where the analysis resumes after the unchanged statements before the edit).
//! Run with scripts/fuzz.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shapex::{Analyzer, Options, Session};
use std::sync::OnceLock;

/// One analyzer for the whole run: building the builtin table is the largest fixed
/// cost of a call, and `Analyzer` keeps no state between calls.
static ANALYZER: OnceLock<Analyzer> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let source = String::from_utf8_lossy(data);
    let analyzer = ANALYZER.get_or_init(Analyzer::new);
    let report = analyzer.analyze(&source, &Options::new("matlab"));
    // Spans index the text: every diagnostic's must lie within it.
    for d in &report.diagnostics {
        assert!(d.span.start <= d.span.end && d.span.end <= source.len());
    }
    let boundary = |mut i: usize| {
        while !source.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let (a, b) = (boundary(source.len() / 3), boundary(2 * source.len() / 3));
    let before = format!("{}{}", &source[..a], &source[b..]);
    let mut session = Session::default();
    analyzer.analyze_in(&mut session, &before, &Options::new("matlab"));
    let again = analyzer.analyze_in(&mut session, &source, &Options::new("matlab"));
    // Debug text, so that a NaN compares equal to itself.
    assert_eq!(format!("{again:?}"), format!("{report:?}"), "incremental differs");
    let long = format!("{source}\n{source}\n{source}");
    let edited = format!("{source}\n{before}\n{source}");
    let mut session = Session::default();
    analyzer.analyze_in(&mut session, &edited, &Options::new("matlab"));
    let again = analyzer.analyze_in(&mut session, &long, &Options::new("matlab"));
    let fresh = analyzer.analyze(&long, &Options::new("matlab"));
    assert_eq!(format!("{again:?}"), format!("{fresh:?}"), "incremental differs in a long script");
});
