r"""How gradients travel: back through time in RNNs, LSTMs and attention, and down a deep stack.

- :func:`gradient_by_distance`: the norm of the gradient reaching the input ``k`` positions back;
- :func:`depth_experiment`: a deep stack of causal attention with and without residual connections.

Both draw random weights (seeded) and average over draws in log space. ``d`` is the width of
inputs and states alike (``d_in = d_hidden = d_model = d``).
"""

from __future__ import annotations

import numpy as np

from ._checks import as_int_list, finite_float, positive_int
from .attention import attention_stack, attention_stack_backward, init_attention, self_attention_backward
from .lstm import init_lstm, lstm_backward
from .rnn import init_rnn, rnn_backward
from .timing import one_blas_thread


def _geometric_mean(rows) -> np.ndarray:
    rows = np.asarray(rows)
    with np.errstate(divide="ignore"):
        return np.exp(np.log(rows).mean(axis=0))


@one_blas_thread
def gradient_by_distance(T: int = 60, d: int = 32, n_draws: int = 10, seed: int = 0,
                         spectral_radius: float = 0.9) -> dict[str, np.ndarray]:
    """Norm of the gradient that reaches the input ``k`` positions back from a loss on the last output.

    For random weights and a Gaussian input sequence ``xs`` of shape ``(T, d)``, the loss is
    ``L = u . y_{T-1}`` with a random unit vector ``u`` and ``y`` the layer's output (the state for
    the RNN and the LSTM, the causal attention output for attention). Returned, for each model, an
    array of shape ``(T,)`` whose entry ``k`` is ``||dL/dx_{T-1-k}||``, the geometric mean over
    ``n_draws`` draws (norms span many orders of magnitude). Entries that underflow to 0 stay 0.
    Raises ``ValueError`` unless ``T >= 2`` and ``d``, ``n_draws`` are integers >= 1, and
    ``spectral_radius`` is finite and >= 0.

    >>> g = gradient_by_distance(T=12, d=4, n_draws=2)
    >>> sorted(g), g["RNN"].shape
    (['LSTM', 'RNN', 'attention'], (12,))
    """
    T, d, n_draws = positive_int("T", T, minimum=2), positive_int("d", d), positive_int("n_draws", n_draws)
    spectral_radius = finite_float("spectral_radius", spectral_radius, low=0)
    norms: dict[str, list[np.ndarray]] = {"RNN": [], "LSTM": [], "attention": []}
    for draw in range(n_draws):
        rng = np.random.default_rng([seed, draw])
        xs = rng.normal(size=(T, d))
        u = rng.normal(size=d)
        dys = np.zeros((T, d))
        dys[-1] = u / np.linalg.norm(u)
        zero = np.zeros(d)
        grads = {
            "RNN": rnn_backward(xs, zero, *init_rnn(d, d, rng, spectral_radius=spectral_radius), dys)["xs"],
            "LSTM": lstm_backward(xs, zero, zero, *init_lstm(d, d, rng), dys)["xs"],
            "attention": self_attention_backward(xs, *init_attention(d, d, d, rng), dys, causal=True)["X"],
        }
        for name, g in grads.items():
            norms[name].append(np.linalg.norm(g, axis=1)[::-1])  # index k = distance from the end
    return {name: _geometric_mean(rows) for name, rows in norms.items()}


@one_blas_thread
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

    Geometric means over ``n_draws`` draws; arrays of shape ``(len(depths),)``. Raises
    ``ValueError`` unless ``depths`` is a non-empty list of integers >= 1, ``T >= 2`` (a spread
    needs two positions) and ``d``, ``n_draws`` are integers >= 1.
    """
    depths = as_int_list("depths", depths)
    T, d, n_draws = positive_int("T", T, minimum=2), positive_int("d", d), positive_int("n_draws", n_draws)
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
