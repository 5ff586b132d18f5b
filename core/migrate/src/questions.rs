//! The three questions ([`crate::migration`]) as a Report's parts: Info diagnostics on
//! `forward` (Q1, Q2) and on each `if` (Q3), the constraint lines' errors with their
//! line and column, and the Migration view (a listing of the answers and of the
//! constraints they were asked of).

use crate::gen::Origin;
use crate::lattice::{parse_expanded, poset, Node, Poset};
use crate::migration::{answer, Answers, Fuel, Migration, Possibility, Verdict};
use crate::subject::{annotation_fix, Subject};
use crate::types::TensorType;
use shapex_migrate_syntax::user;
use shapex_report::view::{Edge, Lattice, Payload, Step, Text, Vertex, VertexMark, View};
use shapex_report::{Options, Severity};
use shapex_text::{Diagnostic, LineIndex, Range, Span};

pub const VIEW: &str = "migration";
pub const LATTICE: &str = "lattice";

/// The setting that lists the lattice's expanded nodes: their vertex ids (`m1f`, the
/// mask in hexadecimal), which a face adds when the reader asks to expand a node; stale
/// or malformed entries are ignored.
pub use shapex_report::view::EXPAND;

/// What the questions add to a PyTorch report.
pub struct Questions {
    pub answers: Answers,
    pub diagnostics: Vec<Diagnostic>,
    pub views: Vec<View>,
}

/// The questions for `subject` under the settings `options` (its `constraints`).
pub fn ask(source: &str, subject: &dyn Subject, options: &Options) -> Questions {
    let constraints = options.get("constraints").unwrap_or("");
    let header = subject.header();
    let inputs = subject.declarations();
    let (written, bad) = user::parse(constraints);
    let mut diagnostics: Vec<Diagnostic> = bad
        .iter()
        .map(|e| {
            Diagnostic::warning(
                "mig.constraint",
                format!(
                    "constraint line {}, column {}: {}; it is left out",
                    e.line, e.column, e.message
                ),
                header,
            )
        })
        .collect();
    let fuel = Fuel::new(crate::migration::FUEL);
    let answers = answer(subject, &written, &fuel);
    let index = LineIndex::new(source);
    let at = |s: Span| Range::of(s, &index).line;
    // Nothing to write back when the annotations are already that migration.
    let annotate = |v: &Verdict| match v {
        Verdict::Sat(w) if w != inputs => {
            let types: Vec<TensorType> = w.iter().map(|(_, t)| t.clone()).collect();
            let title = format!("annotate {} with this static migration", subject.declared());
            annotation_fix(source, subject, &types, title)
        }
        _ => None,
    };
    let mut q1 = verdict(
        "mig.q1",
        "Q1 (a static migration)",
        &answers.q1,
        header,
        &at,
    );
    q1.fix = annotate(&answers.q1);
    diagnostics.push(q1);
    if let Some(v) = &answers.q2 {
        let mut q2 = verdict("mig.q2", "Q2 (under your constraints)", v, header, &at);
        q2.fix = annotate(v);
        diagnostics.push(q2);
    }
    let mut notes = answers.notes.clone();
    let mut views = vec![View {
        id: VIEW.into(),
        payload: Payload::Text(Text {
            text: listing(&answers, &at, !written.is_empty(), subject.declared()).join("\n"),
            marker: Some("Q".into()),
            sources: Vec::new(),
        }),
    }];
    let poset = (!answers.ill_typed && !inputs.is_empty()).then(|| {
        let witness = match (&answers.q2, &answers.q1) {
            (Some(Verdict::Sat(w)), _) | (None, Verdict::Sat(w)) => Some(&w[..]),
            _ => None,
        };
        let more = std::cell::RefCell::new(Vec::new());
        let expanded = parse_expanded(options.get(EXPAND).unwrap_or(""));
        let m = Migration::new(subject, &written, &more, &fuel);
        let p = poset(&m, witness, &expanded);
        notes.extend(more.into_inner());
        p
    });
    if let Some(p) = &poset {
        views.push(View {
            id: LATTICE.into(),
            payload: Payload::Lattice(lattice(source, p, subject, &index)),
        });
    }
    views.push(View {
        id: crate::answers::VIEW.into(),
        payload: Payload::Text(Text {
            text: crate::answers::json(source, subject, &answers, poset.as_ref()),
            marker: None,
            sources: Vec::new(),
        }),
    });
    for d in notes {
        let d = Diagnostic { span: header, ..d };
        if !diagnostics.contains(&d) {
            diagnostics.push(d);
        }
    }
    Questions {
        answers,
        diagnostics,
        views,
    }
}

fn verdict(
    code: &str,
    question: &str,
    v: &Verdict,
    header: Span,
    at: &dyn Fn(Span) -> u32,
) -> Diagnostic {
    let message = match v {
        Verdict::Sat(w) => format!("{question}: yes — {}", witness(w)),
        Verdict::Unsat(conflict) => format!("{question}: no — {}", conflict_text(conflict, at)),
        Verdict::Unknown(why) => format!("{question}: unknown — {why}"),
        Verdict::Candidate(w, span) => format!(
            "{question}: unknown — {} type-checks, but {}",
            witness(w),
            candidate_why(span.map(at))
        ),
    };
    Diagnostic::new(Severity::Info, code, message, header)
}

/// Why a candidate is no answer: where the checker stops seeing.
pub(crate) fn candidate_why(line: Option<u32>) -> String {
    match line {
        Some(line) => format!("from line {line} on the checker cannot follow the values (a construct it does not model gives Dyn), so PyTorch may still refuse these sizes"),
        None => "forward's result is not static with it (some rule gives Dyn), so PyTorch may still refuse these sizes".into(),
    }
}

fn witness(w: &[(String, crate::types::TensorType)]) -> String {
    w.iter()
        .map(|(n, t)| format!("{n}: {t}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A conflict's requirements, `line N: what`, each once (a loop or a module run twice
/// asks the same of a line more than once).
pub(crate) fn conflict_lines(conflict: &[Origin], at: &dyn Fn(Span) -> u32) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for o in conflict {
        let l = format!("line {}: {}", at(o.span), o.describe());
        if !out.contains(&l) {
            out.push(l);
        }
    }
    out
}

fn conflict_text(conflict: &[Origin], at: &dyn Fn(Span) -> u32) -> String {
    format!(
        "these cannot all hold: {}",
        conflict_lines(conflict, at).join("; ")
    )
}

fn listing(
    a: &Answers,
    at: &dyn Fn(Span) -> u32,
    constrained: bool,
    declared: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    // One requirement per line: a conflict of a real model is long.
    let says = |v: &Verdict| -> Vec<String> {
        match v {
            Verdict::Sat(w) => vec![format!("yes: {}", witness(w))],
            Verdict::Unsat(c) => {
                let mut lines = vec!["no: these cannot all hold:".to_string()];
                lines.extend(
                    conflict_lines(c, at)
                        .into_iter()
                        .map(|l| format!("    {l}")),
                );
                lines
            }
            Verdict::Unknown(why) => vec![format!("unknown: {why}")],
            Verdict::Candidate(w, span) => vec![format!(
                "unknown: {} type-checks, but {}",
                witness(w),
                candidate_why(span.map(at))
            )],
        }
    };
    let mut ask = |q: &str, v: &Verdict| {
        let mut lines = says(v).into_iter();
        out.push(format!("{q} {}", lines.next().unwrap_or_default()));
        out.extend(lines);
    };
    ask("Q1 Is there a static migration?", &a.q1);
    match &a.q2 {
        Some(v) => ask("Q2 Under your constraints?", v),
        None if !constrained => out.push(
            "Q2 Under your constraints? (none given: add them in the Constraints box)".into(),
        ),
        None => {}
    }
    if a.branches.is_empty() {
        out.push(
            "Q3 No `if` (or comparison kept as a value) compares sizes that the input leaves open."
                .into(),
        );
    }
    for b in &a.branches {
        let word = |p: Possibility| match p {
            Possibility::Possible => "possible",
            Possibility::Impossible => "impossible",
            Possibility::Unknown => "unknown",
        };
        let line = at(b.span);
        out.push(match &b.var {
            None => format!(
                "Q3 The `if` on line {line}: then {}, else {}.",
                word(b.then),
                word(b.orelse)
            ),
            Some(v) => format!(
                "Q3 `{v}` on line {line}: true {}, false {}.",
                word(b.then),
                word(b.orelse)
            ),
        });
    }
    out.push(String::new());
    out.push(format!(
        "What the program needs of {declared} as annotated (Gen, §4):"
    ));
    if a.constraints.is_empty() {
        out.push("  (nothing: every size it uses is annotated, or none is used)".into());
    }
    for o in &a.constraints {
        out.push(format!(
            "  line {}: {}    ({})",
            at(o.span),
            o.constraint,
            o.why
        ));
    }
    out
}

/// The poset of skeletons as a Lattice payload: a node per skeleton, labelled with its
/// migration (or `#` for "a number" where none exists), classed inhabited / empty /
/// unknown, the frontier and the empty nodes also marked by outline, the nodes with
/// neighbours not shown expandable; a state per solver run, in order.
fn lattice(source: &str, p: &Poset, subject: &dyn Subject, index: &LineIndex) -> Lattice {
    let id = |k: usize| vertex_id(&p.nodes[k]);
    let expandable = p.expandable();
    let inhabited = |k: usize| matches!(p.nodes[k].state, Verdict::Sat(_));
    let h = subject.header();
    let range = Some(Range::of(Span::new(h.start, h.start), index));
    let nodes = p
        .nodes
        .iter()
        .enumerate()
        .map(|(k, n)| {
            let frontier =
                inhabited(k) && !p.covers.iter().any(|&(lo, hi)| lo == k && inhabited(hi));
            let (class, mark) = match &n.state {
                Verdict::Sat(_) if frontier => ("inhabited", Some(VertexMark::Frontier)),
                Verdict::Sat(_) => ("inhabited", None),
                Verdict::Unsat(_) => ("empty", Some(VertexMark::Empty)),
                Verdict::Unknown(_) | Verdict::Candidate(..) => ("unknown", None),
            };
            let fix = match &n.state {
                Verdict::Sat(w) if w != subject.declarations() => {
                    let types: Vec<TensorType> = w.iter().map(|(_, t)| t.clone()).collect();
                    let title = format!("annotate {} with this migration", subject.declared());
                    annotation_fix(source, subject, &types, title).map(|mut f| {
                        f.range = Range::of(f.span, index);
                        f
                    })
                }
                _ => None,
            };
            Vertex {
                id: id(k),
                label: label(p, subject.declarations(), n, true),
                class: class.into(),
                range,
                mark,
                fix,
                expandable: expandable[k],
                detail: detail(&n.state, subject, &|s| Range::of(s, index).line),
                ..Vertex::default()
            }
        })
        .collect();
    let covers = p
        .covers
        .iter()
        .map(|&(lo, hi)| Edge {
            from: id(lo),
            to: id(hi),
            label: String::new(),
        })
        .collect();
    let states = (0..p.order.len())
        .map(|i| Step {
            title: format!("solver run {} of {}", i + 1, p.order.len()),
            classes: p
                .order
                .iter()
                .skip(i + 1)
                .map(|&k| (id(k), "undecided".to_string()))
                .collect(),
        })
        .collect();
    Lattice {
        nodes,
        covers,
        states,
    }
}

/// A node's vertex id, from its skeleton alone (`m1f`: positions 0–4 are numbers), so
/// that it names the same skeleton in every analysis of the program whatever was
/// expanded: the face sends it back in the [`EXPAND`] setting.
pub fn vertex_id(n: &Node) -> String {
    match n.statics {
        Some(mask) => format!("m{mask:x}"),
        None => "annotated".into(),
    }
}

/// What a lattice node shows when picked: every value's type under its migration, or
/// why it has none.
fn detail(state: &Verdict, subject: &dyn Subject, at: &dyn Fn(Span) -> u32) -> String {
    match state {
        Verdict::Sat(w) => {
            let types = w.iter().map(|(_, t)| t.clone()).collect();
            let lines: Vec<String> = subject
                .types_under(types)
                .iter()
                .map(|(n, t)| format!("{n}: {t}"))
                .collect();
            lines.join("\n")
        }
        Verdict::Unsat(c) => {
            let mut lines = vec!["no migration: these cannot all hold".to_string()];
            lines.extend(conflict_lines(c, at));
            lines.join("\n")
        }
        Verdict::Unknown(why) => format!("unknown: {why}"),
        Verdict::Candidate(w, span) => format!(
            "unknown: {} type-checks, but {}",
            witness(w),
            candidate_why(span.map(at))
        ),
    }
}

/// `x: (1, Dyn, 28, 28)` for a node's migration; `#` where a position is a number
/// in the skeleton but no migration was found; `as annotated` for the program itself.
pub(crate) fn label(p: &Poset, inputs: &[(String, TensorType)], n: &Node, values: bool) -> String {
    let Some(mask) = n.statics else {
        return "as annotated".into();
    };
    let witness = match &n.state {
        Verdict::Sat(w) if values => Some(w),
        _ => None,
    };
    let mut parts = Vec::new();
    for (i, ((x, t), r)) in inputs.iter().zip(&p.ranks).enumerate() {
        let Some(rank) = t.rank().or(*r) else {
            parts.push(format!("{x}: Dyn"));
            continue;
        };
        let dims: Vec<String> = (0..rank)
            .map(|j| {
                let k = p.positions.iter().position(|&q| q == (i, j));
                let shown = witness
                    .and_then(|w| w.get(i))
                    .and_then(|(_, t)| t.dims().and_then(|d| d.get(j)).copied());
                match (k, shown) {
                    (Some(k), Some(d)) if mask & (1 << k) != 0 => d.to_string(),
                    (Some(k), _) if mask & (1 << k) != 0 => "#".into(),
                    (Some(_), _) => "Dyn".into(),
                    (None, _) => t
                        .dims()
                        .and_then(|d| d.get(j))
                        .map_or("Dyn".into(), ToString::to_string),
                }
            })
            .collect();
        let comma = if rank == 1 { "," } else { "" };
        parts.push(format!("{x}: ({}{comma})", dims.join(", ")));
    }
    parts.join("; ")
}

/// Fills the witnesses of `statements` (`Options::witness`), Gen's requirements over
/// `subject` as annotated under the user's constraints (see
/// [`crate::migration::Migration::witnesses`]).
pub fn witnesses(
    source: &str,
    subject: &dyn Subject,
    options: &Options,
    statements: &mut [shapex_report::StatementReport],
) {
    let (written, _) = user::parse(options.get("constraints").unwrap_or(""));
    let notes = std::cell::RefCell::new(Vec::new());
    let fuel = Fuel::new(0);
    Migration::new(subject, &written, &notes, &fuel).witnesses(source, statements);
}
