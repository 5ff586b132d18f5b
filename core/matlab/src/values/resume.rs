//! Reuse inside one function (issue #19): an edit in a long script re-analyses from the
//! first top-level statement it changed, and stops once the analysis meets the last
//! run's again after the edit.
//!
//! A function is analysed one top-level statement at a time (each a [`Step`]), and the
//! whole state of the analysis is saved at every boundary between two: the flow state
//! (a persistent map, so saving it costs nothing), and the three things later
//! statements read besides it — the symbols minted so far (their records, table ids
//! and name counters), the loop studies stored so far and the simulation budget left.
//! Symbols and studies only grow while a function is analysed, so their state at a
//! boundary is a length of their logs ([`Boundary`]). What a step computes is a function
//! of that state, its statement, and the function's [context](context) (and, for a
//! statement that may change any variable, the list of the function's variables).
//!
//! **The prefix.** When the next version of the function has the same context and
//! starts with the same statements (equal IR, ids and byte offsets included), their
//! steps are kept, the state is put back exactly as it was at the boundary after them,
//! and the analysis goes on from there: every later result, every symbol's name and id,
//! is what a run from the top gives.
//!
//! **The suffix.** After the edit, the last run's statements come back moved: their
//! byte offsets by the edit ([`Edit`], from the two texts), their ids unchanged when the
//! edit added or removed no IR statement. A step's result reads byte offsets only as
//! labels (copied into results and into [`super::Value::origin`], compared for equality),
//! so a step run from a state and a statement both moved by a one-to-one, order-keeping
//! map of offsets gives the old step's result moved by that map. Symbols hold statement
//! ids, never offsets. So at a boundary after the edit where the new state equals the old
//! one moved (the flow state with every value's origin moved; the symbols minted since
//! the state put back equal, record by record; as many studies stored; the same budget
//! left) and the statement equals the old one moved (ids equal), the old step is taken,
//! moved, instead of analysed; and so on while the statements keep matching. Studies
//! are keyed by their loop's statement id and read only by the step holding that loop,
//! so a later step never reads one: their number is compared, not their content. A step
//! that read the function's variable list is taken only while that list is unchanged.
//! The ids are compared first; a failed meeting (or a step that cannot be taken) is
//! tried again after 1, 2, 4, … statements, so a change that never meets again (a new
//! variable, a new shape) costs a logarithmic number of comparisons of states, and an
//! edit that added or removed an IR statement none.
//! Moving a step's saved state would cost the whole state per step, so a kept step keeps
//! its state where it was and the moves to apply ([`Boundary::moves`]), applied only when
//! a later run resumes there.

use super::results::StmtResult;
use super::state::{StudyEntry, StudyKey, ValueAnalysis};
use super::{Env, SymbolHistory, Value};
use crate::flow::State;
use crate::tame::ir::walk_mut;
use crate::tame::{Function, Stmt};
use shapex_report::Diagnostic;
use shapex_text::Span;
use std::rc::Rc;

/// One edit between two texts: the old text's bytes `at..at + removed` replaced by
/// `inserted` bytes (the common prefix and suffix of the two are kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Edit {
    at: usize,
    removed: usize,
    inserted: usize,
}

impl Edit {
    /// The edit that turns `old` into `new`.
    pub fn between(old: &str, new: &str) -> Edit {
        let (a, b) = (old.as_bytes(), new.as_bytes());
        let (at, kept) = shapex_text::common_ends(a, b);
        Edit {
            at,
            removed: a.len() - at - kept,
            inserted: b.len() - at - kept,
        }
    }

    fn is_none(self) -> bool {
        self.removed == 0 && self.inserted == 0
    }

    /// Where an old span's first byte is now: before the edit it stays, after the
    /// removed bytes it moves; inside them it has no place.
    fn start(self, x: usize) -> Option<usize> {
        if x < self.at {
            Some(x)
        } else if x >= self.at + self.removed {
            Some(x - self.removed + self.inserted)
        } else {
            None
        }
    }

    /// Where an old span's end is now. An end at the edit stays (text typed after a
    /// statement is not in it); a pure deletion would send both its ends to one place,
    /// so an end just after the removed bytes has none then. With [`Edit::start`], the
    /// map of spans is one-to-one and keeps the order of starts and of ends.
    fn end(self, x: usize) -> Option<usize> {
        let deletion = self.inserted == 0 && self.removed > 0;
        if x <= self.at {
            Some(x)
        } else if x > self.at + self.removed || (x == self.at + self.removed && !deletion) {
            Some(x - self.removed + self.inserted)
        } else {
            None
        }
    }

    pub fn span(self, s: Span) -> Option<Span> {
        let (start, end) = (self.start(s.start)?, self.end(s.end)?);
        (start <= end).then(|| Span::new(start, end))
    }
}

/// Edits applied in order: where an older run's spans are in this run's text.
pub(super) type Moves = Rc<[Edit]>;

fn move_span(moves: &[Edit], s: Span) -> Option<Span> {
    moves.iter().try_fold(s, |s, e| e.span(s))
}

fn move_origin(moves: &[Edit], o: Option<Span>) -> Option<Option<Span>> {
    match o {
        Some(o) => move_span(moves, o).map(Some),
        None => Some(None),
    }
}

/// `v` and `w` are equal but for their origins.
fn same_but_origin(v: &Value, w: &Value) -> bool {
    let Value {
        class,
        shape,
        scalar,
        elems,
        max,
        text,
        number,
        open_rank,
        trailing,
        handle,
        closure,
        origin: _,
        cleared,
        integral,
        finite,
        parts,
        guard,
        one,
        union,
    } = v;
    *class == w.class
        && *shape == w.shape
        && *scalar == w.scalar
        && *elems == w.elems
        && *max == w.max
        && *text == w.text
        && *number == w.number
        && *open_rank == w.open_rank
        && *trailing == w.trailing
        && *handle == w.handle
        && *closure == w.closure
        && *cleared == w.cleared
        && *integral == w.integral
        && *finite == w.finite
        && *one == w.one
        // Parts hold no origins (`parts::as_part`).
        && *parts == w.parts
        && *union == w.union
        && *guard == w.guard
}

/// `new` equals `old` with its values' origins moved.
fn state_meets(new: &State<Env>, old: &State<Env>, moves: &[Edit]) -> bool {
    match (new, old) {
        (State::Nonviable, State::Nonviable) => true,
        (State::Reachable(n), State::Reachable(o)) => {
            n.facts == o.facts
                && n.vars.len() == o.vars.len()
                && n.vars
                    .iter()
                    .zip(o.vars.iter())
                    .all(|((nk, nv), (ok, ov))| {
                        nk == ok
                            && move_origin(moves, ov.origin).is_some_and(|m| m == nv.origin)
                            && same_but_origin(nv, ov)
                    })
        }
        _ => false,
    }
}

/// `state` with its values' origins moved; `None` when one has no place.
fn move_state(state: &State<Env>, moves: &[Edit]) -> Option<State<Env>> {
    let State::Reachable(env) = state else {
        return Some(State::Nonviable);
    };
    if moves.is_empty() {
        return Some(state.clone());
    }
    let mut moved = env.clone();
    for (name, v) in env.vars.iter() {
        let origin = move_origin(moves, v.origin)?;
        if origin != v.origin {
            moved.vars.insert(
                name.clone(),
                Value {
                    origin,
                    ..v.clone()
                },
            );
        }
    }
    Some(State::Reachable(moved))
}

/// `stmt` with every span moved by `edit`.
fn move_stmt(stmt: &Stmt, edit: Edit) -> Option<Stmt> {
    let mut moved = stmt.clone();
    let mut ok = true;
    let mut span = |s: Span| {
        edit.span(s).unwrap_or_else(|| {
            ok = false;
            s
        })
    };
    walk_mut(std::slice::from_mut(&mut moved), &mut |s| {
        s.span = span(s.span);
        s.origin = span(s.origin);
        s.operator = s.operator.map(&mut span);
    });
    ok.then_some(moved)
}

fn move_result(r: &StmtResult, edit: Edit) -> Option<StmtResult> {
    let mut r = r.clone();
    r.origin = edit.span(r.origin)?;
    r.span = edit.span(r.span)?;
    r.operator = match r.operator {
        Some(o) => Some(edit.span(o)?),
        None => None,
    };
    for (_, value) in &mut r.defs {
        value.origin = move_origin(&[edit], value.origin)?;
    }
    for (_, _, origin) in &mut r.effect.evidence {
        *origin = move_origin(&[edit], *origin)?;
    }
    for g in &mut r.glossary {
        g.site = move_origin(&[edit], g.site)?;
    }
    Some(r)
}

fn move_diagnostic(d: &Diagnostic, edit: Edit) -> Option<Diagnostic> {
    let mut d = d.clone();
    d.span = edit.span(d.span)?;
    if let Some(f) = &mut d.fix {
        f.span = edit.span(f.span)?;
    }
    Some(d)
}

/// The state of a function's analysis between two of its top-level statements.
#[derive(Clone)]
pub(super) struct Boundary {
    /// The flow state, with its values' origins where they were in the text of the run
    /// that computed it: [`Boundary::moves`] take them to this run's text.
    state: State<Env>,
    moves: Moves,
    /// Symbols minted so far ([`super::Symbols::mark`]).
    pub symbols: usize,
    /// Loop studies stored so far.
    pub studies: usize,
    /// Simulated iterations left.
    pub budget: usize,
}

impl Boundary {
    /// The analysis's state now, with the flow state `state`.
    pub fn now(a: &ValueAnalysis, state: State<Env>) -> Boundary {
        Boundary {
            state,
            moves: Rc::new([]),
            symbols: a.symbols.mark(),
            studies: a.studies.borrow().mark(),
            budget: a.simulation_budget.get(),
        }
    }

    /// The same boundary in a text `edit` made from this run's.
    fn moved(&self, edit: Edit) -> Boundary {
        let moves = if edit.is_none() {
            self.moves.clone()
        } else {
            self.moves.iter().copied().chain([edit]).collect()
        };
        Boundary {
            state: self.state.clone(),
            moves,
            ..*self
        }
    }

    /// The flow state in this run's text (`None` when an origin has no place there).
    fn state(&self) -> Option<State<Env>> {
        move_state(&self.state, &self.moves)
    }

    /// Puts `a` in this boundary's state of the run that left `trace`, and returns the
    /// flow state.
    fn restore(&self, a: &ValueAnalysis, trace: &Trace) -> Option<State<Env>> {
        let state = self.state()?;
        a.symbols.restore(&trace.symbols, self.symbols);
        a.studies.borrow_mut().restore(&trace.studies, self.studies);
        a.simulation_budget.set(self.budget);
        Some(state)
    }
}

/// One top-level statement's analysis.
pub(super) struct Step {
    pub stmt: Stmt,
    /// The state before it.
    pub before: Boundary,
    /// It read the function's variable list (a call that may change any variable).
    pub read_variables: bool,
    /// The results of it and the statements inside it, refined by its loops' studies,
    /// before the glossary (which reads the whole function) is filled.
    pub results: Vec<StmtResult>,
    /// Its loops' notes.
    pub diagnostics: Vec<Diagnostic>,
}

/// A function's analysis, step by step, as the next version of it may resume it.
pub struct Trace {
    context: String,
    /// The text the steps' spans are in.
    source: Rc<str>,
    variables: Vec<String>,
    pub(super) steps: Vec<Rc<Step>>,
    /// The state after the last statement.
    end: Boundary,
    symbols: Rc<SymbolHistory>,
    studies: Rc<Vec<(StudyKey, StudyEntry)>>,
    /// How many of the steps were kept from the trace this run resumed, before the edit.
    pub resumed: usize,
    /// How many were taken from it, moved, after the edit.
    pub moved: usize,
    /// How many times this run compared its state with the old run's.
    pub tries: usize,
}

impl Trace {
    /// The trace of the run that just analysed `f` (in the text `source`) in `steps`,
    /// ending in `end`: with what `a` minted and stored (which it takes), or, when the
    /// run ended with the old run's steps, the old run's logs (`end` is the old end).
    pub(super) fn new(
        a: &ValueAnalysis,
        f: &Function,
        context: String,
        source: Rc<str>,
        steps: Vec<Rc<Step>>,
        end: Result<Boundary, (Boundary, &Trace)>,
        (resumed, moved, tries): (usize, usize, usize),
    ) -> Trace {
        let (end, symbols, studies) = match end {
            Ok(end) => (
                end,
                Rc::new(a.symbols.take_history()),
                Rc::new(a.studies.borrow_mut().take_history()),
            ),
            // The logs are the old run's up to the boundary where they met (compared
            // there) and after it (what its steps minted and stored).
            Err((end, old)) => (end, old.symbols.clone(), old.studies.clone()),
        };
        Trace {
            resumed,
            moved,
            tries,
            context,
            source,
            variables: f.variables.clone(),
            steps,
            end,
            symbols,
            studies,
        }
    }

    /// The steps of this trace that `f` starts with, with the analysis put back in the
    /// state after them; `None` when there are none (then `a` is untouched).
    pub(super) fn resume(
        &self,
        a: &ValueAnalysis,
        f: &Function,
        context: &str,
    ) -> Option<(Vec<Rc<Step>>, State<Env>)> {
        if self.context != context {
            return None;
        }
        let same_variables = self.variables == f.variables;
        let kept = self
            .steps
            .iter()
            .zip(&f.body)
            .take_while(|(step, stmt)| {
                step.stmt == **stmt && (same_variables || !step.read_variables)
            })
            .count();
        if kept == 0 {
            return None;
        }
        let at = self.steps.get(kept).map_or(&self.end, |s| &s.before);
        let state = at.restore(a, self)?;
        Some((self.steps[..kept].to_vec(), state))
    }
}

/// Where the last run's steps after the edit are taken from (module docs).
pub(super) struct Suffix<'t> {
    old: &'t Trace,
    edit: Edit,
    same_variables: bool,
    /// How many more steps the old run had.
    shift: isize,
    /// The symbols the analysis holds now are the old run's up to this mark.
    same_symbols: usize,
    /// Met at the current boundary: the old steps are being taken.
    met: bool,
    /// The next statement at which to try to meet, and the wait after that.
    next_try: usize,
    wait: usize,
    /// Steps taken since the runs met.
    taken: usize,
    /// States compared with the old run's so far.
    pub tries: usize,
}

impl<'t> Suffix<'t> {
    /// `None` when `old` is of another context (nothing of it can be taken).
    pub fn new(
        old: &'t Trace,
        f: &Function,
        context: &str,
        source: &str,
        resumed: usize,
        a: &ValueAnalysis,
    ) -> Option<Suffix<'t>> {
        if old.context != context {
            return None;
        }
        let shift = old.steps.len() as isize - f.body.len() as isize;
        Some(Suffix {
            old,
            edit: Edit::between(&old.source, source),
            same_variables: old.variables == f.variables,
            shift,
            same_symbols: if resumed > 0 { a.symbols.mark() } else { 0 },
            met: false,
            next_try: resumed,
            wait: 1,
            taken: 0,
            tries: 0,
        })
    }

    /// The old step at the new statement `i`.
    fn old_index(&self, i: usize) -> Option<usize> {
        let j = usize::try_from(i as isize + self.shift).ok()?;
        (j < self.old.steps.len()).then_some(j)
    }

    /// Whether the analysis, in `state` before statement `i`, meets the old one before
    /// its step `j` (moved by the edit).
    fn meets(&mut self, a: &ValueAnalysis, j: usize, state: &State<Env>) -> bool {
        self.tries += 1;
        let before = self.old.steps[j].before.moved(self.edit);
        a.simulation_budget.get() == before.budget
            && a.studies.borrow().mark() == before.studies
            && a.symbols.mark() == before.symbols
            && a.symbols
                .same_as(&self.old.symbols, self.same_symbols, before.symbols)
            && state_meets(state, &before.state, &before.moves)
    }

    /// The old step `j` moved to stand for `stmt`, if it may.
    fn take(&self, j: usize, stmt: &Stmt) -> Option<Step> {
        let old = &self.old.steps[j];
        if old.read_variables && !self.same_variables {
            return None;
        }
        let moved = move_stmt(&old.stmt, self.edit)?;
        if moved != *stmt {
            return None;
        }
        let results = old
            .results
            .iter()
            .map(|r| move_result(r, self.edit))
            .collect::<Option<Vec<_>>>()?;
        let diagnostics = old
            .diagnostics
            .iter()
            .map(|d| move_diagnostic(d, self.edit))
            .collect::<Option<Vec<_>>>()?;
        Some(Step {
            stmt: moved,
            before: old.before.moved(self.edit),
            read_variables: old.read_variables,
            results,
            diagnostics,
        })
    }

    /// The old run's step, moved, for the new statement `i` in `state`, when the runs
    /// meet there; `Err` with the state to analyse it from when they met before but
    /// this step cannot be taken (the analysis is put back in the old run's state
    /// before it); `Ok(None)` when they do not meet.
    pub fn step(
        &mut self,
        a: &ValueAnalysis,
        i: usize,
        stmt: &Stmt,
        state: &State<Env>,
    ) -> Result<Option<Step>, Option<State<Env>>> {
        let Some(j) = self.old_index(i) else {
            return Ok(None);
        };
        if !self.met && i >= self.next_try {
            // Ids first: an edit that added or removed an IR statement never meets.
            self.met = self.old.steps[j].stmt.id == stmt.id && self.meets(a, j, state);
            if !self.met {
                self.next_try = i + self.wait;
                self.wait *= 2;
                return Ok(None);
            }
            self.taken = 0;
        }
        if !self.met {
            return Ok(None);
        }
        if let Some(step) = self.take(j, stmt) {
            self.taken += 1;
            return Ok(Some(step));
        }
        self.met = false;
        self.next_try = i + self.wait;
        self.wait *= 2;
        if self.taken == 0 {
            // Met here but nothing taken: the analysis is still where it was.
            return Ok(None);
        }
        let before = self.old.steps[j].before.moved(self.edit);
        self.same_symbols = before.symbols;
        Err(before.restore(a, self.old))
    }

    /// After the last statement: when the old run's last steps were taken, its end
    /// (moved) and the old run.
    pub fn ended_with(&self) -> Option<(Boundary, &'t Trace)> {
        self.met.then(|| (self.old.end.moved(self.edit), self.old))
    }
}

/// Everything a function's steps depend on besides their statements and the function's
/// variables: the mode, the temporaries' prefix, the function's name, kind, parameters
/// and outputs, the file's functions (calls to them are not builtins) and which of them
/// write into their caller, what nested functions sharing this one's workspace may change of it, the
/// globals it declares anywhere, and which other files' functions a call with an
/// argument that may be an object does not run (`tame::link`).
pub(super) fn context(a: &ValueAnalysis, f: &Function) -> String {
    let mut dispatched: Vec<&String> = a.dispatched.iter().collect();
    dispatched.sort_unstable();
    format!(
        "{}|{}|{}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}",
        a.mode.as_str(),
        a.temp_prefix,
        f.name,
        f.kind,
        f.parent,
        f.params,
        f.outputs,
        a.user_functions,
        a.reaches_caller,
        a.nesting.shared_writes(&f.name),
        a.globals.borrow(),
        dispatched,
        a.entry_of(f).map(|c| &c.key),
    )
}
