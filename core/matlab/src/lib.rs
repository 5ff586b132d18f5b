//! The MATLAB language: the Tame IR (Dubrau 2012), the builtin table, the forward flow
//! framework, and the value analysis whose abstract values carry Joisha et al.'s shape
//! tuples. [`Matlab::analyze`] runs parse → lower → analyse and returns a [`Report`].
//!
//! The front end (grammar and AST) is its own crate, `shapex-matlab-syntax`, so the
//! syntax cannot depend on anything here.

pub mod builtins;
pub mod checks;
pub mod flow;
pub mod samples;
pub mod shape;
pub mod tame;
pub mod values;

use builtins::BuiltinTable;
use shapex_matlab_syntax::{self as matlab, ast};
use shapex_report::{Lang, Options, Report, Severity, StatementReport};

/// The MATLAB analysis with its read-only tables built once. Parsing the builtin table
/// is the largest fixed cost of a run, so callers that analyse on every keystroke (the
/// app) keep one `Matlab`; it holds no state between calls.
pub struct Matlab {
    builtins: BuiltinTable,
}

impl Default for Matlab {
    fn default() -> Self {
        Matlab::new()
    }
}

impl Matlab {
    pub fn new() -> Matlab {
        Matlab {
            builtins: BuiltinTable::standard(),
        }
    }

    /// Analyses `source` and returns the report. Never panics on any input.
    pub fn analyze(&self, source: &str, options: &Options) -> Report {
        let parsed = matlab::parse(source);
        let parse_ok = parsed
            .diagnostics
            .iter()
            .all(|d| d.severity != Severity::Error);
        let mut report = Report {
            lang: Lang::Matlab,
            mode: options.mode,
            parse_ok,
            diagnostics: parsed.diagnostics,
            statements: outline(&parsed.file),
            ir: String::new(),
            checks: String::new(),
        };
        if parsed.file.kind != ast::FileKind::Classdef {
            self.analyze_shapes(source, &parsed.file, options, &mut report);
        }
        report.resolve_positions(source);
        report.checks = checks::inline_checks(source, &report);
        report
    }

    /// Lowers to the Tame IR and runs the value analysis, filling the shape columns.
    fn analyze_shapes(
        &self,
        source: &str,
        file: &ast::File,
        options: &Options,
        report: &mut Report,
    ) {
        let lowered = tame::lower(file);
        report.diagnostics.extend(lowered.diagnostics);
        report.ir = lowered.program.to_string();
        let result = values::analyze_program(&lowered.program, &self.builtins, options.mode);
        values::fill_report(
            source,
            &result,
            &mut report.statements,
            &mut report.diagnostics,
        );
    }
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
