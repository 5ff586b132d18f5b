//! Support for the end-to-end browser test: a static file server for the built app,
//! a private `chromedriver`, and WebDriver sessions in fresh Chromium profiles.
//! Every process and thread started here is stopped on drop, also when a test fails.

use fantoccini::wd::Capabilities;
use fantoccini::{Client, ClientBuilder};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub mod app;

pub type Result<T, E = String> = std::result::Result<T, E>;

/// Runs a browser benchmark when everything it needs is present (the release build,
/// ChromeDriver, Chromium, and Octave's m-files, which the realistic files are made
/// of): starts a server on the build and a driver, and awaits `bench` with the server's
/// base URL and the driver. Panics with the error it returns.
#[allow(dead_code)] // used by the benchmarks, not by the end-to-end test
pub fn bench<F>(bench: F)
where
    F: for<'a> FnOnce(
        &'a str,
        &'a ChromeDriver,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<()>> + 'a>>,
{
    use shapex_tests::require::{require, Tool};
    let (Some(dist), Some(driver), Some(chrome), Some(_)) = (
        require(Tool::AppDist),
        require(Tool::ChromeDriver),
        require(Tool::Chromium),
        require(Tool::OctaveMFiles),
    ) else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let outcome: Result<()> = runtime.block_on(async {
        let server = StaticServer::start(&dist)?;
        let driver = ChromeDriver::start(&driver, &chrome)?;
        bench(&server.base_url, &driver).await
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

/// Serves a `trunk build` output directory over HTTP on a free loopback port.
pub struct StaticServer {
    server: Arc<tiny_http::Server>,
    thread: Option<JoinHandle<()>>,
    pub base_url: String,
}

impl StaticServer {
    pub fn start(root: &Path) -> Result<Self> {
        let server = tiny_http::Server::http("127.0.0.1:0").map_err(|e| e.to_string())?;
        let port = server
            .server_addr()
            .to_ip()
            .ok_or("static server has no IP address")?
            .port();
        let server = Arc::new(server);
        let root = root.to_path_buf();
        let worker = Arc::clone(&server);
        let thread = std::thread::spawn(move || {
            for request in worker.incoming_requests() {
                let _ = respond(&root, request);
            }
        });
        Ok(StaticServer {
            server,
            thread: Some(thread),
            base_url: format!("http://127.0.0.1:{port}/"),
        })
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn respond(root: &Path, request: tiny_http::Request) -> std::io::Result<()> {
    // The app routes with the URL fragment, which never reaches the server, so
    // every page request is "/"; the query string is irrelevant for static files.
    let path = request.url().split(['?', '#']).next().unwrap_or("/");
    let relative = path.trim_start_matches('/');
    let relative = if relative.is_empty() {
        "index.html"
    } else {
        relative
    };
    // Refuse anything that could leave the dist directory.
    if relative
        .split('/')
        .any(|part| part == ".." || part.is_empty())
    {
        return request.respond(tiny_http::Response::empty(400));
    }
    let file = root.join(relative);
    match std::fs::read(&file) {
        Ok(bytes) => {
            let header = tiny_http::Header::from_bytes("Content-Type", content_type(&file))
                .expect("static header is valid");
            request.respond(tiny_http::Response::from_data(bytes).with_header(header))
        }
        Err(_) => request.respond(tiny_http::Response::empty(404)),
    }
}

/// `application/wasm` matters: browsers refuse to stream-compile wasm served otherwise.
fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "ico" => "image/x-icon",
        _ => "application/octet-stream",
    }
}

/// A `chromedriver` process on a free loopback port, killed on drop, and the Chromium
/// its sessions run.
pub struct ChromeDriver {
    child: Child,
    pub url: String,
    chrome: PathBuf,
}

impl ChromeDriver {
    /// Starts `binary` (chromedriver) for sessions in `chrome` (Chromium); both come
    /// from `shapex_tests::require`.
    pub fn start(binary: &Path, chrome: &Path) -> Result<Self> {
        let port = free_port()?;
        let child = Command::new(binary)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let driver = ChromeDriver {
            child,
            url: format!("http://127.0.0.1:{port}"),
            chrome: chrome.to_path_buf(),
        };
        let binary = binary.display();
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
            if Instant::now() > deadline {
                return Err(format!("{binary} did not listen on port {port} within 20s"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(driver)
    }
}

impl Drop for ChromeDriver {
    /// Asks chromedriver to shut down (it then reaps its Chromiums), and kills it only
    /// if it has not exited after a few seconds.
    fn drop(&mut self) {
        let addr = self.url.trim_start_matches("http://");
        if let Ok(mut stream) = TcpStream::connect(addr) {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(3)));
            let _ = write!(stream, "GET /shutdown HTTP/1.0\r\nHost: {addr}\r\n\r\n");
            let _ = stream.read(&mut [0u8; 256]);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> Result<u16> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(listener.local_addr().map_err(|e| e.to_string())?.port())
}

/// One browser session with its own, initially empty profile (so no localStorage
/// carries over from other sessions). Close it with [`Session::close`].
pub struct Session {
    pub client: Client,
    _profile: tempfile::TempDir,
}

impl Session {
    pub async fn open(driver: &ChromeDriver) -> Result<Self> {
        let profile = tempfile::tempdir().map_err(|e| e.to_string())?;
        // Without these flags Chromium stalls on the closed network or the sandbox.
        let mut args = vec![
            "--headless".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-dev-shm-usage".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--no-first-run".into(),
            "--window-size=1280,900".into(),
        ];
        args.push(format!("--user-data-dir={}", profile.path().display()));
        let options = json!({ "args": args, "binary": driver.chrome });
        let mut caps = Capabilities::new();
        caps.insert("goog:chromeOptions".into(), options);
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&driver.url)
            .await
            .map_err(|e| format!("cannot open a WebDriver session: {e}"))?;
        Ok(Session {
            client,
            _profile: profile,
        })
    }

    pub async fn close(self) {
        let _ = self.client.close().await;
    }

    /// Runs `script` (a function body; use `return`) and gives its JSON result.
    pub async fn js(&self, script: &str, args: Vec<Value>) -> Result<Value> {
        self.client
            .execute(script, args)
            .await
            .map_err(|e| format!("script failed: {e}\n{script}"))
    }

    /// Replaces the editor's text with `text` at once, as a paste does (typing would
    /// auto-indent), and lets the app hear it (`input`).
    #[allow(dead_code)] // not every test binary pastes
    pub async fn paste(&self, text: &str) -> Result<()> {
        self.js(
            "const e = document.querySelector('#editor'); e.value = arguments[0];
             e.dispatchEvent(new Event('input', { bubbles: true }));",
            vec![json!(text)],
        )
        .await
        .map(drop)
    }

    /// Polls `probe` until it returns `Some`, or fails after `timeout` saying `what`.
    pub async fn wait_until<T, F, Fut>(
        &self,
        what: &str,
        timeout: Duration,
        mut probe: F,
    ) -> Result<T>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<Option<T>>>,
    {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(v) = probe().await? {
                return Ok(v);
            }
            if Instant::now() > deadline {
                return Err(format!("timed out after {timeout:?} waiting for {what}"));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}
