"""Math: MathML written at build time, set in a math font served by the site.

Every formula is converted from LaTeX to MathML by latex2mathml when its page is written; current
Chromium, Firefox and Safari render MathML natively and screen readers read it, so pages load no
math script (MathJax's bundle was 1.16 MB of a 2.4 MB page). The extension registers the HTML math
renderer ``mathml`` (``html_math_renderer = "mathml"`` in conf.py). A TeX command latex2mathml
cannot convert fails the build (``ValueError``) rather than showing TeX on the page.

The font is STIX Two Math (SIL Open Font License), shipped inside the ziamath wheel, cut down when
the build finishes to the characters the book's formulas use (with the variants and pieces its
stretchy brackets need) and renamed "Book Math" (``MATH_FAMILY``), written as
``_static/book-math.woff2`` (``MATH_FONT``), which ``book/_static/layout.css`` names, so every
reader sees the same glyphs.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

from .fonts import subset

#: The math font's file in the site's ``_static``, and its family name (the stylesheet's).
MATH_FONT = "book-math.woff2"
MATH_FAMILY = "Book Math"


def mathml(latex: str, display: str) -> str:
    """The MathML of a LaTeX formula; ``display`` is ``"inline"`` or ``"block"``."""
    from latex2mathml.converter import convert

    # latex2mathml knows align* (an mtable with right/left column pairs) but not aligned
    latex = re.sub(r"\\(begin|end)\{aligned\}", r"\\\1{align*}", latex)
    try:
        markup = convert(latex.strip(), display=display)
    except Exception as err:  # noqa: BLE001 - latex2mathml raises bare exceptions for bad TeX
        raise ValueError(f"latex2mathml cannot convert {latex!r}: {err}") from err
    if re.search(r">[^<]*\\[A-Za-z]", markup) or "<mi>&</mi>" in markup:
        raise ValueError(f"latex2mathml left a TeX command unconverted in {latex!r}: {markup[:200]}")
    return function_spacing(_NAMED_OPERATOR.sub(r"<mi>\1</mi>", markup))


#: TeX's thin space (3 mu) around a function name such as log or tanh: latex2mathml writes \log as
#: a plain <mi>log</mi>, which MathML sets with no space, so "\log p" read "logp". It writes
#: \operatorname{softmax} and \max as <mo>, which MathML sets with an operator's thick space on
#: both sides, "softmax (z)": those become <mi> too (``_NAMED_OPERATOR``), spaced as TeX spaces them.
_THIN = '<mspace width="0.1667em"></mspace>'
_NAMED_OPERATOR = re.compile(r"<mo>([A-Za-z]{2,})</mo>")
_FUNCTION = r"<mi>[A-Za-z]{2,}</mi>"  # in this book every name of two or more letters is a function's
#: ( and [, also sized (\Big): no space before them, as in TeX; nor before a space TeX writes (\!)
_OPEN = r'(?:<mo stretchy="false">|<mo minsize="[^"]*" maxsize="[^"]*">)(?:&#x000(?:28|5B);|\(|\[)</mo>|<mspace'


#: A function name as an operand: the name alone, or the name with a script ("\log_2"), whose
#: space goes outside the script element (an <msub> takes exactly two children).
_OPERATOR = rf"(?:(?<!<msub>)(?<!<msup>)(?<!<msubsup>){_FUNCTION}|<(?P<script>msub|msup|msubsup)>{_FUNCTION}.*?</(?P=script)>)"


def function_spacing(markup: str) -> str:
    """A thin space after a function name unless an opening bracket follows (TeX's Op-Open pair has
    none), and before it after a symbol, number or closing bracket (Ord-Op and Close-Op have one).
    ``tests/test_site.py`` checks the written pages."""
    markup = re.sub(f"({_OPERATOR})(?!{_OPEN}|</)", lambda m: m.group(1) + _THIN, markup)
    return re.sub(r"(</mi>|</mn>|</msub>|</msup>|&#x00029;</mo>|&#x0005D;</mo>)(?=" + _OPERATOR + ")",
                  lambda m: m.group(1) + _THIN, markup)


def visit_math(self, node) -> None:
    from docutils import nodes

    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate nohighlight"))
    self.body.append(mathml(node.astext(), "inline") + "</span>")
    raise nodes.SkipNode


def visit_displaymath(self, node) -> None:
    """As sphinx.ext.mathjax writes a display: its number and permalink, then the formula."""
    from docutils import nodes
    from sphinx.locale import _
    from sphinx.util.math import get_node_equation_number

    numbered = bool(node["number"])
    self.body.append(self.starttag(node, "div", CLASS="math notranslate nohighlight"
                                   + (" numbered" if numbered else "")))
    if numbered:
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    parts = [part for part in node.astext().split("\n\n") if part.strip()]
    latex = node.astext() if node.get("nowrap") or len(parts) == 1 else (
        r"\begin{align*}" + r"\\".join(parts) + r"\end{align*}")
    # The formula sits in a box of its own that scrolls sideways when the formula is wider than the
    # column (a phone), from the formula's start; it can take the keyboard's focus (tabindex), so a
    # reader without a pointer can scroll it too, and says what it is to a screen reader.
    label = f"Equation ({number})" if numbered else "Equation"
    self.body.append(f'<div class="math-box" tabindex="0" role="group" aria-label="{label}">'
                     + mathml(latex, "block") + "</div></div>\n")
    raise nodes.SkipNode


def write_math_font(app, exception) -> None:
    """``build-finished``: the math font, subset to the characters of every formula in the written
    pages (read back from them: pages are written by parallel workers), plus printable ASCII."""
    if exception is not None or app.builder.format != "html":
        return
    import html

    source = Path(metadata.distribution("ziamath").locate_file("ziamath/fonts/STIXTwoMath-Regular.ttf"))
    chars = {chr(c) for c in range(0x20, 0x7F)}
    for page in sorted(Path(app.outdir).rglob("*.html")):
        for formula in re.findall(r"<math\b.*?</math>", page.read_text(encoding="utf-8"), re.S):
            chars |= set(html.unescape(re.sub(r"<[^>]+>", "", formula)))
            # glyphs the browser draws itself, not written in the text (with their larger sizes,
            # which the subset keeps through the font's MATH table)
            chars |= {glyph for tag, glyph in DRAWN_GLYPHS.items() if f"<{tag}" in formula}
            # a one-letter <mi> is drawn in its italic form, a character of its own (MathML Core's
            # math-auto): x as U+1D465; without it the browser takes it from another font
            chars |= {math_italic(html.unescape(c)) for c in re.findall(r"<mi>(&#x[0-9A-Fa-f]+;|[^<&])</mi>", formula)}
    font = subset(source, {ord(c) for c in chars if not c.isspace()})
    # A subset is a Modified Version under the OFL, which may not keep the Reserved Font Name
    # "STIX": the family is renamed; the copyright and licence records stay.
    names = {1: MATH_FAMILY, 3: f"{MATH_FAMILY} subset", 4: MATH_FAMILY, 6: MATH_FAMILY.replace(" ", ""),
             16: MATH_FAMILY}
    for record in font["name"].names:
        if record.nameID in names:
            record.string = names[record.nameID]
    dest = Path(app.outdir) / "_static" / MATH_FONT
    dest.parent.mkdir(parents=True, exist_ok=True)
    font.save(dest, reorderTables=True)


#: MathML elements whose glyph the browser draws from the math font without it being in the text:
#: the radical sign of a square root (and of an n-th root). Without it in the subset, every √ of
#: the book was drawn as nothing.
DRAWN_GLYPHS = {"msqrt": "\N{SQUARE ROOT}", "mroot": "\N{SQUARE ROOT}"}


def math_italic(char: str) -> str:
    """The character MathML Core draws for a one-character ``<mi>`` (``text-transform: math-auto``):
    the Mathematical Italic form of a Latin or Greek letter, of nabla or of the partial sign (h is
    U+210E, Planck's constant); ``char`` itself where there is none (a digit, an operator)."""
    import unicodedata

    if char == "h":
        return "\N{PLANCK CONSTANT}"
    name = unicodedata.name(char, "")
    for word in ("LATIN ", "GREEK ", "LETTER ", "LUNATE "):
        name = name.replace(word, "")
    try:
        return unicodedata.lookup("MATHEMATICAL ITALIC " + name)
    except KeyError:
        return char


def setup(app):
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_displaymath, None))
    app.connect("build-finished", write_math_font)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
