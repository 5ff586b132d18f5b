//! The builtin prelude and the table of signatures a program sees.

use crate::ast::{Proc, Program};
use std::collections::BTreeMap;

/// The prelude's text, in Language T (`prelude.t`).
pub const PRELUDE: &str = include_str!("prelude.t");

/// The prelude parsed into declarations (its spans are offsets into [`PRELUDE`]).
pub fn prelude() -> Program {
    crate::parse(PRELUDE).program
}

/// Where a signature comes from: the program's spans and the prelude's are offsets
/// into different texts, so a reader must know which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Program,
    Prelude,
}

/// The signatures a program's calls resolve to: its own procedures (definitions and
/// `builtin` declarations) and the prelude's, a program's own shadowing the prelude's.
/// Of two procedures of one name in the program, the first is taken.
#[derive(Clone, Debug, Default)]
pub struct Signatures<'a> {
    table: BTreeMap<&'a str, (&'a Proc, Origin)>,
}

impl<'a> Signatures<'a> {
    pub fn new(program: &'a Program, prelude: &'a Program) -> Self {
        let mut table = BTreeMap::new();
        for proc in &prelude.procs {
            table
                .entry(proc.name.name.as_str())
                .or_insert((proc, Origin::Prelude));
        }
        let mut own = BTreeMap::new();
        for proc in &program.procs {
            own.entry(proc.name.name.as_str())
                .or_insert((proc, Origin::Program));
        }
        table.extend(own);
        Signatures { table }
    }

    pub fn get(&self, name: &str) -> Option<&'a Proc> {
        self.table.get(name).map(|(p, _)| *p)
    }

    pub fn origin(&self, name: &str) -> Option<Origin> {
        self.table.get(name).map(|(_, o)| *o)
    }
}
