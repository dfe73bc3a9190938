"""Static checks of the chapter sources: every Python snippet a reader sees is checked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parent.parent / "book"
PAGES = sorted(BOOK.rglob("*.md"))
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>.*)$")
PYTHON = {"python", "py", "python3", "pycon", "ipython", "ipython3"}


def fenced_blocks(text: str):
    """Yield ``(line, info, body)`` for every fenced block, nested directives included."""
    lines = text.splitlines()
    stack: list[tuple[str, int, str]] = []
    body: dict[int, list[str]] = {}
    for n, line in enumerate(lines, start=1):
        m = FENCE.match(line)
        if m and stack and m["fence"][0] == stack[-1][0][0] and len(m["fence"]) >= len(stack[-1][0]) and not m["info"].strip():
            fence, start, info = stack.pop()
            yield start, info, "\n".join(body.pop(start))
            continue
        if m and m["info"].strip() or (m and not stack):
            stack.append((m["fence"], n, m["info"].strip()))
            body[n] = []
            continue
        for _, start, _ in stack:
            body[start].append(line)


def classify(info: str, body: str) -> str:
    """'cell' (executed by myst-nb), 'doctest' (run by make doctest), 'python' (neither) or 'other'."""
    word = info.split()[0] if info else ""
    if word.startswith("{code-cell}"):
        return "cell"
    if word.startswith("{") and word.endswith("}"):  # a directive such as {code-block} python
        lang = info.split()[1].lower() if len(info.split()) > 1 else ""
    else:
        lang = word.lower()
    if lang in PYTHON:
        return "doctest" if body.lstrip().startswith(">>>") else "python"
    return "other"


def test_fence_parser_sees_cells_doctests_and_bare_python():
    text = "```{code-cell} ipython3\nx = 1\n```\n\n```python\n>>> 1 + 1\n2\n```\n\n````{note}\n```py\nx = 2\n```\n````\n"
    kinds = [classify(info, body) for _, info, body in fenced_blocks(text)]
    assert sorted(kinds) == ["cell", "doctest", "other", "python"]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(BOOK)) for p in PAGES])
def test_every_python_snippet_is_executed_or_doctested(page):
    bare = [line for line, info, body in fenced_blocks(page.read_text())
            if classify(info, body) == "python"]
    assert not bare, (f"{page.relative_to(BOOK)}: Python blocks at lines {bare} are neither "
                      "{code-cell}s nor doctests (start them with >>> and show the output)")


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(BOOK)) for p in PAGES])
def test_chapters_run_on_the_python3_kernel(page):
    text = page.read_text()
    if "{code-cell}" in text:
        assert re.search(r"^kernelspec:\s*\n(?:\s+.*\n)*?\s+name:\s*python3\s*$", text, re.M), \
            f"{page.name} executes cells but does not name the python3 kernel in its front matter"


def shown_lines(info: str, body: str) -> list[str]:
    """The lines of a cell or doctest a reader sees: none for a cell whose input is removed."""
    kind = classify(info, body)
    if kind == "doctest":
        return body.splitlines()
    if kind != "cell":
        return []
    options = re.match(r"\A(?:---\n.*?\n---\n|(?::[^\n]*\n)*)", body, re.S).group(0)
    if re.search(r"remove-cell|remove-input", options):
        return []
    return body[len(options):].splitlines()


def test_shown_lines_skips_options_and_removed_inputs():
    assert shown_lines("{code-cell} ipython3", ":tags: [hide-input]\n\nx = 1") == ["", "x = 1"]
    assert shown_lines("{code-cell} ipython3", "---\ntags: [remove-input]\n---\nx = 1") == []
    assert shown_lines("python", ">>> 1\n1") == [">>> 1", "1"]


def conf_limit(name: str) -> int:
    """A cell-width limit of the build (seqbook.cellwidths), or conf.py's setting of it if it sets one."""
    from seqbook import cellwidths

    setting = re.search(rf"^seqbook_{name.lower()} = (\d+)$", (BOOK.parent / "conf.py").read_text(), re.M)
    return int(setting.group(1)) if setting else getattr(cellwidths, name)


def boxed_spans(text: str) -> list[tuple[int, int]]:
    """The line spans of exercise and solution boxes (``{exercise}``, ``{solution-start}`` to
    ``{solution-end}``, ``{exercise-start}`` to ``{exercise-end}``): code there has a narrower box."""
    spans, opened = [], {}
    for line, info, body in fenced_blocks(text):
        word = info.split()[0] if info else ""
        if word in ("{exercise}", "{solution}"):
            spans.append((line, line + body.count("\n") + 2))
        elif word.endswith("-start}"):
            opened[word.removesuffix("-start}")] = line
        elif word.endswith("-end}") and word.removesuffix("-end}") in opened:
            spans.append((opened.pop(word.removesuffix("-end}")), line))
    return spans


def test_boxed_spans_cover_a_solution_and_nothing_after_it():
    text = ("```{solution-start} ex\n```\n\n```{code-cell} ipython3\nx = 1\n```\n\n"
            "```{solution-end}\n```\n\n```{code-cell} ipython3\ny = 2\n```\n")
    spans = boxed_spans(text)
    cells = {body: line for line, info, body in fenced_blocks(text) if classify(info, body) == "cell"}
    assert [any(a < cells[k] < b for a, b in spans) for k in ("x = 1", "y = 2")] == [True, False]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(BOOK)) for p in PAGES])
def test_shown_code_fits_its_column(page):
    """Every line of code a reader sees fits the article's column (CELL_COLUMN_CHARS, seqbook.cellwidths),
    or an exercise's or solution's box (CELL_BOXED_CHARS), so no cell is wider than its space and
    none reaches the margin, where the contents list sits. (The build checks printed output too.)"""
    column, boxed = conf_limit("CELL_COLUMN_CHARS"), conf_limit("CELL_BOXED_CHARS")
    assert boxed < column
    text = page.read_text()
    spans = boxed_spans(text)
    long = []
    for line, info, body in fenced_blocks(text):
        limit = boxed if any(a < line < b for a, b in spans) else column
        long += [(line, len(t), limit) for t in shown_lines(info, body) if len(t) > limit]
    assert not long, f"{page.relative_to(BOOK)}: shown code too long (block line, length, limit): {long}"
