use crate::ast::{Def, Program, Term, TermKind, Type, TypeKind};
use crate::parser::{MAX_DEPTH, MAX_NESTING};
use crate::{parse, prelude, PRELUDE};
use shapex_text::Span;

fn clean(source: &str) -> Program {
    let parsed = parse(source);
    assert!(
        parsed.diagnostics.is_empty(),
        "{source:?}: unexpected diagnostics: {:#?}",
        parsed.diagnostics
    );
    parsed.program
}

/// The term to evaluate of a clean one-term source.
fn term(source: &str) -> Term {
    clean(source).main.expect("a term to evaluate")
}

fn text(source: &str, span: Span) -> &str {
    &source[span.start..span.end]
}

/// A compact, span-free rendering: application spines flattened, `\x` for λ.
fn sexp(t: &Term) -> String {
    match &t.kind {
        TermKind::Var(x) => x.name.clone(),
        TermKind::Nat(n) => n.to_string(),
        TermKind::Size(n) => format!("~{n}"),
        TermKind::Pair(a, b) => format!("<{} {}>", sexp(a), sexp(b)),
        TermKind::Vector(items) => {
            let items: Vec<String> = items.iter().map(sexp).collect();
            format!("[{}]", items.join(" "))
        }
        TermKind::App { .. } => {
            let mut spine = Vec::new();
            let mut head = t;
            while let TermKind::App { fun, arg, .. } = &head.kind {
                spine.push(sexp(arg));
                head = fun;
            }
            spine.push(sexp(head));
            spine.reverse();
            format!("({})", spine.join(" "))
        }
        TermKind::Lam { param, body } => match &param.ty {
            Some(ty) => format!("(\\{}:{} {})", param.name.name, tsexp(ty), sexp(body)),
            None => format!("(\\{} {})", param.name.name, sexp(body)),
        },
        TermKind::Rec { param, body } => match &param.ty {
            Some(ty) => format!("(rec {}:{} {})", param.name.name, tsexp(ty), sexp(body)),
            None => format!("(rec {} {})", param.name.name, sexp(body)),
        },
        TermKind::Ifs {
            cond,
            then,
            otherwise,
        } => format!("(ifs {} {} {})", sexp(cond), sexp(then), sexp(otherwise)),
        TermKind::If {
            cond,
            then,
            otherwise,
        } => format!("(if {} {} {})", sexp(cond), sexp(then), sexp(otherwise)),
        TermKind::Check { cond, body } => format!("(check {} {})", sexp(cond), sexp(body)),
        TermKind::Let { name, value, body } => {
            format!("(let {} {} {})", name.name, sexp(value), sexp(body))
        }
        TermKind::Error => "ERROR".to_string(),
    }
}

fn tsexp(t: &Type) -> String {
    match &t.kind {
        TypeKind::Nat => "nat".into(),
        TypeKind::Bool => "bool".into(),
        TypeKind::Sz => "sz".into(),
        TypeKind::Un => "un".into(),
        TypeKind::Var(a) => format!("'{a}"),
        TypeKind::Vec(t) => format!("(vec {})", tsexp(t)),
        TypeKind::Mat(t) => format!("(mat {})", tsexp(t)),
        TypeKind::Product(a, b) => format!("(* {} {})", tsexp(a), tsexp(b)),
        TypeKind::Arrow(a, b) => format!("(-> {} {})", tsexp(a), tsexp(b)),
        TypeKind::Error => "ERROR".into(),
    }
}

fn shape(source: &str) -> String {
    sexp(&term(source))
}

fn type_of_def(source: &str) -> String {
    let program = clean(source);
    tsexp(program.defs[0].ty.as_ref().expect("an annotation"))
}

/// Every node's span lies in the source, inside its parent's span, and (for terms)
/// starts and ends at non-blank text.
fn check_spans(source: &str, t: &Term) {
    let s = t.span;
    assert!(s.start <= s.end && s.end <= source.len(), "{t:?}");
    let written = text(source, s);
    assert_eq!(written, written.trim(), "span with blanks: {written:?}");
    match &t.kind {
        TermKind::Lam { param, .. } | TermKind::Rec { param, .. } => {
            assert!(s.start <= param.span.start && param.span.end <= s.end);
        }
        TermKind::Let { name, .. } => {
            assert!(s.start <= name.span.start && name.span.end <= s.end);
        }
        TermKind::Var(x) => assert!(s.start <= x.span.start && x.span.end <= s.end),
        _ => {}
    }
    for c in t.children() {
        assert!(
            s.start <= c.span.start && c.span.end <= s.end,
            "{:?} outside {:?}",
            text(source, c.span),
            written
        );
        check_spans(source, c);
    }
}

fn check_program_spans(source: &str, program: &Program) {
    for def in &program.defs {
        assert!(def.span.end <= source.len());
        assert!(def.body.span.start >= def.span.start && def.body.span.end <= def.span.end);
        check_spans(source, &def.body);
    }
    if let Some(main) = &program.main {
        check_spans(source, main);
    }
}

// --------------------------------------------------------------------------------
// Constructs

#[test]
fn each_construct_parses_to_its_node() {
    let cases = [
        ("x", "x"),
        ("zip'", "zip'"),
        ("42", "42"),
        ("~3", "~3"),
        ("~0", "~0"),
        ("f a b", "(f a b)"),
        ("\\x. x", "(\\x x)"),
        ("fun x -> x", "(\\x x)"),
        ("λx. x", "(\\x x)"),
        ("\\x y z. y", "(\\x (\\y (\\z y)))"),
        ("\\x : sz. x", "(\\x:sz x)"),
        ("\\(x : nat) y. x", "(\\x:nat (\\y x))"),
        ("fun (f : sz -> sz) -> f", "(\\f:(-> sz sz) f)"),
        ("rec f. f", "(rec f f)"),
        ("rec f : sz -> sz. f", "(rec f:(-> sz sz) f)"),
        ("ifs n then a else b", "(ifs n a b)"),
        ("if d then a else b", "(if d a b)"),
        ("check a then b", "(check a b)"),
        ("check a, b then c", "(check a (check b c))"),
        ("let x <= t in x", "(let x t x)"),
        ("let x = t in x", "(let x t x)"),
        ("let x ⇐ t in x", "(let x t x)"),
        ("let x, y = a, b in y", "(let x a (let y b y))"),
        ("(a, b)", "<a b>"),
        ("<a, b>", "<a b>"),
        ("⟨a, b⟩", "<a b>"),
        ("fst (a, b)", "(fst <a b>)"),
        ("snd <a, b>", "(snd <a b>)"),
        ("[1, 2, 3]", "[1 2 3]"),
        ("[x]", "[x]"),
        ("[]", "[]"),
        ("[[1], [2, 2]]", "[[1] [2 2]]"),
        ("zero", "zero"),
        ("succ (succ zero)", "(succ (succ zero))"),
        ("pred n", "(pred n)"),
        ("err", "err"),
        ("un", "un"),
        ("eq a b", "(eq a b)"),
        ("(x)", "x"),
        ("((f x))", "(f x)"),
        ("a + b", "(+ <a b>)"),
        ("a - b", "(- <a b>)"),
        ("a * b", "(* <a b>)"),
        ("a / b", "(/ <a b>)"),
        ("a ~+ b", "(~+ a b)"),
        ("a :: v", "(cons a v)"),
        ("f . g", "(compose f g)"),
        ("f ∘ g", "(compose f g)"),
        ("a = b", "(= a b)"),
        ("(+)", "+"),
        ("(-)", "-"),
        ("(*)", "*"),
        ("(/)", "/"),
        ("(~+)", "~+"),
        ("(::)", "cons"),
        ("(.)", "compose"),
        ("(=)", "="),
        ("map (+) v", "(map + v)"),
    ];
    for (source, expected) in cases {
        let t = term(source);
        assert_eq!(sexp(&t), expected, "{source}");
        assert_eq!(t.span, Span::new(0, source.len()), "{source}");
        check_spans(source, &t);
    }
}

#[test]
fn spans_cover_what_each_node_stands_for() {
    let source = "\\x y. f (x, y) + g [~1] :: v";
    let t = term(source);
    check_spans(source, &t);
    let TermKind::Lam { param, body } = &t.kind else {
        panic!("{t:?}")
    };
    assert_eq!(text(source, param.span), "x");
    // The inner λ of `\x y.` spans from its binder.
    assert_eq!(text(source, body.span), "y. f (x, y) + g [~1] :: v");
    let TermKind::Lam { body, .. } = &body.kind else {
        panic!()
    };
    // `a + b :: v` is `cons (+ (a, b)) v`.
    let TermKind::App { fun, arg, infix } = &body.kind else {
        panic!()
    };
    assert!(infix);
    assert_eq!(text(source, arg.span), "v");
    let TermKind::App {
        fun: cons,
        arg: sum,
        infix,
    } = &fun.kind
    else {
        panic!()
    };
    assert!(!infix);
    assert_eq!(text(source, fun.span), "f (x, y) + g [~1] ::");
    assert_eq!(text(source, cons.span), "::");
    assert!(matches!(&cons.kind, TermKind::Var(v) if v.name == "cons"));
    let TermKind::App {
        fun: plus,
        arg: operands,
        infix,
    } = &sum.kind
    else {
        panic!()
    };
    assert!(infix);
    assert_eq!(text(source, plus.span), "+");
    assert_eq!(text(source, operands.span), "f (x, y) + g [~1]");
    let TermKind::Pair(lhs, rhs) = &operands.kind else {
        panic!()
    };
    assert_eq!(text(source, lhs.span), "f (x, y)");
    assert_eq!(text(source, rhs.span), "g [~1]");
    let TermKind::App { arg: pair, .. } = &lhs.kind else {
        panic!()
    };
    assert_eq!(text(source, pair.span), "(x, y)");
    let TermKind::App { arg: vector, .. } = &rhs.kind else {
        panic!()
    };
    assert_eq!(text(source, vector.span), "[~1]");
    let TermKind::Vector(items) = &vector.kind else {
        panic!()
    };
    assert_eq!(text(source, items[0].span), "~1");
}

#[test]
fn binding_forms_span_their_keywords_and_sugar_spans_its_parts() {
    let source = "ifs a then check b, c then d else let x, y = e, f in rec g. g";
    let t = term(source);
    check_spans(source, &t);
    let TermKind::Ifs {
        cond,
        then,
        otherwise,
    } = &t.kind
    else {
        panic!()
    };
    assert_eq!(text(source, cond.span), "a");
    assert_eq!(text(source, then.span), "check b, c then d");
    let TermKind::Check { body, .. } = &then.kind else {
        panic!()
    };
    assert_eq!(text(source, body.span), "c then d");
    assert_eq!(text(source, otherwise.span), "let x, y = e, f in rec g. g");
    let TermKind::Let { name, body, .. } = &otherwise.kind else {
        panic!()
    };
    assert_eq!(name.name, "x");
    assert_eq!(text(source, body.span), "y = e, f in rec g. g");
    let TermKind::Let { value, body, .. } = &body.kind else {
        panic!()
    };
    assert_eq!(text(source, value.span), "f");
    assert_eq!(text(source, body.span), "rec g. g");
}

#[test]
fn definitions_have_names_parameters_annotations_and_bodies() {
    let source = "def id x = x\n\
                  def k : 'a -> 'b -> 'a = \\x y. x\n\
                  def f (x : vec nat) (n : sz) : nat = read n x\n\
                  def g = k\n\
                  g 1 2\n";
    let program = clean(source);
    check_program_spans(source, &program);
    let names: Vec<&str> = program.defs.iter().map(|d| d.name.name.as_str()).collect();
    assert_eq!(names, ["id", "k", "f", "g"]);
    let id = &program.defs[0];
    assert_eq!(text(source, id.span), "def id x = x");
    assert_eq!(id.params.len(), 1);
    assert_eq!(text(source, id.params[0].span), "x");
    assert!(id.ty.is_none());
    let k = &program.defs[1];
    assert_eq!(tsexp(k.ty.as_ref().unwrap()), "(-> 'a (-> 'b 'a))");
    assert_eq!(text(source, k.ty.as_ref().unwrap().span), "'a -> 'b -> 'a");
    let f = &program.defs[2];
    assert_eq!(text(source, f.params[0].span), "(x : vec nat)");
    assert_eq!(tsexp(f.params[0].ty.as_ref().unwrap()), "(vec nat)");
    assert_eq!(tsexp(f.ty.as_ref().unwrap()), "nat");
    assert_eq!(sexp(&f.body), "(read n x)");
    assert_eq!(sexp(program.main.as_ref().unwrap()), "(g 1 2)");
    assert_eq!(program.def("k").map(|d| d.span), Some(k.span));
    assert!(program.def("nope").is_none());
}

#[test]
fn types_nest_as_the_thesis_reads_them() {
    let cases = [
        ("nat", "nat"),
        ("bool", "bool"),
        ("sz", "sz"),
        ("un", "un"),
        ("'a", "'a"),
        ("vec nat", "(vec nat)"),
        ("vec vec nat", "(vec (vec nat))"),
        ("mat 'a", "(mat 'a)"),
        ("sz -> sz -> sz", "(-> sz (-> sz sz))"),
        ("(sz -> sz) -> sz", "(-> (-> sz sz) sz)"),
        ("sz * un * sz", "(* sz (* un sz))"),
        ("sz × un", "(* sz un)"),
        ("sz → un", "(-> sz un)"),
        (
            "vec 'a * vec 'b -> vec ('a * 'b)",
            "(-> (* (vec 'a) (vec 'b)) (vec (* 'a 'b)))",
        ),
        ("'a * 's -> 's", "(-> (* 'a 's) 's)"),
        ("(vec (nat))", "(vec nat)"),
    ];
    for (ty, expected) in cases {
        let source = format!("def x : {ty} = x");
        assert_eq!(type_of_def(&source), expected, "{ty}");
        let program = clean(&source);
        let span = program.defs[0].ty.as_ref().unwrap().span;
        assert_eq!(text(&source, span), ty);
    }
}

// --------------------------------------------------------------------------------
// Precedence and associativity

#[test]
fn application_binds_tighter_than_every_operator() {
    assert_eq!(shape("f x + g y"), "(+ <(f x) (g y)>)");
    assert_eq!(shape("f x * g y"), "(* <(f x) (g y)>)");
    assert_eq!(shape("hd x :: f (tl x)"), "(cons (hd x) (f (tl x)))");
    assert_eq!(shape("f a . g b"), "(compose (f a) (g b))");
}

#[test]
fn multiplication_binds_tighter_than_addition() {
    assert_eq!(shape("a + b * c"), "(+ <a (* <b c>)>)");
    assert_eq!(shape("a * b + c"), "(+ <(* <a b>) c>)");
    assert_eq!(shape("a - b / c - d"), "(- <(- <a (/ <b c>)>) d>)");
    assert_eq!(shape("(a + b) * c"), "(* <(+ <a b>) c>)");
    assert_eq!(shape("a ~+ b * c ~+ d"), "(~+ (~+ a (* <b c>)) d)");
}

#[test]
fn associativity_left_for_arithmetic_right_for_cons_and_composition() {
    assert_eq!(shape("a - b - c"), "(- <(- <a b>) c>)");
    assert_eq!(shape("a / b / c"), "(/ <(/ <a b>) c>)");
    assert_eq!(shape("f a b c"), "(f a b c)");
    assert_eq!(shape("1 :: 2 :: [3]"), "(cons 1 (cons 2 [3]))");
    assert_eq!(shape("f . g . h"), "(compose f (compose g h))");
    assert_eq!(shape("a = b = c"), "(= (= a b) c)");
}

#[test]
fn cons_binds_tighter_than_equality_and_looser_than_arithmetic() {
    assert_eq!(shape("a + b :: v"), "(cons (+ <a b>) v)");
    assert_eq!(shape("a :: v = w"), "(= (cons a v) w)");
    assert_eq!(shape("fst x = fst y"), "(= (fst x) (fst y))");
    assert_eq!(
        shape("check fst (snd x) = fst y then <fst x, <fst (snd y), un>>"),
        "(check (= (fst (snd x)) (fst y)) <(fst x) <(fst (snd y)) un>>)"
    );
    assert_eq!(
        shape("(fold (+) 0) . (map (*)) . zip'"),
        "(compose (fold + 0) (compose (map *) zip'))"
    );
}

#[test]
fn binding_forms_extend_as_far_right_as_they_can() {
    assert_eq!(shape("\\x. f x + 1"), "(\\x (+ <(f x) 1>))");
    assert_eq!(shape("ifs a then b else c :: d"), "(ifs a b (cons c d))");
    assert_eq!(
        shape("ifs a then ifs b then c else d else e"),
        "(ifs a (ifs b c d) e)"
    );
    assert_eq!(shape("(\\x. x) y"), "((\\x x) y)");
    assert_eq!(shape("rec f. \\n. f n"), "(rec f (\\n (f n)))");
}

#[test]
fn arrow_types_are_right_associative_and_products_bind_tighter() {
    assert_eq!(
        type_of_def("def f : sz * sz -> sz -> sz = f"),
        "(-> (* sz sz) (-> sz sz))"
    );
    assert_eq!(
        type_of_def("def f : vec sz * sz -> vec vec sz = f"),
        "(-> (* (vec sz) sz) (vec (vec sz)))"
    );
}

#[test]
fn both_lambda_spellings_and_every_binder_list_give_the_same_term() {
    let spellings = [
        "\\x y. f x y",
        "\\x, y. f x y",
        "fun x y -> f x y",
        "fun x, y -> f x y",
        "fun x -> fun y -> f x y",
        "λx y. f x y",
        "\\x. \\y. f x y",
        "fun x → \\y. f x y",
    ];
    let first = term(spellings[0]);
    for source in spellings {
        let t = term(source);
        assert_eq!(sexp(&t), sexp(&first), "{source}");
        assert_eq!(strip(&t), strip(&first), "{source}");
    }
    let annotated = ["\\(x : sz). x", "\\x : sz. x", "fun (x : sz) -> x"];
    for source in annotated {
        assert_eq!(strip(&term(source)), strip(&term(annotated[0])), "{source}");
    }
}

/// The term with every span zeroed, to compare structure.
fn strip(t: &Term) -> Term {
    let json = serde_json::to_value(t).unwrap();
    fn zero(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    if k == "span" {
                        *v = serde_json::json!({"start": 0, "end": 0});
                    } else {
                        zero(v);
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(zero),
            _ => {}
        }
    }
    let mut json = json;
    zero(&mut json);
    serde_json::from_value(json).unwrap()
}

// --------------------------------------------------------------------------------
// Files: layout, comments, the prelude, the spec's examples

#[test]
fn an_item_starts_in_the_first_column_and_indented_lines_continue_it() {
    let source = "def mat1 = make ~2\n  (make ~3 1)\n\n-- a comment\n{- another\n-}\ndef id x =\n\n  x\nmultiply mat1\n  mat1\n";
    let program = clean(source);
    assert_eq!(program.defs.len(), 2);
    assert_eq!(sexp(&program.defs[0].body), "(make ~2 (make ~3 1))");
    assert_eq!(
        text(source, program.defs[0].span),
        "def mat1 = make ~2\n  (make ~3 1)"
    );
    assert_eq!(sexp(program.main.as_ref().unwrap()), "(multiply mat1 mat1)");
    // `def` starts an item anywhere, and an indented file still reads.
    let program = clean("  def a = 1 def b = a\n  def c = b");
    assert_eq!(program.defs.len(), 3);
    assert!(program.main.is_none());
    // Blanks and line ends of every kind.
    let program = clean("\u{feff}def a = 1\r\ndef b =\r\n\ta\r\nb\r\n");
    assert_eq!(program.defs.len(), 2);
    assert_eq!(sexp(&program.defs[1].body), "a");
}

#[test]
fn a_term_before_a_definition_is_reported_and_ignored() {
    let parsed = parse("def a = 1\na\ndef b = 2\nb");
    assert_eq!(parsed.diagnostics.len(), 1, "{:#?}", parsed.diagnostics);
    let d = &parsed.diagnostics[0];
    assert_eq!(d.code, "syntax.expression-not-last");
    assert_eq!((d.span, d.range.line), (Span::new(10, 11), 2));
    assert_eq!(parsed.program.defs.len(), 2);
    assert_eq!(sexp(parsed.program.main.as_ref().unwrap()), "b");
}

#[test]
fn comments_run_to_the_end_of_the_line_or_the_block_end() {
    let program =
        clean("-- first\ndef a = 1 -- one\n{- a {- block -}\ndef b = {- inline -} a\nb -- last");
    assert_eq!(program.defs.len(), 2);
    assert_eq!(sexp(&program.defs[1].body), "a");
    // `(*)` is multiplication, not a comment.
    assert_eq!(shape("fold (+) 0 (map (*) v)"), "(fold + 0 (map * v))");
    // `--` after an operator starts a comment.
    let parsed = parse("a --b");
    assert!(parsed.diagnostics.is_empty());
    assert_eq!(sexp(parsed.program.main.as_ref().unwrap()), "a");
}

#[test]
fn the_prelude_parses_without_diagnostics_and_defines_the_library() {
    let parsed = parse(PRELUDE);
    assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
    let prelude = prelude();
    assert_eq!(prelude, parsed.program);
    assert!(prelude.main.is_none());
    check_program_spans(PRELUDE, &prelude);
    for name in [
        "and",
        "not",
        "is_sing",
        "compose",
        "make",
        "read",
        "write",
        "map",
        "fold",
        "append",
        "zip",
        "zip'",
        "transpose",
        "scalar'",
        "scalar",
        "multiply",
        "append'",
        "putdown",
        "putright",
        "sz_to_nat",
    ] {
        let def = prelude.def(name).unwrap_or_else(|| panic!("{name}"));
        assert!(def.ty.is_some(), "{name} has its type");
    }
    // The spec's §2.6 text, read back.
    let make = prelude.def("make").unwrap();
    assert_eq!(
        sexp(&make.body),
        "(rec f (\\n (\\x (ifs (pred n) [x] (cons x (f (pred n) x))))))"
    );
    assert_eq!(tsexp(make.ty.as_ref().unwrap()), "(-> sz (-> 'a (vec 'a)))");
    assert_eq!(
        sexp(&prelude.def("scalar'").unwrap().body),
        "(compose (fold + 0) (compose (map *) zip'))"
    );
    assert_eq!(
        sexp(&prelude.def("multiply").unwrap().body),
        "(\\x (\\y (map (\\z (map (scalar z) (transpose y))) x)))"
    );
    assert_eq!(
        sexp(&prelude.def("fold").unwrap().body),
        "(rec g (\\f (\\x (\\y (ifs (is_sing y) (f <(hd y) x>) (f <(hd y) (g f x (tl y))>))))))"
    );
}

#[test]
fn a_program_may_reuse_a_prelude_name() {
    let program = clean("def map = \\f. f\ndef map f x = f x\nmap");
    assert_eq!(program.defs.len(), 2);
    assert_eq!(program.def("map").unwrap().params.len(), 2);
    assert!(prelude().def("map").is_some());
}

const EXAMPLES: &[(&str, &str)] = &[
    ("ch2_size", include_str!("../examples/ch2_size.vec")),
    (
        "ch3_evaluation",
        include_str!("../examples/ch3_evaluation.vec"),
    ),
    ("ch4_shapes", include_str!("../examples/ch4_shapes.vec")),
    (
        "ch4_shape_programs",
        include_str!("../examples/ch4_shape_programs.vec"),
    ),
    ("ch5_size_c", include_str!("../examples/ch5_size_c.vec")),
    (
        "ch6_extensions",
        include_str!("../examples/ch6_extensions.vec"),
    ),
];

#[test]
fn every_example_of_the_spec_parses_cleanly() {
    for (name, source) in EXAMPLES {
        let parsed = parse(source);
        assert!(
            parsed.diagnostics.is_empty(),
            "{name}: {:#?}",
            parsed.diagnostics
        );
        assert!(
            parsed.program.main.is_some(),
            "{name} has a term to evaluate"
        );
        assert!(parsed.program.defs.len() >= 5, "{name}");
        check_program_spans(source, &parsed.program);
    }
}

#[test]
fn the_spec_examples_read_as_the_thesis_means_them() {
    let defs = |source: &str| clean(source).defs;
    let ch4 = defs(EXAMPLES[3].1);
    let find =
        |defs: &[Def], name: &str| sexp(&defs.iter().find(|d| d.name.name == name).unwrap().body);
    assert_eq!(
        find(&ch4, "shape_cons"),
        "(\\x (\\y (ifs (eq x (snd y)) <(succ (fst y)) (snd y)> err)))"
    );
    assert_eq!(
        find(&ch4, "shape_multiply"),
        "(\\x (\\y (ifs (eq (fst (snd x)) (fst y)) <(fst x) <(fst (snd y)) un>> err)))"
    );
    assert_eq!(
        find(&ch4, "shape_make"),
        "(rec f (\\n (\\x (ifs (pred n) ((\\x <(succ zero) x>) x) \
         ((\\x (\\y (ifs (eq x (snd y)) <(succ (fst y)) (snd y)> err))) x (f (pred n) x))))))"
    );
    let ch5 = defs(EXAMPLES[4].1);
    assert_eq!(
        find(&ch5, "shapec_putright"),
        "(\\x (\\y (check (= (fst x) (fst y)) (check (= (snd (snd x)) (snd (snd y))) \
         <(fst x) <(~+ (fst (snd x)) (fst (snd y))) (snd (snd x))>>))))"
    );
    assert_eq!(
        find(&ch5, "let_flat"),
        "(\\t' (\\t1 (\\t2 (let y t' (let x t1 t2)))))"
    );
    let ch6 = defs(EXAMPLES[5].1);
    assert_eq!(
        find(&ch6, "fact"),
        "(rec f:(-> nat nat) (\\x:nat (ifs (= x 0) 1 (* <x (f (- <x 1>))>))))"
    );
    let ch3 = defs(EXAMPLES[1].1);
    assert_eq!(find(&ch3, "consed"), "(cons 1 (cons 2 [3]))");
}

/// The results the spec displays (§7), in this syntax.
#[test]
fn every_result_the_spec_displays_parses() {
    let results = [
        ("[[1,1,1],[1,1,1]]", "[[1 1 1] [1 1 1]]"),
        ("[[2],[2],[2]]", "[[2] [2] [2]]"),
        ("[<1,[2]>, <1,[2]>, <1,[2]>]", "[<1 [2]> <1 [2]> <1 [2]>]"),
        ("[[6],[6]]", "[[6] [6]]"),
        ("[1]", "[1]"),
        ("<~3, un>", "<~3 un>"),
        ("<~3, <un,un>>", "<~3 <un un>>"),
        ("<~3, <~2, un>>", "<~3 <~2 un>>"),
        ("<~3, ~1>", "<~3 ~1>"),
        ("<~3, <~1, un>>", "<~3 <~1 un>>"),
        ("<~2, <~3, un>>", "<~2 <~3 un>>"),
        ("<~6, un>", "<~6 un>"),
        ("<~2, <~1, un>>", "<~2 <~1 un>>"),
        ("⟨~2, ⟨~1, un⟩⟩", "<~2 <~1 un>>"),
        ("~3 ~+ ~2", "(~+ ~3 ~2)"),
        ("un", "un"),
        ("err", "err"),
        ("zero", "zero"),
        ("~5", "~5"),
    ];
    for (source, expected) in results {
        assert_eq!(shape(source), expected, "{source}");
    }
}

// --------------------------------------------------------------------------------
// Errors and recovery

#[test]
fn two_broken_definitions_cost_two_diagnostics_and_the_good_one_parses() {
    let source = "def a = ifs x then\ndef b x = (x, \ndef good x = x :: [x]\ngood 1\n";
    let parsed = parse(source);
    assert_eq!(parsed.diagnostics.len(), 2, "{:#?}", parsed.diagnostics);
    let [first, second] = &parsed.diagnostics[..] else {
        panic!()
    };
    assert_eq!(first.code, "syntax.expected");
    assert_eq!(first.message, "expected a term after `then`");
    assert_eq!(text(source, first.span), "then");
    assert_eq!((first.range.line, first.range.col), (1, 15));
    assert_eq!(second.message, "expected a term after `,`");
    assert_eq!(second.range.line, 2);
    let program = &parsed.program;
    let names: Vec<(&str, bool)> = program
        .defs
        .iter()
        .map(|d| (d.name.name.as_str(), d.is_error()))
        .collect();
    assert_eq!(names, [("a", true), ("b", true), ("good", false)]);
    assert_eq!(text(source, program.defs[0].span), "def a = ifs x then");
    assert_eq!(text(source, program.defs[1].span), "def b x = (x,");
    assert_eq!(sexp(&program.defs[2].body), "(cons x [x])");
    assert_eq!(text(source, program.defs[2].span), "def good x = x :: [x]");
    assert_eq!(sexp(program.main.as_ref().unwrap()), "(good 1)");
}

#[test]
fn messages_name_what_is_missing_and_where() {
    let cases = [
        ("def f = ifs a then b", "expected `else` after `b`"),
        ("def f = (a b", "expected `,` or `)` after `b`"),
        ("def f = (a, b, c)", "expected `)` after `b`, found `,`"),
        ("def f = [1, 2", "expected `,` or `]` after `2`"),
        ("def f = <a b>", "expected `,` after `b`, found `>`"),
        ("def f = \\x y x", "expected a parameter or `.` after `x`"),
        ("def f = fun x -> ", "expected a term after `->`"),
        ("def f = check a then", "expected a term after `then`"),
        ("def f = let x = 1", "expected `in` or `,` after `1`"),
        ("def = 3", "expected a name after `def`, found `=`"),
        ("def f : vec = 1", "expected a type after `vec`, found `=`"),
        ("def f x : = 1", "expected a type after `:`, found `=`"),
        (
            "def f = rec . x",
            "expected a parameter after `rec`, found `.`",
        ),
        ("def f = [1,]", "expected a term after `,`, found `]`"),
        ("def f = a b +", "expected a term after `+`"),
        ("def f = a -> b", "unexpected `->` after `a`"),
        ("def f = a ) b", "unmatched `)`: nothing open here to close"),
        ("#", "expected a term, found `#`"),
        (
            "def f = 1 {- oops",
            "this `{-` comment is never closed with `-}`",
        ),
    ];
    for (source, message) in cases {
        let parsed = parse(source);
        assert_eq!(
            parsed.diagnostics.len(),
            1,
            "{source}: {:#?}",
            parsed.diagnostics
        );
        assert_eq!(parsed.diagnostics[0].message, message, "{source}");
        let span = parsed.diagnostics[0].span;
        assert!(span.end <= source.len());
    }
}

#[test]
fn an_unindented_continuation_is_one_diagnostic_with_a_hint() {
    let source = "def f x = ifs x\nthen a else b\ndef g = 1\ng";
    let parsed = parse(source);
    assert_eq!(parsed.diagnostics.len(), 1, "{:#?}", parsed.diagnostics);
    let d = &parsed.diagnostics[0];
    assert_eq!(d.message, "expected `then` after `x`");
    assert!(
        d.help.as_deref().unwrap().contains("indent"),
        "{:?}",
        d.help
    );
    assert_eq!(parsed.program.defs.len(), 2);
    assert!(parsed.program.defs[0].is_error());
    assert_eq!(sexp(parsed.program.main.as_ref().unwrap()), "g");
}

#[test]
fn a_stray_closer_costs_only_itself() {
    let parsed = parse("def f = a ) b\ndef g = ]\n");
    assert_eq!(parsed.diagnostics.len(), 2, "{:#?}", parsed.diagnostics);
    assert_eq!(sexp(&parsed.program.defs[0].body), "(a b)");
    assert!(parsed.program.defs[1].is_error());
}

#[test]
fn a_broken_term_to_evaluate_is_an_error_term() {
    let parsed = parse("def a = 1\nmultiply a (");
    assert_eq!(parsed.diagnostics.len(), 1);
    assert_eq!(parsed.program.defs.len(), 1);
    let main = parsed.program.main.as_ref().unwrap();
    assert!(main.is_error());
    assert_eq!(main.span, Span::new(10, 22));
}

#[test]
fn numerals_too_large_and_let_arity_are_diagnostics_on_a_parsed_file() {
    let parsed = parse("def a = 99999999999999999999 + ~18446744073709551615\nlet x, y = 1 in x");
    let codes: Vec<&str> = parsed.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["syntax.numeral", "syntax.let-arity"]);
    assert_eq!(
        sexp(&parsed.program.defs[0].body),
        "(+ <ERROR ~18446744073709551615>)"
    );
    assert!(parsed.program.main.as_ref().unwrap().is_error());
}

#[test]
fn broken_inputs_never_panic_and_keep_spans_in_the_source() {
    let inputs = [
        "",
        "def",
        "def f",
        "def f =",
        "def f x",
        "(((",
        ")))",
        "]]]",
        ">>>",
        "\\",
        "fun",
        "rec",
        "ifs",
        "ifs a then",
        "check",
        "let",
        "let x <=",
        "<",
        "⟨a, b",
        "[",
        "~",
        "~+",
        "'a",
        "{-",
        "-}",
        "--",
        "é(ü)",
        "\u{1}\u{1}",
        "def f : = 1",
        "def f : vec vec",
        "def f : (nat",
        "def\ndef\ndef",
        "\n\n)\n(\n",
        "a\n)",
        "def f = \\x. (\ndef g = ⟩",
        "then else in",
    ];
    for source in inputs {
        let parsed = parse(source);
        for d in &parsed.diagnostics {
            assert!(
                d.span.start <= d.span.end && d.span.end <= source.len(),
                "{source:?}: {d:?}"
            );
            assert!(source.is_char_boundary(d.span.start) && source.is_char_boundary(d.span.end));
            assert!(d.range.line >= 1, "{source:?}: {d:?}");
        }
        check_program_spans(source, &parsed.program);
    }
}

#[test]
fn nesting_up_to_the_limit_parses_and_deeper_is_one_diagnostic() {
    // The limits the crate's documentation states.
    assert_eq!((MAX_NESTING, MAX_DEPTH), (100, 400));
    let depth = MAX_NESTING / 2 - 1;
    let cases = [
        format!("{}x{}", "(".repeat(2 * depth), ")".repeat(2 * depth)),
        format!("{}x{}", "[".repeat(2 * depth), "]".repeat(2 * depth)),
        format!("{}x", "\\y. ".repeat(2 * depth)),
        format!("{}x", "ifs a then b else ".repeat(2 * depth)),
        format!("{}x", "let a = b in ".repeat(2 * depth)),
        format!("{}x{}", "(\\y. ".repeat(depth), ")".repeat(depth)),
        format!(
            "{}x{}",
            "<ifs ".repeat(depth),
            " then a else b, c>".repeat(depth)
        ),
    ];
    for source in &cases {
        let parsed = parse(source);
        assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
        assert!(parsed.program.main.is_some());
    }
    let deep = [
        "(".repeat(100_000),
        format!(
            "{}x{}",
            "(".repeat(MAX_NESTING + 1),
            ")".repeat(MAX_NESTING + 1)
        ),
        "\\x. ".repeat(10_000) + "x",
        "ifs ".repeat(10_000),
        "[<(".repeat(5_000),
    ];
    for source in &deep {
        let parsed = parse(source);
        assert_eq!(parsed.diagnostics.len(), 1, "{:#?}", parsed.diagnostics);
        assert_eq!(parsed.diagnostics[0].code, "syntax.nesting");
    }
    // One deep item costs only itself.
    let source = format!("def a = 1\ndef b = {}\ndef c = a\nc", "(".repeat(1000));
    let parsed = parse(&source);
    assert_eq!(parsed.diagnostics.len(), 1);
    let names: Vec<(&str, bool)> = parsed
        .program
        .defs
        .iter()
        .map(|d| (d.name.name.as_str(), d.is_error()))
        .collect();
    assert_eq!(names, [("a", false), ("b", true), ("c", false)]);
}

#[test]
fn long_rows_are_cut_at_the_depth_limit() {
    let fine = vec!["a"; MAX_DEPTH / 2].join(" + ");
    assert!(parse(&fine).diagnostics.is_empty());
    for source in [
        vec!["a"; 100_000].join(" + "),
        vec!["a"; 100_000].join(" :: "),
        vec!["a"; 100_000].join(" . "),
        vec!["f"; 100_000].join(" "),
        format!("\\{}. x", vec!["x"; 100_000].join(" ")),
        format!("check {} then x", vec!["a"; 100_000].join(", ")),
        format!("def f : {} = x", vec!["sz"; 100_000].join(" -> ")),
        format!("def f : {}nat = x", "vec ".repeat(100_000)),
    ] {
        let parsed = parse(&source);
        assert!(
            parsed
                .diagnostics
                .iter()
                .any(|d| d.code == "syntax.nesting"),
            "{:?}: {:#?}",
            &source[..20],
            parsed.diagnostics
        );
    }
    // A long vector is flat: no limit.
    let long = format!("[{}]", vec!["1"; 10_000].join(", "));
    assert!(parse(&long).diagnostics.is_empty());
}

#[test]
fn the_deepest_terms_allowed_can_be_walked_serialised_and_dropped() {
    // A chain at the limit, inside brackets at the nesting limit.
    let chain = vec!["a"; MAX_DEPTH / 2 - MAX_NESTING].join(" :: ");
    let open = "(".repeat(MAX_NESTING - 1);
    let close = ")".repeat(MAX_NESTING - 1);
    let source = format!("def f = \\x. {open}{chain}{close}\nf");
    let parsed = parse(&source);
    assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
    let program = parsed.program.clone();
    // (serde_json's reader stops at 128 levels; writing has no limit.)
    let json = serde_json::to_string(&program).unwrap();
    assert!(json.len() > source.len());
    assert_eq!(program, parsed.program);
    assert!(format!("{program:?}").len() > source.len());
    check_program_spans(&source, &program);
}

#[test]
fn an_unclosed_comment_after_the_term_to_evaluate_leaves_it_last() {
    let parsed = parse(
        "def a = 1
f a {- unfinished",
    );
    assert_eq!(parsed.diagnostics.len(), 1);
    assert_eq!(parsed.diagnostics[0].code, "syntax.comment");
    assert_eq!(sexp(parsed.program.main.as_ref().unwrap()), "(f a)");
}

#[test]
fn programs_round_trip_through_json() {
    let program = prelude();
    let json = serde_json::to_string(&program).unwrap();
    let back: Program = serde_json::from_str(&json).unwrap();
    assert_eq!(back, program);
}

/// The source with its comments removed (the examples' comments hold no code).
fn without_comments(source: &str) -> String {
    let mut rest = source;
    let mut code = String::new();
    while let Some(open) = rest.find("{-") {
        code.push_str(&rest[..open]);
        let close = rest[open..].find("-}").map_or(rest.len(), |c| open + c + 2);
        rest = &rest[close..];
    }
    code.push_str(rest);
    code.lines()
        .map(|line| line.split("--").next().unwrap_or("").trim_end())
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Recovery is local: deleting one character of the prelude (any of them) or of an
/// example (a line break or a bracket: the deletions that change the structure most)
/// costs at most a few diagnostics, and loses at most the definitions it breaks. The
/// sources are taken without their comments, whose text is not code; all told this is
/// about 2,700 deletions, every one tried, so the test is deterministic.
#[test]
fn every_deleted_character_costs_at_most_a_few_diagnostics() {
    let structural = |c: char| "\n()[]<>,".contains(c);
    let mut sources = vec![("prelude", without_comments(PRELUDE), true)];
    for (name, source) in EXAMPLES {
        sources.push((name, without_comments(source), false));
    }
    let mut tried = 0;
    for (name, source, every) in &sources {
        let total = clean(source).defs.len();
        for (at, c) in source.char_indices() {
            if !(*every || structural(c)) {
                continue;
            }
            tried += 1;
            let broken = format!("{}{}", &source[..at], &source[at + c.len_utf8()..]);
            let parsed = parse(&broken);
            assert!(
                parsed.diagnostics.len() <= 3,
                "{name} without byte {at}: {:#?}",
                parsed.diagnostics
            );
            assert!(
                parsed.program.defs.len() + 2 >= total,
                "{name} without byte {at}: {} of {total} definitions",
                parsed.program.defs.len()
            );
        }
    }
    assert!(tried > 2_000, "{tried}");
}

#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use crate::parse;
    use proptest::prelude::*;

    fn token() -> impl Strategy<Value = &'static str> {
        prop::sample::select(
            &[
                "def", "fun", "rec", "ifs", "if", "then", "else", "check", "let", "in", "x", "f'",
                "zero", "1", "~2", "(", ")", "[", "]", "<", ">", "⟨", "⟩", ",", ".", ":", "=",
                "<=", "->", "\\", "λ", "+", "-", "*", "/", "~+", "::", "∘", "×", "nat", "vec",
                "'a", " ", "\n", "\n  ", "--", "{-", "-}", "é", "\u{1}", "~", "#",
            ][..],
        )
    }

    fn check(source: &str) -> Result<(), TestCaseError> {
        let parsed = parse(source);
        for d in &parsed.diagnostics {
            prop_assert!(d.span.start <= d.span.end && d.span.end <= source.len());
            prop_assert!(source.is_char_boundary(d.span.start));
            prop_assert!(source.is_char_boundary(d.span.end));
        }
        let program = &parsed.program;
        let terms = program
            .defs
            .iter()
            .map(|d| &d.body)
            .chain(program.main.as_ref());
        for t in terms {
            prop_assert!(t.span.start <= t.span.end && t.span.end <= source.len());
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, .. ProptestConfig::default() })]

        #[test]
        fn arbitrary_strings_never_panic_and_spans_stay_in_the_source(source in any::<String>()) {
            check(&source)?;
        }

        #[test]
        fn token_soup_never_panics_and_spans_stay_in_the_source(
            tokens in prop::collection::vec(token(), 0..80)
        ) {
            check(&tokens.concat())?;
        }
    }
}

#[test]
fn after_the_last_error_reported_the_rest_of_the_file_is_one_broken_item() {
    let mut source: String = (0..80).map(|k| format!("def d{k} = (\n")).collect();
    source.push_str(&format!("def deep = {}\ndef last = 1\n", "(".repeat(500)));
    let parsed = parse(&source);
    assert_eq!(parsed.diagnostics.len(), 64);
    // The nesting diagnostic comes first: the deep item is skipped before parsing.
    assert_eq!(parsed.diagnostics[0].code, "syntax.nesting");
    let program = &parsed.program;
    assert!(program.defs.iter().all(Def::is_error));
    let names: Vec<&str> = program.defs.iter().map(|d| d.name.name.as_str()).collect();
    assert_eq!(names.len(), 64, "{names:?}");
    assert_eq!(names[62], "d62");
    assert_eq!(names[63], "d63", "the last resort holds the rest");
    check_program_spans(&source, program);
}
