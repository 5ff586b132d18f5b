//! Type inference for Sekanina's VEC and SIZE languages (spec 003 §§1–2, with SIZE_C's
//! forms of §4.1 and the data conditional of §5.1), over the AST of
//! `shapex-vec-syntax` (issue #23 item 2), and the rest of the language: evaluation,
//! the shape translations and the plug-in.
//!
//! * [`types`]: the types and schemes as trees, the strata of spec §2.1 (datum, data,
//!   θ, phrase) as predicates, printing in the grammar's syntax;
//! * [`combinators`]: the combinators' schemes (Figs 2.3, 3.1, 5.1);
//! * `unify`: the types being solved, unification with the occurs check and kinds;
//! * `infer`: Hindley–Milner inference over the prelude, the definitions and the term;
//! * [`eval`]: the call-by-value evaluator (issue #23 item 3), with shape errors that
//!   record their origin, data errors apart, a fuel budget and a trace; [`evaluate`]
//!   is its entry;
//! * [`shape`]: the shape translation `#` of Chapter 4 (issue #23 item 4): [`translate`]
//!   gives a program's shape program, which [`evaluate`] runs without data;
//! * [`size_c`]: `#_C` of Chapter 5 with the built-in skeletons, and SIZE_C's
//!   simplifying reduction: [`translate_c`], [`size_c::simplify`], the signatures;
//! * [`language`]: the plug-in, [`LanguageVec`], registered in the façade's driver;
//! * [`print`]: terms, types and definitions in the grammar's syntax.
//!
//! The thesis is simply typed; its library is used at several types, so definitions
//! are let-polymorphic (spec §5.2, §9 item 8). Its restrictions are kinds on type
//! variables, as equality types are in Standard ML: a variable a vector holds is
//! *data* (no arrows, spec §2.1), one `eq` compares is *θ* (`un | sz | θ×θ`). A kind
//! travels with the variable into schemes and is checked whenever the variable is
//! bound, so a restriction that is decided only once types are solved (a variable
//! later bound to an arrow) is reported where that binding happens.
//!
//! # Diagnostics
//!
//! Each error is one diagnostic on the offending subterm; that subterm then has a
//! fresh type (or keeps the binding made), so one mistake is one diagnostic:
//!
//! * `vec.type.mismatch`: "expected `vec nat`, found `nat`" (also a declared type the
//!   definition does not have, and a non-`nat` test of `if`);
//! * `vec.type.vector-of-functions`: a vector whose entries would contain an arrow;
//! * `vec.type.eq-not-theta`: `eq` (or `=`) at a type other than θ;
//! * `vec.type.ifs-condition`: an `ifs` condition that is not a size;
//! * `vec.type.infinite`: the occurs check;
//! * `vec.type.unbound`: a name neither bound, defined, in the prelude nor a combinator;
//! * `vec.type.empty-vector`: `[]` (VEC has no empty vector, spec §9.1);
//! * `vec.type.too-large`: a definition's type of more than 2000 nodes (types may grow
//!   exponentially with let-polymorphism; past this the definition's type is `'a`).

pub mod combinators;
pub mod eval;
#[cfg(test)]
mod examples;
mod infer;
pub mod language;
pub mod print;
pub mod shape;
pub mod size_c;
#[cfg(test)]
mod tests;
pub mod types;
mod unify;

pub use eval::{Evaluation, Options, Outcome, Value};
pub use language::LanguageVec;
pub use shape::{shape_of, translate, translate_type, ShapeProgram, ShapeTranslation};
use shapex_text::{Diagnostic, Span};
use shapex_vec_syntax::ast::Program;
pub use size_c::{translate_c, SizeC};
pub use types::{Kind, Scheme, Ty};

/// The diagnostic codes.
pub mod codes {
    pub const MISMATCH: &str = "vec.type.mismatch";
    pub const VECTOR_OF_FUNCTIONS: &str = "vec.type.vector-of-functions";
    pub const EQ_NOT_THETA: &str = "vec.type.eq-not-theta";
    pub const IFS_CONDITION: &str = "vec.type.ifs-condition";
    pub const INFINITE: &str = "vec.type.infinite";
    pub const UNBOUND: &str = "vec.type.unbound";
    pub const EMPTY_VECTOR: &str = "vec.type.empty-vector";
    pub const TOO_LARGE: &str = "vec.type.too-large";
}

/// One definition's types.
#[derive(Clone, Debug, PartialEq)]
pub struct DefType {
    pub name: String,
    /// The definition's span.
    pub span: Span,
    /// The scheme later uses see: the declared one when the definition has an
    /// annotation (and no parameters) that reads, else the inferred one.
    pub scheme: Scheme,
    /// The scheme of the body alone, before the annotation is checked against it.
    pub inferred: Scheme,
}

/// What [`check`] found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Typed {
    /// The program's definitions, in order.
    pub defs: Vec<DefType>,
    /// The final term's type, if the program has one.
    pub main: Option<Scheme>,
    /// Every subterm's type by its span, in the order inference finished them; a
    /// subterm's free variables are named per entry.
    pub types: Vec<(Span, Scheme)>,
    /// The program's type errors.
    pub diagnostics: Vec<Diagnostic>,
    /// Errors in the prelude itself (none unless the prelude is broken).
    pub prelude_diagnostics: Vec<Diagnostic>,
}

impl Typed {
    /// The type of the subterm at exactly `span` (the outermost one when several
    /// share it).
    pub fn type_at(&self, span: Span) -> Option<&Scheme> {
        self.types
            .iter()
            .rev()
            .find(|(s, _)| *s == span)
            .map(|(_, t)| t)
    }

    /// The last definition of `name`.
    pub fn def(&self, name: &str) -> Option<&DefType> {
        self.defs.iter().rev().find(|d| d.name == name)
    }
}

/// Types `program` after the prelude (`shapex_vec_syntax::prelude()`).
pub fn check(program: &Program) -> Typed {
    let mut infer = infer::Infer::new();
    let mut prelude = Typed::default();
    infer.program(&shapex_vec_syntax::prelude(), false, &mut prelude);
    let prelude_diagnostics = std::mem::take(&mut infer.diagnostics);
    let mut typed = Typed::default();
    infer.program(program, true, &mut typed);
    typed.diagnostics = infer.diagnostics;
    typed.prelude_diagnostics = prelude_diagnostics;
    typed
}

/// Types `program` with the combinators only, no prelude (how the prelude itself is
/// checked).
pub fn check_alone(program: &Program) -> Typed {
    let mut infer = infer::Infer::new();
    let mut typed = Typed::default();
    infer.program(program, true, &mut typed);
    typed.diagnostics = infer.diagnostics;
    typed
}

/// Evaluates `program` after the prelude (its definitions in order, then its term),
/// within `options`' budget; see [`eval`]. Meant for programs [`check`] accepts: on
/// others the outcome may be [`Outcome::Stuck`].
pub fn evaluate(program: &Program, options: &Options) -> Evaluation {
    eval::evaluate(program, options)
}
