"""Small helpers on docutils trees, shared by the book's extensions."""

from __future__ import annotations


def ancestors(node):
    """The nodes above ``node``, nearest first, up to the document."""
    while node.parent is not None:
        node = node.parent
        yield node
