//! The transfer function of the value analysis: one Tame IR statement at a time.

use super::call::CallSite;
use super::eval::{self, Call};
use super::results::{Effect, StmtResult};
use super::state::ValueAnalysis;
use super::{bind_unknown, is_integral_class, maybe_real, value_of, Class, Env, Value};
use crate::flow::{FlowResult, State};
use crate::shape::{self, IndexArg, Outcome, Rule, Shape};
use crate::tame::{ForIter, Index, Literal, Stmt, StmtId, StmtKind, TableEntry, Var};
use shapex_dims::{Atom, Constraint, Dim, Truth};

/// `array(indices…)`: the target of an indexed read or assignment.
pub struct Subscripted<'a> {
    pub array: &'a Var,
    pub indices: &'a [Index],
}

/// For a statement that computes with an operand holding π (a call's argument, an
/// indexed array, a subscript, an assigned value), the operation's name. (Runs on every
/// statement, so it looks without collecting.)
fn reads_illegal(stmt: &Stmt, env: &Env) -> Option<String> {
    let illegal = |v: &Var| env.get(v).is_some_and(|v| v.shape == Shape::Illegal);
    let subscript = |indices: &[Index]| {
        indices
            .iter()
            .any(|i| matches!(i, Index::Var(v) if illegal(v)))
    };
    match &stmt.kind {
        StmtKind::Call { func, args, .. } => args.iter().any(illegal).then(|| func.clone()),
        StmtKind::ArrayGet { array, indices, .. } => {
            (illegal(array) || subscript(indices)).then(|| "index".to_string())
        }
        StmtKind::ArraySet {
            array,
            indices,
            rhs,
        }
        | StmtKind::CellSet {
            cell: array,
            indices,
            rhs,
        } => (illegal(array) || illegal(rhs) || subscript(indices)).then(|| "subsasgn".to_string()),
        _ => None,
    }
}

impl ValueAnalysis<'_> {
    /// [`ValueAnalysis::step`], for the results of a statement the flow has just
    /// transferred: when its last transfer was from this very environment (the one the
    /// flow recorded before it, shared, not merely equal) in the same simulated
    /// iterations, that step is the answer (a step is a function of those, and what it
    /// minted is minted). Computing every step twice was a fifth of a long script's
    /// analysis.
    pub fn step_again(&self, stmt: &Stmt, env: &Env) -> (State<Env>, Effect) {
        if let Some(s) = self.stepped.borrow().get(&stmt.id) {
            let same = s.input.vars.ptr_eq(&env.vars)
                && s.input.facts == env.facts
                && s.path == self.symbols.iteration_path();
            if same {
                return (s.out.clone(), s.effect.clone());
            }
        }
        self.step(stmt, env)
    }

    /// Applies `stmt` to `env`, returning the new environment and what happened.
    pub fn step(&self, stmt: &Stmt, env: &Env) -> (State<Env>, Effect) {
        self.named.borrow_mut().clear();
        let input_env = env;
        let mut env = env.clone();
        let mut effect = Effect::default();
        if let Some(op) = reads_illegal(stmt, &env) {
            // An operand is π: every run that would get here failed at the definite
            // error that made it (one root cause, Joisha §4.2's annihilator). The
            // statement is not checked again — no outcome, so no second error — and
            // what it defines inherits π.
            effect.op = op;
            for t in stmt.defs() {
                env.vars
                    .insert(t.clone(), Value::of_shape(None, Shape::Illegal));
            }
            return (State::Reachable(env), effect);
        }
        match &stmt.kind {
            StmtKind::AssignLiteral {
                lhs,
                value: Literal::Numbers { rows },
            } => self.number_table(stmt.id, &mut env, &mut effect, lhs, rows),
            StmtKind::AssignLiteral { lhs, value } => {
                env.vars.insert(lhs.clone(), literal(value));
            }
            StmtKind::Copy { lhs, rhs } => {
                let v = env.get(rhs).cloned().unwrap_or_else(Value::unknown);
                env.vars.insert(lhs.clone(), v);
            }
            StmtKind::Call {
                targets,
                func,
                args,
            } => {
                let (values, counted) = self.arguments(&env, args, targets);
                // `assert(n <= 10)` returns only when its condition holds.
                let asserted = (func == "assert" && !self.user_functions.iter().any(|f| f == func))
                    .then(|| values.first().and_then(|v| v.guard.clone()))
                    .flatten();
                let site = CallSite {
                    site: stmt.id,
                    func,
                    args: values,
                    targets,
                    no_args: args.is_empty(),
                    counted,
                };
                self.call(site, &mut env, &mut effect);
                if let Some(guard) = asserted {
                    env = super::assuming(&env, &guard, true);
                }
            }
            StmtKind::ArrayGet {
                targets,
                array,
                indices,
                update,
            } => {
                let sub = Subscripted { array, indices };
                self.array_get(stmt.id, &mut env, &mut effect, targets, sub, *update)
            }
            StmtKind::ArraySet {
                array,
                indices,
                rhs,
            } => {
                let before = env.get(array).cloned();
                let sub = Subscripted { array, indices };
                self.array_set(stmt.id, &mut env, &mut effect, sub, rhs, None);
                self.struct_set_parts(&mut env, before.as_ref(), array, indices, rhs);
                self.dissimilar_structs(&env, &mut effect, before.as_ref(), rhs);
            }
            StmtKind::CellSet { cell, indices, rhs } => {
                let before = env.get(cell).cloned();
                let sub = Subscripted {
                    array: cell,
                    indices,
                };
                self.array_set(stmt.id, &mut env, &mut effect, sub, rhs, Some("cell"));
                self.cell_set_parts(&mut env, before.as_ref(), cell, indices, rhs);
            }
            StmtKind::CellGet {
                targets,
                cell,
                indices,
                update,
            } => {
                if !*update {
                    let sub = Subscripted {
                        array: cell,
                        indices,
                    };
                    effect.op = "index".into();
                    effect.outcomes.push(self.cell_bounds(stmt.id, &env, sub));
                }
                self.cell_get(stmt.id, &mut env, targets, cell, indices, *update)
            }
            StmtKind::DotGet {
                targets,
                base,
                field,
                update,
            } => {
                let read = (base, field, *update);
                self.dot_get(stmt.id, &mut env, &mut effect, targets, read)
            }
            StmtKind::DotSet { base, field, rhs } => {
                let before = env.get(base).cloned();
                dot_set(&mut env, base);
                self.dot_set_parts(&mut env, before.as_ref(), base, field, rhs);
            }
            StmtKind::FuncHandle { lhs, func } => {
                let v = Value {
                    handle: Some(func.clone()),
                    ..Value::of_shape(Some("function_handle"), Shape::scalar())
                };
                env.vars.insert(lhs.clone(), v);
            }
            StmtKind::Lambda {
                lhs,
                func,
                captured,
                ..
            } => {
                let closure = super::Closure {
                    func: func.clone(),
                    // Without origins: a closure's value does not move with the text.
                    captured: captured
                        .iter()
                        .map(|c| Value {
                            origin: None,
                            ..value_of(&env, c)
                        })
                        .collect(),
                };
                let v = Value {
                    closure: Some(std::rc::Rc::new(closure)),
                    ..Value::of_shape(Some("function_handle"), Shape::scalar())
                };
                env.vars.insert(lhs.clone(), v);
            }
            StmtKind::Global(vars) | StmtKind::Persistent(vars) => bind_unknown(&mut env, vars),
            StmtKind::If { .. }
            | StmtKind::While { .. }
            | StmtKind::For { .. }
            | StmtKind::Try { .. }
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Return => {}
        }
        self.finish(stmt, input_env, env, effect)
    }

    /// What every statement's step ends with: a definite error's evidence and its
    /// targets π, the defined values' origin, and whether execution goes on.
    fn finish(
        &self,
        stmt: &Stmt,
        input_env: &Env,
        mut env: Env,
        mut effect: Effect,
    ) -> (State<Env>, Effect) {
        if effect.outcomes.iter().any(|o| o.status == Truth::Refuted) {
            effect.evidence = self.evidence(stmt, input_env);
        }
        self.name_placeholders(stmt, &mut effect);
        // A definite shape error leaves its targets illegal (π) and analysis goes on:
        // π is the annihilator of every shape algebra, so it flows on without further
        // errors, and statements that don't depend on it are still checked.
        if effect.outcomes.iter().any(|o| o.status == Truth::Refuted) {
            for t in stmt.defs() {
                env.vars
                    .insert(t.clone(), Value::of_shape(None, Shape::Illegal));
            }
        }
        for t in stmt.defs() {
            if let Some(v) = env.vars.get_mut(t) {
                v.origin = Some(stmt.origin);
            }
        }
        // A function analysed for a caller stops at its first error, as MATLAB does:
        // its exit is then nonviable exactly when no run returns normally.
        let stops =
            self.frame.is_some() && effect.outcomes.iter().any(|o| o.status == Truth::Refuted);
        let state = if effect.diverges || stops {
            State::Nonviable
        } else {
            State::Reachable(env)
        };
        (state, effect)
    }

    /// The stem of the symbols a rule's placeholders for open cases become: named
    /// after the statement's target (`x~c1`), or `t~c` for a temporary.
    fn open_case_stem(&self, target: Option<&Var>) -> String {
        match target {
            Some(t) if !self.is_temp(t) => format!("{t}~c"),
            _ => "t~c".to_string(),
        }
    }

    /// `d` with each placeholder for an open case as a symbol of statement `stmt`:
    /// the one `named` gives it, or a new one, recorded there.
    fn name_open_cases(
        &self,
        d: &Dim,
        stem: &str,
        stmt: StmtId,
        named: &std::cell::RefCell<Vec<(String, Dim)>>,
    ) -> Dim {
        d.substitute(&|a| match a {
            Atom::Sym(n) if n.name().starts_with(shape::PLACEHOLDER) => {
                let mut named = named.borrow_mut();
                if let Some((_, d)) = named.iter().find(|(m, _)| m.as_str() == n.name()) {
                    return Some(d.clone());
                }
                let d = self.symbols.mint(stem, named.len(), stmt, false);
                named.push((n.name().to_string(), d.clone()));
                Some(d)
            }
            _ => None,
        })
    }

    /// The conditions of `effect` with a rule's placeholders for open cases named as
    /// [`ValueAnalysis::bind`] named them in the values, and the others (extents of an
    /// intermediate result, `cat(2, a, b, c)`'s `[a b]`) as further symbols of the
    /// statement: a condition never shows a placeholder.
    fn name_placeholders(&self, stmt: &Stmt, effect: &mut Effect) {
        // Only a rule with open cases has placeholders, and it assumes one of them.
        let open = |o: &Outcome| !o.assume.is_empty() && o.status != Truth::Proven;
        if !effect.outcomes.iter().any(open) {
            self.named.borrow_mut().clear();
            return;
        }
        let stem = self.open_case_stem(stmt.defs().first().copied());
        let named = std::cell::RefCell::new(std::mem::take(&mut *self.named.borrow_mut()));
        let rename = |d: &Dim| self.name_open_cases(d, &stem, stmt.id, &named);
        for o in &mut effect.outcomes {
            o.theta = o.theta.map_dims(&rename);
        }
    }

    /// The named variables `stmt` reads, with their shapes and origins before it ran.
    fn evidence(&self, stmt: &Stmt, env: &Env) -> Vec<(String, Shape, Option<shapex_text::Span>)> {
        let mut names: Vec<&Var> = match &stmt.kind {
            StmtKind::Call { args, .. } => args.iter().collect(),
            StmtKind::ArrayGet { array, indices, .. } => std::iter::once(array)
                .chain(indices.iter().filter_map(|i| match i {
                    Index::Var(v) => Some(v),
                    Index::Colon => None,
                }))
                .collect(),
            StmtKind::ArraySet { array, rhs, .. }
            | StmtKind::CellSet {
                cell: array, rhs, ..
            } => {
                vec![array, rhs]
            }
            _ => vec![],
        };
        names.dedup();
        names
            .into_iter()
            .filter(|n| !self.is_temp(n))
            .filter_map(|n| {
                let v = env.get(n)?;
                Some((n.clone(), v.shape.clone(), v.origin))
            })
            .collect()
    }

    /// The shape indexing with `n` subscripts sees. For an input of open rank, the
    /// last subscript spans its trailing dimensions, whose product is unknown: that
    /// extent is a fresh symbol (a linear subscript sees rows × that).
    fn open_rank_view(&self, id: StmtId, array: &str, base: &Value, n: usize) -> Shape {
        match base.shape.as_tuple() {
            Some(t) if base.open_rank && n <= t.rank() => {
                let keep = n.max(2) - 1;
                // The product of the spanned extents, by name when the trailing ones
                // have one (an input's `x_3`), so every `x(:)` has the same length.
                let spanned = match &base.trailing {
                    Some(trailing) => t.dims()[keep..]
                        .iter()
                        .fold(trailing.clone(), |p, d| p.mul(d)),
                    None => self.symbols.mint(&format!("{array}~r"), n, id, false),
                };
                let mut dims = t.dims()[..keep].to_vec();
                dims.push(spanned);
                Shape::tuple(dims)
            }
            _ => base.shape.clone(),
        }
    }

    pub(super) fn bind(
        &self,
        stmt: StmtId,
        env: &mut Env,
        targets: &[Var],
        values: Vec<Value>,
        outcomes: &[Outcome],
    ) {
        // Placeholders for extents that differ between a rule's open cases become
        // symbols of this statement.
        let stem = self.open_case_stem(targets.first());
        let named: std::cell::RefCell<Vec<(String, Dim)>> = Default::default();
        let rename = |d: &Dim| self.name_open_cases(d, &stem, stmt, &named);
        for o in outcomes {
            for c in &o.assume {
                env.facts.assume(&c.map_dims(&rename));
            }
        }
        for (t, v) in targets.iter().zip(values) {
            let v = Value {
                shape: v.shape.map_dims(&rename),
                ..v
            };
            let fresh = |k: usize| self.symbols.mint(&format!("{t}~o"), k, stmt, false);
            let shape = simplify_extents(&v.shape.normalize(&env.facts), &fresh);
            let shape = nonnegative(shape, &env.facts, &fresh);
            let mut v = Value { shape, ..v };
            // A scalar's value, like an extent, is forgotten when it grows too large
            // (`n = min(n, …)` in a loop nests without end).
            if v.scalar
                .as_ref()
                .is_some_and(|d| extent_size(d) > MAX_EXTENT_SIZE)
            {
                v.scalar = None;
            }
            if v.elems
                .as_ref()
                .is_some_and(|e| e.iter().any(|d| extent_size(d) > MAX_EXTENT_SIZE))
            {
                v.elems = None;
            }
            if v.scalar.is_none() && is_scalar(&v) && is_numeric(&v) && !self.is_temp(t) {
                // An unknown scalar is named after the variable that holds it (`m`), as
                // the paper writes m′; every other definition gets a fresh name. A
                // double may hold 2.5, so its symbol is not known to be an integer
                // (`REAL`) unless its class says so.
                let stem = if v.integral || is_integral_class(&v) {
                    t.clone()
                } else {
                    format!("{t}~x")
                };
                v.scalar = Some(self.symbols.mint(&stem, 0, stmt, true));
            }
            env.vars.insert(t.clone(), v);
        }
        self.named.borrow_mut().extend(named.into_inner());
    }

    /// A table of numbers, analysed as the Tamer's lowering of it: each `-` a
    /// `uminus`, each row a `horzcat`, then a `vertcat` (see [`Literal::Numbers`]), so
    /// its value, check and rules are those. The calls are evaluated on values, without
    /// a statement or a variable each; each distinct outcome is kept once (they are the
    /// same for every row, and the Report shows each rule once).
    fn number_table(
        &self,
        id: StmtId,
        env: &mut Env,
        effect: &mut Effect,
        lhs: &Var,
        rows: &[Vec<TableEntry>],
    ) {
        let mut outcomes: Vec<Outcome> = Vec::new();
        let mut apply = |func: &str, args: Vec<Value>| -> Value {
            let mint = |stem: &str, k: usize, value: bool| self.symbols.mint(stem, k, id, value);
            let call = Call {
                func,
                args,
                nargout: 1,
                targets: std::slice::from_ref(lhs),
                mint: &mint,
            };
            let result = eval::call(self.builtins, self.mode, &call, &env.facts);
            for o in result.outcomes {
                if !outcomes.contains(&o) {
                    outcomes.push(o);
                }
            }
            effect.op = func.to_string();
            result
                .values
                .into_iter()
                .next()
                .unwrap_or_else(Value::unknown)
        };
        // A row of one element is that element (as in lowering: no `horzcat`).
        let mut row_of = |row: &[TableEntry]| {
            let mut elements: Vec<Value> = row
                .iter()
                .map(|e| {
                    let number = literal(&Literal::Number {
                        value: e.value,
                        imag: e.imag,
                        text: String::new(),
                    });
                    if e.negated {
                        apply("uminus", vec![number])
                    } else {
                        number
                    }
                })
                .collect();
            match elements.len() {
                1 => elements.remove(0),
                _ => apply("horzcat", elements),
            }
        };
        let elements = rows.len().saturating_mul(rows.first().map_or(0, Vec::len));
        let mut row_values: Vec<Value> = if elements > super::MAX_ELEMS {
            // Past MAX_ELEMS elements the table's value keeps none of them (`horzcat`
            // and `vertcat` drop known elements past the cap), and every row's calls
            // have operands of the same classes and shapes, so the same outcomes: the
            // first row stands for every row, as the first `-` after it (if row one
            // has none) stands for every `uminus`. The cost follows rows plus columns.
            let first = row_of(&rows[0]);
            if !rows[0].iter().any(|e| e.negated) {
                if let Some(e) = rows.iter().flatten().find(|e| e.negated) {
                    row_of(std::slice::from_ref(e));
                }
            }
            vec![first; rows.len()]
        } else {
            rows.iter().map(|r| row_of(r)).collect()
        };
        let value = match row_values.len() {
            1 => row_values.remove(0),
            _ => apply("vertcat", row_values),
        };
        self.bind(id, env, std::slice::from_ref(lhs), vec![value], &outcomes);
        effect.outcomes = outcomes;
    }

    fn array_get(
        &self,
        id: StmtId,
        env: &mut Env,
        effect: &mut Effect,
        targets: &[Var],
        Subscripted { array, indices }: Subscripted,
        update: bool,
    ) {
        let defined = env.get(array).cloned();
        let base = match env.get(array) {
            // A value of unknown class and shape may be a function handle or an object
            // (`f = inline(…)`, `w = p.method(…)`): `v(…)` may be a call, not an index.
            Some(v) if v.class.is_none() && v.shape == Shape::Unknown => {
                effect.op = "index".into();
                if !update {
                    effect.outcomes.push(unknown_subscripts(
                        "subscripts within the bounds of an array of unknown shape (or a call, if it holds a function)",
                    ));
                }
                return bind_unknown(env, targets);
            }
            Some(v) if v.class == Some("function_handle") => {
                return self.call_through_handle(id, env, effect, targets, v.clone(), indices)
            }
            Some(v) => v.clone(),
            // `update` reads of a missing part yield [] (MATLAB creates it).
            None if update => Value::of_shape(None, Shape::empty()),
            None => return bind_unknown(env, targets),
        };
        // `f("code", x)` with a char subscript is, in practice, a call through a
        // function handle held in `f` (an input we cannot see into), not indexing.
        let char_subscript = indices.iter().any(|i| match i {
            Index::Var(v) => env
                .get(v)
                .is_some_and(|v| v.is_char() && v.text.as_deref() != Some(":")),
            Index::Colon => false,
        });
        if char_subscript || beyond_rank(&base, indices.len()) {
            effect.op = "index".into();
            return bind_unknown(env, targets);
        }
        let stem = format!("{}~n", targets_name(targets));
        let args: Vec<IndexArg> = indices
            .iter()
            .enumerate()
            .map(|(k, i)| index_arg(env, i, || self.symbols.mint(&stem, k, id, false)))
            .collect();
        let mut outcome = shape::index(
            &self.open_rank_view(id, array, &base, indices.len()),
            &args,
            &env.facts,
        );
        if base.class.is_none() && !update {
            // A value of unknown class (an input, say) may be a function handle or an
            // object, where `v(0)` is a call: not a definite error.
            outcome = outcome.excused();
        }
        let within = outcome.status;
        if update && outcome.status == Truth::Refuted {
            // Reading a missing part to assign into it: MATLAB creates it, as [].
            outcome = Outcome::always(Shape::empty(), outcome.rule);
        }
        let picks_many =
            |a: &IndexArg| !matches!(a, IndexArg::Scalar(_) | IndexArg::End(_) | IndexArg::Colon);
        if base.open_rank && args.len() == 1 && picks_many(&args[0]) {
            // A linear subscript of an array with one non-singleton dimension keeps
            // that dimension's orientation, which may be the third or later
            // (`x(1:3)` of a 1×1×6 x is 1×1×3): no 2-D shape holds for every rank.
            outcome.shape = Shape::Unknown;
        }
        effect.op = "index".into();
        effect.operands = vec![base.shape.clone()];
        let value = Value::of_shape(base.class, outcome.shape.clone());
        let value = Value {
            scalar: scalar_element(&base, &args),
            parts: if update {
                self.element_to_update(env, defined.as_ref(), indices, within)
            } else {
                self.selected_parts(env, &base, indices)
            },
            ..value
        };
        self.bind(
            id,
            env,
            &targets[..targets.len().min(1)],
            vec![value],
            std::slice::from_ref(&outcome),
        );
        if outcome.rule.rule == Rule::Index && update {
            // A read made only to assign into: out-of-range parts are created, not errors.
            effect
                .outcomes
                .push(Outcome::always(outcome.shape, outcome.rule));
        } else {
            effect.outcomes.push(outcome);
        }
    }

    /// Whether `c{i, …}` reads within `c`: its contents are not followed, but its
    /// bounds are checked as an index's are (a subscript past them is left to run time,
    /// never a definite error: `c` may be an object with its own `subsref`).
    fn cell_bounds(&self, id: StmtId, env: &Env, sub: Subscripted) -> Outcome {
        let Some(base) = env.get(sub.array).filter(|v| v.shape != Shape::Unknown) else {
            return unknown_subscripts("subscripts within the bounds of a cell of unknown shape");
        };
        let stem = format!("{}~n", sub.array);
        let args: Vec<IndexArg> = sub
            .indices
            .iter()
            .enumerate()
            .map(|(k, i)| index_arg(env, i, || self.symbols.mint(&stem, k, id, false)))
            .collect();
        let view = self.open_rank_view(id, sub.array, base, sub.indices.len());
        let outcome = shape::index(&view, &args, &env.facts);
        match outcome.status {
            Truth::Refuted => unknown_subscripts(&format!(
                "the subscripts are within the cell's bounds ({})",
                outcome.theta
            )),
            _ => Outcome {
                shape: Shape::Unknown,
                ..outcome
            },
        }
    }

    fn array_set(
        &self,
        id: StmtId,
        env: &mut Env,
        effect: &mut Effect,
        Subscripted { array, indices }: Subscripted,
        rhs: &Var,
        container: Option<&'static str>,
    ) {
        let shared = self.shares_workspace();
        let base = match env.get(array) {
            Some(v) => v.clone(),
            // A nested function shares its parent's workspace: a variable it has not
            // assigned may hold anything.
            None if shared => Value::unknown(),
            None => Value::of_shape(container, Shape::empty()),
        };
        // `a(i) = []` deletes (the literal `[]` is a temporary; Octave stores a
        // variable holding `[]` into a cell's element).
        let deletes = is_empty_double(&value_of(env, rhs)) && base.shape != Shape::empty();
        let rhs_value = match container.or(base.class) {
            Some("cell") if container.is_none() && deletes && self.is_temp(rhs) => {
                value_of(env, rhs)
            }
            // `c{i} = x` stores one element whatever x's shape is, and so does
            // `c(i) = x` on a cell array (Octave wraps x in a cell).
            Some("cell") => Value::of_shape(None, Shape::scalar()),
            _ => value_of(env, rhs),
        };
        if beyond_rank(&base, indices.len()) {
            // Growth past the known rank of an input: the result's shape is unknown, and
            // so is whether it conforms.
            effect.op = "subsasgn".into();
            let value = Value {
                open_rank: base.open_rank,
                ..Value::of_shape(container.or(base.class), Shape::Unknown)
            };
            env.vars.insert(array.clone(), value);
            return;
        }
        let stem = format!("{array}~n");
        let args: Vec<IndexArg> = indices
            .iter()
            .enumerate()
            .map(|(k, i)| index_arg(env, i, || self.symbols.mint(&stem, k, id, false)))
            .collect();
        let mut n = 0;
        let grown = format!("{array}~g");
        let outcome = shape::assign_index(
            &base.shape,
            &args,
            &rhs_value.shape,
            &env.facts,
            &mut || {
                n += 1;
                self.symbols.mint(&grown, n, id, false)
            },
        );
        effect.op = "subsasgn".into();
        effect.operands = vec![base.shape.clone(), rhs_value.shape.clone()];
        let class = container.or(
            if base.class == rhs_value.class || base.shape == Shape::empty() {
                rhs_value.class
            } else if deletes {
                // A deletion (or an assignment to no element) keeps the class.
                base.class
            } else {
                None
            },
        );
        let outcome = if outcome.status == Truth::Refuted
            && outcome.rule.rule == Rule::AssignIndex
            && base.class.is_none()
            && base.shape != Shape::empty()
        {
            // The base may be a cell array (its class is unknown), where any value fits.
            outcome.excused()
        } else {
            outcome
        };
        // Assigning into part of an array of open rank leaves its rank open.
        let value = Value {
            open_rank: base.open_rank,
            ..Value::of_shape(class, outcome.shape.clone())
        };
        self.bind(
            id,
            env,
            std::slice::from_ref(array),
            vec![value],
            std::slice::from_ref(&outcome),
        );
        effect.outcomes.push(outcome);
    }
}

impl ValueAnalysis<'_> {
    /// `s(k) = t` of a struct into a struct array fails when their fields differ (MATLAB's "dissimilar structures"; a nested assignment's
    /// write-back, `s(k).f = v`, adds the field instead): a check the shapes prove is
    /// left to run time unless both structs' fields are known and the same.
    fn dissimilar_structs(
        &self,
        env: &Env,
        effect: &mut Effect,
        before: Option<&Value>,
        rhs: &Var,
    ) {
        let Some(b) = before.filter(|b| b.class == Some("struct")) else {
            return;
        };
        let t = value_of(env, rhs);
        if t.class != Some("struct") || self.updated.borrow().contains(rhs) {
            return;
        }
        let fields = |v: &Value| v.parts.as_deref().and_then(super::parts::fields_of);
        let same = match (fields(b), fields(&t)) {
            (Some((m, true)), Some((n, true))) => m.keys().eq(n.keys()),
            _ => false,
        };
        for o in effect
            .outcomes
            .iter_mut()
            .filter(|o| o.status == Truth::Proven && !same)
        {
            o.status = Truth::Unknown;
            o.theta = Constraint::Opaque("the structs have the same fields".to_string());
        }
    }
}

/// `base.f = v`: what `base` holds afterwards (a struct, as far as it is known; its
/// fields are not followed).
fn dot_set(env: &mut Env, base: &Var) {
    let v = match env.get(base) {
        // `x.f = v` on [] (or on a missing part read for the update) makes
        // a 1×1 struct, as on an undefined x.
        Some(v) if v.shape == Shape::empty() => Value::of_shape(Some("struct"), Shape::scalar()),
        Some(v) if v.class == Some("struct") => v.clone(),
        // Of unknown class it may be an object whose `subsasgn` decides,
        // or an empty array that becomes a 1×1 struct (`recappend([], …)`):
        // the shape it had is no longer known to hold.
        Some(v) if v.class.is_none() => Value::unknown(),
        // Any other array succeeds only when empty (`''`, `{}`), and
        // becomes a 1×1 struct.
        _ => Value::of_shape(Some("struct"), Shape::scalar()),
    };
    env.vars.insert(base.clone(), v);
}

/// Whether `v` is `[]`, a 0×0 double: assigned to elements, it deletes them.
fn is_empty_double(v: &Value) -> bool {
    v.class == Some("double") && v.shape == Shape::empty()
}

/// Extents larger than this (in atoms and terms) are replaced by a fresh symbol: such
/// expressions come from long chains of arithmetic, say nothing a reader can use, and
/// would make every later question to the facts slower.
const MAX_EXTENT_SIZE: usize = 24;

fn simplify_extents(shape: &Shape, fresh: &dyn Fn(usize) -> Dim) -> Shape {
    match shape.as_tuple() {
        Some(t) if t.dims().iter().any(|d| extent_size(d) > MAX_EXTENT_SIZE) => Shape::tuple(
            t.dims()
                .iter()
                .enumerate()
                .map(|(k, d)| {
                    if extent_size(d) > MAX_EXTENT_SIZE {
                        fresh(k)
                    } else {
                        d.clone()
                    }
                })
                .collect(),
        ),
        _ => shape.clone(),
    }
}

/// Extents are never negative: one the facts cannot show to be ≥ 0 (a count that
/// depends on data, a difference of unknowns) is replaced by a fresh extent, so no
/// shape such as <1,-2> is ever shown or reasoned with.
fn nonnegative(shape: Shape, facts: &shapex_dims::Facts, fresh: &dyn Fn(usize) -> Dim) -> Shape {
    let Some(t) = shape.as_tuple() else {
        return shape;
    };
    let ok = |d: &Dim| d.is_nonneg() || facts.ask(&Constraint::le(&Dim::zero(), d)).is_proven();
    if t.dims().iter().all(ok) {
        return shape;
    }
    Shape::tuple(
        t.dims()
            .iter()
            .enumerate()
            .map(|(k, d)| if ok(d) { d.clone() } else { fresh(k + 100) })
            .collect(),
    )
}

fn extent_size(d: &Dim) -> usize {
    use shapex_dims::Atom;
    d.terms()
        .iter()
        .map(|(mono, _)| {
            1 + mono
                .atoms()
                .iter()
                .map(|a| match a {
                    Atom::Sym(_) | Atom::Val(_) | Atom::Dyn => 1,
                    Atom::Max0(x) => 1 + extent_size(x),
                    Atom::FloorDiv(x, y) => 1 + extent_size(x) + extent_size(y),
                })
                .sum::<usize>()
        })
        .sum()
}

/// More subscripts than the known rank of an input whose rank is open.
fn beyond_rank(base: &Value, subscripts: usize) -> bool {
    base.open_rank && base.shape.as_tuple().is_some_and(|t| subscripts > t.rank())
}

fn targets_name(targets: &[Var]) -> &str {
    targets.first().map_or("t", |t| t.as_str())
}

fn is_scalar(v: &Value) -> bool {
    v.shape == Shape::scalar()
}

/// The class of `a:s:b`'s elements, as MATLAB's colon gives it: an integer class when
/// a bound has one (two different ones fail), else single when a bound is single, else
/// char when every bound is char, else double (logical bounds count as double).
/// Unknown when a bound's class is. A loop variable over the range has it too.
fn range_class(env: &Env, bounds: [Option<&Var>; 3]) -> Class {
    let classes: Vec<&'static str> = bounds
        .into_iter()
        .flatten()
        .map(|b| env.get(b).and_then(|v| v.class))
        .collect::<Option<_>>()?;
    let numeric = |c: &str| matches!(c, "double" | "single" | "logical" | "char");
    let integers: Vec<&str> = classes.iter().copied().filter(|c| !numeric(c)).collect();
    if let Some(first) = integers.first() {
        let one = integers.iter().all(|c| c == first) && first.contains("int");
        return one.then_some(*first);
    }
    Some(if classes.contains(&"single") {
        "single"
    } else if classes.iter().all(|c| *c == "char") {
        "char"
    } else {
        "double"
    })
}

fn is_numeric(v: &Value) -> bool {
    matches!(v.class, Some("double" | "single" | "logical") | None)
        || v.class
            .is_some_and(|c| c.starts_with("int") || c.starts_with("uint"))
}

/// The value of `A(i)` when `A` holds known elements and `i` is a known position.
fn scalar_element(base: &Value, args: &[IndexArg]) -> Option<Dim> {
    let elems = base.elems.as_ref()?;
    match args {
        [IndexArg::Scalar(Some(i))] => {
            let i = i.as_known()?;
            elems.get(usize::try_from(i - 1).ok()?).cloned()
        }
        _ => None,
    }
}

/// How a subscript looks to the shape rules.
fn index_arg(env: &Env, index: &Index, fresh: impl FnOnce() -> Dim) -> IndexArg {
    let var = match index {
        Index::Colon => return IndexArg::Colon,
        Index::Var(v) => v,
    };
    let Some(v) = env.get(var) else {
        return IndexArg::Array {
            shape: Shape::Unknown,
            max: None,
            numel: fresh(),
        };
    };
    if v.text.as_deref() == Some(":") {
        return IndexArg::Colon;
    }
    if v.class == Some("logical") {
        // A mask of open rank may have more elements than its first extents say.
        let mask = if v.open_rank {
            Shape::Unknown
        } else {
            v.shape.clone()
        };
        return IndexArg::Logical {
            mask,
            count: fresh(),
        };
    }
    if is_scalar(v) {
        // A double computed from data may be 2.5, which no subscript may be: its value
        // says nothing of the bounds then (`r(h)` is a run-time check).
        return IndexArg::Scalar(v.scalar.clone().filter(|d| !maybe_real(d)));
    }
    if let (Some(max), Some(t)) = (&v.max, v.shape.as_tuple()) {
        return IndexArg::Range {
            len: t.numel(),
            max: Some(max.clone()),
        };
    }
    if v.class.is_none() && v.elems.is_none() {
        // Of unknown class, the subscript may be a logical mask (`B(B < 0.7)` when
        // B's class is unknown) or numeric: neither its shape nor its count of
        // selected elements is the result's.
        return IndexArg::Array {
            shape: Shape::Unknown,
            max: None,
            numel: fresh(),
        };
    }
    let max = v.elems.as_ref().and_then(|e| max_known(e));
    let numel = match v.shape.as_tuple() {
        Some(t) => t.numel(),
        None => fresh(),
    };
    IndexArg::Array {
        shape: v.shape.clone(),
        max,
        numel,
    }
}

/// A read whose bounds cannot be known: a run-time check that says what it checks.
fn unknown_subscripts(what: &str) -> Outcome {
    Outcome {
        shape: Shape::Unknown,
        theta: Constraint::Opaque(what.into()),
        status: Truth::Unknown,
        assume: vec![],
        rule: shape::RuleInfo::extension(Rule::Index),
    }
}

/// The largest of known subscripts, when every one is a valid subscript (`[0 2]` has
/// none: 0 fails whatever the array, so its bounds are not all that is checked).
fn max_known(elems: &[Dim]) -> Option<Dim> {
    let known = elems
        .iter()
        .map(|d| d.as_known())
        .collect::<Option<Vec<_>>>()?;
    if known.iter().any(|&k| k < 1) {
        return None;
    }
    known.into_iter().max().map(Dim::known)
}

fn literal(value: &Literal) -> Value {
    match value {
        // The transfer evaluates a table as its calls (`number_table`); its class
        // and size are all that is known without them.
        Literal::Numbers { rows } => {
            let cols = rows.first().map_or(0, Vec::len);
            let extent = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
            Value::of_shape(
                Some("double"),
                Shape::known(&[extent(rows.len()), extent(cols)]),
            )
        }
        Literal::Number { value, imag, .. } => {
            let exact = !imag && value.fract() == 0.0 && value.abs() < 1e15;
            Value {
                number: (!imag && value.is_finite()).then_some(*value),
                ..Value::scalar(exact.then(|| Dim::known(*value as i64)))
            }
        }
        Literal::Str {
            value,
            double_quoted,
        } => {
            // '' is 0×0; other char literals are rows. "…" is a 1×1 string in MATLAB
            // but a char row in Octave: only a one-character "x" has one shape in both.
            let len = value.chars().count() as i64;
            let shape = match (len, *double_quoted) {
                (1, true) => Shape::scalar(),
                (_, true) => Shape::Unknown,
                (0, false) => Shape::empty(),
                (_, false) => Shape::known(&[1, len]),
            };
            if *double_quoted && len != 1 {
                return Value {
                    text: Some(value.clone()),
                    ..Value::of_shape(None, shape)
                };
            }
            Value {
                text: Some(value.clone()),
                ..Value::of_shape(Some("char"), shape)
            }
        }
    }
}

impl ValueAnalysis<'_> {
    /// The state an iteration of `for var = iter` starts in from `input` (the flow
    /// framework's `Analysis::for_iteration`): `var` one of `iter`'s elements, as far as
    /// it is known; nonviable when no iteration runs.
    pub(super) fn bind_loop_variable(
        &self,
        stmt: &Stmt,
        var: &Var,
        iter: &ForIter,
        input: &Env,
    ) -> State<Env> {
        let mut env = input.clone();
        let v = match iter {
            ForIter::Range { lower, step, upper } => {
                let v = self.symbols.mint(var, 0, stmt.id, true);
                let class = range_class(&env, [Some(lower), step.as_ref(), Some(upper)]);
                // With a positive step the body runs only for lower ≤ v ≤ upper.
                let scalar = |x: &Var| env.get(x).and_then(|x| x.scalar.clone());
                let step = match step {
                    None => Some(Dim::one()),
                    Some(s) => scalar(s),
                };
                let ascending = step.as_ref().is_some_and(Dim::is_positive);
                let descending = step.as_ref().is_some_and(|s| s.neg().is_positive());
                // Symbolic values stand for integers: `for j = a:3` with `a = 0.5`
                // runs j = 0.5, 1.5, 2.5, so j has one only when its first value and
                // its step are integers (`1:j` then has j elements, else floor(j)).
                let integral = step.as_ref().is_some_and(|s| !maybe_real(s))
                    && scalar(lower).is_some_and(|l| !maybe_real(&l));
                if let (Some(lo), Some(hi)) = (scalar(lower), scalar(upper)) {
                    // With a positive step the body runs only for lower ≤ v ≤ upper, with
                    // a negative one only for upper ≤ v ≤ lower; an empty range (`1:0`)
                    // runs it never.
                    let runs =
                        |a: &Dim, b: &Dim| !env.facts.ask(&Constraint::le(a, b)).is_refuted();
                    if (ascending && !runs(&lo, &hi)) || (descending && !runs(&hi, &lo)) {
                        return State::Nonviable;
                    }
                    if ascending {
                        env.facts.assume(&Constraint::le(&lo, &v));
                        env.facts.assume(&Constraint::le(&v, &hi));
                    } else if descending {
                        env.facts.assume(&Constraint::le(&hi, &v));
                        env.facts.assume(&Constraint::le(&v, &lo));
                    }
                }
                // Its values are the range's elements: finite (a range with an
                // infinite bound fails before the loop, one with NaN is empty).
                Value {
                    class,
                    finite: true,
                    ..Value::scalar(integral.then_some(v))
                }
            }
            ForIter::Columns(array) => match env.get(array).map(|v| &v.shape) {
                Some(Shape::Tuple(t)) => {
                    // A for loop runs once per column (every extent past the first):
                    // none when one of them is 0. (No rows but some columns: MATLAB
                    // runs once per column, Octave never, so that stays reachable.)
                    if (1..t.rank()).any(|k| t.extent(k).is_zero()) {
                        return State::Nonviable;
                    }
                    let column = Shape::tuple(vec![t.extent(0), Dim::one()]);
                    Value::of_shape(env.get(array).and_then(|v| v.class), column)
                }
                _ => Value::unknown(),
            },
        };
        if env.facts.is_contradictory() {
            // The range is empty (`1:0`): no iteration runs, the body is not reached.
            return State::Nonviable;
        }
        env.vars.insert(var.clone(), v);
        State::Reachable(env)
    }
}

/// The results of `stmts` (and the statements in them) after the flow ran over them:
/// each statement stepped again from the state the flow recorded before it (the step
/// the flow took, when [`ValueAnalysis::step_again`] still has it).
pub(super) fn collect(
    a: &ValueAnalysis,
    is_temp: &dyn Fn(&str) -> bool,
    flow: &FlowResult<Env>,
    stmts: &[Stmt],
    out: &mut Vec<StmtResult>,
) {
    for s in stmts {
        let before = flow.before.get(&s.id).and_then(|st| st.fact()).cloned();
        let (after, effect) = match (&before, &s.kind) {
            (Some(env), StmtKind::For { var, iter, .. }) => {
                (a.bind_loop_variable(s, var, iter, env), Effect::default())
            }
            (Some(env), _) => a.step_again(s, env),
            (None, _) => (State::Nonviable, Effect::default()),
        };
        // A `for` whose body runs no iteration binds its variable never: no value to
        // show (MATLAB leaves it `[]`, Octave an empty row), and certainly not π.
        let unbound = matches!(s.kind, StmtKind::For { .. })
            && before.is_some()
            && matches!(after, State::Nonviable);
        let defs = s
            .defs()
            .into_iter()
            .filter(|v| !is_temp(v) && !unbound)
            .map(|v| {
                let value = match &after {
                    State::Reachable(env) => env.get(v).cloned().unwrap_or_else(Value::unknown),
                    State::Nonviable => Value::of_shape(None, crate::shape::Shape::Illegal),
                };
                (v.clone(), value)
            })
            .collect::<Vec<(String, Value)>>();
        let bounds = match &after {
            State::Reachable(env) => defs
                .iter()
                .map(|(_, v)| v.upper_bounds(&env.facts))
                .collect(),
            State::Nonviable => vec![None; defs.len()],
        };
        out.push(StmtResult {
            id: s.id,
            origin: s.origin,
            span: s.span,
            operator: s.operator,
            viable: before.is_some(),
            defs,
            bounds,
            effect,
            facts_before: before.map(|env| env.facts),
            residuals: Vec::new(),
            witnesses: Vec::new(),
            iteration: None,
            glossary: Vec::new(),
        });
        for child in s.children() {
            collect(a, is_temp, flow, child, out);
        }
    }
}
