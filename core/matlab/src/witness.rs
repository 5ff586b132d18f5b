//! Witnesses of the MATLAB statements (`Options::witness`): for each source statement
//! with a run-time check or a definite error, sizes under which it fails and, for a
//! check, under which it passes, from the value analysis's per-outcome witnesses
//! (`StmtResult::witnesses`, each a `dims` model checked against its condition), and
//! where every size is one of the program's inputs, a repro: lines at the top of the
//! file that give the inputs those sizes (and, in a function file, call it).

use crate::shape::Shape;
use crate::tame::{FunctionKind, Program};
use crate::values::{ProgramResult, StmtResult};
use shapex_dims::{Constraint, Model, Provenance};
use shapex_report::{CheckStatus, StatementReport, Witness};
use shapex_text::{Fix, LineIndex, Span};
use std::collections::{BTreeMap, HashMap};

/// Fills `StatementReport::witness` of `statements` from `result`, the analysis of
/// `program` lowered from `source`. Repros only when `repro`: not with an entry
/// point (the inputs are the entry's types, which the code does not say), nor in the
/// paper's mode (its semantics are MATLAB 5's, not those of what runs the repro).
pub fn fill_witnesses(
    source: &str,
    (program, repro): (&Program, bool),
    result: &ProgramResult,
    statements: &mut [StatementReport],
) {
    let mut by_origin: HashMap<Span, Vec<(&str, &StmtResult)>> = HashMap::new();
    for f in &result.functions {
        for s in f.statements.iter().filter(|s| s.viable) {
            by_origin.entry(s.origin).or_default().push((&f.name, s));
        }
    }
    let lines = LineIndex::new(source);
    for st in statements.iter_mut() {
        if !matches!(st.check, CheckStatus::Runtime | CheckStatus::Error) {
            continue;
        }
        let Some(irs) = by_origin.get(&st.span) else {
            continue;
        };
        let line = lines.line_col(st.span.start).line;
        let Some((mut witness, func, fails)) = statement_witness(st, irs) else {
            continue;
        };
        if repro && reaches(result, func, st.span.start, fails) {
            witness.repro = self::repro(program, func, fails, line);
        }
        st.witness = Some(witness);
    }
}

/// The witness of one source statement from its IR results `irs` (with the function
/// each is in).
fn statement_witness<'r>(
    st: &StatementReport,
    irs: &[(&'r str, &'r StmtResult)],
) -> Option<(Witness, &'r str, &'r Model)> {
    // The outcomes the statement's status comes from, with their witnesses.
    let shown: Vec<(&str, &Constraint, &shapex_dims::Witness)> = irs
        .iter()
        .flat_map(|(f, s)| {
            s.effect
                .outcomes
                .iter()
                .zip(&s.witnesses)
                .filter(|(o, _)| o.check() == st.check)
                .filter_map(move |(o, w)| Some((*f, &o.theta, w.as_ref()?)))
        })
        .collect();
    let (func, theta, failing) = shown.iter().find(|(_, _, w)| w.fails.is_some())?;
    let fails = failing.fails.as_ref()?;
    // A check passes when every checked condition of the statement holds.
    let passes = match st.check {
        CheckStatus::Runtime => shown
            .iter()
            .filter_map(|(_, _, w)| w.passes.as_ref())
            .find(|m| {
                irs.iter().all(|(_, s)| {
                    s.effect
                        .outcomes
                        .iter()
                        .filter(|o| o.check() == CheckStatus::Runtime)
                        .all(|o| m.satisfies(&o.theta))
                })
            }),
        _ => None,
    };
    let witness = Witness {
        fails: Some(named(st, fails, theta)),
        passes: passes.map(|m| named(st, m, theta)),
        repro: None,
    };
    Some((witness, func, fails))
}

/// Whether a run of `func` with the repro's sizes gets to the statement at `start`
/// as far as the analysis can tell: every run-time check of `func` before it passes
/// under them (an input the repro does not size is a 1), each of its conjuncts
/// evaluated, except those no sizes decide (an opaque one, such as "the values are
/// integers"). The witness's sizes make the statement fail wherever it is reached; a
/// repro must also reach it, so a check whose outcome the sizes do not decide (one
/// over a callee's or the data's extents) means no repro.
fn reaches(result: &ProgramResult, func: &str, start: usize, fails: &Model) -> bool {
    let Some(f) = result.functions.iter().find(|f| f.name == func) else {
        return false;
    };
    let env = |s: &shapex_dims::Symbol| match s.provenance() {
        Provenance::InputExtent { .. } | Provenance::InputValue { .. } => {
            Some(fails.get(s).unwrap_or(1))
        }
        _ => fails.get(s),
    };
    let earlier = || {
        f.statements
            .iter()
            .filter(|s| s.viable && s.origin.start < start)
    };
    // A call the analysis knows nothing of (a function it cannot see) may fail.
    let unknown_call = |s: &StmtResult| {
        s.effect.outcomes.is_empty() && s.defs.iter().any(|(_, v)| v.shape == Shape::Unknown)
    };
    if earlier().any(unknown_call) {
        return false;
    }
    let checks = earlier().flat_map(|s| s.effect.outcomes.iter());
    checks
        .filter(|o| o.check() == CheckStatus::Runtime)
        .flat_map(|o| o.theta.conjuncts())
        .filter(|c| !matches!(c, Constraint::Opaque(_)))
        .all(|c| c.eval_symbols(&env) == Some(true))
}

/// The values of the symbols of `theta` in `m`, by the names the statement shows
/// them by (`?₁` for an alias): the facts' other symbols are not the reader's concern.
fn named(st: &StatementReport, m: &Model, theta: &Constraint) -> BTreeMap<String, i64> {
    let shown = shapex_dims::symbols(theta);
    m.iter()
        .filter(|(s, _)| shown.contains(*s))
        .map(|(s, v)| (st.aliased(s.name()), v))
        .collect()
}

/// Lines that give the inputs of `func` (the script, or the file's first function)
/// the sizes of `fails` and run it, inserted at the top of the file; `None` when a
/// size is not an input's (a count that depends on data, say) or the statement is in
/// a function the file cannot be run as.
fn repro(program: &Program, func: &str, fails: &Model, line: u32) -> Option<Fix> {
    let f = program.functions.iter().find(|f| f.name == func)?;
    // Sizes that fail whatever they are: the program as it is is the repro.
    if fails.is_empty() {
        return None;
    }
    if !matches!(f.kind, FunctionKind::Script | FunctionKind::Primary) {
        return None;
    }
    let mut extents: BTreeMap<&str, BTreeMap<u32, i64>> = BTreeMap::new();
    let mut values: BTreeMap<&str, i64> = BTreeMap::new();
    for (s, v) in fails.iter() {
        match s.provenance() {
            Provenance::InputExtent { var, component } => {
                extents.entry(var).or_default().insert(*component, v);
            }
            Provenance::InputValue { var } => {
                values.insert(var, v);
            }
            _ => return None,
        }
    }
    let mut text = format!("% Shape Explorer: sizes under which line {line} fails\n");
    for (var, dims) in &extents {
        if values.contains_key(var) || dims.values().any(|d| *d < 0) {
            return None;
        }
        // Trailing singleton extents are implicit (`ones(1, 2, 1)` is `ones(1, 2)`).
        let rank = dims
            .iter()
            .filter(|(_, d)| **d != 1)
            .map(|(k, _)| *k + 1)
            .max()
            .unwrap_or(2)
            .max(2);
        let sizes: Vec<String> = (0..rank)
            .map(|k| dims.get(&k).copied().unwrap_or(1).to_string())
            .collect();
        text.push_str(&format!("{var} = ones({});\n", sizes.join(", ")));
    }
    for (var, v) in &values {
        text.push_str(&format!("{var} = {v};\n"));
    }
    if f.kind == FunctionKind::Primary {
        // An input the witness does not size may be anything (a struct, a text):
        // no stand-in for it is known to get the run to the statement.
        let given = |p: &str| extents.contains_key(p) || values.contains_key(p);
        if !f.params.iter().all(|p| given(p.as_str())) {
            return None;
        }
        let args: Vec<&str> = f.params.iter().map(|p| p.as_str()).collect();
        text.push_str(&format!("{}({});\n", f.name, args.join(", ")));
    }
    Some(Fix::new(
        "write these sizes into the code as a repro",
        Span::new(0, 0),
        text,
    ))
}
