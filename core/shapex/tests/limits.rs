//! The whole pipeline at the front end's nesting limits: what the syntax tests parse,
//! the analyses must also get through (without exhausting a test thread's stack).

use shapex::{analyze, Options};

/// The `<…>` shape the analysis gives variable `name` (its last definition).
fn analysed_shape(src: &str, name: &str) -> String {
    let report = analyze(src, &Options::new("matlab"));
    assert!(report.parse_ok, "{:#?}", report.diagnostics);
    report
        .statements
        .iter()
        .flat_map(|s| &s.defs)
        .rfind(|d| d.name == name)
        .map(|d| d.display.clone())
        .unwrap_or_else(|| panic!("{name} is not defined: {:#?}", report.statements))
}

#[test]
fn code_after_ten_thousand_nested_block_comments_is_analysed() {
    let n = 10_000;
    let src = format!(
        "{}{}x = 1;\ny = [x x]'\n",
        "%{\n".repeat(n),
        "%}\n".repeat(n)
    );
    assert_eq!(analysed_shape(&src, "y"), "<2,1>");
}

#[test]
fn ten_thousand_continued_lines_are_one_error_and_the_rest_is_analysed() {
    let n = 10_000;
    let src = format!("x = 1{};\ny = x + 1;\n", " + ...\n  1".repeat(n));
    let report = analyze(&src, &Options::new("matlab"));
    assert!(!report.parse_ok);
    assert_eq!(report.statements.len(), 2);
}

#[test]
fn deepest_accepted_expressions_are_analysed() {
    let d = 256; // a leaf is depth 1
    let exprs = [
        format!("1{}", "+1".repeat(d - 1)),
        format!("{}1", "-".repeat(d - 1)),
        format!("s{}", ".f".repeat(d - 1)),
        format!("1{}", "^-1".repeat((d - 1) / 2)),
        format!("{}1{}", "(".repeat(64), ")".repeat(64)),
        format!("{}1{}", "{".repeat(64), "}".repeat(64)),
        format!("{}1", "@() ".repeat(64)),
    ];
    let ifs = "if a\n".repeat(31);
    let ends = "end\n".repeat(31);
    let body: String = exprs.iter().map(|e| format!("r = {e};\n")).collect();
    let src = format!("function r = f(a, s)\n{ifs}{body}{ends}r = 1;\nend\n");
    assert_eq!(analysed_shape(&src, "r"), "<1,1>");
}
