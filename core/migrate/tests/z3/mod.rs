//! What the z3 tests and the questions' benchmark share: the `z3` binary as they call
//! it, and the fixtures made gradual.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};

/// Whether `z3` runs here. `required` names what needs it: with `CI` set its absence
/// then fails the run (the oracle must run in CI), else it is skipped with a note.
pub fn installed(required: Option<&str>) -> bool {
    let found = Command::new("z3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        match required {
            Some(what) if std::env::var_os("CI").is_some() => {
                panic!("z3 is not installed, and CI is set: {what} must run")
            }
            Some(what) => eprintln!("SKIP: z3 not found; {what} did not run"),
            None => eprintln!("NOTE: z3 not found; the z3 side did not run"),
        }
    }
    found
}

/// z3's first line (`sat`, `unsat`, `unknown`, `timeout`) on `script`, read from stdin
/// with a 10 s timeout.
pub fn first_line(script: &str) -> String {
    let mut child = Command::new("z3")
        .args(["-in", "-T:10"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run z3");
    child
        .stdin
        .take()
        .expect("z3's stdin")
        .write_all(script.as_bytes())
        .expect("write the script to z3");
    let out = child.wait_with_output().expect("wait for z3");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_string()
}

/// `src` with every number of forward's annotations replaced by `Dyn` (so Q1 has
/// unknowns to solve for), or `None` when no annotation has a number.
pub fn gradualised(src: &str) -> Option<String> {
    let mut changed = false;
    let lines: Vec<String> = src
        .lines()
        .map(|line| {
            if !line.contains("def forward") {
                return line.to_string();
            }
            let mut out = String::new();
            let mut rest = line;
            while let Some(at) = rest.find("TensorType(") {
                let (head, tail) = rest.split_at(at);
                out.push_str(head);
                let end = tail.find(')').map_or(tail.len(), |i| i + 1);
                let mut digits = false;
                for ch in tail[..end].chars() {
                    if ch.is_ascii_digit() {
                        if !digits {
                            out.push_str("Dyn");
                            changed = true;
                        }
                        digits = true;
                    } else {
                        digits = false;
                        out.push(ch);
                    }
                }
                rest = &tail[end..];
            }
            out.push_str(rest);
            out
        })
        .collect();
    changed.then(|| lines.join("\n") + "\n")
}
