//! The root component: application state, startup (share link › autosave › default
//! example), autosave, debounced analysis, sharing, and the page layout.

use crate::editor::{Editor, ProblemsList};
use crate::gallery::{self, GALLERY};
use crate::state::{parse_name, Notation, View, ViewState};
use crate::views::Views;
use crate::{analysis, browser, share};
use leptos::html;
use leptos::prelude::*;
use shapex::{Lang, Mode, Options, Report};
use std::time::Duration;

/// All reactive state, `Copy` so every component and handler can hold it.
#[derive(Clone, Copy)]
pub struct Ctx {
    pub code: RwSignal<String>,
    pub lang: RwSignal<Lang>,
    pub mode: RwSignal<Mode>,
    pub view: RwSignal<View>,
    pub notation: RwSignal<Notation>,
    pub report: RwSignal<Report>,
    /// Number of analyses finished; exposed as `data-analyzed` for tests.
    pub analyzed: RwSignal<u64>,
    pub banner: RwSignal<Option<String>>,
    pub share_url: RwSignal<String>,
    /// The gallery entry last loaded (the examples menu shows it).
    pub example: RwSignal<String>,
    /// The state the current URL fragment encodes, while it still matches.
    pub linked: RwSignal<Option<ViewState>>,
    pub generation: RwSignal<u64>,
    pub editor: NodeRef<html::Textarea>,
}

impl Ctx {
    pub fn snapshot(&self) -> ViewState {
        ViewState {
            code: self.code.get(),
            lang: self.lang.get(),
            mode: self.mode.get(),
            view: self.view.get(),
            notation: self.notation.get(),
        }
    }

    /// Replaces the whole state, including the textarea's text (which is not bound
    /// reactively, so that typing never resets the caret).
    pub fn load(&self, s: ViewState) {
        if let Some(el) = self.editor.get_untracked() {
            el.set_value(&s.code);
        }
        self.code.set(s.code);
        self.lang.set(s.lang);
        self.mode.set(s.mode);
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
        mode: RwSignal::new(init.mode),
        view: RwSignal::new(init.view),
        notation: RwSignal::new(init.notation),
        report: RwSignal::new(Report::default()),
        analyzed: RwSignal::new(0),
        banner: RwSignal::new(banner),
        share_url: RwSignal::new(String::new()),
        example: RwSignal::new(example.to_string()),
        linked: RwSignal::new(linked),
        generation: RwSignal::new(0),
        editor: NodeRef::new(),
    };
    analyse_on_change(ctx);
    autosave(ctx);
    follow_hash_changes(ctx);

    view! {
        <main id="app" data-ready="true" data-analyzed=move || ctx.analyzed.get().to_string()>
            <Header ctx=ctx />
            <div id="banner" role="alert" class="banner" hidden=move || ctx.banner.with(Option::is_none)>
                <span>{move || ctx.banner.get().unwrap_or_default()}</span>
                <button class="banner-close" aria-label="Dismiss" on:click=move |_| ctx.banner.set(None)>
                    "×"
                </button>
            </div>
            <div class="panes">
                <section class="pane editor-pane" aria-label="Editor">
                    <Editor ctx=ctx initial_code=initial_code />
                    <ProblemsList ctx=ctx />
                </section>
                <section class="pane views-pane" aria-label="Analysis views">
                    <Views ctx=ctx />
                </section>
            </div>
        </main>
    }
}

/// Re-analyses after typing pauses; a newer edit cancels a pending run.
fn analyse_on_change(ctx: Ctx) {
    Effect::new(move |_| {
        let source = ctx.code.get();
        let options = Options {
            lang: ctx.lang.get(),
            mode: ctx.mode.get(),
        };
        let g = ctx.generation.get_untracked() + 1;
        ctx.generation.set(g);
        set_timeout(
            move || {
                if ctx.generation.get_untracked() != g {
                    return;
                }
                ctx.report.set(analysis::analyze(&source, &options));
                ctx.analyzed.update(|n| *n += 1);
            },
            Duration::from_millis(analysis::DEBOUNCE_MS),
        );
    });
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
fn Header(ctx: Ctx) -> impl IntoView {
    let on_example = move |ev| {
        if let Some(e) = gallery::find(&event_target_value(&ev)) {
            ctx.load_example(e);
            ctx.banner.set(None);
        }
    };
    view! {
        <header class="top">
            <div class="brand">
                <h1>"Shape Explorer"</h1>
                <p class="tagline">"Paste MATLAB and see, statement by statement, the array shapes it computes — and why a line fails."</p>
            </div>
            <div class="toolbar">
                <label class="field">
                    <span>"Language"</span>
                    <select id="lang" on:change=move |ev| {
                        if let Some(l) = parse_name::<Lang>(&event_target_value(&ev)) { ctx.lang.set(l) }
                    }>
                        <option value="matlab" selected=move || ctx.lang.get() == Lang::Matlab>"MATLAB"</option>
                    </select>
                </label>
                <label class="field">
                    <span>"Semantics"</span>
                    <select id="mode" on:change=move |ev| {
                        if let Some(m) = parse_name::<Mode>(&event_target_value(&ev)) { ctx.mode.set(m) }
                    }>
                        <option value="modern" selected=move || ctx.mode.get() == Mode::Modern>"Modern (R2016b+, broadcasting)"</option>
                        <option value="paper" selected=move || ctx.mode.get() == Mode::Paper>"Paper (MATLAB 5, strict)"</option>
                    </select>
                </label>
                <label class="field">
                    <span>"Notation"</span>
                    <select id="notation" on:change=move |ev| {
                        if let Some(n) = parse_name::<Notation>(&event_target_value(&ev)) { ctx.notation.set(n) }
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
