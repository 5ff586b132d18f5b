//! The per-builtin Octave differential's call forms (`tests/builtin-calls.txt`, issue
//! #24 item 2): which arguments each builtin of the table is called with, and the
//! small programs that call it — one variable per array argument, then the call — to
//! run in Octave and to analyse.

use crate::octave::{assigned_names, DiffProgram, DiffStmt};
use std::collections::HashMap;

/// The call forms file.
pub const CALLS: &str = include_str!("../builtin-calls.txt");

/// What the file says of one builtin or category.
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    /// Argument lists, each tried with 1 to `outputs` outputs.
    Forms {
        forms: Vec<Vec<String>>,
        outputs: usize,
    },
    Skip(String),
}

/// The file parsed: builtin specs and category specs.
#[derive(Default)]
pub struct Calls {
    pub builtins: HashMap<String, Spec>,
    pub categories: HashMap<String, Spec>,
    /// Where MATLAB and Octave differ (our rules follow MATLAB): builtin → the text of
    /// an argument value whose calls are not compared, and why.
    pub differs: HashMap<String, Vec<(String, String)>>,
}

impl Calls {
    /// Why a call of `builtin` in `source` is not compared, if it is a known difference.
    pub fn difference(&self, builtin: &str, source: &str) -> Option<&str> {
        self.differs
            .get(builtin)?
            .iter()
            .find(|(value, _)| source.contains(value.as_str()))
            .map(|(_, why)| why.as_str())
    }
}

/// Parses the call forms text; a malformed line is an error naming it.
pub fn parse(text: &str) -> Result<Calls, String> {
    let mut calls = Calls::default();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (head, rest) = line
            .split_once(':')
            .ok_or_else(|| format!("line {}: no `:`", i + 1))?;
        let mut words: Vec<&str> = head.split_whitespace().collect();
        let category = words.first() == Some(&"category");
        if category {
            words.remove(0);
        }
        if let [name, "differs"] = words.as_slice() {
            let (value, why) = rest
                .split_once(" -- ")
                .ok_or_else(|| format!("line {}: `differs: VALUE -- WHY`", i + 1))?;
            calls
                .differs
                .entry(name.to_string())
                .or_default()
                .push((value.trim().to_string(), why.trim().to_string()));
            continue;
        }
        let (name, skip) = match words.as_slice() {
            [name] => (*name, false),
            [name, "skip"] => (*name, true),
            _ => return Err(format!("line {}: bad head `{head}`", i + 1)),
        };
        let (name, outputs) = match name.split_once('/') {
            Some((n, k)) => (
                n,
                k.parse()
                    .map_err(|_| format!("line {}: bad `/OUT`", i + 1))?,
            ),
            None => (name, 1),
        };
        let spec = if skip {
            Spec::Skip(rest.trim().to_string())
        } else {
            Spec::Forms {
                forms: rest.split('|').map(split_args).collect(),
                outputs,
            }
        };
        let map = if category {
            &mut calls.categories
        } else {
            &mut calls.builtins
        };
        if map.insert(name.to_string(), spec).is_some() {
            return Err(format!("line {}: `{name}` twice", i + 1));
        }
    }
    Ok(calls)
}

/// A form's arguments, split at top-level commas.
fn split_args(form: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quoted = false;
    let mut cur = String::new();
    for c in form.chars() {
        match c {
            '\'' => quoted = !quoted,
            '(' | '[' | '{' if !quoted => depth += 1,
            ')' | ']' | '}' if !quoted => depth -= 1,
            ',' if depth == 0 && !quoted => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// The values a kind draws from; `None` for text written as is.
pub fn pool(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "A" => &[
            "zeros(0, 0)",
            "7",
            "rand(1, 4)",
            "rand(4, 1)",
            "rand(3, 4)",
            "rand(2, 3, 2)",
            "zeros(0, 3)",
        ],
        "V" => &["rand(1, 4)", "rand(4, 1)", "7", "zeros(1, 0)"],
        "M" => &[
            "rand(3, 4)",
            "rand(4, 3)",
            "rand(3, 3)",
            "7",
            "zeros(0, 0)",
            "rand(1, 4)",
        ],
        "S" => &["rand(3, 3)", "7", "zeros(0, 0)", "rand(2, 2)"],
        "I" => &[
            "randi(5, 1, 4)",
            "randi(5, 4, 1)",
            "randi(5, 3, 4)",
            "3",
            "zeros(1, 0)",
        ],
        "B" => &[
            "rand(3, 4) > 0.5",
            "true",
            "rand(1, 4) > 0.5",
            "false(0, 0)",
        ],
        "T" => &["'abc'", "'a'", "''", "'hello world'"],
        "C" => &["{'a', 'bb'}", "{'a'; 'bb'}", "{}", "{'x'}"],
        "N" => &["0", "1", "2", "3", "4"],
        "P" => &["1", "2", "3", "4"],
        "D" => &["1", "2", "3"],
        "H" => &["@sin"],
        _ => return None,
    })
}

/// Whether values of `kind` are written in the call itself (so the analysis sees
/// them as constants) rather than in a variable.
fn inline(kind: &str) -> bool {
    matches!(kind, "N" | "P" | "D" | "H")
}

/// One call of a builtin: the program and its name.
pub struct Case {
    pub builtin: String,
    pub program: DiffProgram,
}

/// Every choice of values for `form` (the cross product of its kinds' pools), in order.
pub fn choices(form: &[String]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![vec![]];
    for arg in form {
        let options: Vec<String> = match pool(arg) {
            Some(p) => p.iter().map(|s| s.to_string()).collect(),
            None => expand_inline(arg),
        };
        out = out
            .into_iter()
            .flat_map(|prefix| {
                options.iter().map(move |o| {
                    let mut v = prefix.clone();
                    v.push(o.clone());
                    v
                })
            })
            .collect();
    }
    out
}

/// Text with kind letters inside (`[N P]`): the i-th choice puts the i-th value of
/// each letter's pool in its place.
fn expand_inline(arg: &str) -> Vec<String> {
    let words: Vec<&str> = arg
        .split_inclusive(|c: char| !c.is_ascii_alphanumeric())
        .collect();
    let letter = |w: &str| {
        let word = w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
        (matches!(word, "N" | "P") && !arg.contains('\'')).then_some(word.len())
    };
    if !words.iter().any(|w| letter(w).is_some()) {
        return vec![arg.to_string()];
    }
    (0..4)
        .map(|i| {
            words
                .iter()
                .map(|w| match letter(w) {
                    Some(n) => {
                        let values = pool(&w[..n]).unwrap_or(&[]);
                        format!("{}{}", values[i.min(values.len() - 1)], &w[n..])
                    }
                    None => w.to_string(),
                })
                .collect()
        })
        .collect()
}

/// The program calling `builtin` with `values` (drawn for `form`) and `outputs`
/// outputs: each array in a variable of its own line, then the call.
pub fn program(
    builtin: &str,
    form: &[String],
    values: &[String],
    outputs: usize,
    name: &str,
) -> DiffProgram {
    let mut lines = Vec::new();
    let mut args = Vec::new();
    for (k, (kind, value)) in form.iter().zip(values).enumerate() {
        if pool(kind).is_some() && !inline(kind) {
            lines.push(format!("x{} = {value};", k + 1));
            args.push(format!("x{}", k + 1));
        } else {
            args.push(value.clone());
        }
    }
    let targets: Vec<String> = (1..=outputs).map(|k| format!("r{k}")).collect();
    lines.push(format!(
        "[{}] = {builtin}({});",
        targets.join(", "),
        args.join(", ")
    ));
    let source: String = lines.iter().map(|l| format!("{l}\n")).collect();
    // Statements one per line and no comments: `DiffProgram::from_source` without the
    // language's lexical facts (which cost an analyser per program).
    let stmts = lines
        .iter()
        .enumerate()
        .map(|(i, code)| DiffStmt {
            line: i as u32 + 1,
            code: code.clone(),
            assigns: assigned_names(code),
        })
        .collect();
    DiffProgram {
        name: name.to_string(),
        source,
        stmts,
    }
}
