//! The value analysis (Dubrau 2012 ch. 6, with Joisha et al.'s shapes as the matrix
//! abstraction): a forward [`flow`](crate::flow) analysis over the Tame IR whose fact
//! maps each variable to a [`Value`] — class, shape tuple, and, for integer scalars, a
//! symbolic value (so `zeros(n, m)` has shape `<max(n,0),max(m,0)>`) — together with the
//! [`Facts`] established by the statements that succeeded so far.
//!
//! Every builtin call is evaluated from the builtin table's rule (see [`eval`]); operators
//! reach the Joisha rules through it. A definite shape error makes the code after it
//! nonviable, as the thesis's error builtins do.

mod eval;
mod loops;
mod results;
mod summary;
mod transfer;

#[cfg(test)]
mod tests;

pub use results::{analyze_program, FunctionResult, ProgramResult, StmtResult};
pub use summary::fill_report;

use crate::dims::{Dim, Facts};
use crate::shape::{self, Shape};
use crate::tame::StmtId;
use imbl::ordmap::DiffItem;
use std::cell::RefCell;
use std::collections::HashMap;

/// A MATLAB class name (`double`, `logical`, `char`, `cell`, `struct`,
/// `function_handle`, …); `None` when unknown or mixed.
pub type Class = Option<&'static str>;

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
    /// For a function handle, the function it calls when that is known (`@sin`,
    /// `str2func('sin')`), so a call through it is evaluated as a call to that function.
    pub handle: Option<String>,
    /// The source statement that gave the variable this value (`x = ones(3,2)`): the
    /// evidence a definite error cites for its operands.
    pub origin: Option<crate::span::Span>,
}

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
            handle: None,
            origin: None,
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

    pub fn is_char(&self) -> bool {
        self.class == Some("char")
    }

    /// Least upper bound; `fresh(k)` names extent `k` where the two shapes differ.
    pub fn join(&self, other: &Value, fresh: &mut dyn FnMut(usize) -> Dim) -> Value {
        let same = |a: &Option<Dim>, b: &Option<Dim>| if a == b { a.clone() } else { None };
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
        }
    }
}

impl Value {
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
            ..self.clone()
        }
    }
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
    pub fn get(&self, var: &str) -> Option<&Value> {
        self.vars.get(var)
    }

    /// Control-flow merge. A variable defined on one side only keeps its value (the
    /// Tamer's choice; reading it on the other path is a run-time error we don't model).
    pub fn join(&self, other: &Env, fresh: &dyn Fn(&str, usize) -> Dim) -> Env {
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

/// The symbol for extent `k` (0-based) of an input array `var`: `x_1`, `x_2`, ….
pub fn input_extent(var: &str, k: usize) -> Dim {
    Dim::sym(&format!("{var}_{}", k + 1))
}

/// Where a symbol was minted: its stem, the component it names, the statement (the
/// merge point, the call, the assignment) and the simulated loop iterations around it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct SymbolKey {
    stem: String,
    k: usize,
    site: StmtId,
    iterations: Vec<u32>,
    value: bool,
}

/// The unknowns the analysis introduces, as identities: one symbol per (stem,
/// component, statement, simulated iteration). The same key always gives the same
/// symbol, so loop fixed points converge; different keys never share one, so two
/// unrelated unknowns (two merges of the same variable, one statement in two simulated
/// iterations) are never equated and a check is never proven by a coincidence of names.
#[derive(Debug, Default)]
pub struct Symbols {
    table: RefCell<HashMap<SymbolKey, Dim>>,
    counts: RefCell<HashMap<String, usize>>,
    /// The simulated iterations being analysed, outermost loop first (see `loops`).
    iterations: RefCell<Vec<u32>>,
}

impl Symbols {
    /// The symbol for component `k` of what `site` introduces under `stem`: an extent
    /// (nonnegative) or, with `value`, a program value of unknown sign. Stems ending in
    /// `~x` are numbered (`a~j1`, `a~j2`); a bare variable name reads as itself the
    /// first time (`n`, as the paper writes m′) and `n#2`, `n#3` after; inside a
    /// simulated iteration the name says which (`t@3`).
    pub fn mint(&self, stem: &str, k: usize, site: StmtId, value: bool) -> Dim {
        let key = SymbolKey {
            stem: stem.to_string(),
            k,
            site,
            iterations: self.iterations.borrow().clone(),
            value,
        };
        if let Some(d) = self.table.borrow().get(&key) {
            return d.clone();
        }
        // Symbols of a simulated iteration say which (`t@3`: t in iteration 3).
        let at = if key.iterations.is_empty() {
            String::new()
        } else {
            let path: Vec<String> = key.iterations.iter().map(u32::to_string).collect();
            format!("@{}", path.join("."))
        };
        let mut counts = self.counts.borrow_mut();
        let n = counts.entry(format!("{stem}{at}")).or_insert(0);
        *n += 1;
        let name = if stem.contains('~') {
            format!("{stem}{n}{at}")
        } else if *n == 1 {
            format!("{stem}{at}")
        } else {
            format!("{stem}#{n}{at}")
        };
        let d = if value {
            Dim::val(&name)
        } else {
            Dim::sym(&name)
        };
        self.table.borrow_mut().insert(key, d.clone());
        d
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
