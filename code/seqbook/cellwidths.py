"""Every code cell fits the text column (``tests/test_browser.py`` measures it in a browser).

A code cell with a line of source or printed output longer than its column holds is a warning (an
error under ``-W``), named by page, cell and line: no cell is widened into the right margin, where
the page's contents list sits.

Config values (characters of code a line may hold):

``seqbook_cell_column_chars``
    In the article's column: 83 fit at 1280 px in the 13 px code font of ``layout.css``; the
    default, ``CELL_COLUMN_CHARS``, leaves room for a reader's wider monospace font.
``seqbook_cell_boxed_chars``
    In an exercise or solution box (74 fit there); default ``CELL_BOXED_CHARS``.

``tests/test_book_sources.py`` holds the sources to the same limits; this extension holds every
executed cell, its printed output included, when it is built.
"""

from __future__ import annotations

from .doctree import ancestors

CELL_COLUMN_CHARS = 78
CELL_BOXED_CHARS = 70


def check_cell_widths(app, doctree, docname) -> None:
    """``doctree-resolved``: a warning for each code cell with a line longer than its limit."""
    from docutils import nodes
    from sphinx.util import logging

    logger = logging.getLogger(__name__)
    for cell in doctree.findall(nodes.container):
        if cell.get("nb_element") != "cell_code":
            continue
        boxed = any(isinstance(up, nodes.Admonition) for up in ancestors(cell))
        limit = app.config.seqbook_cell_boxed_chars if boxed else app.config.seqbook_cell_column_chars
        for block in cell.findall(nodes.literal_block):
            long = [line for line in block.astext().splitlines() if len(line) > limit]
            if long:
                where = "in an exercise or solution box" if boxed else "in the text column"
                logger.warning(f"a code cell's {'output' if 'output' in block.get('classes', []) else 'line'}"
                               f" is {len(long[0])} characters, {where} {limit} fit: {long[0][:60]!r}…",
                               location=block if block.line else cell)


def setup(app):
    app.add_config_value("seqbook_cell_column_chars", CELL_COLUMN_CHARS, "html", int)
    app.add_config_value("seqbook_cell_boxed_chars", CELL_BOXED_CHARS, "html", int)
    app.connect("doctree-resolved", check_cell_widths)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
