r"""Drawings of the LSTM cell and the GRU cell, in the symbols of the LSTM chapter.

:func:`draw_lstm_cell` draws equations ``f, i, g, o = gates([x_t, h_{t-1}])``,
``c_t = f * c_{t-1} + i * g`` and ``h_t = o * tanh(c_t)`` (:mod:`seqmodels.lstm`);
:func:`draw_gru_cell` draws ``h_t = z * h_{t-1} + (1 - z) * n`` with
``n = tanh(W_n [x_t, r * h_{t-1}] + b_n)`` (:mod:`seqmodels.gru`). Rectangles are learned layers
(a weight matrix and a squashing function: ``σ`` or ``tanh``), circles are entry-wise operations
with no weights. The thick line is the path along which the memory is carried from step to step.
Both return the labels they wrote, so a test can check that every symbol of the equations is drawn.

Colours come from :data:`seqmodels.plotting.PALETTE` and the ink is dark on a transparent
background; the book's theme shows figures on a light card in dark mode.
"""

from __future__ import annotations

from matplotlib.patches import Circle, FancyBboxPatch

from .plotting import INK, PALETTE

_GATE = dict(facecolor="#D6ECF8", edgecolor=PALETTE[0])
_CAND = dict(facecolor="#F8E0D0", edgecolor=PALETTE[1])


def _check_ax(ax):
    if not hasattr(ax, "add_patch") or not hasattr(ax, "annotate"):
        raise ValueError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")


def _line(ax, points, lw=1.4, arrow=True, color=INK):
    for (x0, y0), (x1, y1) in zip(points[:-2], points[1:-1]):
        ax.plot([x0, x1], [y0, y1], color=color, lw=lw, solid_capstyle="round", zorder=1)
    (x0, y0), (x1, y1) = points[-2], points[-1]
    ax.annotate("", xy=(x1, y1), xytext=(x0, y0), zorder=1,
                arrowprops=dict(arrowstyle="-|>" if arrow else "-", lw=lw, color=color,
                                shrinkA=0, shrinkB=0, mutation_scale=12))


def _box(ax, x, y, text, style, label, labels):
    ax.add_patch(FancyBboxPatch((x - 0.42, y - 0.32), 0.84, 0.64, boxstyle="round,pad=0.04,rounding_size=0.12",
                                lw=1.4, zorder=3, **style))
    ax.text(x, y, text, ha="center", va="center", fontsize=11, zorder=4, color=INK)
    ax.text(x + 0.5, y - 0.42, label, ha="left", va="top", fontsize=11, zorder=4, color=INK)
    labels.append(label)


def _op(ax, x, y, symbol):
    ax.add_patch(Circle((x, y), 0.24 if len(symbol) == 1 else 0.3, facecolor="white", edgecolor=INK, lw=1.3, zorder=3))
    ax.text(x, y, symbol, ha="center", va="center", fontsize=11 if len(symbol) == 1 else 7.5, zorder=4, color=INK)


def _io(ax, x, y, text, labels, **kw):
    ax.text(x, y, text, fontsize=12, color=INK, zorder=4, **kw)
    labels.append(text)


def _frame(ax, corner, width, height):
    """The drawing's axes (no ticks, equal aspect) and the dashed outline of one step."""
    ax.set(xlim=(-0.2, 10.4), ylim=(-0.9, 6.6), aspect="equal")
    ax.axis("off")
    ax.add_patch(FancyBboxPatch(corner, width, height, boxstyle="round,pad=0.05,rounding_size=0.3",
                                facecolor="none", edgecolor="#999999", lw=1.0, ls="--", zorder=0))


def draw_lstm_cell(ax) -> list[str]:
    """Draw one LSTM step on ``ax``: the cell path on top, the four gates below it.

    Returns
    -------
    the symbols written on the drawing (gates, states, input)

    Raises
    ------
    ValueError
        ``ax`` is not a matplotlib Axes.
    """
    _check_ax(ax)
    labels: list[str] = []
    _frame(ax, (0.9, 0.35), 7.7, 5.4)
    top, gate_y, bus_y = 5.0, 2.4, 1.0
    gx = {"f": 2.0, "i": 3.5, "g": 5.0, "o": 6.5}
    # the cell path: c_{t-1} -> (x f) -> (+) -> c_t
    _line(ax, [(0.2, top), (1.76, top)], lw=3.2, color=PALETTE[2])
    _line(ax, [(2.24, top), (4.01, top)], lw=3.2, color=PALETTE[2])
    _line(ax, [(4.49, top), (9.6, top)], lw=3.2, color=PALETTE[2])
    _io(ax, 0.0, top + 0.35, r"$c_{t-1}$", labels)
    _io(ax, 9.3, top + 0.35, r"$c_t$", labels)
    _op(ax, 2.0, top, "×")
    _op(ax, 4.25, top, "+")
    ax.text(1.0, top + 0.95, "cell path: multiplied by $f_t$ only, no weight matrix, no squashing", fontsize=8.5,
            color=PALETTE[2], va="bottom")  # above the dashed outline of the step, not on it
    # inputs: h_{t-1} from the left, x_t from below, concatenated on a bus
    _line(ax, [(0.2, bus_y), (6.5, bus_y)], arrow=False)
    _io(ax, 0.0, bus_y - 0.55, r"$h_{t-1}$", labels)
    _line(ax, [(1.2, -0.5), (1.2, bus_y)], arrow=False)
    _io(ax, 1.35, -0.75, r"$x_t$", labels)
    ax.text(3.0, bus_y - 0.45, r"$[x_t, h_{t-1}]$", fontsize=10, color=INK)
    for name, x in gx.items():
        _line(ax, [(x, bus_y), (x, gate_y - 0.34)])
    _box(ax, gx["f"], gate_y, "σ", _GATE, r"$f_t$", labels)
    _box(ax, gx["i"], gate_y, "σ", _GATE, r"$i_t$", labels)
    _box(ax, gx["g"], gate_y, "tanh", _CAND, r"$g_t$", labels)
    _box(ax, gx["o"], gate_y, "σ", _GATE, r"$o_t$", labels)
    # f multiplies the old cell; i * g is added
    _line(ax, [(gx["f"], gate_y + 0.34), (2.0, top - 0.25)])
    _op(ax, 4.25, 3.7, "×")
    _line(ax, [(gx["i"], gate_y + 0.34), (gx["i"], 3.7), (4.01, 3.7)])
    _line(ax, [(gx["g"], gate_y + 0.34), (gx["g"], 3.7), (4.49, 3.7)])
    _line(ax, [(4.25, 3.94), (4.25, top - 0.25)])
    # h_t = o * tanh(c_t)
    _op(ax, 7.6, 3.7, "tanh")
    _line(ax, [(7.6, top), (7.6, 4.0)])
    _op(ax, 7.6, gate_y, "×")
    _line(ax, [(7.6, 3.4), (7.6, gate_y + 0.25)])
    _line(ax, [(gx["o"] + 0.42, gate_y), (7.36, gate_y)])
    _line(ax, [(7.84, gate_y), (9.6, gate_y)])
    _io(ax, 9.3, gate_y + 0.3, r"$h_t$", labels)
    return labels


def draw_gru_cell(ax) -> list[str]:
    """Draw one GRU step on ``ax``: the state path on top, the two gates and the candidate below.

    Returns
    -------
    the symbols written on the drawing

    Raises
    ------
    ValueError
        ``ax`` is not a matplotlib Axes.
    """
    _check_ax(ax)
    labels: list[str] = []
    _frame(ax, (0.6, 0.15), 8.0, 5.6)
    top, gate_y, bus_y = 5.0, 2.2, 1.0
    # the state path: h_{t-1} -> (x z) -> (+) -> h_t
    _line(ax, [(0.2, top), (4.76, top)], lw=3.2, color=PALETTE[2])
    _line(ax, [(5.24, top), (7.36, top)], lw=3.2, color=PALETTE[2])
    _line(ax, [(7.84, top), (9.6, top)], lw=3.2, color=PALETTE[2])
    _io(ax, 0.0, top + 0.35, r"$h_{t-1}$", labels)
    _io(ax, 9.3, top + 0.35, r"$h_t$", labels)
    _op(ax, 5.0, top, "×")
    _op(ax, 7.6, top, "+")
    ax.text(0.9, top + 0.95, "state path: multiplied by $z_t$ only, no weight matrix", fontsize=8.5,
            color=PALETTE[2], va="bottom")  # above the dashed outline of the step, not on it
    # the gates read [x_t, h_{t-1}]
    _line(ax, [(0.9, top), (0.9, bus_y)], arrow=False)
    _line(ax, [(0.9, bus_y), (5.0, bus_y)], arrow=False)
    _line(ax, [(1.4, -0.5), (1.4, bus_y)], arrow=False)
    _io(ax, 1.55, -0.75, r"$x_t$", labels)
    ax.text(4.0, bus_y - 0.45, r"$[x_t, h_{t-1}]$", fontsize=10, color=INK)
    _line(ax, [(2.0, bus_y), (2.0, gate_y - 0.34)])
    _line(ax, [(5.0, bus_y), (5.0, gate_y - 0.34)])
    _box(ax, 2.0, gate_y, "σ", _GATE, r"$r_t$", labels)
    _box(ax, 5.0, gate_y, "σ", _GATE, r"$z_t$", labels)
    # the candidate reads x_t and r * h_{t-1}
    _op(ax, 2.0, 3.9, "×")
    _line(ax, [(2.0, top), (2.0, 4.14)])
    _line(ax, [(2.0, gate_y + 0.34), (2.0, 3.66)])
    _line(ax, [(2.24, 3.9), (3.4, 3.9), (3.4, gate_y + 0.34)])
    _line(ax, [(1.4, 0.5), (3.4, 0.5), (3.4, gate_y - 0.34)])
    _box(ax, 3.4, gate_y, "tanh", _CAND, r"$n_t$", labels)
    # z keeps the old state; 1 - z lets the candidate in
    _line(ax, [(5.0, gate_y + 0.34), (5.0, top - 0.25)])
    _op(ax, 6.3, 3.9, "1−")
    _line(ax, [(5.0, 3.9), (6.06, 3.9)])
    _op(ax, 7.6, 3.9, "×")
    _line(ax, [(6.54, 3.9), (7.36, 3.9)])
    _line(ax, [(3.4, gate_y + 0.34), (3.4, 3.2), (7.6, 3.2), (7.6, 3.66)])
    _line(ax, [(7.6, 4.14), (7.6, top - 0.25)])
    return labels
