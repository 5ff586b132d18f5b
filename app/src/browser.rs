//! Thin wrappers over the browser APIs the app uses (location, localStorage,
//! clipboard, history). Failures are swallowed: a private window without storage or
//! a denied clipboard must not break the editor.

use crate::app::Closed;
use crate::state::ViewState;
use leptos::prelude::window;
use wasm_bindgen::JsCast;

const STORAGE_KEY: &str = "shapex.state.v1";
/// The user's code that a link or an example replaced, one click from coming back.
const PREVIOUS_KEY: &str = "shapex.previous.v1";
/// Closed files, one click from coming back (see `Ctx::closed`).
const CLOSED_KEY: &str = "shapex.closed.v1";

pub fn location_hash() -> String {
    window().location().hash().unwrap_or_default()
}

/// Sets the fragment (adds a history entry, fires `hashchange`).
pub fn set_location_hash(fragment: &str) {
    let _ = window().location().set_hash(fragment);
}

/// Drops the fragment without a history entry or `hashchange`.
pub fn clear_location_hash() {
    let loc = window().location();
    let url = format!(
        "{}{}",
        loc.pathname().unwrap_or_default(),
        loc.search().unwrap_or_default()
    );
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

/// The page URL with `fragment`, as a share link.
pub fn url_with_fragment(fragment: &str) -> String {
    let loc = window().location();
    format!(
        "{}{}{}#{}",
        loc.origin().unwrap_or_default(),
        loc.pathname().unwrap_or_default(),
        loc.search().unwrap_or_default(),
        fragment
    )
}

pub fn load_saved() -> Option<ViewState> {
    load(STORAGE_KEY)
}

pub fn save(state: &ViewState) {
    store(STORAGE_KEY, Some(state));
}

/// The code a replacement set aside ([`save_previous`]), if any.
pub fn load_previous() -> Option<ViewState> {
    load(PREVIOUS_KEY)
}

pub fn save_previous(state: Option<&ViewState>) {
    store(PREVIOUS_KEY, state);
}

/// Files closed and not yet forgotten ([`save_closed`]): "Undo close" survives a reload.
pub fn load_closed() -> Vec<Closed> {
    load(CLOSED_KEY).unwrap_or_default()
}

pub fn save_closed(closed: &[Closed]) {
    store(CLOSED_KEY, (!closed.is_empty()).then_some(&closed));
}

fn load<T: serde::de::DeserializeOwned>(key: &str) -> Option<T> {
    let storage = window().local_storage().ok()??;
    let json = storage.get_item(key).ok()??;
    serde_json::from_str(&json).ok()
}

fn store<T: serde::Serialize>(key: &str, state: Option<&T>) {
    let Ok(Some(storage)) = window().local_storage() else {
        return;
    };
    match state.map(serde_json::to_string) {
        Some(Ok(json)) => {
            let _ = storage.set_item(key, &json);
        }
        _ => {
            let _ = storage.remove_item(key);
        }
    }
}

/// Offers `text` as a file download named `name` (a program too large for a link).
pub fn download(name: &str, text: &str) -> bool {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/plain;charset=utf-8");
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
        return false;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return false;
    };
    let anchor = leptos::prelude::document()
        .create_element("a")
        .ok()
        .and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok());
    let Some(a) = anchor else {
        return false;
    };
    a.set_href(&url);
    a.set_download(name);
    a.click();
    // The click has started the download; the URL may go once this task ends.
    leptos::prelude::set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(10),
    );
    true
}

/// A replacement text of more lines than this is assigned, not inserted: Chromium's
/// `insertText` takes time quadratic in the lines it inserts (headless Chromium: 1,000
/// lines 0.9 s, 2,000 lines 3.8 s, 3,600 lines 16 s, all on the page's thread), while
/// deleting a long text or undoing takes milliseconds.
pub const MAX_UNDOABLE_LINES: usize = 300;

/// Replaces the textarea's whole text through the browser's editing commands, so the
/// replacement joins the native undo stack and Ctrl+Z brings the old text back — for
/// texts of at most [`MAX_UNDOABLE_LINES`] lines. A longer text is assigned (no native
/// undo, but the page never freezes; the work it replaced is set aside behind Restore
/// by `Ctx::replace`), as it is where the command is unavailable.
pub fn replace_all_text(el: &web_sys::HtmlTextAreaElement, text: &str) {
    if el.value() == text {
        return;
    }
    let _ = el.focus();
    el.select();
    // insertText of "" deletes; of a text, replaces the selection with it.
    let done = if text.lines().count() > MAX_UNDOABLE_LINES {
        false
    } else if text.is_empty() {
        leptos::prelude::document()
            .dyn_into::<web_sys::HtmlDocument>()
            .ok()
            .and_then(|d| d.exec_command("delete").ok())
            .unwrap_or(false)
    } else {
        insert_text_at_caret(text)
    };
    if !done || el.value() != text {
        el.set_value(text);
    }
    let _ = el.set_selection_range(0, 0);
    el.set_scroll_top(0);
}

/// Best effort: the clipboard may be unavailable (insecure origin, permissions, a
/// page without focus). A refusal is expected, not an error: the link is also in the
/// Share box (focusing it selects it), so the promise's rejection is handled here
/// rather than left to the console as "Uncaught (in promise)".
pub fn copy_to_clipboard(text: &str) {
    let promise = window().navigator().clipboard().write_text(text);
    wasm_bindgen_futures::spawn_local(async move {
        let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    });
}

/// Inserts text at the caret through the browser's editing commands, so the
/// insertion joins the textarea's native undo stack (assigning `value` would not).
pub fn insert_text_at_caret(text: &str) -> bool {
    leptos::prelude::document()
        .dyn_into::<web_sys::HtmlDocument>()
        .ok()
        .and_then(|d| {
            d.exec_command_with_show_ui_and_value("insertText", false, text)
                .ok()
        })
        .unwrap_or(false)
}

/// `f` throttled to once per animation frame: calls in the same frame run it once,
/// at the frame (for scroll listeners: measure once, however many events fire).
pub fn once_per_frame(f: impl Fn() + Clone + 'static) -> impl Fn() + Clone + 'static {
    let pending = std::rc::Rc::new(std::cell::Cell::new(false));
    move || {
        if !pending.replace(true) {
            let (pending, f) = (pending.clone(), f.clone());
            leptos::prelude::request_animation_frame(move || {
                pending.set(false);
                f();
            });
        }
    }
}
