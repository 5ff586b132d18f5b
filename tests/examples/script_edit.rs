//! Times re-analysis after one edit in the middle of a long realistic script, for
//! profiling (`perf record`): `cargo run --release -p shapex-tests --example
//! script_edit -- LINES KIND ROUNDS [AT]`, KIND `space` (a space at the end of the
//! middle line, as typing does) or `statement` (a new statement there); AT puts the
//! edit that far into the script instead (`0.1`: a tenth of the way down). With
//! `SHAPEX_EDIT_PROGRAM=calls` the text is a file of functions calling each other
//! (`scale::call_program`, issue #22 item 10) instead of the script. With
//! `SHAPEX_EDIT_VIEWS=shapes` (ids separated by commas) only those views are built, as
//! the page asks for the tab on screen.

use shapex::{Analyzer, Options, Session};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let lines: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let kind = args.get(2).map_or("space", String::as_str);
    let rounds: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(10);
    let script = if std::env::var("SHAPEX_EDIT_PROGRAM").is_ok_and(|p| p == "calls") {
        shapex_tests::scale::call_program(lines)
    } else if let Some(script) = shapex_tests::corpus::octave_script(lines) {
        script
    } else {
        eprintln!("no Octave m-files");
        return;
    };
    let at: f64 = args.get(4).and_then(|a| a.parse().ok()).unwrap_or(0.5);
    let middle = (script.lines().count() as f64 * at) as usize;
    let end_of_line: usize = script
        .lines()
        .take(middle + 1)
        .map(|l| l.len() + 1)
        .sum::<usize>()
        - 1;
    let start_of_line: usize = script.lines().take(middle).map(|l| l.len() + 1).sum();
    let edited = match kind {
        "statement" => format!(
            "{}edit_here = 1;\n{}",
            &script[..start_of_line],
            &script[start_of_line..]
        ),
        _ => format!("{} {}", &script[..end_of_line], &script[end_of_line..]),
    };
    let analyzer = Analyzer::new();
    let mut options = Options::new("matlab");
    if let Ok(views) = std::env::var("SHAPEX_EDIT_VIEWS") {
        options = options.with_views(views.split(','));
    }
    let t = Instant::now();
    analyzer.analyze(&script, &options);
    println!("full: {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let texts = [script, edited];
    let mut session = Session::default();
    analyzer.analyze_in(&mut session, &texts[0], &options);
    let mut times = Vec::new();
    let mut cpu = Vec::new();
    for k in 1..=rounds {
        let (t, c) = (Instant::now(), cpu_ns());
        analyzer.analyze_in(&mut session, &texts[k % 2], &options);
        times.push(t.elapsed().as_secs_f64() * 1e3);
        if let (Some(c), Some(d)) = (c, cpu_ns()) {
            cpu.push((d - c) as f64 / 1e6);
        }
    }
    times.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    println!(
        "{kind} edit at line {middle} of {lines}: median {:.1} ms, max {:.1} ms{}",
        times[times.len() / 2],
        times[times.len() - 1],
        cpu.get(cpu.len() / 2)
            .map_or(String::new(), |c| format!(" (CPU median {c:.1} ms)"))
    );
}

/// The CPU time this thread has run, in ns (Linux), which other processes on a busy
/// machine do not add to as they do to the wall clock.
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}
