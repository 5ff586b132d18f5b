//! The root component: application state, startup (share link › autosave › default
//! example), autosave, debounced analysis, sharing, and the page layout.

use crate::editor::{Editor, ProblemsList};
use crate::gallery;
use crate::state::{File, Notation, Tabs, ViewState};
use crate::tabs::FileTabs;
use crate::views::{self, Views};
use crate::{analysis, browser, model, share};
use leptos::html;
use leptos::prelude::*;
use shapex::report::view::Drawing;
use shapex::report::LanguageInfo;
use shapex::Report;
use std::collections::BTreeMap;
use std::time::Duration;

/// All reactive state, `Copy`, provided as context to every component.
#[derive(Clone, Copy)]
pub struct Ctx {
    /// The active file's text (the editor's).
    pub code: RwSignal<String>,
    /// The active file's name (empty: the language's default, `main.m`).
    pub name: RwSignal<String>,
    /// The program's other files, in tab order; the active one's place is `active`.
    pub others: RwSignal<Vec<File>>,
    pub active: RwSignal<usize>,
    /// Files closed since the page opened, the last closed last: "Undo close" brings
    /// each back with its text (closing never loses work).
    pub closed: RwSignal<Vec<Closed>>,
    pub lang: RwSignal<String>,
    /// The language's options (`mode = paper`).
    pub settings: RwSignal<BTreeMap<String, String>>,
    /// The selected tab's id.
    pub view: RwSignal<String>,
    pub notation: RwSignal<Notation>,
    pub report: RwSignal<Report>,
    /// Per view id, the revision of its payload in `report`: bumped when a result
    /// changes it, so a view re-renders when its payload changed, not on every result
    /// (a keystroke's result mostly keeps them, and comparing or copying a 10,000-line
    /// file's Shapes table costs the page tens of milliseconds).
    pub revisions: RwSignal<BTreeMap<String, u64>>,
    /// Where the vertices of `report`'s graph and lattice views go (from the worker).
    pub drawings: RwSignal<Vec<(String, Drawing)>>,
    /// The report's diagnostics as shown (aliases and their legend), once per report.
    pub messages: Memo<Vec<model::ShownMessage>>,
    /// The text `report` is about (the editor may be a keystroke ahead).
    pub analysed: RwSignal<String>,
    /// `report` is about the editor's current text: only then are its verdict and its
    /// fixes (spans in the analysed text) offered as current.
    pub fresh: Memo<bool>,
    /// How lines of the analysed text moved in the current one: an older result's
    /// notes, highlights and positions follow their lines.
    pub shift: Memo<model::LineShift>,
    /// The caret's line in the analysed text (`None` on a line edited since): what a
    /// view of an older result highlights as the caret's statement.
    pub analysed_caret: Memo<Option<u32>>,
    /// A result is overdue (the "analysing…" indicator).
    pub busy: RwSignal<bool>,
    /// Request-to-rendered time of the last result, and when the first was on screen
    /// (ms since navigation): `data-result-ms`, `data-first-result-ms` for benchmarks.
    pub result_ms: RwSignal<f64>,
    /// How long the last analysis took inside the worker (`data-analysis-ms`).
    pub analysis_ms: RwSignal<f64>,
    /// When its reply arrived after the request, and how long reading it took
    /// (`data-received-ms`, `data-parse-ms`): the rest of `result_ms` is rendering.
    pub received_ms: RwSignal<f64>,
    pub parse_ms: RwSignal<f64>,
    pub first_result_ms: RwSignal<Option<f64>>,
    /// Number of analyses finished; exposed as `data-analyzed` for tests.
    pub analyzed: RwSignal<u64>,
    pub banner: RwSignal<Option<String>>,
    pub share_url: RwSignal<String>,
    /// The gallery entry last loaded (the examples menu shows it).
    pub example: RwSignal<String>,
    /// The state the current URL fragment encodes, while it still matches.
    pub linked: RwSignal<Option<ViewState>>,
    /// The user's code that a link or an example replaced: one click brings it back.
    pub previous: RwSignal<Option<ViewState>>,
    /// A result for the current text is overdue (shown as "analysing…" while the
    /// views are dimmed), counted from the edit, not from the request.
    pub overdue: RwSignal<bool>,
    /// The fragment Share set last: its `hashchange` is ours, not a link to open.
    pub own_hash: StoredValue<String>,
    /// True while the app itself replaces the editor's text (its `input` event is not
    /// the user replacing the whole text).
    pub replacing: StoredValue<bool>,
    /// The legend panel is open.
    pub legend: RwSignal<bool>,
    /// The 1-based line of the editor's caret (graph views highlight its vertices).
    pub caret_line: RwSignal<u32>,
    /// The replay step a graph view shows (`None`: the final graph); shared by link.
    pub step: RwSignal<Option<usize>>,
    pub editor: NodeRef<html::Textarea>,
}

impl Ctx {
    pub fn snapshot(&self) -> ViewState {
        ViewState {
            code: self.code.get(),
            name: self.name.get(),
            others: self.others.get(),
            active: self.active.get(),
            lang: self.lang.get(),
            settings: self.settings.get(),
            view: self.view.get(),
            notation: self.notation.get(),
            step: self.step.get(),
        }
    }

    /// The selected language's facts (its tagline, options and views).
    pub fn language(&self) -> Memo<LanguageInfo> {
        let lang = self.lang;
        Memo::new(move |_| lang.with(|l| analysis::language(l)))
    }

    /// Replaces the whole state, including the textarea's text (which is not bound
    /// reactively, so that typing never resets the caret). The text is replaced as an
    /// edit, so Ctrl+Z undoes it; and when the editor held the user's own code (not
    /// an example as shipped, not the link it came from), that code is set aside in
    /// [`Ctx::previous`] (and in localStorage) so that nothing is lost.
    pub fn replace(&self, s: ViewState) {
        let current = self.snapshot_untracked();
        let changed = current.code != s.code || current.others != s.others;
        if changed && self.is_user_work(&current) {
            browser::save_previous(Some(&current));
            self.previous.set(Some(current));
        }
        if let Some(el) = self.editor.get_untracked() {
            self.replacing.set_value(true);
            browser::replace_all_text(&el, &s.code);
            self.replacing.set_value(false);
        }
        self.code.set(s.code);
        self.name.set(s.name);
        self.others.set(s.others);
        self.active.set(s.active);
        self.lang.set(s.lang);
        self.settings.set(s.settings);
        self.view.set(s.view);
        self.notation.set(s.notation);
        self.step.set(s.step);
    }

    pub fn load_example(&self, entry: &gallery::GalleryEntry) {
        self.replace(entry.state(self.notation.get_untracked()));
        self.example.set(entry.id.to_string());
    }

    /// Brings back the code a replacement set aside (setting aside what replaced it,
    /// if that was the user's too).
    pub fn restore_previous(&self) {
        if let Some(p) = self.previous.get_untracked() {
            self.previous.set(None);
            browser::save_previous(None);
            self.replace(p);
            self.example.set(String::new());
        }
    }

    /// Sets the current code aside behind "Restore your previous code" when it is the
    /// user's work: before a change the native undo stack will not hold (a long paste).
    pub fn set_aside_work(&self) {
        let current = self.snapshot_untracked();
        if self.is_user_work(&current) {
            browser::save_previous(Some(&current));
            self.previous.set(Some(current));
        }
    }

    fn snapshot_untracked(&self) -> ViewState {
        untrack(|| self.snapshot())
    }

    /// Whether replacing `state` would lose something: a file's text is not empty and
    /// not an example as shipped, and the files are not those of the link the page
    /// opened.
    fn is_user_work(&self, state: &ViewState) -> bool {
        holds_own_work(state)
            && !self.linked.with_untracked(|l| {
                l.as_ref()
                    .is_some_and(|l| l.code == state.code && l.others == state.others)
            })
    }

    /// Shows `files` with `files[active]` in the editor. Another file's text is put in
    /// as a new value, not an edit: the editor's undo never reaches across files.
    pub fn show_files(&self, files: Vec<File>, active: usize) {
        let mut s = self.snapshot_untracked();
        let shown = (s.active_name(), s.code.clone());
        s.set_files(files, active);
        if shown != (s.active_name(), s.code.clone()) {
            if let Some(el) = self.editor.get_untracked() {
                self.replacing.set_value(true);
                el.set_value(&s.code);
                let _ = el.set_selection_range(0, 0);
                el.set_scroll_top(0);
                self.replacing.set_value(false);
            }
        }
        self.code.set(s.code);
        self.name.set(s.name);
        self.others.set(s.others);
        self.active.set(s.active);
    }

    /// Every file, the active one's text as the editor has it.
    pub fn files_untracked(&self) -> Vec<File> {
        self.snapshot_untracked().files()
    }

    /// Closes tab `at` (never the last one), keeping it for "Undo close".
    pub fn close_file(&self, at: usize) {
        let mut files = self.files_untracked();
        if files.len() < 2 || at >= files.len() {
            return;
        }
        let active = self.active.get_untracked();
        let file = files.remove(at);
        self.closed.update(|c| c.push(Closed { at, file }));
        let active = if at < active { active - 1 } else { active };
        self.show_files(files, active);
    }

    /// Brings back the last closed file, where it was, and shows it.
    pub fn undo_close(&self) {
        let Some(Closed { at, mut file }) = self.closed.try_update(|c| c.pop()).flatten() else {
            return;
        };
        let mut files = self.files_untracked();
        let names: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
        if names.contains(&file.name) {
            // A file of that name was made since: the closed one comes back renamed.
            file.name = crate::state::fresh_name(&self.lang.get_untracked(), &names);
        }
        let at = at.min(files.len());
        files.insert(at, file);
        self.show_files(files, at);
    }
}

/// A closed file and the tab it was.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Closed {
    pub at: usize,
    pub file: File,
}

/// Where the first state comes from, and what the page says about it.
struct Start {
    state: ViewState,
    /// The textarea's first text when it differs from `state.code`: the autosaved
    /// work a link replaces, so that the replacement is an edit Ctrl+Z undoes.
    textarea: Option<String>,
    banner: Option<String>,
    linked: Option<ViewState>,
    previous: Option<ViewState>,
    example: &'static str,
}

/// A share link wins over the autosave, which wins over the default example. A link
/// never costs the user's autosaved work: it is kept one click away, and a damaged
/// link opens nothing (the banner says why) and leaves the work on screen.
fn initial_state() -> Start {
    let default = gallery::default_entry();
    let saved = browser::load_saved();
    let hash = browser::location_hash();
    let fallback = |banner: Option<String>| match saved.clone() {
        Some(s) => Start {
            state: s,
            textarea: None,
            banner,
            linked: None,
            previous: browser::load_previous(),
            example: "",
        },
        None => Start {
            state: default.state(Notation::default()),
            textarea: None,
            banner,
            linked: None,
            previous: browser::load_previous(),
            example: default.id,
        },
    };
    if hash.len() <= 1 {
        return fallback(None);
    }
    match share::decode(&hash) {
        Ok(s) => {
            let kept =
                saved.filter(|w| (w.code != s.code || w.others != s.others) && holds_own_work(w));
            if let Some(w) = &kept {
                browser::save_previous(Some(w));
            }
            Start {
                textarea: kept.as_ref().map(|w| w.code.clone()),
                previous: kept.or_else(browser::load_previous),
                state: s.clone(),
                banner: None,
                linked: Some(s),
                example: "",
            }
        }
        Err(e) => {
            let what = if saved.is_some() {
                "Your own code is shown instead."
            } else {
                "Showing the default example instead."
            };
            fallback(Some(format!("{e} {what}")))
        }
    }
}

#[component]
pub fn App() -> impl IntoView {
    let Start {
        state: init,
        textarea,
        banner,
        linked,
        previous,
        example,
    } = initial_state();
    let initial_code = textarea.clone().unwrap_or_else(|| init.code.clone());
    let link_code = textarea.is_some().then(|| init.code.clone());
    let report = RwSignal::new(Report::default());
    let (code, analysed) = (
        RwSignal::new(init.code.clone()),
        RwSignal::new(String::new()),
    );
    let shift = Memo::new(move |_| {
        analysed.with(|old| code.with(|new| model::LineShift::between(old, new)))
    });
    let caret_line = RwSignal::new(0);
    let ctx = Ctx {
        code,
        name: RwSignal::new(init.name),
        others: RwSignal::new(init.others),
        active: RwSignal::new(init.active),
        closed: RwSignal::new(browser::load_closed()),
        lang: RwSignal::new(init.lang),
        settings: RwSignal::new(init.settings),
        view: RwSignal::new(init.view),
        notation: RwSignal::new(init.notation),
        step: RwSignal::new(init.step),
        caret_line,
        report,
        drawings: RwSignal::new(Vec::new()),
        revisions: RwSignal::new(BTreeMap::new()),
        messages: Memo::new(move |_| report.with(model::shown_messages)),
        analysed,
        fresh: Memo::new(move |_| code.with(|c| analysed.with(|a| a == c))),
        shift,
        analysed_caret: Memo::new(move |_| shift.get().unmap(caret_line.get())),
        busy: RwSignal::new(false),
        result_ms: RwSignal::new(0.0),
        analysis_ms: RwSignal::new(0.0),
        received_ms: RwSignal::new(0.0),
        parse_ms: RwSignal::new(0.0),
        first_result_ms: RwSignal::new(None),
        analyzed: RwSignal::new(0),
        banner: RwSignal::new(banner),
        share_url: RwSignal::new(String::new()),
        example: RwSignal::new(example.to_string()),
        linked: RwSignal::new(linked),
        previous: RwSignal::new(previous),
        overdue: RwSignal::new(false),
        own_hash: StoredValue::new(String::new()),
        replacing: StoredValue::new(false),
        legend: RwSignal::new(false),
        editor: NodeRef::new(),
    };
    provide_context(ctx);
    // A link opened over autosaved work: the textarea starts with the work and the
    // link's text replaces it as an edit once mounted, so Ctrl+Z brings the work back.
    if let Some(code) = link_code {
        // By the next frame the page is mounted.
        request_animation_frame(move || {
            if let Some(el) = ctx.editor.get_untracked() {
                ctx.replacing.set_value(true);
                browser::replace_all_text(&el, &code);
                ctx.replacing.set_value(false);
            }
        });
    }
    analyse_on_change(ctx);
    autosave(ctx);
    Effect::new(move |_| ctx.closed.with(|c| browser::save_closed(c)));
    follow_hash_changes(ctx);

    view! {
        <main id="app" data-ready="true" data-analyzed=move || ctx.analyzed.get().to_string()
            data-result-ms=move || format!("{:.1}", ctx.result_ms.get())
            data-analysis-ms=move || format!("{:.1}", ctx.analysis_ms.get())
            data-received-ms=move || format!("{:.1}", ctx.received_ms.get())
            data-parse-ms=move || format!("{:.1}", ctx.parse_ms.get())
            data-first-result-ms=move || ctx.first_result_ms.get().map(|t| format!("{t:.1}")).unwrap_or_default()>
            <Header />
            <div id="busy" class="busy" role="status" hidden=move || !(ctx.busy.get() || ctx.overdue.get())>"analysing…"</div>
            <div id="banner" role="alert" class="banner" hidden=move || ctx.banner.with(Option::is_none)>
                <span>{move || ctx.banner.get().unwrap_or_default()}</span>
                <button class="banner-close" aria-label="Dismiss" on:click=move |_| ctx.banner.set(None)>
                    "×"
                </button>
            </div>
            <Notices />
            <Legend />
            <div class="panes" class:stale=move || ctx.overdue.get()>
                <section class="pane editor-pane" aria-label="Editor">
                    <FileTabs />
                    <Editor initial_code=initial_code />
                    <ProblemsList />
                </section>
                <section class="pane views-pane" aria-label="Analysis views">
                    <Views />
                </section>
            </div>
        </main>
    }
}

/// Marks the views `ids` as changed (see [`Ctx::revisions`]).
fn bump_revisions(ctx: Ctx, ids: Vec<String>) {
    if ids.is_empty() {
        return;
    }
    ctx.revisions.update(|r| {
        let next = r.values().max().map_or(1, |n| n + 1);
        r.extend(ids.into_iter().map(|id| (id, next)));
    });
}

/// Re-analyses once typing pauses for [`analysis::DEBOUNCE_MS`]: every change restarts
/// one timer, so only the last edit of a burst is sent to the analysis worker. The page
/// never waits for the worker; its results arrive through the hooks.
fn analyse_on_change(ctx: Ctx) {
    let engine = analysis::Engine::start(analysis::Hooks {
        report: Box::new(move |analysed| {
            let sent_at = analysed.sent_at;
            ctx.analysis_ms.set(analysed.analysis_ms);
            ctx.received_ms.set(analysed.received_ms);
            ctx.parse_ms.set(analysed.parse_ms);
            if ctx.code.with_untracked(|c| *c == analysed.source) {
                ctx.overdue.set(false);
            }
            ctx.analysed.set(analysed.source);
            // The report comes as its difference from the one shown: applied in place.
            let delta = analysed.report;
            let changed = ctx.report.with_untracked(|r| delta.changed(r));
            ctx.drawings.update(|drawings| {
                ctx.report.update(|report| delta.apply(report, drawings));
            });
            bump_revisions(ctx, changed);
            // Once the views have updated (the next frame), record how long the result
            // took since it was requested: the benchmark reads it (`data-result-ms`).
            request_animation_frame(move || {
                let now = analysis::now_ms();
                ctx.result_ms.set(now - sent_at);
                if ctx.first_result_ms.get_untracked().is_none() {
                    ctx.first_result_ms.set(Some(now));
                }
                ctx.analyzed.update(|n| *n += 1);
            });
            if ctx
                .banner
                .with_untracked(|b| b.as_deref().is_some_and(|b| b.starts_with(FAILED)))
            {
                ctx.banner.set(None);
            }
        }),
        failure: Box::new(move |message| {
            // Never leave the notes of an older program beside this one.
            let source = ctx.code.get_untracked();
            ctx.drawings.set(Vec::new());
            ctx.report.set(failed_report(&source, &message));
            let every = ctx
                .revisions
                .with_untracked(|r| r.keys().cloned().collect());
            bump_revisions(ctx, every);
            ctx.analysed.set(source);
            ctx.overdue.set(false);
            ctx.banner.set(Some(format!(
                "{FAILED} ({message}). The rest of the app still works: your text is kept, and the next edit is analysed again."
            )));
            ctx.analyzed.update(|n| *n += 1);
        }),
        busy: Box::new(move |b| ctx.busy.set(b)),
    });
    let pending: StoredValue<Option<TimeoutHandle>> = StoredValue::new(None);
    let grace: StoredValue<Option<TimeoutHandle>> = StoredValue::new(None);
    let language = ctx.language();
    // The text last asked about.
    let asked: StoredValue<String> = StoredValue::new(String::new());
    Effect::new(move |_| {
        let source = ctx.code.get();
        // Once the text has changed, the results on screen belong to an older text:
        // after a short grace they are dimmed and "analysing…" shows, even while the
        // user keeps typing (the grace timer is not restarted by later keystrokes).
        if grace.with_value(Option::is_none) {
            let handle = set_timeout_with_handle(
                move || {
                    grace.set_value(None);
                    if ctx
                        .code
                        .with_untracked(|c| ctx.analysed.with_untracked(|a| a != c))
                    {
                        ctx.overdue.set(true);
                    }
                },
                Duration::from_millis(analysis::STALE_AFTER_MS),
            )
            .ok();
            grace.set_value(handle);
        }
        // Only the view on screen is built: a 10,000-line file's views cost as much
        // as its re-analysis. Another tab asks again (the analysis is kept).
        let views = language.with(|l| ctx.view.with(|v| views::built(l, v)));
        const WITNESS_BYTES: usize = 64 * 1024;
        let options = shapex::Options {
            lang: ctx.lang.get(),
            settings: ctx.settings.get(),
            views: Some(views),
            // A check's hover offers sizes under which it fails, and a repro. Each
            // is a search (the analysis ×2.5 over the fixtures), so not on a file so
            // long that a keystroke's re-analysis would miss its budget.
            witness: ctx.code.with_untracked(|c| c.len() <= WITNESS_BYTES),
        };
        // An edit of any file re-analyses the active one, which may call it.
        let path = ctx.name.with(|n| {
            if n.is_empty() {
                crate::state::default_name(&options.lang)
            } else {
                n.clone()
            }
        });
        let others = ctx.others.with(|o| {
            o.iter()
                .map(|f| (f.name.clone(), f.code.clone()))
                .collect::<Vec<_>>()
        });
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        // Typing is debounced; another tab or setting for the same text is not.
        let typed = asked.with_value(|a| *a != source);
        asked.set_value(source.clone());
        let wait = if typed { analysis::DEBOUNCE_MS } else { 0 };
        let engine = engine.clone();
        let handle = set_timeout_with_handle(
            move || {
                pending.set_value(None);
                engine.request(source, path, others, options);
            },
            Duration::from_millis(wait),
        )
        .ok();
        pending.set_value(handle);
    });
}

/// How a failure banner starts (a later success clears it).
const FAILED: &str = "The analysis failed on this input";

/// What the views show after a failed analysis: no shapes, one diagnostic saying why.
fn failed_report(source: &str, message: &str) -> Report {
    let mut report = Report {
        diagnostics: vec![shapex::Diagnostic::error(
            "analysis.failed",
            format!("the analysis failed on this input ({message})"),
            shapex::Span::new(0, 0),
        )],
        ..Report::default()
    };
    report.resolve_positions(source);
    report
}

/// Saves every change locally, and drops a share fragment once the state has moved
/// away from it (so a reload shows the latest work, not the old link).
fn autosave(ctx: Ctx) {
    Effect::new(move |_| {
        let s = ctx.snapshot();
        browser::save(&s);
        let stale = ctx
            .linked
            .with_untracked(|l| l.as_ref().is_some_and(|l| *l != s));
        let dangling =
            ctx.linked.with_untracked(Option::is_none) && browser::location_hash().len() > 1;
        if stale || dangling {
            ctx.linked.set(None);
            browser::clear_location_hash();
        }
    });
}

/// Opening another share link in the same tab (or Back) loads it, setting the user's
/// code aside first; a damaged link opens nothing. The fragment Share itself set is
/// not a link to open.
fn follow_hash_changes(ctx: Ctx) {
    let handle = window_event_listener(leptos::ev::hashchange, move |_| {
        let hash = browser::location_hash();
        let fragment = hash.strip_prefix('#').unwrap_or(&hash);
        if fragment.is_empty() || ctx.own_hash.with_value(|own| own == fragment) {
            return;
        }
        match share::decode(&hash) {
            Ok(s) => {
                if s != ctx.snapshot() {
                    ctx.replace(s.clone());
                    ctx.example.set(String::new());
                }
                ctx.linked.set(Some(s));
                ctx.banner.set(None);
            }
            Err(e) => ctx.banner.set(Some(format!("{e} Your code is unchanged."))),
        }
    });
    on_cleanup(move || handle.remove());
}

/// Share makes a link to this exact view and copies it; it never changes the text or
/// the autosave. A program too large for a link is downloaded as a file instead.
fn share_now(ctx: Ctx) {
    let s = ctx.snapshot();
    match share::link(&s) {
        Ok(fragment) => {
            let url = browser::url_with_fragment(&fragment);
            ctx.own_hash.set_value(fragment.clone());
            ctx.linked.set(Some(s));
            browser::set_location_hash(&fragment);
            browser::copy_to_clipboard(&url);
            ctx.share_url.set(url);
        }
        Err(chars) => {
            let name = download_name(&s.lang);
            browser::download(&name, &s.code);
            ctx.share_url.set(String::new());
            ctx.banner.set(Some(format!(
                "This program is too large for a link ({} KB of link data; links hold up to {} KB), so it was downloaded as {name} instead: send the file, and open it with Open file….",
                chars.div_ceil(1024),
                share::MAX_LINK_CHARS / 1024
            )));
        }
    }
}

/// The active file's name without its folder (`helper.m`), for a download.
fn file_name(s: &ViewState) -> String {
    let name = s.active_name();
    name.rsplit('/').next().unwrap_or(&name).to_string()
}

/// `program.<ext>` with the language's first file extension.
fn download_name(lang: &str) -> String {
    let ext = analysis::language(lang)
        .extensions
        .first()
        .copied()
        .unwrap_or("txt");
    format!("program.{ext}")
}

/// Whether a file of `state` holds text of the user's: not empty, not an example as
/// shipped.
fn holds_own_work(state: &ViewState) -> bool {
    let own = |code: &str| !code.trim().is_empty() && !gallery::is_example_text(code);
    own(&state.code) || state.others.iter().any(|f| own(&f.code))
}

/// The language whose extensions include `name`'s, else the one shown.
fn language_of(name: &str, ctx: Ctx) -> String {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    ext.and_then(|e| {
        analysis::languages()
            .into_iter()
            .find(|l| l.extensions.contains(&e.as_str()))
            .map(|l| l.id.to_string())
    })
    .unwrap_or_else(|| ctx.lang.get_untracked())
}

/// Loads a local file into the editor (the other half of sharing a large program),
/// choosing the language by its extension; several files chosen at once open as one
/// program's tabs (a folder's `.m` files: calls between them are followed).
fn open_file(ctx: Ctx, input: web_sys::HtmlInputElement) {
    let Some(list) = input.files() else { return };
    if list.length() > 1 {
        return open_files(ctx, input, list);
    }
    let Some(file) = list.get(0) else {
        return;
    };
    let name = file.name();
    let lang = language_of(&name, ctx);
    let promise = file.text();
    leptos::task::spawn_local(async move {
        let text = wasm_bindgen_futures::JsFuture::from(promise).await;
        match text.ok().and_then(|t| t.as_string()) {
            Some(code) => {
                let mut s = ctx.snapshot();
                if s.lang != lang {
                    s.settings.clear();
                }
                // The file alone, named as on disk when a call could reach it by that
                // name; the program's other files were set aside with it.
                s.lang = lang;
                s.name = crate::state::check_name(&name, &s.lang, std::iter::empty())
                    .map_or_else(|_| String::new(), |()| name.clone());
                s.set_files(
                    vec![File {
                        name: s.active_name(),
                        code,
                    }],
                    0,
                );
                ctx.replace(s);
                ctx.example.set(String::new());
                ctx.banner.set(None);
            }
            None => ctx
                .banner
                .set(Some(format!("{name} could not be read as text."))),
        }
        input.set_value("");
    });
}

/// [`open_file`] of several files: each read as text, then all shown as tabs (the
/// program they replace set aside, as one file's replacement is).
fn open_files(ctx: Ctx, input: web_sys::HtmlInputElement, list: web_sys::FileList) {
    let files: Vec<web_sys::File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
    let first = files.first().map(|f| f.name()).unwrap_or_default();
    let lang = language_of(&first, ctx);
    leptos::task::spawn_local(async move {
        let mut chosen = Vec::with_capacity(files.len());
        for file in &files {
            let text = wasm_bindgen_futures::JsFuture::from(file.text()).await;
            match text.ok().and_then(|t| t.as_string()) {
                Some(code) => chosen.push((file.name(), code)),
                None => {
                    let name = file.name();
                    ctx.banner
                        .set(Some(format!("{name} could not be read as text.")));
                    input.set_value("");
                    return;
                }
            }
        }
        let mut s = ctx.snapshot();
        if s.lang != lang {
            s.settings.clear();
        }
        s.lang = lang;
        let (files, active) = crate::state::opened(chosen, &s.lang);
        s.set_files(files, active);
        ctx.replace(s);
        ctx.example.set(String::new());
        ctx.banner.set(None);
        input.set_value("");
    });
}

#[component]
fn Header() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let language = ctx.language();
    let languages = analysis::languages();
    let on_example = move |ev| {
        if let Some(e) = gallery::find(&event_target_value(&ev)) {
            ctx.load_example(e);
            ctx.banner.set(None);
        }
    };
    let on_lang = move |ev| {
        let id = event_target_value(&ev);
        // Each language has its own options and views: start from its defaults.
        ctx.settings.set(BTreeMap::new());
        let first_view = analysis::language(&id).views.first().map(|v| v.id);
        ctx.view.set(first_view.unwrap_or("outline").to_string());
        let renamed = crate::state::for_language(ctx.files_untracked(), &id);
        let active = ctx.active.get_untracked();
        ctx.lang.set(id);
        ctx.show_files(renamed, active);
    };
    let language_options = languages
        .into_iter()
        .map(|l| {
            let id = l.id;
            view! { <option value=id selected=move || ctx.lang.with(|c| c == id)>{l.name}</option> }
        })
        .collect::<Vec<_>>();
    let example_groups = gallery::groups()
        .into_iter()
        .map(|(group, entries)| {
            let options = entries
                .into_iter()
                .map(|e| {
                    let id = e.id;
                    view! {
                        <option value=id title=e.citation selected=move || ctx.example.get() == id>
                            {e.title}
                        </option>
                    }
                })
                .collect::<Vec<_>>();
            view! { <optgroup label=group>{options}</optgroup> }
        })
        .collect::<Vec<_>>();
    let file_input: NodeRef<html::Input> = NodeRef::new();
    view! {
        <header class="top">
            <div class="brand">
                <h1>"Shape Explorer"</h1>
                <p class="tagline">{move || language.with(|l| l.tagline)}</p>
            </div>
            <div class="toolbar">
                <label class="field">
                    <span>"Language"</span>
                    <select id="lang" on:change=on_lang>{language_options}</select>
                </label>
                {move || language.with(|l| l.options.iter().filter(|o| !o.hidden).map(|o| view! { <OptionControl spec=o.clone() /> }).collect::<Vec<_>>())}
                <label class="field" class:hidden=move || language.with(|l| !l.prints_shapes)>
                    <span>"Notation"</span>
                    <select id="notation" on:change=move |ev| {
                        let n = if event_target_value(&ev) == "times" { Notation::Times } else { Notation::Paper };
                        ctx.notation.set(n)
                    }>
                        <option value="paper" selected=move || ctx.notation.get() == Notation::Paper>"<3,4> (the paper's)"</option>
                        <option value="times" selected=move || ctx.notation.get() == Notation::Times>"3×4"</option>
                    </select>
                </label>
                <label class="field">
                    <span>"Examples"</span>
                    <select id="examples" on:change=on_example>
                        <option value="" selected=move || gallery::find(&ctx.example.get()).is_none()>"Choose an example…"</option>
                        {example_groups}
                    </select>
                </label>
                <div class="actions">
                    <button id="legend-toggle" aria-controls="legend" aria-expanded=move || ctx.legend.get().to_string()
                        on:click=move |_| ctx.legend.update(|l| *l = !*l)>"Legend"</button>
                    <button id="open-file" title="Open a program from a file on this computer"
                        on:click=move |_| if let Some(i) = file_input.get_untracked() { i.click() }>"Open file…"</button>
                    <input id="file-input" type="file" multiple hidden node_ref=file_input
                        aria-label="Program file to open"
                        on:change=move |_| if let Some(i) = file_input.get_untracked() { open_file(ctx, i) } />
                    <button id="download" title="Save this program as a file"
                        on:click=move |_| { let s = ctx.snapshot(); browser::download(&file_name(&s), &s.code); }>"Download"</button>
                    <button id="share" class="primary" on:click=move |_| share_now(ctx)>"Share"</button>
                    <input id="share-url" readonly placeholder="Share makes a link to this exact view"
                        aria-label="Share link"
                        prop:value=move || ctx.share_url.get()
                        on:focus=move |ev| {
                            use wasm_bindgen::JsCast;
                            if let Some(i) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) { i.select() }
                        } />
                </div>
            </div>
        </header>
    }
}

/// One language option as a select (`<select id="opt-mode">` for MATLAB's semantics),
/// with what the chosen value means in words.
#[component]
fn OptionControl(spec: shapex::report::OptionSpec) -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let key = spec.key;
    let default = spec.default_value();
    let current = move || {
        ctx.settings
            .with(|s| s.get(key).cloned().unwrap_or_else(|| default.to_string()))
    };
    let choices = spec
        .choices
        .iter()
        .map(|&(value, label)| view! { <option value=value selected=move || current() == value>{label}</option> })
        .collect::<Vec<_>>();
    let help = spec.help.clone();
    let title = move || {
        let v = current();
        help.iter()
            .find(|(value, _)| *value == v)
            .map(|(_, h)| h.to_string())
            .unwrap_or_default()
    };
    // An option without choices is free text (a model's name), set when the box is left.
    let set = move |ev: leptos::ev::Event| {
        let v = event_target_value(&ev).trim().to_string();
        ctx.settings.update(|s| {
            s.insert(key.to_string(), v);
        });
    };
    let control = if spec.choices.is_empty() && spec.multiline {
        view! {
            <textarea id=format!("opt-{key}") rows="3" spellcheck="false" placeholder=spec.placeholder
                prop:value=current on:change=set></textarea>
        }
        .into_any()
    } else if spec.choices.is_empty() {
        view! {
            <input id=format!("opt-{key}") type="text" placeholder=spec.placeholder prop:value=current
                on:change=set/>
        }
        .into_any()
    } else {
        view! {
            <select id=format!("opt-{key}") on:change=move |ev| {
                let v = event_target_value(&ev);
                ctx.settings.update(|s| { s.insert(key.to_string(), v); });
            }>{choices}</select>
        }
        .into_any()
    };
    view! {
        <label class="field" title=title>
            <span>{spec.label}</span>
            {control}
        </label>
    }
}

/// Notes above the panes that need no hover: the user's code set aside by a link or
/// an example (one click restores it), and every option not at its default, in words,
/// with a way back to the default (a paper example's MATLAB 5 semantics).
#[component]
fn Notices() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let language = ctx.language();
    let restore = move || {
        ctx.previous.with(|p| {
            p.as_ref().map(|p| {
                let files = p.files();
                let lines: usize = files.iter().map(|f| f.code.lines().count()).sum();
                let what = match files.len() {
                    1 => format!("{lines} lines"),
                    n => format!("{n} files, {lines} lines"),
                };
                view! {
                    <div class="notice" id="previous-notice" role="status">
                        <span>{format!("Your previous code ({what}) was set aside when this program was opened.")}</span>
                        <button id="restore-previous" on:click=move |_| ctx.restore_previous()>"Restore your previous code"</button>
                        <button class="notice-close" aria-label="Forget the previous code" title="Forget it"
                            on:click=move |_| { ctx.previous.set(None); browser::save_previous(None); }>"×"</button>
                    </div>
                }
            })
        })
    };
    let options = move || {
        language.with(|l| {
            l.options
                .iter()
                .filter_map(|o| {
                    let value = ctx.settings.with(|s| s.get(o.key).cloned())?;
                    if value == o.default_value() {
                        return None;
                    }
                    let label = o.choices.iter().find(|c| c.0 == value)?.1;
                    let help = o.help.iter().find(|h| h.0 == value).map_or("", |h| h.1);
                    let (key, default) = (o.key, o.default_value());
                    let default_label = o.choices.first().map_or("", |c| c.1);
                    Some(view! {
                        <div class="notice" id=format!("option-notice-{key}") role="status">
                            <span><b>{format!("{}: {label}.", o.label)}</b>" "{help}</span>
                            <button on:click=move |_| ctx.settings.update(|s| { s.insert(key.to_string(), default.to_string()); })>
                                {format!("Use {default_label}")}
                            </button>
                        </div>
                    })
                })
                .collect::<Vec<_>>()
        })
    };
    let closed = move || {
        ctx.closed.with(|c| {
            c.last().map(|last| {
                let more = match c.len() {
                    1 => String::new(),
                    2 => " (and 1 file before it)".to_string(),
                    n => format!(" (and {} files before it)", n - 1),
                };
                let lines = last.file.code.lines().count();
                view! {
                    <div class="notice" id="closed-notice" role="status">
                        <span>{format!("{} ({lines} lines) was closed{more}.", last.file.name)}</span>
                        <button id="undo-close" on:click=move |_| ctx.undo_close()>"Undo close"</button>
                        <button class="notice-close" aria-label="Forget the closed files" title="Forget them"
                            on:click=move |_| ctx.closed.set(Vec::new())>"×"</button>
                    </div>
                }
            })
        })
    };
    view! { <div class="notices">{restore}{closed}{options}</div> }
}

/// The legend: what the colours, the notations, π, run-time checks and the minted
/// symbols mean, readable without hovering (a projector, a touch screen) and printable.
#[component]
fn Legend() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    // The program's own symbols, each once: what `?₁` on screen stands for.
    let symbols = move || {
        // Built while the legend is open only: every statement's symbols, per result.
        if !ctx.legend.get() {
            return Vec::new();
        }
        let notation = ctx.notation.get();
        ctx.report.with(|r| {
            r.legend()
                .into_iter()
                .filter(|n| n.is_aliased() || n.name.contains('_'))
                .map(|n| {
                    view! {
                        <dt><code>{n.shown().to_string()}</code></dt>
                        <dd>{notation.rewrite(&n.meaning)}</dd>
                    }
                })
                .collect::<Vec<_>>()
        })
    };
    view! {
        <section id="legend" class="legend" aria-label="Legend" hidden=move || !ctx.legend.get()>
            <div class="legend-head">
                <h2>"Legend"</h2>
                <button onclick="window.print()" title="Print the legend">"Print"</button>
                <button class="notice-close" aria-label="Close the legend" on:click=move |_| ctx.legend.set(false)>"×"</button>
            </div>
            <dl>
                <dt><span class="note check-proven">"c <3,4>"</span></dt>
                <dd>"Green: the statement's shape condition is proven — it holds on every run, so no run-time check is needed."</dd>
                <dt><span class="note check-runtime">"c <m,n>"</span></dt>
                <dd>"Amber: a run-time check — whether the statement fails depends on sizes only known when the program runs. The Checks view shows the condition that is still checked (▶)."</dd>
                <dt><span class="note check-error">"c illegal"</span></dt>
                <dd>"Red: a definite shape error — the statement fails on every run that reaches it. Later lines that use its result are not checked again."</dd>
                <dt><span class="note check-none">"c <1,1>"</span></dt>
                <dd>"Grey: the statement has no shape condition (an assignment of a known value)."</dd>
                <dt><span class="note unreached">"not reached"</span></dt>
                <dd>"No run reaches the statement: a branch that cannot be taken, or code after a definite error."</dd>
                <dt><code>"<3,4>"</code>" or "<code>"3×4"</code></dt>
                <dd>"A shape: 3 rows and 4 columns. <3,4> is the notation of Joisha et al. (2000); 3×4 is the familiar one (the Notation control switches every view)."</dd>
                <dt><code>"?"</code></dt>
                <dd>"An unknown shape (or unknown rank): the analysis cannot know it, and claims nothing about it."</dd>
                <dt><code>"m, n, x_1, ?₁"</code></dt>
                <dd>"Symbols stand for sizes known only at run time: a variable's value (n), an extent of an input (x_1 is the number of rows of x), or a size the analysis met (?₁, explained where it appears: hover a shape, or read the tooltip of a table cell)."</dd>
                <dt><code>"π / illegal"</code></dt>
                <dd>"The paper's illegal shape π: the value of a statement that always fails."</dd>
                <dt><code>"θ"</code></dt>
                <dd>"A conformance condition: what must hold of the sizes for the statement not to fail (e.g. p2 == q1 for a matrix product)."</dd>
                <dt>"Semantics"</dt>
                <dd>"Modern (R2016b+): arrays of compatible sizes broadcast (implicit expansion). Paper (MATLAB 5, strict): Joisha et al.'s rules, where element-wise operands must have equal shapes or one must be a scalar."</dd>
            </dl>
            <h3>"Symbols in this program"</h3>
            <dl id="legend-symbols">{symbols}</dl>
            <p class="empty" hidden=move || !ctx.legend.get() || ctx.report.with(|r| r.legend().iter().any(|n| n.is_aliased() || n.name.contains('_')))>
                "This program shows no symbols: every size in it is known."
            </p>
        </section>
    }
}
