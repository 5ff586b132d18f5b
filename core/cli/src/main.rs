//! `shapex`: the command-line face of Shape Explorer's core.
//!
//! Exit status: 0 when no error diagnostics, 1 when any file has an error diagnostic,
//! 2 on usage or I/O errors.

use clap::{Parser, Subcommand, ValueEnum};
use shapex::{format, Analyzer, Mode, Options, Report};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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
        /// The language (`matlab`, …); by default chosen by each file's extension, and
        /// MATLAB for stdin.
        #[arg(long)]
        lang: Option<String>,
        /// MATLAB shape semantics: modern (implicit expansion) or paper (strict
        /// MATLAB 5). Short for `--set mode=…`.
        #[arg(long, value_enum)]
        mode: Option<ModeArg>,
        /// A language option, `KEY=VALUE` (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        settings: Vec<String>,
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
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
}

#[derive(Clone, Copy, ValueEnum)]
enum ModeArg {
    Modern,
    Paper,
}

impl ModeArg {
    fn as_str(self) -> &'static str {
        match self {
            ModeArg::Modern => Mode::Modern.as_str(),
            ModeArg::Paper => Mode::Paper.as_str(),
        }
    }
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
                format!("{}={}", o.key, values.join("|"))
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
            mode,
            settings,
            paths,
        } => {
            let mut settings = settings;
            if let Some(m) = mode {
                settings.push(format!("mode={}", m.as_str()));
            }
            check(format, lang.as_deref(), &settings, &paths)
        }
        Command::Languages => languages(),
        Command::Explain { code } => explain(&code),
    }
}

struct Source {
    name: String,
    text: String,
}

fn check(format: Format, lang: Option<&str>, settings: &[String], paths: &[PathBuf]) -> ExitCode {
    let analyzer = Analyzer::new();
    if let Some(id) = lang {
        if analyzer.language(id).is_none() {
            eprintln!("shapex: unknown language `{id}` (see `shapex languages`)");
            return ExitCode::from(2);
        }
    }
    let mut options = Options::new(lang.unwrap_or(shapex::report::DEFAULT_LANG));
    for kv in settings {
        let Some((k, v)) = kv.split_once('=') else {
            eprintln!("shapex: --set expects KEY=VALUE, got `{kv}`");
            return ExitCode::from(2);
        };
        options = options.with(k, v);
    }
    let extensions: Vec<&str> = analyzer
        .languages()
        .flat_map(|l| l.info().extensions.iter().copied())
        .collect();
    let sources = match collect_sources(paths, &extensions) {
        Ok(s) => s,
        Err(message) => {
            eprintln!("shapex: {message}");
            return ExitCode::from(2);
        }
    };
    let reports: Vec<(String, Report)> = sources
        .into_iter()
        .map(|s| {
            let mut options = options.clone();
            if lang.is_none() {
                if let Some(info) = analyzer.language_for_path(&s.name) {
                    options.lang = info.id.to_string();
                }
            }
            let report = analyzer.analyze(&s.text, &options);
            (s.name, report)
        })
        .collect();
    if let Err(e) = print_reports(format, &reports) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("shapex: cannot write output: {e}");
            return ExitCode::from(2);
        }
    }
    if reports.iter().any(|(_, r)| r.error_count() > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn print_reports(format: Format, reports: &[(String, Report)]) -> std::io::Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match format {
        Format::Text => {
            for (name, report) in reports {
                out.write_all(format::to_text(name, report).as_bytes())?;
            }
            let errors: usize = reports.iter().map(|(_, r)| r.error_count()).sum();
            writeln!(
                out,
                "{} file{} checked, {errors} error{}",
                reports.len(),
                if reports.len() == 1 { "" } else { "s" },
                if errors == 1 { "" } else { "s" }
            )?;
        }
        Format::Json => {
            let values: Vec<_> = reports
                .iter()
                .map(|(n, r)| format::to_json_value(n, r))
                .collect();
            let value = match <[_; 1]>::try_from(values) {
                Ok([one]) => one,
                Err(many) => serde_json::Value::Array(many),
            };
            serde_json::to_writer_pretty(&mut out, &value)?;
            writeln!(out)?;
        }
        Format::Jsonl => {
            for (name, report) in reports {
                serde_json::to_writer(&mut out, &format::to_json_value(name, report))?;
                writeln!(out)?;
            }
        }
    }
    out.flush()
}

fn collect_sources(paths: &[PathBuf], extensions: &[&str]) -> Result<Vec<Source>, String> {
    let mut sources = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| format!("cannot read stdin: {e}"))?;
            sources.push(Source {
                name: "<stdin>".into(),
                text: String::from_utf8_lossy(&bytes).into_owned(),
            });
        } else if path.is_dir() {
            let mut files = Vec::new();
            find_files(path, extensions, &mut files)?;
            files.sort();
            for f in files {
                sources.push(read_source(&f)?);
            }
        } else {
            sources.push(read_source(path)?);
        }
    }
    Ok(sources)
}

fn read_source(path: &Path) -> Result<Source, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Source {
        name: path.display().to_string(),
        // Octave's own files include Latin-1 comments; keep going rather than refuse them.
        text: String::from_utf8_lossy(&bytes).into_owned(),
    })
}

fn find_files(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            find_files(&path, extensions, out)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| extensions.contains(&e))
        {
            out.push(path);
        }
    }
    Ok(())
}
