//! Shape rules MATLAB needs beyond Joisha Table 2 (spec 000 §2.8–2.10), marked as
//! extensions: creation, reductions, indexing, subscripted assignment and deletion,
//! `reshape`, `repmat`, `permute`, `cat`, colon ranges, and control-flow joins.
//! Dimension numbers in these signatures are 1-based, as in MATLAB.

use super::rules::{case, decide, fold_cat, Outcome, Rule, RuleInfo};
use super::tuple::{alpha, is_empty_matrix, Shape, ShapeTuple, MAX_RANK};
use shapex_dims::{Constraint, Dim, Facts, Truth};

/// One subscript of an indexing expression, as the value analysis sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexArg {
    /// `:`
    Colon,
    /// A scalar subscript, with its value when known.
    Scalar(Option<Dim>),
    /// A range of `len` subscripts; `max` is its largest value when known.
    Range { len: Dim, max: Option<Dim> },
    /// A numeric array of subscripts; `max` is its largest value when known, `numel`
    /// how many subscripts it holds (a fresh symbol from the caller when its shape is
    /// unknown: two unknown subscript arrays never select equally many elements by
    /// coincidence of a name).
    Array {
        shape: Shape,
        max: Option<Dim>,
        numel: Dim,
    },
    /// A logical mask; `count` is the number of true elements (a fresh symbol from the
    /// caller when unknown).
    Logical { mask: Shape, count: Dim },
    /// `end + offset` (`end` is `End(0)`, `end+1` is `End(1)`).
    End(i64),
}

impl IndexArg {
    /// How many elements this subscript selects along its dimension of extent `extent`.
    fn count(&self, extent: &Dim) -> Dim {
        match self {
            IndexArg::Colon => extent.clone(),
            IndexArg::Scalar(_) | IndexArg::End(_) => Dim::one(),
            IndexArg::Range { len, .. } => len.clone(),
            IndexArg::Array { numel, .. } => numel.clone(),
            IndexArg::Logical { count, .. } => count.clone(),
        }
    }

    /// The largest subscript value, when known (`None` for `:`, which never grows).
    fn max_value(&self, extent: &Dim) -> Option<Option<Dim>> {
        match self {
            IndexArg::Colon => None,
            IndexArg::Scalar(v) => Some(v.clone()),
            IndexArg::End(k) => Some(Some(extent.add_const(*k))),
            IndexArg::Range { max, .. } | IndexArg::Array { max, .. } => Some(max.clone()),
            IndexArg::Logical { .. } => Some(Some(extent.clone())),
        }
    }
}

fn ext(rule: Rule) -> RuleInfo {
    RuleInfo::extension(rule)
}

/// The value of `end` in subscript `position` (0-based) of `count` subscripts: that
/// extent, or the product of the remaining extents in the last position.
pub fn end_value(base: &Shape, position: usize, count: usize) -> Option<Dim> {
    let t = base.as_tuple()?;
    Some(spanned_extent(t, position, count))
}

fn spanned_extent(t: &ShapeTuple, position: usize, count: usize) -> Dim {
    if count == 1 {
        return t.numel();
    }
    if position + 1 == count {
        (position..t.rank().max(count))
            .map(|i| t.extent(i))
            .fold(Dim::one(), |a, d| a.mul(&d))
    } else {
        t.extent(position)
    }
}

/// `zeros/ones/rand/…(e1, …, en)` (eq. 39 generalised): extents `max(e,0)`; one
/// argument gives a square matrix; none gives a scalar.
pub fn create(dims: &[Dim]) -> Outcome {
    let rule = if dims.len() == 2 {
        RuleInfo {
            rule: Rule::Create,
            source: "Joisha eq. (39)",
        }
    } else {
        ext(Rule::Create)
    };
    let shape = match dims {
        [] => Shape::scalar(),
        [n] => Shape::tuple(vec![n.max0(), n.max0()]),
        ds => Shape::tuple(ds.iter().map(Dim::max0).collect()),
    };
    Outcome::always(shape, rule)
}

/// What a reduction gives for `[]` (0×0): `sum/prod/mean/any/all` give a scalar,
/// `max/min` give `[]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmptyReduction {
    ToScalar,
    ToEmpty,
}

/// `sum(a)`, `sum(a, dim)` and kin: the reduced dimension becomes 1. Without `dim`, the
/// first dimension not known to be 1 is reduced (the generic case when it is symbolic).
pub fn reduce(a: &Shape, dim: Option<usize>, empty: EmptyReduction, facts: &Facts) -> Outcome {
    let rule = ext(Rule::Reduce);
    let t = match a.normalize(facts) {
        Shape::Tuple(t) => t,
        Shape::Illegal => return Outcome::illegal(Constraint::False, rule),
        Shape::Unknown => return Outcome::always(Shape::Unknown, rule),
    };
    let d = match dim {
        Some(0) => return Outcome::illegal(Constraint::False, rule),
        Some(d) => d - 1,
        None => {
            let empty00 = is_empty_matrix(&t);
            let special = match empty {
                EmptyReduction::ToScalar => Shape::scalar(),
                EmptyReduction::ToEmpty => Shape::empty(),
            };
            return match facts.ask(&empty00) {
                Truth::Proven => Outcome::always(special, rule),
                // `max` of a 0×0 is what the general rule gives (0 along the 0); `sum`
                // of a `<0,n>` is 1×n, or 1×1 when n is 0: both cases stay open.
                Truth::Unknown if empty == EmptyReduction::ToScalar => {
                    let general =
                        reduce_first_nonsingleton(&t, 0, empty, &facts.with(&empty00.not()), rule);
                    let open = [(empty00.clone(), special), (empty00.not(), general.shape)];
                    let (shape, assume) = super::rules::open_cases(&open, facts);
                    Outcome {
                        assume,
                        ..Outcome::always(shape, rule)
                    }
                }
                _ => reduce_first_nonsingleton(&t, 0, empty, facts, rule),
            };
        }
    };
    if d >= t.rank() {
        // A dimension past the rank is a singleton already: the result is the operand
        // (`sum(x, 1e9)` is x), with no extents built for the dimensions in between.
        return Outcome::always(Shape::Tuple(t), rule);
    }
    let mut v = t.dims().to_vec();
    v[d] = reduced(&v[d], empty);
    Outcome::always(Shape::tuple(v), rule)
}

/// The extent a reduction leaves where it reduces `e`: 1, except that `max`/`min`
/// find nothing along an empty extent and leave it 0 (Octave: `max(zeros(0,3))` is
/// 0×3, `max(zeros(0,3),[],2)` is 0×1).
fn reduced(e: &Dim, empty: EmptyReduction) -> Dim {
    match empty {
        EmptyReduction::ToScalar => Dim::one(),
        EmptyReduction::ToEmpty => Dim::min(e, &Dim::one()),
    }
}

/// A reduction along the first dimension from `from` on that is not 1. An extent that
/// may or may not be 1 leaves two cases open (reduce it, or skip it), and both are kept.
fn reduce_first_nonsingleton(
    t: &ShapeTuple,
    from: usize,
    empty: EmptyReduction,
    facts: &Facts,
    rule: RuleInfo,
) -> Outcome {
    let one = Dim::one();
    let Some(i) =
        (from..t.rank()).find(|&i| !facts.ask(&Constraint::eq(&t.extent(i), &one)).is_proven())
    else {
        // Every extent is 1: a scalar reduces to a scalar.
        return Outcome::always(Shape::Tuple(t.clone()), rule);
    };
    let mut along = t.dims().to_vec();
    along[i] = reduced(&t.extent(i), empty);
    let is_one = Constraint::eq(&t.extent(i), &one);
    // When every later extent is 1, skipping a 1 here reduces nothing, which is what
    // reducing it gives too (`max(y(:))` is min(n,1)×1 for any n).
    let rest_ones =
        (i + 1..t.rank()).all(|j| facts.ask(&Constraint::eq(&t.extent(j), &one)).is_proven());
    if rest_ones || facts.ask(&is_one).is_refuted() {
        return Outcome::always(Shape::tuple(along), rule);
    }
    let skipped = reduce_first_nonsingleton(t, i + 1, empty, &facts.with(&is_one), rule);
    let open = [
        (Constraint::ne(&t.extent(i), &one), Shape::tuple(along)),
        (is_one, skipped.shape),
    ];
    let (shape, assume) = super::rules::open_cases(&open, facts);
    Outcome {
        assume,
        ..Outcome::always(shape, rule)
    }
}

/// `a(args…)`: the shape of an indexing expression. Bounds are value conditions; θ
/// carries them when the subscript values are known and is opaque otherwise.
pub fn index(base: &Shape, args: &[IndexArg], facts: &Facts) -> Outcome {
    let rule = ext(Rule::Index);
    let t = match base.normalize(facts) {
        Shape::Tuple(t) => t,
        Shape::Illegal => return Outcome::illegal(Constraint::False, rule),
        Shape::Unknown => {
            let all_scalar = !args.is_empty()
                && args
                    .iter()
                    .all(|a| matches!(a, IndexArg::Scalar(_) | IndexArg::End(_)));
            let shape = if all_scalar {
                Shape::scalar()
            } else {
                Shape::Unknown
            };
            // Whether the subscripts are in bounds is unknown: a run-time check.
            return Outcome {
                shape,
                theta: Constraint::Opaque(
                    "subscripts within the bounds of an array of unknown shape".into(),
                ),
                status: Truth::Unknown,
                assume: vec![],
                rule,
            };
        }
    };
    let n = args.len();
    let mut assume = Vec::new();
    let shape = match args {
        [] => Shape::Tuple(t.clone()),
        [arg] => linear_index_shape(&t, arg, facts, &mut assume),
        _ => Shape::tuple(
            args.iter()
                .enumerate()
                .map(|(i, a)| a.count(&spanned_extent(&t, i, n)))
                .collect(),
        ),
    };
    let theta = Constraint::and(
        args.iter()
            .enumerate()
            .map(|(i, a)| in_bounds(a, &spanned_extent(&t, i, n))),
    );
    let status = facts.ask(&theta);
    if status.is_refuted() {
        return Outcome::illegal(theta, rule);
    }
    Outcome {
        shape: shape.normalize(facts),
        theta,
        status,
        assume,
        rule,
    }
}

/// `1 ≤ value ≤ extent` for each subscript.
fn in_bounds(a: &IndexArg, extent: &Dim) -> Constraint {
    let within =
        |v: &Dim| Constraint::and([Constraint::le(&Dim::one(), v), Constraint::le(v, extent)]);
    match a {
        IndexArg::Colon => Constraint::True,
        IndexArg::Scalar(Some(v)) => within(v),
        IndexArg::End(k) => within(&extent.add_const(*k)),
        IndexArg::Range { len, max: Some(m) } => {
            Constraint::or([Constraint::eq(len, &Dim::zero()), Constraint::le(m, extent)])
        }
        IndexArg::Array { max: Some(m), .. } => Constraint::le(m, extent),
        // A mask no longer than the extent always fits; a longer one fails exactly when
        // one of its extra elements is true, which only run time knows.
        IndexArg::Logical { mask, .. } => {
            let data = Constraint::Opaque(format!("the mask's true elements within 1..{extent}"));
            match mask.as_tuple() {
                Some(m) => Constraint::or([Constraint::le(&m.numel(), extent), data]),
                None => data,
            }
        }
        IndexArg::Scalar(None)
        | IndexArg::Range { max: None, .. }
        | IndexArg::Array { max: None, .. } => {
            Constraint::Opaque(format!("subscript within 1..{extent}"))
        }
    }
}

/// MATLAB's linear indexing: `a(:)` is a column; a vector indexed by a vector keeps the
/// vector's orientation; otherwise the result has the subscript's shape.
/// `orientation` receives what the result assumes when the base's orientation is open.
fn linear_index_shape(
    t: &ShapeTuple,
    arg: &IndexArg,
    facts: &Facts,
    orientation: &mut Vec<Constraint>,
) -> Shape {
    let idx_shape = match arg {
        IndexArg::Colon => return Shape::tuple(vec![t.numel(), Dim::one()]),
        IndexArg::Scalar(_) | IndexArg::End(_) => return Shape::scalar(),
        IndexArg::Range { len, .. } => Shape::tuple(vec![Dim::one(), len.clone()]),
        IndexArg::Array { shape, .. } => shape.clone(),
        IndexArg::Logical { mask, count } => {
            // a(mask) is a(find(mask)): a row when the mask is a row, else a column.
            let row = match mask.as_tuple() {
                Some(m) => facts.ask(&Constraint::and([
                    super::tuple::beta(m),
                    Constraint::eq(&m.extent(0), &Dim::one()),
                ])),
                None => Truth::Unknown,
            };
            let base_is_vector = t.rank() == 2
                && (0..2).any(|i| {
                    facts
                        .ask(&Constraint::eq(&t.extent(i), &Dim::one()))
                        .is_proven()
                });
            match row {
                Truth::Proven => Shape::tuple(vec![Dim::one(), count.clone()]),
                Truth::Refuted => Shape::tuple(vec![count.clone(), Dim::one()]),
                // A vector keeps its own orientation whatever the mask's (below); a
                // matrix takes the mask's, which is not known.
                Truth::Unknown if base_is_vector => Shape::tuple(vec![count.clone(), Dim::one()]),
                Truth::Unknown => return Shape::Unknown,
            }
        }
    };
    let Some(it) = idx_shape.as_tuple() else {
        return Shape::Unknown;
    };
    let is_one = |d: &Dim| facts.ask(&Constraint::eq(d, &Dim::one())).is_proven();
    let idx_is_vector = it.rank() == 2 && (is_one(&it.extent(0)) || is_one(&it.extent(1)));
    if !idx_is_vector || t.rank() != 2 {
        return idx_shape;
    }
    // A vector indexed by a vector keeps the vector's orientation; anything else
    // (a scalar, a matrix) takes the subscript's shape. Whichever of these the facts
    // leave open stays possible (`v(1:3)` of a vector of unknown orientation).
    let one = Dim::one();
    let (rows_1, cols_1) = (
        Constraint::eq(&t.extent(0), &one),
        Constraint::eq(&t.extent(1), &one),
    );
    let (rows_n, cols_n) = (
        Constraint::ne(&t.extent(0), &one),
        Constraint::ne(&t.extent(1), &one),
    );
    let cases = [
        (
            Constraint::and([rows_1.clone(), cols_n.clone()]),
            Shape::tuple(vec![one.clone(), it.numel()]),
        ),
        (
            Constraint::and([cols_1.clone(), rows_n.clone()]),
            Shape::tuple(vec![it.numel(), one.clone()]),
        ),
        (
            Constraint::and([
                Constraint::or([rows_n, cols_1]),
                Constraint::or([cols_n, rows_1]),
            ]),
            idx_shape,
        ),
    ];
    let open: Vec<(Constraint, Shape)> = cases
        .into_iter()
        .filter(|(g, _)| !facts.ask(g).is_refuted())
        .collect();
    if let Some((_, shape)) = open.iter().find(|(g, _)| facts.ask(g).is_proven()) {
        return shape.clone();
    }
    let (shape, assume) = super::rules::open_cases(&open, facts);
    *orientation = assume;
    shape
}

/// `a(args…) = rhs`, with growth. A proven `[]` right-hand side is a deletion
/// ([`delete_index`]). `fresh` supplies a new extent symbol where growth depends on an
/// unknown subscript value.
pub fn assign_index(
    base: &Shape,
    args: &[IndexArg],
    rhs: &Shape,
    facts: &Facts,
    fresh: &mut dyn FnMut() -> Dim,
) -> Outcome {
    let rule = ext(Rule::AssignIndex);
    if rhs
        .as_tuple()
        .is_some_and(|r| facts.ask(&is_empty_matrix(r)).is_proven())
        && !args.is_empty()
    {
        return delete_index(base, args, facts, fresh);
    }
    let t = match base.normalize(facts) {
        Shape::Illegal => return Outcome::illegal(Constraint::False, rule),
        Shape::Unknown => return Outcome::unknown(rule),
        Shape::Tuple(t) => t,
    };
    // An unknown right-hand side still leaves what is known of the target: its extents
    // grow (or not) by the subscripts alone; only the conformance stays unknown.
    let r = match rhs.normalize(facts) {
        Shape::Illegal => return Outcome::illegal(Constraint::False, rule),
        Shape::Unknown => None,
        Shape::Tuple(r) => Some(r),
    };
    if args.is_empty() {
        return match r {
            Some(r) => Outcome::always(Shape::Tuple(r), rule),
            None => Outcome::unknown(rule),
        };
    }
    let base_empty = facts.ask(&is_empty_matrix(&t)).is_proven();
    let n = args.len();
    if let Some(r) = r.as_ref().filter(|r| r.rank() > n && n >= 2) {
        if base_empty && args.iter().all(|a| *a == IndexArg::Colon) {
            return colons_into_empty(r, n, facts);
        }
    }
    let (new_dims, region, growth) = if n == 1 {
        linear_growth(&t, &args[0], base_empty, facts, fresh)
    } else {
        let mut dims = Vec::new();
        let mut region = Vec::new();
        let scalars_but_one_colon = args.iter().filter(|a| **a == IndexArg::Colon).count() == 1
            && args
                .iter()
                .all(|a| matches!(a, IndexArg::Colon | IndexArg::Scalar(_) | IndexArg::End(_)));
        for (i, a) in args.iter().enumerate() {
            let e = spanned_extent(&t, i, n);
            // A colon over an empty base takes its extent from the right-hand side:
            // all of its elements when the other subscripts pick one position each
            // (`d(:,1) = 1:5` makes d 5×1), else the matching extent (A(:,1) = col).
            let e = match (&r, base_empty && *a == IndexArg::Colon) {
                (Some(r), true) if scalars_but_one_colon => r.numel(),
                (Some(r), true) => r.extent(i),
                (None, true) => fresh(),
                (_, false) => e,
            };
            region.push(a.count(&e));
            dims.push(grown(&e, a, facts, fresh));
        }
        // With fewer subscripts than dimensions, the array grows only where it has no
        // dimension past the subscripts (`C(2,1) = x` on a 1×1×2 C: "attempt to grow
        // array along ambiguous dimension").
        let unambiguous = if n < t.rank() {
            let trailing = (n..t.rank()).fold(Dim::one(), |p, k| p.mul(&t.extent(k)));
            let within = Constraint::and(
                args.iter()
                    .enumerate()
                    .map(|(i, a)| in_bounds(a, &spanned_extent(&t, i, n))),
            );
            Constraint::or([Constraint::eq(&trailing, &Dim::one()), within])
        } else {
            Constraint::True
        };
        if n < t.rank() {
            // The last subscript spans several dimensions: keep them (no growth there).
            dims.truncate(n - 1);
            dims.extend((n - 1..t.rank()).map(|i| t.extent(i)));
        }
        (Some(dims), region, unambiguous)
    };
    let fits = match &r {
        Some(r) => Constraint::or([alpha(r), region_matches(&region, r)]),
        None => Constraint::Opaque("the right-hand side matches the assigned region".into()),
    };
    // Subscripts are positive integers whether or not the array grows (`A(0) = x`
    // and `A(1.5) = x` fail): a subscript whose values are not known leaves that to
    // run time.
    let positive = Constraint::and(args.iter().enumerate().map(|(i, a)| match a {
        IndexArg::Scalar(Some(v)) => Constraint::le(&Dim::one(), v),
        IndexArg::End(k) => Constraint::le(&Dim::one(), &spanned_extent(&t, i, n).add_const(*k)),
        IndexArg::Colon | IndexArg::Logical { .. } => Constraint::True,
        IndexArg::Range { max: Some(_), .. } | IndexArg::Array { max: Some(_), .. } => {
            Constraint::True
        }
        IndexArg::Scalar(None) | IndexArg::Range { max: None, .. } => {
            Constraint::Opaque("the subscript is a positive integer".into())
        }
        IndexArg::Array { max: None, .. } => {
            Constraint::Opaque("the subscripts are positive integers or a logical mask".into())
        }
    }));
    if facts.ask(&positive).is_refuted() {
        return Outcome::illegal(positive, ext(Rule::Subscript));
    }
    if facts.ask(&growth).is_refuted() {
        let rule = if n == 1 {
            Rule::GrowLinear
        } else {
            Rule::GrowAmbiguous
        };
        return Outcome::illegal(growth, ext(rule));
    }
    let growth = Constraint::and([positive, growth]);
    let theta = Constraint::and([growth, fits]);
    let status = facts.ask(&theta);
    if status.is_refuted() {
        return Outcome::illegal(theta, rule);
    }
    let shape = match new_dims {
        Some(d) => Shape::tuple(d).normalize(facts),
        None => Shape::Unknown,
    };
    Outcome {
        shape,
        theta,
        status,
        assume: vec![],
        rule,
    }
}

/// `[](:,…,:) = rhs` with n ≥ 2 colons and a right-hand side of higher rank: MATLAB
/// and Octave take its non-singleton extents in order, padded with 1s to n
/// (`u = []; u(:,:) = v(k,:,:)` with v 51×51×51 is 51×51; 1×1×4 gives 4×1), and fail
/// when more than n are not 1. An extent that may or may not be 1 leaves both the
/// shape and the condition to run time.
fn colons_into_empty(r: &ShapeTuple, n: usize, facts: &Facts) -> Outcome {
    let rule = ext(Rule::AssignIndex);
    let mut kept = Vec::new();
    for d in r.dims() {
        match facts.ask(&Constraint::eq(d, &Dim::one())) {
            Truth::Proven => {}
            Truth::Refuted => kept.push(d.clone()),
            Truth::Unknown => {
                return Outcome {
                    theta: Constraint::Opaque(format!(
                        "at most {n} extents of the right-hand side are not 1"
                    )),
                    ..Outcome::unknown(rule)
                }
            }
        }
    }
    if kept.len() > n {
        return Outcome::illegal(Constraint::False, rule);
    }
    kept.resize(n, Dim::one());
    Outcome::always(Shape::tuple(kept), rule)
}

/// The extent after assigning through subscript `a` into extent `e`.
fn grown(e: &Dim, a: &IndexArg, facts: &Facts, fresh: &mut dyn FnMut() -> Dim) -> Dim {
    match a.max_value(e) {
        None => e.clone(),
        Some(None) => fresh(),
        Some(Some(v)) => match facts.ask(&Constraint::le(&v, e)) {
            Truth::Proven => e.clone(),
            _ if facts.ask(&Constraint::le(e, &v)).is_proven() => v,
            _ => e.max(&v),
        },
    }
}

/// Linear-subscript assignment `A(i) = x`: within `numel(A)` nothing grows; past it,
/// vectors (and `[]`, which becomes a row) grow along their orientation, and any other
/// array fails (MATLAB and Octave: a linear index cannot resize a matrix). Returns the
/// new extents (`None` when they depend on which case holds), the region selected, and
/// the condition for the growth to be legal.
fn linear_growth(
    t: &ShapeTuple,
    a: &IndexArg,
    base_empty: bool,
    facts: &Facts,
    fresh: &mut dyn FnMut() -> Dim,
) -> (Option<Vec<Dim>>, Vec<Dim>, Constraint) {
    let numel = t.numel();
    let region = vec![a.count(&numel)];
    let is_one = |d: &Dim| facts.ask(&Constraint::eq(d, &Dim::one())).is_proven();
    let within = match a.max_value(&numel) {
        None => Constraint::True,
        Some(None) => Constraint::Opaque("the linear subscript is within numel".into()),
        Some(Some(v)) => Constraint::le(&v, &numel),
    };
    if facts.ask(&within).is_proven() {
        return (Some(t.dims().to_vec()), region, Constraint::True);
    }
    if t.rank() == 2 && (base_empty || is_one(&t.extent(0))) {
        let e = if base_empty { Dim::zero() } else { t.extent(1) };
        return (
            Some(vec![Dim::one(), grown(&e, a, facts, fresh)]),
            region,
            Constraint::True,
        );
    }
    // A column grows down only when it has two rows or more: a 1×1 grows into a row
    // (`x = 5; x(3) = 1` is 1×3), and so does a 0×1 in Octave.
    let tall = |d: &Dim| facts.ask(&Constraint::le(&Dim::known(2), d)).is_proven();
    if t.rank() == 2 && is_one(&t.extent(1)) && tall(&t.extent(0)) {
        let dims = vec![grown(&t.extent(0), a, facts, fresh), Dim::one()];
        return (Some(dims), region, Constraint::True);
    }
    // Growth is legal only for a vector (or an empty array, which becomes a row).
    let vector = if t.rank() == 2 {
        Constraint::or([
            Constraint::eq(&t.extent(0), &Dim::one()),
            Constraint::eq(&t.extent(1), &Dim::one()),
            Constraint::eq(&numel, &Dim::zero()),
        ])
    } else {
        Constraint::eq(&numel, &Dim::zero())
    };
    if facts.ask(&vector).is_refuted() {
        // Not a vector: the statement succeeds only within bounds, where nothing grows.
        return (Some(t.dims().to_vec()), region, within);
    }
    let growth = Constraint::or([within, vector]);
    let dims = (t.rank() == 2).then(|| vec![fresh(), fresh()]);
    (dims, region, growth)
}

/// The selected region and the right-hand side agree in their non-singleton extents.
fn region_matches(region: &[Dim], r: &ShapeTuple) -> Constraint {
    let one = Dim::one();
    let squeeze = |v: &[Dim]| -> Vec<Dim> {
        v.iter()
            .filter(|d| d.as_known() != Some(1))
            .cloned()
            .collect()
    };
    let (a, b) = (squeeze(region), squeeze(r.dims()));
    if a.len() == b.len() {
        return Constraint::and(a.iter().zip(&b).map(|(x, y)| Constraint::eq(x, y)));
    }
    // Symbolic extents may be 1: require equal element counts (necessary) and leave the
    // rest to a run-time check, so this is never falsely proven.
    let count = |v: &[Dim]| v.iter().fold(one.clone(), |acc, d| acc.mul(d));
    Constraint::and([
        Constraint::eq(&count(region), &count(r.dims())),
        Constraint::Opaque("non-singleton extents agree".into()),
    ])
}

/// `a(args…) = []`: deletion. A linear subscript leaves a row (a column stays a
/// column); otherwise exactly one subscript may be other than `:`.
pub fn delete_index(
    base: &Shape,
    args: &[IndexArg],
    facts: &Facts,
    fresh: &mut dyn FnMut() -> Dim,
) -> Outcome {
    let rule = ext(Rule::Delete);
    let t = match base.normalize(facts) {
        Shape::Tuple(t) => t,
        Shape::Illegal => return Outcome::illegal(Constraint::False, rule),
        Shape::Unknown => return Outcome::unknown(rule),
    };
    let is_one = |d: &Dim| facts.ask(&Constraint::eq(d, &Dim::one())).is_proven();
    let n = args.len();
    if n == 1 {
        if args[0] == IndexArg::Colon {
            return Outcome::always(Shape::empty(), rule);
        }
        let numel = t.numel();
        let left = remaining(&numel, &args[0], fresh);
        let column = t.rank() == 2 && is_one(&t.extent(1)) && !is_one(&t.extent(0));
        let shape = if column {
            Shape::tuple(vec![left, Dim::one()])
        } else {
            Shape::tuple(vec![Dim::one(), left])
        };
        let theta = in_bounds(&args[0], &numel);
        let status = facts.ask(&theta);
        if status.is_refuted() {
            return Outcome::illegal(theta, rule);
        }
        return Outcome {
            theta,
            status,
            ..Outcome::always(shape.normalize(facts), rule)
        };
    }
    let non_colon: Vec<usize> = (0..n).filter(|&i| args[i] != IndexArg::Colon).collect();
    let mut dims: Vec<Dim> = (0..n).map(|i| spanned_extent(&t, i, n)).collect();
    match non_colon.as_slice() {
        [] => {
            dims[0] = Dim::zero();
            Outcome::always(Shape::tuple(dims), rule)
        }
        [j] => {
            let e = dims[*j].clone();
            dims[*j] = remaining(&e, &args[*j], fresh);
            let mut o = Outcome::always(Shape::tuple(dims).normalize(facts), rule);
            o.theta = in_bounds(&args[*j], &e);
            o.status = facts.ask(&o.theta);
            o
        }
        _ => {
            // Allowed only when the other subscripts happen to cover their dimension.
            let mut o = Outcome::unknown(rule);
            o.theta = Constraint::Opaque("a null assignment has one non-colon subscript".into());
            o
        }
    }
}

/// The extent left after deleting what `a` selects from `e`: exact for subscripts that
/// cannot repeat a position (a scalar, a range, a mask); an array of subscripts may
/// repeat one, so what is left is a fresh extent. Never negative.
fn remaining(e: &Dim, a: &IndexArg, fresh: &mut dyn FnMut() -> Dim) -> Dim {
    match a {
        IndexArg::Array { .. } => fresh(),
        _ => e.sub(&a.count(e)).max0(),
    }
}

/// `reshape(a, e1, …, en)`; `None` is the `[]` placeholder, computed from `numel(a)`.
pub fn reshape(a: &Shape, dims: &[Option<Dim>], facts: &Facts) -> Outcome {
    let rule = ext(Rule::Reshape);
    let t = match a.normalize(facts) {
        Shape::Tuple(t) => t,
        Shape::Illegal => return Outcome::illegal(Constraint::False, rule),
        Shape::Unknown => {
            if dims.iter().all(Option::is_some) {
                let shape = Shape::tuple(dims.iter().flatten().map(Dim::max0).collect());
                let mut o = Outcome::unknown(rule);
                o.shape = shape;
                return o;
            }
            return Outcome::unknown(rule);
        }
    };
    let holes = dims.iter().filter(|d| d.is_none()).count();
    // A size vector needs two or more elements: `reshape(x, 6)` fails.
    if holes > 1 || dims.len() < 2 {
        return Outcome::illegal(Constraint::False, rule);
    }
    let known: Dim = dims.iter().flatten().fold(Dim::one(), |acc, d| acc.mul(d));
    let numel = t.numel();
    let hole = numel.floor_div(&known);
    let out: Vec<Dim> = dims
        .iter()
        .map(|d| d.clone().unwrap_or_else(|| hole.clone()))
        .collect();
    let product = out.iter().fold(Dim::one(), |acc, d| acc.mul(d));
    // Sizes must not be negative: `reshape(1:6, -2, -3)` fails although (-2)(-3) = 6.
    // A `[]` size is numel / (the others' product), which a product of 0 leaves
    // undefined: `reshape(zeros(0,3), 0, [])` fails in MATLAB (Octave gives 0×0), so
    // the other sizes must multiply to at least 1.
    let divisor = (holes == 1).then(|| Constraint::le(&Dim::one(), &known));
    let theta = Constraint::and(
        std::iter::once(Constraint::eq(&numel, &product))
            .chain(divisor)
            .chain(
                dims.iter()
                    .flatten()
                    .map(|d| Constraint::le(&Dim::zero(), d)),
            ),
    );
    decide(vec![case(theta, Shape::tuple(out))], &[0], facts, rule)
}

/// `repmat(a, r1, …, rn)`; one factor `r` means `r×r`.
pub fn repmat(a: &Shape, reps: &[Dim], facts: &Facts) -> Outcome {
    let rule = ext(Rule::Repmat);
    let t = match a.normalize(facts) {
        Shape::Tuple(t) => t,
        Shape::Illegal => return Outcome::illegal(Constraint::False, rule),
        Shape::Unknown => return Outcome::always(Shape::Unknown, rule),
    };
    let reps: Vec<Dim> = match reps {
        [r] => vec![r.clone(), r.clone()],
        rs => rs.to_vec(),
    };
    let m = t.rank().max(reps.len());
    let dims = (0..m)
        .map(|i| {
            let r = reps.get(i).cloned().unwrap_or_else(Dim::one);
            t.extent(i).mul(&r.max0())
        })
        .collect();
    Outcome::always(Shape::tuple(dims), rule)
}

/// `permute(a, order)` with a 1-based `order`: must be a permutation of `1..n`, n ≥ rank.
pub fn permute(a: &Shape, order: &[usize], facts: &Facts) -> Outcome {
    let rule = ext(Rule::Permute);
    let t = match a.normalize(facts) {
        Shape::Tuple(t) => t,
        Shape::Illegal => return Outcome::illegal(Constraint::False, rule),
        Shape::Unknown => return Outcome::always(Shape::Unknown, rule),
    };
    let mut seen = order.to_vec();
    seen.sort_unstable();
    let is_perm = seen.iter().enumerate().all(|(i, &v)| v == i + 1) && order.len() >= 2;
    if !is_perm || order.len() < t.rank() {
        return Outcome::illegal(Constraint::False, rule);
    }
    let dims = order.iter().map(|&o| t.extent(o - 1)).collect();
    Outcome::always(Shape::tuple(dims), rule)
}

/// `cat(dim, a, b, …)` with a 1-based `dim`: generalises vertcat (1) and horzcat (2).
/// A `dim` past [`MAX_RANK`] would make a result of that rank: capped.
pub fn cat(dim: usize, parts: &[Shape], facts: &Facts) -> Outcome {
    if dim == 0 {
        return Outcome::illegal(Constraint::False, ext(Rule::Cat));
    }
    if dim > MAX_RANK {
        return Outcome::capped(&format!(
            "cat along dimension {dim} makes rank {dim}, past the {MAX_RANK} dimensions analysed"
        ));
    }
    fold_cat(dim - 1, parts, facts)
}

/// `a:b` over integer values: a row of `max(b-a+1, 0)` elements (spec §2.9).
pub fn colon(a: &Dim, b: &Dim) -> Outcome {
    let n = b.sub(a).add_const(1).max0();
    Outcome::always(Shape::tuple(vec![Dim::one(), n]), ext(Rule::Colon))
}

/// `a:s:b`: `max(floor((b-a)/s)+1, 0)` elements; a zero step gives an empty row.
pub fn colon_step(a: &Dim, s: &Dim, b: &Dim) -> Outcome {
    let n = match s.as_known() {
        Some(0) => Dim::zero(),
        _ => b.sub(a).floor_div(s).add_const(1).max0(),
    };
    Outcome::always(Shape::tuple(vec![Dim::one(), n]), ext(Rule::Colon))
}

/// The shape after a control-flow merge: equal extents are kept, a differing extent
/// becomes `fresh(i)` (i = 0-based component), a different rank gives ⊤.
pub fn join(a: &Shape, b: &Shape, fresh: &mut dyn FnMut(usize) -> Dim) -> Shape {
    match (a, b) {
        (Shape::Illegal, x) | (x, Shape::Illegal) => x.clone(),
        (Shape::Unknown, _) | (_, Shape::Unknown) => Shape::Unknown,
        (Shape::Tuple(s), Shape::Tuple(t)) if s == t => a.clone(),
        (Shape::Tuple(s), Shape::Tuple(t)) if s.rank() == t.rank() => Shape::tuple(
            s.dims()
                .iter()
                .zip(t.dims())
                .enumerate()
                .map(|(i, (x, y))| if x == y { x.clone() } else { fresh(i) })
                .collect(),
        ),
        _ => Shape::Unknown,
    }
}

/// Loop widening: like [`join`], but `fresh` must return the same symbol for the same
/// (loop, variable, component) so that iteration reaches a fixed point: once an extent
/// has been generalised to that symbol, `widen` returns it unchanged.
pub fn widen(old: &Shape, new: &Shape, fresh: &mut dyn FnMut(usize) -> Dim) -> Shape {
    join(old, new, fresh)
}
