//! The MATLAB abstract syntax tree. Every node carries the [`Span`] of the text it came
//! from. Octave spellings (`!=`, `**`, `endif`, `#` comments, …) are normalised to the
//! MATLAB form here; `a += b` and `a++` are desugared to `a = a + b` / `a = a + 1`.

use serde::Serialize;
use shapex_text::Span;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct File {
    pub kind: FileKind,
    /// Top-level statements of a script (empty for a function file).
    pub body: Vec<Stmt>,
    /// Functions in file order: the primary function first, then subfunctions.
    /// Nested functions live in [`Function::nested`].
    pub functions: Vec<Function>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum FileKind {
    Script,
    Function,
    /// `classdef` files are recognised but not analysed.
    Classdef,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Function {
    pub name: Ident,
    /// Formal inputs; `None` is a `~` placeholder.
    pub inputs: Vec<Option<Ident>>,
    pub outputs: Vec<Ident>,
    pub body: Vec<Stmt>,
    pub nested: Vec<Function>,
    /// Whether the function was closed by `end`/`endfunction`.
    pub has_end: bool,
    /// Span of the whole definition; `header` covers `function … name(…)`.
    pub span: Span,
    pub header: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
    /// True when the statement is not terminated by `;` (MATLAB displays its result).
    pub prints: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum StmtKind {
    Expr(Expr),
    /// `lhs = rhs` or `[a, ~, b] = rhs` (several targets).
    Assign {
        lhs: Vec<LValue>,
        rhs: Expr,
    },
    If {
        /// `if` and `elseif` arms, in order.
        arms: Vec<(Expr, Vec<Stmt>)>,
        else_body: Option<Vec<Stmt>>,
    },
    Switch {
        subject: Expr,
        cases: Vec<(Expr, Vec<Stmt>)>,
        otherwise: Option<Vec<Stmt>>,
    },
    For {
        var: LValue,
        iter: Expr,
        body: Vec<Stmt>,
        parfor: bool,
    },
    While {
        cond: Expr,
        body: Vec<Stmt>,
    },
    /// Octave `do … until cond`.
    DoUntil {
        body: Vec<Stmt>,
        cond: Expr,
    },
    Try {
        body: Vec<Stmt>,
        catch_var: Option<Ident>,
        catch_body: Vec<Stmt>,
    },
    /// Octave `unwind_protect … unwind_protect_cleanup … end_unwind_protect`.
    UnwindProtect {
        body: Vec<Stmt>,
        cleanup: Vec<Stmt>,
    },
    Break,
    Continue,
    Return,
    Global(Vec<Ident>),
    Persistent(Vec<Ident>),
    /// Command syntax: `hold on`, `format long`; the words are passed as strings.
    Command {
        name: Ident,
        args: Vec<String>,
    },
    /// An `arguments … end` validation block (kept as a span; not analysed).
    Arguments,
    /// A statement that failed to parse; a diagnostic describes it.
    Error,
}

/// An assignment target: `x`, `x(i,j)`, `x{k}.f(2)`, `s.(name)` or `~`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum LValue {
    Tilde(Span),
    Path {
        base: Ident,
        accessors: Vec<Accessor>,
        span: Span,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Accessor {
    Paren(Vec<Expr>),
    Brace(Vec<Expr>),
    Field(Ident),
    DynField(Expr),
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ExprKind {
    /// A numeric literal; `imag` for `3i`/`2.5j`. `text` is the literal as written.
    Number {
        value: f64,
        imag: bool,
        text: String,
    },
    /// A string literal: `'char'` (double_quoted = false) or `"string"`, unescaped.
    Str {
        value: String,
        double_quoted: bool,
    },
    /// A name: a variable, or a function called without arguments.
    Ident(Ident),
    /// A bare `:` as an index (all of a dimension).
    Colon,
    /// `end` inside an index (the extent of that dimension).
    End,
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Unary {
        op: UnOp,
        operand: Box<Expr>,
    },
    /// `a'` (ctranspose) or `a.'` (transpose).
    Postfix {
        op: PostfixOp,
        operand: Box<Expr>,
    },
    /// `start:stop` or `start:step:stop`.
    Range {
        start: Box<Expr>,
        step: Option<Box<Expr>>,
        stop: Box<Expr>,
    },
    /// `base(args)`: an array index or a function call (undecidable syntactically).
    Index {
        base: Box<Expr>,
        args: Vec<Expr>,
    },
    /// `base{args}`.
    CellIndex {
        base: Box<Expr>,
        args: Vec<Expr>,
    },
    Field {
        base: Box<Expr>,
        name: Ident,
    },
    DynField {
        base: Box<Expr>,
        name: Box<Expr>,
    },
    /// `[a b; c d]`: rows of elements.
    Matrix(Vec<Vec<Expr>>),
    /// `{a b; c d}`.
    Cell(Vec<Vec<Expr>>),
    /// `@name` or `@pkg.name`.
    FuncHandle(String),
    /// `@(x, y) body`.
    Lambda {
        params: Vec<Ident>,
        body: Box<Expr>,
    },
    /// Octave only: an assignment used as a value. `(x = e)` (also MATLAB's `f(Name=v)`
    /// argument form) assigns `value` and evaluates to it; `x++`/`x--` inside an
    /// expression (`post_increment`) assigns `value` = `x ± 1` and evaluates to the old
    /// `x`.
    AssignExpr {
        target: Box<LValue>,
        value: Box<Expr>,
        post_increment: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BinOp {
    Add,
    Sub,
    /// `*`
    MTimes,
    /// `/`
    MRDivide,
    /// `\`
    MLDivide,
    /// `^` (and Octave `**`)
    MPower,
    /// `.*`
    Times,
    /// `./`
    RDivide,
    /// `.\`
    LDivide,
    /// `.^` (and Octave `.**`)
    Power,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `&`
    And,
    /// `|`
    Or,
    /// `&&`
    AndAnd,
    /// `||`
    OrOr,
}

impl BinOp {
    /// The MATLAB builtin this operator calls (the Tamer lowers operators to these).
    pub fn builtin_name(self) -> &'static str {
        match self {
            BinOp::Add => "plus",
            BinOp::Sub => "minus",
            BinOp::MTimes => "mtimes",
            BinOp::MRDivide => "mrdivide",
            BinOp::MLDivide => "mldivide",
            BinOp::MPower => "mpower",
            BinOp::Times => "times",
            BinOp::RDivide => "rdivide",
            BinOp::LDivide => "ldivide",
            BinOp::Power => "power",
            BinOp::Eq => "eq",
            BinOp::Ne => "ne",
            BinOp::Lt => "lt",
            BinOp::Le => "le",
            BinOp::Gt => "gt",
            BinOp::Ge => "ge",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::AndAnd => "and",
            BinOp::OrOr => "or",
        }
    }

    /// The operator as written in MATLAB source.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::MTimes => "*",
            BinOp::MRDivide => "/",
            BinOp::MLDivide => "\\",
            BinOp::MPower => "^",
            BinOp::Times => ".*",
            BinOp::RDivide => "./",
            BinOp::LDivide => ".\\",
            BinOp::Power => ".^",
            BinOp::Eq => "==",
            BinOp::Ne => "~=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::AndAnd => "&&",
            BinOp::OrOr => "||",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum UnOp {
    /// `-a` (uminus)
    Neg,
    /// `+a` (uplus)
    Plus,
    /// `~a` / `!a` (not)
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum PostfixOp {
    /// `a'` (ctranspose)
    CTranspose,
    /// `a.'` (transpose)
    Transpose,
}
