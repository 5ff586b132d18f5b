//! View models: turn (source text, [`Report`], notation) into plain data the
//! components render. Pure functions, so they are unit-tested natively with
//! hand-made reports; the analysis itself stays in core.

use crate::analysis;
use crate::state::Notation;
use crate::text::visual_width;
use shapex::report::view;
use shapex::report::{Report, Severity, TokenKind};

/// Tab width of the editor (CSS `tab-size` must match).
pub const TAB: usize = 4;
/// Spaces between a line's code and its shape notes.
const NOTE_GAP: usize = 4;
/// Shape notes shown beside one line; the rest are counted in a last note (a pasted
/// line of 50,000 statements must not paint 50,000 notes: the Shapes tab lists them).
pub const MAX_NOTES: usize = 12;
/// A line longer than this (in characters) is painted without token colours, split
/// only where diagnostics start and end: highlighting a 200,000-character line would
/// build a DOM node per token.
pub const MAX_HIGHLIGHTED_CHARS: usize = 4_000;

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
    /// No execution reaches any statement on the line (every statement on it is
    /// nonviable): the editor greys it. Only from a result of this very text.
    pub nonviable: bool,
}

/// A hover region in visual columns (tabs expanded), 0-based, end exclusive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HoverTarget {
    pub line: u32,
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// The listing class of an annotated-source note's class.
pub fn note_class(class: &str) -> &'static str {
    match class {
        "inserted" | "unreached" | "hint" => "code-line inserted",
        "header" => "code-line header",
        _ => "code-line",
    }
}

/// Where each line of a text starts (byte offsets) and how wide the widest line is
/// (visual columns, tabs expanded): one pass over the text, so the editor can paint any
/// window of lines and give its layer the full width without painting every line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineIndex {
    starts: Vec<usize>,
    pub widest: usize,
}

impl LineIndex {
    pub fn new(source: &str) -> LineIndex {
        let mut starts = vec![0];
        let mut widest = 0;
        for (i, b) in source.bytes().enumerate() {
            if b == b'\n' {
                let start = *starts.last().unwrap_or(&0);
                widest = widest.max(visual_width(&source[start..i], TAB));
                starts.push(i + 1);
            }
        }
        let last = *starts.last().unwrap_or(&0);
        widest = widest.max(visual_width(&source[last..], TAB));
        LineIndex { starts, widest }
    }

    /// Number of lines (an empty text has one, empty, line).
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// The text of 0-based line `i` (empty past the end), without its newline.
    pub fn line<'a>(&self, source: &'a str, i: usize) -> &'a str {
        let Some(&start) = self.starts.get(i) else {
            return "";
        };
        let end = self.starts.get(i + 1).map_or(source.len(), |next| next - 1);
        source.get(start..end).unwrap_or("")
    }

    /// The byte offset where 0-based line `i` starts (the text's end past its end).
    pub fn start(&self, i: usize) -> usize {
        self.starts.get(i).copied().unwrap_or(usize::MAX)
    }
}

/// The rows to render of a list of `total` rows, each `row` pixels tall, when the
/// pixels `top..top + height` of the list are on screen: the visible rows plus
/// `overscan` on each side. The previous window is kept while it still covers the
/// visible rows, so scrolling re-renders once every `overscan` rows, not every frame.
pub fn window(
    previous: Option<&std::ops::Range<usize>>,
    top: f64,
    height: f64,
    row: f64,
    total: usize,
    overscan: usize,
) -> std::ops::Range<usize> {
    let row = if row > 0.0 { row } else { 1.0 };
    let first = ((top / row).floor().max(0.0) as usize).min(total);
    let last = (((top + height.max(0.0)) / row).ceil().max(0.0) as usize).min(total);
    if let Some(p) = previous {
        let p = p.start.min(total)..p.end.min(total);
        if p.start <= first && last <= p.end && p.len() <= last - first + 4 * overscan {
            return p;
        }
    }
    first.saturating_sub(overscan)..(last + overscan).min(total)
}

/// Where the lines of an analysed text are in the current text, so that an older
/// result's notes and markers follow their lines while a new result is pending. Lines
/// before the edit keep their number, lines after it move by `delta`, and lines the
/// edit touched have no place (their notes are not shown: they would be about text
/// that is no longer there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineShift {
    /// Lines 1..=`kept` are unchanged and in place.
    kept: u32,
    /// Old lines from this one on are unchanged and move by `delta`.
    tail: u32,
    delta: i64,
}

impl LineShift {
    /// No change: every line in place.
    pub const SAME: LineShift = LineShift {
        kept: u32::MAX,
        tail: u32::MAX,
        delta: 0,
    };

    /// How lines of `old` moved in `new`, from the common prefix and suffix (one
    /// linear scan; an edit is one contiguous change between them).
    pub fn between(old: &str, new: &str) -> LineShift {
        if old == new {
            return LineShift::SAME;
        }
        let (a, b) = (old.as_bytes(), new.as_bytes());
        let (prefix, suffix) = shapex::report::common_ends(a, b);
        let newlines = |s: &[u8]| s.iter().filter(|&&c| c == b'\n').count() as i64;
        // Lines wholly before the first changed byte.
        let kept = newlines(&a[..prefix]) as u32;
        // The first unchanged byte after the change; its line is unchanged only if the
        // change ended at a line start.
        let end = a.len() - suffix;
        let at_line_start = end == 0 || a[end - 1] == b'\n';
        let tail = 1 + newlines(&a[..end]) as u32 + u32::from(!at_line_start);
        LineShift {
            kept,
            tail,
            delta: newlines(b) - newlines(a),
        }
    }

    /// The current line of old 1-based line `line`, if it was not edited.
    pub fn map(&self, line: u32) -> Option<u32> {
        if line <= self.kept {
            Some(line)
        } else if line >= self.tail {
            u32::try_from(line as i64 + self.delta).ok()
        } else {
            None
        }
    }

    /// The old line of current 1-based line `line`, if it was not edited: the
    /// inverse of [`LineShift::map`].
    pub fn unmap(&self, line: u32) -> Option<u32> {
        if line <= self.kept {
            Some(line)
        } else if line as i64 >= self.tail as i64 + self.delta {
            u32::try_from(line as i64 - self.delta).ok()
        } else {
            None
        }
    }
}

/// Whether `new` replaces the whole of `old` (a paste over everything, a first text
/// in an empty editor): at most 2% of `old` (or a few bytes, such as a final `;\n`)
/// survives at its start and end.
pub fn replaces_whole_text(old: &str, new: &str) -> bool {
    let (prefix, suffix) = shapex::report::common_ends(old.as_bytes(), new.as_bytes());
    prefix + suffix <= (old.len() / 50).max(4) && old != new
}

/// A diagnostic's message as every face shows it: minted symbols by their aliases
/// (`?₁`), with a legend line for each (`?₁ = rows of c, known when line 12 runs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShownMessage {
    pub text: String,
    pub legend: Vec<String>,
}

impl ShownMessage {
    /// The message and its legend, in `notation`, for a tooltip.
    pub fn long(&self, notation: Notation) -> String {
        let mut t = notation.rewrite(&self.text);
        for l in &self.legend {
            t.push('\n');
            t.push_str(&notation.rewrite(l));
        }
        t
    }
}

/// The shown messages of a report's diagnostics, in order (computed once per report).
pub fn shown_messages(report: &Report) -> Vec<ShownMessage> {
    let aliases = report.aliases();
    report
        .diagnostics
        .iter()
        .map(|d| {
            let a = aliases.aliased(&d.message, d.span);
            ShownMessage {
                text: a.text,
                legend: a.legend,
            }
        })
        .collect()
}

/// A result as the editor paints it: the report, its shown messages, and where its
/// lines are in the current text.
#[derive(Clone, Copy)]
pub struct Painted<'a> {
    pub report: &'a Report,
    pub messages: &'a [ShownMessage],
    pub shift: &'a LineShift,
}

/// Builds the editor lines with 0-based indices in `range` (clamped to the text).
/// `report` may be about an older text: `shift` moves its lines to where they are
/// now (and hides those being edited), and every position from it is clamped.
pub fn editor_lines(
    source: &str,
    index: &LineIndex,
    range: std::ops::Range<usize>,
    lang: &str,
    result: Painted,
    notation: Notation,
) -> Vec<LineModel> {
    let Painted {
        report,
        messages,
        shift,
    } = result;
    let count = index.len();
    let range = range.start.min(count)..range.end.min(count);
    let first = range.start;
    let mut lines: Vec<LineModel> = range
        .map(|i| LineModel {
            no: i as u32 + 1,
            segs: paint_line(index.line(source, i), i as u32 + 1, lang, result, notation),
            notes: Vec::new(),
            marker: None,
            nonviable: false,
        })
        .collect();
    // The line a 1-based report line falls on, clamped to the text, if painted.
    let painted = lines.len();
    let slot = |line: u32| {
        let i = (line.max(1) as usize - 1).min(count - 1);
        i.checked_sub(first).filter(|k| *k < painted)
    };
    for (d, shown) in report.diagnostics.iter().zip(messages) {
        let Some(k) = shift.map(d.range.line).and_then(slot) else {
            continue;
        };
        let m = &mut lines[k].marker;
        *m = Some(match m.take() {
            None => (d.severity.as_str(), shown.long(notation)),
            Some((cls, msg)) => {
                let worse = if cls == "error" {
                    cls
                } else {
                    d.severity.as_str()
                };
                (worse, format!("{msg}\n{}", shown.long(notation)))
            }
        });
    }
    for s in &report.statements {
        // Notes of lines past the end (or being edited) are dropped, not clamped.
        let Some(no) = shift.map(s.range.line) else {
            continue;
        };
        let i = no.max(1) as usize - 1;
        let Some(line) = i.checked_sub(first).and_then(|k| lines.get_mut(k)) else {
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
            if line.notes.len() > MAX_NOTES {
                break;
            }
            let shape = def.shown(s, notation);
            line.notes.push(Note {
                title: def.title(&shape, s),
                text: format!("{} {}", def.name, shape),
                class: s.check.class(),
            });
        }
    }
    for line in &mut lines {
        cap_notes(line, report, shift);
    }
    // Greyed lines: only from a result of this very text, since an older result's
    // lines may have moved or changed (its notes follow them; a grey line must not).
    if *shift == LineShift::SAME {
        mark_nonviable(&mut lines, report);
    }
    lines
}

/// Marks the painted lines on which every statement is nonviable: some statement
/// covers the line and none that covers it is reached. A line without statements
/// (a comment, `end`) is never greyed. A reached compound statement (an `if`, a loop, a
/// function: the next statement starts inside it, as statements come parent first)
/// covers only its first line, its body's lines being its statements'; an unreached
/// one covers all of them, every statement in it being unreached too.
fn mark_nonviable(lines: &mut [LineModel], report: &Report) {
    let (Some(first), Some(last)) = (lines.first().map(|l| l.no), lines.last().map(|l| l.no))
    else {
        return;
    };
    // Per painted line: (some statement reached covers it, some nonviable one does).
    let mut seen = vec![(false, false); lines.len()];
    let statements = &report.statements;
    for (i, s) in statements.iter().enumerate() {
        let r = s.range;
        if r.line > last || r.end_line.max(r.line) < first {
            continue;
        }
        let compound = statements
            .get(i + 1)
            .is_some_and(|n| n.span.start >= s.span.start && n.span.start < s.span.end);
        // A span ending at a line's first column ends on the line before.
        let end = if r.end_line > r.line && r.end_col <= 1 {
            r.end_line - 1
        } else {
            r.end_line.max(r.line)
        };
        let end = if compound && !s.nonviable {
            r.line
        } else {
            end
        };
        for no in r.line.max(first)..=end.min(last) {
            let k = (no - first) as usize;
            seen[k].0 |= !s.nonviable;
            seen[k].1 |= s.nonviable;
        }
    }
    for (line, (reached, unreached)) in lines.iter_mut().zip(seen) {
        line.nonviable = unreached && !reached;
    }
}

/// Keeps [`MAX_NOTES`] notes on a line and counts the others in a last one.
fn cap_notes(line: &mut LineModel, report: &Report, shift: &LineShift) {
    if line.notes.len() <= MAX_NOTES {
        return;
    }
    let defs: usize = report
        .statements
        .iter()
        .filter(|s| shift.map(s.range.line) == Some(line.no) && !s.nonviable)
        .map(|s| s.defs.len())
        .sum();
    line.notes.truncate(MAX_NOTES);
    let more = defs.saturating_sub(MAX_NOTES).max(1);
    line.notes.push(Note {
        text: format!("… {more} more"),
        class: "more",
        title: format!(
            "{more} more shapes are defined on this line: the Shapes tab lists every statement."
        ),
    });
}

/// Splits a line into runs of equal (token kind, diagnostic) so that diagnostics
/// become wavy underlines with their message as the title.
fn paint_line(
    text: &str,
    line_no: u32,
    lang: &str,
    result: Painted,
    notation: Notation,
) -> Vec<Seg> {
    let Painted {
        report,
        messages,
        shift,
    } = result;
    let chars: Vec<char> = text.chars().collect();
    let mut kind = vec![TokenKind::Space; chars.len()];
    let byte_to_char: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
    let tokens = if chars.len() > MAX_HIGHLIGHTED_CHARS {
        Vec::new()
    } else {
        analysis::tokens(lang, text)
    };
    for t in tokens {
        let a = byte_to_char.partition_point(|&b| b < t.start);
        let b = byte_to_char.partition_point(|&b| b < t.end);
        kind[a..b].fill(t.kind);
    }
    // Index into report.diagnostics of the worst diagnostic covering each char.
    let mut diag: Vec<Option<usize>> = vec![None; chars.len()];
    let mut trailing: Option<usize> = None;
    for (k, d) in report.diagnostics.iter().enumerate() {
        let mut r = d.range;
        let (Some(first), Some(last)) = (shift.map(r.line), shift.map(r.end_line.max(r.line)))
        else {
            continue;
        };
        (r.line, r.end_line) = (first, last);
        if line_no < r.line || line_no > r.end_line {
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
                diag[start].map(|k| (&report.diagnostics[k], &messages[k])),
                notation,
            ));
            start = i;
        }
    }
    if let Some(k) = trailing {
        // A diagnostic at the end of the line (e.g. "missing `)`") gets one
        // underlined blank so it stays visible.
        let d = (&report.diagnostics[k], &messages[k]);
        segs.push(seg(" ".into(), "tok-space", Some(d), notation));
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

fn seg(
    text: String,
    token_class: &str,
    diag: Option<(&shapex::Diagnostic, &ShownMessage)>,
    notation: Notation,
) -> Seg {
    match diag {
        None => Seg {
            text,
            class: token_class.to_string(),
            title: None,
        },
        Some((d, shown)) => Seg {
            text,
            class: format!("{token_class} diag diag-{}", d.severity.as_str()),
            title: Some(format!("{} [{}]", shown.long(notation), d.code)),
        },
    }
}

/// Where the tooltips are, in visual columns, for the textarea's hover handler
/// (the highlight layer sits under the textarea and never sees the mouse).
pub fn hover_targets(source: &str, index: &LineIndex, lines: &[LineModel]) -> Vec<HoverTarget> {
    let mut out = Vec::new();
    for line in lines {
        let text = index.line(source, line.no as usize - 1);
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

/// The character of `text` under visual column `col` (0-based, tabs expanded): its
/// index and its byte offset.
fn char_under(text: &str, col: usize) -> Option<(usize, usize)> {
    let mut x = 0;
    for (i, (b, c)) in text.char_indices().enumerate() {
        let next = if c == '\t' { x + TAB - x % TAB } else { x + 1 };
        if (x..next).contains(&col) {
            return Some((i, b));
        }
        x = next;
    }
    None
}

/// The text of the innermost of `hovers` under the pointer at 1-based `line`, visual
/// column `col` (0-based, tabs expanded) of `source`, the text they were made for.
pub fn term_hover(
    hovers: &[shapex::report::Hover],
    source: &str,
    index: &LineIndex,
    line: u32,
    col: usize,
) -> Option<String> {
    if line == 0 || line as usize > index.len() {
        return None;
    }
    let text = index.line(source, line as usize - 1);
    let at = (line, char_under(text, col)?.0 as u32 + 1);
    hovers
        .iter()
        .filter(|h| {
            let r = h.range;
            (r.line, r.col) <= at && at < (r.end_line, r.end_col)
        })
        .min_by_key(|h| h.span.end - h.span.start)
        .map(|h| h.text.clone())
}

/// The glossary text of the statement ref under the pointer (a MATLAB builtin's
/// rule, over its name in a call), at 1-based `line`, visual column `col` of
/// `source`, the text `report` was made for.
pub fn ref_hover(
    report: &Report,
    source: &str,
    index: &LineIndex,
    line: u32,
    col: usize,
) -> Option<String> {
    if report.glossary.is_empty() || line == 0 || line as usize > index.len() {
        return None;
    }
    let i = line as usize - 1;
    let at = index.start(i) + char_under(index.line(source, i), col)?.1;
    report.glossary_at(at).map(str::to_string)
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

/// Each vertex's class at replay step `k` of `steps` (`k == steps.len()`: the final
/// graph, `finals`): a step lists the vertices whose class differs from the final one,
/// an empty class meaning the vertex is not built yet (`None`).
pub fn classes_at(
    ids: &[String],
    finals: &[String],
    steps: &[view::Step],
    k: usize,
) -> Vec<Option<String>> {
    let Some(step) = steps.get(k) else {
        return finals.iter().cloned().map(Some).collect();
    };
    let at: std::collections::HashMap<&str, &str> = step
        .classes
        .iter()
        .map(|(v, c)| (v.as_str(), c.as_str()))
        .collect();
    ids.iter()
        .zip(finals)
        .map(|(id, fin)| match at.get(id.as_str()) {
            Some(&"") => None,
            Some(c) => Some(c.to_string()),
            None => Some(fin.clone()),
        })
        .collect()
}

/// The classes a legend lists: each non-empty one once, in order of first appearance,
/// at most [`LEGEND_MAX`].
pub fn legend_classes(classes: &[Option<String>]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in classes.iter().flatten() {
        if !c.is_empty() && !out.contains(c) {
            out.push(c.clone());
            if out.len() == LEGEND_MAX {
                break;
            }
        }
    }
    out
}

pub const LEGEND_MAX: usize = 24;

/// The fill of each final class of a graph: `view::class_colour` in order of first
/// appearance, as the exported SVG and DOT fill them, so neighbouring classes never
/// share a colour by chance; a replay's intermediate block (`S|T`) takes a hue from
/// its name.
#[derive(Clone, Debug, Default)]
pub struct Palette(std::collections::HashMap<String, String>);

impl Palette {
    pub fn of<'a>(finals: impl IntoIterator<Item = &'a str>) -> Palette {
        let mut map = std::collections::HashMap::new();
        let mut next = 0;
        for class in finals {
            if !map.contains_key(class) {
                map.insert(class.to_string(), view::class_colour(next));
                next += 1;
            }
        }
        Palette(map)
    }

    pub fn fill(&self, class: &str) -> String {
        if class.is_empty() {
            return "var(--panel)".into();
        }
        self.0
            .get(class)
            .cloned()
            .unwrap_or_else(|| class_fill(class))
    }
}

/// A class's fill colour: a light hue from the class name, the same in every view and
/// step (no class: the panel colour).
pub fn class_fill(class: &str) -> String {
    if class.is_empty() {
        return "var(--panel)".into();
    }
    // FNV-1a, for a stable spread of hues.
    let h = class.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    });
    format!("hsl({} 60% 82%)", h % 360)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn the_innermost_hover_under_the_pointer_wins() {
        let src = "x\n\tf (g a)\n";
        let mut report = Report {
            hovers: [(3, 10, "outer"), (6, 9, "inner")]
                .map(|(start, end, text)| shapex::report::Hover {
                    span: shapex::Span::new(start, end),
                    text: text.into(),
                    ..Default::default()
                })
                .to_vec(),
            ..Report::default()
        };
        report.resolve_positions(src);
        let index = LineIndex::new(src);
        let at = |col| term_hover(&report.hovers, src, &index, 2, col);
        // The tab spans visual columns 0..4: `f` is at 4, `g` at 7.
        assert_eq!(at(4).as_deref(), Some("outer"));
        assert_eq!(at(7).as_deref(), Some("inner"));
        assert_eq!(at(1), None);
        assert_eq!(term_hover(&report.hovers, src, &index, 9, 0), None);
    }

    /// Pointing at a builtin's name in a call shows its rule; an operator, a
    /// variable and a function of the file show none.
    #[test]
    fn a_builtin_call_shows_its_rule() {
        let src =
            "function r = f(x)\n\tr = sum(x, 2) + g(x);\nend\nfunction y = g(x)\ny = x;\nend\n";
        let report = shapex::analyze(src, &shapex::Options::new("matlab"));
        let index = LineIndex::new(src);
        let at = |col| ref_hover(&report, src, &index, 2, col);
        // The tab spans visual columns 0..4: `r` is at 4, `sum` at 8..11, `+` at 16.
        let sum = at(9).expect("a hover over sum");
        assert!(sum.starts_with("sum: the builtin `sum`"), "{sum}");
        assert!(sum.contains("collapse"), "{sum}");
        for col in [4, 12, 16, 18] {
            assert_eq!(at(col), None, "column {col}");
        }
    }

    #[test]
    fn replay_steps_give_each_vertex_its_class_then_and_hide_unbuilt_ones() {
        let ids: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let finals: Vec<String> = ["R", "R", "S"].map(String::from).to_vec();
        let step = |pairs: &[(&str, &str)]| view::Step {
            title: String::new(),
            classes: pairs
                .iter()
                .map(|(v, c)| (v.to_string(), c.to_string()))
                .collect(),
        };
        let steps = vec![step(&[("b", ""), ("c", "")]), step(&[("c", "R")])];
        let at = |k| classes_at(&ids, &finals, &steps, k);
        let s = |c: &str| Some(c.to_string());
        assert_eq!(at(0), vec![s("R"), None, None]);
        assert_eq!(at(1), vec![s("R"), s("R"), s("R")]);
        assert_eq!(at(2), vec![s("R"), s("R"), s("S")]);
        assert_eq!(legend_classes(&at(2)), ["R", "S"]);
        assert_eq!(class_fill("R"), class_fill("R"));
        assert_ne!(class_fill("R"), class_fill("S"));
        // Final classes get distinct palette colours in order of first appearance.
        let p = Palette::of(["M", "O", "M", "1", "N"]);
        let fills: Vec<String> = ["M", "O", "1", "N"].iter().map(|c| p.fill(c)).collect();
        assert_eq!(fills[0], view::class_colour(0));
        assert!(fills
            .iter()
            .enumerate()
            .all(|(i, f)| !fills[..i].contains(f)));
        assert_eq!(p.fill("M|O"), class_fill("M|O"));
    }
    use shapex::report::{
        CheckStatus, Def, Diagnostic, DimView, Range, ShapeView, StatementReport,
    };
    use shapex::Span;

    fn def(name: &str, dims: Vec<DimView>) -> Def {
        Def {
            name: name.into(),
            shape: ShapeView::Dims {
                dims: Some(dims),
                max: None,
            },
            display: String::new(),
            class: None,
            value: None,
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

    fn all_lines(src: &str, report: &Report, notation: Notation) -> Vec<LineModel> {
        let lines = 0..LineIndex::new(src).len();
        paint(src, lines, report, &LineShift::SAME, notation)
    }

    /// The editor's lines `range` of `src` painted with `report`, moved by `shift`.
    fn paint(
        src: &str,
        range: std::ops::Range<usize>,
        report: &Report,
        shift: &LineShift,
        notation: Notation,
    ) -> Vec<LineModel> {
        let painted = Painted {
            report,
            messages: &shown_messages(report),
            shift,
        };
        editor_lines(
            src,
            &LineIndex::new(src),
            range,
            "matlab",
            painted,
            notation,
        )
    }

    #[test]
    fn line_shift_moves_lines_after_an_edit_and_hides_edited_ones() {
        let old = "a\nb\nc\nd\n";
        // Two lines inserted at the start of line 3.
        let s = LineShift::between(old, "a\nb\nx\ny\nc\nd\n");
        assert_eq!(
            (1..=4).map(|l| s.map(l)).collect::<Vec<_>>(),
            [Some(1), Some(2), Some(5), Some(6)]
        );
        // A character typed in line 2: only line 2 loses its notes.
        let s = LineShift::between(old, "a\nbz\nc\nd\n");
        assert_eq!(
            (1..=4).map(|l| s.map(l)).collect::<Vec<_>>(),
            [Some(1), None, Some(3), Some(4)]
        );
        // Line 1 deleted.
        let s = LineShift::between(old, "b\nc\nd\n");
        assert_eq!(s.map(2), Some(1));
        assert_eq!(s.map(4), Some(3));
        assert_eq!(LineShift::between(old, old).map(3), Some(3));
        // Every mapped line has the same text in the new source, and maps back.
        for new in [
            "a\nb\nq\nc\nd\n",
            "b\nc\nd\n",
            "x\ny\na\nb\nc\nd\n",
            "a\nd\n",
        ] {
            let s = LineShift::between(old, new);
            let (o, n): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
            for l in 1..=o.len() as u32 {
                if let Some(m) = s.map(l) {
                    assert_eq!(o[l as usize - 1], n[m as usize - 1]);
                    assert_eq!(s.unmap(m), Some(l), "{new:?} line {l}");
                }
            }
            // A current line maps back only to an old line that maps to it.
            for m in 1..=n.len() as u32 {
                if let Some(l) = s.unmap(m) {
                    assert_eq!(s.map(l), Some(m), "{new:?} line {m}");
                }
            }
        }
    }

    #[test]
    fn stale_notes_follow_their_lines() {
        let old = "a = rand(3,2);\nc = a*b;\nd = 1;";
        let new = "% a comment\n% another\na = rand(3,2);\nc = a*b;\nd = 1;";
        let shift = LineShift::between(old, new);
        let all = 0..LineIndex::new(new).len();
        let lines = paint(new, all, &fake_report(), &shift, Notation::Paper);
        assert!(lines[0].notes.is_empty() && lines[1].notes.is_empty());
        assert!(lines[2].notes.iter().any(|n| n.text.starts_with("a ")));
        assert!(lines[3].notes.iter().any(|n| n.text.starts_with("c ")));
        assert!(lines[3].marker.is_some() || fake_report().diagnostics.is_empty());
    }

    #[test]
    fn pasting_over_everything_replaces_the_whole_text() {
        assert!(replaces_whole_text("a = 1;\nb = 2;\n", "x = zeros(3);\n"));
        assert!(replaces_whole_text("", "x = 1;"));
        assert!(!replaces_whole_text(
            "a = 1;\nb = 2;\n",
            "a = 1;\nb = 2;\nc"
        ));
        assert!(!replaces_whole_text("abc", "abc"));
    }

    #[test]
    fn line_index_finds_every_line_and_the_widest() {
        let src = "ab\n\tx\n\nlast";
        let index = LineIndex::new(src);
        assert_eq!(index.len(), 4);
        let lines: Vec<&str> = (0..5).map(|i| index.line(src, i)).collect();
        assert_eq!(lines, ["ab", "\tx", "", "last", ""]);
        assert_eq!(index.widest, 5, "a tab is 4 columns");
        assert_eq!(LineIndex::new("").len(), 1);
        assert_eq!(LineIndex::new("a\n").line("a\n", 1), "");
    }

    #[test]
    fn a_window_paints_only_its_lines_as_the_whole_would() {
        let src = "a = rand(3,2);\nc = a*b;\nd = 1;";
        let index = LineIndex::new(src);
        let whole = all_lines(src, &fake_report(), Notation::Paper);
        let same = &LineShift::SAME;
        let part = paint(src, 1..2, &fake_report(), same, Notation::Paper);
        assert_eq!(part.len(), 1);
        assert_eq!(part[0], whole[1]);
        let clamped = paint(src, 2..9, &fake_report(), same, Notation::Paper);
        assert_eq!(clamped, whole[2..]);
        let hovers = hover_targets(src, &index, &part);
        assert!(hovers.iter().all(|h| h.line == 2) && !hovers.is_empty());
    }

    #[test]
    fn windows_cover_the_screen_with_overscan_and_move_rarely() {
        // 1,000 rows of 20 px, 400 px on screen.
        let w = window(None, 0.0, 400.0, 20.0, 1000, 50);
        assert_eq!(w, 0..70);
        let w = window(None, 10_000.0, 400.0, 20.0, 1000, 50);
        assert_eq!(w, 450..570);
        // Scrolling a little keeps the window; far, it moves.
        assert_eq!(window(Some(&w), 10_400.0, 400.0, 20.0, 1000, 50), 450..570);
        assert_eq!(window(Some(&w), 12_000.0, 400.0, 20.0, 1000, 50), 550..670);
        // The end, and a list that shrank under the window.
        assert_eq!(window(None, 19_800.0, 400.0, 20.0, 1000, 50), 940..1000);
        assert_eq!(window(Some(&(940..1000)), 0.0, 400.0, 20.0, 10, 50), 0..10);
        assert_eq!(window(None, 0.0, 400.0, 20.0, 0, 50), 0..0);
    }

    #[test]
    fn diagnostics_underline_exactly_their_range() {
        let src = "a = rand(3,2);\nc = a*b;";
        let lines = all_lines(src, &fake_report(), Notation::Paper);
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
        let lines = all_lines(src, &fake_report(), Notation::Times);
        assert_eq!(lines[0].notes[0].text, "a 3×2");
        assert_eq!(lines[0].notes[0].class, "check-proven");
        assert_eq!(lines[1].notes[0].class, "check-error");
        assert!(lines[1].notes[0].title.contains("condition θ: 2 == n"));
        let hovers = hover_targets(src, &LineIndex::new(src), &lines);
        let note = hovers
            .iter()
            .find(|h| h.line == 2 && h.text.starts_with("c :"))
            .unwrap();
        assert_eq!(note.start, "c = a*b;".len() + NOTE_GAP);
    }

    #[test]
    fn a_line_of_many_statements_shows_a_few_notes_and_counts_the_rest() {
        let src = "x=1;".repeat(30);
        let report = shapex::analyze(&src, &shapex::Options::new("matlab"));
        let lines = all_lines(&src, &report, Notation::Times);
        assert_eq!(lines[0].notes.len(), MAX_NOTES + 1);
        let last = &lines[0].notes[MAX_NOTES];
        assert_eq!((last.text.as_str(), last.class), ("… 18 more", "more"));
    }

    #[test]
    fn a_very_long_line_is_painted_in_few_runs_but_keeps_its_underlines() {
        let src = format!("{}y = ones(2) * ones(3);", "x=1;".repeat(2_000));
        let report = shapex::analyze(&src, &shapex::Options::new("matlab"));
        let lines = all_lines(&src, &report, Notation::Times);
        let segs = &lines[0].segs;
        assert!(segs.len() <= 3, "{} runs", segs.len());
        assert_eq!(
            segs.iter().map(|s| s.text.as_str()).collect::<String>(),
            src
        );
        assert!(segs.iter().any(|s| s.class.contains("diag-error")));
    }

    #[test]
    fn stale_report_positions_are_clamped() {
        // The report describes two lines; the text now has one short line.
        let lines = all_lines("x", &fake_report(), Notation::Paper);
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
        let report = shapex::analyze(src, &shapex::Options::new("matlab"));
        let lines = all_lines(src, &report, Notation::Paper);
        let notes = |l: usize| {
            lines[l]
                .notes
                .iter()
                .map(|n| n.text.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(notes(2), ["not reached"]);
        assert_eq!(notes(4), ["A <3,3>"]);
        let Some(shapex::report::view::Payload::Table(table)) = report.view("shapes") else {
            panic!("MATLAB fills the Shapes table");
        };
        let dead = table
            .rows
            .iter()
            .find(|r| r.line == 3)
            .expect("a row for line 3");
        assert!(dead.label.ends_with("not reached"), "{}", dead.label);
        assert!(table.rows.iter().flat_map(|r| r.cells.iter()).all(
            |c| !matches!(&c.value, view::CellValue::Shape { display, .. } if display.contains('π'))
        ));
    }

    /// Issue #22 item 3: a line whose every statement no execution reaches is greyed
    /// (`nonviable`), a reached line, a line without statements and a line shared with
    /// a reached statement are not, and nothing is greyed from an older text's result.
    #[test]
    fn nonviable_lines_are_greyed_only_for_the_current_text() {
        let src = "n = 5;\nif n < 3\n  A = zeros(3,3);\n  error('small');\nelse\n  A = ones(3,3);\nend\nB = A; % after\n";
        let report = shapex::analyze(src, &shapex::Options::new("matlab"));
        let lines = all_lines(src, &report, Notation::Paper);
        let grey: Vec<u32> = lines.iter().filter(|l| l.nonviable).map(|l| l.no).collect();
        assert_eq!(grey, [3, 4]);
        // The same result while a newer text is being analysed: nothing is greyed.
        let new = format!("% edited\n{src}");
        let shift = LineShift::between(src, &new);
        let all = 0..LineIndex::new(&new).len();
        let stale = paint(&new, all, &report, &shift, Notation::Paper);
        assert!(stale.iter().all(|l| !l.nonviable));
        // Code after error(…) on the same line as reached code is not greyed.
        let src = "x = 1; error('stop'); y = 2;\nz = 3;\n";
        let report = shapex::analyze(src, &shapex::Options::new("matlab"));
        let lines = all_lines(src, &report, Notation::Paper);
        assert_eq!(
            lines.iter().map(|l| l.nonviable).collect::<Vec<_>>(),
            [false, true, false]
        );
        // A whole unreached block, its `end` too; a loop that runs is not.
        let src = "error('x');\nfor i = 1:3\n  y = i;\nend\n";
        let report = shapex::analyze(src, &shapex::Options::new("matlab"));
        let lines = all_lines(src, &report, Notation::Paper);
        assert_eq!(
            lines.iter().map(|l| l.nonviable).collect::<Vec<_>>(),
            [false, true, true, true, false]
        );
        let src = "for i = 1:3\n  y = i;\nend\n";
        let report = shapex::analyze(src, &shapex::Options::new("matlab"));
        let lines = all_lines(src, &report, Notation::Paper);
        assert!(lines.iter().all(|l| !l.nonviable));
    }
}
