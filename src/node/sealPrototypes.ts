/**
 * Defence in depth for the processes and threads that read repositories (the CLI, the engine
 * worker, the WebAssembly workers): no property can be added to the shared prototypes, so a
 * values merge or path walk that a repository steers at `Object.prototype` cannot plant an option
 * or an environment variable that every object then inherits. Existing members stay writable
 * (sealing them would break libraries that assign `toString` on their own objects). Never called
 * in the extension host, which other extensions share.
 */
export function sealSharedPrototypes(): void {
  for (const proto of [Object.prototype, Array.prototype, Function.prototype, String.prototype, Number.prototype, Boolean.prototype]) Object.preventExtensions(proto);
}
