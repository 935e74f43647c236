import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';

/**
 * The graph webview's page: a strict Content-Security-Policy (no inline code, the one script by
 * nonce, styles and scripts only from the extension), static toolbar markup, no data.
 */
export function graphHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', 'graph.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'graph.css'));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${webview.cspSource} data:`,
    `font-src ${webview.cspSource}`,
  ].join('; ');
  const arrow = (id: string) =>
    `<marker id="arrow-${id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z"/></marker>`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>Flux Dependency Graph</title>
</head>
<body>
<div id="toolbar" role="toolbar" aria-label="Graph controls">
  <label>Cluster <select id="cluster" aria-label="Cluster"></select></label>
  <input id="search" type="search" placeholder="Search (Enter: next)" aria-label="Search nodes">
  <label><input id="sources" type="checkbox"> Sources</label>
  <select id="groupBy" aria-label="Fold large graphs by">
    <option value="parent">Fold by parent</option>
    <option value="namespace">Fold by namespace</option>
  </select>
  <button id="fit" title="Fit to screen">Fit</button>
  <button id="collapse" title="Fold everything again">Collapse</button>
  <span id="summary" aria-live="polite"></span>
</div>
<div id="legend" aria-hidden="true">
  <span><svg width="34" height="8"><line x1="0" y1="4" x2="34" y2="4" class="legend-depends"/></svg> dependsOn</span>
  <span><svg width="34" height="8"><line x1="0" y1="4" x2="34" y2="4" class="legend-applies"/></svg> applies</span>
  <span><svg width="34" height="8"><line x1="0" y1="4" x2="34" y2="4" class="legend-source"/></svg> source</span>
  <span><svg width="34" height="8"><line x1="0" y1="4" x2="34" y2="4" class="legend-problem"/></svg> problem (hover for the message)</span>
  <span>left to right: what Flux needs ready first → what waits for it</span>
</div>
<div id="canvas">
  <svg id="graph" tabindex="0" aria-label="Dependency graph">
    <defs>${['dependsOn', 'applies', 'source', 'error'].map(arrow).join('')}</defs>
    <g id="viewport"></g>
  </svg>
</div>
<div id="tooltip" role="tooltip" hidden></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
