//! The state of the value analysis: what every function's analysis reads (the
//! program's) and what the analysis of one function builds up (its symbols, simulation
//! budget, loop studies and steps), which [`ValueAnalysis::prepare`] resets.

use super::nesting::{Nesting, SharedWrites};
use super::results::{Context, CtxResult, Effect, LoopStudy};
use super::static_calls::{spread_temporaries, update_temporaries, StaticCalls};
use super::{Env, Symbols, Value};
use crate::builtins::BuiltinTable;
use crate::flow::State;
use crate::shape::Shape;
use crate::tame::{Function, Program, Stmt, StmtId, StmtKind};
use crate::Mode;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// Statements (counted once per simulated iteration, inner loops included, each
/// weighed by the facts it starts from: `loops::SPLIT_WEIGHT_PER_STATEMENT`) that one
/// analysis may simulate in all: nested counted loops multiply, and past this the fixed
/// point, which is sound, takes over.
pub const SIMULATION_BUDGET: usize = 5_000;

/// The value analysis of one program. Its fields are of two kinds: the program's,
/// read by the analysis of every function, and the function's being analysed, which
/// [`ValueAnalysis::prepare`] resets (so analysing a callee in the middle of its caller
/// must save and restore them).
pub struct ValueAnalysis<'a> {
    // The program's.
    pub builtins: &'a BuiltinTable,
    pub mode: Mode,
    /// Names of the functions defined in the analysed file (calls to them are not
    /// builtins; until the interprocedural analysis lands their results are unknown).
    pub user_functions: Vec<String>,
    /// The lowering's temporary prefix: temporaries never name symbolic values.
    pub temp_prefix: String,
    /// What nested functions may change of the workspace each function of a tree of
    /// nested functions shares with them.
    pub nesting: Rc<Nesting>,
    /// Other files' functions a call with an argument that may be an object may not
    /// run (`tame::link::Linked::dispatched`).
    pub dispatched: Rc<HashSet<String>>,
    /// Whether the statements analysed carry witnesses ([`super::StmtResult::settle`]):
    /// set for the file's own functions when the options ask for them, never for a
    /// callee analysed in context (its lines show no witness).
    pub witness: bool,
    /// The file's functions that may change their caller's workspace
    /// (`assignin('caller', …)`, `evalin('caller', …)`): after a call to one, no
    /// variable of the caller is known.
    pub reaches_caller: Vec<String>,
    /// The functions of the file as callees: which are analysed in their calling
    /// contexts, and the results of those analyses so far.
    pub callees: Rc<Callees<'a>>,
    /// The context of the function being analysed when it is analysed for a caller
    /// (`None` when it is analysed for the report, its inputs symbolic).
    pub frame: Option<Frame>,
    /// The entry point the user named: that function of the file is analysed for the
    /// report from these arguments instead of symbolic ones.
    pub entry: Option<Rc<EntryPoint>>,
    // The function's being analysed.
    /// The unknowns minted so far (fresh per statement and simulated iteration).
    pub symbols: Symbols,
    /// Simulated loop iterations left (see `loops`): a bound on the whole program's
    /// simulation cost, beyond which loops fall back to the fixed point alone.
    pub simulation_budget: std::cell::Cell<usize>,
    /// Loop studies by loop and iteration context, with the entry they started from.
    pub studies: std::cell::RefCell<StudyCache>,
    /// The function being analysed, without its body (what a simulated block needs).
    pub template: std::cell::RefCell<Option<Function>>,
    /// The names the function being analysed declares `global`.
    pub globals: std::cell::RefCell<Vec<String>>,
    /// Every variable of the function being analysed (the lowering's kind analysis).
    pub variables: std::cell::RefCell<Vec<String>>,
    /// Set when a statement reads [`ValueAnalysis::variables`] (a call that may
    /// change any variable): its result then depends on every variable the function
    /// has, not only on its own text (see `values::resume`).
    pub read_variables: std::cell::Cell<bool>,
    /// The last step the flow took at each statement (see [`ValueAnalysis::step_again`]).
    pub stepped: std::cell::RefCell<std::collections::HashMap<StmtId, Stepped>>,
    /// The statements of the function being analysed that are in a loop's body: a
    /// call there may run with many argument values, so its context keeps only their
    /// pattern (`contexts::Level`).
    pub in_loop: RefCell<HashSet<StmtId>>,
    /// The temporaries of the function being analysed that may hold a
    /// comma-separated list: read from `c{…}` or `s.f` (`f(varargin{:})` passes any
    /// number of arguments), or stored into one (`[c{:}] = f(x)` asks for any number
    /// of outputs). A call with one has counts known only at run time.
    pub spread: RefCell<HashSet<String>>,
    /// The temporaries of the function being analysed that read an element only to
    /// assign into it (`s(k).f = v` reads `s(k)`, sets its field, writes it back).
    pub updated: RefCell<HashSet<String>>,
    /// The placeholders [`ValueAnalysis::bind`] has named in the statement being
    /// stepped, so its conditions name them alike (`transfer`'s `name_placeholders`).
    pub named: RefCell<Vec<(String, shapex_dims::Dim)>>,
}

/// The user's entry point, resolved to a function of the file.
#[derive(Debug)]
pub struct EntryPoint {
    pub func: String,
    pub context: Context,
}

/// A function analysed for a caller: how it was called.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub nargin: usize,
    pub nargout: usize,
    /// What its own calls' contexts get (see `contexts::DISPLAY_FUEL`).
    pub fuel: u8,
}

/// The most functions a chain of calls analysed in context may nest: a callee whose
/// longest chain of calls below is longer gets unknown results (its analysis runs on
/// the stack of its caller's).
pub const MAX_HEIGHT: usize = 24;

/// Results by (function, context key).
pub type Nodes = HashMap<(usize, String), Rc<CtxResult>>;

/// The file's functions as callees, shared by the analysis of every function and
/// context of one run.
pub struct Callees<'a> {
    pub functions: &'a [Function],
    pub statics: StaticCalls,
    /// Per function: analysed in context (see [`Callees::of`]).
    pub in_context: Vec<bool>,
    /// Results by (function, context key).
    pub cache: RefCell<Nodes>,
    /// The contexts being analysed, outermost first: one asked again while open is a
    /// recursion the static call graph missed, and gets unknown results.
    pub open: RefCell<Vec<(usize, String)>>,
    /// The recursive units being solved, innermost last: each with its nodes' results
    /// of the previous round, which its members' calls of each other read.
    pub rounds: RefCell<Vec<(usize, Nodes)>>,
    /// Analyses `functions[i]` in a context (`program::analyze_context`; function
    /// pointers keep the layers of `values` acyclic).
    pub analyze: fn(&ValueAnalysis<'a>, usize, &Context) -> CtxResult,
    /// Solves recursive unit `u` (`program::solve_unit`), filling `cache`.
    pub solve: fn(&ValueAnalysis<'a>, usize),
}

impl<'a> ValueAnalysis<'a> {
    /// The analysis of `program`'s functions by `table`'s rules in `mode`, before any
    /// of them is analysed (each is [prepared](ValueAnalysis::prepare) first).
    pub(super) fn new(
        program: &'a Program,
        table: &'a BuiltinTable,
        mode: Mode,
        analyze: fn(&ValueAnalysis<'a>, usize, &Context) -> CtxResult,
        solve: fn(&ValueAnalysis<'a>, usize),
    ) -> Self {
        let is_temp = |n: &str| crate::tame::ir::is_temp(&program.temp_prefix, n);
        let root = ValueAnalysis::assemble(
            table,
            mode,
            Rc::new(Callees::of(&program.functions, &is_temp, analyze, solve)),
            None,
        );
        let reaches_caller: Vec<String> = program
            .functions
            .iter()
            .filter(|f| writes_into_caller(f))
            .map(|f| f.name.clone())
            .collect();
        ValueAnalysis {
            user_functions: program.functions.iter().map(|f| f.name.clone()).collect(),
            temp_prefix: program.temp_prefix.clone(),
            nesting: Rc::new(Nesting::of(&program.functions, table, &reaches_caller)),
            reaches_caller,
            ..root
        }
    }

    /// An analysis with the program's rules and callees, its program fields empty and
    /// its function's fields fresh (what [`ValueAnalysis::prepare`] resets).
    fn assemble(
        builtins: &'a BuiltinTable,
        mode: Mode,
        callees: Rc<Callees<'a>>,
        frame: Option<Frame>,
    ) -> Self {
        ValueAnalysis {
            builtins,
            mode,
            user_functions: Vec::new(),
            temp_prefix: String::new(),
            nesting: Default::default(),
            dispatched: Default::default(),
            witness: false,
            reaches_caller: Vec::new(),
            callees,
            frame,
            entry: None,
            symbols: Default::default(),
            simulation_budget: std::cell::Cell::new(SIMULATION_BUDGET),
            studies: Default::default(),
            template: Default::default(),
            globals: Default::default(),
            variables: Default::default(),
            read_variables: Default::default(),
            stepped: Default::default(),
            in_loop: Default::default(),
            spread: Default::default(),
            updated: Default::default(),
            named: Default::default(),
        }
    }

    /// Puts the analysis in the state every function's analysis starts from: its own
    /// symbols, the whole simulation budget, no studies. So a function's result depends
    /// on its own text alone and can be reused while other functions are edited (see
    /// `memo`).
    pub(super) fn prepare(&self, f: &Function) {
        *self.template.borrow_mut() = Some(Function {
            name: f.name.clone(),
            kind: f.kind,
            parent: None,
            params: vec![],
            outputs: vec![],
            body: vec![],
            variables: vec![],
            span: f.span,
        });
        self.symbols.clear();
        self.simulation_budget.set(SIMULATION_BUDGET);
        self.studies.borrow_mut().clear();
        self.stepped.borrow_mut().clear();
        *self.globals.borrow_mut() = declared_globals(&f.body);
        *self.variables.borrow_mut() = f.variables.clone();
        let mut in_loop = self.in_loop.borrow_mut();
        in_loop.clear();
        loop_bodies(&f.body, false, &mut in_loop);
        let mut spread = self.spread.borrow_mut();
        spread.clear();
        spread_temporaries(&f.body, &|v| self.is_temp(v), &mut spread);
        let mut updated = self.updated.borrow_mut();
        updated.clear();
        update_temporaries(&f.body, &mut updated);
    }

    /// An analysis of a callee in context `frame`: the program's fields shared, the
    /// function's fresh (it is [prepared](ValueAnalysis::prepare) next).
    pub(super) fn child(&self, frame: Frame) -> ValueAnalysis<'a> {
        ValueAnalysis {
            user_functions: self.user_functions.clone(),
            temp_prefix: self.temp_prefix.clone(),
            nesting: self.nesting.clone(),
            dispatched: self.dispatched.clone(),
            reaches_caller: self.reaches_caller.clone(),
            ..ValueAnalysis::assemble(self.builtins, self.mode, self.callees.clone(), Some(frame))
        }
    }
}

impl<'a> Callees<'a> {
    /// Which of `functions` are analysed in context: not a script, not a nested
    /// function or the parent of one (they share a workspace), and with a chain of
    /// calls below no longer than [`MAX_HEIGHT`]. A recursive one is analysed as its
    /// unit's fixed point.
    fn of(
        functions: &'a [Function],
        is_temp: &dyn Fn(&str) -> bool,
        analyze: fn(&ValueAnalysis<'a>, usize, &Context) -> CtxResult,
        solve: fn(&ValueAnalysis<'a>, usize),
    ) -> Callees<'a> {
        let statics = StaticCalls::of(functions, is_temp);
        let shares = |f: &Function| {
            let nested = crate::tame::FunctionKind::Nested;
            f.kind == nested
                || functions
                    .iter()
                    .any(|g| g.kind == nested && g.parent.as_deref() == Some(f.name.as_str()))
        };
        let in_context = functions
            .iter()
            .zip(&statics.height)
            .map(|(f, &h)| {
                matches!(
                    f.kind,
                    crate::tame::FunctionKind::Primary
                        | crate::tame::FunctionKind::Subfunction
                        | crate::tame::FunctionKind::Lambda
                ) && !shares(f)
                    && h <= MAX_HEIGHT
            })
            .collect();
        Callees {
            functions,
            statics,
            in_context,
            cache: Default::default(),
            open: Default::default(),
            rounds: Default::default(),
            analyze,
            solve,
        }
    }

    /// The function a call of `name` runs, when it is analysed in context (the first
    /// of that name, as MATLAB takes).
    pub fn callee(&self, name: &str) -> Option<usize> {
        let i = self.functions.iter().position(|f| f.name == name)?;
        self.in_context[i].then_some(i)
    }
}

/// Adds to `out` the statements of `stmts` in a loop's body (`inside`: `stmts` is one).
fn loop_bodies(stmts: &[Stmt], inside: bool, out: &mut HashSet<StmtId>) {
    for s in stmts {
        if inside {
            out.insert(s.id);
        }
        let is_loop = matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. });
        for c in s.children() {
            loop_bodies(c, inside || is_loop, out);
        }
    }
}

impl ValueAnalysis<'_> {
    /// What nested functions sharing the workspace of the function being analysed
    /// may change of it (any call may run one); `None` when none shares it.
    pub fn shared_writes(&self) -> Option<SharedWrites> {
        let template = self.template.borrow();
        self.nesting
            .shared_writes(&template.as_ref()?.name)
            .cloned()
    }

    /// Takes `cost` from the simulation budget; false (and nothing taken) when too
    /// little is left.
    pub fn spend_simulation(&self, cost: usize) -> bool {
        let left = self.simulation_budget.get();
        if left < cost {
            return false;
        }
        self.simulation_budget.set(left - cost);
        true
    }

    /// The join at merge point `site`; at a loop's head (`head`), a variable defined on
    /// the back edge only keeps its class and known parts but not the symbols the body
    /// minted: in the next iteration the same statements mint them again for new values.
    pub fn join_at_site(&self, site: StmtId, head: bool, a: &Env, b: &Env) -> Env {
        let fresh = |name: &str, k: usize| self.symbols.mint(&format!("{name}~j"), k, site, false);
        let dead = |name: &str| self.is_temp(name);
        let mut env = a.join_dropping(b, &fresh, &dead);
        if head {
            // Only what differs: `diff` skips the subtrees both maps share, so a loop
            // head costs what the body changed, not the size of the environment.
            for item in a.vars.diff(&b.vars) {
                if let imbl::ordmap::DiffItem::Add(name, v) = item {
                    if dead(name) {
                        continue;
                    }
                    env.vars
                        .insert(name.clone(), v.forget_symbols(&|k| fresh(name, k)));
                }
            }
        }
        env
    }

    pub fn is_temp(&self, name: &str) -> bool {
        crate::tame::ir::is_temp(&self.temp_prefix, name)
    }

    /// The entry point's context when `f` is the function it names.
    pub fn entry_of(&self, f: &Function) -> Option<&Context> {
        let e = self.entry.as_ref()?;
        (e.func == f.name && f.kind != crate::tame::FunctionKind::Lambda).then_some(&e.context)
    }

    /// The fact at function entry: parameters of unknown shape and rank.
    pub fn entry(&self, func: &Function) -> Env {
        let mut env = Env::default();
        for p in &func.params {
            let shape = Shape::tuple(vec![
                self.symbols.input_extent(p, 0),
                self.symbols.input_extent(p, 1),
            ]);
            let value = Value {
                open_rank: true,
                trailing: Some(self.symbols.input_extent(p, 2)),
                ..Value::of_shape(None, shape)
            };
            env.vars.insert(p.clone(), value);
        }
        env
    }
}

/// `f` calls `assignin` or `evalin` (whatever the workspace it names: a name known
/// only at run time may be `'caller'`), so a call to `f` may change its caller's
/// variables.
fn writes_into_caller(f: &Function) -> bool {
    fn any(stmts: &[Stmt]) -> bool {
        stmts.iter().any(|s| {
            matches!(&s.kind, StmtKind::Call { func, .. } if matches!(func.as_str(), "assignin" | "evalin"))
                || s.children().into_iter().any(any)
        })
    }
    any(&f.body)
}

/// The names declared `global` anywhere in `stmts`.
fn declared_globals(stmts: &[Stmt]) -> Vec<String> {
    let mut out = Vec::new();
    for s in stmts {
        if let StmtKind::Global(vars) = &s.kind {
            out.extend(vars.iter().cloned());
        }
        for c in s.children() {
            out.extend(declared_globals(c));
        }
    }
    out
}

/// A loop and the simulated iterations around it.
pub type StudyKey = (StmtId, Vec<u32>);
/// A loop's study and the entry it started from.
pub type StudyEntry = (Env, Option<std::rc::Rc<LoopStudy>>);

/// Loop studies by loop and iteration context, and the order they were stored in: the
/// cache as it was at any earlier point is a replay of a prefix of that log (see
/// `values::resume`).
#[derive(Default)]
pub struct StudyCache {
    map: std::collections::HashMap<StudyKey, StudyEntry>,
    log: Vec<(StudyKey, StudyEntry)>,
}

impl StudyCache {
    pub fn get(&self, key: &StudyKey) -> Option<&StudyEntry> {
        self.map.get(key)
    }

    pub fn insert(&mut self, key: StudyKey, entry: StudyEntry) {
        self.log.push((key.clone(), entry.clone()));
        self.map.insert(key, entry);
    }

    pub fn clear(&mut self) {
        self.map.clear();
        self.log.clear();
    }

    /// How many studies have been stored: a point to [`StudyCache::restore`] to.
    pub fn mark(&self) -> usize {
        self.log.len()
    }

    /// Every study stored, taken out: the cache is cleared.
    pub fn take_history(&mut self) -> Vec<(StudyKey, StudyEntry)> {
        self.map.clear();
        std::mem::take(&mut self.log)
    }

    /// The cache as it was when `history`'s run stood at `mark`.
    pub fn restore(&mut self, history: &[(StudyKey, StudyEntry)], mark: usize) {
        self.clear();
        for (key, entry) in &history[..mark.min(history.len())] {
            self.insert(key.clone(), entry.clone());
        }
    }
}

/// The last step the flow took at a statement: what [`ValueAnalysis::step_again`]
/// gives back instead of computing it a second time.
pub struct Stepped {
    pub(super) input: Env,
    pub(super) path: Vec<u32>,
    pub(super) out: State<Env>,
    pub(super) effect: Effect,
}
