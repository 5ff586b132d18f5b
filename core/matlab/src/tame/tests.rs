//! Lowering tests from source text: IR shape spot checks, print → re-parse without
//! syntax errors, and (when `octave-cli` is installed) original vs printed IR run in
//! Octave with identical output.

use super::*;
use shapex_matlab_syntax::parse;

fn lowered(src: &str) -> Lowered {
    let parsed = parse(src);
    assert!(
        parsed.diagnostics.is_empty(),
        "source does not parse: {:?}",
        parsed.diagnostics
    );
    lower(&parsed.file)
}

fn printed(src: &str) -> String {
    lowered(src).program.to_string()
}

fn reparses(src: &str) {
    let text = printed(src);
    let again = parse(&text);
    assert!(
        again.diagnostics.is_empty(),
        "printed IR does not parse:\n{text}\n{:?}",
        again.diagnostics
    );
}

const PROGRAMS: &[&str] = &[
    "x = a + b * c';\n",
    "A = [1 2; 3 4];\nB = A(end, 2:end);\nC = A(end);\n",
    "if x > 1 && y < 2\n  z = 1;\nelseif x == 0 || y\n  z = 2;\nelse\n  z = 3;\nend\n",
    "switch s\n  case 'a'\n    r = 1;\n  case {2, 3}\n    r = 2;\n  otherwise\n    r = 0;\nend\n",
    "k = 0;\nwhile k < 10\n  k = k + 1;\n  if k == 3\n    continue;\n  end\nend\n",
    "for i = 1:2:n\n  s(i) = i^2;\nend\nfor c = M\n  disp(c);\nend\n",
    "f = @(t) D*t + c;\ng = @sin;\ny = f(3);\n",
    "s.a.b(2) = 5;\nc{3} = s.('a');\n[m, ~] = max(v);\n",
    "x = {1, 'two'; [3 4], {}};\ny = [];\nz = -x{1}.';\n",
    "global G\npersistent P\ntry\n  error('boom');\ncatch err\n  disp(err.message);\nend\n",
    "function [y, z] = f(a, ~)\n  y = a(end) + numel(a);\n  z = g(y);\nend\nfunction r = g(q)\n  r = q * 2;\nend\n",
];

#[test]
fn printed_ir_reparses_without_syntax_errors() {
    for p in PROGRAMS {
        reparses(p);
    }
}

#[test]
fn a_nested_function_named_like_its_parent_prints_once() {
    // Found by scripts/fuzz: the printer nested every function whose parent has the
    // name of the one being printed, so `f` inside `f` recursed until the stack ran out.
    let text =
        printed("function f(x)\n    y = 1;\n    function f(x)\n        z = 2;\n    end\nend\n");
    assert_eq!(text.matches("function f(x)").count(), 2, "{text}");
    assert_eq!(text.matches("z = 2;").count(), 1, "{text}");
    let report = crate::Matlab::new().analyze(
        "function f(x)\n  function f(x)\n    function f(x)\n    end\n  end\nend\n",
        &shapex_report::Options::new("matlab"),
    );
    let Some(shapex_report::Payload::Text(ir)) = report.view("ir") else {
        panic!("MATLAB fills the IR view");
    };
    assert!(ir.text.matches("function f(x)").count() == 3, "{}", ir.text);
}

#[test]
fn operators_become_builtin_calls_in_three_address_form() {
    let text = printed("x = a + b * c';\n");
    assert_eq!(
        text.trim(),
        "mc_t0 = a();\nmc_t1 = b();\nmc_t2 = c();\nmc_t3 = ctranspose(mc_t2);\nmc_t4 = mtimes(mc_t1, mc_t3);\nx = plus(mc_t0, mc_t4);"
    );
}

#[test]
fn variables_are_indexed_and_functions_called() {
    let text = printed("a = 1;\ny = a(2);\nz = f(2);\n");
    assert!(text.contains("y = a(mc_t0);"), "{text}");
    assert!(text.contains("z = f(mc_t1);"), "{text}");
}

#[test]
fn end_lowers_to_size_and_numel() {
    let text = printed("A = 1;\nB = A(end, 2:end);\nC = A(end);\n");
    assert!(text.contains("= size(A, mc_t"), "{text}");
    assert!(text.contains("] = size(A);"), "{text}");
    assert!(text.contains("= numel(A);"), "{text}");
}

#[test]
fn temporaries_avoid_user_names() {
    let l = lowered("mc_t0 = 1;\ny = mc_t0 + 2;\n");
    assert_eq!(l.program.temp_prefix, "mc_tx");
    assert!(l.program.to_string().contains("mc_tx0 = 2;"));
}

#[test]
fn lambdas_are_lifted_with_captured_variables() {
    let l = lowered("D = 2; c = 1;\nf = @(t) D*t + c;\n");
    let lam = l
        .program
        .functions
        .iter()
        .find(|f| f.kind == FunctionKind::Lambda)
        .expect("lifted lambda");
    assert_eq!(lam.params, vec!["D", "c", "t"]);
    assert_eq!(lam.parent.as_deref(), Some("script"));
    let text = l.program.to_string();
    assert!(
        text.contains(&format!("f = @(t) {}(D, c, t);", lam.name)),
        "{text}"
    );
}

#[test]
fn statements_have_dense_ids_and_spans_inside_the_source() {
    let src = PROGRAMS[2];
    let l = lowered(src);
    let stmts = l.program.statements();
    assert_eq!(stmts.len() as u32, l.program.stmt_count);
    for (i, s) in stmts.iter().enumerate() {
        assert_eq!(s.id, StmtId(i as u32));
        assert!(s.span.end <= src.len() && s.span.start <= s.span.end);
        assert!(s.origin.start <= s.span.start && s.span.end <= s.origin.end.max(s.span.end));
    }
}

#[test]
fn wild_features_are_reported() {
    let l = lowered("eval('x = 1');\n");
    assert_eq!(l.diagnostics[0].code, "tame.wild.eval");
    assert!(l.diagnostics[0]
        .message
        .starts_with("not tame: `eval` runs text"));
    // `load` is wild only when it creates variables by itself (issue #22 item 7).
    assert_eq!(
        lowered("load data.mat\n").diagnostics[0].code,
        "tame.wild.load"
    );
    assert!(lowered("S = load('data.mat');\n").diagnostics.is_empty());
}

#[test]
fn feval_of_a_constant_name_is_a_call_of_that_function() {
    let l = lowered("y = feval('zeros', 4, 5);\n");
    assert!(l.diagnostics.is_empty(), "{:?}", l.diagnostics);
    let text = printed("y = feval('zeros', 4, 5);\n");
    assert!(text.contains("zeros(") && !text.contains("feval"), "{text}");
    // A name computed at run time, or a wild one, stays wild.
    for src in [
        "f = 'zeros'; y = feval(f, 4);\n",
        "feval('eval', 'x = 1');\n",
    ] {
        let l = lowered(src);
        assert_eq!(l.diagnostics.len(), 1, "{src}: {:?}", l.diagnostics);
        assert!(l.diagnostics[0].code.starts_with("tame.wild."), "{src}");
    }
}

#[test]
fn while_condition_is_recomputed_before_continue() {
    let text = printed(PROGRAMS[4]);
    // The header `mc_tN = lt(k, …)` appears before the loop, before `continue`, and at
    // the end of the body.
    let header = text
        .lines()
        .find(|l| l.contains("lt(k"))
        .unwrap()
        .trim()
        .to_string();
    assert_eq!(text.matches(&header).count(), 3, "{text}");
}

/// Runs `main` from a function file in Octave; `None` when Octave is not installed.
fn octave(src: &str) -> Option<String> {
    let dir =
        std::env::temp_dir().join(format!("shapex_tame_{}_{}", std::process::id(), src.len()));
    std::fs::create_dir_all(&dir).ok()?;
    std::fs::write(dir.join("main.m"), src).ok()?;
    let out = std::process::Command::new("octave-cli")
        .args(["--no-gui", "-q", "--norc", "--eval", "main"])
        .current_dir(&dir)
        .output()
        .ok()?;
    let _ = std::fs::remove_dir_all(&dir);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    // Octave 7 may print this at exit whatever the program did.
    let noise = "error: ignoring const execution_exception& while preparing to exit";
    Some(
        text.lines()
            .filter(|l| *l != noise)
            .map(|l| format!("{l}\n"))
            .collect(),
    )
}

#[test]
fn octave_runs_original_and_printed_ir_identically() {
    let programs = [
        "function main()\n  a = [1 2 3; 4 5 6];\n  b = a(2, end-1)\n  c = a(end)\n  d = a(:, 2:end)'\n  x = sum(a(a > 2))\n  s.t.v = 4;\n  s.t.v(3) = 7;\n  disp(s.t.v);\n  c = {1, 'hi'; [3 4], {}};\n  disp(size(c));\n  disp(class(c{2, 2}));\nend\n",
        "function main()\n  t = [1 -2 3.5 4e-2 5 6 7 8; -1 2i 3 4 5 6 7 8; 1 2 3 4 5 6 7 8; 1 2 3 4 5 6 7 -8]\n  disp(size(t));\nend\n",
        "function main()\n  k = 0; t = 0;\n  while k < 10\n    k = k + 1;\n    if mod(k, 3) == 0\n      continue;\n    end\n    t = t + k;\n  end\n  t\n  for i = 1:2:7\n    if i > 5 || i == 1\n      fprintf('%d ', i);\n    end\n  end\n  for col = [1 2; 3 4]\n    disp(col');\n  end\n  f = @(x) x * k + t;\n  y = f(2)\n  r = pick('b') + pick(3) + pick('z')\n  [m, ~] = max([3 9 2])\nend\nfunction r = pick(v)\n  switch v\n    case 'b'\n      r = 10;\n    case {2, 3}\n      r = 100;\n    otherwise\n      r = 1000;\n  end\nend\n",
    ];
    for src in programs {
        let Some(expected) = octave(src) else {
            eprintln!("octave-cli not available; skipping");
            return;
        };
        let ir = printed(src);
        let actual = octave(&ir).unwrap_or_default();
        assert!(!expected.contains("error"), "original fails: {expected}");
        assert_eq!(actual, expected, "printed IR:\n{ir}");
    }
}

#[test]
fn a_table_of_numbers_is_one_statement() {
    // Issue #19: a data table is one literal statement, printed back as a literal;
    // below `NUMBER_TABLE_MIN` elements a literal is still the Tamer's calls.
    let row = (1..=8)
        .map(|k| format!("-{k}"))
        .collect::<Vec<_>>()
        .join(" ");
    let table = format!("t = [{row}; {row}; {row}; {row}];\n");
    let body = lowered(&table).program.functions.remove(0).body;
    assert_eq!(body.len(), 1, "{body:?}");
    assert!(
        matches!(&body[0].kind, StmtKind::AssignLiteral { value: Literal::Numbers { rows }, .. }
            if rows.len() == 4 && rows.iter().all(|r| r.len() == 8)),
        "{body:?}"
    );
    assert!(
        printed(&table).starts_with("t = [-1, -2, "),
        "{}",
        printed(&table)
    );
    reparses(&table);
    let small = printed("t = [1 2; 3 4];\n");
    assert!(small.contains("vertcat("), "{small}");
}
