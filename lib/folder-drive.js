// The lab's default drive on a folder of the user's computer: JupyterLab's own REST client (Drive) for the
// Jupyter Contents API that the desktop command serves beside the site. Only when the site's configuration
// asks for it (webmcpContents: "folder", which the command serves); other sites keep JupyterLite's drive.
import { PageConfig } from '@jupyterlab/coreutils';
import { Drive, IDefaultDrive, ServerConnection } from '@jupyterlab/services';

const FRAGMENTS = ['contents-token', 'files-token'];
const KEY = 'jupyterlite-pyodide-webmcp:';

// The run's secrets: from the link the command opened or printed (after "#", so no server log has them),
// kept for reloads and new tabs of this origin, and taken out of the address bar. The second one opens only
// /files/ (the folder's files, raw), so the download URLs that carry it open nothing else.
function runSecrets() {
  const given = new URLSearchParams(location.hash.slice(1));
  if (FRAGMENTS.every(name => given.get(name))) {
    FRAGMENTS.forEach(name => localStorage.setItem(KEY + name, given.get(name)));
    history.replaceState(history.state, '', location.pathname + location.search);
  }
  return FRAGMENTS.map(name => localStorage.getItem(KEY + name) || '');
}

class FolderDrive extends Drive {
  constructor(filesToken, options) {
    super(options);
    this._filesToken = filesToken;
  }

  async getDownloadUrl(localPath) {
    const url = new URL(await super.getDownloadUrl(localPath), location.href);
    url.searchParams.set('token', this._filesToken);
    return url.href;
  }
}

const folderDrive = {
  id: 'jupyterlite-pyodide-webmcp:folder-drive',
  description: "The default drive on the desktop command's folder, read and written in place.",
  autoStart: true,
  provides: IDefaultDrive,
  activate: () => {
    const [token, filesToken] = runSecrets();
    return new FolderDrive(filesToken, {
      serverSettings: ServerConnection.makeSettings({ token, appendToken: false })
    });
  }
};

export const folderDrivePlugins = () =>
  PageConfig.getOption('webmcpContents') === 'folder' ? [folderDrive] : [];
