//! The analysis core compiled to wasm32 and run in a real browser (headless Chromium
//! via `wasm-bindgen-test-runner`, see `scripts/test`): the app runs exactly this code,
//! so positions, serialization and error recovery must hold there, not only natively.
#![cfg(target_arch = "wasm32")]

use shapex::report::{Diagnostic, Range, Report};
use shapex::{analyze, Options, Severity, Span};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// An unclosed parenthesis on line 3; lines 1–2 and 4 are fine.
const UNCLOSED_PAREN_ON_LINE_3: &str = "a = [1 2; 3 4];\nb = a';\nc = (a + 1\nd = 2;\n";

#[wasm_bindgen_test]
fn syntax_error_is_reported_on_its_line() {
    let report = analyze(UNCLOSED_PAREN_ON_LINE_3, &Options::new("matlab"));
    assert!(!report.parse_ok, "an unclosed '(' must fail the parse");
    let errors: Vec<&Diagnostic> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(!errors.is_empty(), "expected a syntax error, got none");
    assert_eq!(errors[0].range.line, 3, "first error: {:?}", errors[0]);
}

#[wasm_bindgen_test]
fn fixed_program_has_no_errors() {
    let fixed = UNCLOSED_PAREN_ON_LINE_3.replace("(a + 1\n", "(a + 1)\n");
    let report = analyze(&fixed, &Options::new("matlab"));
    assert!(report.parse_ok, "diagnostics: {:?}", report.diagnostics);
    assert!(report
        .diagnostics
        .iter()
        .all(|d| d.severity != Severity::Error));
}

/// Line/column resolution (what the editor gutter uses) counts characters, not bytes,
/// in wasm as natively: the span below starts at byte 10, which is line 2, column 4
/// because 'é' and 'ß' are two bytes each.
#[wasm_bindgen_test]
fn positions_resolve_to_character_columns() {
    let source = "x=1;\né=ßb;\n";
    let start = source.find('b').unwrap();
    let mut report = Report {
        diagnostics: vec![Diagnostic::error(
            "test.here",
            "here",
            Span::new(start, start + 1),
        )],
        ..Default::default()
    };
    report.resolve_positions(source);
    let r = report.diagnostics[0].range;
    assert_eq!(
        r,
        Range {
            line: 2,
            col: 4,
            end_line: 2,
            end_col: 5
        }
    );
}

/// The app hands the report to the UI as JSON; it must round-trip in wasm.
#[wasm_bindgen_test]
fn report_round_trips_through_json() {
    let report = analyze(UNCLOSED_PAREN_ON_LINE_3, &Options::new("matlab"));
    let json = serde_json::to_string(&report).expect("serialize");
    let back: Report = serde_json::from_str(&json).expect("deserialize");
    assert_eq!(back.diagnostics, report.diagnostics);
    assert_eq!(back.parse_ok, report.parse_ok);
}

/// Hostile input must not panic (a panic in wasm kills the whole page).
#[wasm_bindgen_test]
fn hostile_input_does_not_panic() {
    for src in [
        "",
        "\u{0}",
        "((((((((((",
        "end end end",
        "'",
        "a(:,:,:,:)=[",
        "%{\n",
    ] {
        let _ = analyze(src, &Options::new("matlab"));
    }
}
