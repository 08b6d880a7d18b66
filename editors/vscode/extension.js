// VS Code client for `ptxkit lsp`: starts the server over standard
// input/output for every PTX document (see ../../docs/lsp.md).
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const settings = vscode.workspace.getConfiguration('ptxkit');
  const command = settings.get('path') || 'ptxkit';
  const server = { command, args: ['lsp'] };
  client = new LanguageClient('ptxkit', 'ptxkit', { run: server, debug: server }, {
    documentSelector: [{ language: 'ptx' }],
    initializationOptions: { target: settings.get('target') || '', ptx: settings.get('ptx') || '' },
  });
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
