/**
 * Talos installs manifests with the cluster itself, before anything else runs: `extraManifests`
 * (URLs) and `inlineManifests` (`{name, contents}`) of a machine config's `cluster` section, of a
 * machine config patch, or of talhelper's `talconfig.yaml` (at its top, under `controlPlane`,
 * `worker` or a node, in their `inlinePatch` and in `patches` written as YAML strings). CRDs
 * defined inline are known by name and group.
 */
import { parseSourceFile, parseYaml, rangeAt, type PathSegment, type SourceFile, type YamlDoc } from '../yaml/document';
import { asArray, asRecord, asString, objectsOf } from '../model/objects';
import { crdFact, type BootstrapFact } from './facts';
import { crdGroupsOfUrl } from './crdBundles';
import type { ReadContext } from './steps';
import { textMarks } from './files';

/** Inline manifests read per file, and their size: a machine config is not a bundle store. */
const MAX_INLINE = 200;
const MAX_INLINE_BYTES = 1024 * 1024;

function isTalconfig(path: string): boolean {
  return /(^|\/)talconfig\.ya?ml$/.test(path);
}

/** Sections of a document that may hold `extraManifests`/`inlineManifests`, with their YAML path. */
interface Section {
  readonly at: PathSegment[];
  readonly section: Record<string, any>;
  /** Read from a string (a talhelper `patches` entry): its facts stand at that entry's line. */
  readonly inString?: boolean;
}

/** talhelper's inline `patches` entries read, per file: each is YAML text parsed again. */
const MAX_PATCHES = 200;

function sections(path: string, v: Record<string, any>): Section[] {
  const out: Section[] = [];
  const cluster = asRecord(v.cluster);
  if (cluster) out.push({ at: ['cluster'], section: cluster });
  if (!isTalconfig(path)) return out;
  // talhelper: at the top, per role and per node, and in their `inlinePatch` (a machine config patch).
  let patches = 0;
  const withPatch = (at: PathSegment[], section: Record<string, any>) => {
    out.push({ at, section });
    const patched = asRecord(asRecord(section.inlinePatch)?.cluster);
    if (patched) out.push({ at: [...at, 'inlinePatch', 'cluster'], section: patched });
    // `patches: ["machine: …\ncluster: …"]`: machine config patches written as YAML strings
    // (`@file` entries name files read on their own).
    asArray(section.patches).forEach((p, i) => {
      const text = asString(p);
      if (!text || text.startsWith('@') || !text.includes('cluster') || ++patches > MAX_PATCHES || text.length > MAX_INLINE_BYTES) return;
      let parsed: unknown;
      try {
        parsed = parseYaml(text);
      } catch {
        return;
      }
      const cluster = asRecord(asRecord(parsed)?.cluster);
      if (cluster) out.push({ at: [...at, 'patches', i], section: cluster, inString: true });
    });
  };
  withPatch([], v);
  for (const role of ['controlPlane', 'worker']) {
    const r = asRecord(v[role]);
    if (r) withPatch([role], r);
  }
  asArray(v.nodes).forEach((n, i) => {
    const node = asRecord(n);
    if (node) withPatch(['nodes', i], node);
  });
  return out;
}

function docFacts(doc: YamlDoc, out: BootstrapFact[]): void {
  const v = asRecord(doc.value);
  if (!v || v.apiVersion !== undefined || v.kind !== undefined) return;
  const file = doc.file.path;
  let inline = 0;
  for (const { at, section, inString } of sections(file, v)) {
    const lineOf = (sub: PathSegment[]) => rangeAt(doc, inString ? at : [...at, ...sub]).start.line + 1;
    asArray(section.extraManifests).forEach((u, i) => {
      const url = asString(u);
      if (!url) return;
      const line = lineOf(['extraManifests', i]);
      const base = { reader: 'talos' as const, file, line, via: 'extraManifests' };
      const groups = crdGroupsOfUrl(url);
      if (!groups.length) out.push({ ...base, what: 'manifest', name: url, groups: [] });
      for (const g of groups) out.push({ ...base, what: 'crd-group', name: g, groups: [g], via: `extraManifests ${url}` });
    });
    asArray(section.inlineManifests).forEach((m, i) => {
      const entry = asRecord(m);
      const contents = asString(entry?.contents);
      if (!entry || contents === undefined || ++inline > MAX_INLINE || contents.length > MAX_INLINE_BYTES) return;
      const name = asString(entry.name) ?? `#${i}`;
      const line = lineOf(['inlineManifests', i]);
      const base = { reader: 'talos' as const, file, line, via: `inlineManifests ${name}` };
      const crds = objectsOf(parseSourceFile(`${file}#inline-${i}`, contents))
        .filter((o) => o.kind === 'CustomResourceDefinition')
        .map((o) => crdFact(o.body, base))
        .filter((f): f is BootstrapFact => !!f);
      if (crds.length) out.push(...crds);
      else out.push({ ...base, what: 'manifest', name, groups: [] });
    });
  }
}

/** Per parsed file: an edit elsewhere does not read it again. */
const memo = new WeakMap<SourceFile, BootstrapFact[]>();

export function talosFacts(ctx: ReadContext): BootstrapFact[] {
  const out: BootstrapFact[] = [];
  for (const file of ctx.yamlByPath.values()) {
    if (!textMarks(file).talos) continue;
    let facts = memo.get(file);
    if (!facts) {
      facts = [];
      for (const doc of file.docs) docFacts(doc, facts);
      memo.set(file, facts);
    }
    out.push(...facts);
  }
  return out;
}
