/**
 * The Flux release a helmfile installs: a `flux-instance` release pins it with the chart's
 * `instance.distribution.version`, written in the release's inline values or in a values file it
 * names (YAML or a `.gotmpl` template, read without executing it: a templated version is unknown).
 */
import { asRecord, asString } from '../model/objects';
import type { ReadContext } from './steps';
import { resolveWritten } from './writtenPaths';

/** Lines of a values text read for the pin. */
const MAX_LINES = 20_000;

/** `instance.distribution.version` of one values document. */
export function pinInValues(value: unknown): string | undefined {
  const v = asRecord(asRecord(asRecord(value)?.instance)?.distribution)?.version;
  const text = typeof v === 'number' ? String(v) : asString(v);
  return text && !text.includes('{{') ? text : undefined;
}

/** A `version:` nested under a `distribution:` key of a YAML text (or template), line by line. */
export function pinInText(text: string): string | undefined {
  if (!text.includes('distribution')) return undefined;
  const lines = text.split('\n', MAX_LINES);
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)(?:-\s+)?distribution:\s*(?:#.*)?$/.exec(lines[i]);
    if (!m) continue;
    const indent = m[1].length;
    for (let j = i + 1; j < lines.length; j++) {
      const line = lines[j];
      if (!line.trim() || line.trim().startsWith('#') || line.trim().startsWith('{{')) continue;
      const own = line.length - line.trimStart().length;
      if (own <= indent) break;
      const v = /^\s*version:\s*["']?([^"'\s#]+)["']?\s*(?:#.*)?$/.exec(line);
      if (v && !v[1].includes('{{')) return v[1];
    }
  }
  return undefined;
}

/**
 * The pin of a flux-instance release: its inline values, then the values files it names, resolved
 * from the helmfile's folder (one written behind a template variable only when a single file matches).
 */
export function releasePin(ctx: ReadContext, helmfile: string, inline: readonly unknown[], files: readonly string[]): string | undefined {
  for (const v of inline) {
    const pin = pinInValues(v);
    if (pin) return pin;
  }
  const dir = helmfile.slice(0, helmfile.lastIndexOf('/'));
  for (const written of files) {
    const found = resolveWritten(written, ctx.ws.root, dir, (p) => ctx.files.paths.has(p), () => ctx.files.paths);
    if (found.length !== 1) continue;
    const yaml = ctx.yamlByPath.get(found[0].path);
    const pin = yaml ? yaml.docs.map((d) => pinInValues(d.value)).find(Boolean) : pinInText(ctx.files.files.find((f) => f.path === found[0].path)?.text ?? '');
    if (pin) return pin;
  }
  return undefined;
}
