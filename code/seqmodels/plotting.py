"""The book's figure style, set once for every chapter.

- Transparent backgrounds with dark-grey ink and a colour-blind-safe palette (Okabe & Ito).
  The theme puts a white card behind images in dark mode, so the same file reads in both themes.
- SVG output with a fixed ``svg.hashsalt`` and no date in its metadata, so two builds write the
  same bytes.
"""

from __future__ import annotations

import matplotlib as mpl

#: Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")

INK = "#333333"

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
        a bad argument, for example ``figure_format``: wrong type, shape or size, NaN or inf,
        or out of range; the message names the argument.

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


def draw_remedies(ax, facts: dict[str, str]) -> None:
    """Draw the three bottlenecks, each with an arrow to the self-attention remedy and its price.

    ``facts`` supplies the measured detail for each box, keys ``"sequential"``, ``"gradient"``,
    ``"state"`` (bottlenecks) and ``"parallel"``, ``"path"``, ``"access"`` (remedies), ``"price"``.

    Raises
    ------
    ValueError
        ``ax`` not a matplotlib ``Axes``.
    KeyError
        ``facts`` without one of the keys above.
    """
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise ValueError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    missing = [k for k in ("sequential", "gradient", "state", "parallel", "path", "access", "price")
               if k not in facts]
    if missing:
        raise KeyError(f"facts has no entry for {missing}")
    rows = [
        ("Sequential processing", facts["sequential"], "All positions in a few\nmatrix products", facts["parallel"]),
        ("Long gradient paths", facts["gradient"], "Direct path between\nany two positions", facts["path"]),
        ("Fixed-size state", facts["state"], "Every position kept\nand read directly", facts["access"]),
    ]
    ax.set(xlim=(0, 10), ylim=(0, 10.6))
    ax.axis("off")
    left = dict(boxstyle="round,pad=0.5", facecolor="#F8E0D0", edgecolor="#D55E00")
    right = dict(boxstyle="round,pad=0.5", facecolor="#D6ECF8", edgecolor="#0072B2")
    ax.text(2.0, 10.2, "RNN / LSTM bottleneck", ha="center", fontweight="bold")
    ax.text(7.8, 10.2, "Self-attention remedy", ha="center", fontweight="bold")
    for i, (problem, measured, remedy, gained) in enumerate(rows):
        y = 8.4 - 3.0 * i
        ax.text(2.0, y, f"{problem}\n{measured}", ha="center", va="center", bbox=left, fontsize=9)
        ax.text(7.8, y, f"{remedy}\n{gained}", ha="center", va="center", bbox=right, fontsize=9)
        ax.annotate("", xy=(5.6, y), xytext=(4.2, y), arrowprops=dict(arrowstyle="-|>", lw=1.5, color="#333333"))
    ax.text(5.0, 0.2, facts["price"], ha="center", va="center", fontsize=9, style="italic")
