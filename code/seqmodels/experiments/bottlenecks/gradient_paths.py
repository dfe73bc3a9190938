r"""How gradients travel: back through time in RNNs, LSTMs and attention, and down a deep stack.

- :func:`gradient_by_distance`: the norm of the gradient reaching the input ``k`` positions back;
- :func:`depth_arms`: deep random stacks of causal attention, pure, residual, with post- or pre-layer
  normalisation, with and without an MLP, measured by the scale-free :func:`token_uniformity`.

Both draw random weights (seeded); :func:`gradient_by_distance` averages over draws in log space. ``d`` is the width of
inputs and states alike (``d_in = d_hidden = d_model = d``).
"""

from __future__ import annotations

import numpy as np

from seqmodels.common._checks import as_float_array, finite_float, positive_int
from seqmodels.models.attention import init_attention, self_attention_backward
from seqmodels.models.blocks import block_stack_states, init_blocks
from seqmodels.models.lstm import init_lstm, lstm_backward
from seqmodels.models.rnn import init_rnn, rnn_backward
from seqmodels.common.clock import one_blas_thread
from seqmodels.common.statistics import geometric_mean


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
    return {name: geometric_mean(rows) for name, rows in norms.items()}


#: The arms of :func:`depth_arms`: name -> (residual, norm, with_mlp, branch_scale). A branch scale
#: of ``None`` means ``1 / sqrt(max_depth)``: each block's update shrunk relative to the stream, no
#: normalisation anywhere.
DEPTH_ARMS = {
    "pure attention": (False, None, False, 1.0),
    "residual": (True, None, False, 1.0),
    "residual + MLP": (True, None, True, 1.0),
    "residual ×1/√L": (True, None, False, None),
    "residual ×1/√L + MLP": (True, None, True, None),
    "residual, post-LN": (True, "post", False, 1.0),
    "residual, post-LN + MLP": (True, "post", True, 1.0),
    "residual, pre-LN": (True, "pre", False, 1.0),
    "residual, pre-LN + MLP": (True, "pre", True, 1.0),
}


def token_uniformity(X) -> np.ndarray:
    r"""How far the positions of ``X`` (``([batch,] T, d)``) are from all being the same vector:
    ``||X - 1 xbar^T||_F / ||X||_F`` with ``xbar`` the mean over positions.

    Scale-free: multiplying ``X`` by any non-zero number leaves it unchanged, so activations that grow cannot
    pass for positions that stay different. 0 means every position holds the same vector (a rank-one
    ``X``, the "token uniformity" of Dong et al. 2021); for independent random positions it is near 1.

    Raises
    ------
    ValueError
        If ``X`` is not a finite array of shape ``([batch,] T, d)`` with ``T >= 2``, or one of its
        sequences is all zeros (the ratio would be 0 / 0).

    >>> float(token_uniformity(np.array([[1.0, 2.0], [1.0, 2.0]]))), float(token_uniformity(np.array([[1.0], [-1.0]])))
    (0.0, 1.0)
    """
    X = as_float_array("X", X, ndims=(2, 3))
    if X.shape[-2] < 2 or X.shape[-1] < 1:
        raise ValueError(f"X must have shape ([batch,] T, d) with T >= 2 and d >= 1, got {X.shape}")
    size = np.linalg.norm(X, axis=(-2, -1))
    if not np.all(size > 0):
        raise ValueError("X must not hold a sequence of all zeros (its uniformity is 0 / 0)")
    centred = X - X.mean(axis=-2, keepdims=True)
    return np.linalg.norm(centred, axis=(-2, -1)) / size


@one_blas_thread
def depth_arms(max_depth: int = 32, T: int = 16, d: int = 32, seeds=tuple(range(10)),
               arms=tuple(DEPTH_ARMS)) -> dict[str, dict[str, np.ndarray]]:
    """Random causal stacks of ``max_depth`` blocks (:mod:`seqmodels.models.blocks`), one per arm and seed.

    Each arm of :data:`DEPTH_ARMS` runs on the same Gaussian inputs ``(T, d)`` of each seed, with
    blocks drawn from that seed (the MLP arms draw MLP weights too). For every depth
    ``l = 0 .. max_depth``:

    - ``"uniformity"``: :func:`token_uniformity` of the block's output, ``(n_seeds, max_depth + 1)``;
    - ``"norm"``: the mean norm of an output vector, ``(n_seeds, max_depth + 1)``;
    - ``"input_cosine"``: the cosine between the output and the input, each centred over positions
      (``X - mean over positions``, flattened), ``(n_seeds, max_depth + 1)``: 1 where the stack has
      not changed how the positions differ, so a high ``"uniformity"`` with a high ``"input_cosine"``
      means the positions were kept apart by changing them little. Scale-free, like the uniformity.

    Raises
    ------
    ValueError
        If a size is not an integer >= 1 (``T`` >= 2), ``seeds`` is empty, or an arm is unknown.
    """
    max_depth, d, T = positive_int("max_depth", max_depth), positive_int("d", d), positive_int("T", T, minimum=2)
    seeds = [positive_int(f"seeds[{i}]", s, minimum=0) for i, s in enumerate(seeds)]
    if not seeds:
        raise ValueError("seeds must hold at least one seed, got none")
    for arm in arms:
        if arm not in DEPTH_ARMS:
            raise ValueError(f"arms must be names from DEPTH_ARMS {tuple(DEPTH_ARMS)}, got {arm!r}")
    out = {}
    for arm in arms:
        residual, norm, with_mlp, scale = DEPTH_ARMS[arm]
        scale = 1.0 / np.sqrt(max_depth) if scale is None else scale
        uni, size, cos = [], [], []
        for seed in seeds:
            X = np.random.default_rng([seed, 0]).normal(size=(T, d))
            blocks = init_blocks(max_depth, d, np.random.default_rng([seed, 1]), with_mlp=with_mlp)
            states = np.stack(block_stack_states(X, blocks, residual=residual, norm=norm,
                                                 branch_scale=scale))  # (L+1, T, d)
            uni.append(token_uniformity(states))
            size.append(np.linalg.norm(states, axis=-1).mean(axis=-1))
            centred = (states - states.mean(axis=1, keepdims=True)).reshape(len(states), -1)  # (L+1, T d)
            lengths = np.linalg.norm(centred, axis=1)
            cos.append(centred @ centred[0] / np.maximum(lengths * lengths[0], 1e-300))
        out[arm] = {"uniformity": np.array(uni), "norm": np.array(size), "input_cosine": np.array(cos)}
    return out
