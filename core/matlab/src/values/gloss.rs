//! What the symbols a statement shows stand for, in a student's words (`c~c1`: rows of
//! c, known when line 12 runs), and which of them faces show by a short alias (`?₁`),
//! so a reader's hover and legend can say where every unknown extent came from.
//!
//! A symbol's provenance names the IR statement that minted it; that is turned into
//! the statement's source span here, while the function is being analysed, because
//! the function memo moves spans (not the ids inside symbols) when it reuses a result.

use super::results::{Gloss, StmtResult};
use crate::shape::Shape;
use crate::tame::{Stmt, StmtId, StmtKind};
use shapex_dims::{Atom, Provenance, Site, Symbol};
use shapex_report::legend;
use shapex_text::Span;
use std::collections::{HashMap, HashSet};

/// Fills the glossary of every result of a function whose body is `body`; `is_temp`
/// tells the names a reader never saw (the lowering's temporaries).
pub(super) fn gloss_all(body: &[Stmt], is_temp: &dyn Fn(&str) -> bool, results: &mut [StmtResult]) {
    let mut origins = HashMap::new();
    let mut loops = HashSet::new();
    index(body, &mut origins, &mut loops);
    let positions = positions(results);
    let defined = results
        .iter()
        .flat_map(|r| r.defs.iter().map(|(var, _)| (r.id.0, var.clone())))
        .collect();
    let context = Context {
        origins: &origins,
        loops: &loops,
        positions: &positions,
        defined: &defined,
        is_temp,
    };
    for r in results.iter_mut() {
        r.glossary = glossary(r, &context);
    }
}

/// What a function's glossary reads from the whole function.
struct Context<'a> {
    /// Each statement's source span.
    origins: &'a HashMap<StmtId, Span>,
    /// The loops: a join at one is where iterations meet.
    loops: &'a HashSet<StmtId>,
    /// Where in its target's shape, as the minting statement defines it, each minted
    /// extent stands (`c~c1` is c's rows): an open case's component counts the
    /// placeholders of a rule, not the target's extents.
    positions: &'a HashMap<String, u32>,
    /// (statement, variable) for every variable a statement defines: a rule whose
    /// target is a temporary names its symbols after a stand-in (`t~c`), which may also
    /// be a variable's name, so a target the minting statement does not define is not
    /// the reader's variable.
    defined: &'a HashSet<(u32, String)>,
    is_temp: &'a dyn Fn(&str) -> bool,
}

fn positions(results: &[StmtResult]) -> HashMap<String, u32> {
    let mut out = HashMap::new();
    for r in results {
        for (var, value) in &r.defs {
            let Shape::Tuple(t) = &value.shape else {
                continue;
            };
            for (i, d) in t.dims().iter().enumerate() {
                let Some(symbol) = d.as_atom().and_then(Atom::symbol) else {
                    continue;
                };
                let minted_here = match symbol.provenance() {
                    Provenance::DataDependent { target, site, .. }
                    | Provenance::Join {
                        var: target, site, ..
                    } => target == var && site.stmt == r.id.0,
                    _ => false,
                };
                if minted_here {
                    out.entry(symbol.name().to_string())
                        .or_insert(u32::try_from(i).unwrap_or(u32::MAX));
                }
            }
        }
    }
    out
}

fn index(stmts: &[Stmt], out: &mut HashMap<StmtId, Span>, loops: &mut HashSet<StmtId>) {
    for s in stmts {
        out.insert(s.id, s.origin);
        if matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. }) {
            loops.insert(s.id);
        }
        for c in s.children() {
            index(c, out, loops);
        }
    }
}

/// The symbols in `r`'s defined shapes, conditions and operands (which a definite
/// error's message shows), each once.
fn glossary(r: &StmtResult, context: &Context) -> Vec<Gloss> {
    let mut atoms: Vec<&Atom> = Vec::new();
    let shapes = r
        .defs
        .iter()
        .map(|(_, v)| &v.shape)
        .chain(&r.effect.operands);
    for shape in shapes {
        if let Shape::Tuple(t) = shape {
            t.dims().iter().for_each(|d| atoms.extend(d.leaves()));
        }
    }
    for o in &r.effect.outcomes {
        o.theta.dims().iter().for_each(|d| atoms.extend(d.leaves()));
    }
    // The values the Values view shows (`n: double <1,1> = max(?₁,0)-max(x,0)`).
    for (_, v) in &r.defs {
        let elems = v.elems.iter().flatten();
        v.scalar
            .iter()
            .chain(elems)
            .for_each(|d| atoms.extend(d.leaves()));
    }
    let mut out: Vec<Gloss> = Vec::new();
    for atom in atoms {
        let Some(symbol) = atom.symbol() else {
            continue;
        };
        if out.iter().any(|g| g.name == symbol.name()) {
            continue;
        }
        let words = words(symbol, matches!(atom, Atom::Val(_)), context);
        out.push(Gloss {
            name: symbol.name().to_string(),
            site: words
                .site
                .and_then(|s| context.origins.get(&StmtId(s.stmt)).copied()),
            iteration: words.site.map(iteration).unwrap_or_default(),
            meaning: words.meaning,
            why: words.why,
            alias: words.alias,
        });
    }
    out
}

/// What a reader calls a value the program never names.
const INTERMEDIATE: &str = "an intermediate result";

/// " in iteration 2 of the loop" for a symbol of a simulated iteration.
fn iteration(site: &Site) -> String {
    match site.iterations.as_slice() {
        [] => String::new(),
        path => {
            let path: Vec<String> = path.iter().map(u32::to_string).collect();
            format!(" in iteration {} of the loop", path.join("."))
        }
    }
}

/// A provenance in a reader's words.
struct Words<'a> {
    meaning: String,
    site: Option<&'a Site>,
    why: Option<&'static str>,
    alias: String,
}

/// Extent `component` (0-based) as a student says it: rows, columns, extent 3.
fn extent(component: u32) -> String {
    match component {
        0 => "rows".into(),
        1 => "columns".into(),
        k => format!("extent {}", u64::from(k) + 1),
    }
}

fn words<'a>(symbol: &'a Symbol, value: bool, context: &Context) -> Words<'a> {
    let of = |var: &str| {
        if (context.is_temp)(var) {
            INTERMEDIATE.to_string()
        } else {
            var.to_string()
        }
    };
    let keep = |meaning: String, site: Option<&'a Site>| Words {
        meaning,
        site,
        why: None,
        alias: legend::KEEP.into(),
    };
    match symbol.provenance() {
        // An input's rank is open: its third symbol stands for all its extents past
        // the second (`ValueAnalysis::entry`), whose product is 1 exactly when it is 2-D.
        Provenance::InputExtent { var, component } if *component >= 2 => keep(
            format!("extents 3 and up of the input {var} multiplied together (1 when it is 2-D)"),
            None,
        ),
        Provenance::InputExtent { var, component } => {
            keep(format!("{} of the input {var}", extent(*component)), None)
        }
        Provenance::InputValue { var } => keep(format!("the value of the input {var}"), None),
        // The first value of `n` reads `n`, as the paper writes m′; later ones
        // (`n#2`, `n@3`) are other values of n: `n₂`, `n₃`.
        Provenance::ScalarValue { var, site } => Words {
            meaning: format!("the value of {var}"),
            site: Some(site),
            why: None,
            alias: if symbol.name() == var {
                legend::KEEP.into()
            } else {
                var.clone()
            },
        },
        // The value of a scalar variable, as for `ScalarValue`, that may not be an
        // integer.
        Provenance::DataDependent {
            target, site, what, ..
        } if *what == super::REAL => Words {
            meaning: format!("the value of {target}"),
            site: Some(site),
            why: Some("it may not be an integer"),
            alias: target.clone(),
        },
        // The value of a scalar after branches that give it different values.
        Provenance::DataDependent {
            target, site, what, ..
        } if *what == super::MERGED || *what == super::COUNTER => Words {
            meaning: format!("the value of {target}"),
            site: Some(site),
            why: Some(what),
            alias: target.clone(),
        },
        Provenance::DataDependent { site, .. } if value => Words {
            meaning: "a number the program computes".into(),
            site: Some(site),
            why: None,
            alias: legend::UNKNOWN.into(),
        },
        // Minted for `n` subscripts (`component`): the last one spans extents
        // max(n, 2) and up (see `open_rank_view`).
        Provenance::DataDependent {
            component,
            site,
            what,
            ..
        } if *what == super::REPLICATION => Words {
            meaning: format!("the count repmat replicates dimension {} by", component + 1),
            site: Some(site),
            why: Some("computed from data"),
            alias: legend::UNKNOWN.into(),
        },
        Provenance::DataDependent {
            target,
            component,
            site,
            what,
        } if *what == super::TRAILING => Words {
            meaning: format!(
                "extents {} and up of {} multiplied together",
                (*component).max(2),
                of(target)
            ),
            site: Some(site),
            why: Some(what),
            alias: legend::UNKNOWN.into(),
        },
        Provenance::DataDependent {
            target,
            component,
            site,
            what,
        } => {
            let target = if context.defined.contains(&(site.stmt, target.clone())) {
                of(target)
            } else {
                INTERMEDIATE.to_string()
            };
            Words {
                meaning: match context.positions.get(symbol.name()) {
                    Some(position) => format!("{} of {target}", extent(*position)),
                    // Where an open case's extent stands is known only from its shape.
                    None if *what == super::OPEN_CASE => format!("an extent of {target}"),
                    None => format!("{} of {target}", extent(*component)),
                },
                site: Some(site),
                why: Some(what),
                alias: legend::UNKNOWN.into(),
            }
        }
        // At a loop, the iterations meet: one value per iteration, not a value of
        // the variable there (which may not even exist then).
        Provenance::Join {
            var,
            component,
            site,
        } if context.loops.contains(&StmtId(site.stmt)) => Words {
            meaning: format!("{} of {} in one iteration", extent(*component), of(var)),
            site: Some(site),
            why: Some("iterations of that loop give it different sizes"),
            alias: legend::UNKNOWN.into(),
        },
        Provenance::Join {
            var,
            component,
            site,
        } => Words {
            meaning: format!("{} of {}", extent(*component), of(var)),
            site: Some(site),
            why: Some("paths that give it different sizes meet there"),
            alias: legend::UNKNOWN.into(),
        },
        other => keep(other.to_string(), None),
    }
}
