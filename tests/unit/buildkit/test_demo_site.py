"""buildkit/demo_site.py: when the demo site, and a site with a contents folder, are rebuilt: the inputs each is built from."""

import os

import pytest

from buildkit import demo_site, site


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A checkout in tmp_path whose builds are recorded instead of run."""
    for name in ("py/a.py", "lite/static/big.whl", "py/__pycache__/a.pyc", "tests/t.py", "package.json"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("1")
    build = tmp_path / "build"
    monkeypatch.setattr(demo_site, "ROOT", tmp_path)
    monkeypatch.setattr(demo_site, "SITE_SOURCES", ("py", "lite", "package.json"))
    monkeypatch.setattr(demo_site, "SITE", build / "site")
    monkeypatch.setattr(demo_site, "SOURCES_STAMP", build / "site.sources.sha256")
    monkeypatch.setattr(demo_site, "CONTENTS_SITES", build / "contents")
    builds = []

    def build_site(browser):
        builds.append(("demo", browser))
        (build / "site").mkdir(parents=True, exist_ok=True)
        (build / "site" / "index.html").write_text("")

    def lite_build(output, contents):
        builds.append(("contents", contents))
        output.mkdir(parents=True, exist_ok=True)
        (output / "index.html").write_text("")

    monkeypatch.setattr(site, "build_site", build_site)
    monkeypatch.setattr(site, "lite_build", lite_build)
    return tmp_path, builds


def test_the_site_digest_follows_its_sources_only(checkout):
    root, _ = checkout
    first = demo_site.site_digest(snapshot=True)
    for ignored in ("lite/static/big.whl", "py/__pycache__/a.pyc", "tests/t.py"):
        (root / ignored).write_text("2")
        assert demo_site.site_digest(snapshot=True) == first, ignored
    (root / "py/a.py").write_text("2")
    assert demo_site.site_digest(snapshot=True) != first


def test_a_site_built_without_a_browser_is_rebuilt_once_one_is_found(checkout):
    """`build.py build` run before a browser was installed must not lock in a site without the fast start."""
    _, builds = checkout
    demo_site.ensure_site(None)
    demo_site.ensure_site(None)
    assert builds == [("demo", None)]
    assert demo_site.site_is_current(snapshot=False) and not demo_site.site_is_current(snapshot=True)
    demo_site.ensure_site("/usr/bin/chromium")
    demo_site.ensure_site("/usr/bin/chromium")
    assert builds == [("demo", None), ("demo", "/usr/bin/chromium")]


def test_a_contents_folder_gets_its_own_site_rebuilt_when_its_files_or_the_sources_change(checkout, tmp_path_factory):
    root, builds = checkout
    mine = tmp_path_factory.mktemp("my-notebooks")
    (mine / "analysis.ipynb").write_text("{}")
    served = demo_site.ensure_site("chromium", mine)
    assert served == demo_site.contents_site(mine) and served.parent.parent == root / "build" / "contents"
    assert served.parent.name.startswith("my-notebooks")
    assert builds == [("demo", "chromium"), ("contents", mine)]
    assert demo_site.ensure_site("chromium", mine) == served and len(builds) == 2

    (mine / "data").mkdir()
    (mine / "data" / "new.csv").write_text("a,b\n")
    demo_site.ensure_site("chromium", mine)
    assert builds[2:] == [("contents", mine)]
    stat = (mine / "analysis.ipynb").stat()
    os.utime(mine / "analysis.ipynb", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # edited
    demo_site.ensure_site("chromium", mine)
    assert builds[3:] == [("contents", mine)]

    (root / "py/a.py").write_text("changed")
    demo_site.ensure_site("chromium", mine)
    assert builds[4:] == [("demo", "chromium"), ("contents", mine)]
    assert demo_site.ensure_site("chromium") == demo_site.SITE and len(builds) == 6  # the demo is current too


def test_each_contents_folder_has_its_own_site(tmp_path):
    (tmp_path / "a" / "work").mkdir(parents=True)
    (tmp_path / "b" / "work").mkdir(parents=True)
    assert demo_site.contents_site(tmp_path / "a" / "work") != demo_site.contents_site(tmp_path / "b" / "work")
    assert demo_site.contents_key(tmp_path / "a" / "work") == demo_site.contents_key(tmp_path / "a" / ".." / "a" / "work")
