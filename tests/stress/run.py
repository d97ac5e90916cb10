"""`python3 build.py stress`: every scenario against the built site, one table of figures, build/stress.json,
and a non-zero exit when a guarantee breaks (docs/reliability.md)."""

import json
import logging
import random
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from jupyterlite_pyodide_webmcp.site_server import site_server
from playwright.sync_api import sync_playwright

from buildkit.env import CHROMIUM_FLAGS
from buildkit.paths import SITE

from .faults import run_faults
from .growth import run_growth
from .harness import StressPage
from .hostile import NOTEBOOKS, run_hostile
from .hostile_text import PAYLOADS, run_hostile_text
from .privacy import PRIVACY_WEIGHTS, ROBUSTNESS_WEIGHTS, run_calls
from .races import run_races
from .workspace import PrivacyWorkspace

SECTIONS = ["privacy", "robustness", "races", "hostile", "text", "faults", "growth"]


@dataclass
class Options:
    """How much of each scenario to run: the defaults are the issue's numbers."""

    privacy_calls: int = 10_000
    robustness_calls: int = 5_000
    races: int = 1_000
    hostile_scale: float = 1.0
    growth_calls: int = 10_000
    hostile_notebooks: tuple[str, ...] = tuple(NOTEBOOKS)
    text_payloads: int = len(PAYLOADS)
    trace_hostile_calls: bool = True  # each hostile call in a DevTools trace, for its longest main-thread task
    seed: int = 18  # the short run's in the default tests; build.py stress draws a fresh one unless given
    sections: Optional[list[str]] = None  # all of SECTIONS

    def __post_init__(self):
        self.sections = list(SECTIONS) if not self.sections else self.sections
        unknown = set(self.sections) - set(SECTIONS)
        if unknown:
            raise SystemExit(f"unknown sections: {sorted(unknown)}; choose from {SECTIONS}")


@dataclass
class Figure:
    section: str
    name: str
    value: Any
    target: Optional[Any] = None  # the value the guarantee demands; None for a figure that is only reported

    @property
    def broken(self) -> bool:
        return self.target is not None and self.value != self.target


@dataclass
class Report:
    figures: list[Figure] = field(default_factory=list)
    examples: dict[str, list[str]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, section: str, name: str, value: Any, target: Optional[Any] = None) -> None:
        self.figures.append(Figure(section, name, value, target))

    def keep(self, section: str, examples) -> None:
        if examples:
            self.examples.setdefault(section, []).extend(examples)

    @property
    def broken(self) -> list[Figure]:
        return [figure for figure in self.figures if figure.broken]

    def table(self) -> str:
        rows = [("section", "figure", "value", "guarantee")]
        for figure in self.figures:
            value = f"{figure.value:.1f}" if isinstance(figure.value, float) else str(figure.value)
            mark = "" if figure.target is None else (f"= {figure.target}" + ("  BROKEN" if figure.broken else ""))
            rows.append((figure.section, figure.name, value, mark))
        widths = [max(len(row[column]) for row in rows) for column in range(4)]
        lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
        lines.insert(1, "  ".join("-" * width for width in widths))
        return "\n".join(lines)

    def as_json(self) -> dict:
        return {"figures": [vars(figure) for figure in self.figures], "examples": self.examples,
                "seconds": self.seconds, "broken": [f"{f.section}: {f.name}" for f in self.broken]}


def add_tally(report: Report, section: str, tally) -> None:
    report.add(section, "calls", tally.calls)
    report.add(section, "exceptions reaching the client", tally.rejected, 0)
    report.add(section, "calls unanswered after 30 s", tally.hung, 0)
    report.add(section, "INTERNAL_ERROR", tally.internal_errors, 0)
    report.add(section, "results over their bound", tally.over_bound, 0)
    report.add(section, "results failing their output schema", tally.schema_failures, 0)
    report.add(section, "largest result (bytes)", tally.largest_bytes)
    report.keep(section, [f"{kind}: {text}" for kind, kept in tally.examples.items() for text in kept])


def privacy_section(report: Report, stress: StressPage, rng: random.Random, workspace, calls: int, fuzz: float,
                    section: str) -> None:
    weights = PRIVACY_WEIGHTS if section == "privacy" else ROBUSTNESS_WEIGHTS
    figures = run_calls(stress, rng, calls, fuzz=fuzz, weights=weights, workspace=workspace)
    add_tally(report, section, figures.tally)
    report.add(section, "tools called", len(figures.per_tool))
    if section == "privacy":
        report.add(section, "secrets found in results", figures.leaks, 0)
        report.add(section, "hidden/missing pairs compared", figures.twins)
        report.add(section, "hidden-versus-missing differences", figures.differences, 0)
        report.add(section, "edits waiting on a cell then hidden", figures.proposals_hidden)
        report.add(section, "... not withdrawn as for a deleted cell", figures.proposals_not_withdrawn, 0)
    report.keep(section, figures.examples)


def races_section(report: Report, stress: StressPage, rng: random.Random, races: int) -> None:
    figures = run_races(stress, rng, races)
    section = "races"
    report.add(section, "agent read-modify-write cycles", figures.races)
    report.add(section, "agent writes accepted / stale", f"{figures.accepted} / {figures.stale}")
    report.add(section, "other agent errors", figures.other_errors, 0)
    report.add(section, "keystrokes typed / model edits", f"{figures.keystrokes} / {figures.model_edits}")
    report.add(section, "human keystrokes lost", figures.keystrokes_lost, 0)
    report.add(section, "agent writes over a newer human edit", figures.applied_over_newer_edit, 0)
    report.add(section, "changes no accepted operation explains", figures.unexplained_changes, 0)
    report.add(section, "editor text differing from the model", figures.editor_model_mismatch, 0)
    report.keep(section, figures.examples)


def hostile_section(report: Report, stress: StressPage, browser, scale: float, names, traced: bool) -> None:
    figures = run_hostile(stress, browser, scale, names, traced)
    section = "hostile"
    for name, row in figures.notebooks.items():
        if traced:
            report.add(section, f"{name}: longest main-thread task (ms)", row["longestTaskMs"])
        report.add(section, f"{name}: slowest call (ms), largest result (bytes)",
                   f"{row['slowestCallMs']:.0f}, {row['largestBytes']}")
    add_tally(report, section, figures.tally)
    report.add(section, "page crashes", figures.crashes, 0)


class ServerTracebacks(logging.Handler):
    """The lines of the site server's log (tornado's loggers) that carry a traceback: each is a fault of the
    server, whatever the figures say."""

    def __init__(self):
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.lines.append(f"{record.getMessage()[:200]} ({record.exc_info[0].__name__})")


def run_stress(chromium: str, options: Options, output: Path) -> int:
    """Run the chosen scenarios, print the table, write `output`; the exit status (1 when a guarantee broke)."""
    tracebacks = ServerTracebacks()
    logging.getLogger("tornado").addHandler(tracebacks)
    server = site_server(0, SITE)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    report = Report()
    print(f"[stress] seed {options.seed} (python3 build.py stress --seed {options.seed} replays it)", flush=True)
    report.add("run", "seed", options.seed)
    rng = random.Random(options.seed)
    started = time.monotonic()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        for section in options.sections:
            print(f"[stress] {section}", flush=True)
            begun = time.monotonic()
            try:
                run_section(report, section, browser, origin, rng, options)
            except Exception as error:  # noqa: BLE001 - the run goes on; the table says the scenario failed
                traceback.print_exc()
                report.add(section, "scenario finished", f"no: {type(error).__name__}: {str(error)[:200]}", "yes")
            report.seconds[section] = round(time.monotonic() - begun, 1)
        browser.close()
    server.shutdown()
    logging.getLogger("tornado").removeHandler(tracebacks)
    report.add("server", "tracebacks in the server's log", len(tracebacks.lines), 0)
    report.keep("server", tracebacks.lines[:5])
    report.seconds["total"] = round(time.monotonic() - started, 1)
    print(report.table())
    print(f"wall time: {report.seconds['total']:.0f} s")
    for figure in report.broken:
        print(f"BROKEN: {figure.section}: {figure.name} = {figure.value} (must be {figure.target})")
        for example in report.examples.get(figure.section, [])[:5]:
            print("   ", example)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report.as_json(), indent=1, default=str))
    print(f"written: {output}")
    return 1 if report.broken else 0


def run_section(report: Report, section: str, browser, origin: str, rng: random.Random, options: Options) -> None:
    """One scenario in its own browser context, so one scenario's page state never explains another's figures."""
    stress = StressPage(browser, origin).open()
    try:
        run_scenario(report, section, stress, browser, rng, options)
        report.add(section, "requests leaving the origin", len(stress.foreign_requests()), 0)
        report.keep(section, stress.foreign_requests()[:5])
    finally:
        stress.close()


def run_scenario(report: Report, section: str, stress: StressPage, browser, rng: random.Random,
                 options: Options) -> None:
    if section in ("privacy", "robustness"):
        workspace = PrivacyWorkspace(stress, rng)
        workspace.setup()
        calls = options.privacy_calls if section == "privacy" else options.robustness_calls
        privacy_section(report, stress, rng, workspace, calls, 0.0 if section == "privacy" else 0.3, section)
    elif section == "races":
        races_section(report, stress, rng, options.races)
    elif section == "hostile":
        hostile_section(report, stress, browser, options.hostile_scale, options.hostile_notebooks,
                        options.trace_hostile_calls)
    elif section == "text":
        run_hostile_text(report, stress, PAYLOADS[:options.text_payloads])
    elif section == "faults":
        run_faults(report, stress)
    elif section == "growth":
        run_growth(report, stress, rng, options.growth_calls)
