//! Migeed et al.'s gradual tensor calculus as a Shape Explorer language plug-in
//! ([`Migrate`]): the core calculus parsed by `shapex-migrate-syntax`, typed by
//! [`crate::check`], folded into a [`Report`] — the diagnostics, one statement per
//! declaration and `return` with its type as the def (the editor shows it beside the
//! line), and the `types` view: a table of every name and subexpression with its type
//! and the rule that gave it.

use crate::calculus::Calculus;
use crate::check::{check, Checked, Node};
use crate::types::{Dim, TensorType};
use shapex_migrate_syntax::ast::{Item, Program};
use shapex_report::view::{Cell, CellValue, Payload, Row, Table, View, ViewSpec};
use shapex_report::{
    CheckStatus, Def, DimView, Face, Language, LanguageInfo, OptionSpec, Options, Report, Severity,
    ShapeView, StatementReport,
};
use shapex_text::{LineIndex, Range, Token};

pub const ID: &str = "py";

/// The one view: every name and subexpression with its type.
pub const TYPES: &str = "types";

/// The def name of a `return`'s type (the expectation grammar's names are words).
pub const RESULT: &str = "return";

/// Migeed, Reed, Ansel & Palsberg's gradual tensor types, registered in the façade's
/// driver. Its id is `py` because the PyTorch front end (issue #21 M4) joins it; for
/// now it reads the paper's core calculus (`.gt` files).
pub struct Migrate {
    info: LanguageInfo,
}

impl Default for Migrate {
    fn default() -> Self {
        Migrate::new()
    }
}

impl Migrate {
    pub fn new() -> Migrate {
        Migrate { info: info() }
    }
}

fn info() -> LanguageInfo {
    LanguageInfo {
        id: ID,
        name: "PyTorch (Migeed et al., gradual tensors)",
        extensions: &["py", "gt"],
        tagline: "Paste a PyTorch model, annotate forward's input — TensorType((Dyn, 3, 224, 224)), Dyn where you do not know — and see every tensor's shape by Migeed et al.'s gradual types, and where it fails for every input.",
        options: vec![OptionSpec {
            key: "model",
            label: "Model",
            // No choices: a free-text option (the name of a module-level variable or a
            // class of the file); empty means the file's last model.
            choices: Vec::new(),
            help: vec![("", "Which model to check: a module-level variable (`model`) or a class of the file (built with no arguments). Empty: the last module-level instance, else the last class whose __init__ needs no arguments.")],
            placeholder: "(the last one)",
            multiline: false,
            hidden: false,
        }, OptionSpec {
            key: "constraints",
            label: "Constraints",
            // One per line, over forward's parameters and dimension symbols (Q2, Q3).
            choices: Vec::new(),
            help: vec![("", "What you know about the input, one per line: x.shape == (b, 3, h, w), rank(x) == 4, h <= 20, b in (2, 4, 8), x != Dyn. Migeed et al.'s Q2 (a static migration under these) and Q3 (which branches can run) use them.")],
            placeholder: "x.shape == (b, 3, h, w)\nh <= 256",
            multiline: true,
            hidden: false,
        }, OptionSpec {
            key: shapex_report::view::EXPAND,
            label: "Expanded lattice nodes",
            // Set by the Lattice view's "Expand neighbours", not typed.
            choices: Vec::new(),
            help: vec![("", "The migration lattice's nodes whose neighbours are shown (vertex ids such as m1f), past six Dyn positions; stale ids are ignored.")],
            placeholder: "",
            multiline: false,
            hidden: true,
        }],
        prints_shapes: true,
        lexical: shapex_report::language::Lexical { comments: &["#"], quotes: &['"', '\''] },
        views: vec![ViewSpec {
            id: TYPES,
            title: "Types",
            empty: "No types yet: each declaration and subexpression of the program appears here with its gradual tensor type and the rule (Migeed et al. 2024, Figure 3) that gave it.",
        }, ViewSpec {
            id: crate::questions::VIEW,
            title: "Migration",
            empty: "No questions yet: for a PyTorch model with a forward method, Migeed et al.'s three questions appear here — is there a static migration of forward's annotations (Q1), one under your constraints (Q2), and which shape-dependent branches can run (Q3) — with the constraints they were asked of.",
        }, ViewSpec {
            id: crate::questions::LATTICE,
            title: "Lattice",
            empty: "No lattice yet: for a well-typed PyTorch model, the shapes its migrations can take appear here — one node per choice of which Dyn positions of forward's annotations become numbers, inhabited nodes labelled with a migration, empty ones dashed, the maximal ones (the frontier) outlined twice.",
        }, ViewSpec {
            id: crate::answers::VIEW,
            title: "JSON",
            empty: "No answers yet: the three questions' answers as JSON (what `shapex migrate --format json` prints) appear here for a PyTorch model with a forward method.",
        }],
    }
}

impl Language for Migrate {
    fn face() -> Face {
        Face {
            info: info(),
            tokens: shapex_migrate_syntax::tokens,
        }
    }

    fn info(&self) -> &LanguageInfo {
        &self.info
    }

    fn analyze(&self, source: &str, options: &Options) -> Report {
        let mut report = if crate::pytorch::looks_like_python(source) {
            crate::pytorch::report(source, options)
        } else {
            let parsed = shapex_migrate_syntax::parse(source);
            let checked = check(&parsed.program);
            let questions = parsed.program.returns().next().is_some().then(|| {
                let subject = Calculus::new(source, &parsed.program, &checked);
                crate::questions::ask(source, &subject, options)
            });
            let mut report = report(source, &parsed.program, parsed.diagnostics, checked.clone());
            if options.witness && questions.is_some() {
                let subject = Calculus::new(source, &parsed.program, &checked);
                crate::questions::witnesses(source, &subject, options, &mut report.statements);
            }
            if let Some(q) = questions {
                report.diagnostics.extend(q.diagnostics);
                report.views.extend(q.views);
                report.resolve_positions(source);
            }
            report
        };
        // The settings in force, every option of the language (the CLI and the
        // fixtures read them back).
        let setting = |k: &str| {
            (
                k.to_string(),
                options.get(k).map_or("", str::trim).to_string(),
            )
        };
        report.settings = [
            setting("model"),
            setting("constraints"),
            setting(shapex_report::view::EXPAND),
        ]
        .into();
        report
    }

    fn tokens(&self, line: &str) -> Vec<Token> {
        shapex_migrate_syntax::tokens(line)
    }

    fn explain(&self, code: &str) -> Option<String> {
        explain(code).map(str::to_string)
    }
}

/// The Report of `program` (parsed from `source` with `syntax` diagnostics) checked.
pub fn report(
    source: &str,
    program: &Program,
    syntax: Vec<shapex_text::Diagnostic>,
    checked: Checked,
) -> Report {
    let parse_ok = !syntax.iter().any(|d| d.severity == Severity::Error);
    let index = LineIndex::new(source);
    let statements = statements(program, &checked);
    let table = types_table(source, &index, &checked);
    let mut diagnostics = syntax;
    diagnostics.extend(checked.diagnostics);
    types_report(source, parse_ok, diagnostics, statements, table)
}

/// The plug-in's Report from its parts, for both syntaxes: the one view is the types
/// table; positions resolved against `source`.
pub(crate) fn types_report(
    source: &str,
    parse_ok: bool,
    diagnostics: Vec<shapex_text::Diagnostic>,
    statements: Vec<StatementReport>,
    table: Table,
) -> Report {
    let mut report = Report {
        lang: ID.to_string(),
        settings: Default::default(),
        parse_ok,
        diagnostics,
        statements,
        views: vec![View {
            id: TYPES.to_string(),
            payload: Payload::Table(table),
        }],
        ..Report::default()
    };
    report.resolve_positions(source);
    report
}

/// A type as the house's shape: a whole `Dyn` is an unknown rank (`?`); a `Dyn`
/// dimension is the symbol `Dyn`; an ill-typed expression is illegal.
pub fn shape_view(ty: Option<&TensorType>) -> ShapeView {
    match ty {
        None => ShapeView::Illegal { illegal: true },
        Some(TensorType::Dyn) => ShapeView::Dims {
            dims: None,
            max: None,
        },
        Some(TensorType::Tensor(dims)) => ShapeView::Dims {
            dims: Some(
                dims.iter()
                    .map(|d| match d {
                        Dim::Dyn | Dim::Sym(_) => DimView::Symbolic("Dyn".to_string()),
                        // Past i64 only in absurd annotations; shown as written.
                        Dim::Nat(n) => i64::try_from(*n)
                            .map_or_else(|_| DimView::Symbolic(n.to_string()), DimView::Known),
                    })
                    .collect(),
            ),
            max: None,
        },
    }
}

fn display(ty: Option<&TensorType>) -> String {
    ty.map_or_else(|| "ill-typed".to_string(), TensorType::to_string)
}

pub(crate) fn def(name: &str, ty: Option<&TensorType>) -> Def {
    Def {
        name: name.to_string(),
        shape: shape_view(ty),
        display: display(ty),
        class: None,
        value: None,
    }
}

/// The worst status among `nodes`: an error anywhere, else a run-time check anywhere,
/// else proven when anything was checked.
fn worst<'a>(nodes: impl Iterator<Item = &'a Node>) -> CheckStatus {
    nodes.fold(CheckStatus::None, |acc, n| match (acc, n.status) {
        (CheckStatus::Error, _) | (_, CheckStatus::Error) => CheckStatus::Error,
        (CheckStatus::Runtime, _) | (_, CheckStatus::Runtime) => CheckStatus::Runtime,
        (CheckStatus::Proven, _) | (_, CheckStatus::Proven) => CheckStatus::Proven,
        _ => CheckStatus::None,
    })
}

/// One statement per item: a declaration defines its name with its type; a `return`
/// defines [`RESULT`] with the type of its expression, and its check is the worst of
/// its operations'.
fn statements(program: &Program, checked: &Checked) -> Vec<StatementReport> {
    let mut decls = checked.decls.iter();
    let mut out = Vec::new();
    for (i, item) in program.items.iter().enumerate() {
        let s = match item {
            Item::Decl(d) => {
                let ty = decls.next().map(|t| &t.ty);
                StatementReport {
                    span: d.span,
                    kind: "decl".to_string(),
                    label: d.name.name.clone(),
                    defs: vec![def(&d.name.name, ty)],
                    rule: Some("declaration x : τ: s-var puts it in Γ (Migeed et al. 2024, Fig. 3 as rebuilt in spec 004 §1.5)".to_string()),
                    ..StatementReport::default()
                }
            }
            Item::Return(r) => {
                let nodes = checked.nodes.iter().filter(|n| n.item == i);
                let top = checked.result(i);
                StatementReport {
                    span: r.span,
                    kind: "return".to_string(),
                    label: RESULT.to_string(),
                    defs: top
                        .map(|n| def(RESULT, n.ty.as_ref()))
                        .into_iter()
                        .collect(),
                    check: worst(nodes),
                    rule: top.map(|n| n.rule.describe().to_string()),
                    ..StatementReport::default()
                }
            }
            Item::Error(span) => StatementReport {
                span: *span,
                kind: "error".to_string(),
                ..StatementReport::default()
            },
        };
        out.push(s);
    }
    out
}

/// The source text of `span` on one line, shortened for a table label.
fn label(source: &str, span: shapex_text::Span) -> String {
    let text = source.get(span.start..span.end).unwrap_or("");
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 60 {
        let head: String = flat.chars().take(59).collect();
        format!("{head}…")
    } else {
        flat
    }
}

/// The `types` view: each declaration, then each subexpression in the order the
/// checker typed it (operands before their operation), with its type and rule.
fn types_table(source: &str, index: &LineIndex, checked: &Checked) -> Table {
    let line = |span| Range::of(span, index).line;
    let mut rows = Vec::new();
    let cells = |ty: Option<&TensorType>, rule: &str, title: &str, status: CheckStatus| {
        vec![
            Cell {
                column: 0,
                value: CellValue::Shape {
                    shape: shape_view(ty),
                    display: display(ty),
                },
                class: status.class().to_string(),
                title: format!("{}\ncheck: {}", display(ty), status.words()),
            },
            Cell {
                column: 1,
                value: CellValue::Text(rule.to_string()),
                class: String::new(),
                title: title.to_string(),
            },
        ]
    };
    for d in &checked.decls {
        let rule = if d.duplicate {
            "declaration (repeated: not in Γ)"
        } else {
            "declaration"
        };
        rows.push(Row {
            line: line(d.span),
            label: d.name.clone(),
            cells: cells(
                Some(&d.ty),
                rule,
                "x : τ puts x in Γ (s-var)",
                CheckStatus::None,
            ),
            new_workspace: false,
        });
    }
    for n in &checked.nodes {
        rows.push(Row {
            line: line(n.span),
            label: label(source, n.span),
            cells: cells(n.ty.as_ref(), n.rule.name(), n.rule.describe(), n.status),
            new_workspace: false,
        });
    }
    Table {
        columns: vec!["type".to_string(), "rule".to_string()],
        rows,
    }
}

/// The explanation of each code this language reports.
pub fn explain(code: &str) -> Option<&'static str> {
    Some(match code {
        "mig.add" => "t-add (Migeed et al. 2024, Fig. 3 as rebuilt in spec 004 §1.5): the operands are broadcast \"virtually\" by Appendix B's apply-broadcasting (the shorter padded with leading 1s, each 1 replaced by the type opposite it, even Dyn), and the results must be consistent (~): equal ranks, each dimension pair equal or one of them Dyn. Here two static dimensions differ and neither is 1, so no run can add them. The message names both operands' types and the first inconsistent dimension. (Appendix E's constraint form, which asks for equality when no broadcast applies, is not used: erratum 7.)",
        "mig.match" => "t-conv matches its input against a rank-4 tensor (t ▷⁴ TensorType(σ1, σ2, σ3, σ4)): a whole Dyn matches (as four Dyns), a tensor of another rank does not — Listing 1's `x : TensorType([Dyn, Dyn])` is this error (spec 004 TC-3): no migration can change a rank, so the migration space is empty.",
        "mig.conv.channels" => "t-conv asks c_in ~ σ2: the Conv2D's input channel count must be consistent with the input's second dimension (equal, or Dyn there). Here both are numbers and they differ, so every run fails. (For a Dyn input, two convolutions with different c_in on the same tensor are each fine — that is TC-4, a question for migration, not an error.)",
        "mig.conv.kernel" => "calc-conv (Appendix B; Appendix E's is garbled, erratum 5) gives each spatial output dimension σ − (κ − 1). We require it to be at least 1, as PyTorch does (spec 004 §6.3 item 2, our decision): a kernel larger than a static input dimension, or a kernel size of 0, is an error.",
        "mig.reshape" => "reshape by Figure 3's rules as rebuilt in spec 004 §1.5, counting the Dyns of input and target together. None: t-reshape-s needs equal element counts, ∏D = ∏U. Exactly one (a Dyn input dimension, or the target's one Dyn, PyTorch's -1): t-reshape-g needs the products of the static dimensions to divide one another, in either direction (the paper's reading; PyTorch's own check is one-directional). More than one, or a whole Dyn input: t-reshape, no condition. The message gives both products.",
        "mig.unbound" => "t-var types a variable by its declaration x : τ in Γ; this name has none. Declare it before the `return` (`x : Dyn` if nothing is known).",
        "mig.duplicate" => "s-var builds Γ from the declarations and needs each name new (x ∉ dom(Γ)); the second declaration is ignored and the first one's type is used.",
        "syntax.expected" => "the statement does not parse as Figure 1's core calculus (`x : τ`, `return e`, `e ::= x | reshape(e, τ) | Conv2D(c, c, (c, c), e) | add(e, e)`, `τ ::= Dyn | TensorType([d, …])`); the message names what was expected. The statement is skipped up to the next declaration or `return`, so later errors are still found.",
        "syntax.reshape" => "Figure 1: in reshape(e, τ), \"τ can have a maximum of one Dyn dimension\" — PyTorch's single -1. The reshape is typed as its target without further checks.",
        "syntax.order" => "a program is `decl* return e` (Figure 1): declarations first, then one `return`. A declaration after it, or a second `return`, is reported here but still checked.",
        "syntax.return" => "a program is `decl* return e` (Figure 1); this one has declarations but no `return e`. The declarations are still typed.",
        "syntax.number" => "a dimension or constant does not fit 64 bits; it is read as Dyn.",
        "syntax.nesting" => "parentheses (or, in Python, brackets or blocks) nest deeper than the parser follows; the line (or block) is reported and the rest of the file is still parsed.",
        // PyTorch model code (`.py`).
        "mig.output" => "what the model's `forward` returns, as a gradual type, for inputs of its parameters' annotated types (`def forward(self, x: TensorType((Dyn, 3, 224, 224)))`; an unannotated parameter is Dyn). The model is the last module-level instance of a class of the file (`model = resnet50()`), else the last class with a `forward` whose `__init__` needs no arguments.",
        "mig.model" => "no model could be built to check: the file has no module-level instance of one of its classes (`model = Net()`) and no class with a `forward` whose `__init__` needs no arguments, or the model has no `forward`.",
        "mig.unsupported" => "a construct, layer or function the checker does not model: its value is Dyn (consistent with everything), so it can hide an error but never make a false one; the rest of the model is still checked.",
        "mig.conv2d" => "nn.Conv2d applied to a tensor whose channels (dimension −3) differ from the layer's in_channels, or whose spatial size is smaller than the kernel's extent after padding (PyTorch's output formula ⌊(H + 2p − d(k − 1) − 1)/s⌋ + 1 would be below 1), or that is not 3- or 4-dimensional. Every run with inputs of these types fails.",
        "mig.linear" => "nn.Linear applied to a tensor whose last dimension differs from the layer's in_features: every such run fails.",
        "mig.batchnorm" => "nn.BatchNorm2d needs a 4-dimensional input (BatchNorm1d 2 or 3) whose dimension 1 equals num_features.",
        "mig.pool" => "a pooling layer or function whose window is larger than the padded input, or whose input is not 3- or 4-dimensional.",
        "mig.layernorm" => "nn.LayerNorm's normalized_shape must equal the input's last dimensions.",
        "mig.flatten" | "mig.transpose" | "mig.permute" | "mig.unsqueeze" | "mig.reduce" | "mig.size" | "mig.index" => "a dimension index outside the tensor's rank (PyTorch counts negative indices from the end), too many indices, or a permutation of the wrong length.",
        "mig.expand" => "expand can only enlarge dimensions of size 1 (or keep one, with -1) and add leading ones; here a static size other than 1 would change.",
        "mig.embedding" | "mig.layer" => "a layer applied to an input its rule rejects for every run.",
        "mig.broadcast" => "PyTorch's broadcasting: aligned from the right, each pair of dimensions must be equal or one of them 1. Here two static dimensions differ and neither is 1 (Appendix B's apply-broadcasting, then consistency).",
        "mig.matmul" => "torch.matmul / @: the inner dimensions (the first operand's last, the second's second-to-last, or the vector's one) must agree, and batch dimensions broadcast.",
        "mig.bmm" => "torch.bmm takes two 3-dimensional tensors (b, n, k) and (b, k, m): batch sizes equal and inner dimensions equal (the paper's BmmExample).",
        "mig.branch" => "an `if` whose condition cannot change (Migeed et al. 2024, §5, the third question; Algorithm 2): either the annotated types decide it, or, with the input's unknown sizes as variables, the constraints that the lines before it impose (every operation that ran must have succeeded: Gen, §4) and your constraints leave only one outcome — the solver proved the other unsatisfiable. So the other branch can never run and is greyed. A condition the solver cannot decide, or one that involves a size nothing fixes (a whole Dyn of unknown rank), stays undecided: both branches remain.",
        "mig.q1" => "Migeed et al. 2024's first question (§2, §7): is there a static migration — numbers for every Dyn in forward's parameter annotations (a whole Dyn first gets a rank from 1 to 4, the paper's bound) — under which the model type-checks? Yes comes with the smallest such annotation the solver found, substituted back and re-checked by the gradual checker. No means the constraints the operations impose on those numbers (Gen: channel counts, window sizes, element counts of view/reshape/flatten, broadcasting) are unsatisfiable, proved by the solver; the message lists the operations whose requirements conflict (Listing 2: two convolutions want 2 and 4 channels of the same input). For an ill-typed model the answer is no at once: its migration space is empty. Unknown: the solver ran out of budget, or its candidate did not re-check.",
        "mig.q2" => "Migeed et al. 2024's second question: a static migration that also satisfies your constraints (the Constraints box, `--set constraints=…`, one per line; and the `assert`s in forward). Answered like Q1, with your constraints among those that may conflict.",
        "mig.constraint" => "a line of your constraints that cannot be used: it does not parse (the message gives its line and column in the box), or it names a tensor where a size is meant or something forward does not have. It is left out; the other lines still count. Forms: `x.shape == (b, 3, h, w)`, `rank(x) == 4`, `x == Dyn`, `x != Dyn`, `s == Dyn`, `s OP t` with OP in == != < > <= >= over integers, symbols, `x.size(i)`, `x.shape[i]`, + − *, `s in (2, 4, 9)`, `s in (Dyn, 1)`.",
        "mig.assert" => "an `assert` on shapes (`x.dim() == 4`, `x.size(1) == 3`, `x.shape == (b, 3, h, w)`) that the annotated types make false for every input. Assertions that hold or may hold refine the types after them: a Dyn becomes what they name.",
        "mig.cat" => "torch.cat needs tensors of one rank whose dimensions agree except along the concatenated one.",
        "syntax.indent" => "a line indented more than the block it is in (Python's \"unexpected indent\"); it is read as part of that block.",
        "syntax.block" => "a line ending in `:` (def, class, if, for, while, …) has no indented block after it.",
        "syntax.orphan" => "an `elif` or `else` with no `if`, `for` or `while` before it at its indentation.",
        "syntax.unterminated" => "a string or bracket opened on this line is never closed; the line ends where its physical line does, so the rest of the file is still parsed.",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyze(source: &str) -> Report {
        Migrate::new().analyze(source, &Options::new(ID))
    }

    #[test]
    fn tc1_statements_and_types_view() {
        let report =
            analyze("x : TensorType([Dyn,2,Dyn])\ny : TensorType([1,2,2])\nreturn add(x, y)");
        assert!(report.parse_ok);
        // Only the questions' answers (Info), no error or warning.
        let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, ["mig.q1"], "{:#?}", report.diagnostics);
        let kinds: Vec<&str> = report.statements.iter().map(|s| s.kind.as_str()).collect();
        assert_eq!(kinds, ["decl", "decl", "return"]);
        let ret = &report.statements[2];
        assert_eq!(ret.range.line, 3);
        assert_eq!(ret.defs[0].name, RESULT);
        assert_eq!(ret.defs[0].display, "TensorType((Dyn, 2, 2))");
        assert_eq!(
            ret.defs[0].shape,
            ShapeView::Dims {
                dims: Some(vec![
                    DimView::Symbolic("Dyn".into()),
                    DimView::Known(2),
                    DimView::Known(2)
                ]),
                max: None,
            }
        );
        assert_eq!(ret.check, CheckStatus::Runtime);
        let Some(Payload::Table(t)) = report.view(TYPES) else {
            panic!("no types view")
        };
        let labels: Vec<&str> = t.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["x", "y", "x", "y", "add(x, y)"]);
        assert_eq!(t.rows[4].line, 3);
    }

    #[test]
    fn a_whole_dyn_is_an_unknown_rank_and_an_error_is_illegal() {
        let report = analyze("x : Dyn\ny : TensorType([1,2])\nreturn add(x, y)");
        assert_eq!(
            report.statements[2].defs[0].shape,
            ShapeView::Dims {
                dims: None,
                max: None
            }
        );
        let report = analyze("x : TensorType([2])\ny : TensorType([3])\nreturn add(x, y)");
        assert_eq!(report.statements[2].check, CheckStatus::Error);
        assert_eq!(
            report.statements[2].defs[0].shape,
            ShapeView::Illegal { illegal: true }
        );
        let error = report
            .diagnostics
            .iter()
            .find(|d| d.severity == Severity::Error);
        assert_eq!(error.map(|d| d.range.line), Some(3));
    }

    #[test]
    fn every_code_the_language_reports_is_explained() {
        let deep = format!(
            "x : Dyn\nreturn {}x{}",
            "add(".repeat(300),
            ", x)".repeat(300)
        );
        let cases: [(&str, &str); 13] = [
            (
                "mig.add",
                "x : TensorType([2])\ny : TensorType([3])\nreturn add(x, y)",
            ),
            (
                "mig.match",
                "x : TensorType([Dyn, Dyn])\nreturn Conv2D(2, 2, (2, 2), x)",
            ),
            (
                "mig.conv.channels",
                "x : TensorType([1, 3, 8, 8])\nreturn Conv2D(2, 2, (2, 2), x)",
            ),
            (
                "mig.conv.kernel",
                "x : TensorType([1, 2, 8, 8])\nreturn Conv2D(2, 2, (0, 2), x)",
            ),
            (
                "mig.reshape",
                "x : TensorType([6])\nreturn reshape(x, TensorType([4]))",
            ),
            ("mig.unbound", "return z"),
            ("mig.duplicate", "x : Dyn\nx : Dyn\nreturn x"),
            ("syntax.expected", "x : \nreturn x"),
            (
                "syntax.reshape",
                "x : Dyn\nreturn reshape(x, TensorType([Dyn, Dyn]))",
            ),
            ("syntax.order", "return x\nx : Dyn"),
            ("syntax.return", "x : Dyn"),
            (
                "syntax.number",
                "x : TensorType([123456789012345678901234567890])\nreturn x",
            ),
            ("syntax.nesting", &deep),
        ];
        let lang = Migrate::new();
        for (code, source) in cases {
            let report = lang.analyze(source, &Options::new(ID));
            assert!(
                report.diagnostics.iter().any(|d| d.code == code),
                "{code}: {:#?}",
                report.diagnostics
            );
            for d in &report.diagnostics {
                assert!(lang.explain(&d.code).is_some(), "{} unexplained", d.code);
            }
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn token() -> impl Strategy<Value = &'static str> {
            prop::sample::select(
                &[
                    "return ",
                    "reshape",
                    "Conv2D",
                    "add",
                    "TensorType",
                    "Dyn",
                    "x",
                    "y",
                    " : ",
                    "1",
                    "2",
                    "4",
                    "0",
                    "(",
                    ")",
                    "[",
                    "]",
                    ", ",
                    "\n",
                    "#",
                    "ü",
                ][..],
            )
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 500, .. ProptestConfig::default() })]

            /// Analysis of any text terminates without panicking, and every position
            /// it reports is in the source.
            #[test]
            fn analysis_never_panics(tokens in prop::collection::vec(token(), 0..60)) {
                let source = tokens.concat();
                let report = analyze(&source);
                for d in &report.diagnostics {
                    prop_assert!(d.span.end <= source.len() && d.span.start <= d.span.end);
                }
                for s in &report.statements {
                    prop_assert!(s.span.end <= source.len());
                }
            }
        }
    }
}
