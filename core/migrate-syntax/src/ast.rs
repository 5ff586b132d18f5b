//! The spanned AST of the core calculus (Migeed et al. 2024, Figure 1). Every node
//! carries its source span. Types here are *written* types (annotations); the checker's
//! own `TensorType` lives in `shapex-migrate`.

use serde::{Deserialize, Serialize};
use shapex_text::Span;

/// A parsed file, `decl* return e`, as written: its items in source order (the builder
/// reports items out of that order, but keeps them, so the checker sees everything).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Program {
    pub items: Vec<Item>,
}

impl Program {
    pub fn decls(&self) -> impl Iterator<Item = &Decl> {
        self.items.iter().filter_map(|i| match i {
            Item::Decl(d) => Some(d),
            _ => None,
        })
    }

    pub fn returns(&self) -> impl Iterator<Item = &Return> {
        self.items.iter().filter_map(|i| match i {
            Item::Return(r) => Some(r),
            _ => None,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Item {
    Decl(Decl),
    Return(Return),
    /// A statement that failed to parse (its diagnostic says why).
    Error(Span),
}

impl Item {
    pub fn span(&self) -> Span {
        match self {
            Item::Decl(d) => d.span,
            Item::Return(r) => r.span,
            Item::Error(s) => *s,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// `x : τ`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decl {
    pub name: Ident,
    pub ty: TypeAnn,
    pub span: Span,
}

/// `return e`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Return {
    pub expr: Expr,
    pub span: Span,
}

/// A written tensor type `τ ::= Dyn | TensorType([d1, …, dn])`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TypeAnn {
    pub kind: TypeAnnKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TypeAnnKind {
    /// The whole type is `Dyn`: even the rank is unknown.
    Dyn,
    Tensor(Vec<DimAnn>),
}

/// A written dimension `d ::= Dyn | Nat`: `value` is `None` for `Dyn`. A literal too
/// large for a `u64` has a syntax diagnostic and is read as `Dyn`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DimAnn {
    pub value: Option<u64>,
    pub span: Span,
}

/// A constant `c ::= Nat` (a Conv2D channel count or kernel size).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Nat {
    /// `None` when the literal does not fit a `u64` (it has a syntax diagnostic).
    pub value: Option<u64>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ExprKind {
    Var(Ident),
    /// `reshape(e, τ)`; τ has at most one `Dyn` (a syntax diagnostic otherwise).
    Reshape {
        arg: Box<Expr>,
        target: TypeAnn,
    },
    /// `Conv2D(c_in, c_out, (κ0, κ1), e)`.
    Conv2D {
        c_in: Nat,
        c_out: Nat,
        kernel: (Nat, Nat),
        arg: Box<Expr>,
    },
    /// `add(e1, e2)`.
    Add(Box<Expr>, Box<Expr>),
}
