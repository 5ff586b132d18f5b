//! The spanned AST of Language T (Figure 1). Every node carries its source span.

use serde::{Deserialize, Serialize};
use shapex_text::Span;

/// A parsed file: its procedures (definitions and declarations) and the statements
/// written outside any procedure (the §2 example's `decl`s and calls), in source order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Program {
    pub procs: Vec<Proc>,
    pub top: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// `proc Name (ArgList) Stmt` or, with no body, `proc Name (ArgList) builtin`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Proc {
    pub name: Ident,
    pub formals: Vec<Formal>,
    /// `None` for a declaration (`builtin`, `;`, or a header with nothing after it).
    pub body: Option<Stmt>,
    /// From `proc` to the closing parenthesis of the argument list.
    pub header: Span,
    pub span: Span,
}

impl Proc {
    pub fn is_builtin(&self) -> bool {
        self.body.is_none()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Direction {
    In,
    Out,
    InOut,
}

impl Direction {
    /// `in` and `in out` arguments are read by the call (and checked against the
    /// signature); `out` and `in out` arguments are written by it.
    pub fn reads(self) -> bool {
        matches!(self, Direction::In | Direction::InOut)
    }

    pub fn writes(self) -> bool {
        matches!(self, Direction::Out | Direction::InOut)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Direction::In => "in",
            Direction::Out => "out",
            Direction::InOut => "in out",
        }
    }
}

/// `Direction Name Sizing`: an empty sizing is a scalar; otherwise one extent name per
/// dimension (the rank is their number).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Formal {
    pub direction: Direction,
    pub name: Ident,
    pub sizing: Vec<Ident>,
    pub span: Span,
}

impl Formal {
    pub fn rank(&self) -> usize {
        self.sizing.len()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum StmtKind {
    /// `Name (Name_1, …, Name_m)`, the only primitive statement.
    Call { callee: Ident, args: Vec<Actual> },
    /// `if (Name) Stmt else Stmt`; a missing `else` is an empty compound.
    If {
        cond: Cond,
        then: Box<Stmt>,
        otherwise: Option<Box<Stmt>>,
    },
    /// `while (Name) do Stmt`.
    While { cond: Cond, body: Box<Stmt> },
    /// `{ Stmt_1; …; Stmt_n }`.
    Compound(Vec<Stmt>),
    /// `decl v[A,B]` (the paper's footnote 2: illustrative only).
    Decl { name: Ident, sizing: Vec<Ident> },
    /// A statement that failed to parse (its diagnostic says why).
    Error,
}

/// A condition: a scalar name (or literal), or the illustrative `a == b`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cond {
    pub operands: Vec<Actual>,
    pub span: Span,
}

/// An actual argument: a variable, or a literal scalar (Figure 2's `scalar_add (i, i, 1)`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Actual {
    Var(Ident),
    Literal { text: String, span: Span },
}

impl Actual {
    pub fn span(&self) -> Span {
        match self {
            Actual::Var(id) => id.span,
            Actual::Literal { span, .. } => *span,
        }
    }

    pub fn var(&self) -> Option<&Ident> {
        match self {
            Actual::Var(id) => Some(id),
            Actual::Literal { .. } => None,
        }
    }
}
