//! Bounded extents (issue #22 item 5): the upper bounds a statement's facts prove for
//! the extents it defines, as the Shapes and Values views and the JSON show them, and
//! none where a run may exceed them.

use super::tests::run;
use shapex_report::view::{CellValue, Payload, Table};
use shapex_report::{Def, Notation, Report, ShapeView};

/// The last def of `name` on `line` (1-based).
fn def<'a>(r: &'a Report, line: u32, name: &str) -> &'a Def {
    r.statements
        .iter()
        .filter(|s| s.range.line == line)
        .flat_map(|s| &s.defs)
        .rfind(|d| d.name == name)
        .unwrap_or_else(|| panic!("no def of {name} on line {line}: {r:#?}"))
}

fn max(d: &Def) -> Option<Vec<Option<i64>>> {
    d.shape.max().map(<[_]>::to_vec)
}

#[test]
fn a_loop_range_bounds_what_it_sizes_in_every_view() {
    let r = run("for k = 1:10\n  a = zeros(1, k);\nend\n");
    let a = def(&r, 2, "a");
    assert_eq!(max(a), Some(vec![Some(1), Some(10)]));
    assert_eq!(a.display, "<1,:10>");
    assert_eq!(a.shape.format(&a.display, Notation::Times), "1×:10");
    let json = serde_json::to_string(&a.shape).unwrap();
    assert!(json.contains(r#""max":[1,10]"#), "{json}");
    let Some(Payload::Table(Table { rows, .. })) = r.view(crate::VALUES) else {
        panic!("no Values view")
    };
    let CellValue::Text(text) = &rows[1].cells[0].value else {
        panic!("{rows:?}")
    };
    assert_eq!(Notation::Times.rewrite(text), "a: double 1×:10");
}

#[test]
fn a_condition_that_held_bounds_what_follows_it_and_nothing_before() {
    let src = "function f(x)\n\
               n = numel(x);\n\
               a = zeros(1, n);\n\
               if n > 10\n\
                 error('too many');\n\
               end\n\
               b = zeros(1, n);\n\
               k = size(x, 1);\n\
               assert(k <= 4);\n\
               c = zeros(k, n);\n\
               m = min(n, 3);\n\
               d = zeros(m, 1);\n";
    let r = run(src);
    assert_eq!(max(def(&r, 3, "a")), None);
    assert_eq!(max(def(&r, 7, "b")), Some(vec![Some(1), Some(10)]));
    assert_eq!(max(def(&r, 10, "c")), Some(vec![Some(4), Some(10)]));
    assert_eq!(max(def(&r, 12, "d")), Some(vec![Some(3), Some(1)]));
}

#[test]
fn a_fact_learned_later_in_a_loop_does_not_bound_its_first_iteration() {
    // The first iteration makes `a` before the assert has run: n may be 100 there.
    // After the loop every iteration has asserted it.
    let src = "function f(x)\n\
               n = numel(x);\n\
               for i = 1:3\n\
                 a = zeros(1, n);\n\
                 assert(n <= 10);\n\
               end\n\
               b = zeros(1, n);\n";
    let r = run(src);
    assert_eq!(max(def(&r, 4, "a")), None);
    assert_eq!(max(def(&r, 7, "b")), Some(vec![Some(1), Some(10)]));
    // The same in a loop that is not simulated through (unknown trip count).
    let src = "function f(x, y)\n\
               n = numel(x);\n\
               for i = 1:numel(y)\n\
                 a = zeros(1, n);\n\
                 if n > 10, error('no'); end\n\
               end\n";
    assert_eq!(max(def(&run(src), 4, "a")), None);
}

#[test]
fn a_path_without_the_bound_leaves_none_after_a_merge() {
    let src = "function f(x, y)\n\
               n = numel(x);\n\
               if numel(y) > 2\n\
                 if n > 10, error('no'); end\n\
               end\n\
               a = zeros(1, n);\n\
               if numel(y) > 5\n\
                 n = 50;\n\
               end\n\
               b = zeros(1, n);\n\
               c = zeros(1, n + numel(y));\n";
    let r = run(src);
    assert_eq!(max(def(&r, 6, "a")), None);
    assert_eq!(max(def(&r, 10, "b")), None);
    assert_eq!(max(def(&r, 11, "c")), None);
    // Where the other path bounds it, the merged value is bounded: n ≤ 5 or n = 50.
    let r = run(&src.replace("numel(y) > 5", "n > 5"));
    assert_eq!(max(def(&r, 10, "b")), Some(vec![Some(1), Some(50)]));
    // A product of a bounded and an unbounded extent is not bounded.
    let src = "function f(x, y)\n\
               n = numel(x);\n\
               assert(n < 4);\n\
               a = zeros(n * numel(y), 1);\n\
               b = zeros(n * 2, 1);\n";
    let r = run(src);
    assert_eq!(max(def(&r, 4, "a")), None);
    assert_eq!(max(def(&r, 5, "b")), Some(vec![Some(6), Some(1)]));
}

#[test]
fn a_known_or_unknown_shape_has_no_bounds() {
    let r = run("a = zeros(3, 4);\nb = foo(a);\n");
    assert!(matches!(
        def(&r, 1, "a").shape,
        ShapeView::Dims { max: None, .. }
    ));
    assert!(matches!(
        def(&r, 2, "b").shape,
        ShapeView::Dims { max: None, .. }
    ));
}

#[test]
fn an_or_that_raises_bounds_both_operands_after_it() {
    let src = "function f(x, y)\n\
               n = numel(x);\n\
               m = numel(y);\n\
               if n > 10 || m > 5\n\
                 error('too many');\n\
               end\n\
               a = zeros(n, m);\n";
    let r = run(src);
    assert_eq!(max(def(&r, 7, "a")), Some(vec![Some(10), Some(5)]));
}

#[test]
fn an_and_bounds_both_operands_where_it_held_and_neither_where_it_did_not() {
    let src = "function f(x, y)\n\
               n = numel(x);\n\
               m = numel(y);\n\
               if n <= 10 && m <= 5\n\
                 a = zeros(n, m);\n\
               else\n\
                 b = zeros(n, m);\n\
               end\n\
               c = zeros(n, m);\n";
    let r = run(src);
    assert_eq!(max(def(&r, 5, "a")), Some(vec![Some(10), Some(5)]));
    // `n > 10 || m > 5`: either may be small, so neither is bounded.
    assert_eq!(max(def(&r, 7, "b")), None);
    assert_eq!(max(def(&r, 9, "c")), None);
}

#[test]
fn an_or_that_held_bounds_neither_operand() {
    // The then-branch of `n <= 10 || m <= 5` knows only that one of them holds; the
    // else-branch knows both failed, which bounds neither from above.
    let src = "function f(x, y)\n\
               n = numel(x);\n\
               m = numel(y);\n\
               if n <= 10 || m <= 5\n\
                 a = zeros(n, m);\n\
               else\n\
                 b = zeros(n, m);\n\
               end\n";
    let r = run(src);
    assert_eq!(max(def(&r, 5, "a")), None);
    assert_eq!(max(def(&r, 7, "b")), None);
    // Its negation does bound both: `~(n > 10 || m > 5)`.
    let src = "function f(x, y)\n\
               n = numel(x);\n\
               m = numel(y);\n\
               if ~(n > 10 || m > 5)\n\
                 a = zeros(n, m);\n\
               end\n";
    assert_eq!(max(def(&run(src), 5, "a")), Some(vec![Some(10), Some(5)]));
}

#[test]
fn an_asserted_and_bounds_both_operands() {
    let src = "function f(x, y, z)\n\
               n = numel(x);\n\
               m = numel(y);\n\
               k = numel(z);\n\
               assert(n <= 10 && m <= 5 && k < 3);\n\
               a = zeros(n, m, k);\n\
               assert(n <= 4 & m <= 2);\n\
               b = zeros(n, m);\n";
    let r = run(src);
    assert_eq!(max(def(&r, 6, "a")), Some(vec![Some(10), Some(5), Some(2)]));
    assert_eq!(max(def(&r, 8, "b")), Some(vec![Some(4), Some(2)]));
}

#[test]
fn a_condition_reassigned_in_a_branch_teaches_nothing_of_the_merge() {
    // After the merge `t` is `n > 10` on one path and `m > 5` on the other, but the
    // if's condition was neither: no guard may pair them with it.
    let src = "function f(x, y, c)\n\
               n = numel(x);\n\
               m = numel(y);\n\
               t = c > 0;\n\
               if t\n\
                 t = n > 10;\n\
               else\n\
                 t = m > 5;\n\
               end\n\
               if t, error('no'); end\n\
               a = zeros(n, m);\n";
    assert_eq!(max(def(&run(src), 11, "a")), None);
}

#[test]
fn a_merge_of_two_bounded_extents_is_bounded_by_the_larger() {
    let src = "function f(c, x)\n\
               if c\n\
                 a = zeros(1, 3);\n\
               else\n\
                 a = zeros(1, 5);\n\
               end\n\
               b = a;\n\
               n = numel(x);\n\
               if c\n\
                 assert(n <= 4);\n\
                 d = zeros(n, 2);\n\
               else\n\
                 d = ones(6, 2);\n\
               end\n\
               e = d;\n\
               if c\n\
                 g = zeros(n, 1);\n\
               else\n\
                 g = zeros(2, 1);\n\
               end\n\
               h = g;\n";
    let r = run(src);
    assert_eq!(max(def(&r, 7, "b")), Some(vec![Some(1), Some(5)]));
    assert_eq!(def(&r, 7, "b").display, "<1,:5>");
    assert_eq!(max(def(&r, 15, "e")), Some(vec![Some(6), Some(2)]));
    // n is bounded on one path only.
    assert_eq!(max(def(&r, 21, "h")), None);
}

#[test]
fn min_of_an_unnamed_count_is_bounded() {
    let src = "function f(x, y)\n\
               k = min(numel(y), 7);\n\
               z = zeros(1, k);\n\
               w = zeros(max(numel(x), 2), min(3, numel(y)));\n\
               v = zeros(1, max(numel(x), 2));\n";
    let r = run(src);
    assert_eq!(max(def(&r, 3, "z")), Some(vec![Some(1), Some(7)]));
    assert_eq!(max(def(&r, 4, "w")), Some(vec![None, Some(3)]));
    assert_eq!(max(def(&r, 5, "v")), None);
}

#[test]
fn merges_in_a_loop_bound_what_every_iteration_bounds_and_nothing_else() {
    // A counted loop is simulated: each iteration's merge is at most 2 more.
    let src = "function f(c)\n\
               x = [];\n\
               for i = 1:3\n\
                 if c(i) > 0\n\
                   x = [x 1];\n\
                 else\n\
                   x = [x 1 2];\n\
                 end\n\
               end\n\
               y = x;\n\
               z = [];\n\
               while numel(z) < numel(c)\n\
                 if c(1) > 0\n\
                   z = [z 1];\n\
                 else\n\
                   z = [z 1 2];\n\
                 end\n\
               end\n\
               w = z;\n";
    let r = run(src);
    assert_eq!(max(def(&r, 10, "y")), Some(vec![Some(1), Some(6)]));
    assert_eq!(max(def(&r, 19, "w")), None);
}

#[test]
fn min_and_max_of_an_integer_class_are_not_followed() {
    // `max(int8(…), 300)` saturates: it is 127, not at least 300.
    let src = "function f(x)\n\
               m = max(int8(numel(x)), 300);\n\
               a = zeros(1, m);\n\
               k = min(int8(numel(x)), 7);\n\
               b = zeros(1, k);\n";
    let r = run(src);
    assert_eq!(def(&r, 3, "a").display, "<1,max(m,0)>");
    assert_eq!(max(def(&r, 5, "b")), None);
}

#[test]
fn a_flag_set_in_the_branches_of_a_condition_is_that_condition() {
    let src = "function f(x)\n\
               n = numel(x);\n\
               if n > 6\n\
                 big = true;\n\
               else\n\
                 big = false;\n\
               end\n\
               if big, error('too many'); end\n\
               a = zeros(1, n);\n";
    assert_eq!(max(def(&run(src), 9, "a")), Some(vec![Some(1), Some(6)]));
}
