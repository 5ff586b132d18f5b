//! The three questions ([`crate::migration`]) as a Report's parts: Info diagnostics on
//! `forward` (Q1, Q2) and on each `if` (Q3), the constraint lines' errors with their
//! line and column, and the Migration view (a listing of the answers and of the
//! constraints they were asked of).

use crate::forward::Checked;
use crate::gen::Origin;
use crate::migration::{answer, Answers, Possibility, Verdict};
use crate::modules::Built;
use shapex_migrate_syntax::user;
use shapex_report::view::{Payload, Text, View};
use shapex_report::Severity;
use shapex_text::{Diagnostic, LineIndex, Range, Span};

pub const VIEW: &str = "migration";

/// What the questions add to a PyTorch report.
pub struct Questions {
    pub answers: Answers,
    pub diagnostics: Vec<Diagnostic>,
    pub view: View,
}

pub fn ask(source: &str, built: &Built, checked: &Checked, constraints: &str) -> Questions {
    let header = checked.forward.map_or(Span::new(0, 0), |s| {
        Span::new(s.start, s.start + source[s.start..].find('\n').unwrap_or(0))
    });
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
    let answers = answer(built, checked, &written);
    let index = LineIndex::new(source);
    let at = |o: &Origin| Range::of(o.span, &index).line;
    diagnostics.push(verdict(
        "mig.q1",
        "Q1 (a static migration)",
        &answers.q1,
        header,
        &at,
    ));
    if let Some(q2) = &answers.q2 {
        diagnostics.push(verdict(
            "mig.q2",
            "Q2 (under your constraints)",
            q2,
            header,
            &at,
        ));
    }
    diagnostics.extend(answers.notes.iter().map(|d| Diagnostic {
        span: header,
        ..d.clone()
    }));
    let view = View {
        id: VIEW.into(),
        payload: Payload::Text(Text {
            text: listing(&answers, &at, !written.is_empty()).join("\n"),
            marker: Some("Q".into()),
        }),
    };
    Questions {
        answers,
        diagnostics,
        view,
    }
}

fn verdict(
    code: &str,
    question: &str,
    v: &Verdict,
    header: Span,
    at: &dyn Fn(&Origin) -> u32,
) -> Diagnostic {
    let message = match v {
        Verdict::Sat(w) => format!("{question}: yes — {}", witness(w)),
        Verdict::Unsat(conflict) => format!("{question}: no — {}", conflict_text(conflict, at)),
        Verdict::Unknown(why) => format!("{question}: unknown — {why}"),
    };
    Diagnostic::new(Severity::Info, code, message, header)
}

fn witness(w: &[(String, crate::types::TensorType)]) -> String {
    w.iter()
        .map(|(n, t)| format!("{n}: {t}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn conflict_text(conflict: &[Origin], at: &dyn Fn(&Origin) -> u32) -> String {
    let mut parts: Vec<String> = Vec::new();
    for o in conflict {
        let p = format!("line {}: {}", at(o), o.why);
        if !parts.contains(&p) {
            parts.push(p);
        }
    }
    format!("these cannot all hold: {}", parts.join("; "))
}

fn listing(a: &Answers, at: &dyn Fn(&Origin) -> u32, constrained: bool) -> Vec<String> {
    let mut out = Vec::new();
    let says = |v: &Verdict| match v {
        Verdict::Sat(w) => format!("yes: {}", witness(w)),
        Verdict::Unsat(c) => format!("no: {}", conflict_text(c, at)),
        Verdict::Unknown(why) => format!("unknown: {why}"),
    };
    out.push(format!("Q1 Is there a static migration? {}", says(&a.q1)));
    match &a.q2 {
        Some(v) => out.push(format!("Q2 Under your constraints? {}", says(v))),
        None if !constrained => out.push(
            "Q2 Under your constraints? (none given: add them in the Constraints box)".into(),
        ),
        None => {}
    }
    if a.branches.is_empty() {
        out.push("Q3 No `if` compares sizes that the input leaves open.".into());
    }
    for b in &a.branches {
        let word = |p: Possibility| match p {
            Possibility::Possible => "possible",
            Possibility::Impossible => "impossible",
            Possibility::Unknown => "unknown",
        };
        let line = at(&Origin {
            constraint: shapex_dims::Constraint::True,
            span: b.span,
            why: String::new(),
        });
        out.push(format!(
            "Q3 The `if` on line {line}: then {}, else {}.",
            word(b.then),
            word(b.orelse)
        ));
    }
    out.push(String::new());
    out.push("What the model needs of its parameters as annotated (Gen, §4):".into());
    for o in &a.constraints {
        out.push(format!("  line {}: {}    ({})", at(o), o.constraint, o.why));
    }
    out
}
