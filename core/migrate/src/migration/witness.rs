//! Witnesses (issue #26 item 3) for both gradual syntaxes: for each statement with a
//! run-time check or a definite error, sizes of the annotations' `Dyn` positions
//! (`x[2]`) under which it fails, and sizes under which it passes.
//!
//! Gen over the declarations as annotated says what each operation needs, in the
//! order the operations run. Those requirements are *implied* by success
//! ([`crate::gen`]): an operation whose requirement is false fails. So sizes that
//! satisfy what runs before an operation and falsify its requirement fail there, and
//! `fails` names only the sizes the requirement depends on. Both models are then
//! substituted into the declarations and re-checked by the gradual checker, which must
//! report its first error inside the statement (`fails`) or none at all (`passes`); a
//! model the checker does not confirm is dropped, so a witness is never only the
//! solver's word.

use super::{position, rank_fixed, Migration};
use crate::gen::Origin;
use crate::types::{Dim, TensorType};
use shapex_dims::{satisfy, witness, Constraint, Dim as Poly, Facts, Model};
use shapex_report::{CheckStatus, StatementReport, Witness};
use shapex_text::{Fix, LineIndex, Range, Severity, Span};
use std::collections::BTreeMap;

/// Statements witnessed per analysis: each costs a few solver runs and re-checks.
const MAX_STATEMENTS: usize = 24;
/// Search nodes for completing a model to every size of the declarations.
const NODES: u32 = 400;

impl Migration<'_> {
    /// Fills `StatementReport::witness` of every run-time check and definite error in
    /// `statements` of the program `source`.
    pub fn witnesses(&self, source: &str, statements: &mut [StatementReport]) {
        let (gen, given) = self.as_annotated();
        let ops = gen.required();
        let positions = self.positions();
        let given: Vec<Constraint> = given.into_iter().map(|o| o.constraint).collect();
        let index = LineIndex::new(source);
        let wanted = statements
            .iter_mut()
            .filter(|s| matches!(s.check, CheckStatus::Runtime | CheckStatus::Error));
        for s in wanted.take(MAX_STATEMENTS) {
            let w = self.witness_of(s, &ops, &given, &positions);
            s.witness = w.map(|(mut w, fails_types)| {
                let line = Range::of(s.span, &index).line;
                w.repro = fails_types.and_then(|t| self.repro(source, &t, line, s.check));
                w
            });
        }
    }

    /// The statement's witness, with the declarations' types its `fails` re-checked
    /// under (for a repro).
    fn witness_of(
        &self,
        s: &StatementReport,
        ops: &[Origin],
        given: &[Constraint],
        positions: &[Vec<Option<String>>],
    ) -> Option<(Witness, Option<Vec<TensorType>>)> {
        let inside = |o: &Origin| o.span.start >= s.span.start && o.span.end <= s.span.end;
        let first = ops.iter().position(inside);
        // What runs before the statement; for one without requirements of its own
        // (a definite error over static sizes), what is written before it.
        let before = first.unwrap_or_else(|| {
            ops.iter()
                .take_while(|o| o.span.start < s.span.start)
                .count()
        });
        let prefix = |k: usize| -> Vec<Constraint> {
            let ran = ops[..k].iter().map(|o| o.constraint.clone());
            ran.chain(given.iter().cloned()).collect()
        };
        let mut fails = None;
        let goals: Vec<(usize, Constraint)> = match s.check {
            CheckStatus::Error => vec![(before, Constraint::False)],
            _ => ops
                .iter()
                .enumerate()
                .filter(|(_, o)| inside(o))
                .map(|(k, o)| (k, o.constraint.clone()))
                .collect(),
        };
        for (k, theta) in goals {
            let known = prefix(k);
            let Some(model) = witness(&Facts::from_constraints(&known), &theta).fails else {
                continue;
            };
            let mut set = known;
            set.push(theta.not());
            let Some(types) = self.complete(&set, &model, positions) else {
                continue;
            };
            if self.first_error_in(&types, s.span) {
                let named = match s.check {
                    // It fails whatever the sizes.
                    CheckStatus::Error => BTreeMap::new(),
                    _ => declared(&model),
                };
                fails = Some((named, types));
                break;
            }
        }
        let last = ops.iter().rposition(inside);
        let passes = match (s.check, first, last) {
            (CheckStatus::Runtime, Some(first), Some(last)) => self.passing(
                s.span,
                (&ops[..first], &ops[first..=last]),
                given,
                positions,
            ),
            _ => None,
        };
        if fails.is_none() && passes.is_none() {
            return None;
        }
        let (fails, types) = fails.unzip();
        Some((
            Witness {
                fails,
                passes,
                repro: None,
            },
            types,
        ))
    }

    /// Sizes under which the statement passes: a model of what runs before it
    /// (`ran`) and of its own requirements (`own`), under which the checker finds no
    /// error in the statement nor at an operation that runs before it. Not for a
    /// program with an error as annotated, which may come first whatever the sizes.
    fn passing(
        &self,
        span: Span,
        (ran, own): (&[Origin], &[Origin]),
        given: &[Constraint],
        positions: &[Vec<Option<String>>],
    ) -> Option<BTreeMap<String, i64>> {
        let annotated = self.subject.errors();
        if annotated.iter().any(|d| d.severity == Severity::Error) {
            return None;
        }
        let mut set: Vec<Constraint> = ran
            .iter()
            .chain(own)
            .map(|o| o.constraint.clone())
            .collect();
        set.extend(given.iter().cloned());
        let types = self.complete(&set, &Model::default(), positions)?;
        let errors = self.subject.diagnostics_under(types.clone());
        let within =
            |s: Span, d: &shapex_text::Diagnostic| d.span.start >= s.start && d.span.end <= s.end;
        let earlier =
            |d: &shapex_text::Diagnostic| within(span, d) || ran.iter().any(|o| within(o.span, d));
        if errors
            .iter()
            .any(|d| d.severity == Severity::Error && earlier(d))
        {
            return None;
        }
        Some(sizes(&types, positions))
    }

    /// Whether the checker's first error with declarations of `types` is in `span`.
    fn first_error_in(&self, types: &[TensorType], span: Span) -> bool {
        let diagnostics = self.subject.diagnostics_under(types.to_vec());
        let first = diagnostics.iter().find(|d| d.severity == Severity::Error);
        first.is_some_and(|d| d.span.start >= span.start && d.span.end <= span.end)
    }

    /// The declarations' types with every `Dyn` position a size: `model`'s where it
    /// has one, the others from a model of `set` that keeps `model`'s values (each
    /// at least 1 where that can be), else 1. `None` when `set` has no such model.
    fn complete(
        &self,
        set: &[Constraint],
        model: &Model,
        positions: &[Vec<Option<String>>],
    ) -> Option<Vec<TensorType>> {
        let mut pinned: Vec<Constraint> = set.to_vec();
        pinned.extend(
            model
                .iter()
                .map(|(s, v)| Constraint::eq(&Poly::extent_of(s), &Poly::known(v))),
        );
        let names = positions.iter().flatten().flatten();
        let positive: Vec<Constraint> = names
            .map(|n| Constraint::le(&Poly::one(), &Poly::sym(n)))
            .collect();
        let mut plain = pinned.clone();
        plain.extend(positive);
        let full = satisfy(&plain, NODES).or_else(|| satisfy(&pinned, NODES))?;
        let value = |n: &str| {
            let v = full.iter().find(|(s, _)| s.name() == n).map(|(_, v)| v);
            v.unwrap_or(1)
        };
        let types = self
            .inputs()
            .iter()
            .zip(positions)
            .map(|((_, t), names)| match (t.dims(), names.is_empty()) {
                (None, true) => TensorType::Dyn,
                (dims, _) => TensorType::Tensor(
                    names
                        .iter()
                        .enumerate()
                        .map(|(j, n)| match n {
                            Some(n) => Dim::Nat(value(n).max(0) as u64),
                            None => dims.map_or(Dim::Dyn, |d| d[j]),
                        })
                        .collect(),
                ),
            })
            .collect();
        Some(types)
    }

    /// Per declaration, per position, the unknown's name where the annotation has
    /// `Dyn` (a whole `Dyn` has the rank the user's constraints fix, or none).
    fn positions(&self) -> Vec<Vec<Option<String>>> {
        self.inputs()
            .iter()
            .map(|(x, t)| match t {
                TensorType::Tensor(dims) => dims
                    .iter()
                    .enumerate()
                    .map(|(j, d)| d.is_dyn().then(|| position(x, j)))
                    .collect(),
                TensorType::Dyn => (0..rank_fixed(x, self.user).unwrap_or(0))
                    .map(|j| Some(position(x, j)))
                    .collect(),
            })
            .collect()
    }

    /// The edit that appends a call of the program on inputs of `types` (the
    /// language's own line, where it has one) after the program. The calculus does
    /// not run: a run-time check's repro there writes `types` into the declarations,
    /// under which the checker's first error is in the statement (the re-check that
    /// kept the witness), so the check becomes that definite error.
    fn repro(
        &self,
        source: &str,
        types: &[TensorType],
        line: u32,
        check: CheckStatus,
    ) -> Option<Fix> {
        if !self.subject.runs() {
            let title = format!(
                "write these sizes into {} (line {line} then fails)",
                self.subject.declared()
            );
            return (check == CheckStatus::Runtime)
                .then(|| crate::subject::annotation_fix(source, self.subject, types, title))
                .flatten();
        }
        let call = self.subject.call(types)?;
        if !runs_in_python(source) {
            return None;
        }
        let end = source.len();
        let sep = if source.ends_with('\n') { "" } else { "\n" };
        Some(Fix::new(
            "write these sizes into the code as a repro",
            Span::new(end, end),
            format!(
                "{sep}\n# Shape Explorer's witness: line {line} fails with these sizes.\n{call}\n"
            ),
        ))
    }
}

/// Whether Python runs the file up to the repro's call: it imports `torch`, and the
/// annotations' `TensorType` and `Dyn`, which Python evaluates when it defines
/// `forward`, are imported (`from torch.fx.tensor_type import Dyn, TensorType`) or
/// left unevaluated (`from __future__ import annotations`). The paper's listings use
/// them without an import: a repro there would stop at a `NameError`.
fn runs_in_python(source: &str) -> bool {
    let imports: Vec<&str> = source
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("import ") || l.starts_with("from "))
        .collect();
    let torch = imports
        .iter()
        .any(|l| *l == "import torch" || l.starts_with("import torch "));
    let lazy = imports.contains(&"from __future__ import annotations");
    let defined = |name: &str| {
        !source.contains(name)
            || imports
                .iter()
                .any(|l| l.split([' ', ',']).any(|w| w == name))
    };
    torch && (lazy || (defined("TensorType") && defined("Dyn")))
}

/// The model's values of the declarations' positions (not Gen's fresh unknowns,
/// `#1`, which the positions determine).
fn declared(model: &Model) -> BTreeMap<String, i64> {
    model
        .iter()
        .filter(|(s, _)| !s.name().starts_with('#'))
        .map(|(s, v)| (s.name().to_string(), v))
        .collect()
}

/// Every `Dyn` position's size in `types`, by its unknown's name.
fn sizes(types: &[TensorType], positions: &[Vec<Option<String>>]) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for (t, names) in types.iter().zip(positions) {
        let Some(dims) = t.dims() else { continue };
        for (d, n) in dims.iter().zip(names) {
            if let (Dim::Nat(v), Some(n)) = (d, n) {
                out.insert(n.clone(), *v as i64);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::language::{Migrate, ID};
    use shapex_report::{CheckStatus, Language, Options, Report, StatementReport};

    fn analyze(source: &str) -> Report {
        let mut options = Options::new(ID);
        options.witness = true;
        Migrate::new().analyze(source, &options)
    }

    fn on_line(report: &Report, line: u32) -> &StatementReport {
        let s = report.statements.iter().find(|s| s.range.line == line);
        s.unwrap_or_else(|| panic!("no statement on line {line}: {:?}", report.statements))
    }

    fn sizes(m: &std::collections::BTreeMap<String, i64>) -> String {
        shapex_report::Witness::sizes(m)
    }

    #[test]
    fn listing2_each_convolution_fails_without_its_channels_and_the_second_never_passes() {
        // Migeed et al. 2024 §2, Listing 2: conv1 needs x[1] == 2, conv2 x[1] == 4.
        let src = include_str!("../../../../tests/fixtures/py/listing2_conv.py");
        let report = analyze(src);
        let first = on_line(&report, 14);
        assert_eq!(first.check, CheckStatus::Runtime);
        assert_eq!(
            first.condition.as_deref(),
            Some("x[1] == 2 ∧ 0 ≤ x[2]-2 ∧ 0 ≤ x[3]-2")
        );
        let w = first.witness.as_ref().expect("a witness");
        assert_ne!(w.fails.as_ref().expect("fails")["x[1]"], 2);
        assert_eq!(w.passes.as_ref().expect("passes")["x[1]"], 2);
        // The listing uses `TensorType` without importing it: Python would stop there.
        assert_eq!(w.repro, None);
        // The second runs after the first: passing needs x[1] == 2 and == 4.
        let second = on_line(&report, 15).witness.as_ref().expect("a witness");
        assert_eq!(second.fails.as_ref().map(|f| f["x[1]"]), Some(2));
        assert_eq!(second.passes, None);
    }

    #[test]
    fn a_definite_error_fails_whatever_the_sizes() {
        let src = include_str!("../../../../tests/fixtures/py/conv_chain.py");
        let report = analyze(src);
        let error = on_line(&report, 16);
        assert_eq!(error.check, CheckStatus::Error);
        let w = error.witness.as_ref().expect("a witness");
        assert_eq!(w.fails.as_ref().map(sizes).as_deref(), Some("any sizes"));
        assert_eq!(w.passes, None);
        // The repro calls the model on tensors that pass conv1 and fail conv2.
        let repro = w.repro.as_ref().expect("a repro");
        assert_eq!(repro.span.start, src.len());
        assert!(
            repro
                .replacement
                .contains("ConvExample()(torch.ones(1, 2, 2, 2))"),
            "{repro:?}"
        );
    }

    #[test]
    fn a_repro_only_where_python_defines_the_annotations() {
        use super::runs_in_python;
        let body = "class M:\n    def forward(self, x: TensorType((Dyn, 2))):\n        pass\n";
        assert!(!runs_in_python(&format!("import torch\n{body}")));
        let imported = "import torch\nfrom torch.fx.tensor_type import Dyn, TensorType\n";
        assert!(runs_in_python(&format!("{imported}{body}")));
        let lazy = "from __future__ import annotations\nimport torch\n";
        assert!(runs_in_python(&format!("{lazy}{body}")));
        assert!(!runs_in_python(body), "no torch");
        assert!(runs_in_python("import torch\nclass M:\n    pass\n"));
    }

    #[test]
    fn the_calculus_broadcast_fails_on_a_third_extent_other_than_1_or_2() {
        // Appendix B: y's last extent is 2, so x's must be 1 or 2.
        let src = include_str!("../../../../tests/fixtures/py/core/tc1_broadcast.gt");
        let report = analyze(src);
        let ret = report
            .statements
            .iter()
            .find(|s| s.kind == "return")
            .unwrap();
        let w = ret.witness.as_ref().expect("a witness");
        let fails = w.fails.as_ref().expect("fails")["x[2]"];
        assert!(![1, 2].contains(&fails), "{w:?}");
        let passes = w.passes.as_ref().expect("passes")["x[2]"];
        assert!([1, 2].contains(&passes), "{w:?}");
        // The calculus does not run: the repro writes the sizes into the declarations,
        // and the check becomes a definite error there.
        let repro = w.repro.as_ref().expect("a repro");
        let mut written = src.to_string();
        written.replace_range(repro.span.start..repro.span.end, &repro.replacement);
        let again = analyze(&written);
        let ret_again = again
            .statements
            .iter()
            .find(|s| s.kind == "return")
            .unwrap();
        assert_eq!(ret_again.check, CheckStatus::Error, "{written}");
        let decls = written.lines().find(|l| l.starts_with("x :")).unwrap();
        assert!(
            !decls.split('#').next().unwrap().contains("Dyn"),
            "every size written: {decls}"
        );
    }

    #[test]
    fn a_definite_error_of_the_calculus_has_no_repro() {
        let src = include_str!("../../../../tests/fixtures/py/core/add_incompatible.gt");
        let report = analyze(src);
        let errors = report
            .statements
            .iter()
            .filter(|s| s.check == CheckStatus::Error);
        for s in errors {
            assert_eq!(s.witness.as_ref().and_then(|w| w.repro.as_ref()), None);
        }
    }

    #[test]
    fn no_witness_unless_asked() {
        let src = include_str!("../../../../tests/fixtures/py/listing2_conv.py");
        let report = Migrate::new().analyze(src, &Options::new(ID));
        assert!(report.statements.iter().all(|s| s.witness.is_none()));
    }
}
