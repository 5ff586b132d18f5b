use super::*;
use crate::tame::{lower, lower_with_prefix};
use shapex_matlab_syntax::{ast::FileKind, parse};

/// Links the file `path` of `files` (path, text) with the others, as lowered by the
/// analysis: scripts and classdef files are not callable.
fn linked(files: &[(&str, &str)], path: &str, search: &[String]) -> Linked {
    let text = files.iter().find(|(p, _)| *p == path).unwrap().1;
    let program = lower(&parse(text).file).program;
    let prefix = program.temp_prefix.clone();
    let mut load = |p: &str| {
        let (_, text) = files.iter().find(|(q, _)| *q == p)?;
        let file = parse(text).file;
        let program =
            (file.kind == FileKind::Function).then(|| lower_with_prefix(&file, &prefix).program);
        Some(Rc::new(Unit {
            path: p.to_string(),
            text: Arc::from(*text),
            prefix: prefix.clone(),
            program,
        }))
    };
    link(program, &Path { file: path, search }, &mut load)
}

/// Every linked function's name with the functions its calls name.
fn calls(l: &Linked) -> Vec<(String, Vec<String>)> {
    l.program
        .functions
        .iter()
        .map(|f| {
            let mut out = Vec::new();
            let mut body = f.body.clone();
            walk_mut(&mut body, &mut |s| {
                if let StmtKind::Call { func, .. } | StmtKind::FuncHandle { func, .. } = &s.kind {
                    out.push(func.clone());
                }
            });
            (f.name.clone(), out)
        })
        .collect()
}

fn names(l: &Linked) -> Vec<&str> {
    l.program
        .functions
        .iter()
        .map(|f| f.name.as_str())
        .collect()
}

#[test]
fn a_call_reaches_the_file_of_its_name_and_that_files_subfunctions() {
    let files = [
        ("app/main.m", "function main\ny = helper(ones(3));\nend\n"),
        (
            "app/helper.m",
            "function y = helper(x)\ny = twice(x);\nend\nfunction y = twice(x)\ny = 2*x;\nend\n",
        ),
    ];
    let l = linked(&files, "app/main.m", &[]);
    assert_eq!(names(&l), ["main", "helper", "helper>twice"]);
    assert_eq!(l.own, 1);
    assert!(calls(&l)[1].1.contains(&"helper>twice".to_string()));
    assert_eq!(l.origins["helper>twice"].path, "app/helper.m");
}

#[test]
fn private_comes_before_the_folder_and_the_folder_before_the_search_path() {
    let body = |n: u32| format!("function y = helper(x)\ny = x + {n};\nend\n");
    let (a, b, c) = (body(1), body(2), body(3));
    let files = [
        ("main.m", "function main\ny = helper(1);\nend\n"),
        ("private/helper.m", a.as_str()),
        ("helper.m", b.as_str()),
        ("lib/helper.m", c.as_str()),
    ];
    let search = ["lib".to_string()];
    assert_eq!(
        linked(&files, "main.m", &search).origins["helper"].path,
        "private/helper.m"
    );
    assert_eq!(linked(&files[..1], "main.m", &search).origins.len(), 0);
    let no_private = [files[0], files[2], files[3]];
    assert_eq!(
        linked(&no_private, "main.m", &search).origins["helper"].path,
        "helper.m"
    );
    let only_lib = [files[0], files[3]];
    assert_eq!(
        linked(&only_lib, "main.m", &search).origins["helper"].path,
        "lib/helper.m"
    );
}

#[test]
fn a_subfunction_of_the_file_wins_over_a_file_of_its_name() {
    let files = [
        (
            "main.m",
            "function main\ny = helper(1);\nend\nfunction y = helper(x)\ny = x;\nend\n",
        ),
        ("helper.m", "function y = helper(x)\ny = [x x];\nend\n"),
    ];
    let l = linked(&files, "main.m", &[]);
    assert_eq!(names(&l), ["main", "helper"]);
    assert!(l.origins.is_empty());
}

#[test]
fn another_file_never_reaches_the_analysed_files_subfunctions() {
    // main's own `helper` is a subfunction: other.m's call of `helper` reaches the
    // file helper.m, and its call of `twice` (main's subfunction, no file) nothing.
    let files = [
        (
            "main.m",
            "function main\ny = other(1);\nz = helper(1);\nw = twice(1);\nend\nfunction y = helper(x)\ny = x;\nend\nfunction y = twice(x)\ny = 2*x;\nend\n",
        ),
        ("other.m", "function y = other(x)\ny = helper(x) + twice(x);\nend\n"),
        ("helper.m", "function y = helper(x)\ny = [x x];\nend\n"),
    ];
    let l = linked(&files, "main.m", &[]);
    assert_eq!(
        names(&l),
        ["main", "helper", "twice", "other", "helper (helper.m)"]
    );
    let other = &calls(&l)[3].1;
    assert!(
        other.contains(&"helper (helper.m)".to_string()),
        "{other:?}"
    );
    assert!(other.contains(&"?twice".to_string()), "{other:?}");
}

#[test]
fn scripts_and_files_calling_back_are_not_linked_twice() {
    let files = [
        ("main.m", "function main\ny = a(1);\nsetup\nend\n"),
        ("a.m", "function y = a(x)\ny = b(x);\nend\n"),
        ("b.m", "function y = b(x)\ny = a(x) + main();\nend\n"),
        ("setup.m", "k = 3;\n"),
    ];
    let l = linked(&files, "main.m", &[]);
    assert_eq!(names(&l), ["main", "a", "b"]);
    // `main` from b.m is the analysed file's primary function: its own name.
    assert!(calls(&l)[2].1.contains(&"main".to_string()));
}

#[test]
fn a_package_function_is_found_by_its_qualified_name() {
    let files = [
        (
            "app/main.m",
            "function main\ny = util.io.load2(1);\nz = util.twice(y);\nend\n",
        ),
        (
            "app/+util/twice.m",
            "function y = twice(x)\ny = [x x];\nend\n",
        ),
        // Inside a package, a sibling is called by its qualified name.
        (
            "app/+util/+io/load2.m",
            "function y = load2(x)\ny = util.twice(x) + twice(x);\nend\n",
        ),
        (
            "app/+util/+io/twice.m",
            "function y = twice(x)\ny = x;\nend\n",
        ),
    ];
    let l = linked(&files, "app/main.m", &[]);
    assert_eq!(names(&l), ["main", "util.io.load2", "util.twice"]);
    assert_eq!(l.origins["util.io.load2"].path, "app/+util/+io/load2.m");
    // The unqualified `twice` in a package reaches no sibling.
    assert!(
        calls(&l)[1].1.contains(&"twice".to_string()),
        "{:?}",
        calls(&l)
    );
    assert!(l.dispatched.is_empty(), "{:?}", l.dispatched);
}

/// In a class folder's method, a call of the method's own name runs the method only
/// for an object of the class (`max(size(X))` in `@sdpvar/max.m` runs the builtin):
/// it is unknown, never the method calling itself; other names are the file's as
/// usual, and a plain function file still calls itself.
#[test]
fn a_method_calling_its_own_name_is_unknown() {
    let method = "function r = max(p)\nn = max(size(p));\nr = helper(n);\nend\nfunction y = helper(x)\ny = x;\nend\n";
    let files = [
        ("lib/@poly/max.m", method),
        (
            "lib/plain.m",
            "function y = plain(x)\ny = plain(x - 1);\nend\n",
        ),
    ];
    let l = linked(&files, "lib/@poly/max.m", &[]);
    assert_eq!(calls(&l)[0].1, ["size", "?max", "helper"]);
    let l = linked(&files, "lib/plain.m", &[]);
    assert!(calls(&l)[0].1.contains(&"plain".to_string()));
}
