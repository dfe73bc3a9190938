r"""How strongly an LSTM's final output depends on each input, along the cell path and through ``h``.

- :func:`lstm_path_sensitivity`: an LSTM's ``||dh_T / dx_t||`` split, in one forward pass, into the
  part along the cell path and the part through ``h`` (:func:`seqmodels.models.lstm.lstm_backward_paths`).
"""

from __future__ import annotations

import numpy as np

from seqmodels.common._checks import as_float_array
from seqmodels.common.clock import one_blas_thread
from seqmodels.common.statistics import geometric_mean
from seqmodels.models.lstm import lstm_backward_paths


@one_blas_thread
def lstm_path_sensitivity(params, xs) -> dict[str, np.ndarray]:
    r"""How strongly an LSTM's final output depends on each input, along the cell path and through ``h``.

    For the LSTM ``params["W"], params["b"]`` (the layout of :func:`seqmodels.models.lstm.lstm_step`; other
    entries, such as a read-out, are ignored) run from zero states over ``xs``, the Jacobian
    ``J_t = dh_T / dx_t`` of each sequence is split, in the one forward pass of the intact model, into
    the part along the cell path and the part that crosses at least once from a step's gates or
    candidate back into ``h_{t-1}`` (:func:`seqmodels.models.lstm.lstm_backward_paths`); the two add up to
    the full Jacobian. Each is built row by row as in :func:`seqmodels.training.train.input_sensitivity` (one
    backward pass per unit of ``h_T``, all run as one batch), and its Frobenius norm is averaged over
    the sequences in log space (a geometric mean). So ``out["cell path"][t] / out["full"][t]`` is the
    geometric mean over sequences of the cell path's share of the full Jacobian's norm at ``x_t``.

    Parameters
    ----------
    params : dict with ``"W"`` (4 d_hidden, d_in + d_hidden) and ``"b"`` (4 d_hidden,)
    xs : ndarray of shape (T, batch, d_in)

    Returns
    -------
    dict ``{"full", "cell path", "through h"}`` of arrays of shape (T,); entry ``t`` belongs to
    distance ``T - 1 - t`` from the end. ``"through h"`` is 0 at the last input, which reaches
    ``h_T`` through no earlier ``h``; ``"cell path"`` equals ``"full"`` there.

    Raises
    ------
    KeyError
        ``params`` without ``"W"`` or ``"b"``.
    ValueError
        ``params`` not a dict, ``xs`` not a finite (T, batch, d_in) array with every size >= 1, or
        ``W``, ``b`` as :func:`seqmodels.models.lstm.lstm_forward` refuses them.

    >>> from seqmodels.models.lstm import init_lstm
    >>> rng = np.random.default_rng(0)
    >>> W, b = init_lstm(3, 4, rng, forget_bias=3.0)
    >>> s = lstm_path_sensitivity({"W": W, "b": b}, rng.normal(size=(6, 5, 3)))
    >>> sorted(s), s["full"].shape, bool(s["cell path"][-1] == s["full"][-1]), float(s["through h"][-1])
    (['cell path', 'full', 'through h'], (6,), True, 0.0)
    """
    if not isinstance(params, dict):
        raise ValueError(f"params must be a dict of arrays with 'W' and 'b', got {type(params).__name__}")
    for key in ("W", "b"):
        if key not in params:
            raise KeyError(f"params has no entry {key!r} (the LSTM's weights), got keys {sorted(params)}")
    xs = as_float_array("xs", xs, ndims=(3,))
    if 0 in xs.shape:
        raise ValueError(f"xs must have shape (T, batch, d_in) with every size >= 1, got {xs.shape}")
    W, b = params["W"], params["b"]
    H = np.shape(W)[0] // 4 if np.ndim(W) == 2 else 0
    if H == 0:
        raise ValueError(f"W must have shape (4 * d_hidden, d_in + d_hidden), got {np.shape(W)}")
    T, n, d_in = xs.shape
    dhs = np.zeros((T, n * H, H))
    dhs[-1] = np.tile(np.eye(H), (n, 1))  # copy j of sequence k asks for row j of its Jacobian
    zero = np.zeros((n * H, H))
    parts = lstm_backward_paths(np.repeat(xs, H, axis=1), zero, zero, W, b, dhs)
    jac = {name: parts[name]["xs"].reshape(T, n, H * d_in) for name in ("cell path", "through h")}
    jac["full"] = jac["cell path"] + jac["through h"]
    return {name: geometric_mean(np.linalg.norm(jac[name], axis=-1).T) for name in ("full", "cell path", "through h")}
