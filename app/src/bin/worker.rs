//! The analysis worker: a second wasm entry built by Trunk (`data-type="worker"`). It
//! owns the only `Analyzer` that analyses, answers one [`Request`] at a time, and may
//! die (a panic aborts, an input may exhaust memory): the page notices, restarts it and
//! keeps everything else.

#[path = "../protocol.rs"]
mod protocol;

use protocol::{Reply, Request, PANIC_HOOK};
use std::collections::HashMap;
use std::sync::Arc;

#[cfg(target_arch = "wasm32")]
fn main() {
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    // Tell the page what went wrong before the abort turns it into `unreachable`.
    let on_panic = scope.clone();
    std::panic::set_hook(Box::new(move |info| {
        console_error_panic_hook::hook(info);
        let message = match info.payload().downcast_ref::<&str>() {
            Some(m) => m.to_string(),
            None => info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_else(|| "a panic".into()),
        };
        if let Ok(text) = serde_json::to_string(&Reply::Panic { message }) {
            let _ = on_panic.post_message(&JsValue::from_str(&text));
        }
    }));
    let reply_to = scope.clone();
    let analyzer = shapex::Analyzer::new();
    // Kept across requests: each edit re-analyses only the functions it can affect.
    let session = std::cell::RefCell::new(Kept::default());
    let post = move |reply: &Reply| {
        let text = serde_json::to_string(reply).expect("a Report always serialises");
        let _ = reply_to.post_message(&JsValue::from_str(&text));
    };
    let post_ready = post.clone();
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |msg: MessageEvent| {
        let Some(text) = msg.data().as_string() else {
            return;
        };
        let Ok(request) = serde_json::from_str::<Request>(&text) else {
            return;
        };
        let started = js_sys::Date::now();
        let mut reply = analyse(&analyzer, &mut session.borrow_mut(), request);
        if let Reply::Report { analysis_ms, .. } = &mut reply {
            *analysis_ms = js_sys::Date::now() - started;
        }
        post(&reply);
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post_ready(&Reply::Ready);
}

/// What the worker keeps between requests: the analysis session (each edit re-analyses
/// only what it can affect) and the last drawing of each graph view (a graph that did
/// not change is not laid out again).
#[derive(Default)]
struct Kept {
    session: shapex::Session,
    sketches: shapex_layout::Sketchbook,
}

fn analyse(analyzer: &shapex::Analyzer, kept: &mut Kept, request: Request) -> Reply {
    if request.source.lines().next() == Some(PANIC_HOOK) {
        panic!("deliberate failure (test hook)");
    }
    let report = if request.path.is_empty() {
        analyzer.analyze_in(&mut kept.session, &request.source, &request.options)
    } else {
        // The other tabs are the files beside this one: a call may run them.
        let others: HashMap<&str, Arc<str>> = request
            .others
            .iter()
            .map(|(name, text)| (name.as_str(), Arc::from(text.as_str())))
            .collect();
        let read = |path: &str| others.get(path).cloned();
        let sources = shapex::Sources {
            path: &request.path,
            text: &request.source,
            read: &read,
            search: &[],
        };
        analyzer.analyze_sources_in(&mut kept.session, &sources, &request.options)
    };
    let drawings = report
        .views
        .iter()
        .filter_map(|v| Some((v.id.clone(), kept.sketches.draw(&v.id, &v.payload)?)))
        .collect();
    Reply::Report {
        generation: request.generation,
        report: Box::new(report),
        analysis_ms: 0.0,
        drawings,
    }
}

/// Natively there is no worker to be; the binary exists so the workspace builds.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let request = Request {
        generation: 1,
        source: "x = helper(1);".into(),
        path: "main.m".into(),
        others: vec![(
            "helper.m".into(),
            "function y = helper(x)\ny = x;\nend\n".into(),
        )],
        options: shapex::Options::new("matlab"),
    };
    let mut kept = Kept::default();
    if let Reply::Report { report, .. } = analyse(&shapex::Analyzer::new(), &mut kept, request) {
        println!("{} statements", report.statements.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyse_main(helper: &str) -> shapex::Report {
        let request = Request {
            generation: 1,
            source: "a = helper(ones(4,1));\n".into(),
            path: "main.m".into(),
            others: vec![("helper.m".into(), helper.into())],
            options: shapex::Options::new("matlab"),
        };
        match analyse(&shapex::Analyzer::new(), &mut Kept::default(), request) {
            Reply::Report { report, .. } => *report,
            _ => panic!("no report"),
        }
    }

    #[test]
    fn a_call_runs_the_other_tab_of_its_name() {
        let wrong = analyse_main("function y = helper(x)\ny = x * x;\nend\n");
        let errors: Vec<_> = wrong
            .diagnostics
            .iter()
            .map(|d| (d.code.clone(), d.range.line))
            .collect();
        assert!(
            errors
                .iter()
                .any(|(c, l)| c.starts_with("shape.mtimes") && *l == 1),
            "{errors:?}"
        );
        let right = analyse_main("function y = helper(x)\ny = x .* x;\nend\n");
        assert!(right.diagnostics.is_empty(), "{:?}", right.diagnostics);
        let a = &right.statements[0].defs[0];
        assert_eq!((a.name.as_str(), a.display.as_str()), ("a", "<4,1>"));
    }
}
