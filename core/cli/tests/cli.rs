//! The `shapex` CLI contract: formats, directory recursion, stdin, exit codes.
#![cfg(not(target_arch = "wasm32"))]

use std::io::Write;
use std::process::{Command, Stdio};

fn shapex(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shapex"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn shapex");
    // A usage error exits before reading stdin: a closed pipe is no failure here.
    let written = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    if let Err(e) = written {
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe,
            "writing stdin: {e}"
        );
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("shapex-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    dir
}

#[test]
fn clean_file_exits_zero_and_reports_json_contract() {
    let (code, out, _) = shapex(
        &["check", "--lang", "matlab", "--format", "json", "-"],
        "x = 1;\ny = x + 2;\n",
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["file"], "<stdin>");
    assert_eq!(v["lang"], "matlab");
    assert_eq!(v["parse_ok"], true);
    assert!(v["diagnostics"].as_array().unwrap().is_empty());
    assert_eq!(v["statements"].as_array().unwrap().len(), 2);
    assert_eq!(v["statements"][1]["line"], 2);
    assert_eq!(v["statements"][1]["kind"], "assign");
}

#[test]
fn syntax_error_exits_one_with_file_line_col_text() {
    let (code, out, _) = shapex(
        &["check", "--lang", "matlab", "-"],
        "a = 1;\nb = (a + 2;\nc = 3;\n",
    );
    assert_eq!(code, 1, "stdout: {out}");
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("<stdin>:2:"), "got {first}");
    assert!(first.contains(": error: "), "got {first}");
}

#[test]
fn directories_recurse_into_m_files_and_jsonl_has_one_line_each() {
    let dir = temp_dir("dir");
    std::fs::write(dir.join("a.m"), "x = 1;\n").unwrap();
    std::fs::write(dir.join("sub/b.m"), "y = [1 2];\n").unwrap();
    std::fs::write(dir.join("notes.txt"), "not matlab (\n").unwrap();
    let (code, out, _) = shapex(&["check", "--format", "jsonl", dir.to_str().unwrap()], "");
    assert_eq!(code, 0, "{out}");
    let files: Vec<String> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["file"].to_string())
        .collect();
    assert_eq!(files.len(), 2, "{out}");
    assert!(files[0].ends_with("a.m\"") && files[1].ends_with("b.m\""));
}

#[test]
fn usage_and_io_errors_exit_two() {
    assert_eq!(shapex(&["check"], "").0, 2);
    assert_eq!(shapex(&["frobnicate"], "").0, 2);
    let (code, _, err) = shapex(&["check", "/no/such/file.m"], "");
    assert_eq!(code, 2);
    assert!(err.contains("/no/such/file.m"));
}

#[test]
fn languages_come_from_the_registry_and_options_are_generic() {
    let (code, out, _) = shapex(&["languages"], "");
    assert_eq!(code, 0);
    let matlab = out
        .lines()
        .find(|l| l.starts_with("matlab\t"))
        .expect("MATLAB is registered");
    assert!(
        matlab.contains(".m") && matlab.contains("mode=modern|paper"),
        "{matlab}"
    );
    // `--set mode=paper`: strict MATLAB 5 rejects broadcasting. No option is
    // MATLAB's alone: `--mode` is not one.
    let src = "a = ones(3,1) + ones(1,3);\n";
    let (modern, _, _) = shapex(&["check", "--lang", "matlab", "-"], src);
    let (paper, out, _) = shapex(
        &["check", "--lang", "matlab", "--set", "mode=paper", "-"],
        src,
    );
    assert_eq!((modern, paper), (0, 1), "{out}");
    assert_eq!(shapex(&["check", "--mode", "paper", "-"], src).0, 2);
    let (code, _, err) = shapex(&["check", "--lang", "cobol", "-"], src);
    assert_eq!(code, 2);
    assert!(err.contains("unknown language `cobol`"), "{err}");
}

#[test]
fn no_input_is_taken_as_some_language_by_default() {
    // stdin has no extension: its language must be named.
    let (code, out, err) = shapex(&["check", "-"], "x = 1;\n");
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains("--lang") && err.contains("matlab (.m)"),
        "{err}"
    );
    // Nor is a file whose extension no language claims.
    let dir = temp_dir("unknown-ext");
    let txt = dir.join("notes.txt");
    std::fs::write(&txt, "x = 1;\n").unwrap();
    let (code, _, err) = shapex(&["check", txt.to_str().unwrap()], "");
    assert_eq!(code, 2);
    assert!(err.contains("notes.txt") && err.contains("--lang"), "{err}");
    // Named, it is analysed.
    let (code, out, _) = shapex(&["check", "--lang", "matlab", txt.to_str().unwrap()], "");
    assert_eq!(code, 0, "{out}");
}

#[test]
fn explain_prints_a_codes_explanation() {
    let (code, out, _) = shapex(&["explain", "shape.mtimes"], "");
    assert_eq!(code, 0);
    assert!(
        out.starts_with("shape.mtimes: ") && out.contains("columns"),
        "{out}"
    );
    assert_eq!(shapex(&["explain", "no.such.code"], "").0, 2);
}

fn jsonl_files(out: &str) -> Vec<String> {
    out.lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["file"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[cfg(unix)]
#[test]
fn a_link_to_a_parent_folder_is_not_followed_and_no_file_is_reported_twice() {
    let dir = temp_dir("loop");
    std::fs::write(dir.join("a.m"), "x = 1;\n").unwrap();
    std::fs::write(dir.join("sub/b.m"), "y = [1 2];\n").unwrap();
    // sub/up -> .. (the folder's parent: a loop), top -> . (itself), c.m -> a.m (a file).
    std::os::unix::fs::symlink("..", dir.join("sub/up")).unwrap();
    std::os::unix::fs::symlink(".", dir.join("top")).unwrap();
    std::os::unix::fs::symlink("a.m", dir.join("c.m")).unwrap();
    for jobs in ["1", "2"] {
        let (code, out, err) = shapex(
            &[
                "check",
                "--jobs",
                jobs,
                "--format",
                "jsonl",
                dir.to_str().unwrap(),
            ],
            "",
        );
        assert_eq!(code, 0, "{out}{err}");
        let d = dir.display();
        // c.m is a.m through a link: the same file, reported once under its first name.
        assert_eq!(
            jsonl_files(&out),
            [format!("{d}/a.m"), format!("{d}/sub/b.m")],
            "{out}"
        );
    }
    // Given on the command line, a link to a folder is walked (once).
    let (code, out, _) = shapex(
        &[
            "check",
            "--format",
            "jsonl",
            dir.join("top").to_str().unwrap(),
        ],
        "",
    );
    assert_eq!((code, jsonl_files(&out).len()), (0, 2), "{out}");
}

#[test]
fn a_file_given_twice_or_also_inside_a_given_folder_is_reported_once() {
    let dir = temp_dir("dup");
    std::fs::write(dir.join("a.m"), "x = 1;\n").unwrap();
    std::fs::write(dir.join("sub/b.m"), "y = [1 2];\n").unwrap();
    let a = dir.join("a.m");
    let a2 = dir.join("sub/../a.m");
    let args = [
        "check",
        "--format",
        "jsonl",
        a.to_str().unwrap(),
        a.to_str().unwrap(),
        a2.to_str().unwrap(),
        dir.to_str().unwrap(),
        "-",
        "-",
        "--lang",
        "matlab",
    ];
    let (code, out, err) = shapex(&args, "z = 3;\n");
    assert_eq!(code, 0, "{out}{err}");
    let d = dir.display();
    // In command-line order, each once under the first name that reached it.
    assert_eq!(
        jsonl_files(&out),
        [
            format!("{d}/a.m"),
            format!("{d}/sub/b.m"),
            "<stdin>".to_string()
        ]
    );
}

/// Files of very different sizes, so threads finish out of order.
fn many_files(name: &str) -> std::path::PathBuf {
    let dir = temp_dir(name);
    for i in 0..24 {
        let sub = if i % 3 == 0 { "sub/" } else { "" };
        let body: String = (0..(i * 37) % 200)
            .map(|k| format!("v{k} = ones({}, {k} + 1);\n", i + 1))
            .collect();
        // Every fifth file has a definite error.
        let bad = if i % 5 == 0 {
            "e = ones(2,3) * ones(2,3);\n"
        } else {
            ""
        };
        std::fs::write(dir.join(format!("{sub}f{i:02}.m")), body + bad).unwrap();
    }
    dir
}

#[test]
fn output_is_the_same_in_the_same_order_whatever_the_number_of_jobs() {
    let dir = many_files("order");
    let d = dir.to_str().unwrap();
    for format in ["text", "json", "jsonl"] {
        let one = shapex(&["check", "--jobs", "1", "--format", format, d], "");
        let two = shapex(&["check", "--jobs", "2", "--format", format, d], "");
        let many = shapex(&["check", "-j", "7", "--format", format, d], "");
        assert_eq!(one.0, 1, "{format}: {}", one.1);
        assert_eq!(one, two, "{format}");
        assert_eq!(one, many, "{format}");
        // Not a terminal: no progress bar, nothing on stderr.
        assert_eq!(one.2, "", "{format}");
    }
    let (_, out, _) = shapex(&["check", "--format", "jsonl", d], "");
    let files = jsonl_files(&out);
    let mut sorted = files.clone();
    sorted.sort_by(|a, b| std::path::Path::new(a).cmp(std::path::Path::new(b)));
    assert_eq!(files.len(), 24);
    assert_eq!(files, sorted);
    assert_eq!(shapex(&["check", "--jobs", "0", d], "").0, 2);
}

#[test]
fn json_for_several_files_is_the_array_of_each_files_own_json() {
    let dir = many_files("json");
    let mut files: Vec<_> = ["f01.m", "f05.m", "sub/f03.m"]
        .iter()
        .map(|f| dir.join(f).to_str().unwrap().to_string())
        .collect();
    files.sort();
    let mut args = vec!["check", "--format", "json"];
    args.extend(files.iter().map(String::as_str));
    let (code, out, _) = shapex(&args, "");
    assert_eq!(code, 1, "f05.m has an error");
    let all: serde_json::Value = serde_json::from_str(&out).unwrap();
    let each: Vec<serde_json::Value> = files
        .iter()
        .map(|f| serde_json::from_str(&shapex(&["check", "--format", "json", f], "").1).unwrap())
        .collect();
    assert_eq!(all, serde_json::Value::Array(each));
    // A file that cannot be read stops the run with status 2 and prints no results.
    let mut args = vec!["check", "--jobs", "2", files[0].as_str(), "/no/such/file.m"];
    args.extend(files.iter().map(String::as_str));
    let (code, out, err) = shapex(&args, "");
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.starts_with("shapex: /no/such/file.m: "), "{err}");
}

fn t_fixture(name: &str) -> String {
    format!(
        "{}/../../tests/fixtures/t/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn language_t_checks_from_its_extension_or_lang_with_the_usual_json() {
    let path = t_fixture("sec2_motivation.t");
    let (code, out, err) = shapex(&["check", "--format", "json", &path], "");
    assert_eq!(code, 1, "a size error: {out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["lang"], "t");
    assert_eq!(v["parse_ok"], true);
    let diags = v["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1, "{out}");
    assert_eq!(diags[0]["severity"], "error");
    assert_eq!(diags[0]["code"], "t.size");
    assert_eq!(diags[0]["line"], 9);
    let statements = v["statements"].as_array().unwrap();
    assert_eq!(statements.len(), 2);
    assert_eq!(statements[1]["check"], "error");
    assert_eq!(v["views"][0]["id"], "extent-graph");
    assert_eq!(v["views"][0]["payload"]["kind"], "graph");

    let source = std::fs::read_to_string(&path).unwrap();
    let (code, stdin_out, _) = shapex(
        &[
            "check", "--lang", "t", "--format", "json", "--views", "none", "-",
        ],
        &source,
    );
    assert_eq!(code, 1);
    let w: serde_json::Value = serde_json::from_str(&stdin_out).unwrap();
    assert_eq!(w["diagnostics"], v["diagnostics"]);
    assert!(w["views"].as_array().unwrap().is_empty());

    let (code, out, _) = shapex(&["explain", "t.size"], "");
    assert_eq!(code, 0);
    assert!(out.starts_with("t.size: "), "{out}");
}

#[test]
fn graph_prints_figure_2_as_dot_svg_and_json() {
    let path = t_fixture("fig2.t");
    let (code, dot, err) = shapex(&["graph", "--format", "dot", &path], "");
    assert_eq!(code, 0, "{err}");
    assert!(dot.starts_with("digraph \"extent-graph\" {"), "{dot}");
    let vertices = dot.lines().filter(|l| l.contains(", fillcolor=")).count();
    assert_eq!(vertices, 22, "{dot}");
    assert!(dot.contains("label=\"R@clear_vector\""), "{dot}");
    assert!(dot.contains("fillcolor="), "{dot}");

    let (code, svg, _) = shapex(&["graph", "--format", "svg", &path], "");
    assert_eq!(code, 0);
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<g class=\"vertex\"").count(), 22);

    let (code, json, _) = shapex(&["graph", "--format", "json", &path], "");
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["lang"], "t");
    let g = &v["graphs"][0];
    assert_eq!(g["view"], "extent-graph");
    assert_eq!(g["kind"], "graph");
    assert_eq!(g["vertices"].as_array().unwrap().len(), 22);
    assert_eq!(g["classes"].as_array().unwrap().len(), 4);
    assert_eq!(g["drawing"]["positions"].as_array().unwrap().len(), 22);
    assert!(g["steps"].as_array().unwrap().len() > 10);
    // Each vertex says what it stands for and where (issue #20 item 7).
    let vs = g["vertices"].as_array().unwrap();
    assert!(vs[1]["line"].is_u64() && vs[1]["end_col"].is_u64());
    let head = vs
        .iter()
        .find(|v| v["label"] == "current_row.1@while")
        .unwrap();
    assert_eq!(
        (&head["variable"], &head["dimension"]),
        (&serde_json::json!("current_row"), &serde_json::json!(1))
    );
    assert!(vs
        .iter()
        .any(|v| v["extent"] == "S" && v["mark"] == "checked"));
    assert!(!vs.iter().any(|v| v["mark"] == "conflict"));
    // DOT and SVG outline the checked vertices.
    assert!(dot.contains("penwidth=2.5"), "{dot}");
}

#[test]
fn graph_is_generic_over_languages_and_refuses_what_has_no_graph() {
    // MATLAB's call graph, through the same command.
    let (code, dot, err) = shapex(
        &["graph", "--lang", "matlab", "-"],
        "function y = f(x)\ny = g(x);\nend\nfunction z = g(x)\nz = x;\nend\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(dot.starts_with("digraph \"callgraph\""), "{dot}");
    let (code, _, err) = shapex(&["graph", "--lang", "t", "--view", "nope", "-"], "");
    assert_eq!(code, 2);
    assert!(err.contains("no graph view `nope`"), "{err}");
    let (code, _, err) = shapex(&["graph", "-"], "x = 1;");
    assert_eq!(code, 2);
    assert!(err.contains("--lang"), "{err}");
}

#[test]
fn migrate_answers_the_three_questions_as_json_and_text() {
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/py");
    // Migeed et al. 2024, Listing 2: no static migration, the two convolutions conflict.
    let listing2 = format!("{fixtures}/listing2_conv.py");
    let (code, out, err) = shapex(&["migrate", "--format", "json", &listing2], "");
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(j["well_typed"], true);
    assert_eq!(j["output"], "TensorType((Dyn, 2, Dyn, Dyn))");
    assert_eq!(j["static_migration"]["answer"], "unsat");
    assert_eq!(j["conflict"].as_array().map(Vec::len), Some(2), "{out}");
    assert!(j["constrained"].is_null());
    // Constraints make Q2; a model named on the command line is the one checked.
    let src = "import torch.nn as nn\nclass A(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(12, 2)\n    def forward(self, x):\n        return self.fc(x.flatten(1))\nclass B(nn.Module):\n    def forward(self, x):\n        return x\n";
    let (code, out, err) = shapex(
        &[
            "migrate",
            "--format",
            "json",
            "--lang",
            "py",
            "--model",
            "A",
            "--constraint",
            "rank(x) == 3",
            "--constraint",
            "x.shape[1] >= 3",
            "-",
        ],
        src,
    );
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(j["class"], "A");
    // A whole Dyn takes the highest rank first (4, the paper's bound).
    assert_eq!(
        j["static_migration"]["declarations"]["x"],
        "TensorType((1, 1, 1, 12))"
    );
    assert_eq!(
        j["constrained"]["declarations"]["x"], "TensorType((1, 3, 4))",
        "{out}"
    );
    // Text for a person; a language without the questions is refused.
    let (code, text, _) = shapex(&["migrate", &listing2], "");
    assert_eq!(code, 0);
    assert!(
        text.starts_with("Q1 Is there a static migration? no"),
        "{text}"
    );
    let (code, _, err) = shapex(&["migrate", "--lang", "matlab", "-"], "x = 1;\n");
    assert_eq!(code, 2);
    assert!(err.contains("no migration questions"), "{err}");
}

/// `shapex share` prints the link the app's Share makes: it decodes to the file's
/// text, name, language, settings and view; a view the language lacks, or stdin with
/// no language, is a usage error.
#[test]
fn share_prints_a_link_that_carries_the_file_and_its_view() {
    let dir = temp_dir("share");
    let file = dir.join("repro.m");
    let text = "A = ones(3, 4);\nC = A * A;  % ü\n";
    std::fs::write(&file, text).unwrap();
    let path = file.to_str().unwrap();
    let (code, out, err) = shapex(
        &[
            "share",
            "--view",
            "ir",
            "--set",
            "mode=paper",
            "--base",
            "https://x.org/p/",
            path,
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let (base, fragment) = out.trim().split_once('#').expect("a fragment");
    assert_eq!(base, "https://x.org/p/");
    let state = shapex_share::link::decode(fragment).expect("the link decodes");
    assert_eq!(
        (
            state.code.as_str(),
            state.name.as_str(),
            state.lang.as_str()
        ),
        (text, "repro.m", "matlab")
    );
    assert_eq!(state.view, "ir");
    assert_eq!(
        state.settings.get("mode").map(String::as_str),
        Some("paper")
    );
    // By default, the language's first view and the local playground.
    let (code, out, _) = shapex(&["share", path], "");
    assert_eq!(code, 0);
    assert!(out.starts_with("http://127.0.0.1:8080/#v2/"), "{out}");
    let state = shapex_share::link::decode(out.trim().split_once('#').unwrap().1).unwrap();
    assert_eq!(state.view, "shapes");
    let (code, _, err) = shapex(&["share", "--view", "lattice", path], "");
    assert_eq!(code, 2);
    assert!(err.contains("matlab has no view `lattice`"), "{err}");
    let (code, _, err) = shapex(&["share", "-"], "x = 1;\n");
    assert_eq!(code, 2);
    assert!(err.contains("--lang"), "{err}");
    let (code, out, _) = shapex(&["share", "--lang", "matlab", "-"], "x = 1;\n");
    assert_eq!(code, 0);
    let state = shapex_share::link::decode(out.trim().split_once('#').unwrap().1).unwrap();
    assert_eq!((state.code.as_str(), state.name.as_str()), ("x = 1;\n", ""));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--format sarif` is one SARIF 2.1.0 log for every file, valid against the schema
/// (shipped in `tests/sarif/`, formats such as `uri` checked too): errors and warnings
/// as results of their codes' rules with `shapex explain`'s help, and the statements'
/// checks as results of kind pass (proven) or open (run-time check).
#[test]
fn sarif_is_valid_against_the_schema() {
    let schema_path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/sarif/sarif-schema-2.1.0.json"
    );
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles");
    let dir = temp_dir("sarif");
    std::fs::write(
        dir.join("bad one.m"),
        "A = ones(3, 4);\nC = A * A;\nx = (1;\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("sub/ok.m"),
        "function y = f(n)\ny = zeros(n, 2) + 1;\nz = y(1, :);\nend\n",
    )
    .unwrap();
    std::fs::write(dir.join("sub/l.t"), "x : int[3];\n").unwrap();
    let (code, out, err) = shapex(&["check", "--format", "sarif", dir.to_str().unwrap()], "");
    assert_eq!(code, 1, "an error in a file: {err}");
    let log: serde_json::Value = serde_json::from_str(&out).expect("one JSON log");
    let problems: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
    assert!(problems.is_empty(), "{problems:#?}");
    let run = &log["runs"][0];
    let results = run["results"].as_array().unwrap();
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let of = |id: &'static str| results.iter().filter(move |r| r["ruleId"] == id);
    let mtimes = results
        .iter()
        .find(|r| {
            r["ruleId"]
                .as_str()
                .is_some_and(|i| i.starts_with("shape.mtimes"))
        })
        .expect("the mtimes error");
    assert_eq!(mtimes["level"], "error");
    let place = &mtimes["locations"][0]["physicalLocation"];
    let uri = place["artifactLocation"]["uri"].as_str().unwrap();
    assert!(uri.ends_with("bad%20one.m"), "{uri}");
    for r in results {
        let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap();
        assert!(
            uri.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._~/%".contains(&b)),
            "not a URI reference: {uri}"
        );
    }
    assert_eq!(place["region"]["startLine"], 2);
    let rule = &rules[mtimes["ruleIndex"].as_u64().unwrap() as usize];
    assert_eq!(rule["id"], mtimes["ruleId"]);
    assert!(rule["help"]["text"]
        .as_str()
        .unwrap()
        .contains("definite shape error"));
    assert!(results.iter().any(|r| r["ruleId"]
        .as_str()
        .is_some_and(|i| i.starts_with("syntax."))));
    assert!(of("check.proven").all(|r| r["kind"] == "pass" && r["level"] == "none"));
    assert!(of("check.runtime").any(|r| r["kind"] == "open"));
    // The validator can fail: a result without its message is refused.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]
        .as_object_mut()
        .unwrap()
        .remove("message");
    assert!(!validator.is_valid(&broken));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Bad input as a user meets it: every case is exit 2 with a message naming the input
/// and what is wrong, for every command that reads files.
#[test]
fn bad_input_is_a_clear_message_and_exit_two() {
    let dir = temp_dir("bad");
    let binary = dir.join("p.m");
    std::fs::write(&binary, b"v1.0\x00\x01\x02garbage").unwrap();
    std::fs::write(dir.join("x.xyz"), "x = 1;\n").unwrap();
    std::fs::write(dir.join("sub/ok.m"), "x = 1;\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.join("gone.m"), dir.join("sub/dangling.m")).unwrap();
    let p = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["check".into(), p("missing.m")],
            "missing.m: No such file",
        ),
        (
            vec!["check".into(), p("p.m")],
            "p.m: a binary file, not source text",
        ),
        (vec!["share".into(), p("p.m")], "a binary file"),
        (vec!["graph".into(), p("p.m")], "a binary file"),
        (
            vec!["check".into(), p("x.xyz")],
            "no language claims the extension of",
        ),
        (
            vec!["share".into(), p("x.xyz")],
            "name its language with --lang",
        ),
        (
            vec![
                "check".into(),
                "--lang".into(),
                "cobol".into(),
                p("sub/ok.m"),
            ],
            "unknown language `cobol`",
        ),
        (
            vec![
                "share".into(),
                "--lang".into(),
                "cobol".into(),
                p("sub/ok.m"),
            ],
            "unknown language `cobol`",
        ),
        (vec!["check".into(), p("sub")], "dangling.m: No such file"),
        (vec!["share".into(), p("sub")], "sub"),
        (
            vec![
                "check".into(),
                "--format".into(),
                "yaml".into(),
                p("sub/ok.m"),
            ],
            "invalid value 'yaml'",
        ),
        (
            vec!["completions".into(), "tcsh".into()],
            "invalid value 'tcsh'",
        ),
    ];
    for (args, says) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = shapex(&args, "");
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(says), "{args:?} says {err:?}, not {says:?}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--version`, shell completions and the man page come from the clap definition, so
/// they name every subcommand.
#[test]
fn version_completions_and_man_page_name_every_subcommand() {
    let (code, out, _) = shapex(&["--version"], "");
    assert_eq!(
        (code, out.trim()),
        (0, concat!("shapex ", env!("CARGO_PKG_VERSION")))
    );
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let (code, out, err) = shapex(&["completions", shell], "");
        assert_eq!(code, 0, "{shell}: {err}");
        for sub in ["check", "graph", "migrate", "share", "explain", "languages"] {
            assert!(out.contains(sub), "{shell} completions lack {sub}");
        }
    }
    let (code, man, _) = shapex(&["man"], "");
    assert_eq!(code, 0);
    assert!(
        man.contains(".TH shapex 1"),
        "{}",
        &man[..man.len().min(300)]
    );
    for sub in [
        "check",
        "graph",
        "migrate",
        "share",
        "explain",
        "languages",
        "completions",
    ] {
        assert!(man.contains(sub), "the man page lacks {sub}");
    }
}

/// A folder that cannot be read, given or met inside a given one: exit 2 naming it.
/// Root reads any folder, so as root the binary runs as `nobody` (`setpriv`, from a
/// copy in a folder `nobody` may enter); without `setpriv` the case is skipped.
#[cfg(unix)]
#[test]
fn an_unreadable_folder_is_a_clear_message_and_exit_two() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = temp_dir("unreadable");
    let locked = dir.join("sub/locked");
    std::fs::create_dir_all(&locked).unwrap();
    std::fs::write(locked.join("a.m"), "x = 1;\n").unwrap();
    std::fs::write(dir.join("sub/ok.m"), "x = 1;\n").unwrap();
    let mode = |p: &std::path::Path, m: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap()
    };
    for p in [&dir, &dir.join("sub")] {
        mode(p, 0o755);
    }
    let bin = dir.join("shapex");
    std::fs::copy(env!("CARGO_BIN_EXE_shapex"), &bin).unwrap();
    mode(&bin, 0o755);
    mode(&locked, 0o000);
    let root = std::fs::metadata(&bin).unwrap().uid() == 0;
    if root && Command::new("setpriv").arg("--version").output().is_err() {
        eprintln!("skipped: running as root without setpriv, every folder is readable");
        mode(&locked, 0o755);
        return;
    }
    let check = |target: &std::path::Path| {
        let mut c = match root {
            false => Command::new(&bin),
            true => Command::new("setpriv"),
        };
        if root {
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(&bin);
        }
        c.arg("check").arg(target).output().expect("run shapex")
    };
    for target in [locked.clone(), dir.join("sub")] {
        let out = check(&target);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{target:?}: {err}");
        assert!(
            err.contains("locked: Permission denied"),
            "{target:?} says {err:?}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    mode(&locked, 0o755);
    let _ = std::fs::remove_dir_all(&dir);
}
