//! Tensor types (Migeed et al. 2024, Figure 1): `τ ::= Dyn | TensorType([d1, …, dn])`
//! with `d ::= Dyn | Nat`. The calculus has no type variables and no symbolic
//! dimensions (spec 004 §1.1): a dimension is `Dyn` or a natural number.

use serde::{Deserialize, Serialize};
use shapex_migrate_syntax::ast::{TypeAnn, TypeAnnKind};
use std::fmt;

/// A dimension type `d ::= Dyn | D`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Dim {
    /// Unknown statically: consistent with every dimension.
    Dyn,
    Nat(u64),
    /// A static dimension whose value is an unknown of constraint generation: index
    /// `i` of the [`Gen`](crate::gen::Gen) that made it. Only symbolic checking over a
    /// skeleton (Q1–Q3) makes these; the gradual checker never sees them, and a rule
    /// that does not model them treats them as `Dyn` (which weakens the constraints,
    /// never strengthens them).
    Sym(u32),
}

impl Dim {
    pub fn nat(self) -> Option<u64> {
        match self {
            Dim::Nat(n) => Some(n),
            Dim::Dyn | Dim::Sym(_) => None,
        }
    }

    pub fn is_dyn(self) -> bool {
        self == Dim::Dyn
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Dyn => f.write_str("Dyn"),
            Dim::Nat(n) => write!(f, "{n}"),
            Dim::Sym(i) => write!(f, "⟨{i}⟩"),
        }
    }
}

/// A tensor type `τ ::= Dyn | TensorType([d1, …, dn])`. A whole `Dyn` hides even the
/// rank; a tensor's rank is the number of its dimensions.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TensorType {
    Dyn,
    Tensor(Vec<Dim>),
}

impl TensorType {
    pub fn tensor(dims: impl IntoIterator<Item = Dim>) -> TensorType {
        TensorType::Tensor(dims.into_iter().collect())
    }

    /// A tensor of natural dimensions (for tests and examples).
    pub fn of(dims: &[u64]) -> TensorType {
        TensorType::tensor(dims.iter().map(|&n| Dim::Nat(n)))
    }

    /// The dimensions, or `None` for a whole `Dyn`.
    pub fn dims(&self) -> Option<&[Dim]> {
        match self {
            TensorType::Dyn => None,
            TensorType::Tensor(d) => Some(d),
        }
    }

    pub fn rank(&self) -> Option<usize> {
        self.dims().map(<[Dim]>::len)
    }

    /// A static type `S ::= TensorType([D1, …, Dn])`: no `Dyn` anywhere.
    pub fn is_static(&self) -> bool {
        self.dims().is_some_and(|d| d.iter().all(|d| !d.is_dyn()))
    }

    /// The type an annotation writes.
    pub fn from_ann(ann: &TypeAnn) -> TensorType {
        match &ann.kind {
            TypeAnnKind::Dyn => TensorType::Dyn,
            TypeAnnKind::Tensor(dims) => {
                TensorType::tensor(dims.iter().map(|d| d.value.map_or(Dim::Dyn, Dim::Nat)))
            }
        }
    }
}

/// The canonical printing (issue #21 I10), PyTorch's own spelling:
/// `TensorType((1, 2, Dyn))`, `TensorType((4,))` (a one-tuple keeps its comma), `Dyn`.
impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TensorType::Dyn => f.write_str("Dyn"),
            TensorType::Tensor(dims) => {
                let list: Vec<String> = dims.iter().map(Dim::to_string).collect();
                let comma = if dims.len() == 1 { "," } else { "" };
                write!(f, "TensorType(({}{comma}))", list.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_printing() {
        let t = TensorType::tensor([Dim::Nat(1), Dim::Nat(2), Dim::Dyn]);
        assert_eq!(t.to_string(), "TensorType((1, 2, Dyn))");
        assert_eq!(TensorType::of(&[4]).to_string(), "TensorType((4,))");
        assert_eq!(TensorType::Dyn.to_string(), "Dyn");
        assert!(!t.is_static());
        assert!(TensorType::of(&[4]).is_static());
        assert!(!TensorType::Dyn.is_static());
        assert_eq!(t.rank(), Some(3));
    }
}
