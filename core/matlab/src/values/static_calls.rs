//! The calls between a file's functions as the text shows them, before any analysis:
//! which function each call statement names, which functions call each other in a
//! cycle (recursion, analysed as one unit to a fixed point), how long chains of calls
//! go, and the counts of arguments and outputs each function is called with.
//!
//! Everything here follows from the IR alone, so what the analysis does with it does
//! not depend on the order in which it meets the calls (the memo relies on it).

use crate::tame::{Function, FunctionKind, Stmt, StmtKind};
use std::collections::{HashMap, HashSet};

pub struct StaticCalls {
    /// Per function, the functions its call statements name (the first of each name).
    pub calls: Vec<Vec<usize>>,
    /// Per function, the recursive unit it belongs to: its strongly connected component
    /// of calls when that has a cycle (two functions calling each other, or one calling
    /// itself).
    pub unit: Vec<Option<usize>>,
    /// The members of each recursive unit, in file order.
    pub units: Vec<Vec<usize>>,
    /// Per function, the longest chain of calls below it, a unit counting once.
    pub height: Vec<usize>,
    /// Per function, the (arguments, outputs) its calls in the file pass and ask for,
    /// where both are known from the text (see [`spread_temporaries`]), sorted.
    pub counts: Vec<Vec<(usize, usize)>>,
}

impl StaticCalls {
    pub fn of(functions: &[Function], is_temp: &dyn Fn(&str) -> bool) -> StaticCalls {
        let index: HashMap<&str, usize> = functions
            .iter()
            .enumerate()
            .rev()
            .map(|(i, f)| (f.name.as_str(), i))
            .collect();
        let mut counts: Vec<Vec<(usize, usize)>> = vec![Vec::new(); functions.len()];
        let calls: Vec<Vec<usize>> = functions
            .iter()
            .map(|f| {
                let mut spread = HashSet::new();
                spread_temporaries(&f.body, is_temp, &mut spread);
                let mut out = Vec::new();
                call_sites(&f.body, &mut |name, args, targets| {
                    let Some(&i) = index.get(name) else { return };
                    out.push(i);
                    // A handle taken (`@g`): it may be called here or wherever it is
                    // passed, with counts the text does not show.
                    let Some(targets) = targets else { return };
                    let counted = f.kind != FunctionKind::Lambda
                        && !args.iter().chain(targets).any(|v| spread.contains(v));
                    if counted {
                        counts[i].push((args.len(), targets.len()));
                    }
                });
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect();
        for c in &mut counts {
            c.sort_unstable();
            c.dedup();
        }
        let component = components(&calls);
        let n_components = component.iter().map(|c| c + 1).max().unwrap_or(0);
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); n_components];
        for (f, &c) in component.iter().enumerate() {
            members[c].push(f);
        }
        let cyclic =
            |c: usize| members[c].len() > 1 || calls[members[c][0]].contains(&members[c][0]);
        // Components are numbered callees first (Tarjan's order): each one's height is
        // known from those below it.
        let mut component_height = vec![0usize; n_components];
        for c in 0..n_components {
            component_height[c] = members[c]
                .iter()
                .flat_map(|&f| &calls[f])
                .filter(|&&g| component[g] != c)
                .map(|&g| component_height[component[g]] + 1)
                .max()
                .unwrap_or(0);
        }
        let mut unit = vec![None; functions.len()];
        let mut units = Vec::new();
        for c in (0..n_components).filter(|&c| cyclic(c)) {
            for &f in &members[c] {
                unit[f] = Some(units.len());
            }
            units.push(members[c].clone());
        }
        StaticCalls {
            height: component.iter().map(|&c| component_height[c]).collect(),
            calls,
            unit,
            units,
            counts,
        }
    }
}

/// The strongly connected components of the call graph (Tarjan's algorithm, with an
/// explicit stack: a chain of thousands of functions must not exhaust the native one),
/// numbered in the order they complete, so a component's callees have lower numbers.
fn components(calls: &[Vec<usize>]) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let n = calls.len();
    let (mut index, mut low) = (vec![NONE; n], vec![0; n]);
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut component = vec![NONE; n];
    let (mut next, mut count) = (0, 0);
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&(v, i)) = work.last() {
            if let Some(&w) = calls[v].get(i) {
                if let Some(top) = work.last_mut() {
                    top.1 += 1;
                }
                if index[w] == NONE {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component[w] = count;
                    if w == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    component
}

/// What [`call_sites`] reports of each call: its function, arguments and targets
/// (`None` for a handle taken, `@g`).
type Found<'f> = dyn FnMut(&str, &[String], Option<&[String]>) + 'f;

/// Calls `found` with the name, arguments and targets of every call statement of
/// `stmts`, and with the name of every handle taken.
fn call_sites(stmts: &[Stmt], found: &mut Found) {
    for s in stmts {
        match &s.kind {
            StmtKind::Call {
                func,
                args,
                targets,
            } => found(func, args, Some(targets)),
            StmtKind::FuncHandle { func, .. } | StmtKind::Lambda { func, .. } => {
                found(func, &[], None)
            }
            _ => {}
        }
        for c in s.children() {
            call_sites(c, found);
        }
    }
}

/// Adds to `out` the temporaries of `stmts` that may hold a comma-separated list: read
/// from `c{…}` or `s.f` (`f(varargin{:})` passes any number of arguments), or stored
/// into one (`[c{:}] = f(x)` asks for any number of outputs). A call with one has
/// counts known only at run time.
pub fn spread_temporaries(
    stmts: &[Stmt],
    is_temp: &dyn Fn(&str) -> bool,
    out: &mut HashSet<String>,
) {
    for s in stmts {
        match &s.kind {
            StmtKind::CellGet { targets, .. } | StmtKind::DotGet { targets, .. } => {
                out.extend(targets.iter().filter(|t| is_temp(t)).cloned());
            }
            StmtKind::CellSet { rhs, .. } | StmtKind::DotSet { rhs, .. } if is_temp(rhs) => {
                out.insert(rhs.clone());
            }
            _ => {}
        }
        for c in s.children() {
            spread_temporaries(c, is_temp, out);
        }
    }
}

/// The temporaries that read an element only to assign into it (`ArrayGet` with
/// `update`): a nested assignment's write-back assigns them.
pub fn update_temporaries(stmts: &[Stmt], out: &mut HashSet<String>) {
    for s in stmts {
        if let StmtKind::ArrayGet {
            targets,
            update: true,
            ..
        } = &s.kind
        {
            out.extend(targets.iter().cloned());
        }
        for c in s.children() {
            update_temporaries(c, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::components;

    #[test]
    fn cycles_are_one_component_numbered_after_their_callees() {
        // 0 → 1 ⇄ 2 → 3, 4 → 4
        let calls = vec![vec![1], vec![2], vec![1, 3], vec![], vec![4]];
        let c = components(&calls);
        assert_eq!(c[1], c[2]);
        assert!(c[3] < c[1] && c[1] < c[0]);
        assert_ne!(c[4], c[0]);
    }
}
