//! Analysis time (parse → Tame IR → value analysis → Report) for generated programs of
//! 100, 1,000 and 10,000 lines. `cargo bench -p shapex-tests --bench analysis`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use shapex::{Analyzer, Options};
use shapex_tests::scale;

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

criterion_group!(benches, analysis);
criterion_main!(benches);
