//! Hindley–Milner inference over a program (spec §5.2; §9 item 8): the typing rules of
//! Fig 2.4 (spec §1.4) read as constraints, plus `let`, `check` (spec §4.1) and the data
//! conditional `if` (spec §5.1). Definitions are let-polymorphic and instantiated
//! afresh at each use; λ-, `rec`- and `let`-bound variables are monomorphic.

use crate::combinators;
use crate::types::{Kind, Scheme};
use crate::unify::{Arena, Clash, Id, View};
use crate::{codes, DefType, Typed};
use shapex_text::{Diagnostic, Span};
use shapex_vec_syntax::ast::{Def, Param, Program, Term, TermKind, Type, TypeKind};
use std::collections::HashMap;

/// The state of one program's inference. The arena is per definition: a definition's
/// scheme is a tree independent of it, so the nodes of earlier definitions are dropped.
pub(crate) struct Infer {
    arena: Arena,
    globals: HashMap<String, Scheme>,
    locals: Vec<(String, Id)>,
    /// The current definition's type-variable names (`'a` in its binders' annotations).
    names: HashMap<String, Id>,
    spans: Vec<(Span, Id)>,
    /// Whether to keep each subterm's type (not for the prelude).
    record: bool,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl Infer {
    pub(crate) fn new() -> Infer {
        let globals = combinators::NAMES
            .iter()
            .filter_map(|n| Some((n.to_string(), combinators::scheme(n)?)))
            .collect();
        Infer {
            arena: Arena::default(),
            globals,
            locals: Vec::new(),
            names: HashMap::new(),
            spans: Vec::new(),
            record: true,
            diagnostics: Vec::new(),
        }
    }

    /// Checks `program`'s definitions in order, then its term, into `out` (the
    /// diagnostics stay in `self`).
    pub(crate) fn program(&mut self, program: &Program, record: bool, out: &mut Typed) {
        self.record = record;
        for def in &program.defs {
            let typed = self.def(def, out);
            out.defs.push(typed);
        }
        if let Some(main) = &program.main {
            self.start();
            let id = self.term(main);
            let scheme = self.generalize(id, main.span);
            self.finish(out);
            out.main = Some(scheme);
        }
    }

    fn start(&mut self) {
        self.arena = Arena::default();
        self.names.clear();
        self.locals.clear();
    }

    /// Prints the recorded subterms' types (final now: nothing later binds this
    /// definition's variables) into `out`.
    fn finish(&mut self, out: &mut Typed) {
        for (span, id) in std::mem::take(&mut self.spans) {
            if let Some(scheme) = self.arena.scheme(id) {
                out.types.push((span, scheme));
            }
        }
    }

    fn def(&mut self, def: &Def, out: &mut Typed) -> DefType {
        self.start();
        let id = self.def_body(def);
        let inferred = self.generalize(id, def.body.span);
        let mut scheme = inferred.clone();
        if let (Some(ty), true) = (&def.ty, def.params.is_empty()) {
            if let Some(declared) = self.declared(ty) {
                self.check_declared(&inferred, &declared, def.body.span);
                scheme = declared;
            }
        }
        self.finish(out);
        if !def.name.name.is_empty() {
            self.globals.insert(def.name.name.clone(), scheme.clone());
        }
        DefType {
            name: def.name.name.clone(),
            span: def.span,
            scheme,
            inferred,
        }
    }

    /// `def f p1 … pn : τ = t` is `\p1 … pn. t` with `t : τ`; without parameters the
    /// annotation is checked after generalisation instead ([`Infer::check_declared`]),
    /// so the inferred type is the body's own.
    fn def_body(&mut self, def: &Def) -> Id {
        let params: Vec<Id> = def.params.iter().map(|p| self.param(p)).collect();
        for (p, id) in def.params.iter().zip(&params) {
            self.locals.push((p.name.name.clone(), *id));
        }
        let mut id = self.term(&def.body);
        if let (Some(ty), false) = (&def.ty, def.params.is_empty()) {
            let declared = self.annotation(ty);
            self.expect(declared, id, def.body.span, codes::MISMATCH);
        }
        for p in params.into_iter().rev() {
            self.locals.pop();
            id = self.arena.arrow(p, id);
        }
        id
    }

    /// The scheme of a definition's own annotation, its variables quantified (their
    /// kinds from where they stand: under `vec`, data).
    fn declared(&mut self, ty: &Type) -> Option<Scheme> {
        let saved = std::mem::take(&mut self.names);
        let id = self.annotation(ty);
        self.names = saved;
        self.arena.scheme(id)
    }

    /// The declared type must be an instance of the inferred scheme.
    fn check_declared(&mut self, inferred: &Scheme, declared: &Scheme, span: Span) {
        match inferred.generalizes(declared) {
            Ok(()) => {}
            Err(None) => self.error(
                codes::MISMATCH,
                format!("expected `{declared}` (as declared), found `{inferred}`"),
                span,
            ),
            Err(Some(kind)) => self.error(
                kind_code(kind),
                format!(
                    "declared `{declared}`, but the definition's type `{inferred}` needs a type variable to be {}",
                    kind.describe()
                ),
                span,
            ),
        }
    }

    /// The top-level generalisation: every free variable is generic, since the
    /// environment of a definition holds only closed schemes.
    fn generalize(&mut self, id: Id, span: Span) -> Scheme {
        self.arena.scheme(id).unwrap_or_else(|| {
            self.error(
                codes::TOO_LARGE,
                format!(
                    "this type has more than {} parts; it is not kept",
                    crate::unify::TREE_LIMIT
                ),
                span,
            );
            Scheme {
                kinds: vec![Kind::Any],
                ty: crate::types::Ty::Var(0),
            }
        })
    }

    fn param(&mut self, p: &Param) -> Id {
        match &p.ty {
            Some(ty) => self.annotation(ty),
            None => self.arena.fresh(Kind::Any),
        }
    }

    /// An annotation as a type; its variables are this definition's, by name.
    fn annotation(&mut self, ty: &Type) -> Id {
        match &ty.kind {
            TypeKind::Nat => self.arena.nat(),
            TypeKind::Bool => self.arena.bool(),
            TypeKind::Sz => self.arena.sz(),
            TypeKind::Un => self.arena.un(),
            TypeKind::Var(name) => match self.names.get(name) {
                Some(id) => *id,
                None => {
                    let id = self.arena.fresh(Kind::Any);
                    self.names.insert(name.clone(), id);
                    id
                }
            },
            TypeKind::Vec(inner) => self.vec_of(inner),
            TypeKind::Mat(inner) => {
                let row = self.vec_of(inner);
                self.arena.vec(row)
            }
            TypeKind::Product(x, y) => {
                let x = self.annotation(x);
                let y = self.annotation(y);
                self.arena.product(x, y)
            }
            TypeKind::Arrow(x, y) => {
                let x = self.annotation(x);
                let y = self.annotation(y);
                self.arena.arrow(x, y)
            }
            TypeKind::Error => self.arena.fresh(Kind::Any),
        }
    }

    fn vec_of(&mut self, inner: &Type) -> Id {
        let id = self.annotation(inner);
        if !self.arena.restrict(id, Kind::Data) {
            let shown = self.show(id);
            self.error(
                codes::VECTOR_OF_FUNCTIONS,
                format!("a vector's entries must be arrow-free data, not `{shown}`"),
                inner.span,
            );
        }
        self.arena.vec(id)
    }

    fn term(&mut self, t: &Term) -> Id {
        let id = match &t.kind {
            TermKind::Var(ident) => self.var(&ident.name, t.span),
            TermKind::Nat(_) => self.arena.nat(),
            TermKind::Size(_) => self.arena.sz(),
            TermKind::Pair(x, y) => {
                let x = self.term(x);
                let y = self.term(y);
                self.arena.product(x, y)
            }
            TermKind::Vector(items) => self.vector(items, t.span),
            TermKind::App { fun, arg, .. } => self.app(fun, arg, t.span),
            TermKind::Lam { param, body } => {
                let p = self.param(param);
                let b = self.bound(&param.name.name, p, body);
                self.arena.arrow(p, b)
            }
            TermKind::Rec { param, body } => {
                let f = self.param(param);
                let b = self.bound(&param.name.name, f, body);
                self.expect(f, b, body.span, codes::MISMATCH);
                f
            }
            TermKind::Ifs {
                cond,
                then,
                otherwise,
            } => {
                let sz = self.arena.sz();
                self.condition(cond, sz, codes::IFS_CONDITION);
                self.branches(then, otherwise)
            }
            TermKind::If {
                cond,
                then,
                otherwise,
            } => {
                // Spec §5.1: the data conditional's test is a `nat`.
                let nat = self.arena.nat();
                self.condition(cond, nat, codes::MISMATCH);
                self.branches(then, otherwise)
            }
            TermKind::Check { cond, body } => {
                // `check t' then t ≡ let x ⇐ t' in t`: t' may have any type.
                self.term(cond);
                self.term(body)
            }
            TermKind::Let { name, value, body } => {
                let v = self.term(value);
                self.bound(&name.name, v, body)
            }
            TermKind::Error => self.arena.fresh(Kind::Any),
        };
        if self.record {
            self.spans.push((t.span, id));
        }
        id
    }

    /// `body`'s type with `name : id` in scope.
    fn bound(&mut self, name: &str, id: Id, body: &Term) -> Id {
        self.locals.push((name.to_string(), id));
        let b = self.term(body);
        self.locals.pop();
        b
    }

    fn var(&mut self, name: &str, span: Span) -> Id {
        if name.ends_with(combinators::PRIMITIVE) || name == combinators::UNDECIDED {
            if let Some(scheme) = combinators::scheme(name) {
                return self.arena.instantiate(&scheme);
            }
        }
        if let Some((_, id)) = self.locals.iter().rev().find(|(n, _)| n == name) {
            return *id;
        }
        if let Some(scheme) = self.globals.get(name) {
            let scheme = scheme.clone();
            return self.arena.instantiate(&scheme);
        }
        self.error(codes::UNBOUND, format!("`{name}` is not defined"), span);
        self.arena.fresh(Kind::Any)
    }

    fn vector(&mut self, items: &[Term], span: Span) -> Id {
        let entry = self.arena.fresh(Kind::Data);
        if items.is_empty() {
            self.error(
                codes::EMPTY_VECTOR,
                "VEC has no empty vector: a vector has at least one entry (spec §9.1)",
                span,
            );
        }
        let mut fits = true;
        for item in items {
            let id = self.term(item);
            fits &= self.expect(entry, id, item.span, codes::MISMATCH);
        }
        // A vector whose entries did not fit has a fresh entry type, so the one
        // mistake is not reported again where the vector is used.
        let entry = if fits {
            entry
        } else {
            self.arena.fresh(Kind::Data)
        };
        self.arena.vec(entry)
    }

    fn app(&mut self, fun: &Term, arg: &Term, span: Span) -> Id {
        let f = self.term(fun);
        let a = self.term(arg);
        match self.arena.view(f) {
            View::Arrow(param, result) => {
                if self.argument(param, a, arg) {
                    result
                } else {
                    // The result's type may hold the bad argument's (`sing succ`).
                    self.arena.fresh(Kind::Any)
                }
            }
            View::Var(_) => {
                let result = self.arena.fresh(Kind::Any);
                let arrow = self.arena.arrow(a, result);
                self.expect(f, arrow, span, codes::MISMATCH);
                result
            }
            _ => {
                let shown = self.show(f);
                self.error(
                    codes::MISMATCH,
                    format!("expected a function, found `{shown}`"),
                    fun.span,
                );
                self.arena.fresh(Kind::Any)
            }
        }
    }

    /// An argument against its parameter's type; an infix operator's pair of operands
    /// is checked operand by operand, so the message points at the wrong one.
    fn argument(&mut self, param: Id, a: Id, arg: &Term) -> bool {
        if let TermKind::Pair(x, y) = &arg.kind {
            if let (View::Product(p1, p2), View::Product(a1, a2)) =
                (self.arena.view(param), self.arena.view(a))
            {
                let first = self.expect(p1, a1, x.span, codes::MISMATCH);
                return self.expect(p2, a2, y.span, codes::MISMATCH) && first;
            }
        }
        self.expect(param, a, arg.span, codes::MISMATCH)
    }

    fn condition(&mut self, cond: &Term, expected: Id, code: &'static str) {
        let c = self.term(cond);
        self.expect(expected, c, cond.span, code);
    }

    fn branches(&mut self, then: &Term, otherwise: &Term) -> Id {
        let t = self.term(then);
        let o = self.term(otherwise);
        self.expect(t, o, otherwise.span, codes::MISMATCH);
        t
    }

    /// Unifies `expected` with `found` (the type of the subterm at `span`); a clash is
    /// one diagnostic there, `mismatch_code` naming a constructor clash.
    /// True when they unified.
    fn expect(&mut self, expected: Id, found: Id, span: Span, mismatch_code: &'static str) -> bool {
        let (e, f) = self.show_pair(expected, found);
        let Err(clash) = self.arena.unify(expected, found) else {
            return true;
        };
        let (code, message) = match clash {
            Clash::Mismatch if mismatch_code == codes::IFS_CONDITION => (
                mismatch_code,
                format!("an `ifs` condition must be a size (`sz`), found `{f}`"),
            ),
            Clash::Mismatch => (mismatch_code, format!("expected `{e}`, found `{f}`")),
            Clash::Infinite => (
                codes::INFINITE,
                format!("expected `{e}`, found `{f}`: they are equal only as an infinite type"),
            ),
            Clash::Kind(kind) => (
                kind_code(kind),
                match kind {
                    Kind::Theta => format!(
                        "`eq` and `=` compare only types built from `un`, `sz` and `*`; here `{e}` would be `{f}`"
                    ),
                    _ => format!(
                        "a vector's entries must be arrow-free data; here `{e}` would be `{f}`"
                    ),
                },
            ),
        };
        self.error(code, message, span);
        false
    }

    /// Both types, printed with one naming of their variables, before unification
    /// changes them.
    fn show_pair(&self, a: Id, b: Id) -> (String, String) {
        match self.arena.schemes(&[a, b]) {
            Some(s) => (shown(&s[0]), shown(&s[1])),
            None => ("…".into(), "…".into()),
        }
    }

    fn show(&self, id: Id) -> String {
        self.arena
            .scheme(id)
            .map_or_else(|| "…".into(), |s| shown(&s))
    }

    fn error(&mut self, code: &str, message: impl Into<String>, span: Span) {
        self.diagnostics
            .push(Diagnostic::error(code, message, span));
    }
}

/// A scheme printed with the variables' numbering it came with (not renumbered), so
/// two types shown together name their shared variables alike.
fn shown(s: &Scheme) -> String {
    s.to_string_raw()
}

fn kind_code(kind: Kind) -> &'static str {
    match kind {
        Kind::Theta => codes::EQ_NOT_THETA,
        _ => codes::VECTOR_OF_FUNCTIONS,
    }
}
