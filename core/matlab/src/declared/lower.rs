//! Tame IR → Derby & Zorn's kernel language: every variable is an array of rank 2,
//! each statement becomes the call whose signature says exactly what the builtin does
//! to extents when it succeeds (`mtimes`, `transpose`, `inv`, element-wise functions,
//! copies, calls of declared functions of the file), and every other statement gives
//! the arrays it writes fresh extents. Loops with `break` or `continue`, and `try`,
//! freshen what they assign, since the kernel has no such jumps.

use super::annotations::{Extent, Sizes};
use crate::tame::ir::{self, Literal, StmtKind};
use shapex_extent::kernel::{
    Actual, Cond, Direction, Formal, Ident, Proc, Stmt as KStmt, StmtKind as K,
};
use shapex_text::Span;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The kernel signatures of the builtins the lowering uses, written in Language T.
pub const PRELUDE: &str = "\
proc mtimes (in a[R,S], in b[S,T], out c[R,T]) builtin
proc mldivide (in a[R,S], in b[R,T], out c[S,T]) builtin
proc mrdivide (in b[T,S], in a[R,S], out c[T,R]) builtin
proc transpose (in a[R,S], out b[S,R]) builtin
proc ctranspose (in a[R,S], out b[S,R]) builtin
proc pinv (in a[R,S], out b[S,R]) builtin
proc inv (in a[N,N], out b[N,N]) builtin
proc expm (in a[N,N], out b[N,N]) builtin
proc logm (in a[N,N], out b[N,N]) builtin
proc sqrtm (in a[N,N], out b[N,N]) builtin
proc chol (in a[N,N], out b[N,N]) builtin
proc copy (in a[R,S], out b[R,S]) builtin
proc fresh (out b[R,S]) builtin
";

/// Builtins whose one result has the size of their one argument.
const SAME_SIZE: &[&str] = &[
    "uminus", "uplus", "not", "abs", "exp", "log", "log10", "log1p", "expm1", "sqrt", "sin", "cos",
    "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "real", "imag", "conj", "round",
    "floor", "ceil", "fix", "sign", "double", "single", "logical", "isnan", "isinf", "isfinite",
    "gamma", "erf", "angle",
];

/// Element-wise builtins of two arguments: with a scalar literal on one side, the
/// result has the other's size (otherwise broadcasting decides, which extents cannot
/// say).
const ELEMENTWISE: &[&str] = &[
    "plus", "minus", "times", "rdivide", "ldivide", "power", "eq", "ne", "lt", "le", "gt", "ge",
    "and", "or",
];

/// A declared function's signature in the kernel, as every call of it sees it.
pub struct Signature {
    pub params: Vec<String>,
    pub outputs: Vec<String>,
}

/// Lowers one function: its kernel procedure (named like the function).
pub struct Lowering<'a> {
    pub signatures: &'a BTreeMap<String, Signature>,
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
        body: &[ir::Stmt],
        scalings: &'a HashMap<Span, String>,
    ) -> Self {
        Lowering {
            signatures,
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
        let actuals = |vs: &[&String]| vs.iter().map(|v| var(v, span)).collect::<Vec<_>>();
        let scaled = self.scalings.get(&span);
        let scalar = |v: &String| self.scalars.contains(v) || scaled == Some(v);
        if let [target] = targets {
            match (func, args) {
                (f, [a]) if SAME_SIZE.contains(&f) || PRELUDE_UNARY.contains(&f) => {
                    let callee = if SAME_SIZE.contains(&f) { "copy" } else { f };
                    out.push(call(callee, actuals(&[a, target]), span));
                    return;
                }
                (f, [a, b]) if ELEMENTWISE.contains(&f) || MATRIX.contains(&f) => {
                    // `s*A`, `A*s`, `A/s`, `s\A`, `A+1`: the other operand's size.
                    let other = match (scalar(a), scalar(b), f) {
                        (true, false, "mrdivide") => None,
                        (false, true, "mldivide") => None,
                        (true, false, _) => Some(b),
                        (false, true, _) => Some(a),
                        // A 1×1 value times itself.
                        (true, true, _) if a == b => Some(a),
                        _ => None,
                    };
                    if let Some(o) = other {
                        out.push(call("copy", actuals(&[o, target]), span));
                        return;
                    }
                    if MATRIX.contains(&f) && !scalar(a) && !scalar(b) {
                        out.push(call(f, actuals(&[a, b, target]), span));
                        return;
                    }
                }
                _ => {}
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

/// Matrix builtins of two arguments in the prelude.
const MATRIX: &[&str] = &["mtimes", "mldivide", "mrdivide"];

/// Matrix builtins of one argument in the prelude.
const PRELUDE_UNARY: &[&str] = &[
    "transpose",
    "ctranspose",
    "pinv",
    "inv",
    "expm",
    "logm",
    "sqrtm",
    "chol",
];

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
