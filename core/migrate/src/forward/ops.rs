//! PyTorch's operations as gradual typing rules: each takes the operands' tensor types
//! and gives the result's, or an error when static dimensions make the operation fail
//! on every run (a `Dyn` is consistent with everything, so it never makes an error).
//! Rules follow PyTorch's documented semantics (broadcasting, `matmul`'s cases,
//! `view`/`reshape` with `-1`, the convolution and pooling output formula).

use crate::consistent::{apply_broadcasting, dim_join};
use crate::gen::Gen;
use crate::modules::layers::{Layer, Padding, Pair};
use crate::types::{Dim, TensorType};
use shapex_dims::{Constraint, Dim as Poly};

/// Why an operation fails for every input its operands' types allow.
pub type OpError = String;

pub type OpResult = Result<TensorType, OpError>;

fn nat(d: Dim) -> Option<i64> {
    d.nat().and_then(|n| i64::try_from(n).ok())
}

fn dim_of(v: Option<i64>) -> Dim {
    match v {
        Some(n) if n >= 0 => Dim::Nat(n as u64),
        _ => Dim::Dyn,
    }
}

/// A dimension index as PyTorch takes it (negative from the end) within `rank`.
pub fn axis(i: i64, rank: usize) -> Option<usize> {
    let r = rank as i64;
    let k = if i < 0 { i + r } else { i };
    (0..r).contains(&k).then_some(k as usize)
}

/// Element-wise operations (`+`, `*`, `torch.add`…) with broadcasting.
pub fn broadcast(g: &mut Gen, a: &TensorType, b: &TensorType) -> OpResult {
    let (TensorType::Tensor(_), TensorType::Tensor(_)) = (a, b) else {
        return Ok(TensorType::Dyn);
    };
    let (x, y) = apply_broadcasting(a, b);
    let (Some(x), Some(y)) = (x.dims(), y.dims()) else {
        return Ok(TensorType::Dyn);
    };
    let mut out = Vec::new();
    for (i, (&p, &q)) in x.iter().zip(y).enumerate() {
        let joined = if matches!(p, Dim::Sym(_)) || matches!(q, Dim::Sym(_)) {
            g.broadcast(p, q)
        } else {
            dim_join(p, q)
        };
        match joined {
            Some(d) => out.push(d),
            None => {
                return Err(format!(
                    "cannot broadcast {a} and {b}: dimension {} is {p} against {q}",
                    i as i64 - x.len() as i64
                ))
            }
        }
    }
    Ok(TensorType::Tensor(out))
}

/// `torch.matmul` / `@`: vectors, matrices and batched products with broadcast batches.
pub fn matmul(g: &mut Gen, a: &TensorType, b: &TensorType) -> OpResult {
    let (Some(x), Some(y)) = (a.dims(), b.dims()) else {
        return Ok(TensorType::Dyn);
    };
    if x.is_empty() || y.is_empty() {
        return Err(format!("matmul of a 0-dimensional tensor ({a} @ {b})"));
    }
    let mut inner = |p: Dim, q: Dim| {
        g.join(p, q, "matmul: the inner dimensions agree")
            .ok_or_else(|| {
                format!("matmul of {a} and {b}: the inner dimensions {p} and {q} differ")
            })
    };
    match (x.len(), y.len()) {
        (1, 1) => inner(x[0], y[0]).map(|_| TensorType::Tensor(Vec::new())),
        (2, 1) => inner(x[1], y[0]).map(|_| TensorType::Tensor(vec![x[0]])),
        (1, 2) => inner(x[0], y[0]).map(|_| TensorType::Tensor(vec![y[1]])),
        (n, m) => {
            let (xb, xm) = if n == 1 {
                (&[][..], vec![Dim::Nat(1), x[0]])
            } else {
                (&x[..n - 2], x[n - 2..].to_vec())
            };
            let (yb, ym) = if m == 1 {
                (&[][..], vec![y[0], Dim::Nat(1)])
            } else {
                (&y[..m - 2], y[m - 2..].to_vec())
            };
            inner(xm[1], ym[0])?;
            let batch = broadcast(
                g,
                &TensorType::Tensor(xb.to_vec()),
                &TensorType::Tensor(yb.to_vec()),
            )
            .map_err(|e| format!("matmul batch dimensions: {e}"))?;
            let mut out = batch.dims().map(<[Dim]>::to_vec).unwrap_or_default();
            if n > 1 {
                out.push(xm[0]);
            }
            if m > 1 {
                out.push(ym[1]);
            }
            Ok(TensorType::Tensor(out))
        }
    }
}

/// `torch.bmm`: (b, n, k) × (b, k, m) → (b, n, m), exactly rank 3.
pub fn bmm(g: &mut Gen, a: &TensorType, b: &TensorType) -> OpResult {
    let x = rank_n(a, 3, "bmm's first operand")?;
    let y = rank_n(b, 3, "bmm's second operand")?;
    let batch = g
        .join(x[0], y[0], "bmm: the batch sizes agree")
        .ok_or_else(|| {
            format!(
                "bmm of {a} and {b}: batch sizes {} and {} differ",
                x[0], y[0]
            )
        })?;
    g.join(x[2], y[1], "bmm: the inner dimensions agree")
        .ok_or_else(|| {
            format!(
                "bmm of {a} and {b}: the inner dimensions {} and {} differ",
                x[2], y[1]
            )
        })?;
    Ok(TensorType::tensor([batch, x[1], y[2]]))
}

/// The dimensions of `t` if it may have rank `n` (a whole `Dyn` gives `n` Dyns).
fn rank_n(t: &TensorType, n: usize, what: &str) -> Result<Vec<Dim>, OpError> {
    match t.dims() {
        None => Ok(vec![Dim::Dyn; n]),
        Some(d) if d.len() == n => Ok(d.to_vec()),
        Some(d) => Err(format!(
            "{what} must have {n} dimensions, but {t} has {}",
            d.len()
        )),
    }
}

/// A size argument (`view(b, -1, h, d)`): a number, an unknown of constraint
/// generation (`b = x.size(0)` over a skeleton), or not known.
#[derive(Clone, Debug, PartialEq)]
pub enum Size {
    Known(i64),
    Sym(Poly),
    Unknown,
}

impl Size {
    pub fn known(&self) -> Option<i64> {
        match self {
            Size::Known(n) => Some(*n),
            _ => None,
        }
    }
}

/// The product of dimensions as one dimension: `Dyn` when one is.
fn product(g: &mut Gen, ds: &[Dim]) -> Dim {
    let mut p = Poly::one();
    for d in ds {
        match g.poly(*d) {
            Some(x) => p = p.mul(&x),
            None => return Dim::Dyn,
        }
    }
    g.dim(p)
}

/// `view`/`reshape` when unknowns are involved and every size is a number or an
/// unknown: the element counts agree (`∏ in = ∏ target`), or with a `-1`, the known
/// target's product divides the input's (a fresh quotient `q` with `∏ in = q·∏ known`),
/// `q` being the `-1`'s size.
fn reshape_symbolic(g: &mut Gen, t: &TensorType, target: &[Size]) -> Option<OpResult> {
    let ds = t.dims()?;
    let involved = ds.iter().any(|d| matches!(d, Dim::Sym(_)))
        || target.iter().any(|s| matches!(s, Size::Sym(_)));
    if !involved {
        return None;
    }
    let input: Option<Vec<Poly>> = ds.iter().map(|d| g.poly(*d)).collect();
    let mut known = Poly::one();
    let mut out = Vec::new();
    let mut minus = None;
    for (i, s) in target.iter().enumerate() {
        match s {
            Size::Known(-1) if minus.is_none() => {
                minus = Some(i);
                out.push(Dim::Dyn);
            }
            Size::Known(n) if *n >= 0 => {
                known = known.mul(&Poly::known(*n));
                out.push(Dim::Nat(*n as u64));
            }
            Size::Sym(p) => {
                known = known.mul(p);
                out.push(g.dim(p.clone()));
            }
            _ => return None,
        }
    }
    let Some(input) = input else {
        return Some(Ok(TensorType::Tensor(out)));
    };
    let all = input.iter().fold(Poly::one(), |acc, p| acc.mul(p));
    match minus {
        None => g.require(
            Constraint::eq(&all, &known),
            "view/reshape: the element counts agree",
        ),
        // The quotient is a polynomial (`256·b·s / (256·b)` is `s`): no new unknown.
        Some(i) if all.floor_div(&known).mul(&known) == all => {
            g.require(
                Constraint::le(&Poly::one(), &known),
                "view/reshape: the other sizes are not 0",
            );
            out[i] = g.dim(all.floor_div(&known));
        }
        Some(i) => {
            let q = g.fresh();
            g.require(
                Constraint::and([
                    Constraint::eq(&all, &q.mul(&known)),
                    Constraint::le(&Poly::one(), &known),
                ]),
                "view/reshape: the other sizes divide the element count",
            );
            out[i] = g.dim(q);
        }
    }
    Some(Ok(TensorType::Tensor(out)))
}

/// `view` / `reshape`: the target's sizes (each known, unknown, or `-1` once).
pub fn reshape(g: &mut Gen, t: &TensorType, sizes: &[Size]) -> OpResult {
    if g.is_active() {
        if let Some(r) = reshape_symbolic(g, t, sizes) {
            return r;
        }
    }
    let target: Vec<Option<i64>> = sizes.iter().map(Size::known).collect();
    let target = &target[..];
    let minus = target.iter().filter(|d| **d == Some(-1)).count();
    if minus > 1 {
        return Err("view/reshape: only one dimension can be -1".into());
    }
    if let Some(bad) = target.iter().flatten().find(|&&d| d < -1) {
        return Err(format!("view/reshape: invalid size {bad}"));
    }
    let known_target: Option<u128> = target
        .iter()
        .filter(|d| **d != Some(-1))
        .map(|d| d.map(|n| n as u128))
        .try_fold(1u128, |acc, d| d.and_then(|n| acc.checked_mul(n)));
    let input: Option<u128> = t.dims().and_then(|ds| {
        ds.iter().try_fold(1u128, |acc, d| {
            d.nat().and_then(|n| acc.checked_mul(u128::from(n)))
        })
    });
    let mut out: Vec<Dim> = target
        .iter()
        .map(|d| match d {
            Some(-1) | None => Dim::Dyn,
            Some(n) => Dim::Nat(*n as u64),
        })
        .collect();
    if let (Some(n), Some(k)) = (input, known_target) {
        if minus == 0 && n != k {
            return Err(format!(
                "cannot view {t} ({n} elements) as {} ({k} elements)",
                show(target)
            ));
        }
        if minus == 1 {
            if k == 0 || n % k != 0 {
                return Err(format!(
                    "cannot view {t} ({n} elements) as {}: {k} does not divide {n}",
                    show(target)
                ));
            }
            if let Some(i) = target.iter().position(|d| *d == Some(-1)) {
                out[i] = Dim::Nat((n / k) as u64);
            }
        }
    }
    Ok(TensorType::Tensor(out))
}

fn show(target: &[Option<i64>]) -> String {
    let parts: Vec<String> = target
        .iter()
        .map(|d| d.map_or("?".to_string(), |n| n.to_string()))
        .collect();
    format!("({})", parts.join(", "))
}

/// `torch.flatten(t, start, end)`.
pub fn flatten(g: &mut Gen, t: &TensorType, start: i64, end: i64) -> OpResult {
    let Some(ds) = t.dims() else {
        return Ok(TensorType::Dyn);
    };
    if ds.is_empty() {
        return Ok(TensorType::tensor([Dim::Nat(1)]));
    }
    let (Some(s), Some(e)) = (axis(start, ds.len()), axis(end, ds.len())) else {
        return Err(format!(
            "flatten({start}, {end}) of {t}: dimension out of range"
        ));
    };
    if s > e {
        return Err(format!(
            "flatten of {t}: start {start} comes after end {end}"
        ));
    }
    let merged = ds[s..=e]
        .iter()
        .try_fold(1u64, |acc, d| d.nat().and_then(|n| acc.checked_mul(n)))
        .map_or_else(|| product(g, &ds[s..=e]), Dim::Nat);
    let mut out = ds[..s].to_vec();
    out.push(merged);
    out.extend_from_slice(&ds[e + 1..]);
    Ok(TensorType::Tensor(out))
}

pub fn transpose(t: &TensorType, a: i64, b: i64) -> OpResult {
    let Some(ds) = t.dims() else {
        return Ok(TensorType::Dyn);
    };
    let (Some(i), Some(j)) = (axis(a, ds.len()), axis(b, ds.len())) else {
        return Err(format!(
            "transpose({a}, {b}) of {t}: dimension out of range"
        ));
    };
    let mut out = ds.to_vec();
    out.swap(i, j);
    Ok(TensorType::Tensor(out))
}

pub fn permute(t: &TensorType, order: &[i64]) -> OpResult {
    let Some(ds) = t.dims() else {
        return Ok(TensorType::Dyn);
    };
    if order.len() != ds.len() {
        return Err(format!(
            "permute of {t} needs {} dimensions, got {}",
            ds.len(),
            order.len()
        ));
    }
    let idx: Option<Vec<usize>> = order.iter().map(|&i| axis(i, ds.len())).collect();
    match idx {
        Some(idx) => Ok(TensorType::Tensor(idx.iter().map(|&i| ds[i]).collect())),
        None => Err(format!("permute of {t}: dimension out of range")),
    }
}

/// `torch.cat(tensors, dim)`.
pub fn cat(g: &mut Gen, ts: &[TensorType], dim: i64) -> OpResult {
    let Some(first) = ts.iter().find_map(|t| t.dims()) else {
        return Ok(TensorType::Dyn);
    };
    let rank = first.len();
    let Some(d) = axis(dim, rank) else {
        return Err(format!("cat along dimension {dim} of rank-{rank} tensors"));
    };
    let mut out = first.to_vec();
    out[d] = Dim::Nat(0);
    for t in ts {
        let Some(ds) = t.dims() else {
            out[d] = Dim::Dyn;
            continue;
        };
        if ds.len() != rank {
            return Err(format!("cat of tensors of ranks {rank} and {}", ds.len()));
        }
        for (i, (&o, &x)) in out.clone().iter().zip(ds).enumerate() {
            if i == d {
                out[i] = match (g.poly(o), g.poly(x)) {
                    (Some(p), Some(q)) => g.dim(p.add(&q)),
                    _ => Dim::Dyn,
                };
            } else {
                out[i] = g
                    .join(o, x, "cat: the other dimensions agree")
                    .ok_or_else(|| {
                        format!("cat: dimension {i} is {o} in one tensor and {x} in another")
                    })?;
            }
        }
    }
    Ok(TensorType::Tensor(out))
}

/// A reduction (`mean`, `sum`, `amax`) over `dim` (`None`: every dimension).
pub fn reduce(t: &TensorType, dim: Option<i64>, keepdim: bool) -> OpResult {
    let Some(ds) = t.dims() else {
        return Ok(TensorType::Dyn);
    };
    let Some(dim) = dim else {
        return Ok(TensorType::Tensor(if keepdim {
            vec![Dim::Nat(1); ds.len()]
        } else {
            Vec::new()
        }));
    };
    let Some(i) = axis(dim, ds.len()) else {
        return Err(format!(
            "reduction over dimension {dim} of {t}: out of range"
        ));
    };
    let mut out = ds.to_vec();
    if keepdim {
        out[i] = Dim::Nat(1);
    } else {
        out.remove(i);
    }
    Ok(TensorType::Tensor(out))
}

/// `expand(*sizes)`: `-1` keeps a dimension, a new size may only replace a 1, and new
/// leading dimensions may be added.
pub fn expand(t: &TensorType, sizes: &[Option<i64>]) -> OpResult {
    let Some(ds) = t.dims() else {
        return Ok(TensorType::Tensor(
            sizes
                .iter()
                .map(|s| dim_of(s.filter(|n| *n >= 0)))
                .collect(),
        ));
    };
    if sizes.len() < ds.len() {
        return Err(format!(
            "expand of {t} to {} sizes: fewer than its {} dimensions",
            sizes.len(),
            ds.len()
        ));
    }
    let lead = sizes.len() - ds.len();
    let mut out = Vec::new();
    for (i, s) in sizes.iter().enumerate() {
        let old = if i >= lead { Some(ds[i - lead]) } else { None };
        out.push(match (s, old) {
            (Some(-1), Some(d)) => d,
            (Some(n), Some(d)) if *n >= 0 => match d.nat() {
                Some(m) if m != 1 && m as i64 != *n => {
                    return Err(format!(
                        "expand of {t}: dimension {i} is {m}, not 1, and cannot become {n}"
                    ))
                }
                _ => Dim::Nat(*n as u64),
            },
            (None, Some(Dim::Nat(1))) => Dim::Dyn,
            (None, Some(d)) => d,
            (Some(n), None) if *n >= 0 => Dim::Nat(*n as u64),
            _ => Dim::Dyn,
        });
    }
    Ok(TensorType::Tensor(out))
}

/// One side of an einops pattern: groups of axis names (`b (h w) c` is `[b], [h, w],
/// [c]`); `None` for what this reading does not take (`...`, anonymous axes, numbers).
fn einops_side(side: &str) -> Option<Vec<Vec<String>>> {
    let mut groups = Vec::new();
    let mut open: Option<Vec<String>> = None;
    let spaced = side.replace('(', " ( ").replace(')', " ) ");
    for tok in spaced.split_whitespace() {
        match tok {
            "(" if open.is_none() => open = Some(Vec::new()),
            ")" => groups.push(open.take()?),
            "(" | "..." | "_" => return None,
            name if name.chars().all(|c| c.is_alphanumeric() || c == '_')
                && !name.chars().next()?.is_ascii_digit() =>
            {
                match &mut open {
                    Some(g) => g.push(name.to_string()),
                    None => groups.push(vec![name.to_string()]),
                }
            }
            _ => return None,
        }
    }
    open.is_none().then_some(groups)
}

/// einops' `rearrange`: axis sizes come from the input's dimensions and the keyword
/// sizes; each output group is the product of its axes. What this reading does not
/// take, or a rank that does not match the pattern, gives `Dyn` (never an error).
pub fn rearrange(t: &TensorType, pattern: &str, given: &[(String, Option<i64>)]) -> TensorType {
    let Some((left, right)) = pattern.split_once("->") else {
        return TensorType::Dyn;
    };
    let (Some(left), Some(right)) = (einops_side(left), einops_side(right)) else {
        return TensorType::Dyn;
    };
    let Some(ds) = t.dims() else {
        return TensorType::Dyn;
    };
    if ds.len() != left.len() {
        return TensorType::Dyn;
    }
    let mut size: std::collections::BTreeMap<String, Option<u64>> = given
        .iter()
        .map(|(k, v)| (k.clone(), v.filter(|n| *n >= 0).map(|n| n as u64)))
        .collect();
    for (group, d) in left.iter().zip(ds) {
        match group.as_slice() {
            [one] => {
                size.entry(one.clone()).or_insert(d.nat());
            }
            many => {
                // One unknown axis of a group is the dimension over the others' product.
                let known: Option<u64> = many
                    .iter()
                    .filter(|a| size.get(*a).copied().flatten().is_some())
                    .map(|a| size[a].unwrap_or(1))
                    .try_fold(1u64, |acc, n| acc.checked_mul(n));
                let missing: Vec<&String> = many
                    .iter()
                    .filter(|a| size.get(*a).copied().flatten().is_none())
                    .collect();
                if let ([m], Some(k), Some(n)) = (missing.as_slice(), known, d.nat()) {
                    if k > 0 && n % k == 0 {
                        size.insert((*m).clone(), Some(n / k));
                    }
                }
            }
        }
    }
    TensorType::Tensor(
        right
            .iter()
            .map(|g| {
                g.iter()
                    .try_fold(1u64, |acc, a| {
                        size.get(a)
                            .copied()
                            .flatten()
                            .and_then(|n| acc.checked_mul(n))
                    })
                    .map_or(Dim::Dyn, Dim::Nat)
            })
            .collect(),
    )
}

/// `torch.einsum(spec, *operands)`: each output letter takes the size its operands give
/// it (a static one where any has it). `...`, a rank not matching the letters, or two
/// static sizes for one letter give `Dyn`, never an error.
pub fn einsum(spec: &str, operands: &[TensorType]) -> TensorType {
    let spec: String = spec.chars().filter(|c| !c.is_whitespace()).collect();
    if spec.contains("...") {
        return TensorType::Dyn;
    }
    let (inputs, output) = match spec.split_once("->") {
        Some((i, o)) => (i.to_string(), o.to_string()),
        None => return TensorType::Dyn,
    };
    let inputs: Vec<&str> = inputs.split(',').collect();
    if inputs.len() != operands.len() {
        return TensorType::Dyn;
    }
    let mut size: std::collections::BTreeMap<char, Dim> = Default::default();
    for (letters, t) in inputs.iter().zip(operands) {
        let Some(ds) = t.dims() else { continue };
        if ds.len() != letters.chars().count() {
            return TensorType::Dyn;
        }
        for (c, d) in letters.chars().zip(ds) {
            let joined = match size.get(&c) {
                None => Some(*d),
                Some(old) => dim_join(*old, *d),
            };
            match joined {
                Some(j) => {
                    size.insert(c, j);
                }
                None => return TensorType::Dyn,
            }
        }
    }
    TensorType::Tensor(
        output
            .chars()
            .map(|c| size.get(&c).copied().unwrap_or(Dim::Dyn))
            .collect(),
    )
}

pub fn unsqueeze(t: &TensorType, dim: i64) -> OpResult {
    let Some(ds) = t.dims() else {
        return Ok(TensorType::Dyn);
    };
    let Some(i) = axis(dim, ds.len() + 1) else {
        return Err(format!("unsqueeze({dim}) of {t}: out of range"));
    };
    let mut out = ds.to_vec();
    out.insert(i, Dim::Nat(1));
    Ok(TensorType::Tensor(out))
}

/// The spatial output size of a convolution or pooling window, PyTorch's formula
/// `⌊(H + 2p − d(k − 1) − 1)/s⌋ + 1` (`⌈…⌉` with `ceil_mode`); `Err` when it is below 1.
fn window(
    g: &mut Gen,
    h: Dim,
    k: Option<i64>,
    s: Option<i64>,
    p: Option<i64>,
    d: Option<i64>,
    ceil: bool,
) -> Result<Dim, String> {
    if let (Dim::Sym(_), Some(k), Some(s), Some(p), Some(d)) = (h, k, s, p, d) {
        if s > 0 && k > 0 && d > 0 && p >= 0 {
            return Ok(window_symbolic(g, h, k, s, p, d, ceil));
        }
    }
    let (Some(h), Some(k), Some(s), Some(p), Some(d)) = (nat(h), k, s, p, d) else {
        return Ok(Dim::Dyn);
    };
    if s <= 0 || k <= 0 || d <= 0 || p < 0 {
        return Ok(Dim::Dyn);
    }
    let span = h + 2 * p - d * (k - 1) - 1;
    if span < 0 {
        return Err(format!(
            "the window ({k} with dilation {d}) is larger than the padded input ({h} + 2·{p})"
        ));
    }
    let mut out = span / s + 1;
    if ceil && span % s != 0 {
        out += 1;
        // PyTorch: the last window must start inside the input or left padding.
        if (out - 1) * s >= h + p {
            out -= 1;
        }
    }
    Ok(Dim::Nat(out as u64))
}

/// [`window`] over an unknown `h`: the window fits the padded input
/// (`h + 2p − d(k − 1) − 1 ≥ 0`), and the output is the formula's floor (with
/// `ceil_mode`, only the first requirement: the size is left `Dyn`).
fn window_symbolic(g: &mut Gen, h: Dim, k: i64, s: i64, p: i64, d: i64, ceil: bool) -> Dim {
    let Some(x) = g.poly(h) else {
        return Dim::Dyn;
    };
    let span = x.add_const(2 * p - d * (k - 1) - 1);
    g.require(
        Constraint::le(&Poly::zero(), &span),
        format!("the window ({k} with dilation {d}) fits the padded input"),
    );
    if ceil {
        return Dim::Dyn;
    }
    let out = span.floor_div(&Poly::known(s)).add_const(1);
    if out.as_atom().is_some() {
        return g.dim(out);
    }
    // A name of its own keeps later products factored (`8·o1·o2 == 27`), which the
    // solver decides by divisors; an expanded polynomial it could only search.
    let o = g.fresh();
    g.require(Constraint::eq(&o, &out), "the window's output size");
    g.dim(o)
}

/// A dimension that must be `want` (a layer's channels or features): an error when
/// it is a different number, a requirement when it is an unknown.
fn expect(g: &mut Gen, d: Dim, want: Option<i64>, what: &str) -> Result<(), ()> {
    let Some(w) = want.filter(|w| *w >= 0) else {
        return Ok(());
    };
    match g.join(d, Dim::Nat(w as u64), what) {
        Some(_) => Ok(()),
        None => Err(()),
    }
}

/// The type a layer's `forward` gives its input.
pub fn layer(g: &mut Gen, l: &Layer, t: &TensorType) -> OpResult {
    match l {
        Layer::Pointwise(_) => Ok(t.clone()),
        Layer::Rearrange { pattern, sizes } => Ok(rearrange(t, pattern, sizes)),
        Layer::Other(_) | Layer::Sequential(_) | Layer::ModuleList(_) => Ok(TensorType::Dyn),
        Layer::Conv2d {
            in_channels,
            out_channels,
            kernel,
            stride,
            padding,
            dilation,
            ..
        } => {
            let Some(ds) = spatial(t, "Conv2d")? else {
                return Ok(TensorType::Dyn);
            };
            let c = ds[ds.len() - 3];
            if expect(g, c, *in_channels, "Conv2d: the input channels").is_err() {
                return Err(format!(
                    "Conv2d expects {} input channels, but {t} has {c}",
                    in_channels.unwrap_or(0)
                ));
            }
            let (ph, pw) = match padding {
                Padding::Explicit(p) => *p,
                Padding::Valid => (Some(0), Some(0)),
                Padding::Same => {
                    let mut out = ds.to_vec();
                    let n = out.len();
                    out[n - 3] = dim_of(*out_channels);
                    return Ok(TensorType::Tensor(out));
                }
            };
            let mut out = ds.to_vec();
            let n = out.len();
            out[n - 3] = dim_of(*out_channels);
            out[n - 2] = window(g, ds[n - 2], kernel.0, stride.0, ph, dilation.0, false)
                .map_err(|e| format!("Conv2d on {t}: {e}"))?;
            out[n - 1] = window(g, ds[n - 1], kernel.1, stride.1, pw, dilation.1, false)
                .map_err(|e| format!("Conv2d on {t}: {e}"))?;
            Ok(TensorType::Tensor(out))
        }
        Layer::ConvTranspose2d {
            in_channels,
            out_channels,
            kernel,
            stride,
            padding,
            output_padding,
            dilation,
        } => {
            let Some(ds) = spatial(t, "ConvTranspose2d")? else {
                return Ok(TensorType::Dyn);
            };
            let n = ds.len();
            if expect(
                g,
                ds[n - 3],
                *in_channels,
                "ConvTranspose2d: the input channels",
            )
            .is_err()
            {
                return Err(format!(
                    "ConvTranspose2d expects {} input channels, but {t} has {}",
                    in_channels.unwrap_or(0),
                    ds[n - 3]
                ));
            }
            // PyTorch: (H − 1)·s − 2p + d(k − 1) + output_padding + 1.
            let up = |h: Dim,
                      k: Option<i64>,
                      s: Option<i64>,
                      p: Option<i64>,
                      o: Option<i64>,
                      d: Option<i64>| {
                match (nat(h), k, s, p, o, d) {
                    (Some(h), Some(k), Some(s), Some(p), Some(o), Some(d)) if h >= 1 => {
                        let out = (h - 1) * s - 2 * p + d * (k - 1) + o + 1;
                        dim_of((out >= 1).then_some(out))
                    }
                    _ => Dim::Dyn,
                }
            };
            let mut out = ds.to_vec();
            out[n - 3] = dim_of(*out_channels);
            out[n - 2] = up(
                ds[n - 2],
                kernel.0,
                stride.0,
                padding.0,
                output_padding.0,
                dilation.0,
            );
            out[n - 1] = up(
                ds[n - 1],
                kernel.1,
                stride.1,
                padding.1,
                output_padding.1,
                dilation.1,
            );
            Ok(TensorType::Tensor(out))
        }
        Layer::MaxPool2d {
            kernel,
            stride,
            padding,
            dilation,
            ceil_mode,
        } => pool(
            g,
            t,
            "MaxPool2d",
            *kernel,
            *stride,
            *padding,
            *dilation,
            ceil_mode.unwrap_or(false),
        ),
        Layer::AvgPool2d {
            kernel,
            stride,
            padding,
            ceil_mode,
        } => pool(
            g,
            t,
            "AvgPool2d",
            *kernel,
            *stride,
            *padding,
            (Some(1), Some(1)),
            ceil_mode.unwrap_or(false),
        ),
        Layer::AdaptivePool2d { output } => {
            let Some(ds) = spatial(t, "adaptive pooling")? else {
                return Ok(TensorType::Dyn);
            };
            let mut out = ds.to_vec();
            let n = out.len();
            for (i, o) in [(n - 2, output.0), (n - 1, output.1)] {
                match o {
                    Some(Some(k)) => out[i] = dim_of(Some(k)),
                    Some(None) => {}
                    None => out[i] = Dim::Dyn,
                }
            }
            Ok(TensorType::Tensor(out))
        }
        Layer::Linear {
            in_features,
            out_features,
        } => {
            let Some(ds) = t.dims() else {
                return Ok(TensorType::Dyn);
            };
            let Some(&last) = ds.last() else {
                return Err(format!("Linear of a 0-dimensional tensor {t}"));
            };
            if expect(g, last, *in_features, "Linear: the input features").is_err() {
                return Err(format!(
                    "Linear expects {} input features, but {t} has {last}",
                    in_features.unwrap_or(0)
                ));
            }
            let mut out = ds.to_vec();
            let n = out.len();
            out[n - 1] = dim_of(*out_features);
            Ok(TensorType::Tensor(out))
        }
        Layer::BatchNorm2d { num_features } => norm(g, t, 4, 4, *num_features, "BatchNorm2d"),
        Layer::BatchNorm1d { num_features } => norm(g, t, 2, 3, *num_features, "BatchNorm1d"),
        Layer::LayerNorm { normalized_shape } => {
            let (Some(ds), Some(shape)) = (t.dims(), normalized_shape) else {
                return Ok(t.clone());
            };
            if shape.len() > ds.len() {
                return Err(format!(
                    "LayerNorm over {shape:?} of {t}: too few dimensions"
                ));
            }
            for (d, want) in ds[ds.len() - shape.len()..].iter().zip(shape) {
                if expect(g, *d, Some(*want), "LayerNorm: the normalised sizes").is_err() {
                    return Err(format!(
                        "LayerNorm over {shape:?}, but {t} ends in other sizes"
                    ));
                }
            }
            Ok(t.clone())
        }
        Layer::Embedding { embedding_dim, .. } => match t.dims() {
            Some(ds) => {
                let mut out = ds.to_vec();
                out.push(dim_of(*embedding_dim));
                Ok(TensorType::Tensor(out))
            }
            None => Ok(TensorType::Dyn),
        },
        Layer::Flatten { start_dim, end_dim } => match (start_dim, end_dim) {
            (Some(s), Some(e)) => flatten(g, t, *s, *e),
            _ => Ok(TensorType::Dyn),
        },
    }
}

/// A 2-D spatial input: rank 4 (batched) or 3 (unbatched), as PyTorch accepts both.
fn spatial<'t>(t: &'t TensorType, what: &str) -> Result<Option<&'t [Dim]>, OpError> {
    match t.dims() {
        None => Ok(None),
        Some(ds) if ds.len() == 3 || ds.len() == 4 => Ok(Some(ds)),
        Some(ds) => Err(format!(
            "{what} expects a 3- or 4-dimensional input, but {t} has {} dimensions",
            ds.len()
        )),
    }
}

#[allow(clippy::too_many_arguments)]
fn pool(
    g: &mut Gen,
    t: &TensorType,
    what: &str,
    k: Pair,
    s: Pair,
    p: Pair,
    d: Pair,
    ceil: bool,
) -> OpResult {
    let Some(ds) = spatial(t, what)? else {
        return Ok(TensorType::Dyn);
    };
    let mut out = ds.to_vec();
    let n = out.len();
    out[n - 2] = window(g, ds[n - 2], k.0, s.0, p.0, d.0, ceil)
        .map_err(|e| format!("{what} on {t}: {e}"))?;
    out[n - 1] = window(g, ds[n - 1], k.1, s.1, p.1, d.1, ceil)
        .map_err(|e| format!("{what} on {t}: {e}"))?;
    Ok(TensorType::Tensor(out))
}

fn norm(
    g: &mut Gen,
    t: &TensorType,
    low: usize,
    high: usize,
    features: Option<i64>,
    what: &str,
) -> OpResult {
    let Some(ds) = t.dims() else {
        return Ok(TensorType::Dyn);
    };
    if ds.len() < low || ds.len() > high {
        return Err(format!(
            "{what} expects a {low}{}-dimensional input, but {t} has {}",
            if low == high {
                String::new()
            } else {
                format!("- to {high}")
            },
            ds.len()
        ));
    }
    if expect(g, ds[1], features, "batch norm: the channels").is_err() {
        return Err(format!(
            "{what} expects {} channels, but {t} has {}",
            features.unwrap_or(0),
            ds[1]
        ));
    }
    Ok(t.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ds: &[u64]) -> TensorType {
        TensorType::of(ds)
    }

    fn k(sizes: &[i64]) -> Vec<Size> {
        sizes.iter().map(|n| Size::Known(*n)).collect()
    }

    #[test]
    fn conv_and_pool_follow_pytorchs_formula() {
        let conv = Layer::Conv2d {
            in_channels: Some(3),
            out_channels: Some(64),
            kernel: (Some(7), Some(7)),
            stride: (Some(2), Some(2)),
            padding: Padding::Explicit((Some(3), Some(3))),
            dilation: (Some(1), Some(1)),
            groups: Some(1),
        };
        assert_eq!(
            layer(&mut Gen::inert(), &conv, &t(&[2, 3, 224, 224])),
            Ok(t(&[2, 64, 112, 112]))
        );
        assert!(layer(&mut Gen::inert(), &conv, &t(&[2, 4, 224, 224])).is_err());
        let pool = Layer::MaxPool2d {
            kernel: (Some(3), Some(3)),
            stride: (Some(2), Some(2)),
            padding: (Some(1), Some(1)),
            dilation: (Some(1), Some(1)),
            ceil_mode: Some(false),
        };
        assert_eq!(
            layer(&mut Gen::inert(), &pool, &t(&[2, 64, 112, 112])),
            Ok(t(&[2, 64, 56, 56]))
        );
        // AlexNet: 227 → conv 11/4 → 55.
        let alex = Layer::Conv2d {
            in_channels: Some(3),
            out_channels: Some(96),
            kernel: (Some(11), Some(11)),
            stride: (Some(4), Some(4)),
            padding: Padding::Explicit((Some(0), Some(0))),
            dilation: (Some(1), Some(1)),
            groups: Some(1),
        };
        assert_eq!(
            layer(&mut Gen::inert(), &alex, &t(&[10, 3, 227, 227])),
            Ok(t(&[10, 96, 55, 55]))
        );
    }

    #[test]
    fn views_broadcasts_and_products() {
        assert_eq!(
            reshape(&mut Gen::inert(), &t(&[2, 3, 4]), &k(&[-1, 4])),
            Ok(t(&[6, 4]))
        );
        assert!(reshape(&mut Gen::inert(), &t(&[2, 3, 4]), &k(&[5, -1])).is_err());
        assert!(reshape(&mut Gen::inert(), &t(&[2, 3]), &k(&[7])).is_err());
        assert_eq!(
            reshape(
                &mut Gen::inert(),
                &TensorType::tensor([Dim::Dyn, Dim::Nat(3)]),
                &k(&[-1])
            ),
            Ok(TensorType::tensor([Dim::Dyn]))
        );
        assert_eq!(
            broadcast(&mut Gen::inert(), &t(&[4, 1, 3]), &t(&[5, 1])),
            Ok(t(&[4, 5, 3]))
        );
        assert!(broadcast(&mut Gen::inert(), &t(&[4, 3]), &t(&[5, 3])).is_err());
        assert_eq!(
            matmul(&mut Gen::inert(), &t(&[7, 2, 3]), &t(&[3, 4])),
            Ok(t(&[7, 2, 4]))
        );
        assert!(matmul(&mut Gen::inert(), &t(&[2, 3]), &t(&[4, 5])).is_err());
        assert!(
            bmm(&mut Gen::inert(), &t(&[2, 3, 4]), &t(&[3, 4, 5])).is_err(),
            "the paper's BmmExample"
        );
        assert_eq!(
            flatten(&mut Gen::inert(), &t(&[2, 512, 1, 1]), 1, -1),
            Ok(t(&[2, 512]))
        );
        assert_eq!(
            cat(&mut Gen::inert(), &[t(&[2, 3]), t(&[2, 5])], 1),
            Ok(t(&[2, 8]))
        );
        // einops and einsum as ViT code writes them.
        let img = t(&[8, 3, 32, 32]);
        let given = [("p1".to_string(), Some(8)), ("p2".to_string(), Some(8))];
        assert_eq!(
            rearrange(&img, "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", &given),
            t(&[8, 16, 192])
        );
        assert_eq!(rearrange(&img, "b c h w -> b (c h w)", &[]), t(&[8, 3072]));
        assert_eq!(rearrange(&img, "b ... -> b", &[]), TensorType::Dyn);
        assert_eq!(rearrange(&t(&[2, 3]), "b c h -> b", &[]), TensorType::Dyn);
        let q = t(&[2, 4, 17, 16]);
        assert_eq!(
            einsum("bhid,bhjd->bhij", &[q.clone(), q.clone()]),
            t(&[2, 4, 17, 17])
        );
        assert_eq!(
            einsum("ij,jk->ik", &[t(&[2, 3]), t(&[4, 5])]),
            TensorType::Dyn
        );
    }
}
