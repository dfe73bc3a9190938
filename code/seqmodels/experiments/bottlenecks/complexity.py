r"""What one layer over ``n`` tokens costs: its dependency graph and its FLOPs.

- :func:`dependency_graph`: the computation as a graph of stages (node -> the nodes it reads);
- :func:`critical_path`: the fewest sequential steps, however many processors run in parallel;
- :func:`max_path_length`: the longest shortest path between two positions (Vaswani et al. 2017,
  Table 1);
- :func:`layer_flops`: the FLOPs of the matrix products.

Widths: ``d`` is the width of inputs and states alike (``d_in = d_hidden = d_model = d``).
"""

from __future__ import annotations

import numpy as np

from seqmodels.common._checks import one_of, positive_int


#: Models compared in the chapter, in the order of the comparison table.
MODELS = ("Word2Vec", "RNN", "LSTM", "Bi-LSTM", "Transformer self-attention")


def layer_flops(model: str, n: int, d: int) -> float:
    """FLOPs of one layer over ``n`` tokens of width ``d`` (inputs and states both ``d`` wide).

    Matrix products only, two FLOPs per multiply-add:

    - ``"RNN"``: ``2 n d (d + d)``, the input and the recurrent product at every step;
    - ``"LSTM"``: ``2 n (4d) (2d)``, one product of ``[x_t, h_{t-1}]`` with the ``(4d, 2d)`` gate matrix;
    - ``"attention"``: ``6 n d^2`` for ``Q, K, V`` plus ``4 n^2 d`` for ``Q K^T`` and ``A V``;
    - ``"Transformer layer"``: what Vaswani et al. (2017) stack, attention with its output projection
      ``W_O`` (``2 n d^2`` more) and the feed-forward layer of width ``4d`` (``16 n d^2``):
      ``24 n d^2 + 4 n^2 d``.

    Elementwise work (softmax, mask, activations, normalisation) is not counted.

    Raises ``ValueError`` for a ``model`` not among those four, or unless ``n`` and ``d`` are
    integers >= 1.

    >>> layer_flops("RNN", 10, 4), layer_flops("attention", 10, 4)
    (640.0, 2560.0)
    """
    one_of("model", model, ("RNN", "LSTM", "attention", "Transformer layer"))
    n, d = float(positive_int("n", n)), float(positive_int("d", d))
    counts = {"RNN": 4 * n * d**2, "LSTM": 16 * n * d**2, "attention": 6 * n * d**2 + 4 * n**2 * d,
              "Transformer layer": 24 * n * d**2 + 4 * n**2 * d}
    return counts[model]


def dependency_graph(model: str, n: int) -> dict[tuple, tuple]:
    """The computation of one layer over ``n`` tokens as a graph: node -> the nodes it reads.

    Inputs are ``("x", j)``. One node is one stage that must finish before its readers start:

    - ``"Word2Vec"``: ``("e", t) <- x_t`` (a table lookup);
    - ``"RNN"``, ``"LSTM"``: ``("h", t) <- x_t, h_{t-1}`` (one step of the cell);
    - ``"Bi-LSTM"``: a forward chain ``f_t <- x_t, f_{t-1}``, a backward chain ``b_t <- x_t, b_{t+1}``
      and ``("o", t) <- f_t, b_t``;
    - ``"Transformer self-attention"``: ``p_j <- x_j`` (query, key, value), ``s_i <- p_i, p_j for
      all j`` (a row of scores and its softmax), ``("o", i) <- s_i, p_j for all j`` (weighted sum);
      ``"causal attention"`` is the same with ``j <= i`` only.

    Nodes are inserted in an order where every node comes after the nodes it reads. Raises
    ``ValueError`` for a ``model`` not among those six, or unless ``n`` is an integer >= 1.

    >>> dependency_graph("RNN", 2)[("h", 1)]
    (('x', 1), ('h', 0))
    """
    one_of("model", model, MODELS + ("causal attention",))
    n = positive_int("n", n)
    g: dict[tuple, tuple] = {("x", j): () for j in range(n)}
    if model == "Word2Vec":
        g.update({("e", t): (("x", t),) for t in range(n)})
    elif model in ("RNN", "LSTM"):
        for t in range(n):
            g[("h", t)] = (("x", t),) + ((("h", t - 1),) if t else ())
    elif model == "Bi-LSTM":
        for t in range(n):
            g[("f", t)] = (("x", t),) + ((("f", t - 1),) if t else ())
        for t in reversed(range(n)):
            g[("b", t)] = (("x", t),) + ((("b", t + 1),) if t < n - 1 else ())
        g.update({("o", t): (("f", t), ("b", t)) for t in range(n)})
    elif model in ("Transformer self-attention", "causal attention"):
        causal = model == "causal attention"
        g.update({("p", j): (("x", j),) for j in range(n)})
        for i in range(n):
            seen = tuple(("p", j) for j in range(i + 1 if causal else n))
            g[("s", i)] = seen
            g[("o", i)] = (("s", i),) + seen
    else:
        raise ValueError(f"model must be one of {MODELS + ('causal attention',)}, got {model!r}")
    return g


def critical_path(graph: dict[tuple, tuple]) -> int:
    """The most stages any chain of dependent stages holds: the minimum number of sequential steps,
    however many processors run the independent stages at the same time. Raises ``ValueError`` for
    an empty graph or one that lists a node before a node it reads.

    >>> critical_path(dependency_graph("RNN", 50)), critical_path(dependency_graph("Transformer self-attention", 50))
    (50, 3)
    """
    _check_graph(graph)
    depth: dict[tuple, int] = {}
    for node, parents in graph.items():
        depth[node] = 0 if not parents else 1 + max(depth[p] for p in parents)
    return max(depth.values())


def _check_graph(graph) -> None:
    """A non-empty dict in which every node comes after the nodes it reads."""
    if not isinstance(graph, dict) or not graph:
        raise ValueError(f"graph must be a non-empty dict node -> parents (see dependency_graph), got {graph!r}")
    seen = set()
    for node, parents in graph.items():
        unknown = [p for p in parents if p not in seen]
        if unknown:
            raise ValueError(f"graph must list every node after the nodes it reads: {node} reads {unknown} first")
        seen.add(node)


def max_path_length(graph: dict[tuple, tuple], n: int) -> int | None:
    """Over all pairs of different positions ``j != i`` that are connected at all, the longest of the
    shortest paths from input ``x_j`` to an output at position ``i`` (in stages). ``None`` if no
    position reaches another. This is the "maximum path length" of Vaswani et al. (2017), Table 1.
    Raises ``ValueError`` for a graph as :func:`critical_path` does, or an ``n`` other than its
    number of inputs.

    >>> g = dependency_graph("RNN", 20)
    >>> max_path_length(g, 20), max_path_length(dependency_graph("Word2Vec", 20), 20)
    (20, None)
    """
    _check_graph(graph)
    n = positive_int("n", n)
    inputs = sorted(node[1] for node, parents in graph.items() if not parents)
    if inputs != list(range(n)):
        raise ValueError(f"n must be the number of inputs of graph ({len(inputs)}), got {n}")
    inf = np.iinfo(np.int64).max // 2
    dist: dict[tuple, np.ndarray] = {}
    for node, parents in graph.items():
        if not parents:  # input x_j: distance 0 from itself
            dist[node] = np.full(n, inf)
            dist[node][node[1]] = 0
        else:
            dist[node] = np.min([dist[p] for p in parents], axis=0) + 1
    outputs = {}
    for node in graph:  # the last stage at each position is its output
        if graph[node] and node[0] in ("e", "h", "o"):
            outputs[node[1]] = dist[node]
    best = None
    for i, d in outputs.items():
        others = np.delete(d, i)
        reach = others[others < inf // 2]
        if reach.size:
            best = int(reach.max()) if best is None else max(best, int(reach.max()))
    return best
