// The lab's default drive on a folder of the user's computer: JupyterLab's own REST client (Drive) for the
// Jupyter Contents API that the desktop command serves beside the site. Only when the site's configuration
// asks for it (webmcpContents: "folder", which the command serves); other sites keep JupyterLite's drive.
import { PageConfig } from '@jupyterlab/coreutils';
import { Drive, IDefaultDrive, ServerConnection } from '@jupyterlab/services';

const TOKEN_FRAGMENT = 'contents-token';
const TOKEN_KEY = 'jupyterlite-pyodide-webmcp:contents-token';

// The run's secret: from the link the command opened or printed (after "#", so no server log has it), kept
// for reloads and new tabs of this origin, and taken out of the address bar.
function contentsToken() {
  const found = new URLSearchParams(location.hash.slice(1)).get(TOKEN_FRAGMENT);
  if (found) {
    localStorage.setItem(TOKEN_KEY, found);
    history.replaceState(history.state, '', location.pathname + location.search);
  }
  return localStorage.getItem(TOKEN_KEY) || '';
}

const folderDrive = {
  id: 'jupyterlite-pyodide-webmcp:folder-drive',
  description: "The default drive on the desktop command's folder, read and written in place.",
  autoStart: true,
  provides: IDefaultDrive,
  activate: () =>
    new Drive({ serverSettings: ServerConnection.makeSettings({ token: contentsToken(), appendToken: false }) })
};

export const folderDrivePlugins = () =>
  PageConfig.getOption('webmcpContents') === 'folder' ? [folderDrive] : [];
