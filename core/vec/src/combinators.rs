//! The combinators' type schemes: SIZE's (Fig 2.3, spec §1.3), VEC's (Fig 3.1, spec
//! §2.2) with the datum operations of §3.3, and SIZE_C's (Fig 5.1 as reconstructed,
//! spec §4.2). The superscripts of the thesis (`pair^{σ,σ'}`, `eq^θ`, `sing^τ`) are
//! the quantified variables, their strata the kinds.

use crate::types::{Kind, Scheme, Ty};

/// `'a` of a scheme (variable 0), `'b` (variable 1).
fn a() -> Ty {
    Ty::Var(0)
}
fn b() -> Ty {
    Ty::Var(1)
}

fn arrow2(x: Ty, y: Ty, z: Ty) -> Ty {
    Ty::arrow(x, Ty::arrow(y, z))
}

fn poly(kinds: &[Kind], ty: Ty) -> Scheme {
    Scheme {
        kinds: kinds.to_vec(),
        ty,
    }
}

/// The mark of a name that is the combinator before it whatever the scope (`snd#`):
/// what the shape translations insert, so a program's own `snd` (a binder or a
/// definition) cannot capture it. No source can spell such a name, and the printer
/// leaves the mark out.
pub const PRIMITIVE: char = '#';

/// The `err` the shape of a data conditional gives when its branches' shapes differ
/// (`#if`, spec 003 §5.1 option 2): not a shape error of the program, which may take
/// either branch, but the shapes' inability to say which: an `err` of its own origin
/// ([`crate::eval::Origin::Undecided`]).
pub const UNDECIDED: &str = "err#if";

/// `name` without the [`PRIMITIVE`] mark (an [`UNDECIDED`] is an `err`).
pub fn primitive(name: &str) -> &str {
    if name == UNDECIDED {
        return "err";
    }
    name.strip_suffix(PRIMITIVE).unwrap_or(name)
}

/// The scheme of the combinator `name` (marked [`PRIMITIVE`] or not), or `None` when
/// it is not one.
pub fn scheme(name: &str) -> Option<Scheme> {
    let name = primitive(name);
    use Kind::{Any, Data, Theta};
    let sz_sz = || Ty::arrow(Ty::Sz, Ty::Sz);
    Some(match name {
        // SIZE, Fig 2.3. `pair`, `fst`, `snd` range over phrase types (spec §2.1).
        "un" => Scheme::mono(Ty::Un),
        "pair" => poly(&[Any, Any], arrow2(a(), b(), Ty::product(a(), b()))),
        "fst" => poly(&[Any, Any], Ty::arrow(Ty::product(a(), b()), a())),
        "snd" => poly(&[Any, Any], Ty::arrow(Ty::product(a(), b()), b())),
        "zero" => Scheme::mono(Ty::Sz),
        "succ" | "pred" => Scheme::mono(sz_sz()),
        // No equality on functions, nor on data: θ only (spec §2.1).
        "eq" => poly(&[Theta], arrow2(a(), a(), Ty::Sz)),
        "err" => poly(&[Any], a()),
        // VEC, Fig 3.1: vectors hold arrow-free data.
        "sing" => poly(&[Data], Ty::arrow(a(), Ty::vec(a()))),
        "cons" => poly(&[Data], arrow2(a(), Ty::vec(a()), Ty::vec(a()))),
        "hd" => poly(&[Data], Ty::arrow(Ty::vec(a()), a())),
        "tl" => poly(&[Data], Ty::arrow(Ty::vec(a()), Ty::vec(a()))),
        "length" => poly(&[Data], Ty::arrow(Ty::vec(a()), Ty::Sz)),
        // §3.3: uncurried, on a pair (spec §2.2).
        "+" | "-" | "*" | "/" => Scheme::mono(Ty::arrow(Ty::product(Ty::Nat, Ty::Nat), Ty::Nat)),
        // SIZE_C, spec §4.2: `and`, `not` become primitives (the prelude also defines
        // them, and its definitions shadow these with the same types); `~+` is taken
        // curried, as the grammar writes `a ~+ b` as `~+ a b`.
        "and" | "~+" => Scheme::mono(arrow2(Ty::Sz, Ty::Sz, Ty::Sz)),
        "not" => Scheme::mono(sz_sz()),
        // `t1 = t2 ≡ pred (not (eq t1 t2))` (spec §4.1), so `eq`'s restriction.
        "=" => poly(&[Theta], arrow2(a(), a(), Ty::Sz)),
        _ => return None,
    })
}

/// Every combinator's name, for the initial environment.
pub const NAMES: &[&str] = &[
    "un", "pair", "fst", "snd", "zero", "succ", "pred", "eq", "err", "sing", "cons", "hd", "tl",
    "length", "+", "-", "*", "/", "and", "not", "~+", "=",
];
