// The memory snapshot: what a restore downloads and puts back, and what the build-time maker records.
//
// Restore: the interpreter comes back from the memory snapshot made when the extension was built (Python
// started, bridge imported, tool schemas built); then the wheels' files are put back (the file system is not
// part of the snapshot).

// Beside this module, under the same build's version.
const version = new URL(import.meta.url).search;
const [{ versioned }, { decoded, decodedParts }, internals, { turnTaker, yieldToPage }] = await Promise.all([
  import(`./kept-files.mjs${version}`),
  import(`./offload.mjs${version}`),
  import(`./pyodide-internals.mjs${version}`),
  import(`./turns.mjs${version}`)
]);
const { fileSystem, heapUse, isOtherRuntimeBuild, loadedPackages, memorySnapshot, sitePackages, snapshotHeap, snapshotHeaderLength } =
  internals;

/** Why the snapshot cannot be used, or null when it can. `setup`: the site and its Pyodide (boot.mjs). */
export function snapshotUnusable(setup, allowSnapshot) {
  const { manifest, version: pyodideVersion } = setup;
  if (!manifest.snapshot) {
    return 'this build of jupyterlite-pyodide-webmcp ships no snapshot';
  }
  if (!setup.fits) {
    return `the site's Pyodide is ${pyodideVersion}; the snapshot was made for Pyodide ${manifest.pyodideVersion}`;
  }
  return allowSnapshot ? null : 'the URL asks for ?webmcp=plain';
}

/**
 * Begins downloading and decoding the snapshot (`inflated` resolves to its pieces, `bytes` in all) and the
 * packed files (`files`). `signal` aborts both downloads.
 */
export function fetchSnapshot(site, signal) {
  const { snapshot } = site.manifest;
  if (!!WebAssembly.Suspending !== snapshot.jspi) {
    throw new Error('snapshot was made for another stack-switching mode');
  }
  const inflated = decodedParts(versioned(site, snapshot.file), snapshot.heapBytes, signal);
  inflated.catch(() => {}); // reported through the preRun step
  const files = decoded(versioned(site, site.manifest.files), signal);
  files.catch(() => {}); // awaited once restored; a failure there falls back like any other
  return { bytes: snapshot.heapBytes, inflated, files, initialDigest: snapshot.initialDigest };
}

// The runtime's initial memory is gone over in steps of this many words (4 MiB), `between()` awaited between
// them: on a reload, its digest in one task took 65 ms.
const WORDS_PER_STEP = 1 << 20;

async function inSteps(length, between, step) {
  for (let from = 0; from < length; from += WORDS_PER_STEP) {
    if (from) {
      await between();
    }
    step(from, Math.min(from + WORDS_PER_STEP, length));
  }
}

// The snapshot ships as its heap's difference (XOR) from the runtime's memory as instantiated
// (initialMemory): the runtime's static data, where Python left it unchanged, becomes zeros, which compress to
// almost nothing (docs/boot.md). The maker makes the difference in the snapshot, and a restore undoes it in
// the heap it has copied the snapshot into, both with that memory in hand.
async function xorWords(words, initial, between) {
  if (words.length < initial.length) {
    throw new Error('the snapshot does not fit the runtime it was made with');
  }
  await inSteps(initial.length, between, (from, to) => {
    for (let at = from; at < to; at++) {
      words[at] ^= initial[at];
    }
  });
}

// Names the runtime's initial memory (FNV-1a over its words, and its length): a restore refuses a snapshot
// made against other bytes instead of starting from a spoiled heap.
async function initialDigest(initial, between) {
  let hash = 0x811c9dc5;
  await inSteps(initial.length, between, (from, to) => {
    for (let at = from; at < to; at++) {
      hash = Math.imul(hash ^ initial[at], 16777619);
    }
  });
  return `${(hash >>> 0).toString(16)}:${initial.length}`;
}

/** Bytes of the snapshot's heap copied per task (copyInto). */
const COPY_SLICE = 4 * 2 ** 20;

/** `bytes.length` bytes of `parts` (a file's pieces, in order) from `from` on, into `bytes`. */
function readParts(parts, from, bytes) {
  let at = 0;
  for (const part of parts) {
    const start = Math.max(from - at, 0);
    const end = Math.min(from + bytes.length - at, part.length);
    if (start < end) {
      bytes.set(part.subarray(start, end), at + start - from);
    }
    at += part.length;
  }
  return bytes;
}

// Frees a piece's memory now, not at a later collection: its buffer detached, when the piece is all of it.
function letGo(part) {
  if (part.byteOffset === 0 && part.length === part.buffer.byteLength) {
    try {
      part.buffer.transfer?.(0);
    } catch {
      // a buffer that cannot be detached waits for the collector
    }
  }
}

/**
 * A restore's preRun step, once the snapshot has inflated: what restoreAhead puts back, its `header` and
 * `copyInto(heap, between)`, which copies its heap in, its pieces in order, `between()` awaited every
 * COPY_SLICE bytes, undoes the difference from `initial` (the runtime's memory as instantiated), and lets
 * the pieces go. Throws when `initial` is not the memory it was made against.
 */
export async function heapToRestore(restore, initial) {
  const parts = await restore.inflated;
  if ((await initialDigest(initial, yieldToPage)) !== restore.initialDigest) {
    throw new Error("the runtime's memory is not the one the snapshot was made against");
  }
  const headerLength = snapshotHeaderLength(readParts(parts, 0, new Uint8Array(8)));
  if (headerLength > restore.bytes) {
    throw new Error("the snapshot's header is longer than the snapshot");
  }
  if (restore.bytes - headerLength < initial.byteLength) {
    throw new Error('the snapshot does not fit the runtime it was made with');
  }
  const copyInto = async (heap, between) => {
    let address = -headerLength; // where the next piece's first byte goes
    let copied = 0; // since the last turn
    for (const part of parts) {
      const skip = Math.max(-address, 0); // the header's bytes in it
      if (skip < part.length) {
        heap.set(part.subarray(skip), address + skip);
        copied += part.length - skip;
      }
      address += part.length;
      letGo(part);
      if (copied >= COPY_SLICE) {
        await between();
        copied = 0;
      }
    }
    parts.length = 0;
    await between();
    await xorWords(new Int32Array(heap.buffer, 0, initial.length), initial, between);
  };
  return { header: readParts(parts, 0, new Uint8Array(headerLength)), copyInto };
}

// Writes back the installed files of a build-time pack (see build.py pack_files), the page's turn between
// them every few tens of milliseconds (on a first visit, they took 30-80 ms).
async function writeFiles(FS, root, pack) {
  const turn = turnTaker();
  const indexLength = new DataView(pack.buffer, pack.byteOffset).getUint32(0, true);
  const entries = JSON.parse(new TextDecoder().decode(pack.subarray(4, 4 + indexLength)));
  const folders = new Set();
  let offset = 4 + indexLength;
  for (const [path, size] of entries) {
    const target = `${root}/${path}`;
    const folder = target.slice(0, target.lastIndexOf('/'));
    if (!folders.has(folder)) {
      FS.mkdirTree(folder);
      folders.add(folder);
    }
    FS.writeFile(target, pack.subarray(offset, offset + size));
    offset += size;
    await turn();
  }
}

/** After the restore: put back the files and the loaded-package records. */
export async function completeRestore(pyodide, site, { files }) {
  performance.mark('webmcp:stage:restored');
  await writeFiles(fileSystem(pyodide), sitePackages(pyodide), await files);
  Object.assign(loadedPackages(pyodide), site.manifest.snapshot.loadedPackages);
}

/** One line saying why a restore failed (a Python error's last line is the exception). */
export function restoreFailure(error) {
  const lines = String(error.message || error).trim().split('\n');
  if (isOtherRuntimeBuild(lines[0])) {
    return "the site's Pyodide is another build than the one the snapshot was made with";
  }
  return lines.pop();
}

/** Python reads JS globals through this object while the snapshot records their paths. */
export const recordedGlobals = () =>
  new Proxy({}, { get: (_, key) => globalThis[key], has: (_, key) => key in globalThis });

/** Build time only: the snapshot of an interpreter started for one, its wheels installed (`module`: the
 * bridge's), as its difference from `initial` (the runtime's memory as instantiated), and what a restore
 * needs beside it. */
export async function snapshotOf(pyodide, initial, module, heapSteps) {
  const step = label => heapSteps.push({ step: label, ...heapUse(pyodide) });
  const bridge = pyodide.pyimport(module);
  step(`import ${module}`);
  // What the start needs, one module at a time, then every built-in tool's module: no call waits for its import.
  for (const name of bridge.STARTUP_MODULES.toJs()) {
    pyodide.pyimport(name).destroy();
    step(`import ${name}`);
  }
  const tools = pyodide.pyimport(`${module}.tools`);
  for (const name of tools.MODULES.toJs()) {
    pyodide.pyimport(`${module}.tools.${name}`).destroy();
    step(`import ${module}.tools.${name}`);
  }
  tools.destroy();
  // The JS-facing layer too, so a restore starts serving without importing it. It only names page
  // globals (document, setTimeout, ...), which the snapshot records by path.
  pyodide.pyimport(`${module}.adapter`).destroy();
  step(`import ${module}.adapter`);
  bridge.destroy();
  // The installed files of the modules the snapshot holds imported: a restore writes back only the rest.
  const imported = JSON.parse(
    pyodide.runPython(`import json, sys
json.dumps([path for module in list(sys.modules.values())
            for path in (getattr(module, "__file__", None), getattr(module, "__cached__", None))
            if isinstance(path, str)])`)
  );
  const root = `${sitePackages(pyodide)}/`;
  const importedFiles = imported.filter(path => path.startsWith(root)).map(path => path.slice(root.length));
  // The bridge's own modules it holds imported.
  const bridgeModules = JSON.parse(
    pyodide.runPython(`import json, sys; json.dumps(sorted(m for m in sys.modules if m.startswith("${module}")))`)
  );
  // Loaded-package records are JS state the snapshot cannot hold; a restore puts them back.
  const loaded = {};
  const records = loadedPackages(pyodide);
  for (const [name, source] of Object.entries(records)) {
    loaded[name] = source.split('/').pop();
    delete records[name];
  }
  // Every object the snapshot holds moved out of the collector's way: a full collection of them took 55 ms
  // on the page's thread, and the start's allocations set off incremental ones; frozen, one takes 1 ms.
  pyodide.runPython('import gc; gc.collect(); gc.freeze()');
  step('collected, and the rest frozen');
  const memory = memorySnapshot(pyodide);
  step('snapshot made');
  const heap = snapshotHeap(memory);
  if (heap.byteOffset % 4) {
    throw new Error("the snapshot's heap is not on a word");
  }
  const atOnce = () => null; // the maker runs at build time: no page waits for a turn
  await xorWords(new Int32Array(heap.buffer, heap.byteOffset, heap.length >> 2), initial, atOnce);
  return {
    memory, initialDigest: await initialDigest(initial, atOnce), loadedPackages: loaded, jspi: !!WebAssembly.Suspending,
    importedFiles, bridgeModules, heapSteps
  };
}
