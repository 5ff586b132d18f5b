//! VEC witnesses run (issue #26 item 3): a VEC program has one run, which the house
//! performs (Sekanina's big-step semantics, `shapex_vec::evaluate`), so a VEC repro is
//! runnable here. Every VEC fixture is analysed with witnesses on; each repro is
//! written into the program and the program analysed again: the repro's definition
//! must be a shape error — the evaluation fails there — and nothing before it may
//! change. The evaluator is the oracle of the SIZE_C simplification that found the
//! check: they share no code past the parser.

use shapex::report::{CheckStatus, Severity};
use shapex_tests::{display_path, files_with_ext, fixtures_dir, language, FixtureSpec};

/// Fewer repros than this over the VEC fixtures means witnesses were lost.
const MIN_CASES: usize = 2;

#[test]
fn every_vec_repro_makes_the_program_fail_on_its_definition() {
    let vec = language("vec");
    let (mut cases, mut wrong) = (0, Vec::new());
    for path in files_with_ext(&fixtures_dir().join("vec"), "vec") {
        let source = std::fs::read_to_string(&path).expect("fixture reads");
        let spec = FixtureSpec::parse(&source, &vec);
        let options = shapex::Options {
            witness: true,
            ..spec.options()
        };
        let report = shapex::analyze(&source, &options);
        for s in &report.statements {
            let Some(fix) = s.witness.as_ref().and_then(|w| w.repro.as_ref()) else {
                continue;
            };
            cases += 1;
            let mut repro = source.clone();
            repro.replace_range(fix.span.start..fix.span.end, &fix.replacement);
            let after = shapex::analyze(&repro, &spec.options());
            // The repro's `def` line: the inserted text's line after its comment.
            let def_line = fix.range.line + 1;
            let at = after.statements.iter().find(|t| t.range.line == def_line);
            let shape_error = after.diagnostics.iter().any(|d| {
                d.range.line == def_line
                    && d.severity == Severity::Error
                    && matches!(d.code.as_str(), "vec.shape.error" | "vec.eval.shape-error")
            });
            let before_unchanged = after
                .diagnostics
                .iter()
                .filter(|d| d.range.line < fix.range.line)
                .eq(report
                    .diagnostics
                    .iter()
                    .filter(|d| d.range.line < fix.range.line));
            if !(at.is_some_and(|t| t.check == CheckStatus::Error)
                && shape_error
                && before_unchanged)
            {
                wrong.push(format!(
                    "{}:{}: the repro\n{}\ndoes not fail on its definition:\n{:#?}",
                    display_path(&path),
                    s.range.line,
                    fix.replacement,
                    after.diagnostics
                ));
            }
        }
    }
    assert!(
        cases >= MIN_CASES,
        "only {cases} VEC repros over the fixtures"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}
