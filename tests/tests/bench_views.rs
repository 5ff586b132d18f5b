//! Main-thread cost of the views on a 10,000-line realistic file (Octave's own function
//! files, `shapex_tests::corpus::octave_program`, and the same bodies as one long
//! script, `octave_script`, whose result is one function of 10,000 lines) in the
//! released app, in headless
//! Chromium: switching to each tab, one keystroke's `input` handling, and scrolling far
//! (the editor and each view). Every time is measured in the page with
//! `performance.now()` from the action until the main thread is free again after the
//! next animation frame that shows the result (a message posted from a
//! `requestAnimationFrame` callback runs once that frame's style, layout and paint are
//! done), so idle waiting for vsync is not counted but rendering work is.
//! A benchmark, not a test: it prints distributions and asserts only that the page
//! responds. `scripts/bench views` runs it (`--ignored`); it needs what the e2e tests
//! need.

mod browser;

use browser::{Result, Session};
use serde_json::{json, Value};
use shapex_tests::corpus::{octave_program, octave_script};
use std::time::Duration;

const LINES: usize = 10_000;

/// A realistic program of about so many lines (`shapex_tests::corpus`).
type Program = fn(usize) -> Option<String>;
const TAB_ROUNDS: usize = 5;
const KEYSTROKES: usize = 15;
const SCROLLS: usize = 12;

#[test]
#[ignore = "a benchmark: scripts/bench runs it"]
fn views_on_a_ten_thousand_line_file() {
    browser::bench(|base_url, driver| {
        Box::pin(async move {
            let programs: [(&str, Program); 2] = [
                ("function files", octave_program),
                ("one script", octave_script),
            ];
            for (kind, make) in programs {
                let program = make(LINES).ok_or("not enough Octave m-files")?;
                let session = Session::open(driver).await?;
                let result = measure(&session, base_url, kind, &program).await;
                session.close().await;
                result?;
            }
            Ok(())
        })
    });
}

/// Helpers installed in the page: `__frame(t0)` resolves with the ms since `t0` once
/// the next frame has been rendered; `__watch()` records the longest time between two
/// animation frames until its `on` is cleared.
const SETUP: &str = "
    window.__frame = (t0) => new Promise((resolve) => requestAnimationFrame(() => {
        const c = new MessageChannel();
        c.port1.onmessage = () => resolve(performance.now() - t0);
        c.port2.postMessage(0);
    }));
    window.__watch = () => {
        const w = { longest: 0, on: true };
        let last = performance.now();
        const tick = (t) => {
            w.longest = Math.max(w.longest, t - last);
            last = t;
            if (w.on) requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
        return w;
    };
    return true;";

async fn run_async(session: &Session, body: &str, args: Vec<Value>) -> Result<Value> {
    // The body is an async function of `args`; its result is handed back.
    let script = format!(
        "const done = arguments[arguments.length - 1];
         const args = [...arguments].slice(0, -1);
         (async (args) => {{ {body} }})(args).then(done, (e) => done({{ error: String(e) }}));"
    );
    let v = session
        .client
        .execute_async(&script, args)
        .await
        .map_err(|e| format!("script failed: {e}\n{body}"))?;
    if let Some(e) = v.get("error") {
        return Err(format!("page script threw {e}\n{body}"));
    }
    Ok(v)
}

async fn analysed(session: &Session) -> Result<f64> {
    let v = session
        .js(
            "return document.querySelector('#app')?.dataset.analyzed ?? '';",
            vec![],
        )
        .await?;
    Ok(v.as_str().and_then(|s| s.parse().ok()).unwrap_or(-1.0))
}

/// Waits until `data-analyzed` exceeds `before` and then stays put for a while.
async fn settled_after(session: &Session, before: f64) -> Result<()> {
    session
        .wait_until("a result", Duration::from_secs(120), || async {
            Ok((analysed(session).await? > before).then_some(()))
        })
        .await?;
    let mut last = analysed(session).await?;
    loop {
        tokio::time::sleep(Duration::from_millis(600)).await;
        let now = analysed(session).await?;
        if now == last {
            return Ok(());
        }
        last = now;
    }
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

async fn measure(session: &Session, url: &str, kind: &str, program: &str) -> Result<()> {
    session
        .client
        .set_window_size(1280, 900)
        .await
        .map_err(|e| e.to_string())?;
    session.client.goto(url).await.map_err(|e| e.to_string())?;
    settled_after(session, 0.0).await?;
    session.js(SETUP, vec![]).await?;
    let before = analysed(session).await?;
    session.paste(program).await?;
    settled_after(session, before).await?;
    let lines = program.lines().count();
    println!("views on a {lines}-line file, {kind} (target {LINES})");

    // Tab switches: every tab, several rounds, each switch from the previous tab.
    let tabs = session
        .js(
            "return [...document.querySelectorAll('nav.tabs button.tab')].map(b => b.dataset.view);",
            vec![],
        )
        .await?;
    let tabs: Vec<String> = tabs
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    if tabs.is_empty() {
        return Err("no tabs".into());
    }
    let mut switch: Vec<(String, Vec<f64>, Vec<f64>)> = tabs
        .iter()
        .map(|t| (t.clone(), Vec::new(), Vec::new()))
        .collect();
    for _ in 0..TAB_ROUNDS {
        for (id, sync, frame) in &mut switch {
            let v = run_async(
                session,
                "const id = args[0];
                 const t0 = performance.now();
                 document.getElementById('tab-' + id).click();
                 const sync = performance.now() - t0;
                 const section = document.getElementById('view-' + id);
                 // A language's view is built when its tab is shown: until the frame
                 // that paints it, not its 'Building this view…'.
                 const shown = () => section.firstElementChild && !section.querySelector('.building');
                 let t = await __frame(t0);
                 for (let i = 0; i < 1200 && !shown(); i++) t = await __frame(t0);
                 if (!shown()) throw 'view ' + id + ' did not render';
                 return [sync, t];",
                vec![json!(id)],
            )
            .await?;
            let v = numbers(&v);
            sync.push(v[0]);
            frame.push(v[1]);
        }
    }
    for (id, sync, frame) in switch {
        print_dist(&format!("tab switch to {id}, click to painted"), frame);
        print_dist(&format!("tab switch to {id}, click handler"), sync);
    }

    // Keystrokes: a space at the end of a line shown in the editor, in two steps so
    // the browser's own work is told apart from the app's: the textarea's edit as
    // typing makes it (`insertText` at the caret, until painted; its `input` event is
    // held back from the app, and `setRangeText` would not do: it replaces the value
    // the slow way, ~100 ms on this file, which no keystroke costs), then the app's
    // `input` event handling (synchronous, and until painted), and the longest frame
    // (time between two animation frames) from the input event until that
    // keystroke's result is shown, which includes rendering the new report.
    let (mut native, mut sync, mut frame, mut long) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for k in 0..KEYSTROKES {
        let line = 1 + (k * 7919) % (lines - 1);
        run_async(
            session,
            "const s = document.querySelector('.editor-scroll');
             s.scrollTop = Math.max(0, (args[0] - 10) * 20);
             await __frame(performance.now()); await __frame(performance.now());
             return 0;",
            vec![json!(line)],
        )
        .await?;
        let before = analysed(session).await?;
        let v = run_async(
            session,
            "const e = document.querySelector('#editor');
             let at = -1;
             for (let i = 0; i < args[0]; i++) at = e.value.indexOf('\\n', at + 1);
             const hold = (ev) => ev.stopImmediatePropagation();
             window.addEventListener('input', hold, true);
             e.focus({ preventScroll: true });
             e.setSelectionRange(at, at);
             let t0 = performance.now();
             document.execCommand('insertText', false, ' ');
             window.removeEventListener('input', hold, true);
             const native = await __frame(t0);
             await __frame(performance.now());
             window.__w = __watch();
             t0 = performance.now();
             e.dispatchEvent(new Event('input', { bubbles: true }));
             const sync = performance.now() - t0;
             return [native, sync, await __frame(t0)];",
            vec![json!(line)],
        )
        .await?;
        let v = numbers(&v);
        native.push(v[0]);
        sync.push(v[1]);
        frame.push(v[2]);
        settled_after(session, before).await?;
        let l = session
            .js("window.__w.on = false; return window.__w.longest;", vec![])
            .await?;
        long.push(l.as_f64().unwrap_or(0.0));
    }
    print_dist("keystroke, browser's textarea edit to painted", native);
    print_dist("keystroke, app's input event handler", sync);
    print_dist("keystroke, app's input event to painted", frame);
    print_dist(
        "keystroke, longest frame from the input event until its result is shown",
        long,
    );

    // Far scroll jumps in the editor and in each tab's scroller.
    let fractions: Vec<f64> = (0..SCROLLS)
        .map(|k| [0.97, 0.03, 0.5, 0.75, 0.25, 1.0][k % 6])
        .collect();
    let mut places: Vec<(String, String)> = vec![("editor".into(), String::new())];
    places.extend(tabs.iter().map(|t| (format!("view {t}"), t.clone())));
    for (name, tab) in places {
        if !tab.is_empty() {
            run_async(
                session,
                "document.getElementById('tab-' + args[0]).click();
                 await __frame(performance.now()); await __frame(performance.now());
                 const section = document.getElementById('view-' + args[0]);
                 for (let i = 0; i < 1200 && section.querySelector('.building'); i++)
                     await __frame(performance.now());
                 return 0;",
                vec![json!(tab)],
            )
            .await?;
        }
        let mut samples = Vec::new();
        for f in &fractions {
            let v = run_async(
                session,
                "const s = args[0] ? document.querySelector('.view-body') : document.querySelector('.editor-scroll');
                 const max = s.scrollHeight - s.clientHeight;
                 if (max < 50) return [-1];
                 const t0 = performance.now();
                 s.scrollTop = Math.round(max * args[1]);
                 const t = await __frame(t0);
                 await __frame(performance.now());
                 return [t];",
                vec![json!(!tab.is_empty()), json!(f)],
            )
            .await?;
            let t = numbers(&v)[0];
            if t >= 0.0 {
                samples.push(t);
            }
        }
        if samples.is_empty() {
            println!("  scroll jump, {name}: nothing to scroll");
        } else {
            print_dist(&format!("scroll jump, {name}, to painted"), samples);
        }
    }
    let errors = session
        .js(
            "return document.querySelector('#banner')?.hidden === false ? document.querySelector('#banner').textContent : '';",
            vec![],
        )
        .await?;
    if errors.as_str().is_some_and(|s| !s.is_empty()) {
        println!("  banner shown: {errors}");
    }
    Ok(())
}

fn print_dist(what: &str, mut samples: Vec<f64>) {
    samples.sort_by(f64::total_cmp);
    let q = |p: f64| samples[((samples.len() - 1) as f64 * p).round() as usize];
    println!(
        "  {what}: n {}, min {:.1} ms, p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        samples.len(),
        q(0.0),
        q(0.5),
        q(0.95),
        q(1.0)
    );
}
