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

pub use results::{analyze_program, FunctionResult, ProgramResult, StmtResult};
pub use summary::fill_report;

use crate::dims::{Dim, Facts};
use crate::shape::{self, Shape};
use imbl::ordmap::DiffItem;

/// A MATLAB class name (`double`, `logical`, `char`, `cell`, `struct`,
/// `function_handle`, …); `None` when unknown or mixed.
pub type Class = Option<&'static str>;

/// The abstract value of one variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    pub class: Class,
    pub shape: Shape,
    /// The value of an integer scalar, exactly or symbolically.
    pub scalar: Option<Dim>,
    /// The elements of a short numeric vector whose elements are all known (size
    /// vectors such as `[2 3]` or the result of `size(x)`).
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
    pub fn join(&self, other: &Env) -> Env {
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
                    let joined = mine.join(theirs, &mut |k| widened_extent(name, k));
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

/// The symbol for extent `k` (0-based) of `var` where paths with different extents meet.
/// The same name at every merge of `var` makes loop fixed points converge.
pub fn widened_extent(var: &str, k: usize) -> Dim {
    // `ᵏ`-style suffix kept ASCII: `a~j1` reads "a's extent 1 where paths join".
    Dim::sym(&format!("{var}~j{}", k + 1))
}

/// The symbol for extent `k` (0-based) of an input array `var`: `x_1`, `x_2`, ….
pub fn input_extent(var: &str, k: usize) -> Dim {
    Dim::sym(&format!("{var}_{}", k + 1))
}
