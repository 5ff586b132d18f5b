//! Display tokens of one line for the editor's highlighting (no parsing, never fails):
//! the calculus's and Python's keywords, names, numbers, strings, `#` comments and
//! punctuation (one tokenizer serves both syntaxes of the plug-in).

use shapex_text::{Token, TokenKind};

/// The words of Figure 1's grammar: the program's `return`, the operations and the
/// type constructors.
const KEYWORDS: &[&str] = &[
    "return",
    "reshape",
    "Conv2D",
    "add",
    "TensorType",
    "Dyn",
    // Python's
    "def",
    "class",
    "if",
    "elif",
    "else",
    "for",
    "while",
    "in",
    "not",
    "and",
    "or",
    "is",
    "import",
    "from",
    "as",
    "None",
    "True",
    "False",
    "pass",
    "raise",
    "assert",
    "with",
    "try",
    "except",
    "finally",
    "lambda",
    "yield",
    "break",
    "continue",
    "global",
    "nonlocal",
    "del",
    "async",
    "await",
];

/// Display tokens of one line; together they cover the line exactly.
pub fn tokens(line: &str) -> Vec<Token> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let push = |out: &mut Vec<Token>, kind, start, end| out.push(Token { kind, start, end });
    while i < bytes.len() {
        let start = i;
        let c = bytes[i];
        if c == b'#' {
            push(&mut out, TokenKind::Comment, i, line.len());
            break;
        } else if c == b'"' || c == b'\'' {
            // A string to its closing quote on this line (a triple quote's body on
            // later lines reads as names; highlighting never needs more).
            i += 1;
            while i < bytes.len() && bytes[i] != c {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(bytes.len());
            // An escape may have stepped into a character: tokens end on boundaries.
            while !line.is_char_boundary(i) {
                i += 1;
            }
            push(&mut out, TokenKind::String, start, i);
        } else if c.is_ascii_whitespace() {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            push(&mut out, TokenKind::Space, start, i);
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let kind = if KEYWORDS.contains(&&line[start..i]) {
                TokenKind::Keyword
            } else {
                TokenKind::Ident
            };
            push(&mut out, kind, start, i);
        } else if c.is_ascii_digit() {
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            push(&mut out, TokenKind::Number, start, i);
        } else {
            i += line[i..].chars().next().map_or(1, char::len_utf8);
            push(&mut out, TokenKind::Punct, start, i);
        }
    }
    out
}
