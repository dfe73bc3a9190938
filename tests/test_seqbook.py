"""The book's Sphinx extensions (package seqbook) on small fixture books.

- A one-page book with a figure, a glued number, math and a glossary, built with the real
  ``conf.py``: the page's MathML, the math font, the figure's link, the lean highlighting, and the
  ``.ipynb`` download with the glued number and the figure's number written in.
- The same book built twice in one folder writes the same site as a clean build in another, also
  after a stylesheet changes (``seqbook.assets``: the ``?v=`` queries of the stylesheets;
  ``seqbook.searchindex``: the glossary's entries in the search index).
- A stylesheet that an extension writes only when the build finishes fails the build.

The builds of a changed module or data file (exactly the pages that read it execute again) are in
``tests/test_build.py``; that importing ``conf.py`` or seqbook changes nothing is checked in
``tests/test_seqbook_imports.py`` (no build).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_build import FRONT, scratch_book, sphinx

# --- A fixture book ---------------------------------------------------------------------------------

PAGE = FRONT + r"""
The probability $p(w \mid c)$ of a word given its context, and a display:

$$
\log p = \tanh(x) - \sqrt{d}
$$

```{code-cell} ipython3
from myst_nb import glue

glue("steps", 1234567, display=False)
```

It took {glue:text}`steps:,` steps; {numref}`fig-dot` shows the dot.

```{figure} dot.svg
:alt: A red dot on a white square.
:name: fig-dot

A red dot.
```

```{glossary}
context
  The words around a word.
```
"""

DOT = ('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" viewBox="0 0 40 40">'
       '<rect width="40" height="40" fill="white"/><circle cx="20" cy="20" r="10" fill="red"/></svg>\n')


def fixture_book(path: Path) -> Path:
    """A copy of the real conf.py and static files with a one-page book: math, a glued number, a
    figure (``PAGE``)."""
    project = scratch_book(path, "")
    (project / "book" / "index.md").write_text(PAGE)
    (project / "book" / "dot.svg").write_text(DOT)
    return project


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The fixture book, built once from nothing (its cell executed); ``first_site`` has the
    bytes of that site."""
    project = fixture_book(tmp_path_factory.mktemp("book") / "first")
    result = sphinx(project)
    assert result.returncode == 0, result.stderr[-3000:]
    FIRST_SITE.update(site_files(project))
    return project


#: The site of the first build of ``built``, as it wrote it (a later test builds there again).
FIRST_SITE: dict[str, bytes] = {}


def test_math_is_mathml_set_in_the_book_font(built):
    from fontTools.ttLib import TTFont

    from seqbook.mathml import math_italic

    page = (built / "_build" / "html" / "index.html").read_text()
    assert "<math" in page and not re.search(r"<script[^>]*mathjax", page, re.I), "no MathML, or a math script"
    assert "\\log" not in page and "\\tanh" not in page, "TeX left on the page"
    assert re.search(r"<mi>log</mi><mspace width=\"0.1667em\"></mspace>", page), "no thin space after log"
    assert "<msqrt>" in page
    cmap = TTFont(built / "_build" / "html" / "_static" / "book-math.woff2").getBestCmap()
    for char in (math_italic("p"), math_italic("w"), "\N{SQUARE ROOT}", "\N{DIVIDES}"):
        assert ord(char) in cmap, f"U+{ord(char):04X} is not in the math font"
    assert ord("\N{INTEGRAL}") not in cmap, "the math font was not cut down to the book's formulas"


def test_a_figure_links_to_its_own_file_and_code_has_no_plain_spans(built):
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((built / "_build" / "html" / "index.html").read_text(), "html.parser")
    link = soup.select_one("figure a.figure-file")
    assert link is not None and link["href"] == "_images/dot.svg" and link.img["alt"].startswith("A red dot")
    code = soup.select_one("div.cell div.highlight pre")
    assert code.select("span.kn"), "keywords lost their colour"
    assert not code.select("span.n, span.p, span.w"), "plain names and punctuation still have spans"


def test_the_download_shows_the_glued_number_and_the_figure_number(built):
    import nbformat

    nb = nbformat.read(built / "_build" / "html" / "_sources" / "index.ipynb", as_version=4)
    text = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    assert nb.cells[0].cell_type == "markdown" and "pip install" in nb.cells[0].source
    assert "It took 1,234,567 steps; Fig. 1 shows the dot." in text, text
    assert "{glue:text}" not in text and "{numref}" not in text


def site_files(project: Path) -> dict[str, bytes]:
    """Every file of the project's built site, by path."""
    html = project / "_build" / "html"
    return {p.relative_to(html).as_posix(): p.read_bytes() for p in sorted(html.rglob("*")) if p.is_file()}


def differences(a: dict[str, bytes], b: dict[str, bytes]) -> dict[str, str]:
    """The files that differ between two sites; for a page, the stylesheet and script links (with
    their queries) that only one of them has."""
    found = {}
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            mine = re.findall(rb"[\w./-]+\.(?:css|js)\?v=\w+|[\w./-]+\.(?:css|js)(?=\")", a.get(name, b""))
            theirs = re.findall(rb"[\w./-]+\.(?:css|js)\?v=\w+|[\w./-]+\.(?:css|js)(?=\")", b.get(name, b""))
            found[name] = str(sorted(set(mine) ^ set(theirs))[:6]) if name.endswith(".html") else "differs"
    return found


def clean_build(project: Path) -> subprocess.CompletedProcess:
    """A build of ``project`` with no site and no read sources from before (the execution cache
    kept: only the site is compared)."""
    for folder in ("html", "doctrees", "jupyter_execute"):
        shutil.rmtree(project / "_build" / folder, ignore_errors=True)
    return sphinx(project)


def test_a_second_build_in_the_same_folder_writes_what_a_clean_build_writes(built, tmp_path):
    """Sphinx writes genindex.html, search.html and searchindex.js in every build, other pages
    only when they are out of date; what a later build writes must be what a clean build writes:
    a stylesheet's ``?v=`` query (three extensions wrote their stylesheets only when the build
    finished) and the index entries of pages not written again (the glossary's terms, which
    Sphinx dropped from searchindex.js)."""
    first = dict(FIRST_SITE)
    again = built  # the folder of a finished build, built once more
    other = tmp_path / "other"  # a copy without its site: a clean build (execution cache kept)
    shutil.copytree(built, other, symlinks=True, ignore=shutil.ignore_patterns("html", "doctrees"))
    for project in (again, other):
        result = sphinx(project) if project is again else clean_build(project)
        assert result.returncode == 0, result.stderr[-3000:]
    assert re.search(rb"mystnb\.\w+\.css\?v=\w+", first["index.html"]), "a clean build's pages lack ?v= on mystnb.css"
    assert b'"indexentries":{"context"' in first["searchindex.js"], "the glossary is not in the search index"
    assert not differences(site_files(again), first), differences(site_files(again), first)
    assert not differences(site_files(other), first), differences(site_files(other), first)

    # A stylesheet of html_static_path changes: every page links the new one (not only those
    # written again for another reason), as a clean build does.
    for project in (again, other):
        with (project / "book" / "_static" / "layout.css").open("a") as css:
            css.write("\n/* changed */\n")
    assert sphinx(again).returncode == 0
    assert clean_build(other).returncode == 0
    changed = site_files(again)
    assert changed["_static/layout.css"] != first["_static/layout.css"]
    assert changed["index.html"] != first["index.html"], "the page kept the old stylesheet's query"
    assert not differences(changed, site_files(other)), differences(changed, site_files(other))


LATE = '''
from pathlib import Path


def write_late(app, exception):
    Path(app.outdir, "_static", "late.css").write_text("p { color: black; }\\n")


def setup(app):
    app.add_css_file("late.css")
    app.connect("build-finished", write_late)
'''


def test_a_stylesheet_written_when_the_build_finishes_fails_the_build(tmp_path):
    """The check of ``seqbook.assets`` is not blind: an extension (here a local one) that writes
    a stylesheet the pages link only when the build finishes is named by the failing build."""
    project = scratch_book(tmp_path, "")
    (project / "book" / "index.md").write_text("# No code\n\nA page.\n")
    (project / "late_css.py").write_text(LATE)
    conf = project / "conf.py"
    conf.write_text(conf.read_text() + '\nimport sys\nsys.path.insert(0, ".")\nextensions.append("late_css")\n')
    result = sphinx(project)
    assert result.returncode != 0, "a stylesheet written after the pages did not fail the build"
    assert "links _static/late.css, which is not in the site when the page is written" in result.stderr, result.stderr[-3000:]


def test_the_search_index_store_is_ordered_by_page_in_place():
    """``seqbook.searchindex.sort_by_page``: pages in name order, in the same dict (Sphinx's search
    index builder holds it), so parallel reading and writing cannot reorder an entry's pages."""
    from types import SimpleNamespace

    from seqbook import searchindex

    store = {"rnn": [("b", "id-b", "")], "api/models": [("module", "m", "")], "lstm": []}
    env = SimpleNamespace(**{searchindex._STORE: store})
    searchindex.sort_by_page(None, env)
    assert getattr(env, searchindex._STORE) is store
    assert list(store) == ["api/models", "lstm", "rnn"] and store["rnn"] == [("b", "id-b", "")]
