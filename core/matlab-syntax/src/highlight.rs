//! Display-only MATLAB tokenizer for the app's highlight layer's highlight layer: keywords,
//! comments (`%`, `#`, `...` continuations), strings, numbers. It never decides
//! anything about the program — the analysis is core's job — and errs on the side of
//! plain text.

use shapex_text::{Token, TokenKind};

const KEYWORDS: &[&str] = &[
    "break",
    "case",
    "catch",
    "classdef",
    "continue",
    "do",
    "else",
    "elseif",
    "end",
    "end_try_catch",
    "end_unwind_protect",
    "endfor",
    "endfunction",
    "endif",
    "endparfor",
    "endswitch",
    "endwhile",
    "for",
    "function",
    "global",
    "if",
    "otherwise",
    "parfor",
    "persistent",
    "return",
    "switch",
    "try",
    "until",
    "unwind_protect",
    "unwind_protect_cleanup",
    "while",
];

/// Splits one line into tokens covering it exactly.
pub fn tokenize_line(line: &str) -> Vec<Token> {
    let bytes = line.as_bytes();
    let mut out: Vec<Token> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let (kind, end) = match c {
            b'%' | b'#' => (TokenKind::Comment, bytes.len()),
            b'.' if line[i..].starts_with("...") => (TokenKind::Comment, bytes.len()),
            b' ' | b'\t' | b'\r' => (
                TokenKind::Space,
                scan(bytes, i, |b| matches!(b, b' ' | b'\t' | b'\r')),
            ),
            b'"' => (TokenKind::String, scan_string(bytes, i, b'"')),
            b'\'' if !is_transpose_context(&out, line) => {
                (TokenKind::String, scan_string(bytes, i, b'\''))
            }
            b'0'..=b'9' => (TokenKind::Number, scan_number(bytes, i)),
            b'.' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                (TokenKind::Number, scan_number(bytes, i))
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let end = scan(bytes, i, |b| b.is_ascii_alphanumeric() || b == b'_');
                let word = &line[i..end];
                let octave_only = matches!(word, "do" | "until");
                let keyword =
                    KEYWORDS.contains(&word) && (!octave_only || opens_clause(&out, line, end));
                let kind = if keyword {
                    TokenKind::Keyword
                } else {
                    TokenKind::Ident
                };
                (kind, end)
            }
            _ => (TokenKind::Punct, next_char_boundary(line, i)),
        };
        out.push(Token {
            kind,
            start: i,
            end,
        });
        i = end;
    }
    out
}

/// Whether the word ending at `end` opens a clause as Octave's `do` and `until` do:
/// first in its statement and not assigned to or indexed (`do = false(n, 1)`,
/// `x(do)`: MATLAB code names variables so), as the grammar decides.
fn opens_clause(prev: &[Token], line: &str, end: usize) -> bool {
    let first = prev
        .iter()
        .rev()
        .find(|t| t.kind != TokenKind::Space)
        .is_none_or(|t| matches!(&line[t.start..t.end], ";" | ","));
    let rest = line[end..].trim_start();
    let assigned =
        (rest.starts_with('=') && !rest.starts_with("==")) || rest.starts_with(['(', '{', '.']);
    first && !assigned
}

/// A quote directly after a value (name, number, closing bracket, another
/// transpose) is the transpose operator; anywhere else it opens a string.
fn is_transpose_context(prev: &[Token], line: &str) -> bool {
    let Some(last) = prev.last() else {
        return false;
    };
    match last.kind {
        TokenKind::Ident | TokenKind::Number => true,
        TokenKind::Punct => matches!(&line[last.start..last.end], ")" | "]" | "}" | "'" | "."),
        _ => false,
    }
}

fn scan(bytes: &[u8], start: usize, keep: impl Fn(u8) -> bool) -> usize {
    let mut j = start + 1;
    while j < bytes.len() && keep(bytes[j]) {
        j += 1;
    }
    j
}

/// A string runs to its closing quote (a doubled quote is an escaped quote) or to the
/// end of the line if unterminated.
fn scan_string(bytes: &[u8], start: usize, quote: u8) -> usize {
    let mut j = start + 1;
    while j < bytes.len() {
        if bytes[j] == quote {
            if bytes.get(j + 1) == Some(&quote) {
                j += 2;
                continue;
            }
            return j + 1;
        }
        j += 1;
    }
    bytes.len()
}

fn scan_number(bytes: &[u8], start: usize) -> usize {
    let mut j = scan(bytes, start, |b| b.is_ascii_digit() || b == b'.');
    if j < bytes.len() && matches!(bytes[j], b'e' | b'E') {
        let mut k = j + 1;
        if k < bytes.len() && matches!(bytes[k], b'+' | b'-') {
            k += 1;
        }
        if k < bytes.len() && bytes[k].is_ascii_digit() {
            j = scan(bytes, k, |b| b.is_ascii_digit());
        }
    }
    if j < bytes.len() && matches!(bytes[j], b'i' | b'j') {
        j += 1;
    }
    j
}

fn next_char_boundary(s: &str, i: usize) -> usize {
    s[i..].chars().next().map_or(s.len(), |c| i + c.len_utf8())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(line: &str) -> Vec<(TokenKind, &str)> {
        tokenize_line(line)
            .into_iter()
            .filter(|t| t.kind != TokenKind::Space)
            .map(|t| (t.kind, &line[t.start..t.end]))
            .collect()
    }

    #[test]
    fn quote_after_a_name_is_transpose_and_elsewhere_a_string() {
        use TokenKind::*;
        assert_eq!(
            kinds("b = a'; s = 'it''s' % done"),
            vec![
                (Ident, "b"),
                (Punct, "="),
                (Ident, "a"),
                (Punct, "'"),
                (Punct, ";"),
                (Ident, "s"),
                (Punct, "="),
                (String, "'it''s'"),
                (Comment, "% done"),
            ]
        );
    }

    #[test]
    fn keywords_numbers_and_continuations() {
        use TokenKind::*;
        assert_eq!(
            kinds("for i = 1:2.5e-3i ..."),
            vec![
                (Keyword, "for"),
                (Ident, "i"),
                (Punct, "="),
                (Number, "1"),
                (Punct, ":"),
                (Number, "2.5e-3i"),
                (Comment, "..."),
            ]
        );
    }

    #[test]
    fn octaves_do_and_until_are_keywords_only_where_they_open_a_clause() {
        use TokenKind::*;
        let kind = |line: &str, word: &str| {
            kinds(line)
                .into_iter()
                .find(|(_, w)| *w == word)
                .map(|(k, _)| k)
        };
        assert_eq!(kind("do", "do"), Some(Keyword));
        assert_eq!(kind("x = 1; do", "do"), Some(Keyword));
        assert_eq!(kind("until x > 3", "until"), Some(Keyword));
        assert_eq!(kind("do = false(3, 1);", "do"), Some(Ident));
        assert_eq!(kind("y = x(do);", "do"), Some(Ident));
        assert_eq!(kind("do(2) = true;", "do"), Some(Ident));
        assert_eq!(kind("s.until = 4;", "until"), Some(Ident));
        assert_eq!(kind("for k = 1:3", "for"), Some(Keyword));
    }

    #[test]
    fn tokens_cover_the_line_exactly_even_with_unicode_and_junk() {
        for line in [
            "x = 'unterminated",
            "é∑ = \"a\" # c",
            "''''",
            "1e",
            "a.'.^b",
        ] {
            let toks = tokenize_line(line);
            let mut at = 0;
            for t in &toks {
                assert_eq!(t.start, at, "{line:?}");
                assert!(t.end > t.start);
                at = t.end;
            }
            assert_eq!(at, line.len(), "{line:?}");
        }
    }
}
