// The Shape Explorer client: starts `shapex lsp` and hands it the documents of its
// languages. Everything else (diagnostics, hover, inlay hints, definitions, the
// playground action and its `window/showDocument`) is the server's and the protocol's.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("shapex");
  const args = ["lsp"];
  if (config.get("playground")) {
    args.push("--base", config.get("playground"));
  }
  const languages = ["matlab", "shapex-t", "vec"];
  if (config.get("python")) {
    languages.push("python");
  }
  client = new LanguageClient(
    "shapex",
    "Shape Explorer",
    { command: config.get("path"), args },
    {
      documentSelector: languages.map((language) => ({ scheme: "file", language })),
      initializationOptions: { inlayHints: config.get("inlayHints") },
    }
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
