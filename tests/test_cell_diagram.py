"""seqmodels.display.cell_diagram: the drawings keep their conventions and compute the chapter's equations.

Each drawing returns the geometry it drew (:class:`seqmodels.display.cell_diagram.CellDrawing`). The
checks below read only that geometry and the artists on the axes:

- lines of different quantities never touch; where they cross, one hops over the other, and a hop
  is drawn at each such crossing and nowhere else;
- a line branches only at a filled dot, and a dot sits only where a line branches (not at a corner);
- every node has exactly one line leaving it; every other end of a line is an arrowhead on a node
  (or, for the step's outputs, outside it); no line runs through a node or a label;
- each quantity is labelled once, next to its own line rather than another;
- the graph read off the geometry (which arrowhead touches which node) computes
  :func:`seqmodels.models.lstm.lstm_step` and :func:`seqmodels.models.gru.gru_step`.

``test_the_checks_catch_a_doctored_drawing`` shows that each check fails on a drawing with the
defect it looks for (the issue-24 complaints about the old GRU drawing among them).
"""

from __future__ import annotations

import copy
import dataclasses
import itertools

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch  # noqa: E402

from seqmodels.display.cell_diagram import HOP_RADIUS, draw_gru_cell, draw_lstm_cell  # noqa: E402
from seqmodels.models.gru import gru_step  # noqa: E402
from seqmodels.models.lstm import lstm_step  # noqa: E402

TOL = 1e-6
DRAWINGS = {"lstm": draw_lstm_cell, "gru": draw_gru_cell}


@pytest.fixture(scope="module", params=sorted(DRAWINGS))
def drawn(request):
    fig, ax = plt.subplots(figsize=(7.0, 4.6))  # the chapter's size
    d = DRAWINGS[request.param](ax)
    fig.canvas.draw()
    yield request.param, d, ax
    plt.close(fig)


# --- geometry -----------------------------------------------------------------------------------


def _key(p):
    return (round(p[0], 6), round(p[1], 6))


def _on_segment_interior(p, a, b):
    """``p`` lies on segment ``ab`` strictly between its ends."""
    p, a, b = map(np.asarray, (p, a, b))
    ab, ap = b - a, p - a
    if abs(ab[0] * ap[1] - ab[1] * ap[0]) > TOL:
        return False
    t = np.dot(ap, ab) / np.dot(ab, ab)
    return TOL < t * np.linalg.norm(ab) < np.linalg.norm(ab) - TOL


def _intersection(a, b, c, e):
    """How segments ``ab`` and ``ce`` meet: None, ("point", p) or ("overlap", None)."""
    a, b, c, e = map(np.asarray, (a, b, c, e))
    r, s = b - a, e - c
    denom = r[0] * s[1] - r[1] * s[0]
    qp = c - a
    if abs(denom) < TOL:
        if abs(qp[0] * r[1] - qp[1] * r[0]) > TOL:
            return None  # parallel
        t0, t1 = sorted((np.dot(c - a, r) / np.dot(r, r), np.dot(e - a, r) / np.dot(r, r)))
        lo, hi = max(0.0, t0), min(1.0, t1)
        if hi < lo - TOL:
            return None
        if hi - lo <= TOL:
            return ("point", tuple(a + lo * r))
        return ("overlap", None)
    t = (qp[0] * s[1] - qp[1] * s[0]) / denom
    u = (qp[0] * r[1] - qp[1] * r[0]) / denom
    if -TOL <= t <= 1 + TOL and -TOL <= u <= 1 + TOL:
        return ("point", tuple(a + t * r))
    return None


def _interior_to(p, a, b):
    return _on_segment_interior(p, a, b)


def _inside(node, p, margin=TOL):
    dx, dy = p[0] - node.center[0], p[1] - node.center[1]
    if node.shape == "circle":
        return np.hypot(dx, dy) < node.half[0] - margin
    return abs(dx) < node.half[0] - margin and abs(dy) < node.half[1] - margin


def _on_boundary(node, p):
    dx, dy = p[0] - node.center[0], p[1] - node.center[1]
    if node.shape == "circle":
        return abs(np.hypot(dx, dy) - node.half[0]) < 1e-4
    hw, hh = node.half
    return (abs(dx) <= hw + 1e-4 and abs(dy) <= hh + 1e-4
            and (abs(abs(dx) - hw) < 1e-4 or abs(abs(dy) - hh) < 1e-4))


def _touching(d, p):
    return [n for n in d.nodes if _on_boundary(n, p)]


def _samples(a, b, step=0.01):
    a, b = np.asarray(a), np.asarray(b)
    k = max(2, int(np.linalg.norm(b - a) / step) + 1)
    return a + np.linspace(0, 1, k)[:, None] * (b - a)


def _degrees(d, q):
    """For quantity ``q``: {point: degree}, counting an end on another piece's interior as a T."""
    wires = [(a, b) for w, a, b in d.wires if w == q]
    deg: dict = {}
    for a, b in wires:
        for p in (a, b):
            deg[_key(p)] = deg.get(_key(p), 0) + 1
    for p in list(deg):
        deg[p] += 2 * sum(_on_segment_interior(p, a, b) for a, b in wires)
    return deg


# --- the checks (each returns a list of problems, so a doctored drawing can show it fails) --------


def crossing_problems(d):
    problems = []
    hops = {(_key(p), frozenset((over, under))) for over, under, p in d.hops}
    needed = set()
    for (q1, a, b), (q2, c, e) in itertools.combinations(d.wires, 2):
        hit = _intersection(a, b, c, e)
        if hit is None:
            continue
        kind, p = hit
        if q1 == q2:
            if kind == "overlap" or (_interior_to(p, a, b) and _interior_to(p, c, e)):
                problems.append(f"{q1} runs over itself near {p}")
            continue
        if kind == "point" and _interior_to(p, a, b) and _interior_to(p, c, e):
            needed.add((_key(p), frozenset((q1, q2))))
            if (_key(p), frozenset((q1, q2))) not in hops:
                problems.append(f"{q1} crosses {q2} at {_key(p)} without a hop")
        else:
            problems.append(f"{q1} and {q2} touch at {p if p else 'an overlap'}")
    problems += [f"hop at {p} over no crossing of {set(qs)}" for p, qs in hops - needed]
    for _, _, p in d.hops:
        for q, j in d.junctions:
            if np.hypot(p[0] - j[0], p[1] - j[1]) < 2 * HOP_RADIUS:
                problems.append(f"hop at {p} next to a dot of {q} at {j}: it reads as a junction")
    return problems


def junction_problems(d):
    problems = []
    dots = {(q, _key(p)) for q, p in d.junctions}
    branch_points = set()
    for q in {w for w, _, _ in d.wires}:
        for p, k in _degrees(d, q).items():
            if k >= 3:
                branch_points.add((q, p))
                if (q, p) not in dots:
                    problems.append(f"{q} branches at {p} without a dot")
    problems += [f"dot of {q} at {p} where {q} does not branch" for q, p in dots - branch_points]
    return problems


def node_problems(d):
    """One line leaves each node; every other end of a line is an arrowhead; inputs fit the op."""
    problems = []
    tips = {(q, _key(p)) for q, p in d.arrows}
    into = {n.name: [] for n in d.nodes}
    out_of = {n.name: [] for n in d.nodes}
    sources: dict[str, list] = {}
    for q in {w for w, _, _ in d.wires}:
        for p, k in _degrees(d, q).items():
            nodes = _touching(d, p)
            if len(nodes) > 1:
                problems.append(f"{q} ends on {len(nodes)} nodes at {p}")
            if (q, p) in tips:
                if k != 1:
                    problems.append(f"arrowhead of {q} at {p} is not at the end of its line")
                if nodes:
                    into[nodes[0].name].append(q)
                elif q not in d.outputs:
                    problems.append(f"arrowhead of {q} at {p} points at no node")
            elif k == 1:
                if nodes:
                    out_of[nodes[0].name].append(q)
                    sources.setdefault(q, []).append(nodes[0].name)
                elif q in d.inputs:
                    sources.setdefault(q, []).append("outside")
                else:
                    problems.append(f"{q} ends at {p} with no arrowhead and no node")
            elif nodes:
                problems.append(f"{q} touches node {nodes[0].name} at {p} in the middle of its line")
    for q in {w for w, _, _ in d.wires}:
        if len(sources.get(q, [])) != 1:
            problems.append(f"{q} leaves {sources.get(q, [])}, not exactly one node")
    n_inputs = {"mul": 2, "add": 2, "one_minus": 1, "tanh": 1, "sigmoid": 1, "tanh_layer": 1}
    for n in d.nodes:
        if len(out_of[n.name]) != 1:
            problems.append(f"node {n.name} has {len(out_of[n.name])} output lines: {out_of[n.name]}")
        expected = len(n.parts) if n.op == "concat" else n_inputs[n.op]
        if len(into[n.name]) != expected or (n.op == "concat" and set(into[n.name]) != set(n.parts)):
            problems.append(f"node {n.name} ({n.op}) reads {into[n.name]}")
    for q, p in d.arrows:  # the head sits on a straight piece long enough to carry it
        last = [np.hypot(b[0] - a[0], b[1] - a[1]) for w, a, b in d.wires if w == q and _key(b) == _key(p)]
        if not last or last[0] < 0.3:
            problems.append(f"arrowhead of {q} at {p} on a piece of length {last}")
    return problems


def _text_boxes(ax):
    """Every non-empty text of ``ax`` with its extent in data coordinates."""
    renderer = ax.figure.canvas.get_renderer()
    to_data = ax.transData.inverted()
    return [(t.get_text(), t.get_window_extent(renderer).transformed(to_data)) for t in ax.texts if t.get_text()]


def _in_box(box, pts):
    return (pts[:, 0] > box.x0) & (pts[:, 0] < box.x1) & (pts[:, 1] > box.y0) & (pts[:, 1] < box.y1)


def passing_problems(d, ax):
    """No line runs through a node or a text; no label lies on a node or another label."""
    problems = []
    texts = _text_boxes(ax)
    for q, a, b in d.wires:
        pts = _samples(a, b)
        for n in d.nodes:
            if any(_inside(n, p) for p in pts):
                problems.append(f"{q} runs through node {n.name}")
        for text, box in texts:
            if _in_box(box, pts).any():
                problems.append(f"{q} runs through the text {text}")
    labels = [(t, box) for t, box in texts if t in d.labels]
    for (t1, b1), (t2, b2) in itertools.combinations(labels, 2):
        if b1.overlaps(b2):
            problems.append(f"labels {t1} and {t2} overlap")
    for t, box in labels:
        for n in d.nodes:
            hw, hh = n.half
            if box.x0 < n.center[0] + hw and box.x1 > n.center[0] - hw and box.y0 < n.center[1] + hh \
                    and box.y1 > n.center[1] - hh:
                problems.append(f"label {t} lies on node {n.name}")
    return problems


def _distance(box, a, b):
    pts = _samples(a, b)
    dx = np.maximum(np.maximum(box.x0 - pts[:, 0], 0), pts[:, 0] - box.x1)
    dy = np.maximum(np.maximum(box.y0 - pts[:, 1], 0), pts[:, 1] - box.y1)
    return float(np.hypot(dx, dy).min())


def label_problems(d, ax):
    """Each quantity is labelled once, beside its own line (nearer to it than to any other line)."""
    problems = []
    quantities = {w for w, _, _ in d.wires}
    if sorted(d.labels) != sorted(quantities):
        problems.append(f"labels {sorted(d.labels)} are not the quantities drawn {sorted(quantities)}")
    texts = _text_boxes(ax)
    for q in quantities:
        boxes = [box for t, box in texts if t == q]
        if len(boxes) != 1:
            problems.append(f"{q} is written {len(boxes)} times")
            continue
        own = min(_distance(boxes[0], a, b) for w, a, b in d.wires if w == q)
        other = min(_distance(boxes[0], a, b) for w, a, b in d.wires if w != q)
        if own > 0.3 or own >= other:
            problems.append(f"label {q} is {own:.2f} from its line and {other:.2f} from another")
    return problems


def evaluate(d, inputs, W, b, blocks):
    """The value of every quantity, computed from the drawn graph: which node each line leaves
    (its output) and which nodes its arrowheads touch (their inputs)."""
    tips = {(q, _key(p)) for q, p in d.arrows}
    made_by, reads = {}, {n.name: [] for n in d.nodes}
    for q in {w for w, _, _ in d.wires}:
        for p, k in _degrees(d, q).items():
            nodes = _touching(d, p)
            if nodes and (q, p) in tips:
                reads[nodes[0].name].append(q)
            elif nodes and k == 1:
                made_by[q] = nodes[0]
    values = dict(inputs)

    def value(q):
        if q not in values:
            n = made_by[q]
            args = [value(a) for a in (n.parts if n.op == "concat" else reads[n.name])]
            if n.op == "concat":
                values[q] = np.concatenate(args)
            elif n.op in ("sigmoid", "tanh_layer"):
                pre = W[blocks[n.block]] @ args[0] + b[blocks[n.block]]
                values[q] = 1 / (1 + np.exp(-pre)) if n.op == "sigmoid" else np.tanh(pre)
            else:
                values[q] = {"mul": np.prod, "add": np.sum}[n.op](args, axis=0) if n.op in ("mul", "add") \
                    else (1 - args[0] if n.op == "one_minus" else np.tanh(args[0]))
        return values[q]

    return {q: value(q) for q in d.outputs}


# --- the tests ----------------------------------------------------------------------------------


def test_lines_cross_only_with_a_hop(drawn):
    name, d, _ = drawn
    assert not crossing_problems(d), crossing_problems(d)
    assert len(d.hops) == {"lstm": 0, "gru": 1}[name]  # the GRU's r * h_{t-1} must pass z_t once


def test_lines_branch_only_at_dots(drawn):
    _, d, _ = drawn
    assert not junction_problems(d), junction_problems(d)


def test_each_node_has_one_output_line_and_its_inputs_end_in_arrowheads(drawn):
    _, d, _ = drawn
    assert not node_problems(d), node_problems(d)


def test_no_line_runs_through_a_node_or_a_label(drawn):
    _, d, ax = drawn
    assert not passing_problems(d, ax), passing_problems(d, ax)


def test_each_quantity_is_labelled_once_beside_its_own_line(drawn):
    name, d, ax = drawn
    assert not label_problems(d, ax), label_problems(d, ax)
    products = {"lstm": {r"$f_t \odot c_{t-1}$", r"$i_t \odot g_t$", r"$\tanh(c_t)$"},
                "gru": {r"$r_t \odot h_{t-1}$", r"$1 - z_t$", r"$(1 - z_t) \odot n_t$", r"$z_t \odot h_{t-1}$",
                        r"$[x_t, r_t \odot h_{t-1}]$"}}[name]
    assert products <= set(d.labels)


def test_the_geometry_returned_is_what_is_on_the_axes(drawn):
    """Hops, dots and arrowheads recorded are drawn (the checks above read the record)."""
    _, d, ax = drawn
    heads = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    assert len(heads) == len(d.arrows)
    dots = [p for p in ax.patches if isinstance(p, Circle) and p.get_radius() < 0.1]
    assert sorted(_key(c.center) for c in dots) == sorted(_key(p) for _, p in d.junctions)
    vertices = np.concatenate([line.get_xydata() for line in ax.lines])
    for over, _, p in d.hops:  # the bridge's apex is drawn
        assert any(np.hypot(*(v - (p[0], p[1] + HOP_RADIUS))) < 1e-6 for v in vertices), (over, p)


def test_labels_do_not_straddle_the_outline_of_the_step(drawn):
    _, d, ax = drawn
    renderer = ax.figure.canvas.get_renderer()
    outline = next(p for p in ax.patches if isinstance(p, FancyBboxPatch) and p.get_linestyle() == "--")
    frame = outline.get_window_extent(renderer)
    for t in ax.texts:
        box = t.get_window_extent(renderer)
        inside = frame.x0 < box.x0 and box.x1 < frame.x1 and frame.y0 < box.y0 and box.y1 < frame.y1
        assert inside or not box.overlaps(frame), t.get_text()


def test_the_drawn_lstm_computes_lstm_step():
    fig, ax = plt.subplots()
    d = draw_lstm_cell(ax)
    plt.close(fig)
    rng = np.random.default_rng(0)
    d_in, H = 3, 2
    W, b = rng.normal(size=(4 * H, d_in + H)), rng.normal(size=4 * H)
    x, h, c = rng.normal(size=d_in), rng.normal(size=H), rng.normal(size=H)
    blocks = {k: slice(j * H, (j + 1) * H) for j, k in enumerate("figo")}
    got = evaluate(d, {r"$x_t$": x, r"$h_{t-1}$": h, r"$c_{t-1}$": c}, W, b, blocks)
    h_t, c_t = lstm_step(x, h, c, W, b)
    assert np.allclose(got[r"$h_t$"], h_t) and np.allclose(got[r"$c_t$"], c_t)


def test_the_drawn_gru_computes_gru_step():
    fig, ax = plt.subplots()
    d = draw_gru_cell(ax)
    plt.close(fig)
    rng = np.random.default_rng(1)
    d_in, H = 3, 2
    W, b = rng.normal(size=(3 * H, d_in + H)), rng.normal(size=3 * H)
    x, h = rng.normal(size=d_in), rng.normal(size=H)
    blocks = {k: slice(j * H, (j + 1) * H) for j, k in enumerate("rzn")}
    got = evaluate(d, {r"$x_t$": x, r"$h_{t-1}$": h}, W, b, blocks)
    assert np.allclose(got[r"$h_t$"], gru_step(x, h, W, b))


def test_the_checks_catch_a_doctored_drawing():
    fig, ax = plt.subplots(figsize=(7.0, 4.6))
    d = draw_gru_cell(ax)
    fig.canvas.draw()
    # the crossing of r * h_{t-1} and z_t drawn without its hop (issue 24: "crosses without a hop")
    bad = copy.deepcopy(d)
    bad.hops.clear()
    assert any("without a hop" in p for p in crossing_problems(bad))
    # z_t's line ending on n_t's at a point that reads as a junction
    bad = copy.deepcopy(d)
    bad.wires.append((r"$z_t$", (4.6, 3.9), (7.4, 3.9)))
    assert any("touch" in p or "without a hop" in p for p in crossing_problems(bad))
    # a branch with no dot, and a dot at a corner
    bad = copy.deepcopy(d)
    bad.junctions.pop()
    assert any("without a dot" in p for p in junction_problems(bad))
    bad = copy.deepcopy(d)
    bad.junctions.append((r"$r_t \odot h_{t-1}$", (5.45, 3.7)))
    assert any("does not branch" in p for p in junction_problems(bad))
    # the candidate's output leaving where another line enters (no line of its own)
    bad = copy.deepcopy(d)
    bad.wires = [w for w in bad.wires if w[0] != r"$n_t$"]
    bad.arrows = [a for a in bad.arrows if a[0] != r"$n_t$"]
    assert any("layer n" in p for p in node_problems(bad))
    # a line without its arrowhead
    bad = copy.deepcopy(d)
    bad.arrows = [a for a in bad.arrows if a[0] != r"$z_t$"]
    assert any("no arrowhead" in p or "reads" in p for p in node_problems(bad))
    # a line through a box
    bad = copy.deepcopy(d)
    bad.wires.append((r"$r_t$", (2.8, 1.9), (2.8, 3.0)))
    assert any("runs through node layer r" in p for p in passing_problems(bad, ax))
    # a label twice
    bad = copy.deepcopy(d)
    ax.text(8.0, 0.5, r"$n_t$")
    assert any("written 2 times" in p for p in label_problems(bad, ax))
    # the graph read off the drawing is sensitive to what it computes: the candidate reading
    # [r_t * h_{t-1}, x_t] instead, or a tanh where 1 - z_t is, no longer gives gru_step
    rng = np.random.default_rng(2)
    W, b = rng.normal(size=(6, 5)), rng.normal(size=6)
    x, h = rng.normal(size=3), rng.normal(size=2)
    blocks = {k: slice(j * 2, (j + 1) * 2) for j, k in enumerate("rzn")}
    inputs = {r"$x_t$": x, r"$h_{t-1}$": h}
    assert np.allclose(evaluate(d, inputs, W, b, blocks)[r"$h_t$"], gru_step(x, h, W, b))
    for name, change in (("[x, r h]", dict(parts=(r"$r_t \odot h_{t-1}$", r"$x_t$"))), ("1 −", dict(op="tanh"))):
        bad = copy.deepcopy(d)
        bad.nodes = [dataclasses.replace(n, **change) if n.name == name else n for n in bad.nodes]
        assert not np.allclose(evaluate(bad, inputs, W, b, blocks)[r"$h_t$"], gru_step(x, h, W, b)), name
    # a node moved off its lines: its inputs and its output touch nothing
    bad = copy.deepcopy(d)
    bad.nodes = [dataclasses.replace(n, center=(n.center[0] + 0.05, n.center[1])) if n.name == "× r" else n
                 for n in bad.nodes]
    assert any("× r" in p for p in node_problems(bad))
    plt.close(fig)
