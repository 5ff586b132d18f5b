//! Display tokens of one line for the editor's highlighting (no parsing, never fails):
//! keywords, names (with primes, `zip'`), type variables (`'a`), numerals and sizes
//! (`~3`), `--` and `{- … -}` comments, and punctuation.

use shapex_text::{Token, TokenKind};

/// The grammar's keywords and the type words.
const KEYWORDS: &[&str] = &[
    "def", "fun", "rec", "ifs", "if", "then", "else", "check", "let", "in", "nat", "bool", "sz",
    "vec", "mat",
];

/// Display tokens of one line; together they cover the line exactly. A block comment
/// is highlighted from its `{-` to its `-}` on the same line (or the line's end); the
/// lines inside a longer one read as code, which highlighting can bear.
pub fn tokens(line: &str) -> Vec<Token> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let push = |out: &mut Vec<Token>, kind, start, end| out.push(Token { kind, start, end });
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'\'';
    while i < bytes.len() {
        let start = i;
        let c = bytes[i];
        let rest = &line[i..];
        if rest.starts_with("--") {
            push(&mut out, TokenKind::Comment, i, line.len());
            break;
        } else if rest.starts_with("{-") {
            i = rest.find("-}").map_or(line.len(), |e| i + e + 2);
            push(&mut out, TokenKind::Comment, start, i);
        } else if c.is_ascii_whitespace() {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            push(&mut out, TokenKind::Space, start, i);
        } else if c.is_ascii_alphabetic() || c == b'_' || c == b'\'' {
            i += 1;
            while i < bytes.len() && word(bytes[i]) {
                i += 1;
            }
            let kind = if KEYWORDS.contains(&&line[start..i]) {
                TokenKind::Keyword
            } else {
                TokenKind::Ident
            };
            push(&mut out, kind, start, i);
        } else if c.is_ascii_digit()
            || (c == b'~' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            push(&mut out, TokenKind::Number, start, i);
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            push(&mut out, TokenKind::Punct, start, i);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(line: &str) -> Vec<(TokenKind, &str)> {
        tokens(line)
            .into_iter()
            .filter(|t| t.kind != TokenKind::Space)
            .map(|t| (t.kind, &line[t.start..t.end]))
            .collect()
    }

    #[test]
    fn keywords_sizes_primes_and_comments() {
        use TokenKind::*;
        assert_eq!(
            kinds("def zip' : vec 'a = \\x. ~3 {- c -} 12 -- done"),
            vec![
                (Keyword, "def"),
                (Ident, "zip'"),
                (Punct, ":"),
                (Keyword, "vec"),
                (Ident, "'a"),
                (Punct, "="),
                (Punct, "\\"),
                (Ident, "x"),
                (Punct, "."),
                (Number, "~3"),
                (Comment, "{- c -}"),
                (Number, "12"),
                (Comment, "-- done"),
            ]
        );
    }

    #[test]
    fn tokens_cover_any_line() {
        for line in ["", "λx. ⟨a, b⟩", "~", "{- open", "a ~+ b", "'"] {
            let t = tokens(line);
            let mut at = 0;
            for tok in &t {
                assert_eq!(tok.start, at, "{line:?}");
                at = tok.end;
            }
            assert_eq!(at, line.len(), "{line:?}");
        }
    }
}
