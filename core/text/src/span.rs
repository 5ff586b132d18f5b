//! Source positions. Every AST node, IR statement and diagnostic carries a [`Span`]
//! (byte offsets into the analysed text); [`LineIndex`] turns offsets into the
//! 1-based line/column pairs that users, the CLI and the editor see.

use serde::{Deserialize, Serialize};

/// A half-open byte range `start..end` into the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// A 1-based line and column; the column counts characters (not bytes), as editors do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// Maps byte offsets to [`LineCol`] in O(log lines).
#[derive(Clone, Debug)]
pub struct LineIndex<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, line_starts }
    }

    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let col = self
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        LineCol {
            line: line as u32 + 1,
            col: col as u32 + 1,
        }
    }

    /// Byte offset of the start of 1-based `line` (clamped to the text).
    pub fn line_start(&self, line: u32) -> usize {
        let i = (line.max(1) as usize - 1).min(self.line_starts.len() - 1);
        self.line_starts[i]
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_to_one_based_line_and_char_column() {
        let idx = LineIndex::new("ab\nc\u{e9}d\n");
        assert_eq!(idx.line_col(0), LineCol { line: 1, col: 1 });
        assert_eq!(idx.line_col(3), LineCol { line: 2, col: 1 });
        // 'é' is two bytes: 'd' is at byte 6 but column 3.
        assert_eq!(idx.line_col(6), LineCol { line: 2, col: 3 });
        assert_eq!(idx.line_col(99), LineCol { line: 3, col: 1 });
    }
}
