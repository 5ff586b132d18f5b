//! Share links: the format is the `shapex-share` crate's (the CLI's `shapex share`
//! makes the same links); what is here is how links open as the page's tabs.

pub use shapex_share::link::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{Notation, Tabs, ViewState};

    #[test]
    fn an_old_v2_link_opens_as_one_file() {
        // A `#v2/` link from before files: its JSON has `code` and no file names.
        let json = r#"{"code":"x = ones(3,1);\n","lang":"matlab","settings":{},"view":"shapes","notation":"paper"}"#;
        let s = decode(&encode_json(json)).unwrap();
        assert_eq!(
            s.files(),
            vec![crate::state::File {
                name: "main.m".into(),
                code: "x = ones(3,1);\n".into()
            }]
        );
    }

    #[test]
    fn several_files_round_trip_with_the_active_one() {
        let mut s = ViewState {
            lang: "matlab".into(),
            notation: Notation::Times,
            ..ViewState::default()
        };
        let file = |name: &str, code: &str| crate::state::File {
            name: name.into(),
            code: code.into(),
        };
        s.set_files(
            vec![
                file("main.m", "a = helper(ones(4,1));\n"),
                file("helper.m", "function y = helper(x)\ny = x .* x;\nend\n"),
                file("private/p.m", "function p\nend\n"),
            ],
            1,
        );
        let back = decode(&encode(&s)).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.active_name(), "helper.m");
        assert_eq!(back.files()[2].name, "private/p.m");
        // The size limit is the whole state's: many large files do not fit together.
        let mut big = s.clone();
        let mut x: u64 = 7;
        let mut noise = || -> String {
            (0..2_000)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    format!("v{} = {};\n", x >> 40, x % 1_000_003)
                })
                .collect()
        };
        big.code = noise();
        assert!(link(&big).is_ok(), "one file fits");
        big.others = (0..40)
            .map(|i| file(&format!("f{i}.m"), &noise()))
            .collect();
        assert!(link(&big).is_err(), "all files count");
    }

    #[test]
    fn opens_links_made_before_languages_were_plug_ins() {
        // Made by the app at commit 2a61870 (share::encode of a ViewState with
        // lang matlab, mode paper, view checks, notation times): MATLAB's mode was a
        // top-level field and views were an enum.
        let old = "v1/N4Igxg9gJgpiBcICGACAvCgTkgdlAFAMwA0ATAJQDcAOjgEbooQ4wDORxhVtYjSAVHUooRAUhQAf2iGIgANrgDmCEAFskAFwV0Za6HEQAHJIZiZdANwCWMAO4qwACxhgA1q104IGzVeYqNK1U2EABfIA";
        let s = decode(old).unwrap();
        assert_eq!(s.code, "a = rand(3,2);\nb = ones(3,3);\nc = a*b;   % ü\n");
        assert_eq!(s.lang, "matlab");
        assert_eq!(s.settings.get("mode").map(String::as_str), Some("paper"));
        assert_eq!(s.view, "checks");
        assert_eq!(s.notation, Notation::Times);
        // And it analyses as it did then: paper mode, where a*b is an inner-dimension error.
        let options = shapex::Options {
            lang: s.lang.clone(),
            settings: s.settings.clone(),
            ..shapex::Options::new(&s.lang)
        };
        let report = shapex::analyze(&s.code, &options);
        assert_eq!(report.setting("mode"), Some("paper"));
        assert!(report
            .diagnostics
            .iter()
            .any(|d| d.code.starts_with("shape.mtimes")));
    }
}
