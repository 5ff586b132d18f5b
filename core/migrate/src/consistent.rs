//! The gradual relations of Figure 2 and the helper notation of Appendix B (Migeed et
//! al. 2024; spec 004 §1.3–§1.4): consistency `~`, precision `⊑`, the least upper
//! bound `⊔` and its variant `⊔*`, `apply-broadcasting`, matching `▷ⁿ` and calc-conv.

use crate::types::{Dim, TensorType};

/// Dimension consistency: `d ~ d` (c-refl-d), `d ~ Dyn` (d-refl-dyn) and symmetry.
/// Not transitive: `2 ~ Dyn ~ 3` but `2 ≁ 3`.
pub fn dim_consistent(a: Dim, b: Dim) -> bool {
    a.is_dyn() || b.is_dyn() || a == b
}

/// Tensor consistency `τ1 ~ τ2`: `τ ~ Dyn` (t-refl-dyn), and c-tensor: equal ranks
/// with every dimension consistent.
pub fn consistent(a: &TensorType, b: &TensorType) -> bool {
    match (a.dims(), b.dims()) {
        (None, _) | (_, None) => true,
        (Some(x), Some(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(&p, &q)| dim_consistent(p, q))
        }
    }
}

/// Dimension precision `a ⊑ b` ("b is at least as precise as a"): `Dyn ⊑ d`
/// (refl-dyn-1) and `d ⊑ d` (c-refl-d).
pub fn dim_precise(a: Dim, b: Dim) -> bool {
    a.is_dyn() || a == b
}

/// Type precision `a ⊑ b`: `Dyn ⊑ τ` (refl-dyn-2), `τ ⊑ τ`, and p-tensor: equal ranks
/// with every dimension `⊑`. A migration only ever makes declarations more precise.
pub fn precise(a: &TensorType, b: &TensorType) -> bool {
    match (a.dims(), b.dims()) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(x), Some(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(&p, &q)| dim_precise(p, q))
        }
    }
}

/// `d1 ⊔ d2` (Appendix B): the more precise of two consistent dimensions; `None` when
/// they are inconsistent (⊔ is undefined there).
pub fn dim_join(a: Dim, b: Dim) -> Option<Dim> {
    match (a, b) {
        (Dim::Dyn, d) | (d, Dim::Dyn) => Some(d),
        (p, q) if p == q => Some(p),
        _ => None,
    }
}

/// `τ1 ⊔ τ2` (Appendix B): `Dyn ⊔ τ = τ`, and pointwise on tensors of one rank whose
/// dimensions are consistent; `None` on inconsistent arguments.
pub fn join(a: &TensorType, b: &TensorType) -> Option<TensorType> {
    match (a.dims(), b.dims()) {
        (None, _) => Some(b.clone()),
        (_, None) => Some(a.clone()),
        (Some(x), Some(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .map(|(&p, &q)| dim_join(p, q))
            .collect::<Option<Vec<Dim>>>()
            .map(TensorType::Tensor),
        _ => None,
    }
}

/// `τ1 ⊔* τ2` (Appendix B): like ⊔, except that a whole `Dyn` on either side gives
/// `Dyn` — `Dyn + TensorType((1, 2))` "could be a range of possibilities" once
/// broadcasting applies, so its rank is unknown (spec 004 TC-2).
pub fn join_star(a: &TensorType, b: &TensorType) -> Option<TensorType> {
    match (a, b) {
        (TensorType::Dyn, _) | (_, TensorType::Dyn) => Some(TensorType::Dyn),
        _ => join(a, b),
    }
}

/// `apply-broadcasting(τ1, τ2)` exactly as Appendix B writes it (not Appendix E's
/// constraint form, whose no-broadcast case asks for equality: erratum 7 of spec 004
/// §6.4). A whole `Dyn` leaves both unchanged; otherwise the shorter is padded with
/// leading 1s, and each 1 is replaced by the type opposite it — including `Dyn` (TC-1:
/// `(Dyn, 2, Dyn)` and `(1, 2, 2)` give `(Dyn, 2, Dyn)` and `(Dyn, 2, 2)`). A `Dyn` is
/// never taken for a 1.
pub fn apply_broadcasting(a: &TensorType, b: &TensorType) -> (TensorType, TensorType) {
    let (Some(x), Some(y)) = (a.dims(), b.dims()) else {
        return (a.clone(), b.clone());
    };
    let n = x.len().max(y.len());
    let pad = |d: &[Dim]| -> Vec<Dim> {
        std::iter::repeat_n(Dim::Nat(1), n - d.len())
            .chain(d.iter().copied())
            .collect()
    };
    let (x, y) = (pad(x), pad(y));
    // Both replacements read the padded originals: a 1 facing a 1 stays 1 either way,
    // so the order Appendix B writes them in does not matter.
    let replace = |mine: &[Dim], theirs: &[Dim]| -> Vec<Dim> {
        mine.iter()
            .zip(theirs)
            .map(|(&m, &t)| if m == Dim::Nat(1) { t } else { m })
            .collect()
    };
    (
        TensorType::Tensor(replace(&x, &y)),
        TensorType::Tensor(replace(&y, &x)),
    )
}

/// Matching `t ▷ⁿ TensorType(σ1, …, σn)`: a tensor of rank n matches itself, and a
/// whole `Dyn` matches n `Dyn`s; any other rank does not match.
pub fn matches(t: &TensorType, n: usize) -> Option<Vec<Dim>> {
    match t.dims() {
        None => Some(vec![Dim::Dyn; n]),
        Some(d) if d.len() == n => Some(d.to_vec()),
        Some(_) => None,
    }
}

/// Why calc-conv has no result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvError {
    /// The kernel is larger than the input along axis `axis` (2 = height, 3 = width,
    /// counting from 0), so the output would have no rows or columns.
    KernelTooLarge {
        axis: usize,
        input: u64,
        kernel: u64,
    },
    /// A kernel size of 0.
    EmptyKernel,
}

/// `calc-conv(t, c_out, κ)` as Appendix B writes it (Appendix E's is garbled:
/// erratum 5): for the matched `(σ0, σ1, σ2, σ3)`, the output is
/// `(σ0, c_out, σ2 − (κ0 − 1), σ3 − (κ1 − 1))`, a `Dyn` spatial dimension giving `Dyn`.
/// The calculus has no stride, padding or dilation (CONV2D, Alg. 5). Our decision
/// (spec 004 §6.3 item 2): an output dimension must be at least 1, as PyTorch asks, so
/// a kernel larger than a static input is an error.
pub fn calc_conv(
    sigma: &[Dim; 4],
    c_out: u64,
    kernel: (u64, u64),
) -> Result<TensorType, ConvError> {
    let spatial = |axis: usize, k: u64| -> Result<Dim, ConvError> {
        if k == 0 {
            return Err(ConvError::EmptyKernel);
        }
        match sigma[axis] {
            Dim::Dyn | Dim::Sym(_) => Ok(Dim::Dyn),
            Dim::Nat(h) if h >= k => Ok(Dim::Nat(h - (k - 1))),
            Dim::Nat(h) => Err(ConvError::KernelTooLarge {
                axis,
                input: h,
                kernel: k,
            }),
        }
    };
    Ok(TensorType::tensor([
        sigma[0],
        Dim::Nat(c_out),
        spatial(2, kernel.0)?,
        spatial(3, kernel.1)?,
    ]))
}

/// The product of the natural dimensions among `dims` (the `Dyn`s skipped), or `None`
/// when it does not fit a `u128`.
pub fn static_product(dims: &[Dim]) -> Option<u128> {
    dims.iter()
        .filter_map(|d| d.nat())
        .try_fold(1u128, |acc, n| acc.checked_mul(u128::from(n)))
}

/// `b mod a = 0` with the convention that only 0 is a multiple of 0 (`mod 0` is
/// undefined; spec 004 §6.3 item 1 asks for a convention).
pub fn divides(a: u128, b: u128) -> bool {
    if a == 0 {
        b == 0
    } else {
        b.is_multiple_of(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn t(dims: &[Option<u64>]) -> TensorType {
        TensorType::tensor(dims.iter().map(|d| d.map_or(Dim::Dyn, Dim::Nat)))
    }

    #[test]
    fn tc1_broadcasting_then_join() {
        // Spec 004 TC-1 (Appendix B worked in §3).
        let x = t(&[None, Some(2), None]);
        let y = t(&[Some(1), Some(2), Some(2)]);
        let (a, b) = apply_broadcasting(&x, &y);
        assert_eq!(a, t(&[None, Some(2), None]));
        assert_eq!(b, t(&[None, Some(2), Some(2)]));
        assert!(consistent(&a, &b));
        assert_eq!(join_star(&a, &b), Some(t(&[None, Some(2), Some(2)])));
    }

    #[test]
    fn tc2_dyn_join_star() {
        // Spec 004 TC-2: TensorType(1,2) ⊔* Dyn = Dyn, where ⊔ would keep the tensor.
        let y = TensorType::of(&[1, 2]);
        let (a, b) = apply_broadcasting(&TensorType::Dyn, &y);
        assert_eq!((&a, &b), (&TensorType::Dyn, &y));
        assert_eq!(join_star(&a, &b), Some(TensorType::Dyn));
        assert_eq!(join(&a, &b), Some(y));
    }

    #[test]
    fn broadcasting_pads_with_leading_ones() {
        // Spec 004 §4.2 [I]: (2,1) + (3) → (2,3); (2,2) + (3) is inconsistent.
        let (a, b) = apply_broadcasting(&TensorType::of(&[2, 1]), &TensorType::of(&[3]));
        assert_eq!(join_star(&a, &b), Some(TensorType::of(&[2, 3])));
        let (a, b) = apply_broadcasting(&TensorType::of(&[2, 2]), &TensorType::of(&[3]));
        assert!(!consistent(&a, &b));
        assert_eq!(join_star(&a, &b), None);
    }

    #[test]
    fn matching_and_calc_conv() {
        assert_eq!(matches(&TensorType::Dyn, 4), Some(vec![Dim::Dyn; 4]));
        assert_eq!(matches(&t(&[None, None]), 4), None);
        let s = [Dim::Nat(10), Dim::Nat(3), Dim::Nat(28), Dim::Dyn];
        assert_eq!(
            calc_conv(&s, 8, (5, 3)),
            Ok(t(&[Some(10), Some(8), Some(24), None]))
        );
        assert_eq!(
            calc_conv(&s, 8, (29, 3)),
            Err(ConvError::KernelTooLarge {
                axis: 2,
                input: 28,
                kernel: 29
            })
        );
        assert_eq!(calc_conv(&s, 8, (0, 3)), Err(ConvError::EmptyKernel));
    }

    #[test]
    fn consistency_is_not_transitive() {
        let two = TensorType::of(&[2]);
        let three = TensorType::of(&[3]);
        assert!(consistent(&two, &TensorType::Dyn) && consistent(&TensorType::Dyn, &three));
        assert!(!consistent(&two, &three));
    }

    fn dim() -> impl Strategy<Value = Dim> {
        prop_oneof![Just(Dim::Dyn), (1u64..4).prop_map(Dim::Nat)]
    }

    /// Small types, so that equal ranks and equal dimensions are frequent.
    fn ty() -> impl Strategy<Value = TensorType> {
        prop_oneof![
            1 => Just(TensorType::Dyn),
            4 => prop::collection::vec(dim(), 0..4).prop_map(TensorType::Tensor),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

        #[test]
        fn consistency_is_reflexive_and_symmetric(a in ty(), b in ty()) {
            prop_assert!(consistent(&a, &a));
            prop_assert_eq!(consistent(&a, &b), consistent(&b, &a));
        }

        #[test]
        fn precision_is_a_partial_order(a in ty(), b in ty(), c in ty()) {
            prop_assert!(precise(&a, &a));
            if precise(&a, &b) && precise(&b, &a) {
                prop_assert_eq!(&a, &b);
            }
            if precise(&a, &b) && precise(&b, &c) {
                prop_assert!(precise(&a, &c));
            }
        }

        #[test]
        fn precision_implies_consistency(a in ty(), b in ty()) {
            if precise(&a, &b) {
                prop_assert!(consistent(&a, &b));
            }
        }

        #[test]
        fn broadcasting_is_symmetric(a in ty(), b in ty()) {
            let (x, y) = apply_broadcasting(&a, &b);
            let (y2, x2) = apply_broadcasting(&b, &a);
            prop_assert_eq!(&x, &x2);
            prop_assert_eq!(&y, &y2);
            prop_assert_eq!(join_star(&x, &y), join_star(&y2, &x2));
        }

        #[test]
        fn join_is_defined_exactly_on_consistent_types_and_is_an_upper_bound(a in ty(), b in ty()) {
            let j = join(&a, &b);
            prop_assert_eq!(j.is_some(), consistent(&a, &b));
            if let Some(j) = j {
                prop_assert!(precise(&a, &j) && precise(&b, &j));
                prop_assert_eq!(Some(j), join(&b, &a));
            }
        }

        /// Lemma 8–10 style monotonicity of t-add: making an operand more precise
        /// never makes an ill-typed add well typed, and the result only gains
        /// precision (a migration can only remove programs from the typable set).
        #[test]
        fn the_add_rule_is_monotone(a2 in ty(), b in ty(), mask in any::<u8>(), whole in prop::bool::weighted(0.1)) {
            // `a` is `a2` with some information forgotten, so `a ⊑ a2`.
            let a = match a2.dims() {
                Some(d) if !whole => TensorType::tensor(
                    d.iter().enumerate().map(|(i, &x)| if mask >> i & 1 == 1 { Dim::Dyn } else { x }),
                ),
                _ => TensorType::Dyn,
            };
            prop_assert!(precise(&a, &a2));
            let add = |p: &TensorType, q: &TensorType| {
                let (x, y) = apply_broadcasting(p, q);
                consistent(&x, &y).then(|| join_star(&x, &y)).flatten()
            };
            if let Some(fine) = add(&a2, &b) {
                let coarse = add(&a, &b);
                prop_assert!(coarse.is_some(), "{} + {} typed but {} + {} not", a2, b, a, b);
                prop_assert!(precise(&coarse.unwrap(), &fine));
            }
        }
    }
}
