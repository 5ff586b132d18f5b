//! The crate boundaries ARCHITECTURE.md promises, checked against what Cargo actually
//! resolves (`cargo metadata`), so a broken invariant fails here rather than living on as
//! prose. Module-level rules inside a crate are checked on its `use` lines.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Every workspace package under `core/` with the project packages it depends on
/// (normal and build dependencies; dev-dependencies may reach further, for tests).
fn core_packages() -> BTreeMap<String, Vec<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(&root)
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let core = root.join("core").canonicalize().unwrap();
    let mut packages = BTreeMap::new();
    for p in meta["packages"].as_array().unwrap() {
        let manifest = Path::new(p["manifest_path"].as_str().unwrap());
        if !manifest.canonicalize().unwrap().starts_with(&core) {
            continue;
        }
        let deps = p["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["kind"].as_str() != Some("dev"))
            .map(|d| d["name"].as_str().unwrap().to_string())
            .collect();
        packages.insert(p["name"].as_str().unwrap().to_string(), deps);
    }
    packages
}

fn project_deps(deps: &[String]) -> Vec<&str> {
    deps.iter()
        .map(String::as_str)
        .filter(|d| d.starts_with("shapex"))
        .collect()
}

/// The languages: `shapex-<lang>` with its front end `shapex-<lang>-syntax`. The
/// shared analyses (`dims`, `flow`, `extent`) are not languages: `extent` is Derby &
/// Zorn's type system over the kernel language T, which other languages lower into.
fn language_of(package: &str) -> Option<&str> {
    let rest = package.strip_prefix("shapex-")?;
    let lang = rest.strip_suffix("-syntax").unwrap_or(rest);
    (!["text", "dims", "report", "cli", "flow", "extent", "layout"].contains(&lang)).then_some(lang)
}

#[test]
fn the_extent_analysis_reads_only_the_kernel_syntax() {
    let packages = core_packages();
    assert_eq!(
        project_deps(&packages["shapex-extent"]),
        ["shapex-report", "shapex-t-syntax", "shapex-text"]
    );
}

#[test]
fn the_core_has_the_promised_crates() {
    let packages = core_packages();
    for name in [
        "shapex-text",
        "shapex-dims",
        "shapex-flow",
        "shapex-report",
        "shapex-matlab-syntax",
        "shapex-matlab",
        "shapex-t-syntax",
        "shapex-t",
        "shapex-migrate-syntax",
        "shapex-migrate",
        "shapex",
        "shapex-cli",
        "shapex-share",
    ] {
        assert!(packages.contains_key(name), "missing {name}: {packages:?}");
    }
}

/// The share-link format is a contract between the app and the CLI: data and its
/// encoding, knowing no language.
#[test]
fn share_links_know_only_the_report() {
    let packages = core_packages();
    assert_eq!(project_deps(&packages["shapex-share"]), ["shapex-report"]);
}

#[test]
fn shared_foundations_depend_on_nothing_of_the_project() {
    let packages = core_packages();
    for name in ["shapex-text", "shapex-dims", "shapex-flow"] {
        assert_eq!(project_deps(&packages[name]), Vec::<&str>::new(), "{name}");
    }
    assert_eq!(project_deps(&packages["shapex-report"]), ["shapex-text"]);
}

#[test]
fn a_front_end_sees_only_source_text() {
    for (name, deps) in core_packages() {
        if name.ends_with("-syntax") {
            assert_eq!(project_deps(&deps), ["shapex-text"], "{name}");
        }
    }
}

#[test]
fn a_language_never_imports_another_language() {
    for (name, deps) in core_packages() {
        let Some(lang) = language_of(&name) else {
            continue;
        };
        for dep in project_deps(&deps) {
            if let Some(other) = language_of(dep) {
                assert_eq!(other, lang, "{name} depends on {dep}");
            }
        }
    }
}

#[test]
fn only_the_facade_and_cli_see_every_language() {
    for (name, deps) in core_packages() {
        if name == "shapex" || name == "shapex-cli" {
            continue;
        }
        for dep in project_deps(&deps) {
            assert!(
                dep != "shapex" && dep != "shapex-cli",
                "{name} depends on the façade {dep}"
            );
        }
    }
}

#[test]
fn the_core_is_pure() {
    for (name, deps) in core_packages() {
        if name == "shapex-cli" {
            continue;
        }
        for web in ["web-sys", "js-sys", "wasm-bindgen", "leptos", "gloo"] {
            assert!(!deps.iter().any(|d| d == web), "{name} depends on {web}");
        }
        // Directory walking and threads belong to the CLI: the core is text in, data out.
        for io in ["walkdir", "ignore", "rayon"] {
            assert!(!deps.iter().any(|d| d == io), "{name} depends on {io}");
        }
    }
}

/// `use crate::<module>` lines under `dir` (a crate's module), to check layering inside
/// a crate where Cargo cannot.
fn crate_imports(dir: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for entry in walkdir::WalkDir::new(dir) {
        let entry = entry.unwrap();
        if entry.path().extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            for m in text.split("crate::").skip(1) {
                let module: String = m
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                found.push((entry.path().display().to_string(), module));
            }
        }
    }
    found
}

#[test]
fn matlab_domains_sit_below_the_analyses() {
    // The shape-tuple algebra and the builtin table are domains: they never walk the
    // program or reach into the value analysis that uses them.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/matlab/src");
    for (domain, forbidden) in [
        ("shape", &["values", "flow", "tame", "checks"][..]),
        (
            "builtins",
            &["values", "flow", "tame", "shape", "checks"][..],
        ),
        ("tame", &["values", "shape", "checks"][..]),
        ("flow", &["values", "shape", "builtins", "checks"][..]),
        (
            "callgraph.rs",
            &["values", "shape", "builtins", "checks"][..],
        ),
    ] {
        for (file, module) in crate_imports(&src.join(domain)) {
            assert!(
                !forbidden.contains(&module.as_str()),
                "{file} imports crate::{module}"
            );
        }
    }
}

#[test]
fn values_modules_are_layered() {
    // The value analysis's files import each other without a cycle (issue #22): each
    // uses only files of a lower layer. The recursion of the algorithm (a loop's study
    // runs the flow over its body, which steps statements, which may be loops) goes
    // through the flow framework's `Analysis` trait and methods of `ValueAnalysis`,
    // never through a `use`. `mod.rs` (Value, Env, Symbols) is below all of them.
    let layers: &[(&str, usize)] = &[
        ("parts", 0),
        ("results", 1),
        ("display", 1),
        ("contexts", 2),
        ("eval", 1),
        ("static_calls", 1),
        ("nesting", 1),
        ("state", 2),
        ("gloss", 2),
        ("summary", 2),
        ("access", 3),
        ("call", 3),
        ("resume", 3),
        ("transfer", 4),
        ("memo", 4),
        ("loops", 5),
        ("analysis", 6),
        ("program", 6),
    ];
    let layer = |m: &str| layers.iter().find(|(n, _)| *n == m).map(|(_, l)| *l);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/matlab/src/values");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        if name == "mod" || name.ends_with("tests") || name == "rule_props" {
            continue;
        }
        let own = layer(&name).unwrap_or_else(|| panic!("values/{name}.rs has no layer here"));
        let text = std::fs::read_to_string(&path).unwrap();
        for m in text.split("super::").skip(1) {
            let used: String = m
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if let Some(l) = layer(&used) {
                assert!(
                    l < own,
                    "values/{name}.rs (layer {own}) uses {used} (layer {l})"
                );
            }
        }
    }
}
