//! Seeded programs with local functions, for the Octave differential suite of calling
//! contexts (issue #22 item 1): a function file whose first function `main_NNN()` has
//! a body made by the script generator (`Gen`: one statement per line, its templated
//! loop blocks included) with calls of 1–3 local functions. Each local function takes
//! 1–2 parameters (arrays, or an array and an integer count that sizes arrays),
//! returns 1–2 outputs and has 1–4 statements over the operations the script
//! generator models (elementwise, `*`, transpose, concatenation, indexing,
//! reductions, `repmat`, `reshape`, sizes read with `size`); it may call the next
//! local function, so calls chain two or three deep.
//!
//! `main` calls each function 2–3 times with arguments of different shapes (several
//! calling contexts), sometimes asking for fewer outputs than declared (`v = f(x)` of
//! a two-output `f`) or skipping the first (`[~, w] = f(x)`). About half the programs
//! make one call fail: inside the callee for that call's argument shapes only (the
//! same function succeeds at its other call sites), or, rarely, by passing too many
//! arguments or asking for too many outputs. In half the programs some arguments are
//! sized by integers computed from data (`n = numel(find([1 0 1] > 0.5))`, then
//! `ones(n, 3)`), which the analysis sees as unknown: symbolic calling contexts.
//!
//! Now and then a local function is named after a builtin it shadows (`trace`, `flip`,
//! …; none the script generator's statements call), and `main` may call a function
//! in a counted loop whose index sizes an argument or is passed as a count; calls
//! chain through count parameters too.
//!
//! An array argument may also reach its callee through a struct, a cell or an
//! anonymous function (`s = struct('a', x, 'b', 'pad')` then `f(s.a)`; `c = {x, 7}`
//! then `f(c{1})`; `s.c = {x}` then `f(s.c{1})`; `g = @() w` then `f(g())`; a struct
//! array, issue #22 item 4: `s(1).a = x` or `s = struct('a', {x, x})` then
//! `f(s(2).a)`), and a
//! call that succeeds may go through a handle (`h = @f; h(x)`) or spread its
//! arguments from a cell (`a = {x, 3}; f(a{:})`): issue #22 item 9.
//!
//! The generator's model evaluates a local function on concrete argument shapes
//! (`LocalFn::eval`); it picks argument shapes by sampling until the model says the
//! call succeeds (or, for the failing call, fails). As for scripts, the model is not
//! the oracle: Octave is, and the differential test checks that the two agree.

use super::{broadcast, canonical, numel, Dims, Gen, GenStmt};

/// An argument of a call: an array of a shape, or an integer (for a count parameter,
/// which sizes arrays inside the callee).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    Array(Dims),
    Count(usize),
}

impl Arg {
    /// The argument's size.
    pub fn dims(&self) -> Dims {
        match self {
            Arg::Array(d) => d.clone(),
            Arg::Count(_) => vec![1, 1],
        }
    }
}

/// Which of the `main` calls must fail, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The callee fails for this call's argument shapes (a shape error inside it).
    Callee,
    /// More arguments than the callee has parameters (`call.nargin`).
    TooManyInputs,
    /// More outputs than the callee declares (`call.nargout`).
    TooManyOutputs,
}

/// A call of a local function on one line of `main`.
#[derive(Clone, Debug)]
pub struct MainCall {
    /// Index of the statement in [`FnProgram::main`].
    pub stmt: usize,
    pub callee: String,
    /// The arguments (the calling context).
    pub args: Vec<Arg>,
    /// Every variable the call assigns, with the size the model predicts (`None` for
    /// the failing call).
    pub outputs: Vec<(String, Option<Dims>)>,
    pub failure: Option<Failure>,
    /// The call is the body of a counted loop whose index sizes an argument (`args`
    /// are the first iteration's); its sizes over the iterations are the statement's
    /// `predicted`, and a failing one fails on a later iteration than the first.
    pub in_loop: bool,
}

/// A function file: `main` (its statements on lines 2, 3, …), then its local functions.
#[derive(Clone, Debug)]
pub struct FnProgram {
    /// Also the name of the first function, so the file must be `<name>.m`.
    pub name: String,
    pub main: Vec<GenStmt>,
    pub functions: Vec<LocalFn>,
    pub calls: Vec<MainCall>,
    /// Some arguments are sized by integers computed from data (`numel(find(…))`),
    /// which an analysis sees as unknown: those calls are analysed in symbolic
    /// contexts. Otherwise every argument's shape is a constant.
    pub symbolic: bool,
}

impl FnProgram {
    /// The function file: `function NAME()`, main's statements, `end`, a blank line
    /// and each local function.
    pub fn source(&self) -> String {
        let mut s = format!("function {}()\n", self.name);
        for st in &self.main {
            s += &st.text;
            s += "\n";
        }
        s += "end\n";
        for f in &self.functions {
            s += "\n";
            s += &f.source(&self.functions);
        }
        s
    }

    /// The line of `main`'s statement `i`.
    pub fn line_of(i: usize) -> u32 {
        i as u32 + 2
    }

    /// The line of the failing call, if any.
    pub fn injected_line(&self) -> Option<u32> {
        self.main
            .iter()
            .position(|s| s.injected_error)
            .map(Self::line_of)
    }

    pub fn failure(&self) -> Option<Failure> {
        self.calls.iter().find_map(|c| c.failure)
    }
}

/// `count` programs from `seed`; the same arguments always give the same programs.
pub fn generate(seed: u64, count: usize) -> Vec<FnProgram> {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..count)
        .map(|i| program(rng.u64(..), format!("main_{i:03}")))
        .collect()
}

/// What a statement of a local function computes; operands are slots (parameters
/// first, then the locals in order of definition).
#[derive(Clone, Debug)]
enum Expr {
    /// `a op b`, broadcasting.
    Binary(&'static str, usize, usize),
    /// A shape-preserving unary form (`2 * a`, `abs(a)`, …), by index into `UNARY`.
    Unary(usize, usize),
    Mtimes(usize, usize),
    Transpose(usize),
    /// `[a, b]` (horizontal) or `[a; b]`.
    Cat(bool, usize, usize),
    /// An index expression, by index into `SELECT`.
    Index(usize, usize),
    /// `f(a)`, `f(a, d)` or for max/min `f(a, [], d)`.
    Reduce(&'static str, Option<usize>, usize),
    Repmat(usize, usize, usize),
    /// `reshape(a, 1, [])` (0), `reshape(a, [], 1)` (1), `reshape(a, k, [])` (k ≥ 2).
    Reshape(usize, usize),
    /// A form reading the operand's size, by index into `SIZED`.
    Sized(usize, usize),
    /// A form sizing an array by the count parameter `c`, by index into `COUNTED`.
    Counted(usize, usize, usize),
    /// A call of another local function (by index into the program's functions).
    Call(usize, Vec<usize>),
}

const UNARY: [&str; 6] = [
    "2 * {a}",
    "{a} + 1",
    "abs({a})",
    "-{a}",
    "{a} / 2",
    "cumsum({a}, 2)",
];

const SELECT: [&str; 9] = [
    "{a}(1, :)",
    "{a}(:, 1)",
    "{a}(:)",
    "{a}(end, :)",
    "{a}(2, :)",
    "{a}(:, 2)",
    "{a}(1:2, :)",
    "{a}(:, end:-1:1)",
    "{a}(end)",
];

const SIZED: [&str; 5] = [
    "{a} + ones(size({a}, 1), 1)",
    "zeros(size({a}, 2), 1)",
    "ones(size({a}))",
    "{a} * ones(size({a}, 2), 1)",
    "{a}(:, 1) * {a}(1, :)",
];

const COUNTED: [&str; 6] = [
    "repmat({a}, {c}, 1)",
    "[{a}; zeros({c}, size({a}, 2))]",
    "{a}(1:{c}, :)",
    "reshape({a}, {c}, [])",
    "ones({c}, size({a}, 1)) * {a}",
    "{a}(:, 1) * ones(1, {c})",
];

#[derive(Clone, Debug)]
struct FnStmt {
    targets: Vec<usize>,
    expr: Expr,
}

/// One local function.
#[derive(Clone, Debug)]
pub struct LocalFn {
    pub name: String,
    params: usize,
    /// The second parameter is an integer (named `n2`) that sizes arrays.
    count_param: bool,
    /// Slot names: `x1`, `x2` (or `n2`) for the parameters, then `t1`, `t2`, … for
    /// the locals.
    slots: Vec<String>,
    body: Vec<FnStmt>,
    outputs: Vec<usize>,
}

impl LocalFn {
    pub fn params(&self) -> usize {
        self.params
    }

    pub fn outputs(&self) -> usize {
        self.outputs.len()
    }

    fn source(&self, fns: &[LocalFn]) -> String {
        let outs: Vec<&str> = self
            .outputs
            .iter()
            .map(|&o| self.slots[o].as_str())
            .collect();
        let outs = match outs.as_slice() {
            [one] => one.to_string(),
            many => format!("[{}]", many.join(", ")),
        };
        let params: Vec<&str> = self.slots[..self.params]
            .iter()
            .map(String::as_str)
            .collect();
        let mut s = format!("function {outs} = {}({})\n", self.name, params.join(", "));
        for st in &self.body {
            let targets: Vec<&str> = st.targets.iter().map(|&t| self.slots[t].as_str()).collect();
            let lhs = match targets.as_slice() {
                [one] => one.to_string(),
                many => format!("[{}]", many.join(", ")),
            };
            s += &format!("  {lhs} = {};\n", self.expr_text(&st.expr, fns));
        }
        s += "end\n";
        s
    }

    fn expr_text(&self, e: &Expr, fns: &[LocalFn]) -> String {
        let n = |i: &usize| self.slots[*i].clone();
        let fill = |t: &str, a: &usize| t.replace("{a}", &n(a));
        match e {
            Expr::Binary(op, a, b) => format!("{} {op} {}", n(a), n(b)),
            Expr::Unary(k, a) => fill(UNARY[*k], a),
            Expr::Mtimes(a, b) => format!("{} * {}", n(a), n(b)),
            Expr::Transpose(a) => format!("{}'", n(a)),
            Expr::Cat(true, a, b) => format!("[{}, {}]", n(a), n(b)),
            Expr::Cat(false, a, b) => format!("[{}; {}]", n(a), n(b)),
            Expr::Index(k, a) => fill(SELECT[*k], a),
            Expr::Reduce(f, None, a) => format!("{f}({})", n(a)),
            Expr::Reduce(f @ ("max" | "min"), Some(d), a) => format!("{f}({}, [], {d})", n(a)),
            Expr::Reduce(f, Some(d), a) => format!("{f}({}, {d})", n(a)),
            Expr::Repmat(a, r, c) => format!("repmat({}, {r}, {c})", n(a)),
            Expr::Reshape(0, a) => format!("reshape({}, 1, [])", n(a)),
            Expr::Reshape(1, a) => format!("reshape({}, [], 1)", n(a)),
            Expr::Reshape(k, a) => format!("reshape({}, {k}, [])", n(a)),
            Expr::Sized(k, a) => fill(SIZED[*k], a),
            Expr::Counted(k, a, c) => fill(COUNTED[*k], a).replace("{c}", &n(c)),
            Expr::Call(f, args) => {
                let args: Vec<String> = args.iter().map(n).collect();
                format!("{}({})", fns[*f].name, args.join(", "))
            }
        }
    }

    /// The shapes of the outputs when called with `args` (at least the parameters'
    /// count), or `None` when a statement fails.
    pub fn eval(&self, fns: &[LocalFn], args: &[Arg]) -> Option<Vec<Dims>> {
        let mut env: Vec<Option<Dims>> = vec![None; self.slots.len()];
        let mut counts: Vec<Option<usize>> = vec![None; self.slots.len()];
        for (i, a) in args.iter().take(self.params).enumerate() {
            env[i] = Some(canonical(a.dims()));
            if let Arg::Count(c) = a {
                counts[i] = Some(*c);
            }
        }
        for st in &self.body {
            let get = |i: &usize| env[*i].clone();
            let one = match &st.expr {
                Expr::Counted(k, a, c) => eval_counted(*k, get(a)?, counts[*c]?)?,
                Expr::Call(f, a) => {
                    let a: Option<Vec<Arg>> = a
                        .iter()
                        .map(|i| match counts[*i] {
                            Some(c) => Some(Arg::Count(c)),
                            None => get(i).map(Arg::Array),
                        })
                        .collect();
                    let outs = fns[*f].eval(fns, &a?)?;
                    for (t, d) in st.targets.iter().zip(outs) {
                        env[*t] = Some(d);
                    }
                    continue;
                }
                e => eval_expr(e, &get)?,
            };
            env[st.targets[0]] = Some(canonical(one));
        }
        self.outputs.iter().map(|&o| env[o].clone()).collect()
    }
}

fn eval_counted(k: usize, s: Dims, c: usize) -> Option<Dims> {
    Some(match k {
        0 => vec![s[0] * c, s[1]],
        1 => vec![s[0] + c, s[1]],
        2 => (c <= s[0]).then(|| vec![c, s[1]])?,
        3 => numel(&s)
            .is_multiple_of(c)
            .then(|| vec![c, numel(&s) / c])?,
        4 => vec![c, s[1]],
        _ => vec![s[0], c],
    })
}

fn first_non_singleton(s: &[usize]) -> usize {
    s.iter().position(|&x| x != 1).unwrap_or(0)
}

fn eval_expr(e: &Expr, get: &dyn Fn(&usize) -> Option<Dims>) -> Option<Dims> {
    Some(match e {
        Expr::Binary(_, a, b) => broadcast(&get(a)?, &get(b)?)?,
        Expr::Unary(_, a) => get(a)?,
        Expr::Mtimes(a, b) => {
            let (s, t) = (get(a)?, get(b)?);
            if s == [1, 1] {
                t
            } else if t == [1, 1] {
                s
            } else if s.len() == 2 && t.len() == 2 && s[1] == t[0] {
                vec![s[0], t[1]]
            } else {
                return None;
            }
        }
        Expr::Transpose(a) => {
            let s = get(a)?;
            (s.len() == 2).then(|| vec![s[1], s[0]])?
        }
        Expr::Cat(horizontal, a, b) => {
            let (s, t) = (get(a)?, get(b)?);
            if s.len() != 2 || t.len() != 2 {
                return None;
            }
            if *horizontal {
                (s[0] == t[0]).then(|| vec![s[0], s[1] + t[1]])?
            } else {
                (s[1] == t[1]).then(|| vec![s[0] + t[0], s[1]])?
            }
        }
        Expr::Index(k, a) => {
            let s = get(a)?;
            match k {
                0 | 3 => vec![1, s[1]],
                1 => vec![s[0], 1],
                2 => vec![numel(&s), 1],
                4 => (s[0] >= 2).then(|| vec![1, s[1]])?,
                5 => (s[1] >= 2).then(|| vec![s[0], 1])?,
                6 => (s[0] >= 2).then(|| vec![2, s[1]])?,
                7 => s,
                _ => vec![1, 1],
            }
        }
        Expr::Reduce(_, d, a) => {
            let mut s = get(a)?;
            let d = d.map_or_else(|| first_non_singleton(&s), |d| d - 1);
            s[d] = 1;
            s
        }
        Expr::Repmat(a, r, c) => {
            let s = get(a)?;
            vec![s[0] * r, s[1] * c]
        }
        Expr::Reshape(k, a) => {
            let n = numel(&get(a)?);
            match k {
                0 => vec![1, n],
                1 => vec![n, 1],
                k => n.is_multiple_of(*k).then(|| vec![*k, n / k])?,
            }
        }
        Expr::Sized(k, a) => {
            let s = get(a)?;
            match k {
                0 | 2 => s,
                1 => vec![s[1], 1],
                3 => vec![s[0], 1],
                _ => vec![s[0], s[1]],
            }
        }
        Expr::Call(..) | Expr::Counted(..) => unreachable!("evaluated by LocalFn::eval"),
    })
}

/// What sampling found about a function: distinct argument shapes for which it
/// succeeds and for which it fails.
struct Contexts {
    ok: Vec<Vec<Arg>>,
    bad: Vec<Vec<Arg>>,
}

const SAMPLES: usize = 160;

impl Gen {
    fn small_extent(&mut self) -> usize {
        if self.rng.u8(..4) == 0 {
            1
        } else {
            self.rng.usize(2..=5)
        }
    }

    /// Argument shapes for `params` parameters: the second often related to the first
    /// (the same, a row or column of it, its transpose, a scalar), so that functions
    /// combining both parameters are often callable.
    fn sample_args(&mut self, f: &LocalFn) -> Vec<Arg> {
        let first = vec![self.small_extent(), self.small_extent()];
        let mut args = vec![Arg::Array(first.clone())];
        if f.count_param {
            args.push(Arg::Count(self.rng.usize(1..=5)));
        } else if f.params == 2 {
            let k = self.small_extent();
            let second = match self.rng.u8(..8) {
                0 | 1 => first.clone(),
                2 => vec![first[0], 1],
                3 => vec![1, first[1]],
                4 => vec![first[1], k],
                5 => vec![k, first[0]],
                6 => vec![1, 1],
                _ => vec![self.small_extent(), self.small_extent()],
            };
            args.push(Arg::Array(second));
        }
        args
    }

    fn contexts(&mut self, fns: &[LocalFn], f: &LocalFn) -> Contexts {
        let mut c = Contexts {
            ok: Vec::new(),
            bad: Vec::new(),
        };
        for _ in 0..SAMPLES {
            let args = self.sample_args(f);
            let list = if f.eval(fns, &args).is_some() {
                &mut c.ok
            } else {
                &mut c.bad
            };
            if !list.contains(&args) {
                list.push(args);
            }
        }
        c
    }

    /// A random local function `name`, one of whose statements calls `fns[callee]`
    /// when `callee` is given.
    fn local_fn(&mut self, name: String, fns: &[LocalFn], callee: Option<usize>) -> LocalFn {
        // A callee with a count parameter is passed this function's count.
        let count_param = callee.is_some_and(|f| fns[f].count_param) || self.rng.u8(..4) == 0;
        let params = if count_param {
            2
        } else {
            self.rng.usize(1..=2)
        };
        let outputs = self.rng.usize(1..=2);
        let mut slots: Vec<String> = (1..=params)
            .map(|i| match (i, count_param) {
                (2, true) => "n2".to_string(),
                _ => format!("x{i}"),
            })
            .collect();
        // The slots holding arrays (all but the count).
        let mut arrays: Vec<usize> = (0..params).filter(|&i| !(count_param && i == 1)).collect();
        let len = self.rng.usize(outputs..=4);
        let call_at = callee.map(|_| self.rng.usize(..len));
        let count_at = count_param.then(|| self.rng.usize(..len));
        let mut body = Vec::new();
        let mut locals = 0;
        for i in 0..len {
            let avail = arrays.len();
            // Prefer the newest slot, so that statements build on each other.
            let a = if self.rng.u8(..3) == 0 {
                arrays[self.rng.usize(..avail)]
            } else {
                arrays[avail - 1]
            };
            let b = arrays[self.rng.usize(..avail)];
            let expr = if call_at == Some(i) {
                let f = callee.unwrap_or(0);
                let args = (0..fns[f].params)
                    .map(|j| match j {
                        0 => a,
                        _ if fns[f].count_param => 1,
                        _ => b,
                    })
                    .collect();
                Expr::Call(f, args)
            } else if count_at == Some(i) || (count_param && self.rng.u8(..5) == 0) {
                Expr::Counted(self.rng.usize(..COUNTED.len()), a, 1)
            } else {
                match self.rng.u8(..16) {
                    0 | 1 => Expr::Binary(["+", "-", ".*"][self.rng.usize(..3)], a, b),
                    2 => Expr::Unary(self.rng.usize(..UNARY.len()), a),
                    3 | 4 => Expr::Mtimes(a, b),
                    5 => Expr::Transpose(a),
                    6 | 7 => Expr::Cat(self.rng.bool(), a, b),
                    8 | 9 => Expr::Index(self.rng.usize(..SELECT.len()), a),
                    10 | 11 => {
                        let f = ["sum", "prod", "mean", "max", "min"][self.rng.usize(..5)];
                        Expr::Reduce(f, self.rng.bool().then(|| self.rng.usize(1..=2)), a)
                    }
                    12 => Expr::Repmat(a, self.rng.usize(1..=3), self.rng.usize(1..=3)),
                    13 => Expr::Reshape(self.rng.usize(..4), a),
                    _ => Expr::Sized(self.rng.usize(..SIZED.len()), a),
                }
            };
            let n = match &expr {
                Expr::Call(f, _) => self.rng.usize(1..=fns[*f].outputs.len()),
                _ => 1,
            };
            let targets = (0..n)
                .map(|_| {
                    locals += 1;
                    slots.push(format!("t{locals}"));
                    arrays.push(slots.len() - 1);
                    slots.len() - 1
                })
                .collect();
            body.push(FnStmt { targets, expr });
        }
        let last = slots.len() - 1;
        let mut outs = vec![last];
        if outputs == 2 {
            let other = self.rng.usize(params..last);
            if self.rng.bool() {
                outs.insert(0, other);
            } else {
                outs.push(other);
            }
        }
        LocalFn {
            name,
            params,
            count_param,
            slots,
            body,
            outputs: outs,
        }
    }
}

/// Builtins a local function may be named after (analysing the builtin instead of
/// the local function would show); [`Gen`]'s statements call none of them.
const SHADOWED: [&str; 8] = [
    "trace", "rot90", "flip", "tril", "dot", "cross", "squeeze", "fliplr",
];

/// One program (see the module's documentation).
fn program(seed: u64, name: String) -> FnProgram {
    let mut g = Gen::new(seed);
    let count = g.rng.usize(1..=3);
    let want_failure = g.rng.bool();
    let symbolic = g.rng.bool();
    // One failing call in eight is an arity error; the others fail inside a callee,
    // so one function (`breakable`) must fail for some argument shapes.
    let arity = want_failure && g.rng.u8(..8) == 0;
    let breakable = (want_failure && !arity).then(|| g.rng.usize(..count));
    // Now and then a local function takes a builtin's name, which it shadows in
    // the file (MATLAB and Octave look for a file's own functions first).
    let mut names: Vec<String> = Vec::new();
    for i in 1..=count {
        let builtin = SHADOWED[g.rng.usize(..SHADOWED.len())];
        let name = if g.rng.u8(..6) == 0 && !names.iter().any(|n| n == builtin) {
            builtin.to_string()
        } else {
            format!("fn{i}")
        };
        names.push(name);
    }
    // Functions are made last first, so a function may call the next one: `fn1` may
    // call `fn2`, which may call `fn3`. `fns[i]` is the `i + 1`-th function of the
    // file; until it is made it is a placeholder.
    let mut fns: Vec<LocalFn> = names.iter().map(|n| fallback(n.clone()).0).collect();
    let mut found: Vec<Contexts> = (0..count)
        .map(|_| Contexts {
            ok: vec![],
            bad: vec![],
        })
        .collect();
    for i in (0..count).rev() {
        let callee = (i + 1 < count && g.rng.bool()).then_some(i + 1);
        let mut made = None;
        for _ in 0..40 {
            let cand = g.local_fn(names[i].clone(), &fns, callee);
            let mut all = fns.clone();
            all[i] = cand.clone();
            let c = g.contexts(&all, &cand);
            if c.ok.len() >= 3 && (breakable != Some(i) || !c.bad.is_empty()) {
                made = Some((cand, c));
                break;
            }
        }
        let (f, c) = made.unwrap_or_else(|| fallback(names[i].clone()));
        fns[i] = f;
        found[i] = c;
    }
    // Calls: each function 2–3 times, each with a different context.
    let mut calls: Vec<(usize, Vec<Arg>, Option<Failure>)> = Vec::new();
    for (i, c) in found.iter().enumerate() {
        let n = g.rng.usize(2..=3).min(c.ok.len());
        let mut pool = c.ok.clone();
        for _ in 0..n {
            let args = pool.swap_remove(g.rng.usize(..pool.len()));
            calls.push((i, args, None));
        }
    }
    g.rng.shuffle(&mut calls);
    // Sometimes one more call, in a counted loop; sometimes it is the failing one.
    let mut looped = None;
    if g.rng.u8(..3) == 0 {
        let f = g.rng.usize(..count);
        let fail = want_failure && !arity && g.rng.bool();
        looped = g
            .loop_family(&fns, f, &found[f], fail)
            .map(|l| (f, l, fail));
    }
    let loop_fails = looped.as_ref().is_some_and(|l| l.2);
    if want_failure && !loop_fails {
        let with_bad: Vec<usize> = (0..calls.len())
            .filter(|&k| !found[calls[k].0].bad.is_empty())
            .collect();
        if !arity && !with_bad.is_empty() {
            let k = with_bad[g.rng.usize(..with_bad.len())];
            let bad = &found[calls[k].0].bad;
            calls[k].1 = bad[g.rng.usize(..bad.len())].clone();
            calls[k].2 = Some(Failure::Callee);
        } else {
            let k = g.rng.usize(..calls.len());
            let kind = if g.rng.bool() {
                Failure::TooManyInputs
            } else {
                Failure::TooManyOutputs
            };
            calls[k].2 = Some(kind);
        }
    }
    let mut main_calls = Vec::new();
    for _ in 0..g.rng.usize(1..=3) {
        g.random_stmt();
    }
    let loop_at = g.rng.usize(..=calls.len());
    for (i, (f, args, failure)) in calls.into_iter().enumerate() {
        if i == loop_at {
            if let Some((f, l, fail)) = looped.take() {
                main_calls.push(g.loop_call(&fns, f, l, fail, symbolic));
            }
        }
        main_calls.push(g.call_stmt(&fns, f, args, failure, symbolic));
        for _ in 0..g.rng.usize(0..=2) {
            g.random_stmt();
        }
    }
    if let Some((f, l, fail)) = looped {
        main_calls.push(g.loop_call(&fns, f, l, fail, symbolic));
    }
    FnProgram {
        name,
        main: g.stmts,
        functions: fns,
        calls: main_calls,
        symbolic,
    }
}

/// A function that is callable for every matrix: `t1 = x1';`.
fn fallback(name: String) -> (LocalFn, Contexts) {
    let f = LocalFn {
        name,
        params: 1,
        count_param: false,
        slots: vec!["x1".into(), "t1".into()],
        body: vec![FnStmt {
            targets: vec![1],
            expr: Expr::Transpose(0),
        }],
        outputs: vec![1],
    };
    let ok = [vec![2, 3], vec![4, 1], vec![1, 5]]
        .into_iter()
        .map(|d| vec![Arg::Array(d)])
        .collect();
    (f, Contexts { ok, bad: vec![] })
}

impl Gen {
    /// The line of `main` that calls `fns[f]` with arguments of shapes `args`.
    fn call_stmt(
        &mut self,
        fns: &[LocalFn],
        f: usize,
        mut args: Vec<Arg>,
        failure: Option<Failure>,
        symbolic: bool,
    ) -> MainCall {
        let callee = &fns[f];
        if failure == Some(Failure::TooManyInputs) {
            let extra = vec![self.small_extent(), self.small_extent()];
            args.push(Arg::Array(extra));
        }
        let texts: Vec<String> = args.iter().map(|a| self.argument(a, symbolic)).collect();
        let results = callee.eval(fns, &args);
        let declared = callee.outputs();
        // Which outputs the call asks for: `None` is `~`.
        let asked: Vec<Option<usize>> = if failure == Some(Failure::TooManyOutputs) {
            (0..=declared).map(Some).collect()
        } else if declared == 2 {
            match self.rng.u8(..3) {
                0 => vec![Some(0)],
                1 => vec![Some(0), Some(1)],
                _ => vec![None, Some(1)],
            }
        } else {
            vec![Some(0)]
        };
        let mut outputs = Vec::new();
        let mut lhs = Vec::new();
        for a in &asked {
            match a {
                None => lhs.push("~".to_string()),
                Some(k) => {
                    let v = self.fresh();
                    let shape = match (failure, &results) {
                        (None, Some(r)) => r.get(*k).cloned(),
                        _ => None,
                    };
                    lhs.push(v.clone());
                    outputs.push((v, shape));
                }
            }
        }
        let lhs = match lhs.as_slice() {
            [one] => one.clone(),
            many => format!("[{}]", many.join(", ")),
        };
        // Now and then a call that succeeds goes through a handle to the function, or
        // spreads its arguments from a cell (`f(a{:})`).
        let through = match self.rng.u8(..6) {
            0 if failure.is_none() => {
                let h = self.fresh();
                self.pushed(format!("{h} = @{};", callee.name), &h, None);
                h
            }
            _ => callee.name.clone(),
        };
        let listed = match self.rng.u8(..6) {
            0 if failure.is_none() && !texts.is_empty() => {
                let c = self.fresh();
                let size = vec![1, texts.len()];
                self.pushed(format!("{c} = {{{}}};", texts.join(", ")), &c, Some(size));
                format!("{c}{{:}}")
            }
            _ => texts.join(", "),
        };
        let call = format!("{through}({listed})");
        // Now and then a call asked for one output is an operand: transposed, scaled,
        // or the argument of another call of the same function.
        let rhs = match self.rng.u8(..8) {
            0 | 1 if asked == [Some(0)] => {
                let nested = callee.params == 1 && !callee.count_param && failure.is_none();
                let again = results
                    .as_ref()
                    .filter(|_| nested)
                    .and_then(|r| callee.eval(fns, &[Arg::Array(r[0].clone())]));
                match (self.rng.u8(..3), again) {
                    (0, Some(r)) => {
                        outputs[0].1 = Some(r[0].clone());
                        format!("{}({call})", callee.name)
                    }
                    (1, _) => {
                        if let Some(d) = &mut outputs[0].1 {
                            *d = vec![d[1], d[0]];
                        }
                        format!("{call}'")
                    }
                    _ => format!("2 * {call}"),
                }
            }
            _ => call,
        };
        let text = format!("{lhs} = {rhs};");
        self.stmts.push(GenStmt {
            text,
            assigns: outputs.iter().map(|(v, _)| v.clone()).collect(),
            predicted: outputs
                .first()
                .and_then(|(_, s)| s.clone())
                .map(|d| vec![d]),
            injected_error: failure.is_some(),
        });
        for (v, s) in &outputs {
            self.set_var(v, s.clone());
        }
        MainCall {
            stmt: self.stmts.len() - 1,
            callee: callee.name.clone(),
            args,
            outputs,
            failure,
            in_loop: false,
        }
    }
}

/// The arguments of a call in a counted loop `for k = lo:hi`: one array sized by `k`
/// (`ones(k, c)`, `zeros(c, k)`, `rand(k)`, `1:k`), or for a function with a count
/// parameter a fixed array and `k` as the count.
#[derive(Clone, Debug)]
struct Family {
    kind: u8,
    c: usize,
    lo: usize,
    hi: usize,
    fixed: Option<Dims>,
}

impl Family {
    fn args(&self, k: usize) -> Vec<Arg> {
        match &self.fixed {
            Some(d) => vec![Arg::Array(d.clone()), Arg::Count(k)],
            None => vec![Arg::Array(match self.kind {
                0 => vec![k, self.c],
                1 => vec![self.c, k],
                2 => vec![k, k],
                _ => vec![1, k],
            })],
        }
    }

    /// The array argument's text for index `k` (no fixed array).
    fn text(&self, k: &str) -> String {
        let c = self.c;
        match self.kind {
            0 => format!("ones({k}, {c})"),
            1 => format!("zeros({c}, {k})"),
            2 => format!("rand({k})"),
            _ => format!("1:{k}"),
        }
    }
}

impl Gen {
    /// A loop family for `fns[f]` whose every iteration succeeds, or with `fail` whose
    /// first iterations succeed and a later one fails; the outputs over the
    /// iterations that complete.
    fn loop_family(
        &mut self,
        fns: &[LocalFn],
        f: usize,
        found: &Contexts,
        fail: bool,
    ) -> Option<Family> {
        let func = &fns[f];
        if func.params == 2 && !func.count_param {
            return None;
        }
        for _ in 0..30 {
            let lo = self.rng.usize(1..=2);
            let fixed = func.count_param.then(|| {
                let ok = &found.ok[self.rng.usize(..found.ok.len())];
                ok[0].dims()
            });
            let fam = Family {
                kind: self.rng.u8(..4),
                c: self.rng.usize(1..=4),
                lo,
                hi: lo + self.rng.usize(1..=3),
                fixed,
            };
            let ok: Vec<bool> = (fam.lo..=fam.hi)
                .map(|k| func.eval(fns, &fam.args(k)).is_some())
                .collect();
            let fits = if fail {
                ok[0] && ok.contains(&false)
            } else {
                ok.iter().all(|&x| x)
            };
            if fits {
                return Some(fam);
            }
        }
        None
    }

    /// `for k = lo:hi`, `  v = f(args(k));`, `end`.
    fn loop_call(
        &mut self,
        fns: &[LocalFn],
        f: usize,
        fam: Family,
        fail: bool,
        symbolic: bool,
    ) -> MainCall {
        let callee = &fns[f];
        let (k, v) = (self.loop_index(), self.fresh());
        let fixed = fam
            .fixed
            .clone()
            .map(|d| self.argument(&Arg::Array(d), symbolic));
        let text = match &fixed {
            Some(a) => format!("  {v} = {}({a}, {k});", callee.name),
            None => format!("  {v} = {}({});", callee.name, fam.text(&k)),
        };
        let mut sizes = Vec::new();
        for i in fam.lo..=fam.hi {
            match callee.eval(fns, &fam.args(i)) {
                Some(out) => sizes.push(out[0].clone()),
                None => break,
            }
        }
        self.for_header(&k, fam.lo, fam.hi, 0);
        self.line(text, &v, sizes.clone(), fail);
        let stmt = self.stmts.len() - 1;
        self.end(0);
        let last = (!fail).then(|| sizes.last().cloned()).flatten();
        self.set_var(&v, last.clone());
        self.set_var(&k, Some(vec![1, 1]));
        MainCall {
            stmt,
            callee: callee.name.clone(),
            args: fam.args(fam.lo),
            outputs: vec![(v, last)],
            failure: fail.then_some(Failure::Callee),
            in_loop: true,
        }
    }
}

impl Gen {
    /// The text of an argument in `main`: for an array, an existing variable of its
    /// shape, a new one, an inline creation, or (when `symbolic`) a creation whose row
    /// count is an opaque integer (see [`Gen::opaque`]); for a count, a literal, the
    /// size of an existing variable, or (when `symbolic`) an opaque integer.
    fn argument(&mut self, a: &Arg, symbolic: bool) -> String {
        let text = self.plain_argument(a, symbolic);
        match a {
            Arg::Array(_) if self.rng.u8(..3) == 0 => self.wrapped(text),
            _ => text,
        }
    }

    /// `e` passed through a struct, a cell or an anonymous function and taken out
    /// again, so an argument reaches its callee through the values the analysis
    /// keeps of fields, elements and captures (issue #22 item 9): one or two
    /// statements before the call, and the expression that reads it back.
    fn wrapped(&mut self, e: String) -> String {
        let v = self.fresh();
        let (made, size, read) = match self.rng.u8(..10) {
            0 => (
                format!("{v} = struct('a', {e}, 'b', 'pad');"),
                vec![1, 1],
                format!("{v}.a"),
            ),
            1 => (format!("{v}.a = {e};"), vec![1, 1], format!("{v}.a")),
            2 => (
                format!("{v} = {{{e}, 7}};"),
                vec![1, 2],
                format!("{v}{{1}}"),
            ),
            3 => (
                format!("{v} = {{'pad'; {e}}};"),
                vec![2, 1],
                format!("{v}{{2}}"),
            ),
            4 => (
                format!("{v}.c = {{{e}}};"),
                vec![1, 1],
                format!("{v}.c{{1}}"),
            ),
            5 => (format!("{v} = @(t) t;"), vec![1, 1], format!("{v}({e})")),
            // Struct arrays (issue #22 item 4): a new element made by assigning its
            // field, a cell spread into elements, a cell of one value for all.
            6 => (format!("{v}(1).a = {e};"), vec![1, 1], format!("{v}(1).a")),
            7 => (
                format!("{v} = struct('a', {{{e}, {e}}}, 'b', 'pad');"),
                vec![1, 2],
                format!("{v}(2).a"),
            ),
            8 => (
                format!("{v} = struct('a', {{{e}}}, 'b', {{1; 2}});"),
                vec![2, 1],
                format!("{v}(end).a"),
            ),
            _ => {
                let w = self.fresh();
                self.pushed(format!("{w} = {e};"), &w, None);
                (format!("{v} = @() {w};"), vec![1, 1], format!("{v}()"))
            }
        };
        self.pushed(made, &v, Some(size));
        read
    }

    fn plain_argument(&mut self, a: &Arg, symbolic: bool) -> String {
        let pick = self.rng.u8(..6);
        match a {
            Arg::Array(d) if pick == 2 && !symbolic => self.creation_of(d.clone()).text,
            Arg::Count(c) if pick == 0 && !symbolic => c.to_string(),
            Arg::Array(d) => match pick {
                0 | 1 => self.creation_of(d.clone()).text,
                2 => {
                    let n = self.opaque(d[0]);
                    let f = ["ones", "zeros", "rand"][self.rng.usize(..3)];
                    format!("{f}({n}, {})", d[1])
                }
                _ => {
                    let want = canonical(d.clone());
                    self.operand(|s| *s == want, d.clone()).0
                }
            },
            Arg::Count(c) => match pick {
                0 => self.opaque(*c),
                1 | 2 => {
                    let c = *c;
                    let rows: Vec<String> = self
                        .vars
                        .iter()
                        .filter(|(_, s)| s.as_ref().is_some_and(|s| s.len() == 2 && s[0] == c))
                        .map(|(n, _)| n.clone())
                        .collect();
                    match rows.as_slice() {
                        [] => c.to_string(),
                        _ => format!("size({}, 1)", rows[self.rng.usize(..rows.len())]),
                    }
                }
                _ => c.to_string(),
            },
        }
    }

    /// A statement of `main` that assigns `v`, of size `size` when known.
    fn pushed(&mut self, text: String, v: &str, size: Option<Dims>) {
        self.stmts.push(GenStmt {
            text,
            assigns: vec![v.to_string()],
            predicted: size.map(|d| vec![d]),
            injected_error: false,
        });
    }

    /// A new variable of `main` holding `n`, computed from data so that an analysis
    /// sees an integer it does not know: `v7 = numel(find([1 0 1 1] > 0.5));`.
    fn opaque(&mut self, n: usize) -> String {
        let mut items: Vec<&str> = vec!["1"; n];
        for _ in 0..self.rng.usize(0..=2) {
            let at = self.rng.usize(..=items.len());
            items.insert(at, "0");
        }
        let v = self.fresh();
        self.stmts.push(GenStmt {
            text: format!("{v} = numel(find([{}] > 0.5));", items.join(" ")),
            assigns: vec![v.clone()],
            predicted: Some(vec![vec![1, 1]]),
            injected_error: false,
        });
        self.set_var(&v, Some(vec![1, 1]));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic() {
        let a = generate(11, 30);
        let b = generate(11, 30);
        for (p, q) in a.iter().zip(&b) {
            assert_eq!(p.source(), q.source());
        }
    }

    #[test]
    fn programs_call_each_function_in_several_contexts() {
        let progs = generate(5, 200);
        let mut failing = 0;
        let mut chains = 0;
        let mut loops = 0;
        for p in &progs {
            assert!((1..=3).contains(&p.functions.len()), "{}", p.source());
            for f in &p.functions {
                let calls: Vec<&MainCall> = p.calls.iter().filter(|c| c.callee == f.name).collect();
                let straight = calls.iter().filter(|c| !c.in_loop).count();
                assert!((2..=3).contains(&straight), "{}", p.source());
                let mut contexts: Vec<&Vec<Arg>> = calls.iter().map(|c| &c.args).collect();
                contexts.dedup();
                assert!(contexts.len() >= 2, "{}", p.source());
            }
            assert!(p.calls.iter().filter(|c| c.failure.is_some()).count() <= 1);
            failing += usize::from(p.failure().is_some());
            loops += usize::from(p.calls.iter().any(|c| c.in_loop));
            chains += usize::from(p.source().lines().any(|l| {
                l.starts_with("  ")
                    && p.functions
                        .iter()
                        .any(|f| l.contains(&format!("{}(", f.name)))
            }));
        }
        assert!((70..=130).contains(&failing), "{failing} of 200 fail");
        assert!(chains >= 40, "{chains} of 200 chain calls");
        assert!(loops >= 20, "{loops} of 200 call in a loop");
    }

    #[test]
    fn model_of_a_square() {
        let f = LocalFn {
            name: "sq".into(),
            params: 1,
            count_param: false,
            slots: vec!["x1".into(), "t1".into()],
            body: vec![FnStmt {
                targets: vec![1],
                expr: Expr::Mtimes(0, 0),
            }],
            outputs: vec![1],
        };
        let array = |d: Dims| vec![Arg::Array(d)];
        assert_eq!(f.eval(&[], &array(vec![3, 3])), Some(vec![vec![3, 3]]));
        assert_eq!(f.eval(&[], &array(vec![4, 1])), None);
        assert_eq!(f.eval(&[], &array(vec![1, 1])), Some(vec![vec![1, 1]]));
        assert_eq!(
            f.source(&[]),
            "function t1 = sq(x1)\n  t1 = x1 * x1;\nend\n"
        );
    }
}
