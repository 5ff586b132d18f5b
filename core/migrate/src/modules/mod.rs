//! What a model is made of: the file's top-level code and the chosen model's
//! `__init__` run by a small interpreter (`eval`), giving a tree of modules — `torch.nn`
//! layers with their constant parameters (`layers`) and instances of the file's own
//! classes — that `forward` is then checked against.

pub mod eval;
pub mod layers;
pub mod value;

#[cfg(test)]
pub(crate) mod tests;

use eval::Eval;
use shapex_migrate_syntax::python::ast::{Module, ParamKind, StmtKind};
use value::{ModuleId, ModuleKind, Value};

/// The built model: the interpreter's state (classes, helper functions, every module
/// built) and which module is the model, with the name it is known by.
pub struct Built<'a> {
    pub eval: Eval<'a>,
    pub model: Option<(String, ModuleId)>,
}

/// Runs the file's top-level code and builds the model: the one named `choice` (a
/// module-level variable or a class), else the last module-level instance of one of
/// the file's classes (`model = resnet50()`), else the last class whose `__init__`
/// needs no arguments.
pub fn build<'a>(module: &'a Module, choice: Option<&str>) -> Built<'a> {
    let mut eval = Eval::new();
    eval.run_module(&module.body);
    let by_name = |eval: &Eval, name: &str| {
        eval.instances
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(n, id)| (n.clone(), *id))
    };
    let model = match choice {
        Some(name) => by_name(&eval, name).or_else(|| {
            if no_arguments(&eval, name) {
                return instantiate(&mut eval, name);
            }
            let why = if eval.classes.contains_key(name) {
                format!("the class `{name}` needs arguments to be built (or has no `forward`): build it at module level (`model = {name}(…)`) and name that variable")
            } else {
                format!("the file has no module-level variable or class named `{name}`")
            };
            eval.notes.push(shapex_text::Diagnostic::new(
                shapex_text::Severity::Info,
                "mig.model",
                why,
                shapex_text::Span::new(0, 0),
            ));
            None
        }),
        None => eval
            .instances
            .last()
            .map(|(n, id)| (n.clone(), *id))
            .or_else(|| {
                let class = module.body.iter().rev().find_map(|s| match &s.kind {
                    StmtKind::ClassDef { name, .. } if no_arguments(&eval, &name.name) => {
                        Some(name.name.clone())
                    }
                    _ => None,
                })?;
                instantiate(&mut eval, &class)
            }),
    };
    // A build cut short by its budget may miss layers: checking it could report errors
    // the real model does not have, so there is no model then.
    let model = if eval.budget_spent() { None } else { model };
    Built { eval, model }
}

fn instantiate(eval: &mut Eval, class: &str) -> Option<(String, ModuleId)> {
    if !eval.classes.contains_key(class) {
        return None;
    }
    let span = eval.classes[class].span;
    match eval.call(&Value::Class(class.to_string()), Default::default(), span) {
        Value::Module(id) => Some((class.to_string(), id)),
        _ => None,
    }
}

/// Whether `class` has a `forward` and can be built with no arguments.
fn no_arguments(eval: &Eval, class: &str) -> bool {
    if eval.method(class, "forward", None).is_none() {
        return false;
    }
    match eval.method(class, "__init__", None) {
        None => true,
        Some((_, init)) => match &init.kind {
            StmtKind::FunctionDef { params, .. } => params
                .iter()
                .skip(1)
                .all(|p| p.default.is_some() || p.kind != ParamKind::Normal),
            _ => false,
        },
    }
}

impl Built<'_> {
    /// The class of the model (or the layer's name for a bare layer).
    pub fn model_class(&self) -> Option<String> {
        let (_, id) = self.model.as_ref()?;
        Some(match &self.eval.heap.get(*id).kind {
            ModuleKind::Instance { class } => class.clone(),
            ModuleKind::Layer(l) => format!("{l:?}"),
        })
    }
}
