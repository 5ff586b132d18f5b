//! A Report told as its difference from the one the page already holds, so that a
//! keystroke in a 10,000-line file does not carry the whole Report (8 MB of JSON,
//! mostly unchanged) from the worker to the page. Shared by both binaries
//! (`#[path]`-included, as `protocol` is).
//!
//! A keystroke moves the statements after it (their spans, and their lines when it
//! adds or removes a line) but rarely changes what they say; a view's payload is most
//! often exactly the last one. So statements travel as runs — kept from the base,
//! moved by a constant, or new — and a view whose payload equals the base's is named
//! only. The worker keeps what it sent ([`Sent`]); the page names the generation it
//! holds in each request, and a delta against anything else is a whole Report.

use serde::{Deserialize, Serialize};
use shapex::report::view::Drawing;
use shapex::report::{Payload, Report, StatementReport, View};

/// A Report as runs of statements and views against the report of generation `base`
/// (0: against nothing, everything is here).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Delta {
    pub base: u64,
    /// The Report without its statements and views (diagnostics, settings, …), which
    /// are small and change with most edits.
    pub head: Report,
    pub statements: Vec<Run>,
    pub views: Vec<ViewDelta>,
    /// The report's glossary, absent when it equals the base's: a keystroke rarely
    /// changes which builtins a file calls, and a large file's glossary is tens of KB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glossary: Option<std::collections::BTreeMap<String, String>>,
}

/// Consecutive statements of the new report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "run", rename_all = "lowercase")]
pub enum Run {
    /// Statements of the base, `from..from + len`, each moved by `bytes` and `lines`.
    Kept {
        from: usize,
        len: usize,
        bytes: i64,
        lines: i64,
    },
    New {
        statements: Vec<StatementReport>,
    },
}

/// A view of the new report; `payload` is absent when it equals the base's view of the
/// same id, and so is `drawing` (the page keeps the one it has).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ViewDelta {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<Payload>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drawing: Option<Drawing>,
}

/// How far a statement moved between two texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Move {
    bytes: i64,
    lines: i64,
}

impl Move {
    /// The move that takes `old` to where `new` is.
    fn between(old: &StatementReport, new: &StatementReport) -> Move {
        Move {
            bytes: new.span.start as i64 - old.span.start as i64,
            lines: i64::from(new.range.line) - i64::from(old.range.line),
        }
    }

    fn byte(self, n: usize) -> usize {
        (n as i64 + self.bytes).max(0) as usize
    }

    fn line(self, n: u32) -> u32 {
        (i64::from(n) + self.lines).clamp(0, i64::from(u32::MAX)) as u32
    }

    fn apply(self, mut s: StatementReport) -> StatementReport {
        s.span.start = self.byte(s.span.start);
        s.span.end = self.byte(s.span.end);
        s.range.line = self.line(s.range.line);
        s.range.end_line = self.line(s.range.end_line);
        s
    }

    /// Whether `apply` takes `old` to `new`, without copying `old` (a keystroke
    /// compares every statement after it). Every field is named, so a new one is not
    /// forgotten here.
    fn takes(self, old: &StatementReport, new: &StatementReport) -> bool {
        let StatementReport {
            span,
            range,
            kind,
            depth,
            label,
            defs,
            check,
            condition,
            rule,
            nonviable,
            symbols,
            refs,
            witness,
        } = old;
        let moved = shapex::Span::new(self.byte(span.start), self.byte(span.end));
        let lines = (self.line(range.line), self.line(range.end_line));
        moved == new.span
            && lines == (new.range.line, new.range.end_line)
            && (range.col, range.end_col) == (new.range.col, new.range.end_col)
            && (kind, depth, label, check) == (&new.kind, &new.depth, &new.label, &new.check)
            && nonviable == &new.nonviable
            && condition == &new.condition
            && rule == &new.rule
            && defs == &new.defs
            && symbols == &new.symbols
            && refs == &new.refs
            && witness == &new.witness
    }
}

/// What the worker sent: the reports the page may hold, by generation. It keeps at
/// most two: the one the page said it holds, and the last one sent (which the page
/// holds unless a newer edit made it drop it).
#[derive(Default)]
pub struct Sent {
    reports: Vec<(u64, Report)>,
    /// Those the page no longer holds, freed by [`Sent::free`] once the reply is
    /// posted: freeing a 10,000-line file's report takes as long as a small analysis.
    retired: Vec<Report>,
}

impl Sent {
    /// `report`, generation `generation`, told against the page's `held` report (with
    /// the drawings of the views it sends), remembered for the next request.
    pub fn delta(
        &mut self,
        held: u64,
        generation: u64,
        report: Report,
        mut drawings: Vec<(String, Drawing)>,
    ) -> Delta {
        let (kept, retired) = std::mem::take(&mut self.reports)
            .into_iter()
            .partition(|(g, _)| *g == held && held != 0);
        self.reports = kept;
        self.retired.extend(retired.into_iter().map(|(_, r)| r));
        let base = self.reports.first().map(|(_, r)| r);
        let mut delta = Delta::between(base, &report, &mut drawings);
        delta.base = if base.is_some() { held } else { 0 };
        self.reports.push((generation, report));
        delta
    }

    /// Frees the reports the page no longer holds.
    pub fn free(&mut self) {
        self.retired.clear();
    }
}

impl Delta {
    fn between(
        base: Option<&Report>,
        new: &Report,
        drawings: &mut Vec<(String, Drawing)>,
    ) -> Delta {
        let empty = Report::default();
        let base = base.unwrap_or(&empty);
        // Listed, not `..new.clone()`: that would copy every statement and view.
        let head = Report {
            lang: new.lang.clone(),
            settings: new.settings.clone(),
            parse_ok: new.parse_ok,
            diagnostics: new.diagnostics.clone(),
            statements: Vec::new(),
            views: Vec::new(),
            facts: new.facts.clone(),
            hovers: new.hovers.clone(),
            glossary: Default::default(),
        };
        Delta {
            base: 0,
            head,
            glossary: (base.glossary != new.glossary).then(|| new.glossary.clone()),
            statements: runs(&base.statements, &new.statements),
            views: new
                .views
                .iter()
                .map(|v| {
                    let same = base.view(&v.id) == Some(&v.payload);
                    let drawing = drawings.iter().position(|(id, _)| *id == v.id);
                    let drawing = drawing.map(|k| drawings.swap_remove(k).1);
                    ViewDelta {
                        id: v.id.clone(),
                        payload: (!same).then(|| v.payload.clone()),
                        drawing: drawing.filter(|_| !same),
                    }
                })
                .collect(),
        }
    }

    /// The ids of the views whose payload differs from `base`'s: those this delta
    /// brings, and those `base` has and it lacks.
    pub fn changed(&self, base: &Report) -> Vec<String> {
        let sent = self.views.iter().filter(|v| v.payload.is_some());
        let gone = base
            .views
            .iter()
            .filter(|o| !self.views.iter().any(|v| v.id == o.id));
        sent.map(|v| v.id.clone())
            .chain(gone.map(|o| o.id.clone()))
            .collect()
    }

    /// The new report and its drawings, built from the page's `base` report (this
    /// delta's base: the caller checks) and its drawings.
    pub fn apply(self, base: &mut Report, drawings: &mut Vec<(String, Drawing)>) {
        let mut old: Vec<Option<StatementReport>> = std::mem::take(&mut base.statements)
            .into_iter()
            .map(Some)
            .collect();
        let mut statements = Vec::new();
        for run in self.statements {
            match run {
                Run::New { statements: s } => statements.extend(s),
                Run::Kept {
                    from,
                    len,
                    bytes,
                    lines,
                } => {
                    let moved = Move { bytes, lines };
                    let kept = old.iter_mut().skip(from).take(len);
                    statements.extend(kept.filter_map(Option::take).map(|s| moved.apply(s)));
                }
            }
        }
        let mut old_views = std::mem::take(&mut base.views);
        let mut old_drawings = std::mem::take(drawings);
        let mut views = Vec::with_capacity(self.views.len());
        for v in self.views {
            let drawing = match v.payload {
                Some(payload) => {
                    views.push(View {
                        id: v.id.clone(),
                        payload,
                    });
                    v.drawing
                }
                None => {
                    let Some(k) = old_views.iter().position(|o| o.id == v.id) else {
                        continue;
                    };
                    views.push(old_views.swap_remove(k));
                    let kept = old_drawings.iter().position(|(id, _)| *id == v.id);
                    kept.map(|k| old_drawings.swap_remove(k).1)
                }
            };
            if let Some(d) = drawing {
                drawings.push((v.id, d));
            }
        }
        *base = Report {
            statements,
            views,
            glossary: self
                .glossary
                .unwrap_or_else(|| std::mem::take(&mut base.glossary)),
            ..self.head
        };
    }
}

/// The new statements as runs over the old: those before the edit kept as they are,
/// those after it kept where they only moved, the rest new. A statement after the edit
/// is matched with the old one as far from the end, so inserted or deleted statements
/// make no difference to the ones after them.
fn runs(old: &[StatementReport], new: &[StatementReport]) -> Vec<Run> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let mut out: Vec<Run> = Vec::new();
    if prefix > 0 {
        out.push(Run::Kept {
            from: 0,
            len: prefix,
            bytes: 0,
            lines: 0,
        });
    }
    for (i, s) in new.iter().enumerate().skip(prefix) {
        let j = (i + old.len())
            .checked_sub(new.len())
            .filter(|j| *j >= prefix);
        let kept = j.and_then(|j| {
            let moved = Move::between(&old[j], s);
            moved.takes(&old[j], s).then_some((j, moved))
        });
        push(&mut out, kept, s);
    }
    out
}

/// Appends statement `s` to the runs: to the last run when it continues it.
fn push(out: &mut Vec<Run>, kept: Option<(usize, Move)>, s: &StatementReport) {
    match (out.last_mut(), kept) {
        (
            Some(Run::Kept {
                from,
                len,
                bytes,
                lines,
            }),
            Some((j, m)),
        ) if *from + *len == j
            && m == (Move {
                bytes: *bytes,
                lines: *lines,
            }) =>
        {
            *len += 1
        }
        (_, Some((j, m))) => out.push(Run::Kept {
            from: j,
            len: 1,
            bytes: m.bytes,
            lines: m.lines,
        }),
        (Some(Run::New { statements }), None) => statements.push(s.clone()),
        (_, None) => out.push(Run::New {
            statements: vec![s.clone()],
        }),
    }
}
