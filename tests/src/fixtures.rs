//! Running the fixtures (the files under `tests/fixtures` with an extension of a
//! registered language, with expectation comments; each analysed by the language its
//! extension names, with the options its front matter sets): all of them, those whose
//! path contains a name (`SHAPEX_FIXTURE`), and blessing them (`UPDATE_EXPECT`, see
//! [`crate::bless`]).

use crate::bless::bless;
use crate::check::{check_spec, Mismatch};
use crate::expect::FixtureSpec;
use crate::files_with_ext;
use crate::require::{flag, in_ci};
use shapex::{Analyzer, LanguageInfo};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `SHAPEX_FIXTURE`: when set (and not empty), only fixtures whose path relative to
/// `tests/fixtures` contains it run.
pub fn name_filter() -> Option<String> {
    std::env::var("SHAPEX_FIXTURE")
        .ok()
        .filter(|f| !f.is_empty())
}

/// `UPDATE_EXPECT` (set to anything but empty, `0` or `false`): rewrite the
/// expectations that fail. Panics when `CI` is set too: CI never blesses.
pub fn bless_requested() -> bool {
    let bless = flag("UPDATE_EXPECT");
    assert!(
        !(bless && in_ci()),
        "UPDATE_EXPECT is set and so is CI: CI never rewrites fixtures; bless locally and \
         commit the result"
    );
    bless
}

/// What one run over the fixtures found.
#[derive(Debug, Default)]
pub struct Run {
    /// Fixtures checked, as paths relative to the root, in order.
    pub checked: Vec<String>,
    /// How many fixtures of each language (by id) were checked.
    pub checked_per_language: BTreeMap<String, usize>,
    /// Fixtures selected that carry no expectations (not checked).
    pub without_expectations: Vec<String>,
    /// Fixtures whose expectations failed (before any blessing).
    pub failing: Vec<String>,
    /// Fixtures rewritten by blessing.
    pub blessed: Vec<String>,
    /// What fails now (after blessing, what blessing could not fix).
    pub mismatches: Vec<Mismatch>,
}

/// Every fixture file under `root`: the files with an extension of a registered
/// language, each with that language, sorted by path.
pub fn fixture_files<'a>(analyzer: &'a Analyzer, root: &Path) -> Vec<(PathBuf, &'a LanguageInfo)> {
    let mut files: Vec<(PathBuf, &LanguageInfo)> = analyzer
        .languages()
        .flat_map(|lang| {
            let info = lang.info();
            info.extensions.iter().flat_map(move |ext| {
                files_with_ext(root, ext)
                    .into_iter()
                    .map(move |p| (p, info))
            })
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

/// Checks every fixture under `root` whose relative path contains `filter` (all when
/// `None`); with `bless_all`, blesses each of them (see [`bless`]), writes back those
/// that change and checks them again.
pub fn run(root: &Path, filter: Option<&str>, bless_all: bool) -> Run {
    let analyzer = Analyzer::new();
    let mut out = Run::default();
    for (path, lang) in fixture_files(&analyzer, root) {
        let name = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        if filter.is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let source = std::fs::read_to_string(&path).expect("fixture is readable UTF-8");
        let spec = FixtureSpec::parse(&source, lang);
        if !spec.has_expectations() {
            out.without_expectations.push(name);
            continue;
        }
        out.checked.push(name.clone());
        *out.checked_per_language
            .entry(lang.id.to_string())
            .or_default() += 1;
        let report = analyze_in_folder(&analyzer, root, &name, &source, &spec);
        let mut mismatches = check_spec(&name, &spec, &report);
        mismatches.extend(check_goldens(
            &path,
            &name,
            &report,
            bless_all,
            &mut out.blessed,
        ));
        if !mismatches.is_empty() {
            out.failing.push(name.clone());
        }
        // Every selected fixture is blessed, not only the failing ones, so that a run on
        // a copy tests that a fixture which holds comes back unchanged.
        if bless_all {
            let blessed = bless(&source, &spec, &report);
            if blessed != source {
                std::fs::write(&path, &blessed).expect("blessed fixture is writable");
                out.blessed.push(name.clone());
                let spec = FixtureSpec::parse(&blessed, lang);
                let report = analyze_in_folder(&analyzer, root, &name, &blessed, &spec);
                mismatches = check_spec(&name, &spec, &report);
            }
        }
        out.mismatches.extend(mismatches);
    }
    out
}

/// The report on fixture `name` (its path under `root`) with text `source`, analysed
/// as the CLI analyses a file: among the files of its folder, so a fixture folder
/// (`interproc/folder-basic/`) is one program whose `main.m` calls its other files.
pub fn analyze_in_folder(
    analyzer: &Analyzer,
    root: &Path,
    name: &str,
    source: &str,
    spec: &FixtureSpec,
) -> shapex::Report {
    let read = |p: &str| std::fs::read_to_string(root.join(p)).ok().map(Into::into);
    let sources = shapex::Sources {
        path: &name.replace('\\', "/"),
        text: source,
        read: &read,
        search: &[],
    };
    analyzer.analyze_sources_in(&mut shapex::Session::default(), &sources, &spec.options())
}

/// A fixture's text views against their goldens: a file `STEM.VIEW.golden` beside
/// `STEM.EXT` holds the exact text of view `VIEW` (the PyTorch answers' JSON,
/// `resnet50.answers.golden`). Only goldens that exist are compared; blessing rewrites
/// them (create an empty one to start).
fn check_goldens(
    path: &Path,
    name: &str,
    report: &shapex::Report,
    bless: bool,
    blessed: &mut Vec<String>,
) -> Vec<Mismatch> {
    let mut out = Vec::new();
    for view in &report.views {
        let shapex::report::view::Payload::Text(t) = &view.payload else {
            continue;
        };
        let golden = path.with_extension(format!("{}.golden", view.id));
        let Ok(want) = std::fs::read_to_string(&golden) else {
            continue;
        };
        let got = format!("{}\n", t.text);
        if want == got {
            continue;
        }
        if bless {
            std::fs::write(&golden, &got).expect("golden is writable");
            blessed.push(golden.display().to_string());
            continue;
        }
        let line = want
            .lines()
            .zip(got.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| want.lines().count().min(got.lines().count()));
        out.push(Mismatch {
            path: name.to_string(),
            line: 0,
            message: format!(
                "view `{}` differs from {} at its line {}: expected {:?}, got {:?}",
                view.id,
                golden.display(),
                line + 1,
                want.lines().nth(line).unwrap_or("(end)"),
                got.lines().nth(line).unwrap_or("(end)")
            ),
        });
    }
    out
}
