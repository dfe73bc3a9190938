"""Code highlighted without the spans that change nothing.

Token types whose colour, in both of the theme's Pygments styles, is the code block's own text
colour: plain names, punctuation and white space (``PLAIN_TOKENS``). Pygments wraps each such
token in a span all the same (about 4,000 on the LSTM page, 90 kB of its HTML); this extension has
Sphinx's HTML formatter write them bare instead, and ``tests/test_site.py`` checks that the
stylesheet still gives them the block's colour.

The formatter is Sphinx's ``PygmentsBridge.html_formatter``, a class attribute: it is replaced when
the extension is set up (not when the module is imported), once per process.
"""

from __future__ import annotations

#: Pygments token types written without a span of their own.
PLAIN_TOKENS = ("Name", "Punctuation", "Text.Whitespace", "Text")


def lean_code_formatter() -> None:
    """Make Sphinx's HTML formatter write the tokens of ``PLAIN_TOKENS`` without a class (Pygments
    writes a token without a class as bare text). Idempotent."""
    from pygments.token import string_to_tokentype
    from sphinx.highlighting import PygmentsBridge

    plain = {string_to_tokentype(name) for name in PLAIN_TOKENS}
    base = PygmentsBridge.html_formatter
    if getattr(base, "seqbook_lean", False):  # set up already (another Sphinx app, same process)
        return

    class LeanHtmlFormatter(base):
        seqbook_lean = True

        def _get_css_classes(self, ttype):
            return "" if ttype in plain else super()._get_css_classes(ttype)

    PygmentsBridge.html_formatter = LeanHtmlFormatter


def setup(app):
    lean_code_formatter()
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
