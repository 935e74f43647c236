// The part of the WebAssembly JS API the host uses: the project's lib (ES2022, no DOM) and
// @types/node 20 do not declare it, though Node 20 provides it.
declare namespace WebAssembly {
  class Module {
    private readonly __module: never;
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
  }
  interface Instance {
    readonly exports: Record<string, unknown>;
  }
  type Imports = Record<string, Record<string, unknown>>;
  function compile(bytes: Uint8Array): Promise<Module>;
  function instantiate(module: Module, imports?: Imports): Promise<Instance>;
}
