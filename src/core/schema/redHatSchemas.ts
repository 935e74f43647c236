/**
 * The Red Hat YAML extension's `yaml.schemas` setting: schema (a URL, a file, or `kubernetes`, its
 * bundled Kubernetes schema) → the files it validates, completes and hovers with it. Matched as
 * that extension matches: each pattern's `*` is any run of characters (slashes included) and the
 * pattern may match the end of the file's path; a leading `/` or `./` means the workspace folder.
 * Negated patterns (`!…`) are left out (no file is then said to be judged by it).
 */
export type RedHatSchemas = Readonly<Record<string, readonly string[]>>;

/** The setting as read from the editor's configuration: strings and lists of strings only. */
export function redHatSchemasOf(value: unknown): RedHatSchemas {
  const out: Record<string, string[]> = {};
  if (!value || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const [schema, globs] of Object.entries(value as Record<string, unknown>)) {
    const list = (Array.isArray(globs) ? globs : [globs]).filter((g): g is string => typeof g === 'string' && g.length > 0 && !g.startsWith('!'));
    if (list.length) out[schema] = list;
  }
  return out;
}

/** The schema the setting gives the file at `path` (a path under `root`), or undefined. */
export function settingSchemaOf(schemas: RedHatSchemas | undefined, root: string, path: string): string | undefined {
  if (!schemas || !path.startsWith(`${root}/`)) return undefined;
  const rel = path.slice(root.length + 1);
  for (const [schema, globs] of Object.entries(schemas)) {
    if (globs.some((g) => patternOf(g).test(rel))) return schema;
  }
  return undefined;
}

const patterns = new Map<string, RegExp>();

function patternOf(glob: string): RegExp {
  let re = patterns.get(glob);
  if (!re) {
    const rooted = /^\.?\//.test(glob);
    const body = glob.replace(/^\.?\/+/, '');
    const source = body.replace(/[-\\{}+?|^$.,[\]()#\s]/g, '\\$&').replace(/\*+/g, '.*');
    // Rooted at the folder: the whole relative path; else any path ending so.
    re = new RegExp(rooted ? `^${source}$` : `(^|/)${source}$`);
    if (patterns.size > 1000) patterns.clear();
    patterns.set(glob, re);
  }
  return re;
}
