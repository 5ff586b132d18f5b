//! Bounds propagation and finite domains for the search of [`crate::solve`].
//!
//! The facts bound single atoms only (`h ≤ 20`), so a chain of convolution steps
//! (`2*q1 ≤ h - 1 ≤ 2*q1 + 1`, …, `q5 == 7`) leaves `h` unbounded for them and the
//! search could only guess. Here every linear condition that must hold (the atomic
//! conjuncts of the input, the definition of each `floor(n/k)` with a positive constant
//! `k`, `max(x,0) ≥ x`) is a row `Σ c·t + k ≥ 0`, and interval bounds are tightened
//! row by row (bounds consistency) until nothing changes or the rounds run out. Every
//! bound derived is a consequence of the rows, so an empty interval proves the branch
//! has no model, and a finite interval may be searched exhaustively.
//!
//! [`divisor_domain`] and [`pinned_values`] give finite value sets from products equal
//! to a constant (`a*b*c == 150528`) and from disjunctions of equalities (`s ∈ {2,4,9}`).

use super::constraint::Constraint;
use super::dim::{Atom, Dim};
use std::collections::BTreeMap;

/// A bound: `None` is unbounded in that direction.
pub(crate) type Bound = Option<i128>;

/// The values an atom may take: `lo ≤ v ≤ hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Iv {
    pub lo: Bound,
    pub hi: Bound,
}

impl Iv {
    pub const ALL: Iv = Iv { lo: None, hi: None };

    pub fn nonneg() -> Iv {
        Iv {
            lo: Some(0),
            hi: None,
        }
    }

    pub fn point(v: i128) -> Iv {
        Iv {
            lo: Some(v),
            hi: Some(v),
        }
    }

    pub fn is_empty(&self) -> bool {
        matches!((self.lo, self.hi), (Some(l), Some(h)) if l > h)
    }

    pub fn meet(self, o: Iv) -> Iv {
        let pick = |a: Bound, b: Bound, f: fn(i128, i128) -> i128| match (a, b) {
            (Some(x), Some(y)) => Some(f(x, y)),
            (x, None) => x,
            (None, y) => y,
        };
        Iv {
            lo: pick(self.lo, o.lo, i128::max),
            hi: pick(self.hi, o.hi, i128::min),
        }
    }
}

/// `Σ c·(product of atoms) + k ≥ 0`, atoms by index into [`Propagator::atoms`].
#[derive(Clone, Debug)]
struct Row {
    terms: Vec<(Vec<usize>, i128)>,
    k: i128,
}

/// The rows of a constraint set and the atoms they mention.
#[derive(Debug, Default)]
pub(crate) struct Propagator {
    atoms: Vec<Atom>,
    rows: Vec<Row>,
}

/// Rounds of tightening before stopping short of a fixpoint (bounds that creep by one
/// per round, as in `x < y ∧ y < x + 5`, would otherwise go on for long).
const ROUNDS: usize = 64;

impl Propagator {
    /// The rows every model of `constraints` satisfies.
    pub fn new<'a>(constraints: impl IntoIterator<Item = &'a Constraint>) -> Propagator {
        let mut p = Propagator::default();
        for c in constraints {
            p.add(c);
        }
        // Definitions of the opaque atoms, including those found inside others.
        let mut i = 0;
        while i < p.atoms.len() {
            let a = p.atoms[i].clone();
            p.define(&a);
            i += 1;
        }
        p
    }

    pub fn position(&self, a: &Atom) -> Option<usize> {
        self.atoms.iter().position(|x| x == a)
    }

    fn index(&mut self, a: &Atom) -> usize {
        self.position(a).unwrap_or_else(|| {
            self.atoms.push(a.clone());
            self.atoms.len() - 1
        })
    }

    fn add(&mut self, c: &Constraint) {
        match c {
            Constraint::Eq(a, b) => {
                self.row(&a.sub(b), 0);
                self.row(&b.sub(a), 0);
            }
            Constraint::Le(a, b) => self.row(&b.sub(a), 0),
            Constraint::Lt(a, b) => self.row(&b.sub(a), -1),
            Constraint::And(v) => v.iter().for_each(|x| self.add(x)),
            _ => {}
        }
    }

    /// Adds `d + k ≥ 0` (an opaque `d`, from an overflow, adds nothing).
    fn row(&mut self, d: &Dim, k: i128) {
        if d.is_opaque() {
            return;
        }
        let mut row = Row { terms: vec![], k };
        for (m, c) in d.terms() {
            if m.atoms().is_empty() {
                row.k += i128::from(*c);
            } else {
                let idx = m.atoms().iter().map(|a| self.index(a)).collect();
                row.terms.push((idx, i128::from(*c)));
            }
        }
        self.rows.push(row);
    }

    /// `k·f ≤ n ≤ k·f + k − 1` for `f = floor(n/k)`, `k > 0` constant; `m ≥ x` for
    /// `m = max(x,0)` (`m ≥ 0` is its initial interval).
    fn define(&mut self, a: &Atom) {
        let me = Dim::atom(a.clone());
        match a {
            Atom::FloorDiv(n, d) => {
                if let Some(k) = d.as_known().filter(|k| *k > 0) {
                    let kf = me.mul(&Dim::known(k));
                    self.row(&n.sub(&kf), 0);
                    self.row(&kf.sub(n), i128::from(k) - 1);
                }
            }
            Atom::Max0(x) => self.row(&me.sub(x), 0),
            _ => {}
        }
    }

    /// Tightened intervals for the atoms (starting from `init`), or `None` when some
    /// interval becomes empty: then no model exists.
    pub fn run(&self, init: impl Fn(&Atom) -> Iv) -> Option<Vec<Iv>> {
        let mut iv: Vec<Iv> = self.atoms.iter().map(init).collect();
        for _ in 0..ROUNDS {
            let mut changed = false;
            for row in &self.rows {
                changed |= tighten(row, &mut iv)?;
            }
            if !changed {
                break;
            }
        }
        Some(iv)
    }
}

/// The largest value of `c · Π atoms` over the intervals (`None`: unbounded or too large).
fn term_max(atoms: &[usize], c: i128, iv: &[Iv]) -> Bound {
    let t = product(atoms, iv);
    if c > 0 {
        c.checked_mul(t.hi?)
    } else {
        c.checked_mul(t.lo?)
    }
}

/// The interval of a product of atoms: exact corners when every factor is finite, else
/// `[Π lo, ∞)` for nonnegative factors, else everything.
fn product(atoms: &[usize], iv: &[Iv]) -> Iv {
    let mut acc = Iv::point(1);
    for &a in atoms {
        acc = mul(acc, iv[a]);
    }
    acc
}

fn mul(x: Iv, y: Iv) -> Iv {
    if let (Some(a), Some(b), Some(c), Some(d)) = (x.lo, x.hi, y.lo, y.hi) {
        let corners = [
            a.checked_mul(c),
            a.checked_mul(d),
            b.checked_mul(c),
            b.checked_mul(d),
        ];
        if let [Some(p), Some(q), Some(r), Some(s)] = corners {
            return Iv {
                lo: Some(p.min(q).min(r).min(s)),
                hi: Some(p.max(q).max(r).max(s)),
            };
        }
    }
    match (x.lo, y.lo) {
        (Some(a), Some(c)) if a >= 0 && c >= 0 => Iv {
            lo: a.checked_mul(c),
            hi: None,
        },
        _ => Iv::ALL,
    }
}

/// One pass over `row`: each single-atom term is bounded by what the others can add at
/// most. `Some(changed)`, or `None` when the row cannot hold.
fn tighten(row: &Row, iv: &mut [Iv]) -> Option<bool> {
    let maxima: Vec<Bound> = row.terms.iter().map(|(a, c)| term_max(a, *c, iv)).collect();
    let unbounded = maxima.iter().filter(|m| m.is_none()).count();
    let finite: Option<i128> = maxima
        .iter()
        .flatten()
        .try_fold(row.k, |s, m| s.checked_add(*m));
    // An overflowing sum bounds nothing (never read as "cannot hold").
    let Some(finite) = finite else {
        return Some(false);
    };
    if unbounded == 0 && finite < 0 {
        return None;
    }
    let mut changed = false;
    for (j, (atoms, c)) in row.terms.iter().enumerate() {
        let [a] = atoms.as_slice() else { continue };
        // Σ_{i≠j} max_i + k, finite only if every other maximum is.
        let rest = match (maxima[j], unbounded) {
            (Some(m), 0) => finite.checked_sub(m).unwrap_or(i128::MAX),
            (None, 1) => finite,
            _ => continue,
        };
        // c·t + rest ≥ 0.
        let Some(neg) = rest.checked_neg() else {
            continue;
        };
        let bound = if *c > 0 {
            Iv {
                lo: Some(div_ceil(neg, *c)),
                hi: None,
            }
        } else {
            Iv {
                lo: None,
                hi: Some(rest.div_euclid(-c)),
            }
        };
        let next = iv[*a].meet(bound);
        if next.is_empty() {
            return None;
        }
        changed |= next != iv[*a];
        iv[*a] = next;
    }
    Some(changed)
}

fn div_ceil(n: i128, d: i128) -> i128 {
    n.div_euclid(d) + i128::from(n.rem_euclid(d) != 0)
}

/// Constants this large are not factored (trial division would cost too much); their
/// products get no finite domain.
const MAX_FACTORED: u64 = 1 << 40;

/// Positive divisors of `n` (`0 < n ≤ MAX_FACTORED`), ascending, memoised in `cache`.
pub(crate) fn divisors(n: u64, cache: &mut BTreeMap<u64, Vec<u64>>) -> Option<Vec<u64>> {
    if n == 0 || n > MAX_FACTORED {
        return None;
    }
    if let Some(v) = cache.get(&n) {
        return Some(v.clone());
    }
    let (mut small, mut large) = (Vec::new(), Vec::new());
    let mut i = 1u64;
    while i * i <= n {
        if n.is_multiple_of(i) {
            small.push(i);
            if i * i != n {
                large.push(n / i);
            }
        }
        i += 1;
    }
    small.extend(large.into_iter().rev());
    cache.insert(n, small.clone());
    Some(small)
}

/// What an equation `d == 0` (normalised) says about symbol atom `x` when it reads
/// `c·x^e·rest + k == 0` with `rest` a product of symbol atoms: the product is the
/// constant `C = −k/c`, so (for `C ≠ 0`) `|x|` divides `C`. `Some(values)`
/// ascending (possibly empty: no integer product fits), or `None` when the equation has
/// another shape or `C` is 0 or too large to factor.
pub(crate) fn divisor_domain(
    d: &Dim,
    x: &Atom,
    cache: &mut BTreeMap<u64, Vec<u64>>,
) -> Option<Vec<i64>> {
    let (m, c, k) = match d.terms() {
        [(m, c)] if !m.atoms().is_empty() => (m, *c, 0),
        // The constant term sorts first (its monomial is empty).
        [(k0, k), (m, c)] if k0.atoms().is_empty() => (m, *c, *k),
        _ => return None,
    };
    let atoms = m.atoms();
    let e = atoms.iter().filter(|a| *a == x).count();
    if e == 0 || !atoms.iter().all(|a| a.symbol().is_some()) {
        return None;
    }
    let (c, k) = (i128::from(c), i128::from(k));
    if k % c != 0 {
        return Some(vec![]);
    }
    let target = -k / c;
    let all_extents = atoms.iter().all(|a| matches!(a, Atom::Sym(_)));
    if target == 0 || (all_extents && target < 0) {
        // 0: some other factor may be 0, so x is free; negative: no product of
        // extents is.
        return (target != 0).then(Vec::new);
    }
    let n = u64::try_from(target.unsigned_abs()).ok()?;
    let ds = divisors(n, cache)?;
    // x^e divides n: only such divisors can be x.
    let fits = |v: u64| {
        u32::try_from(e)
            .ok()
            .and_then(|e| v.checked_pow(e))
            .is_some_and(|p| n.is_multiple_of(p))
    };
    let pos: Vec<i64> = ds
        .into_iter()
        .filter(|v| fits(*v))
        .filter_map(|v| i64::try_from(v).ok())
        .collect();
    if matches!(x, Atom::Sym(_)) {
        return Some(pos);
    }
    let mut both: Vec<i64> = pos
        .iter()
        .map(|v| -v)
        .rev()
        .chain(pos.iter().copied())
        .collect();
    both.sort_unstable();
    Some(both)
}

/// The values of `x` a disjunction allows when every alternative pins it (`x == 4`,
/// or `(x == 1 ∧ y == 2)`): each alternative is normalised by `norm`. `None` when
/// some alternative leaves `x` open.
pub(crate) fn pinned_values(
    alts: &[Constraint],
    x: &Atom,
    norm: &dyn Fn(&Dim) -> Dim,
) -> Option<Vec<i64>> {
    let mut out = Vec::new();
    for alt in alts {
        let pin = alt.conjuncts().iter().find_map(|c| match c {
            Constraint::Eq(a, b) => pin(&norm(&a.sub(b)), x),
            Constraint::False => Some(None),
            _ => None,
        })?;
        out.extend(pin);
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

/// For `c·x + k == 0`: `Some(Some(−k/c))`, or `Some(None)` when no integer fits;
/// `None` when `d` has another shape.
fn pin(d: &Dim, x: &Atom) -> Option<Option<i64>> {
    let (c, k) = match d.terms() {
        [(m, c)] if m.atoms() == [x.clone()] => (*c, 0),
        [(k0, k), (m, c)] if k0.atoms().is_empty() && m.atoms() == [x.clone()] => (*c, *k),
        _ => return None,
    };
    let (c, k) = (i128::from(c), i128::from(k));
    Some((k % c == 0).then(|| i64::try_from(-k / c).ok()).flatten())
}
