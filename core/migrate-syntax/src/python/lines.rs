//! Python's lexical structure that a context-free grammar cannot see: logical lines
//! (a bracket left open, or a `\` at the end, continues a line) and their indentation.
//! The parser groups the lines into blocks by indentation and hands each line's text
//! to the grammar, so spans stay offsets into the whole file.

/// One logical line: `start..end` in the source (its first non-blank character to the
/// end of its last physical line, newline excluded), its indentation in columns (a tab
/// moves to the next multiple of 8, as Python's tokenizer does), and the deepest
/// bracket nesting inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    pub start: usize,
    pub end: usize,
    pub indent: usize,
    pub depth: usize,
    /// A string or bracket is still open at the end of the file.
    pub unterminated: bool,
}

/// The logical lines of `src` that hold code (blank and comment-only lines skipped).
pub fn logical_lines(src: &str) -> Vec<Line> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        // Indentation of this physical line.
        let mut indent = 0;
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b'\x0C') {
            indent = match bytes[i] {
                b'\t' => (indent / 8 + 1) * 8,
                b' ' => indent + 1,
                _ => 0,
            };
            i += 1;
        }
        if i >= bytes.len() {
            break;
        }
        match bytes[i] {
            b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'#' => {
                i = line_end(bytes, i);
                continue;
            }
            _ => {}
        }
        let start = i;
        let (mut end, depth, unterminated) = scan(bytes, i);
        if unterminated {
            // Something opened here is never closed: the line ends where its physical
            // line does, so the lines after it are still parsed.
            end = trim_cr(bytes, line_end(bytes, start));
        }
        out.push(Line {
            start,
            end,
            indent,
            depth,
            unterminated,
        });
        i = end + 1;
    }
    out
}

fn line_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && bytes[i] != b'\n' {
        i += 1;
    }
    i
}

/// From `i`, the end of the logical line (the index of its final newline, or the end
/// of the text), the deepest bracket nesting, and whether something was left open.
fn scan(bytes: &[u8], mut i: usize) -> (usize, usize, bool) {
    let mut depth: usize = 0;
    let mut deepest = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => i = line_end(bytes, i),
            b'\\' if bytes.get(i + 1) == Some(&b'\n') => i += 2,
            b'\\' if bytes.get(i + 1) == Some(&b'\r') && bytes.get(i + 2) == Some(&b'\n') => i += 3,
            b'\n' if depth == 0 => return (trim_cr(bytes, i), deepest, false),
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
                i += 1;
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            q @ (b'"' | b'\'') => match string_end(bytes, i, q) {
                Some(e) => i = e,
                None => return (bytes.len(), deepest, true),
            },
            _ => i += 1,
        }
    }
    (bytes.len(), deepest, depth > 0)
}

fn trim_cr(bytes: &[u8], newline: usize) -> usize {
    if newline > 0 && bytes[newline - 1] == b'\r' {
        newline - 1
    } else {
        newline
    }
}

/// The index just past the string starting with quote `q` at `i`; `None` when a
/// triple-quoted string runs to the end of the text. A one-quoted string ends at its
/// line's end if unclosed (the grammar reports it).
fn string_end(bytes: &[u8], i: usize, q: u8) -> Option<usize> {
    let triple = bytes.get(i + 1) == Some(&q) && bytes.get(i + 2) == Some(&q);
    let mut j = if triple { i + 3 } else { i + 1 };
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b'\n' if !triple => return Some(j),
            c if c == q => {
                if !triple {
                    return Some(j + 1);
                }
                if bytes.get(j + 1) == Some(&q) && bytes.get(j + 2) == Some(&q) {
                    return Some(j + 3);
                }
                j += 1;
            }
            _ => j += 1,
        }
    }
    if triple {
        None
    } else {
        Some(bytes.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<(String, usize)> {
        logical_lines(src)
            .iter()
            .map(|l| (src[l.start..l.end].to_string(), l.indent))
            .collect()
    }

    #[test]
    fn brackets_backslashes_and_strings_continue_a_line() {
        let src = "class A:\n    x = f(1,\n          2)  # c\n\n    # only a comment\n    y = 1 + \\\n 2\n\ts = '''a\n(b'''\n";
        assert_eq!(
            texts(src),
            [
                ("class A:".to_string(), 0),
                ("x = f(1,\n          2)  # c".to_string(), 4),
                ("y = 1 + \\\n 2".to_string(), 4),
                ("s = '''a\n(b'''".to_string(), 8),
            ]
        );
    }

    #[test]
    fn hash_in_a_string_is_not_a_comment_and_open_things_are_flagged() {
        let src = "a = '#(' + \"x\"\nb = (1,\n";
        let lines = logical_lines(src);
        assert_eq!(lines.len(), 2);
        assert_eq!(&src[lines[0].start..lines[0].end], "a = '#(' + \"x\"");
        assert!(lines[1].unterminated);
        let open = logical_lines("s = '''never closed\nx = 1\n");
        assert!(open[0].unterminated);
        assert_eq!(open.len(), 2);
    }
}
