//! Which functions real code calls (issue #24 item 1): every call a MATLAB file makes
//! by name, after the Tamer's kind analysis has told variables from functions, sorted
//! into calls of the builtin table, of a function the code itself defines (in the file,
//! or as a file or function anywhere in the corpus), and of neither. The last kind is
//! what the table should grow by; the share of the first two is the Measures table's
//! "call sites whose function is known".

use shapex_matlab::builtins::BuiltinTable;
use shapex_matlab::tame::{self, ir};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

/// Where a called name is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Known {
    /// In the builtin table.
    Builtin,
    /// A function of the corpus (of the file, or another file's name or function).
    Defined,
    /// One of the Tamer's wild calls (`eval`, `cd`, `load` without an output): known,
    /// and known to make what it may change unknown.
    Wild,
    /// Neither.
    Unknown,
}

/// Call sites per kind and per called name, and the files calling it.
#[derive(Default)]
pub struct Counts {
    /// (kind, name) → (call sites, indices of the files calling it).
    pub names: BTreeMap<(Known, String), (usize, BTreeSet<usize>)>,
    pub files: usize,
}

impl Counts {
    /// Call sites of each kind.
    pub fn sites(&self, kind: Known) -> usize {
        self.names
            .iter()
            .filter(|((k, _), _)| *k == kind)
            .map(|(_, (s, _))| s)
            .sum()
    }

    /// The names of `kind` called by at least `min_files` files: (name, files, sites),
    /// most files first.
    pub fn called(&self, kind: Known, min_files: usize) -> Vec<(&str, usize, usize)> {
        let mut out: Vec<_> = self
            .names
            .iter()
            .filter(|((k, _), (_, f))| *k == kind && f.len() >= min_files)
            .map(|((_, n), (s, f))| (n.as_str(), f.len(), *s))
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        out
    }
}

/// Counts the calls of `files` (path and text) against `table`.
pub fn count(root: &Path, files: &[(PathBuf, String)], table: &BuiltinTable) -> Counts {
    let lowered: Vec<ir::Program> = files
        .iter()
        .map(|(_, text)| tame::lower(&shapex_matlab_syntax::parse(text).file).program)
        .collect();
    // A file's name is a function (or script) the other files of its repository (the
    // first folder under `root`) may call, unless it is a class method (`@cls/`) or a
    // package function (`+pkg/`), which only its objects or `pkg.name` reach; a file
    // also sees the files of its own folder (a class's other methods, `private/`).
    let repo = |p: &Path| -> String {
        let rel = p.strip_prefix(root).unwrap_or(p);
        rel.components().next().map_or(String::new(), |c| {
            c.as_os_str().to_string_lossy().into_owned()
        })
    };
    let folder = |p: &Path| p.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut defined: HashSet<(String, String)> = HashSet::new();
    let mut in_folder: HashSet<(PathBuf, String)> = HashSet::new();
    for (p, _) in files {
        let Some(stem) = p.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        in_folder.insert((folder(p), stem.to_string()));
        let hidden = p.components().any(|c| {
            let c = c.as_os_str().to_string_lossy();
            c.starts_with('@') || c.starts_with('+') || c == "private"
        });
        if !hidden {
            defined.insert((repo(p), stem.to_string()));
        }
    }
    let mut counts = Counts {
        files: files.len(),
        ..Counts::default()
    };
    for (i, (program, (_, text))) in lowered.iter().zip(files).enumerate() {
        for s in program.statements() {
            let Some((_, func)) = s.written_call(text) else {
                continue;
            };
            let func = &func.to_string();
            let last = func.rsplit('.').next().unwrap_or(func).to_string();
            let path = &files[i].0;
            let kind = if table.lookup(func).is_some() {
                Known::Builtin
            } else if tame::WILD.contains(&func.as_str()) {
                Known::Wild
            } else if func.contains('.')
                || program.functions.iter().any(|g| g.name == *func)
                || defined.contains(&(repo(path), last.clone()))
                || in_folder.contains(&(folder(path), last))
            {
                Known::Defined
            } else {
                Known::Unknown
            };
            let entry = counts.names.entry((kind, func.clone())).or_default();
            entry.0 += 1;
            entry.1.insert(i);
        }
    }
    counts
}
