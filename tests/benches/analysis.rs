//! Analysis time (parse → Tame IR → value analysis → Report) for generated programs of
//! 100, 1,000 and 10,000 lines, and re-analysis in a `Session` after one edit (a space
//! typed, or a statement inserted) in the middle of a realistic script of 1,000 and
//! 10,000 lines (the bodies of Octave's function files as one script,
//! `shapex_tests::corpus::octave_script`).
//! Whole programs (issue #22 item 10): a call chain of up to 200 functions, the realistic
//! programs of `tests/fixtures/matlab/interproc/`, and a 10,000-line file of functions
//! calling each other, afresh and after an edit.
//! `cargo bench -p shapex-tests --bench analysis`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use shapex::{Analyzer, Options, Session};
use shapex_tests::{corpus, scale};

fn analysis(c: &mut Criterion) {
    let mut group = c.benchmark_group("analyze");
    group.sample_size(10);
    let analyzer = Analyzer::new();
    for lines in [100, 1_000, 10_000] {
        let program = scale::program(lines);
        group.throughput(Throughput::Elements(program.lines().count() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(lines), &program, |b, p| {
            b.iter(|| analyzer.analyze(p, &Options::new("matlab")))
        });
    }
    group.finish();
}

/// `script` edited at its middle line: a space typed at the line's end (`space`), or a
/// new statement inserted before it (which names a new variable, so statements before
/// it that may change any variable are analysed again).
fn edited(script: &str, kind: &str) -> String {
    let middle = script.lines().count() / 2;
    let start: usize = script.lines().take(middle).map(|l| l.len() + 1).sum();
    match kind {
        "space" => {
            let end = start + script.lines().nth(middle).map_or(0, str::len);
            format!("{} {}", &script[..end], &script[end..])
        }
        _ => format!("{}edit_here = 1;\n{}", &script[..start], &script[start..]),
    }
}

fn script_edit(c: &mut Criterion) {
    let mut group = c.benchmark_group("script");
    group.sample_size(10);
    let analyzer = Analyzer::new();
    let options = Options::new("matlab");
    for lines in [1_000, 10_000] {
        let Some(script) = corpus::octave_script(lines) else {
            eprintln!("no Octave m-files: skipping the script benchmarks");
            return;
        };
        group.bench_with_input(BenchmarkId::new("full", lines), &script, |b, s| {
            b.iter(|| analyzer.analyze(s, &options))
        });
        for kind in ["space", "statement"] {
            // Alternating between the two texts, each run re-analyses after one edit.
            let texts = [script.clone(), edited(&script, kind)];
            let mut session = Session::default();
            analyzer.analyze_in(&mut session, &texts[0], &options);
            let mut k = 0;
            group.bench_function(BenchmarkId::new(format!("{kind} edit"), lines), |b| {
                b.iter(|| {
                    k += 1;
                    analyzer.analyze_in(&mut session, &texts[k % 2], &options)
                })
            });
        }
    }
    group.finish();
}

/// Whole-program analysis (issue #22 item 10): `samples::call_chain(n)`, analysed
/// afresh, and re-analysed after an edit in a shared helper (every function above
/// it is analysed again: their calls' answers may have changed) or in `main` (spaces
/// removed inside a statement, which moves what follows it).
fn call_chain(c: &mut Criterion) {
    let mut group = c.benchmark_group("call_chain");
    group.sample_size(10);
    let analyzer = Analyzer::new();
    let options = Options::new("matlab");
    for n in [10, 50, 200] {
        let program = shapex::samples::call_chain(n);
        group.bench_with_input(BenchmarkId::new("full", n), &program, |b, p| {
            b.iter(|| analyzer.analyze(p, &options))
        });
        for (kind, from, to) in [
            ("helper edit", "y = x .* x;", "y = x.*x;"),
            ("main edit", "z = y' * x;", "z = y'*x;"),
        ] {
            let texts = [program.clone(), program.replacen(from, to, 1)];
            let mut session = Session::default();
            analyzer.analyze_in(&mut session, &texts[0], &options);
            let mut k = 0;
            group.bench_function(BenchmarkId::new(kind, n), |b| {
                b.iter(|| {
                    k += 1;
                    analyzer.analyze_in(&mut session, &texts[k % 2], &options)
                })
            });
        }
    }
    group.finish();
}

/// The realistic programs of several functions (issue #22 item 9, each run in Octave by
/// `octave_interproc`), analysed whole: `main` and every local function in the
/// contexts of its calls.
const REALISTIC: [&str; 6] = [
    "adaptive-quadrature",
    "mandelbrot",
    "nbody",
    "tridiagonal",
    "two-layer-net",
    "merge-sort",
];

fn realistic(c: &mut Criterion) {
    let mut group = c.benchmark_group("realistic");
    group.sample_size(10);
    let analyzer = Analyzer::new();
    let options = Options::new("matlab");
    for name in REALISTIC {
        let path = shapex_tests::fixtures_dir()
            .join("matlab/interproc")
            .join(format!("{name}.m"));
        let program =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        group.bench_with_input(BenchmarkId::from_parameter(name), &program, |b, p| {
            b.iter(|| analyzer.analyze(p, &options))
        });
    }
    group.finish();
}

/// A 10,000-line file of functions calling each other (`scale::call_program`): analysed
/// afresh, and re-analysed after a space typed at the end of a line in the middle of the
/// file (in a function halfway down the chain) and near its top (in `f1`, which only
/// `main` calls).
fn call_program(c: &mut Criterion) {
    let mut group = c.benchmark_group("call_program");
    group.sample_size(10);
    let analyzer = Analyzer::new();
    let options = Options::new("matlab");
    let program = scale::call_program(10_000);
    let lines = program.lines().count();
    group.bench_with_input(BenchmarkId::new("full", lines), &program, |b, p| {
        b.iter(|| analyzer.analyze(p, &options))
    });
    for (kind, line) in [("space mid-file", lines / 2), ("space in f1", 8)] {
        let at: usize = program
            .lines()
            .take(line + 1)
            .map(|l| l.len() + 1)
            .sum::<usize>()
            - 1;
        let texts = [
            program.clone(),
            format!("{} {}", &program[..at], &program[at..]),
        ];
        let mut session = Session::default();
        analyzer.analyze_in(&mut session, &texts[0], &options);
        let mut k = 0;
        group.bench_function(BenchmarkId::new(kind, lines), |b| {
            b.iter(|| {
                k += 1;
                analyzer.analyze_in(&mut session, &texts[k % 2], &options)
            })
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    analysis,
    script_edit,
    call_chain,
    realistic,
    call_program
);
criterion_main!(benches);
