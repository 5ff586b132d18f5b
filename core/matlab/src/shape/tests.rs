//! Worked examples and counterexamples of Joisha et al. (spec 000 §4) and the algebraic
//! laws of Table 3 on concrete tuples.

use super::*;
use proptest::prelude::*;
use shapex_dims::{Constraint, Dim, Facts};

fn k(e: &[i64]) -> Shape {
    Shape::known(e)
}
fn sym(names: &[&str]) -> Shape {
    Shape::tuple(names.iter().map(|n| Dim::sym(n)).collect())
}
fn none() -> Facts {
    Facts::new()
}
fn mt(a: &Shape, b: &Shape) -> Shape {
    mtimes(a, b, &none()).shape
}
/// What the analysis does when it binds an outcome to `name`: placeholders become
/// symbols `name~c1`, `name~c2`, …, in the shape and in the facts assumed.
fn bound(o: &Outcome, name: &str, facts: &Facts) -> (Shape, Facts) {
    let named = std::cell::RefCell::new(Vec::<String>::new());
    let rename = |d: &Dim| {
        d.substitute(&|a| match a {
            shapex_dims::Atom::Sym(n) if n.name().starts_with(PLACEHOLDER) => {
                let mut named = named.borrow_mut();
                let i = match named.iter().position(|m| m.as_str() == n.name()) {
                    Some(i) => i,
                    None => {
                        named.push(n.name().to_string());
                        named.len() - 1
                    }
                };
                Some(Dim::sym(&format!("{name}~c{}", i + 1)))
            }
            _ => None,
        })
    };
    let mut f = facts.clone();
    for c in &o.assume {
        f.assume(&c.map_dims(&rename));
    }
    (o.shape.map_dims(&rename), f)
}

fn is_placeholder(d: &Dim) -> bool {
    d.to_string().starts_with(PLACEHOLDER)
}

fn pl(a: &Shape, b: &Shape) -> Shape {
    elementwise(a, b, Mode::Paper, &none()).shape
}

#[test]
fn canonical_form_drops_trailing_ones_from_third() {
    assert_eq!(k(&[2, 3, 4, 1, 1]), k(&[2, 3, 4]));
    assert_eq!(k(&[3, 1]).to_string(), "<3,1>");
    assert_eq!(k(&[1, 1, 1]).to_string(), "<1,1>");
    assert_eq!(k(&[3]).to_string(), "<3,1>");
    assert_eq!(k(&[1, 0, 4]).to_string(), "<1,0,4>");
    assert_eq!(k(&[3, 4]).display(Notation::Times), "3×4");
    let s = Shape::tuple(vec![Dim::sym("p1") + Dim::sym("q1"), Dim::sym("n")]);
    assert_eq!(s.display(Notation::Times), "(p1+q1)×n");
    assert_eq!(s.display(Notation::Paper), "<p1+q1,n>");
}

#[test]
fn shape_view_matches_cli_contract() {
    let v = serde_json::to_string(&Shape::tuple(vec![Dim::known(3), Dim::sym("n")]).to_view());
    assert_eq!(v.ok().as_deref(), Some(r#"{"dims":[3,"n"]}"#));
    let v = serde_json::to_string(&Shape::Illegal.to_view());
    assert_eq!(v.ok().as_deref(), Some(r#"{"illegal":true}"#));
    let v = serde_json::to_string(&Shape::Unknown.to_view());
    assert_eq!(v.ok().as_deref(), Some(r#"{"dims":null}"#));
}

#[test]
fn psi_swaps_first_two() {
    let t = ShapeTuple::known(&[2, 3, 4, 5]);
    assert_eq!(t.swap12(), ShapeTuple::known(&[3, 2, 4, 5]));
}

#[test]
fn example1_and_its_variants() {
    assert_eq!(mt(&k(&[3, 2]), &k(&[4, 4, 1])), Shape::Illegal);
    assert_eq!(
        mtimes(&k(&[3, 2]), &k(&[4, 4, 1]), &none()).status,
        Truth::Refuted
    );
    assert_eq!(mt(&k(&[3, 2]), &k(&[2, 4, 1])), k(&[3, 4]));
    assert_eq!(mt(&k(&[1, 1]), &k(&[4, 4, 2])), k(&[4, 4, 2]));
    assert_eq!(mt(&k(&[3, 2]), &k(&[1, 1, 1])), k(&[3, 2]));
    assert_eq!(mt(&k(&[3, 2]), &k(&[2, 4, 2])), Shape::Illegal);
}

#[test]
fn footnote_f_empty_inner_extent() {
    assert_eq!(mt(&k(&[2, 0]), &k(&[0, 3])), k(&[2, 3]));
    assert_eq!(mt(&k(&[0, 0]), &k(&[1, 1])), k(&[0, 0]));
}

#[test]
fn example2_concatenation() {
    let f = none();
    assert_eq!(horzcat(&[k(&[2, 3]), k(&[2, 5])], &f).shape, k(&[2, 8]));
    assert_eq!(horzcat(&[k(&[2, 3]), k(&[3, 3])], &f).shape, Shape::Illegal);
    assert_eq!(vertcat(&[k(&[2, 3]), k(&[4, 3])], &f).shape, k(&[6, 3]));
    let out = horzcat(&[sym(&["p1", "p2"]), sym(&["q1", "q2"])], &f);
    assert_eq!(
        out.theta.to_string().split(" ∨ ").next(),
        Some("(p1 == q1)")
    );
    // The rows are p1 unless one operand is empty ([a, b] is then the other one): a
    // placeholder for the analysis to name; the columns are p2+q2 in every case.
    let t = out.shape.as_tuple().unwrap();
    assert!(is_placeholder(&t.extent(0)), "{}", out.shape);
    assert_eq!(t.extent(1).to_string(), "p2+q2");
}

#[test]
fn empty_matrix_is_skipped_in_concatenation() {
    let f = none();
    let out = vertcat(&[Shape::empty(), k(&[1, 3])], &f);
    assert_eq!(out.shape, k(&[1, 3]));
    assert_eq!(out.rule.source, SOURCE_EXTENSION);
    assert_eq!(
        vertcat(&[k(&[2, 3]), Shape::empty(), k(&[1, 3])], &f).shape,
        k(&[3, 3])
    );
    assert_eq!(vertcat(&[], &f).shape, Shape::empty());
    // 0×3 is not `[]`: extents must still match.
    assert_eq!(vertcat(&[k(&[0, 3]), k(&[2, 2])], &f).shape, Shape::Illegal);
}

#[test]
fn section_5_3_counterexamples() {
    let ab = mt(&k(&[2, 5, 3]), &k(&[1, 2]));
    assert_eq!(ab, Shape::Illegal);
    assert_eq!(mt(&ab, &k(&[2, 1])), Shape::Illegal);
    assert_eq!(
        mt(&k(&[2, 5, 3]), &mt(&k(&[1, 2]), &k(&[2, 1]))),
        k(&[2, 5, 3])
    );
    assert_eq!(mt(&k(&[2, 5]), &k(&[5, 2])), k(&[2, 2]));
    assert_eq!(mt(&k(&[5, 2]), &k(&[2, 5])), k(&[5, 5]));
    assert_eq!(mt(&k(&[2, 5, 3]), &k(&[2, 5, 3])), Shape::Illegal);
}

#[test]
fn lemmas_identity_and_annihilator() {
    let s = k(&[2, 5, 3]);
    let iota = Shape::scalar();
    assert_eq!(mt(&Shape::Illegal, &s), Shape::Illegal);
    assert_eq!(mt(&s, &Shape::Illegal), Shape::Illegal);
    assert_eq!(pl(&Shape::Illegal, &s), Shape::Illegal);
    assert_eq!(mt(&iota, &s), s);
    assert_eq!(mt(&s, &iota), s);
    assert_eq!(pl(&iota, &s), s);
}

#[test]
fn mpower_rules() {
    let f = none();
    assert_eq!(mpower(&k(&[3, 3]), &Shape::scalar(), &f).shape, k(&[3, 3]));
    assert_eq!(mpower(&Shape::scalar(), &k(&[3, 3]), &f).shape, k(&[3, 3]));
    assert_eq!(
        mpower(&Shape::scalar(), &Shape::scalar(), &f).shape,
        Shape::scalar()
    );
    // ῑ is not an identity for non-square s (spec §2.4).
    assert_eq!(
        mpower(&Shape::scalar(), &k(&[2, 3]), &f).shape,
        Shape::Illegal
    );
    assert_eq!(
        mpower(&k(&[2, 2, 2]), &Shape::scalar(), &f).shape,
        Shape::Illegal
    );
}

#[test]
fn transpose_rules() {
    let f = none();
    assert_eq!(transpose(&k(&[3, 4]), &f).shape, k(&[4, 3]));
    assert_eq!(transpose(&k(&[3, 4, 2]), &f).shape, Shape::Illegal);
    let out = transpose(&sym(&["n", "m", "r"]), &f);
    assert_eq!(out.shape.to_string(), "<m,n>");
    assert_eq!(out.theta.to_string(), "r == 1");
    assert_eq!(out.status, Truth::Unknown);
}

#[test]
fn division_with_corrected_conditions() {
    let f = none();
    let rd = |a: &[i64], b: &[i64]| mrdivide(&k(a), &k(b), &f).shape;
    let ld = |a: &[i64], b: &[i64]| mldivide(&k(a), &k(b), &f).shape;
    assert_eq!(rd(&[3, 4], &[1, 1]), k(&[3, 4]));
    assert_eq!(rd(&[1, 1], &[2, 2, 2]), k(&[2, 2, 2]));
    assert_eq!(rd(&[3, 4], &[5, 4]), k(&[3, 5]));
    assert_eq!(rd(&[1, 1], &[2, 2]), Shape::Illegal);
    assert_eq!(rd(&[1, 1], &[2, 1]), k(&[1, 2]));
    assert_eq!(ld(&[1, 1], &[3, 4]), k(&[3, 4]));
    assert_eq!(ld(&[2, 2, 2], &[1, 1]), k(&[2, 2, 2]));
    assert_eq!(ld(&[3, 4], &[3, 5]), k(&[4, 5]));
    assert_eq!(ld(&[3, 4], &[4, 5]), Shape::Illegal);
}

#[test]
fn symbolic_mtimes_condition_and_generic_case() {
    let (a, b) = (sym(&["p1", "p2"]), sym(&["q1", "q2"]));
    let out = mtimes(&a, &b, &none());
    assert_eq!(
        out.theta.to_string(),
        "(p2 == q1) ∨ (p1 == 1 ∧ p2 == 1) ∨ (q1 == 1 ∧ q2 == 1)"
    );
    assert_eq!(out.status, Truth::Unknown);
    // Once the check passes, any of the three cases may hold: the result keeps them all
    // (a disjunction), so neither `p2 == q1` nor a scalar operand is taken for granted.
    let (shape, after) = bound(&out, "c", &none());
    assert_eq!(shape.to_string(), "<c~c1,c~c2>");
    assert!(matches!(out.assume.as_slice(), [Constraint::Or(alts)] if alts.len() == 3));
    let p2_eq_q1 = Constraint::eq(&Dim::sym("p2"), &Dim::sym("q1"));
    assert_eq!(after.ask(&p2_eq_q1), Truth::Unknown);
    assert_eq!(after.ask(&out.theta), Truth::Proven);
    // No false alarms: refuted only when false for every value of the unknowns.
    let out = mtimes(&k(&[3, 4]), &sym(&["n", "m"]), &none());
    assert_eq!(out.status, Truth::Unknown);
    let out = mtimes(&k(&[3, 4]), &k(&[5, 6]), &none());
    assert_eq!(out.status, Truth::Refuted);
    // <3,4>*<n,n> is <3,4> whether n == 4 or n == 1 (a scalar): both stay possible.
    let out = mtimes(&k(&[3, 4]), &sym(&["n", "n"]), &none());
    assert_eq!(out.shape, k(&[3, 4]));
    let n = Dim::sym("n");
    assert_eq!(
        out.assume,
        vec![Constraint::or([
            Constraint::eq(&n, &Dim::known(4)),
            Constraint::eq(&n, &Dim::one())
        ])]
    );
    // When the generic case is impossible, the scalar case is the only one left.
    let out = mtimes(
        &k(&[3, 4]),
        &Shape::tuple(vec![Dim::one(), Dim::sym("n")]),
        &none(),
    );
    assert_eq!(out.shape, k(&[3, 4]));
    assert_eq!(
        out.assume,
        vec![Constraint::eq(&Dim::sym("n"), &Dim::one())]
    );
}

#[test]
fn example3_e_is_proven_same_shape_as_d() {
    for mode in [Mode::Paper, Mode::Modern] {
        let (a, b) = (sym(&["p1", "p2"]), sym(&["q1", "q2"]));
        let f0 = none();
        let c = mtimes(&a, &b, &f0);
        let (c_shape, f1) = bound(&c, "c", &f0);
        let d = elementwise(&c_shape, &a, mode, &f1);
        assert_eq!(
            d.status,
            Truth::Unknown,
            "{mode:?}: d needs a run-time check"
        );
        let (d_shape, f2) = bound(&d, "d", &f1);
        let e = elementwise(&d_shape, &a, mode, &f2);
        assert_eq!(e.status, Truth::Proven, "{mode:?}: e = d - a is proven");
        let (e_shape, f3) = bound(&e, "e", &f2);
        assert_eq!(e_shape.same_as(&d_shape, &f3), Truth::Proven);
        assert_eq!(e_shape, d_shape.normalize(&f3));
    }
}

#[test]
fn example4_loop_algebra_converges_after_one_step() {
    // s_i = s_{i-1} ⊕ t: the shape of a stabilises after the first iteration.
    let cases = [
        (k(&[3, 4]), k(&[1, 1]), Some(k(&[3, 4]))),
        (k(&[1, 1]), k(&[3, 4]), Some(k(&[3, 4]))),
        (k(&[3, 4]), k(&[4, 3]), None),
    ];
    for (s0, t, want) in cases {
        let mut s = s0.clone();
        let s1 = pl(&s0, &t);
        for _ in 0..5 {
            s = pl(&s, &t);
            assert_eq!(s, s1, "s_i = s_0 ⊕ t for every i");
        }
        match want {
            Some(w) => assert_eq!(s, w),
            None => assert_eq!(s, Shape::Illegal),
        }
    }
    // Symbolically: after one assumed step the repeated application is proven.
    let (s0, t) = (sym(&["p1", "p2"]), sym(&["q1", "q2"]));
    let f0 = none();
    let u1 = elementwise(&s0, &t, Mode::Paper, &f0);
    let (u1_shape, f1) = bound(&u1, "u1", &f0);
    let u2 = elementwise(&u1_shape, &t, Mode::Paper, &f1);
    assert_eq!(u2.status, Truth::Proven);
    let (u2_shape, f2) = bound(&u2, "u2", &f1);
    assert_eq!(u2_shape, u1_shape.normalize(&f2));
}

#[test]
fn modern_mode_broadcasts() {
    let f = none();
    let e = |a: &[i64], b: &[i64]| elementwise(&k(a), &k(b), Mode::Modern, &f).shape;
    assert_eq!(e(&[3, 1], &[1, 4]), k(&[3, 4]));
    assert_eq!(e(&[3, 4], &[1, 4]), k(&[3, 4]));
    assert_eq!(e(&[3, 4, 2], &[3, 1]), k(&[3, 4, 2]));
    assert_eq!(e(&[3, 4], &[2, 4]), Shape::Illegal);
    assert_eq!(
        elementwise(&k(&[3, 1]), &k(&[1, 4]), Mode::Paper, &f).shape,
        Shape::Illegal
    );
    let out = elementwise(&k(&[3, 4]), &sym(&["n", "m"]), Mode::Modern, &f);
    assert_eq!(out.shape, k(&[3, 4]));
    assert_eq!(out.status, Truth::Unknown);
}

fn arb_tuple() -> impl Strategy<Value = Shape> {
    prop::collection::vec(0i64..4, 2..5).prop_map(|v| Shape::known(&v))
}

fn arb_shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        8 => arb_tuple(),
        1 => Just(Shape::Illegal),
        1 => Just(Shape::scalar()),
    ]
}

proptest! {
    #[test]
    fn plus_is_an_idempotent_commutative_monoid(s in arb_shape(), t in arb_shape(), u in arb_shape()) {
        prop_assert_eq!(pl(&pl(&s, &t), &u), pl(&s, &pl(&t, &u)));
        prop_assert_eq!(pl(&s, &t), pl(&t, &s));
        prop_assert_eq!(pl(&s, &s), s.clone());
        prop_assert_eq!(pl(&Shape::scalar(), &s), s.clone());
        prop_assert_eq!(pl(&Shape::Illegal, &s), Shape::Illegal);
    }

    #[test]
    fn mtimes_has_identity_and_annihilator(s in arb_shape()) {
        prop_assert_eq!(mt(&Shape::scalar(), &s), s.clone());
        prop_assert_eq!(mt(&s, &Shape::scalar()), s.clone());
        prop_assert_eq!(mt(&Shape::Illegal, &s), Shape::Illegal);
        prop_assert_eq!(mt(&s, &Shape::Illegal), Shape::Illegal);
    }

    #[test]
    fn concatenation_is_associative_and_commutative_in_shape(s in arb_tuple(), t in arb_tuple(), u in arb_tuple()) {
        let f = none();
        let v = |x: &Shape, y: &Shape| cat_pair(0, x, y, &f).shape;
        prop_assert_eq!(v(&v(&s, &t), &u), v(&s, &v(&t, &u)));
        prop_assert_eq!(v(&s, &t), v(&t, &s));
    }

    /// Symbolic rules never contradict concrete evaluation: substituting values into
    /// θ gives the concrete verdict, and the generic result matches when θ holds there.
    #[test]
    fn symbolic_mtimes_agrees_with_concrete(p in prop::collection::vec(0i64..4, 4)) {
        let (a, b) = (sym(&["p1", "p2"]), sym(&["q1", "q2"]));
        let out = mtimes(&a, &b, &none());
        let env = |n: &str| Some(match n { "p1" => p[0], "p2" => p[1], "q1" => p[2], "q2" => p[3], _ => return None });
        let concrete = mt(&k(&p[0..2]), &k(&p[2..4]));
        prop_assert_eq!(out.theta.eval(&env), Some(concrete != Shape::Illegal));
    }
}

#[test]
fn mtimes_is_not_associative_commutative_or_idempotent() {
    // The paper's counterexamples (§5.3), asserted as properties that fail.
    let (a, b, c) = (k(&[2, 5, 3]), k(&[1, 2]), k(&[2, 1]));
    assert_ne!(mt(&mt(&a, &b), &c), mt(&a, &mt(&b, &c)));
    assert_ne!(mt(&k(&[2, 5]), &k(&[5, 2])), mt(&k(&[5, 2]), &k(&[2, 5])));
    assert_ne!(mt(&a, &a), a);
}

// ---- extensions beyond the paper (expected values checked with Octave 7.3) ----

fn v(n: &str) -> Dim {
    Dim::val(n)
}

#[test]
fn create_clamps_and_squares() {
    assert_eq!(create(&[]).shape, Shape::scalar());
    assert_eq!(create(&[v("n")]).shape.to_string(), "<max(n,0),max(n,0)>");
    assert_eq!(create(&[Dim::known(3), Dim::known(-2)]).shape, k(&[3, 0]));
    assert_eq!(
        create(&[Dim::known(1), Dim::known(0), Dim::known(4)]).shape,
        k(&[1, 0, 4])
    );
    assert_eq!(create(&[v("m"), v("n")]).rule.source, "Joisha eq. (39)");
}

#[test]
fn reductions() {
    let f = none();
    let r = |a: &Shape, d| reduce(a, d, EmptyReduction::ToScalar, &f).shape;
    assert_eq!(r(&k(&[3, 4]), None), k(&[1, 4]));
    assert_eq!(r(&k(&[1, 4]), None), k(&[1, 1]));
    assert_eq!(r(&k(&[1, 0]), None), k(&[1, 1]));
    assert_eq!(r(&k(&[0, 3]), None), k(&[1, 3]));
    assert_eq!(r(&k(&[3, 4, 5]), Some(3)), k(&[3, 4]));
    assert_eq!(r(&k(&[3, 4]), Some(5)), k(&[3, 4]));
    assert_eq!(r(&Shape::empty(), None), Shape::scalar());
    assert_eq!(
        reduce(&Shape::empty(), None, EmptyReduction::ToEmpty, &f).shape,
        Shape::empty()
    );
    // n may be 1, and then the reduction runs along m: both cases are kept.
    let open = r(&sym(&["n", "m"]), None);
    let t = open.as_tuple().unwrap();
    assert_eq!(t.extent(0), Dim::one());
    assert!(is_placeholder(&t.extent(1)), "{open}");
    // n ≠ 1 leaves n = m = 0, where `sum([])` is 1×1; n ≥ 2 decides it.
    let n_not_1 = none().with(&Constraint::ne(&Dim::sym("n"), &Dim::one()));
    let open = reduce(&sym(&["n", "m"]), None, EmptyReduction::ToScalar, &n_not_1).shape;
    assert!(
        is_placeholder(&open.as_tuple().unwrap().extent(1)),
        "{open}"
    );
    let n_tall = none().with(&Constraint::le(&Dim::known(2), &Dim::sym("n")));
    let known = reduce(&sym(&["n", "m"]), None, EmptyReduction::ToScalar, &n_tall);
    assert_eq!(known.shape.to_string(), "<1,m>");
}

#[test]
fn indexing() {
    let f = none();
    let a = k(&[3, 4]);
    assert_eq!(index(&a, &[IndexArg::Colon], &f).shape, k(&[12, 1]));
    assert_eq!(
        index(
            &a,
            &[IndexArg::Scalar(Some(Dim::known(2))), IndexArg::Colon],
            &f
        )
        .shape,
        k(&[1, 4])
    );
    assert_eq!(
        index(&a, &[IndexArg::Colon, IndexArg::End(0)], &f).shape,
        k(&[3, 1])
    );
    let out = index(
        &a,
        &[IndexArg::Scalar(Some(Dim::known(5))), IndexArg::Colon],
        &f,
    );
    assert_eq!(
        out.status,
        Truth::Refuted,
        "row 5 of a 3x4 is out of bounds"
    );
    let row = k(&[1, 5]);
    let r3 = IndexArg::Range {
        len: Dim::known(3),
        max: Some(Dim::known(3)),
    };
    assert_eq!(index(&row, std::slice::from_ref(&r3), &f).shape, k(&[1, 3]));
    assert_eq!(
        index(&k(&[5, 1]), std::slice::from_ref(&r3), &f).shape,
        k(&[3, 1])
    );
    assert_eq!(index(&a, &[r3], &f).shape, k(&[1, 3]));
    let mask = IndexArg::Logical {
        mask: a.clone(),
        count: Dim::sym("c1"),
    };
    assert_eq!(
        index(&a, std::slice::from_ref(&mask), &f).shape.to_string(),
        "<c1,1>"
    );
    assert_eq!(index(&a, &[mask], &f).status, Truth::Proven);
    // A mask that may be longer than the extent fails when an extra element is true,
    // which only run time knows; one that is longer is still not an error (its extra
    // elements may all be false).
    let sym = |d: &[&str]| Shape::tuple(d.iter().map(|x| Dim::sym(x)).collect());
    let long = IndexArg::Logical {
        mask: sym(&["m1", "m2"]),
        count: Dim::sym("c2"),
    };
    let rows = index(&a, &[long.clone(), IndexArg::Colon], &f);
    assert_eq!(rows.status, Truth::Unknown, "{}", rows.theta);
    let longer = IndexArg::Logical {
        mask: k(&[1, 5]),
        count: Dim::sym("c3"),
    };
    assert_eq!(
        index(&a, &[longer, IndexArg::Colon], &f).status,
        Truth::Unknown
    );
    let unknown = IndexArg::Logical {
        mask: Shape::Unknown,
        count: Dim::sym("c4"),
    };
    assert_eq!(index(&a, &[unknown], &f).status, Truth::Unknown);
    // A matrix indexed by a mask of unknown orientation is a row or a column.
    assert_eq!(index(&a, &[long], &f).shape, Shape::Unknown);
    // Fewer subscripts than dimensions: the last spans the rest.
    assert_eq!(
        index(&k(&[2, 3, 4]), &[IndexArg::Colon, IndexArg::Colon], &f).shape,
        k(&[2, 12])
    );
    assert_eq!(end_value(&k(&[2, 3, 4]), 1, 2), Some(Dim::known(12)));
}

#[test]
fn subscripted_assignment_grows_and_deletes() {
    let f = none();
    let mut n = 0;
    let mut fresh = || {
        n += 1;
        Dim::sym(&format!("g{n}"))
    };
    let one = Shape::scalar();
    let s = |x: i64| IndexArg::Scalar(Some(Dim::known(x)));
    // x = []; x(3) = 1  → 1×3
    assert_eq!(
        assign_index(&Shape::empty(), &[s(3)], &one, &f, &mut fresh).shape,
        k(&[1, 3])
    );
    // z = ones(3,1); z(5) = 1 → 5×1
    assert_eq!(
        assign_index(&k(&[3, 1]), &[s(5)], &one, &f, &mut fresh).shape,
        k(&[5, 1])
    );
    // A = []; A(:,1) = [1;2;3] → 3×1
    let out = assign_index(
        &Shape::empty(),
        &[IndexArg::Colon, s(1)],
        &k(&[3, 1]),
        &f,
        &mut fresh,
    );
    assert_eq!(out.shape, k(&[3, 1]));
    // A(end+1,:) = row grows by one.
    let out = assign_index(
        &sym(&["n", "m"]),
        &[IndexArg::End(1), IndexArg::Colon],
        &sym(&["r", "m"]).normalize(&f),
        &f,
        &mut fresh,
    );
    assert_eq!(out.shape.to_string(), "<n+1,m>");
    // Mismatched non-singleton extents: A(1:2,1:3) = ones(3,2) fails.
    let r2 = IndexArg::Range {
        len: Dim::known(2),
        max: Some(Dim::known(2)),
    };
    let r3 = IndexArg::Range {
        len: Dim::known(3),
        max: Some(Dim::known(3)),
    };
    let out = assign_index(&k(&[2, 3]), &[r2, r3.clone()], &k(&[3, 2]), &f, &mut fresh);
    assert_eq!(out.status, Truth::Refuted);
    // A(1,1:3) = ones(3,1) is fine (non-singleton extents agree).
    let out = assign_index(&k(&[2, 3]), &[s(1), r3], &k(&[3, 1]), &f, &mut fresh);
    assert_eq!((out.status, out.shape), (Truth::Proven, k(&[2, 3])));
    // Unknown subscript values grow to a fresh extent.
    let out = assign_index(&k(&[1, 3]), &[IndexArg::Scalar(None)], &one, &f, &mut fresh);
    assert_eq!(out.shape.to_string(), "<1,g1>");
    // Deletion.
    let e = Shape::empty();
    assert_eq!(
        assign_index(&k(&[3, 3]), &[IndexArg::Colon, s(2)], &e, &f, &mut fresh).shape,
        k(&[3, 2])
    );
    assert_eq!(
        assign_index(&k(&[3, 3]), &[s(2)], &e, &f, &mut fresh).shape,
        k(&[1, 8])
    );
    assert_eq!(
        assign_index(
            &k(&[3, 3]),
            &[IndexArg::Colon, IndexArg::Colon],
            &e,
            &f,
            &mut fresh
        )
        .shape,
        k(&[0, 3])
    );
    assert_eq!(
        assign_index(&k(&[4, 1]), &[s(2)], &e, &f, &mut fresh).shape,
        k(&[3, 1])
    );
}

#[test]
fn reshape_repmat_permute_cat_colon() {
    let f = none();
    let a = k(&[3, 4]);
    assert_eq!(
        reshape(&a, &[Some(Dim::known(2)), None], &f).shape,
        k(&[2, 6])
    );
    assert_eq!(
        reshape(&a, &[Some(Dim::known(5)), None], &f).status,
        Truth::Refuted
    );
    assert_eq!(
        reshape(&a, &[Some(Dim::known(6)), Some(Dim::known(2))], &f).shape,
        k(&[6, 2])
    );
    assert_eq!(
        reshape(&a, &[Some(Dim::known(5)), Some(Dim::known(2))], &f).status,
        Truth::Refuted
    );
    // With m = 0 the `[]` size is undefined (MATLAB fails, Octave gives 0×0): a
    // run-time check, proven once m ≥ 1 is known.
    let out = reshape(&sym(&["n", "m"]), &[Some(Dim::sym("m")), None], &f);
    assert_eq!(
        (out.status, out.shape.to_string()),
        (Truth::Unknown, "<m,n>".to_string())
    );
    let positive = f.with(&Constraint::le(&Dim::one(), &Dim::sym("m")));
    let out = reshape(&sym(&["n", "m"]), &[Some(Dim::sym("m")), None], &positive);
    assert_eq!(
        (out.status, out.shape.to_string()),
        (Truth::Proven, "<m,n>".to_string())
    );
    assert_eq!(repmat(&a, &[Dim::known(2)], &f).shape, k(&[6, 8]));
    assert_eq!(
        repmat(&a, &[Dim::known(1), Dim::known(1), Dim::known(2)], &f).shape,
        k(&[3, 4, 2])
    );
    assert_eq!(permute(&k(&[2, 3, 4]), &[3, 1, 2], &f).shape, k(&[4, 2, 3]));
    assert_eq!(permute(&k(&[2, 3, 4]), &[2, 1], &f).shape, Shape::Illegal);
    assert_eq!(permute(&k(&[2, 3]), &[1, 1], &f).shape, Shape::Illegal);
    assert_eq!(cat(3, &[k(&[2, 3]), k(&[2, 3])], &f).shape, k(&[2, 3, 2]));
    assert_eq!(cat(3, &[k(&[2, 3]), k(&[2, 4])], &f).shape, Shape::Illegal);
    assert_eq!(colon(&Dim::known(1), &Dim::known(5)).shape, k(&[1, 5]));
    assert_eq!(colon(&Dim::known(5), &Dim::known(1)).shape, k(&[1, 0]));
    assert_eq!(
        colon(&Dim::known(1), &v("n")).shape.to_string(),
        "<1,max(n,0)>"
    );
    assert_eq!(
        colon_step(&Dim::known(1), &Dim::known(2), &Dim::known(10)).shape,
        k(&[1, 5])
    );
    assert_eq!(
        colon_step(&Dim::known(10), &Dim::known(-3), &Dim::known(1)).shape,
        k(&[1, 4])
    );
    assert_eq!(
        colon_step(&Dim::known(1), &Dim::known(0), &Dim::known(3)).shape,
        k(&[1, 0])
    );
}

#[test]
fn join_and_widen() {
    let mut fresh = |i: usize| Dim::sym(&format!("w{i}"));
    assert_eq!(join(&k(&[3, 4]), &k(&[3, 4]), &mut fresh), k(&[3, 4]));
    assert_eq!(
        join(&k(&[3, 4]), &k(&[5, 4]), &mut fresh).to_string(),
        "<w0,4>"
    );
    assert_eq!(
        join(&k(&[3, 4]), &k(&[3, 4, 2]), &mut fresh),
        Shape::Unknown
    );
    assert_eq!(join(&Shape::Illegal, &k(&[3, 4]), &mut fresh), k(&[3, 4]));
    // a = [a; b] in a loop reaches a fixed point once widened with a stable symbol.
    let f = none();
    let b = k(&[1, 3]);
    let mut a = k(&[0, 3]);
    for _ in 0..4 {
        let next = vertcat(&[a.clone(), b.clone()], &f).shape;
        let w = widen(&a, &next, &mut fresh);
        if w == a {
            break;
        }
        a = w;
    }
    assert_eq!(a.to_string(), "<w0,3>");
    assert_eq!(
        widen(&a, &vertcat(&[a.clone(), b], &f).shape, &mut fresh),
        a
    );
}

proptest! {
    /// Concrete indexing agrees with a direct model of MATLAB's A(i,j) with ranges.
    #[test]
    fn two_subscript_index_counts(p in 1i64..5, q in 1i64..5, i in 0i64..5, j in 0i64..5) {
        let f = none();
        let r = |len: i64| IndexArg::Range { len: Dim::known(len), max: Some(Dim::known(len.max(1))) };
        let out = index(&k(&[p, q]), &[r(i), r(j)], &f);
        if i <= p && j <= q {
            prop_assert_eq!(out.shape, k(&[i, j]));
        } else {
            prop_assert_eq!(out.status, Truth::Refuted);
        }
    }
}
