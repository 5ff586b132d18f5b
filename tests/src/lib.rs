//! Shared helpers for the integration tests: expectation comments in fixtures
//! ([`expect`], [`check`], [`bless`]), running and selecting fixtures ([`fixtures`]),
//! the Octave differential suite ([`gen`] generates programs, [`gen::functions`]
//! function files with local functions, [`octave`] runs them and compares), [`require`]: the one rule for tests whose tool is missing (skip
//! locally, fail under `CI`), and [`witness`]: the fixtures' witness repros.

pub mod bless;
pub mod builtin_calls;
pub mod calls;
pub mod check;
pub mod expect;
pub mod fixtures;
pub mod gen;
pub mod octave;
pub mod require;
pub mod witness;

pub use check::{check_fixture, Mismatch};
pub use expect::FixtureSpec;

use shapex::{LanguageInfo, Options};
use std::path::{Path, PathBuf};

/// The registered language `id`'s facts (extensions, options). Panics for an id no
/// language has: a test's typo.
pub fn language(id: &str) -> LanguageInfo {
    shapex::Analyzer::new()
        .language(id)
        .unwrap_or_else(|| panic!("no registered language `{id}`"))
        .info()
        .clone()
}

/// MATLAB's options with `mode` (`modern` or `paper`), for the MATLAB-only tests.
pub fn matlab_options(mode: &str) -> Options {
    Options::new("matlab").with("mode", mode)
}

/// `tests/fixtures` of this crate.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Every file under `dir` with extension `ext`, sorted so runs are deterministic.
pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    files
}

/// A path relative to `tests/fixtures`, for messages.
pub fn display_path(path: &Path) -> String {
    path.strip_prefix(fixtures_dir())
        .unwrap_or(path)
        .display()
        .to_string()
}
pub mod corpus;
pub mod scale;
