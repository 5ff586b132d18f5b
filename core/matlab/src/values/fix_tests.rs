//! Issue #25, item 5: a fix one click away — the matrix operator written where the
//! element-wise one conforms.

use crate::{Matlab as Analyzer, Mode};
use shapex_report::{Diagnostic, Report, Severity};

fn run(src: &str, mode: Mode) -> Report {
    let mut r = Analyzer::new().analyze(src, &mode.options());
    r.resolve_positions(src);
    r
}

fn errors(r: &Report) -> Vec<&Diagnostic> {
    r.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect()
}

#[test]
fn applying_the_fix_makes_the_error_go_away() {
    let cases = [
        ("a = ones(3,4); b = ones(3,4);\nc = a * b;\n", "c = a .* b;"),
        (
            "a = ones(3,4);\nc = (a + 1)*(a - 1);\n",
            "c = (a + 1).*(a - 1);",
        ),
        ("x = 1:5;\ny = x^2;\n", "y = x.^2;"),
        ("x = 1:5;\ny = 1 / x;\n", "y = 1 ./ x;"),
        ("x = (1:5)';\ny = x \\ 1;\n", "y = x .\\ 1;"),
        (
            "a = ones(3,4);\nc = a ...  the product * of two\n  * a;\n",
            "  .* a;",
        ),
    ];
    for (src, fixed_line) in cases {
        for mode in [Mode::Modern, Mode::Paper] {
            let r = run(src, mode);
            let e = errors(&r);
            assert_eq!(e.len(), 1, "{mode:?} {src}: {e:?}");
            let fix = e[0].fix.as_ref().unwrap_or_else(|| panic!("no fix: {src}"));
            assert!(fix.title.starts_with("use element-wise ."), "{}", fix.title);
            // The fix's range is resolved like the diagnostic's, on the operator.
            assert!(fix.range.line >= 1 && fix.range.end_col > fix.range.col);
            let fixed = fix.apply(src);
            assert!(fixed.lines().any(|l| l == fixed_line), "{fixed}");
            let after = run(&fixed, mode);
            assert_eq!(errors(&after), Vec::<&Diagnostic>::new(), "{fixed}");
        }
    }
}

#[test]
fn no_fix_where_element_wise_would_not_conform() {
    for src in [
        "a = ones(3,4); b = ones(5,6);\nc = a * b;\n",
        // Only by implicit expansion: not offered.
        "a = ones(3,4); b = ones(1,4);\nc = a * b;\n",
        // Element-wise already: nothing to switch to.
        "a = ones(3,4); b = ones(4,3);\nc = a .* b;\n",
    ] {
        let r = run(src, Mode::Modern);
        let e = errors(&r);
        assert!(!e.is_empty(), "{src}");
        assert!(e.iter().all(|d| d.fix.is_none()), "{src}: {e:?}");
    }
}

#[test]
fn a_transpose_that_conforms_is_a_hint() {
    let r = run("a = ones(3,4); b = ones(3,5);\nc = a * b;\n", Mode::Modern);
    let e = errors(&r);
    assert_eq!(e.len(), 1);
    assert!(e[0].fix.is_none());
    let help = e[0].help.as_deref().unwrap();
    assert!(
        help.contains("Did you mean to transpose the left operand? <4,3> * <3,5> conforms."),
        "{help}"
    );
    let r = run("a = ones(3,4); b = ones(5,4);\nc = a * b;\n", Mode::Modern);
    let help = errors(&r)[0].help.as_deref().unwrap().to_string();
    assert!(help.contains("transpose the right operand"), "{help}");
}

#[test]
fn the_fix_is_in_the_report_json_only_when_there_is_one() {
    let r = run("a = ones(3,4);\nc = a * a;\n", Mode::Modern);
    let json = serde_json::to_value(&r).unwrap();
    let fix = &json["diagnostics"][0]["fix"];
    assert_eq!(fix["replacement"], ".*");
    assert_eq!(fix["line"], 2);
    assert_eq!(fix["col"], 7);
    let r = run("a = ones(3,4);\nc = a * ones(5);\n", Mode::Modern);
    let json = serde_json::to_value(&r).unwrap();
    assert!(json["diagnostics"][0].get("fix").is_none(), "{json}");
}
