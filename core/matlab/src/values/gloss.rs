//! What the symbols a statement shows stand for (`n#2`: the value of n, line 7), so a
//! reader's hover can say where every unknown extent came from.
//!
//! A symbol's provenance names the IR statement that minted it; that is turned into
//! the statement's source span here, while the function is being analysed, because
//! the function memo moves spans (not the ids inside symbols) when it reuses a result.

use super::results::StmtResult;
use crate::shape::Shape;
use crate::tame::{Stmt, StmtId};
use shapex_dims::{Atom, Provenance, Site};
use shapex_text::Span;
use std::collections::HashMap;

/// One symbol a statement shows: its name, what it stands for, and the source
/// statement it comes from when it has one.
#[derive(Clone, Debug, PartialEq)]
pub struct Gloss {
    pub name: String,
    pub meaning: String,
    pub site: Option<Span>,
}

/// Fills the glossary of every result of a function whose body is `body`.
pub(super) fn gloss_all(body: &[Stmt], results: &mut [StmtResult]) {
    let mut origins = HashMap::new();
    index(body, &mut origins);
    for r in results {
        r.glossary = glossary(r, &origins);
    }
}

fn index(stmts: &[Stmt], out: &mut HashMap<StmtId, Span>) {
    for s in stmts {
        out.insert(s.id, s.origin);
        for c in s.children() {
            index(c, out);
        }
    }
}

/// The symbols in `r`'s defined shapes and conditions, each once.
fn glossary(r: &StmtResult, origins: &HashMap<StmtId, Span>) -> Vec<Gloss> {
    let mut atoms: Vec<&Atom> = Vec::new();
    for (_, v) in &r.defs {
        if let Shape::Tuple(t) = &v.shape {
            t.dims().iter().for_each(|d| atoms.extend(d.leaves()));
        }
    }
    for o in &r.effect.outcomes {
        o.theta.dims().iter().for_each(|d| atoms.extend(d.leaves()));
    }
    let mut out: Vec<Gloss> = Vec::new();
    for symbol in atoms.into_iter().filter_map(Atom::symbol) {
        if out.iter().any(|g| g.name == symbol.name()) {
            continue;
        }
        let (meaning, site) = meaning(symbol.provenance());
        out.push(Gloss {
            name: symbol.name().to_string(),
            meaning,
            site: site.and_then(|s| origins.get(&StmtId(s.stmt)).copied()),
        });
    }
    out
}

/// A reader's words for a provenance, and the statement it names.
fn meaning(p: &Provenance) -> (String, Option<&Site>) {
    let iteration = |site: &Site| match site.iterations.as_slice() {
        [] => String::new(),
        path => {
            let path: Vec<String> = path.iter().map(u32::to_string).collect();
            format!(" in iteration {} of the loop", path.join("."))
        }
    };
    match p {
        Provenance::InputExtent { var, component } => {
            (format!("extent {} of the input {var}", component + 1), None)
        }
        Provenance::ScalarValue { var, site } => {
            (format!("the value of {var}{}", iteration(site)), Some(site))
        }
        Provenance::DataDependent {
            target,
            component,
            site,
            what,
        } => (
            format!(
                "{what} (extent {} of {target}){}",
                component + 1,
                iteration(site)
            ),
            Some(site),
        ),
        Provenance::Join {
            var,
            component,
            site,
        } => (
            format!(
                "extent {} of {var} where paths with different extents meet{}",
                component + 1,
                iteration(site)
            ),
            Some(site),
        ),
        other => (other.to_string(), None),
    }
}
