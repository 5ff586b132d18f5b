//! The framework run with a toy interval analysis (a lattice of infinite height, so loops
//! terminate only through widening) on hand-built IR.

use super::*;
use crate::tame::{Function, FunctionKind, Literal, Program, Stmt, StmtKind};
use shapex_text::Span;
use std::collections::BTreeMap;

/// An integer interval; `None` bounds are infinite.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Iv {
    lo: Option<i64>,
    hi: Option<i64>,
}

impl Iv {
    fn k(v: i64) -> Iv {
        Iv {
            lo: Some(v),
            hi: Some(v),
        }
    }
    fn top() -> Iv {
        Iv { lo: None, hi: None }
    }
}

type Env = BTreeMap<String, Iv>;

struct Intervals;

fn min_opt(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    Some(a?.min(b?))
}
fn max_opt(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    Some(a?.max(b?))
}

impl Intervals {
    fn entry(&self, f: &Function) -> Env {
        f.params.iter().map(|p| (p.clone(), Iv::top())).collect()
    }
}

impl Analysis for Intervals {
    type Graph = Tame;
    type Fact = Env;

    fn join(&self, a: &Env, b: &Env) -> Env {
        let mut out = a.clone();
        for (k, v) in b {
            let j = match a.get(k) {
                Some(u) => Iv {
                    lo: min_opt(u.lo, v.lo),
                    hi: max_opt(u.hi, v.hi),
                },
                None => *v,
            };
            out.insert(k.clone(), j);
        }
        out
    }

    fn widen(&self, prev: &Env, next: &Env) -> Env {
        let mut out = next.clone();
        for (k, n) in next {
            if let Some(p) = prev.get(k) {
                let lo = if n.lo < p.lo || n.lo.is_none() {
                    None
                } else {
                    p.lo
                };
                let hi = match (p.hi, n.hi) {
                    (Some(a), Some(b)) if b <= a => Some(a),
                    _ => None,
                };
                out.insert(k.clone(), Iv { lo, hi });
            }
        }
        out
    }

    fn transfer(&self, s: &Stmt, input: &Env) -> State<Env> {
        let mut env = input.clone();
        let get = |v: &String| input.get(v).copied().unwrap_or(Iv::top());
        match &s.kind {
            StmtKind::AssignLiteral {
                lhs,
                value: Literal::Number { value, .. },
            } => {
                env.insert(lhs.clone(), Iv::k(*value as i64));
            }
            StmtKind::Copy { lhs, rhs } => {
                env.insert(lhs.clone(), get(rhs));
            }
            StmtKind::Call { func, .. } if func == "error" => return State::Nonviable,
            StmtKind::Call {
                targets,
                func,
                args,
            } if func == "plus" => {
                let (a, b) = (get(&args[0]), get(&args[1]));
                let add = |x: Option<i64>, y: Option<i64>| Some(x? + y?);
                env.insert(
                    targets[0].clone(),
                    Iv {
                        lo: add(a.lo, b.lo),
                        hi: add(a.hi, b.hi),
                    },
                );
            }
            _ => {
                for d in s.defs() {
                    env.insert(d.clone(), Iv::top());
                }
            }
        }
        State::Reachable(env)
    }

    /// A condition known to be 0 makes its true branch nonviable (and vice versa).
    fn branch(&self, _s: &Stmt, cond: &Var, taken: bool, input: &Env) -> State<Env> {
        match input.get(cond) {
            Some(iv) if *iv == Iv::k(0) && taken => State::Nonviable,
            Some(iv) if iv.lo.is_some_and(|l| l > 0) && !taken => State::Nonviable,
            _ => State::Reachable(input.clone()),
        }
    }

    fn for_iteration(&self, _s: &Stmt, var: &Var, iter: &ForIter, input: &Env) -> State<Env> {
        let mut env = input.clone();
        let iv = match iter {
            ForIter::Range { lower, upper, .. } => Iv {
                lo: input.get(lower).and_then(|i| i.lo),
                hi: input.get(upper).and_then(|i| i.hi),
            },
            ForIter::Columns(_) => Iv::top(),
        };
        env.insert(var.clone(), iv);
        State::Reachable(env)
    }
}

fn s(kind: StmtKind) -> Stmt {
    Stmt {
        id: StmtId(0),
        span: Span::default(),
        origin: Span::default(),
        prints: false,
        operator: None,
        kind,
    }
}
fn lit(v: &str, n: i64) -> Stmt {
    s(StmtKind::AssignLiteral {
        lhs: v.into(),
        value: Literal::Number {
            value: n as f64,
            imag: false,
            text: n.to_string(),
        },
    })
}
fn call(t: &[&str], f: &str, args: &[&str]) -> Stmt {
    s(StmtKind::Call {
        targets: t.iter().map(|x| x.to_string()).collect(),
        func: f.into(),
        args: args.iter().map(|x| x.to_string()).collect(),
    })
}
fn incr(v: &str, by: &str) -> Stmt {
    call(&[v], "plus", &[v, by])
}
fn while_(cond: &str, body: Vec<Stmt>) -> Stmt {
    s(StmtKind::While {
        header: vec![],
        cond: cond.into(),
        body,
    })
}
fn if_(cond: &str, t: Vec<Stmt>, e: Vec<Stmt>) -> Stmt {
    s(StmtKind::If {
        cond: cond.into(),
        then_body: t,
        else_body: e,
    })
}

/// Builds a one-function program with parameter `c` (an unknown condition) and runs.
fn run(body: Vec<Stmt>) -> (Function, FlowResult<Env>) {
    let mut p = Program {
        functions: vec![Function {
            name: "f".into(),
            kind: FunctionKind::Primary,
            parent: None,
            params: vec!["c".into()],
            outputs: vec![],
            body,
            variables: vec![],
            span: Span::default(),
        }],
        temp_prefix: "mc_t".into(),
        stmt_count: 0,
    };
    p.renumber();
    let f = p.functions.remove(0);
    let r = analyze_function(&Intervals, &f, Intervals.entry(&f));
    (f, r)
}

fn at_exit(r: &FlowResult<Env>, v: &str) -> Iv {
    r.exit
        .fact()
        .and_then(|e| e.get(v))
        .copied()
        .unwrap_or(Iv::top())
}

#[test]
fn if_joins_both_branches() {
    let (_, r) = run(vec![if_("c", vec![lit("x", 1)], vec![lit("x", 3)])]);
    assert_eq!(
        at_exit(&r, "x"),
        Iv {
            lo: Some(1),
            hi: Some(3)
        }
    );
}

#[test]
fn unbounded_while_terminates_by_widening() {
    let (f, r) = run(vec![
        lit("x", 0),
        lit("one", 1),
        while_("c", vec![incr("x", "one")]),
    ]);
    assert_eq!(
        at_exit(&r, "x"),
        Iv {
            lo: Some(0),
            hi: None
        }
    );
    let info = &r.loops[&f.body[2].id];
    assert!(info.converged);
    assert!(info.widened_at.is_some());
    // The head grows on the first iterations and is stable at the end.
    assert_eq!(info.heads[0].fact().unwrap()["x"], Iv::k(0));
}

#[test]
fn nested_unbounded_loops_terminate() {
    let inner = while_("c", vec![incr("y", "one"), incr("x", "y")]);
    let (_, r) = run(vec![
        lit("x", 0),
        lit("y", 0),
        lit("one", 1),
        while_("c", vec![inner, incr("x", "one")]),
    ]);
    assert_eq!(at_exit(&r, "x").hi, None);
    assert!(r.loops.values().all(|l| l.converged));
}

#[test]
fn error_makes_following_code_nonviable() {
    let (f, r) = run(vec![lit("x", 1), call(&[], "error", &[]), lit("y", 2)]);
    assert!(!r.before[&f.body[2].id].is_viable());
    assert_eq!(r.exit, State::Nonviable);
    assert_eq!(r.nonviable(), vec![f.body[2].id]);
}

#[test]
fn break_flows_to_loop_exit_and_code_after_it_is_nonviable() {
    let (f, r) = run(vec![
        lit("x", 0),
        while_("c", vec![lit("x", 5), s(StmtKind::Break), lit("x", 7)]),
    ]);
    let StmtKind::While { body, .. } = &f.body[1].kind else {
        unreachable!()
    };
    assert!(!r.before[&body[2].id].is_viable());
    assert_eq!(
        at_exit(&r, "x"),
        Iv {
            lo: Some(0),
            hi: Some(5)
        }
    );
}

#[test]
fn continue_flows_back_to_the_loop_head() {
    // for i = lo:hi; if c, x = 9; continue; end; x = 1; end  — x = 9 reaches the head.
    let body = vec![
        if_("c", vec![lit("x", 9), s(StmtKind::Continue)], vec![]),
        lit("x", 1),
    ];
    let (f, r) = run(vec![
        lit("x", 0),
        lit("lo", 1),
        lit("hi", 3),
        s(StmtKind::For {
            var: "i".into(),
            iter: ForIter::Range {
                lower: "lo".into(),
                step: None,
                upper: "hi".into(),
            },
            body,
        }),
    ]);
    assert_eq!(
        at_exit(&r, "x"),
        Iv {
            lo: Some(0),
            hi: Some(9)
        }
    );
    let StmtKind::For { body, .. } = &f.body[3].kind else {
        unreachable!()
    };
    assert_eq!(
        r.before[&body[0].id].fact().unwrap()["i"],
        Iv {
            lo: Some(1),
            hi: Some(3)
        }
    );
}

#[test]
fn return_reaches_function_exit() {
    let (_, r) = run(vec![
        lit("x", 1),
        if_("c", vec![lit("x", 2), s(StmtKind::Return)], vec![]),
        lit("x", 3),
    ]);
    assert_eq!(
        at_exit(&r, "x"),
        Iv {
            lo: Some(2),
            hi: Some(3)
        }
    );
}

#[test]
fn branch_hook_prunes_a_constant_false_condition() {
    let (f, r) = run(vec![
        lit("z", 0),
        if_("z", vec![lit("x", 1)], vec![lit("x", 2)]),
    ]);
    let StmtKind::If { then_body, .. } = &f.body[1].kind else {
        unreachable!()
    };
    assert!(!r.before[&then_body[0].id].is_viable());
    assert_eq!(at_exit(&r, "x"), Iv::k(2));
}

#[test]
fn loop_heads_show_a_change_only_on_the_first_iteration() {
    // x = 0; for i = lo:hi, x = 1; end: x is 0 entering iteration 0, then [0, 1].
    let (f, r) = run(vec![
        lit("x", 0),
        lit("lo", 1),
        lit("hi", 3),
        s(StmtKind::For {
            var: "i".into(),
            iter: ForIter::Range {
                lower: "lo".into(),
                step: None,
                upper: "hi".into(),
            },
            body: vec![lit("x", 1)],
        }),
    ]);
    let info = &r.loops[&f.body[3].id];
    let xs: Vec<Iv> = info.heads.iter().map(|h| h.fact().unwrap()["x"]).collect();
    assert_eq!(
        xs,
        vec![
            Iv::k(0),
            Iv {
                lo: Some(0),
                hi: Some(1)
            }
        ]
    );
    assert_eq!(info.widened_at, None);
}

#[test]
fn try_catch_joins_states_from_inside_the_body() {
    let (_, r) = run(vec![s(StmtKind::Try {
        body: vec![lit("x", 1), call(&[], "error", &[]), lit("x", 5)],
        catch_var: None,
        catch_body: vec![],
    })]);
    // Normal completion is impossible (error), so x comes from the catch: ⊒ 1.
    let x = at_exit(&r, "x");
    assert_eq!(x.lo, Some(1));
}
