//! The scaling table: time and peak heap against input size for each analysis, with
//! the fitted growth exponent (least squares on log time against log size). Inputs:
//! realistic files (Octave's own function files concatenated,
//! `shapex_tests::corpus::octave_program`) and the generated programs of the native
//! benchmark (`shapex::samples::scaling_program`); and files of data (issue #19: a
//! table of numbers, a font table's `switch`, and two loops over inputs of unknown
//! size, `shapex::samples`). Peak heap is measured by a counting
//! allocator in this test binary. A benchmark: it prints, asserting nothing about time.
//! `scripts/bench scaling` runs it (`--ignored`).

use shapex::samples::{font_table, number_table, scaling_program, FOURIER_SUM, SYMBOLIC_LOOP};
use shapex_tests::corpus::octave_program;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// (best of 3 seconds, peak heap bytes above the baseline) of running `f`.
fn measure(f: impl Fn()) -> (f64, usize) {
    let mut best = f64::INFINITY;
    let mut peak = 0;
    for _ in 0..3 {
        let base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let t = Instant::now();
        f();
        best = best.min(t.elapsed().as_secs_f64());
        peak = peak.max(PEAK.load(Ordering::Relaxed) - base);
    }
    (best, peak)
}

/// The slope of log y against log x.
fn exponent(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let (lx, ly): (Vec<f64>, Vec<f64>) = points.iter().map(|(x, y)| (x.ln(), y.ln())).unzip();
    let (mx, my) = (lx.iter().sum::<f64>() / n, ly.iter().sum::<f64>() / n);
    let cov: f64 = lx.iter().zip(&ly).map(|(x, y)| (x - mx) * (y - my)).sum();
    let var: f64 = lx.iter().map(|x| (x - mx).powi(2)).sum();
    cov / var
}

#[test]
#[ignore = "a benchmark: scripts/bench runs it"]
fn time_and_memory_against_input_size() {
    let analyzer = shapex::Analyzer::new();
    let options = shapex::Options::new("matlab");
    let sizes = [1_000, 2_000, 4_000, 8_000, 16_000];
    type Input = (&'static str, fn(usize) -> Option<String>);
    let inputs: [Input; 2] = [
        ("realistic (Octave's function files)", octave_program),
        ("generated (samples::scaling_program)", |n| {
            Some(scaling_program(n))
        }),
    ];
    println!("| input | analysis | lines | time | peak heap |");
    println!("|---|---|---|---|---|");
    for (name, make) in inputs {
        let mut parse_t = vec![];
        let mut all_t = vec![];
        let mut all_m = vec![];
        for n in sizes {
            let Some(src) = make(n) else {
                println!("| {name} | — | {n} | (no Octave m-files) | |");
                continue;
            };
            let lines = src.lines().count() as f64;
            let (tp, mp) = measure(|| {
                std::hint::black_box(shapex_matlab_syntax::parse(&src));
            });
            let (ta, ma) = measure(|| {
                std::hint::black_box(analyzer.analyze(&src, &options));
            });
            println!(
                "| {name} | MATLAB parse | {lines} | {:.1} ms | {:.1} MB |",
                tp * 1e3,
                mp as f64 / 1e6
            );
            println!(
                "| {name} | MATLAB shapes (whole pipeline) | {lines} | {:.1} ms | {:.1} MB |",
                ta * 1e3,
                ma as f64 / 1e6
            );
            parse_t.push((lines, tp));
            all_t.push((lines, ta));
            all_m.push((lines, ma as f64));
        }
        if parse_t.len() >= 2 {
            println!(
                "| {name} | fitted exponent | | parse n^{:.2}, shapes n^{:.2} | shapes n^{:.2} |",
                exponent(&parse_t),
                exponent(&all_t),
                exponent(&all_m)
            );
        }
    }
}

#[test]
#[ignore = "a benchmark: scripts/bench runs it"]
fn data_files_of_every_size() {
    // A `switch` is an if-chain nested once per case, which the lowering and the flow
    // framework walk recursively: 5,000 cases need more than a test thread's 2 MB.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(data_files)
        .expect("a thread for the benchmark")
        .join()
        .expect("the benchmark ran");
}

fn data_files() {
    let analyzer = shapex::Analyzer::new();
    let options = shapex::Options::new("matlab");
    type Input = (&'static str, fn(usize) -> String, [usize; 4]);
    let inputs: [Input; 2] = [
        (
            "table of numbers (samples::number_table), elements",
            number_table,
            [50_000, 100_000, 200_000, 400_000],
        ),
        (
            "font table switch (samples::font_table), cases",
            font_table,
            [625, 1_250, 2_500, 5_000],
        ),
    ];
    println!("| input | size | bytes | time | peak heap |");
    println!("|---|---|---|---|---|");
    for (name, make, sizes) in inputs {
        let mut t = vec![];
        let mut m = vec![];
        for n in sizes {
            let src = make(n);
            let (ta, ma) = measure(|| {
                std::hint::black_box(analyzer.analyze(&src, &options));
            });
            println!(
                "| {name} | {n} | {} | {:.1} ms | {:.1} MB |",
                src.len(),
                ta * 1e3,
                ma as f64 / 1e6
            );
            t.push((n as f64, ta));
            m.push((n as f64, ma as f64));
        }
        println!(
            "| {name} | fitted exponent | | n^{:.2} | n^{:.2} |",
            exponent(&t),
            exponent(&m)
        );
    }
    for (name, src) in [
        ("for k = 1:1000, c = a.*b; end", SYMBOLIC_LOOP),
        ("100-term Fourier sum over an input", FOURIER_SUM),
    ] {
        let (ta, ma) = measure(|| {
            std::hint::black_box(analyzer.analyze(src, &options));
        });
        println!(
            "| {name} | | {} | {:.1} ms | {:.1} MB |",
            src.len(),
            ta * 1e3,
            ma as f64 / 1e6
        );
    }
}
