//! The MATLAB language: the Tame IR (Dubrau 2012), the builtin table, the forward flow
//! framework, and the value analysis whose abstract values carry Joisha et al.'s shape
//! tuples. [`Matlab::analyze`] runs parse → lower → analyse and returns a [`Report`].
//!
//! The front end (grammar and AST) is its own crate, `shapex-matlab-syntax`, so the
//! syntax cannot depend on anything here.

pub mod builtins;
pub mod callgraph;
pub mod checks;
pub mod codes;
pub mod declared;
pub mod entry;
pub mod flow;
pub mod samples;
pub mod shape;
pub mod tame;
pub mod values;
mod witness;

use builtins::BuiltinTable;
use serde::{Deserialize, Serialize};
use shapex_matlab_syntax::{self as matlab, ast};
use shapex_report::view::{self, Payload, ViewSpec};
use shapex_report::{
    Face, Language, LanguageInfo, Memo, OptionSpec, Options, Report, Severity, Sources,
    StatementReport,
};
use shapex_text::Token;
use std::collections::HashMap;
use std::rc::Rc;

/// Which MATLAB semantics the shape rules follow (the option `mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// MATLAB R2016b+ / Octave: implicit expansion (broadcasting) for element-wise ops.
    #[default]
    Modern,
    /// Strict MATLAB 5 semantics, as in Joisha et al. 2000.
    Paper,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Modern => "modern",
            Mode::Paper => "paper",
        }
    }

    /// The other semantics (for saying that an error is one of this mode only).
    pub fn other(self) -> Mode {
        match self {
            Mode::Modern => Mode::Paper,
            Mode::Paper => Mode::Modern,
        }
    }

    /// The mode `options` ask for (`modern` when missing or unknown).
    pub fn of(options: &Options) -> Mode {
        match options.get("mode") {
            Some("paper") => Mode::Paper,
            _ => Mode::Modern,
        }
    }

    /// Options that analyse MATLAB in this mode.
    pub fn options(self) -> Options {
        Options::new(ID).with("mode", self.as_str())
    }
}

/// What [`Matlab::analyze_with`] keeps between versions of one text (incremental
/// re-analysis, issue #8).
#[derive(Default)]
pub struct Incremental {
    pub parse: matlab::ParseMemo,
    pub functions: values::FunctionMemo,
    /// The other files the last run linked, lowered, by path: one whose text and
    /// temporaries' prefix are unchanged is not parsed again.
    pub units: HashMap<String, Rc<tame::link::Unit>>,
    /// What the last run built and no longer needs (its syntax tree and program),
    /// handed to the caller's `Memo::retire` to free after the result is shown.
    pub retired: Vec<Box<dyn std::any::Any>>,
}

/// The language's id in options, share links and the gallery.
pub const ID: &str = "matlab";

/// The id of the Values view: per statement, the abstract value of each variable it
/// defines (`values::values_table`).
pub const VALUES: &str = "values";

/// The id of the Extent graph view (functions with declared sizes, Derby & Zorn).
pub const EXTENT_GRAPH: &str = shapex_extent::view::EXTENT_GRAPH;

/// The MATLAB analysis with its read-only tables built once. Parsing the builtin table
/// is the largest fixed cost of a run, so callers that analyse on every keystroke (the
/// app) keep one `Matlab`; it holds no state between calls.
pub struct Matlab {
    builtins: BuiltinTable,
    info: LanguageInfo,
}

impl Default for Matlab {
    fn default() -> Self {
        Matlab::new()
    }
}

fn info() -> LanguageInfo {
    LanguageInfo {
        id: ID,
        name: "MATLAB",
        extensions: &["m"],
        tagline: "Paste MATLAB and see, statement by statement, the array shapes it computes — and why a line fails.",
        prints_shapes: true,
        lexical: shapex_report::language::Lexical { comments: &["%", "#"], quotes: &['"', '\''] },
        options: vec![OptionSpec {
            key: "mode",
            label: "Semantics",
            choices: vec![
                ("modern", "Modern (R2016b+, broadcasting)"),
                ("paper", "Paper (MATLAB 5, strict)"),
            ],
            help: vec![
                ("modern", "Today's MATLAB (R2016b and later) and Octave: arrays of compatible sizes broadcast (implicit expansion), so [1 2 3] + [1; 2] is 2×3."),
                ("paper", "The rules of Joisha et al. (2000), i.e. MATLAB 5: element-wise operands must have equal shapes or one must be a scalar, so [1 2 3] + [1; 2] is an error. Use it for the paper's examples; today's MATLAB broadcasts."),
            ],
            placeholder: "",
            multiline: false,
            hidden: false,
        }, OptionSpec {
            key: "entry",
            label: "Entry point",
            choices: vec![],
            help: vec![],
            placeholder: "main(double[3x4], char[1x?])",
            multiline: false,
            hidden: false,
        }],
        views: vec![
            ViewSpec {
                id: "shapes",
                title: "Shapes",
                empty: "No shapes yet. Shapes of the variables each statement defines appear here, coloured by their conformance check.",
            },
            ViewSpec {
                id: VALUES,
                title: "Values",
                empty: "No values yet. Each statement that defines variables appears here with their abstract values: class, shape and, where the analysis knows it, the value (`n: double 1×1 = 7`).",
            },
            ViewSpec {
                id: "checks",
                title: "Checks",
                empty: "No conformance checks to show yet: once the analysis runs, the program appears here with the checks it could not discharge marked ▶ (Joisha et al., Figures 4–6).",
            },
            ViewSpec {
                id: "callgraph",
                title: "Call graph",
                empty: "No functions yet: the functions of the file and who calls whom (the Tamer's call graph) appear here.",
            },
            ViewSpec {
                id: EXTENT_GRAPH,
                title: "Extent graph",
                empty: "No size declarations: give a function's inputs sizes (`%! size A[N,M] x[M,1]` after its header, or an `arguments` block with sizes) and its abstract extent graph (Derby & Zorn) appears here, with every call checked against the declared extents.",
            },
            ViewSpec {
                id: "ir",
                title: "IR",
                empty: "No IR yet: the lowered three-address program (Tamer IR) appears here once lowering runs.",
            },
        ],
    }
}

impl Language for Matlab {
    fn face() -> Face {
        Face {
            info: info(),
            tokens: matlab::highlight::tokenize_line,
        }
    }

    fn info(&self) -> &LanguageInfo {
        &self.info
    }

    fn analyze(&self, source: &str, options: &Options) -> Report {
        Matlab::analyze(self, source, options)
    }

    fn analyze_incremental(&self, source: &str, options: &Options, memo: &mut Memo) -> Report {
        self.analyze_sources(&Sources::alone("", source), options, memo)
    }

    fn analyze_sources(&self, sources: &Sources, options: &Options, memo: &mut Memo) -> Report {
        let state = memo.state::<Incremental>();
        let report = self.analyze_in_folder(sources, options, state);
        let retired = std::mem::take(&mut state.retired);
        memo.retire(Box::new(retired));
        report
    }

    fn tokens(&self, line: &str) -> Vec<Token> {
        matlab::highlight::tokenize_line(line)
    }

    fn explain(&self, code: &str) -> Option<String> {
        codes::explain(code).or_else(|| self.builtins.describe(code))
    }

    fn lookup(&self, path: &str, name: &str, search: &[String]) -> Vec<String> {
        let dir = path.rsplit_once('/').map_or("", |(dir, _)| dir);
        tame::link::candidates(dir, name, search)
    }
}

impl Matlab {
    pub fn new() -> Matlab {
        Matlab {
            builtins: BuiltinTable::standard(),
            info: info(),
        }
    }

    /// Analyses `source` and returns the report. Never panics on any input.
    pub fn analyze(&self, source: &str, options: &Options) -> Report {
        self.analyze_with(source, options, &mut Incremental::default())
    }

    /// [`Matlab::analyze`], reusing from `memo` what the edits since its last use cannot
    /// have changed: the clauses after the edit (`ParseMemo`) and the analysis of every
    /// function whose key is unchanged (`values::FunctionMemo`). Same report.
    pub fn analyze_with(&self, source: &str, options: &Options, memo: &mut Incremental) -> Report {
        self.analyze_in_folder(&Sources::alone("", source), options, memo)
    }

    /// [`Matlab::analyze_with`] of the file `sources.path`, whose calls of functions
    /// that neither it nor MATLAB defines run the files of those names in its folder or
    /// the search folders (`tame::link`): they are analysed in the contexts they are
    /// called in. The report is the one file's.
    pub fn analyze_in_folder(
        &self,
        sources: &Sources,
        options: &Options,
        memo: &mut Incremental,
    ) -> Report {
        let source = sources.text;
        let mode = Mode::of(options);
        let parsed = matlab::parse_with(source, &mut memo.parse);
        let parse_ok = parsed
            .diagnostics
            .iter()
            .all(|d| d.severity != Severity::Error);
        let mut report = Report {
            lang: ID.into(),
            settings: [
                ("mode".to_string(), mode.as_str().to_string()),
                (
                    "entry".to_string(),
                    options.get("entry").unwrap_or("").to_string(),
                ),
            ]
            .into(),
            parse_ok,
            diagnostics: parsed.diagnostics,
            statements: outline(&parsed.file),
            views: Vec::new(),
            ..Report::default()
        };
        let (mut ir, mut calls, mut extents) = (view::Text::default(), None, None);
        let mut values = view::Table::default();
        if parsed.file.kind != ast::FileKind::Classdef {
            // Entry-point warnings point at the first function's header.
            let at = parsed
                .file
                .functions
                .first()
                .map_or(Default::default(), |f| f.header);
            let entry = entry_option(options, at, &mut report.diagnostics);
            let settings = (mode, entry.as_ref());
            let (program, contexts, table) = self.analyze_shapes(
                sources,
                &parsed.file,
                settings,
                memo,
                (&mut report, options),
            );
            values = table;
            if options.wants("ir") {
                ir = ir_listing(&program, source);
            }
            if options.wants("callgraph") {
                calls = Some(callgraph::call_graph(&program, source, &contexts));
            }
            // Its diagnostics are the report's, whichever views are built.
            if let Some(checked) = declared::check(&program, source, &self.builtins) {
                report.diagnostics.extend(checked.diagnostics);
                if options.wants(EXTENT_GRAPH) {
                    let index = shapex_text::LineIndex::new(source);
                    let graph = shapex_extent::view::extent_graph(&checked.analysis, &index);
                    extents = Some(graph);
                }
            }
            memo.retired.push(Box::new(program));
        }
        memo.retired.push(Box::new(parsed.file));
        report.resolve_positions(source);
        // In tab order. The Values table, IR, call graph and extent graph were built
        // above only when asked for; a view not asked for is dropped here.
        let shapes = options
            .wants("shapes")
            .then(|| view::shapes_table(&report.statements, |s| s.kind == "function"));
        let checks = options
            .wants("checks")
            .then(|| checks::inline_checks(&report));
        let payloads = [
            ("shapes", shapes.map(Payload::Table)),
            (VALUES, Some(Payload::Table(values))),
            ("checks", checks.map(Payload::AnnotatedSource)),
            ("callgraph", Some(Payload::Graph(calls.unwrap_or_default()))),
            (
                EXTENT_GRAPH,
                Some(Payload::Graph(extents.unwrap_or_default())),
            ),
            ("ir", Some(Payload::Text(ir))),
        ];
        report.views = payloads
            .into_iter()
            .filter(|(id, _)| options.wants(id))
            .filter_map(|(id, payload)| {
                Some(view::View {
                    id: id.into(),
                    payload: payload?,
                })
            })
            .collect();
        report
    }

    /// Lowers to the Tame IR and runs the value analysis, filling the shape columns.
    /// Returns the Tame IR program it analysed, the calls analysed in context, and the
    /// Values view.
    fn analyze_shapes(
        &self,
        sources: &Sources,
        file: &ast::File,
        (mode, entry): (Mode, Option<&entry::Entry>),
        memo: &mut Incremental,
        (report, options): (&mut Report, &Options),
    ) -> (tame::Program, Vec<callgraph::ContextCall>, view::Table) {
        let source = sources.text;
        let (linked, diagnostics) = link(sources, file, &mut memo.units);
        report.diagnostics.extend(diagnostics);
        let entry = entry.and_then(|e| checked_entry(e, &linked, &mut report.diagnostics));
        let table = &self.builtins;
        let memo = &mut memo.functions;
        let result =
            values::analyze_linked(&linked, entry, source, table, (mode, options.witness), memo);
        values::fill_report(
            source,
            &result,
            &mut report.statements,
            &mut report.diagnostics,
        );
        if options.witness {
            let program = (&linked.program, entry.is_none() && mode == Mode::Modern);
            witness::fill_witnesses(source, program, &result, &mut report.statements);
        }
        builtin_refs(&linked, source, table, report);
        let values = match options.wants(VALUES) {
            true => values::values_table(
                source,
                &result,
                &report.statements,
                &lambda_texts(&linked, source),
            ),
            false => view::Table::default(),
        };
        // Each context vertex shows its function analysed in that context, computed
        // once per context (and for the first ones only: each is an analysis).
        let mut shown: HashMap<String, Vec<String>> = HashMap::new();
        let in_contexts = values::ContextLines::new(&linked, table, mode);
        // One line index per file, not per context: a 10,000-line file's costs 0.5 ms.
        let mut indexes: HashMap<Option<&str>, shapex_text::LineIndex> = HashMap::new();
        let mut lines_of = |ctx: &values::CallContext| {
            if !shown.contains_key(&ctx.label) && shown.len() < CONTEXTS_SHOWN {
                let origin = linked.origins.get(&ctx.callee);
                let text = file_text(&linked, &ctx.callee, source);
                let index = indexes
                    .entry(origin.map(|o| o.path.as_str()))
                    .or_insert_with(|| shapex_text::LineIndex::new(text));
                let lines = ctx.context.as_deref().map_or_else(Vec::new, |c| {
                    memo.context_lines(&ctx.callee, c, || in_contexts.lines(&ctx.callee, c))
                });
                shown.insert(ctx.label.clone(), context_detail(text, index, &lines));
            }
            shown.get(&ctx.label).cloned().unwrap_or_default()
        };
        let contexts = match options.wants("callgraph") {
            true => &result.functions[..],
            false => &[][..],
        };
        let contexts = contexts
            .iter()
            .flat_map(|f| {
                f.statements
                    .iter()
                    .filter(|s| s.viable)
                    .filter_map(move |s| {
                        let ctx = s.effect.context.as_deref()?;
                        Some((f, s, ctx))
                    })
            })
            .map(|(f, s, ctx)| callgraph::ContextCall {
                caller: f.name.clone(),
                span: s.span,
                callee: ctx.callee.clone(),
                file: linked.origins.get(&ctx.callee).map(|o| o.path.clone()),
                label: ctx.label.clone(),
                verdict: ctx.verdict,
                lines: lines_of(ctx),
            })
            .collect();
        let mut program = linked.program;
        program.functions.truncate(linked.own);
        (program, contexts, values)
    }
}

/// Each call of a builtin written by its name in the file (`sum(x)`, `hold on`; not an
/// operator, not a function of the program by the same name) as a [`shapex_report::Ref`]
/// on its source statement, and the builtin's rule (`BuiltinTable::describe`) once in
/// the glossary: what a face's hover shows, as `shapex explain NAME` prints it.
fn builtin_refs(
    linked: &tame::link::Linked,
    source: &str,
    table: &BuiltinTable,
    report: &mut Report,
) {
    let mut by_origin: HashMap<shapex_text::Span, usize> = HashMap::new();
    for (i, st) in report.statements.iter().enumerate() {
        by_origin.entry(st.span).or_insert(i);
    }
    let program = &linked.program;
    let own = &program.functions[..linked.own.min(program.functions.len())];
    let mut stack: Vec<&[tame::Stmt]> = own.iter().map(|f| &f.body[..]).collect();
    while let Some(body) = stack.pop() {
        for stmt in body {
            stack.extend(stmt.children());
            let Some((span, func)) = stmt.written_call(source) else {
                continue;
            };
            let Some(&i) = by_origin.get(&stmt.origin) else {
                continue;
            };
            if program.function(func).is_some() {
                continue;
            }
            let entry = format!("builtin:{func}");
            if !report.glossary.contains_key(&entry) {
                let Some(text) = table.describe(func) else {
                    continue;
                };
                report
                    .glossary
                    .insert(entry.clone(), format!("{func}: {text}"));
            }
            let st = &mut report.statements[i];
            let Some(at) = span.start.checked_sub(st.span.start) else {
                continue;
            };
            st.refs.push(shapex_report::Ref {
                at: at as u32,
                len: (span.end - span.start) as u32,
                entry,
            });
        }
    }
    for st in &mut report.statements {
        st.refs.sort_by_key(|r| r.at);
        st.refs.dedup();
    }
}

/// The source text of every anonymous function of the linked program, by its lifted
/// name, for the Values view (`g: function_handle = @(t) A*t`).
fn lambda_texts(linked: &tame::link::Linked, source: &str) -> values::Lambdas {
    linked
        .program
        .functions
        .iter()
        .filter(|f| f.kind == tame::FunctionKind::Lambda)
        .filter_map(|f| {
            let text = file_text(linked, &f.name, source).get(f.span.start..f.span.end)?;
            Some((f.name.clone(), text.to_string()))
        })
        .collect()
}

/// The text of the file linked function `name` is in: the analysed `source`, or the
/// other file it came from.
fn file_text<'a>(linked: &'a tame::link::Linked, name: &str, source: &'a str) -> &'a str {
    linked.origins.get(name).map_or(source, |o| &o.text)
}

/// The IR view: the program printed, each line with the source lines of the statement
/// it prints, so the face relates the two both ways.
fn ir_listing(program: &tame::Program, source: &str) -> view::Text {
    let (text, spans) = tame::print_with_origins(program);
    let index = shapex_text::LineIndex::new(source);
    let sources = spans
        .into_iter()
        .map(|span| {
            let span = span?;
            // The end is exclusive: a span ending at a newline ends on the line before.
            let last = span.end.saturating_sub(1).max(span.start);
            Some((index.line_col(span.start).line, index.line_col(last).line))
        })
        .collect();
    view::Text {
        text,
        marker: None,
        sources,
    }
}

/// Context vertices whose function is shown analysed in them (each costs an analysis).
const CONTEXTS_SHOWN: usize = 40;

/// `lines` of a function analysed in a context, each as `line 14: y = x * x  →  y
/// <4,4>` (`fails` or `run-time check` after it when its check is not proven).
fn context_detail(
    text: &str,
    index: &shapex_text::LineIndex,
    lines: &[values::ContextLine],
) -> Vec<String> {
    lines
        .iter()
        .filter_map(|l| {
            let code = text.get(l.origin.start..l.origin.end)?;
            let code: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
            let code = match code.chars().count() > 40 {
                true => format!("{}…", code.chars().take(39).collect::<String>()),
                false => code,
            };
            let line = index.line_col(l.origin.start).line;
            let mut out = format!("line {line}: {code}");
            if !l.shapes.is_empty() {
                out.push_str(&format!("  →  {}", l.shapes.join(", ")));
            }
            if let Some(status) = l.status {
                out.push_str(&format!("  ({status})"));
            }
            Some(out)
        })
        .collect()
}

/// The entry point the option `entry` names, if any; a malformed one is a warning
/// (the rest is analysed as if none were named).
fn entry_option(
    options: &Options,
    at: shapex_text::Span,
    diagnostics: &mut Vec<shapex_report::Diagnostic>,
) -> Option<entry::Entry> {
    let text = options
        .get("entry")
        .map(str::trim)
        .filter(|t| !t.is_empty())?;
    match entry::Entry::parse(text) {
        Ok(e) => Some(e),
        Err(e) => {
            diagnostics.push(entry_warning(
                at,
                "entry.syntax",
                format!(
                    "the entry point `{text}` is not understood at character {}: {}",
                    e.at + 1,
                    e.message
                ),
            ));
            None
        }
    }
}

/// `e` when it names a function of the file that takes that many arguments; else a
/// warning saying why it is ignored.
fn checked_entry<'e>(
    e: &'e entry::Entry,
    linked: &tame::link::Linked,
    diagnostics: &mut Vec<shapex_report::Diagnostic>,
) -> Option<&'e entry::Entry> {
    let own = &linked.program.functions[..linked.own];
    let named = |f: &&tame::Function| f.name == e.func && f.kind != tame::FunctionKind::Lambda;
    let Some(f) = own.iter().find(named) else {
        let names: Vec<&str> = own
            .iter()
            .filter(|f| f.kind != tame::FunctionKind::Lambda)
            .map(|f| f.name.as_str())
            .collect();
        let at = own.first().map_or(Default::default(), |f| f.span);
        diagnostics.push(entry_warning(
            at,
            "entry.unknown",
            format!(
                "the entry point names `{}`, which this file does not define (its functions: {})",
                e.func,
                names.join(", ")
            ),
        ));
        return None;
    };
    let variadic = f.params.last().is_some_and(|p| p == "varargin");
    if !variadic && e.args.len() > f.params.len() {
        diagnostics.push(entry_warning(
            f.span,
            "entry.nargin",
            format!(
                "the entry point passes {} arguments to `{}`, which declares {}",
                e.args.len(),
                f.name,
                f.params.len()
            ),
        ));
        return None;
    }
    Some(e)
}

/// A warning about the entry point (which is not in the text: it points at `at`, the
/// header of the function it names or of the file's first).
fn entry_warning(at: shapex_text::Span, code: &str, message: String) -> shapex_report::Diagnostic {
    let at = shapex_text::Span::new(at.start, at.start);
    shapex_report::Diagnostic::warning(code, message, at).with_help(
        "The entry point is the option `entry` (`--entry` in the CLI): `main(double[3x4], char[1x?], int32, struct)`; without one, every function's inputs are symbolic.",
    )
}

/// Lowers `file` (the text of `sources.path`) and links it with the files its calls
/// reach, each lowered with one temporaries' prefix (`units` holds them lowered by the
/// last run, and then this run's). Returns the lowering's diagnostics too.
fn link(
    sources: &Sources,
    file: &ast::File,
    units: &mut HashMap<String, Rc<tame::link::Unit>>,
) -> (tame::link::Linked, Vec<shapex_report::Diagnostic>) {
    let old = std::mem::take(units);
    let path = tame::link::Path {
        file: sources.path,
        search: sources.search,
    };
    let mut prefix = tame::TEMP_PREFIX.to_string();
    loop {
        let lowered = tame::lower_with_prefix(file, &prefix);
        units.clear();
        let mut load = |p: &str| {
            let unit = load_unit(sources, p, &prefix, &old)?;
            units.insert(p.to_string(), unit.clone());
            Some(unit)
        };
        let linked = tame::link::link(lowered.program, &path, &mut load);
        match linked.needs_prefix.clone() {
            // Every lowering extends the prefix it starts from: this ends.
            Some(longer) if longer.len() > prefix.len() => prefix = longer,
            _ => return (linked, lowered.diagnostics),
        }
    }
}

/// The file at `path`, lowered with temporaries from `prefix` (as `old` holds it when
/// its text is unchanged), or `None` when there is no such file.
fn load_unit(
    sources: &Sources,
    path: &str,
    prefix: &str,
    old: &HashMap<String, Rc<tame::link::Unit>>,
) -> Option<Rc<tame::link::Unit>> {
    let text = (sources.read)(path)?;
    if let Some(unit) = old.get(path) {
        if unit.text == text && unit.prefix == prefix {
            return Some(unit.clone());
        }
    }
    let parsed = matlab::parse(&text);
    // MATLAB cannot call a script, a class or a file it cannot parse.
    let callable = parsed.file.kind == ast::FileKind::Function
        && parsed
            .diagnostics
            .iter()
            .all(|d| d.severity != Severity::Error);
    let program = callable.then(|| tame::lower_with_prefix(&parsed.file, prefix).program);
    Some(Rc::new(tame::link::Unit {
        path: path.to_string(),
        text,
        prefix: prefix.to_string(),
        program,
    }))
}

/// One [`StatementReport`] per statement, in source order, with nesting depth.
fn outline(file: &ast::File) -> Vec<StatementReport> {
    let mut out = Vec::new();
    push_block(&file.body, 0, &mut out);
    for f in &file.functions {
        push_function(f, 0, &mut out);
    }
    out
}

fn push_function(f: &ast::Function, depth: u32, out: &mut Vec<StatementReport>) {
    out.push(StatementReport {
        span: f.header,
        kind: "function".into(),
        depth,
        label: f.name.name.clone(),
        ..Default::default()
    });
    push_block(&f.body, depth + 1, out);
    for n in &f.nested {
        push_function(n, depth + 1, out);
    }
}

fn push_block(stmts: &[ast::Stmt], depth: u32, out: &mut Vec<StatementReport>) {
    for s in stmts {
        out.push(StatementReport {
            span: s.span,
            kind: stmt_kind(&s.kind).into(),
            depth,
            label: stmt_label(&s.kind),
            ..Default::default()
        });
        for block in child_blocks(&s.kind) {
            push_block(block, depth + 1, out);
        }
    }
}

/// The statement lists nested directly inside a compound statement.
pub fn child_blocks(kind: &ast::StmtKind) -> Vec<&[ast::Stmt]> {
    use ast::StmtKind::*;
    match kind {
        If { arms, else_body } => arms
            .iter()
            .map(|(_, b)| b.as_slice())
            .chain(else_body.as_deref())
            .collect(),
        Switch {
            cases, otherwise, ..
        } => cases
            .iter()
            .map(|(_, b)| b.as_slice())
            .chain(otherwise.as_deref())
            .collect(),
        For { body, .. } | While { body, .. } | DoUntil { body, .. } => vec![body],
        Try {
            body, catch_body, ..
        } => vec![body, catch_body],
        UnwindProtect { body, cleanup } => vec![body, cleanup],
        _ => vec![],
    }
}

pub fn stmt_kind(kind: &ast::StmtKind) -> &'static str {
    use ast::StmtKind::*;
    match kind {
        Expr(_) => "expr",
        Assign { .. } => "assign",
        If { .. } => "if",
        Switch { .. } => "switch",
        For { parfor: false, .. } => "for",
        For { parfor: true, .. } => "parfor",
        While { .. } => "while",
        DoUntil { .. } => "do",
        Try { .. } => "try",
        UnwindProtect { .. } => "unwind_protect",
        Break => "break",
        Continue => "continue",
        Return => "return",
        Global(_) => "global",
        Persistent(_) => "persistent",
        Command { .. } => "command",
        Arguments => "arguments",
        Error => "error",
    }
}

fn stmt_label(kind: &ast::StmtKind) -> String {
    use ast::StmtKind::*;
    match kind {
        Assign { lhs, .. } => lhs
            .iter()
            .map(|l| match l {
                ast::LValue::Tilde(_) => "~".to_string(),
                ast::LValue::Path { base, .. } => base.name.clone(),
            })
            .collect::<Vec<_>>()
            .join(", "),
        Command { name, .. } => name.name.clone(),
        Global(names) | Persistent(names) => names
            .iter()
            .map(|n| n.name.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}
