//! A simplified `#_C` signature's result shape in the house's dimensions
//! (`shapex-dims`): `\x y. check … then <fst x, <fst (snd y), un>>` gives `<x_1, y_2>`,
//! `x_1` the length of `x`, `y_2` the length of `y`'s entries; `~+` is a sum, `~n` a
//! number. So a function's line shows its result's shape over its inputs' extents as
//! a MATLAB function's does.

use shapex_dims::{Constraint, Dim};
use shapex_vec_syntax::ast::{Term, TermKind};

/// The parameters and the result's extents of the signature `sig`, when its result
/// is a shape of known rank built from sizes of the parameters' shapes (after the
/// checks, which say when it holds).
pub(crate) fn result_dims(sig: &Term) -> Option<(Vec<String>, Vec<Dim>)> {
    let (params, mut t) = params(sig);
    while let TermKind::Check { body, .. } | TermKind::Let { body, .. } = &t.kind {
        t = body;
    }
    let dims = shape(t, &params)?;
    Some((params, dims))
}

/// The signature's parameters, in order, and the body under them.
pub(crate) fn params(sig: &Term) -> (Vec<String>, &Term) {
    let mut params = Vec::new();
    let mut t = sig;
    while let TermKind::Lam { param, body } = &t.kind {
        params.push(param.name.name.clone());
        t = body;
    }
    (params, t)
}

/// What the signature `sig` checks before its result, as equations of its
/// parameters' extents (`check fst (snd x) = fst y then …` is `x_2 == y_1`): what an
/// application needs of its arguments' shapes, since a failed check is `err`, a shape
/// error. `None` when a check is not such an equation (`snd x = snd y` compares whole
/// shapes), so no condition is shown that is weaker than the signature's; empty when
/// it checks nothing.
pub(crate) fn conditions(sig: &Term) -> Option<Vec<Constraint>> {
    let (params, mut t) = params(sig);
    let mut out = Vec::new();
    while let Some((cond, body)) = crate::size_c::as_check(t) {
        let (a, b) = crate::size_c::equality(cond).or_else(|| called2(cond, "="))?;
        out.push(Constraint::eq(&size(a, &params)?, &size(b, &params)?));
        t = body;
    }
    Some(out)
}

fn shape(t: &Term, params: &[String]) -> Option<Vec<Dim>> {
    match &t.kind {
        TermKind::Var(x) if x.name == "un" => Some(Vec::new()),
        TermKind::Pair(n, rest) => {
            let mut dims = vec![size(n, params)?];
            dims.extend(shape(rest, params)?);
            Some(dims)
        }
        _ => None,
    }
}

fn size(t: &Term, params: &[String]) -> Option<Dim> {
    match &t.kind {
        TermKind::Size(n) => Some(Dim::known(i64::try_from(*n).ok()?)),
        TermKind::Var(x) if x.name == "zero" => Some(Dim::zero()),
        TermKind::App { fun, arg, .. } => match (&fun.kind, called(fun)) {
            (TermKind::Var(f), _) if f.name == "succ" => Some(size(arg, params)?.add_const(1)),
            (TermKind::Var(f), _) if f.name == "fst" => extent(arg, params, 1),
            (_, Some(("~+", a))) => Some(size(a, params)?.add(&size(arg, params)?)),
            _ => None,
        },
        _ => None,
    }
}

/// `f a` of an application `f a b`: the curried operator and its first operand.
fn called(t: &Term) -> Option<(&str, &Term)> {
    match &t.kind {
        TermKind::App { fun, arg, .. } => match &fun.kind {
            TermKind::Var(f) => Some((f.name.as_str(), &**arg)),
            _ => None,
        },
        _ => None,
    }
}

/// `(a, b)` of `op a b`, as written (the simplifier's own form is `pred (not (eq a b))`).
fn called2<'t>(t: &'t Term, op: &str) -> Option<(&'t Term, &'t Term)> {
    let TermKind::App { fun, arg, .. } = &t.kind else {
        return None;
    };
    let (f, a) = called(fun)?;
    (f == op).then_some((a, &**arg))
}

/// `fst (snd^k p)` is extent k+1 of parameter p: `p_{k+1}`.
fn extent(t: &Term, params: &[String], k: usize) -> Option<Dim> {
    match &t.kind {
        TermKind::Var(p) if params.contains(&p.name) => Some(Dim::sym(&format!("{}_{k}", p.name))),
        TermKind::App { fun, arg, .. } if matches!(&fun.kind, TermKind::Var(f) if f.name == "snd") => {
            extent(arg, params, k + 1)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dims(sig: &str) -> Option<String> {
        let t = shapex_vec_syntax::parse(sig).program.main?;
        let (_, dims) = result_dims(&t)?;
        Some(
            dims.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(","),
        )
    }

    fn conditions(sig: &str) -> Option<String> {
        let t = shapex_vec_syntax::parse(sig).program.main?;
        let cs = super::conditions(&t)?;
        Some(
            cs.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" ∧ "),
        )
    }

    #[test]
    fn checks_read_as_equations_of_extents() {
        let multiply = "\\x y. check fst (snd x) = fst y then <fst x, <fst (snd y), un>>";
        assert_eq!(conditions(multiply).as_deref(), Some("x_2 == y_1"));
        let two = "\\x y. check fst x = ~3, fst y = fst x then <fst x, un>";
        assert_eq!(conditions(two).as_deref(), Some("x_1 == 3 ∧ y_1 == x_1"));
        let shapes = "\\x y. check snd x = snd y then <fst x ~+ fst y, <~3, un>>";
        assert_eq!(conditions(shapes), None, "whole shapes are not extents");
        assert_eq!(conditions("\\x. <fst x, un>").as_deref(), Some(""));
    }

    #[test]
    fn signatures_read_as_extents_of_their_parameters() {
        let multiply = "\\x y. check fst (snd x) = fst y then <fst x, <fst (snd y), un>>";
        assert_eq!(dims(multiply).as_deref(), Some("x_1,y_2"));
        let transpose = "\\x. <fst (snd x), <fst x, snd (snd x)>>";
        assert_eq!(dims(transpose), None, "the entries' shape is not known");
        let sum = "\\x y. check snd x = snd y then <fst x ~+ fst y, <~3, un>>";
        assert_eq!(dims(sum).as_deref(), Some("x_1+y_1,3"));
        assert_eq!(dims("<~2, <~1, un>>").as_deref(), Some("2,1"));
        assert_eq!(dims("\\x. <fst z, un>"), None);
    }
}
