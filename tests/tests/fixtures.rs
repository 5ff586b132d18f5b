//! Runs every `tests/fixtures/**/*.m` that carries expectation comments through
//! `shapex_core::analyze` and checks the comments against the Report (see
//! `shapex_tests::expect` for the grammar). Fails with the full list of mismatches.
//!
//! `SHAPEX_FIXTURE=NAME` runs only the fixtures whose path contains NAME (and fails
//! when none does).

use shapex_tests::fixtures::{self, name_filter};
use shapex_tests::fixtures_dir;
use shapex_tests::require::notice;

#[test]
fn every_fixture_expectation_holds() {
    let filter = name_filter();
    let run = fixtures::run(&fixtures_dir(), filter.as_deref());
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
    assert!(
        !run.checked.is_empty(),
        "no fixtures with expectations under {:?}",
        fixtures_dir()
    );
    let list: Vec<String> = run.mismatches.iter().map(ToString::to_string).collect();
    assert!(
        run.mismatches.is_empty(),
        "{} mismatches in {} fixtures:\n{}",
        run.mismatches.len(),
        run.checked.len(),
        list.join("\n")
    );
    eprintln!("{} fixtures: all expectations hold", run.checked.len());
}
