//! Name collection over the MATLAB AST: the kind analysis (which names are variables in a
//! function) and the set of all names (so lowering temporaries cannot clash with them).

use shapex_matlab_syntax::ast::*;
use std::collections::BTreeSet;

/// Names a function's body assigns (its kind analysis, without inputs/outputs).
/// Nested functions are not entered: they have their own analysis.
pub fn assigned(stmts: &[Stmt], out: &mut BTreeSet<String>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { lhs, .. } => {
                for lv in lhs {
                    if let LValue::Path { base, .. } = lv {
                        out.insert(base.name.clone());
                    }
                }
            }
            StmtKind::For { var, body, .. } => {
                if let LValue::Path { base, .. } = var {
                    out.insert(base.name.clone());
                }
                assigned(body, out);
            }
            StmtKind::Global(ids) | StmtKind::Persistent(ids) => {
                out.extend(ids.iter().map(|i| i.name.clone()));
            }
            StmtKind::Try {
                body,
                catch_var,
                catch_body,
            } => {
                assigned(body, out);
                if let Some(v) = catch_var {
                    out.insert(v.name.clone());
                }
                assigned(catch_body, out);
            }
            _ => each_body(s, |b| assigned(b, out)),
        }
    }
}

fn each_body(s: &Stmt, mut f: impl FnMut(&[Stmt])) {
    match &s.kind {
        StmtKind::If { arms, else_body } => {
            arms.iter().for_each(|(_, b)| f(b));
            if let Some(b) = else_body {
                f(b);
            }
        }
        StmtKind::Switch {
            cases, otherwise, ..
        } => {
            cases.iter().for_each(|(_, b)| f(b));
            if let Some(b) = otherwise {
                f(b);
            }
        }
        StmtKind::For { body, .. }
        | StmtKind::While { body, .. }
        | StmtKind::DoUntil { body, .. } => f(body),
        StmtKind::Try {
            body, catch_body, ..
        } => {
            f(body);
            f(catch_body);
        }
        StmtKind::UnwindProtect { body, cleanup } => {
            f(body);
            f(cleanup);
        }
        _ => {}
    }
}

/// Every identifier an expression mentions, in order of first appearance.
pub fn expr_names(e: &Expr, out: &mut Vec<String>) {
    let push = |n: &str, out: &mut Vec<String>| {
        if !out.iter().any(|m| m == n) {
            out.push(n.to_string());
        }
    };
    match &e.kind {
        ExprKind::Ident(i) => push(&i.name, out),
        ExprKind::Binary { lhs, rhs, .. } => {
            expr_names(lhs, out);
            expr_names(rhs, out);
        }
        ExprKind::Unary { operand, .. } | ExprKind::Postfix { operand, .. } => {
            expr_names(operand, out)
        }
        ExprKind::Range { start, step, stop } => {
            expr_names(start, out);
            if let Some(s) = step {
                expr_names(s, out);
            }
            expr_names(stop, out);
        }
        ExprKind::Index { base, args } | ExprKind::CellIndex { base, args } => {
            expr_names(base, out);
            args.iter().for_each(|a| expr_names(a, out));
        }
        ExprKind::Field { base, .. } => expr_names(base, out),
        ExprKind::DynField { base, name } => {
            expr_names(base, out);
            expr_names(name, out);
        }
        ExprKind::Matrix(rows) | ExprKind::Cell(rows) => {
            rows.iter().flatten().for_each(|x| expr_names(x, out))
        }
        ExprKind::FuncHandle(n) => push(n, out),
        ExprKind::Lambda { params, body } => {
            params.iter().for_each(|p| push(&p.name, out));
            expr_names(body, out);
        }
        ExprKind::AssignExpr { target, value, .. } => {
            if let LValue::Path { base, .. } = &**target {
                push(&base.name, out);
            }
            expr_names(value, out);
        }
        ExprKind::Number { .. } | ExprKind::Str { .. } | ExprKind::Colon | ExprKind::End => {}
    }
}

/// The free names of a lambda body: names it mentions other than its parameters
/// (nested lambdas' own parameters excluded), in order of first appearance.
pub fn free_names(params: &[Ident], body: &Expr) -> Vec<String> {
    let mut out = Vec::new();
    free(body, &mut out);
    out.retain(|n| !params.iter().any(|p| &p.name == n));
    out
}

fn free(e: &Expr, out: &mut Vec<String>) {
    if let ExprKind::Lambda { params, body } = &e.kind {
        for n in free_names(params, body) {
            if !out.contains(&n) {
                out.push(n);
            }
        }
        return;
    }
    // Recurse through sub-expressions, but route lambdas through `free`.
    match &e.kind {
        ExprKind::Ident(i) if !out.contains(&i.name) => out.push(i.name.clone()),
        ExprKind::Binary { lhs, rhs, .. } => {
            free(lhs, out);
            free(rhs, out);
        }
        ExprKind::Unary { operand, .. } | ExprKind::Postfix { operand, .. } => free(operand, out),
        ExprKind::Range { start, step, stop } => {
            free(start, out);
            if let Some(s) = step {
                free(s, out);
            }
            free(stop, out);
        }
        ExprKind::Index { base, args } | ExprKind::CellIndex { base, args } => {
            free(base, out);
            args.iter().for_each(|a| free(a, out));
        }
        ExprKind::Field { base, .. } => free(base, out),
        ExprKind::DynField { base, name } => {
            free(base, out);
            free(name, out);
        }
        ExprKind::Matrix(rows) | ExprKind::Cell(rows) => {
            rows.iter().flatten().for_each(|x| free(x, out))
        }
        _ => {}
    }
}

/// Every name in the file: variables, functions, fields excluded.
pub fn all_names(file: &File) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    stmts_names(&file.body, &mut out);
    for f in &file.functions {
        function_names(f, &mut out);
    }
    out
}

fn function_names(f: &Function, out: &mut BTreeSet<String>) {
    out.insert(f.name.name.clone());
    out.extend(f.inputs.iter().flatten().map(|i| i.name.clone()));
    out.extend(f.outputs.iter().map(|i| i.name.clone()));
    stmts_names(&f.body, out);
    for n in &f.nested {
        function_names(n, out);
    }
}

fn stmts_names(stmts: &[Stmt], out: &mut BTreeSet<String>) {
    assigned(stmts, out);
    let mut v = Vec::new();
    for s in stmts {
        stmt_exprs(s, &mut |e| expr_names(e, &mut v));
        each_body(s, |b| stmts_names(b, out));
        if let StmtKind::Command { name, .. } = &s.kind {
            out.insert(name.name.clone());
        }
    }
    out.extend(v);
}

/// The expressions directly in a statement (not in its nested bodies).
fn stmt_exprs(s: &Stmt, f: &mut impl FnMut(&Expr)) {
    match &s.kind {
        StmtKind::Expr(e) => f(e),
        StmtKind::Assign { lhs, rhs } => {
            f(rhs);
            lhs.iter().for_each(|lv| lvalue_exprs(lv, f));
        }
        StmtKind::If { arms, .. } => arms.iter().for_each(|(c, _)| f(c)),
        StmtKind::Switch { subject, cases, .. } => {
            f(subject);
            cases.iter().for_each(|(c, _)| f(c));
        }
        StmtKind::For { var, iter, .. } => {
            lvalue_exprs(var, f);
            f(iter);
        }
        StmtKind::While { cond, .. } | StmtKind::DoUntil { cond, .. } => f(cond),
        _ => {}
    }
}

fn lvalue_exprs(lv: &LValue, f: &mut impl FnMut(&Expr)) {
    if let LValue::Path { accessors, .. } = lv {
        for a in accessors {
            match a {
                Accessor::Paren(xs) | Accessor::Brace(xs) => xs.iter().for_each(&mut *f),
                Accessor::DynField(x) => f(x),
                Accessor::Field(_) => {}
            }
        }
    }
}
