//! The questions' answers as JSON (issue #21 item 10): what `shapex migrate --format
//! json` prints and the JSON view shows. Types print in the canonical form
//! (`TensorType((1, 2, Dyn))`, `TensorType((4,))`, `Dyn`).

use crate::gen::Origin;
use crate::lattice::Poset;
use crate::migration::{Answers, Possibility, Verdict};
use crate::subject::Subject;
use serde::Serialize;
use shapex_text::{LineIndex, Range};
use std::collections::BTreeMap;

pub const VIEW: &str = "answers";

#[derive(Serialize)]
struct Json {
    model: Option<String>,
    class: Option<String>,
    well_typed: bool,
    output: Option<String>,
    types: BTreeMap<String, String>,
    static_migration: Question,
    constrained: Option<Question>,
    branches: Vec<Branch>,
    conflict: Vec<String>,
    /// The skeletons of the Lattice view (none for an ill-typed model).
    lattice: Vec<Skeleton>,
}

#[derive(Serialize)]
struct Skeleton {
    /// The Lattice view's vertex id (`m1f`): what `--set expand=m1f` expands.
    id: String,
    /// Which positions are numbers (`#`) and which stay `Dyn`.
    skeleton: String,
    state: &'static str,
    frontier: bool,
    /// A migration of this skeleton, when inhabited.
    migration: Option<BTreeMap<String, String>>,
}

#[derive(Serialize)]
struct Question {
    answer: &'static str,
    declarations: BTreeMap<String, String>,
    conflict: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<String>,
}

#[derive(Serialize)]
struct Branch {
    line: u32,
    /// The variable a comparison's value is bound to (`eq = x.dim() == 3`), if one;
    /// `null` for an `if`.
    var: Option<String>,
    condition: String,
    then: &'static str,
    #[serde(rename = "else")]
    orelse: &'static str,
}

/// The answers, pretty-printed.
pub fn json(
    source: &str,
    subject: &dyn Subject,
    answers: &Answers,
    poset: Option<&Poset>,
) -> String {
    let index = LineIndex::new(source);
    let at = |s: shapex_text::Span| Range::of(s, &index).line;
    let conflict = |c: &[Origin]| crate::questions::conflict_lines(c, &at);
    let question = |v: &Verdict| match v {
        Verdict::Sat(w) => Question {
            answer: "sat",
            declarations: w.iter().map(|(n, t)| (n.clone(), t.to_string())).collect(),
            conflict: Vec::new(),
            why: None,
        },
        Verdict::Unsat(c) => Question {
            answer: "unsat",
            declarations: BTreeMap::new(),
            conflict: conflict(c),
            why: None,
        },
        Verdict::Unknown(why) => Question {
            answer: "unknown",
            declarations: BTreeMap::new(),
            conflict: Vec::new(),
            why: Some(why.clone()),
        },
        // A candidate is no answer: its declarations are given with the reason.
        Verdict::Candidate(w, at) => Question {
            answer: "unknown",
            declarations: w.iter().map(|(n, t)| (n.clone(), t.to_string())).collect(),
            conflict: Vec::new(),
            why: Some(crate::questions::candidate_why(
                at.map(|s| Range::of(s, &index).line),
            )),
        },
    };
    let summary = subject.summary();
    let types = summary
        .types
        .iter()
        .map(|(n, t)| (n.clone(), t.to_string()))
        .collect();
    let word = |p: Possibility| match p {
        Possibility::Possible => "possible",
        Possibility::Impossible => "impossible",
        Possibility::Unknown => "unknown",
    };
    let branches = answers
        .branches
        .iter()
        .map(|b| {
            let test = summary
                .tests
                .get(&(b.span.start, b.span.end))
                .copied()
                .unwrap_or(b.span);
            // A comparison kept as a value: its assignment's right-hand side.
            let test = match &b.var {
                Some(_) => source
                    .get(b.span.start..b.span.end)
                    .and_then(|t| t.find('=').map(|i| i + 1))
                    .map_or(b.span, |i| {
                        shapex_text::Span::new(b.span.start + i, b.span.end)
                    }),
                None => test,
            };
            Branch {
                line: Range::of(b.span, &index).line,
                var: b.var.clone(),
                condition: source
                    .get(test.start..test.end)
                    .unwrap_or("")
                    .trim()
                    .to_string(),
                then: word(b.then),
                orelse: word(b.orelse),
            }
        })
        .collect();
    let top = match (&answers.q2, &answers.q1) {
        (_, Verdict::Unsat(c)) | (Some(Verdict::Unsat(c)), _) => conflict(c),
        _ => Vec::new(),
    };
    let j = Json {
        model: summary.model.clone(),
        class: summary.class.clone(),
        well_typed: !answers.ill_typed,
        output: summary.output.as_ref().map(ToString::to_string),
        types,
        static_migration: question(&answers.q1),
        constrained: answers.q2.as_ref().map(question),
        branches,
        conflict: top,
        lattice: poset
            .map(|p| skeletons(p, subject.declarations()))
            .unwrap_or_default(),
    };
    serde_json::to_string_pretty(&j).unwrap_or_default()
}

fn skeletons(p: &Poset, inputs: &[(String, crate::types::TensorType)]) -> Vec<Skeleton> {
    let inhabited = |k: usize| matches!(p.nodes[k].state, Verdict::Sat(_));
    p.nodes
        .iter()
        .enumerate()
        .map(|(k, n)| {
            let (state, migration) = match &n.state {
                Verdict::Sat(w) => (
                    "inhabited",
                    Some(w.iter().map(|(x, t)| (x.clone(), t.to_string())).collect()),
                ),
                Verdict::Unsat(_) => ("empty", None),
                Verdict::Unknown(_) | Verdict::Candidate(..) => ("unknown", None),
            };
            Skeleton {
                id: crate::questions::vertex_id(n),
                skeleton: crate::questions::label(p, inputs, n, false),
                state,
                frontier: inhabited(k)
                    && !p.covers.iter().any(|&(lo, hi)| lo == k && inhabited(hi)),
                migration,
            }
        })
        .collect()
}
