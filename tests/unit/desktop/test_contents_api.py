"""desktop/jupyterlite_pyodide_webmcp/contents_api.py over the real local server: the Contents API of a
folder answers the lab's requests as Jupyter Server does, and refuses every other caller."""

import base64
import json
import threading
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import pytest
from jupyterlite_pyodide_webmcp.contents_api import FolderAPI
from jupyterlite_pyodide_webmcp.site_server import site_server


@pytest.fixture
def served(tmp_path):
    site, folder = tmp_path / "site", tmp_path / "work"
    site.mkdir()
    (site / "jupyter-lite.json").write_text(json.dumps({"jupyter-config-data": {"disabledExtensions": ["x"]}}))
    folder.mkdir()
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")]), folder / "work.ipynb")
    (folder / ".git").mkdir()
    (folder / ".git" / "config").write_text("GIT-SECRET")
    (folder / ".env").write_text("TOKEN=1")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "private.txt").write_text("PRIVATE-CONTENT")
    (folder / "out").symlink_to(outside)
    (folder / "out.txt").symlink_to(outside / "private.txt")
    api = FolderAPI(folder)
    server = site_server(0, site, folder=api)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", api, folder
    server.shutdown()
    server.server_close()


def request(url, method="GET", body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data, headers or {}, method=method)) as answer:
            text = answer.read()
            return answer.status, json.loads(text) if text else None
    except urllib.error.HTTPError as failure:
        return failure.code, json.loads(failure.read() or b"null")


def lab(api):
    return {"Authorization": f"token {api.secret}"}


def test_the_lab_lists_reads_and_saves_the_folder_in_place(served):
    base, api, folder = served
    status, listing = request(f"{base}/api/contents?content=1", headers=lab(api))
    assert status == 200
    assert sorted(entry["name"] for entry in listing["content"]) == ["work.ipynb"]  # no hidden file, no link out
    status, model = request(f"{base}/api/contents/work.ipynb?type=notebook&hash=1", headers=lab(api))
    assert status == 200 and model["content"]["cells"][0]["source"] == "x = 1" and model["hash"]
    model["content"]["cells"][0]["source"] = "x = 2"
    status, saved = request(f"{base}/api/contents/work.ipynb", "PUT",
                            {"type": "notebook", "format": "json", "content": model["content"]}, lab(api))
    assert status == 200 and saved["path"] == "work.ipynb"
    on_disk = nbformat.read(folder / "work.ipynb", as_version=4)
    nbformat.validate(on_disk)
    assert on_disk.cells[0].source == "x = 2"
    (folder / "new.txt").write_text("from a script")
    _, listing = request(f"{base}/api/contents", headers=lab(api))
    assert "new.txt" in {entry["name"] for entry in listing["content"]}
    status, created = request(f"{base}/api/contents", "POST", {"type": "notebook"}, lab(api))
    assert status == 201 and (folder / created["path"]).is_file()
    status, _ = request(f"{base}/api/contents/{created['path']}", "PATCH", {"path": "renamed.ipynb"}, lab(api))
    assert status == 200 and (folder / "renamed.ipynb").is_file()
    status, checkpoint = request(f"{base}/api/contents/renamed.ipynb/checkpoints", "POST", headers=lab(api))
    assert status == 201 and checkpoint["id"]
    assert request(f"{base}/api/contents/renamed.ipynb", "DELETE", headers=lab(api))[0] == 204
    assert not (folder / "renamed.ipynb").exists()
    (folder / "runs" / "checkpoints").mkdir(parents=True)  # a folder of that name is a folder, not a route
    (folder / "runs" / "checkpoints" / "day1.ipynb").write_text((folder / "work.ipynb").read_text())
    status, model = request(f"{base}/api/contents/runs/checkpoints/day1.ipynb", headers=lab(api))
    assert status == 200 and model["path"] == "runs/checkpoints/day1.ipynb"


def test_the_site_config_mounts_the_folder_drive(served):
    base, _, _ = served
    status, config = request(f"{base}/jupyter-lite.json")
    data = config["jupyter-config-data"]
    assert status == 200 and data["webmcpContents"] == "folder"
    assert data["disabledExtensions"] == ["x", "@jupyterlite/services-extension:default-drive"]


@pytest.mark.parametrize("headers, why", [
    ({}, "secret"),
    ({"Authorization": "token wrong"}, "secret"),
    ({"Origin": "http://127.0.0.1:1"}, "127.0.0.1:1"),
    ({"Origin": "https://evil.example"}, "evil.example"),
    ({"Sec-Fetch-Site": "same-site"}, "another site"),
])
def test_a_caller_without_the_secret_or_from_elsewhere_is_refused(served, headers, why):
    base, api, _ = served
    if why != "secret":
        headers = {**lab(api), **headers}
    status, answer = request(f"{base}/api/contents/work.ipynb", headers=headers)
    assert status == 403 and why in answer["message"]


def test_a_foreign_host_header_is_refused_everywhere(served):
    base, api, _ = served
    for path in ("/api/contents/work.ipynb", "/jupyter-lite.json"):
        status, answer = request(base + path, headers={**lab(api), "Host": "rebound.example:80"})
        assert status == 403 and "rebound.example" in answer["message"]


@pytest.mark.parametrize("path", ["../outside/private.txt", "%2E%2E/outside/private.txt", "out/private.txt",
                                  "out.txt", ".git/config", ".env", "/etc/passwd"])
def test_paths_that_leave_the_folder_or_are_hidden_do_not_exist(served, path):
    base, api, folder = served
    status, answer = request(f"{base}/api/contents/{path}", headers=lab(api))
    assert status == 404 and "PRIVATE-CONTENT" not in json.dumps(answer) and "GIT-SECRET" not in json.dumps(answer)
    status, _ = request(f"{base}/api/contents/{path}", "PUT", {"type": "file", "format": "text", "content": "x"},
                        lab(api))
    assert status >= 400
    assert (Path(folder).parent / "outside" / "private.txt").read_text() == "PRIVATE-CONTENT"
    assert (folder / ".env").read_text() == "TOKEN=1"


def raw(url, headers=None):
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {})) as answer:
            return answer.status, answer.read(), answer.headers
    except urllib.error.HTTPError as failure:
        return failure.code, failure.read(), failure.headers


def test_files_are_served_raw_to_the_files_secret_only_as_sandboxed_documents(served):
    base, api, folder = served
    (folder / "plot.png").write_bytes(b"\x89PNG fake")
    (folder / "page.html").write_text("<script>steal()</script>")
    status, body, headers = raw(f"{base}/files/plot.png?token={api.files_secret}")
    assert status == 200 and body == b"\x89PNG fake" and headers["Content-Type"] == "image/png"
    assert headers["Content-Security-Policy"] == "sandbox" and headers["X-Content-Type-Options"] == "nosniff"
    status, _, headers = raw(f"{base}/files/page.html?token={api.files_secret}&download=1")
    assert status == 200 and headers["Content-Security-Policy"] == "sandbox"
    assert headers["Content-Disposition"].startswith("attachment;")
    for refused in ("plot.png", f"plot.png?token={api.secret}", "plot.png?token=guessed"):
        status, body, _ = raw(f"{base}/files/{refused}")
        assert status == 403 and b"PNG" not in body
    status, _, _ = raw(f"{base}/files/plot.png?token={api.files_secret}", {"Origin": "http://evil.example"})
    assert status == 403
    for hidden in ("out.txt", "out/private.txt", ".env", ".git/config", "../outside/private.txt"):
        status, body, _ = raw(f"{base}/files/{hidden}?token={api.files_secret}")
        assert status == 404 and b"PRIVATE-CONTENT" not in body and b"TOKEN=1" not in body
    assert request(f"{base}/api/contents/plot.png", headers={"Authorization": f"token {api.files_secret}"})[0] == 403


def test_a_large_file_uploaded_in_chunks_arrives_whole(served):
    """JupyterLab's file browser uploads a file over 1 MiB in 1 MiB chunks, numbered 1, 2, ... and -1 for the last."""
    base, api, folder = served
    parts = [bytes([number]) * 2**20 for number in range(3)]
    for chunk, part in zip((1, 2, -1), parts):
        model = {"type": "file", "format": "base64", "name": "big.bin", "chunk": chunk,
                 "content": base64.b64encode(part).decode()}
        assert request(f"{base}/api/contents/big.bin", "PUT", model, lab(api))[0] in (200, 201)
    assert (folder / "big.bin").read_bytes() == b"".join(parts)
