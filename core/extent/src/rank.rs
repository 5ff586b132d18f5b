//! The rank pre-pass (the spec's §2.5 and D10; the paper omits it): every array
//! variable has one rank throughout its procedure, taken from the formals, `decl`s and
//! the formal ranks at calls. A call whose arguments disagree with its callee (unknown
//! procedure, arity, rank, a literal where an array is expected) is reported here, with
//! its own clear error, and left out of the graph.

use shapex_t_syntax::ast::{Actual, Formal, Ident, Proc, Stmt, StmtKind};
use shapex_t_syntax::Signatures;
use shapex_text::{Diagnostic, Span};
use std::collections::{BTreeMap, HashSet};

pub(crate) struct Ranks {
    /// Rank of each variable of the procedure (0: scalar), with where it was fixed.
    pub of: BTreeMap<String, (usize, String)>,
    /// The array variables in order of first appearance: the order of their wires.
    pub arrays: Vec<String>,
    /// Calls left out of the graph (by span).
    pub bad_calls: HashSet<Span>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Ranks {
    pub fn rank(&self, var: &str) -> usize {
        self.of.get(var).map_or(0, |(r, _)| *r)
    }
}

pub(crate) fn ranks(formals: &[Formal], body: &[&Stmt], sigs: &Signatures) -> Ranks {
    let mut ranks = Ranks {
        of: BTreeMap::new(),
        arrays: Vec::new(),
        bad_calls: HashSet::new(),
        diagnostics: Vec::new(),
    };
    for f in formals {
        let why = format!("the formal `{}`", show_formal(f));
        ranks.fix(&f.name.name, f.rank(), why);
    }
    for stmt in body {
        match &stmt.kind {
            StmtKind::Decl { name, sizing } => {
                if let Some(d) = ranks.agree(&name.name, sizing.len(), name.span, "`decl`") {
                    ranks.diagnostics.push(d);
                }
            }
            StmtKind::Call { callee, args } => {
                let problems = call_problems(&mut ranks, stmt.span, &callee.name, args, sigs);
                if !problems.is_empty() {
                    ranks.bad_calls.insert(stmt.span);
                    ranks.diagnostics.extend(problems);
                } else if let Some(sig) = sigs.get(&callee.name) {
                    ranks.diagnostics.extend(written_twice(sig, args));
                }
            }
            _ => {}
        }
    }
    ranks
}

impl Ranks {
    fn fix(&mut self, var: &str, rank: usize, why: String) {
        if !self.of.contains_key(var) {
            self.of.insert(var.to_string(), (rank, why));
            if rank > 0 {
                self.arrays.push(var.to_string());
            }
        }
    }

    /// Fixes `var`'s rank at its first use, or checks a later use against it.
    fn agree(&mut self, var: &str, rank: usize, span: Span, use_: &str) -> Option<Diagnostic> {
        match self.of.get(var) {
            Some((r, why)) if *r != rank => Some(Diagnostic::error(
                "t.rank",
                format!(
                    "`{var}` has rank {rank} as {use_}, but rank {r} from {why}",
                ),
                span,
            )
            .with_help("a variable keeps one rank (number of dimensions) in its procedure; this call is left out of the extent graph")),
            Some(_) => None,
            None => {
                self.fix(var, rank, use_.to_string());
                None
            }
        }
    }
}

fn call_problems(
    ranks: &mut Ranks,
    span: Span,
    callee: &str,
    args: &[Actual],
    sigs: &Signatures,
) -> Vec<Diagnostic> {
    let Some(sig) = sigs.get(callee) else {
        let d = Diagnostic::error("t.unknown", format!("no procedure `{callee}` is declared"), span)
            .with_help("declare it with `proc … builtin` (the prelude has the usual ones); this call is left out of the extent graph");
        return vec![d];
    };
    if sig.formals.len() != args.len() {
        let d = Diagnostic::error(
            "t.arity",
            format!(
                "`{callee}` takes {} arguments, this call passes {}",
                sig.formals.len(),
                args.len()
            ),
            span,
        )
        .with_help(format!("its signature: {}", show_signature(sig)));
        return vec![d];
    }
    let mut problems = Vec::new();
    for (formal, actual) in sig.formals.iter().zip(args) {
        let use_ = format!("argument `{}` of `{callee}`", show_formal(formal));
        match actual {
            Actual::Literal { span, text } if formal.rank() > 0 || formal.direction.writes() => {
                let what = if formal.rank() > 0 {
                    "an array"
                } else {
                    "a variable it writes"
                };
                problems.push(Diagnostic::error(
                    "t.literal",
                    format!(
                        "the literal `{text}` is passed where `{callee}` expects {what} ({use_})"
                    ),
                    *span,
                ));
            }
            Actual::Literal { .. } => {}
            Actual::Var(id) => {
                if let Some(d) = ranks.agree(&id.name, formal.rank(), id.span, &use_) {
                    problems.push(d);
                }
            }
        }
    }
    problems
}

/// A variable passed to two written positions of one call: the construction lets the
/// last one win (the spec's §2.5 leaves "error or last wins" open), and says so.
fn written_twice(sig: &Proc, args: &[Actual]) -> Option<Diagnostic> {
    let written: Vec<&Ident> = sig
        .formals
        .iter()
        .zip(args)
        .filter(|(f, _)| f.direction.writes())
        .filter_map(|(_, a)| a.var())
        .collect();
    let (_, twice) = written
        .iter()
        .enumerate()
        .find(|(i, v)| written[..*i].iter().any(|w| w.name == v.name))?;
    Some(
        Diagnostic::warning(
            "t.alias",
            format!(
                "`{}` is written twice by this call to `{}`; its sizes are taken from the last position",
                twice.name, sig.name.name
            ),
            twice.span,
        )
        .with_help("pass a different variable to each output"),
    )
}

pub(crate) fn show_formal(f: &Formal) -> String {
    let sizing: Vec<&str> = f.sizing.iter().map(|e| e.name.as_str()).collect();
    if sizing.is_empty() {
        format!("{} {}", f.direction.as_str(), f.name.name)
    } else {
        format!(
            "{} {}[{}]",
            f.direction.as_str(),
            f.name.name,
            sizing.join(",")
        )
    }
}

pub(crate) fn show_signature(p: &Proc) -> String {
    let formals: Vec<String> = p.formals.iter().map(show_formal).collect();
    format!("proc {} ({})", p.name.name, formals.join(", "))
}

/// The calls and `decl`s of a statement, in source order.
pub(crate) fn primitives<'a>(stmt: &'a Stmt, out: &mut Vec<&'a Stmt>) {
    match &stmt.kind {
        StmtKind::Call { .. } | StmtKind::Decl { .. } => out.push(stmt),
        StmtKind::If {
            then, otherwise, ..
        } => {
            primitives(then, out);
            if let Some(o) = otherwise {
                primitives(o, out);
            }
        }
        StmtKind::While { body, .. } => primitives(body, out),
        StmtKind::Compound(stmts) => stmts.iter().for_each(|s| primitives(s, out)),
        StmtKind::Error => {}
    }
}
