//! End-to-end: the released app (`trunk build --release` output in `$SHAPEX_DIST`)
//! driven through WebDriver in headless Chromium, as a user would: type, read the
//! diagnostics, fix, share, reopen the link in a fresh browser.
//!
//! Without `SHAPEX_DIST` (or Chromium, or ChromeDriver) every test prints "skipped"
//! and passes, so a plain offline `cargo test` works; when `CI` is set it fails instead
//! (`shapex_tests::require`). `scripts/test` sets `SHAPEX_DIST` after building the app;
//! its native step, which runs before the build, skips these tests by their `e2e_`
//! prefix, so every test here is named `e2e_*`.
//! The DOM contract these tests rely on is listed in the infra brief and the app's
//! `view!`: `#app[data-ready][data-analyzed]`, `textarea#editor`,
//! `ul#diagnostics > li.diagnostic[data-line][data-col]`, `select#examples`,
//! `button#share`, `input#share-url`, `div#banner`; for the long-file test also the
//! scrollers `.editor-scroll` and `.view-body`, the painted `.highlight > .line`s with
//! their `.gutter-line .lineno`s, `button#tab-<view>`, `#outline > li.outline-item[data-line]`
//! and `table.shapes tr.row .lineno`.

mod browser;

use browser::app::{ensure, run, App, Env, ShownDiagnostic, ANALYSIS};
use browser::Result;
use fantoccini::Locator;
use serde_json::{json, Value};
use std::path::PathBuf;

/// A syntax error (unclosed parenthesis) on line 3 and nowhere else.
const BROKEN: &str = "a = [1 2; 3 4];\nb = a';\nc = (a + 1\nd = 2;";
const FIXED: &str = "a = [1 2; 3 4];\nb = a';\nc = (a + 1)\nd = 2;";
/// Where the fix goes: the end of line 3 of [`BROKEN`].
const FIX_AT: &str = "c = (a + 1";

fn on_line(line: u32) -> impl Fn(&[ShownDiagnostic]) -> bool {
    move |ds| ds.iter().any(|d| d.line == line.to_string())
}

#[test]
fn e2e_syntax_error_is_shown_fixed_and_shared() {
    run(|env| Box::pin(edit_fix_share(env)));
}

async fn edit_fix_share(env: &Env) -> Result<()> {
    let app = env.app().await?;
    app.open(&env.server.base_url).await?;

    let before = app.analyzed().await?;
    app.clear_and_type(BROKEN).await?;
    app.wait_for_analysis(&before, "a diagnostic on line 3", on_line(3))
        .await?;
    let shown = app.diagnostics().await?;
    let first = &shown[0];
    ensure(first.line == "3" && !first.col.is_empty(), || {
        format!("first diagnostic should be on line 3 with a column: {shown:?}")
    })?;
    ensure(!first.text.trim().is_empty(), || {
        format!("diagnostic has no message: {shown:?}")
    })?;

    let before = app.analyzed().await?;
    app.insert_at(BROKEN.find(FIX_AT).unwrap() + FIX_AT.len(), ")")
        .await?;
    ensure(app.editor_text().await? == FIXED, || {
        "the fix did not land where intended".to_string()
    })?;
    app.wait_for_analysis(&before, "the line-3 diagnostic to disappear", |ds| {
        !on_line(3)(ds)
    })
    .await?;

    let url = app.share_link().await?;
    ensure(
        url.starts_with(&env.server.base_url) && url.contains('#'),
        || format!("share URL {url:?} should be {}#…", env.server.base_url),
    )?;

    // A fresh profile: the code can only come from the link, not from localStorage.
    let other = env.app().await?;
    other.open(&url).await?;
    let code = other.editor_text().await?;
    ensure(code == FIXED, || {
        format!("shared link opened {code:?}, expected {FIXED:?}")
    })?;
    other.session.close().await;
    app.session.close().await;
    Ok(())
}

#[test]
fn e2e_a_link_from_shapex_share_opens_its_file_in_its_view() {
    run(|env| Box::pin(cli_share(env)));
}

/// A repro with a definite error, as a user would share it from a terminal.
const REPRO: &str = "A = ones(3, 4);\nB = ones(5, 2);\nC = A * B;  % 'quotes' and ü\n";

/// Issue #26 item 4: `shapex share FILE --view V --base URL` prints a link that opens
/// the file's text under its name, in that view and notation, with its error found.
async fn cli_share(env: &Env) -> Result<()> {
    let dir = std::env::temp_dir().join(format!("shapex-share-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let file = dir.join("repro.m");
    std::fs::write(&file, REPRO).map_err(|e| e.to_string())?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "run",
            "-q",
            "-p",
            "shapex-cli",
            "--",
            "share",
            "--view",
            "checks",
        ])
        .args(["--times", "--base", &env.server.base_url])
        .arg(&file)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .map_err(|e| format!("cargo run shapex share: {e}"))?;
    let _ = std::fs::remove_dir_all(&dir);
    let url = String::from_utf8_lossy(&out.stdout).trim().to_string();
    ensure(out.status.success() && url.contains("#v2/"), || {
        format!(
            "shapex share printed {url:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let app = env.app().await?;
    app.open(&url).await?;
    let code = app.editor_text().await?;
    ensure(code == REPRO, || format!("the link opened {code:?}"))?;
    app.wait_for_analysis("", "the repro's error", on_line(3))
        .await?;
    let shown = app
        .session
        .js(
            "return [document.querySelector('#tab-checks').getAttribute('aria-selected'),
                     [...document.querySelectorAll('button.file-tab')].map(b => b.dataset.file),
                     document.querySelector('select#notation').value];",
            vec![],
        )
        .await?;
    ensure(shown == json!(["true", ["repro.m"], "times"]), || {
        format!("the link opened (checks selected, tabs, notation) {shown}")
    })?;
    app.session.close().await;
    Ok(())
}

/// Three functions: each edit below touches one of them or moves them all.
const FUNCTIONS: &str = "function r = first(a)\n  r = a * 2;\nend\n\
                         function s = second(b)\n  s = ones(3, 2) * b;\nend\n\
                         function t = third(c)\n  t = zeros(2, 2);\nend\n";

#[test]
fn e2e_edits_are_analysed_as_a_full_analysis_would() {
    run(|env| Box::pin(incremental_edits(env)));
}

/// The worker keeps what it analysed and re-analyses only what an edit can affect; the
/// Problems list after each typed edit must be what a fresh native analysis of the
/// editor's text reports (the oracle: `shapex::analyze`).
async fn incremental_edits(env: &Env) -> Result<()> {
    let app = env.app().await?;
    app.open(&env.server.base_url).await?;
    // Pasted (typing it would auto-indent), then edited by typing.
    app.session.paste(FUNCTIONS).await?;
    app.settle().await?;
    // The native analysis runs in the mode the page shows (the default example may
    // have chosen paper mode).
    let mode = app
        .session
        .js("return document.querySelector('#opt-mode').value;", vec![])
        .await?;
    let options = match mode.as_str() {
        Some("paper") => shapex_tests::matlab_options("paper"),
        _ => shapex_tests::matlab_options("modern"),
    };
    // (text after which to type, what to type): a definite error in the third
    // function, a line above everything, a fix in the second, a new function.
    let edits = [
        ("  t = zeros(2, 2);", "\n  u = ones(3, 2) * ones(4, 4);"),
        ("", "% moved down\n"),
        ("ones(3, 2) * b", "'"),
        (
            "u = ones(3, 2) * ones(4, 4);\nend\n",
            "function z = fourth()\n  z = [1 2] + [1 2 3];\nend\n",
        ),
    ];
    for (after, typed) in edits {
        let text = app.editor_text().await?;
        let at = text
            .find(after)
            .map(|i| i + after.len())
            .ok_or_else(|| format!("{after:?} not in {text:?}"))?;
        app.insert_at(at, typed).await?;
        app.settle().await?;
        let text = app.editor_text().await?;
        let expected: Vec<String> = shapex::analyze(&text, &options)
            .diagnostics
            .iter()
            .map(|d| {
                format!(
                    "{}:{} {} {}",
                    d.range.line,
                    d.range.col,
                    d.severity.as_str(),
                    d.message
                )
            })
            .collect();
        let shown: Vec<String> = app
            .diagnostics()
            .await?
            .into_iter()
            .map(|d| d.text.trim().to_string())
            .collect();
        ensure(shown == expected, || {
            format!("after typing {typed:?} the page shows\n  {shown:#?}\nbut a full analysis of\n{text}\nreports\n  {expected:#?}")
        })?;
        ensure(!expected.is_empty() || typed == "'", || {
            "the edits should leave errors to compare".into()
        })?;
    }
    app.session.close().await;
    Ok(())
}

#[test]
fn e2e_damaged_link_shows_banner_and_default_example() {
    run(|env| Box::pin(damaged_link(env)));
}

async fn damaged_link(env: &Env) -> Result<()> {
    // The default example, as a first-time visitor sees it.
    let fresh = env.app().await?;
    fresh.open(&env.server.base_url).await?;
    let default_code = fresh.editor_text().await?;
    ensure(!default_code.trim().is_empty(), || {
        "a first visit should show an example, not an empty editor".into()
    })?;
    fresh.session.close().await;

    let app = env.app().await?;
    app.open(&format!("{}#v1/garbage!!", env.server.base_url))
        .await?;
    let banner = app.banner_text().await?;
    ensure(!banner.is_empty(), || {
        "a damaged link should show a visible #banner".into()
    })?;
    let code = app.editor_text().await?;
    ensure(code == default_code, || {
        format!("a damaged link should load the default example; got {code:?}")
    })?;
    // Still alive: editing triggers a new analysis.
    let before = app.analyzed().await?;
    app.clear_and_type("x = 1;").await?;
    app.wait_for_analysis(&before, "an analysis after the damaged link", |_| true)
        .await?;
    app.session.close().await;
    Ok(())
}

/// The app's test hook (`app/src/protocol.rs`): a program starting with this line makes
/// the analysis worker panic.
const PANIC_HOOK: &str = "% shapex-test: panic in the analysis worker";

#[test]
fn e2e_a_failing_analysis_is_survived() {
    run(|env| Box::pin(failing_analysis(env)));
}

async fn failing_analysis(env: &Env) -> Result<()> {
    let app = env.app().await?;
    app.open(&env.server.base_url).await?;
    let before = app.analyzed().await?;
    let doomed = format!("{PANIC_HOOK}\nx = ones(3,2);");
    app.clear_and_type(&doomed).await?;
    app.wait_for_analysis(&before, "the failure to be reported", |d| {
        d.iter().any(|d| d.text.contains("analysis failed"))
    })
    .await?;
    let banner = app.banner_text().await?;
    ensure(
        banner.contains("failed on this input") && banner.contains("deliberate failure"),
        || format!("the banner should say the analysis failed and why; got {banner:?}"),
    )?;
    ensure(app.editor_text().await? == doomed, || {
        "the editor must keep the text that made the analysis fail".into()
    })?;
    // The next edit is analysed normally by a restarted worker.
    let before = app.analyzed().await?;
    app.insert_at(0, "y = [1 2] * [3 4];\n").await?;
    app.wait_for_analysis(&before, "the first edit after the failure", on_line(1))
        .await?;
    let shown = app.diagnostics().await?;
    ensure(shown.iter().any(|d| d.text.contains("mtimes")), || {
        format!("a restarted worker should find the error on line 1; got {shown:?}")
    })?;
    ensure(app.banner_text().await?.is_empty(), || {
        "a successful analysis should clear the failure banner".into()
    })?;
    app.session.close().await;
    Ok(())
}

#[test]
fn e2e_editor_text_never_becomes_html() {
    run(|env| Box::pin(no_html_injection(env)));
}

async fn no_html_injection(env: &Env) -> Result<()> {
    const PAYLOAD: &str = "<img src=x onerror=alert(1)>";
    let app = env.app().await?;
    app.open(&env.server.base_url).await?;
    let before = app.analyzed().await?;
    app.clear_and_type(PAYLOAD).await?;
    // Whatever the analysis says about this text, it must be shown as text.
    app.wait_for_analysis(&before, "the payload to be analysed", |_| true)
        .await?;
    let injected = app
        .session
        .js(
            "return document.querySelectorAll('img[src=\"x\"], [onerror]').length;",
            vec![],
        )
        .await?;
    ensure(injected == json!(0), || {
        format!("editor text became HTML: {injected} injected element(s)")
    })?;
    let alert = app.session.client.get_alert_text().await;
    ensure(alert.is_err(), || format!("an alert opened: {alert:?}"))?;
    ensure(app.editor_text().await? == PAYLOAD, || {
        "the editor should keep the payload verbatim".into()
    })?;
    app.session.close().await;
    Ok(())
}

#[test]
fn e2e_screenshot_of_an_example() {
    run(|env| Box::pin(screenshot(env)));
}

/// Loads the first gallery example other than the one shown at start (the gallery
/// leads with the papers' examples) through `select#examples`, and saves a
/// screenshot to `target/e2e/screenshot.png`; with `SHAPEX_UPDATE_SCREENSHOT=1`
/// also to `public/screenshot.png`, which the README shows.
async fn screenshot(env: &Env) -> Result<()> {
    let app = env.app().await?;
    app.session
        .client
        .set_window_size(1280, 900)
        .await
        .map_err(|e| e.to_string())?;
    app.open(&env.server.base_url).await?;
    let options = app
        .session
        .js(
            "return [...document.querySelectorAll('select#examples option')]
               .filter(o => o.value !== '').map(o => o.value);",
            vec![],
        )
        .await?;
    let values: Vec<String> = options
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    ensure(!values.is_empty(), || {
        "select#examples offers no examples".into()
    })?;
    // Pick an example other than the one already shown, so the choice must take effect.
    let shown = app.editor_text().await?;
    let examples = app
        .session
        .client
        .find(Locator::Css("select#examples"))
        .await
        .map_err(|e| e.to_string())?;
    let current = app
        .session
        .js(
            "return document.querySelector('select#examples').value;",
            vec![],
        )
        .await?;
    let pick = values
        .iter()
        .find(|v| Some(v.as_str()) != current.as_str())
        .unwrap_or(&values[0]);
    let before = app.analyzed().await?;
    examples
        .select_by_value(pick)
        .await
        .map_err(|e| format!("cannot choose example {pick:?}: {e}"))?;
    app.wait_for_analysis(&before, "the chosen example to be analysed", |_| true)
        .await?;
    app.settle().await?;
    let code = app.editor_text().await?;
    ensure(!code.trim().is_empty(), || "example loaded no code".into())?;
    if values.len() > 1 {
        ensure(code != shown, || {
            format!("choosing example {pick:?} did not change the editor")
        })?;
    }
    let png = app
        .session
        .client
        .screenshot()
        .await
        .map_err(|e| e.to_string())?;
    ensure(png.starts_with(b"\x89PNG"), || {
        "screenshot is not a PNG".into()
    })?;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = root.join("target/e2e/screenshot.png");
    std::fs::create_dir_all(out.parent().unwrap()).map_err(|e| e.to_string())?;
    std::fs::write(&out, &png).map_err(|e| e.to_string())?;
    eprintln!("screenshot: {}", out.display());
    if std::env::var("SHAPEX_UPDATE_SCREENSHOT").as_deref() == Ok("1") {
        let public = root.join("public/screenshot.png");
        std::fs::write(&public, &png).map_err(|e| e.to_string())?;
        eprintln!("screenshot: {}", public.display());
    }
    app.session.close().await;
    Ok(())
}

#[test]
fn e2e_long_files_render_only_what_is_visible() {
    run(|env| Box::pin(long_file(env)));
}

/// Lines of the long program: virtualised views must still show every line when it
/// is scrolled to, and the painted window must line up with the textarea.
const LONG: usize = 3_000;

/// Scrolls `scroller` (a CSS selector) to `top` and waits two frames, so the window
/// has followed.
async fn scroll_to(app: &App, scroller: &str, top: f64) -> Result<()> {
    app.session
        .client
        .execute_async(
            "const [sel, top, done] = arguments;
             document.querySelector(sel).scrollTop = top;
             requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
            vec![json!(scroller), json!(top)],
        )
        .await
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// The painted editor line numbered `no`: [its text and notes, its top minus where line `no`
/// of the textarea is, whether it is inside the scroller's visible area], or null.
const PAINTED_LINE: &str = "
    const no = arguments[0];
    const gutter = [...document.querySelectorAll('.gutter-line .lineno')];
    const i = gutter.findIndex((g) => g.textContent === String(no));
    if (i < 0) return null;
    const line = document.querySelectorAll('.highlight > .line')[i].getBoundingClientRect();
    const text = document.querySelectorAll('.highlight > .line')[i].textContent;
    const area = document.querySelector('#editor').getBoundingClientRect();
    const view = document.querySelector('.editor-scroll').getBoundingClientRect();
    return [text, line.top - (area.top + 10 + (no - 1) * 20),
            line.top >= view.top && line.bottom <= view.bottom];";

async fn long_file(env: &Env) -> Result<()> {
    let app = env.app().await?;
    app.open(&env.server.base_url).await?;
    let mut program: Vec<String> = (1..LONG)
        .map(|k| format!("v{k} = zeros({k}, 2);"))
        .collect();
    let last = "bad = [1 2] * [3 4];";
    program.push(last.into());
    let program = program.join("\n");
    let before = app.analyzed().await?;
    app.session.paste(&program).await?;
    app.wait_for_analysis(&before, "the error on the last line", on_line(LONG as u32))
        .await?;
    app.settle().await?;

    let painted = app
        .session
        .js(
            "return document.querySelectorAll('.highlight > .line').length;",
            vec![],
        )
        .await?;
    let painted = painted.as_u64().unwrap_or(0) as usize;
    ensure(painted > 10 && painted < LONG / 10, || {
        format!("the highlight layer should paint a window of lines, not {painted} of {LONG}")
    })?;

    // Scrolled to the end, the last line is painted where the textarea has it.
    scroll_to(&app, ".editor-scroll", 1e9).await?;
    let shown = app.session.js(PAINTED_LINE, vec![json!(LONG)]).await?;
    ensure(
        shown[0].as_str().is_some_and(|t| t.starts_with(last))
            && shown[1].as_f64().is_some_and(|d| d.abs() < 1.0)
            && shown[2] == json!(true),
        || {
            format!("after scrolling to the end, line {LONG} should be painted in place and visible: {shown}")
        },
    )?;

    // From the top, the Problems list jumps to the last line: it becomes painted and
    // visible, and the caret goes there.
    scroll_to(&app, ".editor-scroll", 0.0).await?;
    app.session
        .client
        .find(Locator::Css(&format!(
            "ul#diagnostics > li.diagnostic[data-line='{LONG}']"
        )))
        .await
        .map_err(|e| format!("no diagnostic on line {LONG}: {e}"))?
        .click()
        .await
        .map_err(|e| e.to_string())?;
    let shown = app
        .session
        .wait_until("the jump to paint the line", ANALYSIS, || async {
            let v = app.session.js(PAINTED_LINE, vec![json!(LONG)]).await?;
            Ok((v[2] == json!(true)).then_some(v))
        })
        .await?;
    ensure(shown[1].as_f64().is_some_and(|d| d.abs() < 1.0), || {
        format!("the jumped-to line should be painted in place: {shown}")
    })?;
    let caret = app
        .session
        .js(
            "const e = document.querySelector('#editor');
             return [document.activeElement === e, e.value.slice(0, e.selectionStart).split('\\n').length];",
            vec![],
        )
        .await?;
    ensure(caret == json!([true, LONG]), || {
        format!("the caret should be on line {LONG} in the focused editor: {caret}")
    })?;

    // The Outline and the Shapes table, scrolled to their ends, show the last line's
    // statement in view, though they render only a window of rows.
    for (tab, rows, line_of) in [
        ("outline", "#outline > li.outline-item", "r.dataset.line"),
        (
            "shapes",
            "table.shapes tr.row",
            "r.querySelector('.lineno').textContent",
        ),
    ] {
        app.session
            .client
            .find(Locator::Css(&format!("#tab-{tab}")))
            .await
            .map_err(|e| format!("#tab-{tab}: {e}"))?
            .click()
            .await
            .map_err(|e| e.to_string())?;
        // A language's view is built when its tab is shown (the page asks for it).
        let count = format!("return document.querySelectorAll(\"{rows}\").length;");
        app.session
            .wait_until(&format!("the {tab} view's rows"), ANALYSIS, || async {
                let n = app.session.js(&count, vec![]).await?;
                Ok((n.as_u64().unwrap_or(0) > 0).then_some(()))
            })
            .await?;
        scroll_to(&app, ".view-body", 1e9).await?;
        let script = format!(
            "const body = document.querySelector('.view-body').getBoundingClientRect();
             const rows = [...document.querySelectorAll(\"{rows}\")];
             const seen = rows.filter((r) => {{
                 const b = r.getBoundingClientRect();
                 return b.top >= body.top - 1 && b.bottom <= body.bottom + 1;
             }}).map((r) => {line_of});
             return [rows.length, seen];"
        );
        let v = app.session.js(&script, vec![]).await?;
        let count = v[0].as_u64().unwrap_or(0) as usize;
        let seen: Vec<&str> = v[1]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        ensure(
            count > 0 && count < LONG / 10 && seen.contains(&LONG.to_string().as_str()),
            || {
                format!("the {tab} view scrolled to its end should show line {LONG} among few rendered rows: {count} rendered, visible {seen:?}")
            },
        )?;
    }
    app.session.close().await;
    Ok(())
}

#[test]
fn e2e_the_extent_graph_marks_its_checks_follows_the_caret_and_shares_its_step() {
    run(|env| Box::pin(extent_graph(env)));
}

/// Derby & Zorn's §2 example (one size error) in its Extent graph view: checked
/// vertices are outlined and the error's vertex is the one conflict; clicking it
/// selects its statement in the editor, whose vertices the caret then rings; the
/// replay step shown travels in the share link (issue #20, item 5); a MATLAB function
/// with declared sizes opens in the same view (item 6).
async fn extent_graph(env: &Env) -> Result<()> {
    const MARKS: &str =
        "const q = s => document.querySelectorAll('.graph-svg g.vertex' + s).length;
        return [q(''), q('.checked'), q('.conflict'), q('.conflict.here')];";
    let app = env.app().await?;
    app.open(&env.server.base_url).await?;
    app.choose_example("dz-sec2").await?;
    let marks = app
        .session
        .wait_until("the extent graph with its conflict", ANALYSIS, || async {
            let v = app.session.js(MARKS, vec![]).await?;
            Ok((v[0].as_u64() > Some(0) && v[2].as_u64() == Some(1)).then_some(v))
        })
        .await?;
    ensure(marks[1].as_u64() >= Some(1), || {
        format!("no checked vertex outlined: {marks}")
    })?;
    // Zooming in widens the drawing by a step (the view pans by scrolling).
    const WIDTH: &str =
        "return Number(document.querySelector('.graph-svg').getAttribute('width'));";
    let w0 = app.session.js(WIDTH, vec![]).await?.as_f64().unwrap_or(0.0);
    app.session
        .js(
            "document.querySelector('.zoom button[aria-label=\"Zoom in\"]').click(); return null;",
            vec![],
        )
        .await?;
    app.session
        .wait_until(
            "zooming in to widen the drawing by 25 %",
            ANALYSIS,
            || async {
                let w1 = app.session.js(WIDTH, vec![]).await?.as_f64().unwrap_or(0.0);
                Ok((w0 > 0.0 && (w1 / w0 - 1.25).abs() < 0.01).then_some(()))
            },
        )
        .await?;
    // The example's one diagnostic: its size error.
    let shown = app.diagnostics().await?;
    let error_line = match shown.as_slice() {
        [d] => d.line.clone(),
        _ => return Err(format!("expected the one size error, found {shown:?}")),
    };

    app.session
        .js(
            "document.querySelector('.graph-svg g.vertex.conflict')
               .dispatchEvent(new MouseEvent('click', {bubbles: true})); return null;",
            vec![],
        )
        .await?;
    let sel = app
        .session
        .js(
            "const e = document.querySelector('textarea#editor');
             return [e.value.slice(0, e.selectionStart).split('\\n').length,
                     e.selectionEnd - e.selectionStart];",
            vec![],
        )
        .await?;
    ensure(
        sel[0].as_u64().map(|l| l.to_string()) == Some(error_line.clone())
            && sel[1].as_u64() > Some(0),
        || {
            format!("clicking the conflict selected {sel} (line, length), not the statement on line {error_line}")
        },
    )?;
    app.session
        .wait_until(
            "the caret's statement to ring its vertex",
            ANALYSIS,
            || async {
                let v = app.session.js(MARKS, vec![]).await?;
                Ok((v[3].as_u64() == Some(1)).then_some(()))
            },
        )
        .await?;

    // One step back from the final graph, then share.
    const SLIDER: &str =
        "const r = document.querySelector('.step-control input[type=range]'); return r ? [Number(r.value), Number(r.max)] : null;";
    let before = app.session.js(SLIDER, vec![]).await?;
    let last = before[1]
        .as_u64()
        .ok_or_else(|| format!("no Step control: {before}"))?;
    ensure(before[0].as_u64() == Some(last), || {
        format!("the graph opens at {before}, not its last step")
    })?;
    app.session
        .js(
            "[...document.querySelectorAll('.step-control button')].find(b => b.textContent.includes('Previous')).click(); return null;",
            vec![],
        )
        .await?;
    let url = app.share_link().await?;
    let other = env.app().await?;
    other.open(&url).await?;
    let opened = other
        .session
        .wait_until("the link's graph at its step", ANALYSIS, || async {
            let v = other.session.js(SLIDER, vec![]).await?;
            Ok((!v.is_null()).then_some(v))
        })
        .await?;
    ensure(opened[0].as_u64() == Some(last - 1), || {
        format!(
            "the link opened the graph at {opened}, not at step {}",
            last - 1
        )
    })?;
    other.session.close().await;

    // A MATLAB function with declared sizes has its extent graph too (item 6): the
    // gallery's §2 in MATLAB opens in the Extent graph tab with its conflicts marked.
    app.choose_example("dz-matlab-sec2").await?;
    app.session
        .wait_until(
            "the MATLAB extent graph with its conflicts",
            ANALYSIS,
            || async {
                let tab = app
                    .session
                    .js(
                        "return document.querySelector('#tab-extent-graph.active') !== null;",
                        vec![],
                    )
                    .await?;
                let v = app.session.js(MARKS, vec![]).await?;
                Ok((tab.as_bool() == Some(true) && v[2].as_u64() >= Some(2)).then_some(()))
            },
        )
        .await?;
    app.session.close().await;
    Ok(())
}

#[test]
fn e2e_vec_steps_the_data_and_its_shape_in_lockstep() {
    run(|env| Box::pin(vec_lockstep(env)));
}

/// Issue #23: a VEC example opens in its Evaluation view with the two evaluations side
/// by side; at the step where the shape computation has ended, the data computation
/// has not, and the shape error is in the Problems list before any data is needed;
/// the Signatures view shows `#_C multiply` simplified.
async fn vec_lockstep(env: &Env) -> Result<()> {
    const LANES: &str = "return [...document.querySelectorAll('.trace-lane')].map(l =>
        [l.querySelector('h3').textContent, l.querySelectorAll('.trace-steps li').length,
         l.querySelector('.trace-result')?.textContent ?? null]);";
    const SLIDER: &str =
        "const r = document.querySelector('.step-control input[type=range]'); return r ? [Number(r.value), Number(r.max)] : null;";
    let app = env.app().await?;
    app.open(&env.server.base_url).await?;
    app.choose_example("vec-multiply-mismatch").await?;
    let lanes = app
        .session
        .wait_until("the two evaluations and their ends", ANALYSIS, || async {
            let v = app.session.js(LANES, vec![]).await?;
            let ended = v
                .as_array()
                .is_some_and(|ls| ls.len() == 2 && ls.iter().all(|l| l[2].is_string()));
            Ok(ended.then_some(v))
        })
        .await?;
    ensure(
        lanes[0][0].as_str().is_some_and(|t| t.starts_with("Data"))
            && lanes[1][0].as_str().is_some_and(|t| t.starts_with("Shape")),
        || format!("the lanes are not data then shape: {lanes}"),
    )?;
    let shown = app.diagnostics().await?;
    ensure(
        shown
            .iter()
            .any(|d| d.text.contains("shape error found from the shapes alone")),
        || format!("no static shape error listed: {shown:?}"),
    )?;
    // Step to where the shape lane has ended: the data lane has not.
    let last = app.session.js(SLIDER, vec![]).await?;
    let last = last[1].as_u64().ok_or("no Step control")?;
    app.session
        .js(
            "const r = document.querySelector('.step-control input[type=range]');
             r.value = '0'; r.dispatchEvent(new Event('input', {bubbles: true})); return null;",
            vec![],
        )
        .await?;
    let first = app
        .session
        .wait_until("step 1 of the replay", ANALYSIS, || async {
            let v = app.session.js(LANES, vec![]).await?;
            Ok((v[0][2].is_null() && v[1][2].is_null()).then_some(v))
        })
        .await?;
    ensure(first[0][1].as_u64() == Some(1), || {
        format!("step 1 shows not one data step: {first}")
    })?;
    // Forward until the shape lane ends.
    let mut k = 0;
    let at = loop {
        k += 1;
        ensure(k <= last, || "the shape lane never ended".to_string())?;
        app.session
            .js(
                "[...document.querySelectorAll('.step-control button')].find(b => b.textContent.includes('Next')).click(); return null;",
                vec![],
            )
            .await?;
        let v = app
            .session
            .wait_until("the next step", ANALYSIS, || async {
                let r = app.session.js(SLIDER, vec![]).await?;
                if r[0].as_u64() != Some(k) {
                    return Ok(None);
                }
                Ok(Some(app.session.js(LANES, vec![]).await?))
            })
            .await?;
        if v[1][2].is_string() {
            break v;
        }
    };
    ensure(at[0][2].is_null() && k < last, || {
        format!("when the shape lane ended (step {k} of {last}) the data lane had too: {at}")
    })?;
    app.choose_example("vec-multiply-signature").await?;
    app.session
        .wait_until("the simplified signature of multiply", ANALYSIS, || async {
            let v = app
                .session
                .js(
                    "return document.querySelector('#tab-signatures.active') !== null
                       && document.body.textContent.includes('check fst (snd x) = fst y then <fst x, <fst (snd y), un>>');",
                    vec![],
                )
                .await?;
            Ok((v.as_bool() == Some(true)).then_some(()))
        })
        .await?;
    app.session.close().await;
    Ok(())
}

#[test]
fn e2e_a_pytorch_model_is_typed_and_its_error_found() {
    run(|env| Box::pin(pytorch_model(env)));
}

/// Issue #21: a PyTorch example from the gallery opens in the Types view with every
/// assignment typed and its definite error in the Problems list; naming a model that
/// is not there in the Model box says so; a long paste does not go through the
/// browser's quadratic insertion.
async fn pytorch_model(env: &Env) -> Result<()> {
    let app = env.app().await?;
    app.open(&env.server.base_url).await?;
    app.choose_example("mig-conv-chain").await?;
    let shown = app
        .session
        .wait_until("the model's error and its types", ANALYSIS, || async {
            let rows = app
                .session
                .js(
                    "return document.querySelectorAll('#view-types tr.row').length;",
                    vec![],
                )
                .await?;
            let shown = app.diagnostics().await?;
            let error = shown
                .iter()
                .any(|d| d.text.contains("Conv2d expects 4 input channels"));
            Ok((error && rows.as_u64() >= Some(2)).then_some(shown))
        })
        .await?;
    ensure(shown.iter().any(|d| d.text.contains("returns")), || {
        format!("no line says what the model returns: {shown:?}")
    })?;
    app.session
        .js(
            "const i = document.querySelector('input#opt-model'); i.value = 'Nope';
             i.dispatchEvent(new Event('change', {bubbles: true})); return null;",
            vec![],
        )
        .await?;
    app.session
        .wait_until(
            "the Model box's unknown name to be reported",
            ANALYSIS,
            || async {
                let shown = app.diagnostics().await?;
                Ok(shown
                    .iter()
                    .any(|d| {
                        d.text
                            .contains("no module-level variable or class named `Nope`")
                    })
                    .then_some(()))
            },
        )
        .await?;
    // A paste of many lines is spliced in by the page (the browser's own insertion is
    // quadratic in lines): the text becomes the paste, and the work it replaced, the
    // user's own now, waits behind Restore since native undo will not hold it.
    app.session
        .js(
            "const e = document.querySelector('#editor'); e.focus(); e.setSelectionRange(0, 0);
             document.execCommand('insertText', false, '# mine\\n');
             const text = Array.from({length: 400}, (_, i) => 'x' + i + ' = ' + i).join('\\n');
             e.select();
             const dt = new DataTransfer(); dt.setData('text/plain', text);
             e.dispatchEvent(new ClipboardEvent('paste', {clipboardData: dt, bubbles: true, cancelable: true}));
             return null;",
            vec![],
        )
        .await?;
    app.session
        .wait_until(
            "the long paste to replace the text, the work set aside",
            ANALYSIS,
            || async {
                let v = app
                    .session
                    .js(
                        "return [document.querySelector('#editor').value.split('\\n').length,
                                 !!document.querySelector('#previous-notice')];",
                        vec![],
                    )
                    .await?;
                Ok((v[0].as_u64() == Some(400) && v[1].as_bool() == Some(true)).then_some(()))
            },
        )
        .await?;
    app.session.close().await;
    Ok(())
}

/// Issue #21 items 5 and 6: Listing 2 opens on its migration lattice — 16 skeletons,
/// the 8 empty ones dashed, one frontier node — and picking the frontier node offers its
/// migration, applied as annotations in one edit; the Constraints box makes Q2.
#[test]
fn e2e_the_migration_lattice_and_the_questions() {
    run(|env| Box::pin(migration_questions(env)));
}

async fn migration_questions(env: &Env) -> Result<()> {
    let app = env.app().await?;
    app.open(&env.server.base_url).await?;
    app.choose_example("mig-listing2").await?;
    let counts = app
        .session
        .wait_until("the lattice of Listing 2", ANALYSIS, || async {
            let v = app
                .session
                .js(
                    "return ['.graph-svg g.vertex', '.graph-svg g.vertex.empty', '.graph-svg g.vertex.frontier']
                        .map(s => document.querySelectorAll(s).length);",
                    vec![],
                )
                .await?;
            Ok((v[0].as_u64() == Some(16)).then_some(v))
        })
        .await?;
    // Empty: the 8 skeletons that make the channel position a number.
    ensure(
        counts[1].as_u64() == Some(8) && counts[2].as_u64() == Some(1),
        || format!("expected 8 empty skeletons and 1 frontier node, got {counts:?}"),
    )?;
    app.session
        .js(
            "document.querySelector('.graph-svg g.vertex.frontier')
                .dispatchEvent(new MouseEvent('click', {bubbles: true})); return null;",
            vec![],
        )
        .await?;
    // Picked, the node shows every value's type under its migration (item 6).
    app.session
        .wait_until("the picked node's types", ANALYSIS, || async {
            let v = app
                .session
                .js(
                    "const d = document.querySelector('.graph-pick .pick-detail');
                     return d ? d.textContent : '';",
                    vec![],
                )
                .await?;
            let text = v.as_str().unwrap_or_default().to_string();
            Ok(
                (text.starts_with("x: TensorType((1, Dyn, 2, 2))") && text.lines().count() > 2)
                    .then_some(()),
            )
        })
        .await?;
    app.session
        .wait_until("the picked node's migration to be written", ANALYSIS, || async {
            let done = app
                .session
                .js(
                    "const b = document.querySelector('#apply-pick'); if (b) b.click();
                     return document.querySelector('#editor').value.includes('TensorType((1, Dyn, 2, 2))');",
                    vec![],
                )
                .await?;
            Ok((done.as_bool() == Some(true)).then_some(()))
        })
        .await?;
    app.session
        .js(
            "const t = document.querySelector('textarea#opt-constraints');
             t.value = 'x.shape == (b, c, h, w)\\nc == 2';
             t.dispatchEvent(new Event('change', {bubbles: true})); return null;",
            vec![],
        )
        .await?;
    app.session
        .wait_until("Q2 under the constraint c == 2", ANALYSIS, || async {
            let shown = app.diagnostics().await?;
            Ok(shown
                .iter()
                .any(|d| d.text.contains("Q2 (under your constraints): no"))
                .then_some(()))
        })
        .await?;
    app.session.close().await;
    Ok(())
}

/// Issue #21 item 6: past six `Dyn` positions the lattice shows the greedy chain and
/// the top, each node expandable; picking one and pressing "Expand neighbours" adds
/// its id to the `expand` setting, and the analysis adds its covers.
#[test]
fn e2e_the_lattice_expands_lazily_past_six_positions() {
    run(|env| Box::pin(lazy_lattice(env)));
}

/// The lattice's vertex count, its expandable ones, and whether `id` is shown and
/// expandable.
const LATTICE_COUNTS: &str = "const q = s => document.querySelectorAll(s).length;
    const v = document.querySelector(`.graph-svg g.vertex[data-id='${arguments[0]}']`);
    return [q('.graph-svg g.vertex'), q('.graph-svg g.vertex.expandable'),
            v ? (v.classList.contains('expandable') ? 2 : 1) : 0];";

async fn lazy_lattice(env: &Env) -> Result<()> {
    let app = env.app().await?;
    app.open(&env.server.base_url).await?;
    app.choose_example("mig-listing2").await?;
    app.settle().await?;
    // A second input of four Dyn extents: eight positions (x's channel count cannot
    // be a number, so the chain skips it: 0, 1, 3 (empty), 5, …, fd, and the top).
    let code = app.editor_text().await?;
    let at = code.find("])):").ok_or("Listing 2's forward not found")? + 2;
    // The caret counts UTF-16 units (the file's comments have a `§`).
    let at = code[..at].encode_utf16().count();
    app.insert_at(at, ", y: TensorType([Dyn, Dyn, Dyn, Dyn])")
        .await?;
    let counts = |id: &'static str, want: [u64; 3]| {
        let app = &app;
        async move {
            let v = app.session.js(LATTICE_COUNTS, vec![json!(id)]).await?;
            let got: Vec<u64> = (0..3).map(|i| v[i].as_u64().unwrap_or(99)).collect();
            let shown: Result<Option<()>> = Ok((got == want).then_some(()));
            shown
        }
    };
    app.session
        .wait_until("the chain of 10 expandable nodes", ANALYSIS, || {
            counts("m1", [10, 10, 2])
        })
        .await?;
    app.session
        .js(
            "document.querySelector(\".graph-svg g.vertex[data-id='m1']\")
                .dispatchEvent(new MouseEvent('click', {bubbles: true})); return null;",
            vec![],
        )
        .await?;
    app.session
        .wait_until("the Expand neighbours button", ANALYSIS, || async {
            let v = app
                .session
                .js(
                    "const b = document.querySelector('#expand-pick'); if (b) b.click(); return !!b;",
                    vec![],
                )
                .await?;
            Ok((v.as_bool() == Some(true)).then_some(()))
        })
        .await?;
    // 1's covers not on the chain: 9, 11, 21, 41, 81; all of 1's neighbours are shown.
    app.session
        .wait_until("m1's neighbours", ANALYSIS, || counts("m1", [15, 14, 1]))
        .await?;
    app.session
        .wait_until("m81 shown", ANALYSIS, || counts("m81", [15, 14, 2]))
        .await?;
    app.session.close().await;
    Ok(())
}

/// Issue #20 item 9: the page's wasm holds the registry's faces and display code, not
/// the analysers (they are the worker's), so a new language grows the worker only.
/// Markers: the MATLAB builtin table's text, a Language T and a PyTorch explanation, all
/// compiled into the analysers.
#[test]
fn e2e_the_page_links_no_analyser() {
    let Some(dist) = shapex_tests::require::require(shapex_tests::require::Tool::AppDist) else {
        return;
    };
    let wasm = |worker: bool| -> Vec<u8> {
        let file = std::fs::read_dir(&dist)
            .expect("the dist folder is readable")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| {
                let name = p
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                name.ends_with("_bg.wasm") && name.starts_with("worker") == worker
            })
            .unwrap_or_else(|| {
                panic!(
                    "no {} wasm in {}",
                    if worker { "worker" } else { "page" },
                    dist.display()
                )
            });
        std::fs::read(file).expect("the wasm is readable")
    };
    let (page, worker) = (wasm(false), wasm(true));
    let holds =
        |bytes: &[u8], marker: &str| bytes.windows(marker.len()).any(|w| w == marker.as_bytes());
    for marker in [
        "category builtin = unknown",
        "a call's arguments give one extent name",
        "Migeed et al. 2024's first question",
    ] {
        assert!(
            holds(&worker, marker),
            "the worker should analyse (no {marker:?})"
        );
        assert!(
            !holds(&page, marker),
            "the page links an analyser ({marker:?})"
        );
    }
}

/// The main file of the tabs test: a script whose one statement calls another file.
const MAIN_CALLS: &str = "a = helper(ones(4,1));";
/// `helper.m` with a definite inner-dimension error for a column argument.
const HELPER_WRONG: &str = "function y = helper(x)\ny = x * x;\nend\n";

#[test]
fn e2e_files_in_tabs_call_each_other_and_closing_loses_nothing() {
    run(|env| Box::pin(file_tabs(env)));
}

/// What the page shows of the active file: the analyses finished, the diagnostics as
/// `code@line`, the Shapes view's text and the editor's.
#[derive(Debug)]
struct Shown {
    analyzed: String,
    diagnostics: Vec<String>,
    shapes: String,
    editor: String,
}

async fn shown(app: &App) -> Result<Shown> {
    let v = app
        .session
        .js(
            "return [document.querySelector('#app').dataset.analyzed ?? '',
                [...document.querySelectorAll('ul#diagnostics > li.diagnostic')]
                  .map(li => (li.dataset.code ?? '') + '@' + (li.dataset.line ?? '')),
                document.querySelector('table.shapes')?.textContent ?? '',
                document.querySelector('#editor').value];",
            vec![],
        )
        .await?;
    let text = |i: usize| v[i].as_str().unwrap_or_default().to_string();
    Ok(Shown {
        analyzed: text(0),
        diagnostics: v[1]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|d| d.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default(),
        shapes: text(2),
        editor: text(3),
    })
}

/// Waits for an analysis after `before` whose display `check` accepts.
async fn wait_shown(
    app: &App,
    before: &str,
    what: &str,
    check: impl Fn(&Shown) -> bool,
) -> Result<Shown> {
    let last = std::cell::RefCell::new(String::new());
    let (last_ref, check) = (&last, &check);
    let waited = app
        .session
        .wait_until(what, ANALYSIS, || async move {
            let s = shown(app).await?;
            let done = s.analyzed != before && check(&s);
            *last_ref.borrow_mut() = format!("{s:?}");
            Ok(done.then_some(s))
        })
        .await;
    waited.map_err(|e| format!("{e}\n  shown: {}", last.borrow()))
}

async fn click(app: &App, css: &str) -> Result<()> {
    app.session
        .client
        .find(Locator::Css(css))
        .await
        .map_err(|e| format!("{css}: {e}"))?
        .click()
        .await
        .map_err(|e| format!("click {css}: {e}"))
}

fn tab(name: &str) -> String {
    format!("button.file-tab[data-file=\"{name}\"]")
}

async fn tab_names(app: &App) -> Result<Vec<String>> {
    let v = app
        .session
        .js(
            "return [...document.querySelectorAll('button.file-tab')].map(b => b.dataset.file);",
            vec![],
        )
        .await?;
    Ok(v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|n| n.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default())
}

/// Renames tab `from` as a user does: double-click, type the name, Enter.
async fn rename(app: &App, from: &str, to: &str) -> Result<()> {
    app.session
        .js(
            "document.querySelector(arguments[0])
               .dispatchEvent(new MouseEvent('dblclick', { bubbles: true }));",
            vec![json!(tab(from))],
        )
        .await?;
    let field = app
        .session
        .wait_until("the rename field", ANALYSIS, || async {
            Ok(app
                .session
                .client
                .find(Locator::Css("input#rename-file"))
                .await
                .ok())
        })
        .await?;
    // The field starts with the old name selected: typing replaces it.
    field
        .send_keys(&format!("{to}\u{E007}"))
        .await
        .map_err(|e| e.to_string())
}

/// Two files in tabs: `main.m` calls `helper(…)`, which runs the `helper.m` tab; an
/// edit in either re-analyses the active one; a refused name keeps the old one;
/// closing a tab is undone with its text; a share link carries both files.
async fn file_tabs(env: &Env) -> Result<()> {
    let app = env.app().await?;
    app.open(&env.server.base_url).await?;
    app.clear_and_type(MAIN_CALLS).await?;
    ensure(tab_names(&app).await? == ["main.m"], || {
        "one tab, main.m, at the start".into()
    })?;

    click(&app, "button#add-file").await?;
    ensure(tab_names(&app).await? == ["main.m", "helper.m"], || {
        "+ adds helper.m".into()
    })?;
    ensure(app.editor_text().await?.is_empty(), || {
        "the new file is shown, empty".into()
    })?;
    // A name without the language's extension is refused, with a message.
    rename(&app, "helper.m", "helper").await?;
    let error = app
        .session
        .js(
            "return document.querySelector('#file-error').textContent;",
            vec![],
        )
        .await?;
    ensure(
        error.as_str().is_some_and(|e| e.contains(".m"))
            && tab_names(&app).await? == ["main.m", "helper.m"],
        || format!("a refused name keeps the old one and says why: {error:?}"),
    )?;
    rename(&app, "helper.m", "util.m").await?;
    rename(&app, "util.m", "helper.m").await?;
    ensure(tab_names(&app).await? == ["main.m", "helper.m"], || {
        "renamed util.m then helper.m".into()
    })?;
    app.session.paste(HELPER_WRONG).await?;

    let before = app.analyzed().await?;
    click(&app, &tab("main.m")).await?;
    wait_shown(&app, &before, "helper's x * x as an error of line 1", |s| {
        s.editor == MAIN_CALLS
            && s.diagnostics
                .iter()
                .any(|d| d.starts_with("shape.mtimes") && d.ends_with("@1"))
    })
    .await?;

    click(&app, &tab("helper.m")).await?;
    ensure(app.editor_text().await? == HELPER_WRONG, || {
        "helper.m keeps its text".into()
    })?;
    app.insert_at(HELPER_WRONG.find("* x").unwrap(), ".")
        .await?;
    app.settle().await?;
    let before = app.analyzed().await?;
    click(&app, &tab("main.m")).await?;
    wait_shown(&app, &before, "no error, and a shown as <4,1>", |s| {
        s.editor == MAIN_CALLS
            && s.diagnostics.is_empty()
            && (s.shapes.contains("<4,1>") || s.shapes.contains("4×1"))
    })
    .await?;

    // Closing loses nothing: Undo close brings the tab back with its text.
    click(&app, "button.file-close[aria-label=\"Close helper.m\"]").await?;
    ensure(tab_names(&app).await? == ["main.m"], || {
        "helper.m closed".into()
    })?;
    click(&app, "button#undo-close").await?;
    ensure(tab_names(&app).await? == ["main.m", "helper.m"], || {
        "Undo close restores the tab where it was".into()
    })?;
    let fixed = HELPER_WRONG.replace("x * x", "x .* x");
    let text = app.editor_text().await?;
    ensure(text == fixed, || format!("helper.m came back as {text:?}"))?;

    // A link carries both files, the active one in the editor.
    click(&app, &tab("main.m")).await?;
    let url = app.share_link().await?;
    let other = env.app().await?;
    other.open(&url).await?;
    let (names, code) = (tab_names(&other).await?, other.editor_text().await?);
    ensure(
        names == ["main.m", "helper.m"] && code == MAIN_CALLS,
        || format!("the link opened {names:?} with {code:?}"),
    )?;
    click(&other, &tab("helper.m")).await?;
    let code = other.editor_text().await?;
    ensure(code == fixed, || format!("the link's helper.m is {code:?}"))?;
    other.session.close().await;
    app.session.close().await;
    Ok(())
}

#[test]
fn e2e_values_show_per_statement_and_ir_lines_follow_the_source() {
    run(|env| Box::pin(values_and_ir(env)));
}

/// Every kind of value the Values view writes, and a line whose IR has temporaries.
const VALUES: &str = "x = zeros(3,4);\nn = 7;\ns = 'hello';\nf = @sin;\ny = x * 2 + n;\n";

/// Issue #22 item 8: the Values tab shows each statement's variables with their
/// abstract values, in the chosen notation; in the IR tab the lines of the caret's
/// source line are highlighted, and clicking an IR line puts the caret on its source
/// line.
async fn values_and_ir(env: &Env) -> Result<()> {
    let app = env.app().await?;
    app.open(&env.server.base_url).await?;
    let before = app.analyzed().await?;
    app.clear_and_type(VALUES).await?;
    app.wait_for_analysis(&before, "the program analysed", |_| true)
        .await?;
    app.settle().await?;
    app.session
        .client
        .find(Locator::Css("select#notation"))
        .await
        .map_err(|e| format!("select#notation: {e}"))?
        .select_by_value("times")
        .await
        .map_err(|e| e.to_string())?;
    click(&app, "#tab-values").await?;
    const ROWS: &str = "return [...document.querySelectorAll('#view-values table.shapes tr.row')]
        .map(r => [r.querySelector('.lineno').textContent, r.querySelector('td').textContent]);";
    let rows = app
        .session
        .wait_until("the Values view's rows", ANALYSIS, || async {
            let v = app.session.js(ROWS, vec![]).await?;
            Ok((v.as_array().map_or(0, Vec::len) == 5).then_some(v))
        })
        .await?;
    ensure(
        rows[1] == json!(["2", "n: double 1×1 = 7"])
            && rows[2] == json!(["3", "s: char 1×5 = 'hello'"])
            && rows[3] == json!(["4", "f: function_handle = @sin"]),
        || format!("the Values view shows {rows}"),
    )?;
    ensure(!rows.to_string().contains("mc_t"), || {
        format!("a temporary shows in the Values view: {rows}")
    })?;
    builtin_hover(&app).await?;

    // The caret on line 1: the IR lines lowered from it are highlighted, no other.
    click(&app, "#tab-ir").await?;
    app.session
        .js(
            "const e = document.querySelector('#editor');
             e.focus(); e.setSelectionRange(0, 0);
             e.dispatchEvent(new KeyboardEvent('keyup', { bubbles: true }));",
            vec![],
        )
        .await?;
    const HERE: &str =
        "return [...document.querySelectorAll('#view-ir .listing .from-source.here')]
        .map(d => d.dataset.sourceLine);";
    let here = app
        .session
        .wait_until("the caret's IR lines highlighted", ANALYSIS, || async {
            let v = app.session.js(HERE, vec![]).await?;
            Ok((v.as_array().is_some_and(|a| !a.is_empty())).then_some(v))
        })
        .await?;
    ensure(here.as_array().unwrap().iter().all(|l| l == "1"), || {
        format!("lines of other source lines are highlighted: {here}")
    })?;

    // Clicking the IR line of `y = …` (line 5) puts the caret on line 5, and its IR
    // lines (temporaries included) are the highlighted ones.
    app.session
        .js(
            "[...document.querySelectorAll('#view-ir .listing .from-source')]
               .find(d => d.textContent.trim().startsWith('y = '))
               .dispatchEvent(new MouseEvent('click', { bubbles: true }));",
            vec![],
        )
        .await?;
    let caret = app
        .session
        .js(
            "const e = document.querySelector('#editor');
             return [document.activeElement === e, e.value.slice(0, e.selectionStart).split('\\n').length];",
            vec![],
        )
        .await?;
    ensure(caret == json!([true, 5]), || {
        format!("clicking the IR of line 5 left the caret at {caret} (focused, line)")
    })?;
    let here = app
        .session
        .wait_until("line 5's IR lines highlighted", ANALYSIS, || async {
            let v = app.session.js(HERE, vec![]).await?;
            let lines: Vec<&str> = v
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            Ok((lines.len() >= 2 && lines.iter().all(|l| *l == "5")).then_some(()))
        })
        .await;
    here.map_err(|e| format!("{e}: the IR lines of line 5 should be highlighted"))?;
    nonviable_lines_are_greyed(&app).await?;
    app.session.close().await;
    Ok(())
}

/// Issue #24 item 4: the pointer over `zeros` in `x = zeros(3,4);` gives the editor
/// the builtin's rule as its tooltip, and over `x` not.
async fn builtin_hover(app: &App) -> Result<()> {
    const TITLE_AT: &str = "const e = document.querySelector('#editor');
        const p = document.querySelector('.editor-scroll .probe').getBoundingClientRect();
        const r = e.getBoundingClientRect();
        const [line, col] = arguments;
        const cw = p.width / 10;
        e.dispatchEvent(new MouseEvent('mousemove', { bubbles: true,
            clientX: r.left + 10 + (col + 0.5) * cw,
            clientY: r.top + 10 + (line - 0.5) * p.height }));
        return e.title;";
    let over = |line: u32, col: u32| async move {
        app.session
            .js(TITLE_AT, vec![json!(line), json!(col)])
            .await
    };
    let zeros = over(1, 5).await?;
    ensure(
        zeros
            .as_str()
            .is_some_and(|t| t.starts_with("zeros: the builtin `zeros`") && t.contains("rule")),
        || format!("the pointer over zeros shows {zeros}"),
    )?;
    let x = over(1, 0).await?;
    ensure(!x.to_string().contains("builtin"), || {
        format!("the pointer over the variable x shows {x}")
    })?;
    Ok(())
}

/// A branch a constant condition never takes (lines 3–4); the test appends code after
/// `error(…)` (line 10).
/// (Unindented: the editor keeps a line's indentation on Enter.)
const UNREACHABLE: &str =
    "n = 5;\nif n < 3\nA = zeros(3, 3);\nB = A';\nelse\nA = ones(3, 3);\nend\nC = A * 2;\n";

/// Issue #22 item 3: the lines whose every statement no execution reaches are greyed
/// in the editor (`.highlight > .line.nonviable`), and reached lines are not. A
/// screenshot of them is written to `target/e2e/nonviable.png`.
async fn nonviable_lines_are_greyed(app: &App) -> Result<()> {
    let before = app.analyzed().await?;
    app.clear_and_type(&format!("{UNREACHABLE}error('stop');\nD = C + 1;\n"))
        .await?;
    app.wait_for_analysis(&before, "the unreachable program analysed", |_| true)
        .await?;
    app.settle().await?;
    const GREY: &str = "return [...document.querySelectorAll('.highlight > .line')]
        .map(l => l.classList.contains('nonviable'));";
    let grey = app
        .session
        .wait_until("the unreachable lines greyed", ANALYSIS, || async {
            let v = app.session.js(GREY, vec![]).await?;
            Ok((v.as_array().is_some_and(|a| a.iter().any(|g| g == true))).then_some(v))
        })
        .await?;
    let expected = json!([false, false, true, true, false, false, false, false, false, true]);
    ensure(
        grey.as_array().map(|a| &a[..a.len().min(10)]) == expected.as_array().map(|a| &a[..]),
        || format!("greyed lines (1-based order) are {grey}, expected {expected}"),
    )?;
    // Greyed text is drawn in the muted colour, reached text is not.
    let colours = app
        .session
        .js(
            "const ls = document.querySelectorAll('.highlight > .line');
             const c = l => getComputedStyle(l.querySelector('span')).color;
             return [c(ls[2]), c(ls[5])];",
            vec![],
        )
        .await?;
    ensure(colours[0] != colours[1], || {
        format!("a greyed line has the colour of a reached one: {colours}")
    })?;
    save_screenshot(app, "nonviable.png").await
}

/// The page as it is now, in `target/e2e/NAME`, for a person to look at.
async fn save_screenshot(app: &App, name: &str) -> Result<()> {
    let png = app
        .session
        .client
        .screenshot()
        .await
        .map_err(|e| e.to_string())?;
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../target/e2e")
        .join(name);
    std::fs::create_dir_all(out.parent().unwrap()).map_err(|e| e.to_string())?;
    std::fs::write(&out, &png).map_err(|e| e.to_string())?;
    eprintln!("screenshot: {}", out.display());
    Ok(())
}

/// The caret's witness heads the Problems list, and its Write repro button makes the
/// file a script that calls the function with the failing sizes: then the call is a
/// definite error.
#[test]
fn e2e_the_carets_witness_writes_a_repro_that_fails() {
    run(|env| Box::pin(caret_witness(env)));
}

async fn caret_witness(env: &Env) -> Result<()> {
    let app = env.app().await?;
    app.open(&env.server.base_url).await?;
    app.settle().await?;
    let before = app.analyzed().await?;
    app.clear_and_type("function y = f(x)\ny = x * x;\nend")
        .await?;
    app.wait_for_analysis(&before, "the analysis of f", |_| true)
        .await?;
    app.settle().await?;
    // ArrowUp: from the end of line 3 to line 2, `y = x * x`, a run-time check.
    app.editor()
        .await?
        .send_keys("\u{E013}")
        .await
        .map_err(|e| e.to_string())?;
    let shown = app
        .session
        .wait_until("the caret's witness on line 2", ANALYSIS, || async {
            let v = app
                .session
                .js(
                    "const li = document.querySelector('ul#diagnostics > li.caret-witness');
                     return li ? [li.dataset.line, li.textContent] : null;",
                    vec![],
                )
                .await?;
            Ok((v[0] == "2").then(|| v[1].as_str().unwrap_or_default().to_string()))
        })
        .await?;
    ensure(
        shown.contains("fails when") && shown.contains("passes when"),
        || format!("the caret's witness says {shown:?}"),
    )?;
    let before = app.analyzed().await?;
    app.session
        .client
        .find(Locator::Css("li.caret-witness button.repro"))
        .await
        .map_err(|e| format!("no Write repro button: {e}"))?
        .click()
        .await
        .map_err(|e| e.to_string())?;
    let text = app.editor_text().await?;
    ensure(
        text.starts_with("% Shape Explorer: sizes under which line 2 fails\n")
            && text.contains("\nf(x);\nfunction y = f(x)\n"),
        || format!("the repro written is {text:?}"),
    )?;
    // The call is line 3 of the script now, and it fails.
    app.wait_for_analysis(&before, "an error at the repro's call", on_line(3))
        .await?;
    // VEC: the repro is a definition after `mul`'s line (8), which VEC's own run
    // fails, shown at line 10 under its comment.
    write_repro_at(&app, "vec-witness-repro", "def mul", 8, 10).await?;
    let text = app.editor_text().await?;
    ensure(text.contains("\ndef repro = mul (make ~"), || {
        format!("the VEC repro written is {text:?}")
    })?;
    save_screenshot(&app, "vec-repro.png").await?;
    // The core calculus does not run: the repro writes the sizes into the declaration,
    // and the return on line 6 becomes a definite error.
    write_repro_at(&app, "mig-core-conv-example", "return add", 6, 6).await?;
    let text = app.editor_text().await?;
    ensure(!text.contains("x : TensorType([Dyn"), || {
        format!("the calculus repro left a Dyn: {text:?}")
    })?;
    save_screenshot(&app, "calculus-repro.png").await?;
    app.session.close().await;
    Ok(())
}

/// Opens gallery `example`, puts the caret at the start of `at`, waits for its
/// witness (on `line`) to head the Problems list, presses its Write repro, and waits
/// for an error on `fails`.
async fn write_repro_at(app: &App, example: &str, at: &str, line: u32, fails: u32) -> Result<()> {
    app.choose_example(example).await?;
    app.settle().await?;
    let code = app.editor_text().await?;
    let offset = code
        .find(at)
        .ok_or_else(|| format!("{at:?} not in {example}"))?;
    let offset = code[..offset].encode_utf16().count();
    app.session
        .js(
            "const e = document.querySelector('#editor'); e.focus();
             e.setSelectionRange(arguments[0], arguments[0]);
             e.dispatchEvent(new KeyboardEvent('keyup', {bubbles: true})); return null;",
            vec![json!(offset)],
        )
        .await?;
    let want = line.to_string();
    app.session
        .wait_until(
            &format!("the caret's witness on line {line}"),
            ANALYSIS,
            || async {
                let v = app
                    .session
                    .js(
                        "const li = document.querySelector('ul#diagnostics > li.caret-witness');
                     return li ? li.dataset.line : null;",
                        vec![],
                    )
                    .await?;
                Ok((v == want.as_str()).then_some(()))
            },
        )
        .await?;
    let before = app.analyzed().await?;
    app.session
        .client
        .find(Locator::Css("li.caret-witness button.repro"))
        .await
        .map_err(|e| format!("no Write repro button in {example}: {e}"))?
        .click()
        .await
        .map_err(|e| e.to_string())?;
    app.wait_for_analysis(
        &before,
        &format!("an error on line {fails} of {example}"),
        on_line(fails),
    )
    .await
}
