// Thin host: boots a main-thread Pyodide, loads the bridge wheels shipped in
// this extension's static assets and hands Python the app. Behaviour lives in
// Python (py/pyodide_webmcp); nothing here knows about tools.
import './atomics-wait-async';
import { ICommandPalette } from '@jupyterlab/apputils';
import { PageConfig, URLExt } from '@jupyterlab/coreutils';
import { IDocumentManager } from '@jupyterlab/docmanager';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { INotebookCellExecutor, INotebookTracker, runCell } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStatusBar } from '@jupyterlab/statusbar';
import { Widget } from '@lumino/widgets';

import { registerPrelisted } from './prelisted.js';
import { frameNote } from './embedding.js';
import { folderDrivePlugins } from './folder-drive.js';
import { classes, pageLinks, readers } from './handoff.js';
import { likelyPageKind, pageKind, pageModelContext, urlMode, whyNotStarting } from './page-kind.js';
import { followRelay } from './relay.js';
import { loadSettings, untilEnabled } from './settings.js';
import { offerControls } from './without-webmcp.js';

// User Timing marks (DevTools' Performance panel, the benchmark): when this module is evaluated, as the
// app loads its extensions, and when the plugin activates, once the app starts them.
performance.mark('webmcp:evaluated');

const PLUGIN_ID = 'jupyterlite-pyodide-webmcp:bridge';
const KERNEL_PLUGIN_ID = '@jupyterlite/pyodide-kernel-extension:kernel';
// The kernel extension's settings schema, beside this extension: its pyodideUrl default is the
// kernel's own CDN Pyodide, used when the site configures none.
const KERNEL_SCHEMA = '../../@jupyterlite/pyodide-kernel-extension/static/schema/kernel.v0.schema.json';

// The federated bundle's own public path is this extension's static folder.
const assetsUrl = () => new URL('bridge/', __webpack_public_path__).href;

/**
 * The Pyodide the Pyodide kernel loads, resolved as the kernel resolves it: the site's pyodideUrl
 * (relative to the page, after JupyterLite rewrote "./" to the site root), else the kernel's
 * default; the folder of its files is loadPyodideOptions.indexURL if set, else pyodideUrl's.
 */
async function kernelPyodide() {
  const settings = JSON.parse(PageConfig.getOption('litePluginSettings') || '{}')[KERNEL_PLUGIN_ID] || {};
  let url = settings.pyodideUrl;
  if (!url) {
    const schema = await fetch(new URL(KERNEL_SCHEMA, __webpack_public_path__)).catch(() => null);
    if (!schema || !schema.ok) {
      throw new Error('this site has no Pyodide kernel (jupyterlite-pyodide-kernel) to share a Pyodide with');
    }
    url = (await schema.json()).properties.pyodideUrl.default;
  }
  const pyodideUrl = URLExt.parse(url).href;
  const { indexURL } = settings.loadPyodideOptions || {};
  const indexUrl = indexURL
    ? new URL(indexURL, PageConfig.getBaseUrl()).href
    : pyodideUrl.slice(0, pyodideUrl.lastIndexOf('/') + 1);
  return { pyodideUrl, indexUrl };
}

// The status item: in the status bar where the app has one (the lab), else a small fixed indicator.
function createStatusItem(app, statusBar) {
  const item = new Widget();
  item.addClass('jp-webmcp-status');
  const note = frameNote();
  const setStatus = (state, status) => {
    performance.mark(`webmcp:${state}`);
    const text = state === 'ready' ? status + note : status;
    item.node.dataset.state = state;
    item.node.textContent = text;
    item.node.title = text;
  };
  if (statusBar) {
    statusBar.registerStatusItem(PLUGIN_ID, { item, align: 'left', rank: 1000 });
  } else {
    item.addClass('jp-webmcp-indicator');
    app.started.then(() => Widget.attach(item, document.body));
  }
  return { item, setStatus };
}

// The interpreter's start, begun: the manifest, the kernel's Pyodide and the boot module, then all that the
// start loads before it needs the settings or the app (boot.mjs beginStart). `beginAgain` begins it anew
// (after a start was dropped).
function beginBoot(allowSnapshot) {
  const begun = (async () => {
    const assets = assetsUrl();
    const [{ manifest, textCompressed }, pyodide] = await Promise.all([
      // Revalidated on every load: after a redeploy it names the new build's files (see docs/deploy.md).
      fetch(assets + 'manifest.json', { cache: 'no-cache' }).then(async response => ({
        manifest: await response.json(),
        textCompressed: !!response.headers.get('Content-Encoding') // the host compresses text (boot.mjs)
      })),
      kernelPyodide()
    ]);
    const { beginStart } = await import(/* webpackIgnore: true */ `${assets}boot.mjs?v=${manifest.build}`);
    const site = { ...pyodide, assetsUrl: assets, manifest, textCompressed };
    const beginAgain = () => beginStart(site, { allowSnapshot });
    return { site, start: beginAgain(), beginAgain };
  })();
  begun.catch(() => {}); // awaited once the settings are in, unless they keep the bridge off
  return begun;
}

// Dropped when the bridge will not start after all: its downloads abort and its bytes are let go.
function drop(begun) {
  performance.mark('webmcp:stage:dropped');
  begun.then(({ start }) => start.drop(), () => {});
}

// Starts as this module is evaluated, while the app loads its other extensions and starts its plugins,
// when the page already shows that the bridge starts here; null otherwise (then it starts, if at all, when
// the plugin activates). Nothing here needs the settings: if they keep the bridge off, it is dropped.
function startEarly() {
  const kind = likelyPageKind(PLUGIN_ID);
  const mode = urlMode();
  if (!kind || whyNotStarting(kind, mode, pageModelContext())) {
    return null;
  }
  performance.mark('webmcp:stage:started-early');
  return beginBoot(mode !== 'plain');
}

// The interpreter starts before the plugin activates, beside the lab's own start (its files download
// while the settings load). The tools are listed as soon as the manifest and the settings are in
// (prelisted.js); their calls wait for Python, which starts serving once the lab is restored.
async function boot(handoff, begun, settingsLoaded) {
  const settings = await settingsLoaded;
  if (settings && settings.composite.enabled === false) {
    drop(begun);
    handoff.setStatus('off', 'WebMCP: off (settings)');
    await untilEnabled(settings);
    handoff.setStatus('booting', 'WebMCP: booting…');
    begun = begun.then(({ site, beginAgain }) => ({ site, start: beginAgain(), beginAgain }));
  }
  const { site, start } = await begun;
  const prelisted = handoff.modelContext ? registerPrelisted(handoff.modelContext, site.manifest, settings) : null;
  try {
    const { bridge, path, fallback, turn } = await start.finish();
    performance.mark('webmcp:stage:imported');
    await handoff.app.restored;
    /** @type {import('./handoff.js').Host} */
    const host = { ...handoff, settings, boot: { path, fallback }, classes, readers, prelisted: prelisted && prelisted.handoff };
    await inSteps(bridge.start(host), turn);
  } catch (error) {
    prelisted && prelisted.failed();
    throw error;
  }
}

// Runs Python's start, a generator, one step per task with the page's turn before each (the first not in the
// task that imported the bridge); resolves once what it returns (an awaitable) has.
async function inSteps(steps, turn) {
  try {
    let step;
    do {
      await turn();
      step = steps.next();
    } while (!step.done);
    const rest = step.value;
    try {
      await rest;
    } finally {
      rest.destroy();
    }
  } finally {
    steps.destroy();
  }
}

const startedEarly = startEarly();

const plugin = {
  id: PLUGIN_ID,
  description: 'Serves the notebook tools to browser agents over WebMCP.',
  autoStart: true,
  // Optional so that every app shows the status, including the REPL, which has no notebooks.
  optional: [
    INotebookTracker, IDocumentManager, IStatusBar, IDefaultFileBrowser, ICommandPalette, ISettingRegistry,
    INotebookCellExecutor
  ],
  activate: (app, tracker, docManager, statusBar, fileBrowser, palette, settingRegistry, executor) => {
    performance.mark('webmcp:activated');
    const { item, setStatus } = createStatusItem(app, statusBar);
    // Loaded whatever happens next, so the Settings Editor always shows the bridge's settings.
    const settingsLoaded = loadSettings(settingRegistry);
    const kind = pageKind(tracker, docManager);
    const mode = urlMode();
    const modelContext = pageModelContext();
    const notStarting = whyNotStarting(kind, mode, modelContext);
    const page = pageLinks(kind);
    // Agents' runs go through the cell executor the human's Run uses (JupyterLab's own when none is provided).
    const cellExecutor = executor || { runCell };
    const handoff = { app, tracker, docManager, fileBrowser, palette, modelContext, setStatus, page, cellExecutor };
    // Never block activation: the lab works whether or not the bridge boots.
    const start = begun =>
      boot(handoff, begun, settingsLoaded).catch(error => {
        console.error('WebMCP bridge failed to start', error);
        const reason = String(error.message || error).trim().split('\n').pop();
        setStatus('unavailable', `WebMCP unavailable: ${reason}`);
      });
    if (notStarting) {
      startedEarly && drop(startedEarly);
      setStatus(...notStarting);
      if (!modelContext && kind !== 'other' && mode !== 'off') {
        offerControls(item, notStarting[1], settingsLoaded, () => {
          setStatus('booting', `${notStarting[1]}; starting the access and review controls…`);
          start(beginBoot(mode !== 'plain'));
        });
      }
      return;
    }
    setStatus('booting', 'WebMCP: booting…');
    // The local relay's connector, when the settings switch it on (off by default).
    settingsLoaded.then(settings => followRelay(settings, assetsUrl()));
    start(startedEarly || beginBoot(mode !== 'plain'));
  }
};

export default [plugin, ...folderDrivePlugins()];
