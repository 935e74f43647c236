/**
 * The report as one self-contained HTML page (`--format html`): failed builds, findings
 * introduced and fixed, images, then the tree of clusters → producers → objects, each object with
 * its YAML diff in a unified and a side-by-side view and its field-level lines. The page loads
 * nothing and runs nothing: its Content-Security-Policy allows only its inline style, so a string
 * that escaped escaping still could not fetch or execute. Every repository string goes through
 * htmlText; Secret values arrive masked (objects.ts).
 */
import { htmlText } from '../escape/html';
import { summaryLine } from './format';
import { HTML_STYLE } from './htmlStyle';
import { lineDiff, type Hunk } from './lineDiff';
import type { Change, ChangedFinding, ChangesReport, ObjectChange, ProducerChanges, ProducerFailure } from './types';

/** Objects open on load when the report has at most this many; past it the tree is read first. */
const OPEN_OBJECTS = 30;

const CHANGES: readonly Change[] = ['added', 'removed', 'changed'];

const FAILED_SIDE: Record<ProducerFailure['failed'], string> = { head: 'fails with this change', base: 'fails at the base (fixed by this change)', both: 'fails on both sides' };

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'; base-uri 'none'";

export function reportHtml(r: ChangesReport, baseName: string): string {
  const title = `GitOps changes against ${r.base.slice(0, 12)} (${baseName})`;
  const objects = r.changes.reduce((n, p) => n + p.objects.length, 0);
  const ids = { next: 0 };
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${htmlText(title)}</title>`,
    `<style>${HTML_STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>GitOps changes against <code>${htmlText(r.base.slice(0, 12))}</code> (${htmlText(baseName)})</h1>`,
    `<p class="summary">${htmlText(summaryLine(r))}</p>`,
    failuresSection(r.failures),
    findingsSection('Findings introduced', r.findings.introduced),
    findingsSection('Findings fixed', r.findings.fixed),
    imagesSection(r),
    '<h2>Objects</h2>',
    r.changes.length ? clustersTree(r.changes, objects <= OPEN_OBJECTS, ids) : '<p class="empty">No object differs.</p>',
    '</body>',
    '</html>',
    '',
  ]
    .filter((s) => s !== '')
    .join('\n');
}

function counts(objects: readonly ObjectChange[]): string {
  const parts = CHANGES.map((c) => [c, objects.filter((o) => o.change === c).length] as const)
    .filter(([, n]) => n > 0)
    .map(([c, n]) => `${n} ${c}`);
  return `${objects.length} object(s): ${parts.join(', ')}`;
}

function clustersTree(changes: readonly ProducerChanges[], openObjects: boolean, ids: { next: number }): string {
  const byCluster = new Map<string, ProducerChanges[]>();
  for (const c of changes) byCluster.set(c.cluster, [...(byCluster.get(c.cluster) ?? []), c]);
  const out: string[] = [];
  for (const [cluster, producers] of byCluster) {
    const all = producers.flatMap((p) => p.objects);
    out.push(`<details class="cluster" open><summary>Cluster ${htmlText(cluster)}<span class="counts">${producers.length} producer(s), ${counts(all)}</span></summary>`);
    for (const p of producers) {
      const note = p.note ? ` (its spec: ${htmlText(p.note)})` : '';
      out.push(`<details class="producer" open><summary>${htmlText(p.kind)} ${htmlText(`${p.namespace}/${p.name}`)}${note}<span class="counts">${counts(p.objects)}</span></summary>`);
      for (const o of p.objects) out.push(objectDetails(o, openObjects, ++ids.next));
      out.push('</details>');
    }
    out.push('</details>');
  }
  return out.join('\n');
}

function objectDetails(o: ObjectChange, open: boolean, id: number): string {
  const change = CHANGES.includes(o.change) ? o.change : 'changed';
  const name = o.namespace ? `${o.namespace}/${o.name}` : o.name;
  const hunks = lineDiff(o.yaml.before, o.yaml.after);
  const views = [
    ['unified', 'Unified', unifiedTable(hunks)],
    ['split', 'Side by side', splitTable(hunks)],
    ['fields', 'Fields', `<pre class="fields">${multiline(o.diff)}</pre>`],
  ] as const;
  return [
    `<details class="object ${change}" id="object-${id}"${open ? ' open' : ''}><summary><span class="badge">${change}</span>${htmlText(o.kind)} ${htmlText(name)}</summary>`,
    '<div class="views">',
    ...views.map(([key, label], i) => `<input type="radio" name="view-${id}" id="view-${id}-${key}" class="pick-${key}"${i === 0 ? ' checked' : ''}><label for="view-${id}-${key}">${label}</label>`),
    ...views.map(([key, , body]) => `<div class="view ${key}">${body}</div>`),
    '</div>',
    '</details>',
  ].join('\n');
}

const ROW_CLASS: Record<string, string> = { ' ': '', '-': 'del', '+': 'add' };

function unifiedTable(hunks: readonly Hunk[]): string {
  const rows: string[] = [];
  for (const h of hunks) {
    rows.push(`<tr class="hunk"><td class="n"></td><td class="n"></td><td class="s"></td><td>${htmlText(h.header)}</td></tr>`);
    for (const l of h.lines) {
      const cls = ROW_CLASS[l.sign];
      rows.push(`<tr${cls ? ` class="${cls}"` : ''}><td class="n">${l.before ?? ''}</td><td class="n">${l.after ?? ''}</td><td class="s">${l.sign}</td><td>${htmlText(l.text)}</td></tr>`);
    }
  }
  return `<table class="diff">${rows.join('\n')}</table>`;
}

function splitTable(hunks: readonly Hunk[]): string {
  const rows: string[] = [];
  for (const h of hunks) {
    rows.push(`<tr class="hunk"><td class="n"></td><td class="text">${htmlText(h.header)}</td><td class="n"></td><td class="text"></td></tr>`);
    for (const row of h.rows) {
      const left = row.sign === '-' || row.sign === '~' ? ' del' : '';
      const right = row.sign === '+' || row.sign === '~' ? ' add' : '';
      rows.push(
        `<tr><td class="n${left}">${row.before?.n ?? ''}</td><td class="text${left}">${row.before ? htmlText(row.before.text) : ''}</td>` +
          `<td class="n${right}">${row.after?.n ?? ''}</td><td class="text${right}">${row.after ? htmlText(row.after.text) : ''}</td></tr>`,
      );
    }
  }
  return `<table class="diff split">${rows.join('\n')}</table>`;
}

/** Text of several lines, each escaped (htmlText shows a line break as `\n`). */
function multiline(text: string): string {
  return text.split('\n').map(htmlText).join('\n');
}

function failuresSection(failures: readonly ProducerFailure[]): string {
  if (!failures.length) return '';
  const items = failures.map(
    (f) =>
      `<li><span class="error">${htmlText(f.kind)} ${htmlText(`${f.namespace}/${f.name}`)}</span> in cluster ${htmlText(f.cluster)} ${FAILED_SIDE[f.failed] ?? ''}:<pre>${multiline(f.message)}</pre></li>`,
  );
  return `<h2>Failed builds (their objects are not compared)</h2>\n<ul class="failures">\n${items.join('\n')}\n</ul>`;
}

function findingsSection(title: string, findings: readonly ChangedFinding[]): string {
  if (!findings.length) return '';
  const items = findings.map((f) => {
    const [first, ...rest] = f.message.split('\n');
    const severity = f.severity === 'error' || f.severity === 'warning' ? f.severity : 'info';
    return `<li><code>${htmlText(`${f.file}:${f.line}:${f.column}`)}</code> <span class="${severity}">${severity}</span> <code>${htmlText(f.rule)}</code> ${htmlText(first)}${rest.length ? `<pre>${multiline(rest.join('\n'))}</pre>` : ''}</li>`;
  });
  return `<h2>${title} (${findings.length})</h2>\n<ul class="findings">\n${items.join('\n')}\n</ul>`;
}

function imagesSection(r: ChangesReport): string {
  if (!r.images.length) return '';
  const cell = (refs: readonly string[]) => (refs.length ? refs.map((x) => `<code>${htmlText(x)}</code>`).join(' ') : '<span class="empty">(none)</span>');
  const rows = r.images.map((i) => `<tr><td><code>${htmlText(i.image)}</code></td><td>${cell(i.before)}</td><td>${cell(i.after)}</td><td>${cell(i.kept ?? [])}</td></tr>`);
  return `<h2>Images (${r.images.length})</h2>\n<table class="list"><tr><th>image</th><th>before</th><th>after</th><th>still in use</th></tr>\n${rows.join('\n')}\n</table>`;
}
