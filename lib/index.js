// Thin host: boots a main-thread Pyodide, loads the bridge wheels shipped in
// this extension's static assets and hands Python the app. Behaviour lives in
// Python (py/webmcp_bridge); nothing here knows about tools.
import { ICommandPalette } from '@jupyterlab/apputils';
import { CodeCell } from '@jupyterlab/cells';
import { PageConfig, URLExt } from '@jupyterlab/coreutils';
import { IDocumentManager } from '@jupyterlab/docmanager';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IStatusBar } from '@jupyterlab/statusbar';
import { Widget } from '@lumino/widgets';

const PLUGIN_ID = 'jupyterlite-webmcp:bridge';
const KERNEL_PLUGIN_ID = '@jupyterlite/pyodide-kernel-extension:kernel';
const DEFAULT_PYODIDE_URL = './static/pyodide/pyodide.mjs';

function pyodideUrl() {
  const settings = JSON.parse(PageConfig.getOption('litePluginSettings') || '{}');
  const url = (settings[KERNEL_PLUGIN_ID] || {}).pyodideUrl || DEFAULT_PYODIDE_URL;
  return new URL(url, URLExt.join(PageConfig.getBaseUrl(), '/')).href;
}

function assetsUrl() {
  // The federated bundle's own public path is this extension's static folder.
  return new URL('bridge/', __webpack_public_path__).href;
}

// Bulk readers: one call instead of several FFI crossings per cell (hot on large notebooks).
const readers = {
  // JSON crosses into Python faster than a deep proxy conversion.
  cells: (sharedModel, key) =>
    JSON.stringify(
      sharedModel.cells.map(cell => [cell.id, cell.cell_type, cell.getSource(), cell.getMetadata(key)?.access ?? null])
    ),
  selectedIndexes: notebook =>
    notebook.widgets.flatMap((widget, index) => (notebook.isSelectedOrActive(widget) ? [index] : []))
};

function createStatusItem(statusBar) {
  const item = new Widget();
  item.addClass('jp-webmcp-status');
  const setStatus = (state, text) => {
    performance.mark(`webmcp:${state}`);
    item.node.dataset.state = state;
    item.node.textContent = text;
    item.node.title = text;
  };
  if (statusBar) {
    statusBar.registerStatusItem(PLUGIN_ID, { item, align: 'left', rank: 1000 });
  }
  return setStatus;
}

async function boot(handoff) {
  const manifest = await (await fetch(assetsUrl() + 'manifest.json')).json();
  const { loadPyodide } = await import(/* webpackIgnore: true */ pyodideUrl());
  const pyodide = await loadPyodide({ indexURL: new URL('./', pyodideUrl()).href });
  await pyodide.loadPackage(manifest.wheels.map(name => assetsUrl() + name));
  const bridge = pyodide.pyimport(manifest.module);
  // Python cannot import JupyterLab's classes; hand over the few it calls.
  await bridge.start({ ...handoff, classes: { CodeCell, Widget }, readers });
}

const plugin = {
  id: PLUGIN_ID,
  description: 'Serves the notebook tools to browser agents over WebMCP.',
  autoStart: true,
  requires: [INotebookTracker, IDocumentManager],
  optional: [IStatusBar, IDefaultFileBrowser, ICommandPalette],
  activate: (app, tracker, docManager, statusBar, fileBrowser, palette) => {
    const setStatus = createStatusItem(statusBar);
    if (new URLSearchParams(window.location.search).get('webmcp') === 'off') {
      setStatus('off', 'WebMCP: off (?webmcp=off)');
      return;
    }
    const modelContext = document.modelContext || navigator.modelContext;
    if (!modelContext) {
      setStatus('unavailable', 'WebMCP unavailable: this browser has no WebMCP');
      return;
    }
    setStatus('booting', 'WebMCP: booting…');
    // Never block activation: the lab works whether or not the bridge boots.
    app.restored
      .then(() => boot({ app, tracker, docManager, fileBrowser, palette, modelContext, setStatus }))
      .catch(error => {
        console.error('WebMCP bridge failed to start', error);
        const reason = String(error.message || error).trim().split('\n').pop();
        setStatus('unavailable', `WebMCP unavailable: ${reason}`);
      });
  }
};

export default plugin;
