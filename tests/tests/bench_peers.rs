//! Peers, side by side in one run, each as a ratio: our MATLAB front end against
//! Octave's own parser (`__parse_file__` in `octave-cli`) over Octave's m-file corpus.
//! Both parse every file once, in one process each (Octave's start-up is excluded: it
//! times its own loop with tic/toc). A benchmark, not a test: it prints and asserts only
//! that both parsers ran. `scripts/bench peers` runs it (`--ignored`).

use shapex_tests::corpus;
use shapex_tests::require::{require, Tool};
use std::io::Write;
use std::process::Command;
use std::time::Instant;

#[test]
#[ignore = "a benchmark: scripts/bench runs it"]
fn matlab_parsing_against_octaves_parser() {
    let (Some(octave), Some(_)) = (require(Tool::OctaveCli), require(Tool::OctaveMFiles)) else {
        return;
    };
    let files = corpus::octave_m_files();
    let texts: Vec<String> = files.iter().map(|p| corpus::read_lossy(p)).collect();
    let bytes: usize = texts.iter().map(String::len).sum();

    let ours = (0..3)
        .map(|_| {
            let t = Instant::now();
            for text in &texts {
                std::hint::black_box(shapex_matlab_syntax::parse(text));
            }
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min);

    let mut list = tempfile::NamedTempFile::new().expect("a temp file");
    for f in &files {
        writeln!(list, "{}", f.display()).unwrap();
    }
    let script = format!(
        "files = strsplit(strtrim(fileread('{}')), \"\\n\"); best = Inf; failed = 0; \
         for run = 1:3, failed = 0; tic; \
           for i = 1:numel(files), try, __parse_file__(files{{i}}); catch, failed++; end, end; \
           best = min(best, toc); end; \
         printf('%.6f %d\\n', best, failed);",
        list.path().display()
    );
    let out = Command::new(octave)
        .args(["--no-gui", "--norc", "--quiet", "--eval", &script])
        .output()
        .expect("octave-cli runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut words = stdout.split_whitespace();
    let theirs: f64 = words
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| {
            panic!(
                "octave printed {stdout:?}, stderr {:?}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let failed = words.next().unwrap_or("?");
    println!(
        "peers: parsing {} Octave m-files ({:.1} MB): shapex {:.3} s, Octave __parse_file__ {:.3} s \
         ({failed} files it rejects); ratio shapex/Octave = {:.2}",
        files.len(),
        bytes as f64 / 1e6,
        ours,
        theirs,
        ours / theirs
    );
}
