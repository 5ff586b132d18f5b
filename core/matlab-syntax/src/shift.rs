//! Moving a parsed clause to another place in the text: every span moves by the same
//! byte offset. Incremental parsing ([`super::ParseMemo`]) reuses clauses whose text
//! is unchanged but whose position moved with an edit before them.
//!
//! Offsets wrap (`usize` arithmetic modulo 2⁶⁴), so a move back is a move by the
//! wrapping negation. Recursion follows the expression tree, whose depth the parser
//! bounds (`depth::MAX_EXPR_DEPTH`).

use super::ast::*;
use super::blocks::{Clause, FnHead, Head};
use shapex_text::Span;

fn span(s: &mut Span, by: usize) {
    s.start = s.start.wrapping_add(by);
    s.end = s.end.wrapping_add(by);
}

pub(super) fn clause(c: &mut Clause, by: usize) {
    match c {
        Clause::Stmt(s) => stmt(s, by),
        Clause::Many(ss) => ss.iter_mut().for_each(|s| stmt(s, by)),
        Clause::Head(h, s) => {
            head(h, by);
            span(s, by);
        }
        Clause::End(_, s) => span(s, by),
        Clause::Function(f) => fn_head(f, by),
        Clause::Error { span: s, .. } => span(s, by),
    }
}

fn head(h: &mut Head, by: usize) {
    match h {
        Head::If(e)
        | Head::ElseIf(e)
        | Head::Switch(e)
        | Head::Case(e)
        | Head::While(e)
        | Head::Until(e) => expr(e, by),
        Head::For { var, iter, .. } => {
            lvalue(var, by);
            expr(iter, by);
        }
        Head::Catch(name) => name.iter_mut().for_each(|i| ident(i, by)),
        Head::Else
        | Head::Otherwise
        | Head::Do
        | Head::Try
        | Head::Unwind
        | Head::UnwindCleanup => {}
    }
}

fn fn_head(f: &mut FnHead, by: usize) {
    ident(&mut f.name, by);
    f.inputs.iter_mut().flatten().for_each(|i| ident(i, by));
    f.outputs.iter_mut().for_each(|i| ident(i, by));
    span(&mut f.span, by);
}

fn ident(i: &mut Ident, by: usize) {
    span(&mut i.span, by);
}

fn block(ss: &mut [Stmt], by: usize) {
    ss.iter_mut().for_each(|s| stmt(s, by));
}

fn stmt(s: &mut Stmt, by: usize) {
    span(&mut s.span, by);
    match &mut s.kind {
        StmtKind::Expr(e) => expr(e, by),
        StmtKind::Assign { lhs, rhs } => {
            lhs.iter_mut().for_each(|l| lvalue(l, by));
            expr(rhs, by);
        }
        StmtKind::If { arms, else_body } => {
            for (cond, body) in arms {
                expr(cond, by);
                block(body, by);
            }
            else_body.iter_mut().for_each(|b| block(b, by));
        }
        StmtKind::Switch {
            subject,
            cases,
            otherwise,
        } => {
            expr(subject, by);
            for (case, body) in cases {
                expr(case, by);
                block(body, by);
            }
            otherwise.iter_mut().for_each(|b| block(b, by));
        }
        StmtKind::For {
            var, iter, body, ..
        } => {
            lvalue(var, by);
            expr(iter, by);
            block(body, by);
        }
        StmtKind::While { cond, body } | StmtKind::DoUntil { body, cond } => {
            expr(cond, by);
            block(body, by);
        }
        StmtKind::Try {
            body,
            catch_var,
            catch_body,
        } => {
            block(body, by);
            catch_var.iter_mut().for_each(|i| ident(i, by));
            block(catch_body, by);
        }
        StmtKind::UnwindProtect { body, cleanup } => {
            block(body, by);
            block(cleanup, by);
        }
        StmtKind::Global(names) | StmtKind::Persistent(names) => {
            names.iter_mut().for_each(|i| ident(i, by));
        }
        StmtKind::Command { name, .. } => ident(name, by),
        StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Return
        | StmtKind::Arguments
        | StmtKind::Error => {}
    }
}

fn lvalue(l: &mut LValue, by: usize) {
    match l {
        LValue::Tilde(s) => span(s, by),
        LValue::Path {
            base,
            accessors,
            span: s,
        } => {
            ident(base, by);
            accessors.iter_mut().for_each(|a| accessor(a, by));
            span(s, by);
        }
    }
}

fn accessor(a: &mut Accessor, by: usize) {
    match a {
        Accessor::Paren(args) | Accessor::Brace(args) => args.iter_mut().for_each(|e| expr(e, by)),
        Accessor::Field(i) => ident(i, by),
        Accessor::DynField(e) => expr(e, by),
    }
}

fn expr(e: &mut Expr, by: usize) {
    span(&mut e.span, by);
    match &mut e.kind {
        ExprKind::Number { .. }
        | ExprKind::Str { .. }
        | ExprKind::Colon
        | ExprKind::End
        | ExprKind::FuncHandle(_) => {}
        ExprKind::Ident(i) => ident(i, by),
        ExprKind::Binary { lhs, rhs, .. } => {
            expr(lhs, by);
            expr(rhs, by);
        }
        ExprKind::Unary { operand, .. } | ExprKind::Postfix { operand, .. } => expr(operand, by),
        ExprKind::Range { start, step, stop } => {
            expr(start, by);
            step.iter_mut().for_each(|s| expr(s, by));
            expr(stop, by);
        }
        ExprKind::Index { base, args } | ExprKind::CellIndex { base, args } => {
            expr(base, by);
            args.iter_mut().for_each(|a| expr(a, by));
        }
        ExprKind::Field { base, name } => {
            expr(base, by);
            ident(name, by);
        }
        ExprKind::DynField { base, name } => {
            expr(base, by);
            expr(name, by);
        }
        ExprKind::Matrix(rows) | ExprKind::Cell(rows) => {
            rows.iter_mut().flatten().for_each(|e| expr(e, by));
        }
        ExprKind::Lambda { params, body } => {
            params.iter_mut().for_each(|i| ident(i, by));
            expr(body, by);
        }
        ExprKind::AssignExpr { target, value, .. } => {
            lvalue(target, by);
            expr(value, by);
        }
    }
}
