//! What the migration questions ([`crate::migration`]) are asked of: a program whose
//! *declarations* a migration refines — `forward`'s parameters of a PyTorch model, or
//! the `x : τ` declarations of the paper's core calculus. The questions, the lattice
//! and the JSON answers only go through this trait, so both syntaxes get all three
//! questions from one implementation.

use crate::gen::Gen;
use crate::types::TensorType;
use shapex_text::{Diagnostic, Fix, Span};
use std::collections::BTreeMap;

/// How the gradual checker takes a candidate migration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recheck {
    /// It finds an error.
    IllTyped,
    /// It accepts, and follows every value.
    Follows,
    /// It accepts, but from the span on (or only for the result: `None`) it meets a
    /// value it cannot follow, so the run may still fail.
    LosesTrack(Option<Span>),
}

/// A program the questions are asked of.
pub trait Subject {
    /// The declarations as annotated, in order.
    fn declarations(&self) -> &[(String, TensorType)];
    /// Each declaration's name span and annotation span (for writing a migration back).
    fn declaration_spans(&self) -> &[(Span, Option<Span>)];
    /// What the declarations are, in a sentence (`forward's parameters`).
    fn declared(&self) -> &'static str;
    /// The line the answers are attached to (`def forward…`, the first declaration).
    fn header(&self) -> Span;
    /// The gradual checker's errors with the declarations as annotated.
    fn errors(&self) -> Vec<Diagnostic>;
    /// Gen over declarations of these types (a skeleton: unknowns made by `gen`).
    fn generate(&self, types: Vec<TensorType>, gen: Gen) -> Gen;
    /// The gradual checker with declarations of these (static) types.
    fn recheck(&self, types: Vec<TensorType>) -> Recheck;
    /// The gradual checker's diagnostics, in the order it found them, with
    /// declarations of these types (a witness's re-check).
    fn diagnostics_under(&self, types: Vec<TensorType>) -> Vec<Diagnostic>;
    /// A line of the program's language that runs it on inputs of these static types
    /// (a witness's repro), where the language runs at all.
    fn call(&self, types: &[TensorType]) -> Option<String>;
    /// Whether the language runs at all: the core calculus does not, so its repro
    /// writes the sizes into the declarations and its checker shows the failure.
    fn runs(&self) -> bool;
    /// Every named value's type, in source order, with declarations of these types
    /// (what a lattice node shows when picked).
    fn types_under(&self, types: Vec<TensorType>) -> Vec<(String, TensorType)>;
    /// What the JSON answers say of the program itself.
    fn summary(&self) -> Summary;
}

/// The program's own facts in the JSON answers (issue #21 item 10).
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub model: Option<String>,
    pub class: Option<String>,
    /// The type of the result (`forward`'s, the `return`'s).
    pub output: Option<TensorType>,
    /// Every named value's type.
    pub types: BTreeMap<String, TensorType>,
    /// Each `if`'s test span, by the `if`'s span.
    pub tests: BTreeMap<(usize, usize), Span>,
}

/// Rewrites the declarations' annotations to `types`, in order (one edit, one undo):
/// a migration written back, or a witness's sizes in a language that does not run.
pub fn annotation_fix(
    source: &str,
    subject: &dyn Subject,
    types: &[TensorType],
    title: String,
) -> Option<Fix> {
    let spans = subject.declaration_spans();
    let start = spans.first()?.0.start;
    let end = spans
        .iter()
        .map(|(n, a)| a.map_or(n.end, |a| a.end))
        .max()?;
    let mut text = String::new();
    let mut at = start;
    for ((name, ann), t) in spans.iter().zip(types) {
        match ann {
            Some(a) => {
                text.push_str(source.get(at..a.start)?);
                at = a.end;
            }
            None => {
                text.push_str(source.get(at..name.end)?);
                text.push_str(": ");
                at = name.end;
            }
        }
        text.push_str(&t.to_string());
    }
    text.push_str(source.get(at..end)?);
    Some(Fix::new(title, Span::new(start, end), text))
}
