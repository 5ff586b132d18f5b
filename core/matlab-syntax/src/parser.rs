//! The front end's driver. It runs the pest grammar one clause at a time (so a bad line
//! costs one [`StmtKind::Error`] and the next line is parsed normally), then folds the
//! flat clause list into nested blocks in [`super::blocks`].

use super::ast;
use super::blocks::{self, Clause};
use super::depth::{self, MAX_EXPR_DEPTH};
use super::expr::Builder;
use super::lexical::{self, Unclosed};
use super::recover;
use super::shift;
use super::tables::Table;
use super::Parsed;
use pest::Parser;
use pest_derive::Parser;
use shapex_text::{Diagnostic, Severity};
use shapex_text::{LineIndex, Span};

#[derive(Parser)]
#[grammar = "matlab.pest"]
pub(super) struct MatlabParser;

/// How deep brackets and anonymous function bodies may nest in a statement. The grammar
/// enforces it (`nest` in matlab.pest: this many levels inside the statement's own
/// expression), which bounds the recursion of the grammar and of the AST builder on
/// any stack; this names it in the diagnostic. Octave's own m-files never nest
/// brackets deeper than 8.
const MAX_NESTING: usize = 64;

/// Parses a MATLAB or Octave file. Never panics; syntax errors become diagnostics and
/// [`StmtKind::Error`] statements.
pub fn parse(source: &str) -> Parsed {
    parse_with(source, &mut ParseMemo::default())
}

/// What parsing one version of a text leaves for parsing the next (an editor's
/// successive edits): the text and the clauses that parsed, with where they were.
///
/// A clause is parsed from its start to its *bound* (see [`Bounds`]: the end of its
/// chunk, where brackets close at the end of a line), never further, so its parse is a
/// function of the text of its chunk. After an edit, a clause is reused when it is in
/// a chunk that starts where an old clause's chunk started and that text is unchanged:
/// before the edit, at the same place and ending before the edit starts; after it,
/// moved by the edit's length (the text after the edit is the old text, moved).
#[derive(Default)]
pub struct ParseMemo {
    source: String,
    /// Clauses that parsed (no error), by start.
    clauses: Vec<Memoised>,
    /// Clauses the last parse reused and parsed: for tests and benchmarks.
    pub last_run: (usize, usize),
}

#[derive(Clone)]
struct Memoised {
    start: usize,
    end: usize,
    /// The start of its chunk and its bound (see [`Bounds`]): its parse read the text
    /// from `chunk` to `bound` only.
    chunk: usize,
    bound: usize,
    clause: Clause,
}

/// [`parse`], reusing from `memo` the clauses the edit cannot have changed (see
/// [`ParseMemo`]). The result is the same as `parse`'s.
pub fn parse_with(source: &str, memo: &mut ParseMemo) -> Parsed {
    let old = std::mem::take(memo);
    if let Some(at) = classdef_start(source) {
        return classdef(source, at);
    }
    let common = |a: &mut dyn Iterator<Item = (u8, u8)>| a.take_while(|(x, y)| x == y).count();
    let prefix = common(&mut old.source.bytes().zip(source.bytes()));
    let suffix = common(&mut old.source.bytes().rev().zip(source.bytes().rev()));
    let mut reuse = Reuse {
        before: prefix,
        after: source.len() - suffix,
        by: source.len().wrapping_sub(old.source.len()),
        old: old
            .clauses
            .into_iter()
            .map(|c| (c.start, Some(c)))
            .collect(),
        kept: Vec::new(),
        stats: (0, 0),
    };
    let mut diagnostics = Vec::new();
    let clauses = clauses(source, &mut diagnostics, &mut reuse);
    *memo = ParseMemo {
        source: source.to_string(),
        clauses: reuse.kept,
        last_run: reuse.stats,
    };
    let file = blocks::fold(source, clauses, &mut diagnostics);
    // Clause errors and block-structure errors are found in two passes; show them in
    // source order.
    diagnostics.sort_by_key(|d| d.span.start);
    Parsed { file, diagnostics }
}

/// Where the text each clause may read ends (its *bound*), found in one pass over
/// the file. The file is cut into *chunks*: a chunk starts at the start of the line of
/// the first clause not in an earlier chunk and ends just after the first newline, from
/// there, at which brackets are all closed (strings, comments and continuations
/// skipped), or at the end of the file. Each clause reads up to the end of its chunk:
/// bounding the grammar's input bounds its lookahead. An `arguments` block spans lines
/// by design and reads to the end of the file. A chunk is scanned once, so a line of a
/// thousand clauses, or a thousand continued lines, stays linear.
struct Bounds<'a> {
    source: &'a str,
    /// Start of the line of the last clause asked about.
    line_start: usize,
    /// The text before this has been searched for line starts.
    searched: usize,
    /// The current chunk: its start and end.
    chunk: Option<(usize, usize)>,
}

impl<'a> Bounds<'a> {
    fn new(source: &'a str) -> Bounds<'a> {
        Bounds {
            source,
            line_start: 0,
            searched: 0,
            chunk: None,
        }
    }

    /// The start of the line of `pos` (clauses come in increasing order).
    fn line_start(&mut self, pos: usize) -> usize {
        let b = self.source.as_bytes();
        for (i, &c) in b.iter().enumerate().take(pos).skip(self.searched) {
            if c == b'\n' || c == b'\r' {
                self.line_start = i + 1;
            }
        }
        self.searched = self.searched.max(pos);
        self.line_start
    }

    /// The chunk of the clause at `pos`: its start and the clause's bound.
    fn of(&mut self, pos: usize) -> (usize, usize) {
        let line_start = self.line_start(pos);
        let rest = &self.source[pos..];
        let word_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if &rest[..word_end] == "arguments" {
            return (line_start, self.source.len());
        }
        match self.chunk {
            Some((start, end)) if pos < end => (start, end),
            _ => {
                let end = line_bound(self.source, line_start);
                self.chunk = Some((line_start, end));
                (line_start, end)
            }
        }
    }
}

/// Just after the first newline from `from` at which brackets are all closed, or the
/// end of the file (see [`Bounds`]).
fn line_bound(source: &str, mut from: usize) -> usize {
    loop {
        let newline = recover::nested_extent(source, from);
        let tail = &source[newline..];
        let end = newline
            + if tail.starts_with("\r\n") {
                2
            } else {
                tail.chars().next().map_or(0, char::len_utf8)
            };
        // Octave continues a double-quoted string (and a line) after a backslash at
        // the end of a line: the clause may read the next line too.
        if end == source.len() || !source[..newline].ends_with('\\') {
            return end;
        }
        from = end;
    }
}

/// The old parse's clauses and what of the text the edit left unchanged.
struct Reuse {
    /// The text before this offset is the old text.
    before: usize,
    /// The text from this offset on is the old text from `after - by` on.
    after: usize,
    /// How far the edit moved the text after it (wrapping).
    by: usize,
    /// The old clauses by start; each is taken at most once.
    old: Vec<(usize, Option<Memoised>)>,
    /// This parse's clauses that parsed, for the next.
    kept: Vec<Memoised>,
    /// (reused, parsed).
    stats: (usize, usize),
}

impl Reuse {
    /// The old clause whose text is the text at `pos`, in a chunk that starts at
    /// `chunk` (see [`ParseMemo`]), moved here.
    fn take(&mut self, pos: usize, chunk: usize) -> Option<Memoised> {
        let (old_pos, by) = if chunk >= self.after {
            (pos.wrapping_sub(self.by), self.by)
        } else {
            (pos, 0)
        };
        let i = self.old.binary_search_by_key(&old_pos, |c| c.0).ok()?;
        let fits = |c: &Memoised| {
            c.chunk == chunk.wrapping_sub(by) && (chunk >= self.after || c.bound < self.before)
        };
        if !self.old[i].1.as_ref().is_some_and(fits) {
            return None;
        }
        let mut m = self.old[i].1.take()?;
        shift::clause(&mut m.clause, by);
        m.start = pos;
        m.end = m.end.wrapping_add(by);
        m.chunk = chunk;
        m.bound = m.bound.wrapping_add(by);
        Some(m)
    }
}

/// Splits the source into clauses, recovering from each bad one at the next line.
fn clauses(source: &str, diagnostics: &mut Vec<Diagnostic>, reuse: &mut Reuse) -> Vec<Clause> {
    let mut out = Vec::new();
    let mut pos = 0;
    let index = LineIndex::new(source);
    let mut bounds = Bounds::new(source);
    loop {
        let gap = lexical::gap(source, pos);
        if let Some(unclosed) = gap.unclosed {
            diagnostics.push(unclosed_comment(source, &index, unclosed));
        }
        pos = gap.end;
        if pos >= source.len() {
            break;
        }
        let (chunk, bound) = bounds.of(pos);
        if let Some(m) = reuse.take(pos, chunk) {
            reuse.stats.0 += 1;
            pos = m.end;
            out.push(m.clause.clone());
            reuse.kept.push(m);
            continue;
        }
        reuse.stats.1 += 1;
        let rest = &source[pos..bound];
        // A clause parsed here is kept for the next parse, with the text it read.
        let mut keep = |clause: Clause, len: usize, out: &mut Vec<Clause>| {
            reuse.kept.push(Memoised {
                start: pos,
                end: pos + len,
                chunk,
                bound,
                clause: clause.clone(),
            });
            out.push(clause);
        };
        if let Some((clause, len)) = table_clause(source, pos, bound) {
            keep(clause, len, &mut out);
            pos += len;
            continue;
        }
        match MatlabParser::parse(Rule::item, rest) {
            Ok(mut pairs) => {
                let Some(item) = pairs.next() else { break };
                let len = item.as_span().end();
                if len == 0 {
                    // Cannot happen with this grammar, but never loop forever.
                    pos = bad_clause(source, &index, pos, pos, &mut out, diagnostics);
                    continue;
                }
                let clause = Builder::new(pos).clause(item);
                if depth::clause_exceeds(&clause, MAX_EXPR_DEPTH) {
                    depth::discard(clause);
                    out.push(too_deep_clause(source, pos, pos + len, diagnostics));
                } else {
                    keep(clause, len, &mut out);
                }
                pos += len;
            }
            Err(err) => {
                let furthest = pos + error_offset(&err);
                pos = bad_clause(source, &index, pos, furthest, &mut out, diagnostics);
            }
        }
    }
    out
}

/// The clause at `pos` when it assigns a table of numbers (see [`Table`]): the
/// grammar parses it with the table blanked, and the table's rows are read apart.
fn table_clause(source: &str, pos: usize, bound: usize) -> Option<(Clause, usize)> {
    let table = Table::at(source, pos, bound)?;
    let blanked = table.blanked(&source[pos..bound], pos);
    let item = MatlabParser::parse(Rule::item, &blanked).ok()?.next()?;
    let len = item.as_span().end();
    let clause = Builder::new(pos).clause(item);
    Some((table.fill(clause)?, len))
}

/// Records a clause that failed to parse and returns where parsing resumes.
fn bad_clause(
    source: &str,
    index: &LineIndex,
    start: usize,
    furthest: usize,
    out: &mut Vec<Clause>,
    diagnostics: &mut Vec<Diagnostic>,
) -> usize {
    let (end, diagnostic) = match recover::too_deep(source, start, furthest, MAX_NESTING) {
        Some(mut d) => {
            let end = recover::nested_extent(source, start).max(d.span.end);
            if end == source.len() && source[start..].contains('\n') {
                d.help = Some(
                    "Its brackets never close, so the rest of the file is part of this error \
                     and is not analysed: close them, or cut the nest."
                        .into(),
                );
            }
            (end, d)
        }
        None => {
            let end = recover::bad_extent(source, start, furthest);
            let d = recover::describe(source, index, Span::new(start, end), furthest);
            (end, d)
        }
    };
    diagnostics.push(diagnostic);
    out.push(Clause::Error {
        span: Span::new(start, end),
        opener: recover::opener_word(&source[start..end]),
    });
    end
}

fn error_offset(err: &pest::error::Error<Rule>) -> usize {
    match err.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    }
}

/// A clause whose expressions nest more than [`MAX_EXPR_DEPTH`] deep (already
/// discarded): reported, and kept as an error so that its block keyword still pairs.
fn too_deep_clause(
    source: &str,
    start: usize,
    end: usize,
    diagnostics: &mut Vec<Diagnostic>,
) -> Clause {
    let span = Span::new(start, end);
    let msg = format!("expression is nested more than {MAX_EXPR_DEPTH} deep");
    diagnostics.push(Diagnostic::error("syntax.too-deep", msg, span).with_help(
        "split it into several statements; a chain of operators nests too: \
         `a + b + c` is `(a + b) + c`",
    ));
    Clause::Error {
        span,
        opener: recover::opener_word(&source[start..end]),
    }
}

/// A block comment still open at the end of the file.
fn unclosed_comment(source: &str, index: &LineIndex, u: Unclosed) -> Diagnostic {
    let marker = &source[u.at..u.at + 2];
    let lc = index.line_col(u.at);
    let mut msg = format!(
        "unterminated block comment: the '{marker}' at {}:{} is never closed",
        lc.line, lc.col
    );
    if u.open > 1 {
        msg += &format!(
            " ({} nested block comments are open at the end of the file)",
            u.open
        );
    }
    Diagnostic::error(
        "syntax.unterminated-comment",
        msg,
        Span::new(u.at, u.at + 2),
    )
    .with_help("block comments nest: each '%{' alone on a line needs a '%}' alone on a line")
}

/// Byte offset of a leading `classdef` keyword, if the file is a class definition.
fn classdef_start(source: &str) -> Option<usize> {
    let at = lexical::gap(source, 0).end;
    let rest = source[at..].strip_prefix("classdef")?;
    let boundary = rest
        .chars()
        .next()
        .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
    boundary.then_some(at)
}

fn classdef(source: &str, at: usize) -> Parsed {
    let file = ast::File {
        kind: ast::FileKind::Classdef,
        body: vec![],
        functions: vec![],
        span: Span::new(0, source.len()),
    };
    let diag = Diagnostic::new(
        Severity::Info,
        "syntax.classdef",
        "classdef files are not analysed",
        Span::new(at, at + "classdef".len()),
    );
    Parsed {
        file,
        diagnostics: vec![diag],
    }
}
