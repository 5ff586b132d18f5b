//! Expectation comments: fixtures carry what the analysis must report as trailing
//! comments on the line they are about, in the manner of mdtest (`# error: [code]`).
//!
//! # Grammar
//!
//! Every registered language's fixtures use this grammar (`tests/fixtures/**` with one of
//! the language's extensions). A comment starts at `%`, `#`, `//` or `/*` outside a
//! string literal (MATLAB and Octave write `%` and `#`; Language T also `//` and
//! `/* … */` on one line, whose closing `*/` is not part of the comment's text). Inside a
//! comment:
//!
//! ```text
//! directive   := expect | expect-error | expect-warning | "expect-unreachable"
//!              | "expect-no-diagnostics"
//! expect      := "expect:" item (";" item)* [ "check:" STATUS ] [ remark ]
//! item        := NAME SHAPE
//! SHAPE       := "<" [dim ("," dim)*] ">"    extents, compared after canonicalisation
//!                                             (MATLAB's have two or more; Language
//!                                             T's one per dimension: `<R>`, `<M,O>`)
//!              | "illegal"                    the illegal shape class π̄
//!              | "?"                          unknown rank (`{"dims": null}`)
//!              | "=" "shape(" OTHER ")"       same ShapeView as OTHER's latest def
//!                                             at or before this line
//! dim         := INTEGER | "*" (any extent) | symbolic text (compared literally
//!                after removing spaces; commas inside parentheses are allowed;
//!                whatever its bound)
//!              | ":" INTEGER                a symbolic extent with that upper bound
//!                                           (`"max"` in the JSON; `1×:10`)
//!              | ":?"                       a symbolic extent with no bound
//! STATUS      := WORD ("|" WORD)*          any of the listed statuses is accepted
//! WORD        := proven | runtime | error | none
//! remark      := "(" free text             ignored, for the human reader
//! expect-error:= "expect-error:" CODE      an error diagnostic with CODE on this line;
//!                                          several may follow one another
//! expect-warning:= "expect-warning:" CODE  a warning with CODE on this line; a file's
//!                                          warnings whose code some expect-warning of
//!                                          the file names must all be claimed
//! "expect-fact:" KEY TEXT                 a comment of its own: the report's fact KEY
//!                                          (a top-level JSON field such as VEC's
//!                                          `shape_signature`) is TEXT, blanks aside
//! "expect-unreachable"                     every statement starting on this line is one
//!                                          no execution reaches (the report's
//!                                          `nonviable`, JSON `"reachable": false`)
//! ```
//!
//! A CODE ending in `*` matches every code starting with the text before the `*`
//! (`shape.mtimes*`); a CODE without `*` matches that code and its sub-codes
//! (`shape.vertcat` matches `shape.vertcat.rows`), since codes are dotted families.
//!
//! Binding: an expectation is about the statement(s) starting on its line. Names are
//! looked up in the defs of all of them (the last def wins); `check:` holds when some
//! statement starting on the line has that status.
//!
//! File-level directives live in the leading comment block (before any code): a line
//! `KEY: VALUE` (one lower-case word, a colon, one word) sets the language's option KEY
//! (one of its `OptionSpec` keys, VALUE one of its choices; anything else is a
//! [`SyntaxIssue`]) in the options passed to `analyze`, so a MATLAB fixture says
//! `% mode: paper` (default `modern`); options not set take their defaults.
//! `% differential` marks a straight-line program for the Octave differential suite. `% expect-no-diagnostics`
//! may appear anywhere; it makes the file a checked fixture even without other
//! expectations. Error diagnostics that no `expect-error` claims always fail a fixture.
//!
//! The parse keeps the byte range of every shape, status and `expect-error:` in the
//! source, so [`crate::bless`] can rewrite exactly those and nothing else.

use shapex::report::{CheckStatus, Lexical};
use shapex::{LanguageInfo, Options};
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;

/// One extent in an expected shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DimPattern {
    Known(i64),
    Any,
    /// Symbolic text with spaces removed, compared literally (whatever its bound).
    Symbolic(String),
    /// `:10`: a symbolic extent whose upper bound is 10 (MATLAB Coder's notation);
    /// `:?` (`None`): a symbolic extent with no bound.
    Bounded(Option<i64>),
}

/// What a named def's shape must be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapePattern {
    Dims(Vec<DimPattern>),
    Illegal,
    UnknownRank,
    SameAs(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefExpect {
    pub name: String,
    pub shape: ShapePattern,
    /// Where the SHAPE text is in the source (bytes).
    pub span: Range<usize>,
}

/// A diagnostic code pattern from `expect-error:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodePattern {
    pub text: String,
    /// Where the CODE is in the source (bytes).
    pub span: Range<usize>,
    /// Where the whole `expect-error: CODE` is in the source (bytes).
    pub directive: Range<usize>,
}

impl CodePattern {
    pub fn matches(&self, code: &str) -> bool {
        match self.text.strip_suffix('*') {
            Some(stem) => code.starts_with(stem),
            None => {
                code == self.text
                    || code
                        .strip_prefix(self.text.as_str())
                        .is_some_and(|rest| rest.starts_with('.'))
            }
        }
    }
}

impl fmt::Display for CodePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Everything expected of one source line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineExpect {
    pub line: u32,
    pub defs: Vec<DefExpect>,
    /// The accepted statuses (`check: none|proven` accepts either).
    pub check: Option<Vec<CheckStatus>>,
    /// Where the STATUS text after `check:` is in the source (bytes).
    pub check_span: Option<Range<usize>>,
    pub errors: Vec<CodePattern>,
    pub warnings: Vec<CodePattern>,
    /// `expect-unreachable`: no execution reaches the line's statements.
    pub unreachable: bool,
}

/// A malformed expectation comment: reported as a mismatch so typos cannot silently
/// turn a fixture into a no-op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxIssue {
    pub line: u32,
    pub message: String,
}

/// The parsed expectations of a fixture file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FixtureSpec {
    /// The id of the language the fixture is written in (from its extension).
    pub lang: String,
    /// Where its comments start (the language's).
    pub lexical: Lexical,
    /// Every option of the language: the value the front matter gives, else the
    /// default.
    pub settings: BTreeMap<String, String>,
    pub differential: bool,
    pub no_diagnostics: bool,
    pub lines: Vec<LineExpect>,
    /// `expect-fact: KEY TEXT`: the report's fact KEY (its JSON field) is TEXT,
    /// compared with runs of blanks as one space; (line, key, text).
    pub facts: Vec<(u32, String, String)>,
    pub issues: Vec<SyntaxIssue>,
}

impl FixtureSpec {
    /// True when the file asks anything of the analysis.
    pub fn has_expectations(&self) -> bool {
        self.no_diagnostics || !self.lines.is_empty() || !self.issues.is_empty()
    }

    /// The options to analyse the fixture with: its language and settings.
    pub fn options(&self) -> Options {
        Options {
            lang: self.lang.clone(),
            settings: self.settings.clone(),
            views: None,
            witness: false,
        }
    }

    /// The setting `key` (front matter or default), if the language has that option.
    pub fn setting(&self, key: &str) -> Option<&str> {
        self.settings.get(key).map(String::as_str)
    }

    /// Parses the expectations of `source`, a fixture written in `lang`.
    pub fn parse(source: &str, lang: &LanguageInfo) -> FixtureSpec {
        let mut spec = FixtureSpec {
            lang: lang.id.to_string(),
            lexical: lang.lexical,
            settings: lang
                .options
                .iter()
                .map(|o| (o.key.to_string(), o.default_value().to_string()))
                .collect(),
            ..FixtureSpec::default()
        };
        let mut in_header = true;
        for (i, text) in source.lines().enumerate() {
            let line = i as u32 + 1;
            let (code, comment) = split_comment(text, &lang.lexical);
            let comment = comment.map(str::trim);
            if !code.trim().is_empty() {
                in_header = false;
            }
            let Some(comment) = comment else { continue };
            if in_header {
                spec.read_front_matter(lang, line, comment);
            }
            if comment.contains("expect-no-diagnostics") {
                spec.no_diagnostics = true;
            }
            if let Some(fact) = comment.strip_prefix(FACT) {
                match fact.trim().split_once(char::is_whitespace) {
                    Some((key, text)) => spec.facts.push((line, key.into(), text.trim().into())),
                    None => spec.issues.push(SyntaxIssue {
                        line,
                        message: format!("{FACT} needs a key and a text"),
                    }),
                }
                continue;
            }
            match parse_directives(source, line, comment) {
                Ok(Some(e)) => spec.lines.push(e),
                Ok(None) => {}
                Err(message) => spec.issues.push(SyntaxIssue { line, message }),
            }
        }
        spec
    }

    fn read_front_matter(&mut self, lang: &LanguageInfo, line: u32, comment: &str) {
        if let Some((key, value)) = front_matter_setting(comment) {
            let mut issue = |message: String| self.issues.push(SyntaxIssue { line, message });
            let prose = value.contains(char::is_whitespace);
            match lang.options.iter().find(|o| o.key == key) {
                // A free-text option of several lines takes one line per front-matter
                // line (`# constraints: h <= 20`, again for the next).
                Some(o) if o.choices.is_empty() && o.multiline => {
                    let v = self.settings.entry(key.to_string()).or_default();
                    if !v.is_empty() {
                        v.push('\n');
                    }
                    v.push_str(value);
                }
                Some(o) if o.choices.is_empty() && !prose => {
                    self.settings.insert(key.to_string(), value.to_string());
                }
                // Prose that happens to start with a word and a colon.
                _ if prose => {}
                None => {
                    let keys: Vec<&str> = lang.options.iter().map(|o| o.key).collect();
                    issue(format!(
                        "unknown setting `{key}` for {} (its options: {})",
                        lang.id,
                        if keys.is_empty() {
                            "none".to_string()
                        } else {
                            keys.join(", ")
                        }
                    ))
                }
                Some(o) if !o.choices.iter().any(|c| c.0 == value) => {
                    let values: Vec<&str> = o.choices.iter().map(|c| c.0).collect();
                    issue(format!(
                        "unknown {key} `{value}` (expected {})",
                        values.join(" or ")
                    ))
                }
                Some(_) => {
                    self.settings.insert(key.to_string(), value.to_string());
                }
            }
        }
        if comment == "differential" || comment.starts_with("differential ") {
            self.differential = true;
        }
    }
}

/// A front-matter line `KEY: VALUE`: one lower-case word (letters, digits, `_`, `-`),
/// a colon, a value. A value with spaces is prose (`Expected: 22 vertices`) unless the
/// key is a multi-line free-text option of the language (see `read_front_matter`).
fn front_matter_setting(comment: &str) -> Option<(&str, &str)> {
    let (key, value) = comment.split_once(':')?;
    let value = value.trim();
    let key_ok = key.starts_with(|c: char| c.is_ascii_lowercase())
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '-'));
    let is_directive = key.starts_with("expect");
    (key_ok && !is_directive && !value.is_empty()).then_some((key, value))
}

/// Splits a source line into code and comment text (without its marker). A comment
/// starts at `%`, `#`, `//` or `/*` (see below for its `*/`), the
/// markers of every registered language (`//` and `/*` are no MATLAB operator). Quotes
/// start a string only where an operand may begin, since `'` is also transpose.
pub fn split_comment<'t>(text: &'t str, lexical: &Lexical) -> (&'t str, Option<&'t str>) {
    let mut prev: Option<char> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let rest = &text[i..];
        if let Some(marker) = lexical.comments.iter().find(|m| rest.starts_with(**m)) {
            let body = &text[i + marker.len()..];
            if *marker != "/*" {
                return (&text[..i], Some(body));
            }
            // The comment's text ends before its `*/` when nothing follows; else it
            // runs to the end of the line, `*/` and what follows included (a `%`
            // comment with directives, or code: `*/` ends a remark).
            let body = match body.find("*/") {
                Some(end) if body[end + 2..].trim().is_empty() => &body[..end],
                _ => body,
            };
            return (&text[..i], Some(body));
        }
        if lexical.quotes.contains(&c) && (c != '\'' || starts_string(prev)) {
            skip_string(&mut chars, c);
        }
        if !c.is_whitespace() {
            prev = Some(c);
        }
    }
    (text, None)
}

fn starts_string(prev: Option<char>) -> bool {
    !matches!(prev, Some(p) if p.is_alphanumeric() || matches!(p, '_' | ')' | ']' | '}' | '\'' | '.'))
}

/// Consumes a string body; a doubled quote is an escaped quote.
fn skip_string(chars: &mut std::iter::Peekable<std::str::CharIndices>, quote: char) {
    while let Some((_, c)) = chars.next() {
        if c == quote {
            if chars.peek().is_some_and(|&(_, n)| n == quote) {
                chars.next();
            } else {
                return;
            }
        }
    }
}

/// Where `part`, a slice of `source`, starts in it.
fn offset(source: &str, part: &str) -> usize {
    let at = part.as_ptr() as usize - source.as_ptr() as usize;
    debug_assert!(at + part.len() <= source.len(), "not a slice of the source");
    at
}

/// Parses the directives of one comment (a slice of `source`); `Ok(None)` when it has
/// none.
fn parse_directives(source: &str, line: u32, comment: &str) -> Result<Option<LineExpect>, String> {
    let mut out = LineExpect {
        line,
        ..Default::default()
    };
    let mut found = false;
    let mut rest = comment;
    while let Some(pos) = find_directive(rest) {
        found = true;
        rest = &rest[pos..];
        let coded = [("expect-error:", false), ("expect-warning:", true)]
            .into_iter()
            .find(|(d, _)| rest.starts_with(d));
        if let Some((directive, warning)) = coded {
            let (code, r) = take_word(&rest[directive.len()..]);
            if code.is_empty() {
                return Err(format!("{directive} needs a diagnostic code"));
            }
            let span = offset(source, code)..offset(source, code) + code.len();
            let pattern = CodePattern {
                text: code.into(),
                directive: offset(source, rest)..span.end,
                span,
            };
            if warning {
                out.warnings.push(pattern);
            } else {
                out.errors.push(pattern);
            }
            rest = r;
        } else if let Some(r) = rest.strip_prefix("expect:") {
            rest = parse_items(source, r, &mut out)?;
        } else if let Some(r) = rest.strip_prefix(UNREACHABLE) {
            out.unreachable = true;
            rest = finish(r.trim_start())?;
        } else {
            // `expect-no-diagnostics`: handled at file level.
            rest = &rest["expect-no-diagnostics".len()..];
        }
    }
    Ok(found.then_some(out).filter(|e| !is_empty(e)))
}

fn is_empty(e: &LineExpect) -> bool {
    e.defs.is_empty()
        && e.check.is_none()
        && e.errors.is_empty()
        && e.warnings.is_empty()
        && !e.unreachable
}

const UNREACHABLE: &str = "expect-unreachable";
/// A whole comment `expect-fact: KEY TEXT` (its text may hold anything).
const FACT: &str = "expect-fact:";

fn find_directive(text: &str) -> Option<usize> {
    [
        "expect-error:",
        "expect-warning:",
        "expect:",
        UNREACHABLE,
        "expect-no-diagnostics",
    ]
    .iter()
    .filter_map(|d| text.find(d))
    .min()
}

/// Parses `NAME SHAPE (; NAME SHAPE)* [check: STATUS] [(remark)]` and returns the text
/// after it (which may hold further directives).
fn parse_items<'a>(source: &str, text: &'a str, out: &mut LineExpect) -> Result<&'a str, String> {
    let mut rest = text.trim_start();
    loop {
        if rest.starts_with("check:") {
            break;
        }
        let (name, r) = take_name(rest);
        if name.is_empty() {
            return Err(format!(
                "expected a variable name after `expect:`, found `{rest}`"
            ));
        }
        let shape_text = r.trim_start();
        let (shape, r) = parse_shape(shape_text)?;
        out.defs.push(DefExpect {
            name: name.into(),
            shape,
            span: offset(source, shape_text)..offset(source, r),
        });
        rest = r.trim_start();
        match rest.strip_prefix(';') {
            Some(r) => rest = r.trim_start(),
            None => break,
        }
    }
    if let Some(r) = rest.strip_prefix("check:") {
        let (status, r) = take_word(r);
        let statuses = status.split('|').map(parse_status);
        out.check = Some(statuses.collect::<Result<_, _>>()?);
        out.check_span = Some(offset(source, status)..offset(source, status) + status.len());
        rest = r.trim_start();
    }
    finish(rest)
}

/// After the items: end of comment, another directive, a parenthesised remark, or the
/// end `*/` of a block comment (what follows it may hold directives).
fn finish(rest: &str) -> Result<&str, String> {
    if rest.is_empty() || rest.starts_with("expect") {
        Ok(rest)
    } else if rest.starts_with('(') || rest.starts_with("*/") {
        Ok(find_directive(rest).map_or("", |p| &rest[p..]))
    } else {
        Err(format!(
            "unexpected text `{rest}` in expectation (remarks go in parentheses)"
        ))
    }
}

fn parse_status(word: &str) -> Result<CheckStatus, String> {
    match word {
        "proven" => Ok(CheckStatus::Proven),
        "runtime" => Ok(CheckStatus::Runtime),
        "error" => Ok(CheckStatus::Error),
        "none" => Ok(CheckStatus::None),
        other => Err(format!(
            "unknown check status `{other}` (proven, runtime, error or none)"
        )),
    }
}

fn parse_shape(text: &str) -> Result<(ShapePattern, &str), String> {
    if let Some(r) = text.strip_prefix("illegal") {
        return Ok((ShapePattern::Illegal, r));
    }
    if let Some(r) = text.strip_prefix('?') {
        return Ok((ShapePattern::UnknownRank, r));
    }
    if let Some(r) = text.strip_prefix('=') {
        let r = r.trim_start();
        let r = r
            .strip_prefix("shape(")
            .ok_or_else(|| format!("expected `shape(NAME)` after `=`, found `{r}`"))?;
        let (other, r) = take_name(r.trim_start());
        let r = r
            .trim_start()
            .strip_prefix(')')
            .ok_or("unclosed `shape(`")?;
        return Ok((ShapePattern::SameAs(other.into()), r));
    }
    if let Some(r) = text.strip_prefix('<') {
        let end = closing_angle(r).ok_or("unclosed `<` in shape")?;
        // `<>`: no dimensions (a VEC scalar's shape, `un`).
        if r[..end].trim().is_empty() {
            return Ok((ShapePattern::Dims(Vec::new()), &r[end + 1..]));
        }
        let dims = split_top_level(&r[..end])
            .into_iter()
            .map(parse_dim)
            .collect::<Result<Vec<_>, _>>()?;
        return Ok((ShapePattern::Dims(dims), &r[end + 1..]));
    }
    Err(format!(
        "expected a shape (`<…>`, `illegal`, `?` or `= shape(x)`), found `{text}`"
    ))
}

/// The `>` closing a shape tuple: the first one at parenthesis depth 0 (symbolic
/// extents may contain `max(n,0)` but no comparison operators).
fn closing_angle(text: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '>' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

fn parse_dim(text: &str) -> Result<DimPattern, String> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if t.is_empty() {
        return Err("empty extent in shape tuple".into());
    }
    if let Some(bound) = t.strip_prefix(':') {
        return match bound {
            "?" => Ok(DimPattern::Bounded(None)),
            _ => bound
                .parse::<i64>()
                .map(|c| DimPattern::Bounded(Some(c)))
                .map_err(|_| format!("expected a bound `:INTEGER` or `:?`, found `{t}`")),
        };
    }
    Ok(match t.as_str() {
        "*" => DimPattern::Any,
        _ => match t.parse::<i64>() {
            Ok(n) => DimPattern::Known(n),
            Err(_) => DimPattern::Symbolic(t),
        },
    })
}

fn take_name(text: &str) -> (&str, &str) {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    text.split_at(end)
}

fn take_word(text: &str) -> (&str, &str) {
    let text = text.trim_start();
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    text.split_at(end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::language;

    fn parse(src: &str) -> FixtureSpec {
        FixtureSpec::parse(src, &language("matlab"))
    }

    const MATLAB: Lexical = Lexical {
        comments: &["%", "#"],
        quotes: &['"', '\''],
    };
    const T: Lexical = Lexical {
        comments: &["%", "#", "//", "/*"],
        quotes: &[],
    };

    fn one(src: &str) -> LineExpect {
        let spec = parse(src);
        assert!(spec.issues.is_empty(), "{:?}", spec.issues);
        assert_eq!(spec.lines.len(), 1, "{spec:?}");
        spec.lines[0].clone()
    }

    #[test]
    fn parses_shape_and_check() {
        let src = "c = a*b;  % expect: c <a_1,b_2>  check: runtime";
        let e = one(src);
        assert_eq!(e.line, 1);
        assert_eq!(
            e.defs,
            vec![DefExpect {
                name: "c".into(),
                shape: ShapePattern::Dims(vec![
                    DimPattern::Symbolic("a_1".into()),
                    DimPattern::Symbolic("b_2".into())
                ]),
                span: 22..31,
            }]
        );
        assert_eq!(&src[e.defs[0].span.clone()], "<a_1,b_2>");
        assert_eq!(e.check, Some(vec![CheckStatus::Runtime]));
        assert_eq!(&src[e.check_span.unwrap()], "runtime");
    }

    #[test]
    fn parses_all_shape_forms_and_remarks() {
        let e = one(
            "x=1; % expect: y <3, *>; z ?; w illegal; e = shape(d) check: proven|none (p2 == q1)",
        );
        let shapes: Vec<_> = e.defs.iter().map(|d| d.shape.clone()).collect();
        assert_eq!(
            shapes,
            vec![
                ShapePattern::Dims(vec![DimPattern::Known(3), DimPattern::Any]),
                ShapePattern::UnknownRank,
                ShapePattern::Illegal,
                ShapePattern::SameAs("d".into()),
            ]
        );
        assert_eq!(e.check, Some(vec![CheckStatus::Proven, CheckStatus::None]));
    }

    #[test]
    fn symbolic_extents_may_contain_commas_in_parentheses() {
        let e = one("a = zeros(n, m); % expect: a <max(n, 0),max(m,0)>");
        assert_eq!(
            e.defs[0].shape,
            ShapePattern::Dims(vec![
                DimPattern::Symbolic("max(n,0)".into()),
                DimPattern::Symbolic("max(m,0)".into())
            ])
        );
    }

    #[test]
    fn several_errors_and_octave_comments() {
        let src = "x = [A; B]  # expect-error: shape.vertcat expect-error: shape.mtimes*";
        let e = one(src);
        assert_eq!(e.errors.len(), 2);
        assert_eq!(&src[e.errors[1].span.clone()], "shape.mtimes*");
        assert_eq!(
            &src[e.errors[0].directive.clone()],
            "expect-error: shape.vertcat"
        );
        assert!(e.errors[1].matches("shape.mtimes.inner"));
        assert!(e.errors[0].matches("shape.vertcat.cols"));
        assert!(!e.errors[0].matches("shape.vertcatx"));
    }

    #[test]
    fn unreachable_lines() {
        let e = one("  a = 1; % expect-unreachable (if false)");
        assert!(e.unreachable && e.errors.is_empty() && e.defs.is_empty());
        let e = one("b = 2; % expect-unreachable expect-error: shape.mtimes");
        assert!(e.unreachable && e.errors.len() == 1);
        assert!(!one("c = 3; % expect: c <1,1>").unreachable);
        assert_eq!(parse("d = 4; % expect-unreachable because").issues.len(), 1);
    }

    #[test]
    fn quotes_hide_comment_markers_but_transpose_does_not() {
        assert_eq!(split_comment("s = 'a%b'; % c", &MATLAB).1, Some(" c"));
        assert_eq!(split_comment("t = a'; % c", &MATLAB).1, Some(" c"));
        assert_eq!(split_comment("t = a' * b'; # c", &MATLAB).1, Some(" c"));
        assert_eq!(split_comment("s = \"x#y\";", &MATLAB).1, None);
    }

    #[test]
    fn front_matter_and_markers() {
        let spec = parse(
            "% Paper example\n% mode: paper\n% differential\n\na = 1; % expect-no-diagnostics\n% mode: modern\n",
        );
        assert_eq!(
            spec.setting("mode"),
            Some("paper"),
            "mode after code is not front matter"
        );
        assert_eq!(spec.options().lang, "matlab");
        assert!(spec.differential && spec.no_diagnostics && spec.has_expectations());
        assert_eq!(
            parse("a = 1;\n").setting("mode"),
            Some("modern"),
            "the default"
        );
    }

    #[test]
    fn front_matter_settings_are_the_language_options() {
        for (src, issue) in [
            (
                "% mode: quirky\na = 1;",
                "unknown mode `quirky` (expected modern or paper)",
            ),
            (
                "% colour: red\na = 1;",
                "unknown setting `colour` for matlab (its options: mode, entry)",
            ),
        ] {
            let spec = parse(src);
            let issues: Vec<&str> = spec.issues.iter().map(|i| i.message.as_str()).collect();
            assert_eq!(issues, [issue], "{src}");
        }
        // Prose in a header is not a setting.
        assert!(parse("% Expected: 22 vertices\n% note: two words\na = 1;")
            .issues
            .is_empty());
        // Language T has no options: any setting is unknown.
        let t = FixtureSpec::parse("% mode: paper\nproc p(in a[N]);\n", &language("t"));
        assert_eq!(t.issues.len(), 1, "{t:?}");
        assert!(t.settings.is_empty() && t.options().lang == "t");
        // A multi-line free-text option collects one line per front-matter line.
        let py = FixtureSpec::parse(
            "# model: Net\n# constraints: x.shape == (b, c, h, w)\n# constraints: h <= 20\nimport torch\n",
            &language("py"),
        );
        assert!(py.issues.is_empty(), "{:?}", py.issues);
        assert_eq!(py.setting("model"), Some("Net"));
        assert_eq!(
            py.setting("constraints"),
            Some("x.shape == (b, c, h, w)\nh <= 20")
        );
    }

    #[test]
    fn language_t_comments_carry_directives() {
        assert_eq!(language("matlab").lexical, MATLAB);
        assert_eq!(language("t").lexical, T);
        assert_eq!(split_comment("copy(x, y); // c", &T).1, Some(" c"));
        assert_eq!(split_comment("/* i'th row */", &T).1, Some(" i'th row "));
        assert_eq!(split_comment("f(a, c); ==> Illegal % c", &T).1, Some(" c"));
        assert_eq!(split_comment("f(a); /* r */ % c", &T).1, Some(" r */ % c"));
        let spec = FixtureSpec::parse(
            "% header\nproc p(in a[N]) /* expect-error: t.exit */\ncopy(x, y); // expect-error: t.size*\nf(); /* note */ % expect: check: proven\n",
            &language("t"),
        );
        assert!(spec.issues.is_empty(), "{:?}", spec.issues);
        let codes: Vec<(u32, &str)> = spec
            .lines
            .iter()
            .flat_map(|e| e.errors.iter().map(move |c| (e.line, c.text.as_str())))
            .collect();
        assert_eq!(codes, [(2, "t.exit"), (3, "t.size*")]);
        assert_eq!(
            spec.lines[2].check,
            Some(vec![CheckStatus::Proven]),
            "a directive after a closed block comment"
        );
    }

    #[test]
    fn malformed_expectations_are_issues_not_silence() {
        for bad in [
            "c = 1; % expect: c <3,>",
            "c = 1; % expect: c 3x4",
            "c = 1; % expect: c <3,4> check: maybe",
            "c = 1; % expect: c <3,4> because",
            "c = 1; % expect-error:",
        ] {
            let spec = parse(bad);
            assert_eq!(spec.issues.len(), 1, "{bad}: {spec:?}");
        }
    }

    #[test]
    fn no_extents_is_a_shape_and_facts_are_read_whole() {
        let spec = parse("c = 1; % expect: c <>\n% expect-fact: result <~2, un> and more\n");
        assert!(spec.issues.is_empty(), "{:?}", spec.issues);
        assert_eq!(spec.lines[0].defs[0].shape, ShapePattern::Dims(Vec::new()));
        assert_eq!(
            spec.facts,
            [(2, "result".to_string(), "<~2, un> and more".to_string())]
        );
        assert_eq!(parse("% expect-fact: result\n").issues.len(), 1);
    }

    #[test]
    fn plain_comments_are_not_expectations() {
        let spec = parse("% we expect nothing here\na = 1; % a is scalar\n");
        assert!(!spec.has_expectations());
    }
}
