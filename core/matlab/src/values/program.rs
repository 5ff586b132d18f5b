//! Running the value analysis over a whole program: each function analysed on its own,
//! one top-level statement at a time, and the results collected per IR statement.

use super::gloss;
use super::loops;
use super::memo::FunctionMemo;
use super::results::{FunctionResult, LoopStudy, ProgramResult, StmtResult};
use super::resume::{self, Boundary, Step, Trace};
use super::state::ValueAnalysis;
use super::transfer::collect;
use super::Env;
use crate::builtins::BuiltinTable;
use crate::flow::{self, FlowResult, State};
use crate::shape::Shape;
use crate::tame::{Function, Program, Stmt, StmtKind};
use crate::Mode;
use shapex_dims::{Constraint, Truth};
use shapex_report::Diagnostic;
use shapex_text::Span;
use std::rc::Rc;

/// Analyses every function of `program` (each on its own, inputs symbolic).
pub fn analyze_program(program: &Program, table: &BuiltinTable, mode: Mode) -> ProgramResult {
    analyze_program_with(program, table, mode, &mut FunctionMemo::default())
}

/// [`analyze_program`], reusing from `memo` the result of every function whose analysis
/// cannot have changed since `memo` last saw it (and remembering this run's for the
/// next). The result is the same as without the memo.
pub fn analyze_program_with(
    program: &Program,
    table: &BuiltinTable,
    mode: Mode,
    memo: &mut FunctionMemo,
) -> ProgramResult {
    analyze_program_in(program, "", table, mode, memo)
}

/// [`analyze_program_with`] for the program lowered from `source`: knowing the text,
/// an edit inside a function also keeps the analysis of its statements after the edit
/// (moved), from where the analysis meets the last run's again (`values::resume`).
pub fn analyze_program_in(
    program: &Program,
    source: &str,
    table: &BuiltinTable,
    mode: Mode,
    memo: &mut FunctionMemo,
) -> ProgramResult {
    let source: Rc<str> = Rc::from(source);
    let analysis = ValueAnalysis::new(program, table, mode);
    let functions: Vec<FunctionResult> = memo.run(&analysis, &program.functions, |f, old| {
        analyze_function(&analysis, program, f, &source, old)
    });
    let diagnostics = functions
        .iter()
        .flat_map(|f| f.diagnostics.iter().cloned())
        .collect();
    ProgramResult {
        functions,
        diagnostics,
    }
}

/// Analyses `f` (in the text `source`), resuming `old` (the trace of an earlier
/// version of it) from the first top-level statement that changed, and taking its
/// steps after the edit once the analysis meets it again (see `resume`); the result is
/// the same either way.
pub(super) fn analyze_function(
    a: &ValueAnalysis,
    program: &Program,
    f: &Function,
    source: &Rc<str>,
    old: Option<&Trace>,
) -> (FunctionResult, Trace) {
    let is_temp = |n: &str| program.is_temp(n);
    a.prepare(f);
    let context = resume::context(a, f);
    let trace = match run_steps(a, &is_temp, f, &context, source, old) {
        Some(trace) => trace,
        // An origin of the old run had no place in this text after all: from the top.
        None => {
            a.prepare(f);
            run_steps(a, &is_temp, f, &context, source, None)
                .expect("a run without an old trace takes nothing from it")
        }
    };
    let mut statements: Vec<StmtResult> = trace
        .steps
        .iter()
        .flat_map(|s| s.results.iter().cloned())
        .collect();
    let diagnostics = trace
        .steps
        .iter()
        .flat_map(|s| s.diagnostics.iter().cloned())
        .collect();
    // A reader never saw a temporary, nor the stem a rule falls back on when the target
    // is one (`t~c`, `ans~`): both are "an intermediate result" to them.
    let unseen =
        |n: &str| is_temp(n) || f.variables.binary_search_by(|v| v.as_str().cmp(n)).is_err();
    gloss::gloss_all(&f.body, &unseen, &mut statements);
    let result = FunctionResult {
        name: f.name.clone(),
        statements,
        diagnostics,
    };
    (result, trace)
}

/// The steps of `f`: the old trace's before the edit, then analysed, then (once the
/// analysis meets the old one again) the old trace's moved. `None` when a state of the
/// old run could not be moved to this text.
fn run_steps(
    a: &ValueAnalysis,
    is_temp: &dyn Fn(&str) -> bool,
    f: &Function,
    context: &str,
    source: &Rc<str>,
    old: Option<&Trace>,
) -> Option<Trace> {
    let (mut steps, mut state) = match old.and_then(|t| t.resume(a, f, context)) {
        Some(resumed) => resumed,
        None => (Vec::new(), State::Reachable(a.entry(f))),
    };
    let resumed = steps.len();
    let mut suffix = old.and_then(|t| resume::Suffix::new(t, f, context, source, resumed, a));
    let mut moved = 0;
    for (i, stmt) in f.body.iter().enumerate().skip(resumed) {
        if let Some(sfx) = &mut suffix {
            match sfx.step(a, i, stmt, &state) {
                Ok(Some(taken)) => {
                    steps.push(Rc::new(taken));
                    moved += 1;
                    continue;
                }
                Ok(None) => {}
                Err(restored) => state = restored?,
            }
        }
        let (step, after) = step(a, is_temp, stmt, state);
        steps.push(Rc::new(step));
        state = after;
    }
    // Ending with the old run's steps, the analysis ends in its end, moved.
    let end = match suffix.as_ref().and_then(|s| s.ended_with()) {
        Some(old) => Err(old),
        None => Ok(Boundary::now(a, state)),
    };
    Some(Trace::new(
        a,
        f,
        context.to_string(),
        source.clone(),
        steps,
        end,
        (resumed, moved, suffix.map_or(0, |s| s.tries)),
    ))
}

/// Analyses the top-level statement `stmt` from `state`: its step, and the state after
/// it.
fn step(
    a: &ValueAnalysis,
    is_temp: &dyn Fn(&str) -> bool,
    stmt: &Stmt,
    state: State<Env>,
) -> (Step, State<Env>) {
    let before = Boundary::now(a, state.clone());
    a.read_variables.set(false);
    // Nothing the step before left behind (its loops' simulations) is kept: a run
    // resumed here starts without it too.
    a.stepped.borrow_mut().clear();
    let flow = flow::analyze_statement(a, stmt, state);
    let after = flow
        .after
        .get(&stmt.id)
        .cloned()
        .unwrap_or(State::Nonviable);
    let mut results = Vec::new();
    collect(a, is_temp, &flow, std::slice::from_ref(stmt), &mut results);
    // What the flow stepped through is needed no longer: its results are collected.
    a.stepped.borrow_mut().clear();
    let diagnostics = refine_loops(a, is_temp, stmt, &flow, &mut results);
    let step = Step {
        stmt: stmt.clone(),
        before,
        read_variables: a.read_variables.get(),
        results,
        diagnostics,
    };
    (step, after)
}

/// Refines the results of `stmt`'s loops not nested in another loop with their studies
/// (in order, as the symbols they mint are numbered): `results` are those of `stmt` and
/// the statements in it. The loops' notes.
fn refine_loops(
    a: &ValueAnalysis,
    is_temp: &dyn Fn(&str) -> bool,
    stmt: &Stmt,
    flow: &FlowResult<Env>,
    results: &mut [StmtResult],
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for l in outermost_loops(std::slice::from_ref(stmt)) {
        let Some(entry) = flow.before.get(&l.id).and_then(|s| s.fact()) else {
            continue;
        };
        let Some(study) = loops::cached_study(a, l, entry) else {
            continue;
        };
        let fresh = |name: &str, k: usize| a.symbols.mint(&format!("{name}~j"), k, l.id, false);
        // A loop's results are the loop's and then its body's, in a row: the study
        // touches nothing else (walking every statement per loop made long scripts
        // quadratic).
        let first = results.iter().position(|r| r.id == l.id).unwrap_or(0);
        let last = (first + subtree_len(l)).min(results.len());
        apply_study(
            l,
            &study,
            is_temp,
            &fresh,
            &mut results[first..last],
            &mut diagnostics,
        );
    }
    diagnostics
}

/// How many statements `stmt` is, with every statement nested in it.
fn subtree_len(stmt: &Stmt) -> usize {
    1 + stmt
        .children()
        .iter()
        .flat_map(|c| c.iter())
        .map(subtree_len)
        .sum::<usize>()
}

/// Loops not nested in another loop.
fn outermost_loops(stmts: &[Stmt]) -> Vec<&Stmt> {
    let mut out = Vec::new();
    for s in stmts {
        match s.kind {
            StmtKind::For { .. } | StmtKind::While { .. } => out.push(s),
            _ => s
                .children()
                .iter()
                .for_each(|c| out.extend(outermost_loops(c))),
        }
    }
    out
}

/// Refines the fixed-point results of a loop's body with its simulated iterations.
fn apply_study(
    stmt: &Stmt,
    study: &LoopStudy,
    is_temp: &dyn Fn(&str) -> bool,
    fresh: &dyn Fn(&str, usize) -> shapex_dims::Dim,
    statements: &mut [StmtResult],
    diagnostics: &mut Vec<Diagnostic>,
) {
    let refuted =
        |r: &StmtResult| r.viable && r.effect.outcomes.iter().any(|o| o.status == Truth::Refuted);
    for slot in statements.iter_mut() {
        let per_iteration: Vec<&StmtResult> = study
            .iterations
            .iter()
            .filter_map(|it| it.iter().find(|r| r.id == slot.id))
            .collect();
        if per_iteration.is_empty() {
            continue;
        }
        let first_failure = study.iterations.iter().enumerate().find_map(|(j, it)| {
            it.iter()
                .find(|r| r.id == slot.id && refuted(r))
                .map(|r| (j, r))
        });
        match first_failure {
            Some((j, r)) if study.certain[j] && study.top_level.contains(&slot.id) => {
                *slot = StmtResult {
                    iteration: Some((j + 1, study.bindings[j].clone())),
                    ..r.clone()
                };
            }
            Some((j, r)) => diagnostics.push(Diagnostic::warning(
                "shape.loop.iteration",
                format!(
                    "fails on iteration {} if the loop runs that long: {} requires {}",
                    j + 1,
                    r.effect
                        .outcomes
                        .iter()
                        .find(|o| o.status == Truth::Refuted)
                        .map_or("", |o| o.rule.name()),
                    r.effect
                        .outcomes
                        .iter()
                        .find(|o| o.status == Truth::Refuted)
                        .map_or(String::new(), |o| o.theta.to_string()),
                ),
                r.span,
            )),
            None if study.settled => {
                if let Some(c) = loops::combine(&per_iteration, fresh) {
                    *slot = c;
                }
            }
            None => {}
        }
    }
    if let Some(note) = loop_note(study, is_temp, stmt.origin) {
        diagnostics.push(note);
    }
    diagnostics.extend(prealloc_hints(study, is_temp, stmt.origin));
}

/// Joisha §9's inferences about a loop: which variables keep their shape in every
/// iteration and which change it only on the first.
fn loop_note(study: &LoopStudy, is_temp: &dyn Fn(&str) -> bool, span: Span) -> Option<Diagnostic> {
    if !study.settled || study.exits.is_empty() {
        return None;
    }
    // A variable whose shape the loop leaves unknown teaches nothing ("r keeps ? in
    // every iteration" was 2 in 5 of the notes on the real-code corpus): say nothing.
    let unknown = Shape::Unknown.display(crate::shape::Notation::Paper);
    // Nor does one that is π in some iteration: the definite error that made it says
    // so, and "h is π in every iteration" for each value computed from it repeats it.
    let illegal = Shape::Illegal.display(crate::shape::Notation::Paper);
    let mut parts = Vec::new();
    for name in loops::assigned_names(study, is_temp) {
        let h = loops::shape_history(study, &name);
        let steady = h[1..].windows(2).all(|w| w[0] == w[1]);
        if h.last() == Some(&unknown) || h.contains(&illegal) {
            continue;
        }
        if h.iter().all(|s| *s == h[0]) {
            parts.push(format!("{name} keeps {} in every iteration", h[0]));
        } else if steady && h[0] == "undefined" {
            parts.push(format!("{name} is {} in every iteration", h[1]));
        } else if steady && h[0] != h[1] {
            parts.push(format!(
                "{name} changes shape only on the first iteration ({} → {})",
                h[0], h[1]
            ));
        }
    }
    (!parts.is_empty()).then(|| {
        Diagnostic::new(
            crate::Severity::Info,
            "shape.loop",
            format!("loop shapes (Joisha et al. §9): {}", parts.join("; ")),
            span,
        )
    })
}

/// Figures 7–8: a variable that grows on every simulated iteration is worth
/// preallocating. Growth must be provable (more elements after each iteration than
/// before), not merely a symbolic extent written differently.
fn prealloc_hints(
    study: &LoopStudy,
    is_temp: &dyn Fn(&str) -> bool,
    span: Span,
) -> Vec<Diagnostic> {
    if study.exits.len() < 2 {
        return vec![];
    }
    let names = loops::assigned_names(study, is_temp);
    let mut hints = Vec::new();
    for name in names {
        let mut envs = std::iter::once(&study.entry).chain(&study.exits);
        let Some(first) = envs.next() else { continue };
        let mut prev = first.get(&name).map(|v| v.shape.clone());
        let mut grows = prev.is_some();
        for env in envs {
            let next = env.get(&name).map(|v| v.shape.clone());
            grows &= match (&prev, &next) {
                (Some(Shape::Tuple(a)), Some(Shape::Tuple(b))) => env
                    .facts
                    .ask(&Constraint::lt(&a.numel(), &b.numel()))
                    .is_proven(),
                _ => false,
            };
            prev = next;
        }
        if grows {
            let h = loops::history_text(study, &name);
            hints.push(Diagnostic::new(
                crate::Severity::Info,
                "shape.prealloc",
                format!(
                    "{name} grows on every iteration ({h}): preallocate it before the loop (Joisha et al. §12, Figures 7–8)"
                ),
                span,
            ));
        }
    }
    hints
}
