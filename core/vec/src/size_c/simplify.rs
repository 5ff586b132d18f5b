//! The reduction `→sc` of spec 003 §4.4 (Figs 5.2, 5.3), as a normaliser.
//!
//! * Application strategy: normalise the function; a non-safe one is let-bound
//!   (`ns t → let x ⇐ ns in x t`); else normalise the argument, and bind a non-safe
//!   one (`s ns → let x ⇐ ns in s x`); else a β or combinator rule applies, or the
//!   application is normal. "Value" in the thesis's prose is Def 5.1.1's *safe*.
//! * `let`: `err` absorbs, nested lets flatten, safe values substitute, and
//!   `let x ⇐ t in x → t`. So checks float towards the head but stop at λ (a λ's
//!   body is normalised on its own: signatures are λs).
//! * `and` is taken as the evaluator runs it (the prelude's `ifs x then y else x`:
//!   the first non-`zero`), so `and (succ t1) t2 → check t2 then succ t1`; pair `eq`
//!   then gives what the evaluator's does. The §4.4 caveat's other critical pair is
//!   resolved in `not`'s argument, where only truthiness matters:
//!   `not (and t (succ t')) → check t, t' then zero`.
//! * `~+` (spec §4.2 [I]): `~+ zero t → t`, `~+ t zero → t`,
//!   `~+ (succ a) b → succ (~+ a b)`, and literals add.
//!
//! Rules whose right-hand side is `check s then t` with `s` safe drop the check at
//! once (`let x ⇐ s in t → t[s/x]`): rules fire only on safe operands here.
//!
//! A step budget and a depth bound end the work early, with the term reached (each
//! rewrite is sound, so it is equivalent to the input).

use super::term::{alpha_eq, app, app2, safe, taller, Fresh, E, K, MAX_HEIGHT};

/// Rewrites per [`Norm`].
const STEPS: u64 = 200_000;
/// Nested normalisations.
const MAX_DEPTH: usize = 150;

/// One normalisation's state: its budget and fresh names.
pub(super) struct Norm {
    steps: u64,
    pub(super) fresh: Fresh,
    /// Whether a budget ran out (the result is then not a normal form).
    pub(super) exhausted: bool,
}

impl Default for Norm {
    fn default() -> Self {
        Norm {
            steps: STEPS,
            fresh: Fresh::default(),
            exhausted: false,
        }
    }
}

fn zero(e: &E) -> bool {
    matches!(e, E::Size(0))
}

/// `t` when `e` is `succ t` (a literal `~n+1` is `succ ~n`).
fn pred_of(e: &E) -> Option<E> {
    match e {
        E::Size(n) if *n > 0 => Some(E::Size(n - 1)),
        E::App(f, t) if **f == E::K(K::Succ) => Some((**t).clone()),
        _ => None,
    }
}

fn succ(t: E) -> E {
    match t {
        E::Size(n) if n < u64::MAX => E::Size(n + 1),
        t => app(E::K(K::Succ), t),
    }
}

impl Norm {
    fn tick(&mut self, depth: usize) -> bool {
        if self.steps == 0 || depth > MAX_DEPTH {
            self.exhausted = true;
            return false;
        }
        self.steps -= 1;
        true
    }

    /// The normal form of `e` (or the term reached when the budget runs out).
    pub(super) fn norm(&mut self, e: E, d: usize) -> E {
        if !self.tick(d) {
            return e;
        }
        match e {
            E::Lam(x, b) => E::Lam(x, Box::new(self.norm(*b, d + 1))),
            E::Pair(a, b) => self.app(app(E::K(K::Pair), *a), *b, d),
            E::App(f, a) => self.app(*f, *a, d),
            E::Let(x, v, b) => {
                let v = self.norm(*v, d + 1);
                self.bind(x, v, *b, d)
            }
            e => e,
        }
    }

    /// `f a` by the application strategy.
    fn app(&mut self, f: E, a: E, d: usize) -> E {
        let f = self.norm(f, d + 1);
        if !safe(&f) {
            let x = self.fresh.name();
            return self.bind(x.clone(), f, app(E::Var(x), a), d);
        }
        let a = self.norm(a, d + 1);
        if !safe(&a) {
            let x = self.fresh.name();
            return self.bind(x.clone(), a, app(f, E::Var(x)), d);
        }
        self.reduce(f, a, d)
    }

    /// `let x ⇐ v in b` with `v` normal.
    fn bind(&mut self, x: String, v: E, b: E, d: usize) -> E {
        match v {
            E::K(K::Err) => v,
            E::Let(y, t1, t2) => {
                // let x ⇐ (let y ⇐ t1 in t2) in b → let y, x ⇐ t1, t2 in b
                let z = self.fresh.name();
                let t2 = self.fresh.subst(*t2, &y, &E::Var(z.clone()));
                let inner = self.bind(x, t2, b, d + 1);
                let_(z, *t1, inner)
            }
            v if safe(&v) => self.substitute(x, v, b, d),
            v => {
                let b = self.norm(b, d + 1);
                let_(x, v, b)
            }
        }
    }

    /// `b[v/x]` normalised, unless it would grow too tall.
    fn substitute(&mut self, x: String, v: E, b: E, d: usize) -> E {
        if taller(&b, MAX_HEIGHT / 2) || taller(&v, MAX_HEIGHT / 2) {
            self.exhausted = true;
            return E::Let(x, Box::new(v), Box::new(b));
        }
        let b = self.fresh.subst(b, &x, &v);
        self.norm(b, d + 1)
    }

    /// `f a` with both normal and safe: β, a combinator rule, or normal.
    fn reduce(&mut self, f: E, a: E, d: usize) -> E {
        match f {
            E::Lam(x, b) => self.substitute(x, a, *b, d),
            E::K(k) => unary(k, a),
            E::App(g, p) => match *g {
                E::K(k) => binary(k, *p, a),
                g => app(app(g, *p), a),
            },
            f => app(f, a),
        }
    }
}

/// `let x ⇐ v in b` with both normal and `v` not safe.
fn let_(x: String, v: E, b: E) -> E {
    match b {
        E::K(K::Err) => b,
        E::Var(y) if y == x => v,
        b => E::Let(x, Box::new(v), Box::new(b)),
    }
}

fn unary(k: K, a: E) -> E {
    match (k, a) {
        (K::Fst, E::Pair(t1, _)) => *t1,
        (K::Snd, E::Pair(_, t2)) => *t2,
        (K::Succ, a) => succ(a),
        (K::Pred, E::Size(0)) => E::K(K::Err),
        (K::Pred, a) => match pred_of(&a) {
            Some(t) => t,
            None => app(E::K(K::Pred), a),
        },
        (K::Not, a) => not(a),
        (k, a) => app(E::K(k), a),
    }
}

fn binary(k: K, p: E, a: E) -> E {
    match k {
        K::Pair => E::Pair(Box::new(p), Box::new(a)),
        K::Eq => eq(p, a),
        K::And => and(p, a),
        K::Add => add(p, a),
        k => app2(E::K(k), p, a),
    }
}

/// Whether a safe normal size is certainly not `zero`.
fn nonzero(e: &E) -> bool {
    pred_of(e).is_some()
}

fn not(a: E) -> E {
    if zero(&a) {
        return E::Size(1);
    }
    if nonzero(&a) {
        return E::Size(0);
    }
    // Truthiness only: `and t t'` is non-zero when either is.
    if let E::App(f, q) = &a {
        if let E::App(g, p) = &**f {
            if **g == E::K(K::And) && (nonzero(p) || nonzero(q)) {
                return E::Size(0);
            }
        }
    }
    app(E::K(K::Not), a)
}

fn eq(a: E, b: E) -> E {
    if zero(&a) {
        return b;
    }
    if zero(&b) {
        return a;
    }
    if a == E::K(K::Un) || b == E::K(K::Un) || alpha_eq(&a, &b) {
        return E::Size(0);
    }
    if let (E::Size(m), E::Size(n)) = (&a, &b) {
        return E::Size(m.abs_diff(*n));
    }
    if let (Some(a1), Some(b1)) = (pred_of(&a), pred_of(&b)) {
        return eq(a1, b1);
    }
    match (a, b) {
        (E::Pair(a1, a2), E::Pair(b1, b2)) => and(eq(*a1, *b1), eq(*a2, *b2)),
        (a, b) => app2(E::K(K::Eq), a, b),
    }
}

/// The first non-`zero` of `a`, `b` (the evaluator's `and`).
fn and(a: E, b: E) -> E {
    if zero(&a) {
        return b;
    }
    if zero(&b) || nonzero(&a) {
        return a;
    }
    app2(E::K(K::And), a, b)
}

fn add(a: E, b: E) -> E {
    if zero(&a) {
        return b;
    }
    if zero(&b) {
        return a;
    }
    if let (E::Size(m), E::Size(n)) = (&a, &b) {
        if let Some(s) = m.checked_add(*n) {
            return E::Size(s);
        }
    }
    match (&a, pred_of(&a)) {
        // A long literal would unfold into as many `succ`s: kept as it is.
        (E::Size(n), _) if *n > 16 => app2(E::K(K::Add), a, b),
        (_, Some(a1)) => succ(add(a1, b)),
        (_, None) => app2(E::K(K::Add), a, b),
    }
}
