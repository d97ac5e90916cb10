"""Listings that say whether more exist and how to get them, the same way in every tool.

A listing keeps at most its count bound and what fits its byte budget; index
ranges continue with `nextStartIndex`, other listings with `nextOffset`.
"""

from typing import Annotated, Optional, Sequence, TypeVar

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from ..base import limits
from ..base.text import json_size

Item = TypeVar("Item")


class RangePage(TypedDict):
    hasMore: Annotated[bool, Field(description=(
        "Whether more items exist beyond this page (see nextStartIndex or nextOffset)."))]
    nextStartIndex: NotRequired[Annotated[int, Field(description=(
        "Pass it as startIndex to read the next page (only when hasMore)."))]]


class OffsetPage(TypedDict):
    hasMore: Annotated[bool, Field(description=(
        "Whether more items exist beyond this page (see nextStartIndex or nextOffset)."))]
    nextOffset: NotRequired[Annotated[int, Field(description=(
        "Pass it as offset to read the next page (only when hasMore)."))]]


def fit_listing(items: Sequence[Item], max_items: int, budget: int = limits.MAX_LISTING_BYTES) -> list[Item]:
    """The leading items that fit both the count bound and the byte budget (at least one when any)."""
    kept: list[Item] = []
    used = 0
    for item in items[:max_items]:
        size = json_size(item) + 1
        if kept and used + size > budget:
            break
        kept.append(item)
        used += size
    return kept


def range_page(wanted: Sequence[int], kept: int, range_end: Optional[int], total: int) -> RangePage:
    """Where an index range continues: after the last item kept, or at the end of the range asked for.

    `wanted` are the indexes selected, `kept` how many of them are returned;
    `range_end` is None for an explicit list of ids (nothing to continue).
    """
    if range_end is None:
        return {"hasMore": False}
    following = wanted[kept] if kept < len(wanted) else range_end
    if following >= total:
        return {"hasMore": False}
    return {"hasMore": True, "nextStartIndex": following}


def offset_page(offset: int, kept: int, remaining: int) -> OffsetPage:
    """Where a listing continues, given how many items remain after those kept."""
    return {"hasMore": True, "nextOffset": offset + kept} if remaining > 0 else {"hasMore": False}

