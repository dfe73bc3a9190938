"""The search index keeps every page's index entries, whichever pages a build writes.

Sphinx writes ``searchindex.js`` in every build from the pages it writes in that build plus the
index it wrote the time before, which it reads back (``IndexBuilder.load``) -- all of it but the
index entries (the glossary's terms, ``index`` directives). It keeps those in the build
environment (``env._search_index_index_entries``, by page) and fills them only when it writes a
page, after the environment was saved. So the entries of a page not written again were lost: after
a second build in the same folder the search no longer offered the glossary's terms as entries,
and the site differed from a clean build's (``tests/test_reproducible.py`` compares the search
indexes).

``note_index_entries`` (``doctree-read``) fills a page's entries when it is read, from the same
index nodes and in the same way as Sphinx does when it writes the page, so they are saved with the
environment and kept for the pages a later build does not write. Parallel reads are merged
(``env-merge-info``) and a removed page's entries dropped (``env-purge-doc``). Under a Sphinx that
keeps no such store this extension does nothing.

``sort_by_page`` (``env-updated``) orders the store by page name before any page is written.
Sphinx lists an entry's pages in the store's order, which is the order the pages were read (and,
for a page new to the store, written): with parallel reading and writing that order changes from
build to build, and so did ``searchindex.js`` (the entry "module", on every API page). Writing a
page replaces its entries in place, so the order holds.
"""

from __future__ import annotations

_STORE = "_search_index_index_entries"  # Sphinx's (private) store of index entries, by docname


def index_entries(doctree) -> list[tuple[str, str, str]]:
    """The search index's entries of a page: ``(entry, target id, main)`` for every index node,
    as ``sphinx.search.IndexBuilder.feed`` collects them, sorted."""
    from sphinx import addnodes
    from sphinx.util.index_entries import split_index_msg

    found: set[tuple[str, str, str]] = set()
    for node in doctree.findall(addnodes.index):
        for entry_type, value, target_id, main, _category in node["entries"]:
            try:
                result = split_index_msg(entry_type, value)
            except ValueError:
                continue
            target_id = target_id or ""
            if entry_type in {"see", "seealso"}:
                found.add((result[0], target_id, main))
            found |= {(x, target_id, main) for x in result}
    return sorted(found)


def note_index_entries(app, doctree) -> None:
    """``doctree-read``: the page's index entries, in the environment's store."""
    store = getattr(app.env, _STORE, None)
    if store is not None:
        store[app.env.docname] = index_entries(doctree)


def merge(app, env, docnames, other) -> None:
    """``env-merge-info``: the entries of the pages a parallel reader read."""
    store, theirs = getattr(env, _STORE, None), getattr(other, _STORE, None)
    if store is not None and theirs is not None:
        store.update({d: theirs[d] for d in docnames if d in theirs})


def purge(app, env, docname) -> None:
    """``env-purge-doc``: a page read again or removed loses its old entries."""
    store = getattr(env, _STORE, None)
    if store is not None:
        store.pop(docname, None)


def sort_by_page(app, env) -> None:
    """``env-updated``: the store's pages in the order of their names (in place: Sphinx's search
    index builder holds the same dict)."""
    store = getattr(env, _STORE, None)
    if store is not None:
        entries = sorted(store.items())
        store.clear()
        store.update(entries)


def setup(app):
    app.connect("doctree-read", note_index_entries)
    app.connect("env-updated", sort_by_page)
    app.connect("env-merge-info", merge)
    app.connect("env-purge-doc", purge)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
