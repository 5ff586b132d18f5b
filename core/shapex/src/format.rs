//! Output formats of the CLI contract (`shapex check`): text lines and the JSON object
//! per file. Pure functions over a [`Report`], so tests and other front ends share them.
//!
//! The JSON field names are a contract other tools depend on: add fields freely, never
//! rename these.

use crate::report::{CheckStatus, Def, Report, Severity, SymbolNote, View};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize)]
struct FileJson<'a> {
    file: &'a str,
    lang: &'a str,
    /// The language's settings, each with the value the analysis used (MATLAB's
    /// `mode`); an object of their own, so no setting can collide with a field here.
    settings: &'a BTreeMap<String, String>,
    parse_ok: bool,
    diagnostics: Vec<DiagnosticJson<'a>>,
    statements: Vec<StatementJson<'a>>,
    /// The language's views that were asked for ([`Views`]), in tab order: what a
    /// language without statements (a graph, a lattice) has to say.
    views: Vec<&'a View>,
    /// The language's facts about the whole program ([`Report::facts`]), each a
    /// top-level field; one that would reuse a field above is left out.
    #[serde(flatten)]
    facts: BTreeMap<&'a str, &'a str>,
}

/// The fields of [`FileJson`] a fact may not take.
const CONTRACT: &[&str] = &[
    "file",
    "lang",
    "settings",
    "parse_ok",
    "diagnostics",
    "statements",
    "views",
];

/// Which of a report's views the JSON carries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Views {
    /// Every view the language filled.
    #[default]
    All,
    /// Only those with these ids (none when empty).
    Only(Vec<String>),
}

impl Views {
    /// `all`, `none`, or view ids separated by commas.
    pub fn parse(list: &str) -> Views {
        match list.trim() {
            "all" => Views::All,
            "none" | "" => Views::Only(Vec::new()),
            ids => Views::Only(ids.split(',').map(|id| id.trim().to_string()).collect()),
        }
    }

    fn keeps(&self, id: &str) -> bool {
        match self {
            Views::All => true,
            Views::Only(ids) => ids.iter().any(|i| i == id),
        }
    }
}

#[derive(Serialize)]
struct DiagnosticJson<'a> {
    severity: Severity,
    code: &'a str,
    message: &'a str,
    line: u32,
    col: u32,
    end_line: u32,
    end_col: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    help: Option<&'a str>,
    /// A suggested edit (added field; absent when there is none).
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<FixJson<'a>>,
}

#[derive(Serialize)]
struct FixJson<'a> {
    title: &'a str,
    replacement: &'a str,
    line: u32,
    col: u32,
    end_line: u32,
    end_col: u32,
}

#[derive(Serialize)]
struct StatementJson<'a> {
    line: u32,
    col: u32,
    end_line: u32,
    end_col: u32,
    kind: &'a str,
    defs: &'a [Def],
    check: CheckStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    condition: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'a str>,
    /// Present (and false) only for statements no execution reaches.
    #[serde(skip_serializing_if = "is_true")]
    reachable: bool,
    /// What the symbols in `defs` and `condition` (exact names) stand for, with the
    /// alias the text format and the app show them by; absent when there are none.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    symbols: &'a [SymbolNote],
    /// With `--witness`, for a run-time check or definite error: sizes under which it
    /// fails (and passes), and the edit that writes them into the file as a repro.
    #[serde(skip_serializing_if = "Option::is_none")]
    witness: Option<WitnessJson<'a>>,
}

#[derive(Serialize)]
struct WitnessJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    fails: Option<&'a BTreeMap<String, i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    passes: Option<&'a BTreeMap<String, i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    repro: Option<FixJson<'a>>,
}

fn fix_json(f: &crate::report::Fix) -> FixJson<'_> {
    FixJson {
        title: &f.title,
        replacement: &f.replacement,
        line: f.range.line,
        col: f.range.col,
        end_line: f.range.end_line,
        end_col: f.range.end_col,
    }
}

fn is_true(b: &bool) -> bool {
    *b
}

/// The per-file JSON value of the CLI contract, with the views `views` selects.
pub fn to_json_value(file: &str, report: &Report, views: &Views) -> serde_json::Value {
    let value = FileJson {
        views: report.views.iter().filter(|v| views.keeps(&v.id)).collect(),
        file,
        lang: &report.lang,
        settings: &report.settings,
        parse_ok: report.parse_ok,
        diagnostics: report
            .diagnostics
            .iter()
            .map(|d| DiagnosticJson {
                severity: d.severity,
                code: &d.code,
                message: &d.message,
                line: d.range.line,
                col: d.range.col,
                end_line: d.range.end_line,
                end_col: d.range.end_col,
                help: d.help.as_deref(),
                fix: d.fix.as_ref().map(fix_json),
            })
            .collect(),
        statements: report
            .statements
            .iter()
            .map(|s| StatementJson {
                line: s.range.line,
                col: s.range.col,
                end_line: s.range.end_line,
                end_col: s.range.end_col,
                kind: &s.kind,
                defs: &s.defs,
                check: s.check,
                condition: s.condition.as_deref(),
                rule: s.rule.as_deref(),
                reachable: !s.nonviable,
                symbols: &s.symbols,
                witness: s.witness.as_ref().map(|w| WitnessJson {
                    fails: w.fails.as_ref(),
                    passes: w.passes.as_ref(),
                    repro: w.repro.as_ref().map(fix_json),
                }),
            })
            .collect(),
        facts: report
            .facts
            .iter()
            .filter(|(k, _)| !CONTRACT.contains(&k.as_str()))
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect(),
    };
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}

/// `file:line:col: severity: message [code]`, one line per diagnostic, the message
/// showing the symbols the analysis minted by their aliases (`?₁`); each alias is
/// explained once, on an indented line after the first diagnostic that shows it
/// (`    where ?₁ = rows of c, known when line 12 runs`).
pub fn to_text(file: &str, report: &Report) -> String {
    let mut out = String::new();
    let mut explained: Vec<String> = Vec::new();
    let aliases = report.aliases();
    for d in &report.diagnostics {
        let message = aliases.aliased(&d.message, d.span);
        out.push_str(&format!(
            "{file}:{}:{}: {}: {} [{}]\n",
            d.range.line,
            d.range.col,
            d.severity.as_str(),
            message.text,
            d.code
        ));
        for l in message.legend {
            if !explained.contains(&l) {
                out.push_str(&format!("    where {l}\n"));
                explained.push(l);
            }
        }
    }
    for s in &report.statements {
        if let Some(w) = &s.witness {
            out.push_str(&format!(
                "{file}:{}:{}: witness: {}\n",
                s.range.line,
                s.range.col,
                w.text()
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Diagnostic, Range};
    use crate::Span;

    fn report_with_error() -> Report {
        let mut d = Diagnostic::error("syntax.unbalanced", "unbalanced bracket", Span::new(4, 5));
        d.range = Range {
            line: 2,
            col: 3,
            end_line: 2,
            end_col: 4,
        };
        Report {
            diagnostics: vec![d],
            ..Default::default()
        }
    }

    #[test]
    fn text_lines_follow_file_line_col_severity_message() {
        let text = to_text("a.m", &report_with_error());
        assert_eq!(
            text,
            "a.m:2:3: error: unbalanced bracket [syntax.unbalanced]\n"
        );
    }

    #[test]
    fn unreachable_statements_say_so_and_show_no_shapes() {
        let src = "n = 5;\nif n < 3\n  A = zeros(3,3);\nelseif n < 6\n  A = ones(3,3);\nelse\n  A = eye(3);\nend\n";
        let report = crate::analyze(src, &crate::Options::new("matlab"));
        let json = to_json_value("d.m", &report, &Views::All);
        let at = |line: u64| {
            json["statements"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["line"] == line)
                .cloned()
                .unwrap()
        };
        for dead in [3, 7] {
            let s = at(dead);
            assert_eq!(s["reachable"], false, "{s}");
            assert_eq!(s["defs"].as_array().map(Vec::len), Some(0), "{s}");
            assert_eq!(s["check"], "none", "{s}");
        }
        let live = at(5);
        assert!(live.get("reachable").is_none(), "{live}");
        assert_eq!(live["defs"][0]["display"], "<3,3>");
        let Some(crate::report::Payload::AnnotatedSource(checks)) = report.view("checks") else {
            panic!("MATLAB fills the Checks view: {:?}", report.views);
        };
        let checks = checks.render(src);
        assert!(checks.contains("% not reached"), "{checks}");
    }

    #[test]
    fn a_definite_error_cites_where_its_operands_came_from() {
        let src = "x = ones(3,2);\n\ny = rand(4);\nz = x * y;\n";
        let report = crate::analyze(src, &crate::Options::new("matlab"));
        let json = to_json_value("e.m", &report, &Views::All);
        let message = json["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            message.contains("x is <3,2> (line 1: x = ones(3,2))")
                && message.contains("y is <4,4> (line 3: y = rand(4))"),
            "{message}"
        );
    }

    #[test]
    fn json_has_the_contract_fields() {
        let v = to_json_value("a.m", &report_with_error(), &Views::All);
        for key in [
            "file",
            "lang",
            "settings",
            "parse_ok",
            "diagnostics",
            "statements",
            "views",
        ] {
            assert!(v.get(key).is_some(), "missing {key}");
        }
        let d = &v["diagnostics"][0];
        for key in [
            "severity", "code", "message", "line", "col", "end_line", "end_col",
        ] {
            assert!(d.get(key).is_some(), "missing diagnostics[].{key}");
        }
        assert_eq!(d["severity"], "error");
        assert_eq!(d["line"], 2);
        assert!(d.get("fix").is_none(), "no fix, no field: {d}");
    }

    #[test]
    fn views_are_chosen_by_id_and_settings_are_their_own_object() {
        let src = "a = ones(3,4);\nb = a';\n";
        let options = crate::Options::new("matlab").with("mode", "paper");
        let report = crate::analyze(src, &options);
        let ids = |v: &serde_json::Value| -> Vec<String> {
            v["views"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["id"].as_str().unwrap().to_string())
                .collect()
        };
        let all = to_json_value("v.m", &report, &Views::All);
        let filled: Vec<String> = report.views.iter().map(|v| v.id.clone()).collect();
        assert!(filled.contains(&"shapes".to_string()), "{filled:?}");
        assert_eq!(ids(&all), filled);
        assert_eq!(all["settings"]["mode"], "paper");
        assert!(
            all.get("mode").is_none(),
            "settings are not top-level fields"
        );
        let some = to_json_value("v.m", &report, &Views::parse("checks, ir"));
        assert_eq!(ids(&some), ["checks", "ir"]);
        assert!(filled.contains(&"values".to_string()), "{filled:?}");
        let values = to_json_value("v.m", &report, &Views::parse("values"));
        assert_eq!(ids(&values), ["values"]);
        assert_eq!(values["views"][0]["payload"]["kind"], "table");
        let none = to_json_value("v.m", &report, &Views::parse("none"));
        assert!(ids(&none).is_empty());
    }

    #[test]
    fn facts_are_top_level_fields_that_never_replace_the_contract() {
        let mut report = report_with_error();
        report.facts = [("result", "<~2, un>"), ("lang", "nope")]
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .into();
        report.lang = "vec".into();
        let json = to_json_value("f.vec", &report, &Views::All);
        assert_eq!(json["result"], "<~2, un>");
        assert_eq!(json["lang"], "vec");
    }

    #[test]
    fn a_suggested_fix_is_an_added_field_with_its_position() {
        let src = "a = ones(3,4);
c = a * a;
";
        let report = crate::analyze(src, &crate::Options::new("matlab"));
        let json = to_json_value("f.m", &report, &Views::All);
        let fix = &json["diagnostics"][0]["fix"];
        assert_eq!(fix["title"], "use element-wise .*");
        assert_eq!(fix["replacement"], ".*");
        assert_eq!(
            (&fix["line"], &fix["col"], &fix["end_line"], &fix["end_col"]),
            (&2.into(), &7.into(), &2.into(), &8.into())
        );
    }
}
