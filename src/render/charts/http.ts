/**
 * HTTP GET for chart sources: a time limit, a size cap read as the body streams in, and redirects
 * followed by hand so that an Authorization header goes only to the host it was made for (a
 * registry redirecting a blob to a storage host gets no credentials there).
 */

export interface GetOptions {
  headers?: Record<string, string>;
  /** Sent only while the request stays on this host (`host:port` of the first URL) and scheme. */
  authorization?: string;
  maxBytes: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface GetResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  /** The URL answered last (after redirects). */
  url: string;
}

const MAX_REDIRECTS = 10;

export type GetResult = { ok: true; value: GetResponse } | { ok: false; error: string; cancelled?: boolean };

export async function httpGet(url: string, opts: GetOptions): Promise<GetResult> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const first = new URL(url);
  let current = url;
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const u = new URL(current);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') return { ok: false, error: `only http and https are followed, not ${current}` };
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      // Not to another host, and not in clear text after a redirect from https to http.
      if (opts.authorization && u.host === first.host && u.protocol === first.protocol) headers.Authorization = opts.authorization;
      const res = await fetch(current, { headers, redirect: 'manual', signal });
      if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
        await res.body?.cancel();
        current = new URL(res.headers.get('location')!, current).toString();
        continue;
      }
      const body = await readCapped(res, opts.maxBytes);
      if (body === undefined) return { ok: false, error: `the response is larger than ${opts.maxBytes} bytes (GET ${current})` };
      return { ok: true, value: { status: res.status, headers: res.headers, body, url: current } };
    }
    return { ok: false, error: `more than ${MAX_REDIRECTS} redirects (GET ${url})` };
  } catch (err) {
    if (opts.signal?.aborted) return { ok: false, error: `cancelled (GET ${current})`, cancelled: true };
    if (timeout.aborted) return { ok: false, error: `no answer within ${Math.round(opts.timeoutMs / 1000)} s (GET ${current})` };
    const e = err as Error & { cause?: { code?: string; message?: string } };
    return { ok: false, error: `${e.cause?.code ?? e.cause?.message ?? e.message} (GET ${current})` };
  }
}

async function readCapped(res: Response, maxBytes: number): Promise<Buffer | undefined> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel();
    return undefined;
  }
  if (!res.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}
