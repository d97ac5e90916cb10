// The start's large files (the snapshot, the packed files, the extension modules, Pyodide's runtime) fetched,
// decoded and compiled off the page's main thread, in a worker beside this module (offload-worker.mjs); on
// the page's own thread where no worker can start.

// Beside this module, under the same build's version.
const version = new URL(import.meta.url).search;
const [{ fetchKept, wasmResponse }, { givingTurns, turnTaker }, { decodedBody, decodedByBrowser }] =
  await Promise.all([
    import(`./kept-files.mjs${version}`),
    import(`./turns.mjs${version}`),
    import(`./brotli.mjs${version}`)
  ]);

/** The file name of an asset's URL, for messages. */
export const fileName = url => url.slice(url.lastIndexOf('/') + 1).split('?')[0];

// The worker must first answer a ping, so a page where no worker can start (a content security policy, a
// host serving something else under its name) does the work on its own thread.
const WORKER = new URL(`offload-worker.mjs${version}`, import.meta.url);
const PING_MS = 5000;
let offloader = null;

function startWorker() {
  offloader ??= new Promise(resolve => {
    let worker;
    try {
      worker = new Worker(WORKER, { type: 'module' });
    } catch {
      resolve(null);
      return;
    }
    const jobs = new Map(); // id -> {answer(message), fail(error)}
    let ids = 0;
    // No job waits forever: a worker that fails or is stopped fails the jobs it still owes.
    const failAll = reason => {
      jobs.forEach(job => job.fail(new Error(`offloading worker: ${reason}`)));
      jobs.clear();
    };
    worker.onerror = event => {
      resolve(null);
      failAll(event.message || 'failed');
    };
    worker.onmessage = ({ data }) => {
      const job = jobs.get(data.id);
      if (!job) {
        return;
      }
      if (data.error !== undefined || data.done || data.module) {
        jobs.delete(data.id);
      }
      job.answer(data);
    };
    const send = (message, job) => {
      const id = ids++;
      jobs.set(id, job);
      worker.postMessage({ ...message, id });
      return id;
    };
    const unanswered = setTimeout(() => {
      worker.terminate();
      failAll('no answer');
      resolve(null);
    }, PING_MS);
    send({}, {
      answer: () => {
        clearTimeout(unanswered);
        resolve({
          send,
          abort: id => worker.postMessage({ id, abort: true }),
          stop: () => {
            worker.terminate();
            failAll('stopped');
          },
          finish: () => worker.postMessage({ stop: true })
        });
      },
      fail: () => {}
    });
  });
  return offloader;
}

/** Stops the worker at once (the jobs it still owes fail); the next job starts another. */
export function stopOffload() {
  offloader?.then(worker => worker?.stop());
  offloader = null;
}

/** Lets the worker end once the copies it began are kept in Cache Storage; the next job starts another. */
export function finishOffload() {
  offloader?.then(worker => worker?.finish());
  offloader = null;
}

// A job in the worker, its answers passed to `answer`; `signal` aborts it.
function workerJob(worker, job, answer, fail, signal) {
  if (signal?.aborted) {
    fail(signal.reason);
    return;
  }
  const id = worker.send(job, { answer, fail });
  signal?.addEventListener('abort', () => worker.abort(id), { once: true });
}

// The .br asset's decoded bytes as a stream, with what the server said of it: from the worker, or read and
// decoded here, the page getting its turn every few tens of milliseconds.
async function decodedStream(url, signal) {
  const worker = await startWorker();
  if (!worker) {
    const response = await fetchKept(url, { signal });
    const stream = decodedBody(response, turnTaker()).pipeThrough(givingTurns());
    return { stream, decodedByBrowser: decodedByBrowser(response), served: response.headers.get('Content-Type') };
  }
  return new Promise((resolve, reject) => {
    let stream;
    const failed = error => (stream ? stream.error(error) : reject(error));
    workerJob(
      worker,
      { url, compressed: true },
      ({ head, chunk, done, error }) => {
        if (head) {
          resolve({ stream: new ReadableStream({ start: controller => (stream = controller) }), ...head });
        } else if (chunk) {
          stream.enqueue(chunk);
        } else if (done) {
          stream.close();
        } else {
          failed(error);
        }
      },
      failed,
      signal
    );
  });
}

// Reads a .br asset, decoded, chunk by chunk.
async function readDecoded(url, onChunk, signal) {
  const { stream, decodedByBrowser: byBrowser, served } = await decodedStream(url, signal);
  const reader = stream.getReader();
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      onChunk(chunk.value);
    }
  } catch (error) {
    if (byBrowser || !(error instanceof TypeError)) {
      throw error;
    }
    throw new Error(
      `${fileName(url)} arrived altered (served as ${served || 'no Content-Type'}; ` +
        `${error.message.replace(/\.$/, '')}): serve .br files byte for byte`
    );
  }
}

/** A .br asset's decoded bytes. */
export async function decoded(url, signal) {
  const chunks = [];
  await readDecoded(url, chunk => chunks.push(chunk), signal);
  return new Uint8Array(await new Blob(chunks).arrayBuffer());
}

/** Decodes a .br asset into `target`, which it must fill exactly. */
export async function decodeInto(url, target, signal) {
  let offset = 0;
  await readDecoded(
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

/**
 * A wasm file, compiled: `url` fetched as fetchKept does (`key`, `bytes`), decoded first when `compressed`.
 * `signal` aborts it. A failure names the file.
 */
export async function compiledModule(url, { key, bytes = null, compressed = false, signal } = {}) {
  const worker = await startWorker();
  try {
    if (worker) {
      return await new Promise((resolve, reject) =>
        workerJob(worker, { url, key, bytes, compressed, compile: true },
          ({ module, error }) => (module ? resolve(module) : reject(error)), reject, signal)
      );
    }
    const response = await fetchKept(url, { key, bytes, signal });
    return await WebAssembly.compileStreaming(await wasmResponse(response, compressed));
  } catch (error) {
    throw new Error(`${fileName(url)}: ${error.message || error}`);
  }
}
