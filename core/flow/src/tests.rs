//! The framework on a toy structured IR of its own (the MATLAB crate runs it on the Tame
//! IR too), with constant propagation: a flat lattice, so loops converge by joins.

use super::*;
use std::collections::BTreeMap;

/// Toy statements: `x = k`, `x = x + 1`, if/while on a variable being nonzero, jumps.
enum Kind {
    Set(&'static str, i64),
    Inc(&'static str),
    If(&'static str, Vec<S>, Vec<S>),
    While(&'static str, Vec<S>),
    Break,
    Return,
}

struct S {
    id: u32,
    kind: Kind,
}

struct Toy;

impl Cfg for Toy {
    type Stmt = S;
    type Id = u32;
    type Cond = &'static str;
    type LoopVar = ();
    type Iter = ();

    fn id(s: &S) -> u32 {
        s.id
    }

    fn control(s: &S) -> Control<'_, Toy> {
        match &s.kind {
            Kind::If(c, t, e) => Control::If {
                cond: c,
                then_body: t,
                else_body: e,
            },
            Kind::While(c, b) => Control::While {
                header: &[],
                cond: c,
                body: b,
            },
            Kind::Break => Control::Break,
            Kind::Return => Control::Return,
            _ => Control::Simple,
        }
    }
}

/// Variable → its constant, or `None` when it may differ between paths.
type Env = BTreeMap<&'static str, Option<i64>>;

struct Constants;

impl Analysis for Constants {
    type Graph = Toy;
    type Fact = Env;

    fn join(&self, a: &Env, b: &Env) -> Env {
        let mut out = a.clone();
        for (k, v) in b {
            let same = a.get(k).is_some_and(|u| u == v);
            out.insert(k, if same { *v } else { None });
        }
        out
    }

    fn transfer(&self, s: &S, input: &Env) -> State<Env> {
        let mut env = input.clone();
        match s.kind {
            Kind::Set(x, k) => {
                env.insert(x, Some(k));
            }
            Kind::Inc(x) => {
                let v = env.get(x).copied().flatten().map(|v| v + 1);
                env.insert(x, v);
            }
            _ => {}
        }
        State::Reachable(env)
    }

    fn branch(&self, _: &S, cond: &&'static str, taken: bool, input: &Env) -> State<Env> {
        match input.get(cond) {
            Some(Some(v)) if (*v != 0) != taken => State::Nonviable,
            _ => State::Reachable(input.clone()),
        }
    }
}

fn s(id: u32, kind: Kind) -> S {
    S { id, kind }
}

#[test]
fn branches_join_loops_converge_and_jumps_end_paths() {
    let body = vec![
        s(0, Kind::Set("x", 1)),
        s(1, Kind::Set("c", 0)),
        // c is 0: the then-branch cannot be taken.
        s(2, Kind::If("c", vec![s(3, Kind::Set("x", 2))], vec![])),
        s(4, Kind::Set("go", 1)),
        s(
            5,
            Kind::While("go", vec![s(6, Kind::Inc("x")), s(7, Kind::Break)]),
        ),
        s(8, Kind::Return),
        s(9, Kind::Set("dead", 1)),
    ];
    let r = analyze(&Constants, &body, Env::new());
    assert_eq!(
        r.before[&3],
        State::Nonviable,
        "a branch that cannot be taken"
    );
    assert_eq!(r.after[&2].fact().unwrap()["x"], Some(1));
    // The loop body runs once and breaks: x = 2 after it.
    assert_eq!(r.after[&5].fact().unwrap()["x"], Some(2));
    assert!(r.loops[&5].converged);
    assert_eq!(r.nonviable(), vec![3, 9]);
    assert_eq!(r.exit.fact().unwrap()["x"], Some(2));
}

#[test]
fn a_loop_that_changes_a_variable_joins_it_to_unknown() {
    let body = vec![
        s(0, Kind::Set("x", 0)),
        s(1, Kind::While("unknown", vec![s(2, Kind::Inc("x"))])),
    ];
    let r = analyze(&Constants, &body, Env::new());
    assert_eq!(r.after[&1].fact().unwrap()["x"], None);
    assert_eq!(r.before[&2].fact().unwrap()["x"], None);
}
