//! `shapex`: the command-line face of Shape Explorer's core.
//!
//! Exit status: 0 when no error diagnostics, 1 when any file has an error diagnostic,
//! 2 on usage or I/O errors.
//!
//! Parallelism and directory walking live here, never in the core crates: `check` walks
//! directories with `walkdir`, reads and analyses files on `--jobs` scoped threads that
//! share one `Analyzer`, and prints the results in the order of the inputs.

/// The analysis allocates many small symbolic terms; mimalloc makes a whole-corpus
/// `check` markedly faster than the system allocator (see the README's Measures).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod graph;
mod lsp;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use shapex::{format, Analyzer, Options, Report, Session, Sources};
use std::collections::HashSet;
use std::io::{IsTerminal, Read, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "shapex",
    version,
    about = "Array shape analysis for MATLAB and the other Shape Explorer languages"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and analyse files (directories are searched for every registered
    /// language's extensions; `-` reads stdin).
    Check {
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// The language (`matlab`, …; see `shapex languages`); by default chosen by
        /// each file's extension. Required for stdin.
        #[arg(long)]
        lang: Option<String>,
        /// A language option, `KEY=VALUE` (repeatable; `shapex languages` lists each
        /// language's, e.g. `--set mode=paper` for MATLAB).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        settings: Vec<String>,
        /// Which views JSON and JSONL carry: `all`, `none`, or ids separated by
        /// commas (`shapex languages` lists each language's).
        #[arg(long, value_name = "all|none|ID,…", default_value = "all")]
        views: String,
        /// Files analysed at once (default: the number of cores). Output is in the
        /// same order whatever the number.
        #[arg(long, short = 'j', value_name = "N")]
        jobs: Option<NonZeroUsize>,
        /// The entry point: the function analysed from these arguments instead of
        /// symbolic ones, `main(double[3x4], char[1x?], int32, struct)` (the same as
        /// `--set entry=…`).
        #[arg(long, value_name = "SIGNATURE")]
        entry: Option<String>,
        /// A folder searched, after each file's own, for the functions it calls
        /// (repeatable, in order; MATLAB's path).
        #[arg(long = "path", value_name = "DIR")]
        search: Vec<PathBuf>,
        /// Analyse each file alone: calls of functions in other files (its folder's,
        /// `private/`, `--path`) are not followed, and their results are unknown.
        #[arg(long)]
        no_resolve: bool,
        /// For each run-time check and definite error, sizes under which it fails
        /// (and passes), found by the solver: in the text after the diagnostics, in
        /// JSON as each statement's `witness` with a repro edit.
        #[arg(long)]
        witness: bool,
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Print the graph and lattice views of a file (any language: the extent graph of
    /// Language T, MATLAB's call graph), as Graphviz DOT, an SVG drawing, or JSON (each
    /// payload with its classes and its drawing). Exits 0 once printed, whatever the
    /// file's diagnostics; 2 on usage or I/O errors or when the file has no graph.
    Graph {
        #[arg(long, value_enum, default_value_t = GraphFormat::Dot)]
        format: GraphFormat,
        /// The language; by default chosen by the file's extension. Required for stdin.
        #[arg(long)]
        lang: Option<String>,
        /// A language option, `KEY=VALUE` (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        settings: Vec<String>,
        /// Only the view with this id (default: every graph and lattice view).
        #[arg(long)]
        view: Option<String>,
        /// One file, or `-` for stdin.
        path: PathBuf,
    },
    /// Ask Migeed et al.'s migration questions of a PyTorch model (or a core-calculus
    /// program): is there a static migration (Q1), one under the constraints (Q2),
    /// which branches can run (Q3). Exits 0 once printed; 2 on usage or I/O errors or
    /// when the file's language answers no such questions.
    Migrate {
        #[arg(long, value_enum, default_value_t = MigrateFormat::Text)]
        format: MigrateFormat,
        /// The language; by default chosen by the file's extension.
        #[arg(long)]
        lang: Option<String>,
        /// Which model to check (a module-level variable or a class of the file).
        #[arg(long)]
        model: Option<String>,
        /// A constraint (repeatable): `x.shape == (b, 3, h, w)`, `h <= 20`, `rank(x) == 4`…
        #[arg(long = "constraint", value_name = "C")]
        constraints: Vec<String>,
        /// A language option, `KEY=VALUE` (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        settings: Vec<String>,
        /// One file, or `-` for stdin.
        path: PathBuf,
    },
    /// Print the playground link that opens a file in a view, with its language's
    /// settings: the same link the app's Share button makes, so a repro travels from
    /// a terminal to a browser in one command.
    Share {
        /// The view the link opens (an id from `shapex languages`, or `outline`,
        /// `diagnostics`); by default the language's first.
        #[arg(long)]
        view: Option<String>,
        /// The language; by default chosen by the file's extension. Required for stdin.
        #[arg(long)]
        lang: Option<String>,
        /// A language option, `KEY=VALUE` (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        settings: Vec<String>,
        /// Shapes shown as `3×n` instead of `<3,n>`.
        #[arg(long)]
        times: bool,
        /// The playground's address (default: `$SHAPEX_PLAYGROUND`, else what
        /// `scripts/serve` serves).
        #[arg(long, value_name = "URL")]
        base: Option<String>,
        /// One file, or `-` for stdin.
        path: PathBuf,
    },
    /// Serve the Language Server Protocol on stdin/stdout (for editors): diagnostics as
    /// you type, hover, inlay hints, go to definition, open in the playground.
    Lsp {
        /// The playground the "open in the playground" action links to (default:
        /// `$SHAPEX_PLAYGROUND`, else what `scripts/serve` serves).
        #[arg(long, value_name = "URL")]
        base: Option<String>,
    },
    /// Print a shell's completion script for shapex (`shapex completions bash >
    /// ~/.local/share/bash-completion/completions/shapex`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page, in roff (`shapex man | man -l -`).
    Man,
    /// List the registered languages with their extensions, options and views.
    Languages,
    /// Explain a diagnostic code (`shapex explain shape.mtimes`).
    Explain { code: String },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// `file:line:col: severity: message [code]`
    Text,
    /// One JSON object for a single file, an array for several.
    Json,
    /// One JSON object per line, per file.
    Jsonl,
    /// One SARIF 2.1.0 log for every file (code scanning): diagnostics as results of
    /// their codes' rules, each statement's proven or run-time check of kind pass or
    /// open.
    Sarif,
}

#[derive(Clone, Copy, ValueEnum)]
enum MigrateFormat {
    /// The answers for a person (the Migration view).
    Text,
    /// `{model, well_typed, output, types, static_migration, constrained, branches, conflict}`.
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum GraphFormat {
    /// Graphviz DOT, vertices filled by class.
    Dot,
    /// An SVG drawing (the layered layout the app uses).
    Svg,
    /// `{file, lang, graphs: [{view, kind, vertices, edges, steps, classes, drawing}]}`.
    Json,
}

fn explain(code: &str) -> ExitCode {
    let analyzer = Analyzer::new();
    let text = analyzer.languages().find_map(|l| l.explain(code));
    match text {
        Some(text) => {
            println!("{code}: {text}");
            ExitCode::SUCCESS
        }
        None => {
            eprintln!("shapex: no language reports the code `{code}`");
            ExitCode::from(2)
        }
    }
}

fn languages() -> ExitCode {
    let analyzer = Analyzer::new();
    for l in analyzer.languages() {
        let i = l.info();
        let options: Vec<String> = i
            .options
            .iter()
            .map(|o| {
                let values: Vec<&str> = o.choices.iter().map(|c| c.0).collect();
                if values.is_empty() {
                    format!("{}=TEXT", o.key)
                } else {
                    format!("{}={}", o.key, values.join("|"))
                }
            })
            .collect();
        let views: Vec<&str> = i.views.iter().map(|v| v.id).collect();
        println!(
            "{}\t{}\t.{}\toptions: {}\tviews: {}",
            i.id,
            i.name,
            i.extensions.join(" ."),
            options.join(" "),
            views.join(" ")
        );
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check {
            format,
            lang,
            settings,
            views,
            jobs,
            entry,
            search,
            no_resolve,
            witness,
            paths,
        } => {
            let mut settings = settings;
            settings.extend(entry.map(|e| format!("entry={e}")));
            let jobs = jobs
                .or_else(|| std::thread::available_parallelism().ok())
                .map_or(1, NonZeroUsize::get);
            let views = format::Views::parse(&views);
            let resolve = (!no_resolve).then(|| search.iter().map(|d| slashed(d)).collect());
            check(
                format,
                lang.as_deref(),
                &settings,
                (&views, witness),
                jobs,
                resolve,
                &paths,
            )
        }
        Command::Graph {
            format,
            lang,
            settings,
            view,
            path,
        } => graph_command(format, lang.as_deref(), &settings, view.as_deref(), &path),
        Command::Migrate {
            format,
            lang,
            model,
            constraints,
            settings,
            path,
        } => migrate_command(
            format,
            lang.as_deref(),
            model.as_deref(),
            &constraints,
            &settings,
            &path,
        ),
        Command::Share {
            view,
            lang,
            settings,
            times,
            base,
            path,
        } => share_command(
            view.as_deref(),
            lang.as_deref(),
            &settings,
            times,
            base,
            &path,
        ),
        Command::Lsp { base } => match lsp::run(playground(base)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("shapex lsp: {e}");
                ExitCode::from(2)
            }
        },
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "shapex", &mut out);
            write_out(&String::from_utf8_lossy(&out))
        }
        Command::Man => {
            let mut out = Vec::new();
            match clap_mangen::Man::new(Cli::command()).render(&mut out) {
                Ok(()) => write_out(&String::from_utf8_lossy(&out)),
                Err(e) => {
                    eprintln!("shapex: cannot render the manual: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Command::Languages => languages(),
        Command::Explain { code } => explain(&code),
    }
}

/// Where `scripts/serve` serves the playground.
const LOCAL_PLAYGROUND: &str = "http://127.0.0.1:8080/";

/// `shapex share`: the playground link of one file in one view.
fn share_command(
    view: Option<&str>,
    lang: Option<&str>,
    settings: &[String],
    times: bool,
    base: Option<String>,
    path: &Path,
) -> ExitCode {
    let analyzer = Analyzer::new();
    let (name, text, options) = match load_one(&analyzer, lang, settings, path) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let Some(info) = analyzer.language(&options.lang).map(|l| l.info()) else {
        return ExitCode::from(2);
    };
    let views: Vec<&str> = info
        .views
        .iter()
        .map(|v| v.id)
        .chain(shapex_share::GENERIC_VIEWS.iter().map(|g| g.0))
        .collect();
    let view = match view {
        Some(v) if !views.contains(&v) => {
            eprintln!(
                "shapex: {} has no view `{v}` (its views: {})",
                info.id,
                views.join(", ")
            );
            return ExitCode::from(2);
        }
        Some(v) => v,
        None => views[0],
    };
    let file_name = match path.as_os_str() == "-" {
        true => String::new(),
        false => path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    let state = shapex_share::ViewState {
        code: text,
        name: file_name,
        lang: options.lang.clone(),
        settings: options.settings.clone(),
        view: view.to_string(),
        notation: if times {
            shapex_share::Notation::Times
        } else {
            shapex_share::Notation::default()
        },
        ..shapex_share::ViewState::default()
    };
    let fragment = match shapex_share::link::link(&state) {
        Ok(fragment) => fragment,
        Err(chars) => {
            eprintln!(
                "shapex: {name} is too large for a link ({} KB of link data; links up to {} KB): share the file instead",
                chars.div_ceil(1024),
                shapex_share::link::MAX_LINK_CHARS / 1024
            );
            return ExitCode::from(2);
        }
    };
    write_out(&format!("{}#{fragment}\n", playground(base)))
}

/// The playground's address: `base`, else `$SHAPEX_PLAYGROUND`, else `scripts/serve`'s,
/// without a fragment.
fn playground(base: Option<String>) -> String {
    let base = base
        .or_else(|| std::env::var("SHAPEX_PLAYGROUND").ok())
        .unwrap_or_else(|| LOCAL_PLAYGROUND.to_string());
    base.split('#').next().unwrap_or_default().to_string()
}

fn graph_command(
    format: GraphFormat,
    lang: Option<&str>,
    settings: &[String],
    view: Option<&str>,
    path: &Path,
) -> ExitCode {
    let analyzer = Analyzer::new();
    let (name, text, options) = match load_one(&analyzer, lang, settings, path) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    // As `check` does: calls into the file's folder are followed (stdin is alone).
    let report = match path.as_os_str() == "-" {
        true => analyzer.analyze(&text, &options),
        false => {
            let sources = in_folder(&name, &text, &[]);
            analyzer.analyze_sources_in(&mut Session::default(), &sources, &options)
        }
    };
    let views = graph::graph_views(&report, view);
    if views.is_empty() {
        let offered: Vec<&str> = report.views.iter().map(|v| v.id.as_str()).collect();
        eprintln!(
            "shapex: {name} has no graph view{} (its language's views: {})",
            view.map(|v| format!(" `{v}`")).unwrap_or_default(),
            offered.join(", ")
        );
        return ExitCode::from(2);
    }
    let out = match format {
        GraphFormat::Dot => graph::to_dot(&views),
        GraphFormat::Svg => graph::to_svg(&views),
        GraphFormat::Json => {
            let mut s = serde_json::to_string_pretty(&graph::to_json(&name, &report, &views))
                .expect("a JSON value always serializes");
            s.push('\n');
            s
        }
    };
    write_out(&out)
}

/// Prints a command's whole output; a closed pipe (`| head`) is no error.
fn write_out(out: &str) -> ExitCode {
    match std::io::stdout().lock().write_all(out.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("shapex: cannot write output: {e}");
            ExitCode::from(2)
        }
    }
}

/// One file (or `-` for stdin) with its language and options, for the commands that
/// take a single file; on failure the message is printed and the exit code returned.
fn load_one(
    analyzer: &Analyzer,
    lang: Option<&str>,
    settings: &[String],
    path: &Path,
) -> Result<(String, String, Options), ExitCode> {
    let (name, text) = if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        if let Err(e) = std::io::stdin().read_to_end(&mut bytes) {
            eprintln!("shapex: cannot read stdin: {e}");
            return Err(ExitCode::from(2));
        }
        (
            "<stdin>".to_string(),
            String::from_utf8_lossy(&bytes).into_owned(),
        )
    } else {
        match read_text(path) {
            Ok(text) => (path.display().to_string(), text),
            Err(message) => {
                eprintln!("shapex: {message}");
                return Err(ExitCode::from(2));
            }
        }
    };
    let id = match lang.or_else(|| analyzer.language_for_path(&name).map(|i| i.id)) {
        Some(id) if analyzer.language(id).is_some() => id,
        Some(id) => {
            eprintln!("shapex: unknown language `{id}` (see `shapex languages`)");
            return Err(ExitCode::from(2));
        }
        None => {
            eprintln!("shapex: {}", unknown_language(analyzer, &name));
            return Err(ExitCode::from(2));
        }
    };
    let mut options = Options::new(id);
    for kv in settings {
        let Some((k, v)) = kv.split_once('=') else {
            eprintln!("shapex: --set expects KEY=VALUE, got `{kv}`");
            return Err(ExitCode::from(2));
        };
        options = options.with(k, v);
    }
    Ok((name, text, options))
}

/// `shapex migrate`: the migration questions' answers of one file, the language's
/// `answers` view (JSON) or `migration` view (text); the model and constraints are
/// its `model` and `constraints` settings.
fn migrate_command(
    format: MigrateFormat,
    lang: Option<&str>,
    model: Option<&str>,
    constraints: &[String],
    settings: &[String],
    path: &Path,
) -> ExitCode {
    let analyzer = Analyzer::new();
    let mut settings = settings.to_vec();
    settings.extend(model.map(|m| format!("model={m}")));
    if !constraints.is_empty() {
        settings.push(format!("constraints={}", constraints.join("\n")));
    }
    let (name, text, options) = match load_one(&analyzer, lang, &settings, path) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let report = analyzer.analyze(&text, &options);
    let id = match format {
        MigrateFormat::Json => "answers",
        MigrateFormat::Text => "migration",
    };
    let Some(shapex::report::view::Payload::Text(t)) = report.view(id) else {
        eprintln!(
            "shapex: {name}: no migration questions answered (the language `{}` has none, or the file has no model with a `forward` to ask them of)",
            report.lang
        );
        return ExitCode::from(2);
    };
    let mut out = t.text.clone();
    out.push('\n');
    write_out(&out)
}

/// One input of `check`: the name it is reported under and where its text is.
struct Input {
    name: String,
    source: InputSource,
}

enum InputSource {
    /// Standard input, read before the analysis starts.
    Stdin(String),
    /// A file, read by the worker that analyses it.
    File(PathBuf),
}

/// One analysed input, already formatted (formatting runs on the workers too).
struct Checked {
    errors: usize,
    output: Output,
}

enum Output {
    /// Text, or one JSONL line: printed as is.
    Text(String),
    /// `--format json`: one object, or an element of the array of several.
    Json(serde_json::Value),
    /// `--format sarif`: the file's results in the one log.
    Sarif(Vec<serde_json::Value>),
}

/// Checks every file of `paths`; `resolve` holds the search folders when calls into
/// other files are followed.
fn check(
    format: Format,
    lang: Option<&str>,
    settings: &[String],
    (views, witness): (&format::Views, bool),
    jobs: usize,
    resolve: Option<Vec<String>>,
    paths: &[PathBuf],
) -> ExitCode {
    let analyzer = Analyzer::new();
    if let Some(id) = lang {
        if analyzer.language(id).is_none() {
            eprintln!("shapex: unknown language `{id}` (see `shapex languages`)");
            return ExitCode::from(2);
        }
    }
    let mut pairs = Vec::new();
    for kv in settings {
        let Some((k, v)) = kv.split_once('=') else {
            eprintln!("shapex: --set expects KEY=VALUE, got `{kv}`");
            return ExitCode::from(2);
        };
        pairs.push((k, v));
    }
    let extensions: Vec<&str> = analyzer
        .languages()
        .flat_map(|l| l.info().extensions.iter().copied())
        .collect();
    let inputs = match collect_inputs(paths, &extensions) {
        Ok(s) => s,
        Err(message) => {
            eprintln!("shapex: {message}");
            return ExitCode::from(2);
        }
    };
    // Every input's language is known before any is analysed: a name no extension
    // claims is a usage error, never silently some language.
    let mut langs = Vec::with_capacity(inputs.len());
    for input in &inputs {
        match lang.or_else(|| analyzer.language_for_path(&input.name).map(|i| i.id)) {
            Some(id) => langs.push(id),
            None => {
                eprintln!("shapex: {}", unknown_language(&analyzer, &input.name));
                return ExitCode::from(2);
            }
        }
    }
    let options_for = |id: &str| {
        let options = pairs
            .iter()
            .fold(Options::new(id), |o, (k, v)| o.with(k, v));
        let options = Options { witness, ..options };
        // The views the output shows are the ones built: text shows none.
        match (format, views) {
            (Format::Text | Format::Sarif, _) => options.with_views([]),
            (_, format::Views::All) => options,
            (_, format::Views::Only(ids)) => options.with_views(ids.iter().map(String::as_str)),
        }
    };
    let check_one = |(input, id): &(&Input, &str)| -> Result<Checked, String> {
        let text = match &input.source {
            InputSource::Stdin(text) => std::borrow::Cow::Borrowed(text.as_str()),
            InputSource::File(path) => std::borrow::Cow::Owned(read_text(path)?),
        };
        let options = options_for(id);
        let report = match (&resolve, &input.source) {
            (Some(search), InputSource::File(_)) => {
                let sources = in_folder(&input.name, &text, search);
                // One session per worker thread: the files a folder's files call are
                // lowered once per thread, not once per caller. Reports never depend
                // on what a session kept.
                SESSION.with_borrow_mut(|session| {
                    analyzer.analyze_sources_in(session, &sources, &options)
                })
            }
            _ => analyzer.analyze(&text, &options),
        };
        Ok(Checked {
            errors: report.error_count(),
            output: render(format, &input.name, &report, views),
        })
    };
    let progress = matches!(format, Format::Text) && std::io::stderr().is_terminal();
    let jobs_list: Vec<(&Input, &str)> = inputs.iter().zip(langs).collect();
    let checked = match run_parallel(&jobs_list, jobs, progress, check_one) {
        Ok(c) => c,
        Err(message) => {
            eprintln!("shapex: {message}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = print_checked(format, &checked) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("shapex: cannot write output: {e}");
            return ExitCode::from(2);
        }
    }
    if checked.iter().any(|c| c.errors > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Why `name`'s language is unknown, and how to name it.
fn unknown_language(analyzer: &Analyzer, name: &str) -> String {
    let known: Vec<String> = analyzer
        .languages()
        .map(|l| {
            let i = l.info();
            format!("{} (.{})", i.id, i.extensions.join(", ."))
        })
        .collect();
    let what = if name == "<stdin>" {
        "stdin has no file extension".to_string()
    } else {
        format!("no language claims the extension of `{name}`")
    };
    format!(
        "{what}; name its language with --lang (known: {})",
        known.join(", ")
    )
}

fn render(format: Format, name: &str, report: &Report, views: &format::Views) -> Output {
    match format {
        Format::Text => Output::Text(format::to_text(name, report)),
        Format::Json => Output::Json(format::to_json_value(name, report, views)),
        Format::Jsonl => {
            let mut line = serde_json::to_string(&format::to_json_value(name, report, views))
                .expect("a JSON value always serializes");
            line.push('\n');
            Output::Text(line)
        }
        Format::Sarif => Output::Sarif(shapex::sarif::results(name, report)),
    }
}

/// Runs `job` over every input on up to `jobs` threads, and returns the results in the
/// inputs' order whichever thread finished first. Workers take the next unclaimed input
/// from a shared counter. The first input (in order) whose job fails is the error: once
/// one fails no new input is claimed, and every input before it was claimed already.
fn run_parallel<I: Sync, T: Send + Sync>(
    inputs: &[I],
    jobs: usize,
    progress: bool,
    job: impl Fn(&I) -> Result<T, String> + Sync,
) -> Result<Vec<T>, String> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let slots: Vec<OnceLock<Result<T, String>>> = inputs.iter().map(|_| OnceLock::new()).collect();
    let work = || loop {
        if failed.load(Ordering::Relaxed) {
            break;
        }
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(input) = inputs.get(i) else { break };
        let result = job(input);
        if result.is_err() {
            failed.store(true, Ordering::Relaxed);
        }
        let _ = slots[i].set(result);
        done.fetch_add(1, Ordering::Relaxed);
    };
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs.clamp(1, inputs.len().max(1)))
            .map(|_| {
                std::thread::Builder::new()
                    // As deep as the main thread's, which analysed every file before.
                    .stack_size(8 << 20)
                    .spawn_scoped(scope, work)
                    .expect("cannot start a worker thread")
            })
            .collect();
        if progress && !inputs.is_empty() {
            let mut bar = Progress::new(inputs.len());
            while !workers.iter().all(|w| w.is_finished()) {
                bar.draw(done.load(Ordering::Relaxed));
                std::thread::sleep(Duration::from_millis(100));
            }
            bar.clear();
        }
    });
    let mut out = Vec::with_capacity(inputs.len());
    for slot in slots {
        match slot.into_inner() {
            Some(Ok(v)) => out.push(v),
            Some(Err(message)) => return Err(message),
            None => unreachable!("only inputs after a failed one go unclaimed"),
        }
    }
    Ok(out)
}

/// A one-line progress bar on stderr (only drawn when stderr is a terminal).
struct Progress {
    total: usize,
    shown: Option<usize>,
}

impl Progress {
    const WIDTH: usize = 30;

    fn new(total: usize) -> Self {
        Progress { total, shown: None }
    }

    fn draw(&mut self, done: usize) {
        if self.shown == Some(done) {
            return;
        }
        self.shown = Some(done);
        let filled = Self::WIDTH * done / self.total;
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r[{}{}] {done}/{} files",
            "#".repeat(filled),
            "-".repeat(Self::WIDTH - filled),
            self.total
        );
        let _ = err.flush();
    }

    fn clear(&mut self) {
        if self.shown.is_some() {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
        }
    }
}

fn print_checked(format: Format, checked: &[Checked]) -> std::io::Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match format {
        Format::Text | Format::Jsonl => {
            for c in checked {
                if let Output::Text(text) = &c.output {
                    out.write_all(text.as_bytes())?;
                }
            }
            if matches!(format, Format::Text) {
                let errors: usize = checked.iter().map(|c| c.errors).sum();
                writeln!(
                    out,
                    "{} file{} checked, {errors} error{}",
                    checked.len(),
                    if checked.len() == 1 { "" } else { "s" },
                    if errors == 1 { "" } else { "s" }
                )?;
            }
        }
        Format::Json => {
            let values: Vec<_> = checked
                .iter()
                .filter_map(|c| match &c.output {
                    Output::Json(v) => Some(v.clone()),
                    Output::Text(_) | Output::Sarif(_) => None,
                })
                .collect();
            let value = match <[_; 1]>::try_from(values) {
                Ok([one]) => one,
                Err(many) => serde_json::Value::Array(many),
            };
            serde_json::to_writer_pretty(&mut out, &value)?;
            writeln!(out)?;
        }
        Format::Sarif => {
            let results = checked
                .iter()
                .flat_map(|c| match &c.output {
                    Output::Sarif(r) => r.clone(),
                    _ => Vec::new(),
                })
                .collect();
            let analyzer = Analyzer::new();
            let explain = |code: &str| analyzer.languages().find_map(|l| l.explain(code));
            let log = shapex::sarif::log(env!("CARGO_PKG_VERSION"), results, explain);
            serde_json::to_writer_pretty(&mut out, &log)?;
            writeln!(out)?;
        }
    }
    out.flush()
}

/// The inputs in command-line order, each directory's files sorted by path. Every file is
/// an input once, under the first name that reaches it (names are compared after
/// resolving links, so `a.m ./a.m`, or a link to a file beside it, is one input); `-`
/// (stdin) is read once.
fn collect_inputs(paths: &[PathBuf], extensions: &[&str]) -> Result<Vec<Input>, String> {
    let mut inputs = Vec::new();
    let mut seen = HashSet::new();
    let mut stdin_read = false;
    let mut add_file = |inputs: &mut Vec<Input>, path: PathBuf| {
        // A path that does not resolve is kept as given: reading it reports the error.
        let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if seen.insert(key) {
            inputs.push(Input {
                name: path.display().to_string(),
                source: InputSource::File(path),
            });
        }
    };
    for path in paths {
        if path.as_os_str() == "-" {
            if stdin_read {
                continue;
            }
            stdin_read = true;
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| format!("cannot read stdin: {e}"))?;
            inputs.push(Input {
                name: "<stdin>".into(),
                source: InputSource::Stdin(String::from_utf8_lossy(&bytes).into_owned()),
            });
        } else if path.is_dir() {
            for f in find_files(path, extensions)? {
                add_file(&mut inputs, f);
            }
        } else {
            add_file(&mut inputs, path.clone());
        }
    }
    Ok(inputs)
}

thread_local! {
    static SESSION: std::cell::RefCell<Session> = std::cell::RefCell::new(Session::default());
}

/// The file `path` (with text `text`) among the files of its folder and `search`,
/// read from the file system as its calls reach them.
fn in_folder<'a>(path: &'a str, text: &'a str, search: &'a [String]) -> Sources<'a> {
    Sources {
        path,
        text,
        read: &read_source,
        search,
    }
}

/// The text of the file at `path`, for a call another file makes (`None`: no file
/// there, or one that cannot be read).
fn read_source(path: &str) -> Option<Arc<str>> {
    let path = Path::new(path);
    path.is_file().then_some(())?;
    read_text(path).ok().map(Arc::from)
}

/// A folder as the core names it: `/`-separated, without a trailing `/`.
fn slashed(dir: &Path) -> String {
    let s = dir.display().to_string().replace('\\', "/");
    match s.trim_end_matches('/') {
        "" => s,
        trimmed => trimmed.to_string(),
    }
}

fn read_text(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    // A NUL byte in the first 8 KB makes a file binary, as git and grep judge (a P-code
    // or MAT file named `.m`): no source text, so no analysis whose errors would mislead.
    if let Some(at) = bytes.iter().take(8192).position(|&b| b == 0) {
        return Err(format!(
            "{}: a binary file, not source text (a NUL byte at offset {at})",
            path.display()
        ));
    }
    // Octave's own files include Latin-1 comments; keep going rather than refuse them.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The files under `dir` with one of `extensions`, sorted by path. `dir` itself may be a
/// link, but links to directories below it are not followed (as git and ripgrep do), so
/// no link loop is walked and no folder is walked twice; a link to a file is a file.
fn find_files(dir: &Path, extensions: &[&str]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(dir).follow_links(false) {
        let entry = entry.map_err(|e| {
            let at = e.path().unwrap_or(dir).display().to_string();
            match e.io_error() {
                Some(io) => format!("{at}: {io}"),
                None => format!("{at}: {e}"),
            }
        })?;
        let is_dir =
            entry.file_type().is_dir() || (entry.path_is_symlink() && entry.path().is_dir());
        if !is_dir
            && entry
                .path()
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| extensions.contains(&e))
        {
            out.push(entry.into_path());
        }
    }
    out.sort();
    Ok(out)
}
