"""The Jupyter Contents REST API on the user's folder, for the lab this command opens and for it only.

Jupyter Server's own `FileContentsManager` does the file work (atomic writes, nbformat, checkpoints in
`.ipynb_checkpoints`, hidden files refused); this module answers its REST routes, as Jupyter Server's
contents handlers do, on the command's local server. A request is refused unless it carries the run's
secret (`Authorization: token ...`, which JupyterLab's `Drive` sends), comes from the lab's own origin and
names a path whose real location stays in the folder (SECURITY.md has the model).

The folder's files are also served raw under /files/ (images a markdown cell shows, downloads), to
requests carrying a second secret that opens nothing else, as a sandboxed document.

A save that replaces a file changed on disk since the lab read it (the human or an agent answered
JupyterLab's File Changed dialog with Overwrite) first keeps the disk's version beside it, as
`name.on-disk.ipynb`: both versions survive.
"""

import errno
import hashlib
import hmac
import json
import mimetypes
import os
import re
import secrets
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from jupyter_client.jsonutil import json_default
from jupyter_server.services.contents.filemanager import FileContentsManager
from jupyter_server.services.contents.handlers import validate_model
from tornado.web import HTTPError

API = "/api/contents"
FILES = "/files/"
TOKEN_FRAGMENT = "contents-token"  # the lab's URL carries the secret after "#", never sent to a server
FILES_FRAGMENT = "files-token"  # ... and the one for /files/, which a download URL carries
# The site's jupyter-lite.json, as served for a folder: the lab's default drive is the folder's.
LAB_CONFIG = {"jupyter-config-data": {"webmcpContents": "folder",
                                      "disabledExtensions": ["@jupyterlite/services-extension:default-drive"]}}
SAME_SITE_FETCHES = ("same-origin", "none")
CHECKPOINTS = re.compile(r"(?P<path>.+)/checkpoints(?:/(?P<checkpoint>[\w-]+))?")


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


class FolderContents(FileContentsManager):
    """Jupyter Server's file contents manager, which also treats a path whose real location leaves the folder
    (through a symlink) as absent: it is not listed, read or written."""

    def stays_inside(self, path: str) -> bool:
        root = os.path.realpath(self.root_dir)
        real = os.path.realpath(os.path.join(root, *[part for part in path.split("/") if part]))
        return real == root or real.startswith(root + os.sep)

    def mark_trusted_cells(self, nb, path=None) -> None:
        """No notebook signing: JupyterLite has no trust database, and none is written in the user's profile."""

    def check_and_sign(self, nb, path=None) -> None:
        """No notebook signing (see mark_trusted_cells)."""

    def get(self, path, content=True, type=None, format=None, require_hash=False):
        if not self.stays_inside(path):
            raise OSError(errno.EACCES, "outside the folder")  # a listing skips it; a request answers 404
        return super().get(path, content=content, type=type, format=format, require_hash=require_hash)


class Answer:
    """One HTTP answer: status, JSON body (or None), extra headers."""

    def __init__(self, status: int, body: Any = None, headers: dict[str, str] | None = None):
        self.status = status
        self.body = body
        self.headers = headers or {}

    def payload(self) -> bytes:
        return b"" if self.body is None else json.dumps(self.body, default=json_default).encode()


def error(status: int, message: str) -> Answer:
    return Answer(status, {"message": message, "reason": None})


class FolderAPI:
    """The Contents API of `root` behind one secret; `hosts` are the Host headers the server answers to."""

    def __init__(self, root: Path, *, secret: str | None = None, log: Callable[[str], None] = lambda _: None):
        self.root = Path(root).resolve()
        self.secret = secret or secrets.token_urlsafe(32)
        self.files_secret = secrets.token_urlsafe(32)
        self.manager = FolderContents(root_dir=str(self.root))
        self.lock = threading.Lock()  # one request at a time: the manager is not thread-safe
        self.hosts: set[str] = set()
        self.origins: set[str] = set()
        self.read: dict[str, str | None] = {}  # path: the digest of the file as a document last loaded or saved it
        self.log = log

    def bind(self, port: int) -> None:
        """The server's port is known: only its own Host and Origin are accepted."""
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self.origins = {f"http://{host}" for host in self.hosts}

    def lab_fragment(self) -> str:
        return f"#{TOKEN_FRAGMENT}={self.secret}&{FILES_FRAGMENT}={self.files_secret}"

    def host_refusal(self, host: str | None) -> Answer | None:
        """Every request of the server, the site's files too, must name the server itself (DNS rebinding)."""
        if host not in self.hosts:
            return error(403, f"Host {host!r} is not this server: it answers only to {sorted(self.hosts)}")
        return None

    def refusal(self, headers: Callable[[str], str | None], token: str | None = None) -> Answer | None:
        """Why a Contents API request (or with `token`, the files secret of a /files/ request) is refused."""
        origin = headers("Origin")
        if origin is not None and origin not in self.origins:
            return error(403, f"requests from {origin} are refused: only the lab's own page may use this folder")
        if headers("Sec-Fetch-Site") not in (None, *SAME_SITE_FETCHES):
            return error(403, "requests from another site are refused: only the lab's own page may use this folder")
        if token is not None:
            if not hmac.compare_digest(token.encode(), self.files_secret.encode()):
                return error(403, "this file needs the secret of this run's lab: open it from the lab")
            return None
        scheme, _, token = (headers("Authorization") or "").partition(" ")
        if scheme.lower() != "token" or not hmac.compare_digest(token.encode(), self.secret.encode()):
            return error(403, "this folder's lab needs the secret of this run: open the lab from the link the "
                         "command printed (an old link or another program does not have it)")
        return None

    def answer(self, method: str, target: str, body: bytes, headers: Callable[[str], str | None]) -> Answer:
        """The answer to a request under /api/contents, as Jupyter Server's contents handlers give it."""
        refused = self.refusal(headers)
        if refused is not None:
            return refused
        url = urlsplit(target)
        query = {name: values[-1] for name, values in parse_qs(url.query).items()}
        path = unquote(url.path[len(API):]).strip("/")
        try:
            model = json.loads(body) if body else None
        except ValueError:
            return error(400, "the body is not JSON")
        try:
            with self.lock:
                return self._route(method, path, query, model)
        except HTTPError as failure:
            return error(failure.status_code, failure.log_message or failure.reason or "refused")
        except OSError as failure:
            if failure.errno in (errno.EACCES, errno.ENOENT):
                return error(404, f"file or directory {path!r} does not exist")
            return error(500, f"{type(failure).__name__}: {failure.strerror or failure}")

    def file(self, target: str, headers: Callable[[str], str | None]) -> tuple[int, bytes, dict[str, str]]:
        """A GET under /files/: the file's bytes, as a sandboxed document (no script of it runs on this origin)."""
        url = urlsplit(target)
        query = {name: values[-1] for name, values in parse_qs(url.query).items()}
        refused = self.refusal(headers, token=query.get("token", ""))
        if refused is None:
            path = unquote(url.path[len(FILES):]).strip("/")
            with self.lock:
                found = self.manager.stays_inside(path) and not self.manager.is_hidden(path)
                target_path = self._os_path(path) if found else None
            if target_path is None or not target_path.is_file():
                refused = error(404, f"file {path!r} does not exist")
        if refused is not None:
            return refused.status, refused.payload(), {"Content-Type": "application/json"}
        kind = mimetypes.guess_type(target_path.name)[0] or "application/octet-stream"
        sent = {"Content-Type": kind, "Content-Security-Policy": "sandbox", "X-Content-Type-Options": "nosniff"}
        if query.get("download") == "1":
            sent["Content-Disposition"] = f"attachment; filename*=UTF-8''{quote(target_path.name)}"
        return 200, target_path.read_bytes(), sent

    def _route(self, method: str, path: str, query: dict[str, str], model: Any) -> Answer:
        routed = CHECKPOINTS.fullmatch(path)  # as Jupyter Server routes it: a checkpoint id is [\w-]+
        if routed:
            return self._checkpoints(method, routed["path"], routed["checkpoint"] or "")
        self._refuse_outside(path)
        manager = self.manager
        if method == "GET":
            content = query.get("content", "1")
            if content not in ("0", "1") or query.get("hash", "0") not in ("0", "1"):
                return error(400, "content and hash are 0 or 1")
            kind = query.get("type")
            if manager.is_hidden(path):
                raise HTTPError(404, f"file or directory {path!r} does not exist")
            found = manager.get(path, content=content == "1", type=kind if kind in ("directory", "notebook") else
                                ("file" if kind else None), format=query.get("format"),
                                require_hash=query.get("hash") == "1")
            validate_model(found, expect_content=content == "1", expect_hash=query.get("hash") == "1")
            if content == "1" and query.get("hash") == "1" and found["type"] != "directory":
                # a document's load (JupyterLab's saves check the file against the hash it asks for here)
                self.read[path] = digest(self._os_path(path))
            return Answer(200, found)
        if method == "PATCH":
            if not isinstance(model, dict) or not model.get("path"):
                return error(400, "the new path is missing")
            self._refuse_outside(model["path"])
            if manager.is_hidden(path) or manager.is_hidden(model["path"]):
                raise HTTPError(400, f"Cannot rename file or directory {path!r}")
            renamed = self._model(200, manager.update(model, path))
            self.read[model["path"].strip("/")] = self.read.pop(path, None)
            return renamed
        if method == "DELETE":
            if manager.is_hidden(path):
                raise HTTPError(400, f"Cannot delete file or directory {path!r}")
            manager.delete(path)
            return Answer(204)
        if method == "POST":
            if manager.file_exists(path):
                raise HTTPError(400, "Cannot POST to files, use PUT instead.")
            model = model if isinstance(model, dict) else {}
            if model.get("copy_from"):
                self._refuse_outside(model["copy_from"])
                if manager.is_hidden(path) or manager.is_hidden(model["copy_from"]):
                    raise HTTPError(400, f"Cannot copy file or directory {path!r}")
                return self._model(201, manager.copy(model["copy_from"], path))
            kind = model.get("type") if model.get("type") in ("directory", "file", "notebook") else ""
            return self._model(201, manager.new_untitled(path=path, type=kind, ext=model.get("ext", "")))
        if method == "PUT":
            if not isinstance(model, dict) or not model:
                return self._model(201, manager.new_untitled(path=path))
            if model.get("copy_from"):
                raise HTTPError(400, "Cannot copy with PUT, only POST")
            if manager.is_hidden(path):
                raise HTTPError(400, f"Cannot create file or directory {path!r}")
            if model.get("type", "") not in ("", None, "directory", "file", "notebook"):
                model["type"] = "file"
            if not manager.file_exists(path):
                created = self._model(201, manager.new(model, path))
                self.read[path] = digest(self._os_path(path))
                return created
            self._keep_changed_on_disk(path)
            saved = self._model(200, manager.save(model, path))
            if not model.get("chunk") or model.get("chunk") == -1:
                self.read[path] = digest(self._os_path(path))
            return saved
        return error(405, f"{method} is not a Contents API method")

    def _checkpoints(self, method: str, path: str, checkpoint: str) -> Answer:
        self._refuse_outside(path)
        if self.manager.is_hidden(path):
            raise HTTPError(404, f"file or directory {path!r} does not exist")
        manager = self.manager
        if not checkpoint and method == "GET":
            return Answer(200, manager.list_checkpoints(path))
        if not checkpoint and method == "POST":
            return Answer(201, manager.create_checkpoint(path))
        if checkpoint and method == "POST":
            manager.restore_checkpoint(checkpoint, path)
            return Answer(204)
        if checkpoint and method == "DELETE":
            manager.delete_checkpoint(checkpoint, path)
            return Answer(204)
        return error(405, f"{method} is not a checkpoints method")

    def _os_path(self, path: str) -> Path:
        return Path(self.manager._get_os_path(path))

    def _keep_changed_on_disk(self, path: str) -> None:
        """Before a save replaces a file that changed on disk since the lab read it, keep that version beside it."""
        target = self._os_path(path)
        if path in self.read and target.is_file() and digest(target) != self.read[path]:
            kept = beside(target, "on-disk")
            shutil.copy2(target, kept)
            self.log(f"{path} changed on disk since the lab read it, and the lab's version replaces it: the disk's "
                     f"version is kept as {kept.relative_to(self.root).as_posix()}")

    def _refuse_outside(self, path: str) -> None:
        if not self.manager.stays_inside(path):
            raise HTTPError(404, f"file or directory {path!r} does not exist")

    @staticmethod
    def _model(status: int, model: dict) -> Answer:
        validate_model(model)
        return Answer(status, model, {"Location": f"{API}/{quote(model['path'])}"})
