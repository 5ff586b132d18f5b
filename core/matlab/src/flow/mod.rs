//! The Tame IR as a structured control-flow graph ([`Tame`]) for the shared forward
//! flow framework, `shapex-flow`, which knows nothing of MATLAB.

use crate::tame::{ForIter, Function, Stmt, StmtId, StmtKind, Var};
pub use shapex_flow::{Analysis, Cfg, Control, LoopInfo, State, MAX_ITERATIONS};

/// The Tame IR's statements, as the flow framework walks them.
pub struct Tame;

impl Cfg for Tame {
    type Stmt = Stmt;
    type Id = StmtId;
    type Cond = Var;
    type LoopVar = Var;
    type Iter = ForIter;

    fn id(stmt: &Stmt) -> StmtId {
        stmt.id
    }

    fn control(stmt: &Stmt) -> Control<'_, Tame> {
        match &stmt.kind {
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => Control::If {
                cond,
                then_body,
                else_body,
            },
            StmtKind::While { header, cond, body } => Control::While { header, cond, body },
            StmtKind::For { var, iter, body } => Control::For { var, iter, body },
            StmtKind::Try {
                body, catch_body, ..
            } => Control::Try { body, catch_body },
            StmtKind::Break => Control::Break,
            StmtKind::Continue => Control::Continue,
            StmtKind::Return => Control::Return,
            _ => Control::Simple,
        }
    }
}

/// The results of one analysis over one Tame function.
pub type FlowResult<F> = shapex_flow::FlowResult<StmtId, F>;

/// Runs `analysis` over `func`'s body from the fact `entry`.
pub fn analyze_function<A: Analysis<Graph = Tame>>(
    analysis: &A,
    func: &Function,
    entry: A::Fact,
) -> FlowResult<A::Fact> {
    shapex_flow::analyze(analysis, &func.body, entry)
}

/// Runs `analysis` over one top-level statement of a body from `entry`, the state the
/// statements before it left (see `shapex_flow::analyze_state`).
pub fn analyze_statement<A: Analysis<Graph = Tame>>(
    analysis: &A,
    stmt: &Stmt,
    entry: State<A::Fact>,
) -> FlowResult<A::Fact> {
    shapex_flow::analyze_state(analysis, std::slice::from_ref(stmt), entry)
}

#[cfg(test)]
mod tests;
