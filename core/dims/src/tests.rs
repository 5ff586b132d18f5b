use super::*;
use proptest::prelude::*;

fn s(n: &str) -> Dim {
    Dim::sym(n)
}
fn k(v: i64) -> Dim {
    Dim::known(v)
}

#[test]
fn display_is_readable() {
    assert_eq!((s("p1") + s("q1")).to_string(), "p1+q1");
    assert_eq!((s("n") + s("n")).to_string(), "2*n");
    assert_eq!(Dim::val("n").max0().to_string(), "max(n,0)");
    assert_eq!((s("n") - k(1)).to_string(), "n-1");
    assert_eq!((k(1) - s("n")).to_string(), "-n+1");
    assert_eq!((s("n") * s("n") * k(3)).to_string(), "3*n^2");
    assert_eq!(k(0).to_string(), "0");
    let c = (Dim::val("b") - Dim::val("a")).floor_div(&k(2)) + k(1);
    assert_eq!(c.to_string(), "floor((b-a)/2)+1");
}

#[test]
fn max0_simplifies_only_when_sign_is_structural() {
    assert_eq!(k(-3).max0(), k(0));
    assert_eq!(k(4).max0(), k(4));
    // Extent symbols are nonnegative, so max(n+1,0) = n+1 …
    assert_eq!((s("n") + k(1)).max0(), s("n") + k(1));
    // … but a program value may be negative.
    assert_ne!(Dim::val("m").max0(), Dim::val("m"));
    assert_eq!((-(s("n")) - k(1)).max0(), k(0));
}

#[test]
fn floor_div_exact_and_opaque() {
    assert_eq!(
        (s("n") * k(4) + k(2)).floor_div(&k(2)),
        s("n") * k(2) + k(1)
    );
    assert_eq!(k(-7).floor_div(&k(2)), k(-4));
    assert_eq!(k(7).floor_div(&k(-2)), k(-4));
    assert_eq!((s("n") * s("m")).floor_div(&s("m")), s("n"));
    assert!(s("n").floor_div(&k(2)).as_atom().is_some());
    // Division by a known zero never panics.
    let _ = s("n").floor_div(&k(0)).to_string();
    let _ = k(i64::MIN).floor_div(&k(-1));
}

#[test]
fn overflow_is_opaque_not_wrong() {
    let big = k(i64::MAX);
    let d = big.add(&k(1));
    assert!(!d.is_known());
}

#[test]
fn constraint_display_in_paper_style() {
    let m = Dim::val("m");
    let n = Dim::val("n");
    let c = Constraint::or([
        Constraint::eq(&k(4), &m),
        Constraint::and([Constraint::eq(&m, &k(1)), Constraint::eq(&n, &k(1))]),
    ]);
    assert_eq!(c.to_string(), "(m == 4) ∨ (m == 1 ∧ n == 1)");
    assert_eq!(Constraint::eq(&s("p2"), &s("q1")).to_string(), "p2 == q1");
}

#[test]
fn constraint_folds_constants() {
    assert_eq!(Constraint::eq(&k(3), &k(3)), Constraint::True);
    assert_eq!(Constraint::eq(&k(3), &k(4)), Constraint::False);
    assert_eq!(Constraint::eq(&(s("n") + k(1)), &k(0)), Constraint::False);
    assert_eq!(Constraint::le(&k(0), &s("n")), Constraint::True);
    assert_eq!(Constraint::lt(&s("n"), &k(0)), Constraint::False);
    assert_eq!(
        Constraint::and([Constraint::True, Constraint::eq(&s("a"), &s("b"))]),
        Constraint::eq(&s("a"), &s("b"))
    );
    assert_eq!(
        Constraint::or([Constraint::False, Constraint::True]),
        Constraint::True
    );
}

#[test]
fn facts_union_find_with_offsets() {
    let mut f = Facts::new();
    f.assume(&Constraint::eq(&s("a"), &(s("b") + k(1))));
    f.assume(&Constraint::eq(&s("b"), &s("c")));
    assert_eq!(
        f.ask(&Constraint::eq(&s("a"), &(s("c") + k(1)))),
        Truth::Proven
    );
    assert_eq!(f.ask(&Constraint::eq(&s("a"), &s("c"))), Truth::Refuted);
    assert_eq!(f.normalize(&s("a")), f.normalize(&(s("c") + k(1))));
    assert_eq!(f.ask(&Constraint::eq(&s("a"), &s("d"))), Truth::Unknown);
    f.assume(&Constraint::eq(&s("c"), &k(4)));
    assert_eq!(f.normalize(&s("a")), k(5));
}

#[test]
fn facts_standing_nonnegativity() {
    let f = Facts::new();
    let n = s("n");
    assert_eq!(
        f.ask(&Constraint::Eq(n.clone() + k(1), k(0))),
        Truth::Refuted
    );
    assert_eq!(
        f.ask(&Constraint::Le(k(0), n.clone() * s("m"))),
        Truth::Proven
    );
    assert_eq!(f.ask(&Constraint::Eq(n.clone(), k(0))), Truth::Unknown);
    // A signed value has no standing bound.
    let v = Dim::val("v");
    assert_eq!(f.ask(&Constraint::Eq(v + k(1), k(0))), Truth::Unknown);
}

#[test]
fn facts_bounds_and_disequalities() {
    let mut f = Facts::new();
    let n = Dim::val("n");
    f.assume(&Constraint::lt(&k(3), &n));
    assert_eq!(f.ask(&Constraint::eq(&n, &k(2))), Truth::Refuted);
    assert_eq!(f.ask(&Constraint::le(&k(4), &n)), Truth::Proven);
    assert_eq!(f.normalize(&n.max0()), n);
    f.assume(&Constraint::ne(&s("p"), &s("q")));
    assert_eq!(f.ask(&Constraint::eq(&s("q"), &s("p"))), Truth::Refuted);
}

#[test]
fn upper_bounds_come_from_facts_and_from_min() {
    let f = Facts::new();
    let n = Dim::val("n");
    // Nothing known: no bound; `min(n, 10)` is at most 10 whatever n is, and so is
    // the extent `max(min(n, 10), 0)` it makes.
    assert_eq!(f.bounds(&n).1, None);
    assert_eq!(f.bounds(&Dim::min(&n, &k(10))).1, Some(10));
    assert_eq!(f.bounds(&Dim::min(&n, &k(10)).max0()).1, Some(10));
    assert_eq!(f.bounds(&Dim::min(&n, &k(10)).max0()).0, Some(0));
    // A fact bounds a value, and so an extent made from it.
    let f = Facts::from_constraints(&[Constraint::le(&n, &k(7))]);
    assert_eq!(f.bounds(&n).1, Some(7));
    assert_eq!(f.bounds(&n.max0()).1, Some(7));
    assert_eq!(f.bounds(&n.add_const(1).max0()).1, Some(8));
    assert_eq!(f.bounds(&Dim::min(&n, &k(10))).1, Some(7));
    // A product of a bounded and an unbounded extent has no bound.
    assert_eq!(f.bounds(&n.max0().mul(&s("m"))).1, None);
    // `m - max(m - n, 0)` is `min(m, n)`: at most n, so at most 7.
    let m = s("m");
    assert_eq!(f.bounds(&Dim::min(&m, &n)).1, Some(7));
}

#[test]
fn facts_assume_disjunction_with_one_open_branch() {
    let mut f = Facts::new();
    f.assume(&Constraint::eq(&s("q1"), &k(3)));
    f.assume(&Constraint::or([
        Constraint::eq(&s("q1"), &k(1)),
        Constraint::eq(&s("p2"), &s("q1")),
    ]));
    assert_eq!(f.normalize(&s("p2")), k(3));
}

#[test]
fn facts_nonlinear_equalities_are_kept() {
    let mut f = Facts::new();
    f.assume(&Constraint::eq(&(s("a") * s("b")), &(s("c") * s("d"))));
    assert_eq!(
        f.ask(&Constraint::eq(&(s("c") * s("d")), &(s("b") * s("a")))),
        Truth::Proven
    );
}

#[test]
fn facts_contradiction_answers_unknown() {
    let mut f = Facts::new();
    f.assume(&Constraint::Eq(s("n"), k(1)));
    f.assume(&Constraint::Eq(s("n"), k(2)));
    assert!(f.is_contradictory());
    assert_eq!(f.ask(&Constraint::True), Truth::Unknown);
}

#[test]
fn facts_meet_keeps_common_facts() {
    let mut a = Facts::new();
    a.assume(&Constraint::eq(&s("x"), &s("y")));
    a.assume(&Constraint::eq(&s("z"), &k(1)));
    let mut b = Facts::new();
    b.assume(&Constraint::eq(&s("y"), &s("x")));
    b.assume(&Constraint::eq(&s("z"), &k(2)));
    let m = Facts::meet_of_branches(&a, &b);
    assert_eq!(m.ask(&Constraint::eq(&s("x"), &s("y"))), Truth::Proven);
    assert_eq!(m.ask(&Constraint::eq(&s("z"), &k(1))), Truth::Unknown);
}

#[test]
fn facts_opaque_keys_follow_rewrites() {
    let mut f = Facts::new();
    let m = Dim::val("m");
    f.assume(&Constraint::eq(&m.max0(), &s("r")));
    f.assume(&Constraint::eq(&m, &k(5)));
    assert_eq!(f.normalize(&s("r")), k(5));
}

#[test]
fn facts_simplify_leaves_residual_check() {
    let mut f = Facts::new();
    f.assume(&Constraint::eq(&s("q1"), &k(1)));
    let theta = Constraint::or([
        Constraint::eq(&s("p2"), &s("q1")),
        Constraint::and([Constraint::eq(&s("q1"), &k(2))]),
    ]);
    assert_eq!(f.simplify(&theta).to_string(), "p2 == 1");
}

fn arb_dim() -> impl Strategy<Value = Dim> {
    let leaf = prop_oneof![
        (-5i64..6).prop_map(Dim::known),
        prop::sample::select(vec!["a", "b", "c"]).prop_map(Dim::sym),
        prop::sample::select(vec!["u", "v"]).prop_map(Dim::val),
    ];
    leaf.prop_recursive(3, 16, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(x, y)| x + y),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| x * y),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| x - y),
            inner.prop_map(|x| x.max0()),
        ]
    })
}

fn env(name: &str) -> Option<i64> {
    Some(match name {
        "a" => 2,
        "b" => 0,
        "c" => 7,
        "u" => -3,
        "v" => 5,
        _ => return None,
    })
}

proptest! {
    #[test]
    fn add_commutes_and_associates(x in arb_dim(), y in arb_dim(), z in arb_dim()) {
        prop_assert_eq!(&x + &y, &y + &x);
        prop_assert_eq!((&x + &y) + z.clone(), x.clone() + (&y + &z));
    }

    #[test]
    fn mul_distributes(x in arb_dim(), y in arb_dim(), z in arb_dim()) {
        prop_assert_eq!(&x * &(&y + &z), (&x * &y) + (&x * &z));
        prop_assert_eq!(&x * &y, &y * &x);
    }

    #[test]
    fn sub_self_is_zero(x in arb_dim()) {
        prop_assert!((&x - &x).is_zero());
    }

    /// The normal form agrees with direct evaluation (an independent semantics).
    #[test]
    fn normal_form_preserves_value(x in arb_dim(), y in arb_dim()) {
        let direct = |d: &Dim| d.eval(&env);
        if let (Some(a), Some(b)) = (direct(&x), direct(&y)) {
            prop_assert_eq!(direct(&(&x + &y)), a.checked_add(b));
            prop_assert_eq!(direct(&(&x * &y)), a.checked_mul(b));
            prop_assert_eq!(direct(&x.max0()), Some(a.max(0)));
        }
    }

    /// Facts never contradict a concrete model of their assumptions.
    #[test]
    fn ask_is_sound_against_a_model(x in arb_dim(), y in arb_dim(), z in arb_dim()) {
        let mut f = Facts::new();
        // Assume only what holds in the model `env`.
        let fact = Constraint::Eq(x.clone(), Dim::known(x.eval(&env).unwrap_or(0)));
        if fact.eval(&env) == Some(true) {
            f.assume(&fact);
        }
        for c in [Constraint::Eq(y.clone(), z.clone()), Constraint::Le(y.clone(), z.clone())] {
            match (f.ask(&c), c.eval(&env)) {
                (Truth::Proven, Some(false)) | (Truth::Refuted, Some(true)) => {
                    prop_assert!(false, "{} answered wrongly under {:?}", c, f.as_constraints());
                }
                _ => {}
            }
        }
    }
}

#[test]
fn overflowed_extents_are_never_equal_or_ordered() {
    // Two unrelated overflows both print as the overflow symbol; a check over them must
    // stay unknown, never proven (issue #7's "each overflow is fresh", kept sound here).
    let big = Dim::known(i64::MAX);
    let a = big.add(&Dim::one());
    let b = big.mul(&Dim::known(3));
    assert!(a.is_opaque() && b.is_opaque());
    assert_eq!(Constraint::eq(&a, &b), Constraint::Eq(a.clone(), b.clone()));
    let f = Facts::new();
    assert_eq!(f.ask(&Constraint::eq(&a, &b)), Truth::Unknown);
    assert_eq!(f.ask(&Constraint::le(&a, &b)), Truth::Unknown);
    assert_eq!(f.ask(&Constraint::eq(&a, &a)), Truth::Unknown);
    assert!(!Dim::known(5).is_opaque());
}

// ---- Symbols as identities (issue #7 item 4) ----

#[test]
fn minted_symbols_are_identities_not_names() {
    let mut table = SymbolTable::new();
    let site = |stmt| Site {
        stmt,
        iterations: vec![],
    };
    let a = table.mint(
        "a~j1",
        Provenance::Join {
            var: "a".into(),
            component: 0,
            site: site(7),
        },
    );
    // Same display name, different entry: a different symbol.
    let b = table.mint(
        "a~j1",
        Provenance::Join {
            var: "a".into(),
            component: 0,
            site: site(9),
        },
    );
    assert_ne!(a, b);
    assert_eq!(a, a.clone());
    assert_eq!(a.id(), Some(1));
    assert_eq!(table.get(2), Some(&b));
    assert_eq!(Dim::extent_of(&a).to_string(), "a~j1");
    assert!((Dim::extent_of(&a) - Dim::extent_of(&b))
        .as_known()
        .is_none());
    assert_eq!(
        Facts::new().ask(&Constraint::eq(&Dim::extent_of(&a), &Dim::extent_of(&b))),
        Truth::Unknown
    );
    // A minted symbol is not the user's symbol of the same name.
    assert_ne!(Dim::extent_of(&a), s("a~j1"));
    // User symbols are identified by their names.
    assert_eq!(s("p1"), s("p1"));
    assert_eq!(Symbol::user("n").provenance(), &Provenance::User);
    // The table says where a symbol came from.
    let n = table.mint(
        "n#2",
        Provenance::ScalarValue {
            var: "n".into(),
            site: site(4),
        },
    );
    assert_eq!(
        table.find("n#2").map(|s| s.provenance().to_string()),
        Some("value of n defined at statement 4".to_string())
    );
    assert_eq!(Dim::value_of(&n).to_string(), "n#2");
    assert_eq!(table.len(), 3);
}

#[test]
fn symbols_order_by_name_so_polynomials_print_as_before() {
    let mut table = SymbolTable::new();
    let q = table.mint("q1", Provenance::User);
    let p = table.mint("p1", Provenance::User);
    let d = Dim::extent_of(&q) + Dim::extent_of(&p);
    assert_eq!(d.to_string(), "p1+q1");
    assert_eq!((s("q1") + s("p1")).to_string(), "p1+q1");
}

// ---- Overflows are fresh symbols ----

#[test]
fn two_overflows_are_two_symbols() {
    let big = k(i64::MAX);
    let a = big.add(&k(1));
    let b = big.mul(&k(3));
    let c = k(i64::MIN).neg();
    assert!(a.is_opaque() && b.is_opaque() && c.is_opaque());
    assert_ne!(a, b);
    assert_ne!(a, c);
    assert!(!(&a - &b).is_zero());
    for (x, y) in [(&a, &b), (&b, &a), (&a, &c)] {
        for q in [
            Constraint::eq(x, y),
            Constraint::ne(x, y),
            Constraint::le(x, y),
            Constraint::lt(x, y),
        ] {
            let answer = Facts::new().ask_explained(&q);
            assert_eq!(answer.truth, Truth::Unknown, "{q}");
            assert_eq!(answer.why, Some(Why::Opaque), "{q}");
        }
    }
    let atom = a.as_atom().and_then(Atom::symbol).cloned();
    assert!(atom.is_some_and(|s| s.is_overflow()));
    assert_eq!(a.to_string(), "⟂overflow");
    // The same computation is the same value, hence the same symbol.
    assert_eq!(a, big.add(&k(1)));
    // Overflow inside a larger extent keeps it opaque.
    assert!((a.clone() + s("n")).is_opaque());
    assert!((a.max0()).is_opaque());
}

// ---- Dyn ----

#[test]
fn dyn_absorbs_arithmetic_and_prints() {
    let d = Dim::dynamic();
    assert!(d.is_dyn());
    assert_eq!(d.to_string(), "Dyn");
    assert!((d.clone() + k(1)).is_dyn());
    assert!((d.clone() * s("n")).is_dyn());
    assert!((d.clone() - d.clone()).is_dyn());
    assert!(d.max0().is_dyn());
    assert!(s("n").floor_div(&d).is_dyn());
    assert!(!(s("n") + k(1)).is_dyn());
    assert_eq!(d.eval(&env), None);
    // Structurally (as a gradual type) Dyn is Dyn; as extents, nothing folds.
    assert_eq!(d, Dim::dynamic());
    assert_eq!(Constraint::eq(&d, &d), Constraint::Eq(d.clone(), d.clone()));
    assert_eq!(Constraint::le(&d, &d), Constraint::Le(d.clone(), d.clone()));
}

#[test]
fn dyn_questions_hold_only_if_they_hold_for_every_value() {
    let d = Dim::dynamic();
    let mut f = Facts::new();
    f.assume(&Constraint::eq(&s("n"), &k(4)));
    let ask = |c: Constraint| f.ask(&c);
    assert_eq!(ask(Constraint::le(&k(0), &d)), Truth::Proven);
    assert_eq!(ask(Constraint::lt(&d, &k(0))), Truth::Refuted);
    assert_eq!(ask(Constraint::eq(&d, &k(-1))), Truth::Refuted);
    assert_eq!(ask(Constraint::eq(&d, &k(4))), Truth::Unknown);
    assert_eq!(ask(Constraint::eq(&d, &s("n"))), Truth::Unknown);
    // Two Dyns are two unknowns: neither equal nor ordered.
    assert_eq!(ask(Constraint::eq(&d, &d)), Truth::Unknown);
    assert_eq!(ask(Constraint::ne(&d, &d)), Truth::Unknown);
    assert_eq!(ask(Constraint::le(&d, &d)), Truth::Unknown);
    assert_eq!(ask(Constraint::le(&d, &(d.clone() + k(1)))), Truth::Unknown);
    // Each occurrence is its own unknown, even within one question: `Dyn == 0 ∨
    // 0 < Dyn` may fail (the first 1, the second 0).
    assert_eq!(
        ask(Constraint::or([
            Constraint::eq(&d, &k(0)),
            Constraint::lt(&k(0), &d)
        ])),
        Truth::Unknown
    );
    // Facts learn nothing from Dyn.
    let mut g = f.clone();
    g.assume(&Constraint::eq(&s("m"), &d));
    g.assume(&Constraint::lt(&d, &k(0)));
    assert!(!g.is_contradictory());
    assert_eq!(g, f);
    assert_eq!(g.ask(&Constraint::eq(&s("m"), &k(0))), Truth::Unknown);
}

// ---- Unknown (budget) ----

#[test]
fn dropped_facts_make_later_unknowns_say_budget() {
    let mut f = Facts::new();
    for i in 0..48 {
        f.assume(&Constraint::le(&k(1), &Dim::val(&format!("v{i}"))));
    }
    let w = Dim::val("w");
    f.assume(&Constraint::le(&k(1), &w));
    // v0 ≥ 1 was kept; w ≥ 1 did not fit.
    assert_eq!(
        f.ask(&Constraint::le(&k(1), &Dim::val("v0"))),
        Truth::Proven
    );
    let a = f.ask_explained(&Constraint::le(&k(1), &w));
    assert_eq!(a.truth, Truth::Unknown);
    assert!(a.is_budget());
    // Connected through a stored fact: still budget.
    f.assume(&Constraint::eq(&Dim::val("z"), &(w.clone() + k(2))));
    assert!(f
        .ask_explained(&Constraint::le(&k(3), &Dim::val("z")))
        .is_budget());
    // A question about symbols no dropped fact reaches is merely open.
    let open = f.ask_explained(&Constraint::le(&k(1), &Dim::val("y")));
    assert_eq!(open.why, Some(Why::Open));
    // The answer is ask's.
    assert_eq!(a.truth, f.ask(&Constraint::le(&k(1), &w)));
}

#[test]
fn split_depth_limit_says_budget() {
    let vals = ["a", "b", "c", "d"].map(Dim::val);
    let one_or_two = |x: &Dim| Constraint::or([Constraint::eq(x, &k(1)), Constraint::eq(x, &k(2))]);
    let mut three = Facts::new();
    for x in &vals[..3] {
        three.assume(&one_or_two(x));
    }
    let sum3 = vals[..3].iter().fold(Dim::zero(), |acc, x| acc + x.clone());
    assert_eq!(three.ask(&Constraint::le(&k(3), &sum3)), Truth::Proven);
    let mut four = three.clone();
    four.assume(&one_or_two(&vals[3]));
    let sum4 = sum3 + vals[3].clone();
    let a = four.ask_explained(&Constraint::le(&k(4), &sum4));
    assert_eq!(a.truth, Truth::Unknown);
    assert!(a.is_budget());
}

#[test]
fn disjunctions_dropped_at_the_cap_are_recorded() {
    let mut f = Facts::new();
    for i in 0..13 {
        let x = Dim::val(&format!("x{i}"));
        f.assume(&Constraint::or([
            Constraint::eq(&x, &k(1)),
            Constraint::eq(&x, &k(2)),
        ]));
    }
    // The oldest (about x0) made room for the newest.
    let a = f.ask_explained(&Constraint::le(&k(1), &Dim::val("x0")));
    assert!(a.is_budget());
    assert_eq!(
        f.ask(&Constraint::le(&k(1), &Dim::val("x12"))),
        Truth::Proven
    );
}

#[test]
fn other_unknowns_say_why() {
    let mut f = Facts::new();
    let q = Constraint::eq(&s("n"), &k(2));
    assert_eq!(f.ask_explained(&q).why, Some(Why::Open));
    assert_eq!(
        f.ask_explained(&Constraint::Opaque("i in range".into()))
            .why,
        Some(Why::Opaque)
    );
    assert_eq!(f.ask_explained(&Constraint::True).why, None);
    f.assume(&Constraint::False);
    assert_eq!(f.ask_explained(&q).why, Some(Why::Unreachable));
}

// ---- Satisfiability ----

#[test]
fn solve_gives_checked_models() {
    let (a, b, u) = (s("a"), s("b"), Dim::val("u"));
    let cs = vec![
        Constraint::eq(&(a.clone() * k(3)), &(b.clone() + k(7))),
        Constraint::lt(&u, &(k(0) - a.clone())),
        Constraint::ne(&b, &k(2)),
    ];
    let Solution::Sat(m) = solve(&cs) else {
        panic!("expected a model: {:?}", solve(&cs));
    };
    assert!(cs.iter().all(|c| m.satisfies(c)), "{m:?}");
    let value = |name: &str| m.iter().find(|(s, _)| s.name() == name).map(|(_, v)| v);
    assert!(value("a").is_some_and(|v| v >= 0) && value("b").is_some_and(|v| v >= 0));
    assert_eq!(solve(&[]), Solution::Sat(Model::default()));
}

#[test]
fn solve_gives_minimal_conflicts() {
    let (a, b, c) = (s("a"), s("b"), s("c"));
    let cs = vec![
        Constraint::le(&k(1), &c),
        Constraint::eq(&a, &k(1)),
        Constraint::le(&c, &k(9)),
        Constraint::eq(&b, &k(2)),
        Constraint::eq(&a, &(b.clone() + k(5))),
    ];
    // b is an extent (≥ 0), so a == 1 and a == b + 5 already conflict.
    assert_eq!(solve(&cs), Solution::Unsat(vec![1, 4]));
    // As a value of unknown sign, b needs its own equation to conflict.
    let b = Dim::val("b");
    let cs = vec![
        Constraint::le(&k(1), &c),
        Constraint::eq(&a, &k(1)),
        Constraint::eq(&b, &k(2)),
        Constraint::eq(&a, &(b.clone() + k(5))),
    ];
    assert_eq!(solve(&cs), Solution::Unsat(vec![1, 2, 3]));
    // Bounds that cross, found by refutation.
    let u = Dim::val("u");
    let cs = vec![Constraint::le(&u, &k(3)), Constraint::lt(&k(4), &u)];
    assert_eq!(solve(&cs), Solution::Unsat(vec![0, 1]));
    // Extent symbols are nonnegative.
    assert_eq!(
        solve(&[Constraint::lt(&a, &k(0))]),
        Solution::Unsat(vec![0])
    );
    // Exhausting a finite domain: a ∈ [0,5], a ≠ 0..5.
    let mut cs = vec![Constraint::le(&a, &k(5))];
    cs.extend((0..6).map(|v| Constraint::ne(&a, &k(v))));
    assert!(matches!(solve(&cs), Solution::Unsat(core) if core.len() == 7));
}

#[test]
fn solve_is_honest_about_what_it_cannot_do() {
    let u = Dim::val("u");
    assert_eq!(
        solve(&[Constraint::Opaque("x".into())]),
        Solution::Unknown(Why::Opaque)
    );
    let ovf = k(i64::MAX) + k(1);
    assert_eq!(
        solve(&[Constraint::eq(&ovf, &u)]),
        Solution::Unknown(Why::Opaque)
    );
    // Bounds as wide as i64 are searched near their ends, without overflow.
    let wide = [
        Constraint::le(&k(i64::MIN + 1), &u),
        Constraint::le(&u, &k(i64::MAX - 1)),
        Constraint::ne(&u, &k(0)),
    ];
    assert!(matches!(solve(&wide), Solution::Sat(m) if wide.iter().all(|c| m.satisfies(c))));
    // u*u == 2: |u| divides 2 and u² divides 2, so u is ±1, which fails: proven.
    assert_eq!(
        solve(&[Constraint::eq(&(u.clone() * u.clone()), &k(2))]),
        Solution::Unsat(vec![0])
    );
    // u³ + u == 3 has no integer model either; the search over unbounded u cannot
    // show it.
    let cube = u.clone() * u.clone() * u.clone() + u;
    assert_eq!(
        solve(&[Constraint::eq(&cube, &k(3))]),
        Solution::Unknown(Why::Budget)
    );
}

#[test]
fn solve_treats_each_dyn_as_its_own_unknown() {
    let d = Dim::dynamic();
    // Dyn == 4 ∧ Dyn == 5: two occurrences, two values; neither is in the model.
    let cs = [Constraint::eq(&d, &k(4)), Constraint::eq(&d, &k(5))];
    assert_eq!(solve(&cs), Solution::Sat(Model::default()));
    assert_eq!(
        solve(&[Constraint::lt(&d, &k(0))]),
        Solution::Unsat(vec![0])
    );
}
