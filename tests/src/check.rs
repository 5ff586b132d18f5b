//! Checks a fixture's expectation comments against the [`Report`] the analysis gave.

use crate::expect::{CodePattern, DefExpect, DimPattern, FixtureSpec, LineExpect, ShapePattern};
use shapex::report::{
    CheckStatus, Def, Diagnostic, DimView, Report, Severity, ShapeView, StatementReport,
};
use shapex::LanguageInfo;
use std::fmt;

/// One disagreement between a fixture and the report, phrased for a human.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub path: String,
    pub line: u32,
    pub message: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path, self.line, self.message)
    }
}

/// Compares every expectation in `source`, a fixture in `lang`, with `report`; empty
/// when all hold.
pub fn check_fixture(
    path: &str,
    source: &str,
    lang: &LanguageInfo,
    report: &Report,
) -> Vec<Mismatch> {
    check_spec(path, &FixtureSpec::parse(source, lang), report)
}

pub fn check_spec(path: &str, spec: &FixtureSpec, report: &Report) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let mut push = |line: u32, message: String| {
        out.push(Mismatch {
            path: path.to_string(),
            line,
            message,
        })
    };
    for issue in &spec.issues {
        push(issue.line, format!("bad expectation: {}", issue.message));
    }
    // The report states the settings it ran with: each must be the fixture's.
    for (key, value) in &spec.settings {
        if report.setting(key) != Some(value.as_str()) {
            push(
                0,
                format!(
                    "report {key} {:?}, fixture asks for {value:?}",
                    report.setting(key)
                ),
            );
        }
    }
    let blanks = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    for (line, key, text) in &spec.facts {
        match report.facts.get(key) {
            Some(found) if blanks(found) == blanks(text) => {}
            found => push(
                *line,
                format!("expected fact {key} {text:?}, found {found:?}"),
            ),
        }
    }
    for e in &spec.lines {
        for message in check_line(e, report) {
            push(e.line, message);
        }
    }
    for d in unclaimed_errors(spec, report) {
        push(
            d.range.line,
            format!("unexpected error [{}]: {}", d.code, d.message),
        );
    }
    for d in unclaimed_warnings(spec, report) {
        push(
            d.range.line,
            format!("unexpected warning [{}]: {}", d.code, d.message),
        );
    }
    out
}

/// The warnings of a code some `expect-warning` of the file names that no
/// `expect-warning` on their line claims.
pub fn unclaimed_warnings<'a>(
    spec: &'a FixtureSpec,
    report: &'a Report,
) -> impl Iterator<Item = &'a Diagnostic> {
    let patterns: Vec<&CodePattern> = spec.lines.iter().flat_map(|e| &e.warnings).collect();
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .filter(move |d| patterns.iter().any(|c| c.matches(&d.code)))
        .filter(|d| {
            !spec
                .lines
                .iter()
                .any(|e| e.line == d.range.line && e.warnings.iter().any(|c| c.matches(&d.code)))
        })
}

/// The error diagnostics that no `expect-error` on their line claims.
pub fn unclaimed_errors<'a>(
    spec: &'a FixtureSpec,
    report: &'a Report,
) -> impl Iterator<Item = &'a Diagnostic> {
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .filter(|d| {
            !spec
                .lines
                .iter()
                .any(|e| e.line == d.range.line && e.errors.iter().any(|c| c.matches(&d.code)))
        })
}

/// Whether an error diagnostic on `line` matches `code`.
pub fn error_found(report: &Report, line: u32, code: &CodePattern) -> bool {
    report
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error && d.range.line == line && code.matches(&d.code))
}

/// The statements starting on `line`.
pub fn statements_on(report: &Report, line: u32) -> Vec<&StatementReport> {
    report
        .statements
        .iter()
        .filter(|s| s.range.line == line)
        .collect()
}

fn check_line(e: &LineExpect, report: &Report) -> Vec<String> {
    let here = statements_on(report, e.line);
    let mut out = Vec::new();
    if here.is_empty() && (!e.defs.is_empty() || e.check.is_some()) {
        out.push("expected a statement on this line, the report has none".to_string());
    }
    for d in &e.defs {
        if let Some(m) = check_def(d, e.line, &here, report) {
            out.push(m);
        }
    }
    if let Some(want) = &e.check {
        if !here.is_empty() && !here.iter().any(|s| want.contains(&s.check)) {
            let want: Vec<&str> = want.iter().map(|&w| status(w)).collect();
            out.push(format!(
                "expected check: {}, found {}{}",
                want.join("|"),
                here.iter()
                    .map(|s| status(s.check))
                    .collect::<Vec<_>>()
                    .join(", "),
                rules(&here)
            ));
        }
    }
    if e.unreachable {
        out.extend(reached(&here));
    }
    for code in &e.errors {
        if !error_found(report, e.line, code) {
            out.push(format!(
                "expected error [{code}], found {}",
                diagnostics_on(report, e.line)
            ));
        }
    }
    for code in &e.warnings {
        let found = report.diagnostics.iter().any(|d| {
            d.severity == Severity::Warning && d.range.line == e.line && code.matches(&d.code)
        });
        if !found {
            out.push(format!(
                "expected warning [{code}], found {}",
                diagnostics_on(report, e.line)
            ));
        }
    }
    out
}

/// What contradicts `expect-unreachable` among a line's statements `here`.
fn reached(here: &[&StatementReport]) -> Vec<String> {
    if here.is_empty() {
        return vec!["expected an unreachable statement on this line, the report has none".into()];
    }
    here.iter()
        .filter(|s| !s.nonviable)
        .map(|s| {
            format!(
                "expected unreachable, but the {} at column {} is reached",
                s.kind, s.range.col
            )
        })
        .collect()
}

fn check_def(
    d: &DefExpect,
    line: u32,
    here: &[&StatementReport],
    report: &Report,
) -> Option<String> {
    let Some(found) = last_def(here.iter().copied(), &d.name) else {
        let names: Vec<&str> = here
            .iter()
            .flat_map(|s| s.defs.iter().map(|d| d.name.as_str()))
            .collect();
        return (!here.is_empty()).then(|| {
            format!(
                "expected a def of {}, the statement defines [{}]",
                d.name,
                names.join(", ")
            )
        });
    };
    if def_holds(d, line, found, report) {
        return None;
    }
    Some(match &d.shape {
        ShapePattern::SameAs(other) => match last_def_before(report, line, other) {
            Some(o) => format!(
                "expected {} = shape({other}) = {}, found {}{}",
                d.name,
                view(&o.shape),
                view(&found.shape),
                rules(here)
            ),
            None => format!("no def of {other} at or before this line"),
        },
        _ => format!(
            "expected {} {}, found {}{}",
            d.name,
            pattern_text(&d.shape),
            view(&found.shape),
            rules(here)
        ),
    })
}

/// Whether `d`, an expectation on `line`, holds for `found` (the last def of its name
/// on that line).
pub fn def_holds(d: &DefExpect, line: u32, found: &Def, report: &Report) -> bool {
    match &d.shape {
        ShapePattern::SameAs(other) => last_def_before(report, line, other)
            .is_some_and(|o| canonical_view(&o.shape) == canonical_view(&found.shape)),
        pattern => shape_matches(pattern, &found.shape),
    }
}

fn last_def_before<'a>(report: &'a Report, line: u32, name: &str) -> Option<&'a Def> {
    last_def(
        report.statements.iter().filter(|s| s.range.line <= line),
        name,
    )
}

/// The last def of `name` in `stmts`.
pub fn last_def<'a>(
    stmts: impl Iterator<Item = &'a StatementReport>,
    name: &str,
) -> Option<&'a Def> {
    stmts
        .flat_map(|s| s.defs.iter())
        .filter(|d| d.name == name)
        .last()
}

/// Drops trailing unit extents from the third component on (the canonical tuple).
pub fn canonical<T: Clone>(dims: &[T], is_one: impl Fn(&T) -> bool) -> Vec<T> {
    let mut v = dims.to_vec();
    while v.len() > 2 && v.last().is_some_and(&is_one) {
        v.pop();
    }
    v
}

/// A ShapeView with trailing unit extents dropped, so `<3,5,1>` equals `<3,5>`.
pub fn canonical_view(s: &ShapeView) -> ShapeView {
    match s {
        ShapeView::Dims { dims: Some(d), max } => {
            let dims = canonical(d, |x| *x == DimView::Known(1));
            let max = max
                .as_ref()
                .map(|m| m.iter().take(dims.len()).copied().collect());
            ShapeView::Dims {
                dims: Some(dims),
                max,
            }
        }
        other => other.clone(),
    }
}

pub fn shape_matches(pattern: &ShapePattern, found: &ShapeView) -> bool {
    match (pattern, found) {
        (ShapePattern::Illegal, ShapeView::Illegal { illegal }) => *illegal,
        (ShapePattern::UnknownRank, ShapeView::Dims { dims: None, .. }) => true,
        (
            ShapePattern::Dims(want),
            ShapeView::Dims {
                dims: Some(have), ..
            },
        ) => {
            let max = found.max();
            let have: Vec<(&DimView, Option<i64>)> = have
                .iter()
                .enumerate()
                .map(|(k, d)| (d, max.and_then(|m| m.get(k).copied().flatten())))
                .collect();
            let want = canonical(want, |d| *d == DimPattern::Known(1));
            let have = canonical(&have, |(d, _)| **d == DimView::Known(1));
            want.len() == have.len()
                && want
                    .iter()
                    .zip(&have)
                    .all(|(w, (h, bound))| dim_matches(w, h, *bound))
        }
        _ => false,
    }
}

fn dim_matches(want: &DimPattern, have: &DimView, bound: Option<i64>) -> bool {
    match want {
        DimPattern::Any => true,
        DimPattern::Known(n) => dim_text(have) == n.to_string(),
        DimPattern::Symbolic(s) => dim_text(have) == *s,
        DimPattern::Bounded(b) => matches!(have, DimView::Symbolic(_)) && bound == *b,
    }
}

/// An extent as the expectation grammar writes it (spaces removed).
pub fn dim_text(d: &DimView) -> String {
    match d {
        DimView::Known(n) => n.to_string(),
        DimView::Symbolic(s) => s.chars().filter(|c| !c.is_whitespace()).collect(),
    }
}

/// A ShapeView in the paper's notation.
pub fn view(s: &ShapeView) -> String {
    match s {
        ShapeView::Illegal { .. } => "illegal".into(),
        ShapeView::Dims { dims: None, .. } => "? (unknown rank)".into(),
        ShapeView::Dims { dims: Some(d), max } => {
            let d = shapex::report::bounded(d, max.as_deref());
            format!("<{}>", d.iter().map(dim_text).collect::<Vec<_>>().join(","))
        }
    }
}

fn pattern_text(p: &ShapePattern) -> String {
    match p {
        ShapePattern::Illegal => "illegal".into(),
        ShapePattern::UnknownRank => "?".into(),
        ShapePattern::SameAs(o) => format!("= shape({o})"),
        ShapePattern::Dims(d) => {
            let parts: Vec<String> = d
                .iter()
                .map(|d| match d {
                    DimPattern::Known(n) => n.to_string(),
                    DimPattern::Any => "*".into(),
                    DimPattern::Symbolic(s) => s.clone(),
                    DimPattern::Bounded(Some(c)) => format!(":{c}"),
                    DimPattern::Bounded(None) => ":?".into(),
                })
                .collect();
            format!("<{}>", parts.join(","))
        }
    }
}

/// A status as the expectation grammar writes it.
pub fn status(s: CheckStatus) -> &'static str {
    match s {
        CheckStatus::Proven => "proven",
        CheckStatus::Runtime => "runtime",
        CheckStatus::Error => "error",
        CheckStatus::None => "none",
    }
}

fn rules(here: &[&StatementReport]) -> String {
    let r: Vec<&str> = here.iter().filter_map(|s| s.rule.as_deref()).collect();
    if r.is_empty() {
        String::new()
    } else {
        format!(" (rule {})", r.join(", "))
    }
}

fn diagnostics_on(report: &Report, line: u32) -> String {
    let d: Vec<String> = report
        .diagnostics
        .iter()
        .filter(|d| d.range.line == line)
        .map(|d| format!("[{}] {}", d.code, d.message))
        .collect();
    if d.is_empty() {
        "no diagnostics on this line".into()
    } else {
        d.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::language;
    use shapex::report::{Diagnostic, Range};
    use shapex::Span;

    fn stmt(line: u32, defs: &[(&str, ShapeView)], check: CheckStatus) -> StatementReport {
        StatementReport {
            range: Range {
                line,
                col: 1,
                end_line: line,
                end_col: 2,
            },
            kind: "assign".into(),
            defs: defs
                .iter()
                .map(|(n, s)| Def {
                    name: n.to_string(),
                    shape: s.clone(),
                    display: String::new(),
                    class: None,
                    value: None,
                })
                .collect(),
            check,
            rule: Some("mtimes".into()),
            ..Default::default()
        }
    }

    fn dims(d: &[i64]) -> ShapeView {
        ShapeView::Dims {
            dims: Some(d.iter().map(|&n| DimView::Known(n)).collect()),
            max: None,
        }
    }

    fn error_on(line: u32, code: &str) -> Diagnostic {
        let mut d = Diagnostic::error(code, "boom", Span::new(0, 1));
        d.range.line = line;
        d
    }

    const SRC: &str = "a = rand(3,4);\nb = rand(4,5);\nc = a*b; % expect: c <3,5> check: proven\nd = c; % expect: d = shape(c)\ne = a*a; % expect-error: shape.mtimes*\n";

    fn good_report() -> Report {
        Report {
            statements: vec![
                stmt(1, &[("a", dims(&[3, 4]))], CheckStatus::None),
                stmt(2, &[("b", dims(&[4, 5]))], CheckStatus::None),
                stmt(3, &[("c", dims(&[3, 5, 1]))], CheckStatus::Proven),
                stmt(4, &[("d", dims(&[3, 5]))], CheckStatus::None),
                stmt(
                    5,
                    &[("e", ShapeView::Illegal { illegal: true })],
                    CheckStatus::Error,
                ),
            ],
            diagnostics: vec![error_on(5, "shape.mtimes.inner")],
            settings: [
                ("mode".to_string(), "modern".to_string()),
                ("entry".to_string(), String::new()),
            ]
            .into(),
            ..Default::default()
        }
    }

    #[test]
    fn a_matching_report_passes() {
        assert_eq!(
            check_fixture("f.m", SRC, &language("matlab"), &good_report()),
            vec![]
        );
    }

    #[test]
    fn a_wrong_shape_is_reported_with_rule() {
        let mut r = good_report();
        r.statements[2].defs[0].shape = dims(&[3, 4]);
        let m = check_fixture("f.m", SRC, &language("matlab"), &r);
        let text: Vec<String> = m.iter().map(|m| m.to_string()).collect();
        assert!(
            text.contains(&"f.m:3: expected c <3,5>, found <3,4> (rule mtimes)".to_string()),
            "{text:?}"
        );
        // d's expectation is relative to c, so it now fails too.
        assert!(text
            .iter()
            .any(|t| t.starts_with("f.m:4: expected d = shape(c)")));
    }

    #[test]
    fn wrong_check_missing_and_unexpected_errors_are_reported() {
        let mut r = good_report();
        r.statements[2].check = CheckStatus::Runtime;
        r.diagnostics = vec![error_on(2, "shape.elementwise")];
        let m: Vec<String> = check_fixture("f.m", SRC, &language("matlab"), &r)
            .iter()
            .map(|m| m.message.clone())
            .collect();
        assert!(m.contains(&"expected check: proven, found runtime (rule mtimes)".into()));
        assert!(m
            .iter()
            .any(|s| s.starts_with("expected error [shape.mtimes*]")));
        assert!(m.contains(&"unexpected error [shape.elementwise]: boom".into()));
    }

    #[test]
    fn an_empty_report_fails_every_expectation() {
        let m = check_fixture("f.m", SRC, &language("matlab"), &Report::default());
        // The three expectations, and the two settings the report does not state
        // (mode and entry).
        assert_eq!(m.len(), 5, "{m:?}");
    }

    #[test]
    fn unreachable_lines_must_be_nonviable() {
        let src = "a = 1; % expect-unreachable\nb = 2; % expect-unreachable\n";
        let mut r = good_report();
        r.statements = vec![
            stmt(1, &[], CheckStatus::None),
            stmt(2, &[], CheckStatus::None),
        ];
        r.statements[0].nonviable = true;
        r.diagnostics.clear();
        let m: Vec<String> = check_fixture("f.m", src, &language("matlab"), &r)
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert_eq!(
            m,
            ["f.m:2: expected unreachable, but the assign at column 1 is reached"]
        );
    }

    #[test]
    fn symbolic_and_wildcard_extents() {
        let sym = ShapeView::Dims {
            dims: Some(vec![DimView::Symbolic("a_1".into()), DimView::Known(7)]),
            max: None,
        };
        let p = |s: &str| {
            FixtureSpec::parse(&format!("x=1; % expect: x {s}"), &language("matlab")).lines[0].defs
                [0]
            .shape
            .clone()
        };
        assert!(shape_matches(&p("<a_1, 7>"), &sym));
        assert!(shape_matches(&p("<a_1,*>"), &sym));
        assert!(!shape_matches(&p("<a_2,7>"), &sym));
        assert!(!shape_matches(&p("?"), &sym));
        assert!(shape_matches(&p("<2,3,1,1>"), &dims(&[2, 3])));
        assert!(!shape_matches(&p("<2,3,4>"), &dims(&[2, 3])));
    }
}
