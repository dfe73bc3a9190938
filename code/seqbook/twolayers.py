"""The book in two layers: a chapter teaches, its evidence page under ``evidence/`` shows how we know.

A chapter (``book/<chapter>.md``) is the teaching path; beneath it, ``book/evidence/<chapter>.md``
sweeps every result the chapter teaches over the settings it could depend on. This extension gives
the chapters what ties the two together:

``{chapter-opening}`` (directive)
    The box a chapter opens with. Its body is MyST with two bullet lists: what the reader will be
    able to do (three to five objectives), then what the chapter assumes. The box ends with the
    reading time, computed from the page's prose words (``prose_words``) at ``WORDS_PER_MINUTE``.

``{evidence}`label``` / ``{evidence}`text <label>``` (role)
    A result's link to the section of an evidence page that sweeps it, shown as "How we know"
    unless a text is given. A label that is not defined fails the build (a ``ref`` with
    ``nitpicky``), and so does one defined outside ``evidence/`` (``_check_evidence_links``).

``{reading-time}`docname``` (role)
    Another page's reading time ("20 min"), for the book's reading path on the index page.

Pasted values
    myst-nb pastes a value glued on another page with ``{glue:text}`evidence/x.md::key:fmt```,
    when the page is written, from that page's ``.glue.json``. The page that pastes is made to
    depend on the page it pastes from, so a change there rewrites it too (``_note_paste_sources``).

Every page's prose word count is written into its HTML as ``<meta name="seqbook:prose-words">``,
where ``tests/test_two_layers.py`` holds each chapter to its budget.
"""

from __future__ import annotations

import math
import re

from docutils import nodes
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import split_explicit_title

logger = logging.getLogger(__name__)

#: A careful reading speed for technical prose with equations and figures (about 2/3 of the
#: 230-250 words a minute usually given for ordinary text).
WORDS_PER_MINUTE = 150
#: The folder of the evidence pages, as a docname prefix.
EVIDENCE_PREFIX = "evidence/"
#: What a result link says when the role gives no text.
EVIDENCE_TEXT = "How we know"

_WORD = re.compile(r"\S+")
_HAS_LETTER_OR_DIGIT = re.compile(r"[^\W_]")


class reading_time(nodes.Inline, nodes.TextElement):
    """Placeholder for a page's reading time; ``docname`` names the page. Replaced by its text when
    the page is written (``_fill_reading_times``), once every page's words are known."""


# --- Counting the prose ----------------------------------------------------------------------------

def _is_skipped(node: nodes.Node) -> bool:
    """Nodes whose words are not prose: code cells (with their outputs, figures and captions),
    code and math blocks, captions, comments, exercises and their solutions."""
    if isinstance(node, (nodes.literal_block, nodes.math_block, nodes.raw, nodes.comment, nodes.caption,
                         nodes.legend, nodes.system_message, nodes.substitution_definition,
                         addnodes.toctree, reading_time)):
        return True
    if isinstance(node, nodes.Element):
        if str(node.get("nb_element", "")).startswith("cell") or "cell" in node.get("classes", ()):
            return True
        name = type(node).__name__
        if name.startswith(("exercise", "solution")):
            return True
    return False


def count_words(text: str) -> int:
    """Words of ``text``: runs of non-space characters with at least one letter or digit (so
    "3,000" and "don't" are one word each, a lone "—" or "=" none).

    >>> count_words("The loss falls — from 4.16 to 2.3, in 3,000 steps.")
    10
    """
    return sum(1 for word in _WORD.findall(text) if _HAS_LETTER_OR_DIGIT.search(word))


def prose_words(doctree: nodes.Node) -> int:
    """The prose words of a page: its text less what ``_is_skipped`` leaves out. An inline formula
    counts as one word, and so does a value pasted from another page (not known until writing)."""
    total = 0
    stack = [doctree]
    while stack:
        node = stack.pop()
        if _is_skipped(node):
            continue
        if isinstance(node, nodes.math) or type(node).__name__ == "PendingGlueReference":
            total += 1
        elif isinstance(node, nodes.Text):
            total += count_words(node.astext())
        else:
            stack.extend(node.children)
    return total


def minutes(words: int) -> int:
    """Reading time in minutes for ``words`` of prose: at ``WORDS_PER_MINUTE``, rounded up to a
    multiple of 5 (an estimate; finer steps would claim a precision it does not have).

    >>> minutes(3000), minutes(1), minutes(0)
    (20, 5, 0)
    """
    if words < 0:
        raise ValueError(f"words must be >= 0, got {words}")
    return 5 * math.ceil(words / WORDS_PER_MINUTE / 5)


def reading_time_text(env, docname: str) -> str:
    """"about 20 minutes" for ``docname``, from the words its read recorded."""
    words = _words(env).get(docname)
    if words is None:
        raise KeyError(f"docname {docname!r}: no prose count recorded (is it a page of the book?)")
    return f"about {minutes(words)} minutes"


def _words(env) -> dict[str, int]:
    if not hasattr(env, "seqbook_prose_words"):
        env.seqbook_prose_words = {}
    return env.seqbook_prose_words


def _links(env) -> dict[str, list[tuple[str, int]]]:
    if not hasattr(env, "seqbook_evidence_links"):
        env.seqbook_evidence_links = {}
    return env.seqbook_evidence_links


# --- The directive and the roles -------------------------------------------------------------------

class ChapterOpening(SphinxDirective):
    """The box a chapter opens with: objectives, assumptions, reading time (see the module doc)."""

    has_content = True

    def run(self) -> list[nodes.Node]:
        box = nodes.container(classes=["chapter-opening"])
        self.set_source_info(box)
        self.state.nested_parse(self.content, self.content_offset, box)
        lists = [child for child in box.children if isinstance(child, nodes.bullet_list)]
        if len(lists) != 2:
            raise self.error("chapter-opening: expected two bullet lists, the objectives and then what "
                             f"the chapter assumes; found {len(lists)}")
        if not 3 <= len(lists[0]) <= 5:
            raise self.error(f"chapter-opening: expected three to five objectives, found {len(lists[0])}")
        lists[0]["classes"].append("chapter-objectives")
        lists[1]["classes"].append("chapter-assumes")
        line = nodes.paragraph(classes=["reading-time"])
        line += nodes.strong("Reading time:", "Reading time:")
        line += nodes.Text(" ")
        line += reading_time(docname=self.env.docname)
        line += nodes.Text(".")
        box += line
        return [box]


def reading_time_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{reading-time}`docname```: that page's reading time, as "about N minutes"."""
    env = inliner.document.settings.env
    target = text.strip()
    if target not in env.found_docs:
        msg = inliner.reporter.error(f"reading-time: no page {target!r}", line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    return [reading_time(rawtext, docname=target)], []


def evidence_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{evidence}`label``` or ``{evidence}`text <label>```: a link to an evidence section."""
    env = inliner.document.settings.env
    explicit, title, target = split_explicit_title(text)
    title = title if explicit else EVIDENCE_TEXT
    target = target.strip().lower()  # as the ``ref`` role takes a label
    xref = addnodes.pending_xref(rawtext, nodes.inline(title, title), refdoc=env.docname, refdomain="std",
                                 reftype="ref", reftarget=target, refexplicit=True, refwarn=True)
    xref.line = lineno
    _links(env).setdefault(env.docname, []).append((target, lineno))
    return [nodes.inline("", "", xref, classes=["evidence-link"])], []  # the class outlives resolving


def evidence_text(text: str) -> str:
    """The text an ``{evidence}`` role shows (for renderings outside HTML, such as downloads).

    >>> evidence_text("ev-x"), evidence_text("the sweep <ev-x>")
    ('How we know', 'the sweep')
    """
    explicit, title, _ = split_explicit_title(text)
    return title if explicit else EVIDENCE_TEXT


# --- Events ----------------------------------------------------------------------------------------

def _purge(app, env, docname: str) -> None:
    _words(env).pop(docname, None)
    _links(env).pop(docname, None)


def _merge(app, env, docnames, other) -> None:
    for docname in docnames:
        if docname in _words(other):
            _words(env)[docname] = _words(other)[docname]
        if docname in _links(other):
            _links(env)[docname] = _links(other)[docname]


def _count(app, doctree) -> None:
    """``doctree-read``: record the page's prose words."""
    _words(app.env)[app.env.docname] = prose_words(doctree)


def _note_paste_sources(app, doctree) -> None:
    """``doctree-read``: a page that pastes values glued on another page depends on that page, so
    a change there makes Sphinx read this one again and write it with the new values."""
    for node in doctree.findall(lambda n: type(n).__name__ == "PendingGlueReference"):
        app.env.note_dependency(str(app.env.doc2path(node["refdoc"])))


def _check_evidence_links(app, env) -> None:
    """``env-check-consistency``: every result link points into an evidence page. (A label defined
    nowhere is reported by the ``ref`` itself.)"""
    labels = env.domaindata["std"]["labels"]
    for docname, links in sorted(_links(env).items()):
        for target, line in links:
            if target in labels and not labels[target][0].startswith(EVIDENCE_PREFIX):
                logger.warning(f"evidence link to {target!r}, which is on {labels[target][0]!r}, not on a "
                               f"page under {EVIDENCE_PREFIX}", location=(docname, line))


def _fill_reading_times(app, doctree, docname: str) -> None:
    """``doctree-resolved``: every reading-time placeholder becomes its text."""
    for node in list(doctree.findall(reading_time)):
        node.replace_self(nodes.Text(reading_time_text(app.env, node["docname"])))


def _word_meta(app, pagename, templatename, context, doctree) -> None:
    """``html-page-context``: the page's prose words as a meta tag, for the budget test."""
    if doctree is not None and pagename in _words(app.env):
        context["metatags"] = context.get("metatags", "") + (
            f'\n<meta name="seqbook:prose-words" content="{_words(app.env)[pagename]}" />')


def setup(app):
    app.add_node(reading_time)
    app.add_directive("chapter-opening", ChapterOpening)
    app.add_role("evidence", evidence_role)
    app.add_role("reading-time", reading_time_role)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("doctree-read", _count)
    app.connect("doctree-read", _note_paste_sources)
    app.connect("env-check-consistency", _check_evidence_links)
    app.connect("doctree-resolved", _fill_reading_times)
    app.connect("html-page-context", _word_meta)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": 1}
