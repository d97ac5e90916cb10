"""desktop/jupyterlite_pyodide_webmcp/site_server.py: what the site server tells browsers to cache, the bytes it counts,
and its answers to requests no browser sends."""

import threading
import urllib.request

import pytest
from jupyterlite_pyodide_webmcp.site_server import site_server

from tests.bad_requests import bad_requests, status_of


@pytest.fixture
def served(tmp_path):
    (tmp_path / "bridge").mkdir()
    (tmp_path / "bridge" / "snapshot.br").write_bytes(b"x" * 1000)
    (tmp_path / "1031.b91a70b.js").write_text("chunk")
    (tmp_path / "manifest.json").write_text("{}")
    server = site_server(0, tmp_path)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def cache_control(url):
    with urllib.request.urlopen(url) as response:
        response.read()
        return response.headers["Cache-Control"]


def test_content_addressed_urls_are_immutable_and_the_rest_revalidated(served):
    _, base = served
    immutable = "public, max-age=31536000, immutable"
    assert cache_control(f"{base}/bridge/snapshot.br?v=0615ec3417659068") == immutable
    assert cache_control(f"{base}/1031.b91a70b.js") == immutable
    assert cache_control(f"{base}/bridge/snapshot.br") == "no-cache"
    assert cache_control(f"{base}/manifest.json") == "no-cache"


def test_the_server_counts_the_bytes_it_sends_per_path(served):
    server, base = served
    server.take_served()
    cache_control(f"{base}/bridge/snapshot.br?v=0615ec3417659068")
    served_now = server.take_served()
    assert list(served_now) == ["/bridge/snapshot.br"]
    assert 1000 < served_now["/bridge/snapshot.br"] < 1500  # the body and its headers
    assert server.take_served() == {}


@pytest.mark.parametrize("name", list(bad_requests("127.0.0.1")))
def test_a_request_no_browser_sends_is_answered_without_a_traceback(served, name, caplog):
    server, base = served
    request, status = bad_requests("127.0.0.1")[name]
    assert status_of(server.server_address[1], request) == status
    assert cache_control(f"{base}/manifest.json") == "no-cache"  # and the server goes on
    assert [record for record in caplog.records if record.exc_info] == []
