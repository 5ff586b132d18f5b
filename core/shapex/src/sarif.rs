//! SARIF 2.1.0 (OASIS) from Reports, for code-scanning tools (`shapex check --format
//! sarif`): one log, one run, every file's diagnostics as results of the rule named by
//! their code, and each statement's shape check — proven, or left to run time — as a
//! result of kind `pass` or `open` (level `none`: not a problem, what the analysis
//! concluded), so a viewer that shows them can. Pure: the CLI gathers the files' results
//! and the rules' help texts (`shapex explain`) and prints the log.

use crate::report::{CheckStatus, Report, Severity};
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// The schema a log names (tests validate against the copy in `tests/sarif/`).
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The rule of a statement's check the analysis proved, and of one left to run time.
pub const PROVEN: &str = "check.proven";
pub const RUNTIME: &str = "check.runtime";

/// One file's results: its diagnostics, then its statements' checks.
pub fn results(file: &str, report: &Report) -> Vec<Value> {
    let uri = uri(file);
    let aliases = report.aliases();
    let mut out = Vec::new();
    for d in &report.diagnostics {
        let message = aliases.aliased(&d.message, d.span);
        let mut text = message.text;
        for l in message.legend {
            text.push_str(&format!("\nwhere {l}"));
        }
        if let Some(help) = &d.help {
            text.push_str(&format!("\n{help}"));
        }
        let r = d.range;
        out.push(json!({
            "ruleId": d.code,
            "level": level(d.severity),
            "message": { "text": text },
            "locations": [location(&uri, r.line, r.col, r.end_line, r.end_col)],
        }));
    }
    for s in &report.statements {
        let (rule, kind, words) = match s.check {
            CheckStatus::Proven if !s.nonviable => (PROVEN, "pass", "proven"),
            CheckStatus::Runtime if !s.nonviable => (RUNTIME, "open", "run-time check"),
            _ => continue,
        };
        let mut text = format!("{words}: {}", s.condition.as_deref().unwrap_or("true"));
        if let Some(applied) = &s.rule {
            text.push_str(&format!(" (rule: {applied})"));
        }
        let r = s.range;
        out.push(json!({
            "ruleId": rule,
            "kind": kind,
            "level": "none",
            "message": { "text": text },
            "locations": [location(&uri, r.line, r.col, r.end_line, r.end_col)],
        }));
    }
    out
}

/// The rule ids `results` use, each once, in order.
pub fn rule_ids(results: &[Value]) -> BTreeSet<String> {
    results
        .iter()
        .filter_map(|r| r["ruleId"].as_str().map(str::to_string))
        .collect()
}

/// The whole log: the tool (its version and rules, each with `help` from `explain`)
/// and the results of every file, in order.
pub fn log(version: &str, results: Vec<Value>, explain: impl Fn(&str) -> Option<String>) -> Value {
    let rules: Vec<Value> = rule_ids(&results)
        .into_iter()
        .map(|id| {
            let help = match id.as_str() {
                PROVEN => Some(
                    "The statement's shape condition holds on every run that reaches it."
                        .to_string(),
                ),
                RUNTIME => Some(
                    "The statement's shape condition depends on sizes known only at run time: MATLAB checks it then."
                        .to_string(),
                ),
                _ => explain(&id),
            };
            // The first sentence (`§2.11` and `e.g.` have no space after their dot).
            let short = help
                .as_deref()
                .and_then(|h| h.split('\n').next())
                .map(|h| h.split(". ").next().unwrap_or(h).trim_end_matches('.'))
                .filter(|s| !s.trim().is_empty())
                .unwrap_or(&id)
                .trim()
                .to_string();
            let mut rule = json!({ "id": id, "shortDescription": { "text": short } });
            if let Some(help) = help {
                rule["help"] = json!({ "text": help });
                rule["fullDescription"] = json!({ "text": rule["help"]["text"] });
            }
            rule
        })
        .collect();
    let index: Vec<String> = rules
        .iter()
        .map(|r| r["id"].as_str().unwrap_or_default().to_string())
        .collect();
    let results: Vec<Value> = results
        .into_iter()
        .map(|mut r| {
            let id = r["ruleId"].as_str().unwrap_or_default();
            if let Some(i) = index.iter().position(|x| x == id) {
                r["ruleIndex"] = json!(i);
            }
            r
        })
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "shapex",
                "fullName": "Shape Explorer",
                "version": version,
                "rules": rules,
            }},
            // Our columns count characters, not UTF-16 units.
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A region of a file (SARIF lines and columns start at 1; an empty region ends where
/// it starts).
fn location(uri: &str, line: u32, col: u32, end_line: u32, end_col: u32) -> Value {
    let (line, col) = (line.max(1), col.max(1));
    let (end_line, end_col) = if (end_line, end_col) < (line, col) {
        (line, col)
    } else {
        (end_line, end_col.max(1))
    };
    json!({ "physicalLocation": {
        "artifactLocation": { "uri": uri },
        "region": { "startLine": line, "startColumn": col, "endLine": end_line, "endColumn": end_col },
    }})
}

/// A file name as a relative URI reference: `/` separators, and every byte outside
/// the unreserved characters and `/` percent-encoded (`my file.m` → `my%20file.m`).
pub fn uri(file: &str) -> String {
    let slashed = file.replace('\\', "/");
    let slashed = slashed.strip_prefix("./").unwrap_or(&slashed);
    let mut out = String::new();
    for b in slashed.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_uri_references() {
        assert_eq!(uri("./a b/ü.m"), "a%20b/%C3%BC.m");
        assert_eq!(uri("<stdin>"), "%3Cstdin%3E");
        assert_eq!(uri("dir\\f.m"), "dir/f.m");
    }

    #[test]
    fn diagnostics_and_checks_are_results_of_their_rules() {
        let options = crate::Options::new("matlab");
        let report = crate::analyze("a = ones(3, 4);\nb = a * a;\nc = a + 1;\n", &options);
        let results = results("x.m", &report);
        let ids = rule_ids(&results);
        assert!(ids.iter().any(|i| i.starts_with("shape.mtimes")), "{ids:?}");
        let log = log("0.1.0", results, |c| Some(format!("help of {c}")));
        let run = &log["runs"][0];
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        let error = run["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["level"] == "error")
            .unwrap();
        assert_eq!(
            error["locations"][0]["physicalLocation"]["region"]["startLine"],
            2
        );
        let i = error["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[i]["id"], error["ruleId"]);
        assert!(rules[i]["help"]["text"]
            .as_str()
            .unwrap()
            .starts_with("help of shape.mtimes"));
    }
}
