//! An independent oracle: the closed-form diagonal-matrix formulas of Joisha Table 2,
//! implemented literally (promotion, Γ1, Γ2, Ψ, δ, α, β, θ as arithmetic on diagonal
//! vectors with π = <-1,-1>), with the §2.5 corrections for `/` and `\`. The case-analysis
//! rules must agree with them on every small concrete tuple (paper mode).

use super::*;
use proptest::prelude::*;
use shapex_dims::{Dim, Facts};

type D = Vec<i64>;
const PI: [i64; 2] = [-1, -1];

fn delta(x: i64) -> i64 {
    i64::from(x == 0)
}
/// δ of a diagonal matrix: 1 iff every entry is 0 (eq. 12).
fn delta_v(v: &D) -> i64 {
    v.iter().map(|&x| delta(x)).product()
}
fn promote(v: &D, m: usize) -> D {
    (0..m).map(|i| v.get(i).copied().unwrap_or(1)).collect()
}
fn add(a: &D, b: &D) -> D {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}
fn sub(a: &D, b: &D) -> D {
    a.iter().zip(b).map(|(x, y)| x - y).collect()
}
fn mul(a: &D, b: &D) -> D {
    a.iter().zip(b).map(|(x, y)| x * y).collect()
}
fn scale(a: &D, k: i64) -> D {
    a.iter().map(|x| x * k).collect()
}
fn gamma(i: usize, m: usize) -> D {
    (0..m).map(|j| i64::from(j == i)).collect()
}
fn iota(m: usize) -> D {
    vec![1; m]
}
fn psi(v: &D) -> D {
    let mut w = v.clone();
    w.swap(0, 1);
    w
}
fn theta(v: &D) -> i64 {
    i64::from(v.iter().all(|&x| x >= 0))
}
fn alpha(v: &D) -> i64 {
    v.iter().map(|&x| delta(x - 1)).product()
}
fn beta(v: &D) -> i64 {
    theta(v) * v[2..].iter().map(|&x| delta(x - 1)).product::<i64>()
}
/// u = (1 − θ(u))π* + θ(u)·body, then the class of u.
fn finish(th: i64, body: D) -> Shape {
    let m = body.len();
    let u = add(&scale(&promote(&PI.to_vec(), m), 1 - th), &scale(&body, th));
    if theta(&u) == 0 {
        Shape::Illegal
    } else {
        Shape::known(&u)
    }
}

fn o_mtimes(s: &D, t: &D) -> Shape {
    let m = s.len().max(t.len());
    let (sp, tp) = (promote(s, m), promote(t, m));
    let (g1, g2, io) = (gamma(0, m), gamma(1, m), iota(m));
    let (a, b) = (alpha(s), alpha(t));
    let th = theta(s)
        * theta(t)
        * (1 - (1 - a)
            * (1 - b)
            * (1 - beta(s) * beta(t) * delta_v(&sub(&mul(&psi(&sp), &g1), &mul(&tp, &g1)))));
    let generic = sub(
        &sub(&add(&add(&mul(&sp, &g1), &mul(&tp, &g2)), &io), &g1),
        &g2,
    );
    let body = add(
        &add(&scale(&sp, b), &scale(&tp, a * (1 - b))),
        &scale(&generic, (1 - a) * (1 - b)),
    );
    finish(th, body)
}

fn o_plus(s: &D, t: &D) -> Shape {
    let m = s.len().max(t.len());
    let (sp, tp) = (promote(s, m), promote(t, m));
    let (a, b) = (alpha(s), alpha(t));
    let th = theta(s) * theta(t) * (1 - (1 - a) * (1 - b) * (1 - delta_v(&sub(&sp, &tp))));
    finish(th, add(&scale(&sp, b), &scale(&tp, 1 - b)))
}

fn o_mpower(s: &D, t: &D) -> Shape {
    let (sp, tp) = (promote(s, 2), promote(t, 2));
    let (a, b) = (alpha(s), alpha(t));
    let g1 = gamma(0, 2);
    let sq_t = delta_v(&sub(&mul(&tp, &g1), &mul(&psi(&tp), &g1)));
    let sq_s = delta_v(&sub(&mul(&sp, &g1), &mul(&psi(&sp), &g1)));
    let th = theta(s) * theta(t) * (1 - (1 - a * beta(t) * sq_t) * (1 - b * beta(s) * sq_s));
    finish(th, add(&scale(&sp, b), &scale(&tp, 1 - b)))
}

fn o_transpose(s: &D) -> Shape {
    finish(beta(s), psi(&promote(s, 2)))
}

fn o_mrdivide(s: &D, t: &D) -> Shape {
    let m = s.len().max(t.len());
    let (sp, tp) = (promote(s, m), promote(t, m));
    let (g1, g2, io) = (gamma(0, m), gamma(1, m), iota(m));
    let (a, b, bs, bt) = (alpha(s), alpha(t), beta(s), beta(t));
    let th = theta(s)
        * theta(t)
        * (1 - (1 - b)
            * (1 - a * (1 - bt))
            * (1 - bs * bt * delta_v(&sub(&mul(&sp, &g2), &mul(&tp, &g2)))));
    let generic = add(
        &sub(&sub(&add(&mul(&sp, &g1), &io), &g1), &g2),
        &mul(&psi(&tp), &g2),
    );
    let body = add(
        &add(&scale(&sp, b), &scale(&tp, 1 - bt)),
        &scale(&generic, (1 - b) * bt),
    );
    finish(th, body)
}

fn o_mldivide(s: &D, t: &D) -> Shape {
    let m = s.len().max(t.len());
    let (sp, tp) = (promote(s, m), promote(t, m));
    let (g1, g2, io) = (gamma(0, m), gamma(1, m), iota(m));
    let (a, b, bs, bt) = (alpha(s), alpha(t), beta(s), beta(t));
    let th = theta(s)
        * theta(t)
        * (1 - (1 - a)
            * (1 - b * (1 - bs))
            * (1 - bs * bt * delta_v(&sub(&mul(&sp, &g1), &mul(&tp, &g1)))));
    let generic = add(
        &sub(&sub(&add(&mul(&psi(&sp), &g1), &io), &g1), &g2),
        &mul(&tp, &g2),
    );
    let body = add(
        &add(&scale(&tp, a), &scale(&sp, 1 - bs)),
        &scale(&generic, (1 - a) * bs),
    );
    finish(th, body)
}

fn o_vertcat(s: &D, t: &D) -> Shape {
    let m = s.len().max(t.len());
    let (sp, tp) = (promote(s, m), promote(t, m));
    let mask = sub(&iota(m), &gamma(0, m));
    let th = theta(s) * theta(t) * delta_v(&sub(&mul(&sp, &mask), &mul(&tp, &mask)));
    finish(th, add(&sp, &mul(&tp, &gamma(0, m))))
}

fn o_horzcat(s: &D, t: &D) -> Shape {
    let m = s.len().max(t.len());
    let (sp, tp) = (promote(s, m), promote(t, m));
    let mask = sub(&iota(m), &gamma(1, m));
    let th = theta(s) * theta(t) * delta_v(&sub(&mul(&sp, &mask), &mul(&tp, &mask)));
    finish(th, add(&mul(&sp, &gamma(1, m)), &tp))
}

fn o_unary(s: &D) -> Shape {
    finish(theta(s), s.clone())
}

/// A raw (not necessarily canonical) tuple, or π.
fn arb_raw() -> impl Strategy<Value = D> {
    prop_oneof![
        9 => prop::collection::vec(0i64..4, 2..5),
        1 => Just(PI.to_vec()),
    ]
}

fn ours(v: &D) -> Shape {
    if theta(v) == 0 {
        Shape::Illegal
    } else {
        Shape::known(v)
    }
}

/// `[]` in concatenation is MATLAB's extension, which the paper's formula lacks.
fn is_bracket_empty(v: &D) -> bool {
    ours(v) == Shape::empty()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn table2_rules_agree_with_closed_forms(s in arb_raw(), t in arb_raw()) {
        let f = Facts::new();
        let (a, b) = (ours(&s), ours(&t));
        prop_assert_eq!(mtimes(&a, &b, &f).shape, o_mtimes(&s, &t), "mtimes {:?} {:?}", s, t);
        prop_assert_eq!(elementwise(&a, &b, Mode::Paper, &f).shape, o_plus(&s, &t), "plus {:?} {:?}", s, t);
        prop_assert_eq!(mpower(&a, &b, &f).shape, o_mpower(&s, &t), "mpower {:?} {:?}", s, t);
        prop_assert_eq!(transpose(&a, &f).shape, o_transpose(&s), "transpose {:?}", s);
        prop_assert_eq!(unary(&a, &f).shape, o_unary(&s), "unary {:?}", s);
        prop_assert_eq!(mrdivide(&a, &b, &f).shape, o_mrdivide(&s, &t), "mrdivide {:?} {:?}", s, t);
        prop_assert_eq!(mldivide(&a, &b, &f).shape, o_mldivide(&s, &t), "mldivide {:?} {:?}", s, t);
        if !is_bracket_empty(&s) && !is_bracket_empty(&t) {
            prop_assert_eq!(vertcat(&[a.clone(), b.clone()], &f).shape, o_vertcat(&s, &t), "vertcat {:?} {:?}", s, t);
            prop_assert_eq!(horzcat(&[a.clone(), b.clone()], &f).shape, o_horzcat(&s, &t), "horzcat {:?} {:?}", s, t);
        }
    }

    /// θ as reported (`status`) agrees with the oracle's legality.
    #[test]
    fn table2_status_agrees_with_closed_forms(s in prop::collection::vec(0i64..4, 2..5), t in prop::collection::vec(0i64..4, 2..5)) {
        let f = Facts::new();
        let (a, b) = (ours(&s), ours(&t));
        let legal = |x: &Shape| Truth::from_bool(*x != Shape::Illegal);
        prop_assert_eq!(mtimes(&a, &b, &f).status, legal(&o_mtimes(&s, &t)));
        prop_assert_eq!(mrdivide(&a, &b, &f).status, legal(&o_mrdivide(&s, &t)));
        prop_assert_eq!(mldivide(&a, &b, &f).status, legal(&o_mldivide(&s, &t)));
        prop_assert_eq!(mpower(&a, &b, &f).status, legal(&o_mpower(&s, &t)));
    }
}

#[test]
fn oracle_reproduces_the_papers_concrete_claims() {
    // Sanity of the oracle itself against the paper (Example 1, §5.3, footnote f).
    assert_eq!(o_mtimes(&vec![3, 2], &vec![4, 4, 1]), Shape::Illegal);
    assert_eq!(o_mtimes(&vec![2, 0], &vec![0, 3]), Shape::known(&[2, 3]));
    assert_eq!(o_mtimes(&vec![5, 2], &vec![2, 5]), Shape::known(&[5, 5]));
    assert_eq!(
        o_mtimes(&vec![2, 5, 3], &vec![1, 1]),
        Shape::known(&[2, 5, 3])
    );
    // The printed (uncorrected) eq. (24) would make a/scalar illegal; the corrected one does not.
    assert_eq!(o_mrdivide(&vec![3, 4], &vec![1, 1]), Shape::known(&[3, 4]));
}

/// Substitutes values for the symbols of a symbolic shape.
fn eval_shape(s: &Shape, env: &dyn Fn(&str) -> Option<i64>) -> Option<Shape> {
    match s {
        Shape::Tuple(t) => {
            let v: Option<Vec<i64>> = t.dims().iter().map(|d| d.eval(env)).collect();
            Some(Shape::known(&v?))
        }
        other => Some(other.clone()),
    }
}

type Rule = fn(&Shape, &Shape, &Facts) -> Outcome;

fn rules() -> Vec<(&'static str, Rule)> {
    vec![
        ("mtimes", mtimes),
        ("plus/paper", |a, b, f| elementwise(a, b, Mode::Paper, f)),
        ("plus/modern", |a, b, f| elementwise(a, b, Mode::Modern, f)),
        ("mpower", mpower),
        ("mrdivide", mrdivide),
        ("mldivide", mldivide),
        ("vertcat", |a, b, f| cat_pair(0, a, b, f)),
        ("horzcat", |a, b, f| cat_pair(1, a, b, f)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Symbolic rules against their concrete instances: θ evaluated at a point is the
    /// concrete verdict, a Refuted status is never given where some point succeeds,
    /// and where the shown case's assumptions hold the shown shape is the concrete one.
    #[test]
    fn symbolic_rules_agree_with_concrete_instances(
        vals in prop::collection::vec(0i64..4, 5),
        rank3 in any::<bool>(),
    ) {
        let a = Shape::tuple(vec![Dim::sym("p1"), Dim::sym("p2")]);
        let mut bd = vec![Dim::sym("q1"), Dim::sym("q2")];
        if rank3 {
            bd.push(Dim::sym("q3"));
        }
        let b = Shape::tuple(bd);
        let env = |n: &str| -> Option<i64> {
            let i = ["p1", "p2", "q1", "q2", "q3"].iter().position(|x| *x == n)?;
            Some(vals[i])
        };
        let f = Facts::new();
        for (name, rule) in rules() {
            let sym_out = rule(&a, &b, &f);
            let (ca, cb) = (eval_shape(&a, &env).unwrap(), eval_shape(&b, &env).unwrap());
            let concrete = rule(&ca, &cb, &f).shape;
            let legal = concrete != Shape::Illegal;
            prop_assert_eq!(sym_out.theta.eval(&env), Some(legal), "{} θ = {} at {:?}", name, sym_out.theta, vals);
            if legal {
                prop_assert_ne!(sym_out.status, Truth::Refuted, "{}", name);
            }
            let assumed = sym_out.assume.iter().all(|c| c.eval(&env) == Some(true));
            if legal && assumed {
                prop_assert_eq!(eval_shape(&sym_out.shape, &env), Some(concrete), "{} shown {} at {:?}", name, sym_out.shape, vals);
            }
        }
    }
}
