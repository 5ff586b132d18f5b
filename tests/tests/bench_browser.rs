//! Keystroke-to-result in the released app, as a user meets it: a realistic file
//! (Octave's own function files, `shapex_tests::corpus::octave_program`, and their
//! bodies as one long script, `octave_script`, where an edit resumes the script's
//! analysis after the statements before it) pasted into the editor, then single
//! keystrokes, each timed from the request leaving the page for the analysis worker
//! until its result is rendered (`#app[data-result-ms]`, so debounce is excluded), and the first result's time after navigation (`data-first-result-ms`).
//! Beside each distribution, the part spent analysing inside the worker
//! (`data-analysis-ms`, incremental: only the edited function is analysed again); the
//! rest is the round trip and rendering.
//! A benchmark, not a test: it prints distributions and asserts only that results come.
//! `scripts/bench` runs it (`--ignored`); it needs what the e2e tests need.

mod browser;

use browser::{Result, Session};
use serde_json::json;
use shapex_tests::corpus::{octave_program, octave_script};
use shapex_tests::scale;
use std::time::Duration;

const KEYSTROKES: usize = 40;

/// Makes a realistic input of at least so many lines.
type Program = fn(usize) -> Option<String>;

#[test]
#[ignore = "a benchmark: scripts/bench runs it"]
fn keystroke_to_result_in_the_browser() {
    browser::bench(|base_url, driver| {
        Box::pin(async move {
            let inputs: [(&str, Program); 2] = [
                ("function files", octave_program),
                ("one script", octave_script),
            ];
            for (kind, make) in inputs {
                for lines in [1_000, 10_000] {
                    let program = make(lines).ok_or("not enough Octave m-files")?;
                    let session = Session::open(driver).await?;
                    let result = measure(&session, base_url, &program).await;
                    session.close().await;
                    println!("{kind}:");
                    report(lines, program.lines().count(), result?);
                }
            }
            Ok(())
        })
    });
}

/// Issue #22 item 10, the browser side: whole programs of functions calling each
/// other. A 10,000-line file of ~380 functions in a chain, each with realistic
/// statements and calls of shared helpers (`scale::call_program`), and the 200-function
/// call chain of the native benchmark (`shapex::samples::call_chain`), each pasted and
/// then typed into as `keystroke_to_result_in_the_browser` does. A keystroke in a
/// function re-analyses it and the functions above it whose calls' answers may change.
#[test]
#[ignore = "a benchmark: scripts/bench runs it"]
fn whole_program_keystroke_to_result_in_the_browser() {
    browser::bench(|base_url, driver| {
        Box::pin(async move {
            let inputs = [
                (
                    "functions calling each other",
                    scale::call_program(10_000),
                    10_000,
                ),
                (
                    "a call chain of 200 functions",
                    shapex::samples::call_chain(200),
                    shapex::samples::call_chain(200).lines().count(),
                ),
            ];
            for (kind, program, target) in inputs {
                let session = Session::open(driver).await?;
                let result = measure(&session, base_url, &program).await;
                session.close().await;
                println!("{kind}:");
                report(target, program.lines().count(), result?);
            }
            Ok(())
        })
    });
}

/// Issue #21 item 9, the browser side: Migeed et al.'s questions (the gradual check,
/// Q1, Q2 under constraints, Q3, the lattice) in the released app's worker, on the
/// gallery's models and on ResNet-50 with its input left Dyn, each constraint edit
/// timed inside the worker (`data-analysis-ms`) and from request to render.
#[test]
#[ignore = "a benchmark: scripts/bench runs it"]
fn migration_questions_in_the_browser() {
    browser::bench(|base_url, driver| {
        Box::pin(async move {
            let resnet = include_str!("../fixtures/py/resnet50.py").replace(
                "def forward(self, x: TensorType((Dyn, 3, 224, 224))):",
                "def forward(self, x):",
            );
            let cases: [(&str, &str, Option<&str>, &str); 5] = [
                (
                    "AlexNet",
                    "mig-alexnet",
                    None,
                    "x.shape == (b, c, h, w)\nb in (8, 16)",
                ),
                (
                    "ResNet-50",
                    "mig-resnet50",
                    None,
                    "x.shape == (b, c, h, w)\nb >= 4",
                ),
                (
                    "ResNet-50, x: Dyn",
                    "mig-resnet50",
                    Some(&resnet),
                    "x.shape == (b, c, h, w)\nh == w\nh <= 256\nb >= 4",
                ),
                (
                    "BERT-style encoder",
                    "mig-bert",
                    None,
                    "x.shape == (b, s, d)\ns <= 512",
                ),
                (
                    "XGLM-style decoder",
                    "mig-xglm",
                    None,
                    "input_ids.shape == (x, y)\nx > 0\n1 < y\ny < 2000",
                ),
            ];
            for (name, example, program, constraints) in cases {
                let session = Session::open(driver).await?;
                let result = questions(&session, base_url, example, program, constraints).await;
                session.close().await;
                let (analysis, total) = result?;
                let (_, a) = quantiles(analysis.clone());
                let (_, t) = quantiles(total);
                println!(
                    "questions in the browser, {name}: {} constraint edits, in the worker p50 {:.0} ms (max {:.0} ms), request to render p50 {:.0} ms",
                    analysis.len(),
                    a(0.5),
                    a(1.0),
                    t(0.5)
                );
            }
            Ok(())
        })
    });
}

/// Opens `example` (then pastes `program` if given) and edits the Constraints box ten
/// times (`constraints`, then a bound on a fresh symbol), each edit re-answering every
/// question: (analysis-in-worker, request-to-render) in ms.
async fn questions(
    session: &Session,
    url: &str,
    example: &str,
    program: Option<&str>,
    constraints: &str,
) -> Result<(Vec<f64>, Vec<f64>)> {
    session.client.goto(url).await.map_err(|e| e.to_string())?;
    analysed_after(session, 0.0).await?;
    let before = number(session, "data-analyzed").await?;
    session
        .js(
            "const s = document.querySelector('select#examples'); s.value = arguments[0];
             s.dispatchEvent(new Event('change', {bubbles: true})); return null;",
            vec![json!(example)],
        )
        .await?;
    analysed_after(session, before).await?;
    if let Some(p) = program {
        let before = number(session, "data-analyzed").await?;
        session.paste(p).await?;
        analysed_after(session, before).await?;
    }
    let (mut analysis, mut total) = (Vec::new(), Vec::new());
    for k in 0..10 {
        let before = number(session, "data-analyzed").await?;
        let text = format!("{constraints}\nunused <= {}", 100 + k);
        session
            .js(
                "const t = document.querySelector('textarea#opt-constraints'); t.value = arguments[0];
                 t.dispatchEvent(new Event('change', {bubbles: true})); return null;",
                vec![json!(text)],
            )
            .await?;
        analysed_after(session, before).await?;
        analysis.push(number(session, "data-analysis-ms").await?);
        total.push(number(session, "data-result-ms").await?);
    }
    Ok((analysis, total))
}

async fn number(session: &Session, attr: &str) -> Result<f64> {
    let v = session
        .js(
            "return document.querySelector('#app')?.getAttribute(arguments[0]) ?? '';",
            vec![json!(attr)],
        )
        .await?;
    Ok(v.as_str().and_then(|s| s.parse().ok()).unwrap_or(-1.0))
}

/// Waits until `data-analyzed` exceeds `before`.
async fn analysed_after(session: &Session, before: f64) -> Result<()> {
    session
        .wait_until("a result", Duration::from_secs(120), || async {
            Ok((number(session, "data-analyzed").await? > before).then_some(()))
        })
        .await
}

/// (first result after navigation, keystroke-to-result samples, analysis-in-worker
/// samples), in ms.
/// Keystroke-to-result samples of one file, with each sample's parts as the page
/// records them (`data-*-ms` on `#app`).
#[derive(Default)]
struct Keystrokes {
    /// When the pasted file's first result was on screen, after navigation.
    first: f64,
    /// Request to rendered.
    total: Vec<f64>,
    /// The analysis inside the worker.
    analysis: Vec<f64>,
    /// Request to reply received, less the analysis: the JSON both ways.
    transfer: Vec<f64>,
    /// Reading the reply's JSON on the page.
    parse: Vec<f64>,
    /// The rest: the views updating until the next frame.
    render: Vec<f64>,
}

async fn measure(session: &Session, url: &str, program: &str) -> Result<Keystrokes> {
    session.client.goto(url).await.map_err(|e| e.to_string())?;
    analysed_after(session, 0.0).await?;
    let mut out = Keystrokes {
        first: number(session, "data-first-result-ms").await?,
        ..Keystrokes::default()
    };
    let before = number(session, "data-analyzed").await?;
    session.paste(program).await?;
    analysed_after(session, before).await?;
    // One keystroke at a time, spread over the file: a space at the end of a line,
    // inserted as typing does (`insertText` at the caret fires the `input` event).
    let lines = program.lines().count();
    for k in 0..KEYSTROKES {
        let line = (k * 7919) % lines;
        let before = number(session, "data-analyzed").await?;
        session
            .js(
                "const e = document.querySelector('#editor');
                 let at = -1;
                 for (let i = 0; i <= arguments[0]; i++) at = e.value.indexOf('\\n', at + 1);
                 e.focus({ preventScroll: true });
                 e.setSelectionRange(at, at);
                 document.execCommand('insertText', false, ' ');",
                vec![json!(line)],
            )
            .await?;
        analysed_after(session, before).await?;
        let total = number(session, "data-result-ms").await?;
        let analysis = number(session, "data-analysis-ms").await?;
        let received = number(session, "data-received-ms").await?;
        let parse = number(session, "data-parse-ms").await?;
        out.total.push(total);
        out.analysis.push(analysis);
        out.transfer.push(received - analysis);
        out.parse.push(parse);
        out.render.push(total - received - parse);
    }
    Ok(out)
}

fn report(target: usize, lines: usize, k: Keystrokes) {
    let (samples, q) = quantiles(k.total);
    println!(
        "browser keystroke-to-result, {lines} lines (target {target}), {} keystrokes: \
         min {:.0} ms, p50 {:.0} ms, p95 {:.0} ms, max {:.0} ms; first result {:.0} ms after navigation",
        samples.len(),
        q(0.0),
        q(0.5),
        q(0.95),
        q(1.0),
        k.first
    );
    println!("  all samples (ms): {samples:.0?}");
    for (part, values) in [
        ("analysis in the worker", k.analysis),
        (
            "JSON both ways (request to reply, less the analysis)",
            k.transfer,
        ),
        ("reading the reply on the page", k.parse),
        ("rendering until the next frame", k.render),
    ] {
        let (_, a) = quantiles(values);
        println!(
            "  of which {part}: min {:.0} ms, p50 {:.0} ms, p95 {:.0} ms, max {:.0} ms",
            a(0.0),
            a(0.5),
            a(0.95),
            a(1.0)
        );
    }
}

/// The samples sorted, and their quantile function.
fn quantiles(mut samples: Vec<f64>) -> (Vec<f64>, impl Fn(f64) -> f64) {
    samples.sort_by(f64::total_cmp);
    let sorted = samples.clone();
    (samples, move |p: f64| {
        sorted[((sorted.len() - 1) as f64 * p).round() as usize]
    })
}
