//! Octave differential suite: straight-line programs with concrete sizes run in ONE
//! `octave-cli` process; every definite shape and definite error in our Report must
//! agree with what Octave observed (modern mode: Octave broadcasts).
//!
//! Programs: `GENERATED` seeded programs from `shapex_tests::gen`, plus every fixture
//! under `tests/fixtures/` whose header says `% differential`.
//!
//! Besides the analysis itself, the harness is checked independently: Octave must
//! report an outcome for every program, the generator's own size model must agree
//! with Octave, and a fake Report built from that model must pass while a
//! deliberately wrong one is caught.

use shapex_core::report::{
    CheckStatus, Def, DimView, Lang, Mode, Options, Range, Report, ShapeView, StatementReport,
};
use shapex_tests::gen::{self, Program};
use shapex_tests::octave::{self, DiffProgram, Observed};
use shapex_tests::{display_path, files_with_ext, fixtures_dir, FixtureSpec};
use std::sync::OnceLock;
use std::time::Instant;

const SEED: u64 = 0x5a4e_2000;
const GENERATED: usize = 300;

struct Suite {
    generated: Vec<Program>,
    programs: Vec<DiffProgram>,
    observed: Vec<Observed>,
}

/// Runs Octave once for all tests in this binary; `None` when it is not installed.
fn suite() -> Option<&'static Suite> {
    static SUITE: OnceLock<Option<Suite>> = OnceLock::new();
    SUITE
        .get_or_init(|| {
            let Some(octave) = octave::octave_cli() else {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "octave-cli not found, and CI is set: the differential suite must run"
                );
                eprintln!("skipped: octave-cli not found");
                return None;
            };
            let generated = gen::generate(SEED, GENERATED);
            let mut programs: Vec<DiffProgram> =
                generated.iter().map(DiffProgram::from_generated).collect();
            programs.extend(differential_fixtures());
            let start = Instant::now();
            let observed = octave::run(&octave, &programs).expect("octave-cli runs");
            eprintln!(
                "octave-cli ran {} programs in {:.1?}",
                programs.len(),
                start.elapsed()
            );
            Some(Suite {
                generated,
                programs,
                observed,
            })
        })
        .as_ref()
}

fn differential_fixtures() -> Vec<DiffProgram> {
    files_with_ext(&fixtures_dir(), "m")
        .into_iter()
        .filter_map(|path| {
            let source = std::fs::read_to_string(&path).ok()?;
            let spec = FixtureSpec::parse(&source);
            (spec.differential && spec.mode == Mode::Modern)
                .then(|| DiffProgram::from_source(&display_path(&path), &source))
        })
        .collect()
}

fn analyze(source: &str) -> Report {
    shapex_core::analyze(
        source,
        &Options {
            lang: Lang::Matlab,
            mode: Mode::Modern,
        },
    )
}

fn render(prog: &DiffProgram, obs: &Observed, problems: &[String]) -> String {
    let numbered: Vec<String> = prog
        .source
        .lines()
        .enumerate()
        .map(|(i, l)| format!("  {:>3} | {l}", i + 1))
        .collect();
    let octave = match &obs.error {
        Some(e) => format!("Octave: error at line {}: {}", e.line, e.message),
        None => "Octave: no error".to_string(),
    };
    format!(
        "--- {} ({octave})\n{}\n{}",
        prog.name,
        problems
            .iter()
            .map(|p| format!("  ! {p}"))
            .collect::<Vec<_>>()
            .join("\n"),
        numbered.join("\n")
    )
}

#[test]
fn octave_reports_an_outcome_for_every_program() {
    let Some(s) = suite() else { return };
    let silent: Vec<&str> = s
        .programs
        .iter()
        .zip(&s.observed)
        .filter(|(_, o)| o.finished == o.error.is_some())
        .map(|(p, _)| p.name.as_str())
        .collect();
    assert!(
        silent.is_empty(),
        "no single outcome from Octave for {silent:?}"
    );
    for (p, o) in s.programs.iter().zip(&s.observed) {
        let last = o.error.as_ref().map_or(u32::MAX, |e| e.line);
        for st in p.stmts.iter().filter(|st| st.line < last) {
            for name in &st.assigns {
                assert!(
                    o.sizes.contains_key(&(st.line, name.clone())),
                    "{}: no size for {name} at line {}",
                    p.name,
                    st.line
                );
            }
        }
    }
    let failing = s.observed.iter().filter(|o| o.error.is_some()).count();
    eprintln!("{failing} of {} programs fail in Octave", s.programs.len());
}

/// The generator's size model is an independent, simple re-implementation; where it
/// predicts a size, Octave must agree, and injected errors must be where Octave fails.
#[test]
fn generator_model_agrees_with_octave() {
    let Some(s) = suite() else { return };
    let mut problems = Vec::new();
    for (p, o) in s.generated.iter().zip(&s.observed) {
        let fail = o.error.as_ref().map(|e| e.line);
        if fail != p.injected_line() {
            problems.push(format!(
                "{}: injected error at {:?}, Octave fails at {:?} ({:?})\n{}",
                p.name,
                p.injected_line(),
                fail,
                o.error.as_ref().map(|e| &e.message),
                p.source()
            ));
            continue;
        }
        if let Some(e) = o.error.as_ref().filter(|e| !e.is_shape_error()) {
            problems.push(format!("{}: not a shape error: {}", p.name, e.message));
        }
        for (i, st) in p.stmts.iter().enumerate() {
            let line = i as u32 + 1;
            let (Some(want), Some(name)) = (&st.predicted, st.assigns.first()) else {
                continue;
            };
            let Some(have) = o.sizes.get(&(line, name.clone())) else {
                continue;
            };
            let want: Vec<i64> = gen::canonical(want.clone())
                .iter()
                .map(|&d| d as i64)
                .collect();
            if want != *have {
                problems.push(format!(
                    "{}:{line}: `{}` model {want:?}, Octave {have:?}",
                    p.name, st.text
                ));
            }
        }
    }
    let injected = s
        .generated
        .iter()
        .filter(|p| p.injected_line().is_some())
        .count();
    eprintln!(
        "{injected} of {} generated programs inject a shape error",
        s.generated.len()
    );
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// A Report built from the generator's model (which the test above checks against
/// Octave) passes the comparison; a wrong shape or a misplaced error is caught.
#[test]
fn fake_model_reports_pass_and_wrong_ones_are_caught() {
    let Some(s) = suite() else { return };
    for (p, o) in s.generated.iter().zip(&s.observed).take(60) {
        let prog = DiffProgram::from_generated(p);
        let mut report = model_report(p);
        let problems = octave::compare(&prog, &report, o);
        assert!(problems.is_empty(), "{}: {problems:?}", p.name);
        let Some(i) = report.statements.iter().position(|st| {
            st.range.line < o.error.as_ref().map_or(u32::MAX, |e| e.line)
                && st
                    .defs
                    .first()
                    .is_some_and(|d| octave::definite_dims(&d.shape).is_some())
        }) else {
            continue;
        };
        report.statements[i].defs[0].shape = ShapeView::Dims {
            dims: Some(vec![DimView::Known(97), DimView::Known(98)]),
        };
        assert_eq!(octave::compare(&prog, &report, o).len(), 1, "{}", p.name);
        report = model_report(p);
        report.statements[i].check = CheckStatus::Error;
        assert!(!octave::compare(&prog, &report, o).is_empty(), "{}", p.name);
    }
}

fn model_report(p: &Program) -> Report {
    let statements = p
        .stmts
        .iter()
        .enumerate()
        .map(|(i, st)| {
            let line = i as u32 + 1;
            let defs = match (&st.predicted, st.assigns.first()) {
                (Some(d), Some(name)) if !st.injected_error => vec![Def {
                    name: name.clone(),
                    shape: ShapeView::Dims {
                        dims: Some(d.iter().map(|&x| DimView::Known(x as i64)).collect()),
                    },
                    display: String::new(),
                    class: None,
                }],
                _ => vec![],
            };
            StatementReport {
                range: Range {
                    line,
                    col: 1,
                    end_line: line,
                    end_col: 1,
                },
                kind: "assign".into(),
                defs,
                check: if st.injected_error {
                    CheckStatus::Error
                } else {
                    CheckStatus::None
                },
                ..Default::default()
            }
        })
        .collect();
    Report {
        parse_ok: true,
        statements,
        ..Default::default()
    }
}

/// The real comparison: our analysis against Octave on every program.
#[test]
fn analysis_agrees_with_octave() {
    let Some(s) = suite() else { return };
    let mut failures = Vec::new();
    let mut cov = Coverage::default();
    for (prog, obs) in s.programs.iter().zip(&s.observed) {
        let report = analyze(&prog.source);
        cov.add(&report, obs);
        let problems = octave::compare(prog, &report, obs);
        if !problems.is_empty() {
            failures.push(render(prog, obs, &problems));
        }
    }
    eprintln!(
        "compared {} definite shapes with {} Octave sizes; {} of {} Octave failures reported as check: error",
        cov.definite, cov.sizes, cov.flagged, cov.failures
    );
    assert!(
        failures.is_empty(),
        "{} of {} programs disagree with Octave:\n{}",
        failures.len(),
        s.programs.len(),
        failures.join("\n")
    );
}

/// How much the analysis actually claimed: agreement is vacuous when it claims nothing.
#[derive(Default)]
struct Coverage {
    definite: usize,
    sizes: usize,
    flagged: usize,
    failures: usize,
}

impl Coverage {
    fn add(&mut self, report: &Report, obs: &Observed) {
        let fail = obs.error.as_ref().map(|e| e.line);
        self.sizes += obs.sizes.len();
        self.failures += usize::from(fail.is_some());
        for st in &report.statements {
            if fail.is_none_or(|l| st.range.line < l) {
                self.definite += st
                    .defs
                    .iter()
                    .filter(|d| octave::definite_dims(&d.shape).is_some())
                    .count();
            }
            if Some(st.range.line) == fail && st.check == CheckStatus::Error {
                self.flagged += 1;
            }
        }
    }
}

/// The expectation comments of `% differential` fixtures are themselves checked
/// against Octave: concrete `expect:` shapes must be Octave's sizes, and the first
/// `expect-error:` line must be where Octave fails.
#[test]
fn differential_fixture_expectations_match_octave() {
    use shapex_tests::expect::{DimPattern, ShapePattern};
    let Some(s) = suite() else { return };
    let mut problems = Vec::new();
    let hand = s.programs.iter().zip(&s.observed).skip(s.generated.len());
    for (prog, obs) in hand {
        let spec = FixtureSpec::parse(&prog.source);
        let first_error = spec
            .lines
            .iter()
            .find(|e| !e.errors.is_empty())
            .map(|e| e.line);
        if first_error != obs.error.as_ref().map(|e| e.line) {
            problems.push(format!(
                "{}: first expect-error at {first_error:?}, Octave: {:?}",
                prog.name, obs.error
            ));
        }
        for e in &spec.lines {
            for d in &e.defs {
                let ShapePattern::Dims(dims) = &d.shape else {
                    continue;
                };
                let Some(have) = obs.sizes.get(&(e.line, d.name.clone())) else {
                    problems.push(format!(
                        "{}:{}: Octave printed no size for {}",
                        prog.name, e.line, d.name
                    ));
                    continue;
                };
                let ok = dims.len() == have.len()
                    && dims.iter().zip(have).all(|(w, h)| match w {
                        DimPattern::Known(n) => n == h,
                        _ => true,
                    });
                if !ok {
                    problems.push(format!(
                        "{}:{}: expect {} {dims:?}, Octave {have:?}",
                        prog.name, e.line, d.name
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
