"""Accessibility fixes of what docutils and myst-nb write (each found by axe-core in
``tests/test_browser.py``).

- Citations: docutils' citation list, with ``role="listitem"`` entries instead of the deprecated
  ``doc-biblioentry``: a ``role="list"`` must contain list items (axe: aria-required-children).
- Hidden code cells: myst-nb's "Show code cell source" toggle without its aria-label "Toggle hidden
  content", which differed from the visible text (axe: label-content-name-mismatch).
"""

from __future__ import annotations


def visit_citation(self, node) -> None:
    """A citation as a list item; the first of a run opens the list."""
    if not isinstance(node.previous_sibling(), type(node)):
        self.body.append('<div role="list" class="citation-list">\n')
    self.body.append(self.starttag(node, "div", classes=[node.tagname], role="listitem"))


def depart_citation(self, node) -> None:
    self.body.append("</div>\n")
    if not isinstance(node.next_node(descend=False, siblings=True), type(node)):
        self.body.append("</div>\n")


def visit_hidden_input(self, node) -> None:
    """myst-nb's toggle of a hidden code cell, its accessible name the visible text."""
    from html import escape

    self.body.append(f'<details class="admonition hide {" ".join(node["classes"])}">\n<summary>\n')
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def setup(app):
    from docutils import nodes

    app.setup_extension("myst_nb")  # its node is overridden here
    from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput

    app.add_node(nodes.citation, override=True, html=(visit_citation, depart_citation))
    app.add_node(HideCodeCellNode, override=True, html=(visit_hidden_input, depart_HideCellInput))
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
