//! The editor: a transparent `<textarea id="editor">` over a highlighted `<pre>`.
//! The textarea owns text, caret and native undo; the layer underneath paints
//! tokens, diagnostic underlines and shape notes. Both share one scroll container
//! and identical metrics, so no scroll syncing is needed. Also the Problems list.
//!
//! The layer and the gutter are virtualised: they paint only the lines in the scroll
//! container's visible window plus [`OVERSCAN`] lines each side, padded above so they
//! line up with the textarea, and sized (height from the line count, width from the
//! widest line) as if every line were there. The window is recomputed on scroll, once
//! per animation frame; a keystroke re-tokenises only the painted lines.

use crate::app::Ctx;
use crate::model::{self, LineModel};
use crate::{browser, text};
use leptos::html;
use leptos::prelude::*;

/// Padding of the textarea and the highlight layer, in CSS pixels (style.css `--pad`).
const PAD: f64 = 10.0;
/// Records the caret's line in [`Ctx::caret_line`] (graph views highlight the
/// vertices of the statement there); set only when it changes.
pub fn note_caret(ctx: Ctx) {
    let Some(el) = ctx.editor.get_untracked() else {
        return;
    };
    let offset = el.selection_start().ok().flatten().unwrap_or(0);
    let line = ctx.code.with_untracked(|c| text::line_of_utf16(c, offset));
    if ctx.caret_line.get_untracked() != line {
        ctx.caret_line.set(line);
    }
}

/// Height of an editor line, in CSS pixels (style.css `--lh`).
const LH: f64 = 20.0;
/// Lines painted above and below the visible ones.
const OVERSCAN: usize = 50;

/// The report's hover under the pointer (a VEC subterm's type), while the report is of
/// the text on screen: spans of an older text would point at other characters.
fn term_hover(ctx: Ctx, line: u32, col: usize) -> Option<String> {
    ctx.report.with_untracked(|r| {
        if r.hovers.is_empty() {
            return None;
        }
        ctx.code.with_untracked(|c| {
            let current = ctx.analysed.with_untracked(|a| a == c);
            current
                .then(|| model::term_hover(&r.hovers, c, &model::LineIndex::new(c), line, col))?
        })
    })
}

/// The rule of the builtin whose call is under the pointer, while the report is of
/// the text on screen.
fn ref_hover(ctx: Ctx, index: &model::LineIndex, line: u32, col: usize) -> Option<String> {
    ctx.report.with_untracked(|r| {
        ctx.code.with_untracked(|c| {
            let current = ctx.analysed.with_untracked(|a| a == c);
            current.then(|| model::ref_hover(r, c, index, line, col))?
        })
    })
}

/// Focuses the editor with the caret at 1-based `line`/`col` and scrolls it into view.
pub fn jump_to(ctx: Ctx, line: u32, col: u32) {
    select(ctx, (line, col), (line, col));
}

/// Focuses the editor with the text from `start` to `end` (1-based line, column, in
/// the analysed text: every caller's positions come from the report) selected, and
/// scrolls its start into view. Lines moved since follow the edit; a line edited since
/// keeps its number.
pub fn select(ctx: Ctx, start: (u32, u32), end: (u32, u32)) {
    let Some(el) = ctx.editor.get_untracked() else {
        return;
    };
    let shift = ctx.shift.get_untracked();
    let moved = |(line, col): (u32, u32)| (shift.map(line).unwrap_or(line), col);
    let (start, end) = (moved(start), moved(end));
    let (line, col) = start;
    let (from, to) = ctx.code.with_untracked(|c| {
        (
            text::utf16_offset(c, line, col),
            text::utf16_offset(c, end.0, end.1),
        )
    });
    let opts = web_sys::FocusOptions::new();
    opts.set_prevent_scroll(true);
    let _ = el.focus_with_options(&opts);
    let _ = el.set_selection_range(from, to.max(from));
    note_caret(ctx);
    // The line may not be painted (the layer is virtualised): its place follows from
    // the line height. Centre it vertically; scroll sideways only if the column is off
    // screen (the gutter covers the left of the scroller).
    let Ok(Some(scroller)) = el.closest(".editor-scroll") else {
        return;
    };
    let height = scroller.client_height() as f64;
    let top = PAD + (line.max(1) - 1) as f64 * LH - (height - LH) / 2.0;
    scroller.set_scroll_top(top.max(0.0) as i32);
    let column = ctx.code.with_untracked(|c| {
        let text = c.split('\n').nth(line.max(1) as usize - 1).unwrap_or("");
        let before: String = text.chars().take(col.max(1) as usize - 1).collect();
        text::visual_width(&before, model::TAB)
    });
    let probe = document()
        .query_selector(".editor-scroll .probe")
        .ok()
        .flatten();
    let cw = probe.map_or(8.0, |p| p.get_bounding_client_rect().width() / 10.0);
    let gutter = document()
        .query_selector(".editor-scroll .gutter")
        .ok()
        .flatten()
        .map_or(0.0, |g| g.get_bounding_client_rect().width());
    let x = PAD + column as f64 * cw;
    let (left, width) = (
        scroller.scroll_left() as f64,
        scroller.client_width() as f64 - gutter,
    );
    if x < left + cw || x > left + width - 2.0 * cw {
        scroller.set_scroll_left((x - width / 2.0).max(0.0) as i32);
    }
}

#[component]
pub fn Editor(initial_code: String) -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let language = ctx.language();
    let index = Memo::new(move |_| ctx.code.with(|c| model::LineIndex::new(c)));
    // The scroller's (scrollTop, clientHeight), measured once per frame while scrolling.
    let viewport = RwSignal::new((0.0, 1000.0));
    let range = Memo::new(move |previous| {
        let (top, height) = viewport.get();
        let total = index.with(model::LineIndex::len);
        model::window(previous, top - PAD, height, LH, total, OVERSCAN)
    });
    // Notes and markers of an older result follow their lines, and lines being
    // edited show none.
    let shift = ctx.shift;
    let lines = Memo::new(move |_| {
        let notation = ctx.notation.get();
        let range = range.get();
        let shift = shift.get();
        ctx.lang.with(|lang| {
            ctx.code.with(|c| {
                index.with(|i| {
                    ctx.report.with(|r| {
                        ctx.messages.with(|m| {
                            model::editor_lines(
                                c,
                                i,
                                range,
                                lang,
                                model::Painted {
                                    report: r,
                                    messages: m,
                                    shift: &shift,
                                },
                                notation,
                            )
                        })
                    })
                })
            })
        })
    });
    let hovers = Memo::new(move |_| {
        ctx.code
            .with(|c| index.with(|i| lines.with(|l| model::hover_targets(c, i, l))))
    });
    let probe: NodeRef<html::Span> = NodeRef::new();
    let scroller: NodeRef<html::Div> = NodeRef::new();
    let measure = move || {
        if let Some(s) = scroller.get_untracked() {
            let v = (s.scroll_top() as f64, s.client_height() as f64);
            if viewport.get_untracked() != v {
                viewport.set(v);
            }
        }
    };
    let on_scroll = browser::once_per_frame(measure);
    // Once mounted, and whenever the window is resized.
    Effect::new(move |_| {
        if scroller.get().is_some() {
            measure();
        }
    });
    let resize = window_event_listener(leptos::ev::resize, move |_| measure());
    on_cleanup(move || resize.remove());
    // Full height and width as if every line were painted; the painted window starts
    // below a padding of the lines above it.
    let first_px = move || PAD + range.with(|r| r.start) as f64 * LH;
    let layer_style = move || {
        let (total, widest) = index.with(|i| (i.len(), i.widest));
        format!(
            "height: {}px; padding-top: {}px; min-width: calc({}ch + {}px)",
            total as f64 * LH + 2.0 * PAD,
            first_px(),
            widest + 1,
            2.0 * PAD
        )
    };
    let gutter_style = move || {
        let digits = index.with(|i| i.len().to_string().len()).max(2);
        format!("padding-top: {}px; --digits: {digits}ch", first_px())
    };

    // Esc, then Tab, leaves the editor (Tab alone indents): the keyboard way out.
    let escaped = StoredValue::new(false);
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        let plain = !ev.ctrl_key() && !ev.meta_key() && !ev.alt_key() && !ev.shift_key();
        let key = ev.key();
        if escaped.get_value() && key == "Tab" {
            escaped.set_value(false);
            return;
        }
        escaped.set_value(key == "Escape");
        match key.as_str() {
            "Tab" if plain => {
                ev.prevent_default();
                browser::insert_text_at_caret("    ");
            }
            // Enter keeps the current line's indentation.
            "Enter" if plain => {
                let Some(el) = ctx.editor.get_untracked() else {
                    return;
                };
                let caret = el.selection_start().ok().flatten().unwrap_or(0);
                let indent = text::indent_before(&el.value(), caret);
                if !indent.is_empty() && browser::insert_text_at_caret(&format!("\n{indent}")) {
                    ev.prevent_default();
                }
            }
            _ => {}
        }
    };
    let on_mousemove = move |ev: web_sys::MouseEvent| {
        let (Some(el), Some(probe)) = (ctx.editor.get_untracked(), probe.get_untracked()) else {
            return;
        };
        let p = probe.get_bounding_client_rect();
        let (cw, lh) = (p.width() / 10.0, p.height());
        let r = el.get_bounding_client_rect();
        let (x, y) = (
            ev.client_x() as f64 - r.left() - PAD,
            ev.client_y() as f64 - r.top() - PAD,
        );
        let tip = if x < 0.0 || y < 0.0 || cw <= 0.0 || lh <= 0.0 {
            None
        } else {
            let (line, col) = ((y / lh) as u32 + 1, (x / cw) as usize);
            hovers
                .with_untracked(|h| {
                    h.iter()
                        .find(|t| t.line == line && (t.start..t.end).contains(&col))
                        .map(|t| t.text.clone())
                })
                .or_else(|| term_hover(ctx, line, col))
                .or_else(|| index.with_untracked(|i| ref_hover(ctx, i, line, col)))
        };
        let tip = tip.unwrap_or_default();
        if el.title() != tip {
            el.set_title(&tip);
        }
    };

    view! {
        <div class="editor-scroll" node_ref=scroller on:scroll=move |_| on_scroll()>
            <div class="editor-inner">
                <div class="gutter" aria-hidden="true" style=gutter_style>
                    <For each=move || lines.get() key=|l| (l.no, l.marker.clone()) children=gutter_line />
                </div>
                <div class="code-area">
                    <pre class="highlight" aria-hidden="true" style=layer_style>
                        <For each=move || lines.get() key=|l| l.clone() children=code_line />
                    </pre>
                    <span class="probe" aria-hidden="true" node_ref=probe>"0000000000"</span>
                    <textarea
                        id="editor"
                        node_ref=ctx.editor
                        aria-label=move || language.with(|l| format!("{} source (Esc then Tab leaves the editor)", l.name))
                        spellcheck="false"
                        autocomplete="off"
                        autocapitalize="off"
                        wrap="off"
                        prop:value=initial_code
                        on:input=move |ev| {
                            let new = event_target_value(&ev);
                            // A paste over the whole text is a new program: it takes the
                            // language's default settings (not an example's paper mode).
                            let whole = !ctx.replacing.get_value()
                                && ctx.code.with_untracked(|old| model::replaces_whole_text(old, &new));
                            if whole && ctx.settings.with_untracked(|s| !s.is_empty()) {
                                ctx.settings.set(Default::default());
                            }
                            ctx.code.set(new);
                            ctx.example.set(String::new());
                        }
                        on:paste=move |ev: web_sys::ClipboardEvent| long_paste(ctx, ev)
                        on:keydown=on_keydown
                        on:keyup=move |_| note_caret(ctx)
                        on:mouseup=move |_| note_caret(ctx)
                        on:mousemove=on_mousemove
                    ></textarea>
                </div>
            </div>
        </div>
    }
}

fn gutter_line(l: LineModel) -> impl IntoView {
    let (class, title) = match &l.marker {
        Some((sev, msg)) => (format!("gutter-line has-{sev}"), Some(msg.clone())),
        None => ("gutter-line".to_string(), None),
    };
    view! {
        <div class=class title=title>
            <span class="marker"></span>
            <span class="lineno">{l.no}</span>
        </div>
    }
}

/// One highlighted line; text goes in as text nodes, never as HTML.
fn code_line(l: LineModel) -> impl IntoView {
    let segs = l
        .segs
        .into_iter()
        .map(|s| view! { <span class=s.class title=s.title>{s.text}</span> })
        .collect::<Vec<_>>();
    let notes = (!l.notes.is_empty()).then(|| {
        let items = l
            .notes
            .into_iter()
            .enumerate()
            .map(|(i, n)| {
                let sep = if i == 0 { "" } else { "  " };
                view! { {sep}<span class=format!("note {}", n.class) title=n.title>{n.text}</span> }
            })
            .collect::<Vec<_>>();
        view! { <span class="notes">{model::note_gap()}{items}</span> }
    });
    // A line no execution reaches is greyed (`.line.nonviable`).
    let class = if l.nonviable {
        "line nonviable"
    } else {
        "line"
    };
    view! { <div class=class>{segs}{notes}</div> }
}

/// One row of the Problems list: where, how bad, the message with its aliases (their
/// legend and the help in the tooltip), and the suggested fix as a button.
fn problem(
    ctx: Ctx,
    d: &shapex::Diagnostic,
    m: &model::ShownMessage,
    notation: shapex::report::Notation,
    (fixable, repro): (bool, Option<&shapex::report::Fix>),
) -> impl IntoView {
    let (line, col) = (d.range.line, d.range.col);
    let sev = d.severity.as_str();
    let mut title = m
        .legend
        .iter()
        .map(|l| notation.rewrite(l))
        .collect::<Vec<_>>();
    title.extend(d.help.as_deref().map(|h| notation.rewrite(h)));
    let fix = fix_button(ctx, d, fixable);
    let repro = repro.filter(|_| fixable).cloned().map(|r| {
        view! {
            <button class="fix repro" title=format!("Write into the file (Ctrl+Z undoes it):\n{}", r.replacement)
                on:click=move |ev| { ev.stop_propagation(); apply_fix(ctx, &r); }>"Write repro"</button>
        }
    });
    view! {
        <li class=format!("diagnostic {sev}") data-line=line.to_string() data-col=col.to_string()
            data-code=d.code.clone() title=title.join("\n") tabindex="0"
            on:click=move |_| jump_to(ctx, line, col)
            on:keydown=move |ev: web_sys::KeyboardEvent| if ev.key() == "Enter" { jump_to(ctx, line, col) }>
            <span class="pos">{format!("{line}:{col}")}</span>
            " "<span class=format!("sev sev-{sev}")>{sev}</span>
            " "<span class="msg">{notation.rewrite(&m.text)}</span>
            {fix}{repro}
        </li>
    }
}

/// The witness of the statement on the caret's line, first in the Problems list:
/// `li.caret-witness` (not a `li.diagnostic`: it is no problem) with the sizes under which it fails and passes and, where
/// the language builds one, a Write repro button. Only for a result of the text on
/// screen, since the repro's place is in that text.
#[component]
fn CaretWitness() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let found = move || {
        let line = ctx.analysed_caret.get()?;
        if !ctx.fresh.get() {
            return None;
        }
        ctx.report.with(|r| {
            let s = r
                .statements
                .iter()
                .find(|s| s.range.line == line && s.witness.is_some())?;
            let w = s.witness.as_ref()?;
            Some((line, s.range.col, w.text(), w.repro.clone()))
        })
    };
    move || {
        found().map(|(line, col, text, repro)| {
            let repro = repro.map(|r| {
                view! {
                    <button class="fix repro" title=format!("Write into the file (Ctrl+Z undoes it):\n{}", r.replacement)
                        on:click=move |ev| { ev.stop_propagation(); apply_fix(ctx, &r); }>"Write repro"</button>
                }
            });
            view! {
                <li class="caret-witness" data-line=line.to_string()
                    title="Sizes found by the solver and re-checked by the analysis: the statement on the caret's line fails under the first and passes under the second.">
                    <span class="pos">{format!("{line}:{col}")}</span>
                    " "<span class="sev sev-witness">"witness"</span>
                    " "<span class="msg">{text}</span>
                    {repro}
                </li>
            }
        })
    }
}

/// The repro of the statement a diagnostic is on (its witness's, `--witness`).
fn repro_of<'r>(r: &'r shapex::Report, d: &shapex::Diagnostic) -> Option<&'r shapex::report::Fix> {
    r.statements
        .iter()
        .find(|s| s.span.start <= d.span.start && d.span.start < s.span.end.max(s.span.start + 1))
        .and_then(|s| s.witness.as_ref()?.repro.as_ref())
}

/// The button that applies a diagnostic's suggested fix, when it has one and the
/// result is about the current text.
pub fn fix_button(ctx: Ctx, d: &shapex::Diagnostic, fixable: bool) -> Option<impl IntoView> {
    d.fix.clone().filter(|_| fixable).map(|fix| {
        let label = format!("Fix: {}", fix.title);
        view! {
            <button class="fix" title=format!("Replace with {}", fix.replacement)
                on:click=move |ev| { ev.stop_propagation(); apply_fix(ctx, &fix); }>{label}</button>
        }
    })
}

/// Applies a suggested fix as an edit of the textarea (so Ctrl+Z undoes it).
pub fn apply_fix(ctx: Ctx, fix: &shapex::report::Fix) {
    let Some(el) = ctx.editor.get_untracked() else {
        return;
    };
    let (start, end) = ctx.code.with_untracked(|c| {
        (
            text::utf16_offset(c, fix.range.line, fix.range.col),
            text::utf16_offset(c, fix.range.end_line, fix.range.end_col),
        )
    });
    let _ = el.focus();
    let _ = el.set_selection_range(start, end);
    if !browser::insert_text_at_caret(&fix.replacement) {
        let _ = el.set_range_text_with_start_and_end(&fix.replacement, start, end);
        ctx.code.set(el.value());
    }
}

/// Problems listed at first, and added per "show more". Not virtualised like the other
/// long lists: a problem's message wraps to several lines, so rows have no fixed
/// height; a page bounds the work when a long file has thousands of problems.
pub const PROBLEMS_PAGE: usize = 200;

/// The Problems list under the editor: `ul#diagnostics > li.diagnostic`, then a
/// `li.more` button while some are not listed.
#[component]
pub fn ProblemsList() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let shown = RwSignal::new(PROBLEMS_PAGE);
    let total = move || ctx.report.with(|r| r.diagnostics.len());
    // A verdict about an older text is not shown as the current one, and its fixes
    // (spans in the older text) are not offered.
    let fresh = ctx.fresh;
    let items = move || {
        let notation = ctx.notation.get();
        let fixable = fresh.get();
        ctx.report.with(|r| {
            ctx.messages.with(|messages| {
                r.diagnostics
                    .iter()
                    .zip(messages)
                    .take(shown.get())
                    .map(|(d, m)| problem(ctx, d, m, notation, (fixable, repro_of(r, d))))
                    .collect::<Vec<_>>()
            })
        })
    };
    let (status_text, status_class) = (
        move || {
            if fresh.get() {
                ctx.report.with(model::status).0
            } else {
                "analysing…".to_string()
            }
        },
        move || {
            let class = if fresh.get() {
                ctx.report.with(model::status).1
            } else {
                "pending"
            };
            format!("status status-{class}")
        },
    );
    view! {
        <div class="problems">
            <div class="problems-head">
                <h2>"Problems"</h2>
                <span id="status" class=status_class role="status">{status_text}</span>
            </div>
            <ul id="diagnostics">
                <CaretWitness />
                {items}
                <li class="more" hidden=move || { shown.get() >= total() }>
                    <button on:click=move |_| shown.update(|n| *n += PROBLEMS_PAGE)>
                        {move || format!("Show {} more problems (of {})", PROBLEMS_PAGE.min(total().saturating_sub(shown.get())), total())}
                    </button>
                </li>
            </ul>
        </div>
    }
}

/// A paste of more than `browser::MAX_UNDOABLE_LINES` lines is spliced in by the page
/// instead of the browser: Chromium's own insertion takes time quadratic in the lines
/// (16 s for 3,600), freezing the page. Such a paste is not on the native undo stack,
/// so the text it changes is set aside behind "Restore your previous code" first.
fn long_paste(ctx: Ctx, ev: web_sys::ClipboardEvent) {
    let Some(text) = ev.clipboard_data().and_then(|d| d.get_data("text").ok()) else {
        return;
    };
    if text.lines().count() <= browser::MAX_UNDOABLE_LINES {
        return;
    }
    let Some(el) = ctx.editor.get_untracked() else {
        return;
    };
    ev.prevent_default();
    ctx.set_aside_work();
    let value = el.value();
    let (start, end) = (
        el.selection_start().ok().flatten().unwrap_or(0),
        el.selection_end().ok().flatten().unwrap_or(0),
    );
    let (new, caret) = crate::text::splice_utf16(&value, start, end, &text);
    el.set_value(&new);
    let _ = el.set_selection_range(caret, caret);
    // The page's own input handler takes it from here, as for any edit.
    if let Ok(input) = web_sys::Event::new_with_event_init_dict("input", &{
        let init = web_sys::EventInit::new();
        init.set_bubbles(true);
        init
    }) {
        let _ = el.dispatch_event(&input);
    }
}
