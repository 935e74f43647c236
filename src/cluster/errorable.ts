import type { ClusterError } from './errors';

/** Result of every cluster call: callers branch on `ok` instead of catching. */
export type Errorable<T> = { ok: true; value: T } | { ok: false; error: ClusterError };

export function ok<T>(value: T): Errorable<T> {
  return { ok: true, value };
}

export function fail<T = never>(error: ClusterError): Errorable<T> {
  return { ok: false, error };
}
