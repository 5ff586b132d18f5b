//! [`Symbol`]: an unknown as an identity with a provenance record, and the
//! [`SymbolTable`] an analysis run owns to mint them.
//!
//! A symbol is a shared record (`Arc`): its display name, the id the table gave it and
//! its [`Provenance`] (an input's extent, a join, a data-dependent count, an overflow,
//! a name the user wrote, …). Identity comes from the record, not from the text: two
//! minted symbols are one symbol only when they are the same table entry, whatever
//! their names. The name is only for display, so an analysis keeps the names its
//! readers know (`x_1`, `a~j1`, `n#2`, `t@3`) and nothing ever parses them.
//!
//! There is no global state: a `SymbolTable` belongs to one analysis run, and symbols
//! that need no table carry their identity in their record — a name the user wrote
//! (its identity is the name: `n` in a declaration is the same `n` everywhere) and an
//! overflow (its identity is the computation that overflowed, so two different
//! overflows are never one symbol).

use super::dim::Dim;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Where an analysis's statement-level symbol was minted: a statement number (the
/// analysis's own, e.g. the MATLAB IR's `StmtId`) and the simulated loop iterations
/// around it, outermost first.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Site {
    pub stmt: u32,
    pub iterations: Vec<u32>,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "statement {}", self.stmt)?;
        if !self.iterations.is_empty() {
            let path: Vec<String> = self.iterations.iter().map(u32::to_string).collect();
            write!(f, " in simulated iteration {}", path.join("."))?;
        }
        Ok(())
    }
}

/// Why a symbol exists.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Provenance {
    /// A name the user wrote (a Language T declaration, a gradual annotation, a test):
    /// its identity is its name.
    User,
    /// Extent `component` (0-based) of the input `var`.
    InputExtent { var: String, component: u32 },
    /// The unknown value of the scalar input `var` (an integer when its class is one).
    InputValue { var: String },
    /// The unknown value of the scalar variable `var` as `site` defines it (a loop
    /// variable, an integer computed from data).
    ScalarValue { var: String, site: Site },
    /// An extent (or value) that `site` computes and the analysis cannot know: a count
    /// that depends on data, an extent that differs between open cases, one grown or
    /// forgotten. `what` says which, in a reader's words.
    DataDependent {
        target: String,
        component: u32,
        site: Site,
        what: &'static str,
    },
    /// Extent `component` of `var` where paths with different extents of it join.
    Join {
        var: String,
        component: u32,
        site: Site,
    },
    /// Integer arithmetic overflowed: the value of `op` on `operands`, exactly, but not
    /// an `i64`. The same computation is the same value; two different ones are two
    /// symbols, and no question about either is ever decided (see `Dim::is_opaque`).
    Overflow { op: char, operands: Vec<Dim> },
    /// One occurrence of the gradual `Dyn` extent inside a question (see `Facts::ask`):
    /// local to that question, never stored.
    DynOccurrence(u32),
}

impl fmt::Display for Provenance {
    /// A reader's description (for hovers): "value of n defined at statement 4".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Provenance::User => f.write_str("a name written in the program"),
            Provenance::InputExtent { var, component } => {
                write!(f, "extent {} of input {var}", component + 1)
            }
            Provenance::InputValue { var } => write!(f, "value of input {var}"),
            Provenance::ScalarValue { var, site } => write!(f, "value of {var} defined at {site}"),
            Provenance::DataDependent {
                target,
                component,
                site,
                what,
            } => write!(f, "{what}: extent {} of {target} at {site}", component + 1),
            Provenance::Join {
                var,
                component,
                site,
            } => write!(
                f,
                "extent {} of {var} where paths with different extents join at {site}",
                component + 1
            ),
            Provenance::Overflow { op, operands } => {
                let parts: Vec<String> = operands.iter().map(|d| format!("({d})")).collect();
                write!(f, "integer overflow in {}", parts.join(&format!(" {op} ")))
            }
            Provenance::DynOccurrence(k) => write!(f, "occurrence {k} of Dyn"),
        }
    }
}

#[derive(Debug)]
struct Entry {
    name: Arc<str>,
    /// The table's id (1-based); 0 for a symbol no table minted (user, overflow).
    id: u32,
    provenance: Provenance,
}

/// An unknown: a shared record of its name, id and provenance. Cloning is O(1).
///
/// Equality and order are by identity — (name, id, provenance), with a pointer check
/// first — and order is by name first, so polynomials keep the term order their names
/// give them (`p1+q1`).
#[derive(Clone)]
pub struct Symbol(Arc<Entry>);

impl Symbol {
    /// A symbol whose identity is its name (what the user wrote; tests).
    pub fn user(name: &str) -> Symbol {
        Symbol(Arc::new(Entry {
            name: name.into(),
            id: 0,
            provenance: Provenance::User,
        }))
    }

    /// The symbol for an overflowed computation (identity: the computation).
    pub(crate) fn overflow(op: char, operands: Vec<Dim>) -> Symbol {
        Symbol(Arc::new(Entry {
            name: OVERFLOW_NAME.into(),
            id: 0,
            provenance: Provenance::Overflow { op, operands },
        }))
    }

    /// Occurrence `k` of `Dyn` inside one question (never stored in facts).
    pub(crate) fn dyn_occurrence(k: u32) -> Symbol {
        Symbol(Arc::new(Entry {
            name: "Dyn".into(),
            id: 0,
            provenance: Provenance::DynOccurrence(k),
        }))
    }

    /// The display name.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The id the minting table gave it (`None` for user and overflow symbols).
    pub fn id(&self) -> Option<u32> {
        (self.0.id != 0).then_some(self.0.id)
    }

    pub fn provenance(&self) -> &Provenance {
        &self.0.provenance
    }

    pub fn is_overflow(&self) -> bool {
        matches!(self.0.provenance, Provenance::Overflow { .. })
    }

    fn key(&self) -> (&str, u32, &Provenance) {
        (&self.0.name, self.0.id, &self.0.provenance)
    }
}

/// How an overflowed extent prints.
pub(crate) const OVERFLOW_NAME: &str = "⟂overflow";

impl PartialEq for Symbol {
    fn eq(&self, other: &Symbol) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.key() == other.key()
    }
}

impl Eq for Symbol {}

impl PartialOrd for Symbol {
    fn partial_cmp(&self, other: &Symbol) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Symbol {
    fn cmp(&self, other: &Symbol) -> Ordering {
        if Arc::ptr_eq(&self.0, &other.0) {
            return Ordering::Equal;
        }
        self.key().cmp(&other.key())
    }
}

impl Hash for Symbol {
    /// Equal symbols have equal names, so the name alone is a valid hash (and hashes
    /// as the name did when names were the identity: hashes that reach the output,
    /// such as the tags of `⟂case` placeholders, are unchanged).
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.name.hash(state);
    }
}

impl fmt::Debug for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.id {
            0 => write!(f, "{:?}", &*self.0.name),
            id => write!(f, "{:?}#{id}", &*self.0.name),
        }
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.name)
    }
}

/// The symbols one analysis run mints: each gets the next id and keeps its provenance,
/// so a report can say where any symbol it shows came from. Owned by the run (no
/// global state); deciding *when* a new symbol is needed (and reusing one for the same
/// key, so fixed points converge) is the analysis's business.
#[derive(Clone, Debug, Default)]
pub struct SymbolTable {
    entries: Vec<Symbol>,
}

impl SymbolTable {
    pub fn new() -> SymbolTable {
        SymbolTable::default()
    }

    /// A new symbol, distinct from every other, displayed as `name`. Names should be
    /// unique within a table for readers' sake; identity does not depend on it.
    pub fn mint(&mut self, name: &str, provenance: Provenance) -> Symbol {
        let id = u32::try_from(self.entries.len() + 1).unwrap_or(u32::MAX);
        let s = Symbol(Arc::new(Entry {
            name: name.into(),
            id,
            provenance,
        }));
        self.entries.push(s.clone());
        s
    }

    /// The symbol with this id.
    pub fn get(&self, id: u32) -> Option<&Symbol> {
        let i = usize::try_from(id).ok()?.checked_sub(1)?;
        self.entries.get(i)
    }

    /// The first symbol displayed as `name` (for a hover over printed text).
    pub fn find(&self, name: &str) -> Option<&Symbol> {
        self.entries.iter().find(|s| s.name() == name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Symbol> {
        self.entries.iter()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Keeps the first `len` symbols: the table as it was when it held that many (an
    /// analysis resuming from a saved point mints the rest again, with the same ids).
    pub fn truncate(&mut self, len: usize) {
        self.entries.truncate(len);
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
