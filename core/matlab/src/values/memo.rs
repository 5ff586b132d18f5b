//! Incremental re-analysis (issue #8): a function's analysis is reused while other
//! functions of the file are edited.
//!
//! Each function is analysed on its own from the same fresh state (its own symbols, the
//! whole simulation budget; see `program::analyze_function`), so its result is a
//! function of three things only:
//! - its lowered IR, up to where it sits in the file: statement ids and byte offsets
//!   are taken relative to its first statement (its own span is left out: the
//!   analysis never reads it, and a script's is the whole file);
//! - which of the names it mentions are functions of the file (a call to one is not a
//!   builtin), which of those write into their caller's workspace (`assignin`,
//!   `evalin`), and whether a nested function shares its workspace;
//! - the mode and the lowering's temporary prefix.
//!
//! The [`FunctionMemo`] keys results by exactly that, stores them relative, and moves
//! them to where the function now is. Whatever the memo holds, the result equals a full
//! analysis: a miss analyses, a hit returns what the same key gave before (the property
//! test `incremental` in `tests/`, the fuzz target and an end-to-end test compare).
//!
//! A call of a function of the file is analysed in the callee's context (`contexts`),
//! so a function's result also depends on the text of every function its calls may
//! reach: its key holds their keys too ([`FullKey`]), and an edit in a callee
//! re-analyses its callers. Spaces and comments typed in the callee, which move its
//! statements and change nothing else, do not: keys are relative, and a caller holds
//! its callees' keys without their spans (a failure in a callee names its statement by
//! id, and is placed in the text after the memo).

use super::results::{Context, ContextLine, CtxResult, FunctionResult};
use super::resume::Trace;
use super::state::ValueAnalysis;
use crate::tame::ir::{walk_mut, Function, StmtId};
use shapex_text::Span;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// Results of the functions of the last analysed version of a text, by key. Holds only
/// what the last run used, so its size follows the current text.
#[derive(Default)]
pub struct FunctionMemo {
    /// Each result as placed in the last run, with its place there: a function that
    /// has not moved is shared, not copied.
    results: HashMap<FullKey, (Place, Rc<FunctionResult>)>,
    /// The step-by-step analysis of each function last analysed, by the function's
    /// name: an edit inside it resumes from the first statement it changed
    /// (`values::resume`).
    traces: HashMap<String, (Rc<Trace>, Vec<Rc<Key>>)>,
    /// Functions analysed by the last run (misses) and reused (hits): for tests and
    /// benchmarks.
    pub last_run: RunStats,
    /// Each function's full key and place in the last run, by name (the first of a
    /// name, as a call finds it).
    placed: HashMap<String, (FullKey, Place)>,
    /// The functions shown analysed in a context (the call graph's context vertices),
    /// line by line relative to the function's place, by its key and the context's:
    /// those of this run, and of the run before (each is an analysis, so a keystroke
    /// that changes neither the function nor what it calls redoes none).
    shown: HashMap<(FullKey, String), Rc<[ContextLine]>>,
    shown_before: HashMap<(FullKey, String), Rc<[ContextLine]>>,
    /// The last run's results of functions analysed in contexts for their callers, by
    /// the function's full key and the context's key: a context's result is a function
    /// of those alone (`contexts`), so the next run starts with them (a keystroke in a
    /// function of a chain otherwise re-analysed every context below it).
    contexts: HashMap<FullKey, Vec<(String, Rc<CtxResult>)>>,
    /// The names of the last run's functions.
    names: Vec<String>,
}

/// `text` has `name` as a whole word.
fn names_word(text: &str, name: &str) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].bytes().next_back();
        let after = text[at + name.len()..].bytes().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    pub analysed: usize,
    pub reused: usize,
    /// Of the analysed functions' top-level statements, those whose analysis was kept
    /// from the last run (`values::resume`) before the edit.
    pub resumed: usize,
    /// Those taken from the last run, moved, after the edit.
    pub moved: usize,
    /// Functions whose text changed only in where its statements are: the last run's
    /// result, with the statements' new spans (`FunctionMemo::respanned`).
    pub respanned: usize,
    /// All the analysed functions' top-level statements.
    pub steps: usize,
    /// Times their analysis compared its state with the last run's (`values::resume`).
    pub tries: usize,
}

/// Which function a trace is of: an edit keeps the name (two functions of one name in a
/// file share a slot; a trace of the wrong one resumes nothing, see `Trace::resume`).
fn trace_key(f: &Function) -> String {
    format!("{:?}|{}|{:?}", f.kind, f.name, f.parent)
}

/// Where a function sits: the first byte of its first statement and that statement's
/// id. Results are stored with both subtracted (wrapping, so offsets before the anchor,
/// such as a lifted lambda's header, move back exactly).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Place {
    byte: usize,
    id: u32,
}

impl Place {
    fn of(f: &Function) -> Place {
        Place {
            byte: f.body.first().map_or(f.span.start, |s| s.origin.start),
            id: f.body.first().map_or(0, |s| s.id.0),
        }
    }

    fn inverse(self) -> Place {
        Place {
            byte: self.byte.wrapping_neg(),
            id: self.id.wrapping_neg(),
        }
    }

    /// The move from `from` to `self`.
    fn minus(self, from: Place) -> Place {
        Place {
            byte: self.byte.wrapping_sub(from.byte),
            id: self.id.wrapping_sub(from.id),
        }
    }

    fn span(self, s: Span) -> Span {
        Span::new(
            s.start.wrapping_add(self.byte),
            s.end.wrapping_add(self.byte),
        )
    }

    fn id(self, id: StmtId) -> StmtId {
        StmtId(id.0.wrapping_add(self.id))
    }
}

impl FunctionMemo {
    /// The results of the first `own` of `functions` (the analysed file's; the others
    /// are other files' it calls) in order: reused where the key matches, otherwise
    /// computed by `analyse`.
    pub(super) fn run(
        &mut self,
        a: &ValueAnalysis,
        functions: &[Function],
        own_functions: usize,
        mut analyse: impl FnMut(&Function, Option<&Trace>) -> (FunctionResult, Trace),
    ) -> Vec<Rc<FunctionResult>> {
        let user = UserFunctions::of(a);
        // A key equal to one of the last run's is that one: comparing two full keys
        // then compares their callees' keys by address, not text by text (each
        // function's key holds those of every function below it, so a file of 380
        // functions in a chain compared megabytes of IR on every keystroke).
        let last: HashSet<Rc<Key>> = self.results.keys().map(|k| k.own.clone()).collect();
        let (own, spans): (Vec<Rc<Key>>, Vec<Vec<usize>>) = functions
            .iter()
            .map(|f| {
                let (k, spans) = key(a, &user, f, Place::of(f));
                (last.get(&k).cloned().unwrap_or_else(|| Rc::new(k)), spans)
            })
            .unzip();
        let same_name = same_name(functions);
        let full: Vec<FullKey> = (0..functions.len())
            .map(|i| {
                FullKey::new(
                    own[i].clone(),
                    spans[i].clone(),
                    below(a, &same_name, i, &own),
                )
            })
            .collect();
        self.placed.clear();
        self.names = a.user_functions.clone();
        self.shown_before = std::mem::take(&mut self.shown);
        self.seed_contexts(a, &full);
        let mut kept = HashMap::with_capacity(functions.len());
        let mut traces = HashMap::with_capacity(functions.len());
        let mut stats = RunStats::default();
        let out = functions[..own_functions]
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let place = Place::of(f);
                let key = full[i].clone();
                self.placed
                    .entry(f.name.clone())
                    .or_insert_with(|| (key.clone(), place));
                // A trace of the function's text under other callees: its steps may
                // hold other answers from them, so it resumes nothing.
                let old_trace = self
                    .traces
                    .remove(&trace_key(f))
                    .filter(|(_, b)| *b == key.below)
                    .map(|(t, _)| t);
                let found = self
                    .results
                    .remove(&key)
                    .or_else(|| kept.get(&key).cloned());
                let respanned = match found {
                    None => self.respanned(&key, place),
                    Some(_) => None,
                };
                let result = match (found, respanned) {
                    (Some((at, r)), _) => {
                        stats.reused += 1;
                        // Still a trace of this function's text (its statements may
                        // have moved since; then it resumes nothing).
                        if let Some(t) = old_trace {
                            traces.insert(trace_key(f), (t, key.below.clone()));
                        }
                        match at == place {
                            true => r,
                            false => Rc::new(moved(&r, place.minus(at))),
                        }
                    }
                    (None, Some(r)) => {
                        stats.respanned += 1;
                        if let Some(t) = old_trace {
                            traces.insert(trace_key(f), (t, key.below.clone()));
                        }
                        Rc::new(r)
                    }
                    (None, None) => {
                        stats.analysed += 1;
                        let (result, trace) = analyse(f, old_trace.as_deref());
                        stats.resumed += trace.resumed;
                        stats.moved += trace.moved;
                        stats.steps += f.body.len();
                        stats.tries += trace.tries;
                        traces.insert(trace_key(f), (Rc::new(trace), key.below.clone()));
                        Rc::new(result)
                    }
                };
                kept.insert(key, (place, result.clone()));
                result
            })
            .collect();
        // Other files' functions, for the contexts shown (the file's are placed above).
        for (i, f) in functions.iter().enumerate().skip(own_functions) {
            if !self.placed.contains_key(&f.name) {
                self.placed
                    .insert(f.name.clone(), (full[i].clone(), Place::of(f)));
            }
        }
        self.keep_contexts(a, &full);
        self.results = kept;
        self.traces = traces;
        self.last_run = stats;
        out
    }
}

impl FunctionMemo {
    /// The last run's result of a function whose text differed from `key`'s only in
    /// where its statements are (spaces, comments, line breaks typed inside it), with
    /// each statement's spans replaced by the ones its statement has now; placed at
    /// `place`. The analysis reads no position (a failure names its statement by
    /// relative id), so it is the result an analysis would give. `None` when there is
    /// none, or a span of the result is not one of its statements' (then the function
    /// is analysed).
    fn respanned(&self, key: &FullKey, place: Place) -> Option<FunctionResult> {
        let (old, (at, r)) = self.results.iter().find(|(k, _)| {
            k.own == key.own && k.below == key.below && k.spans.len() == key.spans.len()
        })?;
        // Each statement's spans then and now (`key`), placed.
        let spans = |k: &FullKey, at: Place| -> Vec<Span> {
            let ends = k.spans.chunks_exact(2);
            ends.map(|e| at.span(Span::new(e[0], e[1]))).collect()
        };
        let mut map: HashMap<Span, Span> = HashMap::new();
        for (from, to) in spans(old, *at).into_iter().zip(spans(key, place)) {
            if map.insert(from, to).is_some_and(|other| other != to) {
                return None;
            }
        }
        let by = place.minus(*at);
        r.map_spans(|id| by.id(id), |s| map.get(&s).copied())
    }

    /// Starts `a`'s results in context with the last run's of functions whose full key
    /// is unchanged. Not for recursive units: a unit is solved as a whole, in rounds.
    fn seed_contexts(&mut self, a: &ValueAnalysis, full: &[FullKey]) {
        let mut cache = a.callees.cache.borrow_mut();
        for (i, key) in full.iter().enumerate() {
            if a.callees.statics.unit[i].is_some() {
                continue;
            }
            for (ctx, result) in self.contexts.get(key).into_iter().flatten() {
                cache.insert((i, ctx.clone()), result.clone());
            }
        }
    }

    /// Keeps the results in context this run used (or made), for the next: not those
    /// whose context names a function of the file (a handle or an anonymous function
    /// among the arguments). The callee's result then depends on that function's text,
    /// which its key does not hold, and a lifted lambda's name moves to another lambda
    /// when one before it is deleted.
    fn keep_contexts(&mut self, a: &ValueAnalysis, full: &[FullKey]) {
        let user = UserFunctions::of(a);
        let mut kept: HashMap<FullKey, Vec<(String, Rc<CtxResult>)>> = HashMap::new();
        for ((i, ctx), result) in a.callees.cache.borrow().iter() {
            if a.callees.statics.unit[*i].is_none() && user.named_in(ctx).is_empty() {
                let results = kept.entry(full[*i].clone()).or_default();
                results.push((ctx.clone(), result.clone()));
            }
        }
        self.contexts = kept;
    }

    /// Function `callee` of the last run analysed in `ctx`, line by line: computed by
    /// `lines` unless this run or the one before computed it for the same text of the
    /// function and of every function it may call (its full key).
    pub(crate) fn context_lines(
        &mut self,
        callee: &str,
        ctx: &Context,
        lines: impl FnOnce() -> Vec<ContextLine>,
    ) -> Vec<ContextLine> {
        let Some((key, place)) = self.placed.get(callee).cloned() else {
            return lines();
        };
        // A context naming a function of the file is not kept (see `keep_contexts`).
        if self.names.iter().any(|n| names_word(&ctx.key, n)) {
            return lines();
        }
        let at = |lines: &[ContextLine], by: Place| -> Vec<ContextLine> {
            lines
                .iter()
                .map(|l| ContextLine {
                    origin: by.span(l.origin),
                    ..l.clone()
                })
                .collect()
        };
        let slot = (key, ctx.key.clone());
        let relative = match self.shown.get(&slot).or(self.shown_before.get(&slot)) {
            Some(r) => r.clone(),
            None => Rc::from(at(&lines(), place.inverse())),
        };
        self.shown.insert(slot, relative.clone());
        at(&relative, place)
    }
}

/// For each function, the functions of its name (itself included).
fn same_name(functions: &[Function]) -> Vec<Rc<[usize]>> {
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (h, f) in functions.iter().enumerate() {
        by_name.entry(f.name.as_str()).or_default().push(h);
    }
    let by_name: HashMap<&str, Rc<[usize]>> =
        by_name.into_iter().map(|(n, v)| (n, Rc::from(v))).collect();
    functions
        .iter()
        .map(|f| by_name[f.name.as_str()].clone())
        .collect()
}

/// The keys of the functions whose text function `i`'s calls may depend on: every
/// function of a name its calls name, and theirs, transitively (itself too when it is
/// recursive) (a call is analysed in
/// the callee's context, whose result depends on the callee's text and its callees').
/// The functions of each name are looked up in `same_name`: searching every function
/// for each call cost O(n³) name comparisons in a file of n functions in a chain.
fn below(a: &ValueAnalysis, same_name: &[Rc<[usize]>], i: usize, own: &[Rc<Key>]) -> Vec<Rc<Key>> {
    let calls = &a.callees.statics.calls;
    let mut seen = vec![false; same_name.len()];
    let mut stack = vec![i];
    while let Some(f) = stack.pop() {
        for &g in &calls[f] {
            // Every function of that name: which one a call runs depends on them all.
            for &h in same_name[g].iter() {
                if !seen[h] {
                    seen[h] = true;
                    stack.push(h);
                }
            }
        }
    }
    // A recursive function reaches itself: its own key is then among them, so an old
    // trace of it (whose steps hold answers of its own calls) resumes only under the
    // same text of the whole function, not just the same statements before the edit.
    (0..same_name.len())
        .filter(|&h| seen[h])
        .map(|h| own[h].clone())
        .collect()
}

/// The names of the file's functions, and how long they are.
struct UserFunctions<'a> {
    names: HashSet<&'a str>,
    shortest: usize,
    longest: usize,
}

impl<'a> UserFunctions<'a> {
    fn of(a: &'a ValueAnalysis) -> UserFunctions<'a> {
        let names: HashSet<&str> = a.user_functions.iter().map(String::as_str).collect();
        let lengths = || names.iter().map(|n| n.len());
        UserFunctions {
            shortest: lengths().min().unwrap_or(1),
            longest: lengths().max().unwrap_or(0),
            names,
        }
    }
}

impl<'a> UserFunctions<'a> {
    /// The file's functions named in `text`: every word (a run of ASCII letters, digits
    /// and `_` from a letter) that is one. Words are found bytewise; splitting at other
    /// bytes can only find more names, never fewer, so the key stays safe.
    fn named_in(&self, text: &str) -> Vec<&'a str> {
        let b = text.as_bytes();
        let mut found = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if !b[i].is_ascii_alphabetic() {
                i += 1;
                continue;
            }
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &text[start..i];
            if (self.shortest..=self.longest).contains(&word.len()) {
                found.extend(self.names.get(word));
            }
        }
        found
    }
}

/// What a function's analysis depends on (module docs): its key without spans, and
/// the spans of its statements (relative, in order; `usize::MAX` for no operator).
///
/// A call's result depends on the callee's statements but not on their spans: a
/// failure names its statement by relative id and is placed in the text afterwards
/// (`program::resolve_failures`). So a caller's key holds its callees' keys without
/// their spans, and a space typed in a callee re-analyses only the callee.
fn key(a: &ValueAnalysis, user: &UserFunctions, f: &Function, place: Place) -> (Key, Vec<usize>) {
    let mut relative = f.clone();
    let back = place.inverse();
    // The analysis never reads the function's own span, which for a script is the
    // whole file: leaving it out keeps a script's result when a function after it
    // changes.
    relative.span = Span::default();
    let mut spans = Vec::new();
    walk_mut(&mut relative.body, &mut |s| {
        s.id = back.id(s.id);
        for span in [Some(s.span), Some(s.origin), s.operator] {
            let span = span.map_or(Span::new(usize::MAX, usize::MAX), |o| back.span(o));
            spans.extend([span.start, span.end]);
        }
        s.span = Span::default();
        s.origin = Span::default();
        s.operator = s.operator.map(|_| Span::default());
    });
    // Every name the analysis may look up among the file's functions (call targets,
    // handles, `str2func` texts) is a word of one of its texts, so scanning them finds
    // them all.
    let mut texts = Vec::new();
    relative.for_each_text(&mut |t| texts.push(t));
    let mut callees: Vec<&str> = texts.iter().flat_map(|t| user.named_in(t)).collect();
    callees.sort_unstable();
    callees.dedup();
    // What nested functions may change of this workspace is read from their bodies.
    let shares_workspace = a.nesting.shared_writes(&f.name).map(|w| w.key());
    // Which callees write into their caller's workspace is read from their bodies.
    let reaching: Vec<&str> = callees
        .iter()
        .copied()
        .filter(|c| a.reaches_caller.iter().any(|r| r == c))
        .collect();
    // Which other files' functions a call may not run (one found in `private/` now
    // was found in the folder before) is decided by linking, not by their text.
    let mut dispatched: Vec<&str> = a
        .dispatched
        .iter()
        .map(String::as_str)
        .filter(|d| texts.iter().any(|t| t.contains(*d)))
        .collect();
    dispatched.sort_unstable();
    let head = format!(
        "{}|{}|{}|{:?}|{}|{}|{}|{:?}",
        a.mode.as_str(),
        a.witness,
        a.temp_prefix,
        shares_workspace,
        callees.join(","),
        reaching.join(","),
        dispatched.join(","),
        a.entry_of(f).map(|c| &c.key),
    );
    let mut hasher = QuickHasher::default();
    relative.hash(&mut hasher);
    let key = Key {
        hash: quick_hash(head.as_bytes()) ^ hasher.finish().rotate_left(1),
        head,
        ir: relative,
    };
    (key, spans)
}

/// A function's key: what its analysis depends on besides the IR (mode, temporaries'
/// prefix, …), and its relative IR without spans. The key is hashed once, fast
/// ([`QuickHasher`]), and the map hashes that number (hashing a long script's IR with
/// the map's SipHash on every lookup and insertion cost more than analysing the
/// statements an edit changed). Equality is of the IRs, compared as data: printing
/// each function's IR to compare texts cost a tenth of a keystroke in a 10,000-line
/// file.
#[derive(Clone, PartialEq)]
struct Key {
    hash: u64,
    head: String,
    ir: Function,
}

/// The IR's numbers are literals' values, never NaN: equality is reflexive.
impl Eq for Key {}

/// A function's key with its spans and its callees' keys (see [`below`]): equal
/// exactly when its own text and theirs are, up to where their statements are.
#[derive(Clone, PartialEq, Eq)]
struct FullKey {
    hash: u64,
    own: Rc<Key>,
    spans: Vec<usize>,
    below: Vec<Rc<Key>>,
}

impl FullKey {
    fn new(own: Rc<Key>, spans: Vec<usize>, below: Vec<Rc<Key>>) -> FullKey {
        let hash = below
            .iter()
            .fold(own.hash, |h, k| h.rotate_left(7) ^ k.hash);
        FullKey {
            hash,
            own,
            spans,
            below,
        }
    }
}

impl std::hash::Hash for FullKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl std::hash::Hash for Key {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// [`quick_hash`] as a `Hasher`, for hashing a relative IR through its derived `Hash`.
#[derive(Default)]
struct QuickHasher(u64);

impl std::hash::Hasher for QuickHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0 = self.0.rotate_left(5) ^ quick_hash(bytes);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(QUICK_K);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(n.into());
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

const QUICK_K: u64 = 0x517c_c1b7_2722_0a95;

/// A quick 64-bit hash of `bytes`, eight at a time (multiply and rotate, as FxHash):
/// only for spreading keys in a map, whose equality still compares them whole.
fn quick_hash(bytes: &[u8]) -> u64 {
    let step = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(QUICK_K);
    let mut chunks = bytes.chunks_exact(8);
    let mut h = chunks.by_ref().fold(bytes.len() as u64, |h, c| {
        step(
            h,
            u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]),
        )
    });
    for &b in chunks.remainder() {
        h = step(h, u64::from(b));
    }
    h
}

/// `r` with its statement ids and byte offsets moved by `by`.
fn moved(r: &FunctionResult, by: Place) -> FunctionResult {
    r.map_spans(|id| by.id(id), |s| Some(by.span(s)))
        .expect("a move maps every span")
}

#[cfg(test)]
mod tests {
    use super::RunStats;
    use crate::{Incremental, Matlab, Mode};

    const FILE: &str = "function r = first(a)\n  r = a * 2;\nend\n\
                        function s = second(b)\n  s = ones(3, 2) * b;\nend\n\
                        function t = third(c)\n  t = cellfun(@(x) x + 1, c);\nend\n";

    /// Analyses `text` with `memo` and checks the report equals a full analysis.
    fn run(memo: &mut Incremental, text: &str) -> RunStats {
        let m = Matlab::new();
        let options = Mode::Modern.options();
        let again = serde_json::to_value(m.analyze_with(text, &options, memo)).ok();
        let fresh = serde_json::to_value(m.analyze(text, &options)).ok();
        assert_eq!(again, fresh, "incremental differs from full on:\n{text}");
        memo.functions.last_run
    }

    fn stats(analysed: usize, reused: usize) -> (usize, usize) {
        (analysed, reused)
    }

    fn counts(s: RunStats) -> (usize, usize) {
        (s.analysed, s.reused)
    }

    #[test]
    fn an_edit_in_one_function_reanalyses_only_that_function() {
        let mut memo = Incremental::default();
        // Three functions and the lambda lifted out of `third`.
        assert_eq!(counts(run(&mut memo, FILE)), stats(4, 0));
        let edited = FILE.replace("ones(3, 2) * b", "ones(3, 2) * b'");
        assert_eq!(counts(run(&mut memo, &edited)), stats(1, 3));
        // A line above everything moves every function: all are reused, moved.
        assert_eq!(
            counts(run(&mut memo, &format!("% moved\n{edited}"))),
            stats(0, 4)
        );
    }

    #[test]
    fn a_script_is_reused_while_its_local_functions_change() {
        let mut memo = Incremental::default();
        let script = "a = zeros(3, 2);\nb = a * ones(2, 4);\n";
        let first = format!("{script}function r = helper(x)\n  r = x;\nend\n");
        assert_eq!(counts(run(&mut memo, &first)), stats(2, 0));
        let edited = first.replace("r = x;", "r = x';");
        assert_eq!(counts(run(&mut memo, &edited)), stats(1, 1));
    }

    /// Of the IR statements of the last run, those kept from the run before.
    fn resumed(memo: &Incremental) -> usize {
        memo.functions.last_run.resumed
    }

    #[test]
    fn an_edit_in_a_script_resumes_from_the_statement_it_changed() {
        let mut memo = Incremental::default();
        let script = "n = 4;\nfor k = 1:n\n  v(k) = k;\nend\nm = zeros(n, 2);\n\
                      c = find(v > 2);\nw = m' * ones(n, 1);\nz = c + 1;\n";
        run(&mut memo, script);
        assert_eq!(resumed(&memo), 0);
        // The last statement changed: everything before it is kept, symbols and all.
        run(&mut memo, &script.replace("z = c + 1;", "z = c + 2;"));
        let kept = resumed(&memo);
        assert!(kept >= 5, "{kept}");
        // An edit at the top keeps nothing.
        run(&mut memo, &script.replace("n = 4;", "n = 5;"));
        assert_eq!(resumed(&memo), 0);
        // A statement that may change any variable reads the script's variable list:
        // a new name after it changes its result, so it is analysed again.
        let wild = script.replace("c = find", "my_setup\nc = find");
        run(&mut memo, &wild);
        run(&mut memo, &wild.replace("z = c + 1;", "zz = c + 1;"));
        assert!(resumed(&memo) < kept, "{}", resumed(&memo));
    }

    /// Of the IR statements of the last run, those taken moved after the edit.
    fn moved(memo: &Incremental) -> usize {
        memo.functions.last_run.moved
    }

    /// A script of `n` blocks, each a few statements with symbols, a loop and a check.
    fn long_script(n: usize) -> String {
        let mut s = String::from("a = rand(4, 3);\nb = rand(3, 2);\n");
        for k in 0..n {
            s.push_str(&format!(
                "c{k} = a * b;\nfor i = 1:3\n  d{k}(i) = i * {k};\nend\nm{k} = find(c{k} > {k});\ne{k} = c{k} + 1;\n"
            ));
        }
        s
    }

    /// Whether the last run analysed nothing, taking the script's result with new spans.
    fn respanned(memo: &Incremental) -> bool {
        let s = memo.functions.last_run;
        s.respanned == 1 && s.analysed == 0 && s.steps == 0
    }

    #[test]
    fn a_space_typed_near_the_top_analyses_nothing() {
        let mut memo = Incremental::default();
        let script = long_script(20);
        run(&mut memo, &script);
        // Each edit is one keystroke from the script: between two statements, inside
        // one, and inside a loop's body (every value the loop defines has moved with
        // its origin).
        for edited in [
            script.replacen("c1 = a * b;", "c1 = a * b; ", 1),
            script.replacen("c1 = a * b;", "c1 = a  * b;", 1),
            script.replacen("d1(i) = i * 1;", "d1(i) = i * 1; ", 1),
            script.replacen("d1(i) = i * 1;", "d1(i) = i*1;", 1),
        ] {
            run(&mut memo, &edited);
            assert!(respanned(&memo), "{:?}:\n{edited}", memo.functions.last_run);
            run(&mut memo, &script);
        }
    }

    #[test]
    fn comments_and_blank_lines_analyse_nothing() {
        let mut memo = Incremental::default();
        let script = long_script(10);
        run(&mut memo, &script);
        let commented = script.replacen("e2 = c2 + 1;\n", "e2 = c2 + 1; % the sum\n", 1);
        run(&mut memo, &commented);
        assert!(respanned(&memo));
        // A line inserted: every later line is a line further down.
        let lines = commented.replacen("e1 = c1 + 1;\n", "e1 = c1 + 1;\n\n% note\n", 1);
        run(&mut memo, &lines);
        assert!(respanned(&memo));
        // The comment deleted again.
        run(&mut memo, &lines.replace(" % the sum", ""));
        assert!(respanned(&memo));
    }

    #[test]
    fn an_edit_that_changes_shapes_meets_again_once_they_are_overwritten() {
        let mut memo = Incremental::default();
        let script = "a = ones(2, 3);\nb = ones(3, 2);\nx = a;\ny = x';\nx = b;\ny = x';\n\
                      w = x * y;\nv = w';\nu = v(1, :);\nt = u';\ns = t';\nr = s';\n";
        run(&mut memo, script);
        // x and y have other shapes until both are assigned again: from there on
        // nothing differs, and the runs meet.
        run(&mut memo, &script.replace("x = a;", "x = b;"));
        assert!(moved(&memo) >= 4, "{}", moved(&memo));
        // y keeps its new shape to the end: they never meet.
        let kept = script.replace("y = x';\nw", "yy = x';\nw");
        run(&mut memo, &kept);
        run(&mut memo, &kept.replace("x = a;", "x = b;"));
        assert_eq!(moved(&memo), 0);
        // Tried after 1, 2, 4, … statements: a few comparisons, not one per statement.
        let long = format!("{kept}{}", long_script(30));
        run(&mut memo, &long);
        run(&mut memo, &long.replace("x = a;", "x = b;"));
        let s = memo.functions.last_run;
        assert_eq!(s.moved, 0);
        assert!(s.tries <= 10 && s.steps > 120, "{} of {}", s.tries, s.steps);
    }

    #[test]
    fn a_new_statement_keeps_nothing_after_it_while_its_variable_lives() {
        let mut memo = Incremental::default();
        let script = long_script(6);
        run(&mut memo, &script);
        let added = script.replacen("c2 = a * b;\n", "c2 = a * b;\nnew = 1;\n", 1);
        run(&mut memo, &added);
        // Its id moved every later statement's: no state is even compared.
        assert_eq!(moved(&memo), 0);
        assert_eq!(memo.functions.last_run.tries, 0);
        run(&mut memo, &script);
        assert_eq!(memo.functions.last_run.tries, 0);
    }

    #[test]
    fn a_new_function_reanalyses_exactly_its_callers() {
        let mut memo = Incremental::default();
        let calls = FILE.replace("r = a * 2;", "r = helper(a) * 2;");
        run(&mut memo, &calls);
        // `helper` becoming a function of the file changes how `first` reads its call
        // (no longer an unknown builtin or a variable): `first` is analysed again.
        let defined = format!("{calls}function h = helper(x)\n  h = x;\nend\n");
        assert_eq!(counts(run(&mut memo, &defined)), stats(2, 3));
    }

    const CALLS: &str = "function main()\n  a = helper(zeros(2, 3));\n  b = a * ones(2, 1);\nend\n\
                         function other()\n  c = ones(4);\nend\n\
                         function y = helper(x)\n  y = x * x';\nend\n";

    #[test]
    fn a_callee_edit_reanalyses_its_callers() {
        let mut memo = Incremental::default();
        assert_eq!(counts(run(&mut memo, CALLS)), stats(3, 0));
        // `helper` now returns <3,3> for main's call: main's `b` fails, so main is
        // analysed again (`run` compares with a full analysis); `other` is reused.
        let edited = CALLS.replace("y = x * x';", "y = x' * x;");
        assert_eq!(counts(run(&mut memo, &edited)), stats(2, 1));
    }

    #[test]
    fn spaces_typed_in_a_callee_reanalyse_nothing() {
        let mut memo = Incremental::default();
        // main's call fails inside helper: its message names helper's statement, which
        // moves as spaces are typed before it, while main's result is reused; helper's
        // own result is the last one with its statements' new spans.
        let failing = CALLS.replace("y = x * x';", "z = 1;\n  y = x * x;");
        run(&mut memo, &failing);
        for edited in [
            failing.replace("z = 1;", "z =  1;"),
            failing
                .replace("z = 1;", "z =  1 ;")
                .replace("x * x", "x  *  x"),
            failing.replace("z = 1;", "z = 1; % a comment\n\n"),
        ] {
            let s = run(&mut memo, &edited);
            assert_eq!((counts(s), s.respanned), (stats(0, 2), 1), "{edited}");
        }
    }

    #[test]
    fn the_contexts_shown_follow_their_callee() {
        // The call graph shows helper analysed in main's context, line by line: kept
        // while helper moves (`run` compares each report, views and all, with a fresh
        // analysis), redone when it changes.
        let mut memo = Incremental::default();
        run(&mut memo, CALLS);
        let moved = CALLS.replace("c = ones(4);", "c = ones(4);\n  d = c';");
        run(&mut memo, &moved);
        assert_eq!(memo.functions.shown_before.len(), 1);
        run(&mut memo, &moved.replace("y = x * x';", "y = x' * x;"));
        run(
            &mut memo,
            &moved.replace("y = x * x';", "w = 1;\n  y = x * x';"),
        );
    }

    #[test]
    fn a_comment_in_a_callee_keeps_its_callers() {
        let mut memo = Incremental::default();
        run(&mut memo, CALLS);
        let commented = CALLS.replace("y = x * x';", "% the Gram matrix\n  y = x * x';");
        assert_eq!(counts(run(&mut memo, &commented)), stats(0, 3));
    }
}
