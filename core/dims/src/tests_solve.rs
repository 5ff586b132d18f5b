//! `solve` on the constraint sets of gradual tensor-shape migration (Migeed et al.,
//! ECOOP 2024): products from reshape / view / flatten, divisibility through quotient
//! symbols, convolution chains, and the user's `s in (2, 4, 9)`.

use super::*;

fn s(n: &str) -> Dim {
    Dim::sym(n)
}
fn k(v: i64) -> Dim {
    Dim::known(v)
}
fn eq(a: &Dim, b: &Dim) -> Constraint {
    Constraint::eq(a, b)
}
fn le(a: &Dim, b: &Dim) -> Constraint {
    Constraint::le(a, b)
}

/// The model's value for the symbol named `name`.
fn value(sol: &Solution, name: &str) -> Option<i64> {
    let Solution::Sat(m) = sol else {
        panic!("expected a model, got {sol:?}");
    };
    m.iter().find(|(s, _)| s.name() == name).map(|(_, v)| v)
}

/// `solve`'s model, after checking it satisfies every constraint.
fn model(cs: &[Constraint]) -> Solution {
    let sol = solve(cs);
    let Solution::Sat(m) = &sol else {
        panic!("expected a model of {cs:?}, got {sol:?}");
    };
    assert!(cs.iter().all(|c| m.satisfies(c)), "{m:?}");
    sol
}

#[test]
fn products_of_extents_range_over_divisors() {
    let (a, b, c) = (s("a"), s("b"), s("c"));
    // 7 is prime: one factor is 1.
    let cs = [
        eq(&(a.clone() * b.clone()), &k(7)),
        le(&k(2), &a),
        le(&k(2), &b),
    ];
    assert_eq!(solve(&cs), Solution::Unsat(vec![0, 1, 2]));
    // A flatten of (3, h, h) into 150528 elements.
    let cs = [
        eq(&(a.clone() * b.clone() * c.clone()), &k(150528)),
        eq(&a, &k(3)),
        eq(&b, &c),
    ];
    let sol = model(&cs);
    assert_eq!((value(&sol, "b"), value(&sol, "c")), (Some(224), Some(224)));
    // …and no other square fits: b ≠ 224 leaves nothing.
    let mut more = cs.to_vec();
    more.push(Constraint::ne(&b, &k(224)));
    assert_eq!(solve(&more), Solution::Unsat(vec![0, 1, 2, 3]));
    // Every divisor of 6 excluded.
    let (x, y) = (s("x"), s("y"));
    let mut cs = vec![eq(&(x.clone() * y.clone()), &k(6))];
    cs.extend([1, 2, 3, 6].map(|v| Constraint::ne(&x, &k(v))));
    assert_eq!(solve(&cs), Solution::Unsat(vec![0, 1, 2, 3, 4]));
}

#[test]
fn product_models_are_smallest_first() {
    let (a, b, c) = (s("a"), s("b"), s("c"));
    let sol = model(&[eq(&(a.clone() * b.clone() * c.clone()), &k(150528))]);
    assert_eq!(
        [value(&sol, "a"), value(&sol, "b"), value(&sol, "c")],
        [Some(1), Some(1), Some(150528)]
    );
    let sol = model(&[
        eq(&(a.clone() * b.clone()), &k(12)),
        le(&k(2), &a),
        le(&k(3), &b),
    ]);
    assert_eq!([value(&sol, "a"), value(&sol, "b")], [Some(2), Some(6)]);
    // Equal element counts (a view): the known side fixes the product of the other.
    let d = s("d");
    let cs = [
        eq(&(a.clone() * b.clone()), &(c.clone() * d.clone())),
        eq(&c, &k(4)),
        eq(&d, &k(6)),
        le(&k(5), &a),
    ];
    let sol = model(&cs);
    assert_eq!([value(&sol, "a"), value(&sol, "b")], [Some(6), Some(4)]);
}

#[test]
fn products_of_values_range_over_signed_divisors() {
    let (u, v) = (Dim::val("u"), Dim::val("v"));
    let sol = model(&[eq(&(u.clone() * v.clone()), &k(-6)), le(&k(4), &v)]);
    assert_eq!([value(&sol, "u"), value(&sol, "v")], [Some(-1), Some(6)]);
    let cs = [eq(&(u.clone() * v), &k(5)), le(&k(2), &u), le(&u, &k(4))];
    assert_eq!(solve(&cs), Solution::Unsat(vec![0, 1, 2]));
}

#[test]
fn divisibility_through_quotient_symbols() {
    let (a, b, c, q) = (s("a"), s("b"), s("c"), s("q"));
    let abc = a.clone() * b.clone() * c.clone();
    // 5·7·1 = 35 is no multiple of 6.
    let cs = [
        eq(&abc, &(q.clone() * k(6))),
        eq(&a, &k(5)),
        eq(&b, &k(7)),
        eq(&c, &k(1)),
    ];
    assert_eq!(solve(&cs), Solution::Unsat(vec![0, 1, 2, 3]));
    // The smallest b in [1, 5] with 4·b a multiple of 6 is 3.
    let cs = [
        eq(&(a.clone() * b.clone()), &(q.clone() * k(6))),
        eq(&a, &k(4)),
        le(&k(1), &b),
        le(&b, &k(5)),
    ];
    let sol = model(&cs);
    assert_eq!([value(&sol, "b"), value(&sol, "q")], [Some(3), Some(2)]);
    // A free product divisible by 6 is found too.
    model(&[
        eq(&abc, &(q * k(6))),
        le(&k(1), &a),
        le(&k(1), &b),
        le(&k(1), &c),
    ]);
}

#[test]
fn user_membership_is_a_finite_domain() {
    let x = s("s");
    let member = Constraint::or([2, 4, 9].map(|v| eq(&x, &k(v))));
    let sol = model(&[member.clone(), le(&k(5), &x)]);
    assert_eq!(value(&sol, "s"), Some(9));
    let mut cs = vec![member.clone()];
    cs.extend([2, 4, 9].map(|v| Constraint::ne(&x, &k(v))));
    assert_eq!(solve(&cs), Solution::Unsat(vec![0, 1, 2, 3]));
    // Membership over a product: s·t == 20 with s ∈ {2, 4, 9} and t ∉ {5, 10}.
    let t = s("t");
    let cs = [
        member,
        eq(&(x * t.clone()), &k(20)),
        Constraint::ne(&t, &k(5)),
        Constraint::ne(&t, &k(10)),
    ];
    assert_eq!(solve(&cs), Solution::Unsat(vec![0, 1, 2, 3]));
}

/// A 3×3 convolution of stride 2 and padding 1: `out = floor((x + 2 - 2 - 1)/2) + 1`.
fn conv_floor(x: &Dim) -> Dim {
    (x.clone() - k(1)).floor_div(&k(2)) + k(1)
}

/// The same with a fresh quotient `q`: `2q ≤ x - 1 < 2q + 2`, `out = q + 1`.
fn conv_quotient(x: &Dim, q: &Dim, cs: &mut Vec<Constraint>) -> Dim {
    let two_q = q.clone() * k(2);
    cs.push(le(&two_q, &(x.clone() - k(1))));
    cs.push(Constraint::lt(&(x.clone() - k(1)), &(two_q + k(2))));
    q.clone() + k(1)
}

/// Five stride-2 steps from (h, w) ≥ 1 down to 7×7, as in ResNet.
fn resnet_quotients() -> Vec<Constraint> {
    let (mut h, mut w) = (s("h"), s("w"));
    let mut cs = vec![le(&k(1), &h), le(&k(1), &w)];
    for i in 1..=5 {
        h = conv_quotient(&h, &s(&format!("qh{i}")), &mut cs);
        w = conv_quotient(&w, &s(&format!("qw{i}")), &mut cs);
    }
    cs.push(eq(&h, &k(7)));
    cs.push(eq(&w, &k(7)));
    cs
}

#[test]
fn resnet_chain_with_quotient_symbols() {
    let cs = resnet_quotients();
    // h ∈ [193, 224] reach 7; the smallest is taken.
    let sol = model(&cs);
    assert_eq!([value(&sol, "h"), value(&sol, "w")], [Some(193), Some(193)]);
    assert_eq!(value(&sol, "qh5"), Some(6));
    let mut more = cs.clone();
    more.push(le(&s("h"), &k(192)));
    assert!(matches!(solve(&more), Solution::Unsat(core) if core.contains(&(more.len() - 1))));
    let mut more = cs;
    more.push(le(&k(220), &s("h")));
    more.push(eq(&s("h"), &s("w")));
    let sol = model(&more);
    assert_eq!([value(&sol, "h"), value(&sol, "w")], [Some(220), Some(220)]);
}

#[test]
fn resnet_chain_with_floor_atoms() {
    let (mut h, mut w) = (s("h"), s("w"));
    for _ in 0..5 {
        h = conv_floor(&h);
        w = conv_floor(&w);
    }
    let cs = [
        le(&k(1), &s("h")),
        le(&k(1), &s("w")),
        eq(&h, &k(7)),
        eq(&w, &k(7)),
    ];
    let sol = model(&cs);
    assert_eq!([value(&sol, "h"), value(&sol, "w")], [Some(193), Some(193)]);
    let mut more = cs.to_vec();
    more.push(le(&k(225), &s("h")));
    assert_eq!(solve(&more), Solution::Unsat(vec![2, 4]));
}

#[test]
fn many_divisor_choices_run_out_of_budget_honestly() {
    // Three pairs with 240 divisor choices each and a sum they can never reach: the
    // search cannot enumerate 240³ cases and must not guess.
    let n = 720_720;
    let vals: Vec<Dim> = ["p", "q", "r", "s", "t", "u"].map(Dim::val).to_vec();
    let mut cs: Vec<Constraint> = vals
        .chunks(2)
        .map(|pair| eq(&(pair[0].clone() * pair[1].clone()), &k(n)))
        .collect();
    cs.push(eq(
        &(vals[0].clone() + vals[2].clone() + vals[4].clone()),
        &k(1_000_000_000),
    ));
    assert_eq!(solve(&cs), Solution::Unknown(Why::Budget));
}

/// A small deterministic generator (no wall clock, no OS randomness).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }

    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1).unsigned_abs()) as i64
    }

    fn symbol(&mut self) -> Dim {
        match self.below(5) {
            0 => s("a"),
            1 => s("b"),
            2 => s("c"),
            3 => s("q"),
            _ => Dim::val("u"),
        }
    }

    fn term(&mut self) -> Dim {
        match self.below(6) {
            0 => self.symbol() * self.symbol(),
            1 => self.symbol() * self.symbol() * self.symbol(),
            2 => (self.symbol() + k(self.int(-2, 3))).floor_div(&k(self.int(1, 3))),
            _ => self.symbol() * self.int(-2, 3) + k(self.int(-4, 6)),
        }
    }

    fn atomic(&mut self) -> Constraint {
        let (x, y) = (self.term(), self.term());
        let y = if self.below(2) == 0 {
            k(self.int(0, 36))
        } else {
            y
        };
        match self.below(5) {
            0 | 1 => Constraint::eq(&x, &y),
            2 => Constraint::ne(&x, &y),
            3 => Constraint::le(&x, &y),
            _ => Constraint::lt(&x, &y),
        }
    }

    fn constraint(&mut self) -> Constraint {
        match self.below(8) {
            0 => {
                let x = self.symbol();
                Constraint::or((0..3).map(|_| eq(&x, &k(self.int(0, 9)))))
            }
            1 => Constraint::or([self.atomic(), self.atomic()]),
            _ => self.atomic(),
        }
    }
}

#[test]
fn random_small_sets_get_checked_answers() {
    let mut rng = Lcg(7);
    let mut decided = 0;
    for _ in 0..5000 {
        let n = 1 + rng.below(5) as usize;
        let cs: Vec<Constraint> = (0..n).map(|_| rng.constraint()).collect();
        match solve(&cs) {
            Solution::Sat(m) => {
                assert!(cs.iter().all(|c| m.satisfies(c)), "{m:?} of {cs:?}");
                decided += 1;
            }
            Solution::Unsat(core) => {
                assert!(!core.is_empty() && core.windows(2).all(|w| w[0] < w[1]));
                assert!(core.iter().all(|&i| i < cs.len()), "{core:?}");
                decided += 1;
            }
            Solution::Unknown(_) => {}
        }
    }
    assert!(decided > 4000, "{decided} of 5000 decided");
}

// ---- SMT-LIB2 export ----

#[test]
fn smtlib_scripts_declare_assert_and_check() {
    let (h, u) = (s("h"), Dim::val("u"));
    let cs = [
        le(&k(1), &h),
        Constraint::or([eq(&u, &k(-2)), eq(&(h.clone() - u.clone()).max0(), &k(3))]),
        eq(&(h.clone() - k(1)).floor_div(&k(2)), &Dim::dynamic()),
    ];
    let text = smtlib::script(&cs).expect("no opaque parts");
    let expected = "(set-logic QF_LIA)
(declare-const h_0 Int)
(assert (>= h_0 0))
(declare-const u_1 Int)
(declare-const dyn!0 Int)
(assert (>= dyn!0 0))
(assert (<= 1 h_0))
(assert (or false (= u_1 (- 2)) (= (ite (>= (+ h_0 (* (- 1) u_1)) 0) (+ h_0 (* (- 1) u_1)) 0) 3)))
(assert (= (div (+ (- 1) h_0) 2) dyn!0))
(check-sat)
";
    assert_eq!(text, expected);
    let names = smtlib::names(&cs);
    let shown: Vec<(String, String)> = names
        .iter()
        .map(|(n, s)| (n.clone(), s.name().to_string()))
        .collect();
    assert_eq!(
        shown,
        [("h_0".into(), "h".into()), ("u_1".into(), "u".into())]
    );
}

#[test]
fn smtlib_products_and_divisions_by_unknowns_are_nonlinear() {
    let (a, b) = (s("a b"), s("3"));
    let text = smtlib::script(&[eq(&(a.clone() * b.clone()), &k(6))]).expect("plain");
    assert!(text.starts_with("(set-logic QF_NIA)\n"), "{text}");
    // Names are cleaned up to simple SMT symbols.
    assert!(text.contains("(* s3_0 a_b_1)"), "{text}");
    let u = Dim::val("u");
    let text = smtlib::script(&[eq(&a.floor_div(&u), &k(1))]).expect("plain");
    assert!(
        text.contains("(ite (> u_1 0) (div a_b_0 u_1) (ite (< u_1 0) (div (- a_b_0) (- u_1)) 0))"),
        "{text}"
    );
    let text = smtlib::script(&[eq(&a.floor_div(&(b + k(1))), &k(1))]).expect("plain");
    assert!(text.contains("(div a_b_0 (+ 1 s3_1))"), "{text}");
}

#[test]
fn smtlib_refuses_what_has_no_smt_form() {
    assert_eq!(
        smtlib::script(&[Constraint::Opaque("i <= numel(x)".into())]),
        Err(smtlib::Unsupported::Opaque("i <= numel(x)".into()))
    );
    let ovf = k(i64::MAX) + k(1);
    assert_eq!(
        smtlib::script(&[eq(&ovf, &s("n"))]),
        Err(smtlib::Unsupported::Overflow)
    );
}

#[test]
fn smtlib_pins_a_model() {
    let (a, b) = (s("a"), s("b"));
    let cs = [eq(&(a.clone() * b), &k(6)), le(&k(2), &a)];
    let Solution::Sat(m) = solve(&cs) else {
        panic!("a model exists");
    };
    let text = smtlib::script_with_model(&cs, &m).expect("plain");
    assert!(
        text.ends_with("(assert (= a_0 2))\n(assert (= b_1 3))\n(check-sat)\n"),
        "{text}"
    );
}

#[test]
fn symbolic_stride_chosen_by_the_user() {
    // s ∈ {2, 4, 9}, s·q ≤ h − 1 < s·q + s, q + 1 == 7, h ≤ 40.
    let (h, q, st) = (s("h"), s("q"), s("s"));
    let sq = st.clone() * q.clone();
    let cs = vec![
        Constraint::or([2, 4, 9].map(|v| eq(&st, &k(v)))),
        le(&sq, &(h.clone() - k(1))),
        Constraint::lt(&(h.clone() - k(1)), &(sq + st.clone())),
        eq(&(q + k(1)), &k(7)),
        le(&h, &k(40)),
    ];
    let sol = model(&cs);
    assert_eq!([value(&sol, "h"), value(&sol, "s")], [Some(13), Some(2)]);
    let mut more = cs.clone();
    more.push(le(&h, &k(12)));
    assert!(matches!(solve(&more), Solution::Unsat(_)));
    // Stride 4 only: h − 1 ∈ [24, 27].
    let mut more = cs;
    more.push(Constraint::ne(&st, &k(2)));
    let sol = model(&more);
    assert_eq!([value(&sol, "h"), value(&sol, "s")], [Some(25), Some(4)]);
}

#[test]
fn models_are_smallest_in_the_order_symbols_were_minted() {
    let mut table = SymbolTable::new();
    let z = Dim::extent_of(&table.mint("z", Provenance::User));
    let a = Dim::extent_of(&table.mint("a", Provenance::User));
    let sol = model(&[eq(&(z * a), &k(6))]);
    // z was minted first: it takes the smallest value, whatever the names.
    assert_eq!([value(&sol, "z"), value(&sol, "a")], [Some(1), Some(6)]);
}

#[test]
fn extreme_constants_never_panic() {
    let (a, b, u) = (s("a"), s("b"), Dim::val("u"));
    let bigs = [
        i64::MAX,
        i64::MIN + 1,
        1 << 40,
        (1 << 40) + 1,
        -(1 << 41),
        1 << 62,
    ];
    for &n in &bigs {
        let sets = [
            vec![eq(&(a.clone() * b.clone()), &k(n))],
            vec![eq(&(u.clone() * u.clone()), &k(n))],
            vec![eq(&(a.clone() * k(3)), &k(n)), le(&a, &k(n))],
            vec![
                eq(&a.floor_div(&k(7)), &k(n / 8)),
                Constraint::lt(&u, &k(n)),
            ],
            vec![
                Constraint::or([eq(&a, &k(n)), eq(&a, &k(-n))]),
                le(&(a.clone() + b.clone()), &k(n)),
            ],
        ];
        for cs in sets {
            if let Solution::Sat(m) = solve(&cs) {
                assert!(cs.iter().all(|c| m.satisfies(c)), "{m:?} of {cs:?}");
            }
            let _ = smtlib::script(&cs);
        }
    }
}

#[test]
fn an_expanded_product_with_no_integer_solution_is_unsat_by_its_gcd() {
    // Two convolutions' outputs o1 = h - 2, o2 = w - 2 substituted into Linear's
    // 4·o1·o2 == 175: expanded, 4hw − 8h − 8w + 16 == 175, and 4 does not divide 159.
    let (h, w, o1, o2) = (s("h"), s("w"), s("o1"), s("o2"));
    let set = [
        eq(&o1, &h.add_const(-2)),
        eq(&o2, &w.add_const(-2)),
        eq(&k(4).mul(&o1).mul(&o2), &k(175)),
    ];
    assert!(
        matches!(solve(&set), Solution::Unsat(_)),
        "{:?}",
        solve(&set)
    );
    // With 176 it has models (o1·o2 = 44).
    let set = [
        eq(&o1, &h.add_const(-2)),
        eq(&o2, &w.add_const(-2)),
        eq(&k(4).mul(&o1).mul(&o2), &k(176)),
    ];
    assert!(matches!(solve(&set), Solution::Sat(_)));
}

#[test]
fn a_disjunction_of_equations_without_integer_solutions_is_unsat() {
    // The calculus's reshape of x = (s) to (2, Dyn): s = 2·q1 or 2 = q2·s. At s = 9
    // neither has an integer solution (gcd 2 ∤ 9, gcd 9 ∤ 2), whatever q1 and q2.
    let (x, q1, q2) = (s("x"), s("q1"), s("q2"));
    let divides = Constraint::or([eq(&x, &k(2).mul(&q1)), eq(&k(2), &q2.mul(&x))]);
    let set = [divides.clone(), eq(&x, &k(9))];
    assert!(
        matches!(solve(&set), Solution::Unsat(_)),
        "{:?}",
        solve(&set)
    );
    // At s = 4 the first holds (q1 = 2); at s = 1 the second (q2 = 2).
    for v in [4, 1] {
        let set = [divides.clone(), eq(&x, &k(v))];
        assert!(
            matches!(solve(&set), Solution::Sat(_)),
            "{v}: {:?}",
            solve(&set)
        );
    }
}

#[test]
fn a_witness_past_the_small_values_is_found_by_its_residue_class() {
    // A pooled map of p rows, a batch of n, viewed as (-1, 183): 27·n·p == 183·q. Its
    // smallest models need a 61 (n = 61 or p = 61), past the small values tried first;
    // 183·q ≡ 0 (mod 27) puts q in 9ℤ, and then n·p = 61·q/9.
    let (n, p, q) = (s("n"), s("p"), s("q"));
    let set = [
        eq(&k(27).mul(&n).mul(&p), &k(183).mul(&q)),
        Constraint::le(&k(1), &n),
        Constraint::le(&k(1), &p),
    ];
    let Solution::Sat(m) = solve(&set) else {
        panic!("{:?}", solve(&set))
    };
    assert!(set.iter().all(|c| m.satisfies(c)), "{m:?}");
}
