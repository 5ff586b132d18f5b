//! The Values view (`values_table`) and the IR view's source lines, read from whole
//! reports: what a reader of each tab sees.

use super::tests::run;
use shapex_report::view::{CellValue, Payload, Table};
use shapex_report::{Notation, Report};

/// The Values view's rows as `line label | values`, in the `3×4` notation.
fn rows(r: &Report) -> Vec<String> {
    let Some(Payload::Table(Table { columns, rows })) = r.view(crate::VALUES) else {
        panic!("MATLAB fills the Values view as a table");
    };
    assert_eq!(columns, &["values"]);
    rows.iter()
        .map(|row| {
            let [cell] = row.cells.as_slice() else {
                panic!("one cell per row: {row:?}")
            };
            let CellValue::Text(text) = &cell.value else {
                panic!("values are text: {cell:?}")
            };
            format!(
                "{} {} | {}",
                row.line,
                row.label,
                Notation::Times.rewrite(text)
            )
        })
        .collect()
}

#[test]
fn each_defining_statement_shows_its_variables_values() {
    let r = run("x = zeros(3,4);\nn = 7;\ns = 'hello';\nf = @sin;\n");
    assert_eq!(
        rows(&r),
        [
            "1 x = zeros(3,4) | x: double 3×4",
            "2 n = 7 | n: double 1×1 = 7",
            "3 s = 'hello' | s: char 1×5 = 'hello'",
            "4 f = @sin | f: function_handle = @sin",
        ]
    );
}

#[test]
fn temporaries_never_show() {
    // `a * b + c` lowers through temporaries (`mc_t…`); only `y` is the reader's.
    let r = run("a = ones(2,3);\nb = ones(3,2);\ny = a * b + 1;\n[m, k] = size(y);\n");
    let rows = rows(&r);
    assert_eq!(rows[2], "3 y = a * b + 1 | y: double 2×2");
    assert_eq!(
        rows[3],
        "4 [m, k] = size(y) | m: double 1×1 = 2; k: double 1×1 = 2"
    );
    let prefix = crate::tame::TEMP_PREFIX;
    assert!(rows.iter().all(|r| !r.contains(prefix)), "{rows:#?}");
}

#[test]
fn a_failing_statement_shows_illegal_and_one_no_run_reaches_shows_nothing() {
    let r = run("a = ones(2,3);\nb = a * a;\nc = 1;\nerror('stop');\nd = 2;\n");
    assert_eq!(
        rows(&r),
        [
            "1 a = ones(2,3) | a: double 2×3",
            "2 b = a * a | b: ? π",
            "3 c = 1 | c: double 1×1 = 1",
        ]
    );
}

#[test]
fn a_value_known_only_as_its_own_symbol_shows_none() {
    let r = run("n = 7;\nfor i = 1:n\n  m = i + n;\nend\n");
    let rows = rows(&r);
    assert_eq!(rows[1], "2 for i = 1:n | i: double 1×1", "{rows:#?}");
    assert_eq!(rows[2], "3 m = i + n | m: double 1×1", "{rows:#?}");
}

#[test]
fn the_values_view_follows_shapes_and_every_offered_view_is_filled() {
    let r = run("n = 7;\n");
    let ids: Vec<&str> = r.views.iter().map(|v| v.id.as_str()).collect();
    assert_eq!(ids[..2], ["shapes", crate::VALUES]);
    let info = shapex_report::Language::info(&crate::Matlab::new())
        .views
        .clone();
    let offered: Vec<&str> = info.iter().map(|v| v.id).collect();
    assert_eq!(offered, ids, "every view offered is filled, in tab order");
}

#[test]
fn every_ir_line_knows_its_source_lines() {
    let src = "x = 1;\nif x > 0\n  y = x + ...\n      2;\nend\nfunction z = g(w)\n  z = w;\nend\n";
    let r = run(src);
    let Some(Payload::Text(ir)) = r.view("ir") else {
        panic!("MATLAB fills the IR view");
    };
    let lines: Vec<&str> = ir.text.lines().collect();
    assert_eq!(lines.len(), ir.sources.len(), "one entry per line");
    let of = |needle: &str| {
        let i = lines
            .iter()
            .position(|l| l.trim_start().starts_with(needle))
            .unwrap_or_else(|| panic!("no {needle:?} in\n{}", ir.text));
        ir.sources[i]
    };
    assert_eq!(of("x = 1"), Some((1, 1)));
    // A compound statement's own line is its first; its `end` stands for no line.
    assert_eq!(of("if "), Some((2, 2)));
    assert_eq!(of("end"), None);
    // A statement continued over two lines comes from both.
    assert_eq!(of("y = plus"), Some((3, 4)));
    assert_eq!(of("function z = g(w)"), Some((6, 6)));
    assert_eq!(of("z = w"), Some((7, 7)));
    // A source line highlights the IR lines lowered from it: line 4 holds the `2`,
    // which a temporary takes, and both lines hold the sum.
    let from = |line: u32| -> Vec<&str> {
        (0..lines.len())
            .filter(|&i| ir.from_line(i, line))
            .map(|i| lines[i].trim())
            .collect()
    };
    let sum = "y = plus(x, ";
    assert!(
        matches!(from(3)[..], [l] if l.starts_with(sum)),
        "{:?}",
        from(3)
    );
    let prefix = crate::tame::TEMP_PREFIX;
    assert!(
        matches!(from(4)[..], [t, l] if t.starts_with(prefix) && t.ends_with("= 2;") && l.starts_with(sum)),
        "{:?}",
        from(4)
    );
}

/// Issue #22 item 3: a variable whose class differs on two joined paths shows the
/// union of its classes, flagged not tame; one path's class alone shows as before.
#[test]
fn a_class_that_differs_between_paths_shows_as_a_union() {
    let r = run("function f(c)\nif c\n  x = 1;\nelse\n  x = 'a';\nend\ny = x;\nend\n");
    let shown = rows(&r);
    assert!(
        shown.contains(&"7 y = x | y: double|char 1×1 (not tame)".to_string()),
        "{shown:?}"
    );
    let r = run("function f(c)\nif c\n  x = 1;\nelse\n  x = 2;\nend\ny = x;\nend\n");
    assert!(rows(&r)
        .iter()
        .any(|l| l.starts_with("7 y = x | y: double 1×1")));
}

#[test]
fn a_value_names_its_unknowns_as_the_shapes_do_with_their_legend() {
    let r = run("x = rand(3, 1) > 0.5;\ny = find(x);\nn = numel(y) + 1;\n");
    let Some(Payload::Table(Table { rows: table, .. })) = r.view(crate::VALUES) else {
        panic!("MATLAB fills the Values view as a table");
    };
    let shown = rows(&r);
    assert_eq!(shown[1], "2 y = find(x) | y: double ?₁×1", "{shown:#?}");
    assert_eq!(
        shown[2], "3 n = numel(y) + 1 | n: double 1×1 = ?₁+1",
        "{shown:#?}"
    );
    let title = &table[2].cells[0].title;
    assert!(
        title.starts_with("?₁ = "),
        "the legend says what ?₁ is: {title:?}"
    );
}
