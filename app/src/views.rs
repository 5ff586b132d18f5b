//! The right-hand views, as tabs: the selected language's views (from its
//! `LanguageInfo`), then the views every language has (Outline, Diagnostics). Each
//! language view renders its payload with the one component for the payload's kind, so
//! a new language needs no code here. Only the selected tab renders; the others are
//! empty `hidden` sections, so hidden tabs cost nothing.
//!
//! Long views are virtualised: listings, the Outline and the Shapes table have rows of
//! one fixed height and render only the rows in the scroller's visible window (plus
//! [`OVERSCAN`] each side), padded to their full height, so a 10,000-line file's views
//! open and scroll as fast as a short one's.

use crate::app::Ctx;
use crate::browser;
use crate::editor::{fix_button, jump_to, select, PROBLEMS_PAGE};
use crate::model;
use crate::state::GENERIC_VIEWS;
use leptos::html::{self, ElementType};
use leptos::prelude::*;
use shapex::report::view::{self, CellValue, Payload};
use shapex::report::LanguageInfo;
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

/// Rows rendered above and below the visible ones: lines of a listing or the Outline,
/// and rows of a table (fewer: a row of the Shapes table has a cell per variable).
const OVERSCAN: usize = 40;
const TABLE_OVERSCAN: usize = 12;
/// Heights, in CSS pixels, of a listing line (style.css `--lh`), an Outline item
/// (`.outline-item`) and a Shapes table row (`table.shapes tr`).
const LINE_PX: f64 = 20.0;
const OUTLINE_PX: f64 = 26.0;
const ROW_PX: f64 = 28.0;

/// The views' scroller (`.view-body`) and a tick that moves, at most once per frame,
/// when it scrolls or the window resizes: virtual lists measure themselves then.
#[derive(Clone, Copy)]
struct ViewScroll {
    body: NodeRef<html::Div>,
    tick: RwSignal<u64>,
}

/// The rows of a list of `total()` rows, `row` pixels tall, starting at the top of
/// `list`, that are visible in the views' scroller, with `overscan` rows each side.
fn rows_in_view<E>(
    list: NodeRef<E>,
    row: f64,
    overscan: usize,
    total: impl Fn() -> usize + Send + Sync + 'static,
) -> Memo<Range<usize>>
where
    E: ElementType + 'static,
    E::Output: wasm_bindgen::JsCast + AsRef<web_sys::Element> + Clone + 'static,
{
    let scroll = expect_context::<ViewScroll>();
    // Measure once the list is in the page.
    Effect::new(move |_| {
        if list.get().is_some() {
            scroll.tick.update(|t| *t += 1);
        }
    });
    Memo::new(move |previous| {
        scroll.tick.track();
        let (top, height) = match (scroll.body.get_untracked(), list.get_untracked()) {
            (Some(body), Some(list)) => (
                body.get_bounding_client_rect().top()
                    - AsRef::<web_sys::Element>::as_ref(&list)
                        .get_bounding_client_rect()
                        .top(),
                body.client_height() as f64,
            ),
            _ => (0.0, 1200.0),
        };
        model::window(previous, top, height, row, total(), overscan)
    })
}

#[component]
pub fn Views() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let language = ctx.language();
    // (id, title, empty text) of every tab of the current language.
    let tabs = Memo::new(move |_| {
        language.with(|l| {
            l.views
                .iter()
                .map(|v| (v.id, v.title, v.empty))
                .chain(GENERIC_VIEWS.iter().map(|&(id, title)| (id, title, "")))
                .collect::<Vec<_>>()
        })
    });
    let selected = Memo::new(move |_| language.with(|l| ctx.view.with(|v| shown(l, v))));
    let buttons = move || {
        tabs.get()
            .into_iter()
            .map(|(id, title, _)| {
                let active = move || selected.with(|s| s == id);
                view! {
                    <button id=format!("tab-{id}") class="tab" role="tab" data-view=id
                        class:active=active
                        aria-selected=move || active().to_string()
                        on:click=move |_| ctx.view.set(id.to_string())>
                        {title}
                    </button>
                }
            })
            .collect::<Vec<_>>()
    };
    let panels = move || {
        tabs.get()
            .into_iter()
            .map(|(id, _, empty)| {
                let shown = move || selected.with(|s| s == id);
                view! {
                    <section class="view" id=format!("view-{id}") hidden=move || !shown()>
                        {move || shown().then(|| panel(id, empty))}
                    </section>
                }
            })
            .collect::<Vec<_>>()
    };
    let scroll = ViewScroll {
        body: NodeRef::new(),
        tick: RwSignal::new(0),
    };
    provide_context(scroll);
    let tick = move || scroll.tick.update(|t| *t += 1);
    let on_scroll = browser::once_per_frame(tick);
    let resize = window_event_listener(leptos::ev::resize, move |_| tick());
    on_cleanup(move || resize.remove());
    view! {
        <nav class="tabs" role="tablist">{buttons}</nav>
        <div class="view-body" node_ref=scroll.body on:scroll=move |_| on_scroll()>{panels}</div>
    }
}

/// The tab shown when `view` is selected: a view id the language does not offer (an old
/// link) shows its first tab.
fn shown(language: &LanguageInfo, view: &str) -> String {
    let tabs = language.views.iter().map(|v| v.id);
    let mut tabs = tabs.chain(GENERIC_VIEWS.iter().map(|&(id, _)| id));
    let first = tabs.clone().next().unwrap_or_default();
    tabs.find(|id| *id == view).unwrap_or(first).to_string()
}

/// The language views to build when `view` is selected: the one shown, or none when the
/// tab shown is a generic one (built from statements and diagnostics on the page).
pub fn built(language: &LanguageInfo, view: &str) -> BTreeSet<String> {
    let tab = shown(language, view);
    let offered = language.views.iter().any(|v| v.id == tab);
    offered.then_some(tab).into_iter().collect()
}

/// The content of tab `id`.
fn panel(id: &'static str, empty: &'static str) -> AnyView {
    match id {
        "outline" => view! { <OutlineView /> }.into_any(),
        "diagnostics" => view! { <DiagnosticDetails /> }.into_any(),
        _ => view! { <PayloadView id=id empty=empty /> }.into_any(),
    }
}

/// A language view: one component per payload kind.
#[component]
fn PayloadView(id: &'static str, empty: &'static str) -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    // Re-rendered when this view's payload changed, and read in place: a 10,000-line
    // file's payload is neither copied nor compared per result.
    let revision = Memo::new(move |_| ctx.revisions.with(|r| r.get(id).copied()));
    move || {
        // Read, not only tracked: a memo never read never computes, so never changes.
        let _ = revision.get();
        ctx.report.with_untracked(|r| match r.view(id) {
            // A result that did not build this view (another tab was on screen): the
            // request for it is on its way.
            None if !r.lang.is_empty() => {
                view! { <p class="empty building">"Building this view…"</p> }.into_any()
            }
            None => view! { <p class="empty">{empty}</p> }.into_any(),
            Some(Payload::Table(t)) => {
                view! { <TableView table=t.clone() empty=empty /> }.into_any()
            }
            Some(Payload::Text(t)) => {
                let lines = text_lines(&t.text, t.marker.as_deref());
                view! { <Listing lines=lines sources=t.sources.clone() empty=empty /> }.into_any()
            }
            Some(Payload::AnnotatedSource(a)) => {
                // Notes refer to the text that was analysed, not to newer keystrokes.
                let notation = ctx.notation.get();
                let lines = ctx.analysed.with_untracked(|c| annotated_lines(c, a, notation));
                view! { <Listing lines=lines empty=empty /> }.into_any()
            }
            Some(Payload::Graph(g)) => view! {
                <GraphView id=id vertices=g.vertices.clone() edges=g.edges.clone() steps=g.steps.clone() empty=empty />
            }
            .into_any(),
            Some(Payload::Lattice(l)) => view! {
                <GraphView id=id vertices=l.nodes.clone() edges=l.covers.clone() steps=l.states.clone() lattice=true empty=empty />
            }
            .into_any(),
            Some(Payload::Trace(t)) => {
                view! { <TraceView trace=t.clone() empty=empty /> }.into_any()
            }
        })
    }
}

/// A table: its rows are virtualised (the body renders the visible rows between two
/// spacer rows), and its columns are those the rendered rows set, since a 10,000-line
/// file's table has thousands of columns.
#[component]
fn TableView(table: view::Table, empty: &'static str) -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    if table.rows.is_empty() {
        return view! { <p class="empty">{empty}</p> }.into_any();
    }
    let total = table.rows.len();
    let table = StoredValue::new(table);
    let body: NodeRef<html::Tbody> = NodeRef::new();
    let rows = rows_in_view(body, ROW_PX, TABLE_OVERSCAN, move || total);
    let content = move || {
        let notation = ctx.notation.get();
        let range = rows.get();
        table.with_value(|t| {
            let mut shown: Vec<usize> = t.rows[range.clone()]
                .iter()
                .flat_map(|r| r.cells.iter().map(|c| c.column))
                .collect();
            shown.sort_unstable();
            shown.dedup();
            let head = shown
                .iter()
                .map(|&c| view! { <th scope="col">{t.columns[c].clone()}</th> })
                .collect::<Vec<_>>();
            let above = format!("height: {}px", range.start as f64 * ROW_PX);
            let below = format!("height: {}px", (total - range.end) as f64 * ROW_PX);
            let body_rows = t
                .carried(range.clone())
                .into_iter()
                .zip(&t.rows[range])
                .map(|(values, row)| {
                    let line = row.line;
                    let cells = shown
                        .iter()
                        .map(|&c| match values[c] {
                            Some((cell, here)) => {
                                let text = match &cell.value {
                                    CellValue::Shape { shape, display } => {
                                        shape.format(display, notation)
                                    }
                                    // Text may hold shapes too (the Values view's
                                    // `double <3,4>`): in the chosen notation.
                                    CellValue::Text(t) => notation.rewrite(t),
                                };
                                let class = format!(
                                    "{} {}",
                                    cell.class,
                                    if here { "here" } else { "carried" }
                                );
                                // A long value is cut at the column's width (rows
                                // are one height: the table is virtualised); the
                                // whole of it shows on hover.
                                let title = match cell.title.is_empty() {
                                    true if text.chars().count() > CELL_CHARS => text.clone(),
                                    _ => cell.title.clone(),
                                };
                                view! { <td class=class title=title>{text}</td> }.into_any()
                            }
                            None => view! { <td class="absent"></td> }.into_any(),
                        })
                        .collect::<Vec<_>>();
                    view! {
                        <tr class="row">
                            <th scope="row" class="stmt" on:click=move |_| jump_to(ctx, line, 1)>
                                <span class="lineno">{line}</span>" "{row.label.clone()}
                            </th>
                            {cells}
                        </tr>
                    }
                })
                .collect::<Vec<_>>();
            view! {
                <thead><tr><th scope="col">"statement"</th>{head}</tr></thead>
                <tbody node_ref=body>
                    <tr class="spacer" aria-hidden="true" style=above></tr>
                    {body_rows}
                    <tr class="spacer" aria-hidden="true" style=below></tr>
                </tbody>
            }
        })
    };
    view! { <table class="shapes">{content}</table> }.into_any()
}

/// The characters a table cell shows before it is cut (`max-width` in style.css).
const CELL_CHARS: usize = 60;

/// A listing line and its class.
type ListingLine = (String, &'static str);

fn text_lines(text: &str, marker: Option<&str>) -> Vec<ListingLine> {
    text.lines()
        .map(|l| {
            let marked = marker.is_some_and(|m| l.trim_start().starts_with(m));
            (
                l.to_string(),
                if marked {
                    "code-line inserted"
                } else {
                    "code-line"
                },
            )
        })
        .collect()
}

/// The annotated source as listing lines; notes (not the user's code) are written in
/// the chosen notation.
fn annotated_lines(
    source: &str,
    a: &view::AnnotatedSource,
    notation: shapex::report::Notation,
) -> Vec<ListingLine> {
    let classes: std::collections::HashMap<&str, &str> = a
        .notes
        .iter()
        .map(|n| (n.text.as_str(), model::note_class(&n.class)))
        .collect();
    a.render(source)
        .lines()
        .map(|l| match classes.get(l.trim_start()) {
            Some(&class) => (notation.rewrite(l), class),
            None => (l.to_string(), "code-line"),
        })
        .collect()
}

/// A read-only listing; inserted lines (checks) are emphasised. Virtualised: the
/// `pre` has the full height and width, and holds the visible lines below a padding.
/// When the payload relates its lines to the source (`sources`: the IR), the lines of
/// the source line under the caret are highlighted, and clicking a line puts the
/// caret on its source line.
#[component]
fn Listing(
    lines: Vec<ListingLine>,
    #[prop(optional)] sources: Vec<Option<(u32, u32)>>,
    empty: &'static str,
) -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    if lines.iter().all(|(l, _)| l.trim().is_empty()) {
        return view! { <p class="empty">{empty}</p> }.into_any();
    }
    let total = lines.len();
    let widest = lines
        .iter()
        .map(|(l, _)| crate::text::visual_width(l, model::TAB))
        .max()
        .unwrap_or(0);
    let lines = StoredValue::new(lines);
    let list: NodeRef<html::Pre> = NodeRef::new();
    let rows = rows_in_view(list, LINE_PX, OVERSCAN, move || total);
    let body = move || {
        let range = rows.get();
        let start = range.start;
        lines.with_value(|ls| {
            ls[range]
                .iter()
                .enumerate()
                .map(|(k, (l, class))| {
                    let Some((first, last)) = sources.get(start + k).copied().flatten() else {
                        return view! { <div class=*class>{l.clone()}</div> }.into_any();
                    };
                    let here = move || {
                        ctx.analysed_caret
                            .get()
                            .is_some_and(|c| (first..=last).contains(&c))
                    };
                    view! {
                        <div class=*class class:from-source=true class:here=here
                            data-source-line=first.to_string()
                            title=format!("from line {first}: click to go there")
                            on:click=move |_| jump_to(ctx, first, 1)>{l.clone()}</div>
                    }
                    .into_any()
                })
                .collect::<Vec<_>>()
        })
    };
    let style = move || {
        format!(
            "height: {}px; padding-top: {}px; min-width: {widest}ch",
            total as f64 * LINE_PX,
            rows.with(|r| r.start) as f64 * LINE_PX
        )
    };
    view! { <pre class="listing" node_ref=list style=style>{body}</pre> }.into_any()
}

/// A graph or a lattice as SVG, drawn where the worker's layered layout
/// (`shapex-layout`: Sugiyama's method, crossings minimised) put each vertex; a lattice
/// is a Hasse diagram, covers pointing upwards. Vertices are coloured by class, with a
/// legend. Replay steps (the payload's `steps`, or a lattice's `states`) are played by
/// a Step control — a slider, previous/next, and the arrow keys on the graph — from the
/// first step to the final graph; at a step a vertex takes that step's class, and one
/// whose class there is empty is not built yet. Clicking a vertex with a source line
/// jumps there.
#[component]
fn GraphView(
    id: &'static str,
    vertices: Vec<view::Vertex>,
    edges: Vec<view::Edge>,
    steps: Vec<view::Step>,
    #[prop(optional)] lattice: bool,
    empty: &'static str,
) -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    if vertices.is_empty() {
        return view! { <p class="empty">{empty}</p> }.into_any();
    }
    let drawing = ctx.drawings.with_untracked(|d| {
        d.iter()
            .find(|(view, _)| view == id)
            .map(|(_, drawing)| drawing.clone())
    });
    let Some(drawing) = drawing else {
        return view! { <p class="empty">"Laying out the graph…"</p> }.into_any();
    };
    let last = steps.len();
    let step = replay_step(ctx, last);
    let zoom = RwSignal::new(1.0f64);
    let titles: Vec<String> = steps.iter().map(|s| s.title.clone()).collect();
    let ids: Vec<String> = vertices.iter().map(|v| v.id.clone()).collect();
    let finals: Vec<String> = vertices.iter().map(|v| v.class.clone()).collect();
    let palette = StoredValue::new(model::Palette::of(finals.iter().map(String::as_str)));
    let steps_store = StoredValue::new(steps);
    let classes = Memo::new(move |_| {
        let k = step.get();
        steps_store.with_value(|s| model::classes_at(&ids, &finals, s, k))
    });
    let legend = move || {
        classes.with(|c| {
            model::legend_classes(c)
                .into_iter()
                .map(|class| {
                    let fill = palette.with_value(|p| p.fill(&class));
                    view! { <li><span class="swatch" style=format!("background:{fill}")></span>{class}</li> }
                })
                .collect::<Vec<_>>()
        })
    };
    // What the outlines mean, for the marks this graph has.
    let has = |m| vertices.iter().any(|v| v.mark == Some(m));
    let marks = [
        (
            view::VertexMark::Checked,
            "checked",
            "checked (what it requires holds)",
        ),
        (
            view::VertexMark::Conflict,
            "conflict",
            "conflict (a size error)",
        ),
        (
            view::VertexMark::Frontier,
            "frontier",
            "frontier (a maximal migration)",
        ),
        (view::VertexMark::Empty, "empty", "empty (no migration)"),
    ]
    .into_iter()
    .filter(|(m, _, _)| has(*m))
    .map(|(_, class, text)| {
        view! { <li><span class=format!("swatch mark-{class}")></span>{text}</li> }
    })
    .collect::<Vec<_>>();
    // A lattice past six positions shows a part: say how to see more.
    let more = vertices.iter().any(|v| v.expandable).then(|| {
        view! { <li><span class="swatch mark-expandable"></span>"more around it: pick it, then Expand neighbours"</li> }
    });
    let controls = (last > 0).then(|| {
        let title = move |k: usize| match titles.get(k) {
            Some(t) => format!("Step {} of {last}: {t}", k + 1),
            None => format!("The final graph (after {last} steps)"),
        };
        view! { <StepControl step=step last=last title=title /> }
    });
    let on_key = move |ev: web_sys::KeyboardEvent| match ev.key().as_str() {
        "+" | "=" => zoom.update(|z| *z = zoomed(*z, 1)),
        "-" => zoom.update(|z| *z = zoomed(*z, -1)),
        _ => step_key(&ev, step, last),
    };
    // The final graph as a file (the same DOT and SVG as `shapex graph` writes).
    let export = StoredValue::new((vertices.clone(), edges.clone(), drawing.clone()));
    let save = move |svg: bool| {
        export.with_value(|(vertices, edges, drawing)| {
            let figure = shapex_layout::export::Figure {
                id,
                kind: if lattice { "lattice" } else { "graph" },
                vertices,
                edges,
            };
            let (name, text) = if svg {
                let text = shapex_layout::export::to_svg(&[figure], std::slice::from_ref(drawing));
                (format!("{id}.svg"), text)
            } else {
                (
                    format!("{id}.dot"),
                    shapex_layout::export::to_dot(&[figure]),
                )
            };
            browser::download(&name, &text);
        })
    };
    let exports = view! {
        <div class="graph-export" role="group" aria-label="Export the graph">
            <button type="button" on:click=move |_| save(true)>"Export SVG"</button>
            <button type="button" on:click=move |_| save(false)>"Export DOT"</button>
            <span class="zoom" role="group" aria-label="Zoom">
                <button type="button" aria-label="Zoom out" on:click=move |_| zoom.update(|z| *z = zoomed(*z, -1))>"−"</button>
                <span class="zoom-level">{move || format!("{:.0} %", zoom.get() * 100.0)}</span>
                <button type="button" aria-label="Zoom in" on:click=move |_| zoom.update(|z| *z = zoomed(*z, 1))>"+"</button>
            </span>
        </div>
    };
    // The picked vertex, and what it offers: a lattice node's migration to apply, and
    // its neighbours not shown yet.
    let picked = RwSignal::new(None::<usize>);
    let picks = StoredValue::new(vertices.clone());
    let offer = move || {
        let v = picks.with_value(|vs| vs.get(picked.get()?).cloned())?;
        let apply = v.fix.map(|fix| view! {
            <button type="button" class="fix" id="apply-pick"
                title=format!("Write {} (Ctrl+Z undoes it); the Types view then shows every value's type under it", fix.replacement)
                on:click=move |_| crate::editor::apply_fix(ctx, &fix)>"Apply as annotations"</button>
        });
        let expand = v.expandable.then(|| expand_button(ctx, v.id));
        let detail =
            (!v.detail.is_empty()).then(|| view! { <pre class="pick-detail">{v.detail}</pre> });
        (apply.is_some() || expand.is_some() || detail.is_some()).then(|| {
            view! {
                <div class="graph-pick" role="status">
                    <span>{format!("{}: ", v.label)}</span>
                    {apply}
                    {expand}
                    {detail}
                </div>
            }
        })
    };
    let svg = move || classes.with(|c| svg_of(ctx, zoom, picked, &drawing, &vertices, &edges, c));
    view! {
        <div class="graph-view">
            {controls}
            {exports}
            <ul class="graph-legend" aria-label="Classes">{legend}{marks}{more}</ul>
            {offer}
            <div class="graph" class:lattice=lattice tabindex="0" on:keydown=on_key>{svg}</div>
        </div>
    }
    .into_any()
}

/// The step a replay of `last` steps shows: the end (`last`) unless the user steps
/// back. The step is the page's (a link or the autosave restores it), kept while the
/// report changes under it, so every replay view shares it.
fn replay_step(ctx: Ctx, last: usize) -> RwSignal<usize> {
    let step = RwSignal::new(ctx.step.get_untracked().map_or(last, |k| k.min(last)));
    Effect::new(move |_| {
        let k = step.get();
        let shared = (k < last).then_some(k);
        if ctx.step.get_untracked() != shared {
            ctx.step.set(shared);
        }
    });
    step
}

/// The one Step control of every replay (a graph's refinement, a lattice's search,
/// VEC's two evaluations): previous and next, a slider from step 1 to the end, and
/// what step `k` is (`title(k)`).
#[component]
fn StepControl(
    step: RwSignal<usize>,
    last: usize,
    title: impl Fn(usize) -> String + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <div class="step-control" role="group" aria-label="Step through the replay">
            <button type="button" on:click=move |_| step.update(|k| *k = k.saturating_sub(1))
                disabled=move || step.get() == 0>"◀ Previous"</button>
            <input type="range" min="0" max=last.to_string() aria-label="Step"
                prop:value=move || step.get().to_string()
                on:input=move |ev| set_step(step, &event_target_value(&ev), last) />
            <button type="button" on:click=move |_| step.update(|k| *k = (*k + 1).min(last))
                disabled=move || step.get() == last>"Next ▶"</button>
            <span class="step-title" aria-live="polite">{move || title(step.get())}</span>
        </div>
    }
}

/// The arrow keys on a replay's view step it.
fn step_key(ev: &web_sys::KeyboardEvent, step: RwSignal<usize>, last: usize) {
    match ev.key().as_str() {
        "ArrowLeft" => {
            ev.prevent_default();
            step.update(|k| *k = k.saturating_sub(1));
        }
        "ArrowRight" => {
            ev.prevent_default();
            step.update(|k| *k = (*k + 1).min(last));
        }
        _ => {}
    }
}

/// Computations side by side, replayed in lockstep by the Step control: at step k
/// each lane shows its steps up to k — the last one highlighted, its source under the
/// caret's highlight when clicked — or, once it has no step k, how it ended. The
/// summary (results, a signature) stands above.
#[component]
fn TraceView(trace: view::Trace, empty: &'static str) -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    if trace.lanes.is_empty() {
        return view! { <p class="empty">{empty}</p> }.into_any();
    }
    let last = trace.steps();
    let step = replay_step(ctx, last);
    let summary = trace
        .summary
        .iter()
        .map(|(k, v)| view! { <dt>{k.clone()}</dt><dd>{v.clone()}</dd> })
        .collect::<Vec<_>>();
    let lanes = StoredValue::new(trace.lanes);
    let title = move |k: usize| {
        if k >= last {
            return format!("The end (after {last} steps)");
        }
        let ended: Vec<String> = lanes.with_value(|ls| {
            ls.iter()
                .filter(|l| l.steps.len() <= k)
                .map(|l| l.title.clone())
                .collect()
        });
        match ended.as_slice() {
            [] => format!("Step {} of {last}", k + 1),
            e => format!("Step {} of {last} — finished: {}", k + 1, e.join("; ")),
        }
    };
    let columns = move || {
        let k = step.get();
        lanes.with_value(|ls| ls.iter().map(|l| lane_at(ctx, l, k)).collect::<Vec<_>>())
    };
    let on_key = move |ev: web_sys::KeyboardEvent| step_key(&ev, step, last);
    view! {
        <div class="trace-view">
            {(last > 0).then(|| view! { <StepControl step=step last=last title=title /> })}
            <dl class="trace-summary">{summary}</dl>
            <div class="trace-lanes" tabindex="0" on:keydown=on_key>{columns}</div>
        </div>
    }
    .into_any()
}

/// Steps a lane shows before the current one.
const TRACE_WINDOW: usize = 12;

/// One lane at replay step `k`: its last steps up to k, then its end once reached.
fn lane_at(ctx: Ctx, lane: &view::Lane, k: usize) -> impl IntoView {
    let shown = lane.steps.len().min(k + 1);
    let from = shown.saturating_sub(TRACE_WINDOW);
    let steps = lane.steps[from..shown]
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let current = from + i + 1 == shown && k < lane.steps.len();
            let range = s.range;
            // Selects the subterm the step reduces.
            let jump = move |_| {
                if let Some(r) = range {
                    crate::editor::select(ctx, (r.line, r.col), (r.end_line, r.end_col));
                }
            };
            view! {
                <li class:current=current on:click=jump value=(from + i + 1).to_string()>{s.text.clone()}</li>
            }
        })
        .collect::<Vec<_>>();
    let ended = k >= lane.steps.len();
    let omitted = lane.omitted.map(|n| {
        format!(
            " ({} steps in all; the first {} are listed)",
            n,
            lane.steps.len()
        )
    });
    view! {
        <section class="trace-lane">
            <h3>{lane.title.clone()}</h3>
            <ol class="trace-steps">{steps}</ol>
            {ended.then(|| view! {
                <p class=format!("trace-result result-{}", lane.class)>
                    {format!("⇒ {}", lane.result)}{omitted.clone()}
                </p>
            })}
        </section>
    }
}

/// Asks the analysis for a lattice node's neighbours: its id joins the `expand`
/// setting, so the worker analyses again and the share link keeps the expansion.
fn expand_button(ctx: Ctx, id: String) -> impl IntoView {
    let expand = move |_| {
        ctx.settings.update(|s| {
            let now = s.get(view::EXPAND).map_or("", String::as_str);
            let next = view::expanded_with(now, &id);
            s.insert(view::EXPAND.to_string(), next);
        })
    };
    view! {
        <button type="button" id="expand-pick"
            title="Show this node's neighbours: one more or one fewer position a number"
            on:click=expand>"Expand neighbours"</button>
    }
}

/// The zoom one step in or out (`dir` ±1) from `z`: factors of 1.25 from 10 % to 400 %,
/// so a 2,000-vertex drawing fits a screen and a small one can be read from the back
/// of a classroom. The drawing pans by scrolling.
fn zoomed(z: f64, dir: i32) -> f64 {
    (z * 1.25f64.powi(dir)).clamp(0.1, 4.0)
}

/// `classes[i]`: vertex i's class at the step shown, `None` when it is not built yet.
/// The slider's value as a step (ignored unless a number).
fn set_step(step: RwSignal<usize>, value: &str, last: usize) {
    if let Ok(k) = value.parse::<usize>() {
        step.set(k.min(last));
    }
}

fn svg_of(
    ctx: Ctx,
    zoom: RwSignal<f64>,
    picked: RwSignal<Option<usize>>,
    layout: &view::Drawing,
    vertices: &[view::Vertex],
    edges: &[view::Edge],
    classes: &[Option<String>],
) -> impl IntoView {
    let (w, h) = layout.size;
    let palette = model::Palette::of(vertices.iter().map(|v| v.class.as_str()));
    // Each vertex's index and centre by id, once: looking them up per edge would make a
    // 2,000-vertex graph's drawing quadratic.
    let index: HashMap<&str, usize> = vertices
        .iter()
        .enumerate()
        .map(|(i, v)| (v.id.as_str(), i))
        .collect();
    let centres: HashMap<&str, (usize, (f64, f64))> = layout
        .positions
        .iter()
        .filter_map(|(id, p)| Some((id.as_str(), (*index.get(id.as_str())?, *p))))
        .collect();
    let built = |id: &str| {
        centres
            .get(id)
            .is_some_and(|(i, _)| classes.get(*i).is_some_and(Option::is_some))
    };
    let at = |id: &str| centres.get(id).map(|(_, p)| *p);
    let lines = edges
        .iter()
        .filter(|e| built(&e.from) && built(&e.to))
        .filter_map(|e| {
            let (x1, y1) = at(&e.from)?;
            let (x2, y2) = at(&e.to)?;
            // From the bottom of one box to the top of the other (or the reverse).
            let dy = if y2 >= y1 { 14.0 } else { -14.0 };
            Some(view! {
                <line class="edge" x1=x1 y1=y1 + dy x2=x2 y2=y2 - dy marker-end="url(#arrow)"><title>{e.label.clone()}</title></line>
            })
        })
        .collect::<Vec<_>>();
    let nodes = vertices
        .iter()
        .enumerate()
        .filter_map(|(i, v)| {
            let class = classes.get(i).cloned().flatten()?;
            let (x, y) = at(&v.id)?;
            let w = layout.widths.get(i).copied().unwrap_or(120.0);
            let range = v.range;
            let fill = palette.fill(&class);
            let mut title = if class.is_empty() {
                v.label.clone()
            } else {
                format!("{} (class {class})", v.label)
            };
            if v.expandable {
                title.push_str(" — some neighbours not shown: pick it to expand them");
            }
            let mark = match v.mark {
                Some(view::VertexMark::Checked) => "vertex checked",
                Some(view::VertexMark::Conflict) => "vertex conflict",
                Some(view::VertexMark::Frontier) => "vertex frontier",
                Some(view::VertexMark::Empty) => "vertex empty",
                None => "vertex",
            };
            // The vertices of the statement under the caret stand out.
            let here = move || {
                let caret = ctx.analysed_caret.get();
                range.zip(caret).is_some_and(|(r, c)| r.line <= c && c <= r.end_line)
            };
            Some(view! {
                <g class=mark class:here=here class:picked=move || picked.get() == Some(i)
                    class:expandable=v.expandable data-id=v.id.clone()
                    transform=format!("translate({x},{y})")
                    on:click=move |_| {
                        picked.set(Some(i));
                        if let Some(r) = range { select(ctx, (r.line, r.col), (r.end_line, r.end_col)) }
                    }>
                    <title>{title}</title>
                    <rect x=-w / 2.0 y=-14 width=w height=28 rx=6 style=format!("fill:{fill}") />
                    <text text-anchor="middle" dy="0.35em">{v.label.clone()}</text>
                </g>
            })
        })
        .collect::<Vec<_>>();
    view! {
        <svg class="graph-svg" width=move || w * zoom.get() height=move || h * zoom.get()
            viewBox=format!("0 0 {w} {h}") role="img">
            <defs>
                <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" />
                </marker>
            </defs>
            {lines}
            {nodes}
        </svg>
    }
}

/// Every statement, indented by depth; virtualised like a listing.
#[component]
fn OutlineView() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let list: NodeRef<html::Ul> = NodeRef::new();
    let total = move || ctx.report.with(|r| r.statements.len());
    let rows = rows_in_view(list, OUTLINE_PX, OVERSCAN, total);
    let items = move || {
        let range = rows.get();
        ctx.report.with(|r| {
            r.statements[range.start.min(r.statements.len())..range.end.min(r.statements.len())]
                .iter()
                .map(|s| {
                    let line = s.range.line;
                    let style = format!("padding-left: {}em", 0.5 + 1.25 * s.depth as f32);
                    view! {
                        <li class="outline-item" data-line=line.to_string() data-depth=s.depth.to_string()
                            style=style tabindex="0" on:click=move |_| jump_to(ctx, line, 1)>
                            <span class="kind">{s.kind.clone()}</span>
                            " "<span class="label">{s.label.clone()}</span>
                            {s.nonviable.then(|| view! { " "<span class="unreached">"not reached"</span> })}
                            <span class="lineno">{format!("line {line}")}</span>
                        </li>
                    }
                })
                .collect::<Vec<_>>()
        })
    };
    let style = move || {
        format!(
            "height: {}px; padding-top: {}px",
            total() as f64 * OUTLINE_PX,
            rows.with(|r| r.start) as f64 * OUTLINE_PX
        )
    };
    view! {
        <ul id="outline" node_ref=list style=style>{items}</ul>
        <p class="empty" hidden=move || ctx.report.with(|r| !r.statements.is_empty())>"No statements parsed."</p>
    }
}

/// Every diagnostic with its code and longer help, for reading rather than jumping.
/// Paged like the Problems list (not virtualised: help text makes rows of any height).
#[component]
fn DiagnosticDetails() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let shown = RwSignal::new(PROBLEMS_PAGE);
    let total = move || ctx.report.with(|r| r.diagnostics.len());
    let items = move || {
        ctx.report.with(|r| {
            ctx.messages.with(|messages| {
            r.diagnostics
                .iter()
                .zip(messages)
                .take(shown.get())
                .map(|(d, m)| {
                    let (line, col) = (d.range.line, d.range.col);
                    let sev = d.severity.as_str();
                    let notation = ctx.notation.get();
                    let fix = fix_button(ctx, d, ctx.fresh.get());
                    let legend = m
                        .legend
                        .iter()
                        .map(|l| view! { <div class="legend-line">{notation.rewrite(l)}</div> })
                        .collect::<Vec<_>>();
                    view! {
                        <li class=format!("detail {sev}") tabindex="0" on:click=move |_| jump_to(ctx, line, col)
                            on:keydown=move |ev: web_sys::KeyboardEvent| if ev.key() == "Enter" { jump_to(ctx, line, col) }>
                            <div class="detail-head">
                                <span class=format!("sev sev-{sev}")>{sev}</span>
                                <code>{d.code.clone()}</code>
                                <span class="pos">{format!("line {line}, column {col}")}</span>
                            </div>
                            <div class="msg">{notation.rewrite(&m.text)}</div>
                            {legend}
                            {fix}
                            {d.help.as_deref().map(|h| view! { <div class="help">{notation.rewrite(h)}</div> })}
                        </li>
                    }
                })
                .collect::<Vec<_>>()
            })
        })
    };
    view! {
        <ul class="diagnostic-details">{items}</ul>
        <div class="more" hidden=move || { shown.get() >= total() }>
            <button on:click=move |_| shown.update(|n| *n += PROBLEMS_PAGE)>
                {move || format!("Show {} more diagnostics (of {})", PROBLEMS_PAGE.min(total().saturating_sub(shown.get())), total())}
            </button>
        </div>
        <p class="empty" hidden=move || ctx.report.with(|r| !r.diagnostics.is_empty())>"No diagnostics: nothing to report."</p>
    }
}
