/**
 * The HTML page's only style sheet, inlined. The views of an object switch on radio buttons
 * (`:checked ~`), so the page needs no script; colours follow the reader's light or dark scheme.
 */
export const HTML_STYLE = `
:root { color-scheme: light dark; --fg: #1f2328; --muted: #59636e; --bg: #fff; --panel: #f6f8fa; --line: #d1d9e0;
  --add: #dafbe1; --add-strong: #1a7f37; --del: #ffebe9; --del-strong: #cf222e; --mod: #9a6700; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --panel: #151b23; --line: #3d444d;
  --add: #12261e; --add-strong: #3fb950; --del: #25171c; --del-strong: #f85149; --mod: #d29922; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1400px; padding: 16px 24px 48px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 24px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
code, pre, .diff { font: 12px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.summary { color: var(--muted); margin: 0 0 16px; }
details { margin: 2px 0; }
summary { cursor: pointer; padding: 2px 4px; border-radius: 4px; }
summary:hover { background: var(--panel); }
details.cluster > summary { font-weight: 600; font-size: 15px; }
details.producer { margin-left: 18px; }
details.object { margin-left: 18px; }
.counts { color: var(--muted); font-weight: normal; margin-left: 6px; }
.badge { display: inline-block; min-width: 64px; text-align: center; font-size: 11px; border-radius: 10px; padding: 0 6px; margin-right: 6px; border: 1px solid currentColor; }
.added .badge, .badge.added { color: var(--add-strong); }
.removed .badge, .badge.removed { color: var(--del-strong); }
.changed .badge, .badge.changed { color: var(--mod); }
.views { position: relative; margin: 6px 0 12px 22px; }
.views > input { position: absolute; opacity: 0; pointer-events: none; }
.views > label { display: inline-block; padding: 2px 10px; border: 1px solid var(--line); border-radius: 4px 4px 0 0; margin-right: -1px; cursor: pointer; color: var(--muted); background: var(--panel); }
.views > input:checked + label { color: var(--fg); background: var(--bg); border-bottom-color: var(--bg); font-weight: 600; }
.views > input:focus-visible + label { outline: 2px solid var(--mod); }
.views > .view { display: none; border: 1px solid var(--line); margin-top: -1px; overflow-x: auto; }
.views > .pick-unified:checked ~ .unified, .views > .pick-split:checked ~ .split, .views > .pick-fields:checked ~ .fields { display: block; }
table.diff { border-collapse: collapse; width: 100%; }
.diff td { padding: 0 8px; white-space: pre; vertical-align: top; }
.diff td.n { width: 1%; text-align: right; color: var(--muted); user-select: none; }
.diff td.s { width: 1%; user-select: none; }
.diff tr.hunk td { background: var(--panel); color: var(--muted); }
.diff .del { background: var(--del); }
.diff .add { background: var(--add); }
.split td.text { width: 49%; }
pre.fields { margin: 0; padding: 8px; white-space: pre; }
table.list { border-collapse: collapse; }
table.list td, table.list th { border: 1px solid var(--line); padding: 2px 8px; text-align: left; vertical-align: top; }
ul.findings { padding-left: 20px; }
ul.findings pre, ul.failures pre { margin: 4px 0 8px; padding: 6px 8px; background: var(--panel); white-space: pre-wrap; }
.error { color: var(--del-strong); }
.warning { color: var(--mod); }
.empty { color: var(--muted); }
`;
