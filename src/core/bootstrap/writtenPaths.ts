/**
 * Paths as scripts write them: relative to the repository root or the script's folder, or behind a
 * variable (`{{.CLUSTER_DIR}}/bootstrap/crds`, `{{ source_directory() }}/helmfile/crds.yaml`,
 * `${CLUSTER_DIR}/crds`), which is matched by what follows it in every folder of the repository.
 */

export interface ResolvedPath {
  readonly path: string;
  /** For a path behind a variable: the folder the variable stood for. */
  readonly scope?: string;
}

/** Where the last variable of a written path ends, or -1 when it has none. */
function lastVariableEnd(written: string): number {
  let end = -1;
  const close = written.lastIndexOf('}}');
  if (close >= 0) end = close + 2;
  const dollar = written.lastIndexOf('$');
  if (dollar >= 0 && dollar + 1 > end) {
    let i = dollar + 1;
    if (written[i] === '{') {
      const c = written.indexOf('}', i);
      i = c < 0 ? written.length : c + 1;
    } else if (written[i] === '(') {
      const c = written.indexOf(')', i);
      i = c < 0 ? written.length : c + 1;
    } else {
      while (i < written.length && /[A-Za-z0-9_]/.test(written[i])) i++;
    }
    end = Math.max(end, i);
  }
  return end;
}

/** Path segments with `.` and `..` resolved, joined by `/`; undefined when `..` climbs above the first. */
export function normalize(parts: string[]): string | undefined {
  const out: string[] = [];
  for (const p of parts) {
    if (p === '' || p === '.') continue;
    if (p === '..') {
      if (!out.length) return undefined;
      out.pop();
    } else out.push(p);
  }
  return out.join('/');
}

/**
 * The repository paths a written path may be. `exists` tells a literal path; `all` lists every
 * candidate (files or folders) for a path behind a variable. Candidates under the script's own
 * folder win over the others.
 */
export function resolveWritten(written: string, root: string, fromDir: string, exists: (path: string) => boolean, all: () => Iterable<string>): ResolvedPath[] {
  let path = written;
  while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const varEnd = lastVariableEnd(path);
  if (varEnd < 0) {
    // An absolute path inside the repository (a Taskfile's `{{.ROOT_DIR}}/k8s`, expanded).
    if (path.startsWith(`${root}/`)) {
      const rel = normalize(path.slice(root.length + 1).split('/'));
      return rel && exists(`${root}/${rel}`) ? [{ path: `${root}/${rel}` }] : [];
    }
    if (path.startsWith('/') || path.startsWith('~')) return [];
    const out: ResolvedPath[] = [];
    for (const base of fromDir === root ? [root] : [fromDir, root]) {
      const rel = normalize(`${base.slice(root.length + 1)}/${path}`.split('/'));
      if (rel === undefined) continue;
      const abs = rel ? `${root}/${rel}` : root;
      if (exists(abs)) return [{ path: abs }];
    }
    return out;
  }
  let suffix = path.slice(varEnd);
  while (suffix.startsWith('/')) suffix = suffix.slice(1);
  const rel = suffix ? normalize(suffix.split('/')) : undefined;
  if (!rel || rel.includes('{{') || rel.includes('$')) return [];
  const found: ResolvedPath[] = [];
  for (const p of all()) if (p.endsWith(`/${rel}`)) found.push({ path: p, scope: p.slice(0, p.length - rel.length - 1) });
  const near = found.filter((f) => f.path.startsWith(`${fromDir}/`));
  return (near.length ? near : found).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
