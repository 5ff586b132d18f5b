//! Analysis time (parse → Tame IR → value analysis → Report) for generated programs of
//! 100, 1,000 and 10,000 lines, and re-analysis in a `Session` after a one-statement
//! edit in the middle of a realistic script of 1,000 and 10,000 lines (the bodies of
//! Octave's function files as one script, `shapex_tests::corpus::octave_script`).
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
            b.iter(|| analyzer.analyze(p, &Options::default()))
        });
    }
    group.finish();
}

/// `script` with one statement inserted at the start of its middle line.
fn edited(script: &str) -> String {
    let middle = script.lines().count() / 2;
    let at: usize = script.lines().take(middle).map(|l| l.len() + 1).sum();
    format!("{}edit_here = 1;\n{}", &script[..at], &script[at..])
}

fn script_edit(c: &mut Criterion) {
    let mut group = c.benchmark_group("script");
    group.sample_size(10);
    let analyzer = Analyzer::new();
    let options = Options::default();
    for lines in [1_000, 10_000] {
        let Some(script) = corpus::octave_script(lines) else {
            eprintln!("no Octave m-files: skipping the script benchmarks");
            return;
        };
        group.bench_with_input(BenchmarkId::new("full", lines), &script, |b, s| {
            b.iter(|| analyzer.analyze(s, &options))
        });
        // Alternating between the two texts, each run re-analyses after one edit.
        let texts = [script.clone(), edited(&script)];
        let mut session = Session::default();
        analyzer.analyze_in(&mut session, &texts[0], &options);
        let mut k = 0;
        group.bench_function(BenchmarkId::new("one-statement edit", lines), |b| {
            b.iter(|| {
                k += 1;
                analyzer.analyze_in(&mut session, &texts[k % 2], &options)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, analysis, script_edit);
criterion_main!(benches);
