//! MATLAB's function lookup across files (Dubrau 2012, §3.1): a call of a name that is
//! neither a variable nor a function of the caller's file runs `private/NAME.m` beside
//! the file, else `NAME.m` in its folder, else `NAME.m` in the search folders in order.
//!
//! Linking appends the functions of every file a program reaches to it, each renamed
//! so that one name means one function across the linked program (`helper`,
//! `helper>sub`, as MATLAB's stack names them), and rewrites every call to the name it
//! resolves to. The value analysis, which looks functions up by name, then needs no
//! notion of files: a file's functions are the first [`Linked::own`] ones.

use super::ir::{walk_mut, Function, FunctionKind, Program, StmtKind};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

/// Another file of the program, lowered.
pub struct Unit {
    pub path: String,
    pub text: Arc<str>,
    /// The temporaries' prefix its lowering started from (the linked program's).
    pub prefix: String,
    /// Lowered from `prefix`, or `None` when the file cannot be called (a script, a
    /// classdef file, a file with syntax errors).
    pub program: Option<Program>,
}

/// Where a function of a linked program outside the analysed file comes from.
#[derive(Debug, PartialEq)]
pub struct Origin {
    pub path: String,
    pub text: Arc<str>,
}

pub struct Linked {
    pub program: Program,
    /// The analysed file's functions: the first `own` of `program.functions`.
    pub own: usize,
    /// The file of every other function, by its linked name.
    pub origins: HashMap<String, Rc<Origin>>,
    /// The other files' primary functions found in a folder (not `private/`): MATLAB
    /// finds a class method of the name first when an argument is an object of that
    /// class (`@sdpvar/getvariables.m`, anywhere on the path), so a call with an
    /// argument that may be an object may run another function.
    pub dispatched: HashSet<String>,
    /// The prefix some linked file needs that `program`'s temporaries do not have (a
    /// name in it starts with theirs): link again, every file lowered with this one.
    pub needs_prefix: Option<String>,
}

/// Where to look for files (the analysed file's path, the search folders).
pub struct Path<'a> {
    pub file: &'a str,
    pub search: &'a [String],
}

/// Prefix of a call of a name that must reach no function of the linked program: a
/// name another file calls that resolves to no file, but that the analysed file
/// defines for itself (its functions are not visible from other files). The analysis
/// knows no such function nor builtin, so the call's results are unknown.
const UNRESOLVED: &str = "?";

/// Links `program` (lowered from the file `path.file`) with the files it reaches,
/// loaded by `load` (by path; `None` when there is no such file).
pub fn link(
    mut program: Program,
    path: &Path,
    load: &mut dyn FnMut(&str) -> Option<Rc<Unit>>,
) -> Linked {
    let own = program.functions.len();
    let mut linker = Linker {
        path,
        load,
        taken: program.functions.iter().map(|f| f.name.clone()).collect(),
        primaries: HashMap::new(),
        found: HashMap::new(),
        files: Vec::new(),
        origins: HashMap::new(),
        dispatched: HashSet::new(),
        needs_prefix: None,
        prefix: program.temp_prefix.clone(),
        own_primary: program
            .functions
            .iter()
            .find(|f| f.kind == FunctionKind::Primary)
            .map(|f| f.name.clone()),
    };
    let own_names: HashSet<String> = linker.taken.clone();
    let here = folder(path.file).to_string();
    // In a class folder's method (`@sdpvar/max.m`), a call of the method's own name runs
    // the method only when an argument is an object of the class; with numbers
    // (`max(size(X))`) it runs the builtin, or another file. Which one the analysis
    // does not follow, so such a call is unknown: never a recursion that cannot return.
    let method = in_class_folder(&here)
        .then(|| linker.own_primary.clone())
        .flatten();
    for f in &mut program.functions {
        rename_calls(f, &mut |name| {
            if method.as_deref() == Some(name) {
                return Some(format!("{UNRESOLVED}{name}"));
            }
            if own_names.contains(name) {
                return None;
            }
            linker.resolve(&here, name)
        });
    }
    // Files found while renaming others' calls are appended as they come: a queue.
    let mut next = 0;
    let mut functions = Vec::new();
    while next < linker.files.len() {
        let (unit, names) = linker.files[next].clone();
        next += 1;
        let Some(lowered) = &unit.program else {
            continue;
        };
        let dir = folder(&unit.path).to_string();
        for f in &lowered.functions {
            let mut f = f.clone();
            f.name = names[&f.name].clone();
            f.parent = f.parent.as_ref().map(|p| names.get(p).unwrap_or(p).clone());
            rename_calls(&mut f, &mut |name| match names.get(name) {
                Some(linked) => Some(linked.clone()),
                None => Some(
                    linker
                        .resolve(&dir, name)
                        .unwrap_or_else(|| linker.unresolved(name, &own_names)),
                ),
            });
            linker.origins.insert(
                f.name.clone(),
                Rc::new(Origin {
                    path: unit.path.clone(),
                    text: unit.text.clone(),
                }),
            );
            functions.push(f);
        }
    }
    program.functions.extend(functions);
    program.renumber();
    Linked {
        program,
        own,
        origins: linker.origins,
        dispatched: linker.dispatched,
        needs_prefix: linker.needs_prefix,
    }
}

/// A file's functions' linked names, by their names in the file.
type Renames = BTreeMap<String, String>;

struct Linker<'a, 'p> {
    path: &'a Path<'p>,
    load: &'a mut dyn FnMut(&str) -> Option<Rc<Unit>>,
    /// Every linked name given so far (the analysed file's functions first).
    taken: HashSet<String>,
    /// The linked name of each file's primary function, by path (`None`: not callable).
    primaries: HashMap<String, Option<String>>,
    /// What a name called from a folder resolves to (the linked name, or `None`).
    found: HashMap<(String, String), Option<String>>,
    /// The files linked, in the order found, each with its functions' linked names by
    /// their own.
    files: Vec<(Rc<Unit>, Rc<Renames>)>,
    origins: HashMap<String, Rc<Origin>>,
    dispatched: HashSet<String>,
    needs_prefix: Option<String>,
    prefix: String,
    /// The analysed file's primary function (what other files call it by).
    own_primary: Option<String>,
}

impl Linker<'_, '_> {
    /// The linked name of the function a call of `name` from a file in folder `dir`
    /// runs, when another file defines it (`None`: a builtin or unknown function).
    fn resolve(&mut self, dir: &str, name: &str) -> Option<String> {
        let key = (dir.to_string(), name.to_string());
        if let Some(found) = self.found.get(&key) {
            return found.clone();
        }
        let found = candidates(dir, name, self.path.search)
            .into_iter()
            .find_map(|p| Some((self.primary(&p)?, p)));
        let linked = found.and_then(|(linked, p)| {
            // A package function is called by its qualified name: no method stands in.
            if !p.contains("private/") && !name.contains('.') {
                self.dispatched.extend(linked.clone());
            }
            linked
        });
        self.found.insert(key, linked.clone());
        linked
    }

    /// The linked name of the primary function of the file at `path`: `None` when
    /// there is no file there, `Some(None)` when the file cannot be called.
    fn primary(&mut self, path: &str) -> Option<Option<String>> {
        if let Some(p) = self.primaries.get(path) {
            return Some(p.clone());
        }
        if path == self.path.file {
            return Some(self.own_primary.clone());
        }
        let unit = (self.load)(path)?;
        let stem = callable_name(path);
        let Some(lowered) = &unit.program else {
            self.primaries.insert(path.to_string(), None);
            return Some(None);
        };
        if lowered.temp_prefix != self.prefix && self.needs_prefix.is_none() {
            self.needs_prefix = Some(lowered.temp_prefix.clone());
        }
        let mut names = BTreeMap::new();
        for f in &lowered.functions {
            let wanted = match f.kind {
                FunctionKind::Primary => stem.clone(),
                _ => format!("{stem}>{}", f.name),
            };
            let mut linked = wanted.clone();
            if self.taken.contains(&linked) {
                linked = format!("{wanted} ({path})");
            }
            self.taken.insert(linked.clone());
            names.insert(f.name.clone(), linked);
        }
        let primary = lowered
            .functions
            .iter()
            .find(|f| f.kind == FunctionKind::Primary)
            .map(|f| names[&f.name].clone());
        self.primaries.insert(path.to_string(), primary.clone());
        self.files.push((unit.clone(), Rc::new(names)));
        Some(primary)
    }

    /// What another file's call of `name`, which no file defines, becomes: unchanged,
    /// unless the analysed file defines a function of that name (which that call
    /// cannot see).
    fn unresolved(&self, name: &str, own: &HashSet<String>) -> String {
        match own.contains(name) {
            true => format!("{UNRESOLVED}{name}"),
            false => name.to_string(),
        }
    }
}

/// The paths a call of `name` from a file in folder `dir` may run, in MATLAB's order.
pub fn candidates(dir: &str, name: &str, search: &[String]) -> Vec<String> {
    let join = |d: &str, rest: String| match d {
        "" => rest,
        d => format!("{}/{rest}", d.trim_end_matches('/')),
    };
    if name.contains('.') {
        // `pkg.sub.f` is `+pkg/+sub/f.m` in a folder of the path: the caller's, the one
        // holding the caller's own package, or a search folder.
        let mut parts: Vec<&str> = name.split('.').collect();
        let file = format!("{}.m", parts.pop().unwrap_or_default());
        let rel: String = parts.iter().map(|p| format!("+{p}/")).collect::<String>() + &file;
        let root = dir
            .split('/')
            .take_while(|d| !d.starts_with('+') && !d.starts_with('@'))
            .collect::<Vec<_>>()
            .join("/");
        let mut dirs = vec![root.as_str()];
        dirs.extend(search.iter().map(String::as_str));
        return dirs.into_iter().map(|d| join(d, rel.clone())).collect();
    }
    let mut out = Vec::new();
    let last = dir.rsplit('/').next().unwrap_or(dir);
    // A file in `private/` sees the other private files as its own folder's.
    if last != "private" {
        out.push(join(dir, format!("private/{name}.m")));
    }
    // A class folder's (`@cls`) files are its methods, found by their arguments'
    // classes, which the analysis does not follow: only their private functions are
    // linked. A package's (`+pkg`) functions are called by qualified name only.
    if in_class_folder(dir) {
        return out;
    }
    if !last.starts_with('+') {
        out.push(join(dir, format!("{name}.m")));
    }
    out.extend(search.iter().map(|s| join(s, format!("{name}.m"))));
    out
}

/// Whether folder `dir` is, or is inside, a class folder (`@cls`).
fn in_class_folder(dir: &str) -> bool {
    dir.split('/').any(|d| d.starts_with('@'))
}

/// The folder of a `/`-separated path (`""` for the root).
fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The name MATLAB calls a file's primary function by: the file's name without its
/// extension, qualified by the packages it is in (`+util/+io/read.m` is `util.io.read`).
fn callable_name(path: &str) -> String {
    let mut parts: Vec<&str> = path.split('/').collect();
    let file = parts.pop().unwrap_or_default();
    let stem = file.strip_suffix(".m").unwrap_or(file);
    let packages: Vec<&str> = parts
        .iter()
        .rev()
        .map_while(|d| d.strip_prefix('+'))
        .collect();
    let mut name: Vec<&str> = packages.into_iter().rev().collect();
    name.push(stem);
    name.join(".")
}

/// Renames, in `f`, every function a call, handle or lambda names, by `rename`
/// (`None`: unchanged).
fn rename_calls(f: &mut Function, rename: &mut dyn FnMut(&str) -> Option<String>) {
    walk_mut(&mut f.body, &mut |s| match &mut s.kind {
        StmtKind::Call { func, .. }
        | StmtKind::FuncHandle { func, .. }
        | StmtKind::Lambda { func, .. } => {
            if let Some(linked) = rename(func) {
                *func = linked;
            }
        }
        _ => {}
    });
}

#[cfg(test)]
mod tests;
