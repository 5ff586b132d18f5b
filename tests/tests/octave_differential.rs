//! Octave differential suite: programs with concrete sizes run in ONE `octave-cli`
//! process; every definite shape and definite error in our Report must agree with what
//! Octave observed (modern mode: Octave broadcasts).
//!
//! Programs: `GENERATED` seeded programs from `shapex_tests::gen` (straight-line code
//! mixed with templated blocks: loop-carried concatenation and growth, indexing past
//! the end in a loop, linear-index growth, deletion, reshape), the minimal programs of
//! issue #6 (`gen::catalogue`), plus every fixture under `tests/fixtures/` whose header
//! says `% differential`.
//!
//! `analysis_agrees_with_octave` prints one summary line and requires zero
//! disagreements (a definite shape Octave contradicts), false errors (`check: error`
//! off Octave's failing line) and false proofs (`check: proven` on it); recall (Octave
//! failures we report as definite errors) and coverage (definite shapes among defs on
//! lines Octave ran, leaving out defs in loop bodies whose size Octave saw change
//! between iterations) must not fall below `RECALL_FLOOR` and `COVERAGE_FLOOR`.
//!
//! Besides the analysis itself, the harness is checked independently: Octave must
//! report an outcome for every program, the generator's own size model must agree
//! with Octave, and a fake Report built from that model must pass while a
//! deliberately wrong one is caught.
//!
//! Local functions and calling contexts (issue #22 item 1): `FN_GENERATED` function
//! files from `shapex_tests::gen::functions` (a `main` calling 1–3 local functions in
//! 2–3 contexts each, chains, fewer outputs than declared, `[~, b] = f(x)`, calls in
//! counted loops, count parameters, arguments sized by data, local functions named
//! after builtins; one failing call in about half of them) run as function files in
//! one `octave-cli` process (`octave::run_function_files`), observed on `main`'s lines
//! only. `local_function_model_agrees_with_octave` checks that harness (outcomes, the
//! failing line, the model's sizes of every call result), and
//! `local_function_fake_reports_pass_and_wrong_ones_are_caught` the comparison
//! (a Report from the model passes, wrong claims in it are caught);
//! `local_functions_agree_with_octave` applies the three checks above to `main`'s
//! statements (a definite error on a local function's line that Octave ran through is
//! a false error too) and prints how many call results the analysis knows exactly and
//! how many failing calls it reports as definite errors. `SHAPEX_DIFF_FUNCTIONS=<n>`
//! runs `n` function files instead; `SHAPEX_DIFF_DUMP=<dir>` writes each one the
//! analysis is contradicted on (or, with constant argument shapes, misses a failing
//! call or a constant result of) to `<dir>/<name>.m`.

use shapex::report::{CheckStatus, Def, DimView, Range, Report, ShapeView, StatementReport};
use shapex_tests::gen::functions::{self, FnProgram};
use shapex_tests::gen::{self, Program};
use shapex_tests::octave::{self, DiffProgram, Observed, ProblemKind};
use shapex_tests::require::{require, Tool};
use shapex_tests::{
    display_path, files_with_ext, fixtures_dir, language, matlab_options, FixtureSpec,
};
use std::sync::OnceLock;
use std::time::Instant;

const SEED: u64 = 0x5a4e_2000;
const GENERATED: usize = 300;

/// Floors for recall and coverage (percent), so that neither regresses. The issue's
/// targets are 90 and 97. Before issue #6 the engine achieved recall 56.9% (loop bodies,
/// deletion and linear indexing past the end were not flagged); with counted loops
/// simulated exactly it reports every Octave failure (100%) at 98.8% coverage.
const RECALL_FLOOR: f64 = 95.0;
const COVERAGE_FLOOR: f64 = 97.0;

struct Suite {
    generated: Vec<Program>,
    programs: Vec<DiffProgram>,
    observed: Vec<Observed>,
}

/// Runs Octave once for all tests in this binary; `None` when it is not installed
/// (a failure under `CI`, see [`require`]).
fn suite() -> Option<&'static Suite> {
    static SUITE: OnceLock<Option<Suite>> = OnceLock::new();
    SUITE
        .get_or_init(|| {
            let octave = require(Tool::OctaveCli)?;
            let mut generated = gen::generate(SEED, GENERATED);
            generated.extend(gen::catalogue());
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
    let matlab = language("matlab");
    files_with_ext(&fixtures_dir(), "m")
        .into_iter()
        .filter_map(|path| {
            let source = std::fs::read_to_string(&path).ok()?;
            let spec = FixtureSpec::parse(&source, &matlab);
            (spec.differential && spec.setting("mode") == Some("modern"))
                .then(|| DiffProgram::from_source(&display_path(&path), &source))
        })
        .collect()
}

fn analyze(source: &str) -> Report {
    shapex::analyze(source, &matlab_options("modern"))
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
            assert!(
                o.ran.contains(&st.line),
                "{}: line {} before the failure did not complete",
                p.name,
                st.line
            );
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
            // Lines after Octave's failure never ran; lines before it must match.
            let Some(have) = o.seen.get(&(line, name.clone())).cloned() else {
                continue;
            };
            let want: Vec<Vec<i64>> = want
                .iter()
                .map(|d| {
                    gen::canonical(d.clone())
                        .iter()
                        .map(|&x| x as i64)
                        .collect()
                })
                .collect();
            if want != have {
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
/// Octave) passes the comparison; a wrong shape, a misplaced error, a proof on the
/// failing line, or a definite shape for a variable a loop reshapes is caught.
#[test]
fn fake_model_reports_pass_and_wrong_ones_are_caught() {
    let Some(s) = suite() else { return };
    let mut caught = [0usize; 3];
    for (p, o) in s.generated.iter().zip(&s.observed) {
        let prog = DiffProgram::from_generated(p);
        let mut report = model_report(p);
        let problems = octave::compare(&prog, &report, o);
        assert!(problems.is_empty(), "{}: {problems:?}", p.name);
        if let Some(i) = p.injected_line().map(|l| l as usize - 1) {
            report.statements[i].check = CheckStatus::Proven;
            let kinds: Vec<ProblemKind> = octave::compare(&prog, &report, o)
                .iter()
                .map(|p| p.kind)
                .collect();
            assert_eq!(kinds, [ProblemKind::FalseProof], "{}", p.name);
            caught[0] += 1;
            report = model_report(p);
        }
        // A loop body whose variable changes shape: claiming its last size is wrong.
        if let Some((i, last)) = p.stmts.iter().enumerate().find_map(|(i, st)| {
            let key = (i as u32 + 1, st.assigns.first()?.clone());
            let sizes = o.seen.get(&key).filter(|v| v.len() > 1)?;
            let last: Vec<usize> = sizes.last()?.iter().map(|&x| x as usize).collect();
            (!st.injected_error).then_some((i, last))
        }) {
            report.statements[i].defs[0].shape = known(&last);
            let kinds: Vec<ProblemKind> = octave::compare(&prog, &report, o)
                .iter()
                .map(|p| p.kind)
                .collect();
            assert_eq!(kinds, [ProblemKind::Disagreement], "{}", p.name);
            caught[1] += 1;
            report = model_report(p);
        }
        let Some(i) = report.statements.iter().position(|st| {
            st.range.line < o.error.as_ref().map_or(u32::MAX, |e| e.line)
                && st
                    .defs
                    .first()
                    .is_some_and(|d| octave::definite_dims(&d.shape).is_some())
        }) else {
            continue;
        };
        report.statements[i].defs[0].shape = known(&[97, 98]);
        assert_eq!(octave::compare(&prog, &report, o).len(), 1, "{}", p.name);
        report = model_report(p);
        report.statements[i].check = CheckStatus::Error;
        let kinds: Vec<ProblemKind> = octave::compare(&prog, &report, o)
            .iter()
            .map(|p| p.kind)
            .collect();
        assert_eq!(kinds, [ProblemKind::FalseError], "{}", p.name);
        caught[2] += 1;
    }
    eprintln!(
        "fake Reports: caught {} false proofs, {} loop-varying definite shapes, {} false errors",
        caught[0], caught[1], caught[2]
    );
    assert!(caught.iter().all(|&n| n >= 20), "too few cases: {caught:?}");
}

fn known(dims: &[usize]) -> ShapeView {
    ShapeView::Dims {
        dims: Some(dims.iter().map(|&x| DimView::Known(x as i64)).collect()),
        max: None,
    }
}

fn model_report(p: &Program) -> Report {
    let statements = p
        .stmts
        .iter()
        .enumerate()
        .map(|(i, st)| {
            let line = i as u32 + 1;
            // One size: definite. Several (a loop body): symbolic, as a sound analysis
            // must say.
            let defs = match (&st.predicted, st.assigns.first()) {
                (Some(sizes), Some(name)) if !st.injected_error => vec![Def {
                    name: name.clone(),
                    shape: match sizes.as_slice() {
                        [d] => known(d),
                        _ => ShapeView::Dims {
                            dims: Some(vec![DimView::Symbolic("n".into()), DimView::Known(1)]),
                            max: None,
                        },
                    },
                    display: String::new(),
                    class: None,
                    value: None,
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
                    CheckStatus::Proven
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
    let mut t = Tally::default();
    for (prog, obs) in s.programs.iter().zip(&s.observed) {
        let report = analyze(&prog.source);
        t.add(&report, obs, &prog.source);
        let problems = octave::compare(prog, &report, obs);
        for p in &problems {
            match p.kind {
                ProblemKind::FalseError => t.false_errors += 1,
                ProblemKind::FalseProof => t.false_proofs += 1,
                ProblemKind::Disagreement | ProblemKind::Unparsed => t.disagreements += 1,
            }
        }
        if !problems.is_empty() {
            let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
            failures.push(render(prog, obs, &lines));
        }
    }
    let recall = percent(t.flagged, t.failures);
    for m in t.missed.iter().take(12) {
        eprintln!("  missed (run-time check, not an error): {m}");
    }
    let coverage = percent(t.definite, t.defs);
    eprintln!(
        "differential: {} programs, {} Octave failures, {} reported as definite errors (recall {recall:.1}%), \
         false errors {}, false proofs {}, disagreements {}, definite shapes {} of {} defs on executed lines (coverage {coverage:.1}%)",
        s.programs.len(),
        t.failures,
        t.flagged,
        t.false_errors,
        t.false_proofs,
        t.disagreements,
        t.definite,
        t.defs,
    );
    eprintln!(
        "  not counted among the defs: {} whose size changes across loop iterations in Octave \
         (no sound analysis makes them definite); counting them, coverage would be {:.1}%",
        t.varying,
        percent(t.definite, t.defs + t.varying)
    );
    let mut broken = Vec::new();
    if !failures.is_empty() {
        broken.push(format!(
            "{} of {} programs disagree with Octave ({} false errors, {} false proofs, {} disagreements):\n{}",
            failures.len(),
            s.programs.len(),
            t.false_errors,
            t.false_proofs,
            t.disagreements,
            failures.join("\n")
        ));
    }
    if recall < RECALL_FLOOR {
        broken.push(format!("recall {recall:.1}% fell below {RECALL_FLOOR}%"));
    }
    if coverage < COVERAGE_FLOOR {
        broken.push(format!(
            "coverage {coverage:.1}% fell below {COVERAGE_FLOOR}%"
        ));
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        100.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// How much the analysis claimed and how often Octave contradicted it: agreement is
/// vacuous when it claims nothing.
#[derive(Default)]
struct Tally {
    /// Programs that fail in Octave.
    failures: usize,
    /// Of those, programs with `check: error` on Octave's failing line.
    flagged: usize,
    /// Defs on lines Octave ran, and the definite ones among them; defs whose size
    /// Octave saw change from one iteration of a loop to the next are counted apart
    /// (`varying`), since no sound analysis can make them definite.
    defs: usize,
    definite: usize,
    varying: usize,
    false_errors: usize,
    false_proofs: usize,
    disagreements: usize,
    /// Octave failures not reported as definite errors (printed, for triage).
    missed: Vec<String>,
}

impl Tally {
    fn add(&mut self, report: &Report, obs: &Observed, source: &str) {
        let fail = obs.error.as_ref().map(|e| e.line);
        self.failures += usize::from(fail.is_some());
        let flagged = report
            .statements
            .iter()
            .any(|st| Some(st.range.line) == fail && st.check == CheckStatus::Error);
        self.flagged += usize::from(flagged);
        if let (false, Some(e)) = (flagged, &obs.error) {
            let text = source.lines().nth(e.line as usize - 1).unwrap_or("").trim();
            self.missed
                .push(format!("line {} `{text}`: {}", e.line, e.message));
            if std::env::var_os("SHAPEX_SHOW_MISSED").is_some() {
                eprintln!("{source}");
            }
        }
        for st in report
            .statements
            .iter()
            .filter(|st| obs.ran.contains(&st.range.line))
        {
            for d in &st.defs {
                let varies = obs
                    .seen
                    .get(&(st.range.line, d.name.clone()))
                    .is_some_and(|v| v.len() > 1);
                if varies {
                    self.varying += 1;
                } else {
                    self.defs += 1;
                    self.definite += usize::from(octave::definite_dims(&d.shape).is_some());
                }
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
        let spec = FixtureSpec::parse(&prog.source, &language("matlab"));
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

// ---------------------------------------------------------------------------------
// Local functions and calling contexts (issue #22 item 1).
// ---------------------------------------------------------------------------------

const FN_SEED: u64 = 0x5a4e_2022;
/// Function files per run; `SHAPEX_DIFF_FUNCTIONS=<n>` runs `n` instead (long runs).
const FN_GENERATED: usize = 1000;

struct FnSuite {
    generated: Vec<FnProgram>,
    programs: Vec<DiffProgram>,
    observed: Vec<Observed>,
}

/// Runs Octave once over the generated function files (see `shapex_tests::gen::functions`).
fn fn_suite() -> Option<&'static FnSuite> {
    static SUITE: OnceLock<Option<FnSuite>> = OnceLock::new();
    SUITE
        .get_or_init(|| {
            let octave = require(Tool::OctaveCli)?;
            let count = std::env::var("SHAPEX_DIFF_FUNCTIONS")
                .ok()
                .and_then(|n| n.parse().ok())
                .unwrap_or(FN_GENERATED);
            let generated = functions::generate(FN_SEED, count);
            let programs: Vec<DiffProgram> = generated
                .iter()
                .map(DiffProgram::from_function_program)
                .collect();
            let start = Instant::now();
            let observed = octave::run_function_files(&octave, &programs).expect("octave-cli runs");
            eprintln!(
                "octave-cli ran {} function files in {:.1?}",
                programs.len(),
                start.elapsed()
            );
            Some(FnSuite {
                generated,
                programs,
                observed,
            })
        })
        .as_ref()
}

/// The harness over function files: Octave reports one outcome per program, fails
/// exactly on the generator's failing call (with a shape error when the callee fails
/// for the call's shapes), and the model's sizes of `main`'s variables (call results
/// included, every output of a call) are Octave's.
#[test]
fn local_function_model_agrees_with_octave() {
    let Some(s) = fn_suite() else { return };
    let mut problems = Vec::new();
    let mut sizes = 0;
    for ((p, prog), o) in s.generated.iter().zip(&s.programs).zip(&s.observed) {
        let source = || prog.source.clone();
        if o.finished == o.error.is_some() {
            problems.push(format!(
                "{}: no single outcome from Octave\n{}",
                p.name,
                source()
            ));
            continue;
        }
        let fail = o.error.as_ref().map(|e| e.line);
        if fail != p.injected_line() {
            problems.push(format!(
                "{}: failing call at {:?}, Octave fails at {fail:?} ({:?})\n{}",
                p.name,
                p.injected_line(),
                o.error.as_ref().map(|e| &e.message),
                source()
            ));
            continue;
        }
        if let Some(e) = &o.error {
            if p.failure() == Some(functions::Failure::Callee) && !e.is_shape_error() {
                problems.push(format!("{}: not a shape error: {}", p.name, e.message));
            }
        }
        let last = fail.unwrap_or(u32::MAX);
        for (i, st) in p.main.iter().enumerate() {
            let line = FnProgram::line_of(i);
            if line >= last {
                break;
            }
            if !o.ran.contains(&line) {
                problems.push(format!("{}: line {line} did not complete", p.name));
            }
            let mut want: Vec<(String, Vec<gen::Dims>)> = Vec::new();
            if let Some(c) = p.calls.iter().find(|c| c.stmt == i && !c.in_loop) {
                for (name, d) in &c.outputs {
                    want.extend(d.clone().map(|d| (name.clone(), vec![d])));
                }
            } else if let (Some(d), Some(name)) = (&st.predicted, st.assigns.first()) {
                want.push((name.clone(), d.clone()));
            }
            for (name, d) in want {
                let d: Vec<Vec<i64>> = d
                    .into_iter()
                    .map(|d| gen::canonical(d).iter().map(|&x| x as i64).collect())
                    .collect();
                let have = o.seen.get(&(line, name.clone()));
                sizes += 1;
                if have != Some(&d) {
                    problems.push(format!(
                        "{}:{line}: `{}` model {name} {d:?}, Octave {have:?}\n{}",
                        p.name,
                        st.text,
                        source()
                    ));
                }
            }
        }
    }
    let failing = s.generated.iter().filter(|p| p.failure().is_some()).count();
    eprintln!(
        "local functions: {failing} of {} function files make one call fail; {sizes} model sizes checked",
        s.generated.len()
    );
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The analysis of function files against Octave, on `main`'s statements: no definite
/// shape Octave contradicts, no definite error off Octave's failing line, no proof on
/// it. Also printed: how many call results (of calls Octave completed) the analysis
/// knows exactly, per calling context, and how many failing calls it reports as
/// definite errors.
#[test]
fn local_functions_agree_with_octave() {
    let Some(s) = fn_suite() else { return };
    let mut failures = Vec::new();
    let mut t = FnTally::default();
    for ((p, prog), obs) in s.generated.iter().zip(&s.programs).zip(&s.observed) {
        let report = analyze(&prog.source);
        let (main_report, problems, callee_errors) = compare_function_file(p, prog, &report, obs);
        t.callee_errors += callee_errors;
        t.statements += main_report.statements.len();
        let fail = obs.error.as_ref().map(|e| e.line);
        for st in main_report
            .statements
            .iter()
            .filter(|st| obs.ran.contains(&st.range.line))
        {
            for d in &st.defs {
                t.defs += 1;
                t.definite += usize::from(octave::definite_dims(&d.shape).is_some());
            }
        }
        for c in &p.calls {
            let line = FnProgram::line_of(c.stmt);
            let st = main_report
                .statements
                .iter()
                .find(|st| st.range.line == line);
            let k = if c.in_loop {
                2
            } else {
                usize::from(p.symbolic)
            };
            if c.failure.is_some() {
                t.failing[k] += 1;
                if st.is_some_and(|st| st.check == CheckStatus::Error) && fail == Some(line) {
                    t.flagged[k] += 1;
                    for d in report.diagnostics.iter().filter(|d| d.range.line == line) {
                        *t.codes.entry(d.code.clone()).or_default() += 1;
                    }
                } else if k == 0 {
                    dump(prog);
                    t.missed.push(format!(
                        "{}:{line} `{}`: {}",
                        p.name,
                        p.main[c.stmt].text,
                        obs.error.as_ref().map_or("", |e| e.message.as_str())
                    ));
                }
            } else if c.in_loop {
                // A loop body's def is constant only when every iteration gives the
                // same size.
                let varies = c.outputs.iter().any(|(v, _)| {
                    obs.seen
                        .get(&(line, v.clone()))
                        .is_some_and(|s| s.len() > 1)
                });
                if obs.ran.contains(&line) {
                    t.loop_calls += 1;
                    t.loop_varying += usize::from(varies);
                }
            } else if obs.ran.contains(&line) && !c.outputs.is_empty() {
                let known = st.is_some_and(|st| {
                    !st.defs.is_empty()
                        && st
                            .defs
                            .iter()
                            .all(|d| octave::definite_dims(&d.shape).is_some())
                });
                if known {
                    t.known[k] += 1;
                } else {
                    t.unknown[k] += 1;
                    if !p.symbolic {
                        t.unknown_calls
                            .push(format!("{}:{line} `{}`", p.name, p.main[c.stmt].text));
                        dump(prog);
                    }
                }
            }
        }
        for q in &problems {
            match q.kind {
                ProblemKind::FalseError => t.false_errors += 1,
                ProblemKind::FalseProof => t.false_proofs += 1,
                ProblemKind::Disagreement | ProblemKind::Unparsed => t.disagreements += 1,
            }
        }
        if !problems.is_empty() {
            // Say which claims are about a call of a local function, and in which kind
            // of program.
            let lines: Vec<String> = problems
                .iter()
                .map(|q| {
                    let call = p.calls.iter().find(|c| {
                        q.message
                            .starts_with(&format!("line {} ", FnProgram::line_of(c.stmt)))
                    });
                    let kind = if p.symbolic {
                        "a program whose arguments are partly sized by data (symbolic contexts)"
                    } else {
                        "a program whose arguments have constant shapes"
                    };
                    match call {
                        Some(c) if c.in_loop => {
                            format!("{q} [a call of {} in a counted loop, in {kind}]", c.callee)
                        }
                        Some(c) => format!("{q} [a call of {} in {kind}]", c.callee),
                        None => q.to_string(),
                    }
                })
                .collect();
            failures.push(render(prog, obs, &lines));
            dump(prog);
        }
    }
    for m in t.missed.iter().take(12) {
        eprintln!(
            "  failing call (constant shapes, not in a loop) not reported as a definite error: {m}"
        );
    }
    for m in t.unknown_calls.iter().take(12) {
        eprintln!("  call result (constant shapes) not constant: {m}");
    }
    let mut codes: Vec<String> = t.codes.iter().map(|(c, n)| format!("{c} {n}")).collect();
    codes.sort();
    let symbolic = s.generated.iter().filter(|p| p.symbolic).count();
    eprintln!(
        "local functions: {} programs ({} with arguments of constant shapes, {symbolic} with some sized by data), \
         {} main statements compared ({} definite shapes of {} defs on executed lines), \
         disagreements {}, false errors {}, false proofs {}",
        s.programs.len(),
        s.programs.len() - symbolic,
        t.statements,
        t.definite,
        t.defs,
        t.disagreements,
        t.false_errors,
        t.false_proofs,
    );
    eprintln!(
        "  results of completed calls: constant-shape programs {} constant, {} not; \
         programs sized by data {} constant, {} not",
        t.known[0], t.unknown[0], t.known[1], t.unknown[1],
    );
    eprintln!(
        "  calls in counted loops (not counted above): {}, {} of them with a result whose size changes between iterations",
        t.loop_calls, t.loop_varying
    );
    eprintln!(
        "  failing calls reported as definite errors: constant-shape programs {} of {}, \
         programs sized by data {} of {}, in counted loops {} of {} ({}); definite errors on local functions' lines: {}",
        t.flagged[0],
        t.failing[0],
        t.flagged[1],
        t.failing[1],
        t.flagged[2],
        t.failing[2],
        codes.join(", "),
        t.callee_errors,
    );
    assert!(
        failures.is_empty(),
        "{} of {} function files disagree with Octave ({} false errors, {} false proofs, {} disagreements):\n{}",
        failures.len(),
        s.programs.len(),
        t.false_errors,
        t.false_proofs,
        t.disagreements,
        failures.join("\n")
    );
}

/// The comparison of a function file's Report with Octave: [`octave::compare`] on
/// `main`'s statements (returned as a Report of their own), plus a false error for
/// each definite error on a local function's line when some call of that function
/// from `main` completed in Octave; also the number of definite errors on local
/// functions' lines.
fn compare_function_file(
    p: &FnProgram,
    prog: &DiffProgram,
    report: &Report,
    obs: &Observed,
) -> (Report, Vec<octave::Problem>, usize) {
    let main_lines: Vec<u32> = prog.stmts.iter().map(|st| st.line).collect();
    let mut main_report = report.clone();
    main_report
        .statements
        .retain(|st| main_lines.contains(&st.range.line));
    let mut problems = octave::compare(prog, &main_report, obs);
    let mut callee_errors = 0;
    for st in report
        .statements
        .iter()
        .filter(|st| !main_lines.contains(&st.range.line) && st.check == CheckStatus::Error)
    {
        let f = enclosing_function(&prog.source, st.range.line);
        let ran = p.calls.iter().any(|c| {
            Some(&c.callee) == f.as_ref() && obs.ran.contains(&FnProgram::line_of(c.stmt))
        });
        callee_errors += 1;
        if ran {
            problems.push(octave::Problem {
                kind: ProblemKind::FalseError,
                message: format!(
                    "line {} (in {}): we report check: error, Octave ran a call of it",
                    st.range.line,
                    f.unwrap_or_default()
                ),
            });
        }
    }
    (main_report, problems, callee_errors)
}

/// A Report of a function file from the generator's model (which
/// `local_function_model_agrees_with_octave` checks against Octave): `main`'s
/// statements with the model's sizes, `error` on the failing call and `proven`
/// elsewhere; each local function's statements with no claim.
fn model_function_report(p: &FnProgram, prog: &DiffProgram) -> Report {
    let statement = |line: u32, defs: Vec<Def>, check| StatementReport {
        range: Range {
            line,
            col: 1,
            end_line: line,
            end_col: 1,
        },
        kind: "assign".into(),
        defs,
        check,
        ..Default::default()
    };
    let def = |name: &str, d: &gen::Dims| Def {
        name: name.to_string(),
        shape: known(d),
        display: String::new(),
        class: None,
        value: None,
    };
    let mut statements: Vec<StatementReport> = p
        .main
        .iter()
        .enumerate()
        .map(|(i, st)| {
            let line = FnProgram::line_of(i);
            let defs = match p.calls.iter().find(|c| c.stmt == i && !c.in_loop) {
                Some(c) => c
                    .outputs
                    .iter()
                    .filter_map(|(n, d)| d.as_ref().map(|d| def(n, d)))
                    .collect(),
                None => match (&st.predicted, st.assigns.first()) {
                    (Some(sizes), Some(name)) if sizes.len() == 1 && !st.injected_error => {
                        vec![def(name, &sizes[0])]
                    }
                    _ => vec![],
                },
            };
            let check = if st.injected_error {
                CheckStatus::Error
            } else {
                CheckStatus::Proven
            };
            statement(line, defs, check)
        })
        .collect();
    let last = prog.source.lines().count() as u32;
    let main_end = FnProgram::line_of(p.main.len());
    statements.extend(
        (main_end + 1..=last)
            .filter(|&l| {
                let text = prog.source.lines().nth(l as usize - 1).unwrap_or("");
                text.starts_with("  ")
            })
            .map(|l| statement(l, vec![], CheckStatus::None)),
    );
    Report {
        parse_ok: true,
        statements,
        ..Default::default()
    }
}

/// The model's Report of each function file passes the comparison; a wrong size on
/// a call's result, `proven` on the failing call, `error` on a call Octave completed
/// and `error` on a line of a local function Octave ran are each caught.
#[test]
fn local_function_fake_reports_pass_and_wrong_ones_are_caught() {
    let Some(s) = fn_suite() else { return };
    let mut caught = [0usize; 4];
    let kinds = |v: &[octave::Problem]| v.iter().map(|q| q.kind).collect::<Vec<_>>();
    for ((p, prog), o) in s.generated.iter().zip(&s.programs).zip(&s.observed) {
        let report = model_function_report(p, prog);
        let (_, problems, _) = compare_function_file(p, prog, &report, o);
        assert!(
            problems.is_empty(),
            "{}: {problems:?}\n{}",
            p.name,
            prog.source
        );
        let fail = o.error.as_ref().map(|e| e.line);
        let index = |line: u32| {
            report
                .statements
                .iter()
                .position(|st| st.range.line == line)
        };
        if let Some(i) = p.injected_line().and_then(index) {
            if p.failure() == Some(functions::Failure::Callee) {
                let mut r = report.clone();
                r.statements[i].check = CheckStatus::Proven;
                let (_, q, _) = compare_function_file(p, prog, &r, o);
                assert_eq!(kinds(&q), [ProblemKind::FalseProof], "{}", p.name);
                caught[0] += 1;
            }
        }
        // A completed call with a single constant result: a wrong size, and `error`.
        let done = p.calls.iter().find(|c| {
            let line = FnProgram::line_of(c.stmt);
            !c.in_loop
                && c.failure.is_none()
                && fail.is_none_or(|f| line < f)
                && c.outputs.iter().all(|(_, d)| d.is_some())
                && !c.outputs.is_empty()
        });
        if let Some(c) = done {
            let i = index(FnProgram::line_of(c.stmt)).expect("a statement per line");
            let mut r = report.clone();
            r.statements[i].defs[0].shape = known(&[97, 98]);
            let (_, q, _) = compare_function_file(p, prog, &r, o);
            assert_eq!(kinds(&q), [ProblemKind::Disagreement], "{}", p.name);
            caught[1] += 1;
            let mut r = report.clone();
            r.statements[i].check = CheckStatus::Error;
            let (_, q, _) = compare_function_file(p, prog, &r, o);
            assert_eq!(kinds(&q), [ProblemKind::FalseError], "{}", p.name);
            caught[2] += 1;
            // `error` on the first line of the callee that call completed.
            let header = prog
                .source
                .lines()
                .position(|l| {
                    l.starts_with("function ") && l.contains(&format!(" = {}(", c.callee))
                })
                .expect("the callee's function line") as u32
                + 1;
            let j = index(header + 1).expect("the callee's first statement");
            let mut r = report.clone();
            r.statements[j].check = CheckStatus::Error;
            let (_, q, _) = compare_function_file(p, prog, &r, o);
            assert_eq!(kinds(&q), [ProblemKind::FalseError], "{}", p.name);
            caught[3] += 1;
        }
    }
    eprintln!(
        "fake function-file Reports: caught {} false proofs, {} wrong call results, {} false errors on calls, {} in callees",
        caught[0], caught[1], caught[2], caught[3]
    );
    assert!(caught.iter().all(|&n| n >= 20), "too few cases: {caught:?}");
}

#[derive(Default)]
struct FnTally {
    statements: usize,
    defs: usize,
    definite: usize,
    false_errors: usize,
    false_proofs: usize,
    disagreements: usize,
    /// Completed calls whose every result the analysis gives a constant shape, and
    /// the others: `[0]` in programs whose arguments have constant shapes, `[1]` in
    /// those with arguments sized by data.
    known: [usize; 2],
    unknown: [usize; 2],
    unknown_calls: Vec<String>,
    /// Calls meant to fail, and those reported as a definite error on their line
    /// (indexed like `known`, and `[2]` for calls in counted loops).
    failing: [usize; 3],
    flagged: [usize; 3],
    codes: std::collections::BTreeMap<String, usize>,
    missed: Vec<String>,
    /// Calls in loops that completed, and those whose result's size changes between
    /// iterations in Octave.
    loop_calls: usize,
    loop_varying: usize,
    /// Definite errors on the lines of local functions.
    callee_errors: usize,
}

/// With `SHAPEX_DIFF_DUMP=<dir>`, writes a function file Octave contradicts to
/// `<dir>/<name>.m`, ready to run in Octave and to analyse.
fn dump(prog: &DiffProgram) {
    if let Some(dir) = std::env::var_os("SHAPEX_DIFF_DUMP") {
        let dir = std::path::PathBuf::from(dir);
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join(format!("{}.m", prog.name)), &prog.source);
    }
}

/// The name of the function whose `function` line is the last one before `line`.
fn enclosing_function(source: &str, line: u32) -> Option<String> {
    source
        .lines()
        .take(line as usize - 1)
        .filter_map(|l| l.strip_prefix("function "))
        .last()
        .map(|sig| {
            let sig = sig.split_once('=').map_or(sig, |(_, r)| r).trim();
            sig.split('(').next().unwrap_or(sig).to_string()
        })
}
