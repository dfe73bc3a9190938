r"""Ablations of a trained LSTM: a gate clamped, or the recurrent read replaced, at chosen steps.

:func:`lstm_forward_ablated` runs the cell of :mod:`seqmodels.models.lstm` (same ``W``, ``b`` layout,
gates in the order forget, input, candidate, output) with two kinds of intervention, each given as
``(where, value)``: ``where`` is a boolean array saying at which entries to intervene, ``value``
what to put there; both broadcast to the shape of the states, ``(T, [batch,] d_hidden)``.

- ``clamp={"forget": (where, value), ...}``: at those entries the gate takes ``value`` instead of
  the value it computed (``f = 1`` keeps the cell exactly, ``i = 0`` writes nothing).
- ``h_read=(where, value)``: at those entries the four gates read ``value`` in place of
  ``h_{t-1}``. A value of 0 everywhere is the same as zeroing the recurrent columns of ``W``
  (``W[:, d_in:]``); a value equal to the mean of ``h_{t-1}`` over many sequences removes what
  ``h`` says about one sequence and keeps its average (a mean ablation).

The state ``h_t = o * tanh(c_t)`` that the next step and the read-out see is always the ablated
model's own.
"""

from __future__ import annotations

import numpy as np

from seqmodels.common._checks import as_float_array, as_sequence, as_state
from seqmodels.models.lstm import GATES
from seqmodels.common.numeric import sigmoid_unchecked as sigmoid
from seqmodels.common.clock import one_blas_thread

_RANGE = {"forget": (0.0, 1.0), "input": (0.0, 1.0), "candidate": (-1.0, 1.0), "output": (0.0, 1.0)}


def _check_params(W, b):
    W = as_float_array("W", W, ndims=(2,))
    if W.shape[0] == 0 or W.shape[0] % 4 != 0 or W.shape[1] <= W.shape[0] // 4:
        raise ValueError("W must have shape (4 * d_hidden, d_in + d_hidden) with d_hidden >= 1 and "
                         f"d_in >= 1, got {W.shape}")
    H = W.shape[0] // 4
    b = as_float_array("b", b, ndims=(1,))
    if b.shape != (4 * H,):
        raise ValueError(f"b must have shape (4 * d_hidden,) = {(4 * H,)}, got {b.shape}")
    return W, b, H, W.shape[1] - H


def _intervention(name: str, spec, shape, low=None, high=None):
    """``(where, value)`` checked and broadcast to ``shape``."""
    try:
        where, value = spec
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair (where, value), got {type(spec).__name__}") from None
    where = np.asarray(where)
    if where.dtype != bool:
        raise ValueError(f"{name}: where must be a boolean array, got dtype {where.dtype}")
    value = as_float_array(f"{name}: value", value, ndims=(0, 1, 2, 3))
    if (low is not None and value.min(initial=low) < low) or (high is not None and value.max(initial=high) > high):
        raise ValueError(f"{name}: value must lie in [{low}, {high}], got values from {value.min()} to {value.max()}")
    try:
        return np.broadcast_to(where, shape), np.broadcast_to(value, shape)
    except ValueError:
        raise ValueError(f"{name}: where {where.shape} and value {value.shape} must broadcast to the states' "
                         f"shape (T, [batch,] d_hidden) = {shape}") from None


@one_blas_thread
def lstm_forward_ablated(xs, h0, c0, W, b, *, clamp=None, h_read=None):
    """Run the LSTM with gates clamped and/or the recurrent read replaced where asked.

    Its products of small matrices run on one BLAS thread: threads only contend on them (five
    times the CPU time on two cores).

    Parameters
    ----------
    xs : ndarray of shape (T, d_in) or (T, batch, d_in), T >= 1
    h0, c0 : ndarray of shape (d_hidden,) or (batch, d_hidden)
    W, b : as in :func:`seqmodels.models.lstm.lstm_step`
    clamp : dict or None
        gate name (``"forget"``, ``"input"``, ``"candidate"``, ``"output"``) to ``(where, value)``;
        ``where`` boolean and ``value`` (in the gate's range) broadcastable to (T, [batch,] d_hidden).
    h_read : pair or None
        ``(where, value)``: at those entries the gates read ``value`` in place of ``h_{t-1}``.

    Returns
    -------
    hs, cs : ndarrays of shape (T, [batch,] d_hidden), the ablated model's states
    gates : dict of the gate values used (clamped where asked), each shaped like ``hs``

    Raises
    ------
    ValueError
        ``xs``, ``h0``, ``c0``, ``W``, ``b`` as :func:`seqmodels.models.lstm.lstm_forward` refuses them;
        ``clamp`` not a dict, a key of it not one of the four gates, or a value not a
        ``(where, value)`` pair with ``where`` boolean, ``value`` finite and in the gate's range
        (``[0, 1]``, ``[-1, 1]`` for the candidate), both broadcastable to (T, [batch,] d_hidden);
        ``h_read`` (unless None) such a pair (any finite value).

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> W, b = 0.5 * rng.normal(size=(8, 3)), np.zeros(8)
    >>> xs = rng.normal(size=(4, 1))
    >>> hs, cs, _ = lstm_forward_ablated(xs, np.zeros(2), np.full(2, 0.7), W, b,
    ...                                  clamp={"forget": (True, 1.0), "input": (True, 0.0)})
    >>> cs.round(3)                     # f = 1 and i = 0 at every step: the cell is kept exactly
    array([[0.7, 0.7],
           [0.7, 0.7],
           [0.7, 0.7],
           [0.7, 0.7]])
    """
    W, b, H, d_in = _check_params(W, b)
    xs, batch = as_sequence("xs", xs, d_in)
    h = as_state("h0", h0, H, batch)
    c = as_state("c0", c0, H, batch)
    shape = xs.shape[:-1] + (H,)
    clamp = {} if clamp is None else clamp
    if not isinstance(clamp, dict):
        raise ValueError(f"clamp must be a dict of gate name to (where, value), got {type(clamp).__name__}")
    unknown = sorted(set(clamp) - set(GATES), key=str)
    if unknown:
        raise ValueError(f"clamp: unknown gate {unknown[0]!r}; the gates are {', '.join(GATES)}")
    fixed = {name: _intervention(f"clamp[{name!r}]", spec, shape, *_RANGE[name]) for name, spec in clamp.items()}
    read = None if h_read is None else _intervention("h_read", h_read, shape)
    pre_x = xs @ W[:, :d_in].T + b  # (T, [B,] 4H)
    W_h = W[:, d_in:]
    hs, cs = np.empty(shape), np.empty(shape)
    used = {name: np.empty(shape) for name in GATES}
    for t in range(xs.shape[0]):
        h_in = h if read is None else np.where(read[0][t], read[1][t], h)
        z = pre_x[t] + h_in @ W_h.T
        gate = {"forget": sigmoid(z[..., :H]), "input": sigmoid(z[..., H:2 * H]),
                "candidate": np.tanh(z[..., 2 * H:3 * H]), "output": sigmoid(z[..., 3 * H:])}
        for name, (where, value) in fixed.items():
            gate[name] = np.where(where[t], value[t], gate[name])
        c = gate["forget"] * c + gate["input"] * gate["candidate"]
        h = gate["output"] * np.tanh(c)
        hs[t], cs[t] = h, c
        for name in GATES:
            used[name][t] = gate[name]
    return hs, cs, used
