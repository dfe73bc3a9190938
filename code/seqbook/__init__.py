"""Sphinx extensions of the book *From Word2Vec to contextual embeddings* (not the models: those
are ``seqmodels``). ``conf.py`` is configuration only; what the build does is here.

Each module is an extension in its own right, with a ``setup(app)``; ``extensions = ["seqbook"]``
sets up all of them (``MODULES``, in that order). Importing any of them changes nothing on disk or
in the environment: what a build must do to either (take the OpenBLAS kernel, prepare the
execution cache) it does in its ``config-inited`` and ``builder-inited`` handlers.

Execution
    - ``seqbook.cachekeys``: what a chapter reads (the package's modules it imports, through
      subpackages, and the data files they name), hashed into its execution-cache key.
    - ``seqbook.execution``: the execution cache, one per environment (pins, Python, precision,
      OpenBLAS kernel), and the one kernel every chapter of a build runs on.
Pages
    - ``seqbook.twolayers``: the book in two layers, a chapter and its evidence page: the
      ``{chapter-opening}`` directive with a reading time, the ``{evidence}`` and
      ``{reading-time}`` roles, and the dependency of a page on the pages it pastes values from.
    - ``seqbook.mathml``: formulas written as MathML, set in a subset of STIX Two Math.
    - ``seqbook.figures``: each figure links to its own file.
    - ``seqbook.highlight``: code highlighted without the spans that change nothing.
    - ``seqbook.a11y``: accessibility fixes of citations and hidden code cells.
    - ``seqbook.status``: the status page's run marks as words.
    - ``seqbook.cellwidths``: a code cell wider than the text column fails the build.
    - ``seqbook.apidocs``: the API pages, from seqmodels' docstrings (autodoc, and napoleon for
      their NumPy style).
Site
    - ``seqbook.downloads``: each chapter's executed notebook, readable in plain Jupyter.
    - ``seqbook.fonts``: the theme's icon fonts cut down to the icons the site shows.
    - ``seqbook.assets``: stylesheets and scripts final before a page links them, so their
      ``?v=`` queries do not depend on the build's history.
    - ``seqbook.searchindex``: the search index keeps the index entries (the glossary's terms) of
      pages a build does not write again.

Config value ``seqbook_code_hash`` (set when the configuration is read): a hash of ``conf.py`` and
of these modules. They write part of every page, so an edit of them must rewrite every page, as an
edit of a setting does; Sphinx compares settings, not code, so their hash is one (changing it
re-reads the sources; execution stays cached).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

#: The extensions ``setup`` sets up, in order.
MODULES = ("execution", "cachekeys", "twolayers", "mathml", "figures", "highlight", "a11y", "status",
           "cellwidths", "apidocs", "downloads", "fonts", "assets", "searchindex")


def code_hash(confdir: Path) -> str:
    """SHA-256 (16 hex digits) of ``conf.py`` in ``confdir`` and of every module of this package."""
    digest = hashlib.sha256()
    for path in [Path(confdir) / "conf.py", *sorted(Path(__file__).parent.glob("*.py"))]:
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _set_code_hash(app, config) -> None:
    config.seqbook_code_hash = code_hash(Path(app.confdir))


def setup(app):
    for name in MODULES:
        app.setup_extension(f"seqbook.{name}")
    app.add_config_value("seqbook_code_hash", "", "env", str)
    app.connect("config-inited", _set_code_hash)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
