/**
 * `WWW-Authenticate: Bearer realm="…",service="…",scope="…"` (or `Basic realm="…"`), parsed in one
 * pass: the header comes from the network.
 */

export interface AuthChallenge {
  /** Lower case: `bearer`, `basic`, … */
  scheme: string;
  params: Record<string, string>;
}

const MAX_HEADER = 8192;

export function parseChallenge(header: string | null): AuthChallenge | undefined {
  if (!header || header.length > MAX_HEADER) return undefined;
  let i = 0;
  const skipBlanks = (): void => {
    while (i < header.length && (header[i] === ' ' || header[i] === '\t')) i++;
  };
  skipBlanks();
  const start = i;
  while (i < header.length && header[i] !== ' ' && header[i] !== '\t') i++;
  const scheme = header.slice(start, i).toLowerCase();
  if (!scheme) return undefined;
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  while (i < header.length) {
    skipBlanks();
    if (header[i] === ',') {
      i++;
      continue;
    }
    const keyStart = i;
    while (i < header.length && header[i] !== '=' && header[i] !== ',') i++;
    const key = header.slice(keyStart, i).trim().toLowerCase();
    if (header[i] !== '=') continue;
    i++;
    skipBlanks();
    let value = '';
    if (header[i] === '"') {
      i++;
      while (i < header.length && header[i] !== '"') {
        if (header[i] === '\\' && i + 1 < header.length) i++;
        value += header[i++];
      }
      i++;
    } else {
      const valueStart = i;
      while (i < header.length && header[i] !== ',') i++;
      value = header.slice(valueStart, i).trim();
    }
    if (key) params[key] = value;
  }
  return { scheme, params };
}
