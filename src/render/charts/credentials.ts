/**
 * Registry logins from the user's own files: docker's `config.json` (`$DOCKER_CONFIG`, else
 * `~/.docker`) and helm's `registry/config.json` (`$HELM_REGISTRY_CONFIG`, else
 * `$XDG_CONFIG_HOME/helm` or `~/.config/helm`). Only inline `auths` entries (`auth` or
 * `username`/`password`) are used: credential helpers would start a process. An entry belongs to
 * one registry host (port included); it is never offered to another host. Never from a repository:
 * a HelmRepository's `secretRef` names a Secret, which is not in the workspace.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { getOwn } from '../../core/safeRecord';

export interface RegistryLogin {
  username: string;
  password: string;
  /** The file it came from, for messages (never the secret). */
  source: string;
}

export interface LoginLookup {
  login?: RegistryLogin;
  /** Every file looked in, and what was found there for the host, for a message after a 401. */
  tried: string[];
}

const MAX_CONFIG_BYTES = 1024 * 1024;
const DOCKER_HUB = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io', 'registry.hub.docker.com']);

/** `https://index.docker.io/v1/`, `ghcr.io`, `127.0.0.1:5000/x` → the host (with port), lower case; docker hub as one name. */
export function registryHost(key: string): string {
  let s = key.trim().toLowerCase();
  const scheme = s.indexOf('://');
  if (scheme >= 0) s = s.slice(scheme + 3);
  const slash = s.indexOf('/');
  if (slash >= 0) s = s.slice(0, slash);
  return DOCKER_HUB.has(s) ? 'docker.io' : s;
}

/** The config files, in the order helm itself reads them: helm's registry config, then docker's. */
export function loginFiles(env: NodeJS.ProcessEnv): string[] {
  const home = getOwn(env, 'HOME') || os.homedir();
  const helmConfig = getOwn(env, 'HELM_REGISTRY_CONFIG') || path.join(getOwn(env, 'XDG_CONFIG_HOME') || path.join(home, '.config'), 'helm', 'registry', 'config.json');
  const docker = path.join(getOwn(env, 'DOCKER_CONFIG') || path.join(home, '.docker'), 'config.json');
  return [helmConfig, docker];
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > MAX_CONFIG_BYTES) return undefined;
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function decodeEntry(entry: unknown): { username: string; password: string } | undefined {
  if (!entry || typeof entry !== 'object') return undefined;
  const auth = getOwn(entry, 'auth');
  if (typeof auth === 'string' && auth !== '') {
    const text = Buffer.from(auth, 'base64').toString('utf8');
    const colon = text.indexOf(':');
    if (colon > 0) return { username: text.slice(0, colon), password: text.slice(colon + 1) };
  }
  const username = getOwn(entry, 'username');
  const password = getOwn(entry, 'password');
  if (typeof username === 'string' && typeof password === 'string' && username !== '') return { username, password };
  return undefined;
}

/** The login for `host` (`host[:port]` of the registry URL), from the first file that has one. */
export function findLogin(host: string, env: NodeJS.ProcessEnv): LoginLookup {
  const want = registryHost(host);
  const tried: string[] = [];
  for (const file of loginFiles(env)) {
    const config = readJson(file);
    if (!config) {
      tried.push(`${file} (none)`);
      continue;
    }
    const auths = getOwn(config, 'auths');
    if (auths && typeof auths === 'object') {
      for (const key of Object.keys(auths)) {
        if (registryHost(key) !== want) continue;
        const login = decodeEntry(getOwn(auths, key));
        if (login) {
          tried.push(`${file} (auths entry for ${want})`);
          return { login: { ...login, source: file }, tried };
        }
      }
    }
    const helpers = getOwn(config, 'credHelpers');
    const helper = helpers && typeof helpers === 'object' ? Object.keys(helpers).find((k) => registryHost(k) === want) : undefined;
    if (helper !== undefined || typeof getOwn(config, 'credsStore') === 'string') {
      tried.push(`${file} (no inline auths entry for ${want}; credential helpers are not run)`);
    } else tried.push(`${file} (no entry for ${want})`);
  }
  return { tried };
}

export function basicAuth(login: RegistryLogin): string {
  return `Basic ${Buffer.from(`${login.username}:${login.password}`).toString('base64')}`;
}
