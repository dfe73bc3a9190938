r"""The three bottlenecks of sequential models, measured; and the KV cache of causal attention.

Experiments for the chapters ``bottlenecks`` and ``production``. Everything here is deterministic
(seeded with ``np.random.default_rng``) except the functions whose names end in ``_times`` or
``_timings``: those measure wall-clock time on the machine that runs them, and the pages listed in
:data:`TIMING_PAGES` label their output as "measured on the build machine".
"""

from __future__ import annotations

import functools
import time

import numpy as np
from threadpoolctl import threadpool_limits

from ._checks import as_float_array
from .attention import (KVCache, attention_stack, attention_stack_backward, decode, decode_step,
                        decode_step_without_cache, init_attention, self_attention, self_attention_backward,
                        sinusoidal_positions, softmax)
from .birnn import bilstm_forward
from .lstm import init_lstm, lstm_backward, lstm_forward
from .rnn import init_rnn, rnn_backward, rnn_forward

#: Pages (names of ``book/*.md`` without the suffix) that print wall-clock timings measured at build
#: time. Their timing outputs differ from build to build; everything else in the book must not.
TIMING_PAGES = ("bottlenecks", "production", "pretrained")


def _one_blas_thread(fn):
    """Run ``fn`` with matrix products on one thread: the same arithmetic, in the same order, on
    every machine, and no slowdown from threads competing with other processes."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with threadpool_limits(limits=1, user_api="blas"):
            return fn(*args, **kwargs)
    return wrapper


def best_time(fn, repeat: int = 5) -> float:
    """The shortest of ``repeat`` wall-clock times of ``fn()``, in seconds, on one BLAS thread.

    The minimum, as :mod:`timeit` recommends: other processes only ever add time, so the fastest
    run is the best estimate of what the code itself costs. Matrix products run on a single thread
    (``threadpoolctl``), so a busy machine slows the measurement less and every size is timed under
    the same conditions.

    >>> best_time(lambda: sum(range(1000)), repeat=3) > 0
    True
    """
    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, got {repeat}")
    best = np.inf
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(repeat):
            start = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - start)
    return float(best)


# --- the KV cache ----------------------------------------------------------------------------------


def _decoder(d_model: int, n_layers: int, n: int, seed: int):
    rng = np.random.default_rng(seed)
    layers = [init_attention(d_model, d_model, d_model, rng) for _ in range(n_layers)]
    return layers, rng.normal(size=(n, d_model))


def kv_step_times(lengths, d_model: int, n_layers: int = 1, seed: int = 0,
                  repeat: int = 5) -> dict[str, np.ndarray]:
    """Wall time of one decoding step at each context length ``t`` in ``lengths``.

    ``"cache"``: :func:`~seqmodels.attention.decode_step` with ``t - 1`` positions already cached;
    ``"no_cache"``: :func:`~seqmodels.attention.decode_step_without_cache` on a prefix of ``t``.
    Each value is the best of ``repeat`` runs, in seconds; arrays of shape ``(len(lengths),)``.
    """
    lengths = [int(t) for t in lengths]
    if not lengths or min(lengths) < 1:
        raise ValueError(f"lengths must be a non-empty list of ints >= 1, got {lengths}")
    layers, X = _decoder(d_model, n_layers, max(lengths), seed)
    kv = KVCache.empty(layers, capacity=max(lengths))
    for x in X:  # fill the cache once; each timed step below rewrites one row with the same values
        decode_step(x, layers, kv)
    out = {"cache": [], "no_cache": []}
    for t in lengths:
        def cached_step(t=t):
            kv.length = t - 1
            decode_step(X[t - 1], layers, kv)

        out["cache"].append(best_time(cached_step, repeat))
        out["no_cache"].append(best_time(lambda t=t: decode_step_without_cache(X[:t], layers), repeat))
    return {k: np.array(v) for k, v in out.items()}


def kv_total_times(ns, d_model: int, n_layers: int = 1, seed: int = 0,
                   repeat: int = 1) -> dict[str, np.ndarray]:
    """Wall time of decoding ``n`` positions one at a time (:func:`~seqmodels.attention.decode`),
    with and without the cache, for each ``n`` in ``ns``; best of ``repeat`` runs, in seconds."""
    ns = [int(n) for n in ns]
    if not ns or min(ns) < 1:
        raise ValueError(f"ns must be a non-empty list of ints >= 1, got {ns}")
    layers, X = _decoder(d_model, n_layers, max(ns), seed)
    return {name: np.array([best_time(lambda n=n: decode(X[:n], layers, cache=flag), repeat) for n in ns])
            for name, flag in (("cache", True), ("no_cache", False))}


# --- 1. sequential processing -------------------------------------------------------------------

#: Models compared in the chapter, in the order of the comparison table.
MODELS = ("Word2Vec", "RNN", "LSTM", "Bi-LSTM", "Transformer self-attention")


def layer_flops(model: str, n: int, d: int) -> float:
    """FLOPs of one layer over ``n`` tokens of width ``d`` (inputs and states both ``d`` wide).

    Matrix products only, two FLOPs per multiply-add:

    - ``"RNN"``: ``2 n d (d + d)``, the input and the recurrent product at every step;
    - ``"LSTM"``: ``2 n (4d) (2d)``, one product of ``[x_t, h_{t-1}]`` with the ``(4d, 2d)`` gate matrix;
    - ``"attention"``: ``6 n d^2`` for ``Q, K, V`` plus ``4 n^2 d`` for ``Q K^T`` and ``A V``.

    >>> layer_flops("RNN", 10, 4), layer_flops("attention", 10, 4)
    (640.0, 2560.0)
    """
    if n < 1 or d < 1:
        raise ValueError(f"n and d must be >= 1, got n={n}, d={d}")
    n, d = float(n), float(d)
    counts = {"RNN": 4 * n * d**2, "LSTM": 16 * n * d**2, "attention": 6 * n * d**2 + 4 * n**2 * d}
    if model not in counts:
        raise KeyError(f"model must be one of {sorted(counts)}, got {model!r}")
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

    Nodes are inserted in an order where every node comes after the nodes it reads.

    >>> dependency_graph("RNN", 2)[("h", 1)]
    (('x', 1), ('h', 0))
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
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
        raise KeyError(f"model must be one of {MODELS + ('causal attention',)}, got {model!r}")
    return g


def critical_path(graph: dict[tuple, tuple]) -> int:
    """The most stages any chain of dependent stages holds: the minimum number of sequential steps,
    however many processors run the independent stages at the same time.

    >>> critical_path(dependency_graph("RNN", 50)), critical_path(dependency_graph("Transformer self-attention", 50))
    (50, 3)
    """
    depth: dict[tuple, int] = {}
    for node, parents in graph.items():
        depth[node] = 0 if not parents else 1 + max(depth[p] for p in parents)
    return max(depth.values())


def max_path_length(graph: dict[tuple, tuple], n: int) -> int | None:
    """Over all pairs of different positions ``j != i`` that are connected at all, the longest of the
    shortest paths from input ``x_j`` to an output at position ``i`` (in stages). ``None`` if no
    position reaches another. This is the "maximum path length" of Vaswani et al. (2017), Table 1.

    >>> g = dependency_graph("RNN", 20)
    >>> max_path_length(g, 20), max_path_length(dependency_graph("Word2Vec", 20), 20)
    (20, None)
    """
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


def sequential_timings(lengths, d: int, seed: int = 0, repeat: int = 5) -> dict[str, np.ndarray]:
    """Wall time of one layer over ``n`` tokens of width ``d``, for each ``n`` in ``lengths``.

    - ``"RNN"``: :func:`~seqmodels.rnn.rnn_forward`, a loop of ``n`` dependent steps;
    - ``"LSTM"``: :func:`~seqmodels.lstm.lstm_forward`, the same loop with four gates;
    - ``"attention"``: causal :func:`~seqmodels.attention.self_attention` over all ``n`` at once;
    - ``"RNN work, one product"``: the RNN's arithmetic, ``tanh(H W_h^T + X W_x^T + b)``, done as
      two big products, as it could be if the states were known in advance (they are not: this is
      the cost of the arithmetic without the dependency).

    Best of ``repeat`` runs, in seconds, on one BLAS thread; arrays of shape ``(len(lengths),)``.
    """
    rng = np.random.default_rng(seed)
    W_h, W_x, b = init_rnn(d, d, 0.9, rng)
    W, b_lstm = init_lstm(d, d, rng)
    W_q, W_k, W_v = init_attention(d, d, d, rng)
    out: dict[str, list[float]] = {"RNN": [], "LSTM": [], "attention": [], "RNN work, one product": []}
    h0 = np.zeros(d)
    for n in lengths:
        X = rng.normal(size=(int(n), d))
        H = rng.normal(size=(int(n), d))
        out["RNN"].append(best_time(lambda: rnn_forward(X, h0, W_h, W_x, b), repeat))
        out["LSTM"].append(best_time(lambda: lstm_forward(X, h0, h0, W, b_lstm), repeat))
        out["attention"].append(best_time(lambda: self_attention(X, W_q, W_k, W_v, causal=True), repeat))
        out["RNN work, one product"].append(best_time(lambda: np.tanh(H @ W_h.T + X @ W_x.T + b), repeat))
    return {k: np.array(v) for k, v in out.items()}


# --- 2. gradient paths ----------------------------------------------------------------------------


def _geometric_mean(rows) -> np.ndarray:
    rows = np.asarray(rows)
    with np.errstate(divide="ignore"):
        return np.exp(np.log(rows).mean(axis=0))


@_one_blas_thread
def gradient_by_distance(T: int = 60, d: int = 32, n_draws: int = 10, seed: int = 0,
                         spectral_radius: float = 0.9) -> dict[str, np.ndarray]:
    """Norm of the gradient that reaches the input ``k`` positions back from a loss on the last output.

    For random weights and a Gaussian input sequence ``xs`` of shape ``(T, d)``, the loss is
    ``L = u . y_{T-1}`` with a random unit vector ``u`` and ``y`` the layer's output (the state for
    the RNN and the LSTM, the causal attention output for attention). Returned, for each model, an
    array of shape ``(T,)`` whose entry ``k`` is ``||dL/dx_{T-1-k}||``, the geometric mean over
    ``n_draws`` draws (norms span many orders of magnitude). Entries that underflow to 0 stay 0.

    >>> g = gradient_by_distance(T=12, d=4, n_draws=2)
    >>> sorted(g), g["RNN"].shape
    (['LSTM', 'RNN', 'attention'], (12,))
    """
    if T < 2 or d < 1 or n_draws < 1:
        raise ValueError(f"need T >= 2, d >= 1, n_draws >= 1, got T={T}, d={d}, n_draws={n_draws}")
    norms: dict[str, list[np.ndarray]] = {"RNN": [], "LSTM": [], "attention": []}
    for draw in range(n_draws):
        rng = np.random.default_rng([seed, draw])
        xs = rng.normal(size=(T, d))
        u = rng.normal(size=d)
        dys = np.zeros((T, d))
        dys[-1] = u / np.linalg.norm(u)
        zero = np.zeros(d)
        grads = {
            "RNN": rnn_backward(xs, zero, *init_rnn(d, d, spectral_radius, rng), dys)["xs"],
            "LSTM": lstm_backward(xs, zero, zero, *init_lstm(d, d, rng), dys)["xs"],
            "attention": self_attention_backward(xs, *init_attention(d, d, d, rng), dys, causal=True)["X"],
        }
        for name, g in grads.items():
            norms[name].append(np.linalg.norm(g, axis=1)[::-1])  # index k = distance from the end
    return {name: _geometric_mean(rows) for name, rows in norms.items()}


@_one_blas_thread
def depth_experiment(depths, T: int = 16, d: int = 32, n_draws: int = 5,
                     seed: int = 0) -> dict[str, dict[str, np.ndarray]]:
    """What a deep stack of causal attention layers does without the Transformer's other parts.

    For each depth ``L`` in ``depths`` and each form, ``"pure"`` (``X_{l+1} = attention(X_l)``) and
    ``"residual"`` (``X_{l+1} = X_l + attention(X_l)``), with random weights
    (:func:`~seqmodels.attention.init_attention`) and Gaussian inputs ``(T, d)``:

    - ``"spread"``: the standard deviation across positions of the output, averaged over features,
      relative to that of the input; near 0 means every position holds the same vector;
    - ``"output_norm"``: the mean norm of an output vector;
    - ``"grad_first"``: the norm of the gradient reaching position 0 from ``u . y_{T-1}``.

    Geometric means over ``n_draws`` draws; arrays of shape ``(len(depths),)``.
    """
    out = {form: {"spread": [], "output_norm": [], "grad_first": []} for form in ("pure", "residual")}
    for form in out:
        for L in depths:
            rows = {key: [] for key in out[form]}
            for draw in range(n_draws):
                rng = np.random.default_rng([seed, draw])
                layers = [init_attention(d, d, d, rng) for _ in range(int(L))]
                X = rng.normal(size=(T, d))
                u = rng.normal(size=d)
                Y = attention_stack(X, layers, causal=True, residual=form == "residual")
                dY = np.zeros((T, d))
                dY[-1] = u / np.linalg.norm(u)
                g = attention_stack_backward(X, layers, dY, causal=True, residual=form == "residual")
                rows["spread"].append(Y.std(axis=0).mean() / X.std(axis=0).mean())
                rows["output_norm"].append(np.linalg.norm(Y, axis=1).mean())
                rows["grad_first"].append(np.linalg.norm(g[0]))
            for key, values in rows.items():
                out[form][key].append(float(_geometric_mean(np.array(values)[:, None])[0]))
    return {form: {k: np.array(v) for k, v in parts.items()} for form, parts in out.items()}


# --- 3. a fixed-size state ------------------------------------------------------------------------


def linear_probe(train_states, train_labels, test_states, test_labels, n_classes: int,
                 ridge: float = 1e-3) -> np.ndarray:
    """Accuracy of least-squares linear read-outs, one per label column.

    One ridge regression maps a state (plus a constant 1) to the one-hot codes of all ``P`` labels at
    once, ``W = (S^T S + ridge I)^{-1} S^T Y``; a label is predicted by the largest of its
    ``n_classes`` outputs.

    Parameters
    ----------
    train_states : ndarray of shape (N_train, d_state)
    train_labels : int ndarray of shape (N_train, P), entries in ``[0, n_classes)``
    test_states : ndarray of shape (N_test, d_state)
    test_labels : int ndarray of shape (N_test, P)

    Returns
    -------
    accuracy : ndarray of shape (P,)

    >>> rng = np.random.default_rng(0)
    >>> labels = rng.integers(0, 3, size=(200, 1))
    >>> states = np.eye(3)[labels[:, 0]] + 0.1 * rng.normal(size=(200, 3))
    >>> linear_probe(states[:150], labels[:150], states[150:], labels[150:], 3)
    array([1.])
    """
    S_train = as_float_array("train_states", train_states, ndims=(2,))
    S_test = as_float_array("test_states", test_states, ndims=(2,))
    if S_test.shape[1] != S_train.shape[1]:
        raise ValueError(f"test_states must have {S_train.shape[1]} columns like train_states, "
                         f"got {S_test.shape[1]}")
    y_train, y_test = np.asarray(train_labels), np.asarray(test_labels)
    for name, y, S in (("train_labels", y_train, S_train), ("test_labels", y_test, S_test)):
        if y.ndim != 2 or y.shape[0] != S.shape[0] or y.dtype.kind not in "iu":
            raise ValueError(f"{name} must be an int array of shape ({S.shape[0]}, P), got {y.dtype} {y.shape}")
        if y.size and (y.min() < 0 or y.max() >= n_classes):
            raise KeyError(f"{name} holds a label outside [0, {n_classes})")
    P = y_train.shape[1]
    if y_test.shape[1] != P:
        raise ValueError(f"test_labels must have {P} columns like train_labels, got {y_test.shape[1]}")
    A = np.hstack([S_train, np.ones((len(S_train), 1))])
    B = np.hstack([S_test, np.ones((len(S_test), 1))])
    Y = np.eye(n_classes)[y_train].reshape(len(S_train), P * n_classes)  # one-hot, (N, P * C)
    W = np.linalg.solve(A.T @ A + ridge * np.eye(A.shape[1]), A.T @ Y)
    predicted = (B @ W).reshape(len(S_test), P, n_classes).argmax(axis=-1)
    return (predicted == y_test).mean(axis=0)


def _token_data(n_seq: int, T: int, vocab: int, seed: int):
    rng = np.random.default_rng(seed)
    tokens = rng.integers(0, vocab, size=(n_seq, T))
    return tokens, np.eye(vocab)[tokens].transpose(1, 0, 2)  # (N, T) ids, (T, N, vocab) one-hot


def final_states(model: str, xs, d_state: int, seed: int = 0) -> np.ndarray:
    """The representation at the last position of every sequence, ``(N, d_out)``, random weights.

    ``xs`` is ``(T, N, d_in)``. ``"RNN"``: ``h_T`` (``d_state`` numbers, spectral radius 0.9);
    ``"LSTM"``: ``h_T`` (``d_state``; the cell ``c_T`` is the other half of its state);
    ``"Bi-LSTM"``: ``[h_T of the forward LSTM, h at the last position of the backward LSTM]``
    (``2 d_state``); ``"Word2Vec"``: the input vector of the last token itself (no context).
    """
    rng = np.random.default_rng(seed)
    T, N, d_in = xs.shape
    zero = np.zeros((N, d_state))
    if model == "Word2Vec":
        return xs[-1]
    if model == "RNN":
        return rnn_forward(xs, zero, *init_rnn(d_in, d_state, 0.9, rng))[-1]
    if model == "LSTM":
        return lstm_forward(xs, zero, zero, *init_lstm(d_in, d_state, rng))[0][-1]
    if model == "Bi-LSTM":  # the backward half of the last row has read only the last input
        return bilstm_forward(xs, init_lstm(d_in, d_state, rng), init_lstm(d_in, d_state, rng))[-1]
    raise KeyError(f"model must be one of Word2Vec, RNN, LSTM, Bi-LSTM, got {model!r}")


def attention_read(xs, sharpness: float = 20.0) -> np.ndarray:
    """Read every earlier position back through one attention head, ``(N, T, d_in)``.

    Keys are the sinusoidal position codes ``P`` of the ``T`` positions and values are the inputs
    ``xs`` (``(T, N, d_in)``); the query that reads position ``t`` is ``sharpness * P[t]``. Because
    ``P[t] . P[j]`` is largest at ``j = t``, the softmax puts almost all weight on position ``t``. The
    cache this reads from holds every position, so nothing had to be squeezed into a fixed size.
    """
    T, N, d_in = xs.shape
    P = sinusoidal_positions(T, 64)
    A = softmax(sharpness * P @ P.T / np.sqrt(P.shape[1]), axis=-1)  # (T queries, T keys)
    return np.einsum("tj,jnd->ntd", A, xs)  # (N, T, d_in)


@_one_blas_thread
def state_probe(models=("RNN", "LSTM"), sizes=(8, 16, 32, 64), T: int = 30, vocab: int = 8,
                n_train: int = 1000, n_test: int = 500, seed: int = 0) -> dict:
    """How well the token at each earlier position can be read back from the last representation.

    ``n_train + n_test`` sequences of ``T`` uniformly random tokens (one-hot, ``vocab`` of them, so
    chance accuracy is ``1 / vocab``) run through each model with random weights at each state size;
    :func:`linear_probe` is trained to recover all ``T`` tokens from the final representation. For
    ``"attention"`` the read-out is :func:`attention_read` at each position (no state size).

    Returns
    -------
    dict mapping ``(model, size)`` (``("attention", None)`` for attention) to an array of shape
    ``(T,)``: accuracy for the token ``k`` positions before the last, ``k = 0 .. T-1``.
    """
    tokens, xs = _token_data(n_train + n_test, T, vocab, seed)
    train, test = slice(0, n_train), slice(n_train, None)
    out = {}
    for model in models:
        for size in sizes:
            S = final_states(model, xs, int(size), seed=seed)
            acc = linear_probe(S[train], tokens[train], S[test], tokens[test], vocab)
            out[(model, int(size))] = acc[::-1]
    reads = attention_read(xs)  # (N, T, vocab): position t read by a query aimed at t
    acc = np.array([linear_probe(reads[train, t], tokens[train, t:t + 1], reads[test, t],
                                 tokens[test, t:t + 1], vocab)[0] for t in range(T)])
    out[("attention", None)] = acc[::-1]
    return out


def positions_recovered(accuracy, vocab: int) -> float:
    """``sum_k (acc_k - 1/vocab) / (1 - 1/vocab)``: how many positions' worth of tokens a read-out
    recovers, counting a perfectly read position as 1 and a position at chance as 0.

    >>> positions_recovered([1.0, 1.0, 0.25, 0.25], vocab=4)
    2.0
    """
    chance = 1.0 / vocab
    return float(np.sum((np.asarray(accuracy) - chance) / (1.0 - chance)))


@_one_blas_thread
def next_token_leak(T: int = 12, d: int = 32, vocab: int = 8, n_seq: int = 3000,
                    seed: int = 0) -> dict[str, float]:
    """Accuracy of predicting token ``t + 1`` from a self-attention layer's output at ``t``.

    Tokens are uniformly random, so no model can predict the next one from the past better than
    chance (``1 / vocab``). One random attention layer with a residual connection reads
    ``E[tokens] + sinusoidal positions``; a :func:`linear_probe` (two thirds of the positions to
    train, one third to test) predicts the next token, with the causal mask (``"causal"``) and
    without it (``"bidirectional"``). Above chance without the mask means the future leaked in.
    """
    rng = np.random.default_rng(seed)
    tokens = rng.integers(0, vocab, size=(n_seq, T))
    X = rng.normal(size=(vocab, d))[tokens] + sinusoidal_positions(T, d)  # (N, T, d)
    W_q, W_k, W_v = init_attention(d, d, d, rng)
    out = {}
    for name, causal in (("causal", True), ("bidirectional", False)):
        H = X + self_attention(X, W_q, W_k, W_v, causal=causal)[0]
        feats = H[:, :-1].reshape(-1, d)
        nxt = tokens[:, 1:].reshape(-1, 1)
        cut = 2 * len(feats) // 3
        out[name] = float(linear_probe(feats[:cut], nxt[:cut], feats[cut:], nxt[cut:], vocab)[0])
    out["chance"] = 1.0 / vocab
    return out


# --- the comparison table and the diagram ---------------------------------------------------------


@_one_blas_thread
def comparison_table(n: int = 256, d: int = 32, T: int = 30, distance: int = 10, vocab: int = 8,
                     seed: int = 0, repeat: int = 5) -> dict[str, dict[str, float | int | None]]:
    """The computed columns of the chapter's comparison table, one dict per model in :data:`MODELS`.

    - ``"steps"``: :func:`critical_path` of one layer over ``n`` tokens;
    - ``"path"``: :func:`max_path_length` over ``n`` tokens (``None``: no position reaches another);
    - ``"time_ms"``: wall time of one layer over ``n`` tokens of width ``d`` (best of ``repeat``,
      one BLAS thread) -- **measured on the machine that runs this**;
    - ``"accuracy"``: :func:`linear_probe` accuracy for the token ``distance`` positions before the
      last, read from the last representation (state size ``d``; sequences of ``T`` random tokens
      over ``vocab``), or through :func:`attention_read` for self-attention;
    - ``"memory_per_token"``: numbers held about earlier tokens while reading ``n`` tokens, divided by
      ``n``: 0 for Word2Vec, ``d/n`` for the RNN's state, ``2d/n`` for the LSTM's ``h`` and ``c``,
      ``(n d + 4d)/n`` for the Bi-LSTM (the forward output of every position waits for the backward
      pass, plus both running states), ``2d`` for one attention layer's cache of a key and a value.
    """
    tokens, xs = _token_data(2 * 1000, T, vocab, seed)
    train, test = slice(0, 1000), slice(1000, None)
    accuracy = {}
    for model in ("Word2Vec", "RNN", "LSTM", "Bi-LSTM"):
        S = final_states(model, xs, d, seed=seed)
        accuracy[model] = float(linear_probe(S[train], tokens[train], S[test], tokens[test], vocab)[::-1][distance])
    t = T - 1 - distance
    reads = attention_read(xs)[:, t]
    accuracy["Transformer self-attention"] = float(
        linear_probe(reads[train], tokens[train, t:t + 1], reads[test], tokens[test, t:t + 1], vocab)[0])

    rng = np.random.default_rng(seed)
    ids = rng.integers(0, vocab, size=n)
    E = rng.normal(size=(vocab, d))
    X = E[ids]
    h0 = np.zeros(d)
    W_h, W_x, b = init_rnn(d, d, 0.9, rng)
    W, b_lstm = init_lstm(d, d, rng)
    W2, b2 = init_lstm(d, d, rng)
    Wa = init_attention(d, d, d, rng)
    runs = {
        "Word2Vec": lambda: E[ids],
        "RNN": lambda: rnn_forward(X, h0, W_h, W_x, b),
        "LSTM": lambda: lstm_forward(X, h0, h0, W, b_lstm),
        "Bi-LSTM": lambda: bilstm_forward(X, (W, b_lstm), (W2, b2)),
        "Transformer self-attention": lambda: self_attention(X, *Wa),
    }
    memory = {"Word2Vec": 0.0, "RNN": d / n, "LSTM": 2 * d / n, "Bi-LSTM": (n * d + 4 * d) / n,
              "Transformer self-attention": 2.0 * d}
    table = {}
    for model in MODELS:
        graph = dependency_graph(model, n)
        table[model] = {"steps": critical_path(graph), "path": max_path_length(graph, n),
                        "time_ms": 1e3 * best_time(runs[model], repeat), "accuracy": accuracy[model],
                        "memory_per_token": memory[model]}
    return table


def draw_remedies(ax, facts: dict[str, str]) -> None:
    """Draw the three bottlenecks, each with an arrow to the self-attention remedy and its price.

    ``facts`` supplies the measured detail for each box, keys ``"sequential"``, ``"gradient"``,
    ``"state"`` (bottlenecks) and ``"parallel"``, ``"path"``, ``"access"`` (remedies), ``"price"``.
    """
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
