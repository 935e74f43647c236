/**
 * The only place render code starts processes (`helm pull` of a chart that is not in the chart
 * cache; builds run as WebAssembly): execFile with an argument array (never a shell), a timeout,
 * an AbortSignal and bounded output, with failures classified for the user.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Result } from '../core/result';
import { fail, ok, type RenderError } from './errors';
import { getOwn, nullRecord } from '../core/safeRecord';

export interface RunOptions {
  cwd?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The caller's environment; the child gets only `childEnv(env, network)` of it. */
  env?: NodeJS.ProcessEnv;
  /** The process fetches charts: it keeps the proxy, CA and Helm registry settings. */
  network?: boolean;
}

/** Kept for every child: where home and temp are, and what Windows needs to start a process at all. */
const BASE_VARS = ['HOME', 'TMPDIR', 'TMP', 'TEMP', 'USERPROFILE', 'SYSTEMROOT', 'SystemRoot', 'WINDIR', 'LANG', 'LC_ALL'];
/** Kept for `helm pull`: proxies, CAs, and where Helm keeps its registry logins and repository cache. */
const NETWORK_VARS = [
  'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'SSL_CERT_FILE', 'SSL_CERT_DIR',
  'HELM_CACHE_HOME', 'HELM_CONFIG_HOME', 'HELM_DATA_HOME', 'HELM_REGISTRY_CONFIG', 'HELM_REPOSITORY_CONFIG', 'HELM_REPOSITORY_CACHE',
  'XDG_CACHE_HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME',
];

/**
 * The environment a child process gets: never the user's tokens and secrets (a template or a file
 * read could echo `/proc/self/environ`), and an empty PATH so neither tool can start another
 * program (kustomize runs git for remote bases, helm runs post-renderers and plugins by name).
 */
export function childEnv(env: NodeJS.ProcessEnv, network = false): NodeJS.ProcessEnv {
  // Node reads a child's environment with for…in, which lists inherited names too: the object has
  // no prototype, and only the caller's own variables are copied.
  const out = nullRecord<string>();
  out.PATH = '';
  for (const name of network ? [...BASE_VARS, ...NETWORK_VARS] : BASE_VARS) {
    const v = getOwn(env, name);
    if (typeof v === 'string') out[name] = v;
  }
  return out;
}

export interface RunOutput {
  stdout: string;
  stderr: string;
}

const MAX_OUTPUT = 256 * 1024 * 1024;

export function runProcess(bin: string, args: readonly string[], opts: RunOptions): Promise<Result<RunOutput, RenderError>> {
  const label = `${path.basename(bin)} ${args[0] ?? ''}`.trim();
  return new Promise((resolve) => {
    if (opts.signal?.aborted) {
      resolve(fail('cancelled', `${label} was cancelled`));
      return;
    }
    execFile(
      bin,
      [...args],
      { cwd: opts.cwd, timeout: opts.timeoutMs, killSignal: 'SIGKILL', signal: opts.signal, env: childEnv(opts.env ?? process.env, opts.network), maxBuffer: MAX_OUTPUT, windowsHide: true, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (!err) {
          resolve(ok({ stdout, stderr }));
          return;
        }
        const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: string | number; signal?: string };
        if (e.name === 'AbortError' || opts.signal?.aborted) resolve(fail('cancelled', `${label} was cancelled`));
        else if (e.code === 'ENOENT' || e.code === 'EACCES') resolve(fail('missing-binary', `cannot run ${bin}: ${e.code === 'ENOENT' ? 'not found' : 'permission denied'}`));
        else if (e.killed || e.signal === 'SIGKILL') resolve(fail('timeout', `${label} did not finish within ${Math.round(opts.timeoutMs / 1000)} s and was stopped`));
        else if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') resolve(fail('build-failed', `${label} produced more than ${MAX_OUTPUT / 1024 / 1024} MB of output`));
        else resolve(fail('build-failed', `${label} failed: ${firstLines(stderr || e.message)}`, stderr));
      },
    );
  });
}

function firstLines(text: string): string {
  const lines = text.trim().split('\n');
  return lines.length > 12 ? [...lines.slice(0, 12), `... (${lines.length - 12} more lines)`].join('\n') : lines.join('\n');
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** First executable `name` on PATH (Windows: with PATHEXT). */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

export const HELM_INSTALL_HINT = 'Pulling charts from HelmRepository and OCIRepository sources needs helm v3: install it (https://helm.sh/docs/intro/install/, or `go install helm.sh/helm/v3/cmd/helm@latest`) or set gitopsPreview.helmPath.';

export function resolveHelm(opts: { helmBin?: string; env?: NodeJS.ProcessEnv }): Result<string, RenderError> {
  const env = opts.env ?? process.env;
  if (opts.helmBin) {
    if (isExecutable(opts.helmBin)) return ok(opts.helmBin);
    const onPath = !opts.helmBin.includes('/') && !opts.helmBin.includes('\\') ? findOnPath(opts.helmBin, env) : undefined;
    if (onPath) return ok(onPath);
    return fail('missing-binary', `helm not found at '${opts.helmBin}' (gitopsPreview.helmPath). ${HELM_INSTALL_HINT}`);
  }
  const helm = findOnPath('helm', env);
  if (helm) return ok(helm);
  return fail('missing-binary', `helm not found (looked for gitopsPreview.helmPath and \`helm\` on PATH). ${HELM_INSTALL_HINT}`);
}
