"""desktop/jupyterlite_pyodide_webmcp/gzip_copies.py and the site server's gzipped answers: text and
WebAssembly gzipped to a browser that accepts it, everything else and every range sent as it is."""

import gzip
import os
import threading
import urllib.error
import urllib.request

import pytest
from jupyterlite_pyodide_webmcp.gzip_copies import (
    MADE_AT_START,
    GzipCopies,
    accepts_gzip,
    gzip_copies_of,
)
from jupyterlite_pyodide_webmcp.site_server import site_server

RUNTIME = bytes(range(256)) * 4096  # 1 MiB that compresses, as WebAssembly does
SNAPSHOT = os.urandom(4096)


@pytest.fixture
def site(tmp_path):
    (tmp_path / "lab").mkdir()
    (tmp_path / "lab" / "index.html").write_text("<html>" + "lab " * 1000 + "</html>")
    (tmp_path / "pyodide.asm.wasm").write_bytes(RUNTIME)
    (tmp_path / "snapshot.gz").write_bytes(SNAPSHOT)
    (tmp_path / "tiny.json").write_text("{}")
    return tmp_path


def serving(site, compress=True):
    server = site_server(0, site, compress=compress)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def base(site):
    server, base = serving(site)
    yield base
    server.shutdown()


def fetch(url, **headers):
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as response:
        return response.read(), response.headers


@pytest.mark.parametrize("header, accepted", [
    ("gzip, deflate, br, zstd", True), ("GZIP", True), ("br;q=1.0, gzip;q=0.8", True), ("gzip;q=0", False),
    ("gzip;q=0.000", False), ("gzip;q=nonsense", False), ("deflate, br", False), ("", False),
    ("x-gzip", False)])
def test_what_an_accept_encoding_header_allows(header, accepted):
    assert accepts_gzip(header) is accepted


def test_webassembly_and_text_go_gzipped_to_a_browser_that_accepts_it(base):
    body, headers = fetch(f"{base}/pyodide.asm.wasm", **{"Accept-Encoding": "gzip, deflate, br"})
    assert headers["Content-Encoding"] == "gzip" and headers["Vary"] == "Accept-Encoding"
    assert headers["Content-Type"] == "application/wasm"
    assert int(headers["Content-Length"]) == len(body) < len(RUNTIME) // 10
    assert gzip.decompress(body) == RUNTIME
    assert "Accept-Ranges" not in headers
    page, headers = fetch(f"{base}/lab/", **{"Accept-Encoding": "gzip"})
    assert headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(page).startswith(b"<html>lab ")


def test_the_rest_goes_as_it_is(base):
    for path, headers, expected in [
        ("pyodide.asm.wasm", {}, RUNTIME),  # not accepted
        ("pyodide.asm.wasm", {"Accept-Encoding": "gzip;q=0"}, RUNTIME),
        ("snapshot.gz", {"Accept-Encoding": "gzip"}, SNAPSHOT),  # already compressed
        ("tiny.json", {"Accept-Encoding": "gzip"}, b"{}"),  # smaller than a gzip header would save
    ]:
        body, answer = fetch(f"{base}/{path}", **headers)
        assert body == expected and answer["Content-Encoding"] is None, path


def test_a_range_gets_the_plain_files_bytes(base):
    body, headers = fetch(f"{base}/pyodide.asm.wasm", **{"Accept-Encoding": "gzip", "Range": "bytes=256-511"})
    assert body == RUNTIME[256:512] and headers["Content-Encoding"] is None
    assert headers["Content-Range"] == f"bytes 256-511/{len(RUNTIME)}"


def test_each_encoding_has_its_own_etag_and_revalidates(base):
    _, gzipped = fetch(f"{base}/pyodide.asm.wasm", **{"Accept-Encoding": "gzip"})
    _, plain = fetch(f"{base}/pyodide.asm.wasm")
    assert gzipped["ETag"] != plain["ETag"]
    with pytest.raises(urllib.error.HTTPError) as answer:
        fetch(f"{base}/pyodide.asm.wasm", **{"Accept-Encoding": "gzip", "If-None-Match": gzipped["ETag"]})
    assert answer.value.code == 304


def test_a_changed_file_gets_a_new_copy(site, base):
    fetch(f"{base}/pyodide.asm.wasm", **{"Accept-Encoding": "gzip"})
    (site / "pyodide.asm.wasm").write_bytes(RUNTIME[::-1] + b"more")
    body, _ = fetch(f"{base}/pyodide.asm.wasm", **{"Accept-Encoding": "gzip"})
    assert gzip.decompress(body) == RUNTIME[::-1] + b"more"


def test_a_path_out_of_the_site_is_refused_as_before(base):
    with pytest.raises(urllib.error.HTTPError) as answer:
        fetch(f"{base}/lab/../../etc/passwd", **{"Accept-Encoding": "gzip"})
    assert answer.value.code in (403, 404)


@pytest.mark.parametrize("accepted", ["gzip", "identity"])
def test_a_path_with_a_nul_is_answered_not_found(base, caplog, accepted):
    with pytest.raises(urllib.error.HTTPError) as answer:
        fetch(f"{base}/lab/index%00.html", **{"Accept-Encoding": accepted})
    assert answer.value.code == 404
    assert [record for record in caplog.records if record.exc_info] == []


def test_a_server_that_does_not_compress_sends_every_file_as_it_is(site):
    server, base = serving(site, compress=False)
    try:
        body, headers = fetch(f"{base}/pyodide.asm.wasm", **{"Accept-Encoding": "gzip"})
        assert body == RUNTIME and headers["Content-Encoding"] is None
    finally:
        server.shutdown()


def test_the_large_files_copies_are_made_first_and_once(site):
    copies = GzipCopies(site)
    copies.make_large()
    assert set(copies.copies) == {str(site / "pyodide.asm.wasm")}  # the only compressible file that large
    assert MADE_AT_START <= len(RUNTIME)
    made = copies.copies[str(site / "pyodide.asm.wasm")][1]
    assert copies.copy(str(site / "pyodide.asm.wasm")) is made.result()
    assert copies.copy(str(site / "lab")) is None and copies.copy(str(site / "missing.js")) is None


def test_the_servers_of_one_site_share_its_copies(site):
    assert gzip_copies_of(site) is gzip_copies_of(site)
    assert gzip_copies_of(site / "lab") is not gzip_copies_of(site)
