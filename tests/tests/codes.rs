//! Every diagnostic code the fixtures produce has an explanation (`shapex explain`), so a
//! new code cannot ship without one: every registered language's fixtures (the files
//! under `tests/fixtures` with one of its extensions), each explained by the language
//! that reported it.

use shapex::Analyzer;
use shapex_tests::{files_with_ext, fixtures_dir, FixtureSpec};
use std::collections::{BTreeMap, BTreeSet};

#[test]
fn every_code_the_fixtures_produce_is_explained() {
    let analyzer = Analyzer::new();
    let mut seen: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for lang in analyzer.languages() {
        let id = lang.info().id;
        for ext in lang.info().extensions {
            for path in files_with_ext(&fixtures_dir(), ext) {
                let source = std::fs::read_to_string(&path).expect("fixture is readable UTF-8");
                // A fixture's front matter may set its language's options (`% mode:`).
                let options = FixtureSpec::parse(&source, lang.info()).options();
                for d in analyzer.analyze(&source, &options).diagnostics {
                    assert!(
                        lang.explain(&d.code).is_some(),
                        "{}: code {} has no explanation",
                        path.display(),
                        d.code
                    );
                    seen.entry(id).or_default().insert(d.code);
                }
            }
        }
    }
    let total: usize = seen.values().map(BTreeSet::len).sum();
    assert!(
        total >= 5,
        "the fixtures should produce several codes: {seen:?}"
    );
    for lang in analyzer.languages() {
        let id = lang.info().id;
        let has_fixtures = lang
            .info()
            .extensions
            .iter()
            .any(|ext| !files_with_ext(&fixtures_dir(), ext).is_empty());
        assert!(
            !has_fixtures || seen.contains_key(id),
            "{id}'s fixtures produce no diagnostic at all: {seen:?}"
        );
    }
}
