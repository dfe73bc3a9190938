r"""The timed experiments of the bottlenecks and production chapters, and the pages that show them.

Everything else in the book is deterministic; the functions here whose names end in ``_times``
measure time on the machine that runs them (in the process's CPU time, with
:func:`seqmodels.common.clock.interleaved_best`), and the pages listed in :data:`TIMING_PAGES` label
their output as "measured on the build machine".

- :func:`kv_step_times`, :func:`kv_total_times`: causal decoding with and without a KV cache (the
  step as ``decode`` runs it, and the checked public ``decode_step``);
- :func:`recurrence_costs`: the RNN loop split into interpreter floor, one sequence and a batch
  (this and the next two compare variants in CPU time, their runs interleaved);
- :func:`attention_split_times`: causal attention's matrix products against its mask and softmax
  (lean, and as the checked layer does it);
- :func:`prefill_decode_times`: :func:`~seqmodels.models.attention.generate` reading a prompt in one pass
  against producing the same number of tokens one at a time, and the layers alone.
"""

from __future__ import annotations

import numpy as np

from seqmodels.common._checks import as_int_list, as_rng, positive_int
from seqmodels.models.attention import (KVCache, attention_stack, causal_mask, decode, decode_step, decode_step_without_cache,
                        generate, init_attention, self_attention, sinusoidal_positions)
from seqmodels.common.clock import interleaved_best
from seqmodels.common.numeric import softmax, softmax_
from seqmodels.models.rnn import init_rnn, rnn_forward

#: Pages (names of ``book/*.md`` without the suffix) that print wall-clock timings measured at build
#: time. Their timing outputs differ from build to build; everything else in the book must not.
TIMING_PAGES = ("bottlenecks", "production", "pretrained")


# --- the KV cache --------------------------------------------------------------------------------


def _decoder(d_model: int, n_layers: int, n: int, seed: int):
    rng = np.random.default_rng(seed)
    layers = [init_attention(d_model, d_model, d_model, rng) for _ in range(n_layers)]
    return layers, rng.normal(size=(n, d_model))


def kv_step_times(lengths, d_model: int, n_layers: int = 1, seed: int = 0,
                  repeat: int = 5) -> dict[str, np.ndarray]:
    """Time of one decoding step at each context length ``t`` in ``lengths``.

    ``"cache"``: the step with ``t - 1`` positions already cached,
    ``decode_step(..., check=False)`` (as :func:`~seqmodels.models.attention.decode` and ``generate`` run
    it at every step); ``"no_cache"``: the step on a prefix of ``t``,
    ``decode_step_without_cache(..., check=False)``;
    ``"cache_checked"``: the public :func:`~seqmodels.models.attention.decode_step`, argument checks
    included (it re-validates every weight and the cache on each call, for readers who call it
    by hand). Each value is the best of ``repeat`` runs in CPU time, the variants interleaved
    (:func:`~seqmodels.common.clock.interleaved_best`), in seconds; arrays of shape ``(len(lengths),)``.
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
    out = {"cache": [], "no_cache": [], "cache_checked": []}
    for t in lengths:
        def cached_step(t=t, check=False):
            kv.length = t - 1
            decode_step(X[t - 1], layers, kv, check=check)

        best = interleaved_best({"cache": cached_step,
                                  "no_cache": lambda t=t: decode_step_without_cache(X[:t], layers, check=False),
                                  "cache_checked": lambda t=t: cached_step(t, True)}, repeat)
        for name in out:
            out[name].append(best[name])
    return {k: np.array(v) for k, v in out.items()}


def kv_total_times(ns, d_model: int, n_layers: int = 1, seed: int = 0,
                   repeat: int = 1) -> dict[str, np.ndarray]:
    """Time of decoding ``n`` positions one at a time (:func:`~seqmodels.models.attention.decode`),
    with and without the cache, for each ``n`` in ``ns``; best of ``repeat`` runs in CPU time, the
    two variants interleaved (:func:`~seqmodels.common.clock.interleaved_best`), in seconds.
    Raises ``ValueError`` as :func:`kv_step_times` does, for ``ns``."""
    ns = as_int_list("ns", ns)
    d_model, n_layers = positive_int("d_model", d_model), positive_int("n_layers", n_layers)
    repeat = positive_int("repeat", repeat)
    layers, X = _decoder(d_model, n_layers, max(ns), seed)
    rows = [interleaved_best({"cache": lambda n=n: decode(X[:n], layers, cache=True),
                               "no_cache": lambda n=n: decode(X[:n], layers, cache=False)}, repeat) for n in ns]
    return {name: np.array([row[name] for row in rows]) for name in ("cache", "no_cache")}


def recurrence_costs(lengths, d: int = 64, d_floor: int = 2, batch: int = 16, seed: int = 0,
                     repeat: int = 3) -> dict[str, np.ndarray]:
    """What the time of the RNN loop (:func:`~seqmodels.models.rnn.rnn_forward`) is made of, per sequence.

    For each ``n`` in ``lengths``, in CPU seconds per sequence of ``n`` tokens (best of ``repeat``
    interleaved runs, one BLAS thread; see :func:`~seqmodels.common.clock.interleaved_best`):

    - ``"floor"``: the same loop at width ``d_floor`` (almost no arithmetic: the cost of ``n``
      Python-level steps and their numpy calls);
    - ``"one sequence"``: the loop at width ``d``, batch 1;
    - ``"batched"``: the loop at width ``d`` over ``batch`` sequences at once, divided by ``batch``
      (the same number of steps, each a matrix-matrix product instead of a matrix-vector one);
    - ``"one product"``: the RNN's arithmetic for one sequence, ``tanh(H W_h^T + X W_x^T + b)``, as
      two large products, as if every state were known in advance;
    - ``"input projection"``: ``X W_x^T + b`` alone, the product ``rnn_forward`` does for all steps
      at once before its loop (so ``"one sequence"`` minus it is the recurrence's own time).

    Arrays of shape ``(len(lengths),)``.

    Raises
    ------
    ValueError
        If ``lengths`` is not a non-empty list of integers >= 1, or a size is not an integer >= 1 (``seed`` >= 0,
        ``repeat`` >= 1).
    """
    lengths = as_int_list("lengths", lengths)
    d, d_floor, batch = positive_int("d", d), positive_int("d_floor", d_floor), positive_int("batch", batch)
    rng = np.random.default_rng(positive_int("seed", seed, minimum=0))
    wide = init_rnn(d, d, rng, spectral_radius=0.9)
    narrow = init_rnn(d_floor, d_floor, rng, spectral_radius=0.9)
    out: dict[str, list[float]] = {"floor": [], "one sequence": [], "batched": [], "one product": [],
                                   "input projection": []}
    for n in lengths:
        X, H = rng.normal(size=(n, d)), rng.normal(size=(n, d))
        Xf, Xb = rng.normal(size=(n, d_floor)), rng.normal(size=(n, batch, d))
        W_h, W_x, b = wide
        best = interleaved_best({
            "floor": lambda: rnn_forward(Xf, np.zeros(d_floor), *narrow),
            "one sequence": lambda: rnn_forward(X, np.zeros(d), *wide),
            "batched": lambda: rnn_forward(Xb, np.zeros((batch, d)), *wide),
            "one product": lambda: np.tanh(H @ W_h.T + X @ W_x.T + b),
            "input projection": lambda: X @ W_x.T + b,
        }, repeat)
        best["batched"] /= batch
        for key, value in best.items():
            out[key].append(value)
    return {k: np.array(v) for k, v in out.items()}


def attention_split_times(lengths, d: int = 64, seed: int = 0, repeat: int = 3) -> dict[str, np.ndarray]:
    """Causal self-attention over ``n`` tokens of width ``d``, timed in parts, for each ``n``.

    - ``"products"``: the matrix products, ``Q, K, V = X W_q, X W_k, X W_v``, ``S = Q K^T / sqrt(d)``
      and ``A V`` (the FLOPs that :func:`~seqmodels.experiments.bottlenecks.complexity.layer_flops` counts);
    - ``"mask and softmax"``: the elementwise ``O(n^2)`` work between them done lean: ``-inf`` put
      above the diagonal of a fresh copy of ``S`` with a mask built once per ``n``, and the softmax
      of every row in place with no scan for NaN (:func:`~seqmodels.common.numeric.softmax_`);
    - ``"mask and softmax, checked"``: the same work as :func:`~seqmodels.models.attention.self_attention`
      does it, building the mask on each call and scanning the scores for NaN in
      :func:`~seqmodels.common.numeric.softmax`, which also makes fresh ``n x n`` arrays rather than
      working in place;
    - ``"total"``: :func:`~seqmodels.models.attention.self_attention` with ``causal=True``, the whole
      checked layer.

    CPU seconds, best of ``repeat`` interleaved runs on one BLAS thread; arrays of shape
    ``(len(lengths),)``.

    Raises
    ------
    ValueError
        If ``lengths`` is not a non-empty list of integers >= 1, or ``d`` is not an integer >= 1 (``seed`` >= 0,
        ``repeat`` >= 1).
    """
    lengths = as_int_list("lengths", lengths)
    d = positive_int("d", d)
    rng = np.random.default_rng(positive_int("seed", seed, minimum=0))
    W_q, W_k, W_v = init_attention(d, d, d, rng)
    out: dict[str, list[float]] = {"products": [], "mask and softmax": [], "mask and softmax, checked": [],
                                   "total": []}
    for n in lengths:
        X = rng.normal(size=(n, d))
        S = (X @ W_q) @ (X @ W_k).T / np.sqrt(d)
        mask = causal_mask(n)
        A = softmax(np.where(mask, S, -np.inf), axis=-1)

        def products():
            Q, K, V = X @ W_q, X @ W_k, X @ W_v
            return Q @ K.T / np.sqrt(d), A @ V

        best = interleaved_best({
            "products": products,
            "mask and softmax": lambda: softmax_(np.where(mask, S, -np.inf)),
            "mask and softmax, checked": lambda: softmax(np.where(causal_mask(n), S, -np.inf), axis=-1),
            "total": lambda: self_attention(X, W_q, W_k, W_v, causal=True),
        }, repeat)
        for key, value in best.items():
            out[key].append(value)
    return {k: np.array(v) for k, v in out.items()}


def toy_decoder(d_model: int, n_layers: int, vocab_size: int, rng) -> tuple:
    """The random toy decoder that :func:`prefill_decode_times` times: ``(E, layers, W_unembed)``,
    an embedding ``(vocab_size, d_model)``, ``n_layers`` attention layers from
    :func:`~seqmodels.models.attention.init_attention` and a read-out ``(d_model, vocab_size)``.

    Raises
    ------
    ValueError
        a size that is not an integer >= 1, or a bad ``rng``.

    >>> E, layers, W_u = toy_decoder(8, 2, 10, 0)
    >>> E.shape, len(layers), W_u.shape
    ((10, 8), 2, (8, 10))
    """
    d_model, n_layers = positive_int("d_model", d_model), positive_int("n_layers", n_layers)
    vocab_size, rng = positive_int("vocab_size", vocab_size), as_rng("rng", rng)
    E = rng.normal(size=(vocab_size, d_model))
    W_unembed = rng.normal(size=(d_model, vocab_size))
    layers = [init_attention(d_model, d_model, d_model, rng) for _ in range(n_layers)]
    return E, layers, W_unembed


def prefill_decode_times(lengths, d_model: int = 256, n_layers: int = 2, vocab_size: int = 512, seed: int = 0,
                         repeat: int = 3) -> dict[str, np.ndarray]:
    """Reading ``n`` tokens at once against producing ``n`` tokens one at a time, with
    :func:`~seqmodels.models.attention.generate` and its KV cache, for each ``n`` in ``lengths``; and the
    same two for the layers alone.

    - ``"prefill"``: ``generate(prompt, 1, ...)`` with a prompt of ``n`` tokens: one causal pass per
      layer over all ``n`` positions, keys and values kept, and one read-out (the next token's logits);
    - ``"decode"``: ``generate(prompt[:1], n, ...)``: the same ``n`` positions through the layers, all
      but the first in a decoding step of one position each, and a read-out after every position
      (a decoder must choose each token before it can read the next);
    - ``"prefill_layers"``, ``"decode_layers"``: the layers alone on the same ``n`` inputs, with no
      embedding lookup and no read-out: :func:`~seqmodels.models.attention.attention_stack` (causal) in one
      pass, and :func:`~seqmodels.models.attention.decode` with the cache, one position per step.

    Random weights from ``toy_decoder`` with ``seed`` (a toy model: the computation's
    shape is the point). CPU seconds, best of
    ``repeat`` interleaved runs on one BLAS thread; arrays of shape ``(len(lengths),)``.

    Raises
    ------
    ValueError
        If ``lengths`` is not a non-empty list of integers >= 2, or a size is not an integer >= 1 (``seed`` >= 0,
        ``repeat`` >= 1).
    """
    lengths = as_int_list("lengths", lengths, minimum=2)
    d_model, n_layers = positive_int("d_model", d_model), positive_int("n_layers", n_layers)
    vocab_size = positive_int("vocab_size", vocab_size)
    rng = np.random.default_rng(positive_int("seed", seed, minimum=0))
    E, layers, W_unembed = toy_decoder(d_model, n_layers, vocab_size, rng)
    prompt = rng.integers(0, vocab_size, size=max(lengths))
    X = E[prompt] + sinusoidal_positions(max(lengths), d_model)   # the inputs generate's prefill reads
    out: dict[str, list[float]] = {"prefill": [], "decode": [], "prefill_layers": [], "decode_layers": []}
    for n in lengths:
        best = interleaved_best({"prefill": lambda: generate(prompt[:n], 1, E, layers, W_unembed),
                                  "decode": lambda: generate(prompt[:1], n, E, layers, W_unembed),
                                  "prefill_layers": lambda: attention_stack(X[:n], layers, causal=True),
                                  "decode_layers": lambda: decode(X[:n], layers, cache=True)}, repeat)
        for key, value in best.items():
            out[key].append(value)
    return {k: np.array(v) for k, v in out.items()}
