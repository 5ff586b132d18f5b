//! Calls: `[targets…] = func(args…)` as the analysis sees it, resolved as MATLAB would
//! resolve `func` there — a function of the file, a builtin that creates, changes or
//! clears variables by name (Dubrau 2012 §1.4's wild features), a builtin (its rule
//! gives the results), or anything else (unknown results) — and calls through a
//! function handle. What a call may change besides its targets (globals, the whole
//! workspace) is here too.

use super::contexts::{self, Canon, Level};
use super::eval::{self, Call};
use super::nesting::{mutates_workspace, SharedWrites};
use super::results::{Arity, CallContext, Context, CtxResult, Effect, Exit};
use super::state::ValueAnalysis;
use super::{bind_unknown, value_of, Env, Value};
use crate::shape::Outcome;
use crate::tame::{Clearing, Index, StmtId, Var};
use crate::Mode;
use shapex_dims::{Constraint, Dim, Truth};
use std::rc::Rc;

/// A call analysed in a context: the callee's result, what the context's `$k` stand
/// for at the call, and the context (`None` for a recursive unit's one context).
type Called = (Rc<CtxResult>, Canon, Option<Rc<Context>>);

/// `[targets…] = func(args…)` at statement `site`, as the analysis sees it.
pub(super) struct CallSite<'s> {
    /// The statement: the symbols the call mints are its.
    pub site: StmtId,
    pub func: &'s str,
    /// The arguments' values here (not the caller's names for them).
    pub args: Vec<Value>,
    /// Their number is the call's `nargout`.
    pub targets: &'s [Var],
    /// No argument list in the IR: `f;` may be a script.
    pub no_args: bool,
    /// The numbers of arguments and targets are those of the IR: no argument or
    /// target is a comma-separated list (`varargin{:}`, `[c{:}]`), and the call is
    /// not a lambda's body (whose number of outputs its own call decides).
    pub counted: bool,
}

impl ValueAnalysis<'_> {
    /// Binds the call's targets in `env` and records in `effect` what the call did,
    /// resolving `func` as MATLAB would here: a function of the file, a workspace
    /// mutator, a builtin (its rule), or anything else (unknown results, a user's
    /// effects on globals).
    pub(super) fn call(&self, site: CallSite<'_>, env: &mut Env, effect: &mut Effect) {
        if self.may_dispatch(&site) {
            // Some method, or the file's function: nothing known of what it returns.
            effect.op = site.func.to_string();
            self.havoc_callee_effects(env, site.func, site.no_args, site.targets);
            bind_unknown(env, site.targets);
        } else if self.user_functions.iter().any(|f| f == site.func) {
            self.call_user(&site, env, effect);
        } else if let Some(value) = self.frame_value(&site, env) {
            effect.op = site.func.to_string();
            self.bind(site.site, env, site.targets, vec![value], &[]);
        } else if let Some(values) = map_results(&site) {
            self.call_map(&site, values, env, effect);
        } else if let Some(kind) = workspace_effect(site.func, site.targets, &site.args) {
            self.call_mutator(kind, &site, env, effect);
        } else {
            self.call_builtin(site, env, effect);
        }
    }

    /// Whether the call may run a class method rather than the other file's function
    /// its name resolves to: an argument's class is unknown, so it may be an object.
    /// MATLAB finds an object's method before a function in a folder.
    fn may_dispatch(&self, site: &CallSite) -> bool {
        self.dispatched.contains(site.func) && site.args.iter().any(|a| a.class.is_none())
    }

    /// A function of the file: analysed in the call's context (`contexts`) when it
    /// can be, its outputs then known at this call; otherwise its results are unknown.
    /// Either way what it may change of this workspace (globals; all of it for a
    /// nested function or one that writes into its caller) is forgotten.
    fn call_user(&self, site: &CallSite, env: &mut Env, effect: &mut Effect) {
        effect.op = site.func.to_string();
        let counted = site.counted && !self.in_lambda();
        if let Some(arity) = self.arity_error(site).filter(|_| counted) {
            effect.outcomes = vec![Outcome::illegal(
                Constraint::False,
                crate::shape::RuleInfo::extension(crate::shape::Rule::Unknown),
            )];
            effect.arity = Some(arity);
            return bind_unknown(env, site.targets);
        }
        let result = self
            .callees
            .callee(site.func)
            .filter(|_| counted)
            .and_then(|i| self.call_in_context(i, site));
        self.havoc_callee_effects(env, site.func, site.no_args, site.targets);
        let Some((result, canon, ctx)) = result else {
            // The callee's checks are not known: the call is left to run time.
            effect.outcomes = vec![call_check(site.func, false)];
            return bind_unknown(env, site.targets);
        };
        let stem = match site.targets.first() {
            Some(t) if !self.is_temp(t) => format!("{t}~u"),
            _ => format!("{}~u", site.func),
        };
        let fresh = |j: usize| self.symbols.mint(&stem, j, site.site, false);
        effect.operands = site.args.iter().map(|v| v.shape.clone()).collect();
        effect.context = Some(Rc::new(self.call_context(site, &result, ctx)));
        match &result.exit {
            Exit::Returns => {
                let values = result
                    .outputs
                    .iter()
                    .map(|v| contexts::instantiate(v, &canon, &fresh))
                    .collect();
                self.bind(site.site, env, site.targets, values, &[]);
                effect.outcomes = vec![call_check(site.func, result.proven)];
            }
            Exit::Never => {
                effect.diverges = true;
                bind_unknown(env, site.targets);
            }
            Exit::Fails(failure) => {
                let failure = contexts::instantiate_failure(failure, &canon, &fresh);
                effect.outcomes = vec![Outcome::illegal(Constraint::False, failure.rule)];
                effect.callee = Some(Rc::new(failure));
                bind_unknown(env, site.targets);
            }
        }
    }

    /// The function being analysed is a lambda's body.
    fn in_lambda(&self) -> bool {
        self.template
            .borrow()
            .as_ref()
            .is_some_and(|f| f.kind == crate::tame::FunctionKind::Lambda)
    }

    /// A call of function `i` of recursive unit `u`: its one context for the call's
    /// counts ([`contexts::top`]), from the previous round while the unit is being
    /// solved (nothing returns in the first), else from the unit's fixed point.
    fn call_in_unit(&self, i: usize, u: usize, site: &CallSite) -> Option<Called> {
        let stem = format!("{}~t", site.func);
        let fresh = |k: usize| self.symbols.mint(&stem, k, site.site, false);
        let canon = contexts::top_canon(&site.args, &fresh);
        let counts = (site.args.len(), site.targets.len());
        if self.callees.statics.counts[i]
            .binary_search(&counts)
            .is_err()
        {
            // Not a node of the unit (a call the text does not show with these
            // counts, through a handle): nothing is known of it, not even that it
            // returns.
            return None;
        }
        let key = (i, contexts::top_key(counts.0, counts.1));
        if let Some((_, previous)) = self
            .callees
            .rounds
            .borrow()
            .iter()
            .rev()
            .find(|(v, _)| *v == u)
        {
            let result = previous.get(&key).cloned().unwrap_or_else(|| {
                Rc::new(CtxResult {
                    outputs: vec![Value::unknown(); site.targets.len()],
                    exit: Exit::Never,
                    proven: true,
                })
            });
            return Some((result, canon, None));
        }
        if !self.callees.cache.borrow().contains_key(&key) {
            (self.callees.solve)(self, u);
        }
        let result = self.callees.cache.borrow().get(&key).cloned()?;
        Some((result, canon, None))
    }

    /// MATLAB's error for a call with more arguments than the function has inputs, or
    /// more targets than it has outputs (without `varargin`/`varargout`): the counts
    /// are in the text, so every run of the call fails. Only for a name one function
    /// of the file has.
    fn arity_error(&self, site: &CallSite) -> Option<Arity> {
        let functions = self.callees.functions;
        let mut named = functions.iter().filter(|f| f.name == site.func);
        let f = named.next()?;
        // A call of the file's primary function by name from its own file may reach
        // another function: in a class folder (`@sdpvar/unique.m`) the method is
        // found by the arguments' class, and `unique(double(x), 'rows')` is the
        // builtin.
        if named.next().is_some() || f.kind == crate::tame::FunctionKind::Primary {
            return None;
        }
        let variadic_in = f.params.last().is_some_and(|p| p == "varargin");
        // An anonymous function gives as many outputs as its body's call does
        // (`s = @(x) size(x); [r, c] = s(a)`): its lifted body's one is not a count.
        let variadic_out = f.outputs.last().is_some_and(|p| p == "varargout")
            || f.kind == crate::tame::FunctionKind::Lambda;
        if !variadic_in && site.args.len() > f.params.len() {
            return Some(Arity {
                inputs: true,
                anonymous: f.kind == crate::tame::FunctionKind::Lambda,
                given: site.args.len(),
                declared: f.params.len(),
            });
        }
        if !variadic_out && site.targets.len() > f.outputs.len() {
            return Some(Arity {
                inputs: false,
                anonymous: false,
                given: site.targets.len(),
                declared: f.outputs.len(),
            });
        }
        None
    }

    /// How the call graph shows the context of `site` and what it gave.
    fn call_context(
        &self,
        site: &CallSite,
        result: &CtxResult,
        context: Option<Rc<Context>>,
    ) -> CallContext {
        let anonymous = self
            .callees
            .functions
            .iter()
            .find(|f| f.name == site.func)
            .is_some_and(|f| f.kind == crate::tame::FunctionKind::Lambda);
        let args: Vec<String> = site
            .args
            .iter()
            .map(|v| {
                let shape = v.shape.display(crate::shape::Notation::Paper);
                match v.class {
                    Some(c) => format!("{c} {shape}"),
                    None => shape,
                }
            })
            .collect();
        let name = if anonymous { "@(…)" } else { site.func };
        let verdict = match (&result.exit, result.proven) {
            (Exit::Returns, true) => "proven",
            (Exit::Returns, false) => "run-time check",
            (Exit::Fails(_), _) => "fails",
            (Exit::Never, _) => "never returns",
        };
        CallContext {
            callee: site.func.to_string(),
            label: format!("{name}({})", args.join(", ")),
            verdict,
            context,
        }
    }

    /// The result of function `i` of the file in the context of `site`, and what the
    /// context's `$k` stand for here; `None` when the call's counts do not fit the
    /// function (MATLAB's error, not yet reported) or the context is being analysed
    /// already (a recursion).
    fn call_in_context(&self, i: usize, site: &CallSite) -> Option<Called> {
        let f = &self.callees.functions[i];
        let variadic_in = f.params.last().is_some_and(|p| p == "varargin");
        let variadic_out = f.outputs.last().is_some_and(|p| p == "varargout");
        let fits = (variadic_in || site.args.len() <= f.params.len())
            && (variadic_out || site.targets.len() <= f.outputs.len());
        if !fits {
            return None;
        }
        if let Some(u) = self.callees.statics.unit[i] {
            return self.call_in_unit(i, u, site);
        }
        let fuel = self
            .frame
            .map_or(contexts::DISPLAY_FUEL, |frame| frame.fuel.saturating_sub(1));
        let level = if fuel == 0 || self.in_loop.borrow().contains(&site.site) {
            Level::Pattern
        } else {
            Level::Precise
        };
        let (ctx, canon) = contexts::canonical(&site.args, site.targets.len(), fuel, level);
        let key = (i, ctx.key.clone());
        if let Some(r) = self.callees.cache.borrow().get(&key) {
            return Some((r.clone(), canon, Some(Rc::new(ctx))));
        }
        if self.callees.open.borrow().contains(&key) {
            return None;
        }
        self.callees.open.borrow_mut().push(key.clone());
        let result = Rc::new((self.callees.analyze)(self, i, &ctx));
        self.callees.open.borrow_mut().pop();
        self.callees.cache.borrow_mut().insert(key, result.clone());
        Some((result, canon, Some(Rc::new(ctx))))
    }

    /// What a function analysed in a context knows of its call: `nargin`, `nargout`,
    /// and that an input not passed does not exist (`exist('k', 'var')` is 0). Only
    /// the absence folds: a variable joined with a removed one is unknown, never
    /// surely defined.
    fn frame_value(&self, site: &CallSite, env: &Env) -> Option<Value> {
        let frame = self.frame?;
        let count = |n: usize| Value {
            integral: true,
            ..Value::scalar(Some(Dim::known(i64::try_from(n).unwrap_or(i64::MAX))))
        };
        match (site.func, site.args.as_slice()) {
            ("nargin", []) => Some(count(frame.nargin)),
            ("nargout", []) => Some(count(frame.nargout)),
            ("exist", [name, kind]) if kind.text.as_deref() == Some("var") => {
                let name = name.text.as_deref()?;
                env.vars.get(name).filter(|v| v.cleared).map(|_| count(0))
            }
            _ => None,
        }
    }

    /// `arrayfun`/`cellfun` whose results' shapes are known (see [`map_results`]): the
    /// call itself is left to run time (each call of the function must succeed, return
    /// a scalar when the output is uniform, and the arrays must agree in size), and
    /// the function applied may change what any call of it may.
    fn call_map(
        &self,
        site: &CallSite,
        mut values: Vec<Value>,
        env: &mut Env,
        effect: &mut Effect,
    ) {
        if let Some(outputs) = self.element_outputs(site) {
            let rest = &site.args[1..];
            let arrays = rest.iter().position(is_map_option).unwrap_or(rest.len());
            let uniform = uniform_output(&rest[arrays..]).flatten();
            for (v, o) in values.iter_mut().zip(&outputs) {
                refine_mapped(v, o, &rest[0], uniform);
            }
        }
        effect.op = site.func.to_string();
        let applied = site.args.first();
        let name = applied.and_then(|h| h.handle.as_deref()).unwrap_or("");
        if !self.is_inert_builtin(name) && applied.and_then(|h| h.text.as_ref()).is_none() {
            // A function of the user's, a lambda, or one not known: what a call may
            // change besides its outputs.
            self.havoc_callee_effects(env, name, false, site.targets);
        }
        effect.outcomes = vec![Outcome {
            theta: Constraint::Opaque(format!(
                "every call of the function {} succeeds, with arrays of one size",
                if site.func == "cellfun" {
                    "on the cells"
                } else {
                    "on the elements"
                }
            )),
            status: Truth::Unknown,
            ..Outcome::unknown(crate::shape::RuleInfo::extension(crate::shape::Rule::Call))
        }];
        self.bind(site.site, env, site.targets, values, &[]);
    }

    /// What one call of the function `arrayfun`/`cellfun` applies returns, called
    /// with a value every element of each array has (a struct array's element with
    /// the fields every element has, a cell's element, a scalar of a numeric array's
    /// class): `None` unless that function is the file's (or a lambda) and returns in
    /// that context.
    fn element_outputs(&self, site: &CallSite) -> Option<Vec<Value>> {
        let (applied, rest) = site.args.split_first()?;
        let arrays = rest.iter().position(is_map_option).unwrap_or(rest.len());
        // An error handler's results stand in for a failing call's.
        let handled = rest[arrays..].iter().any(|v| {
            v.text
                .as_deref()
                .is_some_and(|t| t.eq_ignore_ascii_case("ErrorHandler"))
        });
        if handled {
            return None;
        }
        let mut args: Vec<Value> = match applied.closure.as_deref() {
            Some(c) => c.captured.clone(),
            None => vec![],
        };
        for a in &rest[..arrays] {
            args.push(self.element_of(site, a)?);
        }
        let func = match (applied.closure.as_deref(), applied.handle.as_deref()) {
            (Some(c), _) => c.func.as_str(),
            (None, Some(f)) if self.user_functions.iter().any(|u| u == f) => f,
            _ => return None,
        };
        let call = CallSite {
            site: site.site,
            func,
            args,
            targets: site.targets,
            no_args: false,
            counted: true,
        };
        let (result, canon, _) = self.call_in_context(self.callees.callee(func)?, &call)?;
        let Exit::Returns = result.exit else {
            return None;
        };
        let stem = format!("{}~u", site.func);
        let fresh = |j: usize| self.symbols.mint(&stem, j, site.site, false);
        let outputs = result.outputs.iter();
        Some(
            outputs
                .map(|v| contexts::instantiate(v, &canon, &fresh))
                .collect(),
        )
    }

    /// A value every element of `array` has, as `arrayfun` (or `cellfun`, a cell's
    /// contents) passes it; its anonymous extents fresh symbols of the call.
    fn element_of(&self, site: &CallSite, array: &Value) -> Option<Value> {
        let scalar = |class| Value::of_shape(Some(class), crate::shape::Shape::scalar());
        match (site.func, array.class?) {
            ("cellfun", "cell") => {
                let every = super::parts::every(array.parts.as_deref()?)?;
                let stem = format!("{}~e", site.func);
                let fresh = |k: usize| self.symbols.mint(&stem, k, site.site, false);
                Some(super::parts::instantiate(&every, &fresh))
            }
            ("cellfun", _) => None,
            ("arrayfun", "struct") => {
                let fields = super::parts::fields_of(array.parts.as_deref()?);
                let fields =
                    fields.map(|(map, complete)| super::parts::Parts::Fields { map, complete });
                Some(Value {
                    parts: fields.map(Rc::new),
                    ..scalar("struct")
                })
            }
            ("arrayfun", "function_handle") => None,
            (_, class) => Some(scalar(class)),
        }
    }

    /// A builtin that creates, changes or clears variables by name.
    fn call_mutator(
        &self,
        kind: WorkspaceEffect,
        site: &CallSite,
        env: &mut Env,
        effect: &mut Effect,
    ) {
        effect.op = site.func.to_string();
        match kind {
            // `S = load(...)` gives a struct of a MAT file's variables, but the matrix
            // in an ASCII file: its class and shape are unknown.
            WorkspaceEffect::LoadToStruct => {}
            WorkspaceEffect::Havoc => self.havoc(env, |_| true),
            WorkspaceEffect::Clear(clearing) => self.clear(env, &clearing),
        }
        bind_unknown(env, site.targets);
    }

    /// A builtin by its rule, or a function we do not know (unknown results, and what
    /// a user's function may change); with, for a definite error, how the other mode
    /// and the usual slips (`*` for `.*`, a missing transpose) fare.
    fn call_builtin(&self, site: CallSite, env: &mut Env, effect: &mut Effect) {
        let id = site.site;
        let mint = |stem: &str, k: usize, value: bool| self.symbols.mint(stem, k, id, value);
        let call = Call {
            func: site.func,
            args: site.args,
            nargout: site.targets.len(),
            targets: site.targets,
            mint: &mint,
        };
        let mut result = eval::call(self.builtins, self.mode, &call, &env.facts);
        if call.args.iter().any(|v| v.class.is_none()) {
            // An operand of unknown class may be an object whose class overloads the
            // operation (YALMIP's `sdpvar`, a table): what fails on arrays is then not
            // a definite error.
            overloadable(&mut result);
        }
        if let Some((rule, classes)) = class_error(&call, &env.facts) {
            // MATLAB and Octave reject the classes whatever the shapes: one root error,
            // its targets π.
            result.outcomes = vec![Outcome::illegal(
                Constraint::False,
                crate::shape::RuleInfo::extension(rule),
            )];
            for v in &mut result.values {
                *v = Value::of_shape(None, crate::shape::Shape::Illegal);
            }
            effect.classes = Some(classes);
        } else {
            integer_matrix_operation(&call, &env.facts, &mut result);
        }
        super::parts::builtin_parts(call.func, &call.args, &mut result.values);
        // Cells of different sizes fail in either mode.
        let sizes_differ = super::parts::struct_sizes_differ(call.func, &call.args);
        if sizes_differ {
            result.outcomes = vec![Outcome::illegal(
                Constraint::False,
                crate::shape::RuleInfo::extension(crate::shape::Rule::Struct),
            )];
        }
        effect.other_mode = self
            .other_mode(&call, &result, env)
            .filter(|_| !sizes_differ);
        if refuted(&result) {
            effect.elementwise = self.elementwise_instead(&call, env);
            if effect.elementwise.is_none() {
                effect.transposed = self.transposed_instead(&call, env);
            }
        }
        effect.op = site.func.to_string();
        effect.operands = call.args.iter().map(|v| v.shape.clone()).collect();
        effect.diverges = result.diverges;
        if self.builtins.lookup(site.func).is_none() {
            // Not a builtin we know: a function or script of the user's.
            effect.maybe_script =
                self.havoc_callee_effects(env, site.func, site.no_args, site.targets);
        } else if site.func == "feval" {
            // `feval(h, …)` calls what `h` names (a literal name was lowered to a
            // direct call): its effects are that function's.
            self.havoc_applied(env, call.args.first(), site.targets);
        }
        let applies_mutator = call
            .args
            .iter()
            .any(|v| v.handle.as_deref().is_some_and(mutates_workspace));
        if applies_mutator {
            // `cellfun(@eval, {'x = 1;'})` evaluates in this workspace.
            self.havoc(env, |_| true);
        }
        self.bind(id, env, site.targets, result.values, &result.outcomes);
        effect.outcomes = result.outcomes;
    }

    /// A call's argument values, a comma-separated list's spread (`f(c{:})` passes
    /// c's elements), and whether their number and the targets' are known: no
    /// argument or target may be a list whose values are not known.
    pub(super) fn arguments(&self, env: &Env, args: &[Var], targets: &[Var]) -> (Vec<Value>, bool) {
        let spread = self.spread.borrow();
        let mut counted = !targets.iter().any(|t| spread.contains(t));
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            let v = value_of(env, a);
            match (spread.contains(a), v.parts.as_deref()) {
                (true, Some(super::parts::Parts::List(list))) => {
                    values.extend(list.iter().cloned())
                }
                (true, _) if v.one => values.push(Value { one: false, ..v }),
                (true, _) => {
                    counted = false;
                    values.push(v);
                }
                (false, _) => values.push(v),
            }
        }
        (values, counted)
    }

    /// `f(args…)` where `f` holds a function handle: a call to the function it names
    /// when that is a function of the file (as [`ValueAnalysis::call`] makes it) or a
    /// builtin (its rule gives the result), else unknown results, and a user
    /// function's effects on globals.
    pub(super) fn call_through_handle(
        &self,
        id: StmtId,
        env: &mut Env,
        effect: &mut Effect,
        targets: &[Var],
        handle: Value,
        indices: &[Index],
    ) {
        // The arguments, a list's spread (`h(c{:})`); `None` for a `:` among them.
        let vars: Option<Vec<Var>> = indices
            .iter()
            .map(|i| match i {
                Index::Var(v) => Some(v.clone()),
                Index::Colon => None,
            })
            .collect();
        let (args, counted) = match &vars {
            Some(vars) => {
                let (values, counted) = self.arguments(env, vars, targets);
                (Some(values), counted)
            }
            None => (None, false),
        };
        let user = handle
            .handle
            .as_deref()
            .filter(|f| self.user_functions.iter().any(|u| u == f));
        // An anonymous function: its lifted body, called with what it captured first.
        let lambda = handle.closure.as_deref().map(|c| {
            let mut all = c.captured.clone();
            all.extend(args.iter().flatten().cloned());
            (c.func.as_str(), all)
        });
        let user = match (&lambda, &args) {
            (Some((func, all)), Some(_)) => Some((*func, all.clone())),
            _ => user.zip(args.clone()),
        };
        if let Some((func, args)) = &user {
            // A handle to a function of the file (`h = @helper; h(x)`): a call of it.
            let site = CallSite {
                site: id,
                func,
                args: args.clone(),
                targets,
                no_args: false,
                counted,
            };
            return self.call_user(&site, env, effect);
        }
        let builtin = handle
            .handle
            .as_deref()
            .filter(|f| !self.user_functions.iter().any(|u| u == f))
            .filter(|f| {
                self.builtins.lookup(f).is_some() && workspace_effect(f, targets, &[]).is_none()
            });
        let (Some(func), Some(args)) = (builtin, args) else {
            let name = handle.handle.as_deref().unwrap_or("");
            self.havoc_callee_effects(env, name, false, targets);
            return bind_unknown(env, targets);
        };
        let mint = |stem: &str, k: usize, value: bool| self.symbols.mint(stem, k, id, value);
        let call = Call {
            func,
            args,
            nargout: targets.len(),
            targets,
            mint: &mint,
        };
        let result = eval::call(self.builtins, self.mode, &call, &env.facts);
        effect.other_mode = self.other_mode(&call, &result, env);
        effect.op = func.to_string();
        effect.operands = call.args.iter().map(|v| v.shape.clone()).collect();
        effect.diverges = result.diverges;
        self.bind(id, env, targets, result.values, &result.outcomes);
        effect.outcomes = result.outcomes;
    }

    /// How `call`, which fails by this mode's rules, fares by the other mode's: the
    /// same call evaluated again with the other variants of every rule (only for a
    /// definite error, so the cost is paid on failures alone). `None` when it fails
    /// there too, or does not fail here.
    fn other_mode(
        &self,
        call: &Call,
        result: &eval::CallResult,
        env: &Env,
    ) -> Option<(Mode, Truth)> {
        if !result.outcomes.iter().any(|o| o.status == Truth::Refuted) {
            return None;
        }
        let other = self.mode.other();
        let there = eval::call(self.builtins, other, call, &env.facts);
        if there.outcomes.iter().any(|o| o.status == Truth::Refuted) {
            return None;
        }
        let proven = there.outcomes.iter().all(|o| o.status == Truth::Proven);
        Some((
            other,
            if proven {
                Truth::Proven
            } else {
                Truth::Unknown
            },
        ))
    }

    /// The element-wise counterpart of a failing matrix operator when it is proven to
    /// conform by MATLAB 5's rules (no implicit expansion in either mode: a fix must
    /// not turn `<3,1> * <1,4>`'s slip into an unintended broadcast).
    fn elementwise_instead(&self, call: &Call, env: &Env) -> Option<&'static str> {
        let counterpart = match call.func {
            "mtimes" => "times",
            "mrdivide" => "rdivide",
            "mldivide" => "ldivide",
            "mpower" => "power",
            _ => return None,
        };
        let alternative = Call {
            func: counterpart,
            args: call.args.clone(),
            ..*call
        };
        let there = eval::call(self.builtins, Mode::Paper, &alternative, &env.facts);
        proven(&there).then_some(counterpart)
    }

    /// For a failing `a * b`: the operand whose transpose makes the product conform.
    fn transposed_instead(&self, call: &Call, env: &Env) -> Option<usize> {
        if call.func != "mtimes" || call.args.len() != 2 {
            return None;
        }
        (0..2).find(|&k| {
            let flip = Call {
                func: "transpose",
                args: vec![call.args[k].clone()],
                ..*call
            };
            let t = eval::call(self.builtins, self.mode, &flip, &env.facts);
            let ok = proven(&t);
            let Some(v) = t.values.into_iter().next().filter(|_| ok) else {
                return false;
            };
            let mut args = call.args.clone();
            args[k] = v;
            let product = Call { args, ..*call };
            proven(&eval::call(self.builtins, self.mode, &product, &env.facts))
        })
    }

    /// Forgets every variable `which` selects (not temporaries, which the lowering
    /// defines right before their use): what a construct with unknown effects on the
    /// workspace may have changed. Facts stay: they are about symbols, not variables.
    fn havoc(&self, env: &mut Env, which: impl Fn(&str) -> bool) {
        // Every variable of the function, defined yet or not: a script may create one
        // the function goes on to use (eeglab's globals from `eeg_global;`).
        self.read_variables.set(true);
        let variables = self.variables.borrow();
        let unknown = Value::unknown();
        let mut names: Vec<String> = env
            .vars
            .iter()
            .filter(|(n, v)| **v != unknown && !self.is_temp(n) && which(n))
            .map(|(n, _)| n.clone())
            .collect();
        names.extend(
            variables
                .iter()
                .filter(|n| !env.vars.contains_key(*n) && !self.is_temp(n) && which(n))
                .cloned(),
        );
        self.forget(env, names);
    }

    /// Makes `names` unknown. One already unknown is left as it is, so the map keeps
    /// sharing its nodes with the environment before (a second havoc of a long
    /// script's variables costs lookups, not a copy of the map).
    fn forget(&self, env: &mut Env, names: Vec<String>) {
        let unknown = Value::unknown();
        for n in names {
            if env.vars.get(&n) != Some(&unknown) {
                env.vars.insert(n, unknown.clone());
            }
        }
    }

    /// Makes the declared globals unknown (what any call may change). Looks up the
    /// globals rather than filtering every variable: calls are most statements, and
    /// walking a long script's variables at each was quadratic.
    fn havoc_globals(&self, env: &mut Env) {
        let globals = self.globals.borrow();
        if globals.is_empty() {
            return;
        }
        self.read_variables.set(true);
        let variables = self.variables.borrow();
        let names: Vec<String> = globals
            .iter()
            .filter(|g| !self.is_temp(g))
            .filter(|g| env.vars.contains_key(*g) || variables.binary_search(g).is_ok())
            .cloned()
            .collect();
        self.forget(env, names);
    }

    /// Applies a `clear` with known words. A removed variable is undefined afterwards,
    /// as if never assigned (a tombstone, [`Value::cleared`], so that where a path that
    /// removed it joins one that kept it the variable becomes unknown, never the stale
    /// value); one that may or may not be removed becomes unknown.
    fn clear(&self, env: &mut Env, clearing: &Clearing) {
        match clearing {
            Clearing::Remove { include, except } => {
                let removed: Vec<String> = env
                    .vars
                    .iter()
                    .filter(|(n, v)| {
                        !v.cleared && !self.is_temp(n) && Clearing::selects(include, except, n)
                    })
                    .map(|(n, _)| n.clone())
                    .collect();
                for n in removed {
                    env.vars.insert(n, Value::cleared());
                }
            }
            Clearing::Globals(names) => {
                // Named ones may be removed whether or not this function declared them
                // global (a caller or script may have); unnamed: the declared ones.
                let globals = self.globals.borrow();
                self.havoc(env, |n| match names {
                    Some(ps) => ps.iter().any(|p| crate::tame::clearing::matches(p, n)),
                    None => globals.iter().any(|g| g == n),
                });
            }
            Clearing::Any => self.havoc(env, |_| true),
            Clearing::Nothing => {}
        }
    }

    /// Whether `name` is a builtin we know that changes no variable of its caller and
    /// calls no function it is given: calling it leaves the workspace as it was. Not
    /// `feval`, `cellfun` or `arrayfun`, which call what they are given (a nested
    /// function, `@eval`), nor a function of the user's that shadows a builtin.
    fn is_inert_builtin(&self, name: &str) -> bool {
        self.builtins.lookup(name).is_some()
            && !self.user_functions.iter().any(|u| u == name)
            && !matches!(name, "feval" | "cellfun" | "arrayfun")
            && workspace_effect(name, &[], &[]).is_none()
    }

    /// What calling the function `applied` names (a handle or a name as text, as
    /// `feval`'s first argument) may change: what a call of that function may. One not
    /// known is taken as a call through an unknown handle: it may set globals, and what
    /// the nested functions sharing this workspace may change (it may be one of them).
    fn havoc_applied(&self, env: &mut Env, applied: Option<&Value>, targets: &[Var]) {
        let name = applied.and_then(|v| v.handle.as_deref().or(v.text.as_deref()));
        if !name.is_some_and(|n| self.is_inert_builtin(n)) {
            self.havoc_callee_effects(env, name.unwrap_or(""), false, targets);
        }
    }

    /// What a call to a user's function or script may change besides its outputs: a
    /// script (a call with no arguments and no outputs may be one) runs in this
    /// workspace; a nested function shares it; any function may set globals.
    /// Whether the call may be a script's (what a note then says).
    fn havoc_callee_effects(
        &self,
        env: &mut Env,
        func: &str,
        no_args: bool,
        targets: &[Var],
    ) -> bool {
        // A nested function shares this workspace, whether called directly or through a
        // handle passed to any other function (vlfeat's `'DiagnosticFunction',
        // @diagnostics`), and so do its siblings and its parent when this function is a
        // nested one: any call may run one of them, and change what they may.
        let shared = self.shared_writes();
        let maybe_script =
            no_args && targets.is_empty() && !self.user_functions.iter().any(|f| f == func);
        // A handle to a workspace mutator called here (`h = @assignin; h(…)`), or a
        // function of the file that writes into its caller.
        let mutator = mutates_workspace(func) || self.reaches_caller.iter().any(|f| f == func);
        if maybe_script || mutator || shared.as_ref() == Some(&SharedWrites::Any) {
            self.havoc(env, |_| true);
            return maybe_script && shared.is_none() && !mutator;
        }
        if let Some(writes) = shared {
            self.havoc(env, |n| writes.may_change(n));
        }
        self.havoc_globals(env);
        false
    }
}

/// The results of `arrayfun(f, A, …)` or `cellfun(f, C, …)` when they follow from the
/// arrays alone: each output has the size of the first array (MATLAB requires all to
/// agree), a numeric or logical array when the output is uniform (each call must give
/// a scalar) and a cell array with `'UniformOutput', false`; either way the shape is
/// `size(A)`. `None` for anything else (a mutator applied, no array, an option not
/// known), which the builtin's rule then takes.
fn map_results(site: &CallSite) -> Option<Vec<Value>> {
    if !matches!(site.func, "arrayfun" | "cellfun") {
        return None;
    }
    let (applied, rest) = site.args.split_first()?;
    if applied.handle.as_deref().is_some_and(mutates_workspace) {
        return None;
    }
    let arrays = rest.iter().position(is_map_option).unwrap_or(rest.len());
    let first = rest[..arrays].first()?;
    first.shape.as_tuple()?;
    let uniform = uniform_output(&rest[arrays..])?;
    // The legacy names cellfun takes as text give known classes.
    let class = match (uniform, applied.text.as_deref()) {
        (Some(false), _) => Some("cell"),
        (Some(true), Some("isempty" | "islogical" | "isreal" | "isclass")) => Some("logical"),
        (Some(true), Some("length" | "ndims" | "prodofsize" | "size")) => Some("double"),
        _ => None,
    };
    let value = Value {
        open_rank: first.open_rank,
        trailing: first.trailing.clone(),
        ..Value::of_shape(class, first.shape.clone())
    };
    Some(vec![value; site.targets.len().max(1)])
}

/// Whether `arrayfun`/`cellfun` given `options` (name–value pairs) concatenates its
/// results (`Some(true)`) or returns cells (`Some(false)`); `None` inside when the
/// option's value is not known, and `None` for options that are not pairs.
fn uniform_output(options: &[Value]) -> Option<Option<bool>> {
    let mut uniform = Some(true);
    for pair in options.chunks(2) {
        let [option, value] = pair else { return None };
        if option
            .text
            .as_deref()
            .is_some_and(|t| t.eq_ignore_ascii_case("UniformOutput"))
        {
            uniform = value
                .scalar
                .as_ref()
                .and_then(Dim::as_known)
                .map(|v| v != 0);
        }
    }
    Some(uniform)
}

/// Whether `v` names an option of `arrayfun`/`cellfun`, after which come no arrays.
fn is_map_option(v: &Value) -> bool {
    v.text.as_deref().is_some_and(|t| {
        t.eq_ignore_ascii_case("UniformOutput") || t.eq_ignore_ascii_case("ErrorHandler")
    })
}

/// An output `v` of `arrayfun`/`cellfun` (its shape `size(first)`, see
/// [`map_results`]) knowing what one call gives, `output`: a cell (`'UniformOutput',
/// false`, `uniform` `Some(false)`) holds it in every element; a uniform output is of
/// its class (numeric, logical or char) when `first`, the first array, is not empty
/// (an empty one gives `[]`, a double, whatever the function).
fn refine_mapped(v: &mut Value, output: &Value, first: &Value, uniform: Option<bool>) {
    if uniform == Some(false) && v.class == Some("cell") {
        let every = super::parts::anonymous(&super::parts::as_part(output));
        v.parts = Some(Rc::new(super::parts::Parts::Any(every)));
        return;
    }
    let nonempty = super::parts::known_dims(&first.shape)
        .and_then(|d| super::parts::count(&d))
        .is_some_and(|n| n > 0);
    // The union classes before `cell`: the numeric ones, logical and char.
    let plain = output
        .class
        .is_some_and(|c| super::UNION_CLASSES[..12].contains(&c));
    if uniform == Some(true) && v.class.is_none() && nonempty && plain {
        v.class = output.class;
    }
}

/// What a workspace mutator does to the variables.
enum WorkspaceEffect {
    /// Any variable may have been created, changed or cleared.
    Havoc,
    /// `S = load(...)`: a struct or a matrix; the workspace is untouched.
    LoadToStruct,
    /// `clear`/`clearvars` with known words: only removes variables.
    Clear(Clearing),
}

/// A call of a function of the file as a check: proven when every check the callee
/// makes in the call's context is, else left to run time (it may fail inside).
fn call_check(func: &str, proven: bool) -> Outcome {
    let rule = crate::shape::RuleInfo::extension(crate::shape::Rule::Call);
    if proven {
        return Outcome::always(crate::shape::Shape::Unknown, rule);
    }
    Outcome {
        theta: Constraint::Opaque(format!("the checks inside {func} for these arguments")),
        status: Truth::Unknown,
        ..Outcome::unknown(rule)
    }
}

fn refuted(result: &eval::CallResult) -> bool {
    result.outcomes.iter().any(|o| o.status == Truth::Refuted)
}

/// Every condition of the call holds (and it has one).
fn proven(result: &eval::CallResult) -> bool {
    !result.diverges && result.outcomes.iter().all(|o| o.status == Truth::Proven)
}

/// Refutations become unknowns, and results unknown, for a call whose operands may be
/// objects.
/// MATLAB multiplies, divides and raises to a power integer arrays as matrices only
/// when an operand is a scalar (`int32(A) * B` of two matrices fails): for an integer
/// operand, what the shape rule proves for floating-point operands is then a run-time
/// check unless an operand is surely 1×1.
fn integer_matrix_operation(
    call: &Call,
    facts: &shapex_dims::Facts,
    result: &mut eval::CallResult,
) {
    let integer = |v: &Value| v.class.filter(|c| super::INTEGER_CLASSES.contains(c));
    let mut integers: Vec<&str> = call.args.iter().filter_map(integer).collect();
    integers.sort_unstable();
    integers.dedup();
    let why = if integers.len() > 1 {
        // `int8(1) + int16(2)`: MATLAB combines integers only of one class.
        "the integer operands are of one class"
    } else if !integers.is_empty()
        && matches!(call.func, "mtimes" | "mrdivide" | "mldivide" | "mpower")
        && !call
            .args
            .iter()
            .any(|v| v.shape.is_scalar(facts) == Truth::Proven)
    {
        "an operand is a scalar (integer arrays multiply and divide only by one)"
    } else {
        return;
    };
    for o in &mut result.outcomes {
        if o.status == Truth::Proven {
            o.status = Truth::Unknown;
            o.theta = Constraint::Opaque(format!("{why}, and {}", o.theta));
        }
    }
}

/// The operations that MATLAB and Octave both reject for integer operands of two
/// classes (`int8(1) + int16(2)`). Comparisons are allowed in both; `&`/`|` (Octave
/// rejects, MATLAB converts to logical) and `min`/`max` (Octave rejects only a
/// signed with an unsigned class) are left out, since one of them runs them.
const INTEGER_ARITHMETIC: &[&str] = &[
    "plus", "minus", "times", "rdivide", "ldivide", "power", "mtimes", "mrdivide", "mldivide",
    "mpower", "rem", "mod", "idivide", "bitand", "bitor", "bitxor",
];

/// A definite error of a builtin call's classes, with the rule and the two classes:
/// two integer operands of different classes of an arithmetic operation
/// (`Rule::ClassMixed`), or a matrix product or division of an integer array by an
/// array, neither surely 1×1, or a matrix power with an integer operand and one surely
/// not 1×1 (`Rule::IntegerMatrix`). Only when both classes are
/// known exactly (an operand of unknown class may be an object that overloads the
/// operator) and MATLAB and Octave both fail on every run.
fn class_error(
    call: &Call,
    facts: &shapex_dims::Facts,
) -> Option<(crate::shape::Rule, [&'static str; 2])> {
    let [a, b] = call.args.as_slice() else {
        return None;
    };
    let (ca, cb) = (a.class?, b.class?);
    let integer = |c: &str| super::INTEGER_CLASSES.contains(&c);
    if !INTEGER_ARITHMETIC.contains(&call.func) {
        return None;
    }
    if integer(ca) && integer(cb) && ca != cb {
        return Some((crate::shape::Rule::ClassMixed, [ca, cb]));
    }
    // Every class an integer array meets in a product: the same integer class or a
    // non-integer numeric one (double, single, logical, char).
    let numeric = |c: &str| matches!(c, "double" | "single" | "logical" | "char") || integer(c);
    let matrix = |v: &Value| {
        matches!(v.shape, crate::shape::Shape::Tuple(_))
            && v.shape.is_scalar(facts) == Truth::Refuted
    };
    let product = matches!(call.func, "mtimes" | "mrdivide" | "mldivide") && matrix(a) && matrix(b);
    // `A^B` with an integer operand is defined only for two scalars: MATLAB's "MPOWER
    // (^) is not fully supported for integer classes", and Octave has no `^` for an
    // integer matrix (`int8([1 2; 3 4])^2`, `2^int8([1 2; 3 4])`, `int8(2)^[1 2]`).
    let power = call.func == "mpower" && (matrix(a) || matrix(b));
    ((product || power) && (integer(ca) || integer(cb)) && numeric(ca) && numeric(cb))
        .then_some((crate::shape::Rule::IntegerMatrix, [ca, cb]))
}

fn overloadable(result: &mut eval::CallResult) {
    if !result.outcomes.iter().any(|o| o.status == Truth::Refuted) {
        return;
    }
    result.outcomes = std::mem::take(&mut result.outcomes)
        .into_iter()
        .map(Outcome::excused)
        .collect();
    for v in &mut result.values {
        *v = Value::unknown();
    }
}

/// What a call of `func` does to the workspace when it is a builtin that creates,
/// changes or clears variables by name (Dubrau 2012 §1.4's wild features): after one no
/// variable's value is known, except after a `clear` whose words (`args`' texts, when
/// all are known) say which variables it removes.
fn workspace_effect(func: &str, targets: &[Var], args: &[Value]) -> Option<WorkspaceEffect> {
    let words: Option<Vec<&str>> = args.iter().map(|a| a.text.as_deref()).collect();
    if let Some(clearing) = words.and_then(|w| crate::tame::clearing(func, &w)) {
        return Some(WorkspaceEffect::Clear(clearing));
    }
    match func {
        "load" if targets.len() == 1 => Some(WorkspaceEffect::LoadToStruct),
        f if mutates_workspace(f) => Some(WorkspaceEffect::Havoc),
        _ => None,
    }
}
