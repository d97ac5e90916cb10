// Pyodide's runtime (`pyodide.asm.wasm`, 9 MiB) for a restore: fetched and compiled ahead, and handed to
// Pyodide's loader through two stand-ins while it loads.
//
// The kernel's worker downloads the same file, and a private window's memory cache keeps no file that
// large, so a restore keeps a copy like the snapshot's, only when the site serves the very file the
// snapshot was made with (checked by its size). Pyodide's loader fetches the runtime with the page's
// `fetch` as it makes its settings, before any hook it offers, and compiles it in its `instantiateWasm`:
// while it loads, the page's `fetch` is wrapped so that the runtime's request is answered with a copy of
// the response fetched ahead, and `WebAssembly.instantiateStreaming`, handed that very answer, instantiates
// the module compiled ahead instead. Every other call passes through untouched, and each is put back at
// its first use (at the latest when the loader returns).

// Beside this module, under the same build's version.
const version = new URL(import.meta.url).search;
const [{ fetchKept }, { runtimeUrl }] = await Promise.all([
  import(`./kept-files.mjs${version}`),
  import(`./pyodide-internals.mjs${version}`)
]);

/** Begins fetching the site's Pyodide runtime (its kept copy when there is one) and compiling it as it
 * downloads. `signal` aborts the download. */
export function fetchRuntime({ indexUrl, manifest }, signal) {
  const url = runtimeUrl(indexUrl);
  const fetched = fetchKept(url, { key: `${url}?v=${manifest.build}`, bytes: manifest.snapshot.runtimeBytes, signal })
    .then(response => [response.clone(), response]);
  const spare = fetched.then(([copy]) => copy);
  const compiled = fetched.then(([, response]) => WebAssembly.compileStreaming(response));
  spare.catch(() => {});
  compiled.catch(() => {}); // awaited by Pyodide's loader, which reports it
  return { url, spare, compiled };
}

// The spare copy, unread, keeps every byte it is not read: let go of them.
const letGo = spare => spare.then(copy => copy.body?.cancel()).catch(() => {});

/** Runs `load` (Pyodide's loader) with the runtime fetched ahead (`fetchRuntime`) as the one it loads. */
export async function withRuntime({ url, spare, compiled }, load) {
  const pageFetch = globalThis.fetch;
  const pageInstantiate = WebAssembly.instantiateStreaming;
  let asked = false;
  const putBack = () => {
    if (globalThis.fetch === fetchStandIn) {
      globalThis.fetch = pageFetch;
    }
    if (WebAssembly.instantiateStreaming === instantiateStandIn) {
      WebAssembly.instantiateStreaming = pageInstantiate;
    }
  };
  function fetchStandIn(resource, ...rest) {
    const requested = resource instanceof Request ? resource.url : String(resource);
    if (new URL(requested, location.href).href !== url) {
      return pageFetch(resource, ...rest);
    }
    globalThis.fetch = pageFetch;
    asked = true;
    return spare;
  }
  function instantiateStandIn(source, imports) {
    if (source !== spare) {
      return pageInstantiate.call(WebAssembly, source, imports);
    }
    putBack();
    letGo(spare);
    return compiled.then(async module => ({ instance: await WebAssembly.instantiate(module, imports), module }));
  }
  globalThis.fetch = fetchStandIn;
  WebAssembly.instantiateStreaming = instantiateStandIn;
  try {
    return await load();
  } finally {
    putBack();
    if (!asked) {
      letGo(spare);
    }
  }
}
