//! Runs every `tests/fixtures/**/*.m` that carries expectation comments through
//! `shapex::analyze` and checks the comments against the Report (see
//! `shapex_tests::expect` for the grammar). Fails with the full list of mismatches.

use shapex_tests::{check, display_path, files_with_ext, fixtures_dir, FixtureSpec};

#[test]
fn every_fixture_expectation_holds() {
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for path in files_with_ext(&fixtures_dir(), "m") {
        let source = std::fs::read_to_string(&path).expect("fixture is readable UTF-8");
        let spec = FixtureSpec::parse(&source);
        if !spec.has_expectations() {
            continue;
        }
        checked += 1;
        let options = spec.mode.options();
        let report = shapex::analyze(&source, &options);
        mismatches.extend(check::check_spec(&display_path(&path), &spec, &report));
    }
    assert!(
        checked > 0,
        "no fixtures with expectations under {:?}",
        fixtures_dir()
    );
    let list: Vec<String> = mismatches.iter().map(ToString::to_string).collect();
    assert!(
        mismatches.is_empty(),
        "{} mismatches in {checked} fixtures:\n{}",
        mismatches.len(),
        list.join("\n")
    );
    eprintln!("{checked} fixtures: all expectations hold");
}
