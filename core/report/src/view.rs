//! View payloads: what a language shows beyond diagnostics, in a few generic kinds, so
//! the app renders any language's views with one component per kind and the CLI can
//! serialise them. A language says which views it offers ([`ViewSpec`] in its
//! `LanguageInfo`) and fills them in its [`Report`](crate::Report).

use crate::statement::{ShapeView, StatementReport};
use serde::{Deserialize, Serialize};
use shapex_text::Range;

/// One tab: its stable id (used in share links), title, the text shown while it is
/// empty, and its payload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct View {
    pub id: String,
    pub payload: Payload,
}

/// The generic kinds of view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Payload {
    /// The source with notes inserted before lines (the Checks view's `▶` checks).
    AnnotatedSource(AnnotatedSource),
    /// Rows and columns (the Shapes table).
    Table(Table),
    /// A listing (the IR); lines starting with `marker` are emphasised.
    Text(Text),
    /// Vertices and edges with classes and source spans, and optional replay steps
    /// (the extent graph and its refinement, a call graph).
    Graph(Graph),
    /// A finite lattice: nodes, cover edges, and states to step through (the
    /// migration lattice).
    Lattice(Lattice),
    /// Computations stepped through side by side, in lockstep (VEC's data and shape
    /// evaluations).
    Trace(Trace),
}

/// What a language declares about one of its views, before any analysis runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewSpec {
    pub id: &'static str,
    pub title: &'static str,
    /// Shown while the view has nothing to show (explains what will appear).
    pub empty: &'static str,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AnnotatedSource {
    pub notes: Vec<LineNote>,
}

/// A note shown on its own line before source line `line` (1-based).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineNote {
    pub line: u32,
    pub text: String,
    /// `inserted` (a check), `hint`, `unreached`, `legend` (what an alias such as `?₁`
    /// in the notes above stands for), …
    pub class: String,
}

impl AnnotatedSource {
    /// The source with every note on its own line before its line, indented like it
    /// (notes on line 0 are a header). Notes must be in line order.
    pub fn render(&self, source: &str) -> String {
        let mut notes = self.notes.iter().peekable();
        let mut out = String::with_capacity(source.len() + 64 * self.notes.len());
        for (i, line) in source.lines().enumerate() {
            let no = i as u32 + 1;
            let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
            while let Some(n) = notes.next_if(|n| n.line <= no) {
                if n.line == no {
                    out.push_str(&indent);
                }
                out.push_str(&n.text);
                out.push('\n');
            }
            out.push_str(line);
            out.push('\n');
        }
        for n in notes {
            out.push_str(&n.text);
            out.push('\n');
        }
        out
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
}

/// A row holds only the cells that change at it; a face carries each column's last
/// value forward (shown dimmed), so a table stays linear in the program's size even with
/// thousands of rows and columns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The source line the row is about (clicking jumps there).
    pub line: u32,
    pub label: String,
    pub cells: Vec<Cell>,
    /// The row is the first of another workspace (a function's body): no value of the
    /// rows above carries into it, since their variables are not this one's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub new_workspace: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Index into [`Table::columns`].
    pub column: usize,
    pub value: CellValue,
    pub class: String,
    pub title: String,
}

impl Table {
    /// Every column's value at each row (carried forward from the row that last set
    /// it, within the row's workspace), for the rows `rows` only; `(cell, set_at_this_row)`. Costs
    /// O(rows before the end × cells per row).
    pub fn carried(&self, rows: std::ops::Range<usize>) -> Vec<Vec<Option<(&Cell, bool)>>> {
        let mut current: Vec<Option<&Cell>> = vec![None; self.columns.len()];
        let mut out = Vec::with_capacity(rows.len());
        for (i, row) in self.rows.iter().enumerate().take(rows.end) {
            if row.new_workspace {
                current.fill(None);
            }
            for c in &row.cells {
                if let Some(slot) = current.get_mut(c.column) {
                    *slot = Some(c);
                }
            }
            if i >= rows.start {
                out.push(
                    current
                        .iter()
                        .map(|c| c.map(|c| (c, row.cells.iter().any(|d| std::ptr::eq(c, d)))))
                        .collect(),
                );
            }
        }
        out
    }
}

/// A cell's content: text, or a shape the face writes in the user's notation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CellValue {
    Shape { shape: ShapeView, display: String },
    Text(String),
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Text {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marker: Option<String>,
    /// Per line of `text`, the source lines it comes from (first and last, 1-based),
    /// `None` for a line no source stands behind (an IR's `end`): a face highlights the
    /// lines of the source line under the caret and jumps to a line's source when it
    /// is clicked. Empty when the listing relates no line to the source (and in JSON
    /// written before the field existed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<Option<(u32, u32)>>,
}

impl Text {
    /// Whether line `index` (0-based) of the listing comes from source line `line`.
    pub fn from_line(&self, index: usize, line: u32) -> bool {
        self.sources
            .get(index)
            .copied()
            .flatten()
            .is_some_and(|(first, last)| first <= line && line <= last)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Graph {
    pub vertices: Vec<Vertex>,
    pub edges: Vec<Edge>,
    /// Replay steps (e.g. partition refinement): each step gives every vertex's class.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Vertex {
    pub id: String,
    pub label: String,
    /// An equivalence class or a category, for colouring.
    #[serde(default)]
    pub class: String,
    /// Where in the source the vertex comes from: clicking selects it, and putting the
    /// caret there highlights the vertex. In JSON, `line`, `col`, `end_line`, `end_col`
    /// at the vertex's top level, as in a diagnostic.
    #[serde(default, flatten)]
    pub range: Option<Range>,
    /// The variable whose dimension the vertex stands for (`x` of `x.2`), if one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variable: Option<String>,
    /// Which dimension of `variable` (1-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimension: Option<u32>,
    /// The signature or declared extent the vertex stands for (`S` of `S@matvec`), if one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark: Option<VertexMark>,
    /// An edit the vertex stands for (a lattice node's migration written as
    /// annotations): a face may offer to apply it when the vertex is picked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<shapex_text::Fix>,
    /// A node of a lattice shown in part that has neighbours not shown yet: a face may
    /// offer to expand it by adding its id to the [`EXPAND`] setting (Migeed's lattice
    /// past six positions).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub expandable: bool,
    /// What picking the vertex shows, a line per fact (a lattice node: every value's
    /// type under its migration, or why it has none).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

impl Vertex {
    /// The first line of [`Vertex::range`].
    pub fn line(&self) -> Option<u32> {
        self.range.map(|r| r.line)
    }
}

/// The setting that lists the expanded vertices of a lattice shown in part (their ids,
/// comma separated): the language shows their neighbours too. Settings are the only
/// channel from a face to the analysis, so the expansion survives a share link.
pub const EXPAND: &str = "expand";

/// The [`EXPAND`] setting `setting` with the vertex `id` added (once).
pub fn expanded_with(setting: &str, id: &str) -> String {
    let mut ids: Vec<&str> = setting
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if !ids.contains(&id) {
        ids.push(id);
    }
    ids.join(",")
}

/// What a check found at a vertex: drawn outlined, or red.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VertexMark {
    /// Its inputs are required to be in one class (a call with inputs, a procedure's
    /// exit), and they are.
    Checked,
    /// Its inputs are required to be in one class, and they are not: a size error.
    Conflict,
    /// A maximal element of what holds (a lattice's frontier): a thick double outline.
    Frontier,
    /// Nothing has this shape (an uninhabited lattice node): a dashed outline.
    Empty,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    pub from: String,
    pub to: String,
    #[serde(default)]
    pub label: String,
}

/// Where a graph's or lattice's vertices go (`shapex-layout` computes it): each
/// vertex's centre, in the vertices' order, its box's width, and the drawing's size.
/// Display data beside a payload, never part of a [`crate::Report`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Drawing {
    pub positions: Vec<(String, (f64, f64))>,
    pub widths: Vec<f64>,
    pub size: (f64, f64),
}

impl Drawing {
    /// The centre of vertex `id`.
    pub fn position(&self, id: &str) -> Option<(f64, f64)> {
        self.positions
            .iter()
            .find(|(v, _)| v == id)
            .map(|(_, p)| *p)
    }

    /// Upside down: for lattices, whose covers point upwards.
    pub fn flipped(mut self) -> Drawing {
        let h = self.size.1;
        for (_, (_, y)) in &mut self.positions {
            *y = h - *y;
        }
        self
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub title: String,
    /// (vertex id, class) for every vertex whose class differs from the graph's.
    pub classes: Vec<(String, String)>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Lattice {
    pub nodes: Vec<Vertex>,
    /// Cover edges, from the lower node to the upper one.
    pub covers: Vec<Edge>,
    /// States to step through (e.g. the migration search), each marking nodes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<Step>,
}

/// Computations replayed in lockstep: step k of the replay shows step k of every lane,
/// or a lane's end once it has no step k (so a lane that finishes sooner is seen to
/// finish first), under lines that sum the computations up.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// Label and text lines shown above the lanes (a result, a signature).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summary: Vec<(String, String)>,
    pub lanes: Vec<Lane>,
}

impl Trace {
    /// The replay's last step: the longest lane's length.
    pub fn steps(&self) -> usize {
        self.lanes.iter().map(|l| l.steps.len()).max().unwrap_or(0)
    }
}

/// One computation: its steps, then how it ended.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Lane {
    pub title: String,
    pub steps: Vec<TraceStep>,
    /// How it ended (`<~2, <~1, un>>`, `err (shape error: …)`, `unknown (out of fuel)`).
    pub result: String,
    /// The result's kind for colouring: `value`, `error` or `unknown`.
    pub class: String,
    /// Steps were taken past the last one listed (the steps the computation took in
    /// all, when it did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omitted: Option<u64>,
}

/// One step of a lane: what happened, and where in the source.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceStep {
    pub text: String,
    /// In JSON, `line`, `col`, `end_line`, `end_col` at the step's top level.
    #[serde(default, flatten)]
    pub range: Option<Range>,
}

/// The Shapes table over statements, for any language whose statements define
/// variables: one row per defining statement, one column per variable in order of
/// first definition; later rows repeat earlier shapes, not `current`. Shapes show
/// their symbols' aliases (`<?₁,3>`), each cell's title their legend.
/// The fill colour of the `index`-th class of a graph (classes numbered in order of
/// first appearance), the same in the app and in exported SVG and DOT: a fixed pastel
/// palette, then light hues a golden angle apart, as `#rrggbb`.
pub fn class_colour(index: usize) -> String {
    const PALETTE: &[&str] = &[
        "#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6", "#fb9a99", "#ffff99", "#8dd3c7", "#bebada",
        "#80b1d3", "#fccde5", "#d9d9d9", "#ccebc5",
    ];
    if let Some(c) = PALETTE.get(index) {
        return (*c).to_string();
    }
    let hue = (index as f64 * 137.508) % 360.0;
    let (r, g, b) = hsl_to_rgb(hue, 0.6, 0.82);
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn hsl_to_rgb(h: f64, s: f64, l: f64) -> (u8, u8, u8) {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let x = c * (1.0 - ((h / 60.0) % 2.0 - 1.0).abs());
    let (r, g, b) = match (h / 60.0) as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let byte = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    (byte(r), byte(g), byte(b))
}

/// The Shapes table: a row per statement that defines something, a column per
/// variable. `starts_workspace` tells the statements after which the variables are
/// another workspace's (a function's header), so no shape is carried past them.
pub fn shapes_table(
    statements: &[StatementReport],
    starts_workspace: impl Fn(&StatementReport) -> bool,
) -> Table {
    let mut columns: Vec<String> = Vec::new();
    let mut column_of: std::collections::HashMap<&str, usize> = Default::default();
    let mut rows = Vec::new();
    let mut new_workspace = false;
    for s in statements {
        new_workspace |= starts_workspace(s);
        if s.defs.is_empty() && !(s.nonviable && s.kind == "assign") {
            continue;
        }
        let cells = s
            .defs
            .iter()
            .map(|d| {
                let column = *column_of.entry(&d.name).or_insert_with(|| {
                    columns.push(d.name.clone());
                    columns.len() - 1
                });
                // A view is for reading: its shapes show the symbols' aliases (`?₁`),
                // which the cell's title explains.
                Cell {
                    column,
                    title: d.title(&d.shown(s, Default::default()), s),
                    value: CellValue::Shape {
                        shape: d.shape.aliased(&s.symbols),
                        display: s.aliased(&d.display),
                    },
                    class: s.check.class().to_string(),
                }
            })
            .collect();
        let mut label = if s.label.is_empty() {
            s.kind.clone()
        } else {
            s.label.clone()
        };
        if s.nonviable {
            // No execution reaches it: it neither succeeds nor fails (not π).
            label.push_str(" — not reached");
        }
        rows.push(Row {
            line: s.range.line,
            label,
            cells,
            new_workspace: std::mem::take(&mut new_workspace),
        });
    }
    Table { columns, rows }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::statement::{CheckStatus, Def, DimView};

    #[test]
    fn a_listing_without_sources_still_parses() {
        let old: Payload = serde_json::from_str(r#"{"kind":"text","text":"a = 1;\n"}"#).unwrap();
        let Payload::Text(t) = old else {
            panic!("{old:?}")
        };
        assert!(t.sources.is_empty() && !t.from_line(0, 1));
        let new = Text {
            sources: vec![Some((2, 3)), None],
            ..t
        };
        let json = serde_json::to_string(&Payload::Text(new.clone())).unwrap();
        assert!(json.contains(r#""sources":[[2,3],null]"#), "{json}");
        assert_eq!(
            serde_json::from_str::<Payload>(&json).unwrap(),
            Payload::Text(new.clone())
        );
        assert!(new.from_line(0, 3) && !new.from_line(0, 4) && !new.from_line(1, 2));
    }

    #[test]
    fn an_expanded_vertex_is_added_once() {
        assert_eq!(expanded_with("", "m1"), "m1");
        assert_eq!(expanded_with("m1, m3", "m1f"), "m1,m3,m1f");
        assert_eq!(expanded_with("m1,m1f", "m1f"), "m1,m1f");
    }

    fn stmt(line: u32, name: &str, dims: Vec<DimView>, check: CheckStatus) -> StatementReport {
        StatementReport {
            range: Range {
                line,
                col: 1,
                end_line: line,
                end_col: 9,
            },
            kind: "assign".into(),
            label: name.into(),
            defs: vec![Def {
                name: name.into(),
                shape: ShapeView::dims(Some(dims)),
                display: String::new(),
                class: None,
                value: None,
            }],
            check,
            ..Default::default()
        }
    }

    #[test]
    fn shapes_table_carries_earlier_shapes_forward() {
        let t = shapes_table(
            &[
                stmt(
                    1,
                    "a",
                    vec![DimView::Known(3), DimView::Known(2)],
                    CheckStatus::Proven,
                ),
                stmt(
                    2,
                    "c",
                    vec![DimView::Symbolic("n".into())],
                    CheckStatus::Error,
                ),
            ],
            |_| false,
        );
        assert_eq!(t.columns, ["a", "c"]);
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[1].cells.len(), 1, "a row holds only what changes");
        let row2 = &t.carried(1..2)[0];
        let (a, set_here) = row2[0].unwrap();
        assert!(!set_here);
        assert!(matches!(&a.value, CellValue::Shape { shape, .. }
            if shape.format("", crate::Notation::Times) == "3×2"));
        let (c, set_here) = row2[1].unwrap();
        assert!(set_here);
        assert_eq!(c.class, "check-error");
        assert!(c.title.contains("always fails"), "{}", c.title);
    }

    #[test]
    fn shapes_are_not_carried_into_another_workspace() {
        let header = StatementReport {
            kind: "header".into(),
            ..Default::default()
        };
        let a = || {
            stmt(
                1,
                "a",
                vec![DimView::Known(3), DimView::Known(2)],
                CheckStatus::Proven,
            )
        };
        let b = stmt(3, "b", vec![DimView::Known(1)], CheckStatus::Proven);
        let t = shapes_table(&[a(), header.clone(), b, header, a()], |s| {
            s.kind == "header"
        });
        assert_eq!(t.rows.len(), 3);
        let carried = t.carried(0..3);
        // `b`'s row is another workspace's: `a` is not shown there, then set again.
        assert!(carried[1][0].is_none(), "{:?}", carried[1][0]);
        assert!(carried[1][1].is_some_and(|(_, here)| here));
        assert!(carried[2][1].is_none());
        assert!(carried[2][0].is_some_and(|(_, here)| here));
        assert!(t.rows[1].new_workspace && t.rows[2].new_workspace && !t.rows[0].new_workspace);
    }

    #[test]
    fn notes_go_before_their_line_with_its_indent() {
        let a = AnnotatedSource {
            notes: vec![
                LineNote {
                    line: 2,
                    text: "▶ check".into(),
                    class: "inserted".into(),
                },
                LineNote {
                    line: 9,
                    text: "% past the end".into(),
                    class: "hint".into(),
                },
            ],
        };
        assert_eq!(
            a.render("x = 1;\n  y = x;\n"),
            "x = 1;\n  ▶ check\n  y = x;\n% past the end\n"
        );
    }
}
