/**
 * Reads each document's `apiVersion`, `kind` and `metadata.name/namespace` straight from the text,
 * for files in the common, plain shape (block mappings, plain or simply quoted scalars). Anything
 * unusual — anchors, tags, flow collections, directives, complex keys — returns undefined and the
 * caller parses the file properly. Document numbering follows the `yaml` library: content before
 * the first `---` is a document only if it is more than comments, and every `---` starts one.
 */
export interface DocHeader {
  index: number;
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  /** The document has some content (not just comments/blank lines). */
  hasContent: boolean;
}

const TOP_KEY = /^([A-Za-z_][A-Za-z0-9_.-]*):(?:[ \t]+(.*))?$/;
const CHILD_KEY = /^([ ]+)([A-Za-z_][A-Za-z0-9_.-]*):(?:[ \t]+(.*))?$/;
const ANCHOR_OR_ALIAS = /(^|[\s[{,])[&*][^\s,[\]{}]/;

/**
 * The text before a comment (a `#` after a blank). `raw` is one line, captured by `(.*)$`, so it
 * holds no line break. By index: `/[ \t]+#.*$/` rescans a blank run from each of its blanks.
 */
function beforeComment(raw: string): string {
  for (let hash = raw.indexOf('#', 1); hash !== -1; hash = raw.indexOf('#', hash + 1)) {
    if (raw[hash - 1] !== ' ' && raw[hash - 1] !== '\t') continue;
    let start = hash - 1;
    while (start > 0 && (raw[start - 1] === ' ' || raw[start - 1] === '\t')) start--;
    return raw.slice(0, start);
  }
  return raw;
}

/** Whether a key's inline text has a value before any `#`. */
function hasValue(raw: string | undefined): boolean {
  if (raw === undefined) return false;
  const hash = raw.indexOf('#');
  return (hash === -1 ? raw : raw.slice(0, hash)).trim() !== '';
}

/** A scalar as the parser would read it, or undefined when it is not a simple one. */
function simpleScalar(raw: string | undefined): string | undefined | null {
  if (raw === undefined) return null; // key with no inline value
  let v = beforeComment(raw).trim();
  if (v === '' ) return null;
  if (v.startsWith('"')) {
    const m = /^"([^"\\]*)"$/.exec(v);
    return m ? m[1] : undefined;
  }
  if (v.startsWith("'")) {
    const m = /^'([^']*)'$/.exec(v);
    return m ? m[1] : undefined;
  }
  if (/^[&*!|>{[@`%,?:#-]/.test(v) || v.includes(': ') || v.endsWith(':')) return undefined;
  // Plain scalars that YAML would type as something else (null, booleans, numbers) keep the parser's say.
  if (/^(~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?[0-9.].*|\.inf|\.nan)$/.test(v)) return undefined;
  return v;
}

/** Same bound as the parser's (MAX_DOCUMENTS in document.ts): past it the parser decides. */
const MAX_HEADERS = 10_000;

export function scanHeaders(text: string): DocHeader[] | undefined {
  if (text.length > 1_000_000 || text.includes('\u0000') || text.includes('\t')) return undefined;
  const lines = text.split('\n');
  const headers: DocHeader[] = [];
  let current: DocHeader = { index: 0, hasContent: false };
  let started = false; // a `---` has been seen (the current document exists even if empty)
  let inMetadata = false;
  let metadataIndent = -1;
  let seenTop = new Set<string>();
  let lastTopHadValue = true;
  const finish = () => {
    if (started || current.hasContent) headers.push(current);
  };
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line === '---' || line.startsWith('--- #') || /^---[ ]+$/.test(line)) {
      finish();
      if (headers.length >= MAX_HEADERS) return undefined;
      current = { index: headers.length, hasContent: false };
      started = true;
      lastTopHadValue = true;
      inMetadata = false;
      seenTop = new Set();
      continue;
    }
    if (line.startsWith('---') || line.startsWith('...') || line.startsWith('%')) return undefined;
    const trimmed = line.trimStart();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    current.hasContent = true;
    if (ANCHOR_OR_ALIAS.test(line) || /(^|\s)!/.test(trimmed)) return undefined;
    if (line[0] === '-' && (line.length === 1 || line[1] === ' ') && !lastTopHadValue) {
      inMetadata = false; // a block sequence written at column 0 under the previous key
      continue;
    }
    if (line[0] !== ' ') {
      const m = TOP_KEY.exec(line);
      if (!m) return undefined;
      const key = m[1];
      if (seenTop.has(key)) return undefined;
      seenTop.add(key);
      inMetadata = false;
      lastTopHadValue = hasValue(m[2]);
      if (key === 'apiVersion' || key === 'kind') {
        const v = simpleScalar(m[2]);
        if (typeof v !== 'string') return undefined;
        current[key] = v;
      } else if (key === 'metadata') {
        if (hasValue(m[2])) return undefined;
        inMetadata = true;
        metadataIndent = -1;
      } else if (m[2] !== undefined && /^[{[]/.test(m[2].trim())) {
        // A flow collection may span lines that look like top-level keys.
        if (!/^(\{[^{}]*\}|\[[^[\]]*\])\s*(#.*)?$/.test(m[2].trim())) return undefined;
      } else if (m[2] !== undefined && /^["']/.test(m[2].trim()) && !/^("[^"]*"|'[^']*')\s*(#.*)?$/.test(m[2].trim())) {
        return undefined; // a quoted scalar continuing on the next lines
      }
      continue;
    }
    if (!inMetadata) continue;
    const c = CHILD_KEY.exec(line);
    const indent = line.length - trimmed.length;
    if (metadataIndent === -1) metadataIndent = indent;
    if (indent < metadataIndent) return undefined;
    if (indent > metadataIndent) continue;
    if (!c) return undefined;
    const key = c[2];
    if (key === 'name' || key === 'namespace') {
      if (current[key] !== undefined) return undefined;
      const v = simpleScalar(c[3]);
      if (typeof v !== 'string') return undefined;
      current[key] = v;
    } else if (c[3] !== undefined && /^["'{[]/.test(c[3].trim()) && !/^("[^"]*"|'[^']*'|\{[^{}]*\}|\[[^[\]]*\])\s*(#.*)?$/.test(c[3].trim())) {
      return undefined;
    }
  }
  finish();
  return headers;
}
