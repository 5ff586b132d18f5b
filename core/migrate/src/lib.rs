//! The gradual tensor types of Migeed, Reed, Ansel & Palsberg, "Generalizing Shape
//! Analysis with Gradual Types" (ECOOP 2024) as a Shape Explorer plug-in. Modules in
//! the paper's vocabulary: [`types`] (tensor and dimension types), [`consistent`]
//! (consistency `~`, precision `⊑`, the joins `⊔` and `⊔*`, Appendix B's
//! broadcasting, matching `▷ⁿ` and calc-conv), [`check`] (the gradual type checker
//! Γ ⊢ e : τ of the core calculus) and [`language`] (the plug-in: the Report).
//! [`modules`] builds a PyTorch model from its `__init__` (a small interpreter).
//! The front end is `shapex-migrate-syntax`. Migration (Q1–Q3) comes later (issue #21).

pub mod answers;
pub mod calculus;
pub mod check;
pub mod consistent;
pub mod forward;
pub mod gen;
pub mod language;
pub mod lattice;
pub mod migration;
pub mod modules;
pub mod pytorch;
pub mod questions;
pub mod subject;
pub mod types;

pub use language::Migrate;
