//! Incremental re-analysis (issue #8, part 3) gives the report of a full analysis: random
//! edits of the fixtures (and of realistic multi-function files) are analysed in one
//! `Session`, each edit's report compared with a fresh analysis of the same text.
//! `PROPTEST_CASES` sets how many edit sequences run (default 48).

use proptest::prelude::*;
use shapex::{Analyzer, Options, Session};
use shapex_tests::matlab_options;
use std::path::Path;

/// Edits that touch what a function's analysis depends on: its text, where it sits,
/// which functions the file defines, lambdas, nested functions, globals, the
/// temporaries' prefix, and plain breakage.
const SNIPPETS: &[&str] = &[
    " ",
    "\n",
    "x",
    "1",
    ";",
    "%",
    "'",
    "(",
    ")",
    "]",
    "end\n",
    "\nfunction r = helper(a)\n  r = a * 2;\nend\n",
    "\nfunction nested_one()\n  q = 1;\nend\n",
    // A function of the file shadows the builtin every fixture calls.
    "\nfunction r = zeros(n, m)\n  r = n;\nend\n",
    "\nfunction r = ones(varargin)\n  r = 1;\nend\n",
    "y = ones(3,2) * ones(4,4);\n",
    "z = helper(x);\n",
    "h = @(t) t + 1;\n",
    "mc_t0 = 1;\n",
    "global g\n",
    "for i = 1:3\n  v(i) = i;\nend\n",
    "if n > 2\n  w = zeros(n, 3);\nelse\n  w = zeros(2, 3);\nend\n",
];

#[derive(Clone, Debug)]
enum Edit {
    Insert {
        at: f64,
        snippet: usize,
    },
    Delete {
        at: f64,
        len: usize,
    },
    DuplicateLine {
        at: f64,
    },
    /// A snippet at the end of the file (a new function after the others).
    Append {
        snippet: usize,
    },
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (0.0..=1.0f64, 0..SNIPPETS.len()).prop_map(|(at, snippet)| Edit::Insert { at, snippet }),
        2 => (0.0..=1.0f64, 1..40usize).prop_map(|(at, len)| Edit::Delete { at, len }),
        1 => (0.0..=1.0f64).prop_map(|at| Edit::DuplicateLine { at }),
        1 => (0..SNIPPETS.len()).prop_map(|snippet| Edit::Append { snippet }),
    ]
}

/// The char boundary nearest below `at` (a fraction of the text).
fn boundary(text: &str, at: f64) -> usize {
    let mut i = ((text.len() as f64) * at) as usize;
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(text: &str, e: &Edit) -> String {
    match *e {
        Edit::Insert { at, snippet } => {
            let snippet = SNIPPETS[snippet];
            let mut i = boundary(text, at);
            // Whole statements and functions are pasted at the start of a line.
            if snippet.len() > 1 && snippet.ends_with('\n') {
                i = text[..i].rfind('\n').map_or(0, |n| n + 1);
            }
            format!("{}{}{}", &text[..i], snippet, &text[i..])
        }
        Edit::Delete { at, len } => {
            let i = boundary(text, at);
            let j = boundary(text, ((i + len) as f64 / text.len().max(1) as f64).min(1.0));
            format!("{}{}", &text[..i], &text[j.max(i)..])
        }
        Edit::Append { snippet } => format!("{text}\n{}", SNIPPETS[snippet]),
        Edit::DuplicateLine { at } => {
            let i = boundary(text, at);
            let start = text[..i].rfind('\n').map_or(0, |n| n + 1);
            let end = text[i..].find('\n').map_or(text.len(), |n| i + n + 1);
            format!("{}{}", &text[..end], &text[start..end])
        }
    }
}

/// Every fixture, and two files made of several function files each (most fixtures
/// hold one function or a script).
fn bases() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/matlab");
    let mut files: Vec<String> = walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "m"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .collect();
    let with_functions: Vec<&String> = files
        .iter()
        .filter(|t| t.trim_start().starts_with("function"))
        .collect();
    let joined = |skip: usize| {
        with_functions
            .iter()
            .skip(skip)
            .step_by(2)
            .map(|t| t.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (a, b) = (joined(0), joined(1));
    files.push(a);
    files.push(b);
    files
}

/// Long scripts, where an edit resumes the analysis from the first statement it
/// changed (`values::resume`): the fixtures that are plain scripts, one after another
/// (loops, branches, errors, clears and globals among them), a generated script, and,
/// when Octave is installed, the bodies of its function files as one script.
fn long_scripts() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/matlab");
    let scripts: Vec<String> = walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "m"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .filter(|t| !t.contains("function"))
        .collect();
    let mut out = vec![scripts.join("\n"), shapex::samples::scaling_program(300)];
    out.extend(shapex_tests::corpus::octave_script(400));
    out
}

/// Edits that matter inside one script: statements that may change any variable,
/// clear some, declare a global, or name a new variable.
const SCRIPT_SNIPPETS: &[&str] = &[
    "clc\n",
    "my_setup\n",
    "clear a\n",
    "global g\n",
    "fresh_name = 3;\n",
    "a = ones(4, 2);\n",
    "for i = 1:4\n  a(i) = i;\nend\n",
];

/// `PROPTEST_CASES` edit sequences (else `default`), none persisted.
fn config(default: u32) -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(default),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn json(report: &shapex::Report) -> serde_json::Value {
    serde_json::to_value(report).expect("a Report serialises")
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn incremental_reanalysis_equals_a_full_analysis(
        base in any::<prop::sample::Index>(),
        edits in prop::collection::vec(edit(), 1..6),
        paper in any::<bool>(),
    ) {
        let bases = bases();
        let analyzer = Analyzer::new();
        let options: Options = matlab_options(if paper { "paper" } else { "modern" });
        let mut session = Session::default();
        let mut text = bases[base.index(bases.len())].clone();
        analyzer.analyze_in(&mut session, &text, &options);
        for e in &edits {
            text = apply(&text, e);
            let again = json(&analyzer.analyze_in(&mut session, &text, &options));
            let fresh = json(&analyzer.analyze(&text, &options));
            prop_assert!(again == fresh, "after {e:?} the incremental report differs on:\n{text}");
        }
    }
}

/// A function defined (or removed) after the others changes how every function that
/// calls it reads the call, though their text is unchanged: a builtin shadowed by a
/// function of the file is no longer the builtin. Every base, each such edit both ways.
#[test]
fn defining_or_removing_a_function_is_seen_by_its_callers() {
    let analyzer = Analyzer::new();
    let options = matlab_options("modern");
    let defines = SNIPPETS.iter().filter(|s| s.starts_with("\nfunction"));
    for (base, snippet) in bases()
        .iter()
        .flat_map(|b| defines.clone().map(move |s| (b, s)))
    {
        let defined = format!("{base}\n{snippet}");
        let mut session = Session::default();
        for text in [base, &defined, base] {
            let again = json(&analyzer.analyze_in(&mut session, text, &options));
            let fresh = json(&analyzer.analyze(text, &options));
            assert!(again == fresh, "the incremental report differs on:\n{text}");
        }
    }
}

/// An edit in a long script: statements at random places of it, analysed in one
/// `Session` and compared with a fresh analysis.
#[derive(Clone, Debug)]
enum ScriptEdit {
    Plain(Edit),
    Statement { at: f64, snippet: usize },
}

fn script_edit() -> impl Strategy<Value = ScriptEdit> {
    prop_oneof![
        3 => edit().prop_map(ScriptEdit::Plain),
        2 => (0.0..=1.0f64, 0..SCRIPT_SNIPPETS.len())
            .prop_map(|(at, snippet)| ScriptEdit::Statement { at, snippet }),
    ]
}

fn apply_script(text: &str, e: &ScriptEdit) -> String {
    match e {
        ScriptEdit::Plain(e) => apply(text, e),
        ScriptEdit::Statement { at, snippet } => {
            let i = boundary(text, *at);
            let i = text[..i].rfind('\n').map_or(0, |n| n + 1);
            format!("{}{}{}", &text[..i], SCRIPT_SNIPPETS[*snippet], &text[i..])
        }
    }
}

proptest! {
    #![proptest_config(config(24))]

    #[test]
    fn edits_inside_a_long_script_give_a_full_analysis(
        base in any::<prop::sample::Index>(),
        edits in prop::collection::vec(script_edit(), 1..8),
    ) {
        let bases = long_scripts();
        let analyzer = Analyzer::new();
        let options = matlab_options("modern");
        let mut session = Session::default();
        let mut text = bases[base.index(bases.len())].clone();
        analyzer.analyze_in(&mut session, &text, &options);
        for e in &edits {
            text = apply_script(&text, e);
            let again = json(&analyzer.analyze_in(&mut session, &text, &options));
            let fresh = json(&analyzer.analyze(&text, &options));
            prop_assert!(again == fresh, "after {e:?} the incremental report differs on:\n{text}");
        }
    }
}

/// A program of several files (issue #22 item 2): the files of a fixture folder.
fn folder(name: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/matlab/interproc");
    let dir = root.join(name);
    walkdir::WalkDir::new(&dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "m"))
        .map(|e| {
            let path = e.path().strip_prefix(&dir).unwrap().display().to_string();
            (path, std::fs::read_to_string(e.path()).unwrap())
        })
        .collect()
}

/// `main.m` of `files` analysed among them, in `session` (or a fresh one).
fn analyze_main(
    analyzer: &Analyzer,
    session: Option<&mut Session>,
    files: &[(String, String)],
    options: &Options,
) -> serde_json::Value {
    let read = |p: &str| {
        files
            .iter()
            .find(|(q, _)| q == p)
            .map(|(_, t)| std::sync::Arc::from(t.as_str()))
    };
    let text = &read("main.m").expect("the folder has a main.m");
    let sources = shapex::Sources {
        path: "main.m",
        text,
        read: &read,
        search: &[],
    };
    let report = match session {
        Some(session) => analyzer.analyze_sources_in(session, &sources, options),
        None => analyzer.analyze_sources_in(&mut Session::default(), &sources, options),
    };
    json(&report)
}

/// An edit of one file of a program, the file removed (and put back later), or moved
/// into or out of `private/` (which decides whether an object's method may run instead).
#[derive(Clone, Debug)]
enum FileEdit {
    Move {
        file: prop::sample::Index,
    },
    Edit {
        file: prop::sample::Index,
        edit: Edit,
    },
    Remove {
        file: prop::sample::Index,
    },
}

fn file_edit() -> impl Strategy<Value = FileEdit> {
    prop_oneof![
        5 => (any::<prop::sample::Index>(), edit()).prop_map(|(file, edit)| FileEdit::Edit { file, edit }),
        1 => any::<prop::sample::Index>().prop_map(|file| FileEdit::Remove { file }),
        1 => any::<prop::sample::Index>().prop_map(|file| FileEdit::Move { file }),
    ]
}

proptest! {
    #![proptest_config(config(48))]

    /// Edits in any file of a program (a callee's text, a file removed, which changes
    /// where a call goes) re-analysed in one `Session` give the report of a fresh
    /// analysis of the file that calls them.
    #[test]
    fn edits_across_files_give_a_full_analysis(
        name in prop::sample::select(vec!["folder-basic", "folder-shadow", "folder-search", "folder-pkg"]),
        edits in prop::collection::vec(file_edit(), 1..6),
    ) {
        let analyzer = Analyzer::new();
        let options = matlab_options("modern");
        let mut files = folder(name);
        let mut removed: Vec<(String, String)> = Vec::new();
        let mut session = Session::default();
        analyze_main(&analyzer, Some(&mut session), &files, &options);
        for e in &edits {
            match e {
                FileEdit::Edit { file, edit } => {
                    let i = file.index(files.len());
                    files[i].1 = apply(&files[i].1, edit);
                }
                // main.m stays; a removed file comes back at the next removal.
                FileEdit::Remove { file } => {
                    let i = file.index(files.len());
                    if files[i].0 != "main.m" {
                        removed.push(files.remove(i));
                    } else {
                        files.append(&mut removed);
                    }
                }
                FileEdit::Move { file } => {
                    let i = file.index(files.len());
                    let path = &files[i].0;
                    files[i].0 = match path.strip_prefix("private/") {
                        Some(name) => name.to_string(),
                        None if path != "main.m" => format!("private/{path}"),
                        None => path.clone(),
                    };
                }
            }
            let again = analyze_main(&analyzer, Some(&mut session), &files, &options);
            let fresh = analyze_main(&analyzer, None, &files, &options);
            prop_assert!(again == fresh, "after {e:?} the incremental report differs on:\n{files:#?}");
        }
    }
}

/// Naming an entry point, changing it and removing it (issue #22 item 6) re-analyse
/// the function it names: each report equals a fresh one.
#[test]
fn changing_the_entry_point_is_seen() {
    let analyzer = Analyzer::new();
    let text =
        "function r = main(A, k)\nif nargin < 2\n  k = 2;\nend\nr = repmat(A * A', k, 1);\nend\n";
    let mut session = Session::default();
    for entry in [
        "",
        "main(double[3x4])",
        "main(double[2x2], int32)",
        "main(?)",
        "main(double[3x4])",
        "",
    ] {
        let options = matlab_options("modern").with("entry", entry);
        let again = json(&analyzer.analyze_in(&mut session, text, &options));
        let fresh = json(&analyzer.analyze(text, &options));
        assert!(
            again == fresh,
            "with entry `{entry}` the incremental report differs"
        );
    }
}
