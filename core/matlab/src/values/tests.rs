//! Issue #7, item 5: huge numbers in size, dimension and count positions. Every rule
//! that builds extents from a number (a rank, a dimension index, a list of extents, a
//! trip count, an element count) caps it: the analysis finishes at once, never claims
//! an error MATLAB would not raise, and says when it gave up (`shape.capped`).

use crate::Matlab as Analyzer;
use shapex_report::{CheckStatus, Options, Report, Severity};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The report of `src` with the default options (shared by the other test modules).
pub(super) fn run(src: &str) -> Report {
    Analyzer::new().analyze(src, &Options::new("matlab"))
}

/// The error diagnostics, as `code: message` (shared by the other test modules).
pub(super) fn errors(r: &Report) -> Vec<String> {
    r.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect()
}

/// The display of the last def of `name`.
pub(super) fn shape_of(r: &Report, name: &str) -> String {
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

/// Builtins that take sizes, dimensions or counts.
const FUNCTIONS: &[&str] = &[
    "zeros",
    "ones",
    "rand",
    "randn",
    "randi",
    "eye",
    "cell",
    "true",
    "false",
    "nan",
    "inf",
    "pi",
    "cat",
    "horzcat",
    "vertcat",
    "sum",
    "prod",
    "max",
    "min",
    "size",
    "numel",
    "length",
    "reshape",
    "repmat",
    "cumsum",
    "cumprod",
    "permute",
    "squeeze",
    "ndims",
    "mean",
    "median",
    "std",
    "var",
    "any",
    "all",
    "flip",
    "circshift",
    "kron",
    "linspace",
    "colon",
    "diag",
    "blanks",
    "sparse",
    "sort",
    "find",
    "meshgrid",
];

/// Huge, tiny and non-finite numbers, and extreme exact integers (as expressions).
const NUMBERS: &[&str] = &[
    "1e9",
    "4294967297",
    "999999999999999",
    "-999999999999999",
    "1e15",
    "1e18",
    "-1e18",
    "1e308",
    "-1e308",
    "NaN",
    "Inf",
    "-Inf",
    "0",
    "-1",
    "0.5",
    "(2147483648*2147483648)",
    "(-2*2147483648*2147483648)",
    "(2*2147483648*2147483648*2)",
    "(3037000500*3037000500)",
];

/// Program templates: `F` is the builtin, `N` the number.
const TEMPLATES: &[&str] = &[
    "x = ones(2); y = F(x, N)",
    "x = ones(2); y = F(x, [], N)",
    "x = ones(2); y = F(x, N, N)",
    "x = ones(2); y = F(x, 1, N)",
    "x = ones(2); y = F(x, [N 1])",
    "x = ones(2); y = F(x, [1 2 N])",
    "x = ones(2); y = F(x, ones(1, N))",
    "x = ones(2); y = F(N, x, x)",
    "x = ones(2); [a, b, c] = F(x, N)",
    "y = F(N)",
    "y = F(N, N)",
    "y = F(1, N)",
    "y = F(N, 1, 2)",
    "y = F(1, 2, N)",
    "y = F([1 N])",
    "y = F(ones(1, N))",
    "y = F(zeros(N, 0))",
    "n = N; y = F(n); z = y + 1; w = [y; y]",
];

/// Programs around huge numbers that are not calls: ranges, loops, subscripts.
const STATEMENTS: &[&str] = &[
    "y = 1:N",
    "y = N:1",
    "y = -N:N",
    "y = 1:N:2",
    "y = N:-1:0",
    "for i = -N:N, end",
    "for i = N:-1:-N, y = i; end",
    "for i = 1:N, x(i) = i; end",
    "for c = zeros(1, N, N), end",
    "for c = ones(2, N), end",
    "x = ones(2); x(N) = 1",
    "x = ones(2); x(N, N) = 1",
    "x = ones(2); x(1, 1, N) = 1",
    "x = ones(2); y = x(N)",
    "x = ones(2); y = x(N, 1)",
    "x = ones(2); y = x(1:N)",
    "x = ones(2); x(N) = []",
    "x = ones(2); x(:, N) = []",
    "x = []; x(N) = 5; y = numel(x)",
    "x = ones(1, N); y = x(end)",
    "x = ones(1, N); y = x(end+1:end+N)",
    "x = ones(N, N); y = x * x'",
    "x = ones(N, N); y = x + ones(N, 1)",
    "x = ones(N); while numel(x) > 0, x = x(2:end); end",
    "y = zeros(N, 1, N, 1, N); z = squeeze(y); s = size(z); n = ndims(z)",
    "x = ones(2); y = x(N, :); z = x(:, N); w = x(end - N)",
    "x = []; for i = 1:N, x = [x, i]; end",
    "x = []; for i = N:N+3, x(end+1) = i; end",
    "n = N; x = zeros(1, n); for i = 1:n, x(i) = i; end; y = x(n)",
    "n = N; m = n * n * n; p = m - m; x = zeros(p, n); y = x(:)",
    "n = N; x = ones(n, 1); y = reshape(x, [], n); z = reshape(x, n, [])",
    "n = N; x = ones(2); y = size(x, n); z = ones(y, n); w = z'",
    "n = N; k = floor(n / 2); x = 1:k:n; y = numel(x)",
    "x = ones(2); s = size(x); s(N) = 3; y = zeros(s)",
    "x = ones(2); x(N, N, N) = []",
    "c = cell(1, N); c{N} = 1; d = c(N)",
];

/// How long one program may take before it counts as a hang. Not a speed budget (tests
/// never assert time): a generous bound, so a loaded CI machine running a debug build
/// cannot fail it, while an analysis that does not terminate still fails the test.
const HANG: Duration = Duration::from_secs(120);

/// Analyses every program on a worker thread; fails naming the first one that panics
/// or takes longer than `limit`.
fn analyse_all(programs: Vec<String>, limit: Duration) {
    let (tx, rx) = mpsc::channel::<(usize, Duration)>();
    let list = programs.clone();
    let worker = std::thread::spawn(move || {
        let analyzer = Analyzer::new();
        for (i, p) in list.iter().enumerate() {
            let t0 = Instant::now();
            let r = analyzer.analyze(p, &Options::new("matlab"));
            assert!(
                !r.statements.is_empty() || p.is_empty(),
                "no statements for {p:?}"
            );
            if tx.send((i, t0.elapsed())).is_err() {
                return;
            }
        }
    });
    let mut slowest = (Duration::ZERO, String::new());
    for i in 0..programs.len() {
        match rx.recv_timeout(limit) {
            Ok((j, took)) => {
                assert_eq!(i, j);
                if took > slowest.0 {
                    slowest = (took, programs[j].clone());
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                panic!("analysis took over {limit:?}: {:?}", programs[i])
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let _ = worker.join();
                panic!("analysis panicked: {:?}", programs[i])
            }
        }
    }
    worker.join().expect("worker finished");
    eprintln!(
        "{} programs; slowest {:?}: {:?}",
        programs.len(),
        slowest.0,
        slowest.1
    );
}

#[test]
fn huge_numbers_in_size_and_dim_positions_never_hang_or_panic() {
    let mut programs = Vec::new();
    for n in NUMBERS {
        for f in FUNCTIONS {
            for t in TEMPLATES {
                programs.push(t.replace('F', f).replace('N', n));
            }
        }
        for s in STATEMENTS {
            programs.push(s.replace('N', n));
        }
    }
    analyse_all(programs, HANG);
}

mod random_programs {
    use super::{analyse_all, FUNCTIONS, HANG, NUMBERS};
    use proptest::prelude::*;

    /// One argument: an earlier variable, a huge number, or a size vector built from one.
    fn arg() -> impl Strategy<Value = String> {
        let n = || proptest::sample::select(NUMBERS);
        prop_oneof![
            Just("x".to_string()),
            (0usize..4).prop_map(|k| format!("v{k}")),
            n().prop_map(str::to_string),
            (n(), n()).prop_map(|(a, b)| format!("[{a} {b}]")),
            n().prop_map(|a| format!("ones(1, {a})")),
            Just("[]".to_string()),
        ]
    }

    /// `vK = F(args…)`, or a loop over a range with huge bounds.
    fn statement(k: usize) -> impl Strategy<Value = String> {
        let f = proptest::sample::select(FUNCTIONS);
        let n = || proptest::sample::select(NUMBERS);
        prop_oneof![
            4 => (f, proptest::collection::vec(arg(), 0..4))
                .prop_map(move |(f, args)| format!("v{k} = {f}({})", args.join(", "))),
            1 => (n(), n()).prop_map(move |(a, b)| format!("for i = {a}:{b}, v{k} = i; end")),
            1 => arg().prop_map(move |a| format!("for c = {a}, v{k} = c; end")),
            1 => (arg(), arg()).prop_map(move |(a, b)| format!("v{k} = x; v{k}({a}) = {b}")),
        ]
    }

    fn program() -> impl Strategy<Value = String> {
        (statement(0), statement(1), statement(2), statement(3)).prop_map(|(a, b, c, d)| {
            format!("x = ones(2, 3);\nv0 = 1; v1 = 2; v2 = 3; v3 = 4;\n{a}\n{b}\n{c}\n{d}\n")
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Statements built from huge numbers feed each other: whatever one gives
        /// (capped, unknown, opaque), the next analyses it without panicking or hanging.
        #[test]
        fn chains_of_huge_sizes_never_hang_or_panic(
            programs in proptest::collection::vec(program(), 8)
        ) {
            analyse_all(programs, HANG);
        }
    }
}

#[test]
fn counted_loops_over_symbolic_products_finish_quickly() {
    // Found by scripts/fuzz (a 15 s timeout in release): every simulated iteration
    // adds facts about its own fresh extents, and each question recomputed the atom
    // bounds of every `≥ 0` fact for every atom. 1,000 iterations took 100 s in a
    // debug build; the bounds are now computed once per state of the facts.
    let programs = vec![
        "for k=1:10for i=1:5a=rand(n)\nb=rand(x,y)\na*b".to_string(),
        "for k = 1:10\n for i = 1:5\n  a = rand(n);\n  b = rand(x, y);\n  a*b;\n end\nend\n"
            .to_string(),
        "for k = 1:200\n  a = rand(n);\n  b = rand(x, y);\n  c = a*b;\nend\n".to_string(),
    ];
    analyse_all(programs, HANG);
}

#[test]
fn known_elements_stop_doubling_at_the_cap() {
    // `s = [s s]` doubled the known elements every iteration: 19 iterations took
    // 300 MB, 30 would take a billion extents. Past MAX_ELEMS they are forgotten; the
    // shape stays exact.
    let r = run("s = 1;\nfor i = 1:40\n  s = [s s];\nend\nt = s;\n");
    assert_eq!(errors(&r), Vec::<String>::new());
    assert_eq!(shape_of(&r, "t"), "<1,1099511627776>");
    let r = run("s = [1 2 3];\nfor i = 1:3\n  s = [s s];\nend\nt = s;\n");
    assert_eq!(shape_of(&r, "t"), "<1,24>");
    let r = run("s = 1:3;\nt = [s, 4];\nfor i = t\n  u = zeros(i);\nend\n");
    assert_eq!(errors(&r), Vec::<String>::new());
}

#[test]
fn long_known_size_vectors_are_capped_too() {
    // Known elements (at most MAX_ELEMS) are no number, but a rank of a thousand
    // makes every later rule a thousand times dearer: the same cap applies.
    let doubled = "s = [2 2];\nfor i = 1:9\n  s = [s s];\nend\n";
    for tail in [
        "x = zeros(s);",
        "x = ones(2); x = repmat(x, s);",
        "x = ones(2); x = reshape(x, s);",
        "x = ones(2); x = permute(x, s);",
    ] {
        let r = run(&format!("{doubled}{tail}\ny = x + x;\n"));
        assert_eq!(errors(&r), Vec::<String>::new(), "{tail}");
        assert_eq!(shape_of(&r, "x"), "?", "{tail}");
        assert!(capped(&r), "{tail}: {:?}", r.diagnostics);
    }
    let r = run("s = [2 2 2];\nx = zeros(s);\n");
    assert_eq!(shape_of(&r, "x"), "<2,2,2>");
}

/// Loop notes (Joisha §9) name what the loop study learned; a variable the loop leaves
/// unknown is left out, and a note with nothing left is not made.
#[test]
fn loop_notes_leave_out_what_stays_unknown() {
    let notes = |src: &str| -> Vec<String> {
        run(src)
            .diagnostics
            .iter()
            .filter(|d| d.code == "shape.loop")
            .map(|d| d.message.clone())
            .collect()
    };
    let known = notes("a = zeros(2, 3);\nfor i = 1:4\n  a = a + 1;\n  u = load('f');\nend\n");
    assert_eq!(known.len(), 1, "{known:?}");
    assert!(known[0].contains("a keeps <2,3>"), "{known:?}");
    assert!(!known[0].contains('?'), "{known:?}");
    let unknown = notes("for i = 1:4\n  u = load('f');\nend\n");
    assert!(unknown.is_empty(), "{unknown:?}");
}

/// Every symbol a statement shows says what it stands for, in a student's words, and
/// where it becomes known, so a hover can explain `a~j1` or `x_1` (and moving the
/// function keeps the lines right: see the incremental tests).
#[test]
fn shown_symbols_say_what_they_stand_for() {
    let src = "function y = f(x, c)\n  n = size(x, 1);\n  if c\n    a = ones(2, n);\n  else\n    a = ones(4, n);\n  end\n  k = numel(find(x));\n  y = [a; zeros(k, n)] * x;\nend\n";
    let r = run(src);
    let on_line = |line: u32| -> Vec<(String, String, String)> {
        r.statements
            .iter()
            .filter(|s| s.range.line == line)
            .flat_map(|s| {
                s.symbols
                    .iter()
                    .map(|n| (n.name.clone(), n.alias.clone(), n.meaning.clone()))
            })
            .collect()
    };
    assert_eq!(
        on_line(4),
        [(
            "x_1".to_string(),
            "x_1".to_string(),
            "rows of the input x".to_string()
        )]
    );
    let last = on_line(9);
    let note = |name: &str| {
        last.iter()
            .find(|(n, ..)| n == name)
            .map(|(_, a, m)| format!("{a} = {m}"))
    };
    assert_eq!(
        note("a~j1").as_deref(),
        Some("?₁ = rows of a, known when line 3 runs (paths that give it different sizes meet there)"),
        "{last:?}"
    );
    assert_eq!(
        note("k").as_deref(),
        Some("k = the value of k, known when line 8 runs"),
        "{last:?}"
    );
    assert_eq!(
        note("x_2").as_deref(),
        Some("x_2 = columns of the input x"),
        "{last:?}"
    );
}

/// What the analysis minted reads by a short alias, the same in every statement and
/// face of the report, numbered in order of first appearance; the exact names stay in
/// the report's data (the CLI's JSON). Example 3's open cases and a second value of `n`.
#[test]
fn minted_symbols_read_by_one_alias_everywhere() {
    let src = "m = round(4*rand+1);\nn = round(5*rand+1);\nx = round(5*rand+1);\n\
               y = round(6*rand+1);\na = rand(m, n);\nb = rand(x, y);\nc = a*b;\nd = c+a;\n\
               e = d-a;\nn = numel(find(a));\nz = [zeros(1, n); c];\n";
    let r = run(src);
    let mut aliases: Vec<(String, String)> = Vec::new();
    for note in r.statements.iter().flat_map(|s| &s.symbols) {
        match aliases.iter().find(|(n, _)| *n == note.name) {
            Some((_, a)) => assert_eq!(*a, note.alias, "{} has two aliases", note.name),
            None => aliases.push((note.name.clone(), note.alias.clone())),
        }
    }
    for (name, alias) in &aliases {
        let minted = name.contains(['~', '#', '@']);
        assert_eq!(minted, alias != name, "{name} reads {alias}");
        if minted {
            assert!(
                alias.starts_with('?') || alias.contains(['₂', '₃']),
                "{name}: {alias}"
            );
        }
    }
    assert!(aliases.iter().any(|(_, a)| a == "?₁"), "{aliases:?}");
    assert!(
        aliases.iter().any(|(n, a)| n == "n#2" && a == "n₂"),
        "{aliases:?}"
    );
    // Every face: the defs keep the exact names, the readers' forms show aliases only.
    let shapes = match r.view("shapes") {
        Some(shapex_report::Payload::Table(t)) => t.clone(),
        other => panic!("{other:?}"),
    };
    for s in r.statements.iter().filter(|s| !s.defs.is_empty()) {
        for d in &s.defs {
            for notation in [
                shapex_report::Notation::Paper,
                shapex_report::Notation::Times,
            ] {
                let shown = d.shown(s, notation);
                assert!(!shown.contains(['~', '#', '@']), "{shown}");
                let title = d.title(&shown, s);
                assert!(!title.contains(['~', '#', '@']), "{title}");
            }
        }
    }
    let table = format!("{:?}", shapes.rows);
    assert!(!table.contains(['~', '#', '@']), "{table}");
    assert!(
        r.statements
            .iter()
            .flat_map(|s| &s.defs)
            .any(|d| d.display.contains('~')),
        "the defs keep the exact names"
    );
    let checks = match r.view("checks") {
        Some(shapex_report::Payload::AnnotatedSource(a)) => a.render(src),
        other => panic!("{other:?}"),
    };
    assert!(!checks.contains(['~', '#', '@']), "{checks}");
    assert!(
        checks.contains("%   ?₁ = rows of c, known when line 7 runs"),
        "{checks}"
    );
}

/// A statement whose rules are all proven outright shows its condition once (it read
/// `true ∧ true` for `[a; b] * x`).
#[test]
fn a_condition_is_shown_once() {
    let r = run("a = ones(2, 3);\nb = zeros(4, 3);\ny = [a; b] * ones(3, 1);\n");
    let line3 = r.statements.iter().find(|s| s.range.line == 3);
    assert_eq!(line3.and_then(|s| s.condition.as_deref()), Some("true"));
}

/// A rule's placeholders never reach a condition: `cat` of three operands checks
/// the third against `[a b]`, an intermediate whose open extents are named as
/// symbols of the statement (it showed `⟂case…` before).
#[test]
fn a_condition_never_shows_a_placeholder() {
    let r = run("function ba = f(a, b, c)\nba = cat(2, a, b, c);\nend\n");
    let line2 = r.statements.iter().find(|s| s.range.line == 2);
    let condition = line2.and_then(|s| s.condition.clone()).unwrap_or_default();
    assert!(condition.contains("c_1"), "{condition}");
    assert!(
        !condition.contains(crate::shape::PLACEHOLDER),
        "{condition}"
    );
}

/// The class of the last def of `name` in `src`'s report.
fn class_of(src: &str, name: &str) -> Option<String> {
    run(src)
        .statements
        .iter()
        .flat_map(|s| &s.defs)
        .rfind(|d| d.name == name)
        .and_then(|d| d.class.clone())
}

/// Issue #19, corpus sample 7: a loop variable has its range's class (a single bound
/// makes it single, so `[1:j]'` is no double); char bounds make a char range.
#[test]
fn a_loop_variable_takes_its_ranges_class() {
    let single = "function f(k)\nfor j = 1:single(k)\n  w = j;\nend\nend\n";
    assert_eq!(class_of(single, "w").as_deref(), Some("single"));
    let plain = "for j = 1:3\n  w = j;\nend\n";
    assert_eq!(class_of(plain, "w").as_deref(), Some("double"));
    let chars = "for c = 'a':'e'\n  w = c;\nend\n";
    assert_eq!(class_of(chars, "w").as_deref(), Some("char"));
    let unknown = "function f(a, k)\nfor j = a:k\n  w = j;\nend\nend\n";
    assert_eq!(class_of(unknown, "w"), None);
}

/// Issue #19, corpus sample 8: a creation function's last argument of unknown class
/// may name a class (`rand(2, n)` with n = 'single' is single), so the class is
/// unknown; a known scalar is a size, and the class stays double.
#[test]
fn a_last_argument_of_unknown_class_may_name_the_class() {
    let named = "function f(n)\ny = rand(2, n);\nend\n";
    assert_eq!(class_of(named, "y"), None);
    let sized = "function f(n)\nm = numel(n);\ny = rand(2, m);\nend\n";
    assert_eq!(class_of(sized, "y").as_deref(), Some("double"));
}

/// A script runs in its caller's workspace, which may hold a struct already: a field
/// it assigns to a variable it never assigned does not make the struct's fields
/// known (`isfield(s, 'b')` may be true), while a function's own new struct has only
/// the fields it was given.
#[test]
fn a_script_does_not_know_every_field_of_a_struct_it_did_not_make() {
    let body = "s.a = 1;\nif isfield(s, 'b')\n  x = 1;\nelse\n  x = 'ab';\nend\ny = x;\n";
    let script = run(body);
    // 1 or 2 columns: a symbol of the merge, at most 2.
    assert_eq!(shape_of(&script, "y"), "<1,:2>");
    let function = run(&format!("function y = f()\n{body}end\n"));
    assert_eq!(shape_of(&function, "y"), "<1,2>");
}

/// Issue #22 item 3: the classes of mixed operations are MATLAB's. The fixture
/// `interproc/integer-classes.m` states each as `assert(isa(NAME, 'CLASS'))`, which
/// Octave checks (`tests/tests/octave_interproc.rs`); here the analysis must give
/// the same class to the variable's last def.
#[test]
fn mixed_operations_give_the_classes_octave_asserts() {
    let src = include_str!("../../../../tests/fixtures/matlab/interproc/integer-classes.m");
    let report = run(src);
    let mut checked = 0;
    for line in src.lines() {
        let Some(rest) = line.trim().strip_prefix("assert(isa(") else {
            continue;
        };
        let (name, rest) = rest.split_once(',').expect("assert(isa(NAME, 'CLASS'))");
        let class = rest.trim().trim_start_matches('\'');
        let class = &class[..class.find('\'').expect("a quoted class")];
        let def = report
            .statements
            .iter()
            .flat_map(|s| &s.defs)
            .rfind(|d| d.name == name);
        assert_eq!(
            def.and_then(|d| d.class.as_deref()),
            Some(class),
            "class of {name}"
        );
        checked += 1;
    }
    assert!(checked >= 10, "{checked} classes checked");
}

/// Issue #22 item 3: arithmetic on two integer classes, and an integer matrix times
/// a matrix, are definite errors that name the classes; comparisons, concatenation and
/// operands of unknown class are not.
#[test]
fn mixed_integer_classes_are_definite_errors_naming_the_classes() {
    let e = errors(&run("k = int8(1) + int16(2);\n"));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].starts_with("class.mixed: "), "{e:?}");
    assert!(e[0].contains("int8 and int16"), "{e:?}");
    let e = errors(&run("M = int32(ones(2));\ny = M * ones(2, 3);\n"));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].starts_with("class.integer-matrix: "), "{e:?}");
    assert!(e[0].contains("int32 <2,2> and double <2,3>"), "{e:?}");
    for fine in [
        "o = int8(1) == int16(2);\n",
        "x = [int8(1) int16(2)];\n",
        "x = min(int8(1), int16(2));\n",
        "x = int8(1) & int16(2);\n",
        "y = int32(ones(2)) * 2;\n",
        "y = int32(ones(2)) .* ones(2);\n",
        "function f(a)\ny = a + int16(2);\nz = int8(1) + a;\nend\n",
        // A 1×1 matrix may be the scalar the product needs.
        "function f(n)\nM = int32(ones(2));\ny = M * ones(n);\nend\n",
    ] {
        assert_eq!(errors(&run(fine)), Vec::<String>::new(), "{fine}");
    }
    let e = errors(&run("M = int8(ones(2));\ny = M^2;\n"));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].starts_with("class.integer-matrix: "), "{e:?}");
    assert!(e[0].contains("both operands are 1×1"), "{e:?}");
    for fine in [
        "y = int8(2)^2;\n",
        "y = 2^int8(2);\n",
        // Either operand may be 1×1, and one of unknown class may be an object.
        "function f(n)\nk = size(n, 1);\ny = int8(2)^ones(k);\nend\n",
        "function f(x)\ny = x^int8(2);\nend\n",
    ] {
        assert_eq!(errors(&run(fine)), Vec::<String>::new(), "{fine}");
    }
    // In a function called with two integer classes: the call fails, by that code.
    let e = errors(&run(
        "function main()\ny = add(int8(1), uint8(2));\nend\nfunction r = add(a, b)\nr = a + b;\nend\n",
    ));
    assert!(e.iter().any(|m| m.starts_with("class.mixed: ")), "{e:?}");
}

/// Issue #22 item 3: a condition decides its branch only where its value does on
/// every run. NaN and a cell fail the test (no branch runs: both stay open, no
/// claim), an object's class may define its own truth, and a value not known
/// decides nothing; a constant, an empty array or a zero element decide.
#[test]
fn only_a_known_condition_decides_a_branch() {
    let reached = |cond: &str| -> (bool, bool) {
        let src = format!("function f(a, n)\nif {cond}\n  x = 1;\nelse\n  x = 2;\nend\nend\n");
        let r = run(&src);
        let on = |line: u32| {
            r.statements
                .iter()
                .any(|s| s.range.line == line && !s.nonviable)
        };
        (on(3), on(5))
    };
    let open = [
        "NaN",
        "{}",
        "a",
        "n > 2",
        "rand(2) > 0.5",
        "[1 n]",
        "a(1)",
        "strcmp(a, 'x')",
        "isequal(n, 2)",
        "n == 1 || 2 == 3",
    ];
    for open in open {
        assert_eq!(reached(open), (true, true), "if {open}");
    }
    for (cond, taken) in [
        ("true", (true, false)),
        ("false", (false, true)),
        ("~false", (true, false)),
        ("[]", (false, true)),
        ("zeros(0, size(a, 1))", (false, true)),
        ("[1 0 size(a, 1)]", (false, true)),
        ("[1 2 3]", (true, false)),
        ("'ab'", (true, false)),
        ("''", (false, true)),
        ("0.25", (true, false)),
        ("size(a, 1) + 1", (true, false)),
        ("strcmp('ab', 'ab')", (true, false)),
        ("isequal(2, 3) || xor(1, 1)", (false, true)),
    ] {
        assert_eq!(reached(cond), taken, "if {cond}");
    }
}

/// Issue #22 item 3: `max`/`min` of logicals only is a logical in Octave, whatever
/// MATLAB gives: its class is left unknown, never called a double; with a double or
/// an integer operand the class is MATLAB's and Octave's (`max(true, 2)` is a
/// double, `min(true, int8(3))` an int8).
#[test]
fn extremes_of_logicals_have_no_guessed_class() {
    for src in [
        "y = max(true, false);\n",
        "y = min([true false]);\n",
        "y = max([true false], [], 2);\n",
    ] {
        assert_eq!(class_of(src, "y"), None, "{src}");
    }
    assert_eq!(
        class_of("y = max(true, 2);\n", "y").as_deref(),
        Some("double")
    );
    assert_eq!(
        class_of("y = min(true, int8(3));\n", "y").as_deref(),
        Some("int8")
    );
}
