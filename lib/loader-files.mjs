// The files Pyodide's loader fetches, fetched ahead and handed to it: the extension's standard library,
// and for a restore Pyodide's runtime (`pyodide.asm.wasm`, 9 MiB), compiled ahead, off the page's main thread
// (offload.mjs).
//
// The loader fetches both with the page's `fetch` as it makes its settings, before any hook it offers,
// and compiles the runtime it fetched. While it loads, the page's `fetch` answers those two requests: the
// standard library with the file fetched ahead, the runtime with an empty stand-in, and
// `WebAssembly.instantiateStreaming`, handed that very answer, instantiates the module compiled ahead instead.
// Every other call passes through untouched, and each stand-in is put back once it has answered (at the latest
// when the loader returns). No blob: URL is involved, which a strict content security policy would refuse.
//
// The kernel's worker downloads the same runtime, and a private window's memory cache keeps no file that
// large, so the runtime is kept like the snapshot, only when the site serves the very file the snapshot
// was made with (checked by its size).

// Beside this module, under the same build's version.
const version = new URL(import.meta.url).search;
const [{ fetchKept, versioned }, { compiledModule, fetchedWhole }, { runtimeUrl }, { yieldToPage }] = await Promise.all([
  import(`./kept-files.mjs${version}`),
  import(`./offload.mjs${version}`),
  import(`./pyodide-internals.mjs${version}`),
  import(`./turns.mjs${version}`)
]);

/** Begins fetching the extension's standard library (compiled to bytecode; the one the snapshot was made
 * with): its kept copy, else its download, read whole off the page's thread (fetchedWhole), on the page where
 * that failed. Unversioned: a site may point its kernel at the same file (the demo does), to download it once.
 * `signal` aborts the download. `response()` answers it: the bytes handed over once (then let go); a later
 * start (the plain one after a failed restore) reads it again, on the page. */
export function fetchStdlib(site, signal) {
  const { assetsUrl, manifest } = site;
  const url = assetsUrl + manifest.stdlib;
  const key = versioned(site, manifest.stdlib);
  const onPage = () => fetchKept(url, { key, signal }).then(file => file.arrayBuffer());
  let ahead = fetchedWhole(url, { key, signal }).catch(onPage);
  ahead.catch(() => {}); // the loader reports it
  signal?.addEventListener('abort', () => (ahead = null), { once: true }); // a start dropped lets its bytes go
  const response = () => {
    const bytes = ahead || onPage();
    ahead = null;
    // The loader reads its answer with arrayBuffer(): handed the bytes as they are, with no stream's turns
    // (a Response made of them took 0.1 s more on a busy page).
    return bytes.then(body => Object.assign(new Response(null), { arrayBuffer: () => Promise.resolve(body) }));
  };
  return { url, response };
}

/** Begins fetching the site's Pyodide runtime (its kept copy when there is one) and compiling it as it
 * downloads. `signal` aborts the download. */
export function fetchRuntime({ indexUrl, manifest }, signal) {
  const url = runtimeUrl(indexUrl);
  const key = `${url}?v=${manifest.build}`;
  const compiled = compiledModule(url, { key, bytes: manifest.snapshot.runtimeBytes, signal });
  compiled.catch(() => {}); // the loader reports it
  return { url, compiled };
}

/** Runs `load` (Pyodide's loader) with the files fetched ahead as the ones it loads: `stdlib`
 * (fetchStdlib), `runtime` (fetchRuntime, or `{url}` alone where the loader downloads it itself); either
 * may be absent. Pyodide's loader only logs a runtime or a standard library that fails to load, and then
 * waits forever: here the load fails instead, with the reason. */
export async function withFilesAhead({ stdlib, runtime }, load) {
  const pageFetch = globalThis.fetch;
  const pageInstantiate = WebAssembly.instantiateStreaming;
  const answers = new Map();
  let loadFailed;
  const failure = new Promise((_, reject) => (loadFailed = reject));
  if (stdlib) {
    answers.set(stdlib.url, () => {
      const answer = stdlib.response();
      answer.catch(error => loadFailed(new Error(`the standard library did not load (${error.message || error})`)));
      return answer;
    });
  }
  let runtimeAnswer = null;
  if (runtime) {
    // Compiled ahead, the runtime needs no bytes: the answer only stands for it.
    const answer = (resource, rest) =>
      runtime.compiled ? Promise.resolve(new Response(null)) : pageFetch(resource, ...rest);
    answers.set(runtime.url, (resource, rest) => (runtimeAnswer = answer(resource, rest)));
  }
  function fetchStandIn(resource, ...rest) {
    const requested = new URL(resource instanceof Request ? resource.url : String(resource), location.href).href;
    const answer = answers.get(requested);
    if (!answer) {
      return pageFetch(resource, ...rest);
    }
    answers.delete(requested);
    if (!answers.size) {
      globalThis.fetch = pageFetch;
    }
    return answer(resource, rest);
  }
  function instantiateStandIn(source, imports) {
    if (!runtimeAnswer || source !== runtimeAnswer) {
      return pageInstantiate.call(WebAssembly, source, imports);
    }
    WebAssembly.instantiateStreaming = pageInstantiate;
    let instantiated;
    if (runtime.compiled) {
      // In a task of its own, not at the end of the module factory's first run: each took 20-40 ms.
      instantiated = runtime.compiled.then(async module => {
        await yieldToPage();
        return { instance: await WebAssembly.instantiate(module, imports), module };
      });
    } else {
      instantiated = pageInstantiate.call(WebAssembly, source, imports);
    }
    instantiated.catch(error => loadFailed(new Error(`Pyodide's runtime did not load (${error.message || error})`)));
    return instantiated;
  }
  globalThis.fetch = fetchStandIn;
  if (runtime) {
    WebAssembly.instantiateStreaming = instantiateStandIn;
  }
  try {
    return await Promise.race([load(), failure]);
  } finally {
    if (globalThis.fetch === fetchStandIn) {
      globalThis.fetch = pageFetch;
    }
    if (WebAssembly.instantiateStreaming === instantiateStandIn) {
      WebAssembly.instantiateStreaming = pageInstantiate;
    }
  }
}
