//! A small interpreter for what model code does before `forward` runs: the module's
//! top-level statements, classes and helper functions, and each `__init__`, over
//! integers, booleans, strings, tuples, lists, dicts of constants and modules. It
//! follows real model code (`_make_layer(block, planes, blocks, stride=1)`,
//! `nn.Sequential(*layers)`, class attributes such as `expansion`, `super()` in both
//! spellings, default and keyword arguments, `*args`/`**kwargs`), and stops at what it
//! cannot know with a value `Unknown`, never a guess. Every run is bounded by a step
//! budget, so it terminates on any input.

use super::layers::{self, Args, Layer};
use super::value::{dict_pairs, Heap, Module, ModuleId, ModuleKind, Value};
use shapex_migrate_syntax::python::ast::*;
use shapex_text::{Diagnostic, Span};
use std::collections::BTreeMap;

/// Statements (and calls) one build may execute.
pub const MAX_STEPS: u32 = 200_000;
/// Calls may nest this deep (recursive helpers, deep class chains).
const MAX_CALL_DEPTH: u32 = 48;

/// One of the file's classes.
#[derive(Clone, Debug)]
pub struct Class<'a> {
    pub name: String,
    /// The file's classes it derives from, in order (library bases such as `nn.Module`
    /// are left out).
    pub bases: Vec<String>,
    pub methods: BTreeMap<String, &'a Stmt>,
    pub attrs: BTreeMap<String, Value>,
    pub span: Span,
}

type Frame = BTreeMap<String, Value>;

enum Flow {
    Normal,
    Return(Value),
    Break,
    Continue,
    /// A `raise` ran, or the budget ran out: nothing after it runs.
    Stop,
}

pub struct Eval<'a> {
    pub globals: Frame,
    pub classes: BTreeMap<String, Class<'a>>,
    pub functions: BTreeMap<String, &'a Stmt>,
    pub heap: Heap,
    pub notes: Vec<Diagnostic>,
    /// Module-level names bound to an instance of one of the file's classes, in order.
    pub instances: Vec<(String, ModuleId)>,
    steps: u32,
    depth: u32,
    /// Set when a `raise` ran: the message's span.
    pub raised: Option<Span>,
    /// The class and `self` of the method running (for a bare `super()`).
    current_method: Option<(String, ModuleId)>,
}

fn unknown(why: &str) -> Value {
    Value::Unknown(why.to_string())
}

impl Default for Eval<'_> {
    fn default() -> Self {
        Eval::new()
    }
}

impl<'a> Eval<'a> {
    pub fn new() -> Self {
        Eval {
            globals: Frame::new(),
            classes: BTreeMap::new(),
            functions: BTreeMap::new(),
            heap: Heap::default(),
            notes: Vec::new(),
            instances: Vec::new(),
            steps: 0,
            depth: 0,
            raised: None,
            current_method: None,
        }
    }

    pub fn budget_spent(&self) -> bool {
        self.steps >= MAX_STEPS
    }

    fn note(&mut self, what: &str, span: Span) {
        if self.notes.len() < 200 && !self.notes.iter().any(|d| d.span == span) {
            self.notes.push(Diagnostic::warning(
                "mig.unsupported",
                format!("not supported: {what}"),
                span,
            ));
        }
    }

    /// Runs the module's top-level statements (definitions, constants, instances).
    pub fn run_module(&mut self, body: &'a [Stmt]) {
        let mut frame = Frame::new();
        self.exec_block(body, &mut frame, None, true);
        for (k, v) in frame {
            self.globals.insert(k, v);
        }
    }

    fn exec_block(
        &mut self,
        stmts: &'a [Stmt],
        frame: &mut Frame,
        class: Option<&str>,
        top: bool,
    ) -> Flow {
        for s in stmts {
            match self.exec(s, frame, class, top) {
                Flow::Normal => {}
                other => return other,
            }
        }
        Flow::Normal
    }

    fn exec(&mut self, s: &'a Stmt, frame: &mut Frame, class: Option<&str>, top: bool) -> Flow {
        self.steps += 1;
        if self.budget_spent() {
            return Flow::Stop;
        }
        match &s.kind {
            StmtKind::ClassDef {
                name, bases, body, ..
            } => {
                self.define_class(name, bases, body, s, frame);
                Flow::Normal
            }
            StmtKind::FunctionDef { name, .. } => {
                if top {
                    self.functions.insert(name.name.clone(), s);
                }
                frame.insert(
                    name.name.clone(),
                    Value::Function {
                        name: name.name.clone(),
                        class: None,
                        this: None,
                    },
                );
                Flow::Normal
            }
            StmtKind::Assign { targets, value } => {
                let v = self.eval(value, frame, class);
                for t in targets {
                    self.assign(t, v.clone(), frame, class, top);
                }
                Flow::Normal
            }
            StmtKind::AnnAssign { target, value, .. } => {
                if let Some(value) = value {
                    let v = self.eval(value, frame, class);
                    self.assign(target, v, frame, class, top);
                }
                Flow::Normal
            }
            StmtKind::AugAssign { target, op, value } => {
                let old = self.eval(target, frame, class);
                let rhs = self.eval(value, frame, class);
                let v = match (&old, op) {
                    // `layers += [m]` extends the list in place.
                    (Value::List(l), BinOp::Add) => match rhs.items() {
                        Some(items) => {
                            l.borrow_mut().extend(items);
                            old.clone()
                        }
                        None => unknown("a list extended by something else"),
                    },
                    _ => binary(*op, &old, &rhs),
                };
                self.assign(target, v, frame, class, top);
                Flow::Normal
            }
            StmtKind::Expr(e) => {
                self.eval(e, frame, class);
                Flow::Normal
            }
            StmtKind::Return(e) => Flow::Return(match e {
                Some(e) => self.eval(e, frame, class),
                None => Value::None,
            }),
            StmtKind::If { test, body, orelse } => match self.eval(test, frame, class).truth() {
                Some(true) => self.exec_block(body, frame, class, top),
                Some(false) => self.exec_block(orelse, frame, class, top),
                None => {
                    if sets_attributes(body) || sets_attributes(orelse) {
                        self.note(
                            "a condition not known while building the model (what its branches change is unknown)",
                            test.span,
                        );
                    }
                    self.havoc(body, frame, class);
                    self.havoc(orelse, frame, class);
                    Flow::Normal
                }
            },
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => {
                let it = self.eval(iter, frame, class);
                let Some(items) = self.iterate(&it) else {
                    if sets_attributes(body) {
                        self.note(
                            "a loop over values not known while building the model",
                            iter.span,
                        );
                    }
                    self.havoc(body, frame, class);
                    self.havoc(std::slice::from_ref(s), frame, class);
                    return Flow::Normal;
                };
                for item in items {
                    self.assign(target, item, frame, class, top);
                    match self.exec_block(body, frame, class, top) {
                        Flow::Break => return Flow::Normal,
                        Flow::Return(v) => return Flow::Return(v),
                        Flow::Stop => return Flow::Stop,
                        Flow::Normal | Flow::Continue => {}
                    }
                }
                self.exec_block(orelse, frame, class, top)
            }
            StmtKind::While { test, body, .. } => loop {
                match self.eval(test, frame, class).truth() {
                    Some(true) => {}
                    Some(false) => return Flow::Normal,
                    None => {
                        if sets_attributes(body) {
                            self.note("a `while` loop whose condition is not known while building the model", test.span);
                        }
                        self.havoc(body, frame, class);
                        return Flow::Normal;
                    }
                }
                match self.exec_block(body, frame, class, top) {
                    Flow::Break => return Flow::Normal,
                    Flow::Return(v) => return Flow::Return(v),
                    Flow::Stop => return Flow::Stop,
                    Flow::Normal | Flow::Continue => {}
                }
            },
            StmtKind::Raise(_) => {
                if !top {
                    self.raised = Some(s.span);
                    return Flow::Stop;
                }
                Flow::Normal
            }
            StmtKind::Break => Flow::Break,
            StmtKind::Continue => Flow::Continue,
            StmtKind::Unsupported { what, body } => {
                if !top {
                    self.note(what, s.span);
                }
                // A `with` or `try` block's body still builds layers.
                if what.contains("with") || what.contains("try") {
                    return self.exec_block(body, frame, class, top);
                }
                Flow::Normal
            }
            StmtKind::Import | StmtKind::Pass | StmtKind::Assert { .. } | StmtKind::Error => {
                Flow::Normal
            }
        }
    }

    /// What a block that is not run (its condition or iterable not known) might have
    /// changed becomes `Unknown`: names it assigns, lists it extends, attributes it
    /// sets. Leaving them as they were would build a model with layers missing, and
    /// checking that model could report an error the real one does not have.
    fn havoc(&mut self, stmts: &'a [Stmt], frame: &mut Frame, class: Option<&str>) {
        for s in stmts {
            let targets: Vec<&'a Expr> = match &s.kind {
                StmtKind::Assign { targets, .. } => targets.iter().collect(),
                StmtKind::AugAssign { target, .. } | StmtKind::AnnAssign { target, .. } => {
                    vec![target]
                }
                StmtKind::For { target, .. } => vec![target],
                StmtKind::Expr(Expr {
                    kind: ExprKind::Call { func, .. },
                    ..
                }) => match &func.kind {
                    // `layers.append(m)`, `self.blocks.extend(…)`: the receiver changes.
                    ExprKind::Attribute { value, .. } => vec![value.as_ref()],
                    _ => Vec::new(),
                },
                _ => Vec::new(),
            };
            for t in targets {
                self.havoc_target(t, frame, class);
            }
            match &s.kind {
                StmtKind::If { body, orelse, .. }
                | StmtKind::For { body, orelse, .. }
                | StmtKind::While { body, orelse, .. } => {
                    self.havoc(body, frame, class);
                    self.havoc(orelse, frame, class);
                }
                StmtKind::Unsupported { body, .. } => self.havoc(body, frame, class),
                _ => {}
            }
        }
    }

    fn havoc_target(&mut self, t: &'a Expr, frame: &mut Frame, class: Option<&str>) {
        let changed = || unknown("a value a block not run while building may have changed");
        match &t.kind {
            ExprKind::Name(n) => {
                frame.insert(n.clone(), changed());
            }
            ExprKind::Attribute { value, attr } => {
                if let Value::Module(id) = self.eval(value, frame, class) {
                    self.heap
                        .get_mut(id)
                        .attrs
                        .insert(attr.name.clone(), changed());
                }
            }
            ExprKind::Tuple(ts) | ExprKind::List(ts) => {
                for x in ts {
                    self.havoc_target(x, frame, class);
                }
            }
            ExprKind::Subscript { value, .. } | ExprKind::Starred(value) => {
                self.havoc_target(value, frame, class)
            }
            _ => {}
        }
    }

    fn define_class(
        &mut self,
        name: &Ident,
        bases: &[Arg],
        body: &'a [Stmt],
        s: &'a Stmt,
        frame: &mut Frame,
    ) {
        let mut class = Class {
            name: name.name.clone(),
            bases: Vec::new(),
            methods: BTreeMap::new(),
            attrs: BTreeMap::new(),
            span: s.span,
        };
        for b in bases {
            if let Arg::Positional(Expr {
                kind: ExprKind::Name(n),
                ..
            }) = b
            {
                if self.classes.contains_key(n) {
                    class.bases.push(n.clone());
                }
            }
        }
        let mut attrs = Frame::new();
        for st in body {
            match &st.kind {
                StmtKind::FunctionDef { name: m, .. } => {
                    class.methods.insert(m.name.clone(), st);
                }
                StmtKind::Assign { .. } | StmtKind::AnnAssign { .. } => {
                    self.exec(st, &mut attrs, None, false);
                }
                _ => {}
            }
        }
        class.attrs = attrs;
        frame.insert(name.name.clone(), Value::Class(name.name.clone()));
        self.classes.insert(name.name.clone(), class);
    }

    fn assign(
        &mut self,
        target: &'a Expr,
        v: Value,
        frame: &mut Frame,
        class: Option<&str>,
        top: bool,
    ) {
        match &target.kind {
            ExprKind::Name(n) => {
                if top {
                    if let Value::Module(id) = v {
                        if matches!(self.heap.get(id).kind, ModuleKind::Instance { .. }) {
                            self.instances.push((n.clone(), id));
                        }
                    }
                }
                if top {
                    // Functions called while the module runs see its names so far.
                    self.globals.insert(n.clone(), v.clone());
                }
                frame.insert(n.clone(), v);
            }
            ExprKind::Attribute { value, attr } => {
                if let Value::Module(id) = self.eval(value, frame, class) {
                    self.heap.get_mut(id).attrs.insert(attr.name.clone(), v);
                }
            }
            ExprKind::Tuple(ts) | ExprKind::List(ts) => {
                let items = v.items();
                for (i, t) in ts.iter().enumerate() {
                    let item = items
                        .as_ref()
                        .and_then(|xs| xs.get(i).cloned())
                        .unwrap_or_else(|| unknown("an unpacked value"));
                    self.assign(t, item, frame, class, top);
                }
            }
            ExprKind::Subscript { value, index } => {
                let container = self.eval(value, frame, class);
                let ix = self.eval(index, frame, class).as_int();
                if let (Value::List(l), Some(i)) = (container, ix) {
                    let mut l = l.borrow_mut();
                    let n = l.len() as i64;
                    let i = if i < 0 { i + n } else { i };
                    if (0..n).contains(&i) {
                        l[i as usize] = v;
                    }
                }
            }
            _ => {}
        }
    }

    fn iterate(&mut self, v: &Value) -> Option<Vec<Value>> {
        match v {
            Value::Str(s) => Some(s.chars().map(|c| Value::Str(c.to_string())).collect()),
            Value::Module(id) => match &self.heap.get(*id).kind {
                ModuleKind::Layer(Layer::Sequential(ms) | Layer::ModuleList(ms)) => {
                    Some(ms.iter().map(|m| Value::Module(*m)).collect())
                }
                _ => None,
            },
            v => v.items(),
        }
    }

    pub fn eval(&mut self, e: &'a Expr, frame: &mut Frame, class: Option<&str>) -> Value {
        self.steps += 1;
        if self.budget_spent() {
            return unknown("the build's step budget");
        }
        match &e.kind {
            ExprKind::Name(n) => self.lookup(n, frame),
            ExprKind::Int(i) => Value::Int(*i),
            ExprKind::Float(f) => Value::Float(*f),
            ExprKind::Str(s) => Value::Str(s.clone()),
            ExprKind::Bool(b) => Value::Bool(*b),
            ExprKind::None => Value::None,
            ExprKind::Tuple(xs) => Value::Tuple(self.eval_items(xs, frame, class)),
            ExprKind::List(xs) => Value::list(self.eval_items(xs, frame, class)),
            ExprKind::Dict(items) => {
                let mut pairs = Vec::new();
                for (k, v) in items {
                    let Some(k) = k else {
                        return unknown("`**` in a dict");
                    };
                    let k = self.eval(k, frame, class);
                    let v = self.eval(v, frame, class);
                    pairs.push(Value::Tuple(vec![k, v]));
                }
                // A dict is kept as its (key, value) pairs; only lookups read it.
                Value::Tuple(vec![Value::Str("__dict__".into()), Value::list(pairs)])
            }
            ExprKind::Comprehension {
                kind: CompKind::List | CompKind::Generator,
                elt,
                generators,
            } => {
                let mut local = frame.clone();
                let mut out = Vec::new();
                if !self.comprehend(elt, generators, &mut local, class, &mut out) {
                    return unknown("a comprehension over values not known while building");
                }
                Value::list(out)
            }
            ExprKind::Attribute { value, attr } => {
                let base = self.eval(value, frame, class);
                self.attribute(&base, &attr.name)
            }
            ExprKind::Subscript { value, index } => {
                let base = self.eval(value, frame, class);
                let ix = self.eval(index, frame, class);
                subscript(&base, &ix)
            }
            ExprKind::Call { func, args } => {
                let f = self.eval(func, frame, class);
                let args = self.eval_args(args, frame, class);
                self.call(&f, args, e.span)
            }
            ExprKind::BinOp { op, left, right } => {
                let l = self.eval(left, frame, class);
                let r = self.eval(right, frame, class);
                binary(*op, &l, &r)
            }
            ExprKind::UnaryOp { op, operand } => {
                let v = self.eval(operand, frame, class);
                match (op, &v) {
                    (UnaryOp::Not, v) => v
                        .truth()
                        .map_or(unknown("a condition"), |t| Value::Bool(!t)),
                    (UnaryOp::Neg, Value::Int(i)) => {
                        i.checked_neg().map_or(unknown("an overflow"), Value::Int)
                    }
                    (UnaryOp::Neg, Value::Float(f)) => Value::Float(-f),
                    (UnaryOp::Pos, Value::Int(_) | Value::Float(_)) => v,
                    _ => unknown("an operation on values not known while building"),
                }
            }
            ExprKind::BoolOp { op, values } => {
                let mut last = Value::None;
                for x in values {
                    last = self.eval(x, frame, class);
                    match (op, last.truth()) {
                        (BoolOp::And, Some(false)) | (BoolOp::Or, Some(true)) => return last,
                        (_, None) => return unknown("a condition"),
                        _ => {}
                    }
                }
                last
            }
            ExprKind::Compare { left, ops } => {
                let mut l = self.eval(left, frame, class);
                for (op, right) in ops {
                    let r = self.eval(right, frame, class);
                    match compare(*op, &l, &r) {
                        Some(true) => {}
                        Some(false) => return Value::Bool(false),
                        None => return unknown("a comparison"),
                    }
                    l = r;
                }
                Value::Bool(true)
            }
            ExprKind::IfExp { test, body, orelse } => match self.eval(test, frame, class).truth() {
                Some(true) => self.eval(body, frame, class),
                Some(false) => self.eval(orelse, frame, class),
                None => unknown("a condition"),
            },
            ExprKind::Starred(x) => self.eval(x, frame, class),
            ExprKind::NamedExpr { target, value } => {
                let v = self.eval(value, frame, class);
                frame.insert(target.name.clone(), v.clone());
                v
            }
            _ => unknown("this expression"),
        }
    }

    fn eval_items(&mut self, xs: &'a [Expr], frame: &mut Frame, class: Option<&str>) -> Vec<Value> {
        let mut out = Vec::new();
        for x in xs {
            let v = self.eval(x, frame, class);
            match (&x.kind, v.items()) {
                (ExprKind::Starred(_), Some(items)) => out.extend(items),
                _ => out.push(v),
            }
        }
        out
    }

    fn comprehend(
        &mut self,
        elt: &'a Expr,
        gens: &'a [CompFor],
        frame: &mut Frame,
        class: Option<&str>,
        out: &mut Vec<Value>,
    ) -> bool {
        let Some((g, rest)) = gens.split_first() else {
            let v = self.eval(elt, frame, class);
            out.push(v);
            return true;
        };
        let it = self.eval(&g.iter, frame, class);
        let Some(items) = self.iterate(&it) else {
            return false;
        };
        for item in items {
            if self.budget_spent() {
                return false;
            }
            self.assign(&g.target, item, frame, class, false);
            let mut keep = true;
            for c in &g.ifs {
                match self.eval(c, frame, class).truth() {
                    Some(t) => keep &= t,
                    None => return false,
                }
            }
            if keep && !self.comprehend(elt, rest, frame, class, out) {
                return false;
            }
        }
        true
    }

    fn eval_args(&mut self, args: &'a [Arg], frame: &mut Frame, class: Option<&str>) -> Args {
        let mut out = Args::default();
        for a in args {
            match a {
                Arg::Positional(e) => {
                    let v = self.eval(e, frame, class);
                    out.positional.push(v);
                }
                Arg::Keyword(k, e) => {
                    let v = self.eval(e, frame, class);
                    out.keywords.push((k.name.clone(), v));
                }
                Arg::Star(e) => {
                    let v = self.eval(e, frame, class);
                    match v.items() {
                        Some(items) => out.positional.extend(items),
                        None => out
                            .positional
                            .push(unknown("`*` of values not known while building")),
                    }
                }
                Arg::DoubleStar(e) => {
                    let v = self.eval(e, frame, class);
                    if let Some(pairs) = dict_pairs(&v) {
                        for (k, v) in pairs {
                            if let Value::Str(k) = k {
                                out.keywords.push((k, v));
                            }
                        }
                    }
                }
            }
        }
        out
    }

    fn lookup(&self, n: &str, frame: &Frame) -> Value {
        if let Some(v) = frame.get(n).or_else(|| self.globals.get(n)) {
            return v.clone();
        }
        if self.classes.contains_key(n) {
            return Value::Class(n.to_string());
        }
        if self.functions.contains_key(n) {
            return Value::Function {
                name: n.to_string(),
                class: None,
                this: None,
            };
        }
        // An imported name (`nn`, `torch`, `F`, `Conv2d`, `math`) or a builtin.
        Value::Library(n.to_string())
    }

    /// The classes of `class`'s chain, itself first (single inheritance, then the
    /// first base's chain before the next's).
    pub fn chain(&self, class: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut todo = vec![class.to_string()];
        while let Some(c) = todo.pop() {
            if out.contains(&c) || out.len() > 32 {
                continue;
            }
            if let Some(k) = self.classes.get(&c) {
                todo.extend(k.bases.iter().rev().cloned());
            }
            out.push(c);
        }
        out
    }

    /// A method of `class` (or of a class after `after` in its chain).
    pub fn method(
        &self,
        class: &str,
        name: &str,
        after: Option<&str>,
    ) -> Option<(String, &'a Stmt)> {
        let chain = self.chain(class);
        let start = after
            .and_then(|a| chain.iter().position(|c| c == a))
            .map_or(0, |i| i + 1);
        chain[start.min(chain.len())..].iter().find_map(|c| {
            let k = self.classes.get(c)?;
            k.methods.get(name).map(|m| (c.clone(), *m))
        })
    }

    fn class_attr(&self, class: &str, name: &str) -> Option<Value> {
        self.chain(class)
            .iter()
            .find_map(|c| self.classes.get(c)?.attrs.get(name).cloned())
    }

    fn attribute(&mut self, base: &Value, name: &str) -> Value {
        match base {
            Value::Module(id) => {
                let m = self.heap.get(*id);
                if let Some(v) = m.attrs.get(name) {
                    return v.clone();
                }
                match &m.kind {
                    ModuleKind::Instance { class } => {
                        let class = class.clone();
                        if self.method(&class, name, None).is_some() {
                            return Value::Function {
                                name: name.to_string(),
                                class: Some(class),
                                this: Some(*id),
                            };
                        }
                        self.class_attr(&class, name)
                            .unwrap_or_else(|| bound_library(*id, name))
                    }
                    ModuleKind::Layer(l) => {
                        layer_attribute(l, name).unwrap_or_else(|| bound_library(*id, name))
                    }
                }
            }
            Value::Class(c) => self
                .class_attr(c, name)
                .unwrap_or_else(|| unknown("a class attribute not set in the class body")),
            Value::Library(p) => Value::Library(format!("{p}.{name}")),
            Value::Super { class, this } => {
                let start = self.heap.get(*this);
                let ModuleKind::Instance { class: own } = &start.kind else {
                    return unknown("`super()` outside a class");
                };
                let own = own.clone();
                match self.method(&own, name, Some(class)) {
                    Some((c, _)) => Value::Function {
                        name: name.to_string(),
                        class: Some(c),
                        this: Some(*this),
                    },
                    // `nn.Module.__init__` and friends: nothing to build.
                    None => Value::Library(format!("nn.Module.{name}")),
                }
            }
            Value::List(_) | Value::Tuple(_) => Value::Function {
                name: format!("__list__.{name}"),
                class: None,
                this: None,
            }
            .with_receiver(base),
            _ => unknown("an attribute of a value not known while building"),
        }
    }

    pub fn call(&mut self, f: &Value, args: Args, span: Span) -> Value {
        self.steps += 1;
        if self.budget_spent() || self.depth >= MAX_CALL_DEPTH {
            return unknown("calls nested too deep while building");
        }
        self.depth += 1;
        let v = self.call_inner(f, args, span);
        self.depth -= 1;
        v
    }

    fn call_inner(&mut self, f: &Value, args: Args, span: Span) -> Value {
        match f {
            Value::Class(c) => self.instantiate(c, args, span),
            Value::Function { name, class, this } => {
                let def = match class {
                    Some(c) => self.method(c, name, None).map(|(_, d)| d),
                    None => self.functions.get(name).copied(),
                };
                match def {
                    Some(def) => {
                        let this = this.map(Value::Module);
                        self.run_function(def, this, class.as_deref(), args)
                    }
                    None => unknown("a function not defined in the file"),
                }
            }
            Value::Library(path) => self.library(path, args, span),
            Value::Tuple(parts) if is_bound_list_method(parts) => self.list_method(parts, args),
            _ => unknown("a call of a value not known while building"),
        }
    }

    fn instantiate(&mut self, class: &str, args: Args, span: Span) -> Value {
        let id = self.heap.add(Module {
            kind: ModuleKind::Instance {
                class: class.to_string(),
            },
            attrs: BTreeMap::new(),
            span,
        });
        if let Some((owner, init)) = self.method(class, "__init__", None) {
            let before = self.raised;
            self.run_function(init, Some(Value::Module(id)), Some(&owner), args);
            if self.raised != before {
                return unknown("a configuration that raises an exception");
            }
        }
        Value::Module(id)
    }

    fn run_function(
        &mut self,
        def: &'a Stmt,
        this: Option<Value>,
        class: Option<&str>,
        args: Args,
    ) -> Value {
        let StmtKind::FunctionDef { params, body, .. } = &def.kind else {
            return unknown("not a function");
        };
        let mut frame = Frame::new();
        let method = match (class, &this) {
            (Some(c), Some(Value::Module(id))) => Some((c.to_string(), *id)),
            _ => None,
        };
        let mut positional = this.into_iter().chain(args.positional);
        let mut keywords = args.keywords;
        let mut extra = Vec::new();
        for p in params {
            let Some(name) = &p.name else { continue };
            match p.kind {
                ParamKind::Normal => {
                    let v = keywords
                        .iter()
                        .position(|(k, _)| *k == name.name)
                        .map(|i| keywords.remove(i).1)
                        .or_else(|| positional.next());
                    let v = match (v, &p.default) {
                        (Some(v), _) => v,
                        (None, Some(d)) => {
                            let mut empty = Frame::new();
                            self.eval(d, &mut empty, None)
                        }
                        (None, None) => unknown("a missing argument"),
                    };
                    frame.insert(name.name.clone(), v);
                }
                ParamKind::VarArgs => {
                    extra.extend(positional.by_ref());
                    frame.insert(name.name.clone(), Value::Tuple(std::mem::take(&mut extra)));
                }
                ParamKind::KwArgs => {
                    let pairs = keywords
                        .drain(..)
                        .map(|(k, v)| Value::Tuple(vec![Value::Str(k), v]))
                        .collect();
                    frame.insert(
                        name.name.clone(),
                        Value::Tuple(vec![Value::Str("__dict__".into()), Value::list(pairs)]),
                    );
                }
                ParamKind::KwOnlyMarker | ParamKind::PosOnlyMarker => {}
            }
        }
        let saved = std::mem::replace(&mut self.current_method, method);
        let flow = self.exec_block(body, &mut frame, class, false);
        self.current_method = saved;
        match flow {
            Flow::Return(v) => v,
            _ => Value::None,
        }
    }

    fn list_method(&mut self, parts: &[Value], args: Args) -> Value {
        let (Some(Value::Str(name)), Some(receiver)) = (parts.get(1), parts.get(2)) else {
            return unknown("a method");
        };
        let method = name.trim_start_matches("__list__.");
        match (receiver, method, args.positional.as_slice()) {
            (Value::List(l), "append", [x]) => {
                l.borrow_mut().push(x.clone());
                Value::None
            }
            (Value::List(l), "extend", [x]) => match x.items() {
                Some(items) => {
                    l.borrow_mut().extend(items);
                    Value::None
                }
                None => unknown("a list extended by values not known while building"),
            },
            (Value::List(l), "insert", [i, x]) => {
                let mut l = l.borrow_mut();
                let n = l.len() as i64;
                let i = i.as_int().unwrap_or(n).clamp(0, n) as usize;
                l.insert(i, x.clone());
                Value::None
            }
            (v, "index", [x]) => v
                .items()
                .and_then(|xs| {
                    xs.iter()
                        .position(|y| compare(CmpOp::Eq, y, x) == Some(true))
                })
                .map_or(unknown("an index"), |i| Value::Int(i as i64)),
            _ => unknown("a list method"),
        }
    }

    /// Calls of library names: `torch.nn` layers, Python's builtins, `nn.init` (no
    /// effect on shapes), and a module's own methods such as `self.modules()`.
    fn library(&mut self, path: &str, args: Args, span: Span) -> Value {
        let last = path.rsplit('.').next().unwrap_or(path);
        if let Some(rest) = path.strip_prefix("__module__.") {
            return self.module_method(rest, args);
        }
        if path.contains(".init.") || path.starts_with("init.") || path.ends_with("_") {
            return Value::None;
        }
        let pos = args.positional.as_slice();
        match (last, pos) {
            // `nn.Parameter(t)` and buffers are tensors, not layers.
            ("Parameter" | "Buffer", [t, ..]) => return t.clone(),
            ("OrderedDict", []) => return dict(Vec::new()),
            ("OrderedDict", [x]) => {
                let pairs = x.items().unwrap_or_default();
                return dict(pairs);
            }
            (
                "zeros" | "ones" | "randn" | "rand" | "empty" | "zeros_like" | "ones_like"
                | "randn_like",
                _,
            ) if path.starts_with("torch.") => {
                return tensor_of(last, pos);
            }
            _ => {}
        }
        let first = last.chars().next().unwrap_or('a');
        let from_nn = path == last || path.contains("nn.");
        if first.is_ascii_uppercase() && from_nn && !path.starts_with("torch.Tensor") {
            let heap = &self.heap;
            let layer = layers::layer(last, &args, |v| module_list(heap, v));
            if let Layer::Other(what) = &layer {
                if last != "Module" {
                    self.note(&format!("the layer `{what}` (its output is Dyn)"), span);
                }
            }
            let id = self.heap.add(Module {
                kind: ModuleKind::Layer(layer),
                attrs: BTreeMap::new(),
                span,
            });
            return Value::Module(id);
        }
        match (last, pos) {
            ("range", _) => {
                let ints: Option<Vec<i64>> = pos.iter().map(Value::as_int).collect();
                let (start, stop, step) = match ints.as_deref() {
                    Some([n]) => (0, *n, 1),
                    Some([a, b]) => (*a, *b, 1),
                    Some([a, b, c]) if *c != 0 => (*a, *b, *c),
                    _ => return unknown("a range not known while building"),
                };
                let count = if step > 0 {
                    (stop - start + step - 1).max(0) / step
                } else {
                    (start - stop - step - 1).max(0) / -step
                };
                if count > 100_000 {
                    return unknown("a range too long to build");
                }
                Value::list((0..count).map(|k| Value::Int(start + k * step)).collect())
            }
            ("len", [x]) => self
                .iterate(x)
                .map_or(unknown("a length"), |v| Value::Int(v.len() as i64)),
            ("int", [x]) => match x {
                Value::Int(_) => x.clone(),
                Value::Float(f) if f.is_finite() && f.abs() < 9e15 => Value::Int(f.trunc() as i64),
                Value::Bool(b) => Value::Int(i64::from(*b)),
                _ => unknown("an integer"),
            },
            ("float", [x]) => match x {
                Value::Int(i) => Value::Float(*i as f64),
                Value::Float(_) => x.clone(),
                _ => unknown("a number"),
            },
            ("bool", [x]) => x.truth().map_or(unknown("a truth value"), Value::Bool),
            ("abs", [Value::Int(i)]) => Value::Int(i.saturating_abs()),
            ("max" | "min", _) => {
                let items = match pos {
                    [one] => one.items().unwrap_or_default(),
                    many => many.to_vec(),
                };
                let ints: Option<Vec<i64>> = items.iter().map(Value::as_int).collect();
                match ints {
                    Some(v) if !v.is_empty() => Value::Int(if last == "max" {
                        *v.iter().max().unwrap_or(&0)
                    } else {
                        *v.iter().min().unwrap_or(&0)
                    }),
                    _ => unknown("a maximum"),
                }
            }
            ("sum", [x]) => {
                let ints: Option<Vec<i64>> = x
                    .items()
                    .and_then(|v| v.iter().map(Value::as_int).collect());
                ints.map_or(unknown("a sum"), |v| Value::Int(v.iter().sum()))
            }
            ("list", []) => Value::list(Vec::new()),
            ("list", [x]) => self.iterate(x).map_or(unknown("a list"), Value::list),
            ("tuple", [x]) => self.iterate(x).map_or(unknown("a tuple"), Value::Tuple),
            ("enumerate", [x]) => match self.iterate(x) {
                Some(v) => Value::list(
                    v.into_iter()
                        .enumerate()
                        .map(|(i, x)| Value::Tuple(vec![Value::Int(i as i64), x]))
                        .collect(),
                ),
                None => unknown("an enumeration"),
            },
            ("zip", _) => {
                let lists: Option<Vec<Vec<Value>>> = pos.iter().map(|x| self.iterate(x)).collect();
                match lists {
                    Some(ls) => {
                        let n = ls.iter().map(Vec::len).min().unwrap_or(0);
                        Value::list(
                            (0..n)
                                .map(|i| Value::Tuple(ls.iter().map(|l| l[i].clone()).collect()))
                                .collect(),
                        )
                    }
                    None => unknown("a zip"),
                }
            }
            ("isinstance", [x, t]) => self.isinstance(x, t),
            ("getattr", [o, Value::Str(n), rest @ ..]) => match self.attribute(o, n) {
                Value::Unknown(_) if !rest.is_empty() => rest[0].clone(),
                v => v,
            },
            ("hasattr", [o, Value::Str(n)]) => match o {
                Value::Module(id) => Value::Bool(self.heap.get(*id).attrs.contains_key(n)),
                _ => unknown("an attribute test"),
            },
            ("setattr", [Value::Module(id), Value::Str(n), v]) => {
                self.heap.get_mut(*id).attrs.insert(n.clone(), v.clone());
                Value::None
            }
            ("super", _) => self.super_of(pos),
            ("ceil", [x]) if path.starts_with("math") => match x {
                Value::Int(_) => x.clone(),
                Value::Float(f) if f.is_finite() && f.abs() < 9e15 => Value::Int(f.ceil() as i64),
                _ => unknown("a ceiling"),
            },
            ("floor", [x]) if path.starts_with("math") => match x {
                Value::Int(_) => x.clone(),
                Value::Float(f) if f.is_finite() && f.abs() < 9e15 => Value::Int(f.floor() as i64),
                _ => unknown("a floor"),
            },
            ("print" | "__init__", _) => Value::None,
            // `typing.cast(int, v)` is `v`.
            ("cast", [_, x]) => x.clone(),
            _ => unknown("a call of a library function while building"),
        }
    }

    /// `super()` needs the current method's class and `self`; they are in the frame
    /// the call came from, which `run_function` names `self`. With arguments
    /// (`super(Block, self)`), the class is the first one.
    fn super_of(&mut self, pos: &[Value]) -> Value {
        match pos {
            [Value::Class(c), Value::Module(this)] => Value::Super {
                class: c.clone(),
                this: *this,
            },
            _ => match &self.current_method {
                Some((c, this)) => Value::Super {
                    class: c.clone(),
                    this: *this,
                },
                None => unknown("`super()` outside a method"),
            },
        }
    }

    fn isinstance(&self, x: &Value, t: &Value) -> Value {
        if let Some(ts) = t.items() {
            return Value::Bool(
                ts.iter()
                    .any(|t| matches!(self.isinstance(x, t), Value::Bool(true))),
            );
        }
        let Value::Module(id) = x else {
            return match (x, t) {
                (Value::Int(_), Value::Library(p)) if p == "int" => Value::Bool(true),
                (Value::Unknown(_), _) => unknown("a type test"),
                (_, Value::Library(p))
                    if ["int", "float", "str", "list", "tuple", "bool"].contains(&p.as_str()) =>
                {
                    Value::Bool(matches!(
                        (x, p.as_str()),
                        (Value::Float(_), "float")
                            | (Value::Str(_), "str")
                            | (Value::Bool(_), "bool")
                            | (Value::List(_), "list")
                            | (Value::Tuple(_), "tuple")
                    ))
                }
                _ => Value::Bool(false),
            };
        };
        match (&self.heap.get(*id).kind, t) {
            (ModuleKind::Layer(l), Value::Library(p)) => {
                let name = layer_name(l);
                let last = p.rsplit('.').next().unwrap_or(p);
                Value::Bool(last == name || last == "Module")
            }
            (ModuleKind::Instance { class }, Value::Class(c)) => {
                Value::Bool(self.chain(class).contains(c))
            }
            (ModuleKind::Instance { .. }, Value::Library(p)) => Value::Bool(p.ends_with("Module")),
            _ => Value::Bool(false),
        }
    }

    /// `self.modules()`, `self.children()`, `self.add_module(name, m)`, … on a module.
    fn module_method(&mut self, rest: &str, args: Args) -> Value {
        let (id, name) = match rest.split_once('.') {
            Some((id, name)) => (id.parse::<usize>().ok().map(ModuleId), name),
            None => (None, rest),
        };
        let Some(id) = id.filter(|i| i.0 < self.heap.modules.len()) else {
            return unknown("a method");
        };
        match (name, args.positional.as_slice()) {
            ("modules" | "children", _) => {
                let mut out = Vec::new();
                self.collect_modules(id, name == "modules", &mut out, 0);
                Value::list(out.into_iter().map(Value::Module).collect())
            }
            (
                "add_module" | "register_module" | "register_buffer" | "register_parameter",
                [Value::Str(n), m, ..],
            ) => {
                self.heap.get_mut(id).attrs.insert(n.clone(), m.clone());
                Value::None
            }
            ("append", [m]) => {
                if let (
                    ModuleKind::Layer(Layer::Sequential(ms) | Layer::ModuleList(ms)),
                    Value::Module(m),
                ) = (&mut self.heap.get_mut(id).kind, m)
                {
                    ms.push(*m);
                }
                Value::None
            }
            _ => unknown("a module method while building"),
        }
    }

    fn collect_modules(&self, id: ModuleId, all: bool, out: &mut Vec<ModuleId>, depth: usize) {
        if depth > 64 || out.len() > 10_000 {
            return;
        }
        if all {
            out.push(id);
        }
        let m = self.heap.get(id);
        let mut children: Vec<ModuleId> = Vec::new();
        for v in m.attrs.values() {
            children.extend(module_list(&self.heap, v).unwrap_or_default());
        }
        if let ModuleKind::Layer(Layer::Sequential(ms) | Layer::ModuleList(ms)) = &m.kind {
            children.extend(ms.iter().copied());
        }
        for c in children {
            if all {
                self.collect_modules(c, true, out, depth + 1);
            } else {
                out.push(c);
            }
        }
    }
}

impl Value {
    /// A list method bound to its list: `(marker, method name, list)`.
    fn with_receiver(self, receiver: &Value) -> Value {
        match self {
            Value::Function { name, .. } => Value::Tuple(vec![
                Value::Str("__bound__".into()),
                Value::Str(name),
                receiver.clone(),
            ]),
            v => v,
        }
    }
}

fn is_bound_list_method(parts: &[Value]) -> bool {
    matches!(parts.first(), Some(Value::Str(s)) if s == "__bound__") && parts.len() == 3
}

/// A module's method other than those its class defines (`modules`, `add_module`).
fn bound_library(id: ModuleId, name: &str) -> Value {
    Value::Library(format!("__module__.{}.{name}", id.0))
}

fn layer_name(l: &Layer) -> &str {
    match l {
        Layer::Conv2d { .. } => "Conv2d",
        Layer::ConvTranspose2d { .. } => "ConvTranspose2d",
        Layer::Rearrange { .. } => "Rearrange",
        Layer::Linear { .. } => "Linear",
        Layer::BatchNorm2d { .. } => "BatchNorm2d",
        Layer::BatchNorm1d { .. } => "BatchNorm1d",
        Layer::MaxPool2d { .. } => "MaxPool2d",
        Layer::AvgPool2d { .. } => "AvgPool2d",
        Layer::AdaptivePool2d { .. } => "AdaptiveAvgPool2d",
        Layer::Embedding { .. } => "Embedding",
        Layer::LayerNorm { .. } => "LayerNorm",
        Layer::Flatten { .. } => "Flatten",
        Layer::Pointwise(n) | Layer::Other(n) => n,
        Layer::Sequential(_) => "Sequential",
        Layer::ModuleList(_) => "ModuleList",
    }
}

/// Attributes model code reads from a layer (`self.fc.in_features`).
fn layer_attribute(l: &Layer, name: &str) -> Option<Value> {
    let int = |v: &Option<i64>| Some(v.map_or(unknown("a layer parameter"), Value::Int));
    match (l, name) {
        (Layer::Linear { in_features, .. }, "in_features") => int(in_features),
        (Layer::Linear { out_features, .. }, "out_features") => int(out_features),
        (Layer::Conv2d { in_channels, .. }, "in_channels") => int(in_channels),
        (Layer::Conv2d { out_channels, .. }, "out_channels") => int(out_channels),
        (
            Layer::BatchNorm2d { num_features } | Layer::BatchNorm1d { num_features },
            "num_features",
        ) => int(num_features),
        (Layer::Embedding { embedding_dim, .. }, "embedding_dim") => int(embedding_dim),
        _ => None,
    }
}

/// The modules a value holds: one module, or a list/tuple of modules.
pub fn module_list(heap: &Heap, v: &Value) -> Option<Vec<ModuleId>> {
    match v {
        Value::Module(id) if id.0 < heap.modules.len() => Some(vec![*id]),
        v => v
            .items()?
            .iter()
            .map(|x| match x {
                Value::Module(id) => Some(*id),
                _ => None,
            })
            .collect(),
    }
}

/// A dict value from its (key, value) pairs (each a 2-tuple).
fn dict(pairs: Vec<Value>) -> Value {
    Value::Tuple(vec![Value::Str("__dict__".into()), Value::list(pairs)])
}

/// `torch.zeros(1, n, d)` / `torch.randn((1, n))` / `torch.zeros_like(t)` while building:
/// a tensor of those sizes (a size not known is `None`).
fn tensor_of(name: &str, args: &[Value]) -> Value {
    if name.ends_with("_like") {
        return match args.first() {
            Some(Value::Tensor(t)) => Value::Tensor(t.clone()),
            _ => unknown("a tensor like one not known while building"),
        };
    }
    let sizes: Vec<Value> = match args {
        [one] if one.items().is_some() => one.items().unwrap_or_default(),
        many => many
            .iter()
            .filter(|v| !matches!(v, Value::Str(_)))
            .cloned()
            .collect(),
    };
    Value::Tensor(sizes.iter().map(Value::as_int).collect())
}

fn subscript(base: &Value, ix: &Value) -> Value {
    if let Some(pairs) = dict_pairs(base) {
        return pairs
            .into_iter()
            .find(|(k, _)| compare(CmpOp::Eq, k, ix) == Some(true))
            .map_or(unknown("a dict entry"), |(_, v)| v);
    }
    let Some(items) = base.items() else {
        return unknown("an index into a value not known while building");
    };
    let n = items.len() as i64;
    match ix {
        Value::Int(i) => {
            let i = if *i < 0 { i + n } else { *i };
            if (0..n).contains(&i) {
                items[i as usize].clone()
            } else {
                unknown("an index out of range")
            }
        }
        _ => unknown("an index not known while building"),
    }
}

fn binary(op: BinOp, l: &Value, r: &Value) -> Value {
    use Value::{Float, Int};
    match (l, r) {
        (Int(a), Int(b)) => {
            let v = match op {
                BinOp::Add => a.checked_add(*b),
                BinOp::Sub => a.checked_sub(*b),
                BinOp::Mul => a.checked_mul(*b),
                BinOp::FloorDiv if *b != 0 => {
                    Some(a.div_euclid(*b) - i64::from(a.rem_euclid(*b) != 0 && *b < 0))
                }
                BinOp::Mod if *b != 0 => Some(
                    a.rem_euclid(*b)
                        + if *b < 0 && a.rem_euclid(*b) != 0 {
                            *b
                        } else {
                            0
                        },
                ),
                BinOp::Pow if (0..64).contains(b) => a.checked_pow(*b as u32),
                BinOp::Div if *b != 0 => return Float(*a as f64 / *b as f64),
                BinOp::LShift if (0..63).contains(b) => a.checked_shl(*b as u32),
                BinOp::RShift if (0..63).contains(b) => Some(a >> b),
                BinOp::BitAnd => Some(a & b),
                BinOp::BitOr => Some(a | b),
                BinOp::BitXor => Some(a ^ b),
                _ => None,
            };
            v.map_or(unknown("an arithmetic overflow or division by zero"), Int)
        }
        (Int(_) | Float(_), Int(_) | Float(_)) => {
            let (a, b) = (num(l), num(r));
            let v = match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div if b != 0.0 => a / b,
                BinOp::FloorDiv if b != 0.0 => (a / b).floor(),
                BinOp::Pow => a.powf(b),
                _ => return unknown("an operation"),
            };
            Float(v)
        }
        (Value::Str(a), Value::Str(b)) if op == BinOp::Add => Value::Str(format!("{a}{b}")),
        (Value::Tuple(a), Value::Tuple(b)) if op == BinOp::Add => {
            Value::Tuple([a.clone(), b.clone()].concat())
        }
        (Value::List(a), Value::List(b)) if op == BinOp::Add => {
            Value::list([a.borrow().clone(), b.borrow().clone()].concat())
        }
        (Value::List(a), Int(k)) | (Int(k), Value::List(a))
            if op == BinOp::Mul && (0..10_000).contains(k) =>
        {
            let items = a.borrow().clone();
            Value::list((0..*k).flat_map(|_| items.clone()).collect())
        }
        _ => unknown("an operation on values not known while building"),
    }
}

fn num(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        _ => f64::NAN,
    }
}

fn compare(op: CmpOp, l: &Value, r: &Value) -> Option<bool> {
    use Value::*;
    let eq = |a: &Value, b: &Value| values_equal(a, b);
    match op {
        CmpOp::Eq => eq(l, r),
        CmpOp::Ne => eq(l, r).map(|b| !b),
        CmpOp::Is => match (l, r) {
            (None, None) => Some(true),
            (None, x) | (x, None) => (!x.is_unknown()).then_some(false),
            _ => eq(l, r),
        },
        CmpOp::IsNot => compare(CmpOp::Is, l, r).map(|b| !b),
        CmpOp::In | CmpOp::NotIn => {
            let found = match r {
                Str(s) => match l {
                    Str(x) => Some(s.contains(x.as_str())),
                    _ => Option::None,
                },
                r => {
                    let keys = match dict_pairs(r) {
                        Some(p) => p.into_iter().map(|(k, _)| k).collect(),
                        Option::None => r.items()?,
                    };
                    let mut any = false;
                    for k in &keys {
                        match eq(l, k) {
                            Some(true) => any = true,
                            Some(false) => {}
                            Option::None => return Option::None,
                        }
                    }
                    Some(any)
                }
            };
            found.map(|f| f == (op == CmpOp::In))
        }
        _ => {
            let (a, b) = match (l, r) {
                (Int(_) | Float(_) | Bool(_), Int(_) | Float(_) | Bool(_)) => {
                    (num_or_bool(l), num_or_bool(r))
                }
                _ => return Option::None,
            };
            Some(match op {
                CmpOp::Lt => a < b,
                CmpOp::Le => a <= b,
                CmpOp::Gt => a > b,
                _ => a >= b,
            })
        }
    }
}

/// Python's `==` on values known while building; `None` when either is not known.
fn values_equal(a: &Value, b: &Value) -> Option<bool> {
    use Value::*;
    Some(match (a, b) {
        (Unknown(_) | Super { .. }, _) | (_, Unknown(_) | Super { .. }) => return Option::None,
        (Int(_) | Bool(_) | Float(_), Int(_) | Bool(_) | Float(_)) => {
            num_or_bool(a) == num_or_bool(b)
        }
        (Str(x), Str(y)) => x == y,
        (None, None) => true,
        (Module(x), Module(y)) => x == y,
        (Class(x), Class(y)) => x == y,
        (Library(x), Library(y)) if x == y => true,
        (Library(_), _) | (_, Library(_)) => return Option::None,
        (Tuple(_) | List(_), Tuple(_) | List(_)) => {
            let (x, y) = (a.items().unwrap_or_default(), b.items().unwrap_or_default());
            if x.len() != y.len() {
                return Some(false);
            }
            for (p, q) in x.iter().zip(&y) {
                if !values_equal(p, q)? {
                    return Some(false);
                }
            }
            true
        }
        // Known values of different kinds are never equal.
        _ => false,
    })
}

fn num_or_bool(v: &Value) -> f64 {
    match v {
        Value::Bool(b) => f64::from(u8::from(*b)),
        v => num(v),
    }
}

/// Whether a block assigns to an attribute (`self.x = …`): skipping it then may leave
/// a layer out, which is worth a note; weight-initialisation loops never do.
fn sets_attributes(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Assign { targets, .. } => targets
            .iter()
            .any(|t| matches!(t.kind, ExprKind::Attribute { .. })),
        StmtKind::AnnAssign { target, .. } | StmtKind::AugAssign { target, .. } => {
            matches!(target.kind, ExprKind::Attribute { .. })
        }
        StmtKind::If { body, orelse, .. } | StmtKind::For { body, orelse, .. } | StmtKind::While { body, orelse, .. } => {
            sets_attributes(body) || sets_attributes(orelse)
        }
        StmtKind::Expr(Expr {
            kind: ExprKind::Call { func, .. },
            ..
        }) => matches!(&func.kind, ExprKind::Attribute { attr, .. } if attr.name == "append" || attr.name == "add_module"),
        _ => false,
    })
}
