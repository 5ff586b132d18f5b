//! The gradual type checker of the core calculus, Γ ⊢ e : τ (Migeed et al. 2024,
//! Figure 3 — blank in the OCR; the rules as rebuilt in spec 004 §1.5). One pass over
//! the program: the declarations build Γ (s-var), then each `return e` is typed bottom
//! up. Every declaration and subexpression gets its type; an ill-typed operation gets
//! an error on its own span naming its operands' types, and the expressions around it
//! get no type (no error cascades from one mistake).
//!
//! By Theorem 3.1/3.2 (spec 004 §3, §6.1), a program of the calculus is ill-typed
//! exactly when its migration space is empty, so this checker alone decides that.

use crate::consistent::{
    apply_broadcasting, calc_conv, consistent, dim_consistent, divides, join_star, matches,
    static_product, ConvError,
};
use crate::gen::Gen;
use crate::types::{Dim, TensorType};
use shapex_dims::{Constraint, Dim as Poly};
use shapex_migrate_syntax::ast::{Expr, ExprKind, Item, Nat, Program};
use shapex_report::CheckStatus;
use shapex_text::{Diagnostic, Span};
use std::collections::HashMap;

/// The type of one declaration `x : τ`.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclType {
    pub name: String,
    pub ty: TensorType,
    /// The whole declaration.
    pub span: Span,
    /// A repeated name: s-var needs `x ∉ dom(Γ)`; the first declaration is used.
    pub duplicate: bool,
}

/// The rule a node was typed by (Figure 3's names, spec 004 §1.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    Var,
    Add,
    Conv,
    /// t-reshape-s: both sides static, equal products.
    ReshapeS,
    /// t-reshape-g: divisibility between the static products.
    ReshapeG,
    /// t-reshape: nothing to check (input `Dyn`, or `Dyn` on both sides).
    Reshape,
}

impl Rule {
    pub fn name(self) -> &'static str {
        match self {
            Rule::Var => "t-var",
            Rule::Add => "t-add",
            Rule::Conv => "t-conv",
            Rule::ReshapeS => "t-reshape-s",
            Rule::ReshapeG => "t-reshape-g",
            Rule::Reshape => "t-reshape",
        }
    }

    /// The rule with what it checks and where it comes from.
    pub fn describe(self) -> &'static str {
        match self {
            Rule::Var => "t-var: x : τ ∈ Γ (Migeed et al. 2024, Fig. 3 as rebuilt in spec 004 §1.5)",
            Rule::Add => "t-add: (τ1, τ2) = apply-broadcasting(t1, t2) (App. B, not App. E: erratum 7), τ1 ~ τ2, result τ1 ⊔* τ2 (Fig. 3 rebuilt, spec 004 §1.5)",
            Rule::Conv => "t-conv: t ▷⁴ (σ1, σ2, σ3, σ4), c_in ~ σ2, result calc-conv(t, c_out, κ) of App. B (erratum 5), output dimensions ≥ 1 (spec 004 §6.3 item 2)",
            Rule::ReshapeS => "t-reshape-s: static input and target with ∏D = ∏U; result the target (Fig. 3 rebuilt; U1..Um, erratum 1)",
            Rule::ReshapeG => "t-reshape-g: Dyn occurs exactly once in input and target; the static products divide one another, either way (spec 004 §1.5); result the target",
            Rule::Reshape => "t-reshape: input Dyn, or Dyn more than once in input and target: nothing to check (spec 004 §1.5); result the target",
        }
    }
}

/// One typed subexpression.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub span: Span,
    /// `None` when the node is ill-typed, or one of its operands is.
    pub ty: Option<TensorType>,
    pub rule: Rule,
    /// `proven` when the rule's condition holds of static types (the operation cannot
    /// fail at run time), `runtime` when it holds only thanks to a `Dyn` (a run-time
    /// check remains), `error` when it fails, `none` for a variable or a node below an
    /// error.
    pub status: CheckStatus,
    /// Which item of the program (index into `Program::items`) it belongs to.
    pub item: usize,
}

/// What the checker found.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    pub decls: Vec<DeclType>,
    /// Every subexpression of every `return`, operands before the operation.
    pub nodes: Vec<Node>,
    /// The diagnostics (`mig.*`).
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    /// The node of the whole expression of the `return` at `item` (the last node the
    /// checker typed for it: operands come before their operation); `None` when that
    /// item is not a `return`.
    pub fn result(&self, item: usize) -> Option<&Node> {
        self.nodes.iter().rev().find(|n| n.item == item)
    }
}

/// Types `program`. Never panics.
pub fn check(program: &Program) -> Checked {
    check_with(program, None, &mut Gen::inert())
}

/// Types `program` with its declarations (the first of each name, in order) of the
/// types `types` when given — a migration, or a skeleton whose unknowns `gen` made —
/// and `gen` recording what each rule needs of the unknowns.
pub fn check_with(program: &Program, types: Option<&[TensorType]>, gen: &mut Gen) -> Checked {
    let mut out = Checked::default();
    let mut gamma: HashMap<&str, TensorType> = HashMap::new();
    for d in program.decls() {
        let duplicate = gamma.contains_key(d.name.name.as_str());
        let ty = match types.and_then(|ts| ts.get(gamma.len())) {
            Some(t) if !duplicate => t.clone(),
            _ => TensorType::from_ann(&d.ty),
        };
        if duplicate {
            out.diagnostics.push(Diagnostic::error(
                "mig.duplicate",
                format!(
                    "`{}` is declared twice: s-var needs x ∉ dom(Γ); the first declaration is used",
                    d.name.name
                ),
                d.name.span,
            ));
        } else {
            gamma.insert(&d.name.name, ty.clone());
        }
        out.decls.push(DeclType {
            name: d.name.name.clone(),
            ty,
            span: d.span,
            duplicate,
        });
    }
    for (item, it) in program.items.iter().enumerate() {
        if let Item::Return(r) = it {
            let mut cx = Cx {
                gamma: &gamma,
                item,
                out: &mut out,
                gen,
            };
            cx.expr(&r.expr);
        }
    }
    out
}

struct Cx<'a, 'p> {
    gamma: &'a HashMap<&'p str, TensorType>,
    item: usize,
    out: &'a mut Checked,
    /// Inert for the gradual checker; over a skeleton it meets unknowns (`Dim::Sym`),
    /// which the rules treat as numbers whose constraints it records.
    gen: &'a mut Gen,
}

impl Cx<'_, '_> {
    fn node(
        &mut self,
        span: Span,
        ty: Option<TensorType>,
        rule: Rule,
        status: CheckStatus,
    ) -> Option<TensorType> {
        self.out.nodes.push(Node {
            span,
            ty: ty.clone(),
            rule,
            status,
            item: self.item,
        });
        ty
    }

    fn error(&mut self, code: &str, message: String, span: Span, rule: Rule) -> Option<TensorType> {
        // Over a skeleton, a certain failure makes the constraints false.
        self.gen.at = span;
        let message = self.gen.spell(&message);
        self.gen.require(Constraint::False, message.clone());
        self.out
            .diagnostics
            .push(Diagnostic::error(code, message, span).with_help(rule.describe()));
        self.node(span, None, rule, CheckStatus::Error)
    }

    /// The type of `e`, or `None` when it (or an operand) is ill-typed. The parser
    /// bounds the nesting, so this recursion is bounded.
    fn expr(&mut self, e: &Expr) -> Option<TensorType> {
        match &e.kind {
            ExprKind::Var(x) => match self.gamma.get(x.name.as_str()) {
                Some(t) => self.node(e.span, Some(t.clone()), Rule::Var, CheckStatus::None),
                // A hole the parser left has no name and already has a syntax error.
                None if x.name.is_empty() => self.node(e.span, None, Rule::Var, CheckStatus::None),
                None => self.error(
                    "mig.unbound",
                    format!("`{}` is not declared: t-var needs x : τ ∈ Γ", x.name),
                    e.span,
                    Rule::Var,
                ),
            },
            ExprKind::Add(a, b) => {
                let ta = self.expr(a);
                let tb = self.expr(b);
                let (Some(t1), Some(t2)) = (ta, tb) else {
                    return self.node(e.span, None, Rule::Add, CheckStatus::None);
                };
                self.add(e.span, &t1, &t2)
            }
            ExprKind::Conv2D {
                c_in,
                c_out,
                kernel,
                arg,
            } => {
                let Some(t) = self.expr(arg) else {
                    return self.node(e.span, None, Rule::Conv, CheckStatus::None);
                };
                self.conv(e.span, &t, *c_in, *c_out, *kernel)
            }
            ExprKind::Reshape { arg, target } => {
                let Some(t) = self.expr(arg) else {
                    return self.node(e.span, None, Rule::Reshape, CheckStatus::None);
                };
                self.reshape(e.span, &t, &TensorType::from_ann(target))
            }
        }
    }

    /// t-add: broadcast "virtually" (Appendix B), check consistency, join with ⊔*.
    fn add(&mut self, span: Span, t1: &TensorType, t2: &TensorType) -> Option<TensorType> {
        if has_unknown(t1) || has_unknown(t2) {
            return self.add_symbolic(span, t1, t2);
        }
        let (b1, b2) = apply_broadcasting(t1, t2);
        let joined = consistent(&b1, &b2).then(|| join_star(&b1, &b2)).flatten();
        match joined {
            Some(t) => {
                let status = if b1.is_static() && b2.is_static() {
                    CheckStatus::Proven
                } else {
                    CheckStatus::Runtime
                };
                self.node(span, Some(t), Rule::Add, status)
            }
            None => {
                let at = match (b1.dims(), b2.dims()) {
                    (Some(x), Some(y)) => x
                        .iter()
                        .zip(y)
                        .position(|(&p, &q)| !dim_consistent(p, q))
                        .map(|i| {
                            format!(" ({} ≁ {} at dimension {i}, counting from 0)", x[i], y[i])
                        }),
                    _ => None,
                };
                let at = at.unwrap_or_default();
                // Name the broadcast types only when broadcasting changed something.
                let message = if (&b1, &b2) == (t1, t2) {
                    format!("add: {t1} and {t2} are not consistent{at}, and broadcasting (App. B) changes neither")
                } else {
                    format!("add: {t1} and {t2} do not broadcast: after apply-broadcasting they are {b1} and {b2}, which are not consistent{at}")
                };
                self.error("mig.add", message, span, Rule::Add)
            }
        }
    }

    /// t-conv: `t ▷⁴ (σ1..σ4)`, `c_in ~ σ2`, result calc-conv (Appendix B).
    fn conv(
        &mut self,
        span: Span,
        t: &TensorType,
        c_in: Nat,
        c_out: Nat,
        kernel: (Nat, Nat),
    ) -> Option<TensorType> {
        let Some(sigma) = matches(t, 4) else {
            return self.error(
                "mig.match",
                format!(
                    "Conv2D needs a rank-4 input (t ▷⁴ TensorType(σ1, σ2, σ3, σ4)), but its input has type {t} (rank {})",
                    t.rank().unwrap_or(0)
                ),
                span,
                Rule::Conv,
            );
        };
        let sigma = [sigma[0], sigma[1], sigma[2], sigma[3]];
        // A constant too large for a u64 has a syntax error; it is read as unknown.
        let c_in_dim = c_in.value.map_or(Dim::Dyn, Dim::Nat);
        let sigma = match self.symbolic_channels(span, c_in_dim, sigma) {
            Some(sigma) => sigma,
            None => sigma,
        };
        if !dim_consistent(c_in_dim, sigma[1]) {
            return self.error(
                "mig.conv.channels",
                format!(
                    "Conv2D expects {c_in_dim} input channels (c_in), but its input {t} has {} (its second dimension, σ2): c_in ≁ σ2",
                    sigma[1]
                ),
                span,
                Rule::Conv,
            );
        }
        let (Some(k0), Some(k1), Some(out)) = (kernel.0.value, kernel.1.value, c_out.value) else {
            return self.node(span, None, Rule::Conv, CheckStatus::None);
        };
        match calc_conv(&sigma, out, (k0, k1)) {
            Ok(ty) if sigma.iter().any(|d| matches!(d, Dim::Sym(_))) => {
                let ty = self.symbolic_window(span, &sigma, ty, (k0, k1));
                self.node(span, ty, Rule::Conv, CheckStatus::Runtime)
            }
            Ok(ty) => {
                let known = |d: Dim| !d.is_dyn();
                let status = if known(sigma[1]) && known(sigma[2]) && known(sigma[3]) && t.rank().is_some() {
                    CheckStatus::Proven
                } else {
                    CheckStatus::Runtime
                };
                self.node(span, Some(ty), Rule::Conv, status)
            }
            Err(ConvError::EmptyKernel) => self.error(
                "mig.conv.kernel",
                format!("Conv2D's kernel ({k0}, {k1}) has a size 0: a kernel covers at least one element"),
                span,
                Rule::Conv,
            ),
            Err(ConvError::KernelTooLarge {
                axis,
                input,
                kernel,
            }) => self.error(
                "mig.conv.kernel",
                format!(
                    "Conv2D's kernel size {kernel} is larger than the input's {} {input} in {t}: calc-conv gives {input} − ({kernel} − 1) < 1",
                    if axis == 2 { "height" } else { "width" }
                ),
                span,
                Rule::Conv,
            ),
        }
    }

    /// reshape by spec 004 §1.5's case table; the result is always the target δ.
    fn reshape(&mut self, span: Span, t: &TensorType, target: &TensorType) -> Option<TensorType> {
        let (Some(input), Some(goal)) = (t.dims(), target.dims()) else {
            // Input Dyn: t-reshape, nothing to check. Target a whole Dyn: nothing to
            // compare with [X].
            return self.node(
                span,
                Some(target.clone()),
                Rule::Reshape,
                CheckStatus::Runtime,
            );
        };
        if has_unknown(t) {
            return self.reshape_symbolic(span, input, goal, target);
        }
        // Figure 3's side conditions (as rebuilt in spec 004 §1.5) count the `Dyn`s of
        // input and target together: t-reshape-g when "Dyn occurs exactly once in
        // d1..dm, σ1..σn", t-reshape when more than once ("too many dimensions are
        // missing"). Counting both sides, rather than §1.5's case table row "has ≥1 Dyn
        // dim | all static ⇒ t-reshape-g", keeps the rule monotone: forgetting a
        // dimension of a well-typed program never makes it ill-typed (with two Dyns in
        // the input, the table's divisibility between the remaining static dimensions
        // and the target can fail where the more precise input passed).
        let dyns = input.iter().chain(goal).filter(|d| d.is_dyn()).count();
        let (Some(p_in), Some(p_out)) = (static_product(input), static_product(goal)) else {
            // Products past u128: we cannot prove it ill-typed, so it is admitted
            // ("we admit a program if we cannot prove it is ill-typed statically").
            return self.node(
                span,
                Some(target.clone()),
                Rule::ReshapeG,
                CheckStatus::Runtime,
            );
        };
        let (rule, ok, status) = match dyns {
            0 => (Rule::ReshapeS, p_in == p_out, CheckStatus::Proven),
            // One unknown dimension: the static products must divide one another, in
            // either direction (the paper's reading for the calculus, plan D2; PyTorch
            // itself asks only that the side with the unknown divide the other).
            1 => (
                Rule::ReshapeG,
                divides(p_in, p_out) || divides(p_out, p_in),
                CheckStatus::Runtime,
            ),
            // Several unknowns (a target with two Dyns is also a syntax error).
            _ => (Rule::Reshape, true, CheckStatus::Runtime),
        };
        if ok {
            return self.node(span, Some(target.clone()), rule, status);
        }
        let message = if rule == Rule::ReshapeS {
            format!(
                "reshape: {t} has {p_in} elements but the target {target} has {p_out}: t-reshape-s needs ∏D = ∏U"
            )
        } else {
            format!(
                "reshape: the static dimensions of {t} multiply to {p_in} and those of the target {target} to {p_out}; neither divides the other (t-reshape-g)"
            )
        };
        self.error("mig.reshape", message, span, rule)
    }
}

/// Whether a type has an unknown of constraint generation.
fn has_unknown(t: &TensorType) -> bool {
    t.dims()
        .is_some_and(|ds| ds.iter().any(|d| matches!(d, Dim::Sym(_))))
}

/// The rules over unknowns (Gen, Migeed et al. 2024 §4, Figure 5's t-add, t-conv and
/// t-reshape): each unknown is a number, and what the rule needs of it is recorded
/// with the operation's span. Each requirement is implied by the rule succeeding, so
/// the conjunction is implied by the program being well typed.
impl Cx<'_, '_> {
    /// t-add: Appendix B's broadcasting, position by position (an unknown facing `n`
    /// is 1 or `n`), joined with ⊔*.
    fn add_symbolic(&mut self, span: Span, t1: &TensorType, t2: &TensorType) -> Option<TensorType> {
        self.gen.at = span;
        match crate::forward::ops::broadcast(self.gen, t1, t2) {
            Ok(t) => self.node(span, Some(t), Rule::Add, CheckStatus::Runtime),
            Err(why) => {
                let why = self.gen.spell(&why);
                self.error("mig.add", format!("add: {why}"), span, Rule::Add)
            }
        }
    }

    /// t-conv's `c_in ~ σ2` when σ2 is an unknown: it must equal `c_in`. `None` when
    /// nothing is unknown there.
    fn symbolic_channels(&mut self, span: Span, c_in: Dim, sigma: [Dim; 4]) -> Option<[Dim; 4]> {
        if !matches!(sigma[1], Dim::Sym(_)) {
            return None;
        }
        self.gen.at = span;
        let joined = self
            .gen
            .join(c_in, sigma[1], "Conv2D: c_in ~ σ2, the input channels")?;
        let mut out = sigma;
        out[1] = joined;
        Some(out)
    }

    /// calc-conv's spatial dimensions over unknowns: `σ − (κ − 1)`, at least 1.
    fn symbolic_window(
        &mut self,
        span: Span,
        sigma: &[Dim; 4],
        ty: TensorType,
        kernel: (u64, u64),
    ) -> Option<TensorType> {
        let TensorType::Tensor(mut dims) = ty else {
            return Some(ty);
        };
        self.gen.at = span;
        for (axis, k) in [(2, kernel.0), (3, kernel.1)] {
            let Some(h) = self
                .gen
                .poly(sigma[axis])
                .filter(|_| matches!(sigma[axis], Dim::Sym(_)))
            else {
                continue;
            };
            let k = Poly::known(i64::try_from(k).ok()?);
            let out = h.sub(&k).add(&Poly::one());
            self.gen.require(
                Constraint::le(&Poly::one(), &out),
                "calc-conv: the kernel fits the input (an output size is at least 1)",
            );
            dims[axis] = self.gen.dim(out);
        }
        Some(TensorType::Tensor(dims))
    }

    /// reshape over unknowns, by the same case split as [`Cx::reshape`]: no `Dyn` on
    /// either side, the element counts agree; one, the static products divide one
    /// another either way (a fresh quotient each way); more, nothing to check.
    fn reshape_symbolic(
        &mut self,
        span: Span,
        input: &[Dim],
        goal: &[Dim],
        target: &TensorType,
    ) -> Option<TensorType> {
        self.gen.at = span;
        let dyns = input.iter().chain(goal).filter(|d| d.is_dyn()).count();
        let product = |g: &Gen, ds: &[Dim]| {
            ds.iter()
                .filter_map(|d| g.poly(*d))
                .fold(Poly::one(), |acc, p| acc.mul(&p))
        };
        let (p_in, p_out) = (product(self.gen, input), product(self.gen, goal));
        let (rule, c) = match dyns {
            0 => (Rule::ReshapeS, Constraint::eq(&p_in, &p_out)),
            1 => {
                let (q1, q2) = (self.gen.fresh(), self.gen.fresh());
                let c = Constraint::or([
                    Constraint::eq(&p_in, &q1.mul(&p_out)),
                    Constraint::eq(&p_out, &q2.mul(&p_in)),
                ]);
                (Rule::ReshapeG, c)
            }
            _ => (Rule::Reshape, Constraint::True),
        };
        if c == Constraint::False {
            let message = format!(
                "reshape: {} cannot have as many elements as the target {target}",
                self.gen
                    .spell(&TensorType::Tensor(input.to_vec()).to_string())
            );
            return self.error("mig.reshape", message, span, rule);
        }
        let why = match rule {
            Rule::ReshapeS => "t-reshape-s: the element counts agree (∏D = ∏U)",
            _ => "t-reshape-g: the static products divide one another, either way",
        };
        self.gen.require(c, why);
        self.node(span, Some(target.clone()), rule, CheckStatus::Runtime)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shapex_migrate_syntax::parse;

    fn result(source: &str) -> (Option<TensorType>, Vec<String>) {
        let parsed = parse(source);
        assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
        let checked = check(&parsed.program);
        let item = parsed
            .program
            .items
            .iter()
            .position(|i| matches!(i, Item::Return(_)))
            .expect("a return");
        let codes = checked.diagnostics.iter().map(|d| d.code.clone()).collect();
        (checked.result(item).and_then(|n| n.ty.clone()), codes)
    }

    fn t(dims: &[Option<u64>]) -> TensorType {
        TensorType::tensor(dims.iter().map(|d| d.map_or(Dim::Dyn, Dim::Nat)))
    }

    #[test]
    fn tc1_and_tc2() {
        let (ty, codes) =
            result("x : TensorType([Dyn,2,Dyn]) y : TensorType([1,2,2]) return add(x, y)");
        assert_eq!(ty, Some(t(&[None, Some(2), Some(2)])));
        assert!(codes.is_empty());
        let (ty, codes) = result("x : Dyn y : TensorType([1,2]) return add(x, y)");
        assert_eq!(ty, Some(TensorType::Dyn));
        assert!(codes.is_empty());
    }

    #[test]
    fn reshape_case_table() {
        let r = |input: &str, target: &str| {
            result(&format!("x : {input}\nreturn reshape(x, {target})"))
        };
        // Dyn input: anything.
        assert_eq!(
            r("Dyn", "TensorType([2, 3])").0,
            Some(TensorType::of(&[2, 3]))
        );
        // Static both sides: equal products.
        assert!(r("TensorType([6])", "TensorType([2, 3])").1.is_empty());
        assert_eq!(
            r("TensorType([6])", "TensorType([4, 2])").1,
            ["mig.reshape"]
        );
        // Static input, one Dyn in the target: divisibility either way.
        assert!(r("TensorType([6])", "TensorType([2, Dyn])").1.is_empty());
        assert!(r("TensorType([2])", "TensorType([4, Dyn])").1.is_empty());
        assert_eq!(
            r("TensorType([6])", "TensorType([4, Dyn])").1,
            ["mig.reshape"]
        );
        // Dyn in the input, static target.
        assert!(r("TensorType([Dyn, 3])", "TensorType([2, 3])").1.is_empty());
        assert_eq!(
            r("TensorType([Dyn, 4])", "TensorType([2, 3])").1,
            ["mig.reshape"]
        );
        // Two Dyns in the input: t-reshape, even where the static dimensions (4) and
        // the target (6) do not divide one another.
        assert!(r("TensorType([Dyn, 4, Dyn])", "TensorType([6])")
            .1
            .is_empty());
        // Dyn on both sides: t-reshape.
        assert!(r("TensorType([Dyn, 4])", "TensorType([3, Dyn])")
            .1
            .is_empty());
        // Spec 004 §4.2 [I]: x : TensorType([Dyn]) reshaped to (2, 3).
        assert_eq!(
            r("TensorType([Dyn])", "TensorType([2, 3])").0,
            Some(TensorType::of(&[2, 3]))
        );
    }

    #[test]
    fn conv_matches_rank_4_and_checks_channels_and_kernel() {
        let (ty, codes) =
            result("x : TensorType([10, 2, 28, Dyn])\nreturn Conv2D(2, 8, (5, 3), x)");
        assert_eq!(ty, Some(t(&[Some(10), Some(8), Some(24), None])));
        assert!(codes.is_empty());
        // Dyn matches ▷⁴ with four Dyns (TC-4: Dyn ~ 2 and Dyn ~ 4).
        let (ty, _) = result("x : Dyn\nreturn Conv2D(4, 2, (2, 2), Conv2D(2, 4, (2, 2), x))");
        assert_eq!(ty, Some(t(&[None, Some(2), None, None])));
        // TC-3's rank-2 annotation cannot match ▷⁴.
        assert_eq!(
            result("x : TensorType([Dyn, Dyn])\nreturn Conv2D(2, 2, (2, 2), x)").1,
            ["mig.match"]
        );
        assert_eq!(
            result("x : TensorType([1, 3, 8, 8])\nreturn Conv2D(2, 2, (2, 2), x)").1,
            ["mig.conv.channels"]
        );
        assert_eq!(
            result("x : TensorType([1, 2, 8, 8])\nreturn Conv2D(2, 2, (9, 2), x)").1,
            ["mig.conv.kernel"]
        );
        // Conv2D(2, …) then Conv2D(4, …) on its output of 2 channels: the second fails.
        let (ty, codes) = result("x : Dyn\nreturn Conv2D(4, 2, (2, 2), Conv2D(2, 2, (2, 2), x))");
        assert_eq!((ty, codes), (None, vec!["mig.conv.channels".to_string()]));
    }

    #[test]
    fn errors_name_the_operands_types_and_do_not_cascade() {
        let source = "x : TensorType([2, 3])\ny : TensorType([4, 3])\nreturn reshape(add(x, y), TensorType([5]))";
        let parsed = parse(source);
        let checked = check(&parsed.program);
        assert_eq!(checked.diagnostics.len(), 1, "{:#?}", checked.diagnostics);
        let d = &checked.diagnostics[0];
        assert_eq!(d.code, "mig.add");
        assert!(
            d.message.contains("TensorType((2, 3))") && d.message.contains("TensorType((4, 3))"),
            "{}",
            d.message
        );
        assert_eq!(&source[d.span.start..d.span.end], "add(x, y)");
        // The reshape above the error has no type and no status of its own.
        let last = checked.nodes.last().unwrap();
        assert_eq!((last.ty.clone(), last.status), (None, CheckStatus::None));
    }

    #[test]
    fn unbound_and_duplicate_names() {
        let parsed = parse("x : Dyn\nx : TensorType([2])\nreturn add(x, z)");
        let checked = check(&parsed.program);
        let codes: Vec<&str> = checked
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert_eq!(codes, ["mig.duplicate", "mig.unbound"]);
        assert_eq!(checked.decls[0].ty, TensorType::Dyn);
        assert!(checked.decls[1].duplicate);
    }

    #[test]
    fn statuses_say_whether_a_run_time_check_remains() {
        let parsed =
            parse("x : TensorType([2, 3])\ny : TensorType([3])\nz : Dyn\nreturn add(add(x, y), z)");
        let checked = check(&parsed.program);
        let statuses: Vec<CheckStatus> = checked.nodes.iter().map(|n| n.status).collect();
        assert_eq!(
            statuses,
            [
                CheckStatus::None,
                CheckStatus::None,
                CheckStatus::Proven,
                CheckStatus::None,
                CheckStatus::Runtime
            ]
        );
    }
}
