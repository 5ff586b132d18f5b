//! SIZE_C and `#_C`, Chapter 5 (spec 003 §4; issue #23 item 4, second part, and item
//! 5's simplification property): a small, equivalent shape for programs that use the
//! built-in skeletons and no `rec`/`ifs`, without theorem proving.
//!
//! * [`translate_c`] is `#_C` (Fig 5.5, spec §4.6) of the prelude, then the program.
//!   `sing`, `cons`, `hd`, `tl`, `length` get Fig 5.5's forms; numerals are `un` and
//!   `+ - * /` are `\x. un`, as in `#`; λ, application, pairs, `let` and `check` are
//!   homomorphic. The prelude's skeletons `map`, `fold`, `zip`, `append`,
//!   `transpose` are *built in*: they get their closed forms (spec §4.6, with the
//!   corrected `fold ≡ \f x y. check f <snd y, x> = x then x`, [I]) instead of their
//!   `rec` definitions; `and` and `not` are SIZE_C primitives (spec §4.2). A
//!   program's own definition of any of these names is translated as written.
//! * `rec`, `ifs` and the data conditional `if` are [`Unsupported`], never `err`:
//!   "cannot analyse" is not a shape error (spec §9 item 4). So is every definition
//!   or term that uses an unsupported definition, with a reason naming it.
//! * Definitions are inlined where used, so a `#_C` term is closed over the SIZE_C
//!   combinators: the VEC prelude the evaluator loads cannot shadow a skeleton's
//!   closed form. The combinators `#_C` inserts are constants apart from variables
//!   (`term`), so a user's binder or definition named `fst` cannot capture them;
//!   printed terms rename binders to `x`, `y`, `z`, … by depth.
//! * [`simplify`] is `→sc` (spec §4.4, `simplify` module); [`display`] prints
//!   with SIZE_C's sugar (spec §4.1) as the thesis's `display` does (spec §7,
//!   Appendix B).
//!
//! SIZE_C's `and` is run here as the evaluator runs it (the first non-`zero`
//! operand), which resolves the §4.4 caveat's critical pair the same way everywhere;
//! boolean results are canonical (`zero`/`~1`) where `not` consumes them.

mod display;
mod simplify;
mod term;
#[cfg(test)]
mod tests;

pub use display::display;
pub(crate) use display::{as_check, equality};

use shapex_text::Span;
use shapex_vec_syntax::ast::{Def, Program, Term, TermKind};
use std::collections::HashMap;
use term::{app, app2, check, equal, k1, lam, pair, taller, to_ast, var, E, K, MAX_HEIGHT};

/// Why `#_C` cannot analyse a term statically: NOT a shape error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// Where: the `rec`/`ifs`, or the use of an unsupported definition.
    pub span: Span,
    pub reason: String,
}

/// `#_C` of one definition (parameters become λs).
#[derive(Clone, Debug, PartialEq)]
pub struct DefC {
    pub name: String,
    pub span: Span,
    /// The unsimplified `#_C` term, or why there is none.
    pub shape: Result<Term, Unsupported>,
}

/// `#_C` of a program, after the prelude's.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SizeC {
    pub prelude: Vec<DefC>,
    pub defs: Vec<DefC>,
    pub main: Option<Result<Term, Unsupported>>,
}

impl SizeC {
    /// The simplified shape signature of definition `name` (the program's last, else
    /// the prelude's): Ok(simplified #_C term) or the Unsupported reason.
    pub fn signature(&self, name: &str) -> Option<Result<Term, Unsupported>> {
        let def = self.defs.iter().rev().chain(self.prelude.iter().rev());
        let def = def.into_iter().find(|d| d.name == name)?;
        Some(def.shape.as_ref().map(simplify).map_err(Clone::clone))
    }

    /// The simplified #_C of the main term.
    pub fn main_signature(&self) -> Option<Result<Term, Unsupported>> {
        let main = self.main.as_ref()?;
        Some(main.as_ref().map(simplify).map_err(Clone::clone))
    }
}

/// `#_C` of the prelude, then of `program` (see the module's documentation).
pub fn translate_c(program: &Program) -> SizeC {
    let mut tr = Tr::new(Mode::Vec);
    let prelude = shapex_vec_syntax::prelude();
    let prelude = prelude.defs.iter().map(|d| tr.def(d, true)).collect();
    let defs = program.defs.iter().map(|d| tr.def(d, false)).collect();
    let main = program.main.as_ref().map(|t| {
        let e = tr.top(t, &[])?;
        Ok(to_ast(&e, t.span))
    });
    SizeC {
        prelude,
        defs,
        main,
    }
}

/// The `→sc` normal form of the SIZE_C term `t` (spec §4.4). Free names resolve as
/// in the evaluator: a bound variable, else a combinator, else a free variable. A
/// term that is not SIZE_C (a numeral, a vector, `rec`, `ifs`), or too deep, comes
/// back unchanged; on an exhausted step budget, the term reached.
pub fn simplify(t: &Term) -> Term {
    let Ok(e) = Tr::new(Mode::SizeC).top(t, &[]) else {
        return t.clone();
    };
    to_ast(&simplify::Norm::default().norm(e, 0), t.span)
}

/// How free names and VEC's forms are read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `#_C` of VEC: definitions, then combinators' shapes; others are unbound.
    Vec,
    /// A SIZE_C term as it is: combinators, else free variables.
    SizeC,
}

/// Source nesting past which a term is not translated.
const MAX_NESTING: usize = 300;
/// The binder of a `check` (never a variable's name).
const CHECK: &str = "%";

struct Tr {
    mode: Mode,
    /// `#_C` of every definition so far, by name (the latest).
    defs: HashMap<String, Result<E, Unsupported>>,
}

fn unsupported(span: Span, reason: impl Into<String>) -> Unsupported {
    Unsupported {
        span,
        reason: reason.into(),
    }
}

impl Tr {
    fn new(mode: Mode) -> Self {
        Tr {
            mode,
            defs: HashMap::new(),
        }
    }

    fn def(&mut self, d: &Def, prelude: bool) -> DefC {
        let name = d.name.name.clone();
        let params: Vec<String> = d.params.iter().map(|p| p.name.name.clone()).collect();
        let shape = match builtin(&name).filter(|_| prelude) {
            Some(e) => Ok(e),
            None => self
                .top(&d.body, &params)
                .map(|body| params.iter().rev().fold(body, |b, p| lam(p, b))),
        };
        if !name.is_empty() {
            self.defs.insert(name.clone(), shape.clone());
        }
        DefC {
            name,
            span: d.span,
            shape: shape.map(|e| to_ast(&e, d.span)),
        }
    }

    /// `#_C t` under the binders `params`, checked for size.
    fn top(&mut self, t: &Term, params: &[String]) -> Result<E, Unsupported> {
        let e = self.go(t, &mut params.to_vec(), 0)?;
        if taller(&e, MAX_HEIGHT / 2) {
            return Err(unsupported(t.span, "is too large for #_C"));
        }
        Ok(e)
    }

    fn go(&mut self, t: &Term, bound: &mut Vec<String>, depth: usize) -> Result<E, Unsupported> {
        if depth > MAX_NESTING {
            return Err(unsupported(t.span, "is nested too deeply for #_C"));
        }
        let d = depth + 1;
        Ok(match &t.kind {
            TermKind::Var(x) if bound.contains(&x.name) => var(&x.name),
            TermKind::Var(x) => self.name(&x.name, t.span)?,
            TermKind::Nat(_) if self.mode == Mode::Vec => E::K(K::Un),
            TermKind::Size(n) => E::Size(*n),
            TermKind::Pair(a, b) => pair(self.go(a, bound, d)?, self.go(b, bound, d)?),
            TermKind::Vector(items) if self.mode == Mode::Vec => self.vector(t, items, bound, d)?,
            TermKind::App { fun, arg, .. } => app(self.go(fun, bound, d)?, self.go(arg, bound, d)?),
            TermKind::Lam { param, body } => {
                bound.push(param.name.name.clone());
                let body = self.go(body, bound, d);
                bound.pop();
                lam(&param.name.name, body?)
            }
            TermKind::Check { cond, body } => check(
                CHECK.into(),
                self.go(cond, bound, d)?,
                self.go(body, bound, d)?,
            ),
            TermKind::Let { name, value, body } => {
                let value = self.go(value, bound, d)?;
                bound.push(name.name.clone());
                let body = self.go(body, bound, d);
                bound.pop();
                E::Let(name.name.clone(), Box::new(value), Box::new(body?))
            }
            TermKind::Rec { .. } => Err(unsupported(
                t.span,
                "uses `rec` (Sekanina §5.2: #_C cannot analyse recursion)",
            ))?,
            TermKind::Ifs { .. } => Err(unsupported(
                t.span,
                "uses `ifs` (Sekanina §5.2: #_C cannot analyse size conditionals)",
            ))?,
            TermKind::If { .. } => Err(unsupported(
                t.span,
                "uses the data conditional `if` (Chapter 6: #_C has no rule for it)",
            ))?,
            TermKind::Error => Err(unsupported(t.span, "has a syntax error"))?,
            TermKind::Nat(_) | TermKind::Vector(_) => {
                Err(unsupported(t.span, "is VEC, not SIZE_C"))?
            }
        })
    }

    /// `[t1, …, tn] ≡ t1 :: … :: sing tn`.
    fn vector(
        &mut self,
        t: &Term,
        items: &[Term],
        bound: &mut Vec<String>,
        d: usize,
    ) -> Result<E, Unsupported> {
        let Some((last, init)) = items.split_last() else {
            return Err(unsupported(t.span, "uses `[]`, which VEC does not have"));
        };
        if items.len() > MAX_NESTING {
            return Err(unsupported(t.span, "is too large for #_C"));
        }
        let mut acc = app(combinator("sing").expect("sing"), self.go(last, bound, d)?);
        for item in init.iter().rev() {
            acc = app2(
                combinator("cons").expect("cons"),
                self.go(item, bound, d)?,
                acc,
            );
        }
        Ok(acc)
    }

    /// A free name: the latest definition, else a combinator.
    fn name(&self, x: &str, span: Span) -> Result<E, Unsupported> {
        if let Some(def) = self.defs.get(x) {
            return def
                .clone()
                .map_err(|u| unsupported(span, format!("uses `{x}`, which {}", u.reason)));
        }
        let c = match self.mode {
            Mode::Vec => combinator(x),
            Mode::SizeC => size_c_combinator(x).or_else(|| Some(var(x))),
        };
        c.ok_or_else(|| unsupported(span, format!("uses the unbound name `{x}`")))
    }
}

/// A SIZE_C combinator as a term: the constants, `zero`, and `=`.
fn size_c_combinator(name: &str) -> Option<E> {
    match name {
        "zero" => Some(E::Size(0)),
        "=" => Some(lam("x", lam("y", equal(var("x"), var("y"))))),
        _ => K::from_name(name).map(E::K),
    }
}

/// `#_C c` of a VEC combinator (Fig 5.5; the datum operations as in `#`).
fn combinator(name: &str) -> Option<E> {
    let x = || var("x");
    let y = || var("y");
    let fst = |e| k1(K::Fst, e);
    let snd = |e| k1(K::Snd, e);
    Some(match name {
        "sing" => lam("x", pair(E::Size(1), x())),
        "cons" => lam(
            "x",
            lam(
                "y",
                check(
                    CHECK.into(),
                    equal(x(), snd(y())),
                    pair(k1(K::Succ, fst(y())), snd(y())),
                ),
            ),
        ),
        "hd" => E::K(K::Snd),
        "tl" => lam(
            "x",
            check(
                CHECK.into(),
                k1(K::Pred, k1(K::Pred, fst(x()))),
                pair(k1(K::Pred, fst(x())), snd(x())),
            ),
        ),
        "length" => E::K(K::Fst),
        "+" | "-" | "*" | "/" => lam("x", E::K(K::Un)),
        _ => return size_c_combinator(name),
    })
}

/// The built-in skeletons' closed forms (spec §4.6) and SIZE_C's primitive `and`,
/// `not` (spec §4.2), which replace the prelude's definitions of those names.
fn builtin(name: &str) -> Option<E> {
    let (f, x, y) = (|| var("f"), || var("x"), || var("y"));
    let fst = |e| k1(K::Fst, e);
    let snd = |e| k1(K::Snd, e);
    let lam2 = |a, b, body| lam(a, lam(b, body));
    Some(match name {
        "map" => lam2("f", "x", pair(fst(x()), app(f(), snd(x())))),
        "fold" => lam(
            "f",
            lam2(
                "x",
                "y",
                check(CHECK.into(), equal(app(f(), pair(snd(y()), x())), x()), x()),
            ),
        ),
        "zip" => lam2(
            "x",
            "y",
            check(
                CHECK.into(),
                equal(fst(x()), fst(y())),
                pair(fst(x()), pair(snd(x()), snd(y()))),
            ),
        ),
        "append" => lam2(
            "x",
            "y",
            check(
                CHECK.into(),
                equal(snd(x()), snd(y())),
                pair(app2(E::K(K::Add), fst(x()), fst(y())), snd(x())),
            ),
        ),
        "transpose" => lam("x", pair(fst(snd(x())), pair(fst(x()), snd(snd(x()))))),
        "and" => E::K(K::And),
        "not" => E::K(K::Not),
        _ => return None,
    })
}
