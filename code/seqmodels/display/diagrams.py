"""Diagrams drawn with matplotlib: the skip-gram window of the embeddings chapter and the unrolled
recurrent networks of the RNN chapter.

Nothing here is measured; these are diagrams, drawn by code so they stay in the book's style
(:mod:`seqmodels.display.plotting`: dark-grey ink on a transparent background, Okabe-Ito colours) and
rebuild with it. Every function draws onto a given ``Axes`` and returns what it drew (the pairs
listed, the number of recurrent cells), so a chapter can assert what a figure shows.

- :func:`window_pairs` and :func:`draw_skipgram_window`: one centre word of a sentence, the
  words within ``window`` of it, and the (centre, context) pairs skip-gram trains on;

- :func:`draw_unrolled`: one of the three shapes of use, ``"many_to_one"`` (one label at the end:
  classification), ``"many_to_many"`` (an output at every step: next-token prediction) and
  ``"seq2seq"`` (an encoder reads, a decoder writes: translation);
- :func:`draw_folded_and_unrolled`: the cell with its loop, and the same cell unrolled into a
  T-layer network whose layers share ``W_h``, ``W_x`` and ``b``.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.axes import Axes
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch, Rectangle
from matplotlib.textpath import TextPath

from seqmodels.common._checks import finite_float, one_of, positive_int
from seqmodels.display.plotting import INK, PALETTE

#: The three shapes of use an unrolled recurrent network is drawn in.
SHAPES = ("many_to_one", "many_to_many", "seq2seq")

_CELL = PALETTE[0]  # recurrent cells
_IN = PALETTE[2]  # inputs
_OUT = PALETTE[1]  # outputs
_DEC = PALETTE[3]  # decoder cells


def _cell(ax, x, y, label, color=_CELL, w=0.8, h=0.6):
    ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.04",
                                facecolor=color, edgecolor=INK, lw=1.0, alpha=0.9))
    ax.text(x, y, label, ha="center", va="center", color="white", fontsize=10, fontweight="bold")


def _node(ax, x, y, label, color, r=0.27):
    ax.add_patch(Circle((x, y), r, facecolor="none", edgecolor=color, lw=1.6))
    ax.text(x, y, label, ha="center", va="center", color=INK, fontsize=9)


def _arrow(ax, start, end, label=None, color=INK, offset=(0.0, 0.12), style="-|>", rad=0.0):
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle=style, mutation_scale=11, lw=1.2,
                                 color=color, connectionstyle=f"arc3,rad={rad}", shrinkA=0, shrinkB=0))
    if label:
        mx, my = (start[0] + end[0]) / 2 + offset[0], (start[1] + end[1]) / 2 + offset[1]
        ax.text(mx, my, label, ha="center", va="bottom", fontsize=8, color=INK)


def _check_ax(ax) -> None:
    if not isinstance(ax, Axes):
        raise ValueError(f"ax must be a matplotlib Axes (for example plt.subplots()[1]), got {type(ax).__name__}")


def _read_step(ax, t, dx, y_in, y_h, state):
    """Step ``t`` of reading: the input ``x_{t+1}``, the cell holding ``state_{t+1}``, the arrow
    between them and the arrow from the previous cell; returns the step's x position."""
    x = t * dx
    _node(ax, x, y_in, f"$x_{t + 1}$", _IN)
    _cell(ax, x, y_h, f"${state}_{t + 1}$")
    _arrow(ax, (x, y_in + 0.27), (x, y_h - 0.3))
    if t:
        _arrow(ax, (x - dx + 0.4, y_h), (x - 0.4, y_h))
    return x


def _frame(ax, width, height):
    ax.set(xlim=(-0.7, width), ylim=(-0.8, height), aspect="equal")
    ax.axis("off")


def draw_unrolled(ax, shape: str, T: int = 4, *, title: str | None = None) -> int:
    """Draw one shape of use of a recurrent network, unrolled over ``T`` steps.

    ``many_to_one`` reads ``x_1 .. x_T`` and emits one ``y`` from ``h_T``; ``many_to_many``
    emits ``y_t`` from every ``h_t`` (for a language model, ``y_t`` predicts ``x_{t+1}``);
    ``seq2seq`` reads ``T`` inputs with an encoder and writes ``T - 1`` outputs with a decoder that
    starts from the encoder's last state and reads its own previous output. Returns the number of
    recurrent cells drawn.

    Raises
    ------
    ValueError
        ``shape`` not one of :data:`SHAPES`, ``T`` that is not an integer >= 2, or ``ax`` that is
        not a matplotlib ``Axes``.
    """
    _check_ax(ax)
    one_of("shape", shape, SHAPES)
    T = positive_int("T", T, minimum=2)
    dx, y_in, y_h, y_out = 1.3, 0.0, 1.2, 2.4
    n_cells = 0
    if shape in ("many_to_one", "many_to_many"):
        for t in range(T):
            x = _read_step(ax, t, dx, y_in, y_h, "h")
            n_cells += 1
            if shape == "many_to_many" or t == T - 1:
                label = f"$y_{t + 1}$" if shape == "many_to_many" else "$y$"
                _node(ax, x, y_out, label, _OUT)
                _arrow(ax, (x, y_h + 0.3), (x, y_out - 0.27))
        _frame(ax, (T - 1) * dx + 0.7, y_out + 0.5)
    else:
        n_dec = T - 1
        for t in range(T):
            _read_step(ax, t, dx, y_in, y_h, "e")
            n_cells += 1
        for s in range(n_dec):
            x = (T + s) * dx
            _cell(ax, x, y_h, f"$d_{s + 1}$", color=_DEC)
            n_cells += 1
            _arrow(ax, (x - dx + 0.4, y_h), (x - 0.4, y_h))
            _node(ax, x, y_out, f"$y_{s + 1}$", _OUT)
            _arrow(ax, (x, y_h + 0.3), (x, y_out - 0.27))
            _node(ax, x, y_in, f"$y_{s}$" if s else r"$\langle s\rangle$", _OUT if s else INK)
            _arrow(ax, (x, y_in + 0.27), (x, y_h - 0.3))
        _frame(ax, (T + n_dec - 1) * dx + 0.7, y_out + 0.5)
    if title:
        ax.set_title(title, fontsize=10)
    return n_cells


def draw_folded_and_unrolled(ax, T: int = 4) -> int:
    """The cell with its loop (left) and, right of an equals sign, the same computation unrolled
    into ``T`` layers; every layer-to-layer arrow is labelled ``W_h`` and every input arrow
    ``W_x``, the same matrices at every step. Returns the number of unrolled cells drawn.

    Raises
    ------
    ValueError
        ``T`` that is not an integer >= 2, or ``ax`` that is not a matplotlib ``Axes``.
    """
    _check_ax(ax)
    T = positive_int("T", T, minimum=2)
    y_in, y_h = 0.0, 1.3
    _node(ax, 0, y_in, "$x_t$", _IN)
    _cell(ax, 0, y_h, "$h_t$")
    _arrow(ax, (0, y_in + 0.27), (0, y_h - 0.3), "$W_x$", offset=(0.32, -0.1))
    ax.add_patch(FancyArrowPatch((0.4, y_h + 0.15), (-0.4, y_h + 0.15), arrowstyle="-|>",
                                 mutation_scale=11, lw=1.2, color=INK, connectionstyle="arc3,rad=1.6"))
    ax.text(0, y_h + 1.0, "$W_h$", ha="center", fontsize=8, color=INK)
    ax.text(0.95, y_h, "=", ha="center", va="center", fontsize=16, color=INK)
    x0, dx, x_h0 = 3.3, 1.5, 1.75
    _cell(ax, x_h0, y_h, "$h_0$", color="#777777", w=0.6)
    for t in range(T):
        x = x0 + t * dx
        _node(ax, x, y_in, f"$x_{t + 1}$", _IN)
        _cell(ax, x, y_h, f"$h_{t + 1}$")
        _arrow(ax, (x, y_in + 0.27), (x, y_h - 0.3), "$W_x$", offset=(0.32, -0.1))
        start = x - dx + 0.4 if t else x_h0 + 0.34
        _arrow(ax, (start, y_h), (x - 0.4, y_h), "$W_h$", offset=(0.0, 0.05))
    _frame(ax, x0 + (T - 1) * dx + 0.7, y_h + 1.4)
    return T


# --- the skip-gram window ---------------------------------------------------------------------

_CENTRE = PALETTE[1]  # the centre word (vermillion, white bold text on it)
_CONTEXT = "#005A8C"  # its context words: Okabe-Ito blue darkened to >= 3:1 on white and on #ACB4BB
_OUTSIDE = "#555555"  # words outside the window: grey, >= 3:1 on white and on #ACB4BB


def _width_em(text: str, bold: bool = False) -> float:
    """The width of ``text`` set in the current font, in em (units of the font size)."""
    prop = FontProperties(weight="bold" if bold else "normal")
    return float(TextPath((0, 0), text, size=1, prop=prop).get_extents().width)


def _check_sentence(tokens, centre, window) -> tuple[list[str], int, int]:
    if isinstance(tokens, str) or not isinstance(tokens, Sequence) or not tokens:
        raise ValueError(f"tokens must be a non-empty list of words, got {tokens!r:.60}")
    if not all(isinstance(t, str) and t and not t.isspace() for t in tokens):
        raise ValueError("tokens must hold non-empty strings (words), one per position")
    centre = positive_int("centre", centre, minimum=0)
    if centre >= len(tokens):
        raise ValueError(f"centre must be a position in tokens, 0 <= centre < {len(tokens)}, got {centre}")
    return list(tokens), centre, positive_int("window", window)


def window_pairs(tokens: Sequence[str], centre: int, window: int) -> list[tuple[str, str]]:
    """The (centre, context) pairs of position ``centre``: ``(tokens[centre], tokens[j])`` for every
    ``j`` with ``1 <= |j - centre| <= window`` inside the sentence, left to right.

    These are the pairs :func:`seqmodels.models.word2vec.skipgram_pairs` makes for that position when its
    random window reaches the full ``window``.

    Raises
    ------
    ValueError
        ``tokens`` not a non-empty sequence of non-empty strings; ``centre`` not an integer position
        in it; ``window`` not an integer >= 1.

    >>> window_pairs(["the", "grassy", "bank", "of", "the", "river"], 2, 2)
    [('bank', 'the'), ('bank', 'grassy'), ('bank', 'of'), ('bank', 'the')]
    """
    tokens, centre, window = _check_sentence(tokens, centre, window)
    lo, hi = max(0, centre - window), min(len(tokens), centre + window + 1)
    return [(tokens[centre], tokens[j]) for j in range(lo, hi) if j != centre]


def draw_skipgram_window(ax, tokens: Sequence[str], centre: int, window: int, *,
                         fontsize: float = 9.0) -> list[tuple[str, str]]:
    """Draw a sentence as word boxes, wrapped into rows that fit the axes, with the centre word
    filled, the words within ``window`` of it outlined and bracketed, the rest grey; below, the
    (centre, context) pairs they give. Returns those pairs (:func:`window_pairs`).

    The x unit is one em of ``fontsize``: a word takes its set width plus 0.8 em, and a row holds as
    many words as the axes' width in em (its width in points / ``fontsize``). Draw onto an axes whose
    figure has its final width (``plt.subplots(figsize=(4.2, 2.4))``); ``aspect="equal"`` lets the
    axes shrink to the rows it holds.

    Raises
    ------
    ValueError
        ``ax`` not a matplotlib ``Axes``; ``tokens``, ``centre`` or ``window`` as
        :func:`window_pairs` refuses them; ``fontsize`` not a finite number > 0; a word wider than
        the axes.
    """
    _check_ax(ax)
    pairs = window_pairs(tokens, centre, window)
    fontsize = finite_float("fontsize", fontsize, low=0, low_open=True)
    tokens = list(tokens)
    fig = ax.get_figure()
    row_em = ax.get_position().width * fig.get_figwidth() * 72 / fontsize  # axes width in em
    gap, pad, row_h, box_h = 0.45, 0.8, 2.9, 1.6
    widths = [_width_em(t, bold=(j == centre)) + pad for j, t in enumerate(tokens)]
    if max(widths) > row_em:
        raise ValueError(f"fontsize {fontsize} leaves {row_em:.1f} em per row, too narrow for the word "
                         f"{tokens[widths.index(max(widths))]!r}: use a wider figure or a smaller fontsize")
    # Greedy rows: (row, x of the box's left edge) per word.
    place, row, x = [], 0, 0.0
    for w in widths:
        if x and x + w > row_em:
            row, x = row + 1, 0.0
        place.append((row, x))
        x += w + gap
    in_window = [j != centre and abs(j - centre) <= window for j in range(len(tokens))]
    for j, (t, w, (r, x0)) in enumerate(zip(tokens, widths, place)):
        y = -r * row_h
        if j == centre:
            face, edge, ink, weight = _CENTRE, _CENTRE, "white", "bold"
        elif in_window[j]:
            face, edge, ink, weight = "none", _CONTEXT, INK, "normal"
        else:
            face, edge, ink, weight = "none", "#999999", _OUTSIDE, "normal"
        ax.add_patch(FancyBboxPatch((x0, y - box_h / 2), w, box_h, boxstyle="round,pad=0,rounding_size=0.35",
                                    facecolor=face, edgecolor=edge, lw=1.6 if j == centre or in_window[j] else 0.8))
        ax.text(x0 + w / 2, y, t, ha="center", va="center_baseline", fontsize=fontsize, color=ink,
                fontweight=weight)
    # The window's bracket under each row it touches.
    span = [j for j in range(len(tokens)) if in_window[j] or j == centre]
    for r in sorted({place[j][0] for j in span}):
        js = [j for j in span if place[j][0] == r]
        x_lo, x_hi = place[js[0]][1], place[js[-1]][1] + widths[js[-1]]
        yb = -r * row_h - box_h / 2 - 0.35
        ax.plot([x_lo, x_lo, x_hi, x_hi], [yb + 0.3, yb, yb, yb + 0.3], color=_CONTEXT, lw=1.3,
                solid_capstyle="butt")
    # The window's size, then the pairs, as many to a row as fit.
    y = -place[-1][0] * row_h - box_h / 2 - 1.6
    ax.text(0, y, f"window: {window} words each side of the centre", ha="left", va="center_baseline",
            fontsize=fontsize, color=_CONTEXT)
    y -= 1.9
    ax.text(0, y, "pairs (centre, context):", ha="left", va="center_baseline", fontsize=fontsize, color=INK)
    labels = [f"({c}, {o})" for c, o in pairs]
    col_w = max(_width_em(label) for label in labels) + 1.2
    per_row = max(1, int((row_em + 1.2) // col_w))
    for i, label in enumerate(labels):
        r, c = divmod(i, per_row)
        ax.text(c * col_w, y - 1.6 * (r + 1), label, ha="left", va="center_baseline", fontsize=fontsize,
                color=INK)
    bottom = y - 1.6 * (-(-len(labels) // per_row)) - 0.8
    ax.set(xlim=(-0.2, row_em), ylim=(bottom, box_h / 2 + 0.3), aspect="equal")
    ax.axis("off")
    return pairs


# --- skip-gram as a matrix factorisation ------------------------------------------------------

_ROW = "#005A8C"  # a row of W_out: Okabe-Ito blue, darkened to >= 3:1 on white and on #ACB4BB
_COL = "#9A4000"  # a column of W_in^T: Okabe-Ito vermillion, darkened likewise


def draw_pmi_factorisation(ax, *, fontsize: float = 10.0, thin: float = 0.18) -> dict[str, tuple[str, str]]:
    """Draw ``M ≈ W_out @ W_in.T``: a ``V x V`` table of shifted PMI values, ``M[o, c] =
    PMI(c, o) - log K``, as the product of a tall thin ``V x d`` matrix (one output vector ``u_o``
    per row) and a short wide ``d x V`` one (one input vector ``v_c`` per column). One row of
    ``W_out`` (blue), one column of ``W_in.T`` (vermillion) and the table entry they give,
    ``u_o . v_c``, are highlighted. Returns the blocks drawn with their shapes:
    ``{"shifted PMI": ("V", "V"), "W_out": ("V", "d"), "W_in^T": ("d", "V")}``.

    ``thin`` is ``d / V`` as drawn (the real ratio, e.g. 50 / 10,000, would be a hairline). Draw
    onto an axes about 4.2 in wide; ``aspect="equal"`` keeps the table square.

    Raises
    ------
    ValueError
        ``ax`` not a matplotlib ``Axes``; ``fontsize`` not a finite number > 0; ``thin`` not in
        ``(0, 0.5]``.
    """
    _check_ax(ax)
    fontsize = finite_float("fontsize", fontsize, low=0, low_open=True)
    thin = finite_float("thin", thin, low=0, low_open=True, high=0.5)
    n = 4.0  # V, in drawing units
    k = thin * n  # d
    o_row, c_col = 0.62, 0.30  # where the highlighted row and column sit, as fractions of V
    box = dict(facecolor="none", edgecolor=INK, lw=1.4)
    # The table, its highlighted entry, and the row and column that give it.
    x_m, x_w, x_h = 0.0, n + 1.0, n + 1.0 + k + 0.9  # left edges: table, W_out, W_in^T
    ax.add_patch(Rectangle((x_m, 0), n, n, **box))
    h = 0.22 * n / 4  # the height of one highlighted row / width of one column
    y_o = n * (1 - o_row)
    x_c = x_m + n * c_col
    ax.add_patch(Rectangle((x_c, y_o), h, h, facecolor=INK, edgecolor=INK, lw=0.8))
    ax.add_patch(Rectangle((x_m, y_o), n, h, facecolor=_ROW, alpha=0.18, lw=0))
    ax.add_patch(Rectangle((x_c, 0), h, n, facecolor=_COL, alpha=0.18, lw=0))
    ax.add_patch(Rectangle((x_w, 0), k, n, **box))
    ax.add_patch(Rectangle((x_w, y_o), k, h, facecolor=_ROW, edgecolor=_ROW, lw=0.8))
    ax.add_patch(Rectangle((x_h, n - k), n, k, **box))
    ax.add_patch(Rectangle((x_h + n * c_col, n - k), h, k, facecolor=_COL, edgecolor=_COL, lw=0.8))
    text = dict(ha="center", va="center", fontsize=fontsize, color=INK)
    ax.text(x_m + n / 2, -0.45, "shifted PMI", **text)
    ax.text(x_m + n / 2, -1.0, r"$V \times V$", **text)
    ax.text(x_c + h + 0.12, y_o + h + 0.4, r"$u_o \cdot v_c$", **{**text, "ha": "left"})
    ax.text(x_m + n - 0.1, y_o - 0.3, r"row $o$", **{**text, "ha": "right", "color": _ROW})
    ax.text(x_c + h + 0.12, 0.35, r"column $c$", **{**text, "ha": "left", "color": _COL})
    ax.text(x_w - 0.5, n / 2, r"$\approx$", **{**text, "fontsize": fontsize * 1.6})
    ax.text(x_w + k / 2, -0.45, r"$W_\mathrm{out}$", **text)
    ax.text(x_w + k / 2, -1.0, r"$V \times d$", **text)
    ax.text(x_w + k + 0.12, y_o + h / 2, r"$u_o$", **{**text, "ha": "left", "color": _ROW})
    ax.text(x_h + n / 2, n - k - 0.45, r"$W_\mathrm{in}^\top$", **text)
    ax.text(x_h + n / 2, n - k - 1.0, r"$d \times V$", **text)
    ax.text(x_h + n * c_col + h / 2, n + 0.4, r"$v_c$", **{**text, "color": _COL})
    ax.set(xlim=(-0.2, x_h + n + 0.2), ylim=(-1.4, n + 0.8), aspect="equal")
    ax.axis("off")
    return {"shifted PMI": ("V", "V"), "W_out": ("V", "d"), "W_in^T": ("d", "V")}
