//! PyTorch model code as a Report: the file parsed (`shapex_migrate_syntax::python`),
//! the model built from its `__init__` ([`crate::modules`]), its `forward` checked over
//! gradual types ([`crate::forward`]); one statement per assignment and `return` with
//! the type of what it defines (joined over every time it ran), the types table, the
//! errors, and "not supported" notes where a value became `Dyn`.

use crate::forward::{check_model, check_symbolic, Checked};
use crate::gen::{Gen, Origin};
use crate::language::{def, shape_view, types_report};
use crate::modules::layers::Layer;
use crate::modules::value::ModuleKind;
use crate::modules::{build, Built};
use crate::subject::{Recheck, Subject, Summary};
use crate::types::TensorType;
use shapex_report::view::{Cell, CellValue, Row, Table};
use shapex_report::{CheckStatus, Options, Report, Severity, StatementReport};
use shapex_text::{Diagnostic, LineIndex, Range, Span};
use std::collections::BTreeMap;

/// Whether `source` is Python rather than the paper's core calculus: it defines,
/// imports or has a class.
pub fn looks_like_python(source: &str) -> bool {
    source.lines().any(|l| {
        let t = l.trim_start();
        ["import ", "from ", "class ", "def "]
            .iter()
            .any(|k| t.starts_with(k))
    })
}

pub fn report(source: &str, options: &Options) -> Report {
    let parsed = shapex_migrate_syntax::python::parse(source);
    let choice = options
        .get("model")
        .map(str::trim)
        .filter(|m| !m.is_empty());
    let built = build(&parsed.module, choice);
    let mut diagnostics = parsed.diagnostics.clone();
    diagnostics.extend(built.eval.notes.iter().cloned());
    let checked = check_model(&built);
    let questions = checked
        .forward
        .is_some()
        .then(|| crate::questions::ask(source, &Forward::new(source, &built, &checked), options));
    match (&built.model, checked.forward) {
        // The builder said why the chosen model is not there.
        (None, _) if choice.is_some() => {}
        (None, _) => diagnostics.push(Diagnostic::new(
            Severity::Info,
            "mig.model",
            "no model to check: no module-level instance of a class of this file (`model = Net()`), and no class with a `forward` whose `__init__` needs no arguments",
            Span::new(0, source.find('\n').unwrap_or(source.len())),
        )),
        (Some((name, _)), Some(span)) => {
            let class = built.model_class().unwrap_or_default();
            let output = checked
                .output
                .as_ref()
                .map_or("nothing".to_string(), ToString::to_string);
            let header = Span::new(span.start, span.start + source[span.start..].find('\n').unwrap_or(0));
            diagnostics.push(Diagnostic::new(
                Severity::Info,
                "mig.output",
                format!("the model `{name}` ({class}) returns {output}"),
                header,
            ));
        }
        (Some((name, _)), None) => diagnostics.push(Diagnostic::new(
            Severity::Info,
            "mig.model",
            format!("the model `{name}` has no `forward` method to check"),
            Span::new(0, 0),
        )),
    }
    diagnostics.extend(checked.diagnostics.iter().cloned());
    let mut branches = checked.branches.clone();
    if let Some(q) = &questions {
        diagnostics.extend(q.diagnostics.iter().cloned());
        refine_branches(&mut branches, &q.answers);
    }
    for b in branches.values() {
        let arm = match (b.then_possible, b.else_possible) {
            (false, true) => "the `if` branch",
            (true, false) if !b.else_spans.is_empty() => "the `else` branch",
            _ => continue,
        };
        let always = if b.then_possible { "true" } else { "false" };
        diagnostics.push(
            Diagnostic::new(
                Severity::Info,
                "mig.branch",
                format!("this condition is always {always} for the model as built (its constructor's arguments) and every input of the annotated types (under your constraints) that gets this far without a shape error: {arm} can never run"),
                b.test,
            )
            .with_help("Migeed et al.'s third question (§5): a condition on shapes that no such input can change, decided by the types or, over the unknown sizes, by the constraints the earlier lines and yours impose"),
        );
    }
    let index = LineIndex::new(source);
    let mut statements = statements(&checked, &diagnostics);
    if let Some(q) = &questions {
        needs_checks(&mut statements, &q.answers.constraints);
        if options.witness {
            let subject = Forward::new(source, &built, &checked);
            crate::questions::witnesses(source, &subject, options, &mut statements);
        }
    }
    for b in branches.values() {
        let dead = match (b.then_possible, b.else_possible) {
            (false, true) => &b.then_spans,
            (true, false) => &b.else_spans,
            _ => continue,
        };
        for span in dead {
            statements.push(StatementReport {
                span: *span,
                kind: "branch".into(),
                nonviable: true,
                ..StatementReport::default()
            });
        }
    }
    statements.sort_by_key(|s| (s.span.start, s.span.end));
    let table = table(&index, &checked);
    let parse_ok = !parsed
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error);
    let mut report = types_report(source, parse_ok, diagnostics, statements, table);
    report
        .views
        .extend(questions.into_iter().flat_map(|q| q.views));
    report
}

/// Q3's answers make more arms impossible than the types alone do: an arm is
/// impossible when the gradual check or the solver says so.
fn refine_branches(
    branches: &mut std::collections::BTreeMap<(usize, usize), crate::forward::Branch>,
    answers: &crate::migration::Answers,
) {
    use crate::migration::Possibility::Impossible;
    for a in answers.branches.iter().filter(|a| a.var.is_none()) {
        if let Some(b) = branches.get_mut(&(a.span.start, a.span.end)) {
            b.then_possible &= a.then != Impossible;
            b.else_possible &= a.orelse != Impossible;
        }
    }
}

fn statements(checked: &Checked, diagnostics: &[Diagnostic]) -> Vec<StatementReport> {
    let mut out = Vec::new();
    if let Some(span) = checked.forward {
        out.push(StatementReport {
            span: Span::new(span.start, span.start),
            kind: "forward".into(),
            label: "forward".into(),
            defs: checked
                .inputs
                .iter()
                .map(|(n, t)| def(n, Some(t)))
                .collect(),
            ..StatementReport::default()
        });
    }
    for (span, defs) in checked.defs.values() {
        let error = diagnostics.iter().any(|d| {
            d.severity == Severity::Error && d.span.start >= span.start && d.span.end <= span.end
        });
        out.push(StatementReport {
            span: *span,
            kind: "assign".into(),
            label: defs
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            defs: defs.iter().map(|(n, t)| def(n, Some(t))).collect(),
            check: if error {
                CheckStatus::Error
            } else {
                CheckStatus::None
            },
            rule: Some(
                "forward over gradual types (Migeed et al. 2024, with PyTorch's rules)".into(),
            ),
            ..StatementReport::default()
        });
    }
    out.sort_by_key(|s| (s.span.start, s.span.end));
    out
}

/// A statement whose operations Gen had to ask something of, over the annotations'
/// `Dyn` sizes, needs that checked when it runs: its condition is what they ask
/// (whether the earlier lines already imply it is not decided here; "run-time check"
/// promises nothing).
fn needs_checks(statements: &mut [StatementReport], ops: &[Origin]) {
    for s in statements.iter_mut() {
        if s.kind != "assign" || s.check != CheckStatus::None {
            continue;
        }
        let mut needs: Vec<String> = Vec::new();
        let inside = |o: &&Origin| o.span.start >= s.span.start && o.span.end <= s.span.end;
        for c in ops
            .iter()
            .filter(inside)
            .flat_map(|o| o.constraint.conjuncts())
        {
            let c = c.to_string();
            // `#1 == x[2]-1` names a window's output; it asks nothing.
            let names_fresh = c.starts_with('#') && c.contains(" == ");
            if !names_fresh && !needs.contains(&c) {
                needs.push(c);
            }
        }
        if !needs.is_empty() {
            s.check = CheckStatus::Runtime;
            s.condition = Some(needs.join(" ∧ "));
        }
    }
}

fn table(index: &LineIndex, checked: &Checked) -> Table {
    let mut rows = Vec::new();
    for (n, t) in &checked.inputs {
        let line = checked.forward.map_or(1, |s| Range::of(s, index).line);
        rows.push(row(
            line,
            n,
            t,
            "forward's parameter (its annotation, or Dyn)",
        ));
    }
    for (span, defs) in checked.defs.values() {
        for (n, t) in defs {
            rows.push(row(
                Range::of(*span, index).line,
                n,
                t,
                "the type forward gives it (joined over every run of the line)",
            ));
        }
    }
    rows.sort_by_key(|r| r.line);
    Table {
        columns: vec!["type".into(), "from".into()],
        rows,
    }
}

fn row(line: u32, name: &str, t: &crate::types::TensorType, from: &str) -> Row {
    Row {
        line,
        label: name.to_string(),
        cells: vec![
            Cell {
                column: 0,
                value: CellValue::Shape {
                    shape: shape_view(Some(t)),
                    display: t.to_string(),
                },
                class: String::new(),
                title: t.to_string(),
            },
            Cell {
                column: 1,
                value: CellValue::Text(from.to_string()),
                class: String::new(),
                title: String::new(),
            },
        ],
        new_workspace: false,
    }
}

/// A model's `forward` as the migration questions see it: its parameters are the
/// declarations, Gen runs `forward` over a skeleton with the PyTorch rules.
pub struct Forward<'a, 'b> {
    built: &'a Built<'b>,
    checked: &'a Checked,
    header: Span,
}

impl<'a, 'b> Forward<'a, 'b> {
    /// `source` is the file `checked` came from (for the `def forward` line).
    pub fn new(source: &str, built: &'a Built<'b>, checked: &'a Checked) -> Forward<'a, 'b> {
        let header = checked.forward.map_or(Span::new(0, 0), |s| {
            let rest = source.get(s.start..).unwrap_or("");
            Span::new(s.start, s.start + rest.find('\n').unwrap_or(rest.len()))
        });
        Forward {
            built,
            checked,
            header,
        }
    }
}

impl Subject for Forward<'_, '_> {
    fn declarations(&self) -> &[(String, TensorType)] {
        &self.checked.inputs
    }

    fn declaration_spans(&self) -> &[(Span, Option<Span>)] {
        &self.checked.input_spans
    }

    fn declared(&self) -> &'static str {
        "forward's parameters"
    }

    fn header(&self) -> Span {
        self.header
    }

    fn errors(&self) -> Vec<Diagnostic> {
        self.checked.diagnostics.clone()
    }

    fn generate(&self, types: Vec<TensorType>, gen: Gen) -> Gen {
        check_symbolic(self.built, types, gen).1
    }

    fn recheck(&self, types: Vec<TensorType>) -> Recheck {
        let (again, _) = check_symbolic(self.built, types, Gen::inert());
        if again
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
        {
            return Recheck::IllTyped;
        }
        // The first construct the checker does not model (a "not supported" note) or
        // the first statement giving a `Dyn` (a rule that cannot tell the size).
        let unmodelled = again
            .diagnostics
            .iter()
            .filter(|d| d.code == "mig.unsupported")
            .map(|d| d.span)
            .min_by_key(|s| s.start);
        let first = [unmodelled, again.first_dyn]
            .into_iter()
            .flatten()
            .min_by_key(|s| s.start);
        match (first, &again.output) {
            (Some(at), _) => Recheck::LosesTrack(Some(at)),
            (None, Some(t)) if !t.is_static() => Recheck::LosesTrack(None),
            _ => Recheck::Follows,
        }
    }

    fn diagnostics_under(&self, types: Vec<TensorType>) -> Vec<Diagnostic> {
        check_symbolic(self.built, types, Gen::inert())
            .0
            .diagnostics
    }

    fn runs(&self) -> bool {
        true
    }

    /// `model(torch.ones(1, 3, 8, 8))`: the model by its module-level name, or its
    /// class built with no arguments. Not for a model with an `Embedding`, whose input
    /// is of indices (`torch.ones` makes floats, a type error rather than the shape
    /// error shown).
    fn call(&self, types: &[TensorType]) -> Option<String> {
        let (name, _) = self.built.model.as_ref()?;
        let eval = &self.built.eval;
        let embeds = eval
            .heap
            .modules
            .iter()
            .any(|m| matches!(m.kind, ModuleKind::Layer(Layer::Embedding { .. })));
        if embeds {
            return None;
        }
        let model = match eval.instances.iter().any(|(n, _)| n == name) {
            true => name.clone(),
            false => format!("{name}()"),
        };
        let args: Option<Vec<String>> = types
            .iter()
            .map(|t| {
                let dims = t.dims()?;
                let sizes: Option<Vec<String>> = dims
                    .iter()
                    .map(|d| match d {
                        crate::types::Dim::Nat(n) => Some(n.to_string()),
                        _ => None,
                    })
                    .collect();
                Some(format!("torch.ones({})", sizes?.join(", ")))
            })
            .collect();
        Some(format!("{model}({})", args?.join(", ")))
    }

    fn types_under(&self, types: Vec<TensorType>) -> Vec<(String, TensorType)> {
        let (again, _) = check_symbolic(self.built, types, Gen::inert());
        let mut out = again.inputs.clone();
        for (_, defs) in again.defs.values() {
            out.extend(defs.iter().cloned());
        }
        out
    }

    fn summary(&self) -> Summary {
        let mut types: BTreeMap<String, TensorType> = self.checked.inputs.iter().cloned().collect();
        for (_, defs) in self.checked.defs.values() {
            types.extend(defs.iter().cloned());
        }
        Summary {
            model: self.built.model.as_ref().map(|(n, _)| n.clone()),
            class: self.built.model_class(),
            output: self.checked.output.clone(),
            types,
            tests: self
                .checked
                .branches
                .iter()
                .map(|(k, b)| (*k, b.test))
                .collect(),
        }
    }
}
