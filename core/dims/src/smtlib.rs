//! SMT-LIB2 export of a constraint set, for an external solver (Z3, cvc5) to check
//! what [`crate::solve`] says, or to decide what it leaves unknown.
//!
//! [`script`] gives a complete script: the logic (`QF_LIA`, or `QF_NIA` when a product
//! of unknowns or a division by an unknown occurs), one `Int` constant per symbol (with
//! `x >= 0` for extent symbols), one fresh constant `>= 0` per occurrence of the
//! gradual `Dyn` (each is its own unknown, as in `Facts::ask` and `solve`), an
//! `assert` per constraint and `(check-sat)`. [`names`] maps the constants back to
//! symbols; [`script_with_model`] also pins the symbols to a model's values.
//!
//! Semantics match [`Constraint::eval_symbols`] wherever it is defined: a symbol used
//! both as an extent and as a value is one constant (evaluation looks symbols up by
//! identity); `max(x,0)` is an `ite`; `floor(n/d)` is SMT's `div` when `d` is
//! structurally positive (there `div` floors), and otherwise a case split on the sign
//! of `d` (`floor(n/d) = floor(-n/-d)`). Division by zero has no value in evaluation;
//! here it is 0 — some value, consistent with the prover's sign rules
//! (`floor(n/d) ≥ 0` for extents `n`, `d`), so no model we evaluate depends on it.

use super::constraint::Constraint;
use super::dim::{Atom, Dim};
use super::solver::Model;
use super::symbol::Symbol;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;

/// Why a constraint set has no SMT-LIB2 rendering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsupported {
    /// A `Constraint::Opaque` (its text): a condition not over extents.
    Opaque(String),
    /// An overflowed extent: no number in particular, so nothing to say about it.
    Overflow,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsupported::Opaque(s) => write!(f, "opaque condition `{s}` has no SMT form"),
            Unsupported::Overflow => f.write_str("an overflowed extent has no SMT form"),
        }
    }
}

impl std::error::Error for Unsupported {}

/// The script deciding whether `constraints` all hold (see the module documentation).
pub fn script(constraints: &[Constraint]) -> Result<String, Unsupported> {
    Printer::new(constraints).render(constraints, &[])
}

/// [`script`] with every symbol the model has a value for pinned to it: `sat` exactly
/// when the model satisfies the constraints (for some values of the `Dyn` occurrences).
pub fn script_with_model(constraints: &[Constraint], model: &Model) -> Result<String, Unsupported> {
    let p = Printer::new(constraints);
    let pins: Vec<String> = p
        .names
        .iter()
        .filter_map(|(s, n)| model.get(s).map(|v| format!("(= {n} {})", int(v))))
        .collect();
    p.render(constraints, &pins)
}

/// The SMT constant of each symbol of `constraints`, in declaration order.
pub fn names(constraints: &[Constraint]) -> Vec<(String, Symbol)> {
    Printer::new(constraints)
        .names
        .into_iter()
        .map(|(s, n)| (n, s))
        .collect()
}

/// An integer literal (SMT-LIB has no negative numerals).
fn int(v: i64) -> String {
    if v < 0 {
        format!("(- {})", v.unsigned_abs())
    } else {
        v.to_string()
    }
}

/// A simple SMT symbol for symbol number `i`: its name with every character outside
/// `[A-Za-z0-9_]` replaced by `_`, then `_i`, so names are distinct (the suffix is) and
/// never a reserved word or a `Dyn` constant (`dyn!k`).
fn smt_name(s: &Symbol, i: usize) -> String {
    let clean: String = s
        .name()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let head = if clean.starts_with(|c: char| c.is_ascii_alphabetic()) {
        ""
    } else {
        "s"
    };
    format!("{head}{clean}_{i}")
}

struct Printer {
    names: BTreeMap<Symbol, String>,
    /// Symbols used as extents somewhere (declared `>= 0`).
    extents: Vec<Symbol>,
    /// `Dyn` occurrences printed so far.
    dyns: Cell<u32>,
    /// Whether a product of unknowns or a division by one was printed.
    nonlinear: Cell<bool>,
}

impl Printer {
    fn new(constraints: &[Constraint]) -> Printer {
        let mut names = BTreeMap::new();
        let mut extents = Vec::new();
        for c in constraints {
            for d in c.dims() {
                for a in d.leaves() {
                    let Some(s) = a.symbol() else { continue };
                    let i = names.len();
                    names.entry(s.clone()).or_insert_with(|| smt_name(s, i));
                    if matches!(a, Atom::Sym(_)) && !extents.contains(s) {
                        extents.push(s.clone());
                    }
                }
            }
        }
        Printer {
            names,
            extents,
            dyns: Cell::new(0),
            nonlinear: Cell::new(false),
        }
    }

    fn render(&self, constraints: &[Constraint], extra: &[String]) -> Result<String, Unsupported> {
        let asserts = constraints
            .iter()
            .map(|c| self.constraint(c))
            .collect::<Result<Vec<_>, _>>()?;
        let logic = if self.nonlinear.get() {
            "QF_NIA"
        } else {
            "QF_LIA"
        };
        let mut out = format!("(set-logic {logic})\n");
        let mut declarations: Vec<(&String, bool)> = self
            .names
            .iter()
            .map(|(s, n)| (n, self.extents.contains(s)))
            .collect();
        let dyns: Vec<String> = (0..self.dyns.get()).map(|k| format!("dyn!{k}")).collect();
        declarations.extend(dyns.iter().map(|n| (n, true)));
        for (n, extent) in declarations {
            out.push_str(&format!("(declare-const {n} Int)\n"));
            if extent {
                out.push_str(&format!("(assert (>= {n} 0))\n"));
            }
        }
        for a in asserts.iter().chain(extra) {
            out.push_str(&format!("(assert {a})\n"));
        }
        out.push_str("(check-sat)\n");
        Ok(out)
    }

    fn constraint(&self, c: &Constraint) -> Result<String, Unsupported> {
        let pair = |op: &str, a: &Dim, b: &Dim| -> Result<String, Unsupported> {
            Ok(format!("({op} {} {})", self.dim(a)?, self.dim(b)?))
        };
        Ok(match c {
            Constraint::True => "true".into(),
            Constraint::False => "false".into(),
            Constraint::Opaque(s) => return Err(Unsupported::Opaque(s.clone())),
            Constraint::Eq(a, b) => pair("=", a, b)?,
            Constraint::Ne(a, b) => format!("(not {})", pair("=", a, b)?),
            Constraint::Le(a, b) => pair("<=", a, b)?,
            Constraint::Lt(a, b) => pair("<", a, b)?,
            // The unit first, so an empty junction is still well formed.
            Constraint::And(v) => format!("(and true {})", self.all(v)?),
            Constraint::Or(v) => format!("(or false {})", self.all(v)?),
        })
    }

    fn all(&self, v: &[Constraint]) -> Result<String, Unsupported> {
        let parts = v
            .iter()
            .map(|c| self.constraint(c))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(parts.join(" "))
    }

    fn dim(&self, d: &Dim) -> Result<String, Unsupported> {
        if d.is_opaque() {
            return Err(Unsupported::Overflow);
        }
        let mut parts: Vec<String> = Vec::new();
        for (m, c) in d.terms() {
            let atoms = m.atoms();
            if atoms.len() > 1 {
                self.nonlinear.set(true);
            }
            // A coefficient 1 is left out (`x`, not `(* 1 x)`).
            let mut factors = if *c == 1 && !atoms.is_empty() {
                vec![]
            } else {
                vec![int(*c)]
            };
            for a in atoms {
                factors.push(self.atom(a)?);
            }
            parts.push(join("*", factors));
        }
        Ok(match parts.len() {
            0 => "0".to_string(),
            _ => join("+", parts),
        })
    }

    fn atom(&self, a: &Atom) -> Result<String, Unsupported> {
        Ok(match a {
            Atom::Sym(s) | Atom::Val(s) => self.names.get(s).cloned().unwrap_or_default(),
            Atom::Dyn => {
                let k = self.dyns.get();
                self.dyns.set(k + 1);
                format!("dyn!{k}")
            }
            Atom::Max0(x) => {
                let x = self.dim(x)?;
                format!("(ite (>= {x} 0) {x} 0)")
            }
            Atom::FloorDiv(n, d) => self.floor(n, d)?,
        })
    }

    /// `floor(n/d)` (see the module documentation for the cases).
    fn floor(&self, n: &Dim, d: &Dim) -> Result<String, Unsupported> {
        let (ns, ds) = (self.dim(n)?, self.dim(d)?);
        Ok(match d.as_known() {
            Some(0) => "0".to_string(),
            Some(k) if k > 0 => format!("(div {ns} {ds})"),
            Some(k) => format!("(div (- {ns}) {})", k.unsigned_abs()),
            None => {
                self.nonlinear.set(true);
                if d.is_positive() {
                    format!("(div {ns} {ds})")
                } else {
                    format!(
                        "(ite (> {ds} 0) (div {ns} {ds}) (ite (< {ds} 0) (div (- {ns}) (- {ds})) 0))"
                    )
                }
            }
        })
    }
}

/// `(op a b …)`, or the single operand alone.
fn join(op: &str, mut parts: Vec<String>) -> String {
    if parts.len() == 1 {
        return parts.pop().unwrap_or_default();
    }
    format!("({op} {})", parts.join(" "))
}
