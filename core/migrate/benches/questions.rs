//! Migeed et al.'s questions on real models (issue #21 item 9, native side), for
//! AlexNet, ResNet-50 and a BERT-style encoder, each as written and with every number
//! of forward's annotations made `Dyn` (so Q1 has unknowns to solve for):
//!
//! - `analyze/…`: the whole analysis (`Migrate::analyze`: parse, modules, forward's
//!   check, Q1–Q3, the views) with no constraints, and with a constraints setting (Q2);
//! - `q1q2/…/ours`: our solver (`shapex_dims::solve`) on every Q1 and Q2 constraint set
//!   of that analysis (`migration::constraint_sets`), summed;
//! - `q1q2/…/z3`: the `z3` binary on the same sets exported as SMT-LIB2, one process per
//!   set read from stdin, wall time summed (skipped with a note when z3 is missing);
//!   `q1q2/z3-startup` is one z3 process on an empty problem, the start-up each set
//!   pays.
//!
//! `cargo bench -p shapex-migrate --bench questions`.

#[path = "../tests/z3/mod.rs"]
mod z3;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use shapex_dims::{smtlib, solve, Constraint, Solution};
use shapex_migrate::Migrate;
use shapex_report::{Language, Options};

/// (name, source, a constraints setting over forward's parameter `x`).
fn models() -> Vec<(String, String, &'static str)> {
    let fixtures = [
        (
            "alexnet",
            include_str!("../../../tests/fixtures/py/alexnet.py"),
            "x.shape == (b, 3, h, w)\nh <= 300\nw <= 300",
        ),
        (
            "resnet50",
            include_str!("../../../tests/fixtures/py/resnet50.py"),
            "x.shape == (b, 3, h, w)\nh in (224, 256, 320)",
        ),
        (
            "bert",
            include_str!("../../../tests/fixtures/py/bert_encoder.py"),
            "x.shape == (b, s, 768)\ns <= 512",
        ),
    ];
    let mut out = Vec::new();
    for (name, src, constraints) in fixtures {
        out.push((name.to_string(), src.to_string(), constraints));
        out.push((
            format!("{name}-dyn"),
            z3::gradualised(src).unwrap_or_else(|| src.to_string()),
            constraints,
        ));
    }
    out
}

/// Every Q1 and Q2 set of `src` under `constraints`.
fn q1q2_sets(src: &str, constraints: &str) -> Vec<Vec<Constraint>> {
    let parsed = shapex_migrate_syntax::python::parse(src);
    let built = shapex_migrate::modules::build(&parsed.module, None);
    let checked = shapex_migrate::forward::check_model(&built);
    let (user, bad) = shapex_migrate_syntax::user::parse(constraints);
    assert!(bad.is_empty(), "{constraints:?}: {bad:?}");
    shapex_migrate::migration::constraint_sets(
        &shapex_migrate::pytorch::Forward::new(src, &built, &checked),
        &user,
    )
    .into_iter()
    .filter(|(name, _)| name.starts_with("Q1") || name.starts_with("Q2"))
    .map(|(_, cs)| cs)
    .collect()
}

fn analyze(c: &mut Criterion) {
    let mut group = c.benchmark_group("analyze");
    group.sample_size(10);
    let migrate = Migrate::new();
    for (name, src, constraints) in models() {
        let plain = Options::new("py");
        group.bench_with_input(BenchmarkId::new(&name, "none"), &src, |b, s| {
            b.iter(|| migrate.analyze(s, &plain))
        });
        let given = Options::new("py").with("constraints", constraints);
        group.bench_with_input(BenchmarkId::new(&name, "constraints"), &src, |b, s| {
            b.iter(|| migrate.analyze(s, &given))
        });
    }
    group.finish();
}

fn q1q2(c: &mut Criterion) {
    let with_z3 = z3::installed(None);
    let mut group = c.benchmark_group("q1q2");
    group.sample_size(10);
    if with_z3 {
        // The cost of one z3 process on an empty problem: its start-up, which every
        // set's run below pays once.
        group.bench_function("z3-startup", |b| b.iter(|| z3::first_line("(check-sat)\n")));
    }
    for (name, src, constraints) in models() {
        let sets = q1q2_sets(&src, constraints);
        let scripts: Vec<String> = sets
            .iter()
            .filter_map(|cs| smtlib::script(cs).ok())
            .collect();
        let ours: Vec<&str> = sets
            .iter()
            .map(|cs| match solve(cs) {
                Solution::Sat(_) => "sat",
                Solution::Unsat(_) => "unsat",
                Solution::Unknown(_) => "unknown",
            })
            .collect();
        let theirs: Vec<String> = if with_z3 {
            scripts.iter().map(|s| z3::first_line(s)).collect()
        } else {
            Vec::new()
        };
        eprintln!(
            "{name}: {} Q1/Q2 sets, {} constraints in all, {} with an SMT form; ours {ours:?}, z3 {theirs:?}",
            sets.len(),
            sets.iter().map(Vec::len).sum::<usize>(),
            scripts.len()
        );
        group.bench_with_input(BenchmarkId::new(&name, "ours"), &sets, |b, sets| {
            b.iter(|| sets.iter().map(|cs| solve(cs)).collect::<Vec<_>>())
        });
        if with_z3 {
            group.bench_with_input(BenchmarkId::new(&name, "z3"), &scripts, |b, scripts| {
                b.iter(|| {
                    scripts
                        .iter()
                        .map(|s| z3::first_line(s))
                        .collect::<Vec<_>>()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, analyze, q1q2);
criterion_main!(benches);
