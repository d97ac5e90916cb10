"""Where the sources, the caches and the build outputs live."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build"
DIST = ROOT / "dist"
CACHE = ROOT / ".cache"
LABEXTENSION = BUILD / "labextension"
BRIDGE_ASSETS = LABEXTENSION / "static" / "bridge"
SITE = BUILD / "site"
SITE_BRIDGE_ASSETS = SITE / "extensions" / "jupyterlite-pyodide-webmcp" / "static" / "bridge"
LITE = ROOT / "lite"
SITE_PYODIDE = LITE / "static" / "pyodide"
NPM_PYODIDE = ROOT / "node_modules" / "pyodide"
BRIDGE_SOURCE = ROOT / "py"
# The local relay's browser side (lib/relay.js), in static/bridge/relay/: the page of the lab's hidden frame,
# and the npm package's embed and widget with its licence.
NPM_RELAY = ROOT / "node_modules" / "@mcp-b" / "webmcp-local-relay"
RELAY_FILES = {
    "connector.html": ROOT / "lib" / "relay-connector.html",
    "connector.js": ROOT / "lib" / "relay-connector.js",
    "embed.js": NPM_RELAY / "dist" / "browser" / "embed.js",
    "widget.html": NPM_RELAY / "dist" / "browser" / "widget.html",
    "LICENSE": NPM_RELAY / "LICENSE",
}
# The brotli decoder the page runs (lib/brotli.mjs), in static/bridge/brotli/, with its licence.
NPM_BROTLI = ROOT / "node_modules" / "brotli-dec-wasm"
BROTLI_FILES = {
    "brotli_dec_wasm.js": NPM_BROTLI / "pkg" / "brotli_dec_wasm.js",
    "brotli_dec_wasm_bg.wasm": NPM_BROTLI / "pkg" / "brotli_dec_wasm_bg.wasm",
    "LICENSE": NPM_BROTLI / "LICENSE-MIT.txt",
}
# Loaded at run time from the extension's static/bridge/, not bundled: boot.mjs and the modules it loads
# beside it, its worker's included (every lib/*.mjs).
BRIDGE_SCRIPTS = tuple(sorted((ROOT / "lib").glob("*.mjs")))

STDLIB_ZIP = "python_stdlib.zip"
FILES_PACK = "site-packages.pack.br"  # the installed files a restore writes back (site.py pack_files)
STEPPED_RUNTIME = "pyodide.asm.stepped.mjs"  # Pyodide's module factory, its linking in steps (site.py)
PYODIDE_CORE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", STDLIB_ZIP)
