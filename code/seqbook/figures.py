"""Figures: each image of a figure links to its own file, to be seen at full size.

On a phone a figure drawn for the page's width is shrunk to the screen (a 700-px figure to about
340 px, its text to about 5 px); a tap on it opens it alone, where it can be zoomed. The link has
the class ``figure-file`` (``book/_static/layout.css`` makes it as wide as the figure).
"""

from __future__ import annotations


def visit_image(self, node) -> None:
    """HTML: an image inside a figure is written inside a link to its own file."""
    from html import escape

    from docutils import nodes

    start = len(self.body)
    type(self).visit_image(self, node)  # writes <img>, with the URI rewritten to the site's copy
    if isinstance(node.parent, nodes.figure):
        self.body.insert(start, f'<a class="figure-file" href="{escape(node["uri"])}">')
        node["seqbook_linked"] = True


def depart_image(self, node) -> None:
    type(self).depart_image(self, node)
    if node.get("seqbook_linked"):
        self.body.append("</a>")


def setup(app):
    from docutils import nodes

    app.add_node(nodes.image, override=True, html=(visit_image, depart_image))
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
