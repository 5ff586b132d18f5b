//! The app driven as a user drives it, shared by the end-to-end test files: a
//! scenario gets an [`Env`] (a server on the release build and a private chromedriver),
//! opens [`App`]s (each a fresh Chromium profile) and reads and edits through them.
#![allow(dead_code)] // each test binary uses a part

use super::{ChromeDriver, Result, Session, StaticServer};
use fantoccini::Locator;
use serde_json::json;
use shapex_tests::require::{require, Tool};
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::Duration;

/// Generous: the first load compiles the wasm while other builds share the CPU.
pub const LOAD: Duration = Duration::from_secs(60);
pub const ANALYSIS: Duration = Duration::from_secs(20);

/// The running pieces one scenario needs. Sessions opened through it are all closed
/// at the end, even when the scenario fails, so no Chromium outlives the test.
pub struct Env {
    pub server: StaticServer,
    pub driver: ChromeDriver,
    sessions: Mutex<Vec<fantoccini::Client>>,
}

impl Env {
    pub async fn app(&self) -> Result<App> {
        let session = Session::open(&self.driver).await?;
        self.sessions.lock().unwrap().push(session.client.clone());
        Ok(App { session })
    }

    pub async fn close_all(&self) {
        let clients = std::mem::take(&mut *self.sessions.lock().unwrap());
        for c in clients {
            let _ = c.close().await;
        }
    }
}

pub type Scenario = for<'a> fn(&'a Env) -> Pin<Box<dyn Future<Output = Result<()>> + 'a>>;

/// Runs one scenario against a fresh server and chromedriver. Scenarios run one at a
/// time: several Chromiums on a 2-core CI machine make timings flaky.
pub fn run(scenario: Scenario) {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    // All three are looked up, so a local skip names everything that is missing.
    let (dist, driver, chrome) = (
        require(Tool::AppDist),
        require(Tool::ChromeDriver),
        require(Tool::Chromium),
    );
    let (Some(dist), Some(driver), Some(chrome)) = (dist, driver, chrome) else {
        return;
    };
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let outcome = runtime.block_on(async {
        let env = Env {
            server: StaticServer::start(&dist)?,
            driver: ChromeDriver::start(&driver, &chrome)?,
            sessions: Mutex::new(Vec::new()),
        };
        let outcome = scenario(&env).await;
        env.close_all().await;
        outcome
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

/// One browser tab on the app, with the reads and edits the scenarios need.
pub struct App {
    pub session: Session,
}

/// One rendered `li.diagnostic`.
#[derive(Debug)]
pub struct ShownDiagnostic {
    pub line: String,
    pub col: String,
    pub text: String,
}

impl App {
    /// Opens `url` and waits until the app has mounted and analysed once.
    pub async fn open(&self, url: &str) -> Result<()> {
        self.session
            .client
            .goto(url)
            .await
            .map_err(|e| format!("cannot open {url}: {e}"))?;
        let mounted = self
            .session
            .wait_until("the app to mount (#app[data-ready=true])", LOAD, || async {
                let ready = self
                    .session
                    .js(
                        "const a = document.querySelector('#app');
                         return !!a && a.dataset.ready === 'true' && a.dataset.analyzed !== undefined;",
                        vec![],
                    )
                    .await?;
                Ok((ready == json!(true)).then_some(()))
            })
            .await;
        if let Err(e) = mounted {
            let body = self
                .session
                .js(
                    "return document.body ? document.body.outerHTML.slice(0, 600) : '';",
                    vec![],
                )
                .await;
            return Err(format!("{e}\n  page body: {body:?}"));
        }
        Ok(())
    }

    /// Presses Share and returns the link it makes (`input#share-url`, emptied first so
    /// an older link is never taken for it).
    pub async fn share_link(&self) -> Result<String> {
        self.session
            .js("document.querySelector('#share-url').value = '';", vec![])
            .await?;
        self.session
            .client
            .find(Locator::Css("button#share"))
            .await
            .map_err(|e| format!("button#share: {e}"))?
            .click()
            .await
            .map_err(|e| e.to_string())?;
        self.session
            .wait_until("input#share-url to hold a link", ANALYSIS, || async {
                let v = self
                    .session
                    .js(
                        "return document.querySelector('input#share-url')?.value ?? '';",
                        vec![],
                    )
                    .await?;
                let url = v.as_str().unwrap_or_default().to_string();
                Ok((!url.is_empty()).then_some(url))
            })
            .await
    }

    /// `#app[data-analyzed]`: how many analyses have finished.
    pub async fn analyzed(&self) -> Result<String> {
        let v = self
            .session
            .js(
                "return document.querySelector('#app').dataset.analyzed ?? '';",
                vec![],
            )
            .await?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    /// Waits until no analysis has finished for a while, so what the page shows is the
    /// analysis of what the editor holds: a debounced run may still be pending after
    /// the counter first moves (the page's own first analysis can be that move).
    pub async fn settle(&self) -> Result<()> {
        let mut last = self.analyzed().await?;
        for _ in 0..50 {
            tokio::time::sleep(std::time::Duration::from_millis(400)).await;
            let now = self.analyzed().await?;
            if now == last {
                return Ok(());
            }
            last = now;
        }
        Err("the app kept re-analysing for 20 s".into())
    }

    pub async fn editor_text(&self) -> Result<String> {
        let v = self
            .session
            .js("return document.querySelector('#editor').value;", vec![])
            .await?;
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| "textarea#editor not found".to_string())
    }

    /// Opens gallery example `id` through the examples menu, as a user does.
    pub async fn choose_example(&self, id: &str) -> Result<()> {
        self.session
            .client
            .find(Locator::Css("select#examples"))
            .await
            .map_err(|e| e.to_string())?
            .select_by_value(id)
            .await
            .map_err(|e| format!("cannot choose example {id}: {e}"))
    }

    pub async fn diagnostics(&self) -> Result<Vec<ShownDiagnostic>> {
        let v = self
            .session
            .js(
                "return [...document.querySelectorAll('ul#diagnostics > li.diagnostic')]
                   .map(li => [li.dataset.line ?? '', li.dataset.col ?? '', li.textContent]);",
                vec![],
            )
            .await?;
        let rows = v.as_array().cloned().unwrap_or_default();
        Ok(rows
            .iter()
            .map(|r| {
                let field = |i: usize| r[i].as_str().unwrap_or_default().to_string();
                ShownDiagnostic {
                    line: field(0),
                    col: field(1),
                    text: field(2),
                }
            })
            .collect())
    }

    /// Waits until an analysis newer than `before` has finished and `check` accepts
    /// what is shown (analyses may be debounced, so several can land while typing).
    pub async fn wait_for_analysis<F>(&self, before: &str, what: &str, check: F) -> Result<()>
    where
        F: Fn(&[ShownDiagnostic]) -> bool,
    {
        let waited = self
            .session
            .wait_until(what, ANALYSIS, || async {
                if self.analyzed().await? == before {
                    return Ok(None);
                }
                Ok(check(&self.diagnostics().await?).then_some(()))
            })
            .await;
        match waited {
            Ok(()) => Ok(()),
            // Say what the page shows, so a failure in CI explains itself.
            Err(e) => Err(format!(
                "{e}\n  data-analyzed: {:?} (was {before:?})\n  editor: {:?}\n  diagnostics: {:?}",
                self.analyzed().await,
                self.editor_text().await,
                self.diagnostics().await
            )),
        }
    }

    /// Empties the editor as a user would (select all, delete) and types `text`.
    pub async fn clear_and_type(&self, text: &str) -> Result<()> {
        let editor = self.editor().await?;
        editor.click().await.map_err(|e| e.to_string())?;
        // Select-all then delete, in one key sequence (Ctrl+A, Delete).
        editor
            .send_keys("\u{E009}a\u{E009}\u{E017}")
            .await
            .map_err(|e| e.to_string())?;
        if !self.editor_text().await?.is_empty() {
            // Some keymaps ignore Ctrl+A in textareas; fall back to an input event.
            self.session
                .js(
                    "const e = document.querySelector('#editor');
                     e.value = ''; e.dispatchEvent(new Event('input', { bubbles: true }));",
                    vec![],
                )
                .await?;
        }
        editor.send_keys(text).await.map_err(|e| e.to_string())?;
        let shown = self.editor_text().await?;
        if shown != text {
            return Err(format!("typed {text:?} but the editor holds {shown:?}"));
        }
        Ok(())
    }

    /// Puts the caret at byte offset `at` (ASCII text) and types `text` there.
    pub async fn insert_at(&self, at: usize, text: &str) -> Result<()> {
        let editor = self.editor().await?;
        // Until the window has focus, ChromeDriver's Send Keys focuses it and puts the
        // caret at the end (Chromium 148): a click gives it focus first.
        editor
            .click()
            .await
            .map_err(|e| format!("cannot click the editor: {e}"))?;
        self.session
            .js(
                "const e = document.querySelector('#editor');
                 e.focus(); e.setSelectionRange(arguments[0], arguments[0]);",
                vec![json!(at)],
            )
            .await?;
        editor.send_keys(text).await.map_err(|e| e.to_string())
    }

    pub async fn editor(&self) -> Result<fantoccini::elements::Element> {
        self.session
            .client
            .find(Locator::Css("textarea#editor"))
            .await
            .map_err(|e| format!("textarea#editor: {e}"))
    }

    pub async fn banner_text(&self) -> Result<String> {
        let v = self
            .session
            .js(
                "const b = document.querySelector('#banner');
                 return b && b.offsetParent !== null ? b.textContent.trim() : '';",
                vec![],
            )
            .await?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }
}

pub fn ensure(ok: bool, msg: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(msg())
    }
}
