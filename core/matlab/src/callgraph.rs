//! The call graph view (Dubrau 2012, §5: the Tamer's call graph): one vertex per
//! function of the file — script body, primary, subfunctions, nested functions and
//! lifted lambdas — and an edge where one calls another by name. Builtins and
//! functions outside the file are not vertices.

use crate::tame::{FunctionKind, Program, Stmt, StmtKind};
use shapex_report::view::{Edge, Graph, Vertex};
use shapex_text::{LineIndex, Range};
use std::collections::BTreeSet;

pub fn call_graph(program: &Program, source: &str) -> Graph {
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
    let mut edges = BTreeSet::new();
    for f in &program.functions {
        if let Some(parent) = &f.parent {
            edges.insert((parent.clone(), f.name.clone(), "defines"));
        }
        let mut callees = BTreeSet::new();
        calls(&f.body, &names, &mut callees);
        for g in callees {
            edges.insert((f.name.clone(), g.to_string(), "calls"));
        }
    }
    Graph {
        vertices,
        edges: edges
            .into_iter()
            .map(|(from, to, label)| Edge {
                from,
                to,
                label: label.into(),
            })
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
        let g = call_graph(&lowered.program, src);
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
