//! A seeded generator of straight-line MATLAB programs over concrete sizes, for the
//! Octave differential suite. Each statement is on its own line and records the
//! variables it assigns, so the Octave driver knows whose sizes to print.
//!
//! The generator keeps its own rough shape model, only to steer operand choice: about
//! half the programs get one deliberate shape error, the rest should run cleanly. The
//! model is never the oracle (Octave is); the differential test reports how often the
//! model and Octave agree, which checks the harness itself.
//!
//! `eye` and `diag` are wrapped in `full(…)`: Octave returns a special diagonal-matrix
//! type from them that does not broadcast (`eye(3) + ones(1,3)` is an error in Octave,
//! 3x3 in MATLAB), and the suite compares shapes, not Octave's storage classes.

/// A canonical concrete shape (at least two extents).
pub type Dims = Vec<usize>;

#[derive(Clone, Debug)]
pub struct GenStmt {
    pub text: String,
    /// Variables the statement assigns (its left-hand side).
    pub assigns: Vec<String>,
    /// The generator's prediction of each assigned variable's size; `None` when it is
    /// data-dependent (`find`) or not modelled.
    pub predicted: Option<Dims>,
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
            predicted: m.shape.clone(),
            injected_error,
        });
        let shape = if injected_error { None } else { m.shape };
        self.vars.retain(|(n, _)| *n != name);
        self.vars.push((name.clone(), shape));
        name
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
        let m = match self.rng.u8(..16) {
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
            _ => self.misc(),
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
            predicted: Some(shape.clone()),
            injected_error: false,
        });
        self.vars.retain(|(n, _)| *n != a);
        self.vars.push((a, Some(shape)));
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
    fn broadcasting_model() {
        assert_eq!(broadcast(&[3, 1], &[1, 4]), Some(vec![3, 4]));
        assert_eq!(broadcast(&[3, 4], &[2, 4]), None);
        assert_eq!(broadcast(&[2, 2, 2], &[1, 1]), Some(vec![2, 2, 2]));
    }
}
