//! SIZE_C terms as the simplifier sees them (spec 003 §4.1): the combinators are
//! constants apart from variables, so a name `#_C` inserts (`fst`, `eq`, …) can never
//! be captured by a user's binder or definition of the same name (brief item 3).
//! Conversions to and from the AST live here, with the structural helpers the rules
//! need: the safe-term test (Def 5.1.1), α-equality, capture-avoiding substitution.

use shapex_text::Span;
use shapex_vec_syntax::ast::{Ident, Param, Term, TermKind};
use std::collections::HashSet;

/// Terms taller than this are not built: every recursive pass stays far from the
/// stack's end (WASM's stack is small).
pub(super) const MAX_HEIGHT: usize = 800;

/// The SIZE_C combinators (spec §4.2); `zero` is the size literal `~0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum K {
    Un,
    Pair,
    Fst,
    Snd,
    Succ,
    Pred,
    Eq,
    Err,
    And,
    Not,
    Add,
}

impl K {
    pub(super) fn from_name(name: &str) -> Option<K> {
        Some(match name {
            "un" => K::Un,
            "pair" => K::Pair,
            "fst" => K::Fst,
            "snd" => K::Snd,
            "succ" => K::Succ,
            "pred" => K::Pred,
            "eq" => K::Eq,
            "err" => K::Err,
            "and" => K::And,
            "not" => K::Not,
            "~+" => K::Add,
            _ => return None,
        })
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            K::Un => "un",
            K::Pair => "pair",
            K::Fst => "fst",
            K::Snd => "snd",
            K::Succ => "succ",
            K::Pred => "pred",
            K::Eq => "eq",
            K::Err => "err",
            K::And => "and",
            K::Not => "not",
            K::Add => "~+",
        }
    }
}

/// A SIZE_C term. `Pair` is `pair a b` saturated; `Let` with an unused binder is a
/// `check`.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum E {
    Var(String),
    K(K),
    Size(u64),
    Lam(String, Box<E>),
    App(Box<E>, Box<E>),
    Pair(Box<E>, Box<E>),
    Let(String, Box<E>, Box<E>),
}

pub(super) fn app(f: E, a: E) -> E {
    E::App(Box::new(f), Box::new(a))
}
pub(super) fn app2(f: E, a: E, b: E) -> E {
    app(app(f, a), b)
}
pub(super) fn lam(x: &str, b: E) -> E {
    E::Lam(x.to_owned(), Box::new(b))
}
pub(super) fn var(x: &str) -> E {
    E::Var(x.to_owned())
}
pub(super) fn pair(a: E, b: E) -> E {
    E::Pair(Box::new(a), Box::new(b))
}
pub(super) fn k1(k: K, a: E) -> E {
    app(E::K(k), a)
}
/// `a = b ≡ pred (not (eq a b))` (spec §4.1).
pub(super) fn equal(a: E, b: E) -> E {
    k1(K::Pred, k1(K::Not, app2(E::K(K::Eq), a, b)))
}
/// `check c then b`, with `x` a name not free in `b`.
pub(super) fn check(x: String, c: E, b: E) -> E {
    E::Let(x, Box::new(c), Box::new(b))
}

/// Def 5.1.1: safe terms never reduce to `err`, even with safe terms for their free
/// variables. `~+` is total on sizes, so it is safe like `succ`.
pub(super) fn safe(e: &E) -> bool {
    match e {
        E::Var(_) | E::Size(_) | E::Lam(..) => true,
        E::K(k) => *k != K::Err,
        E::Pair(a, b) => safe(a) && safe(b),
        E::Let(..) => false,
        E::App(f, a) => match &**f {
            E::K(K::Pair | K::Fst | K::Snd | K::Succ | K::Eq | K::And | K::Not | K::Add) => safe(a),
            E::App(g, b) => {
                matches!(&**g, E::K(K::Pair | K::Eq | K::And | K::Add)) && safe(b) && safe(a)
            }
            _ => false,
        },
    }
}

/// Whether `e` is taller than `limit` (recursing at most `limit` deep).
pub(super) fn taller(e: &E, limit: usize) -> bool {
    if limit == 0 {
        return true;
    }
    match e {
        E::Var(_) | E::K(_) | E::Size(_) => false,
        E::Lam(_, b) => taller(b, limit - 1),
        E::App(a, b) | E::Pair(a, b) | E::Let(_, a, b) => {
            taller(a, limit - 1) || taller(b, limit - 1)
        }
    }
}

pub(super) fn free_in(e: &E, x: &str) -> bool {
    match e {
        E::Var(y) => y == x,
        E::K(_) | E::Size(_) => false,
        E::Lam(y, b) => y != x && free_in(b, x),
        E::App(a, b) | E::Pair(a, b) => free_in(a, x) || free_in(b, x),
        E::Let(y, v, b) => free_in(v, x) || (y != x && free_in(b, x)),
    }
}

pub(super) fn free_vars(e: &E, bound: &mut Vec<String>, out: &mut HashSet<String>) {
    match e {
        E::Var(y) if !bound.contains(y) => {
            out.insert(y.clone());
        }
        E::Var(_) | E::K(_) | E::Size(_) => {}
        E::Lam(y, b) => {
            bound.push(y.clone());
            free_vars(b, bound, out);
            bound.pop();
        }
        E::App(a, b) | E::Pair(a, b) => {
            free_vars(a, bound, out);
            free_vars(b, bound, out);
        }
        E::Let(y, v, b) => {
            free_vars(v, bound, out);
            bound.push(y.clone());
            free_vars(b, bound, out);
            bound.pop();
        }
    }
}

/// α-equality: the non-left-linear rule `eq t t → check t then zero` tests it.
pub(super) fn alpha_eq(a: &E, b: &E) -> bool {
    fn go<'a>(a: &'a E, b: &'a E, env: &mut Vec<(&'a str, &'a str)>) -> bool {
        match (a, b) {
            (E::Var(x), E::Var(y)) => match env.iter().rev().find(|(p, q)| p == x || q == y) {
                Some((p, q)) => p == x && q == y,
                None => x == y,
            },
            (E::K(x), E::K(y)) => x == y,
            (E::Size(m), E::Size(n)) => m == n,
            (E::Lam(x, s), E::Lam(y, t)) => binder(x, s, y, t, env),
            (E::App(a1, a2), E::App(b1, b2)) | (E::Pair(a1, a2), E::Pair(b1, b2)) => {
                go(a1, b1, env) && go(a2, b2, env)
            }
            (E::Let(x, v, s), E::Let(y, w, t)) => go(v, w, env) && binder(x, s, y, t, env),
            _ => false,
        }
    }
    fn binder<'a>(
        x: &'a str,
        s: &'a E,
        y: &'a str,
        t: &'a E,
        env: &mut Vec<(&'a str, &'a str)>,
    ) -> bool {
        env.push((x, y));
        let r = go(s, t, env);
        env.pop();
        r
    }
    go(a, b, &mut Vec::new())
}

/// Fresh names: `%n` is no identifier of the grammar, so it clashes with no user name.
#[derive(Debug, Default)]
pub(super) struct Fresh(u64);

impl Fresh {
    pub(super) fn name(&mut self) -> String {
        self.0 += 1;
        format!("%{}", self.0)
    }

    /// `e[s/x]`, capture-avoiding: a binder free in `s` is renamed first.
    pub(super) fn subst(&mut self, e: E, x: &str, s: &E) -> E {
        let mut fv = HashSet::new();
        free_vars(s, &mut Vec::new(), &mut fv);
        self.go(e, x, s, &fv)
    }

    fn go(&mut self, e: E, x: &str, s: &E, fv: &HashSet<String>) -> E {
        match e {
            E::Var(y) if y == x => s.clone(),
            E::Var(_) | E::K(_) | E::Size(_) => e,
            E::App(a, b) => app(self.go(*a, x, s, fv), self.go(*b, x, s, fv)),
            E::Pair(a, b) => pair(self.go(*a, x, s, fv), self.go(*b, x, s, fv)),
            E::Lam(y, b) => {
                let (y, b) = self.under(y, *b, x, s, fv);
                E::Lam(y, Box::new(b))
            }
            E::Let(y, v, b) => {
                let v = self.go(*v, x, s, fv);
                let (y, b) = self.under(y, *b, x, s, fv);
                E::Let(y, Box::new(v), Box::new(b))
            }
        }
    }

    fn under(&mut self, y: String, b: E, x: &str, s: &E, fv: &HashSet<String>) -> (String, E) {
        if y == x || !free_in(&b, x) {
            return (y, b);
        }
        if fv.contains(&y) {
            let z = self.name();
            let b = self.go(b, &y, &E::Var(z.clone()), &HashSet::new());
            return (z.clone(), self.go(b, x, s, fv));
        }
        let b = self.go(b, x, s, fv);
        (y, b)
    }
}

/// Binder names for printing, by nesting depth: distinct along every path, so no
/// binder shadows another, and never a combinator's name.
fn binder_name(depth: usize, avoid: &HashSet<String>) -> String {
    const NAMES: [&str; 6] = ["x", "y", "z", "w", "u", "v"];
    let mut i = depth;
    loop {
        let name = match NAMES.get(i) {
            Some(n) => (*n).to_owned(),
            None => format!("x{}", i - NAMES.len() + 1),
        };
        if !avoid.contains(&name) {
            return name;
        }
        i += NAMES.len();
    }
}

/// `e` as an AST term with every node at `span`; binders renamed canonically by depth
/// (`x`, `y`, `z`, …) away from `e`'s free variables.
pub(super) fn to_ast(e: &E, span: Span) -> Term {
    let mut avoid = HashSet::new();
    free_vars(e, &mut Vec::new(), &mut avoid);
    ToAst { span, avoid }.go(e, &mut Vec::new())
}

struct ToAst {
    span: Span,
    avoid: HashSet<String>,
}

impl ToAst {
    fn t(&self, kind: TermKind) -> Term {
        Term {
            kind,
            span: self.span,
        }
    }
    fn ident(&self, name: String) -> Ident {
        Ident {
            name,
            span: self.span,
        }
    }
    fn go(&self, e: &E, env: &mut Vec<(String, String)>) -> Term {
        match e {
            E::Var(x) => {
                let name = env
                    .iter()
                    .rev()
                    .find(|(from, _)| from == x)
                    .map_or_else(|| x.clone(), |(_, to)| to.clone());
                self.t(TermKind::Var(self.ident(name)))
            }
            E::K(k) => self.t(TermKind::Var(self.ident(k.name().to_owned()))),
            E::Size(0) => self.t(TermKind::Var(self.ident("zero".to_owned()))),
            E::Size(n) => self.t(TermKind::Size(*n)),
            E::App(a, b) => self.t(TermKind::App {
                fun: Box::new(self.go(a, env)),
                arg: Box::new(self.go(b, env)),
                infix: false,
            }),
            E::Pair(a, b) => self.t(TermKind::Pair(
                Box::new(self.go(a, env)),
                Box::new(self.go(b, env)),
            )),
            E::Lam(x, b) => {
                let (name, body) = self.bind(x, b, env);
                self.t(TermKind::Lam {
                    param: Param {
                        name: self.ident(name),
                        ty: None,
                        span: self.span,
                    },
                    body: Box::new(body),
                })
            }
            E::Let(x, v, b) => {
                let value = Box::new(self.go(v, env));
                let (name, body) = self.bind(x, b, env);
                self.t(TermKind::Let {
                    name: self.ident(name),
                    value,
                    body: Box::new(body),
                })
            }
        }
    }
    fn bind(&self, x: &str, b: &E, env: &mut Vec<(String, String)>) -> (String, Term) {
        let name = binder_name(env.len(), &self.avoid);
        env.push((x.to_owned(), name.clone()));
        let body = self.go(b, env);
        env.pop();
        (name, body)
    }
}
