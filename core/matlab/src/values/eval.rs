//! Evaluation of builtin calls: the table's [`ShapeExpr`] rules interpreted over the
//! shape domain, plus the value-level semantics a few builtins need (`size`, `numel`,
//! scalar arithmetic on integer values) so that sizes computed from other sizes stay
//! symbolic instead of becoming unknown.

use super::{maybe_real, Class, Value};
use crate::builtins::{Arg, ArgSel, BuiltinTable, ClassRule, Extent, Pred, ShapeExpr};
use crate::shape::{self, EmptyReduction, Outcome, Rule, RuleInfo, Shape};
use crate::Mode;
use shapex_dims::{Constraint, Dim, Facts, Truth};

pub struct Call<'a> {
    pub func: &'a str,
    pub args: Vec<Value>,
    pub nargout: usize,
    pub targets: &'a [String],
    /// Mints the call's unknowns: (stem, component, is a program value).
    pub mint: &'a dyn Fn(&str, usize, bool) -> Dim,
}

#[derive(Default)]
pub struct CallResult {
    pub values: Vec<Value>,
    pub outcomes: Vec<Outcome>,
    pub diverges: bool,
}

/// Evaluates a call to a builtin (or an unknown function: every result unknown).
pub fn call(table: &BuiltinTable, mode: Mode, call: &Call, facts: &Facts) -> CallResult {
    let Some(builtin) = table.lookup(call.func) else {
        return unknown_results(call.nargout);
    };
    let ev = Eval {
        table,
        mode,
        call,
        facts,
        open_view: false,
        bounds: Default::default(),
    };
    let viewer = Eval {
        table,
        mode,
        call,
        facts,
        open_view: true,
        bounds: Default::default(),
    };
    let open_operand = call
        .args
        .iter()
        .any(|a| a.open_rank && a.shape.as_tuple().is_some_and(|t| t.rank() == 2));
    if let Some(result) = open_rank_query(call) {
        return result;
    }
    if matches!(call.func, "cellhorzcat" | "cellvertcat") {
        // `{}` is a 0×0 cell; an element of unknown class and shape may be a
        // comma-separated list (`{c{:}}`), which adds any number of elements.
        let list = call
            .args
            .iter()
            .any(|v| v.class.is_none() && v.shape == Shape::Unknown);
        let shape = if call.args.is_empty() {
            Some(Shape::empty())
        } else if list {
            let n = (call.mint)("cell~", 0, false);
            Some(if call.func == "cellhorzcat" {
                Shape::tuple(vec![Dim::one(), n])
            } else {
                Shape::tuple(vec![n, Dim::one()])
            })
        } else {
            None
        };
        if let Some(shape) = shape {
            return CallResult {
                values: vec![Value::of_shape(Some("cell"), shape)],
                ..Default::default()
            };
        }
    }
    let nargin = call.args.len();
    let nargout = call.nargout.max(1);
    let mut result = CallResult::default();
    for k in 0..nargout {
        let Some(expr) = builtin.rule.output(nargin, call.nargout, k) else {
            result.values.push(Value::unknown());
            continue;
        };
        if matches!(expr, ShapeExpr::Diverges) {
            // `error('')` (and `error(msg)` with msg empty) does nothing: MATLAB and
            // Octave raise only a message that is not empty.
            result.diverges = call.func != "error" || raises(&call.args);
            return result;
        }
        // Element-wise results, reductions, tilings and concatenations of an array of
        // open rank keep its trailing dimensions: their rank stays open
        // (`mean(mean(img))` may be 1×1×3, `repmat(img, 2)` 2m×2n×3).
        let keeps_rank = matches!(
            expr,
            ShapeExpr::SameAs(_)
                | ShapeExpr::Broadcast(..)
                | ShapeExpr::Expand(..)
                | ShapeExpr::SameSize(..)
                | ShapeExpr::Collapse { .. }
                | ShapeExpr::Repmat { .. }
                | ShapeExpr::Concat { .. }
        );
        let mut outcome = ev.char_padding(ev.shape(expr, k));
        outcome.assume.extend(ev.bounds.take());
        if keeps_rank && open_operand {
            // Whether the operation conforms depends on the trailing extents an input
            // of open rank may have (`x + zeros(0,1)` fails for a 1×1×2 x): the
            // condition is decided on the operands with those extents as one fresh
            // extent each; the result keeps the matrix view, its rank left open below.
            let mut viewed = viewer.char_padding(viewer.shape(expr, k));
            viewed.assume.extend(viewer.bounds.take());
            // Open cases (placeholders tied to the operands by `assume`) are the viewed
            // ones, so later statements can use what this one established.
            outcome = if viewed.status == Truth::Refuted
                || outcome.status == Truth::Refuted
                || !outcome.assume.is_empty()
            {
                viewed
            } else {
                Outcome {
                    theta: viewed.theta,
                    status: viewed.status,
                    assume: viewed.assume,
                    ..outcome
                }
            };
        }
        let mut value = Value::of_shape(ev.class(k), outcome.shape.clone());
        value.open_rank = call
            .args
            .iter()
            .any(|a| a.open_rank && (keeps_rank || a.shape == outcome.shape));
        // Element-wise results keep the trailing extents their operands of open rank
        // share (the others are 2-D, or the check fails).
        let mut open = call.args.iter().filter(|a| a.open_rank);
        let elementwise = matches!(
            expr,
            ShapeExpr::SameAs(_)
                | ShapeExpr::Broadcast(..)
                | ShapeExpr::Expand(..)
                | ShapeExpr::SameSize(..)
        );
        if elementwise && value.open_rank {
            let first = open.next().and_then(|a| a.trailing.clone());
            value.trailing = first.filter(|t| open.all(|a| a.trailing.as_ref() == Some(t)));
        }
        reopen(call, &mut value);
        ev.add_value_semantics(k, &mut value);
        result.values.push(value);
        if k == 0 || outcome.theta != Constraint::True || !outcome.assume.is_empty() {
            result.outcomes.push(outcome);
        }
    }
    result
}

/// `size`, `numel`, `ndims` and `length` of an input whose rank is open: its extents
/// past the second are unknown, so `size(x)` has an unknown length and `numel(x)` is
/// not `x_1*x_2` (nor `length(x)` the larger of the two).
fn open_rank_query(call: &Call) -> Option<CallResult> {
    let x = call.args.first().filter(|x| x.open_rank)?;
    let name = call.targets.first().map_or("ans", |s| s.as_str());
    let unknown_scalar = || Value {
        integral: true,
        ..Value::scalar(None)
    };
    let values = match (call.func, call.args.len()) {
        ("size", 1) if call.nargout <= 1 => vec![Value::of_shape(
            Some("double"),
            // Its columns: component 1, so the symbol reads "columns of …".
            Shape::tuple(vec![Dim::one(), (call.mint)(&format!("{name}~"), 1, false)]),
        )],
        ("size", 1) => {
            let t = x.shape.as_tuple()?;
            (0..call.nargout)
                .map(|k| match k {
                    k if k + 1 < call.nargout && k < 2 => Value::scalar(Some(t.extent(k))),
                    _ => unknown_scalar(),
                })
                .collect()
        }
        ("size", 2) => {
            let k = call.args[1].scalar.as_ref()?.as_known()?;
            let t = x.shape.as_tuple()?;
            match k {
                1 | 2 => vec![Value::scalar(Some(t.extent(k as usize - 1)))],
                _ => vec![unknown_scalar()],
            }
        }
        ("numel" | "ndims" | "length", 1) => vec![unknown_scalar()],
        _ => return None,
    };
    Some(CallResult {
        values,
        ..Default::default()
    })
}

/// The one extent [`Eval::matrix_view`] gives the trailing dimensions of argument
/// `index`, an array of open rank: their product.
fn view_trailing(call: &Call, index: usize, v: &Value) -> Dim {
    let base = call.targets.first().map_or("ans", |s| s.as_str());
    v.trailing
        .clone()
        .unwrap_or_else(|| (call.mint)(&format!("{base}~nd"), index, false))
}

/// A result `<a,b,T>` whose third extent is the product `T` of an open-rank operand's
/// trailing extents (`x/2`, `2*x` seen through the matrix view) has those trailing
/// dimensions, however many there are: it is `<a,b,…>` of open rank, not 3-D.
fn reopen(call: &Call, value: &mut Value) {
    let Some(t) = value.shape.as_tuple().filter(|t| t.rank() == 3) else {
        return;
    };
    let third = t.extent(2);
    let of_operand = call.args.iter().enumerate().any(|(i, a)| {
        a.open_rank
            && a.shape.as_tuple().is_some_and(|t| t.rank() == 2)
            && view_trailing(call, i, a) == third
    });
    if of_operand && !value.open_rank {
        value.shape = Shape::tuple(vec![t.extent(0), t.extent(1)]);
        value.open_rank = true;
        value.trailing = Some(third);
    }
}

/// The classes a creation function can be asked for by name.
const CLASS_NAMES: &[&str] = &[
    "double", "single", "logical", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64",
];

/// Builtins whose scalar result is an integer (or NaN, which no size or count can
/// be) even when its value is not known.
const INTEGRAL_RESULTS: &[&str] = &[
    "numel", "ndims", "length", "size", "nnz", "floor", "ceil", "round", "fix", "int32",
];

/// Functions whose result is an integer when every argument is (`n - 1` of a count
/// whose value was dropped at a loop's head is still an integer). Not `rem`:
/// `rem(n, 0)` is NaN (`mod(n, 0)` is n).
const CLOSED_OVER_INTEGERS: &[&str] = &[
    "plus", "minus", "times", "mtimes", "uminus", "uplus", "abs", "max", "min", "mod",
];

/// `outcome`, when the call also needs `requirement` (of its arguments' values, which
/// the rule's θ does not state): a run-time check unless the requirement is `True` or
/// the outcome is an error already.
fn requiring(outcome: Outcome, requirement: Constraint) -> Outcome {
    if requirement == Constraint::True || outcome.status == Truth::Refuted {
        return outcome;
    }
    Outcome {
        theta: Constraint::and([outcome.theta.clone(), requirement]),
        status: Truth::Unknown,
        ..outcome
    }
}

fn unknown_results(nargout: usize) -> CallResult {
    CallResult {
        values: vec![Value::unknown(); nargout.max(1)],
        ..Default::default()
    }
}

struct Eval<'a> {
    table: &'a BuiltinTable,
    mode: Mode,
    call: &'a Call<'a>,
    facts: &'a Facts,
    /// Operands of open rank are seen through [`Eval::matrix_view`] (with their
    /// trailing extents as one fresh extent) by every rule.
    open_view: bool,
    /// What `atmost(e)` extents of the output being evaluated promise (`u ≤ e`), which
    /// hold once the call returns.
    bounds: std::cell::RefCell<Vec<Constraint>>,
}

fn ext(rule: Rule) -> RuleInfo {
    RuleInfo::extension(rule)
}

impl Eval<'_> {
    fn arg(&self, a: Arg) -> Option<&Value> {
        a.resolve(self.call.args.len()).map(|i| &self.call.args[i])
    }

    fn arg_shape(&self, a: Arg) -> Shape {
        if self.open_view {
            return self.matrix_view(a);
        }
        self.arg(a).map_or(Shape::Unknown, |v| v.shape.clone())
    }

    /// The shape a rule that needs a matrix sees. An input of open rank `<x_1,x_2>`
    /// may have more dimensions (`x` may be 2×2×2): its trailing extents are one
    /// fresh extent, their product, so β (every extent past the second is 1) is a
    /// run-time check on it rather than assumed. The product is 1 exactly when every
    /// trailing extent is 1, so the check is the rule's own.
    fn matrix_view(&self, a: Arg) -> Shape {
        match self.arg(a) {
            Some(v) if v.open_rank => match v.shape.as_tuple() {
                Some(t) if t.rank() == 2 => {
                    let index = a.resolve(self.call.args.len()).unwrap_or(0);
                    let trailing = view_trailing(self.call, index, v);
                    Shape::tuple(vec![t.extent(0), t.extent(1), trailing])
                }
                _ => v.shape.clone(),
            },
            Some(v) => v.shape.clone(),
            None => Shape::Unknown,
        }
    }

    /// A shape-preserving rule on a [`Self::matrix_view`]: the result is the
    /// argument itself (its rank open as before), the condition the view's.
    fn with_shape(&self, outcome: Outcome, a: Arg) -> Outcome {
        match outcome.shape {
            Shape::Tuple(_) => Outcome {
                shape: self.arg_shape(a),
                ..outcome
            },
            _ => outcome,
        }
    }

    fn is_in(&self, category: &str) -> bool {
        self.table.is_in(self.call.func, category)
    }

    /// A fresh extent for what the rule cannot know (`find`'s length, …), named after
    /// the statement's target so it reads `idx~1` and stays stable across iterations.
    fn fresh(&self, k: usize) -> Dim {
        let base = self.call.targets.first().map_or("ans", |s| s.as_str());
        (self.call.mint)(&format!("{base}~"), k, false)
    }

    /// The value of an integer argument, or a fresh program value.
    fn int_value(&self, v: &Value, k: usize) -> Dim {
        v.scalar.clone().unwrap_or_else(|| {
            let base = self.call.targets.first().map_or("ans", |s| s.as_str());
            (self.call.mint)(&format!("{base}~v"), k, true)
        })
    }

    /// The class of the results, by the builtin's rule in the table (`class_of`). An
    /// integer class found from the arguments is kept only for the builtins known to
    /// give their integer arguments' class in MATLAB and Octave alike
    /// ([`INTEGER_RESULTS`]): `sin`, `sum`, `mean`, `inv`, … of an integer array give a
    /// double in Octave (and fail or differ in MATLAB), and a wrong integer class
    /// would make a definite class error of a later `+` (`class.mixed`). Only the first
    /// result (`k` = 0) has it: `[m, i] = max(x)` of an integer x has a double `i`.
    fn class(&self, k: usize) -> Class {
        if let Some(class) = self.class_argument() {
            return class;
        }
        if self.logical_extremes() {
            return None;
        }
        let rule = self.table.class_rule(self.call.func)?;
        let class = self.class_by(rule);
        match (rule, class) {
            (ClassRule::Fixed(_), _) => class,
            (_, Some(c)) if super::INTEGER_CLASSES.contains(&c) => {
                let func = self.call.func;
                let first = self.call.args.first().and_then(|a| a.class) == Some(c);
                let kept = INTEGER_RESULTS.contains(&func)
                    || (INTEGER_FROM_FIRST.contains(&func) && first);
                (k == 0 && kept).then_some(c)
            }
            _ => class,
        }
    }

    /// `max`/`min` of logical data only (`max(a > 0, b > 0)`, `max(L, [], 2)`): Octave
    /// gives a logical, which the table's numeric rule would call a double, and
    /// MATLAB's class for it is not established here, so the class is left unknown
    /// rather than guessed (it decides whether the result indexes as a mask).
    fn logical_extremes(&self) -> bool {
        let args = &self.call.args;
        let logical = |i: usize| args.get(i).is_some_and(|v| v.class == Some("logical"));
        let no_data = |i: usize| args.get(i).is_none_or(|v| v.shape == Shape::empty());
        matches!(self.call.func, "max" | "min") && logical(0) && (logical(1) || no_data(1))
    }

    fn class_by(&self, rule: ClassRule) -> Class {
        let args = &self.call.args;
        match rule {
            ClassRule::Fixed(c) => Some(c),
            ClassRule::LogicalOp => {
                // Objects may overload comparisons (YALMIP's `x >= 0` is a constraint).
                (!args.iter().any(|v| v.class.is_none())).then_some("logical")
            }
            ClassRule::Concat if args.iter().any(|v| v.class == Some("cell")) => Some("cell"),
            // `[]` is a double.
            ClassRule::Concat if args.is_empty() => Some("double"),
            ClassRule::Concat => self.common_class().or_else(|| self.concat_class()),
            ClassRule::Common => self.common_class(),
            ClassRule::Arith => match self.common_class() {
                Some("char") | Some("logical") => Some("double"),
                Some(c) => Some(c),
                None => self.combined_class(),
            },
            // Matrix functions of numeric arrays give numeric arrays: their class is
            // known, so a failure on them is not excused as a possible object's method.
            ClassRule::Numeric if self.numeric_args() => self.combined_class(),
            ClassRule::NumericCommon if self.numeric_args() => self.common_class(),
            ClassRule::Numeric | ClassRule::NumericCommon | ClassRule::Unknown => None,
        }
    }

    /// The class a creation function's last arguments name (`zeros(2,3,'single')`,
    /// `ones(n,'like',p)`); `None` when the last one is a size. A last argument of
    /// unknown class is taken as a size for the shape, as it almost always is
    /// (`zeros(n, m)` of two inputs): were it a class name, only the class would differ,
    /// so the class is unknown.
    fn class_argument(&self) -> Option<Class> {
        let creates = self.is_in("byShapeAndTypeMatrixCreation")
            || self.is_in("constant")
            || matches!(self.call.func, "rand" | "randn");
        let args = &self.call.args;
        let last = args.last().filter(|_| creates)?;
        if let Some(like) = args.len().checked_sub(2).map(|i| &args[i]) {
            if like
                .text
                .as_deref()
                .is_some_and(|t| t.eq_ignore_ascii_case("like"))
            {
                return Some(last.class);
            }
        }
        match (last.class, last.text.as_deref()) {
            (Some("char"), None) => Some(None),
            (Some("char"), Some(name)) => Some(CLASS_NAMES.iter().copied().find(|c| *c == name)),
            // A last argument of unknown class may be a class name (`rand(2, n)` with
            // n = 'single' is single), unless it is known to be one element (no class
            // name is that short): then only the class is unknown, not the shape.
            (None | Some("string"), _) if last.shape != Shape::scalar() => Some(None),
            _ => None,
        }
    }

    /// Every argument's class is known and numeric (or logical).
    fn numeric_args(&self) -> bool {
        self.call.args.iter().all(|v| {
            v.class.is_some_and(|c| {
                matches!(c, "double" | "single" | "logical")
                    || c.starts_with("int")
                    || c.starts_with("uint")
            })
        })
    }

    /// The class MATLAB gives arithmetic on arguments of different classes, each
    /// double, single, logical, char or an integer: the integer class (two different
    /// ones are an error: unknown), else single, else double. `None` when an
    /// argument's class is unknown or not numeric.
    fn combined_class(&self) -> Class {
        let mut integer: Option<&'static str> = None;
        let mut single = false;
        for v in &self.call.args {
            match v.class? {
                "double" | "logical" | "char" => {}
                "single" => single = true,
                c if super::INTEGER_CLASSES.contains(&c) => match integer {
                    Some(i) if i != c => return None,
                    _ => integer = Some(c),
                },
                _ => return None,
            }
        }
        Some(integer.unwrap_or(if single { "single" } else { "double" }))
    }

    /// The class of `[a, b]` (or `[a; b]`) of numeric operands of different classes,
    /// as MATLAB and Octave both give it: the leftmost integer class (`[int8(1)
    /// int16(2)]` is int8), else single when an operand is single and the others are
    /// double or logical. `None` for anything else (char, where the two differ for
    /// logicals; double with logical, where an empty `[]` may count or not) and for
    /// `cat`, whose first argument is a dimension.
    fn concat_class(&self) -> Class {
        if !matches!(self.call.func, "horzcat" | "vertcat") {
            return None;
        }
        let classes: Option<Vec<&'static str>> = self.call.args.iter().map(|v| v.class).collect();
        let classes = classes?;
        if let Some(i) = classes.iter().find(|c| super::INTEGER_CLASSES.contains(c)) {
            let others_numeric = classes.iter().all(|c| {
                super::INTEGER_CLASSES.contains(c) || matches!(*c, "double" | "single" | "logical")
            });
            return others_numeric.then_some(*i);
        }
        let floats = classes
            .iter()
            .all(|c| matches!(*c, "double" | "single" | "logical"));
        (floats && classes.contains(&"single")).then_some("single")
    }

    fn common_class(&self) -> Class {
        let mut classes = self
            .call
            .args
            .iter()
            .filter(|v| v.shape != Shape::empty())
            .map(|v| v.class);
        let first = classes.next().flatten()?;
        classes.all(|c| c == Some(first)).then_some(first)
    }

    fn shape(&self, expr: &ShapeExpr, k: usize) -> Outcome {
        use ShapeExpr::*;
        let f = self.facts;
        match expr {
            SameAs(a) => shape::unary(&self.arg_shape(*a), f),
            Scalar => Outcome::always(Shape::scalar(), ext(Rule::Scalar)),
            ScalarOf(needs) => Outcome {
                shape: Shape::scalar(),
                ..self.shape(needs, k)
            },
            Square(a) => self.with_shape(square(&self.matrix_view(*a), f), *a),
            Broadcast(sels) => self.broadcast(sels, self.mode),
            Expand(sels) => self.broadcast(sels, Mode::Modern),
            SameSize(sels) => {
                let strict = self.broadcast(sels, Mode::Paper);
                if strict.status != Truth::Refuted {
                    return strict;
                }
                let expanded = self.broadcast(sels, Mode::Modern);
                if expanded.status == Truth::Refuted {
                    return strict;
                }
                let what = "the arguments are of one size or scalars";
                requiring(
                    expanded,
                    Constraint::Opaque(format!("{}: {what}", self.call.func)),
                )
            }
            Needs { needs, shape } => {
                let c = self.shape(needs, k);
                if c.status == Truth::Refuted {
                    return c;
                }
                let s = self.shape(shape, k);
                let mut out = requiring(
                    Outcome {
                        shape: s.shape,
                        ..c
                    },
                    s.theta,
                );
                out.assume.extend(s.assume);
                out
            }
            FromDims { first } => match self.dims_from(*first, false) {
                Ok(Some(dims)) => requiring(shape::create(&dims), self.size_requirement(*first)),
                // A size vector of unknown length: any rank.
                Ok(None) => requiring(
                    Outcome::always(Shape::Unknown, ext(Rule::Create)),
                    self.size_requirement(*first),
                ),
                Err(what) => Outcome::capped(&what),
            },
            Collapse { arg, dim } => self.collapse(*arg, *dim),
            Transpose(a) => shape::transpose(&self.matrix_view(*a), f),
            MatMul(a, b) => shape::mtimes(&self.matrix_view(*a), &self.matrix_view(*b), f),
            MLDivide(a, b) => shape::mldivide(&self.matrix_view(*a), &self.matrix_view(*b), f),
            MRDivide(a, b) => shape::mrdivide(&self.matrix_view(*a), &self.matrix_view(*b), f),
            MPower(a, b) => shape::mpower(&self.matrix_view(*a), &self.matrix_view(*b), f),
            Dims(extents) => {
                // Each extent its own unknown (`dims(arg(0), arg(1))` of two unknown
                // values is no square), numbered by its position so that its symbol
                // reads as rows, columns, …; a later output's count past them.
                let dims: Vec<Dim> = extents
                    .iter()
                    .enumerate()
                    .map(|(i, e)| self.extent(e, k * 16 + i))
                    .collect();
                requiring(
                    Outcome::always(Shape::tuple(dims), ext(Rule::Dims)),
                    self.count_requirement(extents),
                )
            }
            Vector { like, len } => self.vector(*like, len, k),
            Colon { start, step, stop } => self.colon(*start, *step, *stop),
            Concat { dim, first } => self.concat(dim, *first),
            Repmat { arg, first } => match self.dims_from(*first, true) {
                Ok(Some(reps)) => requiring(
                    shape::repmat(&self.arg_shape(*arg), &reps, f),
                    self.size_requirement(*first),
                ),
                Ok(None) => requiring(
                    Outcome::always(Shape::Unknown, ext(Rule::Repmat)),
                    self.size_requirement(*first),
                ),
                Err(what) => Outcome::capped(&what),
            },
            Reshape { arg, first } => self.reshape(*arg, *first),
            Permute { arg, order } => self.permute(*arg, *order),
            Squeeze(a) => Outcome::always(squeeze(&self.arg_shape(*a), f), ext(Rule::Squeeze)),
            Diag { arg, k: kk } => self.diag(*arg, *kk),
            If {
                pred,
                then,
                otherwise,
            } => match self.pred(pred) {
                Truth::Proven => self.shape(then, k),
                Truth::Refuted => self.shape(otherwise, k),
                Truth::Unknown => {
                    let a = self.shape(then, k);
                    let b = self.shape(otherwise, k);
                    let joined = shape::join(&a.shape, &b.shape, &mut |i| self.fresh(i));
                    let either = Outcome::always(joined, ext(Rule::Conditional));
                    // Not knowing which case applies, the call is a run-time check when
                    // either case needs something of its arguments.
                    let needs = Constraint::and([a.theta, b.theta]);
                    if needs == Constraint::True {
                        either
                    } else {
                        requiring(either, needs)
                    }
                }
            },
            Checked { shape, requirement } => requiring(
                self.shape(shape, k),
                Constraint::Opaque(format!("{}: {requirement}", self.call.func)),
            ),
            Unknown | Diverges => Outcome::always(Shape::Unknown, ext(Rule::Unknown)),
        }
    }

    /// Octave pads char rows of different lengths in `[a; b]` (MATLAB fails), so for
    /// all-char operands a width mismatch is a run-time question, not a definite error;
    /// the shape is Octave's: rows added, the widest width.
    fn char_padding(&self, outcome: Outcome) -> Outcome {
        let all_char = !self.call.args.is_empty() && self.call.args.iter().all(Value::is_char);
        if self.call.func != "vertcat" || !all_char || outcome.status != Truth::Refuted {
            return outcome;
        }
        let tuples: Option<Vec<_>> = self.call.args.iter().map(|v| v.shape.as_tuple()).collect();
        let shape = match tuples {
            Some(ts) if ts.iter().all(|t| t.rank() == 2) => {
                let rows = ts.iter().fold(Dim::zero(), |r, t| r.add(&t.extent(0)));
                let width = ts[1..]
                    .iter()
                    .fold(ts[0].extent(1), |w, t| Dim::max(&w, &t.extent(1)));
                Shape::tuple(vec![rows, width])
            }
            _ => Shape::Unknown,
        };
        Outcome {
            shape,
            status: Truth::Unknown,
            // Not θ's `false` beside a run-time check: what run time decides is which
            // dialect runs it.
            theta: Constraint::Opaque(format!(
                "char rows of different lengths are padded (Octave; else {})",
                outcome.theta
            )),
            rule: ext(Rule::VertcatCharRows),
            ..outcome
        }
    }

    fn pred(&self, p: &Pred) -> Truth {
        let f = self.facts;
        match *p {
            Pred::IsCell(a) => class_is(self.arg(a), "cell"),
            Pred::IsChar(a) => class_is(self.arg(a), "char"),
            Pred::IsScalar(a) => self.arg_shape(a).is_scalar(f),
            // β(t), not "rank is 2": trailing symbolic extents may be 1.
            Pred::IsVector(a) => match self.arg(a) {
                Some(v) if v.open_rank => Truth::Unknown,
                Some(v) => match v.shape.as_tuple() {
                    Some(t) => f.ask(&Constraint::and([
                        shape::beta(t),
                        Constraint::or([
                            Constraint::eq(&t.extent(0), &Dim::one()),
                            Constraint::eq(&t.extent(1), &Dim::one()),
                        ]),
                    ])),
                    None => Truth::Unknown,
                },
                None => Truth::Unknown,
            },
            Pred::IsRow(a) => match self.arg(a) {
                Some(v) if v.open_rank => Truth::Unknown,
                Some(v) => match v.shape.as_tuple() {
                    Some(t) => f.ask(&Constraint::and([
                        shape::beta(t),
                        Constraint::eq(&t.extent(0), &Dim::one()),
                    ])),
                    None => Truth::Unknown,
                },
                None => Truth::Unknown,
            },
            Pred::IsMatrix(a) => match self.arg(a) {
                Some(v) if v.open_rank => Truth::Unknown,
                Some(v) => match v.shape.as_tuple() {
                    Some(t) => f.ask(&shape::beta(t)),
                    None => Truth::Unknown,
                },
                None => Truth::Unknown,
            },
            Pred::Option(a, ref text) => match self.arg(a) {
                Some(v) => match &v.text {
                    Some(t) => Truth::from_bool(t.eq_ignore_ascii_case(text)),
                    None if v.class.is_some() && !v.is_char() => Truth::Refuted,
                    None => Truth::Unknown,
                },
                None => Truth::Refuted,
            },
            Pred::IsEmpty(a) => match self.arg_shape(a).as_tuple() {
                Some(t) => f.ask(&Constraint::eq(&t.numel(), &Dim::zero())),
                None => Truth::Unknown,
            },
        }
    }

    fn broadcast(&self, sels: &[ArgSel], mode: Mode) -> Outcome {
        let n = self.call.args.len();
        let shapes: Vec<Shape> = sels
            .iter()
            .flat_map(|s| match s {
                ArgSel::One(a) => a.resolve(n).into_iter().collect::<Vec<_>>(),
                ArgSel::From(i) => (*i..n).collect(),
            })
            .map(|i| self.arg_shape(Arg::Nth(i)))
            .collect();
        let mut shapes = shapes.into_iter();
        let Some(first) = shapes.next() else {
            return Outcome::always(Shape::scalar(), ext(Rule::Broadcast));
        };
        let mut out = shape::unary(&first, self.facts);
        let mut facts = self.facts.clone();
        // Each step's condition, under the facts the steps before it established; the
        // call needs them all (`normcdf(x, mu, sigma)`), not only the last one.
        let mut thetas = vec![out.theta.clone()];
        for s in shapes {
            let next = shape::elementwise(&out.shape, &s, mode, &facts);
            if next.status == Truth::Refuted {
                return next;
            }
            facts = next.facts_after(&facts);
            thetas.push(next.theta.clone());
            out = next;
        }
        if thetas.len() > 2 {
            out.theta = Constraint::and(thetas);
            out.status = self.facts.ask(&out.theta);
        }
        out
    }

    /// Dimension arguments from position `first`: one size vector, or scalars; class
    /// names and `'like', x` pairs are ignored. A size vector of unknown elements longer
    /// than [`shape::MAX_RANK`] (`zeros(ones(1, 1e9))`) is not turned into that many
    /// extents: the error says why, for [`Outcome::capped`].
    /// The extents a size argument list asks for (`zeros(2, n)`, `zeros([2 n])`);
    /// `Ok(None)` for a size vector of unknown length, whose rank is unknown.
    /// The size arguments from `first` on: before a `'like'`, char options left out.
    fn size_args(&self, first: usize) -> Vec<&Value> {
        let mut args: Vec<&Value> = self.call.args.iter().skip(first).collect();
        if let Some(p) = args.iter().position(|v| v.text.as_deref() == Some("like")) {
            args.truncate(p);
        }
        args.retain(|v| !v.is_char());
        args
    }

    /// What the size arguments from `first` on must be besides what their values say:
    /// MATLAB and Octave reject a size that is not an integer (`zeros(2.5)`) and, with
    /// several, one that is not a scalar. `True` when their values show it.
    fn size_requirement(&self, first: usize) -> Constraint {
        let integral = known_integer;
        let args = self.size_args(first);
        let ok = match args.as_slice() {
            [v] if v.shape == Shape::scalar() => integral(v),
            [v] => v.integral || v.elems.as_ref().is_some_and(|e| !e.iter().any(maybe_real)),
            many => many
                .iter()
                .all(|v| v.shape == Shape::scalar() && integral(v)),
        };
        if ok {
            Constraint::True
        } else {
            Constraint::Opaque("the sizes are integer scalars (or one vector of integers)".into())
        }
    }

    /// What the arguments whose values are extents (`linspace`'s count) must be: an
    /// integer scalar (`linspace(0, 1, [2 3])` fails, and `2.5` or Inf counts are not
    /// extents). `True` when their values show it.
    fn count_requirement(&self, extents: &[Extent]) -> Constraint {
        let ok = extents.iter().all(|e| match e {
            Extent::ArgValue(a) => self
                .arg(*a)
                .is_some_and(|v| v.shape == Shape::scalar() && known_integer(v)),
            _ => true,
        });
        if ok {
            Constraint::True
        } else {
            Constraint::Opaque("the counts are integer scalars".into())
        }
    }

    /// The sizes (or, for `repmat`, with `factors`, the replication counts) given
    /// from argument `first` on; `None` for a size vector of unknown length.
    fn dims_from(&self, first: usize, factors: bool) -> Result<Option<Vec<Dim>>, String> {
        let args = self.size_args(first);
        let fresh = |i: usize| {
            if factors {
                let base = self.call.targets.first().map_or("ans", |s| s.as_str());
                (self.call.mint)(&format!("{base}~f"), i, false)
            } else {
                self.fresh(i)
            }
        };
        let dims = match args.as_slice() {
            [] => vec![Dim::one(), Dim::one()],
            [v] if v.shape == Shape::scalar() => {
                let n = self.int_value(v, 0);
                vec![n.clone(), n]
            }
            [v] => match &v.elems {
                Some(e) => e.clone(),
                None => match v.shape.as_tuple().and_then(|t| t.extent(1).as_known()) {
                    Some(n) if n > shape::MAX_RANK as i64 => return Err(past_max_rank(n)),
                    Some(n) => (0..n.max(0) as usize).map(fresh).collect(),
                    None => return Ok(None),
                },
            },
            many => many
                .iter()
                .enumerate()
                .map(|(i, v)| self.int_value(v, i))
                .collect(),
        };
        match dims.len() {
            n if n > shape::MAX_RANK => Err(past_max_rank(n as i64)),
            _ => Ok(Some(dims)),
        }
    }

    fn collapse(&self, arg: Arg, dim: Option<Arg>) -> Outcome {
        let a = self.arg_shape(arg);
        let empty = if self.is_in("minOrMax") {
            EmptyReduction::ToEmpty
        } else {
            EmptyReduction::ToScalar
        };
        match dim.and_then(|d| self.arg(d)) {
            None => shape::reduce(&a, None, empty, self.facts),
            Some(v) if v.is_char() => match v.text.as_deref() {
                Some("all") => Outcome::always(Shape::scalar(), ext(Rule::Reduce)),
                _ => shape::reduce(&a, None, empty, self.facts),
            },
            Some(v) => match v.scalar.as_ref().and_then(|d| d.as_known()) {
                // A dimension too large for usize is past every rank all the same.
                Some(d) if d >= 1 => {
                    let d = usize::try_from(d).unwrap_or(usize::MAX);
                    shape::reduce(&a, Some(d), empty, self.facts)
                }
                _ => Outcome::always(Shape::Unknown, ext(Rule::Reduce)),
            },
        }
    }

    fn extent(&self, e: &Extent, k: usize) -> Dim {
        match e {
            Extent::Const(c) => Dim::known(*c as i64),
            Extent::Unknown => self.fresh(k),
            Extent::ArgValue(a) => match self.arg(*a) {
                Some(v) => self.int_value(v, k),
                None => self.fresh(k),
            },
            // An input of open rank has more extents than its matrix view shows.
            Extent::Numel(a) | Extent::Ndims(a) if self.arg(*a).is_some_and(|v| v.open_rank) => {
                self.fresh(k)
            }
            Extent::Size(a, d) if *d > 2 && self.arg(*a).is_some_and(|v| v.open_rank) => {
                self.fresh(k)
            }
            Extent::Numel(a) => match self.arg_shape(*a).as_tuple() {
                Some(t) => t.numel(),
                None => self.fresh(k),
            },
            Extent::Ndims(a) => match self
                .arg_shape(*a)
                .as_tuple()
                .and_then(|t| known_rank(t, self.facts))
            {
                Some(r) => Dim::known(r as i64),
                None => self.fresh(k),
            },
            Extent::Size(a, d) => match self.arg_shape(*a).as_tuple() {
                Some(t) => t.extent(d.saturating_sub(1)),
                None => self.fresh(k),
            },
            Extent::Nargin => Dim::known(self.call.args.len() as i64),
            // One symbol per name in the call, whichever output names it.
            Extent::Named(name) => {
                let id = name.bytes().fold(0usize, |h, b| h * 31 + b as usize) % 1000;
                self.fresh(1000 + id)
            }
            Extent::AtMost(bound) => {
                let u = self.fresh(k);
                let b = self.extent(bound, k + 8);
                self.bounds.borrow_mut().push(Constraint::le(&u, &b));
                u
            }
            Extent::Min(x, y) => Dim::min(&self.extent(x, k), &self.extent(y, k + 8)),
            Extent::Max(x, y) => Dim::max(&self.extent(x, k), &self.extent(y, k + 8)),
            Extent::Add(x, y) => self.extent(x, k).add(&self.extent(y, k)),
            Extent::Sub(x, y) => self.extent(x, k).sub(&self.extent(y, k)),
            Extent::Mul(x, y) => self.extent(x, k).mul(&self.extent(y, k)),
        }
    }

    fn vector(&self, like: Arg, len: &Extent, k: usize) -> Outcome {
        let n = self.extent(len, k);
        let Some(t) = self.matrix_view(like).as_tuple().cloned() else {
            return Outcome::always(Shape::Unknown, ext(Rule::Vector));
        };
        let f = self.facts;
        let is_row = f.ask(&Constraint::and([
            Constraint::eq(&t.extent(0), &Dim::one()),
            shape::beta(&t),
        ]));
        let is_empty00 = f.ask(&Constraint::and([
            Constraint::eq(&t.extent(0), &Dim::zero()),
            Constraint::eq(&t.extent(1), &Dim::zero()),
        ]));
        let shape = match (is_empty00, is_row) {
            (Truth::Proven, _) => Shape::empty(),
            (_, Truth::Proven) => Shape::tuple(vec![Dim::one(), n]),
            (_, Truth::Refuted) => Shape::tuple(vec![n, Dim::one()]),
            _ => Shape::Unknown,
        };
        Outcome::always(shape, ext(Rule::Vector))
    }

    fn colon(&self, start: Arg, step: Option<Arg>, stop: Arg) -> Outcome {
        // A value that may not be an integer counts differently (`1:2.5` is 1×2).
        let value = |a: Arg| {
            self.arg(a).and_then(|v| {
                (v.shape == Shape::scalar())
                    .then(|| v.scalar.clone())
                    .flatten()
                    .filter(|d| !maybe_real(d))
            })
        };
        match (value(start), step.map(value), value(stop)) {
            (Some(a), None, Some(b)) => shape::colon(&a, &b),
            (Some(a), Some(Some(s)), Some(b)) => shape::colon_step(&a, &s, &b),
            _ => {
                let number = |a: Arg| self.arg(a).and_then(|v| v.number);
                let by = step.map_or(Some(1.0), number);
                let len = match (number(start), by, number(stop)) {
                    (Some(a), Some(s), Some(b)) => real_range_len(a, s, b),
                    _ => None,
                };
                let len = len.map_or_else(|| self.fresh(1), Dim::known);
                let range = Outcome::always(Shape::tuple(vec![Dim::one(), len]), ext(Rule::Colon));
                // `-Inf:Inf` fails, and `1:NaN` is NaN, not a range.
                let bounds = [Some(start), step, Some(stop)];
                let finite = bounds
                    .into_iter()
                    .flatten()
                    .all(|a| self.arg(a).is_some_and(Value::is_finite));
                if finite {
                    range
                } else {
                    requiring(range, Constraint::Opaque("the bounds are finite".into()))
                }
            }
        }
    }

    fn concat(&self, dim: &Extent, first: usize) -> Outcome {
        let args = &self.call.args[first.min(self.call.args.len())..];
        // With a cell operand, `[c; 'text']` wraps every other non-empty operand in a
        // 1×1 cell.
        let cells = args.iter().any(|v| v.class == Some("cell"));
        let parts: Vec<Shape> = args
            .iter()
            .enumerate()
            .map(|(i, v)| {
                if cells && v.class.is_some_and(|c| c != "cell") && v.shape != Shape::empty() {
                    Shape::scalar()
                } else {
                    self.arg_shape(Arg::Nth(first + i))
                }
            })
            .collect();
        let outcome = match self.extent(dim, 0).as_known() {
            Some(1) => shape::vertcat(&parts, self.facts),
            Some(2) => shape::horzcat(&parts, self.facts),
            Some(d) if d >= 1 => {
                let d = usize::try_from(d).unwrap_or(usize::MAX);
                shape::cat(d, &parts, self.facts)
            }
            // An unknown dimension: whether the operands agree is a run-time question.
            _ => Outcome::unknown(ext(Rule::Cat)),
        };
        // An operand of unknown class may be a cell (or a string array), where the
        // extents of the others do not have to agree: no definite error then.
        let maybe_cell = args
            .iter()
            .any(|v| v.class.is_none() && v.shape != Shape::empty());
        if maybe_cell {
            return outcome.excused();
        }
        outcome
    }

    fn reshape(&self, arg: Arg, first: usize) -> Outcome {
        // An input of open rank has numel x_1*x_2 times its trailing extents.
        let a = self.matrix_view(arg);
        let rest: Vec<&Value> = self.call.args.iter().skip(first).collect();
        let dims: Vec<Option<Dim>> = match rest.as_slice() {
            [v] if v.shape != Shape::scalar() => match &v.elems {
                Some(e) => e.iter().cloned().map(Some).collect(),
                // A size vector of unknown elements: its product must still be
                // numel(a) and its entries non-negative, which only run time knows.
                None => {
                    return Outcome {
                        theta: Constraint::Opaque(
                            "prod(size vector) == numel(a), every entry >= 0".into(),
                        ),
                        ..Outcome::unknown(ext(Rule::Reshape))
                    }
                }
            },
            many => many
                .iter()
                .enumerate()
                .map(|(i, v)| (v.shape != Shape::empty()).then(|| self.int_value(v, i)))
                .collect(),
        };
        if dims.len() > shape::MAX_RANK {
            return Outcome::capped(&past_max_rank(dims.len() as i64));
        }
        shape::reshape(&a, &dims, self.facts)
    }

    fn permute(&self, arg: Arg, order: Arg) -> Outcome {
        let known: Option<Vec<usize>> =
            self.arg(order)
                .and_then(|v| v.elems.as_ref())
                .and_then(|e| {
                    e.iter()
                        .map(|d| d.as_known().and_then(|x| usize::try_from(x).ok()))
                        .collect()
                });
        match known {
            Some(order) if order.len() > shape::MAX_RANK => Outcome::capped(&format!(
                "a permutation of {} dimensions, past the {} dimensions analysed",
                order.len(),
                shape::MAX_RANK
            )),
            // An operand of open rank has more extents than its tuple shows, and a
            // permutation must list all of them (a 5-D array fails `[1 2 4 3]`).
            Some(_) if self.arg(arg).is_some_and(|v| v.open_rank) => requiring(
                Outcome::always(Shape::Unknown, ext(Rule::Permute)),
                Constraint::Opaque("the order lists each dimension of the array once".into()),
            ),
            Some(order) => shape::permute(&self.arg_shape(arg), &order, self.facts),
            None => requiring(
                Outcome::always(Shape::Unknown, ext(Rule::Permute)),
                Constraint::Opaque("the order lists each dimension of the array once".into()),
            ),
        }
    }

    fn diag(&self, arg: Arg, k: Option<Arg>) -> Outcome {
        let off = match k.and_then(|a| self.arg(a)) {
            None => Some(0),
            Some(v) => v.scalar.as_ref().and_then(|d| d.as_known()),
        };
        let Some(t) = self.matrix_view(arg).as_tuple().cloned() else {
            // A vector or a matrix is a run-time question for an unknown shape.
            return Outcome::unknown(ext(Rule::Diag));
        };
        let f = self.facts;
        let one = Dim::one();
        let row = f.ask(&Constraint::eq(&t.extent(0), &one));
        let col = f.ask(&Constraint::eq(&t.extent(1), &one));
        // The shapes below are those after the check passes, when the operand is 2-D.
        let shape = match (row, col, off) {
            // |i64::MIN| is no i64: an offset that large gives an unknown shape.
            (Truth::Proven, _, Some(off)) | (_, Truth::Proven, Some(off)) => {
                match off.checked_abs() {
                    Some(k) => {
                        let n = t.extent(0).mul(&t.extent(1)).add_const(k);
                        Shape::tuple(vec![n.clone(), n])
                    }
                    None => Shape::Unknown,
                }
            }
            // `diag([])` is 0×0 (an m×0 or 0×n matrix's diagonal is 0×1).
            (Truth::Refuted, Truth::Refuted, Some(0)) => match f.ask(&Constraint::and([
                Constraint::eq(&t.extent(0), &Dim::zero()),
                Constraint::eq(&t.extent(1), &Dim::zero()),
            ])) {
                Truth::Proven => Shape::empty(),
                Truth::Refuted => Shape::tuple(vec![Dim::min(&t.extent(0), &t.extent(1)), one]),
                Truth::Unknown => Shape::Unknown,
            },
            _ => Shape::Unknown,
        };
        // `diag` needs a matrix (β): a trailing extent past 1 is an error.
        let theta = shape::beta(&t);
        match f.ask(&theta) {
            Truth::Refuted => Outcome::illegal(theta, ext(Rule::Diag)),
            status => Outcome {
                shape,
                assume: vec![theta.clone()],
                theta,
                status,
                rule: ext(Rule::Diag),
            },
        }
    }

    /// Values that sizes are computed from: `size`, `numel`, `length`, `ndims`, and
    /// integer arithmetic on scalars (`n+1`, `2*m`, `floor(n/2)`).
    fn add_value_semantics(&self, k: usize, value: &mut Value) {
        let args = &self.call.args;
        if self.call.func == "str2func" {
            // `str2func('name')` is `@name`; `str2func('@(x) …')` is an anonymous one.
            value.handle = args.first().and_then(|a| a.text.clone()).filter(|t| {
                t.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
            });
        }
        let tuple = |i: usize| args.get(i).and_then(|v| v.shape.as_tuple());
        let val = |i: usize| args.get(i).and_then(|v| v.scalar.clone());
        let scalar = match (self.call.func, args.len()) {
            ("numel", 1) => tuple(0).map(|t| t.numel()),
            ("ndims", 1) => tuple(0)
                .and_then(|t| known_rank(t, self.facts))
                .map(|r| Dim::known(r as i64)),
            ("length", 1) => tuple(0).and_then(|t| length(t, self.facts)),
            ("size", 1) if self.call.nargout > 1 => tuple(0).map(|t| {
                let last = self.call.nargout - 1;
                if k < last {
                    t.extent(k)
                } else {
                    (k..t.rank().max(k + 1)).fold(Dim::one(), |p, i| p.mul(&t.extent(i)))
                }
            }),
            ("size", 2) => match (tuple(0), val(1).and_then(|d| d.as_known())) {
                // Past the rank (or past usize, on wasm32) the extent is 1.
                (Some(t), Some(d)) if d >= 1 => {
                    Some(t.extent(usize::try_from(d - 1).unwrap_or(usize::MAX)))
                }
                _ => None,
            },
            ("plus", 2) => val(0).zip(val(1)).map(|(a, b)| a.add(&b)),
            ("minus", 2) => val(0).zip(val(1)).map(|(a, b)| a.sub(&b)),
            ("times" | "mtimes", 2) => val(0).zip(val(1)).map(|(a, b)| a.mul(&b)),
            ("uminus", 1) => val(0).map(|a| a.neg()),
            ("uplus" | "double", 1) => val(0),
            // `true`, `false` and `logical(k)` of one element, so `if false` is decided.
            ("true", _) => Some(Dim::one()),
            ("false", _) => Some(Dim::zero()),
            ("logical", 1) => val(0)
                .and_then(|d| d.as_known())
                .map(|c| Dim::known(i64::from(c != 0))),
            // A `switch` on a constant compares it with each case by these.
            ("strcmp", 2) => self.same_text().map(|same| Dim::known(i64::from(same))),
            ("isequal" | "and" | "or" | "xor", 2) => val(0)
                .and_then(|a| a.as_known())
                .zip(val(1).and_then(|b| b.as_known()))
                .map(|(a, b)| Dim::known(i64::from(logical_op(self.call.func, a, b)))),
            // Rounding is the identity on integers only.
            ("floor" | "ceil" | "round" | "fix" | "int32", 1) => val(0).filter(|d| !maybe_real(d)),
            ("max", 2) => self.extreme_operands().map(|(a, b)| Dim::max(&a, &b)),
            ("min", 2) => self.extreme_operands().map(|(a, b)| Dim::min(&a, &b)),
            _ => None,
        };
        let is_scalar_result = value.shape == Shape::scalar();
        if is_scalar_result {
            let scalar = scalar.and_then(|d| self.saturated(value.class, d));
            value.scalar = scalar.or_else(|| self.folded_comparison());
            if value.scalar.is_none() {
                value.guard = self.guard().map(std::rc::Rc::new);
            }
            // Rounding makes an integer only of a finite value (`ceil(200/0)` is Inf).
            let rounding = matches!(self.call.func, "floor" | "ceil" | "round" | "fix");
            value.integral = (INTEGRAL_RESULTS.contains(&self.call.func)
                && (!rounding || args.iter().all(|v| v.is_finite())))
                || (CLOSED_OVER_INTEGERS.contains(&self.call.func)
                    && !args.is_empty()
                    && args.iter().all(Value::is_integer));
            value.finite = value.integral || self.finite_result();
        }
        if self.call.func == "size" && args.len() == 1 && self.call.nargout <= 1 {
            value.elems = tuple(0)
                .filter(|t| known_rank(t, self.facts).is_some())
                .map(|t| t.dims().to_vec());
        }
        if matches!(self.call.func, "horzcat" | "vertcat") {
            let parts = || args.iter().filter(|v| v.shape != Shape::empty());
            // `[length(x) 1]`: integers whose values are not all known.
            value.integral = parts().all(|v| {
                v.integral
                    || super::is_integral_class(v)
                    || v.scalar.as_ref().is_some_and(|d| !maybe_real(d))
                    || v.elems.as_ref().is_some_and(|e| !e.iter().any(maybe_real))
            });
            // Counted before anything is copied: `s = [s s]` in a loop doubles them.
            let len: usize = parts().map(|v| v.elems.as_ref().map_or(1, Vec::len)).sum();
            value.elems = (len <= super::MAX_ELEMS)
                .then(|| {
                    parts()
                        .map(|v| match &v.elems {
                            Some(e) => Some(e.clone()),
                            None => v.scalar.clone().map(|d| vec![d]),
                        })
                        .collect::<Option<Vec<_>>>()
                })
                .flatten()
                .map(|parts| parts.concat())
                .and_then(|elems| {
                    let fit = |d: Dim| self.saturated(value.class, d);
                    elems.into_iter().map(fit).collect()
                });
        }
        if self.call.func == "colon" && args.len() == 2 {
            // As a subscript, `a:b` stays within 1..b only when a is an integer ≥ 1
            // (`0:b` and `0.5:b` fail whatever the array).
            let valid_start = val(0).is_some_and(|a| {
                !maybe_real(&a) && self.facts.ask(&Constraint::le(&Dim::one(), &a)).is_proven()
            });
            value.max = val(1).filter(|b| valid_start && !maybe_real(b));
        }
    }

    /// A value of an integer class saturates (`int8(100) + int8(100)` is 127,
    /// `[int8(1) 300]` holds 127): an exact integer stands for it only where the facts
    /// put it within the class's range, and a constant outside is clamped to the range.
    /// A result of unknown class may be of any integer class when an operand may be:
    /// of an integer operand's class (MATLAB gives that class or an error), otherwise
    /// within every integer class's range. Other classes keep it as it is.
    fn saturated(&self, class: Class, d: Dim) -> Option<Dim> {
        let args = &self.call.args;
        let (lo, hi) = match class {
            Some(c) => match integer_range(c) {
                Some(range) => range,
                None => return Some(d),
            },
            None => match args.iter().find_map(|a| a.class.and_then(integer_range)) {
                Some(range) => range,
                None if args.iter().any(|a| a.class.is_none()) => (0, i8::MAX.into()),
                None => return Some(d),
            },
        };
        if let (Some(c), Some(_)) = (d.as_known(), class) {
            return Some(Dim::known(c.clamp(lo, hi)));
        }
        let within = |c: Constraint| self.facts.ask(&c).is_proven();
        (within(Constraint::le(&Dim::known(lo), &d)) && within(Constraint::le(&d, &Dim::known(hi))))
            .then_some(d)
    }

    /// Whether the two arguments are the same text, when both are constant char rows.
    fn same_text(&self) -> Option<bool> {
        let text = |i: usize| {
            let v = self.call.args.get(i).filter(|v| v.is_char())?;
            v.text.as_deref()
        };
        Some(text(0)? == text(1)?)
    }

    /// The scalar result of arithmetic on finite values is finite, unless it may divide
    /// by zero: `n/2` of a count is, `1/x` is not. (Products of doubles may overflow to
    /// Inf only past 1e308, which no count or extent comes near.)
    fn finite_result(&self) -> bool {
        let args = &self.call.args;
        let finite = |i: usize| args.get(i).is_some_and(Value::is_finite);
        let nonzero = |i: usize| {
            args.get(i).is_some_and(|v| {
                v.number.is_some_and(|x| x != 0.0 && x.is_finite())
                    || v.scalar.as_ref().is_some_and(|d| {
                        !maybe_real(d)
                            && self.facts.ask(&Constraint::ne(d, &Dim::zero())).is_proven()
                    })
            })
        };
        match (self.call.func, args.len()) {
            // Random numbers are finite (rand lies in (0, 1)).
            ("rand" | "randn" | "randi" | "randperm", _) => true,
            ("plus" | "minus" | "times" | "mtimes" | "max" | "min" | "mod" | "rem", 2) => {
                finite(0) && finite(1)
            }
            ("uminus" | "uplus" | "abs" | "double" | "sqrt", 1) => finite(0),
            ("rdivide" | "mrdivide", 2) => finite(0) && nonzero(1),
            ("ldivide" | "mldivide", 2) => nonzero(0) && finite(1),
            _ => false,
        }
    }

    /// Comparisons of known integer values, and the negation of a known value, fold to
    /// constants, so a branch on them is pruned (the thesis's constant propagation of
    /// scalar values).
    fn folded_comparison(&self) -> Option<Dim> {
        let args = &self.call.args;
        if let ("not", [v]) = (self.call.func, args.as_slice()) {
            // `~exist('k', 'var')`, `~isempty(x)` of a known value.
            let c = v.scalar.as_ref()?.as_known()?;
            return Some(if c == 0 { Dim::one() } else { Dim::zero() });
        }
        let c = self.comparison()?;
        match self.facts.ask(&c) {
            Truth::Proven => Some(Dim::one()),
            Truth::Refuted => Some(Dim::zero()),
            Truth::Unknown => None,
        }
    }
}

impl Eval<'_> {
    /// A comparison of two integer scalars as the condition it computes (`n > 10` is
    /// `10 < n`).
    fn comparison(&self) -> Option<Constraint> {
        let args = &self.call.args;
        let (a, b) = (
            args.first()?.scalar.as_ref()?,
            args.get(1)?.scalar.as_ref()?,
        );
        // The facts reason over integers (`3 < h` as `4 ≤ h`), which h = 3.5 is not.
        if maybe_real(a) || maybe_real(b) {
            return None;
        }
        Some(match self.call.func {
            "eq" => Constraint::eq(a, b),
            "ne" => Constraint::ne(a, b),
            "lt" => Constraint::lt(a, b),
            "le" => Constraint::le(a, b),
            "gt" => Constraint::lt(b, a),
            "ge" => Constraint::le(b, a),
            _ => return None,
        })
    }

    /// The values of `min(a, b)`'s or `max(a, b)`'s operands, when one has a value and
    /// the other is an integer scalar: that one's value a fresh program value of this
    /// statement if it has none (a temporary's, as in `min(numel(x), 7)`, is not
    /// named), so the result is still bounded by the first (`min(…, 7) ≤ 7`).
    fn extreme_operands(&self) -> Option<(Dim, Dim)> {
        let [a, b] = self.call.args.as_slice() else {
            return None;
        };
        // Doubles only: `max(int8(x), 300)` saturates to 127.
        let doubles = a.class == Some("double") && b.class == Some("double");
        let integer = |v: &Value| doubles && v.integral && v.shape == Shape::scalar();
        // Named after the builtin (`min~v1`): the statement's target may be a
        // temporary, whose name is no one's to read.
        let fresh = |k: usize| (self.call.mint)(&format!("{}~v", self.call.func), k, true);
        match (&a.scalar, &b.scalar) {
            (Some(x), Some(y)) => Some((x.clone(), y.clone())),
            (Some(x), None) if integer(b) => Some((x.clone(), fresh(1))),
            (None, Some(y)) if integer(a) => Some((fresh(0), y.clone())),
            _ => None,
        }
    }

    /// What a logical scalar result is true exactly when (see [`Value::guard`]): a
    /// comparison of integer scalars, the negation (or `logical`) of a guarded value,
    /// or `&`/`|` of two.
    fn guard(&self) -> Option<Constraint> {
        let both =
            |a: &Value, b: &Value| Some(((*a.guard.clone()?).clone(), (*b.guard.clone()?).clone()));
        match (self.call.func, self.call.args.as_slice()) {
            ("not", [v]) => v.guard.as_ref().map(|c| c.not()),
            ("logical", [v]) => v.guard.as_deref().cloned(),
            ("and", [a, b]) => both(a, b).map(|(a, b)| Constraint::and([a, b])),
            ("or", [a, b]) => both(a, b).map(|(a, b)| Constraint::or([a, b])),
            (_, [_, _]) => self.comparison(),
            _ => None,
        }
    }
}

/// `func` of two known integer scalars, for `isequal` and the logical operators.
fn logical_op(func: &str, a: i64, b: i64) -> bool {
    match func {
        "isequal" => a == b,
        "and" => a != 0 && b != 0,
        "or" => a != 0 || b != 0,
        _ => (a != 0) != (b != 0),
    }
}

/// `error(args…)` surely raises: its message is certainly not empty. The message is
/// the only argument, or the second when the first is an identifier
/// (`'pkg:bad'`), or else the first, a format, whose literal text (outside its `%`
/// conversions) is not blank.
fn raises(args: &[Value]) -> bool {
    let nonempty = |v: &Value| match &v.text {
        Some(t) => !t.is_empty(),
        None => {
            v.class == Some("char")
                && v.shape
                    .as_tuple()
                    .is_some_and(|t| t.dims().iter().all(Dim::is_positive))
        }
    };
    let is_identifier = |t: &str| {
        t.contains(':')
            && t.split(':').all(|part| {
                !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            })
    };
    match args {
        [] => false,
        [message] => nonempty(message),
        [first, rest @ ..] => match first.text.as_deref() {
            Some(id) if is_identifier(id) => rest.first().is_some_and(|m| match &m.text {
                Some(t) if rest.len() > 1 => literal_text(t),
                _ => nonempty(m),
            }),
            Some(format) => literal_text(format),
            None => false,
        },
    }
}

/// A format has text of its own besides its conversions (`'bad size %d'`, not `'%s'`).
fn literal_text(format: &str) -> bool {
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c == '%' {
            // Skip flags, width and precision up to the conversion letter (`%%` is a
            // literal percent sign, text of its own).
            for d in chars.by_ref() {
                if d == '%' {
                    return true;
                }
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else if !c.is_whitespace() {
            return true;
        }
    }
    false
}

/// A value known to be a (finite) integer: its value says so, or it is a count, a
/// rounded finite value or of an integer class.
fn known_integer(v: &Value) -> bool {
    match &v.scalar {
        Some(d) => !maybe_real(d),
        None => v.integral || super::is_integral_class(v),
    }
}

/// What a capped size vector says (see [`Outcome::capped`]).
fn past_max_rank(n: i64) -> String {
    format!(
        "a size vector of {n} elements makes rank {n}, past the {} dimensions analysed",
        shape::MAX_RANK
    )
}

/// The number of elements of `a:s:b` for real constants, as MATLAB computes it (with a
/// tolerance so `0:0.1:1` has 11 elements).
fn real_range_len(a: f64, s: f64, b: f64) -> Option<i64> {
    if s == 0.0 {
        return Some(0);
    }
    if !(a.is_finite() && s.is_finite() && b.is_finite()) {
        return None;
    }
    let n = ((b - a) / s * (1.0 + 4.0 * f64::EPSILON) + 1e-10).floor() + 1.0;
    (n.abs() < 1e12).then_some(n.max(0.0) as i64)
}

/// The rank `ndims` reports, when known: a trailing symbolic extent that may be 1
/// (`zeros(3,3,c)`) leaves it open, since `ndims` drops trailing singletons.
fn known_rank(t: &shape::ShapeTuple, facts: &Facts) -> Option<usize> {
    let r = t.rank();
    (r <= 2
        || facts
            .ask(&Constraint::ne(&t.extent(r - 1), &Dim::one()))
            .is_proven())
    .then_some(r)
}

/// `length(x)`: 0 for an empty array, else the largest extent. `None` when that
/// cannot be written as one extent: `<m,n>` is `max(m,n)` unless m or n may be 0.
fn length(t: &shape::ShapeTuple, facts: &Facts) -> Option<Dim> {
    let known: Option<Vec<i64>> = t.dims().iter().map(|d| d.as_known()).collect();
    if let Some(ds) = known {
        let empty = ds.contains(&0);
        return Some(Dim::known(if empty {
            0
        } else {
            ds.into_iter().max().unwrap_or(0)
        }));
    }
    // A vector's length is its one extent other than 1, also when that is 0.
    let mut others = t.dims().iter().filter(|d| d.as_known() != Some(1));
    if let (Some(d), None) = (others.next(), others.next()) {
        return Some(d.clone());
    }
    let nonempty = Constraint::and(t.dims().iter().map(|d| Constraint::le(&Dim::one(), d)));
    facts.ask(&nonempty).is_proven().then(|| {
        t.dims()[1..]
            .iter()
            .fold(t.extent(0), |m, d| Dim::max(&m, d))
    })
}

fn class_is(v: Option<&Value>, class: &str) -> Truth {
    match v.and_then(|v| v.class) {
        Some(c) => Truth::from_bool(c == class),
        None => Truth::Unknown,
    }
}

/// `inv`, `det`, `expm`…: the argument must be a square matrix.
fn square(a: &Shape, facts: &Facts) -> Outcome {
    let Some(t) = a.as_tuple() else {
        // Unknown rank: whether it is a square matrix is a run-time question.
        return Outcome::unknown(ext(Rule::Square));
    };
    // β, not "rank is 2": a trailing symbolic extent may be 1 (`zeros(3,3,c)` is a
    // matrix when c is 1), so it is a condition on that extent, as for `*`.
    let (rows, cols) = (t.extent(0), t.extent(1));
    let theta = Constraint::and([shape::beta(t), Constraint::eq(&rows, &cols)]);
    let mut status = facts.ask(&theta);
    // Octave takes an empty matrix of any size (`inv(zeros(0,3))` is 0×0, `det` of it
    // 1), MATLAB does not: not square but maybe empty is a run-time question.
    let empty = Constraint::or([
        Constraint::eq(&rows, &Dim::zero()),
        Constraint::eq(&cols, &Dim::zero()),
    ]);
    if status == Truth::Refuted && !facts.ask(&empty).is_refuted() {
        status = Truth::Unknown;
    }
    if status == Truth::Refuted {
        return Outcome::illegal(theta, ext(Rule::Square));
    }
    Outcome {
        shape: a.clone(),
        assume: vec![theta.clone()],
        theta,
        status,
        rule: ext(Rule::Square),
    }
}

/// `squeeze`: 2-D arrays unchanged; otherwise singleton dimensions removed.
fn squeeze(a: &Shape, facts: &Facts) -> Shape {
    match a.as_tuple() {
        // Which extents go depends on which are 1: a symbolic one may or may not be
        // (`squeeze(zeros(1,0,c))` is 1×0 when c is 1, else 0×c).
        Some(t)
            if t.rank() > 2
                && t.dims().iter().any(|d| {
                    d.as_known().is_none()
                        && facts.ask(&Constraint::eq(d, &Dim::one())) == Truth::Unknown
                }) =>
        {
            Shape::Unknown
        }
        Some(t) if t.rank() > 2 => {
            let kept: Vec<Dim> = t
                .dims()
                .iter()
                .filter(|d| !facts.ask(&Constraint::eq(d, &Dim::one())).is_proven())
                .cloned()
                .collect();
            match kept.len() {
                0 => Shape::scalar(),
                1 => Shape::tuple(vec![kept[0].clone(), Dim::one()]),
                _ => Shape::tuple(kept),
            }
        }
        _ => a.clone(),
    }
}

/// The builtins whose result has their integer argument's class in MATLAB and Octave
/// alike, from any argument (checked against Octave 7:
/// `tests/fixtures/matlab/interproc/integer-classes.m` and issue #22 item 3's audit of
/// every builtin on `int8` arguments): arithmetic, concatenation, `min`/`max`, ranges.
/// Any other builtin of an integer argument, but those of [`INTEGER_FROM_FIRST`], has
/// an unknown class.
const INTEGER_RESULTS: &[&str] = &[
    "plus", "minus", "times", "rdivide", "ldivide", "power", "mtimes", "mrdivide", "mldivide",
    "mpower", "rem", "mod", "idivide", "bitand", "bitor", "bitxor", "horzcat", "vertcat", "max",
    "min", "colon",
];

/// The builtins whose result has their *first* argument's integer class (the others
/// are sizes, dimensions or options: `tril(2, int16(A))` is a double).
const INTEGER_FROM_FIRST: &[&str] = &[
    "uminus",
    "uplus",
    "abs",
    "sign",
    "round",
    "floor",
    "ceil",
    "fix",
    "conj",
    "real",
    "imag",
    "transpose",
    "ctranspose",
    "reshape",
    "repmat",
    "permute",
    "squeeze",
    "circshift",
    "flip",
    "fliplr",
    "flipud",
    "rot90",
    "diag",
    "tril",
    "triu",
    "sort",
    "cummax",
    "cummin",
    "full",
    "unique",
];

/// The values an integer class holds, as far as an `i64` reaches (`uint64` goes past it,
/// but no [`Dim`] constant does). `None` for the other classes.
fn integer_range(class: &str) -> Option<(i64, i64)> {
    Some(match class {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "uint8" => (0, u8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "int64" => (i64::MIN, i64::MAX),
        "uint64" => (0, i64::MAX),
        _ => return None,
    })
}
