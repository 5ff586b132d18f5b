//! Thin wrappers over the browser APIs the app uses (location, localStorage,
//! clipboard, history). Failures are swallowed: a private window without storage or
//! a denied clipboard must not break the editor.

use crate::state::ViewState;
use leptos::prelude::window;

const STORAGE_KEY: &str = "shapex.state.v1";

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
    let storage = window().local_storage().ok()??;
    let json = storage.get_item(STORAGE_KEY).ok()??;
    serde_json::from_str(&json).ok()
}

pub fn save(state: &ViewState) {
    if let (Ok(Some(storage)), Ok(json)) = (window().local_storage(), serde_json::to_string(state))
    {
        let _ = storage.set_item(STORAGE_KEY, &json);
    }
}

/// Best effort: the clipboard may be unavailable (insecure origin, permissions).
pub fn copy_to_clipboard(text: &str) {
    let _ = window().navigator().clipboard().write_text(text);
}

/// Inserts text at the caret through the browser's editing commands, so the
/// insertion joins the textarea's native undo stack (assigning `value` would not).
pub fn insert_text_at_caret(text: &str) -> bool {
    use wasm_bindgen::JsCast;
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
