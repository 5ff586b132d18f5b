//! The README's command-line examples are real: every ```console block is run, each
//! `$ ` line as a shell command in a fresh folder with this build's `shapex` first on
//! the PATH, and what it prints (stdout and stderr) must be the lines after it, up to
//! the next `$ ` line or the block's end.
#![cfg(unix)]

use std::path::Path;
use std::process::Command;

/// (command, expected output) of every example, in README order.
fn examples(readme: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in readme.lines() {
        if line.trim_start().starts_with("```") {
            in_block = line.trim() == "```console";
            continue;
        }
        if !in_block {
            continue;
        }
        match line.strip_prefix("$ ") {
            Some(command) => out.push((command.to_string(), String::new())),
            None => {
                if let Some((_, expected)) = out.last_mut() {
                    expected.push_str(line);
                    expected.push('\n');
                }
            }
        }
    }
    out
}

#[test]
fn every_console_example_prints_what_the_readme_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 4, "the README's examples: {examples:?}");
    let bin = Path::new(env!("CARGO_BIN_EXE_shapex")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let dir = std::env::temp_dir().join(format!("shapex-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    for (command, expected) in &examples {
        let out = Command::new("sh")
            .args(["-c", &format!("{command} 2>&1")])
            .current_dir(&dir)
            .env("PATH", &path)
            .env_remove("SHAPEX_PLAYGROUND")
            .output()
            .expect("run sh");
        let printed = String::from_utf8_lossy(&out.stdout);
        if printed != *expected {
            failures.push(format!(
                "$ {command}\n--- the README says:\n{expected}--- it prints:\n{printed}"
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn examples_are_read_command_by_command() {
    let text = "x\n```console\n$ a\none\ntwo\n$ b\n```\n```sh\n$ not run\n```\n";
    assert_eq!(
        examples(text),
        [
            ("a".into(), "one\ntwo\n".into()),
            ("b".into(), String::new())
        ]
    );
}
