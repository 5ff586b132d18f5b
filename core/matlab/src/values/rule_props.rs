//! Issue #19, item 1: every rule of the builtin table (the operators are builtins by
//! name) checked against concrete instances. Operands get random symbolic shape
//! tuples — open rank included — and integer arguments random symbolic values; each
//! instance binds the symbols to small numbers (0, 1, 2, 3 and larger, 1 favoured, so
//! trailing and leading singletons are common) and gives an open-rank operand random
//! trailing extents. The symbolic evaluation must agree with every instance:
//! - a definite error (θ refuted) is an error for every instance;
//! - a proof (every θ proven) is a pass for every instance;
//! - a definite result shape (a tuple whose extents the instance determines) equals
//!   the instance's, whenever the instance passes, and so does a result's symbolic
//!   value (`length`, `numel`, `size(x,k)`: what later sizes are computed from).
//!
//! The case count is modest by default so `cargo test` stays quick;
//! `SHAPEX_RULE_CASES=100000` raises it, `SHAPEX_RULE_ONLY=inv,mtimes` picks rules.

use super::eval::{self, Call};
use super::Value;
use crate::builtins::BuiltinTable;
use crate::shape::Shape;
use crate::Mode;
use proptest::prelude::*;
use shapex_dims::{Dim, Facts, Truth};

/// Extent symbols `e0..e3` (non-negative) and value symbols `v0`, `v1` (any sign).
const EXTENT_SYMS: usize = 4;
const VALUE_SYMS: usize = 2;

#[derive(Clone, Debug)]
enum GDim {
    Known(i64),
    Sym(usize),
}

#[derive(Clone, Debug)]
enum GArg {
    /// An array of these extents; `open` when its rank is open (an input).
    Array { dims: Vec<GDim>, open: bool },
    /// An integer scalar with this value (`Sym` is a value symbol).
    Int(GDim),
}

#[derive(Clone, Debug)]
struct Instance {
    extents: Vec<i64>,
    values: Vec<i64>,
    /// Trailing extents an open-rank operand has in this instance, by argument.
    trailing: Vec<Vec<i64>>,
}

fn gdim(syms: usize) -> impl Strategy<Value = GDim> {
    prop_oneof![
        3 => prop_oneof![Just(0i64), Just(1), Just(1), Just(2), Just(3), Just(5)].prop_map(GDim::Known),
        4 => (0..syms).prop_map(GDim::Sym),
    ]
}

fn garg() -> impl Strategy<Value = GArg> {
    prop_oneof![
        6 => (prop::collection::vec(gdim(EXTENT_SYMS), 1..=4), prop::bool::weighted(0.3))
            .prop_map(|(dims, open)| GArg::Array { dims, open }),
        2 => gdim(VALUE_SYMS).prop_map(GArg::Int),
    ]
}

fn extent_value() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(0i64),
        Just(1),
        Just(1),
        Just(1),
        Just(2),
        Just(3),
        Just(4),
        Just(7)
    ]
}

fn instance(nargs: usize) -> impl Strategy<Value = Instance> {
    (
        prop::collection::vec(extent_value(), EXTENT_SYMS),
        prop::collection::vec(
            prop_oneof![
                Just(-1i64),
                Just(0),
                Just(1),
                Just(1),
                Just(2),
                Just(3),
                Just(6)
            ],
            VALUE_SYMS,
        ),
        prop::collection::vec(
            prop_oneof![
                3 => Just(vec![]),
                2 => Just(vec![1]),
                1 => Just(vec![2]),
                1 => Just(vec![1, 3]),
                1 => Just(vec![3, 1]),
            ],
            nargs,
        ),
    )
        .prop_map(|(extents, values, trailing)| Instance {
            extents,
            values,
            trailing,
        })
}

fn symbolic_dim(d: &GDim, value: bool) -> Dim {
    match d {
        GDim::Known(k) => Dim::known(*k),
        GDim::Sym(i) if value => Dim::val(&format!("v{i}")),
        GDim::Sym(i) => Dim::sym(&format!("e{i}")),
    }
}

fn concrete_dim(d: &GDim, value: bool, inst: &Instance) -> i64 {
    match d {
        GDim::Known(k) => *k,
        GDim::Sym(i) if value => inst.values[*i],
        GDim::Sym(i) => inst.extents[*i],
    }
}

fn symbolic_value(a: &GArg) -> Value {
    match a {
        GArg::Array { dims, open } => {
            let mut ds: Vec<Dim> = dims.iter().map(|d| symbolic_dim(d, false)).collect();
            if *open {
                // An input of open rank is seen as <x_1, x_2>.
                ds.truncate(2);
            }
            Value {
                open_rank: *open,
                ..Value::of_shape(Some("double"), Shape::tuple(ds))
            }
        }
        GArg::Int(d) => Value::scalar(Some(symbolic_dim(d, true))),
    }
}

fn concrete_value(a: &GArg, k: usize, inst: &Instance) -> Value {
    match a {
        GArg::Array { dims, open } => {
            let mut ds: Vec<Dim> = dims
                .iter()
                .map(|d| Dim::known(concrete_dim(d, false, inst)))
                .collect();
            if *open {
                // Open rank: the operand is <x_1, x_2, …> with any trailing extents.
                ds.truncate(2);
                ds.resize(2, Dim::one());
                ds.extend(inst.trailing[k].iter().map(|&t| Dim::known(t)));
            }
            Value::of_shape(Some("double"), Shape::tuple(ds))
        }
        GArg::Int(d) => Value::scalar(Some(Dim::known(concrete_dim(d, true, inst)))),
    }
}

/// An error, a pass, or neither known (a run-time check, an unknown rule).
fn verdict(r: &eval::CallResult) -> Truth {
    if r.outcomes.iter().any(|o| o.status == Truth::Refuted) {
        Truth::Refuted
    } else if !r.diverges && r.outcomes.iter().all(|o| o.status == Truth::Proven) {
        Truth::Proven
    } else {
        Truth::Unknown
    }
}

fn bind(inst: &Instance) -> impl Fn(&str) -> Option<i64> + '_ {
    |name: &str| {
        if let Some(i) = name.strip_prefix('e') {
            inst.extents.get(i.parse::<usize>().ok()?).copied()
        } else if let Some(i) = name.strip_prefix('v') {
            inst.values.get(i.parse::<usize>().ok()?).copied()
        } else {
            None
        }
    }
}

/// The shape `s` takes in the instance, canonical; `None` when it is not determined
/// by the symbols (a fresh extent, a placeholder, an unknown rank).
fn instance_shape(s: &Shape, inst: &Instance) -> Option<Shape> {
    let t = s.as_tuple()?;
    let env = bind(inst);
    let dims: Option<Vec<Dim>> = t
        .dims()
        .iter()
        .map(|d| d.eval(&env).map(Dim::known))
        .collect();
    Some(Shape::tuple(dims?))
}

fn check(
    table: &BuiltinTable,
    mode: Mode,
    func: &str,
    args: &[GArg],
    instances: &[Instance],
) -> Result<(), TestCaseError> {
    let mint = |stem: &str, k: usize, _value: bool| Dim::sym(&format!("{stem}{k}"));
    let facts = Facts::default();
    let targets = ["r".to_string()];
    let sym_call = Call {
        func,
        args: args.iter().map(symbolic_value).collect(),
        nargout: 1,
        targets: &targets,
        mint: &mint,
    };
    let sym = eval::call(table, mode, &sym_call, &facts);
    let sym_verdict = verdict(&sym);
    for inst in instances {
        let call = Call {
            func,
            args: args
                .iter()
                .enumerate()
                .map(|(k, a)| concrete_value(a, k, inst))
                .collect(),
            nargout: 1,
            targets: &targets,
            mint: &mint,
        };
        let conc = eval::call(table, mode, &call, &facts);
        let conc_verdict = verdict(&conc);
        let what = || {
            format!(
                "{func} ({mode:?}) on {:?}: symbolic {:?} ({}), instance {inst:?} {:?} ({})",
                sym_call
                    .args
                    .iter()
                    .map(|v| (v.shape.to_string(), v.open_rank, v.scalar.clone()))
                    .collect::<Vec<_>>(),
                sym_verdict,
                sym.outcomes
                    .iter()
                    .map(|o| o.theta.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
                conc_verdict,
                conc.outcomes
                    .iter()
                    .map(|o| o.theta.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        };
        match (sym_verdict, conc_verdict) {
            (Truth::Refuted, Truth::Proven) => {
                return Err(TestCaseError::fail(format!(
                    "a definite error passes: {}",
                    what()
                )))
            }
            (Truth::Proven, Truth::Refuted) => {
                return Err(TestCaseError::fail(format!("a proof fails: {}", what())))
            }
            _ => {}
        }
        if sym_verdict == Truth::Refuted || conc_verdict != Truth::Proven {
            continue;
        }
        let (Some(s), Some(c)) = (sym.values.first(), conc.values.first()) else {
            continue;
        };
        // A value the sizes are computed from (`length`, `numel`, `size(x,k)`…) must
        // also be the instance's.
        let env = bind(inst);
        let values = (
            s.scalar.as_ref().and_then(|d| d.eval(&env)),
            c.scalar.as_ref().and_then(Dim::as_known),
        );
        if let (Some(expected), Some(got)) = values {
            if expected != got {
                return Err(TestCaseError::fail(format!(
                    "value {} is {expected} in the instance, which gives {got}: {}",
                    s.scalar.as_ref().map_or(String::new(), Dim::to_string),
                    what()
                )));
            }
        }
        if s.open_rank {
            // `<x_1,x_2>` is then only the result's first two extents.
            continue;
        }
        if let (Some(expected), Shape::Tuple(_)) = (instance_shape(&s.shape, inst), &c.shape) {
            if expected != c.shape {
                return Err(TestCaseError::fail(format!(
                    "result {} is {} in the instance, which gives {}: {}",
                    s.shape,
                    expected,
                    c.shape,
                    what()
                )));
            }
        }
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("SHAPEX_RULE_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

/// `SHAPEX_RULE_ONLY=inv,transpose` restricts the builtins drawn (to chase one rule).
fn only() -> Option<Vec<String>> {
    let names = std::env::var("SHAPEX_RULE_ONLY").ok()?;
    Some(names.split(',').map(str::to_string).collect())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_rule_agrees_with_its_concrete_instances(
        pick in any::<prop::sample::Index>(),
        args in prop::collection::vec(garg(), 1..=3),
        paper in any::<bool>(),
        instances in prop::collection::vec(instance(3), 8),
    ) {
        let table = BuiltinTable::standard();
        let names: Vec<String> = only()
            .unwrap_or_else(|| table.builtins().iter().map(|b| b.name.clone()).collect());
        let name = pick.get(&names);
        let mode = if paper { Mode::Paper } else { Mode::Modern };
        check(&table, mode, name, &args, &instances)?;
    }
}
