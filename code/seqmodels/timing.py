r"""Wall-clock timing on one BLAS thread, the timed experiments, and the pages that show them.

Everything else in the book is deterministic; the functions here whose names end in ``_times`` or
``_timings`` measure wall-clock time on the machine that runs them, and the pages listed in
:data:`TIMING_PAGES` label their output as "measured on the build machine".

- :func:`one_blas_thread`: run a function with matrix products on one thread (same sums on every
  machine, no contention on a busy one);
- :func:`best_time`: the fastest of a few runs;
- :func:`sequential_timings`: one RNN, LSTM and attention layer over growing lengths;
- :func:`kv_step_times`, :func:`kv_total_times`: causal decoding with and without a KV cache.
"""

from __future__ import annotations

import functools
import time

import numpy as np
from threadpoolctl import threadpool_limits

from ._checks import as_int_list, positive_int
from .attention import KVCache, decode, decode_step, decode_step_without_cache, init_attention, self_attention
from .lstm import init_lstm, lstm_forward
from .rnn import init_rnn, rnn_forward

#: Pages (names of ``book/*.md`` without the suffix) that print wall-clock timings measured at build
#: time. Their timing outputs differ from build to build; everything else in the book must not.
TIMING_PAGES = ("bottlenecks", "production", "pretrained")


def one_blas_thread(fn):
    """Run ``fn`` with matrix products on one thread: the same arithmetic, in the same order, on
    every machine, and no slowdown from threads competing with other processes.

    Raises ``ValueError`` if ``fn`` is not callable."""
    if not callable(fn):
        raise ValueError(f"fn must be callable, got {type(fn).__name__}")
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

    Raises
    ------
    ValueError
        a bad argument, for example ``fn``, ``repeat``: wrong type, shape or size, NaN or inf,
        or out of range; the message names the argument.

    >>> best_time(lambda: sum(range(1000)), repeat=3) > 0
    True
    """
    if not callable(fn):
        raise ValueError(f"fn must be callable, got {type(fn).__name__}")
    repeat = positive_int("repeat", repeat)
    best = np.inf
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(repeat):
            start = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - start)
    return float(best)


# --- the KV cache --------------------------------------------------------------------------------


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
    Raises ``ValueError`` unless ``lengths`` is a non-empty list of integers >= 1 and the sizes and
    ``repeat`` are integers >= 1.
    """
    lengths = as_int_list("lengths", lengths)
    d_model, n_layers = positive_int("d_model", d_model), positive_int("n_layers", n_layers)
    repeat = positive_int("repeat", repeat)
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
    with and without the cache, for each ``n`` in ``ns``; best of ``repeat`` runs, in seconds.
    Raises ``ValueError`` as :func:`kv_step_times` does, for ``ns``."""
    ns = as_int_list("ns", ns)
    d_model, n_layers = positive_int("d_model", d_model), positive_int("n_layers", n_layers)
    repeat = positive_int("repeat", repeat)
    layers, X = _decoder(d_model, n_layers, max(ns), seed)
    return {name: np.array([best_time(lambda n=n: decode(X[:n], layers, cache=flag), repeat) for n in ns])
            for name, flag in (("cache", True), ("no_cache", False))}


# --- one layer over growing lengths ------------------------------------------------------------


def sequential_timings(lengths, d: int, seed: int = 0, repeat: int = 5) -> dict[str, np.ndarray]:
    """Wall time of one layer over ``n`` tokens of width ``d``, for each ``n`` in ``lengths``.

    - ``"RNN"``: :func:`~seqmodels.rnn.rnn_forward`, a loop of ``n`` dependent steps;
    - ``"LSTM"``: :func:`~seqmodels.lstm.lstm_forward`, the same loop with four gates;
    - ``"attention"``: causal :func:`~seqmodels.attention.self_attention` over all ``n`` at once;
    - ``"RNN work, one product"``: the RNN's arithmetic, ``tanh(H W_h^T + X W_x^T + b)``, done as
      two big products, as it could be if the states were known in advance (they are not: this is
      the cost of the arithmetic without the dependency).

    Best of ``repeat`` runs, in seconds, on one BLAS thread; arrays of shape ``(len(lengths),)``.
    Raises ``ValueError`` as :func:`kv_step_times` does.
    """
    lengths, d, repeat = as_int_list("lengths", lengths), positive_int("d", d), positive_int("repeat", repeat)
    rng = np.random.default_rng(seed)
    W_h, W_x, b = init_rnn(d, d, rng, spectral_radius=0.9)
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
