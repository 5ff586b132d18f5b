//! Running the value analysis over a whole program and collecting, per IR statement,
//! what the Report shows: the values it defines, the outcome of its shape rules, and
//! whether it is reachable.

use super::transfer::{Effect, ValueAnalysis};
use super::{Env, Value};
use crate::builtins::BuiltinTable;
use crate::flow::{self, Analysis, FlowResult, LoopInfo, State};
use crate::report::Mode;
use crate::span::Span;
use crate::tame::{Function, Program, Stmt, StmtId, StmtKind};

/// The analysis result of one IR statement.
#[derive(Clone, Debug)]
pub struct StmtResult {
    pub id: StmtId,
    /// The source statement this IR statement was lowered from.
    pub origin: Span,
    /// The span of the expression it computes.
    pub span: Span,
    /// False when no execution reaches it (after a definite error, …).
    pub viable: bool,
    /// The variables it assigns with their values afterwards (a definite error leaves
    /// them illegal, π).
    pub defs: Vec<(String, Value)>,
    pub effect: Effect,
    /// The facts in force before the statement, for simplifying its condition.
    pub before: Option<Env>,
}

pub struct FunctionResult {
    pub name: String,
    pub statements: Vec<StmtResult>,
    pub loops: Vec<(StmtId, Span, LoopInfo<Env>)>,
}

pub struct ProgramResult {
    pub functions: Vec<FunctionResult>,
}

/// Analyses every function of `program` (each on its own, inputs symbolic).
pub fn analyze_program(program: &Program, table: &BuiltinTable, mode: Mode) -> ProgramResult {
    let analysis = ValueAnalysis {
        builtins: table,
        mode,
        user_functions: program.functions.iter().map(|f| f.name.clone()).collect(),
        temp_prefix: program.temp_prefix.clone(),
    };
    let functions = program
        .functions
        .iter()
        .map(|f| analyze_function(&analysis, program, f))
        .collect();
    ProgramResult { functions }
}

fn analyze_function(a: &ValueAnalysis, program: &Program, f: &Function) -> FunctionResult {
    let flow = flow::analyze_function(a, f);
    let mut statements = Vec::new();
    collect(a, program, &flow, &f.body, &mut statements);
    let mut loops = Vec::new();
    collect_loops(&f.body, &flow, &mut loops);
    FunctionResult {
        name: f.name.clone(),
        statements,
        loops,
    }
}

fn collect(
    a: &ValueAnalysis,
    program: &Program,
    flow: &FlowResult<Env>,
    stmts: &[Stmt],
    out: &mut Vec<StmtResult>,
) {
    for s in stmts {
        let before = flow.before.get(&s.id).and_then(|st| st.fact()).cloned();
        let (after, effect) = match (&before, &s.kind) {
            (Some(env), StmtKind::For { var, iter, .. }) => {
                (a.for_iteration(s, var, iter, env), Effect::default())
            }
            (Some(env), _) => a.step(s, env),
            (None, _) => (State::Nonviable, Effect::default()),
        };
        let defs = s
            .defs()
            .into_iter()
            .filter(|v| !program.is_temp(v))
            .map(|v| {
                let value = match &after {
                    State::Reachable(env) => env.get(v).cloned().unwrap_or_else(Value::unknown),
                    State::Nonviable => Value::of_shape(None, crate::shape::Shape::Illegal),
                };
                (v.clone(), value)
            })
            .collect();
        out.push(StmtResult {
            id: s.id,
            origin: s.origin,
            span: s.span,
            viable: before.is_some(),
            defs,
            effect,
            before,
        });
        for child in s.children() {
            collect(a, program, flow, child, out);
        }
    }
}

fn collect_loops(
    stmts: &[Stmt],
    flow: &FlowResult<Env>,
    out: &mut Vec<(StmtId, Span, LoopInfo<Env>)>,
) {
    for s in stmts {
        if let Some(info) = flow.loops.get(&s.id) {
            out.push((s.id, s.origin, info.clone()));
        }
        for child in s.children() {
            collect_loops(child, flow, out);
        }
    }
}
