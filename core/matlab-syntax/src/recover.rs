//! Error recovery: how much text a bad clause covers, and a message a MATLAB user
//! understands (bracket balance, unterminated quotes, or the offending token) instead
//! of pest's list of expected rules.

use super::blocks::Opener;
use shapex_text::Diagnostic;
use shapex_text::{LineIndex, Span};

/// A closing bracket with no opener, or the wrong one.
struct BadClose {
    at: usize,
    closer: char,
    /// The innermost open bracket at that point, if any.
    opener: Option<(usize, char)>,
}

/// What a bracket/quote-aware scan of one logical line found.
#[derive(Default)]
struct Scan {
    /// Where the logical line ends (the newline, or the end of the text).
    end: usize,
    /// Brackets still open at `end`: (byte offset, bracket).
    open: Vec<(usize, char)>,
    /// The first closer that had no opener or the wrong one.
    bad_close: Option<BadClose>,
    /// The opening quote of a string that runs into the end of the line.
    unterminated: Option<(usize, char)>,
}

fn is_newline(c: char) -> bool {
    c == '\n' || c == '\r'
}

fn closer_of(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        _ => '}',
    }
}

/// Scans from `start` to the end of the logical line (`...` continues it), tracking
/// brackets and quotes. A `'` is a transpose when it touches an identifier, a number,
/// a closing bracket, a `'` or `.`, and a string quote otherwise.
fn scan_line(source: &str, start: usize) -> Scan {
    scan_until(source, start, start)
}

/// Like [`scan_line`], but a newline inside an open `[`/`{` before `limit` does not end
/// the line (a matrix literal spanning lines).
fn scan_until(source: &str, start: usize, limit: usize) -> Scan {
    let mut scan = Scan {
        end: source.len(),
        ..Scan::default()
    };
    let text = &source[start..];
    let mut it = text.char_indices().peekable();
    let mut prev: Option<char> = None;
    while let Some((i, c)) = it.next() {
        let at = start + i;
        match c {
            c if is_newline(c) => {
                let in_matrix = scan.open.iter().any(|&(_, o)| o != '(');
                if !(in_matrix && at < limit) {
                    scan.end = at;
                    return scan;
                }
            }
            '.' if text[i..].starts_with("...") => {
                // A continuation: the rest of the line is a comment.
                for (_, d) in it.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
                prev = Some(' ');
                continue;
            }
            '%' | '#' => {
                while it.peek().is_some_and(|&(_, d)| !is_newline(d)) {
                    it.next();
                }
            }
            '"' | '\'' if c == '"' || !touches_value(prev) => {
                let closed = skip_string(&mut it, c);
                scan.unterminated = scan.unterminated.or((!closed).then_some((at, c)));
            }
            '(' | '[' | '{' => scan.open.push((at, c)),
            ')' | ']' | '}' => match scan.open.last() {
                Some(&(_, o)) if closer_of(o) == c => {
                    scan.open.pop();
                }
                top => {
                    let opener = top.copied();
                    scan.bad_close.get_or_insert(BadClose {
                        at,
                        closer: c,
                        opener,
                    });
                    scan.open.pop();
                }
            },
            _ => {}
        }
        prev = Some(c);
        if c == '\'' || c == '"' {
            // A string or transpose ends in a value.
            prev = Some('\'');
        }
    }
    scan
}

fn touches_value(prev: Option<char>) -> bool {
    prev.is_some_and(|p| p.is_alphanumeric() || matches!(p, '_' | ')' | ']' | '}' | '\'' | '.'))
}

/// Skips to the closing quote (doubled quotes and, in `"…"`, backslash escapes stay
/// inside). Returns false if the line ends first (the newline is left unconsumed).
fn skip_string(it: &mut std::iter::Peekable<std::str::CharIndices<'_>>, quote: char) -> bool {
    while let Some(&(_, c)) = it.peek() {
        if is_newline(c) {
            return false;
        }
        it.next();
        if c == '\\' && quote == '"' {
            if it.peek().is_some_and(|&(_, d)| !is_newline(d)) {
                it.next();
            }
        } else if c == quote {
            if it.peek().is_some_and(|&(_, d)| d == quote) {
                it.next();
            } else {
                return true;
            }
        }
    }
    false
}

/// End of the text a failed clause covers: its logical line, or — when it leaves a
/// `[`/`{` open and pest got further — through the line where pest gave up (a matrix
/// spanning lines). Always beyond `start`, on a character boundary.
pub(super) fn bad_extent(source: &str, start: usize, furthest: usize) -> usize {
    let scan = scan_line(source, start);
    let mut end = scan.end;
    let open_matrix = scan.open.iter().any(|&(_, c)| c != '(');
    if open_matrix && furthest > end {
        // Take the following lines only if the matrix really closes there; an
        // unclosed `[` must not swallow the good lines after it.
        let limit = line_end(source, furthest.min(source.len()));
        let multi = scan_until(source, start, limit);
        if multi.open.is_empty() || multi.end > limit {
            end = limit;
        }
    }
    if end <= start {
        end = start + source[start..].chars().next().map_or(1, char::len_utf8);
    }
    end.min(source.len())
}

fn line_end(source: &str, from: usize) -> usize {
    let from = floor_boundary(source, from);
    source[from..]
        .find(is_newline)
        .map_or(source.len(), |i| from + i)
}

fn floor_boundary(source: &str, mut at: usize) -> usize {
    at = at.min(source.len());
    while !source.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The diagnostic for a clause spanning `span` on which pest gave up at `furthest`.
pub(super) fn describe(source: &str, index: &LineIndex, span: Span, furthest: usize) -> Diagnostic {
    let at = |off: usize| {
        let lc = index.line_col(off);
        format!("{}:{}", lc.line, lc.col)
    };
    let scan = scan_line(source, span.start);
    if let Some((q, quote)) = scan.unterminated {
        let msg = format!(
            "unterminated string: the {quote} at {} is never closed",
            at(q)
        );
        return Diagnostic::error("syntax.unterminated-string", msg, Span::new(q, scan.end));
    }
    if let Some(BadClose {
        at: c_at,
        closer,
        opener,
    }) = scan.bad_close
    {
        let msg = match opener {
            None => format!(
                "unexpected '{closer}' (no matching '{}')",
                opener_of(closer)
            ),
            Some((o_at, o)) => format!("'{closer}' does not match '{o}' opened at {}", at(o_at)),
        };
        return Diagnostic::error("syntax.unbalanced", msg, Span::new(c_at, c_at + 1));
    }
    if let Some(&(o_at, o)) = scan.open.first() {
        let msg = format!(
            "unbalanced bracket: '{o}' opened at {} is never closed",
            at(o_at)
        );
        return Diagnostic::error("syntax.unbalanced", msg, Span::new(o_at, o_at + 1));
    }
    unexpected_token(source, span, furthest.clamp(span.start, span.end))
}

fn opener_of(closer: char) -> char {
    match closer {
        ')' => '(',
        ']' => '[',
        _ => '{',
    }
}

/// "unexpected 'x'" at the token where pest gave up, or "expected an expression after
/// '+'" when the line stops right after an operator.
fn unexpected_token(source: &str, span: Span, furthest: usize) -> Diagnostic {
    let furthest = floor_boundary(source, furthest);
    let rest = &source[furthest..span.end];
    let token = first_token(rest);
    let before = source[span.start..furthest].trim_end();
    let ends_in_operator = before
        .chars()
        .last()
        .is_some_and(|c| "+-*/\\^&|<>=~!:,".contains(c));
    if token.is_empty() || token.starts_with(['%', '#']) {
        if ends_in_operator {
            let op = trailing_operator(before);
            let op_start = span.start + before.len() - op.len();
            let msg = format!("expected an expression after '{op}'");
            return Diagnostic::error(
                "syntax.invalid",
                msg,
                Span::new(op_start, span.start + before.len()),
            );
        }
        if let Some(msg) = keyword_needs(before) {
            return Diagnostic::error("syntax.invalid", msg, span);
        }
        return Diagnostic::error(
            "syntax.invalid",
            "incomplete statement",
            Span::new(span.start, span.end),
        );
    }
    let tok_span = Span::new(furthest, furthest + token.len());
    let diag = Diagnostic::error(
        "syntax.unexpected",
        format!("unexpected '{token}'"),
        tok_span,
    );
    if token == "=" {
        diag.with_help("to compare values use '=='; an assignment must start the statement")
    } else {
        diag
    }
}

/// What a block keyword standing alone on its line is missing.
fn keyword_needs(text: &str) -> Option<String> {
    let what = match text {
        "if" | "elseif" | "while" | "until" => "a condition",
        "switch" => "a value to switch on",
        "case" => "a value to match",
        "for" | "parfor" => "'variable = values'",
        "function" => "a function name",
        _ => return None,
    };
    Some(format!("expected {what} after '{text}'"))
}

/// The longest operator spelling at the end of `text`.
fn trailing_operator(text: &str) -> &str {
    let n = text
        .chars()
        .rev()
        .take_while(|c| "+-*/\\^&|<>=~!:.,".contains(*c))
        .take(3)
        .map(char::len_utf8)
        .sum::<usize>();
    &text[text.len() - n..]
}

/// A word, number, or single symbol at the start of `text`.
fn first_token(text: &str) -> &str {
    let mut chars = text.char_indices();
    let Some((_, c)) = chars.next() else {
        return "";
    };
    if is_newline(c) {
        return "";
    }
    let len = if c.is_alphanumeric() || c == '_' {
        text.find(|d: char| !(d.is_alphanumeric() || d == '_' || d == '.'))
            .unwrap_or(text.len())
    } else {
        c.len_utf8()
    };
    &text[..len]
}

/// Whether a bad clause starts with a block keyword, so its `end` still pairs up.
pub(super) fn opener_word(text: &str) -> Option<Opener> {
    let word: String = text
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    match word.as_str() {
        "if" | "for" | "parfor" | "while" | "switch" | "try" | "unwind_protect" => {
            Some(Opener::Block)
        }
        "do" => Some(Opener::Do),
        "function" => Some(Opener::Function),
        _ => None,
    }
}

/// Whether the word just before `at` is a keyword that takes an expression (`if'a'`
/// starts a string, `x'` is a transpose); `s.if` is a field and `end` may be a value.
fn after_keyword(text: &str, at: usize) -> bool {
    let before = &text[..at];
    let word = before
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    let field = before[..before.len() - word.len()].ends_with('.');
    !field
        && matches!(
            word,
            "if" | "elseif"
                | "while"
                | "until"
                | "switch"
                | "case"
                | "for"
                | "parfor"
                | "return"
                | "else"
                | "otherwise"
                | "do"
                | "try"
                | "global"
                | "persistent"
        )
}

/// Calls `f` with the offset and character of each piece of code in `text` (strings,
/// comments and continuations skipped, newlines included) until it returns false.
fn walk_code(text: &str, mut f: impl FnMut(usize, char) -> bool) {
    let mut it = text.char_indices().peekable();
    let mut prev: Option<char> = None;
    while let Some((i, c)) = it.next() {
        match c {
            '.' if text[i..].starts_with("...") => {
                // A continuation: the line goes on after the comment.
                for (_, d) in it.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
                prev = Some(' ');
                continue;
            }
            '%' | '#' => {
                while it.peek().is_some_and(|&(_, d)| !is_newline(d)) {
                    it.next();
                }
                prev = Some(' ');
                continue;
            }
            '"' | '\'' if c == '"' || !touches_value(prev) || after_keyword(text, i) => {
                skip_string(&mut it, c);
                prev = Some('\'');
                continue;
            }
            _ => {}
        }
        if !f(i, c) {
            return;
        }
        prev = Some(c);
    }
}

/// The diagnostic for a clause that failed because brackets and anonymous functions
/// nest more than `max` deep in it (the grammar's limit), judged from the text between
/// the clause start and where pest gave up. `None` if they do not.
pub(super) fn too_deep(
    source: &str,
    start: usize,
    furthest: usize,
    max: usize,
) -> Option<Diagnostic> {
    let text = source.get(start..floor_boundary(source, furthest))?;
    // Open brackets; `true` for the parameter list of an anonymous function, which is
    // not a level of expression.
    let mut brackets: Vec<bool> = vec![];
    let mut open = 0usize;
    // `brackets.len()` where each anonymous function still open started.
    let mut lambdas: Vec<usize> = vec![];
    let mut params_next = false;
    let mut found = None;
    walk_code(text, |i, c| {
        match c {
            '\n' | '\r' | ',' | ';' => {
                while lambdas.last().is_some_and(|&d| d >= brackets.len()) {
                    lambdas.pop();
                }
            }
            '(' | '[' | '{' => {
                let params = params_next && c == '(';
                brackets.push(params);
                open += usize::from(!params);
            }
            ')' | ']' | '}' => {
                if brackets.pop() == Some(false) {
                    open -= 1;
                }
                while lambdas.last().is_some_and(|&d| d > brackets.len()) {
                    lambdas.pop();
                }
            }
            '@' if !text[i + 1..]
                .trim_start_matches([' ', '\t'])
                .starts_with(|d: char| d.is_ascii_alphabetic() || d == '_') =>
            {
                lambdas.push(brackets.len());
            }
            _ => {}
        }
        params_next = c == '@' || (params_next && matches!(c, ' ' | '\t'));
        if open + lambdas.len() > max {
            found = Some((i, c, open, lambdas.len()));
            return false;
        }
        true
    });
    let (i, c, open, lambdas) = found?;
    let what = match (open, lambdas) {
        (_, 0) => "brackets are",
        (0, _) => "anonymous functions are",
        _ => "brackets and anonymous functions are",
    };
    let at = start + i;
    Some(Diagnostic::error(
        "syntax.too-deep",
        format!("{what} nested more than {max} deep"),
        Span::new(at, at + c.len_utf8()),
    ))
}

/// End of a clause rejected as nested too deeply: where its brackets are all closed
/// again at the end of a line (or the end of the text), so that the rest of the nest
/// is one error rather than a fresh, equally deep failure on every line.
pub(super) fn nested_extent(source: &str, start: usize) -> usize {
    let text = &source[start..];
    let mut open = 0usize;
    let mut end = source.len();
    walk_code(text, |i, c| {
        match c {
            '(' | '[' | '{' => open += 1,
            ')' | ']' | '}' => open = open.saturating_sub(1),
            c if is_newline(c) && open == 0 => {
                end = start + i;
                return false;
            }
            _ => {}
        }
        true
    });
    end
}
