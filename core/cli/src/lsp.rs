//! `shapex lsp`: a Language Server over stdio for every registered language, on the
//! protocol crates rust-analyzer uses (`lsp-server`, `lsp-types`). Each open document is
//! analysed on every change with its own `Session`, so an edit re-analyses only what
//! it can have changed, as in the playground; the server answers from the last Report:
//!
//! - diagnostics, published after each change;
//! - hover: a builtin's rule over its name in a call (the Report's glossary), else the
//!   shapes the statement on that line defines, its check, its rule and its witness
//!   (sizes under which it fails and passes; files up to [`WITNESS_LIMIT`]);
//! - inlay hints: the shapes after each assignment (off with the initialization option
//!   `{"inlayHints": false}`);
//! - go to definition: a function of the file by its name, else the file its language's
//!   lookup reaches (MATLAB: `private/NAME.m`, `NAME.m` beside it), open or on disk;
//! - a code action that opens the file in the playground (`window/showDocument` with the
//!   share link `shapex share` prints), and one per witness with a repro in the range
//!   that writes the repro into the file (a `WorkspaceEdit`).
//!
//! Positions are UTF-16 code units, the protocol's default; Reports count characters.

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, ExecuteCommand, GotoDefinition, HoverRequest, InlayHintRequest,
    Request as _, ShowDocument,
};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionProviderCapability, Command,
    DiagnosticSeverity, ExecuteCommandOptions, GotoDefinitionResponse, Hover, HoverContents,
    HoverProviderCapability, InlayHint, InlayHintKind, InlayHintLabel, Location, MarkupContent,
    MarkupKind, OneOf, Position, PublishDiagnosticsParams, Range, ServerCapabilities,
    ShowDocumentParams, TextDocumentSyncCapability, TextDocumentSyncKind, TextEdit, Uri,
    WorkspaceEdit,
};
use shapex::report::CheckStatus;
use shapex::report::Sources;
use shapex::{Analyzer, Options, Report, Session};
use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;

/// The command the code action runs: open the document in the playground.
const OPEN_IN_PLAYGROUND: &str = "shapex.openInPlayground";

/// Witnesses are a search per check, so, as in the playground, a keystroke in a file
/// larger than this is not made to wait for them.
const WITNESS_LIMIT: usize = 64 * 1024;

struct Document {
    text: String,
    lang: String,
    session: Session,
    report: Report,
}

struct Server<'a> {
    analyzer: &'a Analyzer,
    docs: HashMap<String, Document>,
    inlay_hints: bool,
    playground: String,
}

/// Serves on stdin/stdout until the client says `exit`.
pub fn run(playground: String) -> Result<(), String> {
    let (connection, io) = Connection::stdio();
    let capabilities = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        inlay_hint_provider: Some(OneOf::Left(true)),
        definition_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![OPEN_IN_PLAYGROUND.into()],
            ..Default::default()
        }),
        ..Default::default()
    };
    let init = serde_json::json!({
        "capabilities": capabilities,
        "serverInfo": { "name": "shapex", "version": env!("CARGO_PKG_VERSION") },
    });
    let (id, params) = connection.initialize_start().map_err(|e| e.to_string())?;
    connection
        .initialize_finish(id, init)
        .map_err(|e| e.to_string())?;
    let inlay_hints = params["initializationOptions"]["inlayHints"]
        .as_bool()
        .unwrap_or(true);
    let analyzer = Analyzer::new();
    let mut server = Server {
        analyzer: &analyzer,
        docs: HashMap::new(),
        inlay_hints,
        playground,
    };
    for message in &connection.receiver {
        match message {
            Message::Request(req) => {
                if connection
                    .handle_shutdown(&req)
                    .map_err(|e| e.to_string())?
                {
                    break;
                }
                let response = server.request(&connection, req);
                send(&connection, Message::Response(response));
            }
            Message::Notification(n) => server.notification(&connection, n),
            Message::Response(_) => {}
        }
    }
    drop(connection);
    io.join().map_err(|e| e.to_string())
}

fn send(connection: &Connection, message: Message) {
    // The client hung up: the loop ends when the receiver does.
    let _ = connection.sender.send(message);
}

impl Server<'_> {
    fn notification(&mut self, connection: &Connection, n: Notification) {
        let uri = n.params["textDocument"]["uri"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let text = n.params["textDocument"]["text"]
                    .as_str()
                    .unwrap_or_default();
                let lang_id = n.params["textDocument"]["languageId"].as_str();
                self.open(&uri, text, lang_id);
            }
            DidChangeTextDocument::METHOD => {
                let changes = n.params["contentChanges"].as_array();
                let Some(text) = changes
                    .and_then(|c| c.last())
                    .and_then(|c| c["text"].as_str())
                else {
                    return;
                };
                self.change(&uri, text);
            }
            DidCloseTextDocument::METHOD => {
                let closed = self.docs.remove(&uri);
                publish(connection, &uri, &[], "");
                if let Some(closed) = closed {
                    self.reanalyse_others(connection, &uri, &closed.lang);
                }
                return;
            }
            _ => return,
        }
        if let Some(doc) = self.docs.get(&uri) {
            publish(connection, &uri, &doc.report.diagnostics, &doc.text);
            let lang = doc.lang.clone();
            self.reanalyse_others(connection, &uri, &lang);
        }
    }

    /// A file's text is what a call of it in another file runs: after `uri` changed (or
    /// closed, when the disk's text takes over), the other open documents of its
    /// language are analysed again, and republished where their diagnostics changed.
    /// Their sessions keep what the change cannot affect.
    fn reanalyse_others(&mut self, connection: &Connection, uri: &str, lang: &str) {
        let others: Vec<String> = self
            .docs
            .iter()
            .filter(|(other, d)| other.as_str() != uri && d.lang == lang)
            .map(|(other, _)| other.clone())
            .collect();
        for other in others {
            let Some(doc) = self.docs.get(&other) else {
                continue;
            };
            let (text, before) = (doc.text.clone(), doc.report.diagnostics.clone());
            self.change(&other, &text);
            if let Some(doc) = self.docs.get(&other) {
                if doc.report.diagnostics != before {
                    publish(connection, &other, &doc.report.diagnostics, &doc.text);
                }
            }
        }
    }

    /// A document's language: its extension's, else the client's language id when it
    /// names a registered language.
    fn open(&mut self, uri: &str, text: &str, lang_id: Option<&str>) {
        let path = path_of(uri);
        let lang = self
            .analyzer
            .language_for_path(&path)
            .map(|i| i.id.to_string())
            .or_else(|| {
                lang_id
                    .filter(|id| self.analyzer.language(id).is_some())
                    .map(str::to_string)
            });
        let Some(lang) = lang else {
            return;
        };
        self.docs.insert(
            uri.to_string(),
            Document {
                text: String::new(),
                lang,
                session: Session::default(),
                report: Report::default(),
            },
        );
        self.change(uri, text);
    }

    /// Analyses the document's new text among the files around it, as `shapex check`
    /// does (a MATLAB call of `helper` runs `helper.m` beside it): an open document's
    /// text as the editor holds it, else the file on disk.
    fn change(&mut self, uri: &str, text: &str) {
        let open = self.open_texts(uri);
        let Some(doc) = self.docs.get_mut(uri) else {
            return;
        };
        doc.text = text.to_string();
        let mut options = Options::new(&doc.lang).with_views([]);
        options.witness = doc.text.len() <= WITNESS_LIMIT;
        let path = path_of(uri);
        let read = |p: &str| open.get(p).cloned().or_else(|| crate::read_source(p));
        let sources = Sources {
            path: &path,
            text: &doc.text,
            read: &read,
            search: &[],
        };
        doc.report = self
            .analyzer
            .analyze_sources_in(&mut doc.session, &sources, &options);
        doc.session.free();
    }

    /// The other open documents' texts by path.
    fn open_texts(&self, except: &str) -> HashMap<String, Arc<str>> {
        self.docs
            .iter()
            .filter(|(uri, _)| uri.as_str() != except)
            .map(|(uri, d)| (path_of(uri), Arc::from(d.text.as_str())))
            .collect()
    }

    fn request(&mut self, connection: &Connection, req: Request) -> Response {
        let uri = req.params["textDocument"]["uri"]
            .as_str()
            .unwrap_or_default();
        let doc = self.docs.get(uri);
        let position = || -> Option<(u32, u32)> {
            let p = &req.params["position"];
            Some((p["line"].as_u64()? as u32, p["character"].as_u64()? as u32))
        };
        let result = match (req.method.as_str(), doc) {
            (HoverRequest::METHOD, Some(doc)) => {
                let hover = position().and_then(|(l, c)| hover(doc, l, c));
                serde_json::to_value(hover)
            }
            (InlayHintRequest::METHOD, Some(doc)) => {
                let hints = if self.inlay_hints {
                    inlay_hints(doc)
                } else {
                    Vec::new()
                };
                serde_json::to_value(hints)
            }
            (GotoDefinition::METHOD, Some(doc)) => {
                let found = position().and_then(|(l, c)| {
                    let word = word_at(&doc.text, l, c)?;
                    definition(doc, uri, word).or_else(|| self.elsewhere(doc, uri, word))
                });
                serde_json::to_value(found)
            }
            (CodeActionRequest::METHOD, Some(doc)) => {
                let open = CodeActionOrCommand::Command(Command {
                    title: "Open this in the Shape Explorer playground".into(),
                    command: OPEN_IN_PLAYGROUND.into(),
                    arguments: Some(vec![serde_json::json!(uri)]),
                });
                let lines = (
                    req.params["range"]["start"]["line"].as_u64().unwrap_or(0) as u32,
                    req.params["range"]["end"]["line"].as_u64().unwrap_or(0) as u32,
                );
                let mut actions = vec![open];
                actions.extend(repro_actions(doc, uri, lines));
                serde_json::to_value(actions)
            }
            (ExecuteCommand::METHOD, _) => {
                let target = req.params["arguments"][0].as_str().unwrap_or_default();
                match self.share_link(target) {
                    Some(link) => {
                        let show = ShowDocumentParams {
                            uri: Uri::from_str(&link)
                                .unwrap_or_else(|_| Uri::from_str("about:blank").unwrap()),
                            external: Some(true),
                            take_focus: Some(true),
                            selection: None,
                        };
                        let request = Request::new(
                            RequestId::from(format!("show-{}", req.id)),
                            ShowDocument::METHOD.into(),
                            show,
                        );
                        send(connection, Message::Request(request));
                        Ok(serde_json::json!(link))
                    }
                    None => Ok(serde_json::Value::Null),
                }
            }
            (_, None) => Ok(serde_json::Value::Null),
            _ => {
                return Response::new_err(
                    req.id,
                    lsp_server::ErrorCode::MethodNotFound as i32,
                    format!("shapex does not answer {}", req.method),
                )
            }
        };
        Response::new_ok(req.id, result.unwrap_or(serde_json::Value::Null))
    }

    /// Where a name the document does not define is defined, by its language's lookup
    /// (MATLAB: `private/NAME.m`, then `NAME.m` beside it): the first such file, open
    /// or on disk, at its first function's header (a script at its top).
    fn elsewhere(&self, doc: &Document, uri: &str, word: &str) -> Option<GotoDefinitionResponse> {
        let language = self.analyzer.language(&doc.lang)?;
        let open = self.open_texts(uri);
        let (path, text) = language
            .lookup(&path_of(uri), word, &[])
            .into_iter()
            .find_map(|p| {
                let text = open.get(&p).cloned().or_else(|| crate::read_source(&p))?;
                Some((p, text))
            })?;
        let options = Options::new(&doc.lang).with_views([]);
        let report = self
            .analyzer
            .analyze_in(&mut Session::default(), &text, &options);
        let header = report.statements.iter().find(|s| s.kind == "function");
        let range = header.map_or(Range::default(), |f| {
            let r = f.range;
            self::range(&text, r.line, r.col, r.end_line, r.end_col)
        });
        Some(GotoDefinitionResponse::Scalar(Location {
            uri: Uri::from_str(&uri_of(&path)).ok()?,
            range,
        }))
    }

    /// The playground link of an open document, in its language's first view.
    fn share_link(&self, uri: &str) -> Option<String> {
        let doc = self.docs.get(uri)?;
        let info = self.analyzer.language(&doc.lang)?.info();
        let name = path_of(uri)
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_string();
        let state = shapex_share::ViewState {
            code: doc.text.clone(),
            name,
            lang: doc.lang.clone(),
            view: info.views.first().map_or("outline", |v| v.id).to_string(),
            ..shapex_share::ViewState::default()
        };
        let fragment = shapex_share::link::link(&state).ok()?;
        Some(format!("{}#{fragment}", self.playground))
    }
}

fn publish(connection: &Connection, uri: &str, diagnostics: &[shapex::Diagnostic], text: &str) {
    let Ok(uri) = Uri::from_str(uri) else {
        return;
    };
    let diagnostics = diagnostics
        .iter()
        .map(|d| lsp_types::Diagnostic {
            range: range(
                text,
                d.range.line,
                d.range.col,
                d.range.end_line,
                d.range.end_col,
            ),
            severity: Some(match d.severity {
                shapex::Severity::Error => DiagnosticSeverity::ERROR,
                shapex::Severity::Warning => DiagnosticSeverity::WARNING,
                shapex::Severity::Info => DiagnosticSeverity::INFORMATION,
            }),
            code: Some(lsp_types::NumberOrString::String(d.code.clone())),
            source: Some("shapex".into()),
            message: match &d.help {
                Some(help) => format!("{}\n{help}", d.message),
                None => d.message.clone(),
            },
            ..Default::default()
        })
        .collect();
    let params = PublishDiagnosticsParams {
        uri,
        diagnostics,
        version: None,
    };
    send(
        connection,
        Message::Notification(Notification::new(PublishDiagnostics::METHOD.into(), params)),
    );
}

/// The hover at 0-based `line`, UTF-16 `character`: a builtin's rule over its name,
/// else the statement of that line with its shapes, check and rule.
fn hover(doc: &Document, line: u32, character: u32) -> Option<Hover> {
    let at = byte_offset(&doc.text, line, character)?;
    let r = &doc.report;
    let glossary = r.glossary_at(at).map(str::to_string);
    let text = glossary.or_else(|| {
        let s = r
            .statements
            .iter()
            .filter(|s| !s.defs.is_empty() || s.condition.is_some())
            .find(|s| s.range.line <= line + 1 && line < s.range.end_line.max(s.range.line))?;
        let mut text: Vec<String> = s
            .defs
            .iter()
            .map(|d| match &d.class {
                Some(c) => format!("`{}`: {c} {}", d.name, d.display),
                None => format!("`{}`: {}", d.name, d.display),
            })
            .collect();
        let check = match &s.condition {
            // A definite error's condition is `false`, which says nothing more.
            Some(c) if s.check != CheckStatus::Error => format!("{}: {c}", s.check.words()),
            _ => s.check.words().to_string(),
        };
        text.push(check);
        if let Some(rule) = &s.rule {
            text.push(format!("rule: {rule}"));
        }
        if let Some(w) = &s.witness {
            text.push(format!("witness: {}", w.text()));
        }
        text.extend(
            s.symbols
                .iter()
                .map(|n| format!("{} = {}", n.alias, n.meaning)),
        );
        Some(text.join("\n\n"))
    })?;
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range: None,
    })
}

/// Per statement on the 0-based `lines` (first, last) whose witness has a repro, the
/// action that writes it into the file.
fn repro_actions(doc: &Document, uri: &str, lines: (u32, u32)) -> Vec<CodeActionOrCommand> {
    let Ok(uri) = Uri::from_str(uri) else {
        return Vec::new();
    };
    let index = shapex::LineIndex::new(&doc.text);
    let at = |byte: usize| {
        let at = index.line_col(byte);
        position(&doc.text, at.line, at.col)
    };
    doc.report
        .statements
        .iter()
        .filter(|s| (lines.0..=lines.1).contains(&(s.range.line.saturating_sub(1))))
        .filter_map(|s| {
            let fix = s.witness.as_ref()?.repro.as_ref()?;
            let edit = TextEdit {
                range: Range::new(at(fix.span.start), at(fix.span.end)),
                new_text: fix.replacement.clone(),
            };
            Some(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!(
                    "Write a repro of line {} (sizes under which it fails)",
                    s.range.line
                ),
                kind: Some(CodeActionKind::QUICKFIX),
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
                    ..WorkspaceEdit::default()
                }),
                ..CodeAction::default()
            }))
        })
        .collect()
}

/// After each statement that defines variables, their shapes (`A: <3,4>`).
fn inlay_hints(doc: &Document) -> Vec<InlayHint> {
    doc.report
        .statements
        .iter()
        .filter(|s| !s.defs.is_empty() && !s.nonviable)
        .map(|s| {
            let label: Vec<String> = s
                .defs
                .iter()
                .map(|d| format!("{}: {}", d.name, d.display))
                .collect();
            // At the end of the statement's last line, after its `;` and comment.
            let last = s.range.end_line.max(s.range.line);
            let content = doc.text.split('\n').nth(last as usize - 1).unwrap_or("");
            let end = position(
                &doc.text,
                last,
                content.trim_end().chars().count() as u32 + 1,
            );
            InlayHint {
                position: end,
                label: InlayHintLabel::String(format!(" {}", label.join(", "))),
                kind: Some(InlayHintKind::TYPE),
                text_edits: None,
                tooltip: None,
                padding_left: Some(true),
                padding_right: None,
                data: None,
            }
        })
        .collect()
}

/// The function of the file named by the word under the position.
fn definition(doc: &Document, uri: &str, word: &str) -> Option<GotoDefinitionResponse> {
    let f = doc
        .report
        .statements
        .iter()
        .find(|s| s.kind == "function" && s.label == word)?;
    let r = f.range;
    Some(GotoDefinitionResponse::Scalar(Location {
        uri: Uri::from_str(uri).ok()?,
        range: range(&doc.text, r.line, r.col, r.end_line, r.end_col),
    }))
}

/// A Report's 1-based line and character columns as an LSP range (0-based, UTF-16).
fn range(text: &str, line: u32, col: u32, end_line: u32, end_col: u32) -> Range {
    Range::new(position(text, line, col), position(text, end_line, end_col))
}

fn position(text: &str, line: u32, col: u32) -> Position {
    let line = line.max(1);
    let content = text.split('\n').nth(line as usize - 1).unwrap_or("");
    let units: usize = content
        .chars()
        .take(col.max(1) as usize - 1)
        .map(char::len_utf16)
        .sum();
    Position::new(line - 1, units as u32)
}

/// The byte offset of a 0-based line and UTF-16 character.
fn byte_offset(text: &str, line: u32, character: u32) -> Option<usize> {
    let mut start = 0;
    for _ in 0..line {
        start += text[start..].find('\n')? + 1;
    }
    let content = &text[start..text[start..].find('\n').map_or(text.len(), |n| start + n)];
    let mut units = 0;
    for (i, c) in content.char_indices() {
        if units >= character as usize {
            return Some(start + i);
        }
        units += c.len_utf16();
    }
    Some(start + content.len())
}

/// The name under the 0-based `line` and UTF-16 `character` (a package function's
/// dots included: `util.geom.outer`), or `None` off a name.
fn word_at(text: &str, line: u32, character: u32) -> Option<&str> {
    let at = byte_offset(text, line, character)?;
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let start = text[..at].rfind(|c: char| !is_word(c)).map_or(0, |i| i + 1);
    let end = text[at..]
        .find(|c: char| !is_word(c))
        .map_or(text.len(), |i| at + i);
    let word = text[start..end].trim_matches('.');
    (!word.is_empty()).then_some(word)
}

/// The `file:` URI of a path, percent-encoded as SARIF's artifact URIs are.
fn uri_of(path: &str) -> String {
    format!("file://{}", shapex::sarif::uri(path))
}

/// The path a `file:` URI names (percent-decoded), else the URI as it is.
fn path_of(uri: &str) -> String {
    let Some(rest) = uri.strip_prefix("file://") else {
        return uri.to_string();
    };
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let text = "a = 'ü𝄞';\nb = 1;\n";
        // 𝄞 is two UTF-16 units: the `'` after it is at unit 7, character 7 (1-based 8).
        assert_eq!(position(text, 1, 8), Position::new(0, 8));
        assert_eq!(byte_offset(text, 0, 8), Some(text.find("';").unwrap()));
        assert_eq!(byte_offset(text, 1, 0), Some(text.find('b').unwrap()));
        assert_eq!(path_of("file:///tmp/a%20b.m"), "/tmp/a b.m");
    }
}
