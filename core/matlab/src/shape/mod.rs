//! Joisha et al. shape tuples: the canonical `ShapeTuple`, the illegal shape π, and the shape-tuple operators of Table 2 in paper and modern modes.
//!
//! - [`tuple`]: [`Shape`], [`ShapeTuple`], [`Notation`], the predicates α, β, θ.
//! - [`rules`]: Table 2 (`mtimes`, `elementwise`, `mpower`, `transpose`, `mrdivide`,
//!   `mldivide`, `vertcat`, `horzcat`, `unary`) returning an [`Outcome`].
//! - [`ext`]: rules MATLAB needs beyond the paper (creation, reductions, indexing,
//!   subscripted assignment, `reshape`, `repmat`, `permute`, `cat`, colon, joins).

pub mod ext;
pub mod rules;
pub mod tuple;

pub use ext::*;
pub use rules::{
    cat_pair, elementwise, horzcat, mldivide, mpower, mrdivide, mtimes, transpose, unary, vertcat,
    Outcome, Rule, RuleInfo, PLACEHOLDER, SOURCE_EXTENSION, SOURCE_PAPER,
};
pub use tuple::{alpha, beta, is_empty_matrix, Notation, Shape, ShapeTuple, MAX_RANK};

pub use crate::Mode;
pub use shapex_dims::Truth;

#[cfg(test)]
mod oracle_tests;
#[cfg(test)]
mod tests;
