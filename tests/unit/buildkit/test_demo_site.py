"""buildkit/demo_site.py: when the demo site is rebuilt: the inputs it is built from."""


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
    builds = []

    def build_site(browser):
        builds.append(("demo", browser))
        (build / "site").mkdir(parents=True, exist_ok=True)
        (build / "site" / "index.html").write_text("")

    monkeypatch.setattr(site, "build_site", build_site)
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
