//! Every rule of the builtin table checked against Octave (issue #24 item 2): each
//! builtin is called in the forms `tests/builtin-calls.txt` gives it — its arguments
//! drawn from empty, scalar, row, column, matrix and 3-D arrays, texts, cells, counts,
//! dimensions and options such as `'rows'` — and with each number of outputs; all the
//! programs run in one `octave-cli` process, and the analysis must agree with what
//! Octave did: a definite shape equals Octave's, a bound (`max`) holds, a definite
//! error is an error in Octave, and a proof is never on a call Octave fails by shape.
//!
//! By default a few calls per form and output count are drawn (seeded), so the test
//! stays short in CI; `SHAPEX_BUILTIN_CASES=all` runs every choice of values (capped
//! per form), and `SHAPEX_BUILTIN=name` only that builtin. The summary line gives the
//! number of builtins and calls checked.

use shapex::report::{CheckStatus, DimView, ShapeView};
use shapex_tests::builtin_calls::{self, Calls, Case, Spec};
use shapex_tests::matlab_options;
use shapex_tests::octave::{self, compare, Observed};
use shapex_tests::require::{require, Tool};
use std::collections::{BTreeMap, BTreeSet};

const SEED: u64 = 0x24_b117;
/// Calls drawn per form and output count by default.
const SAMPLE: usize = 3;
/// At most this many calls per form and output count with `SHAPEX_BUILTIN_CASES=all`.
const CAP: usize = 250;

fn table() -> shapex_matlab::builtins::BuiltinTable {
    shapex_matlab::builtins::BuiltinTable::standard()
}

fn calls() -> Calls {
    builtin_calls::parse(builtin_calls::CALLS).expect("builtin-calls.txt parses")
}

/// A builtin's spec: its own line, else its category's or the nearest ancestor's.
fn spec_of<'a>(
    calls: &'a Calls,
    table: &shapex_matlab::builtins::BuiltinTable,
    name: &str,
) -> Option<&'a Spec> {
    if let Some(s) = calls.builtins.get(name) {
        return Some(s);
    }
    let b = table.lookup(name)?;
    table
        .ancestors(&b.category)
        .into_iter()
        .find_map(|c| calls.categories.get(&c.name))
}

#[test]
fn every_builtin_has_call_forms_or_a_reason() {
    let (calls, table) = (calls(), table());
    let missing: Vec<&str> = table
        .builtins()
        .iter()
        .map(|b| b.name.as_str())
        .filter(|n| spec_of(&calls, &table, n).is_none())
        .collect();
    assert!(missing.is_empty(), "no call forms for {missing:?}");
    let unknown: Vec<&String> = calls
        .builtins
        .keys()
        .filter(|n| table.lookup(n).is_none())
        .collect();
    assert!(
        unknown.is_empty(),
        "call forms for what the table lacks: {unknown:?}"
    );
}

#[test]
fn call_forms_make_programs() {
    let form: Vec<String> = vec!["A".into(), "D".into(), "'descend'".into()];
    let choices = builtin_calls::choices(&form);
    assert_eq!(choices.len(), 7 * 3);
    let p = builtin_calls::program("sort", &form, &choices[16], 2, "p");
    assert_eq!(
        p.source,
        "x1 = rand(2, 3, 2);\n[r1, r2] = sort(x1, 2, 'descend');\n"
    );
    assert_eq!(p.stmts[1].assigns, vec!["r1", "r2"]);
    let sizes = builtin_calls::choices(&["[N P]".to_string()]);
    assert_eq!(sizes[0], vec!["[0 1]".to_string()]);
}

fn cases(calls: &Calls) -> Vec<Case> {
    let table = table();
    let all = std::env::var("SHAPEX_BUILTIN_CASES").is_ok_and(|v| v == "all");
    let only = std::env::var("SHAPEX_BUILTIN").ok();
    let mut rng = fastrand::Rng::with_seed(SEED);
    let mut out = Vec::new();
    for b in table.builtins() {
        if only.as_ref().is_some_and(|o| *o != b.name) {
            continue;
        }
        let Some(Spec::Forms { forms, outputs }) = spec_of(calls, &table, &b.name) else {
            continue;
        };
        for form in forms {
            let mut choices = builtin_calls::choices(form);
            for nout in 1..=*outputs {
                let picked: Vec<&Vec<String>> = if all {
                    choices.iter().take(CAP).collect()
                } else {
                    rng.shuffle(&mut choices);
                    choices.iter().take(SAMPLE).collect()
                };
                for values in picked {
                    let name = format!("{}_{}", b.name, out.len());
                    out.push(Case {
                        builtin: b.name.clone(),
                        program: builtin_calls::program(&b.name, form, values, nout, &name),
                    });
                }
            }
        }
    }
    out
}

/// Octave's message for an error of the arguments' sizes (as opposed to their values
/// or classes), beyond [`octave::OctaveError::is_shape_error`]'s.
fn shape_like(message: &str) -> bool {
    let m = message.to_lowercase();
    [
        "must be a scalar",
        "must be a vector",
        "must be square",
        "must be a square",
        "2-d",
        "2-dimensional",
        "dimension",
        "same size",
        "same length",
        "same number",
        "number of elements",
        "must be vectors",
        "must be a matrix",
        "nonconformant",
    ]
    .iter()
    .any(|p| m.contains(p))
}

#[test]
fn builtin_rules_agree_with_octave() {
    let Some(octave) = require(Tool::OctaveCli) else {
        return;
    };
    let calls = calls();
    let cases = cases(&calls);
    let programs: Vec<_> = cases.iter().map(|c| c.program.clone()).collect();
    let t0 = std::time::Instant::now();
    let observed = octave::run(&octave, &programs).expect("octave-cli runs");
    let octave_time = t0.elapsed();
    let options = matlab_options("modern").with_views([]);
    let analyzer = shapex::Analyzer::new();
    let start = std::time::Instant::now();
    let mut problems = Vec::new();
    let mut missing_in_octave = BTreeSet::new();
    let mut checked = BTreeSet::new();
    let (mut outputs, mut definite, mut errors_found, mut octave_errors) = (0, 0, 0, 0);
    let mut differences = 0;
    for (case, obs) in cases.iter().zip(&observed) {
        let call_line = case.program.stmts.last().map_or(0, |s| s.line);
        if obs.error.as_ref().is_some_and(|e| {
            e.identifier == "Octave:undefined-function" && e.message.contains(&case.builtin)
        }) {
            missing_in_octave.insert(case.builtin.clone());
            continue;
        }
        if calls
            .difference(&case.builtin, &case.program.source)
            .is_some()
        {
            differences += 1;
            continue;
        }
        checked.insert(case.builtin.clone());
        let report = analyzer.analyze(&case.program.source, &options);
        let mut found: Vec<String> = compare(&case.program, &report, obs)
            .into_iter()
            .map(|p| p.to_string())
            .collect();
        let Some(call) = report.statements.iter().find(|s| s.range.line == call_line) else {
            continue;
        };
        let failed_here = obs.error.as_ref().filter(|e| e.line == call_line);
        if let Some(e) = failed_here {
            octave_errors += 1;
            if call.check == CheckStatus::Error {
                errors_found += 1;
            }
            if call.check == CheckStatus::Proven && !e.is_shape_error() && shape_like(&e.message) {
                found.push(format!("false proof: Octave fails: {}", e.message));
            }
        }
        for d in &call.defs {
            outputs += 1;
            if octave::definite_dims(&d.shape).is_some() {
                definite += 1;
            }
            found.extend(bound_problem(&d.shape, obs, call_line, &d.name));
        }
        for f in found {
            problems.push(format!(
                "{}: {f}\n    {}",
                case.builtin,
                case.program.source.trim_end().replace('\n', "\n    ")
            ));
        }
    }
    let in_table = table().builtins().len();
    println!(
        "builtin differential: {} builtins of {in_table} checked in {} calls ({differences} more where MATLAB and Octave differ; {} not in this Octave: {}); {definite} of {outputs} results definite; Octave failed {octave_errors} calls, {errors_found} of them reported as definite errors; {} problems (Octave {octave_time:.1?}, analysis {:.1?})",
        checked.len(),
        cases.len(),
        missing_in_octave.len(),
        missing_in_octave.iter().cloned().collect::<Vec<_>>().join(", "),
        problems.len(),
        start.elapsed()
    );
    let mut by_builtin: BTreeMap<&str, usize> = BTreeMap::new();
    for p in &problems {
        *by_builtin
            .entry(p.split(':').next().unwrap_or(""))
            .or_default() += 1;
    }
    assert!(
        problems.is_empty(),
        "{} problems ({by_builtin:?}):\n{}",
        problems.len(),
        problems
            .iter()
            .take(80)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// A shape that is not definite must still hold where it says something: each known
/// extent equals Octave's (a row stays a row), no extent lies past the rank shown, and
/// each bound (`1×:4`) holds.
fn bound_problem(shape: &ShapeView, obs: &Observed, line: u32, name: &str) -> Option<String> {
    let ShapeView::Dims {
        dims: Some(dims),
        max,
    } = shape
    else {
        return None;
    };
    let theirs = obs.sizes.get(&(line, name.to_string()))?;
    let at = |i: usize| theirs.get(i).copied().unwrap_or(1);
    let known = dims
        .iter()
        .enumerate()
        .any(|(i, d)| matches!(d, DimView::Known(k) if *k != at(i)));
    let rank = theirs.iter().skip(dims.len()).any(|t| *t != 1);
    let bound = max.as_ref().is_some_and(|max| {
        max.iter()
            .enumerate()
            .any(|(i, m)| m.is_some_and(|m| at(i) > m))
    });
    (known || rank || bound).then(|| {
        format!(
            "partial shape: we say {name} is {dims:?} (at most {max:?}), Octave says {theirs:?}"
        )
    })
}
