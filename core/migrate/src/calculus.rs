//! The paper's core calculus (`decl* return e`, Migeed et al. 2024 Figure 1) as a
//! [`Subject`] of the migration questions: its declarations `x : τ` are what a
//! migration refines, and Gen is the calculus's own checker ([`crate::check`]) run
//! over a skeleton, with the calculus's rules — t-reshape-g's divisibility either way,
//! not PyTorch's one-directional `-1` (spec 004 §1.5).

use crate::check::{check_with, Checked};
use crate::gen::Gen;
use crate::subject::{Recheck, Subject, Summary};
use crate::types::TensorType;
use shapex_migrate_syntax::ast::{Item, Program};
use shapex_text::{Diagnostic, Severity, Span};

pub struct Calculus<'a> {
    program: &'a Program,
    checked: &'a Checked,
    declarations: Vec<(String, TensorType)>,
    spans: Vec<(Span, Option<Span>)>,
    header: Span,
}

impl<'a> Calculus<'a> {
    /// `checked` is `program` checked as written; `source` its text.
    pub fn new(source: &str, program: &'a Program, checked: &'a Checked) -> Calculus<'a> {
        let first = checked.decls.iter().find(|d| !d.duplicate);
        let (declarations, spans) = program
            .decls()
            .zip(&checked.decls)
            .filter(|(_, d)| !d.duplicate)
            .map(|(a, d)| {
                (
                    (d.name.clone(), d.ty.clone()),
                    (a.name.span, Some(a.ty.span)),
                )
            })
            .unzip();
        let start = first.map_or(0, |d| d.span.start);
        let rest = source.get(start..).unwrap_or("");
        Calculus {
            program,
            checked,
            declarations,
            spans,
            header: Span::new(start, start + rest.find('\n').unwrap_or(rest.len())),
        }
    }

    /// The type of the (first) `return` in `checked`, if it is well typed.
    fn result(&self, checked: &Checked) -> Option<TensorType> {
        let items = self.program.items.iter();
        let k = items.take_while(|i| !matches!(i, Item::Return(_))).count();
        checked.result(k).and_then(|n| n.ty.clone())
    }

    fn run(&self, types: &[TensorType], gen: &mut Gen) -> Checked {
        check_with(self.program, Some(types), gen)
    }
}

impl Subject for Calculus<'_> {
    fn declarations(&self) -> &[(String, TensorType)] {
        &self.declarations
    }

    fn declaration_spans(&self) -> &[(Span, Option<Span>)] {
        &self.spans
    }

    fn declared(&self) -> &'static str {
        "the declarations"
    }

    fn header(&self) -> Span {
        self.header
    }

    fn errors(&self) -> Vec<Diagnostic> {
        self.checked.diagnostics.clone()
    }

    fn generate(&self, types: Vec<TensorType>, mut gen: Gen) -> Gen {
        self.run(&types, &mut gen);
        gen
    }

    /// The calculus's checker is its semantics (Theorem 3.1, spec 004 §3): accepted
    /// is accepted, with nothing it cannot follow.
    fn recheck(&self, types: Vec<TensorType>) -> Recheck {
        let again = self.run(&types, &mut Gen::inert());
        if again
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
        {
            Recheck::IllTyped
        } else {
            Recheck::Follows
        }
    }

    fn diagnostics_under(&self, types: Vec<TensorType>) -> Vec<Diagnostic> {
        self.run(&types, &mut Gen::inert()).diagnostics
    }

    /// The calculus has no runtime of its own: its checker is its semantics.
    fn call(&self, _types: &[TensorType]) -> Option<String> {
        None
    }

    fn runs(&self) -> bool {
        false
    }

    fn types_under(&self, types: Vec<TensorType>) -> Vec<(String, TensorType)> {
        let again = self.run(&types, &mut Gen::inert());
        let mut out: Vec<(String, TensorType)> = again
            .decls
            .iter()
            .filter(|d| !d.duplicate)
            .map(|d| (d.name.clone(), d.ty.clone()))
            .collect();
        let result = self.result(&again);
        out.extend(result.map(|t| (crate::language::RESULT.to_string(), t)));
        out
    }

    fn summary(&self) -> Summary {
        let result = self.result(self.checked);
        let mut types: std::collections::BTreeMap<String, TensorType> =
            self.declarations.iter().cloned().collect();
        if let Some(t) = &result {
            types.insert(crate::language::RESULT.into(), t.clone());
        }
        Summary {
            output: result,
            types,
            ..Summary::default()
        }
    }
}
