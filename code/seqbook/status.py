"""The status page: a text mark for each chapter's run, not an emoji.

myst-nb's execution table (``{nb-exec-table}``) marks a run with ✅ or ❌, which shows as an empty
box where no emoji font is installed; the cell says "succeeded" or "failed" instead, with a check
mark drawn by CSS (``book/_static/layout.css``). The table gets the class ``exec-table``, which
layout.css sets in a smaller type with narrower cells on a phone, the status word hidden from view
there (``exec-word``; the mark stays, a screen reader still reads the word), so that its last
column is on screen at 390 px.
"""

from __future__ import annotations

from .doctree import ancestors

#: myst-nb's marks of a run, and the word and CSS class the status page shows instead.
RUN_MARKS = {"\N{WHITE HEAVY CHECK MARK}": ("succeeded", "exec-ok"),
             "\N{CROSS MARK}": ("failed", "exec-failed")}


def status_marks(app, doctree, docname) -> None:
    """``doctree-resolved``: every run mark of a table replaced by its word (``RUN_MARKS``)."""
    from docutils import nodes

    for text in list(doctree.findall(nodes.Text)):
        table = next((up for up in ancestors(text) if isinstance(up, nodes.table)), None)
        if text.astext() in RUN_MARKS and table is not None:
            word, css = RUN_MARKS[text.astext()]
            mark = nodes.inline("", "", nodes.inline(text=word, classes=["exec-word"]),
                                classes=["exec-status", css])
            text.parent.replace(text, mark)
            if "exec-table" not in table["classes"]:  # compact on a phone (layout.css)
                table["classes"].append("exec-table")


def setup(app):
    app.connect("doctree-resolved", status_marks)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
