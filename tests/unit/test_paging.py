"""calls/paging.py: listings that say where to continue."""

from pyodide_webmcp.calls.paging import fit_listing, offset_page, range_page


def test_listings_say_where_to_continue():
    assert fit_listing([{"x": "y" * 100}] * 10, 3) == [{"x": "y" * 100}] * 3
    assert len(fit_listing([{"x": "y" * 1000}] * 100, 100, budget=5000)) == 4
    assert range_page([5, 6, 8, 9], 2, 10, 20) == {"hasMore": True, "nextStartIndex": 8}
    assert range_page([5, 6], 2, 10, 20) == {"hasMore": True, "nextStartIndex": 10}
    assert range_page([5, 6], 2, 20, 20) == {"hasMore": False}
    assert range_page([5, 6], 1, None, 20) == {"hasMore": False}
    assert offset_page(10, 5, 3) == {"hasMore": True, "nextOffset": 15}
    assert offset_page(10, 5, 0) == {"hasMore": False}
