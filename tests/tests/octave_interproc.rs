//! Octave check of the interprocedural fixtures (issue #22 item 1; plan
//! `docs/plans/issue-22-interprocedural.md` §5, slice 1): every function file under
//! `tests/fixtures/matlab/interproc/` must run in Octave with its expectations true.
//!
//! Each fixture is a function file whose first function is `main` without parameters,
//! followed by local functions. [`rewrite`] turns its expectation comments into code
//! that Octave checks, on `main`'s lines only (the local functions' display shapes are
//! symbolic and the analysis's business):
//! - after a line with `% expect: NAME <a,b,…>` whose extents are all integers, an
//!   `assert` per such item that `size(NAME)` is `[a b …]` (items with a symbolic,
//!   `*`, `?`, `illegal` or `= shape(…)` shape are not Octave's to check and are left
//!   out);
//! - a line with `% expect-error: CODE` becomes a one-line `try` that fails with
//!   `shapex:noerror` when the code runs without error, and with `shapex:othererror`
//!   when the error is not the kind CODE names (for the codes listed in
//!   [`octave_message`]; any error is accepted for other codes). Its targets are then
//!   undefined, so a fixture never reads a failing line's target afterwards.
//! - a line with `% expect-unreachable` starts with an `error('shapex:reached', …)`,
//!   so Octave fails if it ever runs it.
//!
//! The rewritten file is written as `main.m` (a function file's name must be its first
//! function's) into a fresh folder per fixture, and `octave-cli --no-gui --quiet --eval
//! "cd('<dir>'); main"` must exit with status 0. Line continuations (`...`) are not
//! supported: fixtures write one statement per line.
//!
//! The analysis side of the same fixtures is `tests/tests/fixtures.rs`.

use shapex_tests::expect::{split_comment, DimPattern, LineExpect, ShapePattern};
use shapex_tests::require::{notice, require, Tool};
use shapex_tests::{display_path, files_with_ext, fixtures_dir, language, FixtureSpec};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The plan's slice 1 names eight fixtures; fewer means one was lost.
const MIN_FIXTURES: usize = 8;

fn interproc_dir() -> PathBuf {
    fixtures_dir().join("matlab").join("interproc")
}

/// The fixtures: the function files of `interproc/`, and the `main.m` of each of its
/// folders (a program of several files, issue #22 item 2), run among its folder's files.
fn fixture_files() -> Vec<PathBuf> {
    let files: Vec<PathBuf> = files_with_ext(&interproc_dir(), "m")
        .into_iter()
        .filter(|p| {
            p.parent() == Some(interproc_dir().as_path())
                || (p.file_name().is_some_and(|n| n == "main.m")
                    && p.parent().and_then(Path::parent) == Some(interproc_dir().as_path()))
        })
        .collect();
    assert!(
        files.len() >= MIN_FIXTURES,
        "{} has {} fixtures, fewer than the {MIN_FIXTURES} of issue #22 slice 1: {:?}",
        interproc_dir().display(),
        files.len(),
        files
    );
    files
}

/// A fixture rewritten for Octave.
#[derive(Debug)]
struct Rewritten {
    source: String,
    /// How many `assert`s were inserted.
    asserts: usize,
    /// How many lines were wrapped in a `try` that must fail.
    failing: usize,
    /// How many lines must never run.
    unreached: usize,
}

/// The name of the function a `function …` line declares, and whether it has
/// parameters; `None` when `code` is no function line.
fn function_header(code: &str) -> Option<(&str, bool)> {
    let rest = code.trim().strip_prefix("function")?;
    if rest.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
        return None; // `functional = 1`
    }
    let signature = match rest.split_once('=') {
        Some((_, right)) => right,
        None => rest,
    }
    .trim();
    let end = signature
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(signature.len());
    let name = &signature[..end];
    let params = signature[end..]
        .trim()
        .strip_prefix('(')
        .and_then(|p| p.split_once(')'))
        .is_some_and(|(inside, _)| !inside.trim().is_empty());
    Some((name, params))
}

/// The line numbers (1-based) of `main`'s body: after its `function` line, up to the
/// next `function` line (or the end of the file). Errors unless the file's first
/// MATLAB's comments, as the language declares them (`language_t_comments_carry_directives`
/// checks the declaration).
const MATLAB: shapex::report::Lexical = shapex::report::Lexical {
    comments: &["%", "#"],
    quotes: &['"', '\''],
};

/// function is `main` without parameters.
fn main_body(source: &str) -> Result<std::ops::Range<u32>, String> {
    let mut headers = source.lines().enumerate().filter_map(|(i, text)| {
        let (code, _) = split_comment(text, &MATLAB);
        function_header(code).map(|h| (i as u32 + 1, h))
    });
    let (first, (name, params)) = headers
        .next()
        .ok_or("no `function` line: an interproc fixture is a function file")?;
    if name != "main" || params {
        return Err(format!(
            "line {first}: the first function must be `function main()` without \
             parameters, not `{name}`{}",
            if params { " with parameters" } else { "" }
        ));
    }
    let end = headers
        .next()
        .map_or(source.lines().count() as u32 + 1, |(line, _)| line);
    Ok(first + 1..end)
}

/// The extents of a shape Octave can check: all of them integers.
fn constant_dims(shape: &ShapePattern) -> Option<Vec<i64>> {
    match shape {
        ShapePattern::Dims(dims) => dims
            .iter()
            .map(|d| match d {
                DimPattern::Known(n) => Some(*n),
                DimPattern::Any | DimPattern::Symbolic(_) | DimPattern::Bounded(_) => None,
            })
            .collect(),
        ShapePattern::Illegal | ShapePattern::UnknownRank | ShapePattern::SameAs(_) => None,
    }
}

/// The codes whose Octave error is known (see [`octave_message`]).
const KNOWN_CODES: [&str; 7] = [
    "shape.mtimes",
    "shape.field",
    "shape.struct",
    "call.nargin",
    "call.nargout",
    "class.mixed",
    "class.integer-matrix",
];

/// Fragments of Octave's error messages for a diagnostic code, for the codes whose
/// Octave error is known; a failing line must fail with one of them.
fn octave_message(code: &str) -> &'static [&'static str] {
    if code == "shape.mtimes" || code.starts_with("shape.mtimes.") {
        &["nonconformant"]
    } else if code == "call.nargin" {
        &["called with too many inputs"]
    } else if code == "call.nargout" {
        &["called with too many outputs"]
    } else if code == "class.mixed" {
        // `+` and the other operators; `rem`/`mod`; `bitand`/`bitor`/`bitxor`.
        &[
            "not implemented for",
            "cannot combine",
            "must have matching operand types",
        ]
    } else if code == "class.integer-matrix" {
        &["not implemented for"]
    } else if code == "shape.field" {
        &["has no member"]
    } else if code == "shape.struct" {
        &["dimensions of parameter"]
    } else {
        &[]
    }
}

/// The `try` line replacing line `line`, whose code is `code` and which must fail with
/// one of `e.errors`.
fn failing_line(line: u32, code: &str, e: &LineExpect) -> String {
    let indent = &code[..code.len() - code.trim_start().len()];
    let statement = code.trim().trim_end_matches([';', ',']).trim_end();
    let mut fragments: Vec<&str> = Vec::new();
    for known in KNOWN_CODES {
        if e.errors.iter().any(|p| p.matches(known)) {
            fragments.extend(octave_message(known));
        }
    }
    // Any error will do when some claimed code has no known Octave message.
    let every_code_known = e
        .errors
        .iter()
        .all(|p| KNOWN_CODES.iter().any(|k| p.matches(k)));
    let kind = if fragments.is_empty() || !every_code_known {
        String::new()
    } else {
        let unlike: Vec<String> = fragments
            .iter()
            .map(|f| format!("isempty(strfind(shapex_e.message, '{f}'))"))
            .collect();
        format!(
            " if {}, error('shapex:othererror', 'line {line} failed otherwise: %s', \
             shapex_e.message); end,",
            unlike.join(" && ")
        )
    };
    format!(
        "{indent}try, {statement}; error('shapex:noerror', 'line {line} did not fail'); \
         catch shapex_e, if strcmp(shapex_e.identifier, 'shapex:noerror'), \
         rethrow(shapex_e); end,{kind} end"
    )
}

/// The `assert` that `name` has the extents `dims`, for line `line`.
fn size_assert(indent: &str, line: u32, name: &str, dims: &[i64]) -> String {
    let dims: Vec<String> = dims.iter().map(i64::to_string).collect();
    let dims = dims.join(" ");
    format!(
        "{indent}assert(isequal(size({name}), [{dims}]), 'shapex:size', \
         'line {line}: {name} is %s, expected [{dims}]', mat2str(size({name})));"
    )
}

/// Rewrites a fixture's expectations on `main`'s lines into Octave checks (see the
/// module's documentation).
fn rewrite(source: &str) -> Result<Rewritten, String> {
    let spec = FixtureSpec::parse(source, &language("matlab"));
    if let Some(issue) = spec.issues.first() {
        return Err(format!(
            "line {}: bad expectation: {}",
            issue.line, issue.message
        ));
    }
    let body = main_body(source)?;
    let expects: HashMap<u32, &LineExpect> = spec.lines.iter().map(|e| (e.line, e)).collect();
    let mut out = Rewritten {
        source: String::with_capacity(source.len() * 2),
        asserts: 0,
        failing: 0,
        unreached: 0,
    };
    for (i, text) in source.lines().enumerate() {
        let line = i as u32 + 1;
        let expect = expects.get(&line).filter(|_| body.contains(&line));
        let (code, _) = split_comment(text, &MATLAB);
        match expect {
            Some(e) if e.unreachable => {
                let indent = &code[..code.len() - code.trim_start().len()];
                out.source.push_str(&format!(
                    "{indent}error('shapex:reached', 'line {line} ran'); {}\n",
                    text.trim_start()
                ));
                out.unreached += 1;
            }
            Some(e) if !e.errors.is_empty() => {
                if code.trim().is_empty() {
                    return Err(format!("line {line}: expect-error on a line without code"));
                }
                out.source.push_str(&failing_line(line, code, e));
                out.source.push('\n');
                out.failing += 1;
            }
            Some(e) => {
                out.source.push_str(text);
                out.source.push('\n');
                let indent = &code[..code.len() - code.trim_start().len()];
                for def in &e.defs {
                    if let Some(dims) = constant_dims(&def.shape) {
                        out.source
                            .push_str(&size_assert(indent, line, &def.name, &dims));
                        out.source.push('\n');
                        out.asserts += 1;
                    }
                }
            }
            None => {
                out.source.push_str(text);
                out.source.push('\n');
            }
        }
    }
    Ok(out)
}

/// Runs `source` as the function file `main.m` in a fresh folder (with a copy of the
/// other files of `folder`, for a fixture that is a folder); `Err` with Octave's output
/// unless it exits with status 0.
fn run_in_octave(octave: &Path, source: &str, folder: Option<&Path>) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| format!("no temporary folder: {e}"))?;
    for from in folder.map(|f| files_with_ext(f, "m")).unwrap_or_default() {
        let to = dir.path().join(from.strip_prefix(folder.unwrap()).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::copy(&from, &to).map_err(|e| format!("cannot copy {}: {e}", from.display()))?;
    }
    std::fs::write(dir.path().join("main.m"), source)
        .map_err(|e| format!("cannot write main.m: {e}"))?;
    let eval = format!("cd('{}'); main", dir.path().display());
    let out = Command::new(octave)
        .args(["--no-gui", "--quiet", "--eval", &eval])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", octave.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "octave-cli exited with {}\n--- stderr\n{}\n--- stdout\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim_end(),
            String::from_utf8_lossy(&out.stdout).trim_end()
        ))
    }
}

fn numbered(source: &str) -> String {
    source
        .lines()
        .enumerate()
        .map(|(i, l)| format!("  {:>3} | {l}", i + 1))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_fixture_rewrites_into_checks() {
    let mut problems = Vec::new();
    for path in fixture_files() {
        let name = display_path(&path);
        let source = std::fs::read_to_string(&path).expect("fixture is readable");
        match rewrite(&source) {
            Err(why) => problems.push(format!("{name}: {why}")),
            Ok(r) if r.asserts + r.failing + r.unreached == 0 => problems.push(format!(
                "{name}: no constant expectation and no expect-error in main, so Octave \
                 would check nothing"
            )),
            Ok(_) => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_fixture_runs_in_octave_as_expected() {
    let files = fixture_files();
    let Some(octave) = require(Tool::OctaveCli) else {
        return;
    };
    let mut failures = Vec::new();
    let (mut asserts, mut failing, mut unreached) = (0, 0, 0);
    for path in &files {
        let name = display_path(path);
        let source = std::fs::read_to_string(path).expect("fixture is readable");
        let rewritten = match rewrite(&source) {
            Ok(r) => r,
            Err(why) => {
                failures.push(format!("--- {name}: {why}"));
                continue;
            }
        };
        asserts += rewritten.asserts;
        failing += rewritten.failing;
        unreached += rewritten.unreached;
        let folder = path.parent().filter(|p| *p != interproc_dir().as_path());
        if let Err(why) = run_in_octave(&octave, &rewritten.source, folder) {
            failures.push(format!(
                "--- {name}: {why}\n--- the rewritten file\n{}",
                numbered(&rewritten.source)
            ));
        }
    }
    notice(&format!(
        "octave-cli ran {} interproc fixtures: {asserts} size assertions, {failing} \
         failing lines, {unreached} unreachable lines",
        files.len()
    ));
    assert!(
        failures.is_empty(),
        "{} of {} fixtures fail in Octave:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

/// The harness itself: a wrong size, a line that does not fail and a line that fails
/// for another reason must each make Octave exit with an error, and a right file pass.
#[test]
fn octave_catches_wrong_expectations() {
    let Some(octave) = require(Tool::OctaveCli) else {
        return;
    };
    let program = |body: &str| {
        format!("function main()\n{body}\nend\n\nfunction y = outer(x)\ny = x * x';\nend\n")
    };
    let cases = [
        ("a = outer(ones(2,3));   % expect: a <2,2>", true),
        ("a = outer(ones(2,3));   % expect: a <3,3>", false),
        (
            "a = outer(ones(2,3));   % expect-error: shape.mtimes*",
            false,
        ),
        (
            "a = ones(2,3) * ones(2,3);   % expect-error: shape.mtimes*",
            true,
        ),
        ("a = outer(1, 2);   % expect-error: call.nargin", true),
        (
            "a = ones(2,3) * ones(2,3);   % expect-error: call.nargin",
            false,
        ),
        ("[a, b] = outer(1);   % expect-error: call.nargout", true),
        ("if false\n  a = 1;   % expect-unreachable\nend", true),
        ("if true\n  a = 1;   % expect-unreachable\nend", false),
    ];
    for (body, passes) in cases {
        let rewritten = rewrite(&program(body)).expect("the case rewrites");
        let outcome = run_in_octave(&octave, &rewritten.source, None);
        assert_eq!(
            outcome.is_ok(),
            passes,
            "`{body}` should {} in Octave; rewritten:\n{}\n{outcome:?}",
            if passes { "pass" } else { "fail" },
            rewritten.source
        );
    }
}

#[test]
fn rewrite_inserts_asserts_and_wraps_failing_lines() {
    let source = "\
% A comment.  expect: z <9,9>
function main()
x = ones(2,3);   % expect: x <2,3>
  [m, s] = f(x);   % expect: m <1,3>; s <1,*>
n = numel(x);   % expect: n <max(n,0),1>
q = x * x;   % expect-error: shape.mtimes*
r = f(1, 2, 3)   % expect-error: call.nargin
end

function [m, s] = f(x)
m = mean(x);   % expect: m <1,1>
s = m;
end
";
    let expected = "\
% A comment.  expect: z <9,9>
function main()
x = ones(2,3);   % expect: x <2,3>
assert(isequal(size(x), [2 3]), 'shapex:size', 'line 3: x is %s, expected [2 3]', mat2str(size(x)));
  [m, s] = f(x);   % expect: m <1,3>; s <1,*>
  assert(isequal(size(m), [1 3]), 'shapex:size', 'line 4: m is %s, expected [1 3]', mat2str(size(m)));
n = numel(x);   % expect: n <max(n,0),1>
try, q = x * x; error('shapex:noerror', 'line 6 did not fail'); catch shapex_e, if strcmp(shapex_e.identifier, 'shapex:noerror'), rethrow(shapex_e); end, if isempty(strfind(shapex_e.message, 'nonconformant')), error('shapex:othererror', 'line 6 failed otherwise: %s', shapex_e.message); end, end
try, r = f(1, 2, 3); error('shapex:noerror', 'line 7 did not fail'); catch shapex_e, if strcmp(shapex_e.identifier, 'shapex:noerror'), rethrow(shapex_e); end, if isempty(strfind(shapex_e.message, 'called with too many inputs')), error('shapex:othererror', 'line 7 failed otherwise: %s', shapex_e.message); end, end
end

function [m, s] = f(x)
m = mean(x);   % expect: m <1,1>
s = m;
end
";
    let r = rewrite(source).expect("rewrites");
    assert_eq!(r.source, expected);
    assert_eq!((r.asserts, r.failing), (2, 2));
}

#[test]
fn rewrite_requires_a_main_without_parameters() {
    assert!(rewrite("function main(x)\ny = x;   % expect: y <1,1>\nend\n").is_err());
    assert!(rewrite("function y = helper(x)\ny = x;\nend\n").is_err());
    assert!(rewrite("x = 1;   % expect: x <1,1>\n").is_err());
    assert_eq!(
        function_header("function [a, b] = stats(x)"),
        Some(("stats", true))
    );
    assert_eq!(function_header("function main"), Some(("main", false)));
    assert_eq!(function_header("functional = 1;"), None);
}
