//! Readable aliases for the symbols an analysis mints, and their legend.
//!
//! An analysis names the unknowns it introduces so that they stay distinct (`c~c1`,
//! `a~j1@2`, `n#2`); those names are exact and the CLI's JSON keeps them, but a student
//! cannot read them. Every face therefore shows a symbol by its *alias* (`?₁`, `n₂`)
//! and explains it in a legend (`?₁ = rows of c, known when line 12 runs`).
//!
//! Aliases are a display layer computed from the finished statements alone
//! ([`number_aliases`]), in one place and in order of first appearance, so the same
//! report always gets the same aliases (whatever an incremental analysis reused) and
//! one symbol has one alias in every statement. A symbol is identified by its name and
//! meaning: names are unique within one function's analysis, and the meaning of every
//! aliased symbol names the line it comes from, which tells two functions' `c~c1`
//! apart.

use crate::statement::{Notation, ShapeView, StatementReport, SymbolNote};
use crate::Report;
use shapex_text::Span;
use std::collections::{HashMap, HashSet};

/// What [`SymbolNote::alias`] asks for before numbering: the symbol is shown as its
/// name.
pub const KEEP: &str = "";
/// What [`SymbolNote::alias`] asks for before numbering: an anonymous unknown, shown
/// as `?₁`, `?₂`, ….
pub const UNKNOWN: &str = "?";

/// Gives every statement's symbols their final alias. Each note's `alias` holds, on
/// entry, what the language asks for — [`KEEP`] (the name reads
/// well as it is: `n`, `x_1`), [`UNKNOWN`] (`?₁`, `?₂`, … in order of first
/// appearance), or a variable's name `v` for another value of `v` (`v₂`, `v₃`, …: the
/// bare `v` is its first) — and on return the text faces show (the name when kept).
pub fn number_aliases(statements: &mut [StatementReport]) {
    // (name, meaning) → alias; a file can show thousands of symbols, so maps.
    let mut given: HashMap<(String, String), String> = HashMap::new();
    // How many aliases each stem has handed out.
    let mut counts: HashMap<String, usize> = HashMap::new();
    for s in statements.iter_mut() {
        for note in &mut s.symbols {
            let key = (note.name.clone(), note.meaning.clone());
            if let Some(alias) = given.get(&key) {
                note.alias = alias.clone();
                continue;
            }
            let alias = match note.alias.as_str() {
                KEEP => note.name.clone(),
                stem => {
                    // A variable's bare name is its first value, so its others start at 2.
                    let first = if stem == UNKNOWN { 1 } else { 2 };
                    let count = counts.entry(stem.to_string()).or_insert(first - 1);
                    *count += 1;
                    format!("{stem}{}", subscript(*count))
                }
            };
            note.alias = alias.clone();
            given.insert(key, alias);
        }
    }
}

/// `12` → `₁₂`.
fn subscript(n: usize) -> String {
    n.to_string()
        .chars()
        .map(|c| match c {
            '0'..='9' => char::from_u32('₀' as u32 + (c as u32 - '0' as u32)).unwrap_or(c),
            c => c,
        })
        .collect()
}

/// Whether `c` can be part of a symbol's name as analyses print them (`x_1`, `a~j1@2.1`,
/// `n#2`), which is also how `mentions` decides that `n` is not in `n#2` or `nn`.
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '#' | '~' | '@' | '.')
}

/// The runs of name characters of `text`, as byte ranges; a run's trailing dots (a
/// sentence's full stop) are not part of it.
fn words(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        let (start, _) = chars.find(|(_, c)| is_name_char(*c))?;
        let mut end = text.len();
        while let Some((i, c)) = chars.peek().copied() {
            if !is_name_char(c) {
                end = i;
                break;
            }
            chars.next();
        }
        let word = text[start..end].trim_end_matches('.');
        Some((start, start + word.len()))
    })
}

/// `text` with every symbol of `notes` it shows written as its alias (`<c~c1,3>` →
/// `<?₁,3>`). A name counts only as a whole word, so `n` is not replaced inside `n#2`.
/// When two notes share a name, the first wins.
pub fn with_aliases<'a>(text: &str, notes: impl IntoIterator<Item = &'a SymbolNote>) -> String {
    let mut renamed: HashMap<&str, &str> = HashMap::new();
    for n in notes.into_iter().filter(|n| n.is_aliased()) {
        renamed.entry(&n.name).or_insert(&n.alias);
    }
    if renamed.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (start, end) in words(text) {
        if let Some(alias) = renamed.get(&text[start..end]) {
            out.push_str(&text[last..start]);
            out.push_str(alias);
            last = end;
        }
    }
    out.push_str(&text[last..]);
    out
}

/// The notes of `notes` that `text` mentions (as whole words), each once, in order.
pub fn mentioned<'a>(
    text: &str,
    notes: impl IntoIterator<Item = &'a SymbolNote>,
) -> Vec<&'a SymbolNote> {
    let mut shown: HashSet<&str> = words(text).map(|(s, e)| &text[s..e]).collect();
    let mut out: Vec<&SymbolNote> = Vec::new();
    for n in notes {
        // Removed once found: the first note of a name wins.
        if shown.remove(n.name.as_str()) {
            out.push(n);
        }
    }
    out
}

impl SymbolNote {
    /// What a face shows for the symbol: its alias, or its name when it has none.
    pub fn shown(&self) -> &str {
        if self.alias.is_empty() {
            &self.name
        } else {
            &self.alias
        }
    }

    /// Whether the face shows something other than the analysis's name.
    pub fn is_aliased(&self) -> bool {
        self.shown() != self.name
    }

    /// The legend line: `?₁ = rows of c, known when line 12 runs`.
    pub fn legend(&self) -> String {
        format!("{} = {}", self.shown(), self.meaning)
    }
}

impl StatementReport {
    /// `text` (a shape, the condition, a message about this statement) with the
    /// statement's symbols written as their aliases.
    pub fn aliased(&self, text: &str) -> String {
        with_aliases(text, &self.symbols)
    }

    /// The legend of the aliased symbols `text` shows (`?₁ = rows of c, …`), for a
    /// face that shows `self.aliased(text)`.
    pub fn legend_of(&self, text: &str) -> Vec<String> {
        mentioned(text, &self.symbols)
            .into_iter()
            .filter(|n| n.is_aliased())
            .map(SymbolNote::legend)
            .collect()
    }
}

impl ShapeView {
    /// [`ShapeView::format`] with the symbols of `notes` written as their aliases:
    /// `<?₁,3>` or `?₁×3`.
    pub fn format_aliased<'a>(
        &self,
        display: &str,
        notation: Notation,
        notes: impl IntoIterator<Item = &'a SymbolNote>,
    ) -> String {
        with_aliases(&self.format(display, notation), notes)
    }

    /// The same shape with its symbolic extents written with aliases (for a view
    /// payload, whose faces format it in the user's notation).
    pub fn aliased<'a>(&self, notes: impl IntoIterator<Item = &'a SymbolNote> + Clone) -> Self {
        match self {
            ShapeView::Dims {
                dims: Some(dims),
                max,
            } => ShapeView::Dims {
                max: max.clone(),
                // A bounded extent shows as its bound (`:10`), never by its name.
                dims: Some(
                    crate::statement::bounded(dims, max.as_deref())
                        .iter()
                        .map(|d| match d {
                            crate::DimView::Symbolic(s) => {
                                crate::DimView::Symbolic(with_aliases(s, notes.clone()))
                            }
                            known => known.clone(),
                        })
                        .collect(),
                ),
            },
            other => other.clone(),
        }
    }
}

/// A text about a place in the program with its symbols aliased, and the legend of
/// those symbols (what a diagnostic's hover or the CLI's text lines show).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Aliased {
    pub text: String,
    /// One `alias = meaning` line per aliased symbol the text shows.
    pub legend: Vec<String>,
}

impl Report {
    /// Every symbol the statements show, once, with its alias and meaning, in order of
    /// first appearance: the legend of the whole report.
    pub fn legend(&self) -> Vec<&SymbolNote> {
        let mut seen: HashSet<(&str, &str)> = HashSet::new();
        self.statements
            .iter()
            .flat_map(|s| &s.symbols)
            .filter(|n| seen.insert((&n.name, &n.meaning)))
            .collect()
    }

    /// The index that reads texts about places in this report (diagnostics' messages)
    /// with aliases; build it once per report (it costs one pass over the statements).
    pub fn aliases(&self) -> Aliases<'_> {
        let mut scopes: Vec<(usize, HashMap<&str, &SymbolNote>)> = vec![(0, HashMap::new())];
        let mut all: HashMap<&str, &SymbolNote> = HashMap::new();
        for s in &self.statements {
            if s.kind == "function" {
                scopes.push((s.span.start, HashMap::new()));
            }
            let scope = &mut scopes.last_mut().expect("the script's scope").1;
            for n in &s.symbols {
                scope.entry(&n.name).or_insert(n);
                all.entry(&n.name).or_insert(n);
            }
        }
        // Stable: the script's scope stays before a function starting at 0.
        scopes.sort_by_key(|(start, _)| *start);
        Aliases { scopes, all }
    }

    /// `text` about `span` (a diagnostic's message) with its symbols aliased, and
    /// their legend. Builds the index each time: for many texts use [`Report::aliases`].
    pub fn aliased(&self, text: &str, span: Span) -> Aliased {
        self.aliases().aliased(text, span)
    }
}

/// Which symbol a name means at a place: names are unique within one function's
/// analysis, so a text about a place reads its names as its function's (the statements
/// from the `function` statement at or before it to the next one; the script's before
/// any), then as the report's first symbol of that name.
#[derive(Debug)]
pub struct Aliases<'a> {
    /// Each function's start (0 for the script) with its symbols by name, by start.
    scopes: Vec<(usize, HashMap<&'a str, &'a SymbolNote>)>,
    all: HashMap<&'a str, &'a SymbolNote>,
}

impl<'a> Aliases<'a> {
    /// The symbol `name` means in a text about `span`.
    pub fn note(&self, name: &str, span: Span) -> Option<&'a SymbolNote> {
        let at = self
            .scopes
            .partition_point(|(start, _)| *start <= span.start)
            .saturating_sub(1);
        self.scopes
            .get(at)
            .and_then(|(_, names)| names.get(name))
            .or_else(|| self.all.get(name))
            .copied()
    }

    /// `text` about `span` with its symbols aliased, and the legend of the aliased ones.
    pub fn aliased(&self, text: &str, span: Span) -> Aliased {
        let mut notes: Vec<&SymbolNote> = Vec::new();
        for (start, end) in words(text) {
            if let Some(n) = self.note(&text[start..end], span) {
                if n.is_aliased() && !notes.iter().any(|o| o.name == n.name) {
                    notes.push(n);
                }
            }
        }
        Aliased {
            text: with_aliases(text, notes.iter().copied()),
            legend: notes.iter().map(|n| n.legend()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(name: &str, meaning: &str, ask: &str) -> SymbolNote {
        SymbolNote {
            name: name.into(),
            meaning: meaning.into(),
            alias: ask.into(),
        }
    }

    fn stmt(notes: Vec<SymbolNote>) -> StatementReport {
        StatementReport {
            symbols: notes,
            ..Default::default()
        }
    }

    #[test]
    fn aliases_are_numbered_once_per_symbol_in_order_of_first_appearance() {
        let c1 = || note("c~c1", "rows of c, known when line 3 runs", UNKNOWN);
        let mut statements = vec![
            stmt(vec![note("n", "the value of n", KEEP), c1()]),
            stmt(vec![
                note("n#2", "the value of n, known when line 5 runs", "n"),
                note("a~j1", "rows of a, known when line 4 runs", UNKNOWN),
                c1(),
            ]),
            // Another function's `c~c1`: another symbol, another alias.
            stmt(vec![note(
                "c~c1",
                "rows of c, known when line 9 runs",
                UNKNOWN,
            )]),
        ];
        number_aliases(&mut statements);
        let aliases: Vec<Vec<&str>> = statements
            .iter()
            .map(|s| s.symbols.iter().map(|n| n.alias.as_str()).collect())
            .collect();
        assert_eq!(
            aliases,
            [vec!["n", "?₁"], vec!["n₂", "?₂", "?₁"], vec!["?₃"]]
        );
    }

    #[test]
    fn only_whole_names_are_replaced_in_either_notation() {
        let notes = [
            note("c~c1", "", "?₁"),
            note("n", "", "n"),
            note("n#2", "", "n₂"),
        ];
        let s = stmt(notes.to_vec());
        assert_eq!(
            s.aliased("max(n,0) == max(n#2,0) ∧ c~c1+1 == 3."),
            "max(n,0) == max(n₂,0) ∧ ?₁+1 == 3."
        );
        let shape = ShapeView::Dims {
            dims: Some(vec![
                crate::DimView::Known(3),
                crate::DimView::Symbolic("c~c1+1".into()),
            ]),
            max: None,
        };
        assert_eq!(
            shape.format_aliased("<3,c~c1+1>", Notation::Paper, &notes),
            "<3,?₁+1>"
        );
        assert_eq!(
            shape.format_aliased("<3,c~c1+1>", Notation::Times, &notes),
            "3×(?₁+1)"
        );
        assert_eq!(
            shape.aliased(&notes).format("", Notation::Times),
            "3×(?₁+1)"
        );
        assert_eq!(s.legend_of("<c~c1,n>"), ["?₁ = "]);
    }

    #[test]
    fn subscripts_have_every_digit() {
        assert_eq!(subscript(1234567890), "₁₂₃₄₅₆₇₈₉₀");
    }
}
