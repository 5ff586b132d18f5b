//! The expression depth limit. The grammar bounds how deep brackets and anonymous
//! functions nest (`nest` in matlab.pest), but a chain needs no brackets to build a
//! deep tree: `a + b + c + …` (one term per continuation line, say) is a
//! left-leaning tree as deep as the chain is long, and runs of prefix or postfix
//! operators (`~~~~x`, `x''''`, `s.a.b.c…`) and `a^-b^-c…` nest the same way. The
//! analysis walks expressions recursively, so a clause whose expressions nest deeper
//! than [`MAX_EXPR_DEPTH`] becomes a syntax error. Measuring and discarding such a tree
//! is iterative here: neither may recurse once per level.

use super::ast::*;
use super::blocks::{Clause, Head};

/// Expressions nested deeper than this are rejected. No statement in Octave's own
/// m-files is deeper than 15; a sum of 255 terms fits. Accepted trees stay well within
/// the analysis' stack on a 1 MB (wasm) stack.
pub(super) const MAX_EXPR_DEPTH: usize = 256;

/// Pushes the direct subexpressions of `e` (those of an assignment target included).
fn children<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    match &e.kind {
        ExprKind::Binary { lhs, rhs, .. } => out.extend([&**lhs, &**rhs]),
        ExprKind::Unary { operand, .. } | ExprKind::Postfix { operand, .. } => out.push(operand),
        ExprKind::Range { start, step, stop } => {
            out.push(start);
            out.extend(step.as_deref());
            out.push(stop);
        }
        ExprKind::Index { base, args } | ExprKind::CellIndex { base, args } => {
            out.push(base);
            out.extend(args);
        }
        ExprKind::Field { base, .. } => out.push(base),
        ExprKind::DynField { base, name } => out.extend([&**base, &**name]),
        ExprKind::Matrix(rows) | ExprKind::Cell(rows) => out.extend(rows.iter().flatten()),
        ExprKind::Lambda { body, .. } => out.push(body),
        ExprKind::AssignExpr { target, value, .. } => {
            lvalue_exprs(target, out);
            out.push(value);
        }
        ExprKind::Number { .. }
        | ExprKind::Str { .. }
        | ExprKind::Ident(_)
        | ExprKind::Colon
        | ExprKind::End
        | ExprKind::FuncHandle(_) => {}
    }
}

/// The index and dynamic-field expressions of an assignment target.
fn lvalue_exprs<'a>(lv: &'a LValue, out: &mut Vec<&'a Expr>) {
    if let LValue::Path { accessors, .. } = lv {
        for a in accessors {
            match a {
                Accessor::Paren(args) | Accessor::Brace(args) => out.extend(args),
                Accessor::DynField(e) => out.push(e),
                Accessor::Field(_) => {}
            }
        }
    }
}

/// Whether any of `roots` nests more than `limit` expression nodes deep (a leaf is
/// depth 1). Stops at the first node beyond the limit.
fn any_exceeds<'a>(roots: impl IntoIterator<Item = &'a Expr>, limit: usize) -> bool {
    let mut stack: Vec<(&Expr, usize)> = roots.into_iter().map(|e| (e, 1)).collect();
    let mut kids = vec![];
    while let Some((e, depth)) = stack.pop() {
        if depth > limit {
            return true;
        }
        children(e, &mut kids);
        stack.extend(kids.drain(..).map(|k| (k, depth + 1)));
    }
    false
}

/// Whether `e` nests more than `limit` deep.
pub(super) fn exceeds(e: &Expr, limit: usize) -> bool {
    any_exceeds([e], limit)
}

/// Whether an index expression of `lv` nests more than `limit` deep.
pub(super) fn lvalue_exceeds(lv: &LValue, limit: usize) -> bool {
    let mut roots = vec![];
    lvalue_exprs(lv, &mut roots);
    any_exceeds(roots, limit)
}

/// The top-level expressions of a statement (nested statements included).
fn stmt_roots<'a>(s: &'a Stmt, out: &mut Vec<&'a Expr>) {
    let mut stmts = vec![s];
    while let Some(s) = stmts.pop() {
        match &s.kind {
            StmtKind::Expr(e) => out.push(e),
            StmtKind::Assign { lhs, rhs } => {
                lhs.iter().for_each(|lv| lvalue_exprs(lv, out));
                out.push(rhs);
            }
            StmtKind::If { arms, else_body } => {
                for (cond, body) in arms {
                    out.push(cond);
                    stmts.extend(body);
                }
                stmts.extend(else_body.iter().flatten());
            }
            StmtKind::Switch {
                subject,
                cases,
                otherwise,
            } => {
                out.push(subject);
                for (label, body) in cases {
                    out.push(label);
                    stmts.extend(body);
                }
                stmts.extend(otherwise.iter().flatten());
            }
            StmtKind::For {
                var, iter, body, ..
            } => {
                lvalue_exprs(var, out);
                out.push(iter);
                stmts.extend(body);
            }
            StmtKind::While { cond, body } | StmtKind::DoUntil { body, cond } => {
                out.push(cond);
                stmts.extend(body);
            }
            StmtKind::Try {
                body, catch_body, ..
            } => stmts.extend(body.iter().chain(catch_body)),
            StmtKind::UnwindProtect { body, cleanup } => stmts.extend(body.iter().chain(cleanup)),
            StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Return
            | StmtKind::Global(_)
            | StmtKind::Persistent(_)
            | StmtKind::Command { .. }
            | StmtKind::Arguments
            | StmtKind::Error => {}
        }
    }
}

/// The top-level expressions of a clause.
fn clause_roots(c: &Clause) -> Vec<&Expr> {
    let mut out = vec![];
    match c {
        Clause::Stmt(s) => stmt_roots(s, &mut out),
        Clause::Many(stmts) => stmts.iter().for_each(|s| stmt_roots(s, &mut out)),
        Clause::Head(head, _) => match head {
            Head::If(e)
            | Head::ElseIf(e)
            | Head::Switch(e)
            | Head::Case(e)
            | Head::While(e)
            | Head::Until(e) => out.push(e),
            Head::For { var, iter, .. } => {
                lvalue_exprs(var, &mut out);
                out.push(iter);
            }
            Head::Else
            | Head::Otherwise
            | Head::Do
            | Head::Try
            | Head::Catch(_)
            | Head::Unwind
            | Head::UnwindCleanup => {}
        },
        Clause::End(..) | Clause::Function(_) | Clause::Error { .. } => {}
    }
    out
}

/// Whether an expression of `c` nests more than `limit` deep.
pub(super) fn clause_exceeds(c: &Clause, limit: usize) -> bool {
    any_exceeds(clause_roots(c), limit)
}

/// Drops `c` without recursing once per level of its expressions (dropping a deep
/// tree the ordinary way recurses as deep as the tree).
pub(super) fn discard(c: Clause) {
    let mut exprs = vec![];
    let mut stmts = match c {
        Clause::Stmt(s) => vec![s],
        Clause::Many(stmts) => stmts,
        Clause::Head(head, _) => {
            match head {
                Head::If(e)
                | Head::ElseIf(e)
                | Head::Switch(e)
                | Head::Case(e)
                | Head::While(e)
                | Head::Until(e) => exprs.push(e),
                Head::For { var, iter, .. } => {
                    lvalue_into(var, &mut exprs);
                    exprs.push(iter);
                }
                _ => {}
            }
            vec![]
        }
        Clause::End(..) | Clause::Function(_) | Clause::Error { .. } => vec![],
    };
    while let Some(s) = stmts.pop() {
        match s.kind {
            StmtKind::Expr(e) => exprs.push(e),
            StmtKind::Assign { lhs, rhs } => {
                lhs.into_iter().for_each(|lv| lvalue_into(lv, &mut exprs));
                exprs.push(rhs);
            }
            StmtKind::If { arms, else_body } => {
                for (cond, body) in arms {
                    exprs.push(cond);
                    stmts.extend(body);
                }
                stmts.extend(else_body.into_iter().flatten());
            }
            StmtKind::Switch {
                subject,
                cases,
                otherwise,
            } => {
                exprs.push(subject);
                for (label, body) in cases {
                    exprs.push(label);
                    stmts.extend(body);
                }
                stmts.extend(otherwise.into_iter().flatten());
            }
            StmtKind::For {
                var, iter, body, ..
            } => {
                lvalue_into(var, &mut exprs);
                exprs.push(iter);
                stmts.extend(body);
            }
            StmtKind::While { cond, body } | StmtKind::DoUntil { body, cond } => {
                exprs.push(cond);
                stmts.extend(body);
            }
            StmtKind::Try {
                body, catch_body, ..
            } => stmts.extend(body.into_iter().chain(catch_body)),
            StmtKind::UnwindProtect { body, cleanup } => {
                stmts.extend(body.into_iter().chain(cleanup))
            }
            _ => {}
        }
    }
    while let Some(e) = exprs.pop() {
        match e.kind {
            ExprKind::Binary { lhs, rhs, .. } => exprs.extend([*lhs, *rhs]),
            ExprKind::Unary { operand, .. } | ExprKind::Postfix { operand, .. } => {
                exprs.push(*operand)
            }
            ExprKind::Range { start, step, stop } => {
                exprs.push(*start);
                exprs.extend(step.map(|s| *s));
                exprs.push(*stop);
            }
            ExprKind::Index { base, args } | ExprKind::CellIndex { base, args } => {
                exprs.push(*base);
                exprs.extend(args);
            }
            ExprKind::Field { base, .. } => exprs.push(*base),
            ExprKind::DynField { base, name } => exprs.extend([*base, *name]),
            ExprKind::Matrix(rows) | ExprKind::Cell(rows) => {
                exprs.extend(rows.into_iter().flatten())
            }
            ExprKind::Lambda { body, .. } => exprs.push(*body),
            ExprKind::AssignExpr { target, value, .. } => {
                lvalue_into(*target, &mut exprs);
                exprs.push(*value);
            }
            ExprKind::Number { .. }
            | ExprKind::Str { .. }
            | ExprKind::Ident(_)
            | ExprKind::Colon
            | ExprKind::End
            | ExprKind::FuncHandle(_) => {}
        }
    }
}

/// Moves the expressions of an assignment target into `out`.
fn lvalue_into(lv: LValue, out: &mut Vec<Expr>) {
    if let LValue::Path { accessors, .. } = lv {
        for a in accessors {
            match a {
                Accessor::Paren(args) | Accessor::Brace(args) => out.extend(args),
                Accessor::DynField(e) => out.push(e),
                Accessor::Field(_) => {}
            }
        }
    }
}
