//! A VEC repro of a witness: a definition that applies the function with a run-time
//! check to vectors of the failing sizes (`make ~2 (make ~3 1)` is a 2×3 matrix), so
//! the program's own evaluation — VEC's run — reaches the shape error on that line.
//! A VEC program has one run, which the playground performs: the repro is runnable
//! where the program is.

use crate::types::Ty;
use shapex_report::Fix;
use shapex_text::Span;
use std::collections::BTreeMap;

/// What a repro is built from: the function's text and type, its signature's
/// parameters (whose extents the sizes name: `x_2` is the length of `x`'s entries),
/// and where a definition may stand to see it.
pub(crate) struct Callee<'a> {
    /// The name of a definition, or the final term's text (parenthesised).
    pub call: String,
    pub ty: &'a Ty,
    pub params: &'a [String],
    /// The byte offset the repro's definition is inserted at.
    pub at: usize,
    /// The line the witness is of, for the repro's comment.
    pub line: u32,
}

/// The edit inserting `def repro = f (make ~… 1) …` with `sizes` (an extent no size
/// names is 1), or `None` when an argument is not a vector of numbers (a pair, a
/// function, a size) and so has no literal of given extents.
pub(crate) fn write(callee: &Callee, sizes: &BTreeMap<String, i64>, taken: &[&str]) -> Option<Fix> {
    let mut ty = callee.ty;
    let mut args = Vec::new();
    for p in callee.params {
        let Ty::Arrow(arg, result) = ty else {
            return None;
        };
        args.push(atom(literal(arg, p, 1, sizes)?));
        ty = result;
    }
    let name = fresh(taken);
    let text = format!(
        "-- Shape Explorer's witness: line {} fails with these sizes.\ndef {name} = {} {}\n",
        callee.line,
        callee.call,
        args.join(" ")
    );
    Some(Fix::new(
        "write these sizes into the code as a repro",
        Span::new(callee.at, callee.at),
        text,
    ))
}

/// A value of type `ty` whose k-th extent is `param_k`'s size.
fn literal(ty: &Ty, param: &str, k: usize, sizes: &BTreeMap<String, i64>) -> Option<String> {
    match ty {
        // A type variable is any datum: a number is one.
        Ty::Nat | Ty::Var(_) => Some("1".into()),
        Ty::Vec(entry) => {
            let n = sizes.get(&format!("{param}_{k}")).copied().unwrap_or(1);
            let n = u64::try_from(n).ok()?;
            let inner = literal(entry, param, k + 1, sizes)?;
            Some(format!("make ~{n} {}", atom(inner)))
        }
        _ => None,
    }
}

/// `s` as an argument: parenthesised when it is an application.
fn atom(s: String) -> String {
    if s.contains(' ') {
        format!("({s})")
    } else {
        s
    }
}

/// `repro`, else `repro2`, … : a name no definition has.
fn fresh(taken: &[&str]) -> String {
    std::iter::once("repro".to_string())
        .chain((2..).map(|i| format!("repro{i}")))
        .find(|n| !taken.contains(&n.as_str()))
        .expect("an unused name")
}
