/**
 * The slice of the WebAssembly JavaScript API the kernel uses, typed locally: the repo
 * compiles with `lib: ["ES2023"]` (no DOM), which declares no `WebAssembly` global, and a
 * global ambient declaration here would clash as soon as a lib that has one is added.
 */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(deltaPages: number): number;
}

export interface WasmModule {
  readonly __brand?: 'WebAssembly.Module';
}

export interface WasmApi {
  validate(bytes: Uint8Array<ArrayBuffer>): boolean;
  readonly Module: new (bytes: Uint8Array<ArrayBuffer>) => WasmModule;
  readonly Instance: new (module: WasmModule, imports: Record<string, Record<string, unknown>>) => { readonly exports: unknown };
  readonly Memory: new (descriptor: { initial: number; maximum?: number }) => WasmMemory;
}

/** The runtime's WebAssembly API, or undefined where there is none. */
export const wasmApi: WasmApi | undefined = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

/** Bytes per WebAssembly page. */
export const WASM_PAGE = 65536;
