"""Run every doctest shown on a page of the book.

Sybil's MyST parser reads a fenced ```` ```python ```` block that starts with ``>>>`` as a doctest
and stops at the closing fence, which plain ``pytest --doctest-glob='*.md'`` would take as
expected output. One test per page; its examples share a namespace, in page order, as a reader pasting them would,
and a failure names the page and line.
"""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest
from sybil import Sybil
from sybil.parsers.myst import PythonCodeBlockParser

BOOK = Path(__file__).resolve().parent.parent / "book"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
SYBIL = Sybil(parsers=[PythonCodeBlockParser(doctest_optionflags=FLAGS)])
PAGES = sorted(BOOK.rglob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(BOOK)) for p in PAGES])
def test_page_doctests(page):
    """Every example on the page, in order, in one namespace; the first failure names its line."""
    for example in SYBIL.parse(page):
        result = example.evaluate()
        if result:
            pytest.fail(f"{page.relative_to(BOOK)}, line {example.line}:\n{result}", pytrace=False)


def test_the_book_has_doctests():
    count = sum(len(list(SYBIL.parse(page))) for page in PAGES)
    assert count > 0, "no doctest found in book/: the collector is broken"
