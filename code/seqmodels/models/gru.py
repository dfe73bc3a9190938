r"""The gated recurrent unit (GRU) of Cho et al. (2014), forward and backpropagation through time.

One step reads ``x_t`` and the previous state ``h_prev``. One matrix ``W`` of shape
``(3 * d_hidden, d_in + d_hidden)`` holds three row blocks, in the order **reset, update,
candidate**; the candidate block reads the input and the *reset* previous state::

    r   = sigmoid(W_r [x_t, h_prev] + b_r)         # reset gate:  how much of h_prev the candidate sees
    z   = sigmoid(W_z [x_t, h_prev] + b_z)         # update gate: how much of h_prev to keep
    n   = tanh(W_n [x_t, r * h_prev] + b_n)        # candidate:   what could replace it
    h_t = z * h_prev + (1 - z) * n

There is no separate cell: the state ``h`` itself is the memory, and ``z`` plays the LSTM's
forget gate (keep) and input gate (``1 - z``, write) at once, coupled so that they sum to 1.
``dh_prev`` along the direct path is ``dh * z``, the GRU's version of the LSTM's ``dc * f``.

Shapes follow :mod:`seqmodels.models.lstm` (time-major, weights ``(out, in)``, row vectors in the code):

==========  ===========================================
``x_t``     ``(d_in,)`` or ``(B, d_in)``
``h_prev``  ``(d_hidden,)`` or ``(B, d_hidden)``
``W``       ``(3 * d_hidden, d_in + d_hidden)``
``b``       ``(3 * d_hidden,)``
``xs``      ``(T, d_in)`` or ``(T, B, d_in)``
``hs``      ``(T, d_hidden)`` or ``(T, B, d_hidden)``
==========  ===========================================

Cho et al. write the update as ``h_t = z * h_prev + (1 - z) * n``; some libraries swap the roles
of ``z`` and ``1 - z``. The two are the same model with the update gate's sign flipped.
"""

from __future__ import annotations

import numpy as np

from seqmodels.common._checks import as_float_array, as_rng, as_sequence, as_state, check_shape, finite_float, positive_int
from seqmodels.common.numeric import sigmoid

#: Gate names in the order of ``W``'s row blocks.
GRU_GATES = ("reset", "update", "candidate")


def _check_params(W, b):
    W = as_float_array("W", W, ndims=(2,))
    if W.shape[0] == 0 or W.shape[0] % 3 != 0 or W.shape[1] <= W.shape[0] // 3:
        raise ValueError("W must have shape (3 * d_hidden, d_in + d_hidden) with d_hidden >= 1 and "
                         f"d_in >= 1, got {W.shape}")
    d_hidden = W.shape[0] // 3
    b = as_float_array("b", b, ndims=(1,))
    check_shape("b", b, (3 * d_hidden,), "(3 * d_hidden,)")
    return W, b, d_hidden, W.shape[1] - d_hidden


def _step(pre_x, h, W_h, H):
    """One step on checked arrays; ``pre_x = x @ W_x.T + b`` of shape (..., 3H)."""
    r = sigmoid(pre_x[..., :H] + h @ W_h[:H].T)  # reset gate
    z = sigmoid(pre_x[..., H:2 * H] + h @ W_h[H:2 * H].T)  # update gate
    n = np.tanh(pre_x[..., 2 * H:] + (r * h) @ W_h[2 * H:].T)  # candidate, reading the reset state
    return z * h + (1.0 - z) * n, r, z, n


def gru_step(x_t, h_prev, W, b) -> np.ndarray:
    """One GRU step, ``h_t = z * h_prev + (1 - z) * n``.

    Parameters
    ----------
    x_t : ndarray of shape (d_in,) or (batch, d_in)
    h_prev : ndarray of shape (d_hidden,) or (batch, d_hidden)
    W : ndarray of shape (3 * d_hidden, d_in + d_hidden); row blocks reset, update, candidate
    b : ndarray of shape (3 * d_hidden,)

    Returns
    -------
    h_t : ndarray shaped like ``h_prev``

    Raises
    ------
    ValueError
        a wrong shape, a non-finite entry, or an empty batch.

    With every weight zero both gates are one half and the candidate is 0, so the state halves:

    >>> gru_step(np.ones(1), np.array([1.0, -2.0]), np.zeros((6, 3)), np.zeros(6))
    array([ 0.5, -1. ])
    """
    W, b, H, d_in = _check_params(W, b)
    x_t = as_float_array("x_t", x_t, ndims=(1, 2))
    batch = x_t.shape[0] if x_t.ndim == 2 else None
    if batch == 0:
        raise ValueError(f"x_t must hold at least one row (batch >= 1), got shape {x_t.shape}")
    check_shape("x_t", x_t, (d_in,) if batch is None else (batch, d_in),
                "(d_in,)" if batch is None else "(batch, d_in)")
    h_prev = as_state("h_prev", h_prev, H, batch)
    return _step(x_t @ W[:, :d_in].T + b, h_prev, W[:, d_in:], H)[0]


def _forward(xs, h0, W, b, H, d_in):
    """The loop on checked arrays: ``hs`` and the gates ``(r, z, n)``, each shaped like ``hs``."""
    shape = xs.shape[:-1] + (H,)
    hs, rs, zs, ns = (np.empty(shape) for _ in range(4))
    pre_x = xs @ W[:, :d_in].T + b  # (T, [B,] 3H): the input part of every step at once
    W_h = W[:, d_in:]
    h = h0
    for t in range(xs.shape[0]):
        h, rs[t], zs[t], ns[t] = _step(pre_x[t], h, W_h, H)
        hs[t] = h
    return hs, (rs, zs, ns)


def _check_sequence_inputs(xs, h0, W, b):
    W, b, H, d_in = _check_params(W, b)
    xs, batch = as_sequence("xs", xs, d_in)
    h0 = as_state("h0", h0, H, batch)
    return xs, h0, W, b, H, d_in


def gru_forward(xs, h0, W, b, return_gates: bool = False):
    """Run the GRU over a sequence; return every state (and the gates).

    Parameters
    ----------
    xs : ndarray of shape (T, d_in) or (T, batch, d_in), T >= 1
    h0 : ndarray of shape (d_hidden,) or (batch, d_hidden)
    W, b : as in :func:`gru_step`
    return_gates : bool, also return ``{"reset", "update", "candidate"}``, each shaped like ``hs``

    Returns
    -------
    hs : ndarray of shape (T, d_hidden) or (T, batch, d_hidden); ``hs[t]`` follows ``xs[t]``
    gates : dict, only if ``return_gates``

    Raises
    ------
    ValueError
        a wrong shape, a non-finite entry, or an empty sequence or batch.

    >>> rng = np.random.default_rng(0)
    >>> W, b = init_gru(3, 4, rng)
    >>> hs, gates = gru_forward(rng.normal(size=(5, 2, 3)), np.zeros((2, 4)), W, b, return_gates=True)
    >>> hs.shape, sorted(gates)
    ((5, 2, 4), ['candidate', 'reset', 'update'])
    """
    xs, h0, W, b, H, d_in = _check_sequence_inputs(xs, h0, W, b)
    hs, gates = _forward(xs, h0, W, b, H, d_in)
    return (hs, dict(zip(GRU_GATES, gates))) if return_gates else hs


def gru_backward(xs, h0, W, b, dhs) -> dict[str, np.ndarray]:
    """Backpropagation through time: the gradients of ``L = sum(hs * dhs)``.

    Walking back from ``t = T - 1`` with ``h_prev = hs[t - 1]`` (``h0`` at ``t = 0``)::

        dh      = dhs[t] + dh_next
        da_n    = dh * (1 - z) * (1 - n**2)              # candidate pre-activation
        da_z    = dh * (h_prev - n) * z * (1 - z)        # update gate
        drh     = da_n @ W_n[:, d_in:]                   # gradient at r * h_prev
        da_r    = drh * h_prev * r * (1 - r)             # reset gate
        dh_next = dh * z + drh * r + [da_r, da_z] @ W_rz[:, d_in:]

    then ``dW`` sums ``da^T [x_t, h_prev]`` for the gate blocks and ``da_n^T [x_t, r * h_prev]``
    for the candidate block, ``db = sum da`` and ``dxs = da @ W[:, :d_in]``.

    Parameters
    ----------
    xs, h0, W, b : as in :func:`gru_forward`
    dhs : ndarray shaped like ``hs``

    Returns
    -------
    dict with keys ``"W", "b", "h0", "xs"``, each shaped like that argument.

    Raises
    ------
    ValueError
        as :func:`gru_forward`, and a ``dhs`` not shaped like ``hs``.

    >>> rng = np.random.default_rng(1)
    >>> W, b = init_gru(2, 3, rng)
    >>> g = gru_backward(rng.normal(size=(4, 2)), np.zeros(3), W, b, np.ones((4, 3)))
    >>> sorted(g), g["W"].shape, g["xs"].shape
    (['W', 'b', 'h0', 'xs'], (9, 5), (4, 2))
    """
    xs, h0, W, b, H, d_in = _check_sequence_inputs(xs, h0, W, b)
    hs, (r, z, n) = _forward(xs, h0, W, b, H, d_in)
    dhs = as_float_array("dhs", dhs, ndims=(hs.ndim,))
    check_shape("dhs", dhs, hs.shape, "like hs: (T, [batch,] d_hidden)")
    h_prevs = np.concatenate([h0[None], hs[:-1]])  # (T, [B,] H)
    W_h = W[:, d_in:]
    das = np.empty(hs.shape[:-1] + (3 * H,))  # (T, [B,] 3H)
    dh_next = np.zeros_like(h0)
    for t in reversed(range(xs.shape[0])):
        dh = dhs[t] + dh_next
        da_n = dh * (1.0 - z[t]) * (1.0 - n[t] ** 2)
        das[t, ..., 2 * H:] = da_n
        das[t, ..., H:2 * H] = dh * (h_prevs[t] - n[t]) * z[t] * (1.0 - z[t])
        drh = da_n @ W_h[2 * H:]
        das[t, ..., :H] = drh * h_prevs[t] * r[t] * (1.0 - r[t])
        dh_next = dh * z[t] + drh * r[t] + das[t, ..., :2 * H] @ W_h[:2 * H]
    da2 = das.reshape(-1, 3 * H)  # (T * B, 3H)
    reads = np.concatenate([h_prevs[..., None, :].repeat(2, axis=-2), (r * h_prevs)[..., None, :]],
                           axis=-2)  # (T, [B,] 3, H): what each block's recurrent columns read
    dW_h = np.concatenate([da2[:, k * H:(k + 1) * H].T @ reads[..., k, :].reshape(-1, H) for k in range(3)])
    dW = np.concatenate([da2.T @ xs.reshape(-1, d_in), dW_h], axis=1)
    return {"W": dW, "b": da2.sum(axis=0), "h0": dh_next, "xs": das @ W[:, :d_in]}


def init_gru(d_in: int, d_hidden: int, rng, *, update_bias: float = 0.0):
    """Random GRU weights: ``W`` entries ``N(0, 1 / (d_in + d_hidden))``, ``b`` zero except the
    update block, which is ``update_bias`` (positive: the state starts by keeping more of itself).

    Parameters
    ----------
    d_in, d_hidden : int >= 1
    rng : numpy.random.Generator or int seed
    update_bias : float, keyword only

    Returns
    -------
    W : ndarray of shape (3 * d_hidden, d_in + d_hidden)
    b : ndarray of shape (3 * d_hidden,)

    Raises
    ------
    ValueError
        a size that is not an integer >= 1, a non-finite ``update_bias``, or a bad ``rng``.

    >>> W, b = init_gru(3, 2, 0)
    >>> W.shape, b.shape
    ((6, 5), (6,))
    """
    d_in, d_hidden = positive_int("d_in", d_in), positive_int("d_hidden", d_hidden)
    update_bias = finite_float("update_bias", update_bias)
    rng = as_rng("rng", rng)
    W = rng.normal(scale=1.0 / np.sqrt(d_in + d_hidden), size=(3 * d_hidden, d_in + d_hidden))
    b = np.zeros(3 * d_hidden)
    b[d_hidden:2 * d_hidden] = update_bias
    return W, b
