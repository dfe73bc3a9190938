"""Each chapter's downloads: its MyST source and its executed notebook, offered by the page's
download menu. The notebook is valid nbformat, holds the outputs the page shows, and runs again
from a fresh kernel in an empty folder, as it would for a reader with ``seqmodels`` installed."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup

from conftest import BOOK, EXECUTED_PAGES

#: Chapters re-executed from their download (the others are validated, not re-run, to keep
#: `make test` quick: their code already ran in the build).
REEXECUTE = ["rnn"]


def download_links(site: Path, name: str) -> dict[str, str]:
    """The download menu of a page: ``{suffix: href}``."""
    soup = BeautifulSoup((site / f"{name}.html").read_text(), "html.parser")
    menu = soup.select_one(".dropdown-download-buttons")
    assert menu is not None, f"{name}.html has no download menu"
    return {Path(a["href"]).suffix: a["href"] for a in menu.find_all("a", href=True)}


def downloaded_notebook(site: Path, name: str) -> nbformat.NotebookNode:
    links = download_links(site, name)
    assert ".ipynb" in links, f"{name}.html offers no .ipynb download (menu: {links})"
    path = site / links[".ipynb"]
    assert path.is_file(), f"{name}.html links {links['.ipynb']}, which is not in the site"
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    return nb


@pytest.mark.parametrize("name", EXECUTED_PAGES)
def test_chapter_offers_its_source_and_executed_notebook(site, name):
    if not (site / f"{name}.html").is_file():
        pytest.fail(f"book/{name}.md has no page {name}.html in the site")
    links = download_links(site, name)
    source = site / links.get(".md", "")
    assert source.is_file() and source.read_text() == (BOOK / f"{name}.md").read_text(), \
        f"{name}.html: the .md download is not the chapter's source"
    nb = downloaded_notebook(site, name)
    code = [c for c in nb.cells if c.cell_type == "code"]
    expected = len(re.findall(r"^```{code-cell}", (BOOK / f"{name}.md").read_text(), re.M))
    assert len(code) == expected, f"{name}.ipynb has {len(code)} code cells, the source {expected}"
    assert nb.metadata.kernelspec.name == "python3"
    assert all(c.execution_count is not None for c in code), f"{name}.ipynb has unexecuted cells"
    assert any(c.outputs for c in code), f"{name}.ipynb holds no outputs"
    assert len({c.id for c in nb.cells}) == len(nb.cells)


def text_outputs(nb) -> list[list[str]]:
    """Per code cell, its printed and plain-text outputs (figures and glue records left out)."""
    cells = []
    for cell in (c for c in nb.cells if c.cell_type == "code"):
        texts = []
        for out in cell.outputs:
            if out.output_type == "stream":
                texts.append(out.text)
            elif out.output_type == "execute_result":
                texts.append(out.data.get("text/plain", ""))
        cells.append(texts)
    return cells


@pytest.mark.parametrize("name", REEXECUTE)
def test_downloaded_notebook_runs_again_with_the_same_results(site, name, tmp_path):
    from nbclient import NotebookClient

    nb = downloaded_notebook(site, name)
    shown = text_outputs(nb)
    fresh = nbformat.from_dict(nb)
    for cell in fresh.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    NotebookClient(fresh, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert text_outputs(fresh) == shown, f"{name}.ipynb printed something else when run again"


@pytest.mark.parametrize("name", EXECUTED_PAGES)
def test_downloaded_notebook_says_how_to_run_it_and_shows_numbers_not_roles(site, name):
    """Its first cell gives the install line (the package with its ``book`` extra, which names
    everything the notebook imports that is not in the package's own dependencies), and its text
    shows the values the page shows where the source has ``{glue:text}`` roles."""
    nb = downloaded_notebook(site, name)
    first = nb.cells[0]
    assert first.cell_type == "markdown" and 'pip install "./code[book]"' in first.source, first.source[:300]
    left = [c.source[:80] for c in nb.cells if c.cell_type == "markdown" and "{glue:" in c.source]
    assert not left, f"{name}.ipynb still shows glue roles: {left}"
    page = BeautifulSoup((site / f"{name}.html").read_text(), "html.parser")
    pasted = [t.get_text() for t in page.select("span.pasted-text")]
    assert pasted or name == "status", f"{name}.html shows no glued value: the check is blind"
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    plain = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})  # the page's smart quotes
    missing = [v for v in pasted if v.translate(plain) not in text.translate(plain)]
    assert not missing, f"values {name}.html shows that its notebook's text lacks: {missing[:5]}"


def test_the_book_extra_names_what_the_notebooks_import():
    """Every top-level module a chapter imports is the standard library's, seqmodels', a dependency
    of seqmodels, or in its ``book`` extra (by the import names of those distributions)."""
    import sys
    import tomllib
    from importlib.metadata import packages_distributions

    project = tomllib.loads((BOOK.parent / "code" / "pyproject.toml").read_text())["project"]
    wanted = {re.split(r"[<>=\[ ]", d)[0].lower() for d in project["dependencies"]
              + project["optional-dependencies"]["book"]}
    dist_of = {m: {d.lower() for d in ds} for m, ds in packages_distributions().items()}
    imports = set()
    for page in EXECUTED_PAGES:
        for src in re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", (BOOK / f"{page}.md").read_text(), re.S):
            for a, b in re.findall(r"^\s*(?:from\s+([A-Za-z_]\w*)[\w.]*\s+import\b|import\s+([A-Za-z_]\w*))", src, re.M):
                imports.add(a or b)
    assert {"numpy", "seqmodels", "myst_nb"} <= imports, f"the import collector is blind: {sorted(imports)}"
    foreign = {m for m in imports - {"seqmodels"} - set(sys.stdlib_module_names)
               if not dist_of.get(m, set()) & wanted}
    assert not foreign, f"modules the notebooks import that `seqmodels[book]` does not install: {foreign}"


def test_the_chapter_collector_is_not_blind():
    assert "rnn" in EXECUTED_PAGES and set(REEXECUTE) <= set(EXECUTED_PAGES)
