//! Parse throughput over the Octave m-file corpus (`/usr/share/octave/*/m`), in bytes
//! per second. Skips with a message when Octave is not installed.
//!
//! Run: `cargo bench -p shapex-core --bench parse`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use shapex_core::syntax::matlab::parse;
use std::path::Path;

fn collect(dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "m") {
            if let Ok(bytes) = std::fs::read(&p) {
                out.push(String::from_utf8_lossy(&bytes).into_owned());
            }
        }
    }
}

fn corpus() -> Vec<String> {
    let mut files = vec![];
    if let Ok(versions) = std::fs::read_dir("/usr/share/octave") {
        for v in versions.flatten() {
            collect(&v.path().join("m"), &mut files);
        }
    }
    files
}

fn bench_parse(c: &mut Criterion) {
    let files = corpus();
    if files.is_empty() {
        eprintln!("SKIP: no Octave m-files under /usr/share/octave/*/m");
        return;
    }
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
