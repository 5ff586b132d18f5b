//! The builtin framework: builtins as data (a table in the Tamer category tree), each
//! naming its category and, where it differs, its own shape rule.
//!
//! The table is `builtins.txt` (syntax in `rules.pest`), compiled in with `include_str!`
//! and parsed by [`BuiltinTable::standard`]. A builtin's effective [`ShapeRule`] is its
//! own, or else the default of its category or the nearest ancestor category that has
//! one (the thesis's visitor fall-through, Dubrau 2012 §3.2–3.4).
//!
//! Rules describe result *shapes* only; the evaluator over the shape domain interprets
//! them. Arguments are numbered from 0 as in the Tamer's class language, −1 being the
//! last argument.

mod rules;
#[cfg(test)]
mod tests;

pub use rules::parse_rule;

use serde::Serialize;
use std::collections::HashMap;

/// An argument position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Arg {
    /// The i-th argument, from 0.
    Nth(usize),
    /// The k-th argument from the end, from 1 (`-1` in the rule text is `FromEnd(1)`).
    FromEnd(usize),
}

impl Arg {
    /// The 0-based position among `nargin` arguments, if it exists.
    pub fn resolve(self, nargin: usize) -> Option<usize> {
        match self {
            Arg::Nth(i) => (i < nargin).then_some(i),
            Arg::FromEnd(k) => nargin.checked_sub(k),
        }
    }
}

/// One argument or all arguments from a position on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ArgSel {
    One(Arg),
    /// `i..`: arguments i, i+1, … (possibly none).
    From(usize),
}

/// An integer-valued expression for one extent (or a dimension number).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Extent {
    Const(u64),
    /// `?`: some extent ≥ 0, not known.
    Unknown,
    /// `arg(i)`: the (scalar, integer) value of argument i.
    ArgValue(Arg),
    /// `numel(i)`: the number of elements of argument i.
    Numel(Arg),
    /// `ndims(i)`: the number of dimensions of argument i.
    Ndims(Arg),
    /// `size(i, k)`: extent k (1-based) of argument i.
    Size(Arg, usize),
    /// `nargin`: the number of arguments of the call.
    Nargin,
    /// `?r`: an unknown extent, the same in every output of one call that names it.
    Named(String),
    /// `atmost(e)`: an unknown extent between 0 and e; the bound holds after the call.
    AtMost(Box<Extent>),
    Min(Box<Extent>, Box<Extent>),
    Max(Box<Extent>, Box<Extent>),
    Add(Box<Extent>, Box<Extent>),
    Sub(Box<Extent>, Box<Extent>),
    Mul(Box<Extent>, Box<Extent>),
}

/// A shape predicate on an argument, for conditional rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Pred {
    /// The argument is a cell array.
    IsCell(Arg),
    /// The argument is a char array.
    IsChar(Arg),
    /// The argument is 1×1.
    IsScalar(Arg),
    /// The argument is 1×n or n×1.
    IsVector(Arg),
    /// The argument is 1×n (a scalar too).
    IsRow(Arg),
    /// Two-dimensional (rank 2 and known not to have more dimensions).
    IsMatrix(Arg),
    /// The argument has a zero extent.
    IsEmpty(Arg),
    /// The argument is this text (compared ignoring case): `option(1, "rows")`.
    Option(Arg, String),
}

/// The shape of one result, as a function of the argument shapes (and, where stated,
/// argument values). When an argument a rule names is absent, the evaluator treats the
/// case as not applicable (⊤ if no other case applies).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum ShapeExpr {
    /// `same(i)`: the shape of argument i (elemental unary functions).
    SameAs(Arg),
    /// `scalar`: 1×1.
    Scalar,
    /// `scalar(shape)`: 1×1, when the arguments suit `shape`: the call's condition is
    /// that shape's (`det` needs a square matrix, `norm` a 2-D one).
    ScalarOf(Box<ShapeExpr>),
    /// `square(i)`: argument i must be square (n×n); the result has its shape
    /// (`inv`, `expm`). A non-square argument is a shape error.
    Square(Arg),
    /// `broadcast(i, j, …)`: element-wise over the selected arguments — in modern mode
    /// MATLAB's implicit expansion (each dimension equal or 1), in paper mode equal
    /// shapes or scalar expansion. Incompatible shapes are a shape error.
    Broadcast(Vec<ArgSel>),
    /// `expand(i, j, …)`: as `broadcast`, with implicit expansion in either mode
    /// (`bsxfun` expands in every MATLAB).
    Expand(Vec<ArgSel>),
    /// `samesize(i, j, …)`: element-wise over arguments of one size or scalars; shapes
    /// only implicit expansion fits are a run-time check (Octave refuses them).
    SameSize(Vec<ArgSel>),
    /// `needs(c, s)`: the shape `s` when the arguments suit `c`, whose condition is the
    /// call's (`lu` of an N-D array fails: `needs(transpose(0), …)`).
    Needs {
        needs: Box<ShapeExpr>,
        shape: Box<ShapeExpr>,
    },
    /// `fromdims(i..)`: an array created from the dimensions in arguments i, i+1, …
    /// (`zeros(n)` is n×n; `zeros(n, m, …)`; `zeros([n m …])` a single size vector; no
    /// dimension arguments gives 1×1). Trailing char arguments (class names such as
    /// `'int8'`, `'like'` with its following argument) are ignored. Negative sizes are 0.
    FromDims { first: usize },
    /// `collapse(i[, k])`: argument i with one dimension reduced to 1: the dimension given
    /// by the value of argument k if present and numeric, else the first non-singleton
    /// dimension. MATLAB special-cases a 0×0 input with no `k`: the result is 1×1
    /// (`sum([])` is 0, `mean([])` NaN) — except for builtins in the `minOrMax` category,
    /// where `max([])` is `[]`. A char `k` such as `'all'` gives 1×1; other char options
    /// (`'omitnan'`, `'double'`) are ignored.
    Collapse { arg: Arg, dim: Option<Arg> },
    /// `transpose(i)`: a 2-D argument m×n gives n×m (N-D is a shape error).
    Transpose(Arg),
    /// `matmul(i, j)`: [m,k]·[k,n] → [m,n]; a scalar operand gives the other's shape.
    MatMul(Arg, Arg),
    /// `mldivide(i, j)`: A\B with A m×n, B m×p → n×p; scalar A gives B's shape.
    MLDivide(Arg, Arg),
    /// `mrdivide(i, j)`: A/B with A m×n, B p×n → m×p; scalar B gives A's shape.
    MRDivide(Arg, Arg),
    /// `mpower(i, j)`: A^B: one operand scalar and the other square; result has the
    /// square operand's shape (scalar^scalar is 1×1).
    MPower(Arg, Arg),
    /// `dims(e1, e2, …)`: the explicit shape e1×e2×….
    Dims(Vec<Extent>),
    /// `vector(i, e)`: a vector of length e, a row if argument i is a row vector (1×n),
    /// a column otherwise (`find`, `unique`); a 0×0 argument gives 0×0 (`find([])`).
    Vector { like: Arg, len: Extent },
    /// `colon(a, b)` / `colon(a, s, b)`: the row 1×n with n = max(0, floor((b−a)/s)+1)
    /// computed from the argument values (n unknown when they are not constants).
    Colon {
        start: Arg,
        step: Option<Arg>,
        stop: Arg,
    },
    /// `concat(d, i..)`: concatenation of arguments i, i+1, … along dimension d (d is a
    /// constant or `arg(k)`); `[]` (0×0) operands are skipped; other dimensions must
    /// agree, else a shape error (`horzcat` is `concat(2, 0..)`, `cat` `concat(arg(0), 1..)`).
    Concat { dim: Extent, first: usize },
    /// `repmat(i, j..)`: argument i tiled by the replication counts in arguments j, …
    /// (one scalar n means n×n; a vector gives one count per dimension).
    Repmat { arg: Arg, first: usize },
    /// `reshape(i, j..)`: argument i with the dimensions in arguments j, … (one size
    /// vector or several scalars, at most one `[]` standing for numel / product of the
    /// others). The element count must be preserved, else a shape error.
    Reshape { arg: Arg, first: usize },
    /// `permute(i, j)`: the dimensions of argument i reordered by the vector value of
    /// argument j.
    Permute { arg: Arg, order: Arg },
    /// `squeeze(i)`: singleton dimensions removed (2-D arrays unchanged; a 1×1×n array
    /// becomes n×1).
    Squeeze(Arg),
    /// `diag(i[, k])`: a vector of length n gives an (n+|k|)×(n+|k|) matrix; an m×n
    /// matrix gives its k-th diagonal as a column.
    Diag { arg: Arg, k: Option<Arg> },
    /// `if p then a else b`: `a` when the predicate holds, `b` when it fails, their join
    /// when it is unknown.
    If {
        pred: Pred,
        then: Box<ShapeExpr>,
        otherwise: Box<ShapeExpr>,
    },
    /// `checked(s, "what")`: shape `s`, but the call also needs `what` of its
    /// arguments' values, which no shape rule states (`ind2sub`'s index within the size
    /// vector): the call is left to a run-time check, never proven.
    Checked {
        shape: Box<ShapeExpr>,
        requirement: String,
    },
    /// `unknown`: no information (⊤).
    Unknown,
    /// `error`: the call never returns normally (`error(...)`); code after it is
    /// nonviable.
    Diverges,
}

/// A bound on a count of arguments or outputs: `n`, `n..` or `n..m` (inclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Count {
    pub min: usize,
    pub max: Option<usize>,
}

impl Count {
    pub fn contains(self, n: usize) -> bool {
        n >= self.min && self.max.is_none_or(|m| n <= m)
    }
}

/// When a case applies: constraints on `nargin` and `nargout` (absent = any).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Guard {
    pub nargin: Option<Count>,
    pub nargout: Option<Count>,
}

impl Guard {
    pub fn matches(&self, nargin: usize, nargout: usize) -> bool {
        self.nargin.is_none_or(|c| c.contains(nargin))
            && self.nargout.is_none_or(|c| c.contains(nargout))
    }
}

/// One case of a rule: the shapes of outputs 1, 2, …; with `repeat_last`, every further
/// output has the last shape (`[r, c, …] = size(x)`). An empty list means the builtin
/// returns nothing (asking for an output is an error).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RuleCase {
    pub guard: Guard,
    pub outputs: Vec<ShapeExpr>,
    pub repeat_last: bool,
}

/// A shape rule: cases tried in order; the first whose guard matches applies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShapeRule {
    pub cases: Vec<RuleCase>,
    /// The rule as written in the table.
    pub text: String,
}

impl ShapeRule {
    /// The case that applies to a call with `nargin` arguments and `nargout` outputs.
    pub fn select(&self, nargin: usize, nargout: usize) -> Option<&RuleCase> {
        self.cases.iter().find(|c| c.guard.matches(nargin, nargout))
    }

    /// The shape expression of output `k` (0-based) for such a call; `None` when no
    /// case applies or the builtin has fewer outputs.
    pub fn output(&self, nargin: usize, nargout: usize, k: usize) -> Option<&ShapeExpr> {
        let case = self.select(nargin, nargout)?;
        match case.outputs.get(k) {
            Some(s) => Some(s),
            None if case.repeat_last => case.outputs.last(),
            None => None,
        }
    }
}

/// A node of the category tree.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Category {
    pub name: String,
    pub parent: Option<String>,
    /// The default rule declared on this category (inherited by descendants).
    pub rule: Option<ShapeRule>,
    /// 1-based line in the table.
    pub line: usize,
}

/// Where a builtin's effective rule comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum RuleSource {
    /// Written on the builtin's own line.
    Own,
    /// The default of this category (the builtin's or an ancestor).
    Category(String),
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Builtin {
    pub name: String,
    pub category: String,
    /// The effective rule: its own or its category's default.
    pub rule: ShapeRule,
    pub source: RuleSource,
    /// 1-based line in the table.
    pub line: usize,
}

/// An error in the table text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "builtins table line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for TableError {}

/// The class of a builtin's results, from its arguments' classes (`class_of` lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ClassRule {
    /// Always this class.
    Fixed(&'static str),
    /// A comparison or logical operator: `logical`, unless an operand's class is
    /// unknown (an object may overload it: YALMIP's `x >= 0` is a constraint).
    LogicalOp,
    /// Concatenation: `cell` when an operand is a cell, else the common class.
    Concat,
    /// The class all (non-empty) arguments share.
    Common,
    /// Element-wise arithmetic: the common class, with `char` and `logical` giving
    /// `double`.
    Arith,
    /// A matrix function of numeric arguments: their common class (`double` for
    /// `logical`); unknown when an argument is not numeric.
    Numeric,
    /// The common class when every argument is numeric; unknown otherwise.
    NumericCommon,
    /// Not known from the call (`cast(x, 'int8')` names it in text).
    Unknown,
}

/// MATLAB's integer classes.
pub const INTEGER_CLASSES: [&str; 8] = [
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
];

impl ClassRule {
    fn parse(text: &str) -> Option<ClassRule> {
        Some(match text {
            "logical_op" => ClassRule::LogicalOp,
            "concat" => ClassRule::Concat,
            "common" => ClassRule::Common,
            "arith" => ClassRule::Arith,
            "numeric" => ClassRule::Numeric,
            "numeric_common" => ClassRule::NumericCommon,
            "logical" => ClassRule::Fixed("logical"),
            "double" => ClassRule::Fixed("double"),
            "single" => ClassRule::Fixed("single"),
            "char" => ClassRule::Fixed("char"),
            "cell" => ClassRule::Fixed("cell"),
            "struct" => ClassRule::Fixed("struct"),
            "function_handle" => ClassRule::Fixed("function_handle"),
            "unknown" => ClassRule::Unknown,
            other => ClassRule::Fixed(INTEGER_CLASSES.iter().find(|c| **c == other)?),
        })
    }
}

/// The parsed table: categories and builtins in file order, with lookup by name.
#[derive(Clone, Debug)]
pub struct BuiltinTable {
    categories: Vec<Category>,
    builtins: Vec<Builtin>,
    /// `class_of` lines: builtin or category name → rule.
    classes: HashMap<String, ClassRule>,
    by_name: HashMap<String, usize>,
    category_index: HashMap<String, usize>,
}

/// The standard table text.
pub const STANDARD_TABLE: &str = include_str!("builtins.txt");

impl BuiltinTable {
    /// The table shipped with Shape Explorer (`builtins.txt`).
    pub fn standard() -> BuiltinTable {
        // The text is compiled in and covered by tests, so failure is a build defect.
        BuiltinTable::parse(STANDARD_TABLE).expect("builtins.txt is valid")
    }

    /// Parses a table text (see `rules.pest`).
    pub fn parse(text: &str) -> Result<BuiltinTable, TableError> {
        rules::parse_table(text)
    }

    pub fn lookup(&self, name: &str) -> Option<&Builtin> {
        self.by_name.get(name).map(|&i| &self.builtins[i])
    }

    pub fn builtins(&self) -> &[Builtin] {
        &self.builtins
    }

    pub fn categories(&self) -> &[Category] {
        &self.categories
    }

    pub fn category(&self, name: &str) -> Option<&Category> {
        self.category_index.get(name).map(|&i| &self.categories[i])
    }

    /// The category and its ancestors, nearest first.
    pub fn ancestors(&self, category: &str) -> Vec<&Category> {
        let mut out = Vec::new();
        let mut cur = self.category(category);
        while let Some(c) = cur {
            // Guard against cycles (rejected at parse time, but cheap to be sure).
            if out.iter().any(|o: &&Category| o.name == c.name) {
                break;
            }
            out.push(c);
            cur = c.parent.as_deref().and_then(|p| self.category(p));
        }
        out
    }

    /// The default rule of a category: its own or its nearest ancestor's, with the name
    /// of the category that declares it.
    pub fn default_rule(&self, category: &str) -> Option<(&ShapeRule, &str)> {
        self.ancestors(category)
            .into_iter()
            .find_map(|c| c.rule.as_ref().map(|r| (r, c.name.as_str())))
    }

    /// The class rule of builtin `name`: its own `class_of` line, else the nearest one
    /// of its category and their ancestors. `None`: nothing is known of the class.
    pub fn class_rule(&self, name: &str) -> Option<ClassRule> {
        if let Some(r) = self.classes.get(name) {
            return Some(*r);
        }
        let b = self.lookup(name)?;
        self.ancestors(&b.category)
            .into_iter()
            .find_map(|c| self.classes.get(&c.name).copied())
    }

    /// Whether `name` belongs to `category` or one of its descendants.
    pub fn is_in(&self, name: &str, category: &str) -> bool {
        self.lookup(name).is_some_and(|b| {
            self.ancestors(&b.category)
                .iter()
                .any(|c| c.name == category)
        })
    }

    fn new(categories: Vec<Category>, builtins: Vec<Builtin>) -> BuiltinTable {
        let by_name = builtins
            .iter()
            .enumerate()
            .map(|(i, b)| (b.name.clone(), i))
            .collect();
        let category_index = categories
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.clone(), i))
            .collect();
        BuiltinTable {
            categories,
            builtins,
            classes: HashMap::new(),
            by_name,
            category_index,
        }
    }
}

/// The shape errors a rule form can raise, in words (for `shapex explain BUILTIN`).
fn errors_of(expr: &ShapeExpr, out: &mut Vec<String>) {
    use ShapeExpr::*;
    let mut say = |s: &str| {
        if !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    };
    match expr {
        Broadcast(_) => say("element-wise arguments whose sizes do not match (in modern mode each dimension equal or 1; in paper mode equal sizes or a scalar)"),
        Expand(_) => say("element-wise arguments whose sizes do not match under implicit expansion (each dimension equal or 1)"),
        SameSize(_) => say("arguments of different sizes when neither is a scalar (a run-time check where implicit expansion would fit: Octave refuses it, MATLAB may not)"),
        Square(_) => say("an argument that is not a square matrix"),
        Transpose(_) => say("an argument with more than two dimensions"),
        MatMul(..) | MLDivide(..) | MRDivide(..) => say("matrices whose inner dimensions differ, or an argument with more than two dimensions"),
        MPower(..) => say("neither operand a scalar, or the other not square"),
        Concat { .. } => say("arguments whose other dimensions differ ([] is skipped)"),
        Reshape { .. } => say("sizes whose product is not the number of elements"),
        Repmat { .. } | FromDims { .. } => say("sizes that are not integers (a run-time check)"),
        Permute { .. } => say("an order that is not a permutation of the dimensions"),
        Diverges => say("it never returns normally: it raises an error"),
        Checked { shape, requirement } => {
            say(&format!("a run-time check that {requirement}"));
            errors_of(shape, out);
        }
        ScalarOf(inner) => errors_of(inner, out),
        Needs { needs, shape } => {
            errors_of(needs, out);
            errors_of(shape, out);
        }
        If {
            then, otherwise, ..
        } => {
            errors_of(then, out);
            errors_of(otherwise, out);
        }
        _ => {}
    }
}

impl BuiltinTable {
    /// What `shapex explain NAME` prints of a builtin: its category, the rule it follows
    /// (its own or inherited) case by case, its results' class and the shape errors it
    /// can raise, all read from the table.
    pub fn describe(&self, name: &str) -> Option<String> {
        let b = self.lookup(name)?;
        let path: Vec<&str> = self
            .ancestors(&b.category)
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        let source = match &b.source {
            RuleSource::Own => "its own".to_string(),
            RuleSource::Category(c) => format!("inherited from category {c}"),
        };
        let mut text = format!(
            "the builtin `{name}` (builtins.txt line {}), category {}.\nrule ({source}): {}\n",
            b.line,
            path.join(" < "),
            b.rule.text
        );
        for case in &b.rule.cases {
            let guard = |c: Option<Count>, what: &str| {
                c.map(|c| match c.max {
                    Some(m) if m == c.min => format!("{what} {m}"),
                    Some(m) => format!("{what} {}..{m}", c.min),
                    None => format!("{what} {}..", c.min),
                })
            };
            let when: Vec<String> = [
                guard(case.guard.nargin, "arguments"),
                guard(case.guard.nargout, "outputs"),
            ]
            .into_iter()
            .flatten()
            .collect();
            let when = if when.is_empty() {
                "any call".to_string()
            } else {
                when.join(", ")
            };
            let outputs = if case.outputs.is_empty() {
                "no outputs".to_string()
            } else {
                format!(
                    "{} output{}{}",
                    case.outputs.len(),
                    if case.outputs.len() == 1 { "" } else { "s" },
                    if case.repeat_last {
                        ", the last repeated"
                    } else {
                        ""
                    }
                )
            };
            text += &format!("  {when}: {outputs}\n");
        }
        let class = match self.class_rule(name) {
            Some(ClassRule::Fixed(c)) => c.to_string(),
            Some(r) => format!("{r:?} (from the arguments' classes)").to_lowercase(),
            None => "not known".to_string(),
        };
        text += &format!("result class: {class}\n");
        let mut errors = Vec::new();
        for case in &b.rule.cases {
            for o in &case.outputs {
                errors_of(o, &mut errors);
            }
        }
        if errors.is_empty() {
            text += "shape errors: none the rule states";
        } else {
            text += "shape errors:";
            for e in errors {
                text += &format!("\n  - {e}");
            }
        }
        Some(text)
    }
}
