//! The values `__init__` computes with: Python's constants, lists (shared, since
//! `layers.append(…)` then `nn.Sequential(*layers)` must see one list), modules
//! (layers of `torch.nn` and instances of the file's own classes) in a heap, and
//! `Unknown` for anything the evaluator cannot know, which never turns into a shape.

use super::layers::Layer;
use serde::Serialize;
use shapex_text::Span;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// A module in the heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ModuleId(pub usize);

#[derive(Clone, Debug)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Tuple(Vec<Value>),
    List(Rc<RefCell<Vec<Value>>>),
    Module(ModuleId),
    /// One of the file's classes (passed as `block` to `_make_layer`).
    Class(String),
    /// One of the file's functions, or a method bound to an instance.
    Function {
        name: String,
        class: Option<String>,
        this: Option<ModuleId>,
    },
    /// A name from a library (`nn.Conv2d`, `torch.flatten`, `range`), as a dotted path.
    Library(String),
    /// `super()`: methods of the class after `class` in `this`'s class chain.
    Super {
        class: String,
        this: ModuleId,
    },
    /// A tensor made while building (`nn.Parameter(torch.randn(1, n, d))`, a buffer):
    /// its sizes, each known or not.
    Tensor(Vec<Option<i64>>),
    /// Not known while building (the reason, for a "not supported" note).
    Unknown(String),
}

impl Value {
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(RefCell::new(items)))
    }

    /// The items of a tuple or list, if it is one.
    pub fn items(&self) -> Option<Vec<Value>> {
        match self {
            Value::Tuple(v) => Some(v.clone()),
            Value::List(l) => Some(l.borrow().clone()),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            Value::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }

    /// Python's truth value, when known.
    pub fn truth(&self) -> Option<bool> {
        Some(match self {
            Value::None => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::Tuple(v) => !v.is_empty(),
            Value::List(l) => !l.borrow().is_empty(),
            Value::Module(_)
            | Value::Class(_)
            | Value::Function { .. }
            | Value::Library(_)
            | Value::Tensor(_) => true,
            Value::Super { .. } | Value::Unknown(_) => return None,
        })
    }

    pub fn is_unknown(&self) -> bool {
        matches!(self, Value::Unknown(_))
    }
}

/// A module: a `torch.nn` layer, or an instance of one of the file's classes with the
/// attributes its `__init__` set (submodules, constants, lists of modules).
#[derive(Clone, Debug)]
pub struct Module {
    pub kind: ModuleKind,
    pub attrs: BTreeMap<String, Value>,
    /// Where it was built.
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ModuleKind {
    Layer(Layer),
    Instance { class: String },
}

/// Every module built, by id.
#[derive(Clone, Debug, Default)]
pub struct Heap {
    pub modules: Vec<Module>,
}

impl Heap {
    pub fn add(&mut self, m: Module) -> ModuleId {
        self.modules.push(m);
        ModuleId(self.modules.len() - 1)
    }

    pub fn get(&self, id: ModuleId) -> &Module {
        &self.modules[id.0]
    }

    pub fn get_mut(&mut self, id: ModuleId) -> &mut Module {
        &mut self.modules[id.0]
    }
}

/// The (key, value) pairs of a dict value (kept as `("__dict__", [(k, v), …])`).
pub fn dict_pairs(v: &Value) -> Option<Vec<(Value, Value)>> {
    let parts = match v {
        Value::Tuple(p) => p,
        _ => return None,
    };
    match parts.as_slice() {
        [Value::Str(tag), pairs] if tag == "__dict__" => pairs
            .items()?
            .into_iter()
            .map(|p| match p.items().as_deref() {
                Some([k, v]) => Some((k.clone(), v.clone())),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}
