//! The results of the value analysis, per IR statement, function and program: what
//! the Report shows (the values a statement defines, the outcome of its shape rules,
//! whether it is reachable).

use super::gloss::Gloss;
use super::transfer::Effect;
use super::Value;
use crate::tame::StmtId;
use shapex_dims::Facts;
use shapex_report::Diagnostic;
use shapex_text::Span;

/// The analysis result of one IR statement.
#[derive(Clone, Debug)]
pub struct StmtResult {
    pub id: StmtId,
    /// The source statement this IR statement was lowered from.
    pub origin: Span,
    /// The span of the expression it computes.
    pub span: Span,
    /// For a binary operator, the source between its operands (see `tame::Stmt`).
    pub operator: Option<Span>,
    /// False when no execution reaches it (after a definite error, …).
    pub viable: bool,
    /// The variables it assigns with their values afterwards (a definite error leaves
    /// them illegal, π).
    pub defs: Vec<(String, Value)>,
    pub effect: Effect,
    /// The extent facts in force before the statement, for simplifying its condition
    /// (only the facts: variables' values before it are not kept).
    pub facts_before: Option<Facts>,
    /// For a result taken from a simulated loop iteration: which one (1-based), and the
    /// loop variable's value in it when known (`t = 3`).
    pub iteration: Option<(usize, Option<String>)>,
    /// What the symbols in its shapes and conditions stand for (filled once the
    /// function's analysis is complete).
    pub glossary: Vec<Gloss>,
}

#[derive(Clone, Debug)]
pub struct FunctionResult {
    pub name: String,
    pub statements: Vec<StmtResult>,
    /// Loop notes and possible later-iteration failures of this function's loops.
    pub diagnostics: Vec<Diagnostic>,
}

pub struct ProgramResult {
    pub functions: Vec<FunctionResult>,
    /// Loop notes and possible later-iteration failures (spans cover the whole loop).
    pub diagnostics: Vec<Diagnostic>,
}
