//! Tables of numbers read without the grammar: `A = [0.13 -0.85 …; …]` in a file of
//! data. The pest grammar builds a parse tree of some twenty nested rules per element
//! (an expression, its operands, a number), which made a 400,000-element table take a
//! second and a half to parse. A clause `name = [ … ]` whose brackets hold only
//! numbers (a `-` sign allowed) and separators is read here in one pass; the grammar
//! then parses the clause with the brackets' contents blanked out (same length, so
//! every span is where it was), and the rows read here take the place of its empty
//! matrix. Anything else, or a clause the grammar reads differently, is parsed by the
//! grammar alone, as before.

use super::ast::{Expr, ExprKind, UnOp};
use super::blocks::Clause;
use super::expr::number;
use shapex_text::Span;

/// The fewest bytes between the brackets worth reading here: ordinary literals stay
/// with the grammar.
const MIN_BYTES: usize = 1024;

/// A table found at the start of a clause: where its brackets are and its rows.
pub(super) struct Table {
    open: usize,
    close: usize,
    rows: Vec<Vec<Expr>>,
}

impl Table {
    /// The table of the clause starting at `pos` (and ending by `bound`), if it is one.
    pub(super) fn at(source: &str, pos: usize, bound: usize) -> Option<Table> {
        let b = &source.as_bytes()[..bound];
        let mut i = pos;
        if !b.get(i)?.is_ascii_alphabetic() {
            return None;
        }
        while b
            .get(i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            i += 1;
        }
        i = blanks(b, i);
        if b.get(i) != Some(&b'=') || b.get(i + 1) == Some(&b'=') {
            return None;
        }
        i = blanks(b, i + 1);
        if b.get(i) != Some(&b'[') {
            return None;
        }
        let open = i;
        let (rows, close) = read_rows(b, open + 1)?;
        (close - open > MIN_BYTES).then_some(Table { open, close, rows })
    }

    /// The clause's text with the brackets' contents blanked: what the grammar parses.
    pub(super) fn blanked(&self, rest: &str, pos: usize) -> String {
        let mut text = rest.as_bytes().to_vec();
        for c in &mut text[self.open + 1 - pos..self.close - pos] {
            *c = b' ';
        }
        // Only ASCII was read between the brackets, so the text is still UTF-8.
        String::from_utf8(text).unwrap_or_default()
    }

    /// Puts the rows into the clause the grammar built from the blanked text: its
    /// statement must assign exactly this (empty) matrix, else `None`.
    pub(super) fn fill(self, mut clause: Clause) -> Option<Clause> {
        let Clause::Stmt(stmt) = &mut clause else {
            return None;
        };
        let super::ast::StmtKind::Assign { rhs, .. } = &mut stmt.kind else {
            return None;
        };
        match &mut rhs.kind {
            ExprKind::Matrix(rows)
                if rows.is_empty() && rhs.span == Span::new(self.open, self.close + 1) =>
            {
                *rows = self.rows;
                Some(clause)
            }
            _ => None,
        }
    }
}

fn blanks(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    i
}

/// The rows from `i` to the closing bracket, and where it is; `None` at anything but a
/// number, a `-` just before one, blanks, commas, semicolons and newlines. Empty rows
/// are dropped, as the grammar's builder does.
fn read_rows(b: &[u8], mut i: usize) -> Option<(Vec<Vec<Expr>>, usize)> {
    let mut rows = vec![];
    let mut row = vec![];
    // Whether an element may start here: after `[` or a separator, never right after
    // another element (`1-2` is a subtraction, `1 - 2` too: left to the grammar).
    let mut may_start = true;
    loop {
        match *b.get(i)? {
            b']' => break,
            b' ' | b'\t' | b',' => {
                may_start = true;
                i += 1;
            }
            b';' | b'\n' => {
                if !row.is_empty() {
                    rows.push(std::mem::take(&mut row));
                }
                may_start = true;
                i += 1;
            }
            b'\r' if b.get(i + 1) == Some(&b'\n') => i += 1,
            _ if may_start => {
                let (element, end) = element(b, i)?;
                row.push(element);
                may_start = false;
                i = end;
            }
            _ => return None,
        }
    }
    if !row.is_empty() {
        rows.push(row);
    }
    Some((rows, i))
}

/// A number, or `-` directly followed by one, starting at `i`.
fn element(b: &[u8], i: usize) -> Option<(Expr, usize)> {
    if b[i] != b'-' {
        return unsigned(b, i);
    }
    let (operand, end) = unsigned(b, i + 1)?;
    let kind = ExprKind::Unary {
        op: UnOp::Neg,
        operand: Box::new(operand),
    };
    Some((
        Expr {
            kind,
            span: Span::new(i, end),
        },
        end,
    ))
}

/// `12`, `1.5`, `.5`, `3.`, `1e-3`, `2.5d4`, `4i`: decimal digits only (hexadecimal and
/// `_` separators are left to the grammar), followed by a separator or `]`.
fn unsigned(b: &[u8], start: usize) -> Option<(Expr, usize)> {
    let digits = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut i = digits(start);
    let whole = i > start;
    if b.get(i) == Some(&b'.') {
        let after = digits(i + 1);
        if !whole && after == i + 1 {
            return None;
        }
        i = after;
    } else if !whole {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E' | b'd' | b'D')) {
        let sign = usize::from(matches!(b.get(i + 1), Some(b'+' | b'-')));
        let end = digits(i + 1 + sign);
        if end == i + 1 + sign {
            return None;
        }
        i = end;
    }
    if matches!(b.get(i), Some(b'i' | b'j' | b'I' | b'J')) {
        i += 1;
    }
    if !matches!(
        b.get(i),
        Some(b' ' | b'\t' | b',' | b';' | b'\n' | b'\r' | b']')
    ) {
        return None;
    }
    // Only ASCII digits, signs and letters were read: the slice is UTF-8.
    let text = std::str::from_utf8(&b[start..i]).ok()?;
    Some((
        Expr {
            kind: number(text),
            span: Span::new(start, i),
        },
        i,
    ))
}

#[cfg(test)]
mod tests {
    use crate::ast::{ExprKind, StmtKind};
    use crate::parse;

    /// The rows of the matrix the first statement of `src` assigns.
    fn rows(src: &str) -> Vec<Vec<crate::ast::Expr>> {
        let parsed = parse(src);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        match &parsed.file.body[0].kind {
            StmtKind::Assign { rhs, .. } => match &rhs.kind {
                ExprKind::Matrix(rows) => rows.clone(),
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_table_reads_as_the_grammar_reads_it() {
        // `A(:) = [` is left to the grammar (an indexed target); `B    = [`, as long,
        // is read here: the rows, their spans and values must be the same.
        let line = "0.25 -1.5 .5 3. 1e-3 -2.5E+4 4i -7j 1d2 12,-3 , 8\t9 ";
        let mut body = String::from("\n");
        for k in 0..40 {
            body.push_str(line);
            body.push_str(match k % 4 {
                0 => ";\n",
                1 => "\r\n",
                2 => ";;",
                _ => "\n\n",
            });
        }
        assert!(body.len() > super::MIN_BYTES);
        let by_grammar = rows(&format!("A(:) = [{body}];\n"));
        let read_here = rows(&format!("B    = [{body}];\n"));
        assert_eq!(read_here.len(), 40);
        assert_eq!(format!("{read_here:?}"), format!("{by_grammar:?}"));
    }

    #[test]
    fn anything_but_numbers_is_left_to_the_grammar() {
        let numbers = "1 2 3 4 5 6 7 8 9 10 ".repeat(60);
        for odd in [
            "1 - 2", "1-2", "x", "0x1F", "1_000", "+2", "% note\n", "...\n",
        ] {
            let src = format!("A = [{numbers}{odd} {numbers}];\n");
            let t = super::Table::at(&src, 0, src.len());
            assert!(t.is_none(), "{odd}");
            // The grammar still parses it.
            assert!(parse(&src).diagnostics.is_empty(), "{odd}");
        }
        assert!(super::Table::at(&format!("A = [{numbers}];\n"), 0, 0).is_none());
    }
}
