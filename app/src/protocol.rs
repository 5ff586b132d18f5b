//! The messages between the page and the analysis worker, as JSON strings (the Report
//! is plain serde data). Shared by both binaries (`#[path]`-included by the worker).

use serde::{Deserialize, Serialize};
use shapex::report::view::Drawing;
use shapex::{Options, Report};

/// Page → worker: analyse `source`, the file `path` among `others`. `generation`
/// numbers requests so the page can drop results of text that has changed since.
#[derive(Serialize, Deserialize)]
pub struct Request {
    pub generation: u64,
    pub source: String,
    /// The analysed file's name (`main.m`); empty: a file alone, nameless.
    #[serde(default)]
    pub path: String,
    /// The program's other files, (name, text): what a call in `source` may run.
    #[serde(default)]
    pub others: Vec<(String, String)>,
    pub options: Options,
}

/// Worker → page.
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Reply {
    /// The worker's wasm is loaded and it listens (messages sent before are lost).
    Ready,
    Report {
        generation: u64,
        report: Box<Report>,
        /// How long the analysis took inside the worker (ms), for the benchmark's
        /// breakdown of keystroke-to-result.
        #[serde(default)]
        analysis_ms: f64,
        /// Where the vertices of each graph or lattice view go, by view id, laid out
        /// here so that a large graph never costs the page's main thread.
        #[serde(default)]
        drawings: Vec<(String, Drawing)>,
    },
    /// The analysis panicked (sent from the panic hook, just before the worker aborts).
    Panic { message: String },
}

/// A test hook: a program whose first line is exactly this makes the worker panic,
/// so the browser test can check that the page survives a failing analysis.
#[allow(dead_code)] // read by the worker binary only
pub const PANIC_HOOK: &str = "% shapex-test: panic in the analysis worker";
