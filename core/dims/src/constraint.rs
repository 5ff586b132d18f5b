//! [`Constraint`]: conditions over extents, such as Joisha's conformance condition θ.
//!
//! The smart constructors (`Constraint::eq`, `and`, `or`, …) fold what is decidable
//! without any facts (known integers, structural signs, `x == x`), so a θ over known
//! extents collapses to `True`/`False` and a symbolic θ prints without clutter.

use super::dim::Dim;
use super::symbol::Symbol;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Constraint {
    True,
    False,
    Eq(Dim, Dim),
    Ne(Dim, Dim),
    Le(Dim, Dim),
    Lt(Dim, Dim),
    And(Vec<Constraint>),
    Or(Vec<Constraint>),
    /// A condition the analysis cannot express over extents (e.g. an index value within
    /// bounds); it is always answered `Unknown`.
    Opaque(String),
}

/// Whether nothing about `a` and `b` may be folded: an overflow stands for no number
/// in particular, and each `Dyn` is its own unknown (`Dyn - Dyn` is not 0), so these
/// are left to `Facts::ask`.
fn unfoldable(a: &Dim, b: &Dim) -> bool {
    a.is_opaque() || b.is_opaque() || a.is_dyn() || b.is_dyn()
}

/// What a structural look at `a - b` says about its sign.
fn fold_eq(a: &Dim, b: &Dim) -> Option<bool> {
    if unfoldable(a, b) {
        return None;
    }
    let d = a.sub(b);
    if d.is_zero() {
        return Some(true);
    }
    if d.is_known() || d.is_positive() || d.neg().is_positive() {
        return Some(false);
    }
    None
}

/// `a <= b` decided structurally, if possible.
fn fold_le(a: &Dim, b: &Dim) -> Option<bool> {
    if unfoldable(a, b) {
        return None;
    }
    let d = b.sub(a);
    if d.is_nonneg() {
        return Some(true);
    }
    if d.neg().add_const(-1).is_nonneg() {
        return Some(false);
    }
    None
}

fn from_bool(b: bool) -> Constraint {
    if b {
        Constraint::True
    } else {
        Constraint::False
    }
}

/// Puts a known operand on the right, so conditions read `m == 4`, not `4 == m`.
fn oriented(a: Dim, b: Dim) -> (Dim, Dim) {
    if a.is_known() && !b.is_known() {
        (b, a)
    } else {
        (a, b)
    }
}

impl Constraint {
    pub fn eq(a: &Dim, b: &Dim) -> Constraint {
        match fold_eq(a, b) {
            Some(v) => from_bool(v),
            None => {
                let (a, b) = oriented(a.clone(), b.clone());
                Constraint::Eq(a, b)
            }
        }
    }

    pub fn ne(a: &Dim, b: &Dim) -> Constraint {
        match fold_eq(a, b) {
            Some(v) => from_bool(!v),
            None => {
                let (a, b) = oriented(a.clone(), b.clone());
                Constraint::Ne(a, b)
            }
        }
    }

    pub fn le(a: &Dim, b: &Dim) -> Constraint {
        match fold_le(a, b) {
            Some(v) => from_bool(v),
            None => Constraint::Le(a.clone(), b.clone()),
        }
    }

    pub fn lt(a: &Dim, b: &Dim) -> Constraint {
        match fold_le(&a.add_const(1), b) {
            Some(v) => from_bool(v),
            None => Constraint::Lt(a.clone(), b.clone()),
        }
    }

    /// Conjunction, flattened, with `True` dropped, duplicates removed, `False` absorbing.
    pub fn and(parts: impl IntoIterator<Item = Constraint>) -> Constraint {
        Constraint::junction(parts, true)
    }

    /// Disjunction, flattened, with `False` dropped, duplicates removed, `True` absorbing.
    pub fn or(parts: impl IntoIterator<Item = Constraint>) -> Constraint {
        Constraint::junction(parts, false)
    }

    /// `and` (`conjunction`) or `or`: the two are duals, differing only in which
    /// constant is the unit (dropped) and which absorbs everything.
    fn junction(parts: impl IntoIterator<Item = Constraint>, conjunction: bool) -> Constraint {
        let (unit, absorbing) = if conjunction {
            (Constraint::True, Constraint::False)
        } else {
            (Constraint::False, Constraint::True)
        };
        let mut out: Vec<Constraint> = Vec::new();
        for p in parts {
            let flattened = match p {
                p if p == unit => continue,
                p if p == absorbing => return absorbing,
                Constraint::And(inner) if conjunction => inner,
                Constraint::Or(inner) if !conjunction => inner,
                p => vec![p],
            };
            for q in flattened {
                if !out.contains(&q) {
                    out.push(q);
                }
            }
        }
        match out.len() {
            0 => unit,
            1 => out.pop().unwrap_or(unit),
            _ if conjunction => Constraint::And(out),
            _ => Constraint::Or(out),
        }
    }

    /// Logical negation (De Morgan; `Opaque` stays opaque).
    pub fn not(&self) -> Constraint {
        match self {
            Constraint::True => Constraint::False,
            Constraint::False => Constraint::True,
            Constraint::Eq(a, b) => Constraint::ne(a, b),
            Constraint::Ne(a, b) => Constraint::eq(a, b),
            Constraint::Le(a, b) => Constraint::lt(b, a),
            Constraint::Lt(a, b) => Constraint::le(b, a),
            Constraint::And(v) => Constraint::or(v.iter().map(Constraint::not)),
            Constraint::Or(v) => Constraint::and(v.iter().map(Constraint::not)),
            Constraint::Opaque(s) => Constraint::Opaque(format!("not ({s})")),
        }
    }

    /// The conjuncts of a conjunction (a non-conjunction is its own single conjunct).
    pub fn conjuncts(&self) -> Vec<Constraint> {
        match self {
            Constraint::True => vec![],
            Constraint::And(v) => v.clone(),
            c => vec![c.clone()],
        }
    }

    /// Every extent the constraint mentions.
    pub fn dims(&self) -> Vec<&Dim> {
        match self {
            Constraint::True | Constraint::False | Constraint::Opaque(_) => vec![],
            Constraint::Eq(a, b)
            | Constraint::Ne(a, b)
            | Constraint::Le(a, b)
            | Constraint::Lt(a, b) => vec![a, b],
            Constraint::And(v) | Constraint::Or(v) => v.iter().flat_map(|c| c.dims()).collect(),
        }
    }

    /// Whether `f` holds for some Dim of the constraint (in the order of [`Self::dims`],
    /// stopping at the first), without collecting them.
    pub(crate) fn any_dim(&self, f: &mut dyn FnMut(&Dim) -> bool) -> bool {
        match self {
            Constraint::True | Constraint::False | Constraint::Opaque(_) => false,
            Constraint::Eq(a, b)
            | Constraint::Ne(a, b)
            | Constraint::Le(a, b)
            | Constraint::Lt(a, b) => f(a) || f(b),
            Constraint::And(v) | Constraint::Or(v) => v.iter().any(|c| c.any_dim(f)),
        }
    }

    /// Rewrites every Dim with `f` and re-folds.
    pub fn map_dims(&self, f: &dyn Fn(&Dim) -> Dim) -> Constraint {
        match self {
            Constraint::True | Constraint::False | Constraint::Opaque(_) => self.clone(),
            Constraint::Eq(a, b) => Constraint::eq(&f(a), &f(b)),
            Constraint::Ne(a, b) => Constraint::ne(&f(a), &f(b)),
            Constraint::Le(a, b) => Constraint::le(&f(a), &f(b)),
            Constraint::Lt(a, b) => Constraint::lt(&f(a), &f(b)),
            Constraint::And(v) => Constraint::and(v.iter().map(|c| c.map_dims(f))),
            Constraint::Or(v) => Constraint::or(v.iter().map(|c| c.map_dims(f))),
        }
    }

    /// Evaluates with every symbol bound by display name (see `Dim::eval`); `None` if
    /// some symbol is unbound or opaque.
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<i64>) -> Option<bool> {
        self.eval_symbols(&|s| env(s.name()))
    }

    /// Whether some extent of the constraint is the gradual `Dyn`.
    pub fn mentions_dyn(&self) -> bool {
        self.any_dim(&mut |d| d.is_dyn())
    }

    /// Evaluates with every symbol bound by `env` (by identity); `None` if some symbol
    /// is unbound, an extent is `Dyn`, or the constraint is `Opaque`.
    pub fn eval_symbols(&self, env: &dyn Fn(&Symbol) -> Option<i64>) -> Option<bool> {
        let cmp = |a: &Dim, b: &Dim| Some((a.eval_symbols(env)?, b.eval_symbols(env)?));
        Some(match self {
            Constraint::True => true,
            Constraint::False => false,
            Constraint::Opaque(_) => return None,
            Constraint::Eq(a, b) => cmp(a, b).map(|(x, y)| x == y)?,
            Constraint::Ne(a, b) => cmp(a, b).map(|(x, y)| x != y)?,
            Constraint::Le(a, b) => cmp(a, b).map(|(x, y)| x <= y)?,
            Constraint::Lt(a, b) => cmp(a, b).map(|(x, y)| x < y)?,
            Constraint::And(v) => {
                let r: Option<Vec<bool>> = v.iter().map(|c| c.eval_symbols(env)).collect();
                r?.into_iter().all(|x| x)
            }
            Constraint::Or(v) => {
                let r: Option<Vec<bool>> = v.iter().map(|c| c.eval_symbols(env)).collect();
                r?.into_iter().any(|x| x)
            }
        })
    }
}

impl fmt::Display for Constraint {
    /// The paper's style: `p2 == q1`, `(m == 4) ∨ (m == 1 ∧ n == 1)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Constraint::True => f.write_str("true"),
            Constraint::False => f.write_str("false"),
            Constraint::Eq(a, b) => write!(f, "{a} == {b}"),
            Constraint::Ne(a, b) => write!(f, "{a} ≠ {b}"),
            Constraint::Le(a, b) => write!(f, "{a} ≤ {b}"),
            Constraint::Lt(a, b) => write!(f, "{a} < {b}"),
            Constraint::Opaque(s) => f.write_str(s),
            Constraint::And(v) => {
                for (i, c) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ∧ ")?;
                    }
                    match c {
                        Constraint::Or(_) => write!(f, "({c})")?,
                        _ => write!(f, "{c}")?,
                    }
                }
                Ok(())
            }
            Constraint::Or(v) => {
                for (i, c) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ∨ ")?;
                    }
                    write!(f, "({c})")?;
                }
                Ok(())
            }
        }
    }
}
