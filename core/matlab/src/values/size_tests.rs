//! Issue #19, item 4: files of every size. A table of numbers is one statement with
//! the value, check and rules of the calls it stands for; a `switch` of thousands of
//! cases carries no case's temporaries into the others; the loop study's budget counts
//! the work of each iteration, so a loop over inputs of unknown size falls back to the
//! fixed point early while counted loops over known sizes are still simulated exactly.
//! These assert behaviour only: the times are `scripts/bench scaling`'s.

use super::tests::{errors, run};
use crate::samples::{font_table, number_table, FOURIER_SUM, SYMBOLIC_LOOP};
use shapex_report::{CheckStatus, Report, StatementReport};

/// The last statement that defines `name`.
fn defining<'a>(r: &'a Report, name: &str) -> &'a StatementReport {
    r.statements
        .iter()
        .rfind(|s| s.defs.iter().any(|d| d.name == name))
        .unwrap_or_else(|| panic!("no def of {name}"))
}

fn shape_of(r: &Report, name: &str) -> String {
    let s = defining(r, name);
    s.defs
        .iter()
        .rfind(|d| d.name == name)
        .map_or_else(String::new, |d| d.display.clone())
}

#[test]
fn a_table_of_numbers_gets_its_exact_shape() {
    let r = run(&number_table(40_000));
    assert_eq!(errors(&r), Vec::<String>::new());
    assert_eq!(shape_of(&r, "A"), "<400,100>");
    assert_eq!(shape_of(&r, "s"), "<1,2>");
    assert_eq!(defining(&r, "A").check, CheckStatus::Proven);
}

#[test]
fn a_table_reads_as_the_calls_it_stands_for() {
    // Two rows are lowered the Tamer's way (below `NUMBER_TABLE_MIN` elements); the
    // same rows repeated past it are one table, with the same check, rules and class.
    let rows = "-1 2 3.5 4i; 4 -5 6 -7";
    let small = run(&format!("A = [{rows}];\n"));
    let table = run(&format!(
        "A = [{rows}; {rows}; {rows}; {rows}; {rows}; {rows}; {rows}; {rows}];\n"
    ));
    let (s, t) = (defining(&small, "A"), defining(&table, "A"));
    assert_eq!(shape_of(&small, "A"), "<2,4>");
    assert_eq!(shape_of(&table, "A"), "<16,4>");
    assert_eq!(
        (s.check, &s.condition, &s.rule),
        (t.check, &t.condition, &t.rule)
    );
    assert_eq!(s.defs[0].class, t.defs[0].class);
    assert!(
        t.rule.as_deref().is_some_and(|r| r.contains("vertcat")),
        "{:?}",
        t.rule
    );
}

#[test]
fn the_known_elements_of_a_table_are_kept() {
    // A row of 40 integers is a table; a loop over it binds each element, so the
    // loop is simulated exactly and `x` ends as the last element says.
    let row: Vec<String> = (1..=40).map(|k| k.to_string()).collect();
    let r = run(&format!(
        "v = [{}];\nfor k = v\n  x = zeros(1, k);\nend\ny = x;\n",
        row.join(" ")
    ));
    assert_eq!(errors(&r), Vec::<String>::new());
    assert_eq!(shape_of(&r, "y"), "<1,40>");
}

#[test]
fn a_ragged_table_is_still_a_vertcat_error() {
    let row = "1 2 3 4 5 6 7 8";
    let r = run(&format!("A = [{row}; {row}; {row}; {row}; 1 2 3];\n"));
    let errs = errors(&r);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].starts_with("shape.vertcat"), "{errs:?}");
}

#[test]
fn a_font_table_switch_gives_every_glyph_its_shape() {
    let r = run(&font_table(300));
    assert_eq!(errors(&r), Vec::<String>::new());
    let glyphs: Vec<&str> = r
        .statements
        .iter()
        .flat_map(|s| &s.defs)
        .filter(|d| d.name == "g")
        .map(|d| d.display.as_str())
        .collect();
    assert_eq!(glyphs.len(), 301);
    assert!(glyphs.iter().all(|g| *g == "<7,5>"), "{glyphs:?}");
}

#[test]
fn the_loop_study_gives_up_by_budget_on_a_loop_over_unknown_sizes() {
    // Each iteration of `c = a.*b` on inputs adds a disjunction to the facts, so the
    // weighed budget runs out long before iteration 1,000: the shape after the loop is
    // the fixed point's join (`c~j…`), not the last iteration's (`…@1000`).
    let src = SYMBOLIC_LOOP.replace("end\nend\n", "end\nd = c;\nend\n");
    let r = run(&src);
    assert_eq!(errors(&r), Vec::<String>::new());
    assert_eq!(defining(&r, "c").check, CheckStatus::Runtime);
    let after = shape_of(&r, "d");
    assert!(after.contains("c~j") && !after.contains('@'), "{after}");
    // A short loop of the same body is still simulated through every iteration.
    let r = run(&src.replace("1:1000", "1:3"));
    assert_eq!(shape_of(&r, "d"), "<c~c1@3,c~c2@3,c~c3@3,…>");
}

#[test]
fn counted_loops_over_known_sizes_are_still_exact() {
    // No disjunction grows here: all 1,000 iterations are simulated.
    let r = run("x = [];\nfor k = 1:1000\n  x = [x k];\nend\ny = x;\n");
    assert_eq!(shape_of(&r, "y"), "<1,1000>");
    let r = run("a = zeros(3);\nfor k = 1:5\n  b = a(k, 1);\nend\n");
    let errs = errors(&r);
    assert!(
        errs.len() == 1 && errs[0].contains("fails on iteration 4 of the loop, when k = 4"),
        "{errs:?}"
    );
}

#[test]
fn a_fourier_sum_over_an_input_keeps_its_run_time_check() {
    let r = run(FOURIER_SUM);
    assert_eq!(errors(&r), Vec::<String>::new());
    assert_eq!(defining(&r, "s").check, CheckStatus::Runtime);
}
