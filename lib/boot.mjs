// Starts the bridge's main-thread Pyodide, shared by the JupyterLab host and the build-time snapshot maker
// (so both runs set the interpreter up identically). The modules beside it, each loaded under this
// module's version: kept-files.mjs (Cache Storage), offload.mjs (the large files fetched, inflated and
// compiled off the page's main thread), dynlibs.mjs (the extension modules), loader-files.mjs (the standard
// library and Pyodide's runtime, fetched ahead and handed to Pyodide's loader), snapshot.mjs (restoring and
// making the memory snapshot), turns.mjs (giving the page its turn) and pyodide-internals.mjs (every part of
// Pyodide used beyond its documented API).
//
// The interpreter is the site's Pyodide (the one the kernel loads). When it is the Pyodide release this
// extension was built for, Python's standard library comes from the extension (compiled to bytecode at
// build time) and the snapshot applies.
//
// Snapshot path: restore the interpreter from the memory snapshot made when the extension was built.
// Plain path: start Pyodide and install the wheels.

// Beside this module, under the same build's version.
const version = new URL(import.meta.url).search;
// The worker that loads the large files (offload.mjs), started before the imports below load: its start waits
// for turns of the page's busy thread, and the jobs sent to it wait for its start.
const worker = (() => {
  try {
    return new Worker(new URL(`offload-worker.mjs${version}`, import.meta.url), { type: 'module' });
  } catch {
    return null;
  }
})();
const [{ forgetKept, versioned }, { adoptWorker, finishOffload, stopOffload }, dynlibs, loaderFiles, snapshot, { yieldToPage }, internals] = await Promise.all([
  import(`./kept-files.mjs${version}`),
  import(`./offload.mjs${version}`),
  import(`./dynlibs.mjs${version}`),
  import(`./loader-files.mjs${version}`),
  import(`./snapshot.mjs${version}`),
  import(`./turns.mjs${version}`),
  import(`./pyodide-internals.mjs${version}`),
  import(`./brotli.mjs${version}`) // offload.mjs's: requested with the others, not a turn of the page later
]);
adoptWorker(worker);
const { compileDynlibs, preloadDynlibs } = dynlibs;
const { fetchRuntime, fetchStdlib, withFilesAhead } = loaderFiles;
const { completeRestore, fetchSnapshot, heapToRestore, recordedGlobals, restoreFailure, snapshotOf, snapshotUnusable } =
  snapshot;
const { amendedFactory, finishAhead, freeLibraryFileCopies, heapUse, initialMemory, restoreAhead, restoreOptions, runtimeFactory, runtimeUrl, snapshotMakingOptions } =
  internals;

/** The site's Pyodide module; `fits` when it is the release this build was made for. */
async function interpreterSetup(site) {
  const { loadPyodide, version: pyodideVersion } = await import(/* webpackIgnore: true */ site.pyodideUrl);
  return { ...site, loadPyodide, version: pyodideVersion, fits: pyodideVersion === site.manifest.pyodideVersion };
}

// Pyodide as is (plain start), or set up to make a snapshot or restore one (`restore`); with the
// extension's standard library when the site's Pyodide fits it (`setup.stdlib`), else the site's own.
// Making and restoring a snapshot both link the extension modules before the interpreter starts (dynlibs.mjs).
// Resolves to {pyodide, initial}: `initial` is the runtime's memory as instantiated (none for a plain start).
async function loadInterpreter(setup, { restore, makeSnapshot } = {}) {
  const { loadPyodide, indexUrl, stdlib } = setup;
  const files = { indexURL: indexUrl, ...(stdlib ? { stdLibURL: stdlib.url } : {}) };
  const ahead = { stdlib, runtime: restore?.runtime || { url: runtimeUrl(indexUrl) } };
  if (!restore && !makeSnapshot) {
    return { pyodide: await withFilesAhead(ahead, () => loadPyodide(files)), initial: null };
  }
  const parts = restore || { factory: steppedFactory(setup), dynlibs: compileDynlibs(setup) };
  const [{ createModule, stepped }, compiled] = await Promise.all([parts.factory, parts.dynlibs]);
  await yieldToPage(); // the factory's first run: not in the task that imported it
  if (makeSnapshot && !stepped) {
    throw new Error(`Pyodide ${setup.version}'s module could not be run with its linking in steps`);
  }
  let preRunError;
  let initial = null;
  let toRestore = null;
  // The preRun step runs once the runtime is instantiated: `initial` is in hand. Let go once restored
  // (3.6 MiB): Emscripten's module keeps the closures that see it.
  const heap = restore && {
    bytes: restore.bytes,
    whole: async () => {
      toRestore = await heapToRestore(restore, initial);
    }
  };
  // The page's longest tasks were the runtime's: its linking, and Pyodide's restore of the heap together
  // with the interpreter's finish. Each step of the linking and of the finish (when stepped), the handing
  // over of the instance and each slice of the heap's copy get a task of their own.
  const createPyodideModule = amendedFactory(createModule, {
    preRun: preloadDynlibs(compiled, heap, error => (preRunError = error)),
    beforeInstance: async instance => {
      await yieldToPage();
      initial = initialMemory(instance);
      await yieldToPage();
    },
    between: yieldToPage,
    beforeStart: async Module => {
      if (stepped) {
        performance.mark('webmcp:stage:linked-in-steps'); // the module made, its linking stepped (its finish to come)
      }
      if (preRunError) {
        throw preRunError;
      }
      let restored;
      if (restore) {
        restored = await restoreAhead(Module, toRestore, yieldToPage);
        initial = toRestore = null;
      }
      await finishAhead(Module, restored);
      await yieldToPage();
    }
  });
  const options = restore ? restoreOptions() : snapshotMakingOptions(makeSnapshot.jsglobals);
  let pyodide;
  try {
    pyodide = await withFilesAhead(ahead, () => loadPyodide({ ...files, createPyodideModule, ...options }));
  } catch (error) {
    throw preRunError || error;
  }
  if (preRunError) {
    throw preRunError;
  }
  return { pyodide, initial };
}

const wheelUrls = ({ assetsUrl, manifest }) => manifest.wheels.map(name => assetsUrl + name);

// Pyodide's module factory with its linking in steps: the build's copy where the host sends text compressed.
const steppedFactory = site => {
  const { steppedRuntime } = site.manifest;
  return runtimeFactory(site.indexUrl, steppedRuntime && site.textCompressed && versioned(site, steppedRuntime), yieldToPage);
};

async function plainBoot(setup) {
  const { pyodide } = await loadInterpreter(setup);
  finishOffload(); // its last job, the standard library, done
  await pyodide.loadPackage(wheelUrls(setup));
  freeLibraryFileCopies(pyodide);
  return pyodide;
}

// A User Timing mark (`webmcp:stage:<stage>`) once `part` has loaded: DevTools and the benchmark show which
// part of the start the first call waits for.
function marked(part, stage) {
  part.then(() => performance.mark(`webmcp:stage:${stage}`), () => {});
  return part;
}

// Everything a restore loads before it runs, all at once: the snapshot and the packed files downloading
// and inflating, the extension modules and Pyodide's runtime downloading and compiling, Pyodide's module
// factory. Rejects, before loading anything, when the snapshot cannot be restored in this browser.
async function fetchRestore(site, signal) {
  const snapshotParts = fetchSnapshot(site, signal);
  marked(snapshotParts.inflated, 'snapshot-inflated');
  const dynlibs = marked(compileDynlibs(site, signal), 'dynlibs-compiled');
  const factory = steppedFactory(site);
  [dynlibs, factory].forEach(part => part.catch(() => {})); // awaited by the restore, which reports them
  const runtime = fetchRuntime(site, signal);
  marked(runtime.compiled, 'runtime-compiled');
  return { ...snapshotParts, dynlibs, factory, runtime };
}

async function snapshotBoot(setup, restore) {
  performance.mark('webmcp:stage:restoring');
  const { pyodide } = await loadInterpreter(setup, { restore });
  await yieldToPage(); // what follows the restore in a task of its own, not at the end of Pyodide's
  await completeRestore(pyodide, setup, restore);
  return pyodide;
}

// Loads what the start needs that depends on neither the page's settings nor the app. What applies only
// when the site's Pyodide is the release this build was made for (the usual case: the standard library,
// and for a restore its parts) begins at once, before Pyodide's module is imported to tell, and is dropped
// when it is another.
async function loadAhead(site, allowSnapshot, signal) {
  const otherRelease = new AbortController();
  const forRelease = AbortSignal.any([signal, otherRelease.signal]);
  const stdlib = fetchStdlib(site, forRelease);
  const restore = site.manifest.snapshot && allowSnapshot ? fetchRestore(site, forRelease) : null;
  restore?.catch(() => {}); // awaited by startLoaded(), which falls back to the plain start
  const setup = await interpreterSetup(site);
  signal.throwIfAborted(); // dropped meanwhile
  if (!setup.fits) {
    otherRelease.abort();
    stopOffload();
  }
  const fallback = snapshotUnusable(setup, allowSnapshot);
  return { setup: { ...setup, stdlib: setup.fits ? stdlib : null }, fallback, restore: fallback ? null : restore };
}

async function startLoaded({ setup, fallback, restore }) {
  if (restore) {
    try {
      const pyodide = await snapshotBoot(setup, await restore);
      await yieldToPage(); // the files written back in one task, the bridge imported in another
      const bridge = pyodide.pyimport(setup.manifest.module);
      bridge.reseed();
      finishOffload(); // the copies it began kept
      return { pyodide, bridge, path: 'snapshot', fallback, turn: yieldToPage };
    } catch (error) {
      console.warn('WebMCP bridge: snapshot restore failed, starting from scratch', error);
      stopOffload(); // nothing more of it kept
      await forgetKept();
      fallback = restoreFailure(error);
    }
  }
  const pyodide = await plainBoot(setup);
  return { pyodide, bridge: pyodide.pyimport(setup.manifest.module), path: 'plain', fallback, turn: yieldToPage };
}

/**
 * Begins starting Pyodide with the bridge imported. `site`: {pyodideUrl, indexUrl, assetsUrl, manifest}.
 * Everything that needs neither the page's settings nor the app starts loading now (for a restore: the
 * snapshot, the files, the extension modules and Pyodide's runtime, downloading, inflating and compiling).
 * `finish()` starts the interpreter and resolves to {pyodide, bridge, path, fallback, turn}: path is
 * 'snapshot' or 'plain'; fallback says why the snapshot was not used; `turn()` resolves once the page has had
 * its turn. `drop()` abandons it all instead (downloads aborted, the inflating worker stopped, the loaded
 * bytes let go).
 */
export function beginStart(site, { allowSnapshot = true } = {}) {
  const downloads = new AbortController();
  const loaded = loadAhead(site, allowSnapshot, downloads.signal);
  loaded.catch(() => {}); // reported by finish()
  return {
    finish: () => loaded.then(startLoaded),
    drop: () => {
      downloads.abort();
      stopOffload();
    }
  };
}

/** Build time only: the memory snapshot of a freshly started bridge, and what a restore needs. */
export async function makeSnapshot(site) {
  const setup = { ...(await interpreterSetup(site)), stdlib: fetchStdlib(site) };
  if (!setup.fits) {
    throw new Error(`Pyodide ${setup.version} is not the ${site.manifest.pyodideVersion} the extension is built for`);
  }
  const { pyodide, initial } = await loadInterpreter(setup, { makeSnapshot: { jsglobals: recordedGlobals() } });
  const heapSteps = [{ step: 'interpreter started', ...heapUse(pyodide) }];
  stopOffload();
  await pyodide.loadPackage(wheelUrls(setup));
  heapSteps.push({ step: 'wheels installed', ...heapUse(pyodide) });
  freeLibraryFileCopies(pyodide);
  heapSteps.push({ step: "the libraries' file copies freed", ...heapUse(pyodide) });
  return snapshotOf(pyodide, initial, site.manifest.module, heapSteps);
}
