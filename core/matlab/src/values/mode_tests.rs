//! Issue #25, item 3: a definite error of one semantics mode only says so.

use crate::{Matlab as Analyzer, Mode};
use shapex_report::{Diagnostic, Severity};

fn errors(src: &str, mode: Mode) -> Vec<Diagnostic> {
    Analyzer::new()
        .analyze(src, &mode.options())
        .diagnostics
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect()
}

#[test]
fn a_paper_error_that_modern_broadcasts_says_so() {
    for src in [
        "x = [1 2 3] + [1; 2];\n",
        "a = ones(3, 1); b = ones(1, 4); c = a .* b;\n",
        "a = ones(3, 4); c = max(a, ones(1, 4));\n",
        "a = ones(3, 4); f = @plus; c = f(a, ones(3, 1));\n",
    ] {
        let e = errors(src, Mode::Paper);
        assert_eq!(e.len(), 1, "{src}: {e:?}");
        assert!(
            e[0].message
                .contains("(in MATLAB 5 semantics; MATLAB R2016b+ broadcasts these)"),
            "{src}: {}",
            e[0].message
        );
        assert!(
            e[0].help.as_deref().unwrap().contains("mode = modern"),
            "{:?}",
            e[0].help
        );
        assert_eq!(errors(src, Mode::Modern), vec![], "{src}");
    }
}

#[test]
fn an_error_of_both_modes_names_neither() {
    for src in [
        "x = [1 2 3] + [1 2];\n",
        "a = ones(3, 4); b = ones(5, 6); c = a*b;\n",
        "x = [ones(2, 3); ones(2, 4)];\n",
    ] {
        for mode in [Mode::Paper, Mode::Modern] {
            let e = errors(src, mode);
            assert_eq!(e.len(), 1, "{src} {mode:?}: {e:?}");
            assert!(!e[0].message.contains("MATLAB 5"), "{}", e[0].message);
            assert!(!e[0].message.contains("R2016b"), "{}", e[0].message);
            assert!(!e[0].help.as_deref().unwrap().contains("mode ="));
        }
    }
}

#[test]
fn an_open_modern_case_is_a_possibility_not_a_promise() {
    // b's second extent is unknown: R2016b+ broadcasts only if it is 3 or 1. (A count:
    // `ones(4, n)` of an input n might be `ones(4, 'single')`, of unknown class.)
    let src = "function f(n)\nm = numel(n);\na = ones(3, 1); b = ones(4, m); c = a + b';\nend\n";
    let e = errors(src, Mode::Paper);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].message.contains(
            "(in MATLAB 5 semantics; MATLAB R2016b+ may broadcast these (checked at run time))"
        ),
        "{}",
        e[0].message
    );
    assert_eq!(errors(src, Mode::Modern), vec![]);
}
