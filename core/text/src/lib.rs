//! Source text, spans and diagnostics: the vocabulary every front end, analysis and
//! view shares. Depends on nothing of the project.

mod diagnostic;
mod span;
mod token;

pub use diagnostic::{Diagnostic, Fix, Range, Severity};
pub use span::{LineCol, LineIndex, Span};
pub use token::{Token, TokenKind};
