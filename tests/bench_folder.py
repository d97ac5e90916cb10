"""The bench's folder section: the installed `jupyterlite-pyodide-webmcp mcp --contents DIR`, as a host starts
it, on folders of the user's: the seconds to its first answer (a first run, a later one, another folder), the
time an agent's save of a 5 MB notebook takes to reach the disk, and what another local program is answered."""

import json
import re
import statistics
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.hostclients import McpClient, McpHost, code_cell, notebook
from tests.waiting import wait_until

BIG_MB = 5


def command() -> str:
    return str(Path(sys.executable).with_name("jupyterlite-pyodide-webmcp"))


def big_notebook(megabytes: int) -> dict:
    """`megabytes` of text outputs over 50 cells, as a notebook after a long analysis."""
    text = ("row, value, note\n" * 4096)[: megabytes * 2**20 // 50]
    cells = [code_cell(f"c{index}", f"print(part_{index})", [{"output_type": "stream", "name": "stdout",
                                                               "text": text}], index + 1) for index in range(50)]
    return notebook([code_cell("small", "x = 1"), *cells])


def first_answer(cache: Path, folder: Path, chromium: str) -> tuple[McpHost, McpClient, float]:
    env = {"PATH": str(Path(sys.executable).parent), "HOME": str(cache.parent), "CHROME_PATH": chromium,
           "JUPYTERLITE_WEBMCP_CACHE": str(cache)}
    cache.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    host = McpHost(command(), ["mcp", "--contents", str(folder), "--port", "0", "--headless"],
                   cache.parent / f"{folder.name}-{time.monotonic_ns()}.log", env).start(300)
    client = McpClient(host)
    wait_until(lambda: not client.call("jupyter_get_context").client_error, timeout=300, interval=0.25,
               what="a first answer")
    return host, client, time.monotonic() - started


def timed_save(client: McpClient, folder: Path) -> float:
    read = client.call("jupyter_get_cells", {"notebookPath": "big.ipynb", "cellIds": ["small"]}).payload
    assert "cells" in read, read
    cell = read["cells"][0]
    client.call("jupyter_update_cell", {"notebookPath": "big.ipynb", "cellId": "small", "source": f"x = {time.monotonic_ns()}",
                                        "expectedSourceHash": cell["sourceHash"]})
    started = time.monotonic()
    saved = client.call("jupyter_save_notebook", {"notebookPath": "big.ipynb"}, timeout=120).payload
    seconds = time.monotonic() - started
    assert saved["saved"] is True, saved
    return seconds


def refusals(port: int) -> list[tuple[str, int, str]]:
    answers = []
    for what, path, headers in [
        ("no secret", "/api/contents/big.ipynb", {}),
        ("a guessed secret", "/api/contents/big.ipynb", {"Authorization": "token guessed"}),
        ("a foreign Host", "/api/contents/big.ipynb", {"Host": "attacker.example"}),
        ("another origin", "/api/contents/big.ipynb", {"Origin": "http://evil.example"}),
        ("a path out", "/api/contents/../../etc/passwd", {}),
        (".git", "/api/contents/.git/config", {}),
    ]:
        try:
            urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers))
            answers.append((what, 200, "answered"))
        except urllib.error.HTTPError as refused:
            answers.append((what, refused.code, json.loads(refused.read())["message"]))
    return answers


def measure_folder(chromium: str, runs: int) -> dict:
    root = Path(tempfile.mkdtemp(prefix="bench-folder-"))
    cache, first, other = root / "cache", root / "notebooks", root / "other-notebooks"
    for folder in (first, other):
        folder.mkdir()
        (folder / "work.ipynb").write_text(json.dumps(notebook([code_cell("w", "w = 1")])))
    (first / "big.ipynb").write_text(json.dumps(big_notebook(BIG_MB)))
    figures: dict = {"firstRun": [], "laterRun": [], "otherFolder": [], "saveSeconds": []}
    for run in range(runs):
        run_cache = cache / str(run)
        host, _, seconds = first_answer(run_cache, first, chromium)
        host.close()
        figures["firstRun"].append(seconds)
        host, client, seconds = first_answer(run_cache, first, chromium)
        figures["laterRun"].append(seconds)
        opened = client.call("jupyter_open_notebook", {"path": "big.ipynb"}, timeout=120).payload
        assert "notebook" in opened, opened
        figures["saveSeconds"].extend(timed_save(client, first) for _ in range(3))
        if run == 0:
            log = host.errlog_path.read_text()
            figures["refusals"] = refusals(int(re.search(r"the lab at http://127\.0\.0\.1:(\d+)/", log).group(1)))
        host.close()
        host, _, seconds = first_answer(run_cache, other, chromium)
        host.close()
        figures["otherFolder"].append(seconds)
    figures["bigFileMiB"] = (first / "big.ipynb").stat().st_size / 2**20
    return figures


def print_folder(figures: dict, runs: int) -> None:
    print(f"\nThe installed command on a folder ({runs} runs, each with an empty cache)\n")
    for name, label in (("firstRun", "first answer, first run (site built)"),
                        ("laterRun", "first answer, a later run"),
                        ("otherFolder", "first answer, another folder (no build)")):
        values = figures[name]
        print(f"{label:44} median {statistics.median(values):5.1f} s  (min {min(values):.1f}, max {max(values):.1f})")
    saves = figures["saveSeconds"]
    label = f"save of a {figures['bigFileMiB']:.1f} MiB notebook, to disk"
    print(f"{label:44} median "
          f"{statistics.median(saves):5.2f} s  (min {min(saves):.2f}, max {max(saves):.2f}, {len(saves)} saves)")
    print("\nAnother local program asking for the folder:")
    for what, status, message in figures["refusals"]:
        print(f"  {what:18} {status}  {message}")
