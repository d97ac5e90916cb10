// The large files kept in Cache Storage under their versioned URLs (the snapshot, the packed files, the
// extension modules, the standard library, Pyodide's runtime): a private window's memory cache keeps no file
// over 6.25 MiB, so without this every reload downloads them again. Only the current build's copies are
// kept; a copy that failed to restore is dropped.

// Beside this module, under the same build's version: loaded once a file is to be decoded.
const brotliModule = `./brotli.mjs${new URL(import.meta.url).search}`;

const KEPT = 'jupyterlite-pyodide-webmcp';

async function fetchOk(url, signal) {
  const response = await fetch(url, { signal });
  if (!response.ok) {
    throw new Error(`${url}: HTTP ${response.status}`);
  }
  return response;
}

/** An asset's URL with the build's id: assets that must match each other (the snapshot, the files it
 * expects, the extension modules it links) carry it, so a browser never mixes a cached file of one deploy
 * with another's. */
export const versioned = ({ assetsUrl, manifest }, file) =>
  manifest.build ? `${assetsUrl}${file}?v=${manifest.build}` : assetsUrl + file;

const keptFiles = () => (globalThis.caches ? caches.open(KEPT).catch(() => null) : Promise.resolve(null));

const keptResponse = async (cache, key) => cache && (await cache.match(key).catch(() => null));

/**
 * The kept copy of `url`, else its download (a copy of which is kept). `key`: the versioned URL a copy is
 * kept under (the file itself may be fetched from a URL shared with the kernel, without the build's
 * version). `bytes`: keep a copy only of that size (for a file the site, not this build, provides).
 * `signal` aborts the download.
 */
export async function fetchKept(url, { key = url, bytes = null, signal } = {}) {
  const kept = await keptResponse(await keptFiles(), key);
  if (kept) {
    return kept;
  }
  const response = await fetchOk(url, signal);
  const copy = response.clone();
  const checked =
    bytes === null
      ? Promise.resolve(copy)
      : copy.blob().then(body => body.size === bytes && new Response(body, { headers: { 'Content-Type': body.type } }));
  const written = checked.then(fit => fit && keep(key, fit)).catch(() => {});
  keeping.add(written);
  written.then(() => keeping.delete(written));
  return response;
}

// The copies being written.
const keeping = new Set();

/**
 * A fetched wasm file as `WebAssembly.compileStreaming` takes it: decoded first when `compressed` (brotli)
 * and the browser has not (brotli.mjs), and labelled `application/wasm` when it is not served as that.
 */
export async function wasmResponse(response, compressed) {
  const body = compressed ? (await import(brotliModule)).decodedBody(response) : response.body;
  if (body === response.body && /^application\/wasm\b/i.test(response.headers.get('Content-Type') || '')) {
    return response; // as served: the browser may cache its compiled code
  }
  return new Response(body, { headers: { 'Content-Type': 'application/wasm' } });
}

/** Resolves once every copy begun has been kept (or failed to be). */
export const allKept = () => Promise.all([...keeping]);

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

/** Drops every kept copy. */
export async function forgetKept() {
  const cache = await keptFiles();
  for (const old of cache ? await cache.keys().catch(() => []) : []) {
    await cache.delete(old).catch(() => {});
  }
}
