//! Symbolic dimensions shared by the shape, extent and gradual analyses: `Dim` (integer, symbol or normalised expression), `Constraint`, `Facts` that answer proven / refuted / unknown, and a bounded satisfiability check with models and conflicts.
//!
//! - [`Symbol`] is an unknown as an identity: a shared record of its display name, the
//!   id its [`SymbolTable`] gave it and its [`Provenance`] (input extent, join,
//!   data-dependent, overflow, user name, scalar value). Nothing parses names.
//! - [`Dim`] is a polynomial normal form over atoms (extent symbols, signed value
//!   symbols, opaque `max(·,0)` and `floor(·/·)`, and the gradual `Dyn`), so equal
//!   expressions are `==`.
//! - [`Constraint`] is a condition over Dims (`Eq`, `Ne`, `Le`, `Lt`, `And`, `Or`, …),
//!   printed in the paper's style.
//! - [`Facts`] holds what is known at a program point and answers [`Truth`]; with
//!   [`Facts::ask_explained`] an `Unknown` also says why ([`Why::Budget`] when a bound
//!   on the prover's work or on the stored facts was reached).
//! - [`solve`] decides satisfiability of a set of constraints: a checked model, a
//!   conflicting subset, or unknown with a reason.
//! - [`witness`] gives sizes under which a condition fails, and under which it holds,
//!   each a model of the facts checked against it.
//! - [`smtlib::script`] renders a constraint set as an SMT-LIB2 script for an external
//!   solver.

mod constraint;
mod dim;
mod facts;
mod propagate;
pub mod smtlib;
mod solver;
mod symbol;
mod witness;

pub use constraint::Constraint;
pub use dim::{Atom, Dim, Mono};
pub use facts::{Answer, Facts, Truth, Why};
pub use solver::{satisfy, solve, Model, Solution};
pub use symbol::{Provenance, Site, Symbol, SymbolTable};
pub use witness::{symbols, witness, Witness};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_solve;
