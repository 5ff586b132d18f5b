//! The shape translation `#` of Chapter 4 (spec 003 §3; issue #23 item 4, first
//! part): a VEC program becomes a SIZE program, its *shape program*, which the
//! evaluator runs without any data.
//!
//! * On types (Def 4.1.1, [`translate_type`], [`translate_ty`]): `#δ = un` for the
//!   datum types `nat` and `bool`, `#un = un`, `#sz = sz`, `#(vec τ) = sz × #τ`
//!   (so `#(mat τ) = sz × (sz × #τ)`), products and arrows homomorphically, and a
//!   type variable to itself (a variable of data kind becomes one of kind θ, for `#τ`
//!   is θ when τ is data, §3.1).
//! * On terms (Fig 4.1, [`translate`], [`ShapeTranslation`]): the vector combinators
//!   become their shape functions,
//!
//!   ```text
//!   #sing   = \x. <succ zero, x>
//!   #cons   = \x y. ifs eq x (snd y) then <succ (fst y), snd y> else err
//!   #hd     = snd
//!   #tl     = \x. ifs pred (fst x) then err else <pred (fst x), snd x>
//!   #length = fst
//!   ```
//!
//!   numerals become `un` and the datum operations `+ - * /` become `\x. un` (§3.2,
//!   "Datum operations"); every other combinator, variable, size literal and the
//!   constructs λ, application, `rec`, `ifs` and pairs translate homomorphically. A
//!   vector `[t1, …, tn]` is the sugar `t1 :: … :: sing tn` and translates as such.
//!   SIZE_C's `check` and `let` (§4.1) translate homomorphically too (they are SIZE
//!   constructs, on which `#` is the identity, Remark §4.1).
//! * The data conditional `if` (§5.1, an extension) takes option 2, "check equality":
//!   `#(if t then t1 else t2) = (\x. ifs eq #t1 #t2 then #t1 else err) #t`. It is
//!   sound for branches of θ-shaped (ground) type only; on function-typed branches the
//!   shape program gets stuck (`eq` of functions).
//!
//! Names resolve as in the evaluator (innermost binder, then the latest visible
//! definition, then a combinator): only a name that is a combinator *there* is
//! replaced. The prelude is translated too and comes first in the shape program, so
//! its definitions (`make`, `map`, …) become their shapes (`#make`, `#map`, …) and
//! shadow the VEC prelude the evaluator loads.
//!
//! Every node of `#t` carries the span of the source subterm it comes from: the
//! pieces of `#cons` the span of the `cons` (or of the vector or `::` it stands for),
//! `un` the span of its numeral, and so on.
//!
//! [`shape_of`] is the translation of a closed value followed by its evaluation: the
//! shape `<length, entry shape>` of a regular vector, `err` for a ragged one.

use crate::eval::Value;
use crate::types::{Kind, Scheme, Ty};
use shapex_text::Span;
use shapex_vec_syntax::ast::{Def, Ident, Param, Program, Term, TermKind, Type, TypeKind};
use std::collections::HashSet;
use std::fmt;

/// A program's shape: the translated prelude, then its translated definitions (each
/// keeping its name, parameters and annotation, all translated), then `#t` of its
/// term.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShapeProgram {
    /// `#d` for every prelude definition `d`, in order.
    pub prelude: Vec<Def>,
    /// `#d` for every definition of the program, in order.
    pub defs: Vec<Def>,
    /// `#t` of the final term.
    pub main: Option<Term>,
}

impl ShapeProgram {
    /// The shape program as a SIZE program for [`crate::evaluate`] or
    /// [`crate::check`]: the translated prelude's definitions come first, so they
    /// shadow the VEC prelude's.
    ///
    /// The definitions' translated annotations are left out (parameters keep
    /// theirs): in `#σ` a variable of the data type `'a` stands for the θ type `#'a`
    /// (§3.1), a kind the grammar cannot write, so `def make : sz -> 'a -> sz * 'a`
    /// would be rejected for using `eq` on `'a`. [`translate_scheme`] gives `#σ` with
    /// its kinds; the typing lemma is tested against it.
    pub fn to_program(&self) -> Program {
        Program {
            defs: self
                .prelude
                .iter()
                .chain(&self.defs)
                .map(|d| Def {
                    ty: None,
                    ..d.clone()
                })
                .collect(),
            main: self.main.clone(),
        }
    }

    /// The last translated definition `name` (the program's, else the prelude's).
    pub fn def(&self, name: &str) -> Option<&Def> {
        self.defs
            .iter()
            .rev()
            .chain(self.prelude.iter().rev())
            .find(|d| d.name.name == name)
    }

    /// The translated prelude in the grammar's syntax, one definition a line.
    pub fn prelude_text(&self) -> String {
        self.prelude
            .iter()
            .map(|d| crate::print::def(d) + "\n")
            .collect()
    }
}

/// The program's translated definitions and term (not the prelude's), in the
/// grammar's syntax, one item a line.
impl fmt::Display for ShapeProgram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.defs {
            writeln!(f, "{}", crate::print::def(d))?;
        }
        if let Some(t) = &self.main {
            writeln!(f, "{}", crate::print::term(t))?;
        }
        Ok(())
    }
}

/// The shapes of the skeletons that are exact in closed form (Chapter 5's `#_C`
/// forms, spec §4.6), which `#prelude` uses instead of translating their `rec`
/// definitions: the hybrid of spec §8 item 8, so a shape costs O(1) steps per
/// skeleton, not O(n), and the shape computation finishes before the data's. `fold`
/// keeps its translated recursion: its closed form rejects shape-changing folds
/// (folding `cons`), which would break Theorem 4.3.
const CLOSED_FORMS: &str = "\
def map = \\f x. <fst x, f (snd x)>
def zip = \\x y. check fst x = fst y then <fst x, <snd x, snd y>>
def append = \\x y. check snd x = snd y then <fst x ~+ fst y, snd x>
def transpose = \\x. <fst (snd x), <fst x, snd (snd x)>>
";

/// `#program`, after `#prelude` (see the module's documentation).
pub fn translate(program: &Program) -> ShapeProgram {
    let mut tr = ShapeTranslation::default();
    let prelude = shapex_vec_syntax::prelude();
    let closed = shapex_vec_syntax::parse(CLOSED_FORMS).program;
    let prelude = prelude
        .defs
        .iter()
        .map(|d| {
            let shape = tr.def(d);
            match closed.def(&d.name.name) {
                Some(c) => Def {
                    ty: shape.ty,
                    span: d.span,
                    ..c.clone()
                },
                None => shape,
            }
        })
        .collect();
    let defs = program.defs.iter().map(|d| tr.def(d)).collect();
    let main = program.main.as_ref().map(|t| tr.term(t));
    ShapeProgram {
        prelude,
        defs,
        main,
    }
}

/// `#` on terms, definition by definition: it knows which names are definitions so
/// far (those are not combinators).
#[derive(Clone, Debug, Default)]
pub struct ShapeTranslation {
    defined: HashSet<String>,
}

impl ShapeTranslation {
    /// `#def`; later terms see its name as a definition.
    pub fn def(&mut self, def: &Def) -> Def {
        let mut bound: Vec<String> = def.params.iter().map(|p| p.name.name.clone()).collect();
        let body = self.go(&def.body, &mut bound);
        let out = Def {
            name: def.name.clone(),
            params: def.params.iter().map(param).collect(),
            ty: def.ty.as_ref().map(translate_type),
            body,
            span: def.span,
        };
        if !def.name.name.is_empty() {
            self.defined.insert(def.name.name.clone());
        }
        out
    }

    /// `#t` for a term that sees the definitions translated so far.
    pub fn term(&self, t: &Term) -> Term {
        self.go(t, &mut Vec::new())
    }

    fn go(&self, t: &Term, bound: &mut Vec<String>) -> Term {
        let b = B(t.span);
        let kind = match &t.kind {
            TermKind::Var(x) => {
                if bound.contains(&x.name) || self.defined.contains(&x.name) {
                    TermKind::Var(x.clone())
                } else {
                    return combinator(&x.name, x.span).unwrap_or_else(|| t.clone());
                }
            }
            // #n = un.
            TermKind::Nat(_) => return b.var("un"),
            TermKind::Size(n) => TermKind::Size(*n),
            TermKind::Pair(x, y) => {
                TermKind::Pair(Box::new(self.go(x, bound)), Box::new(self.go(y, bound)))
            }
            // [t1, …, tn] ≡ t1 :: … :: sing tn.
            TermKind::Vector(items) => {
                let Some((last, init)) = items.split_last() else {
                    // `[]` is ill-typed (spec §9.1); its shape is `err`.
                    return b.var("err");
                };
                let mut acc = b.app(sing(t.span), self.go(last, bound));
                for item in init.iter().rev() {
                    acc = b.app(b.app(cons(t.span), self.go(item, bound)), acc);
                }
                return acc;
            }
            TermKind::App { fun, arg, .. } => TermKind::App {
                fun: Box::new(self.go(fun, bound)),
                arg: Box::new(self.go(arg, bound)),
                infix: false,
            },
            TermKind::Lam { param: p, body } => {
                bound.push(p.name.name.clone());
                let body = self.go(body, bound);
                bound.pop();
                TermKind::Lam {
                    param: param(p),
                    body: Box::new(body),
                }
            }
            TermKind::Rec { param: p, body } => {
                bound.push(p.name.name.clone());
                let body = self.go(body, bound);
                bound.pop();
                TermKind::Rec {
                    param: param(p),
                    body: Box::new(body),
                }
            }
            TermKind::Ifs {
                cond,
                then,
                otherwise,
            } => TermKind::Ifs {
                cond: Box::new(self.go(cond, bound)),
                then: Box::new(self.go(then, bound)),
                otherwise: Box::new(self.go(otherwise, bound)),
            },
            // §5.1 option 2: (\x. ifs eq #t1 #t2 then #t1 else err) #t, x fresh.
            TermKind::If {
                cond,
                then,
                otherwise,
            } => {
                let c = self.go(cond, bound);
                let t1 = self.go(then, bound);
                let t2 = self.go(otherwise, bound);
                let mut x = String::from("x");
                while mentions(&t1, &x) {
                    x.push('\'');
                }
                let test = b.app(b.app(b.var("eq"), t1.clone()), t2);
                let body = b.ifs(test, t1, b.var(crate::combinators::UNDECIDED));
                return b.app(b.lam(&x, body), c);
            }
            TermKind::Check { cond, body } => TermKind::Check {
                cond: Box::new(self.go(cond, bound)),
                body: Box::new(self.go(body, bound)),
            },
            TermKind::Let { name, value, body } => {
                let value = self.go(value, bound);
                bound.push(name.name.clone());
                let body = self.go(body, bound);
                bound.pop();
                TermKind::Let {
                    name: name.clone(),
                    value: Box::new(value),
                    body: Box::new(body),
                }
            }
            TermKind::Error => TermKind::Error,
        };
        Term { kind, span: t.span }
    }
}

/// `#c` for a combinator `c` whose shape is not `c` itself (Fig 4.1 and §3.2's datum
/// operations); `None` for the others (`#c = c`) and for names that are not
/// combinators.
fn combinator(name: &str, span: Span) -> Option<Term> {
    let b = B(span);
    Some(match name {
        "sing" => sing(span),
        "cons" => cons(span),
        "hd" => b.var("snd"),
        // \x. ifs pred (fst x) then err else <pred (fst x), snd x>
        "tl" => {
            let fst_x = || b.app(b.var("fst"), b.var("x"));
            b.lam(
                "x",
                b.ifs(
                    b.app(b.var("pred"), fst_x()),
                    b.var("err"),
                    b.pair(
                        b.app(b.var("pred"), fst_x()),
                        b.app(b.var("snd"), b.var("x")),
                    ),
                ),
            )
        }
        "length" => b.var("fst"),
        "+" | "-" | "*" | "/" => b.lam("x", b.var("un")),
        _ => return None,
    })
}

/// `\x. <succ zero, x>`.
fn sing(span: Span) -> Term {
    let b = B(span);
    b.lam("x", b.pair(b.app(b.var("succ"), b.var("zero")), b.var("x")))
}

/// `\x y. ifs eq x (snd y) then <succ (fst y), snd y> else err`.
fn cons(span: Span) -> Term {
    let b = B(span);
    let snd_y = || b.app(b.var("snd"), b.var("y"));
    b.lam(
        "x",
        b.lam(
            "y",
            b.ifs(
                b.app(b.app(b.var("eq"), b.var("x")), snd_y()),
                b.pair(
                    b.app(b.var("succ"), b.app(b.var("fst"), b.var("y"))),
                    snd_y(),
                ),
                b.var("err"),
            ),
        ),
    )
}

/// Whether `name` occurs in `t` at all (free or bound): enough to pick a fresh name.
fn mentions(t: &Term, name: &str) -> bool {
    let binds = match &t.kind {
        TermKind::Var(x) => x.name == name,
        TermKind::Lam { param, .. } | TermKind::Rec { param, .. } => param.name.name == name,
        TermKind::Let { name: n, .. } => n.name == name,
        _ => false,
    };
    binds || t.children().into_iter().any(|c| mentions(c, name))
}

fn param(p: &Param) -> Param {
    Param {
        name: p.name.clone(),
        ty: p.ty.as_ref().map(translate_type),
        span: p.span,
    }
}

/// Builds terms that all carry one span.
#[derive(Clone, Copy)]
struct B(Span);

impl B {
    fn term(self, kind: TermKind) -> Term {
        Term { kind, span: self.0 }
    }
    fn ident(self, name: &str) -> Ident {
        Ident {
            name: name.to_owned(),
            span: self.0,
        }
    }
    /// A variable the translation binds itself (`x`), or a combinator it inserts,
    /// marked so that no name of the program captures it.
    fn var(self, name: &str) -> Term {
        if crate::combinators::NAMES.contains(&name) {
            let marked = format!("{name}{}", crate::combinators::PRIMITIVE);
            return self.term(TermKind::Var(self.ident(&marked)));
        }
        self.term(TermKind::Var(self.ident(name)))
    }
    fn app(self, fun: Term, arg: Term) -> Term {
        self.term(TermKind::App {
            fun: Box::new(fun),
            arg: Box::new(arg),
            infix: false,
        })
    }
    fn lam(self, x: &str, body: Term) -> Term {
        self.term(TermKind::Lam {
            param: Param {
                name: self.ident(x),
                ty: None,
                span: self.0,
            },
            body: Box::new(body),
        })
    }
    fn pair(self, a: Term, b: Term) -> Term {
        self.term(TermKind::Pair(Box::new(a), Box::new(b)))
    }
    fn ifs(self, cond: Term, then: Term, otherwise: Term) -> Term {
        self.term(TermKind::Ifs {
            cond: Box::new(cond),
            then: Box::new(then),
            otherwise: Box::new(otherwise),
        })
    }
}

/// `#τ` on a written type (Def 4.1.1); every node keeps the span of the type it
/// comes from.
pub fn translate_type(t: &Type) -> Type {
    let span = t.span;
    let ty = |kind| Type { kind, span };
    let kind = match &t.kind {
        TypeKind::Nat | TypeKind::Bool | TypeKind::Un => TypeKind::Un,
        TypeKind::Sz => TypeKind::Sz,
        TypeKind::Var(v) => TypeKind::Var(v.clone()),
        TypeKind::Vec(a) => {
            TypeKind::Product(Box::new(ty(TypeKind::Sz)), Box::new(translate_type(a)))
        }
        // mat τ ≡ vec (vec τ).
        TypeKind::Mat(a) => TypeKind::Product(
            Box::new(ty(TypeKind::Sz)),
            Box::new(ty(TypeKind::Product(
                Box::new(ty(TypeKind::Sz)),
                Box::new(translate_type(a)),
            ))),
        ),
        TypeKind::Product(a, b) => {
            TypeKind::Product(Box::new(translate_type(a)), Box::new(translate_type(b)))
        }
        TypeKind::Arrow(a, b) => {
            TypeKind::Arrow(Box::new(translate_type(a)), Box::new(translate_type(b)))
        }
        TypeKind::Error => TypeKind::Error,
    };
    ty(kind)
}

/// `#τ` on the checker's types (Def 4.1.1).
pub fn translate_ty(t: &Ty) -> Ty {
    match t {
        Ty::Nat | Ty::Bool | Ty::Un => Ty::Un,
        Ty::Sz => Ty::Sz,
        Ty::Var(v) => Ty::Var(*v),
        Ty::Vec(a) => Ty::product(Ty::Sz, translate_ty(a)),
        Ty::Product(a, b) => Ty::product(translate_ty(a), translate_ty(b)),
        Ty::Arrow(a, b) => Ty::arrow(translate_ty(a), translate_ty(b)),
    }
}

/// `#σ` of a scheme: its type translated; a variable of data kind becomes one of
/// kind θ (§3.1: `#τ` is θ for a data type τ), the others keep theirs.
pub fn translate_scheme(s: &Scheme) -> Scheme {
    Scheme {
        kinds: s
            .kinds
            .iter()
            .map(|k| match k {
                Kind::Data => Kind::Theta,
                k => *k,
            })
            .collect(),
        ty: translate_ty(&s.ty),
    }
}

/// Why a value has no shape value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoShape {
    /// A ragged vector: `#v ⇒ err` (its `#cons` fails).
    Err,
    /// A function or an elided value: its shape is a function (compare it
    /// extensionally, not here) or unknown.
    Unknown,
}

/// The shape of a closed ground value, `#v` evaluated: `un` for `un` and numerals, a
/// size for a size, pairs componentwise, `<~n, s>` for a vector of n entries that
/// all have shape `s`.
pub fn shape_of(v: &Value) -> Result<Value, NoShape> {
    Ok(match v {
        Value::Un | Value::Nat(_) => Value::Un,
        Value::Size(n) => Value::Size(*n),
        Value::Pair(a, b) => Value::Pair(Box::new(shape_of(a)?), Box::new(shape_of(b)?)),
        Value::Vector(items) => {
            let mut shapes = items.iter().map(shape_of);
            let first = shapes.next().ok_or(NoShape::Unknown)??;
            for s in shapes {
                if s? != first {
                    return Err(NoShape::Err);
                }
            }
            Value::Pair(Box::new(Value::Size(items.len() as u64)), Box::new(first))
        }
        Value::Function(_) | Value::Elided => return Err(NoShape::Unknown),
    })
}

#[cfg(test)]
mod tests;
