//! Display tokens: what a language's highlighter paints, by kind. Display only —
//! tokens never decide anything about the program.

/// What a token is painted as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    Keyword,
    Comment,
    String,
    Number,
    Ident,
    Punct,
    Space,
}

impl TokenKind {
    pub fn class(self) -> &'static str {
        match self {
            TokenKind::Keyword => "tok-kw",
            TokenKind::Comment => "tok-comment",
            TokenKind::String => "tok-str",
            TokenKind::Number => "tok-num",
            TokenKind::Ident => "tok-id",
            TokenKind::Punct => "tok-punct",
            TokenKind::Space => "tok-space",
        }
    }
}

/// A token within one line: byte range `start..end` of that line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
}
