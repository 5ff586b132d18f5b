//! Running the fixtures (`tests/fixtures/**/*.m` with expectation comments): all of
//! them, or those whose path contains a name (`SHAPEX_FIXTURE`).

use crate::check::{check_spec, Mismatch};
use crate::expect::FixtureSpec;
use crate::files_with_ext;
use shapex_core::report::{Lang, Options, Report};
use std::path::Path;

/// `SHAPEX_FIXTURE`: when set (and not empty), only fixtures whose path relative to
/// `tests/fixtures` contains it run.
pub fn name_filter() -> Option<String> {
    std::env::var("SHAPEX_FIXTURE")
        .ok()
        .filter(|f| !f.is_empty())
}

/// What one run over the fixtures found.
#[derive(Debug, Default)]
pub struct Run {
    /// Fixtures checked, as paths relative to the root, in order.
    pub checked: Vec<String>,
    /// Fixtures selected that carry no expectations (not checked).
    pub without_expectations: Vec<String>,
    /// What fails.
    pub mismatches: Vec<Mismatch>,
}

/// Checks every fixture under `root` whose relative path contains `filter` (all when
/// `None`).
pub fn run(root: &Path, filter: Option<&str>) -> Run {
    let mut out = Run::default();
    for path in files_with_ext(root, "m") {
        let name = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        if filter.is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let source = std::fs::read_to_string(&path).expect("fixture is readable UTF-8");
        let spec = FixtureSpec::parse(&source);
        if !spec.has_expectations() {
            out.without_expectations.push(name);
            continue;
        }
        out.checked.push(name.clone());
        let report = analyze(&source, &spec);
        let mismatches = check_spec(&name, &spec, &report);
        out.mismatches.extend(mismatches);
    }
    out
}

fn analyze(source: &str, spec: &FixtureSpec) -> Report {
    let options = Options {
        lang: Lang::Matlab,
        mode: spec.mode,
    };
    shapex_core::analyze(source, &options)
}
