//! Differential test of the questions' solver against Z3 (issue #21 item 3): for every
//! PyTorch fixture (`tests/fixtures/py/*.py`), as written and with every number of
//! forward's annotations made `Dyn` (so Q1 has unknowns), with no user constraints
//! and, where forward's first parameter is `x`, with a few constraint texts, every
//! constraint set the three questions solve (`migration::constraint_sets`) is exported
//! as SMT-LIB2 and given to Z3.
//!
//! - Our Sat ⇒ Z3 does not say unsat, and our model pinned into the script is sat.
//! - Our Unsat ⇒ Z3 says unsat, and the conflict subset alone is unsat.
//! - Our Unknown is allowed, and counted with what Z3 says of it.
//!
//! Z3 runs with a 10 s timeout (`-T:10`); a timeout (or Z3's `unknown`) is no verdict,
//! counted. At most `MAX_SETS` sets per fixture and constraint text are compared (the
//! output says when the cap cut some). Needs the `z3` binary; without it the test is
//! skipped with a note, unless `CI` is set (then it fails).
#![cfg(not(target_arch = "wasm32"))]

mod z3;

use shapex_dims::{smtlib, solve, Constraint, Solution};
use std::path::{Path, PathBuf};

/// Sets compared per fixture and constraint text.
const MAX_SETS: usize = 40;

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Z3 {
    Sat,
    Unsat,
    /// `unknown`, or the timeout: no verdict.
    NoVerdict,
}

/// Z3's verdict on `script`.
fn z3(script: &str) -> Z3 {
    match z3::first_line(script).as_str() {
        "sat" => Z3::Sat,
        "unsat" => Z3::Unsat,
        "unknown" | "timeout" => Z3::NoVerdict,
        other => panic!("z3 said {other:?} to\n{script}"),
    }
}

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/py");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    // The core calculus's fixtures: its own Gen (t-reshape-g either way).
    let core = dir.join("core");
    if let Ok(rd) = std::fs::read_dir(&core) {
        out.extend(
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "gt")),
        );
    }
    out.sort();
    assert!(!out.is_empty(), "no fixtures in {}", dir.display());
    out
}

/// The constraint texts tried on a model whose forward's first parameter is `x`.
const USER_TEXTS: [&str; 2] = [
    "x.shape == (b, c, h, w)\nh <= 300",
    "x.shape == (b, c, h, w)\nh in (32, 64, 224)",
];

#[derive(Default, Debug)]
struct Tally {
    sets: usize,
    sat: usize,
    unsat: usize,
    unknown: usize,
    /// Of our unknowns, how many z3 decides sat, unsat.
    unknown_z3_sat: usize,
    unknown_z3_unsat: usize,
    z3_timeouts: usize,
    /// Sets that have no SMT form (an opaque condition, an overflow).
    no_smt: usize,
    /// Sets left out by the per-fixture cap.
    capped: usize,
}

/// Compares one set; a disagreement is returned as a message.
fn compare(where_: &str, cs: &[Constraint], t: &mut Tally) -> Result<(), String> {
    let script = match smtlib::script(cs) {
        Ok(s) => s,
        Err(_) => {
            t.no_smt += 1;
            return Ok(());
        }
    };
    t.sets += 1;
    let oracle = z3(&script);
    if oracle == Z3::NoVerdict {
        t.z3_timeouts += 1;
    }
    match solve(cs) {
        Solution::Sat(model) => {
            t.sat += 1;
            if oracle == Z3::Unsat {
                return Err(format!("{where_}: we say Sat, z3 says unsat:\n{script}"));
            }
            let pinned = smtlib::script_with_model(cs, &model).map_err(|e| e.to_string())?;
            match z3(&pinned) {
                Z3::Unsat => {
                    return Err(format!(
                        "{where_}: z3 rejects our model {model:?}:\n{pinned}"
                    ))
                }
                Z3::NoVerdict => t.z3_timeouts += 1,
                Z3::Sat => {}
            }
        }
        Solution::Unsat(core) => {
            t.unsat += 1;
            if oracle == Z3::Sat {
                return Err(format!(
                    "{where_}: we say Unsat {core:?}, z3 says sat:\n{script}"
                ));
            }
            if core.is_empty() || core.iter().any(|&i| i >= cs.len()) {
                return Err(format!("{where_}: bad conflict {core:?}:\n{script}"));
            }
            let subset: Vec<Constraint> = core.iter().map(|&i| cs[i].clone()).collect();
            let sub = smtlib::script(&subset).map_err(|e| e.to_string())?;
            match z3(&sub) {
                Z3::Sat => {
                    return Err(format!(
                        "{where_}: the conflict {core:?} is satisfiable for z3:\n{sub}"
                    ))
                }
                Z3::NoVerdict => t.z3_timeouts += 1,
                Z3::Unsat => {}
            }
        }
        Solution::Unknown(_) => {
            t.unknown += 1;
            match oracle {
                Z3::Sat => t.unknown_z3_sat += 1,
                Z3::Unsat => t.unknown_z3_unsat += 1,
                Z3::NoVerdict => {}
            }
        }
    }
    Ok(())
}

#[test]
fn questions_agree_with_z3() {
    if !z3::installed(Some("the Z3 differential test")) {
        return;
    }
    let mut t = Tally::default();
    let mut failures = Vec::new();
    for path in fixtures() {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let src = std::fs::read_to_string(&path).expect("read fixture");
        let dyn_src = z3::gradualised(&src);
        let versions = [
            (file.clone(), Some(src)),
            (format!("{file} (Dyn)"), dyn_src),
        ];
        for (name, src) in versions {
            let Some(src) = src else { continue };
            check_fixture(&name, &src, &mut t, &mut failures);
        }
    }
    eprintln!(
        "questions vs z3: {} sets, {} sat, {} unsat, {} unknown (z3: {} sat, {} unsat), \
         {} z3 timeouts ({} without an SMT form, {} left out by the cap of {MAX_SETS} per fixture and text)",
        t.sets,
        t.sat,
        t.unsat,
        t.unknown,
        t.unknown_z3_sat,
        t.unknown_z3_unsat,
        t.z3_timeouts, t.no_smt, t.capped
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(t.sets > 0, "{t:?}");
}

fn check_fixture(name: &str, src: &str, t: &mut Tally, failures: &mut Vec<String>) {
    if name.contains(".gt") {
        return check_calculus(name, src, t, failures);
    }
    let parsed = shapex_migrate_syntax::python::parse(src);
    let built = shapex_migrate::modules::build(&parsed.module, None);
    let checked = shapex_migrate::forward::check_model(&built);
    let mut texts = vec![""];
    if checked.inputs.first().is_some_and(|(x, _)| x == "x") {
        texts.extend(USER_TEXTS);
    }
    for text in texts {
        let (user, bad) = shapex_migrate_syntax::user::parse(text);
        assert!(bad.is_empty(), "{text:?}: {bad:?}");
        let sets = shapex_migrate::migration::constraint_sets(
            &shapex_migrate::pytorch::Forward::new(src, &built, &checked),
            &user,
        );
        if sets.len() > MAX_SETS {
            eprintln!(
                "{name} with {text:?}: {} sets, the first {MAX_SETS} compared",
                sets.len()
            );
            t.capped += sets.len() - MAX_SETS;
        }
        let before = (t.sets, t.sat, t.unsat, t.unknown);
        for (set, cs) in sets.iter().take(MAX_SETS) {
            let where_ = format!("{name}, constraints {text:?}, set {set}");
            if let Err(e) = compare(&where_, cs, t) {
                failures.push(e);
            }
        }
        eprintln!(
            "  {name} with {text:?}: {} sets ({} sat, {} unsat, {} unknown)",
            t.sets - before.0,
            t.sat - before.1,
            t.unsat - before.2,
            t.unknown - before.3
        );
    }
}

/// A core-calculus fixture's sets, with no constraints and with its own front matter's.
fn check_calculus(name: &str, src: &str, t: &mut Tally, failures: &mut Vec<String>) {
    let parsed = shapex_migrate_syntax::parse(src);
    let checked = shapex_migrate::check::check(&parsed.program);
    let subject = shapex_migrate::calculus::Calculus::new(src, &parsed.program, &checked);
    let own: Vec<&str> = src
        .lines()
        .filter_map(|l| l.strip_prefix("# constraints:"))
        .map(str::trim)
        .collect();
    let own = own.join("\n");
    let texts = std::iter::once("").chain((!own.is_empty()).then_some(own.as_str()));
    for text in texts {
        let (user, bad) = shapex_migrate_syntax::user::parse(text);
        assert!(bad.is_empty(), "{text:?}: {bad:?}");
        let before = t.sets;
        for (set, cs) in shapex_migrate::migration::constraint_sets(&subject, &user) {
            let where_ = format!("{name}, constraints {text:?}, set {set}");
            if let Err(e) = compare(&where_, &cs, t) {
                failures.push(e);
            }
        }
        eprintln!("  {name} with {text:?}: {} sets", t.sets - before);
    }
}
