//! The value analysis as the flow framework sees it ([`Analysis`]): the one place where
//! statements (`transfer`) and loops (`loops`) meet the framework.
//!
//! The algorithm is recursive — a statement may be a loop, whose study runs the flow
//! over its body again, which transfers statements, which may be loops — but the
//! recursion goes through this trait and through methods of [`ValueAnalysis`] defined
//! in `transfer` and `call` (`step`, `call`, `bind`), never through a `use` of a higher
//! module: the files of `values` import each other without a cycle.

use super::loops;
use super::state::{Stepped, ValueAnalysis};
use super::Env;
use crate::flow::{Analysis, State};
use crate::tame::{ForIter, Stmt, StmtId, StmtKind, Var};

impl Analysis for ValueAnalysis<'_> {
    type Graph = crate::flow::Tame;
    type Fact = Env;

    fn join(&self, a: &Env, b: &Env) -> Env {
        // Only the function's exit joins without a statement (fall-through and returns).
        self.join_at_site(StmtId(u32::MAX), false, a, b)
    }

    fn join_at(&self, at: &Stmt, a: &Env, b: &Env) -> Env {
        let head = matches!(at.kind, StmtKind::For { .. } | StmtKind::While { .. });
        let joined = self.join_at_site(at.id, head, a, b);
        // A scalar each path gives its own value (see `merge_scalars`).
        let merged = |name: &str| self.symbols.mint(&format!("{name}~m"), 0, at.id, true);
        match &at.kind {
            // The two branches of an `if`: what each path's condition tells (see
            // `refine_branch_merge`).
            StmtKind::If { cond, .. } => {
                let joined = super::refine_branch_merge(joined, cond, a, b);
                super::merge_scalars(joined, a, b, &merged)
            }
            StmtKind::Try { .. } => super::merge_scalars(joined, a, b, &merged),
            _ => joined,
        }
    }

    fn join_head(&self, at: &Stmt, before: &Env, back: &Env) -> Env {
        let joined = self.join_at(at, before, back);
        let counter = |name: &str| self.symbols.mint(&format!("{name}~h"), 0, at.id, true);
        super::name_counters(joined, before, back, &counter)
    }

    fn exact_loop(&self, stmt: &Stmt, input: &Env) -> Option<State<Env>> {
        loops::exact_exit(self, stmt, input)
    }

    fn for_exit(&self, _stmt: &Stmt, var: &Var, iter: &ForIter, exit: &Env) -> State<Env> {
        loops::for_exit(var, iter, exit)
    }

    fn transfer(&self, stmt: &Stmt, input: &Env) -> State<Env> {
        let (out, effect) = self.step(stmt, input);
        let stepped = Stepped {
            input: input.clone(),
            path: self.symbols.iteration_path(),
            out: out.clone(),
            effect,
        };
        self.stepped.borrow_mut().insert(stmt.id, stepped);
        out
    }

    fn branch(&self, _stmt: &Stmt, cond: &Var, taken: bool, input: &Env) -> State<Env> {
        // A condition whose value decides the test prunes the branch it rules out.
        match input.get(cond).and_then(|v| v.truth(&input.facts)) {
            Some(truth) if truth != taken => State::Nonviable,
            // A comparison of integers holds on the branch taken when it is true, its
            // negation on the other (`if n > 10, error(…), end` leaves `n ≤ 10`).
            _ => match input.get(cond).and_then(|v| v.guard.as_deref()) {
                Some(guard) => State::Reachable(super::assuming(input, guard, taken)),
                None => State::Reachable(input.clone()),
            },
        }
    }

    fn for_iteration(&self, stmt: &Stmt, var: &Var, iter: &ForIter, input: &Env) -> State<Env> {
        self.bind_loop_variable(stmt, var, iter, input)
    }
}
