//! Analysis time (parse → Tame IR → value analysis → Report) for generated programs of
//! 100, 1,000 and 10,000 lines, and re-analysis in a `Session` after one edit (a space
//! typed, or a statement inserted) in the middle of a realistic script of 1,000 and
//! 10,000 lines (the bodies of Octave's function files as one script,
//! `shapex_tests::corpus::octave_script`).
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

criterion_group!(benches, analysis, script_edit, call_chain);
criterion_main!(benches);
