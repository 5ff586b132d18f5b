//! The file tabs above the editor: one per file of the program, the active one's text
//! in the editor. Other files are what the active one's calls may run (MATLAB's
//! `helper(x)` runs `helper.m`); a language that reads no other file ignores them.

use crate::app::Ctx;
use crate::state::{check_name, fresh_name, File};
use leptos::html;
use leptos::prelude::*;

#[component]
pub fn FileTabs() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    // The tab being renamed, and why the last name was refused.
    let editing: RwSignal<Option<usize>> = RwSignal::new(None);
    let error: RwSignal<Option<String>> = RwSignal::new(None);
    // Names only: typing in the editor changes `code`, never the tabs.
    let names = Memo::new(move |_| {
        let mut names: Vec<String> = ctx
            .others
            .with(|o| o.iter().map(|f| f.name.clone()).collect());
        let active = ctx.name.with(|n| {
            if n.is_empty() {
                crate::state::default_name(&ctx.lang.get())
            } else {
                n.clone()
            }
        });
        let at = ctx.active.get().min(names.len());
        names.insert(at, active);
        names
    });
    let add = move |_| {
        let mut files = ctx.files_untracked();
        let taken: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
        let name = fresh_name(&ctx.lang.get_untracked(), &taken);
        files.push(File {
            name,
            code: String::new(),
        });
        let last = files.len() - 1;
        ctx.show_files(files, last);
        error.set(None);
    };
    let tabs = move || {
        let names = names.get();
        let closable = names.len() > 1;
        names
            .into_iter()
            .enumerate()
            .map(|(at, name)| view! { <Tab at name closable editing error /> })
            .collect_view()
    };
    view! {
        <div class="file-tabs" role="group" aria-label="Files">
            {tabs}
            <button id="add-file" class="file-add" aria-label="Add a file" title="Add a file" on:click=add>"+"</button>
            <span id="file-error" class="file-error" role="alert">{move || error.get().unwrap_or_default()}</span>
        </div>
    }
}

/// One file's tab: click shows it, double-click (or F2) renames it, × closes it.
#[component]
fn Tab(
    at: usize,
    name: String,
    closable: bool,
    editing: RwSignal<Option<usize>>,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let active = move || ctx.active.get() == at;
    // A refusal is about the last rename: any other tab action makes it old news.
    let show = move || {
        error.set(None);
        if ctx.active.get_untracked() != at {
            ctx.show_files(ctx.files_untracked(), at);
        }
    };
    let rename = move || {
        show();
        editing.set(Some(at));
    };
    let close_label = format!("Close {name}");
    let label = name.clone();
    let button = move || {
        let (label, data) = (label.clone(), label.clone());
        view! {
            <button class="file-tab" data-file=data aria-current=move || active().then_some("true")
                title="Double-click (or F2) to rename"
                on:click=move |_| show()
                on:dblclick=move |_| rename()
                on:keydown=move |ev: web_sys::KeyboardEvent| if ev.key() == "F2" { rename() }>
                {label}
            </button>
        }
    };
    let old = name.clone();
    view! {
        <span class="file" class:active=active>
            <Show when=move || editing.get() == Some(at) fallback=button>
                <RenameBox at old=old.clone() editing error />
            </Show>
            <button class="file-close" aria-label=close_label.clone() title=close_label.clone() hidden=!closable
                on:click=move |_| { editing.set(None); error.set(None); ctx.close_file(at) }>"×"</button>
        </span>
    }
}

/// The inline name field of a tab being renamed: Enter or leaving it renames, Escape
/// keeps the old name; a refused name is said why, and the old one stays.
#[component]
fn RenameBox(
    at: usize,
    old: String,
    editing: RwSignal<Option<usize>>,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let input: NodeRef<html::Input> = NodeRef::new();
    Effect::new(move |_| {
        if let Some(el) = input.get() {
            let _ = el.focus();
            el.select();
        }
    });
    let commit = move |new: String| {
        // Enter then the field's removal (a blur) must rename once.
        if editing.get_untracked() != Some(at) {
            return;
        }
        editing.set(None);
        let new = new.trim().to_string();
        let mut files = ctx.files_untracked();
        if at >= files.len() || files[at].name == new {
            return;
        }
        let lang = ctx.lang.get_untracked();
        let others = files
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != at)
            .map(|(_, f)| f.name.as_str());
        match check_name(&new, &lang, others) {
            Ok(()) => {
                files[at].name = new;
                ctx.show_files(files, ctx.active.get_untracked());
                error.set(None);
            }
            Err(why) => error.set(Some(format!("{why} The file keeps its name."))),
        }
    };
    let size = old.chars().count().max(8);
    view! {
        <input id="rename-file" class="file-rename" type="text" node_ref=input value=old.clone()
            aria-label=format!("New name for {old}") spellcheck="false" autocomplete="off"
            size=size
            on:keydown=move |ev: web_sys::KeyboardEvent| match ev.key().as_str() {
                "Enter" => commit(event_target_value(&ev)),
                "Escape" => editing.set(None),
                _ => {}
            }
            on:blur=move |ev| commit(event_target_value(&ev)) />
    }
}
