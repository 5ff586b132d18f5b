//! The forward flow-analysis framework: joins at if, fixed points with widening at loops,
//! break/continue/return, nonviable code after errors — over any structured
//! control-flow graph ([`Cfg`]), so every language's IR can use it. Depends on nothing
//! of the project.
//!
//! A program is a [`Cfg`]: statements with ids, each either simple or one of the
//! structured forms of [`Control`]. An analysis implements [`Analysis`]: its fact type,
//! `join`, `widen`, the transfer of simple statements, and optional hooks for branches
//! (to refine facts on the condition) and loop variables. [`analyze`] runs it over one
//! body and records the fact before and after every statement plus, per loop, the head
//! fact of every iteration.
//!
//! Loops: `head₀ = in`, `headᵢ₊₁ = headᵢ ⊔ out_body ⊔ continues` (with `widen` instead
//! of `⊔` from iteration [`Analysis::widen_after`] on), until `headᵢ₊₁ = headᵢ`. So every
//! loop terminates when `widen` has no infinite ascending chains; as a last resort a
//! loop stops after [`MAX_ITERATIONS`] and is reported as not converged.

use serde::Serialize;
use std::collections::HashMap;
use std::hash::Hash;

/// A structured control-flow graph: the statement type of an IR whose control flow is
/// if/while/for/try and jumps, each statement with an id unique in the analysed body.
pub trait Cfg {
    type Stmt;
    type Id: Copy + Eq + Hash + Ord;
    /// What an `if` or `while` tests.
    type Cond;
    /// A for loop's variable and what it iterates over.
    type LoopVar;
    type Iter;

    fn id(stmt: &Self::Stmt) -> Self::Id;
    fn control(stmt: &Self::Stmt) -> Control<'_, Self>;
}

/// The control structure of one statement.
pub enum Control<'a, G: Cfg + ?Sized> {
    /// Everything the analysis transfers itself (assignments, calls, …).
    Simple,
    If {
        cond: &'a G::Cond,
        then_body: &'a [G::Stmt],
        else_body: &'a [G::Stmt],
    },
    /// `header` computes the condition before every test.
    While {
        header: &'a [G::Stmt],
        cond: &'a G::Cond,
        body: &'a [G::Stmt],
    },
    For {
        var: &'a G::LoopVar,
        iter: &'a G::Iter,
        body: &'a [G::Stmt],
    },
    /// An error anywhere in `body` continues in `catch_body`.
    Try {
        body: &'a [G::Stmt],
        catch_body: &'a [G::Stmt],
    },
    Break,
    Continue,
    Return,
}

impl<'a, G: Cfg + ?Sized> Control<'a, G> {
    /// The statement lists nested directly inside.
    pub fn children(&self) -> Vec<&'a [G::Stmt]> {
        match *self {
            Control::If {
                then_body,
                else_body,
                ..
            } => vec![then_body, else_body],
            Control::While { header, body, .. } => vec![header, body],
            Control::For { body, .. } => vec![body],
            Control::Try { body, catch_body } => vec![body, catch_body],
            _ => vec![],
        }
    }
}

type Stmt<A> = <<A as Analysis>::Graph as Cfg>::Stmt;
type Id<A> = <<A as Analysis>::Graph as Cfg>::Id;

/// Hard cap on loop iterations, for analyses whose widening is not a true widening.
pub const MAX_ITERATIONS: usize = 200;

/// A flow state: reachable with a fact, or nonviable (unreachable: after `error(...)`, a
/// definite shape error, `break`/`return`, or in a branch that cannot be taken).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum State<F> {
    Nonviable,
    Reachable(F),
}

impl<F> State<F> {
    pub fn fact(&self) -> Option<&F> {
        match self {
            State::Reachable(f) => Some(f),
            State::Nonviable => None,
        }
    }

    pub fn is_viable(&self) -> bool {
        matches!(self, State::Reachable(_))
    }
}

/// A forward analysis over a [`Cfg`].
pub trait Analysis {
    type Graph: Cfg;
    type Fact: Clone + PartialEq;

    /// Least upper bound of two facts (control-flow merge).
    fn join(&self, a: &Self::Fact, b: &Self::Fact) -> Self::Fact;

    /// The join at a particular merge point: after an `if`, at a loop's head (`at` is
    /// the loop), or where breaks, continues or returns meet. Analyses that invent
    /// symbols at merges use `at` to keep them distinct per merge point.
    fn join_at(&self, _at: &Stmt<Self>, a: &Self::Fact, b: &Self::Fact) -> Self::Fact {
        self.join(a, b)
    }

    /// The join at loop `at`'s head of the state from before the loop (or the head so
    /// far) with the state coming back from the body (`back`). Unlike the other joins at
    /// a loop, what it gives holds at the head, each time the loop reaches it: an
    /// analysis may name a value that changes per iteration there by one symbol, which
    /// the loop's test then bounds on the way out (`while n > 10 … end` leaves `n ≤ 10`).
    fn join_head(&self, at: &Stmt<Self>, before: &Self::Fact, back: &Self::Fact) -> Self::Fact {
        self.join_at(at, before, back)
    }

    /// Widening `prev ∇ next` (prev is the older head fact). Must over-approximate the
    /// join and make every ascending chain finite; the default is `join`, which is only
    /// right for lattices of finite height.
    fn widen(&self, prev: &Self::Fact, next: &Self::Fact) -> Self::Fact {
        self.join(prev, next)
    }

    /// Loop iterations with plain joins before widening starts.
    fn widen_after(&self) -> usize {
        3
    }

    /// Transfer of a simple statement (everything but if/while/for/try and jumps).
    /// Returning [`State::Nonviable`] marks the code after it as nonviable.
    fn transfer(&self, stmt: &Stmt<Self>, input: &Self::Fact) -> State<Self::Fact>;

    /// Refines `input` on entry to the branch where `cond` is `taken` (an if's branch, a
    /// while's body (`true`) or exit (`false`)). Return `Nonviable` for a branch that
    /// cannot be taken.
    fn branch(
        &self,
        _stmt: &Stmt<Self>,
        _cond: &<Self::Graph as Cfg>::Cond,
        _taken: bool,
        input: &Self::Fact,
    ) -> State<Self::Fact> {
        State::Reachable(input.clone())
    }

    /// The fact at the start of each for-loop iteration: binds `var` to one element
    /// (range) or one column (array) of `iter`.
    fn for_iteration(
        &self,
        _stmt: &Stmt<Self>,
        _var: &<Self::Graph as Cfg>::LoopVar,
        _iter: &<Self::Graph as Cfg>::Iter,
        input: &Self::Fact,
    ) -> State<Self::Fact> {
        State::Reachable(input.clone())
    }

    /// The state after loop `stmt` entered with `input`, when the analysis can account
    /// for every iteration exactly (a counted loop simulated one iteration at a time).
    /// The framework still computes the fixed point, for the facts inside the body, but
    /// continues after the loop from this state instead of the fixed point's.
    fn exact_loop(&self, _stmt: &Stmt<Self>, _input: &Self::Fact) -> Option<State<Self::Fact>> {
        None
    }

    /// The fact after a for loop (from the head, i.e. zero or more iterations, joined
    /// with the breaks; or [`Analysis::exact_loop`]'s): where a language's loop variable
    /// differs after the loop from inside it (MATLAB empties it after no iteration).
    fn for_exit(
        &self,
        _stmt: &Stmt<Self>,
        _var: &<Self::Graph as Cfg>::LoopVar,
        _iter: &<Self::Graph as Cfg>::Iter,
        input: &Self::Fact,
    ) -> State<Self::Fact> {
        State::Reachable(input.clone())
    }
}

/// Per-loop iteration information, for "changes only on the first iteration" displays.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoopInfo<F> {
    /// The head fact entering iteration 0, 1, 2, … (the last one is the fixed point).
    pub heads: Vec<State<F>>,
    /// The iteration from which `widen` replaced `join`, if it was needed.
    pub widened_at: Option<usize>,
    /// False when the loop hit [`MAX_ITERATIONS`] (results are then unsound).
    pub converged: bool,
}

/// The results of one analysis over one function.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowResult<I: Eq + Hash, F> {
    pub before: HashMap<I, State<F>>,
    pub after: HashMap<I, State<F>>,
    pub loops: HashMap<I, LoopInfo<F>>,
    /// The fact at function exit (fall-through joined with every `return`).
    pub exit: State<F>,
}

impl<I: Copy + Eq + Hash + Ord, F> FlowResult<I, F> {
    /// The statements reached by no execution (nonviable), in id order.
    pub fn nonviable(&self) -> Vec<I> {
        let mut ids: Vec<I> = self
            .before
            .iter()
            .filter(|(_, s)| !s.is_viable())
            .map(|(id, _)| *id)
            .collect();
        ids.sort();
        ids
    }
}

/// Runs `analysis` over `body` from the fact `entry` (e.g. a function's parameters
/// bound to their context values).
pub fn analyze<A: Analysis>(
    analysis: &A,
    body: &[Stmt<A>],
    entry: A::Fact,
) -> FlowResult<Id<A>, A::Fact> {
    analyze_state(analysis, body, State::Reachable(entry))
}

/// [`analyze`] from a state that may be nonviable. Running a body's statements one
/// slice at a time, each from the state the previous one left (`after` of its last
/// statement), gives the same `before` and `after` of every statement as one run over
/// the whole body: at the top level no loop frame is open, and `return`s only reach
/// `exit`. An analysis that saves its state between top-level statements resumes so.
pub fn analyze_state<A: Analysis>(
    analysis: &A,
    body: &[Stmt<A>],
    entry: State<A::Fact>,
) -> FlowResult<Id<A>, A::Fact> {
    let mut run = Run {
        a: analysis,
        before: HashMap::new(),
        after: HashMap::new(),
        loops: HashMap::new(),
        frames: Vec::new(),
        returns: State::Nonviable,
    };
    let out = run.block(body, entry);
    let exit = run.join(out, run.returns.clone());
    FlowResult {
        before: run.before,
        after: run.after,
        loops: run.loops,
        exit,
    }
}

/// Break and continue states collected for the innermost loop.
struct Frame<F> {
    breaks: State<F>,
    continues: State<F>,
}

struct Run<'a, A: Analysis> {
    a: &'a A,
    before: HashMap<Id<A>, State<A::Fact>>,
    after: HashMap<Id<A>, State<A::Fact>>,
    loops: HashMap<Id<A>, LoopInfo<A::Fact>>,
    frames: Vec<Frame<A::Fact>>,
    returns: State<A::Fact>,
}

impl<A: Analysis> Run<'_, A> {
    fn join(&self, x: State<A::Fact>, y: State<A::Fact>) -> State<A::Fact> {
        match (x, y) {
            (State::Reachable(a), State::Reachable(b)) => State::Reachable(self.a.join(&a, &b)),
            (State::Nonviable, s) | (s, State::Nonviable) => s,
        }
    }

    fn join_at(&self, at: &Stmt<A>, x: State<A::Fact>, y: State<A::Fact>) -> State<A::Fact> {
        match (x, y) {
            (State::Reachable(a), State::Reachable(b)) => {
                State::Reachable(self.a.join_at(at, &a, &b))
            }
            (State::Nonviable, s) | (s, State::Nonviable) => s,
        }
    }

    fn join_head(&self, at: &Stmt<A>, x: State<A::Fact>, y: State<A::Fact>) -> State<A::Fact> {
        match (x, y) {
            (State::Reachable(a), State::Reachable(b)) => {
                State::Reachable(self.a.join_head(at, &a, &b))
            }
            (State::Nonviable, s) | (s, State::Nonviable) => s,
        }
    }

    fn widen(&self, prev: &State<A::Fact>, next: State<A::Fact>) -> State<A::Fact> {
        match (prev, next) {
            (State::Reachable(a), State::Reachable(b)) => State::Reachable(self.a.widen(a, &b)),
            (State::Nonviable, s) => s,
            (s, State::Nonviable) => s.clone(),
        }
    }

    fn block(&mut self, stmts: &[Stmt<A>], mut state: State<A::Fact>) -> State<A::Fact> {
        for s in stmts {
            state = self.stmt(s, state);
        }
        state
    }

    fn stmt(&mut self, s: &Stmt<A>, input: State<A::Fact>) -> State<A::Fact> {
        self.before.insert(A::Graph::id(s), input.clone());
        let out = match input {
            // Nonviable code stays nonviable; still visit nested statements so each
            // gets a (nonviable) record.
            State::Nonviable => {
                for c in A::Graph::control(s).children() {
                    self.block(c, State::Nonviable);
                }
                State::Nonviable
            }
            State::Reachable(fact) => self.viable(s, fact),
        };
        self.after.insert(A::Graph::id(s), out.clone());
        out
    }

    /// Joins `fact` into the innermost loop's break or continue state (`slot`).
    fn jump(
        &mut self,
        s: &Stmt<A>,
        fact: A::Fact,
        slot: fn(&mut Frame<A::Fact>) -> &mut State<A::Fact>,
    ) {
        let Some(f) = self.frames.last_mut() else {
            return;
        };
        let prev = std::mem::replace(slot(f), State::Nonviable);
        let joined = self.join_at(s, prev, State::Reachable(fact));
        if let Some(f) = self.frames.last_mut() {
            *slot(f) = joined;
        }
    }

    fn viable(&mut self, s: &Stmt<A>, fact: A::Fact) -> State<A::Fact> {
        match A::Graph::control(s) {
            Control::If {
                cond,
                then_body,
                else_body,
            } => {
                let t = self.a.branch(s, cond, true, &fact);
                let e = self.a.branch(s, cond, false, &fact);
                let t = self.block(then_body, t);
                let e = self.block(else_body, e);
                self.join_at(s, t, e)
            }
            Control::While { header, cond, body } => self.while_loop(s, header, cond, body, fact),
            Control::For { var, iter, body } => self.for_loop(s, var, iter, body, fact),
            Control::Try { body, catch_body } => {
                let entry = State::Reachable(fact);
                let out = self.block(body, entry.clone());
                // An error may leave the body after any statement: the catch starts
                // from the join of the entry and every top-level statement's result.
                let mut catch_in = entry;
                for b in body {
                    let after = self
                        .after
                        .get(&A::Graph::id(b))
                        .cloned()
                        .unwrap_or(State::Nonviable);
                    catch_in = self.join_at(s, catch_in, after);
                }
                let caught = self.block(catch_body, catch_in);
                self.join_at(s, out, caught)
            }
            Control::Break => {
                self.jump(s, fact, |f| &mut f.breaks);
                State::Nonviable
            }
            Control::Continue => {
                self.jump(s, fact, |f| &mut f.continues);
                State::Nonviable
            }
            Control::Return => {
                let prev = std::mem::replace(&mut self.returns, State::Nonviable);
                self.returns = self.join_at(s, prev, State::Reachable(fact));
                State::Nonviable
            }
            Control::Simple => self.a.transfer(s, &fact),
        }
    }

    /// Iterates a loop to a fixed point. `iteration(run, head)` runs one iteration
    /// from the head state and returns (state after the body, state leaving through
    /// the loop test); breaks and continues are collected in the frame.
    fn fixpoint(
        &mut self,
        s: &Stmt<A>,
        entry: State<A::Fact>,
        mut iteration: impl FnMut(&mut Self, State<A::Fact>) -> (State<A::Fact>, State<A::Fact>),
    ) -> (State<A::Fact>, State<A::Fact>) {
        let mut head = entry.clone();
        let mut info = LoopInfo {
            heads: vec![head.clone()],
            widened_at: None,
            converged: false,
        };
        let mut exit;
        let mut n = 0;
        loop {
            self.frames.push(Frame {
                breaks: State::Nonviable,
                continues: State::Nonviable,
            });
            let (body_out, test_exit) = iteration(self, head.clone());
            let frame = self.frames.pop().expect("frame pushed above");
            exit = self.join_at(s, test_exit, frame.breaks);
            let back = self.join_at(s, body_out, frame.continues);
            let next = self.join_head(s, entry.clone(), back);
            n += 1;
            let next = if n > self.a.widen_after() {
                info.widened_at.get_or_insert(n);
                self.widen(&head, next)
            } else {
                self.join_head(s, head.clone(), next)
            };
            if next == head {
                info.converged = true;
                break;
            }
            head = next;
            info.heads.push(head.clone());
            if n >= MAX_ITERATIONS {
                break;
            }
        }
        self.loops.insert(A::Graph::id(s), info);
        (head, exit)
    }

    fn while_loop(
        &mut self,
        s: &Stmt<A>,
        header: &[Stmt<A>],
        cond: &<A::Graph as Cfg>::Cond,
        body: &[Stmt<A>],
        fact: A::Fact,
    ) -> State<A::Fact> {
        let exact = self.a.exact_loop(s, &fact);
        let (_, exit) = self.fixpoint(s, State::Reachable(fact), |run, head| {
            let tested = run.block(header, head);
            let Some(t) = tested.fact().cloned() else {
                return (State::Nonviable, State::Nonviable);
            };
            let body_in = run.a.branch(s, cond, true, &t);
            let leave = run.a.branch(s, cond, false, &t);
            (run.block(body, body_in), leave)
        });
        exact.unwrap_or(exit)
    }

    fn for_loop(
        &mut self,
        s: &Stmt<A>,
        var: &<A::Graph as Cfg>::LoopVar,
        iter: &<A::Graph as Cfg>::Iter,
        body: &[Stmt<A>],
        fact: A::Fact,
    ) -> State<A::Fact> {
        let exact = self.a.exact_loop(s, &fact);
        let (head, breaks) = self.fixpoint(s, State::Reachable(fact), |run, head| {
            let body_in = match &head {
                State::Reachable(h) => run.a.for_iteration(s, var, iter, h),
                State::Nonviable => State::Nonviable,
            };
            (run.block(body, body_in), State::Nonviable)
        });
        // Zero or more iterations: leave from the head, or through a break (or as the
        // analysis's exact account of every iteration says).
        let out = match exact {
            Some(exact) => exact,
            None => self.join_at(s, head, breaks),
        };
        match out {
            State::Reachable(f) => self.a.for_exit(s, var, iter, &f),
            State::Nonviable => State::Nonviable,
        }
    }
}

#[cfg(test)]
mod tests;
