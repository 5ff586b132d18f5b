//! The analysis worker: a second wasm entry built by Trunk (`data-type="worker"`). It
//! owns the only `Analyzer` that analyses, answers one [`Request`] at a time, and may
//! die (a panic aborts, an input may exhaust memory): the page notices, restarts it and
//! keeps everything else.

#[allow(dead_code)] // the page applies deltas, the worker makes them
#[path = "../delta.rs"]
mod delta;
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
        // Freed once the page has its result: a long file's last report, syntax tree
        // and program take a tenth of a keystroke to free.
        let mut kept = session.borrow_mut();
        kept.sent.free();
        kept.session.free();
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post_ready(&Reply::Ready);
}

/// What the worker keeps between requests: the analysis session (each edit re-analyses
/// only what it can affect), the last drawing of each graph view (a graph that did
/// not change is not laid out again), and the reports the page may hold (a reply is
/// told as its difference from the page's).
#[derive(Default)]
struct Kept {
    session: shapex::Session,
    sketches: shapex_layout::Sketchbook,
    sent: delta::Sent,
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
    let delta = kept
        .sent
        .delta(request.held, request.generation, report, drawings);
    Reply::Report {
        generation: request.generation,
        report: Box::new(delta),
        analysis_ms: 0.0,
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
        held: 0,
    };
    let mut kept = Kept::default();
    if let Reply::Report { report, .. } = analyse(&shapex::Analyzer::new(), &mut kept, request) {
        println!("{} runs of statements", report.statements.len());
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
            held: 0,
        };
        match analyse(&shapex::Analyzer::new(), &mut Kept::default(), request) {
            Reply::Report { report, .. } => {
                let mut held = shapex::Report::default();
                report.apply(&mut held, &mut Vec::new());
                held
            }
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

    /// The page's side of the protocol: it holds the report of generation `held`.
    struct Page {
        report: shapex::Report,
        drawings: Vec<(String, shapex::report::view::Drawing)>,
        held: u64,
    }

    fn request(generation: u64, source: &str, held: u64) -> Request {
        Request {
            generation,
            source: source.into(),
            path: String::new(),
            others: Vec::new(),
            options: shapex::Options::new("matlab"),
            held,
        }
    }

    /// The reply to `source`, as a fresh worker gives it (told against nothing).
    fn whole(source: &str) -> Page {
        let mut page = Page {
            report: shapex::Report::default(),
            drawings: Vec::new(),
            held: 0,
        };
        let reply = analyse(
            &shapex::Analyzer::new(),
            &mut Kept::default(),
            request(1, source, 0),
        );
        let Reply::Report { report, .. } = reply else {
            panic!("no report")
        };
        assert_eq!(report.base, 0);
        report.apply(&mut page.report, &mut page.drawings);
        page
    }

    /// Every reply, applied to the report the page holds, is the whole report of its
    /// text, through edits that move statements by bytes and by lines, delete them,
    /// and replies the page drops (a newer edit was already typed): then the next
    /// request names the older report the page still holds.
    #[test]
    fn a_reply_applied_to_the_held_report_is_the_whole_report() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/matlab/interproc"
        );
        let analyzer = shapex::Analyzer::new();
        for name in ["merge-sort.m", "two-layer-net.m"] {
            let text = std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            let mut kept = Kept::default();
            let mut page = whole("");
            let mut generation = 0;
            for (k, edit) in (0..lines.len())
                .step_by(3)
                .flat_map(|i| [(i, 0), (i, 1), (i, 2)])
                .enumerate()
            {
                let (i, how) = edit;
                let mut edited: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                match how {
                    0 => edited[i].push(' '),
                    1 => edited.insert(i, String::new()),
                    _ => drop(edited.remove(i)),
                }
                let source = edited.join("\n");
                generation += 1;
                let reply = analyse(
                    &analyzer,
                    &mut kept,
                    request(generation, &source, page.held),
                );
                let Reply::Report { report, .. } = reply else {
                    panic!("no report")
                };
                if k % 5 == 4 {
                    continue; // dropped: the page keeps what it holds
                }
                assert!(report.base == page.held || report.base == 0);
                report.apply(&mut page.report, &mut page.drawings);
                page.held = generation;
                let expected = whole(&source);
                // The glossary travels only when it changes: the rebuilt one must be
                // the report's own.
                assert!(!expected.report.glossary.is_empty(), "{name}");
                assert!(
                    page.report == expected.report,
                    "{name}, edit {edit:?}: the report rebuilt from the delta differs"
                );
                assert!(page.drawings == expected.drawings, "{name}, edit {edit:?}");
            }
        }
    }

    /// The page asks for the view on screen; another tab asks again for the same text,
    /// and the reply brings that view (the analysis kept) and drops the other.
    #[test]
    fn another_tab_brings_its_view() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/matlab");
        let text = std::fs::read_to_string(format!("{dir}/interproc/merge-sort.m")).unwrap();
        let (analyzer, mut kept) = (shapex::Analyzer::new(), Kept::default());
        let mut page = whole("");
        let full = analyzer.analyze(&text, &shapex::Options::new("matlab"));
        for (generation, view) in [(1, "shapes"), (2, "checks"), (3, "checks"), (4, "ir")] {
            let mut asked = request(generation, &text, page.held);
            asked.options = asked.options.with_views([view]);
            let Reply::Report { report, .. } = analyse(&analyzer, &mut kept, asked) else {
                panic!("no report")
            };
            report.apply(&mut page.report, &mut page.drawings);
            page.held = generation;
            let ids: Vec<&str> = page.report.views.iter().map(|v| v.id.as_str()).collect();
            assert_eq!(ids, [view]);
            assert!(page.report.view(view) == full.view(view), "{view}");
            assert_eq!(page.report.statements, full.statements);
        }
    }

    /// A space typed in a long file sends a small fraction of the whole report: the
    /// statements after it only moved, and no view changed.
    #[test]
    fn a_keystroke_sends_what_changed() {
        let body: String = (1..=200)
            .map(|k| format!("function y = f{k}(x)\n  y = x * ones(size(x, 2), {k});\nend\n"))
            .collect();
        let source = format!("function main()\n  a = f1(zeros(3, 4));\nend\n{body}");
        let mut kept = Kept::default();
        let analyzer = shapex::Analyzer::new();
        let first = analyse(&analyzer, &mut kept, request(1, &source, 0));
        let edited = source.replacen(
            "  y = x * ones(size(x, 2), 100);",
            "  y = x * ones(size(x, 2), 100); ",
            1,
        );
        let second = analyse(&analyzer, &mut kept, request(2, &edited, 1));
        let size = |r: &Reply| serde_json::to_string(r).unwrap().len();
        let (whole, delta) = (size(&first), size(&second));
        assert!(delta * 10 < whole, "{delta} bytes of {whole}");
    }
}
