//! Tame IR → Derby & Zorn's kernel language: every variable is an array of rank 2,
//! each statement becomes the call whose signature says exactly what it does to
//! extents when it succeeds (a builtin's, generated from its shape rule in the builtin
//! table: `same`, `square`, `transpose`, `matmul`…; copies; calls of declared functions
//! of the file), and every other statement gives the arrays it writes fresh extents. Loops with `break` or `continue`, and `try`,
//! freshen what they assign, since the kernel has no such jumps.

use super::annotations::{Extent, Sizes};
use crate::builtins::{Arg, BuiltinTable, ShapeExpr};
use crate::tame::ir::{self, Literal, StmtKind};
use shapex_extent::kernel::{
    Actual, Cond, Direction, Formal, Ident, Proc, Stmt as KStmt, StmtKind as K,
};
use shapex_text::Span;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The kernel signatures every lowering uses: copies and fresh arrays.
pub const PRELUDE: &str = "\
proc copy (in a[R,S], out b[R,S]) builtin
proc fresh (out b[R,S]) builtin
";

/// What a builtin call does to extents, read from its shape rule in the builtin table
/// (only rules whose effect on extents is exact when the call succeeds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece {
    /// `same(k)`: the result has argument k's extents.
    Same(usize),
    /// `square(k)`: argument k is N×N, and so is the result.
    Square(usize),
    /// `scalar(square(k))`: argument k is N×N; the result is 1×1.
    SquareScalar(usize),
    /// `transpose(k)`: the result is argument k's extents swapped.
    Transpose(usize),
    /// `matmul`, `mldivide`, `mrdivide` of arguments 0 and 1.
    MatMul,
    MLDivide,
    MRDivide,
    /// `broadcast(…)` of two arguments: exact only with a 1×1 literal operand.
    Elementwise,
}

impl Piece {
    /// The kernel signature of a call of `name` with `nargin` arguments and one result.
    fn signature(self, name: &str, nargin: usize) -> String {
        let arg = |k: usize, special: &str| {
            if special.is_empty() {
                format!("in a{k}[P{k},Q{k}]")
            } else {
                format!("in a{k}[{special}]")
            }
        };
        let (args, out): (Vec<String>, &str) = match self {
            Piece::MatMul => (vec![arg(0, "R,S"), arg(1, "S,T")], "R,T"),
            Piece::MLDivide => (vec![arg(0, "R,S"), arg(1, "R,T")], "S,T"),
            Piece::MRDivide => (vec![arg(0, "T,S"), arg(1, "R,S")], "T,R"),
            Piece::Same(k) | Piece::Square(k) | Piece::SquareScalar(k) | Piece::Transpose(k) => {
                let (mine, out) = match self {
                    Piece::Same(_) => ("R,S", "R,S"),
                    Piece::Square(_) => ("N,N", "N,N"),
                    Piece::SquareScalar(_) => ("N,N", "U,V"),
                    _ => ("R,S", "S,R"),
                };
                let args = (0..nargin)
                    .map(|i| arg(i, if i == k { mine } else { "" }))
                    .collect();
                (args, out)
            }
            Piece::Elementwise => (Vec::new(), ""),
        };
        format!("proc {name} ({}, out r[{out}]) builtin\n", args.join(", "))
    }
}

/// The piece of a call of builtin `func` with `nargin` arguments and one result.
fn piece(table: &BuiltinTable, func: &str, nargin: usize) -> Option<Piece> {
    let rule = &table.lookup(func)?.rule;
    let nth = |a: &Arg| a.resolve(nargin);
    Some(match rule.output(nargin, 1, 0)? {
        ShapeExpr::SameAs(a) => Piece::Same(nth(a)?),
        ShapeExpr::Square(a) => Piece::Square(nth(a)?),
        ShapeExpr::ScalarOf(inner) => match inner.as_ref() {
            ShapeExpr::Square(a) => Piece::SquareScalar(nth(a)?),
            _ => return None,
        },
        ShapeExpr::Transpose(a) => Piece::Transpose(nth(a)?),
        ShapeExpr::MatMul(a, b) if (nth(a), nth(b)) == (Some(0), Some(1)) => Piece::MatMul,
        ShapeExpr::MLDivide(a, b) if (nth(a), nth(b)) == (Some(0), Some(1)) => Piece::MLDivide,
        ShapeExpr::MRDivide(a, b) if (nth(a), nth(b)) == (Some(0), Some(1)) => Piece::MRDivide,
        ShapeExpr::Broadcast(_) if nargin == 2 => Piece::Elementwise,
        _ => return None,
    })
}

/// A declared function's signature in the kernel, as every call of it sees it.
pub struct Signature {
    pub params: Vec<String>,
    pub outputs: Vec<String>,
}

/// Lowers one function: its kernel procedure (named like the function).
pub struct Lowering<'a> {
    pub signatures: &'a BTreeMap<String, Signature>,
    table: &'a BuiltinTable,
    /// The kernel signatures of the builtins the calls used, by kernel name.
    pub builtins: BTreeMap<String, String>,
    /// Partial-arity signatures `f/nin/nout` the calls needed, to declare.
    pub partial: BTreeSet<(String, usize, usize)>,
    scalars: HashSet<String>,
    /// Products found to scale, by span, with their 1×1 operand.
    scalings: &'a HashMap<Span, String>,
}

/// The formal sizing of `var`: its declared extents, or a name of its own per
/// dimension (`x.1`), which nothing else shares.
fn sizing(var: &str, declared: Option<&Vec<Extent>>, header: Span) -> Vec<Ident> {
    match declared {
        Some(extents) if extents.len() == 2 => extents
            .iter()
            .enumerate()
            .map(|(k, e)| Ident {
                name: e.name.clone().unwrap_or_else(|| format!("{var}.{}", k + 1)),
                span: e.span,
            })
            .collect(),
        // A declaration of more dimensions is an N-D array: its first two extents are
        // not MATLAB's two (trailing ones fold into the second), so nothing is claimed.
        _ => (1..=2)
            .map(|k| Ident {
                name: format!("{var}.{k}"),
                span: header,
            })
            .collect(),
    }
}

/// The formals of `f` called with `nin` arguments and `nout` results: the inputs in
/// order (`in out` when an output has the same name), then the other outputs.
pub fn formals(
    params: &[String],
    outputs: &[String],
    sizes: &Sizes,
    nin: usize,
    nout: usize,
    header: Span,
) -> Vec<Formal> {
    let outs = &outputs[..nout.min(outputs.len())];
    let ins = &params[..nin.min(params.len())];
    let formal = |direction, name: &str, declared| Formal {
        direction,
        name: Ident {
            name: name.to_string(),
            span: header,
        },
        sizing: sizing(name, declared, header),
        span: header,
    };
    let mut out: Vec<Formal> = ins
        .iter()
        .map(|p| {
            if outs.contains(p) {
                formal(Direction::InOut, p, sizes.input(p))
            } else {
                formal(Direction::In, p, sizes.input(p))
            }
        })
        .collect();
    for o in outs.iter().filter(|o| !ins.contains(o)) {
        out.push(formal(Direction::Out, o, sizes.output(o)));
    }
    out
}

fn ident(name: &str, span: Span) -> Ident {
    Ident {
        name: name.to_string(),
        span,
    }
}

fn var(name: &str, span: Span) -> Actual {
    Actual::Var(ident(name, span))
}

fn call(callee: &str, args: Vec<Actual>, span: Span) -> KStmt {
    KStmt {
        kind: K::Call {
            callee: ident(callee, span),
            args,
        },
        span,
    }
}

fn compound(stmts: Vec<KStmt>, span: Span) -> KStmt {
    KStmt {
        kind: K::Compound(stmts),
        span,
    }
}

fn any_cond(span: Span) -> Cond {
    Cond {
        operands: vec![Actual::Literal {
            text: "1".into(),
            span,
        }],
        span,
    }
}

fn fresh(v: &str, span: Span) -> KStmt {
    call("fresh", vec![var(v, span)], span)
}

/// Variables assigned only ever by numeric literals: MATLAB scalars.
fn scalars(body: &[ir::Stmt]) -> HashSet<String> {
    fn walk(stmts: &[ir::Stmt], yes: &mut HashSet<String>, no: &mut HashSet<String>) {
        for s in stmts {
            let literal = matches!(
                &s.kind,
                StmtKind::AssignLiteral {
                    value: Literal::Number { .. },
                    ..
                }
            );
            for d in s.defs() {
                if literal {
                    yes.insert(d.clone());
                } else {
                    no.insert(d.clone());
                }
            }
            for c in s.children() {
                walk(c, yes, no);
            }
        }
    }
    let (mut yes, mut no) = (HashSet::new(), HashSet::new());
    walk(body, &mut yes, &mut no);
    yes.retain(|v| !no.contains(v));
    yes
}

/// Every variable a statement list assigns, nested bodies included.
fn assigned(stmts: &[ir::Stmt], out: &mut BTreeSet<String>) {
    for s in stmts {
        out.extend(s.defs().into_iter().cloned());
        if let StmtKind::Try {
            catch_var: Some(v), ..
        } = &s.kind
        {
            out.insert(v.clone());
        }
        for c in s.children() {
            assigned(c, out);
        }
    }
}

fn jumps(stmts: &[ir::Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Break | StmtKind::Continue => true,
        StmtKind::While { .. } | StmtKind::For { .. } => false,
        _ => s.children().into_iter().any(jumps),
    })
}

impl<'a> Lowering<'a> {
    pub fn new(
        signatures: &'a BTreeMap<String, Signature>,
        table: &'a BuiltinTable,
        body: &[ir::Stmt],
        scalings: &'a HashMap<Span, String>,
    ) -> Self {
        Lowering {
            signatures,
            table,
            builtins: BTreeMap::new(),
            partial: BTreeSet::new(),
            scalars: scalars(body),
            scalings,
        }
    }

    pub fn block(&mut self, stmts: &[ir::Stmt], span: Span) -> KStmt {
        let mut out = Vec::new();
        for s in stmts {
            self.stmt(s, &mut out);
        }
        compound(out, span)
    }

    fn stmt(&mut self, s: &ir::Stmt, out: &mut Vec<KStmt>) {
        let span = s.span;
        match &s.kind {
            StmtKind::Copy { lhs, rhs } => {
                out.push(call("copy", vec![var(rhs, span), var(lhs, span)], span))
            }
            StmtKind::Call {
                targets,
                func,
                args,
            } => self.call(targets, func, args, span, out),
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => out.push(KStmt {
                kind: K::If {
                    cond: any_cond(span),
                    then: Box::new(self.block(then_body, span)),
                    otherwise: Some(Box::new(self.block(else_body, span))),
                },
                span,
            }),
            StmtKind::While { header, body, .. } => {
                for h in header {
                    self.stmt(h, out);
                }
                let mut all = body.clone();
                all.extend(header.iter().cloned());
                self.looped(&all, jumps(body), None, span, out);
            }
            StmtKind::For { var: v, body, .. } => {
                self.looped(body, jumps(body), Some(v), span, out);
            }
            StmtKind::Try {
                body,
                catch_var,
                catch_body,
            } => {
                // The catch starts wherever the body failed: all it assigned is unknown.
                let mut touched = BTreeSet::new();
                assigned(body, &mut touched);
                let mut handler: Vec<KStmt> = touched.iter().map(|v| fresh(v, span)).collect();
                handler.extend(catch_var.iter().map(|v| fresh(v, span)));
                for c in catch_body {
                    self.stmt(c, &mut handler);
                }
                out.push(KStmt {
                    kind: K::If {
                        cond: any_cond(span),
                        then: Box::new(self.block(body, span)),
                        otherwise: Some(Box::new(compound(handler, span))),
                    },
                    span,
                });
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Return => {}
            _ => {
                for d in s.defs() {
                    out.push(fresh(d, span));
                }
            }
        }
    }

    /// A loop as the kernel's `while`; with jumps, what the body assigns is fresh on
    /// every iteration and after the loop (the state at a jump is not the loop head's).
    fn looped(
        &mut self,
        body: &[ir::Stmt],
        jumps: bool,
        var_: Option<&String>,
        span: Span,
        out: &mut Vec<KStmt>,
    ) {
        let mut touched = BTreeSet::new();
        if jumps {
            assigned(body, &mut touched);
        }
        let mut inner: Vec<KStmt> = var_.iter().map(|v| fresh(v, span)).collect();
        inner.extend(touched.iter().map(|v| fresh(v, span)));
        for s in body {
            self.stmt(s, &mut inner);
        }
        out.push(KStmt {
            kind: K::While {
                cond: any_cond(span),
                body: Box::new(compound(inner, span)),
            },
            span,
        });
        out.extend(touched.iter().map(|v| fresh(v, span)));
        if let Some(v) = var_ {
            // A loop that runs no iteration leaves its variable empty.
            out.push(fresh(v, span));
        }
    }

    fn call(
        &mut self,
        targets: &[String],
        func: &str,
        args: &[String],
        span: Span,
        out: &mut Vec<KStmt>,
    ) {
        // A function of the file shadows a builtin of the same name.
        let user = self.signatures.contains_key(func);
        if let ([target], false) = (targets, user) {
            if let Some(p) = piece(self.table, func, args.len()) {
                if self.builtin(p, func, args, target, span, out) {
                    return;
                }
            }
        }
        if let Some(sig) = self.signatures.get(func) {
            if args.len() <= sig.params.len() && targets.len() <= sig.outputs.len() {
                self.declared_call(func, sig, targets, args, span, out);
                return;
            }
        }
        for t in targets {
            out.push(fresh(t, span));
        }
    }

    /// A builtin call as its graph piece; false when the piece says nothing exact here
    /// (an element-wise call without a 1×1 literal operand).
    fn builtin(
        &mut self,
        p: Piece,
        func: &str,
        args: &[String],
        target: &str,
        span: Span,
        out: &mut Vec<KStmt>,
    ) -> bool {
        let scaled = self.scalings.get(&span);
        let scalar = |v: &String| self.scalars.contains(v) || scaled == Some(v);
        if let [a, b] = args {
            if matches!(
                p,
                Piece::Elementwise | Piece::MatMul | Piece::MLDivide | Piece::MRDivide
            ) {
                // `s*A`, `A*s`, `A/s`, `s\\A`, `A+1`: the other operand's extents.
                let other = match (scalar(a), scalar(b), p) {
                    (true, false, Piece::MRDivide) | (false, true, Piece::MLDivide) => None,
                    (true, false, _) => Some(b),
                    (false, true, _) => Some(a),
                    (true, true, _) if a == b => Some(a),
                    _ => None,
                };
                if let Some(o) = other {
                    out.push(call("copy", vec![var(o, span), var(target, span)], span));
                    return true;
                }
                if p == Piece::Elementwise || scalar(a) || scalar(b) {
                    return false;
                }
            }
        }
        let name =
            if args.len() == 1 || matches!(p, Piece::MatMul | Piece::MLDivide | Piece::MRDivide) {
                func.to_string()
            } else {
                // Kernel names are identifiers; MATLAB names rarely hold `__`.
                format!("{func}__{}", args.len())
            };
        self.builtins
            .entry(name.clone())
            .or_insert_with(|| p.signature(&name, args.len()));
        let mut actuals: Vec<Actual> = args.iter().map(|a| var(a, span)).collect();
        actuals.push(var(target, span));
        out.push(call(&name, actuals, span));
        true
    }

    /// A call of a declared function: an output that is also an input (`in out`)
    /// starts as a copy of its argument.
    fn declared_call(
        &mut self,
        func: &str,
        sig: &Signature,
        targets: &[String],
        args: &[String],
        span: Span,
        out: &mut Vec<KStmt>,
    ) {
        let (nin, nout) = (args.len(), targets.len());
        let outs = &sig.outputs[..nout];
        let ins = &sig.params[..nin];
        let mut actuals = Vec::new();
        for (p, a) in ins.iter().zip(args) {
            match outs.iter().position(|o| o == p) {
                Some(j) => {
                    out.push(call(
                        "copy",
                        vec![var(a, span), var(&targets[j], span)],
                        span,
                    ));
                    actuals.push(var(&targets[j], span));
                }
                None => actuals.push(var(a, span)),
            }
        }
        for (o, t) in outs.iter().zip(targets) {
            if !ins.contains(o) {
                actuals.push(var(t, span));
            }
        }
        let name = if (nin, nout) == (sig.params.len(), sig.outputs.len()) {
            func.to_string()
        } else {
            self.partial.insert((func.to_string(), nin, nout));
            partial_name(func, nin, nout)
        };
        out.push(call(&name, actuals, span));
    }
}

/// The kernel name of `f` called with `nin` arguments and `nout` results.
pub fn partial_name(f: &str, nin: usize, nout: usize) -> String {
    format!("{f}/{nin}/{nout}")
}

/// A declaration (no body) of a procedure.
pub fn declaration(name: &str, formals: Vec<Formal>, header: Span) -> Proc {
    Proc {
        name: ident(name, header),
        formals,
        body: None,
        header,
        span: header,
    }
}

/// The program's procedures that are definitions, with their kernel bodies.
pub fn definition(name: &str, formals: Vec<Formal>, body: KStmt, header: Span, span: Span) -> Proc {
    Proc {
        name: ident(name, header),
        formals,
        body: Some(body),
        header,
        span,
    }
}
