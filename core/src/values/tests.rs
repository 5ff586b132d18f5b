//! Issue #7, item 5: huge numbers in size, dimension and count positions. Every rule
//! that builds extents from a number (a rank, a dimension index, a list of extents, a
//! trip count, an element count) caps it: the analysis finishes at once, never claims
//! an error MATLAB would not raise, and says when it gave up (`shape.capped`).

use crate::report::{Options, Report, Severity};

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
