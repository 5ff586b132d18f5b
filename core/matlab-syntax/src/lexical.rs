//! The gap between clauses (blanks, newlines, comments, stray `;`/`,`), skipped by a
//! linear scan rather than by the grammar. Block comments nest, and as a recursive
//! pest rule they cost a stack frame per level and backtracked exponentially over
//! unclosed openers (each was retried as a line comment and the rest rescanned).
//!
//! The scan works on bytes: every delimiter is ASCII and UTF-8 continuation bytes
//! never look like one, so every offset returned is on a character boundary.

const BOM: &[u8] = "\u{FEFF}".as_bytes();

fn is_hws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | 0x0C)
}

fn is_newline(b: u8) -> bool {
    b == b'\n' || b == b'\r'
}

/// Offset of the newline ending the line that contains `i` (or the end of the text).
fn line_end(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&c| is_newline(c))
        .map_or(b.len(), |n| i + n)
}

/// Offset just after the newline at `i` (`\r\n` is one newline).
fn after_newline(b: &[u8], i: usize) -> usize {
    if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
        i + 2
    } else {
        i + 1
    }
}

/// A block-comment marker alone on its line (blanks around it allowed): `%{`/`#{`
/// opens (`true`), `%}`/`#}` closes (`false`).
fn marker(line: &[u8]) -> Option<bool> {
    let start = line.iter().position(|&c| !is_hws(c)).unwrap_or(line.len());
    let end = line
        .iter()
        .rposition(|&c| !is_hws(c))
        .map_or(start, |e| e + 1);
    match &line[start..end] {
        b"%{" | b"#{" => Some(true),
        b"%}" | b"#}" => Some(false),
        _ => None,
    }
}

/// A block comment that is still open at the end of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Unclosed {
    /// Offset of the outermost unclosed opener (`%{` or `#{`).
    pub at: usize,
    /// How many block comments are open at the end of the text (they nest).
    pub open: usize,
}

/// The blanks, newlines, comments and stray `;`/`,` between two clauses.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Gap {
    /// Where the next clause starts (the end of the text if none does).
    pub end: usize,
    /// Set when the gap ends in a block comment that is never closed: the rest of the
    /// text is comment, as in MATLAB.
    pub unclosed: Option<Unclosed>,
}

/// Skips the gap starting at `start`. `%{` and `#{` open a block comment only when
/// alone on their line, block comments nest, and each line is looked at once: the
/// cost is linear in the text skipped, whatever the nesting.
pub(super) fn gap(source: &str, start: usize) -> Gap {
    let b = source.as_bytes();
    let mut i = start;
    // Whether only blanks precede `i` on its line (a block opener must be alone).
    let mut line_blank = source[..start]
        .chars()
        .rev()
        .find(|&c| !matches!(c, ' ' | '\t' | '\x0C' | '\u{FEFF}'))
        .is_none_or(|c| c == '\n' || c == '\r');
    while i < b.len() {
        match b[i] {
            c if is_hws(c) => i += 1,
            c if is_newline(c) => {
                i = after_newline(b, i);
                line_blank = true;
            }
            b';' | b',' => {
                i += 1;
                line_blank = false;
            }
            b'.' if b[i..].starts_with(b"...") => {
                // A continuation: the rest of the line is a comment, and the newline
                // goes with it.
                let e = line_end(b, i);
                i = if e < b.len() { after_newline(b, e) } else { e };
                line_blank = true;
            }
            b'%' | b'#' => {
                let e = line_end(b, i);
                if line_blank && marker(&b[i..e]) == Some(true) {
                    match block_comment(b, e) {
                        Ok(end) => i = end,
                        Err(open) => {
                            return Gap {
                                end: b.len(),
                                unclosed: Some(Unclosed { at: i, open }),
                            }
                        }
                    }
                } else {
                    i = e;
                }
            }
            _ if b[i..].starts_with(BOM) => i += BOM.len(),
            _ => break,
        }
    }
    Gap {
        end: i,
        unclosed: None,
    }
}

/// Skips the body of a block comment whose opener line ends at `from`, counting
/// nested openers and closers line by line. Returns the end of the closing line, or
/// how many comments are still open at the end of the text.
fn block_comment(b: &[u8], from: usize) -> Result<usize, usize> {
    let mut depth = 1usize;
    let mut i = from;
    while i < b.len() {
        let start = after_newline(b, i);
        let end = line_end(b, start);
        match marker(&b[start..end]) {
            Some(true) => depth += 1,
            Some(false) => {
                depth -= 1;
                if depth == 0 {
                    return Ok(end);
                }
            }
            None => {}
        }
        i = end;
    }
    Err(depth)
}
