"""Shared paths and fixtures. Tests of the built site need `make html` first (`make test` does it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
BUILDDIR = Path(os.environ.get("SEQMODELS_BUILDDIR", ROOT / "_build"))
HTML = BUILDDIR / "html"
#: The pages that execute code (chapters, their evidence pages under evidence/, the status page),
#: by docname: the path below book/ without ".md" ("rnn", "evidence/embeddings").
EXECUTED_PAGES = sorted(p.relative_to(BOOK).with_suffix("").as_posix() for p in BOOK.rglob("*.md")
                        if "{code-cell}" in p.read_text())


@pytest.fixture(scope="session")
def site() -> Path:
    """The built site; a clear failure, not a skip, when it is missing."""
    if not (HTML / "index.html").is_file():
        pytest.fail(f"no built site at {HTML}: run `make html` (or `make test`, which builds it)")
    return HTML


def pytest_terminal_summary(terminalreporter):
    """End the run with a line naming how many browser tests did not run, and how to run them."""
    from seqbook.tools.browser_path import INSTALL, MISSING, VARIABLE

    skipped = [r for r in terminalreporter.stats.get("skipped", []) if MISSING in str(r.longrepr)]
    if skipped:
        terminalreporter.write_line(
            f"{len(skipped)} browser tests did not run: {MISSING}. Install it with `{INSTALL}` "
            f"(or set {VARIABLE} to a Chromium or Chrome executable) and run `make test` again.",
            yellow=True, bold=True)
