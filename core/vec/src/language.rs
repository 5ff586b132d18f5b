//! Sekanina's VEC and SIZE as a Shape Explorer language plug-in ([`LanguageVec`]): a
//! `.vec` program parsed by `shapex-vec-syntax`, typed ([`crate::check`]), evaluated
//! twice — with its data ([`crate::evaluate`]) and as its shape program `#t`
//! ([`crate::translate`]), which needs no data — and folded into a [`Report`]:
//!
//! * one statement per definition and for the final term, whose def is the item's
//!   shape (from the shape program) and whose check says whether it has a shape
//!   error;
//! * the views: the two evaluations replayed in lockstep (`evaluation`), the shape
//!   program (`shape-program`), the simplified shape signatures of `#_C`
//!   (`signatures`) and every definition's type, shape type, value and shape (`types`);
//! * a hover per subterm with its type and shape type;
//! * the facts `shape_program`, `shape_signature` and `result` (the CLI's JSON fields).
//!
//! The claims: a VEC program is closed and deterministic, so it has one run. A shape
//! error found from the shapes alone (`vec.shape.error`) means the program has no
//! value (Theorem 4.3: a value's shape would be the shape program's value): it fails
//! with a shape error unless a data error or a non-ending loop comes first. "Proven"
//! is said only of an item whose data evaluation ended with a value.

mod repro;
mod signature;
mod views;

use crate::eval::{Evaluation, Origin, Outcome, Report as ItemReport, Value};
use crate::shape::{self, ShapeProgram};
use crate::Typed;
use shapex_report::view::{Payload, View, ViewSpec};
use shapex_report::{
    CheckStatus, Def, DimView, Face, Hover, Language, LanguageInfo, Lexical, OptionSpec, Options,
    Report, Severity, ShapeView, StatementReport, Witness,
};
use shapex_text::{Diagnostic, Span, Token};
use shapex_vec_syntax::ast::{Program, Term};

pub const ID: &str = "vec";

/// The views, by id.
pub mod ids {
    pub const EVALUATION: &str = "evaluation";
    pub const SHAPE_PROGRAM: &str = "shape-program";
    pub const SIGNATURES: &str = "signatures";
    pub const TYPES: &str = "types";
}

/// The option giving the final term's argument shapes, one per line.
pub const INPUTS: &str = "inputs";

/// The diagnostic codes of the evaluations (the type checker's are [`crate::codes`]).
pub mod codes {
    pub const SHAPE_ERROR: &str = "vec.shape.error";
    pub const EVAL_SHAPE_ERROR: &str = "vec.eval.shape-error";
    pub const DATA_ERROR: &str = "vec.eval.data-error";
    pub const OUT_OF_FUEL: &str = "vec.eval.out-of-fuel";
    pub const UNDECIDED: &str = "vec.shape.undecided";
    pub const INPUTS: &str = "vec.inputs";
}

/// Steps per evaluated item: a keystroke re-runs both evaluations, so the budget is
/// what a browser spends in a fraction of a second.
const FUEL: u64 = 400_000;
/// Steps kept per item for the replay.
const TRACE_CAP: usize = 2_000;

/// Sekanina's VEC and SIZE languages, registered in the façade's driver.
pub struct LanguageVec {
    info: LanguageInfo,
}

impl Default for LanguageVec {
    fn default() -> Self {
        LanguageVec { info: info() }
    }
}

fn info() -> LanguageInfo {
    LanguageInfo {
        id: ID,
        name: "VEC/SIZE (Sekanina, shape analysis)",
        extensions: &["vec"],
        tagline: "Write a VEC program over vectors — map, fold, zip, transpose, multiply — and watch its shape computed without its data: the shape program #t, its simplified signature, and the two evaluations stepped side by side.",
        options: vec![OptionSpec {
            key: INPUTS,
            label: "Input shapes",
            choices: Vec::new(),
            help: vec![("", "When the program's final term is a function (multiply), the shapes of its arguments, one per line — <~2, <~3, un>> is a 2×3 matrix of numbers — and the shape of its result is computed from them alone, with no data.")],
            placeholder: "one shape per line, e.g. <~2, <~3, un>>",
            multiline: true,
            hidden: false,
        }],
        views: vec![
            ViewSpec {
                id: ids::EVALUATION,
                title: "Evaluation",
                empty: "No evaluation yet: the program's final term is evaluated twice, with its data and as its shape program #t with no data, and the two are stepped side by side — the shape computation usually finishes first.",
            },
            ViewSpec {
                id: ids::SHAPE_PROGRAM,
                title: "Shape program",
                empty: "No shape program yet: the SIZE program #t that computes the shapes of the program's values (Sekanina, Fig 4.1) appears here.",
            },
            ViewSpec {
                id: ids::SIGNATURES,
                title: "Signatures",
                empty: "No signatures yet: each definition's shape under #_C, simplified by SIZE_C's reduction (Sekanina, Chapter 5) — a precondition on the input shapes and a result shape — appears here.",
            },
            ViewSpec {
                id: ids::TYPES,
                title: "Types",
                empty: "No definitions yet: each definition appears here with its type, its shape type #τ, its value and its shape.",
            },
        ],
        // `<~2, <~3, un>>` (the thesis's, shown as written) or `2×3`.
        prints_shapes: true,
        lexical: Lexical {
            comments: &["--", "{-"],
            quotes: &[],
        },
    }
}

impl Language for LanguageVec {
    fn face() -> Face {
        Face {
            info: info(),
            tokens: shapex_vec_syntax::tokens,
        }
    }

    fn info(&self) -> &LanguageInfo {
        &self.info
    }

    fn analyze(&self, source: &str, options: &Options) -> Report {
        let inputs = options.get(INPUTS).map_or("", str::trim);
        let mut report = analyze_with(source, inputs, options.witness);
        report.settings = [(INPUTS.to_string(), inputs.to_string())].into();
        report
    }

    fn tokens(&self, line: &str) -> Vec<Token> {
        shapex_vec_syntax::tokens(line)
    }

    fn explain(&self, code: &str) -> Option<String> {
        explain(code).map(str::to_string)
    }
}

/// Everything the views are made of.
pub(crate) struct Analysis<'p> {
    pub source: &'p str,
    pub program: &'p Program,
    pub typed: Typed,
    pub shape: ShapeProgram,
    pub data: Evaluation,
    pub shapes: Evaluation,
    pub signatures: views::Signatures,
    /// The final term's shape from the declared input shapes, when it is a function
    /// and they were given.
    pub applied: Option<Result<ItemReport, String>>,
    /// Whether statements get witnesses (`Options::witness`).
    pub witness: bool,
}

/// The report of `source` with the input shapes `inputs` (the option's text).
pub fn analyze(source: &str, inputs: &str) -> Report {
    analyze_with(source, inputs, false)
}

/// [`analyze`], with witnesses when `witness`.
pub fn analyze_with(source: &str, inputs: &str, witness: bool) -> Report {
    let parsed = shapex_vec_syntax::parse(source);
    let parse_ok = !parsed
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error);
    let program = &parsed.program;
    let typed = crate::check(program);
    let options = crate::Options {
        fuel: FUEL,
        trace_cap: TRACE_CAP,
        ..crate::Options::default()
    };
    let shape = shape::translate(program);
    let data = crate::evaluate(program, &options);
    let shapes = crate::evaluate(&shape.to_program(), &options);
    let signatures = views::Signatures::of(program);
    let applied = (!inputs.is_empty()).then(|| apply_inputs(&shape, inputs, &options));
    let analysis = Analysis {
        source,
        program,
        typed,
        shape,
        data,
        shapes,
        signatures,
        applied,
        witness,
    };
    let mut diagnostics = parsed.diagnostics;
    diagnostics.extend(analysis.typed.diagnostics.iter().cloned());
    diagnostics.extend(evaluation_diagnostics(&analysis));
    let mut report = Report {
        lang: ID.to_string(),
        parse_ok,
        diagnostics,
        statements: statements(&analysis),
        views: vec![
            View {
                id: ids::EVALUATION.into(),
                payload: Payload::Trace(views::evaluation(&analysis)),
            },
            View {
                id: ids::SHAPE_PROGRAM.into(),
                payload: Payload::Text(views::shape_program(&analysis)),
            },
            View {
                id: ids::SIGNATURES.into(),
                payload: Payload::Text(views::signatures(&analysis)),
            },
            View {
                id: ids::TYPES.into(),
                payload: Payload::Table(views::types(&analysis)),
            },
        ],
        facts: views::facts(&analysis),
        hovers: hovers(&analysis.typed),
        ..Report::default()
    };
    report.resolve_positions(source);
    report
}

/// The shape program with its final term applied to the shapes in `inputs` (one per
/// line), type-checked and evaluated: no data is involved.
fn apply_inputs(
    shape: &ShapeProgram,
    inputs: &str,
    options: &crate::Options,
) -> Result<ItemReport, String> {
    let Some(main) = &shape.main else {
        return Err("the program has no final term to apply to input shapes".into());
    };
    let mut term = main.clone();
    for (i, line) in inputs.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let parsed = shapex_vec_syntax::parse(line);
        let arg = match (parsed.diagnostics.first(), parsed.program.main) {
            (None, Some(arg)) if parsed.program.defs.is_empty() => arg,
            (Some(d), _) => return Err(format!("input shape {}: {}", i + 1, d.message)),
            _ => return Err(format!("input shape {} is not a term", i + 1)),
        };
        term = Term {
            span: main.span,
            kind: shapex_vec_syntax::ast::TermKind::App {
                fun: Box::new(term),
                arg: Box::new(without_spans(arg, main.span)),
                infix: false,
            },
        };
    }
    let mut program = shape.to_program();
    program.main = Some(term);
    let typed = crate::check(&program);
    if let Some(d) = typed.diagnostics.first() {
        return Err(format!(
            "the input shapes do not fit the final term's shape type: {}",
            d.message
        ));
    }
    let evaluation = crate::evaluate(&program, options);
    evaluation
        .main
        .ok_or_else(|| "nothing was evaluated".into())
}

/// `t` with every span `span`: an input shape's spans are the option's, not the
/// source's.
fn without_spans(mut t: Term, span: Span) -> Term {
    fn respan(t: &mut Term, span: Span) {
        t.span = span;
        t.children_mut().into_iter().for_each(|c| respan(c, span));
    }
    respan(&mut t, span);
    t
}

/// The Report's hovers: each subterm's type and shape type, once per span (the
/// outermost subterm's, as [`Typed::type_at`]).
fn hovers(typed: &Typed) -> Vec<Hover> {
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<Hover> = typed
        .types
        .iter()
        .rev()
        .filter(|(span, _)| seen.insert(*span))
        .map(|(span, scheme)| Hover {
            span: *span,
            text: format!(
                "type {scheme}\nshape type #τ = {}",
                shape::translate_scheme(scheme)
            ),
            ..Hover::default()
        })
        .collect();
    out.reverse();
    out
}

/// An item of the program: a definition or the final term.
pub(crate) struct Item<'p> {
    pub name: &'p str,
    pub span: Span,
    pub data: Option<&'p ItemReport>,
    pub shape: Option<&'p ItemReport>,
}

/// The program's evaluated items (definitions whose value is not a function, then
/// the final term), each with its data and shape evaluations.
pub(crate) fn items<'p>(a: &'p Analysis) -> Vec<Item<'p>> {
    let mut out: Vec<Item> = a
        .data
        .defs
        .iter()
        .map(|d| Item {
            name: &d.name,
            span: d.span,
            data: Some(&d.report),
            shape: a.shapes.def(&d.name),
        })
        .collect();
    if let Some(main) = &a.program.main {
        out.push(Item {
            name: RESULT,
            span: main.span,
            data: a.data.main.as_ref(),
            shape: a.shapes.main.as_ref(),
        });
    }
    out
}

/// The def name of the final term.
pub const RESULT: &str = "result";

/// Whether a type error lies within `span`: such an item's evaluations mean nothing.
fn ill_typed(a: &Analysis, span: Span) -> bool {
    a.typed
        .diagnostics
        .iter()
        .any(|d| d.span.start >= span.start && d.span.end <= span.end)
}

fn evaluation_diagnostics(a: &Analysis) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for item in items(a) {
        if ill_typed(a, item.span) {
            continue;
        }
        out.extend(verdict(&item).1);
    }
    if let Some(Err(message)) = &a.applied {
        out.push(Diagnostic::error(
            codes::INPUTS,
            message.clone(),
            a.program.main.as_ref().map_or(Span::new(0, 0), |m| m.span),
        ));
    }
    if let (Some(Ok(report)), Some(main)) = (&a.applied, &a.program.main) {
        if let Outcome::ShapeError { detail, .. } = &report.outcome {
            out.push(Diagnostic::error(
                codes::SHAPE_ERROR,
                format!(
                    "with the declared input shapes, a shape error from the shapes alone: {detail}"
                ),
                main.span,
            ));
        }
    }
    out
}

/// What an item's two evaluations establish: its check and the diagnostic it calls
/// for, if any. A shape error of the shape program is definite (Theorem 4.3: the
/// term has no value, or an ill-shaped one — a ragged vector, N1) except where the
/// shapes could not decide (a data conditional's branches of different shapes, or a
/// data evaluation that ended with a well-shaped value, which the theorem rules out):
/// there the data evaluation decides. The diagnostic is on the failing subterm when
/// that lies in the item, else on the item: a failure inside a prelude definition has
/// a span in the prelude's text, not the program's.
fn verdict(item: &Item) -> (CheckStatus, Option<Diagnostic>) {
    let data = item.data.map(|r| &r.outcome);
    let shape = item.shape.map(|r| &r.outcome);
    let name = item.name;
    let within = |span: &Span| {
        if span.start >= item.span.start && span.end <= item.span.end {
            *span
        } else {
            item.span
        }
    };
    let ragged = matches!(data, Some(Outcome::Value(v)) if shape::shape_of(v).is_err());
    let well_shaped = matches!(data, Some(Outcome::Value(v)) if shape::shape_of(v).is_ok());
    match shape {
        Some(Outcome::ShapeError {
            origin: Origin::Undecided,
            span,
            detail,
        }) if !matches!(data, Some(Outcome::ShapeError { .. })) => {
            let (check, _) = by_data(item, data, &within);
            let d = Diagnostic::warning(
                codes::UNDECIDED,
                format!("`{name}`: the shapes alone cannot decide ({detail}); the data evaluation decides"),
                within(span),
            );
            return (check, Some(d));
        }
        Some(Outcome::ShapeError { span, detail, .. }) if !well_shaped => {
            let why = match data {
                Some(Outcome::ShapeError { .. }) => {
                    "; the data evaluation fails too, later".to_string()
                }
                Some(Outcome::DataError { detail, .. }) => {
                    format!("; the data evaluation fails first, with a data error ({detail})")
                }
                Some(Outcome::OutOfFuel { .. }) => {
                    "; the data evaluation ran out of fuel before reaching it".to_string()
                }
                _ => String::new(),
            };
            let what = if ragged {
                "is ill-shaped, a vector whose entries have different shapes (Sekanina §6, N1)"
            } else {
                "has no value"
            };
            let d = Diagnostic::error(
                codes::SHAPE_ERROR,
                format!(
                    "`{name}` {what}: a shape error found from the shapes alone ({detail}){why}"
                ),
                within(span),
            );
            return (CheckStatus::Error, Some(d));
        }
        _ => {}
    }
    by_data(item, data, &within)
}

/// What the data evaluation alone establishes.
fn by_data(
    item: &Item,
    data: Option<&Outcome>,
    within: &dyn Fn(&Span) -> Span,
) -> (CheckStatus, Option<Diagnostic>) {
    let name = item.name;
    match data {
        Some(Outcome::ShapeError { span, detail, .. }) => (
            CheckStatus::Error,
            Some(Diagnostic::error(
                codes::EVAL_SHAPE_ERROR,
                format!("`{name}` fails with a shape error ({detail})"),
                within(span),
            )),
        ),
        // The run ends with a data error: no shape error, and no value either.
        Some(Outcome::DataError { span, detail }) => (
            CheckStatus::None,
            Some(Diagnostic::error(
                codes::DATA_ERROR,
                format!("`{name}` fails with a data error, not a shape error: {detail}"),
                within(span),
            )),
        ),
        Some(o @ Outcome::OutOfFuel { .. }) => (
            CheckStatus::Runtime,
            Some(Diagnostic::warning(
                codes::OUT_OF_FUEL,
                format!("`{name}`: {o}"),
                item.span,
            )),
        ),
        // A function has no shape to check until it is applied.
        Some(Outcome::Value(Value::Function(_))) => (CheckStatus::None, None),
        Some(Outcome::Value(_)) => (CheckStatus::Proven, None),
        Some(Outcome::Stuck { .. }) | None => (CheckStatus::None, None),
    }
}

/// One statement per definition and one for the final term.
fn statements(a: &Analysis) -> Vec<StatementReport> {
    let items = items(a);
    let evaluated = |span: Span| items.iter().find(|i| i.span == span);
    let mut out: Vec<StatementReport> = a
        .program
        .defs
        .iter()
        .filter(|d| !d.name.name.is_empty())
        .map(|d| {
            let item = evaluated(d.span);
            let ty = a.typed.defs.iter().find(|t| t.span == d.span);
            statement(
                a,
                "def",
                &d.name.name,
                d.span,
                item,
                ty.map(|t| t.scheme.to_string()),
            )
        })
        .collect();
    if let Some(main) = &a.program.main {
        let ty = a.typed.main.as_ref().map(ToString::to_string);
        out.push(statement(
            a,
            "term",
            RESULT,
            main.span,
            evaluated(main.span),
            ty,
        ));
    }
    out
}

fn statement(
    a: &Analysis,
    kind: &str,
    name: &str,
    span: Span,
    item: Option<&Item>,
    ty: Option<String>,
) -> StatementReport {
    let ill = ill_typed(a, span);
    let item = item.filter(|_| !ill);
    let mut check = item.map_or(CheckStatus::None, |i| verdict(i).0);
    // A function's signature checks its arguments' extents: each application needs
    // them, so the definition carries them as its run-time check.
    let needs = a.signatures.checks.iter().find(|n| n.span == span);
    // Declared input shapes decide the final term's check for those shapes instead.
    let declared = name == RESULT && kind == "term" && a.applied.is_some();
    let needs = needs.filter(|_| !ill && !declared && check == CheckStatus::None);
    let condition = needs.map(|n| {
        check = CheckStatus::Runtime;
        n.conditions
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ∧ ")
    });
    // The final term's shape program failed on the declared input shapes.
    let applied_err =
        matches!(&a.applied, Some(Ok(r)) if matches!(r.outcome, Outcome::ShapeError { .. }));
    let witness = a
        .witness
        .then(|| witness(check, needs.map(|n| &n.conditions)))
        .flatten()
        .map(|mut w| {
            w.repro = needs
                .zip(w.fails.as_ref())
                .and_then(|(n, fails)| repro(a, kind, span, n, fails));
            w
        });
    if name == RESULT && kind == "term" && applied_err {
        check = CheckStatus::Error;
    }
    let data = item.and_then(|i| i.data).map(|r| &r.outcome);
    let (view, display) = match item.and_then(|i| i.shape).map(|r| &r.outcome) {
        Some(Outcome::Value(v)) if !matches!(v, Value::Function(_)) => {
            (shape_view(v), format!("{v}"))
        }
        Some(Outcome::ShapeError { .. }) if check == CheckStatus::Error => {
            (ShapeView::Illegal { illegal: true }, "err".into())
        }
        // The shapes could not decide: the data's value has the shape.
        _ => match data.and_then(|o| match o {
            Outcome::Value(v) => shape::shape_of(v).ok(),
            _ => None,
        }) {
            Some(s) => (shape_view(&s), s.to_string()),
            // A function: its result's shape over its inputs', from its signature.
            None => match a.signatures.dims.iter().find(|(s, _, _)| *s == span) {
                Some((_, params, dims)) if !ill => {
                    let extents: Vec<String> = dims.iter().map(ToString::to_string).collect();
                    let shown = match params.as_slice() {
                        [] => format!("<{}>", extents.join(", ")),
                        ps => format!("\\{}. <{}>", ps.join(" "), extents.join(", ")),
                    };
                    (
                        ShapeView::Dims {
                            dims: Some(dims.iter().map(dim_view).collect()),
                            max: None,
                        },
                        shown,
                    )
                }
                _ => (
                    ShapeView::Dims {
                        dims: None,
                        max: None,
                    },
                    ty.unwrap_or_else(|| "ill-typed".into()),
                ),
            },
        },
    };
    StatementReport {
        span,
        kind: kind.to_string(),
        label: name.to_string(),
        defs: vec![Def {
            name: name.to_string(),
            shape: view,
            display,
            class: None,
            value: None,
        }],
        check,
        condition,
        witness,
        rule: match check {
            CheckStatus::Error | CheckStatus::Proven => {
                Some("Sekanina, Theorem 4.3 (#t evaluates to the shape of t's value)".into())
            }
            CheckStatus::Runtime if needs.is_some() => Some(
                "the checks of its #_C signature, simplified by SIZE_C's reduction (Sekanina, Chapter 5)"
                    .into(),
            ),
            _ => None,
        },
        ..StatementReport::default()
    }
}

/// A statement's witness (issue #26 item 3): a definition whose signature checks
/// extents of its arguments fails an application whose arguments' extents break the
/// check and passes the check under ones that keep it, found and evaluated by
/// `shapex-dims`; a program's own error fails whatever the sizes, since a VEC program
/// has one run. (An error only of the declared input shapes has those shapes, not a
/// witness.)
fn witness(check: CheckStatus, needs: Option<&Vec<shapex_dims::Constraint>>) -> Option<Witness> {
    let named = |m: shapex_dims::Model| m.iter().map(|(s, v)| (s.name().to_string(), v)).collect();
    match (check, needs) {
        (CheckStatus::Runtime, Some(cs)) => {
            let theta = shapex_dims::Constraint::and(cs.iter().cloned());
            let w = shapex_dims::witness(&shapex_dims::Facts::new(), &theta);
            Some(Witness {
                fails: w.fails.map(named),
                passes: w.passes.map(named),
                repro: None,
            })
        }
        (CheckStatus::Error, _) => Some(Witness {
            fails: Some(Default::default()),
            ..Witness::default()
        }),
        _ => None,
    }
}

/// The repro of a run-time check's failing sizes: a definition applying the
/// definition (after its line) or the final term (before it) to vectors of those
/// sizes.
fn repro(
    a: &Analysis,
    kind: &str,
    span: Span,
    needs: &views::Needs,
    fails: &std::collections::BTreeMap<String, i64>,
) -> Option<shapex_report::Fix> {
    let line = shapex_text::LineIndex::new(a.source)
        .line_col(span.start)
        .line;
    let (call, ty, at) = if kind == "term" {
        let text = a.source.get(span.start..span.end)?;
        (format!("({text})"), &a.typed.main.as_ref()?.ty, span.start)
    } else {
        let def = a.typed.defs.iter().find(|t| t.span == span)?;
        let at = a.source[span.end..]
            .find('\n')
            .map_or(a.source.len(), |i| span.end + i + 1);
        (def.name.clone(), &def.scheme.ty, at)
    };
    let callee = repro::Callee {
        call,
        ty,
        params: &needs.params,
        at,
        line,
    };
    let taken: Vec<&str> = a
        .program
        .defs
        .iter()
        .map(|d| d.name.name.as_str())
        .collect();
    let mut fix = repro::write(&callee, fails, &taken)?;
    if !a.source[..at].ends_with('\n') && at > 0 {
        fix.replacement.insert(0, '\n');
    }
    Some(fix)
}

/// A shape as the house's: `<~2, <~3, un>>` (a 2×3 matrix) has the dimensions
/// `[2, 3]`, `un` none; another shape (a pair's, a function's) is not an array's.
pub fn shape_view(v: &Value) -> ShapeView {
    let mut dims = Vec::new();
    let mut at = v;
    loop {
        match at {
            Value::Un | Value::Size(_) => {
                return ShapeView::Dims {
                    dims: Some(dims),
                    max: None,
                }
            }
            Value::Pair(n, rest) => match n.as_ref() {
                Value::Size(n) => {
                    dims.push(
                        i64::try_from(*n).map_or(DimView::Symbolic(n.to_string()), DimView::Known),
                    );
                    at = rest;
                }
                _ => break,
            },
            _ => break,
        }
    }
    ShapeView::Dims {
        dims: None,
        max: None,
    }
}

/// An extent as the house shows it: a number, or its symbolic text (`x_1+y_1`).
fn dim_view(d: &shapex_dims::Dim) -> DimView {
    d.as_known()
        .map_or_else(|| DimView::Symbolic(d.to_string()), DimView::Known)
}

/// `shapex explain CODE` for the plug-in's codes.
pub fn explain(code: &str) -> Option<&'static str> {
    Some(match code {
        crate::codes::MISMATCH => "A subterm has another type than its context needs (Sekanina, §2.1, the simple types of VEC and SIZE). The message names both types. A definition's annotation that its body does not have is reported the same way.",
        crate::codes::VECTOR_OF_FUNCTIONS => "VEC's vectors hold data only: their entries' type may not contain an arrow (Sekanina, §2.1: `vec τ` for a data type τ). Vectors of functions would have shapes that cannot be compared, so the shape analysis would be unsound for them.",
        crate::codes::EQ_NOT_THETA => "`eq` (and SIZE_C's `=`) compares shapes only: its operands' type must be θ — `un`, `sz` or a product of them (Sekanina, §2.2). Comparing functions or data is not allowed.",
        crate::codes::IFS_CONDITION => "`ifs c then a else b` branches on a size: `c` must have type `sz` (`zero` is true, any `succ _` false; Sekanina, §2.2). For a condition on data, use the data conditional `if` (Chapter 6).",
        crate::codes::INFINITE => "The type would have to contain itself (the occurs check of unification): the term applies something to itself or builds a value of its own type.",
        crate::codes::UNBOUND => "The name is not bound by a λ, `rec` or `let`, not defined by an earlier `def` (a definition does not see itself or later ones), not in the prelude, and not a combinator.",
        crate::codes::EMPTY_VECTOR => "VEC has no empty vector (Sekanina, §2.4): every vector is built from `sing` and `cons`, so it has at least one entry, and `hd` is always defined.",
        crate::codes::TOO_LARGE => "The definition's type grew past 2,000 nodes (types may grow exponentially with let-polymorphism); it is taken as `'a` and not checked further.",
        codes::SHAPE_ERROR => "The shape program #t (Sekanina, Fig 4.1) evaluated to `err` without looking at any data: by Theorem 4.3, a value of the term would have a shape that #t computes, so the term has no value. It fails with a shape error — unless a data error (division by zero) or a loop that never ends comes first, which the shapes cannot see (§6, N2 and N3). With declared input shapes, the final term's shape program was applied to those shapes.",
        codes::EVAL_SHAPE_ERROR => "The data evaluation reached `err`: `pred zero`, `tl` of a singleton, an explicit `err` or a failed `check`. The message says which and with which operands.",
        codes::DATA_ERROR => "The evaluation failed on its data (division by zero): a data error, not a shape error. The shape program cannot see it, since shapes carry no data (Sekanina, §6, N3).",
        codes::UNDECIDED => "The shape program reached a data conditional `if t then a else b` whose branches have different shapes (Sekanina §5.1, option 2: check that they are equal). Shapes carry no data, so they cannot say which branch runs: this is not a shape error of the program, and the data evaluation decides (the thesis: such a term \"cannot be analysed correctly\").",
        codes::OUT_OF_FUEL => "The evaluation took more steps (or nested deeper) than its budget allows: its result is unknown, not an error. A `rec` that never ends looks like this.",
        "syntax.expected" => "The VEC grammar could not read the item (the message says what it expected and where). The item is skipped up to the next line that starts in the first column or with `def`, and the rest of the file is still analysed. The syntax is listed in the app's help and in shapex-vec-syntax: `\\x. t`, `rec f. t`, `ifs c then a else b`, `<a, b>`, `[a, b]`, `~3`, `def name x = t`.",
        "syntax.comment" => "A block comment `{-` has no closing `-}`: the rest of the file is the comment.",
        "syntax.nesting" => "Brackets and binding forms nest more than 100 deep in one item, or a term is more than 400 nodes deep: the item is skipped, so no analysis recurses without bound.",
        "syntax.numeral" => "A numeral or a size `~n` is larger than 2^64 − 1.",
        "syntax.let-arity" => "`let x, y = a, b in t` needs as many terms as names (SIZE_C's sugar, Sekanina §5.1).",
        "syntax.expression-not-last" => "A file holds definitions, then at most one term to evaluate, last: a term followed by another item is an error.",
        codes::INPUTS => "The Input shapes option does not fit the final term: each line must be one SIZE term (`<~2, <~3, un>>` is the shape of a 2×3 matrix of numbers), as many as the final term takes arguments, of the shape types #τ of its parameters.",
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
