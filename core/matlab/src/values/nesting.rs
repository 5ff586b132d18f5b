//! What nested functions may change of the workspace they share (MATLAB's "Sharing
//! Variables Between Parent and Nested Functions").
//!
//! A nested function shares the workspace of the functions that enclose it, so while
//! one of them runs, any call may run nested code of its tree (directly, through a
//! handle given to another function, or from a sibling) and change its variables. What
//! it may change is read from the tree's nested functions alone: the names they assign
//! (with their inputs and outputs, whatever MATLAB makes of a clash), or anything at
//! all when one of them runs code that writes into its workspace by name (`eval`,
//! `assignin`, `load`, a script, a function of the file that writes into its caller).
//!
//! Everything here follows from the IR alone, so a function's result depends on it
//! only through [`SharedWrites`], which its memo key holds.

use crate::builtins::BuiltinTable;
use crate::tame::{Function, FunctionKind, Literal, Stmt, StmtKind};
use std::collections::{BTreeSet, HashMap};

/// Builtins that may create, change or clear any variable of the workspace they run
/// in, whether called by name, through a handle (`h = @assignin`) or by a function
/// that applies a handle (`cellfun(@eval, …)`).
pub(crate) fn mutates_workspace(func: &str) -> bool {
    matches!(
        func,
        "load" | "eval" | "evalin" | "evalc" | "assignin" | "clear" | "clearvars" | "syms" | "run"
    )
}

/// What the nested functions of one tree may change of the workspace they share.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SharedWrites {
    /// Any variable.
    Any,
    /// Only these (sorted).
    Names(BTreeSet<String>),
}

impl SharedWrites {
    pub fn may_change(&self, name: &str) -> bool {
        match self {
            SharedWrites::Any => true,
            SharedWrites::Names(names) => names.contains(name),
        }
    }

    fn add(&mut self, other: SharedWrites) {
        match (&mut *self, other) {
            (SharedWrites::Any, _) => {}
            (_, SharedWrites::Any) => *self = SharedWrites::Any,
            (SharedWrites::Names(a), SharedWrites::Names(b)) => a.extend(b),
        }
    }

    /// The memo key's spelling.
    pub fn key(&self) -> String {
        match self {
            SharedWrites::Any => "*".into(),
            SharedWrites::Names(names) => names.iter().cloned().collect::<Vec<_>>().join(","),
        }
    }
}

/// Per function of the program that is in a tree of nested functions (a nested one, or
/// an outermost function enclosing some), what the tree's nested functions may change.
/// Keyed by name: functions of one name (files of a class folder) share an entry, the
/// union of their trees', which only forgets more.
#[derive(Default)]
pub struct Nesting {
    of: HashMap<String, SharedWrites>,
}

/// The outermost function enclosing nested function `name` (itself for any other).
fn root<'f>(parent: &HashMap<&'f str, &'f str>, mut name: &'f str) -> &'f str {
    // Bounded by the number of functions, so a malformed cycle ends.
    for _ in 0..=parent.len() {
        match parent.get(name) {
            Some(p) => name = p,
            None => break,
        }
    }
    name
}

impl Nesting {
    pub fn of(
        functions: &[Function],
        builtins: &BuiltinTable,
        reaches_caller: &[String],
    ) -> Nesting {
        let parent: HashMap<&str, &str> = functions
            .iter()
            .filter(|f| f.kind == FunctionKind::Nested)
            .filter_map(|f| Some((f.name.as_str(), f.parent.as_deref()?)))
            .collect();
        let user: BTreeSet<&str> = functions.iter().map(|f| f.name.as_str()).collect();
        let wild = |func: &str| mutates_workspace(func) || reaches_caller.iter().any(|r| r == func);
        let mut trees: HashMap<&str, SharedWrites> = HashMap::new();
        for f in functions.iter().filter(|f| f.kind == FunctionKind::Nested) {
            let writes = writes_of(f, &|func, script_like| {
                wild(func)
                    || (script_like && !user.contains(func) && builtins.lookup(func).is_none())
            });
            trees
                .entry(root(&parent, &f.name))
                .or_insert_with(|| SharedWrites::Names(BTreeSet::new()))
                .add(writes);
        }
        let of = functions
            .iter()
            .filter_map(|f| Some((f.name.clone(), trees.get(root(&parent, &f.name))?.clone())))
            .collect();
        Nesting { of }
    }

    /// What the nested functions sharing `function`'s workspace may change of it;
    /// `None` when no nested function shares it.
    pub fn shared_writes(&self, function: &str) -> Option<&SharedWrites> {
        self.of.get(function)
    }
}

/// What nested function `f` may change of the workspace it shares: its inputs,
/// outputs and every name it assigns, or anything when a statement calls a function
/// `wild` names (`script_like`: a call without arguments or outputs, which may run a
/// script) or names one as a handle or a text (`@eval`, `feval('assignin', …)`).
fn writes_of(f: &Function, wild: &dyn Fn(&str, bool) -> bool) -> SharedWrites {
    fn walk(
        stmts: &[Stmt],
        names: &mut BTreeSet<String>,
        wild: &dyn Fn(&str, bool) -> bool,
    ) -> bool {
        stmts.iter().any(|s| {
            let named_wild = match &s.kind {
                StmtKind::Call {
                    func,
                    args,
                    targets,
                } => wild(func, args.is_empty() && targets.is_empty()),
                // A handle or an anonymous function made here may be called here: an
                // anonymous function's body that writes into its caller writes here.
                StmtKind::FuncHandle { func, .. } | StmtKind::Lambda { func, .. } => {
                    wild(func, false)
                }
                StmtKind::AssignLiteral {
                    value: Literal::Str { value, .. },
                    ..
                } => wild(value, false),
                _ => false,
            };
            names.extend(s.defs().into_iter().cloned());
            named_wild || s.children().into_iter().any(|c| walk(c, names, wild))
        })
    }
    let mut names: BTreeSet<String> = f.params.iter().chain(&f.outputs).cloned().collect();
    if walk(&f.body, &mut names, wild) {
        SharedWrites::Any
    } else {
        SharedWrites::Names(names)
    }
}
