"""Each chapter's downloads: its MyST source and its executed notebook, offered by the page's
download menu. The notebook is valid nbformat, holds the outputs the page shows, and runs again
from a fresh kernel in an empty folder, as it would for a reader with ``seqmodels`` installed."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup

from conftest import BOOK, EXECUTED_PAGES, ROOT

#: Chapters re-executed from their download (the others are validated, not re-run, to keep
#: `make test` quick: their code already ran in the build).
REEXECUTE = ["rnn"]
#: Notebooks run in a new environment made from the install lines they print: those that read
#: files that are not code (the pretrained model and its reference outputs, the GloVe vectors and
#: gensim's test data) or the environment itself (status), and one that only computes.
IN_A_READERS_ENVIRONMENT = ["embeddings", "pretrained", "rnn", "status"]


def download_links(site: Path, name: str) -> dict[str, str]:
    """The download menu of a page: ``{suffix: href}``."""
    soup = BeautifulSoup((site / f"{name}.html").read_text(), "html.parser")
    menu = soup.select_one(".dropdown-download-buttons")
    assert menu is not None, f"{name}.html has no download menu"
    return {Path(a["href"]).suffix: a["href"] for a in menu.find_all("a", href=True)}


def downloaded_notebook(site: Path, name: str) -> nbformat.NotebookNode:
    links = download_links(site, name)
    assert ".ipynb" in links, f"{name}.html offers no .ipynb download (menu: {links})"
    path = (site / name).parent / links[".ipynb"]  # relative to the page (evidence/ pages are one deeper)
    assert path.is_file(), f"{name}.html links {links['.ipynb']}, which is not in the site"
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    return nb


@pytest.mark.parametrize("name", EXECUTED_PAGES)
def test_chapter_offers_its_source_and_executed_notebook(site, name):
    if not (site / f"{name}.html").is_file():
        pytest.fail(f"book/{name}.md has no page {name}.html in the site")
    links = download_links(site, name)
    source = (site / name).parent / links.get(".md", "")
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
    source = (BOOK / f"{name}.md").read_text()
    if "{glue" not in source:
        return  # the page pastes no value (an evidence page may glue values only for its chapter)
    assert pasted, f"{name}.html shows none of the values its source pastes: the check is blind"
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    plain = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})  # the page's smart quotes
    missing = [v for v in pasted if v.translate(plain) not in text.translate(plain)]
    assert not missing, f"values {name}.html shows that its notebook's text lacks: {missing[:5]}"


#: MyST that plain Jupyter shows as written: a role, a label line, a fenced directive.
MYST = re.compile(r"\{[a-z:-]+\}`|^\([^()\s]+\)=[ \t]*$|^`{3,}\{[a-z:-]+\}", re.M)


def source_markdown(name: str) -> list[str]:
    """The Markdown cells of a chapter's source, as myst-nb reads them."""
    from myst_nb.core.read import read_myst_markdown_notebook

    notebook = read_myst_markdown_notebook((BOOK / f"{name}.md").read_text())
    return [cell.source for cell in notebook.cells if cell.cell_type == "markdown"]


@pytest.mark.parametrize("name", EXECUTED_PAGES)
def test_downloaded_notebook_text_is_plain_markdown(site, name):
    """No MyST that Jupyter would show literally is left in the notebook's text: roles, label
    lines and directives are written as the page shows them (``seqbook.downloads.plain_markdown``)."""
    assert MYST.search("\n".join(source_markdown(name))), f"book/{name}.md has no MyST: the check is blind"
    nb = downloaded_notebook(site, name)
    left = [(c.source[max(m.start() - 30, 0):m.end() + 30]) for c in nb.cells if c.cell_type == "markdown"
            for m in MYST.finditer(c.source)]
    assert not left, f"{name}.ipynb shows MyST in Jupyter: {left[:5]}"
    assert all(c.source.strip() for c in nb.cells if c.cell_type == "markdown"), f"{name}.ipynb has empty text cells"


def markdown_of(tag) -> str:
    """An element's text as Markdown writes it: emphasis in ``*``, code in backticks."""
    if isinstance(tag, str):
        return str(tag)
    inner = "".join(markdown_of(child) for child in tag.children)
    return {"em": f"*{inner}*", "code": f"`{inner}`"}.get(tag.name, inner)


def in_order(texts: list[str], text: str) -> list[str]:
    """Those of ``texts`` that ``text`` does not hold, each after the one before it."""
    missing, at = [], 0
    for wanted in texts:
        found = text.find(wanted, at)
        if found < 0:
            missing.append(wanted)
        else:
            at = found + len(wanted)
    return missing


@pytest.mark.parametrize("name", EXECUTED_PAGES)
def test_downloaded_notebook_cites_as_the_page_does(site, name):
    """Every citation of the chapter's text reads in the notebook as on the page ("[Elman, 1990]",
    "Pascanu *et al.* [2013]"), in the page's order: the source's roles, the page's citations and
    the notebook's text are matched one to one."""
    roles = re.findall(r"\{cite:([a-z]+)\}`([^`]+)`", "\n".join(source_markdown(name)))
    page = BeautifulSoup((site / f"{name}.html").read_text(), "html.parser")
    shown = [markdown_of(span) for span in page.select("span.bibtex-citation")]
    assert len(shown) == len(roles), f"{name}.html shows {len(shown)} citations, its source has {len(roles)}"
    for (kind, keys), text in zip(roles, shown):
        # {cite:p} shows "[Author, year]", {cite:t} "Author [year]": the pairing is right
        assert (kind == "p") == text.startswith("["), f"{name}: {{cite:{kind}}}`{keys}` paired with {text!r}"
    nb = downloaded_notebook(site, name)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    missing = in_order(shown, text)
    assert not missing, f"citations of {name}.html that its notebook lacks, or has out of order: {missing[:5]}"


@pytest.mark.parametrize("name", EXECUTED_PAGES)
def test_downloaded_notebook_numbers_as_the_page_does(site, name):
    """Equations, exercises, solutions and the references to figures, equations, sections and
    terms read in the notebook as on the page, in its order ("Fig. 29", "(12)", "Exercise 4")."""
    page = BeautifulSoup((site / f"{name}.html").read_text(), "html.parser")
    nb = downloaded_notebook(site, name)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    numbers = [re.match(r"\((.*?)\)", span.get_text())[1] for span in page.select("span.eqno")]  # "(6)#"
    assert re.findall(r"\\tag\{([^}]*)\}", text) == numbers, f"{name}.ipynb numbers its equations otherwise"
    for kind, heading in (("exercise", "Exercise"), ("solution", "Solution to Exercise")):
        titles = [" ".join(p.get_text().split()) for p in page.select(f"div.{kind} > p.admonition-title")]
        assert re.findall(rf"^\*\*({heading} \d+)\.\*\*$", text, re.M) == titles, \
            f"{name}.ipynb's {kind} headings are not the page's {titles}"
    body = page.select_one("article") or page
    refs = [markdown_of(span) for span in body.select("span.std-numref, span.std-ref, span.std-term, "
                                                       'a.reference.internal[href*="#equation-"]')
            if not span.find_parent("figcaption")]
    assert len(refs) >= len(re.findall(r"\{(?:numref|ref|term|eq)\}`", "\n".join(source_markdown(name))))
    missing = in_order(refs, text)
    assert not missing, f"references of {name}.html that its notebook lacks, or has out of order: {missing[:5]}"


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
    assert set(IN_A_READERS_ENVIRONMENT) <= set(EXECUTED_PAGES)


def install_lines(nb) -> list[str]:
    """The ``pip install`` lines of a notebook's first cell (inside its fenced block)."""
    block = re.search(r"^```\n(.*?)^```", nb.cells[0].source, re.M | re.S)
    assert block, f"no install block in {nb.cells[0].source[:200]}"
    return [line for line in block.group(1).splitlines() if line.startswith("pip install ")]


#: Runs one notebook from a fresh kernel of the environment's own Python, in an empty folder; the
#: last cell it adds prints the kernel's ``sys.prefix``, to prove which environment ran it.
RUN_NOTEBOOK = """
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
for cell in nb.cells:
    if cell.cell_type == "code":
        cell.outputs, cell.execution_count = [], None
nb.cells.append(nbformat.v4.new_code_cell("import sys; print('PREFIX', sys.prefix)"))
NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": sys.argv[2]}}).execute()
print(nb.cells[-1].outputs[0].text.strip())
"""


@pytest.fixture(scope="module")
def readers_python(site, tmp_path_factory) -> Path:
    """A new virtual environment with what the notebooks' first cells say to install, run as they
    print it, from a copy of the source's root (``./code``). Pinned to requirements.txt by a constraints file
    (the build's versions; a reader's pip may take newer ones), so the check is the install line's,
    not the package index's of the day."""
    lines = list(dict.fromkeys(line for name in EXECUTED_PAGES
                               for line in install_lines(downloaded_notebook(site, name))))
    assert any('"./code[book]"' in line for line in lines), lines
    where = tmp_path_factory.mktemp("reader")
    # a copy of the package, so that pip's in-tree build (code/build) stays out of this checkout
    shutil.copytree(ROOT / "code", where / "code", ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__"))
    pins = [re.sub(r"\s*#.*", "", line) for line in (ROOT / "requirements.txt").read_text().splitlines()
            if re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*==", line)]
    (where / "constraints.txt").write_text("\n".join(pins) + "\n")
    subprocess.run([sys.executable, "-m", "venv", str(where / "env")], check=True)
    python = where / "env" / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "JUPYTER_PATH", "VIRTUAL_ENV")}
    for line in lines:
        args = shlex.split(line, comments=True)
        subprocess.run([str(python), "-m", *args, "--quiet", "--disable-pip-version-check",
                        "--constraint", str(where / "constraints.txt")], cwd=where, env=env, check=True)
    return python


@pytest.mark.parametrize("name", IN_A_READERS_ENVIRONMENT)
def test_downloaded_notebook_runs_in_an_environment_made_from_its_install_line(site, readers_python,
                                                                               name, tmp_path):
    """As a reader would: only what the first cell says is installed (not the build's .venv, not
    this checkout's code/ on a path), the notebook run from the top in an empty folder; every
    assert of the chapter holds there. (Its outputs are not compared: a reader's versions may
    differ in the last digits, as the first cell says.)"""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "JUPYTER_PATH", "VIRTUAL_ENV")}
    env["JUPYTER_PATH"] = str(readers_python.parent.parent / "share" / "jupyter")
    path = site / download_links(site, name)[".ipynb"]
    (tmp_path / "work").mkdir()
    done = subprocess.run([str(readers_python), "-c", RUN_NOTEBOOK, str(path), str(tmp_path / "work")],
                          cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{name}.ipynb failed in a reader's environment:\n{done.stderr[-3000:]}"
    prefix = Path(done.stdout.strip().splitlines()[-1].removeprefix("PREFIX "))
    assert prefix.resolve() == readers_python.parent.parent.resolve(), \
        f"{name}.ipynb ran in {prefix}, not in the reader's environment"
