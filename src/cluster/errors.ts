/**
 * One classification for every way talking to a cluster can fail, so the UI and the CLI can say
 * exactly what is wrong ("Forbidden: …", "Cannot reach …") and offer a retry, instead of a stack.
 */
export type ClusterErrorKind =
  | 'unreachable'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'invalid'
  | 'timeout'
  | 'no-kubeconfig'
  | 'bad-kubeconfig'
  | 'cancelled'
  | 'unknown';

export interface ClusterError {
  kind: ClusterErrorKind;
  /** One human line. */
  message: string;
  /** HTTP status when the API server answered. */
  status?: number;
  details?: unknown;
}

export function clusterError(kind: ClusterErrorKind, message: string, extra: { status?: number; details?: unknown } = {}): ClusterError {
  return { kind, message, ...extra };
}

/** Thrown (internally only) by the HTTP layer for non-2xx answers; `classifyError` turns it into a ClusterError. */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly request: { method: string; url: string },
  ) {
    super(`HTTP ${status}`);
  }
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EPIPE',
  'ERR_SOCKET_CLOSED',
]);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_TIMEOUT']);
const CERT_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function parseBody(body: unknown): Record<string, unknown> | undefined {
  if (typeof body === 'string') {
    try {
      return asRecord(JSON.parse(body));
    } catch {
      return undefined;
    }
  }
  return asRecord(body);
}

/** The API server's own sentence from a metav1.Status body, if any. */
function statusMessage(body: unknown): string | undefined {
  const b = parseBody(body);
  const m = b?.message;
  return typeof m === 'string' && m.trim() ? m.trim() : undefined;
}

function firstLine(s: string): string {
  const line = s.split('\n').map((l) => l.trim()).find((l) => l) ?? s;
  return line.length > 300 ? line.slice(0, 297) + '...' : line;
}

/** What an HTTP status means for the user, with the server's message when it sent one. */
export function errorForStatus(status: number, body: unknown, where = ''): ClusterError {
  const server = statusMessage(body);
  const suffix = where ? ` (${where})` : '';
  const details = parseBody(body) ?? body;
  switch (status) {
    case 401:
      return clusterError('unauthorized', `Unauthorized: the cluster rejected the credentials (expired token or certificate?)${suffix}`, { status, details });
    case 403:
      return clusterError('forbidden', `Forbidden: ${server ? stripForbidden(server) : 'permission denied'}`, { status, details });
    case 404:
      return clusterError('not-found', `Not found: ${server ?? 'the object or API does not exist'}${suffix}`, { status, details });
    case 409:
      return clusterError('conflict', `Conflict: ${server ?? 'the object was changed concurrently'}`, { status, details });
    case 400:
    case 415:
    case 422:
      return clusterError('invalid', `Invalid: ${server ?? `the request was rejected (HTTP ${status})`}`, { status, details });
    case 408:
    case 504:
      return clusterError('timeout', `Timed out: ${server ?? `the API server timed out (HTTP ${status})`}${suffix}`, { status, details });
    case 502:
    case 503:
      return clusterError('unreachable', `The API server is unavailable (HTTP ${status})${server ? `: ${server}` : ''}${suffix}`, { status, details });
    default:
      return clusterError('unknown', `HTTP ${status}${server ? `: ${server}` : ''}${suffix}`, { status, details });
  }
}

/** `kustomizations.kustomize.toolkit.fluxcd.io "x" is forbidden: User "u" cannot patch …` → the part after "forbidden: ". */
function stripForbidden(message: string): string {
  const i = message.indexOf('is forbidden: ');
  const rest = i >= 0 ? message.slice(i + 'is forbidden: '.length) : message;
  return firstLine(rest.replace(/^User "([^"]+)"/, 'user $1'));
}

/**
 * Any thrown value from a cluster call → ClusterError: client-node ApiException (`code`, `body`),
 * our HttpStatusError, Node network/TLS errors (`code`), aborts, and exec credential plugin failures.
 */
export function classifyError(err: unknown, server?: string): ClusterError {
  if (err && typeof err === 'object' && 'kind' in err && 'message' in err && typeof (err as ClusterError).kind === 'string' && !(err instanceof Error)) {
    return err as ClusterError;
  }
  const e = (err ?? {}) as Record<string, unknown> & { message?: string; name?: string; code?: unknown; cause?: unknown };
  const where = server ? ` ${server}` : ' the API server';

  if (err instanceof HttpStatusError) return errorForStatus(err.status, err.body);
  // client-node ApiException<T>: { code: number, body }
  if (typeof e.code === 'number' && e.code >= 100 && e.code < 600) return errorForStatus(e.code, e.body);
  if (typeof e.statusCode === 'number') return errorForStatus(e.statusCode, e.body);

  if (e.name === 'AbortError' || e.code === 'ABORT_ERR') {
    const reason = (e as { cause?: unknown }).cause;
    if (reason instanceof Error && reason.name === 'TimeoutError') return clusterError('timeout', `Timed out waiting for${where}`);
    return clusterError('cancelled', 'Cancelled');
  }
  if (e.name === 'TimeoutError') return clusterError('timeout', `Timed out waiting for${where}`);

  const code = typeof e.code === 'string' ? e.code : typeof (e.cause as { code?: unknown })?.code === 'string' ? ((e.cause as { code: string }).code) : undefined;
  const message = typeof e.message === 'string' ? e.message : String(err);
  if (code && TIMEOUT_CODES.has(code)) return clusterError('timeout', `Timed out connecting to${where} (${code})`);
  if (code && NETWORK_CODES.has(code)) return clusterError('unreachable', `Cannot reach${where}: ${code === 'ECONNREFUSED' ? 'connection refused' : code === 'ENOTFOUND' ? 'host not found' : code}`);
  if (code && (CERT_CODES.has(code) || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL'))) {
    return clusterError(code === 'CERT_HAS_EXPIRED' ? 'unauthorized' : 'unreachable', `TLS error talking to${where}: ${firstLine(message)} (${code})`);
  }
  if (/exec|credential plugin|authProvider/i.test(message) || code === 'ENOENT') {
    return clusterError('unauthorized', `Credential plugin failed: ${firstLine(message) || 'no output'}`);
  }
  if (/certificate|self[- ]signed|TLS/i.test(message)) return clusterError('unreachable', `TLS error talking to${where}: ${firstLine(message)}`);
  return clusterError('unknown', firstLine(message || 'unknown error'));
}
