"""Sphinx configuration for 'From Word2Vec to contextual embeddings'.

Build with ``make html`` (sources in ``book/``, this file at the top level, ``-c .``).
Every chapter is a MyST notebook that myst-nb executes at build time; see the README.
"""

from __future__ import annotations

import hashlib
import re
import os
import shutil
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent
BUILDDIR = Path(os.environ.get("SEQMODELS_BUILDDIR", ROOT / "_build")).resolve()

project = "From Word2Vec to contextual embeddings"
author = "The seqmodels book authors"
copyright = "2026, " + author
root_doc = "index"
language = "en"

extensions = [
    "myst_nb",
    "sphinxcontrib.bibtex",
    "sphinx_exercise",
    "sphinx_togglebutton",
    "sphinx.ext.mathjax",
]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "conftest.py", "_templates", "_static"]
templates_path = ["book/_templates"]  # accessibility fixes of theme templates (see each file)
nitpicky = True
numfig = True
numfig_secnum_depth = 0

# --- MyST and notebook execution ---------------------------------------------------------------
myst_enable_extensions = ["amsmath", "colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3

nb_execution_mode = "cache"
nb_execution_timeout = 1200  # seconds per cell; experiments take seconds to a minute alone, several times that on a shared, loaded machine
nb_execution_raise_on_error = True  # a cell that raises fails the build
nb_execution_show_tb = True  # ... and the log shows its traceback
nb_execution_in_temp = False  # cells run in book/, next to their chapter
nb_merge_streams = True


# Which chapters re-execute when code/ changes. jupyter-cache keys a notebook on its cells' source
# and its `kernelspec` metadata, nothing else, so an edit inside seqmodels would reuse stale outputs.
# Each chapter's code cells, as myst-nb reads them, are parsed with `ast` for the seqmodels modules
# they import; those modules (and what they import in turn, also found with `ast`) are hashed, and
# the hash is written into the chapter's kernelspec metadata as it is read. Sphinx is also told the
# chapter depends on those files. An edit in one module then re-reads and re-executes exactly the
# chapters that import it, directly or not. Whatever the parser cannot pin down (a bare
# `import seqmodels`, `from seqmodels import *`, a computed `import_module(...)`, a cell that does
# not parse) counts as depending on every module: a needless re-execution, never a stale page.
PACKAGE = ROOT / "code" / "seqmodels"
_EVERYTHING = None  # marker: the code can reach any module of the package


def _package_modules() -> set[str]:
    return {path.stem for path in PACKAGE.glob("*.py")}


def _imported_modules(source: str, *, inside_package: bool) -> set[str] | None:
    """The seqmodels modules that Python ``source`` imports, by name (``rnn`` for
    ``seqmodels/rnn.py``); None when it may reach any of them. ``inside_package``: ``source`` is a
    module of seqmodels, so relative imports count too."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return _EVERYTHING
    modules = _package_modules()
    found: set[str] = set()

    def from_package(names) -> bool:  # `from seqmodels import a, b` / `from . import a, b`
        for alias in names:
            if alias.name == "*":
                return False
            if alias.name in modules:
                found.add(alias.name)
        return True  # other names come from __init__.py, which every chapter depends on anyway

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top, _, rest = alias.name.partition(".")
                if top == "seqmodels":
                    if not rest:
                        return _EVERYTHING  # `import seqmodels`: attribute access can reach anything
                    found.add(rest.partition(".")[0])
        elif isinstance(node, ast.ImportFrom):
            relative = node.level > 0 and inside_package
            if node.level == 0 and node.module is not None and node.module.partition(".")[0] == "seqmodels":
                sub = node.module.partition(".")[2]
            elif relative:
                sub = node.module or ""
            else:
                continue
            if sub:
                found.add(sub.partition(".")[0])
            elif not from_package(node.names):
                return _EVERYTHING
        elif isinstance(node, ast.Call):  # importlib.import_module("seqmodels.x") / __import__(...)
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in ("import_module", "__import__"):
                arg = node.args[0] if node.args else None
                if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                    return _EVERYTHING
                top, _, rest = arg.value.partition(".")
                if top == "seqmodels":
                    if not rest:
                        return _EVERYTHING
                    found.add(rest.partition(".")[0])
                elif arg.value.startswith(".") and inside_package:
                    return _EVERYTHING
    return found


def chapter_code(text: str) -> str:
    """The Python of a MyST notebook's code cells, as myst-nb reads them, with IPython syntax
    (magics, ``!`` commands) turned into the Python the kernel runs."""
    from IPython.core.inputtransformer2 import TransformerManager
    from myst_nb.core.read import read_myst_markdown_notebook

    notebook = read_myst_markdown_notebook(text)
    transform = TransformerManager().transform_cell
    return "\n".join(transform(cell.source) for cell in notebook.cells if cell.cell_type == "code")


def chapter_dependencies(text: str) -> list[Path]:
    """The files of seqmodels a chapter's code can execute: imported modules, their imports,
    and the package's ``__init__.py``. Sorted, so the hash does not depend on scan order."""
    every = sorted(PACKAGE.rglob("*.py"))
    cells = chapter_code(text)
    named = _imported_modules(cells, inside_package=False)
    if named is None:
        return every
    seen: set[str] = set()
    todo = sorted(named | {"__init__"})
    while todo:
        name = todo.pop()
        path = PACKAGE / f"{name}.py"
        if (PACKAGE / name).is_dir():
            return every  # a subpackage: not scanned, so the chapter depends on everything
        if name in seen or not path.is_file():
            continue
        seen.add(name)
        inner = _imported_modules(path.read_text(), inside_package=True)
        if inner is None:
            return every
        todo += sorted(inner - seen)
    return sorted(PACKAGE / f"{name}.py" for name in seen)


def _files_hash(paths) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _stamp_code_dependencies(app, docname, source) -> None:
    """``source-read``: note the chapter's seqmodels files as Sphinx dependencies and write their
    hash into the front matter's ``kernelspec`` block (jupyter-cache hashes that block)."""
    text = source[0]
    if "{code-cell}" not in text:
        return
    deps = chapter_dependencies(text)
    for path in deps:
        app.env.note_dependency(str(path))
    stamped, count = re.subn(r"\A(---\n(?:.*\n)*?kernelspec:[ \t]*\n)", rf"\g<1>  seqmodels_code: {_files_hash(deps)}\n",
                             text, count=1)
    if not count:
        raise RuntimeError(f"{docname}: executed chapters need a `kernelspec:` block in their front matter")
    source[0] = stamped


def _environment_hash(requirements: Path) -> str:
    """The pinned packages and the Python version: a new pin (numpy, matplotlib, ...) can change
    any output, and the status page prints the versions, so it starts an empty cache and, being a
    config value with rebuild 'env', makes Sphinx re-read every chapter."""
    digest = hashlib.sha256(sys.version.encode() + b"\0")
    if requirements.is_file():
        digest.update(requirements.read_bytes())
    return digest.hexdigest()[:16]


seqmodels_environment_hash = _environment_hash(ROOT / "requirements.txt")
_cache_root = BUILDDIR / ".jupyter_cache"
nb_execution_cache_path = str(_cache_root / seqmodels_environment_hash)


def _prepare_cache() -> None:
    """Drop caches of older code, and create the cache database before parallel readers start
    (two workers creating it at once race on the SQLite schema)."""
    if _cache_root.is_dir():
        for old in _cache_root.iterdir():
            if old.name != seqmodels_environment_hash:
                shutil.rmtree(old, ignore_errors=True)
    from jupyter_cache import get_cache

    get_cache(nb_execution_cache_path).db  # noqa: B018  (the property creates the database)


_prepare_cache()

# --- Math, served from this site: MathJax 3.2.2 from the sphinx-mathjax-offline wheel -----------
_MATHJAX_SRC = Path(metadata.distribution("sphinx-mathjax-offline").locate_file(
    "sphinx-mathjax-offline/static/mathjax"))
_MATHJAX_KEEP = ("tex-chtml.js", "a11y", "adaptors", "input", "output/chtml", "sre", "ui")
mathjax_path = "mathjax/tex-chtml.js"
# MathJax 3 loads its CHTML fonts relative to tex-chtml.js, so copying them beside it is enough
# (MathJax 4 would need its font path set; a browser test checks that no font leaves the site).


def _copy_mathjax(app, exception) -> None:
    """Copy only the MathJax files the page can load (the CHTML bundle, its fonts and the
    components it loads on demand), not the SVG and MathML bundles."""
    if exception is not None or app.builder.format != "html":
        return
    dest = Path(app.outdir) / "_static" / "mathjax"
    for item in _MATHJAX_KEEP:
        src = _MATHJAX_SRC / item
        if src.is_dir():
            shutil.copytree(src, dest / item, dirs_exist_ok=True)
        else:
            dest.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / item)


# --- Bibliography -------------------------------------------------------------------------------
bibtex_bibfiles = ["book/references.bib"]
bibtex_default_style = "plain"
bibtex_reference_style = "author_year"

# --- HTML ---------------------------------------------------------------------------------------
html_theme = "sphinx_book_theme"
html_title = project
html_static_path: list[str] = ["book/_static"]
html_css_files = ["a11y.css"]  # accessibility fixes of the theme's colours (see the file)
html_last_updated_fmt = None  # no build date on pages: two builds must give the same bytes
html_copy_source = True
html_context = {"default_mode": "auto"}  # a first visit must not log "invalid theme mode"
html_theme_options = {
    "use_download_button": True,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "show_toc_level": 2,
    "navigation_with_keys": False,
}


def _offer_notebook(app, pagename, templatename, context, doctree) -> None:
    """Put each chapter's executed notebook in ``_sources/`` and offer it in the download menu.

    myst-nb writes executed notebooks to ``<builddir>/jupyter_execute/``, outside the site; the
    book theme lists an ``.ipynb`` download only when ``ipynb_source`` is set (it does that itself
    only for Binder-style launch buttons). nbformat gives every cell a random id on each read, so
    the copy gets ids derived from the cell's position and source: two builds of the same book
    write the same bytes.
    """
    import nbformat

    executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
    if app.builder.format != "html" or not executed.is_file():
        return
    nb = nbformat.read(executed, as_version=4)
    for number, cell in enumerate(nb.cells):
        digest = hashlib.sha256(cell.source.encode()).hexdigest()[:8]
        cell.id = f"cell-{number}-{digest}"
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.validate(nb)
    nbformat.write(nb, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


# --- Accessibility fixes (each one found by axe-core in tests/test_browser.py) --------------------
def _visit_citation(self, node) -> None:
    """docutils' citation list, with ``role="listitem"`` entries instead of the deprecated
    ``doc-biblioentry``: a ``role="list"`` must contain list items (axe: aria-required-children)."""
    if not isinstance(node.previous_sibling(), type(node)):
        self.body.append('<div role="list" class="citation-list">\n')
    self.body.append(self.starttag(node, "div", classes=[node.tagname], role="listitem"))


def _depart_citation(self, node) -> None:
    self.body.append("</div>\n")
    if not isinstance(node.next_node(descend=False, siblings=True), type(node)):
        self.body.append("</div>\n")


def _visit_hidden_input(self, node) -> None:
    """myst-nb's "Show code cell source" toggle without its aria-label "Toggle hidden content",
    which differed from the visible text (axe: label-content-name-mismatch)."""
    from html import escape

    self.body.append(f'<details class="admonition hide {" ".join(node["classes"])}">\n<summary>\n')
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def setup(app):
    from docutils import nodes
    from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput

    app.add_node(nodes.citation, override=True, html=(_visit_citation, _depart_citation))
    app.add_node(HideCodeCellNode, override=True, html=(_visit_hidden_input, depart_HideCellInput))
    app.add_config_value("seqmodels_environment_hash", "", "env")
    app.connect("source-read", _stamp_code_dependencies)
    app.connect("build-finished", _copy_mathjax)
    # Before the theme's own handler (priority 501) builds the download menu.
    app.connect("html-page-context", _offer_notebook, priority=450)
