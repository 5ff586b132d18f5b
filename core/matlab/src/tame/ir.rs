//! The Tame IR data types (Dubrau 2012, §4.1 and Appendix D).
//!
//! Three-address form: there are no expression nodes, every operand is a variable name,
//! and literals appear only in [`StmtKind::AssignLiteral`]. Operators are calls to the
//! builtins the Tamer names them by (`plus`, `mtimes`, `horzcat`, `colon`, …).
//!
//! Deviations from the thesis, each forced by real MATLAB code:
//! - Get statements have a target *list* (a handle call or a cs-list can yield several
//!   values); the thesis grammar has a single `lhs` there (spec §1.2 note).
//! - `~` output placeholders become fresh temporaries (same `nargout`, so same semantics).
//! - [`StmtKind::While`] keeps the statements that compute its condition in `header`:
//!   they run before every test, as the thesis's "compute before the loop and again at
//!   the end of the body" does, but they are analysed once and keep one statement id, and
//!   `continue` (which would skip a copy at the end of the body) stays correct.
//! - [`StmtKind::Try`] exists because real code uses `try`; the thesis has no such node.

use serde::Serialize;
use shapex_text::Span;

/// A variable name (user variable or lowering temporary).
pub type Var = String;

/// A stable statement id: statements are numbered in pre-order over the whole program
/// (functions in [`Program::functions`] order), starting at 0, so ids are dense.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct StmtId(pub u32);

/// A lowered program: the script body (if any) and every function, including nested
/// functions and lifted lambdas, in one flat list.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Program {
    pub functions: Vec<Function>,
    /// The prefix every lowering temporary starts with (`mc_t` unless the source already
    /// uses names starting with it); temporaries are `{temp_prefix}{n}`.
    pub temp_prefix: String,
    /// Number of statement ids handed out (ids are `0..stmt_count`).
    pub stmt_count: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum FunctionKind {
    /// The top-level statements of a script file, as a function without parameters.
    Script,
    /// The first function of a function file.
    Primary,
    /// A later function of the same file.
    Subfunction,
    /// A nested function: it shares the workspace of [`Function::parent`].
    Nested,
    /// A lambda body lifted into a function (thesis Fig 4.3); its first parameters are
    /// the captured variables, then the lambda's own parameters.
    Lambda,
}

#[derive(Clone, Debug, PartialEq, Serialize, Hash)]
pub struct Function {
    pub name: String,
    pub kind: FunctionKind,
    /// The enclosing function for [`FunctionKind::Nested`] and [`FunctionKind::Lambda`].
    pub parent: Option<String>,
    /// Formal inputs; a `~` input becomes a fresh temporary.
    pub params: Vec<Var>,
    pub outputs: Vec<Var>,
    pub body: Vec<Stmt>,
    /// Kind analysis: every name that is a variable in this function (inputs, outputs,
    /// assigned names, globals, persistents, loop variables, temporaries), sorted.
    pub variables: Vec<Var>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Hash)]
pub struct Stmt {
    pub id: StmtId,
    /// The source expression or statement this IR statement computes.
    pub span: Span,
    /// The whole source statement it was lowered from (for per-line grouping).
    pub origin: Span,
    /// True on the statement that completes an unterminated source statement, so the
    /// pretty-printed IR displays the same values MATLAB would.
    pub prints: bool,
    /// For a binary operator (`a * b`), the source between its operands: the operator
    /// with any spaces, parentheses or line continuations around it. A suggested fix
    /// (`*` → `.*`) edits the operator found there.
    pub operator: Option<Span>,
    pub kind: StmtKind,
}

/// An index argument: a variable, or a bare `:` (all of a dimension).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Hash)]
pub enum Index {
    Var(Var),
    Colon,
}

/// A field selector: `s.name` or `s.(var)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Hash)]
pub enum Field {
    Static(String),
    Dynamic(Var),
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Literal {
    /// A real or imaginary double literal; `text` is the spelling in the source.
    Number {
        value: f64,
        imag: bool,
        text: String,
    },
    /// `'chars'` (char row vector) or `"string"`.
    Str { value: String, double_quoted: bool },
    /// A rectangular matrix literal of numbers only, rows first: a data table (`[0 1 1;
    /// 1 0 1]`, a font's glyphs, a file of measurements). Lowering the Tamer's way, one
    /// literal statement per element then `horzcat` per row and `vertcat`, made a
    /// 400,000-element table 400,000 statements, each with its own environment; as one
    /// statement it is analysed as those calls would be, at the cost of the elements.
    /// Only tables of at least [`NUMBER_TABLE_MIN`] elements are lowered so, which
    /// leaves the IR of ordinary literals (`[1 2 3]`, `[n 1]`) as the Tamer writes it.
    Numbers { rows: Vec<Vec<TableEntry>> },
}

/// The fewest elements a matrix literal of numbers needs to become one
/// [`Literal::Numbers`] statement.
pub const NUMBER_TABLE_MIN: usize = 32;

/// An element of a [`Literal::Numbers`] table: a number, negated when written `-2`.
#[derive(Clone, PartialEq, Serialize)]
pub struct TableEntry {
    pub negated: bool,
    pub value: f64,
    pub imag: bool,
    /// The number as written, without the sign.
    pub text: String,
}

/// As written (`-0.25`, `3i`): the text decides the value, and a function's IR printed
/// with `{:?}` is its memo key (`values::memo`), which a data table would otherwise
/// make ten times the size of its source.
impl std::fmt::Debug for TableEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sign = if self.negated { "-" } else { "" };
        write!(f, "{sign}{}", self.text)
    }
}

/// Hashed by the text, which decides the value (`f64` has no `Hash`): equal literals
/// hash alike, as [`Function`]'s derived `Hash` needs of its parts.
impl std::hash::Hash for Literal {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            Literal::Number { imag, text, .. } => (imag, text).hash(state),
            Literal::Str {
                value,
                double_quoted,
            } => (value, double_quoted).hash(state),
            Literal::Numbers { rows } => rows.hash(state),
        }
    }
}

impl std::hash::Hash for TableEntry {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.negated, self.imag, &self.text).hash(state);
    }
}

/// What a `for` loop iterates over.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Hash)]
pub enum ForIter {
    /// `for v = lower:step:upper` (thesis `TIRForStmt`); the loop variable is a scalar.
    Range {
        lower: Var,
        step: Option<Var>,
        upper: Var,
    },
    /// `for v = array`: the loop variable takes each column of `array` in turn.
    Columns(Var),
}

#[derive(Clone, Debug, PartialEq, Serialize, Hash)]
pub enum StmtKind {
    /// `lhs = literal`.
    AssignLiteral {
        lhs: Var,
        value: Literal,
    },
    /// `lhs = rhs`.
    Copy {
        lhs: Var,
        rhs: Var,
    },
    /// `[t1, …] = func(a1, …)`; `func` is a function (builtin or user), never a variable.
    /// An empty target list is an expression statement (`disp(x)`).
    Call {
        targets: Vec<Var>,
        func: String,
        args: Vec<Var>,
    },
    /// `[t…] = array(i, j, …)`: `array` is a variable (possibly holding a handle).
    /// `update` marks a read made only to perform a nested assignment such as
    /// `s.a(2) = x`: where the part is missing MATLAB creates it, so an analysis should
    /// read a missing part as `[]`, not as an error.
    ArrayGet {
        targets: Vec<Var>,
        array: Var,
        indices: Vec<Index>,
        update: bool,
    },
    /// `array(i, j, …) = rhs`.
    ArraySet {
        array: Var,
        indices: Vec<Index>,
        rhs: Var,
    },
    /// `[t…] = cell{i, …}`; `update` as in [`StmtKind::ArrayGet`].
    CellGet {
        targets: Vec<Var>,
        cell: Var,
        indices: Vec<Index>,
        update: bool,
    },
    /// `cell{i, …} = rhs`.
    CellSet {
        cell: Var,
        indices: Vec<Index>,
        rhs: Var,
    },
    /// `[t…] = base.field`; `update` as in [`StmtKind::ArrayGet`].
    DotGet {
        targets: Vec<Var>,
        base: Var,
        field: Field,
        update: bool,
    },
    /// `base.field = rhs`.
    DotSet {
        base: Var,
        field: Field,
        rhs: Var,
    },
    /// `lhs = @func`.
    FuncHandle {
        lhs: Var,
        func: String,
    },
    /// `lhs = @(params…) func(captured…, params…)`, where `func` is the lifted lambda body.
    Lambda {
        lhs: Var,
        func: String,
        params: Vec<Var>,
        captured: Vec<Var>,
    },
    Global(Vec<Var>),
    Persistent(Vec<Var>),
    /// `if cond … else … end` (no `elseif`: chains become nested ifs).
    If {
        cond: Var,
        then_body: Vec<Stmt>,
        else_body: Vec<Stmt>,
    },
    /// `header; while cond, body; header; end`: `header` computes `cond` before every
    /// test (see the module docs).
    While {
        header: Vec<Stmt>,
        cond: Var,
        body: Vec<Stmt>,
    },
    For {
        var: Var,
        iter: ForIter,
        body: Vec<Stmt>,
    },
    /// `try body catch [err] catch_body end`.
    Try {
        body: Vec<Stmt>,
        catch_var: Option<Var>,
        catch_body: Vec<Stmt>,
    },
    Break,
    Continue,
    Return,
}

impl Stmt {
    /// The variables this statement (not its nested bodies) assigns.
    pub fn defs(&self) -> Vec<&Var> {
        match &self.kind {
            StmtKind::AssignLiteral { lhs, .. }
            | StmtKind::Copy { lhs, .. }
            | StmtKind::FuncHandle { lhs, .. }
            | StmtKind::Lambda { lhs, .. } => vec![lhs],
            StmtKind::Call { targets, .. }
            | StmtKind::ArrayGet { targets, .. }
            | StmtKind::CellGet { targets, .. }
            | StmtKind::DotGet { targets, .. } => targets.iter().collect(),
            StmtKind::ArraySet { array: v, .. }
            | StmtKind::CellSet { cell: v, .. }
            | StmtKind::DotSet { base: v, .. } => vec![v],
            StmtKind::Global(vs) | StmtKind::Persistent(vs) => vs.iter().collect(),
            StmtKind::For { var, .. } => vec![var],
            _ => vec![],
        }
    }

    /// The nested statement lists of a compound statement, in execution order.
    pub fn children(&self) -> Vec<&[Stmt]> {
        match &self.kind {
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => vec![then_body, else_body],
            StmtKind::While { header, body, .. } => vec![header, body],
            StmtKind::For { body, .. } => vec![body],
            StmtKind::Try {
                body, catch_body, ..
            } => vec![body, catch_body],
            _ => vec![],
        }
    }

    /// For a call written as its function's name in `source` (`sum(x)`, `hold on`),
    /// the span of that name and the name; `None` for any other statement, and for a
    /// call the lowering made of an operator or an `end`.
    pub fn written_call<'a>(&'a self, source: &str) -> Option<(Span, &'a str)> {
        let StmtKind::Call { func, .. } = &self.kind else {
            return None;
        };
        let rest = source
            .get(self.span.start..self.span.end)?
            .strip_prefix(func.as_str())?;
        let joined = rest
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        let start = self.span.start;
        (!joined).then(|| (Span::new(start, start + func.len()), func.as_str()))
    }
}

impl Program {
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// Every statement of the program in pre-order (id order).
    pub fn statements(&self) -> Vec<&Stmt> {
        let mut out = Vec::new();
        for f in &self.functions {
            collect(&f.body, &mut out);
        }
        out
    }

    /// Numbers statements in pre-order (functions in order) so ids are dense, stable and
    /// in reading order; sets [`Program::stmt_count`].
    pub fn renumber(&mut self) {
        let mut n = 0;
        for f in &mut self.functions {
            number(&mut f.body, &mut n);
        }
        self.stmt_count = n;
    }

    /// Whether `name` is a lowering temporary of this program.
    pub fn is_temp(&self, name: &str) -> bool {
        is_temp(&self.temp_prefix, name)
    }
}

/// Whether `name` is a lowering temporary: `prefix` followed by digits.
pub fn is_temp(prefix: &str, name: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn collect<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a Stmt>) {
    for s in stmts {
        out.push(s);
        for c in s.children() {
            collect(c, out);
        }
    }
}

fn number(stmts: &mut [Stmt], n: &mut u32) {
    walk_mut(stmts, &mut |s| {
        s.id = StmtId(*n);
        *n += 1;
    });
}

/// Calls `visit` on every statement of `stmts` and of the blocks nested in them, in
/// pre-order (the order of [`Program::renumber`]).
pub fn walk_mut(stmts: &mut [Stmt], visit: &mut impl FnMut(&mut Stmt)) {
    for s in stmts {
        visit(s);
        match &mut s.kind {
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => {
                walk_mut(then_body, visit);
                walk_mut(else_body, visit);
            }
            StmtKind::While { header, body, .. } => {
                walk_mut(header, visit);
                walk_mut(body, visit);
            }
            StmtKind::For { body, .. } => walk_mut(body, visit),
            StmtKind::Try {
                body, catch_body, ..
            } => {
                walk_mut(body, visit);
                walk_mut(catch_body, visit);
            }
            _ => {}
        }
    }
}

impl Function {
    /// Calls `visit` on every name and text the function holds: its own names, and each
    /// statement's variables, called and handled functions, fields and string literals.
    /// Every name its analysis may look up among other functions (a call's target, a
    /// handle, a `str2func` text) is among them, or among their words (`values::memo`).
    pub fn for_each_text<'a>(&'a self, visit: &mut impl FnMut(&'a str)) {
        visit(&self.name);
        self.parent.iter().for_each(|p| visit(p));
        for v in self
            .params
            .iter()
            .chain(&self.outputs)
            .chain(&self.variables)
        {
            visit(v);
        }
        texts_of(&self.body, visit);
    }
}

fn texts_of<'a>(stmts: &'a [Stmt], visit: &mut impl FnMut(&'a str)) {
    let indices = |indices: &'a [Index], visit: &mut dyn FnMut(&'a str)| {
        for i in indices {
            if let Index::Var(v) = i {
                visit(v);
            }
        }
    };
    let field = |f: &'a Field| match f {
        Field::Static(name) | Field::Dynamic(name) => name.as_str(),
    };
    for s in stmts {
        match &s.kind {
            StmtKind::AssignLiteral { lhs, value } => {
                visit(lhs);
                match value {
                    Literal::Number { text, .. } => visit(text),
                    Literal::Str { value, .. } => visit(value),
                    Literal::Numbers { rows } => rows.iter().flatten().for_each(|e| visit(&e.text)),
                }
            }
            StmtKind::Copy { lhs, rhs } => [lhs, rhs].into_iter().for_each(|v| visit(v)),
            StmtKind::Call {
                targets,
                func,
                args,
            } => {
                visit(func);
                targets.iter().chain(args).for_each(|v| visit(v));
            }
            StmtKind::ArrayGet {
                targets,
                array: base,
                indices: index,
                ..
            }
            | StmtKind::CellGet {
                targets,
                cell: base,
                indices: index,
                ..
            } => {
                visit(base);
                targets.iter().for_each(|v| visit(v));
                indices(index, visit);
            }
            StmtKind::ArraySet {
                array: base,
                indices: index,
                rhs,
            }
            | StmtKind::CellSet {
                cell: base,
                indices: index,
                rhs,
            } => {
                [base, rhs].into_iter().for_each(|v| visit(v));
                indices(index, visit);
            }
            StmtKind::DotGet {
                targets,
                base,
                field: f,
                ..
            } => {
                visit(base);
                visit(field(f));
                targets.iter().for_each(|v| visit(v));
            }
            StmtKind::DotSet {
                base,
                field: f,
                rhs,
            } => {
                [base, rhs].into_iter().for_each(|v| visit(v));
                visit(field(f));
            }
            StmtKind::FuncHandle { lhs, func } => [lhs, func].into_iter().for_each(|v| visit(v)),
            StmtKind::Lambda {
                lhs,
                func,
                params,
                captured,
            } => {
                [lhs, func].into_iter().for_each(|v| visit(v));
                params.iter().chain(captured).for_each(|v| visit(v));
            }
            StmtKind::Global(vs) | StmtKind::Persistent(vs) => vs.iter().for_each(|v| visit(v)),
            StmtKind::If { cond, .. } | StmtKind::While { cond, .. } => visit(cond),
            StmtKind::For { var, iter, .. } => {
                visit(var);
                match iter {
                    ForIter::Range { lower, step, upper } => {
                        [Some(lower), step.as_ref(), Some(upper)]
                            .into_iter()
                            .flatten()
                            .for_each(|v| visit(v));
                    }
                    ForIter::Columns(v) => visit(v),
                }
            }
            StmtKind::Try { catch_var, .. } => catch_var.iter().for_each(|v| visit(v)),
            StmtKind::Break | StmtKind::Continue | StmtKind::Return => {}
        }
        for block in s.children() {
            texts_of(block, visit);
        }
    }
}
