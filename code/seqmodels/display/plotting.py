"""The book's figure style, set once for every chapter.

- Transparent backgrounds with dark-grey ink and a colour-blind-safe palette (Okabe & Ito).
  The theme puts a white card behind images in dark mode, so the same file reads in both themes.
- SVG output with a fixed ``svg.hashsalt`` and no date in its metadata, so two builds write the
  same bytes, made lighter by :func:`seqmodels.display.explore.compact_svg`.
"""

from __future__ import annotations

import matplotlib as mpl

#: Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")

INK = "#333333"

#: The matplotlib settings of every figure of the book (:func:`use_book_style` applies them).
BOOK_RC = {
    "figure.figsize": (6.4, 3.6),
    "figure.dpi": 100,
    "figure.facecolor": "none",
    "axes.facecolor": "none",
    "savefig.facecolor": "none",
    "savefig.transparent": True,
    "savefig.bbox": "tight",
    "axes.prop_cycle": mpl.cycler(color=PALETTE),
    "axes.edgecolor": INK,
    "axes.labelcolor": INK,
    "axes.titlecolor": INK,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#999999",
    "grid.alpha": 0.3,
    "xtick.color": INK,
    "ytick.color": INK,
    "text.color": INK,
    "legend.frameon": False,
    "font.size": 10,
    "svg.hashsalt": "seqmodels-book",
    "svg.fonttype": "path",
    "image.cmap": "viridis",
}


def use_book_style(figure_format: str = "svg") -> None:
    """Apply :data:`BOOK_RC` and, inside Jupyter, emit figures as ``figure_format``.

    Raises
    ------
    ValueError
        ``figure_format`` not one of ``"svg"``, ``"png"``, ``"pdf"``, ``"retina"``, ``"jpeg"``.

    >>> import matplotlib as mpl
    >>> use_book_style()
    >>> mpl.rcParams["svg.hashsalt"]
    'seqmodels-book'
    """
    if figure_format not in ("svg", "png", "pdf", "retina", "jpeg"):
        raise ValueError(f"figure_format must be one of svg, png, pdf, retina, jpeg, got {figure_format!r}")
    mpl.rcParams.update(BOOK_RC)
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: nothing to configure
        return
    if get_ipython() is not None:
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        # No creation date in SVG/PDF metadata: the same figure gives the same bytes on every build
        # (matplotlib would otherwise write the clock or SOURCE_DATE_EPOCH, which moves per commit).
        metadata = {"Date": None} if figure_format in ("svg", "pdf") else {}
        set_matplotlib_formats(figure_format, metadata=metadata)
        if figure_format == "svg":  # lighter SVG, drawn the same (seqmodels.display.explore.compact_svg)
            from matplotlib.figure import Figure

            from seqmodels.display.explore import compact_svg

            svg = get_ipython().display_formatter.formatters["image/svg+xml"]
            plain = svg.lookup_by_type(Figure)     # the one set_matplotlib_formats just registered
            svg.for_type(Figure, lambda fig: compact_svg(plain(fig)))
