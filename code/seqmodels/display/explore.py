"""Figures a reader can explore on the static site: one control, one figure per setting.

:func:`explorable` draws a figure for every value of a parameter when the book is built and returns
an :class:`Explorable`, which a notebook displays as HTML: a labelled slider (``<input
type="range">``) or menu (``<select>``), and the figure of the chosen value, with its own alt text.
Nothing is computed in the reader's browser and nothing is loaded from elsewhere: every state is an
SVG written into the page, and ``book/_static/explore.js`` (a few lines, no library) shows the one
the control selects. Without JavaScript the control stays hidden and the default figure shows, as
an ordinary image.

The SVGs are matplotlib's, written with a fixed ``svg.hashsalt`` and no date (two builds give the
same bytes), with comments, metadata and unused group names dropped and coordinates rounded to
0.01 pt to keep the page light.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from io import StringIO
from typing import Any, Callable, Sequence
from urllib.parse import quote

#: Most states one control may hold: each is a whole figure in the page.
MAX_STATES = 12
#: The kinds of control a reader moves: a slider over ordered settings, or a menu.
CONTROLS = ("range", "select")
_NAME = re.compile(r"[a-z][a-z0-9-]*\Z")


@dataclass(frozen=True)
class State:
    """One setting of the control: its text (``"ρ = 0.9"``), alt text and SVG."""

    text: str
    alt: str
    svg: str


@dataclass(frozen=True)
class Explorable:
    """A figure with a control; shown as HTML by IPython (``_repr_html_``). Made by :func:`explorable`."""

    name: str
    label: str
    control: str
    states: tuple[State, ...]
    default: int

    def __repr__(self) -> str:
        texts = ", ".join(s.text for s in self.states)
        return f"<Explorable {self.name!r}: {self.label}, {len(self.states)} states ({texts})>"

    def _repr_html_(self) -> str:
        return self.html()

    def html(self) -> str:
        """The control, the default state as an ``<img>`` and the other states as SVG data blocks."""
        ident = f"explore-{self.name}"
        shown = self.states[self.default]
        attr = html.escape
        if self.control == "range":
            widget = (f'<input type="range" id="{ident}" min="0" max="{len(self.states) - 1}" step="1" '
                      f'value="{self.default}" aria-valuetext="{attr(shown.text)}">'
                      f'<output for="{ident}" aria-live="polite">{attr(shown.text)}</output>')
        else:
            options = "".join(f'<option value="{i}"{" selected" if i == self.default else ""}>{attr(s.text)}</option>'
                              for i, s in enumerate(self.states))
            widget = f'<select id="{ident}">{options}</select>'
        others = "".join(
            f'<script type="image/svg+xml" data-state="{i}" data-alt="{attr(s.alt)}" data-text="{attr(s.text)}">'
            f"{s.svg}</script>" for i, s in enumerate(self.states) if i != self.default)
        return (f'<div class="sm-explore" data-sm-explore="{self.name}">'
                f'<div class="sm-explore-control" hidden><label for="{ident}">{attr(self.label)}</label>{widget}</div>'
                f'<img class="sm-explore-figure" src="{data_uri(shown.svg)}" alt="{attr(shown.alt)}" '
                f'data-state="{self.default}" data-text="{attr(shown.text)}">{others}</div>')


def svg_text(fig) -> str:
    """A matplotlib figure as compact SVG text (the figure is closed).

    Written with the current rcParams (``savefig.bbox`` and the rest of the book style), a fixed
    ``svg.hashsalt`` (``"seqmodels-book"`` unless one is set) and no date; XML comments,
    metadata and unreferenced group ids are dropped and coordinates rounded to 0.01 pt.

    Raises
    ------
    ValueError
        ``fig`` is not a matplotlib figure.
    """
    import matplotlib as mpl
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        raise ValueError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    buffer = StringIO()
    salt = mpl.rcParams["svg.hashsalt"] or "seqmodels-book"
    with mpl.rc_context({"svg.hashsalt": salt}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(fig)
    svg = compact_svg(buffer.getvalue())
    if "</script" in svg.lower():
        raise ValueError("fig drew text that would end the page's SVG data block ('</script')")
    return svg


def compact_svg(svg: str) -> str:
    """Matplotlib's SVG text, lighter and drawn the same: XML comments, metadata and unreferenced
    group ids dropped, whitespace between tags removed, coordinates rounded to 0.01 pt (far below
    a pixel at any zoom a reader uses), a glyph's ``scale()`` kept exact. The book's figures
    (:func:`seqmodels.display.plotting.use_book_style`) and explorable states are written through it.

    Raises ``ValueError`` unless ``svg`` is the text of an SVG document.

    >>> compact_svg('<svg>\\n <!-- a comment --> <g id="axes_1"><path d="M 0.123456 1.5 L 2 3"/></g></svg>')
    '<svg><g><path d="M 0.12 1.5 L 2 3"/></g></svg>'
    """
    if not isinstance(svg, str) or not svg.lstrip().startswith(("<svg", "<?xml", "<!DOCTYPE")):
        raise ValueError(f"svg must be the text of an SVG document, got {str(svg)[:40]!r}")
    svg = re.sub(r"<!--.*?-->|<metadata>.*?</metadata>", "", svg, flags=re.S)
    svg = re.sub(r'(\sd=")([^"]*)"', lambda m: m.group(1) + _round_path(m.group(2)) + '"', svg)
    # other coordinates (x, y, sizes, translations) to 0.01 pt too, but never a glyph's scale()
    svg = re.sub(r"scale\([^)]*\)|-?\d+\.\d{3,}", lambda m: m.group() if m.group().startswith("s")
                 else _round_path(m.group()), svg)
    # the names matplotlib gives its groups ("xtick_1", "legend_1") are not referenced: dropped
    used = set(re.findall(r'#([^"\s)]+)', svg))
    svg = re.sub(r'<g id="([^"]*)"', lambda m: m.group() if m.group(1) in used else "<g", svg)
    return re.sub(r">\s+<", "><", svg).strip()


def _round_path(d: str) -> str:
    """Path data with every number rounded to two decimals (0.01 pt, far below a pixel)."""
    def short(m: re.Match) -> str:
        text = f"{float(m.group()):.2f}".rstrip("0").rstrip(".")
        return "0" if text in ("-0", "") else text
    return re.sub(r"-?\d+\.\d+", short, " ".join(d.split()))


def data_uri(svg: str) -> str:
    """``svg`` as a ``data:`` URI, percent-encoding only what a URI cannot hold literally.

    Raises ``ValueError`` unless ``svg`` is the text of an SVG document.

    >>> data_uri('<svg width="1"><path d="M 0 0"/></svg>')
    "data:image/svg+xml;charset=utf-8,%3Csvg width='1'%3E%3Cpath d='M 0 0'/%3E%3C/svg%3E"
    """
    if not isinstance(svg, str) or not svg.lstrip().startswith(("<svg", "<?xml", "<!DOCTYPE")):
        raise ValueError(f"svg must be the text of an SVG document, got {str(svg)[:40]!r}")
    text = " ".join(svg.replace('"', "'").split())
    return "data:image/svg+xml;charset=utf-8," + quote(text, safe=" '=:/;,.-_()!*~+@$?[]{}|^`")


def _strings(arg: str, fn, values) -> list[str]:
    """``fn(value)`` for every value, each checked to be a non-empty string (``arg`` names ``fn``)."""
    out = []
    for value in values:
        result = fn(value)
        if not isinstance(result, str) or not result.strip():
            raise ValueError(f"{arg} must return a non-empty string, got {result!r} for {value!r}")
        out.append(result)
    return out


def explorable(draw: Callable[[Any], Any], values: Sequence, *, name: str, label: str,
               alt: Callable[[Any], str], text: Callable[[Any], str] = str, default=None,
               control: str = "range") -> Explorable:
    """Draw ``draw(value)`` for every one of ``values`` and return them behind one control.

    Parameters
    ----------
    draw
        ``value -> matplotlib Figure``; each figure is rendered to SVG and closed.
    values
        the settings, in the control's order (2 to :data:`MAX_STATES` of them).
    name
        lower-case id of the figure on its page (letters, digits, ``-``); must be unique there.
    label
        the control's visible label, for example ``"spectral radius of the RNN"``.
    alt
        ``value -> str``: the alt text of that state's figure (what it shows, from the numbers).
    text
        ``value -> str``: how the control names the value (``"ρ = 0.9"``); distinct per value.
    default
        the value shown first and without JavaScript (default: the first).
    control
        ``"range"`` (a slider, for ordered values) or ``"select"`` (a menu, for names).

    Raises
    ------
    ValueError
        ``draw``, ``alt`` or ``text`` not callable or returning the wrong thing (not a Figure, an
        empty or repeated text), ``values`` empty, with one value or more than :data:`MAX_STATES`,
        ``default`` not among them, ``name`` not a lower-case id, ``label`` empty, or ``control``
        not one of :data:`CONTROLS`; the message names the argument.

    >>> import matplotlib.pyplot as plt
    >>> def line(slope):
    ...     fig, ax = plt.subplots()
    ...     ax.plot([0, 1], [0, slope])
    ...     return fig
    >>> ex = explorable(line, [1, 2, 3], name="slope", label="slope", alt=lambda s: f"A line of slope {s}.")
    >>> ex
    <Explorable 'slope': slope, 3 states (1, 2, 3)>
    >>> ex.states[1].alt, ex.html().count('type="image/svg+xml"')
    ('A line of slope 2.', 2)
    """
    for arg, fn in (("draw", draw), ("alt", alt), ("text", text)):
        if not callable(fn):
            raise ValueError(f"{arg} must be callable (value -> {'Figure' if arg == 'draw' else 'str'}), "
                             f"got {type(fn).__name__}")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"name must be a lower-case id (a letter, then letters, digits or '-'), got {name!r}")
    if not isinstance(label, str) or not label.strip():
        raise ValueError(f"label must be a non-empty string, got {label!r}")
    if control not in CONTROLS:
        raise ValueError(f"control must be one of {CONTROLS}, got {control!r}")
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"values must be a list or tuple of settings, got {type(values).__name__}")
    values = list(values)
    if not 2 <= len(values) <= MAX_STATES:
        raise ValueError(f"values must hold 2 to {MAX_STATES} settings, got {len(values)}")
    if default is None:
        index = 0
    else:
        matches = [i for i, v in enumerate(values) if v == default]
        if not matches:
            raise ValueError(f"default must be one of values {values}, got {default!r}")
        index = matches[0]
    texts = _strings("text", text, values)
    if len(set(texts)) != len(texts):
        raise ValueError(f"text must name every value differently, got {texts}")
    alts = _strings("alt", alt, values)
    states = []
    for value, shown, described in zip(values, texts, alts):
        fig = draw(value)
        try:
            svg = svg_text(fig)
        except ValueError as err:
            raise ValueError(f"draw must return a matplotlib Figure for {value!r}: {err}") from None
        states.append(State(shown, described, svg))
    return Explorable(name, label, control, tuple(states), index)
