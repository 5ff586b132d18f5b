use super::*;
use crate::eval::{Options, Outcome};
use crate::{check, check_alone, evaluate, print};
use shapex_vec_syntax::parse;

use crate::examples::{program, CH2, CH3, CH4, CH4P, CH5, CH6};

fn compact(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The shape program's evaluation.
fn shapes(source: &str) -> crate::Evaluation {
    evaluate(
        &translate(&program(source)).to_program(),
        &Options::default(),
    )
}

/// `#t` of the term `source`, printed.
fn hash(source: &str) -> String {
    print::term(translate(&program(source)).main.as_ref().unwrap())
}

#[test]
fn fig_4_1_as_the_spec_writes_it() {
    let cases = [
        ("sing", "\\x. <succ zero, x>"),
        (
            "cons",
            "\\x y. ifs eq x (snd y) then <succ (fst y), snd y> else err",
        ),
        ("hd", "snd"),
        (
            "tl",
            "\\x. ifs pred (fst x) then err else <pred (fst x), snd x>",
        ),
        ("length", "fst"),
        ("3", "un"),
        ("(+)", "\\x. un"),
        ("(-)", "\\x. un"),
        ("(*)", "\\x. un"),
        ("(/)", "\\x. un"),
        ("1 / 0", "(\\x. un) <un, un>"),
        // Every other combinator is itself.
        ("fst", "fst"),
        ("pred ~2", "pred ~2"),
        ("eq", "eq"),
        ("err", "err"),
        ("un", "un"),
        ("\\x. x", "\\x. x"),
        ("\\(x : vec nat). hd x", "\\(x : sz * un). snd x"),
        ("rec f. \\n. ifs n then zero else f (pred n)", "rec f. \\n. ifs n then zero else f (pred n)"),
        // A bound name or a definition is not a combinator.
        ("\\hd. hd", "\\hd. hd"),
        ("map hd", "map snd"),
        ("[1]", "(\\x. <succ zero, x>) un"),
        (
            "1 :: [2]",
            "(\\x y. ifs eq x (snd y) then <succ (fst y), snd y> else err) un ((\\x. <succ zero, x>) un)",
        ),
    ];
    for (t, want) in cases {
        assert_eq!(hash(t), want, "#({t})");
    }
    // A later definition shadows the combinator.
    let shape = translate(&program("def hd = fst\ndef a = hd <1, 2>\nhd"));
    assert_eq!(print::term(&shape.defs[1].body), "hd <un, un>");
}

#[test]
fn make_translates_to_the_term_the_spec_displays() {
    let shape = translate(&Program::default());
    let make = shape.def("make").unwrap();
    let hand = program(CH4P);
    let want = &hand.def("shape_make").unwrap().body;
    assert_eq!(print::term(&make.body), print::term(want));
    assert_eq!(
        print::def(make),
        format!("def make : sz -> 'a -> sz * 'a = {}", print::term(want))
    );
}

#[test]
fn spans_point_back_at_the_source() {
    let source = "[1, hd [2]]";
    let shape = translate(&program(source));
    let main = shape.main.unwrap();
    assert_eq!(main.span, Span::new(0, source.len()));
    // (#cons #1) (…): the numeral's `un` keeps the numeral's span.
    let TermKind::App { fun, .. } = &main.kind else {
        panic!()
    };
    let TermKind::App {
        fun: cons,
        arg: one,
        ..
    } = &fun.kind
    else {
        panic!()
    };
    assert_eq!(one.span, Span::new(1, 2));
    assert!(matches!(&one.kind, TermKind::Var(x) if x.name == "un#"));
    assert_eq!(cons.span, Span::new(0, source.len()));
    // `hd`'s `snd` has the span of `hd`.
    let mut found = false;
    fn walk(t: &Term, f: &mut dyn FnMut(&Term)) {
        f(t);
        match &t.kind {
            TermKind::App { fun, arg, .. } => {
                walk(fun, f);
                walk(arg, f);
            }
            TermKind::Pair(a, b) => {
                walk(a, f);
                walk(b, f);
            }
            TermKind::Lam { body, .. } => walk(body, f),
            TermKind::Ifs {
                cond,
                then,
                otherwise,
            } => {
                walk(cond, f);
                walk(then, f);
                walk(otherwise, f);
            }
            _ => {}
        }
    }
    walk(&main, &mut |t| {
        if matches!(&t.kind, TermKind::Var(x) if x.name == "snd#") && t.span == Span::new(4, 6) {
            found = true;
        }
    });
    assert!(found);
}

#[test]
fn types_translate_by_def_4_1_1() {
    let cases = [
        ("nat", "un"),
        ("bool", "un"),
        ("un", "un"),
        ("sz", "sz"),
        ("vec nat", "sz * un"),
        ("mat 'a", "sz * sz * 'a"),
        ("vec (nat * sz) -> sz", "sz * un * sz -> sz"),
        ("(nat -> nat) -> vec nat", "(un -> un) -> sz * un"),
        ("vec nat * vec nat -> nat", "(sz * un) * sz * un -> un"),
    ];
    for (t, want) in cases {
        let p = program(&format!("def a : {t} = err"));
        let got = translate_type(p.defs[0].ty.as_ref().unwrap());
        assert_eq!(print::ty(&got), want, "#({t})");
        // The printed type reads back as itself.
        let again = program(&format!("def a : {want} = err"));
        assert_eq!(print::ty(again.defs[0].ty.as_ref().unwrap()), want);
        // `translate_ty` agrees with `translate_type` through the checker.
        let scheme = &check_alone(&p).defs[0].scheme;
        let shape_scheme = &check_alone(&again).defs[0].scheme;
        assert_eq!(translate_ty(&scheme.ty), shape_scheme.ty, "#({t})");
    }
}

/// Lemma 4.1.3 (P9): `Γ ⊢ t : σ` implies `#Γ ⊢ #t : #σ`. For every prelude
/// definition, the translated definition, stripped of its annotation and typed on its
/// own, has a type of which `#σ` is an instance.
#[test]
fn typing_lemma_for_every_prelude_definition() {
    let prelude = shapex_vec_syntax::prelude();
    let typed = check_alone(&prelude);
    assert!(typed.diagnostics.is_empty());
    let mut shape = translate(&Program::default()).prelude;
    for d in &mut shape {
        d.ty = None;
        for p in &mut d.params {
            p.ty = None;
        }
    }
    let shape_typed = check_alone(&Program {
        defs: shape.clone(),
        main: None,
    });
    assert!(
        shape_typed.diagnostics.is_empty(),
        "{:?}",
        shape_typed.diagnostics
    );
    assert_eq!(shape_typed.defs.len(), prelude.defs.len());
    for (d, s) in typed.defs.iter().zip(&shape_typed.defs) {
        assert_eq!(d.name, s.name);
        let want = translate_scheme(&d.scheme);
        assert!(
            s.inferred.generalizes(&want).is_ok(),
            "#{}: `{}` is not an instance of `{}`",
            d.name,
            want,
            s.inferred
        );
    }
    // The translated prelude as `to_program` gives it (parameters annotated).
    let t = check_alone(&translate(&Program::default()).to_program());
    assert!(t.diagnostics.is_empty(), "{:?}", t.diagnostics);
}

/// The printed shape program reads back to itself.
#[test]
fn printing_reads_back() {
    let mut n = 0;
    for source in [CH2, CH3, CH4, CH4P, CH5, CH6] {
        let p = program(source);
        let shape = translate(&p);
        for d in shape.prelude.iter().chain(&shape.defs).chain(&p.defs) {
            let text = print::def(d);
            let again = program(&text);
            assert_eq!(print::def(&again.defs[0]), text);
            n += 1;
        }
        for t in shape.main.iter().chain(&p.main) {
            let text = print::term(t);
            let again = program(&text);
            assert_eq!(print::term(again.main.as_ref().unwrap()), text);
        }
        // The whole shape program reads back and means the same (spans aside, and an
        // `err`'s origin, which is metadata: `#if`'s undecided `err` prints as `err`).
        let text = format!("{}{}", shape.prelude_text(), shape);
        let outcomes = |e: crate::Evaluation| -> Vec<String> {
            e.defs
                .iter()
                .map(|d| &d.report)
                .chain(e.main.as_ref())
                .map(|r| match &r.outcome {
                    crate::Outcome::ShapeError { .. } => "err".to_string(),
                    o => o.to_string(),
                })
                .collect()
        };
        assert_eq!(
            outcomes(evaluate(&program(&text), &Options::default())),
            outcomes(evaluate(&shape.to_program(), &Options::default()))
        );
    }
    assert!(n > 100);
}

/// Remark §4.1 (P10): `#` is the identity on SIZE terms.
#[test]
fn identity_on_size_terms() {
    let p = program(CH2);
    let shape = translate(&p);
    for (d, s) in p.defs.iter().zip(&shape.defs) {
        assert_eq!(print::def(d), print::def(s));
    }
}

/// Every `-- #⇒ r` comment of the Chapter 4 examples: the definition's shape
/// evaluates to `r` (`err`: a shape error).
#[test]
fn chapter_four_shapes_are_the_spec_s() {
    let eval = shapes(CH4);
    let mut compared = 0;
    for line in CH4.lines() {
        let Some(rest) = line.strip_prefix("def ") else {
            continue;
        };
        let Some((head, comment)) = rest.split_once("-- #⇒") else {
            continue;
        };
        let want = comment.split("  ").next().unwrap().trim();
        let name = head.split_whitespace().next().unwrap();
        let got = &eval.def(name).unwrap_or_else(|| panic!("{name}")).outcome;
        if want == "err" {
            assert!(
                matches!(got, Outcome::ShapeError { .. }),
                "{name}: expected err, found {got}"
            );
        } else {
            let Outcome::Value(v) = got else {
                panic!("{name}: expected {want}, found {got}")
            };
            assert_eq!(compact(&v.to_string()), compact(want), "{name}");
        }
        compared += 1;
    }
    let commented = CH4
        .lines()
        .filter(|l| l.starts_with("def ") && l.contains("-- #⇒"))
        .count();
    assert_eq!(compared, commented);
    assert_eq!(compared, 23);
    // N2: the term diverges, its shape is err.
    assert!(matches!(
        eval.def("diverging").unwrap().outcome,
        Outcome::ShapeError { .. }
    ));
    // N3, written infix.
    assert_eq!(
        eval.def("division_infix").unwrap().outcome,
        Outcome::Value(Value::Un)
    );
    // The final term, `multiply mat2 mat1`.
    assert!(matches!(
        eval.main.unwrap().outcome,
        Outcome::ShapeError { .. }
    ));
}

/// The hand-written shape programs of §7 agree with the translated ones.
#[test]
fn translated_shapes_agree_with_the_spec_s_closed_forms() {
    // The file's definitions, without its final term.
    let hand: String = CH4P
        .lines()
        .filter(|l| !l.starts_with("shape_multiply <"))
        .map(|l| format!("{l}\n"))
        .collect();
    let defs = format!("{hand}def m1 = make ~2 (make ~3 1)\ndef m2 = make ~3 (make ~1 2)");
    let cases = [
        ("make ~4 [1, 2]", "shape_make_closed ~4 <~2, un>"),
        ("make ~1 <1, ~3>", "shape_make_closed ~1 <un, ~3>"),
        ("transpose m1", "shape_transpose <~2, <~3, un>>"),
        ("transpose m2", "shape_transpose <~3, <~1, un>>"),
        (
            "multiply m1 m2",
            "shape_multiply <~2, <~3, un>> <~3, <~1, un>>",
        ),
        (
            "multiply m2 m1",
            "shape_multiply <~3, <~1, un>> <~2, <~3, un>>",
        ),
        (
            "multiply m1 m1",
            "shape_multiply <~2, <~3, un>> <~2, <~3, un>>",
        ),
        (
            "multiply m2 m2",
            "shape_multiply <~3, <~1, un>> <~3, <~1, un>>",
        ),
    ];
    for (t, closed) in cases {
        let got = shapes(&format!("{defs}\n{t}")).main.unwrap().outcome;
        let want = evaluate(&program(&format!("{hand}{closed}")), &Options::default())
            .main
            .unwrap()
            .outcome;
        match (&got, &want) {
            (Outcome::ShapeError { .. }, Outcome::ShapeError { .. }) => {}
            (Outcome::Value(a), Outcome::Value(b)) => assert_eq!(a, b, "#({t})"),
            _ => panic!("#({t}): {got} against {want}"),
        }
    }
    // The errata (spec §7 [I]): `#make ~0 x ⇒ err`, while `<~0, x>` is a value.
    assert!(matches!(
        shapes("make ~0 1").main.unwrap().outcome,
        Outcome::ShapeError { .. }
    ));
}

#[test]
fn the_shape_of_a_value() {
    let v = |s: &str| match evaluate(&program(s), &Options::default())
        .main
        .unwrap()
        .outcome
    {
        Outcome::Value(v) => v,
        o => panic!("{o}"),
    };
    assert_eq!(
        shape_of(&v("[[1, 1], [2, 2], [3, 3]]"))
            .unwrap()
            .to_string(),
        "<~3, <~2, un>>"
    );
    assert_eq!(
        shape_of(&v("[<~1, 1>, <~1, 2>]")).unwrap().to_string(),
        "<~2, <~1, un>>"
    );
    assert_eq!(shape_of(&v("<1, zero>")).unwrap().to_string(), "<un, zero>");
    assert_eq!(shape_of(&v("[[1], [2, 2]]")), Err(NoShape::Err));
    assert_eq!(shape_of(&v("[~1, ~2]")), Err(NoShape::Err));
    assert_eq!(shape_of(&v("fst")), Err(NoShape::Unknown));
    // `#v` evaluated is `shape_of(v)`.
    for s in [
        "[[1, 1], [2, 2], [3, 3]]",
        "[<~1, 1>, <~1, 2>]",
        "<1, zero>",
        "[[1], [2, 2]]",
    ] {
        let got = shapes(s).main.unwrap().outcome;
        match shape_of(&v(s)) {
            Ok(w) => assert_eq!(got, Outcome::Value(w)),
            Err(_) => assert!(matches!(got, Outcome::ShapeError { .. })),
        }
    }
}

#[test]
fn shape_programs_type_check_for_every_example() {
    for source in [CH3, CH4] {
        let p = program(source);
        assert!(check(&p).diagnostics.is_empty());
        let shape = translate(&p).to_program();
        let typed = check_alone(&shape);
        assert!(typed.diagnostics.is_empty(), "{:?}", typed.diagnostics);
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use super::*;
    use crate::eval::tests::props::term;
    use proptest::prelude::*;

    fn small() -> Options {
        Options {
            fuel: 20_000,
            max_depth: 2_000,
            trace_cap: 0,
            regular_vectors: false,
        }
    }

    /// More fuel for the shape: Cor 4.3.7 bounds no steps.
    fn generous() -> Options {
        Options {
            fuel: 400_000,
            max_depth: 20_000,
            ..small()
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, max_global_rejects: 20_000, .. ProptestConfig::default() })]

        /// Thm 4.3.4 (P14): if `t ⇒ v` then `#t ⇒ err` or `#t ⇒ #v` (at ground
        /// type); Cor 4.3.5 (P15): if `t ⇒ err` then `#t ⇒ err`; Lemma 4.1.3 (P9):
        /// `#t` type-checks, so it never gets stuck. Data conditionals (`if`, §5.1)
        /// are left out: option 2 needs θ-shaped branches.
        #[test]
        fn shapes_predict_evaluation(t in term()) {
            prop_assume!(!t.contains("(if "));
            let parsed = parse(&t);
            prop_assume!(parsed.diagnostics.is_empty());
            prop_assume!(check(&parsed.program).diagnostics.is_empty());
            let r = evaluate(&parsed.program, &small()).main.unwrap().outcome;
            let shape = translate(&parsed.program).to_program();
            let typed = check_alone(&shape);
            prop_assert!(typed.diagnostics.is_empty(), "#({t}): {:?}", typed.diagnostics);
            let s = evaluate(&shape, &generous()).main.unwrap().outcome;
            prop_assert!(!matches!(s, Outcome::Stuck { .. }), "#({t}) is stuck: {s}");
            let shape_err = matches!(s, Outcome::ShapeError { .. });
            let unknown = matches!(s, Outcome::OutOfFuel { .. });
            match &r {
                Outcome::Value(v) => match shape_of(v) {
                    Ok(w) => prop_assert!(
                        shape_err || unknown || s == Outcome::Value(w.clone()),
                        "{t} ⇒ {v}, shape {w}, but #t ⇒ {s}"
                    ),
                    Err(NoShape::Err) => prop_assert!(shape_err || unknown, "{t} ⇒ {v} (ragged), #t ⇒ {s}"),
                    Err(NoShape::Unknown) => {}
                },
                Outcome::ShapeError { .. } => {
                    prop_assert!(shape_err || unknown, "{t} ⇒ {r}, but #t ⇒ {s}")
                }
                _ => {}
            }
        }
    }
}
