// Brotli, the format the extension's large files ship in (the snapshot, the packed files, the extension
// modules): nearly a third smaller than gzip for these files. Browsers decode it only as a server's
// Content-Encoding, so the bytes go through a decoder here: brotli-dec-wasm (in brotli/ beside this
// module, 100 KB gzipped), run where the page's worker fetches them.

// Beside this module, under the same build's version.
const version = new URL(import.meta.url).search;
const GLUE = new URL(`brotli/brotli_dec_wasm.js${version}`, import.meta.url);
const WASM = new URL(`brotli/brotli_dec_wasm_bg.wasm${version}`, import.meta.url);

// Input goes in 64 KiB pieces and output comes in pieces of at most 1 MiB: each call into the decoder copies
// its input in, and out of a few compressed bytes come megabytes of zeros.
const PIECE_BYTES = 1 << 16;
const OUT_BYTES = 1 << 20;

let decoder = null;

const loadDecoder = () =>
  (decoder ??= import(GLUE.href).then(async glue => {
    await glue.default({ module_or_path: WASM });
    return glue;
  }));

/** Begins loading the decoder, to have it ready when the first bytes arrive (a failure shows when it is used). */
export const prepareDecoder = () => void loadDecoder().catch(() => {});

/** Whether the host already decoded the file (some label every .br file `Content-Encoding: br`). */
export const decodedByBrowser = response => /\bbr\b/i.test(response.headers.get('Content-Encoding') || '');

/** A fetched .br file's body, decoded unless the browser already did (`turn` as for brotliDecoding). */
export const decodedBody = (response, turn = null) =>
  decodedByBrowser(response) ? response.body : response.body.pipeThrough(brotliDecoding(turn));

/**
 * A stream from brotli-compressed bytes to the bytes they encode; `turn`, awaited after each piece, lets
 * the page's own thread decode in slices. Data that is not brotli, or that ends early or goes on past its
 * end, errors it with a TypeError, as a DecompressionStream does.
 */
export function brotliDecoding(turn = null) {
  let glue;
  let stream;
  let ended = false;
  const fail = reason => {
    stream?.free();
    stream = null;
    throw new TypeError(`not a whole brotli stream (${reason})`);
  };
  // Output can still be owed once all the input is in: the decoder is called until it asks for more input.
  const decode = (input, controller) => {
    for (let owed = true; input.length || owed; ) {
      if (ended) {
        fail('bytes after its end');
      }
      let result;
      try {
        result = stream.decompress(input, OUT_BYTES);
      } catch (error) {
        fail(error.message || error);
      }
      const { buf, code } = result;
      const used = result.input_offset;
      result.free();
      if (buf.length) {
        controller.enqueue(buf);
      }
      ended = code === glue.BrotliStreamResultCode.ResultSuccess;
      if (code === glue.BrotliStreamResultCode.NeedsMoreInput) {
        return;
      }
      owed = code === glue.BrotliStreamResultCode.NeedsMoreOutput;
      input = input.subarray(used);
    }
  };
  return new TransformStream({
    async start() {
      glue = await loadDecoder();
      stream = new glue.DecompressStream();
    },
    async transform(chunk, controller) {
      for (let at = 0; at < chunk.length; at += PIECE_BYTES) {
        decode(chunk.subarray(at, at + PIECE_BYTES), controller);
        await turn?.();
      }
    },
    flush() {
      if (!ended) {
        fail('it ended early');
      }
      stream.free();
    }
  });
}
