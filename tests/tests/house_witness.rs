//! Repros of the languages that run nowhere but here (issue #26 item 3).
//!
//! VEC: a program has one run, which the house performs (Sekanina's big-step
//! semantics, `shapex_vec::evaluate`), so a VEC repro is runnable here. Every VEC
//! fixture is analysed with witnesses on; each repro is written into the program and
//! the program analysed again: the repro's definition must be a shape error — the
//! evaluation fails there — and nothing before it may change. The evaluator is the
//! oracle of the SIZE_C simplification that found the check: they share no code past
//! the parser.
//!
//! Migeed's core calculus does not run at all: a run-time check's repro writes the
//! failing sizes into the declarations, and the gradual checker must then report a
//! definite error in that statement.

use shapex::report::{CheckStatus, Severity};
use shapex_tests::witness::fixture_repros;

/// Fewer repros than these over the fixtures means witnesses were lost.
const MIN_CASES: usize = 2;
const MIN_CALCULUS_CASES: usize = 3;

#[test]
fn every_vec_repro_makes_the_program_fail_on_its_definition() {
    let cases = fixture_repros("vec", "vec", "vec");
    assert!(
        cases.len() >= MIN_CASES,
        "only {} VEC repros over the fixtures",
        cases.len()
    );
    let mut wrong = Vec::new();
    for c in &cases {
        let after = shapex::analyze(&c.repro, &c.spec.options());
        // The repro's `def` line: the inserted text's line after its comment.
        let (fix, def_line) = (&c.fix, c.fix.range.line + 1);
        let at = after.statements.iter().find(|t| t.range.line == def_line);
        let shape_error = after.diagnostics.iter().any(|d| {
            d.range.line == def_line
                && d.severity == Severity::Error
                && matches!(d.code.as_str(), "vec.shape.error" | "vec.eval.shape-error")
        });
        let earlier = |r: &'_ shapex::report::Report| {
            r.diagnostics
                .iter()
                .filter(|d| d.range.line < fix.range.line)
                .cloned()
                .collect::<Vec<_>>()
        };
        let before_unchanged = earlier(&after) == earlier(&c.report);
        if !(at.is_some_and(|t| t.check == CheckStatus::Error) && shape_error && before_unchanged) {
            wrong.push(format!(
                "{}:{}: the repro\n{}\ndoes not fail on its definition:\n{:#?}",
                c.fixture, c.line, fix.replacement, after.diagnostics
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn every_calculus_repro_makes_its_check_a_definite_error() {
    let cases = fixture_repros("py", "py/core", "gt");
    assert!(
        cases.len() >= MIN_CALCULUS_CASES,
        "only {} calculus repros over the fixtures",
        cases.len()
    );
    let mut wrong = Vec::new();
    for c in &cases {
        let after = shapex::analyze(&c.repro, &c.spec.options());
        // Rewriting the declarations keeps the statements, in order.
        let kind = &c.report.statements[c.index].kind;
        let again = after.statements.get(c.index).filter(|s| &s.kind == kind);
        let dyn_left = c.fix.replacement.contains("Dyn");
        if dyn_left || again.is_none_or(|s| s.check != CheckStatus::Error) {
            wrong.push(format!(
                "{}:{}: the repro {:?} leaves {:?}",
                c.fixture,
                c.line,
                c.fix.replacement,
                again.map(|s| s.check)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
