"""The documentation: the generated tool reference is current, links resolve, measurements stay in
docs/measurements/, and no page uses words only the project's history explains."""

import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from docs.reference import examples, render_reference, rendered

ROOT = Path(__file__).resolve().parents[2]
TOOL_DOCS = ROOT / "docs" / "tools.md"


def test_committed_tool_reference_is_current():
    for path, text in rendered().items():
        assert path.read_text() == text, f"{path.relative_to(ROOT)} is stale: run python3 build.py docs"


def test_the_reference_is_a_page_a_person_reads():
    text = TOOL_DOCS.read_text()
    assert len(text.encode()) <= 80 * 1024, f"docs/tools.md is {len(text.encode()):,} bytes"
    assert "['" not in text and '"properties"' not in text  # types as a person writes them; schemas in their own file


@pytest.mark.parametrize("name", sorted(examples()))
def test_each_example_is_a_valid_call_and_result(name):
    from pyodide_webmcp.calls.schema import parse_arguments
    from pyodide_webmcp.tools import BUILT_IN

    tool, example = BUILT_IN.get(name), examples()[name]
    parse_arguments(tool.arguments, example["call"])
    Draft202012Validator(tool.output_schema).validate(example["result"])


def test_every_tool_has_an_example():
    from pyodide_webmcp.tools import BUILT_IN

    assert set(examples()) == {tool.name for tool in BUILT_IN}


def test_reference_covers_every_tool_and_code():
    from pyodide_webmcp.base.errors import ErrorCode
    from pyodide_webmcp.tools import BUILT_IN

    text = render_reference()
    for tool in BUILT_IN:
        assert f"## `{tool.name}`" in text
    for code in ErrorCode:
        assert f"`{code.value}`" in text


# The pages themselves ---------------------------------------------------------------------------------------

MEASUREMENTS = ROOT / "docs" / "measurements"
PAGES = sorted(
    [ROOT / name for name in ("README.md", "CONTRIBUTING.md", "SECURITY.md", "CHANGELOG.md")]
    + list((ROOT / "docs").rglob("*.md"))
)
FENCE = re.compile(r"^\s*(?:>\s*)*(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
LINK_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
# A commit named by its short (7-12) or full (40) hex id: a word of its own, not a colour (#), a build id (=),
# part of a file name (.) or of a longer hex run (a sha256).
COMMIT = re.compile(r"(?<![\w#=.-])([0-9a-f]{7,12}|[0-9a-f]{40})(?![\w-]|\.\w)")
INTERNAL_WORDS = re.compile(r"\bseed\s+0\d+\b|\bissues?\s+#?\d+\b", re.IGNORECASE)


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of the lines outside fenced code blocks."""
    lines, fence = [], None
    for number, line in enumerate(text.splitlines(), 1):
        opening = FENCE.match(line)
        if fence:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            continue
        if opening:
            fence = opening.group(1)
            continue
        lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text as rendered, lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found, seen = set(), {}
    for _, line in prose_lines(page.read_text()):
        heading = HEADING.match(line)
        if heading:
            base = slug(heading.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def link_targets(page: Path) -> list[tuple[int, str]]:
    targets = []
    for number, line in prose_lines(page.read_text()):
        line = CODE_SPAN.sub("", line)
        targets += [(number, target) for target in INLINE_LINK.findall(line)]
        definition = LINK_DEFINITION.match(line)
        if definition:
            targets.append((number, definition.group(1)))
    return targets


def broken_link(page: Path, target: str) -> str:
    """Why a link from `page` does not resolve, or "" when it does (links with a scheme are not checked)."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("//"):
        return ""
    path, _, anchor = target.partition("#")
    resolved = (page.parent / path).resolve() if path else page
    if not resolved.exists():
        return "no such file"
    if not resolved.is_relative_to(ROOT):
        return "outside the repository"
    if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
        return f"no heading #{anchor} in {resolved.relative_to(ROOT)}"
    return ""


def test_slugs_follow_github():
    assert slug("A desktop agent: `python3 build.py mcp`") == "a-desktop-agent-python3-buildpy-mcp"
    assert slug("Cross-origin isolation (COOP / COEP)") == "cross-origin-isolation-coop--coep"
    assert slug("For a deployer: a whole site's defaults") == "for-a-deployer-a-whole-sites-defaults"
    assert slug("[0.1.0]") == "010"


def test_every_relative_link_resolves():
    broken = [
        f"{page.relative_to(ROOT)}:{number}: {target}: {why}"
        for page in PAGES
        for number, target in link_targets(page)
        if (why := broken_link(page, target))
    ]
    assert not broken, "\n".join(broken)


def test_the_index_links_every_page():
    index = ROOT / "docs" / "README.md"
    linked = {(index.parent / target.partition("#")[0]).resolve() for _, target in link_targets(index)}
    missing = [page.relative_to(ROOT) for page in (ROOT / "docs").rglob("*.md") if page != index and page not in linked]
    assert not missing, f"docs/README.md links no {missing}"
    assert "docs/README.md" in {target for _, target in link_targets(ROOT / "README.md")}


def test_commits_are_named_only_in_measurements():
    named = [
        f"{page.relative_to(ROOT)}:{number}: {match}"
        for page in PAGES
        if not page.is_relative_to(MEASUREMENTS)
        for number, line in prose_lines(page.read_text())
        for match in COMMIT.findall(line)
        if len(match) == 40 or (re.search(r"\d", match) and re.search(r"[a-f]", match))
    ]
    assert not named, "commit ids belong in docs/measurements/:\n" + "\n".join(named)


def test_the_commit_pattern_spares_what_is_not_a_commit():
    line = "commit 238a043 and (de7bdcb), not #a1b2c3d4 nor ?v=1a2b3c4d nor jlab_core.a86436d.js nor ced247b847401242"
    found = [match for match in COMMIT.findall(line) if re.search(r"\d", match) and re.search(r"[a-f]", match)]
    assert found == ["238a043", "de7bdcb"]


def internal_words(paths) -> list[str]:
    return [
        f"{path.relative_to(ROOT)}:{number}: {match.group(0)}"
        for path in paths
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        for match in INTERNAL_WORDS.finditer(line)
    ]


def test_user_pages_use_no_internal_words():
    """A reader cannot decode "seed 001" or "issue 19": name the project instead (docs/tools.md is the code's)."""
    pages = [page for page in PAGES if page != TOOL_DOCS] + sorted((ROOT / "examples").rglob("*.md"))
    assert not internal_words(pages), "\n".join(internal_words(pages))


CODE_SUFFIXES = {".py", ".js", ".mjs", ".json", ".css", ".html", ".yml", ".yaml", ".toml", ".txt"}


def test_code_and_the_generated_reference_use_no_internal_words():
    """Comments, docstrings and schema text reach users too (docstrings become docs/tools.md)."""
    paths = [TOOL_DOCS, ROOT / "build.py", ROOT / "hatch_build.py"] + sorted(
        path
        for folder in ("py", "lib", "buildkit", "schema", "examples", "docs")
        for path in (ROOT / folder).rglob("*")
        if path.is_file() and path.suffix in CODE_SUFFIXES and "__pycache__" not in path.parts
    )
    offenders = internal_words(paths)
    assert not offenders, "internal words in code or generated text:\n" + "\n".join(offenders)
