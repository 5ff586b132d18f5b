//! Graphs and lattices as files: Graphviz DOT, and SVG drawn where the layout places
//! the vertices. Shared by the CLI (`shapex graph`) and the app's export buttons, so a
//! drawing exported from either is the same.

use shapex_report::view::{Drawing, Edge, Vertex, VertexMark};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One graph-like view to export: its id (the title), its kind (`graph` or `lattice`),
/// vertices and edges.
pub struct Figure<'a> {
    pub id: &'a str,
    pub kind: &'static str,
    pub vertices: &'a [Vertex],
    pub edges: &'a [Edge],
}

/// The classes of `vertices` in order of first appearance, with how many vertices
/// each has (the legend).
pub fn classes(vertices: &[Vertex]) -> Vec<(&str, usize)> {
    let mut out: Vec<(&str, usize)> = Vec::new();
    for v in vertices {
        match out.iter_mut().find(|(c, _)| *c == v.class) {
            Some((_, n)) => *n += 1,
            None => out.push((&v.class, 1)),
        }
    }
    out
}

/// A fill colour per class, in order of first appearance (`view::class_colour`, as
/// the app draws them); no class is white.
fn palette(vertices: &[Vertex]) -> BTreeMap<&str, String> {
    let mut out = BTreeMap::new();
    for (i, (class, _)) in classes(vertices).into_iter().enumerate() {
        let colour = if class.is_empty() {
            "#ffffff".to_string()
        } else {
            shapex_report::view::class_colour(i)
        };
        out.insert(class, colour);
    }
    out
}

fn dot_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Graphviz DOT: one `digraph` per view, vertices filled by class (the class is in
/// the tooltip), arcs labelled as the payload labels them.
pub fn to_dot(views: &[Figure]) -> String {
    let mut out = String::new();
    for view in views {
        let colours = palette(view.vertices);
        let _ = writeln!(out, "digraph {} {{", dot_quote(view.id));
        let _ = writeln!(
            out,
            "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];"
        );
        if view.kind == "lattice" {
            let _ = writeln!(out, "  rankdir=BT;");
        }
        for v in view.vertices {
            let _ = writeln!(
                out,
                "  {} [label={}, fillcolor={}{}, tooltip={}];",
                dot_quote(&v.id),
                dot_quote(&v.label),
                dot_quote(
                    colours
                        .get(v.class.as_str())
                        .map_or("#ffffff", String::as_str)
                ),
                match v.mark {
                    Some(VertexMark::Checked) => ", penwidth=2.5",
                    Some(VertexMark::Conflict) => ", color=\"#d32f2f\", penwidth=3",
                    Some(VertexMark::Frontier) => ", penwidth=3, peripheries=2",
                    Some(VertexMark::Empty) => ", style=\"filled,dashed\"",
                    None => "",
                },
                dot_quote(&match v.line() {
                    Some(line) => format!("class {} (line {line})", v.class),
                    None => format!("class {}", v.class),
                }),
            );
        }
        for e in view.edges {
            let label = if e.label.is_empty() {
                String::new()
            } else {
                format!(" [label={}]", dot_quote(&e.label))
            };
            let _ = writeln!(
                out,
                "  {} -> {}{label};",
                dot_quote(&e.from),
                dot_quote(&e.to)
            );
        }
        out.push_str("}\n");
    }
    out
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One SVG document: each view drawn as `drawings` (one per view, from [`crate::draw`])
/// place it (boxes as wide as their labels, filled by class, checked ones outlined and
/// conflicts red, a `<title>` with the class), the views one below another.
pub fn to_svg(views: &[Figure], drawings: &[Drawing]) -> String {
    const TITLE: f64 = 24.0;
    let width = drawings.iter().map(|d| d.size.0).fold(200.0, f64::max);
    let height: f64 = drawings
        .iter()
        .map(|d| d.size.1 + TITLE)
        .sum::<f64>()
        .max(TITLE);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">"
    );
    out.push_str("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#555\"/></marker></defs>\n");
    out.push_str("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    let h = crate::VERTEX_HEIGHT;
    let mut y0 = 0.0;
    for (view, d) in views.iter().zip(drawings) {
        let colours = palette(view.vertices);
        let _ = writeln!(
            out,
            "<g class=\"view\" id=\"{}\" transform=\"translate(0,{y0:.1})\">",
            xml(view.id)
        );
        let _ = writeln!(
            out,
            "<text x=\"8\" y=\"16\" font-weight=\"bold\">{}</text>",
            xml(view.id)
        );
        let _ = writeln!(out, "<g transform=\"translate(0,{TITLE})\">");
        let at: BTreeMap<&str, (usize, (f64, f64))> = d
            .positions
            .iter()
            .enumerate()
            .map(|(i, (id, p))| (id.as_str(), (i, *p)))
            .collect();
        let half_width = |i: usize| d.widths.get(i).copied().unwrap_or(40.0) / 2.0;
        for e in view.edges {
            let (Some(&(i, a)), Some(&(j, b))) = (at.get(e.from.as_str()), at.get(e.to.as_str()))
            else {
                continue;
            };
            if i == j {
                // A self-loop: a small arc on the vertex's right side.
                let x = a.0 + half_width(i);
                let _ = writeln!(
                    out,
                    "<path class=\"edge\" d=\"M {:.1} {:.1} C {:.1} {:.1}, {:.1} {:.1}, {:.1} {:.1}\" fill=\"none\" stroke=\"#555\" marker-end=\"url(#arrow)\"/>",
                    x, a.1 - 6.0, x + 24.0, a.1 - 18.0, x + 24.0, a.1 + 18.0, x, a.1 + 6.0
                );
                continue;
            }
            // From the bottom or top edge of one box to the facing edge of the other.
            let (ya, yb) = if b.1 >= a.1 {
                (a.1 + h / 2.0, b.1 - h / 2.0)
            } else {
                (a.1 - h / 2.0, b.1 + h / 2.0)
            };
            let _ = write!(
                out,
                "<line class=\"edge\" x1=\"{:.1}\" y1=\"{ya:.1}\" x2=\"{:.1}\" y2=\"{yb:.1}\" stroke=\"#555\" marker-end=\"url(#arrow)\">",
                a.0, b.0
            );
            if !e.label.is_empty() {
                let _ = write!(out, "<title>{}</title>", xml(&e.label));
            }
            out.push_str("</line>\n");
            if !e.label.is_empty() {
                let _ = writeln!(
                    out,
                    "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"9\" fill=\"#555\">{}</text>",
                    a.0 + (b.0 - a.0) * 0.8 + 3.0,
                    ya + (yb - ya) * 0.8,
                    xml(&e.label)
                );
            }
        }
        for v in view.vertices {
            let Some(&(i, (x, y))) = at.get(v.id.as_str()) else {
                continue;
            };
            let w = half_width(i) * 2.0;
            let fill = colours
                .get(v.class.as_str())
                .map_or("#ffffff", String::as_str);
            let (stroke, width) = match v.mark {
                Some(VertexMark::Checked) => ("#222", 2.5),
                Some(VertexMark::Conflict) => ("#d32f2f", 3.0),
                Some(VertexMark::Frontier) => ("#111", 3.5),
                Some(VertexMark::Empty) => ("#777", 1.0),
                None => ("#333", 1.0),
            };
            let title = match v.line() {
                Some(line) => format!("{}: class {} (line {line})", v.label, v.class),
                None => format!("{}: class {}", v.label, v.class),
            };
            let dash = if v.mark == Some(VertexMark::Empty) {
                " stroke-dasharray=\"4 3\""
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "<g class=\"vertex\" data-id=\"{}\" data-class=\"{}\"><title>{}</title><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" rx=\"6\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{width}\"{dash}/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text></g>",
                xml(&v.id),
                xml(&v.class),
                xml(&title),
                x - w / 2.0,
                y - h / 2.0,
                y + 4.0,
                xml(&v.label)
            );
        }
        out.push_str("</g>\n</g>\n");
        y0 += d.size.1 + TITLE;
    }
    out.push_str("</svg>\n");
    out
}
