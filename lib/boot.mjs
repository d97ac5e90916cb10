// Starts the bridge's main-thread Pyodide, shared by the JupyterLab host and the
// build-time snapshot maker (so both runs set the interpreter up identically).
//
// The interpreter is the site's Pyodide (the one the kernel loads). When it is the
// Pyodide release this extension was built for, Python's standard library comes
// from the extension (compiled to bytecode at build time) and the snapshot applies.
//
// Snapshot path: restore the interpreter from the memory snapshot made when the
// extension was built (Python started, bridge imported, tool schemas built), then
// put the wheels' files back (the filesystem is not part of the snapshot).
// Plain path: start Pyodide and install the wheels.
//
// Making and restoring a snapshot both load the compiled extension modules
// (`manifest.dynlibs`) before the interpreter starts, so their code lands at the
// same function-table indices and memory addresses that the snapshot's pointers
// refer to.

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`${url}: HTTP ${response.status}`);
  }
  return response;
}

// Assets that must match each other (the snapshot, the files it expects, the extension modules it
// links) carry the build's id, so a browser never mixes a cached file of one deploy with another's.
const versioned = ({ assetsUrl, manifest }, file) =>
  manifest.build ? `${assetsUrl}${file}?v=${manifest.build}` : assetsUrl + file;

const fileName = url => url.slice(url.lastIndexOf('/') + 1).split('?')[0];


// The snapshot and the packed files, kept in Cache Storage under their versioned URLs: a private
// window's memory cache keeps no file over 6.25 MiB, so without this every reload downloads the
// snapshot again. Only the current build's copies are kept; a copy that failed to restore is dropped.
const KEPT = 'jupyterlite-pyodide-webmcp';

const keptFiles = () => (globalThis.caches ? caches.open(KEPT).catch(() => null) : Promise.resolve(null));

// `key`: the versioned URL a copy is kept under (the file itself may be fetched from a URL shared with
// the kernel, without the build's version). `bytes`: keep a copy only of that size (for a file the site,
// not this build, provides).
async function fetchKept(url, key = url, bytes = null) {
  const kept = await keptResponse(await keptFiles(), key);
  if (kept) {
    return kept;
  }
  const response = await fetchOk(url);
  const copy = response.clone();
  const checked =
    bytes === null
      ? Promise.resolve(copy)
      : copy.blob().then(body => body.size === bytes && new Response(body, { headers: { 'Content-Type': body.type } }));
  checked.then(fit => fit && keep(key, fit)).catch(() => {});
  return response;
}

// Keeps `response` under `key`, dropping the copies of every other build.
async function keep(key, response) {
  const cache = await keptFiles();
  if (!cache) {
    return;
  }
  const build = new URL(key).searchParams.get('v');
  for (const old of await cache.keys().catch(() => [])) {
    if (new URL(old.url).searchParams.get('v') !== build) {
      cache.delete(old).catch(() => {});
    }
  }
  await cache.put(key, response);
}

const keptResponse = async (cache, key) => cache && (await cache.match(key).catch(() => null));

// A kept file's bytes, or null when none is kept (never downloads).
async function keptCopy(key) {
  const kept = await keptResponse(await keptFiles(), key);
  return kept ? kept.blob().catch(() => null) : null;
}

async function forgetKept() {
  const cache = await keptFiles();
  for (const old of cache ? await cache.keys().catch(() => []) : []) {
    await cache.delete(old).catch(() => {});
  }
}

// Where the page inflates on its own thread, chunks already downloaded would inflate back to back in one
// task: the compressed bytes go in pieces of at most 64 KiB (a few milliseconds to inflate; Cache
// Storage hands out chunks of megabytes), and the page gets its turn every few tens of milliseconds
// (scheduler.yield where the browser has it), whoever reads the stream.
const PIECE_BYTES = 1 << 16;
const TASK_SLICE_MS = 40;
const yieldToPage = () =>
  globalThis.scheduler && scheduler.yield ? scheduler.yield() : new Promise(resolve => setTimeout(resolve, 0));

const inPieces = () =>
  new TransformStream({
    transform(chunk, controller) {
      for (let at = 0; at < chunk.length; at += PIECE_BYTES) {
        controller.enqueue(chunk.subarray(at, at + PIECE_BYTES));
      }
    }
  });

function givingTurns() {
  let sliceStart = performance.now();
  return new TransformStream({
    async transform(chunk, controller) {
      controller.enqueue(chunk);
      if (performance.now() - sliceStart > TASK_SLICE_MS) {
        await yieldToPage();
        sliceStart = performance.now();
      }
    }
  });
}

// Inflating is CPU work the page's main thread need not do: a worker beside this module inflates, and the
// bytes come back in large batches. The worker must first answer a ping, so a page where no worker can
// start (a content security policy, say) inflates on its own thread.
const INFLATE_WORKER = new URL(`inflate-worker.js${new URL(import.meta.url).search}`, import.meta.url);
const PING_MS = 5000;
let inflater = null;

function startInflater() {
  inflater ??= new Promise(resolve => {
    let worker;
    try {
      worker = new Worker(INFLATE_WORKER);
    } catch {
      resolve(null);
      return;
    }
    const streams = new Map();
    let ids = 0;
    // No stream waits forever: a worker that fails or is stopped fails the streams it still owes.
    const failAll = reason => {
      streams.forEach(stream => stream.error(new Error(`inflating worker: ${reason}`)));
      streams.clear();
    };
    worker.onerror = event => {
      resolve(null);
      failAll(event.message || 'failed');
    };
    worker.onmessage = ({ data: { id, chunk, done, error } }) => {
      const stream = streams.get(id);
      if (chunk) {
        stream.enqueue(chunk);
        return;
      }
      streams.delete(id);
      done ? stream.close() : stream.error(error);
    };
    const inflate = body =>
      new ReadableStream({
        start(stream) {
          const id = ids++;
          streams.set(id, stream);
          worker.postMessage({ id, body }, body ? [body] : []);
        }
      });
    // A worker that never answers (a host serving something else under its name) is not waited for.
    const unanswered = setTimeout(() => {
      worker.terminate();
      failAll('no answer');
      resolve(null);
    }, PING_MS);
    inflate(null)
      .getReader()
      .read()
      .then(() => clearTimeout(unanswered))
      .then(() =>
        resolve({
          inflate,
          stop: () => {
            worker.terminate();
            failAll('stopped');
          }
        })
      )
      .catch(() => {}); // no answer, or the worker failed: already resolved to null
  });
  return inflater;
}

function stopInflater() {
  inflater?.then(worker => worker?.stop());
  inflater = null;
}

// A .gz asset's inflated bytes as a stream, unless the server labelled it `Content-Encoding: gzip`
// (some hosts do for every .gz file): then the browser already inflated it.
async function inflatedStream(url) {
  const [response, worker] = await Promise.all([fetchKept(url), startInflater()]);
  const inflatedByBrowser = /\bgzip\b/i.test(response.headers.get('Content-Encoding') || '');
  const stream = inflatedByBrowser
    ? response.body
    : worker
      ? worker.inflate(response.body)
      : response.body.pipeThrough(inPieces()).pipeThrough(new DecompressionStream('gzip'));
  const served = response.headers.get('Content-Type');
  return Object.assign(stream.pipeThrough(givingTurns()), { inflatedByBrowser, served });
}

// Reads a .gz asset, inflated, chunk by chunk.
async function readGzip(url, onChunk) {
  const stream = await inflatedStream(url);
  const reader = stream.getReader();
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      onChunk(chunk.value);
    }
  } catch (error) {
    if (stream.inflatedByBrowser || !(error instanceof TypeError)) {
      throw error;
    }
    // The browser's message ("incorrect header check") names neither the file nor the cause.
    throw new Error(
      `${fileName(url)} arrived altered (served as ${stream.served || 'no Content-Type'}; ` +
        `${error.message.replace(/\.$/, '')}): serve .gz files byte for byte, as application/gzip`
    );
  }
}

async function gunzip(url) {
  const chunks = [];
  await readGzip(url, chunk => chunks.push(chunk));
  return new Uint8Array(await new Blob(chunks).arrayBuffer());
}

// Inflates a gzip file into `target`, which it must fill exactly.
async function gunzipInto(url, target) {
  let offset = 0;
  await readGzip(url, chunk => {
    if (offset + chunk.length > target.length) {
      throw new Error(`${fileName(url)} is larger than the manifest says`);
    }
    target.set(chunk, offset);
    offset += chunk.length;
  });
  if (offset !== target.length) {
    throw new Error(`${fileName(url)} is smaller than the manifest says`);
  }
}

// Extension modules ship gzipped (a third of the bytes) and kept like the snapshot; each is compiled
// while it downloads and inflates, beside everything else that loads.
const compileDynlibs = site =>
  Promise.all(
    site.manifest.dynlibs.map(async ({ file, path }) => {
      const url = versioned(site, file);
      const body = await inflatedStream(url);
      const wasm = new Response(body, { headers: { 'Content-Type': 'application/wasm' } });
      const module = await WebAssembly.compileStreaming(wasm).catch(error => {
        throw new Error(`${fileName(url)}: ${error.message}`);
      });
      return { path, module };
    })
  );

// A preRun step: link the extension modules; for a restore, also size the heap and
// wait until the snapshot is in place (it inflates while the runtime compiles).
function preloadDynlibs(dynlibs, restore) {
  return Module => {
    Module.addRunDependency('webmcp-dynlibs');
    (async () => {
      for (const { path, module } of dynlibs) {
        // Named by its installed path, so Python's dlopen finds it already loaded.
        const target = `${Module.API.sitePackages}/${path}`;
        const flags = { loadAsync: true, global: false, nodelete: true, allowUndefined: true };
        // Before the runtime starts Emscripten cannot read files: hand it the instance.
        Module.preloadedWasm[target] = await Module.loadWebAssemblyModule(module, flags, target, {});
        await Module.loadDynamicLibrary(target, flags, {});
      }
      if (restore) {
        if (restore.memory.length > Module.HEAP8.length && !Module.growMemory(restore.memory.length)) {
          throw new Error(`cannot grow wasm memory to ${restore.memory.length} bytes`);
        }
        await restore.inflated;
      }
      // The runtime starts when this step ends: in a task of its own, not after the last inflate.
      await yieldToPage();
    })()
      .catch(error => {
        Module.API.webmcpPreRunError = error;
        if (restore) {
          restore.memory.fill(0, 0, 4); // no magic number: Pyodide refuses the snapshot
        }
      })
      .finally(() => Module.removeRunDependency('webmcp-dynlibs'));
  };
}

/**
 * The site's Pyodide module, and the standard library to start it with: the extension's compiled
 * one (the one the snapshot was made with) when the release matches, else the site's own.
 */
async function interpreterSetup(site) {
  const { loadPyodide, version } = await import(/* webpackIgnore: true */ site.pyodideUrl);
  const fits = version === site.manifest.pyodideVersion;
  // Unversioned: a site may point its kernel at the same file (the demo does), to download it once.
  const stdLibUrl = fits ? site.assetsUrl + site.manifest.stdlib : null;
  const stdLibKey = fits ? versioned(site, site.manifest.stdlib) : null;
  return { ...site, loadPyodide, version, fits, stdLibUrl, stdLibKey, stdlib: fits ? keptCopy(stdLibKey) : null };
}

// Pyodide as is (plain start), or set up to make a snapshot or restore `restore.memory`.
// The standard library comes from the kept copy when there is one; else Pyodide downloads it, and
// a copy is kept once the interpreter runs (from the HTTP cache, which has just stored it).
async function loadInterpreter(setup, { restore, makeSnapshot } = {}) {
  const { indexUrl, stdLibUrl, stdLibKey } = setup;
  const kept = stdLibUrl && (await setup.stdlib);
  const stdLibURL = kept ? URL.createObjectURL(kept) : stdLibUrl;
  try {
    const files = { indexURL: indexUrl, ...(stdLibURL ? { stdLibURL } : {}) };
    const pyodide = await loadPyodideWith(setup, files, restore, makeSnapshot);
    if (stdLibUrl && !kept) {
      fetchKept(stdLibUrl, stdLibKey).catch(() => {});
    }
    return pyodide;
  } finally {
    kept && URL.revokeObjectURL(stdLibURL);
  }
}

// Pyodide's loader starts downloading its runtime (`pyodide.asm.wasm`, 9 MiB) with the page's `fetch` as
// it makes its settings, before any hook it offers. The kernel's worker downloads the same file, and a
// private window's memory cache keeps no file that large, so a restore keeps a copy like the snapshot's,
// only when the site serves the very file the snapshot was made with (checked by its size). Until the
// loader asks for it, the page's `fetch` is wrapped: that one request is answered from the kept copy,
// every other passes through untouched.
async function withKeptRuntime({ indexUrl, manifest }, load) {
  const runtime = new URL('pyodide.asm.wasm', indexUrl).href;
  const pageFetch = globalThis.fetch;
  const putBack = () => {
    if (globalThis.fetch === standIn) {
      globalThis.fetch = pageFetch;
    }
  };
  function standIn(resource, ...rest) {
    const url = resource instanceof Request ? resource.url : String(resource);
    if (new URL(url, location.href).href !== runtime) {
      return pageFetch(resource, ...rest);
    }
    putBack();
    return fetchKept(runtime, `${runtime}?v=${manifest.build}`, manifest.snapshot.runtimeBytes);
  }
  globalThis.fetch = standIn;
  try {
    return await load();
  } finally {
    putBack();
  }
}

async function loadPyodideWith(setup, files, restore, makeSnapshot) {
  const { loadPyodide, indexUrl } = setup;
  if (!restore && !makeSnapshot) {
    return loadPyodide(files);
  }
  const [{ default: createModule }, dynlibs] = await Promise.all([
    import(/* webpackIgnore: true */ indexUrl + 'pyodide.asm.mjs'),
    compileDynlibs(setup)
  ]);
  let preRunError;
  const createPyodideModule = settings => {
    // The runtime's instance is handed over in a task of its own, apart from its compile.
    const instantiate = settings.instantiateWasm;
    settings.instantiateWasm = (imports, receive) =>
      instantiate(imports, (...instance) => yieldToPage().then(() => receive(...instance)));
    settings.preRun.push(preloadDynlibs(dynlibs, restore));
    return createModule(settings).then(async Module => {
      preRunError = Module.API.webmcpPreRunError;
      // Pyodide restores the heap and finishes its start in one go when this resolves: not in the
      // runtime's own starting task.
      await yieldToPage();
      return Module;
    });
  };
  const options = restore
    ? { _loadSnapshot: restore.memory } // filled by the preRun step before Pyodide reads it
    : { _makeSnapshot: true, jsglobals: makeSnapshot.jsglobals };
  let pyodide;
  try {
    const load = () => loadPyodide({ ...files, createPyodideModule, ...options });
    pyodide = await (restore ? withKeptRuntime(setup, load) : load());
  } catch (error) {
    throw preRunError || error;
  }
  if (preRunError) {
    throw preRunError;
  }
  return pyodide;
}

// Writes back the installed files of a build-time pack (see build.py pack_files).
function writeFiles(FS, root, pack) {
  const indexLength = new DataView(pack.buffer, pack.byteOffset).getUint32(0, true);
  const entries = JSON.parse(new TextDecoder().decode(pack.subarray(4, 4 + indexLength)));
  const folders = new Set();
  let offset = 4 + indexLength;
  for (const [path, size] of entries) {
    const target = `${root}/${path}`;
    const folder = target.slice(0, target.lastIndexOf('/'));
    if (!folders.has(folder)) {
      FS.mkdirTree(folder);
      folders.add(folder);
    }
    FS.writeFile(target, pack.subarray(offset, offset + size));
    offset += size;
  }
}

const wheelUrls = ({ assetsUrl, manifest }) => manifest.wheels.map(name => assetsUrl + name);

async function plainBoot(site) {
  const pyodide = await loadInterpreter(site);
  await pyodide.loadPackage(wheelUrls(site));
  return pyodide;
}

async function snapshotBoot(site) {
  const { snapshot } = site.manifest;
  if (!!WebAssembly.Suspending !== snapshot.jspi) {
    throw new Error('snapshot was made for another stack-switching mode');
  }
  // The snapshot downloads and inflates while Pyodide's own files load and compile.
  const memory = new Uint8Array(snapshot.heapBytes);
  const inflated = gunzipInto(versioned(site, snapshot.file), memory);
  inflated.catch(() => {}); // reported through the preRun step
  const files = gunzip(versioned(site, site.manifest.files));
  files.catch(() => {}); // awaited below; a failure there falls back like any other
  const pyodide = await loadInterpreter(site, { restore: { memory, inflated } });
  // Restored: the heap's copy is no longer needed, but Pyodide's settings keep it (36 MiB). Detaching
  // the buffer frees it.
  memory.buffer.transfer?.(0);
  performance.mark('webmcp:stage:restored');
  writeFiles(pyodide.FS, pyodide._api.sitePackages, await files);
  Object.assign(pyodide.loadedPackages, snapshot.loadedPackages);
  return pyodide;
}

// One line saying why a restore failed (a Python error's last line is the exception).
function restoreFailure(error) {
  const lines = String(error.message || error).trim().split('\n');
  if (lines[0].startsWith('Snapshot build id mismatch')) {
    return "the site's Pyodide is another build than the one the snapshot was made with";
  }
  return lines.pop();
}

// Why the snapshot cannot be used, or null when it can.
function snapshotUnusable(setup, allowSnapshot) {
  const { manifest, version } = setup;
  if (!manifest.snapshot) {
    return 'this build of jupyterlite-pyodide-webmcp ships no snapshot';
  }
  if (!setup.fits) {
    return `the site's Pyodide is ${version}; the snapshot was made for Pyodide ${manifest.pyodideVersion}`;
  }
  return allowSnapshot ? null : 'the URL asks for ?webmcp=plain';
}

/**
 * Start Pyodide with the bridge imported. `site`: {pyodideUrl, indexUrl, assetsUrl, manifest}.
 * Returns {pyodide, bridge, path, fallback}: path is 'snapshot' or 'plain'; fallback says why the
 * snapshot was not used.
 */
export async function startInterpreter(site, { allowSnapshot = true } = {}) {
  const setup = await interpreterSetup(site);
  let fallback = snapshotUnusable(setup, allowSnapshot);
  if (!fallback) {
    try {
      const pyodide = await snapshotBoot(setup);
      const bridge = pyodide.pyimport(site.manifest.module);
      bridge.reseed();
      return { pyodide, bridge, path: 'snapshot', fallback };
    } catch (error) {
      console.warn('WebMCP bridge: snapshot restore failed, starting from scratch', error);
      await forgetKept();
      fallback = restoreFailure(error);
    } finally {
      stopInflater();
    }
  }
  const pyodide = await plainBoot(setup);
  return { pyodide, bridge: pyodide.pyimport(site.manifest.module), path: 'plain', fallback };
}

/** Build time only: the memory snapshot of a freshly started bridge, and what a restore needs. */
export async function makeSnapshot(site) {
  const setup = await interpreterSetup(site);
  if (!setup.fits) {
    throw new Error(`Pyodide ${setup.version} is not the ${site.manifest.pyodideVersion} the extension is built for`);
  }
  // Python reads JS globals through this object while the snapshot records their paths.
  const jsglobals = new Proxy({}, { get: (_, key) => globalThis[key], has: (_, key) => key in globalThis });
  const pyodide = await loadInterpreter(setup, { makeSnapshot: { jsglobals } });
  stopInflater();
  await pyodide.loadPackage(wheelUrls(setup));
  const bridge = pyodide.pyimport(site.manifest.module);
  bridge.prepare();
  // The JS-facing layer too, so a restore starts serving without importing it. It only names page
  // globals (document, setTimeout, ...), which the snapshot records by path.
  pyodide.pyimport(`${site.manifest.module}.adapter`).destroy();
  bridge.destroy();
  // The installed files of the modules the snapshot holds imported: a restore writes back only the rest.
  const imported = JSON.parse(
    pyodide.runPython(`import json, sys
json.dumps([path for module in list(sys.modules.values())
            for path in (getattr(module, "__file__", None), getattr(module, "__cached__", None))
            if isinstance(path, str)])`)
  );
  const sitePackages = `${pyodide._api.sitePackages}/`;
  const importedFiles = imported.filter(path => path.startsWith(sitePackages)).map(path => path.slice(sitePackages.length));
  // The bridge's own modules it holds imported: its tools are imported on their first call, not here.
  const bridgeModules = JSON.parse(
    pyodide.runPython(`import json, sys; json.dumps(sorted(m for m in sys.modules if m.startswith("${site.manifest.module}")))`)
  );
  // Loaded-package records are JS state the snapshot cannot hold; a restore puts them back.
  const loadedPackages = {};
  for (const [name, source] of Object.entries(pyodide.loadedPackages)) {
    loadedPackages[name] = source.split('/').pop();
    delete pyodide.loadedPackages[name];
  }
  const memory = pyodide.makeMemorySnapshot();
  return { memory, loadedPackages, jspi: !!WebAssembly.Suspending, importedFiles, bridgeModules };
}
