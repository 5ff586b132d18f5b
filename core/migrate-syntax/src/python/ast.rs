//! The spanned AST of the Python subset PyTorch model code is written in. Every node
//! carries its source span (byte offsets into the whole file). Constructs the subset
//! does not analyse are still parsed where the grammar knows them (`with`, `try`,
//! `lambda`) and kept as [`StmtKind::Unsupported`] / [`ExprKind::Unsupported`], so the
//! analysis can say "not supported: …" on their span and go on.

use serde::{Deserialize, Serialize};
use shapex_text::Span;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Module {
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum StmtKind {
    /// `import …` / `from … import …`: accepted and ignored.
    Import,
    ClassDef {
        name: Ident,
        bases: Vec<Arg>,
        body: Vec<Stmt>,
        decorators: Vec<Expr>,
    },
    FunctionDef {
        name: Ident,
        params: Vec<Param>,
        returns: Option<Expr>,
        body: Vec<Stmt>,
        decorators: Vec<Expr>,
    },
    /// `a = b = value`: every target, left to right.
    Assign {
        targets: Vec<Expr>,
        value: Expr,
    },
    AugAssign {
        target: Expr,
        op: BinOp,
        value: Expr,
    },
    AnnAssign {
        target: Expr,
        annotation: Expr,
        value: Option<Expr>,
    },
    Return(Option<Expr>),
    /// `elif` chains are nested `If`s in `orelse`.
    If {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    For {
        target: Expr,
        iter: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    While {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    Assert {
        test: Expr,
        msg: Option<Expr>,
    },
    Raise(Option<Expr>),
    Pass,
    Break,
    Continue,
    Expr(Expr),
    /// A construct outside the subset (`with`, `try`, `del`, `global`, a decorator
    /// that is not on a definition…): `what` names it; `body` holds the statements of
    /// its block, parsed like any others.
    Unsupported {
        what: String,
        body: Vec<Stmt>,
    },
    /// A line that did not parse (its diagnostic says why).
    Error,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ParamKind {
    /// `x`, `x: T`, `x=1`.
    Normal,
    /// `*args`.
    VarArgs,
    /// `**kwargs`.
    KwArgs,
    /// A bare `*`: the parameters after it are keyword-only.
    KwOnlyMarker,
    /// `/`: the parameters before it are positional-only.
    PosOnlyMarker,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub kind: ParamKind,
    /// Absent for the `*` and `/` markers.
    pub name: Option<Ident>,
    pub annotation: Option<Expr>,
    pub default: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ExprKind {
    Name(String),
    Int(i64),
    /// An integer literal too large for `i64`.
    BigInt(String),
    Float(f64),
    Str(String),
    Bool(bool),
    None,
    Ellipsis,
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    Set(Vec<Expr>),
    Dict(Vec<(Option<Expr>, Expr)>),
    /// `[elt for target in iter if cond …]` (also generators and set/dict
    /// comprehensions, told apart by `kind`).
    Comprehension {
        kind: CompKind,
        elt: Box<Expr>,
        generators: Vec<CompFor>,
    },
    Attribute {
        value: Box<Expr>,
        attr: Ident,
    },
    /// `value[index]`; several indices are a `Tuple`.
    Subscript {
        value: Box<Expr>,
        index: Box<Expr>,
    },
    Slice {
        lower: Option<Box<Expr>>,
        upper: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
    Call {
        func: Box<Expr>,
        args: Vec<Arg>,
    },
    BinOp {
        op: BinOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    UnaryOp {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    BoolOp {
        op: BoolOp,
        values: Vec<Expr>,
    },
    /// `a < b <= c`: the first operand, then each operator with its right operand.
    Compare {
        left: Box<Expr>,
        ops: Vec<(CmpOp, Expr)>,
    },
    IfExp {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
    },
    Starred(Box<Expr>),
    /// `name := value`.
    NamedExpr {
        target: Ident,
        value: Box<Expr>,
    },
    /// Outside the subset (`lambda`, `await`): `what` names it.
    Unsupported(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CompKind {
    List,
    Set,
    Dict,
    Generator,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompFor {
    pub target: Expr,
    pub iter: Expr,
    pub ifs: Vec<Expr>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Arg {
    Positional(Expr),
    Keyword(Ident, Expr),
    /// `*xs`.
    Star(Expr),
    /// `**kw`.
    DoubleStar(Expr),
}

impl Arg {
    pub fn expr(&self) -> &Expr {
        match self {
            Arg::Positional(e) | Arg::Keyword(_, e) | Arg::Star(e) | Arg::DoubleStar(e) => e,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    MatMul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    LShift,
    RShift,
    BitOr,
    BitXor,
    BitAnd,
}

impl BinOp {
    pub fn from_symbol(s: &str) -> Option<BinOp> {
        Some(match s.trim().trim_end_matches('=') {
            "+" => BinOp::Add,
            "-" => BinOp::Sub,
            "*" => BinOp::Mul,
            "@" => BinOp::MatMul,
            "/" => BinOp::Div,
            "//" => BinOp::FloorDiv,
            "%" => BinOp::Mod,
            "**" => BinOp::Pow,
            "<<" => BinOp::LShift,
            ">>" => BinOp::RShift,
            "|" => BinOp::BitOr,
            "^" => BinOp::BitXor,
            "&" => BinOp::BitAnd,
            _ => return None,
        })
    }

    /// Binding power: higher binds tighter (Python's precedence table).
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::BitOr => 1,
            BinOp::BitXor => 2,
            BinOp::BitAnd => 3,
            BinOp::LShift | BinOp::RShift => 4,
            BinOp::Add | BinOp::Sub => 5,
            BinOp::Mul | BinOp::MatMul | BinOp::Div | BinOp::FloorDiv | BinOp::Mod => 6,
            BinOp::Pow => 7,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnaryOp {
    Neg,
    Pos,
    Invert,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BoolOp {
    And,
    Or,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
    NotIn,
    Is,
    IsNot,
}
