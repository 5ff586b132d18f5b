use super::*;
use crate::forward::check_model;
use crate::modules::build;
use shapex_migrate_syntax::python::parse;
use shapex_migrate_syntax::user;

fn ask(src: &str, constraints: &str) -> Answers {
    let parsed = parse(src);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let built = build(&parsed.module, None);
    let checked = check_model(&built);
    let (user, bad) = user::parse(constraints);
    assert!(bad.is_empty(), "{bad:?}");
    answer(
        &crate::pytorch::Forward::new(src, &built, &checked),
        &user,
        &Fuel::new(FUEL),
    )
}

fn net(init: &str, forward: &str) -> String {
    let init: String = init.lines().map(|l| format!("        {l}\n")).collect();
    let body: String = forward.lines().map(|l| format!("        {l}\n")).collect();
    format!("import torch\nimport torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n{init}\n    def forward(self, x: TensorType((Dyn, Dyn, Dyn, Dyn))):\n{body}")
}

fn witness(v: &Verdict) -> Vec<String> {
    match v {
        Verdict::Sat(w) => w.iter().map(|(n, t)| format!("{n}: {t}")).collect(),
        other => panic!("expected a static migration, got {other:?}"),
    }
}

#[test]
fn listing2_has_no_static_migration_and_names_both_convolutions() {
    // Migeed et al. 2024 §2, Listing 2: conv1 needs 2 input channels, conv2 needs 4,
    // both of x: the channel position must stay Dyn (spec 004 TC-4).
    let src = include_str!("../../../../tests/fixtures/py/listing2_conv.py");
    let a = ask(src, "");
    let Verdict::Unsat(conflict) = &a.q1 else {
        panic!("{:?}", a.q1)
    };
    let lines: Vec<usize> = conflict
        .iter()
        .filter(|o| o.why.contains("channels"))
        .map(|o| src[..o.span.start].lines().count())
        .collect();
    assert_eq!(lines.len(), 2, "{conflict:?}");
}

#[test]
fn a_static_migration_is_found_and_rechecked() {
    // Conv 3→8 (kernel 3), pool 2, flatten, Linear(8*4*4): the pooled height times
    // width must be 16; the smallest witness takes n = 1 and h = 4 (pooled to 1).
    let src = net(
        "self.conv = nn.Conv2d(3, 8, 3)\nself.pool = nn.MaxPool2d(2)\nself.fc = nn.Linear(8 * 4 * 4, 10)",
        "y = self.pool(self.conv(x))\nreturn self.fc(torch.flatten(y, 1))",
    );
    let a = ask(&src, "");
    let w = witness(&a.q1);
    assert_eq!(w.len(), 1);
    let Verdict::Sat(types) = &a.q1 else {
        unreachable!()
    };
    let dims: Vec<u64> = types[0]
        .1
        .dims()
        .unwrap()
        .iter()
        .filter_map(|d| d.nat())
        .collect();
    assert_eq!(dims.len(), 4);
    assert_eq!(dims[1], 3);
    // Linear needs 8 · ((h − 2) // 2) · ((w − 2) // 2) == 128: the smallest h first.
    let pooled = |d: u64| (d - 2) / 2;
    assert_eq!(8 * pooled(dims[2]) * pooled(dims[3]), 128, "{w:?}");
    assert_eq!(dims[2], 4, "{w:?}");
}

#[test]
fn q2_under_constraints_and_its_conflict() {
    let src = net(
        "self.conv = nn.Conv2d(3, 8, 3)\nself.fc = nn.Linear(8 * 6 * 6, 10)",
        "return self.fc(torch.flatten(self.conv(x), 1))",
    );
    // Linear needs 8·(h−2)·(w−2) = 288: with h == w, h = 8.
    let a = ask(&src, "x.shape == (b, c, h, w)\nh == w\nb >= 5");
    let Some(Verdict::Sat(types)) = &a.q2 else {
        panic!("{:?}", a.q2)
    };
    assert_eq!(types[0].1.to_string(), "TensorType((5, 3, 8, 8))");
    // h in (2, 4, 9) leaves no (h−2)·(w−2) = 36 with h == w.
    let a = ask(&src, "x.shape == (b, c, h, w)\nh == w\nh in (2, 4, 9)");
    let Some(Verdict::Unsat(conflict)) = &a.q2 else {
        panic!("{:?}", a.q2)
    };
    assert!(
        conflict.iter().any(|o| o.why.contains("h in (2, 4, 9)")),
        "{conflict:?}"
    );
    assert!(matches!(a.q1, Verdict::Sat(_)));
}

#[test]
fn an_ill_typed_model_has_an_empty_migration_space() {
    let src = include_str!("../../../../tests/fixtures/py/listing1_conv.py");
    let a = ask(src, "");
    assert!(
        matches!(&a.q1, Verdict::Unsat(c) if !c.is_empty()),
        "{:?}",
        a.q1
    );
}

#[test]
fn q3_branches_decided_by_constraints_and_by_what_came_before() {
    let src = net(
        "self.fc = nn.Linear(64, 10)",
        "y = x.flatten(1)\nz = self.fc(y)\nif x.size(1) > 64:\n    return z\nelse:\n    return z + 1",
    );
    // Linear(64) needs c·h·w = 64, so c > 64 is impossible: the `if` arm cannot run.
    let a = ask(&src, "");
    assert_eq!(a.branches.len(), 1, "{:?}", a.branches);
    assert_eq!(a.branches[0].then, Possibility::Impossible);
    assert_eq!(a.branches[0].orelse, Possibility::Possible);
    let src = net("", "if x.size(2) < 100:\n    return x\nreturn x + 1");
    let a = ask(&src, "");
    assert_eq!(a.branches[0].then, Possibility::Possible);
    let a = ask(&src, "x.size(2) >= 128");
    assert_eq!(a.branches[0].then, Possibility::Impossible);
}

#[test]
fn asserts_are_constraints_and_bad_constraints_are_noted() {
    let src = net(
        "self.conv = nn.Conv2d(3, 8, 3)",
        "assert x.shape == (b, 3, h, w)\nassert h == 2 * w\nreturn self.conv(x)",
    );
    let a = ask(&src, "w >= 3");
    let Some(Verdict::Sat(types)) = &a.q2 else {
        panic!("{:?}", a.q2)
    };
    assert_eq!(types[0].1.to_string(), "TensorType((1, 3, 6, 3))");
    let a = ask(&src, "x <= 3\ny.size(0) == 2");
    assert_eq!(a.notes.len(), 2, "{:?}", a.notes);
}

#[test]
fn q3_asks_of_a_comparison_kept_as_a_value() {
    // Linear(64) fixes x's second size: `eq` is always true; `small` may be either.
    let src = net(
        "self.fc = nn.Linear(64, 10)",
        "y = self.fc(x.flatten(1))\neq = x.size(1) * x.size(2) * x.size(3) == 64\nsmall = x.size(0) < 8\nreturn y",
    );
    let a = ask(&src, "");
    let by_var = |v: &str| a.branches.iter().find(|b| b.var.as_deref() == Some(v));
    let eq = by_var("eq").expect("eq is asked about");
    assert_eq!(
        (eq.then, eq.orelse),
        (Possibility::Possible, Possibility::Impossible)
    );
    let small = by_var("small").expect("small is asked about");
    assert_eq!(
        (small.then, small.orelse),
        (Possibility::Possible, Possibility::Possible)
    );
}

#[test]
fn a_huge_model_spends_a_bounded_budget_and_says_so() {
    // 200 convolutions each broadcast with a second and third input of unknown sizes:
    // thousands of broadcasting disjunctions. The questions stop at their budget.
    let mut init = String::new();
    let mut body = String::new();
    for i in 0..200 {
        init.push_str(&format!("self.c{i} = nn.Conv2d(8, 8, 3, padding=1)\n"));
        body.push_str(&format!("x = self.c{i}(x) + y * z\n"));
    }
    let src = net(&init, &format!("{body}return x")).replace(
        "def forward(self, x: TensorType((Dyn, Dyn, Dyn, Dyn))):",
        "def forward(self, x: TensorType((Dyn, Dyn, Dyn, Dyn)), y: TensorType((Dyn, Dyn, Dyn, Dyn)), z: TensorType((Dyn, Dyn, Dyn, Dyn))):",
    );
    let a = ask(&src, "");
    assert!(
        matches!(&a.q1, Verdict::Unknown(why) if why.contains("solver budget")),
        "{:?}",
        a.q1
    );
}

#[test]
fn a_conflict_names_the_windows_behind_its_unknowns() {
    // Two convolutions, then Linear(175): 4·(h−2)·(w−2) can never be 175. The conflict
    // says so through the windows' outputs, back to x's sizes.
    let src = net(
        "self.c0 = nn.Conv2d(5, 1, 2)\nself.c1 = nn.Conv2d(1, 4, 2)\nself.fc = nn.Linear(175, 10)",
        "y = self.c1(self.c0(x))\nreturn self.fc(y.view(y.size(0), -1))",
    );
    let a = ask(&src, "");
    let Verdict::Unsat(conflict) = &a.q1 else {
        panic!("{:?}", a.q1)
    };
    let whys: Vec<String> = conflict.iter().map(Origin::describe).collect();
    assert!(
        whys.iter()
            .any(|w| w.starts_with("Linear: the input features")),
        "{whys:?}"
    );
    assert!(whys.iter().any(|w| w.contains("x[2]")), "{whys:?}");
}
