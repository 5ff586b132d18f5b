//! [`Dim`]: a symbolic extent in canonical polynomial form.
//!
//! A `Dim` is a polynomial with integer coefficients over [`Atom`]s. Monomials are sorted
//! multisets of atoms, terms are sorted by monomial and zero coefficients are dropped, so
//! two expressions that are equal as polynomials are equal under `==` (the derived
//! equality is structural on the normal form). Opaque atoms (`max(·,0)`, `floor(·/·)`)
//! hold their arguments in normal form too, so `max(n+1,0)` written two ways is one atom.

use super::symbol::Symbol;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// An indivisible factor of a monomial.
///
/// Variants are ordered as written (symbols first), which fixes the term order of the
/// normal form and so how polynomials print.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    /// An extent symbol (`p1`, `n`): a nonnegative integer, since array extents are ≥ 0.
    Sym(Symbol),
    /// A program value of unknown sign (the paper's m′ in `rand(m,n)`).
    Val(Symbol),
    /// `max(d, 0)`, the paper's `(d + |d|)/2`; kept opaque because it is not polynomial.
    /// Arguments are shared, so cloning an atom never copies them.
    Max0(Arc<Dim>),
    /// `floor(num / den)`, for colon counts and convolution arithmetic.
    FloorDiv(Arc<Dim>, Arc<Dim>),
    /// The gradual `Dyn` extent (Migeed et al.): some nonnegative extent, consistent
    /// with every other, and not a symbol — each occurrence is its own unknown, so two
    /// `Dyn`s are never proven equal. Arithmetic with `Dyn` gives `Dyn` (a `Dim`
    /// mentioning it is exactly `Dyn`); see `Facts::ask` for what is decided about it.
    Dyn,
}

impl Atom {
    /// Structurally nonnegative: true for extent symbols, `max(·,0)` and `Dyn`.
    pub fn is_nonneg(&self) -> bool {
        match self {
            Atom::Sym(_) | Atom::Max0(_) | Atom::Dyn => true,
            Atom::Val(_) => false,
            Atom::FloorDiv(n, d) => n.is_nonneg() && d.is_nonneg(),
        }
    }

    /// The symbol of a `Sym` or `Val` atom.
    pub fn symbol(&self) -> Option<&Symbol> {
        match self {
            Atom::Sym(s) | Atom::Val(s) => Some(s),
            _ => None,
        }
    }

    /// Whether `other` occurs in this atom (itself or inside its arguments).
    fn mentions(&self, other: &Atom) -> bool {
        self == other
            || match self {
                Atom::Sym(_) | Atom::Val(_) | Atom::Dyn => false,
                Atom::Max0(d) => d.mentions(other),
                Atom::FloorDiv(n, d) => n.mentions(other) || d.mentions(other),
            }
    }

    /// Every symbol atom (`Sym`/`Val`) in this atom, including inside its arguments.
    fn leaves<'a>(&'a self, out: &mut Vec<&'a Atom>) {
        match self {
            Atom::Sym(_) | Atom::Val(_) => {
                if !out.contains(&self) {
                    out.push(self);
                }
            }
            Atom::Dyn => {}
            Atom::Max0(d) => d.leaves_into(out),
            Atom::FloorDiv(n, d) => {
                n.leaves_into(out);
                d.leaves_into(out);
            }
        }
    }
}

/// A product of atoms (a sorted multiset; the empty monomial is the constant 1).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Mono(Vec<Atom>);

impl Mono {
    /// The product: the two sorted multisets merged (no clone-then-sort).
    fn times(&self, other: &Mono) -> Mono {
        if self.0.is_empty() {
            return other.clone();
        }
        if other.0.is_empty() {
            return self.clone();
        }
        let (a, b) = (&self.0, &other.0);
        let mut v = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if b[j] < a[i] {
                v.push(b[j].clone());
                j += 1;
            } else {
                v.push(a[i].clone());
                i += 1;
            }
        }
        v.extend_from_slice(&a[i..]);
        v.extend_from_slice(&b[j..]);
        Mono(v)
    }

    pub fn atoms(&self) -> &[Atom] {
        &self.0
    }

    fn is_nonneg(&self) -> bool {
        self.0.iter().all(Atom::is_nonneg)
    }

    /// `self / other` when `other`'s atoms are a sub-multiset of `self`'s.
    fn divide(&self, other: &Mono) -> Option<Mono> {
        let mut rest = self.0.clone();
        for a in &other.0 {
            let i = rest.iter().position(|x| x == a)?;
            rest.remove(i);
        }
        Some(Mono(rest))
    }
}

/// An extent: a known integer, a symbol, or a polynomial over atoms in normal form.
///
/// Its terms are shared: cloning a Dim (into a shape, a fact, a value) copies nothing.
/// Equality, order and hashing are those of the term list.
#[derive(Clone, Default)]
pub struct Dim {
    /// Sorted by monomial, no zero coefficients; the constant term has the empty monomial.
    /// `None` is zero (no terms), so zero allocates nothing.
    shared: Option<Arc<Vec<(Mono, i64)>>>,
}

impl PartialEq for Dim {
    fn eq(&self, other: &Dim) -> bool {
        match (&self.shared, &other.shared) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a == b,
            (None, None) => true,
            _ => false,
        }
    }
}

impl Eq for Dim {}

impl PartialOrd for Dim {
    fn partial_cmp(&self, other: &Dim) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Dim {
    fn cmp(&self, other: &Dim) -> Ordering {
        self.terms().cmp(other.terms())
    }
}

impl std::hash::Hash for Dim {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.terms().hash(state);
    }
}

impl fmt::Debug for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dim").field("terms", &self.terms()).finish()
    }
}

impl Dim {
    pub fn known(v: i64) -> Dim {
        if v == 0 {
            return Dim::zero();
        }
        Dim::from_terms(vec![(Mono::default(), v)])
    }

    pub fn zero() -> Dim {
        Dim::default()
    }

    pub fn one() -> Dim {
        Dim::known(1)
    }

    /// An extent symbol (nonnegative) whose identity is its name (see [`Symbol::user`]).
    pub fn sym(name: &str) -> Dim {
        Dim::atom(Atom::Sym(Symbol::user(name)))
    }

    /// A program value of unknown sign (e.g. the argument `n` of `zeros(n)`) whose
    /// identity is its name.
    pub fn val(name: &str) -> Dim {
        Dim::atom(Atom::Val(Symbol::user(name)))
    }

    /// `s` as an extent (nonnegative).
    pub fn extent_of(s: &Symbol) -> Dim {
        Dim::atom(Atom::Sym(s.clone()))
    }

    /// `s` as a value of unknown sign.
    pub fn value_of(s: &Symbol) -> Dim {
        Dim::atom(Atom::Val(s.clone()))
    }

    /// The gradual `Dyn` extent (see [`Atom::Dyn`]).
    pub fn dynamic() -> Dim {
        Dim::atom(Atom::Dyn)
    }

    /// Whether this is `Dyn` (a `Dim` that mentions `Dyn` is exactly `Dyn`).
    pub fn is_dyn(&self) -> bool {
        matches!(self.terms(), [(m, 1)] if m.0 == [Atom::Dyn])
    }

    /// The product of a monomial's atoms (coefficient 1).
    pub fn atom_product(m: &Mono) -> Dim {
        if m.0.contains(&Atom::Dyn) {
            return Dim::dynamic();
        }
        Dim::from_terms(vec![(m.clone(), 1)])
    }

    pub fn atom(a: Atom) -> Dim {
        Dim::from_terms(vec![(Mono(vec![a]), 1)])
    }

    /// The value of `op` on `operands` when it does not fit an `i64`: a symbol of its
    /// own, whose identity is that computation (provenance: overflow), never a wrong
    /// number. Two different overflows are two symbols.
    fn overflow(op: char, operands: &[&Dim]) -> Dim {
        let operands = operands.iter().map(|d| (*d).clone()).collect();
        Dim::value_of(&Symbol::overflow(op, operands))
    }

    /// Whether arithmetic overflowed somewhere in this extent: nothing about it is ever
    /// decided (each overflow is its own symbol, and `Facts` answers `Unknown` for any
    /// question that mentions one).
    pub fn is_opaque(&self) -> bool {
        self.atoms().any(|a| match a {
            Atom::Val(s) => s.is_overflow(),
            Atom::Max0(d) => d.is_opaque(),
            Atom::FloorDiv(n, d) => n.is_opaque() || d.is_opaque(),
            Atom::Sym(_) | Atom::Dyn => false,
        })
    }

    fn from_map(map: BTreeMap<Mono, i64>) -> Dim {
        Dim::from_terms(map.into_iter().filter(|(_, c)| *c != 0).collect())
    }

    /// The terms of the normal form: (monomial, coefficient), sorted.
    pub fn terms(&self) -> &[(Mono, i64)] {
        self.shared.as_deref().map_or(&[], Vec::as_slice)
    }

    /// The Dim with these terms (already in normal form).
    fn from_terms(terms: Vec<(Mono, i64)>) -> Dim {
        Dim {
            shared: (!terms.is_empty()).then(|| Arc::new(terms)),
        }
    }

    pub fn as_known(&self) -> Option<i64> {
        match self.terms() {
            [] => Some(0),
            [(m, c)] if m.0.is_empty() => Some(*c),
            _ => None,
        }
    }

    pub fn is_known(&self) -> bool {
        self.as_known().is_some()
    }

    /// The single atom this Dim is, if it is exactly one atom.
    pub fn as_atom(&self) -> Option<&Atom> {
        match self.terms() {
            [(m, 1)] if m.0.len() == 1 => Some(&m.0[0]),
            _ => None,
        }
    }

    /// The constant term.
    pub fn constant(&self) -> i64 {
        self.terms()
            .iter()
            .find(|(m, _)| m.0.is_empty())
            .map_or(0, |(_, c)| *c)
    }

    pub fn add(&self, other: &Dim) -> Dim {
        if self.is_dyn() || other.is_dyn() {
            return Dim::dynamic();
        }
        if other.terms().is_empty() {
            return self.clone();
        }
        if self.terms().is_empty() {
            return other.clone();
        }
        self.merge(other, false)
            .unwrap_or_else(|| Dim::overflow('+', &[self, other]))
    }

    /// `self + other` (or `self - other` when `negate`) by merging the two sorted term
    /// lists; `None` when a coefficient overflows. `other` holds no `i64::MIN` when
    /// `negate`.
    fn merge(&self, other: &Dim, negate: bool) -> Option<Dim> {
        let sign = |c: i64| if negate { -c } else { c };
        let (a, b) = (self.terms(), other.terms());
        let mut terms = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                Ordering::Less => {
                    terms.push(a[i].clone());
                    i += 1;
                }
                Ordering::Greater => {
                    terms.push((b[j].0.clone(), sign(b[j].1)));
                    j += 1;
                }
                Ordering::Equal => {
                    let c = a[i].1.checked_add(sign(b[j].1))?;
                    if c != 0 {
                        terms.push((a[i].0.clone(), c));
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        terms.extend_from_slice(&a[i..]);
        terms.extend(b[j..].iter().map(|(m, c)| (m.clone(), sign(*c))));
        Some(Dim::from_terms(terms))
    }

    pub fn neg(&self) -> Dim {
        if self.is_dyn() {
            return Dim::dynamic();
        }
        match self.scale(-1) {
            Some(d) => d,
            None => Dim::overflow('-', &[&Dim::zero(), self]),
        }
    }

    pub fn sub(&self, other: &Dim) -> Dim {
        if self.is_dyn() || other.is_dyn() {
            return Dim::dynamic();
        }
        if other.terms().is_empty() {
            return self.clone();
        }
        if other.terms().iter().any(|(_, c)| *c == i64::MIN) {
            // `-other` overflows: what that gives is `neg`'s business.
            return self.add(&other.neg());
        }
        // `self + (-other)` without building `-other` (unless the sum overflows).
        self.merge(other, true)
            .unwrap_or_else(|| Dim::overflow('+', &[self, &other.neg()]))
    }

    /// This Dim without its `i`-th term (for solving an equality for that term's atom).
    pub(crate) fn without_term(&self, i: usize) -> Dim {
        let mut terms = self.terms().to_vec();
        terms.remove(i);
        Dim::from_terms(terms)
    }

    /// Whether `a` occurs in any term but the `i`-th (including inside opaque atoms).
    pub(crate) fn mentions_outside_term(&self, i: usize, a: &Atom) -> bool {
        self.terms()
            .iter()
            .enumerate()
            .any(|(j, (m, _))| j != i && m.0.iter().any(|x| x.mentions(a)))
    }

    pub fn mul(&self, other: &Dim) -> Dim {
        if self.is_dyn() || other.is_dyn() {
            return Dim::dynamic();
        }
        if self.terms().is_empty() || other.terms().is_empty() {
            return Dim::zero();
        }
        // A known factor scales the other's terms (their monomials stay distinct).
        for (k, d) in [(other, self), (self, other)] {
            if let Some(k) = k.as_known() {
                return d
                    .scale(k)
                    .unwrap_or_else(|| Dim::overflow('*', &[self, other]));
            }
        }
        // Products in order, sorted stably by monomial, then equal monomials summed in
        // that order (so an intermediate overflow is found exactly where a running sum
        // per monomial finds it).
        let mut products = Vec::with_capacity(self.terms().len() * other.terms().len());
        for (m1, c1) in self.terms() {
            for (m2, c2) in other.terms() {
                let Some(c) = c1.checked_mul(*c2) else {
                    return Dim::overflow('*', &[self, other]);
                };
                products.push((m1.times(m2), c));
            }
        }
        products.sort_by(|a, b| a.0.cmp(&b.0));
        let mut terms: Vec<(Mono, i64)> = Vec::with_capacity(products.len());
        for (m, c) in products {
            match terms.last_mut() {
                Some((last, sum)) if *last == m => match sum.checked_add(c) {
                    Some(v) => *sum = v,
                    None => return Dim::overflow('*', &[self, other]),
                },
                _ => terms.push((m, c)),
            }
        }
        terms.retain(|(_, c)| *c != 0);
        Dim::from_terms(terms)
    }

    fn scale(&self, k: i64) -> Option<Dim> {
        let terms = self
            .terms()
            .iter()
            .map(|(m, c)| c.checked_mul(k).map(|c| (m.clone(), c)))
            .collect::<Option<Vec<_>>>()?;
        Some(Dim::from_terms(
            terms.into_iter().filter(|(_, c)| *c != 0).collect(),
        ))
    }

    pub fn add_const(&self, k: i64) -> Dim {
        self.add(&Dim::known(k))
    }

    /// Structurally nonnegative: every coefficient ≥ 0 over nonnegative atoms.
    pub fn is_nonneg(&self) -> bool {
        self.terms().iter().all(|(m, c)| *c >= 0 && m.is_nonneg())
    }

    /// Structurally positive: nonnegative with a positive constant term.
    pub fn is_positive(&self) -> bool {
        self.is_nonneg() && self.constant() > 0
    }

    /// `max(self, 0)`, simplified when the sign is structurally evident.
    pub fn max0(&self) -> Dim {
        if let Some(v) = self.as_known() {
            return Dim::known(v.max(0));
        }
        if self.is_nonneg() {
            return self.clone();
        }
        if self.neg().is_nonneg() {
            return Dim::zero();
        }
        Dim::atom(Atom::Max0(Arc::new(self.clone())))
    }

    /// `max(self, other)`, written `other + max(self - other, 0)` so it stays polynomial
    /// over atoms.
    pub fn max(&self, other: &Dim) -> Dim {
        other.add(&self.sub(other).max0())
    }

    /// `min(self, other) = self - max(self - other, 0)`.
    pub fn min(&self, other: &Dim) -> Dim {
        self.sub(&self.sub(other).max0())
    }

    /// `floor(self / den)`. Exact when `den` divides every term; a known zero divisor
    /// gives an opaque atom (the caller decides what division by zero means).
    pub fn floor_div(&self, den: &Dim) -> Dim {
        if self.is_dyn() || den.is_dyn() {
            return Dim::dynamic();
        }
        if let Some(k) = den.as_known() {
            if k == 1 {
                return self.clone();
            }
            if let (Some(n), true) = (self.as_known(), k != 0) {
                return floor_div_i64(n, k)
                    .map_or_else(|| Dim::overflow('/', &[self, den]), Dim::known);
            }
            // floor(n / k) = floor(-n / -k); -i64::MIN is no i64 (that divisor stays an
            // opaque atom below).
            if let Some(pos) = k.checked_neg().filter(|_| k < 0) {
                return self.neg().floor_div(&Dim::known(pos));
            }
        }
        if let Some(q) = self.exact_div(den) {
            return q;
        }
        if self.is_zero() {
            return Dim::zero();
        }
        Dim::atom(Atom::FloorDiv(
            Arc::new(self.clone()),
            Arc::new(den.clone()),
        ))
    }

    /// Quotient when `den` is a single nonzero term dividing every term of `self`.
    fn exact_div(&self, den: &Dim) -> Option<Dim> {
        let [(dm, dc)] = den.terms() else {
            return None;
        };
        let mut out = Vec::new();
        for (m, c) in self.terms() {
            // Checked: i64::MIN / -1 overflows.
            if c.checked_rem(*dc)? != 0 {
                return None;
            }
            out.push((m.divide(dm)?, c.checked_div(*dc)?));
        }
        Some(Dim::from_map(out.into_iter().collect()))
    }

    pub fn is_zero(&self) -> bool {
        self.terms().is_empty()
    }

    /// All atoms at the top level of the polynomial (not inside opaque atoms).
    pub fn atoms(&self) -> impl Iterator<Item = &Atom> {
        self.terms().iter().flat_map(|(m, _)| m.0.iter())
    }

    /// Whether `a` occurs anywhere in this Dim, including inside opaque atoms.
    pub fn mentions(&self, a: &Atom) -> bool {
        self.atoms().any(|x| x.mentions(a))
    }

    /// Every symbol atom (`Sym`/`Val`) this Dim mentions, including inside `max(·,0)`
    /// and `floor(·/·)`, each once, in order of first occurrence.
    pub fn leaves(&self) -> Vec<&Atom> {
        let mut out = Vec::new();
        self.leaves_into(&mut out);
        out
    }

    fn leaves_into<'a>(&'a self, out: &mut Vec<&'a Atom>) {
        for a in self.atoms() {
            a.leaves(out);
        }
    }

    /// Rebuilds the polynomial with every atom replaced by `f(atom)` (default: itself).
    /// Opaque atoms are rebuilt through their smart constructors after their arguments
    /// are rewritten, so simplifications that become possible are applied.
    pub fn substitute(&self, f: &dyn Fn(&Atom) -> Option<Dim>) -> Dim {
        // Each atom's replacement, in order (`f` is called once per atom, in the order
        // the polynomial is rebuilt); `None` where the atom stays itself. Filled only
        // once some atom changes: when none does, the result is `self`.
        let mut reps: Vec<Option<Dim>> = Vec::new();
        let mut seen = 0;
        for (m, _) in self.terms() {
            for a in &m.0 {
                let rep = match f(a) {
                    Some(d) => Some(d),
                    None => match a {
                        Atom::Max0(d) => Some(d.substitute(f).max0()),
                        Atom::FloorDiv(n, d) => Some(n.substitute(f).floor_div(&d.substitute(f))),
                        _ => None,
                    },
                };
                let rep = rep.filter(|d| d.as_atom() != Some(a));
                if rep.is_some() && reps.is_empty() {
                    reps.resize(seen, None);
                }
                if rep.is_some() || !reps.is_empty() {
                    reps.push(rep);
                }
                seen += 1;
            }
        }
        if reps.is_empty() {
            return self.clone();
        }
        let mut reps = reps.into_iter();
        let mut acc = Dim::zero();
        for (m, c) in self.terms() {
            let mut prod = Dim::known(*c);
            for a in &m.0 {
                prod = match reps.next().flatten() {
                    Some(d) => prod.mul(&d),
                    None => prod.mul(&Dim::atom(a.clone())),
                };
            }
            acc = acc.add(&prod);
        }
        acc
    }

    /// Evaluates with every symbol bound by `env`, looked up by display name (for
    /// tests and readers, where names are unique); `None` if a symbol is unbound.
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
        self.eval_symbols(&|s| env(s.name()))
    }

    /// Evaluates with every symbol bound by `env` (by identity); `None` if a symbol is
    /// unbound, a division is by zero, arithmetic overflows or the Dim is `Dyn`.
    pub fn eval_symbols(&self, env: &dyn Fn(&Symbol) -> Option<i64>) -> Option<i64> {
        let mut acc: i64 = 0;
        for (m, c) in self.terms() {
            let mut p = *c;
            for a in &m.0 {
                p = p.checked_mul(eval_atom(a, env)?)?;
            }
            acc = acc.checked_add(p)?;
        }
        Some(acc)
    }
}

fn eval_atom(a: &Atom, env: &dyn Fn(&Symbol) -> Option<i64>) -> Option<i64> {
    match a {
        Atom::Sym(s) | Atom::Val(s) => env(s),
        Atom::Max0(d) => Some(d.eval_symbols(env)?.max(0)),
        Atom::FloorDiv(n, d) => {
            let d = d.eval_symbols(env)?;
            (d != 0).then_some(())?;
            floor_div_i64(n.eval_symbols(env)?, d)
        }
        Atom::Dyn => None,
    }
}

/// Floor division (toward −∞); `None` on division by zero or overflow.
fn floor_div_i64(n: i64, k: i64) -> Option<i64> {
    let q = n.checked_div(k)?;
    let r = n.checked_rem(k)?;
    Some(if r != 0 && ((n < 0) != (k < 0)) {
        q - 1
    } else {
        q
    })
}

impl From<i64> for Dim {
    fn from(v: i64) -> Dim {
        Dim::known(v)
    }
}

macro_rules! binop {
    ($tr:ident, $m:ident, $f:ident) => {
        impl std::ops::$tr for Dim {
            type Output = Dim;
            fn $m(self, rhs: Dim) -> Dim {
                Dim::$f(&self, &rhs)
            }
        }
        impl std::ops::$tr<&Dim> for &Dim {
            type Output = Dim;
            fn $m(self, rhs: &Dim) -> Dim {
                Dim::$f(self, rhs)
            }
        }
        impl std::ops::$tr<i64> for Dim {
            type Output = Dim;
            fn $m(self, rhs: i64) -> Dim {
                Dim::$f(&self, &Dim::known(rhs))
            }
        }
    };
}
binop!(Add, add, add);
binop!(Sub, sub, sub);
binop!(Mul, mul, mul);

impl std::ops::Neg for Dim {
    type Output = Dim;
    fn neg(self) -> Dim {
        Dim::neg(&self)
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Atom::Sym(s) | Atom::Val(s) => f.write_str(s.name()),
            Atom::Max0(d) => write!(f, "max({d},0)"),
            Atom::Dyn => f.write_str("Dyn"),
            Atom::FloorDiv(n, d) => {
                let n = paren_if_compound(n);
                let d = paren_if_compound(d);
                write!(f, "floor({n}/{d})")
            }
        }
    }
}

fn paren_if_compound(d: &Dim) -> String {
    let single = d.terms().len() == 1 && (d.terms()[0].0 .0.len() <= 1 && d.terms()[0].1 >= 0);
    if single || d.is_zero() {
        d.to_string()
    } else {
        format!("({d})")
    }
}

impl fmt::Display for Mono {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut i = 0;
        let mut first = true;
        while i < self.0.len() {
            let a = &self.0[i];
            let n = self.0[i..].iter().take_while(|x| *x == a).count();
            if !first {
                f.write_str("*")?;
            }
            first = false;
            if n > 1 {
                write!(f, "{a}^{n}")?;
            } else {
                write!(f, "{a}")?;
            }
            i += n;
        }
        Ok(())
    }
}

impl fmt::Display for Dim {
    /// Readable text: non-constant terms in canonical order, then the constant
    /// (`p1+q1`, `2*n`, `n-1`, `max(n,0)`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms().is_empty() {
            return f.write_str("0");
        }
        // Positive terms first so differences read `b-a`, then negative, then the constant.
        let mut ordered: Vec<&(Mono, i64)> =
            self.terms().iter().filter(|t| !t.0 .0.is_empty()).collect();
        ordered.sort_by_key(|t| t.1 < 0);
        ordered.extend(self.terms().iter().filter(|t| t.0 .0.is_empty()));
        for (i, (m, c)) in ordered.into_iter().enumerate() {
            let (sign, mag) = if *c < 0 {
                ("-", c.unsigned_abs())
            } else {
                ("+", c.unsigned_abs())
            };
            if i > 0 || sign == "-" {
                f.write_str(sign)?;
            }
            match (m.0.is_empty(), mag) {
                (true, _) => write!(f, "{mag}")?,
                (false, 1) => write!(f, "{m}")?,
                (false, _) => write!(f, "{mag}*{m}")?,
            }
        }
        Ok(())
    }
}
