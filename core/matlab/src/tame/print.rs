//! Pretty-printer: prints the Tame IR back as valid MATLAB (and Octave).
//!
//! A script prints its body first and its functions after it (MATLAB's local functions
//! in scripts); every function is closed by `end`, nested functions print inside their
//! parent. A `while` prints its condition header before the loop, at the end of the
//! body, and before each `continue` of that loop, which is the thesis's form.

use super::ir::*;
use shapex_text::Span;
use std::fmt::{self, Write};

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut p = Printer::default();
        p.program(self);
        f.write_str(&p.out)
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut p = Printer::default();
        if self.kind == FunctionKind::Script {
            p.block(&self.body, &[]);
        } else {
            let prog = Program {
                functions: vec![],
                temp_prefix: String::new(),
                stmt_count: 0,
            };
            p.function(&prog, self);
        }
        f.write_str(&p.out)
    }
}

impl fmt::Display for Stmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut p = Printer::default();
        p.stmt(self, &[]);
        f.write_str(p.out.trim_end())
    }
}

#[derive(Default)]
struct Printer {
    out: String,
    /// Per line of `out`, the source it prints (see [`print_with_origins`]).
    origins: Vec<Option<Span>>,
    /// The source of the lines printed now: the statement being printed, or `None`
    /// for lines no statement stands behind (`end`, `else`).
    at: Option<Span>,
    depth: usize,
    /// Nested functions already printed (indices into the program's functions): each
    /// prints once, inside the first function of its parent's name, so a nested
    /// function named like its parent (`function f … function f`) cannot recurse.
    nested_done: Vec<usize>,
}

fn list(vars: &[Var]) -> String {
    vars.join(", ")
}

fn indices(ix: &[Index]) -> String {
    ix.iter()
        .map(|i| match i {
            Index::Var(v) => v.as_str(),
            Index::Colon => ":",
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn field(f: &Field) -> String {
    match f {
        Field::Static(n) => n.clone(),
        Field::Dynamic(v) => format!("({v})"),
    }
}

fn targets(ts: &[Var]) -> String {
    match ts {
        [] => String::new(),
        [t] => format!("{t} = "),
        _ => format!("[{}] = ", list(ts)),
    }
}

/// A literal as MATLAB source text.
pub fn literal(l: &Literal) -> String {
    match l {
        Literal::Number { value, imag, text } => {
            if !text.is_empty() {
                text.clone()
            } else if *imag {
                format!("{value}i")
            } else {
                format!("{value}")
            }
        }
        Literal::Str {
            value,
            double_quoted,
        } => string_literal(value, *double_quoted),
        Literal::Numbers { rows } => {
            let entry = |e: &TableEntry| {
                let sign = if e.negated { "-" } else { "" };
                let number = literal(&Literal::Number {
                    value: e.value,
                    imag: e.imag,
                    text: e.text.clone(),
                });
                format!("{sign}{number}")
            };
            let rows: Vec<String> = rows
                .iter()
                .map(|r| r.iter().map(entry).collect::<Vec<_>>().join(", "))
                .collect();
            format!("[{}]", rows.join("; "))
        }
    }
}

/// Quotes `value`; characters that cannot appear inside a quoted literal (newlines,
/// control characters, and backslashes in double quotes, which Octave would read as
/// escapes) are spliced in as `char(n)`, giving a char row either way.
fn string_literal(value: &str, double_quoted: bool) -> String {
    let plain = |c: char| !(c.is_control() || (double_quoted && c == '\\'));
    if value.chars().all(plain) {
        return if double_quoted {
            format!("\"{}\"", value.replace('"', "\"\""))
        } else {
            format!("'{}'", value.replace('\'', "''"))
        };
    }
    let mut parts = Vec::new();
    let mut run = String::new();
    for c in value.chars() {
        if plain(c) {
            run.push(c);
        } else {
            if !run.is_empty() {
                parts.push(format!("'{}'", run.replace('\'', "''")));
                run.clear();
            }
            parts.push(format!("char({})", c as u32));
        }
    }
    if !run.is_empty() {
        parts.push(format!("'{}'", run.replace('\'', "''")));
    }
    format!("[{}]", parts.join(", "))
}

/// The deepest indentation printed: a `switch` of n cases is an if-chain nested n
/// deep, and indenting every level made its IR text grow as n² (a 5,000-case font
/// table's, hundreds of megabytes). Deeper lines are indented as this level.
const MAX_INDENT: usize = 32;

impl Printer {
    fn program(&mut self, prog: &Program) {
        for func in &prog.functions {
            if func.kind == FunctionKind::Script {
                self.block(&func.body, &[]);
            }
        }
        for func in &prog.functions {
            if func.kind != FunctionKind::Script && func.kind != FunctionKind::Nested {
                self.function(prog, func);
            }
        }
    }

    fn line(&mut self, text: &str) {
        self.origins.push(self.at);
        for _ in 0..self.depth.min(MAX_INDENT) {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn function(&mut self, prog: &Program, func: &Function) {
        let outs = match func.outputs.as_slice() {
            [] => String::new(),
            [o] => format!("{o} = "),
            os => format!("[{}] = ", list(os)),
        };
        self.at = Some(header_of(func.span));
        self.line(&format!(
            "function {outs}{}({})",
            func.name,
            list(&func.params)
        ));
        self.depth += 1;
        self.block(&func.body, &[]);
        for (i, nested) in prog.functions.iter().enumerate() {
            let child =
                nested.kind == FunctionKind::Nested && nested.parent.as_ref() == Some(&func.name);
            if child && !self.nested_done.contains(&i) {
                self.nested_done.push(i);
                self.function(prog, nested);
            }
        }
        self.depth -= 1;
        self.at = None;
        self.line("end");
    }

    /// `header` is the condition header of the innermost enclosing `while`, re-printed
    /// before each `continue`.
    fn block(&mut self, stmts: &[Stmt], header: &[Stmt]) {
        for s in stmts {
            self.stmt(s, header);
        }
    }

    fn simple(&mut self, s: &Stmt, text: String) {
        let end = if s.prints { "" } else { ";" };
        self.line(&format!("{text}{end}"));
    }

    fn stmt(&mut self, s: &Stmt, header: &[Stmt]) {
        // A compound statement's span is all of it; its own line is its first.
        let compound = matches!(
            s.kind,
            StmtKind::If { .. }
                | StmtKind::While { .. }
                | StmtKind::For { .. }
                | StmtKind::Try { .. }
        );
        self.at = Some(if compound { header_of(s.span) } else { s.span });
        match &s.kind {
            StmtKind::AssignLiteral { lhs, value } => {
                self.simple(s, format!("{lhs} = {}", literal(value)))
            }
            StmtKind::Copy { lhs, rhs } => self.simple(s, format!("{lhs} = {rhs}")),
            // `cellhorzcat` is the Tamer's pseudo-builtin for a cell literal row.
            StmtKind::Call {
                targets: ts,
                func,
                args,
            } if func == "cellhorzcat" => {
                self.simple(s, format!("{}{{{}}}", targets(ts), list(args)))
            }
            StmtKind::Call {
                targets: ts,
                func,
                args,
            } => self.simple(s, format!("{}{func}({})", targets(ts), list(args))),
            StmtKind::ArrayGet {
                targets: ts,
                array,
                indices: ix,
                update,
            } => self.get(s, *update, ts, format!("{array}({})", indices(ix))),
            StmtKind::ArraySet {
                array,
                indices: ix,
                rhs,
            } => self.simple(s, format!("{array}({}) = {rhs}", indices(ix))),
            StmtKind::CellGet {
                targets: ts,
                cell,
                indices: ix,
                update,
            } => self.get(s, *update, ts, format!("{cell}{{{}}}", indices(ix))),
            StmtKind::CellSet {
                cell,
                indices: ix,
                rhs,
            } => self.simple(s, format!("{cell}{{{}}} = {rhs}", indices(ix))),
            StmtKind::DotGet {
                targets: ts,
                base,
                field: fl,
                update,
            } => self.get(s, *update, ts, format!("{base}.{}", field(fl))),
            StmtKind::DotSet {
                base,
                field: fl,
                rhs,
            } => self.simple(s, format!("{base}.{} = {rhs}", field(fl))),
            StmtKind::FuncHandle { lhs, func } => self.simple(s, format!("{lhs} = @{func}")),
            StmtKind::Lambda {
                lhs,
                func,
                params,
                captured,
            } => {
                let all: Vec<Var> = captured.iter().chain(params).cloned().collect();
                self.simple(
                    s,
                    format!("{lhs} = @({}) {func}({})", list(params), list(&all)),
                )
            }
            StmtKind::Global(vs) => self.simple(s, format!("global {}", vs.join(" "))),
            StmtKind::Persistent(vs) => self.simple(s, format!("persistent {}", vs.join(" "))),
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => {
                self.line(&format!("if {cond}"));
                self.nested(then_body, header);
                self.at = None;
                if !else_body.is_empty() {
                    self.line("else");
                    self.nested(else_body, header);
                    self.at = None;
                }
                self.line("end");
            }
            StmtKind::While {
                header: h,
                cond,
                body,
            } => {
                self.block(h, header);
                self.at = Some(header_of(s.span));
                self.line(&format!("while {cond}"));
                self.nested(body, h);
                self.depth += 1;
                self.block(h, h);
                self.depth -= 1;
                self.at = None;
                self.line("end");
            }
            StmtKind::For { var, iter, body } => {
                let range = match iter {
                    ForIter::Range {
                        lower,
                        step: Some(st),
                        upper,
                    } => format!("{lower}:{st}:{upper}"),
                    ForIter::Range {
                        lower,
                        step: None,
                        upper,
                    } => format!("{lower}:{upper}"),
                    ForIter::Columns(a) => a.clone(),
                };
                self.line(&format!("for {var} = {range}"));
                // A `continue` in a for loop needs no header.
                self.nested(body, &[]);
                self.at = None;
                self.line("end");
            }
            StmtKind::Try {
                body,
                catch_var,
                catch_body,
            } => {
                self.line("try");
                self.nested(body, header);
                self.at = None;
                match catch_var {
                    Some(v) => self.line(&format!("catch {v}")),
                    None => self.line("catch"),
                }
                self.nested(catch_body, header);
                self.at = None;
                self.line("end");
            }
            StmtKind::Break => self.line("break;"),
            StmtKind::Continue => {
                self.block(header, header);
                self.at = Some(s.span);
                self.line("continue;");
            }
            StmtKind::Return => self.line("return;"),
        }
    }

    /// A get; a read made for a nested update (`s.a.b = x`) yields `[]` where the part
    /// does not exist yet, as MATLAB creates it on assignment.
    fn get(&mut self, s: &Stmt, update: bool, ts: &[Var], access: String) {
        if update {
            let t = targets(ts);
            let empty: Vec<String> = ts.iter().map(|v| format!("{v} = [];")).collect();
            self.line(&format!("try, {t}{access}; catch, {} end", empty.join(" ")));
        } else {
            self.simple(s, format!("{}{access}", targets(ts)));
        }
    }

    fn nested(&mut self, stmts: &[Stmt], header: &[Stmt]) {
        self.depth += 1;
        self.block(stmts, header);
        self.depth -= 1;
    }
}

/// The first byte of `span`, as an empty span: a compound statement's or function's
/// own line is its first, not the lines of its body.
fn header_of(span: Span) -> Span {
    Span::new(span.start, span.start)
}

/// The program as MATLAB text, with the source each line prints: the span of the IR
/// statement it prints (a compound statement's first byte, for its header line), or
/// `None` for `end`, `else` and the like. So a face can relate IR lines to source lines
/// both ways.
pub fn print_with_origins(p: &Program) -> (String, Vec<Option<Span>>) {
    let mut printer = Printer::default();
    printer.program(p);
    (printer.out, printer.origins)
}

/// The program as MATLAB text (same as `to_string`, named for call sites).
pub fn print_program(p: &Program) -> String {
    let mut s = String::new();
    let _ = write!(s, "{p}");
    s
}
