//! The recovering driver. The grammar parses a whole file at once; when it fails, the
//! statement holding the failure — from its declaration `x :` (or `return`) to the next
//! one — is blanked with U+0001 bytes (offsets are kept, so every span stays a span of
//! the source), the grammar reads those bytes as an error statement, and the file is
//! parsed again. One bad statement therefore costs one [`Item::Error`] and one
//! diagnostic, and the rest of the file is still parsed and checked.

use crate::ast::{
    Decl, DimAnn, Expr, ExprKind, Ident, Item, Nat, Program, Return, TypeAnn, TypeAnnKind,
};
use crate::Parsed;
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;
use pest::Parser;
use pest_derive::Parser;
use shapex_text::{Diagnostic, LineIndex, Range, Span};

#[derive(Parser)]
#[grammar = "core.pest"]
struct CoreParser;

/// After this many syntax errors the rest of the file is one error statement: each
/// recovery re-parses the file, so this bounds the work on garbage input.
const MAX_ERRORS: usize = 64;

/// How deep parentheses may nest. The grammar and the AST builder recurse once per
/// level, so this bounds their stack on any input.
pub const MAX_NESTING: usize = 200;

const BLANK: u8 = 1;

/// The help every recovered statement carries.
const SKIPPED: &str = "this statement is skipped; the rest of the file is still checked";

/// Parses a file of the core calculus. Never panics; syntax errors become diagnostics
/// (`syntax.*`, with their line and column) and [`Item::Error`] statements.
pub fn parse(source: &str) -> Parsed {
    let index = LineIndex::new(source);
    let mut text = source.as_bytes().to_vec();
    let mut diagnostics = Vec::new();
    if let Some(at) = too_deep(source) {
        diagnostics.push(
            Diagnostic::error(
                "syntax.nesting",
                format!("parentheses nest more than {MAX_NESTING} levels deep here"),
                Span::new(at, at + 1),
            )
            .with_help("the rest of the file is not checked"),
        );
        let start = statement_start(&text, at);
        blank(&mut text, start, source.len());
    }
    let mut rounds = 0;
    let program = loop {
        rounds += 1;
        if rounds > 4 * MAX_ERRORS {
            // Cannot happen with the recoveries below (each blanks something); a bound
            // all the same.
            blank(&mut text, 0, source.len());
        }
        // Only ASCII bytes are ever replaced, so this is still UTF-8.
        let work = String::from_utf8_lossy(&text).into_owned();
        match CoreParser::parse(Rule::program, &work) {
            Ok(mut pairs) => {
                break pairs
                    .next()
                    .map(|p| build_program(p, &mut diagnostics))
                    .unwrap_or_default()
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
                    diagnostics.push(describe(source, &work, pos, &expected));
                }
                if give_up || !recover(&mut text, source.len(), pos, &expected) {
                    let start = statement_start(&text, pos.min(source.len()));
                    if !blank(&mut text, start, source.len()) {
                        blank(&mut text, 0, source.len());
                    }
                }
            }
        }
    };
    check_order(&program, source, &mut diagnostics);
    for d in &mut diagnostics {
        d.range = Range::of(d.span, &index);
    }
    diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
    Parsed {
        program,
        diagnostics,
    }
}

/// The first offset where parentheses are nested past [`MAX_NESTING`] (comments
/// skipped).
fn too_deep(source: &str) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > MAX_NESTING {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Where statements may start in `text`: each `return` and each name followed by `:`
/// (comments and blanked bytes skipped). Recovery resumes at the next of these.
fn statement_starts(text: &[u8]) -> Vec<usize> {
    let ident_start = |b: u8| b.is_ascii_alphabetic() || b == b'_';
    let ident_char = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        if b == b'#' {
            while i < text.len() && text[i] != b'\n' {
                i += 1;
            }
        } else if ident_start(b) {
            let start = i;
            while i < text.len() && ident_char(text[i]) {
                i += 1;
            }
            let word = &text[start..i];
            let mut j = i;
            while j < text.len() && matches!(text[j], b' ' | b'\t' | b'\r' | b'\n') {
                j += 1;
            }
            if word == b"return" || text.get(j) == Some(&b':') {
                out.push(start);
            }
        } else if b.is_ascii_digit() {
            // A number's letters (`2x`) start no name.
            while i < text.len() && ident_char(text[i]) {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The start of the statement holding `at`: the last statement start at or before it
/// (0 when none).
fn statement_start(text: &[u8], at: usize) -> usize {
    statement_starts(text)
        .into_iter()
        .take_while(|&s| s <= at)
        .last()
        .unwrap_or(0)
}

/// Whether the grammar failed where a statement (or the end) may start, rather than
/// inside one: then the failure is stray text of its own.
fn at_statement_level(expected: &[Rule]) -> bool {
    expected.iter().any(|r| {
        matches!(
            r,
            Rule::kw_return | Rule::EOI | Rule::decl | Rule::ret | Rule::error_stmt
        )
    })
}

/// Makes the failure at `pos` parse next time: blanks the statement holding it (from
/// its start to the next statement), or the stray text from `pos` to the next
/// statement. False when nothing changed.
fn recover(text: &mut [u8], source_len: usize, pos: usize, expected: &[Rule]) -> bool {
    let pos = pos.min(source_len);
    let starts = statement_starts(&text[..source_len]);
    let from = if at_statement_level(expected) {
        pos
    } else {
        starts.iter().copied().rfind(|&s| s < pos).unwrap_or(0)
    };
    let to = starts
        .iter()
        .copied()
        .find(|&s| s > from && s >= pos)
        .unwrap_or(source_len);
    blank(text, from, to)
}

/// Replaces the bytes of `start..end` but line breaks by [`BLANK`]; true if any
/// changed. Both ends are at ASCII bytes or the ends of the text (statement starts
/// are at ASCII letters, failures at token boundaries), so the result is UTF-8; a
/// non-ASCII byte is blanked whole with its character, never split.
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

/// The diagnostic for a failure at `pos`: what the grammar expected, after which token.
fn describe(source: &str, work: &str, pos: usize, expected: &[Rule]) -> Diagnostic {
    let pos = pos.min(source.len());
    let what = expected_words(expected);
    let found = found_word(work, pos);
    let prev = previous_token_end(&work.as_bytes()[..source.len()], pos);
    let starts_here = statement_starts(&work.as_bytes()[..source.len()]).contains(&pos);
    let inside = !at_statement_level(expected);
    let (span, message) = match prev {
        // `x : TensorType([1, 2` and then the next declaration or the end: what is
        // missing is missing after the last token, not at the next statement.
        Some(p)
            if inside
                && (starts_here
                    || pos >= source.len()
                    || work.get(p..pos).is_some_and(|gap| gap.contains('\n'))) =>
        {
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
    Diagnostic::error("syntax.expected", message, span).with_help(SKIPPED)
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

/// The end of the last non-blank byte before `pos` (whitespace, comments' text is not
/// skipped: a comment ends a line, and the line break is whitespace).
fn previous_token_end(bytes: &[u8], pos: usize) -> Option<usize> {
    let mut i = pos.min(bytes.len());
    while i > 0 {
        let line_start = bytes[..i]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |n| n + 1);
        // The code part of this line (before any `#`), up to `i`.
        let code_end = bytes[line_start..i]
            .iter()
            .position(|&b| b == b'#')
            .map_or(i, |h| line_start + h);
        if let Some(j) = (line_start..code_end)
            .rev()
            .find(|&j| !bytes[j].is_ascii_whitespace() && bytes[j] != BLANK)
        {
            return Some(j + 1);
        }
        i = line_start.saturating_sub(1);
        if line_start == 0 {
            break;
        }
    }
    None
}

/// The identifier (or single character) of the source ending at `end`.
fn token_before(source: &str, end: usize) -> String {
    let head = source.get(..end).unwrap_or("");
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
    if at_statement_level(expected) {
        return "a declaration `x : τ` or `return e`".to_string();
    }
    let has = |r: Rule| expected.contains(&r);
    let expression = [
        Rule::kw_reshape,
        Rule::kw_conv2d,
        Rule::kw_add,
        Rule::reshape,
        Rule::conv2d,
        Rule::add,
        Rule::var,
    ]
    .into_iter()
    .any(has);
    let ty = has(Rule::kw_tensor) || has(Rule::ty) || has(Rule::tensor);
    let mut words: Vec<&str> = Vec::new();
    for rule in expected {
        let word = match rule {
            Rule::kw_reshape
            | Rule::kw_conv2d
            | Rule::kw_add
            | Rule::reshape
            | Rule::conv2d
            | Rule::add
            | Rule::var => "an expression (a name, `reshape(…)`, `Conv2D(…)` or `add(…)`)",
            Rule::name if expression => continue,
            Rule::name => "a name",
            Rule::kw_tensor | Rule::ty | Rule::tensor => "a type (`Dyn` or `TensorType([…])`)",
            Rule::kw_dyn if ty => continue,
            Rule::kw_dyn | Rule::dim => "a dimension (`Dyn` or a number)",
            Rule::nat if has(Rule::kw_dyn) || has(Rule::dim) => continue,
            Rule::nat => "a number",
            Rule::kernel | Rule::kernel_open => "a kernel `(κ0, κ1)`",
            Rule::colon => "`:`",
            Rule::lparen => "`(`",
            Rule::rparen => "`)`",
            Rule::lbracket => "`[`",
            Rule::rbracket => "`]`",
            Rule::comma => "`,`",
            _ => "more input",
        };
        if !words.contains(&word) {
            words.push(word);
        }
    }
    match words.len() {
        0 => "more input".to_string(),
        1 => words[0].to_string(),
        n => format!("{} or {}", words[..n - 1].join(", "), words[n - 1]),
    }
}

/// The checks of `decl* return e` the grammar leaves to the builder: declarations
/// before the one `return`, and a `return` at all.
fn check_order(program: &Program, source: &str, diagnostics: &mut Vec<Diagnostic>) {
    let mut seen_return = false;
    for item in &program.items {
        match item {
            Item::Decl(d) if seen_return => diagnostics.push(
                Diagnostic::error(
                    "syntax.order",
                    format!(
                        "declaration of `{}` after `return`: a program is `decl* return e` (Migeed et al. 2024, Figure 1)",
                        d.name.name
                    ),
                    d.span,
                )
                .with_help("move the declaration before the `return`; it is still checked"),
            ),
            Item::Return(r) if seen_return => diagnostics.push(
                Diagnostic::error(
                    "syntax.order",
                    "a second `return`: a program has one (Migeed et al. 2024, Figure 1)",
                    Span::new(r.span.start, r.span.start + "return".len()),
                )
                .with_help("the expression is still checked"),
            ),
            Item::Return(_) => seen_return = true,
            _ => {}
        }
    }
    // A statement that failed to parse may have been the `return`: no second error.
    let failed = program.items.iter().any(|i| matches!(i, Item::Error(_)));
    if !seen_return && !failed && program.decls().next().is_some() {
        let end = previous_token_end(source.as_bytes(), source.len()).unwrap_or(0);
        let last = source
            .get(..end)
            .and_then(|head| head.char_indices().next_back())
            .map_or(0, |(i, _)| i);
        let at = Span::new(last, end);
        diagnostics.push(
            Diagnostic::error(
                "syntax.return",
                "missing `return e` at the end of the program: a program is `decl* return e` (Migeed et al. 2024, Figure 1)",
                at,
            )
            .with_help("the declarations are still checked"),
        );
    }
}

fn span_of(pair: &Pair<Rule>) -> Span {
    let s = pair.as_span();
    Span::new(s.start(), s.end())
}

fn ident(pair: &Pair<Rule>) -> Ident {
    Ident {
        name: pair.as_str().to_string(),
        span: span_of(pair),
    }
}

fn build_program(pair: Pair<Rule>, diagnostics: &mut Vec<Diagnostic>) -> Program {
    let mut program = Program::default();
    for item in pair.into_inner() {
        match item.as_rule() {
            Rule::decl => program
                .items
                .push(Item::Decl(build_decl(item, diagnostics))),
            Rule::ret => {
                let span = span_of(&item);
                if let Some(e) = item.into_inner().find(|p| p.as_rule() != Rule::kw_return) {
                    program.items.push(Item::Return(Return {
                        expr: build_expr(e, diagnostics),
                        span,
                    }));
                }
            }
            Rule::error_stmt => program.items.push(Item::Error(span_of(&item))),
            _ => {}
        }
    }
    program
}

fn build_decl(pair: Pair<Rule>, diagnostics: &mut Vec<Diagnostic>) -> Decl {
    let span = span_of(&pair);
    let mut name = Ident {
        name: String::new(),
        span,
    };
    let mut ty = TypeAnn {
        kind: TypeAnnKind::Dyn,
        span,
    };
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::name => name = ident(&part),
            Rule::ty => ty = build_type(part, diagnostics),
            _ => {}
        }
    }
    Decl { name, ty, span }
}

fn build_type(pair: Pair<Rule>, diagnostics: &mut Vec<Diagnostic>) -> TypeAnn {
    let span = span_of(&pair);
    let tensor = pair.into_inner().find(|p| p.as_rule() == Rule::tensor);
    let kind = match tensor {
        None => TypeAnnKind::Dyn,
        Some(t) => TypeAnnKind::Tensor(
            t.into_inner()
                .filter(|p| p.as_rule() == Rule::dim)
                .map(|d| {
                    let span = span_of(&d);
                    let value = d
                        .into_inner()
                        .find(|p| p.as_rule() == Rule::nat)
                        .and_then(|n| nat_value(&n, diagnostics));
                    DimAnn { value, span }
                })
                .collect(),
        ),
    };
    TypeAnn { kind, span }
}

/// The value of a `nat` literal; a diagnostic when it does not fit a `u64`.
fn nat_value(pair: &Pair<Rule>, diagnostics: &mut Vec<Diagnostic>) -> Option<u64> {
    let value = pair.as_str().parse::<u64>().ok();
    if value.is_none() {
        diagnostics.push(
            Diagnostic::error(
                "syntax.number",
                format!(
                    "the number `{}` is too large (at most {})",
                    pair.as_str(),
                    u64::MAX
                ),
                span_of(pair),
            )
            .with_help("it is read as `Dyn`"),
        );
    }
    value
}

fn build_nat(pair: Option<Pair<Rule>>, at: Span, diagnostics: &mut Vec<Diagnostic>) -> Nat {
    match pair {
        Some(p) => Nat {
            value: nat_value(&p, diagnostics),
            span: span_of(&p),
        },
        None => Nat {
            value: None,
            span: at,
        },
    }
}

fn build_expr(pair: Pair<Rule>, diagnostics: &mut Vec<Diagnostic>) -> Expr {
    let span = span_of(&pair);
    let rule = pair.as_rule();
    // Punctuation and keywords are dropped: what is left are the operands in order.
    let mut parts = pair.into_inner().filter(|p| {
        matches!(
            p.as_rule(),
            Rule::name
                | Rule::nat
                | Rule::kernel
                | Rule::ty
                | Rule::reshape
                | Rule::conv2d
                | Rule::add
                | Rule::var
        )
    });
    let hole = || Expr {
        kind: ExprKind::Var(Ident {
            name: String::new(),
            span,
        }),
        span,
    };
    let kind = match rule {
        Rule::var => ExprKind::Var(parts.next().map_or(
            Ident {
                name: String::new(),
                span,
            },
            |p| ident(&p),
        )),
        Rule::reshape => {
            let arg = parts
                .next()
                .map_or_else(hole, |p| build_expr(p, diagnostics));
            let target = parts.next().map_or(
                TypeAnn {
                    kind: TypeAnnKind::Dyn,
                    span,
                },
                |p| build_type(p, diagnostics),
            );
            check_reshape_target(&target, diagnostics);
            ExprKind::Reshape {
                arg: Box::new(arg),
                target,
            }
        }
        Rule::conv2d => {
            let c_in = build_nat(parts.next(), span, diagnostics);
            let c_out = build_nat(parts.next(), span, diagnostics);
            let (k0, k1) = match parts.next() {
                Some(k) => {
                    let at = span_of(&k);
                    let mut ks = k.into_inner().filter(|p| p.as_rule() == Rule::nat);
                    (
                        build_nat(ks.next(), at, diagnostics),
                        build_nat(ks.next(), at, diagnostics),
                    )
                }
                None => (
                    build_nat(None, span, diagnostics),
                    build_nat(None, span, diagnostics),
                ),
            };
            let arg = parts
                .next()
                .map_or_else(hole, |p| build_expr(p, diagnostics));
            ExprKind::Conv2D {
                c_in,
                c_out,
                kernel: (k0, k1),
                arg: Box::new(arg),
            }
        }
        Rule::add => {
            let a = parts
                .next()
                .map_or_else(hole, |p| build_expr(p, diagnostics));
            let b = parts
                .next()
                .map_or_else(hole, |p| build_expr(p, diagnostics));
            ExprKind::Add(Box::new(a), Box::new(b))
        }
        _ => return hole(),
    };
    Expr { kind, span }
}

/// "τ can have a maximum of one Dyn dimension" (Figure 1, modelling PyTorch's single
/// `-1`): a second `Dyn` in a reshape target is a syntax error on it.
fn check_reshape_target(target: &TypeAnn, diagnostics: &mut Vec<Diagnostic>) {
    if let TypeAnnKind::Tensor(dims) = &target.kind {
        let dyns: Vec<&DimAnn> = dims.iter().filter(|d| d.value.is_none()).collect();
        if let Some(second) = dyns.get(1) {
            diagnostics.push(
                Diagnostic::error(
                    "syntax.reshape",
                    format!(
                        "a reshape target may have at most one `Dyn` dimension (Migeed et al. 2024, Figure 1; PyTorch's single `-1`); this one has {}",
                        dyns.len()
                    ),
                    second.span,
                )
                .with_help("the reshape is typed as its target without further checks"),
            );
        }
    }
}
