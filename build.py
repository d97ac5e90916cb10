#!/usr/bin/env python3
"""Build, serve, document and test the JupyterLite WebMCP bridge.

    python3 build.py serve     build the demo site (when its inputs changed) and serve it on 127.0.0.1
    python3 build.py test      install what is missing, build, run every test
    python3 build.py build     build the demo site into build/site
    python3 build.py wheel     build the prebuilt wheel into dist/ (installs without Node)
    python3 build.py docs      regenerate docs/tools.md from the tool registry
    python3 build.py bench     build, then measure the bridge beside the reference (JS) in Chromium
    python3 build.py stress    build, then the stress run: the guarantees under volume, hostile content and faults
    python3 build.py shots     build both sites, then draw the human's side beside the reference's (docs/images)
    python3 build.py mcp       an MCP server on stdio for a desktop agent: the lab in a Chromium window
    python3 build.py hosts     the long runs (every client, pending results, the relay's variants, every user site)
    python3 build.py labextension   build the JupyterLab extension (used by pip install .)

Everything runs in ./.venv, created and kept in step with requirements-dev.txt
and constraints.txt on first use. Only the standard library is needed to start;
the steps themselves live in the buildkit package, imported inside the venv.
"""

import argparse
import hashlib
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "desktop"))  # the installed package's source: its browser finder, its MCP server
VENV = ROOT / ".venv"
VENV_PYTHON = VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
REQUIREMENTS = (ROOT / "requirements-dev.txt", ROOT / "constraints.txt")


def run(*command) -> None:
    print("[build] " + " ".join(str(part) for part in command), flush=True)
    subprocess.run([str(part) for part in command], check=True)


def venv_usable(venv: Path = VENV) -> bool:
    """Whether a venv's Python runs for this user: a venv copied from another user or machine, or made
    by a Python since removed, points at an interpreter that is not there or not readable."""
    config, python = venv / "pyvenv.cfg", venv / VENV_PYTHON.relative_to(VENV)
    if not (python.exists() and os.access(python, os.X_OK) and config.exists()):
        return False
    home = next((line.split("=", 1)[1].strip() for line in config.read_text().splitlines()
                 if line.split("=", 1)[0].strip() == "home"), "")
    return bool(home) and os.access(home, os.X_OK)


def enter_venv(argv: list[str]) -> None:
    """Create or refresh ./.venv, then re-run this script inside it."""
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    if VENV.exists() and not venv_usable():
        print(f"[build] {VENV} was made by another user, machine or Python: making it again", file=sys.stderr)
        shutil.rmtree(VENV)
    if not VENV_PYTHON.exists():
        run(sys.executable, "-m", "venv", VENV)
    stamp = VENV / ".requirements.sha256"
    wanted = hashlib.sha256(b"".join(path.read_bytes() for path in REQUIREMENTS)).hexdigest()
    if not stamp.exists() or stamp.read_text() != wanted:
        # No byte-compiling of every module at install (a quarter of its time): Python compiles what it imports.
        run(VENV_PYTHON, "-m", "pip", "install", "--quiet", "--no-compile", "-r", REQUIREMENTS[0], "-c", REQUIREMENTS[1])
        stamp.write_text(wanted)
    command = [str(VENV_PYTHON), str(Path(__file__).resolve()), *argv]
    if os.name != "nt":
        os.execv(VENV_PYTHON, command)
    # Windows has no exec: the venv's Python runs as a child, on the real stdout (MCP's, if build.py mcp kept it).
    from jupyterlite_pyodide_webmcp.stdio import STDOUT_FD_ENV

    kept = os.environ.pop(STDOUT_FD_ENV, None)
    sys.exit(subprocess.call(command, stdout=int(kept) if kept else None))


def found_browser():
    """The Chromium-based browser found here (CHROME_PATH, installed, or Playwright's), or None."""
    from jupyterlite_pyodide_webmcp.browser import find_browser, this_machine

    return find_browser(this_machine())


def check_wheel_browser() -> None:
    """Fail at once when `build.py wheel` cannot make the memory snapshot (before the minutes of building)."""
    from jupyterlite_pyodide_webmcp.browser import missing_browser_help, this_machine

    if found_browser() is None:
        sys.exit(f"build.py wheel: the wheel's fast start (its memory snapshot) is made in a Chromium-based "
                 f"browser. {missing_browser_help(this_machine())}\nOr pass --plain-start for a wheel whose bridge "
                 "starts without a memory snapshot (a slower first start).")


def existing_folder(text: str) -> Path:
    folder = Path(text).expanduser()
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is not a folder")
    return folder.resolve()


def test(pytest_args: list[str]) -> None:
    from buildkit.demo_site import ensure_site
    from buildkit.env import browser_for_tests

    chromium = browser_for_tests()
    ensure_site(chromium)
    # Two workers, each running whole test files (their module fixtures: one lab page per file); `-n 0` in the
    # arguments runs everything in this process.
    parallel = ["-n", "2", "--dist", "loadfile"]
    result = subprocess.run([sys.executable, "-m", "pytest", *parallel, *pytest_args], cwd=ROOT,
                            env={**os.environ, "CHROMIUM": chromium})
    sys.exit(result.returncode)


def bench(options: argparse.Namespace) -> None:
    from buildkit.demo_site import ensure_site
    from buildkit.env import browser_for_tests
    from buildkit.paths import BUILD
    from buildkit.reference import build_reference_site

    chromium = browser_for_tests()
    ensure_site(chromium)
    build_reference_site()
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "py")]
    from bench import run_benchmark
    from pyodide_webmcp.tools import BUILT_IN

    options.tools = sum(1 for tool in BUILT_IN if tool.setting is None)  # registered unless the owner opts in
    run_benchmark(chromium, options, BUILD / "bench.json")


def shots() -> None:
    from buildkit.demo_site import ensure_site
    from buildkit.env import browser_for_tests
    from buildkit.reference import build_reference_site

    chromium = browser_for_tests()
    ensure_site(chromium)
    build_reference_site()
    sys.path[:0] = [str(ROOT / "py"), str(ROOT)]
    from tests.ui_shots import take_shots

    take_shots(chromium)


def stress(args) -> None:
    from buildkit.demo_site import ensure_site
    from buildkit.env import browser_for_tests
    from buildkit.paths import BUILD

    chromium = browser_for_tests()
    if not args.no_build:
        ensure_site(chromium)
    sys.path[:0] = [str(ROOT / "py"), str(ROOT)]
    from tests.stress.hostile import NOTEBOOKS
    from tests.stress.run import Options, run_stress

    unknown = sorted(set(args.hostile_notebooks or ()) - set(NOTEBOOKS))
    if unknown:
        sys.exit(f"unknown hostile notebooks {unknown}; there are {NOTEBOOKS}")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    options = Options(privacy_calls=args.privacy_calls, robustness_calls=args.robustness_calls, races=args.races,
                      hostile_scale=args.hostile_scale, growth_calls=args.growth_calls, seed=seed,
                      sections=args.sections, hostile_notebooks=tuple(args.hostile_notebooks or NOTEBOOKS))
    sys.exit(run_stress(chromium, options, Path(args.output) if args.output else BUILD / "stress.json"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    contents_help = ("a folder of notebooks and files, read and written in place: the lab's files instead of the "
                     "demo's (see docs/connecting.md)")
    serve_parser = commands.add_parser("serve", help="build the demo site (when needed) and serve it on 127.0.0.1")
    serve_parser.add_argument("--port", type=int, default=8000)
    serve_parser.add_argument("--no-build", action="store_true", help="serve the site as last built")
    serve_parser.add_argument("--contents", type=existing_folder, metavar="DIR", help=contents_help)
    commands.add_parser("build", help="build the demo site into build/site")
    wheel_parser = commands.add_parser("wheel", help="build the prebuilt wheel into dist/ (installs without Node)")
    wheel_parser.add_argument("--plain-start", action="store_true",
                              help="no memory snapshot (no browser needed): the bridge starts slower")
    commands.add_parser("labextension", help="build the JupyterLab extension into build/labextension")
    docs_parser = commands.add_parser("docs", help="regenerate docs/tools.md and docs/tool-schemas.json")
    docs_parser.add_argument("--check", action="store_true", help="fail when docs/tools.md is stale")
    bench_parser = commands.add_parser(
        "bench", help="build both sites, then measure the bridge beside the reference in headless Chromium")
    bench_parser.add_argument("--runs", type=int, default=6, help="page loads per site, cold and warm")
    bench_parser.add_argument("--calls", type=int, default=50, help="calls per measured tool")
    bench_parser.add_argument("--private-runs", type=int, default=2,
                              help="loads per site in a private window (bytes served)")
    bench_parser.add_argument("--slow-runs", type=int, default=3,
                              help="first visits per site over an emulated 20 Mbit/s, 40 ms link")
    bench_parser.add_argument("--loads-only", action="store_true",
                              help="only the page loads (no calls, scale notebooks or characters table)")
    bench_parser.add_argument("--characters-only", action="store_true",
                              help="only the table of characters the model sees per call, per client")
    bench_parser.add_argument("--tasks-only", action="store_true",
                              help="only the three agent tasks: characters the model reads and calls, per site")
    bench_parser.add_argument("--owner-tools-only", action="store_true",
                              help="only the start of the demo beside the same site with its own tools")
    bench_parser.add_argument("--without-webmcp-only", action="store_true",
                              help="only a browser without WebMCP: the page, then the human's controls started")
    bench_parser.add_argument("--ui-only", action="store_true",
                              help="only the human's side on a large notebook: the longest task of its views")
    bench_parser.add_argument("--folder-only", action="store_true",
                              help="only the installed mcp command on a folder: first answers, a 5 MB save, refusals")
    commands.add_parser("shots", help="build both sites, then screenshots of the human's side beside the reference's "
                                      "in both themes (docs/images, build/shots), with axe-core's findings")
    stress_parser = commands.add_parser("stress", help="build, then the stress run (docs/reliability.md)")
    stress_parser.add_argument("--privacy-calls", type=int, default=10_000, help="randomized calls, every tool")
    stress_parser.add_argument("--robustness-calls", type=int, default=5_000, help="schema-fuzzed calls")
    stress_parser.add_argument("--races", type=int, default=1_000, help="agent read-modify-write cycles")
    stress_parser.add_argument("--hostile-scale", type=float, default=1.0, help="size of the hostile notebooks")
    stress_parser.add_argument("--hostile-notebooks", nargs="+", default=None, metavar="NAME",
                               help="some hostile notebooks (text-100MB image-20MB ...; default: all)")
    stress_parser.add_argument("--growth-calls", type=int, default=10_000, help="calls between memory readings")
    stress_parser.add_argument("--seed", type=int, default=None,
                               help="replay a run (default: a fresh one, printed first)")
    stress_parser.add_argument("--sections", nargs="+", default=None, metavar="SECTION",
                               help="privacy robustness races hostile text faults growth (default: all)")
    stress_parser.add_argument("--no-build", action="store_true", help="use the existing build/site")
    stress_parser.add_argument("--output", help="where the figures go (default: build/stress.json)")
    commands.add_parser("test", help="install what is missing, build, run all tests (extra arguments go to pytest)")
    commands.add_parser("hosts", help="the long test runs: every client, every user site (extra arguments go to pytest)")
    mcp_parser = commands.add_parser(
        "mcp", help="MCP server on stdio for a desktop host: builds if needed, serves the site, drives Chromium")
    mcp_parser.add_argument("--port", type=int, default=8000, help="port of the site (another one when taken)")
    shown = mcp_parser.add_mutually_exclusive_group()
    shown.add_argument("--headless", action="store_true", default=None, help="no browser window")
    shown.add_argument("--headed", dest="headless", action="store_false", help="a window even without a display")
    mcp_parser.add_argument("--isolated", action="store_true",
                            help="a fresh in-memory browser profile (default: one kept in .cache/)")
    mcp_parser.add_argument("--contents", type=existing_folder, metavar="DIR", help=contents_help)
    args, extra = parser.parse_known_args()
    if extra and args.command not in ("test", "hosts"):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")

    if args.command == "mcp":
        from jupyterlite_pyodide_webmcp.stdio import keep_stdout_for_mcp

        keep_stdout_for_mcp()  # stdout carries MCP only, from here on and after the re-exec
    if args.command == "wheel" and not args.plain_start:
        check_wheel_browser()
    enter_venv(sys.argv[1:])
    from jupyterlite_pyodide_webmcp import site_server

    from buildkit import demo_site, docs, site  # inside the venv from here on
    from buildkit.snapshot import plain_start_requested

    if args.command == "serve":
        browser = None if args.no_build else found_browser()
        prepare = (lambda: demo_site.SITE) if args.no_build else (lambda: demo_site.ensure_site(browser))
        if args.contents:
            from jupyterlite_pyodide_webmcp.cli import serve_folder
            from jupyterlite_pyodide_webmcp.contents_api import FolderAPI

            serve_folder(site=demo_site.SITE, prepare_site=prepare, folder=FolderAPI(args.contents, log=print), port=args.port,
                         open_browser=False)
        else:
            site_server.serve(args.port, prepare())
    elif args.command == "build":
        demo_site.build_demo_site(found_browser())
    elif args.command == "wheel":
        site.build_wheel(None if args.plain_start else found_browser())
    elif args.command == "labextension":
        site.build_labextension(plain_start=plain_start_requested(os.environ))
    elif args.command == "docs":
        docs.write_docs(args.check)
    elif args.command == "bench":
        bench(args)
    elif args.command == "stress":
        stress(args)
    elif args.command == "shots":
        shots()
    elif args.command == "test":
        test(extra)
    elif args.command == "hosts":
        test(["-m", "hosts_long", "tests/browser", *extra])
    elif args.command == "mcp":
        from buildkit import mcp

        sys.exit(mcp.run(args.port, headless=args.headless, isolated=args.isolated, contents=args.contents))


if __name__ == "__main__":
    main()
