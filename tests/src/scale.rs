//! Programs of a chosen length for the analysis benchmark (see
//! `shapex::samples`).

pub use shapex::samples::scaling_program as program;

/// A function file of about `lines` lines made of many functions that call each other
/// (issue #22 item 10: a keystroke in a 10,000-line multi-function file): `main` calls
/// `f1`, each `fk` of about 25 lines calls `f(k+1)` and two of five shared helpers, with
/// loops, a branch and matrix products on its argument between the calls. Unlike
/// `shapex::samples::call_chain`, whose functions are three lines, the cost of a
/// keystroke here is that of re-analysing realistic bodies: an edit in `fk` re-analyses
/// `fk` and every function above it in the chain whose call's answer may change.
pub fn call_program(lines: usize) -> String {
    const HEADER: usize = 5;
    const BODY: usize = 26;
    let helpers = [
        "y = x * 2;",
        "y = x(1:size(x, 1), :);",
        "y = x - mean(x(:));",
        "y = x .* x;",
        "y = repmat(x, 1, 1);",
    ];
    let n = (lines.saturating_sub(HEADER + 3 * helpers.len()) / BODY).max(1);
    let mut out =
        String::from("function main()\n  x = zeros(3, 4);\n  y = f1(x);\n  z = y' * x;\nend\n");
    for k in 1..=n {
        let next = if k < n {
            format!("  y = f{}(y);\n", k + 1)
        } else {
            String::from("  y = y + 0;\n")
        };
        out.push_str(&format!(
            "function y = f{k}(x)
  % stage {k}: two helpers, a loop over the entries, a branch, products
  [m, n] = size(x);
  a = h{a}(x);
  b = h{b}(x');
  acc = zeros(m, n);
  for i = 1:m
    for j = 1:n
      acc(i, j) = a(i, j) + b(j, i) * {k};
    end
  end
  if sum(acc(:)) > {k}
    acc = acc - mean(acc(:));
  else
    acc = acc + 1;
  end
  w = acc' * acc;
  v = w(1:n, 1);
  s = norm(v);
  t = linspace(0, 1, n);
  r = t * v;
  q = [acc; zeros(1, n)];
  p = q(1:m, :);
  y = p / (1 + s + abs(r));
{next}end
",
            a = k % 5 + 1,
            b = (k + 2) % 5 + 1,
        ));
    }
    for (k, body) in helpers.iter().enumerate() {
        out.push_str(&format!("function y = h{}(x)\n  {body}\nend\n", k + 1));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn programs_have_the_requested_length_and_analyse_cleanly() {
        let p = super::program(100);
        let n = p.lines().count();
        assert!((100..113).contains(&n), "{n} lines");
        let report = shapex::analyze(&p, &shapex::Options::new("matlab"));
        assert!(report.parse_ok);
        assert_eq!(report.error_count(), 0, "{:?}", report.diagnostics);
    }

    #[test]
    fn call_programs_have_the_requested_length_and_analyse_cleanly() {
        let p = super::call_program(1_000);
        let n = p.lines().count();
        assert!((970..1_030).contains(&n), "{n} lines");
        assert!(p.contains("y = f2(y);") && p.contains("function y = h5(x)"));
        let report = shapex::analyze(&p, &shapex::Options::new("matlab"));
        assert!(report.parse_ok);
        assert_eq!(report.error_count(), 0, "{:?}", report.diagnostics);
    }
}
