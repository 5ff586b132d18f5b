//! Issue #7, item 5: huge numbers in size, dimension and count positions. Every rule
//! that builds extents from a number (a rank, a dimension index, a list of extents, a
//! trip count, an element count) caps it: the analysis finishes at once, never claims
//! an error MATLAB would not raise, and says when it gave up (`shape.capped`).

use crate::report::{CheckStatus, Options, Report, Severity};

fn run(src: &str) -> Report {
    crate::analyze(src, &Options::default())
}

fn errors(r: &Report) -> Vec<String> {
    r.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect()
}

/// The display of the last def of `name`.
fn shape_of(r: &Report, name: &str) -> String {
    r.statements
        .iter()
        .flat_map(|s| &s.defs)
        .rfind(|d| d.name == name)
        .map_or_else(|| format!("<no def of {name}>"), |d| d.display.clone())
}

fn capped(r: &Report) -> bool {
    r.diagnostics.iter().any(|d| d.code == "shape.capped")
}

fn checks(r: &Report) -> Vec<CheckStatus> {
    r.statements.iter().map(|s| s.check).collect()
}

#[test]
fn sum_along_a_huge_dimension_is_the_operand() {
    // MATLAB: dimension 1e9 is a singleton of x, so sum(x, 1e9) is x.
    let r = run("x = ones(2); y = sum(x, 1e9)");
    assert_eq!(errors(&r), Vec::<String>::new());
    assert_eq!(shape_of(&r, "y"), "<2,2>");
    // 4294967297 is 1 as a 32-bit usize (wasm32): it must not reduce dimension 1.
    for f in ["prod", "mean", "any", "all", "sum", "median"] {
        let r = run(&format!("x = ones(2, 3); y = {f}(x, 4294967297)"));
        assert_eq!(errors(&r), Vec::<String>::new(), "{f}");
        assert_eq!(shape_of(&r, "y"), "<2,3>", "{f}");
    }
    let r = run("x = ones(2, 3); [m, i] = max(x, [], 4294967297)");
    assert_eq!(errors(&r), Vec::<String>::new());
    assert_eq!(shape_of(&r, "m"), "<2,3>");
}

#[test]
fn cat_along_a_huge_dimension_is_capped() {
    // Valid in MATLAB (a 2×2×1×…×1×2 array), but of rank 1e9: unknown, and said so.
    let r = run("x = ones(2); z = cat(1e9, x, x)");
    assert_eq!(errors(&r), Vec::<String>::new());
    assert_eq!(shape_of(&r, "z"), "?");
    assert!(capped(&r), "{:?}", r.diagnostics);
    assert!(!checks(&r).contains(&CheckStatus::Error));
    assert!(!checks(&r).contains(&CheckStatus::Proven));
    // Within the cap the rule still runs.
    let r = run("x = ones(2); z = cat(5, x, x)");
    assert_eq!(shape_of(&r, "z"), "<2,2,1,1,2>");
    assert!(!capped(&r));
}

#[test]
fn a_size_vector_of_a_billion_extents_is_capped() {
    let r = run("w = zeros(ones(1, 1e9))");
    assert_eq!(errors(&r), Vec::<String>::new());
    assert_eq!(shape_of(&r, "w"), "?");
    assert!(capped(&r), "{:?}", r.diagnostics);
    let r = run("x = ones(2); w = repmat(x, ones(1, 1e9))");
    assert_eq!(errors(&r), Vec::<String>::new());
    assert_eq!(shape_of(&r, "w"), "?");
    assert!(capped(&r));
    // A short size vector of unknown elements is still a list of fresh extents.
    let r = run("w = zeros(ones(1, 3))");
    assert!(!capped(&r));
    assert_eq!(shape_of(&r, "w"), "<w~1,w~2,w~3>");
    let r = run("w = zeros(ones(1, 64))");
    assert!(!capped(&r));
    let r = run("w = zeros(ones(1, 65))");
    assert!(capped(&r));
    assert_eq!(shape_of(&r, "w"), "?");
}

#[test]
fn loop_trip_counts_do_not_overflow() {
    for src in [
        "a = 3e9; b = a*a; for i = -b:b, end",
        "a = 3e9; b = a*a; for i = b:-1:-b, end",
        "a = 2147483648; b = a*a; c = -2*b; for i = c:-c, end",
        "a = 2147483648; b = a*a; c = -2*b; for i = 0:c:5, end",
        "for c = zeros(1, 1e6, 1e7, 1e7), end",
        "for c = zeros(1e6, 1e7, 1e7, 0), end",
    ] {
        let r = run(src);
        assert_eq!(errors(&r), Vec::<String>::new(), "{src}");
    }
    // Trip counts are floor((hi - lo) / step) + 1, not truncated: 1:2:0 is empty (it
    // was counted as one trip, and the loop's exit state was the first iteration's).
    for (range, n) in [
        ("1:2:0", 0),
        ("5:-2:6", 0),
        ("1:3:7", 3),
        ("1:3:8", 3),
        ("7:-3:1", 3),
        ("8:-3:0", 3),
        ("3:3", 1),
        ("4:3", 0),
    ] {
        let src = format!("v = []; for i = {range}, v = [v, i]; end; w = v");
        let want = if n == 0 {
            "<0,0>".to_string()
        } else {
            format!("<1,{n}>")
        };
        assert_eq!(shape_of(&run(&src), "w"), want, "{src}");
    }
}

#[test]
fn extreme_constants_in_dim_arithmetic() {
    // -2^63 is an exact i64 value: negating it, or taking its absolute value, overflows.
    let min = "a = 2147483648; b = a*a; c = -2*b;";
    for tail in [
        "x = 1:c:5",
        "x = 5:c:1",
        "x = diag(ones(1, 3), c)",
        "x = zeros(c)",
        "x = ones(2); y = x(c)",
        "x = ones(2); y = sum(x, c)",
        "x = ones(2); y = size(x, -c)",
        "x = ones(2); x(-c) = 1",
        "x = c:-c",
        "x = -c:c",
    ] {
        let src = format!("{min} {tail}");
        let r = run(&src);
        assert_eq!(errors(&r), Vec::<String>::new(), "{src}");
    }
}
