//! Definite assignment (decision D4; the paper has none): an array read by a call
//! (`in` or `in out`) must be defined on every path to it, and an `out`/`in out` formal
//! on every path to the end of its procedure. The graph alone cannot say so: a merge
//! of ⊥ with a defined extent is a fresh extent, which passes a call with one input.

use crate::rank::Ranks;
use shapex_t_syntax::ast::{Formal, Stmt, StmtKind};
use shapex_t_syntax::Signatures;
use shapex_text::{Diagnostic, Span};
use std::collections::{BTreeSet, HashSet};

/// Arrays defined on every path (`must`) and on some path (`may`).
#[derive(Clone, Default)]
struct Defined {
    must: BTreeSet<String>,
    may: BTreeSet<String>,
}

impl Defined {
    fn define(&mut self, var: &str) {
        self.must.insert(var.to_string());
        self.may.insert(var.to_string());
    }
}

pub(crate) struct Undefined {
    pub diagnostics: Vec<Diagnostic>,
    /// The call spans with an undefined read, and the outputs undefined at exit: the
    /// graph's errors there follow from these and are not reported again.
    pub calls: HashSet<Span>,
    pub outputs: BTreeSet<String>,
}

pub(crate) fn check(
    proc_name: &str,
    formals: &[Formal],
    body: Option<&Stmt>,
    exit: Span,
    ranks: &Ranks,
    sigs: &Signatures,
) -> Undefined {
    let mut pass = Pass {
        ranks,
        sigs,
        out: Undefined {
            diagnostics: Vec::new(),
            calls: HashSet::new(),
            outputs: BTreeSet::new(),
        },
    };
    let mut defined = Defined::default();
    for f in formals.iter().filter(|f| f.direction.reads()) {
        defined.define(&f.name.name);
    }
    if let Some(body) = body {
        defined = pass.stmt(body, defined);
    }
    for f in formals
        .iter()
        .filter(|f| f.direction.writes() && f.rank() > 0)
    {
        let var = &f.name.name;
        if !defined.must.contains(var) {
            let how = if defined.may.contains(var) {
                "may be"
            } else {
                "is"
            };
            pass.out.diagnostics.push(Diagnostic::error(
                "t.undefined",
                format!("output `{var}` {how} undefined when `{proc_name}` returns"),
                exit,
            ));
            pass.out.outputs.insert(var.clone());
        }
    }
    pass.out
}

struct Pass<'a> {
    ranks: &'a Ranks,
    sigs: &'a Signatures<'a>,
    out: Undefined,
}

impl Pass<'_> {
    fn stmt(&mut self, stmt: &Stmt, mut defined: Defined) -> Defined {
        match &stmt.kind {
            StmtKind::Call { .. } => self.call(stmt, defined),
            StmtKind::Decl { name, .. } => {
                defined.define(&name.name);
                defined
            }
            StmtKind::Compound(stmts) => stmts.iter().fold(defined, |d, s| self.stmt(s, d)),
            StmtKind::If {
                then, otherwise, ..
            } => {
                let a = self.stmt(then, defined.clone());
                let b = match otherwise {
                    Some(o) => self.stmt(o, defined),
                    None => defined,
                };
                Defined {
                    must: a.must.intersection(&b.must).cloned().collect(),
                    may: a.may.union(&b.may).cloned().collect(),
                }
            }
            StmtKind::While { body, .. } => {
                // The body's first iteration starts from `defined`, later ones from
                // more; a read is undefined on some path iff it is on the first or the
                // variable is written nowhere before it. After the loop, what the
                // body defines is defined on some path only (zero iterations).
                let mut entry = defined.clone();
                written(body, &mut entry.may);
                let after = self.stmt(body, entry);
                Defined {
                    must: defined.must,
                    may: after.may,
                }
            }
            StmtKind::Error => defined,
        }
    }

    fn call(&mut self, stmt: &Stmt, mut defined: Defined) -> Defined {
        let StmtKind::Call { callee, args } = &stmt.kind else {
            return defined;
        };
        let Some(sig) = self.sigs.get(&callee.name) else {
            return defined;
        };
        if self.ranks.bad_calls.contains(&stmt.span) {
            return defined;
        }
        for (formal, actual) in sig.formals.iter().zip(args) {
            let Some(var) = actual.var() else { continue };
            let array = self.ranks.rank(&var.name) > 0;
            if formal.direction.reads() && array && !defined.must.contains(&var.name) {
                let how = if defined.may.contains(&var.name) {
                    "may be undefined here (it is not defined on every path to this call)"
                } else {
                    "is used before it is defined"
                };
                self.out.diagnostics.push(Diagnostic::error(
                    "t.undefined",
                    format!("`{}` {how}: `{}` reads it", var.name, callee.name),
                    var.span,
                ));
                self.out.calls.insert(stmt.span);
            }
        }
        for (formal, actual) in sig.formals.iter().zip(args) {
            if let (true, Some(var)) = (formal.direction.writes(), actual.var()) {
                defined.define(&var.name);
            }
        }
        defined
    }
}

/// Adds to `may` every variable the statement writes (some iteration may have).
fn written(stmt: &Stmt, may: &mut BTreeSet<String>) {
    let mut prims = Vec::new();
    crate::rank::primitives(stmt, &mut prims);
    for s in prims {
        match &s.kind {
            StmtKind::Decl { name, .. } => {
                may.insert(name.name.clone());
            }
            StmtKind::Call { args, .. } => {
                // Every variable argument: over-approximating "may" only changes a
                // message's wording between "is" and "may be".
                may.extend(args.iter().filter_map(|a| a.var()).map(|v| v.name.clone()));
            }
            _ => {}
        }
    }
}
