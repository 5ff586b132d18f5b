//! The one place the app touches the core. Analysis runs in a Web Worker (the `worker`
//! binary), so the page never waits for it: [`Engine::request`] posts the newest text,
//! results of text that has changed since are dropped, and a worker that dies (panic,
//! trap, out of memory) or overruns [`BUDGET_MS`] is terminated and restarted while the
//! page keeps its state. The language registry and display tokens (cheap, needed on
//! every keystroke) come from the languages' faces (`shapex::faces`), so the page
//! links no analyser: new languages grow the worker, not the page.

#[allow(dead_code)] // the page applies deltas, the worker makes them
#[path = "delta.rs"]
pub mod delta;
#[path = "protocol.rs"]
pub mod protocol;

use delta::Delta;
use leptos::prelude::{set_timeout_with_handle, TimeoutHandle};
use protocol::{Reply, Request};
use shapex::report::{LanguageInfo, Token};
use shapex::{Face, Options};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, MessageEvent, Worker};

/// How long typing must pause before re-analysis (the highlight layer updates on
/// every keystroke regardless). Short, since a request never waits behind another:
/// the worker is sent only the newest text once it is free, and re-analysis resumes
/// from the last run (a 10,000-line script's keystroke costs ~100 ms in the worker).
pub const DEBOUNCE_MS: u64 = 100;
/// The "analysing…" indicator appears only when a result takes longer than this.
pub const BUSY_AFTER_MS: u64 = 200;
/// Results older than the text are dimmed, and "analysing…" shown, once the text
/// has changed this long ago without a fresh result (from the edit, debounce included).
pub const STALE_AFTER_MS: u64 = 300;
/// An analysis running longer than this is stopped (the worker is restarted).
pub const BUDGET_MS: u64 = 20_000;
/// The worker's loader, written by Trunk next to `index.html`.
const WORKER_URL: &str = "./worker_loader.js";

thread_local! {
    /// The registry's faces (facts and tokenizers); built once per page.
    static FACES: Vec<Face> = shapex::faces();
}

/// Every registered language, in menu order (the first is the default).
pub fn languages() -> Vec<LanguageInfo> {
    FACES.with(|f| f.iter().map(|f| f.info.clone()).collect())
}

/// The language `id`, or the default one when `id` is unknown (an old or hand-edited
/// link), so the page always has a language to show.
pub fn language(id: &str) -> LanguageInfo {
    let all = languages();
    all.iter().find(|l| l.id == id).unwrap_or(&all[0]).clone()
}

/// Display tokens of one line in language `lang` (none for an unknown language).
pub fn tokens(lang: &str, line: &str) -> Vec<Token> {
    FACES.with(|f| {
        f.iter()
            .find(|f| f.info.id == lang)
            .map(|f| (f.tokens)(line))
            .unwrap_or_default()
    })
}

/// What the page hears from the engine.
pub struct Hooks {
    /// A result for the newest text.
    pub report: Box<dyn Fn(Analysed)>,
    /// The analysis failed on the newest text (the worker has been restarted).
    pub failure: Box<dyn Fn(String)>,
    /// True while a result is overdue by [`BUSY_AFTER_MS`].
    pub busy: Box<dyn Fn(bool)>,
}

/// A result for the newest text.
pub struct Analysed {
    /// The text analysed.
    pub source: String,
    /// The Report, as its difference from the last one delivered (or the failure
    /// report after a failure: a delta against nothing).
    pub report: Delta,
    /// When the request was sent, in `performance.now()` milliseconds.
    pub sent_at: f64,
    /// How long the analysis took inside the worker (ms).
    pub analysis_ms: f64,
    /// When the reply arrived, in ms after `sent_at`, and how long the page took to
    /// read it (JSON to a `Report`): with `analysis_ms`, the benchmark's breakdown of
    /// keystroke-to-result.
    pub received_ms: f64,
    pub parse_ms: f64,
}

/// The page's handle on the analysis worker. Cheap to clone.
#[derive(Clone)]
pub struct Engine(Rc<RefCell<State>>);

struct State {
    hooks: Rc<Hooks>,
    worker: Option<Worker>,
    /// The worker has said it is ready (messages sent before are lost).
    ready: bool,
    generation: u64,
    /// The generation of the report last delivered, which the page holds (0: none,
    /// after a failure), so the worker's replies are told as differences from it.
    held: u64,
    /// The newest request, not yet sent (the worker was busy or starting).
    queued: Option<Request>,
    /// The request the worker is working on, with its timers.
    running: Option<Running>,
    /// Which worker is current: events of a terminated one are ignored.
    epoch: u64,
    /// Keeps the worker's event handlers alive (and the previous worker's, whose last
    /// events may still be queued when it is replaced).
    handlers: Vec<Closure<dyn Fn(JsValue)>>,
    retired: Vec<Closure<dyn Fn(JsValue)>>,
}

struct Running {
    generation: u64,
    source: String,
    sent_at: f64,
    budget: Option<TimeoutHandle>,
    busy: Option<TimeoutHandle>,
}

impl Engine {
    pub fn start(hooks: Hooks) -> Engine {
        let engine = Engine(Rc::new(RefCell::new(State {
            hooks: Rc::new(hooks),
            worker: None,
            ready: false,
            generation: 0,
            held: 0,
            queued: None,
            running: None,
            epoch: 0,
            handlers: Vec::new(),
            retired: Vec::new(),
        })));
        engine.spawn();
        engine
    }

    /// Analyses `source` as soon as the worker is free; an older queued request is
    /// replaced, and the result of one already running is dropped when it arrives.
    /// `path` names the file `source` is, `others` are the program's other files
    /// (name, text).
    pub fn request(
        &self,
        source: String,
        path: String,
        others: Vec<(String, String)>,
        options: Options,
    ) {
        let mut s = self.0.borrow_mut();
        s.generation += 1;
        s.queued = Some(Request {
            generation: s.generation,
            source,
            path,
            others,
            options,
            held: 0,
        });
        drop(s);
        self.pump();
    }

    fn spawn(&self) {
        let epoch = {
            let mut s = self.0.borrow_mut();
            s.epoch += 1;
            s.epoch
        };
        let worker = match Worker::new(WORKER_URL) {
            Ok(w) => w,
            Err(e) => {
                let hooks = self.0.borrow().hooks.clone();
                (hooks.failure)(format!("the analysis worker could not start ({e:?})"));
                return;
            }
        };
        let on_message = {
            let engine = self.clone();
            Closure::<dyn Fn(JsValue)>::new(move |e: JsValue| {
                let data = e.unchecked_into::<MessageEvent>().data();
                if let Some(text) = data.as_string() {
                    if engine.current(epoch) {
                        engine.on_reply(&text);
                    }
                }
            })
        };
        let on_error = {
            let engine = self.clone();
            Closure::<dyn Fn(JsValue)>::new(move |e: JsValue| {
                let e = e.unchecked_into::<ErrorEvent>();
                e.prevent_default();
                if engine.current(epoch) {
                    engine.fail(&e.message());
                }
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let mut s = self.0.borrow_mut();
        s.worker = Some(worker);
        s.ready = false;
        s.retired = std::mem::replace(&mut s.handlers, vec![on_message, on_error]);
    }

    fn current(&self, epoch: u64) -> bool {
        self.0.borrow().epoch == epoch
    }

    /// Sends the queued request if the worker is ready and idle.
    fn pump(&self) {
        let mut s = self.0.borrow_mut();
        if !s.ready || s.running.is_some() {
            return;
        }
        let Some(mut request) = s.queued.take() else {
            return;
        };
        request.held = s.held;
        let Some(worker) = s.worker.clone() else {
            return;
        };
        let text = serde_json::to_string(&request).expect("a request always serialises");
        let generation = request.generation;
        let budget = {
            let engine = self.clone();
            set_timeout_with_handle(
                move || engine.overrun(generation),
                Duration::from_millis(BUDGET_MS),
            )
            .ok()
        };
        let busy = {
            let hooks = s.hooks.clone();
            set_timeout_with_handle(
                move || (hooks.busy)(true),
                Duration::from_millis(BUSY_AFTER_MS),
            )
            .ok()
        };
        s.running = Some(Running {
            generation,
            source: request.source,
            sent_at: now_ms(),
            budget,
            busy,
        });
        drop(s);
        if let Err(e) = worker.post_message(&JsValue::from_str(&text)) {
            self.fail(&format!("{e:?}"));
        }
    }

    fn on_reply(&self, text: &str) {
        let received = now_ms();
        let reply = match serde_json::from_str::<Reply>(text) {
            Ok(r) => r,
            Err(e) => return self.fail(&format!("unreadable result ({e})")),
        };
        let mut s = self.0.borrow_mut();
        match reply {
            Reply::Panic { message } => {
                drop(s);
                return self.fail(&message);
            }
            Reply::Ready => s.ready = true,
            Reply::Report {
                generation,
                report,
                analysis_ms,
            } => {
                let Some(done) = s.running.take() else {
                    return;
                };
                done.stop_timers();
                let hooks = s.hooks.clone();
                let newest = generation == s.generation && done.generation == generation;
                if report.base != 0 && report.base != s.held {
                    // Never happens: the page names the report it holds in each request.
                    drop(s);
                    return self.fail("a result told against a report the page lacks");
                }
                if newest {
                    s.held = generation;
                }
                drop(s);
                (hooks.busy)(false);
                if newest {
                    (hooks.report)(Analysed {
                        source: done.source,
                        report: *report,
                        sent_at: done.sent_at,
                        analysis_ms,
                        received_ms: received - done.sent_at,
                        parse_ms: now_ms() - received,
                    });
                }
                return self.pump();
            }
        }
        drop(s);
        self.pump();
    }

    /// The worker trapped, panicked or ran out of memory: restart it, and report the
    /// failure unless the text has changed since (the next request is then sent).
    fn fail(&self, message: &str) {
        let mut s = self.0.borrow_mut();
        if let Some(w) = s.worker.take() {
            w.terminate();
        }
        // Whatever the dead worker still has queued (its error after a panic) is stale.
        s.epoch += 1;
        // The page shows the failure, and a new worker has sent nothing.
        s.held = 0;
        let failed = s.running.take();
        if let Some(r) = &failed {
            r.stop_timers();
        }
        let hooks = s.hooks.clone();
        let newest = failed
            .as_ref()
            .is_some_and(|r| r.generation == s.generation);
        drop(s);
        (hooks.busy)(false);
        if newest || failed.is_none() {
            (hooks.failure)(message.to_string());
        }
        // Not now: this may run inside the old worker's handler, which `spawn` drops.
        let engine = self.clone();
        leptos::prelude::set_timeout(move || engine.spawn(), Duration::ZERO);
    }

    fn overrun(&self, generation: u64) {
        let running = self.0.borrow().running.as_ref().map(|r| r.generation);
        if running == Some(generation) {
            self.fail(&format!("it took longer than {} s", BUDGET_MS / 1000));
        }
    }
}

/// Milliseconds since the page's navigation started.
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

impl Running {
    fn stop_timers(&self) {
        for t in [self.budget, self.busy].into_iter().flatten() {
            t.clear();
        }
    }
}
