//! Issue #25, item 4: one root error, not a cascade.

use crate::{Matlab as Analyzer, Mode};
use shapex_report::{CheckStatus, Report, Severity, ShapeView};

fn run(src: &str, mode: Mode) -> Report {
    Analyzer::new().analyze(src, &mode.options())
}

/// (line, check, whether some def is π) of every statement.
fn lines(r: &Report) -> Vec<(u32, CheckStatus, bool)> {
    r.statements
        .iter()
        .map(|s| {
            let illegal = s
                .defs
                .iter()
                .any(|d| matches!(d.shape, ShapeView::Illegal { .. }));
            (s.range.line, s.check, illegal)
        })
        .collect()
}

#[test]
fn only_the_root_error_is_reported_and_shown_illegal() {
    let programs = [
        // Straight line.
        "a = ones(3,4); b = ones(5,6);\nc = a*b;\nd = c + 1;\ne = c';\nf = d * 2;\n",
        // In a branch, used after the join.
        "a = ones(3,4); b = ones(5,6);\nif rand > 0.5\n  c = a*b;\n  d = c + 1;\nend\ne = c';\nf = d * 2;\n",
        // In a loop.
        "a = ones(3,4); b = ones(5,6);\nfor i = 1:3\n  c = a*b;\n  d = c + i;\nend\ne = d';\n",
        // In a function, as subscript and assigned value.
        "function r = f(n)\na = ones(3,4); b = ones(5,6);\nc = a*b;\ny = zeros(2);\ny(1,:) = c;\nr = a(c);\nend\n",
    ];
    for src in programs {
        for mode in [Mode::Modern, Mode::Paper] {
            let r = run(src, mode);
            let errors: Vec<_> = r
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .collect();
            assert_eq!(errors.len(), 1, "{mode:?} {src}: {errors:?}");
            let root = errors[0].range.line;
            for (line, check, illegal) in lines(&r) {
                if line == root {
                    assert_eq!((check, illegal), (CheckStatus::Error, true), "{src}");
                } else {
                    assert!(!illegal, "{mode:?} line {line} of {src}");
                    assert_ne!(check, CheckStatus::Error, "{mode:?} line {line} of {src}");
                }
            }
            let help = errors[0].help.as_deref().unwrap_or("");
            assert!(
                help.contains("Later lines that use `c` are not checked"),
                "{help}"
            );
            assert!(
                !r.diagnostics.iter().any(|d| d.message.contains('π')),
                "{mode:?} {src}: {:?}",
                r.diagnostics
            );
        }
    }
}

#[test]
fn independent_statements_are_still_checked() {
    let r = run(
        "a = ones(3,4); b = ones(5,6);\nc = a*b;\nd = c + 1;\ne = a*a;\n",
        Mode::Modern,
    );
    let errors: Vec<u32> = r
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.range.line)
        .collect();
    assert_eq!(errors, vec![2, 4]);
}

#[test]
fn the_note_is_given_once_per_statement() {
    // Two failing operations in one statement: two errors, one note.
    let r = run("a = ones(3,4);\nc = a*a + a*a;\n", Mode::Modern);
    let notes = r
        .diagnostics
        .iter()
        .filter(|d| d.help.as_deref().is_some_and(|h| h.contains("Later lines")))
        .count();
    assert_eq!(notes, 1, "{:?}", r.diagnostics);
}
