r"""Drawings of the LSTM cell and the GRU cell, in the symbols of the LSTM chapter.

:func:`draw_lstm_cell` draws equations ``f, i, g, o = gates([x_t, h_{t-1}])``,
``c_t = f * c_{t-1} + i * g`` and ``h_t = o * tanh(c_t)`` (:mod:`seqmodels.models.lstm`);
:func:`draw_gru_cell` draws ``h_t = z * h_{t-1} + (1 - z) * n`` with
``n = tanh(W_n [x_t, r * h_{t-1}] + b_n)`` (:mod:`seqmodels.models.gru`).

The conventions, the same in both drawings:

- rectangles are learned layers (a row block of ``W`` and a squashing function, ``σ`` or ``tanh``),
  circles are entry-wise operations with no weights, a narrow dark bar joins vectors end to end
  (``[a, b]``);
- every quantity has a line of its own, named once by a label beside it, that leaves the one node
  which computes it and ends in an arrowhead at each node that reads it;
- where a line branches, a filled dot; where two lines cross without meeting, one of them hops
  over the other (a small semicircle); no line runs through a node or a label it is not entering;
- the thick line is the path along which the memory is carried from step to step.

Both functions return a :class:`CellDrawing`: the labels they wrote and the geometry they drew
(nodes, straight pieces of line, arrowheads, dots, hops), so a test can check the conventions and
evaluate the drawn graph against the equations.

Colours come from :data:`seqmodels.display.plotting.PALETTE` and the ink is dark on a transparent
background; the book's theme shows figures on a light card in dark mode.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch, Rectangle

from seqmodels.display.plotting import INK, PALETTE

_GATE = dict(facecolor="#D6ECF8", edgecolor=PALETTE[0])
_CAND = dict(facecolor="#F8E0D0", edgecolor=PALETTE[1])
_PATH = PALETTE[2]
#: The path's green, darkened for the note above it: text needs a contrast of 4.5 (6.5 on white, and
#: about 4.7 on the dimmed card dark mode puts figures on), where PALETTE[2] has 3.4 and 2.4.
_PATH_TEXT = "#006B4F"

#: Radius of the semicircle by which a line hops over another (data units).
HOP_RADIUS = 0.13
#: Half extents of a learned layer's rectangle, outline included (data units).
BOX_HALF = (0.44, 0.32)
#: Half extents of the bar that joins vectors (data units).
BAR_HALF = (0.05, 0.36)
_THIN, _THICK = 1.4, 3.2
_DOT = {_THIN: 0.065, _THICK: 0.095}  # radius of a junction dot on a line of that width


@dataclass(frozen=True)
class Node:
    """One node of a cell drawing: what it computes and where it is.

    ``op`` is ``"sigmoid"`` or ``"tanh_layer"`` (a learned layer: row block ``block`` of ``W`` and
    of ``b``, then the squashing function), ``"mul"``, ``"add"``, ``"one_minus"`` or ``"tanh"``
    (entry-wise, no weights), or ``"concat"`` (joins ``parts``, quantities named by their labels,
    in that order). ``shape`` is ``"box"`` (a rectangle of half extents ``half`` about ``center``)
    or ``"circle"`` (radius ``half[0]``).
    """

    name: str
    op: str
    center: tuple[float, float]
    half: tuple[float, float]
    shape: str
    block: str | None = None
    parts: tuple[str, ...] = ()


@dataclass
class CellDrawing:
    """What :func:`draw_lstm_cell` or :func:`draw_gru_cell` drew. Quantities are named by their labels.

    - ``labels``: every quantity's label, in the order written (each once);
    - ``nodes``: the :class:`Node` s;
    - ``wires``: ``(quantity, start, end)``, each straight piece of each quantity's line (a hop is
      drawn on a piece but not split out of it);
    - ``arrows``: ``(quantity, tip)``, an arrowhead at the end of a line;
    - ``junctions``: ``(quantity, point)``, a filled dot where a line branches;
    - ``hops``: ``(over, under, point)``, line ``over`` bridges line ``under`` at ``point``;
    - ``inputs``, ``outputs``: the quantities that enter the step from outside and leave it.
    """

    labels: list[str] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    wires: list[tuple[str, tuple[float, float], tuple[float, float]]] = field(default_factory=list)
    arrows: list[tuple[str, tuple[float, float]]] = field(default_factory=list)
    junctions: list[tuple[str, tuple[float, float]]] = field(default_factory=list)
    hops: list[tuple[str, str, tuple[float, float]]] = field(default_factory=list)
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()


def _check_ax(ax):
    if not hasattr(ax, "add_patch") or not hasattr(ax, "annotate"):
        raise ValueError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")


def _hop_normal(u):
    """The side a hop bulges to on a piece of direction ``u``: up, or right on a vertical piece."""
    n = np.array([-u[1], u[0]])
    return -n if n[1] < 0 or (n[1] == 0 and n[0] < 0) else n


def _line(ax, d, q, points, *, arrow=True, hops=(), lw=_THIN, color=INK):
    """Draw quantity ``q`` along ``points`` (a polyline), hopping over ``hops`` = ``[(point, under)]``
    on the way, with an arrowhead at the last point unless ``arrow`` is false; record it in ``d``."""
    points = [tuple(map(float, p)) for p in points]
    verts = [np.array(points[0])]
    for a, b in zip(points[:-1], points[1:]):
        d.wires.append((q, a, b))
        a_, b_ = np.array(a), np.array(b)
        length = np.linalg.norm(b_ - a_)
        u = (b_ - a_) / length
        on = sorted(((np.dot(np.array(p) - a_, u), p, under) for p, under in hops
                     if np.linalg.norm(np.array(p) - a_ - np.dot(np.array(p) - a_, u) * u) < 1e-9
                     and HOP_RADIUS < np.dot(np.array(p) - a_, u) < length - HOP_RADIUS))
        for _, p, under in on:
            c, n = np.array(p), _hop_normal(u)
            verts += [c - HOP_RADIUS * np.cos(t) * u + HOP_RADIUS * np.sin(t) * n
                      for t in np.linspace(0, np.pi, 25)]
            d.hops.append((q, under, tuple(map(float, p))))
        verts.append(b_)
    verts = np.array(verts)
    ax.plot(verts[:, 0], verts[:, 1], color=color, lw=lw, solid_capstyle="butt", solid_joinstyle="miter",
            zorder=1)
    if arrow:
        tip = np.array(points[-1])
        u = tip - np.array(points[-2])
        u /= np.linalg.norm(u)
        ax.add_patch(FancyArrowPatch(tuple(tip - 0.2 * u), tuple(tip), arrowstyle="-|>", mutation_scale=12,
                                     lw=lw, color=color, shrinkA=0, shrinkB=0, zorder=2))
        d.arrows.append((q, tuple(points[-1])))


def _dot(ax, d, q, at, lw=_THIN, color=INK):
    ax.add_patch(Circle(at, _DOT[lw], facecolor=color, edgecolor="none", zorder=2))
    d.junctions.append((q, tuple(map(float, at))))


def _label(ax, d, q, xy, ha="left", va="center", fontsize=10.5, color=INK):
    ax.text(*xy, q, ha=ha, va=va, fontsize=fontsize, color=color, zorder=4)
    d.labels.append(q)


def _box(ax, d, name, xy, text, style, op, block):
    """A learned layer: row block ``block`` of ``W`` then ``op``; returns its node."""
    (x, y), (hw, hh), pad = xy, BOX_HALF, 0.04
    ax.add_patch(FancyBboxPatch((x - hw + pad, y - hh + pad), 2 * (hw - pad), 2 * (hh - pad),
                                boxstyle=f"round,pad={pad},rounding_size=0.12", lw=1.4, zorder=3, **style))
    ax.text(x, y, text, ha="center", va="center", fontsize=11, zorder=4, color=INK)
    node = Node(name, op, (x, y), BOX_HALF, "box", block=block)
    d.nodes.append(node)
    return node


def _op(ax, d, name, xy, symbol, op):
    r = 0.24 if len(symbol) == 1 else 0.3
    ax.add_patch(Circle(xy, r, facecolor="white", edgecolor=INK, lw=1.3, zorder=3))
    ax.text(*xy, symbol, ha="center", va="center", fontsize=11 if len(symbol) == 1 else 7.5, zorder=4, color=INK)
    node = Node(name, op, tuple(xy), (r, r), "circle")
    d.nodes.append(node)
    return node


def _bar(ax, d, name, xy, parts):
    (x, y), (hw, hh) = xy, BAR_HALF
    ax.add_patch(Rectangle((x - hw, y - hh), 2 * hw, 2 * hh, facecolor=INK, edgecolor="none", zorder=3))
    node = Node(name, "concat", tuple(xy), BAR_HALF, "box", parts=tuple(parts))
    d.nodes.append(node)
    return node


def _frame(ax, corner, width, height, note):
    """The drawing's axes (no ticks, equal aspect), the dashed outline of one step and, above it,
    the note on the memory path."""
    ax.set(xlim=(-0.2, 10.2), ylim=(-0.9, 6.6), aspect="equal")
    ax.axis("off")
    ax.add_patch(FancyBboxPatch(corner, width, height, boxstyle="round,pad=0.05,rounding_size=0.3",
                                facecolor="none", edgecolor="#999999", lw=1.0, ls="--", zorder=0))
    # above the dashed outline of the step, not on it
    ax.text(corner[0] + 0.3, corner[1] + height + 0.2, note, fontsize=8.5, color=_PATH_TEXT, va="bottom")


def _left(n):
    return n.center[0] - n.half[0], n.center[1]


def _right(n):
    return n.center[0] + n.half[0], n.center[1]


def _top(n):
    return n.center[0], n.center[1] + n.half[1]


def _bottom(n):
    return n.center[0], n.center[1] - n.half[1]


X, H_PREV, C_PREV, H, C = r"$x_t$", r"$h_{t-1}$", r"$c_{t-1}$", r"$h_t$", r"$c_t$"
XH = r"$[x_t, h_{t-1}]$"


def draw_lstm_cell(ax) -> CellDrawing:
    """Draw one LSTM step on ``ax``: the cell path on top, the four gates below it.

    Returns
    -------
    CellDrawing
        the labels written (gates, states, input and every product) and the geometry drawn

    Raises
    ------
    ValueError
        ``ax`` is not a matplotlib Axes.
    """
    _check_ax(ax)
    d = CellDrawing(inputs=(X, H_PREV, C_PREV), outputs=(H, C))
    _frame(ax, (0.85, 0.3), 8.2, 5.5, "cell path: multiplied by $f_t$ only, no weight matrix, no squashing")
    top, mid, gate_y, bus_y = 5.3, 4.1, 2.5, 1.2
    gx = {"f": 2.4, "i": 3.9, "g": 5.3, "o": 6.6}
    add_x, out_x = 4.6, 7.9
    F, I, G, O = r"$f_t$", r"$i_t$", r"$g_t$", r"$o_t$"
    FC, IG, TC = r"$f_t \odot c_{t-1}$", r"$i_t \odot g_t$", r"$\tanh(c_t)$"
    # the nodes
    cat = _bar(ax, d, "[x, h]", (1.6, bus_y), (X, H_PREV))
    box = {k: _box(ax, d, f"layer {k}", (x, gate_y), "tanh" if k == "g" else "σ", _CAND if k == "g" else _GATE,
                   "tanh_layer" if k == "g" else "sigmoid", k) for k, x in gx.items()}
    keep = _op(ax, d, "× f", (gx["f"], top), "×", "mul")
    add = _op(ax, d, "+ c", (add_x, top), "+", "add")
    write = _op(ax, d, "× i g", (add_x, mid), "×", "mul")
    squash = _op(ax, d, "tanh c", (out_x, mid), "tanh", "tanh")
    show = _op(ax, d, "× o", (out_x, gate_y), "×", "mul")
    # inputs: h_{t-1} from the left, x_t from below, joined into [x_t, h_{t-1}]
    _line(ax, d, H_PREV, [(-0.1, bus_y + 0.2), (_left(cat)[0], bus_y + 0.2)])
    _label(ax, d, H_PREV, (-0.1, bus_y + 0.3), va="bottom")
    _line(ax, d, X, [(1.15, -0.5), (1.15, bus_y - 0.2), (_left(cat)[0], bus_y - 0.2)])
    _label(ax, d, X, (1.3, -0.55), va="top")
    _line(ax, d, XH, [_right(cat), (gx["o"], bus_y), _bottom(box["o"])])
    for k in "fig":
        _dot(ax, d, XH, (gx[k], bus_y))
        _line(ax, d, XH, [(gx[k], bus_y), _bottom(box[k])])
    _label(ax, d, XH, ((gx["f"] + gx["i"]) / 2, bus_y - 0.12), ha="center", va="top", fontsize=10)
    # the cell path: c_{t-1} -> (x f) -> (+) -> c_t
    _line(ax, d, C_PREV, [(-0.1, top), _left(keep)], lw=_THICK, color=_PATH)
    _label(ax, d, C_PREV, (-0.1, top + 0.12), va="bottom")
    _line(ax, d, FC, [_right(keep), _left(add)], lw=_THICK, color=_PATH)
    _label(ax, d, FC, ((gx["f"] + add_x) / 2, top + 0.12), ha="center", va="bottom", fontsize=9.5)
    _line(ax, d, C, [_right(add), (10.0, top)], lw=_THICK, color=_PATH)
    _label(ax, d, C, (9.45, top + 0.12), va="bottom")
    # f multiplies the old cell; i * g is added
    _line(ax, d, F, [_top(box["f"]), _bottom(keep)])
    _label(ax, d, F, (gx["f"] + 0.1, 3.45))
    _line(ax, d, I, [_top(box["i"]), (gx["i"], mid), _left(write)])
    _label(ax, d, I, (gx["i"] + 0.1, 3.3))
    _line(ax, d, G, [_top(box["g"]), (gx["g"], mid), _right(write)])
    _label(ax, d, G, (gx["g"] + 0.1, 3.3))
    _line(ax, d, IG, [_top(write), _bottom(add)])
    _label(ax, d, IG, (add_x + 0.12, (mid + top) / 2 + 0.02), fontsize=9.5)
    # h_t = o * tanh(c_t)
    _dot(ax, d, C, (out_x, top), lw=_THICK, color=_PATH)
    _line(ax, d, C, [(out_x, top), _top(squash)])
    _line(ax, d, TC, [_bottom(squash), _top(show)])
    _label(ax, d, TC, (out_x - 0.12, (mid + gate_y) / 2 + 0.05), ha="right", fontsize=9.5)
    _line(ax, d, O, [_right(box["o"]), _left(show)])
    _label(ax, d, O, ((gx["o"] + out_x) / 2 + 0.05, gate_y + 0.06), ha="center", va="bottom")
    _line(ax, d, H, [_right(show), (10.0, gate_y)])
    _label(ax, d, H, (9.45, gate_y + 0.12), va="bottom")
    return d


def draw_gru_cell(ax) -> CellDrawing:
    """Draw one GRU step on ``ax``: the state path on top, the two gates and the candidate below.

    Returns
    -------
    CellDrawing
        the labels written (gates, candidate, states, input and every product) and the geometry drawn

    Raises
    ------
    ValueError
        ``ax`` is not a matplotlib Axes.
    """
    _check_ax(ax)
    d = CellDrawing(inputs=(X, H_PREV), outputs=(H,))
    _frame(ax, (0.85, 0.05), 8.4, 5.75, "state path: multiplied by $z_t$ only, no weight matrix")
    top, one_y, rh_y, gate_y, bus_y, x_y = 5.3, 4.25, 3.7, 2.5, 1.2, 0.35
    rx, zx, nx, flip_x, down_x, x_in = 2.8, 4.6, 7.4, 5.95, 1.1, 1.4
    R, Z, N, NZ = r"$r_t$", r"$z_t$", r"$n_t$", r"$1 - z_t$"
    RH, XRH = r"$r_t \odot h_{t-1}$", r"$[x_t, r_t \odot h_{t-1}]$"
    ZH, NN = r"$z_t \odot h_{t-1}$", r"$(1 - z_t) \odot n_t$"
    # the nodes
    cat = _bar(ax, d, "[x, h]", (1.9, bus_y), (X, H_PREV))
    cat_n = _bar(ax, d, "[x, r h]", (5.9, 1.5), (X, RH))
    reset = _box(ax, d, "layer r", (rx, gate_y), "σ", _GATE, "sigmoid", "r")
    update = _box(ax, d, "layer z", (zx, gate_y), "σ", _GATE, "sigmoid", "z")
    cand = _box(ax, d, "layer n", (nx, gate_y), "tanh", _CAND, "tanh_layer", "n")
    see = _op(ax, d, "× r", (rx, rh_y), "×", "mul")
    keep = _op(ax, d, "× z", (zx, top), "×", "mul")
    flip = _op(ax, d, "1 −", (flip_x, one_y), "1−", "one_minus")
    write = _op(ax, d, "× n", (nx, one_y), "×", "mul")
    add = _op(ax, d, "+ h", (nx, top), "+", "add")
    # h_{t-1}: the state path into (x z), and down to (x r) and to [x_t, h_{t-1}]
    _line(ax, d, H_PREV, [(-0.1, top), _left(keep)], lw=_THICK, color=_PATH)
    _label(ax, d, H_PREV, (-0.1, top + 0.12), va="bottom")
    _dot(ax, d, H_PREV, (down_x, top), lw=_THICK, color=_PATH)
    _line(ax, d, H_PREV, [(down_x, top), (down_x, bus_y + 0.2), (_left(cat)[0], bus_y + 0.2)])
    _dot(ax, d, H_PREV, (down_x, rh_y))
    _line(ax, d, H_PREV, [(down_x, rh_y), _left(see)])
    # x_t from below, into [x_t, h_{t-1}] and, along the bottom, into [x_t, r_t * h_{t-1}]
    up_x = 5.15
    _line(ax, d, X, [(x_in, -0.5), (x_in, x_y)], arrow=False)
    _label(ax, d, X, (x_in + 0.15, -0.55), va="top")
    _dot(ax, d, X, (x_in, x_y))
    _line(ax, d, X, [(x_in, x_y), (x_in, bus_y - 0.2), (_left(cat)[0], bus_y - 0.2)])
    _line(ax, d, X, [(x_in, x_y), (up_x, x_y), (up_x, cat_n.center[1] - 0.2), (_left(cat_n)[0], cat_n.center[1] - 0.2)])
    # the gates read [x_t, h_{t-1}]
    _line(ax, d, XH, [_right(cat), (zx, bus_y), _bottom(update)])
    _dot(ax, d, XH, (rx, bus_y))
    _line(ax, d, XH, [(rx, bus_y), _bottom(reset)])
    _label(ax, d, XH, ((rx + zx) / 2, bus_y + 0.1), ha="center", va="bottom", fontsize=10)
    # r_t * h_{t-1} hops over z_t on its way to [x_t, r_t * h_{t-1}], which the candidate reads
    _line(ax, d, R, [_top(reset), _bottom(see)])
    _label(ax, d, R, (rx + 0.1, (gate_y + rh_y) / 2 + 0.02))
    bend_x = 5.45
    _line(ax, d, RH, [_right(see), (bend_x, rh_y), (bend_x, cat_n.center[1] + 0.2),
                      (_left(cat_n)[0], cat_n.center[1] + 0.2)], hops=[((zx, rh_y), Z)])
    _label(ax, d, RH, ((_right(see)[0] + zx) / 2 - 0.12, rh_y + 0.1), ha="center", va="bottom", fontsize=9.5)
    _line(ax, d, XRH, [_right(cat_n), (nx, cat_n.center[1]), _bottom(cand)])
    _label(ax, d, XRH, (_right(cat_n)[0] + 0.15, cat_n.center[1] - 0.1), va="top", fontsize=9)
    # z keeps the old state; 1 - z lets the candidate in
    _line(ax, d, Z, [_top(update), _bottom(keep)])
    _label(ax, d, Z, (zx + 0.1, (gate_y + rh_y) / 2 + 0.02))
    _dot(ax, d, Z, (zx, one_y))
    _line(ax, d, Z, [(zx, one_y), _left(flip)])
    _line(ax, d, NZ, [_right(flip), _left(write)])
    _label(ax, d, NZ, ((_right(flip)[0] + _left(write)[0]) / 2, one_y + 0.08), ha="center", va="bottom",
           fontsize=9.5)
    _line(ax, d, N, [_top(cand), _bottom(write)])
    _label(ax, d, N, (nx + 0.1, (gate_y + one_y) / 2 + 0.05))
    _line(ax, d, NN, [_top(write), _bottom(add)])
    _label(ax, d, NN, (nx + 0.12, (one_y + top) / 2 + 0.02), fontsize=9.5)
    # the state path: (x z) -> (+) -> h_t
    _line(ax, d, ZH, [_right(keep), _left(add)], lw=_THICK, color=_PATH)
    _label(ax, d, ZH, ((zx + nx) / 2, top + 0.12), ha="center", va="bottom", fontsize=9.5)
    _line(ax, d, H, [_right(add), (10.0, top)], lw=_THICK, color=_PATH)
    _label(ax, d, H, (9.45, top + 0.12), va="bottom")
    return d
