//! The repros the fixtures' witnesses carry (issue #26 item 3), for the tests that
//! run them where each language runs: Octave, PyTorch, VEC's own evaluator.

use crate::{display_path, files_with_ext, fixtures_dir, language, FixtureSpec};
use shapex::report::{Fix, Report};

/// One statement's repro.
pub struct FixtureRepro {
    /// The fixture's path relative to `tests/fixtures`.
    pub fixture: String,
    pub source: String,
    pub spec: FixtureSpec,
    /// The fixture analysed with witnesses.
    pub report: Report,
    /// The line of the statement whose witness it is.
    pub line: u32,
    /// That statement's index in `report.statements`.
    pub index: usize,
    pub fix: Fix,
    /// The fixture with the repro written in, as the app writes it.
    pub repro: String,
}

/// Every repro of the fixtures of language `lang` under `tests/fixtures/DIR`, files
/// ending in `.EXT`, in file order.
pub fn fixture_repros(lang: &str, dir: &str, ext: &str) -> Vec<FixtureRepro> {
    let info = language(lang);
    let mut out = Vec::new();
    for path in files_with_ext(&fixtures_dir().join(dir), ext) {
        let source = std::fs::read_to_string(&path).expect("fixture reads");
        let spec = FixtureSpec::parse(&source, &info);
        let report = analysed(&source, &spec);
        for (index, s) in report.statements.iter().enumerate() {
            let Some(fix) = s.witness.as_ref().and_then(|w| w.repro.as_ref()) else {
                continue;
            };
            let mut repro = source.clone();
            repro.replace_range(fix.span.start..fix.span.end, &fix.replacement);
            out.push(FixtureRepro {
                fixture: display_path(&path),
                source: source.clone(),
                spec: spec.clone(),
                report: report.clone(),
                line: s.range.line,
                index,
                fix: fix.clone(),
                repro,
            });
        }
    }
    out
}

/// `source` analysed under the fixture's options, with witnesses.
pub fn analysed(source: &str, spec: &FixtureSpec) -> Report {
    let options = shapex::Options {
        witness: true,
        ..spec.options()
    };
    shapex::analyze(source, &options)
}
