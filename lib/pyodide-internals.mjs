// Every part of Pyodide and of its Emscripten module the bridge's start uses beyond Pyodide's documented
// API, named here and nowhere else, each with what it is used for. Checked against Pyodide 314.0.6
// (CHECKED_RELEASE). A snapshot start (restore) runs only when the site's Pyodide is the release the
// snapshot was made with, which the build pins to this one; the plain start uses none of these. A new
// Pyodide release in package.json means reading each of them again in its sources.

export const CHECKED_RELEASE = '314.0.6';

// ---- loadPyodide options (src/js/pyodide.ts) ----

/** `_loadSnapshot`: restore the interpreter from `memory`, read once the preRun steps have run. */
export const restoreOptions = memory => ({ _loadSnapshot: memory });

/** `_makeSnapshot`: start an interpreter a memory snapshot can be made of. Python reads JS globals through
 * `jsglobals` (public), so the snapshot records them by path. */
export const snapshotMakingOptions = jsglobals => ({ _makeSnapshot: true, jsglobals });

/**
 * `makeMemorySnapshot()` (experimental): the heap of an interpreter started with snapshotMakingOptions,
 * after a header (snapshotHeap), cut at the heap's break (heapUse), on a wasm page: beyond it the memory
 * was never handed out, and a restore makes the memory only as large as the snapshot (growHeap) instead of
 * the size the last growth step left.
 */
export function memorySnapshot(pyodide) {
  const memory = pyodide.makeMemorySnapshot();
  const header = snapshotHeap(memory).byteOffset - memory.byteOffset;
  const page = 1 << 16;
  const used = Math.ceil(heapUse(pyodide).breakBytes / page) * page;
  return memory.subarray(0, Math.min(memory.length, header + used));
}

/** The heap a memory snapshot holds, after its header (`restoreSnapshot` copies it to address 0). */
export function snapshotHeap(memory) {
  const header = new Uint32Array(memory.buffer, memory.byteOffset, 2)[1];
  return memory.subarray(header);
}

/**
 * `_sbrk(0)` and `_mallinfo`: the end of what the heap has handed out (what sizes the wasm memory) and the
 * bytes malloc holds in use (dlmalloc's `uordblks`), for the maker's table of the heap, step by step.
 */
export function heapUse(pyodide) {
  const Module = pyodide._module;
  const info = Module._malloc(64);
  Module._mallinfo(info);
  const usedBytes = new Int32Array(Module.HEAP8.buffer, info, 10)[7];
  Module._free(info);
  return { breakBytes: Module._sbrk(0), usedBytes };
}

/** The message Pyodide's restore fails with when the snapshot comes from another build of its runtime. */
export const isOtherRuntimeBuild = message => message.startsWith('Snapshot build id mismatch');

// ---- the runtime and its loader ----

/** `pyodide.asm.mjs`: the Emscripten module factory, handed to loadPyodide as `createPyodideModule`
 * (experimental) so that its settings can be amended (amendedFactory). */
export async function runtimeFactory(indexUrl) {
  return (await import(/* webpackIgnore: true */ indexUrl + 'pyodide.asm.mjs')).default;
}

/** `pyodide.asm.wasm`, the runtime. The loader fetches it, and the standard library (`stdLibURL`), with the
 * page's `fetch` while it makes its settings, before any hook it offers (createSettings, getBinaryResponse,
 * loadBinaryFile), and hands the runtime's very promise to `WebAssembly.instantiateStreaming` in its
 * `instantiateWasm` (loader-files.mjs answers them). */
export const runtimeUrl = indexUrl => new URL('pyodide.asm.wasm', indexUrl).href;

/**
 * `createPyodideModule` for loadPyodide: `createModule` with Emscripten's settings amended. `preRun` joins
 * the settings' preRun steps (run before the interpreter starts, after Pyodide's own: the standard library
 * is in place). `beforeInstance(instance)` is awaited before the runtime's new instance is handed to
 * Emscripten (wrapping Pyodide's `instantiateWasm`), `beforeStart` before loadPyodide goes on with the module.
 */
export function amendedFactory(createModule, { preRun, beforeInstance, beforeStart }) {
  return settings => {
    const instantiate = settings.instantiateWasm;
    settings.instantiateWasm = (imports, receive) =>
      instantiate(imports, (instance, module) =>
        beforeInstance(instance).then(() => compilingEachWrapperOnce(() => receive(instance, module))));
    settings.preRun.push(preRun);
    return createModule(settings).then(async Module => {
      await beforeStart();
      return Module;
    });
  };
}

/**
 * Runs `link` (Emscripten's `receiveInstance`, which links the runtime's symbols) with `new WebAssembly.Module`
 * compiling each distinct module once: Emscripten's `convertJsFunctionToWasm` wraps every JS function its
 * function table needs in a tiny module of its own (261 of them for Pyodide 314.0.6, 30 distinct ones, by
 * signature), compiled one by one on the page's thread in the runtime's longest task. `link` runs
 * synchronously, so nothing else sees the stand-in.
 */
function compilingEachWrapperOnce(link) {
  const Compile = WebAssembly.Module;
  const compiled = new Map();
  function CompiledOnce(bytes) {
    const key = ArrayBuffer.isView(bytes) ? bytes.join() : null;
    if (key === null || bytes.length > 256) {
      return new Compile(bytes);
    }
    if (!compiled.has(key)) {
      compiled.set(key, new Compile(bytes));
    }
    return compiled.get(key);
  }
  Object.assign(CompiledOnce, { customSections: Compile.customSections, exports: Compile.exports, imports: Compile.imports });
  CompiledOnce.prototype = Compile.prototype;
  WebAssembly.Module = CompiledOnce;
  try {
    return link();
  } finally {
    WebAssembly.Module = Compile;
  }
}

/**
 * The runtime's memory as its instantiation left it (`exports.memory`, before Emscripten runs any of its
 * code): its data segments, copied up to the last word that is not zero below `__heap_base`. Every instance
 * of the same runtime starts with these very bytes.
 */
export function initialMemory(instance) {
  const { memory, __heap_base: heapBase } = instance.exports;
  const words = new Int32Array(memory.buffer, 0, Math.floor(heapBase.value / 4));
  let end = words.length;
  while (end > 0 && words[end - 1] === 0) {
    end--;
  }
  return new Int32Array(words.subarray(0, end));
}

// ---- the Emscripten module, in a preRun step ----

/** `addRunDependency` / `removeRunDependency`: the runtime does not start until `step` has settled. */
export function holdStart(Module, name, step) {
  Module.addRunDependency(name);
  return step().finally(() => Module.removeRunDependency(name));
}

/**
 * Links a compiled extension module (a wasm side module) before Python starts, named by its path under
 * site-packages (`API.sitePackages`) so that Python's dlopen finds it loaded. Emscripten cannot read files
 * yet: `loadWebAssemblyModule` instantiates it into `preloadedWasm`, where `loadDynamicLibrary` takes it.
 */
export async function linkExtensionModule(Module, path, module) {
  const target = `${Module.API.sitePackages}/${path}`;
  const flags = { loadAsync: true, global: false, nodelete: true, allowUndefined: true };
  Module.preloadedWasm[target] = await Module.loadWebAssemblyModule(module, flags, target, {});
  await Module.loadDynamicLibrary(target, flags, {});
}

/** `HEAP8` / `growMemory`: wasm memory at least `bytes` long (a restore copies the snapshot's heap in). */
export function growHeap(Module, bytes) {
  if (bytes > Module.HEAP8.length && !Module.growMemory(bytes)) {
    throw new Error(`cannot grow wasm memory to ${bytes} bytes`);
  }
}

/**
 * The heap's free memory, written once (with the zeros it holds), a slice at a time with `between` awaited
 * after each: the system hands out a memory page on its first write, and Pyodide's restore, copying the
 * snapshot's heap in one go, would otherwise wait for each page (about 30 ms for 36 MiB). Free is
 * everything past the heap's break (`_sbrk(0)`): before the interpreter starts, nothing lives there.
 */
export async function touchFreeHeap(Module, between) {
  const slice = 4 * 2 ** 20;
  for (let at = Module._sbrk(0); at < Module.HEAP8.length; at += slice) {
    Module.HEAP8.fill(0, at, Math.min(at + slice, Module.HEAP8.length));
    await between();
  }
}

// ---- the started interpreter ----

/** `_api.sitePackages`: where the wheels' files are installed. */
export const sitePackages = pyodide => pyodide._api.sitePackages;

/** `FS` (Emscripten's file system; `mkdirTree`, `writeFile`): where a restore writes the wheels' files back. */
export const fileSystem = pyodide => pyodide.FS;

/** `loadedPackages` (documented read-only): JS state a snapshot cannot hold, so the maker clears it and a
 * restore puts it back. */
export const loadedPackages = pyodide => pyodide.loadedPackages;
