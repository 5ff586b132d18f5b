//! Every diagnostic code the fixtures produce has an explanation (`shapex explain`), so a
//! new code cannot ship without one.

use shapex::Analyzer;
use shapex_tests::{files_with_ext, fixtures_dir, FixtureSpec};

#[test]
fn every_code_the_fixtures_produce_is_explained() {
    let analyzer = Analyzer::new();
    let mut seen = std::collections::BTreeSet::new();
    for path in files_with_ext(&fixtures_dir(), "m") {
        let source = std::fs::read_to_string(&path).expect("fixture is readable UTF-8");
        let spec = FixtureSpec::parse(&source);
        let options = spec.mode.options();
        let lang = analyzer
            .language(&options.lang)
            .expect("a registered language");
        for d in analyzer.analyze(&source, &options).diagnostics {
            assert!(
                lang.explain(&d.code).is_some(),
                "{}: code {} has no explanation",
                path.display(),
                d.code
            );
            seen.insert(d.code);
        }
    }
    assert!(
        seen.len() >= 5,
        "the fixtures should produce several codes: {seen:?}"
    );
}
