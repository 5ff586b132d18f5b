//! Issue #25, item 1: `clear` and friends with literal words have their known effect
//! and no warning; only `clear(name)` with a computed name stays wild.

use super::tests::{run, shape_of};
use shapex_report::{Report, Severity};

fn codes(r: &Report) -> Vec<String> {
    r.diagnostics.iter().map(|d| d.code.clone()).collect()
}

#[test]
fn literal_clears_are_tame_and_silent() {
    for stmt in [
        "clear",
        "clear all",
        "clear variables",
        "clear x y",
        "clear('x')",
        "clear('x', 'y')",
        "clearvars",
        "clearvars x",
        "clearvars -except k",
        "clear a*",
        "clear functions",
        "clear global",
        "close all",
        "close('all')",
        "clc",
    ] {
        let r = run(&format!("x = ones(2, 3);\n{stmt}\n"));
        assert_eq!(codes(&r), Vec::<String>::new(), "{stmt}");
    }
    let r = run("name = 'x';\nclear(name)\n");
    assert_eq!(codes(&r), vec!["tame.wild.clear"]);
    let r = run("x = 1;\nclear -regexp ^x\n");
    assert_eq!(codes(&r), vec!["tame.clear.approximate"]);
    assert_eq!(r.diagnostics[0].severity, Severity::Info);
}

#[test]
fn a_removed_variable_grows_from_nothing() {
    // `x(2) = 1` on an undefined x makes [0 1]; the stale <3,3> must not survive.
    for clear in [
        "clear",
        "clear all",
        "clear variables",
        "clear x",
        "clear x y",
        "clear('x')",
        "clearvars",
        "clearvars x",
        "clearvars -except k",
        "clear x*",
    ] {
        let r = run(&format!("x = ones(3); k = ones(2);\n{clear}\nx(2) = 1;\n"));
        assert_eq!(shape_of(&r, "x"), "<1,2>", "{clear}");
    }
}

#[test]
fn what_a_clear_does_not_name_is_kept() {
    let r = run("x = ones(3); k = ones(2, 5);\nclear x\nk(1) = 2;\n");
    assert_eq!(shape_of(&r, "k"), "<2,5>");
    let r = run("x = ones(3); k = ones(2, 5);\nclearvars -except k\nk(1) = 2;\n");
    assert_eq!(shape_of(&r, "k"), "<2,5>");
    let r = run("x = ones(3); k = ones(2, 5);\nclear x*\nk(1) = 2;\n");
    assert_eq!(shape_of(&r, "k"), "<2,5>");
    for keep in ["close all", "clc", "clear functions"] {
        let r = run(&format!("k = ones(2, 5);\n{keep}\nk(1) = 2;\n"));
        assert_eq!(shape_of(&r, "k"), "<2,5>", "{keep}");
    }
}

#[test]
fn removed_on_one_path_is_unknown_after_the_join() {
    // Cleared on one path and kept on the other: neither <3,3> nor <1,2> is sure.
    let r = run("x = ones(3);\nif rand > 0.5\n  clear x\nend\nx(2) = 1;\n");
    assert_eq!(shape_of(&r, "x"), "?");
    let r = run("x = ones(3);\nfor i = 1:n\n  clear x\nend\nx(2) = 1;\n");
    assert_eq!(shape_of(&r, "x"), "?");
    // Cleared on every path: undefined after the join too.
    let r = run("x = ones(3);\nif rand > 0.5\n  clear x\nelse\n  clear\nend\nx(2) = 1;\n");
    assert_eq!(shape_of(&r, "x"), "<1,2>");
}

#[test]
fn approximate_clears_forget_what_they_may_remove() {
    for clear in ["clear -regexp ^x", "clear java", "clearvars -regexp ^x"] {
        let r = run(&format!("x = ones(3);\n{clear}\nx(2) = 1;\n"));
        assert_eq!(shape_of(&r, "x"), "?", "{clear}");
    }
    // Globals may or may not be linked here: unknown, never the stale shape.
    let r = run("global g\ng = ones(3);\nclear global\ng(2) = 1;\n");
    assert_eq!(shape_of(&r, "g"), "?");
    // A name computed at run time may be any variable's.
    let r = run("function f(name)\nx = ones(3);\nclear(name)\nx(2) = 1;\nend\n");
    assert_eq!(shape_of(&r, "x"), "?");
    // A variable whose text the analysis knows is as good as a literal.
    let r = run("name = 'x';\nx = ones(3);\nclear(name)\nx(2) = 1;\n");
    assert_eq!(shape_of(&r, "x"), "<1,2>");
}

#[test]
fn a_bare_call_of_an_unknown_name_says_it_may_be_a_script() {
    // Issue #22 item 7: scripts calling scripts are not tame; the workspace is
    // forgotten after `setup;`, and a note says why.
    let r = run("x = ones(2, 3);\nsetup;\ny = x;\n");
    assert_eq!(codes(&r), vec!["tame.script"]);
    assert_eq!(r.diagnostics[0].severity, Severity::Info);
    assert_eq!(r.diagnostics[0].range.line, 2);
    assert_eq!(shape_of(&r, "y"), "?");
    // A builtin, a call with an output, or a function of the file is no script.
    for src in [
        "x = ones(2, 3);\nclc;\n",
        "x = ones(2, 3);\nv = setup;\n",
        "function f()\nsetup;\nend\nfunction setup()\nend\n",
    ] {
        assert_eq!(codes(&run(src)), Vec::<String>::new(), "{src}");
    }
}
