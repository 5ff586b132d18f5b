//! Source text, spans and diagnostics: the vocabulary every front end, analysis and
//! view shares. Depends on nothing of the project.

mod diagnostic;
mod span;
mod token;

pub use diagnostic::{Diagnostic, Fix, Range, Severity};
pub use span::{LineCol, LineIndex, Span};
pub use token::{Token, TokenKind};

/// The lengths of the longest common prefix and suffix of two versions of a text, not
/// overlapping: what an edit left alone on either side of the one contiguous change
/// between them (the editor's line shift and the analysis's resumption both ask).
pub fn common_ends(a: &[u8], b: &[u8]) -> (usize, usize) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let room = a.len().min(b.len()) - prefix;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    (prefix, suffix)
}
