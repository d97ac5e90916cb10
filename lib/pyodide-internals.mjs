// Every part of Pyodide and of its Emscripten module the bridge's start uses beyond Pyodide's documented
// API, named here and nowhere else, each with what it is used for. Checked against Pyodide 314.0.6
// (CHECKED_RELEASE). A snapshot start (restore) runs only when the site's Pyodide is the release the
// snapshot was made with, which the build pins to this one; the plain start uses none of these. A new
// Pyodide release in package.json means reading each of them again in its sources.

export const CHECKED_RELEASE = '314.0.6';

// ---- loadPyodide options (src/js/pyodide.ts) ----

/** `_loadSnapshot`: restore the interpreter from a memory snapshot. loadPyodide awaits it before it instantiates
 * the runtime, and hands it to `API.restoreSnapshot` once the runtime's module is made, by which time
 * restoreAhead has restored and that call answers what it read: any bytes do. */
export const restoreOptions = () => ({ _loadSnapshot: new Uint8Array(0) });

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

/** The length of a memory snapshot's header, from its first 8 bytes: `restoreSnapshot` copies the heap after
 * it to address 0. */
export const snapshotHeaderLength = first => new DataView(first.buffer, first.byteOffset, 8).getUint32(4, true);

/** The heap a memory snapshot holds, after its header. */
export const snapshotHeap = memory => memory.subarray(snapshotHeaderLength(memory));

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

/**
 * `API.restoreSnapshot`, run ahead of loadPyodide's own call, which runs it in one task with the
 * interpreter's finish (`finalizeBootstrap`): the snapshot's header checked and read (its magic, its
 * runtime build, its JS state), then its heap put in (`copyInto(HEAP8, between)`), `between()` awaited
 * before and after. loadPyodide's call then answers what was read, copying nothing.
 */
export async function restoreAhead(Module, { header, copyInto }, between) {
  const { API } = Module;
  await between();
  const restored = API.restoreSnapshot(header); // no heap to copy
  await copyInto(Module.HEAP8, between);
  API.restoreSnapshot = () => restored;
  await between();
  return restored;
}

/**
 * `API.finalizeBootstrap`, the interpreter's finish, run ahead of loadPyodide's own call (after a restore,
 * with what restoreAhead read): in steps when the runtime's module was evaluated with them, else in a task
 * of its own. loadPyodide's call then answers what it made.
 */
export async function finishAhead(Module, restored) {
  const { API } = Module;
  const finished = await API.finalizeBootstrap(restored, undefined);
  API.finalizeBootstrap = () => finished;
}

/** The message Pyodide's restore fails with when the snapshot comes from another build of its runtime. */
export const isOtherRuntimeBuild = message => message.startsWith('Snapshot build id mismatch');

// ---- the runtime and its loader ----

/** The settings' entries the stepped module calls: a step of the linking, run in a task of its own
 * (amendedFactory), and a turn for the page. */
const LINK_STEP = 'webmcpLinkStep';
const TURN = 'webmcpTurn';
const step = run => `await Module["${LINK_STEP}"](${run})`;
const turn = `await Module["${TURN}"]()`;

/** Symbols one step of the linking walks (merging the exports, giving table slots, resolving the rest). */
const LINK_SLICE = 1000;

// `call(part)` (the text of a call) over the array `list` in parts of LINK_SLICE, each a step: the same calls
// in the same order.
const sliced = (list, call) =>
  `for(let at=0;at<${list}.length;at+=${LINK_SLICE}){${step(`()=>${call(`${list}.slice(at,at+${LINK_SLICE})`)}`)}}`;

// Emscripten's linking of the runtime (`receiveInstance`) is one call: it merges the runtime's 8,560 exports
// into the imports of modules linked later (`mergeLibSymbols`), wraps some of them, gives each exported
// function a slot in the function table and a global (`updateGOT`, after mapping the table's functions to
// their slots), then resolves what is still undefined, wrapping every JS function the table needs
// (`loadDylibs` with no library to load: `reportUndefinedSymbols`). Made async, each of those a step; the
// three walks over symbols take the list to walk (by default the one they made), and are run over
// LINK_SLICE symbols at a time, in the same order; a turn for the page after them: the same operations in
// the same order, so the function table's layout, which a snapshot's pointers depend on, is the one its
// maker had.
const STEPPED_LINKING = [
  ['function receiveInstance(instance,module){', 'async function receiveInstance(instance,module){'],
  ['var mergeLibSymbols=(exports,libName)=>{for(var[sym,exp]of Object.entries(exports)){',
    'var mergeLibSymbols=(exports,libName,entries=Object.entries(exports))=>{for(var[sym,exp]of entries){'],
  ['mergeLibSymbols(wasmExports,"main");',
    `var webmcpExports=Object.entries(wasmExports);${sliced('webmcpExports', part => `mergeLibSymbols(wasmExports,"main",${part})`)}`],
  ['wasmExports=applySignatureConversions(wasmExports);assignWasmExports(wasmExports);',
    `wasmExports=${step('()=>applySignatureConversions(wasmExports)')};${step('()=>assignWasmExports(wasmExports)')};`],
  ['var updateGOT=(exports,replace)=>{for(var symName in exports){',
    'var updateGOT=(exports,replace,names=Object.keys(exports))=>{for(var symName of names){'],
  ['var reportUndefinedSymbols=()=>{for(var[symName,entry]of Object.entries(GOT)){',
    'var reportUndefinedSymbols=(entries=Object.entries(GOT))=>{for(var[symName,entry]of entries){'],
  ['updateGOT(origExports);LDSO.init();loadDylibs();updateMemoryViews();return wasmExports}',
    `${step('()=>getFunctionAddress(null)')};var names=Object.keys(origExports);` +
    `${sliced('names', part => `updateGOT(origExports,undefined,${part})`)}` +
    // loadDylibs with no library to load is reportUndefinedSymbols; with some, it goes on unawaited, as it did
    `${step('()=>LDSO.init()')};if(dynamicLibraries.length){${step('()=>{loadDylibs()}')}}` +
    `else{var webmcpGot=Object.entries(GOT);${sliced('webmcpGot', part => `reportUndefinedSymbols(${part})`)}}` +
    `updateMemoryViews();${turn};return wasmExports}`],
  // The factory in parentheses: compiled whole with the module, not again at its first call.
  ['async function _createPyodideModule(moduleArg={}){',
    'const _createPyodideModule=(async function _createPyodideModule(moduleArg={}){'],
  ['return moduleRtn}', 'return moduleRtn});']
];

// Pyodide's finish of the interpreter (`API.finalizeBootstrap`) is one call: its JS state put back, then a
// run of Python calls (an import, `__main__` and `builtins`, Pyodide's own modules), each wasm function they
// reach compiled on its first call on a first visit. Made async, with a turn for the page after each of
// these anchors: the same calls in the same order (finishAhead).
const STEPPED_FINISH = [
  ['API.finalizeBootstrap=function(t,e){t&&Wr();', `API.finalizeBootstrap=async function(t,e){t&&Wr();${turn};`],
  ...[
    'let[r,n]=API.rawRun("import _pyodide_core");',
    'API.runPythonInternal_dict=API._pyodide._base.eval_code("{}"),',
    'API.importlib=API.runPythonInternal("import importlib; importlib");',
    'API.sys=o("sys"),API.os=o("os");',
    's=API.runPythonInternal("import builtins; builtins.__dict__");',
    'let d=API.config.jsglobals;',
    'l.register_windows_finder()),',
    'API.pyodide_py=o("pyodide"),',
    'API.pyodide_base=o("_pyodide._base"),'
  ].map(anchor => [anchor, anchor + turn + anchor.at(-1)])
];

// The factory's first run, up to the runtime's instantiation, is one task of 30-60 ms on a first visit
// (Emscripten's file system set up, the functions it calls compiled on their first call): a turn for the
// page before its file system is set up, and before the runtime's imports are gathered.
const STEPPED_FACTORY = ['registerWasmPlugin();FS.createPreloadedFile=', 'var wasmImports={']
  .map(anchor => [anchor, `${turn};${anchor}`]);

const STEPPED = [...STEPPED_FACTORY, ...STEPPED_LINKING, ...STEPPED_FINISH];

// The module's last statement, and what ends the same text run as a function body.
const EXPORT = ['export default _createPyodideModule;', 'return _createPyodideModule;'];

// `text` with `edits` ([from, to] pairs) made; null when an edit's text is not found exactly once, or two
// overlap. Made in one join: a string edited piece by piece is copied whole at every search.
function edited(text, edits) {
  const found = edits.map(([from, to]) => [text.indexOf(from), from, to]);
  if (found.some(([at, from]) => at < 0 || text.lastIndexOf(from) !== at)) {
    return null;
  }
  const parts = [];
  let done = 0;
  for (const [at, from, to] of found.sort(([a], [b]) => a - b)) {
    if (at < done) {
      return null;
    }
    parts.push(text.slice(done, at), to);
    done = at + from.length;
  }
  parts.push(text.slice(done));
  return parts.join('');
}

/** The text of `pyodide.asm.mjs` (an ES module) with its linking and Pyodide's finish in steps; null when
 * the text is not the one these edits were written for. The build ships it (`manifest.steppedRuntime`). */
export const steppedRuntime = text => edited(text, STEPPED);

/**
 * The Emscripten module factory, handed to loadPyodide as `createPyodideModule` (experimental) so that its
 * settings can be amended (amendedFactory), with its linking and Pyodide's finish in steps (`stepped`):
 * - `steppedUrl` given (a host that sends text compressed, where it costs a fifth of its 1.2 MB): the build's
 *   copy, imported, so the browser parses it off the page's thread and keeps its code for the next visit;
 * - else, or where the copy does not load: the site's own `pyodide.asm.mjs` (the kernel's download),
 *   edited here and evaluated as a function body, `between()` awaited before its parse;
 * - where that cannot be (a policy against eval, an unexpected text): the site's own, imported as it is,
 *   its linking and finish each in one task (`stepped` false).
 */
export async function runtimeFactory(indexUrl, steppedUrl, between) {
  if (steppedUrl) {
    try {
      return { createModule: (await import(/* webpackIgnore: true */ steppedUrl)).default, stepped: true };
    } catch {
      // the site's own, below
    }
  }
  const url = indexUrl + 'pyodide.asm.mjs';
  try {
    const response = await fetch(url);
    const text = response.ok ? await response.text() : '';
    const body = edited(text, [...STEPPED, EXPORT]);
    if (body) {
      await between(); // the text edited in one task, parsed in another
      // `import.meta` is a module's only: it stands for the module's URL, used only where Pyodide's `locateFile` is missing.
      const source = `"use strict";${body.replaceAll('import.meta.url', JSON.stringify(url))}\n//# sourceURL=${url}`;
      return { createModule: new Function(source)(), stepped: true };
    }
  } catch {
    // imported below, and any failure to load it reported from there
  }
  return { createModule: (await import(/* webpackIgnore: true */ url)).default, stepped: false };
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
 * Emscripten (wrapping Pyodide's `instantiateWasm`), `between()` before each step of a stepped linking,
 * `beforeStart(Module)` before loadPyodide goes on with the module.
 */
export function amendedFactory(createModule, { preRun, beforeInstance, between, beforeStart }) {
  return settings => {
    const instantiate = settings.instantiateWasm;
    settings.instantiateWasm = (imports, receive) =>
      instantiate(imports, (instance, module) =>
        beforeInstance(instance).then(() => compilingEachWrapperOnce(() => receive(instance, module))));
    settings[LINK_STEP] = step => between().then(() => compilingEachWrapperOnce(step));
    settings[TURN] = between;
    settings.preRun.push(preRun);
    return createModule(settings).then(async Module => {
      await beforeStart(Module);
      return Module;
    });
  };
}

/**
 * Runs `link` (Emscripten's `receiveInstance`, which links the runtime's symbols) with `new WebAssembly.Module`
 * compiling each distinct module once: Emscripten's `convertJsFunctionToWasm` wraps every JS function its
 * function table needs in a tiny module of its own (261 of them for Pyodide 314.0.6, 30 distinct ones, by
 * signature), compiled one by one on the page's thread. `link` runs synchronously, so nothing else sees
 * the stand-in.
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
 * code): its data segments, copied up to the last word that is not zero below the stack (`__stack_low`;
 * the 10 MiB of stack up to `__heap_base` start as zeros, and reading them took 20-30 ms of the page's
 * thread). Every instance of the same runtime starts with these very bytes.
 */
export function initialMemory(instance) {
  const { memory, __stack_low: stackLow } = instance.exports;
  const words = new Int32Array(memory.buffer, 0, Math.floor(stackLow.value / 4));
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

// ---- the started interpreter ----

/** `_api.sitePackages`: where the wheels' files are installed. */
export const sitePackages = pyodide => pyodide._api.sitePackages;

/**
 * `LDSO.loadedLibsByHandle`, `_free`: Emscripten's dlopen (Pyodide's loadDynlib asks for RTLD_NOW) reads each
 * library's file whole into the wasm heap and keeps it in the library's handle (`file_data` and its size, at
 * 28 and 32, where the runtime's `loadLibData` reads them) for other threads to load it; Pyodide has none,
 * and a loaded library is never read from there again. Frees those copies, zeroed first (4.5 MiB for
 * pydantic-core, which a snapshot held and a restore copied in).
 */
export function freeLibraryFileCopies(pyodide) {
  const Module = pyodide._module;
  for (const handle of Object.keys(Module.LDSO.loadedLibsByHandle).map(Number)) {
    const at = (handle + 28) >>> 2;
    const [data, size] = [Module.HEAPU32[at], Module.HEAPU32[at + 1]];
    if (handle && data && size) {
      Module.HEAPU8.fill(0, data, data + size);
      Module._free(data);
      Module.HEAPU32.fill(0, at, at + 2);
    }
  }
}

/** `FS` (Emscripten's file system; `mkdirTree`, `writeFile`): where a restore writes the wheels' files back. */
export const fileSystem = pyodide => pyodide.FS;

/** `loadedPackages` (documented read-only): JS state a snapshot cannot hold, so the maker clears it and a
 * restore puts it back. */
export const loadedPackages = pyodide => pyodide.loadedPackages;
