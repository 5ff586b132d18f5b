//! Drives `octave-cli` over many programs in one process and compares the sizes and
//! errors it observes with a [`Report`]. Programs have one statement per line; a
//! counted loop is a `for` header line, body lines and an `end` line, so the driver
//! observes every iteration of every body line.
//!
//! Driver protocol (one line each, on stdout):
//! `P <prog> L <line> <name> <d1> <d2> …` after a statement assigns `name`;
//! `R <prog> <line>` after a statement completes (again on each loop iteration);
//! `E <prog> <line> <identifier> | <message>` when a statement throws;
//! `D <prog>` when a program ran to its end.
//!
//! A program with local functions is a function file (its first line
//! `function NAME()`), run by the driver as `NAME()` from a folder on Octave's path
//! ([`run_function_files`]). Only its `main`'s statements are observed: each gets the
//! same `printf` calls as a script's statement, appended on its own line so that the
//! lines Octave reports are those of the file the analysis reads; an error is put on
//! the line of `main` that was running (the frame of `NAME` in the error's stack, also
//! when the error was raised inside a local function that line called).

use crate::check::canonical;
use shapex::report::{CheckStatus, DimView, Report, ShapeView};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io;
use std::process::Command;

/// One statement of a differential program: its line and the variables it assigns.
#[derive(Clone, Debug)]
pub struct DiffStmt {
    pub line: u32,
    pub code: String,
    pub assigns: Vec<String>,
}

/// A program to run in Octave and to analyse.
#[derive(Clone, Debug)]
pub struct DiffProgram {
    pub name: String,
    pub source: String,
    pub stmts: Vec<DiffStmt>,
}

impl DiffProgram {
    pub fn from_generated(p: &crate::gen::Program) -> DiffProgram {
        let stmts = p
            .stmts
            .iter()
            .enumerate()
            .map(|(i, s)| DiffStmt {
                line: i as u32 + 1,
                code: s.text.clone(),
                assigns: s.assigns.clone(),
            })
            .collect();
        DiffProgram {
            name: p.name.clone(),
            source: p.source(),
            stmts,
        }
    }

    /// A generated function file: `main`'s statements are on lines 2, 3, ….
    pub fn from_function_program(p: &crate::gen::functions::FnProgram) -> DiffProgram {
        let stmts = p
            .main
            .iter()
            .enumerate()
            .map(|(i, s)| DiffStmt {
                line: crate::gen::functions::FnProgram::line_of(i),
                code: s.text.clone(),
                assigns: s.assigns.clone(),
            })
            .collect();
        DiffProgram {
            name: p.name.clone(),
            source: p.source(),
            stmts,
        }
    }

    /// A hand-written straight-line fixture: one statement per line; comment and
    /// blank lines are kept for numbering but not run.
    pub fn from_source(name: &str, source: &str) -> DiffProgram {
        let lexical = crate::language("matlab").lexical;
        let stmts = source
            .lines()
            .enumerate()
            .filter_map(|(i, text)| {
                let code = crate::expect::split_comment(text, &lexical).0.trim();
                (!code.is_empty()).then(|| DiffStmt {
                    line: i as u32 + 1,
                    code: code.to_string(),
                    assigns: assigned_names(code),
                })
            })
            .collect();
        DiffProgram {
            name: name.to_string(),
            source: source.to_string(),
            stmts,
        }
    }
}

/// The variables on the left of `=` in a simple assignment: `a = …`, `a(2,3) = …`,
/// `[m, n] = …`; the index of a `for` header. Empty for expression statements and
/// other control lines (`end`, `if …`).
pub fn assigned_names(code: &str) -> Vec<String> {
    let code = code.trim();
    let keyword = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    match keyword {
        "for" | "parfor" => {
            let rest = code[keyword.len()..].trim_start().trim_start_matches('(');
            let index = rest.split('=').next().unwrap_or("").trim();
            let ok = !index.is_empty() && index.chars().all(|c| c.is_alphanumeric() || c == '_');
            return if ok { vec![index.to_string()] } else { vec![] };
        }
        "if" | "elseif" | "else" | "while" | "end" | "switch" | "case" | "otherwise" | "break"
        | "continue" | "return" | "try" | "catch" | "function" => return vec![],
        _ => {}
    }
    let Some(eq) = top_level_assign(code) else {
        return vec![];
    };
    let lhs = code[..eq]
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']');
    lhs.split(|c: char| c == ',' || c.is_whitespace())
        .map(|t| {
            let end = t
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(t.len());
            &t[..end]
        })
        .filter(|n| n.chars().next().is_some_and(|c| c.is_alphabetic()))
        .map(str::to_string)
        .collect()
}

/// The byte offset of the assignment `=` (not `==`, `<=`, `>=`, `~=`) outside brackets.
fn top_level_assign(code: &str) -> Option<usize> {
    let b = code.as_bytes();
    let mut depth = 0i32;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'{' => depth += 1,
            b')' | b'}' => depth -= 1,
            b'=' if depth == 0 => {
                let prev = i.checked_sub(1).map(|j| b[j]);
                let next = b.get(i + 1).copied();
                let comparison =
                    matches!(prev, Some(b'=' | b'<' | b'>' | b'~' | b'!')) || next == Some(b'=');
                if !comparison {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Octave's error for one program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OctaveError {
    pub line: u32,
    pub identifier: String,
    pub message: String,
}

impl OctaveError {
    /// Errors whose cause is array extents (as opposed to, e.g., undefined names).
    pub fn is_shape_error(&self) -> bool {
        let m = self.message.to_lowercase();
        self.identifier == "Octave:nonconformant-args"
            || self.identifier == "Octave:index-out-of-bounds"
            || self.identifier == "Octave:invalid-resize"
            || [
                "nonconformant",
                "dimensions mismatch",
                "dimension mismatch",
                "out of bound",
                "can't reshape",
                "not defined for n-d",
                "square matrix",
                "resizing",
                "not divisible",
            ]
            .iter()
            .any(|p| m.contains(p))
    }
}

/// What Octave observed for one program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Observed {
    /// `(line, name)` → canonical size after the last completed execution of that
    /// statement.
    pub sizes: HashMap<(u32, String), Vec<i64>>,
    /// `(line, name)` → every distinct canonical size after that statement, in order
    /// of first appearance: one for straight-line code, several when a loop body
    /// changes the variable's shape from one iteration to the next.
    pub seen: HashMap<(u32, String), Vec<Vec<i64>>>,
    /// Lines whose statement completed at least once.
    pub ran: HashSet<u32>,
    pub error: Option<OctaveError>,
    pub finished: bool,
}

/// The Octave script that runs every program in its own `try` block.
pub fn driver_script(programs: &[DiffProgram]) -> String {
    let mut s = String::from(
        "1;\nwarning('off', 'all');\nrand('seed', 42); rand('state', 42); randn('state', 42);\n",
    );
    for (p, prog) in programs.iter().enumerate() {
        s += &format!("clear -x shx_*\nshx_p = {p};\nshx_l = 0;\ntry\n");
        for st in &prog.stmts {
            s += &format!("  shx_l = {};\n  {}\n", st.line, terminated(&st.code));
            for name in &st.assigns {
                s += &format!(
                    "  printf('P %d L {line} {name}', shx_p); printf(' %d', size({name})); printf('\\n');\n",
                    line = st.line
                );
            }
            // Literal line numbers: after a `for` header, `shx_l` still holds the
            // previous iteration's last line.
            s += &format!("  printf('R %d {}\\n', shx_p);\n", st.line);
        }
        s += "  printf('D %d\\n', shx_p);\ncatch shx_e\n";
        s += "  printf('E %d %d %s | %s\\n', shx_p, shx_l, shx_e.identifier, strrep(shx_e.message, \"\\n\", ' '));\nend\n";
    }
    s
}

/// The function file `prog` (whose first line is `function NAME()`, `NAME` being
/// `prog.name`) with the driver's `printf` calls for program `p` appended to each of
/// `prog.stmts`' lines: the lines keep their numbers.
pub fn instrumented_function_file(prog: &DiffProgram, p: usize) -> String {
    let mut lines: Vec<String> = prog.source.lines().map(str::to_string).collect();
    for st in &prog.stmts {
        let Some(text) = lines.get_mut(st.line as usize - 1) else {
            continue;
        };
        let mut out = terminated(text);
        for name in &st.assigns {
            out += &format!(
                " printf('P {p} L {line} {name}'); printf(' %d', size({name})); printf('\\n');",
                line = st.line
            );
        }
        out += &format!(" printf('R {p} {}\\n');", st.line);
        *text = out;
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The Octave script that calls each function file's first function (named like the
/// program) in its own `try` block; the files are in `dir`.
pub fn function_driver_script(programs: &[DiffProgram], dir: &std::path::Path) -> String {
    let mut s = format!(
        "1;\nwarning('off', 'all');\nrand('seed', 42); rand('state', 42); randn('state', 42);\naddpath('{}');\n",
        dir.display()
    );
    for (p, prog) in programs.iter().enumerate() {
        let name = &prog.name;
        s += &format!("shx_p = {p};\ntry\n  {name}();\n  printf('D %d\\n', shx_p);\ncatch shx_e\n");
        s += "  shx_l = 0;\n  for shx_i = 1:numel(shx_e.stack)\n";
        s += &format!(
            "    if strcmp(shx_e.stack(shx_i).name, '{name}')\n      shx_l = shx_e.stack(shx_i).line;\n      break;\n    end\n  end\n"
        );
        s += "  printf('E %d %d %s | %s\\n', shx_p, shx_l, shx_e.identifier, strrep(shx_e.message, \"\\n\", ' '));\nend\n";
    }
    s
}

/// Every statement ends in `;` so Octave prints nothing of its own.
fn terminated(code: &str) -> String {
    let c = code.trim_end();
    if c.ends_with(';') {
        c.to_string()
    } else {
        format!("{c};")
    }
}

/// Parses the driver's output into one [`Observed`] per program.
pub fn parse_output(out: &str, programs: usize) -> Vec<Observed> {
    let mut obs = vec![Observed::default(); programs];
    for line in out.lines() {
        let mut w = line.split_whitespace();
        let (Some(tag), Some(Ok(p))) = (w.next(), w.next().map(str::parse::<usize>)) else {
            continue;
        };
        let Some(o) = obs.get_mut(p) else { continue };
        match tag {
            "P" => {
                let (Some("L"), Some(Ok(l)), Some(name)) =
                    (w.next(), w.next().map(str::parse::<u32>), w.next())
                else {
                    continue;
                };
                let dims: Vec<i64> = w.filter_map(|d| d.parse().ok()).collect();
                let dims = canonical(&dims, |&d| d == 1);
                let key = (l, name.to_string());
                let seen = o.seen.entry(key.clone()).or_default();
                if !seen.contains(&dims) {
                    seen.push(dims.clone());
                }
                o.sizes.insert(key, dims);
            }
            "R" => {
                if let Some(Ok(l)) = w.next().map(str::parse::<u32>) {
                    o.ran.insert(l);
                }
            }
            "E" => o.error = parse_error(w.collect::<Vec<_>>().join(" ")),
            "D" => o.finished = true,
            _ => {}
        }
    }
    obs
}

fn parse_error(rest: String) -> Option<OctaveError> {
    let (head, message) = rest.split_once(" | ").unwrap_or((rest.as_str(), ""));
    let mut h = head.split_whitespace();
    let line = h.next()?.parse().ok()?;
    Some(OctaveError {
        line,
        identifier: h.next().unwrap_or("").to_string(),
        message: message.to_string(),
    })
}

/// Runs all `programs` in one `octave-cli` process.
pub fn run(octave: &std::path::Path, programs: &[DiffProgram]) -> io::Result<Vec<Observed>> {
    let dir = std::env::temp_dir().join(format!("shapex-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let script = dir.join("shapex_diff_driver.m");
    std::fs::write(&script, driver_script(programs))?;
    let out = Command::new(octave)
        .args(["--no-gui", "--quiet", "--norc", "--no-history"])
        .arg(&script)
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    let out = out?;
    Ok(parse_output(
        &String::from_utf8_lossy(&out.stdout),
        programs.len(),
    ))
}

/// Runs every function file of `programs` (each written as `NAME.m`, see
/// [`instrumented_function_file`]) in one `octave-cli` process.
pub fn run_function_files(
    octave: &std::path::Path,
    programs: &[DiffProgram],
) -> io::Result<Vec<Observed>> {
    let dir = std::env::temp_dir().join(format!("shapex-diff-fn-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    for (p, prog) in programs.iter().enumerate() {
        std::fs::write(
            dir.join(format!("{}.m", prog.name)),
            instrumented_function_file(prog, p),
        )?;
    }
    let script = dir.join("shapex_diff_fn_driver.m");
    std::fs::write(&script, function_driver_script(programs, &dir))?;
    let out = Command::new(octave)
        .args(["--no-gui", "--quiet", "--norc", "--no-history"])
        .arg(&script)
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    let out = out?;
    Ok(parse_output(
        &String::from_utf8_lossy(&out.stdout),
        programs.len(),
    ))
}

/// All known integer extents of a ShapeView, canonicalised; `None` when any part is
/// symbolic, unknown or illegal.
pub fn definite_dims(s: &ShapeView) -> Option<Vec<i64>> {
    let ShapeView::Dims { dims: Some(d), .. } = s else {
        return None;
    };
    let known: Option<Vec<i64>> = d
        .iter()
        .map(|x| match x {
            DimView::Known(n) => Some(*n),
            DimView::Symbolic(_) => None,
        })
        .collect();
    known.map(|k| canonical(&k, |&d| d == 1))
}

/// What kind of claim in a Report Octave contradicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProblemKind {
    /// Our parser rejects a program Octave ran.
    Unparsed,
    /// A definite shape differs from a size Octave observed after the statement.
    Disagreement,
    /// `check: error` on a statement that is not where Octave failed.
    FalseError,
    /// `check: proven` on the statement where Octave failed with a shape error.
    FalseProof,
}

/// One claim of a Report that Octave contradicts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub kind: ProblemKind,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            ProblemKind::Unparsed => "unparsed",
            ProblemKind::Disagreement => "disagreement",
            ProblemKind::FalseError => "false error",
            ProblemKind::FalseProof => "false proof",
        };
        write!(f, "{kind}: {}", self.message)
    }
}

/// Every claim of our `report` that Octave's observation of `prog` contradicts. A
/// definite shape must equal every size Octave saw after that statement (a loop body
/// runs it once per iteration); `check: error` must be on Octave's failing line;
/// `check: proven` must not be on a line where Octave failed with a shape error.
pub fn compare(prog: &DiffProgram, report: &Report, obs: &Observed) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut push = |kind, message| out.push(Problem { kind, message });
    if !report.parse_ok {
        let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
        push(
            ProblemKind::Unparsed,
            format!("our parser rejects the program ({})", codes.join(", ")),
        );
    }
    let fail_line = obs.error.as_ref().map(|e| e.line);
    let at = |line: u32| {
        prog.stmts
            .iter()
            .find(|s| s.line == line)
            .map_or(format!("line {line}"), |s| {
                format!("line {line} `{}`", s.code.trim())
            })
    };
    for s in &report.statements {
        let line = s.range.line;
        for d in &s.defs {
            let (Some(ours), Some(theirs)) = (
                definite_dims(&d.shape),
                obs.seen.get(&(line, d.name.clone())),
            ) else {
                continue;
            };
            if theirs.iter().any(|t| *t != ours) {
                let theirs = match theirs.as_slice() {
                    [one] => format!("Octave says {one:?}"),
                    many => format!("Octave saw {many:?} over the loop's iterations"),
                };
                push(
                    ProblemKind::Disagreement,
                    format!("{}: we say {} is {ours:?}, {theirs}", at(line), d.name),
                );
            }
        }
        if s.check == CheckStatus::Error && fail_line != Some(line) {
            let message = match fail_line {
                None => format!(
                    "{}: we report check: error, Octave ran the program without error",
                    at(line)
                ),
                Some(l) if line > l => format!(
                    "{}: we report check: error after Octave's failing line {l} (cascade)",
                    at(line)
                ),
                Some(l) => format!(
                    "{}: we report check: error, but Octave ran it and failed only at line {l}",
                    at(line)
                ),
            };
            push(ProblemKind::FalseError, message);
        }
        if let Some(e) = obs
            .error
            .as_ref()
            .filter(|e| e.line == line && e.is_shape_error())
        {
            if s.check == CheckStatus::Proven {
                push(
                    ProblemKind::FalseProof,
                    format!(
                        "{}: we report check: proven, Octave fails: {}",
                        at(line),
                        e.message
                    ),
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assigned_names_from_simple_left_hand_sides() {
        assert_eq!(assigned_names("a = b == c;"), vec!["a"]);
        assert_eq!(assigned_names("a(5,6) = 1;"), vec!["a"]);
        assert_eq!(assigned_names("[m, n] = size(x);"), vec!["m", "n"]);
        assert_eq!(assigned_names("[~, i] = max(x);"), vec!["i"]);
        assert!(assigned_names("disp(a <= b)").is_empty());
        assert_eq!(assigned_names("for k12 = 1:4"), vec!["k12"]);
        assert_eq!(assigned_names("  for (i = 2:3)"), vec!["i"]);
        assert!(assigned_names("end").is_empty());
        assert!(assigned_names("  end").is_empty());
        assert!(assigned_names("if a == 1").is_empty());
        assert_eq!(assigned_names("endx = 3;"), vec!["endx"]);
        assert!(assigned_names("f(x == 1)").is_empty());
    }

    #[test]
    fn function_files_keep_their_line_numbers() {
        let source = "function main_000()\na = ones(2, 3);\nfor k = 1:2\n  b = f(a);\nend\nend\n\nfunction y = f(x)\n  y = x';\nend\n";
        let stmts = [
            (2, "a = ones(2, 3);"),
            (3, "for k = 1:2"),
            (4, "  b = f(a);"),
            (5, "end"),
        ]
        .iter()
        .map(|&(line, code)| DiffStmt {
            line,
            code: code.to_string(),
            assigns: assigned_names(code),
        })
        .collect();
        let prog = DiffProgram {
            name: "main_000".into(),
            source: source.into(),
            stmts,
        };
        let file = instrumented_function_file(&prog, 7);
        let lines: Vec<&str> = file.lines().collect();
        assert_eq!(lines.len(), source.lines().count());
        assert_eq!(lines[0], "function main_000()");
        assert!(lines[1].starts_with("a = ones(2, 3); printf('P 7 L 2 a');"));
        assert!(lines[2].starts_with("for k = 1:2; printf('P 7 L 3 k');"));
        assert!(lines[3].ends_with("printf('R 7 4\\n');"), "{}", lines[3]);
        assert_eq!(lines[4], "end; printf('R 7 5\\n');");
        assert_eq!(&lines[5..], &source.lines().collect::<Vec<_>>()[5..]);
        let driver = function_driver_script(&[prog], std::path::Path::new("/tmp/x"));
        assert!(driver.contains("addpath('/tmp/x');") && driver.contains("  main_000();"));
    }

    #[test]
    fn parses_driver_output() {
        let out = "P 0 L 1 a 3 4\nR 0 1\nP 0 L 2 b 2 3 1\nR 0 2\nP 0 L 2 b 3 3\nP 0 L 2 b 2 3\nE 0 3 Octave:nonconformant-args | operator +: nonconformant arguments\nP 1 L 1 x 1 1\nD 1\nnoise\n";
        let obs = parse_output(out, 2);
        assert_eq!(obs[0].sizes[&(1, "a".into())], vec![3, 4]);
        assert_eq!(obs[0].sizes[&(2, "b".into())], vec![2, 3]);
        assert_eq!(obs[0].seen[&(2, "b".into())], vec![vec![2, 3], vec![3, 3]]);
        assert_eq!(obs[0].ran, HashSet::from([1, 2]));
        let e = obs[0].error.as_ref().unwrap();
        assert_eq!((e.line, e.is_shape_error()), (3, true));
        assert!(!obs[0].finished && obs[1].finished && obs[1].error.is_none());
    }
}
