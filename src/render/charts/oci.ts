/**
 * The OCI distribution API, as far as a chart pull needs it: the tags list (for a semver range),
 * the manifest, and the chart layer, each blob checked against its digest. Authentication as
 * registries ask for it: anonymous first; on `401` with `Bearer realm,service,scope` a token from
 * the realm (with the user's login for this registry when the realm is on the same host), on
 * `Basic` the login itself. A login never goes to another host.
 */
import { createHash } from 'node:crypto';
import { parseChallenge } from './challenge';
import { basicAuth, findLogin, type LoginLookup } from './credentials';
import { httpGet, type GetResponse } from './http';

export const HELM_CHART_LAYER = 'application/vnd.cncf.helm.chart.content.v1.tar+gzip';
const MANIFEST_TYPES = ['application/vnd.oci.image.manifest.v1+json', 'application/vnd.docker.distribution.manifest.v2+json'];
const MAX_MANIFEST_BYTES = 4 * 2 ** 20;
const MAX_TAGS_BYTES = 8 * 2 ** 20;
const MAX_TAG_PAGES = 20;
const MAX_TOKEN_BYTES = 1 * 2 ** 20;

export interface OciRef {
  /** `host[:port]` */
  host: string;
  /** Repository path inside the registry. */
  repository: string;
  /** `http` only when the source says `insecure: true`, as Flux does. */
  scheme: 'https' | 'http';
}

const isLowerAlnum = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');

/** The distribution spec's repository name: lower-case path segments of [a-z0-9] joined by `.`, `_`, `__` or `-`s. */
function validRepository(name: string): boolean {
  return name.split('/').every((seg) => {
    if (!seg || !isLowerAlnum(seg[0]) || !isLowerAlnum(seg[seg.length - 1])) return false;
    for (const c of seg) if (!isLowerAlnum(c) && c !== '.' && c !== '_' && c !== '-') return false;
    return true;
  });
}

function validHost(host: string): boolean {
  if (!host) return false;
  for (const c of host) if (!isLowerAlnum(c) && c !== '.' && c !== '-' && c !== ':' && c !== '[' && c !== ']') return false;
  return true;
}

/** A tag (`[A-Za-z0-9_][A-Za-z0-9._-]{0,127}`) or a sha256 digest: what may stand in a manifest URL. */
export function validReference(ref: string): boolean {
  if (ref.startsWith('sha256:')) return /^sha256:[0-9a-f]{64}$/.test(ref);
  if (ref.length === 0 || ref.length > 128 || ref[0] === '.' || ref[0] === '-') return false;
  for (const c of ref) if (!isLowerAlnum(c.toLowerCase()) && c !== '.' && c !== '_' && c !== '-') return false;
  return true;
}

/** `oci://host[:port]/path` → its parts; undefined when it is not one (nothing of it may bend the request path). */
export function parseOciUrl(url: string, insecure: boolean): OciRef | undefined {
  if (!url.startsWith('oci://')) return undefined;
  const rest = url.slice('oci://'.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  const host = rest.slice(0, slash).toLowerCase();
  const repository = rest.slice(slash + 1).split('/').filter((s) => s !== '').join('/');
  if (!validHost(host) || !validRepository(repository)) return undefined;
  return { host, repository, scheme: insecure ? 'http' : 'https' };
}

export interface OciClientOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
}

export type OciResult<T> = { ok: true; value: T } | { ok: false; error: string; status?: number; cancelled?: boolean };

/** One registry repository, remembering the token it was given. */
export class OciClient {
  private authorization: string | undefined;
  private lookup: LoginLookup | undefined;
  /** What was tried, for the message when access is refused. */
  private readonly attempts: string[] = [];

  constructor(
    readonly ref: OciRef,
    private readonly opts: OciClientOptions,
  ) {}

  private url(p: string): string {
    return `${this.ref.scheme}://${this.ref.host}/v2/${this.ref.repository}/${p}`;
  }

  private login(): LoginLookup {
    this.lookup ??= findLogin(this.ref.host, this.opts.env);
    return this.lookup;
  }

  /** A GET under the repository, authenticating once when the registry asks. */
  private async get(p: string, accept: string[] | undefined, maxBytes: number): Promise<OciResult<GetResponse>> {
    const url = this.url(p);
    const headers = accept ? { Accept: accept.join(', ') } : undefined;
    const first = await httpGet(url, { headers, authorization: this.authorization, maxBytes, timeoutMs: this.opts.timeoutMs, signal: this.opts.signal });
    if (!first.ok) return first;
    if (first.value.status !== 401) return this.checked(first.value, url);
    const auth = await this.authenticate(first.value);
    if (!auth.ok) return auth;
    const again = await httpGet(url, { headers, authorization: this.authorization, maxBytes, timeoutMs: this.opts.timeoutMs, signal: this.opts.signal });
    return again.ok ? this.checked(again.value, url) : again;
  }

  private checked(res: GetResponse, url: string): OciResult<GetResponse> {
    if (res.status === 200) return { ok: true, value: res };
    if (res.status === 401 || res.status === 403) return this.denied(res.status, url);
    return { ok: false, status: res.status, error: `HTTP ${res.status} from ${url}` };
  }

  /** What fails and the fix first, then what was tried. */
  private denied(status: number, url: string): OciResult<never> {
    const host = this.ref.host;
    const tried = [...this.attempts, `credentials looked for in ${this.login().tried.join(', ')}`];
    return {
      ok: false,
      status,
      error: `access refused (HTTP ${status}): run \`docker login ${host}\` or \`helm registry login ${host}\`. Tried: GET ${url}; ${tried.join('; ')}; a secretRef names a Secret in the cluster, which is not read`,
    };
  }

  private async authenticate(res: GetResponse): Promise<OciResult<void>> {
    const challenge = parseChallenge(res.headers.get('www-authenticate'));
    const { login } = this.login();
    if (challenge?.scheme === 'basic') {
      if (!login) return this.denied(401, res.url);
      this.attempts.push(`basic auth with the login from ${login.source}`);
      this.authorization = basicAuth(login);
      return { ok: true, value: undefined };
    }
    if (challenge?.scheme !== 'bearer' || !challenge.params.realm) {
      this.attempts.push('the registry asked for no Basic or Bearer authentication');
      return this.denied(401, res.url);
    }
    let realm: URL;
    try {
      realm = new URL(challenge.params.realm);
    } catch {
      return { ok: false, error: `the token realm '${challenge.params.realm}' named by ${res.url} is not a URL` };
    }
    if (realm.protocol !== 'https:' && realm.protocol !== 'http:') return { ok: false, error: `the token realm '${challenge.params.realm}' named by ${res.url} is not http(s)` };
    if (challenge.params.service) realm.searchParams.set('service', challenge.params.service);
    realm.searchParams.set('scope', challenge.params.scope || `repository:${this.ref.repository}:pull`);
    // The login belongs to the registry's host: a realm elsewhere (or in clear text where the
    // registry is not) gets an anonymous request.
    const sameHost = realm.host === this.ref.host && (realm.protocol === 'https:' || this.ref.scheme === 'http');
    const authorization = login && sameHost ? basicAuth(login) : undefined;
    this.attempts.push(authorization ? `a token from ${realm.origin}${realm.pathname} with the login from ${login!.source}` : `an anonymous token from ${realm.origin}${realm.pathname}${login && !sameHost ? ' (the login is not sent to another host)' : ''}`);
    const tokenRes = await httpGet(realm.toString(), { authorization, maxBytes: MAX_TOKEN_BYTES, timeoutMs: this.opts.timeoutMs, signal: this.opts.signal });
    if (!tokenRes.ok) return tokenRes;
    if (tokenRes.value.status !== 200) return this.denied(tokenRes.value.status, `${realm.origin}${realm.pathname}`);
    let token: unknown;
    try {
      const body = JSON.parse(tokenRes.value.body.toString('utf8')) as Record<string, unknown>;
      token = body.token ?? body.access_token;
    } catch {
      token = undefined;
    }
    if (typeof token !== 'string' || token === '') return { ok: false, error: `the token response of ${realm.origin}${realm.pathname} holds no token` };
    this.authorization = `Bearer ${token}`;
    return { ok: true, value: undefined };
  }

  /** Every tag (following `Link: rel="next"` pages, a bounded number of them). */
  async tags(): Promise<OciResult<string[]>> {
    const out: string[] = [];
    let next: string | undefined = 'tags/list?n=1000';
    for (let page = 0; next && page < MAX_TAG_PAGES; page++) {
      const res = await this.get(next, undefined, MAX_TAGS_BYTES);
      if (!res.ok) return res;
      let tags: unknown;
      try {
        tags = (JSON.parse(res.value.body.toString('utf8')) as { tags?: unknown }).tags;
      } catch {
        return { ok: false, error: `the tags list is not JSON (${this.url('tags/list')})` };
      }
      if (Array.isArray(tags)) for (const t of tags) if (typeof t === 'string') out.push(t);
      next = nextPage(res.value.headers.get('link'), this.ref.repository);
    }
    return { ok: true, value: out };
  }

  /** The chart layer's descriptor in the manifest of `reference` (a tag or a digest). */
  async chartLayer(reference: string): Promise<OciResult<{ digest: string; size: number; manifestDigest: string }>> {
    if (!validReference(reference)) return { ok: false, error: `'${reference}' is not an OCI tag or sha256 digest` };
    const res = await this.get(`manifests/${reference}`, MANIFEST_TYPES, MAX_MANIFEST_BYTES);
    if (!res.ok) return res;
    const manifestDigest = `sha256:${createHash('sha256').update(res.value.body).digest('hex')}`;
    if (reference.startsWith('sha256:') && reference !== manifestDigest) return { ok: false, error: `the manifest's digest is ${manifestDigest}, not the ${reference} asked for (${this.url(`manifests/${reference}`)})` };
    let layers: unknown;
    try {
      layers = (JSON.parse(res.value.body.toString('utf8')) as { layers?: unknown }).layers;
    } catch {
      return { ok: false, error: `the manifest is not JSON (${this.url(`manifests/${reference}`)})` };
    }
    const list = Array.isArray(layers) ? (layers as { mediaType?: unknown; digest?: unknown; size?: unknown }[]) : [];
    const layer = list.find((l) => l.mediaType === HELM_CHART_LAYER) ?? list[0];
    if (!layer || typeof layer.digest !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(layer.digest)) {
      return { ok: false, error: `the manifest has no chart layer (${HELM_CHART_LAYER}) (${this.url(`manifests/${reference}`)})` };
    }
    return { ok: true, value: { digest: layer.digest, size: typeof layer.size === 'number' ? layer.size : 0, manifestDigest } };
  }

  /** The blob, refused unless its sha256 is `digest`. */
  async blob(digest: string, maxBytes: number): Promise<OciResult<Buffer>> {
    const res = await this.get(`blobs/${digest}`, undefined, maxBytes);
    if (!res.ok) return res;
    const actual = `sha256:${createHash('sha256').update(res.value.body).digest('hex')}`;
    if (actual !== digest) return { ok: false, error: `the blob's content has digest ${actual}, not ${digest} (${this.url(`blobs/${digest}`)})` };
    return { ok: true, value: res.value.body };
  }
}

/** `</v2/repo/tags/list?last=x&n=1000>; rel="next"` → the path under the repository, when it stays there. */
function nextPage(link: string | null, repository: string): string | undefined {
  if (!link) return undefined;
  const open = link.indexOf('<');
  const close = link.indexOf('>', open + 1);
  if (open < 0 || close < 0 || !link.slice(close).includes('rel="next"')) return undefined;
  const target = link.slice(open + 1, close);
  const prefix = `/v2/${repository}/`;
  return target.startsWith(prefix) ? target.slice(prefix.length) : undefined;
}
