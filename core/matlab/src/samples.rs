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

/// A data file: `A = [...]` holding a table of `elements` numbers (rows of 100, some
/// negative, four decimals, as a file of measurements is written), then `s = size(A)`.
pub fn number_table(elements: usize) -> String {
    let cols = 100.min(elements.max(1));
    let rows = elements.div_ceil(cols);
    let mut out = String::with_capacity(elements * 8 + 32);
    out.push_str("A = [\n");
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..rows {
        for c in 0..cols {
            // A linear congruential generator: deterministic, no dependency.
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let v = (x >> 33) % 20_000;
            let sign = if v.is_multiple_of(7) { "-" } else { "" };
            let sep = if c + 1 == cols { "\n" } else { " " };
            out.push_str(&format!("{sign}{}.{:04}{sep}", v / 10_000, v % 10_000));
        }
    }
    out.push_str("];\ns = size(A)\n");
    out
}

/// A font table: `function g = glyph(ch)` whose `switch` has `cases` cases, each
/// assigning a 7×5 bitmap literal.
pub fn font_table(cases: usize) -> String {
    let mut out = String::from("function g = glyph(ch)\nswitch ch\n");
    for k in 0..cases {
        let rows: Vec<String> = (0..7)
            .map(|r| {
                (0..5)
                    .map(|c| ((k * 31 + r * 7 + c * 3) % 5 % 2).to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        out.push_str(&format!("  case {k}\n    g = [{}];\n", rows.join(";")));
    }
    out.push_str("  otherwise\n    g = zeros(7, 5);\nend\nend\n");
    out
}

/// A function file of `n` functions in a chain (`main` → `f1` → … → `fn`), each also
/// calling two of five shared helpers, one with its argument and one with its
/// transpose: the whole-program analysis's benchmark (issue #22 item 10). Every call
/// is analysed in its context (down to the depth `values` allows), and an edit in a
/// helper re-analyses every function above it.
pub fn call_chain(n: usize) -> String {
    let mut out = String::from(
        "function main()
  x = zeros(3, 4);
  y = f1(x);
  z = y' * x;
end
",
    );
    for k in 1..=n {
        let next = if k < n {
            format!(
                "  y = f{}(y);
",
                k + 1
            )
        } else {
            String::new()
        };
        out.push_str(&format!(
            "function y = f{k}(x)
  a = h{}(x);
  b = h{}(x');
  y = a + b' * {k};
{next}end
",
            k % 5 + 1,
            (k + 2) % 5 + 1
        ));
    }
    for (k, body) in [
        "y = x * 2;",
        "y = x(1:size(x, 1), :);",
        "y = x - mean(x(:));",
        "y = x .* x;",
        "y = repmat(x, 1, 1);",
    ]
    .iter()
    .enumerate()
    {
        out.push_str(&format!(
            "function y = h{}(x)
  {body}
end
",
            k + 1
        ));
    }
    out
}

/// The fuzzer's slow loop: a thousand iterations of an element-wise product of inputs
/// of unknown size.
pub const SYMBOLIC_LOOP: &str = "function c = f(a, b)\nfor k = 1:1000\n  c = a.*b;\nend\nend\n";

/// A 100-term Fourier sum over an input `x` of unknown size.
pub const FOURIER_SUM: &str = "function s = f(x, c, l)\ns = 0;\nfor i = 1:100\n  \
                               s = s + c(i)*cos(i*pi*x/l);\nend\nend\n";
