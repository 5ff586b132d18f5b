//! Calling contexts (issue #22 item 1): what a call site gets from its callee.

use crate::{Matlab as Analyzer, Mode};
use shapex_report::Report;

fn run(src: &str) -> Report {
    Analyzer::new().analyze(src, &Mode::Modern.options())
}

/// The display of `name`'s last def on 1-based `line`.
fn shape_of(r: &Report, line: u32, name: &str) -> Option<String> {
    r.statements
        .iter()
        .filter(|s| s.range.line == line)
        .flat_map(|s| &s.defs)
        .rfind(|d| d.name == name)
        .map(|d| d.display.clone())
}

#[test]
fn a_chain_of_calls_is_followed_to_its_bottom() {
    let src = crate::samples::call_chain(10);
    let r = run(&src);
    // main's `z = y' * x` on line 4: y came back through ten functions as 3×4.
    assert_eq!(shape_of(&r, 4, "z").as_deref(), Some("<4,4>"), "{src}");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}

#[test]
fn a_chain_deeper_than_the_limit_ends_in_unknown_results() {
    // Functions with more than `MAX_HEIGHT` levels of calls below them are not
    // analysed in context: the top of a long chain gets unknown results, no error.
    let src = crate::samples::call_chain(super::state::MAX_HEIGHT + 5);
    let r = run(&src);
    assert_eq!(shape_of(&r, 3, "y").as_deref(), Some("?"));
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}

#[test]
fn the_same_function_gives_each_call_its_own_result() {
    let src = "function main()\n  a = g(zeros(2, 3));\n  b = g(ones(4, 1));\n  c = g(a);\nend\n\
               function y = g(x)\n  y = x * x';\nend\n";
    let r = run(src);
    assert_eq!(shape_of(&r, 2, "a").as_deref(), Some("<2,2>"));
    assert_eq!(shape_of(&r, 3, "b").as_deref(), Some("<4,4>"));
    assert_eq!(shape_of(&r, 4, "c").as_deref(), Some("<2,2>"));
    // The callee's own statement stays symbolic: its result is for every input.
    assert_eq!(shape_of(&r, 7, "y").as_deref(), Some("<x_1,x_1>"));
}

#[test]
fn a_call_failing_in_its_context_only_is_an_error_there_only() {
    let src = "function main()\n  p = g(ones(3));\n  q = g(ones(4, 1));\n  r = g(eye(2));\nend\n\
               function y = g(x)\n  y = x * x;\nend\n";
    let r = run(src);
    let errors: Vec<(u32, &str)> = r
        .diagnostics
        .iter()
        .map(|d| (d.range.line, d.code.as_str()))
        .collect();
    assert_eq!(errors, vec![(3, "shape.mtimes")]);
    let message = &r.diagnostics[0].message;
    assert!(
        message.contains("in g(double <4,1>) line 7, `x * x`"),
        "{message}"
    );
    assert_eq!(shape_of(&r, 4, "r").as_deref(), Some("<2,2>"));
}

#[test]
fn a_call_through_a_comma_separated_list_keeps_its_counts_unknown() {
    // `h(c{:})` passes as many arguments as c has cells, and `[d{:}] = h(1)` asks for
    // as many outputs: no count error, and no context taken for one argument.
    let src =
        "function main()\n  c = {1, 2};\n  h(c{:});\n  d = cell(1, 2);\n  [d{:}] = h(1);\nend\n\
               function [a, b] = h(x, y)\n  a = x;\n  b = x;\nend\n";
    let r = run(src);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}

#[test]
fn the_call_graph_shows_each_context_between_caller_and_callee() {
    use shapex_report::view::{Payload, VertexMark};
    let src = "function main()\n  p = g(ones(3));\n  q = g(ones(4, 1));\nend\n\
               function y = g(x)\n  y = x * x;\nend\n";
    let r = run(src);
    let graph = r
        .views
        .iter()
        .find_map(|v| match &v.payload {
            Payload::Graph(g) if v.id == "callgraph" => Some(g),
            _ => None,
        })
        .expect("a call graph");
    let vertex = |id: &str| graph.vertices.iter().find(|v| v.id == id);
    let fails = vertex("ctx:g(double <4,1>)").expect("the failing context");
    assert_eq!(fails.mark, Some(VertexMark::Conflict));
    assert!(
        fails.detail.contains("called from main line 3"),
        "{}",
        fails.detail
    );
    let ok = vertex("ctx:g(double <3,3>)").expect("the other context");
    assert_eq!(ok.mark, Some(VertexMark::Checked));
    let edge = |a: &str, b: &str| graph.edges.iter().any(|e| e.from == a && e.to == b);
    assert!(edge("main", "ctx:g(double <4,1>)") && edge("ctx:g(double <4,1>)", "g"));
}
