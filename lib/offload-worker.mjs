// The start's large files fetched, decoded and compiled off the page's main thread (offload.mjs): the page
// names a file, this worker fetches it (its kept copy in Cache Storage, else its download, a copy of which it
// keeps: kept-files.mjs), and sends back a compiled WebAssembly module, or the decoded bytes in batches of
// about 1 MiB (each buffer moved, not copied). Read by the page, each downloaded chunk and each decoded one
// would wait for a turn of the page's busy main thread, and the start with them.
//
// Messages from the page (the first ones in this worker's URL, as a JSON list): {id} is a ping, answered
// {id, done}; {id, abort} aborts job `id`; {stop} ends the worker once the copies it began are kept;
// {id, url, key, bytes, compressed, compile, whole} is a job, answered {id, module} (compile), {id, whole} (the
// file's bytes, whole), or {id, head: {decodedByBrowser, served}}, then {id, chunk}..., then {id, done}; a
// failure {id, error}.

// Beside this module, under the same build's version.
const version = new URL(import.meta.url).search;
const keptFiles = import(`./kept-files.mjs${version}`);
const brotli = import(`./brotli.mjs${version}`);
const BATCH_BYTES = 1 << 20;
const jobs = new Map(); // id -> its AbortController

async function sendDecoded(id, body) {
  let parts = [];
  let size = 0;
  const send = () => {
    const batch = new Uint8Array(size);
    let at = 0;
    for (const part of parts) {
      batch.set(part, at);
      at += part.length;
    }
    postMessage({ id, chunk: batch }, [batch.buffer]);
    parts = [];
    size = 0;
  };
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    parts.push(read.value);
    size += read.value.length;
    if (size >= BATCH_BYTES) {
      send();
    }
  }
  if (size) {
    send();
  }
  postMessage({ id, done: true });
}

async function run({ id, url, key, bytes, compressed, compile, whole }) {
  const controller = new AbortController();
  jobs.set(id, controller);
  try {
    if (compressed) {
      (await brotli).prepareDecoder(); // loads while the file's first bytes are on their way
    }
    const { fetchKept } = await keptFiles;
    const response = await fetchKept(url, { key, bytes, signal: controller.signal });
    if (compile) {
      const { wasmResponse } = await keptFiles;
      postMessage({ id, module: await WebAssembly.compileStreaming(await wasmResponse(response, compressed)) });
      return;
    }
    if (whole) {
      const body = await response.arrayBuffer();
      postMessage({ id, whole: body }, [body]);
      return;
    }
    const { decodedBody, decodedByBrowser } = await brotli;
    const served = response.headers.get('Content-Type');
    postMessage({ id, head: { decodedByBrowser: decodedByBrowser(response), served } });
    await sendDecoded(id, compressed ? decodedBody(response) : response.body);
  } catch (error) {
    postMessage({ id, error });
  } finally {
    jobs.delete(id);
  }
}

async function handle(data) {
  if (data.abort) {
    jobs.get(data.id)?.abort();
  } else if (data.stop) {
    await (await keptFiles).allKept();
    close();
  } else if (data.url) {
    run(data);
  } else {
    postMessage({ id: data.id, done: true });
  }
}

onmessage = ({ data }) => handle(data);
// The messages sent before it started, in its URL (offload.mjs).
JSON.parse(decodeURIComponent(location.hash.slice(1)) || '[]').forEach(handle);
