// Whether the bridge starts on this page, decided twice: as the extension's module is evaluated (from the
// page's URL and configuration, to start loading early) and when the plugin activates (from what the app
// provides, which has the last word).
import { PageConfig } from '@jupyterlab/coreutils';

import { toolsRefusedByPolicy } from './embedding.js';

/** `?webmcp=` in the page's URL: 'off' (no bridge), 'plain' (no snapshot), or null. */
export const urlMode = () => new URLSearchParams(window.location.search).get('webmcp');

/** The page's WebMCP model context, or undefined where the browser offers none. */
export const pageModelContext = () => document.modelContext || navigator.modelContext;

/** The Notebook app names its page in the page's configuration: its kind, or null on any other app. */
function notebookAppKind() {
  const notebookPage = PageConfig.getOption('notebookPage');
  if (!notebookPage) {
    return null;
  }
  return notebookPage === 'notebooks' ? 'notebooks' : 'other';
}

/**
 * Which JupyterLite app this page is. The bridge serves the lab (every notebook) and the Notebook
 * app's notebook page (the one notebook it shows); the tree, editor, console and REPL pages show no
 * notebook the agent could work on, so nothing starts there.
 */
export function pageKind(tracker, docManager) {
  return notebookAppKind() || (tracker && docManager ? 'lab' : 'other');
}

/**
 * The page's kind as far as it shows before the app activates its plugins: the Notebook app's pages name
 * theirs; the lab is the page under the site's `lab/` folder (the REPL's configuration looks like the
 * lab's). Null when that cannot tell, or when the site disabled or deferred this extension's plugin.
 */
export function likelyPageKind(pluginId) {
  if (PageConfig.Extension.isDisabled(pluginId) || PageConfig.Extension.isDeferred(pluginId)) {
    return null;
  }
  const inLab = window.location.pathname.startsWith(new URL('lab/', PageConfig.getBaseUrl()).pathname);
  return notebookAppKind() || (inLab ? 'lab' : null);
}

/** Why the bridge does not start on this page, as the status says it ([state, text]), or null when it starts. */
export function whyNotStarting(kind, mode, modelContext) {
  if (kind === 'other') {
    return ['off', "WebMCP: not on this page (the agent's tools run in the lab and notebook pages)"];
  }
  if (mode === 'off') {
    return ['off', 'WebMCP: off (?webmcp=off)'];
  }
  if (!modelContext) {
    // Browsers offer WebMCP to secure contexts only: over plain http their flags change nothing.
    return [
      'unavailable',
      window.isSecureContext
        ? 'WebMCP unavailable: this browser has no WebMCP'
        : 'WebMCP unavailable: not a secure context (open the site over https or on localhost)'
    ];
  }
  // In a cross-origin iframe without allow="tools", every registration would be refused: nothing is loaded.
  return toolsRefusedByPolicy();
}
