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
    about = "Array shape analysis for MATLAB programs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and analyse files (directories are searched for *.m; `-` reads stdin).
    Check {
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Shape semantics: modern (implicit expansion) or paper (strict MATLAB 5).
        #[arg(long, value_enum, default_value_t = ModeArg::Modern)]
        mode: ModeArg,
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check {
            format,
            mode,
            paths,
        } => check(format, mode, &paths),
    }
}

struct Source {
    name: String,
    text: String,
}

fn check(format: Format, mode: ModeArg, paths: &[PathBuf]) -> ExitCode {
    let options = Options {
        mode: match mode {
            ModeArg::Modern => Mode::Modern,
            ModeArg::Paper => Mode::Paper,
        },
        ..Options::default()
    };
    let sources = match collect_sources(paths) {
        Ok(s) => s,
        Err(message) => {
            eprintln!("shapex: {message}");
            return ExitCode::from(2);
        }
    };
    let analyzer = Analyzer::new();
    let reports: Vec<(String, Report)> = sources
        .into_iter()
        .map(|s| {
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

fn collect_sources(paths: &[PathBuf]) -> Result<Vec<Source>, String> {
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
            find_m_files(path, &mut files)?;
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

fn find_m_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            find_m_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "m") {
            out.push(path);
        }
    }
    Ok(())
}
