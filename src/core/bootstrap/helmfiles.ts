/**
 * Releases of the repository's helmfiles, which home-lab repositories run before bootstrapping Flux
 * (CNI, cert-manager, external-secrets, CRDs-only charts): what they install exists before any
 * Kustomization runs. A helmfile is known by its name (`helmfile.yaml`, `helmfile.d/`), by a step
 * that runs it (`helmfile -f bootstrap/crds.yaml template`), or by its content wherever it is
 * (releases naming charts, no apiVersion). `.gotmpl` helmfiles are read line by line, templates
 * not executed: a templated value is unknown.
 */
import type { SourceFile } from '../yaml/document';
import { rangeAt } from '../yaml/document';
import { asArray, asRecord, asString } from '../model/objects';
import { chartName, KNOWN_CHARTS } from '../checks/knownCharts';
import type { BootstrapFact } from './facts';
import { readContext, type ReadContext } from './steps';
import type { Workspace } from '../workspace/workspace';
import { bootstrapFiles } from './files';
import { textMarks } from './files';
import { pinInText, releasePin } from './fluxPin';

interface Release {
  readonly name: string;
  readonly namespace: string | undefined;
  /** Undefined when not written, or templated. */
  readonly chart: string | undefined;
  /** Its line: asked for only where a fact is shown (a YAML helmfile's position needs its tree). */
  readonly line: () => number;
  readonly values: readonly unknown[];
  /** For a `.gotmpl` release: its lines, where inline values are read for a Flux pin. */
  readonly text?: string;
}

function isNamedHelmfile(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base.startsWith('helmfile') || path.includes('/helmfile.d/') || path.includes('/helmfile/');
}

/** Whether a release installs its chart's CRDs whatever its values; the chart's own name, or the release's when the chart is not written. */
function releaseFact(ctx: ReadContext, file: string, r: Release, skipCrds: boolean, crdsOnly: boolean): BootstrapFact {
  const name = r.chart && !r.chart.includes('{{') ? chartName(r.chart) : r.name;
  const known = KNOWN_CHARTS[name];
  const enabled =
    !known?.enabledBy ||
    known.enabledBy.some((p) =>
      r.values.some((v) => {
        let x: unknown = v;
        for (const seg of p) x = asRecord(x)?.[seg];
        return x === true || x === 'true';
      }),
    );
  const groups = known && enabled && !skipCrds ? [...known.groups] : [];
  const release = `${r.namespace ?? 'default'}/${r.name}`;
  const files = r.values.filter((v): v is string => typeof v === 'string');
  const pin = name === 'flux-instance' ? (r.text && pinInText(r.text)) || releasePin(ctx, file, r.values, files) : undefined;
  let line: number | undefined;
  return {
    what: 'chart',
    name,
    groups,
    reader: 'helmfile',
    file,
    get line() {
      return (line ??= r.line());
    },
    via: `release ${release}${crdsOnly ? ' (--include-crds)' : ''}`,
    release,
    ...(pin ? { fluxVersion: pin } : {}),
  };
}

function args(v: unknown): string[] {
  return asArray(asRecord(v)?.args).map((a) => asString(a) ?? '');
}

function yamlHelmfileFacts(ctx: ReadContext, file: SourceFile, linked: boolean, out: BootstrapFact[]): void {
  const named = linked || isNamedHelmfile(file.path);
  for (const doc of file.docs) {
    const v = asRecord(doc.value);
    if (!v || v.apiVersion !== undefined || !Array.isArray(v.releases)) continue;
    if (!named && !v.releases.some((r) => asString(asRecord(r)?.chart))) continue;
    const defaults = args(v.helmDefaults);
    v.releases.forEach((entry, i) => {
      const rel = asRecord(entry);
      const name = asString(rel?.name);
      if (!rel || !name || rel.installed === false) return;
      const own = args(rel);
      const all = [...defaults, ...own];
      const line = () => rangeAt(doc, ['releases', i]).start.line + 1;
      const release: Release = { name, namespace: asString(rel.namespace), chart: asString(rel.chart), line, values: asArray(rel.values) };
      out.push(releaseFact(ctx, file.path, release, all.includes('--skip-crds'), all.includes('--include-crds')));
    });
  }
}

/** `key: value` of one YAML line, the value unquoted; undefined for a templated value. */
function keyValue(text: string): [string, string | undefined] | undefined {
  const colon = text.indexOf(':');
  if (colon <= 0) return undefined;
  let value = text.slice(colon + 1).trim();
  const hash = value.indexOf(' #');
  if (hash >= 0) value = value.slice(0, hash).trim();
  if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) value = value.slice(1, -1);
  return [text.slice(0, colon).trim(), value && !value.includes('{{') ? value : undefined];
}

/** A `.gotmpl` helmfile: its `releases:` items, line by line (their values files: `- path` items of `values:`). */
function templateHelmfileFacts(ctx: ReadContext, path: string, text: string, out: BootstrapFact[]): void {
  const releases: Release[] = [];
  let inReleases = false;
  let itemIndent = -1;
  let current: { name?: string; namespace?: string; chart?: string; line: number; end: number; files: string[] } | undefined;
  const lines = text.split('\n');
  const flush = () => {
    if (current?.name) {
      const own = lines.slice(current.line - 1, current.end).join('\n');
      const line = current.line;
      releases.push({ name: current.name, namespace: current.namespace, chart: current.chart, line: () => line, values: current.files, text: own });
    }
    current = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    let indent = 0;
    while (indent < raw.length && raw[indent] === ' ') indent++;
    const trimmed = raw.slice(indent).trimEnd();
    if (!trimmed || trimmed.startsWith('#') || trimmed.startsWith('{{')) continue;
    if (indent === 0) {
      flush();
      inReleases = trimmed === 'releases:';
      itemIndent = -1;
      if (!inReleases) continue;
      continue;
    }
    if (!inReleases) continue;
    let rest = trimmed;
    if (trimmed.startsWith('- ') && (itemIndent < 0 || indent === itemIndent)) {
      flush();
      itemIndent = indent;
      current = { line: i + 1, end: i + 1, files: [] };
      rest = trimmed.slice(2).trim();
    } else if (current && indent > itemIndent + 2) {
      current.end = i + 1;
      const item = /^-\s+["']?([^"'\s]+\.(?:ya?ml|gotmpl))["']?\s*$/.exec(trimmed);
      if (item) current.files.push(item[1]);
      continue;
    } else if (!current || indent !== itemIndent + 2) continue;
    current.end = i + 1;
    const kv = keyValue(rest);
    if (!kv || !current) continue;
    if (kv[0] === 'name') current.name = kv[1];
    else if (kv[0] === 'namespace') current.namespace = kv[1];
    else if (kv[0] === 'chart') current.chart = kv[1];
  }
  flush();
  const skipCrds = text.includes('--skip-crds');
  const crdsOnly = text.includes('--include-crds');
  for (const r of releases) out.push(releaseFact(ctx, path, r, skipCrds, crdsOnly));
}

/** Per parsed file (an edit elsewhere does not read it again), as a helmfile by its own right or because a step runs it. */
const memoByFile = new WeakMap<SourceFile, BootstrapFact[]>();
const linkedMemo = new WeakMap<SourceFile, BootstrapFact[]>();

export function helmfileFacts(ctx: ReadContext): BootstrapFact[] {
  const out: BootstrapFact[] = [];
  for (const file of ctx.yamlByPath.values()) {
    if (!textMarks(file).releases) continue;
    const linked = ctx.helmfileLinks.has(file.path);
    const memo = (linked ? linkedMemo : memoByFile).get(file);
    if (memo) out.push(...memo);
    else {
      const facts: BootstrapFact[] = [];
      yamlHelmfileFacts(ctx, file, linked, facts);
      (linked ? linkedMemo : memoByFile).set(file, facts);
      out.push(...facts);
    }
  }
  for (const file of ctx.files.files) {
    if (file.runner !== 'helmfile-template') continue;
    if (!ctx.helmfileLinks.has(file.path) && !isNamedHelmfile(file.path)) continue;
    templateHelmfileFacts(ctx, file.path, file.text, out);
  }
  return out;
}

/**
 * The Flux releases the repository's helmfiles pin (a flux-instance release's values), for what is
 * decided before the model is built (post-build strictness). Helmfiles known by their names only.
 */
export function helmfileFluxPins(ws: Workspace): string[] {
  const files = bootstrapFiles(ws);
  const mentions = (t: string) => t.includes('flux-instance') && t.includes('releases:');
  if (!files.yaml.some((f) => textMarks(f).releases && mentions(f.text)) && !files.files.some((f) => f.runner === 'helmfile-template' && mentions(f.text))) return [];
  return helmfileFacts(readContext(ws, files)).flatMap((f) => (f.fluxVersion ? [f.fluxVersion] : []));
}
