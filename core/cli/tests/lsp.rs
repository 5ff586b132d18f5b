//! `shapex lsp` driven as an editor drives it: a client over stdio, framed JSON-RPC
//! (issue #26 item 1): diagnostics as the text changes, hover, inlay hints (and their
//! switch), go to definition, and the code action that opens the playground.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: u64,
}

impl Client {
    fn start(options: Value) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_shapex"))
            .args(["lsp", "--base", "https://play.example/"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn shapex lsp");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, incoming) = channel();
        std::thread::spawn(move || loop {
            let mut length = 0;
            loop {
                let mut line = String::new();
                if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(n) = line.strip_prefix("Content-Length: ") {
                    length = n.parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            if stdout.read_exact(&mut body).is_err() {
                return;
            }
            if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                return;
            }
        });
        let mut client = Client {
            child,
            stdin,
            incoming,
            next_id: 0,
        };
        let init = client.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": {}, "initializationOptions": options}),
        );
        assert_eq!(init["capabilities"]["hoverProvider"], true, "{init}");
        client.notify("initialized", json!({}));
        client
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The next message the server sends that `wanted` accepts (others are skipped).
    fn receive(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            let m = self
                .incoming
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("no {what} from the server"));
            if wanted(&m) {
                return m;
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let reply = self.receive(method, |m| m["id"] == id && m.get("method").is_none());
        assert!(reply.get("error").is_none(), "{method}: {reply}");
        reply["result"].clone()
    }

    fn diagnostics(&mut self) -> Vec<Value> {
        let m = self.receive("diagnostics", |m| {
            m["method"] == "textDocument/publishDiagnostics"
        });
        m["params"]["diagnostics"].as_array().unwrap().clone()
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics_of(&mut self, uri: &str) -> Vec<Value> {
        let m = self.receive("diagnostics", |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        });
        m["params"]["diagnostics"].as_array().unwrap().clone()
    }

    fn stop(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }
}

const URI: &str = "file:///tmp/shapex-lsp/main.m";
const MAIN: &str = "function r = main()\nA = ones(3, 4);\nC = A * A;\nr = helper(A);\nend\n\
                    function y = helper(x)\ny = sum(x, 2);\nend\n";

fn at(line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": URI}, "position": {"line": line, "character": character}})
}

#[test]
fn an_editor_gets_diagnostics_hovers_hints_definitions_and_the_playground() {
    let mut c = Client::start(json!({}));
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "matlab", "version": 1, "text": MAIN}}),
    );
    let diagnostics = c.diagnostics();
    let mtimes = diagnostics
        .iter()
        .find(|d| {
            d["code"]
                .as_str()
                .is_some_and(|c| c.starts_with("shape.mtimes"))
        })
        .unwrap_or_else(|| panic!("{diagnostics:?}"));
    assert_eq!(mtimes["severity"], 1);
    assert_eq!(mtimes["range"]["start"], json!({"line": 2, "character": 4}));

    // Over `sum` (line 7): its rule; over line 2: the shape it defines.
    let sum = c.request("textDocument/hover", at(6, 5));
    let sum = sum["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(sum.starts_with("sum: the builtin `sum`"), "{sum}");
    let a = c.request("textDocument/hover", at(1, 0));
    let a = a["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(a.contains("`A`: double <3,4>"), "{a}");

    let hints = c.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": URI}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}}),
    );
    let labels: Vec<&str> = hints
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["label"].as_str())
        .collect();
    assert!(labels.contains(&" A: <3,4>"), "{labels:?}");
    let a_hint = hints
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["label"] == " A: <3,4>")
        .unwrap();
    assert_eq!(a_hint["position"], json!({"line": 1, "character": 15}));

    // `helper` on line 4 goes to its header on line 6.
    let def = c.request("textDocument/definition", at(3, 6));
    assert_eq!(def["uri"], URI);
    assert_eq!(def["range"]["start"]["line"], 5, "{def}");

    // The code action's command makes the server ask the client to open the link.
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": URI}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "context": {"diagnostics": []}}),
    );
    let command = &actions[0];
    assert_eq!(command["command"], "shapex.openInPlayground", "{actions}");
    c.next_id += 1;
    let id = c.next_id;
    c.send(
        json!({"jsonrpc": "2.0", "id": id, "method": "workspace/executeCommand",
        "params": {"command": command["command"], "arguments": command["arguments"]}}),
    );
    let show = c.receive("showDocument", |m| m["method"] == "window/showDocument");
    let link = show["params"]["uri"].as_str().unwrap().to_string();
    assert!(link.starts_with("https://play.example/#v2/"), "{link}");
    assert_eq!(show["params"]["external"], true);
    let (_, fragment) = link.split_once('#').unwrap();
    let state = shapex_share::link::decode(fragment).unwrap();
    assert_eq!((state.code.as_str(), state.name.as_str()), (MAIN, "main.m"));
    c.send(json!({"jsonrpc": "2.0", "id": show["id"], "result": {"success": true}}));
    c.receive("executeCommand's reply", |m| m["id"] == id);

    // The fix typed in: the error is gone.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2},
               "contentChanges": [{"text": MAIN.replace("A * A", "A .* A")}]}),
    );
    let after = c.diagnostics();
    assert!(after.is_empty(), "{after:?}");
    c.stop();
}

#[test]
fn inlay_hints_can_be_switched_off() {
    let mut c = Client::start(json!({"inlayHints": false}));
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "matlab", "version": 1, "text": MAIN}}),
    );
    c.diagnostics();
    let hints = c.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": URI}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}}),
    );
    assert_eq!(hints, json!([]));
    c.stop();
}

#[test]
fn a_hover_shows_the_witness_and_a_code_action_writes_its_repro() {
    let uri = "file:///tmp/shapex-lsp/f.m";
    let text = "function y = f(x)\ny = x * x;\nend\n";
    let mut c = Client::start(json!({}));
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "matlab", "version": 1, "text": text}}),
    );
    c.diagnostics();
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 0}}),
    );
    let hover = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(hover.contains("witness: fails when "), "{hover}");
    assert!(hover.contains("; passes when "), "{hover}");
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 3}}, "context": {"diagnostics": []}}),
    );
    let repro = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "quickfix")
        .unwrap_or_else(|| panic!("no repro action: {actions}"));
    let edits = &repro["edit"]["changes"][uri];
    assert_eq!(
        edits[0]["range"],
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}})
    );
    let written = edits[0]["newText"].as_str().unwrap();
    assert!(
        written.contains("x = ones(") && written.contains("f(x);"),
        "{written}"
    );
    // Not for a line without a witness.
    let none = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 0}}, "context": {"diagnostics": []}}),
    );
    assert_eq!(none.as_array().unwrap().len(), 1, "{none}");
    c.stop();
}

#[test]
fn calls_into_other_files_are_analysed_and_their_definitions_found() {
    let dir = std::env::temp_dir().join(format!("shapex-lsp-folder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("private")).unwrap();
    std::fs::write(
        dir.join("squared.m"),
        "% The square of a matrix.\nfunction y = squared(x)\ny = x * x;\nend\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("private/inner.m"),
        "function y = inner(x)\ny = x' * x;\nend\n",
    )
    .unwrap();
    let uri = format!("file://{}/main.m", dir.display());
    let text = "a = squared(ones(4, 1));\nb = inner(ones(4, 1));\n";
    let mut c = Client::start(json!({}));
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "matlab", "version": 1, "text": text}}),
    );
    // squared.m's `x * x` fails for a 4×1 argument: an error at the call, in main.m.
    let diagnostics = c.diagnostics();
    let at_call = diagnostics
        .iter()
        .find(|d| d["range"]["start"]["line"] == 0 && d["severity"] == 1)
        .unwrap_or_else(|| panic!("no error at the call: {diagnostics:?}"));
    assert!(
        at_call["message"].as_str().unwrap().contains("squared.m"),
        "{at_call}"
    );
    let at = |line: u32, character: u32| json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
    let def = c.request("textDocument/definition", at(0, 6));
    assert_eq!(def["uri"], format!("file://{}/squared.m", dir.display()));
    assert_eq!(
        def["range"]["start"]["line"], 1,
        "the header, after the comment: {def}"
    );
    // A private function comes first, as MATLAB looks it up.
    let def = c.request("textDocument/definition", at(1, 5));
    assert_eq!(
        def["uri"],
        format!("file://{}/private/inner.m", dir.display())
    );
    // A name no file defines has no definition.
    let none = c.request("textDocument/definition", at(0, 14));
    assert_eq!(none, Value::Null, "`ones` is a builtin: {none}");

    // squared.m opened and fixed in the editor: main.m is analysed again with the
    // editor's text, and its error is gone; closed unsaved, the disk's text is back.
    let squared = format!("file://{}/squared.m", dir.display());
    let fixed = "function y = squared(x)\ny = x .* x;\nend\n";
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": squared, "languageId": "matlab", "version": 1, "text": fixed}}),
    );
    let errors = |ds: &[Value]| ds.iter().filter(|d| d["severity"] == 1).count();
    let main = c.diagnostics_of(&uri);
    assert_eq!(errors(&main), 0, "{main:?}");
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": squared}}),
    );
    let main = c.diagnostics_of(&uri);
    assert_eq!(errors(&main), 1, "{main:?}");
    c.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
