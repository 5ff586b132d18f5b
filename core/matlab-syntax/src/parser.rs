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
/// A clause is parsed from the text at its start to the end of the file (the grammar
/// may look ahead past the clause's end), so its parse is a function of that whole
/// rest. Where the rest is unchanged, that is in the text after the edit, a clause
/// that starts where an old one started (moved by the edit's length) is the old clause
/// moved; from the first such clause on, the parse follows the old one. Clauses before
/// the edit are parsed again: the grammar's lookahead is not bounded, so they may
/// read the edited text.
#[derive(Default)]
pub struct ParseMemo {
    source: String,
    /// Clauses that parsed (no error), by start, with their end.
    clauses: Vec<(usize, usize, Clause)>,
    /// Clauses the last parse reused and parsed: for tests and benchmarks.
    pub last_run: (usize, usize),
}

/// [`parse`], reusing from `memo` the clauses after the edit (see [`ParseMemo`]). The
/// result is the same as `parse`'s.
pub fn parse_with(source: &str, memo: &mut ParseMemo) -> Parsed {
    let old = std::mem::take(memo);
    if let Some(at) = classdef_start(source) {
        return classdef(source, at);
    }
    let suffix = old
        .source
        .bytes()
        .rev()
        .zip(source.bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let mut reuse = Reuse {
        from: source.len() - suffix,
        by: source.len().wrapping_sub(old.source.len()),
        old: old
            .clauses
            .into_iter()
            .map(|(start, end, c)| (start, Some((end, c))))
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

/// The old parse's clauses and where the text after the edit starts.
struct Reuse {
    /// New text from here on equals the old text from `from - by` on.
    from: usize,
    /// How far the edit moved the text after it (wrapping).
    by: usize,
    /// The old clauses by start, with their end; each is taken at most once.
    old: Vec<(usize, Option<(usize, Clause)>)>,
    /// This parse's clauses that parsed, for the next.
    kept: Vec<(usize, usize, Clause)>,
    /// (reused, parsed).
    stats: (usize, usize),
}

impl Reuse {
    /// The old clause that parsed from the same rest of the text as `pos`, moved here,
    /// with its end.
    fn take(&mut self, pos: usize) -> Option<(Clause, usize)> {
        if pos < self.from {
            return None;
        }
        let old_pos = pos.wrapping_sub(self.by);
        let i = self.old.binary_search_by_key(&old_pos, |c| c.0).ok()?;
        let (end, mut clause) = self.old[i].1.take()?;
        shift::clause(&mut clause, self.by);
        Some((clause, end.wrapping_add(self.by)))
    }

    fn keep(&mut self, start: usize, end: usize, clause: &Clause) {
        self.kept.push((start, end, clause.clone()));
    }
}

/// Splits the source into clauses, recovering from each bad one at the next line.
fn clauses(source: &str, diagnostics: &mut Vec<Diagnostic>, reuse: &mut Reuse) -> Vec<Clause> {
    let mut out = Vec::new();
    let mut pos = 0;
    let index = LineIndex::new(source);
    loop {
        let gap = lexical::gap(source, pos);
        if let Some(unclosed) = gap.unclosed {
            diagnostics.push(unclosed_comment(source, &index, unclosed));
        }
        pos = gap.end;
        if pos >= source.len() {
            break;
        }
        if let Some((clause, end)) = reuse.take(pos) {
            reuse.stats.0 += 1;
            reuse.keep(pos, end, &clause);
            out.push(clause);
            pos = end;
            continue;
        }
        reuse.stats.1 += 1;
        let rest = &source[pos..];
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
                    reuse.keep(pos, pos + len, &clause);
                    out.push(clause);
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
        Some(d) => (recover::nested_extent(source, start).max(d.span.end), d),
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
