"""Shared paths, fixtures and markers. Tests of the built site need `make html` first (`make test`
does it).

Markers (registered below; an unregistered one is an error): ``site`` for a test that reads the
built site (any test that takes the ``site`` fixture is marked so without saying it), ``browser``
for one that drives Chromium, ``build`` for one that runs Sphinx builds of its own. `make check`
runs every test that has none of them, with the doctests, and builds nothing: it runs with
``SEQMODELS_BUILDDIR`` set to an empty folder, so a test that reads the site without its marker
fails there, naming `make html`, and with ``SEQMODELS_CHECK=1``, so a test that starts a Sphinx
build without its marker fails, naming the marker.
"""

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


#: What each marker says a test needs, beyond the package and the sources (``pytest --markers``).
MARKERS = {
    "site": "reads the built site: needs `make html` first (`make test` builds it; `make check` skips it)",
    "browser": "drives a Chromium or Chrome on the built site (`make test`; `make check` skips it)",
    "build": "runs Sphinx builds of its own on a scratch book, seconds to minutes each (`make check` skips it)",
    "cold": "builds the whole book again from an empty execution cache, tens of minutes (`make reproducible`, "
            "which .ci/run runs; `make test` and `make check` skip it)",
}
#: Files whose every test runs Sphinx builds of its own (scratch books, or a clean build of the
#: whole book), marked ``build`` here for all of their tests. (``pytestmark = pytest.mark.build``
#: in the file says the same; a file may carry it instead of being listed.)
BUILDS_OF_THEIR_OWN = ("test_build.py", "test_two_layers.py", "test_reproducible.py", "test_seqbook.py")
#: Set by `make check`: a Sphinx build started by a test that is not marked ``build`` fails it.
CHECK = os.environ.get("SEQMODELS_CHECK") == "1"


def pytest_configure(config):
    for name, meaning in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")
    # strict markers without an ini file: a misspelt marker would silently select nothing
    config.addinivalue_line("filterwarnings", "error::pytest.PytestUnknownMarkWarning")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "site" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.site)
        if item.path.name in BUILDS_OF_THEIR_OWN:
            item.add_marker(pytest.mark.build)


def _refuse_builds(what: str):
    """A stand-in for what starts a Sphinx build, under `make check`: it fails the test (or the
    fixture) that called it, naming the marker the test lacks."""
    def refuse(*args, **kwargs):
        pytest.fail(f"a Sphinx build ({what}) started under `make check`: mark the test that needs it "
                    f"`build` (see tests/conftest.py); make check builds nothing", pytrace=False)
    return refuse


@pytest.fixture(scope="session", autouse=True)
def _no_builds_in_make_check():
    """Under `make check` (``SEQMODELS_CHECK=1``) no test may run Sphinx, in a subprocess
    (``python -m sphinx``, ``sphinx-build``, ``make html``) or in-process."""
    if not CHECK:
        yield
        return
    import subprocess

    from sphinx.application import Sphinx

    popen_init, sphinx_init = subprocess.Popen.__init__, Sphinx.__init__

    def guarded(self, args, *rest, **kwargs):
        words = [str(a) for a in (args if isinstance(args, (list, tuple)) else str(args).split())]
        starts = any(w in ("sphinx", "sphinx.cmd.build") or w.endswith("sphinx-build") for w in words) \
            or (any(w.endswith("make") for w in words[:1]) and any(w in ("html", "test") for w in words))
        if starts:
            _refuse_builds(" ".join(words[:6]))()
        popen_init(self, args, *rest, **kwargs)

    subprocess.Popen.__init__ = guarded
    Sphinx.__init__ = _refuse_builds("sphinx.application.Sphinx")
    try:
        yield
    finally:
        subprocess.Popen.__init__, Sphinx.__init__ = popen_init, sphinx_init


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
