"""The site's stylesheets and scripts are in place, final, before any page links them.

Sphinx links a page's stylesheets and scripts with a query ``?v=<checksum>``, the CRC-32 of the
file in the site's ``_static`` *when the page is written* (no query if the file is not there yet;
computed once per file and process). Two things made that query depend on the build's history
rather than on the files, so that a site built in two steps differed from one built at once
(``tests/test_reproducible.py`` found ``genindex.html`` and ``search.html`` differing by the
``?v=`` of two stylesheets):

1. Three extensions write a stylesheet only when the build *finishes* (``build-finished``),
   after every page is written: myst-nb copies ``mystnb.<hash>.css``, sphinx-exercise copies
   ``exercise.css``, and pydata-sphinx-theme rewrites ``pygments.css`` with its light and dark
   styles over the one Sphinx wrote. A cold build's pages therefore link the first two without a
   query and ``pygments.css`` with the checksum of a file that is not the one served; any later
   build, which finds the files of the earlier one, links them with a query. Sphinx writes
   ``genindex.html`` and ``search.html`` in every build and other pages only when they are out of
   date, so a build run twice in the same folder (``make html`` then ``make test``) differed from
   a clean one in exactly those two pages. ``write_static_files_first`` runs those three writers
   once before the first page is written (after Sphinx copies its own static files), so every
   page of every build links the files it will be served with, with their checksums.
2. A page that is not out of date is not written again when a stylesheet of ``html_static_path``
   changes, so it kept the old query (a browser would keep the old stylesheet for it). The config
   value ``seqbook_static_digest`` (a hash of those files, set when the configuration is read)
   changes with them, and being an ``html`` value it makes Sphinx write every page again.

``check_static_files`` keeps it so: a page that links a local file missing from the site when it
is written, or a linked file that changes after pages were written, is a warning (an error under
``-W``). It also removes ``.buildinfo.bak``, which Sphinx leaves in the site when a setting of the
``html`` kind (``seqbook_static_digest`` among them) changed since the previous build: a clean
build has none.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

#: ``build-finished`` handlers (module.qualname) that write a file the pages link, run once more
#: before the first page is written, and what each writes.
LATE_WRITERS = {
    "myst_nb.sphinx_ext.add_global_html_resources": "myst-nb's mystnb.<hash>.css",
    "sphinx_exercise.copy_asset_files": "sphinx-exercise's exercise.css",
    "pydata_sphinx_theme.pygments.overwrite_pygments_css": "pydata-sphinx-theme's pygments.css",
}


def static_digest(confdir: Path, static_paths) -> str:
    """A hash of every file under the folders ``static_paths`` (relative to ``confdir``, as
    ``html_static_path`` names them): their paths and bytes."""
    digest = hashlib.sha256()
    for entry in static_paths:
        root = (Path(confdir) / entry).resolve()
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        for path in files:
            if path.is_file():
                digest.update(path.relative_to(root.parent).as_posix().encode() + b"\0"
                              + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def set_static_digest(app, config) -> None:
    """``config-inited``: ``seqbook_static_digest`` from the files of ``html_static_path``."""
    config.seqbook_static_digest = static_digest(app.confdir, config.html_static_path)


def _linked(context) -> list[str]:
    """The site-relative paths of the local stylesheets and scripts a page links."""
    found = []
    for asset in [*context.get("css_files", []), *context.get("script_files", [])]:
        name = str(getattr(asset, "filename", asset) or "")
        if name and "://" not in name and "?" not in name:
            found.append(name)
    return found


def _bytes_digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def write_static_files_first(app, pagename, templatename, context, doctree) -> None:
    """``html-page-context``, before any handler that might read a checksum: on the first page
    this process writes, run the ``LATE_WRITERS`` registered for ``build-finished``, then note
    each linked file's bytes (``check_static_files`` compares them when the build ends)."""
    builder = app.builder
    if builder.format != "html":
        return
    seen = getattr(builder, "seqbook_linked_files", None)
    if seen is None:
        for listener in sorted(app.events.listeners.get("build-finished", []), key=lambda l: l.priority):
            handler = listener.handler
            if f"{handler.__module__}.{handler.__qualname__}" in LATE_WRITERS:
                handler(app, None)
        seen = builder.seqbook_linked_files = {}
    out = Path(builder.outdir)
    for name in _linked(context):
        if name not in seen:
            seen[name] = _bytes_digest(out / name)
            if seen[name] is None:
                from sphinx.util import logging

                logging.getLogger(__name__).warning(
                    f"{pagename}: links {name}, which is not in the site when the page is written, so "
                    "its ?v= query depends on the build's order (seqbook.assets: add its writer to "
                    "LATE_WRITERS)")


def check_static_files(app, exception) -> None:
    """``build-finished``, after every other handler: the files the pages link are still the
    bytes they were when the pages were written (as seen by the process that wrote the first page
    and the indices). Also removes ``.buildinfo.bak``, Sphinx's copy of the previous build's record
    when a setting changed, so the site holds only what a clean build writes."""
    if exception is not None or app.builder.format != "html":
        return
    (Path(app.builder.outdir) / ".buildinfo.bak").unlink(missing_ok=True)
    seen = getattr(app.builder, "seqbook_linked_files", None)
    if not seen:
        return
    from sphinx.util import logging

    out = Path(app.builder.outdir)
    changed = sorted(name for name, digest in seen.items() if digest and _bytes_digest(out / name) != digest)
    if changed:
        logging.getLogger(__name__).warning(
            f"linked files changed after pages were written, so their ?v= queries name other bytes: "
            f"{', '.join(changed)} (seqbook.assets: add their writer to LATE_WRITERS)")


def setup(app):
    app.add_config_value("seqbook_static_digest", "", "html", str)
    app.connect("config-inited", set_static_digest)
    app.connect("html-page-context", write_static_files_first, priority=1)
    app.connect("build-finished", check_static_files, priority=10_000)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
