//! Derby & Zorn's type system for Language T ("A Type System for Languages with
//! Dynamic Arrays", 1998), read as the spec `002-derby-zorn-extent-graph.md` says:
//! per procedure, a rank pre-pass, a definite-assignment pass (D4), the abstract
//! [`ExtentGraph`] built in the wire model (loop heads as the while's output, D1), its
//! minimum solution by the paper's partition [`refine`]ment (with the propagating
//! re-integration of D6) or by [`refine_hopcroft`], and the checks at call extents
//! with inputs and at procedure exits.
//!
//! The analysis works on Language T's abstract syntax (re-exported as [`kernel`]), the
//! paper's kernel language: the T plug-in parses into it, and MATLAB lowers functions
//! with size declarations into it, as the paper proposes for real languages.
//!
//! Module layering: `graph`, `partition`, `steps`, `errors` are leaves (result types);
//! `split`, `refine`, `hopcroft`, `rank`, `assign`, `build`, `check` use only leaves
//! and each other downwards; this file assembles them, and `view` folds the result
//! into the house's `Graph` payload.

mod assign;
mod build;
pub mod check;
pub mod errors;
pub mod graph;
pub mod hopcroft;
pub mod partition;
mod rank;
pub mod refine;
pub mod samples;
mod split;
pub mod steps;
#[cfg(test)]
mod tests;
pub mod view;

pub use errors::{Site, SizeError};
pub use graph::{ExtentGraph, Input, Origin, Vertex, VertexId, BOTTOM};
pub use hopcroft::refine_hopcroft;
pub use partition::{ExtentClass, Partition};
pub use refine::refine;
pub use steps::{ConstructStep, RefineStep, Step};

/// Language T's abstract syntax and signatures: the kernel the analysis reads.
pub mod kernel {
    pub use shapex_t_syntax::ast::*;
    pub use shapex_t_syntax::{parse, prelude, Parsed, Signatures};
}
use serde::{Deserialize, Serialize};
use shapex_t_syntax::ast::{Formal, Program, Stmt, StmtKind};
use shapex_t_syntax::Signatures;
use shapex_text::{Diagnostic, LineIndex, Range, Span};

/// The name of the implicit procedure made of a file's top-level statements.
pub const TOP_LEVEL: &str = "(top level)";

/// One procedure's analysis.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProcAnalysis {
    pub name: String,
    pub span: Span,
    pub graph: ExtentGraph,
    pub partition: Partition,
    /// A name for each class (`⊥`, a formal's or `decl`'s extent name, `τ1`, …).
    pub class_names: Vec<String>,
    /// Construction statement by statement, then each pass of the refinement.
    pub steps: Vec<Step>,
    pub errors: Vec<SizeError>,
}

impl ProcAnalysis {
    /// The class name of a vertex.
    pub fn class_name(&self, v: VertexId) -> &str {
        &self.class_names[self.partition.of(v).0 as usize]
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Analysis {
    pub procs: Vec<ProcAnalysis>,
    /// Syntax, rank, definite-assignment and size diagnostics, with their ranges.
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses and analyses a Language T file against the builtin prelude. Pure; never
/// panics.
pub fn analyze(source: &str) -> Analysis {
    let parsed = shapex_t_syntax::parse(source);
    let prelude = shapex_t_syntax::prelude();
    let mut analysis = analyze_program(&parsed.program, &prelude);
    let mut diagnostics = parsed.diagnostics;
    diagnostics.append(&mut analysis.diagnostics);
    let index = LineIndex::new(source);
    for d in &mut diagnostics {
        d.range = Range::of(d.span, &index);
    }
    analysis.diagnostics = diagnostics;
    analysis
}

/// Analyses every procedure with a body, and the top-level statements as one more.
pub fn analyze_program(program: &Program, prelude: &Program) -> Analysis {
    let sigs = Signatures::new(program, prelude);
    let mut analysis = Analysis {
        procs: Vec::new(),
        diagnostics: Vec::new(),
    };
    for (i, proc) in program.procs.iter().enumerate() {
        let name = &proc.name.name;
        if program.procs[..i].iter().any(|p| &p.name.name == name) {
            let d = Diagnostic::warning(
                "t.duplicate",
                format!("a second procedure `{name}`: calls use the first"),
                proc.name.span,
            );
            analysis.diagnostics.push(d);
        }
        if let Some(body) = &proc.body {
            let unit = Unit {
                name: &proc.name.name,
                formals: &proc.formals,
                body,
                header: proc.header,
                span: proc.span,
            };
            analysis.add(unit.analyze(&sigs));
        }
    }
    if let (Some(first), Some(last)) = (program.top.first(), program.top.last()) {
        let span = first.span.to(last.span);
        let body = Stmt {
            kind: StmtKind::Compound(program.top.clone()),
            span,
        };
        let unit = Unit {
            name: TOP_LEVEL,
            formals: &[],
            body: &body,
            header: span,
            span,
        };
        analysis.add(unit.analyze(&sigs));
    }
    analysis
}

impl Analysis {
    fn add(&mut self, (proc, mut diagnostics): (ProcAnalysis, Vec<Diagnostic>)) {
        self.procs.push(proc);
        self.diagnostics.append(&mut diagnostics);
    }
}

/// A procedure to analyse (a definition, or the top level).
struct Unit<'a> {
    name: &'a str,
    formals: &'a [Formal],
    body: &'a Stmt,
    header: Span,
    span: Span,
}

impl Unit<'_> {
    fn analyze(&self, sigs: &Signatures) -> (ProcAnalysis, Vec<Diagnostic>) {
        let mut prims = Vec::new();
        rank::primitives(self.body, &mut prims);
        let ranks = rank::ranks(self.formals, &prims, sigs);
        let undefined = assign::check(
            self.name,
            self.formals,
            Some(self.body),
            self.header,
            &ranks,
            sigs,
        );
        let built = build::build(self.formals, Some(self.body), self.header, &ranks, sigs);
        let (partition, passes) = refine(&built.graph);
        let class_names = check::class_names(&built.graph, &partition);
        let errors: Vec<SizeError> =
            check::check(&built.graph, &partition, &class_names, self.name)
                .into_iter()
                .filter(|e| !follows_from(e, &undefined))
                .collect();
        let mut diagnostics = ranks.diagnostics;
        diagnostics.extend(undefined.diagnostics);
        diagnostics.extend(errors.iter().map(diagnostic));
        let mut steps: Vec<Step> = built.steps.into_iter().map(Step::Construct).collect();
        steps.extend(passes.into_iter().map(Step::Refine));
        let proc = ProcAnalysis {
            name: self.name.to_string(),
            span: self.span,
            graph: built.graph,
            partition,
            class_names,
            steps,
            errors,
        };
        (proc, diagnostics)
    }
}

/// A size error that an undefined-array error already explains.
fn follows_from(error: &SizeError, undefined: &assign::Undefined) -> bool {
    match &error.site {
        Site::Call { .. } => undefined.calls.contains(&error.span),
        Site::Exit { .. } => error.inputs.iter().any(|(what, _)| {
            undefined.outputs.iter().any(|o| {
                what.strip_prefix(o.as_str())
                    .is_some_and(|r| r.starts_with(" dim"))
            })
        }),
    }
}

fn diagnostic(error: &SizeError) -> Diagnostic {
    match &error.site {
        Site::Call { callee } => Diagnostic::error("t.size", error.message(), error.span).with_help(format!(
            "the arguments give `{callee}`'s extent {} different abstract extents, so their sizes may differ at run time",
            error.extent
        )),
        Site::Exit { procedure } => Diagnostic::error("t.exit", error.message(), error.span).with_help(format!(
            "at the end of `{procedure}` its outputs named {} are not guaranteed that extent",
            error.extent
        )),
    }
}
