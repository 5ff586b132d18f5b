//! The spanned AST of VEC, SIZE and SIZE_C (spec 003 §§1.2, 2.2, 4.1). Every node
//! carries its source span (byte offsets); a node the parser made from sugar carries the
//! span of the text it stands for. Names are not resolved here: a combinator (`succ`,
//! `fst`, `sing`, `+`, …), a prelude definition and a variable are all [`TermKind::Var`].

use serde::{Deserialize, Serialize};
use shapex_text::Span;

/// A parsed file: its definitions in source order, then the term to evaluate, if any.
///
/// A definition may reuse the name of an earlier one or of a [`crate::prelude`]
/// definition; resolving names (the later one shadows) is left to the analysis.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Program {
    pub defs: Vec<Def>,
    /// The file's last item when it is a term (or a [`TermKind::Error`] when that item
    /// failed to parse).
    pub main: Option<Term>,
}

impl Program {
    /// The last definition of `name` (the one a use after all of them sees).
    pub fn def(&self, name: &str) -> Option<&Def> {
        self.defs.iter().rev().find(|d| d.name.name == name)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// `def name p1 … pn : τ = body`. With parameters, the definition stands for
/// `\p1 … pn. body`; the annotation, if any, is the type of `body` (so of `name` itself
/// when there are no parameters). A definition does not see itself: recursion is
/// written with `rec`, as in the thesis.
///
/// A definition that failed to parse keeps its name when the parser could read one
/// (otherwise the name is empty); its body is a [`TermKind::Error`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Def {
    pub name: Ident,
    pub params: Vec<Param>,
    pub ty: Option<Type>,
    pub body: Term,
    pub span: Span,
}

impl Def {
    pub fn is_error(&self) -> bool {
        matches!(self.body.kind, TermKind::Error)
    }
}

/// A bound variable with its optional type (the thesis's `λx^σ.t`, written `\x : σ. t`
/// or `\(x : σ). t`). The span covers the binder as written, parentheses included.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub name: Ident,
    pub ty: Option<Type>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Term {
    pub kind: TermKind,
    /// The term as written; grouping parentheses around it are included.
    pub span: Span,
}

impl Term {
    pub fn is_error(&self) -> bool {
        matches!(self.kind, TermKind::Error)
    }

    /// The direct subterms, in source order: what a walk over every node needs, so
    /// that walks need not list the kinds.
    pub fn children(&self) -> Vec<&Term> {
        match &self.kind {
            TermKind::Var(_) | TermKind::Nat(_) | TermKind::Size(_) | TermKind::Error => vec![],
            TermKind::Pair(a, b)
            | TermKind::App { fun: a, arg: b, .. }
            | TermKind::Check { cond: a, body: b }
            | TermKind::Let {
                value: a, body: b, ..
            } => vec![a, b],
            TermKind::Vector(items) => items.iter().collect(),
            TermKind::Lam { body, .. } | TermKind::Rec { body, .. } => vec![body],
            TermKind::Ifs {
                cond,
                then,
                otherwise,
            }
            | TermKind::If {
                cond,
                then,
                otherwise,
            } => vec![cond, then, otherwise],
        }
    }

    /// [`Term::children`], mutable.
    pub fn children_mut(&mut self) -> Vec<&mut Term> {
        match &mut self.kind {
            TermKind::Var(_) | TermKind::Nat(_) | TermKind::Size(_) | TermKind::Error => vec![],
            TermKind::Pair(a, b)
            | TermKind::App { fun: a, arg: b, .. }
            | TermKind::Check { cond: a, body: b }
            | TermKind::Let {
                value: a, body: b, ..
            } => vec![a, b],
            TermKind::Vector(items) => items.iter_mut().collect(),
            TermKind::Lam { body, .. } | TermKind::Rec { body, .. } => vec![body],
            TermKind::Ifs {
                cond,
                then,
                otherwise,
            }
            | TermKind::If {
                cond,
                then,
                otherwise,
            } => vec![cond, then, otherwise],
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TermKind {
    /// A variable, a combinator or a definition's name; also an operator written as a
    /// term (`(+)` is `Var("+")`) or standing for an infix use (see [`TermKind::App`]).
    Var(Ident),
    /// A numeral of the datum type `nat`: `0`, `3`.
    Nat(u64),
    /// A size literal `~n`, i.e. `succ^n zero`.
    Size(u64),
    /// `(t1, t2)`, `<t1, t2>` or `⟨t1, t2⟩`: the thesis's `pair t1 t2`.
    Pair(Box<Term>, Box<Term>),
    /// `[t1, …, tn]`, i.e. `t1 :: … :: sing tn`. `[]` is accepted here (n = 0), though
    /// VEC has no empty vector (spec §9.1); rejecting it is the analysis's business.
    Vector(Vec<Term>),
    /// `fun arg`. `infix` marks the application an infix operator was read as:
    ///
    /// * `a + b`, `a - b`, `a * b`, `a / b` are `op (a, b)` (the datum operations take a
    ///   pair, spec §2.2): an `App` of `Var("+")` to a `Pair` spanning `a`…`b`;
    /// * `a :: b` is `cons a b`, `a ~+ b` is `~+ a b`, `f . g` (`f ∘ g`) is
    ///   `compose f g`, `a = b` is `= a b` (curried): the outer `App` is marked, and
    ///   the inner one (`cons a`) spans `a` and the operator.
    ///
    /// The operator's `Var` has the operator's span.
    App {
        fun: Box<Term>,
        arg: Box<Term>,
        infix: bool,
    },
    /// `\x. body`; `\x y. body` is `\x. \y. body` (the inner `Lam` spans `y. body`).
    Lam { param: Param, body: Box<Term> },
    /// `rec f. body`: `f` is bound in `body` to the whole term.
    Rec { param: Param, body: Box<Term> },
    /// `ifs cond then then_ else otherwise`: branches on a size (`zero` is true).
    Ifs {
        cond: Box<Term>,
        then: Box<Term>,
        otherwise: Box<Term>,
    },
    /// `if cond then then_ else otherwise`: the data conditional discussed in the
    /// thesis's Chapter 6 (spec §5.1), not part of VEC proper.
    If {
        cond: Box<Term>,
        then: Box<Term>,
        otherwise: Box<Term>,
    },
    /// SIZE_C's `check cond then body` (spec §4.1); `check a, b then t` is
    /// `check a then check b then t`.
    Check { cond: Box<Term>, body: Box<Term> },
    /// SIZE_C's `let name <= value in body`; `let x, y = a, b in t` is
    /// `let x <= a in let y <= b in t` (spec §4.1).
    Let {
        name: Ident,
        value: Box<Term>,
        body: Box<Term>,
    },
    /// A term that failed to parse (its diagnostic says why).
    Error,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Type {
    pub kind: TypeKind,
    /// The type as written; grouping parentheses around it are included.
    pub span: Span,
}

/// VEC's types (spec §2.1, reconstructed): datum types `nat` and `bool`, `un`, `sz`,
/// products, `vec`, and arrows; type variables for the library's polymorphic uses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TypeKind {
    Nat,
    Bool,
    Sz,
    Un,
    /// `'a` (the name without its quote).
    Var(String),
    /// `vec τ`.
    Vec(Box<Type>),
    /// `mat τ`, the thesis's abbreviation for `vec (vec τ)` (kept as written).
    Mat(Box<Type>),
    /// `τ * τ'` or `τ × τ'`.
    Product(Box<Type>, Box<Type>),
    /// `τ -> τ'` or `τ → τ'`.
    Arrow(Box<Type>, Box<Type>),
    /// A type that could not be built (nested too deep; its diagnostic says so).
    Error,
}
