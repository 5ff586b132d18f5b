//! Witnesses checked against Octave (issue #26 item 3): every MATLAB fixture is
//! analysed with witnesses on, and every statement whose witness comes with a repro is
//! run in Octave with those sizes; it must fail, and at that statement's line.
//!
//! The repro the app writes into the file puts the sizes (and, in a function file, the
//! call) at its top, which MATLAB runs as a script with local functions but Octave
//! cannot (it defines a script's functions only as it reaches them). So each case is
//! written as Octave runs the same thing: the fixture unchanged as `w<N>.m` (a
//! function file's function is named by its file), and a function `c<N>.m`, with a
//! fresh workspace, whose body is the repro's lines with the call renamed, or, for a
//! script, the repro's lines and then `w<N>`. One `octave-cli` runs every case and
//! prints the stack of each error; the case passes when a frame of `w<N>` is at the
//! statement's line.
//!
//! A second test applies each repro and analyses again: the repro'd program must be
//! a definite error where the witness says, so the analysis agrees with itself.

use shapex::report::{CheckStatus, Report};
use shapex_tests::require::{require, Tool};
use shapex_tests::witness::{analysed, fixture_repros};
use std::process::Command;

/// Fewer repros than this over the fixtures means witnesses were lost.
const MIN_CASES: usize = 5;

/// Statements where Octave does not do what MATLAB does, which the fixture says.
const OCTAVE_DIFFERS: &[(&str, u32)] = &[
    // reshape(zeros(0,1), 0, []) fails in MATLAB and gives 0x0 in Octave.
    ("matlab/soundness/corpus-sample-6.m", 5),
];

/// One statement's repro.
struct Case {
    fixture: String,
    source: String,
    line: u32,
    /// The repro's lines after its comment.
    lines: Vec<String>,
    /// The function the repro calls (a function file), else `None` (a script).
    calls: Option<String>,
    report_after: Report,
}

fn cases() -> Vec<Case> {
    fixture_repros("matlab", "matlab", "m")
        .into_iter()
        .map(|r| {
            let lines: Vec<String> = r
                .fix
                .replacement
                .lines()
                .filter(|l| !l.starts_with('%'))
                .map(str::to_string)
                .collect();
            let calls = lines
                .iter()
                .find(|l| !l.contains('='))
                .and_then(|l| l.split('(').next())
                .map(str::to_string);
            Case {
                report_after: analysed(&r.repro, &r.spec),
                fixture: r.fixture,
                source: r.source,
                line: r.line,
                lines,
                calls,
            }
        })
        .collect()
}

#[test]
fn every_witness_of_the_fixtures_fails_in_octave_where_we_say() {
    let cases = cases();
    assert!(
        cases.len() >= MIN_CASES,
        "only {} repros over the fixtures",
        cases.len()
    );
    let Some(octave) = require(Tool::OctaveCli) else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let mut driver = String::new();
    for (i, c) in cases.iter().enumerate() {
        let case_dir = dir.path().join(format!("k{i}"));
        std::fs::create_dir_all(&case_dir).unwrap();
        std::fs::write(case_dir.join(format!("w{i}.m")), &c.source).unwrap();
        let mut body: Vec<String> = c
            .lines
            .iter()
            .map(|l| match &c.calls {
                Some(f) if l.starts_with(&format!("{f}(")) => format!("w{i}{}", &l[f.len()..]),
                _ => l.clone(),
            })
            .collect();
        if c.calls.is_none() {
            body.push(format!("w{i}"));
        }
        let function = format!("function c{i}()\n{}\nend\n", body.join("\n"));
        std::fs::write(case_dir.join(format!("c{i}.m")), function).unwrap();
        driver.push_str(&format!(
            "cd('{}'); try; c{i}(); printf('CASE {i} ran\\n'); catch e; printf('CASE {i} failed'); for k = 1:numel(e.stack); printf(' %s:%d', e.stack(k).name, e.stack(k).line); end; printf('\\n'); end\n",
            case_dir.display()
        ));
    }
    let script = dir.path().join("driver.m");
    std::fs::write(&script, &driver).unwrap();
    let out = Command::new(&octave)
        .args(["--no-gui", "--quiet", "--no-window-system"])
        .arg(&script)
        .output()
        .expect("octave-cli runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut wrong = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        if OCTAVE_DIFFERS.contains(&(c.fixture.as_str(), c.line)) {
            continue;
        }
        let prefix = format!("CASE {i} ");
        let result = stdout.lines().find(|l| l.starts_with(&prefix));
        let at = format!(" w{i}:{}", c.line);
        let ok = result.is_some_and(|r| {
            r.starts_with(&format!("{prefix}failed"))
                && (r.contains(&format!("{at} ")) || r.ends_with(&at))
        });
        if !ok {
            wrong.push(format!(
                "{} line {}: repro {:?}: Octave: {}",
                c.fixture,
                c.line,
                c.lines,
                result.unwrap_or("no result")
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} witnesses do not fail in Octave where we say:\n{}\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "{} witnesses of the fixtures fail in Octave where we say",
        cases.len()
    );
}

#[test]
fn every_repro_is_a_definite_error_where_the_witness_says() {
    let mut wrong = Vec::new();
    for c in cases() {
        let report = c.report_after;
        let inserted = c.lines.len() as u32 + 1;
        let line = match &c.calls {
            // The file's statement, moved down by the inserted lines.
            None => c.line + inserted,
            // The call, which fails in the function.
            Some(_) => inserted,
        };
        let failing = report
            .statements
            .iter()
            .any(|s| s.range.line == line && s.check == CheckStatus::Error);
        if !failing {
            wrong.push(format!("{} line {} (repro line {line})", c.fixture, c.line));
        }
    }
    assert!(
        wrong.is_empty(),
        "repros the analysis does not find failing:\n{}",
        wrong.join("\n")
    );
}
