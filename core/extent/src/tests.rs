//! The paper's and the spec's worked examples (§4) with their expected graphs,
//! classes and errors, and property tests of the two solvers.

use crate::graph::{ExtentGraph, Origin, VertexId};
use crate::samples;
use crate::steps::Step;
use crate::{analyze, refine, refine_hopcroft, Analysis, ExtentClass, Partition, ProcAnalysis};

const FIG2: &str = include_str!("../../../tests/fixtures/t/fig2.t");

fn run(source: &str) -> Analysis {
    let analysis = analyze(source);
    for proc in &analysis.procs {
        assert_eq!(
            refine_hopcroft(&proc.graph),
            proc.partition,
            "{}: solvers disagree",
            proc.name
        );
        assert!(proc.partition.is_solution(&proc.graph) || proc.graph.len() > 200);
    }
    analysis
}

fn proc<'a>(analysis: &'a Analysis, name: &str) -> &'a ProcAnalysis {
    analysis
        .procs
        .iter()
        .find(|p| p.name == name)
        .expect("procedure")
}

fn codes(analysis: &Analysis) -> Vec<&str> {
    analysis
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect()
}

fn messages(analysis: &Analysis) -> Vec<&str> {
    analysis
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect()
}

/// The vertex of `origin`'s label (`head x.1`, `copy N`…), the last one if several.
fn vertex(p: &ProcAnalysis, label: &str) -> VertexId {
    (0..p.graph.len())
        .rev()
        .find(|&v| p.graph.vertices[v].origin.label() == label)
        .unwrap_or_else(|| panic!("no vertex {label}"))
}

/// The class names of a variable's wires after the construction step `what` (last).
fn wires_after(p: &ProcAnalysis, what: &str, var: &str) -> Vec<String> {
    let step = p
        .steps
        .iter()
        .rev()
        .find_map(|s| match s {
            Step::Construct(c) if c.what == what => Some(c),
            _ => None,
        })
        .expect("step");
    let (_, wires) = step.wires.iter().find(|(v, _)| v == var).expect("variable");
    wires.iter().map(|&w| p.class_name(w).to_string()).collect()
}

/// Every example of the paper and the spec (`tests/fixtures/t`): its procedure, the
/// vertex and class counts of its graph, and its diagnostics' codes. The counts follow
/// from the construction rules, e.g. §6.3's `ifdemo`: ⊥, 3 entry extents, 8 copies,
/// 7 merges (x, y, z, t and the in-only arguments r, s, q that the copies rewired),
/// 3 checks = 22 vertices; classes ⊥, R, S, Q, τ1 (y, z), τ2 (t), τ3 (the failing
/// check) = 7.
#[test]
fn every_example_has_its_expected_counts_and_errors() {
    let cases: [(&str, &str, usize, usize, &[&str]); 11] = [
        ("fig2", FIG2, 22, 4, &[]),
        (
            "sec2",
            include_str!("../../../tests/fixtures/t/sec2_motivation.t"),
            10,
            5,
            &["t.size"],
        ),
        (
            "sec4_2",
            include_str!("../../../tests/fixtures/t/sec4_2_names.t"),
            6,
            6,
            &["t.size"],
        ),
        (
            "sec6_3",
            include_str!("../../../tests/fixtures/t/sec6_3_if.t"),
            22,
            7,
            &["t.size"],
        ),
        (
            "sec6_4",
            include_str!("../../../tests/fixtures/t/sec6_4_while.t"),
            10,
            6,
            &["t.size"],
        ),
        (
            "fig4",
            include_str!("../../../tests/fixtures/t/fig4_call.t"),
            7,
            4,
            &[],
        ),
        (
            "b3",
            include_str!("../../../tests/fixtures/t/b3_empty_loop.t"),
            5,
            2,
            &[],
        ),
        (
            "b4",
            include_str!("../../../tests/fixtures/t/b4_aliasing.t"),
            9,
            3,
            &[],
        ),
        (
            "b1",
            include_str!("../../../tests/fixtures/t/b1_cascade.t"),
            22,
            8,
            &["t.size", "t.exit"],
        ),
        (
            "b2",
            include_str!("../../../tests/fixtures/t/b2_exit.t"),
            22,
            5,
            &["t.exit"],
        ),
        (
            "fig2 verbatim",
            include_str!("../../../tests/fixtures/t/fig2_verbatim.t"),
            20,
            5,
            &["t.literal", "t.undefined"],
        ),
    ];
    for (name, source, vertices, classes, expected) in cases {
        let analysis = run(source);
        assert_eq!(analysis.procs.len(), 1, "{name}");
        let p = &analysis.procs[0];
        assert_eq!(
            (p.graph.len(), p.partition.count()),
            (vertices, classes),
            "{name}"
        );
        assert_eq!(codes(&analysis), expected, "{name}");
    }
}

#[test]
fn figure_2_has_22_vertices_4_classes_and_no_error() {
    let analysis = run(FIG2);
    assert!(
        analysis.diagnostics.is_empty(),
        "{:#?}",
        analysis.diagnostics
    );
    let p = proc(&analysis, "matvec_product");
    assert_eq!(p.graph.len(), 22);
    assert_eq!(p.partition.count(), 4);
    // The spec's §4.7 table.
    assert_eq!(p.class_name(vertex(p, "head result.1")), "S");
    assert_eq!(p.class_name(vertex(p, "head m.1")), "S");
    assert_eq!(p.class_name(vertex(p, "head m.2")), "T");
    assert_eq!(p.class_name(vertex(p, "head v.1")), "T");
    assert_eq!(p.class_name(vertex(p, "head current_row.1")), "τ1");
    assert_eq!(p.class_name(vertex(p, "dot_product S")), "T");
    assert_eq!(p.class_name(vertex(p, "exit S")), "S");
    let exit = &p.graph.vertices[vertex(p, "exit S")];
    assert_eq!(exit.preds, [vertex(p, "head result.1"), 1]);
    assert_eq!(
        p.graph.vertices[vertex(p, "head current_row.1")].preds[0],
        0
    );
}

#[test]
fn figure_2_verbatim_reports_the_literal_written_to() {
    let analysis = run(include_str!("../../../tests/fixtures/t/fig2_verbatim.t"));
    assert!(
        codes(&analysis).contains(&"t.literal"),
        "{:#?}",
        analysis.diagnostics
    );
}

#[test]
fn section_2_motivation_legal_and_illegal() {
    let legal = run("proc mat_mat_multiply (in x[R,S], in y[S,T], out z[R,T])\n\
                     decl a[M,N]; decl b[N,O]; decl c[M,O];\n\
                     mat_mat_multiply (a, b, c);");
    assert!(legal.diagnostics.is_empty(), "{:#?}", legal.diagnostics);
    let p = proc(&legal, crate::TOP_LEVEL);
    assert_eq!(p.graph.len(), 7);
    assert_eq!(p.partition.count(), 4);
    assert_eq!(p.class_name(vertex(p, "mat_mat_multiply S")), "N");

    let both = run(include_str!("../../../tests/fixtures/t/sec2_motivation.t"));
    assert_eq!(
        messages(&both),
        ["extent S of mat_mat_multiply: a dim 2 = N, c dim 1 = M"]
    );
    let d = &both.diagnostics[0];
    assert_eq!(d.code, "t.size");
    assert_eq!(d.range.line, 9, "on the second call");
}

#[test]
fn section_4_2_different_names_never_unify() {
    let analysis = run(include_str!("../../../tests/fixtures/t/sec4_2_names.t"));
    assert_eq!(
        messages(&analysis),
        ["extent N of vector_add: z dim 1 = T, x dim 1 = S"]
    );
}

#[test]
fn section_6_3_if_merges_share_one_fresh_extent_per_conflict() {
    let analysis = run(include_str!("../../../tests/fixtures/t/sec6_3_if.t"));
    let p = proc(&analysis, "ifdemo");
    assert_eq!(wires_after(p, "if", "x"), ["R"]);
    let y = wires_after(p, "if", "y");
    assert_eq!(wires_after(p, "if", "z"), y);
    let t = wires_after(p, "if", "t");
    assert_ne!(y, t);
    for other in ["R", "S", "Q"] {
        assert_ne!(y[0], other);
        assert_ne!(t[0], other);
    }
    // chk(y, z) and chk(x, r) pass; chk(y, t) does not.
    assert_eq!(codes(&analysis), ["t.size"]);
    assert!(analysis.diagnostics[0]
        .message
        .starts_with("extent N of chk: y dim 1 = τ"));
    assert_eq!(analysis.diagnostics[0].range.line, 7);
}

#[test]
fn section_6_4_while_output_is_the_loop_head() {
    let analysis = run(include_str!("../../../tests/fixtures/t/sec6_4_while.t"));
    let p = proc(&analysis, "w");
    assert_eq!(p.class_name(vertex(p, "head z.1")), "R");
    assert_eq!(p.class_name(vertex(p, "head x.1")), "τ1");
    assert_eq!(wires_after(p, "call copy", "x"), ["R"], "body exit");
    assert_eq!(wires_after(p, "loop back arcs", "x"), ["τ1"], "loop exit");
    assert_eq!(
        messages(&analysis),
        ["extent N of vector_add: x dim 1 = τ1, z dim 1 = R"]
    );
}

#[test]
fn figure_4_call_piece() {
    let analysis = run(include_str!("../../../tests/fixtures/t/fig4_call.t"));
    assert!(
        analysis.diagnostics.is_empty(),
        "{:#?}",
        analysis.diagnostics
    );
    let p = proc(&analysis, "caller");
    let r = vertex(p, "mat_vec_multiply R");
    let s = vertex(p, "mat_vec_multiply S");
    let entry_a = vertex(p, "entry A");
    let entry_b = vertex(p, "entry B");
    assert_eq!(p.graph.vertices[r].preds, [entry_a]);
    assert_eq!(p.graph.vertices[s].preds, [entry_b, entry_b]);
    let step = p
        .steps
        .iter()
        .find_map(|s| match s {
            Step::Construct(c) if c.what == "call mat_vec_multiply" => Some(c),
            _ => None,
        })
        .unwrap();
    let wires = |var: &str| step.wires.iter().find(|(v, _)| v == var).unwrap().1.clone();
    assert_eq!(wires("x"), [r, s]);
    assert_eq!(wires("y"), [s]);
    assert_eq!(wires("z"), [r]);
    assert_eq!(
        wires("p"),
        [vertex(p, "entry P")],
        "an uninvolved variable passes through"
    );
}

fn figure_2_with(from: &str, to: &str) -> Analysis {
    assert!(FIG2.contains(from));
    run(&FIG2.replace(from, to))
}

#[test]
fn b1_a_wrong_vector_reports_the_call_and_the_cascaded_exit() {
    let analysis = figure_2_with(
        "dot_product (answer, current_row, v)",
        "dot_product (answer, result, v)",
    );
    // The spec words the first as "result.1 = S vs v.1 = T". In the minimum solution
    // the classes are fresh: dot_product rewires both result and v to its extent S,
    // which feeds back into the loop heads of result and v, so neither head can stay S
    // or T (a non-uniform head shares no class with the entry extents).
    assert_eq!(
        messages(&analysis),
        [
            "extent S of dot_product: result dim 1 = τ1, v dim 1 = τ2",
            "extent S of matvec_product at exit: result dim 1 = τ1, entry S = S"
        ]
    );
    assert_eq!(codes(&analysis), ["t.size", "t.exit"]);
}

#[test]
fn b2_a_row_for_a_column_is_an_exit_error_only() {
    let analysis = figure_2_with(
        "extract_matrix_column (result, m, l2)",
        "extract_matrix_row (result, m, l2)",
    );
    assert_eq!(
        messages(&analysis),
        ["extent S of matvec_product at exit: result dim 1 = T, entry S = S"]
    );
}

#[test]
fn b3_an_empty_loop_changes_no_extent() {
    let analysis = run(include_str!("../../../tests/fixtures/t/b3_empty_loop.t"));
    assert!(
        analysis.diagnostics.is_empty(),
        "{:#?}",
        analysis.diagnostics
    );
    // The spec's §3.3 case, which the one-step and least-fixed-point readings get wrong.
    let analysis = run("proc p(in c, in a[P], out r[P]) { while (c) {}; copy(r, a) }");
    assert!(
        analysis.diagnostics.is_empty(),
        "{:#?}",
        analysis.diagnostics
    );
}

#[test]
fn b4_aliasing_rewires_inputs_before_outputs() {
    let analysis = run(include_str!("../../../tests/fixtures/t/b4_aliasing.t"));
    assert!(
        analysis.diagnostics.is_empty(),
        "{:#?}",
        analysis.diagnostics
    );
    let analysis = run("proc q(in M[P,Q], out O[P,Q]) { tr(M, M); copy2(O, M) }");
    assert_eq!(codes(&analysis), ["t.exit", "t.exit"]);
    assert!(messages(&analysis)[0].starts_with("extent P of q at exit: O dim 1 = Q"));
    assert!(messages(&analysis)[1].starts_with("extent Q of q at exit: O dim 2 = P"));
}

#[test]
fn a_rank_mismatch_has_its_own_error_and_leaves_the_call_out() {
    let analysis = run("proc f(in a[N], out b[N]) { copy2(b, a); copy(b, a) }");
    assert_eq!(codes(&analysis), ["t.rank", "t.rank"]);
    assert!(
        messages(&analysis)[0].contains("`b` has rank 2"),
        "{:?}",
        messages(&analysis)
    );
    let p = proc(&analysis, "f");
    assert!(!p
        .graph
        .vertices
        .iter()
        .any(|v| v.origin.label().starts_with("copy2")));
}

#[test]
fn unknown_procedures_arity_and_literals_are_reported() {
    let analysis = run("proc f(in a[N], out b[N]) { nope(a); copy(b); copy(b, 3); copy(b, a) }");
    assert_eq!(codes(&analysis), ["t.unknown", "t.arity", "t.literal"]);
}

#[test]
fn undefined_arrays_are_reported_once_not_as_size_errors() {
    let analysis = run("proc f() { chk(u, w) }");
    assert_eq!(codes(&analysis), ["t.undefined", "t.undefined"]);
    assert!(messages(&analysis)[0].contains("used before it is defined"));
    let analysis = run("proc f(in c, in a[N]) { if (c) copy(x, a); chk(x, a) }");
    assert_eq!(codes(&analysis), ["t.undefined"]);
    assert!(messages(&analysis)[0].contains("may be undefined"));
    // Defined in a loop body only: undefined when the loop runs zero times.
    let analysis = run("proc f(in c, in a[N]) { while (c) copy(x, a); chk(x, a) }");
    assert_eq!(codes(&analysis), ["t.undefined"]);
    let analysis = run("proc f(in c, in a[N], out r[N]) { if (c) copy(r, a) }");
    assert_eq!(codes(&analysis), ["t.undefined"]);
    assert!(messages(&analysis)[0].contains("output `r` may be undefined"));
    let analysis = run("proc f(in a[N], out r[N]) { }");
    assert_eq!(
        messages(&analysis),
        ["output `r` is undefined when `f` returns"]
    );
}

#[test]
fn a_variable_written_twice_and_a_second_procedure_are_warned_about() {
    let analysis = run("proc two(out r[N], out s[N]) builtin\n\
                        proc g(in a[N]) { two(x, x) }\n\
                        proc g(in a[N]) builtin");
    assert_eq!(codes(&analysis), ["t.alias", "t.duplicate"]);
    assert_eq!(
        analysis.diagnostics[0].severity,
        shapex_text::Severity::Warning
    );
}

#[test]
fn a_program_signature_shadows_the_prelude() {
    let analysis = run("proc copy(out r[N], in a[N], in b[N]) builtin\n\
                        proc f(in a[N], in b[M], out r[N]) { copy(r, a, b) }");
    assert_eq!(
        messages(&analysis),
        [
            "extent N of copy: a dim 1 = N, b dim 1 = M",
            "extent N of f at exit: r dim 1 = τ1, entry N = N"
        ]
    );
}

#[test]
fn replay_steps_build_statement_by_statement_then_refine_pass_by_pass() {
    let analysis = run(FIG2);
    let p = proc(&analysis, "matvec_product");
    let construct: Vec<&str> = p
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Construct(c) => Some(c.what.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(construct.first(), Some(&"entry"));
    assert_eq!(construct.last(), Some(&"exit"));
    assert!(construct.contains(&"loop heads") && construct.contains(&"loop back arcs"));
    let vertices: usize = p
        .steps
        .iter()
        .map(|s| match s {
            Step::Construct(c) => c.vertices.len(),
            _ => 0,
        })
        .sum();
    assert_eq!(
        vertices + 1,
        p.graph.len(),
        "every vertex but ⊥ is added by one step"
    );
    let passes: Vec<&Partition> = p
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Refine(r) => Some(&r.partition),
            _ => None,
        })
        .collect();
    assert_eq!(passes[0].count(), 2);
    assert_eq!(passes.last(), Some(&&p.partition));
}

#[test]
fn a_syntax_error_costs_one_statement_and_later_size_errors_are_still_found() {
    let analysis = run("proc f(in a[N], in b[M]) {\n  copy(x, a;\n  chk(a, b)\n}\n");
    assert_eq!(codes(&analysis), ["syntax.expected", "t.size"]);
    assert_eq!(analysis.diagnostics[1].range.line, 3);
    assert_eq!(
        analysis.diagnostics[1].message,
        "extent N of chk: a dim 1 = N, b dim 1 = M"
    );
}

#[test]
fn broken_programs_are_analysed_without_panicking() {
    for source in [
        "",
        "proc f(",
        "proc f(in a[N]) { copy(x, a",
        "while (c) { copy(x, y) }",
        "proc f(in a[N]) { chk(a) ; if (c) else ; }",
        "decl a[N,N]; chk2(a, a); tr(a, a)",
    ] {
        let _ = run(source);
    }
}

#[test]
fn the_solvers_agree_on_a_large_procedure() {
    let analysis = analyze(&samples::nested(40));
    let p = proc(&analysis, "nested");
    assert!(p.graph.len() > 1000, "{}", p.graph.len());
    assert_eq!(refine_hopcroft(&p.graph), p.partition);

    let analysis = analyze(&samples::flat(600));
    let p = proc(&analysis, "big");
    assert!(p.graph.len() > 1000, "{}", p.graph.len());
    assert_eq!(refine_hopcroft(&p.graph), p.partition);
}

#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use super::*;
    use proptest::prelude::*;

    fn var(names: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
        prop::sample::select(names)
    }

    /// Statements over the rank-1 arrays `names` (and rank-2 `M`, `Q` when `matrices`).
    fn stmt(
        names: &'static [&'static str],
        matrices: bool,
        depth: u32,
        size: u32,
    ) -> BoxedStrategy<String> {
        let v = || var(names);
        let mut leaves = vec![
            (v(), v())
                .prop_map(|(a, b)| format!("copy({a}, {b})"))
                .boxed(),
            (v(), v(), v())
                .prop_map(|(a, b, c)| format!("vector_add({a}, {b}, {c})"))
                .boxed(),
            v().prop_map(|a| format!("fresh({a})")).boxed(),
            (v(), v())
                .prop_map(|(a, b)| format!("chk({a}, {b})"))
                .boxed(),
            v().prop_map(|a| format!("clear_vector({a})")).boxed(),
        ];
        if matrices {
            let m = || var(&["M", "Q"]);
            leaves.push(
                (m(), m())
                    .prop_map(|(a, b)| format!("tr({a}, {b})"))
                    .boxed(),
            );
            leaves.push(
                (m(), m())
                    .prop_map(|(a, b)| format!("copy2({a}, {b})"))
                    .boxed(),
            );
            leaves.push(
                (v(), m())
                    .prop_map(|(a, b)| format!("extract_matrix_row({a}, {b}, 1)"))
                    .boxed(),
            );
        }
        let leaf = proptest::strategy::Union::new(leaves);
        leaf.prop_recursive(depth, size, 3, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| format!("if (c) {{ {a} }} else {{ {b} }}")),
                inner.clone().prop_map(|a| format!("if (c) {a}")),
                inner.clone().prop_map(|a| format!("while (c) {{ {a} }}")),
                prop::collection::vec(inner, 1..4).prop_map(|v| format!("{{ {} }}", v.join("; "))),
            ]
        })
        .boxed()
    }

    fn direction() -> impl Strategy<Value = &'static str> {
        prop::sample::select(&["in", "out", "in out"][..])
    }

    /// Small procedures: graphs of a handful of vertices, for the brute force.
    fn small_program() -> impl Strategy<Value = String> {
        let body = prop::collection::vec(stmt(&["a", "x"], false, 2, 4), 1..4);
        (direction(), prop::sample::select(&["A", "B"][..]), body).prop_map(|(d, e, body)| {
            format!(
                "proc p(in c, in a[A], {d} x[{e}]) {{ {} }}",
                body.join("; ")
            )
        })
    }

    fn any_program() -> impl Strategy<Value = String> {
        (
            direction(),
            direction(),
            prop::sample::select(&["A", "B"][..]),
            stmt(&["a", "x", "y", "z"], true, 5, 40),
        )
            .prop_map(|(d, dm, e, body)| {
                format!(
                    "proc p(in c, in a[A], {d} x[{e}], {dm} M[A,{e}], out Q[{e},A]) {{ {body} }}"
                )
            })
    }

    /// Procedures of up to a hundred statements: graphs of hundreds to thousands of
    /// vertices.
    fn large_random_program() -> impl Strategy<Value = String> {
        let body = prop::collection::vec(stmt(&["a", "x", "y", "z"], true, 4, 24), 1..100);
        (direction(), direction(), body).prop_map(|(d, dm, body)| {
            format!(
                "proc p(in c, in a[A], {d} x[A], {dm} M[A,B], out Q[B,A]) {{ {} }}",
                body.join(";\n")
            )
        })
    }

    /// Every partition with ⊥ alone (C2), as restricted growth strings over the other
    /// vertices; the valid ones of fewest classes.
    fn brute_force_minimum(graph: &ExtentGraph) -> Vec<Partition> {
        let n = graph.len();
        let mut block = vec![0usize; n];
        let mut best: Vec<Partition> = Vec::new();
        let mut best_count = usize::MAX;
        fn next(block: &mut [usize]) -> bool {
            // Increment the restricted growth string over block[1..], values ≥ 1.
            let n = block.len();
            let mut i = n - 1;
            while i >= 1 {
                let max_before = block[1..i].iter().copied().max().unwrap_or(0);
                if block[i] <= max_before {
                    block[i] += 1;
                    for b in &mut block[i + 1..] {
                        *b = 1;
                    }
                    return true;
                }
                i -= 1;
            }
            false
        }
        for b in block.iter_mut().skip(1) {
            *b = 1;
        }
        loop {
            // A restricted growth string is already canonical (first occurrences
            // in increasing order), so it is the partition's numbering as it is.
            let count = block.iter().max().map_or(0, |m| m + 1);
            let p = Partition {
                class: block.iter().map(|&b| ExtentClass(b as u32)).collect(),
            };
            if count <= best_count && p.is_solution(graph) {
                if count < best_count {
                    best.clear();
                    best_count = count;
                }
                best.push(p);
            }
            if n < 2 || !next(&mut block) {
                return best;
            }
        }
    }

    #[test]
    fn the_brute_force_counts_partitions() {
        let mut g = ExtentGraph::new();
        for _ in 0..4 {
            let c = g.fresh_context();
            g.add(c, vec![0], Origin::Bottom);
        }
        // Four ⊥-fed vertices of distinct labels: each its own extent.
        let min = brute_force_minimum(&g);
        assert_eq!(min.len(), 1);
        assert_eq!(min[0].count(), 5);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

        #[test]
        fn both_solvers_give_the_unique_minimum_on_small_graphs(source in small_program()) {
            let analysis = analyze(&source);
            let p = &analysis.procs[0];
            prop_assume!(p.graph.len() <= 11);
            let minimum = brute_force_minimum(&p.graph);
            prop_assert_eq!(minimum.len(), 1, "the minimum is unique");
            prop_assert_eq!(&refine(&p.graph).0, &minimum[0]);
            prop_assert_eq!(&refine_hopcroft(&p.graph), &minimum[0]);
        }

        #[test]
        fn both_solvers_agree_on_graphs_of_every_size(source in any_program()) {
            let analysis = analyze(&source);
            let p = &analysis.procs[0];
            let hopcroft = refine_hopcroft(&p.graph);
            prop_assert_eq!(&hopcroft, &p.partition);
            if p.graph.len() <= 120 {
                prop_assert!(p.partition.is_solution(&p.graph));
            }
        }
    }

    fn token() -> impl Strategy<Value = &'static str> {
        prop::sample::select(
            &[
                "proc ", "builtin ", "if ", "else ", "while ", "decl ", "in ", "out ", "f", "x",
                "a", "copy", "tr", "chk", "R", "1", "(", ")", "[", "]", "{", "}", ",", ";", " ",
                "\n",
            ][..],
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

        #[test]
        fn any_text_is_analysed_without_panicking(tokens in prop::collection::vec(token(), 0..80)) {
            let source = tokens.concat();
            let analysis = analyze(&source);
            for d in &analysis.diagnostics {
                prop_assert!(d.span.end <= source.len());
            }
            for p in &analysis.procs {
                prop_assert_eq!(&refine_hopcroft(&p.graph), &p.partition);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

        #[test]
        fn both_solvers_agree_on_large_graphs(source in large_random_program()) {
            let analysis = analyze(&source);
            let p = &analysis.procs[0];
            prop_assert_eq!(&refine_hopcroft(&p.graph), &p.partition);
        }
    }
}

/// Timings of both solvers on generated procedures of about 1,000 to 100,000 vertices
/// (issue #20 item 4), with each solver's growth exponent (the least-squares slope of
/// log time over log vertices) per family. Run with
/// `cargo test -p shapex-extent --release -- --ignored solver_scaling --nocapture`; prints,
/// never asserts anything but the two solvers' agreement.
#[test]
#[ignore]
fn solver_scaling() {
    use std::time::{Duration, Instant};
    /// The fastest of a few runs.
    fn time<T>(runs: usize, f: impl Fn() -> T) -> (T, Duration) {
        let mut best = Duration::MAX;
        let mut out = None;
        for _ in 0..runs {
            let t = Instant::now();
            let r = f();
            best = best.min(t.elapsed());
            out = Some(r);
        }
        (out.expect("one run at least"), best)
    }
    fn slope(points: &[(f64, f64)]) -> f64 {
        let n = points.len() as f64;
        let (sx, sy) = points
            .iter()
            .fold((0.0, 0.0), |(a, b), (x, y)| (a + x.ln(), b + y.ln()));
        let (mx, my) = (sx / n, sy / n);
        let (num, den) = points.iter().fold((0.0, 0.0), |(a, b), (x, y)| {
            let dx = x.ln() - mx;
            (a + dx * (y.ln() - my), b + dx * dx)
        });
        num / den
    }
    // `SHAPEX_T_SIZES=30000,50000,70000` measures other sizes.
    let targets: Vec<usize> = std::env::var("SHAPEX_T_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 3_000, 10_000, 30_000, 100_000]);
    /// A family: its name, its generator, and about how many vertices per unit.
    type Family = (&'static str, fn(usize) -> String, f64);
    let families: [Family; 2] = [
        ("flat", samples::flat, 3.3),
        ("nested", samples::nested, 34.0),
    ];
    let prelude = shapex_t_syntax::prelude();
    for (family, make, per_unit) in families {
        let (mut paper_points, mut hopcroft_points) = (Vec::new(), Vec::new());
        for &target in &targets {
            let source = make(((target as f64) / per_unit).round() as usize);
            let parsed = shapex_t_syntax::parse(&source);
            let analysis = crate::analyze_program(&parsed.program, &prelude);
            let graph = &analysis.procs[0].graph;
            let runs = 5;
            let (paper, paper_time) = time(runs, || refine(graph).0);
            let (hopcroft, hopcroft_time) = time(runs, || refine_hopcroft(graph));
            assert_eq!(paper, hopcroft);
            println!(
                "{family}: {} vertices, {} arcs, {} classes: paper {:.2} ms, hopcroft {:.2} ms",
                graph.len(),
                graph.arcs(),
                paper.count(),
                paper_time.as_secs_f64() * 1e3,
                hopcroft_time.as_secs_f64() * 1e3
            );
            paper_points.push((graph.len() as f64, paper_time.as_secs_f64()));
            hopcroft_points.push((graph.len() as f64, hopcroft_time.as_secs_f64()));
        }
        println!(
            "{family}: growth exponent paper {:.2}, hopcroft {:.2}",
            slope(&paper_points),
            slope(&hopcroft_points)
        );
    }
}
