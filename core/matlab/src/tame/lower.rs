//! Lowering: MATLAB AST → Tame IR (Dubrau 2012, §4.2; spec 001 §1.3).
//!
//! Decisions the thesis leaves open (spec §1.3f), documented here once:
//! - **Temporaries** are `{prefix}{n}` with prefix `mc_t` (the Tamer's style), extended
//!   with `x`s until no name in the file starts with it, so they never clash. Lifted
//!   lambdas are named `{prefix}lambda{n}` for the same reason.
//! - **`x(args)`** is an array get when `x` is a variable of the function (kind
//!   analysis: inputs, outputs, any assigned name, globals, persistents, loop and catch
//!   variables; a nested function also sees its parent's), otherwise a call.
//! - **`end`** in an index lowers to real builtins that compute that extent, so the IR
//!   stays valid MATLAB: `numel(A)` for a single index, `size(A, k)` for index k of n
//!   when k < n, and `[~, …, ~, t] = size(A)` (n outputs, whose last is the product of
//!   the remaining dimensions) for the last of n > 1 indices.
//! - **`&&` / `||`** become ifs (short-circuit preserved): `a && b` is
//!   `if a, t = logical(b); else t = false(); end`, and `||` symmetrically.
//! - **`switch`** becomes an if-chain on a temporary; a case compares with `strcmp` when
//!   it is a string literal and `isequal` otherwise; a case cell literal `{x, y}` tests
//!   each element and combines the tests with `or`.
//! - **Matrix literals** are `horzcat` per row then `vertcat`; a row with one element
//!   or a single row skips the call. A rectangular table of at least
//!   [`ir::NUMBER_TABLE_MIN`] numbers is one [`Literal::Numbers`] statement instead
//!   (issue #19: a data file's 400,000 elements were as many statements). **Cell literals** are `cellhorzcat` per row (a
//!   Tamer pseudo-builtin that the printer writes back as `{a, b}`) then `vertcat`.
//! - **Nested assignments** `s.a(2) = x` read the parts into temporaries (marked
//!   `update`) and write them back innermost first.
//! - **`do … until c`** is `while true … if c, break; end; end`; `unwind_protect` is its
//!   body followed by its cleanup (an approximation: the cleanup also runs after errors).
//! - **Expression statements** whose last operation is a call or get keep an empty target
//!   list (`[] = f(x)`, printed `f(x)`); others assign `ans`.

use super::ir::{self, Field, ForIter, FunctionKind, Index, Literal, StmtId, StmtKind, Var};
use super::names;
use shapex_matlab_syntax::ast::{self, Accessor, BinOp, ExprKind, LValue, PostfixOp, UnOp};
use shapex_report::Diagnostic;
use shapex_text::Span;
use std::collections::BTreeSet;

/// The result of lowering one file.
#[derive(Clone, Debug)]
pub struct Lowered {
    pub program: ir::Program,
    /// Wild or unsupported features (`tame.wild.*`, `tame.unsupported.*`).
    pub diagnostics: Vec<Diagnostic>,
}

/// Builtins that make a program "wild" (Dubrau 2012 §1.4, §2.11): calls whose effect on
/// the workspace, or on which function a name calls, the analysis cannot follow.
pub const WILD: &[&str] = &[
    "eval",
    "evalin",
    "feval",
    "assignin",
    "clear",
    "load",
    "cd",
    "addpath",
    "rmpath",
    "inputname",
    "evalc",
    "run",
    "import",
];

/// Why a wild call cannot be analysed (Dubrau 2012, §1.4 and §2.11), in a sentence
/// after its name.
fn wild_reason(func: &str) -> &'static str {
    match func {
        "eval" => "runs text as code, and the text is known only at run time",
        "evalin" => "runs text as code in another workspace (the caller's or the base)",
        "feval" => "calls a function whose name is known only at run time",
        "assignin" => "assigns a variable of another workspace, by a name given as text",
        "clear" => "removes variables whose names are known only at run time",
        "load" => "without an output creates the variables the file holds, unknown until it runs (`S = load(…)` is tame)",
        "cd" => "changes the current folder, and with it which function a name calls",
        "addpath" | "rmpath" => "changes the path, and with it which function a name calls",
        "evalc" => "runs text as code, and the text is known only at run time",
        "run" => "runs a script, which may create or change any variable",
        "inputname" => "reads the caller's variable names",
        "import" => "makes a package's functions callable by their short names, which changes which function a name calls",
        _ => "has an effect the analysis cannot follow",
    }
}

/// Whether `text` can name a function of the path by itself (`zeros`, `my_helper`):
/// not a wild builtin, not a package or class path.
fn is_function_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !WILD.contains(&text)
}

/// Lowers a parsed file. Never panics; what cannot be lowered is reported.
pub fn lower(file: &ast::File) -> Lowered {
    lower_with_prefix(file, TEMP_PREFIX)
}

/// The temporaries' prefix a lowering starts from.
pub const TEMP_PREFIX: &str = "mc_t";

/// [`lower`] with temporaries named from `prefix` (extended until no name of the file
/// starts with it): files linked into one program share one prefix, so a name is a
/// temporary in all of them or in none.
pub fn lower_with_prefix(file: &ast::File, prefix: &str) -> Lowered {
    let all = names::all_names(file);
    let mut prefix = String::from(prefix);
    while all.iter().any(|n| n.starts_with(&prefix)) {
        prefix.push('x');
    }
    let mut own = BTreeSet::new();
    let mut stack: Vec<&ast::Function> = file.functions.iter().collect();
    while let Some(f) = stack.pop() {
        own.insert(f.name.name.clone());
        stack.extend(&f.nested);
    }
    let mut l = Lowerer {
        prefix,
        next_temp: 0,
        next_lambda: 0,
        own,
        functions: Vec::new(),
        diagnostics: Vec::new(),
        scope: Scope::default(),
    };
    if file.kind == ast::FileKind::Classdef {
        l.diagnostics.push(Diagnostic::warning(
            "tame.unsupported.classdef",
            "classdef files are not analysed",
            file.span,
        ));
    }
    if file.kind == ast::FileKind::Script || !file.body.is_empty() {
        let mut vars = BTreeSet::new();
        names::assigned(&file.body, &mut vars);
        l.function(FnSpec {
            name: "script".into(),
            kind: FunctionKind::Script,
            parent: None,
            params: vec![],
            outputs: vec![],
            vars,
            body: &file.body,
            span: file.span,
        });
    }
    for (i, f) in file.functions.iter().enumerate() {
        // Temporaries are local to a function (and the nested functions that share its
        // workspace), so each top-level function numbers its own from 0: an edit in one
        // function then leaves every other function's IR unchanged (incremental
        // re-analysis reuses their results).
        l.next_temp = 0;
        let kind = if i == 0 && file.kind == ast::FileKind::Function {
            FunctionKind::Primary
        } else {
            FunctionKind::Subfunction
        };
        l.ast_function(f, kind, None, &BTreeSet::new());
    }
    let mut program = ir::Program {
        functions: l.functions,
        temp_prefix: l.prefix,
        stmt_count: 0,
    };
    program.renumber();
    Lowered {
        program,
        diagnostics: l.diagnostics,
    }
}

/// Per-function lowering state.
#[derive(Default)]
struct Scope {
    vars: BTreeSet<String>,
    /// `end` contexts: (indexed variable, 1-based position, number of indices).
    ends: Vec<(Var, usize, usize)>,
    /// Span of the source statement being lowered.
    origin: Span,
    /// Name of the function being lowered (the parent of lambdas lifted from it).
    func: String,
}

struct FnSpec<'a> {
    name: String,
    kind: FunctionKind,
    parent: Option<String>,
    params: Vec<Var>,
    outputs: Vec<Var>,
    vars: BTreeSet<String>,
    body: &'a [ast::Stmt],
    span: Span,
}

/// Where an expression's value must go.
enum Dest {
    /// Anywhere: a fresh temporary (or an existing variable, for a plain name).
    Any,
    /// This variable.
    One(Var),
    /// These targets, for operations that can yield several values (calls and gets).
    /// An empty list is an expression statement.
    Many(Vec<Var>),
}

struct Lowerer {
    prefix: String,
    next_temp: u32,
    next_lambda: u32,
    /// The names of the file's functions (nested ones too): `f.x` of one is a field
    /// of its result, never a package function.
    own: BTreeSet<String>,
    functions: Vec<ir::Function>,
    diagnostics: Vec<Diagnostic>,
    scope: Scope,
}

type Out = Vec<ir::Stmt>;

/// A `switch` of more cases than this is lowered in blocks ([`Lowerer::switch_blocks`]).
const SWITCH_BLOCK: usize = 32;

impl Lowerer {
    fn temp(&mut self) -> Var {
        let t = format!("{}{}", self.prefix, self.next_temp);
        self.next_temp += 1;
        self.scope.vars.insert(t.clone());
        t
    }

    fn emit(&mut self, out: &mut Out, span: Span, kind: StmtKind) {
        out.push(ir::Stmt {
            id: StmtId(0),
            span,
            origin: self.scope.origin,
            prints: false,
            operator: None,
            kind,
        });
    }

    fn ast_function(
        &mut self,
        f: &ast::Function,
        kind: FunctionKind,
        parent: Option<String>,
        outer: &BTreeSet<String>,
    ) {
        let mut vars = outer.clone();
        names::assigned(&f.body, &mut vars);
        // `~` inputs get placeholder names; the temp counter guarantees uniqueness.
        let params: Vec<Var> = f
            .inputs
            .iter()
            .map(|p| match p {
                Some(i) => i.name.clone(),
                None => {
                    let t = format!("{}{}", self.prefix, self.next_temp);
                    self.next_temp += 1;
                    t
                }
            })
            .collect();
        let outputs: Vec<Var> = f.outputs.iter().map(|o| o.name.clone()).collect();
        vars.extend(params.iter().cloned());
        vars.extend(outputs.iter().cloned());
        let name = f.name.name.clone();
        self.function(FnSpec {
            name: name.clone(),
            kind,
            parent,
            params,
            outputs,
            vars: vars.clone(),
            body: &f.body,
            span: f.span,
        });
        for n in &f.nested {
            self.ast_function(n, FunctionKind::Nested, Some(name.clone()), &vars);
        }
    }

    fn function(&mut self, spec: FnSpec) {
        let saved = std::mem::replace(
            &mut self.scope,
            Scope {
                vars: spec.vars,
                ends: vec![],
                origin: spec.span,
                func: spec.name.clone(),
            },
        );
        // Lambdas lifted from the body are pushed meanwhile; they go after this function.
        let slot = self.functions.len();
        let mut body = Vec::new();
        self.block(spec.body, &mut body);
        let scope = std::mem::replace(&mut self.scope, saved);
        self.functions.insert(
            slot,
            ir::Function {
                name: spec.name,
                kind: spec.kind,
                parent: spec.parent,
                params: spec.params,
                outputs: spec.outputs,
                body,
                variables: scope.vars.into_iter().collect(),
                span: spec.span,
            },
        );
    }

    fn block(&mut self, stmts: &[ast::Stmt], out: &mut Out) {
        for s in stmts {
            self.stmt(s, out);
        }
    }

    fn stmt(&mut self, s: &ast::Stmt, out: &mut Out) {
        self.scope.origin = s.span;
        let start = out.len();
        self.stmt_kind(s, out);
        if s.prints && out.len() > start {
            if let Some(last) = out.last_mut() {
                if last.children().is_empty() {
                    last.prints = true;
                }
            }
        }
    }

    fn stmt_kind(&mut self, s: &ast::Stmt, out: &mut Out) {
        let sp = s.span;
        match &s.kind {
            ast::StmtKind::Expr(e) => self.expr_stmt(e, s.prints, out),
            ast::StmtKind::Assign { lhs, rhs } => self.assign_stmt(lhs, rhs, s.prints, out),
            ast::StmtKind::If { arms, else_body } => self.if_chain(arms, else_body, sp, out),
            ast::StmtKind::Switch {
                subject,
                cases,
                otherwise,
            } => {
                let t = self.expr(subject, Dest::Any, out);
                self.switch_blocks(&t, cases, otherwise, sp, out);
            }
            ast::StmtKind::For {
                var, iter, body, ..
            } => self.for_stmt(var, iter, body, sp, out),
            ast::StmtKind::While { cond, body } => {
                let mut header = Vec::new();
                let c = self.expr(cond, Dest::Any, &mut header);
                let mut b = Vec::new();
                self.block(body, &mut b);
                self.scope.origin = sp;
                self.emit(
                    out,
                    sp,
                    StmtKind::While {
                        header,
                        cond: c,
                        body: b,
                    },
                );
            }
            ast::StmtKind::DoUntil { body, cond } => {
                let mut header = Vec::new();
                let t = self.temp();
                self.call(&mut header, sp, vec![t.clone()], "true", vec![]);
                let mut b = Vec::new();
                self.block(body, &mut b);
                self.scope.origin = sp;
                let c = self.expr(cond, Dest::Any, &mut b);
                let mut brk = Vec::new();
                self.emit(&mut brk, sp, StmtKind::Break);
                self.emit(
                    &mut b,
                    cond.span,
                    StmtKind::If {
                        cond: c,
                        then_body: brk,
                        else_body: vec![],
                    },
                );
                self.emit(
                    out,
                    sp,
                    StmtKind::While {
                        header,
                        cond: t,
                        body: b,
                    },
                );
            }
            ast::StmtKind::Try {
                body,
                catch_var,
                catch_body,
            } => {
                let mut b = Vec::new();
                self.block(body, &mut b);
                let mut c = Vec::new();
                self.block(catch_body, &mut c);
                self.scope.origin = sp;
                self.emit(
                    out,
                    sp,
                    StmtKind::Try {
                        body: b,
                        catch_var: catch_var.as_ref().map(|v| v.name.clone()),
                        catch_body: c,
                    },
                );
            }
            ast::StmtKind::UnwindProtect { body, cleanup } => {
                self.block(body, out);
                self.block(cleanup, out);
            }
            ast::StmtKind::Break => self.emit(out, sp, StmtKind::Break),
            ast::StmtKind::Continue => self.emit(out, sp, StmtKind::Continue),
            ast::StmtKind::Return => self.emit(out, sp, StmtKind::Return),
            ast::StmtKind::Global(ids) => {
                let vs = ids.iter().map(|i| i.name.clone()).collect();
                self.emit(out, sp, StmtKind::Global(vs));
            }
            ast::StmtKind::Persistent(ids) => {
                let vs = ids.iter().map(|i| i.name.clone()).collect();
                self.emit(out, sp, StmtKind::Persistent(vs));
            }
            ast::StmtKind::Command { name, args } => {
                let mut vs = Vec::new();
                for a in args {
                    let t = self.temp();
                    let value = Literal::Str {
                        value: a.clone(),
                        double_quoted: false,
                    };
                    self.emit(
                        out,
                        sp,
                        StmtKind::AssignLiteral {
                            lhs: t.clone(),
                            value,
                        },
                    );
                    vs.push(t);
                }
                self.call(out, sp, vec![], &name.name, vs);
            }
            ast::StmtKind::Arguments | ast::StmtKind::Error => {}
        }
    }

    fn expr_stmt(&mut self, e: &ast::Expr, prints: bool, out: &mut Out) {
        match &e.kind {
            // `x` alone displays x: keep that as `x = x` (only when it prints).
            ExprKind::Ident(i) if self.is_var(&i.name) => {
                if prints {
                    let v = i.name.clone();
                    self.emit(
                        out,
                        e.span,
                        StmtKind::Copy {
                            lhs: v.clone(),
                            rhs: v,
                        },
                    );
                }
            }
            ExprKind::Number { .. }
            | ExprKind::Str { .. }
            | ExprKind::FuncHandle(_)
            | ExprKind::Lambda { .. } => {
                self.scope.vars.insert("ans".into());
                self.expr(e, Dest::One("ans".into()), out);
            }
            _ => {
                self.expr(e, Dest::Many(vec![]), out);
            }
        }
    }

    fn assign_stmt(&mut self, lhs: &[LValue], rhs: &ast::Expr, prints: bool, out: &mut Out) {
        if let [lv] = lhs {
            match lv {
                LValue::Path {
                    base, accessors, ..
                } if accessors.is_empty() => {
                    self.expr(rhs, Dest::One(base.name.clone()), out);
                }
                _ => {
                    let v = self.expr(rhs, Dest::Any, out);
                    self.assign_to(lv, v, out);
                }
            }
            return;
        }
        // Several targets: plain names receive directly, others through temporaries.
        let mut targets = Vec::new();
        let mut later = Vec::new();
        for lv in lhs {
            match lv {
                LValue::Path {
                    base, accessors, ..
                } if accessors.is_empty() => targets.push(base.name.clone()),
                LValue::Tilde(_) => targets.push(self.temp()),
                _ => {
                    let t = self.temp();
                    targets.push(t.clone());
                    later.push((lv, t));
                }
            }
        }
        let named: Vec<Var> = lhs
            .iter()
            .zip(&targets)
            .filter(|(lv, _)| !matches!(lv, LValue::Tilde(_)))
            .map(|(_, t)| t.clone())
            .collect();
        let discards = named.len() < targets.len();
        self.expr(rhs, Dest::Many(targets), out);
        for (lv, t) in later {
            self.assign_to(lv, t, out);
        }
        // MATLAB displays only the named targets: re-display them (`m = m`) rather than
        // the placeholder temporaries of `~`.
        if prints && discards {
            for v in named {
                self.emit(
                    out,
                    rhs.span,
                    StmtKind::Copy {
                        lhs: v.clone(),
                        rhs: v,
                    },
                );
                if let Some(last) = out.last_mut() {
                    last.prints = true;
                }
            }
        }
    }

    /// Stores `value` into an lvalue, expanding nested accesses into get/set chains.
    fn assign_to(&mut self, lv: &LValue, value: Var, out: &mut Out) {
        let (base, accessors, span) = match lv {
            LValue::Tilde(_) => return,
            LValue::Path {
                base,
                accessors,
                span,
            } => (base, accessors, *span),
        };
        self.scope.vars.insert(base.name.clone());
        if accessors.is_empty() {
            self.emit(
                out,
                span,
                StmtKind::Copy {
                    lhs: base.name.clone(),
                    rhs: value,
                },
            );
            return;
        }
        // Read down the path: parts[i] holds the value accessors[i] applies to.
        let mut parts = vec![base.name.clone()];
        let mut sels = Vec::new();
        for (i, acc) in accessors.iter().enumerate() {
            let cur = parts[i].clone();
            let sel = self.selector(acc, &cur, out);
            if i + 1 < accessors.len() {
                let t = self.temp();
                let kind = get_kind(&sel, cur, vec![t.clone()], true);
                self.emit(out, span, kind);
                parts.push(t);
            }
            sels.push(sel);
        }
        // Write back up the path, innermost first.
        let mut rhs = value;
        for (part, sel) in parts.into_iter().zip(sels).rev() {
            let kind = set_kind(sel, part.clone(), rhs);
            self.emit(out, span, kind);
            rhs = part;
        }
    }

    /// Lowers the arguments of one accessor applied to `cur`.
    fn selector(&mut self, acc: &Accessor, cur: &Var, out: &mut Out) -> Sel {
        match acc {
            Accessor::Paren(args) => Sel::Paren(self.indices(cur, args, out)),
            Accessor::Brace(args) => Sel::Brace(self.indices(cur, args, out)),
            Accessor::Field(f) => Sel::Field(Field::Static(f.name.clone())),
            Accessor::DynField(e) => {
                let v = self.expr(e, Dest::Any, out);
                Sel::Field(Field::Dynamic(v))
            }
        }
    }

    /// Lowers index arguments of `array`, with `end` bound to its extents.
    fn indices(&mut self, array: &Var, args: &[ast::Expr], out: &mut Out) -> Vec<Index> {
        let n = args.len();
        let mut ix = Vec::with_capacity(n);
        for (k, a) in args.iter().enumerate() {
            if matches!(a.kind, ExprKind::Colon) {
                ix.push(Index::Colon);
                continue;
            }
            self.scope.ends.push((array.clone(), k + 1, n));
            let v = self.expr(a, Dest::Any, out);
            self.scope.ends.pop();
            ix.push(Index::Var(v));
        }
        ix
    }

    fn if_chain(
        &mut self,
        arms: &[(ast::Expr, Vec<ast::Stmt>)],
        else_body: &Option<Vec<ast::Stmt>>,
        sp: Span,
        out: &mut Out,
    ) {
        let Some(((cond, body), rest)) = arms.split_first() else {
            if let Some(b) = else_body {
                self.block(b, out);
            }
            return;
        };
        // An `elseif` condition is lowered after the previous arm's body: it belongs to
        // the `if` statement, not to that arm's last statement.
        self.scope.origin = sp;
        let c = self.expr(cond, Dest::Any, out);
        let mut then_body = Vec::new();
        self.block(body, &mut then_body);
        let mut else_out = Vec::new();
        self.if_chain(rest, else_body, sp, &mut else_out);
        self.scope.origin = sp;
        self.emit(
            out,
            cond.span,
            StmtKind::If {
                cond: c,
                then_body,
                else_body: else_out,
            },
        );
    }

    /// A long `switch` (a font table of 5,000 cases) as a chain of blocks of about √n
    /// cases, each guarded by "one of its cases matches", so the if-chain nests about
    /// 2√n deep instead of n: every stage walks it recursively, and the browser's stack
    /// holds a few hundred levels. The first case that matches still runs, since the
    /// blocks are tested in order and then their cases.
    fn switch_blocks(
        &mut self,
        subject: &Var,
        cases: &[(ast::Expr, Vec<ast::Stmt>)],
        otherwise: &Option<Vec<ast::Stmt>>,
        sp: Span,
        out: &mut Out,
    ) {
        if cases.len() <= SWITCH_BLOCK {
            return self.switch_chain(subject, cases, otherwise, sp, out);
        }
        let size = (cases.len() as f64).sqrt().ceil() as usize;
        let blocks: Vec<_> = cases.chunks(size.max(SWITCH_BLOCK)).collect();
        self.block_chain(subject, &blocks, otherwise, sp, out);
    }

    fn block_chain(
        &mut self,
        subject: &Var,
        blocks: &[&[(ast::Expr, Vec<ast::Stmt>)]],
        otherwise: &Option<Vec<ast::Stmt>>,
        sp: Span,
        out: &mut Out,
    ) {
        let Some((block, rest)) = blocks.split_first() else {
            if let Some(b) = otherwise {
                self.block(b, out);
            }
            return;
        };
        self.scope.origin = sp;
        let mut any: Option<Var> = None;
        for (case, _) in block.iter() {
            let t = self.case_matches(subject, case, out);
            any = Some(self.or_with(any, t, case.span, out));
        }
        let mut then_body = Vec::new();
        self.switch_chain(subject, block, &None, sp, &mut then_body);
        let mut else_out = Vec::new();
        self.block_chain(subject, rest, otherwise, sp, &mut else_out);
        self.scope.origin = sp;
        let cond = any.expect("a block has cases");
        let span = block[0].0.span;
        self.emit(
            out,
            span,
            StmtKind::If {
                cond,
                then_body,
                else_body: else_out,
            },
        );
    }

    fn switch_chain(
        &mut self,
        subject: &Var,
        cases: &[(ast::Expr, Vec<ast::Stmt>)],
        otherwise: &Option<Vec<ast::Stmt>>,
        sp: Span,
        out: &mut Out,
    ) {
        let Some(((case, body), rest)) = cases.split_first() else {
            if let Some(b) = otherwise {
                self.block(b, out);
            }
            return;
        };
        self.scope.origin = sp;
        let c = self.case_matches(subject, case, out);
        let mut then_body = Vec::new();
        self.block(body, &mut then_body);
        let mut else_out = Vec::new();
        self.switch_chain(subject, rest, otherwise, sp, &mut else_out);
        self.scope.origin = sp;
        self.emit(
            out,
            case.span,
            StmtKind::If {
                cond: c,
                then_body,
                else_body: else_out,
            },
        );
    }

    /// `prev | t` as a new temporary, or `t` when there is no `prev` yet.
    fn or_with(&mut self, prev: Option<Var>, t: Var, span: Span, out: &mut Out) -> Var {
        let Some(prev) = prev else { return t };
        let r = self.temp();
        self.call(out, span, vec![r.clone()], "or", vec![prev, t]);
        r
    }

    /// Whether `subject` matches `case` (any element of a cell case).
    fn case_matches(&mut self, subject: &Var, case: &ast::Expr, out: &mut Out) -> Var {
        match &case.kind {
            ExprKind::Cell(rows) => {
                let mut acc: Option<Var> = None;
                for e in rows.iter().flatten() {
                    let t = self.case_test(subject, e, out);
                    acc = Some(self.or_with(acc, t, case.span, out));
                }
                match acc {
                    Some(a) => a,
                    None => {
                        let r = self.temp();
                        self.call(out, case.span, vec![r.clone()], "false", vec![]);
                        r
                    }
                }
            }
            _ => self.case_test(subject, case, out),
        }
    }

    fn case_test(&mut self, subject: &Var, e: &ast::Expr, out: &mut Out) -> Var {
        let func = if matches!(e.kind, ExprKind::Str { .. }) {
            "strcmp"
        } else {
            "isequal"
        };
        let v = self.expr(e, Dest::Any, out);
        let t = self.temp();
        self.call(out, e.span, vec![t.clone()], func, vec![subject.clone(), v]);
        t
    }

    fn for_stmt(
        &mut self,
        var: &LValue,
        iter: &ast::Expr,
        body: &[ast::Stmt],
        sp: Span,
        out: &mut Out,
    ) {
        let it = match &iter.kind {
            ExprKind::Range { start, step, stop } => {
                let lower = self.expr(start, Dest::Any, out);
                let step = step.as_ref().map(|s| self.expr(s, Dest::Any, out));
                let upper = self.expr(stop, Dest::Any, out);
                ForIter::Range { lower, step, upper }
            }
            _ => ForIter::Columns(self.expr(iter, Dest::Any, out)),
        };
        let mut b = Vec::new();
        let v = match var {
            LValue::Path {
                base, accessors, ..
            } if accessors.is_empty() => base.name.clone(),
            _ => {
                let t = self.temp();
                self.assign_to(var, t.clone(), &mut b);
                t
            }
        };
        self.block(body, &mut b);
        self.scope.origin = sp;
        self.emit(
            out,
            sp,
            StmtKind::For {
                var: v,
                iter: it,
                body: b,
            },
        );
    }

    fn is_var(&self, name: &str) -> bool {
        self.scope.vars.contains(name)
    }

    fn call(&mut self, out: &mut Out, span: Span, targets: Vec<Var>, func: &str, args: Vec<Var>) {
        // `feval('zeros', 4, 5)` is `zeros(4, 5)`: a constant name is a known callee
        // (variables never shadow it); only a name computed at run time is wild.
        if func == "feval" {
            let named = args.first().and_then(|a| self.literal_text(out, a));
            if let Some(name) = named.filter(|n| is_function_name(n)).map(str::to_string) {
                return self.call(out, span, targets, &name, args[1..].to_vec());
            }
        }
        // `clear x y`, `clear all`, `clear('x')`: literal words, a known effect (see
        // `clearing`); only names computed at run time make `clear` wild.
        let words: Option<Vec<&str>> = args.iter().map(|a| self.literal_text(out, a)).collect();
        let clearing = words.and_then(|w| super::clearing(func, &w));
        if clearing == Some(super::Clearing::Any) {
            self.diagnostics.push(
                Diagnostic::new(
                    shapex_text::Severity::Info,
                    "tame.clear.approximate",
                    format!("`{func}` with these options may remove any variable: every variable is unknown after it"),
                    span,
                )
                .with_help("`clear` with names (`clear x y`), wildcards (`clear a*`) or none is analysed exactly"),
            );
        } else if WILD.contains(&func)
            && clearing.is_none()
            && (func != "load" || targets.is_empty())
        {
            self.diagnostics.push(
                Diagnostic::warning(
                    &format!("tame.wild.{func}"),
                    format!("not tame: `{func}` {}", wild_reason(func)),
                    span,
                )
                .with_help("Dubrau 2012 §2.11 rejects it: every variable it may change is unknown after this call, and no error is claimed from them"),
            );
        }
        self.emit(
            out,
            span,
            StmtKind::Call {
                targets,
                func: func.to_string(),
                args,
            },
        );
    }

    /// The text of `var` when it is a temporary this block just set to a string
    /// literal (the words of command syntax, `clear('x')`).
    fn literal_text<'o>(&self, out: &'o Out, var: &Var) -> Option<&'o str> {
        if !ir::is_temp(&self.prefix, var) {
            return None;
        }
        out.iter().rev().find_map(|s| match &s.kind {
            StmtKind::AssignLiteral {
                lhs,
                value: Literal::Str { value, .. },
            } if lhs == var => Some(value.as_str()),
            _ => None,
        })
    }

    /// The targets an operation writes for `dest` (a fresh temporary for `Any`).
    fn targets(&mut self, dest: &Dest) -> Vec<Var> {
        match dest {
            Dest::Any => vec![self.temp()],
            Dest::One(v) => vec![v.clone()],
            Dest::Many(ts) => ts.clone(),
        }
    }

    /// The one variable a single-valued operation writes for `dest`.
    fn single(&mut self, dest: &Dest, span: Span) -> Var {
        match dest {
            Dest::Any => self.temp(),
            Dest::One(v) => v.clone(),
            Dest::Many(ts) => {
                if ts.len() != 1 {
                    self.diagnostics.push(Diagnostic::warning(
                        "tame.unsupported.multi",
                        "this expression yields one value; only it is assigned",
                        span,
                    ));
                }
                ts.first().cloned().unwrap_or_else(|| {
                    self.scope.vars.insert("ans".into());
                    "ans".into()
                })
            }
        }
    }

    /// Octave's assignment used as a value: assigns, then yields the new value (or, for
    /// `x++` inside an expression, the old value of a plain variable `x`).
    fn assign_expr(
        &mut self,
        target: &LValue,
        value: &ast::Expr,
        post_increment: bool,
        dest: Dest,
        out: &mut Out,
    ) -> Var {
        let sp = value.span;
        let old = match target {
            LValue::Path {
                base, accessors, ..
            } if post_increment && accessors.is_empty() && self.is_var(&base.name) => {
                let t = self.temp();
                let rhs = base.name.clone();
                self.emit(
                    out,
                    sp,
                    StmtKind::Copy {
                        lhs: t.clone(),
                        rhs,
                    },
                );
                Some(t)
            }
            _ => None,
        };
        let new = self.expr(value, Dest::Any, out);
        self.assign_to(target, new.clone(), out);
        let result = old.unwrap_or(new);
        match dest {
            Dest::Any => result,
            _ => {
                let lhs = self.single(&dest, sp);
                if lhs != result {
                    self.emit(
                        out,
                        sp,
                        StmtKind::Copy {
                            lhs: lhs.clone(),
                            rhs: result,
                        },
                    );
                }
                lhs
            }
        }
    }

    /// The variable holding a list-valued result (the first target, or a temporary).
    fn first(&mut self, ts: &[Var]) -> Var {
        ts.first().cloned().unwrap_or_else(|| self.temp())
    }

    /// Lowers `e`, putting its value where `dest` says; returns the variable holding it.
    fn expr(&mut self, e: &ast::Expr, dest: Dest, out: &mut Out) -> Var {
        let sp = e.span;
        match &e.kind {
            ExprKind::Number { value, imag, text } => {
                let value = Literal::Number {
                    value: *value,
                    imag: *imag,
                    text: text.clone(),
                };
                self.literal(value, dest, sp, out)
            }
            ExprKind::Str {
                value,
                double_quoted,
            } => {
                let value = Literal::Str {
                    value: value.clone(),
                    double_quoted: *double_quoted,
                };
                self.literal(value, dest, sp, out)
            }
            ExprKind::Colon => {
                let value = Literal::Str {
                    value: ":".into(),
                    double_quoted: false,
                };
                self.literal(value, dest, sp, out)
            }
            ExprKind::AssignExpr {
                target,
                value,
                post_increment,
            } => self.assign_expr(target, value, *post_increment, dest, out),
            ExprKind::Ident(i) if self.is_var(&i.name) => match dest {
                Dest::Any => i.name.clone(),
                _ => {
                    let lhs = self.single(&dest, sp);
                    if lhs != i.name {
                        let rhs = i.name.clone();
                        self.emit(
                            out,
                            sp,
                            StmtKind::Copy {
                                lhs: lhs.clone(),
                                rhs,
                            },
                        );
                    }
                    lhs
                }
            },
            ExprKind::Ident(i) => {
                let ts = self.targets(&dest);
                self.call(out, sp, ts.clone(), &i.name, vec![]);
                self.first(&ts)
            }
            ExprKind::End => self.end(dest, sp, out),
            ExprKind::Binary { op, lhs, rhs } => match op {
                BinOp::AndAnd | BinOp::OrOr => self.short_circuit(*op, lhs, rhs, dest, sp, out),
                _ => {
                    let a = self.expr(lhs, Dest::Any, out);
                    let b = self.expr(rhs, Dest::Any, out);
                    let t = self.op_call(op.builtin_name(), vec![a, b], dest, sp, out);
                    // `op_call` emitted one statement, the operator's call.
                    if let Some(s) = out.last_mut().filter(|_| lhs.span.end <= rhs.span.start) {
                        s.operator = Some(Span::new(lhs.span.end, rhs.span.start));
                    }
                    t
                }
            },
            ExprKind::Unary { op, operand } => {
                let a = self.expr(operand, Dest::Any, out);
                let f = match op {
                    UnOp::Neg => "uminus",
                    UnOp::Plus => "uplus",
                    UnOp::Not => "not",
                };
                self.op_call(f, vec![a], dest, sp, out)
            }
            ExprKind::Postfix { op, operand } => {
                let a = self.expr(operand, Dest::Any, out);
                let f = match op {
                    PostfixOp::CTranspose => "ctranspose",
                    PostfixOp::Transpose => "transpose",
                };
                self.op_call(f, vec![a], dest, sp, out)
            }
            ExprKind::Range { start, step, stop } => {
                let mut args = vec![self.expr(start, Dest::Any, out)];
                if let Some(s) = step {
                    args.push(self.expr(s, Dest::Any, out));
                }
                args.push(self.expr(stop, Dest::Any, out));
                self.op_call("colon", args, dest, sp, out)
            }
            ExprKind::Index { base, args } => self.index(base, args, dest, sp, out),
            ExprKind::CellIndex { base, args } => {
                let b = self.expr(base, Dest::Any, out);
                let ix = self.indices(&b, args, out);
                let ts = self.targets(&dest);
                let kind = get_kind(&Sel::Brace(ix), b, ts.clone(), false);
                self.emit(out, sp, kind);
                self.first(&ts)
            }
            ExprKind::Field { .. } if self.package_function(e).is_some() => {
                let name = self.package_function(e).expect("just checked");
                let ts = self.targets(&dest);
                self.call(out, sp, ts.clone(), &name, vec![]);
                self.first(&ts)
            }
            ExprKind::Field { base, name } => {
                let b = self.expr(base, Dest::Any, out);
                let ts = self.targets(&dest);
                let kind = get_kind(
                    &Sel::Field(Field::Static(name.name.clone())),
                    b,
                    ts.clone(),
                    false,
                );
                self.emit(out, sp, kind);
                self.first(&ts)
            }
            ExprKind::DynField { base, name } => {
                let b = self.expr(base, Dest::Any, out);
                let n = self.expr(name, Dest::Any, out);
                let ts = self.targets(&dest);
                let kind = get_kind(&Sel::Field(Field::Dynamic(n)), b, ts.clone(), false);
                self.emit(out, sp, kind);
                self.first(&ts)
            }
            ExprKind::Matrix(rows) => self.concat(rows, "horzcat", dest, sp, out),
            ExprKind::Cell(rows) => self.concat(rows, "cellhorzcat", dest, sp, out),
            ExprKind::FuncHandle(name) => {
                let lhs = self.single(&dest, sp);
                let func = name.clone();
                self.emit(
                    out,
                    sp,
                    StmtKind::FuncHandle {
                        lhs: lhs.clone(),
                        func,
                    },
                );
                lhs
            }
            ExprKind::Lambda { params, body } => self.lambda(params, body, dest, sp, out),
        }
    }

    fn literal(&mut self, value: Literal, dest: Dest, sp: Span, out: &mut Out) -> Var {
        let lhs = self.single(&dest, sp);
        self.emit(
            out,
            sp,
            StmtKind::AssignLiteral {
                lhs: lhs.clone(),
                value,
            },
        );
        lhs
    }

    fn op_call(&mut self, f: &str, args: Vec<Var>, dest: Dest, sp: Span, out: &mut Out) -> Var {
        let ts = self.targets(&dest);
        self.call(out, sp, ts.clone(), f, args);
        self.first(&ts)
    }

    fn index(
        &mut self,
        base: &ast::Expr,
        args: &[ast::Expr],
        dest: Dest,
        sp: Span,
        out: &mut Out,
    ) -> Var {
        let own_end = self.scope.ends.is_empty() && args.iter().any(mentions_end);
        if let Some(name) = self.package_function(base).filter(|_| !own_end) {
            let vs = args.iter().map(|a| self.expr(a, Dest::Any, out)).collect();
            let ts = self.targets(&dest);
            self.call(out, sp, ts.clone(), &name, vs);
            return self.first(&ts);
        }
        if let ExprKind::Ident(f) = &base.kind {
            // `x(2:end)` where x is not assigned here is still an index: `end` has no
            // meaning in a call, so x must be a variable the function cannot see being
            // made (`load`, `eval`, a script's caller's workspace).
            // (Inside another index, `end` in a call's arguments is that index's.)
            let own_end = self.scope.ends.is_empty() && args.iter().any(mentions_end);
            if !self.is_var(&f.name) && !own_end {
                // A call: `:` is passed as the string ':', and `end` has no array.
                let mut vs = Vec::new();
                for a in args {
                    vs.push(self.expr(a, Dest::Any, out));
                }
                let ts = self.targets(&dest);
                self.call(out, sp, ts.clone(), &f.name, vs);
                return self.first(&ts);
            }
        }
        let b = self.expr(base, Dest::Any, out);
        let ix = self.indices(&b, args, out);
        let ts = self.targets(&dest);
        let kind = get_kind(&Sel::Paren(ix), b, ts.clone(), false);
        self.emit(out, sp, kind);
        self.first(&ts)
    }

    /// `pkg.sub.f` when `e` is static fields of a name that is neither a variable nor a
    /// function of the file: MATLAB's package function `+pkg/+sub/f.m`, called by its
    /// qualified name (Dubrau 2012 §3.1). Unknown unless a file of that path is linked.
    fn package_function(&self, e: &ast::Expr) -> Option<String> {
        let ExprKind::Field { base, name } = &e.kind else {
            return None;
        };
        let qualifier = match &base.kind {
            ExprKind::Ident(i) if !self.is_var(&i.name) && !self.own.contains(&i.name) => {
                i.name.clone()
            }
            ExprKind::Field { .. } => self.package_function(base)?,
            _ => return None,
        };
        Some(format!("{qualifier}.{}", name.name))
    }

    /// `end` as the extent of the innermost enclosing index (see the module docs).
    fn end(&mut self, dest: Dest, sp: Span, out: &mut Out) -> Var {
        let Some((array, k, n)) = self.scope.ends.last().cloned() else {
            self.diagnostics.push(Diagnostic::error(
                "tame.end.outside",
                "`end` is only meaningful inside an index",
                sp,
            ));
            let lhs = self.single(&dest, sp);
            self.call(out, sp, vec![lhs.clone()], "end", vec![]);
            return lhs;
        };
        if n == 1 {
            return self.op_call("numel", vec![array], dest, sp, out);
        }
        if k < n {
            let kv = self.temp();
            let value = Literal::Number {
                value: k as f64,
                imag: false,
                text: k.to_string(),
            };
            self.emit(
                out,
                sp,
                StmtKind::AssignLiteral {
                    lhs: kv.clone(),
                    value,
                },
            );
            return self.op_call("size", vec![array, kv], dest, sp, out);
        }
        let lhs = self.single(&dest, sp);
        let mut ts: Vec<Var> = (1..n).map(|_| self.temp()).collect();
        ts.push(lhs.clone());
        self.call(out, sp, ts, "size", vec![array]);
        lhs
    }

    fn short_circuit(
        &mut self,
        op: BinOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        dest: Dest,
        sp: Span,
        out: &mut Out,
    ) -> Var {
        let a = self.expr(lhs, Dest::Any, out);
        let r = self.single(&dest, sp);
        let mut evaluate = Vec::new();
        let b = self.expr(rhs, Dest::Any, &mut evaluate);
        self.call(&mut evaluate, rhs.span, vec![r.clone()], "logical", vec![b]);
        let mut constant = Vec::new();
        let (then_body, else_body) = if op == BinOp::AndAnd {
            self.call(&mut constant, sp, vec![r.clone()], "false", vec![]);
            (evaluate, constant)
        } else {
            self.call(&mut constant, sp, vec![r.clone()], "true", vec![]);
            (constant, evaluate)
        };
        self.emit(
            out,
            sp,
            StmtKind::If {
                cond: a,
                then_body,
                else_body,
            },
        );
        r
    }

    /// Matrix (`horzcat`) or cell (`cellhorzcat`) literal rows, then `vertcat`.
    fn concat(
        &mut self,
        rows: &[Vec<ast::Expr>],
        row_fn: &str,
        dest: Dest,
        sp: Span,
        out: &mut Out,
    ) -> Var {
        let cell = row_fn == "cellhorzcat";
        let rows: Vec<&Vec<ast::Expr>> = rows.iter().filter(|r| !r.is_empty()).collect();
        if let Some(table) = number_table(&rows).filter(|_| !cell) {
            return self.literal(Literal::Numbers { rows: table }, dest, sp, out);
        }
        let mut row_vars = Vec::new();
        for row in &rows {
            // A one-element matrix row is the element itself; a cell row never is,
            // nor a row of one comma-separated list (`[c{:}]` concatenates c's
            // elements).
            let list = |e: &ast::Expr| {
                matches!(
                    e.kind,
                    ast::ExprKind::CellIndex { .. } | ast::ExprKind::Field { .. }
                )
            };
            if let ([e], false) = (row.as_slice(), cell) {
                if list(e) {
                    let v = self.expr(e, Dest::Any, out);
                    let t = if rows.len() == 1 {
                        return self.op_call(row_fn, vec![v], dest, sp, out);
                    } else {
                        self.temp()
                    };
                    self.call(out, sp, vec![t.clone()], row_fn, vec![v]);
                    row_vars.push(t);
                    continue;
                }
                row_vars.push(self.expr(e, Dest::Any, out));
                continue;
            }
            let vs: Vec<Var> = row.iter().map(|e| self.expr(e, Dest::Any, out)).collect();
            if rows.len() == 1 {
                return self.op_call(row_fn, vs, dest, sp, out);
            }
            let t = self.temp();
            self.call(out, sp, vec![t.clone()], row_fn, vs);
            row_vars.push(t);
        }
        match row_vars.len() {
            0 => self.op_call(row_fn, vec![], dest, sp, out),
            1 => {
                // A single one-element row: `[x]` is x (copied if a target is required).
                let v = row_vars.remove(0);
                match dest {
                    Dest::Any => v,
                    _ => {
                        let lhs = self.single(&dest, sp);
                        self.emit(
                            out,
                            sp,
                            StmtKind::Copy {
                                lhs: lhs.clone(),
                                rhs: v,
                            },
                        );
                        lhs
                    }
                }
            }
            _ => self.op_call("vertcat", row_vars, dest, sp, out),
        }
    }

    /// Lifts a lambda body into a new function (thesis Fig 4.3).
    fn lambda(
        &mut self,
        params: &[ast::Ident],
        body: &ast::Expr,
        dest: Dest,
        sp: Span,
        out: &mut Out,
    ) -> Var {
        let captured: Vec<Var> = names::free_names(params, body)
            .into_iter()
            .filter(|n| self.is_var(n))
            .collect();
        let name = format!("{}lambda{}", self.prefix, self.next_lambda);
        self.next_lambda += 1;
        let ps: Vec<Var> = params.iter().map(|p| p.name.clone()).collect();
        let parent = Some(self.scope.func.clone());
        let result = format!("{}{}", self.prefix, self.next_temp);
        self.next_temp += 1;
        let saved = std::mem::replace(
            &mut self.scope,
            Scope {
                vars: captured
                    .iter()
                    .chain(&ps)
                    .cloned()
                    .chain([result.clone()])
                    .collect(),
                ends: vec![],
                origin: sp,
                func: name.clone(),
            },
        );
        let mut fbody = Vec::new();
        self.expr(body, Dest::One(result.clone()), &mut fbody);
        let scope = std::mem::replace(&mut self.scope, saved);
        self.functions.push(ir::Function {
            name: name.clone(),
            kind: FunctionKind::Lambda,
            parent,
            params: captured.iter().chain(&ps).cloned().collect(),
            outputs: vec![result],
            body: fbody,
            variables: scope.vars.into_iter().collect(),
            span: sp,
        });
        let lhs = self.single(&dest, sp);
        self.emit(
            out,
            sp,
            StmtKind::Lambda {
                lhs: lhs.clone(),
                func: name,
                params: ps,
                captured,
            },
        );
        lhs
    }
}

/// A lowered accessor.
enum Sel {
    Paren(Vec<Index>),
    Brace(Vec<Index>),
    Field(Field),
}

fn get_kind(sel: &Sel, base: Var, targets: Vec<Var>, update: bool) -> StmtKind {
    match sel {
        Sel::Paren(ix) => StmtKind::ArrayGet {
            targets,
            array: base,
            indices: ix.clone(),
            update,
        },
        Sel::Brace(ix) => StmtKind::CellGet {
            targets,
            cell: base,
            indices: ix.clone(),
            update,
        },
        Sel::Field(f) => StmtKind::DotGet {
            targets,
            base,
            field: f.clone(),
            update,
        },
    }
}

fn set_kind(sel: Sel, base: Var, rhs: Var) -> StmtKind {
    match sel {
        Sel::Paren(indices) => StmtKind::ArraySet {
            array: base,
            indices,
            rhs,
        },
        Sel::Brace(indices) => StmtKind::CellSet {
            cell: base,
            indices,
            rhs,
        },
        Sel::Field(field) => StmtKind::DotSet { base, field, rhs },
    }
}

/// The rows of a matrix literal as a [`Literal::Numbers`] table: when it has at least
/// [`ir::NUMBER_TABLE_MIN`] elements, every row is as long as the first (a ragged one is
/// a `vertcat` error, reported by the calls), and every element is a number or `-` one.
fn number_table(rows: &[&Vec<ast::Expr>]) -> Option<Vec<Vec<ir::TableEntry>>> {
    let cols = rows.first()?.len();
    if rows.len().saturating_mul(cols) < ir::NUMBER_TABLE_MIN
        || rows.iter().any(|r| r.len() != cols)
    {
        return None;
    }
    rows.iter()
        .map(|r| r.iter().map(table_entry).collect())
        .collect()
}

fn table_entry(e: &ast::Expr) -> Option<ir::TableEntry> {
    let (negated, number) = match &e.kind {
        ExprKind::Unary {
            op: UnOp::Neg,
            operand,
        } => (true, &operand.kind),
        kind => (false, kind),
    };
    match number {
        ExprKind::Number { value, imag, text } => Some(ir::TableEntry {
            negated,
            value: *value,
            imag: *imag,
            text: text.clone(),
        }),
        _ => None,
    }
}

/// Whether `e` uses `end` for the index it is a subscript of (not inside a nested
/// index, which has its own `end`).
fn mentions_end(e: &ast::Expr) -> bool {
    match &e.kind {
        ExprKind::End => true,
        ExprKind::Binary { lhs, rhs, .. } => mentions_end(lhs) || mentions_end(rhs),
        ExprKind::Unary { operand, .. } | ExprKind::Postfix { operand, .. } => {
            mentions_end(operand)
        }
        ExprKind::Range { start, step, stop } => {
            mentions_end(start) || step.as_deref().is_some_and(mentions_end) || mentions_end(stop)
        }
        ExprKind::Matrix(rows) | ExprKind::Cell(rows) => rows.iter().flatten().any(mentions_end),
        _ => false,
    }
}
