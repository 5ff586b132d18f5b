//! Running the value analysis over a whole program: each function analysed on its own,
//! one top-level statement at a time, and the results collected per IR statement.

use super::gloss;
use super::loops;
use super::memo::FunctionMemo;
use super::results::{FunctionResult, ProgramResult, StmtResult};
use super::resume::{self, Boundary, Step, Trace};
use super::state::ValueAnalysis;
use super::transfer::collect;
use super::Env;
use crate::builtins::BuiltinTable;
use crate::flow::{self, State};
use crate::tame::{Function, Program, Stmt};
use crate::Mode;
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
    let diagnostics = loops::refine(a, is_temp, stmt, &flow, &mut results);
    let step = Step {
        stmt: stmt.clone(),
        before,
        read_variables: a.read_variables.get(),
        results,
        diagnostics,
    };
    (step, after)
}
