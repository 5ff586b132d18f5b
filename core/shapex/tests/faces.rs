//! The page lists languages and paints text from `shapex::faces()`, which links no
//! analyser; the worker analyses with `Analyzer`. Both come from one registry, so they
//! must describe the same languages in the same order and paint alike.

use shapex::{faces, Analyzer};

#[test]
fn faces_describe_the_analysers_languages_in_order() {
    let analyzer = Analyzer::new();
    let languages: Vec<_> = analyzer.languages().collect();
    let faces = faces();
    assert_eq!(faces.len(), languages.len());
    for (face, language) in faces.iter().zip(&languages) {
        assert_eq!(&face.info, language.info());
        for line in [
            "x = zeros(3, 4); % note",
            "proc f (in a[R]) decl b[R]; /* c */",
            "'unclosed",
        ] {
            assert_eq!(
                (face.tokens)(line),
                language.tokens(line),
                "{}: {line}",
                face.info.id
            );
        }
    }
}
