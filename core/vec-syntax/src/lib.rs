//! The front end of Sekanina's VEC and SIZE languages ("Shape Analysis", PhD thesis,
//! 1998; the project's reading is spec 003), with the SIZE_C forms of its Chapter 5:
//! a pest grammar (`vec.pest`), the spanned [`ast`], recovery at the next definition,
//! and the thesis's standard library as a prelude (`prelude.vec`). No name
//! resolution, type inference, shape translation or evaluation here.
//!
//! # Concrete syntax
//!
//! | construct | written | notes |
//! |---|---|---|
//! | λ-abstraction | `\x. t`, `λx. t`, `fun x -> t` | `\x y. t` and `\x, y. t` are `\x. \y. t` |
//! | annotated binder | `\x : τ. t`, `\(x : τ) y. t`, `fun (x : τ) -> t` | the thesis's `λx^τ.t` |
//! | application | `f a b` | left-associative, tightest |
//! | recursion | `rec f. t`, `rec f : σ. t` | |
//! | size conditional | `ifs t then t1 else t2` | `zero` is true |
//! | data conditional | `if t then t1 else t2` | Chapter 6's proposal (spec §5.1) |
//! | SIZE_C | `check t1, t2 then t`, `let x <= t in u`, `let x, y = a, b in u`, `a = b` | spec §4.1 |
//! | pair | `(a, b)`, `<a, b>`, `⟨a, b⟩` | `fst`, `snd`, `pair` are names |
//! | vector | `[a, b, c]`, `[]` | `a :: v` is `cons a v` (right-associative) |
//! | numeral (`nat`) | `0`, `42` | no negative or decimal numerals: VEC's datum type is `nat` |
//! | size | `~3` | `succ (succ (succ zero))`; `zero`, `succ`, `pred` are names |
//! | datum operations | `a + b`, `a - b`, `a * b`, `a / b` | `+ (a, b)`: they take a pair (spec §2.2) |
//! | size addition | `a ~+ b` | `~+ a b`, SIZE_C's `~+` (spec §4.2) |
//! | composition | `f . g`, `f ∘ g` | `compose f g` (the prelude defines it) |
//! | operator as a term | `(+)`, `(*)`, `(~+)`, `(::)`, `(.)`, `(=)` | the thesis's `fold + 0` is `fold (+) 0` |
//! | definition | `def name x y = t`, `def name : τ = t`, `def f (x : τ) : τ' = t` | the annotation is the type of the body |
//! | comments | `-- to the end of the line`, `{- block -}` | block comments do not nest |
//!
//! Operators, loosest first: `=` (left), `::` (right), `+ - ~+` (left), `* /` (left),
//! `. ∘` (right), then application. Binding forms (`\`, `fun`, `rec`, `ifs`, `if`,
//! `check`, `let`) extend as far to the right as they can; as an operand or an
//! argument they need parentheses.
//!
//! Types, loosest first: `τ -> τ` (`→`, right), `τ * τ` (`×`, right), `vec τ` and
//! `mat τ` (prefix); atoms `nat`, `bool`, `sz`, `un`, `'a`, `(τ)`.
//!
//! Keywords: `def fun rec ifs if then else check let in` (and the type words in
//! types). Every combinator (`un pair fst snd zero succ pred eq err sing cons hd tl
//! length`, SIZE_C's `and not ~+`) is a plain name, resolved later.
//!
//! A file is a sequence of definitions, then optionally one term to evaluate. A
//! top-level item starts in the first column of a line (or at `def`); a line that
//! starts with a blank continues the item above, so items need no terminator.
//!
//! # Diagnostics
//!
//! [`parse`] never panics. A syntax error skips the top-level item that holds it (to
//! the next first-column line or `def`), which becomes a definition with an error body
//! (its name kept when it has one) or an error term to evaluate; the rest of the file
//! is still parsed. The codes:
//!
//! * `syntax.expected`: the grammar failed ("expected a term after `then`",
//!   "expected `)` after `b`, found `]`", "unmatched `)`": a stray closing bracket
//!   alone is skipped);
//! * `syntax.comment`: a `{-` with no `-}` (the rest of the file is the comment);
//! * `syntax.nesting`: brackets and binding forms nested more than 100 deep in one
//!   item, or a term or type more than 400 nodes deep (long operator chains,
//!   application spines, binder lists): such an item or term is skipped, so every
//!   consumer of the AST may recurse over it;
//! * `syntax.numeral`: a numeral or size past `u64::MAX`;
//! * `syntax.let-arity`: `let x, y = a in …`;
//! * `syntax.expression-not-last`: a term to evaluate followed by another item.
//!
//! # Names and the prelude
//!
//! [`prelude()`] is the thesis's library (spec §2.6) in this syntax. A program may
//! define a name the prelude defines (or define a name twice); the later definition
//! shadows the earlier one. Resolving names is the analysis's work, not this crate's.

pub mod ast;
mod highlight;
mod parser;
mod prelude;
#[cfg(test)]
mod tests;

pub use highlight::tokens;
pub use parser::parse;
pub use prelude::{prelude, PRELUDE};

use shapex_text::Diagnostic;

/// The result of parsing one file: the program (always present; items that failed to
/// parse are definitions with a [`ast::TermKind::Error`] body, or an error term to
/// evaluate) and the syntax diagnostics.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub program: ast::Program,
    pub diagnostics: Vec<Diagnostic>,
}
