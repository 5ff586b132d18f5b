//! MATLAB functions with declared sizes, checked by Derby & Zorn's type system (issue
//! #20 item 6). A function whose inputs or outputs carry sizes — an `arguments` block
//! with literal or `:` sizes, or a comment annotation with symbolic extents
//! (`%! size A[N,M] x[M,1]`) — is lowered into the kernel language (`lower`) and its
//! abstract extent graph built and solved by `shapex-extent`, exactly as a Language T
//! procedure. Calls of other declared functions and the builtins whose effect on
//! extents is exact become graph pieces; everything else gives fresh extents.
//!
//! What it claims: a conflict is reported only between two *declared* extents (names
//! or literal sizes, never `:` or a fresh extent), at a call whose requirement joins
//! them or at the exit of a function whose output misses its declared size. Such a
//! call fails for some sizes the declarations allow, whenever it runs, so it is a
//! warning, not an error of every run; a builtin conflict involving a declared 1 is
//! dropped (a 1×1 operand makes `*` a scaling).

mod annotations;
mod lower;

use crate::builtins::BuiltinTable;
use crate::tame::ir::{self, FunctionKind};
use annotations::Sizes;
use lower::{Lowering, Signature};
use shapex_extent::graph::{Input, Origin};
use shapex_extent::kernel::Program;
use shapex_extent::{Analysis, ProcAnalysis, Site, SizeError};
use shapex_text::{Diagnostic, Span};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The extent analysis of a file's declared functions.
pub struct Declared {
    pub analysis: Analysis,
    pub diagnostics: Vec<Diagnostic>,
}

/// Checks every function of `program` that declares sizes; `None` when none does.
pub fn check(program: &ir::Program, source: &str, table: &BuiltinTable) -> Option<Declared> {
    if !source.contains("%!") && !source.contains("arguments") {
        return None;
    }
    let declared = declared_functions(program, source);
    if declared.is_empty() {
        return None;
    }
    let signatures: BTreeMap<String, Signature> = declared
        .iter()
        .map(|(f, _)| {
            let sig = Signature {
                params: f.params.clone(),
                outputs: f.outputs.clone(),
            };
            (f.name.clone(), sig)
        })
        .collect();
    // A product found to have a 1×1 operand is a scaling: lowered again as one, so the
    // call rule does not equate extents `*` never compared. Each round only adds.
    let mut scalings: HashMap<Span, String> = HashMap::new();
    let mut rounds = 0;
    let analysis = loop {
        let (kernel, prelude) = lower_program(&declared, &signatures, table, source, &scalings);
        let analysis = shapex_extent::analyze_program(&kernel, &prelude);
        let before = scalings.len();
        for proc in &analysis.procs {
            for e in &proc.errors {
                if let Some(var) = scaling(proc, e) {
                    scalings.entry(e.span).or_insert_with(|| var.to_string());
                }
            }
        }
        rounds += 1;
        if scalings.len() == before || rounds == 4 {
            break analysis;
        }
    };
    let names = Names::new(program, source);
    let mut diagnostics = Vec::new();
    for proc in &analysis.procs {
        let Some((_, sizes)) = declared.iter().find(|(f, _)| f.name == proc.name) else {
            continue;
        };
        let named = declared_names(sizes);
        for e in &proc.errors {
            if let Some(d) = diagnostic(proc, e, &named, &names, source) {
                diagnostics.push(d);
            }
        }
    }
    Some(Declared {
        analysis,
        diagnostics,
    })
}

/// The kernel program of the declared functions and the prelude of the builtin
/// signatures it calls (`scalings`: products to lower as
/// scalings, by span, with their 1×1 operand).
fn lower_program(
    declared: &[(&ir::Function, Sizes)],
    signatures: &BTreeMap<String, Signature>,
    table: &BuiltinTable,
    source: &str,
    scalings: &HashMap<Span, String>,
) -> (Program, Program) {
    let mut kernel = Program::default();
    let mut partial = BTreeSet::new();
    let mut prelude = lower::PRELUDE.to_string();
    let mut builtins = BTreeMap::new();
    for (f, sizes) in declared {
        let header = header(f.span, source);
        let (nin, nout) = (f.params.len(), f.outputs.len());
        let formals = lower::formals(&f.params, &f.outputs, sizes, nin, nout, header);
        let mut lowering = Lowering::new(signatures, table, &f.body, scalings);
        let body = lowering.block(&f.body, f.span);
        partial.append(&mut lowering.partial);
        builtins.append(&mut lowering.builtins);
        let proc = lower::definition(&f.name, formals, body, header, f.span);
        kernel.procs.push(proc);
    }
    for (name, nin, nout) in partial {
        let Some((f, sizes)) = declared.iter().find(|(f, _)| f.name == name) else {
            continue;
        };
        let header = header(f.span, source);
        let formals = lower::formals(&f.params, &f.outputs, sizes, nin, nout, header);
        let partial = lower::partial_name(&name, nin, nout);
        kernel
            .procs
            .push(lower::declaration(&partial, formals, header));
    }
    prelude.extend(builtins.into_values());
    (kernel, shapex_extent::kernel::parse(&prelude).program)
}

/// The file's functions that declare a size of one of their inputs or outputs.
fn declared_functions<'p>(
    program: &'p ir::Program,
    source: &str,
) -> Vec<(&'p ir::Function, Sizes)> {
    let mut out = Vec::new();
    for f in &program.functions {
        if !matches!(
            f.kind,
            FunctionKind::Primary | FunctionKind::Subfunction | FunctionKind::Nested
        ) || out
            .iter()
            .any(|(g, _): &(&ir::Function, Sizes)| g.name == f.name)
        {
            continue;
        }
        let skip: Vec<Span> = program
            .functions
            .iter()
            .filter(|g| {
                g.kind == FunctionKind::Nested
                    && g.span != f.span
                    && f.span.start <= g.span.start
                    && g.span.end <= f.span.end
            })
            .map(|g| g.span)
            .collect();
        if !closed(f, program) {
            continue;
        }
        let sizes = annotations::declarations(source, f.span, &skip);
        let sized = f.params.iter().any(|p| sizes.input(p).is_some())
            || f.outputs.iter().any(|o| sizes.output(o).is_some());
        if sized {
            out.push((f, sizes));
        }
    }
    out
}

/// Whether only the function's own statements change its variables: no nested
/// function shares its workspace, no `global` may be changed by a call, no wild call
/// (`eval`, `load`, `assignin`, …) may change anything. Otherwise it is not checked.
fn closed(f: &ir::Function, program: &ir::Program) -> bool {
    fn tame(stmts: &[ir::Stmt]) -> bool {
        stmts.iter().all(|s| {
            let ok = match &s.kind {
                ir::StmtKind::Global(_) | ir::StmtKind::Persistent(_) => false,
                ir::StmtKind::Call { func, .. } => !crate::tame::WILD.contains(&func.as_str()),
                _ => true,
            };
            ok && s.children().into_iter().all(tame)
        })
    }
    let nested = program
        .functions
        .iter()
        .any(|g| g.kind == FunctionKind::Nested && g.parent.as_deref() == Some(f.name.as_str()));
    !nested && tame(&f.body)
}

/// The function's first line: where its signature is.
fn header(span: Span, source: &str) -> Span {
    let text = source.get(span.start..span.end).unwrap_or("");
    Span::new(
        span.start,
        span.start + text.find('\n').unwrap_or(text.len()),
    )
}

/// The extents a function's declarations name (symbols and literal sizes).
fn declared_names(sizes: &Sizes) -> BTreeSet<String> {
    [&sizes.inputs, &sizes.outputs, &sizes.either]
        .into_iter()
        .flat_map(|m| m.values().flatten())
        .filter_map(|e| e.name.clone())
        .collect()
}

/// The operand of a matrix product or division at `error` whose every extent is a
/// declared 1, if any: a 1×1 operand of `*`, the left of `\\` or the right of `/`
/// makes it a scaling, which needs nothing equal.
fn scaling<'p>(proc: &'p ProcAnalysis, error: &SizeError) -> Option<&'p str> {
    let Site::Call { callee } = &error.site else {
        return None;
    };
    // The signature extent only the operand that may scale has (`None`: either).
    let only = match callee.as_str() {
        "mtimes" => None,
        "mldivide" => Some("S"),
        "mrdivide" => Some("R"),
        _ => return None,
    };
    let mut dims: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut allowed: Vec<&str> = Vec::new();
    for v in &proc.graph.vertices {
        let Origin::Call {
            callee: c,
            span,
            extent,
        } = &v.origin
        else {
            continue;
        };
        if c != callee || *span != error.span {
            continue;
        }
        for (input, &p) in v.inputs.iter().zip(&v.preds) {
            if let Input::Dim { var, .. } = input {
                dims.entry(var).or_default().push(proc.class_name(p));
                if only.is_none_or(|o| o == extent) {
                    allowed.push(var);
                }
            }
        }
    }
    dims.into_iter()
        .find(|(var, classes)| allowed.contains(var) && classes.iter().all(|c| *c == "1"))
        .map(|(var, _)| var)
}

/// How a diagnostic writes a kernel variable: a temporary as the source it computes.
struct Names {
    temps: HashMap<String, String>,
}

impl Names {
    fn new(program: &ir::Program, source: &str) -> Names {
        fn walk(stmts: &[ir::Stmt], prefix: &str, source: &str, out: &mut HashMap<String, String>) {
            for s in stmts {
                if let [t] = s.defs()[..] {
                    if t.starts_with(prefix) {
                        let text = source.get(s.span.start..s.span.end).unwrap_or(t);
                        out.insert(
                            t.clone(),
                            text.split_whitespace().collect::<Vec<_>>().join(" "),
                        );
                    }
                }
                for c in s.children() {
                    walk(c, prefix, source, out);
                }
            }
        }
        let mut temps = HashMap::new();
        for f in &program.functions {
            walk(&f.body, &program.temp_prefix, source, &mut temps);
        }
        Names { temps }
    }

    fn show(&self, var: &str) -> String {
        let text = self.temps.get(var).map_or(var, String::as_str);
        if text.chars().count() > 40 {
            format!("`{}…`", text.chars().take(39).collect::<String>())
        } else {
            format!("`{text}`")
        }
    }
}

/// The warning for one of the kernel's size errors, when it joins two declared
/// extents (see the module docs).
fn diagnostic(
    proc: &ProcAnalysis,
    error: &SizeError,
    named: &BTreeSet<String>,
    names: &Names,
    source: &str,
) -> Option<Diagnostic> {
    let vertex = &proc.graph.vertices[error.vertex];
    let inputs: Vec<(&Input, &str)> = vertex
        .inputs
        .iter()
        .zip(&vertex.preds)
        .map(|(i, &p)| (i, proc.class_name(p)))
        .collect();
    let mut classes: Vec<&str> = Vec::new();
    for (_, c) in &inputs {
        if named.contains(*c) && !classes.contains(c) {
            classes.push(c);
        }
    }
    if classes.len() < 2 {
        return None;
    }
    let describe = |(input, class): &(&Input, &str)| match input {
        Input::Dim { var, dim } => format!("{} dim {dim} is {class}", names.show(var)),
        Input::Entry { extent } => format!("declared {extent}"),
    };
    let list: Vec<String> = inputs.iter().map(describe).collect();
    let (a, b) = (classes[0], classes[1]);
    match &error.site {
        Site::Call { callee } => {
            if scaling(proc, error).is_some() {
                return None;
            }
            let text = source.get(error.span.start..error.span.end).unwrap_or(callee);
            let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
            Some(
                Diagnostic::warning(
                    "extent.size",
                    format!(
                        "`{text}` may fail: it needs extents {a} and {b} equal, and the declared sizes let them differ ({})",
                        list.join(", ")
                    ),
                    error.span,
                )
                .with_help(format!(
                    "Derby & Zorn's extent graph: extent {} of `{}` gets {a} and {b}, which the declarations name independently, so for sizes with {a} ≠ {b} this call fails; give them one name if they must agree",
                    error.extent, callee.split('/').next().unwrap_or(callee)
                )),
            )
        }
        Site::Exit { procedure } => Some(
            Diagnostic::warning(
                "extent.exit",
                format!(
                    "`{procedure}` may return an output of another size than declared: extent {} is {a} or {b} ({})",
                    error.extent,
                    list.join(", ")
                ),
                error.span,
            )
            .with_help("Derby & Zorn's exit check: the output's declared extent and the size the body gives it are declared independently".to_string()),
        ),
    }
}
