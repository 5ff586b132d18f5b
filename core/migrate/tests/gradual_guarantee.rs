//! Monotonicity of the whole checker (Migeed et al. 2024, Lemmas 8–10 and the static
//! gradual guarantee behind Theorem 3.1): if a program is well typed, so is every
//! program whose declarations are less precise, and each of its types is less precise
//! (⊑) than the corresponding one. This is what makes the migration space downward
//! closed, which migration (issue #21 M3) relies on. Random programs of the calculus,
//! printed as source and parsed, so the front end is exercised too.

#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use shapex_migrate::check::check;
use shapex_migrate::consistent::precise;
use shapex_migrate::types::{Dim, TensorType};

const NAMES: [&str; 3] = ["x", "y", "z"];

fn dim() -> impl Strategy<Value = Dim> {
    prop_oneof![1 => Just(Dim::Dyn), 2 => (1u64..4).prop_map(Dim::Nat)]
}

fn ty() -> impl Strategy<Value = TensorType> {
    prop_oneof![
        1 => Just(TensorType::Dyn),
        5 => prop::collection::vec(dim(), 1..5).prop_map(TensorType::Tensor),
    ]
}

/// A reshape target: at most one `Dyn` (Figure 1).
fn target() -> impl Strategy<Value = TensorType> {
    (
        prop::collection::vec(1u64..7, 1..4),
        any::<Option<prop::sample::Index>>(),
    )
        .prop_map(|(dims, hole)| {
            let n = dims.len();
            TensorType::tensor(dims.into_iter().enumerate().map(|(i, d)| {
                if hole.as_ref().is_some_and(|h| h.index(n) == i) {
                    Dim::Dyn
                } else {
                    Dim::Nat(d)
                }
            }))
        })
}

/// An expression of the calculus as source text.
fn expr() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(&NAMES[..]).prop_map(str::to_string);
    leaf.prop_recursive(4, 16, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("add({a}, {b})")),
            (inner.clone(), target()).prop_map(|(e, t)| format!("reshape({e}, {t})")),
            (1u64..4, 1u64..4, 1u64..3, 1u64..3, inner)
                .prop_map(|(i, o, k0, k1, e)| format!("Conv2D({i}, {o}, ({k0}, {k1}), {e})")),
        ]
    })
}

/// `t` with the dimensions `mask` selects forgotten (and all of it with `whole`).
fn coarsen(t: &TensorType, mask: u8, whole: bool) -> TensorType {
    match t.dims() {
        Some(d) if !whole => TensorType::tensor(d.iter().enumerate().map(|(i, &x)| {
            if mask >> i & 1 == 1 {
                Dim::Dyn
            } else {
                x
            }
        })),
        _ => TensorType::Dyn,
    }
}

fn program(decls: &[TensorType], body: &str) -> String {
    let mut s = String::new();
    for (name, t) in NAMES.iter().zip(decls) {
        s.push_str(&format!("{name} : {t}\n"));
    }
    s.push_str(&format!("return {body}\n"));
    s
}

proptest! {
    // Most random programs are ill typed (and say nothing here): many rejects.
    #![proptest_config(ProptestConfig {
        cases: 1000,
        max_global_rejects: 200_000,
        failure_persistence: None,
        .. ProptestConfig::default()
    })]

    #[test]
    fn forgetting_precision_never_breaks_a_well_typed_program(
        decls in prop::collection::vec(ty(), 3),
        body in expr(),
        masks in prop::collection::vec((any::<u8>(), prop::bool::weighted(0.15)), 3),
    ) {
        let fine_src = program(&decls, &body);
        let fine = shapex_migrate_syntax::parse(&fine_src);
        prop_assert!(fine.diagnostics.is_empty(), "{fine_src}: {:?}", fine.diagnostics);
        let fine = check(&fine.program);
        prop_assume!(fine.diagnostics.is_empty());
        let coarse_decls: Vec<TensorType> = decls
            .iter()
            .zip(&masks)
            .map(|(t, &(m, w))| coarsen(t, m, w))
            .collect();
        let coarse_src = program(&coarse_decls, &body);
        let coarse = check(&shapex_migrate_syntax::parse(&coarse_src).program);
        prop_assert!(
            coarse.diagnostics.is_empty(),
            "{fine_src} is well typed but {coarse_src} is not: {:?}",
            coarse.diagnostics
        );
        prop_assert_eq!(fine.nodes.len(), coarse.nodes.len());
        for (f, c) in fine.nodes.iter().zip(&coarse.nodes) {
            let (Some(ft), Some(ct)) = (&f.ty, &c.ty) else {
                return Err(TestCaseError::fail("a well-typed node without a type"));
            };
            prop_assert!(precise(ct, ft), "{coarse_src}: {ct} ⋢ {ft}");
        }
    }

    /// The checker terminates on every program of the calculus, and types every
    /// subexpression exactly once.
    #[test]
    fn every_subexpression_is_typed_once(decls in prop::collection::vec(ty(), 3), body in expr()) {
        let src = program(&decls, &body);
        let parsed = shapex_migrate_syntax::parse(&src);
        let checked = check(&parsed.program);
        let operations = ["add(", "reshape(", "Conv2D("]
            .iter()
            .map(|op| body.matches(op).count())
            .sum::<usize>();
        let variables = body
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| NAMES.contains(w))
            .count();
        prop_assert_eq!(checked.nodes.len(), operations + variables);
    }
}
