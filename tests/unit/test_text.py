"""base/text.py: text cut to its bounds without splitting a character, ANSI codes removed."""

from pyodide_webmcp.base.text import (
    TRUNCATION_MARK,
    clamp_chars,
    clamp_utf8,
    one_line,
    strip_ansi,
    utf8_len,
)


def test_clamp_utf8_keeps_short_text():
    assert clamp_utf8("héllo", 100) == ("héllo", False)


def test_clamp_utf8_never_splits_a_code_point_and_fits():
    text = "€" * 100  # 3 bytes each
    cut, was_cut = clamp_utf8(text, 50)
    assert was_cut and cut.endswith(TRUNCATION_MARK)
    assert utf8_len(cut) <= 50
    assert set(cut.removesuffix(TRUNCATION_MARK)) == {"€"}


def test_clamp_chars():
    assert clamp_chars("abcdef", 6) == ("abcdef", False)
    cut, was_cut = clamp_chars("a" * 1000, 500)
    assert was_cut and len(cut) == 500


def test_strip_ansi_removes_colour_and_osc_sequences():
    assert strip_ansi("\x1b[31mred\x1b[39m \x1b]8;;http://x\x07link\x1b]8;;\x07") == "red link"


def test_one_line():
    assert one_line(" a\n\n b\tc ") == "a b c"
