//! Reuse inside one function (issue #19): an edit in a long script re-analyses from the
//! first top-level statement it changed, not from the top.
//!
//! A function is analysed one top-level statement at a time (each a [`Step`]), and the
//! whole state of the analysis is saved at every boundary between two: the flow state
//! (a persistent map, so saving it costs nothing), and the three things later
//! statements read besides it — the symbols minted so far (their records, table ids
//! and name counters), the loop studies stored so far and the simulation budget left.
//! Symbols and studies only grow while a function is analysed, so their state at a
//! boundary is a length of their logs ([`Boundary`]). What a step computes is a function
//! of that state, its statement, and the function's [context](context) (and, for a
//! statement that may change any variable, the list of the function's variables).
//!
//! So when the next version of the function has the same context and starts with the
//! same statements (equal IR, ids and byte offsets included), their steps are kept, the
//! state is put back exactly as it was at the boundary after them, and the analysis
//! goes on from there: every later result, every symbol's name and id, is what a run
//! from the top gives. A step includes its loops' studies and their refinement of its
//! results; only the glossary, which reads the whole function, runs again in full.

use super::results::StmtResult;
use super::transfer::{StudyEntry, StudyKey, ValueAnalysis};
use super::{Env, SymbolHistory};
use crate::flow::State;
use crate::tame::{Function, Stmt};
use shapex_report::Diagnostic;
use std::rc::Rc;

/// The state of a function's analysis between two of its top-level statements.
#[derive(Clone)]
pub(super) struct Boundary {
    pub state: State<Env>,
    /// Symbols minted so far ([`super::Symbols::mark`]).
    pub symbols: usize,
    /// Loop studies stored so far.
    pub studies: usize,
    /// Simulated iterations left.
    pub budget: usize,
}

impl Boundary {
    /// The analysis's state now, with the flow state `state`.
    pub fn now(a: &ValueAnalysis, state: State<Env>) -> Boundary {
        Boundary {
            state,
            symbols: a.symbols.mark(),
            studies: a.studies.borrow().mark(),
            budget: a.simulation_budget.get(),
        }
    }
}

/// One top-level statement's analysis.
pub(super) struct Step {
    pub stmt: Stmt,
    /// The state before it.
    pub before: Boundary,
    /// It read the function's variable list (a call that may change any variable).
    pub read_variables: bool,
    /// The results of it and the statements inside it, refined by its loops' studies,
    /// before the glossary (which reads the whole function) is filled.
    pub results: Vec<StmtResult>,
    /// Its loops' notes.
    pub diagnostics: Vec<Diagnostic>,
}

/// A function's analysis, step by step, as the next version of it may resume it.
pub struct Trace {
    context: String,
    variables: Vec<String>,
    pub(super) steps: Vec<Rc<Step>>,
    /// The state after the last statement.
    end: Boundary,
    symbols: SymbolHistory,
    studies: Vec<(StudyKey, StudyEntry)>,
    /// How many of the steps were kept from the trace this run resumed.
    pub resumed: usize,
}

impl Trace {
    /// The trace of the run that just analysed `f` in `steps`, ending in `end`.
    pub(super) fn new(
        a: &ValueAnalysis,
        f: &Function,
        context: String,
        steps: Vec<Rc<Step>>,
        end: State<Env>,
        resumed: usize,
    ) -> Trace {
        Trace {
            resumed,
            context,
            variables: f.variables.clone(),
            steps,
            end: Boundary::now(a, end),
            symbols: a.symbols.history(),
            studies: a.studies.borrow().history(),
        }
    }

    /// The steps of this trace that `f` starts with, with the analysis put back in the
    /// state after them; `None` when there are none (then `a` is untouched).
    pub(super) fn resume(
        &self,
        a: &ValueAnalysis,
        f: &Function,
        context: &str,
    ) -> Option<(Vec<Rc<Step>>, State<Env>)> {
        if self.context != context {
            return None;
        }
        let same_variables = self.variables == f.variables;
        let kept = self
            .steps
            .iter()
            .zip(&f.body)
            .take_while(|(step, stmt)| {
                step.stmt == **stmt && (same_variables || !step.read_variables)
            })
            .count();
        if kept == 0 {
            return None;
        }
        let at = self.steps.get(kept).map_or(&self.end, |s| &s.before);
        a.symbols.restore(&self.symbols, at.symbols);
        a.studies.borrow_mut().restore(&self.studies, at.studies);
        a.simulation_budget.set(at.budget);
        Some((self.steps[..kept].to_vec(), at.state.clone()))
    }
}

/// Everything a function's steps depend on besides their statements and the function's
/// variables: the mode, the temporaries' prefix, the function's name, kind, parameters
/// and outputs, the file's functions (calls to them are not builtins) and which of them
/// write into their caller, whether a nested function shares this one's workspace, and
/// the globals it declares anywhere.
pub(super) fn context(a: &ValueAnalysis, f: &Function) -> String {
    format!(
        "{}|{}|{}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}",
        a.mode.as_str(),
        a.temp_prefix,
        f.name,
        f.kind,
        f.parent,
        f.params,
        f.outputs,
        a.user_functions,
        a.reaches_caller,
        a.nested_in,
        a.globals.borrow(),
    )
}
