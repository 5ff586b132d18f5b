//! Derby & Zorn's analysis as the house's `Graph` payload, for any language that
//! lowers into the kernel (Language T's plug-in, MATLAB's declared functions): every
//! procedure's extent graph in one payload, vertices coloured by extent class, with
//! the replay — construction statement by statement, then each refinement pass.

use crate::graph::{Origin, VertexId, BOTTOM};
use crate::partition::Partition;
use crate::steps::Step;
use crate::{Analysis, ProcAnalysis, TOP_LEVEL};
use shapex_report::view::{self, Graph};
use shapex_text::{LineIndex, Range, Span};

/// The id of the extent graph view.
pub const EXTENT_GRAPH: &str = "extent-graph";

/// The class a replay step gives a vertex its construction has not reached yet.
pub const NOT_BUILT: &str = "";

/// Replay steps are snapshots (every vertex of the procedure being replayed), so their
/// size is vertices × steps; past this many entries a procedure's replay is left out
/// (its graph is still shown, solved).
pub const MAX_REPLAY_ENTRIES: usize = 250_000;

/// A procedure's prefix in vertex ids (`matvec_product.12`; the top level is `top`).
fn prefix(proc: &ProcAnalysis) -> &str {
    if proc.name == TOP_LEVEL {
        "top"
    } else {
        &proc.name
    }
}

fn vertex_id(proc: &ProcAnalysis, v: VertexId) -> String {
    format!("{}.{v}", prefix(proc))
}

/// What a drawing writes in a vertex: the variable dimension or signature extent it
/// stands for and where (`S@mat_mat_multiply`, `x.1@while`, `S@entry`).
pub fn vertex_label(origin: &Origin) -> String {
    match origin {
        Origin::Bottom => "⊥".to_string(),
        Origin::Entry { extent, .. } => format!("{extent}@entry"),
        Origin::Exit { extent, .. } => format!("{extent}@exit"),
        Origin::Decl { extent, .. } => format!("{extent}@decl"),
        Origin::Call { callee, extent, .. } => format!("{extent}@{callee}"),
        Origin::Merge { var, dim, .. } => format!("{var}.{dim}@if"),
        Origin::LoopHead { var, dim, .. } => format!("{var}.{dim}@while"),
    }
}

/// Every procedure's extent graph as one payload: vertices (`proc.v`) with their class
/// names and source lines, the arcs (labelled with their order when a vertex has
/// several), and the replay of each procedure in turn.
pub fn extent_graph(analysis: &Analysis, index: &LineIndex) -> Graph {
    let mut graph = Graph::default();
    for proc in &analysis.procs {
        for (v, vertex) in proc.graph.vertices.iter().enumerate() {
            graph.vertices.push(view_vertex(proc, v, index));
            let several = vertex.preds.len() > 1;
            for (i, &p) in vertex.preds.iter().enumerate() {
                graph.edges.push(view::Edge {
                    from: vertex_id(proc, p),
                    to: vertex_id(proc, v),
                    label: if several {
                        (i + 1).to_string()
                    } else {
                        String::new()
                    },
                });
            }
        }
        if proc.graph.len() * proc.steps.len() <= MAX_REPLAY_ENTRIES {
            replay(proc, index, &mut graph.steps);
        }
    }
    graph
}

/// Vertex `v` of `proc` as the view shows it: its label and class, where it comes
/// from, what it stands for, and whether it is checked (a call with inputs, a
/// procedure's exit) and conflicts (one of the procedure's size errors is there).
fn view_vertex(proc: &ProcAnalysis, v: VertexId, index: &LineIndex) -> view::Vertex {
    let vertex = &proc.graph.vertices[v];
    // ⊥ belongs to the procedure's header, not to every statement of its body.
    let header = Span::new(proc.span.start, proc.span.start);
    let span = vertex.origin.span().or((v == BOTTOM).then_some(header));
    let (variable, dimension, extent) = match &vertex.origin {
        Origin::Merge { var, dim, .. } | Origin::LoopHead { var, dim, .. } => {
            (Some(var.clone()), Some(*dim as u32), None)
        }
        Origin::Entry { extent, .. }
        | Origin::Exit { extent, .. }
        | Origin::Decl { extent, .. }
        | Origin::Call { extent, .. } => (None, None, Some(extent.clone())),
        Origin::Bottom => (None, None, None),
    };
    let checked = match &vertex.origin {
        Origin::Call { .. } => !vertex.inputs.is_empty(),
        Origin::Exit { .. } => true,
        _ => false,
    };
    let mark = if proc.errors.iter().any(|e| e.vertex == v) {
        Some(view::VertexMark::Conflict)
    } else {
        checked.then_some(view::VertexMark::Checked)
    };
    view::Vertex {
        id: vertex_id(proc, v),
        label: vertex_label(&vertex.origin),
        class: proc.class_name(v).to_string(),
        range: span.map(|s| Range::of(s, index)),
        variable,
        dimension,
        extent,
        mark,
        ..view::Vertex::default()
    }
}

/// One procedure's replay. Each step lists every vertex of the procedure (other
/// procedures keep their final classes): during construction a vertex not built yet
/// has class [`NOT_BUILT`] and a built one its block of the initial partition
/// ({⊥}, V − {⊥}); after each refinement pass, its block's name ([`block_names`]).
fn replay(proc: &ProcAnalysis, index: &LineIndex, steps: &mut Vec<view::Step>) {
    let n = proc.graph.len();
    let initial = proc.steps.iter().find_map(|s| match s {
        Step::Refine(r) => Some(&r.partition),
        Step::Construct(_) => None,
    });
    let initial_names = initial.map(|p| block_names(p, &proc.partition, &proc.class_names));
    // A vertex no construction step lists (⊥) exists from the start.
    let mut built = vec![true; n];
    for s in &proc.steps {
        if let Step::Construct(c) = s {
            for &v in &c.vertices {
                if v != BOTTOM && v < n {
                    built[v] = false;
                }
            }
        }
    }
    let name = if proc.name == TOP_LEVEL {
        "top level"
    } else {
        &proc.name
    };
    for s in &proc.steps {
        let (title, classes): (String, Vec<String>) = match s {
            Step::Construct(c) => {
                for &v in &c.vertices {
                    if v < n {
                        built[v] = true;
                    }
                }
                let line = index.line_col(c.span.start).line;
                let classes = (0..n)
                    .map(|v| match (built[v], &initial, &initial_names) {
                        (false, _, _) => NOT_BUILT.to_string(),
                        (true, Some(p), Some(names)) => names[p.of(v).0 as usize].clone(),
                        (true, _, _) => proc.class_name(v).to_string(),
                    })
                    .collect();
                (format!("{name}: line {line}: build {}", c.what), classes)
            }
            Step::Refine(r) => {
                let names = block_names(&r.partition, &proc.partition, &proc.class_names);
                let classes = (0..n)
                    .map(|v| names[r.partition.of(v).0 as usize].clone())
                    .collect();
                let count = r.partition.count();
                (
                    format!(
                        "{name}: refinement pass {} ({count} class{})",
                        r.pass,
                        if count == 1 { "" } else { "es" }
                    ),
                    classes,
                )
            }
        };
        steps.push(view::Step {
            title,
            classes: classes
                .into_iter()
                .enumerate()
                .map(|(v, c)| (vertex_id(proc, v), c))
                .collect(),
        });
    }
}

/// A name for each block of an intermediate partition: refinement only splits, so a
/// block is a union of final classes, named after them (`S`, `S|T`, `⊥`; past three,
/// the first and how many more: `S|…+4`). Distinct blocks get distinct names.
pub fn block_names(blocks: &Partition, last: &Partition, names: &[String]) -> Vec<String> {
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); blocks.count()];
    for (v, b) in blocks.class.iter().enumerate() {
        members[b.0 as usize].push(last.of(v).0);
    }
    members
        .into_iter()
        .map(|mut classes| {
            classes.sort_unstable();
            classes.dedup();
            let name = |c: &u32| names.get(*c as usize).cloned().unwrap_or_default();
            match classes.len() {
                0 => String::new(),
                1..=3 => classes.iter().map(name).collect::<Vec<_>>().join("|"),
                k => format!("{}|…+{}", name(&classes[0]), k - 1),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_names_are_distinct_unions_of_final_classes() {
        let names: Vec<String> = ["⊥", "S", "T", "τ1", "τ2"].map(String::from).to_vec();
        let last = Partition::from_blocks(&[0, 1, 2, 3, 4, 1]);
        let blocks = Partition::from_blocks(&[0, 1, 1, 1, 1, 1]);
        assert_eq!(block_names(&blocks, &last, &names), ["⊥", "S|…+3"]);
        let blocks = Partition::from_blocks(&[0, 1, 1, 2, 2, 1]);
        assert_eq!(block_names(&blocks, &last, &names), ["⊥", "S|T", "τ1|τ2"]);
    }
}
