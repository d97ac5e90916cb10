"""base/hashing.py: source hashes, notebook revisions and output fingerprints, the reference extension's where it has them."""

import json
from pathlib import Path

from pyodide_webmcp.base.hashing import (
    FNV_FINGERPRINT_CHARS,
    js_json,
    output_fingerprint,
    revision,
    sha256_hex,
    source_hash,
    stable_hash,
)

VECTORS = json.loads((Path(__file__).parent / "data" / "reference_vectors.json").read_text())


def test_source_hash_is_stable_and_content_sensitive():
    assert source_hash("print(1)") == source_hash("print(1)")
    assert source_hash("print(1)") != source_hash("print(1) ")
    assert len(source_hash("")) == 16


def test_revision_depends_on_ids_types_and_hashes():
    base = [("a", "code", source_hash("x")), ("b", "markdown", source_hash("y"))]
    assert revision(base) == revision(list(base))
    assert revision(base) != revision(base[::-1])
    assert revision(base) != revision([("a", "raw", source_hash("x")), base[1]])
    assert revision(base) != revision([base[0], ("b", "markdown", source_hash("z"))])


def test_hashes_match_the_reference_extensions():
    for text, expected in VECTORS["stableHash"].items():
        assert stable_hash(text) == expected
    for name, case in VECTORS["fingerprint"].items():
        assert output_fingerprint(case["input"]) == case["fp"], name


def test_fingerprints_of_deeply_nested_json_outputs_need_no_recursion():
    """Found by the stress run: an output anchor on a JSON output nested 1,000 levels deep was INTERNAL_ERROR."""

    def deep(leaf, levels=3000):
        value = {"leaf": leaf}
        for level in range(levels):
            value = {"level": level, "child": [value]}
        return {"output_type": "display_data", "metadata": {}, "data": {"application/json": value}}

    assert output_fingerprint(deep(1)) == output_fingerprint(deep(1)) != output_fingerprint(deep(2))
    assert output_fingerprint(deep(1, 10)) != output_fingerprint(deep(1, 11))


def test_long_printed_text_is_fingerprinted_with_sha256_not_a_python_loop():
    """Found by the stress run: the reference extension's FNV-1a over a 2 MB print blocked the page 4 s on every comment read."""
    long = {"name": "stdout", "output_type": "stream", "text": "x" * (FNV_FINGERPRINT_CHARS + 1)}  # keys sorted
    assert output_fingerprint(long) == sha256_hex(js_json(long))
    assert output_fingerprint(long) != output_fingerprint({**long, "text": "y" + long["text"][1:]})
    short = {"name": "stdout", "output_type": "stream", "text": "x" * 100}
    assert output_fingerprint(short) == stable_hash(js_json(short))  # the reference extension's hash, as for every ordinary output
