//! Parse throughput over the Octave m-file corpus (`/usr/share/octave/*/m`), in bytes
//! per second. Skips with a message when Octave is not installed (fails under `CI`).
//!
//! Run: `cargo bench -p shapex-tests --bench parse`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use shapex_matlab_syntax::parse;
use shapex_tests::corpus;
use shapex_tests::require::{require, Tool};

fn corpus() -> Vec<String> {
    corpus::octave_m_files()
        .iter()
        .map(|p| corpus::read_lossy(p))
        .collect()
}

fn bench_parse(c: &mut Criterion) {
    if require(Tool::OctaveMFiles).is_none() {
        return;
    }
    let files = corpus();
    let bytes: usize = files.iter().map(String::len).sum();
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);
    group.bench_function("octave_corpus", |b| {
        b.iter(|| {
            for f in &files {
                std::hint::black_box(parse(f));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench_parse);
criterion_main!(benches);
