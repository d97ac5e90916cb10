// The host object Python receives (`pyodide_webmcp.start(host)`), declared once, and the parts of it the
// host makes itself. py/pyodide_webmcp/host.py declares the same object for Python, under the same
// names, every key listed: change both together.
import { Dialog } from '@jupyterlab/apputils';
import { PageConfig, URLExt } from '@jupyterlab/coreutils';
import { NotebookActions } from '@jupyterlab/notebook';
import { caretDownEmptyIcon, Switch } from '@jupyterlab/ui-components';
import { Panel, TabPanel, Widget } from '@lumino/widgets';

/**
 * A cell's access entry in its metadata as the bulk reader sends it: null (no entry stored), false (a
 * damaged entry: not an object) or the entry's `access` field alone (`{}` when it has none).
 * @typedef {null | false | {access?: unknown}} AccessEntry
 */

/**
 * One cell as `Readers.cells` sends it.
 * @typedef {[id: string, cellType: string, source: string, access: AccessEntry]} CellRow
 */

/**
 * What this page can open, and links to the apps that open the rest (see adapter/lab.py).
 * @typedef {object} PageLinks
 * @property {boolean} opensNotebooks true in the lab, false on the Notebook app's page of one notebook
 * @property {(path: string) => string} notebookUrl the Notebook app's page of the notebook at `path`
 * @property {(path: string) => string} labUrl the lab, opening the notebook at `path`
 * @property {(path: string) => string} siteUrl the URL of a file of this site, `path` from its root
 */

/**
 * How the interpreter started.
 * @typedef {object} BootPath
 * @property {'snapshot' | 'plain'} path
 * @property {string | null} fallback why the snapshot was not used (null when it was, or none ships)
 */

/**
 * JupyterLab's classes Python calls (it cannot import them).
 * @typedef {object} HostClasses
 * @property {typeof import('@jupyterlab/apputils').Dialog} Dialog
 * @property {typeof import('@jupyterlab/notebook').NotebookActions} NotebookActions
 * @property {typeof import('@lumino/widgets').Widget} Widget
 * @property {typeof import('@lumino/widgets').Panel} Panel
 * @property {typeof import('@lumino/widgets').TabPanel} TabPanel
 * @property {typeof import('@jupyterlab/ui-components').Switch} Switch
 * @property {typeof import('@jupyterlab/ui-components').caretDownEmptyIcon} caretDownEmptyIcon the styled select's caret
 */

/**
 * Bulk readers: one FFI call instead of several per cell (hot on large notebooks).
 * @typedef {object} Readers
 * @property {(sharedModel: object, key: string) => string} cells every cell, as a JSON list of CellRow;
 *   `key` is the metadata key of the bridge's entry
 * @property {(sharedModel: object, indexes: string) => string} cellsJson the nbformat JSON of the cells at
 *   `indexes` (a JSON list of indexes), as a JSON list
 * @property {(sharedModel: object) => number} version a number that changes with every change to the
 *   document, unique across notebooks
 * @property {(sharedModel: object, key: string) => string} lastChanges per cell, the last entry of the
 *   provenance trail in its bridge entry (`key`), or null: a JSON list
 * @property {(notebook: object) => number[]} selectedIndexes the indexes of a Notebook widget's selected
 *   or active cells
 */

/**
 * The tools listed from the build's copy of their descriptors before Python started (prelisted.js).
 * @typedef {object} PrelistedTools
 * @property {string} digest the digest of the descriptors listed
 * @property {Record<string, AbortController>} controllers each listed tool's registration, by name
 * @property {object[]} siteTools the descriptors of the site's own tools among them (listed by the site build)
 * @property {(name: string, handler: Function) => void} serve hands the calls of tool `name` to `handler`
 * @property {() => void} release lets the calls waiting for Python go to their handlers (or be refused as
 *   unserved), before the rest of the start
 */

/**
 * The object `pyodide_webmcp.start(host)` receives: every key.
 * @typedef {object} Host
 * @property {import('@jupyterlab/application').JupyterFrontEnd} app
 * @property {import('@jupyterlab/notebook').INotebookTracker | null} tracker
 * @property {import('@jupyterlab/docmanager').IDocumentManager | null} docManager
 * @property {import('@jupyterlab/filebrowser').IDefaultFileBrowser | null} fileBrowser
 * @property {import('@jupyterlab/apputils').ICommandPalette | null} palette
 * @property {object | null} modelContext the page's WebMCP model context; null in a browser without WebMCP,
 *   where only the human's controls start (access, review, Propose mode)
 * @property {(state: 'booting' | 'ready' | 'off' | 'unavailable', text: string) => void} setStatus shows the
 *   bridge's state in its status item (and leaves a `webmcp:<state>` User Timing mark)
 * @property {PageLinks} page
 * @property {import('@jupyterlab/notebook').INotebookCellExecutor} cellExecutor the one the human's Run uses
 * @property {import('@jupyterlab/settingregistry').ISettingRegistry.ISettings | null} settings null without a
 *   settings registry or when they could not be read
 * @property {BootPath} boot
 * @property {HostClasses} classes
 * @property {Readers} readers
 * @property {PrelistedTools | null} prelisted null when the manifest has no prelisted descriptors
 */

/** @type {HostClasses} */
export const classes = { Dialog, NotebookActions, Widget, Panel, TabPanel, Switch, caretDownEmptyIcon };

/** @returns {PageLinks} */
export function pageLinks(kind) {
  const link = (app, path) =>
    `${URLExt.join(PageConfig.getBaseUrl(), app, 'index.html')}?path=${encodeURIComponent(path)}`;
  return {
    opensNotebooks: kind === 'lab',
    notebookUrl: path => link('notebooks', path),
    labUrl: path => link('lab', path),
    siteUrl: path => new URL(path, new URL(PageConfig.getBaseUrl(), location.href)).href
  };
}

/** @returns {AccessEntry} */
function accessEntry(entry) {
  if (entry === undefined) {
    return null;
  }
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    return false;
  }
  return 'access' in entry ? { access: entry.access } : {};
}

const documentVersions = new WeakMap();
let lastDocumentVersion = 0;

/** @type {Readers} */
export const readers = {
  // JSON crosses into Python faster than a deep proxy conversion.
  cells: (sharedModel, key) =>
    JSON.stringify(
      sharedModel.cells.map(
        cell => /** @type {CellRow} */ ([cell.id, cell.cell_type, cell.getSource(), accessEntry(cell.getMetadata(key))])
      )
    ),
  cellsJson: (sharedModel, indexes) => {
    const cells = sharedModel.cells;
    return JSON.stringify(JSON.parse(indexes).map(index => cells[index].toJSON()));
  },
  // Python keeps a notebook's cell list while its version stands.
  version: sharedModel => {
    if (!documentVersions.has(sharedModel)) {
      documentVersions.set(sharedModel, ++lastDocumentVersion);
      sharedModel.ydoc.on('update', () => documentVersions.set(sharedModel, ++lastDocumentVersion));
    }
    return documentVersions.get(sharedModel);
  },
  lastChanges: (sharedModel, key) =>
    JSON.stringify(
      sharedModel.cells.map(cell => {
        const entry = cell.getMetadata(key);
        const history = entry && typeof entry === 'object' && Array.isArray(entry.history) ? entry.history : [];
        return history.length ? history[history.length - 1] : null;
      })
    ),
  selectedIndexes: notebook =>
    notebook.widgets.flatMap((widget, index) => (notebook.isSelectedOrActive(widget) ? [index] : []))
};
