//! Blessing: rewrites a fixture's expectation comments to what the analysis now
//! reports (`UPDATE_EXPECT=1`, as in rust-analyzer's expect-test), touching nothing
//! else. Only the parts that fail change, so a fixture whose expectations hold comes
//! back byte for byte:
//!
//! - a shape that does not match becomes the reported one (`<3,5>`, `illegal`, `?`),
//!   canonical (trailing unit extents dropped);
//! - a `check:` status that does not match becomes the reported one(s);
//! - an `expect-error:` whose code is missing takes the code of an unclaimed error on
//!   its line, or is removed (with the comment, when nothing else is left in it);
//! - an unclaimed error gets an `expect-error:` appended to its line's comment (or a
//!   new `% expect-error:` comment, also after a `/* … */` comment; `%` starts a line
//!   comment in every registered language). A code with a space in it (the core has
//!   `shape.elementwise.expansion`) is written as the prefix before the
//!   space and `*` (`shape.elementwise*`), since a CODE ends at whitespace.
//!
//! What cannot be said by rewriting these (a name the line does not define, a line
//! without a statement, a malformed expectation) is left alone: checking the blessed
//! text still reports it, for a human to fix.
//!
//! Nothing here knows a language: it works on the Report's statements, defs, statuses
//! and diagnostics, so it blesses the fixtures of every language (Language T's too).

use crate::check::{
    canonical_view, def_holds, dim_text, error_found, last_def, statements_on, status,
    unclaimed_errors,
};
use crate::expect::{split_comment, FixtureSpec};
use shapex::report::{CheckStatus, Report, ShapeView};
use std::collections::BTreeMap;
use std::ops::Range;

/// `source` with its failing expectations rewritten to match `report`; `spec` is
/// `FixtureSpec::parse(source, lang)`. Equal to `source` when every expectation holds.
pub fn bless(source: &str, spec: &FixtureSpec, report: &Report) -> String {
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for e in &spec.lines {
        let here = statements_on(report, e.line);
        if here.is_empty() {
            continue;
        }
        for d in &e.defs {
            if let Some(found) = last_def(here.iter().copied(), &d.name) {
                if !def_holds(d, e.line, found, report) {
                    edits.push((d.span.clone(), shape_text(&found.shape)));
                }
            }
        }
        if let (Some(want), Some(span)) = (&e.check, &e.check_span) {
            if !here.iter().any(|s| want.contains(&s.check)) {
                let mut have: Vec<CheckStatus> = Vec::new();
                for s in &here {
                    if !have.contains(&s.check) {
                        have.push(s.check);
                    }
                }
                let words: Vec<&str> = have.into_iter().map(status).collect();
                edits.push((span.clone(), words.join("|")));
            }
        }
    }
    // Per line: the codes of unclaimed errors (each once, in report order).
    let mut unclaimed: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
    for d in unclaimed_errors(spec, report) {
        let codes = unclaimed.entry(d.range.line).or_default();
        if !codes.contains(&d.code.as_str()) {
            codes.push(&d.code);
        }
    }
    for e in &spec.lines {
        let mut codes = unclaimed.remove(&e.line).unwrap_or_default().into_iter();
        for pattern in e.errors.iter().filter(|p| !error_found(report, e.line, p)) {
            match codes.next() {
                Some(code) => edits.push((pattern.span.clone(), code_pattern(code))),
                None => {
                    let start = source[..pattern.directive.start].trim_end_matches([' ', '\t']);
                    edits.push((start.len()..pattern.directive.end, String::new()));
                }
            }
        }
        let rest: Vec<&str> = codes.collect();
        if !rest.is_empty() {
            unclaimed.insert(e.line, rest);
        }
    }
    let lines = line_ranges(source);
    for (line, codes) in unclaimed {
        let Some(text) = lines.get(line as usize - 1) else {
            continue;
        };
        let directives: Vec<String> = codes
            .iter()
            .map(|c| format!("expect-error: {}", code_pattern(c)))
            .collect();
        let line_text = &source[text.clone()];
        let (code, comment) = split_comment(line_text, &spec.lexical);
        // A `/* … */` comment is closed: what follows it would be code.
        let open_comment = comment.is_some() && !line_text[code.len()..].starts_with("/*");
        let added = if open_comment {
            format!(" {}", directives.join(" "))
        } else {
            let marker = spec.lexical.comments.first().unwrap_or(&"%");
            format!("  {marker} {}", directives.join(" "))
        };
        edits.push((text.end..text.end, added));
    }
    apply(source, &lines, edits, &spec.lexical)
}

/// An `expect-error:` CODE that matches `code`: the code itself, or when it has
/// whitespace (which ends a CODE) the text before it and `*`.
fn code_pattern(code: &str) -> String {
    match code.split_once(char::is_whitespace) {
        Some((stem, _)) => format!("{stem}*"),
        None => code.to_string(),
    }
}

/// A reported shape in the expectation grammar.
fn shape_text(shape: &ShapeView) -> String {
    match canonical_view(shape) {
        ShapeView::Illegal { .. } => "illegal".into(),
        ShapeView::Dims { dims: None, .. } => "?".into(),
        ShapeView::Dims { dims: Some(d), max } => {
            let d = shapex::report::bounded(&d, max.as_deref());
            format!("<{}>", d.iter().map(dim_text).collect::<Vec<_>>().join(","))
        }
    }
}

/// The byte range of each line's text (without its line terminator), numbered as
/// `str::lines` numbers them.
fn line_ranges(source: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for piece in source.split_inclusive('\n') {
        let text = piece.strip_suffix('\n').unwrap_or(piece);
        let text = text.strip_suffix('\r').unwrap_or(text);
        out.push(start..start + text.len());
        start += piece.len();
    }
    out
}

/// Applies the edits (each within one line) line by line. A line whose comment the
/// edits leave blank loses the comment and the spaces before it.
fn apply(
    source: &str,
    lines: &[Range<usize>],
    mut edits: Vec<(Range<usize>, String)>,
    lexical: &shapex::report::Lexical,
) -> String {
    if edits.is_empty() {
        return source.to_string();
    }
    edits.sort_by_key(|(r, _)| (r.start, r.end));
    for pair in edits.windows(2) {
        assert!(
            pair[0].0.end <= pair[1].0.start,
            "overlapping edits {:?} and {:?}",
            pair[0].0,
            pair[1].0
        );
    }
    let mut out = String::with_capacity(source.len() + 64);
    let mut done = 0; // bytes of `source` already copied or replaced
    let mut edits = edits.into_iter().peekable();
    for line in lines {
        let mut text = String::new();
        let mut at = line.start;
        let mut touched = false;
        while let Some((range, _)) = edits.peek() {
            if range.start > line.end {
                break;
            }
            let (range, replacement) = edits.next().unwrap();
            assert!(range.end <= line.end, "an edit spans lines: {range:?}");
            text.push_str(&source[at..range.start]);
            text.push_str(&replacement);
            at = range.end;
            touched = true;
        }
        if !touched {
            continue;
        }
        text.push_str(&source[at..line.end]);
        if let (code, Some(comment)) = split_comment(&text, lexical) {
            if comment.trim().is_empty() && !code.trim().is_empty() {
                text = code.trim_end().to_string();
            }
        }
        out.push_str(&source[done..line.start]);
        out.push_str(&text);
        done = line.end;
    }
    assert!(edits.next().is_none(), "an edit beyond the last line");
    out.push_str(&source[done..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check_spec;
    use crate::language;
    use shapex::report::{Def, Diagnostic, DimView, Range as LineRange, StatementReport};
    use shapex::Span;

    /// An empty MATLAB report in modern mode, the fixtures' default.
    fn modern() -> Report {
        Report {
            settings: [
                ("mode".to_string(), "modern".to_string()),
                ("entry".to_string(), String::new()),
            ]
            .into(),
            ..Default::default()
        }
    }

    fn stmt(line: u32, defs: &[(&str, ShapeView)], check: CheckStatus) -> StatementReport {
        StatementReport {
            range: LineRange {
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

    /// Blesses `source` against `report` and checks that the result then holds.
    fn blessed(source: &str, report: &Report) -> String {
        let matlab = language("matlab");
        let out = bless(source, &FixtureSpec::parse(source, &matlab), report);
        let left = check_spec("f.m", &FixtureSpec::parse(&out, &matlab), report);
        assert!(
            left.is_empty(),
            "still failing after blessing:\n{out}\n{left:?}"
        );
        out
    }

    #[test]
    fn holding_expectations_are_kept_byte_for_byte() {
        let src = "a = rand(3,4);\r\nc = a';  %expect: c <4, 3 ,1> check: none|proven (remark)\r\nd = c; % expect: d = shape(c)\r\n";
        let report = Report {
            statements: vec![
                stmt(1, &[("a", dims(&[3, 4]))], CheckStatus::None),
                stmt(2, &[("c", dims(&[4, 3]))], CheckStatus::Proven),
                stmt(3, &[("d", dims(&[4, 3]))], CheckStatus::None),
            ],
            ..modern()
        };
        assert_eq!(blessed(src, &report), src);
    }

    #[test]
    fn failing_shapes_and_statuses_are_rewritten_in_place() {
        let src = "a = x;\nb = a;    % expect: a <3,4>; b = shape(a)  check: runtime (why)\nc = 1;  % expect: c ?\n";
        let sym = ShapeView::Dims {
            dims: Some(vec![
                DimView::Symbolic("max(n, 0)".into()),
                DimView::Known(2),
            ]),
            max: None,
        };
        let report = Report {
            statements: vec![
                stmt(1, &[("a", sym.clone())], CheckStatus::None),
                stmt(
                    2,
                    &[("a", sym), ("b", dims(&[2, 2, 1]))],
                    CheckStatus::Proven,
                ),
                stmt(
                    3,
                    &[("c", ShapeView::Illegal { illegal: true })],
                    CheckStatus::Error,
                ),
            ],
            diagnostics: vec![],
            ..modern()
        };
        assert_eq!(
            blessed(src, &report),
            "a = x;\nb = a;    % expect: a <max(n,0),2>; b <2,2>  check: proven (why)\nc = 1;  % expect: c illegal\n"
        );
    }

    #[test]
    fn error_expectations_follow_the_errors() {
        let src = "a = 1;  % expect: a <1,1> expect-error: shape.old\nb = 2;  % expect-error: shape.gone\nc = 3;  % expect-error: shape.a expect-error: shape.b (r)\nd = 4;  % note\ne = 5;\n";
        let report = Report {
            statements: (1..=5).map(|l| stmt(l, &[], CheckStatus::None)).collect(),
            diagnostics: vec![
                error_on(1, "shape.new.sub"),
                error_on(3, "shape.b"),
                error_on(4, "shape.x"),
                error_on(5, "shape.y"),
                error_on(5, "shape.z (with a remark)"),
                error_on(5, "shape.y"),
            ],
            ..modern()
        };
        let mut report = report;
        report.statements[0].defs.push(Def {
            name: "a".into(),
            shape: dims(&[1, 1]),
            display: String::new(),
            class: None,
            value: None,
        });
        assert_eq!(
            blessed(src, &report),
            "a = 1;  % expect: a <1,1> expect-error: shape.new.sub\nb = 2;\nc = 3;  % expect-error: shape.b (r)\nd = 4;  % note expect-error: shape.x\ne = 5;  % expect-error: shape.y expect-error: shape.z*\n"
        );
    }

    #[test]
    fn what_cannot_be_rewritten_is_left_for_a_human() {
        let src = "a = 1;  % expect: zz <1,1>\n% expect: q <2,2>\n";
        let report = Report {
            statements: vec![stmt(1, &[("a", dims(&[1, 1]))], CheckStatus::None)],
            ..modern()
        };
        let matlab = language("matlab");
        let out = bless(src, &FixtureSpec::parse(src, &matlab), &report);
        assert_eq!(out, src);
        assert_eq!(
            check_spec("f.m", &FixtureSpec::parse(&out, &matlab), &report).len(),
            2
        );
    }

    #[test]
    fn language_t_fixtures_are_blessed_in_their_comment_syntax() {
        let t = language("t");
        let src = "% header\nproc p(in a[N]) /* note */\ncopy(x, y); // why\nchk(a, b); /* expect-error: t.gone */\n";
        let report = Report {
            statements: (2..=4).map(|l| stmt(l, &[], CheckStatus::None)).collect(),
            diagnostics: vec![error_on(2, "t.exit"), error_on(3, "t.size")],
            ..Report::default()
        };
        let out = bless(src, &FixtureSpec::parse(src, &t), &report);
        assert_eq!(
            out,
            "% header\nproc p(in a[N]) /* note */  % expect-error: t.exit\ncopy(x, y); // why expect-error: t.size\nchk(a, b);\n"
        );
        assert_eq!(
            check_spec("f.t", &FixtureSpec::parse(&out, &t), &report),
            []
        );
    }
}
