//! Shape Explorer's browser UI. Thin by design: it calls core's `analyze` (in
//! `analysis`) and renders the `Report`; it never analyses anything itself.

mod analysis;
mod app;
mod browser;
mod editor;
mod gallery;
mod model;
mod share;
mod state;
mod tabs;
mod text;
mod views;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}
