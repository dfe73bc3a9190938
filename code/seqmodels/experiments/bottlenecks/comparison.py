r"""The comparison table of the bottlenecks chapter: five models, one row each, every cell computed.

:func:`comparison_table` combines the graph measures of
:mod:`seqmodels.experiments.bottlenecks.complexity`, a timing
(:func:`seqmodels.common.clock.interleaved_best`) and a read-out accuracy from
:mod:`seqmodels.experiments.bottlenecks.capacity` and :mod:`seqmodels.common.probe`.
"""

from __future__ import annotations

import numpy as np

from seqmodels.common._checks import positive_int
from seqmodels.models.attention import init_attention, self_attention
from seqmodels.models.birnn import bilstm_forward
from seqmodels.experiments.bottlenecks.capacity import attention_read, final_states, token_sequences
from seqmodels.experiments.bottlenecks.complexity import (MODELS, critical_path, dependency_graph, layer_flops,
                                                      max_path_length)
from seqmodels.models.lstm import init_lstm, lstm_forward
from seqmodels.common.probe import linear_probe
from seqmodels.models.rnn import init_rnn, rnn_forward
from seqmodels.common.clock import interleaved_best, one_blas_thread


@one_blas_thread
def comparison_table(n: int = 256, d: int = 64, T: int = 30, distance: int = 10, vocab_size: int = 8,
                     seed: int = 0, repeat: int = 5, d_floor: int = 2) -> dict[str, dict[str, float | int | None]]:
    """The computed columns of the chapter's comparison table, one dict per model in :data:`.MODELS`.

    - ``"steps"``: :func:`.critical_path` of one layer over ``n`` tokens;
    - ``"path"``: :func:`.max_path_length` over ``n`` tokens (``None``: no position reaches another);
    - ``"time_ms"``: CPU time of one layer over ``n`` tokens of width ``d``, one sequence (batch 1),
      attention causal like the recurrent layers (best of ``repeat`` runs, the models' runs
      interleaved, one BLAS thread) --
      **measured on the machine that runs this**; ``None`` for Word2Vec, a table lookup, not a layer;
    - ``"floor_ms"``: the same, for the same layer at width ``d_floor`` (2 by default), where almost
      no arithmetic is left: the cost of its steps and their numpy calls, interleaved with the runs
      above (``None`` for Word2Vec);
    - ``"gflops"``: the layer's FLOPs (:func:`.layer_flops`: the RNN, the
      LSTM, twice the LSTM for the Bi-LSTM, and for attention the full ``Q K^T`` its causal layer
      computes before masking) over ``time_ms``, in GFLOP/s (``None`` for Word2Vec);
    - ``"accuracy"``: :func:`.linear_probe` accuracy for the token ``distance`` positions before the
      last, read from the last representation (state size ``d``; sequences of ``T`` random tokens
      over ``vocab_size``), or through :func:`.attention_read` for self-attention (a read-out designed
      to find the position, so its accuracy is fixed by construction);
    - ``"memory_per_token"``: numbers held about earlier tokens while reading ``n`` tokens, divided by
      ``n``: 0 for Word2Vec, ``d/n`` for the RNN's state, ``2d/n`` for the LSTM's ``h`` and ``c``,
      ``(n d + 4d)/n`` for the Bi-LSTM (the forward output of every position waits for the backward
      pass, plus both running states), ``2d`` for one attention layer's cache of a key and a value.

    Raises ``ValueError`` unless the sizes are integers >= 1 (``T``, ``vocab_size >= 2``) and
    ``0 <= distance < T``.
    """
    n, d, T, repeat = (positive_int(k, v) for k, v in (("n", n), ("d", d), ("T", T), ("repeat", repeat)))
    d_floor = positive_int("d_floor", d_floor)
    vocab_size = positive_int("vocab_size", vocab_size, minimum=2)
    if isinstance(distance, bool) or not isinstance(distance, (int, np.integer)) or not 0 <= distance < T:
        raise ValueError(f"distance must be an integer in [0, T) = [0, {T}), got {distance!r}")
    tokens, xs = token_sequences(2 * 1000, T, vocab_size, seed)
    train, test = slice(0, 1000), slice(1000, None)
    accuracy = {}
    for model in ("Word2Vec", "RNN", "LSTM", "Bi-LSTM"):
        S = final_states(model, xs, d, seed=seed)
        accuracy[model] = float(linear_probe(S[train], tokens[train], S[test], tokens[test], vocab_size)[::-1][distance])
    t = T - 1 - distance
    reads = attention_read(xs)[:, t]
    accuracy["Transformer self-attention"] = float(
        linear_probe(reads[train], tokens[train, t:t + 1], reads[test], tokens[test, t:t + 1], vocab_size)[0])

    rng = np.random.default_rng(seed)
    ids = rng.integers(0, vocab_size, size=n)

    def layers(width):
        """The four timed layers at ``width``, on the same token ids."""
        X = rng.normal(size=(vocab_size, width))[ids]
        h0 = np.zeros(width)
        W_h, W_x, b = init_rnn(width, width, rng, spectral_radius=0.9)
        W, b_lstm = init_lstm(width, width, rng)
        W2, b2 = init_lstm(width, width, rng)
        Wa = init_attention(width, width, width, rng)
        return {"RNN": lambda: rnn_forward(X, h0, W_h, W_x, b),
                "LSTM": lambda: lstm_forward(X, h0, h0, W, b_lstm),
                "Bi-LSTM": lambda: bilstm_forward(X, (W, b_lstm), (W2, b2)),
                "Transformer self-attention": lambda: self_attention(X, *Wa, causal=True)}

    runs = layers(d)
    runs |= {("floor", model): fn for model, fn in layers(d_floor).items()}
    memory = {"Word2Vec": 0.0, "RNN": d / n, "LSTM": 2 * d / n, "Bi-LSTM": (n * d + 4 * d) / n,
              "Transformer self-attention": 2.0 * d}
    flops = {"RNN": layer_flops("RNN", n, d), "LSTM": layer_flops("LSTM", n, d),
             "Bi-LSTM": 2 * layer_flops("LSTM", n, d), "Transformer self-attention": layer_flops("attention", n, d)}
    times = interleaved_best(runs, repeat)
    table = {}
    for model in MODELS:
        graph = dependency_graph(model, n)
        timed = model in runs
        table[model] = {"steps": critical_path(graph), "path": max_path_length(graph, n),
                        "time_ms": 1e3 * times[model] if timed else None,
                        "floor_ms": 1e3 * times[("floor", model)] if timed else None,
                        "gflops": flops[model] / times[model] / 1e9 if timed else None,
                        "accuracy": accuracy[model],
                        "memory_per_token": memory[model]}
    return table
