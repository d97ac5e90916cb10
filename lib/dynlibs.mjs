// The bridge's compiled extension modules (`manifest.dynlibs`, pydantic-core's): linked before the
// interpreter starts, in the snapshot maker's run and in every restore, so that their code lands at the
// same function-table indices and memory addresses that the snapshot's pointers refer to.

// Beside this module, under the same build's version.
const version = new URL(import.meta.url).search;
const [{ versioned }, { compiledModule }, { yieldToPage }, { growHeap, holdStart, linkExtensionModule }] =
  await Promise.all([
    import(`./kept-files.mjs${version}`),
    import(`./offload.mjs${version}`),
    import(`./turns.mjs${version}`),
    import(`./pyodide-internals.mjs${version}`)
  ]);

/** The extension modules, compiled. They ship in brotli (a fifth of the bytes) and kept like the snapshot;
 * each is compiled while it downloads and is decoded, off the page's main thread, beside everything else that
 * loads. */
export const compileDynlibs = (site, signal) =>
  Promise.all(
    site.manifest.dynlibs.map(async ({ file, path }) => ({
      path,
      module: await compiledModule(versioned(site, file), { compressed: true, signal })
    }))
  );

/**
 * Room left past the snapshot's heap when a restore sizes the wasm memory. The start after the restore and
 * a session's first calls allocate about 0.1-0.6 MiB more; without room, the first of those allocations
 * makes Emscripten grow the memory by its 20 % step (34 to 41 MiB), which a wasm memory never gives back.
 */
const HEAP_HEADROOM_BYTES = 2 * 2 ** 20;

/**
 * A preRun step: link the extension modules; for a restore (`heap`: the snapshot's size in `bytes`, and
 * `whole()`, which settles once it has inflated and is ready to copy in), also size the heap and wait
 * until the snapshot is in hand (it inflates while the runtime compiles). A failure goes to `failed`, and
 * the start fails with it before anything is restored.
 */
export function preloadDynlibs(dynlibs, heap, failed) {
  return Module => {
    holdStart(Module, 'webmcp-dynlibs', async () => {
      try {
        for (const { path, module } of dynlibs) {
          await linkExtensionModule(Module, path, module);
        }
        if (heap) {
          growHeap(Module, heap.bytes + HEAP_HEADROOM_BYTES);
          await heap.whole();
        }
        // The runtime starts when this step ends: in a task of its own, not after the last inflate.
        await yieldToPage();
      } catch (error) {
        failed(error);
      }
    });
  };
}
