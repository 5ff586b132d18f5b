//! Language T as a Shape Explorer language plug-in ([`LanguageT`]): the analysis
//! folded into a [`Report`] — the diagnostics, one statement per call with the extent
//! classes of what it writes, and the `extent-graph` view (every procedure's graph in
//! one `Graph` payload, vertices coloured by extent class, with the replay: the
//! construction statement by statement, then each pass of the paper's refinement).

use shapex_extent::graph::Origin;
use shapex_extent::steps::Step;
use shapex_extent::view::{extent_graph, EXTENT_GRAPH};
use shapex_extent::{Analysis, Site, TOP_LEVEL};
use shapex_report::view::{Payload, View, ViewSpec};
use shapex_report::{
    CheckStatus, Def, DimView, Face, Language, LanguageInfo, Options, Report, Severity, ShapeView,
    StatementReport,
};
use shapex_t_syntax::ast::{Program, Stmt, StmtKind};
use shapex_t_syntax::Signatures;
use shapex_text::{LineIndex, Token, TokenKind};
use std::collections::HashMap;

pub const ID: &str = "t";

/// Derby & Zorn's Language T, registered in the façade's driver.
pub struct LanguageT {
    info: LanguageInfo,
}

impl Default for LanguageT {
    fn default() -> Self {
        LanguageT::new()
    }
}

impl LanguageT {
    pub fn new() -> LanguageT {
        LanguageT { info: info() }
    }
}

fn info() -> LanguageInfo {
    LanguageInfo {
        id: ID,
        name: "Language T (Derby & Zorn)",
        extensions: &["t"],
        tagline: "Write procedures with sized signatures and watch Derby & Zorn's abstract extent graph being built and solved — and where two sizes may differ.",
        options: Vec::new(),
        prints_shapes: false,
        lexical: shapex_report::language::Lexical { comments: &["%", "#", "//", "/*"], quotes: &[] },
        views: vec![ViewSpec {
            id: EXTENT_GRAPH,
            title: "Extent graph",
            empty: "No extent graph yet: each procedure's abstract extent graph (Derby & Zorn §7) appears here, its vertices coloured by extent class, with the construction and the refinement to replay.",
        }],
    }
}

impl Language for LanguageT {
    fn face() -> Face {
        Face {
            info: info(),
            tokens,
        }
    }

    fn info(&self) -> &LanguageInfo {
        &self.info
    }

    fn analyze(&self, source: &str, options: &Options) -> Report {
        let parsed = shapex_t_syntax::parse(source);
        let prelude = shapex_t_syntax::prelude();
        let mut analysis = shapex_extent::analyze_program(&parsed.program, &prelude);
        let mut diagnostics = parsed.diagnostics;
        diagnostics.append(&mut analysis.diagnostics);
        analysis.diagnostics = diagnostics;
        let sigs = Signatures::new(&parsed.program, &prelude);
        let mut report = report(source, &analysis, &written(&parsed.program, &sigs));
        if options.witness {
            witnesses(&analysis, &guards(&parsed.program), &mut report.statements);
        }
        report
    }

    fn tokens(&self, line: &str) -> Vec<Token> {
        tokens(line)
    }

    fn explain(&self, code: &str) -> Option<String> {
        explain(code).map(str::to_string)
    }
}

/// The variables each call writes (its `out` and `in out` actuals), by the call's
/// span start.
pub type Written = HashMap<usize, Vec<String>>;

/// [`Written`] for every call of `program` whose callee `sigs` knows.
pub fn written(program: &Program, sigs: &Signatures) -> Written {
    fn walk(stmt: &Stmt, sigs: &Signatures, out: &mut Written) {
        match &stmt.kind {
            StmtKind::Call { callee, args } => {
                if let Some(sig) = sigs.get(&callee.name) {
                    let vars = sig
                        .formals
                        .iter()
                        .zip(args)
                        .filter(|(f, _)| f.direction.writes())
                        .filter_map(|(_, a)| a.var().map(|v| v.name.clone()))
                        .collect();
                    out.insert(stmt.span.start, vars);
                }
            }
            StmtKind::If {
                then, otherwise, ..
            } => {
                walk(then, sigs, out);
                if let Some(o) = otherwise {
                    walk(o, sigs, out);
                }
            }
            StmtKind::While { body, .. } => walk(body, sigs, out),
            StmtKind::Compound(list) => list.iter().for_each(|s| walk(s, sigs, out)),
            StmtKind::Decl { .. } | StmtKind::Error => {}
        }
    }
    let mut out = Written::new();
    for s in program.procs.iter().filter_map(|p| p.body.as_ref()) {
        walk(s, sigs, &mut out);
    }
    program.top.iter().for_each(|s| walk(s, sigs, &mut out));
    out
}

/// The Report of an analysis of `source` (`written`: what each call writes, for the
/// statements' defs).
pub fn report(source: &str, analysis: &Analysis, written: &Written) -> Report {
    let parse_ok = !analysis
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error && d.code.starts_with("syntax."));
    let index = LineIndex::new(source);
    let mut report = Report {
        lang: ID.to_string(),
        settings: Default::default(),
        parse_ok,
        diagnostics: analysis.diagnostics.clone(),
        statements: statements(analysis, written),
        views: vec![View {
            id: EXTENT_GRAPH.to_string(),
            payload: Payload::Graph(extent_graph(analysis, &index)),
        }],
        ..Report::default()
    };
    report.resolve_positions(source);
    report
}

/// The outline and the CLI's `statements`: each procedure, then each call the
/// construction placed in its graph, with the extent classes of the arrays it writes
/// (`defs`, one class name per dimension) and `check`: `error` when one of its extents
/// is in conflict, `proven` when its inputs agree with the signature, `none` for a call
/// without array inputs.
fn statements(analysis: &Analysis, written: &Written) -> Vec<StatementReport> {
    let mut out = Vec::new();
    for proc in &analysis.procs {
        let top = proc.name == TOP_LEVEL;
        if !top {
            out.push(StatementReport {
                span: proc.span,
                kind: "proc".to_string(),
                depth: 0,
                label: proc.name.clone(),
                ..StatementReport::default()
            });
        }
        for s in &proc.steps {
            let Step::Construct(c) = s else { continue };
            let Some(callee) = c.what.strip_prefix("call ") else {
                continue;
            };
            let writes = written.get(&c.span.start);
            let defs = c
                .wires
                .iter()
                .filter(|(var, _)| writes.is_some_and(|w| w.contains(var)))
                .map(|(var, dims)| {
                    let classes: Vec<String> = dims
                        .iter()
                        .map(|&v| proc.class_name(v).to_string())
                        .collect();
                    Def {
                        name: var.clone(),
                        shape: ShapeView::Dims {
                            dims: Some(classes.iter().cloned().map(DimView::Symbolic).collect()),
                            max: None,
                        },
                        display: format!("[{}]", classes.join(",")),
                        class: None,
                        value: None,
                    }
                })
                .collect();
            let checked = c.vertices.iter().any(|&v| {
                matches!(proc.graph.vertices[v].origin, Origin::Call { .. })
                    && !proc.graph.vertices[v].inputs.is_empty()
            });
            let conflict = proc
                .errors
                .iter()
                .any(|e| e.span == c.span && matches!(e.site, shapex_extent::Site::Call { .. }));
            out.push(StatementReport {
                span: c.span,
                kind: "call".to_string(),
                depth: u32::from(!top),
                label: callee.to_string(),
                defs,
                check: if conflict {
                    CheckStatus::Error
                } else if checked {
                    CheckStatus::Proven
                } else {
                    CheckStatus::None
                },
                rule: Some(format!("call rule (Derby & Zorn §7.1): {callee}")),
                ..StatementReport::default()
            });
        }
    }
    out.sort_by_key(|s| (s.span.start, s.depth));
    out
}

/// Witnesses (issue #26 item 3) of the calls in conflict: a call of a signature
/// needs every input of a conflicting extent to have one size, so sizes that tell
/// those classes apart make it fail (solved through `shapex-dims`, which evaluates
/// the condition on them). A T program has no run-time checks, and an illegal call
/// has no passing sizes the type system accepts, so `passes` stays empty.
fn witnesses(analysis: &Analysis, guards: &Guards, statements: &mut [StatementReport]) {
    use shapex_dims::{witness, Constraint, Dim, Facts};
    for s in statements
        .iter_mut()
        .filter(|s| s.check == CheckStatus::Error)
    {
        let known = guards.get(&s.span.start).map_or(&[][..], Vec::as_slice);
        let conflicts = analysis.procs.iter().flat_map(|p| &p.errors);
        let at_call = conflicts.filter(|e| e.span == s.span && matches!(e.site, Site::Call { .. }));
        let mut equal = Vec::new();
        for e in at_call {
            // `⊥` is no size at all (an array never written): nothing to choose.
            let classes: Vec<&str> = e
                .inputs
                .iter()
                .map(|(_, c)| c.as_str())
                .filter(|c| *c != "⊥")
                .collect();
            for pair in classes.windows(2) {
                equal.push(Constraint::eq(&Dim::sym(pair[0]), &Dim::sym(pair[1])));
            }
        }
        let theta = Constraint::and(equal);
        if theta == Constraint::True {
            continue;
        }
        let Some(fails) = witness(&Facts::from_constraints(known), &theta).fails else {
            continue;
        };
        s.witness = Some(shapex_report::Witness {
            fails: Some(
                fails
                    .iter()
                    .map(|(k, v)| (k.name().to_string(), v))
                    .collect(),
            ),
            passes: None,
            repro: None,
        });
    }
}

/// What the enclosing `if (a == b)` tests say of a call's sizes when it runs, by the
/// call's span start: the type system does not use them (names never unify, §2), but
/// a witness must satisfy them, or the sizes never reach the call.
type Guards = HashMap<usize, Vec<shapex_dims::Constraint>>;

fn guards(program: &Program) -> Guards {
    use shapex_dims::{Constraint, Dim};
    fn walk(stmt: &Stmt, known: &mut Vec<Constraint>, out: &mut Guards) {
        match &stmt.kind {
            StmtKind::Call { .. } => {
                out.insert(stmt.span.start, known.clone());
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                let names: Vec<&str> = cond
                    .operands
                    .iter()
                    .filter_map(|a| a.var().map(|v| v.name.as_str()))
                    .collect();
                let test = match names[..] {
                    [a, b] if cond.operands.len() == 2 => {
                        Some(Constraint::eq(&Dim::sym(a), &Dim::sym(b)))
                    }
                    _ => None,
                };
                for (arm, holds) in [(Some(&**then), true), (otherwise.as_deref(), false)] {
                    let Some(arm) = arm else { continue };
                    let pushed = test.as_ref().map(|t| match holds {
                        true => t.clone(),
                        false => t.not(),
                    });
                    known.extend(pushed.iter().cloned());
                    walk(arm, known, out);
                    known.truncate(known.len() - usize::from(pushed.is_some()));
                }
            }
            StmtKind::While { body, .. } => walk(body, known, out),
            StmtKind::Compound(list) => list.iter().for_each(|s| walk(s, known, out)),
            StmtKind::Decl { .. } | StmtKind::Error => {}
        }
    }
    let mut out = Guards::new();
    let bodies = program.procs.iter().filter_map(|p| p.body.as_ref());
    for s in bodies.chain(&program.top) {
        walk(s, &mut Vec::new(), &mut out);
    }
    out
}

const KEYWORDS: &[&str] = &[
    "proc", "builtin", "if", "else", "while", "do", "decl", "in", "out", "inout",
];

/// Display tokens of one line: keywords, names, numbers, comments (`%`, `#`, `//`,
/// the paper's `==>` annotations, and `/* … */` on one line), punctuation.
pub fn tokens(line: &str) -> Vec<Token> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let push = |out: &mut Vec<Token>, kind, start, end| out.push(Token { kind, start, end });
    while i < bytes.len() {
        let rest = &line[i..];
        let start = i;
        let c = bytes[i];
        if rest.starts_with('%')
            || rest.starts_with('#')
            || rest.starts_with("//")
            || rest.starts_with("==>")
        {
            push(&mut out, TokenKind::Comment, i, line.len());
            break;
        } else if rest.starts_with("/*") {
            i = rest.find("*/").map_or(line.len(), |e| i + e + 2);
            push(&mut out, TokenKind::Comment, start, i);
        } else if c.is_ascii_whitespace() {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            push(&mut out, TokenKind::Space, start, i);
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let kind = if KEYWORDS.contains(&&line[start..i]) {
                TokenKind::Keyword
            } else {
                TokenKind::Ident
            };
            push(&mut out, kind, start, i);
        } else if c.is_ascii_digit() {
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            push(&mut out, TokenKind::Number, start, i);
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            push(&mut out, TokenKind::Punct, start, i);
        }
    }
    out
}

/// The explanation of each code Language T reports.
pub fn explain(code: &str) -> Option<&'static str> {
    Some(match code {
        "t.size" => "a call's arguments give one extent name of the callee's signature different abstract extents (Derby & Zorn §6.1): the extent vertex of that name is not uniform, so at run time the sizes may differ. The message lists every argument dimension feeding the extent with its class; make them come from the same extent (e.g. create one array with `zeros_like` from the other) or declare different extent names.",
        "t.exit" => "an out or in out formal is not guaranteed the extent its signature names when the procedure returns (§7.1 steps 4–6): its exit vertex is not uniform. The message lists the body's classes at exit and the entry extent of the same name.",
        "t.rank" => "a variable keeps one rank (number of dimensions) throughout its procedure (§6); this use gives it another. The call is left out of the extent graph.",
        "t.unknown" => "the call names a procedure that is neither defined in the file, declared with `proc … builtin`, nor in the prelude. The call is left out of the extent graph.",
        "t.arity" => "the call passes a different number of arguments than the callee's signature has formals. The call is left out of the extent graph.",
        "t.literal" => "a literal number is passed where the callee expects an array or a variable it writes; literals may only stand for scalar in arguments (Figure 2's `scalar_add (i, i, 1)`).",
        "t.alias" => "one variable is passed to two written positions of one call; the construction takes its sizes from the last one (the spec's §2.5 leaves \"error or last wins\" open).",
        "t.undefined" => "an array is read (or returned) where it may be undefined on some path: a definite-assignment pass the paper lacks (the spec's decision D4), since the extent graph alone gives such arrays a fresh extent and would accept them.",
        "t.duplicate" => "a second procedure of the same name: calls use the first definition.",
        "syntax.expected" => "the statement does not parse; the message names what was expected. The statement is skipped and parsing resumes at the next one, so later errors are still found.",
        "syntax.nesting" => "statements nest deeper than the parser follows; the rest of the file is not analysed.",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shapex_extent::view::NOT_BUILT;
    use shapex_report::view::{self, Graph};

    const FIG2: &str = include_str!("../../../tests/fixtures/t/fig2.t");
    const SEC2: &str = include_str!("../../../tests/fixtures/t/sec2_motivation.t");

    fn graph(report: &Report) -> &Graph {
        match report.view(EXTENT_GRAPH) {
            Some(Payload::Graph(g)) => g,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn figure_2_is_22_vertices_in_4_classes_with_a_replay() {
        let report = LanguageT::new().analyze(FIG2, &Options::new(ID));
        assert!(report.parse_ok);
        assert!(report.diagnostics.is_empty(), "{:#?}", report.diagnostics);
        let g = graph(&report);
        assert_eq!(g.vertices.len(), 22);
        let classes: std::collections::BTreeSet<&str> =
            g.vertices.iter().map(|v| v.class.as_str()).collect();
        assert_eq!(classes.len(), 4, "{classes:?}");
        assert!(g.vertices.iter().any(|v| v.label == "R@clear_vector"));
        assert!(g.vertices.iter().any(|v| v.label == "current_row.1@while"));
        assert!(g.vertices.iter().skip(1).all(|v| v.range.is_some()));
        // What each vertex stands for, and which are checked (no conflict: no error).
        let head = g.vertices.iter().find(|v| v.label == "current_row.1@while");
        let head = head.unwrap();
        assert_eq!(
            (head.variable.as_deref(), head.dimension, head.mark),
            (Some("current_row"), Some(1), None)
        );
        let exit = g.vertices.iter().find(|v| v.label == "S@exit").unwrap();
        assert_eq!(
            (exit.extent.as_deref(), exit.mark),
            (Some("S"), Some(view::VertexMark::Checked))
        );
        assert!(g
            .vertices
            .iter()
            .all(|v| v.mark != Some(view::VertexMark::Conflict)));
        // Every step lists every vertex; the first shows only what the entry built,
        // the last is the final partition.
        assert!(g.steps.len() > 10);
        assert!(g.steps.iter().all(|s| s.classes.len() == 22));
        assert!(g.steps[0].classes.iter().any(|(_, c)| c == NOT_BUILT));
        let last = g.steps.last().unwrap();
        for (v, (id, class)) in g.vertices.iter().zip(&last.classes) {
            assert_eq!((&v.id, &v.class), (id, class));
        }
        // One statement per call (and the procedure), with the classes it writes.
        let calls: Vec<_> = report
            .statements
            .iter()
            .filter(|s| s.kind == "call")
            .collect();
        assert_eq!(calls.len(), 12);
        let clear = calls.iter().find(|s| s.label == "clear_vector").unwrap();
        assert_eq!(clear.defs.len(), 1);
        assert_eq!(clear.defs[0].display, "[S]");
        assert_eq!(clear.check, CheckStatus::Proven);
    }

    #[test]
    fn the_illegal_call_of_section_2_fails_when_its_classes_differ() {
        // Section 2: `S` of the second call is a's dim 2 (N) and c's dim 1 (M).
        let mut options = Options::new(ID);
        options.witness = true;
        let report = LanguageT::new().analyze(SEC2, &options);
        assert_eq!(report.statements[0].witness, None, "a proven call has none");
        let w = report.statements[1].witness.as_ref().expect("a witness");
        let fails = w.fails.as_ref().expect("fails");
        assert_eq!(fails.keys().collect::<Vec<_>>(), ["M", "N"]);
        assert_ne!(fails["M"], fails["N"]);
        assert_eq!((&w.passes, &w.repro), (&None, &None));
        // Under `if (S == T)` no sizes both reach the call and tell S from T.
        let guarded = include_str!("../../../tests/fixtures/t/sec4_2_names.t");
        let report = LanguageT::new().analyze(guarded, &options);
        let call = report
            .statements
            .iter()
            .find(|s| s.check == CheckStatus::Error);
        assert_eq!(call.map(|s| &s.witness), Some(&None));
        let plain = LanguageT::new().analyze(SEC2, &Options::new(ID));
        assert!(plain.statements.iter().all(|s| s.witness.is_none()));
    }

    #[test]
    fn the_illegal_call_of_section_2_is_an_error_on_its_statement() {
        let report = LanguageT::new().analyze(SEC2, &Options::new(ID));
        let errors: Vec<_> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .collect();
        assert_eq!(errors.len(), 1, "{errors:#?}");
        assert_eq!(errors[0].code, "t.size");
        let checks: Vec<_> = report.statements.iter().map(|s| s.check).collect();
        assert_eq!(checks, [CheckStatus::Proven, CheckStatus::Error]);
        let defs: Vec<&str> = report.statements[0]
            .defs
            .iter()
            .map(|d| d.name.as_str())
            .collect();
        assert_eq!(defs, ["c"], "only what the call writes");
        let g = graph(&report);
        assert!(g.vertices.iter().any(|v| v.id == "top.0"));
        // The error's vertex is the one conflict, on the erring call's line.
        let conflicts: Vec<_> = g
            .vertices
            .iter()
            .filter(|v| v.mark == Some(view::VertexMark::Conflict))
            .collect();
        assert_eq!(conflicts.len(), 1, "{conflicts:#?}");
        assert_eq!(conflicts[0].line(), Some(errors[0].range.line));
    }

    #[test]
    fn every_code_language_t_reports_is_explained() {
        let deep = format!("proc p(in c) {}{}", "{".repeat(300), "}".repeat(300));
        let cases: [(&str, &str); 11] = [
            ("t.size", SEC2),
            (
                "t.exit",
                "proc p(in a[N], in b[M], out r[N]) { copy(r, b) }",
            ),
            ("t.rank", "proc p(in a[N]) { copy2(b, a) }"),
            ("t.unknown", "proc p(in a[N]) { nope(a) }"),
            ("t.arity", "proc p(in a[N]) { copy(a) }"),
            ("t.literal", "proc p(in a[N]) { copy(a, 1) }"),
            (
                "t.alias",
                "proc two(out a[N], out b[N]) builtin\nproc p() { two(x, x) }",
            ),
            ("t.duplicate", "proc p() {}\nproc p() {}"),
            ("t.undefined", "proc p() { chk(u, w) }"),
            ("syntax.expected", "proc p(in a[N]) { copy(x, }"),
            ("syntax.nesting", &deep),
        ];
        let t = LanguageT::new();
        for (code, source) in cases {
            let report = t.analyze(source, &Options::new(ID));
            assert!(
                report.diagnostics.iter().any(|d| d.code == code),
                "{code}: {:#?}",
                report.diagnostics
            );
            for d in &report.diagnostics {
                assert!(t.explain(&d.code).is_some(), "{} unexplained", d.code);
            }
        }
    }

    #[test]
    fn tokens_cover_the_line_and_find_keywords_and_comments() {
        let line = "  while (c) do { copy(x, 12) } /* c */ % done";
        let toks = tokens(line);
        let mut at = 0;
        for t in &toks {
            assert_eq!(t.start, at);
            at = t.end;
        }
        assert_eq!(at, line.len());
        let kind = |text: &str| {
            toks.iter()
                .find(|t| &line[t.start..t.end] == text)
                .map(|t| t.kind)
        };
        assert_eq!(kind("while"), Some(TokenKind::Keyword));
        assert_eq!(kind("do"), Some(TokenKind::Keyword));
        assert_eq!(kind("copy"), Some(TokenKind::Ident));
        assert_eq!(kind("12"), Some(TokenKind::Number));
        assert_eq!(kind("/* c */"), Some(TokenKind::Comment));
        assert_eq!(kind("% done"), Some(TokenKind::Comment));
        assert_eq!(
            tokens("x ==> Legal").last().unwrap().kind,
            TokenKind::Comment
        );
    }
}
