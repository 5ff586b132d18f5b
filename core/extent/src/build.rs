//! Construction of a procedure's extent graph (§7.1, the spec's §2.2–2.4) in the wire
//! model: a statement maps the wires of every array variable (one vertex per
//! dimension) to new wires, adding the vertices of its graph piece. Wires rather than
//! port vertices keep "undefined" as ⊥ itself, so a call reading two undefined arrays
//! is not mistaken for a call on two equal ones (the spec's §2.5).

use crate::graph::{Context, ExtentGraph, Input, Origin, VertexId, BOTTOM};
use crate::rank::Ranks;
use crate::steps::ConstructStep;
use shapex_t_syntax::ast::{Actual, Formal, Ident, Stmt, StmtKind};
use shapex_t_syntax::Signatures;
use shapex_text::Span;
use std::collections::BTreeMap;

/// The wires of each array variable, indexed like [`Ranks::arrays`].
type Wires = Vec<Vec<VertexId>>;

pub(crate) struct Built {
    pub graph: ExtentGraph,
    pub steps: Vec<ConstructStep>,
}

struct Builder<'a> {
    sigs: &'a Signatures<'a>,
    ranks: &'a Ranks,
    var_index: BTreeMap<&'a str, usize>,
    graph: ExtentGraph,
    steps: Vec<ConstructStep>,
    /// The procedure's `decl` extents by name (one ⊥-fed vertex each, decision D11).
    decls: BTreeMap<String, VertexId>,
}

/// The graph of one procedure: entry (steps 1–3), body, exit (steps 4–6).
pub(crate) fn build(
    formals: &[Formal],
    body: Option<&Stmt>,
    header: Span,
    ranks: &Ranks,
    sigs: &Signatures,
) -> Built {
    let mut b = Builder {
        sigs,
        ranks,
        var_index: ranks
            .arrays
            .iter()
            .enumerate()
            .map(|(i, v)| (v.as_str(), i))
            .collect(),
        graph: ExtentGraph::new(),
        steps: Vec::new(),
        decls: BTreeMap::new(),
    };
    let (wires, entry) = b.entry(formals, header);
    let wires = match body {
        Some(body) => b.stmt(body, wires),
        None => wires,
    };
    b.exit(formals, header, &wires, &entry);
    Built {
        graph: b.graph,
        steps: b.steps,
    }
}

/// Distinct extent names of `formals` in order of first appearance.
fn extent_names<'f>(formals: impl Iterator<Item = &'f Formal>) -> Vec<&'f str> {
    let mut names: Vec<&str> = Vec::new();
    for f in formals {
        for e in &f.sizing {
            if !names.contains(&e.name.as_str()) {
                names.push(&e.name);
            }
        }
    }
    names
}

impl<'a> Builder<'a> {
    fn record(
        &mut self,
        span: Span,
        what: String,
        first: VertexId,
        arcs: Vec<(VertexId, VertexId)>,
        wires: &Wires,
    ) {
        let vertices: Vec<VertexId> = (first..self.graph.len()).collect();
        let arcs = if arcs.is_empty() {
            vertices
                .iter()
                .flat_map(|&v| self.graph.vertices[v].preds.iter().map(move |&p| (p, v)))
                .collect()
        } else {
            arcs
        };
        let names = &self.ranks.arrays;
        self.steps.push(ConstructStep {
            span,
            what,
            vertices,
            arcs,
            wires: names.iter().cloned().zip(wires.iter().cloned()).collect(),
        });
    }

    fn var(&self, name: &str) -> Option<usize> {
        self.var_index.get(name).copied()
    }

    /// Steps 1–3: one ⊥-fed vertex per distinct extent of the `in`/`in out` formals,
    /// the wires of those formals; every other variable starts at ⊥.
    fn entry(&mut self, formals: &[Formal], header: Span) -> (Wires, BTreeMap<String, VertexId>) {
        let first = self.graph.len();
        let mut entry = BTreeMap::new();
        for name in extent_names(formals.iter().filter(|f| f.direction.reads())) {
            let span = formals
                .iter()
                .flat_map(|f| &f.sizing)
                .find(|e| e.name == name)
                .map_or(header, |e| e.span);
            let context = self.graph.fresh_context();
            let origin = Origin::Entry {
                extent: name.to_string(),
                span,
            };
            entry.insert(
                name.to_string(),
                self.graph.add(context, vec![BOTTOM], origin),
            );
        }
        let mut wires: Wires = self
            .ranks
            .arrays
            .iter()
            .map(|v| vec![BOTTOM; self.ranks.rank(v)])
            .collect();
        for f in formals.iter().filter(|f| f.direction.reads()) {
            if let Some(i) = self.var(&f.name.name) {
                wires[i] = f.sizing.iter().map(|e| entry[&e.name]).collect();
            }
        }
        self.record(header, "entry".into(), first, Vec::new(), &wires);
        (wires, entry)
    }

    /// Steps 4–6: one vertex per distinct extent of the `out`/`in out` formals, fed by
    /// the body's exit wires of every dimension so named, then by the entry extent of
    /// the same name when there is one.
    fn exit(
        &mut self,
        formals: &[Formal],
        header: Span,
        wires: &Wires,
        entry: &BTreeMap<String, VertexId>,
    ) {
        let first = self.graph.len();
        let outs: Vec<&Formal> = formals.iter().filter(|f| f.direction.writes()).collect();
        for name in extent_names(outs.iter().copied()) {
            let mut preds = Vec::new();
            let mut inputs = Vec::new();
            for f in &outs {
                for (k, e) in f.sizing.iter().enumerate() {
                    if e.name == name {
                        let wire = self.var(&f.name.name).map_or(BOTTOM, |i| wires[i][k]);
                        preds.push(wire);
                        inputs.push(Input::Dim {
                            var: f.name.name.clone(),
                            dim: k + 1,
                        });
                    }
                }
            }
            if let Some(&e) = entry.get(name) {
                preds.push(e);
                inputs.push(Input::Entry {
                    extent: name.to_string(),
                });
            }
            let context = self.graph.fresh_context();
            let origin = Origin::Exit {
                extent: name.to_string(),
                span: header,
            };
            let v = self.graph.add(context, preds, origin);
            self.graph.vertices[v].inputs = inputs;
        }
        self.record(header, "exit".into(), first, Vec::new(), wires);
    }

    fn stmt(&mut self, stmt: &Stmt, wires: Wires) -> Wires {
        match &stmt.kind {
            StmtKind::Call { callee, args } => self.call(stmt.span, callee, args, wires),
            StmtKind::Decl { name, sizing } => self.decl(stmt.span, name, sizing, wires),
            StmtKind::Compound(stmts) => stmts.iter().fold(wires, |w, s| self.stmt(s, w)),
            StmtKind::If {
                then, otherwise, ..
            } => {
                let a = self.stmt(then, wires.clone());
                let b = match otherwise {
                    Some(o) => self.stmt(o, wires),
                    None => wires,
                };
                self.merge(stmt.span, a, b)
            }
            StmtKind::While { body, .. } => self.while_(stmt.span, body, wires),
            StmtKind::Error => wires,
        }
    }

    /// The call rule, steps 1–4. In-only arguments are rewired before the written
    /// ones, so `tr(M, M)` leaves M with the output's extents (the spec's §2.5).
    fn call(&mut self, span: Span, callee: &Ident, args: &[Actual], mut wires: Wires) -> Wires {
        if self.ranks.bad_calls.contains(&span) {
            return wires;
        }
        let Some(sig) = self.sigs.get(&callee.name) else {
            return wires;
        };
        let first = self.graph.len();
        let names = extent_names(sig.formals.iter());
        let mut preds: Vec<Vec<VertexId>> = vec![Vec::new(); names.len()];
        let mut inputs: Vec<Vec<Input>> = vec![Vec::new(); names.len()];
        let slot = |e: &str| names.iter().position(|n| *n == e).unwrap_or(0);
        for (formal, actual) in sig.formals.iter().zip(args) {
            let (true, Some(i)) = (
                formal.direction.reads(),
                actual.var().and_then(|v| self.var(&v.name)),
            ) else {
                continue;
            };
            for (k, e) in formal.sizing.iter().enumerate() {
                preds[slot(&e.name)].push(wires[i][k]);
                inputs[slot(&e.name)].push(Input::Dim {
                    var: actual.var().map_or(String::new(), |v| v.name.clone()),
                    dim: k + 1,
                });
            }
        }
        let mut vertex = Vec::with_capacity(names.len());
        for (j, name) in names.iter().enumerate() {
            let context: Context = self.graph.fresh_context();
            let mut p = std::mem::take(&mut preds[j]);
            if p.is_empty() {
                p.push(BOTTOM);
            }
            let origin = Origin::Call {
                callee: callee.name.clone(),
                extent: name.to_string(),
                span,
            };
            let v = self.graph.add(context, p, origin);
            self.graph.vertices[v].inputs = std::mem::take(&mut inputs[j]);
            vertex.push(v);
        }
        for written in [false, true] {
            for (formal, actual) in sig.formals.iter().zip(args) {
                if formal.direction.writes() != written {
                    continue;
                }
                if let Some(i) = actual.var().and_then(|v| self.var(&v.name)) {
                    wires[i] = formal
                        .sizing
                        .iter()
                        .map(|e| vertex[slot(&e.name)])
                        .collect();
                }
            }
        }
        self.record(
            span,
            format!("call {}", callee.name),
            first,
            Vec::new(),
            &wires,
        );
        wires
    }

    fn decl(&mut self, span: Span, name: &Ident, sizing: &[Ident], mut wires: Wires) -> Wires {
        let first = self.graph.len();
        let mut own = Vec::with_capacity(sizing.len());
        for e in sizing {
            let v = match self.decls.get(&e.name) {
                Some(&v) => v,
                None => {
                    let context = self.graph.fresh_context();
                    let origin = Origin::Decl {
                        extent: e.name.clone(),
                        span: e.span,
                    };
                    let v = self.graph.add(context, vec![BOTTOM], origin);
                    self.decls.insert(e.name.clone(), v);
                    v
                }
            };
            own.push(v);
        }
        if let Some(i) = self.var(&name.name) {
            if wires[i].len() == own.len() {
                wires[i] = own;
            }
        }
        self.record(
            span,
            format!("decl {}", name.name),
            first,
            Vec::new(),
            &wires,
        );
        wires
    }

    /// The if rule: one context for the whole `if`; a merge vertex (then, else) for
    /// every dimension whose branches left different wires.
    fn merge(&mut self, span: Span, then: Wires, otherwise: Wires) -> Wires {
        let first = self.graph.len();
        let context = self.graph.fresh_context();
        let mut out = then.clone();
        for (i, (a, b)) in then.iter().zip(&otherwise).enumerate() {
            for (k, (&x, &y)) in a.iter().zip(b).enumerate() {
                if x != y {
                    let origin = Origin::Merge {
                        var: self.ranks.arrays[i].clone(),
                        dim: k + 1,
                        span,
                    };
                    out[i][k] = self.graph.add(context, vec![x, y], origin);
                }
            }
        }
        self.record(span, "if".into(), first, Vec::new(), &out);
        out
    }

    /// The while rule: one context for the loop; a head for every dimension of every
    /// array variable, fed by the wire before the loop and, once the body is built,
    /// by the body's exit wire. The body starts from the heads, and so does whatever
    /// follows the loop (decision D1: with zero iterations the body never ran).
    fn while_(&mut self, span: Span, body: &Stmt, pre: Wires) -> Wires {
        let first = self.graph.len();
        let context = self.graph.fresh_context();
        let mut heads = pre.clone();
        for (i, dims) in pre.iter().enumerate() {
            for (k, &w) in dims.iter().enumerate() {
                let origin = Origin::LoopHead {
                    var: self.ranks.arrays[i].clone(),
                    dim: k + 1,
                    span,
                };
                heads[i][k] = self.graph.add(context, vec![w], origin);
            }
        }
        self.record(span, "loop heads".into(), first, Vec::new(), &heads);
        let after = self.stmt(body, heads.clone());
        let mut back = Vec::new();
        for (h, a) in heads.iter().flatten().zip(after.iter().flatten()) {
            self.graph.vertices[*h].preds.push(*a);
            back.push((*a, *h));
        }
        let end = self.graph.len();
        self.record(span, "loop back arcs".into(), end, back, &heads);
        heads
    }
}
