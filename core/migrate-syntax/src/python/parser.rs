//! The recovering Python parser: `lines` finds the logical lines and their
//! indentation, blocks are grouped here, and each line's text is parsed by the grammar
//! (`py.pest`). A line that does not parse becomes one [`StmtKind::Error`] with a
//! diagnostic naming what was expected there; indentation errors are diagnostics too,
//! and every other line is still parsed.

use super::ast::*;
use super::lines::{logical_lines, Line};
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;
use pest::Parser;
use pest_derive::Parser;
use shapex_text::{Diagnostic, Span};

#[derive(Parser)]
#[grammar = "python/py.pest"]
struct PyParser;

/// Brackets may nest this deep in one line; the grammar and the builder recurse once
/// per level, so this bounds their stack on any input (a test parses the deepest
/// accepted lines on a 1 MiB stack in a debug build; 32 levels overflowed it, 24 fit;
/// model code nests a handful).
pub const MAX_DEPTH: usize = 20;

/// Blocks may nest this deep (by indentation).
pub const MAX_BLOCKS: usize = 100;

/// A parsed Python file: the module and the syntax diagnostics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParsedModule {
    pub module: Module,
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses a Python file. Never panics; syntax errors become diagnostics and
/// [`StmtKind::Error`] statements.
pub fn parse(source: &str) -> ParsedModule {
    let lines = logical_lines(source);
    let mut p = Blocks {
        src: source,
        lines: &lines,
        next: 0,
        diagnostics: Vec::new(),
    };
    let body = p.block(0, 0);
    ParsedModule {
        module: Module { body },
        diagnostics: p.diagnostics,
    }
}

/// One line's parse: a header (with the simple statements after its `:`, if any) or
/// simple statements.
enum Parsed {
    Header(Header, Vec<Stmt>),
    Simple(Vec<Stmt>),
}

enum Header {
    Def {
        name: Ident,
        params: Vec<Param>,
        returns: Option<Expr>,
    },
    Class {
        name: Ident,
        bases: Vec<Arg>,
    },
    If(Expr),
    Elif(Expr),
    Else,
    For(Expr, Expr),
    While(Expr),
    Decorator(Expr),
    Other(String),
}

struct Blocks<'a> {
    src: &'a str,
    lines: &'a [Line],
    next: usize,
    diagnostics: Vec<Diagnostic>,
}

impl Blocks<'_> {
    fn span(&self, l: &Line) -> Span {
        Span::new(l.start, l.end)
    }

    /// The statements of a block whose lines are indented `indent` columns, from the
    /// next line on, until a line indented less.
    fn block(&mut self, indent: usize, level: usize) -> Vec<Stmt> {
        let mut out = Vec::new();
        let mut decorators = Vec::new();
        while let Some(&line) = self.lines.get(self.next) {
            if line.indent < indent {
                break;
            }
            if line.indent > indent {
                self.diagnostics.push(Diagnostic::error(
                    "syntax.indent",
                    "unexpected indent: this line is indented more than the block it is in",
                    Span::new(line.start, line.start + 1),
                ));
            }
            self.next += 1;
            let span = self.span(&line);
            let parsed = match self.line(&line) {
                Some(p) => p,
                None => {
                    self.skip_body(line.indent);
                    out.push(Stmt {
                        kind: StmtKind::Error,
                        span,
                    });
                    continue;
                }
            };
            match parsed {
                Parsed::Simple(stmts) => {
                    self.flush_decorators(&mut decorators, &mut out);
                    out.extend(stmts);
                }
                Parsed::Header(Header::Decorator(e), _) => decorators.push(e),
                Parsed::Header(header, inline) => {
                    let body = self.body(&line, inline, level);
                    let stmt = self.compound(header, body, span, &line, level, &mut decorators);
                    if let Some(s) = stmt {
                        out.push(s);
                    }
                }
            }
        }
        self.flush_decorators(&mut decorators, &mut out);
        out
    }

    fn flush_decorators(&mut self, decorators: &mut Vec<Expr>, out: &mut Vec<Stmt>) {
        for d in decorators.drain(..) {
            out.push(Stmt {
                span: d.span,
                kind: StmtKind::Unsupported {
                    what: "a decorator not followed by a definition".into(),
                    body: Vec::new(),
                },
            });
        }
    }

    /// Skips the indented lines after a line that failed (its block, if it had one).
    fn skip_body(&mut self, indent: usize) {
        while self.lines.get(self.next).is_some_and(|l| l.indent > indent) {
            self.next += 1;
        }
    }

    /// A header's body: the statements after its `:` on the same line, or the block of
    /// the following, deeper-indented lines.
    fn body(&mut self, header: &Line, inline: Vec<Stmt>, level: usize) -> Vec<Stmt> {
        if !inline.is_empty() {
            return inline;
        }
        match self.lines.get(self.next) {
            Some(l) if l.indent > header.indent => {
                if level + 1 >= MAX_BLOCKS {
                    self.diagnostics.push(Diagnostic::error(
                        "syntax.nesting",
                        format!("blocks nest more than {MAX_BLOCKS} levels deep here"),
                        Span::new(l.start, l.start + 1),
                    ));
                    self.skip_body(header.indent);
                    return Vec::new();
                }
                let indent = l.indent;
                self.block(indent, level + 1)
            }
            _ => {
                self.diagnostics.push(Diagnostic::error(
                    "syntax.block",
                    "expected an indented block after this line's `:`",
                    Span::new(header.end.saturating_sub(1).max(header.start), header.end),
                ));
                Vec::new()
            }
        }
    }

    /// Whether the next line is the header `elif`/`else` at `indent`.
    fn continues(&mut self, indent: usize, want_elif: bool) -> Option<(Line, Parsed)> {
        let line = *self.lines.get(self.next)?;
        if line.indent != indent {
            return None;
        }
        let text = &self.src[line.start..line.end];
        let starts = |kw: &str| {
            text.strip_prefix(kw)
                .is_some_and(|r| !r.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
        };
        if !(starts("else") || (want_elif && starts("elif"))) {
            return None;
        }
        self.next += 1;
        match self.line(&line) {
            Some(p) => Some((line, p)),
            None => {
                self.skip_body(line.indent);
                None
            }
        }
    }

    fn compound(
        &mut self,
        header: Header,
        body: Vec<Stmt>,
        span: Span,
        line: &Line,
        level: usize,
        decorators: &mut Vec<Expr>,
    ) -> Option<Stmt> {
        let end = |b: &[Stmt]| b.last().map_or(span, |s| span.to(s.span));
        let kind = match header {
            Header::Def {
                name,
                params,
                returns,
            } => StmtKind::FunctionDef {
                name,
                params,
                returns,
                decorators: std::mem::take(decorators),
                body,
            },
            Header::Class { name, bases } => StmtKind::ClassDef {
                name,
                bases,
                decorators: std::mem::take(decorators),
                body,
            },
            Header::If(test) => {
                let orelse = self.orelse(line, level, true);
                let whole = orelse.last().map_or(end(&body), |s| span.to(s.span));
                return Some(Stmt {
                    kind: StmtKind::If { test, body, orelse },
                    span: whole,
                });
            }
            Header::For(target, iter) => {
                let orelse = self.orelse(line, level, false);
                StmtKind::For {
                    target,
                    iter,
                    body,
                    orelse,
                }
            }
            Header::While(test) => {
                let orelse = self.orelse(line, level, false);
                StmtKind::While { test, body, orelse }
            }
            Header::Elif(_) | Header::Else => {
                self.diagnostics.push(Diagnostic::error(
                    "syntax.orphan",
                    "this `elif`/`else` follows no `if`, `for` or `while` at its indentation",
                    Span::new(line.start, line.start + 4.min(line.end - line.start)),
                ));
                StmtKind::Error
            }
            Header::Other(what) => StmtKind::Unsupported { what, body },
            Header::Decorator(_) => return None,
        };
        let whole = match &kind {
            StmtKind::FunctionDef { body, .. }
            | StmtKind::ClassDef { body, .. }
            | StmtKind::Unsupported { body, .. } => end(body),
            StmtKind::For { body, orelse, .. } | StmtKind::While { body, orelse, .. } => {
                orelse.last().map_or(end(body), |s| span.to(s.span))
            }
            _ => span,
        };
        self.flush_decorators(decorators, &mut Vec::new());
        Some(Stmt { kind, span: whole })
    }

    /// The `elif`/`else` arms after a block at `header`'s indentation.
    fn orelse(&mut self, header: &Line, level: usize, elif: bool) -> Vec<Stmt> {
        let Some((line, parsed)) = self.continues(header.indent, elif) else {
            return Vec::new();
        };
        let span = self.span(&line);
        match parsed {
            Parsed::Header(Header::Else, inline) => self.body(&line, inline, level),
            Parsed::Header(Header::Elif(test), inline) => {
                let body = self.body(&line, inline, level);
                let orelse = self.orelse(&line, level, true);
                let whole = orelse
                    .last()
                    .or(body.last())
                    .map_or(span, |s| span.to(s.span));
                vec![Stmt {
                    kind: StmtKind::If { test, body, orelse },
                    span: whole,
                }]
            }
            _ => Vec::new(),
        }
    }

    /// Parses one logical line; `None` (with a diagnostic) when it does not parse.
    fn line(&mut self, line: &Line) -> Option<Parsed> {
        let text = &self.src[line.start..line.end];
        if line.depth > MAX_DEPTH {
            self.diagnostics.push(Diagnostic::error(
                "syntax.nesting",
                format!("brackets nest more than {MAX_DEPTH} levels deep on this line"),
                Span::new(line.start, line.end),
            ));
            return None;
        }
        if line.unterminated {
            self.diagnostics.push(Diagnostic::error(
                "syntax.unterminated",
                "a string or bracket opened on this line is never closed",
                Span::new(line.start, line.end),
            ));
            return None;
        }
        match PyParser::parse(Rule::line, text) {
            Ok(mut pairs) => {
                let b = Build { base: line.start };
                let Some(inner) = pairs.next().and_then(|l| l.into_inner().next()) else {
                    return Some(Parsed::Simple(Vec::new()));
                };
                Some(match inner.as_rule() {
                    Rule::header => b.header(inner),
                    _ => Parsed::Simple(b.simple_stmts(inner)),
                })
            }
            Err(e) => {
                let at = match e.location {
                    InputLocation::Pos(p) => p,
                    InputLocation::Span((s, _)) => s,
                };
                let expected = match &e.variant {
                    ErrorVariant::ParsingError { positives, .. } => expected(positives),
                    ErrorVariant::CustomError { message } => message.clone(),
                };
                let found = text[at.min(text.len())..]
                    .chars()
                    .next()
                    .map_or("the end of the line".to_string(), |c| format!("`{c}`"));
                let start = line.start + at.min(text.len());
                let end = (start + found.len().saturating_sub(2).max(1)).min(line.end.max(start));
                self.diagnostics.push(Diagnostic::error(
                    "syntax.expected",
                    format!("expected {expected}, found {found}"),
                    Span::new(start, end.max(start)),
                ));
                None
            }
        }
    }
}

/// What a syntax error says was expected, in words.
fn expected(rules: &[Rule]) -> String {
    let mut words: Vec<&str> = rules
        .iter()
        .map(|r| match r {
            Rule::expr | Rule::exprs | Rule::primary | Rule::unary | Rule::ternary => {
                "an expression"
            }
            Rule::name => "a name",
            Rule::call_args | Rule::call_arg => "an argument",
            Rule::params | Rule::param => "a parameter",
            Rule::bin_op | Rule::comp_op => "an operator",
            Rule::aug_op => "an assignment",
            Rule::slices | Rule::slice_item | Rule::slice => "an index",
            Rule::EOI => "the end of the statement",
            Rule::attribute => "`.name`",
            _ => "a statement",
        })
        .collect();
    words.sort_unstable();
    words.dedup();
    match words.as_slice() {
        [] => "a statement".into(),
        [one] => (*one).into(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Turns the grammar's pairs (spans relative to the line) into the AST (spans into the
/// file).
struct Build {
    base: usize,
}

impl Build {
    fn span(&self, p: &Pair<Rule>) -> Span {
        let s = p.as_span();
        Span::new(self.base + s.start(), self.base + s.end())
    }

    fn ident(&self, p: Pair<Rule>) -> Ident {
        Ident {
            name: p.as_str().to_string(),
            span: self.span(&p),
        }
    }

    fn header(&self, p: Pair<Rule>) -> Parsed {
        let mut inner = p.into_inner();
        let Some(h) = inner.next() else {
            return Parsed::Simple(Vec::new());
        };
        let inline = inner
            .next()
            .map(|s| self.simple_stmts(s))
            .unwrap_or_default();
        let span = self.span(&h);
        let header = match h.as_rule() {
            Rule::decorator => match h.into_inner().next() {
                Some(e) => Header::Decorator(self.expr(e)),
                None => Header::Other("a decorator".into()),
            },
            Rule::def_header => {
                let mut name = None;
                let mut params = Vec::new();
                let mut returns = None;
                for c in h.into_inner() {
                    match c.as_rule() {
                        Rule::name => name = Some(self.ident(c)),
                        Rule::params => params = c.into_inner().map(|p| self.param(p)).collect(),
                        Rule::expr => returns = Some(self.expr(c)),
                        _ => {}
                    }
                }
                Header::Def {
                    name: name.unwrap_or(Ident {
                        name: String::new(),
                        span,
                    }),
                    params,
                    returns,
                }
            }
            Rule::class_header => {
                let mut name = None;
                let mut bases = Vec::new();
                for c in h.into_inner() {
                    match c.as_rule() {
                        Rule::name => name = Some(self.ident(c)),
                        Rule::call_args => bases = self.call_args(c),
                        _ => {}
                    }
                }
                Header::Class {
                    name: name.unwrap_or(Ident {
                        name: String::new(),
                        span,
                    }),
                    bases,
                }
            }
            Rule::if_header | Rule::elif_header | Rule::while_header => {
                let rule = h.as_rule();
                let test = h
                    .into_inner()
                    .find(|c| matches!(c.as_rule(), Rule::expr | Rule::walrus))
                    .map_or(self.unsupported("a condition", span), |c| self.expr(c));
                match rule {
                    Rule::if_header => Header::If(test),
                    Rule::elif_header => Header::Elif(test),
                    _ => Header::While(test),
                }
            }
            Rule::else_header => Header::Else,
            Rule::for_header => {
                let mut target = None;
                let mut iter = None;
                for c in h.into_inner() {
                    match c.as_rule() {
                        Rule::loop_targets => target = Some(self.tuple_of(c)),
                        Rule::exprs => iter = Some(self.exprs(c)),
                        _ => {}
                    }
                }
                Header::For(
                    target.unwrap_or_else(|| self.unsupported("a loop target", span)),
                    iter.unwrap_or_else(|| self.unsupported("a loop iterable", span)),
                )
            }
            _ => {
                let word = h.as_str().split_whitespace().next().unwrap_or("block");
                Header::Other(format!("`{word}` blocks"))
            }
        };
        Parsed::Header(header, inline)
    }

    fn param(&self, p: Pair<Rule>) -> Param {
        let span = self.span(&p);
        let mut kind = ParamKind::Normal;
        let mut name = None;
        let mut annotation = None;
        let mut default = None;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::star => kind = ParamKind::VarArgs,
                Rule::star_star => kind = ParamKind::KwArgs,
                Rule::slash => kind = ParamKind::PosOnlyMarker,
                Rule::name => name = Some(self.ident(c)),
                Rule::annotation => annotation = c.into_inner().next().map(|e| self.expr(e)),
                Rule::expr => default = Some(self.expr(c)),
                _ => {}
            }
        }
        if kind == ParamKind::VarArgs && name.is_none() {
            kind = ParamKind::KwOnlyMarker;
        }
        Param {
            kind,
            name,
            annotation,
            default,
            span,
        }
    }

    fn simple_stmts(&self, p: Pair<Rule>) -> Vec<Stmt> {
        p.into_inner().map(|s| self.simple(s)).collect()
    }

    fn simple(&self, p: Pair<Rule>) -> Stmt {
        let span = self.span(&p);
        let rule = p.as_rule();
        let mut inner = p.into_inner();
        let kind = match rule {
            Rule::pass_stmt => StmtKind::Pass,
            Rule::break_stmt => StmtKind::Break,
            Rule::continue_stmt => StmtKind::Continue,
            Rule::return_stmt => StmtKind::Return(
                inner
                    .find(|c| c.as_rule() == Rule::exprs)
                    .map(|e| self.exprs(e)),
            ),
            Rule::raise_stmt => StmtKind::Raise(
                inner
                    .find(|c| c.as_rule() == Rule::expr)
                    .map(|e| self.expr(e)),
            ),
            Rule::assert_stmt => {
                let mut es = inner.filter(|c| c.as_rule() == Rule::expr);
                let test = es
                    .next()
                    .map_or(self.unsupported("an assertion", span), |e| self.expr(e));
                let msg = es.next().map(|e| self.expr(e));
                StmtKind::Assert { test, msg }
            }
            Rule::import_stmt => StmtKind::Import,
            Rule::del_stmt => StmtKind::Unsupported {
                what: "`del`".into(),
                body: Vec::new(),
            },
            Rule::yield_stmt => StmtKind::Unsupported {
                what: "generators (`yield`)".into(),
                body: Vec::new(),
            },
            Rule::scope_stmt => StmtKind::Unsupported {
                what: "`global` and `nonlocal`".into(),
                body: Vec::new(),
            },
            Rule::aug_assign => {
                let mut target = None;
                let mut op = BinOp::Add;
                let mut value = None;
                for c in inner {
                    match c.as_rule() {
                        Rule::aug_op => op = BinOp::from_symbol(c.as_str()).unwrap_or(BinOp::Add),
                        Rule::exprs => value = Some(self.exprs(c)),
                        _ => target = Some(self.target(c)),
                    }
                }
                StmtKind::AugAssign {
                    target: target.unwrap_or_else(|| self.unsupported("a target", span)),
                    op,
                    value: value.unwrap_or_else(|| self.unsupported("a value", span)),
                }
            }
            Rule::ann_assign => {
                let parts: Vec<Pair<Rule>> = inner.collect();
                let mut it = parts.into_iter();
                let target = it
                    .next()
                    .map_or(self.unsupported("a target", span), |c| self.target(c));
                let annotation = it
                    .next()
                    .map_or(self.unsupported("an annotation", span), |c| self.expr(c));
                let value = it.next().map(|c| self.exprs(c));
                StmtKind::AnnAssign {
                    target,
                    annotation,
                    value,
                }
            }
            Rule::assign => {
                let parts: Vec<Pair<Rule>> = inner.collect();
                let n = parts.len();
                let mut targets = Vec::new();
                let mut value = None;
                for (i, c) in parts.into_iter().enumerate() {
                    if i + 1 == n {
                        value = Some(self.exprs(c));
                    } else {
                        targets.push(self.tuple_of(c));
                    }
                }
                StmtKind::Assign {
                    targets,
                    value: value.unwrap_or_else(|| self.unsupported("a value", span)),
                }
            }
            Rule::expr_stmt => match inner.next() {
                Some(e) => StmtKind::Expr(self.exprs(e)),
                None => StmtKind::Pass,
            },
            _ => StmtKind::Error,
        };
        Stmt { kind, span }
    }

    fn unsupported(&self, what: &str, span: Span) -> Expr {
        Expr {
            kind: ExprKind::Unsupported(what.to_string()),
            span,
        }
    }

    fn target(&self, p: Pair<Rule>) -> Expr {
        match p.as_rule() {
            Rule::starred => self.starred(p),
            _ => self.expr(p),
        }
    }

    fn starred(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        let inner = p
            .into_inner()
            .next()
            .map_or(self.unsupported("a starred value", span), |e| self.expr(e));
        Expr {
            kind: ExprKind::Starred(Box::new(inner)),
            span,
        }
    }

    /// `targets` (`a, b`) as one expression: a tuple when several or comma-ended.
    fn tuple_of(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        let text = p.as_str().trim_end();
        let items: Vec<Expr> = p.into_inner().map(|c| self.target(c)).collect();
        if items.len() == 1 && !text.ends_with(',') {
            items
                .into_iter()
                .next()
                .unwrap_or_else(|| self.unsupported("a target", span))
        } else {
            Expr {
                kind: ExprKind::Tuple(items),
                span,
            }
        }
    }

    /// `exprs`: one expression, or a tuple when several or comma-ended.
    fn exprs(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        let (mut items, tuple) = self.exprs_items(p);
        if tuple {
            Expr {
                kind: ExprKind::Tuple(items),
                span,
            }
        } else {
            items
                .pop()
                .unwrap_or_else(|| self.unsupported("a value", span))
        }
    }

    /// The items of `exprs`, and whether they make a tuple (several, or comma-ended).
    fn exprs_items(&self, p: Pair<Rule>) -> (Vec<Expr>, bool) {
        let mut items = Vec::new();
        let mut comma = false;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::trailing_comma => comma = true,
                _ => items.push(self.target(c)),
            }
        }
        let tuple = comma || items.len() != 1;
        (items, tuple)
    }

    fn expr(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        match p.as_rule() {
            Rule::expr => match p.into_inner().next() {
                Some(c) => self.expr(c),
                None => self.unsupported("an expression", span),
            },
            Rule::lambda => self.unsupported("`lambda`", span),
            Rule::walrus => {
                let mut it = p.into_inner();
                let target = it.next().map(|n| self.ident(n));
                let value = it.next().map(|v| self.expr(v));
                match (target, value) {
                    (Some(target), Some(value)) => Expr {
                        kind: ExprKind::NamedExpr {
                            target,
                            value: Box::new(value),
                        },
                        span,
                    },
                    _ => self.unsupported("`:=`", span),
                }
            }
            Rule::ternary => self.ternary(p),
            Rule::disjunction | Rule::conjunction => self.bool_op(p),
            Rule::inversion => self.inversion(p),
            Rule::comparison => self.comparison(p),
            Rule::binary => self.binary(p),
            Rule::unary => self.unary(p),
            Rule::power => self.power(p),
            Rule::primary => self.primary(p),
            Rule::starred => self.starred(p),
            _ => self.atom(p),
        }
    }

    fn ternary(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        let parts: Vec<Expr> = p
            .into_inner()
            .filter(|c| !matches!(c.as_rule(), Rule::kw_if | Rule::kw_else))
            .map(|c| self.expr(c))
            .collect();
        // [a, t1, o1, t2, o2, …]: a if t1 else (o1 if t2 else (o2 …)).
        let mut it = parts.into_iter();
        let Some(first) = it.next() else {
            return self.unsupported("an expression", span);
        };
        let rest: Vec<Expr> = it.collect();
        if rest.is_empty() {
            return first;
        }
        let pairs: Vec<(Expr, Expr)> = rest
            .chunks(2)
            .filter_map(|c| match c {
                [t, o] => Some((t.clone(), o.clone())),
                _ => None,
            })
            .collect();
        let mut bodies = vec![first];
        bodies.extend(pairs.iter().map(|(_, o)| o.clone()));
        let mut acc = bodies
            .pop()
            .unwrap_or_else(|| self.unsupported("a value", span));
        for (body, (test, _)) in bodies.into_iter().rev().zip(pairs.into_iter().rev()) {
            let s = body.span.to(acc.span);
            acc = Expr {
                kind: ExprKind::IfExp {
                    test: Box::new(test),
                    body: Box::new(body),
                    orelse: Box::new(acc),
                },
                span: s,
            };
        }
        acc
    }

    fn bool_op(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        let op = if p.as_rule() == Rule::disjunction {
            BoolOp::Or
        } else {
            BoolOp::And
        };
        let mut values: Vec<Expr> = p
            .into_inner()
            .filter(|c| !matches!(c.as_rule(), Rule::kw_or | Rule::kw_and))
            .map(|c| self.expr(c))
            .collect();
        if values.len() == 1 {
            return values
                .pop()
                .unwrap_or_else(|| self.unsupported("a value", span));
        }
        Expr {
            kind: ExprKind::BoolOp { op, values },
            span,
        }
    }

    fn inversion(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        let mut nots = 0;
        let mut operand = None;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::not_op => nots += 1,
                _ => operand = Some(self.expr(c)),
            }
        }
        let mut e = operand.unwrap_or_else(|| self.unsupported("a value", span));
        for _ in 0..nots {
            e = Expr {
                kind: ExprKind::UnaryOp {
                    op: UnaryOp::Not,
                    operand: Box::new(e),
                },
                span,
            };
        }
        e
    }

    fn comparison(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        let mut it = p.into_inner();
        let Some(first) = it.next() else {
            return self.unsupported("a comparison", span);
        };
        let left = self.expr(first);
        let mut ops = Vec::new();
        while let (Some(op), Some(right)) = (it.next(), it.next()) {
            ops.push((cmp_op(op.as_str()), self.expr(right)));
        }
        if ops.is_empty() {
            return left;
        }
        Expr {
            kind: ExprKind::Compare {
                left: Box::new(left),
                ops,
            },
            span,
        }
    }

    /// Binary operators by precedence climbing (all left-associative here; `**` is
    /// `power`'s).
    fn binary(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        let mut operands = Vec::new();
        let mut ops = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::bin_op => ops.push(BinOp::from_symbol(c.as_str()).unwrap_or(BinOp::Add)),
                _ => operands.push(self.expr(c)),
            }
        }
        if operands.len() != ops.len() + 1 {
            return self.unsupported("an operation", span);
        }
        // Shunting-yard: a stack of operands and of operators.
        let mut values: Vec<Expr> = Vec::new();
        let mut pending: Vec<BinOp> = Vec::new();
        let reduce = |values: &mut Vec<Expr>, op: BinOp| {
            if let (Some(right), Some(left)) = (values.pop(), values.pop()) {
                let s = left.span.to(right.span);
                values.push(Expr {
                    kind: ExprKind::BinOp {
                        op,
                        left: Box::new(left),
                        right: Box::new(right),
                    },
                    span: s,
                });
            }
        };
        let mut operands = operands.into_iter();
        if let Some(first) = operands.next() {
            values.push(first);
        }
        for (op, operand) in ops.into_iter().zip(operands) {
            while pending
                .last()
                .is_some_and(|top| top.precedence() >= op.precedence())
            {
                if let Some(top) = pending.pop() {
                    reduce(&mut values, top);
                }
            }
            pending.push(op);
            values.push(operand);
        }
        while let Some(top) = pending.pop() {
            reduce(&mut values, top);
        }
        values
            .pop()
            .unwrap_or_else(|| self.unsupported("an operation", span))
    }

    fn unary(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        let mut ops = Vec::new();
        let mut operand = None;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::unary_op => ops.push(unary_op(c.as_str())),
                _ => operand = Some(self.expr(c)),
            }
        }
        let mut e = operand.unwrap_or_else(|| self.unsupported("a value", span));
        for op in ops.into_iter().rev() {
            e = Expr {
                kind: ExprKind::UnaryOp {
                    op,
                    operand: Box::new(e),
                },
                span,
            };
        }
        e
    }

    /// `a ** -b ** c` is `a ** (-(b ** c))`: folded from the right.
    fn power(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        // Groups: (unary ops, primary), the first with no ops.
        let mut groups: Vec<(Vec<UnaryOp>, Expr)> = Vec::new();
        let mut ops = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::unary_op => ops.push(unary_op(c.as_str())),
                _ => groups.push((std::mem::take(&mut ops), self.expr(c))),
            }
        }
        let Some((last_ops, last)) = groups.pop() else {
            return self.unsupported("a value", span);
        };
        let apply = |ops: Vec<UnaryOp>, mut e: Expr| {
            for op in ops.into_iter().rev() {
                let s = e.span;
                e = Expr {
                    kind: ExprKind::UnaryOp {
                        op,
                        operand: Box::new(e),
                    },
                    span: s,
                };
            }
            e
        };
        let mut acc = apply(last_ops, last);
        while let Some((ops, base)) = groups.pop() {
            let s = base.span.to(acc.span);
            let pow = Expr {
                kind: ExprKind::BinOp {
                    op: BinOp::Pow,
                    left: Box::new(base),
                    right: Box::new(acc),
                },
                span: s,
            };
            acc = apply(ops, pow);
        }
        acc
    }

    fn primary(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        let mut it = p.into_inner().peekable();
        if it.peek().is_some_and(|c| c.as_rule() == Rule::kw_await) {
            return self.unsupported("`await`", span);
        }
        let Some(first) = it.next() else {
            return self.unsupported("a value", span);
        };
        let mut e = self.atom(first);
        for t in it {
            let s = Span::new(e.span.start, self.span(&t).end);
            e = match t.as_rule() {
                Rule::call => Expr {
                    kind: ExprKind::Call {
                        func: Box::new(e),
                        args: t
                            .into_inner()
                            .next()
                            .map(|a| self.call_args(a))
                            .unwrap_or_default(),
                    },
                    span: s,
                },
                Rule::attribute => match t.into_inner().next() {
                    Some(n) => Expr {
                        kind: ExprKind::Attribute {
                            value: Box::new(e),
                            attr: self.ident(n),
                        },
                        span: s,
                    },
                    None => e,
                },
                Rule::subscript => {
                    let index = t
                        .into_inner()
                        .next()
                        .map_or(self.unsupported("an index", s), |sl| self.slices(sl));
                    Expr {
                        kind: ExprKind::Subscript {
                            value: Box::new(e),
                            index: Box::new(index),
                        },
                        span: s,
                    }
                }
                _ => e,
            };
        }
        e
    }

    fn call_args(&self, p: Pair<Rule>) -> Vec<Arg> {
        p.into_inner().map(|a| self.call_arg(a)).collect()
    }

    fn call_arg(&self, p: Pair<Rule>) -> Arg {
        let span = self.span(&p);
        let parts: Vec<Pair<Rule>> = p.into_inner().collect();
        match parts.first().map(|c| c.as_rule()) {
            Some(Rule::kwarg) => {
                let mut it = parts
                    .into_iter()
                    .next()
                    .into_iter()
                    .flat_map(|k| k.into_inner());
                let name = it.next().map(|n| self.ident(n));
                let value = it.next().map(|v| self.expr(v));
                match (name, value) {
                    (Some(n), Some(v)) => Arg::Keyword(n, v),
                    _ => Arg::Positional(self.unsupported("an argument", span)),
                }
            }
            Some(Rule::star_star) => Arg::DoubleStar(
                parts
                    .into_iter()
                    .nth(1)
                    .map_or(self.unsupported("an argument", span), |e| self.expr(e)),
            ),
            Some(Rule::star) => Arg::Star(
                parts
                    .into_iter()
                    .nth(1)
                    .map_or(self.unsupported("an argument", span), |e| self.expr(e)),
            ),
            _ => {
                let mut it = parts.into_iter();
                let elt = it
                    .next()
                    .map_or(self.unsupported("an argument", span), |e| self.expr(e));
                let generators: Vec<CompFor> = it.map(|c| self.comp_for(c)).collect();
                if generators.is_empty() {
                    Arg::Positional(elt)
                } else {
                    Arg::Positional(Expr {
                        kind: ExprKind::Comprehension {
                            kind: CompKind::Generator,
                            elt: Box::new(elt),
                            generators,
                        },
                        span,
                    })
                }
            }
        }
    }

    fn comp_for(&self, p: Pair<Rule>) -> CompFor {
        let span = self.span(&p);
        let mut target = None;
        let mut iter = None;
        let mut ifs = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::loop_targets => target = Some(self.tuple_of(c)),
                Rule::disjunction if iter.is_none() => iter = Some(self.expr(c)),
                Rule::disjunction => ifs.push(self.expr(c)),
                _ => {}
            }
        }
        CompFor {
            target: target.unwrap_or_else(|| self.unsupported("a target", span)),
            iter: iter.unwrap_or_else(|| self.unsupported("an iterable", span)),
            ifs,
        }
    }

    fn slices(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        let text = p.as_str().trim_end();
        let items: Vec<Expr> = p.into_inner().map(|i| self.slice_item(i)).collect();
        if items.len() == 1 && !text.ends_with(',') {
            items
                .into_iter()
                .next()
                .unwrap_or_else(|| self.unsupported("an index", span))
        } else {
            Expr {
                kind: ExprKind::Tuple(items),
                span,
            }
        }
    }

    fn slice_item(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        let mut lower = None;
        let mut slice = None;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::starred => return self.starred(c),
                Rule::slice => slice = Some(c),
                _ => lower = Some(self.expr(c)),
            }
        }
        let Some(slice) = slice else {
            return lower.unwrap_or_else(|| self.unsupported("an index", span));
        };
        // `slice` is `: upper? (: step?)?`; which expression is which follows the colons.
        let mut upper = None;
        let mut step = None;
        let mut colons = 0;
        let text = slice.as_str();
        let base = slice.as_span().start();
        for c in slice.into_inner() {
            let before = &text[..c.as_span().start() - base];
            colons = before.matches(':').count().max(colons);
            let e = Some(Box::new(self.expr(c)));
            if colons >= 2 {
                step = e;
            } else {
                upper = e;
            }
        }
        Expr {
            kind: ExprKind::Slice {
                lower: lower.map(Box::new),
                upper,
                step,
            },
            span,
        }
    }

    fn atom(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        let kind = match p.as_rule() {
            Rule::name => ExprKind::Name(p.as_str().to_string()),
            Rule::kw_true => ExprKind::Bool(true),
            Rule::kw_false => ExprKind::Bool(false),
            Rule::kw_none => ExprKind::None,
            Rule::ellipsis => ExprKind::Ellipsis,
            Rule::number => number(p.as_str()),
            Rule::strings => {
                ExprKind::Str(p.into_inner().map(|s| string_value(s.as_str())).collect())
            }
            Rule::paren => return self.bracketed(p, span, CompKind::Generator),
            Rule::list => return self.bracketed(p, span, CompKind::List),
            Rule::dict_or_set => return self.braces(p, span),
            _ => return self.expr(p),
        };
        Expr { kind, span }
    }

    /// `( … )` or `[ … ]`: a parenthesised value, a tuple, a list, or a comprehension.
    fn bracketed(&self, p: Pair<Rule>, span: Span, comp: CompKind) -> Expr {
        let mut items = None;
        let mut generators = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::exprs => items = Some(self.exprs_items(c)),
                Rule::comp_for => generators.push(self.comp_for(c)),
                _ => {}
            }
        }
        let list = comp == CompKind::List;
        let (mut items, tuple) = items.unwrap_or((Vec::new(), true));
        if !generators.is_empty() {
            let elt = items
                .pop()
                .unwrap_or_else(|| self.unsupported("an element", span));
            return Expr {
                kind: ExprKind::Comprehension {
                    kind: comp,
                    elt: Box::new(elt),
                    generators,
                },
                span,
            };
        }
        let kind = if list {
            ExprKind::List(items)
        } else if tuple {
            ExprKind::Tuple(items)
        } else {
            // `(x)` is x itself (its span is the parentheses').
            match items.pop() {
                Some(e) => e.kind,
                None => ExprKind::Tuple(Vec::new()),
            }
        };
        Expr { kind, span }
    }

    fn braces(&self, p: Pair<Rule>, span: Span) -> Expr {
        let mut dict = Vec::new();
        let mut set = Vec::new();
        let mut generators = Vec::new();
        let mut is_dict = false;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::brace_item => {
                    let parts: Vec<Pair<Rule>> = c.into_inner().collect();
                    match parts.first().map(|x| x.as_rule()) {
                        Some(Rule::star_star) => {
                            is_dict = true;
                            if let Some(v) = parts.into_iter().nth(1) {
                                dict.push((None, self.expr(v)));
                            }
                        }
                        Some(Rule::starred) => {
                            if let Some(v) = parts.into_iter().next() {
                                set.push(self.starred(v));
                            }
                        }
                        _ => {
                            let mut it = parts.into_iter();
                            let k = it.next().map(|k| self.expr(k));
                            match (k, it.next()) {
                                (Some(k), Some(v)) => {
                                    is_dict = true;
                                    dict.push((Some(k), self.expr(v)));
                                }
                                (Some(k), None) => set.push(k),
                                _ => {}
                            }
                        }
                    }
                }
                Rule::comp_for => generators.push(self.comp_for(c)),
                _ => {}
            }
        }
        if !generators.is_empty() {
            let (kind, elt) = if is_dict {
                let value = dict
                    .pop()
                    .map_or(self.unsupported("an item", span), |(_, v)| v);
                (CompKind::Dict, value)
            } else {
                (
                    CompKind::Set,
                    set.pop()
                        .unwrap_or_else(|| self.unsupported("an item", span)),
                )
            };
            return Expr {
                kind: ExprKind::Comprehension {
                    kind,
                    elt: Box::new(elt),
                    generators,
                },
                span,
            };
        }
        let kind = if is_dict || set.is_empty() {
            ExprKind::Dict(dict)
        } else {
            ExprKind::Set(set)
        };
        Expr { kind, span }
    }
}

fn cmp_op(text: &str) -> CmpOp {
    let words: Vec<&str> = text.split_whitespace().collect();
    match words.as_slice() {
        ["=="] => CmpOp::Eq,
        ["!="] => CmpOp::Ne,
        ["<"] => CmpOp::Lt,
        ["<="] => CmpOp::Le,
        [">"] => CmpOp::Gt,
        [">="] => CmpOp::Ge,
        ["in"] => CmpOp::In,
        ["not", "in"] => CmpOp::NotIn,
        ["is"] => CmpOp::Is,
        _ => CmpOp::IsNot,
    }
}

fn unary_op(text: &str) -> UnaryOp {
    match text {
        "-" => UnaryOp::Neg,
        "+" => UnaryOp::Pos,
        _ => UnaryOp::Invert,
    }
}

fn number(text: &str) -> ExprKind {
    let clean: String = text.chars().filter(|&c| c != '_').collect();
    let lower = clean.to_ascii_lowercase();
    if lower.ends_with('j') {
        return ExprKind::Unsupported("complex numbers".into());
    }
    let radix = |prefix: &str, r: u32| {
        lower.strip_prefix(prefix).map(|d| {
            i64::from_str_radix(d, r).map_or(ExprKind::BigInt(clean.clone()), ExprKind::Int)
        })
    };
    if let Some(k) = radix("0x", 16)
        .or_else(|| radix("0o", 8))
        .or_else(|| radix("0b", 2))
    {
        return k;
    }
    if lower.contains(['.', 'e']) {
        return lower
            .parse()
            .map_or(ExprKind::Unsupported("this number".into()), ExprKind::Float);
    }
    lower.parse().map_or(ExprKind::BigInt(clean), ExprKind::Int)
}

/// A string literal's value: quotes and prefix removed; escapes are kept as written
/// (model code uses strings as names and messages, not for their bytes).
fn string_value(text: &str) -> String {
    let body = text.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    for q in ["\"\"\"", "'''", "\"", "'"] {
        if let Some(inner) = body.strip_prefix(q).and_then(|b| b.strip_suffix(q)) {
            return inner.to_string();
        }
    }
    body.to_string()
}
