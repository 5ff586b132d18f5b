//! The Checks view: the program with its shape checks inlined as `▶` lines, the way
//! Joisha et al. show them (§9, Figures 4–6). Only checks the analysis could not
//! discharge are kept — a check proven by earlier statements is redundant and removed,
//! as copy propagation and CSE remove it in Figure 6 — and the preallocation hints of
//! §12 (Figures 7–8) stand before their loops. Symbols the analysis minted show by
//! their aliases (`?₁`), each explained by a `legend` note where it first appears.

use shapex_report::view::{AnnotatedSource, LineNote};
use shapex_report::{CheckStatus, Diagnostic, Report, Severity, StatementReport};
use std::collections::BTreeMap;

/// The mark of a statement no execution reaches (not a failure: nothing runs there).
const NOT_REACHED: &str = "% not reached";

/// The Checks view of an analysed `report`: a header, then before each line the checks
/// its statements still need (`▶ …`), preallocation hints and "not reached" marks.
pub fn inline_checks(report: &Report) -> AnnotatedSource {
    let mut before_line: BTreeMap<u32, Vec<(String, &str)>> = BTreeMap::new();
    // Symbols show by their aliases (`?₁`); each is explained where it first appears.
    let mut explained: Vec<String> = Vec::new();
    let count = |c: CheckStatus| report.statements.iter().filter(|s| s.check == c).count();
    let errors = own_errors(report);
    for (i, s) in report.statements.iter().enumerate() {
        if s.nonviable {
            let lines = before_line.entry(s.range.line).or_default();
            if !lines.iter().any(|(l, _)| l == NOT_REACHED) {
                lines.push((NOT_REACHED.to_string(), "unreached"));
            }
            continue;
        }
        if let Some(line) = check_line(s, errors.get(&i).copied()) {
            let lines = before_line.entry(s.range.line).or_default();
            lines.push((s.aliased(&line), "inserted"));
            legend(s.legend_of(&line), &mut explained, lines);
        }
    }
    let aliases = report.aliases();
    for d in report
        .diagnostics
        .iter()
        .filter(|d| d.code == "shape.prealloc")
    {
        let hint = aliases.aliased(&d.message, d.span);
        let lines = before_line.entry(d.range.line).or_default();
        lines.push((format!("% {}", hint.text), "hint"));
        legend(hint.legend, &mut explained, lines);
    }
    let header = [
        "% Shape checks inlined (Joisha et al. 2000, §9, Figures 4–6):".to_string(),
        format!(
            "% {} run-time check(s) kept, {} proven redundant and removed, {} definite error(s).",
            count(CheckStatus::Runtime),
            count(CheckStatus::Proven),
            count(CheckStatus::Error)
        ),
    ];
    let mut notes: Vec<LineNote> = header
        .into_iter()
        .map(|text| LineNote {
            line: 0,
            text,
            class: "header".into(),
        })
        .collect();
    for (line, checks) in before_line {
        for (text, class) in checks {
            let text = if class == LEGEND {
                text
            } else {
                format!("▶ {text}")
            };
            notes.push(LineNote {
                line,
                text,
                class: class.into(),
            });
        }
    }
    AnnotatedSource { notes }
}

/// The class of a note that explains an alias (`%   ?₁ = rows of c, …`).
const LEGEND: &str = "legend";

/// Adds, after a check, the legend lines of the aliases it shows for the first time.
fn legend(lines: Vec<String>, explained: &mut Vec<String>, out: &mut Vec<(String, &str)>) {
    for l in lines {
        if !explained.contains(&l) {
            out.push((format!("%   {l}"), LEGEND));
            explained.push(l);
        }
    }
}

/// The first error diagnostic of each statement (by index): the one whose span lies in
/// the statement's and in no statement nested inside it (an `if` spans its body).
fn own_errors(report: &Report) -> BTreeMap<usize, &Diagnostic> {
    let within = |inner: shapex_report::Span, outer: shapex_report::Span| {
        outer.start <= inner.start && inner.end <= outer.end
    };
    let mut owners = BTreeMap::new();
    for d in report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
    {
        let owner = report
            .statements
            .iter()
            .enumerate()
            .filter(|(_, s)| within(d.span, s.span))
            .min_by_key(|(_, s)| s.span.end - s.span.start);
        if let Some((i, _)) = owner {
            owners.entry(i).or_insert(d);
        }
    }
    owners
}

/// Whether a definite error's condition says something the reader can act on: it
/// names an unknown the statement shows (`n == 5`). A condition on known extents folds
/// to `false` (or to a comparison of numbers), and "false never holds" says nothing;
/// the statement's diagnostic then says what failed.
fn informative(condition: &str, s: &StatementReport) -> bool {
    s.symbols
        .iter()
        .any(|n| condition.contains(n.name.as_str()))
}

/// `s_c ← <p1,q2>; assert(p2 == q1)` for a statement whose check stays at run time;
/// for a definite error, the condition that never holds or, when that is no predicate
/// on unknowns, the statement's own error message.
fn check_line(s: &StatementReport, error: Option<&Diagnostic>) -> Option<String> {
    let condition = s.condition.as_deref().unwrap_or("θ");
    let shapes = s
        .defs
        .iter()
        .map(|d| format!("s_{} ← {}", d.name, d.display))
        .collect::<Vec<_>>()
        .join("; ");
    let lead = if shapes.is_empty() {
        String::new()
    } else {
        format!("{shapes}; ")
    };
    match s.check {
        CheckStatus::Runtime => Some(format!("{lead}assert({condition})")),
        CheckStatus::Error => match error {
            Some(d) if !informative(condition, s) => Some(format!("error: {}", d.message)),
            _ => Some(format!("error: {condition} never holds")),
        },
        CheckStatus::Proven | CheckStatus::None => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::Mode;

    #[test]
    fn figure_6_keeps_checks_at_c_and_d_only() {
        let src = "m = round(4*rand+1);\nn = round(5*rand+1);\nx = round(5*rand+1);\n\
                   y = round(6*rand+1);\na = rand(m, n);\nb = rand(x, y);\nc = a*b;\nd = c+a;\ne = d-a;\n";
        let report = crate::Matlab::new().analyze(src, &Mode::Paper.options());
        let view = super::inline_checks(&report).render(src);
        let asserts: Vec<&str> = view.lines().filter(|l| l.contains("▶")).collect();
        assert_eq!(asserts.len(), 2, "{view}");
        // The source line after a check, past the legend of the aliases it shows.
        let next_line = |needle: &str| {
            let i = view.lines().position(|l| l.contains(needle)).unwrap();
            let mut after = view.lines().skip(i + 1);
            after.find(|l| !l.starts_with("%   ")).unwrap().to_string()
        };
        assert!(
            view.contains("▶ s_c ← <?₁,?₂>; assert(")
                && view.contains("\n%   ?₁ = rows of c, known when line 7 runs"),
            "{view}"
        );
        assert_eq!(next_line("s_c ←"), "c = a*b;");
        assert_eq!(next_line("s_d ←"), "d = c+a;");
        let e = report.statements.iter().find(|s| s.label == "e").unwrap();
        assert_eq!(e.check, shapex_report::CheckStatus::Proven);
        assert!(!next_line("s_d ←").is_empty() && view.contains("\ne = d-a;\n"));
    }

    fn error_lines(src: &str, mode: Mode) -> Vec<String> {
        let report = crate::Matlab::new().analyze(src, &mode.options());
        let view = super::inline_checks(&report).render(src);
        view.lines()
            .filter(|l| l.contains("▶ error"))
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn a_definite_error_on_known_shapes_says_what_failed() {
        // θ folds to false on known extents: the line gives the diagnostic's message.
        let lines = error_lines("a = ones(3,4);\nb = ones(5,6);\nc = a*b;\n", Mode::Modern);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(!lines[0].contains("false never holds"), "{lines:?}");
        assert!(
            lines[0].contains("mtimes") && lines[0].contains("<3,4>") && lines[0].contains("<5,6>"),
            "{lines:?}"
        );
        // In an if's body: the body statement gets the message, not the if.
        let lines = error_lines(
            "a = ones(3,4);\nif rand > 0.5\n  c = a*a;\nend\n",
            Mode::Modern,
        );
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains("`a*a` fails"), "{lines:?}");
        let lines = error_lines("x = [1 2 3] + [1; 2];\n", Mode::Paper);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(!lines[0].contains("false never holds"), "{lines:?}");
    }

    #[test]
    fn a_definite_error_on_unknowns_shows_its_condition() {
        use shapex_report::{CheckStatus, Diagnostic, Span, StatementReport, SymbolNote};
        let d = Diagnostic::error("shape.mtimes", "`a*b` fails: …", Span::new(0, 3));
        let mut s = StatementReport {
            check: CheckStatus::Error,
            condition: Some("n#1 + 1 == n#1".into()),
            symbols: vec![SymbolNote {
                name: "n#1".into(),
                meaning: "the value of n".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(
            super::check_line(&s, Some(&d)).unwrap(),
            "error: n#1 + 1 == n#1 never holds"
        );
        s.symbols.clear();
        s.condition = Some("false".into());
        assert_eq!(
            super::check_line(&s, Some(&d)).unwrap(),
            "error: `a*b` fails: …"
        );
    }
}
