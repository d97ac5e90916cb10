// Inflates gzip streams off the page's main thread (boot.mjs `inflatedStream`). Each message brings an
// id and a compressed stream; the inflated bytes go back under that id in batches of about 1 MiB (few
// messages, each buffer moved, not copied), then `done`, or `error` with the reason. A message without
// a stream is a ping, answered with `done`, so the page knows the worker runs before handing one over.
const BATCH_BYTES = 1 << 20;

onmessage = async ({ data: { id, body } }) => {
  if (!body) {
    postMessage({ id, done: true });
    return;
  }
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
  try {
    const reader = body.pipeThrough(new DecompressionStream('gzip')).getReader();
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
  } catch (error) {
    postMessage({ id, error });
  }
};
