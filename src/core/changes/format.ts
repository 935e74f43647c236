/**
 * The report as a terminal reads it (`text`), as a pull-request comment (`markdown`: a summary
 * line, a collapsible section per cluster with diffs in fenced blocks, cut with a note before
 * GitHub's comment limit) and as the JSON contract. Repository text is escaped for each
 * (core/escape/); the HTML page is html.ts.
 */
import { htmlText } from '../escape/html';
import { jsonOutput } from '../escape/json';
import { markdownCode, markdownText } from '../escape/markdown';
import { showControls } from '../escape/controls';
import { terminalName, terminalText } from '../escape/terminal';
import type { ChangedFinding, ChangesReport, ObjectChange, ProducerChanges } from './types';

/** GitHub refuses comments over 65,536 characters; the note and closing tags fit in the rest. */
export const MARKDOWN_LIMIT = 65_000;

const SIGN: Record<ObjectChange['change'], string> = { added: '+', removed: '-', changed: '~' };

export function summaryLine(r: ChangesReport): string {
  const objects = r.changes.flatMap((c) => c.objects);
  const count = (c: ObjectChange['change']) => objects.filter((o) => o.change === c).length;
  const clusters = new Set(r.changes.map((c) => c.cluster)).size;
  const parts = [
    `${objects.length} object(s) differ in ${r.changes.length} producer(s) of ${clusters} cluster(s): ${count('added')} added, ${count('removed')} removed, ${count('changed')} changed`,
    `findings ${r.findings.introduced.length} introduced, ${r.findings.fixed.length} fixed`,
  ];
  if (r.images.length) parts.push(`${r.images.length} image(s) changed`);
  if (r.failures.length) parts.push(`${r.failures.length} failed build(s)`);
  return parts.join('; ');
}

/** The JSON contract: the report as it is, but each object's `yaml` (only the views that lay both sides out use it). */
export function reportJson(r: ChangesReport): string {
  const changes = r.changes.map((p) => ({ ...p, objects: p.objects.map(({ kind, name, namespace, change, diff }) => ({ kind, name, namespace, change, diff })) }));
  return jsonOutput({ base: r.base, changes, findings: r.findings, failures: r.failures, images: r.images });
}

function objectName(o: { kind: string; namespace: string; name: string }): string {
  return `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
}

function findingLine(f: ChangedFinding): string {
  return `${f.file}:${f.line}:${f.column}: ${f.severity} [${f.rule}] ${f.message}`;
}

export function reportText(r: ChangesReport, baseName: string): string {
  const out: string[] = [`base ${r.base.slice(0, 12)} (${terminalText(baseName)})`];
  let cluster: string | undefined;
  for (const c of r.changes) {
    if (c.cluster !== cluster) out.push(`cluster ${terminalName((cluster = c.cluster))}`);
    out.push(`  ${c.kind} ${terminalName(`${c.namespace}/${c.name}`)}${c.note ? ` (its spec: ${terminalText(c.note)})` : ''}`);
    for (const o of c.objects) {
      out.push(`    ${SIGN[o.change]} ${terminalName(o.kind)} ${terminalName(o.namespace ? `${o.namespace}/${o.name}` : o.name)} ${o.change}`);
      if (o.change === 'changed') out.push(...o.diff.split('\n').map((l) => `        ${terminalText(l)}`));
    }
  }
  if (r.images.length) {
    out.push('images');
    for (const i of r.images) out.push(`  ${terminalName(i.image)}: ${terminalText(i.before.join(', ') || '(none)')} → ${terminalText(i.after.join(', ') || '(none)')}${i.kept ? ` (${terminalText(i.kept.join(', '))} still in use)` : ''}`);
  }
  for (const [title, list] of [
    ['findings introduced', r.findings.introduced],
    ['findings fixed', r.findings.fixed],
  ] as const) {
    if (!list.length) continue;
    out.push(title);
    for (const f of list) out.push(`  ${terminalText(findingLine(f))}`);
  }
  const [oneSide, bothSides] = splitFailures(r);
  if (oneSide.length) {
    out.push('failed builds (their objects are not compared)');
    for (const f of oneSide) {
      const [first, ...rest] = f.message.split('\n');
      out.push(`  ✗ ${terminalName(f.kind)} ${terminalName(`${f.namespace}/${f.name}`)} in ${terminalName(f.cluster)} fails ${f.failed === 'head' ? 'in the working tree' : 'at the base'}: ${terminalText(first)}`);
      out.push(...rest.map((l) => `      ${terminalText(l)}`));
    }
  }
  if (bothSides.length) {
    // Not this change's doing: one line each.
    out.push(`failing on both sides, as before this change (${bothSides.length})`);
    for (const f of bothSides) out.push(`  · ${terminalName(f.kind)} ${terminalName(`${f.namespace}/${f.name}`)} in ${terminalName(f.cluster)}: ${terminalText(f.message.split('\n')[0])}`);
  }
  out.push(summaryLine(r));
  return out.join('\n') + '\n';
}

/** Failures this change makes or mends, and those it leaves as they were (failing on both sides). */
function splitFailures(r: ChangesReport): [ChangesReport['failures'], ChangesReport['failures']] {
  return [r.failures.filter((f) => f.failed !== 'both'), r.failures.filter((f) => f.failed === 'both')];
}

function indented(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

/** A fenced block that no run of backquotes in `text` can close early. */
function fenced(text: string, info: string): string {
  let longest = 2;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(longest + 1);
  return `${fence}${info}\n${text.split('\n').map(showControls).join('\n')}\n${fence}`;
}

export function reportMarkdown(r: ChangesReport, baseName: string, limit = MARKDOWN_LIMIT): string {
  const head: string[] = [`### GitOps changes against ${markdownCode(r.base.slice(0, 12))} (${markdownText(baseName)})`, '', `**${markdownText(summaryLine(r))}**`, ''];
  const [oneSide, bothSides] = splitFailures(r);
  if (oneSide.length) {
    head.push('#### Failed builds (their objects are not compared)', '');
    for (const f of oneSide) {
      head.push(`- ${markdownText(f.kind)} ${markdownCode(`${f.namespace}/${f.name}`)} in ${markdownCode(f.cluster)} fails ${f.failed === 'head' ? 'with this change' : 'at the base (fixed by this change)'}:`, '', indented(fenced(f.message, 'text')), '');
    }
    head.push('');
  }
  if (bothSides.length) {
    head.push(`<details><summary>${bothSides.length} build(s) fail on both sides, as before this change</summary>`, '');
    for (const f of bothSides) head.push(`- ${markdownText(f.kind)} ${markdownCode(`${f.namespace}/${f.name}`)} in ${markdownCode(f.cluster)}: ${markdownText(f.message.split('\n')[0])}`);
    head.push('', '</details>', '');
  }
  for (const [title, list] of [
    ['Findings introduced', r.findings.introduced],
    ['Findings fixed', r.findings.fixed],
  ] as const) {
    if (!list.length) continue;
    head.push(`#### ${title}`, '');
    for (const f of list) head.push(`- ${markdownCode(`${f.file}:${f.line}`)} ${f.severity} ${markdownCode(f.rule)} ${markdownText(f.message)}`);
    head.push('');
  }
  if (r.images.length) {
    head.push('#### Images', '', '| image | before | after | still in use |', '| --- | --- | --- | --- |');
    for (const i of r.images) head.push(`| ${markdownCode(i.image)} | ${i.before.map(markdownCode).join(' ')} | ${i.after.map(markdownCode).join(' ')} | ${(i.kept ?? []).map(markdownCode).join(' ')} |`);
    head.push('');
  }
  let text = head.join('\n');
  const byCluster = new Map<string, ProducerChanges[]>();
  for (const c of r.changes) byCluster.set(c.cluster, [...(byCluster.get(c.cluster) ?? []), c]);
  const close = '\n</details>\n';
  let left = r.changes.reduce((n, c) => n + c.objects.length, 0);
  const note = () => `\n> Cut at ${limit.toLocaleString('en-US')} characters: ${left} more object change(s) not shown. Run \`gitops-preview changes\` for the whole report.\n`;
  for (const [cluster, producers] of byCluster) {
    const count = producers.reduce((n, p) => n + p.objects.length, 0);
    const open = `\n<details><summary>Cluster ${htmlText(cluster)}: ${count} object(s) in ${producers.length} producer(s)</summary>\n`;
    if (text.length + open.length + close.length + note().length > limit) return text + note();
    text += open;
    for (const p of producers) {
      text += `\n**${p.kind} ${markdownText(`${p.namespace}/${p.name}`)}**${p.note ? ` (its spec: ${markdownText(p.note)})` : ''}\n\n`;
      for (const o of p.objects) {
        const block = `${SIGN[o.change]} ${markdownCode(objectName(o))} ${o.change}\n\n${fenced(o.diff, 'diff')}\n\n`;
        if (text.length + block.length + close.length + note().length > limit) return text + close + note();
        text += block;
        left--;
      }
    }
    text += close;
  }
  return text;
}
