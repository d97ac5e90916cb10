"""The page's brotli decoder (lib/brotli.mjs), on the built site's own copy, fed in chunks of every size."""

import hashlib
import random

import brotli
import pytest

BRIDGE = "/extensions/jupyterlite-pyodide-webmcp/static/bridge/"

# In the page: the compressed bytes at `url`, fed to the decoder in `chunk`-byte pieces; the decoded bytes'
# length and SHA-256, or the error's type and message.
DECODE = """async ({ url, chunk }) => {
  const { brotliDecoding } = await import('./brotli.mjs');
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  let at = 0;
  const source = new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + chunk));
      at += chunk;
    }
  });
  try {
    const parts = [];
    const reader = source.pipeThrough(brotliDecoding()).getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value);
    const decoded = new Uint8Array(await new Blob(parts).arrayBuffer());
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', decoded));
    return { length: decoded.length, sha: [...digest].map(b => b.toString(16).padStart(2, '0')).join('') };
  } catch (error) {
    return { error: `${error.name}: ${error.message}` };
  }
}"""

ZEROS = bytes(24 << 20)  # a few compressed bytes that decode to many output pieces, as the snapshot's start
rng = random.Random(7)
MIXED = b"".join(rng.randbytes(rng.randrange(1, 300)) * rng.randrange(1, 40) for _ in range(4000))


@pytest.fixture
def decode(page, site_url):
    page.goto(site_url + BRIDGE + "manifest.json")

    def run(compressed: bytes, chunk: int) -> dict:
        page.route("**/compressed.br", lambda route: route.fulfill(status=200, body=compressed))
        return page.evaluate(DECODE, {"url": site_url + BRIDGE + "compressed.br", "chunk": chunk})
    return run


@pytest.mark.parametrize("data, chunk", [(ZEROS, 1), (ZEROS, 4093), (ZEROS, 1 << 20), (MIXED, 4093), (MIXED, 1 << 20)],
                         ids=["zeros-byte-by-byte", "zeros-4093", "zeros-whole", "mixed-4093", "mixed-1MiB"])
def test_every_chunking_decodes_to_the_same_bytes(decode, data, chunk):
    compressed = brotli.compress(data, quality=5)
    assert decode(compressed, chunk) == {"length": len(data), "sha": hashlib.sha256(data).hexdigest()}


@pytest.mark.parametrize("compressed, reason", [
    (brotli.compress(MIXED)[:-100], "it ended early"),
    (brotli.compress(b"whole") + b"more", "bytes after its end"),
    (b"<!doctype html><title>Not found</title>", ""),
], ids=["cut", "trailing", "not-brotli"])
def test_what_is_not_one_whole_brotli_stream_is_a_type_error(decode, compressed, reason):
    error = decode(compressed, 4096)["error"]
    assert error.startswith("TypeError: not a whole brotli stream (") and reason in error, error
