//! The recovering driver. The grammar parses a whole file at once; when it fails, the
//! top-level item holding the failure (from its start to the next line that starts in
//! the first column, or the next `def`) is blanked with U+0001 bytes, which the grammar
//! reads as blanks (offsets are kept, so every span stays a span of the source), and the
//! file is parsed again. One bad definition therefore costs one diagnostic and one
//! [`Def`] whose body is [`TermKind::Error`], and the rest of the file is still parsed.
//!
//! Two failures cost less: an unmatched closing bracket alone is blanked (the item
//! around it still parses), and an unclosed `{-` comment blanks the rest of the file.

use crate::ast::{Def, Ident, Param, Program, Term, TermKind, Type, TypeKind};
use crate::Parsed;
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;
use pest::Parser;
use pest_derive::Parser;
use shapex_text::{Diagnostic, LineIndex, Range, Span};

#[derive(Parser)]
#[grammar = "vec.pest"]
struct VecParser;

/// After this many syntax errors the rest of the file is skipped: each recovery
/// re-parses the file, so this bounds the work on garbage input.
const MAX_ERRORS: usize = 64;

/// How deep brackets and binding forms (`\`, `fun`, `rec`, `ifs`, `if`, `check`, `let`)
/// may nest in one item, counted generously. The grammar and the AST builder recurse
/// once per level, so this bounds their stack on any input.
pub(crate) const MAX_NESTING: usize = 100;

/// How deep the AST of one term or type may be (long operator chains and application
/// spines nest without brackets). Deeper terms become [`TermKind::Error`], so every
/// consumer of the AST may recurse over it.
pub(crate) const MAX_DEPTH: usize = 400;

const BLANK: u8 = 1;

/// Parses a VEC / SIZE / SIZE_C file. Never panics; syntax errors become diagnostics
/// (with their line and column) and [`TermKind::Error`] nodes.
pub fn parse(source: &str) -> Parsed {
    let index = LineIndex::new(source);
    let mut text = source.as_bytes().to_vec();
    let mut diagnostics = Vec::new();
    let mut broken: Vec<Region> = Vec::new();

    // Every item nested too deep is skipped (the grammar must never see one); the
    // first few are reported.
    for (start, end, at) in too_deep(&lex(source)) {
        if diagnostics.len() < MAX_ERRORS {
            diagnostics.push(
                Diagnostic::error(
                    "syntax.nesting",
                    format!(
                        "brackets and binding forms nest more than {MAX_NESTING} levels deep here"
                    ),
                    Span::new(at, next_char(source, at)),
                )
                .with_help("this item is skipped; the rest of the file is still parsed"),
            );
        }
        // Keep the line break before the next item.
        let end = if end > start && source.as_bytes()[end - 1] == b'\n' {
            end - 1
        } else {
            end
        };
        blank(&mut text, start, end);
        broken.push(Region::item(start, end, source));
    }

    let mut rounds = 0;
    let program = loop {
        rounds += 1;
        // Only whole characters are ever replaced (by ASCII bytes), so this is UTF-8.
        let work = String::from_utf8_lossy(&text).into_owned();
        if rounds > 4 * MAX_ERRORS {
            // Cannot happen with the recoveries below; a bound all the same.
            break Program::default();
        }
        match VecParser::parse(Rule::program, &work) {
            Ok(mut pairs) => {
                let mut builder = Builder {
                    source,
                    diagnostics: &mut diagnostics,
                };
                break match pairs.next() {
                    Some(pair) => builder.program(pair, &broken),
                    None => Program::default(),
                };
            }
            Err(error) => {
                let pos = match error.location {
                    InputLocation::Pos(p) => p,
                    InputLocation::Span((p, _)) => p,
                }
                .min(source.len());
                let expected = match &error.variant {
                    ErrorVariant::ParsingError { positives, .. } => positives.clone(),
                    ErrorVariant::CustomError { .. } => Vec::new(),
                };
                let lexed = lex(&work);
                let give_up = diagnostics.len() >= MAX_ERRORS;
                let failure = Failure::classify(&work, &lexed, pos, &expected);
                if !give_up {
                    let d = failure.describe(&work, &lexed, pos, &expected);
                    let repeat = diagnostics
                        .last()
                        .is_some_and(|l: &Diagnostic| l.span == d.span && l.message == d.message);
                    if !repeat {
                        diagnostics.push(d);
                    }
                }
                let changed = if give_up {
                    let (start, _) = item_region(&work, &lexed, pos);
                    broken.push(Region::item(start, source.len(), source));
                    blank(&mut text, start, source.len())
                } else {
                    failure.recover(&mut text, &work, &lexed, pos, source, &mut broken)
                };
                if !changed && !blank(&mut text, 0, source.len()) {
                    // Nothing left to blank, and still no parse: cannot happen.
                    break Program::default();
                }
            }
        }
    };
    for d in &mut diagnostics {
        d.range = Range::of(d.span, &index);
    }
    Parsed {
        program,
        diagnostics,
    }
}

// ----------------------------------------------------------------------------------
// A small lexer, for the driver only: item boundaries, nesting, and the words of the
// diagnostics. It agrees with the grammar on blanks, comments and line starts.

#[derive(Clone, Copy, Debug)]
struct Token {
    start: usize,
    end: usize,
    /// Starts in the first column (so it starts a top-level item).
    line_start: bool,
}

struct Lexed<'a> {
    text: &'a str,
    tokens: Vec<Token>,
    /// Where a `{-` comment with no `-}` starts.
    unclosed_comment: Option<usize>,
}

impl Lexed<'_> {
    fn word(&self, t: &Token) -> &str {
        &self.text[t.start..t.end]
    }

    /// Whether `t` starts a top-level item: a token in the first column, or `def`.
    fn is_boundary(&self, t: &Token) -> bool {
        t.line_start || self.word(t) == "def"
    }

    /// The index of the first token that ends after `pos`.
    fn at(&self, pos: usize) -> usize {
        self.tokens.partition_point(|t| t.end <= pos)
    }
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'\''
}

fn lex(text: &str) -> Lexed<'_> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut unclosed_comment = None;
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        match bytes[i] {
            b' ' | b'\t' | b'\r' | b'\n' | BLANK => {
                i += 1;
                continue;
            }
            _ if rest.starts_with("\u{feff}".as_bytes()) => {
                i += 3;
                continue;
            }
            _ if rest.starts_with(b"--") => {
                i += rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                continue;
            }
            _ if rest.starts_with(b"{-") => {
                match rest[2..].windows(2).position(|w| w == b"-}") {
                    Some(j) => i += j + 4,
                    None => {
                        unclosed_comment = Some(i);
                        i = bytes.len();
                    }
                }
                continue;
            }
            _ => {}
        }
        let start = i;
        let b = bytes[i];
        let len = if b.is_ascii_alphanumeric() || b == b'_' || b == b'\'' {
            1 + rest[1..].iter().take_while(|&&c| is_ident_byte(c)).count()
        } else if b == b'~' && rest.get(1).is_some_and(|c| c.is_ascii_digit()) {
            1 + rest[1..].iter().take_while(|&&c| is_ident_byte(c)).count()
        } else if [&b"->"[..], b"::", b"~+", b"<="]
            .iter()
            .any(|op| rest.starts_with(op))
        {
            2
        } else if b.is_ascii() {
            1
        } else {
            text[i..].chars().next().map_or(1, char::len_utf8)
        };
        i += len;
        tokens.push(Token {
            start,
            end: i,
            line_start: start == 0 || bytes[start - 1] == b'\n',
        });
    }
    Lexed {
        text,
        tokens,
        unclosed_comment,
    }
}

/// The items (start, end, offending offset) whose brackets and binding forms nest
/// past [`MAX_NESTING`]. Every opening bracket and every binding keyword opens a
/// level; a closing bracket closes its bracket and the binding forms inside it.
fn too_deep(lexed: &Lexed) -> Vec<(usize, usize, usize)> {
    let mut found = Vec::new();
    // The binding forms open in each enclosing bracket, and in the innermost one.
    let mut frames: Vec<usize> = Vec::new();
    let mut heads = 0usize;
    let mut total = 0usize;
    let mut item_start = 0;
    let mut deep_at = None;
    for (k, t) in lexed.tokens.iter().enumerate() {
        if lexed.is_boundary(t) && k > 0 {
            if let Some(at) = deep_at.take() {
                found.push((item_start, t.start, at));
            }
            frames.clear();
            heads = 0;
            total = 0;
            item_start = t.start;
        }
        if deep_at.is_some() {
            continue;
        }
        match lexed.word(t) {
            "(" | "[" | "<" | "⟨" => {
                frames.push(heads);
                heads = 0;
                total += 1;
            }
            ")" | "]" | ">" | "⟩" => {
                if let Some(outer) = frames.pop() {
                    total -= heads + 1;
                    heads = outer;
                }
            }
            "\\" | "λ" | "fun" | "rec" | "ifs" | "if" | "check" | "let" => {
                heads += 1;
                total += 1;
            }
            _ => {}
        }
        if total > MAX_NESTING {
            deep_at = Some(t.start);
        }
    }
    if let Some(at) = deep_at {
        found.push((item_start, lexed.text.len(), at));
    }
    found
}

/// Replaces the bytes of `start..end` by [`BLANK`]; true if any changed. Both ends are
/// character boundaries (token starts, the ends of the text, or just before a line
/// break), so the result is UTF-8.
fn blank(text: &mut [u8], start: usize, end: usize) -> bool {
    let end = end.min(text.len());
    let mut changed = false;
    for b in &mut text[start.min(end)..end] {
        if *b != BLANK {
            *b = BLANK;
            changed = true;
        }
    }
    changed
}

fn next_char(text: &str, at: usize) -> usize {
    text.get(at..)
        .and_then(|s| s.chars().next())
        .map_or(at, |c| at + c.len_utf8())
}

/// The top-level item that holds a failure at `pos`: from its first token to the next
/// item (kept: the line break before a first-column item is not blanked). A failure
/// at a `def` belongs to the item before it (a `def` always starts an item well).
/// Lines in the first column that cannot start an item (`then …`, `) …`, `+ …`) are
/// taken to continue the broken item, not to be items of their own.
fn item_region(work: &str, lexed: &Lexed, pos: usize) -> (usize, usize) {
    let tokens = &lexed.tokens;
    let here = lexed.at(pos);
    let at_def = tokens
        .get(here)
        .is_some_and(|t| t.start == pos && lexed.word(t) == "def");
    let start = tokens[..here]
        .iter()
        .rev()
        .find(|t| lexed.is_boundary(t))
        .map_or(0, |t| t.start);
    let start = match tokens.get(here) {
        Some(t) if t.start <= pos && lexed.is_boundary(t) && !at_def => t.start,
        _ => start,
    };
    if at_def {
        return (start, pos);
    }
    let mut next = tokens[here..]
        .iter()
        .filter(|t| t.start > pos.max(start) && lexed.is_boundary(t));
    let end = loop {
        match next.next() {
            Some(t) if lexed.word(t) != "def" && !starts_a_term(lexed.word(t)) => continue,
            Some(t) => break t.start,
            None => break work.len(),
        }
    };
    let end = if end > start && work.as_bytes().get(end - 1) == Some(&b'\n') {
        end - 1
    } else {
        end
    };
    (start, end)
}

/// Whether a token can begin a term (so a first-column line starting with it can be
/// the item to evaluate).
fn starts_a_term(word: &str) -> bool {
    let first = word.as_bytes().first().copied().unwrap_or(b' ');
    let keyword = matches!(word, "then" | "else" | "in" | "def");
    (first.is_ascii_alphanumeric() || first == b'_') && !keyword
        || matches!(word, "(" | "[" | "<" | "⟨" | "\\" | "λ")
        || (first == b'~' && word.len() > 1 && word != "~+")
}

/// A broken region of the source: a whole item, or junk (an unclosed comment).
#[derive(Clone, Copy, Debug)]
struct Region {
    start: usize,
    end: usize,
    item: bool,
}

impl Region {
    /// An item region, trimmed of trailing blanks.
    fn item(start: usize, end: usize, source: &str) -> Region {
        let end = end.min(source.len());
        let start = start.min(end);
        let trimmed = source[start..end].trim_end().len();
        Region {
            start,
            end: start + trimmed,
            item: true,
        }
    }
}

// ----------------------------------------------------------------------------------
// Failures: what went wrong, what to say, what to blank.

enum Failure {
    /// A `{-` with no `-}`.
    UnclosedComment(usize),
    /// A closing bracket with nothing open of its kind in its item.
    StrayCloser(usize, usize),
    /// Anything else: the item holding it is skipped.
    Expected,
}

impl Failure {
    fn classify(work: &str, lexed: &Lexed, pos: usize, expected: &[Rule]) -> Failure {
        if let Some(at) = lexed.unclosed_comment {
            if pos >= at {
                return Failure::UnclosedComment(at);
            }
        }
        let Some(t) = lexed.tokens.get(lexed.at(pos)).filter(|t| t.start == pos) else {
            return Failure::Expected;
        };
        let (open, rule) = match lexed.word(t) {
            ")" => ("(", Rule::rparen),
            "]" => ("[", Rule::rbracket),
            ">" => ("<", Rule::rangle),
            "⟩" => ("⟨", Rule::rchevron),
            _ => return Failure::Expected,
        };
        let close = lexed.word(t);
        let (start, _) = item_region(work, lexed, pos);
        let before = lexed.tokens[..lexed.at(pos)]
            .iter()
            .filter(|u| u.start >= start)
            .map(|u| lexed.word(u));
        let (opened, closed) = before.fold((0, 0), |(o, c), w| {
            (o + usize::from(w == open), c + usize::from(w == close))
        });
        // Only after a complete term (where an argument, an operator, a new item or the
        // end could follow) is a closer merely extra.
        let complete = expected.contains(&Rule::EOI)
            || !expected.is_empty() && expected.iter().all(|r| continues_term(*r));
        if complete && !expected.contains(&rule) && opened <= closed {
            Failure::StrayCloser(t.start, t.end)
        } else {
            Failure::Expected
        }
    }

    fn describe(&self, work: &str, lexed: &Lexed, pos: usize, expected: &[Rule]) -> Diagnostic {
        match *self {
            Failure::UnclosedComment(at) => Diagnostic::error(
                "syntax.comment",
                "this `{-` comment is never closed with `-}`",
                Span::new(at, at + 2),
            )
            .with_help("the rest of the file is read as part of the comment"),
            Failure::StrayCloser(start, end) => Diagnostic::error(
                "syntax.expected",
                format!(
                    "unmatched `{}`: nothing open here to close",
                    &work[start..end]
                ),
                Span::new(start, end),
            )
            .with_help("it is ignored; the rest of the definition is still parsed"),
            Failure::Expected => expected_diagnostic(work, lexed, pos, expected),
        }
    }

    /// Blanks what the failure costs; true if anything changed.
    fn recover(
        &self,
        text: &mut [u8],
        work: &str,
        lexed: &Lexed,
        pos: usize,
        source: &str,
        broken: &mut Vec<Region>,
    ) -> bool {
        match *self {
            Failure::UnclosedComment(at) => {
                broken.push(Region {
                    start: at,
                    end: source.len(),
                    item: false,
                });
                blank(text, at, source.len())
            }
            Failure::StrayCloser(start, end) => blank(text, start, end),
            Failure::Expected => {
                let (start, end) = item_region(work, lexed, pos);
                broken.push(Region::item(start, end, source));
                blank(text, start, end)
            }
        }
    }
}

/// "expected a term after `then`", "expected `)` after `b`, found `]`".
fn expected_diagnostic(work: &str, lexed: &Lexed, pos: usize, expected: &[Rule]) -> Diagnostic {
    let what = expected_words(expected);
    let here = lexed.at(pos);
    let (item_start, _) = item_region(work, lexed, pos);
    // The token at the failure, unless the failure is at the end of its item.
    let found = lexed
        .tokens
        .get(here)
        .filter(|t| !(t.line_start && t.start > item_start) && t.start >= pos.min(t.start));
    let prev = lexed.tokens[..here]
        .last()
        .filter(|t| t.start >= item_start && t.end <= pos);
    let next_line = lexed
        .tokens
        .get(here)
        .filter(|t| found.is_none() && t.line_start);
    // After a complete item, where only a new item or the end could follow.
    let stray = expected.contains(&Rule::EOI);
    let (span, message) = match (prev, found) {
        (Some(p), Some(f)) if stray => (
            Span::new(pos.max(f.start), f.end),
            format!(
                "unexpected `{}` after `{}`",
                &work[pos.max(f.start)..f.end],
                lexed.word(p)
            ),
        ),
        (None, Some(f)) if stray => (
            Span::new(pos.max(f.start), f.end),
            format!("unexpected `{}`", &work[pos.max(f.start)..f.end]),
        ),
        (Some(p), None) => (
            Span::new(p.start, p.end),
            format!("expected {what} after `{}`", lexed.word(p)),
        ),
        (None, None) => (
            Span::new(pos, pos),
            format!("expected {what}, found the end of the file"),
        ),
        (Some(p), Some(f)) => (
            Span::new(pos.max(f.start), f.end),
            format!(
                "expected {what} after `{}`, found `{}`",
                lexed.word(p),
                &work[pos.max(f.start)..f.end]
            ),
        ),
        (None, Some(f)) => (
            Span::new(pos.max(f.start), f.end),
            format!(
                "expected {what}, found `{}`",
                &work[pos.max(f.start)..f.end]
            ),
        ),
    };
    let help = match next_line {
        Some(t) if lexed.word(t) != "def" => {
            "the next line starts in the first column, so it begins a new item: indent the \
             lines that continue a definition"
        }
        _ => "this item is skipped; the rest of the file is still parsed",
    };
    Diagnostic::error("syntax.expected", message, span).with_help(help)
}

/// Words for the rules the grammar tried at the failure, in a reader's terms. What
/// could merely have continued the term before the failure (one more argument, an
/// operator) is left out when something else was required there; what can start a
/// term or a type says nothing more than "a term" or "a type".
fn expected_words(expected: &[Rule]) -> String {
    let required: Vec<Rule> = expected
        .iter()
        .copied()
        .filter(|r| !continues_term(*r))
        .collect();
    let rules = if required.is_empty() {
        expected.to_vec()
    } else {
        required
    };
    let term = rules.iter().any(|r| rule_word(*r) == "a term");
    let ty = rules.iter().any(|r| rule_word(*r) == "a type");
    let parameter = rules.iter().any(|r| rule_word(*r) == "a parameter");
    let lone_name = rules.iter().all(|r| *r == Rule::name);
    let mut words: Vec<&str> = Vec::new();
    for rule in rules {
        let word = if lone_name {
            "a name"
        } else if continues_term(rule) && !matches!(rule_word(rule), "an operator") {
            "a term"
        } else {
            rule_word(rule)
        };
        if (term || ty) && rule == Rule::lparen || parameter && rule == Rule::comma {
            continue;
        }
        if !word.is_empty() && !words.contains(&word) {
            words.push(word);
        }
    }
    match words.len() {
        0 => "a term".to_string(),
        1 => words[0].to_string(),
        n => format!("{} or {}", words[..n - 1].join(", "), words[n - 1]),
    }
}

/// Rules that may continue a complete term: the start of one more argument, or an
/// infix operator.
fn continues_term(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::name
            | Rule::numeral
            | Rule::size
            | Rule::section
            | Rule::parens
            | Rule::angle
            | Rule::vector
            | Rule::lparen
            | Rule::lbracket
            | Rule::langle
            | Rule::lchevron
            | Rule::op_cons
            | Rule::op_szadd
            | Rule::op_add
            | Rule::op_sub
            | Rule::op_mul
            | Rule::op_div
            | Rule::op_compose
            | Rule::op_eq
    )
}

fn rule_word(rule: Rule) -> &'static str {
    match rule {
        Rule::term
        | Rule::infix
        | Rule::app
        | Rule::lambda
        | Rule::rec_term
        | Rule::ifs_term
        | Rule::if_term
        | Rule::check_term
        | Rule::let_term
        | Rule::kw_rec
        | Rule::kw_ifs
        | Rule::kw_if
        | Rule::kw_check
        | Rule::kw_let => "a term",
        Rule::name => "a name",
        Rule::numeral => "a numeral",
        Rule::size => "a size",
        Rule::binder | Rule::annotated => "a parameter",
        Rule::ty
        | Rule::type_product
        | Rule::type_app
        | Rule::ty_vec
        | Rule::ty_mat
        | Rule::ty_nat
        | Rule::ty_bool
        | Rule::ty_sz
        | Rule::ty_un
        | Rule::ty_var => "a type",
        Rule::times => "`*`",
        Rule::op_cons
        | Rule::op_szadd
        | Rule::op_add
        | Rule::op_sub
        | Rule::op_mul
        | Rule::op_div
        | Rule::op_compose
        | Rule::op_eq => "an operator",
        Rule::def | Rule::kw_def => "`def`",
        Rule::kw_fun => "`fun`",
        Rule::kw_then => "`then`",
        Rule::kw_else => "`else`",
        Rule::kw_in => "`in`",
        Rule::lambda_sign => "`\\`",
        Rule::dot => "`.`",
        Rule::fun_arrow => "`->`",
        Rule::let_arrow => "`<=`",
        Rule::equals => "`=`",
        Rule::colon => "`:`",
        Rule::comma => "`,`",
        Rule::lparen | Rule::section | Rule::parens => "`(`",
        Rule::rparen => "`)`",
        Rule::lbracket | Rule::vector => "`[`",
        Rule::rbracket => "`]`",
        Rule::langle | Rule::angle => "`<`",
        Rule::rangle => "`>`",
        Rule::lchevron => "`⟨`",
        Rule::rchevron => "`⟩`",
        Rule::EOI => "the end of the file",
        _ => "",
    }
}

// ----------------------------------------------------------------------------------
// The AST builder. Every function returns its node with the node's depth, so that
// chains the grammar reads as rows (operators, application spines, binders) can be
// cut at [`MAX_DEPTH`].

struct Builder<'a> {
    source: &'a str,
    diagnostics: &'a mut Vec<Diagnostic>,
}

/// The pair's span without the blanks it ends with (a rule ending in an optional or a
/// repetition runs over the blanks the grammar skipped before trying it).
fn span_of(pair: &Pair<Rule>) -> Span {
    let start = pair.as_span().start();
    let text = pair
        .as_str()
        .trim_end_matches(|c: char| c.is_ascii_whitespace() || c == '\u{1}' || c == '\u{feff}');
    Span::new(start, start + text.len())
}

fn ident(pair: &Pair<Rule>) -> Ident {
    Ident {
        name: pair.as_str().to_string(),
        span: span_of(pair),
    }
}

fn boxed(t: Term) -> Box<Term> {
    Box::new(t)
}

fn error_term(span: Span) -> Term {
    Term {
        kind: TermKind::Error,
        span,
    }
}

/// The operators, loosest first: (rule, name of the combinator, precedence, right).
const OPERATORS: &[(Rule, &str, u8, bool)] = &[
    (Rule::op_eq, "=", 1, false),
    (Rule::op_cons, "cons", 2, true),
    (Rule::op_add, "+", 3, false),
    (Rule::op_sub, "-", 3, false),
    (Rule::op_szadd, "~+", 3, false),
    (Rule::op_mul, "*", 4, false),
    (Rule::op_div, "/", 4, false),
    (Rule::op_compose, "compose", 5, true),
];

fn operator(rule: Rule) -> (&'static str, u8, bool) {
    OPERATORS
        .iter()
        .find(|o| o.0 == rule)
        .map_or(("?", 0, false), |o| (o.1, o.2, o.3))
}

/// The name a section `(op)` stands for: the combinator, or `cons` for `(::)`.
fn section_name(rule: Rule) -> &'static str {
    operator(rule).0
}

/// Item kinds in source order, before the last term is picked as the program's main.
enum Item {
    Def(Def),
    Term(Term),
    Broken(Region),
}

impl Item {
    fn start(&self) -> usize {
        match self {
            Item::Def(d) => d.span.start,
            Item::Term(t) => t.span.start,
            Item::Broken(r) => r.start,
        }
    }
}

impl Builder<'_> {
    fn too_deep(&mut self, span: Span, what: &str) {
        self.diagnostics.push(
            Diagnostic::error(
                "syntax.nesting",
                format!("this {what} nests more than {MAX_DEPTH} levels deep"),
                span,
            )
            .with_help("split it into definitions; it is skipped"),
        );
    }

    /// Checks a node's depth: deeper than [`MAX_DEPTH`] becomes an error node.
    fn limit(&mut self, (term, depth): (Term, usize)) -> (Term, usize) {
        if depth > MAX_DEPTH {
            self.too_deep(term.span, "term");
            (error_term(term.span), 1)
        } else {
            (term, depth)
        }
    }

    fn program(&mut self, pair: Pair<Rule>, broken: &[Region]) -> Program {
        // Item regions, outermost only (the last-resort region, to the end of the file,
        // can hold a region skipped before).
        let mut regions: Vec<Region> = broken.iter().filter(|r| r.item).copied().collect();
        regions.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
        let mut end = 0;
        regions.retain(|r| {
            let outer = r.start >= end;
            end = end.max(r.end);
            outer
        });
        let mut items: Vec<Item> = regions.into_iter().map(Item::Broken).collect();
        for item in pair.into_inner() {
            match item.as_rule() {
                Rule::def => items.push(Item::Def(self.def(item))),
                Rule::term => items.push(Item::Term(self.term(item).0)),
                _ => {}
            }
        }
        items.sort_by_key(Item::start);
        let last = items.len().saturating_sub(1);
        let mut program = Program::default();
        for (k, item) in items.into_iter().enumerate() {
            match item {
                Item::Def(def) => program.defs.push(def),
                Item::Term(term) if k == last => program.main = Some(term),
                Item::Term(term) => self.diagnostics.push(
                    Diagnostic::error(
                        "syntax.expression-not-last",
                        "only the last item of a file may be a term to evaluate",
                        term.span,
                    )
                    .with_help(
                        "name it with `def name = …`, move it to the end, or indent it if it \
                         continues the definition above; it is ignored",
                    ),
                ),
                Item::Broken(region) => match self.broken_def(region) {
                    Some(def) => program.defs.push(def),
                    None if k == last => {
                        program.main = Some(error_term(Span::new(region.start, region.end)))
                    }
                    None => {}
                },
            }
        }
        program
    }

    /// A definition that failed to parse, with its name if it has one.
    fn broken_def(&self, region: Region) -> Option<Def> {
        let text = self.source.get(region.start..region.end)?;
        let lexed = lex(text);
        let mut words = lexed.tokens.iter().map(|t| (t, lexed.word(t)));
        let (kw, "def") = words.next()? else {
            return None;
        };
        let at = |t: &Token| Span::new(region.start + t.start, region.start + t.end);
        let name = match words.next() {
            Some((t, w)) if w.as_bytes()[0].is_ascii_alphabetic() || w.as_bytes()[0] == b'_' => {
                if matches!(
                    w,
                    "def" | "fun" | "rec" | "ifs" | "if" | "then" | "else" | "check" | "let" | "in"
                ) {
                    None
                } else {
                    Some(Ident {
                        name: w.to_string(),
                        span: at(t),
                    })
                }
            }
            _ => None,
        };
        let name = name.unwrap_or(Ident {
            name: String::new(),
            span: Span::new(at(kw).end, at(kw).end),
        });
        let span = Span::new(region.start, region.end);
        let rest = lexed
            .tokens
            .iter()
            .map(at)
            .find(|t| t.start >= name.span.end)
            .map_or(region.end, |t| t.start);
        Some(Def {
            body: error_term(Span::new(rest, region.end)),
            name,
            params: Vec::new(),
            ty: None,
            span,
        })
    }

    fn def(&mut self, pair: Pair<Rule>) -> Def {
        let span = span_of(&pair);
        let mut name = None;
        let mut params = Vec::new();
        let mut ty = None;
        let mut body = None;
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::name => name = Some(ident(&part)),
                Rule::binder => params.push(self.param(part)),
                Rule::ty => ty = Some(self.ty(part).0),
                Rule::term => body = Some(self.term(part).0),
                _ => {}
            }
        }
        // The pair's span runs over the blanks after the body.
        let span = Span::new(span.start, body.as_ref().map_or(span.end, |b| b.span.end));
        Def {
            name: name.unwrap_or(Ident {
                name: String::new(),
                span,
            }),
            params,
            ty,
            body: body.unwrap_or(error_term(span)),
            span,
        }
    }

    /// A `binder` (`x` or `(x : τ)`) or an `annotated` binder (`x : τ`).
    fn param(&mut self, pair: Pair<Rule>) -> Param {
        let span = span_of(&pair);
        let pair_ends_with_type = pair.as_rule() == Rule::annotated;
        let mut name = None;
        let mut ty = None;
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::name => name = Some(ident(&part)),
                Rule::ty => ty = Some(self.ty(part).0),
                _ => {}
            }
        }
        // `x : τ` ends with its type (the pair's span runs over the blanks after it).
        let span = match (&ty, pair_ends_with_type) {
            (Some(t), true) => Span::new(span.start, t.span.end),
            _ => span,
        };
        Param {
            name: name.unwrap_or(Ident {
                name: String::new(),
                span,
            }),
            ty,
            span,
        }
    }

    fn term(&mut self, pair: Pair<Rule>) -> (Term, usize) {
        let span = span_of(&pair);
        let built = match pair.as_rule() {
            Rule::term => match pair.into_inner().next() {
                Some(inner) => return self.term(inner),
                None => (error_term(span), 1),
            },
            Rule::lambda => self.abstraction(pair, false),
            Rule::rec_term => self.abstraction(pair, true),
            Rule::ifs_term | Rule::if_term => self.conditional(pair),
            Rule::check_term => self.check(pair),
            Rule::let_term => self.let_term(pair),
            Rule::infix => self.infix(pair),
            Rule::app => self.app(pair),
            _ => self.atom(pair),
        };
        self.limit(built)
    }

    /// The terms among a construct's children (its keywords and punctuation skipped).
    fn subterms(&mut self, pair: Pair<Rule>) -> Vec<(Term, usize)> {
        pair.into_inner()
            .filter(|p| p.as_rule() == Rule::term)
            .map(|p| self.term(p))
            .collect()
    }

    /// Nests `params` around `body` to the right; the outermost node starts where
    /// `whole` does, an inner one at its binder.
    fn binders(
        &mut self,
        whole: Span,
        params: Vec<Param>,
        (body, depth): (Term, usize),
        rec: bool,
    ) -> (Term, usize) {
        let mut term = body;
        let mut depth = depth;
        let count = params.len();
        for (k, param) in params.into_iter().enumerate().rev() {
            let start = if k == 0 {
                whole.start
            } else {
                param.span.start
            };
            let body = boxed(term);
            let span = Span::new(start, body.span.end);
            let kind = if rec {
                TermKind::Rec { param, body }
            } else {
                TermKind::Lam { param, body }
            };
            term = Term { kind, span };
            depth += 1;
            if depth > MAX_DEPTH && k > 0 {
                // Cut here: the error stands for the whole abstraction.
                let outer = Span::new(whole.start, term.span.end);
                self.too_deep(outer, "term");
                return (error_term(outer), 1);
            }
        }
        if count == 0 {
            return (error_term(whole), 1);
        }
        (term, depth)
    }

    /// `\x y. t` (`rec` false) or `rec f. t` (`rec` true): binders, then the body.
    fn abstraction(&mut self, pair: Pair<Rule>, rec: bool) -> (Term, usize) {
        let span = span_of(&pair);
        let mut params = Vec::new();
        let mut body = None;
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::binder | Rule::annotated => params.push(self.param(part)),
                Rule::term => body = Some(self.term(part)),
                _ => {}
            }
        }
        let body = body.unwrap_or((error_term(span), 1));
        self.binders(span, params, body, rec)
    }

    fn conditional(&mut self, pair: Pair<Rule>) -> (Term, usize) {
        let span = span_of(&pair);
        let ifs = pair.as_rule() == Rule::ifs_term;
        let mut parts = self.subterms(pair).into_iter();
        let (Some(c), Some(t), Some(e)) = (parts.next(), parts.next(), parts.next()) else {
            return (error_term(span), 1);
        };
        let depth = 1 + c.1.max(t.1).max(e.1);
        let span = Span::new(span.start, e.0.span.end);
        let (cond, then, otherwise) = (boxed(c.0), boxed(t.0), boxed(e.0));
        let kind = if ifs {
            TermKind::Ifs {
                cond,
                then,
                otherwise,
            }
        } else {
            TermKind::If {
                cond,
                then,
                otherwise,
            }
        };
        (Term { kind, span }, depth)
    }

    fn check(&mut self, pair: Pair<Rule>) -> (Term, usize) {
        let span = span_of(&pair);
        let mut parts = self.subterms(pair);
        let Some((mut term, mut depth)) = parts.pop() else {
            return (error_term(span), 1);
        };
        let count = parts.len();
        let end = term.span.end;
        for (k, (cond, d)) in parts.into_iter().enumerate().rev() {
            let start = if k == 0 { span.start } else { cond.span.start };
            let span = Span::new(start, end);
            depth = 1 + depth.max(d);
            term = Term {
                kind: TermKind::Check {
                    cond: boxed(cond),
                    body: boxed(term),
                },
                span,
            };
            if depth > MAX_DEPTH {
                return self.limit((term, depth));
            }
        }
        if count == 0 {
            return (error_term(span), 1);
        }
        (term, depth)
    }

    fn let_term(&mut self, pair: Pair<Rule>) -> (Term, usize) {
        let span = span_of(&pair);
        let mut names = Vec::new();
        let mut values = Vec::new();
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::name => names.push(ident(&part)),
                Rule::term => values.push(self.term(part)),
                _ => {}
            }
        }
        let Some((mut term, mut depth)) = values.pop() else {
            return (error_term(span), 1);
        };
        if names.len() != values.len() || names.is_empty() {
            self.diagnostics.push(
                Diagnostic::error(
                    "syntax.let-arity",
                    format!(
                        "`let` binds {} name{} to {} term{}",
                        names.len(),
                        if names.len() == 1 { "" } else { "s" },
                        values.len(),
                        if values.len() == 1 { "" } else { "s" }
                    ),
                    span,
                )
                .with_help("write as many terms after `=` as names before it"),
            );
            return (error_term(span), 1);
        }
        let end = term.span.end;
        for (k, (name, (value, d))) in names.into_iter().zip(values).enumerate().rev() {
            let start = if k == 0 { span.start } else { name.span.start };
            depth = 1 + depth.max(d);
            term = Term {
                kind: TermKind::Let {
                    name,
                    value: boxed(value),
                    body: boxed(term),
                },
                span: Span::new(start, end),
            };
            if depth > MAX_DEPTH {
                return self.limit((term, depth));
            }
        }
        (term, depth)
    }

    /// Operands and operators in a row, nested by precedence (shunting-yard, without
    /// recursion: a row may be long).
    fn infix(&mut self, pair: Pair<Rule>) -> (Term, usize) {
        let span = span_of(&pair);
        let mut operands: Vec<(Term, usize)> = Vec::new();
        let mut ops: Vec<(Rule, Span)> = Vec::new();
        let mut too_deep = false;
        for part in pair.into_inner() {
            if part.as_rule() == Rule::app {
                operands.push(self.app(part));
                continue;
            }
            let (_, prec, _) = operator(part.as_rule());
            while let Some(&(top, _)) = ops.last() {
                let (_, top_prec, right) = operator(top);
                if top_prec > prec || (top_prec == prec && !right) {
                    let (rule, at) = ops.pop().unwrap_or((top, span));
                    too_deep |= !reduce(&mut operands, rule, at);
                } else {
                    break;
                }
            }
            ops.push((part.as_rule(), span_of(&part)));
        }
        while let Some((rule, at)) = ops.pop() {
            too_deep |= !reduce(&mut operands, rule, at);
        }
        let built = operands.pop().unwrap_or((error_term(span), 1));
        if too_deep || !operands.is_empty() {
            self.too_deep(span, "term");
            return (error_term(span), 1);
        }
        built
    }

    /// Applications, to the left.
    fn app(&mut self, pair: Pair<Rule>) -> (Term, usize) {
        let span = span_of(&pair);
        let mut atoms = pair.into_inner();
        let Some(first) = atoms.next() else {
            return (error_term(span), 1);
        };
        let (mut term, mut depth) = self.atom(first);
        for atom in atoms {
            let (arg, d) = self.atom(atom);
            depth = 1 + depth.max(d);
            if depth > MAX_DEPTH {
                self.too_deep(span, "application");
                return (error_term(span), 1);
            }
            term = Term {
                span: Span::new(term.span.start, arg.span.end),
                kind: TermKind::App {
                    fun: boxed(term),
                    arg: boxed(arg),
                    infix: false,
                },
            };
        }
        (term, depth)
    }

    fn atom(&mut self, pair: Pair<Rule>) -> (Term, usize) {
        let span = span_of(&pair);
        let term = |kind| Term { kind, span };
        match pair.as_rule() {
            Rule::name => (term(TermKind::Var(ident(&pair))), 1),
            Rule::numeral => match pair.as_str().parse::<u64>() {
                Ok(n) => (term(TermKind::Nat(n)), 1),
                Err(_) => self.too_large(span),
            },
            Rule::size => match pair.as_str()[1..].parse::<u64>() {
                Ok(n) => (term(TermKind::Size(n)), 1),
                Err(_) => self.too_large(span),
            },
            Rule::section => {
                let name = pair
                    .into_inner()
                    .find(|p| operator(p.as_rule()).1 > 0)
                    .map_or("?", |p| section_name(p.as_rule()));
                let ident = Ident {
                    name: name.to_string(),
                    span,
                };
                (term(TermKind::Var(ident)), 1)
            }
            Rule::parens => {
                let mut parts = self.subterms(pair);
                match parts.len() {
                    1 => {
                        let (mut inner, depth) = parts.remove(0);
                        inner.span = span;
                        (inner, depth)
                    }
                    2 => self.pair_of(span, parts),
                    _ => (error_term(span), 1),
                }
            }
            Rule::angle => {
                let parts = self.subterms(pair);
                self.pair_of(span, parts)
            }
            Rule::vector => {
                let items = self.subterms(pair);
                let depth = 1 + items.iter().map(|i| i.1).max().unwrap_or(0);
                let items = items.into_iter().map(|i| i.0).collect();
                (term(TermKind::Vector(items)), depth)
            }
            _ => (error_term(span), 1),
        }
    }

    fn pair_of(&mut self, span: Span, parts: Vec<(Term, usize)>) -> (Term, usize) {
        let mut parts = parts.into_iter();
        match (parts.next(), parts.next()) {
            (Some((a, da)), Some((b, db))) => (
                Term {
                    kind: TermKind::Pair(boxed(a), boxed(b)),
                    span,
                },
                1 + da.max(db),
            ),
            _ => (error_term(span), 1),
        }
    }

    fn too_large(&mut self, span: Span) -> (Term, usize) {
        self.diagnostics.push(Diagnostic::error(
            "syntax.numeral",
            format!("this number is too large (the largest is {})", u64::MAX),
            span,
        ));
        (error_term(span), 1)
    }

    // Types ---------------------------------------------------------------------

    fn ty(&mut self, pair: Pair<Rule>) -> (Type, usize) {
        let span = span_of(&pair);
        let built = match pair.as_rule() {
            Rule::ty => self.type_row(pair, false),
            Rule::type_product => self.type_row(pair, true),
            Rule::type_app => self.type_app(pair),
            _ => (
                Type {
                    kind: TypeKind::Error,
                    span,
                },
                1,
            ),
        };
        if built.1 > MAX_DEPTH {
            self.too_deep(span, "type");
            return (
                Type {
                    kind: TypeKind::Error,
                    span,
                },
                1,
            );
        }
        built
    }

    /// `a -> b -> c` or `a * b * c`: nested to the right.
    fn type_row(&mut self, pair: Pair<Rule>, product: bool) -> (Type, usize) {
        let span = span_of(&pair);
        let mut parts: Vec<(Type, usize)> = pair
            .into_inner()
            .filter(|p| matches!(p.as_rule(), Rule::type_product | Rule::type_app))
            .map(|p| self.ty(p))
            .collect();
        let Some((mut ty, mut depth)) = parts.pop() else {
            return (
                Type {
                    kind: TypeKind::Error,
                    span,
                },
                1,
            );
        };
        while let Some((left, d)) = parts.pop() {
            depth = 1 + depth.max(d);
            if depth > MAX_DEPTH {
                return (ty, depth);
            }
            let span = Span::new(left.span.start, ty.span.end);
            let (l, r) = (Box::new(left), Box::new(ty));
            let kind = if product {
                TypeKind::Product(l, r)
            } else {
                TypeKind::Arrow(l, r)
            };
            ty = Type { kind, span };
        }
        (ty, depth)
    }

    /// `vec vec nat`: the constructors applied to the atom, innermost last.
    fn type_app(&mut self, pair: Pair<Rule>) -> (Type, usize) {
        let span = span_of(&pair);
        let mut ctors = Vec::new();
        let mut atom: Option<(Type, usize)> = None;
        let mut group: Option<Span> = None;
        for part in pair.into_inner() {
            let at = span_of(&part);
            let leaf = |kind| Some((Type { kind, span: at }, 1));
            match part.as_rule() {
                Rule::ty_vec | Rule::ty_mat => ctors.push((part.as_rule(), at)),
                Rule::ty_nat => atom = leaf(TypeKind::Nat),
                Rule::ty_bool => atom = leaf(TypeKind::Bool),
                Rule::ty_sz => atom = leaf(TypeKind::Sz),
                Rule::ty_un => atom = leaf(TypeKind::Un),
                Rule::ty_var => atom = leaf(TypeKind::Var(part.as_str()[1..].to_string())),
                Rule::lparen => group = Some(at),
                Rule::ty => atom = Some(self.ty(part)),
                Rule::rparen => {
                    if let (Some(open), Some((ty, _))) = (group, atom.as_mut()) {
                        ty.span = Span::new(open.start, at.end);
                    }
                }
                _ => {}
            }
        }
        let Some((mut ty, mut depth)) = atom else {
            return (
                Type {
                    kind: TypeKind::Error,
                    span,
                },
                1,
            );
        };
        while let Some((ctor, at)) = ctors.pop() {
            depth += 1;
            if depth > MAX_DEPTH {
                return (ty, depth);
            }
            let inner = Box::new(ty);
            let span = Span::new(at.start, inner.span.end);
            let kind = if ctor == Rule::ty_vec {
                TypeKind::Vec(inner)
            } else {
                TypeKind::Mat(inner)
            };
            ty = Type { kind, span };
        }
        (ty, depth)
    }
}

/// Applies the operator `rule` to the two topmost operands; false when the result
/// would nest deeper than [`MAX_DEPTH`] (then an error node stands for it).
fn reduce(operands: &mut Vec<(Term, usize)>, rule: Rule, at: Span) -> bool {
    let (Some((rhs, dr)), Some((lhs, dl))) = (operands.pop(), operands.pop()) else {
        operands.push((error_term(at), 1));
        return true;
    };
    let span = Span::new(lhs.span.start, rhs.span.end);
    let depth = 2 + dl.max(dr);
    if depth > MAX_DEPTH {
        operands.push((error_term(span), 1));
        return false;
    }
    let (name, _, _) = operator(rule);
    let var = Term {
        kind: TermKind::Var(Ident {
            name: name.to_string(),
            span: at,
        }),
        span: at,
    };
    let term = if matches!(
        rule,
        Rule::op_add | Rule::op_sub | Rule::op_mul | Rule::op_div
    ) {
        // The datum operations take a pair (spec §2.2): `a + b` is `+ (a, b)`.
        let arg = Term {
            kind: TermKind::Pair(boxed(lhs), boxed(rhs)),
            span,
        };
        TermKind::App {
            fun: boxed(var),
            arg: boxed(arg),
            infix: true,
        }
    } else {
        let partial = Term {
            span: Span::new(lhs.span.start, at.end),
            kind: TermKind::App {
                fun: boxed(var),
                arg: boxed(lhs),
                infix: false,
            },
        };
        TermKind::App {
            fun: boxed(partial),
            arg: boxed(rhs),
            infix: true,
        }
    };
    operands.push((Term { kind: term, span }, depth));
    true
}
