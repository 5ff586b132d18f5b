//! The front end's driver. It runs the pest grammar one clause at a time (so a bad line
//! costs one [`StmtKind::Error`] and the next line is parsed normally), then folds the
//! flat clause list into nested blocks in [`super::blocks`].

use super::ast::{self, StmtKind};
use super::blocks::{self, Clause};
use super::expr::Builder;
use super::recover;
use super::Parsed;
use crate::report::{Diagnostic, Severity};
use crate::span::{LineIndex, Span};
use pest::Parser;
use pest_derive::Parser;

#[derive(Parser)]
#[grammar = "syntax/matlab/matlab.pest"]
pub(super) struct MatlabParser;

/// Bracket nesting beyond this is rejected before pest sees it: the grammar and the
/// builder recurse per bracket, and hostile input must not exhaust the stack (wasm has
/// about 1 MB of it). Octave's own m-files never nest deeper than 8.
const MAX_BRACKET_DEPTH: usize = 64;

/// Parses a MATLAB or Octave file. Never panics; syntax errors become diagnostics and
/// [`StmtKind::Error`] statements.
pub fn parse(source: &str) -> Parsed {
    if let Some(at) = classdef_start(source) {
        return classdef(source, at);
    }
    if let Some(at) = recover::too_deep(source, MAX_BRACKET_DEPTH) {
        return too_deep(source, at);
    }
    let mut diagnostics = Vec::new();
    let clauses = clauses(source, &mut diagnostics);
    let file = blocks::fold(source, clauses, &mut diagnostics);
    // Clause errors and block-structure errors are found in two passes; show them in
    // source order.
    diagnostics.sort_by_key(|d| d.span.start);
    Parsed { file, diagnostics }
}

/// Splits the source into clauses, recovering from each bad one at the next line.
fn clauses(source: &str, diagnostics: &mut Vec<Diagnostic>) -> Vec<Clause> {
    let mut out = Vec::new();
    let mut pos = 0;
    let index = LineIndex::new(source);
    loop {
        pos += gap_len(&source[pos..]);
        if pos >= source.len() {
            break;
        }
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
                out.push(Builder::new(pos).clause(item));
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
    let end = recover::bad_extent(source, start, furthest);
    diagnostics.push(recover::describe(
        source,
        index,
        Span::new(start, end),
        furthest,
    ));
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

/// Length of the blanks, comments and stray separators at the start of `text`.
fn gap_len(text: &str) -> usize {
    MatlabParser::parse(Rule::gap, text)
        .ok()
        .and_then(|mut p| p.next())
        .map_or(0, |p| p.as_span().end())
}

/// Byte offset of a leading `classdef` keyword, if the file is a class definition.
fn classdef_start(source: &str) -> Option<usize> {
    let at = gap_len(source);
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

fn too_deep(source: &str, at: usize) -> Parsed {
    let whole = Span::new(0, source.len());
    let file = ast::File {
        kind: ast::FileKind::Script,
        body: vec![ast::Stmt {
            kind: StmtKind::Error,
            span: whole,
            prints: false,
        }],
        functions: vec![],
        span: whole,
    };
    let diag = Diagnostic::error(
        "syntax.invalid",
        format!("brackets are nested more than {MAX_BRACKET_DEPTH} deep"),
        Span::new(at, (at + 1).min(source.len())),
    );
    Parsed {
        file,
        diagnostics: vec![diag],
    }
}
