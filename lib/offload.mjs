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

// Jobs are sent to the worker at once, without waiting for its first answer: that would wait for a turn of
// the page's busy thread (0.4 s on a first visit). The browser passes no message on before the worker's script
// has run and has told the page so, in a task of the page's; so boot.mjs starts the worker before its own
// imports load (adoptWorker), and a worker started here takes the jobs of the task that starts it in its URL,
// to start them as its script runs. A worker that never answers (a content security policy, a host serving
// something else under its name) fails its jobs as `Unstarted` within PING_MS, and the page then does them
// on its own thread.
const WORKER = new URL(`offload-worker.mjs${version}`, import.meta.url);
const PING_MS = 5000;
let offloader = null;

/** A job's failure when the worker never started: the page does the job itself. */
class Unstarted extends Error {}

function startWorker() {
  offloader ??= newWorker();
  return offloader;
}

/** Takes `worker` (offload-worker.mjs, already started; null where it could not be) as the one that does the jobs. */
export function adoptWorker(worker) {
  if (worker && !offloader) {
    offloader = newWorker(worker);
  } else {
    worker?.terminate();
  }
}

function newWorker(created = null) {
  const jobs = new Map(); // id -> {answer(message), fail(error)}
  let ids = 0;
  let early = created ? null : []; // the messages for a worker not yet made: they go in its URL
  let worker = created;
  let answered = false; // its first message is the ping's answer
  let ended = null; // why it can take no more jobs
  // No job waits forever: a worker that fails or is stopped fails the jobs it still owes; one that failed
  // before it answered never started.
  const end = (reason, failed = true) => {
    ended ??= failed && !answered ? new Unstarted(reason) : new Error(`offloading worker: ${reason}`);
    jobs.forEach(job => job.fail(ended));
    jobs.clear();
  };
  const post = message => (early ? early.push(message) : worker.postMessage(message));
  const send = (message, job) => {
    if (ended) {
      job.fail(ended);
      return null;
    }
    const id = ids++;
    jobs.set(id, job);
    post({ ...message, id });
    return id;
  };
  const listen = () => {
    const unanswered = setTimeout(() => {
      worker.terminate();
      end('no answer');
    }, PING_MS);
    worker.onerror = event => end(event.message || 'failed');
    worker.onmessage = ({ data }) => {
      answered = true;
      clearTimeout(unanswered);
      const job = jobs.get(data.id);
      if (!job) {
        return;
      }
      if (data.error !== undefined || data.done || data.module || data.whole) {
        jobs.delete(data.id);
      }
      job.answer(data);
    };
  };
  if (worker) {
    listen();
  } else {
    queueMicrotask(() => {
      if (ended) {
        return;
      }
      try {
        worker = new Worker(`${WORKER}#${encodeURIComponent(JSON.stringify(early))}`, { type: 'module' });
      } catch (error) {
        end(String(error));
        return;
      }
      early = null;
      listen();
    });
  }
  send({}, { answer: () => {}, fail: () => {} }); // the ping
  return {
    send,
    abort: id => id !== null && !ended && post({ id, abort: true }),
    stop: () => {
      worker?.terminate();
      end('stopped', false);
    },
    finish: () => ended || post({ stop: true })
  };
}

/** Stops the worker at once (the jobs it still owes fail); the next job starts another. */
export function stopOffload() {
  offloader?.stop();
  offloader = null;
}

/** Lets the worker end once the copies it began are kept in Cache Storage; the next job starts another. */
export function finishOffload() {
  offloader?.finish();
  offloader = null;
}

/** `job` done in the worker, or, where it never started, `onPage()` instead. */
async function inWorkerOrOnPage(job, onPage) {
  try {
    return await job(startWorker());
  } catch (error) {
    if (error instanceof Unstarted) {
      return onPage();
    }
    throw error;
  }
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

// A job in the worker answered once, with its `field` (`module`, `whole`).
const answeredWith = (job, field, signal) => worker =>
  new Promise((resolve, reject) =>
    workerJob(worker, job, data => (data[field] ? resolve(data[field]) : reject(data.error)), reject, signal)
  );

// The .br asset's decoded bytes as a stream, with what the server said of it: from the worker, or read and
// decoded here, the page getting its turn every few tens of milliseconds.
function decodedStream(url, signal) {
  const inWorker = worker =>
    new Promise((resolve, reject) => {
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
  const onPage = async () => {
    const response = await fetchKept(url, { signal });
    const stream = decodedBody(response, turnTaker()).pipeThrough(givingTurns());
    return { stream, decodedByBrowser: decodedByBrowser(response), served: response.headers.get('Content-Type') };
  };
  return inWorkerOrOnPage(inWorker, onPage);
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

/** A .br asset's decoded bytes as the pieces they came in, which must add up to `bytes` exactly: taken as
 * they come, not copied into one buffer (for the snapshot, 31 MiB more to write on the page's thread). */
export async function decodedParts(url, bytes, signal) {
  const parts = [];
  let length = 0;
  await readDecoded(
    url,
    chunk => {
      length += chunk.length;
      if (length > bytes) {
        throw new Error(`${fileName(url)} is larger than the manifest says`);
      }
      parts.push(chunk);
    },
    signal
  );
  if (length !== bytes) {
    throw new Error(`${fileName(url)} is smaller than the manifest says`);
  }
  return parts;
}

/** A file's bytes (an ArrayBuffer), fetched as fetchKept does (`key`): read off the page's thread, which
 * would otherwise take each piece of it in a turn of its own (1 s for the standard library on a first visit). */
export function fetchedWhole(url, { key, signal } = {}) {
  return inWorkerOrOnPage(answeredWith({ url, key, whole: true }, 'whole', signal), async () =>
    (await fetchKept(url, { key, signal })).arrayBuffer());
}

/**
 * A wasm file, compiled: `url` fetched as fetchKept does (`key`, `bytes`), decoded first when `compressed`.
 * `signal` aborts it. A failure names the file.
 */
export async function compiledModule(url, { key, bytes = null, compressed = false, signal } = {}) {
  const inWorker = answeredWith({ url, key, bytes, compressed, compile: true }, 'module', signal);
  const onPage = async () =>
    WebAssembly.compileStreaming(await wasmResponse(await fetchKept(url, { key, bytes, signal }), compressed));
  try {
    return await inWorkerOrOnPage(inWorker, onPage);
  } catch (error) {
    throw new Error(`${fileName(url)}: ${error.message || error}`);
  }
}
