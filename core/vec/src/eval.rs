//! The evaluator (issue #23 item 3): the call-by-value big-step semantics of VEC
//! (spec 003 §1.7 and §2.5, Figs 2.6 and 3.4–3.5), with SIZE_C's `let`, `check`, `=`,
//! `and`, `not`, `~+` (§4.1, §4.5) and the data conditional `if` (§5.1).
//!
//! # How it runs
//!
//! Terms are evaluated with closures and environments, not substitution, on an
//! explicit stack (a CEK machine), so neither a deep `rec` nor a long vector can
//! overflow the Rust stack: [`Options::fuel`] bounds the steps and
//! [`Options::max_depth`] the pending evaluations (the continuation's length); either
//! ends with [`Outcome::OutOfFuel`]. Values live in an arena of the evaluation, so
//! dropping them is never recursive either.
//!
//! * The function of an application is evaluated first, then the argument (§1.7);
//!   `⟨a, b⟩` is `pair a b` and `[a, b, c]` is `cons a (cons b (sing c))`, so both
//!   evaluate their parts left to right.
//! * `rec f. t` binds `f` to itself and evaluates `t`; a use of `f` unfolds it again.
//! * Definitions come after the prelude, in order; each sees only those before it
//!   (a definition does not see itself). A definition is evaluated once, in order,
//!   with its own fuel (a definition with parameters is a closure at once); a use
//!   sees its value, or its failure again (the failure keeps its own span). By
//!   determinism this is what substituting the definition's body would give.
//! * Names resolve to the innermost binder, then the latest visible definition, then
//!   a combinator (`un pair fst snd zero succ pred eq err sing cons hd tl length`,
//!   `+ - * /`, SIZE_C's `and not ~+ =`).
//!
//! # Results
//!
//! `err` is a result, not a value (§1.5): whatever receives it fails with it (the
//! application rules of §1.7 are strict in both positions, `ifs` in its condition,
//! `let` in its bound term), so the first error in evaluation order is the outcome,
//! a [`Outcome::ShapeError`] that records its [`Origin`]: an explicit `err`,
//! `pred zero`, `tl` of a singleton, an `=` of unequal sizes (`pred (not (eq a b))`,
//! spec §4.1), or, with [`Options::regular_vectors`], a `cons` of an entry whose shape
//! is not that of the vector's entries.
//!
//! Data errors are a distinct outcome, [`Outcome::DataError`] (spec §6, N3 and the
//! note on P15): division by zero, and a `+`/`*` past `u64::MAX`. `-` on `nat` is
//! truncated subtraction (`1 - 2` is `0`), as usual for naturals.
//!
//! [`Outcome::Stuck`] is a term that has no rule (`fst 3`, an unbound name, a syntax
//! error): the thesis's typing soundness says a well-typed closed program never gets
//! there, so it is only reachable when [`crate::check`] reports errors (a property
//! test holds the evaluator to this).
//!
//! # Ragged vectors
//!
//! The thesis makes `[[1], [2, 2]]` a value: VEC's semantics does not enforce
//! regularity, only its shape does (spec §2.3, N1; §7 gives
//! `hd [[1],[2,2],[3,3]] ⇒ [1]`). That is the default. With
//! [`Options::regular_vectors`] the evaluator enforces it itself: `cons x v` with
//! `x` of another shape than `v`'s entries is a shape error at that `cons` (the shape
//! of a size being the size itself, as with `#`, `[~1, ~2]` is one too).
//!
//! # Printing
//!
//! Values print in the grammar's syntax: `[1, 2, 3]`, pairs with angle brackets
//! `<~2, <~3, un>>` (as spec §7 and the SML transcript print them), sizes `~n` and
//! `zero`, `un`, numerals; a function prints as a combinator (`fst`, `pair 1`,
//! `(+)`) or as `\x. …`. Output is cut with `…` past [`PRINT_DEPTH`] levels of nesting
//! or [`PRINT_CHARS`] characters.

#[cfg(test)]
pub(crate) mod tests;

use serde::{Deserialize, Serialize};
use shapex_text::Span;
use shapex_vec_syntax::ast::{Def, Param, Program, Term, TermKind};
use std::collections::HashMap;
use std::fmt;

/// Nesting past which values print (and are kept in a [`Value`]) as `…`.
pub const PRINT_DEPTH: usize = 64;
/// Characters past which a printed value is cut with `…`.
pub const PRINT_CHARS: usize = 2000;
/// Characters of a value printed in a trace step.
const STEP_CHARS: usize = 80;

/// What the caller allows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// Steps per evaluated item (the final term, each definition).
    pub fuel: u64,
    /// Pending evaluations (nested calls, roughly two or three per call level).
    pub max_depth: usize,
    /// Trace steps kept per item.
    pub trace_cap: usize,
    /// Enforce regular vectors in `cons` (see the module's documentation).
    pub regular_vectors: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            fuel: 1_000_000,
            max_depth: 100_000,
            trace_cap: 10_000,
            regular_vectors: false,
        }
    }
}

/// A closed value, as the evaluation ended with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Value {
    Un,
    Nat(u64),
    Size(u64),
    Pair(Box<Value>, Box<Value>),
    /// Never empty.
    Vector(Vec<Value>),
    /// A function, as printed.
    Function(String),
    /// Nested deeper than [`PRINT_DEPTH`].
    Elided,
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Un => f.write_str("un"),
            Value::Nat(n) => write!(f, "{n}"),
            Value::Size(0) => f.write_str("zero"),
            Value::Size(n) => write!(f, "~{n}"),
            Value::Pair(a, b) => write!(f, "<{a}, {b}>"),
            Value::Vector(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            Value::Function(s) => f.write_str(s),
            Value::Elided => f.write_str("…"),
        }
    }
}

/// What produced a shape error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Origin {
    /// An explicit `err`.
    Err,
    /// `pred zero` (§1.6).
    Pred,
    /// `tl` of a singleton (§2.4).
    Tl,
    /// `cons` of an entry of another shape than the vector's (only with
    /// [`Options::regular_vectors`]).
    Cons,
    /// SIZE_C's `a = b` of unequal sizes (`pred (not (eq a b))` is `pred zero`).
    Equal,
    /// The shape of a data conditional whose branches have different shapes: the
    /// shapes cannot say which branch runs (not a shape error of the program).
    Undecided,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Origin::Err => "err",
            Origin::Pred => "pred zero",
            Origin::Tl => "tl of a singleton",
            Origin::Cons => "cons of entries of different shapes",
            Origin::Equal => "= of unequal values",
            Origin::Undecided => "a data conditional's branches of different shapes",
        })
    }
}

/// Which budget ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Limit {
    /// [`Options::fuel`] steps.
    Steps(u64),
    /// [`Options::max_depth`] pending evaluations.
    Depth(usize),
}

/// How an evaluation ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    Value(Value),
    /// The thesis's `err`, with where it arose: the span of the application (or of
    /// the `err`) and the operands, printed.
    ShapeError {
        origin: Origin,
        span: Span,
        detail: String,
    },
    /// A failure of the data (division by zero, overflow): not a shape error.
    DataError {
        span: Span,
        detail: String,
    },
    /// Unknown: the budget ran out first.
    OutOfFuel {
        limit: Limit,
    },
    /// No rule applies: only for programs [`crate::check`] rejects.
    Stuck {
        span: Span,
        detail: String,
    },
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Value(v) => write!(f, "{v}"),
            Outcome::ShapeError { detail, .. } if detail == "err" => {
                f.write_str("err (shape error)")
            }
            Outcome::ShapeError { detail, .. } => write!(f, "err (shape error: {detail})"),
            Outcome::DataError { detail, .. } => write!(f, "data error: {detail}"),
            Outcome::OutOfFuel {
                limit: Limit::Steps(n),
            } => write!(f, "unknown (out of fuel after {n} steps)"),
            Outcome::OutOfFuel {
                limit: Limit::Depth(n),
            } => write!(f, "unknown (out of fuel: more than {n} nested evaluations)"),
            Outcome::Stuck { detail, .. } => write!(f, "stuck: {detail}"),
        }
    }
}

/// One reduction step: the redex's span and what happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub span: Span,
    pub what: String,
}

/// The evaluation of one item.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub outcome: Outcome,
    /// Steps spent.
    pub steps: u64,
    /// The first [`Options::trace_cap`] steps.
    pub trace: Vec<Step>,
    /// Whether steps were left out of the trace.
    pub trace_truncated: bool,
}

/// A definition's evaluation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DefReport {
    pub name: String,
    pub span: Span,
    pub report: Report,
}

/// What [`evaluate`](crate::evaluate) found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evaluation {
    /// The program's definitions without parameters whose outcome is not a function
    /// (and that parsed), in order.
    pub defs: Vec<DefReport>,
    /// The final term's, if the program has one.
    pub main: Option<Report>,
}

impl Evaluation {
    /// The report of the last definition `name`.
    pub fn def(&self, name: &str) -> Option<&Report> {
        self.defs
            .iter()
            .rev()
            .find(|d| d.name == name)
            .map(|d| &d.report)
    }
}

/// Evaluates `program` after the prelude.
pub fn evaluate(program: &Program, options: &Options) -> Evaluation {
    let prelude = shapex_vec_syntax::prelude();
    let mut m = Machine::new(options);
    for def in &prelude.defs {
        m.define(def);
    }
    let mut defs = Vec::new();
    for def in &program.defs {
        let report = m.define(def);
        if def.params.is_empty() && !def.is_error() {
            let function = matches!(&report.outcome, Outcome::Value(Value::Function(_)));
            if !function {
                defs.push(DefReport {
                    name: def.name.name.clone(),
                    span: def.span,
                    report,
                });
            }
        }
    }
    let main = program.main.as_ref().map(|t| {
        let env = Env {
            locals: None,
            globals: m.globals.len() as u32,
        };
        m.item(t, env)
    });
    Evaluation { defs, main }
}

// ---------------------------------------------------------------------------------
// The machine.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prim {
    Pair,
    Fst,
    Snd,
    Succ,
    Pred,
    Eq,
    Sing,
    Cons,
    Hd,
    Tl,
    Length,
    Add,
    Sub,
    Mul,
    Div,
    And,
    Not,
    SizeAdd,
    Equal,
}

impl Prim {
    fn from_name(name: &str) -> Option<Prim> {
        Some(match name {
            "pair" => Prim::Pair,
            "fst" => Prim::Fst,
            "snd" => Prim::Snd,
            "succ" => Prim::Succ,
            "pred" => Prim::Pred,
            "eq" => Prim::Eq,
            "sing" => Prim::Sing,
            "cons" => Prim::Cons,
            "hd" => Prim::Hd,
            "tl" => Prim::Tl,
            "length" => Prim::Length,
            "+" => Prim::Add,
            "-" => Prim::Sub,
            "*" => Prim::Mul,
            "/" => Prim::Div,
            "and" => Prim::And,
            "not" => Prim::Not,
            "~+" => Prim::SizeAdd,
            "=" => Prim::Equal,
            _ => return None,
        })
    }

    /// As a term.
    fn shown(self) -> &'static str {
        match self {
            Prim::Pair => "pair",
            Prim::Fst => "fst",
            Prim::Snd => "snd",
            Prim::Succ => "succ",
            Prim::Pred => "pred",
            Prim::Eq => "eq",
            Prim::Sing => "sing",
            Prim::Cons => "cons",
            Prim::Hd => "hd",
            Prim::Tl => "tl",
            Prim::Length => "length",
            Prim::Add => "(+)",
            Prim::Sub => "(-)",
            Prim::Mul => "(*)",
            Prim::Div => "(/)",
            Prim::And => "and",
            Prim::Not => "not",
            Prim::SizeAdd => "(~+)",
            Prim::Equal => "(=)",
        }
    }
}

/// A value of the machine: immediate, or a node of the arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    Un,
    Nat(u64),
    Size(u64),
    Prim(Prim),
    Node(u32),
}

enum Node<'a> {
    Pair(Val, Val),
    /// `pair v`, `eq v`, `cons v`, `and v`, `~+ v`, `= v`.
    Partial(Prim, Val),
    Sing(Val),
    Cons {
        head: Val,
        tail: Val,
        len: u64,
    },
    /// `\p1 … pn. body` (n ≥ 1; a definition's parameters, or one λ).
    Closure {
        params: &'a [Param],
        body: &'a Term,
        env: Env,
    },
}

/// Locals (a chain in the arena) and how many definitions are visible.
#[derive(Clone, Copy, Debug)]
struct Env {
    locals: Option<u32>,
    globals: u32,
}

enum Binding<'a> {
    Value(Val),
    /// `rec f. body`: a use of `f` evaluates `body` in this very environment.
    Rec(&'a Term),
}

struct Local<'a> {
    name: &'a str,
    binding: Binding<'a>,
    next: Option<u32>,
    globals: u32,
}

struct Global {
    result: Result<Val, Abort>,
}

#[derive(Clone, Debug)]
enum Abort {
    Shape {
        origin: Origin,
        span: Span,
        detail: String,
    },
    Data {
        span: Span,
        detail: String,
    },
    Fuel(Limit),
    Stuck {
        span: Span,
        detail: String,
    },
}

impl From<Abort> for Outcome {
    fn from(a: Abort) -> Outcome {
        match a {
            Abort::Shape {
                origin,
                span,
                detail,
            } => Outcome::ShapeError {
                origin,
                span,
                detail,
            },
            Abort::Data { span, detail } => Outcome::DataError { span, detail },
            Abort::Fuel(limit) => Outcome::OutOfFuel { limit },
            Abort::Stuck { span, detail } => Outcome::Stuck { span, detail },
        }
    }
}

fn stuck<T>(span: Span, detail: impl Into<String>) -> Result<T, Abort> {
    Err(Abort::Stuck {
        span,
        detail: detail.into(),
    })
}

enum Frame<'a> {
    /// The function is being evaluated; the argument is next.
    Arg {
        arg: &'a Term,
        env: Env,
        span: Span,
    },
    /// The argument is being evaluated; then the call.
    Call {
        fun: Val,
        span: Span,
    },
    PairSnd {
        snd: &'a Term,
        env: Env,
    },
    PairMake {
        fst: Val,
    },
    Vector {
        items: &'a [Term],
        env: Env,
        done: Vec<Val>,
    },
    Ifs {
        then: &'a Term,
        otherwise: &'a Term,
        env: Env,
        span: Span,
    },
    If {
        then: &'a Term,
        otherwise: &'a Term,
        env: Env,
        span: Span,
    },
    Check {
        body: &'a Term,
        env: Env,
    },
    Let {
        name: &'a str,
        body: &'a Term,
        env: Env,
        span: Span,
    },
}

enum Ctl<'a> {
    Eval(&'a Term, Env),
    Return(Val),
}

struct Machine<'a, 'o> {
    options: &'o Options,
    nodes: Vec<Node<'a>>,
    locals: Vec<Local<'a>>,
    globals: Vec<Global>,
    by_name: HashMap<&'a str, Vec<u32>>,
    stack: Vec<Frame<'a>>,
    steps: u64,
    trace: Vec<Step>,
    trace_truncated: bool,
}

impl<'a, 'o> Machine<'a, 'o> {
    fn new(options: &'o Options) -> Self {
        Machine {
            options,
            nodes: Vec::new(),
            locals: Vec::new(),
            globals: Vec::new(),
            by_name: HashMap::new(),
            stack: Vec::new(),
            steps: 0,
            trace: Vec::new(),
            trace_truncated: false,
        }
    }

    /// Evaluates a definition and makes it visible to what follows.
    fn define(&mut self, def: &'a Def) -> Report {
        let env = Env {
            locals: None,
            globals: self.globals.len() as u32,
        };
        let (report, result) = if def.params.is_empty() {
            self.run_item(&def.body, env)
        } else {
            let report = Report {
                outcome: Outcome::Value(Value::Function(closure_text(&def.params))),
                steps: 0,
                trace: Vec::new(),
                trace_truncated: false,
            };
            let closure = self.alloc(Node::Closure {
                params: &def.params,
                body: &def.body,
                env,
            });
            (report, Ok(closure))
        };
        let index = self.globals.len() as u32;
        self.globals.push(Global { result });
        self.by_name.entry(&def.name.name).or_default().push(index);
        report
    }

    fn item(&mut self, term: &'a Term, env: Env) -> Report {
        self.run_item(term, env).0
    }

    /// Evaluates one item with a fresh budget and trace. What a failed item
    /// allocated is released (nothing refers to it).
    fn run_item(&mut self, term: &'a Term, env: Env) -> (Report, Result<Val, Abort>) {
        self.steps = 0;
        self.trace = Vec::new();
        self.trace_truncated = false;
        self.stack.clear();
        let marks = (self.nodes.len(), self.locals.len());
        let result = self.run(term, env);
        self.stack.clear();
        let outcome = match &result {
            Ok(v) => Outcome::Value(self.value(*v, 0, &mut 100_000)),
            Err(a) => {
                self.nodes.truncate(marks.0);
                self.locals.truncate(marks.1);
                Outcome::from(a.clone())
            }
        };
        let report = Report {
            outcome,
            steps: self.steps,
            trace: std::mem::take(&mut self.trace),
            trace_truncated: self.trace_truncated,
        };
        (report, result)
    }

    fn run(&mut self, term: &'a Term, env: Env) -> Result<Val, Abort> {
        let mut ctl = Ctl::Eval(term, env);
        loop {
            self.steps += 1;
            if self.steps > self.options.fuel {
                self.steps = self.options.fuel;
                return Err(Abort::Fuel(Limit::Steps(self.options.fuel)));
            }
            ctl = match ctl {
                Ctl::Eval(t, env) => self.eval(t, env)?,
                Ctl::Return(v) => match self.stack.pop() {
                    None => return Ok(v),
                    Some(frame) => self.resume(frame, v)?,
                },
            };
            if self.stack.len() > self.options.max_depth {
                return Err(Abort::Fuel(Limit::Depth(self.options.max_depth)));
            }
        }
    }

    fn step(&mut self, span: Span, what: impl FnOnce(&Self) -> String) {
        if self.trace.len() < self.options.trace_cap {
            let what = what(self);
            self.trace.push(Step { span, what });
        } else {
            self.trace_truncated = true;
        }
    }

    fn alloc(&mut self, node: Node<'a>) -> Val {
        self.nodes.push(node);
        Val::Node((self.nodes.len() - 1) as u32)
    }

    fn bind(&mut self, env: Env, name: &'a str, binding: Binding<'a>) -> Env {
        self.locals.push(Local {
            name,
            binding,
            next: env.locals,
            globals: env.globals,
        });
        Env {
            locals: Some((self.locals.len() - 1) as u32),
            globals: env.globals,
        }
    }

    fn eval(&mut self, t: &'a Term, env: Env) -> Result<Ctl<'a>, Abort> {
        let span = t.span;
        Ok(match &t.kind {
            TermKind::Var(id) => return self.var(&id.name, env, span),
            TermKind::Nat(n) => Ctl::Return(Val::Nat(*n)),
            TermKind::Size(n) => Ctl::Return(Val::Size(*n)),
            TermKind::Pair(a, b) => {
                self.stack.push(Frame::PairSnd { snd: b, env });
                Ctl::Eval(a, env)
            }
            TermKind::Vector(items) => {
                let Some(first) = items.first() else {
                    return stuck(span, "`[]`: VEC has no empty vector");
                };
                self.stack.push(Frame::Vector {
                    items,
                    env,
                    done: Vec::with_capacity(items.len()),
                });
                Ctl::Eval(first, env)
            }
            TermKind::App { fun, arg, .. } => {
                self.stack.push(Frame::Arg { arg, env, span });
                Ctl::Eval(fun, env)
            }
            TermKind::Lam { param, body } => Ctl::Return(self.alloc(Node::Closure {
                params: std::slice::from_ref(param),
                body,
                env,
            })),
            TermKind::Rec { param, body } => {
                self.step(span, |_| format!("unfold rec {}", param.name.name));
                let env = self.bind(env, &param.name.name, Binding::Rec(body));
                Ctl::Eval(body, env)
            }
            TermKind::Ifs {
                cond,
                then,
                otherwise,
            } => {
                self.stack.push(Frame::Ifs {
                    then,
                    otherwise,
                    env,
                    span,
                });
                Ctl::Eval(cond, env)
            }
            TermKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.stack.push(Frame::If {
                    then,
                    otherwise,
                    env,
                    span,
                });
                Ctl::Eval(cond, env)
            }
            TermKind::Check { cond, body } => {
                self.stack.push(Frame::Check { body, env });
                Ctl::Eval(cond, env)
            }
            TermKind::Let { name, value, body } => {
                self.stack.push(Frame::Let {
                    name: &name.name,
                    body,
                    env,
                    span,
                });
                Ctl::Eval(value, env)
            }
            TermKind::Error => return stuck(span, "this term did not parse"),
        })
    }

    fn var(&mut self, name: &'a str, env: Env, span: Span) -> Result<Ctl<'a>, Abort> {
        let mut at = env.locals;
        while let Some(i) = at {
            let local = &self.locals[i as usize];
            if local.name == name {
                return Ok(match local.binding {
                    Binding::Value(v) => Ctl::Return(v),
                    Binding::Rec(body) => {
                        let globals = local.globals;
                        self.step(span, |_| format!("unfold rec {name}"));
                        Ctl::Eval(
                            body,
                            Env {
                                locals: Some(i),
                                globals,
                            },
                        )
                    }
                });
            }
            at = local.next;
        }
        if let Some(indices) = self.by_name.get(name) {
            if let Some(&g) = indices.iter().rev().find(|&&g| g < env.globals) {
                return match &self.globals[g as usize].result {
                    Ok(v) => {
                        let v = *v;
                        self.step(span, |m| {
                            format!("{name} (definition) is {}", m.show(v, STEP_CHARS))
                        });
                        Ok(Ctl::Return(v))
                    }
                    Err(a) => Err(a.clone()),
                };
            }
        }
        if name == crate::combinators::UNDECIDED {
            return Err(Abort::Shape {
                origin: Origin::Undecided,
                span,
                detail: "the branches of `if` have different shapes".into(),
            });
        }
        // A name marked as a combinator is never a local's or a definition's.
        Ok(Ctl::Return(match crate::combinators::primitive(name) {
            "un" => Val::Un,
            "zero" => Val::Size(0),
            "err" => {
                return Err(Abort::Shape {
                    origin: Origin::Err,
                    span,
                    detail: "err".into(),
                })
            }
            name => match Prim::from_name(name) {
                Some(p) => Val::Prim(p),
                None => return stuck(span, format!("`{name}` is not defined")),
            },
        }))
    }

    fn resume(&mut self, frame: Frame<'a>, v: Val) -> Result<Ctl<'a>, Abort> {
        Ok(match frame {
            Frame::Arg { arg, env, span } => {
                self.stack.push(Frame::Call { fun: v, span });
                Ctl::Eval(arg, env)
            }
            Frame::Call { fun, span } => return self.apply(fun, v, span),
            Frame::PairSnd { snd, env } => {
                self.stack.push(Frame::PairMake { fst: v });
                Ctl::Eval(snd, env)
            }
            Frame::PairMake { fst, .. } => Ctl::Return(self.alloc(Node::Pair(fst, v))),
            Frame::Vector {
                items,
                env,
                mut done,
            } => {
                done.push(v);
                if let Some(next) = items.get(done.len()) {
                    self.stack.push(Frame::Vector { items, env, done });
                    Ctl::Eval(next, env)
                } else {
                    let last = items[items.len() - 1].span;
                    let mut acc = self.alloc(Node::Sing(done[done.len() - 1]));
                    for i in (0..done.len() - 1).rev() {
                        let at = Span::new(items[i].span.start, last.end);
                        acc = self.cons(done[i], acc, at)?;
                        self.steps += 1;
                    }
                    Ctl::Return(acc)
                }
            }
            Frame::Ifs {
                then,
                otherwise,
                env,
                span,
            } => match v {
                Val::Size(0) => {
                    self.step(span, |_| "ifs zero: the then branch".into());
                    Ctl::Eval(then, env)
                }
                Val::Size(n) => {
                    self.step(span, |_| format!("ifs ~{n}: the else branch"));
                    Ctl::Eval(otherwise, env)
                }
                _ => {
                    return stuck(
                        span,
                        format!(
                            "an `ifs` condition must be a size, found {}",
                            self.show(v, STEP_CHARS)
                        ),
                    )
                }
            },
            Frame::If {
                then,
                otherwise,
                env,
                span,
            } => match v {
                Val::Nat(0) => {
                    self.step(span, |_| "if 0: the then branch".into());
                    Ctl::Eval(then, env)
                }
                Val::Nat(n) => {
                    self.step(span, |_| format!("if {n}: the else branch"));
                    Ctl::Eval(otherwise, env)
                }
                _ => {
                    return stuck(
                        span,
                        format!(
                            "an `if` condition must be a `nat`, found {}",
                            self.show(v, STEP_CHARS)
                        ),
                    )
                }
            },
            Frame::Check { body, env } => Ctl::Eval(body, env),
            Frame::Let {
                name,
                body,
                env,
                span,
            } => {
                self.step(span, |m| format!("let {name} := {}", m.show(v, STEP_CHARS)));
                let env = self.bind(env, name, Binding::Value(v));
                Ctl::Eval(body, env)
            }
        })
    }

    fn apply(&mut self, fun: Val, arg: Val, span: Span) -> Result<Ctl<'a>, Abort> {
        match fun {
            Val::Prim(p) => self.apply1(p, arg, span).map(Ctl::Return),
            Val::Node(i) => match self.nodes[i as usize] {
                Node::Closure { params, body, env } => {
                    let name = &params[0].name.name;
                    self.step(span, |m| {
                        format!("apply \\{name}. … to {}", m.show(arg, STEP_CHARS))
                    });
                    let env = self.bind(env, name, Binding::Value(arg));
                    Ok(if params.len() > 1 {
                        Ctl::Return(self.alloc(Node::Closure {
                            params: &params[1..],
                            body,
                            env,
                        }))
                    } else {
                        Ctl::Eval(body, env)
                    })
                }
                Node::Partial(p, x) => self.apply2(p, x, arg, span).map(Ctl::Return),
                _ => stuck(
                    span,
                    format!("{} is not a function", self.show(fun, STEP_CHARS)),
                ),
            },
            _ => stuck(
                span,
                format!("{} is not a function", self.show(fun, STEP_CHARS)),
            ),
        }
    }

    fn node(&self, v: Val) -> Option<&Node<'a>> {
        match v {
            Val::Node(i) => Some(&self.nodes[i as usize]),
            _ => None,
        }
    }

    /// The operands of a datum operation.
    fn nats(&self, v: Val) -> Option<(u64, u64)> {
        match self.node(v) {
            Some(&Node::Pair(Val::Nat(a), Val::Nat(b))) => Some((a, b)),
            _ => None,
        }
    }

    fn apply1(&mut self, p: Prim, a: Val, span: Span) -> Result<Val, Abort> {
        let wrong = |m: &Self| {
            stuck(
                span,
                format!(
                    "`{}` does not apply to {}",
                    p.shown(),
                    m.show(a, STEP_CHARS)
                ),
            )
        };
        let r = match p {
            Prim::Pair | Prim::Eq | Prim::Cons | Prim::And | Prim::SizeAdd | Prim::Equal => {
                return Ok(self.alloc(Node::Partial(p, a)));
            }
            Prim::Fst | Prim::Snd => match self.node(a) {
                Some(&Node::Pair(x, y)) => {
                    if p == Prim::Fst {
                        x
                    } else {
                        y
                    }
                }
                _ => return wrong(self),
            },
            Prim::Succ => match a {
                Val::Size(n) => match n.checked_add(1) {
                    Some(n) => Val::Size(n),
                    None => {
                        return Err(Abort::Data {
                            span,
                            detail: "size past 2^64 - 1".into(),
                        })
                    }
                },
                _ => return wrong(self),
            },
            Prim::Pred => match a {
                Val::Size(0) => {
                    return Err(Abort::Shape {
                        origin: Origin::Pred,
                        span,
                        detail: "pred zero".into(),
                    })
                }
                Val::Size(n) => Val::Size(n - 1),
                _ => return wrong(self),
            },
            Prim::Not => match a {
                Val::Size(0) => Val::Size(1),
                Val::Size(_) => Val::Size(0),
                _ => return wrong(self),
            },
            Prim::Sing => self.alloc(Node::Sing(a)),
            Prim::Hd | Prim::Tl | Prim::Length => match self.node(a) {
                Some(&Node::Sing(x)) => match p {
                    Prim::Hd => x,
                    Prim::Length => Val::Size(1),
                    _ => {
                        return Err(Abort::Shape {
                            origin: Origin::Tl,
                            span,
                            detail: format!(
                                "tl {}: the tail of a singleton",
                                self.show(a, STEP_CHARS)
                            ),
                        })
                    }
                },
                Some(&Node::Cons { head, tail, len }) => match p {
                    Prim::Hd => head,
                    Prim::Length => Val::Size(len),
                    _ => tail,
                },
                _ => return wrong(self),
            },
            Prim::Add | Prim::Sub | Prim::Mul | Prim::Div => {
                let Some((x, y)) = self.nats(a) else {
                    return wrong(self);
                };
                let r = match p {
                    Prim::Add => x.checked_add(y),
                    Prim::Sub => Some(x.saturating_sub(y)),
                    Prim::Mul => x.checked_mul(y),
                    _ => {
                        if y == 0 {
                            return Err(Abort::Data {
                                span,
                                detail: format!("division by zero: {x} / 0"),
                            });
                        }
                        Some(x / y)
                    }
                };
                match r {
                    Some(r) => Val::Nat(r),
                    None => {
                        return Err(Abort::Data {
                            span,
                            detail: format!(
                                "{x} {} {y} is past 2^64 - 1",
                                if p == Prim::Add { "+" } else { "*" }
                            ),
                        })
                    }
                }
            }
        };
        self.step(span, |m| {
            format!(
                "{} {} ⇒ {}",
                p.shown(),
                m.show(a, STEP_CHARS),
                m.show(r, STEP_CHARS)
            )
        });
        Ok(r)
    }

    fn apply2(&mut self, p: Prim, x: Val, a: Val, span: Span) -> Result<Val, Abort> {
        let wrong = |m: &Self| {
            stuck(
                span,
                format!(
                    "`{} {}` does not apply to {}",
                    p.shown(),
                    m.show(x, STEP_CHARS),
                    m.show(a, STEP_CHARS)
                ),
            )
        };
        let r = match p {
            Prim::Pair => self.alloc(Node::Pair(x, a)),
            Prim::Cons => return self.cons(x, a, span),
            Prim::Eq => Val::Size(self.eq(x, a, span)?),
            Prim::Equal => {
                let d = self.eq(x, a, span)?;
                if d != 0 {
                    return Err(Abort::Shape {
                        origin: Origin::Equal,
                        span,
                        detail: format!(
                            "{} = {}: eq gives ~{d}, and pred (not ~{d}) is pred zero",
                            self.show(x, STEP_CHARS),
                            self.show(a, STEP_CHARS)
                        ),
                    });
                }
                Val::Size(0)
            }
            Prim::And => match (x, a) {
                (Val::Size(0), Val::Size(_)) => a,
                (Val::Size(_), Val::Size(_)) => Val::Size(1),
                _ => return wrong(self),
            },
            Prim::SizeAdd => match (x, a) {
                (Val::Size(m), Val::Size(n)) => match m.checked_add(n) {
                    Some(s) => Val::Size(s),
                    None => {
                        return Err(Abort::Data {
                            span,
                            detail: "size past 2^64 - 1".into(),
                        })
                    }
                },
                _ => return wrong(self),
            },
            _ => return wrong(self),
        };
        self.step(span, |m| {
            format!(
                "{} {} {} ⇒ {}",
                p.shown(),
                m.show(x, STEP_CHARS),
                m.show(a, STEP_CHARS),
                m.show(r, STEP_CHARS)
            )
        });
        Ok(r)
    }

    /// `eq x y` (§1.6): `~|m − n|` on sizes, `zero` on `un`, and on pairs
    /// `and (eq x1 y1) (eq x2 y2)`, i.e. the first non-`zero` of the parts.
    fn eq(&mut self, x: Val, y: Val, span: Span) -> Result<u64, Abort> {
        let mut work = vec![(x, y)];
        let mut first = 0;
        while let Some((a, b)) = work.pop() {
            self.steps += 1;
            match (a, b) {
                (Val::Size(m), Val::Size(n)) => {
                    if first == 0 {
                        first = m.abs_diff(n);
                    }
                }
                (Val::Un, Val::Un) => {}
                _ => match (self.node(a), self.node(b)) {
                    (Some(&Node::Pair(a1, a2)), Some(&Node::Pair(b1, b2))) => {
                        work.push((a2, b2));
                        work.push((a1, b1));
                    }
                    _ => {
                        return stuck(
                            span,
                            format!(
                                "`eq` compares only `un`, sizes and pairs of them, not {} and {}",
                                self.show(a, STEP_CHARS),
                                self.show(b, STEP_CHARS)
                            ),
                        )
                    }
                },
            }
        }
        Ok(first)
    }

    /// `cons x v`, checking regularity when asked to.
    fn cons(&mut self, x: Val, v: Val, span: Span) -> Result<Val, Abort> {
        let (head, len) = match self.node(v) {
            Some(&Node::Sing(h)) => (h, 1),
            Some(&Node::Cons { head, len, .. }) => (head, len),
            _ => {
                return stuck(
                    span,
                    format!(
                        "`cons {}` does not apply to {}: not a vector",
                        self.show(x, STEP_CHARS),
                        self.show(v, STEP_CHARS)
                    ),
                )
            }
        };
        if self.options.regular_vectors && !self.same_shape(x, head) {
            return Err(Abort::Shape {
                origin: Origin::Cons,
                span,
                detail: format!(
                    "cons {} {}: the entry's shape {} is not the entries' shape {}",
                    self.show(x, STEP_CHARS),
                    self.show(v, STEP_CHARS),
                    self.shape(x, 0),
                    self.shape(head, 0)
                ),
            });
        }
        let r = self.alloc(Node::Cons {
            head: x,
            tail: v,
            len: len + 1,
        });
        self.step(span, |m| {
            format!(
                "cons {} {} ⇒ {}",
                m.show(x, STEP_CHARS),
                m.show(v, STEP_CHARS),
                m.show(r, STEP_CHARS)
            )
        });
        Ok(r)
    }

    /// Whether two values have the same shape (`#` of spec §3.2 as a value: data
    /// are `un`, a size is itself, a vector is its length and its entries' shape;
    /// the vectors compared are regular, so the first entry stands for all).
    fn same_shape(&mut self, x: Val, y: Val) -> bool {
        let mut work = vec![(x, y)];
        while let Some((a, b)) = work.pop() {
            self.steps += 1;
            let same = match (a, b) {
                (Val::Un | Val::Nat(_), Val::Un | Val::Nat(_)) => true,
                (Val::Size(m), Val::Size(n)) => m == n,
                (Val::Prim(_), _) | (_, Val::Prim(_)) => self.is_function(a) && self.is_function(b),
                (Val::Node(_), Val::Node(_)) => match (self.node(a), self.node(b)) {
                    (Some(&Node::Pair(a1, a2)), Some(&Node::Pair(b1, b2))) => {
                        work.push((a2, b2));
                        work.push((a1, b1));
                        true
                    }
                    (Some(n1), Some(n2)) => match (vector(n1), vector(n2)) {
                        (Some((h1, l1)), Some((h2, l2))) => {
                            work.push((h1, h2));
                            l1 == l2
                        }
                        (None, None) => self.is_function(a) && self.is_function(b),
                        _ => false,
                    },
                    _ => false,
                },
                _ => false,
            };
            if !same {
                return false;
            }
        }
        true
    }

    fn is_function(&self, v: Val) -> bool {
        match v {
            Val::Prim(_) => true,
            _ => matches!(self.node(v), Some(Node::Closure { .. } | Node::Partial(..))),
        }
    }

    /// The shape of a value, printed (for messages).
    fn shape(&self, v: Val, depth: usize) -> String {
        if depth > 16 {
            return "…".into();
        }
        match v {
            Val::Un | Val::Nat(_) => "un".into(),
            Val::Size(_) => self.show(v, STEP_CHARS),
            Val::Prim(_) => "(a function)".into(),
            Val::Node(_) => match self.node(v) {
                Some(&Node::Pair(a, b)) => {
                    format!(
                        "<{}, {}>",
                        self.shape(a, depth + 1),
                        self.shape(b, depth + 1)
                    )
                }
                Some(n) => match vector(n) {
                    Some((h, len)) => format!("<~{len}, {}>", self.shape(h, depth + 1)),
                    None => "(a function)".into(),
                },
                None => "…".into(),
            },
        }
    }

    /// A value printed, cut after about `chars` characters.
    fn show(&self, v: Val, chars: usize) -> String {
        let mut out = String::new();
        self.write(v, 0, chars, &mut out);
        out
    }

    fn write(&self, v: Val, depth: usize, chars: usize, out: &mut String) {
        use std::fmt::Write;
        if out.len() > chars || depth > PRINT_DEPTH {
            if !out.ends_with('…') {
                out.push('…');
            }
            return;
        }
        match v {
            Val::Un => out.push_str("un"),
            Val::Nat(n) => {
                let _ = write!(out, "{n}");
            }
            Val::Size(0) => out.push_str("zero"),
            Val::Size(n) => {
                let _ = write!(out, "~{n}");
            }
            Val::Prim(p) => out.push_str(p.shown()),
            Val::Node(i) => match &self.nodes[i as usize] {
                &Node::Pair(a, b) => {
                    out.push('<');
                    self.write(a, depth + 1, chars, out);
                    out.push_str(", ");
                    self.write(b, depth + 1, chars, out);
                    out.push('>');
                }
                &Node::Partial(p, x) => {
                    out.push_str(p.shown());
                    out.push(' ');
                    let atomic = matches!(x, Val::Un | Val::Nat(_) | Val::Size(_))
                        || matches!(
                            self.node(x),
                            Some(Node::Pair(..) | Node::Sing(_) | Node::Cons { .. })
                        );
                    if !atomic {
                        out.push('(');
                    }
                    self.write(x, depth + 1, chars, out);
                    if !atomic {
                        out.push(')');
                    }
                }
                Node::Closure { params, .. } => out.push_str(&closure_text(params)),
                Node::Sing(_) | Node::Cons { .. } => {
                    out.push('[');
                    let mut at = v;
                    let mut first = true;
                    loop {
                        if !first {
                            out.push_str(", ");
                        }
                        first = false;
                        if out.len() > chars {
                            out.push('…');
                            break;
                        }
                        match self.node(at) {
                            Some(&Node::Sing(x)) => {
                                self.write(x, depth + 1, chars, out);
                                break;
                            }
                            Some(&Node::Cons { head, tail, .. }) => {
                                self.write(head, depth + 1, chars, out);
                                at = tail;
                            }
                            _ => {
                                out.push('…');
                                break;
                            }
                        }
                    }
                    out.push(']');
                }
            },
        }
    }

    /// A value out of the arena, `budget` nodes at most.
    fn value(&self, v: Val, depth: usize, budget: &mut usize) -> Value {
        if depth > PRINT_DEPTH || *budget == 0 {
            return Value::Elided;
        }
        *budget -= 1;
        match v {
            Val::Un => Value::Un,
            Val::Nat(n) => Value::Nat(n),
            Val::Size(n) => Value::Size(n),
            Val::Prim(_) => Value::Function(self.show(v, PRINT_CHARS)),
            Val::Node(i) => match &self.nodes[i as usize] {
                &Node::Pair(a, b) => Value::Pair(
                    Box::new(self.value(a, depth + 1, budget)),
                    Box::new(self.value(b, depth + 1, budget)),
                ),
                Node::Partial(..) | Node::Closure { .. } => {
                    Value::Function(self.show(v, PRINT_CHARS))
                }
                Node::Sing(_) | Node::Cons { .. } => {
                    let mut items = Vec::new();
                    let mut at = v;
                    loop {
                        match self.node(at) {
                            Some(&Node::Sing(x)) => {
                                items.push(self.value(x, depth + 1, budget));
                                break;
                            }
                            Some(&Node::Cons { head, tail, .. }) => {
                                items.push(self.value(head, depth + 1, budget));
                                at = tail;
                            }
                            _ => break,
                        }
                    }
                    Value::Vector(items)
                }
            },
        }
    }
}

/// A vector node's first entry and length.
fn vector(n: &Node<'_>) -> Option<(Val, u64)> {
    match *n {
        Node::Sing(h) => Some((h, 1)),
        Node::Cons { head, len, .. } => Some((head, len)),
        _ => None,
    }
}

fn closure_text(params: &[Param]) -> String {
    let names: Vec<&str> = params.iter().map(|p| p.name.name.as_str()).collect();
    format!("\\{}. …", names.join(" "))
}
