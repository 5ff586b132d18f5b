//! The right-hand views: Shapes, Checks, IR, Outline and Diagnostics, as tabs. Each
//! renders one part of the Report; all stay in the DOM and inactive ones are
//! `hidden`, so switching is instant and tests can find them.

use crate::app::Ctx;
use crate::editor::jump_to;
use crate::model;
use crate::state::View;
use leptos::prelude::*;

#[component]
pub fn Views(ctx: Ctx) -> impl IntoView {
    let tabs = View::ALL
        .into_iter()
        .map(|v| {
            view! {
                <button id=format!("tab-{}", v.as_str()) class="tab" role="tab" data-view=v.as_str()
                    class:active=move || ctx.view.get() == v
                    aria-selected=move || (ctx.view.get() == v).to_string()
                    on:click=move |_| ctx.view.set(v)>
                    {v.title()}
                </button>
            }
        })
        .collect::<Vec<_>>();
    let panel = move |v: View| move || ctx.view.get() != v;
    view! {
        <nav class="tabs" role="tablist">{tabs}</nav>
        <div class="view-body">
            <section class="view" id="view-shapes" hidden=panel(View::Shapes)><ShapesView ctx=ctx /></section>
            <section class="view" id="view-checks" hidden=panel(View::Checks)>
                <CodeView text=Signal::derive(move || ctx.report.with(|r| r.checks.clone()))
                    empty="No conformance checks to show yet: once the analysis runs, the program appears here with the checks it could not discharge marked ▶ (Joisha et al., Figures 4–6)." />
            </section>
            <section class="view" id="view-ir" hidden=panel(View::Ir)>
                <CodeView text=Signal::derive(move || ctx.report.with(|r| r.ir.clone()))
                    empty="No IR yet: the lowered three-address program (Tamer IR) appears here once lowering runs." />
            </section>
            <section class="view" id="view-outline" hidden=panel(View::Outline)><OutlineView ctx=ctx /></section>
            <section class="view" id="view-diagnostics" hidden=panel(View::Diagnostics)><DiagnosticDetails ctx=ctx /></section>
        </div>
    }
}

#[component]
fn ShapesView(ctx: Ctx) -> impl IntoView {
    let table = Memo::new(move |_| {
        let n = ctx.notation.get();
        ctx.report.with(|r| model::shape_table(r, n))
    });
    move || {
        let (vars, rows) = table.get();
        if rows.is_empty() {
            return view! {
                <p class="empty">"No shapes yet. Shapes of the variables each statement defines appear here, coloured by their conformance check: "
                    <span class="chip check-proven">"proven"</span>" "<span class="chip check-runtime">"run-time check"</span>" "
                    <span class="chip check-error">"error"</span>" "<span class="chip check-none">"no condition"</span></p>
            }
            .into_any();
        }
        let head = vars
            .into_iter()
            .map(|v| view! { <th scope="col">{v}</th> })
            .collect::<Vec<_>>();
        let body = rows
            .into_iter()
            .map(|row| {
                let line = row.line;
                let cells = row
                    .cells
                    .into_iter()
                    .map(|c| match c {
                        Some(c) => {
                            let class = format!(
                                "{} {}",
                                c.class,
                                if c.defined_here { "here" } else { "carried" }
                            );
                            view! { <td class=class title=c.title>{c.text}</td> }.into_any()
                        }
                        None => view! { <td class="absent"></td> }.into_any(),
                    })
                    .collect::<Vec<_>>();
                view! {
                    <tr>
                        <th scope="row" class="stmt" on:click=move |_| jump_to(ctx, line, 1)>
                            <span class="lineno">{line}</span>" "{row.label}
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
        .into_any()
    }
}

/// A read-only program listing; `▶` lines (inserted checks) are emphasised.
#[component]
fn CodeView(text: Signal<String>, empty: &'static str) -> impl IntoView {
    move || {
        let t = text.get();
        if t.trim().is_empty() {
            return view! { <p class="empty">{empty}</p> }.into_any();
        }
        let lines = t
            .lines()
            .map(|l| {
                let class = if l.trim_start().starts_with('▶') {
                    "code-line inserted"
                } else {
                    "code-line"
                };
                view! { <div class=class>{l.to_string()}</div> }
            })
            .collect::<Vec<_>>();
        view! { <pre class="listing">{lines}</pre> }.into_any()
    }
}

#[component]
fn OutlineView(ctx: Ctx) -> impl IntoView {
    let items = move || {
        ctx.report.with(|r| {
            r.statements
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
    view! {
        <ul id="outline">{items}</ul>
        <p class="empty" hidden=move || ctx.report.with(|r| !r.statements.is_empty())>"No statements parsed."</p>
    }
}

/// Every diagnostic with its code and longer help, for reading rather than jumping.
#[component]
fn DiagnosticDetails(ctx: Ctx) -> impl IntoView {
    let items = move || {
        ctx.report.with(|r| {
            r.diagnostics
                .iter()
                .map(|d| {
                    let (line, col) = (d.range.line, d.range.col);
                    let sev = model::severity_class(d.severity);
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
