// Starts the bridge's main-thread Pyodide, shared by the JupyterLab host and the build-time snapshot maker
// (so both runs set the interpreter up identically). The modules beside it, each loaded under this
// module's version: kept-files.mjs (Cache Storage), inflate.mjs (inflating the .gz assets), dynlibs.mjs
// (the extension modules), runtime.mjs (Pyodide's runtime, kept, fetched and compiled ahead), snapshot.mjs
// (restoring and making the memory snapshot), turns.mjs (giving the page its turn) and
// pyodide-internals.mjs (every part of Pyodide used beyond its documented API).
//
// The interpreter is the site's Pyodide (the one the kernel loads). When it is the Pyodide release this
// extension was built for, Python's standard library comes from the extension (compiled to bytecode at
// build time) and the snapshot applies.
//
// Snapshot path: restore the interpreter from the memory snapshot made when the extension was built.
// Plain path: start Pyodide and install the wheels.

// Beside this module, under the same build's version.
const version = new URL(import.meta.url).search;
const [kept, { stopInflater }, dynlibs, runtime, snapshot, { yieldToPage }, internals] = await Promise.all([
  import(`./kept-files.mjs${version}`),
  import(`./inflate.mjs${version}`),
  import(`./dynlibs.mjs${version}`),
  import(`./runtime.mjs${version}`),
  import(`./snapshot.mjs${version}`),
  import(`./turns.mjs${version}`),
  import(`./pyodide-internals.mjs${version}`)
]);
const { fetchKept, forgetKept, keptCopy, versioned } = kept;
const { compileDynlibs, preloadDynlibs } = dynlibs;
const { fetchRuntime, withRuntime } = runtime;
const { completeRestore, fetchSnapshot, recordedGlobals, restoreFailure, snapshotOf, snapshotUnusable } = snapshot;
const { amendedFactory, restoreOptions, runtimeFactory, snapshotMakingOptions } = internals;

/**
 * The site's Pyodide module, and the standard library to start it with: the extension's compiled
 * one (the one the snapshot was made with) when the release matches, else the site's own.
 */
async function interpreterSetup(site) {
  const { loadPyodide, version: pyodideVersion } = await import(/* webpackIgnore: true */ site.pyodideUrl);
  const fits = pyodideVersion === site.manifest.pyodideVersion;
  // Unversioned: a site may point its kernel at the same file (the demo does), to download it once.
  const stdLibUrl = fits ? site.assetsUrl + site.manifest.stdlib : null;
  const stdLibKey = fits ? versioned(site, site.manifest.stdlib) : null;
  return {
    ...site, loadPyodide, version: pyodideVersion, fits, stdLibUrl, stdLibKey, stdlib: fits ? keptCopy(stdLibKey) : null
  };
}

// Pyodide as is (plain start), or set up to make a snapshot or restore `restore.memory`.
// The standard library comes from the kept copy when there is one; else Pyodide downloads it, and
// a copy is kept once the interpreter runs (from the HTTP cache, which has just stored it).
async function loadInterpreter(setup, { restore, makeSnapshot } = {}) {
  const { indexUrl, stdLibUrl, stdLibKey } = setup;
  const keptStdlib = stdLibUrl && (await setup.stdlib);
  const stdLibURL = keptStdlib ? URL.createObjectURL(keptStdlib) : stdLibUrl;
  try {
    const files = { indexURL: indexUrl, ...(stdLibURL ? { stdLibURL } : {}) };
    const pyodide = await loadPyodideWith(setup, files, restore, makeSnapshot);
    if (stdLibUrl && !keptStdlib) {
      fetchKept(stdLibUrl, { key: stdLibKey }).catch(() => {});
    }
    return pyodide;
  } finally {
    keptStdlib && URL.revokeObjectURL(stdLibURL);
  }
}

// Making and restoring a snapshot both link the extension modules before the interpreter starts (dynlibs.mjs).
async function loadPyodideWith(setup, files, restore, makeSnapshot) {
  const { loadPyodide, indexUrl } = setup;
  if (!restore && !makeSnapshot) {
    return loadPyodide(files);
  }
  const parts = restore || { factory: runtimeFactory(indexUrl), dynlibs: compileDynlibs(setup) };
  const [createModule, compiled] = await Promise.all([parts.factory, parts.dynlibs]);
  let preRunError;
  const createPyodideModule = amendedFactory(createModule, {
    preRun: preloadDynlibs(compiled, restore, error => (preRunError = error)),
    // The runtime's instance is handed over in a task of its own, apart from its compile; and Pyodide
    // restores the heap and finishes its start in one go once the module is made: not in the runtime's
    // own starting task.
    beforeInstance: yieldToPage,
    beforeStart: yieldToPage
  });
  const options = restore ? restoreOptions(restore.memory) : snapshotMakingOptions(makeSnapshot.jsglobals);
  let pyodide;
  try {
    const load = () => loadPyodide({ ...files, createPyodideModule, ...options });
    pyodide = await (restore ? withRuntime(restore.runtime, load) : load());
  } catch (error) {
    throw preRunError || error;
  }
  if (preRunError) {
    throw preRunError;
  }
  return pyodide;
}

const wheelUrls = ({ assetsUrl, manifest }) => manifest.wheels.map(name => assetsUrl + name);

async function plainBoot(setup) {
  const pyodide = await loadInterpreter(setup);
  await pyodide.loadPackage(wheelUrls(setup));
  return pyodide;
}

// Everything a restore loads before it runs, all at once: the snapshot and the packed files downloading
// and inflating, the extension modules and Pyodide's runtime downloading and compiling, Pyodide's module
// factory. Rejects, before loading anything, when the snapshot cannot be restored in this browser.
async function fetchRestore(setup, signal) {
  const snapshotParts = fetchSnapshot(setup, signal);
  const dynlibs = compileDynlibs(setup, signal);
  const factory = runtimeFactory(setup.indexUrl);
  [dynlibs, factory].forEach(part => part.catch(() => {})); // awaited by the restore, which reports them
  return { ...snapshotParts, dynlibs, factory, runtime: fetchRuntime(setup, signal) };
}

async function snapshotBoot(setup, restore) {
  const pyodide = await loadInterpreter(setup, { restore });
  await completeRestore(pyodide, setup, restore);
  return pyodide;
}

// Loads what the start needs that depends on neither the page's settings nor the app.
async function loadAhead(site, allowSnapshot, signal) {
  const setup = await interpreterSetup(site);
  signal.throwIfAborted(); // dropped meanwhile: nothing more starts loading
  const fallback = snapshotUnusable(setup, allowSnapshot);
  const restore = fallback ? null : fetchRestore(setup, signal);
  restore?.catch(() => {}); // awaited by startLoaded(), which falls back to the plain start
  return { setup, fallback, restore };
}

async function startLoaded({ setup, fallback, restore }) {
  if (restore) {
    try {
      const pyodide = await snapshotBoot(setup, await restore);
      const bridge = pyodide.pyimport(setup.manifest.module);
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
  return { pyodide, bridge: pyodide.pyimport(setup.manifest.module), path: 'plain', fallback };
}

/**
 * Begins starting Pyodide with the bridge imported. `site`: {pyodideUrl, indexUrl, assetsUrl, manifest}.
 * Everything that needs neither the page's settings nor the app starts loading now (for a restore: the
 * snapshot, the files, the extension modules and Pyodide's runtime, downloading, inflating and compiling).
 * `finish()` starts the interpreter and resolves to {pyodide, bridge, path, fallback}: path is 'snapshot'
 * or 'plain'; fallback says why the snapshot was not used. `drop()` abandons it all instead (downloads
 * aborted, the inflating worker stopped, the loaded bytes let go).
 */
export function beginStart(site, { allowSnapshot = true } = {}) {
  const downloads = new AbortController();
  const loaded = loadAhead(site, allowSnapshot, downloads.signal);
  loaded.catch(() => {}); // reported by finish()
  return {
    finish: () => loaded.then(startLoaded),
    drop: () => {
      downloads.abort();
      stopInflater();
    }
  };
}

/** Build time only: the memory snapshot of a freshly started bridge, and what a restore needs. */
export async function makeSnapshot(site) {
  const setup = await interpreterSetup(site);
  if (!setup.fits) {
    throw new Error(`Pyodide ${setup.version} is not the ${site.manifest.pyodideVersion} the extension is built for`);
  }
  const pyodide = await loadInterpreter(setup, { makeSnapshot: { jsglobals: recordedGlobals() } });
  stopInflater();
  await pyodide.loadPackage(wheelUrls(setup));
  return snapshotOf(pyodide, site.manifest.module);
}
