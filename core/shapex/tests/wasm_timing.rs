//! Analysis time in the browser: the generated programs of the native benchmark
//! (`cargo bench -p shapex-tests --bench analysis`) analysed by the wasm build in headless
//! Chromium. It reports numbers and asserts only behaviour (no errors), never time:
//! `scripts/test` runs it with `--release -- --nocapture` and the README quotes it.
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
            let report = analyzer.analyze(&program, &Options::default());
            assert_eq!(report.error_count(), 0);
        }
        let ms = (js_sys::Date::now() - start) / runs as f64;
        console_log!("browser analysis: {lines} lines in {ms:.1} ms");
    }
}
