//! The shape-tuple operators of Joisha Table 2, as case analyses over symbolic extents.
//!
//! Each rule lists its cases in the paper's selector order (the exclusive terms of the
//! closed form) with a guard and a result. θ is the disjunction of the guards. The shown
//! result is the first case whose guard the facts prove; failing that, the first case
//! in the rule's *generic* order (non-scalar operands first) that is not refuted, and its
//! guard becomes `assume`: what holds after the statement succeeds in that case. So a
//! symbolic `a*b` shows `<p1,q2>` with θ `(p2 == q1) ∨ α(a) ∨ α(b)` and assumes
//! `p2 == q1`, which is what makes the paper's Example 3 provable.

use super::tuple::{alpha, beta, is_empty_matrix, Shape, ShapeTuple};
use crate::Mode;
use shapex_dims::{Constraint, Dim, Facts, Truth};
use shapex_report::CheckStatus;

pub const SOURCE_PAPER: &str = "Joisha Table 2";
pub const SOURCE_EXTENSION: &str = "extension: MATLAB semantics";

/// Declares [`Rule`] and [`Rule::ALL`] from one list, so no rule can be left out of
/// the code registry (`shapex explain`).
macro_rules! rules {
    ($($(#[$doc:meta])* $rule:ident,)*) => {
        /// The shape rules by name: Joisha et al.'s Table 2 operators and the extensions
        /// MATLAB needs. A definite error's diagnostic code is `shape.` + [`Rule::code`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Rule {
            $($(#[$doc])* $rule,)*
        }

        impl Rule {
            /// Every rule, for the code registry (`shapex explain`).
            pub const ALL: &'static [Rule] = &[$(Rule::$rule,)*];
        }
    };
}

rules! {
    AssignIndex,
    Broadcast,
    /// A call of a function of the file: its checks are those of the callee's
    /// statements in the call's context (`values::contexts`).
    Call,
    /// The analysis gave up on a number too large to analyse ([`Outcome::capped`]);
    /// the report turns it into a `shape.capped` note.
    Capped,
    Cat,
    /// Operands of two integer classes (`int8(1) + int16(2)`): MATLAB and Octave
    /// combine integers only with integers of the same class or with non-integers.
    /// Not a shape rule: its code is `class.mixed` ([`Rule::diagnostic_code`]).
    ClassMixed,
    Colon,
    Conditional,
    Create,
    Delete,
    Diag,
    Dims,
    Elementwise,
    ElementwiseExpansion,
    /// A read of a field that a struct whose every field is known lacks (`s.b` of
    /// `s = struct('a', 1)`): MATLAB's "Reference to non-existent field".
    Field,
    /// Growth with fewer subscripts than the array has dimensions (`C(2,1) = x` on a
    /// 1×1×2 C).
    GrowAmbiguous,
    GrowLinear,
    Horzcat,
    Index,
    /// A matrix product or division of an integer array by a non-scalar array
    /// (`int32(A) * B`): MATLAB and Octave need a scalar operand. Its code is
    /// `class.integer-matrix`.
    IntegerMatrix,
    Mldivide,
    Mpower,
    Mrdivide,
    Mtimes,
    Permute,
    Reduce,
    Repmat,
    Reshape,
    Scalar,
    Square,
    Squeeze,
    /// `struct(name, {…}, name, {…})` with cells of other than one element whose
    /// sizes differ: MATLAB's struct array takes its size from them.
    Struct,
    Subscript,
    Transpose,
    Unary,
    Unknown,
    Vector,
    Vertcat,
    VertcatCharRows,
}

impl Rule {
    /// The name shown with the rule (`mtimes`, `elementwise (implicit expansion)`).
    pub fn name(self) -> &'static str {
        use Rule::*;
        match self {
            AssignIndex => "assign_index",
            Broadcast => "broadcast",
            Call => "call",
            Capped => "capped",
            Cat => "cat",
            ClassMixed => "integer classes",
            Colon => "colon",
            Conditional => "conditional",
            Create => "create",
            Delete => "delete",
            Diag => "diag",
            Dims => "dims",
            Elementwise => "elementwise",
            ElementwiseExpansion => "elementwise (implicit expansion)",
            Field => "field",
            GrowAmbiguous => "grow_ambiguous",
            GrowLinear => "grow_linear",
            Horzcat => "horzcat",
            Index => "index",
            IntegerMatrix => "integer matrix operation",
            Mldivide => "mldivide",
            Mpower => "mpower",
            Mrdivide => "mrdivide",
            Mtimes => "mtimes",
            Permute => "permute",
            Reduce => "reduce",
            Repmat => "repmat",
            Reshape => "reshape",
            Scalar => "scalar",
            Square => "square",
            Squeeze => "squeeze",
            Struct => "struct",
            Subscript => "subscript",
            Transpose => "transpose",
            Unary => "unary",
            Unknown => "unknown",
            Vector => "vector",
            Vertcat => "vertcat",
            VertcatCharRows => "vertcat (char rows: Octave pads, MATLAB fails)",
        }
    }

    /// The diagnostic code's suffix: the name, dotted where the name has a qualifier
    /// (`elementwise.expansion`), so codes never contain spaces.
    pub fn code(self) -> &'static str {
        match self {
            Rule::ElementwiseExpansion => "elementwise.expansion",
            Rule::VertcatCharRows => "vertcat.char-rows",
            Rule::ClassMixed => "class-mixed",
            Rule::IntegerMatrix => "integer-matrix",
            r => r.name(),
        }
    }

    /// Whether a failure under the rule is about the operands' classes, not their
    /// shapes.
    pub fn is_class_rule(self) -> bool {
        matches!(self, Rule::ClassMixed | Rule::IntegerMatrix)
    }

    /// The code of a definite error under the rule: `shape.` + [`Rule::code`] for a
    /// shape rule, `class.mixed` or `class.integer-matrix` for a class rule.
    pub fn diagnostic_code(self) -> String {
        match self {
            Rule::ClassMixed => "class.mixed".to_string(),
            Rule::IntegerMatrix => "class.integer-matrix".to_string(),
            r => format!("shape.{}", r.code()),
        }
    }

    /// What a statement under this rule needs, in words (the error messages say it).
    pub fn requirement(self) -> &'static str {
        use Rule::*;
        match self {
            Mtimes => {
                "the columns of the left operand to equal the rows of the right (or a scalar operand)"
            }
            Elementwise => "operands of the same shape, or a scalar operand",
            ElementwiseExpansion => "each dimension to agree or be 1 in one of the operands",
            Mpower => "a square matrix and a scalar",
            Transpose => "a 2-D operand",
            Mrdivide => "operands with the same number of columns (or a scalar divisor)",
            Mldivide => "operands with the same number of rows (or a scalar left operand)",
            Vertcat | VertcatCharRows => "operands with the same number of columns",
            Horzcat => "operands with the same number of rows",
            Cat => "operands that agree in every dimension but the one concatenated",
            Index => "subscripts within the array's bounds",
            AssignIndex => "the right-hand side to match the number of elements assigned",
            Subscript => "subscripts that are positive integers",
            GrowLinear => {
                "a linear subscript within numel of the array: only a vector (or []) grows through one subscript"
            }
            GrowAmbiguous => {
                "subscripts within the array's bounds, or no dimension past the subscripts: an array grows along an unambiguous dimension only"
            }
            Delete => "a deletion within bounds that leaves a rectangular array",
            Reshape => "the same number of elements before and after, and sizes that are not negative",
            Square => "a square matrix",
            Diag => "a 2-D operand (a vector or a matrix)",
            Call => "the called function's own checks to hold for these arguments",
            Field => "a field the struct has (every field it can have is known here)",
            Struct => {
                "cell values of one size (a cell of one element gives every element its element)"
            }
            ClassMixed => {
                "integer operands of one class (integers can only be combined with integers of the same class, or with doubles, singles, logicals and chars)"
            }
            IntegerMatrix => {
                "a scalar operand when an operand is an integer array (integer arrays are multiplied and divided as matrices only by a scalar, and raised to a matrix power only when both operands are scalars)"
            }
            _ => "a condition that cannot hold",
        }
    }

    /// Whether the rule has a conformance condition, so that a θ folded to true is a
    /// *proven* check rather than no condition at all (`zeros(3)` has none).
    pub fn has_condition(self) -> bool {
        use Rule::*;
        matches!(
            self,
            Elementwise
                | Call
                | ElementwiseExpansion
                | Mtimes
                | Mrdivide
                | Mldivide
                | Mpower
                | Transpose
                | Vertcat
                | Horzcat
                | Cat
                | Index
                | AssignIndex
                | GrowLinear
                | GrowAmbiguous
                | Subscript
                | Delete
                | Reshape
                | Square
                | Diag
        )
    }
}

/// Which rule produced an outcome, and where the rule comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuleInfo {
    pub rule: Rule,
    pub source: &'static str,
}

impl RuleInfo {
    pub fn paper(rule: Rule) -> RuleInfo {
        RuleInfo {
            rule,
            source: SOURCE_PAPER,
        }
    }

    pub fn extension(rule: Rule) -> RuleInfo {
        RuleInfo {
            rule,
            source: SOURCE_EXTENSION,
        }
    }

    pub fn name(self) -> &'static str {
        self.rule.name()
    }
}

/// The result of applying a shape rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub shape: Shape,
    /// The conformance condition θ over the operands' extents.
    pub theta: Constraint,
    /// `facts.ask(theta)`.
    pub status: Truth,
    /// Facts that hold after the statement succeeds (in the shown case).
    pub assume: Vec<Constraint>,
    pub rule: RuleInfo,
}

impl Outcome {
    /// An outcome with no condition.
    pub fn always(shape: Shape, rule: RuleInfo) -> Outcome {
        Outcome {
            shape,
            theta: Constraint::True,
            status: Truth::Proven,
            assume: vec![],
            rule,
        }
    }

    /// π: the operation always fails.
    pub fn illegal(theta: Constraint, rule: RuleInfo) -> Outcome {
        Outcome {
            shape: Shape::Illegal,
            theta,
            status: Truth::Refuted,
            assume: vec![],
            rule,
        }
    }

    /// ⊤: nothing is known about the result or the condition.
    pub fn unknown(rule: RuleInfo) -> Outcome {
        Outcome {
            shape: Shape::Unknown,
            theta: Constraint::Opaque("operand rank unknown".into()),
            status: Truth::Unknown,
            assume: vec![],
            rule,
        }
    }

    /// A number in the program asks a rule for more than the analysis represents (a
    /// rank past [`super::MAX_RANK`], a size vector of a billion extents): the shape is
    /// unknown and whether the statement conforms is left to run time, never proven or
    /// refuted. `what` says what was too large (θ reads `capped: {what}`); the report
    /// shows it as a note.
    pub fn capped(what: &str) -> Outcome {
        Outcome {
            shape: Shape::Unknown,
            theta: Constraint::Opaque(format!("capped: {what}")),
            status: Truth::Unknown,
            assume: vec![],
            rule: RuleInfo {
                rule: Rule::Capped,
                source: "analysis limit",
            },
        }
    }

    /// The outcome when a refutation may be excused (an operand that may be a cell, an
    /// object or a function handle): not a definite error, and nothing known of the
    /// result. Other outcomes are returned unchanged.
    pub fn excused(self) -> Outcome {
        if self.status != Truth::Refuted {
            return self;
        }
        // θ then no longer reads `false` beside a run-time check: what is left to run
        // time is whether an operand overloads the operation.
        Outcome {
            shape: Shape::Unknown,
            status: Truth::Unknown,
            theta: Constraint::Opaque(format!(
                "an operand is an object or cell that allows it (else {})",
                self.theta
            )),
            ..self
        }
    }

    /// The report's check status for this outcome.
    pub fn check(&self) -> CheckStatus {
        match (&self.theta, self.status) {
            (Constraint::True, _) => CheckStatus::None,
            (_, Truth::Proven) => CheckStatus::Proven,
            (_, Truth::Refuted) => CheckStatus::Error,
            (_, Truth::Unknown) => CheckStatus::Runtime,
        }
    }

    /// The facts after the statement: `facts` plus `assume`.
    pub fn facts_after(&self, facts: &Facts) -> Facts {
        let mut f = facts.clone();
        for c in &self.assume {
            f.assume(c);
        }
        f
    }
}

/// One exclusive term of a closed-form rule.
pub(crate) struct Case {
    pub guard: Constraint,
    pub shape: Shape,
}

pub(crate) fn case(guard: Constraint, shape: Shape) -> Case {
    Case { guard, shape }
}

/// Picks the shown case (see the module comment). `cases` is in paper order; `generic`
/// lists case indices in the order preferred when nothing is proven.
pub(crate) fn decide(
    cases: Vec<Case>,
    generic: &[usize],
    facts: &Facts,
    rule: RuleInfo,
) -> Outcome {
    // θ lists the generic case first: `(p2 == q1) ∨ α(a) ∨ α(b)` reads as the paper does.
    let order = generic
        .iter()
        .copied()
        .chain((0..cases.len()).filter(|i| !generic.contains(i)));
    let theta = Constraint::or(order.filter_map(|i| cases.get(i)).map(|c| c.guard.clone()));
    let status = facts.ask(&theta);
    if status == Truth::Refuted {
        return Outcome::illegal(theta, rule);
    }
    let truths: Vec<Truth> = cases.iter().map(|c| facts.ask(&c.guard)).collect();
    if let Some(i) = truths.iter().position(|t| t.is_proven()) {
        return Outcome {
            shape: cases[i].shape.normalize(facts),
            theta,
            status,
            assume: vec![],
            rule,
        };
    }
    // No case is proven: after the check passes, any case the facts leave open may be
    // the one that held (a symbolic extent may be 1). Keep them all.
    let open: Vec<(Constraint, Shape)> = generic
        .iter()
        .copied()
        .chain((0..cases.len()).filter(|i| !generic.contains(i)))
        .filter(|&i| i < cases.len() && !truths[i].is_refuted())
        .map(|i| (cases[i].guard.clone(), cases[i].shape.clone()))
        .collect();
    let (shape, assume) = open_cases(&open, facts);
    let after = facts.with(&Constraint::and(assume.iter().cloned()));
    Outcome {
        shape: shape.normalize(&after),
        theta,
        status,
        assume,
        rule,
    }
}

/// The stem of placeholder extents: an outcome whose open cases disagree on an extent
/// names it `⟂case…`, and the analysis that binds the result renames it to a fresh
/// symbol of its own (`values::transfer`), so rules stay free of naming state.
pub const PLACEHOLDER: &str = "⟂case";

/// The result when several cases stay open, each with its guard and shape: extents on
/// which every open case agrees (under its own guard) are kept, the others become
/// placeholders; what is assumed after success is the disjunction, over the open
/// cases, of the guard and the placeholders' values in that case.
pub(crate) fn open_cases(open: &[(Constraint, Shape)], facts: &Facts) -> (Shape, Vec<Constraint>) {
    match open {
        [] => return (Shape::Illegal, vec![Constraint::False]),
        [(guard, shape)] => {
            let after = facts.with(guard);
            return (shape.normalize(&after), guard.conjuncts());
        }
        _ => {}
    }
    let any_guard = Constraint::or(open.iter().map(|(g, _)| g.clone()));
    let tuples: Option<Vec<(Constraint, Vec<Dim>, Facts)>> = open
        .iter()
        .map(|(g, sh)| {
            let after = facts.with(g);
            let t = sh.normalize(&after).as_tuple()?.clone();
            Some((g.clone(), t.dims().to_vec(), after))
        })
        .collect();
    let Some(tuples) = tuples else {
        return (Shape::Unknown, vec![any_guard]);
    };
    let rank = tuples.iter().map(|t| t.1.len()).max().unwrap_or(2);
    let extent = |t: &(Constraint, Vec<Dim>, Facts), k: usize| -> Dim {
        t.2.normalize(&t.1.get(k).cloned().unwrap_or_else(Dim::one))
    };
    let tag = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        open.iter()
            .for_each(|(g, sh)| (g, sh.display(super::Notation::Paper)).hash(&mut h));
        h.finish() & 0xffff_ffff
    };
    // An extent every open case agrees on, each under its own guard: one of the
    // cases' own extents (`e = d - a` keeps d's extents: in the case where a is scalar
    // they are d's, and in the others d's equal a's).
    let agreed = |k: usize| -> Option<Dim> {
        let raw = |t: &(Constraint, Vec<Dim>, Facts)| t.1.get(k).cloned().unwrap_or_else(Dim::one);
        let first = extent(&tuples[0], k);
        if tuples.iter().all(|t| extent(t, k) == first) {
            return Some(first);
        }
        tuples.iter().map(raw).find(|candidate| {
            tuples
                .iter()
                .all(|t| t.2.ask(&Constraint::eq(&raw(t), candidate)).is_proven())
        })
    };
    let mut dims = Vec::new();
    let mut differing = Vec::new();
    for k in 0..rank {
        if let Some(d) = agreed(k) {
            dims.push(d);
        } else {
            let p = Dim::sym(&format!("{PLACEHOLDER}{tag:x}.{k}"));
            differing.push((k, p.clone()));
            dims.push(p);
        }
    }
    if differing.is_empty() {
        return (Shape::tuple(dims), vec![any_guard]);
    }
    let alternatives = tuples.iter().map(|t| {
        Constraint::and(
            std::iter::once(t.0.clone()).chain(
                differing
                    .iter()
                    .map(|(k, p)| Constraint::eq(p, &extent(t, *k))),
            ),
        )
    });
    (Shape::tuple(dims), vec![Constraint::or(alternatives)])
}

/// Normalises operands and handles π (annihilator) and ⊤ before a rule's cases.
fn binary(
    a: &Shape,
    b: &Shape,
    facts: &Facts,
    rule: RuleInfo,
    body: impl FnOnce(&ShapeTuple, &ShapeTuple) -> Outcome,
) -> Outcome {
    match (a.normalize(facts), b.normalize(facts)) {
        (Shape::Illegal, _) | (_, Shape::Illegal) => Outcome::illegal(Constraint::False, rule),
        (Shape::Unknown, _) | (_, Shape::Unknown) => Outcome::unknown(rule),
        (Shape::Tuple(s), Shape::Tuple(t)) => body(&s, &t),
    }
}

fn eq_all(a: &[Dim], b: &[Dim]) -> Constraint {
    Constraint::and(a.iter().zip(b).map(|(x, y)| Constraint::eq(x, y)))
}

/// `a*b` (eqs. 7, 8).
pub fn mtimes(a: &Shape, b: &Shape, facts: &Facts) -> Outcome {
    let rule = RuleInfo::paper(Rule::Mtimes);
    binary(a, b, facts, rule, |s, t| {
        let m = s.rank().max(t.rank());
        let mut prod = vec![s.extent(0), t.extent(1)];
        prod.resize(m, Dim::one());
        let cases = vec![
            case(alpha(t), Shape::Tuple(s.clone())),
            case(alpha(s), Shape::Tuple(t.clone())),
            case(
                Constraint::and([beta(s), beta(t), Constraint::eq(&s.extent(1), &t.extent(0))]),
                Shape::tuple(prod),
            ),
        ];
        decide(cases, &[2, 1, 0], facts, rule)
    })
}

/// The element-wise binary operators (`+ - .* ./ .\ .^`, comparisons, `& |`, `atan2`,
/// `max`, `min`, `bit*`): eqs. (13), (14) in paper mode; implicit expansion in modern
/// mode (each extent equal, or one of them 1).
pub fn elementwise(a: &Shape, b: &Shape, mode: Mode, facts: &Facts) -> Outcome {
    match mode {
        Mode::Paper => {
            let rule = RuleInfo::paper(Rule::Elementwise);
            binary(a, b, facts, rule, |s, t| {
                let m = s.rank().max(t.rank());
                let cases = vec![
                    case(alpha(t), Shape::Tuple(s.clone())),
                    case(alpha(s), Shape::Tuple(t.clone())),
                    case(
                        eq_all(&s.promote(m), &t.promote(m)),
                        Shape::Tuple(t.clone()),
                    ),
                ];
                decide(cases, &[2, 1, 0], facts, rule)
            })
        }
        Mode::Modern => {
            let rule = RuleInfo::extension(Rule::ElementwiseExpansion);
            binary(a, b, facts, rule, |s, t| broadcast(s, t, facts, rule))
        }
    }
}

/// Implicit expansion: extent by extent, decided like a rule with three cases.
fn broadcast(s: &ShapeTuple, t: &ShapeTuple, facts: &Facts, rule: RuleInfo) -> Outcome {
    let m = s.rank().max(t.rank());
    let one = Dim::one();
    let mut theta = Vec::new();
    let mut dims = Vec::new();
    let mut assume = Vec::new();
    for (k, (p, q)) in s.promote(m).into_iter().zip(t.promote(m)).enumerate() {
        let cases = [
            (Constraint::eq(&p, &q), p.clone()),
            (Constraint::eq(&q, &one), p.clone()),
            (Constraint::eq(&p, &one), q.clone()),
        ];
        theta.push(Constraint::or(cases.iter().map(|c| c.0.clone())));
        let truths: Vec<Truth> = cases.iter().map(|c| facts.ask(&c.0)).collect();
        if let Some(i) = truths.iter().position(|t| t.is_proven()) {
            dims.push(cases[i].1.clone());
            continue;
        }
        // Every case left open may be the one that holds: keep them all.
        let open: Vec<(Constraint, Shape)> = cases
            .iter()
            .zip(&truths)
            .filter(|(_, t)| !t.is_refuted())
            .map(|(c, _)| (c.0.clone(), Shape::tuple(vec![c.1.clone(), Dim::one()])))
            .collect();
        if open.is_empty() {
            dims.push(p);
            continue;
        }
        let (shape, more) = open_cases(&open, facts);
        let d = shape.as_tuple().map_or(p.clone(), |t| t.extent(0));
        // Placeholders are per extent: name them apart.
        let d = d.substitute(&|a| match a {
            shapex_dims::Atom::Sym(n) if n.name().starts_with(PLACEHOLDER) => {
                Some(Dim::sym(&format!("{n}/{k}")))
            }
            _ => None,
        });
        let more = more.iter().map(|c| {
            c.map_dims(&|x| {
                x.substitute(&|a| match a {
                    shapex_dims::Atom::Sym(n) if n.name().starts_with(PLACEHOLDER) => {
                        Some(Dim::sym(&format!("{n}/{k}")))
                    }
                    _ => None,
                })
            })
        });
        assume.extend(more);
        dims.push(d);
    }
    let theta = Constraint::and(theta);
    let status = facts.ask(&theta);
    if status == Truth::Refuted {
        return Outcome::illegal(theta, rule);
    }
    let after = facts.with(&Constraint::and(assume.iter().cloned()));
    Outcome {
        shape: Shape::tuple(dims).normalize(&after),
        theta,
        status,
        assume,
        rule,
    }
}

/// `a^b` (eqs. 16–18): one operand scalar, the other a square matrix; R(c) = 2.
pub fn mpower(a: &Shape, b: &Shape, facts: &Facts) -> Outcome {
    let rule = RuleInfo::paper(Rule::Mpower);
    binary(a, b, facts, rule, |s, t| {
        let square =
            |x: &ShapeTuple| Constraint::and([beta(x), Constraint::eq(&x.extent(0), &x.extent(1))]);
        let cases = vec![
            case(
                Constraint::and([alpha(t), square(s)]),
                Shape::tuple(s.promote(2)),
            ),
            case(
                Constraint::and([alpha(s), square(t)]),
                Shape::tuple(t.promote(2)),
            ),
        ];
        decide(cases, &[0, 1], facts, rule)
    })
}

/// `a'` and `a.'` (eqs. 20–22): defined on matrices only.
pub fn transpose(a: &Shape, facts: &Facts) -> Outcome {
    let rule = RuleInfo::paper(Rule::Transpose);
    match a.normalize(facts) {
        Shape::Illegal => Outcome::illegal(Constraint::False, rule),
        Shape::Unknown => Outcome::unknown(rule),
        Shape::Tuple(s) => {
            let swapped = Shape::tuple(vec![s.extent(1), s.extent(0)]);
            decide(vec![case(beta(&s), swapped)], &[0], facts, rule)
        }
    }
}

/// Unary shape-preserving operators (∇: `-a`, `~a`, `sin`, `cumsum`, `fft`, …).
pub fn unary(a: &Shape, facts: &Facts) -> Outcome {
    let rule = RuleInfo::paper(Rule::Unary);
    match a.normalize(facts) {
        Shape::Illegal => Outcome::illegal(Constraint::False, rule),
        s => Outcome::always(s, rule),
    }
}

/// `a/b` with the corrected θ of spec §2.5:
/// `α(t) ∨ (α(s) ∧ ¬β(t)) ∨ (β(s) ∧ β(t) ∧ p2 == q2)`; (m×n)/(k×n) → m×k.
pub fn mrdivide(a: &Shape, b: &Shape, facts: &Facts) -> Outcome {
    let rule = RuleInfo::paper(Rule::Mrdivide);
    binary(a, b, facts, rule, |s, t| {
        let m = s.rank().max(t.rank());
        let mut quot = vec![s.extent(0), t.extent(0)];
        quot.resize(m, Dim::one());
        let cases = vec![
            case(alpha(t), Shape::Tuple(s.clone())),
            case(
                Constraint::and([alpha(s), beta(t).not()]),
                Shape::Tuple(t.clone()),
            ),
            case(
                Constraint::and([beta(s), beta(t), Constraint::eq(&s.extent(1), &t.extent(1))]),
                Shape::tuple(quot),
            ),
        ];
        decide(cases, &[2, 0, 1], facts, rule)
    })
}

/// `a\b` with the corrected θ of spec §2.5:
/// `α(s) ∨ (α(t) ∧ ¬β(s)) ∨ (β(s) ∧ β(t) ∧ p1 == q1)`; (m×n)\(m×k) → n×k.
pub fn mldivide(a: &Shape, b: &Shape, facts: &Facts) -> Outcome {
    let rule = RuleInfo::paper(Rule::Mldivide);
    binary(a, b, facts, rule, |s, t| {
        let m = s.rank().max(t.rank());
        let mut quot = vec![s.extent(1), t.extent(1)];
        quot.resize(m, Dim::one());
        let cases = vec![
            case(alpha(s), Shape::Tuple(t.clone())),
            case(
                Constraint::and([alpha(t), beta(s).not()]),
                Shape::Tuple(s.clone()),
            ),
            case(
                Constraint::and([beta(s), beta(t), Constraint::eq(&s.extent(0), &t.extent(0))]),
                Shape::tuple(quot),
            ),
        ];
        decide(cases, &[2, 0, 1], facts, rule)
    })
}

/// Concatenation of two operands along 0-based dimension `d` (eqs. 31–36 for d = 0, 1):
/// every other extent must match and extent `d` is the sum.
///
/// MATLAB (5 and current) skips a `[]` (0×0) operand, which the paper's formula does
/// not; that exception is applied here in both modes and reported as an extension
/// (note: it makes `[]` an identity, unlike Table 3's "no identity" entry).
pub fn cat_pair(d: usize, a: &Shape, b: &Shape, facts: &Facts) -> Outcome {
    let name = match d {
        0 => Rule::Vertcat,
        1 => Rule::Horzcat,
        _ => Rule::Cat,
    };
    let rule = if d < 2 {
        RuleInfo::paper(name)
    } else {
        RuleInfo::extension(name)
    };
    binary(a, b, facts, rule, |s, t| {
        let m = s.rank().max(t.rank()).max(d + 1);
        let (sp, tp) = (s.promote(m), t.promote(m));
        let others = |v: &[Dim]| -> Vec<Dim> {
            v.iter()
                .enumerate()
                .filter(|(i, _)| *i != d)
                .map(|(_, x)| x.clone())
                .collect()
        };
        let mut joined = sp.clone();
        joined[d] = sp[d].add(&tp[d]);
        let (es, et) = (
            facts.ask(&is_empty_matrix(s)),
            facts.ask(&is_empty_matrix(t)),
        );
        if es.is_proven() {
            return Outcome::always(Shape::Tuple(t.clone()), RuleInfo::extension(name));
        }
        if et.is_proven() {
            return Outcome::always(Shape::Tuple(s.clone()), RuleInfo::extension(name));
        }
        let generic = eq_all(&others(&sp), &others(&tp));
        // The `[]` alternatives only widen θ where they can matter: when the generic
        // case is not already proven and the operand may be `[]`.
        let widen = !facts.ask(&generic).is_proven();
        let mut cases = vec![case(generic, Shape::tuple(joined))];
        if widen && !es.is_refuted() {
            cases.push(case(is_empty_matrix(s), Shape::Tuple(t.clone())));
        }
        if widen && !et.is_refuted() {
            cases.push(case(is_empty_matrix(t), Shape::Tuple(s.clone())));
        }
        let order: Vec<usize> = (0..cases.len()).collect();
        decide(cases, &order, facts, rule)
    })
}

/// `[a; b; …]`: left fold of `cat_pair(0, …)` (safe by associativity, Table 3).
pub fn vertcat(parts: &[Shape], facts: &Facts) -> Outcome {
    fold_cat(0, parts, facts)
}

/// `[a, b, …]`: left fold of `cat_pair(1, …)`.
pub fn horzcat(parts: &[Shape], facts: &Facts) -> Outcome {
    fold_cat(1, parts, facts)
}

/// Left fold; later steps see the facts assumed by earlier ones.
pub(crate) fn fold_cat(d: usize, parts: &[Shape], facts: &Facts) -> Outcome {
    let name = match d {
        0 => Rule::Vertcat,
        1 => Rule::Horzcat,
        _ => Rule::Cat,
    };
    let Some((first, rest)) = parts.split_first() else {
        return Outcome::always(Shape::empty(), RuleInfo::extension(name));
    };
    let mut acc = Outcome::always(first.normalize(facts), RuleInfo::paper(name));
    let mut local = facts.clone();
    let mut thetas = Vec::new();
    for p in rest {
        let step = cat_pair(d, &acc.shape, p, &local);
        local = step.facts_after(&local);
        thetas.push(step.theta.clone());
        let mut assume = std::mem::take(&mut acc.assume);
        assume.extend(step.assume);
        let status = match (acc.status, step.status) {
            (Truth::Refuted, _) | (_, Truth::Refuted) => Truth::Refuted,
            (Truth::Proven, Truth::Proven) => Truth::Proven,
            _ => Truth::Unknown,
        };
        acc = Outcome {
            shape: step.shape,
            theta: Constraint::True,
            status,
            assume,
            rule: if step.rule.source == SOURCE_EXTENSION {
                step.rule
            } else {
                acc.rule
            },
        };
    }
    acc.theta = Constraint::and(thetas);
    acc
}
