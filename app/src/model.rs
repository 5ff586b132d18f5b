//! View models: turn (source text, [`Report`], notation) into plain data the
//! components render. Pure functions, so they are unit-tested natively with
//! hand-made reports; the analysis itself stays in core.

use crate::highlight::{tokenize_line, TokenKind};
use crate::state::Notation;
use crate::text::visual_width;
use shapex::report::{CheckStatus, Def, DimView, Report, Severity, ShapeView};

/// Tab width of the editor (CSS `tab-size` must match).
pub const TAB: usize = 4;
/// Spaces between a line's code and its shape notes.
const NOTE_GAP: usize = 4;

/// A run of characters painted alike.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Seg {
    pub text: String,
    pub class: String,
    pub title: Option<String>,
}

/// A variable's shape shown at the end of the line that defines it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Note {
    pub text: String,
    pub class: &'static str,
    pub title: String,
}

/// One editor line: highlighted segments, gutter marker and shape notes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LineModel {
    pub no: u32,
    pub segs: Vec<Seg>,
    pub notes: Vec<Note>,
    /// Worst severity on the line and its messages, for the gutter.
    pub marker: Option<(&'static str, String)>,
}

/// A hover region in visual columns (tabs expanded), 0-based, end exclusive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HoverTarget {
    pub line: u32,
    pub start: usize,
    pub end: usize,
    pub text: String,
}

pub fn severity_class(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

pub fn check_class(c: CheckStatus) -> &'static str {
    match c {
        CheckStatus::Proven => "check-proven",
        CheckStatus::Runtime => "check-runtime",
        CheckStatus::Error => "check-error",
        CheckStatus::None => "check-none",
    }
}

fn check_word(c: CheckStatus) -> &'static str {
    match c {
        CheckStatus::Proven => "proven",
        CheckStatus::Runtime => "run-time check needed",
        CheckStatus::Error => "always fails",
        CheckStatus::None => "no shape condition",
    }
}

/// Writes a shape in the chosen notation: `<3,n>` (paper) or `3×n`.
pub fn format_shape(shape: &ShapeView, display: &str, notation: Notation) -> String {
    match shape {
        ShapeView::Illegal { .. } => "illegal".into(),
        ShapeView::Dims { dims: None } => "?".into(),
        ShapeView::Dims { dims: Some(dims) } => match notation {
            Notation::Paper if !display.is_empty() => display.to_string(),
            Notation::Paper => format!("<{}>", join_dims(dims, ",", false)),
            Notation::Times => join_dims(dims, "×", true),
        },
    }
}

fn join_dims(dims: &[DimView], sep: &str, parenthesise: bool) -> String {
    dims.iter()
        .map(|d| match d {
            DimView::Known(n) => n.to_string(),
            DimView::Symbolic(s) if parenthesise && s.contains(['+', '-', '*', '/', ' ']) => {
                format!("({s})")
            }
            DimView::Symbolic(s) => s.clone(),
        })
        .collect::<Vec<_>>()
        .join(sep)
}

/// The tooltip of a definition: its shape, the rule and the condition θ.
fn def_title(def: &Def, shape: &str, s: &shapex::report::StatementReport) -> String {
    let mut t = format!("{} : {}", def.name, shape);
    if let Some(class) = &def.class {
        t.push_str(&format!(" ({class})"));
    }
    t.push_str(&format!("\ncheck: {}", check_word(s.check)));
    if let Some(c) = &s.condition {
        t.push_str(&format!("\ncondition θ: {c}"));
    }
    if let Some(r) = &s.rule {
        t.push_str(&format!("\nrule: {r}"));
    }
    t
}

/// Builds every editor line. `report` may lag behind `source` by one keystroke's
/// debounce, so every position from it is clamped.
pub fn editor_lines(source: &str, report: &Report, notation: Notation) -> Vec<LineModel> {
    let mut lines: Vec<LineModel> = source
        .split('\n')
        .enumerate()
        .map(|(i, text)| LineModel {
            no: i as u32 + 1,
            segs: paint_line(text, i as u32 + 1, report),
            notes: Vec::new(),
            marker: None,
        })
        .collect();
    for d in &report.diagnostics {
        let i = (d.range.line.max(1) as usize - 1).min(lines.len() - 1);
        let m = &mut lines[i].marker;
        *m = Some(match m.take() {
            None => (severity_class(d.severity), d.message.clone()),
            Some((cls, msg)) => {
                let worse = if cls == "error" {
                    cls
                } else {
                    severity_class(d.severity)
                };
                (worse, format!("{msg}\n{}", d.message))
            }
        });
    }
    for s in &report.statements {
        let Some(line) = lines.get_mut(s.range.line.max(1) as usize - 1) else {
            continue;
        };
        if s.nonviable {
            if !line.notes.iter().any(|n| n.class == "unreached") {
                line.notes.push(Note {
                    title: "No execution reaches this statement (a branch that cannot be \
                            taken, or code after a definite error): it neither runs nor fails."
                        .into(),
                    text: "not reached".into(),
                    class: "unreached",
                });
            }
            continue;
        }
        for def in &s.defs {
            let shape = format_shape(&def.shape, &def.display, notation);
            line.notes.push(Note {
                title: def_title(def, &shape, s),
                text: format!("{} {}", def.name, shape),
                class: check_class(s.check),
            });
        }
    }
    lines
}

/// Splits a line into runs of equal (token kind, diagnostic) so that diagnostics
/// become wavy underlines with their message as the title.
fn paint_line(text: &str, line_no: u32, report: &Report) -> Vec<Seg> {
    let chars: Vec<char> = text.chars().collect();
    let mut kind = vec![TokenKind::Space; chars.len()];
    let byte_to_char: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
    for t in tokenize_line(text) {
        let a = byte_to_char.partition_point(|&b| b < t.start);
        let b = byte_to_char.partition_point(|&b| b < t.end);
        kind[a..b].fill(t.kind);
    }
    // Index into report.diagnostics of the worst diagnostic covering each char.
    let mut diag: Vec<Option<usize>> = vec![None; chars.len()];
    let mut trailing: Option<usize> = None;
    for (k, d) in report.diagnostics.iter().enumerate() {
        let r = d.range;
        if line_no < r.line || line_no > r.end_line.max(r.line) {
            continue;
        }
        let a = if line_no == r.line {
            r.col.max(1) as usize - 1
        } else {
            0
        };
        let b = if line_no == r.end_line {
            r.end_col.max(1) as usize - 1
        } else {
            chars.len()
        };
        let b = b.max(a + 1);
        if a >= chars.len() {
            trailing = worse(trailing, k, report);
            continue;
        }
        for slot in &mut diag[a..b.min(chars.len())] {
            *slot = worse(*slot, k, report);
        }
    }
    let mut segs: Vec<Seg> = Vec::new();
    let mut start = 0;
    for i in 1..=chars.len() {
        if i == chars.len() || kind[i] != kind[start] || diag[i] != diag[start] {
            segs.push(seg(
                chars[start..i].iter().collect(),
                kind[start].class(),
                diag[start],
                report,
            ));
            start = i;
        }
    }
    if let Some(k) = trailing {
        // A diagnostic at the end of the line (e.g. "missing `)`") gets one
        // underlined blank so it stays visible.
        segs.push(seg(" ".into(), "tok-space", Some(k), report));
    }
    segs
}

fn worse(current: Option<usize>, candidate: usize, report: &Report) -> Option<usize> {
    match current {
        Some(c) if report.diagnostics[c].severity <= report.diagnostics[candidate].severity => {
            Some(c)
        }
        _ => Some(candidate),
    }
}

fn seg(text: String, token_class: &str, diag: Option<usize>, report: &Report) -> Seg {
    match diag {
        None => Seg {
            text,
            class: token_class.to_string(),
            title: None,
        },
        Some(k) => {
            let d = &report.diagnostics[k];
            Seg {
                text,
                class: format!("{token_class} diag diag-{}", severity_class(d.severity)),
                title: Some(format!("{} [{}]", d.message, d.code)),
            }
        }
    }
}

/// Where the tooltips are, in visual columns, for the textarea's hover handler
/// (the highlight layer sits under the textarea and never sees the mouse).
pub fn hover_targets(source: &str, lines: &[LineModel]) -> Vec<HoverTarget> {
    let mut out = Vec::new();
    for (text, line) in source.split('\n').zip(lines) {
        let mut col = 0;
        for s in &line.segs {
            let w = visual_width_from(&s.text, col);
            if let Some(t) = &s.title {
                out.push(HoverTarget {
                    line: line.no,
                    start: col,
                    end: col + w,
                    text: t.clone(),
                });
            }
            col += w;
        }
        let mut col = visual_width(text, TAB).max(col) + NOTE_GAP;
        for n in &line.notes {
            let w = n.text.chars().count();
            out.push(HoverTarget {
                line: line.no,
                start: col,
                end: col + w,
                text: n.title.clone(),
            });
            col += w + 2;
        }
    }
    out
}

/// The spaces rendered between code and its notes.
pub fn note_gap() -> String {
    " ".repeat(NOTE_GAP)
}

fn visual_width_from(text: &str, start: usize) -> usize {
    text.chars().fold(
        start,
        |x, c| if c == '\t' { x + TAB - x % TAB } else { x + 1 },
    ) - start
}

/// "✓ no errors", "2 errors", "1 error, 1 warning" and a class for its colour.
pub fn status(report: &Report) -> (String, &'static str) {
    let count = |s| {
        report
            .diagnostics
            .iter()
            .filter(|d| d.severity == s)
            .count()
    };
    let (e, w) = (count(Severity::Error), count(Severity::Warning));
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    match (e, w) {
        (0, 0) => ("✓ no errors".into(), "ok"),
        (0, w) => (plural(w, "warning"), "warn"),
        (e, 0) => (plural(e, "error"), "err"),
        (e, w) => (
            format!("{}, {}", plural(e, "error"), plural(w, "warning")),
            "err",
        ),
    }
}

/// One cell of the Shapes table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub text: String,
    pub class: &'static str,
    pub title: String,
    /// False when the shape is carried over from an earlier statement.
    pub defined_here: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeRow {
    pub line: u32,
    pub label: String,
    pub cells: Vec<Option<Cell>>,
}

/// The Shapes view: one row per defining statement, one column per variable in
/// order of first definition; later rows repeat earlier shapes, dimmed.
pub fn shape_table(report: &Report, notation: Notation) -> (Vec<String>, Vec<ShapeRow>) {
    let mut vars: Vec<String> = Vec::new();
    for s in &report.statements {
        for d in &s.defs {
            if !vars.contains(&d.name) {
                vars.push(d.name.clone());
            }
        }
    }
    let mut current: Vec<Option<Cell>> = vec![None; vars.len()];
    let mut rows = Vec::new();
    for s in report
        .statements
        .iter()
        .filter(|s| !s.defs.is_empty() || (s.nonviable && s.kind == "assign"))
    {
        for c in current.iter_mut().flatten() {
            c.defined_here = false;
        }
        for d in &s.defs {
            let i = vars
                .iter()
                .position(|v| *v == d.name)
                .expect("collected above");
            let text = format_shape(&d.shape, &d.display, notation);
            current[i] = Some(Cell {
                title: def_title(d, &text, s),
                text,
                class: check_class(s.check),
                defined_here: true,
            });
        }
        let mut label = if s.label.is_empty() {
            s.kind.clone()
        } else {
            s.label.clone()
        };
        if s.nonviable {
            // No execution reaches it: it neither succeeds nor fails (not π).
            label.push_str(" — not reached");
        }
        rows.push(ShapeRow {
            line: s.range.line,
            label,
            cells: current.clone(),
        });
    }
    (vars, rows)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use shapex::report::{Diagnostic, Range, StatementReport};
    use shapex::Span;

    fn def(name: &str, dims: Vec<DimView>) -> Def {
        Def {
            name: name.into(),
            shape: ShapeView::Dims { dims: Some(dims) },
            display: String::new(),
            class: None,
        }
    }

    /// A hand-made report for `a = rand(3,2);\nc = a*b;`: what core will produce once
    /// the shape analysis lands.
    pub(crate) fn fake_report() -> Report {
        let stmt = |line, label: &str, defs, check, condition: Option<&str>| StatementReport {
            range: Range {
                line,
                col: 1,
                end_line: line,
                end_col: 9,
            },
            kind: "assign".into(),
            label: label.into(),
            defs,
            check,
            condition: condition.map(str::to_string),
            rule: Some("Table 2, a*b".into()),
            ..Default::default()
        };
        let mut d = Diagnostic::error(
            "shape.mtimes.inner",
            "inner dimensions differ: 2 vs n",
            Span::new(19, 22),
        );
        d.range = Range {
            line: 2,
            col: 5,
            end_line: 2,
            end_col: 8,
        };
        Report {
            parse_ok: true,
            diagnostics: vec![d],
            statements: vec![
                stmt(
                    1,
                    "a",
                    vec![def("a", vec![DimView::Known(3), DimView::Known(2)])],
                    CheckStatus::Proven,
                    None,
                ),
                stmt(
                    2,
                    "c",
                    vec![def(
                        "c",
                        vec![DimView::Known(3), DimView::Symbolic("p1+q1".into())],
                    )],
                    CheckStatus::Error,
                    Some("2 == n"),
                ),
            ],
            ..Default::default()
        }
    }

    #[test]
    fn shapes_in_both_notations() {
        let s = ShapeView::Dims {
            dims: Some(vec![DimView::Known(3), DimView::Symbolic("n+1".into())]),
        };
        assert_eq!(format_shape(&s, "", Notation::Paper), "<3,n+1>");
        assert_eq!(
            format_shape(&s, "<3,n+1>!", Notation::Paper),
            "<3,n+1>!",
            "core's display wins"
        );
        assert_eq!(format_shape(&s, "<3,n+1>", Notation::Times), "3×(n+1)");
        assert_eq!(
            format_shape(&ShapeView::Illegal { illegal: true }, "", Notation::Times),
            "illegal"
        );
        assert_eq!(
            format_shape(&ShapeView::Dims { dims: None }, "", Notation::Paper),
            "?"
        );
    }

    #[test]
    fn diagnostics_underline_exactly_their_range() {
        let src = "a = rand(3,2);\nc = a*b;";
        let lines = editor_lines(src, &fake_report(), Notation::Paper);
        let underlined: String = lines[1]
            .segs
            .iter()
            .filter(|s| s.class.contains("diag-error"))
            .map(|s| s.text.as_str())
            .collect();
        assert_eq!(underlined, "a*b");
        assert_eq!(lines[1].marker.as_ref().map(|m| m.0), Some("error"));
        assert!(lines[0].marker.is_none());
        let all: String = lines[1].segs.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(all, "c = a*b;", "segments reproduce the text");
    }

    #[test]
    fn notes_carry_shape_check_and_condition() {
        let src = "a = rand(3,2);\nc = a*b;";
        let lines = editor_lines(src, &fake_report(), Notation::Times);
        assert_eq!(lines[0].notes[0].text, "a 3×2");
        assert_eq!(lines[0].notes[0].class, "check-proven");
        assert_eq!(lines[1].notes[0].class, "check-error");
        assert!(lines[1].notes[0].title.contains("condition θ: 2 == n"));
        let hovers = hover_targets(src, &lines);
        let note = hovers
            .iter()
            .find(|h| h.line == 2 && h.text.starts_with("c :"))
            .unwrap();
        assert_eq!(note.start, "c = a*b;".len() + NOTE_GAP);
    }

    #[test]
    fn stale_report_positions_are_clamped() {
        // The report describes two lines; the text now has one short line.
        let lines = editor_lines("x", &fake_report(), Notation::Paper);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].marker.as_ref().map(|m| m.0), Some("error"));
    }

    #[test]
    fn status_counts_errors_and_warnings() {
        assert_eq!(status(&Report::default()).0, "✓ no errors");
        assert_eq!(status(&fake_report()), ("1 error".into(), "err"));
    }

    #[test]
    fn unreachable_statements_are_not_reached_never_pi() {
        let src = "n = 5;\nif n < 3\n  A = zeros(3,3);\nelse\n  A = ones(3,3);\nend\n";
        let report = shapex::analyze(src, &shapex::Options::default());
        let lines = editor_lines(src, &report, Notation::Paper);
        let notes = |l: usize| {
            lines[l]
                .notes
                .iter()
                .map(|n| n.text.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(notes(2), ["not reached"]);
        assert_eq!(notes(4), ["A <3,3>"]);
        let (_, rows) = shape_table(&report, Notation::Paper);
        let dead = rows.iter().find(|r| r.line == 3).expect("a row for line 3");
        assert!(dead.label.ends_with("not reached"), "{}", dead.label);
        assert!(rows
            .iter()
            .flat_map(|r| r.cells.iter().flatten())
            .all(|c| c.text != "π"));
    }

    #[test]
    fn shape_table_carries_earlier_shapes_forward() {
        let (vars, rows) = shape_table(&fake_report(), Notation::Paper);
        assert_eq!(vars, ["a", "c"]);
        assert_eq!(rows.len(), 2);
        let a_in_row2 = rows[1].cells[0].as_ref().unwrap();
        assert_eq!(a_in_row2.text, "<3,2>");
        assert!(!a_in_row2.defined_here);
        assert!(rows[1].cells[1].as_ref().unwrap().defined_here);
    }
}
