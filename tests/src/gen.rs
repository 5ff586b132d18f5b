//! A seeded generator of MATLAB programs over concrete sizes, for the Octave
//! differential suite. Each statement is on its own line and records the variables it
//! assigns, so the Octave driver knows whose sizes to print.
//!
//! Most statements are straight-line; some are small templated blocks with counted
//! `for` loops (one header, body line or `end` per line): concatenation and indexed
//! growth carried around a loop, indexing past the end inside a loop, linear-index
//! growth, deletion, and `reshape` of a loop-grown array. [`catalogue`] adds the
//! minimal programs of issue #6 verbatim.
//!
//! The generator keeps its own shape model, to steer operand choice: about half the
//! programs get one deliberate shape error, the rest should run cleanly. For a
//! statement inside a loop the model lists every distinct size it gives over the
//! iterations. The model is never the oracle (Octave is); the differential test checks
//! that the model and Octave agree, which checks the harness itself.
//!
//! `eye` and `diag` are wrapped in `full(…)`: Octave returns a special diagonal-matrix
//! type from them that does not broadcast (`eye(3) + ones(1,3)` is an error in Octave,
//! 3x3 in MATLAB), and the suite compares shapes, not Octave's storage classes.

/// Programs with local functions (a child module, so it reuses `Gen`'s statements).
#[path = "gen_functions.rs"]
pub mod functions;

/// A canonical concrete shape (at least two extents).
pub type Dims = Vec<usize>;

#[derive(Clone, Debug)]
pub struct GenStmt {
    pub text: String,
    /// Variables the statement assigns (its left-hand side).
    pub assigns: Vec<String>,
    /// The generator's prediction of the first assigned variable's size: the distinct
    /// sizes over every completed execution of the statement, in order of first
    /// appearance (one for straight-line code; a loop body can give several). `None`
    /// when it is data-dependent (`find`) or not modelled.
    pub predicted: Option<Vec<Dims>>,
    /// The generator meant this statement to fail with a shape error.
    pub injected_error: bool,
}

#[derive(Clone, Debug)]
pub struct Program {
    pub name: String,
    /// Statement `i` is on line `i + 1`.
    pub stmts: Vec<GenStmt>,
}

impl Program {
    pub fn source(&self) -> String {
        self.stmts.iter().map(|s| format!("{}\n", s.text)).collect()
    }

    /// The 1-based line of the injected error, if any.
    pub fn injected_line(&self) -> Option<u32> {
        self.stmts
            .iter()
            .position(|s| s.injected_error)
            .map(|i| i as u32 + 1)
    }
}

/// `count` programs from `seed`; the same arguments always give the same programs.
pub fn generate(seed: u64, count: usize) -> Vec<Program> {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..count)
        .map(|i| Gen::new(rng.u64(..)).program(format!("gen{i:03}")))
        .collect()
}

pub fn canonical(mut d: Dims) -> Dims {
    while d.len() < 2 {
        d.push(1);
    }
    while d.len() > 2 && d.last() == Some(&1) {
        d.pop();
    }
    d
}

fn numel(d: &[usize]) -> usize {
    d.iter().product()
}

fn is_matrix(d: &[usize]) -> bool {
    d.len() == 2
}

/// Implicit expansion (Octave, MATLAB R2016b+): each extent equal, or one of them 1.
fn broadcast(a: &[usize], b: &[usize]) -> Option<Dims> {
    let n = a.len().max(b.len());
    let at = |d: &[usize], i: usize| d.get(i).copied().unwrap_or(1);
    (0..n)
        .map(|i| match (at(a, i), at(b, i)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect::<Option<Dims>>()
        .map(canonical)
}

fn list(d: &[usize]) -> String {
    d.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

struct Gen {
    rng: fastrand::Rng,
    vars: Vec<(String, Option<Dims>)>,
    stmts: Vec<GenStmt>,
    next: usize,
}

/// What one generated expression is expected to produce.
struct Made {
    text: String,
    shape: Option<Dims>,
}

fn made(text: String, shape: Option<Dims>) -> Made {
    Made { text, shape }
}

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen {
            rng: fastrand::Rng::with_seed(seed),
            vars: Vec::new(),
            stmts: Vec::new(),
            next: 1,
        }
    }

    fn program(mut self, name: String) -> Program {
        let len = self.rng.usize(10..=30);
        let mut error_at = self.rng.bool().then(|| self.rng.usize(len / 3..len));
        while self.stmts.len() < len {
            if error_at.is_some_and(|e| self.stmts.len() >= e) {
                error_at = None;
                self.error_stmt();
            } else {
                self.random_stmt();
            }
        }
        Program {
            name,
            stmts: self.stmts,
        }
    }

    fn extent(&mut self) -> usize {
        match self.rng.u8(..20) {
            0 => 0,
            1..=4 => 1,
            _ => self.rng.usize(2..=5),
        }
    }

    fn fresh(&mut self) -> String {
        let n = format!("v{}", self.next);
        self.next += 1;
        n
    }

    fn emit(&mut self, name: String, m: Made, injected_error: bool) -> String {
        self.stmts.push(GenStmt {
            text: format!("{name} = {};", m.text),
            assigns: vec![name.clone()],
            predicted: m.shape.clone().map(|d| vec![d]),
            injected_error,
        });
        let shape = if injected_error { None } else { m.shape };
        self.set_var(&name, shape);
        name
    }

    fn set_var(&mut self, name: &str, shape: Option<Dims>) {
        self.vars.retain(|(n, _)| n != name);
        self.vars.push((name.to_string(), shape));
    }

    /// One line of a templated block: `assigns` is empty or one name whose sizes over
    /// the line's completed executions are `sizes` (empty when it never completes).
    fn line(&mut self, text: String, assigns: &str, sizes: Vec<Dims>, injected_error: bool) {
        self.stmts.push(GenStmt {
            text,
            assigns: assigns.split_whitespace().map(String::from).collect(),
            predicted: (!assigns.is_empty()).then(|| distinct(sizes)),
            injected_error,
        });
    }

    fn for_header(&mut self, index: &str, lo: usize, hi: usize, depth: usize) {
        let pad = "  ".repeat(depth);
        self.line(
            format!("{pad}for {index} = {lo}:{hi}"),
            index,
            vec![vec![1, 1]],
            false,
        );
    }

    fn end(&mut self, depth: usize) {
        self.line(format!("{}end", "  ".repeat(depth)), "", vec![], false);
    }

    fn loop_index(&mut self) -> String {
        let n = format!("k{}", self.next);
        self.next += 1;
        n
    }

    /// A variable with a known shape satisfying `ok`, or a new one of shape `fallback`.
    fn operand(&mut self, ok: impl Fn(&[usize]) -> bool, fallback: Dims) -> (String, Dims) {
        let fits: Vec<(String, Dims)> = self
            .vars
            .iter()
            .filter_map(|(n, s)| s.as_ref().filter(|s| ok(s)).map(|s| (n.clone(), s.clone())))
            .collect();
        if !fits.is_empty() && self.rng.u8(..4) != 0 {
            return fits[self.rng.usize(..fits.len())].clone();
        }
        let m = self.creation_of(fallback.clone());
        let name = self.fresh();
        (self.emit(name, m, false), fallback)
    }

    fn any_operand(&mut self) -> (String, Dims) {
        let d = self.random_dims();
        self.operand(|_| true, d)
    }

    fn random_dims(&mut self) -> Dims {
        let mut d = vec![self.extent(), self.extent()];
        if self.rng.u8(..6) == 0 {
            d.push(self.rng.usize(2..=3));
        }
        d
    }

    /// An expression creating an array of exactly shape `d`.
    fn creation_of(&mut self, d: Dims) -> Made {
        let f = ["zeros", "ones", "rand"][self.rng.usize(..3)];
        let text = match (d.as_slice(), self.rng.u8(..4)) {
            ([1, n], 0) if *n > 0 => format!("1:{n}"),
            ([1, n], 1) => format!("linspace(0, 1, {n})"),
            ([r, c], 2) if *r > 0 && *c > 0 && r * c <= 12 => self.literal(*r, *c),
            ([n, m], 3) if n == m => format!("full(eye({n}))"),
            _ => format!("{f}({})", list(&d)),
        };
        made(text, Some(canonical(d)))
    }

    fn literal(&mut self, r: usize, c: usize) -> String {
        let rows: Vec<String> = (0..r)
            .map(|_| {
                (0..c)
                    .map(|_| self.rng.i32(-9..=9).to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        format!("[{}]", rows.join("; "))
    }

    fn random_stmt(&mut self) {
        let m = match self.rng.u8(..18) {
            0 | 1 => {
                let d = self.random_dims();
                self.creation_of(d)
            }
            2 | 3 => self.elementwise(),
            4 => self.mtimes(),
            5 => self.division(),
            6 => self.transpose(),
            7 => self.concat(),
            8 => self.index(),
            9 => return self.subsasgn(),
            10 | 11 => self.reduction(),
            12 => self.query(),
            13 => self.restructure(),
            14 => self.unary(),
            15 => self.misc(),
            _ => return self.block(false),
        };
        let name = if self.rng.u8(..8) == 0 && !self.vars.is_empty() {
            self.vars[self.rng.usize(..self.vars.len())].0.clone()
        } else {
            self.fresh()
        };
        self.emit(name, m, false);
    }

    fn elementwise(&mut self) -> Made {
        let (a, s) = self.any_operand();
        let op = ["+", "-", ".*", "./", ".^", "<", "==", "&"][self.rng.usize(..8)];
        let target = match self.rng.u8(..4) {
            0 => vec![1, 1],
            1 if s.len() == 2 => vec![1, s[1]],
            2 if s.len() == 2 => vec![s[0], 1],
            _ => s.clone(),
        };
        let (b, t) = self.operand(|t| broadcast(&s, t).is_some(), target);
        // `&` only on comparisons: NaN or complex operands would make it fail for
        // reasons that are not shapes.
        let text = match op {
            "&" => format!("({a} > 0) & ({b} < 1)"),
            _ => format!("{a} {op} {b}"),
        };
        made(text, broadcast(&s, &t))
    }

    fn mtimes(&mut self) -> Made {
        let (a, s) = self.operand(is_matrix, vec![3, 2]);
        let q = self.extent();
        let (b, t) = self.operand(|t| is_matrix(t) && t[0] == s[1], vec![s[1], q]);
        made(format!("{a} * {b}"), Some(vec![s[0], t[1]]))
    }

    fn division(&mut self) -> Made {
        let (a, s) = self.operand(|s| is_matrix(s) && s[0] > 0 && s[1] > 0, vec![3, 2]);
        let k = self.rng.usize(1..=4);
        if self.rng.bool() {
            let (b, t) = self.operand(|t| is_matrix(t) && t[0] == s[0], vec![s[0], k]);
            made(format!("{a} \\ {b}"), Some(vec![s[1], t[1]]))
        } else {
            let (b, t) = self.operand(|t| is_matrix(t) && t[1] == s[1], vec![k, s[1]]);
            made(format!("{a} / {b}"), Some(vec![s[0], t[0]]))
        }
    }

    fn transpose(&mut self) -> Made {
        let (a, s) = self.operand(is_matrix, vec![2, 3]);
        let op = if self.rng.bool() { "'" } else { ".'" };
        made(format!("{a}{op}"), Some(vec![s[1], s[0]]))
    }

    fn concat(&mut self) -> Made {
        let (a, s) = self.operand(|s| is_matrix(s) && s[0] > 0 && s[1] > 0, vec![2, 2]);
        let k = self.rng.usize(1..=3);
        if self.rng.bool() {
            let (b, t) = self.operand(|t| is_matrix(t) && t[0] == s[0], vec![s[0], k]);
            made(format!("[{a}, {b}]"), Some(vec![s[0], s[1] + t[1]]))
        } else {
            let (b, t) = self.operand(|t| is_matrix(t) && t[1] == s[1], vec![k, s[1]]);
            made(format!("[{a}; {b}]"), Some(vec![s[0] + t[0], s[1]]))
        }
    }

    fn index(&mut self) -> Made {
        let (a, s) = self.operand(|s| is_matrix(s) && s[0] >= 2 && s[1] >= 2, vec![3, 3]);
        match self.rng.u8(..4) {
            0 => made(format!("{a}(2,:)"), Some(vec![1, s[1]])),
            1 => made(format!("{a}(:)"), Some(vec![numel(&s), 1])),
            2 => made(format!("{a}(end,1:2)"), Some(vec![1, 2])),
            _ => made(format!("{a}(:,end)"), Some(vec![s[0], 1])),
        }
    }

    /// Growth `a(r,c) = 1` or deletion `a(:,1) = []`, assigning an existing variable.
    fn subsasgn(&mut self) {
        let (a, s) = self.operand(|s| is_matrix(s) && s[1] >= 1, vec![2, 3]);
        let (text, shape) = if self.rng.bool() {
            let (r, c) = (self.rng.usize(1..=6), self.rng.usize(1..=6));
            let grown = vec![s[0].max(r), s[1].max(c)];
            (format!("{a}({r},{c}) = 1;"), grown)
        } else {
            (format!("{a}(:,1) = [];"), vec![s[0], s[1] - 1])
        };
        self.stmts.push(GenStmt {
            text,
            assigns: vec![a.clone()],
            predicted: Some(vec![shape.clone()]),
            injected_error: false,
        });
        self.set_var(&a, Some(shape));
    }

    fn reduction(&mut self) -> Made {
        // Empty operands reduce to data-dependent-looking special cases; keep them out.
        let (a, s) = self.operand(|s| numel(s) > 0, vec![3, 4]);
        let f = ["sum", "prod", "mean", "any", "all", "max", "min", "cumsum"][self.rng.usize(..8)];
        let dim = self.rng.bool().then(|| self.rng.usize(1..=s.len()));
        let mut out = s.clone();
        if f != "cumsum" {
            let d = dim.unwrap_or_else(|| s.iter().position(|&x| x != 1).unwrap_or(0) + 1);
            out[d - 1] = 1;
        }
        let text = match (f, dim) {
            ("max" | "min", Some(d)) => format!("{f}({a}, [], {d})"),
            (_, Some(d)) => format!("{f}({a}, {d})"),
            (_, None) => format!("{f}({a})"),
        };
        made(text, Some(canonical(out)))
    }

    fn query(&mut self) -> Made {
        let (a, s) = self.any_operand();
        match self.rng.u8(..3) {
            0 => made(format!("size({a})"), Some(vec![1, s.len()])),
            1 => made(format!("numel({a})"), Some(vec![1, 1])),
            _ => made(format!("length({a})"), Some(vec![1, 1])),
        }
    }

    fn restructure(&mut self) -> Made {
        let (a, s) = self.operand(|s| numel(s) > 0, vec![2, 3]);
        match self.rng.u8(..4) {
            0 => {
                let n = numel(&s);
                let p = (1..=n)
                    .filter(|p| n.is_multiple_of(*p))
                    .nth(self.rng.usize(..2))
                    .unwrap_or(1);
                made(
                    format!("reshape({a}, {p}, {})", n / p),
                    Some(vec![p, n / p]),
                )
            }
            1 => {
                let (m, n) = (self.rng.usize(1..=3), self.rng.usize(1..=3));
                let mut out = s.clone();
                out[0] *= m;
                out[1] *= n;
                made(format!("repmat({a}, {m}, {n})"), Some(canonical(out)))
            }
            2 => self.cat_dim(a, s),
            _ => {
                let (b, t) = self.operand(is_matrix, vec![2, 2]);
                let shape = is_matrix(&s).then(|| vec![s[0] * t[0], s[1] * t[1]]);
                made(format!("kron({a}, {b})"), shape)
            }
        }
    }

    fn cat_dim(&mut self, a: String, s: Dims) -> Made {
        let d = self.rng.usize(1..=3);
        let mut want = s.clone();
        want.resize(d.max(want.len()), 1);
        want[d - 1] = self.rng.usize(1..=2);
        let (b, t) = {
            let w = want.clone();
            self.operand(move |t| *t == canonical(w.clone()), want)
        };
        let mut out = s.clone();
        out.resize(d.max(out.len()), 1);
        out[d - 1] += t.get(d - 1).copied().unwrap_or(1);
        made(format!("cat({d}, {a}, {b})"), Some(canonical(out)))
    }

    fn unary(&mut self) -> Made {
        let (a, s) = self.any_operand();
        let f = ["abs", "sqrt", "round", "floor", "-"][self.rng.usize(..5)];
        if f == "-" {
            return made(format!("-{a}"), Some(s));
        }
        made(format!("{f}({a})"), Some(s))
    }

    fn misc(&mut self) -> Made {
        match self.rng.u8(..4) {
            0 => {
                let n = self.rng.usize(1..=4);
                made(format!("full(eye({n}, {}))", n + 1), Some(vec![n, n + 1]))
            }
            1 => {
                let (a, s) = self.operand(
                    |s| is_matrix(s) && numel(s) > 0 && (s[0] == 1 || s[1] == 1),
                    vec![1, 3],
                );
                let n = s[0].max(s[1]);
                let shape = if numel(&s) == 1 {
                    vec![1, 1]
                } else {
                    vec![n, n]
                };
                made(format!("full(diag({a}))"), Some(shape))
            }
            2 => {
                let (a, _) = self.any_operand();
                made(format!("find({a} > 0.5)"), None)
            }
            _ => {
                let (a, s) = self.any_operand();
                let (b, t) = self.operand(|t| *t == [1, 1], vec![1, 1]);
                made(format!("mod(abs({a}), abs({b}) + 2)"), broadcast(&s, &t))
            }
        }
    }

    /// One statement that must fail with a shape error in Octave.
    fn error_stmt(&mut self) {
        if self.rng.u8(..11) >= 6 {
            return self.block(true);
        }
        let m = match self.rng.u8(..6) {
            0 => {
                let (a, s) = self.operand(|s| is_matrix(s) && s[0] >= 2 && s[1] >= 2, vec![2, 3]);
                let bad = vec![s[0] + 1, s[1] + 1];
                let (b, _) = self.operand(|t| broadcast(&s, t).is_none(), bad);
                made(format!("{a} + {b}"), None)
            }
            1 => {
                let (a, s) = self.operand(|s| is_matrix(s) && s[1] >= 2, vec![2, 3]);
                let (b, _) = self.operand(
                    |t| is_matrix(t) && t[0] != s[1] && t != [1, 1],
                    vec![s[1] + 1, 2],
                );
                made(format!("{a} * {b}"), None)
            }
            2 => {
                let (a, s) = self.operand(|s| is_matrix(s) && numel(s) > 0, vec![2, 3]);
                let (b, _) = self.operand(
                    |t| is_matrix(t) && t[1] != s[1] && numel(t) > 0,
                    vec![1, s[1] + 1],
                );
                made(format!("[{a}; {b}]"), None)
            }
            3 => {
                let (a, s) = self.any_operand();
                made(format!("reshape({a}, {}, 1)", numel(&s) + 1), None)
            }
            4 => {
                let (a, s) = self.operand(is_matrix, vec![2, 2]);
                made(format!("{a}({}, 1)", s[0] + 1), None)
            }
            _ => {
                let (a, _) = self.operand(|s| s.len() == 3, vec![2, 2, 2]);
                made(format!("{a}'"), None)
            }
        };
        let name = self.fresh();
        self.emit(name, m, true);
    }
}

/// The distinct sizes among `sizes`, canonical, in order of first appearance.
fn distinct(sizes: Vec<Dims>) -> Vec<Dims> {
    let mut out: Vec<Dims> = Vec::new();
    for d in sizes.into_iter().map(canonical) {
        if !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

/// `f(d1, d2, …)`.
fn call(f: &str, d: &[usize]) -> String {
    let args: Vec<String> = d.iter().map(ToString::to_string).collect();
    format!("{f}({})", args.join(", "))
}

/// Templated blocks (issue #6): counted loops that carry concatenation or indexed
/// growth, indexing past the end inside a loop, linear-index growth and deletion. Each
/// block creates its own arrays; with `fail` it ends in a shape error that Octave
/// raises at run time, on the line the model marks.
impl Gen {
    fn block(&mut self, fail: bool) {
        match self.rng.u8(..5) {
            0 => self.concat_loop(fail),
            1 => self.linear_growth(fail),
            2 => self.deletion(fail),
            3 => self.index_loop(fail),
            _ => self.growth_loop(fail),
        }
    }

    /// `w = []; for k = lo:hi, w = [w; ones(1, m)]; end` stacks rows of one width; with
    /// the width following the index, `[w; zeros(1, k)]`, the second iteration fails.
    /// The same horizontally (`[w, ones(k, 1)]`).
    fn concat_loop(&mut self, fail: bool) {
        let (w, k) = (self.fresh(), self.loop_index());
        let vertical = self.rng.bool();
        let orient = |i: usize, m: usize| if vertical { vec![i, m] } else { vec![m, i] };
        let n = self.rng.usize(2..=4);
        let lo = self.rng.usize(1..=3);
        let m = self.rng.usize(1..=3);
        let (init, start) = if fail || self.rng.u8(..3) != 0 {
            ("[]".to_string(), vec![0, 0])
        } else {
            (call("zeros", &orient(0, m)), orient(0, m))
        };
        self.line(format!("{w} = {init};"), &w, vec![start], false);
        self.for_header(&k, lo, lo + n - 1, 0);
        let sep = if vertical { ";" } else { "," };
        if fail {
            let piece = if vertical {
                format!("zeros(1, {k})")
            } else {
                format!("ones({k}, 1)")
            };
            let text = format!("  {w} = [{w}{sep} {piece}];");
            self.line(text, &w, vec![orient(1, lo)], true);
        } else {
            let piece = match self.rng.u8(..3) {
                0 => format!("{k} * {}", call("ones", &orient(1, m))),
                1 => call("rand", &orient(1, m)),
                _ => call("ones", &orient(1, m)),
            };
            let sizes = (1..=n).map(|i| orient(i, m)).collect();
            self.line(format!("  {w} = [{w}{sep} {piece}];"), &w, sizes, false);
        }
        self.end(0);
        self.set_var(&w, (!fail).then(|| orient(n, m)));
        self.set_var(&k, Some(vec![1, 1]));
    }

    /// Linear-index assignment: in range on a matrix (`B(8) = 0` on 2x4), growth of a
    /// vector, of an empty array or of a scalar (`v(5) = 1`). Failing: out of range on
    /// a matrix (`B(9) = 0`), or using the grown vector with a wrong length.
    fn linear_growth(&mut self, fail: bool) {
        let v = self.fresh();
        let kind = self.rng.u8(..4);
        if kind == 0 || (fail && self.rng.bool()) {
            let (r, c) = (self.rng.usize(2..=4), self.rng.usize(2..=4));
            let f = ["ones", "zeros", "rand"][self.rng.usize(..3)];
            self.line(
                format!("{v} = {};", call(f, &[r, c])),
                &v,
                vec![vec![r, c]],
                false,
            );
            let (k, sizes) = if fail {
                (self.rng.usize(r * c + 1..=r * c + 3), vec![])
            } else {
                (self.rng.usize(1..=r * c), vec![vec![r, c]])
            };
            self.line(format!("{v}({k}) = 0;"), &v, sizes, fail);
            self.set_var(&v, (!fail).then(|| vec![r, c]));
            return;
        }
        let (init, start) = match kind {
            1 => {
                let n = self.rng.usize(2..=4);
                match self.rng.u8(..4) {
                    0 => (call("ones", &[1, n]), vec![1, n]),
                    1 => (format!("1:{n}"), vec![1, n]),
                    2 => (self.literal(1, n), vec![1, n]),
                    _ => (call("zeros", &[n, 1]), vec![n, 1]),
                }
            }
            2 if self.rng.bool() => ("[]".to_string(), vec![0, 0]),
            2 => ("zeros(1, 0)".to_string(), vec![1, 0]),
            _ => ("5".to_string(), vec![1, 1]),
        };
        self.line(format!("{v} = {init};"), &v, vec![start.clone()], false);
        let len = numel(&start);
        let k = self.rng.usize(1..=len + 3).max(2);
        let grown = if start[0] > 1 {
            vec![len.max(k), 1]
        } else {
            vec![1, len.max(k)]
        };
        self.line(format!("{v}({k}) = 1;"), &v, vec![grown.clone()], false);
        self.set_var(&v, Some(grown.clone()));
        if fail || self.rng.bool() {
            self.use_of(&v, grown, fail);
        }
    }

    /// Deletion of a row or column in range (`M(:, 1) = []`, `M(2, :) = []`, `end`,
    /// ranges) or out of range (`M(:, 4) = []` on 3x2, which fails).
    fn deletion(&mut self, fail: bool) {
        let m = self.fresh();
        let (r, c) = (self.rng.usize(2..=4), self.rng.usize(2..=4));
        self.line(
            format!("{m} = rand({r}, {c});"),
            &m,
            vec![vec![r, c]],
            false,
        );
        let cols = self.rng.bool();
        let (text, out) = if fail {
            let past = if cols { c } else { r } + self.rng.usize(1..=2);
            let text = if cols {
                format!("{m}(:, {past}) = [];")
            } else {
                format!("{m}({past}, :) = [];")
            };
            (text, None)
        } else {
            let (text, out) = match (cols, self.rng.u8(..3)) {
                (true, 0) => (format!("{m}(:, end) = [];"), vec![r, c - 1]),
                (true, 1) => (format!("{m}(:, 1:2) = [];"), vec![r, c - 2]),
                (true, _) => {
                    let j = self.rng.usize(1..=c);
                    (format!("{m}(:, {j}) = [];"), vec![r, c - 1])
                }
                (false, 0) => (format!("{m}(end, :) = [];"), vec![r - 1, c]),
                (false, 1) => (format!("{m}(1:2, :) = [];"), vec![r - 2, c]),
                (false, _) => {
                    let i = self.rng.usize(1..=r);
                    (format!("{m}({i}, :) = [];"), vec![r - 1, c])
                }
            };
            (text, Some(out))
        };
        self.line(text, &m, out.clone().into_iter().collect(), fail);
        self.set_var(&m, out);
    }

    /// `w = [2 4]; for k = 1:m, s = w(k); end`: in range when `m` is at most the
    /// length, otherwise it fails on iteration `numel(w) + 1`. Also `w(k + 1)`, a
    /// running sum, and the columns or rows of a matrix.
    fn index_loop(&mut self, fail: bool) {
        let (w, k, s) = (self.fresh(), self.loop_index(), self.fresh());
        let (init, shape, bound, index, each) = if self.rng.bool() {
            let n = self.rng.usize(2..=4);
            let (init, shape) = match self.rng.u8(..4) {
                0 => (self.literal(1, n), vec![1, n]),
                1 => (format!("1:{n}"), vec![1, n]),
                2 => (call("rand", &[1, n]), vec![1, n]),
                _ => (call("ones", &[n, 1]), vec![n, 1]),
            };
            let shifted = self.rng.u8(..3) == 0;
            let (bound, index) = if shifted {
                (n - 1, format!("{w}({k} + 1)"))
            } else {
                (n, format!("{w}({k})"))
            };
            (init, shape, bound, index, vec![1, 1])
        } else {
            let (r, c) = (self.rng.usize(2..=4), self.rng.usize(2..=4));
            let init = call("rand", &[r, c]);
            if self.rng.bool() {
                (init, vec![r, c], c, format!("{w}(:, {k})"), vec![r, 1])
            } else {
                (init, vec![r, c], r, format!("{w}({k}, :)"), vec![1, c])
            }
        };
        self.line(format!("{w} = {init};"), &w, vec![shape.clone()], false);
        let m = if fail {
            self.rng.usize(bound + 1..=bound + 2)
        } else {
            self.rng.usize(1..=bound)
        };
        let running = each == [1, 1] && self.rng.bool();
        if running {
            self.line(format!("{s} = 0;"), &s, vec![vec![1, 1]], false);
        }
        self.for_header(&k, 1, m, 0);
        let rhs = match (running, self.rng.bool()) {
            (true, _) => format!("{s} + {index}"),
            (false, true) => format!("2 * {index}"),
            (false, false) => index,
        };
        self.line(format!("  {s} = {rhs};"), &s, vec![each.clone()], fail);
        self.end(0);
        self.set_var(&w, Some(shape));
        self.set_var(&s, (!fail).then_some(each));
        self.set_var(&k, Some(vec![1, 1]));
    }

    /// Growth in counted loops: `a = []; for k = 1:n, a(k) = k; end` (also `a(end + 1)`,
    /// columns, preallocated), rows stacked then reshaped, rows filled by `G(k, :)`, and
    /// a nested fill `A(i, j)`; then a use that conforms, or with `fail` does not
    /// (a `reshape` to the wrong element count, `a + ones(1, n + 1)`).
    fn growth_loop(&mut self, fail: bool) {
        let (a, k) = (self.fresh(), self.loop_index());
        match self.rng.u8(..4) {
            0 => {
                let n = self.rng.usize(2..=10);
                let column = self.rng.u8(..3) == 0;
                let at = |i: usize| if column { vec![i, 1] } else { vec![1, i] };
                let prealloc = self.rng.u8(..3) == 0;
                let (init, start) = if prealloc {
                    (call("zeros", &at(n)), at(n))
                } else {
                    ("[]".to_string(), vec![0, 0])
                };
                self.line(format!("{a} = {init};"), &a, vec![start], false);
                self.for_header(&k, 1, n, 0);
                let target = match (column, prealloc || self.rng.bool()) {
                    (true, _) => format!("{a}({k}, 1)"),
                    (false, true) => format!("{a}({k})"),
                    (false, false) => format!("{a}(end + 1)"),
                };
                let sizes = if prealloc {
                    vec![at(n)]
                } else {
                    (1..=n).map(at).collect()
                };
                self.line(format!("  {target} = {k};"), &a, sizes, false);
                self.end(0);
                self.set_var(&a, Some(at(n)));
                self.use_of(&a, at(n), fail);
            }
            1 => {
                let (n, c) = (self.rng.usize(2..=5), self.rng.usize(2..=4));
                self.line(format!("{a} = [];"), &a, vec![vec![0, 0]], false);
                self.for_header(&k, 1, n, 0);
                let sizes = (1..=n).map(|i| vec![i, c]).collect();
                let text = format!("  {a} = [{a}; ones(1, {c})];");
                self.line(text, &a, sizes, false);
                self.end(0);
                self.set_var(&a, Some(vec![n, c]));
                let total = n * c;
                let (p, q) = if fail {
                    (n, c + 1)
                } else {
                    let divisors: Vec<usize> =
                        (1..=total).filter(|p| total.is_multiple_of(*p)).collect();
                    let p = divisors[self.rng.usize(..divisors.len())];
                    (p, total / p)
                };
                let r = self.fresh();
                let text = format!("{r} = reshape({a}, {p}, {q});");
                let sizes = if fail { vec![] } else { vec![vec![p, q]] };
                self.line(text, &r, sizes, fail);
                self.set_var(&r, (!fail).then(|| vec![p, q]));
            }
            2 => {
                let (n, c) = (self.rng.usize(2..=4), self.rng.usize(2..=4));
                let rows = self.rng.bool();
                let at = |i: usize| if rows { vec![i, c] } else { vec![c, i] };
                self.line(format!("{a} = [];"), &a, vec![vec![0, 0]], false);
                self.for_header(&k, 1, n, 0);
                let text = if rows {
                    format!("  {a}({k}, :) = ones(1, {c});")
                } else {
                    format!("  {a}(:, {k}) = ones({c}, 1);")
                };
                self.line(text, &a, (1..=n).map(at).collect(), false);
                self.end(0);
                self.set_var(&a, Some(at(n)));
                self.use_of(&a, at(n), fail);
            }
            _ => {
                let (r, c) = (self.rng.usize(2..=4), self.rng.usize(2..=4));
                let j = self.loop_index();
                self.line(format!("{a} = [];"), &a, vec![vec![0, 0]], false);
                self.for_header(&k, 1, r, 0);
                self.for_header(&j, 1, c, 1);
                let mut sizes = Vec::new();
                let mut now = vec![0, 0];
                for i in 1..=r {
                    for jj in 1..=c {
                        now = vec![now[0].max(i), now[1].max(jj)];
                        sizes.push(now.clone());
                    }
                }
                self.line(format!("    {a}({k}, {j}) = {k} + {j};"), &a, sizes, false);
                self.end(1);
                self.end(0);
                self.set_var(&a, Some(vec![r, c]));
                self.set_var(&j, Some(vec![1, 1]));
                self.use_of(&a, vec![r, c], fail);
            }
        }
        self.set_var(&k, Some(vec![1, 1]));
    }

    /// A use of a block's result `v` of shape `d` (a matrix with an extent of at least
    /// 2): `v + ones(d)` or `v * ones(d2, 1)`, or with `fail` a non-conforming extent.
    fn use_of(&mut self, v: &str, d: Dims, fail: bool) {
        let u = self.fresh();
        let (text, out) = match (self.rng.bool(), fail) {
            (false, false) => (format!("{u} = {v} + {};", call("ones", &d)), Some(d)),
            (true, false) => (
                format!("{u} = {v} * ones({}, 1);", d[1]),
                Some(vec![d[0], 1]),
            ),
            (false, true) => {
                let mut bad = d.clone();
                bad[usize::from(d[1] > 1)] += 1;
                (format!("{u} = {v} + {};", call("ones", &bad)), None)
            }
            (true, true) => (format!("{u} = {v} * ones({}, 1);", d[1] + 1), None),
        };
        self.line(text, &u, out.clone().into_iter().collect(), fail);
        self.set_var(&u, out);
    }
}

/// The minimal programs of issue #6, verbatim up to one statement, loop header or
/// `end` per line, with the sizes Octave gives (checked like the generator's model).
pub fn catalogue() -> Vec<Program> {
    type Line<'a> = (&'a str, &'a str, &'a [&'a [usize]], bool);
    fn prog(name: &str, lines: &[Line]) -> Program {
        let stmts = lines
            .iter()
            .map(|&(text, name, sizes, injected_error)| GenStmt {
                text: text.to_string(),
                assigns: name.split_whitespace().map(String::from).collect(),
                predicted: (!name.is_empty())
                    .then(|| distinct(sizes.iter().map(|d| d.to_vec()).collect())),
                injected_error,
            })
            .collect();
        Program {
            name: format!("issue6-{name}"),
            stmts,
        }
    }
    let row: Vec<Vec<usize>> = (1..=10).map(|i| vec![1, i]).collect();
    let row: Vec<&[usize]> = row.iter().map(Vec::as_slice).collect();
    let stack: &[&[usize]] = &[&[1, 3], &[2, 3], &[3, 3], &[4, 3], &[5, 3]];
    vec![
        prog(
            "concat-varying-width",
            &[
                ("w = [];", "w", &[&[0, 0]], false),
                ("for t = 2:4", "t", &[&[1, 1]], false),
                ("  w = [w; zeros(1, t)];", "w", &[&[1, 2]], true),
                ("end", "", &[], false),
            ],
        ),
        prog(
            "concat-same-width",
            &[
                ("w = [];", "w", &[&[0, 0]], false),
                ("for t = 2:4", "t", &[&[1, 1]], false),
                (
                    "  w = [w; ones(1, 3)];",
                    "w",
                    &[&[1, 3], &[2, 3], &[3, 3]],
                    false,
                ),
                ("end", "", &[], false),
                ("y = w * ones(3, 1);", "y", &[&[3, 1]], false),
            ],
        ),
        prog(
            "concat-varying-height",
            &[
                ("acc = [];", "acc", &[&[0, 0]], false),
                ("for i = 1:3", "i", &[&[1, 1]], false),
                ("  acc = [acc, ones(i, 1)];", "acc", &[&[1, 1]], true),
                ("end", "", &[], false),
            ],
        ),
        prog(
            "concat-same-height",
            &[
                ("acc = [];", "acc", &[&[0, 0]], false),
                ("for i = 1:3", "i", &[&[1, 1]], false),
                (
                    "  acc = [acc, ones(2, 1)];",
                    "acc",
                    &[&[2, 1], &[2, 2], &[2, 3]],
                    false,
                ),
                ("end", "", &[], false),
                ("z = acc + ones(2, 3);", "z", &[&[2, 3]], false),
            ],
        ),
        prog(
            "linear-past-matrix",
            &[
                ("B = ones(2, 4);", "B", &[&[2, 4]], false),
                ("B(9) = 0;", "B", &[], true),
            ],
        ),
        prog(
            "linear-in-matrix",
            &[
                ("B = ones(2, 4);", "B", &[&[2, 4]], false),
                ("B(8) = 0;", "B", &[&[2, 4]], false),
                ("C = B + ones(2, 4);", "C", &[&[2, 4]], false),
            ],
        ),
        prog(
            "linear-grows-vector",
            &[
                ("v = ones(1, 3);", "v", &[&[1, 3]], false),
                ("v(5) = 1;", "v", &[&[1, 5]], false),
                ("u = v + ones(1, 5);", "u", &[&[1, 5]], false),
            ],
        ),
        prog(
            "linear-grows-empty",
            &[
                ("e = [];", "e", &[&[0, 0]], false),
                ("e(3) = 1;", "e", &[&[1, 3]], false),
                ("u = e + ones(1, 3);", "u", &[&[1, 3]], false),
            ],
        ),
        prog(
            "delete-past-end",
            &[
                ("M = rand(3, 2);", "M", &[&[3, 2]], false),
                ("M(:, 4) = [];", "M", &[], true),
            ],
        ),
        prog(
            "delete-column",
            &[
                ("M = rand(3, 2);", "M", &[&[3, 2]], false),
                ("M(:, 1) = [];", "M", &[&[3, 1]], false),
                ("M(2, :) = [];", "M", &[&[2, 1]], false),
            ],
        ),
        prog(
            "delete-row",
            &[
                ("M = rand(3, 2);", "M", &[&[3, 2]], false),
                ("M(2, :) = [];", "M", &[&[2, 2]], false),
            ],
        ),
        prog(
            "index-past-end-in-loop",
            &[
                ("w = [2 4];", "w", &[&[1, 2]], false),
                ("for t = 1:4", "t", &[&[1, 1]], false),
                ("  s = w(t);", "s", &[&[1, 1]], true),
                ("end", "", &[], false),
            ],
        ),
        prog(
            "index-in-range-in-loop",
            &[
                ("w = [2 4];", "w", &[&[1, 2]], false),
                ("for t = 1:2", "t", &[&[1, 1]], false),
                ("  s = w(t);", "s", &[&[1, 1]], false),
                ("end", "", &[], false),
            ],
        ),
        prog(
            "grow-in-loop",
            &[
                ("a = [];", "a", &[&[0, 0]], false),
                ("for k = 1:10", "k", &[&[1, 1]], false),
                ("  a(k) = k;", "a", &row, false),
                ("end", "", &[], false),
                ("b = a + ones(1, 10);", "b", &[&[1, 10]], false),
            ],
        ),
        prog(
            "stack-then-bad-reshape",
            &[
                ("h = [];", "h", &[&[0, 0]], false),
                ("for i = 1:5", "i", &[&[1, 1]], false),
                ("  h = [h; ones(1, 3)];", "h", stack, false),
                ("end", "", &[], false),
                ("K = reshape(h, 5, 4);", "K", &[], true),
            ],
        ),
        prog(
            "stack-then-reshape",
            &[
                ("h = [];", "h", &[&[0, 0]], false),
                ("for i = 1:5", "i", &[&[1, 1]], false),
                ("  h = [h; ones(1, 3)];", "h", stack, false),
                ("end", "", &[], false),
                ("K = reshape(h, 3, 5);", "K", &[&[3, 5]], false),
            ],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_sized() {
        let a = generate(7, 20);
        let b = generate(7, 20);
        for (p, q) in a.iter().zip(&b) {
            assert_eq!(p.source(), q.source());
            assert!((10..=40).contains(&p.stmts.len()), "{}", p.stmts.len());
        }
        assert_ne!(a[0].source(), generate(8, 1)[0].source());
    }

    #[test]
    fn about_half_the_programs_inject_an_error() {
        let progs = generate(1, 200);
        let with = progs.iter().filter(|p| p.injected_line().is_some()).count();
        assert!((70..=130).contains(&with), "{with} of 200");
    }

    #[test]
    fn loop_blocks_are_common_and_closed() {
        let progs = generate(3, 100);
        let is_for = |s: &GenStmt| s.text.trim_start().starts_with("for ");
        let with_loops = progs.iter().filter(|p| p.stmts.iter().any(is_for)).count();
        assert!(with_loops >= 40, "{with_loops} of 100 have a loop");
        for p in progs.iter().chain(&catalogue()) {
            let ends = p.stmts.iter().filter(|s| s.text.trim() == "end").count();
            assert_eq!(
                p.stmts.iter().filter(|s| is_for(s)).count(),
                ends,
                "{}",
                p.name
            );
            assert!(p.stmts.iter().filter(|s| s.injected_error).count() <= 1);
        }
    }

    #[test]
    fn distinct_sizes_keep_the_order_of_first_appearance() {
        let sizes = vec![vec![1, 2], vec![1, 2, 1], vec![2, 2], vec![1, 2]];
        assert_eq!(distinct(sizes), vec![vec![1, 2], vec![2, 2]]);
    }

    #[test]
    fn broadcasting_model() {
        assert_eq!(broadcast(&[3, 1], &[1, 4]), Some(vec![3, 4]));
        assert_eq!(broadcast(&[3, 4], &[2, 4]), None);
        assert_eq!(broadcast(&[2, 2, 2], &[1, 1]), Some(vec![2, 2, 2]));
    }
}
