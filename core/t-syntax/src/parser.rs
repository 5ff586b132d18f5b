//! The recovering driver. The grammar parses a whole file at once; when it fails, the
//! statement holding the failure is blanked with U+0001 bytes (offsets are kept, so
//! every span stays a span of the source), the grammar reads those bytes as an error
//! statement, and the file is parsed again. One bad statement therefore costs one
//! [`StmtKind::Error`] and one diagnostic, and the rest of the file is still parsed.

use crate::ast::{Actual, Cond, Direction, Formal, Ident, Proc, Program, Stmt, StmtKind};
use crate::Parsed;
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;
use pest::Parser;
use pest_derive::Parser;
use shapex_text::{Diagnostic, LineIndex, Range, Span};

#[derive(Parser)]
#[grammar = "t.pest"]
struct TParser;

/// After this many syntax errors the rest of the file is one error statement: each
/// recovery re-parses the file, so this bounds the work on garbage input.
const MAX_ERRORS: usize = 64;

/// How deep braces, `if`s and `while`s may nest. The grammar and the AST builder
/// recurse once per level, so this bounds their stack on any input.
const MAX_NESTING: usize = 200;

const BLANK: u8 = 1;

/// Parses a Language T file. Never panics; syntax errors become diagnostics (with
/// their line and column) and [`StmtKind::Error`] statements.
pub fn parse(source: &str) -> Parsed {
    let index = LineIndex::new(source);
    let mut text = source.as_bytes().to_vec();
    let mut diagnostics = Vec::new();
    if let Some(at) = too_deep(source) {
        let d = Diagnostic::error(
            "syntax.nesting",
            format!("statements nest more than {MAX_NESTING} levels deep here"),
            Span::new(at, at + 1),
        )
        .with_help("the rest of the file is not analysed");
        diagnostics.push(d);
        blank(&mut text, at, source.len());
    }
    let mut rounds = 0;
    loop {
        rounds += 1;
        if rounds > 4 * MAX_ERRORS {
            // Cannot happen with the recoveries above; a bound all the same.
            text.truncate(source.len());
            blank(&mut text, 0, source.len());
        }
        // Only ASCII bytes are ever replaced or appended, so this is still UTF-8.
        let work = String::from_utf8_lossy(&text).into_owned();
        match TParser::parse(Rule::program, &work) {
            Ok(mut pairs) => {
                let program = pairs.next().map(build_program).unwrap_or_default();
                for d in &mut diagnostics {
                    d.range = Range::of(d.span, &index);
                }
                return Parsed {
                    program,
                    diagnostics,
                };
            }
            Err(error) => {
                let pos = match error.location {
                    InputLocation::Pos(p) => p,
                    InputLocation::Span((p, _)) => p,
                };
                let expected = match &error.variant {
                    ErrorVariant::ParsingError { positives, .. } => positives.clone(),
                    ErrorVariant::CustomError { .. } => Vec::new(),
                };
                let give_up = diagnostics.len() >= MAX_ERRORS;
                if !give_up {
                    // A failure at a brace this driver appended can repeat while the
                    // recovery closes several blocks: one diagnostic says it.
                    let d = describe(source, &work, pos, &expected);
                    let repeat = diagnostics
                        .last()
                        .is_some_and(|l: &Diagnostic| l.span == d.span && l.message == d.message);
                    if !repeat {
                        diagnostics.push(d);
                    }
                }
                if give_up || !recover(&mut text, source.len(), pos, &expected) {
                    blank_rest(&mut text, source.len(), pos);
                }
            }
        }
    }
}

/// The first offset where braces, `if`s and `while`s are nested past [`MAX_NESTING`]
/// (counted generously: every `if`/`while` word opens a level until the next `;`).
fn too_deep(source: &str) -> Option<usize> {
    let bytes = source.as_bytes();
    let (mut braces, mut heads) = (0usize, 0usize);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => braces += 1,
            b'}' => braces = braces.saturating_sub(1),
            // A `;` ends the bodies of the `if`s and `while`s it follows, unless an
            // `else` continues them (a chain of `else if`s nests).
            b';' if !next_word_is(bytes, i + 1, "else") => heads = 0,
            b'i' | b'w' if word_at(bytes, i, "if") || word_at(bytes, i, "while") => heads += 1,
            _ => {}
        }
        if braces + heads > MAX_NESTING {
            return Some(i);
        }
        i += 1;
    }
    None
}

fn next_word_is(bytes: &[u8], from: usize, word: &str) -> bool {
    let start = (from..bytes.len()).find(|&j| !bytes[j].is_ascii_whitespace());
    start.is_some_and(|j| word_at(bytes, j, word))
}

fn word_at(bytes: &[u8], i: usize, word: &str) -> bool {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    bytes[i..].starts_with(word.as_bytes())
        && (i == 0 || !ident(bytes[i - 1]))
        && bytes.get(i + word.len()).is_none_or(|&b| !ident(b))
}

/// The diagnostic for a failure at `pos`: what the grammar expected, after which token.
fn describe(source: &str, work: &str, pos: usize, expected: &[Rule]) -> Diagnostic {
    // Past the source only when a `}` this driver appended is the failure.
    let pos = pos.min(source.len());
    let what = expected_words(expected);
    let prev = previous_token_end(&work.as_bytes()[..source.len()], pos);
    let found = found_word(work, pos);
    let same_line = prev.is_none_or(|p| !work[p..pos].contains('\n'));
    let (span, message) = match prev {
        _ if stray_closer(work.as_bytes(), pos, expected) => (
            Span::new(pos, pos + 1),
            format!("unmatched `{found}`: nothing open here to close"),
        ),
        Some(p) if pos >= source.len() && expected.contains(&Rule::rbrace) => (
            Span::new(char_before(source, p), p),
            "missing `}` at the end of the file, to close a block".to_string(),
        ),
        Some(p) if (!same_line || pos >= source.len()) && continues_previous(expected) => {
            let after = token_before(source, p);
            (
                Span::new(p - after.len(), p),
                format!("missing {what} after `{after}`"),
            )
        }
        _ => (
            Span::new(pos, (pos + found.len()).min(source.len())),
            format!("expected {what}, found {}", quoted(&found)),
        ),
    };
    Diagnostic::error("syntax.expected", message, span)
        .with_help("this statement is skipped; the rest of the file is still analysed")
}

/// The start of the character that ends at `end`.
fn char_before(source: &str, end: usize) -> usize {
    source[..end]
        .char_indices()
        .next_back()
        .map_or(0, |(i, _)| i)
}

fn quoted(found: &str) -> String {
    if found.is_empty() {
        "the end of the file".to_string()
    } else {
        format!("`{found}`")
    }
}

/// The token (or character) at `pos` in the working text.
fn found_word(work: &str, pos: usize) -> String {
    let rest = work.get(pos..).unwrap_or("");
    let word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if !word.is_empty() {
        return word;
    }
    rest.chars()
        .next()
        .filter(|c| *c != '\u{1}')
        .map(String::from)
        .unwrap_or_default()
}

/// The end of the last non-blank byte before `pos` (whitespace and blanked bytes skipped).
fn previous_token_end(bytes: &[u8], pos: usize) -> Option<usize> {
    (0..pos.min(bytes.len()))
        .rev()
        .find(|&i| !bytes[i].is_ascii_whitespace() && bytes[i] != BLANK)
        .map(|i| i + 1)
}

/// The identifier (or single character) of the source ending at `end`.
fn token_before(source: &str, end: usize) -> String {
    let head = &source[..end];
    let word: String = head
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if word.is_empty() {
        head.chars().last().map(String::from).unwrap_or_default()
    } else {
        word.chars().rev().collect()
    }
}

/// Words for the rules the grammar tried at the failure, in a reader's terms.
fn expected_words(expected: &[Rule]) -> String {
    let mut words: Vec<&str> = Vec::new();
    // A name or a `{` where a statement may start is "a statement"; a `;` is always
    // allowed between statements and says nothing.
    let statement = expected.iter().any(|r| rule_word(*r) == "a statement");
    for rule in expected {
        if statement && matches!(rule, Rule::name | Rule::lbrace | Rule::semi) {
            continue;
        }
        let word = rule_word(*rule);
        if !words.contains(&word) {
            words.push(word);
        }
    }
    match words.len() {
        0 => "a statement".to_string(),
        1 => words[0].to_string(),
        n => format!("{} or {}", words[..n - 1].join(", "), words[n - 1]),
    }
}

fn rule_word(rule: Rule) -> &'static str {
    match rule {
        Rule::lparen => "`(`",
        Rule::rparen => "`)`",
        Rule::lbrace => "`{`",
        Rule::rbrace => "`}`",
        Rule::lbracket => "`[`",
        Rule::rbracket => "`]`",
        Rule::comma => "`,`",
        Rule::semi => "`;`",
        Rule::eqeq => "`==`",
        Rule::name => "a name",
        Rule::number => "a number",
        Rule::extent => "an extent name",
        Rule::direction | Rule::in_out | Rule::kw_in | Rule::kw_out | Rule::kw_inout => {
            "a direction (`in`, `out` or `in out`)"
        }
        Rule::formal => "a parameter",
        Rule::kw_else => "`else`",
        Rule::kw_do => "`do`",
        Rule::kw_builtin => "`builtin`",
        Rule::sizing => "a sizing `[…]`",
        Rule::EOI => "the end of the file",
        Rule::kw_proc | Rule::proc => "`proc`",
        _ => "a statement",
    }
}

/// Makes the failure at `pos` parse next time: blanks the statement holding it, or
/// closes a block the file leaves open. False when it can change nothing.
fn recover(text: &mut Vec<u8>, source_len: usize, pos: usize, expected: &[Rule]) -> bool {
    let at_proc = word_at(text, pos.min(text.len()), "proc");
    if expected.contains(&Rule::rbrace) && (pos >= text.len() || at_proc) {
        return close_block(text, pos);
    }
    if stray_closer(text, pos, expected) {
        return blank(text, pos, pos + 1);
    }
    let prev = previous_token_end(text, pos);
    let anchor = match prev {
        Some(p)
            if (text[p..pos].contains(&b'\n') || pos >= text.len())
                && continues_previous(expected) =>
        {
            p - 1
        }
        _ => pos.min(source_len.saturating_sub(1)),
    };
    if source_len == 0 {
        return false;
    }
    let start = statement_start(text, anchor);
    let end = statement_end(text, start, anchor);
    blank(text, start, end)
}

/// Whether the failure is a closing bracket the grammar did not expect there (a `}`,
/// `)` or `]` with nothing open): then it alone is the error.
fn stray_closer(text: &[u8], pos: usize, expected: &[Rule]) -> bool {
    let closer = |open: u8, close: u8, rule: Rule, from: usize| {
        let depth = |b: u8| text[from..pos].iter().filter(|&&c| c == b).count();
        text.get(pos) == Some(&close) && !expected.contains(&rule) && depth(open) <= depth(close)
    };
    let start = statement_start(text, pos.min(text.len()));
    closer(b'{', b'}', Rule::rbrace, 0)
        || closer(b'(', b')', Rule::rparen, start)
        || closer(b'[', b']', Rule::rbracket, start)
}

/// Whether the grammar failed inside the previous statement (it expected a closing or
/// continuing token), rather than where a new statement, a `proc` or the end may start:
/// only then is a failure found on a later line reported after the previous token.
fn continues_previous(expected: &[Rule]) -> bool {
    !expected.iter().any(|r| {
        rule_word(*r) == "a statement" || matches!(r, Rule::EOI | Rule::kw_proc | Rule::proc)
    })
}

/// Closes an open block before `pos`: a `}` in the whitespace before a `proc`, or one
/// appended at the end (appending keeps every offset of the source).
fn close_block(text: &mut Vec<u8>, pos: usize) -> bool {
    if pos >= text.len() {
        text.push(b'}');
        return true;
    }
    match (0..pos).rev().find(|&i| text[i].is_ascii_whitespace()) {
        Some(i) if i + 1 == pos => {
            text[i] = b'}';
            true
        }
        _ => false,
    }
}

fn statement_start(text: &[u8], anchor: usize) -> usize {
    (0..anchor)
        .rev()
        .find(|&i| matches!(text[i], b';' | b'{' | b'}' | b'\n'))
        .map_or(0, |i| i + 1)
}

fn statement_end(text: &[u8], start: usize, anchor: usize) -> usize {
    let mut i = anchor;
    while i < text.len() {
        match text[i] {
            b';' => return i + 1,
            // A brace at the failure itself belongs to the enclosing block.
            b'{' | b'}' if i > anchor || i > start => return i,
            b'\n' if i > anchor => return i,
            _ => i += 1,
        }
    }
    text.len()
}

/// Replaces the bytes of `start..end` but line breaks by [`BLANK`], so a statement on
/// one line becomes one error statement; true if any changed. Both ends are at ASCII
/// bytes or the ends of the text, so the result is UTF-8.
fn blank(text: &mut [u8], start: usize, end: usize) -> bool {
    let mut changed = false;
    let end = end.min(text.len());
    let start = (start..end)
        .find(|&i| !text[i].is_ascii_whitespace())
        .unwrap_or(end);
    for b in &mut text[start..end] {
        if *b != b'\n' && *b != BLANK {
            *b = BLANK;
            changed = true;
        }
    }
    changed
}

/// The last resort: everything from the line of `pos` on is one error statement, and
/// any block still open is closed at the end.
fn blank_rest(text: &mut Vec<u8>, source_len: usize, pos: usize) {
    let start = statement_start(text, pos.min(source_len));
    let start = (0..start)
        .rev()
        .find(|&i| text[i] == b'\n')
        .map_or(0, |i| i + 1);
    text.truncate(source_len);
    blank(text, start, source_len);
    let opened = text[..start].iter().filter(|&&b| b == b'{').count();
    let closed = text[..start].iter().filter(|&&b| b == b'}').count();
    text.extend(std::iter::repeat_n(b'}', opened.saturating_sub(closed)));
}

fn span_of(pair: &Pair<Rule>) -> Span {
    let s = pair.as_span();
    Span::new(s.start(), s.end())
}

fn ident(pair: Pair<Rule>) -> Ident {
    Ident {
        name: pair.as_str().to_string(),
        span: span_of(&pair),
    }
}

fn build_program(pair: Pair<Rule>) -> Program {
    let mut program = Program::default();
    for item in pair.into_inner() {
        match item.as_rule() {
            Rule::proc => program.procs.push(build_proc(item)),
            Rule::semi | Rule::EOI => {}
            _ => program.top.push(build_stmt(item)),
        }
    }
    program
}

fn build_proc(pair: Pair<Rule>) -> Proc {
    let span = span_of(&pair);
    let mut name = None;
    let mut formals = Vec::new();
    let mut body = None;
    let mut header_end = span.end;
    let mut signature_end = None;
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::name => name = Some(ident(part)),
            Rule::formal => formals.push(build_formal(part)),
            Rule::rparen => header_end = span_of(&part).end,
            Rule::signature_end => signature_end = Some(span_of(&part).end),
            Rule::block => body = Some(build_stmt(part)),
            Rule::body_run => body = run_body(part),
            _ => {}
        }
    }
    let name = name.unwrap_or(Ident {
        name: String::new(),
        span,
    });
    // A declaration's span ends at its header or its `builtin`/`;`, not at the
    // whitespace an empty braceless body skipped.
    let span = match &body {
        None => Span::new(span.start, signature_end.unwrap_or(header_end)),
        Some(_) => span,
    };
    Proc {
        name,
        formals,
        body,
        header: Span::new(span.start, header_end),
        span,
    }
}

/// A braceless body (Figure 2): a compound of its statements, or a declaration when
/// the header is followed by no statement.
fn run_body(pair: Pair<Rule>) -> Option<Stmt> {
    let span = span_of(&pair);
    let stmts: Vec<Stmt> = pair
        .into_inner()
        .filter(|p| p.as_rule() != Rule::semi)
        .map(build_stmt)
        .collect();
    if stmts.is_empty() {
        return None;
    }
    let span = Span::new(span.start, stmts.last().map_or(span.end, |s| s.span.end));
    Some(Stmt {
        kind: StmtKind::Compound(stmts),
        span,
    })
}

fn build_formal(pair: Pair<Rule>) -> Formal {
    let span = span_of(&pair);
    let mut direction = Direction::In;
    let mut name = None;
    let mut sizing = Vec::new();
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::direction => direction = build_direction(part),
            Rule::name => name = Some(ident(part)),
            Rule::sizing => sizing = extents(part),
            _ => {}
        }
    }
    Formal {
        direction,
        name: name.unwrap_or(Ident {
            name: String::new(),
            span,
        }),
        sizing,
        span,
    }
}

fn build_direction(pair: Pair<Rule>) -> Direction {
    match pair.into_inner().next().map(|p| p.as_rule()) {
        Some(Rule::in_out) => Direction::InOut,
        Some(Rule::kw_out) => Direction::Out,
        _ => Direction::In,
    }
}

/// `[R,S]`, `[R][S]` or a mix: the extent names in order.
fn extents(pair: Pair<Rule>) -> Vec<Ident> {
    pair.into_inner()
        .filter(|p| p.as_rule() == Rule::extent)
        .map(ident)
        .collect()
}

fn build_stmt(pair: Pair<Rule>) -> Stmt {
    let span = span_of(&pair);
    let kind = match pair.as_rule() {
        Rule::call => build_call(pair),
        Rule::block => StmtKind::Compound(
            pair.into_inner()
                .filter(|p| !matches!(p.as_rule(), Rule::semi | Rule::lbrace | Rule::rbrace))
                .map(build_stmt)
                .collect(),
        ),
        Rule::if_stmt => build_if(pair),
        Rule::while_stmt => build_while(pair),
        Rule::decl => {
            let mut parts = pair.into_inner().filter(|p| p.as_rule() != Rule::kw_decl);
            let name = parts.next().map(ident).unwrap_or(Ident {
                name: String::new(),
                span,
            });
            let sizing = parts.next().map(extents).unwrap_or_default();
            StmtKind::Decl { name, sizing }
        }
        _ => StmtKind::Error,
    };
    Stmt { kind, span }
}

fn build_call(pair: Pair<Rule>) -> StmtKind {
    let mut parts = pair.into_inner();
    let callee = parts.next().map(ident).unwrap_or(Ident {
        name: String::new(),
        span: Span::new(0, 0),
    });
    let args = parts.filter_map(actual).collect();
    StmtKind::Call { callee, args }
}

fn actual(pair: Pair<Rule>) -> Option<Actual> {
    match pair.as_rule() {
        Rule::name => Some(Actual::Var(ident(pair))),
        Rule::number => Some(Actual::Literal {
            text: pair.as_str().to_string(),
            span: span_of(&pair),
        }),
        _ => None,
    }
}

fn build_cond(pair: Pair<Rule>) -> Cond {
    Cond {
        span: span_of(&pair),
        operands: pair.into_inner().filter_map(actual).collect(),
    }
}

/// The statements among a construct's children (its keywords and punctuation skipped).
fn stmts_of<'a>(pairs: impl Iterator<Item = Pair<'a, Rule>>) -> Vec<Stmt> {
    pairs
        .filter(|p| {
            matches!(
                p.as_rule(),
                Rule::call
                    | Rule::block
                    | Rule::if_stmt
                    | Rule::while_stmt
                    | Rule::decl
                    | Rule::error_stmt
            )
        })
        .map(build_stmt)
        .collect()
}

fn build_if(pair: Pair<Rule>) -> StmtKind {
    let parts: Vec<Pair<Rule>> = pair.into_inner().collect();
    let cond = parts.iter().find(|p| p.as_rule() == Rule::cond).cloned();
    let mut branches = stmts_of(parts.into_iter()).into_iter();
    let then = branches.next().unwrap_or(Stmt {
        kind: StmtKind::Compound(Vec::new()),
        span: Span::new(0, 0),
    });
    StmtKind::If {
        cond: cond.map(build_cond).unwrap_or(Cond {
            operands: Vec::new(),
            span: then.span,
        }),
        then: Box::new(then),
        otherwise: branches.next().map(Box::new),
    }
}

fn build_while(pair: Pair<Rule>) -> StmtKind {
    let parts: Vec<Pair<Rule>> = pair.into_inner().collect();
    let cond = parts.iter().find(|p| p.as_rule() == Rule::cond).cloned();
    let body = stmts_of(parts.into_iter())
        .into_iter()
        .next()
        .unwrap_or(Stmt {
            kind: StmtKind::Compound(Vec::new()),
            span: Span::new(0, 0),
        });
    StmtKind::While {
        cond: cond.map(build_cond).unwrap_or(Cond {
            operands: Vec::new(),
            span: body.span,
        }),
        body: Box::new(body),
    }
}
