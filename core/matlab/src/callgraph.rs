//! The call graph view (Dubrau 2012, §5: the Tamer's call graph): one vertex per
//! function of the file — script body, primary, subfunctions, nested functions and
//! lifted lambdas — and an edge where one calls another by name; and one vertex per
//! context a function is analysed in for the calls of the functions shown (issue #22
//! item 8), between the caller (an edge per call line) and the function. Builtins are
//! not vertices; another file's function is one where the file calls it in context.

use crate::tame::{FunctionKind, Program, Stmt, StmtKind};
use shapex_report::view::{Edge, Graph, Vertex, VertexMark};
use shapex_text::{LineIndex, Range, Span};
use std::collections::{BTreeMap, BTreeSet};

/// A call analysed in its context (the value analysis's `CallContext`, placed).
pub struct ContextCall {
    /// The calling function.
    pub caller: String,
    pub span: Span,
    /// The function called.
    pub callee: String,
    /// The path of the callee's file when it is another file's function.
    pub file: Option<String>,
    /// The callee with the arguments' classes and shapes (`gram(double <3,4>)`).
    pub label: String,
    /// `proven`, `run-time check`, `fails` or `never returns`.
    pub verdict: &'static str,
    /// The callee analysed in this context, line by line (shown when it is picked).
    pub lines: Vec<String>,
}

pub fn call_graph(program: &Program, source: &str, contexts: &[ContextCall]) -> Graph {
    let index = LineIndex::new(source);
    let names: BTreeSet<&str> = program.functions.iter().map(|f| f.name.as_str()).collect();
    let vertices = program
        .functions
        .iter()
        .map(|f| {
            let range = Range::of(f.span, &index);
            let line = range.line;
            Vertex {
                id: f.name.clone(),
                // A lifted lambda's name is the lowering's; users know it by its line.
                label: match f.kind {
                    FunctionKind::Lambda => format!("@(…) line {line}"),
                    _ => f.name.clone(),
                },
                class: kind_class(f.kind).into(),
                range: Some(range),
                ..Vertex::default()
            }
        })
        .collect();
    let mut vertices: Vec<Vertex> = vertices;
    let mut edges = BTreeSet::new();
    for f in &program.functions {
        if let Some(parent) = &f.parent {
            edges.insert((parent.clone(), f.name.clone(), "defines".to_string()));
        }
        let mut callees = BTreeSet::new();
        calls(&f.body, &names, &mut callees);
        for g in callees {
            edges.insert((f.name.clone(), g.to_string(), "calls".to_string()));
        }
    }
    let mut by_label: BTreeMap<&str, Vertex> = BTreeMap::new();
    for ctx in contexts {
        let (caller, line) = (&ctx.caller, Range::of(ctx.span, &index).line);
        let id = format!("ctx:{}", ctx.label);
        let v = by_label.entry(&ctx.label).or_insert_with(|| Vertex {
            id: id.clone(),
            label: ctx.label.clone(),
            class: "context".into(),
            mark: match ctx.verdict {
                "fails" => Some(VertexMark::Conflict),
                "proven" => Some(VertexMark::Checked),
                _ => None,
            },
            detail: match ctx.lines.is_empty() {
                true => format!("{}: {}", ctx.label, ctx.verdict),
                false => format!("{}: {}\n{}\n", ctx.label, ctx.verdict, ctx.lines.join("\n")),
            },
            ..Vertex::default()
        });
        v.detail
            .push_str(&format!("\ncalled from {caller} line {line}"));
        edges.insert((caller.clone(), id.clone(), format!("line {line}")));
        edges.insert((id, ctx.callee.clone(), "in context".to_string()));
    }
    vertices.extend(by_label.into_values());
    // Another file's function: one vertex, where it is instead of a line of this file.
    let mut other_files = BTreeMap::new();
    for ctx in contexts {
        if let Some(file) = ctx
            .file
            .as_ref()
            .filter(|_| !names.contains(ctx.callee.as_str()))
        {
            other_files.entry(&ctx.callee).or_insert_with(|| Vertex {
                id: ctx.callee.clone(),
                label: ctx.callee.clone(),
                class: "other file".into(),
                detail: format!("{} is defined in {file}", ctx.callee),
                ..Vertex::default()
            });
        }
    }
    vertices.extend(other_files.into_values());
    Graph {
        vertices,
        edges: edges
            .into_iter()
            .map(|(from, to, label)| Edge { from, to, label })
            .collect(),
        steps: Vec::new(),
    }
}

fn kind_class(kind: FunctionKind) -> &'static str {
    match kind {
        FunctionKind::Script => "script",
        FunctionKind::Primary => "primary",
        FunctionKind::Subfunction => "subfunction",
        FunctionKind::Nested => "nested",
        FunctionKind::Lambda => "lambda",
    }
}

fn calls<'a>(stmts: &'a [Stmt], names: &BTreeSet<&'a str>, out: &mut BTreeSet<&'a str>) {
    for s in stmts {
        if let StmtKind::Call { func, .. } = &s.kind {
            if let Some(n) = names.get(func.as_str()) {
                out.insert(n);
            }
        }
        for c in s.children() {
            calls(c, names, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_calls_and_lambdas() {
        let src =
            "function r = main(x)\n  r = helper(x) + helper(1);\n  g = @(y) helper(y);\nend\n\
                   function h = helper(v)\n  h = v';\nend\n";
        let parsed = shapex_matlab_syntax::parse(src);
        let lowered = crate::tame::lower(&parsed.file);
        let g = call_graph(&lowered.program, src, &[]);
        let ids: Vec<&str> = g.vertices.iter().map(|v| v.id.as_str()).collect();
        assert!(ids.contains(&"main") && ids.contains(&"helper"), "{ids:?}");
        let edge = |a: &str, b: &str| g.edges.iter().any(|e| e.from == a && e.to == b);
        assert!(edge("main", "helper"));
        let lambda = g
            .vertices
            .iter()
            .find(|v| v.class == "lambda")
            .expect("a lifted lambda");
        assert!(edge("main", &lambda.id), "{:?}", g.edges);
        assert!(edge(&lambda.id, "helper"), "{:?}", g.edges);
        let helper = g.vertices.iter().find(|v| v.id == "helper").unwrap();
        assert_eq!(helper.line(), Some(5));
    }
}
