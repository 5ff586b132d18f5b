//! From value-analysis results to the Report: each source statement gets the shapes of
//! the variables it defines, the status of its conformance condition θ, the condition
//! as it remains after the facts of earlier statements, and the rule applied; each
//! definite shape error becomes an error diagnostic on its line.

pub use super::display::MORE;
use super::display::{describe_bounded, shape_text_bounded, Lambdas};
use super::results::{Arity, Bounds, Failure, ProgramResult, StmtResult};
use crate::shape::{Notation, Outcome, Rule, Shape};
use shapex_dims::Constraint;
use shapex_report::{
    CheckStatus, Def, Diagnostic, DimView, ShapeView, StatementReport, SymbolNote,
};
use shapex_text::{LineIndex, Span};
use std::collections::HashMap;

/// Fills `statements` (one per source statement) and appends shape diagnostics.
pub fn fill_report(
    source: &str,
    result: &ProgramResult,
    statements: &mut [StatementReport],
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut by_origin: HashMap<Span, Vec<&StmtResult>> = HashMap::new();
    for f in &result.functions {
        for s in &f.statements {
            by_origin.entry(s.origin).or_default().push(s);
        }
    }
    let lines = LineIndex::new(source);
    for st in statements.iter_mut() {
        if let Some(irs) = by_origin.get(&st.span) {
            summarise(st, irs);
            st.symbols = symbols(st, irs, &lines);
        }
    }
    // After every statement has its symbols, so one symbol gets one alias in the whole
    // report, whichever functions the memo reused.
    shapex_report::legend::number_aliases(statements);
    for d in &result.diagnostics {
        // Loop notes point at the loop's first line, not its whole body.
        let first_line = source
            .get(d.span.start..d.span.end)
            .and_then(|t| t.find('\n'))
            .map_or(d.span.end, |n| d.span.start + n);
        let span = Span::new(d.span.start, first_line);
        let keep_span = d.code == "shape.loop.iteration";
        diagnostics.push(Diagnostic {
            span: if keep_span { d.span } else { span },
            ..d.clone()
        });
    }
    // The first error of each source statement says, once, that what it defines is
    // not checked further.
    let mut told: std::collections::HashSet<Span> = Default::default();
    for f in &result.functions {
        for s in f.statements.iter().filter(|s| s.viable) {
            if s.effect.maybe_script {
                let note = script_note(s);
                if !diagnostics.contains(&note) {
                    diagnostics.push(note);
                }
            }
            for o in &s.effect.outcomes {
                if o.check() == CheckStatus::Error {
                    let mut d = match (s.effect.arity, s.effect.classes) {
                        (Some(arity), _) => arity_error(s, arity),
                        (None, Some(classes)) => class_error(source, s, o, classes),
                        (None, None) => shape_error(source, s, o),
                    };
                    if told.insert(s.origin) {
                        let names = defined_names(by_origin.get(&s.origin));
                        if !names.is_empty() {
                            let help = d.help.take().unwrap_or_default();
                            d.help = Some(format!(
                                "{help} Later lines that use {} are not checked: no run gets past this line.",
                                names.join(", ")
                            ));
                        }
                    }
                    diagnostics.push(d);
                }
                if o.rule.rule == Rule::Capped {
                    let note = capped_note(s, o);
                    if !diagnostics.contains(&note) {
                        diagnostics.push(note);
                    }
                }
            }
        }
    }
}

/// The Values view: one row per source statement that defines variables, with each
/// named variable's abstract value after it (`x: double <3,4>`, `n: double <1,1> = 7`),
/// in one text cell whose shapes faces rewrite in the reader's notation. Lowering's
/// temporaries are never among a result's defs. Called after [`fill_report`], so the
/// values show the aliases the Shapes view shows (`?₁`). A row per statement and a
/// bounded text per value: the table grows with the program, like the Shapes table.
pub fn values_table(
    source: &str,
    result: &ProgramResult,
    statements: &[StatementReport],
    lambdas: &Lambdas,
) -> shapex_report::view::Table {
    use shapex_report::view::{Cell, CellValue, Row, Table};
    let mut by_origin: HashMap<Span, Vec<&StmtResult>> = HashMap::new();
    for f in &result.functions {
        for s in &f.statements {
            by_origin.entry(s.origin).or_default().push(s);
        }
    }
    let lines = LineIndex::new(source);
    let mut rows = Vec::new();
    for st in statements {
        let Some(irs) = by_origin.get(&st.span) else {
            continue;
        };
        // No execution reaches it: it defines nothing (the Shapes view says so).
        if irs.iter().all(|s| !s.viable) {
            continue;
        }
        let root = fails_itself(irs);
        let mut values: Vec<(&str, String)> = Vec::new();
        let defs = irs.iter().flat_map(|s| {
            s.defs
                .iter()
                .enumerate()
                .map(move |(i, d)| (d, s.bounds.get(i).cloned().flatten()))
        });
        for ((name, value), bounds) in defs {
            // π where the statement fails; a value it only inherits is not checked.
            let text = match value.shape {
                Shape::Illegal if !root => "? ?".to_string(),
                // A value known only as the variable's own symbol (a loop variable
                // `i`, an input `n`) says nothing more than its name.
                _ => {
                    let text = describe_bounded(value, bounds.as_deref(), lambdas);
                    match text.strip_suffix(&format!(" = {name}")) {
                        Some(plain) => plain.to_string(),
                        None => text,
                    }
                }
            };
            match values.iter_mut().find(|(n, _)| n == name) {
                Some(v) => v.1 = text,
                None => values.push((name, text)),
            }
        }
        if values.is_empty() {
            continue;
        }
        let text: Vec<String> = values
            .iter()
            .map(|(name, value)| format!("{name}: {value}"))
            .collect();
        let text = text.join("; ");
        let mut title = st.legend_of(&text).join("\n");
        let text = st.aliased(&text);
        // A union of classes (`double|char`): not tame, in the thesis's words.
        if values.iter().any(|(_, v)| union_shown(v)) {
            if !title.is_empty() {
                title.push('\n');
            }
            title.push_str(UNION_NOTE);
        }
        let text = match values.iter().any(|(_, v)| union_shown(v)) {
            true => format!("{text} (not tame)"),
            false => text,
        };
        rows.push(Row {
            line: lines.line_col(st.span.start).line,
            label: first_line(source, st.span),
            cells: vec![Cell {
                column: 0,
                value: CellValue::Text(text),
                class: st.check.class().to_string(),
                title,
            }],
            new_workspace: false,
        });
    }
    Table {
        columns: vec!["values".to_string()],
        rows,
    }
}

/// The note of a value whose class is a union (`double|char <1,1>`).
const UNION_NOTE: &str = "not tame: the class differs between the paths that reach here (a union type, Dubrau 2012 §3.4), so the analysis treats the value as of unknown class";

/// Whether a described value's class is a union (`double|char <1,1>`).
fn union_shown(text: &str) -> bool {
    text.split(' ').next().is_some_and(|c| c.contains('|'))
}

/// The first line of the statement at `span`, spaces collapsed, shortened to one row.
fn first_line(source: &str, span: Span) -> String {
    let text = source.get(span.start..span.end).unwrap_or("");
    let line = text.lines().next().unwrap_or("");
    let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.chars().count() > 40 {
        true => format!("{}…", line.chars().take(39).collect::<String>()),
        false => line,
    }
}

/// The variables a source statement defines (its IR statements' non-temporary
/// targets, which are the defs the report shows), quoted: `` `c` ``.
fn defined_names(irs: Option<&Vec<&StmtResult>>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (name, _) in irs.into_iter().flatten().flat_map(|s| &s.defs) {
        let quoted = format!("`{name}`");
        if !names.contains(&quoted) {
            names.push(quoted);
        }
    }
    names
}

/// What each symbol the statement shows (in its defs' shapes, its condition, or the
/// operands its definite error cites) stands for, with the line whose run makes it
/// known, and the alias it asks for (numbered later, for the whole report).
fn symbols(st: &StatementReport, irs: &[&StmtResult], lines: &LineIndex) -> Vec<SymbolNote> {
    // Most statements mint or show no symbol: then nothing below needs formatting.
    if irs.iter().all(|r| !r.viable || r.glossary.is_empty()) {
        return Vec::new();
    }
    let operands: Vec<String> = irs
        .iter()
        .filter(|r| r.viable)
        .filter(|r| {
            r.effect
                .outcomes
                .iter()
                .any(|o| o.check() == CheckStatus::Error)
        })
        .flat_map(|r| r.effect.operands.iter().map(|s| s.display(Notation::Paper)))
        .collect();
    let shown: Vec<&str> = st
        .defs
        .iter()
        .map(|d| d.display.as_str())
        .chain(st.condition.as_deref())
        .chain(operands.iter().map(String::as_str))
        // The values the Values view shows (`= max(?₁,0)-max(x,0)`), so its symbols
        // read as the Shapes view's do.
        .chain(st.defs.iter().filter_map(|d| d.value.as_deref()))
        .collect();
    let mut out: Vec<SymbolNote> = Vec::new();
    for g in irs.iter().filter(|r| r.viable).flat_map(|r| &r.glossary) {
        if out.iter().any(|n| n.name == g.name) || !shown.iter().any(|t| mentions(t, &g.name)) {
            continue;
        }
        let mut meaning = g.meaning.clone();
        if let Some(site) = g.site {
            let line = lines.line_col(site.start).line;
            meaning.push_str(&format!(", known when line {line} runs{}", g.iteration));
        }
        if let Some(why) = g.why {
            meaning.push_str(&format!(" ({why})"));
        }
        out.push(SymbolNote {
            name: g.name.clone(),
            meaning,
            alias: g.alias.clone(),
        });
    }
    out
}

/// Whether `text` shows the symbol `name` as a whole (`n` is not in `n#2` or `nn`).
fn mentions(text: &str, name: &str) -> bool {
    let part = |c: char| c.is_alphanumeric() || matches!(c, '_' | '#' | '~' | '@' | '.');
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(part) && !after.is_some_and(part)
    })
}

/// A bare call of an unknown name may run a script in this workspace: say why every
/// variable is unknown after it (not tame, Dubrau 2012 §1.4).
fn script_note(s: &StmtResult) -> Diagnostic {
    let name = &s.effect.op;
    Diagnostic::new(
        crate::Severity::Info,
        "tame.script",
        format!("not tame: `{name}` may be a script, which runs in this workspace and may change any variable, so every variable is unknown after it"),
        s.span,
    )
    .with_help("The MATLAB Tamer (Dubrau 2012, §1.4) does not analyse scripts calling scripts. A function of another file could not change this workspace, but without that file the analysis cannot tell which it is.")
}

/// A rule gave up on a number too large to analyse (`cat(1e9, a, b)`): say so, so an
/// unknown shape is not mistaken for the analysis's last word.
fn capped_note(s: &StmtResult, o: &Outcome) -> Diagnostic {
    let theta = o.theta.to_string();
    let what = theta.strip_prefix("capped: ").unwrap_or(&theta);
    Diagnostic::new(
        crate::Severity::Info,
        "shape.capped",
        format!("not analysed (capped): {what}; its shape is unknown and it is checked at run time"),
        s.span,
    )
    .with_help(format!(
        "Ranks and lists of extents built from a number in the program are capped at {} dimensions: past that the analysis gives up on the statement rather than allocate one extent per dimension. It is neither proven nor a definite error.",
        crate::shape::MAX_RANK
    ))
}

/// Whether the source statement whose IR statements are `irs` fails itself (a definite
/// error), rather than only using a value that an earlier failure left π.
fn fails_itself(irs: &[&StmtResult]) -> bool {
    irs.iter().filter(|s| s.viable).any(|s| {
        s.effect
            .outcomes
            .iter()
            .any(|o| o.check() == CheckStatus::Error)
    })
}

/// A def's shape as the report shows it. An array of open rank (an input, or computed
/// from one element by element) may have more dimensions than its tuple: `<x_1,x_2,…>`,
/// with `…` as a last extent in the JSON as well, so no reader takes it for 2-D.
fn shown(shape: &Shape, open_rank: bool, bounds: &Bounds) -> (ShapeView, String) {
    let mut view = shape.to_view();
    if let ShapeView::Dims {
        dims: Some(dims),
        max,
    } = &mut view
    {
        if open_rank {
            dims.push(DimView::Symbolic(MORE.into()));
        }
        // One bound per extent shown (none for `…`).
        *max = bounds.as_ref().map(|b| {
            (0..dims.len())
                .map(|k| b.get(k).copied().flatten())
                .collect()
        });
    }
    (
        view,
        shape_text_bounded(shape, open_rank, bounds.as_deref()),
    )
}

fn summarise(st: &mut StatementReport, irs: &[&StmtResult]) {
    let mut defs: Vec<Def> = Vec::new();
    // π is shown where the failure is. A statement that only inherits π from an
    // earlier one is not checked (no run gets there past the failure): its shapes are
    // unknown to the reader, not a second "illegal" (one root cause).
    let root = fails_itself(irs);
    for s in irs.iter().filter(|s| s.viable || !s.defs.is_empty()) {
        for (i, (name, value)) in s.defs.iter().enumerate() {
            let shape = match &value.shape {
                Shape::Illegal if !root => &Shape::Unknown,
                shape => shape,
            };
            let bounds = s.bounds.get(i).cloned().flatten();
            let (view, display) = shown(shape, value.open_rank, &bounds);
            let def = Def {
                name: name.clone(),
                shape: view,
                display,
                class: value.class.map(str::to_string),
                value: value.scalar.as_ref().map(ToString::to_string),
            };
            match defs.iter_mut().find(|d| d.name == *name) {
                Some(d) => *d = def,
                None => defs.push(def),
            }
        }
    }
    st.defs = defs;
    // No execution reaches it (a branch that cannot be taken, code after a definite
    // error): it neither succeeds nor fails, so it shows no shapes and no check. π is
    // kept for statements that run and fail.
    st.nonviable = irs.iter().all(|s| !s.viable);
    if st.nonviable {
        st.defs.clear();
        return;
    }
    let outcomes: Vec<(&StmtResult, usize, &Outcome)> = irs
        .iter()
        .filter(|s| s.viable)
        .flat_map(|s| {
            s.effect
                .outcomes
                .iter()
                .enumerate()
                .map(move |(i, o)| (*s, i, o))
        })
        .filter(|(_, _, o)| status(o) != CheckStatus::None)
        .collect();
    st.check = outcomes
        .iter()
        .map(|(_, _, o)| status(o))
        .max_by_key(|c| severity(*c))
        .unwrap_or(CheckStatus::None);
    let shown: Vec<&(&StmtResult, usize, &Outcome)> = outcomes
        .iter()
        .filter(|(_, _, o)| status(o) == st.check)
        .collect();
    // Each condition once: two rules proven outright both read `true`.
    let mut conditions: Vec<String> = Vec::new();
    for c in shown.iter().map(|(s, i, o)| residual(s, *i, o)) {
        if !conditions.contains(&c) {
            conditions.push(c);
        }
    }
    if !conditions.is_empty() {
        st.condition = Some(conditions.join(" ∧ "));
    }
    let mut rules: Vec<String> = Vec::new();
    for (_, _, o) in outcomes.iter() {
        let r = format!("{} ({})", o.rule.name(), o.rule.source);
        if !rules.contains(&r) {
            rules.push(r);
        }
    }
    if !rules.is_empty() {
        st.rule = Some(rules.join("; "));
    }
}

/// The check status of an outcome. A rule with a conformance condition whose θ folded
/// to true on the operands is *proven* (the paper's statically discharged check), not
/// condition-free like `zeros(3)`.
fn status(o: &Outcome) -> CheckStatus {
    match o.check() {
        CheckStatus::None if o.rule.rule.has_condition() => CheckStatus::Proven,
        c => c,
    }
}

fn severity(c: CheckStatus) -> u8 {
    match c {
        CheckStatus::None => 0,
        CheckStatus::Proven => 1,
        CheckStatus::Runtime => 2,
        CheckStatus::Error => 3,
    }
}

/// θ of `s`'s `i`-th outcome `o` as it remains to be checked at run time, given what
/// earlier statements proved (`StmtResult::residuals`).
fn residual(s: &StmtResult, i: usize, o: &Outcome) -> String {
    match s.residuals.get(i).and_then(Option::as_ref) {
        Some(Constraint::True) | None => o.theta.to_string(),
        Some(t) => t.to_string(),
    }
}

/// What each rule's conformance condition asks for, in a MATLAB user's words.
/// A statement's text on one line, cut at 48 characters.
fn statement_snippet(source: &str, span: Span) -> String {
    let text = source
        .get(span.start..span.end)
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if text.chars().count() > 48 {
        format!("{}…", text.chars().take(47).collect::<String>())
    } else {
        text
    }
}

fn shape_error(source: &str, s: &StmtResult, o: &Outcome) -> Diagnostic {
    let snippet = statement_snippet(source, s.span);
    let operands = of_shapes(&s.effect.operands);
    let when = match &s.iteration {
        Some((j, Some(binding))) => format!(" on iteration {j} of the loop, when {binding}"),
        Some((j, None)) => format!(" on iteration {j} of the loop"),
        None => String::new(),
    };
    let requirement = match &o.theta {
        // θ folded to false on known extents: say what the rule needs in words.
        Constraint::False => o.rule.rule.requirement().to_string(),
        theta => format!("{theta}, which cannot hold"),
    };
    let mut message = match &s.effect.callee {
        Some(failure) => format!(
            "`{snippet}` fails{when}: {}",
            callee_failure(source, failure)
        ),
        None => format!(
            "`{snippet}` fails{when}: {} on operands{operands} needs {requirement}",
            o.rule.name()
        ),
    };
    // An error of one semantics only says which, and what the other would do.
    let mode_note = s.effect.other_mode.map(|(other, truth)| {
        let (here, there) = match other {
            crate::Mode::Modern => ("MATLAB 5 semantics", "MATLAB R2016b+"),
            crate::Mode::Paper => ("MATLAB R2016b+ semantics", "MATLAB 5"),
        };
        let verdict = match (other, truth) {
            (crate::Mode::Modern, shapex_dims::Truth::Proven) => "broadcasts these",
            (crate::Mode::Modern, _) => "may broadcast these (checked at run time)",
            (crate::Mode::Paper, shapex_dims::Truth::Proven) => "accepts these",
            (crate::Mode::Paper, _) => "may accept these (checked at run time)",
        };
        (format!(" (in {here}; {there} {verdict})"), other)
    });
    if let Some((note, _)) = &mode_note {
        message.push_str(note);
    }
    // The evidence: where each named operand's shape came from, so a reader can check
    // the claim (`x is <3,2> (line 4: x = ones(3,2))`).
    let evidence: Vec<String> = s
        .effect
        .evidence
        .iter()
        .map(|(name, shape, origin)| {
            let shape = shape.display(Notation::Paper);
            match origin.and_then(|o| statement_text(source, o)) {
                Some((line, text)) => format!("{name} is {shape} (line {line}: {text})"),
                None => format!("{name} is {shape}"),
            }
        })
        .collect();
    if !evidence.is_empty() {
        message.push_str(&format!("; {}", evidence.join("; ")));
    }
    let code = o.rule.rule.diagnostic_code();
    let mut help = format!(
        "Rule {} ({}). A definite shape error: the statement fails for every value of the unknown extents.",
        o.rule.name(),
        o.rule.source
    );
    if let Some(f) = &s.effect.callee {
        help = format!(
            "Rule {} ({}), in the function called: analysed for the arguments of this call (Dubrau 2012 §3.3), it fails for every value of their unknown {} before it can return, so every run of this call fails. Other calls of {} are analysed for their own arguments.",
            o.rule.name(),
            o.rule.source,
            if o.rule.rule.is_class_rule() { "values" } else { "extents" },
            if f.anonymous { "the anonymous function" } else { &f.func }
        );
    }
    if let Some((_, other)) = mode_note {
        help.push_str(&format!(
            " It is an error of this semantics mode only: with the option mode = {} the statement is not a definite error.",
            other.as_str()
        ));
    }
    if let Some(k) = s.effect.transposed {
        let side = if k == 0 { "left" } else { "right" };
        let mut shapes: Vec<Shape> = s.effect.operands.clone();
        if let Some(t) = shapes
            .get(k)
            .and_then(|o| o.as_tuple())
            .filter(|t| t.rank() == 2)
        {
            shapes[k] = Shape::tuple(vec![t.extent(1), t.extent(0)]);
            help.push_str(&format!(
                " Did you mean to transpose the {side} operand? {} * {} conforms.",
                shapes[0].display(Notation::Paper),
                shapes[1].display(Notation::Paper)
            ));
        }
    }
    let diagnostic = Diagnostic::error(&code, message, s.span).with_help(help);
    match elementwise_fix(source, s) {
        Some(fix) => diagnostic.with_fix(fix),
        None => diagnostic,
    }
}

/// MATLAB's error for an operation on operands of classes it does not combine
/// (`int8(1) + int16(2)`, `int32(A) * B` of two matrices), naming the classes.
fn class_error(source: &str, s: &StmtResult, o: &Outcome, classes: [&str; 2]) -> Diagnostic {
    let snippet = statement_snippet(source, s.span);
    let operands: Vec<String> = classes
        .iter()
        .zip(&s.effect.operands)
        .map(|(c, shape)| format!("{c} {}", shape.display(Notation::Paper)))
        .collect();
    let [a, b] = classes;
    let (why, matlab) = match o.rule.rule {
        Rule::IntegerMatrix if s.effect.op == "mpower" => (
            "a matrix power with an integer operand is defined only when both operands are 1×1".to_string(),
            "MPOWER (^) is not fully supported for integer classes",
        ),
        Rule::IntegerMatrix => (
            "integer arrays are multiplied and divided as matrices only by a scalar, and neither operand is 1×1".to_string(),
            "At least one argument must be scalar",
        ),
        _ => (
            format!("{a} and {b} are different integer classes"),
            "Integers can only be combined with integers of the same class, or scalar doubles",
        ),
    };
    let when = match &s.iteration {
        Some((j, Some(binding))) => format!(" on iteration {j} of the loop, when {binding}"),
        Some((j, None)) => format!(" on iteration {j} of the loop"),
        None => String::new(),
    };
    let message = format!(
        "`{snippet}` fails{when}: {} on operands {}: {why}",
        s.effect.op,
        operands.join(" and ")
    );
    let help = format!(
        "A definite class error: MATLAB stops every run of this statement (\"{matlab}\") and so does Octave, whatever the operands' values. Convert an operand ({}), or use the element-wise operator.",
        match o.rule.rule {
            Rule::IntegerMatrix => "`double(A) * B`".to_string(),
            _ => format!("`{b}(…)` or `{a}(…)`"),
        }
    );
    Diagnostic::error(&o.rule.rule.diagnostic_code(), message, s.span).with_help(help)
}

/// MATLAB's error for a call of a function of the file with too many arguments or
/// targets.
fn arity_error(s: &StmtResult, a: Arity) -> Diagnostic {
    let (code, what, declared) = match a.inputs {
        true => ("call.nargin", "arguments", "inputs"),
        false => ("call.nargout", "outputs asked for", "outputs"),
    };
    // An anonymous function's lifted body takes what it captured first: its counts
    // are not the ones the reader wrote.
    let message = match a.anonymous {
        true => {
            format!("The anonymous function is called with more {what} than it declares {declared}")
        }
        false => format!(
            "`{}` is called with {} {what} but declares {} {declared}",
            s.effect.op, a.given, a.declared
        ),
    };
    Diagnostic::error(code, message, s.span).with_help(format!(
        "MATLAB stops every run of this call with \"Too many {}\": the counts are in the text, whatever the arguments' values.",
        match a.inputs {
            true => "input arguments",
            false => "output arguments",
        }
    ))
}

/// ` of shape <3,2>`, ` of shapes <3,2>, <4,4>`, or nothing for no operand.
fn of_shapes(shapes: &[Shape]) -> String {
    let shown: Vec<String> = shapes.iter().map(|s| s.display(Notation::Paper)).collect();
    match shown.as_slice() {
        [] => String::new(),
        [one] => format!(" of shape {one}"),
        many => format!(" of shapes {}", many.join(", ")),
    }
}

/// Why a call fails, down to the statement of the function that fails (`in
/// helper(double <4,1>): mtimes on operands of shapes <4,1>, <4,1> needs …`).
fn callee_failure(source: &str, f: &Failure) -> String {
    let args: Vec<String> = f
        .args
        .iter()
        .map(|(class, shape)| {
            let shape = shape.display(Notation::Paper);
            match class {
                Some(c) => format!("{c} {shape}"),
                None => shape,
            }
        })
        .collect();
    let inner = match &f.below {
        Some(below) => callee_failure(source, below),
        None => format!(
            "{} on operands{} needs {}",
            f.rule.name(),
            of_shapes(&f.operands),
            f.rule.rule.requirement()
        ),
    };
    // A function of another file: its line there, after the file's path.
    let (text, file) = match &f.file {
        Some(origin) => (&*origin.text, format!(" {}", origin.path)),
        None => (source, String::new()),
    };
    let at = match statement_text(text, f.span) {
        Some((line, text)) => format!("{file} line {line}, `{text}`"),
        None => String::new(),
    };
    let name = match f.anonymous {
        true => "an anonymous function ",
        false => &f.func,
    };
    format!("in {name}({}){at}: {inner}", args.join(", "))
}

/// The fix for a matrix operator written where the element-wise one conforms (`*` for
/// `.*`): the operator's text, found between the operands (past spaces, parentheses
/// and `...` continuations), replaced by the element-wise one.
fn elementwise_fix(source: &str, s: &StmtResult) -> Option<shapex_report::Fix> {
    let (op, replacement) = match s.effect.elementwise? {
        "times" => ("*", ".*"),
        "rdivide" => ("/", "./"),
        "ldivide" => ("\\", ".\\"),
        "power" => ("^", ".^"),
        _ => return None,
    };
    let gap = s.operator?;
    let text = source.get(gap.start..gap.end)?;
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        if rest.starts_with("...") {
            // A continuation: the rest of its line is a comment.
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with(op) {
            let start = gap.start + i;
            return Some(shapex_report::Fix::new(
                format!("use element-wise {replacement}"),
                Span::new(start, start + op.len()),
                replacement,
            ));
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    None
}

/// The 1-based line and the (shortened, one-line) text of the statement at `span`.
fn statement_text(source: &str, span: Span) -> Option<(usize, String)> {
    let text = source.get(span.start..span.end)?;
    let line = source.get(..span.start)?.matches('\n').count() + 1;
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let short = if one_line.chars().count() > 40 {
        format!("{}…", one_line.chars().take(39).collect::<String>())
    } else {
        one_line
    };
    Some((line, short.trim_end_matches(';').to_string()))
}
