"""The stress run's short version (python3 build.py stress is the long one, docs/reliability.md): the same
scenarios with a few hundred calls, on one page, every guarantee asserted."""

import random

import pytest

from tests.stress.harness import StressPage
from tests.stress.hostile import NOTEBOOKS
from tests.stress.run import Options, Report, privacy_section, run_scenario
from tests.stress.workspace import PrivacyWorkspace

# About a minute in all: the notebooks whose content is hostile rather than big, their calls untraced (the
# longest task is a figure of the long run), and the first 5 payloads (a script, an event handler, a
# javascript: link, both image beacons)
SHORT = Options(privacy_calls=100, robustness_calls=100, races=10, hostile_scale=0.01,
                hostile_notebooks=("nested-json", "ansi-control", "lone-surrogates"), text_payloads=5,
                trace_hostile_calls=False)


@pytest.fixture(scope="module")
def stress(browser, site_url):
    page = StressPage(browser, site_url).open()
    yield page
    page.close()


def assert_kept(report: Report, stress: StressPage) -> None:
    broken = [f"{figure.section}: {figure.name} = {figure.value}" for figure in report.broken]
    assert not broken, (broken, report.examples)
    assert stress.foreign_requests() == []


def test_random_and_fuzzed_calls_leak_nothing_and_keep_every_bound(stress):
    report, rng = Report(), random.Random(SHORT.seed)
    workspace = PrivacyWorkspace(stress, rng)
    workspace.setup()
    privacy_section(report, stress, rng, workspace, SHORT.privacy_calls, 0.0, "privacy")
    privacy_section(report, stress, rng, workspace, SHORT.robustness_calls, 0.3, "robustness")
    assert_kept(report, stress)
    compared = next(figure.value for figure in report.figures if figure.name == "hidden/missing pairs compared")
    assert compared > 10  # the run does name hidden things


@pytest.mark.parametrize("section", ["races", "hostile", "text"])
def test_scenario_keeps_its_guarantees(stress, browser, section):
    report = Report()
    run_scenario(report, section, stress, browser, random.Random(SHORT.seed), SHORT)
    assert_kept(report, stress)
    if section == "hostile":
        shown = {name for name in NOTEBOOKS if any(f.name.startswith(name) for f in report.figures)}
        assert shown == set(SHORT.hostile_notebooks)
