//! Loop study: the first iterations of a loop simulated one by one, without joins.
//!
//! The fixed point of the flow framework joins every iteration into one fact, so a
//! variable that is `<1,1>` on entry and `<3,4>` afterwards becomes `<a~1,a~2>`, and
//! Joisha's Example 4 (§9: "a can change shape only at the first iteration") can no
//! longer be proven. Simulating iterations 1, 2, … exactly recovers it: when the
//! variables stop changing (or the loop provably ends) the simulated iterations are all
//! the iterations there are. The same simulation finds Figure 7's failure in the second
//! iteration (§12), and the per-iteration shapes give the preallocation hints of
//! Figures 7–8.

use super::results::{collect, StmtResult};
use super::transfer::ValueAnalysis;
use super::{widened_extent, Env};
use crate::dims::Truth;
use crate::flow::{self, Analysis, State};
use crate::shape::Notation;
use crate::tame::{ForIter, Function, Stmt, StmtId, StmtKind, Var};

/// How many iterations are simulated before falling back to the fixed point alone.
pub const SIMULATED_ITERATIONS: usize = 8;

/// One loop's simulated iterations.
pub struct LoopStudy {
    /// Per simulated iteration, the results of every statement of the body.
    pub iterations: Vec<Vec<StmtResult>>,
    /// Whether iteration `j` certainly runs (known trip count or a condition that folds).
    pub certain: Vec<bool>,
    /// The variables on entry and after each simulated iteration.
    pub entry: Env,
    pub exits: Vec<Env>,
    /// True when the simulated iterations are all there are (the state stopped changing
    /// or the loop provably ended), so their results are exact.
    pub settled: bool,
    /// Statements at the top level of the body (they run whenever the iteration runs).
    pub top_level: Vec<StmtId>,
}

/// An analysis that starts from a given environment instead of a function's entry.
struct Seeded<'a, 'b> {
    inner: &'a ValueAnalysis<'b>,
    seed: Env,
}

impl Analysis for Seeded<'_, '_> {
    type Fact = Env;

    fn entry(&self, _: &Function) -> Env {
        self.seed.clone()
    }
    fn join(&self, a: &Env, b: &Env) -> Env {
        self.inner.join(a, b)
    }
    fn transfer(&self, stmt: &Stmt, input: &Env) -> State<Env> {
        self.inner.transfer(stmt, input)
    }
    fn branch(&self, stmt: &Stmt, cond: &Var, taken: bool, input: &Env) -> State<Env> {
        self.inner.branch(stmt, cond, taken, input)
    }
    fn for_iteration(&self, s: &Stmt, v: &Var, it: &ForIter, input: &Env) -> State<Env> {
        self.inner.for_iteration(s, v, it, input)
    }
}

/// Runs `body` from `seed` as if it were a function body.
fn run_block(
    a: &ValueAnalysis,
    template: &Function,
    body: &[Stmt],
    seed: Env,
) -> (flow::FlowResult<Env>, Function) {
    // Only the body matters to the framework: copying the enclosing function's other
    // statements for every simulated iteration made long programs quadratic.
    let func = Function {
        name: template.name.clone(),
        kind: template.kind,
        parent: None,
        params: vec![],
        outputs: vec![],
        body: body.to_vec(),
        variables: vec![],
        span: template.span,
    };
    let seeded = Seeded { inner: a, seed };
    (flow::analyze_function(&seeded, &func), func)
}

/// Simulates loop `stmt` from `entry`; `None` for loops it cannot simulate faithfully
/// (bodies that jump out with break/continue/return).
pub fn study(
    a: &ValueAnalysis,
    template: &Function,
    is_temp: &dyn Fn(&str) -> bool,
    stmt: &Stmt,
    entry: &Env,
) -> Option<LoopStudy> {
    let (header, cond, body): (&[Stmt], Option<&Var>, &[Stmt]) = match &stmt.kind {
        StmtKind::For { body, .. } => (&[], None, body),
        StmtKind::While { header, cond, body } => (header, Some(cond), body),
        _ => return None,
    };
    if jumps(body) {
        return None;
    }
    let trips = match &stmt.kind {
        StmtKind::For { iter, .. } => trip_count(entry, iter),
        _ => None,
    };
    let mut study = LoopStudy {
        iterations: vec![],
        certain: vec![],
        entry: entry.clone(),
        exits: vec![],
        settled: false,
        top_level: body.iter().map(|s| s.id).collect(),
    };
    let mut env = entry.clone();
    let mut certain = true;
    for j in 1..=SIMULATED_ITERATIONS {
        if trips.is_some_and(|n| j as i64 > n) {
            study.settled = true;
            break;
        }
        // The iteration's start: the loop variable bound, or the condition evaluated.
        let start = match &stmt.kind {
            StmtKind::For { var, iter, .. } => a.for_iteration(stmt, var, iter, &env),
            _ => {
                let (flow, _) = run_block(a, template, header, env.clone());
                let Some(after) = flow.exit.fact().cloned() else {
                    break;
                };
                match after.get(cond?).and_then(|v| v.scalar.as_ref()?.as_known()) {
                    Some(0) => {
                        study.settled = true;
                        break;
                    }
                    Some(_) => {}
                    None => certain = false,
                }
                State::Reachable(after)
            }
        };
        certain &= trips.is_some() || matches!(stmt.kind, StmtKind::While { .. });
        let Some(start) = start.fact().cloned() else {
            break;
        };
        let (flow, func) = run_block(a, template, body, start);
        let mut results = Vec::new();
        collect(a, is_temp, &flow, &func.body, &mut results);
        study.iterations.push(results);
        study.certain.push(certain);
        let Some(exit) = flow.exit.fact().cloned() else {
            study.settled = true;
            break;
        };
        let unchanged = exit.vars == env.vars;
        study.exits.push(exit.clone());
        env = exit;
        if unchanged {
            study.settled = true;
            break;
        }
    }
    Some(study)
}

/// Whether `stmts` contain a break/continue/return that leaves this loop body.
fn jumps(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Break | StmtKind::Continue | StmtKind::Return => true,
        // Inner loops own their break/continue, but a return still leaves.
        StmtKind::For { body, .. } | StmtKind::While { body, .. } => returns(body),
        _ => s.children().iter().any(|c| jumps(c)),
    })
}

fn returns(stmts: &[Stmt]) -> bool {
    stmts
        .iter()
        .any(|s| matches!(s.kind, StmtKind::Return) || s.children().iter().any(|c| returns(c)))
}

/// The number of iterations of a `for` loop, when the range or array is known.
fn trip_count(env: &Env, iter: &ForIter) -> Option<i64> {
    match iter {
        ForIter::Range { lower, step, upper } => {
            let val = |v: &Var| env.get(v)?.scalar.as_ref()?.as_known();
            let (lo, hi) = (val(lower)?, val(upper)?);
            let st = match step {
                Some(s) => val(s)?,
                None => 1,
            };
            if st == 0 {
                return Some(0);
            }
            Some(((hi - lo) / st + 1).max(0))
        }
        ForIter::Columns(v) => {
            let t = env.get(v)?.shape.as_tuple()?.all_known()?;
            Some(t[1..].iter().product())
        }
    }
}

/// Per-variable shape history across the simulated iterations, for the loop note.
pub fn shape_history(
    study: &LoopStudy,
    is_temp: &dyn Fn(&str) -> bool,
) -> Vec<(String, Vec<String>)> {
    // Only what the body assigns can change: scanning the whole environment for every
    // loop would make long programs quadratic.
    let mut names: Vec<&String> = study
        .iterations
        .iter()
        .flatten()
        .flat_map(|r| r.defs.iter().map(|(n, _)| n))
        .filter(|n| !is_temp(n))
        .collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .map(|n| {
            let show = |e: &Env| {
                e.get(n).map_or("undefined".to_string(), |v| {
                    v.shape.display(Notation::Paper)
                })
            };
            let mut h = vec![show(&study.entry)];
            h.extend(study.exits.iter().map(show));
            (n.clone(), h)
        })
        .collect()
}

/// Joins the per-iteration results of one statement into one.
pub fn combine(results: &[&StmtResult]) -> Option<StmtResult> {
    let viable: Vec<&&StmtResult> = results.iter().filter(|r| r.viable).collect();
    let last: &StmtResult = match viable.last() {
        Some(r) => r,
        None => results.last()?,
    };
    let mut combined = last.clone();
    for r in &viable {
        for (name, value) in &r.defs {
            if let Some((_, v)) = combined.defs.iter_mut().find(|(n, _)| n == name) {
                *v = v.join(value, &mut |k| widened_extent(name, k));
            }
        }
    }
    // The check is the worst over the iterations: one that needs a run-time check
    // makes the statement need it, even if later iterations are proven.
    let rank = |r: &StmtResult| {
        r.effect
            .outcomes
            .iter()
            .map(|o| match o.status {
                Truth::Refuted => 3,
                Truth::Unknown => 2,
                Truth::Proven => 1,
            })
            .max()
            .unwrap_or(0)
    };
    if let Some(worst) = viable.iter().max_by_key(|r| rank(r)) {
        if rank(worst) > rank(&combined) {
            combined.effect = worst.effect.clone();
            combined.before = worst.before.clone();
        }
    }
    combined.viable = !viable.is_empty();
    Some(combined)
}
