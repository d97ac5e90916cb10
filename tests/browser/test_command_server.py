"""The installed command's local server, `jupyterlite-pyodide-webmcp serve --contents DIR`, asked by another program
over a plain socket: every request is answered or let go within a bound, never with a traceback in the log, and
the folder's Jupyter Server offers nothing but its contents and files, to the run's secrets only."""

import json
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.bad_requests import bad_requests, slow_client_let_go, status_of
from tests.hostclients import code_cell, notebook
from tests.terminal import FAULT_HANDLER, as_a_terminal_starts, ctrl_c
from tests.waiting import wait_until

COMMAND = Path(sys.executable).with_name("jupyterlite-pyodide-webmcp")
LAB_LINK = re.compile(r"The lab: (http://127\.0\.0\.1:(\d+)/lab/index\.html#(\S+))")


@pytest.fixture(scope="module")
def command(tmp_path_factory):
    """The command serving a folder, started as a user starts it; yields its port, secrets, folder and log."""
    home = tmp_path_factory.mktemp("home")
    folder = home / "notebooks"
    folder.mkdir()
    (folder / "work.ipynb").write_text(json.dumps(notebook([code_cell("c", "x = 1")])))
    log = home / "serve.log"
    env = {"PATH": str(COMMAND.parent), "HOME": str(home), "JUPYTERLITE_WEBMCP_CACHE": str(home / "cache"),
           **FAULT_HANDLER}
    with log.open("wb") as output:
        process = subprocess.Popen([str(COMMAND), "serve", "--contents", str(folder), "--no-browser", "--port", "0"],
                                   stdout=output, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                   preexec_fn=as_a_terminal_starts)
    try:
        link = wait_until(lambda: LAB_LINK.search(log.read_text()), timeout=600, interval=0.5,
                          what=f"the lab's link (see {log})")
        secrets = {name: values[0] for name, values in urllib.parse.parse_qs(link.group(3)).items()}
        yield int(link.group(2)), secrets, folder, log
    finally:
        ctrl_c(process, log.read_text)


def status(port: int, path: str, headers: dict | None = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})):
            return 200
    except urllib.error.HTTPError as refused:
        return refused.code


@pytest.mark.parametrize("name", list(bad_requests("127.0.0.1")))
def test_a_request_no_browser_sends_gets_its_answer(command, name):
    port, _, _, _ = command
    request, answer = bad_requests(f"127.0.0.1:{port}")[name]
    assert status_of(port, request) == answer
    assert status(port, "/lab/index.html") == 200


def test_a_10_mb_body_without_the_secret_is_refused_and_writes_nothing(command):
    port, _, folder, _ = command
    request = (f"PUT /api/contents/big.txt HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 10000000\r\n"
               "\r\n").encode() + b"x" * 10_000_000
    assert status_of(port, request) == 403
    assert not (folder / "big.txt").exists()


def test_a_slow_client_is_let_go_and_the_server_goes_on(command):
    port, _, _, _ = command
    assert slow_client_let_go(port)
    assert status(port, "/lab/index.html") == 200


@pytest.mark.parametrize("service", ["kernels", "terminals", "sessions"])
def test_nothing_but_contents_and_files_is_served(command, service):
    port, secrets, _, _ = command
    assert status(port, f"/api/{service}") == 404
    assert status(port, f"/api/{service}", {"Authorization": f"token {secrets['contents-token']}"}) == 404


def test_contents_and_files_need_the_runs_secrets(command):
    port, secrets, _, _ = command
    assert status(port, "/api/contents/work.ipynb") == 403
    assert status(port, "/api/contents/work.ipynb", {"Authorization": f"token {secrets['contents-token']}"}) == 200
    assert status(port, "/files/work.ipynb") == 403
    assert status(port, f"/files/work.ipynb?token={secrets['files-token']}") == 200


def test_no_answer_left_a_traceback_in_the_log(command):
    _, _, _, log = command
    assert "Traceback" not in log.read_text()
