//! `Options::views`: a face that shows one view at a time asks for it alone. The report
//! then holds that view only, the same payload a report of every view holds, and the
//! same statements and diagnostics, in every language.

use shapex::{Analyzer, Options, Session};

/// One program per language, from the fixtures.
const PROGRAMS: [(&str, &str); 4] = [
    ("matlab", "matlab/interproc/two-layer-net.m"),
    ("matlab", "matlab/joisha-figure7.m"),
    ("t", "t/b1_cascade.t"),
    ("py", "py/alexnet.py"),
];

fn fixture(path: &str) -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/");
    std::fs::read_to_string(format!("{root}{path}")).expect("the fixture exists")
}

#[test]
fn a_report_asked_for_some_views_holds_those_and_says_the_same() {
    let analyzer = Analyzer::new();
    for (lang, path) in PROGRAMS {
        let text = fixture(path);
        let all = analyzer.analyze(&text, &Options::new(lang));
        assert!(!all.views.is_empty(), "{path}");
        let ids: Vec<&str> = all.views.iter().map(|v| v.id.as_str()).collect();
        let mut asked = vec![Vec::new(), vec![ids[ids.len() - 1]]];
        asked.extend(ids.iter().map(|id| vec![*id]));
        for views in asked {
            // Analysed afresh and in a session kept from the whole report.
            let options = Options::new(lang).with_views(views.iter().copied());
            let mut session = Session::default();
            analyzer.analyze_in(&mut session, &text, &Options::new(lang));
            let again = analyzer.analyze_in(&mut session, &text, &options);
            for some in [analyzer.analyze(&text, &options), again] {
                assert_eq!(some.statements, all.statements, "{path} {views:?}");
                assert_eq!(some.diagnostics, all.diagnostics, "{path} {views:?}");
                let got: Vec<&str> = some.views.iter().map(|v| v.id.as_str()).collect();
                assert_eq!(got, views, "{path}");
                for v in &some.views {
                    assert!(all.view(&v.id) == Some(&v.payload), "{path}: {}", v.id);
                }
            }
        }
    }
}
