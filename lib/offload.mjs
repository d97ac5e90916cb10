// Inflating the .gz assets as they download: in a worker beside this module (inflate-worker.js), or on the
// page's own thread where no worker can start.

// Beside this module, under the same build's version.
const version = new URL(import.meta.url).search;
const [{ fetchKept }, { givingTurns }] = await Promise.all([
  import(`./kept-files.mjs${version}`),
  import(`./turns.mjs${version}`)
]);

/** The file name of an asset's URL, for messages. */
export const fileName = url => url.slice(url.lastIndexOf('/') + 1).split('?')[0];

// Where the page inflates on its own thread, chunks already downloaded would inflate back to back in one
// task: the compressed bytes go in pieces of at most 64 KiB (a few milliseconds to inflate; Cache
// Storage hands out chunks of megabytes), and the page gets its turn every few tens of milliseconds.
const PIECE_BYTES = 1 << 16;

const inPieces = () =>
  new TransformStream({
    transform(chunk, controller) {
      for (let at = 0; at < chunk.length; at += PIECE_BYTES) {
        controller.enqueue(chunk.subarray(at, at + PIECE_BYTES));
      }
    }
  });

// Inflating is CPU work the page's main thread need not do: a worker beside this module inflates, and the
// bytes come back in large batches. The worker must first answer a ping, so a page where no worker can
// start (a content security policy, say) inflates on its own thread.
const INFLATE_WORKER = new URL(`inflate-worker.js${version}`, import.meta.url);
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

/** Stops the worker (the streams it still owes fail); the next inflate starts another. */
export function stopInflater() {
  inflater?.then(worker => worker?.stop());
  inflater = null;
}

/** A .gz asset's inflated bytes as a stream, unless the server labelled it `Content-Encoding: gzip` (some
 * hosts do for every .gz file): then the browser already inflated it. `signal` aborts the download. */
export async function inflatedStream(url, signal) {
  const [response, worker] = await Promise.all([fetchKept(url, { signal }), startInflater()]);
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
async function readGzip(url, onChunk, signal) {
  const stream = await inflatedStream(url, signal);
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

/** A .gz asset's inflated bytes. */
export async function gunzip(url, signal) {
  const chunks = [];
  await readGzip(url, chunk => chunks.push(chunk), signal);
  return new Uint8Array(await new Blob(chunks).arrayBuffer());
}

/** Inflates a .gz asset into `target`, which it must fill exactly. */
export async function gunzipInto(url, target, signal) {
  let offset = 0;
  await readGzip(
    url,
    chunk => {
      if (offset + chunk.length > target.length) {
        throw new Error(`${fileName(url)} is larger than the manifest says`);
      }
      target.set(chunk, offset);
      offset += chunk.length;
    },
    signal
  );
  if (offset !== target.length) {
    throw new Error(`${fileName(url)} is smaller than the manifest says`);
  }
}
