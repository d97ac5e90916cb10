"""The user's folder for the lab this command opened, and for it only: Jupyter Server's own application,
its services narrowed to the folder's contents and files, beside the lite site.

Jupyter Server does the work: its `ContentsHandler` and checkpoints handlers on /api/contents, its file
handler on /files/, its large-file contents manager (atomic writes, nbformat, checkpoints in
`.ipynb_checkpoints`, hidden files refused), its Host and Origin checks and its token. What this module adds
(SECURITY.md has the model): the run's two secrets (the lab's, `Authorization: token ...`, for the Contents
API; a second one, `?token=`, for /files/ and nothing else) and no cookie; a path whose real location leaves
the folder counts as hidden; a refusal is a 403 that says why; a request from another site is refused; /files/
serves sandboxed documents; no configuration of the user's Jupyter is read.

A save that replaces a file changed on disk since the lab read it (the human or an agent answered
JupyterLab's File Changed dialog with Overwrite) first keeps the disk's version beside it, as
`name.on-disk.ipynb`: both versions survive.
"""

import errno
import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import shutil
from collections.abc import Callable
from http.client import responses
from pathlib import Path
from typing import Optional

from jupyter_core.paths import is_hidden
from jupyter_server.auth.decorator import allow_unauthenticated
from jupyter_server.auth.identity import IdentityProvider, User
from jupyter_server.base.handlers import (
    APIHandler,
    AuthenticatedFileHandler,
    JupyterHandler,
)
from jupyter_server.serverapp import ServerApp
from jupyter_server.services.contents import handlers as contents_handlers
from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from jupyter_server.utils import url_path_join
from tornado.web import Application, HTTPError
from traitlets import Unicode, default
from traitlets.config import Config

from .gzip_copies import GzipCopies
from .site_server import SiteFiles, json_error, quiet
from .stdio import log as command_log

TOKEN_FRAGMENT = "contents-token"  # the lab's URL carries the secret after "#", never sent to a server
FILES_FRAGMENT = "files-token"  # ... and the one for /files/, which a download URL carries
# The site's jupyter-lite.json, as served for a folder: the lab's default drive is the folder's.
LAB_CONFIG = {"jupyter-config-data": {"webmcpContents": "folder",
                                      "disabledExtensions": ["@jupyterlite/services-extension:default-drive"]}}
SAME_SITE_FETCHES = (None, "same-origin", "none")
ONLY_THE_LAB = "only the lab's own page may use this folder"
NO_SECRET = ("this folder's lab needs the secret of this run: open the lab from the link the command printed (an "
             "old link or another program does not have it)")
NO_FILES_SECRET = "this file needs the secret of this run's lab: open it from the lab"


def beside(path: Path, label: str) -> Path:
    """The first free `name.<label>.ext` (then `name.<label>-2.ext`...) beside `path`."""
    for number in range(1, 1000):
        candidate = path.with_name(f"{path.stem}.{label}{'' if number == 1 else f'-{number}'}{path.suffix}")
        if not candidate.exists():
            return candidate
    raise FileExistsError(f"no free name beside {path}")


def digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


class FolderContents(AsyncLargeFileManager):
    """Jupyter Server's contents manager, which also treats a path whose real location leaves the folder
    (through a symlink) as hidden, signs no notebook (JupyterLite has no trust database, and none is written
    in the user's profile) and keeps a file changed on disk before a save replaces it."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.read: dict[str, str | None] = {}  # path: the digest of the file as a document last loaded or saved it

    @default("files_handler_class")
    def _files_handler_class_default(self):
        return FolderFiles

    def out_of_reach(self, path: str) -> bool:
        """Hidden, or out of the folder: it does not exist for the lab."""
        root = os.path.realpath(self.root_dir)
        real = os.path.realpath(os.path.join(root, *[part for part in path.split("/") if part]))
        if real != root and not real.startswith(root + os.sep):
            return True
        return is_hidden(os.path.join(root, *[part for part in path.split("/") if part]), root)

    async def is_hidden(self, path: str) -> bool:
        return self.out_of_reach(path)

    def mark_trusted_cells(self, nb, path=None) -> None:
        """No notebook signing."""

    def check_and_sign(self, nb, path=None) -> None:
        """No notebook signing."""

    async def get(self, path, content=True, type=None, format=None, require_hash=False):
        if self.out_of_reach(path):
            raise OSError(errno.EACCES, "out of reach")  # a listing skips it
        found = await super().get(path, content=content, type=type, format=format, require_hash=require_hash)
        if content and require_hash and found["type"] != "directory":
            # a document's load (JupyterLab's saves check the file against the hash it asks for here)
            self.read[path.strip("/")] = digest(self._os_path(path))
        return found

    async def save(self, model, path=""):
        path = path.strip("/")
        self._keep_changed_on_disk(path)
        saved = await super().save(model, path)
        if model.get("chunk") in (None, -1):
            self.read[path] = digest(self._os_path(path))
        return saved

    async def rename_file(self, old_path, new_path):
        await super().rename_file(old_path, new_path)
        self.read[new_path.strip("/")] = self.read.pop(old_path.strip("/"), None)

    def _os_path(self, path: str) -> Path:
        return Path(self._get_os_path(path))

    def _keep_changed_on_disk(self, path: str) -> None:
        """Before a save replaces a file that changed on disk since the lab read it, keep that version beside it."""
        target = self._os_path(path)
        if path in self.read and target.is_file() and digest(target) != self.read[path]:
            kept = beside(target, "on-disk")
            shutil.copy2(target, kept)
            self.log.warning(f"{path} changed on disk since the lab read it, and the lab's version replaces it: "
                             f"the disk's version is kept as {kept.relative_to(self.root_dir).as_posix()}")


class RunSecrets(IdentityProvider):
    """The run's two secrets, and no cookie: the lab's (`token`, sent as `Authorization: token ...`) opens the
    Contents API, `files_token` (in the query, which a download or an image URL carries) opens /files/ only.
    The site's own files need neither."""

    files_token = Unicode(config=True, help="the secret of /files/")

    def get_handlers(self) -> list:
        return []  # no login page: the secrets are the only way in

    def get_user(self, handler) -> User | None:
        if isinstance(handler, FolderFiles):
            offered, secret, refusal = handler.get_query_argument("token", ""), self.files_token, NO_FILES_SECRET
        elif isinstance(handler, APIHandler):
            scheme, _, offered = (handler.request.headers.get("Authorization") or "").partition(" ")
            offered, secret, refusal = offered if scheme.lower() == "token" else "", self.token, NO_SECRET
        else:
            return None
        if not hmac.compare_digest(offered.encode(), secret.encode()):
            raise HTTPError(403, refusal)
        return User("lab")

    def is_token_authenticated(self, handler) -> bool:
        return isinstance(handler.current_user, User)

    def should_check_origin(self, handler) -> bool:
        return True  # Jupyter Server lets the token excuse another origin; the lab's secret does not


class LabOnly(JupyterHandler):
    """Jupyter Server's own Host and Origin checks, refusing with a 403 that says why (alone, it answers a bare
    403, or 404 for an origin), and refusing a request from another site; every error in JSON."""

    def check_host(self) -> bool:
        if not super().check_host():
            raise HTTPError(403, f"Host {self.request.host!r} is not this server: it answers only to 127.0.0.1 "
                            "and localhost")
        return True

    def check_origin(self, origin_to_satisfy_tornado: str = "") -> bool:
        if self.request.headers.get("Sec-Fetch-Site") not in SAME_SITE_FETCHES:
            raise HTTPError(403, f"requests from another site are refused: {ONLY_THE_LAB}")
        if not super().check_origin():
            raise HTTPError(403, f"requests from {self.request.headers.get('Origin')} are refused: {ONLY_THE_LAB}")
        return True

    def write_error(self, status_code: int, **kwargs) -> None:
        json_error(self, status_code, **kwargs)

    def log_exception(self, typ, value, tb) -> None:
        """A refusal in one line, naming the path without its query (tornado would log the query's secret)."""
        if isinstance(value, HTTPError):
            why = value.log_message or value.reason or responses.get(value.status_code, "")
            self.log.warning(f"{value.status_code} {self.request.method} {self.request.path}: {why}")
        else:
            super().log_exception(typ, value, tb)


class InTheFolder(LabOnly):
    """A handler of the folder's paths, for which a path out of reach does not exist, whatever the method (Jupyter
    Server checks hidden paths per method, and not all of them: not a checkpoint's, not a new untitled file's)."""

    async def prepare(self) -> None:
        await super().prepare()
        self.check_origin()  # which Jupyter Server's file handler does not check
        path = self.path_kwargs.get("path") or (self.path_args or [""])[0]
        if self.contents_manager.out_of_reach(path):
            raise HTTPError(404, f"file or directory {path.strip('/')!r} does not exist")


class FolderContentsHandler(InTheFolder, contents_handlers.ContentsHandler):
    """/api/contents/PATH."""

    async def _finish_error(self, code: int, message: str) -> None:
        """Jupyter Server writes a missing file's 404 as plain text labelled JSON: JSON here, as its other errors."""
        self.set_status(code)
        await self.finish(json.dumps({"message": message, "reason": None}))


class FolderCheckpoints(InTheFolder, contents_handlers.CheckpointsHandler):
    """/api/contents/PATH/checkpoints."""


class FolderCheckpoint(InTheFolder, contents_handlers.ModifyCheckpointsHandler):
    """/api/contents/PATH/checkpoints/ID."""


CONTENTS_ROUTES = {contents_handlers.ContentsHandler: FolderContentsHandler,
                   contents_handlers.CheckpointsHandler: FolderCheckpoints,
                   contents_handlers.ModifyCheckpointsHandler: FolderCheckpoint}


class FolderFiles(InTheFolder, AuthenticatedFileHandler):
    """/files/PATH: the folder's files raw, as sandboxed documents (no script of one runs on this origin)."""

    content_security_policy = "sandbox"


class FolderSite(LabOnly, SiteFiles):
    """The site's files, to requests that name this server."""

    @allow_unauthenticated
    def get(self, path: str, include_body: bool = True):
        return super().get(path, include_body)

    @allow_unauthenticated
    def head(self, path: str):
        return super().head(path)


class FolderSiteConfig(LabOnly):
    """The site's jupyter-lite.json, with the folder's drive in place of the browser's."""

    def initialize(self, path: str) -> None:
        self.config_file = Path(path)

    @allow_unauthenticated
    def get(self) -> None:
        config = json.loads(self.config_file.read_text())
        data = config.setdefault("jupyter-config-data", {})
        for name, value in LAB_CONFIG["jupyter-config-data"].items():
            data[name] = [*data.get(name, []), *value] if isinstance(value, list) else value
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(config))


class FolderServer(ServerApp):
    """Jupyter Server with no service of its own mounted (FolderAPI mounts the contents routes, worded), no
    configuration file of the user's read (an `allow_origin` or an empty token there must not open the
    folder) and no signal handler (the command has its own)."""

    default_services = ()

    def load_config_file(self, *args, **kwargs) -> None:
        """No configuration file."""

    def init_signal(self) -> None:
        """No signal handler."""


class CommandLog(logging.Handler):
    """The server's log lines, to the command's log."""

    def __init__(self, write: Callable[[str], None]):
        super().__init__()
        self.write = write
        self.setFormatter(logging.Formatter("%(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.write(self.format(record))


class FolderAPI:
    """The folder `root` for this run's lab: its two secrets, and the application that serves it."""

    def __init__(self, root: Path, *, secret: str | None = None, log: Callable[[str], None] = command_log):
        self.root = Path(root).resolve()
        self.secret = secret or secrets.token_urlsafe(32)
        self.files_secret = secrets.token_urlsafe(32)
        self.logger = logging.Logger(f"{__name__}.{self.root.name}", logging.WARNING)
        self.logger.addHandler(CommandLog(log))

    def lab_fragment(self) -> str:
        return f"#{TOKEN_FRAGMENT}={self.secret}&{FILES_FRAGMENT}={self.files_secret}"

    def application(self, site: Path, prefix: str = "/", gzip_copies: Optional[GzipCopies] = None) -> Application:
        """Jupyter Server's application on the folder, with the site's files under `prefix`, gzipped from
        `gzip_copies` if given (made in the thread that serves it)."""
        secrets_config = Config({"RunSecrets": {"token": self.secret, "files_token": self.files_secret}})
        server = FolderServer(root_dir=str(self.root), base_url=prefix, allow_remote_access=False,
                              cookie_secret=secrets.token_bytes(32),  # unused; else written in the user's profile
                              contents_manager_class=FolderContents, identity_provider_class=RunSecrets,
                              log=self.logger, tornado_settings={"log_function": quiet}, config=secrets_config)
        server.initialize(argv=[], find_extensions=False, new_httpserver=False)
        routes = [(url_path_join(prefix, pattern), CONTENTS_ROUTES[handler])
                  for pattern, handler in contents_handlers.default_handlers if handler in CONTENTS_ROUTES]
        config_file = {"path": str(site / "jupyter-lite.json")}
        routes.append((re.escape(f"{prefix}jupyter-lite.json"), FolderSiteConfig, config_file))
        files = {"path": str(site), "gzip_copies": gzip_copies}
        routes.append((re.escape(prefix) + "(?!files/)(.*)", FolderSite, files))
        server.web_app.add_handlers(".*$", routes)
        return server.web_app
