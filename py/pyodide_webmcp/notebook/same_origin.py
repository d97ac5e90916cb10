"""Markdown an agent may not write: text that makes the page fetch from another origin as soon as the lab
renders it (an image beacon, a stylesheet, a video poster...). Such a fetch can carry whatever the agent
puts in its address out of the page, with no click from the human. Ordinary links stay allowed: they
fetch nothing until the human follows them.
"""

import html
import re
from typing import Optional

from ..base.errors import ErrorCode, ToolError

# Schemes that load nothing from elsewhere: inline data, the page's own blobs, the notebook's attachments.
LOCAL_SCHEMES = ("data:", "blob:", "attachment:")
_SCHEME = re.compile(r"^\s*(?:[a-z][a-z0-9+.\-]*:|[/\\]{2})", re.IGNORECASE)
_INLINE_IMAGE = re.compile(r"!\[(?:[^\]\\]|\\.)*\]\(\s*<?([^\s)>]*)")
_REFERENCE_IMAGE = re.compile(r"!\[(?:[^\]\\]|\\.)*\](?!\()")
_DEFINITION = re.compile(r"^ {0,3}\[(?:[^\]\\]|\\.)+\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE)
_TAG = re.compile(r"<\s*([a-z][a-z0-9:-]*)([^>]*)>?", re.IGNORECASE)
_ATTRIBUTE = re.compile(r"([a-z][a-z0-9:_-]*)\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>]+)", re.IGNORECASE)
_CSS_URL = re.compile(r"(?:url\(\s*|@import\s+(?!url\())[\"']?([^\"')\s]+)", re.IGNORECASE)
# Attributes a renderer follows by itself; `href` only where it loads something (not on a link)
_LOADING = {"src", "srcset", "poster", "data", "background", "lowsrc", "dynsrc", "ping", "manifest", "codebase",
            "xlink:href", "action", "formaction", "style"}
_LOADING_HREF = {"link", "image", "use", "feimage", "script"}


def off_origin(url: str) -> bool:
    """True when `url` points at another origin (a scheme of its own or //host), not inline or attached data."""
    url = url.strip()
    return bool(_SCHEME.match(url)) and not url.lower().startswith(LOCAL_SCHEMES)


def remote_reference(markdown: str) -> Optional[str]:
    """The first address in `markdown` that rendering it would fetch from another origin, or None."""
    for match in _INLINE_IMAGE.finditer(markdown):
        if off_origin(match.group(1)):
            return match.group(1)
    if _REFERENCE_IMAGE.search(markdown):
        for match in _DEFINITION.finditer(markdown):
            if off_origin(match.group(1)):
                return match.group(1)
    for tag in _TAG.finditer(markdown):
        name = tag.group(1).lower()
        for attribute in _ATTRIBUTE.finditer(tag.group(2)):
            key = attribute.group(1).lower()
            value = html.unescape(attribute.group(2).strip("\"'"))
            if key == "style" or name == "style":
                found = _css_reference(value)
                if found:
                    return found
            elif key in _LOADING or (key == "href" and name in _LOADING_HREF):
                for candidate in value.split(",") if key == "srcset" else [value]:
                    if off_origin(candidate.strip().split(" ")[0]):
                        return candidate.strip()
    return _css_reference(html.unescape(markdown))


def _css_reference(text: str) -> Optional[str]:
    for match in _CSS_URL.finditer(text):
        if off_origin(match.group(1)):
            return match.group(1)
    return None


def require_same_origin(field: str, source: str, cell_type: str) -> None:
    """INVALID_ARGUMENT when a markdown cell's source would make the page fetch from another origin."""
    if cell_type != "markdown":
        return
    found = remote_reference(source)
    if found is not None:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            f"{field} would make the page load {found[:200]!r} from another origin when the markdown is shown "
            "(an image, stylesheet or other embedded resource). Link to it instead ([text](address)), or embed "
            "the data inline (data: URL) or as an attachment. Nothing was changed.",
            field=field,
            detail="REMOTE_RESOURCE",
        )
