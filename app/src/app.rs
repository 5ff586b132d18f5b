//! The root component: application state, startup (share link › autosave › default
//! example), autosave, debounced analysis, sharing, and the page layout.

use crate::editor::{Editor, ProblemsList};
use crate::gallery::{self, GALLERY};
use crate::state::{Notation, ViewState};
use crate::views::Views;
use crate::{analysis, browser, share};
use leptos::html;
use leptos::prelude::*;
use shapex::report::LanguageInfo;
use shapex::Report;
use std::collections::BTreeMap;
use std::time::Duration;

/// All reactive state, `Copy`, provided as context to every component.
#[derive(Clone, Copy)]
pub struct Ctx {
    pub code: RwSignal<String>,
    pub lang: RwSignal<String>,
    /// The language's options (`mode = paper`).
    pub settings: RwSignal<BTreeMap<String, String>>,
    /// The selected tab's id.
    pub view: RwSignal<String>,
    pub notation: RwSignal<Notation>,
    pub report: RwSignal<Report>,
    /// The text `report` is about (the editor may be a keystroke ahead).
    pub analysed: RwSignal<String>,
    /// A result is overdue (the "analysing…" indicator).
    pub busy: RwSignal<bool>,
    /// Request-to-rendered time of the last result, and when the first was on screen
    /// (ms since navigation): `data-result-ms`, `data-first-result-ms` for benchmarks.
    pub result_ms: RwSignal<f64>,
    /// How long the last analysis took inside the worker (`data-analysis-ms`).
    pub analysis_ms: RwSignal<f64>,
    pub first_result_ms: RwSignal<Option<f64>>,
    /// Number of analyses finished; exposed as `data-analyzed` for tests.
    pub analyzed: RwSignal<u64>,
    pub banner: RwSignal<Option<String>>,
    pub share_url: RwSignal<String>,
    /// The gallery entry last loaded (the examples menu shows it).
    pub example: RwSignal<String>,
    /// The state the current URL fragment encodes, while it still matches.
    pub linked: RwSignal<Option<ViewState>>,
    pub editor: NodeRef<html::Textarea>,
}

impl Ctx {
    pub fn snapshot(&self) -> ViewState {
        ViewState {
            code: self.code.get(),
            lang: self.lang.get(),
            settings: self.settings.get(),
            view: self.view.get(),
            notation: self.notation.get(),
        }
    }

    /// The selected language's facts (its tagline, options and views).
    pub fn language(&self) -> Memo<LanguageInfo> {
        let lang = self.lang;
        Memo::new(move |_| lang.with(|l| analysis::language(l)))
    }

    /// Replaces the whole state, including the textarea's text (which is not bound
    /// reactively, so that typing never resets the caret).
    pub fn load(&self, s: ViewState) {
        if let Some(el) = self.editor.get_untracked() {
            el.set_value(&s.code);
        }
        self.code.set(s.code);
        self.lang.set(s.lang);
        self.settings.set(s.settings);
        self.view.set(s.view);
        self.notation.set(s.notation);
    }

    pub fn load_example(&self, entry: &gallery::GalleryEntry) {
        self.load(entry.state(self.notation.get_untracked()));
        self.example.set(entry.id.to_string());
    }
}

/// Where the first state comes from: a share link wins over the autosave, which
/// wins over the default example. A bad link explains itself in the banner.
fn initial_state() -> (ViewState, Option<String>, Option<ViewState>, &'static str) {
    let default = gallery::default_entry();
    let hash = browser::location_hash();
    if hash.len() > 1 {
        return match share::decode(&hash) {
            Ok(s) => (s.clone(), None, Some(s), ""),
            Err(e) => (
                default.state(Notation::default()),
                Some(format!("{e} Showing the default example instead.")),
                None,
                default.id,
            ),
        };
    }
    match browser::load_saved() {
        Some(s) => (s, None, None, ""),
        None => (default.state(Notation::default()), None, None, default.id),
    }
}

#[component]
pub fn App() -> impl IntoView {
    let (init, banner, linked, example) = initial_state();
    let initial_code = init.code.clone();
    let ctx = Ctx {
        code: RwSignal::new(init.code.clone()),
        lang: RwSignal::new(init.lang),
        settings: RwSignal::new(init.settings),
        view: RwSignal::new(init.view),
        notation: RwSignal::new(init.notation),
        report: RwSignal::new(Report::default()),
        analysed: RwSignal::new(String::new()),
        busy: RwSignal::new(false),
        result_ms: RwSignal::new(0.0),
        analysis_ms: RwSignal::new(0.0),
        first_result_ms: RwSignal::new(None),
        analyzed: RwSignal::new(0),
        banner: RwSignal::new(banner),
        share_url: RwSignal::new(String::new()),
        example: RwSignal::new(example.to_string()),
        linked: RwSignal::new(linked),
        editor: NodeRef::new(),
    };
    provide_context(ctx);
    analyse_on_change(ctx);
    autosave(ctx);
    follow_hash_changes(ctx);

    view! {
        <main id="app" data-ready="true" data-analyzed=move || ctx.analyzed.get().to_string()
            data-result-ms=move || format!("{:.1}", ctx.result_ms.get())
            data-analysis-ms=move || format!("{:.1}", ctx.analysis_ms.get())
            data-first-result-ms=move || ctx.first_result_ms.get().map(|t| format!("{t:.1}")).unwrap_or_default()>
            <Header />
            <div id="busy" class="busy" role="status" hidden=move || !ctx.busy.get()>"analysing…"</div>
            <div id="banner" role="alert" class="banner" hidden=move || ctx.banner.with(Option::is_none)>
                <span>{move || ctx.banner.get().unwrap_or_default()}</span>
                <button class="banner-close" aria-label="Dismiss" on:click=move |_| ctx.banner.set(None)>
                    "×"
                </button>
            </div>
            <div class="panes">
                <section class="pane editor-pane" aria-label="Editor">
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

/// Re-analyses once typing pauses for [`analysis::DEBOUNCE_MS`]: every change restarts
/// one timer, so only the last edit of a burst is sent to the analysis worker. The page
/// never waits for the worker; its results arrive through the hooks.
fn analyse_on_change(ctx: Ctx) {
    let engine = analysis::Engine::start(analysis::Hooks {
        report: Box::new(move |analysed| {
            let sent_at = analysed.sent_at;
            ctx.analysis_ms.set(analysed.analysis_ms);
            ctx.analysed.set(analysed.source);
            ctx.report.set(analysed.report);
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
            ctx.report.set(failed_report(&source, &message));
            ctx.analysed.set(source);
            ctx.banner.set(Some(format!(
                "{FAILED} ({message}). The rest of the app still works: your text is kept, and the next edit is analysed again."
            )));
            ctx.analyzed.update(|n| *n += 1);
        }),
        busy: Box::new(move |b| ctx.busy.set(b)),
    });
    let pending: StoredValue<Option<TimeoutHandle>> = StoredValue::new(None);
    Effect::new(move |_| {
        let source = ctx.code.get();
        let options = shapex::Options {
            lang: ctx.lang.get(),
            settings: ctx.settings.get(),
        };
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let engine = engine.clone();
        let handle = set_timeout_with_handle(
            move || {
                pending.set_value(None);
                engine.request(source, options);
            },
            Duration::from_millis(analysis::DEBOUNCE_MS),
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

/// Opening another share link in the same tab (or Back) loads it.
fn follow_hash_changes(ctx: Ctx) {
    let handle = window_event_listener(leptos::ev::hashchange, move |_| {
        let hash = browser::location_hash();
        if hash.len() <= 1 {
            return;
        }
        match share::decode(&hash) {
            Ok(s) => {
                if s != ctx.snapshot() {
                    ctx.load(s.clone());
                }
                ctx.linked.set(Some(s));
                ctx.banner.set(None);
            }
            Err(e) => {
                ctx.banner
                    .set(Some(format!("{e} Showing the default example instead.")));
                ctx.load_example(gallery::default_entry());
            }
        }
    });
    on_cleanup(move || handle.remove());
}

fn share_now(ctx: Ctx) {
    let s = ctx.snapshot();
    let fragment = share::encode(&s);
    let url = browser::url_with_fragment(&fragment);
    ctx.linked.set(Some(s));
    browser::set_location_hash(&fragment);
    browser::copy_to_clipboard(&url);
    ctx.share_url.set(url);
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
        ctx.lang.set(id);
    };
    let language_options = languages
        .into_iter()
        .map(|l| {
            let id = l.id;
            view! { <option value=id selected=move || ctx.lang.with(|c| c == id)>{l.name}</option> }
        })
        .collect::<Vec<_>>();
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
                {move || language.with(|l| l.options.iter().map(|o| view! { <OptionControl spec=o.clone() /> }).collect::<Vec<_>>())}
                <label class="field">
                    <span>"Notation"</span>
                    <select id="notation" on:change=move |ev| {
                        let n = if event_target_value(&ev) == "times" { Notation::Times } else { Notation::Paper };
                        ctx.notation.set(n)
                    }>
                        <option value="paper" selected=move || ctx.notation.get() == Notation::Paper>"<3,4>"</option>
                        <option value="times" selected=move || ctx.notation.get() == Notation::Times>"3×4"</option>
                    </select>
                </label>
                <label class="field">
                    <span>"Examples"</span>
                    <select id="examples" on:change=on_example>
                        <option value="" selected=move || gallery::find(&ctx.example.get()).is_none()>"Choose an example…"</option>
                        {GALLERY
                            .iter()
                            .map(|e| {
                                let id = e.id;
                                view! {
                                    <option value=id title=e.citation selected=move || ctx.example.get() == id>
                                        {e.title}
                                    </option>
                                }
                            })
                            .collect::<Vec<_>>()}
                    </select>
                </label>
                <div class="share">
                    <button id="share" class="primary" on:click=move |_| share_now(ctx)>"Share"</button>
                    <input id="share-url" readonly placeholder="Share makes a link to this exact view"
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

/// One language option as a select (`<select id="opt-mode">` for MATLAB's semantics).
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
    view! {
        <label class="field">
            <span>{spec.label}</span>
            <select id=format!("opt-{key}") on:change=move |ev| {
                let v = event_target_value(&ev);
                ctx.settings.update(|s| { s.insert(key.to_string(), v); });
            }>{choices}</select>
        </label>
    }
}
