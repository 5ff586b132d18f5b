//! Placeholder until the pest grammar lands.

use super::{ast, Parsed};
use crate::span::Span;

pub fn parse(source: &str) -> Parsed {
    Parsed {
        file: ast::File {
            kind: ast::FileKind::Script,
            body: vec![],
            functions: vec![],
            span: Span::new(0, source.len()),
        },
        diagnostics: vec![],
    }
}
