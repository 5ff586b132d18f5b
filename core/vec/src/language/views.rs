//! The plug-in's views and facts, each from the [`Analysis`]: generic payloads only
//! (a trace, listings, a table), so the app renders them without knowing VEC.

use super::{items, Analysis, Item, RESULT};
use crate::eval::{Outcome, Report as ItemReport};
use crate::shape::{shape_of, translate_scheme};
use crate::size_c::Unsupported;
use shapex_dims::{Constraint, Dim};
use shapex_report::view::{Cell, CellValue, Lane, Row, Table, Text, Trace, TraceStep};
use shapex_text::{LineIndex, Range, Span};
use shapex_vec_syntax::ast::{Program, Term};
use std::collections::BTreeMap;

/// The simplified `#_C` shape signatures (Chapter 5) of the program's definitions
/// and final term: each the signature printed, or why `#_C` cannot analyse it.
#[derive(Default)]
pub(crate) struct Signatures {
    pub defs: Vec<(String, Span, Result<String, String>)>,
    pub main: Option<Result<String, String>>,
    /// The result's extents over the parameters' (`signature::result_dims`), by the
    /// span of the definition or final term whose signature gives them.
    pub dims: Vec<(Span, Vec<String>, Vec<Dim>)>,
    /// What the signature checks of its parameters' extents
    /// (`signature::conditions`), by the same spans, when it checks anything.
    pub checks: Vec<Needs>,
}

/// What a definition's or the final term's signature checks of its parameters'
/// extents: each application needs `conditions` of its arguments' shapes.
pub(crate) struct Needs {
    pub span: Span,
    /// The signature's parameters, whose extents the conditions name (`x_2`).
    pub params: Vec<String>,
    pub conditions: Vec<Constraint>,
}

impl Signatures {
    /// `#_C` of `program`'s definitions (those that parsed) and final term, each
    /// simplified and printed with SIZE_C's sugar.
    pub fn of(program: &Program) -> Signatures {
        let size_c = crate::translate_c(program);
        let text = |s: Result<Term, Unsupported>| {
            s.map(|t| crate::size_c::display(&t)).map_err(|u| u.reason)
        };
        let mut dims = Vec::new();
        let mut checks = Vec::new();
        let mut defs = Vec::new();
        for d in program
            .defs
            .iter()
            .filter(|d| !d.name.name.is_empty() && !d.is_error())
        {
            let Some(c) = size_c.defs.iter().find(|c| c.span == d.span) else {
                continue;
            };
            let simplified = c.shape.clone().map(|t| crate::size_c::simplify(&t));
            if let Ok(t) = &simplified {
                if let Some((ps, ds)) = super::signature::result_dims(t) {
                    dims.push((c.span, ps, ds));
                }
                checks.extend(needs(c.span, t));
            }
            defs.push((c.name.clone(), c.span, text(simplified)));
        }
        let main = size_c.main_signature();
        if let (Some(Ok(t)), Some(m)) = (&main, &program.main) {
            if let Some((ps, ds)) = super::signature::result_dims(t) {
                dims.push((m.span, ps, ds));
            }
            checks.extend(needs(m.span, t));
        }
        Signatures {
            defs,
            main: main.map(text),
            dims,
            checks,
        }
    }
}

/// The checks of a signature over its parameters' extents, if it has any, by `span`.
fn needs(span: Span, sig: &Term) -> Option<Needs> {
    let conditions = super::signature::conditions(sig)?;
    let symbolic = |c: &Constraint| !matches!(c, Constraint::True | Constraint::False);
    (!conditions.is_empty() && conditions.iter().all(symbolic)).then(|| Needs {
        span,
        params: super::signature::params(sig).0,
        conditions,
    })
}

/// The two evaluations of the final term (else of the last evaluated definition),
/// in lockstep, under the results they reached.
pub(crate) fn evaluation(a: &Analysis) -> Trace {
    let index = LineIndex::new(a.source);
    let items = items(a);
    let Some(item) = items.last() else {
        return Trace::default();
    };
    let what = if item.name == RESULT {
        "the final term".to_string()
    } else {
        format!("`{}`", item.name)
    };
    // With declared input shapes, the shape lane is the final term's shape applied
    // to them: the computation that has something to show.
    let shape = match &a.applied {
        Some(Ok(r)) if item.name == RESULT => lane(
            format!("Shape: #({what}) applied to the input shapes, no data"),
            Some(r),
            &index,
        ),
        _ => lane(format!("Shape: #({what}), no data"), item.shape, &index),
    };
    let lanes = vec![
        lane(format!("Data: {what} with its data"), item.data, &index),
        shape,
    ];
    Trace {
        summary: summary(a, item),
        lanes,
    }
}

fn summary(a: &Analysis, item: &Item) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(r) = item.data {
        let result = match (&r.outcome, &a.typed.main) {
            (Outcome::Value(crate::Value::Function(_)), Some(ty)) if item.name == RESULT => {
                format!("a function of type {ty}: give its Input shapes to see its result's")
            }
            (o, _) => o.to_string(),
        };
        out.push(("Result".to_string(), result));
        if let Outcome::Value(v) = &r.outcome {
            if let Ok(s) = shape_of(v) {
                out.push(("Its shape".to_string(), s.to_string()));
            }
        }
    }
    if let Some(r) = item.shape {
        out.push((
            "Shape from #t, without data".to_string(),
            r.outcome.to_string(),
        ));
    }
    if item.name == RESULT {
        if let Some(s) = main_signature(a) {
            out.push(("Signature (#_C, simplified)".to_string(), s));
        }
    }
    match &a.applied {
        Some(Ok(r)) => out.push(("From the input shapes".to_string(), r.outcome.to_string())),
        Some(Err(e)) => out.push(("From the input shapes".to_string(), e.clone())),
        None => {}
    }
    out
}

/// The final term's simplified signature, printed. `#_C`'s `fold` is conservative (it
/// rejects a fold that changes its accumulator's shape, spec 003 §4.6), so an `err`
/// the shape program `#t` does not confirm is said to be `#_C`'s alone.
fn main_signature(a: &Analysis) -> Option<String> {
    let s = a.signatures.main.as_ref()?;
    Some(checked_signature(s, a.shapes.main.as_ref()))
}

/// `s` printed, an `err` that the item's shape evaluation `shape` does not confirm
/// said to be `#_C`'s alone.
fn checked_signature(s: &Result<String, String>, shape: Option<&ItemReport>) -> String {
    let confirmed = matches!(shape.map(|r| &r.outcome), Some(Outcome::ShapeError { .. }));
    match s {
        Ok(t) if t == "err" && !confirmed => "err under #_C only, which rejects folds that change their accumulator's shape; the shape program #t says otherwise".to_string(),
        s => signature_text(s),
    }
}

fn signature_text(s: &Result<String, String>) -> String {
    match s {
        Ok(t) => t.clone(),
        Err(why) => format!("cannot analyse statically: {why}"),
    }
}

fn lane(title: String, report: Option<&ItemReport>, index: &LineIndex) -> Lane {
    let Some(r) = report else {
        return Lane {
            title,
            result: "not evaluated".into(),
            class: "unknown".into(),
            ..Lane::default()
        };
    };
    let class = match &r.outcome {
        Outcome::Value(_) => "value",
        Outcome::ShapeError { .. } | Outcome::DataError { .. } | Outcome::Stuck { .. } => "error",
        Outcome::OutOfFuel { .. } => "unknown",
    };
    Lane {
        title,
        steps: r
            .trace
            .iter()
            .map(|s| TraceStep {
                text: s.what.clone(),
                range: Some(Range::of(s.span, index)),
            })
            .collect(),
        result: r.outcome.to_string(),
        class: class.into(),
        omitted: r.trace_truncated.then_some(r.steps),
    }
}

/// The shape program: the translated definitions and term, one a line, each line
/// related to the source lines of what it translates.
pub(crate) fn shape_program(a: &Analysis) -> Text {
    let index = LineIndex::new(a.source);
    let lines_of = |span: Span| {
        let r = Range::of(span, &index);
        Some((r.line, r.end_line))
    };
    let mut text = String::from("-- #t (Sekanina, Fig 4.1): the shapes, computed without data\n");
    let mut sources = vec![None];
    for d in &a.shape.defs {
        text.push_str(&crate::print::def(d));
        text.push('\n');
        sources.push(lines_of(d.span));
    }
    if let Some(t) = &a.shape.main {
        text.push_str(&crate::print::term(t));
        text.push('\n');
        sources.push(lines_of(t.span));
    }
    let used = used_prelude(a);
    if !used.is_empty() {
        text.push_str("-- the shapes of the prelude's definitions it uses (map, zip, append and transpose in closed form)\n");
        sources.push(None);
        for d in used {
            text.push_str(&crate::print::def(d));
            text.push('\n');
            sources.push(None);
        }
    }
    Text {
        text,
        marker: Some("--".into()),
        sources,
    }
}

/// The translated prelude definitions the shape program names, directly or through
/// others, in the prelude's order. A name a program binds or defines itself counts
/// too: listing one definition more is harmless.
fn used_prelude<'s>(a: &'s Analysis) -> Vec<&'s shapex_vec_syntax::ast::Def> {
    fn names(t: &Term, out: &mut Vec<String>) {
        if let shapex_vec_syntax::ast::TermKind::Var(x) = &t.kind {
            out.push(x.name.clone());
        }
        t.children().into_iter().for_each(|c| names(c, out));
    }
    let mut pending = Vec::new();
    a.shape
        .defs
        .iter()
        .for_each(|d| names(&d.body, &mut pending));
    if let Some(t) = &a.shape.main {
        names(t, &mut pending);
    }
    let mut used = std::collections::HashSet::new();
    while let Some(name) = pending.pop() {
        if let Some(d) = a.shape.prelude.iter().rev().find(|d| d.name.name == name) {
            if used.insert(name) {
                names(&d.body, &mut pending);
            }
        }
    }
    a.shape
        .prelude
        .iter()
        .filter(|d| used.contains(&d.name.name))
        .collect()
}

/// Each definition's simplified `#_C` signature, or why it has none.
pub(crate) fn signatures(a: &Analysis) -> Text {
    let index = LineIndex::new(a.source);
    let mut text = String::from(
        "-- #_C, simplified by SIZE_C's reduction (Sekanina, Chapter 5): what each shape requires and gives\n",
    );
    let mut sources = vec![None];
    for (name, span, s) in &a.signatures.defs {
        let shown = checked_signature(s, a.shapes.def(name));
        text.push_str(&format!("#{name} = {shown}\n"));
        let r = Range::of(*span, &index);
        sources.push(Some((r.line, r.end_line)));
    }
    if let (Some(s), Some(main)) = (main_signature(a), &a.program.main) {
        text.push_str(&format!("#{RESULT} = {s}\n"));
        let r = Range::of(main.span, &index);
        sources.push(Some((r.line, r.end_line)));
    }
    Text {
        text,
        marker: Some("--".into()),
        sources,
    }
}

/// A row per definition (and the final term): its type, its shape type, its value
/// and its shape.
pub(crate) fn types(a: &Analysis) -> Table {
    let index = LineIndex::new(a.source);
    let items = items(a);
    let text = |column, s: String| Cell {
        column,
        value: CellValue::Text(s),
        class: String::new(),
        title: String::new(),
    };
    let mut rows = Vec::new();
    let mut row = |name: &str, span: Span, scheme: Option<&crate::Scheme>| {
        let item = items.iter().find(|i| i.span == span);
        let mut cells = Vec::new();
        if let Some(s) = scheme {
            cells.push(text(0, s.to_string()));
            cells.push(text(1, translate_scheme(s).to_string()));
        }
        if let Some(r) = item.and_then(|i| i.data) {
            cells.push(text(2, r.outcome.to_string()));
        }
        if let Some(r) = item.and_then(|i| i.shape) {
            cells.push(text(3, r.outcome.to_string()));
        }
        rows.push(Row {
            line: Range::of(span, &index).line,
            label: name.to_string(),
            cells,
            new_workspace: false,
        });
    };
    for d in &a.typed.defs {
        row(&d.name, d.span, Some(&d.scheme));
    }
    if let Some(main) = &a.program.main {
        row(RESULT, main.span, a.typed.main.as_ref());
    }
    Table {
        columns: ["type", "shape type #τ", "value", "shape (#t)"]
            .map(String::from)
            .to_vec(),
        rows,
    }
}

/// The CLI's JSON fields: the shape program, the final term's simplified signature
/// and its result.
pub(crate) fn facts(a: &Analysis) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    out.insert("shape_program".to_string(), a.shape.to_string());
    if let Some(s) = main_signature(a) {
        out.insert("shape_signature".to_string(), s);
    }
    if let Some(r) = &a.data.main {
        out.insert("result".to_string(), r.outcome.to_string());
    }
    out
}
