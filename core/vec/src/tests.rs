use crate::{check, check_alone, codes, Scheme, Typed};
use shapex_text::Span;
use shapex_vec_syntax::ast::{Type, TypeKind};
use shapex_vec_syntax::parse;

fn typed(source: &str) -> Typed {
    let parsed = parse(source);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    check(&parsed.program)
}

fn codes_of(t: &Typed) -> Vec<&str> {
    t.diagnostics.iter().map(|d| d.code.as_str()).collect()
}

/// An annotation as a scheme, independently of the inference (kinds not compared).
fn annotation(ty: &Type) -> String {
    fn go(ty: &Type, names: &mut Vec<String>) -> crate::Ty {
        use crate::Ty;
        match &ty.kind {
            TypeKind::Nat => Ty::Nat,
            TypeKind::Bool => Ty::Bool,
            TypeKind::Sz => Ty::Sz,
            TypeKind::Un => Ty::Un,
            TypeKind::Var(n) => {
                let i = names.iter().position(|m| m == n).unwrap_or_else(|| {
                    names.push(n.clone());
                    names.len() - 1
                });
                Ty::Var(i as u32)
            }
            TypeKind::Vec(t) => Ty::vec(go(t, names)),
            TypeKind::Mat(t) => Ty::vec(Ty::vec(go(t, names))),
            TypeKind::Product(a, b) => Ty::product(go(a, names), go(b, names)),
            TypeKind::Arrow(a, b) => Ty::arrow(go(a, names), go(b, names)),
            TypeKind::Error => panic!("bad annotation"),
        }
    }
    let mut names = Vec::new();
    let ty = go(ty, &mut names);
    Scheme {
        kinds: vec![crate::Kind::Any; names.len()],
        ty,
    }
    .to_string()
}

#[test]
fn every_prelude_definition_has_its_declared_type() {
    let prelude = shapex_vec_syntax::prelude();
    let t = check_alone(&prelude);
    assert!(t.diagnostics.is_empty(), "{:#?}", t.diagnostics);
    assert_eq!(t.defs.len(), prelude.defs.len());
    // No diagnostics: every annotation is an instance of the inferred scheme. The
    // inferred scheme equals it except where the thesis's type is a specialisation
    // of the principal one: `putdown ≡ λx,y. append x y` is typed at `mat`, but
    // works on any vectors. The list is a finding of the oracle, kept visible here.
    let mut more_general = Vec::new();
    for (def, typed) in prelude.defs.iter().zip(&t.defs) {
        let declared = annotation(def.ty.as_ref().expect("annotated"));
        if typed.inferred.to_string() != declared {
            more_general.push((
                def.name.name.as_str(),
                typed.inferred.to_string(),
                declared.clone(),
            ));
        }
        assert_eq!(typed.scheme.to_string(), declared, "{}", def.name.name);
    }
    assert_eq!(
        more_general,
        [(
            "putdown",
            "vec 'a -> vec 'a -> vec 'a".to_string(),
            "mat 'a -> mat 'a -> mat 'a".to_string()
        )]
    );
    assert!(check(&Default::default()).prelude_diagnostics.is_empty());
}

#[test]
fn printing_uses_the_grammar() {
    let t = typed(
        "def a = \\x. (x, x)\ndef b = \\f g x. f (g x)\ndef c = [[1]]\ndef d = \\x. length x",
    );
    let shown: Vec<String> = t.defs.iter().map(|d| d.scheme.to_string()).collect();
    assert_eq!(
        shown,
        [
            "'a -> 'a * 'a",
            "('a -> 'b) -> ('c -> 'a) -> 'c -> 'b",
            "mat nat",
            "vec 'a -> sz"
        ]
    );
}

/// The text of `vec-syntax`'s example file `name`.
fn example_text(name: &str) -> String {
    let path = format!(
        "{}/../vec-syntax/examples/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).unwrap()
}

fn example(name: &str) -> Typed {
    typed(&example_text(name))
}

#[test]
fn the_examples_of_chapters_2_to_4_are_well_typed() {
    for name in [
        "ch2_size.vec",
        "ch3_evaluation.vec",
        "ch4_shape_programs.vec",
        "ch4_shapes.vec",
    ] {
        let t = example(name);
        assert!(t.diagnostics.is_empty(), "{name}: {:#?}", t.diagnostics);
        assert!(t.main.is_some(), "{name}");
    }
    let t = example("ch3_evaluation.vec");
    assert_eq!(t.def("mat1").unwrap().scheme.to_string(), "mat nat");
    assert_eq!(
        t.def("zip_row").unwrap().scheme.to_string(),
        "vec (nat * vec nat)"
    );
    assert_eq!(t.main.as_ref().unwrap().to_string(), "mat nat");
    // Ragged vectors are well-typed: shape errors are the evaluator's.
    assert_eq!(t.def("ragged_hd").unwrap().scheme.to_string(), "vec nat");
    let t = example("ch4_shape_programs.vec");
    assert_eq!(t.main.as_ref().unwrap().to_string(), "sz * sz * un");
}

#[test]
fn chapter_5_has_one_error_fold_0_plus() {
    // `fold 0 (+)`, Chapter 5's swapped arguments (spec §4.6, errata).
    let source = example_text("ch5_size_c.vec");
    let t = typed(&source);
    assert_eq!(codes_of(&t), [codes::MISMATCH], "{:#?}", t.diagnostics);
    let d = &t.diagnostics[0];
    assert_eq!(&source[d.span.start..d.span.end], "0");
    assert!(d.message.contains("found `nat`"), "{}", d.message);
}

#[test]
fn chapter_6_fact_is_ill_typed() {
    // Spec §5.1: `ifs x = 0 …` on a nat: `=` is `eq`'s, which nat is outside θ.
    let source = example_text("ch6_extensions.vec");
    let t = typed(&source);
    assert_eq!(codes_of(&t), [codes::EQ_NOT_THETA], "{:#?}", t.diagnostics);
    let d = &t.diagnostics[0];
    assert_eq!(&source[d.span.start..d.span.end], "x");
    assert_eq!(t.def("fact_if").unwrap().scheme.to_string(), "nat -> nat");
    assert_eq!(
        t.def("map_type").unwrap().scheme.to_string(),
        "('a -> 'b) -> vec 'a -> vec 'b"
    );
}

/// Exactly one diagnostic, with `code`, on the text `at`.
fn one(source: &str, code: &str, at: &str) {
    let t = typed(source);
    assert_eq!(codes_of(&t), [code], "{source}: {:#?}", t.diagnostics);
    let span = t.diagnostics[0].span;
    assert_eq!(&source[span.start..span.end], at, "{source}");
}

#[test]
fn each_restriction_is_one_diagnostic_on_its_subterm() {
    one("[\\x. x, \\y. y]", codes::VECTOR_OF_FUNCTIONS, "\\x. x");
    one("[succ]", codes::VECTOR_OF_FUNCTIONS, "succ");
    one(
        "def f = \\g. [g]\nf (\\x. x)",
        codes::VECTOR_OF_FUNCTIONS,
        "(\\x. x)",
    );
    one(
        "\\x : vec (nat -> nat). x",
        codes::VECTOR_OF_FUNCTIONS,
        "(nat -> nat)",
    );
    one("map succ [pred]", codes::VECTOR_OF_FUNCTIONS, "pred");
    one("eq 1 2", codes::EQ_NOT_THETA, "1");
    one("eq [~1] [~1]", codes::EQ_NOT_THETA, "[~1]");
    one(
        "def same = \\x y. eq x y\nsame succ pred",
        codes::EQ_NOT_THETA,
        "succ",
    );
    assert!(typed("eq <zero, un> <~1, un>").diagnostics.is_empty());
    one("ifs 1 then ~1 else ~2", codes::IFS_CONDITION, "1");
    one(
        "\\x. ifs x + 1 then x else 0",
        codes::IFS_CONDITION,
        "x + 1",
    );
}

#[test]
fn plain_errors_name_both_types() {
    one("append [1] 2", codes::MISMATCH, "2");
    let t = typed("append [1] 2");
    assert_eq!(t.diagnostics[0].message, "expected `vec nat`, found `nat`");
    one("1 + [2]", codes::MISMATCH, "[2]");
    one("(1, 2) 3", codes::MISMATCH, "(1, 2)");
    one("ifs zero then 1 else ~1", codes::MISMATCH, "~1");
    one("\\x. x x", codes::INFINITE, "x x");
    one("foo 1", codes::UNBOUND, "foo");
    one("[]", codes::EMPTY_VECTOR, "[]");
    one("def f : sz = 1 + 1", codes::MISMATCH, "1 + 1");
    one(
        "def f : 'a -> 'a = \\x. x + 1",
        codes::MISMATCH,
        "\\x. x + 1",
    );
    one("def f : 'a -> 'a -> sz = eq", codes::EQ_NOT_THETA, "eq");
    one("def f (x : nat) : sz = x", codes::MISMATCH, "x");
}

#[test]
fn errors_do_not_cascade() {
    // The unbound name gets a fresh type; its uses are not errors again.
    one(
        "def y = nope\ndef z = (y + 1, (hd y, y ~1))\nz",
        codes::UNBOUND,
        "nope",
    );
    // A broken definition keeps its name, with any type.
    let parsed = parse("def broken = (\ndef ok = broken 1\nok");
    let t = check(&parsed.program);
    assert!(t.diagnostics.is_empty(), "{:#?}", t.diagnostics);
}

#[test]
fn definitions_are_instantiated_per_use() {
    let t = typed("def twice = \\f x. f (f x)\n(map succ [~1], (map (\\x. x + 1) [1], (twice succ ~1, twice (\\x. x * 2) 3)))");
    assert!(t.diagnostics.is_empty(), "{:#?}", t.diagnostics);
    assert_eq!(
        t.main.as_ref().unwrap().to_string(),
        "vec sz * vec nat * sz * nat"
    );
}

#[test]
fn lambda_bound_names_are_monomorphic() {
    one("\\f. (f 1, f ~1)", codes::MISMATCH, "~1");
    one("rec g. \\x. ifs x then g ~1 else g 1", codes::MISMATCH, "1");
}

#[test]
fn shadowing_and_no_self_reference() {
    let t = typed("def map = 1\nmap + 1");
    assert!(t.diagnostics.is_empty());
    assert_eq!(t.main.as_ref().unwrap().to_string(), "nat");
    one("def g = g", codes::UNBOUND, "g");
    let t = typed("def f = 1\ndef f = [f]\nf");
    assert_eq!(t.main.as_ref().unwrap().to_string(), "vec nat");
}

#[test]
fn subterms_have_types() {
    let source = "\\x. length [x, x]";
    let t = typed(source);
    let at = |s: usize, e: usize| t.type_at(Span::new(s, e)).map(|t| t.to_string());
    assert_eq!(at(0, source.len()).as_deref(), Some("'a -> sz"));
    let v = source.find('[').unwrap();
    assert_eq!(at(v, source.len()).as_deref(), Some("vec 'a"));
}

#[test]
fn strata_as_predicates() {
    use crate::{Kind, Ty};
    let theta = Ty::product(Ty::Sz, Ty::Un);
    assert!(theta.is_in(Kind::Theta, &[]));
    assert!(!Ty::vec(Ty::Sz).is_in(Kind::Theta, &[]));
    assert!(Ty::vec(Ty::Nat).is_in(Kind::Data, &[]));
    assert!(!Ty::arrow(Ty::Nat, Ty::Nat).is_in(Kind::Data, &[]));
    assert!(!Ty::vec(Ty::arrow(Ty::Nat, Ty::Nat)).is_phrase(&[]));
    assert!(Ty::Nat.is_datum() && !Ty::Sz.is_datum());
    assert!(Ty::Var(0).is_in(Kind::Data, &[Kind::Theta]));
    assert!(!Ty::Var(0).is_in(Kind::Theta, &[Kind::Data]));
}

#[test]
fn exponential_types_are_cut_off() {
    let mut source = String::from("def f0 = \\x. (x, x)\n");
    for i in 1..40 {
        source.push_str(&format!("def f{i} = \\x. f{} (f{} x)\n", i - 1, i - 1));
    }
    source.push_str("f39 1");
    let t = typed(&source);
    assert!(codes_of(&t).contains(&codes::TOO_LARGE));
}

#[cfg(not(target_arch = "wasm32"))]
mod soup {
    use super::*;
    use proptest::prelude::*;

    fn token() -> impl Strategy<Value = &'static str> {
        prop::sample::select(
            &[
                "def", "fun", "rec", "ifs", "if", "then", "else", "check", "let", "in", "x", "f",
                "zero", "1", "~2", "(", ")", "[", "]", "<", ">", ",", ".", ":", "=", "<=", "->",
                "\\", "+", "*", "~+", "::", "nat", "vec", "sz", "'a", " ", "\n", "\n  ", "map",
                "eq", "hd", "succ", "pair", "err", "fold", "un",
            ][..],
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, .. ProptestConfig::default() })]

        #[test]
        fn token_soup_never_panics(tokens in prop::collection::vec(token(), 0..80)) {
            let source = tokens.concat();
            let t = check(&parse(&source).program);
            for d in &t.diagnostics {
                prop_assert!(d.span.end <= source.len());
            }
        }
    }
}
