//! Analysis time in the browser: the generated programs of the native benchmark
//! (`cargo bench -p shapex-tests --bench analysis`) analysed by the wasm build in headless
//! Chromium. It reports numbers and asserts only behaviour (no errors), never time:
//! `scripts/test` runs it with `--profile wasm -- --nocapture` (the size-optimised profile
//! the app ships) and the README quotes it.
#![cfg(target_arch = "wasm32")]

use shapex::samples::scaling_program;
use shapex::{Analyzer, Options};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn analysis_time_for_100_1000_10000_lines() {
    for lines in [100, 1_000, 10_000] {
        let program = scaling_program(lines);
        let runs = if lines <= 1_000 { 5 } else { 1 };
        let analyzer = Analyzer::new();
        let start = js_sys::Date::now();
        for _ in 0..runs {
            let report = analyzer.analyze(&program, &Options::new("matlab"));
            assert_eq!(report.error_count(), 0);
        }
        let ms = (js_sys::Date::now() - start) / runs as f64;
        console_log!("browser analysis: {lines} lines in {ms:.1} ms");
    }
}

/// Issue #19: files of data in the browser's wasm build. A 1 MB table of numbers and a
/// 2,500-case font table (a 5,000-line `switch`) are analysed (memory, and the depth of
/// a `switch` lowered as one if per case, are what used to kill the worker: it is now
/// lowered in blocks of about √n cases); the time is printed, only the shapes are
/// asserted.
#[wasm_bindgen_test]
fn a_megabyte_of_data_is_analysed() {
    use shapex::samples::{font_table, number_table};
    let analyzer = Analyzer::new();
    let table = number_table(140_000);
    let start = js_sys::Date::now();
    let report = analyzer.analyze(&table, &Options::new("matlab"));
    let ms = js_sys::Date::now() - start;
    assert_eq!(report.error_count(), 0);
    let shape = |name: &str| {
        report
            .statements
            .iter()
            .flat_map(|s| &s.defs)
            .find(|d| d.name == name)
            .map(|d| d.display.clone())
    };
    assert_eq!(shape("A").as_deref(), Some("<1400,100>"));
    console_log!(
        "browser analysis: a table of 140,000 numbers ({} bytes) in {ms:.1} ms",
        table.len()
    );
    let font = font_table(2_500);
    let start = js_sys::Date::now();
    let report = analyzer.analyze(&font, &Options::new("matlab"));
    let ms = js_sys::Date::now() - start;
    assert_eq!(report.error_count(), 0);
    let glyphs: Vec<&str> = report
        .statements
        .iter()
        .flat_map(|s| &s.defs)
        .filter(|d| d.name == "g")
        .map(|d| d.display.as_str())
        .collect();
    assert!(glyphs.len() > 2_500 && glyphs.iter().all(|g| *g == "<7,5>"));
    console_log!("browser analysis: a 2,500-case font table switch in {ms:.1} ms");
}
