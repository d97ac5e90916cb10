"""The local server of `jupyterlite-pyodide-webmcp serve --contents DIR`, measured as a user runs the command: the
seconds to its first answer, its memory, and its answers to what another program may send
(docs/measurements/local-server.md).

    .venv/bin/python -m tests.bench_server [--runs N] [--before DESKTOP_DIR]

--before also runs the command from another copy of desktop/ (an earlier version's, from `git archive`, with
the installed package's pyodide/ linked in) with the same installed packages, its runs taken in turn with the
installed command's.
"""

import argparse
import ast
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

from buildkit.env import CHROMIUM_FLAGS
from tests.bad_requests import bad_requests, slow_client_let_go, status_of
from tests.hostclients import code_cell, notebook
from tests.waiting import wait_until

LAB_LINK = re.compile(r"The lab: (http://127\.0\.0\.1:(\d+)/lab/index\.html#(\S+))")
READY = ".jp-webmcp-status[data-state=ready]"
DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
# What another local program tries (tests/browser/test_mcp_command.py), and what no browser sends.
REFUSALS = [("no secret", "/api/contents/work.ipynb", {}),
            ("a guessed secret", "/api/contents/work.ipynb", {"Authorization": "token guessed"}),
            ("a foreign Host", "/api/contents/work.ipynb", {"Host": "attacker.example"}),
            ("another origin", "/api/contents/work.ipynb", {"Origin": "http://evil.example"}),
            ("a path out", "/api/contents/../../etc/passwd", {}),
            (".git", "/api/contents/.git/config", {}),
            ("the lab, foreign Host", "/lab/index.html", {"Host": "attacker.example"})]


def command(source: Path | None) -> tuple[list[str], dict]:
    if source is None:
        return [str(Path(sys.executable).with_name("jupyterlite-pyodide-webmcp"))], {}
    return [sys.executable, "-m", "jupyterlite_pyodide_webmcp"], {"PYTHONPATH": str(source)}


def rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024


def answered(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status == 200
    except OSError:
        return False


def status(port: int, path: str, headers: dict) -> str:
    try:
        with urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers)):
            return "200"
    except urllib.error.HTTPError as refused:
        return str(refused.code)
    except OSError as failure:
        return f"no answer ({type(failure).__name__})"


def answer_to(port: int, request: bytes) -> str:
    asked = time.monotonic()
    answer = status_of(port, request)
    if answer is not None:
        return str(answer)
    return "nothing in 60 s: the server waits" if time.monotonic() - asked > 59 else "nothing: the connection is closed"


def answers(port: int) -> list[tuple[str, str]]:
    """What the server on `port` answers another program: the tests' refusals, then requests no browser sends."""
    ten_mb = (f"PUT /api/contents/big.txt HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 10000000\r\n"
              "\r\n").encode() + b"x" * 10_000_000
    unusual = {what: request for what, (request, _) in bad_requests(f"127.0.0.1:{port}").items()}
    unusual["a 10 MB body, no secret"] = ten_mb
    return [*((what, status(port, path, headers)) for what, path, headers in REFUSALS),
            *((what, answer_to(port, request)) for what, request in unusual.items()),
            ("one byte a second", "let go" if slow_client_let_go(port) else "held"),
            ("the lab", status(port, "/lab/index.html", {}))]


def lab_loaded(link: str, chromium: str) -> None:
    """The lab opened from the command's link, its bridge ready and the folder listed."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        page = browser.new_page()
        page.goto(link)
        page.wait_for_selector(READY, timeout=180_000)
        page.locator(".jp-DirListing-item", has_text="work.ipynb").wait_for(timeout=60_000)
        browser.close()


def one_run(source: Path | None, home: Path, folder: Path, chromium: str, with_answers: bool) -> dict:
    argv, extra = command(source)
    log = home / f"serve-{time.monotonic_ns()}.log"
    env = {"PATH": str(Path(sys.executable).parent), "HOME": str(home),
           "JUPYTERLITE_WEBMCP_CACHE": str(home / "cache"), **extra}
    started = time.monotonic()
    with log.open("wb") as output:
        process = subprocess.Popen([*argv, "serve", "--contents", str(folder), "--no-browser", "--port", "0"],
                                   stdout=output, stderr=subprocess.STDOUT, env=env)

    def printed_link():
        if process.poll() is not None:
            raise RuntimeError(f"the command ended:\n{log.read_text()[-2000:]}")
        return LAB_LINK.search(log.read_text())

    try:
        link = wait_until(printed_link, timeout=600, interval=0.02, what="the link")
        wait_until(lambda: answered(link.group(1).split("#")[0]), timeout=60, interval=0.02, what="a first answer")
        figures = {"firstAnswer": time.monotonic() - started, "rssIdle": rss_mib(process.pid)}
        lab_loaded(link.group(1), chromium)
        figures["rssServing"] = rss_mib(process.pid)
        if with_answers:
            figures["answers"] = answers(int(link.group(2)))
        figures["tracebacks"] = log.read_text().count("Traceback")
        return figures
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(60)


def server_lines(source: Path) -> str:
    """Its lines, and those of code (no docstring, comment or blank line)."""
    lines = code = 0
    for name in ("site_server.py", "contents_api.py"):
        text = (source / "jupyterlite_pyodide_webmcp" / name).read_text()
        documented = {number for node in ast.walk(ast.parse(text)) if isinstance(node, DOCUMENTED)
                      and ast.get_docstring(node) is not None
                      for number in range(node.body[0].lineno, node.body[0].end_lineno + 1)}
        lines += len(text.splitlines())
        code += sum(1 for number, line in enumerate(text.splitlines(), 1)
                    if line.strip() and not line.strip().startswith("#") and number not in documented)
    return f"{lines}, {code} of code"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", type=Path, help="a desktop/ folder of an earlier version")
    args = parser.parse_args()
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium")
    home = Path(tempfile.mkdtemp(prefix="bench-server-"))
    folder = home / "notebooks"
    folder.mkdir()
    (folder / "work.ipynb").write_text(json.dumps(notebook([code_cell("w", "w = 1")])))
    sources = [None, *([args.before] if args.before else [])]
    one_run(None, home, folder, chromium, with_answers=False)  # builds the site into the cache
    runs: dict = {source: [] for source in sources}
    for run in range(args.runs):
        for source in sources:
            runs[source].append(one_run(source, home, folder, chromium, with_answers=run == 0))
    for source in sources:
        print_runs(source, runs[source])


def print_runs(source: Path | None, runs: list[dict]) -> None:
    code = source or Path(__file__).resolve().parents[1] / "desktop"
    print(f"\n{'the installed command' if source is None else source}: serve --contents DIR, {len(runs)} runs (the "
          "site already built)\n")
    for name, label, unit in (("firstAnswer", "first answer", "s"), ("rssIdle", "memory at the first answer", "MiB"),
                              ("rssServing", "memory, the lab loaded", "MiB")):
        values = [run[name] for run in runs]
        print(f"{label:30} median {statistics.median(values):6.1f} {unit}  "
              f"(min {min(values):.1f}, max {max(values):.1f})")
    print(f"{'tracebacks in the log':30} {sum(run['tracebacks'] for run in runs)}")
    print(f"{'lines of server code':30} {server_lines(code)} (site_server.py, contents_api.py)\n")
    for what, answer in runs[0]["answers"]:
        print(f"  {what:38} {answer}")


if __name__ == "__main__":
    main()
