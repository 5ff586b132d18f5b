//! `shapex graph`: the graph and lattice views of any language's Report, as Graphviz
//! DOT, as an SVG drawn where `shapex-layout` places the vertices (the app's worker
//! uses the same layout), or as JSON (each payload with its drawing). Generic: it knows
//! payload kinds, never a language.

use serde::Serialize;
use shapex::report::view::{Drawing, Edge, Payload, Vertex};
use shapex::Report;
use shapex_layout::export::{self, classes, Figure};

/// One graph-like view of a report: its id, its kind, vertices and edges.
pub struct GraphView<'a> {
    pub id: &'a str,
    pub kind: &'static str,
    pub payload: &'a Payload,
    pub vertices: &'a [Vertex],
    pub edges: &'a [Edge],
}

impl GraphView<'_> {
    pub fn figure(&self) -> Figure<'_> {
        Figure {
            id: self.id,
            kind: self.kind,
            vertices: self.vertices,
            edges: self.edges,
        }
    }
}

/// DOT of every view (see [`shapex_layout::export::to_dot`]).
pub fn to_dot(views: &[GraphView]) -> String {
    let figures: Vec<Figure> = views.iter().map(GraphView::figure).collect();
    export::to_dot(&figures)
}

/// One SVG of every view, laid out by `shapex_layout`.
pub fn to_svg(views: &[GraphView]) -> String {
    let figures: Vec<Figure> = views.iter().map(GraphView::figure).collect();
    let drawings: Vec<Drawing> = views.iter().map(drawing).collect();
    export::to_svg(&figures, &drawings)
}

/// The report's graph and lattice views, in tab order (`only`: just the view of that
/// id).
pub fn graph_views<'a>(report: &'a Report, only: Option<&str>) -> Vec<GraphView<'a>> {
    report
        .views
        .iter()
        .filter(|v| only.is_none_or(|id| v.id == id))
        .filter_map(|v| {
            let (kind, vertices, edges) = match &v.payload {
                Payload::Graph(g) => ("graph", &g.vertices[..], &g.edges[..]),
                Payload::Lattice(l) => ("lattice", &l.nodes[..], &l.covers[..]),
                _ => return None,
            };
            Some(GraphView {
                id: &v.id,
                kind,
                payload: &v.payload,
                vertices,
                edges,
            })
        })
        .collect()
}

/// The drawing of a view (`shapex_layout::draw`).
pub fn drawing(view: &GraphView) -> Drawing {
    shapex_layout::draw(view.payload).unwrap_or_default()
}

#[derive(Serialize)]
struct ViewJson<'a> {
    view: &'a str,
    /// The payload as the Report carries it: `kind` (`graph` or `lattice`), vertices,
    /// edges, replay steps.
    #[serde(flatten)]
    payload: &'a Payload,
    /// Every class with its number of vertices, in order of first appearance.
    classes: Vec<ClassJson<'a>>,
    drawing: Drawing,
}

#[derive(Serialize)]
struct ClassJson<'a> {
    class: &'a str,
    vertices: usize,
}

#[derive(Serialize)]
struct FileJson<'a> {
    file: &'a str,
    lang: &'a str,
    graphs: Vec<ViewJson<'a>>,
}

/// `{"file", "lang", "graphs": [{"view", "kind", …payload, "classes", "drawing"}]}`.
pub fn to_json(file: &str, report: &Report, views: &[GraphView]) -> serde_json::Value {
    let value = FileJson {
        file,
        lang: &report.lang,
        graphs: views
            .iter()
            .map(|v| ViewJson {
                view: v.id,
                payload: v.payload,
                classes: classes(v.vertices)
                    .into_iter()
                    .map(|(class, vertices)| ClassJson { class, vertices })
                    .collect(),
                drawing: drawing(v),
            })
            .collect(),
    };
    serde_json::to_value(value).expect("a graph always serializes")
}
