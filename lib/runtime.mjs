// Pyodide's runtime (`pyodide.asm.wasm`, 9 MiB) for a restore, kept like the snapshot.
//
// The kernel's worker downloads the same file, and a private window's memory cache keeps no file that
// large, so a restore keeps a copy like the snapshot's, only when the site serves the very file the
// snapshot was made with (checked by its size). Pyodide's loader fetches the runtime with the page's
// `fetch` as it makes its settings, before any hook it offers: until the loader asks for it, the page's
// `fetch` is wrapped. That one request is answered from the kept copy, every other passes through
// untouched.

// Beside this module, under the same build's version.
const version = new URL(import.meta.url).search;
const [{ fetchKept }, { runtimeUrl }] = await Promise.all([
  import(`./kept-files.mjs${version}`),
  import(`./pyodide-internals.mjs${version}`)
]);

/** Runs `load` (Pyodide's loader) with the page's `fetch` answering the runtime's request from its kept copy. */
export async function withKeptRuntime({ indexUrl, manifest }, load) {
  const runtime = runtimeUrl(indexUrl);
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
    return fetchKept(runtime, { key: `${runtime}?v=${manifest.build}`, bytes: manifest.snapshot.runtimeBytes });
  }
  globalThis.fetch = standIn;
  try {
    return await load();
  } finally {
    putBack();
  }
}
