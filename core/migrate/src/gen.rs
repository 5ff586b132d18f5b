//! **Gen** (Migeed et al. 2024, §4; spec 004 §6.2 Layer 1): constraint generation by
//! symbolic checking over a declaration *skeleton*. The declarations' static positions
//! that the annotation leaves `Dyn` become unknowns (`Dim::Sym`), `forward` runs over
//! those types with the same rules as the gradual checker, and every rule that meets an
//! unknown says what must hold for the operation to succeed as a [`Constraint`] of
//! `shapex-dims`, with the span of the operation that needs it.
//!
//! Why the answers built on it are promises:
//! - A rule that does not model unknowns treats them as `Dyn`: it then requires
//!   nothing, which only weakens the conjunction. An `if` whose condition the unknowns
//!   decide contributes `(c ∧ then) ∨ (¬c ∧ else)`, one whose condition nothing decides
//!   `then ∨ else`, and a loop of unknown count nothing. So every constraint set is
//!   *implied* by "this skeleton's program runs without a shape error": UNSAT is a proof.
//! - SAT is not: a model is only a candidate, and it is substituted into the
//!   declarations and re-checked by the gradual checker before anything says "static
//!   migration exists" (see [`crate::migration`]).

use crate::types::Dim;
use shapex_dims::{Constraint, Dim as Poly};
use shapex_text::Span;
use std::collections::HashMap;

/// A constraint and the operation that needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Origin {
    pub constraint: Constraint,
    pub span: Span,
    /// What the operation asks, in a reader's words.
    pub why: String,
}

impl Origin {
    /// The requirement in words, with its equation when that says more
    /// (`Conv2d: the input channels: x[1] == 2`).
    pub fn describe(&self) -> String {
        match &self.constraint {
            Constraint::True | Constraint::False => self.why.clone(),
            _ if self.why.starts_with("your constraint") => self.why.clone(),
            c => format!("{}: {c}", self.why),
        }
    }
}

/// An `if` reached while generating, with what was required before it (the prefix
/// of Algorithm 2) and its condition over the unknowns.
#[derive(Clone, Debug)]
pub struct Test {
    pub span: Span,
    pub prefix: Vec<Origin>,
    pub condition: Constraint,
    /// The variable the comparison's value is bound to (`eq = x.size(1) == 3`), or
    /// `None` for an `if`.
    pub var: Option<String>,
}

/// The state of one symbolic run (see the module documentation).
#[derive(Debug, Default)]
pub struct Gen {
    active: bool,
    polys: Vec<Poly>,
    interned: HashMap<Poly, u32>,
    /// Open scopes: the constraints of the current arm of every enclosing `if`.
    frames: Vec<Vec<Origin>>,
    fresh: u32,
    /// Where the rule being applied is, and what it is.
    pub at: Span,
    pub tests: Vec<Test>,
    /// Integers `forward` names (`n = x.size(-1)`), as user constraints may name them.
    pub named: HashMap<String, Poly>,
}

impl Gen {
    /// The gradual checker's: no unknowns, nothing recorded.
    pub fn inert() -> Gen {
        Gen::default()
    }

    pub fn symbolic() -> Gen {
        Gen {
            active: true,
            frames: vec![Vec::new()],
            ..Gen::default()
        }
    }

    pub fn is_active(&self) -> bool {
        self.active
    }

    /// The value of a dimension: a number, an unknown's expression, or `None` for `Dyn`.
    pub fn poly(&self, d: Dim) -> Option<Poly> {
        match d {
            Dim::Nat(n) => i64::try_from(n).ok().map(Poly::known),
            Dim::Sym(i) => self.polys.get(i as usize).cloned(),
            Dim::Dyn => None,
        }
    }

    /// The dimension of an expression: a natural number stays one; anything else is an
    /// unknown (equal expressions are one unknown, so `Sym(i) == Sym(j)` iff i == j).
    pub fn dim(&mut self, p: Poly) -> Dim {
        if let Some(n) = p.as_known().filter(|n| *n >= 0) {
            return Dim::Nat(n as u64);
        }
        if !self.active {
            return Dim::Dyn;
        }
        if let Some(&i) = self.interned.get(&p) {
            return Dim::Sym(i);
        }
        let i = self.polys.len() as u32;
        self.polys.push(p.clone());
        self.interned.insert(p, i);
        Dim::Sym(i)
    }

    /// A fresh unknown (a quotient, a broadcast result), never equal to another.
    pub fn fresh(&mut self) -> Poly {
        self.fresh += 1;
        // Named to sort before the parameters' sizes (`x[0]`): the solver assigns
        // symbols in name order, and a window's output or a quotient usually has a
        // finite domain (the divisors of a Linear's features) that fixes the rest.
        Poly::sym(&format!("#{}", self.fresh))
    }

    /// Records that `c` must hold for the current operation to succeed.
    pub fn require(&mut self, c: Constraint, why: impl Into<String>) {
        if !self.active || c == Constraint::True {
            return;
        }
        let origin = Origin {
            constraint: c,
            span: self.at,
            why: why.into(),
        };
        if let Some(top) = self.frames.last_mut() {
            // A loop body or a module run twice asks the same of the same line once.
            let seen = top
                .iter()
                .any(|o| o.span == origin.span && o.constraint == origin.constraint);
            if !seen {
                top.push(origin);
            }
        }
    }

    /// `a ~ b` for two dimensions that must agree (a channel count, an inner
    /// dimension), with their `⊔`: `None` when they cannot (two different numbers, or
    /// an equation that folds to false); with an unknown, the equation is required.
    pub fn join(&mut self, a: Dim, b: Dim, why: &str) -> Option<Dim> {
        match (a, b) {
            (Dim::Dyn, d) | (d, Dim::Dyn) => Some(d),
            (p, q) if p == q => Some(p),
            (Dim::Nat(_), Dim::Nat(_)) => None,
            (p, q) => {
                let (Some(x), Some(y)) = (self.poly(p), self.poly(q)) else {
                    return Some(p);
                };
                let c = Constraint::eq(&x, &y);
                if c == Constraint::False {
                    return None;
                }
                self.require(c, why);
                Some(if matches!(q, Dim::Nat(_)) { q } else { p })
            }
        }
    }

    /// One position of element-wise broadcasting, after Appendix B's padding and 1
    /// replacement, when an unknown is involved: `None` when it fails for certain.
    pub fn broadcast(&mut self, a: Dim, b: Dim) -> Option<Dim> {
        let one = Poly::one();
        match (a, b) {
            (p, q) if p == q => Some(p),
            // The unknown may be 1 (then the result is the Dyn's size) or not.
            (Dim::Dyn, _) | (_, Dim::Dyn) => Some(Dim::Dyn),
            (Dim::Nat(1), d) | (d, Dim::Nat(1)) => Some(d),
            (p, q) => {
                let (Some(x), Some(y)) = (self.poly(p), self.poly(q)) else {
                    return Some(Dim::Dyn);
                };
                if let Dim::Nat(_) = q {
                    let c = Constraint::or([Constraint::eq(&x, &one), Constraint::eq(&x, &y)]);
                    if c == Constraint::False {
                        return None;
                    }
                    self.require(c, format!("broadcasting: {x} is 1 or {y}"));
                    return Some(q);
                }
                if let Dim::Nat(_) = p {
                    return self.broadcast(q, p);
                }
                let o = self.fresh();
                let c = Constraint::or([
                    Constraint::and([Constraint::eq(&x, &one), Constraint::eq(&o, &y)]),
                    Constraint::and([Constraint::eq(&y, &one), Constraint::eq(&o, &x)]),
                    Constraint::and([Constraint::eq(&x, &y), Constraint::eq(&o, &x)]),
                ]);
                self.require(
                    c,
                    format!("broadcasting: {x} and {y} are equal or one is 1"),
                );
                Some(self.dim(o))
            }
        }
    }

    /// A message with each unknown `⟨i⟩` (how types print them) spelled as its
    /// expression over the parameters' sizes (`x[2]-2`).
    pub fn spell(&self, message: &str) -> String {
        let mut out = message.to_string();
        for (i, p) in self.polys.iter().enumerate().rev() {
            out = out.replace(&format!("⟨{i}⟩"), &p.to_string());
        }
        out
    }

    /// Opens the scope of one arm of an `if`.
    pub fn open(&mut self) {
        if self.active {
            self.frames.push(Vec::new());
        }
    }

    /// Closes the innermost scope, giving what it required.
    pub fn close(&mut self) -> Vec<Origin> {
        if !self.active || self.frames.len() <= 1 {
            return Vec::new();
        }
        self.frames.pop().unwrap_or_default()
    }

    /// Records the two arms of an `if` as one disjunction: `(c ∧ then) ∨ (¬c ∧ else)`,
    /// or `then ∨ else` when no condition over the unknowns is known (`None`).
    pub fn either(&mut self, cond: Option<&Constraint>, then: Vec<Origin>, orelse: Vec<Origin>) {
        if then.is_empty() && orelse.is_empty() {
            return;
        }
        let all = |v: &[Origin]| Constraint::and(v.iter().map(|o| o.constraint.clone()));
        let (a, b) = match cond {
            Some(c) => (
                Constraint::and([c.clone(), all(&then)]),
                Constraint::and([c.not(), all(&orelse)]),
            ),
            None => (all(&then), all(&orelse)),
        };
        let c = Constraint::or([a, b]);
        self.require(c, "one of the arms of this `if` succeeds");
    }

    /// Everything required so far, in order (the enclosing scopes' too).
    pub fn required(&self) -> Vec<Origin> {
        self.frames.iter().flatten().cloned().collect()
    }

    /// Records an `if` (or a comparison bound to `var`) whose condition is the
    /// constraint `c` over the unknowns.
    pub fn test(&mut self, span: Span, c: &Constraint, var: Option<&str>) {
        if self.active {
            let prefix = self.required();
            self.tests.push(Test {
                span,
                prefix,
                condition: c.clone(),
                var: var.map(str::to_string),
            });
        }
    }
}
