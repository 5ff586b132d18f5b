//! Shape tuples (Joisha §2): the canonical [`ShapeTuple`], the abstract [`Shape`]
//! (a tuple, the single illegal shape π, or unknown rank ⊤) and the shape predicates
//! α (scalar), β (matrix) and θ (legal).

use shapex_dims::{Constraint, Dim, Facts, Truth};
use shapex_report::{DimView, ShapeView};
use std::fmt;

/// The largest rank a rule builds from a number in the program (a dimension argument
/// of `cat`, the length of a size vector): MATLAB allows more, but an array of more
/// dimensions than this is not worth tracking extent by extent, and a rank taken from a
/// number (`cat(1e9, a, b)`) would otherwise allocate that many extents. A rule asked
/// for more gives an unknown shape and says so ([`super::Outcome::capped`]).
pub const MAX_RANK: usize = 64;

/// A legal shape tuple in canonical form: at least two components, trailing known-1
/// extents dropped from the third component on (§1.1). Canonical storage is sound by
/// the substitution property (Lemma 4.2): ℘-equivalent operands give equivalent results.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShapeTuple(Vec<Dim>);

impl ShapeTuple {
    /// Canonicalises: pads to two components with 1s and pops trailing known 1s.
    pub fn new(mut dims: Vec<Dim>) -> ShapeTuple {
        while dims.len() < 2 {
            dims.push(Dim::one());
        }
        while dims.len() > 2 && dims.last().and_then(Dim::as_known) == Some(1) {
            dims.pop();
        }
        ShapeTuple(dims)
    }

    pub fn known(extents: &[i64]) -> ShapeTuple {
        ShapeTuple::new(extents.iter().copied().map(Dim::known).collect())
    }

    pub fn dims(&self) -> &[Dim] {
        &self.0
    }

    /// The canonical rank: the number of components.
    pub fn rank(&self) -> usize {
        self.0.len()
    }

    /// Extent `i` (0-based); 1 beyond the stored components.
    pub fn extent(&self, i: usize) -> Dim {
        self.0.get(i).cloned().unwrap_or_else(Dim::one)
    }

    /// Promotion to `m` components (§3.2): expand with 1s or truncate.
    pub fn promote(&self, m: usize) -> Vec<Dim> {
        (0..m).map(|i| self.extent(i)).collect()
    }

    /// The number of elements, the determinant |s| of the diagonal matrix.
    pub fn numel(&self) -> Dim {
        self.0.iter().fold(Dim::one(), |acc, d| acc.mul(d))
    }

    /// Ψ s Ψ: swaps the first two components.
    pub fn swap12(&self) -> ShapeTuple {
        let mut v = self.0.clone();
        v.swap(0, 1);
        ShapeTuple::new(v)
    }

    pub fn normalize(&self, facts: &Facts) -> ShapeTuple {
        ShapeTuple::new(self.0.iter().map(|d| facts.normalize(d)).collect())
    }

    /// All extents as integers, when every one is known.
    pub fn all_known(&self) -> Option<Vec<i64>> {
        self.0.iter().map(Dim::as_known).collect()
    }
}

/// How shapes are written: the paper's `<3,n>` or MATLAB's `3×n`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Notation {
    #[default]
    Paper,
    Times,
}

/// An abstract array shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    Tuple(ShapeTuple),
    /// π: the outcome of an ill-formed expression (a run-time error).
    Illegal,
    /// ⊤: even the rank is unknown.
    Unknown,
}

impl Shape {
    pub fn tuple(dims: Vec<Dim>) -> Shape {
        Shape::Tuple(ShapeTuple::new(dims))
    }

    pub fn known(extents: &[i64]) -> Shape {
        Shape::Tuple(ShapeTuple::known(extents))
    }

    /// ι = <1,1>.
    pub fn scalar() -> Shape {
        Shape::known(&[1, 1])
    }

    /// `[]`, the 0×0 empty matrix.
    pub fn empty() -> Shape {
        Shape::known(&[0, 0])
    }

    pub fn as_tuple(&self) -> Option<&ShapeTuple> {
        match self {
            Shape::Tuple(t) => Some(t),
            _ => None,
        }
    }

    /// The shape with `f` applied to every extent.
    pub fn map_dims(&self, f: &dyn Fn(&Dim) -> Dim) -> Shape {
        match self {
            Shape::Tuple(t) => Shape::tuple(t.dims().iter().map(f).collect()),
            other => other.clone(),
        }
    }

    pub fn normalize(&self, facts: &Facts) -> Shape {
        match self {
            Shape::Tuple(t) => Shape::Tuple(t.normalize(facts)),
            s => s.clone(),
        }
    }

    /// The CLI/app view: ints for known extents, strings for symbolic ones.
    pub fn to_view(&self) -> ShapeView {
        match self {
            Shape::Illegal => ShapeView::Illegal { illegal: true },
            Shape::Unknown => ShapeView::Dims {
                dims: None,
                max: None,
            },
            Shape::Tuple(t) => ShapeView::Dims {
                dims: Some(
                    t.dims()
                        .iter()
                        .map(|d| match d.as_known() {
                            Some(v) => DimView::Known(v),
                            None => DimView::Symbolic(d.to_string()),
                        })
                        .collect(),
                ),
                max: None,
            },
        }
    }

    /// Text in the chosen notation.
    pub fn display(&self, notation: Notation) -> String {
        match (self, notation) {
            (Shape::Illegal, _) => "π".into(),
            (Shape::Unknown, _) => "?".into(),
            (Shape::Tuple(t), Notation::Paper) => {
                let parts: Vec<String> = t.dims().iter().map(Dim::to_string).collect();
                format!("<{}>", parts.join(","))
            }
            (Shape::Tuple(t), Notation::Times) => {
                let parts: Vec<String> = t
                    .dims()
                    .iter()
                    .map(|d| match d.terms().len() {
                        0 | 1 => d.to_string(),
                        _ => format!("({d})"),
                    })
                    .collect();
                parts.join("×")
            }
        }
    }

    /// θ: the shape is legal.
    pub fn legal(&self) -> Constraint {
        match self {
            Shape::Tuple(_) => Constraint::True,
            Shape::Illegal => Constraint::False,
            Shape::Unknown => Constraint::True,
        }
    }

    /// α(s) as a truth value under `facts`.
    pub fn is_scalar(&self, facts: &Facts) -> Truth {
        match self {
            Shape::Tuple(t) => facts.ask(&alpha(t)),
            Shape::Illegal => Truth::Refuted,
            Shape::Unknown => Truth::Unknown,
        }
    }

    /// β(s) as a truth value under `facts`.
    pub fn is_matrix(&self, facts: &Facts) -> Truth {
        match self {
            Shape::Tuple(t) => facts.ask(&beta(t)),
            Shape::Illegal => Truth::Refuted,
            Shape::Unknown => Truth::Unknown,
        }
    }

    /// θ(s) as a truth value (unknown rank is still a legal array).
    pub fn is_legal(&self) -> Truth {
        match self {
            Shape::Illegal => Truth::Refuted,
            _ => Truth::Proven,
        }
    }

    /// Whether the two shapes are provably the same class under `facts`.
    pub fn same_as(&self, other: &Shape, facts: &Facts) -> Truth {
        match (self, other) {
            (Shape::Tuple(a), Shape::Tuple(b)) => {
                let m = a.rank().max(b.rank());
                let (a, b) = (a.promote(m), b.promote(m));
                facts.ask(&Constraint::and(
                    a.iter().zip(&b).map(|(x, y)| Constraint::eq(x, y)),
                ))
            }
            (Shape::Illegal, Shape::Illegal) => Truth::Proven,
            (Shape::Unknown, _) | (_, Shape::Unknown) => Truth::Unknown,
            _ => Truth::Refuted,
        }
    }
}

impl fmt::Display for Shape {
    /// The paper's notation, `<3,n>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display(Notation::Paper))
    }
}

impl fmt::Display for ShapeTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", Shape::Tuple(self.clone()))
    }
}

/// α(u) (eq. 5): every extent is 1.
pub fn alpha(t: &ShapeTuple) -> Constraint {
    Constraint::and(t.dims().iter().map(|d| Constraint::eq(d, &Dim::one())))
}

/// β(u) (eq. 4): every extent from the third on is 1 (legal, canonical rank 2).
pub fn beta(t: &ShapeTuple) -> Constraint {
    Constraint::and(t.dims()[2..].iter().map(|d| Constraint::eq(d, &Dim::one())))
}

/// `t` is `[]`: canonical rank 2 with both extents 0.
pub fn is_empty_matrix(t: &ShapeTuple) -> Constraint {
    Constraint::and(
        t.dims()
            .iter()
            .enumerate()
            .map(|(i, d)| Constraint::eq(d, &Dim::known(if i < 2 { 0 } else { 1 }))),
    )
}
