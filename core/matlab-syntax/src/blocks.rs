//! Folds the flat clause list into nested statements and functions. Doing block
//! structure here, rather than in the grammar, is what lets a missing or stray `end`
//! become one precise diagnostic while everything around it still parses.

use super::ast::*;
use shapex_text::Diagnostic;
use shapex_text::{LineIndex, Span};

/// One line-level unit produced by the grammar.
#[derive(Clone)]
pub(super) enum Clause {
    Stmt(Stmt),
    /// Several statements from one clause (Octave's chained `a = b = 0`).
    Many(Vec<Stmt>),
    Head(Head, Span),
    End(EndWord, Span),
    Function(FnHead),
    /// A clause that failed to parse (already diagnosed). `opener` says whether it
    /// began with a block keyword, so that its `end` still pairs up.
    Error {
        span: Span,
        opener: Option<Opener>,
    },
}

/// Block keywords other than `function` and the closers.
#[derive(Clone)]
pub(super) enum Head {
    If(Expr),
    ElseIf(Expr),
    Else,
    Switch(Expr),
    Case(Expr),
    Otherwise,
    For {
        var: LValue,
        iter: Expr,
        parfor: bool,
    },
    While(Expr),
    Do,
    Until(Expr),
    Try,
    Catch(Option<Ident>),
    Unwind,
    UnwindCleanup,
}

#[derive(Clone)]
pub(super) struct FnHead {
    pub name: Ident,
    pub inputs: Vec<Option<Ident>>,
    pub outputs: Vec<Ident>,
    pub span: Span,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum EndWord {
    End,
    EndFunction,
    EndIf,
    EndWhile,
    EndFor,
    EndParfor,
    EndSwitch,
    EndTryCatch,
    EndUnwindProtect,
}

impl EndWord {
    fn text(self) -> &'static str {
        match self {
            EndWord::End => "end",
            EndWord::EndFunction => "endfunction",
            EndWord::EndIf => "endif",
            EndWord::EndWhile => "endwhile",
            EndWord::EndFor => "endfor",
            EndWord::EndParfor => "endparfor",
            EndWord::EndSwitch => "endswitch",
            EndWord::EndTryCatch => "end_try_catch",
            EndWord::EndUnwindProtect => "end_unwind_protect",
        }
    }
}

/// What a bad clause opened, judged from its first word.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Opener {
    /// `if`, `for`, `while`, … (closed by `end`).
    Block,
    /// `do` (closed by `until`).
    Do,
    Function,
}

/// Blocks nested deeper than this are flattened (with a diagnostic) to bound recursion.
const MAX_BLOCK_DEPTH: usize = 32;

pub(super) fn fold(source: &str, clauses: Vec<Clause>, diags: &mut Vec<Diagnostic>) -> File {
    let functions_have_end = functions_have_end(&clauses);
    let kind = match clauses.first() {
        Some(Clause::Function(_)) => FileKind::Function,
        _ => FileKind::Script,
    };
    let mut folder = Folder {
        clauses: clauses.into_iter().map(Some).collect(),
        pos: 0,
        diags,
        index: LineIndex::new(source),
        functions_have_end,
        depth: 0,
    };
    let mut body = vec![];
    let mut functions = vec![];
    loop {
        body.extend(folder.block(&[]));
        match folder.peek() {
            None => break,
            Some(Clause::Function(_)) => {
                if let Some(f) = folder.function() {
                    functions.push(f);
                }
            }
            Some(Clause::End(word, span)) => {
                let (word, span) = (*word, *span);
                folder.stray_end(word, span);
                folder.pos += 1;
            }
            // `block` consumes everything else.
            Some(_) => folder.pos += 1,
        }
    }
    File {
        kind,
        body,
        functions,
        span: Span::new(0, source.len()),
    }
}

/// MATLAB files either close every function with `end` or none. They do when there are
/// more closers than control-flow openers (the extra ones close functions).
fn functions_have_end(clauses: &[Clause]) -> bool {
    let mut openers = 0usize;
    let mut closers = 0usize;
    for c in clauses {
        match c {
            Clause::Head(
                Head::If(_)
                | Head::Switch(_)
                | Head::For { .. }
                | Head::While(_)
                | Head::Try
                | Head::Unwind,
                _,
            ) => openers += 1,
            Clause::Error {
                opener: Some(Opener::Block),
                ..
            } => openers += 1,
            Clause::End(EndWord::EndFunction, _) => return true,
            Clause::End(..) => closers += 1,
            _ => {}
        }
    }
    closers > openers
}

/// Middle keywords a block may stop at (`else` for an `if` body, …).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Middle {
    ElseIf,
    Else,
    Case,
    Otherwise,
    Until,
    Catch,
    Cleanup,
}

impl Middle {
    fn of(head: &Head) -> Option<Middle> {
        Some(match head {
            Head::ElseIf(_) => Middle::ElseIf,
            Head::Else => Middle::Else,
            Head::Case(_) => Middle::Case,
            Head::Otherwise => Middle::Otherwise,
            Head::Until(_) => Middle::Until,
            Head::Catch(_) => Middle::Catch,
            Head::UnwindCleanup => Middle::Cleanup,
            _ => return None,
        })
    }

    fn describe(self) -> &'static str {
        match self {
            Middle::ElseIf => "'elseif' without a matching 'if'",
            Middle::Else => "'else' without a matching 'if'",
            Middle::Case => "'case' outside a 'switch' block",
            Middle::Otherwise => "'otherwise' outside a 'switch' block",
            Middle::Until => "'until' without a matching 'do'",
            Middle::Catch => "'catch' without a matching 'try'",
            Middle::Cleanup => "'unwind_protect_cleanup' without a matching 'unwind_protect'",
        }
    }
}

struct Folder<'a, 'd> {
    clauses: Vec<Option<Clause>>,
    pos: usize,
    diags: &'d mut Vec<Diagnostic>,
    index: LineIndex<'a>,
    functions_have_end: bool,
    depth: usize,
}

impl Folder<'_, '_> {
    fn peek(&self) -> Option<&Clause> {
        self.clauses.get(self.pos).and_then(Option::as_ref)
    }

    fn take(&mut self) -> Option<Clause> {
        let c = self.clauses.get_mut(self.pos).and_then(Option::take);
        self.pos += 1;
        c
    }

    fn at(&self, span: Span) -> String {
        let lc = self.index.line_col(span.start);
        format!("{}:{}", lc.line, lc.col)
    }

    /// Statements up to (not including) an `end`, a `function`, a middle keyword in
    /// `accept`, or the end of input. Other middle keywords are reported and skipped.
    fn block(&mut self, accept: &[Middle]) -> Vec<Stmt> {
        let mut out = vec![];
        loop {
            match self.peek() {
                None | Some(Clause::End(..)) | Some(Clause::Function(_)) => return out,
                Some(Clause::Head(h, span)) => {
                    if let Some(m) = Middle::of(h) {
                        if accept.contains(&m) {
                            return out;
                        }
                        let span = *span;
                        self.diags
                            .push(Diagnostic::error("syntax.unexpected", m.describe(), span));
                        out.push(error_stmt(span));
                        self.pos += 1;
                        continue;
                    }
                    if let Some(s) = self.compound() {
                        out.push(s);
                    }
                }
                Some(Clause::Stmt(_) | Clause::Many(_)) => match self.take() {
                    Some(Clause::Stmt(s)) => out.push(s),
                    Some(Clause::Many(s)) => out.extend(s),
                    _ => {}
                },
                Some(Clause::Error { .. }) => {
                    if let Some(Clause::Error { span, opener }) = self.take() {
                        out.push(error_stmt(span));
                        if let Some(opener) = opener {
                            out.extend(self.orphan_body(opener));
                        }
                    }
                }
            }
        }
    }

    /// The body of a block whose opening line failed to parse: its statements are kept
    /// at the enclosing level and its closer is consumed silently.
    fn orphan_body(&mut self, opener: Opener) -> Vec<Stmt> {
        if opener == Opener::Function || self.depth >= MAX_BLOCK_DEPTH {
            return vec![];
        }
        self.depth += 1;
        let all = [
            Middle::ElseIf,
            Middle::Else,
            Middle::Case,
            Middle::Otherwise,
            Middle::Catch,
            Middle::Cleanup,
        ];
        let mut out = vec![];
        loop {
            out.extend(self.block(&all));
            match self.peek() {
                Some(Clause::Head(Head::Until(_), _)) if opener == Opener::Do => {
                    self.pos += 1;
                    break;
                }
                Some(Clause::Head(..)) => self.pos += 1,
                Some(Clause::End(..)) if opener == Opener::Block => {
                    self.pos += 1;
                    break;
                }
                _ => break,
            }
        }
        self.depth -= 1;
        out
    }

    /// Parses the compound statement whose head is at `pos`.
    fn compound(&mut self) -> Option<Stmt> {
        let Some(Clause::Head(head, span)) = self.take() else {
            return None;
        };
        if self.depth >= MAX_BLOCK_DEPTH {
            self.diags.push(Diagnostic::error(
                "syntax.too-deep",
                format!("blocks are nested more than {MAX_BLOCK_DEPTH} deep"),
                span,
            ));
            return Some(error_stmt(span));
        }
        self.depth += 1;
        let stmt = match head {
            Head::If(cond) => self.if_block(cond, span),
            Head::Switch(subject) => self.switch_block(subject, span),
            Head::For { var, iter, parfor } => {
                let body = self.block(&[]);
                let kind = StmtKind::For {
                    var,
                    iter,
                    body,
                    parfor,
                };
                let closer = if parfor { "parfor" } else { "for" };
                self.close(kind, span, closer)
            }
            Head::While(cond) => {
                let body = self.block(&[]);
                self.close(StmtKind::While { cond, body }, span, "while")
            }
            Head::Do => self.do_block(span),
            Head::Try => self.try_block(span),
            _ => self.unwind_block(span),
        };
        self.depth -= 1;
        Some(stmt)
    }

    fn if_block(&mut self, cond: Expr, head: Span) -> Stmt {
        let accept = [Middle::ElseIf, Middle::Else];
        let mut arms = vec![(cond, self.block(&accept))];
        let mut else_body: Option<Vec<Stmt>> = None;
        loop {
            match self.peek() {
                Some(Clause::Head(Head::ElseIf(_), _)) => {
                    if let Some(Clause::Head(Head::ElseIf(c), span)) = self.take() {
                        if else_body.is_some() {
                            self.diags.push(Diagnostic::error(
                                "syntax.unexpected",
                                "'elseif' after 'else'",
                                span,
                            ));
                        }
                        let body = self.block(&accept);
                        arms.push((c, body));
                    }
                }
                Some(Clause::Head(Head::Else, span)) => {
                    let span = *span;
                    self.pos += 1;
                    if else_body.is_some() {
                        self.diags.push(Diagnostic::error(
                            "syntax.unexpected",
                            "a second 'else' in the same 'if'",
                            span,
                        ));
                    }
                    let body = self.block(&accept);
                    else_body.get_or_insert_with(Vec::new).extend(body);
                }
                _ => break,
            }
        }
        self.close(StmtKind::If { arms, else_body }, head, "if")
    }

    fn switch_block(&mut self, subject: Expr, head: Span) -> Stmt {
        let accept = [Middle::Case, Middle::Otherwise];
        // Anything before the first `case` (normally only comments) is kept as errors.
        let stray = self.block(&accept);
        for s in &stray {
            self.diags.push(Diagnostic::error(
                "syntax.unexpected",
                "statement before the first 'case' of a 'switch'",
                s.span,
            ));
        }
        let mut cases = vec![];
        let mut otherwise = None;
        loop {
            match self.peek() {
                Some(Clause::Head(Head::Case(_), _)) => {
                    if let Some(Clause::Head(Head::Case(label), _)) = self.take() {
                        cases.push((label, self.block(&accept)));
                    }
                }
                Some(Clause::Head(Head::Otherwise, _)) => {
                    self.pos += 1;
                    otherwise = Some(self.block(&accept));
                }
                _ => break,
            }
        }
        let kind = StmtKind::Switch {
            subject,
            cases,
            otherwise,
        };
        self.close(kind, head, "switch")
    }

    fn do_block(&mut self, head: Span) -> Stmt {
        let body = self.block(&[Middle::Until]);
        match self.peek() {
            Some(Clause::Head(Head::Until(_), _)) => {
                if let Some(Clause::Head(Head::Until(cond), span)) = self.take() {
                    return Stmt {
                        kind: StmtKind::DoUntil { body, cond },
                        span: head.to(span),
                        prints: false,
                    };
                }
                error_stmt(head)
            }
            _ => {
                let msg = format!("missing 'until' for 'do' opened at {}", self.at(head));
                self.diags
                    .push(Diagnostic::error("syntax.missing-end", msg, head));
                let end = body.last().map_or(head, |s| s.span);
                let cond = Expr {
                    kind: ExprKind::Matrix(vec![]),
                    span: head,
                };
                Stmt {
                    kind: StmtKind::DoUntil { body, cond },
                    span: head.to(end),
                    prints: false,
                }
            }
        }
    }

    fn try_block(&mut self, head: Span) -> Stmt {
        let body = self.block(&[Middle::Catch]);
        let mut catch_var = None;
        let mut catch_body = vec![];
        if let Some(Clause::Head(Head::Catch(_), _)) = self.peek() {
            if let Some(Clause::Head(Head::Catch(var), _)) = self.take() {
                catch_var = var;
                catch_body = self.block(&[]);
            }
        }
        let kind = StmtKind::Try {
            body,
            catch_var,
            catch_body,
        };
        self.close(kind, head, "try")
    }

    fn unwind_block(&mut self, head: Span) -> Stmt {
        let body = self.block(&[Middle::Cleanup]);
        let mut cleanup = vec![];
        if let Some(Clause::Head(Head::UnwindCleanup, _)) = self.peek() {
            self.pos += 1;
            cleanup = self.block(&[]);
        }
        let kind = StmtKind::UnwindProtect { body, cleanup };
        self.close(kind, head, "unwind_protect")
    }

    /// Consumes the closer of a block opened by `keyword` at `head`, or reports it
    /// missing.
    fn close(&mut self, kind: StmtKind, head: Span, keyword: &str) -> Stmt {
        let last = last_span(&kind).unwrap_or(head);
        match self.peek() {
            Some(Clause::End(word, span)) => {
                let (word, span) = (*word, *span);
                self.pos += 1;
                if !closes(word, keyword) {
                    let msg = format!(
                        "'{}' closes '{keyword}' opened at {}",
                        word.text(),
                        self.at(head)
                    );
                    self.diags
                        .push(Diagnostic::error("syntax.unexpected", msg, span));
                }
                Stmt {
                    kind,
                    span: head.to(span),
                    prints: false,
                }
            }
            _ => {
                let msg = format!("missing 'end' for '{keyword}' opened at {}", self.at(head));
                self.diags
                    .push(Diagnostic::error("syntax.missing-end", msg, head));
                Stmt {
                    kind,
                    span: head.to(last),
                    prints: false,
                }
            }
        }
    }

    fn stray_end(&mut self, word: EndWord, span: Span) {
        let msg = format!("'{}' without a matching block", word.text());
        self.diags
            .push(Diagnostic::error("syntax.unexpected", msg, span));
    }

    /// A function definition at `pos`: its body, nested functions, and closer.
    fn function(&mut self) -> Option<Function> {
        let Some(Clause::Function(head)) = self.take() else {
            return None;
        };
        let mut f = Function {
            name: head.name,
            inputs: head.inputs,
            outputs: head.outputs,
            body: vec![],
            nested: vec![],
            has_end: false,
            span: head.span,
            header: head.span,
        };
        loop {
            let stmts = self.block(&[]);
            if let Some(s) = stmts.last() {
                f.span = f.span.to(s.span);
            }
            f.body.extend(stmts);
            match self.peek() {
                Some(Clause::End(word, span)) => {
                    let (word, span) = (*word, *span);
                    self.pos += 1;
                    if !self.functions_have_end {
                        self.stray_end(word, span);
                        continue;
                    }
                    if !closes(word, "function") {
                        let msg = format!(
                            "'{}' closes 'function' opened at {}",
                            word.text(),
                            self.at(f.header)
                        );
                        self.diags
                            .push(Diagnostic::error("syntax.unexpected", msg, span));
                    }
                    f.has_end = true;
                    f.span = f.span.to(span);
                    return Some(f);
                }
                Some(Clause::Function(_)) if self.functions_have_end => {
                    if self.depth >= MAX_BLOCK_DEPTH {
                        return Some(f);
                    }
                    self.depth += 1;
                    let nested = self.function();
                    self.depth -= 1;
                    if let Some(n) = nested {
                        f.span = f.span.to(n.span);
                        f.nested.push(n);
                    }
                }
                _ => {
                    if self.functions_have_end {
                        let msg = format!(
                            "missing 'end' for 'function' opened at {}",
                            self.at(f.header)
                        );
                        self.diags
                            .push(Diagnostic::error("syntax.missing-end", msg, f.header));
                    }
                    return Some(f);
                }
            }
        }
    }
}

/// Whether `word` may close a block opened by `keyword` (`end` closes anything).
fn closes(word: EndWord, keyword: &str) -> bool {
    match word {
        EndWord::End => true,
        EndWord::EndFunction => keyword == "function",
        EndWord::EndIf => keyword == "if",
        EndWord::EndWhile => keyword == "while",
        EndWord::EndFor => keyword == "for" || keyword == "parfor",
        EndWord::EndParfor => keyword == "parfor",
        EndWord::EndSwitch => keyword == "switch",
        EndWord::EndTryCatch => keyword == "try",
        EndWord::EndUnwindProtect => keyword == "unwind_protect",
    }
}

fn error_stmt(span: Span) -> Stmt {
    Stmt {
        kind: StmtKind::Error,
        span,
        prints: false,
    }
}

/// Span of the last statement inside a compound statement, for a block left unclosed.
fn last_span(kind: &StmtKind) -> Option<Span> {
    let last = |b: &[Stmt]| b.last().map(|s| s.span);
    match kind {
        StmtKind::If { arms, else_body } => else_body
            .as_deref()
            .and_then(last)
            .or_else(|| arms.last().and_then(|(_, b)| last(b))),
        StmtKind::Switch {
            cases, otherwise, ..
        } => otherwise
            .as_deref()
            .and_then(last)
            .or_else(|| cases.last().and_then(|(_, b)| last(b))),
        StmtKind::For { body, .. } | StmtKind::While { body, .. } => last(body),
        StmtKind::Try {
            body, catch_body, ..
        } => last(catch_body).or_else(|| last(body)),
        StmtKind::UnwindProtect { body, cleanup } => last(cleanup).or_else(|| last(body)),
        _ => None,
    }
}
