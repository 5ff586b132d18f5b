//! The CLI's JSON contract, pinned to the README: the example object documented under
//! "Command line" is parsed from README.md, and the real output for a program of the
//! same kind must have every field the example shows, with the same JSON type, down to
//! the first element of every array. Fields may be added; none may be renamed or change
//! type without this test (and the README) changing.

use serde_json::Value;
use shapex::{analyze, format, Options};

fn readme_example() -> Value {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md at the repository root");
    let section = &readme[readme
        .find("## Command line")
        .expect("a Command line section")..];
    let start = section.find("```json\n").expect("a json example") + "```json\n".len();
    let end = start + section[start..].find("```").expect("closing fence");
    serde_json::from_str(&section[start..end]).expect("the README example is valid JSON")
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Every field of `doc` is in `real` with the same type (arrays: their first elements).
fn conforms(doc: &Value, real: &Value, path: &str, problems: &mut Vec<String>) {
    if kind(doc) != kind(real) {
        problems.push(format!(
            "{path}: README has {}, output has {}",
            kind(doc),
            kind(real)
        ));
        return;
    }
    match (doc, real) {
        (Value::Object(d), Value::Object(r)) => {
            for (k, dv) in d {
                match r.get(k) {
                    Some(rv) => conforms(dv, rv, &format!("{path}.{k}"), problems),
                    None => problems.push(format!("{path}.{k}: missing from the output")),
                }
            }
        }
        (Value::Array(d), Value::Array(r)) => {
            for (i, dv) in d.iter().enumerate() {
                match r.get(i) {
                    Some(rv) => conforms(dv, rv, &format!("{path}[{i}]"), problems),
                    None => problems.push(format!("{path}[{i}]: output array too short")),
                }
            }
        }
        _ => {}
    }
}

/// The README example's program: `c = a*b` with a symbolic extent, needing a run-time
/// check, on line 3 — and a definite error to fill `diagnostics`.
const PROGRAM: &str = "a = ones(3,2);\nb = ones(k,n);\nc = a*b;\nd = ones(3,2) * ones(4,4);\n";

#[test]
fn json_output_has_every_field_the_readme_documents() {
    let unknowns = "k = numel(input(''));\nn = numel(input(''));\n";
    let report = analyze(&format!("{unknowns}{PROGRAM}"), &Options::new("matlab"));
    let real = format::to_json_value("a.m", &report, &format::Views::All);
    // Compare statement `c = a*b` with the README's single statement.
    let mut real_one = real.clone();
    let c = real["statements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["defs"][0]["name"] == "c")
        .cloned()
        .expect("a statement defining c");
    real_one["statements"] = Value::Array(vec![c.clone()]);
    let mut problems = Vec::new();
    conforms(&readme_example(), &real_one, "$", &mut problems);
    assert!(
        problems.is_empty(),
        "{}\n\noutput: {real:#}",
        problems.join("\n")
    );
    // And the values mean what the README says.
    assert_eq!(real["lang"], "matlab");
    assert_eq!(real["settings"]["mode"], "modern");
    assert_eq!(c["check"], "runtime");
    assert_eq!(c["defs"][0]["shape"]["dims"][0], 3);
    assert!(
        c["defs"][0]["shape"]["dims"][1].is_string(),
        "a symbolic extent"
    );
    assert_eq!(real["diagnostics"][0]["code"], "shape.mtimes");
    assert_eq!(real["diagnostics"][0]["line"], 6);
    let d = real["statements"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(d["defs"][0]["shape"], serde_json::json!({"illegal": true}));
    assert_eq!(d["check"], "error");
}

#[test]
fn the_conformance_check_catches_a_renamed_field() {
    let doc = serde_json::json!({"file": "a.m", "statements": [{"line": 1, "check": "none"}]});
    let renamed = serde_json::json!({"file": "a.m", "statements": [{"line": 1, "status": "none"}]});
    let retyped =
        serde_json::json!({"file": "a.m", "statements": [{"line": "1", "check": "none"}]});
    for bad in [renamed, retyped] {
        let mut problems = Vec::new();
        conforms(&doc, &bad, "$", &mut problems);
        assert_eq!(problems.len(), 1, "{problems:?}");
    }
}
