//! The value analysis (Dubrau 2012 ch. 6, with Joisha et al.'s shapes as the matrix
//! abstraction): a forward [`flow`](crate::flow) analysis over the Tame IR whose fact
//! maps each variable to a [`Value`] — class, shape tuple, and, for integer scalars, a
//! symbolic value (so `zeros(n, m)` has shape `<max(n,0),max(m,0)>`) — together with the
//! [`Facts`] established by the statements that succeeded so far.
//!
//! Every builtin call is evaluated from the builtin table's rule (see [`eval`]); operators
//! reach the Joisha rules through it. A definite shape error makes the code after it
//! nonviable, as the thesis's error builtins do.

mod access;
mod analysis;
mod call;
mod contexts;
mod display;
mod eval;
mod gloss;
mod loops;
mod memo;
mod nesting;
pub mod parts;
mod program;
mod results;
mod resume;
mod state;
mod static_calls;
mod summary;
mod transfer;

#[cfg(test)]
mod bounds_tests;
#[cfg(test)]
mod clear_tests;
#[cfg(test)]
mod context_tests;
#[cfg(test)]
mod fix_tests;
#[cfg(test)]
mod mode_tests;
#[cfg(test)]
mod root_error_tests;
#[cfg(test)]
mod rule_props;
#[cfg(test)]
mod size_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod view_tests;

pub use display::describe;
pub use display::Lambdas;
pub use memo::FunctionMemo;
pub use program::{
    analyze_linked, analyze_program, analyze_program_in, analyze_program_with, ContextLines,
};
pub use results::{
    CallContext, Context, ContextLine, FunctionResult, Gloss, ProgramResult, StmtResult,
};
pub use summary::{fill_report, values_table};

use crate::shape::{self, Shape};
use crate::tame::StmtId;
use imbl::ordmap::DiffItem;
use shapex_dims::{Atom, Dim, Facts, Provenance, Site, Symbol, SymbolTable};
use std::cell::RefCell;
use std::collections::HashMap;

/// A MATLAB class name (`double`, `logical`, `char`, `cell`, `struct`,
/// `function_handle`, …); `None` when unknown or mixed.
pub type Class = Option<&'static str>;

pub use crate::builtins::INTEGER_CLASSES;

/// The most elements [`Value::elems`] keeps: `s = [s s]` in a loop doubles them, and
/// thirty iterations would be a billion.
pub const MAX_ELEMS: usize = 1024;

/// The abstract value of one variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    pub class: Class,
    pub shape: Shape,
    /// The value of an integer scalar, exactly or symbolically.
    pub scalar: Option<Dim>,
    /// The elements of a short numeric vector whose elements are all known (size
    /// vectors such as `[2 3]` or the result of `size(x)`), at most [`MAX_ELEMS`].
    pub elems: Option<Vec<Dim>>,
    /// The largest element of an integer range (`1:n` has `n`), for growth by
    /// subscripted assignment.
    pub max: Option<Dim>,
    /// The text of a constant char row vector (class names, `'all'`, switch cases).
    pub text: Option<String>,
    /// The value of a constant real scalar that is not an integer (`0.5`), so ranges
    /// such as `0:0.5:2` still have a known length.
    pub number: Option<f64>,
    /// The array is an input whose rank is not known: `<x_1,x_2>` is its shape as a
    /// matrix, but it may have more dimensions, so subscripts past the second are not
    /// out of bounds (no false alarm on `rgb(:,:,3)`).
    pub open_rank: bool,
    /// For an array of open rank, the product of its extents past the second when a
    /// symbol names it (an input `x` has `x_3`): 1 exactly when the array is 2-D, so
    /// a rule that needs a matrix checks `x_3 == 1`, and statements on the same input
    /// share what earlier ones established.
    pub trailing: Option<Dim>,
    /// For a function handle, the function it calls when that is known (`@sin`,
    /// `str2func('sin')`), so a call through it is evaluated as a call to that function.
    pub handle: Option<String>,
    /// For an anonymous function: its lifted body and the values it captured when it
    /// was made (`g = @(t) A*t` holds A's value then), so a call through it is a call
    /// of the body with them first (Dubrau 2012 §3.6).
    pub closure: Option<std::rc::Rc<Closure>>,
    /// The source statement that gave the variable this value (`x = ones(3,2)`): the
    /// evidence a definite error cites for its operands.
    pub origin: Option<shapex_text::Span>,
    /// The variable was removed (`clear x`): it is undefined, as if never assigned, and
    /// [`Env::get`] does not see it. Kept as an entry so that a join with a path where
    /// it is still defined gives an unknown value rather than that path's stale one.
    pub cleared: bool,
    /// The value is an integer even when it is not known (a count, an extent, a
    /// rounded number), so its symbol may stand for an integer (see [`REAL`]). A
    /// finite one: `ceil(200/c)` is Inf for c = 0, so rounding makes an integer only of
    /// a [`Value::is_finite`] value.
    pub integral: bool,
    /// The value holds no Inf or NaN, though not an integer (`n/2` of a count n): see
    /// [`Value::is_finite`].
    pub finite: bool,
    /// A struct's fields or a cell array's elements, as far as they are known
    /// ([`parts`]); `None` for other classes, or when nothing is known of them.
    pub parts: Option<std::rc::Rc<parts::Parts>>,
    /// For a logical scalar that a comparison of integer values made (`t = n > 10`):
    /// the condition it is true exactly when (`10 < n`), so a branch on it, or an
    /// `assert` of it, teaches the facts that condition or its negation. Over the
    /// function's own symbols: a call's context and results never carry one.
    pub guard: Option<std::rc::Rc<shapex_dims::Constraint>>,
    /// A temporary holding `c{k}` with `k` a scalar, or `s.f` of a 1×1 struct: a
    /// comma-separated list of exactly one value, so a call it is an argument of still
    /// knows how many it passes (`values::access`).
    pub one: bool,
    /// When `class` is unknown because paths with different known classes joined
    /// (`if c, x = 1; else, x = 'a'; end`): those classes, a bit each in
    /// [`UNION_CLASSES`]' order (the thesis's union type, "not tame"); 0 when nothing is
    /// known. Shown only: the analysis treats the value as of unknown class.
    pub union: u16,
}

/// The classes a union of classes ([`Value::union`]) may name, by bit.
pub const UNION_CLASSES: [&str; 15] = [
    "double",
    "single",
    "logical",
    "char",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "cell",
    "struct",
    "function_handle",
];

impl Value {
    pub fn of_shape(class: Class, shape: Shape) -> Value {
        Value {
            class,
            shape,
            scalar: None,
            elems: None,
            max: None,
            text: None,
            number: None,
            open_rank: false,
            trailing: None,
            handle: None,
            closure: None,
            origin: None,
            cleared: false,
            integral: false,
            finite: false,
            parts: None,
            guard: None,
            one: false,
            union: 0,
        }
    }

    /// The classes the value may have, a bit each in [`UNION_CLASSES`]' order; 0 when
    /// any class is possible.
    fn class_bits(&self) -> u16 {
        match self.class {
            Some(c) => UNION_CLASSES
                .iter()
                .position(|u| *u == c)
                .map_or(0, |i| 1 << i),
            None => self.union,
        }
    }

    /// The classes of a union of classes, when the value has one (`["double", "char"]`).
    pub fn union_classes(&self) -> Option<Vec<&'static str>> {
        (self.class.is_none() && self.union.count_ones() > 1).then(|| {
            UNION_CLASSES
                .iter()
                .enumerate()
                .filter(|(i, _)| self.union & (1 << i) != 0)
                .map(|(_, c)| *c)
                .collect()
        })
    }

    /// What a removed variable holds: see [`Value::cleared`].
    pub fn cleared() -> Value {
        Value {
            cleared: true,
            ..Value::unknown()
        }
    }

    pub fn unknown() -> Value {
        Value::of_shape(None, Shape::Unknown)
    }

    /// A double scalar with a (possibly symbolic) value.
    pub fn scalar(value: Option<Dim>) -> Value {
        Value {
            scalar: value,
            ..Value::of_shape(Some("double"), Shape::scalar())
        }
    }

    /// No element is Inf or NaN, for certain: an integer (a count, an extent, a value
    /// of an integer or logical class), a constant, or arithmetic of such that cannot
    /// divide by zero. Data may hold Inf (`1:x(1)` fails for x(1) = Inf).
    pub fn is_finite(&self) -> bool {
        self.finite
            || self.integral
            || is_integral_class(self)
            || self.class == Some("char")
            || self.number.is_some_and(f64::is_finite)
            || self.scalar.as_ref().is_some_and(|d| !maybe_real(d))
            || self
                .elems
                .as_ref()
                .is_some_and(|e| !e.iter().any(maybe_real))
    }

    pub fn is_char(&self) -> bool {
        self.class == Some("char")
    }

    /// Whether `if v` (or `while v`) takes its branch, where the value decides it on
    /// every run: MATLAB takes it exactly when `v` is not empty and no element is
    /// zero. `None` when that depends on what is not known, when the test fails (NaN
    /// converts to no logical; a cell to none), or when `v` may be an object, whose
    /// class may define its own truth.
    pub fn truth(&self, facts: &Facts) -> Option<bool> {
        if let Some(d) = &self.scalar {
            return nonzero(d, facts);
        }
        if let Some(x) = self.number {
            return (!x.is_nan()).then_some(x != 0.0);
        }
        let numeric = self.is_char() || self.class.is_some_and(is_numeric_class);
        let t = self.shape.as_tuple().filter(|_| numeric)?;
        let zero = |d: &Dim| facts.ask(&shapex_dims::Constraint::eq(d, &Dim::zero()));
        if t.dims().iter().any(|d| zero(d).is_proven()) {
            return Some(false);
        }
        if let Some(text) = self.text.as_deref().filter(|_| self.is_char()) {
            return Some(!text.is_empty() && !text.contains('\0'));
        }
        // Every element is listed: false as soon as one is zero.
        let each: Vec<Option<bool>> = self
            .elems
            .as_ref()?
            .iter()
            .map(|d| nonzero(d, facts))
            .collect();
        match each.contains(&Some(false)) {
            true => Some(false),
            false => each
                .iter()
                .all(|e| *e == Some(true))
                .then_some(!each.is_empty()),
        }
    }

    /// Whether the value is an integer: known so (`integral`), or a value symbol that
    /// stands for one (`n - 1` of a count), which a join that drops the symbol keeps
    /// knowing, so a loop's counter stays an integer at its head.
    pub fn is_integer(&self) -> bool {
        self.integral || self.scalar.as_ref().is_some_and(|d| !maybe_real(d))
    }

    /// Least upper bound; `fresh(k)` names extent `k` where the two shapes differ.
    pub fn join(&self, other: &Value, fresh: &mut dyn FnMut(usize) -> Dim) -> Value {
        let same = |a: &Option<Dim>, b: &Option<Dim>| if a == b { a.clone() } else { None };
        if self.cleared || other.cleared {
            // Removed on one path only: defined or not, with any value.
            return if self.cleared && other.cleared {
                Value::cleared()
            } else {
                Value::unknown()
            };
        }
        Value {
            class: if self.class == other.class {
                self.class
            } else {
                None
            },
            shape: shape::join(&self.shape, &other.shape, fresh),
            scalar: same(&self.scalar, &other.scalar),
            elems: if self.elems == other.elems {
                self.elems.clone()
            } else {
                None
            },
            max: same(&self.max, &other.max),
            text: if self.text == other.text {
                self.text.clone()
            } else {
                None
            },
            number: if self.number == other.number {
                self.number
            } else {
                None
            },
            open_rank: self.open_rank || other.open_rank,
            trailing: same(&self.trailing, &other.trailing),
            origin: if self.origin == other.origin {
                self.origin
            } else {
                None
            },
            handle: if self.handle == other.handle {
                self.handle.clone()
            } else {
                None
            },
            closure: if self.closure == other.closure {
                self.closure.clone()
            } else {
                None
            },
            cleared: false,
            integral: self.is_integer() && other.is_integer(),
            finite: (self.finite || self.is_integer()) && (other.finite || other.is_integer()),
            parts: parts::join(&self.parts, &other.parts),
            guard: if self.guard == other.guard {
                self.guard.clone()
            } else {
                None
            },
            one: self.one && other.one,
            union: match (self.class, other.class) {
                (Some(a), Some(b)) if a == b => 0,
                _ => match (self.class_bits(), other.class_bits()) {
                    (0, _) | (_, 0) => 0,
                    (a, b) => a | b,
                },
            },
        }
    }
}

impl Value {
    /// The upper bounds `facts` prove for the value's extents (MATLAB Coder's `1×:10`),
    /// one per extent of its tuple, a known extent its own bound: what
    /// [`Facts::bounds`] finds, so only what the facts establish (`for k = 1:10`, a
    /// condition that held), never a guess. `None` when the rank is unknown, the facts
    /// contradict (no run gets there), or no symbolic extent has a bound.
    pub fn upper_bounds(&self, facts: &Facts) -> Option<Vec<Option<i64>>> {
        let t = self.shape.as_tuple()?;
        if facts.is_contradictory() {
            return None;
        }
        let mut bounded = false;
        let out = t
            .dims()
            .iter()
            .map(|d| match d.as_known() {
                Some(v) => Some(v),
                None if d.is_opaque() => None,
                None => {
                    let hi = facts.bounds(d).1.filter(|&c| c >= 0);
                    bounded |= hi.is_some();
                    hi
                }
            })
            .collect();
        bounded.then_some(out)
    }

    /// The value with every symbolic part forgotten: symbolic extents become `fresh(k)`,
    /// symbolic scalars and elements unknown; known parts are kept.
    pub fn forget_symbols(&self, fresh: &dyn Fn(usize) -> Dim) -> Value {
        let known = |d: &Option<Dim>| d.clone().filter(Dim::is_known);
        let shape = match self.shape.as_tuple() {
            Some(t) => Shape::tuple(
                t.dims()
                    .iter()
                    .enumerate()
                    .map(|(k, d)| if d.is_known() { d.clone() } else { fresh(k) })
                    .collect(),
            ),
            None => self.shape.clone(),
        };
        Value {
            shape,
            scalar: known(&self.scalar),
            elems: self.elems.clone().filter(|e| e.iter().all(Dim::is_known)),
            max: known(&self.max),
            // What it captured may hold the symbols forgotten, and so may a guard.
            closure: None,
            guard: None,
            parts: self
                .parts
                .as_ref()
                .map(|p| std::rc::Rc::new(parts::map(p, &parts::anonymous))),
            ..self.clone()
        }
    }
}

/// An anonymous function's lifted body and captured values (see [`Value::closure`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Closure {
    pub func: String,
    pub captured: Vec<Value>,
}

/// The fact at a program point: variables' values and the extent facts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Env {
    /// A persistent map: the framework keeps an environment per statement, and
    /// structural sharing makes each of those copies cost only what changed.
    pub vars: imbl::OrdMap<String, Value>,
    pub facts: Facts,
}

impl Env {
    /// The value of a defined variable (`None` when never assigned or removed).
    pub fn get(&self, var: &str) -> Option<&Value> {
        self.vars.get(var).filter(|v| !v.cleared)
    }

    /// Control-flow merge. A variable defined on one side only keeps its value (the
    /// Tamer's choice; reading it on the other path is a run-time error we don't model).
    pub fn join(&self, other: &Env, fresh: &dyn Fn(&str, usize) -> Dim) -> Env {
        self.join_dropping(other, fresh, &|_| false)
    }

    /// [`Env::join`], except that a variable `dead` says is never read after a merge
    /// where one path lacks it is dropped. Lowering temporaries are such: each is read
    /// after its assignment in the same block, never across a merge that one path
    /// reaches without assigning it. Keeping them made a `switch` of n cases quadratic:
    /// every level of its if-chain carried the temporaries of all the cases below.
    /// Dropping is sound whatever the program: a variable read but absent is unknown.
    pub fn join_dropping(
        &self,
        other: &Env,
        fresh: &dyn Fn(&str, usize) -> Dim,
        dead: &dyn Fn(&str) -> bool,
    ) -> Env {
        // Only variables whose values differ are re-inserted, so the joined map keeps
        // sharing structure with its inputs (a merge after an `if` that assigned two
        // variables costs two insertions, not a copy of the whole environment).
        // `diff` skips the subtrees both maps share, so the cost follows what the two
        // paths changed, not the size of the environment.
        let mut vars = self.vars.clone();
        for item in self.vars.diff(&other.vars) {
            match item {
                DiffItem::Update {
                    old: (name, mine),
                    new: (_, theirs),
                } => {
                    let joined = mine.join(theirs, &mut |k| fresh(name, k));
                    vars.insert(name.clone(), joined);
                }
                DiffItem::Add(name, _) | DiffItem::Remove(name, _) if dead(name) => {
                    vars.remove(name);
                }
                DiffItem::Add(name, theirs) => {
                    vars.insert(name.clone(), theirs.clone());
                }
                DiffItem::Remove(..) => {}
            }
        }
        Env {
            vars,
            facts: Facts::meet_of_branches(&self.facts, &other.facts),
        }
    }
}

/// What `joined`, the join of the two branches of `if cond` (`then_env` where it held,
/// `else_env` where it did not), may still know that a join of values alone loses:
///
/// - a scalar each branch knows the truth of (a guard, or a logical constant such as
///   `true()`/`false()`) is true after the merge exactly when the condition held and the
///   then-branch's guard holds, or it did not and the else-branch's does. This is how
///   `a && b` and `a || b`, which lower to ifs, keep their operands' guards
///   (`n <= 10 && m <= 5` is `n ≤ 10 ∧ m ≤ 5`). It needs the condition itself (`C`,
///   the guard of `cond`) to be proven on the then-branch and refuted on the else-branch,
///   so whatever `cond` holds now, each path's guard is paired with what that path took;
/// - an extent that differs between the branches, where both bound it, is at most the
///   larger bound (`zeros(1,3)` or `zeros(1,5)` is `1×:5`): each run takes one branch,
///   and the fresh symbol the join made stands for that branch's extent. Only while
///   the facts have room to spare, so these bounds never crowd out the facts a check
///   needs.
fn refine_branch_merge(mut joined: Env, cond: &str, then_env: &Env, else_env: &Env) -> Env {
    use shapex_dims::Constraint;
    // What a branch knows a logical scalar's truth by: its guard, or its value.
    let guard = |v: &Value, facts: &Facts| match &v.guard {
        Some(g) => Some((**g).clone()),
        None if v.shape == Shape::scalar() && v.class == Some("logical") => {
            v.truth(facts).map(|t| {
                if t {
                    Constraint::True
                } else {
                    Constraint::False
                }
            })
        }
        None => None,
    };
    let hi = |d: &Dim, facts: &Facts| match d.as_known() {
        Some(v) => Some(v),
        None if d.is_opaque() || facts.is_contradictory() => None,
        None => facts.bounds(d).1,
    };
    let room = joined.facts.room() > Facts::CAPACITY / 2;
    let mut guarded = Vec::new();
    let mut bounds = Vec::new();
    for (name, mine, theirs) in differing(then_env, else_env) {
        let Some(merged) = joined.vars.get(name) else {
            continue;
        };
        if merged.guard.is_none() && merged.shape == Shape::scalar() && !merged.cleared {
            if let (Some(g), Some(h)) =
                (guard(mine, &then_env.facts), guard(theirs, &else_env.facts))
            {
                guarded.push((name.clone(), g, h));
            }
        }
        let (Some(t), Some(u), Some(m), true) = (
            mine.shape.as_tuple(),
            theirs.shape.as_tuple(),
            merged.shape.as_tuple(),
            room,
        ) else {
            continue;
        };
        if t.rank() != m.rank() || u.rank() != m.rank() {
            continue;
        }
        for ((x, y), j) in t.dims().iter().zip(u.dims()).zip(m.dims()) {
            if j == x || j == y || j.is_known() {
                continue;
            }
            if let (Some(p), Some(q)) = (hi(x, &then_env.facts), hi(y, &else_env.facts)) {
                bounds.push(Constraint::le(j, &Dim::known(p.max(q).max(0))));
            }
        }
    }
    // The condition, proven where the then-branch ends and refuted where the other
    // does (asked only when some value needs it).
    let condition = if guarded.is_empty() {
        None
    } else {
        then_env
            .get(cond)
            .and_then(|v| v.guard.as_deref())
            .filter(|c| {
                then_env.facts.ask(c).is_proven() && else_env.facts.ask(&c.not()).is_proven()
            })
            .cloned()
    };
    if let Some(c) = condition {
        for (name, g, h) in guarded {
            if let Some(v) = joined.vars.get(&name) {
                let v = Value {
                    guard: Some(std::rc::Rc::new(merged_guard(&c, g, h))),
                    ..v.clone()
                };
                joined.vars.insert(name, v);
            }
        }
    }
    for c in bounds {
        if joined.facts.room() <= Facts::CAPACITY / 2 {
            break;
        }
        joined.facts.assume(&c);
    }
    joined
}

/// What `joined`, the join of two paths that meet after an `if` or a `try` (`a` and
/// `b`), knows of a scalar they give different integer values: one symbol (`merged`
/// mints it) lying between the smallest and the largest of them, under each path's
/// facts (`n` is 3 or 5: `3 ≤ n₂ ≤ 5`), so `zeros(1, n)` and `ones(n, 1)` share an
/// extent and `x(1:3)` of it is proven. Each run takes one path, and the symbol stands
/// for the value it gave. Only while the facts have room to spare, as for bounds of
/// extents ([`refine_branch_merge`]).
pub(super) fn merge_scalars(
    mut joined: Env,
    a: &Env,
    b: &Env,
    merged: &dyn Fn(&str) -> Dim,
) -> Env {
    use shapex_dims::Constraint;
    for (name, mine, theirs) in differing(a, b) {
        if joined.facts.room() <= Facts::CAPACITY / 2 {
            break;
        }
        let Some((lo, hi)) = merged_scalar(mine, a, theirs, b) else {
            continue;
        };
        let Some(v) = joined.vars.get(name) else {
            continue;
        };
        let symbol = merged(name);
        let v = Value {
            scalar: Some(symbol.clone()),
            ..v.clone()
        };
        joined.vars.insert(name.clone(), v);
        if let Some(lo) = lo {
            joined
                .facts
                .assume(&Constraint::le(&Dim::known(lo), &symbol));
        }
        if let Some(hi) = hi {
            joined
                .facts
                .assume(&Constraint::le(&symbol, &Dim::known(hi)));
        }
    }
    joined
}

/// What `joined`, the join at a loop's head of the state `before` it (or the head so
/// far) and the state coming `back` from the body, knows of a scalar they give different
/// integer values, such as a counter: one symbol (`counter` mints it, the same one each
/// time the analysis joins there) for the value it has each time the loop reaches its
/// head. It is minted at the head, so nothing before the loop mentions it, and the body
/// only relates it to what the body computes from it; the loop's test on it then holds
/// on the way out (`while n > 10, n = n - 1; end` leaves `n ≤ 10`).
pub(super) fn name_counters(
    mut joined: Env,
    before: &Env,
    back: &Env,
    counter: &dyn Fn(&str) -> Dim,
) -> Env {
    for (name, mine, theirs) in differing(before, back) {
        if plain_integer(mine).is_none() || plain_integer(theirs).is_none() {
            continue;
        }
        let Some(v) = joined.vars.get(name).filter(|v| v.scalar.is_none()) else {
            continue;
        };
        let v = Value {
            scalar: Some(counter(name)),
            ..v.clone()
        };
        joined.vars.insert(name.clone(), v);
    }
    joined
}

/// The value of an integer scalar (not a logical, not a test's result), when it is
/// one.
fn plain_integer(v: &Value) -> Option<&Dim> {
    v.scalar
        .as_ref()
        .filter(|d| v.shape == Shape::scalar() && !maybe_real(d) && !v.cleared)
        .filter(|_| v.class != Some("logical") && v.guard.is_none())
}

/// The variables both paths define with different values: each name with its value
/// on `a` and on `b` (`diff` skips the subtrees both maps share).
fn differing<'e>(
    a: &'e Env,
    b: &'e Env,
) -> impl Iterator<Item = (&'e String, &'e Value, &'e Value)> {
    a.vars.diff(&b.vars).filter_map(|item| match item {
        DiffItem::Update {
            old: (name, mine),
            new: (_, theirs),
        } => Some((name, mine, theirs)),
        _ => None,
    })
}

/// The bounds of a scalar that two paths give different integer values, each
/// bound under its own path's facts (a path whose facts contradict each other is never
/// taken, so adds none); `None` when the values are not such scalars.
fn merged_scalar(
    mine: &Value,
    then_env: &Env,
    theirs: &Value,
    else_env: &Env,
) -> Option<(Option<i64>, Option<i64>)> {
    let (a, b) = (plain_integer(mine)?, plain_integer(theirs)?);
    if a == b {
        return None;
    }
    let range = |d: &Dim, f: &Facts| match d.as_known() {
        Some(c) => Some((Some(c), Some(c))),
        None if f.is_contradictory() => None,
        None => Some(f.bounds(d)),
    };
    let sides = [range(a, &then_env.facts), range(b, &else_env.facts)];
    let sides: Vec<_> = sides.into_iter().flatten().collect();
    let lo = sides.iter().map(|s| s.0).collect::<Option<Vec<_>>>();
    let hi = sides.iter().map(|s| s.1).collect::<Option<Vec<_>>>();
    Some((
        lo.and_then(|l| l.into_iter().min()),
        hi.and_then(|h| h.into_iter().max()),
    ))
}

/// The guard of a value that is `then_guard` where `condition` held and `else_guard`
/// where it did not: `(C ∧ g) ∨ (¬C ∧ h)`, written without the constant branch when
/// one is `true` or `false` (`C ∧ g` for `a && b`, `C ∨ h` for `a || b`).
fn merged_guard(
    condition: &shapex_dims::Constraint,
    then_guard: shapex_dims::Constraint,
    else_guard: shapex_dims::Constraint,
) -> shapex_dims::Constraint {
    use shapex_dims::Constraint;
    let c = condition.clone();
    match (then_guard, else_guard) {
        (g, h) if g == h => g,
        (g, Constraint::False) => Constraint::and([c, g]),
        (Constraint::True, h) => Constraint::or([c, h]),
        (Constraint::False, h) => Constraint::and([c.not(), h]),
        (g, Constraint::True) => Constraint::or([c.not(), g]),
        (g, h) => Constraint::or([
            Constraint::and([c.clone(), g]),
            Constraint::and([c.not(), h]),
        ]),
    }
}

/// `input` with `guard` (or, when not `holds`, its negation) among its facts; unchanged
/// when the facts would contradict (the comparison would have folded to a constant
/// then, so this does not happen; no branch is pruned here).
fn assuming(input: &Env, guard: &shapex_dims::Constraint, holds: bool) -> Env {
    let c = if holds { guard.clone() } else { guard.not() };
    let mut env = input.clone();
    env.facts.assume(&c);
    if env.facts.is_contradictory() {
        return input.clone();
    }
    env
}

/// Makes `targets` unknown: what a statement whose results are not followed does.
fn bind_unknown(env: &mut Env, targets: &[String]) {
    for t in targets {
        env.vars.insert(t.clone(), Value::unknown());
    }
}

/// The value of `var` in `env`, unknown when it has none.
fn value_of(env: &Env, var: &str) -> Value {
    env.get(var).cloned().unwrap_or_else(Value::unknown)
}

/// Where a symbol was minted: its stem, the component it names, the statement (the
/// merge point, the call, the assignment) and the simulated loop iterations around it.
/// Input extents have no statement (`site: None`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct SymbolKey {
    stem: String,
    k: usize,
    site: Option<StmtId>,
    iterations: Vec<u32>,
    value: bool,
}

/// The unknowns the analysis introduces, as identities: one symbol per (stem,
/// component, statement, simulated iteration), each an entry of the run's
/// [`SymbolTable`] with its provenance (input extent, join, data-dependent, value of a
/// scalar variable). The same key always gives the same symbol, so loop fixed points
/// converge; different keys never share one, so two unrelated unknowns (two merges of
/// the same variable, one statement in two simulated iterations) are never equated
/// and a check is never proven by a coincidence of names. The names (`x_1`, `a~j1`,
/// `n#2`, `t@3`) are for display only: identity is the table entry.
#[derive(Debug, Default)]
pub struct Symbols {
    keys: RefCell<HashMap<SymbolKey, Dim>>,
    table: RefCell<SymbolTable>,
    counts: RefCell<HashMap<String, usize>>,
    /// The simulated iterations being analysed, outermost loop first (see `loops`).
    iterations: RefCell<Vec<u32>>,
    /// Every symbol minted, in order (the table's order): the symbols as they were at
    /// any earlier point are a prefix of it (see [`Symbols::restore`]).
    log: RefCell<Vec<Minted>>,
}

/// One symbol minted: its key, and the counter its name was numbered by (none for
/// input extents).
#[derive(Clone, Debug)]
pub struct Minted {
    key: SymbolKey,
    dim: Dim,
    counter: Option<String>,
}

/// What [`Symbols`] minted in one run, to put them back as they were at a point of it.
#[derive(Clone, Debug, Default)]
pub struct SymbolHistory {
    log: Vec<Minted>,
    table: SymbolTable,
}

/// Why the product of an open-rank input's trailing extents (stem `~r`) is a symbol;
/// `gloss` says which extents it multiplies.
pub(super) const TRAILING: &str = "its number of dimensions is unknown";
/// The `what` of a count `repmat` replicates by, read from a size vector of unknown
/// entries: not an extent of the result, which it multiplies.
pub(super) const REPLICATION: &str = "a replication count computed from data";

/// Why the value of a numeric scalar (stem `~x`) is a symbol that need not stand for an
/// integer: `h = x(1)/2` may be 2.5. It may be used as a size, with a run-time check
/// that it is an integer (MATLAB refuses a size or subscript that is not one, so where
/// the statement succeeds the value is one), but never where a non-integer is legal and
/// counts differently (`1:h` has floor(h) elements).
pub(super) const REAL: &str = "a number the program computes, not known to be an integer";

/// Why the value of a scalar after an `if` is a symbol: its branches give it different
/// values (`if c, n = 3; else, n = 5; end`), so each run has one of them.
pub(super) const MERGED: &str = "the branches that meet there give it different values";

/// Why the value of a scalar in a loop is a symbol: the loop changes it, so it has a
/// value each time the loop comes back to its head (see [`name_counters`]).
pub(super) const COUNTER: &str =
    "the loop changes it: its value each time the loop reaches its head";

/// Whether `d` mentions the value of a scalar that may not be an integer ([`REAL`]).
pub(super) fn maybe_real(d: &Dim) -> bool {
    d.leaves().iter().any(|a| match a {
        Atom::Sym(s) | Atom::Val(s) => {
            matches!(s.provenance(), Provenance::DataDependent { what, .. } if *what == REAL)
        }
        _ => false,
    })
}

/// Whether the value `d` is nonzero, when the facts decide it. A number that may not
/// be an integer ([`REAL`]) is decided only when known: the facts reason over integers.
fn nonzero(d: &Dim, facts: &Facts) -> Option<bool> {
    if let Some(c) = d.as_known() {
        return Some(c != 0);
    }
    if maybe_real(d) {
        return None;
    }
    match facts.ask(&shapex_dims::Constraint::eq(d, &Dim::zero())) {
        shapex_dims::Truth::Proven => Some(false),
        shapex_dims::Truth::Refuted => Some(true),
        shapex_dims::Truth::Unknown => None,
    }
}

/// The classes whose values are plain numbers (so `if v` tests its elements): the
/// floating-point, integer and logical classes.
fn is_numeric_class(c: &str) -> bool {
    matches!(c, "double" | "single" | "logical") || INTEGER_CLASSES.contains(&c)
}

/// Logical and integer classes hold only integers.
pub(super) fn is_integral_class(v: &Value) -> bool {
    v.class
        .is_some_and(|c| c == "logical" || c.starts_with("int") || c.starts_with("uint"))
}

/// Why an extent that differs between a rule's open cases (stem `~c`) is a symbol.
pub(super) const OPEN_CASE: &str = "the check there passes for more than one size";

/// What a stem says about the symbols minted under it: the calls name their stems
/// `{target}~{kind}` (see `Symbols::mint`), and a bare variable name stands for its
/// value.
fn provenance(stem: &str, k: usize, site: StmtId, iterations: &[u32], value: bool) -> Provenance {
    let site = Site {
        stmt: site.0,
        iterations: iterations.to_vec(),
    };
    let component = u32::try_from(k).unwrap_or(u32::MAX);
    let (target, kind) = match stem.split_once('~') {
        Some(parts) => parts,
        None if value => {
            return Provenance::ScalarValue {
                var: stem.to_string(),
                site,
            }
        }
        None => (stem, ""),
    };
    let what = match kind {
        "j" => {
            return Provenance::Join {
                var: target.to_string(),
                component,
                site,
            }
        }
        // In a student's words, as the reason a symbol is known only when its line
        // runs (`values::gloss`).
        "c" => OPEN_CASE,
        "o" => "too large, or not known to be nonnegative, to follow",
        "n" => "the number of elements a logical subscript selects",
        "r" => TRAILING,
        "f" => REPLICATION,
        "g" => "grown by assignment",
        "v" => "a value computed from data",
        "x" => REAL,
        "m" => MERGED,
        "h" => COUNTER,
        _ => "computed from data",
    };
    Provenance::DataDependent {
        target: target.to_string(),
        component,
        site,
        what,
    }
}

impl Symbols {
    /// The symbol for extent `k` (0-based) of the input array `var`: `x_1`, `x_2`, ….
    pub fn input_extent(&self, var: &str, k: usize) -> Dim {
        let key = SymbolKey {
            stem: var.to_string(),
            k,
            site: None,
            iterations: vec![],
            value: false,
        };
        if let Some(d) = self.keys.borrow().get(&key) {
            return d.clone();
        }
        let provenance = Provenance::InputExtent {
            var: var.to_string(),
            component: u32::try_from(k).unwrap_or(u32::MAX),
        };
        let s = self
            .table
            .borrow_mut()
            .mint(&format!("{var}_{}", k + 1), provenance);
        let d = Dim::extent_of(&s);
        self.remember(key, &d, None);
        d
    }

    /// The unknown value of the scalar input `var`, named `var` (as the paper names
    /// an input's value), the same symbol each time it is asked for.
    pub fn input_value(&self, var: &str) -> Dim {
        let key = SymbolKey {
            stem: var.to_string(),
            k: 0,
            site: None,
            iterations: vec![],
            value: true,
        };
        if let Some(d) = self.keys.borrow().get(&key) {
            return d.clone();
        }
        let provenance = Provenance::InputValue {
            var: var.to_string(),
        };
        // The bare name is this value's: the variable's later values are `var#2`, ….
        *self.counts.borrow_mut().entry(var.to_string()).or_insert(0) += 1;
        let s = self.table.borrow_mut().mint(var, provenance);
        let d = Dim::value_of(&s);
        self.remember(key, &d, Some(var.to_string()));
        d
    }

    fn remember(&self, key: SymbolKey, dim: &Dim, counter: Option<String>) {
        self.log.borrow_mut().push(Minted {
            key: key.clone(),
            dim: dim.clone(),
            counter,
        });
        self.keys.borrow_mut().insert(key, dim.clone());
    }

    /// How many symbols have been minted: a point to [`Symbols::restore`] to.
    pub fn mark(&self) -> usize {
        self.log.borrow().len()
    }

    /// Everything minted so far, in order.
    pub fn history(&self) -> SymbolHistory {
        SymbolHistory {
            log: self.log.borrow().clone(),
            table: self.table.borrow().clone(),
        }
    }

    /// Everything minted, taken out: the symbols are cleared.
    pub fn take_history(&self) -> SymbolHistory {
        let history = SymbolHistory {
            log: std::mem::take(&mut *self.log.borrow_mut()),
            table: std::mem::take(&mut *self.table.borrow_mut()),
        };
        self.clear();
        history
    }

    /// Whether the symbols minted from `from` to `to` (marks) are those `history`'s run
    /// minted there: the same keys, counters and symbols (equal records: name, table id
    /// and provenance).
    pub fn same_as(&self, history: &SymbolHistory, from: usize, to: usize) -> bool {
        let log = self.log.borrow();
        match (log.get(from..to), history.log.get(from..to)) {
            (Some(mine), Some(theirs)) => mine
                .iter()
                .zip(theirs)
                .all(|(m, t)| m.key == t.key && m.counter == t.counter && m.dim == t.dim),
            _ => false,
        }
    }

    /// The symbols exactly as they were when `history`'s run stood at `mark`: the same
    /// records (so values saved then still name them), the same table ids and the same
    /// counters, so what is minted next is numbered as in that run. Outside any
    /// simulated iteration.
    pub fn restore(&self, history: &SymbolHistory, mark: usize) {
        self.clear();
        let minted = &history.log[..mark.min(history.log.len())];
        let mut counts = self.counts.borrow_mut();
        let mut keys = self.keys.borrow_mut();
        for m in minted {
            if let Some(c) = &m.counter {
                *counts.entry(c.clone()).or_insert(0) += 1;
            }
            keys.insert(m.key.clone(), m.dim.clone());
        }
        let mut table = history.table.clone();
        table.truncate(minted.len());
        *self.table.borrow_mut() = table;
        *self.log.borrow_mut() = minted.to_vec();
    }

    /// The symbol displayed as `name` and where it came from (for a reader's hover:
    /// `n#2`: "value of n defined at statement 4").
    pub fn describe(&self, name: &str) -> Option<Symbol> {
        self.table.borrow().find(name).cloned()
    }

    /// Every symbol minted so far, with its provenance.
    pub fn table(&self) -> SymbolTable {
        self.table.borrow().clone()
    }

    /// The symbol for component `k` of what `site` introduces under `stem`: an extent
    /// (nonnegative) or, with `value`, a program value of unknown sign. Stems ending in
    /// `~x` are numbered (`a~j1`, `a~j2`); a bare variable name reads as itself the
    /// first time (`n`, as the paper writes m′) and `n#2`, `n#3` after; inside a
    /// simulated iteration the name says which (`t@3`).
    pub fn mint(&self, stem: &str, k: usize, site: StmtId, value: bool) -> Dim {
        let key = SymbolKey {
            stem: stem.to_string(),
            k,
            site: Some(site),
            iterations: self.iterations.borrow().clone(),
            value,
        };
        if let Some(d) = self.keys.borrow().get(&key) {
            return d.clone();
        }
        // Symbols of a simulated iteration say which (`t@3`: t in iteration 3).
        let at = if key.iterations.is_empty() {
            String::new()
        } else {
            let path: Vec<String> = key.iterations.iter().map(u32::to_string).collect();
            format!("@{}", path.join("."))
        };
        let counter = format!("{stem}{at}");
        let mut counts = self.counts.borrow_mut();
        let n = counts.entry(counter.clone()).or_insert(0);
        *n += 1;
        let name = if stem.contains('~') {
            format!("{stem}{n}{at}")
        } else if *n == 1 {
            format!("{stem}{at}")
        } else {
            format!("{stem}#{n}{at}")
        };
        let origin = provenance(stem, k, site, &key.iterations, value);
        let s = self.table.borrow_mut().mint(&name, origin);
        let d = if value {
            Dim::value_of(&s)
        } else {
            Dim::extent_of(&s)
        };
        drop(counts);
        self.remember(key, &d, Some(counter));
        d
    }

    /// Forgets every symbol: the next function analysed names its own from scratch, so
    /// its results do not depend on the functions analysed before it.
    pub fn clear(&self) {
        self.keys.borrow_mut().clear();
        *self.table.borrow_mut() = SymbolTable::default();
        self.counts.borrow_mut().clear();
        self.iterations.borrow_mut().clear();
        self.log.borrow_mut().clear();
    }

    /// The simulated iterations being analysed, outermost first.
    pub fn iteration_path(&self) -> Vec<u32> {
        self.iterations.borrow().clone()
    }

    /// Runs `f` inside simulated iteration `j` of a loop: what it mints is fresh.
    pub fn in_iteration<T>(&self, j: u32, f: impl FnOnce() -> T) -> T {
        self.iterations.borrow_mut().push(j);
        let out = f();
        self.iterations.borrow_mut().pop();
        out
    }
}

#[cfg(test)]
mod symbol_tests {
    use super::*;

    fn provenance_of(symbols: &Symbols, d: &Dim) -> Provenance {
        let atom = d.as_atom().and_then(|a| a.symbol()).cloned();
        let shown = symbols
            .describe(&d.to_string())
            .map(|s| s.provenance().clone());
        assert_eq!(atom.as_ref().map(|s| s.provenance().clone()), shown);
        shown.unwrap_or(Provenance::User)
    }

    #[test]
    fn minted_symbols_keep_their_names_and_say_where_they_came_from() {
        let symbols = Symbols::default();
        let site = |stmt| Site {
            stmt,
            iterations: vec![],
        };
        let x1 = symbols.input_extent("x", 0);
        assert_eq!(x1.to_string(), "x_1");
        assert_eq!(x1, symbols.input_extent("x", 0));
        assert_eq!(
            provenance_of(&symbols, &x1),
            Provenance::InputExtent {
                var: "x".into(),
                component: 0
            }
        );
        // A user's symbol of the same name is another symbol.
        assert_ne!(x1, Dim::sym("x_1"));

        let j = symbols.mint("a~j", 1, StmtId(7), false);
        assert_eq!(j.to_string(), "a~j1");
        assert_eq!(j, symbols.mint("a~j", 1, StmtId(7), false));
        assert_eq!(
            provenance_of(&symbols, &j),
            Provenance::Join {
                var: "a".into(),
                component: 1,
                site: site(7)
            }
        );

        let n = symbols.mint("n", 0, StmtId(4), true);
        let n2 = symbols.mint("n", 0, StmtId(5), true);
        assert_eq!([n.to_string(), n2.to_string()], ["n", "n#2"]);
        assert_ne!(n, n2);
        let described = symbols.describe("n#2").map(|s| s.provenance().to_string());
        assert_eq!(
            described.as_deref(),
            Some("value of n defined at statement 5")
        );

        let c = symbols.mint("t~c", 0, StmtId(9), false);
        assert!(matches!(
            provenance_of(&symbols, &c),
            Provenance::DataDependent { target, component: 0, .. } if target == "t"
        ));
        let t3 = symbols.in_iteration(3, || symbols.mint("t", 0, StmtId(9), true));
        assert_eq!(t3.to_string(), "t@3");
        assert_eq!(
            provenance_of(&symbols, &t3),
            Provenance::ScalarValue {
                var: "t".into(),
                site: Site {
                    stmt: 9,
                    iterations: vec![3]
                }
            }
        );
        assert_eq!(symbols.table().len(), 6);
    }
}
