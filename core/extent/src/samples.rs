//! Deterministic generated Language T procedures of any size, for tests and
//! benchmarks of the solvers (issue #20 item 4 measures both on 1,000 to 100,000
//! vertices). Never used by the analysis.

/// A flat procedure of `calls` statements cycling through calls, ifs and small loops
/// over five arrays: about 3.3 vertices per statement.
pub fn flat(calls: usize) -> String {
    let mut body = String::new();
    for i in 0..calls {
        let stmt = match i % 7 {
            0 => "copy(x, a)".to_string(),
            1 => "vector_add(y, x, a)".to_string(),
            2 => "if (c) { fresh(x) } else { copy(x, y) }".to_string(),
            3 => "while (c) { copy(y, x); tr(M, M) }".to_string(),
            4 => "copy2(Q, M)".to_string(),
            5 => "zeros_like(z, y)".to_string(),
            _ => "if (c) { copy(z, x) }".to_string(),
        };
        body.push_str(&stmt);
        body.push_str(";\n");
    }
    format!("proc big(in c, in a[N], in M[N,N], out z[N]) {{\n{body}}}")
}

/// `blocks` loops, each holding an if with a nested loop, over ten arrays (about 34
/// vertices per block): classes split in cascades, each loop head waiting on its
/// body's classes.
pub fn nested(blocks: usize) -> String {
    let vars = ["a", "b", "d", "e", "f", "g", "h", "k", "l", "o"];
    let mut body = String::new();
    for i in 0..blocks {
        let v = |j: usize| vars[(i * 7 + j * 3) % vars.len()];
        body.push_str(&format!(
            "while (c) {{ if (c) {{ copy({}, {}); while (c) {{ vector_add({}, {}, {}) }} }} else {{ fresh({}) }}; zeros_like({}, {}) }};\n",
            v(0), v(1), v(2), v(0), v(3), v(4), v(5), v(2)
        ));
    }
    let formals: Vec<String> = vars.iter().map(|v| format!("in out {v}[N]")).collect();
    format!("proc nested(in c, {}) {{\n{body}}}", formals.join(", "))
}
