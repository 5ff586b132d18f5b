use super::*;

fn codes(r: &Report) -> Vec<&str> {
    r.diagnostics.iter().map(|d| d.code.as_str()).collect()
}

fn trace(r: &Report) -> &shapex_report::view::Trace {
    match r.view(ids::EVALUATION) {
        Some(Payload::Trace(t)) => t,
        other => panic!("no trace: {other:?}"),
    }
}

#[test]
fn a_shape_error_is_found_from_the_shapes_before_the_data_reaches_it() {
    let src =
        "def mat1 = make ~2 (make ~3 1)\ndef mat2 = make ~3 (make ~1 2)\nmultiply mat2 mat1\n";
    let r = analyze(src, "");
    assert_eq!(codes(&r), [codes::SHAPE_ERROR]);
    let d = &r.diagnostics[0];
    assert_eq!(d.range.line, 3, "{d:?}");
    let t = trace(&r);
    let (data, shape) = (&t.lanes[0], &t.lanes[1]);
    assert!(data.title.starts_with("Data") && shape.title.starts_with("Shape"));
    assert_eq!(
        (data.class.as_str(), shape.class.as_str()),
        ("error", "error")
    );
    assert!(
        shape.steps.len() < data.steps.len(),
        "the shape program should finish first: {} against {} steps",
        shape.steps.len(),
        data.steps.len()
    );
    assert_eq!(r.statements.last().unwrap().check, CheckStatus::Error);
}

#[test]
fn a_well_shaped_program_is_proven_with_its_shape_and_facts() {
    let r = analyze("def a = [[1,2,3],[4,5,6]]\ntranspose a\n", "");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let last = r.statements.last().unwrap();
    assert_eq!(last.check, CheckStatus::Proven);
    assert_eq!(
        last.defs[0].shape,
        ShapeView::Dims {
            dims: Some(vec![DimView::Known(3), DimView::Known(2)]),
            max: None
        }
    );
    assert_eq!(r.facts["result"], "[[1, 4], [2, 5], [3, 6]]");
    assert_eq!(r.facts["shape_signature"], "<~3, <~2, un>>");
    assert!(r.facts["shape_program"].contains("def a ="));
}

#[test]
fn a_data_error_is_not_a_shape_error_and_fuel_ends_in_unknown() {
    let r = analyze("(/) <1, 0>\n", "");
    assert_eq!(codes(&r), [codes::DATA_ERROR]);
    assert_eq!(r.statements[0].check, CheckStatus::None);
    let r = analyze("(rec f. \\x. f x) 1\n", "");
    assert_eq!(codes(&r), [codes::OUT_OF_FUEL]);
    assert_eq!(r.diagnostics[0].severity, Severity::Warning);
    assert_eq!(trace(&r).lanes[0].class, "unknown");
}

#[test]
fn declared_input_shapes_give_the_result_shape_without_data() {
    let ok = analyze("multiply\n", "<~2, <~3, un>>\n<~3, <~1, un>>");
    assert!(ok.diagnostics.is_empty(), "{:?}", ok.diagnostics);
    let summary = &trace(&ok).summary;
    let from = summary.iter().find(|(k, _)| k == "From the input shapes");
    assert_eq!(from.map(|(_, v)| v.as_str()), Some("<~2, <~1, un>>"));
    let bad = analyze("multiply\n", "<~2, <~3, un>>\n<~2, <~1, un>>");
    assert_eq!(codes(&bad), [codes::SHAPE_ERROR]);
    let wrong = analyze("multiply\n", "<~2, un>\n<~1");
    assert_eq!(codes(&wrong), [codes::INPUTS]);
}

#[test]
fn type_errors_are_not_evaluated_into_false_claims() {
    let r = analyze("def x = hd 1\nx\n", "");
    assert!(
        codes(&r).iter().all(|c| c.starts_with("vec.type")),
        "{:?}",
        codes(&r)
    );
    assert!(r.statements.iter().all(|s| s.check != CheckStatus::Proven));
}

#[test]
fn hovers_give_each_subterm_its_type_and_shape_type() {
    let src = "def v = [1, 2]\n";
    let r = analyze(src, "");
    let h = r
        .hovers
        .iter()
        .find(|h| &src[h.span.start..h.span.end] == "[1, 2]")
        .expect("a hover on the vector");
    assert!(
        h.text.contains("vec nat") && h.text.contains("sz * un"),
        "{}",
        h.text
    );
}

#[test]
fn every_code_is_explained() {
    let codes = [
        codes::SHAPE_ERROR,
        codes::EVAL_SHAPE_ERROR,
        codes::DATA_ERROR,
        codes::OUT_OF_FUEL,
        codes::UNDECIDED,
        codes::INPUTS,
        crate::codes::MISMATCH,
        crate::codes::VECTOR_OF_FUNCTIONS,
        crate::codes::EQ_NOT_THETA,
        crate::codes::IFS_CONDITION,
        crate::codes::INFINITE,
        crate::codes::UNBOUND,
        crate::codes::EMPTY_VECTOR,
        crate::codes::TOO_LARGE,
        "syntax.expected",
        "syntax.comment",
        "syntax.nesting",
        "syntax.numeral",
        "syntax.let-arity",
        "syntax.expression-not-last",
    ];
    for c in codes {
        assert!(explain(c).is_some(), "{c}");
    }
}

#[test]
fn a_program_s_own_names_never_capture_the_combinators_the_shapes_insert() {
    // `#cons` inserts `snd`, `fst`, `eq` and `succ`: the program's own are others.
    let r = analyze(
        "def snd = \\x. x\ndef succ = \\x. x\ndef v = [1, 2]\nv\n",
        "",
    );
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert_eq!(r.statements.last().unwrap().defs[0].display, "<~2, un>");
    let r = analyze("def f = \\fst eq. [fst, eq]\nf 1 2\n", "");
    assert_eq!(r.statements.last().unwrap().defs[0].display, "<~2, un>");
}

#[test]
fn a_data_conditional_the_shapes_cannot_decide_is_no_false_error() {
    // Sekanina §5.1: `#(if t then [1,2,3] else [1,2,3,4])` cannot be analysed; the
    // term has a value.
    let r = analyze("def u = \\t. if t then [1,2,3] else [1,2,3,4]\nu 0\n", "");
    assert_eq!(codes(&r), [codes::UNDECIDED]);
    assert_eq!(r.diagnostics[0].severity, Severity::Warning);
    let last = r.statements.last().unwrap();
    assert_eq!(
        (last.check, last.defs[0].display.as_str()),
        (CheckStatus::Proven, "<~3, un>")
    );
    // A ragged vector is a value with no shape: a shape error in the thesis's sense.
    let r = analyze("[[1],[2,2]]\n", "");
    assert_eq!(codes(&r), [codes::SHAPE_ERROR]);
    assert!(
        r.diagnostics[0].message.contains("ill-shaped"),
        "{}",
        r.diagnostics[0].message
    );
}

#[cfg(not(target_arch = "wasm32"))]
mod soup {
    use super::*;
    use proptest::prelude::*;

    fn token() -> impl Strategy<Value = &'static str> {
        prop::sample::select(
            &[
                "def ",
                "rec ",
                "ifs ",
                "if ",
                " then ",
                " else ",
                "check ",
                "let ",
                " in ",
                "x",
                "f",
                "zero",
                "1",
                "0",
                "~2",
                "(",
                ")",
                "[",
                "]",
                "<",
                ">",
                ",",
                ".",
                "=",
                "<=",
                "\\",
                "/",
                "+",
                "~+",
                "::",
                " ",
                "\n",
                "\n  ",
                "map ",
                "zip ",
                "transpose ",
                "multiply ",
                "append ",
                "fold ",
                "make ",
                "eq",
                "hd ",
                "tl ",
                "succ ",
                "pred ",
                "err",
                "un",
                "fst ",
                "snd ",
                "[1,2]",
                "[[1],[2,3]]",
            ][..],
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

        /// Any text is analysed without a panic, every span within it, every claim of
        /// an error backed by a diagnostic on its statement's line.
        #[test]
        fn any_text_is_analysed(tokens in prop::collection::vec(token(), 0..60), inputs in prop::collection::vec(token(), 0..6)) {
            let source = tokens.concat();
            let r = analyze(&source, &inputs.concat());
            for d in &r.diagnostics {
                prop_assert!(d.span.start <= d.span.end && d.span.end <= source.len());
            }
            for h in &r.hovers {
                prop_assert!(h.span.end <= source.len());
            }
            for s in r.statements.iter().filter(|s| s.check == CheckStatus::Error) {
                prop_assert!(
                    r.diagnostics.iter().any(|d| d.severity == Severity::Error && d.span.start >= s.span.start && d.span.end <= s.span.end),
                    "an error without a diagnostic in {:?}: {:?}", source, s
                );
            }
        }
    }
}

#[test]
fn a_signature_check_is_the_definitions_run_time_check_with_its_witness() {
    // Sekanina Fig 5.5: multiply's signature checks the inner dimensions agree.
    let src = "def mul x y = multiply x y\ndef twice x = x\nmul\n";
    let r = analyze_with(src, "", true);
    let mul = &r.statements[0];
    assert_eq!(mul.check, CheckStatus::Runtime);
    assert_eq!(mul.condition.as_deref(), Some("x_2 == y_1"));
    let w = mul.witness.as_ref().expect("a witness");
    let (fails, passes) = (w.fails.as_ref().unwrap(), w.passes.as_ref().unwrap());
    assert_ne!(fails["x_2"], fails["y_1"]);
    assert_eq!(passes["x_2"], passes["y_1"]);
    // The identity checks nothing.
    assert_eq!(
        (r.statements[1].check, &r.statements[1].witness),
        (CheckStatus::None, &None)
    );
    // A program's own shape error fails whatever the sizes: it has one run.
    let bad = analyze_with("multiply [[1, 2]] [[1, 2]]\n", "", true);
    let w = bad.statements[0].witness.as_ref().expect("a witness");
    assert_eq!(
        (w.fails.as_ref().map(|f| f.len()), &w.passes),
        (Some(0), &None)
    );
    assert!(analyze(src, "")
        .statements
        .iter()
        .all(|s| s.witness.is_none()));
}

/// The program with `fix` applied.
fn applied(src: &str, fix: &shapex_report::Fix) -> String {
    let mut out = src.to_string();
    out.replace_range(fix.span.start..fix.span.end, &fix.replacement);
    out
}

#[test]
fn a_witness_repro_applies_the_function_to_vectors_of_its_sizes() {
    let src = "def mul x y = multiply x y\nmul\n";
    let r = analyze_with(src, "", true);
    let w = r.statements[0].witness.as_ref().expect("a witness");
    let fix = w.repro.as_ref().expect("a repro");
    // After mul's line, where the final term's line still follows.
    assert_eq!(fix.span.start, src.find("mul\n").unwrap());
    assert!(
        fix.replacement.contains("def repro = mul (make ~"),
        "{}",
        fix.replacement
    );
    let failing = analyze(&applied(src, fix), "");
    let repro = &failing.statements[1];
    assert_eq!(
        (repro.defs[0].name.as_str(), repro.check),
        ("repro", CheckStatus::Error)
    );
    assert_eq!(codes(&failing), [codes::SHAPE_ERROR]);
    // The passing sizes written the same way run to a value.
    let ty = &crate::check(&shapex_vec_syntax::parse(src).program).defs[0]
        .scheme
        .ty;
    let params = ["x".to_string(), "y".to_string()];
    let callee = repro::Callee {
        call: "mul".into(),
        ty,
        params: &params,
        at: fix.span.start,
        line: 1,
    };
    let passing = repro::write(&callee, w.passes.as_ref().unwrap(), &["mul"]).unwrap();
    let passing = analyze(&applied(src, &passing), "");
    assert!(passing.diagnostics.is_empty(), "{:?}", passing.diagnostics);
    assert_eq!(passing.statements[1].check, CheckStatus::Proven);
    // The final term's own check: the repro goes before it and calls it as written.
    let r = analyze_with("multiply\n", "", true);
    let fix = r.statements[0]
        .witness
        .as_ref()
        .and_then(|w| w.repro.as_ref())
        .expect("a repro");
    assert_eq!(fix.span.start, 0);
    assert!(
        fix.replacement.contains("def repro = (multiply) (make ~"),
        "{}",
        fix.replacement
    );
    // A function of a pair has no literal of given extents: no repro.
    let r = analyze_with("def f p = multiply (fst p) (snd p)\nf\n", "", true);
    assert!(r.statements[0]
        .witness
        .as_ref()
        .is_none_or(|w| w.repro.is_none()));
}
