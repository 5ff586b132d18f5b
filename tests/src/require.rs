//! What a test needs from outside this crate, and the one rule for when it is missing:
//! locally the test says so on stderr (past the test harness's capture, so the notice
//! shows in a plain `cargo test`) and returns early; when `CI` is set it fails, naming
//! what is missing and how to get it, so CI can never pass by skipping.
//!
//! Required under CI is exactly what `scripts/test` installs (see `ensure_apt` in
//! `scripts/lib.sh`) or builds: `octave-cli` and Octave's own m-files (apt `octave`),
//! Chromium and ChromeDriver (apt `chromium`, `chromium-driver`) and the release build
//! of the app (`trunk build --release`, given as `SHAPEX_DIST`). Nothing outside the
//! repository is required: the real-code corpus (`tests/corpus/`, fetched to
//! `/work/corpus`) is a measurement run by hand, not a test.
//!
//! A tool named by an environment variable that does not exist (`CHROME_BIN`,
//! `CHROMEDRIVER`, `SHAPEX_DIST` without `index.html`) fails even locally: it was asked
//! for explicitly.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Something a test needs that `cargo test` does not provide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// `octave-cli` on `PATH`: the Octave differential suite.
    OctaveCli,
    /// Octave's own m-files under `/usr/share/octave/*/m`: the parse and analysis
    /// corpus tests.
    OctaveMFiles,
    /// Chromium (`$CHROME_BIN`, else `chromium`, `chromium-browser` or `google-chrome`
    /// on `PATH`): the end-to-end browser test.
    Chromium,
    /// ChromeDriver (`$CHROMEDRIVER`, else `chromedriver` on `PATH`): the end-to-end
    /// browser test.
    ChromeDriver,
    /// The release build of the app (`$SHAPEX_DIST` with an `index.html`): the
    /// end-to-end browser test.
    AppDist,
    /// axe-core's `axe.min.js` (`$AXE_CORE_JS`): the accessibility check of the
    /// end-to-end test.
    AxeCore,
}

/// The outcome of looking for a [`Tool`].
enum Lookup {
    Found(PathBuf),
    /// Not there; the text says where it was looked for.
    Absent(String),
    /// Named explicitly by an environment variable, and not there.
    Broken(String),
}

impl Tool {
    pub fn name(self) -> &'static str {
        match self {
            Tool::OctaveCli => "octave-cli",
            Tool::OctaveMFiles => "the Octave m-file corpus",
            Tool::Chromium => "Chromium",
            Tool::ChromeDriver => "chromedriver",
            Tool::AppDist => "the app's release build",
            Tool::AxeCore => "axe-core",
        }
    }

    /// How to get it.
    pub fn install_hint(self) -> &'static str {
        match self {
            Tool::OctaveCli | Tool::OctaveMFiles => {
                "install the Debian package `octave` (scripts/test does: `ensure_apt --lean \
                 octave-cli:octave` in scripts/lib.sh)"
            }
            Tool::Chromium => {
                "install the Debian package `chromium` or set CHROME_BIN (scripts/test does: \
                 `ensure_apt chromium:chromium` in scripts/lib.sh)"
            }
            Tool::ChromeDriver => {
                "install the Debian package `chromium-driver` or set CHROMEDRIVER (scripts/test \
                 does: `ensure_apt chromedriver:chromium-driver` in scripts/lib.sh)"
            }
            Tool::AppDist => {
                "run `trunk build --release` and set SHAPEX_DIST=$PWD/dist (`scripts/test build \
                 e2e` does both; its native step skips the tests named e2e_*, which need the \
                 build)"
            }
            Tool::AxeCore => {
                "install the npm package `axe-core` and set AXE_CORE_JS to its axe.min.js \
                 (scripts/test does: `ensure_axe` in scripts/lib.sh)"
            }
        }
    }

    fn find(self) -> Lookup {
        match self {
            Tool::OctaveCli => on_path(&["octave-cli"]),
            Tool::OctaveMFiles => {
                if crate::corpus::octave_m_files().is_empty() {
                    Lookup::Absent("no *.m file under /usr/share/octave/*/m".into())
                } else {
                    Lookup::Found(PathBuf::from("/usr/share/octave"))
                }
            }
            Tool::Chromium => from_env_or_path(
                "CHROME_BIN",
                &["chromium", "chromium-browser", "google-chrome"],
            ),
            Tool::ChromeDriver => from_env_or_path("CHROMEDRIVER", &["chromedriver"]),
            Tool::AxeCore => match std::env::var_os("AXE_CORE_JS") {
                None => Lookup::Absent("AXE_CORE_JS is not set".into()),
                Some(path) if Path::new(&path).is_file() => Lookup::Found(path.into()),
                Some(path) => Lookup::Broken(format!(
                    "AXE_CORE_JS={} is not a file",
                    Path::new(&path).display()
                )),
            },
            Tool::AppDist => match std::env::var_os("SHAPEX_DIST") {
                None => Lookup::Absent("SHAPEX_DIST is not set".into()),
                Some(dir) => {
                    let dir = PathBuf::from(dir);
                    if dir.join("index.html").is_file() {
                        Lookup::Found(dir)
                    } else {
                        Lookup::Broken(format!("SHAPEX_DIST={} has no index.html", dir.display()))
                    }
                }
            },
        }
    }
}

/// True when the environment variable `CI` is set to anything but empty, `0` or
/// `false`. CI sets it; so does `scripts/test`, which installs every [`Tool`].
pub fn in_ci() -> bool {
    flag("CI")
}

/// True when environment variable `name` is set to anything but empty, `0` or `false`.
pub fn flag(name: &str) -> bool {
    std::env::var_os(name)
        .is_some_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// Where `tool` is. When it is missing: `None` after a notice on stderr, or a panic
/// naming the tool and how to install it when [`in_ci`] (or when an environment
/// variable named it explicitly).
pub fn require(tool: Tool) -> Option<PathBuf> {
    match tool.find() {
        Lookup::Found(path) => Some(path),
        Lookup::Broken(why) => panic!("{} is missing: {why}; {}", tool.name(), tool.install_hint()),
        Lookup::Absent(why) if in_ci() => panic!(
            "{} is missing ({why}) and CI is set, so this test may not skip: {}",
            tool.name(),
            tool.install_hint()
        ),
        Lookup::Absent(why) => {
            notice(&format!(
                "skipped: {} is missing ({why}); {}. Under CI this fails.",
                tool.name(),
                tool.install_hint()
            ));
            None
        }
    }
}

/// Writes a line to stderr directly, so the test harness does not capture it: a skip
/// or the list of fixtures that ran shows in a plain `cargo test`.
pub fn notice(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

fn from_env_or_path(var: &str, names: &[&str]) -> Lookup {
    match std::env::var_os(var) {
        Some(path) if Path::new(&path).is_file() => Lookup::Found(path.into()),
        Some(path) => Lookup::Broken(format!(
            "{var}={} is not a file",
            Path::new(&path).display()
        )),
        None => on_path(names),
    }
}

fn on_path(names: &[&str]) -> Lookup {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
            .find(|candidate| candidate.is_file())
    });
    match found {
        Some(path) => Lookup::Found(path),
        None => Lookup::Absent(format!("no {} on PATH", names.join(" or "))),
    }
}
