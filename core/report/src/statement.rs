//! Per-statement results, in every language's terms: the variables a statement
//! defines with their shapes, and the status of its conformance condition θ.

use serde::{Deserialize, Serialize};
use shapex_text::{Fix, Range, Span};
use std::collections::BTreeMap;

/// One extent of a shape as shown to users and in the CLI JSON: a known integer or a
/// symbolic expression (`"n"`, `"p1+q1"`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum DimView {
    Known(i64),
    Symbolic(String),
}

/// A shape in the CLI contract: `{"dims": [3, "n"]}`, `{"illegal": true}`, or
/// `{"dims": null}` (unknown rank). A shape whose extents the program bounds (MATLAB
/// Coder's `1×:10`) also has `"max": [1, 10]`: one entry per extent, `null` where
/// unbounded (a known extent is its own bound).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ShapeView {
    Illegal {
        illegal: bool,
    },
    Dims {
        dims: Option<Vec<DimView>>,
        /// Upper bounds the program establishes, one per extent (`None`: unbounded);
        /// absent when no symbolic extent has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<Vec<Option<i64>>>,
    },
}

/// Status of a statement's conformance condition θ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckStatus {
    /// θ holds for every input that reaches the statement.
    Proven,
    /// θ depends on unknown extents: a run-time check is needed.
    Runtime,
    /// θ is false: the statement always fails.
    Error,
    /// The statement has no shape condition.
    #[default]
    None,
}

/// A variable defined by a statement, with its shape after the statement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Def {
    pub name: String,
    pub shape: ShapeView,
    /// The shape in the paper's notation, e.g. `<3,n>`.
    #[serde(default)]
    pub display: String,
    /// MATLAB class when known (`double`, `logical`, `char`, `cell`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// The value of a scalar, where the analysis knows it (`7`, `n-1`,
    /// `max(y~v1,0)-max(x,0)`), its symbols by their names as in `shape`; the Values
    /// view shows it with their aliases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// The shape analysis of one statement: what rule applied and under which condition.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StatementReport {
    pub span: Span,
    #[serde(flatten)]
    pub range: Range,
    /// `assign`, `expr`, `if`, `for`, `while`, `function`, `command`, `error`, …
    pub kind: String,
    /// Nesting depth (0 = top level of a script or function body), for the outline.
    pub depth: u32,
    /// A short label for the outline (e.g. the assigned names or the function name).
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub defs: Vec<Def>,
    #[serde(default)]
    pub check: CheckStatus,
    /// The conformance condition θ in the paper's terms, e.g. `p2 == q1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// The rule applied and where it comes from (paper table or "extension").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// No execution reaches this statement (a branch whose condition is known to be
    /// false, code after a definite error or `error(...)`): the views say "not
    /// reached", and the CLI's JSON has `"reachable": false`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nonviable: bool,
    /// What the symbols in `defs` and `condition` stand for (`n#2`: "the value of n,
    /// known when line 7 runs"), with the alias faces show them by (`n₂`), for a
    /// reader's hover and legend (see [`crate::legend`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<SymbolNote>,
    /// The pieces of the statement that name an entry of the report's glossary (a
    /// MATLAB builtin called here), for a face's hover.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refs: Vec<Ref>,
    /// For a run-time check or a definite error: concrete sizes under which the
    /// statement fails (and, for a check, under which it passes), found by the `dims`
    /// solver and checked against the condition. Filled when [`crate::Options`] ask
    /// for witnesses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness: Option<Witness>,
}

/// Sizes, by the names the statement's condition and shapes use for them (`n`,
/// `x_1`), under which a statement fails, and under which its check passes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Witness {
    /// Sizes under which it fails: every run with them that reaches the statement
    /// fails there. Empty for a statement that fails whatever the sizes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fails: Option<BTreeMap<String, i64>>,
    /// Sizes under which its check passes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passes: Option<BTreeMap<String, i64>>,
    /// An edit that writes the failing sizes into the program as a runnable repro,
    /// where the language can build one (every size one of the program's inputs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repro: Option<Fix>,
}

impl Witness {
    /// `fails when n = 3, x_1 = 2; passes when n = 2, x_1 = 2`.
    pub fn text(&self) -> String {
        let mut parts = Vec::new();
        match &self.fails {
            Some(f) if f.is_empty() => parts.push("fails whatever the sizes".to_string()),
            Some(f) => parts.push(format!("fails when {}", Witness::sizes(f))),
            None => {}
        }
        if let Some(p) = &self.passes {
            parts.push(format!("passes when {}", Witness::sizes(p)));
        }
        parts.join("; ")
    }

    /// `n = 3, x_1 = 2`, or `any sizes` for an empty assignment.
    pub fn sizes(sizes: &BTreeMap<String, i64>) -> String {
        if sizes.is_empty() {
            return "any sizes".to_string();
        }
        let parts: Vec<String> = sizes.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        parts.join(", ")
    }
}

/// A piece of a statement that names an entry of [`crate::Report::glossary`]. Its
/// place is in bytes from the statement's start, so it moves with the statement when
/// an edit above moves it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ref {
    /// Bytes from the statement's span start.
    pub at: u32,
    pub len: u32,
    /// The glossary entry's key.
    pub entry: String,
}

impl StatementReport {
    /// The span of `r` in the source.
    pub fn ref_span(&self, r: &Ref) -> Span {
        let start = self.span.start + r.at as usize;
        Span::new(start, start + r.len as usize)
    }
}

/// One symbol a statement shows and what it stands for.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolNote {
    /// The analysis's exact name (`c~c1`), as the defs and the condition print it.
    pub name: String,
    /// In a reader's words: "rows of c, known when line 12 runs".
    pub meaning: String,
    /// How faces show it (`?₁`; the name itself when it reads well), the same in every
    /// statement of the report ([`crate::legend::number_aliases`]).
    #[serde(default)]
    pub alias: String,
}

impl CheckStatus {
    /// The CSS-style class every face uses for this status.
    pub fn class(self) -> &'static str {
        match self {
            CheckStatus::Proven => "check-proven",
            CheckStatus::Runtime => "check-runtime",
            CheckStatus::Error => "check-error",
            CheckStatus::None => "check-none",
        }
    }

    /// What the status promises, in words.
    pub fn words(self) -> &'static str {
        match self {
            CheckStatus::Proven => "proven",
            CheckStatus::Runtime => "run-time check needed",
            CheckStatus::Error => "always fails",
            CheckStatus::None => "no shape condition",
        }
    }
}

/// How shapes are written: the paper's `<3,4>` or the familiar `3×4`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Notation {
    #[default]
    Paper,
    Times,
}

impl Notation {
    /// Rewrites the shape tuples in a message (`<3,4>`, `<m,n+1>`) in this notation,
    /// so that diagnostics written in the paper's notation read like the views:
    /// `<3,4>` becomes `3×4` in [`Notation::Times`]. Text that is not a tuple (a `<`
    /// comparison, a tuple with spaces) is left alone.
    pub fn rewrite(self, text: &str) -> String {
        if self == Notation::Paper || !text.contains('<') {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(open) = rest.find('<') {
            let before = &rest[..open];
            out.push_str(before);
            let after = &rest[open + 1..];
            let glued = before
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            let tuple = after
                .find('>')
                .map(|close| &after[..close])
                .filter(|inner| {
                    inner.contains(',')
                        && !inner.starts_with(',')
                        && !inner.ends_with(',')
                        && !inner.contains(|c: char| c.is_whitespace() || c == '<' || c == '=')
                });
            match tuple {
                Some(inner) if !glued => {
                    let dims: Vec<DimView> = extents(inner)
                        .into_iter()
                        .map(|d| {
                            d.parse()
                                .map_or_else(|_| DimView::Symbolic(d.into()), DimView::Known)
                        })
                        .collect();
                    out.push_str(&join_dims(&dims, "×", true));
                    rest = &after[inner.len() + 1..];
                }
                _ => {
                    out.push('<');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
}

impl ShapeView {
    /// Known extents or unknown rank, without bounds.
    pub fn dims(dims: Option<Vec<DimView>>) -> ShapeView {
        ShapeView::Dims { dims, max: None }
    }

    /// The extents, when the rank is known.
    pub fn extents(&self) -> Option<&[DimView]> {
        match self {
            ShapeView::Dims { dims: Some(d), .. } => Some(d),
            _ => None,
        }
    }

    /// The upper bounds of the extents, when some are bounded (`"max"`).
    pub fn max(&self) -> Option<&[Option<i64>]> {
        match self {
            ShapeView::Dims { max: Some(m), .. } => Some(m),
            _ => None,
        }
    }

    /// Writes the shape in `notation`: `<3,n>` (paper; the analysis's own `display`
    /// wins when given) or `3×n`. A symbolic extent with an upper bound is written as
    /// MATLAB Coder writes it, `:10` (`1×:10`, `<1,:10>`).
    pub fn format(&self, display: &str, notation: Notation) -> String {
        match self {
            ShapeView::Illegal { .. } => "illegal".into(),
            ShapeView::Dims { dims: None, .. } => "?".into(),
            ShapeView::Dims {
                dims: Some(dims),
                max,
            } => {
                let dims = bounded(dims, max.as_deref());
                match notation {
                    Notation::Paper if !display.is_empty() => display.to_string(),
                    // No extents (a VEC scalar's `un`): × has nothing to join.
                    Notation::Times if dims.is_empty() && !display.is_empty() => {
                        display.to_string()
                    }
                    Notation::Paper => format!("<{}>", join_dims(&dims, ",", false)),
                    Notation::Times => join_dims(&dims, "×", true),
                }
            }
        }
    }
}

/// The extents as shown: a symbolic one with an upper bound `c` becomes `:c`.
pub fn bounded(dims: &[DimView], max: Option<&[Option<i64>]>) -> Vec<DimView> {
    dims.iter()
        .enumerate()
        .map(
            |(k, d)| match (d, max.and_then(|m| m.get(k).copied().flatten())) {
                (DimView::Symbolic(_), Some(c)) => DimView::Symbolic(format!(":{c}")),
                _ => d.clone(),
            },
        )
        .collect()
}

/// The extents of a tuple's inside (`3,max(n,0)`): split at the commas outside
/// parentheses, since an extent may be `max(n,0)`.
fn extents(inner: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&inner[start..]);
    out
}

fn join_dims(dims: &[DimView], sep: &str, parenthesise: bool) -> String {
    dims.iter()
        .map(|d| match d {
            DimView::Known(n) => n.to_string(),
            DimView::Symbolic(s)
                if parenthesise && !s.starts_with(':') && s.contains(['+', '-', '*', '/', ' ']) =>
            {
                format!("({s})")
            }
            DimView::Symbolic(s) => s.clone(),
        })
        .collect::<Vec<_>>()
        .join(sep)
}

impl Def {
    /// The shape as faces show it: in `notation`, with the statement's symbols written
    /// as their aliases (`3×?₁`).
    pub fn shown(&self, s: &StatementReport, notation: Notation) -> String {
        self.shape
            .format_aliased(&self.display, notation, &s.symbols)
    }

    /// The tooltip of a definition: its shape, class, check, condition θ and rule, and
    /// what each symbol stands for — all with aliases (`?₁ = rows of c, …`).
    pub fn title(&self, shape: &str, s: &StatementReport) -> String {
        let mut t = format!("{} : {}", self.name, s.aliased(shape));
        if let Some(class) = &self.class {
            t.push_str(&format!(" ({class})"));
        }
        t.push_str(&format!("\ncheck: {}", s.check.words()));
        if let Some(c) = &s.condition {
            t.push_str(&format!("\ncondition θ: {}", s.aliased(c)));
        }
        if let Some(r) = &s.rule {
            t.push_str(&format!("\nrule: {r}"));
        }
        if let Some(w) = &s.witness {
            t.push_str(&format!("\nwitness: {}", w.text()));
        }
        for n in &s.symbols {
            t.push_str(&format!("\n{}", n.legend()));
        }
        t
    }
}

#[cfg(test)]
mod notation_tests {
    use super::Notation;

    #[test]
    fn messages_follow_the_notation() {
        let t = Notation::Times;
        assert_eq!(
            t.rewrite("inner dimensions differ: <3,4> * <5,p1+q1>"),
            "inner dimensions differ: 3×4 * 5×(p1+q1)"
        );
        assert_eq!(
            t.rewrite("needs n < 3, or x<y,z>"),
            "needs n < 3, or x<y,z>"
        );
        assert_eq!(t.rewrite("a <b"), "a <b");
        assert_eq!(t.rewrite("<1,0,4>."), "1×0×4.");
        assert_eq!(t.rewrite("x: <max(n,0),3>"), "x: max(n,0)×3");
        assert_eq!(Notation::Paper.rewrite("<3,4>"), "<3,4>");
        assert_eq!(t.rewrite("x: <1,:10>"), "x: 1×:10");
    }

    #[test]
    fn bounded_extents_read_as_matlab_coder_writes_them() {
        use super::{DimView, ShapeView};
        let shape = ShapeView::Dims {
            dims: Some(vec![
                DimView::Known(1),
                DimView::Symbolic("n".into()),
                DimView::Symbolic("m".into()),
            ]),
            max: Some(vec![Some(1), Some(10), None]),
        };
        assert_eq!(shape.format("", Notation::Times), "1×:10×m");
        assert_eq!(shape.format("", Notation::Paper), "<1,:10,m>");
        let json = serde_json::to_string(&shape).unwrap();
        assert_eq!(json, r#"{"dims":[1,"n","m"],"max":[1,10,null]}"#);
        assert_eq!(serde_json::from_str::<ShapeView>(&json).unwrap(), shape);
        let plain = ShapeView::dims(Some(vec![DimView::Known(3)]));
        assert_eq!(serde_json::to_string(&plain).unwrap(), r#"{"dims":[3]}"#);
    }
}
