//! The right-hand views, as tabs: the selected language's views (from its
//! `LanguageInfo`), then the views every language has (Outline, Diagnostics). Each
//! language view renders its payload with the one component for the payload's kind, so
//! a new language needs no code here. Only the selected tab renders; the others are
//! empty `hidden` sections, so hidden tabs cost nothing.

use crate::app::Ctx;
use crate::editor::jump_to;
use crate::model;
use crate::state::GENERIC_VIEWS;
use leptos::prelude::*;
use shapex::report::view::{self, CellValue, Payload};

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
    // A view id the language does not offer (an old link) shows its first tab.
    let selected = Memo::new(move |_| {
        let v = ctx.view.get();
        tabs.with(|t| {
            if t.iter().any(|(id, ..)| *id == v) {
                v
            } else {
                t[0].0.to_string()
            }
        })
    });
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
    view! {
        <nav class="tabs" role="tablist">{buttons}</nav>
        <div class="view-body">{panels}</div>
    }
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
    let payload = Memo::new(move |_| ctx.report.with(|r| r.view(id).cloned()));
    move || match payload.get() {
        None => view! { <p class="empty">{empty}</p> }.into_any(),
        Some(Payload::Table(t)) => view! { <TableView table=t empty=empty /> }.into_any(),
        Some(Payload::Text(t)) => {
            let marker = t.marker.clone();
            view! { <Listing lines=text_lines(&t.text, marker.as_deref()) empty=empty /> }
                .into_any()
        }
        Some(Payload::AnnotatedSource(a)) => {
            // Notes refer to the text that was analysed, not to newer keystrokes.
            let lines = ctx.analysed.with_untracked(|c| annotated_lines(c, &a));
            view! { <Listing lines=lines empty=empty /> }.into_any()
        }
        Some(Payload::Graph(g)) => {
            view! { <GraphView vertices=g.vertices edges=g.edges empty=empty /> }.into_any()
        }
        Some(Payload::Lattice(l)) => {
            view! { <GraphView vertices=l.nodes edges=l.covers upwards=true empty=empty /> }
                .into_any()
        }
    }
}

/// Rows of a table rendered at a time: a 10,000-line file has thousands of rows and
/// columns, so a page shows [`TABLE_PAGE`] rows and only the columns those rows set.
const TABLE_PAGE: usize = 100;

#[component]
fn TableView(table: view::Table, empty: &'static str) -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    if table.rows.is_empty() {
        return view! { <p class="empty">{empty}</p> }.into_any();
    }
    let total = table.rows.len();
    let page = RwSignal::new(0usize);
    let pages = total.div_ceil(TABLE_PAGE);
    let table = StoredValue::new(table);
    let content = move || {
        let notation = ctx.notation.get();
        let start = page.get() * TABLE_PAGE;
        let range = start..(start + TABLE_PAGE).min(total);
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
            let body = t
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
                                    CellValue::Text(t) => t.clone(),
                                };
                                let class = format!(
                                    "{} {}",
                                    cell.class,
                                    if here { "here" } else { "carried" }
                                );
                                view! { <td class=class title=cell.title.clone()>{text}</td> }
                                    .into_any()
                            }
                            None => view! { <td class="absent"></td> }.into_any(),
                        })
                        .collect::<Vec<_>>();
                    view! {
                        <tr>
                            <th scope="row" class="stmt" on:click=move |_| jump_to(ctx, line, 1)>
                                <span class="lineno">{line}</span>" "{row.label.clone()}
                            </th>
                            {cells}
                        </tr>
                    }
                })
                .collect::<Vec<_>>();
            view! {
                <table class="shapes">
                    <thead><tr><th scope="col">"statement"</th>{head}</tr></thead>
                    <tbody>{body}</tbody>
                </table>
            }
        })
    };
    view! {
        <div class="pager" hidden=move || { pages <= 1 }>
            <button class="prev" disabled=move || page.get() == 0 on:click=move |_| page.update(|p| *p -= 1)>"◀ earlier"</button>
            <span class="page">{move || format!("rows {}–{} of {total}", page.get() * TABLE_PAGE + 1, ((page.get() + 1) * TABLE_PAGE).min(total))}</span>
            <button class="next" disabled=move || page.get() + 1 >= pages on:click=move |_| page.update(|p| *p += 1)>"later ▶"</button>
        </div>
        {content}
    }
    .into_any()
}

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

fn annotated_lines(source: &str, a: &view::AnnotatedSource) -> Vec<ListingLine> {
    let classes: std::collections::HashMap<&str, &str> = a
        .notes
        .iter()
        .map(|n| (n.text.as_str(), model::note_class(&n.class)))
        .collect();
    a.render(source)
        .lines()
        .map(|l| {
            let class = classes.get(l.trim_start()).copied().unwrap_or("code-line");
            (l.to_string(), class)
        })
        .collect()
}

/// Lines of a listing built at first; the rest on request, so opening the IR or Checks
/// of a 10,000-line file does not build hundreds of thousands of nodes at once.
const LISTING_PAGE: usize = 2_000;

/// A read-only listing; inserted lines (checks) are emphasised.
#[component]
fn Listing(lines: Vec<ListingLine>, empty: &'static str) -> impl IntoView {
    if lines.iter().all(|(l, _)| l.trim().is_empty()) {
        return view! { <p class="empty">{empty}</p> }.into_any();
    }
    let total = lines.len();
    let shown = RwSignal::new(LISTING_PAGE);
    let lines = StoredValue::new(lines);
    let body = move || {
        lines.with_value(|ls| {
            ls.iter()
                .take(shown.get())
                .map(|(l, class)| view! { <div class=*class>{l.clone()}</div> })
                .collect::<Vec<_>>()
        })
    };
    view! {
        <pre class="listing">{body}</pre>
        <div class="pager" hidden=move || { shown.get() >= total }>
            <button class="more" on:click=move |_| shown.update(|n| *n += LISTING_PAGE)>
                {move || format!("Show {} more lines (of {total})", LISTING_PAGE.min(total.saturating_sub(shown.get())))}
            </button>
        </div>
    }
    .into_any()
}

/// A graph or a lattice as SVG, vertices in layers by longest path from a source (see
/// `model::layered_layout`); a lattice is drawn as a Hasse diagram, covers pointing
/// upwards. Clicking a vertex with a source line jumps there.
#[component]
fn GraphView(
    vertices: Vec<view::Vertex>,
    edges: Vec<view::Edge>,
    #[prop(optional)] upwards: bool,
    empty: &'static str,
) -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    if vertices.is_empty() {
        return view! { <p class="empty">{empty}</p> }.into_any();
    }
    let mut layout = model::layered_layout(&vertices, &edges);
    if upwards {
        layout = layout.flipped();
    }
    let svg = svg_of(ctx, &layout, &vertices, &edges);
    view! { <div class="graph" class:lattice=upwards>{svg}</div> }.into_any()
}

fn svg_of(
    ctx: Ctx,
    layout: &model::Layout,
    vertices: &[view::Vertex],
    edges: &[view::Edge],
) -> impl IntoView {
    let (w, h) = layout.size;
    let lines = edges
        .iter()
        .filter_map(|e| {
            let (x1, y1) = layout.position(&e.from)?;
            let (x2, y2) = layout.position(&e.to)?;
            Some(view! {
                <line class="edge" x1=x1 y1=y1 x2=x2 y2=y2 marker-end="url(#arrow)"><title>{e.label.clone()}</title></line>
            })
        })
        .collect::<Vec<_>>();
    let nodes = vertices
        .iter()
        .filter_map(|v| {
            let (x, y) = layout.position(&v.id)?;
            let line = v.line;
            Some(view! {
                <g class=format!("vertex {}", v.class) transform=format!("translate({x},{y})")
                    on:click=move |_| if let Some(l) = line { jump_to(ctx, l, 1) }>
                    <rect x=-60 y=-14 width=120 height=28 rx=6 />
                    <text text-anchor="middle" dy="0.35em">{v.label.clone()}</text>
                </g>
            })
        })
        .collect::<Vec<_>>();
    view! {
        <svg class="graph-svg" width=w height=h viewBox=format!("0 0 {w} {h}") role="img">
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

#[component]
fn OutlineView() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let shown = RwSignal::new(LISTING_PAGE);
    let total = move || ctx.report.with(|r| r.statements.len());
    let items = move || {
        ctx.report.with(|r| {
            r.statements
                .iter()
                .take(shown.get())
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
    view! {
        <ul id="outline">{items}</ul>
        <div class="pager" hidden=move || { shown.get() >= total() }>
            <button class="more" on:click=move |_| shown.update(|n| *n += LISTING_PAGE)>
                {move || format!("Show more statements ({} of {} shown)", shown.get().min(total()), total())}
            </button>
        </div>
        <p class="empty" hidden=move || ctx.report.with(|r| !r.statements.is_empty())>"No statements parsed."</p>
    }
}

/// Every diagnostic with its code and longer help, for reading rather than jumping.
#[component]
fn DiagnosticDetails() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let items = move || {
        ctx.report.with(|r| {
            r.diagnostics
                .iter()
                .map(|d| {
                    let (line, col) = (d.range.line, d.range.col);
                    let sev = d.severity.as_str();
                    view! {
                        <li class=format!("detail {sev}") on:click=move |_| jump_to(ctx, line, col)>
                            <div class="detail-head">
                                <span class=format!("sev sev-{sev}")>{sev}</span>
                                <code>{d.code.clone()}</code>
                                <span class="pos">{format!("line {line}, column {col}")}</span>
                            </div>
                            <div class="msg">{d.message.clone()}</div>
                            {d.help.clone().map(|h| view! { <div class="help">{h}</div> })}
                        </li>
                    }
                })
                .collect::<Vec<_>>()
        })
    };
    view! {
        <ul class="diagnostic-details">{items}</ul>
        <p class="empty" hidden=move || ctx.report.with(|r| !r.diagnostics.is_empty())>"No diagnostics: nothing to report."</p>
    }
}
