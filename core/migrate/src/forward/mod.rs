//! The gradual type checker of a model's `forward` (issue #21 item 2, for PyTorch
//! code): `forward` runs over types instead of tensors — each parameter has its
//! annotation's type (`TensorType((Dyn, 3, 224, 224))`, `Dyn`, or `Dyn` when not
//! annotated), submodules apply their layer's rule (`ops`), calls of the file's own
//! modules run their `forward` the same way, and sizes read from types (`x.size(1)`,
//! `x.shape`, `x.dim()`) are known integers or unknown. A branch whose condition is
//! not known runs both arms and keeps what they agree on. An operation whose static
//! dimensions make it fail for every run is an error (`mig.*`) and gives `Dyn`; what
//! the checker does not model gives `Dyn` with a "not supported" note, never an error.

pub mod ops;

use crate::gen::Gen;
use crate::modules::layers::Layer;
use crate::modules::value::{ModuleId, ModuleKind, Value as Built};
use crate::modules::Built as Model;
use crate::types::{Dim, TensorType};
use shapex_dims::{Constraint, Dim as Poly};
use shapex_migrate_syntax::python::ast::*;
use shapex_text::{Diagnostic, Span};
use std::collections::BTreeMap;

/// Statements and calls one check may run (unrolled loops, nested modules).
const MAX_STEPS: u32 = 100_000;
const MAX_DEPTH: u32 = 40;

/// A value while `forward` runs over types.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Tensor(TensorType),
    /// A size or other integer: known, or not.
    Int(Option<i64>),
    Bool(Option<bool>),
    Float,
    Str(String),
    None,
    Tuple(Vec<Value>),
    Module(ModuleId),
    /// An integer that is an expression over the unknowns of constraint generation
    /// (`x.size(0)` over a skeleton); never a known number.
    Poly(Poly),
    /// A truth value that is a condition over those unknowns.
    Cond(Constraint),
    /// Not a tensor, not known: consistent with everything.
    Unknown,
}

impl Value {
    fn tensor(&self) -> TensorType {
        match self {
            Value::Tensor(t) => t.clone(),
            _ => TensorType::Dyn,
        }
    }

    fn int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => *i,
            Value::Bool(Some(b)) => Some(i64::from(*b)),
            _ => None,
        }
    }

    /// What two arms agree on (types lose what differs).
    fn meet(&self, other: &Value) -> Value {
        match (self, other) {
            (a, b) if a == b => a.clone(),
            (Value::Tensor(a), Value::Tensor(b)) => Value::Tensor(meet(a, b)),
            (Value::Int(_) | Value::Poly(_), Value::Int(_) | Value::Poly(_)) => Value::Int(None),
            (Value::Bool(_) | Value::Cond(_), Value::Bool(_) | Value::Cond(_)) => Value::Bool(None),
            (Value::Tuple(a), Value::Tuple(b)) if a.len() == b.len() => {
                Value::Tuple(a.iter().zip(b).map(|(x, y)| x.meet(y)).collect())
            }
            _ => Value::Unknown,
        }
    }
}

/// The least precise type more general than both: equal dimensions are kept.
pub fn meet(a: &TensorType, b: &TensorType) -> TensorType {
    match (a.dims(), b.dims()) {
        (Some(x), Some(y)) if x.len() == y.len() => TensorType::Tensor(
            x.iter()
                .zip(y)
                .map(|(p, q)| if p == q { *p } else { Dim::Dyn })
                .collect(),
        ),
        _ => TensorType::Dyn,
    }
}

/// An `if` of `forward` (or of a method it calls) and whether each arm can run: an
/// arm can when, some time the `if` ran, its condition was not known to decide against
/// it. The statements of each arm, for graying out the one that cannot.
#[derive(Clone, Debug, Default)]
pub struct Branch {
    pub test: Span,
    pub then_possible: bool,
    pub else_possible: bool,
    pub then_spans: Vec<Span>,
    pub else_spans: Vec<Span>,
}

/// A statement's span and the type of each value it defines.
pub type StatementTypes = (Span, Vec<(String, TensorType)>);

/// The check's result: the type of every value a statement defines (joined over
/// every time the statement ran), the errors and notes, and `forward`'s result.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    pub defs: BTreeMap<(usize, usize), StatementTypes>,
    pub diagnostics: Vec<Diagnostic>,
    pub output: Option<TensorType>,
    /// Every `if` the check reached, by span: whether each arm can run.
    pub branches: BTreeMap<(usize, usize), Branch>,
    /// The model's `forward` definition (its span) and parameters' types.
    pub forward: Option<Span>,
    pub inputs: Vec<(String, TensorType)>,
    /// Each input's name and annotation spans (for writing a migration back).
    pub input_spans: Vec<(Span, Option<Span>)>,
    /// The first statement that gave a value a type with a `Dyn` (before joining runs):
    /// with static inputs, where the checker stops following the sizes.
    pub first_dyn: Option<Span>,
}

enum Flow {
    Normal,
    Return(Value),
    Stop,
}

type Env = BTreeMap<String, Value>;

pub struct Checker<'m, 'a> {
    model: &'m Model<'a>,
    out: Checked,
    steps: u32,
    depth: u32,
    gen: Gen,
    /// Inside an `assert` during constraint generation: a name `forward` never
    /// defined is a dimension symbol (`assert x.shape == (b, 3, h, w)`).
    in_assert: bool,
}

/// Checks the model's `forward`.
pub fn check_model(model: &Model) -> Checked {
    check_with(model, None, Gen::inert()).0
}

/// Generates constraints ([`Gen`]) by checking `forward` with its parameters of the
/// types `inputs` (a skeleton: unknowns made by `gen`), in order.
pub fn check_symbolic(model: &Model, inputs: Vec<TensorType>, gen: Gen) -> (Checked, Gen) {
    check_with(model, Some(inputs), gen)
}

fn check_with(model: &Model, inputs: Option<Vec<TensorType>>, gen: Gen) -> (Checked, Gen) {
    let mut c = Checker {
        model,
        out: Checked::default(),
        steps: 0,
        depth: 0,
        gen,
        in_assert: false,
    };
    let out = c.forward(inputs);
    (out, c.gen)
}

impl<'m, 'a> Checker<'m, 'a> {
    fn forward(&mut self, inputs: Option<Vec<TensorType>>) -> Checked {
        let c = self;
        let model = c.model;
        let Some((_, root)) = model.model.clone() else {
            return std::mem::take(&mut c.out);
        };
        let ModuleKind::Instance { class } = &model.eval.heap.get(root).kind else {
            return std::mem::take(&mut c.out);
        };
        let Some((owner, def)) = model.eval.method(class, "forward", None) else {
            return std::mem::take(&mut c.out);
        };
        let StmtKind::FunctionDef { params, .. } = &def.kind else {
            return std::mem::take(&mut c.out);
        };
        c.out.forward = Some(def.span);
        let args: Vec<Value> = params
            .iter()
            .skip(1)
            .filter(|p| p.kind == ParamKind::Normal)
            .enumerate()
            .map(|(i, p)| {
                let written = p.annotation.as_ref().map_or(TensorType::Dyn, annotation);
                let t = match &inputs {
                    Some(given) => given.get(i).cloned().unwrap_or(written),
                    None => written,
                };
                if let Some(n) = &p.name {
                    c.out.inputs.push((n.name.clone(), t.clone()));
                    c.out
                        .input_spans
                        .push((n.span, p.annotation.as_ref().map(|a| a.span)));
                }
                Value::Tensor(t)
            })
            .collect();
        let result = c.run(&owner, def, root, args, Vec::new());
        c.out.output = Some(result.tensor());
        std::mem::take(&mut c.out)
    }
}

/// The type an annotation writes: `TensorType((Dyn, 3))`, `TensorType([2, 3])`, `Dyn`;
/// anything else is `Dyn`.
pub fn annotation(e: &Expr) -> TensorType {
    match &e.kind {
        ExprKind::Call { func, args } if is_name(func, "TensorType") => {
            let Some(arg) = args.first() else {
                return TensorType::Dyn;
            };
            match &arg.expr().kind {
                ExprKind::Tuple(ds) | ExprKind::List(ds) => TensorType::Tensor(
                    ds.iter()
                        .map(|d| match &d.kind {
                            ExprKind::Int(n) if *n >= 0 => Dim::Nat(*n as u64),
                            _ => Dim::Dyn,
                        })
                        .collect(),
                ),
                ExprKind::Int(n) if *n >= 0 => TensorType::of(&[*n as u64]),
                _ => TensorType::Dyn,
            }
        }
        _ => TensorType::Dyn,
    }
}

fn is_name(e: &Expr, name: &str) -> bool {
    match &e.kind {
        ExprKind::Name(n) => n == name,
        ExprKind::Attribute { attr, .. } => attr.name == name,
        _ => false,
    }
}

/// The dotted path of a function expression (`torch.nn.functional.relu`, `F.relu`).
fn path(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(n) => Some(n.clone()),
        ExprKind::Attribute { value, attr } => Some(format!("{}.{}", path(value)?, attr.name)),
        _ => None,
    }
}

/// Functions and methods that keep their first tensor's type.
const SAME: &[&str] = &[
    "relu",
    "relu_",
    "gelu",
    "silu",
    "sigmoid",
    "tanh",
    "softmax",
    "log_softmax",
    "dropout",
    "dropout2d",
    "contiguous",
    "float",
    "double",
    "half",
    "int",
    "long",
    "bool",
    "to",
    "type_as",
    "clone",
    "detach",
    "cuda",
    "cpu",
    "abs",
    "exp",
    "log",
    "sqrt",
    "neg",
    "masked_fill",
    "masked_fill_",
    "leaky_relu",
    "elu",
    "hardswish",
    "mish",
    "softplus",
    "layer_norm",
    "normalize",
    "clamp",
    "clamp_",
    "sign",
    "round",
    "floor",
    "ceil",
    "add_",
    "mul_",
    "relu6",
    "hardtanh",
    "requires_grad_",
    "zero_",
    "fill_",
    "tril",
    "triu",
    "contiguous_",
    "erf",
    "sin",
    "cos",
    "square",
    "rsqrt",
    "reciprocal",
    "pow",
];

impl<'m, 'a> Checker<'m, 'a> {
    fn note(&mut self, what: &str, span: Span) {
        if self.out.diagnostics.len() < 500 && !self.out.diagnostics.iter().any(|d| d.span == span)
        {
            self.out.diagnostics.push(Diagnostic::warning(
                "mig.unsupported",
                format!("not supported: {what} (its value is Dyn)"),
                span,
            ));
        }
    }

    fn error(&mut self, code: &str, message: String, span: Span) {
        if !self
            .out
            .diagnostics
            .iter()
            .any(|d| d.span == span && d.code == code)
        {
            self.out
                .diagnostics
                .push(Diagnostic::error(code, message.clone(), span));
        }
        // Over a skeleton, a certain failure makes this path's constraints false.
        self.gen.at = span;
        let message = self.gen.spell(&message);
        self.gen.require(Constraint::False, message);
    }

    fn record(&mut self, span: Span, name: String, t: TensorType) {
        if !t.is_static() && self.out.first_dyn.is_none_or(|f| span.start < f.start) {
            self.out.first_dyn = Some(span);
        }
        let entry = self
            .out
            .defs
            .entry((span.start, span.end))
            .or_insert_with(|| (span, Vec::new()));
        match entry.1.iter_mut().find(|(n, _)| *n == name) {
            Some((_, old)) => *old = meet(old, &t),
            None => entry.1.push((name, t)),
        }
    }

    /// Runs a method (`forward`, or a helper) of `class` on module `this`.
    fn run(
        &mut self,
        class: &str,
        def: &'a Stmt,
        this: ModuleId,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Value {
        let StmtKind::FunctionDef { params, body, .. } = &def.kind else {
            return Value::Unknown;
        };
        if self.depth >= MAX_DEPTH {
            return Value::Tensor(TensorType::Dyn);
        }
        self.depth += 1;
        let mut env = Env::new();
        let mut args = args.into_iter();
        for (i, p) in params.iter().enumerate() {
            let Some(name) = &p.name else { continue };
            let v = if i == 0 {
                Value::Module(this)
            } else if let Some((_, v)) = kwargs.iter().find(|(k, _)| *k == name.name) {
                v.clone()
            } else if p.kind == ParamKind::Normal {
                match args.next() {
                    Some(v) => v,
                    None => p
                        .default
                        .as_ref()
                        .map_or(Value::Unknown, |d| self.constant(d)),
                }
            } else {
                Value::Unknown
            };
            env.insert(name.name.clone(), v);
        }
        let _ = class;
        let flow = self.block(body, &mut env);
        self.depth -= 1;
        match flow {
            Flow::Return(v) => v,
            _ => Value::None,
        }
    }

    fn constant(&self, e: &Expr) -> Value {
        match &e.kind {
            ExprKind::Int(i) => Value::Int(Some(*i)),
            ExprKind::Bool(b) => Value::Bool(Some(*b)),
            ExprKind::None => Value::None,
            ExprKind::Str(s) => Value::Str(s.clone()),
            ExprKind::Float(_) => Value::Float,
            _ => Value::Unknown,
        }
    }

    fn block(&mut self, stmts: &'a [Stmt], env: &mut Env) -> Flow {
        for s in stmts {
            match self.stmt(s, env) {
                Flow::Normal => {}
                other => return other,
            }
        }
        Flow::Normal
    }

    fn stmt(&mut self, s: &'a Stmt, env: &mut Env) -> Flow {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Flow::Stop;
        }
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                let v = self.expr(value, env);
                for t in targets {
                    self.bind(t, v.clone(), env, s.span);
                }
                Flow::Normal
            }
            StmtKind::AnnAssign { target, value, .. } => {
                if let Some(value) = value {
                    let v = self.expr(value, env);
                    self.bind(target, v, env, s.span);
                }
                Flow::Normal
            }
            StmtKind::AugAssign { target, op, value } => {
                let old = self.expr(target, env);
                let rhs = self.expr(value, env);
                let v = self.binary(*op, old, rhs, s.span);
                self.bind(target, v, env, s.span);
                Flow::Normal
            }
            StmtKind::Return(e) => {
                let v = e.as_ref().map_or(Value::None, |e| self.expr(e, env));
                if let Value::Tensor(t) = &v {
                    self.record(s.span, "return".into(), t.clone());
                }
                Flow::Return(v)
            }
            StmtKind::Expr(e) => {
                self.expr(e, env);
                Flow::Normal
            }
            StmtKind::If { test, body, orelse } => {
                let cond = self.expr(test, env);
                let decided = truth(&cond);
                let symbolic = match &cond {
                    Value::Cond(c) => Some(c.clone()),
                    _ => None,
                };
                if let Some(c) = &symbolic {
                    self.gen.test(s.span, c, None);
                }
                let branch = self
                    .out
                    .branches
                    .entry((s.span.start, s.span.end))
                    .or_insert_with(|| Branch {
                        test: test.span,
                        then_spans: spans(body),
                        else_spans: spans(orelse),
                        ..Branch::default()
                    });
                branch.then_possible |= decided != Some(false);
                branch.else_possible |= decided != Some(true);
                match decided {
                    Some(true) => self.block(body, env),
                    Some(false) => self.block(orelse, env),
                    None => {
                        let mut then_env = env.clone();
                        let mut else_env = env.clone();
                        self.gen.open();
                        let a = self.block(body, &mut then_env);
                        let then_required = self.gen.close();
                        self.gen.open();
                        let b = self.block(orelse, &mut else_env);
                        let else_required = self.gen.close();
                        self.gen
                            .either(symbolic.as_ref(), then_required, else_required);
                        self.gen.at = s.span;
                        let c = symbolic.as_ref();
                        match (a, b) {
                            (Flow::Return(x), Flow::Return(y)) => {
                                return Flow::Return(self.phi(c, &x, &y))
                            }
                            (Flow::Return(_), _) => *env = else_env,
                            (_, Flow::Return(_)) => *env = then_env,
                            _ if self.gen.is_active() => {
                                let mut joined = join_envs(&then_env, &else_env);
                                for (k, v) in joined.iter_mut() {
                                    if let (Some(x), Some(y)) = (then_env.get(k), else_env.get(k)) {
                                        *v = self.phi(c, x, y);
                                    }
                                }
                                *env = joined;
                            }
                            _ => *env = join_envs(&then_env, &else_env),
                        }
                        Flow::Normal
                    }
                }
            }
            StmtKind::For {
                target, iter, body, ..
            } => {
                let it = self.expr(iter, env);
                match self.items(&it) {
                    Some(items) if items.len() <= 1_000 => {
                        for item in items {
                            self.bind(target, item, env, s.span);
                            if let Flow::Return(v) = self.block(body, env) {
                                return Flow::Return(v);
                            }
                        }
                    }
                    _ => {
                        // An unknown number of iterations: the body is checked on what
                        // the variables hold before and after it, until they agree.
                        self.bind(target, Value::Unknown, env, s.span);
                        self.until_stable(body, env);
                    }
                }
                Flow::Normal
            }
            StmtKind::While { body, .. } => {
                self.until_stable(body, env);
                Flow::Normal
            }
            StmtKind::Unsupported { what, .. } => {
                self.note(what, s.span);
                Flow::Normal
            }
            StmtKind::Raise(_) => {
                // Over a skeleton, a run that gets here fails: this path is excluded.
                self.gen.at = s.span;
                self.gen
                    .require(Constraint::False, "this `raise` is reached");
                Flow::Stop
            }
            StmtKind::Assert { test, .. } => {
                self.in_assert = self.gen.is_active();
                if let Value::Cond(c) = self.expr(test, env) {
                    // What the assertion says must hold, or the program stops there.
                    self.gen.at = s.span;
                    self.gen.require(c, "this assertion holds");
                }
                self.in_assert = false;
                self.assume(test, env, s.span);
                Flow::Normal
            }
            _ => Flow::Normal,
        }
    }

    /// After `assert test`, what the test says of a tensor's rank or sizes holds: a
    /// `Dyn` becomes what the assertion names (`x.dim() == 4`, `x.size(1) == 3`,
    /// `x.shape[1] == 3`, `x.shape == (b, 3, h, w)`; several joined by `and`). An
    /// assertion that static types make false on every run is an error.
    fn assume(&mut self, test: &'a Expr, env: &mut Env, span: Span) {
        match &test.kind {
            ExprKind::BoolOp {
                op: BoolOp::And,
                values,
            } => {
                for v in values {
                    self.assume(v, env, span);
                }
                return;
            }
            ExprKind::Compare { left, ops } if ops.len() == 1 && ops[0].0 == CmpOp::Eq => {
                let right = &ops[0].1;
                let value = self.expr(test, env);
                if let Value::Bool(Some(false)) = value {
                    self.error(
                        "mig.assert",
                        "this assertion fails for every input of the annotated types".into(),
                        test.span,
                    );
                    return;
                }
                for (probe, other) in [(left.as_ref(), right), (right, left.as_ref())] {
                    let rhs = self.expr(other, env);
                    if let Some((name, fact)) = fact_of(probe, &rhs) {
                        if let Some(Value::Tensor(t)) = env.get(&name).cloned() {
                            let refined = refine(&t, &fact);
                            if refined != t {
                                self.record(span, name.clone(), refined.clone());
                                env.insert(name, Value::Tensor(refined));
                            }
                        }
                        return;
                    }
                }
            }
            _ => {}
        }
        let _ = self.expr(test, env);
    }

    /// A loop body run an unknown number of times: checked on what the variables hold
    /// before and after it, joined, until they agree (at most four rounds; each join
    /// only loses precision).
    fn until_stable(&mut self, body: &'a [Stmt], env: &mut Env) {
        // The body may run no time at all: what it requires is not required.
        self.gen.open();
        self.loop_to_stable(body, env);
        let _ = self.gen.close();
    }

    fn loop_to_stable(&mut self, body: &'a [Stmt], env: &mut Env) {
        for _ in 0..4 {
            let mut next = env.clone();
            let _ = self.block(body, &mut next);
            let joined = join_envs(env, &next);
            if joined == *env {
                break;
            }
            *env = joined;
        }
    }

    fn bind(&mut self, target: &Expr, v: Value, env: &mut Env, span: Span) {
        match &target.kind {
            ExprKind::Name(n) => {
                if let Value::Tensor(t) = &v {
                    self.record(span, n.clone(), t.clone());
                }
                if self.gen.is_active() && self.depth == 1 {
                    if let Some(p) = poly_of(&v) {
                        self.gen.named.insert(n.clone(), p);
                    }
                }
                // Q3 asks of a comparison kept as a value too (`eq = x.size(1) == 3`).
                if let Value::Cond(c) = &v {
                    self.gen.test(span, c, Some(n));
                }
                env.insert(n.clone(), v);
            }
            ExprKind::Tuple(ts) | ExprKind::List(ts) => {
                let items = match &v {
                    Value::Tuple(xs) if xs.len() == ts.len() => xs.clone(),
                    _ => vec![Value::Unknown; ts.len()],
                };
                for (t, x) in ts.iter().zip(items) {
                    self.bind(t, x, env, span);
                }
            }
            _ => {}
        }
    }

    fn items(&self, v: &Value) -> Option<Vec<Value>> {
        match v {
            Value::Tuple(xs) => Some(xs.clone()),
            Value::Module(id) => match &self.model.eval.heap.get(*id).kind {
                ModuleKind::Layer(Layer::Sequential(ms) | Layer::ModuleList(ms)) => {
                    Some(ms.iter().map(|m| Value::Module(*m)).collect())
                }
                _ => None,
            },
            _ => None,
        }
    }

    fn expr(&mut self, e: &'a Expr, env: &mut Env) -> Value {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Value::Unknown;
        }
        match &e.kind {
            ExprKind::Name(n) => match env.get(n) {
                Some(v) => v.clone(),
                None if self.in_assert => Value::Poly(Poly::sym(n)),
                None => Value::Unknown,
            },
            ExprKind::Int(i) => Value::Int(Some(*i)),
            ExprKind::Float(_) => Value::Float,
            ExprKind::Bool(b) => Value::Bool(Some(*b)),
            ExprKind::None => Value::None,
            ExprKind::Str(s) => Value::Str(s.clone()),
            ExprKind::Tuple(xs) | ExprKind::List(xs) => {
                let mut out = Vec::new();
                for x in xs {
                    let v = self.expr(x, env);
                    match (&x.kind, v) {
                        (ExprKind::Starred(_), Value::Tuple(inner)) => out.extend(inner),
                        (_, v) => out.push(v),
                    }
                }
                Value::Tuple(out)
            }
            ExprKind::Attribute { value, attr } => {
                let base = self.expr(value, env);
                self.attribute(base, &attr.name, e.span)
            }
            ExprKind::Subscript { value, index } => {
                let base = self.expr(value, env);
                self.subscript(base, index, env, e.span)
            }
            ExprKind::Call { func, args } => self.call(func, args, env, e.span),
            ExprKind::BinOp { op, left, right } => {
                let l = self.expr(left, env);
                let r = self.expr(right, env);
                self.binary(*op, l, r, e.span)
            }
            ExprKind::UnaryOp { op, operand } => {
                let v = self.expr(operand, env);
                match (op, v) {
                    (UnaryOp::Neg, Value::Int(i)) => Value::Int(i.and_then(i64::checked_neg)),
                    (UnaryOp::Neg, Value::Poly(p)) => Value::Poly(p.neg()),
                    (UnaryOp::Not, Value::Cond(c)) => Value::Cond(c.not()),
                    (UnaryOp::Not, v) => Value::Bool(truth(&v).map(|b| !b)),
                    (_, Value::Tensor(t)) => Value::Tensor(t),
                    _ => Value::Unknown,
                }
            }
            ExprKind::Compare { left, ops } => {
                let mut l = self.expr(left, env);
                let mut result = Some(true);
                // Comparisons over unknowns, and whether every undecided one is one.
                let mut conds = Vec::new();
                let mut sure = true;
                let mut symbolic = false;
                for (op, right) in ops {
                    let r = self.expr(right, env);
                    if let (Value::Tensor(_), _) | (_, Value::Tensor(_)) = (&l, &r) {
                        // An element-wise comparison: a tensor of booleans.
                        let t = self.broadcast(&l, &r, e.span);
                        return t;
                    }
                    let sym = sym_compare(*op, &l, &r);
                    symbolic |= sym.is_some();
                    let c = match sym {
                        Some(Constraint::True) => Some(true),
                        Some(Constraint::False) => Some(false),
                        Some(c) => {
                            conds.push(c);
                            None
                        }
                        None => {
                            sure = false;
                            compare(*op, &l, &r)
                        }
                    };
                    result = match (result, c) {
                        (Some(false), _) | (_, Some(false)) => Some(false),
                        (Some(true), Some(true)) => Some(true),
                        _ => None,
                    };
                    l = r;
                }
                // A comparison over the unknowns stays a condition even when it folds
                // (`x.size(0) == x.size(0)`): Q3 asks about it like any other.
                if symbolic && (sure || result == Some(false)) {
                    return Value::Cond(match result {
                        Some(false) => Constraint::False,
                        _ => Constraint::and(conds),
                    });
                }
                Value::Bool(result)
            }
            ExprKind::BoolOp { op, values } => {
                let mut unknown = false;
                let mut conds = Vec::new();
                for v in values {
                    let x = self.expr(v, env);
                    match (op, truth(&x), x) {
                        (BoolOp::And, Some(false), _) => return Value::Bool(Some(false)),
                        (BoolOp::Or, Some(true), _) => return Value::Bool(Some(true)),
                        (_, None, Value::Cond(c)) => conds.push(c),
                        (_, None, _) => unknown = true,
                        _ => {}
                    }
                }
                if !unknown && !conds.is_empty() {
                    return Value::Cond(match op {
                        BoolOp::And => Constraint::and(conds),
                        BoolOp::Or => Constraint::or(conds),
                    });
                }
                Value::Bool((!unknown).then_some(*op == BoolOp::And))
            }
            ExprKind::IfExp { test, body, orelse } => match truth(&self.expr(test, env)) {
                Some(true) => self.expr(body, env),
                Some(false) => self.expr(orelse, env),
                None => {
                    let a = self.expr(body, env);
                    let b = self.expr(orelse, env);
                    a.meet(&b)
                }
            },
            ExprKind::Starred(x) => self.expr(x, env),
            _ => {
                self.note("this expression", e.span);
                Value::Unknown
            }
        }
    }

    fn attribute(&mut self, base: Value, name: &str, span: Span) -> Value {
        match base {
            Value::Module(id) => {
                let m = self.model.eval.heap.get(id);
                match m.attrs.get(name) {
                    Some(v) => self.built_value(v),
                    None => match &m.kind {
                        ModuleKind::Instance { class } => {
                            if self.model.eval.method(class, name, None).is_some() {
                                Value::Tuple(vec![
                                    Value::Str("__method__".into()),
                                    Value::Str(name.to_string()),
                                    Value::Module(id),
                                ])
                            } else {
                                Value::Unknown
                            }
                        }
                        ModuleKind::Layer(_) => Value::Unknown,
                    },
                }
            }
            Value::Tensor(t) => match name {
                "shape" => self.size_tuple(&t),
                "T" | "mT" => match t.rank() {
                    Some(r) if r >= 2 => {
                        self.tensor_op(ops::transpose(&t, -2, -1), "mig.transpose", span)
                    }
                    _ => Value::Tensor(t),
                },
                "device" | "dtype" | "is_cuda" => Value::Unknown,
                _ => Value::Tuple(vec![
                    Value::Str("__tensor_method__".into()),
                    Value::Str(name.to_string()),
                    Value::Tensor(t),
                ]),
            },
            _ => Value::Unknown,
        }
    }

    /// A value `__init__` computed, as `forward` sees it.
    fn built_value(&self, v: &Built) -> Value {
        match v {
            Built::Module(id) => Value::Module(*id),
            Built::Int(i) => Value::Int(Some(*i)),
            Built::Bool(b) => Value::Bool(Some(*b)),
            Built::Float(_) => Value::Float,
            Built::Str(s) => Value::Str(s.clone()),
            Built::None => Value::None,
            Built::Tensor(sizes) => Value::Tensor(TensorType::Tensor(
                sizes
                    .iter()
                    .map(|d| {
                        d.filter(|n| *n >= 0)
                            .map_or(Dim::Dyn, |n| Dim::Nat(n as u64))
                    })
                    .collect(),
            )),
            Built::Tuple(_) | Built::List(_) => Value::Tuple(
                v.items()
                    .unwrap_or_default()
                    .iter()
                    .map(|x| self.built_value(x))
                    .collect(),
            ),
            _ => Value::Unknown,
        }
    }

    fn subscript(&mut self, base: Value, index: &'a Expr, env: &mut Env, span: Span) -> Value {
        match base {
            Value::Tuple(xs) => {
                if let ExprKind::Slice { lower, upper, step } = &index.kind {
                    // `x.size()[:-1]`: a slice of a size tuple, with known bounds.
                    let mut bound = |e: &'a Option<Box<Expr>>| -> Option<Option<i64>> {
                        match e {
                            None => Some(None),
                            Some(e) => self.expr(e, env).int().map(Some),
                        }
                    };
                    let (lo, hi, st) = (bound(lower), bound(upper), bound(step));
                    return match (lo, hi, st) {
                        (Some(lo), Some(hi), Some(None | Some(1))) => {
                            let n = xs.len() as i64;
                            let clamp =
                                |i: i64| if i < 0 { (i + n).max(0) } else { i.min(n) } as usize;
                            let (a, b) = (clamp(lo.unwrap_or(0)), clamp(hi.unwrap_or(n)));
                            Value::Tuple(if a < b { xs[a..b].to_vec() } else { Vec::new() })
                        }
                        _ => Value::Unknown,
                    };
                }
                let ix = self.expr(index, env);
                match ix.int() {
                    Some(i) => ops::axis(i, xs.len()).map_or(Value::Unknown, |k| xs[k].clone()),
                    None => Value::Unknown,
                }
            }
            Value::Module(id) => {
                let ix = self.expr(index, env).int();
                match (&self.model.eval.heap.get(id).kind, ix) {
                    (ModuleKind::Layer(Layer::Sequential(ms) | Layer::ModuleList(ms)), Some(i)) => {
                        ops::axis(i, ms.len()).map_or(Value::Unknown, |k| Value::Module(ms[k]))
                    }
                    _ => Value::Unknown,
                }
            }
            Value::Tensor(t) => self.index_tensor(t, index, env, span),
            _ => Value::Unknown,
        }
    }

    /// `x[i, :, None, ..., a:b]`: an integer drops a dimension, `None` adds one, `:` keeps
    /// it, a bounded slice makes it unknown, `...` stands for the dimensions not named.
    fn index_tensor(&mut self, t: TensorType, index: &'a Expr, env: &mut Env, span: Span) -> Value {
        let Some(ds) = t.dims().map(<[Dim]>::to_vec) else {
            return Value::Tensor(TensorType::Dyn);
        };
        let items: Vec<&Expr> = match &index.kind {
            ExprKind::Tuple(xs) => xs.iter().collect(),
            _ => vec![index],
        };
        let consumes = |e: &Expr| !matches!(e.kind, ExprKind::None | ExprKind::Ellipsis);
        let named = items.iter().filter(|e| consumes(e)).count();
        if named > ds.len() {
            self.error(
                "mig.index",
                format!("too many indices ({named}) for {t}"),
                span,
            );
            return Value::Tensor(TensorType::Dyn);
        }
        let mut out = Vec::new();
        let mut k = 0;
        for e in items {
            match &e.kind {
                ExprKind::None => out.push(Dim::Nat(1)),
                ExprKind::Ellipsis => {
                    let skip = ds.len() - named;
                    out.extend_from_slice(&ds[k..k + skip]);
                    k += skip;
                }
                ExprKind::Slice {
                    lower: None,
                    upper: None,
                    step: None,
                } => {
                    out.push(ds[k]);
                    k += 1;
                }
                ExprKind::Slice { .. } => {
                    out.push(Dim::Dyn);
                    k += 1;
                }
                _ => {
                    let v = self.expr(e, env);
                    match v {
                        Value::Int(_) => {}
                        // A tensor index (advanced indexing): not modelled.
                        _ => return Value::Tensor(TensorType::Dyn),
                    }
                    k += 1;
                }
            }
        }
        out.extend_from_slice(&ds[k..]);
        Value::Tensor(TensorType::Tensor(out))
    }

    fn broadcast(&mut self, l: &Value, r: &Value, span: Span) -> Value {
        match (l, r) {
            (Value::Tensor(a), Value::Tensor(b)) => {
                self.op(span, "mig.broadcast", |g| ops::broadcast(g, a, b))
            }
            (Value::Tensor(a), _) | (_, Value::Tensor(a)) => Value::Tensor(a.clone()),
            _ => Value::Unknown,
        }
    }

    fn binary(&mut self, op: BinOp, l: Value, r: Value, span: Span) -> Value {
        match (&l, &r) {
            (Value::Tensor(a), Value::Tensor(b)) if op == BinOp::MatMul => {
                self.op(span, "mig.matmul", |g| ops::matmul(g, a, b))
            }
            (Value::Tensor(_), _) | (_, Value::Tensor(_)) => self.broadcast(&l, &r, span),
            (Value::Tuple(a), Value::Tuple(b)) if op == BinOp::Add => {
                Value::Tuple([a.clone(), b.clone()].concat())
            }
            (Value::Poly(_), Value::Int(_) | Value::Poly(_)) | (Value::Int(_), Value::Poly(_)) => {
                int_arithmetic(op, &l, &r)
            }
            (Value::Int(a), Value::Int(b)) => Value::Int(match (a, b, op) {
                (Some(a), Some(b), BinOp::Add) => a.checked_add(*b),
                (Some(a), Some(b), BinOp::Sub) => a.checked_sub(*b),
                (Some(a), Some(b), BinOp::Mul) => a.checked_mul(*b),
                (Some(a), Some(b), BinOp::FloorDiv) if *b != 0 => Some(a.div_euclid(*b)),
                _ => None,
            }),
            _ => Value::Unknown,
        }
    }

    /// Applies a rule that may meet unknowns (constraint generation), at `span`.
    fn op(
        &mut self,
        span: Span,
        code: &str,
        rule: impl FnOnce(&mut Gen) -> ops::OpResult,
    ) -> Value {
        self.gen.at = span;
        let r = rule(&mut self.gen);
        self.tensor_op(r, code, span)
    }

    fn tensor_op(&mut self, r: ops::OpResult, code: &str, span: Span) -> Value {
        match r {
            Ok(t) => Value::Tensor(t),
            Err(message) => {
                self.error(code, message, span);
                Value::Tensor(TensorType::Dyn)
            }
        }
    }

    fn call(&mut self, func: &'a Expr, args: &'a [Arg], env: &mut Env, span: Span) -> Value {
        let f = self.expr(func, env);
        let mut pos = Vec::new();
        let mut kw: Vec<(String, Value)> = Vec::new();
        for a in args {
            match a {
                Arg::Positional(e) => {
                    let v = self.expr(e, env);
                    pos.push(v);
                }
                Arg::Keyword(k, e) => {
                    let v = self.expr(e, env);
                    kw.push((k.name.clone(), v));
                }
                Arg::Star(e) => match self.expr(e, env) {
                    Value::Tuple(xs) => pos.extend(xs),
                    _ => return Value::Unknown,
                },
                Arg::DoubleStar(_) => return Value::Unknown,
            }
        }
        // A submodule or a method of the model.
        match &f {
            Value::Module(id) => return self.apply_module(*id, pos, kw, span),
            Value::Tuple(parts) => {
                if let [Value::Str(tag), Value::Str(name), Value::Module(id)] = parts.as_slice() {
                    if tag == "__method__" {
                        return self.method(*id, name, pos, kw);
                    }
                }
                if let [Value::Str(tag), Value::Str(name), Value::Tensor(t)] = parts.as_slice() {
                    if tag == "__tensor_method__" {
                        let mut all = vec![Value::Tensor(t.clone())];
                        all.extend(pos);
                        return self.function(name, all, kw, span);
                    }
                }
            }
            _ => {}
        }
        let Some(name) = path(func) else {
            return Value::Unknown;
        };
        let last = name.rsplit('.').next().unwrap_or(&name).to_string();
        if name == "super" || last == "__init__" {
            return Value::Unknown;
        }
        self.function(&last, pos, kw, span)
    }

    fn method(
        &mut self,
        id: ModuleId,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> Value {
        let ModuleKind::Instance { class } = &self.model.eval.heap.get(id).kind else {
            return Value::Unknown;
        };
        match self.model.eval.method(class, name, None) {
            Some((owner, def)) => self.run(&owner, def, id, pos, kw),
            None => Value::Unknown,
        }
    }

    fn apply_module(
        &mut self,
        id: ModuleId,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
        span: Span,
    ) -> Value {
        let m = self.model.eval.heap.get(id);
        match &m.kind {
            ModuleKind::Instance { .. } => self.method(id, "forward", pos, kw),
            ModuleKind::Layer(Layer::Sequential(ms)) => {
                let mut v = pos.into_iter().next().unwrap_or(Value::Unknown);
                for &m in ms.clone().iter() {
                    v = self.apply_module(m, vec![v], Vec::new(), span);
                }
                v
            }
            ModuleKind::Layer(l) => {
                let Some(input) = pos.first() else {
                    return Value::Unknown;
                };
                if let Layer::Other(what) = l {
                    self.note(&format!("the layer `{what}`"), span);
                    return Value::Tensor(TensorType::Dyn);
                }
                let l = l.clone();
                let code = format!("mig.{}", layer_code(&l));
                self.op(span, &code, |g| ops::layer(g, &l, &input.tensor()))
            }
        }
    }

    /// Tensor functions and methods by name; `args[0]` is the tensor for a method.
    fn function(
        &mut self,
        name: &str,
        args: Vec<Value>,
        kw: Vec<(String, Value)>,
        span: Span,
    ) -> Value {
        let kwarg = |k: &str| kw.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        let arg = |i: usize, k: &str| kwarg(k).or_else(|| args.get(i).cloned());
        let first = args.first().map(Value::tensor).unwrap_or(TensorType::Dyn);
        let ints = |vs: &[Value]| -> Vec<Option<i64>> {
            let flat: Vec<Value> = match vs {
                [Value::Tuple(xs)] => xs.clone(),
                _ => vs.to_vec(),
            };
            flat.iter().map(Value::int).collect()
        };
        match name {
            n if SAME.contains(&n) => {
                if args.first().is_some_and(|a| matches!(a, Value::Tensor(_))) {
                    Value::Tensor(first)
                } else {
                    Value::Unknown
                }
            }
            "add" | "sub" | "mul" | "div" | "maximum" | "minimum" | "ne" | "eq" | "where" => {
                let (a, b) = match name {
                    "where" => (
                        args.get(1).cloned().unwrap_or(Value::Unknown),
                        args.get(2).cloned().unwrap_or(Value::Unknown),
                    ),
                    _ => (
                        args.first().cloned().unwrap_or(Value::Unknown),
                        arg(1, "other").unwrap_or(Value::Unknown),
                    ),
                };
                self.broadcast(&a, &b, span)
            }
            "matmul" | "mm" => {
                let b = args.get(1).map(Value::tensor).unwrap_or(TensorType::Dyn);
                self.op(span, "mig.matmul", |g| ops::matmul(g, &first, &b))
            }
            "bmm" => {
                let b = args.get(1).map(Value::tensor).unwrap_or(TensorType::Dyn);
                self.op(span, "mig.bmm", |g| ops::bmm(g, &first, &b))
            }
            "view" | "reshape" if args.len() > 1 => {
                let target = sizes(&args[1..]);
                self.op(span, "mig.reshape", |g| ops::reshape(g, &first, &target))
            }
            "flatten" => {
                let start = arg(1, "start_dim").map_or(Some(0), |v| v.int());
                let end = arg(2, "end_dim").map_or(Some(-1), |v| v.int());
                match (start, end) {
                    (Some(s), Some(e)) => {
                        self.op(span, "mig.flatten", |g| ops::flatten(g, &first, s, e))
                    }
                    _ => Value::Tensor(TensorType::Dyn),
                }
            }
            "transpose" | "swapaxes" => match (
                arg(1, "dim0").and_then(|v| v.int()),
                arg(2, "dim1").and_then(|v| v.int()),
            ) {
                (Some(a), Some(b)) => {
                    self.tensor_op(ops::transpose(&first, a, b), "mig.transpose", span)
                }
                _ => Value::Tensor(TensorType::Dyn),
            },
            "t" => match first.rank() {
                Some(r) if r >= 2 => {
                    self.tensor_op(ops::transpose(&first, 0, 1), "mig.transpose", span)
                }
                _ => Value::Tensor(first),
            },
            "permute" => {
                let order = ints(&args[1.min(args.len())..]);
                match order.into_iter().collect::<Option<Vec<i64>>>() {
                    Some(o) => self.tensor_op(ops::permute(&first, &o), "mig.permute", span),
                    None => Value::Tensor(TensorType::Dyn),
                }
            }
            "expand" => {
                let sizes = ints(&args[1.min(args.len())..]);
                self.tensor_op(ops::expand(&first, &sizes), "mig.expand", span)
            }
            "unsqueeze" => match arg(1, "dim").and_then(|v| v.int()) {
                Some(d) => self.tensor_op(ops::unsqueeze(&first, d), "mig.unsqueeze", span),
                None => Value::Tensor(TensorType::Dyn),
            },
            "mean" | "sum" | "amax" | "amin" | "prod" => {
                let keep = matches!(arg(2, "keepdim"), Some(Value::Bool(Some(true))));
                match arg(1, "dim") {
                    None => self.tensor_op(ops::reduce(&first, None, keep), "mig.reduce", span),
                    Some(v) => match v.int() {
                        Some(d) => {
                            self.tensor_op(ops::reduce(&first, Some(d), keep), "mig.reduce", span)
                        }
                        None => Value::Tensor(TensorType::Dyn),
                    },
                }
            }
            "cat" | "concat" | "concatenate" => {
                let ts: Vec<TensorType> = match args.first() {
                    Some(Value::Tuple(xs)) => xs.iter().map(Value::tensor).collect(),
                    _ => return Value::Tensor(TensorType::Dyn),
                };
                match arg(1, "dim").map_or(Some(0), |v| v.int()) {
                    Some(d) => self.op(span, "mig.cat", |g| ops::cat(g, &ts, d)),
                    None => Value::Tensor(TensorType::Dyn),
                }
            }
            "size" => match (arg(1, "dim"), first.dims()) {
                (None, _) => self.size_tuple(&first),
                (Some(d), Some(ds)) => match d.int().and_then(|i| ops::axis(i, ds.len())) {
                    Some(k) => self.size_value(ds[k]),
                    None => {
                        if d.int().is_some() {
                            self.error(
                                "mig.size",
                                format!(
                                    "size({}) of {first}: dimension out of range",
                                    d.int().unwrap_or(0)
                                ),
                                span,
                            );
                        }
                        Value::Int(None)
                    }
                },
                (Some(_), None) => Value::Int(None),
            },
            "dim" | "ndimension" => Value::Int(first.rank().map(|r| r as i64)),
            "numel" => Value::Int(None),
            "len" => match args.first() {
                Some(Value::Tuple(xs)) => Value::Int(Some(xs.len() as i64)),
                Some(Value::Tensor(t)) => Value::Int(
                    t.dims()
                        .and_then(|d| d.first())
                        .and_then(|d| d.nat())
                        .and_then(|n| i64::try_from(n).ok()),
                ),
                _ => Value::Int(None),
            },
            "int" if !matches!(args.first(), Some(Value::Tensor(_))) => {
                Value::Int(args.first().and_then(Value::int))
            }
            "isinstance" | "print" | "hasattr" => Value::Unknown,
            "zeros" | "ones" | "randn" | "rand" | "empty" | "full" if !args.is_empty() => {
                let sizes: Vec<Value> = match args.first() {
                    Some(Value::Tuple(xs)) => xs.clone(),
                    _ => args[..if name == "full" { 1 } else { args.len() }].to_vec(),
                };
                let dims = sizes.iter().map(|v| self.dim_of(v)).collect();
                Value::Tensor(TensorType::Tensor(dims))
            }
            "arange" if args.len() == 1 => {
                let d = self.dim_of(&args[0]);
                Value::Tensor(TensorType::tensor([d]))
            }
            "arange" => Value::Tensor(TensorType::tensor([Dim::Dyn])),
            "max_pool2d" | "avg_pool2d" => {
                let pair = |v: Option<Value>| -> (Option<i64>, Option<i64>) {
                    match v {
                        Some(Value::Int(k)) => (k, k),
                        Some(Value::Tuple(xs)) if xs.len() == 2 => (xs[0].int(), xs[1].int()),
                        _ => (None, None),
                    }
                };
                let kernel = pair(arg(1, "kernel_size"));
                let stride = match arg(2, "stride") {
                    None | Some(Value::None) => kernel,
                    v => pair(v),
                };
                let padding = arg(3, "padding").map_or((Some(0), Some(0)), |v| pair(Some(v)));
                let layer = if name == "max_pool2d" {
                    let dilation = arg(4, "dilation").map_or((Some(1), Some(1)), |v| pair(Some(v)));
                    let ceil = match arg(5, "ceil_mode") {
                        None => Some(false),
                        Some(Value::Bool(b)) => b,
                        Some(_) => None,
                    };
                    Layer::MaxPool2d {
                        kernel,
                        stride,
                        padding,
                        dilation,
                        ceil_mode: ceil,
                    }
                } else {
                    let ceil = match arg(4, "ceil_mode") {
                        None => Some(false),
                        Some(Value::Bool(b)) => b,
                        Some(_) => None,
                    };
                    Layer::AvgPool2d {
                        kernel,
                        stride,
                        padding,
                        ceil_mode: ceil,
                    }
                };
                if matches!(
                    &layer,
                    Layer::MaxPool2d {
                        ceil_mode: None,
                        ..
                    } | Layer::AvgPool2d {
                        ceil_mode: None,
                        ..
                    }
                ) {
                    return Value::Tensor(TensorType::Dyn);
                }
                self.op(span, "mig.pool", |g| ops::layer(g, &layer, &first))
            }
            // einops: `rearrange(x, 'b c h w -> b (h w) c', h=…)`.
            "rearrange" => match (args.first(), args.get(1)) {
                (Some(Value::Tensor(t)), Some(Value::Str(pattern))) => {
                    let sizes: Vec<(String, Option<i64>)> =
                        kw.iter().map(|(k, v)| (k.clone(), v.int())).collect();
                    Value::Tensor(ops::rearrange(t, pattern, &sizes))
                }
                _ => Value::Tensor(TensorType::Dyn),
            },
            // `torch.einsum('bhid,bhjd->bhij', q, k)` (also with the operands in a list).
            "einsum" => match args.first() {
                Some(Value::Str(spec)) => {
                    let operands: Vec<TensorType> = match &args[1..] {
                        [Value::Tuple(xs)] => xs.iter().map(Value::tensor).collect(),
                        rest => rest.iter().map(Value::tensor).collect(),
                    };
                    Value::Tensor(ops::einsum(spec, &operands))
                }
                _ => Value::Tensor(TensorType::Dyn),
            },
            "adaptive_avg_pool2d" | "adaptive_max_pool2d" => {
                let out = match arg(1, "output_size") {
                    Some(Value::Int(Some(k))) => (Some(Some(k)), Some(Some(k))),
                    Some(Value::Tuple(xs)) if xs.len() == 2 => {
                        (xs[0].int().map(Some), xs[1].int().map(Some))
                    }
                    _ => (None, None),
                };
                let pool = Layer::AdaptivePool2d { output: out };
                self.op(span, "mig.pool", |g| ops::layer(g, &pool, &first))
            }
            _ => {
                if args.iter().any(|a| matches!(a, Value::Tensor(_))) {
                    self.note(&format!("`{name}`"), span);
                    Value::Tensor(TensorType::Dyn)
                } else {
                    Value::Unknown
                }
            }
        }
    }
}

fn layer_code(l: &Layer) -> &'static str {
    match l {
        Layer::Conv2d { .. } | Layer::ConvTranspose2d { .. } => "conv2d",
        Layer::Linear { .. } => "linear",
        Layer::BatchNorm2d { .. } | Layer::BatchNorm1d { .. } => "batchnorm",
        Layer::MaxPool2d { .. } | Layer::AvgPool2d { .. } | Layer::AdaptivePool2d { .. } => "pool",
        Layer::LayerNorm { .. } => "layernorm",
        Layer::Flatten { .. } => "flatten",
        Layer::Embedding { .. } => "embedding",
        _ => "layer",
    }
}

impl Checker<'_, '_> {
    fn size_tuple(&self, t: &TensorType) -> Value {
        match t.dims() {
            Some(ds) => Value::Tuple(ds.iter().map(|d| self.size_value(*d)).collect()),
            None => Value::Unknown,
        }
    }

    /// The value after an `if` whose arms gave `a` and `b`: what they agree on, and over
    /// a skeleton, where both give a size, a fresh unknown `d` with
    /// `(c ∧ d == a) ∨ (¬c ∧ d == b)` (`d == a ∨ d == b` when no condition over the
    /// unknowns is known) — exact, where the gradual meet would lose the size to `Dyn`.
    fn phi(&mut self, c: Option<&Constraint>, a: &Value, b: &Value) -> Value {
        if !self.gen.is_active() || a == b {
            return a.meet(b);
        }
        match (a, b) {
            (Value::Tensor(TensorType::Tensor(x)), Value::Tensor(TensorType::Tensor(y)))
                if x.len() == y.len() =>
            {
                let dims = x
                    .iter()
                    .zip(y)
                    .map(|(p, q)| self.phi_dim(c, *p, *q))
                    .collect();
                Value::Tensor(TensorType::Tensor(dims))
            }
            _ => a.meet(b),
        }
    }

    fn phi_dim(&mut self, c: Option<&Constraint>, p: Dim, q: Dim) -> Dim {
        if p == q {
            return p;
        }
        let (Some(x), Some(y)) = (self.gen.poly(p), self.gen.poly(q)) else {
            return Dim::Dyn;
        };
        let d = self.gen.fresh();
        let choice = match c {
            Some(c) => Constraint::or([
                Constraint::and([c.clone(), Constraint::eq(&d, &x)]),
                Constraint::and([c.not(), Constraint::eq(&d, &y)]),
            ]),
            None => Constraint::or([Constraint::eq(&d, &x), Constraint::eq(&d, &y)]),
        };
        self.gen
            .require(choice, "the size after the `if` is one of its arms'");
        self.gen.dim(d)
    }

    /// An integer as a dimension: a natural number, an unknown's expression, or `Dyn`.
    fn dim_of(&mut self, v: &Value) -> Dim {
        match v {
            Value::Int(Some(n)) if *n >= 0 => Dim::Nat(*n as u64),
            Value::Poly(p) => self.gen.dim(p.clone()),
            _ => Dim::Dyn,
        }
    }

    /// A dimension as an integer: known, an unknown's expression, or not known.
    fn size_value(&self, d: Dim) -> Value {
        match d {
            Dim::Nat(n) => Value::Int(i64::try_from(n).ok()),
            Dim::Sym(_) => self.gen.poly(d).map_or(Value::Int(None), Value::Poly),
            Dim::Dyn => Value::Int(None),
        }
    }
}

/// An integer as an expression, when it is a number or over the unknowns.
fn poly_of(v: &Value) -> Option<Poly> {
    match v {
        Value::Int(Some(n)) => Some(Poly::known(*n)),
        Value::Poly(p) => Some(p.clone()),
        _ => None,
    }
}

/// Integer arithmetic with an unknown operand.
fn int_arithmetic(op: BinOp, l: &Value, r: &Value) -> Value {
    let (Some(a), Some(b)) = (poly_of(l), poly_of(r)) else {
        return Value::Int(None);
    };
    let p = match op {
        BinOp::Add => a.add(&b),
        BinOp::Sub => a.sub(&b),
        BinOp::Mul => a.mul(&b),
        BinOp::FloorDiv if b.as_known().is_some_and(|k| k > 0) => a.floor_div(&b),
        _ => return Value::Int(None),
    };
    match p.as_known() {
        Some(n) => Value::Int(Some(n)),
        None => Value::Poly(p),
    }
}

/// The size arguments of `view`/`reshape` (as a tuple or spread).
fn sizes(vs: &[Value]) -> Vec<ops::Size> {
    let flat: Vec<Value> = match vs {
        [Value::Tuple(xs)] => xs.clone(),
        _ => vs.to_vec(),
    };
    flat.iter()
        .map(|v| match v {
            Value::Int(Some(n)) => ops::Size::Known(*n),
            Value::Poly(p) => ops::Size::Sym(p.clone()),
            _ => ops::Size::Unknown,
        })
        .collect()
}

/// A comparison of integers (or of tuples of them) as a condition, when every
/// operand is a number or an expression over the unknowns; `None` otherwise.
fn sym_compare(op: CmpOp, l: &Value, r: &Value) -> Option<Constraint> {
    let symbolic = |v: &Value| match v {
        Value::Poly(_) => true,
        Value::Tuple(xs) => xs.iter().any(|x| matches!(x, Value::Poly(_))),
        _ => false,
    };
    if !symbolic(l) && !symbolic(r) {
        return None;
    }
    numeric_compare(op, l, r)
}

/// [`sym_compare`] once an unknown is involved somewhere.
fn numeric_compare(op: CmpOp, l: &Value, r: &Value) -> Option<Constraint> {
    if let (Value::Tuple(a), Value::Tuple(b)) = (l, r) {
        if !matches!(op, CmpOp::Eq | CmpOp::Ne) {
            return None;
        }
        let eq = if a.len() != b.len() {
            Constraint::False
        } else {
            let parts: Option<Vec<Constraint>> = a
                .iter()
                .zip(b)
                .map(|(x, y)| numeric_compare(CmpOp::Eq, x, y))
                .collect();
            Constraint::and(parts?)
        };
        return Some(if op == CmpOp::Eq { eq } else { eq.not() });
    }
    let (a, b) = (poly_of(l)?, poly_of(r)?);
    Some(match op {
        CmpOp::Eq => Constraint::eq(&a, &b),
        CmpOp::Ne => Constraint::ne(&a, &b),
        CmpOp::Lt => Constraint::lt(&a, &b),
        CmpOp::Le => Constraint::le(&a, &b),
        CmpOp::Gt => Constraint::lt(&b, &a),
        CmpOp::Ge => Constraint::le(&b, &a),
        _ => return None,
    })
}

fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => *b,
        Value::Int(i) => i.map(|i| i != 0),
        Value::None => Some(false),
        Value::Module(_) | Value::Str(_) => Some(true),
        Value::Cond(Constraint::True) => Some(true),
        Value::Cond(Constraint::False) => Some(false),
        _ => None,
    }
}

fn compare(op: CmpOp, l: &Value, r: &Value) -> Option<bool> {
    match (op, l, r) {
        (CmpOp::Is, Value::None, Value::None) | (CmpOp::Eq, Value::None, Value::None) => Some(true),
        (CmpOp::IsNot, Value::None, Value::None) | (CmpOp::Ne, Value::None, Value::None) => {
            Some(false)
        }
        (CmpOp::Is | CmpOp::Eq, Value::None, x) | (CmpOp::Is | CmpOp::Eq, x, Value::None) => {
            match x {
                Value::Module(_) | Value::Int(_) | Value::Tensor(_) | Value::Str(_) => Some(false),
                _ => None,
            }
        }
        (CmpOp::IsNot | CmpOp::Ne, Value::None, x) | (CmpOp::IsNot | CmpOp::Ne, x, Value::None) => {
            match x {
                Value::Module(_) | Value::Int(_) | Value::Tensor(_) | Value::Str(_) => Some(true),
                _ => None,
            }
        }
        (_, Value::Int(Some(a)), Value::Int(Some(b))) => Some(match op {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
            _ => return None,
        }),
        (CmpOp::Eq, Value::Str(a), Value::Str(b)) => Some(a == b),
        (CmpOp::Ne, Value::Str(a), Value::Str(b)) => Some(a != b),
        (CmpOp::Eq | CmpOp::Ne, Value::Tuple(a), Value::Tuple(b)) => {
            let mut all = Some(true);
            if a.len() != b.len() {
                all = Some(false);
            } else {
                for (x, y) in a.iter().zip(b) {
                    match compare(CmpOp::Eq, x, y) {
                        Some(false) => {
                            all = Some(false);
                            break;
                        }
                        None => all = None,
                        Some(true) => {}
                    }
                }
            }
            all.map(|x| x == (op == CmpOp::Eq))
        }
        _ => None,
    }
}

/// What an assertion says of one tensor variable.
enum Fact {
    Rank(usize),
    Size(i64, Option<i64>),
    Shape(Vec<Option<i64>>),
}

/// `x.dim() == n`, `x.size(i) == k` / `x.shape[i] == k`, `x.shape == (…)`, with `rhs`
/// the other side's value: the variable and what it says.
fn fact_of(probe: &Expr, rhs: &Value) -> Option<(String, Fact)> {
    let var = |e: &Expr| match &e.kind {
        ExprKind::Name(n) => Some(n.clone()),
        _ => None,
    };
    match &probe.kind {
        ExprKind::Call { func, args } => {
            let ExprKind::Attribute { value, attr } = &func.kind else {
                return None;
            };
            let x = var(value)?;
            match (attr.name.as_str(), args.as_slice()) {
                ("dim" | "ndimension", []) => {
                    Some((x, Fact::Rank(usize::try_from(rhs.int()?).ok()?)))
                }
                ("size", [Arg::Positional(i)]) => match i.kind {
                    ExprKind::Int(i) => Some((x, Fact::Size(i, rhs.int()))),
                    ExprKind::UnaryOp {
                        op: UnaryOp::Neg,
                        ref operand,
                    } => match operand.kind {
                        ExprKind::Int(i) => Some((x, Fact::Size(-i, rhs.int()))),
                        _ => None,
                    },
                    _ => None,
                },
                ("size", []) => shape_fact(x, rhs),
                _ => None,
            }
        }
        ExprKind::Attribute { value, attr } if attr.name == "shape" => shape_fact(var(value)?, rhs),
        ExprKind::Subscript { value, index } => match (&value.kind, &index.kind) {
            (ExprKind::Attribute { value: x, attr }, ExprKind::Int(i)) if attr.name == "shape" => {
                Some((var(x)?, Fact::Size(*i, rhs.int())))
            }
            _ => None,
        },
        _ => None,
    }
}

fn shape_fact(x: String, rhs: &Value) -> Option<(String, Fact)> {
    match rhs {
        Value::Tuple(xs) => Some((x, Fact::Shape(xs.iter().map(Value::int).collect()))),
        _ => None,
    }
}

/// `t` with what `fact` says filled in where `t` has `Dyn` (never changing a known size:
/// a contradiction is the assertion's own error, found by evaluating it).
fn refine(t: &TensorType, fact: &Fact) -> TensorType {
    let nat = |k: Option<i64>| {
        k.filter(|n| *n >= 0)
            .map_or(Dim::Dyn, |n| Dim::Nat(n as u64))
    };
    match (t, fact) {
        (TensorType::Dyn, Fact::Rank(r)) if *r <= 64 => TensorType::Tensor(vec![Dim::Dyn; *r]),
        (TensorType::Dyn, Fact::Shape(ds)) => {
            TensorType::Tensor(ds.iter().map(|d| nat(*d)).collect())
        }
        (TensorType::Tensor(ds), Fact::Shape(want)) if ds.len() == want.len() => {
            TensorType::Tensor(
                ds.iter()
                    .zip(want)
                    .map(|(d, w)| if d.is_dyn() { nat(*w) } else { *d })
                    .collect(),
            )
        }
        (TensorType::Tensor(ds), Fact::Size(i, k)) => match ops::axis(*i, ds.len()) {
            Some(a) if ds[a].is_dyn() => {
                let mut out = ds.clone();
                out[a] = nat(*k);
                TensorType::Tensor(out)
            }
            _ => t.clone(),
        },
        _ => t.clone(),
    }
}

/// The spans of a block's statements, nested ones included.
fn spans(stmts: &[Stmt]) -> Vec<Span> {
    let mut out = Vec::new();
    for s in stmts {
        out.push(s.span);
        match &s.kind {
            StmtKind::If { body, orelse, .. }
            | StmtKind::For { body, orelse, .. }
            | StmtKind::While { body, orelse, .. } => {
                out.extend(spans(body));
                out.extend(spans(orelse));
            }
            _ => {}
        }
    }
    out
}

fn join_envs(a: &Env, b: &Env) -> Env {
    let mut out = Env::new();
    for (k, v) in a {
        let w = b.get(k).map_or(Value::Unknown, |w| v.meet(w));
        out.insert(k.clone(), w);
    }
    for k in b.keys() {
        out.entry(k.clone()).or_insert(Value::Unknown);
    }
    out
}

#[cfg(test)]
mod tests;
