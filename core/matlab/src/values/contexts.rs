//! Calling contexts (Dubrau 2012 §3.3–3.9): a function of the file is analysed once
//! per *context* — its arguments' abstract values made canonical — and the result is
//! reused by every call in that context. What keys a context, what a context's
//! analysis gives back, and how both move between the caller's symbols and the
//! callee's are here; running the callee is `call::call_user`'s.
//!
//! Canonical values name their unknown extents `$1`, `$2`, … by first appearance, one
//! per distinct extent, so a callee called as `g(A, A(:,1))` with A n×n still sees the
//! rows of both equal. A result names an extent it computed itself `#1`, `#2`, …, and
//! mentions no other symbol of the callee's: it is a pure function of the callee's text
//! and the context, whichever caller asked first.
//!
//! Facts the caller has about the `$k` are not passed (fewer facts make fewer proofs,
//! never a false error: a refutation in the callee holds for every value of the `$k`).

use super::results::{Context, Failure};
use super::{parts, Closure, Value};
use crate::shape::Shape;
use crate::tame::StmtId;
use shapex_dims::{Atom, Dim};
use std::rc::Rc;

/// The levels of precision a call's arguments are kept at (the thesis's "push contexts
/// up", §3.9). `Pattern` keeps what decides rules (class, rank, which extents are 1,
/// texts, which extents are equal): the contexts of a function are then finitely many
/// whatever the program computes, which bounds the analysis of calls in loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Level {
    Precise,
    Pattern,
}

/// How many levels of calls below a function shown in the report keep arguments
/// [`Level::Precise`]; deeper calls keep their [`Level::Pattern`].
pub(super) const DISPLAY_FUEL: u8 = 3;

/// The longest text an argument keeps in its context (`'var'`, a class name, an
/// option's name).
const MAX_TEXT: usize = 64;
/// The most known elements an argument keeps (a size vector).
const MAX_ELEMS: usize = 16;

/// What the context's `$k` stand for at the call: `dims[k - 1]`.
pub(super) struct Canon {
    pub dims: Vec<Dim>,
}

/// The name of a context's `k`-th unknown (1-based).
pub(super) fn dollar(k: usize) -> Dim {
    Dim::sym(&format!("${k}"))
}

/// The name of a result's `j`-th unknown of its own (1-based).
pub(super) fn hash(j: usize) -> Dim {
    Dim::sym(&format!("#{j}"))
}

/// `args` made canonical at `level` (see the module docs), with what each `$k` stands
/// for here.
pub(super) fn canonical(
    args: &[Value],
    nargout: usize,
    fuel: u8,
    level: Level,
) -> (Context, Canon) {
    let mut canon = Canon { dims: vec![] };
    let args: Vec<Value> = args
        .iter()
        .map(|v| canonical_value(v, level, &mut canon))
        .collect();
    let key = format!("{nargout}|{fuel}|{level:?}|{args:?}");
    let ctx = Context {
        args,
        nargout,
        fuel,
        key,
        bounds: Vec::new(),
    };
    (ctx, canon)
}

fn canonical_value(v: &Value, level: Level, canon: &mut Canon) -> Value {
    let precise = level == Level::Precise;
    let mut extent = |d: &Dim| {
        let keep = match d.as_known() {
            Some(1) => true,
            Some(_) => precise,
            None => false,
        };
        if keep {
            return d.clone();
        }
        let k = match canon.dims.iter().position(|c| c == d) {
            Some(i) => i + 1,
            None => {
                canon.dims.push(d.clone());
                canon.dims.len()
            }
        };
        dollar(k)
    };
    let shape = match v.shape.as_tuple() {
        Some(t) => Shape::tuple(t.dims().iter().map(&mut extent).collect()),
        None => v.shape.clone(),
    };
    let known = |d: &Option<Dim>| d.clone().filter(|d| precise && d.is_known());
    Value {
        class: v.class,
        shape,
        scalar: known(&v.scalar),
        elems: v
            .elems
            .clone()
            .filter(|e| precise && e.len() <= MAX_ELEMS && e.iter().all(Dim::is_known)),
        max: None,
        text: v.text.clone().filter(|t| t.len() <= MAX_TEXT),
        number: v.number.filter(|_| precise),
        open_rank: v.open_rank,
        trailing: v.trailing.as_ref().map(&mut extent),
        handle: v.handle.clone(),
        closure: canonical_closure(v, level, canon),
        origin: None,
        cleared: v.cleared,
        integral: v.integral,
        finite: v.finite,
        // Over the caller's symbols.
        guard: None,
        one: false,
        // A part's extents are not the context's `$k`: anonymous, at this level.
        parts: v.parts.as_ref().map(|p| {
            Rc::new(parts::map(p, &|x| {
                parts::anonymous(&canonical_value(x, level, &mut Canon { dims: vec![] }))
            }))
        }),
        // Shown only: no context is told apart by it.
        union: 0,
    }
}

/// An argument's closure in its context: kept when what it captured is known without
/// a symbol (its `$k` would otherwise mix with the callee's own), else dropped (a call
/// through it then has unknown results).
fn canonical_closure(v: &Value, level: Level, canon: &mut Canon) -> Option<Rc<Closure>> {
    let c = v.closure.as_ref()?;
    let before = canon.dims.len();
    let captured: Vec<Value> = c
        .captured
        .iter()
        .map(|x| canonical_value(x, level, canon))
        .collect();
    if canon.dims.len() != before {
        canon.dims.truncate(before);
        return None;
    }
    Some(Rc::new(Closure {
        func: c.func.clone(),
        captured,
    }))
}

/// Rewrites a callee's value for its result: each of `inputs` (the callee's symbols
/// for `$1`, `$2`, …) back to its `$k`, and every extent that mentions another symbol
/// of the callee to a `#j` (`own` numbers them, shared across a result so that two
/// outputs with one unknown extent keep sharing it). Scalars, elements and bounds that
/// mention one are forgotten.
pub(super) fn normalized(v: &Value, inputs: &[Dim], own: &mut Vec<Dim>) -> Value {
    let input = |a: &Atom| inputs.iter().position(|d| d.as_atom() == Some(a));
    let only_inputs = |d: &Dim| d.leaves().iter().all(|a| input(a).is_some());
    let back = |d: &Dim| d.substitute(&|a| input(a).map(|k| dollar(k + 1)));
    let mut extent = |d: &Dim| {
        if only_inputs(d) {
            return back(d);
        }
        let j = match own.iter().position(|o| o == d) {
            Some(i) => i + 1,
            None => {
                own.push(d.clone());
                own.len()
            }
        };
        hash(j)
    };
    let shape = match v.shape.as_tuple() {
        Some(t) => Shape::tuple(t.dims().iter().map(&mut extent).collect()),
        None => v.shape.clone(),
    };
    let trailing = v.trailing.as_ref().map(&mut extent);
    let value = |d: &Option<Dim>| d.as_ref().filter(|d| only_inputs(d)).map(back);
    Value {
        shape,
        trailing,
        scalar: value(&v.scalar),
        elems: v
            .elems
            .as_ref()
            .filter(|e| e.iter().all(only_inputs))
            .map(|e| e.iter().map(back).collect()),
        max: value(&v.max),
        origin: None,
        // What a returned closure captured is over the callee's symbols, and so is
        // a guard.
        closure: None,
        guard: None,
        // So are its parts' extents: anonymous at the call.
        parts: v
            .parts
            .as_ref()
            .map(|p| Rc::new(parts::map(p, &parts::anonymous))),
        ..v.clone()
    }
}

/// A shape of a result at the call: `$k` as the caller's extent, `#j` as `fresh(j)`.
pub(super) fn instantiate_dim(d: &Dim, canon: &Canon, fresh: &dyn Fn(usize) -> Dim) -> Dim {
    d.substitute(&|a| {
        let Atom::Sym(s) = a else { return None };
        let name = s.name();
        if let Some(k) = name.strip_prefix('$').and_then(|k| k.parse::<usize>().ok()) {
            return canon.dims.get(k - 1).cloned();
        }
        let j = name.strip_prefix('#')?.parse::<usize>().ok()?;
        Some(fresh(j))
    })
}

pub(super) fn instantiate_shape(s: &Shape, canon: &Canon, fresh: &dyn Fn(usize) -> Dim) -> Shape {
    match s.as_tuple() {
        Some(t) => Shape::tuple(
            t.dims()
                .iter()
                .map(|d| instantiate_dim(d, canon, fresh))
                .collect(),
        ),
        None => s.clone(),
    }
}

/// A result's value at the call (see [`instantiate_dim`]).
pub(super) fn instantiate(v: &Value, canon: &Canon, fresh: &dyn Fn(usize) -> Dim) -> Value {
    let dim = |d: &Dim| instantiate_dim(d, canon, fresh);
    Value {
        shape: instantiate_shape(&v.shape, canon, fresh),
        trailing: v.trailing.as_ref().map(dim),
        scalar: v.scalar.as_ref().map(dim),
        elems: v.elems.as_ref().map(|e| e.iter().map(dim).collect()),
        max: v.max.as_ref().map(dim),
        guard: None,
        ..v.clone()
    }
}

/// A failure of a callee's statement (over the callee's symbols) for its result.
pub(super) fn normalized_failure(f: &Failure, inputs: &[Dim], own: &mut Vec<Dim>) -> Failure {
    map_failure(f, &mut |s| {
        normalized(&Value::of_shape(None, s.clone()), inputs, own).shape
    })
}

/// A result's failure at the call (see [`instantiate_dim`]).
pub(super) fn instantiate_failure(
    f: &Failure,
    canon: &Canon,
    fresh: &dyn Fn(usize) -> Dim,
) -> Failure {
    map_failure(f, &mut |s| instantiate_shape(s, canon, fresh))
}

/// `f` with every shape it holds (at every level) mapped by `shape`, in order.
fn map_failure(f: &Failure, shape: &mut dyn FnMut(&Shape) -> Shape) -> Failure {
    Failure {
        args: f.args.iter().map(|(c, s)| (*c, shape(s))).collect(),
        operands: f.operands.iter().map(&mut *shape).collect(),
        below: f.below.as_ref().map(|b| Rc::new(map_failure(b, shape))),
        ..f.clone()
    }
}

/// `f` placed in the text: each failing statement's span, and the file of a function
/// outside the analysed one, by `place_of` the function's name and the statement's
/// relative id.
pub(super) fn placed(f: &Failure, place_of: &dyn Fn(&str, StmtId) -> Place) -> Failure {
    let (span, file) = place_of(&f.func, f.stmt);
    Failure {
        span,
        below: f
            .below
            .as_ref()
            .map(|b| std::rc::Rc::new(placed(b, place_of))),
        file,
        ..f.clone()
    }
}

/// Where a failing statement is: its span, in the file of its function's origin
/// (`None`: the analysed file).
pub(super) type Place = (
    shapex_text::Span,
    Option<std::rc::Rc<crate::tame::link::Origin>>,
);

/// The one context of a recursive function called with `nargin` arguments for
/// `nargout` outputs (the thesis's "push contexts up" to the top, §3.9): each argument
/// of any class and any shape, `<$a,$b>` of open rank with trailing extents `$c`, so a
/// unit of recursive functions has finitely many contexts, known from the text, and
/// reaches a fixed point. Sound for every call, as a function's own analysis is.
pub(super) fn top(nargin: usize, nargout: usize) -> Context {
    let args: Vec<Value> = (0..nargin)
        .map(|i| Value {
            open_rank: true,
            trailing: Some(dollar(3 * i + 3)),
            ..Value::of_shape(
                None,
                Shape::tuple(vec![dollar(3 * i + 1), dollar(3 * i + 2)]),
            )
        })
        .collect();
    Context {
        key: top_key(nargin, nargout),
        args,
        nargout,
        fuel: DISPLAY_FUEL - 1,
        bounds: Vec::new(),
    }
}

/// The context the user's entry point names (`main(double[3x4], char[1x?])`): each
/// class and known extent as given, each unknown extent a `$k` of its own, `?` an
/// argument of any class and shape (as in [`top`]).
pub(super) fn entry(e: &crate::entry::Entry, nargout: usize) -> Context {
    let mut k = 0;
    let next = |k: &mut usize| {
        *k += 1;
        dollar(*k)
    };
    let mut bounds = Vec::new();
    let args = e
        .args
        .iter()
        .map(|arg| match &arg.dims {
            None => {
                let shape = Shape::tuple(vec![next(&mut k), next(&mut k)]);
                Value {
                    open_rank: true,
                    trailing: Some(next(&mut k)),
                    ..Value::of_shape(None, shape)
                }
            }
            Some(dims) => {
                let dims = dims
                    .iter()
                    .enumerate()
                    .map(|(i, d)| match d {
                        Some(n) => Dim::known(*n),
                        None => {
                            let d = next(&mut k);
                            if let Some(Some(max)) = arg.bounds.get(i) {
                                bounds.push((k, *max));
                            }
                            d
                        }
                    })
                    .collect();
                Value::of_shape(arg.class, Shape::tuple(dims))
            }
        })
        .collect();
    Context {
        key: format!("entry|{e:?}|{nargout}"),
        args,
        nargout,
        fuel: DISPLAY_FUEL,
        bounds,
    }
}

/// The key of [`top`]'s context.
pub(super) fn top_key(nargin: usize, nargout: usize) -> String {
    format!("top|{nargin}|{nargout}")
}

/// What [`top`]'s `$k` stand for at a call with `args`: the first two extents of each
/// and the product of the rest (1 for a matrix); `fresh(k)` where the shape is not
/// known.
pub(super) fn top_canon(args: &[Value], fresh: &dyn Fn(usize) -> Dim) -> Canon {
    let mut dims = Vec::with_capacity(3 * args.len());
    for (i, v) in args.iter().enumerate() {
        match v.shape.as_tuple() {
            Some(t) => {
                let d = t.dims();
                dims.push(d[0].clone());
                dims.push(d[1].clone());
                let rest = d[2..].iter().fold(Dim::one(), |acc, e| acc.mul(e));
                dims.push(match (&v.trailing, v.open_rank) {
                    (Some(trailing), true) => rest.mul(trailing),
                    (None, true) => fresh(3 * i + 2),
                    (_, false) => rest,
                });
            }
            None => dims.extend((0..3).map(|k| fresh(3 * i + k))),
        }
    }
    Canon { dims }
}
