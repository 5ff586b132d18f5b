//! Printing terms, types and definitions of the AST in the grammar's syntax (what the
//! parser of `shapex-vec-syntax` reads back to the same tree, spans aside), so that a
//! shape program `#t` ([`crate::shape`]) can be read.
//!
//! Every application is printed prefix (`cons a b`, `(+) <a, b>`, `(=) a b`): the
//! infix sugar is not restored. Pairs print with angle brackets, sizes as `~n`,
//! consecutive unannotated λ-binders as `\x y. t`. Parentheses are added only where
//! the grammar needs them: around a λ, `rec`, `ifs`, `if`, `check` or `let` that is
//! not last, and around an application in argument position.

use shapex_vec_syntax::ast::{Def, Param, Term, TermKind, Type, TypeKind};

/// `t` in the grammar's syntax.
pub fn term(t: &Term) -> String {
    let mut out = String::new();
    print_term(t, Prec::Low, &mut out);
    out
}

/// `τ` in the grammar's syntax.
pub fn ty(t: &Type) -> String {
    let mut out = String::new();
    print_type(t, TyPrec::Arrow, &mut out);
    out
}

/// `def name params : τ = body`.
pub fn def(d: &Def) -> String {
    let mut out = format!("def {}", d.name.name);
    for p in &d.params {
        out.push(' ');
        binder(p, &mut out);
    }
    if let Some(t) = &d.ty {
        out.push_str(" : ");
        print_type(t, TyPrec::Arrow, &mut out);
    }
    out.push_str(" = ");
    print_term(&d.body, Prec::Low, &mut out);
    out
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    /// Anything, a λ included (last in its context).
    Low,
    /// The function of an application.
    App,
    /// An argument.
    Atom,
}

const OPERATORS: [&str; 6] = ["+", "-", "*", "/", "=", "~+"];

fn binder(p: &Param, out: &mut String) {
    match &p.ty {
        None => out.push_str(&p.name.name),
        Some(t) => {
            out.push('(');
            out.push_str(&p.name.name);
            out.push_str(" : ");
            print_type(t, TyPrec::Arrow, out);
            out.push(')');
        }
    }
}

fn open(paren: bool, out: &mut String) {
    if paren {
        out.push('(');
    }
}

fn close(paren: bool, out: &mut String) {
    if paren {
        out.push(')');
    }
}

fn print_term(t: &Term, prec: Prec, out: &mut String) {
    match &t.kind {
        TermKind::Var(x) => {
            let name = crate::combinators::primitive(&x.name);
            if OPERATORS.contains(&name) {
                out.push('(');
                out.push_str(name);
                out.push(')');
            } else {
                out.push_str(name);
            }
        }
        TermKind::Nat(n) => out.push_str(&n.to_string()),
        TermKind::Size(n) => {
            out.push('~');
            out.push_str(&n.to_string());
        }
        TermKind::Pair(a, b) => {
            out.push('<');
            print_term(a, Prec::Low, out);
            out.push_str(", ");
            print_term(b, Prec::Low, out);
            out.push('>');
        }
        TermKind::Vector(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                print_term(item, Prec::Low, out);
            }
            out.push(']');
        }
        TermKind::App { fun, arg, .. } => {
            let paren = prec > Prec::App;
            open(paren, out);
            print_term(fun, Prec::App, out);
            out.push(' ');
            print_term(arg, Prec::Atom, out);
            close(paren, out);
        }
        TermKind::Lam { param, body } => {
            let paren = prec > Prec::Low;
            open(paren, out);
            out.push('\\');
            binder(param, out);
            let mut body = &**body;
            while let TermKind::Lam { param, body: inner } = &body.kind {
                out.push(' ');
                binder(param, out);
                body = inner;
            }
            out.push_str(". ");
            print_term(body, Prec::Low, out);
            close(paren, out);
        }
        TermKind::Rec { param, body } => {
            let paren = prec > Prec::Low;
            open(paren, out);
            out.push_str("rec ");
            binder(param, out);
            out.push_str(". ");
            print_term(body, Prec::Low, out);
            close(paren, out);
        }
        TermKind::Ifs {
            cond,
            then,
            otherwise,
        }
        | TermKind::If {
            cond,
            then,
            otherwise,
        } => {
            let paren = prec > Prec::Low;
            open(paren, out);
            out.push_str(if matches!(t.kind, TermKind::Ifs { .. }) {
                "ifs "
            } else {
                "if "
            });
            print_term(cond, Prec::Low, out);
            out.push_str(" then ");
            print_term(then, Prec::Low, out);
            out.push_str(" else ");
            print_term(otherwise, Prec::Low, out);
            close(paren, out);
        }
        TermKind::Check { cond, body } => {
            let paren = prec > Prec::Low;
            open(paren, out);
            out.push_str("check ");
            print_term(cond, Prec::Low, out);
            out.push_str(" then ");
            print_term(body, Prec::Low, out);
            close(paren, out);
        }
        TermKind::Let { name, value, body } => {
            let paren = prec > Prec::Low;
            open(paren, out);
            out.push_str("let ");
            out.push_str(&name.name);
            out.push_str(" <= ");
            print_term(value, Prec::Low, out);
            out.push_str(" in ");
            print_term(body, Prec::Low, out);
            close(paren, out);
        }
        // A term that did not parse has no text; `err` is the closest term.
        TermKind::Error => out.push_str("err"),
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum TyPrec {
    Arrow,
    Product,
    Atom,
}

fn print_type(t: &Type, prec: TyPrec, out: &mut String) {
    match &t.kind {
        TypeKind::Nat => out.push_str("nat"),
        TypeKind::Bool => out.push_str("bool"),
        TypeKind::Sz => out.push_str("sz"),
        TypeKind::Un => out.push_str("un"),
        TypeKind::Var(v) => {
            out.push('\'');
            out.push_str(v);
        }
        TypeKind::Vec(a) | TypeKind::Mat(a) => {
            out.push_str(if matches!(t.kind, TypeKind::Vec(_)) {
                "vec "
            } else {
                "mat "
            });
            print_type(a, TyPrec::Atom, out);
        }
        // Products and arrows nest to the right.
        TypeKind::Product(a, b) => {
            let paren = prec > TyPrec::Product;
            open(paren, out);
            print_type(a, TyPrec::Atom, out);
            out.push_str(" * ");
            print_type(b, TyPrec::Product, out);
            close(paren, out);
        }
        TypeKind::Arrow(a, b) => {
            let paren = prec > TyPrec::Arrow;
            open(paren, out);
            print_type(a, TyPrec::Product, out);
            out.push_str(" -> ");
            print_type(b, TyPrec::Arrow, out);
            close(paren, out);
        }
        TypeKind::Error => out.push_str("un"),
    }
}
