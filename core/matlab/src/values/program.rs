//! Running the value analysis over a whole program: each function analysed on its own,
//! one top-level statement at a time, and the results collected per IR statement.

use super::contexts;
use super::gloss;
use super::loops;
use super::memo::FunctionMemo;
use super::results::{
    Context, ContextLine, CtxResult, Exit, Failure, FunctionResult, ProgramResult, StmtResult,
};
use super::resume::{self, Boundary, Step, Trace};
use super::state::{EntryPoint, Frame, Nodes, ValueAnalysis};
use super::transfer::collect;
use super::{Env, Value};
use crate::builtins::BuiltinTable;
use crate::entry::Entry;
use crate::flow::{self, State};
use crate::shape::{Notation, Shape};
use crate::tame::link::{Linked, Origin};
use crate::tame::{Function, Program, Stmt};
use crate::Mode;
use shapex_dims::{Dim, Truth};
use shapex_text::Span;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// Analyses every function of `program` (each on its own, inputs symbolic).
pub fn analyze_program(program: &Program, table: &BuiltinTable, mode: Mode) -> ProgramResult {
    analyze_program_with(program, table, mode, &mut FunctionMemo::default())
}

/// [`analyze_program`], reusing from `memo` the result of every function whose analysis
/// cannot have changed since `memo` last saw it (and remembering this run's for the
/// next). The result is the same as without the memo.
pub fn analyze_program_with(
    program: &Program,
    table: &BuiltinTable,
    mode: Mode,
    memo: &mut FunctionMemo,
) -> ProgramResult {
    analyze_program_in(program, "", table, mode, memo)
}

/// [`analyze_program_with`] for the program lowered from `source`: knowing the text,
/// an edit inside a function also keeps the analysis of its statements after the edit
/// (moved), from where the analysis meets the last run's again (`values::resume`).
pub fn analyze_program_in(
    program: &Program,
    source: &str,
    table: &BuiltinTable,
    mode: Mode,
    memo: &mut FunctionMemo,
) -> ProgramResult {
    let own = program.functions.len();
    let linked = Own {
        program,
        own,
        origins: &Origins::new(),
        dispatched: Rc::default(),
        entry: None,
        witness: false,
    };
    analyze_own(&linked, source, table, mode, memo)
}

/// The files of functions outside the analysed one, by name.
type Origins = HashMap<String, Rc<Origin>>;

/// [`analyze_program_in`] of the file whose program `linked` extends with the
/// functions of the other files it calls: the file's own functions are analysed (the
/// one `entry` names from its arguments), the others only in the contexts they are
/// called in. With `witness`, each run-time check and definite error of the file's
/// statements carries its witness ([`StmtResult::witnesses`]).
pub fn analyze_linked(
    linked: &Linked,
    entry: Option<&Entry>,
    source: &str,
    table: &BuiltinTable,
    (mode, witness): (Mode, bool),
    memo: &mut FunctionMemo,
) -> ProgramResult {
    let own = Own {
        program: &linked.program,
        own: linked.own,
        origins: &linked.origins,
        dispatched: Rc::new(linked.dispatched.clone()),
        entry,
        witness,
    };
    analyze_own(&own, source, table, mode, memo)
}

/// What [`analyze_own`] analyses: the first `own` functions of `program` (the file's),
/// the others' origins and which of them an object's method may stand in for, and the
/// entry point the user named, and whether to find witnesses.
struct Own<'p> {
    program: &'p Program,
    own: usize,
    origins: &'p Origins,
    dispatched: Rc<HashSet<String>>,
    entry: Option<&'p Entry>,
    witness: bool,
}

/// Analyses the file's functions, calling the others in context.
fn analyze_own(
    linked: &Own,
    source: &str,
    table: &BuiltinTable,
    mode: Mode,
    memo: &mut FunctionMemo,
) -> ProgramResult {
    let program = linked.program;
    let source: Rc<str> = Rc::from(source);
    let mut analysis = ValueAnalysis::new(program, table, mode, analyze_context, solve_unit);
    analysis.dispatched = linked.dispatched.clone();
    analysis.witness = linked.witness;
    analysis.entry = linked.entry.and_then(|e| {
        let f = program.functions[..linked.own]
            .iter()
            .find(|f| f.name == e.func && f.kind != crate::tame::FunctionKind::Lambda)?;
        Some(Rc::new(EntryPoint {
            func: f.name.clone(),
            context: contexts::entry(e, f.outputs.len()),
        }))
    });
    let (all, own) = (&program.functions, linked.own);
    let mut functions: Vec<Rc<FunctionResult>> = memo.run(&analysis, all, own, |f, old| {
        match analysis.entry_of(f) {
            // The entry point runs as if called: `nargin` is known, and a path stops
            // at its first error.
            Some(ctx) => {
                let mut called = analysis.child(Frame {
                    nargin: ctx.args.len(),
                    nargout: ctx.nargout,
                    fuel: contexts::DISPLAY_FUEL.saturating_add(1),
                });
                called.entry = analysis.entry.clone();
                called.witness = analysis.witness;
                analyze_function(&called, program, f, &source, old)
            }
            None => analyze_function(&analysis, program, f, &source, old),
        }
    });
    resolve_failures(program, linked.origins, &mut functions);
    let diagnostics = functions
        .iter()
        .flat_map(|f| f.diagnostics.iter().cloned())
        .collect();
    ProgramResult {
        functions,
        diagnostics,
    }
}

/// Places the failing statements of callees that call sites report (stored relative
/// to the callee, so that a caller's result stays valid while its callee moves) at
/// where each callee now is.
fn resolve_failures(program: &Program, origins: &Origins, functions: &mut [Rc<FunctionResult>]) {
    let place_of = |name: &str, stmt: crate::tame::StmtId| {
        let span = program
            .functions
            .iter()
            .find(|f| f.name == name)
            .and_then(|f| {
                let first = f.body.first()?.id.0;
                statement(&f.body, crate::tame::StmtId(first.wrapping_add(stmt.0)))
            })
            .map_or_else(Span::default, |s| s.span);
        (span, origins.get(name).cloned())
    };
    // Only a result with a callee's failure is changed (and so copied from the memo's).
    let failing = |f: &FunctionResult| f.statements.iter().any(|s| s.effect.callee.is_some());
    let changed = functions.iter_mut().filter(|f| failing(f));
    for s in changed.flat_map(|f| Rc::make_mut(f).statements.iter_mut()) {
        if let Some(failure) = &s.effect.callee {
            s.effect.callee = Some(Rc::new(contexts::placed(failure, &place_of)));
        }
    }
}

/// The statement of `stmts` (or of the blocks in them) with id `id`.
fn statement(stmts: &[Stmt], id: crate::tame::StmtId) -> Option<&Stmt> {
    stmts.iter().find_map(|s| {
        if s.id == id {
            return Some(s);
        }
        s.children().into_iter().find_map(|c| statement(c, id))
    })
}

/// Analyses `f` (in the text `source`), resuming `old` (the trace of an earlier
/// version of it) from the first top-level statement that changed, and taking its
/// steps after the edit once the analysis meets it again (see `resume`); the result is
/// the same either way.
pub(super) fn analyze_function(
    a: &ValueAnalysis,
    program: &Program,
    f: &Function,
    source: &Rc<str>,
    old: Option<&Trace>,
) -> (FunctionResult, Trace) {
    let is_temp = |n: &str| program.is_temp(n);
    a.prepare(f);
    let context = resume::context(a, f);
    let trace = match run_steps(a, &is_temp, f, &context, source, old) {
        Some(trace) => trace,
        // An origin of the old run had no place in this text after all: from the top.
        None => {
            a.prepare(f);
            run_steps(a, &is_temp, f, &context, source, None)
                .expect("a run without an old trace takes nothing from it")
        }
    };
    let mut statements: Vec<StmtResult> = trace
        .steps
        .iter()
        .flat_map(|s| s.results.iter().cloned())
        .collect();
    let diagnostics = trace
        .steps
        .iter()
        .flat_map(|s| s.diagnostics.iter().cloned())
        .collect();
    // A reader never saw a temporary, nor the stem a rule falls back on when the target
    // is one (`t~c`, `ans~`): both are "an intermediate result" to them.
    let unseen =
        |n: &str| is_temp(n) || f.variables.binary_search_by(|v| v.as_str().cmp(n)).is_err();
    gloss::gloss_all(&f.body, &unseen, &mut statements);
    statements.iter_mut().for_each(|s| s.settle(a.witness));
    let result = FunctionResult {
        name: f.name.clone(),
        statements,
        diagnostics,
    };
    (result, trace)
}

/// The steps of `f`: the old trace's before the edit, then analysed, then (once the
/// analysis meets the old one again) the old trace's moved. `None` when a state of the
/// old run could not be moved to this text.
fn run_steps(
    a: &ValueAnalysis,
    is_temp: &dyn Fn(&str) -> bool,
    f: &Function,
    context: &str,
    source: &Rc<str>,
    old: Option<&Trace>,
) -> Option<Trace> {
    let (mut steps, mut state) = match old.and_then(|t| t.resume(a, f, context)) {
        Some(resumed) => resumed,
        None => (Vec::new(), State::Reachable(start(a, f))),
    };
    let resumed = steps.len();
    let mut suffix = old.and_then(|t| resume::Suffix::new(t, f, context, source, resumed, a));
    let mut moved = 0;
    for (i, stmt) in f.body.iter().enumerate().skip(resumed) {
        if let Some(sfx) = &mut suffix {
            match sfx.step(a, i, stmt, &state) {
                Ok(Some(taken)) => {
                    steps.push(Rc::new(taken));
                    moved += 1;
                    continue;
                }
                Ok(None) => {}
                Err(restored) => state = restored?,
            }
        }
        let (step, after) = step(a, is_temp, stmt, state);
        steps.push(Rc::new(step));
        state = after;
    }
    // Ending with the old run's steps, the analysis ends in its end, moved.
    let end = match suffix.as_ref().and_then(|s| s.ended_with()) {
        Some(old) => Err(old),
        None => Ok(Boundary::now(a, state)),
    };
    Some(Trace::new(
        a,
        f,
        context.to_string(),
        source.clone(),
        steps,
        end,
        (resumed, moved, suffix.map_or(0, |s| s.tries)),
    ))
}

/// The state `f`'s analysis starts from: its parameters symbolic, or as the entry
/// point names them.
fn start(a: &ValueAnalysis, f: &Function) -> Env {
    match a.entry_of(f) {
        Some(ctx) => entry_in(a, f, ctx).0,
        None => a.entry(f),
    }
}

/// Analyses the top-level statement `stmt` from `state`: its step, and the state after
/// it.
fn step(
    a: &ValueAnalysis,
    is_temp: &dyn Fn(&str) -> bool,
    stmt: &Stmt,
    state: State<Env>,
) -> (Step, State<Env>) {
    let before = Boundary::now(a, state.clone());
    a.read_variables.set(false);
    // Nothing the step before left behind (its loops' simulations) is kept: a run
    // resumed here starts without it too.
    a.stepped.borrow_mut().clear();
    let flow = flow::analyze_statement(a, stmt, state);
    let after = flow
        .after
        .get(&stmt.id)
        .cloned()
        .unwrap_or(State::Nonviable);
    let mut results = Vec::new();
    collect(a, is_temp, &flow, std::slice::from_ref(stmt), &mut results);
    // What the flow stepped through is needed no longer: its results are collected.
    a.stepped.borrow_mut().clear();
    let diagnostics = loops::refine(a, is_temp, stmt, &flow, &mut results);
    let step = Step {
        stmt: stmt.clone(),
        before,
        read_variables: a.read_variables.get(),
        results,
        diagnostics,
    };
    (step, after)
}

/// Function `i` analysed in `ctx`: the analysis, its flow, the statements' results
/// (loops refined by their studies, as for the report: a failure on some iteration is
/// then the statement that stops every run) and the extents the `$k` became.
fn in_context<'a>(
    parent: &ValueAnalysis<'a>,
    i: usize,
    ctx: &Context,
) -> (
    ValueAnalysis<'a>,
    flow::FlowResult<Env>,
    Vec<StmtResult>,
    Vec<Dim>,
) {
    let f = &parent.callees.functions[i];
    let a = parent.child(Frame {
        nargin: ctx.args.len(),
        nargout: ctx.nargout,
        fuel: ctx.fuel,
    });
    a.prepare(f);
    let (entry, inputs) = entry_in(&a, f, ctx);
    let flow = flow::analyze_function(&a, f, entry);
    let is_temp = |n: &str| a.is_temp(n);
    let mut results = Vec::new();
    collect(&a, &is_temp, &flow, &f.body, &mut results);
    for stmt in &f.body {
        let first = results.iter().position(|r| r.id == stmt.id).unwrap_or(0);
        loops::refine(&a, &is_temp, stmt, &flow, &mut results[first..]);
    }
    (a, flow, results, inputs)
}

/// The analysis of the contexts a report shows (issue #22 item 8: the call graph's
/// context vertices), one for all of them: the contexts their calls reach are analysed
/// once and cached, where a fresh analysis per context redid every call below it (in a
/// chain of 200 functions, each shown context re-analysed the 24 levels of calls under
/// it). A context's result is a function of the callee's text and the context alone
/// (`contexts`), so sharing the cache changes no line.
pub struct ContextLines<'a> {
    analysis: ValueAnalysis<'a>,
}

impl<'a> ContextLines<'a> {
    pub fn new(linked: &'a Linked, table: &'a BuiltinTable, mode: Mode) -> Self {
        let mut analysis =
            ValueAnalysis::new(&linked.program, table, mode, analyze_context, solve_unit);
        analysis.dispatched = Rc::new(linked.dispatched.clone());
        ContextLines { analysis }
    }

    /// What function `callee` does in `ctx`, line by line: each source statement it
    /// reaches with the shapes of the variables it assigns there, and `fails` or
    /// `run-time check` when its check is not proven. Spans are in the callee's file.
    pub fn lines(&self, callee: &str, ctx: &Context) -> Vec<ContextLine> {
        context_lines_in(&self.analysis, callee, ctx)
    }
}

fn context_lines_in(analysis: &ValueAnalysis, callee: &str, ctx: &Context) -> Vec<ContextLine> {
    let Some(i) = analysis
        .callees
        .functions
        .iter()
        .position(|f| f.name == callee)
    else {
        return Vec::new();
    };
    let (a, _, results, _) = in_context(analysis, i, ctx);
    let mut out: Vec<ContextLine> = Vec::new();
    for r in results.iter().filter(|r| r.viable) {
        let shown = r
            .defs
            .iter()
            .filter(|(name, _)| !a.is_temp(name))
            .map(|(name, v)| format!("{name} {}", v.shape.display(Notation::Paper)));
        let status = if r.effect.outcomes.iter().any(|o| o.status == Truth::Refuted) {
            Some("fails")
        } else if r.effect.outcomes.iter().any(|o| o.status != Truth::Proven) {
            Some("run-time check")
        } else {
            None
        };
        let line = match out.last_mut().filter(|l| l.origin == r.origin) {
            Some(line) => line,
            None => {
                out.push(ContextLine {
                    origin: r.origin,
                    shapes: Vec::new(),
                    status: None,
                });
                out.last_mut().expect("just pushed")
            }
        };
        line.shapes.extend(shown);
        line.status = match (line.status, status) {
            (Some("fails"), _) | (_, Some("fails")) => Some("fails"),
            (a, b) => a.or(b),
        };
    }
    out
}

/// Analyses function `i` of the file for a caller, in context `ctx` (see `contexts`):
/// its body from the canonical arguments, each path stopping at its first error (as
/// MATLAB does); its outputs, or why no run returns, over `$k` and `#j`.
fn analyze_context<'a>(parent: &ValueAnalysis<'a>, i: usize, ctx: &Context) -> CtxResult {
    let f = &parent.callees.functions[i];
    let (_, flow, results, inputs) = in_context(parent, i, ctx);
    // A call with no check of its own (a function not known, a builtin without a shape
    // rule, one an object's method may stand in for) may fail for all the analysis
    // knows: the context is then not proven.
    let mut unchecked = HashSet::new();
    call_statements(&f.body, &mut unchecked);
    let proven = results.iter().filter(|r| r.viable).all(|r| {
        let checked = !(r.effect.outcomes.is_empty() && unchecked.contains(&r.id));
        checked && r.effect.outcomes.iter().all(|o| o.status == Truth::Proven)
    });
    let mut own = Vec::new();
    let State::Reachable(exit) = &flow.exit else {
        let exit = match results.iter().find(|r| r.viable && fails(r)) {
            Some(root) => Exit::Fails(Rc::new(failure(f, ctx, root, &inputs, &mut own))),
            None => Exit::Never,
        };
        return CtxResult {
            outputs: vec![Value::unknown(); ctx.nargout],
            exit,
            proven,
        };
    };
    let outputs = (0..ctx.nargout)
        .map(|k| match f.outputs.get(k).filter(|o| *o != "varargout") {
            Some(o) => exit.get(o).map_or_else(Value::unknown, |v| {
                contexts::normalized(v, &inputs, &mut own)
            }),
            None => Value::unknown(),
        })
        .collect();
    CtxResult {
        outputs,
        exit: Exit::Returns,
        proven,
    }
}

/// The call statements of `stmts` and of the blocks in them.
fn call_statements(stmts: &[Stmt], out: &mut HashSet<crate::tame::StmtId>) {
    for s in stmts {
        if matches!(s.kind, crate::tame::StmtKind::Call { .. }) {
            out.insert(s.id);
        }
        for c in s.children() {
            call_statements(c, out);
        }
    }
}

fn fails(r: &StmtResult) -> bool {
    r.effect.outcomes.iter().any(|o| o.status == Truth::Refuted)
}

/// Why `f` fails in `ctx`: its statement `root` (over the callee's symbols, `inputs`
/// standing for the `$k`).
fn failure(
    f: &Function,
    ctx: &Context,
    root: &StmtResult,
    inputs: &[Dim],
    own: &mut Vec<Dim>,
) -> Failure {
    let below = root
        .effect
        .callee
        .as_ref()
        .map(|b| Rc::new(contexts::normalized_failure(b, inputs, own)));
    let rule = match &below {
        Some(b) => b.rule,
        None => root
            .effect
            .outcomes
            .iter()
            .find(|o| o.status == Truth::Refuted)
            .map(|o| o.rule)
            .expect("a failing statement has a refuted outcome"),
    };
    let shape =
        |s: &Shape| contexts::normalized(&Value::of_shape(None, s.clone()), inputs, own).shape;
    let operands = root.effect.operands.iter().map(shape).collect();
    let first = f.body.first().map_or(0, |s| s.id.0);
    Failure {
        func: f.name.clone(),
        anonymous: f.kind == crate::tame::FunctionKind::Lambda,
        args: ctx
            .args
            .iter()
            .map(|v| (v.class, v.shape.clone()))
            .collect(),
        stmt: crate::tame::StmtId(root.id.0.wrapping_sub(first)),
        span: Span::default(),
        rule,
        op: root.effect.op.clone(),
        operands,
        below,
        file: None,
    }
}

/// The state `f` starts from in `ctx`: each parameter bound to its argument, the
/// context's `$k` named as the inputs' extents where each first occurs (`x_1`), an
/// input not passed undefined, and `varargin` a cell of the arguments past the named
/// ones. Also those extents, in `$k` order.
fn entry_in(a: &ValueAnalysis, f: &Function, ctx: &Context) -> (Env, Vec<Dim>) {
    let mut inputs: Vec<Option<Dim>> = Vec::new();
    let mut env = Env::default();
    let variadic = f.params.last().is_some_and(|p| p == "varargin");
    let fixed = f.params.len() - usize::from(variadic);
    for (i, p) in f.params.iter().enumerate() {
        let value = if variadic && i == fixed {
            let rest = ctx.args.get(fixed..).unwrap_or_default();
            let extra = i64::try_from(rest.len()).unwrap_or(i64::MAX);
            // Its elements are the arguments, anonymous: their `$k` are not bound.
            let each = rest.iter().map(super::parts::anonymous).collect();
            Value {
                parts: (rest.len() <= super::parts::MAX_PARTS)
                    .then(|| Rc::new(super::parts::Parts::Each(each))),
                ..Value::of_shape(
                    Some("cell"),
                    Shape::tuple(vec![Dim::one(), Dim::known(extra)]),
                )
            }
        } else if let Some(v) = ctx.args.get(i) {
            bind_inputs(a, p, v, &mut inputs)
        } else {
            Value::cleared()
        };
        env.vars.insert(p.clone(), value);
    }
    let inputs: Vec<Dim> = inputs
        .into_iter()
        .map(|d| d.expect("every $k occurs in an argument"))
        .collect();
    // The entry point's bounds (`double[1x:10]`) hold from the start.
    for (k, max) in &ctx.bounds {
        if let Some(d) = inputs.get(k - 1) {
            env.facts
                .assume(&shapex_dims::Constraint::le(d, &Dim::known(*max)));
        }
    }
    (env, inputs)
}

/// `v` (canonical) as parameter `p`'s value: each `$k` as the extent of `p` where it
/// first occurs, recorded in `inputs`.
fn bind_inputs(a: &ValueAnalysis, p: &str, v: &Value, inputs: &mut Vec<Option<Dim>>) -> Value {
    let mut extent = |d: &Dim, component: usize| {
        let Some(k) = d.as_atom().and_then(|at| match at {
            shapex_dims::Atom::Sym(s) => s.name().strip_prefix('$')?.parse::<usize>().ok(),
            _ => None,
        }) else {
            return d.clone();
        };
        if inputs.len() < k {
            inputs.resize(k, None);
        }
        inputs[k - 1]
            .get_or_insert_with(|| a.symbols.input_extent(p, component))
            .clone()
    };
    let (shape, rank) = match v.shape.as_tuple() {
        Some(t) => (
            Shape::tuple(
                t.dims()
                    .iter()
                    .enumerate()
                    .map(|(c, d)| extent(d, c))
                    .collect(),
            ),
            t.rank(),
        ),
        None => (v.shape.clone(), 2),
    };
    // A scalar of an integer class holds an integer: its value is a symbol, so the
    // comparisons the program makes of it bound what it sizes (`if n > 10, error(…),
    // end`). Not a double's, which may be any number.
    let integer = v.class.is_some_and(|c| super::INTEGER_CLASSES.contains(&c));
    let scalar = match &v.scalar {
        None if integer && shape == Shape::scalar() => Some(a.symbols.input_value(p)),
        s => s.clone(),
    };
    Value {
        shape,
        trailing: v.trailing.as_ref().map(|d| extent(d, rank)),
        scalar,
        ..v.clone()
    }
}

/// The round from which a node of a recursive unit whose result still changes is given
/// the top result (unknown outputs, may return): the widening that ends the iteration.
const WIDEN_FROM: usize = 4;

/// Solves recursive unit `u` (`static_calls`): every member in context, once per
/// counts it is called with in the file ([`contexts::top`]), analysed round after round
/// from nothing returning, each round's calls between members reading the previous
/// round's results, until no result changes. A result still changing from round
/// [`WIDEN_FROM`] becomes the top one, which stays: the rounds end. Each node's
/// sequence of results depends only on the nodes it reaches, so its fixed point does
/// not depend on which call asked first.
fn solve_unit(a: &ValueAnalysis, u: usize) {
    let callees = &a.callees;
    let nodes: Vec<(usize, usize, usize)> = callees.statics.units[u]
        .iter()
        .filter(|&&f| callees.in_context[f])
        .flat_map(|&f| {
            callees.statics.counts[f]
                .iter()
                .map(move |&(nargin, nargout)| (f, nargin, nargout))
        })
        .collect();
    let mut previous = Nodes::new();
    for round in 1.. {
        callees.rounds.borrow_mut().push((u, previous.clone()));
        let mut next = Nodes::new();
        for &(f, nargin, nargout) in &nodes {
            let ctx = contexts::top(nargin, nargout);
            let key = (f, ctx.key.clone());
            let mut result = Rc::new(analyze_context(a, f, &ctx));
            if round >= WIDEN_FROM && previous.get(&key) != Some(&result) {
                result = Rc::new(CtxResult {
                    outputs: vec![Value::unknown(); nargout],
                    exit: Exit::Returns,
                    proven: false,
                });
            }
            next.insert(key, result);
        }
        callees.rounds.borrow_mut().pop();
        if next == previous {
            break;
        }
        previous = next;
    }
    callees.cache.borrow_mut().extend(previous);
}
