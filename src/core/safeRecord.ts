/**
 * Plain objects built from repository data. A key such as `__proto__` is data in YAML and in Go
 * maps, but in JavaScript `obj[key] = v` with that key replaces the object's prototype, and a path
 * walk through it reaches `Object.prototype`, which every object of the process shares (a value
 * set there reaches option bags and child environments). So keys from a repository are set as own
 * data properties and read only when own, and path walks refuse the segments that lead to shared
 * prototypes.
 */

/** Segments a path walk from repository data must not take: they lead to shared prototypes. */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Sets `key` as an own, enumerable data property, whatever the key (no `__proto__` setter runs). */
export function setOwn(obj: object, key: string | number, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

/** `obj[key]` when `obj` has it as its own property; inherited members (`constructor`, `toString`) are not values. */
export function getOwn(obj: object, key: string | number): any {
  return Object.prototype.hasOwnProperty.call(obj, key) ? (obj as Record<string | number, unknown>)[key] : undefined;
}

/** An object with no prototype, for maps keyed by repository names. */
export function nullRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
