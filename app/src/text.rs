//! Position arithmetic between the Report (1-based line, character column) and the
//! browser's textarea (UTF-16 offsets).

/// The UTF-16 offset of 1-based `line`/`col` in `text`, clamped to the text.
pub fn utf16_offset(text: &str, line: u32, col: u32) -> u32 {
    let mut offset = 0u32;
    for (i, l) in text.split('\n').enumerate() {
        if i as u32 + 1 == line.max(1) {
            let units: usize = l
                .chars()
                .take(col.max(1) as usize - 1)
                .map(char::len_utf16)
                .sum();
            return offset + units as u32;
        }
        offset += l.encode_utf16().count() as u32 + 1;
    }
    text.encode_utf16().count() as u32
}

/// The byte offset in `text` of UTF-16 offset `units` (as the textarea reports
/// selections), clamped to the text and to a character boundary.
pub fn byte_of_utf16(text: &str, units: u32) -> usize {
    let mut seen = 0u32;
    for (i, c) in text.char_indices() {
        if seen >= units {
            return i;
        }
        seen += c.len_utf16() as u32;
    }
    text.len()
}

/// `text` with the UTF-16 range `start..end` replaced by `insert`, and the UTF-16
/// offset just after the insertion (where the caret goes).
pub fn splice_utf16(text: &str, start: u32, end: u32, insert: &str) -> (String, u32) {
    let (a, b) = (
        byte_of_utf16(text, start.min(end)),
        byte_of_utf16(text, start.max(end)),
    );
    let out = format!("{}{insert}{}", &text[..a], &text[b..]);
    let caret = text[..a].encode_utf16().count() + insert.encode_utf16().count();
    (out, caret as u32)
}

/// The 1-based line that UTF-16 offset `caret_utf16` (as the textarea reports it) is on.
pub fn line_of_utf16(text: &str, caret_utf16: u32) -> u32 {
    let mut units = 0u32;
    let mut line = 1;
    for c in text.chars() {
        if units >= caret_utf16 {
            break;
        }
        if c == '\n' {
            line += 1;
        }
        units += c.len_utf16() as u32;
    }
    line
}

/// The leading whitespace of the line the caret (a UTF-16 offset, as the textarea
/// reports it) is on, so Enter can keep the indentation.
pub fn indent_before(text: &str, caret_utf16: u32) -> String {
    let mut units = 0u32;
    let mut line_start = 0;
    for (i, c) in text.char_indices() {
        if units >= caret_utf16 {
            break;
        }
        if c == '\n' {
            line_start = i + 1;
        }
        units += c.len_utf16() as u32;
    }
    text[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// Visual width of `line` with tabs expanded.
pub fn visual_width(line: &str, tab: usize) -> usize {
    line.chars()
        .fold(0, |x, c| if c == '\t' { x + tab - x % tab } else { x + 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caret_line_inverts_utf16_offset() {
        let text = "a😀b\n\ncd\n";
        for (line, col) in [(1, 1), (1, 3), (2, 1), (3, 2), (4, 1)] {
            assert_eq!(line_of_utf16(text, utf16_offset(text, line, col)), line);
        }
    }

    #[test]
    fn utf16_offsets_count_surrogate_pairs_twice() {
        let t = "ab\n😀c\nz";
        assert_eq!(utf16_offset(t, 1, 1), 0);
        assert_eq!(utf16_offset(t, 2, 1), 3);
        assert_eq!(utf16_offset(t, 2, 2), 5);
        assert_eq!(utf16_offset(t, 3, 1), 7);
        assert_eq!(utf16_offset(t, 9, 1), 8, "past the end clamps");
    }

    #[test]
    fn indentation_comes_from_the_caret_line() {
        let t = "a\n    b = 1;\n\tc";
        assert_eq!(indent_before(t, 1), "");
        assert_eq!(indent_before(t, 9), "    ");
        assert_eq!(indent_before(t, 17), "\t");
        assert_eq!(indent_before("😀\n  x", 4), "  ");
    }

    #[test]
    fn visual_columns_expand_tabs() {
        assert_eq!(visual_width("a\tb", 4), 5);
    }
}

#[cfg(test)]
mod splice_tests {
    use super::*;

    #[test]
    fn splices_by_utf16_offsets() {
        // "é" is one UTF-16 unit, "😀" two.
        let t = "aé😀b";
        assert_eq!(byte_of_utf16(t, 2), 3);
        assert_eq!(byte_of_utf16(t, 4), 7);
        assert_eq!(byte_of_utf16(t, 99), t.len());
        assert_eq!(splice_utf16(t, 2, 4, "X\nY"), ("aéX\nYb".to_string(), 5));
        assert_eq!(splice_utf16("", 0, 0, "z"), ("z".to_string(), 1));
    }
}
