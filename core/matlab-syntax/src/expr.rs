//! Turns pest pairs into spanned AST nodes: one [`Clause`] per grammar `item`. Operator
//! precedence is applied here by precedence climbing over the flat operator/operand
//! list the grammar returns.

use super::ast::*;
use super::blocks::{Clause, EndWord, FnHead, Head};
use super::depth::{self, MAX_EXPR_DEPTH};
use super::parser::Rule;
use pest::iterators::Pair;
use shapex_text::Span;

/// Builds AST nodes for a clause parsed from `source[offset..]`.
pub(super) struct Builder {
    offset: usize,
}

/// Binding power of unary `+ - ~ !`: above `* /`, below `^` (so `-2^2` is `-(2^2)`).
const PREFIX_BP: u8 = 9;

/// An infix operator: a binary operator or the range colon.
#[derive(Clone, Copy)]
enum Infix {
    Bin(BinOp),
    Colon,
}

impl Infix {
    /// MATLAB precedence, lowest first: `||`, `&&`, `|`, `&`, comparisons, `:`,
    /// `+ -`, `* / \ .* ./ .\`, (unary), `^ .^`.
    fn binding_power(self) -> u8 {
        use BinOp::*;
        match self {
            Infix::Bin(OrOr) => 1,
            Infix::Bin(AndAnd) => 2,
            Infix::Bin(Or) => 3,
            Infix::Bin(And) => 4,
            Infix::Bin(Eq | Ne | Lt | Le | Gt | Ge) => 5,
            Infix::Colon => 6,
            Infix::Bin(Add | Sub) => 7,
            Infix::Bin(MTimes | MRDivide | MLDivide | Times | RDivide | LDivide) => 8,
            Infix::Bin(MPower | Power) => 10,
        }
    }

    fn from_text(text: &str) -> Infix {
        use BinOp::*;
        Infix::Bin(match text {
            "||" => OrOr,
            "&&" => AndAnd,
            "|" => Or,
            "&" => And,
            "==" => Eq,
            "~=" | "!=" => Ne,
            "<" => Lt,
            "<=" => Le,
            ">" => Gt,
            ">=" => Ge,
            ":" => return Infix::Colon,
            "+" => Add,
            "-" => Sub,
            "*" => MTimes,
            "/" => MRDivide,
            "\\" => MLDivide,
            "^" | "**" => MPower,
            ".*" => Times,
            "./" => RDivide,
            ".\\" => LDivide,
            _ => Power, // ".^" | ".**"
        })
    }
}

enum Tok {
    Prefix(UnOp, Span),
    Operand(Expr),
    Infix(Infix),
}

impl Builder {
    pub(super) fn new(offset: usize) -> Self {
        Builder { offset }
    }

    fn span(&self, p: &Pair<Rule>) -> Span {
        let s = p.as_span();
        Span::new(s.start() + self.offset, s.end() + self.offset)
    }

    fn ident(&self, p: &Pair<Rule>) -> Ident {
        Ident {
            name: p.as_str().to_string(),
            span: self.span(p),
        }
    }

    // ------------------------------------------------------------------ clauses

    /// Builds the clause for one grammar `item`.
    pub(super) fn clause(&self, item: Pair<Rule>) -> Clause {
        let mut inner = item.into_inner();
        let Some(main) = inner.next() else {
            return Clause::Error {
                span: Span::default(),
                opener: None,
            };
        };
        let prints = !inner.any(|p| p.as_rule() == Rule::semi);
        let span = self.span(&main);
        let stmt = |kind| Clause::Stmt(Stmt { kind, span, prints });
        match main.as_rule() {
            Rule::arguments_block => stmt(StmtKind::Arguments),
            Rule::global_decl => stmt(StmtKind::Global(self.decl_names(main))),
            Rule::persistent_decl => stmt(StmtKind::Persistent(self.decl_names(main))),
            Rule::break_kw => stmt(StmtKind::Break),
            Rule::continue_kw => stmt(StmtKind::Continue),
            Rule::return_kw => stmt(StmtKind::Return),
            Rule::lv_stmt => self.lv_stmt(main, prints),
            Rule::multi_assign => stmt(self.multi_assign(main)),
            Rule::command => stmt(self.command(main)),
            Rule::expr_stmt => match main.into_inner().next() {
                Some(e) => stmt(StmtKind::Expr(self.expr(e))),
                None => stmt(StmtKind::Error),
            },
            Rule::end_kw => Clause::End(end_word(main.as_str()), span),
            Rule::function_head => Clause::Function(self.function_head(main)),
            _ => Clause::Head(self.head(main), span),
        }
    }

    fn head(&self, p: Pair<Rule>) -> Head {
        let rule = p.as_rule();
        let exprs: Vec<Pair<Rule>> = p.clone().into_inner().collect();
        // The condition of `if`/`while`/… is the last child (after the keyword).
        let cond = || {
            exprs
                .iter()
                .rfind(|c| matches!(c.as_rule(), Rule::expr | Rule::pexpr))
                .map(|c| self.expr(c.clone()))
                .unwrap_or_else(|| self.placeholder(&p))
        };
        match rule {
            Rule::if_head => Head::If(cond()),
            Rule::elseif_head => Head::ElseIf(cond()),
            Rule::else_kw => Head::Else,
            Rule::switch_head => Head::Switch(cond()),
            Rule::case_head => Head::Case(cond()),
            Rule::otherwise_kw => Head::Otherwise,
            Rule::while_head => Head::While(cond()),
            Rule::do_kw => Head::Do,
            Rule::until_head => Head::Until(cond()),
            Rule::try_kw => Head::Try,
            Rule::unwind_kw => Head::Unwind,
            Rule::unwind_cleanup_kw => Head::UnwindCleanup,
            Rule::catch_head => Head::Catch(
                exprs
                    .iter()
                    .find(|c| c.as_rule() == Rule::ident)
                    .map(|c| self.ident(c)),
            ),
            _ => self.for_head(p),
        }
    }

    /// An empty matrix standing in for a part the grammar guarantees but we could not
    /// find; keeps the builder total without panicking.
    fn placeholder(&self, p: &Pair<Rule>) -> Expr {
        Expr {
            kind: ExprKind::Matrix(vec![]),
            span: self.span(p),
        }
    }

    fn for_head(&self, p: Pair<Rule>) -> Head {
        let parfor = p.as_str().starts_with("parfor");
        let mut var = None;
        let mut iter = None;
        for c in p.clone().into_inner() {
            match c.as_rule() {
                Rule::lvalue if var.is_none() => var = Some(self.lvalue(c)),
                Rule::expr | Rule::pexpr if iter.is_none() => iter = Some(self.expr(c)),
                _ => {}
            }
        }
        let var = var.unwrap_or_else(|| LValue::Tilde(self.span(&p)));
        let iter = iter.unwrap_or_else(|| self.placeholder(&p));
        Head::For { var, iter, parfor }
    }

    fn function_head(&self, p: Pair<Rule>) -> FnHead {
        let span = self.span(&p);
        let mut head = FnHead {
            name: Ident {
                name: String::new(),
                span,
            },
            inputs: vec![],
            outputs: vec![],
            span,
        };
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::fn_outputs => {
                    head.outputs = c
                        .into_inner()
                        .filter(|o| o.as_rule() == Rule::ident)
                        .map(|o| self.ident(&o))
                        .collect();
                }
                Rule::fn_name => head.name = self.ident(&c),
                Rule::fn_params => {
                    head.inputs = c
                        .into_inner()
                        .map(|param| param.into_inner().next().map(|name| self.ident(&name)))
                        .collect();
                }
                _ => {}
            }
        }
        head
    }

    fn decl_names(&self, p: Pair<Rule>) -> Vec<Ident> {
        p.into_inner()
            .filter(|c| c.as_rule() == Rule::decl_name)
            .filter_map(|c| c.into_inner().next().map(|i| self.ident(&i)))
            .collect()
    }

    // ------------------------------------------------------------------ statements

    fn assign(&self, p: Pair<Rule>) -> StmtKind {
        let mut lhs = vec![];
        let mut rhs = None;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::lvalue => lhs.push(self.lvalue(c)),
                Rule::tilde => lhs.push(LValue::Tilde(self.span(&c))),
                Rule::expr => rhs = Some(self.expr(c)),
                _ => {}
            }
        }
        match rhs {
            Some(rhs) => StmtKind::Assign { lhs, rhs },
            None => StmtKind::Error,
        }
    }

    fn multi_assign(&self, p: Pair<Rule>) -> StmtKind {
        self.assign(p)
    }

    /// A statement starting with an assignment target: plain, compound (`+=`),
    /// increment (`++`) or chained assignment.
    fn lv_stmt(&self, p: Pair<Rule>, prints: bool) -> Clause {
        let span = self.span(&p);
        let kind = match p.clone().into_inner().nth(1).map(|c| c.as_rule()) {
            Some(Rule::incr_op) => self.incr(p),
            Some(Rule::opassign_op) => self.opassign(p),
            _ => return self.chained_assign(p, prints),
        };
        Clause::Stmt(Stmt { kind, span, prints })
    }

    /// `a = b = c` (Octave) becomes `b = c` then `a = b`; a plain `a = c` is one
    /// statement. Each statement spans from its target to the end of the line, and only
    /// the outermost one displays its result.
    fn chained_assign(&self, p: Pair<Rule>, prints: bool) -> Clause {
        let end = self.span(&p).end;
        let mut targets = vec![];
        let mut rhs = None;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::lvalue => targets.push(self.lvalue(c)),
                _ => rhs = Some(self.expr(c)),
            }
        }
        let Some(mut rhs) = rhs else {
            return Clause::Many(vec![]);
        };
        let mut stmts = vec![];
        while let Some(lv) = targets.pop() {
            let start = lvalue_span(&lv).start;
            let next_rhs = lvalue_expr(&lv);
            stmts.push(Stmt {
                kind: StmtKind::Assign { lhs: vec![lv], rhs },
                span: Span::new(start, end),
                prints: prints && targets.is_empty(),
            });
            rhs = next_rhs;
        }
        match stmts.len() {
            1 => Clause::Stmt(stmts.remove(0)),
            _ => Clause::Many(stmts),
        }
    }

    /// `a op= b` is `a = a op b`.
    fn opassign(&self, p: Pair<Rule>) -> StmtKind {
        let mut it = p.into_inner();
        let (Some(lv), Some(op), Some(rhs)) = (it.next(), it.next(), it.next()) else {
            return StmtKind::Error;
        };
        let op = Infix::from_text(op.as_str().trim_end_matches('='));
        let lhs = self.lvalue(lv);
        let rhs = self.expr(rhs);
        let current = lvalue_expr(&lhs);
        let span = current.span.to(rhs.span);
        StmtKind::Assign {
            lhs: vec![lhs],
            rhs: combine(op, current, rhs, span),
        }
    }

    /// `a++` is `a = a + 1`; `a--` is `a = a - 1`.
    fn incr(&self, p: Pair<Rule>) -> StmtKind {
        let mut it = p.into_inner();
        let (Some(lv), Some(op)) = (it.next(), it.next()) else {
            return StmtKind::Error;
        };
        let one = Expr {
            kind: ExprKind::Number {
                value: 1.0,
                imag: false,
                text: "1".into(),
            },
            span: self.span(&op),
        };
        let bin = if op.as_str() == "++" {
            BinOp::Add
        } else {
            BinOp::Sub
        };
        let lhs = self.lvalue(lv);
        let current = lvalue_expr(&lhs);
        let span = current.span.to(one.span);
        StmtKind::Assign {
            lhs: vec![lhs],
            rhs: Expr {
                kind: ExprKind::Binary {
                    op: bin,
                    lhs: Box::new(current),
                    rhs: Box::new(one),
                },
                span,
            },
        }
    }

    fn command(&self, p: Pair<Rule>) -> StmtKind {
        let mut it = p.into_inner();
        let Some(name) = it.next() else {
            return StmtKind::Error;
        };
        StmtKind::Command {
            name: self.ident(&name),
            args: it.map(|w| command_word(w.as_str())).collect(),
        }
    }

    fn lvalue(&self, p: Pair<Rule>) -> LValue {
        let span = self.span(&p);
        let mut it = p.into_inner();
        let base = match it.next() {
            Some(b) => self.ident(&b),
            None => return LValue::Tilde(span),
        };
        let accessors = it.map(|a| self.accessor(a)).collect();
        LValue::Path {
            base,
            accessors,
            span,
        }
    }

    fn accessor(&self, p: Pair<Rule>) -> Accessor {
        match p.as_rule() {
            Rule::call => Accessor::Paren(self.args(p)),
            Rule::cellidx => Accessor::Brace(self.args(p)),
            Rule::field => match p.into_inner().next() {
                Some(n) => Accessor::Field(self.ident(&n)),
                None => Accessor::Paren(vec![]),
            },
            _ => match p.clone().into_inner().next() {
                Some(e) => Accessor::DynField(self.expr(e)),
                None => Accessor::DynField(self.placeholder(&p)),
            },
        }
    }

    // ------------------------------------------------------------------ expressions

    /// Builds an `expr`, `pexpr` or `mexpr` pair (a flat operator/operand list).
    pub(super) fn expr(&self, p: Pair<Rule>) -> Expr {
        let toks: Vec<Tok> = p
            .into_inner()
            .map(|c| match c.as_rule() {
                Rule::prefix => Tok::Prefix(unop(c.as_str()), self.span(&c)),
                Rule::infix => Tok::Infix(Infix::from_text(c.as_str())),
                // A lambda is an operand of its own (it takes no postfix operators).
                Rule::lambda => Tok::Operand(self.primary(c)),
                _ => Tok::Operand(self.operand(c)),
            })
            .collect();
        climb(&mut toks.into_iter().peekable())
    }

    /// An `operand`/`moperand`: a primary followed by postfix accessors and transposes.
    fn operand(&self, p: Pair<Rule>) -> Expr {
        let mut it = p.into_inner().peekable();
        let pre = it
            .next_if(|q| q.as_rule() == Rule::incr_pre)
            .map(|q| (q.as_str() == "++", self.span(&q)));
        let Some(first) = it.next() else {
            return empty_expr();
        };
        let mut e = self.primary(first);
        if let Some((up, span)) = pre {
            let span = span.to(e.span);
            e = Expr {
                kind: increment(e, up, span, false),
                span,
            };
        }
        for post in it {
            let span = e.span.to(self.span(&post));
            let base = Box::new(e);
            let kind = match post.as_rule() {
                Rule::incr_post => increment(*base, post.as_str() == "++", span, true),
                Rule::transpose | Rule::dot_transpose => ExprKind::Postfix {
                    op: if post.as_str() == "'" {
                        PostfixOp::CTranspose
                    } else {
                        PostfixOp::Transpose
                    },
                    operand: base,
                },
                Rule::call => ExprKind::Index {
                    base,
                    args: self.args(post),
                },
                Rule::cellidx => ExprKind::CellIndex {
                    base,
                    args: self.args(post),
                },
                Rule::field => match post.into_inner().next() {
                    Some(n) => ExprKind::Field {
                        base,
                        name: self.ident(&n),
                    },
                    None => base.kind,
                },
                _ => ExprKind::DynField {
                    base,
                    name: Box::new(match post.clone().into_inner().next() {
                        Some(n) => self.expr(n),
                        None => self.placeholder(&post),
                    }),
                },
            };
            e = Expr { kind, span };
        }
        e
    }

    fn args(&self, p: Pair<Rule>) -> Vec<Expr> {
        p.into_inner()
            .map(|a| match a.as_rule() {
                Rule::colon_all => Expr {
                    kind: ExprKind::Colon,
                    span: self.span(&a),
                },
                _ => self.value(a),
            })
            .collect()
    }

    /// An expression, or an Octave assignment used as a value (`(x = e)`).
    fn value(&self, p: Pair<Rule>) -> Expr {
        if p.as_rule() != Rule::assign_expr {
            return self.expr(p);
        }
        let span = self.span(&p);
        let mut it = p.into_inner();
        let (Some(name), Some(value)) = (it.next(), it.next()) else {
            return empty_expr();
        };
        let base = self.ident(&name);
        let target = LValue::Path {
            span: base.span,
            base,
            accessors: vec![],
        };
        Expr {
            kind: ExprKind::AssignExpr {
                target: Box::new(target),
                value: Box::new(self.expr(value)),
                post_increment: false,
            },
            span,
        }
    }

    fn primary(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        let kind = match p.as_rule() {
            Rule::number => number(p.as_str()),
            Rule::sq_string => ExprKind::Str {
                value: p
                    .into_inner()
                    .next()
                    .map_or_else(String::new, |s| s.as_str().replace("''", "'")),
                double_quoted: false,
            },
            Rule::dq_string => ExprKind::Str {
                value: p
                    .into_inner()
                    .next()
                    .map_or_else(String::new, |s| unescape_dq(s.as_str())),
                double_quoted: true,
            },
            Rule::end_expr => ExprKind::End,
            Rule::ident => ExprKind::Ident(self.ident(&p)),
            Rule::handle => ExprKind::FuncHandle(
                p.into_inner()
                    .next()
                    .map_or_else(String::new, |n| n.as_str().to_string()),
            ),
            Rule::lambda => self.lambda(p),
            Rule::matrix => ExprKind::Matrix(self.rows(p)),
            Rule::cell => ExprKind::Cell(self.rows(p)),
            // `( … )`: the inner expression, with the span widened to the parentheses.
            _ => match p.into_inner().next() {
                Some(inner) => self.value(inner).kind,
                None => ExprKind::Matrix(vec![]),
            },
        };
        Expr { kind, span }
    }

    fn lambda(&self, p: Pair<Rule>) -> ExprKind {
        let mut params = vec![];
        let mut body = None;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::lambda_param => params.push(self.ident(&c)),
                _ => body = Some(self.expr(c)),
            }
        }
        ExprKind::Lambda {
            params,
            body: Box::new(body.unwrap_or_else(empty_expr)),
        }
    }

    /// Rows of a matrix or cell literal: elements in order, a new row at each `;` or
    /// newline; empty rows (`[1;;2]`, trailing `;`) are dropped as MATLAB does.
    fn rows(&self, p: Pair<Rule>) -> Vec<Vec<Expr>> {
        let mut rows = vec![];
        let mut row = vec![];
        for c in p.into_inner() {
            if c.as_rule() == Rule::rsep {
                if !row.is_empty() {
                    rows.push(std::mem::take(&mut row));
                }
            } else {
                row.push(self.expr(c));
            }
        }
        if !row.is_empty() {
            rows.push(row);
        }
        rows
    }
}

fn empty_expr() -> Expr {
    Expr {
        kind: ExprKind::Matrix(vec![]),
        span: Span::default(),
    }
}

/// A pending step of [`climb`]: what the recursive formulation keeps on the call stack.
enum Frame {
    /// Climbing at `min_bp`: the left operand so far (once there is one), whether it is
    /// an unparenthesised two-part range (so `a:b:c` folds into one three-part range),
    /// and the operator waiting for its right operand.
    Climb {
        min_bp: u8,
        lhs: Option<Expr>,
        bare_range: bool,
        op: Option<Infix>,
    },
    /// Prefix operators waiting for their operand, outermost first.
    Prefix(Vec<(UnOp, Span)>),
}

/// Precedence climbing over the flat token list. Prefix operators bind their operand at
/// [`PREFIX_BP`] (so `-2^2` is `-(2^2)`). The recursion is kept on an explicit stack:
/// `a^-b^-c^-…` nests once per operator, and input length must not decide stack depth.
fn climb(toks: &mut std::iter::Peekable<std::vec::IntoIter<Tok>>) -> Expr {
    let mut stack = vec![Frame::Climb {
        min_bp: 0,
        lhs: None,
        bare_range: false,
        op: None,
    }];
    'operand: loop {
        // An operand: prefix operators, then a primary or a climb at PREFIX_BP.
        let mut prefixes = vec![];
        while let Some(Tok::Prefix(op, span)) = toks.peek() {
            prefixes.push((*op, *span));
            toks.next();
        }
        let mut value = if prefixes.is_empty() {
            match toks.next() {
                Some(Tok::Operand(e)) => e,
                _ => empty_expr(),
            }
        } else {
            stack.push(Frame::Prefix(prefixes));
            stack.push(Frame::Climb {
                min_bp: PREFIX_BP,
                lhs: None,
                bare_range: false,
                op: None,
            });
            continue 'operand;
        };
        // Hand `value` to the pending frames until one needs another operand.
        loop {
            match stack.pop() {
                None => return value,
                Some(Frame::Prefix(prefixes)) => {
                    for (op, span) in prefixes.into_iter().rev() {
                        let span = span.to(value.span);
                        value = Expr {
                            kind: ExprKind::Unary {
                                op,
                                operand: Box::new(value),
                            },
                            span,
                        };
                    }
                }
                Some(Frame::Climb {
                    min_bp,
                    lhs,
                    mut bare_range,
                    op,
                }) => {
                    let lhs = match (lhs, op) {
                        (Some(lhs), Some(op)) => {
                            let span = lhs.span.to(value.span);
                            let e = match op {
                                Infix::Colon if bare_range => extend_range(lhs, value, span),
                                _ => combine(op, lhs, value, span),
                            };
                            bare_range = matches!(op, Infix::Colon);
                            e
                        }
                        _ => value,
                    };
                    match toks.peek() {
                        Some(Tok::Infix(op)) if op.binding_power() >= min_bp => {
                            let op = *op;
                            toks.next();
                            stack.push(Frame::Climb {
                                min_bp,
                                lhs: Some(lhs),
                                bare_range,
                                op: Some(op),
                            });
                            stack.push(Frame::Climb {
                                min_bp: op.binding_power() + 1,
                                lhs: None,
                                bare_range: false,
                                op: None,
                            });
                            continue 'operand;
                        }
                        _ => value = lhs,
                    }
                }
            }
        }
    }
}

fn combine(op: Infix, lhs: Expr, rhs: Expr, span: Span) -> Expr {
    let kind = match op {
        Infix::Bin(op) => ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        Infix::Colon => ExprKind::Range {
            start: Box::new(lhs),
            step: None,
            stop: Box::new(rhs),
        },
    };
    Expr { kind, span }
}

/// `a:b` followed by `:c` becomes `a:b:c` (b is the step).
fn extend_range(lhs: Expr, rhs: Expr, span: Span) -> Expr {
    match lhs.kind {
        ExprKind::Range {
            start,
            step: None,
            stop,
        } => Expr {
            kind: ExprKind::Range {
                start,
                step: Some(stop),
                stop: Box::new(rhs),
            },
            span,
        },
        kind => combine(
            Infix::Colon,
            Expr {
                kind,
                span: lhs.span,
            },
            rhs,
            span,
        ),
    }
}

fn unop(text: &str) -> UnOp {
    match text {
        "-" => UnOp::Neg,
        "+" => UnOp::Plus,
        _ => UnOp::Not,
    }
}

pub(super) fn end_word(text: &str) -> EndWord {
    match text {
        "endfunction" => EndWord::EndFunction,
        "endif" => EndWord::EndIf,
        "endwhile" => EndWord::EndWhile,
        "endfor" => EndWord::EndFor,
        "endparfor" => EndWord::EndParfor,
        "endswitch" => EndWord::EndSwitch,
        "end_try_catch" => EndWord::EndTryCatch,
        "end_unwind_protect" => EndWord::EndUnwindProtect,
        _ => EndWord::End,
    }
}

/// `x++` (`post`) or `++x` inside an expression; operands that cannot be assigned keep
/// their value.
fn increment(operand: Expr, up: bool, span: Span, post: bool) -> ExprKind {
    let Some(target) = expr_lvalue(&operand) else {
        return operand.kind;
    };
    let one = Expr {
        kind: ExprKind::Number {
            value: 1.0,
            imag: false,
            text: "1".into(),
        },
        span: Span::new(operand.span.end, span.end),
    };
    let op = if up { BinOp::Add } else { BinOp::Sub };
    ExprKind::AssignExpr {
        target: Box::new(target),
        value: Box::new(Expr {
            kind: ExprKind::Binary {
                op,
                lhs: Box::new(operand),
                rhs: Box::new(one),
            },
            span,
        }),
        post_increment: post,
    }
}

/// The assignment target an expression denotes (`x`, `x(i).f{j}`), if any.
fn expr_lvalue(e: &Expr) -> Option<LValue> {
    // The index arguments are cloned below; a tree too deep to keep (the clause is
    // rejected anyway) must not be cloned recursively.
    if depth::exceeds(e, MAX_EXPR_DEPTH) {
        return None;
    }
    let mut accessors = vec![];
    let mut cur = e;
    loop {
        match &cur.kind {
            ExprKind::Ident(base) => {
                accessors.reverse();
                return Some(LValue::Path {
                    base: base.clone(),
                    accessors,
                    span: e.span,
                });
            }
            ExprKind::Index { base, args } => {
                accessors.push(Accessor::Paren(args.clone()));
                cur = base;
            }
            ExprKind::CellIndex { base, args } => {
                accessors.push(Accessor::Brace(args.clone()));
                cur = base;
            }
            ExprKind::Field { base, name } => {
                accessors.push(Accessor::Field(name.clone()));
                cur = base;
            }
            ExprKind::DynField { base, name } => {
                accessors.push(Accessor::DynField((**name).clone()));
                cur = base;
            }
            _ => return None,
        }
    }
}

fn lvalue_span(lv: &LValue) -> Span {
    match lv {
        LValue::Tilde(span) | LValue::Path { span, .. } => *span,
    }
}

/// The current value of an assignment target, for desugaring `a(i) += b`.
fn lvalue_expr(lv: &LValue) -> Expr {
    if depth::lvalue_exceeds(lv, MAX_EXPR_DEPTH) {
        // Too deep to clone recursively; the clause is rejected anyway.
        return Expr {
            kind: ExprKind::Matrix(vec![]),
            span: lvalue_span(lv),
        };
    }
    match lv {
        LValue::Tilde(span) => Expr {
            kind: ExprKind::Matrix(vec![]),
            span: *span,
        },
        LValue::Path {
            base, accessors, ..
        } => {
            let mut e = Expr {
                kind: ExprKind::Ident(base.clone()),
                span: base.span,
            };
            for a in accessors {
                let (kind_span, kind) = accessor_expr(e, a);
                e = Expr {
                    kind,
                    span: kind_span,
                };
            }
            e
        }
    }
}

fn accessor_expr(base: Expr, a: &Accessor) -> (Span, ExprKind) {
    let mut span = base.span;
    let base = Box::new(base);
    let kind = match a {
        Accessor::Paren(args) => {
            span = args.iter().fold(span, |s, e| s.to(e.span));
            ExprKind::Index {
                base,
                args: args.clone(),
            }
        }
        Accessor::Brace(args) => {
            span = args.iter().fold(span, |s, e| s.to(e.span));
            ExprKind::CellIndex {
                base,
                args: args.clone(),
            }
        }
        Accessor::Field(name) => {
            span = span.to(name.span);
            ExprKind::Field {
                base,
                name: name.clone(),
            }
        }
        Accessor::DynField(name) => {
            span = span.to(name.span);
            ExprKind::DynField {
                base,
                name: Box::new(name.clone()),
            }
        }
    };
    (span, kind)
}

/// `3`, `1e-3`, `.5`, `0x1F`, `2.5i`, `1d3` (Fortran exponent, Octave).
pub(super) fn number(text: &str) -> ExprKind {
    // Hex digits never include i/j, so a trailing i/j is always the imaginary unit.
    let imag = text.ends_with(['i', 'j', 'I', 'J']);
    let digits = if imag { &text[..text.len() - 1] } else { text };
    let digits = digits.replace('_', "");
    let digits = digits.as_str();
    let value = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        u64::from_str_radix(hex, 16).map_or(f64::INFINITY, |v| v as f64)
    } else {
        digits.replace(['d', 'D'], "e").parse().unwrap_or(f64::NAN)
    };
    ExprKind::Number {
        value,
        imag,
        text: text.to_string(),
    }
}

/// Octave double-quoted string escapes, plus MATLAB's `""` doubling.
fn unescape_dq(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                chars.next(); // the second quote of `""`
                out.push('"');
            }
            '\\' => match chars.next() {
                // A backslash-newline continues the string on the next line.
                Some('\n') => {}
                Some('\r') => {
                    if chars.clone().next() == Some('\n') {
                        chars.next();
                    }
                }
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('a') => out.push('\u{7}'),
                Some('0') => out.push('\0'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            },
            c => out.push(c),
        }
    }
    out
}

/// A command-syntax word with its quotes removed: `'a b'` → `a b`.
fn command_word(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut chars = word.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        if c == '\'' {
            if quoted && chars.peek() == Some(&'\'') {
                chars.next();
                out.push('\'');
            } else {
                quoted = !quoted;
            }
        } else {
            out.push(c);
        }
    }
    out
}
