//! Layered drawings of the graphs and lattices a [`Report`](shapex_report::Report)
//! carries: where each vertex goes, so that the app only draws. Sugiyama's method, as
//! the maintained `rust-sugiyama` crate implements it (cycles broken, layers by network
//! simplex, crossings reduced by barycenters and transposition, coordinates by
//! Brandes–Köpf), with each vertex as wide as its label. Weakly connected components are
//! laid side by side.
//!
//! Pure and deterministic: the same graph always gives the same drawing (a test runs
//! each layout twice). The worker calls it beside the analysis, so that a large graph
//! never costs the page's main thread; the CLI's `shapex graph --format svg` will too.

pub mod export;

use rust_sugiyama::configure::{Config, RankingType};
use shapex_report::view::{Drawing, Edge, Graph, Lattice, Payload, Vertex};
use std::collections::{BTreeSet, HashMap};

/// Height of a vertex's box, and the width of one character of its label.
pub const VERTEX_HEIGHT: f64 = 28.0;
pub const CHAR_WIDTH: f64 = 7.5;
/// Horizontal room beside a label inside its box.
const PADDING: f64 = 20.0;
/// Space between two vertices of a layer, between layers, and between components.
const GAP: f64 = 24.0;
/// Margin around the whole drawing.
const MARGIN: f64 = 16.0;

/// The drawing of a view's payload, if it is a graph or a lattice (a lattice is drawn
/// as a Hasse diagram, its covers pointing upwards).
pub fn draw(payload: &Payload) -> Option<Drawing> {
    match payload {
        Payload::Graph(Graph {
            vertices, edges, ..
        }) => Some(layered(vertices, edges)),
        Payload::Lattice(Lattice { nodes, covers, .. }) => Some(layered(nodes, covers).flipped()),
        _ => None,
    }
}

/// Past this many vertices a graph is drawn in plain rows instead (see
/// [`MAX_LAYERING_COST`]); such a drawing is read by panning and search, not at a
/// glance.
pub const MAX_LAYERED: usize = 4000;

/// Past this [`layering_cost`] (vertices plus the bends long edges need) a graph is
/// drawn in rows too: crossing minimisation grows much faster than the graph (a
/// 4,000-vertex chain with short edges took 52 ms, a 1,000-vertex graph with random
/// long edges 22 s), and a keystroke must never wait for it.
pub const MAX_LAYERING_COST: usize = 8_000;

/// The drawings of one editor's views, kept between analyses: a graph that did not
/// change since the last one (a keystroke rarely changes a call graph) is not laid
/// out again. Owned by the caller (the worker), so the crate keeps no state.
#[derive(Default)]
pub struct Sketchbook {
    /// (view id, the graph's key, its drawing), one per view.
    kept: Vec<(String, u64, Drawing)>,
}

impl Sketchbook {
    /// [`draw`] of view `view`'s payload, reusing the last drawing when the graph is
    /// the same (same vertices, labels and edges).
    pub fn draw(&mut self, view: &str, payload: &Payload) -> Option<Drawing> {
        let key = graph_key(payload)?;
        if let Some((_, k, d)) = self.kept.iter().find(|(v, _, _)| v == view) {
            if *k == key {
                return Some(d.clone());
            }
        }
        let drawing = draw(payload)?;
        self.kept.retain(|(v, _, _)| v != view);
        self.kept.push((view.to_string(), key, drawing.clone()));
        Some(drawing)
    }
}

/// What a drawing depends on: the kind, each vertex's id and label, each edge's ends.
fn graph_key(payload: &Payload) -> Option<u64> {
    use std::hash::{Hash, Hasher};
    let (kind, vertices, edges) = match payload {
        Payload::Graph(g) => (0u8, &g.vertices, &g.edges),
        Payload::Lattice(l) => (1u8, &l.nodes, &l.covers),
        _ => return None,
    };
    let mut h = std::collections::hash_map::DefaultHasher::new();
    kind.hash(&mut h);
    for v in vertices {
        (&v.id, &v.label).hash(&mut h);
    }
    for e in edges {
        (&e.from, &e.to).hash(&mut h);
    }
    Some(h.finish())
}

/// The width of a vertex's box: its label's, plus padding.
pub fn vertex_width(label: &str) -> f64 {
    label.chars().count().max(3) as f64 * CHAR_WIDTH + PADDING
}

/// A layered drawing of `vertices` and `edges` (edges from or to an unknown vertex,
/// self-loops and repeats are left out of the layout; they are still drawn).
pub fn layered(vertices: &[Vertex], edges: &[Edge]) -> Drawing {
    if vertices.len() > MAX_LAYERED {
        return rows(vertices);
    }
    let index: HashMap<&str, u32> = vertices
        .iter()
        .enumerate()
        .map(|(i, v)| (v.id.as_str(), i as u32))
        .collect();
    let pairs: BTreeSet<(u32, u32)> = edges
        .iter()
        .filter_map(|e| Some((*index.get(e.from.as_str())?, *index.get(e.to.as_str())?)))
        .filter(|(a, b)| a != b)
        .collect();
    let sizes: Vec<(u32, (f64, f64))> = vertices
        .iter()
        .enumerate()
        .map(|(i, v)| (i as u32, (vertex_width(&v.label), VERTEX_HEIGHT)))
        .collect();
    let pairs: Vec<(u32, u32)> = pairs.into_iter().collect();
    if layering_cost(vertices.len(), &pairs) > MAX_LAYERING_COST {
        return rows(vertices);
    }
    let config = Config {
        vertex_spacing: GAP * 2.0,
        // Not the crate's default (Gansner's network simplex): that one can cycle
        // forever on some graphs with cycles (paddison/rust-sugiyama#25; our property
        // test found one), and a layout that never ends freezes the worker. Moving
        // vertices up, then down, always ends.
        ranking_type: RankingType::Original,
        ..Config::default()
    };
    let components = rust_sugiyama::from_vertices_and_edges(&sizes, &pairs, &config);
    let mut centres: Vec<Option<(f64, f64)>> = vec![None; vertices.len()];
    let (mut x0, mut height) = (MARGIN, 0.0f64);
    for (points, _, _) in components {
        let real: Vec<(usize, (f64, f64))> = points
            .into_iter()
            .filter(|(id, _)| *id < vertices.len())
            .collect();
        let half = |id: usize| sizes[id].1 .0 / 2.0;
        let left = real
            .iter()
            .map(|(id, (x, _))| x - half(*id))
            .fold(f64::INFINITY, f64::min);
        let right = real
            .iter()
            .map(|(id, (x, _))| x + half(*id))
            .fold(f64::NEG_INFINITY, f64::max);
        let top = real
            .iter()
            .map(|(_, (_, y))| *y)
            .fold(f64::INFINITY, f64::min);
        if real.is_empty() {
            continue;
        }
        for (id, (x, y)) in &real {
            let y = MARGIN + VERTEX_HEIGHT / 2.0 + (y - top);
            centres[*id] = Some((x0 + (x - left), y));
            height = height.max(y + VERTEX_HEIGHT / 2.0 + MARGIN);
        }
        x0 += (right - left) + GAP * 2.0;
    }
    // A vertex the layout did not place (none should be) goes on a row of its own.
    let unplaced = centres.iter().filter(|c| c.is_none()).count();
    if unplaced > 0 {
        let y = height.max(MARGIN) + VERTEX_HEIGHT / 2.0;
        let mut x = MARGIN;
        for (i, c) in centres.iter_mut().enumerate() {
            if c.is_none() {
                let w = sizes[i].1 .0;
                *c = Some((x + w / 2.0, y));
                x += w + GAP;
            }
        }
        x0 = x0.max(x + GAP);
        height = y + VERTEX_HEIGHT / 2.0 + MARGIN;
    }
    Drawing {
        positions: vertices
            .iter()
            .zip(centres)
            .map(|(v, c)| (v.id.clone(), c.unwrap_or((0.0, 0.0))))
            .collect(),
        widths: sizes.iter().map(|(_, (w, _))| *w).collect(),
        size: (
            (x0 - GAP * 2.0 + MARGIN).max(2.0 * MARGIN),
            height.max(2.0 * MARGIN),
        ),
    }
}

/// Vertices plus bends of a layering by longest paths (back edges of a depth-first
/// search reversed, as cycle removal does): what crossing minimisation works on, so a
/// cheap forecast of its cost. Linear in the graph's size.
pub fn layering_cost(n: usize, pairs: &[(u32, u32)]) -> usize {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in pairs {
        out[a as usize].push(b as usize);
    }
    // Iterative depth-first search: post-order, and which edges close a cycle.
    let (mut state, mut order) = (vec![0u8; n], Vec::with_capacity(n));
    let mut back = std::collections::HashSet::new();
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        state[root] = 1;
        while let Some((v, i)) = stack.pop() {
            if let Some(&w) = out[v].get(i) {
                stack.push((v, i + 1));
                match state[w] {
                    0 => {
                        state[w] = 1;
                        stack.push((w, 0));
                    }
                    1 => {
                        back.insert((v, w));
                    }
                    _ => {}
                }
            } else {
                state[v] = 2;
                order.push(v);
            }
        }
    }
    // Reverse post-order is topological once back edges are reversed.
    let mut rank = vec![0usize; n];
    for &v in order.iter().rev() {
        for &w in &out[v] {
            if !back.contains(&(v, w)) {
                rank[w] = rank[w].max(rank[v] + 1);
            }
        }
    }
    let bends: usize = pairs
        .iter()
        .map(|&(a, b)| {
            rank[a as usize]
                .abs_diff(rank[b as usize])
                .saturating_sub(1)
        })
        .sum();
    n + bends
}

/// The vertices in rows of about √n, in their order (for graphs past
/// [`MAX_LAYERED`]).
fn rows(vertices: &[Vertex]) -> Drawing {
    let per_row = (vertices.len() as f64).sqrt().ceil().max(1.0) as usize;
    let widths: Vec<f64> = vertices.iter().map(|v| vertex_width(&v.label)).collect();
    let mut positions = Vec::with_capacity(vertices.len());
    let (mut width, mut y) = (0.0f64, MARGIN + VERTEX_HEIGHT / 2.0);
    for (row, chunk) in vertices.chunks(per_row).enumerate() {
        let mut x = MARGIN;
        for (k, v) in chunk.iter().enumerate() {
            let w = widths[row * per_row + k];
            positions.push((v.id.clone(), (x + w / 2.0, y)));
            x += w + GAP;
        }
        width = width.max(x - GAP + MARGIN);
        y += VERTEX_HEIGHT + GAP * 2.0;
    }
    Drawing {
        positions,
        widths,
        // `y` is one row past the last: back to that row's bottom, plus the margin.
        size: (
            width.max(2.0 * MARGIN),
            y - GAP * 2.0 - VERTEX_HEIGHT / 2.0 + MARGIN,
        ),
    }
}

/// Edge crossings between consecutive layers of `drawing` (for tests and benchmarks:
/// what the crossing minimisation is for). Two edges cross when their ends are in the
/// same pair of layers and in opposite orders.
pub fn crossings(drawing: &Drawing, edges: &[Edge]) -> usize {
    let at = |id: &str| drawing.position(id);
    let segs: Vec<((f64, f64), (f64, f64))> = edges
        .iter()
        .filter_map(|e| {
            let (a, b) = (at(&e.from)?, at(&e.to)?);
            Some(if a.1 <= b.1 { (a, b) } else { (b, a) })
        })
        .collect();
    let mut n = 0;
    for (i, (a, b)) in segs.iter().enumerate() {
        for (c, d) in &segs[i + 1..] {
            let same_layers = a.1 == c.1 && b.1 == d.1 && a.1 != b.1;
            if same_layers && (a.0 - c.0) * (b.0 - d.0) < 0.0 {
                n += 1;
            }
        }
    }
    n
}

#[cfg(test)]
mod tests;
