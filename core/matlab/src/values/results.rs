//! What the value analysis finds, per IR statement, function and program: what the
//! Report shows (the values a statement defines, the outcome of its shape rules,
//! whether it is reachable), what a statement did ([`Effect`]), a loop's simulated
//! iterations ([`LoopStudy`]) and what a shown symbol stands for ([`Gloss`]).
//!
//! Types only, and the leaf of the module: every other file of `values` may use them,
//! and they use nothing of `values` but `Value` and `Env` (in `mod.rs`).

use super::{Env, Value};
use crate::flow::State;
use crate::shape::{Outcome, RuleInfo, Shape};
use crate::tame::StmtId;
use crate::Mode;
use shapex_dims::{Constraint, Facts, Truth, Witness};
use shapex_report::{CheckStatus, Diagnostic};
use shapex_text::Span;
use std::rc::Rc;

/// The analysis result of one IR statement.
#[derive(Clone, Debug)]
pub struct StmtResult {
    pub id: StmtId,
    /// The source statement this IR statement was lowered from.
    pub origin: Span,
    /// The span of the expression it computes.
    pub span: Span,
    /// For a binary operator, the source between its operands (see `tame::Stmt`).
    pub operator: Option<Span>,
    /// False when no execution reaches it (after a definite error, …).
    pub viable: bool,
    /// The variables it assigns with their values afterwards (a definite error leaves
    /// them illegal, π).
    pub defs: Vec<(String, Value)>,
    /// Per def (same order), the upper bounds of its extents that the facts after
    /// the statement prove ([`Value::upper_bounds`]): `None` when none is bounded.
    pub bounds: Vec<Bounds>,
    pub effect: Effect,
    /// The extent facts in force before the statement, for simplifying its condition
    /// (only the facts: variables' values before it are not kept). Dropped by
    /// [`StmtResult::settle`] once the function's analysis is complete.
    pub facts_before: Option<Facts>,
    /// Per outcome of `effect` (same order), θ as it remains to be checked at run time
    /// given `facts_before`, for a run-time check (`None` otherwise: θ itself is shown).
    /// Filled by [`StmtResult::settle`].
    pub residuals: Vec<Option<Constraint>>,
    /// Per outcome of `effect` (same order), for a run-time check or a definite error:
    /// sizes under which it fails and under which it passes, given `facts_before`
    /// (`shapex_dims::witness`). Filled by [`StmtResult::settle`].
    pub witnesses: Vec<Option<Witness>>,
    /// For a result taken from a simulated loop iteration: which one (1-based), and the
    /// loop variable's value in it when known (`t = 3`).
    pub iteration: Option<(usize, Option<String>)>,
    /// What the symbols in its shapes and conditions stand for (filled once the
    /// function's analysis is complete).
    pub glossary: Vec<Gloss>,
}

impl StmtResult {
    /// Computes `residuals` (and, with `witness`, `witnesses`: each a search, which
    /// costs as much again as the analysis over a corpus, so only when asked for) and
    /// drops `facts_before`: once per analysis of the
    /// function, not once per report the memo reuses its result for (simplifying every
    /// run-time check of a 10,000-line file on each keystroke cost a sixth of it), and
    /// a kept result no longer holds a copy of the facts per statement.
    pub fn settle(&mut self, witness: bool) {
        let facts = self.facts_before.take();
        self.witnesses = self
            .effect
            .outcomes
            .iter()
            .map(|o| match (&facts, o.check()) {
                (Some(f), CheckStatus::Runtime | CheckStatus::Error) if witness && self.viable => {
                    Some(shapex_dims::witness(f, &o.theta))
                }
                _ => None,
            })
            .collect();
        self.residuals = self
            .effect
            .outcomes
            .iter()
            .map(|o| match (&facts, o.check()) {
                (Some(f), CheckStatus::Runtime) => Some(f.simplify(&o.theta)),
                _ => None,
            })
            .collect();
    }
}

impl StmtResult {
    /// This result with its id given by `id` and each span it holds by `to`; `None`
    /// when `to` has no image for one. The one list of a result's spans, for the memo
    /// that moves a kept result (`values::memo`).
    pub fn map_spans(
        &self,
        id: impl Fn(StmtId) -> StmtId,
        to: impl Fn(Span) -> Option<Span>,
    ) -> Option<StmtResult> {
        let to_opt = |s: Option<Span>| s.map(&to).map_or(Some(None), |s| s.map(Some));
        let mut s = self.clone();
        s.id = id(s.id);
        s.origin = to(s.origin)?;
        s.span = to(s.span)?;
        s.operator = to_opt(s.operator)?;
        for (_, value) in &mut s.defs {
            value.origin = to_opt(value.origin)?;
        }
        for (_, _, origin) in &mut s.effect.evidence {
            *origin = to_opt(*origin)?;
        }
        for g in &mut s.glossary {
            g.site = to_opt(g.site)?;
        }
        Some(s)
    }
}

/// Upper bounds of a value's extents, one per extent of its tuple (a known extent is
/// its own bound, `None` an unbounded one); `None` when no symbolic extent is bounded.
pub type Bounds = Option<Vec<Option<i64>>>;

#[derive(Clone, Debug)]
pub struct FunctionResult {
    pub name: String,
    pub statements: Vec<StmtResult>,
    /// Loop notes and possible later-iteration failures of this function's loops.
    pub diagnostics: Vec<Diagnostic>,
}

impl FunctionResult {
    /// [`StmtResult::map_spans`] over every statement and diagnostic.
    pub fn map_spans(
        &self,
        id: impl Fn(StmtId) -> StmtId,
        to: impl Fn(Span) -> Option<Span>,
    ) -> Option<FunctionResult> {
        let statements = self.statements.iter().map(|s| s.map_spans(&id, &to));
        let diagnostics = self.diagnostics.iter().map(|d| {
            let fix = match &d.fix {
                Some(f) => Some(shapex_report::Fix {
                    span: to(f.span)?,
                    ..f.clone()
                }),
                None => None,
            };
            Some(Diagnostic {
                span: to(d.span)?,
                fix,
                ..d.clone()
            })
        });
        Some(FunctionResult {
            name: self.name.clone(),
            statements: statements.collect::<Option<_>>()?,
            diagnostics: diagnostics.collect::<Option<_>>()?,
        })
    }
}

pub struct ProgramResult {
    /// The analysed file's functions (not the other files' it calls).
    /// Shared with the memo (`values::memo`): a function's result that neither changed
    /// nor moved is the last run's.
    pub functions: Vec<Rc<FunctionResult>>,
    /// Loop notes and possible later-iteration failures (spans cover the whole loop).
    pub diagnostics: Vec<Diagnostic>,
}

/// What one statement did: the shape outcomes it applied (for the check status, the
/// condition θ and the rule) and whether execution continues after it.
#[derive(Clone, Debug, Default)]
pub struct Effect {
    pub outcomes: Vec<Outcome>,
    /// Operands' shapes, for error messages (`<3,2>`, `<4,4>`).
    pub operands: Vec<Shape>,
    /// The callee or operation (`mtimes`, `index`, …).
    pub op: String,
    /// The named variables among the operands, with their shapes and the statements
    /// those came from: a definite error's evidence.
    pub evidence: Vec<(String, Shape, Option<shapex_text::Span>)>,
    pub diverges: bool,
    /// When the statement fails by the rules of the analysed mode but not by those of
    /// the other one: that mode, and whether it proves the statement (`Proven`) or
    /// leaves it to run time (`Unknown`). A definite error then says it is one of
    /// the semantics only (MATLAB 5 rejects `[1 2 3] + [1; 2]`, R2016b+ broadcasts).
    pub other_mode: Option<(Mode, Truth)>,
    /// When a matrix operator (`*`, `/`, `\`, `^`) fails but its element-wise
    /// counterpart conforms without expansion (same shapes, or a scalar): that
    /// counterpart's builtin (`times`). The classic slip a fix offers to undo.
    pub elementwise: Option<&'static str>,
    /// When `a * b` fails, neither conforms element-wise, but the product with one
    /// operand transposed would: which (0 left, 1 right), for a hint.
    pub transposed: Option<usize>,
    /// A bare call (`setup;`) of a name that is no builtin nor function of the file:
    /// maybe a script, which runs in this workspace, so every variable was forgotten.
    pub maybe_script: bool,
    /// A call of a function of the file that fails in this context: why, in the
    /// callee's words (over this statement's symbols).
    pub callee: Option<Rc<Failure>>,
    /// A call of a function of the file with more arguments or targets than it has
    /// inputs or outputs: MATLAB's error.
    pub arity: Option<Arity>,
    /// A builtin call that fails for its operands' classes (`int8(1) + int16(2)`):
    /// the two operands' classes, for the message.
    pub classes: Option<[&'static str; 2]>,
    /// A call of a function of the file analysed in its context: which, for the call
    /// graph's context vertices.
    pub context: Option<Rc<CallContext>>,
}

/// A call's context as the call graph shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct CallContext {
    /// The function called (its IR name).
    pub callee: String,
    /// The callee with the arguments' classes and shapes at the call
    /// (`gram(double <3,4>)`; an anonymous function as `@(…)`).
    pub label: String,
    /// What the context says of the call: `proven`, `run-time check`, `fails`,
    /// `never returns`.
    pub verdict: &'static str,
    /// The context itself (`None` for a recursive function's one context), to show
    /// the callee analysed in it (`program::context_lines`).
    pub context: Option<Rc<Context>>,
}

/// More arguments (`inputs`) or targets than the function called declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arity {
    pub inputs: bool,
    /// The function called is an anonymous function (its name is the lowering's).
    pub anonymous: bool,
    pub given: usize,
    pub declared: usize,
}

/// One loop's simulated iterations.
pub struct LoopStudy {
    /// Per simulated iteration, the results of every statement of the body.
    pub iterations: Vec<Vec<StmtResult>>,
    /// Whether iteration `j` certainly runs (known trip count or a condition that folds).
    pub certain: Vec<bool>,
    /// Per simulated iteration, the loop variable's value when it is known (`t = 3`).
    pub bindings: Vec<Option<String>>,
    /// The variables on entry and after each simulated iteration.
    pub entry: Env,
    pub exits: Vec<Env>,
    /// True when the simulated iterations are all there are (the state stopped changing
    /// or the loop provably ended), so their results are exact.
    pub settled: bool,
    /// The state after the loop when every iteration was simulated and each certainly
    /// ran: then the code after the loop continues from it, not from the fixed point.
    pub exact_exit: Option<State<Env>>,
    /// Statements at the top level of the body (they run whenever the iteration runs).
    pub top_level: Vec<StmtId>,
}

/// One symbol a statement shows: its name, what it stands for, the source statement it
/// comes from when it has one, and how faces should show it.
#[derive(Clone, Debug, PartialEq)]
pub struct Gloss {
    pub name: String,
    /// What it stands for, in a student's words, without where: "rows of c", "the
    /// value of n".
    pub meaning: String,
    /// The statement whose run makes it known.
    pub site: Option<Span>,
    /// Which simulated iteration of a loop (" in iteration 2 of the loop"), or empty.
    pub iteration: String,
    /// Why it is unknown before then, when that is more than "it is computed there"
    /// ("the check there passes for more than one size").
    pub why: Option<&'static str>,
    /// What alias to give it (`shapex_report::legend::{KEEP, UNKNOWN}` or a variable
    /// for another value of it): names the user wrote or can read (`n`, `x_1`) are
    /// kept; what the analysis invented (`c~c1`, `a~j1`, `n#2`) gets a short alias.
    pub alias: String,
}

/// A calling context: the canonical arguments, the number of outputs asked for, and
/// the fuel the callee's own calls get. `key` identifies it (values hold floats, so it
/// is their printed form, as memo keys are).
#[derive(Clone, Debug)]
pub struct Context {
    pub args: Vec<Value>,
    pub nargout: usize,
    pub fuel: u8,
    pub key: String,
    /// `$k ≤ n` for each `(k, n)`: the bounds the entry point names (`double[1x:10]`);
    /// none for a call's context (a caller's bounds are not carried into it).
    pub bounds: Vec<(usize, i64)>,
}

/// One source statement of a function analysed in a context (`program::context_lines`).
#[derive(Clone, Debug, PartialEq)]
pub struct ContextLine {
    /// The statement, in the function's file.
    pub origin: Span,
    /// `y <4,4>` for each variable it assigns.
    pub shapes: Vec<String>,
    /// `fails` or `run-time check` when its check is not proven.
    pub status: Option<&'static str>,
}

/// Contexts are the same when their keys are (the key prints everything else).
impl PartialEq for Context {
    fn eq(&self, other: &Context) -> bool {
        self.key == other.key
    }
}

/// What a function does when called in a context.
#[derive(Clone, Debug, PartialEq)]
pub struct CtxResult {
    /// The outputs asked for (unknown past those the function assigns), over `$k`
    /// and `#j` only.
    pub outputs: Vec<Value>,
    pub exit: Exit,
    /// Every check of every statement the context reaches is proven: the call cannot
    /// fail on shapes.
    pub proven: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Exit {
    /// Some run may return normally.
    Returns,
    /// No run returns normally and a statement fails in every run that reaches it:
    /// every terminating call fails.
    Fails(Rc<Failure>),
    /// No run returns normally (an `error` call, a loop that never ends).
    Never,
}

/// Why a call fails: the failing statement of the callee, in its words, and the call
/// below it when that statement is itself a failing call.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub func: String,
    /// The function is an anonymous function's lifted body (its name is the
    /// lowering's): messages call it so, its captured values first among `args`.
    pub anonymous: bool,
    /// The arguments' shapes, over `$k` and `#j` (the caller substitutes its own).
    pub args: Vec<(super::Class, Shape)>,
    pub rule: RuleInfo,
    /// The failing statement: its id less the function's first statement's, so it
    /// names the same statement while the function moves or its text changes only
    /// in spacing (a caller's result holds it, and is reused then: `memo`).
    pub stmt: crate::tame::StmtId,
    /// The failing statement's expression in the text, once
    /// `program::resolve_failures` placed it (from `stmt`, in the function as it is
    /// now); empty before.
    pub span: Span,
    /// The operation and its operands' shapes (over `$k` and `#j`).
    pub op: String,
    pub operands: Vec<Shape>,
    pub below: Option<Rc<Failure>>,
    /// The file of a function outside the analysed one (set with `span`'s placing).
    pub file: Option<Rc<crate::tame::link::Origin>>,
}
