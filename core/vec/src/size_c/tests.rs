use super::*;
use crate::eval::{Options, Outcome};
use crate::examples::{program, CH5};
use crate::shape::NoShape;
use crate::{check, evaluate, shape_of};
use shapex_vec_syntax::parse;

/// The simplified signature of `name` after the prelude and `defs`, displayed.
fn sig(defs: &str, name: &str) -> Result<String, Unsupported> {
    translate_c(&program(defs))
        .signature(name)
        .expect("defined")
        .map(|t| display(&t))
}

/// The simplified `#_C` of the term `source`, displayed.
fn main_sig(source: &str) -> Result<String, Unsupported> {
    translate_c(&program(source))
        .main_signature()
        .expect("a term")
        .map(|t| display(&t))
}

/// The closed term `t` evaluated alone (after the VEC prelude only).
fn run(t: &Term) -> Outcome {
    let p = Program {
        defs: vec![],
        main: Some(t.clone()),
    };
    evaluate(&p, &Options::default()).main.unwrap().outcome
}

/// `t a1 … an`, the arguments parsed.
fn apply(t: &Term, args: &[&str]) -> Term {
    args.iter().fold(t.clone(), |f, a| Term {
        span: f.span,
        kind: TermKind::App {
            fun: Box::new(f),
            arg: Box::new(program(a).main.unwrap()),
            infix: false,
        },
    })
}

fn term(source: &str) -> Term {
    program(source).main.unwrap()
}

/// Same value, or both shape errors.
fn same(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        (Outcome::ShapeError { .. }, Outcome::ShapeError { .. }) => true,
        _ => a == b,
    }
}

/// Spec §7, Chapter 5 and Appendix B's `display multiply`.
#[test]
fn golden_signatures() {
    assert_eq!(
        sig("", "multiply").unwrap(),
        "\\x y. check fst (snd x) = fst y then <fst x, <fst (snd y), un>>"
    );
    assert_eq!(
        sig("", "transpose").unwrap(),
        "\\x. <fst (snd x), <fst x, snd (snd x)>>"
    );
    assert_eq!(
        sig("", "putdown").unwrap(),
        "\\x y. check snd x = snd y then <fst x ~+ fst y, snd x>"
    );
    assert_eq!(sig("", "is_sing").unwrap(), "\\x. pred (fst x)");
}

/// `putright` against the spec's derivation (§7 [I]), by evaluation on sample shapes.
#[test]
fn putright_agrees_with_the_spec_s_derivation() {
    let got = translate_c(&program(""))
        .signature("putright")
        .unwrap()
        .unwrap();
    let want = term(
        "\\x y. check fst x = fst y, snd (snd x) = snd (snd y)
           then <fst x, <fst (snd x) ~+ fst (snd y), snd (snd x)>>",
    );
    let mats = [
        "<~2, <~3, un>>",
        "<~2, <~1, un>>",
        "<~3, <~1, un>>",
        "<~1, <~1, un>>",
    ];
    for a in mats {
        for b in mats {
            let (g, w) = (run(&apply(&got, &[a, b])), run(&apply(&want, &[a, b])));
            assert!(same(&g, &w), "putright {a} {b}: {g} against {w}");
        }
    }
    assert_eq!(
        display(&got),
        "\\x y. check fst x = fst y, snd (snd x) = snd (snd y) \
         then <fst x, <fst (snd x) ~+ fst (snd y), snd (snd x)>>"
    );
}

/// `rec`/`ifs` are "cannot analyse", never `err` (spec §9 item 4), and so is
/// whatever uses them, with the reason naming the definition.
#[test]
fn recursion_is_unsupported_not_a_shape_error() {
    for name in ["make", "read", "write", "sz_to_nat"] {
        let u = sig("", name).unwrap_err();
        assert!(u.reason.contains("`rec`"), "{name}: {}", u.reason);
    }
    let u = sig("def m = \\n. make n 1", "m").unwrap_err();
    assert_eq!(
        u.reason,
        "uses `make`, which uses `rec` (Sekanina §5.2: #_C cannot analyse recursion)"
    );
    let u = main_sig("def m = \\n. make n 1\nm ~2").unwrap_err();
    assert!(
        u.reason.starts_with("uses `m`, which uses `make`"),
        "{}",
        u.reason
    );
    let u = main_sig("multiply (make ~2 (make ~3 1)) [[1], [2], [3]]").unwrap_err();
    assert!(u.reason.contains("make"));
    assert!(main_sig("ifs zero then ~1 else ~2")
        .unwrap_err()
        .reason
        .contains("`ifs`"));
    assert!(main_sig("if 1 then 2 else 3").is_err());
}

/// Closed mains: shapes, and static shape errors (spec §7, Chapter 4's examples).
#[test]
fn closed_terms_simplify_to_their_shapes() {
    assert_eq!(
        main_sig("multiply [[1, 2], [3, 4]] [[1], [2]]").unwrap(),
        "<~2, <~1, un>>"
    );
    assert_eq!(main_sig("multiply [[1, 2]] [[1, 2]]").unwrap(), "err");
    assert_eq!(main_sig("append [1, 2, 3] [4, 5, 6]").unwrap(), "<~6, un>");
    assert_eq!(
        main_sig("map (/) [<1, 0>, <2, 0>, <3, 0>]").unwrap(),
        "<~3, un>"
    );
    assert_eq!(main_sig("fold (+) 0 [1, 2, 3]").unwrap(), "un");
    assert_eq!(main_sig("[[1], [1, 1]]").unwrap(), "err");
    assert_eq!(main_sig("tl [1]").unwrap(), "err");
    assert_eq!(main_sig("tl [1, 2, 3]").unwrap(), "<~2, un>");
    // `#_C fold` is conservative: folding `cons` is reported ill-shaped (spec §4.6).
    assert_eq!(
        main_sig("fold (\\p. fst p :: snd p) [1] [2, 3]").unwrap(),
        "err"
    );
}

/// Names `#_C` inserts mean the combinators whatever the program binds (brief item 3).
#[test]
fn inserted_names_are_never_captured() {
    let defs = "def snd = \\x. x\ndef fst = \\x. x\ndef g = \\x. hd x\n\
                def h = \\fst. map (\\snd. snd) fst\ndef k = \\eq. \\un. zip eq un";
    let p = translate_c(&program(defs));
    let g = p.signature("g").unwrap().unwrap();
    assert_eq!(display(&g), "\\x. snd x");
    assert_eq!(run(&apply(&g, &["<~2, un>"])).to_string(), "un");
    let h = p.signature("h").unwrap().unwrap();
    assert_eq!(display(&h), "\\x. <fst x, snd x>");
    let k = p.signature("k").unwrap().unwrap();
    assert_eq!(
        display(&k),
        "\\x y. check fst x = fst y then <fst x, <snd x, snd y>>"
    );
    assert_eq!(
        run(&apply(&k, &["<~2, un>", "<~2, ~1>"])).to_string(),
        "<~2, <un, ~1>>"
    );
    // The user's `fst` is used where the user wrote it.
    assert_eq!(sig(defs, "fst").unwrap(), "\\x. x");
    assert_eq!(
        main_sig(&format!("{defs}\nfst [1, 2]")).unwrap(),
        "<~2, un>"
    );
}

/// A program's own `map` is translated, not the skeleton.
#[test]
fn program_definitions_shadow_the_skeletons() {
    let defs = "def map = \\f x. x\ndef g = \\v. map hd v";
    assert_eq!(sig(defs, "map").unwrap(), "\\x y. y");
    assert_eq!(sig(defs, "g").unwrap(), "\\x. x");
    assert!(sig("def map = rec g. \\f x. x", "map").is_err());
}

/// `display` restores the sugar of spec §4.1 and its output parses back.
#[test]
fn display_restores_the_sugar() {
    let cases = [
        ("\\a b. pred (not (eq a b))", "\\x y. x = y"),
        (
            "\\a b t. check pred a, pred b then t",
            "\\x y z. check pred x, pred y then z",
        ),
        (
            "\\a. let b <= pred a in <b, b>",
            "\\x. let y <= pred x in <y, y>",
        ),
        ("\\a b. a ~+ b ~+ ~2", "\\x y. x ~+ y ~+ ~2"),
        ("\\a b. a ~+ (b ~+ a)", "\\x y. x ~+ (y ~+ x)"),
    ];
    for (src, want) in cases {
        let got = display(&simplify(&term(src)));
        assert_eq!(got, want, "{src}");
        let back = display(&simplify(&term(&got)));
        assert_eq!(back, want);
    }
}

/// The §4.4 rules on small closed and open terms.
#[test]
fn reduction_rules() {
    let cases = [
        ("fst <~1, pred zero>", "err"),
        ("snd <~1, un>", "un"),
        ("pred (succ zero)", "zero"),
        ("\\x. eq (succ x) (succ x)", "\\x. zero"),
        ("\\x. eq un x", "\\x. zero"),
        ("\\x y. eq <x, un> <y, un>", "\\x y. eq x y"),
        ("\\x. and zero x", "\\x. x"),
        ("\\x. not (succ x)", "\\x. zero"),
        ("\\x. not (and x ~1)", "\\x. zero"),
        ("\\x. ~2 ~+ x", "\\x. succ (succ x)"),
        ("\\x. x ~+ zero", "\\x. x"),
        ("\\x. <pred x, un>", "\\x. let y <= pred x in <y, un>"),
        (
            "\\f x. check f x then check pred x then x",
            "\\x y. check x y, pred y then y",
        ),
        ("\\x. check err then x", "\\x. err"),
        ("(\\f. f ~1) (\\x. pred x)", "zero"),
        (
            "\\x. let y <= (let z <= pred x in pred z) in y",
            "\\x. let y <= pred x in pred y",
        ),
    ];
    for (src, want) in cases {
        assert_eq!(display(&simplify(&term(src))), want, "{src}");
    }
}

/// The step budget and the depth bounds: no hang, no stack overflow.
#[test]
fn budgets_end_divergent_and_deep_terms() {
    let omega = term("(\\x. x x) (\\x. x x)");
    let _ = simplify(&omega);
    // Deeper than the parser allows: built directly.
    let deep = |n: usize| {
        let succ = term("succ");
        (0..n).fold(term("zero"), |t, _| Term {
            span: t.span,
            kind: TermKind::App {
                fun: Box::new(succ.clone()),
                arg: Box::new(t),
                infix: false,
            },
        })
    };
    assert_eq!(display(&simplify(&deep(120))), "~120");
    let huge = deep(1000);
    assert_eq!(simplify(&huge), huge);
    assert!(translate_c(&Program {
        defs: vec![],
        main: Some(huge)
    })
    .main
    .unwrap()
    .is_err());
    let long: Vec<String> = (0..2000).map(|i| i.to_string()).collect();
    let u = main_sig(&format!("[{}]", long.join(", "))).unwrap_err();
    assert!(u.reason.contains("too large"), "{}", u.reason);
    let dup = "\\x. (\\f. f (f (f (f (f (f (f (f x)))))))) (\\y. <y, y>)";
    let _ = simplify(&term(dup));
}

/// The Chapter 5 example file's hand-written normal forms are normal (P18).
#[test]
fn the_example_file_s_normal_forms_are_normal() {
    let p = program(CH5);
    for name in ["shapec_multiply", "shapec_putdown", "shapec_transpose"] {
        let t = p.def(name).unwrap();
        let body = &t.body;
        assert_eq!(
            display(&simplify(body)),
            display(&simplify(&simplify(body)))
        );
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use super::*;
    use proptest::prelude::*;

    fn small() -> Options {
        Options {
            fuel: 20_000,
            max_depth: 2_000,
            trace_cap: 0,
            regular_vectors: false,
        }
    }

    fn eval(t: &Term) -> Outcome {
        let p = Program {
            defs: vec![],
            main: Some(t.clone()),
        };
        evaluate(&p, &small()).main.unwrap().outcome
    }

    fn grow(
        leaf: BoxedStrategy<String>,
        forms: &'static [&'static str],
    ) -> impl Strategy<Value = String> {
        leaf.prop_recursive(5, 40, 3, move |inner| {
            (
                prop::sample::select(forms),
                inner.clone(),
                inner.clone(),
                inner,
            )
                .prop_map(|(f, a, b, c)| f.replace("{a}", &a).replace("{b}", &b).replace("{c}", &c))
        })
    }

    /// Closed-ish SIZE_C terms (spec §4.1).
    fn size_c_term() -> impl Strategy<Value = String> {
        let leaf = prop::sample::select(
            &[
                "zero", "~1", "~2", "un", "err", "succ", "pred", "fst", "snd", "eq", "and", "not",
                "(~+)", "(=)", "pair", "(\\z. z)", "<~1, un>", "x", "y",
            ][..],
        )
        .prop_map(str::to_owned)
        .boxed();
        grow(
            leaf,
            &[
                "({a} {b})",
                "({a} {b} {c})",
                "<{a}, {b}>",
                "(\\x. {a})",
                "(\\y. {a})",
                "(let x <= {a} in {b})",
                "(check {a} then {b})",
                "({a} = {b})",
                "({a} ~+ {b})",
            ],
        )
    }

    /// VEC terms over the skeletons, without `rec`/`ifs`.
    fn vec_term() -> impl Strategy<Value = String> {
        let leaf = prop::sample::select(
            &[
                "0",
                "1",
                "~2",
                "zero",
                "un",
                "err",
                "[1, 2]",
                "[[1], [2, 2]]",
                "[[1, 2], [3, 4]]",
                "[[1], [2]]",
                "[~1, ~2]",
                "hd",
                "tl",
                "succ",
                "pred",
                "fst",
                "snd",
                "length",
                "map",
                "fold (+) 0",
                "(+)",
                "(/)",
                "zip",
                "append",
                "transpose",
                "sing",
                "is_sing",
                "<1, 2>",
                "eq",
                "not",
                "and",
                "multiply",
                "putdown",
                "putright",
                "zip'",
                "(\\z. z)",
                "x",
                "[<1, 0>, <2, 2>]",
            ][..],
        )
        .prop_map(str::to_owned)
        .boxed();
        grow(
            leaf,
            &[
                "({a} {b})",
                "({a} {b} {c})",
                "<{a}, {b}>",
                "[{a}, {b}]",
                "({a} :: {b})",
                "({a} + {b})",
                "({a} = {b})",
                "(\\x. {a})",
                "(let x <= {a} in {b})",
                "(check {a} then {b})",
            ],
        )
    }

    fn well_typed(source: &str) -> Option<Program> {
        let parsed = parse(source);
        let ok = parsed.diagnostics.is_empty() && check(&parsed.program).diagnostics.is_empty();
        ok.then_some(parsed.program)
    }

    /// Sizes that are not functions compare; functions are compared by applying them
    /// (the open-signature property below).
    fn agree(a: &Outcome, b: &Outcome) -> bool {
        match (a, b) {
            (Outcome::OutOfFuel { .. }, _) | (_, Outcome::OutOfFuel { .. }) => true,
            (Outcome::Value(v), Outcome::Value(w)) => erase(v) == erase(w),
            _ => same(a, b),
        }
    }

    /// `v` with every function replaced by one placeholder.
    fn erase(v: &crate::Value) -> crate::Value {
        use crate::Value;
        match v {
            Value::Function(_) => Value::Function(String::new()),
            Value::Pair(a, b) => Value::Pair(Box::new(erase(a)), Box::new(erase(b))),
            Value::Vector(items) => Value::Vector(items.iter().map(erase).collect()),
            v => v.clone(),
        }
    }

    fn shape_arg() -> impl Strategy<Value = String> {
        (1u64..4, 1u64..4).prop_map(|(m, n)| format!("<~{m}, <~{n}, un>>"))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, max_global_rejects: 50_000, .. ProptestConfig::default() })]

        /// P19 (Thm 5.1.3, `=sc ⊆ ≈sc`) and P18 (Thm 5.1.2: normalising, so
        /// `simplify` is idempotent) on closed SIZE_C terms.
        #[test]
        fn simplification_preserves_evaluation(s in size_c_term()) {
            let Some(p) = well_typed(&s) else { return Err(TestCaseError::reject("ill typed")) };
            let t = p.main.unwrap();
            let n = simplify(&t);
            let (before, after) = (eval(&t), eval(&n));
            prop_assert!(agree(&before, &after), "{s}: {before}; simplified {} ⇒ {after}", display(&n));
            prop_assert!(!matches!(after, Outcome::Stuck { .. }), "{}: {after}", display(&n));
            prop_assert_eq!(display(&simplify(&n)), display(&n), "{}", s);
        }

        /// P19 on open signatures: the simplified and unsimplified `#_C` of the
        /// prelude's skeleton uses agree on shape arguments.
        #[test]
        fn signatures_agree_with_their_unsimplified_shapes(a in shape_arg(), b in shape_arg()) {
            let p = translate_c(&Program::default());
            let pairs = format!("<{a}, {b}>");
            let cases: [(&str, Vec<&str>); 7] = [
                ("multiply", vec![&a, &b]),
                ("transpose", vec![&a]),
                ("putdown", vec![&a, &b]),
                ("putright", vec![&a, &b]),
                ("append'", vec![&pairs]),
                ("zip'", vec![&pairs]),
                ("scalar", vec![&a, &b]),
            ];
            for (name, args) in cases {
                let raw = p.prelude.iter().rev().find(|d| d.name == name).unwrap();
                let raw = raw.shape.clone().unwrap();
                let simple = p.signature(name).unwrap().unwrap();
                let (x, y) = (eval(&apply(&raw, &args)), eval(&apply(&simple, &args)));
                prop_assert!(same(&x, &y), "{name} {args:?}: {x} against {y}");
            }
        }

        /// P20 (Thm 5.2.1): if `t ⇒ v` then `simplify(#_C t)` evaluates to the shape
        /// of `v` or to `err`; if `t ⇒ err`, so does it.
        #[test]
        fn simplified_shapes_predict_evaluation(t in vec_term()) {
            let Some(p) = well_typed(&t) else { return Err(TestCaseError::reject("ill typed")) };
            let Some(Ok(shape)) = translate_c(&p).main_signature() else {
                return Err(TestCaseError::reject("unsupported"));
            };
            let r = eval(p.main.as_ref().unwrap());
            if let Outcome::Value(crate::Value::Function(_)) = r {
                return Err(TestCaseError::reject("a function"));
            }
            let s = eval(&shape);
            prop_assert!(!matches!(s, Outcome::Stuck { .. }), "#_C({t}) = {} is stuck: {s}", display(&shape));
            let shape_err = matches!(s, Outcome::ShapeError { .. } | Outcome::OutOfFuel { .. });
            match &r {
                Outcome::Value(v) => match shape_of(v) {
                    Ok(w) => prop_assert!(shape_err || s == Outcome::Value(w.clone()),
                        "{t} ⇒ {v}, shape {w}, but #_C t = {} ⇒ {s}", display(&shape)),
                    Err(NoShape::Err) => prop_assert!(shape_err, "{t} ⇒ {v} (ragged), #_C t ⇒ {s}"),
                    Err(NoShape::Unknown) => {}
                },
                Outcome::ShapeError { .. } => prop_assert!(shape_err, "{t} ⇒ {r}, but #_C t = {} ⇒ {s}", display(&shape)),
                _ => {}
            }
        }
    }
}
