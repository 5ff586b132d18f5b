use super::*;
use crate::check;
use shapex_vec_syntax::parse;

use crate::examples::{program, CH2, CH3, CH4, CH4P, CH5, CH6};

fn eval_with(source: &str, options: &Options) -> Evaluation {
    evaluate(&program(source), options)
}

fn eval(source: &str) -> Evaluation {
    eval_with(source, &Options::default())
}

fn regular() -> Options {
    Options {
        regular_vectors: true,
        ..Options::default()
    }
}

/// The final term's outcome.
fn main_of(source: &str) -> Outcome {
    eval(source).main.expect("a term").outcome
}

fn compact(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

fn value_text(o: &Outcome) -> String {
    match o {
        Outcome::Value(v) => v.to_string(),
        other => panic!("expected a value, found {other}"),
    }
}

fn origin(o: &Outcome) -> Origin {
    match o {
        Outcome::ShapeError { origin, .. } => *origin,
        other => panic!("expected a shape error, found {other}"),
    }
}

/// Every `-- ⇒ r` (and `-- = r`) comment on a definition of `source`: the
/// definition evaluates as the term `r` does (both to the same value, or both to a
/// shape error). Returns how many were compared.
fn golden(source: &str) -> usize {
    let eval = eval(source);
    let mut compared = 0;
    for line in source.lines() {
        let Some(rest) = line.strip_prefix("def ") else {
            continue;
        };
        let Some((head, comment)) = rest.split_once("-- ") else {
            continue;
        };
        let comment = comment.trim();
        let Some(expected) = comment
            .strip_prefix("⇒ ")
            .or_else(|| comment.strip_prefix("= "))
        else {
            continue;
        };
        let name = head.split_whitespace().next().unwrap();
        let got = &eval.def(name).unwrap_or_else(|| panic!("{name}")).outcome;
        let want = main_of(expected);
        match (&want, got) {
            (Outcome::ShapeError { .. }, Outcome::ShapeError { .. }) => {}
            (Outcome::Value(w), Outcome::Value(g)) => {
                assert_eq!(w, g, "{name}: expected {expected}, found {g}");
                assert_eq!(compact(&g.to_string()), compact(&w.to_string()));
            }
            _ => panic!("{name}: expected {want}, found {got}"),
        }
        compared += 1;
    }
    compared
}

#[test]
fn examples_evaluate_as_their_comments_say() {
    assert_eq!(golden(CH2), 4);
    assert_eq!(golden(CH3), 16);
    assert_eq!(golden(CH4P), 1);
}

#[test]
fn printing_follows_the_comments_literally() {
    let e = eval(CH3);
    let text = |n: &str| compact(&e.def(n).unwrap().outcome.to_string());
    assert_eq!(text("mat1"), "[[1,1,1],[1,1,1]]");
    assert_eq!(text("mat2"), "[[2],[2],[2]]");
    assert_eq!(text("zip_row"), "[<1,[2]>,<1,[2]>,<1,[2]>]");
    assert_eq!(text("product"), "[[6],[6]]");
    assert_eq!(text("ragged_hd"), "[1]");
    assert_eq!(text("transposed"), "[[1,4],[2,5],[3,6]]");
    assert_eq!(text("uncurried"), "[<1,3>,<2,4>]");
    let main = e.main.unwrap().outcome;
    assert_eq!(value_text(&main), "[[6], [6]]");
    let v = value_text(&main_of(CH4P));
    assert_eq!(v, "<~2, <~1, un>>");
    assert_eq!(value_text(&main_of("eq un un")), "zero");
}

#[test]
fn chapter_two_and_five_and_six() {
    // not (and zero ~1) = not ~1 = zero
    assert_eq!(value_text(&main_of(CH2)), "zero");
    let e = eval(CH2);
    assert_eq!(origin(&e.def("pred_zero").unwrap().outcome), Origin::Pred);
    assert!(matches!(
        e.def("diverges").unwrap().outcome,
        Outcome::OutOfFuel {
            limit: Limit::Steps(_)
        }
    ));
    assert_eq!(value_text(&e.def("eq_sizes").unwrap().outcome), "~2");
    // The last item is a function.
    assert!(matches!(main_of(CH5), Outcome::Value(Value::Function(_))));
    let e = eval(CH6);
    assert_eq!(value_text(&e.def("lengths").unwrap().outcome), "~5");
    assert_eq!(value_text(&e.main.unwrap().outcome), "[1, 2, 3]");
    let fact = "def fact = rec f. \\x. if x then 1 else x * (f (x - 1))\nfact 5";
    assert_eq!(value_text(&main_of(fact)), "120");
}

#[test]
fn chapter_four_terms_evaluate() {
    let e = eval(CH4);
    let o = |n: &str| e.def(n).unwrap().outcome.clone();
    // N1: a ragged vector is a value, and so is its head.
    assert_eq!(compact(&value_text(&o("ragged"))), "[[1],[2,2],[3,3]]");
    assert_eq!(value_text(&o("ragged_hd")), "[1]");
    assert_eq!(value_text(&o("distinct_sizes")), "[~1, ~2, ~3]");
    assert_eq!(value_text(&o("read_in")), "1");
    assert_eq!(origin(&o("read_out")), Origin::Tl);
    // zip of a shorter first vector ends in zip's explicit `err`.
    assert_eq!(origin(&o("zipped")), Origin::Err);
    assert_eq!(origin(&o("product_mismatch")), Origin::Err);
    assert_eq!(compact(&value_text(&o("appended"))), "[1,2,3,4,5,6]");
    assert_eq!(value_text(&o("folded")), "6");
    assert_eq!(compact(&value_text(&o("summed_pairs"))), "[3,7,11]");
    assert_eq!(compact(&value_text(&o("mapped"))), "[1,2,3]");
    // N3: data errors are not shape errors.
    for n in ["divided", "division", "division_infix"] {
        assert!(matches!(o(n), Outcome::DataError { .. }), "{n}: {}", o(n));
    }
    // N2: `<[~1,~2], rec f. f>` diverges.
    assert!(matches!(o("diverging"), Outcome::OutOfFuel { .. }));
    assert_eq!(origin(&e.main.unwrap().outcome), Origin::Err);
}

#[test]
fn regular_vectors_make_ragged_ones_shape_errors_at_cons() {
    let e = eval_with(CH4, &regular());
    let o = |n: &str| e.def(n).unwrap().outcome.clone();
    for n in ["ragged", "ragged_hd", "distinct_sizes", "appended_ragged"] {
        assert_eq!(origin(&o(n)), Origin::Cons, "{n}");
    }
    // With regularity, N2's term fails at `cons` before `rec f. f` runs.
    assert_eq!(origin(&o("diverging")), Origin::Cons);
    for n in [
        "square", "pairs", "sizes", "mixed", "mat1", "appended", "product",
    ] {
        assert!(matches!(o(n), Outcome::Value(_)), "{n}: {}", o(n));
    }
    let source = "[[1],[2,2]]";
    match main_of_with(source, &regular()) {
        Outcome::ShapeError {
            origin: Origin::Cons,
            span,
            detail,
        } => {
            assert_eq!(&source[span.start..span.end], "[1],[2,2]");
            assert!(
                detail.contains("[1]") && detail.contains("[2, 2]"),
                "{detail}"
            );
            assert!(
                detail.contains("<~1, un>") && detail.contains("<~2, un>"),
                "{detail}"
            );
        }
        other => panic!("{other}"),
    }
    // The same via `::`.
    let source = "[1] :: [[2, 2]]";
    assert_eq!(origin(&main_of_with(source, &regular())), Origin::Cons);
    // Sizes are their own shapes; data is not.
    assert!(matches!(
        main_of_with("[1, 2]", &regular()),
        Outcome::Value(_)
    ));
}

fn main_of_with(source: &str, options: &Options) -> Outcome {
    eval_with(source, options).main.unwrap().outcome
}

#[test]
fn shape_errors_record_their_origin_and_span() {
    let cases = [
        ("pred zero", Origin::Pred, "pred zero"),
        ("hd (tl [1])", Origin::Tl, "(tl [1])"),
        ("succ err", Origin::Err, "err"),
        ("~1 = ~2", Origin::Equal, "~1 = ~2"),
        ("read ~0 [1]", Origin::Pred, "pred n"),
        ("make ~0 1", Origin::Pred, "pred n"),
        ("zip [1] [1, 2]", Origin::Err, "err"),
    ];
    for (source, want, text) in cases {
        match main_of(source) {
            Outcome::ShapeError { origin, span, .. } => {
                assert_eq!(origin, want, "{source}");
                if span.end <= source.len() {
                    assert_eq!(&source[span.start..span.end], text, "{source}");
                }
            }
            other => panic!("{source}: {other}"),
        }
    }
    // Errors in the prelude carry the prelude's spans.
    match main_of("read ~4 [1, 2, 3]") {
        Outcome::ShapeError {
            origin,
            span,
            detail,
        } => {
            assert_eq!(origin, Origin::Tl);
            assert_eq!(&shapex_vec_syntax::PRELUDE[span.start..span.end], "(tl x)");
            assert_eq!(detail, "tl [3]: the tail of a singleton");
        }
        other => panic!("{other}"),
    }
    // A definition's failure is seen by its users, with its own span.
    let source = "def bad = tl [1]\ndef worse = succ (length bad)\nworse";
    let e = eval(source);
    for o in [
        &e.def("bad").unwrap().outcome,
        &e.main.as_ref().unwrap().outcome,
    ] {
        match o {
            Outcome::ShapeError { span, .. } => assert_eq!(&source[span.start..span.end], "tl [1]"),
            other => panic!("{other}"),
        }
    }
}

#[test]
fn data_errors_are_apart() {
    match main_of("10 / (2 - 2)") {
        Outcome::DataError { span, detail } => {
            assert_eq!(span, Span::new(0, 12));
            assert_eq!(detail, "division by zero: 10 / 0");
        }
        other => panic!("{other}"),
    }
    assert_eq!(value_text(&main_of("7 / 2")), "3");
    assert_eq!(value_text(&main_of("2 - 7")), "0");
    assert!(matches!(
        main_of("18446744073709551615 + 1"),
        Outcome::DataError { .. }
    ));
    // map stops at the first failing entry, as CBV does.
    assert!(matches!(
        main_of("map (/) [<1, 1>, <2, 0>, <3, 0>]"),
        Outcome::DataError { .. }
    ));
}

#[test]
fn size_c_and_conditionals() {
    let cases = [
        ("check ~1 = ~1 then 5", "5"),
        ("let x <= ~2 in x ~+ ~3", "~5"),
        ("let x, y = ~2, 3 in <y, x>", "<3, ~2>"),
        ("and (succ zero) ~3", "~1"),
        ("not zero", "~1"),
        ("not ~4", "zero"),
        ("eq ~3 ~5", "~2"),
        ("eq <~1, <~4, un>> <~1, <~2, un>>", "~2"),
        ("ifs zero then 1 else 2", "1"),
        ("ifs ~1 then 1 else 2", "2"),
        ("if 0 then 1 else 2", "1"),
        ("if 3 then 1 else 2", "2"),
        ("(\\y. y) err", ""),
        ("length [1, 2, 3]", "~3"),
        ("write [1, 2, 3] ~3 9", "[1, 2, 9]"),
        ("sz_to_nat ~7", "7"),
        ("pair 1", "pair 1"),
        ("cons [1]", "cons [1]"),
        ("(+)", "(+)"),
        ("\\x y. x", "\\x. …"),
        ("map", "\\f. …"),
        ("(\\x. ifs x then 1 else err) zero", "1"),
        ("fold (\\p. fst p :: snd p) [0] [1, 2]", "[1, 2, 0]"),
        ("putright [[1], [2]] [[3], [4]]", "[[1, 3], [2, 4]]"),
        ("putdown [[1]] [[2]]", "[[1], [2]]"),
        ("eq (~2, un) (~2, un)", "zero"),
    ];
    for (source, want) in cases {
        let got = main_of(source);
        if want.is_empty() {
            assert_eq!(origin(&got), Origin::Err, "{source}");
        } else {
            assert_eq!(got.to_string(), want, "{source}");
        }
    }
}

#[test]
fn definitions_do_not_see_themselves_and_shadow() {
    // `def n = succ n` refers to nothing before it: stuck (and ill-typed).
    let source = "def n = succ n\nn";
    assert!(matches!(main_of(source), Outcome::Stuck { .. }));
    assert!(!check(&program(source)).diagnostics.is_empty());
    // A program's definition shadows the prelude's and a combinator.
    assert_eq!(main_of("def hd = \\x. 7\nhd [1]").to_string(), "7");
    assert_eq!(main_of("def x = ~1\ndef x = succ x\nx").to_string(), "~2");
    // A binder shadows a definition.
    assert_eq!(main_of("def x = 1\n(\\x. x) 2").to_string(), "2");
}

#[test]
fn rec_without_a_base_case_runs_out_of_fuel() {
    let options = Options {
        fuel: 50_000,
        ..Options::default()
    };
    let r = eval_with("(rec f. \\n. f (succ n)) zero", &options)
        .main
        .unwrap();
    assert_eq!(
        r.outcome,
        Outcome::OutOfFuel {
            limit: Limit::Steps(50_000)
        }
    );
    assert_eq!(r.steps, 50_000);
    assert_eq!(
        r.outcome.to_string(),
        "unknown (out of fuel after 50000 steps)"
    );
    assert_eq!(
        main_of("rec f. f"),
        Outcome::OutOfFuel {
            limit: Limit::Steps(1_000_000)
        }
    );
}

#[test]
fn deep_recursion_ends_as_too_deep_not_a_crash() {
    let options = Options {
        fuel: 10_000_000,
        ..Options::default()
    };
    let o = main_of_with("(rec f. \\n. succ (f n)) zero", &options);
    assert_eq!(
        o,
        Outcome::OutOfFuel {
            limit: Limit::Depth(100_000)
        }
    );
    assert!(o.to_string().contains("more than 100000 nested"));
    // 10_000 nested calls are fine.
    assert_eq!(main_of("sz_to_nat ~10000").to_string(), "10000");
    let source = "(rec f. \\n. ifs n then zero else succ (f (pred n))) ~10000";
    assert_eq!(main_of(source).to_string(), "~10000");
    // A long vector: built, printed (cut) and dropped without recursion.
    let r = eval_with("make ~50000 [1]", &options).main.unwrap();
    match &r.outcome {
        Outcome::Value(Value::Vector(items)) => assert_eq!(items.len(), 50_000),
        other => panic!("{other}"),
    }
    // Nested deeply (ill-typed): printed with an ellipsis.
    let o = main_of_with(
        "(rec f. \\n x. ifs n then x else f (pred n) [x]) ~5000 1",
        &options,
    );
    assert!(o.to_string().contains('…'));
}

#[test]
fn the_trace_records_steps_up_to_its_cap() {
    let source = "(\\x. succ x) ~1";
    let r = eval(source).main.unwrap();
    assert_eq!(r.outcome.to_string(), "~2");
    let whats: Vec<&str> = r.trace.iter().map(|s| s.what.as_str()).collect();
    assert_eq!(whats, ["apply \\x. … to ~1", "succ ~1 ⇒ ~2"]);
    assert_eq!(r.trace[0].span, Span::new(0, source.len()));
    assert_eq!(
        &source[r.trace[1].span.start..r.trace[1].span.end],
        "succ x"
    );
    assert!(!r.trace_truncated);
    let options = Options {
        trace_cap: 5,
        ..Options::default()
    };
    let r = eval_with("multiply [[1]] [[2]]", &options).main.unwrap();
    assert_eq!(r.outcome.to_string(), "[[2]]");
    assert_eq!(r.trace.len(), 5);
    assert!(r.trace_truncated);
    let r = eval("sz_to_nat ~20000").main.unwrap();
    assert_eq!(r.trace.len(), 10_000);
    assert!(r.trace_truncated);
}

#[test]
fn stuck_only_when_ill_typed() {
    for source in [
        "fst 3",
        "1 2",
        "ifs 1 then 2 else 3",
        "eq 1 1",
        "y",
        "hd 3",
        "[]",
    ] {
        let p = parse(source).program;
        assert!(matches!(
            evaluate(&p, &Options::default()).main.unwrap().outcome,
            Outcome::Stuck { .. }
        ));
        assert!(!check(&p).diagnostics.is_empty(), "{source}");
    }
}

#[test]
fn every_example_is_stuck_only_where_check_objects() {
    for source in [CH2, CH3, CH4, CH4P, CH5, CH6] {
        let p = program(source);
        let typed = check(&p);
        let e = evaluate(
            &p,
            &Options {
                fuel: 100_000,
                ..Options::default()
            },
        );
        for d in &e.defs {
            if matches!(d.report.outcome, Outcome::Stuck { .. }) {
                assert!(
                    typed
                        .diagnostics
                        .iter()
                        .any(|x| d.span.start <= x.span.start && x.span.end <= d.span.end),
                    "{} is stuck but well typed",
                    d.name
                );
            }
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub(crate) mod props {
    use super::*;
    use proptest::prelude::*;

    /// Random small terms (reused by the shape translation's properties).
    pub(crate) fn term() -> impl Strategy<Value = String> {
        let leaf = prop::sample::select(
            &[
                "0",
                "1",
                "2",
                "~2",
                "zero",
                "un",
                "err",
                "x",
                "y",
                "[1, 2]",
                "[[1], [2, 2]]",
                "[~1, ~2]",
                "make ~2 3",
                "(\\z. z)",
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
                "(-)",
                "zip",
                "append",
                "transpose",
                "sing",
                "is_sing",
                "read ~2",
                "<1, 2>",
                "eq",
                "not",
                "and",
                "[<1, 0>, <2, 2>]",
            ][..],
        )
        .prop_map(str::to_owned);
        leaf.prop_recursive(5, 40, 3, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} {b})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("<{a}, {b}>")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("[{a}, {b}]")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} :: {b})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} + {b})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} / {b})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} = {b})")),
                inner.clone().prop_map(|a| format!("(\\x. {a})")),
                inner.clone().prop_map(|a| format!("(rec y. \\x. {a})")),
                (inner.clone(), inner.clone(), inner.clone())
                    .prop_map(|(a, b, c)| format!("(ifs {a} then {b} else {c})")),
                (inner.clone(), inner.clone(), inner.clone())
                    .prop_map(|(a, b, c)| format!("(if {a} then {b} else {c})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("(let x <= {a} in {b})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("(check {a} then {b})")),
            ]
        })
    }

    fn token() -> impl Strategy<Value = &'static str> {
        prop::sample::select(
            &[
                "def", "rec", "ifs", "if", "then", "else", "check", "let", "in", "x", "f", "zero",
                "1", "~2", "(", ")", "[", "]", "<", ">", ",", ".", "=", "<=", "\\", "+", "/", "~+",
                "::", " ", "\n", "\n  ", "map", "eq", "hd", "tl", "succ", "pred", "pair", "err",
                "fold", "un", "0",
            ][..],
        )
    }

    fn small() -> Options {
        Options {
            fuel: 20_000,
            max_depth: 2_000,
            trace_cap: 100,
            regular_vectors: false,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

        /// Typing soundness: a well-typed closed term never gets stuck; every term
        /// ends within its fuel.
        #[test]
        fn well_typed_terms_never_get_stuck(t in term(), regular in any::<bool>()) {
            let parsed = parse(&t);
            prop_assume!(parsed.diagnostics.is_empty());
            let options = Options { regular_vectors: regular, ..small() };
            let r = evaluate(&parsed.program, &options).main.unwrap();
            prop_assert!(r.steps <= options.fuel);
            prop_assert!(r.trace.len() <= options.trace_cap);
            let typed = check(&parsed.program);
            if typed.diagnostics.is_empty() {
                prop_assert!(!matches!(r.outcome, Outcome::Stuck { .. }), "{t}: {}", r.outcome);
            }
        }

        #[test]
        fn token_soups_evaluate_without_panicking(tokens in prop::collection::vec(token(), 0..60)) {
            let source = tokens.concat();
            let parsed = parse(&source);
            let e = evaluate(&parsed.program, &small());
            let typed = check(&parsed.program);
            for r in e.defs.iter().map(|d| &d.report).chain(e.main.as_ref()) {
                prop_assert!(r.steps <= 20_000);
                if let Outcome::Stuck { .. } = r.outcome {
                    prop_assert!(!typed.diagnostics.is_empty() || !parsed.diagnostics.is_empty());
                }
            }
        }
    }
}
