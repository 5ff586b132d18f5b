//! The messages between the page and the analysis worker, as JSON strings (the Report
//! is plain serde data). Shared by both binaries (`#[path]`-included by the worker).

use super::delta::Delta;
use serde::{Deserialize, Serialize};
use shapex::Options;

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
    /// The generation of the report the page holds (0: none): the reply is told as
    /// its difference from that one.
    #[serde(default)]
    pub held: u64,
}

/// Worker → page.
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Reply {
    /// The worker's wasm is loaded and it listens (messages sent before are lost).
    Ready,
    Report {
        generation: u64,
        /// The Report, as its difference from the one the page holds (with the
        /// drawings of the graph and lattice views that changed, laid out here so that
        /// a large graph never costs the page's main thread).
        report: Box<Delta>,
        /// How long the analysis took inside the worker (ms), for the benchmark's
        /// breakdown of keystroke-to-result.
        #[serde(default)]
        analysis_ms: f64,
    },
    /// The analysis panicked (sent from the panic hook, just before the worker aborts).
    Panic { message: String },
}

/// A test hook: a program whose first line is exactly this makes the worker panic,
/// so the browser test can check that the page survives a failing analysis.
#[allow(dead_code)] // read by the worker binary only
pub const PANIC_HOOK: &str = "% shapex-test: panic in the analysis worker";
