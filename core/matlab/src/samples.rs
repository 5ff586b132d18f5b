//! Generated sample programs for benchmarks: blocks of ordinary MATLAB (creation,
//! products, element-wise arithmetic, a branch, a growing loop, a reduction, indexing),
//! each block on fresh variables so a program grows without repeating itself.
//! Deterministic, and pure like the rest of the core, so the native benchmark and the
//! in-browser timing run the very same text.

/// A script of about `lines` lines (whole blocks of 13 lines).
pub fn scaling_program(lines: usize) -> String {
    let mut out = String::with_capacity(lines * 24);
    let mut i = 0;
    while out.lines().count() < lines {
        let (r, c) = (2 + i % 5, 3 + i % 4);
        out.push_str(&format!(
            "a{i} = rand({r}, {c});\n\
             b{i} = ones({c}, {r});\n\
             c{i} = a{i} * b{i};\n\
             if c{i}(1) > 0.5\n\
             \x20   d{i} = c{i} + 1;\n\
             else\n\
             \x20   d{i} = c{i}';\n\
             end\n\
             for k = 1:{c}\n\
             \x20   d{i} = [d{i}; zeros(1, {r})];\n\
             end\n\
             s{i} = sum(d{i}, 1) ./ numel(d{i});\n\
             t{i} = s{i}(end) + a{i}(1, :) * b{i}(:, 1);\n",
        ));
        i += 1;
    }
    out
}
