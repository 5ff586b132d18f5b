//! Runs every fixture that carries expectation comments — every file under
//! `tests/fixtures` with an extension of a registered language (`.m` MATLAB, `.t`
//! Language T, …), analysed by that language with the options its front matter sets —
//! and checks the comments against the Report (see `shapex_tests::expect` for the
//! grammar). Fails with the full list of mismatches.
//!
//! `SHAPEX_FIXTURE=NAME` runs only the fixtures whose path contains NAME (and fails
//! when none does); `UPDATE_EXPECT=1` rewrites failing expectations to what the
//! analysis reports (`shapex_tests::bless`), refused when `CI` is set.

use shapex::Analyzer;
use shapex_tests::expect::FixtureSpec;
use shapex_tests::fixtures::{self, bless_requested, fixture_files, name_filter};
use shapex_tests::fixtures_dir;
use shapex_tests::require::notice;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

#[test]
fn every_fixture_expectation_holds() {
    let filter = name_filter();
    let bless = bless_requested();
    let run = fixtures::run(&fixtures_dir(), filter.as_deref(), bless);
    if let Some(name) = &filter {
        assert!(
            !run.checked.is_empty(),
            "SHAPEX_FIXTURE={name} selects no fixture with expectations under {} \
             (selected without expectations: {:?})",
            fixtures_dir().display(),
            run.without_expectations
        );
        notice(&format!(
            "SHAPEX_FIXTURE={name}: checked {} fixture(s):\n  {}",
            run.checked.len(),
            run.checked.join("\n  ")
        ));
    }
    for name in &run.blessed {
        notice(&format!("UPDATE_EXPECT: rewrote {name}"));
    }
    assert!(
        !run.checked.is_empty(),
        "no fixtures with expectations under {:?}",
        fixtures_dir()
    );
    let list: Vec<String> = run.mismatches.iter().map(ToString::to_string).collect();
    let hint = if bless {
        "what blessing cannot rewrite; edit these by hand"
    } else {
        "UPDATE_EXPECT=1 rewrites shapes, statuses and error codes to what the analysis reports"
    };
    assert!(
        run.mismatches.is_empty(),
        "{} mismatches in {} fixtures ({hint}):\n{}",
        run.mismatches.len(),
        run.checked.len(),
        list.join("\n")
    );
    let per_language: Vec<String> = run
        .checked_per_language
        .iter()
        .map(|(lang, n)| format!("{n} {lang}"))
        .collect();
    eprintln!(
        "{} fixtures ({}): all expectations hold",
        run.checked.len(),
        per_language.join(", ")
    );
}

/// A copy of `tests/fixtures` in a temporary directory, and each copied file's bytes
/// by relative path.
fn copy_of_fixtures() -> (tempfile::TempDir, HashMap<String, Vec<u8>>) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut bytes = HashMap::new();
    for (path, _) in fixture_files(&Analyzer::new(), &fixtures_dir()) {
        let name = path.strip_prefix(fixtures_dir()).unwrap();
        let to = dir.path().join(name);
        let content = std::fs::read(&path).unwrap();
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(&to, &content).unwrap();
        bytes.insert(name.display().to_string(), content);
    }
    (dir, bytes)
}

fn read(root: &Path, name: &str) -> Vec<u8> {
    std::fs::read(root.join(name)).unwrap()
}

/// Blessing a fixture whose expectations hold must not change a byte of it: it runs on
/// a copy, so it also holds while the real fixtures are being blessed.
#[test]
fn blessing_changes_no_byte_of_a_fixture_that_holds() {
    let (copy, original) = copy_of_fixtures();
    let filter = name_filter();
    let run = fixtures::run(copy.path(), filter.as_deref(), true);
    assert!(!run.checked.is_empty(), "no fixture selected");
    let mut changed = vec![];
    for name in run.checked.iter().filter(|n| !run.failing.contains(n)) {
        if read(copy.path(), name) != original[name] {
            changed.push(name.clone());
        }
    }
    assert!(
        changed.is_empty(),
        "blessing changed fixtures whose expectations hold: {changed:?}"
    );
    let needless: Vec<&String> = run
        .blessed
        .iter()
        .filter(|n| !run.failing.contains(n))
        .collect();
    assert!(
        needless.is_empty(),
        "blessing rewrote fixtures that hold: {needless:?}"
    );
}

/// Every fixture with its shapes, statuses and error codes made wrong is blessed back
/// into one whose expectations hold.
#[test]
fn blessing_repairs_fixtures_whose_expectations_are_wrong() {
    let (copy, _) = copy_of_fixtures();
    let filter = name_filter();
    let mut damaged: BTreeMap<&str, usize> = BTreeMap::new();
    let analyzer = Analyzer::new();
    for (path, lang) in fixture_files(&analyzer, copy.path()) {
        let source = std::fs::read_to_string(&path).unwrap();
        let spec = FixtureSpec::parse(&source, lang);
        let mut edits: Vec<(std::ops::Range<usize>, &str)> = vec![];
        for e in &spec.lines {
            edits.extend(e.defs.iter().map(|d| (d.span.clone(), "<99,98>")));
            if let Some(span) = &e.check_span {
                let wrong = if source[span.clone()].contains("error") {
                    "proven"
                } else {
                    "error"
                };
                edits.push((span.clone(), wrong));
            }
            edits.extend(e.errors.iter().map(|c| (c.directive.clone(), "")));
        }
        if edits.is_empty() {
            continue;
        }
        edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
        let mut text = source.clone();
        for (range, with) in edits {
            text.replace_range(range, with);
        }
        std::fs::write(&path, text).unwrap();
        *damaged.entry(lang.id).or_default() += 1;
    }
    assert!(!damaged.is_empty(), "no fixture has expectations to damage");
    let run = fixtures::run(copy.path(), filter.as_deref(), true);
    assert!(!run.checked.is_empty(), "no fixture selected");
    let list: Vec<String> = run.mismatches.iter().map(ToString::to_string).collect();
    assert!(
        run.mismatches.is_empty(),
        "blessing left {} mismatches:\n{}",
        list.len(),
        list.join("\n")
    );
    // Blessing is tried on every language whose fixtures were checked.
    for lang in run.checked_per_language.keys() {
        assert!(
            damaged.contains_key(lang.as_str()),
            "no {lang} fixture has expectations that blessing could repair: {damaged:?}"
        );
    }
}
