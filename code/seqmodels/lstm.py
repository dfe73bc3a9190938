r"""The long short-term memory (LSTM) cell, forward and backpropagation through time, in numpy.

One step reads ``x_t``, the previous output ``h_prev`` and the previous cell state ``c_prev``.
A single matrix ``W`` acts on the concatenation ``[x_t, h_prev]`` and its four row blocks give the
four gates, stacked in the order **forget, input, candidate, output**::

    z   = [x_t, h_prev] @ W.T + b          # (..., 4 d_hidden)
    f   = sigmoid(z[..., 0H:1H])           # forget gate:  how much of c_prev to keep
    i   = sigmoid(z[..., 1H:2H])           # input gate:   how much of the candidate to write
    g   = tanh(z[..., 2H:3H])              # candidate:    what could be written
    o   = sigmoid(z[..., 3H:4H])           # output gate:  how much of the cell to show
    c_t = f * c_prev + i * g
    h_t = o * tanh(c_t)

(``H = d_hidden``.) Shapes (``B`` is an optional batch axis, ``T`` the number of time steps):

==========  ===========================================
``x_t``     ``(d_in,)`` or ``(B, d_in)``
``h_prev``  ``(d_hidden,)`` or ``(B, d_hidden)``
``c_prev``  ``(d_hidden,)`` or ``(B, d_hidden)``
``W``       ``(4 * d_hidden, d_in + d_hidden)``
``b``       ``(4 * d_hidden,)``
``xs``      ``(T, d_in)`` or ``(T, B, d_in)``
``hs, cs``  ``(T, d_hidden)`` or ``(T, B, d_hidden)``
==========  ===========================================

The first ``d_in`` columns of ``W`` read the input, the last ``d_hidden`` columns the previous
output. Row vectors are used inside the code, as in :mod:`seqmodels.rnn`.
"""

from __future__ import annotations

import numpy as np

from ._checks import as_float_array, check_sequence, check_shape
from .rnn import _check_state

#: Gate names in the order of ``W``'s row blocks.
GATES = ("forget", "input", "candidate", "output")


def sigmoid(z) -> np.ndarray:
    """The logistic function ``1 / (1 + exp(-z))``, computed without overflow.

    ``exp`` is only ever taken of ``-|z|``, so ``|z| = 1e4`` raises no warning: for ``z >= 0`` the
    value is ``1 / (1 + e)``, for ``z < 0`` it is ``e / (1 + e)``, with ``e = exp(-|z|)``.

    >>> sigmoid(np.array([-1e4, -1.0, 0.0, 1.0, 1e4]))
    array([0.        , 0.26894142, 0.5       , 0.73105858, 1.        ])
    """
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _check_params(W, b):
    W = as_float_array("W", W, ndims=(2,))
    if W.shape[0] == 0 or W.shape[0] % 4 != 0 or W.shape[1] <= W.shape[0] // 4:
        raise ValueError("W must have shape (4 * d_hidden, d_in + d_hidden) with d_hidden >= 1 and "
                         f"d_in >= 1, got {W.shape}")
    d_hidden = W.shape[0] // 4
    b = as_float_array("b", b, ndims=(1,))
    check_shape("b", b, (4 * d_hidden,), "(4 * d_hidden,)")
    return W, b, d_hidden, W.shape[1] - d_hidden


def _cell(z, c_prev, H):
    """Gates and new state from pre-activations ``z`` of shape (..., 4H)."""
    f = sigmoid(z[..., :H])
    i = sigmoid(z[..., H:2 * H])
    g = np.tanh(z[..., 2 * H:3 * H])
    o = sigmoid(z[..., 3 * H:])
    c = f * c_prev + i * g
    return f, i, g, o, c


def lstm_step(x_t, h_prev, c_prev, W, b) -> tuple[np.ndarray, np.ndarray]:
    """One LSTM step: ``c_t = f * c_prev + i * g`` and ``h_t = o * tanh(c_t)``.

    Parameters
    ----------
    x_t : ndarray of shape (d_in,) or (batch, d_in)
    h_prev, c_prev : ndarray of shape (d_hidden,) or (batch, d_hidden)
    W : ndarray of shape (4 * d_hidden, d_in + d_hidden); row blocks forget, input, candidate,
        output; columns ``[x_t, h_prev]``
    b : ndarray of shape (4 * d_hidden,)

    Returns
    -------
    h_t, c_t : ndarrays shaped like ``h_prev``

    With every weight zero, each gate is ``sigmoid(0) = 0.5`` and the candidate ``tanh(0) = 0``,
    so the cell keeps half of ``c_prev``:

    >>> import numpy as np
    >>> h, c = lstm_step(np.ones(1), np.zeros(2), np.array([1.0, -2.0]), np.zeros((8, 3)), np.zeros(8))
    >>> c, h.round(4)
    (array([ 0.5, -1. ]), array([ 0.2311, -0.3808]))
    """
    W, b, d_hidden, d_in = _check_params(W, b)
    x_t = as_float_array("x_t", x_t, ndims=(1, 2))
    batch = x_t.shape[0] if x_t.ndim == 2 else None
    check_shape("x_t", x_t, (d_in,) if batch is None else (batch, d_in),
                "(d_in,)" if batch is None else "(batch, d_in)")
    h_prev = _check_state("h_prev", h_prev, d_hidden, batch)
    c_prev = _check_state("c_prev", c_prev, d_hidden, batch)
    z = x_t @ W[:, :d_in].T + h_prev @ W[:, d_in:].T + b  # ([B,] 4 d_hidden)
    _, _, _, o, c = _cell(z, c_prev, d_hidden)
    return o * np.tanh(c), c


def _check_sequence_inputs(xs, h0, c0, W, b):
    W, b, d_hidden, d_in = _check_params(W, b)
    xs = as_float_array("xs", xs, ndims=(2, 3))
    check_sequence("xs", xs)
    batch = xs.shape[1] if xs.ndim == 3 else None
    want = (xs.shape[0], d_in) if batch is None else (xs.shape[0], batch, d_in)
    check_shape("xs", xs, want, "(T, d_in)" if batch is None else "(T, batch, d_in)")
    h0 = _check_state("h0", h0, d_hidden, batch)
    c0 = _check_state("c0", c0, d_hidden, batch)
    return xs, h0, c0, W, b, d_hidden, d_in


def _forward(xs, h0, c0, W, b, d_hidden, d_in):
    """The loop on checked arrays; returns ``hs, cs`` and the gates ``f, i, g, o`` (each like hs)."""
    H = d_hidden
    shape = xs.shape[:-1] + (H,)  # (T, [B,] H)
    hs, cs = np.empty(shape), np.empty(shape)
    f, i, g, o = (np.empty(shape) for _ in range(4))
    pre_x = xs @ W[:, :d_in].T + b  # every step's input projection at once: (T, [B,] 4H)
    W_h = W[:, d_in:]  # (4H, H)
    h, c = h0, c0
    for t in range(xs.shape[0]):
        f[t], i[t], g[t], o[t], c = _cell(pre_x[t] + h @ W_h.T, c, H)
        h = o[t] * np.tanh(c)
        hs[t], cs[t] = h, c
    return hs, cs, (f, i, g, o)


def lstm_forward(xs, h0, c0, W, b, return_gates: bool = False):
    """Run the LSTM over a sequence; return every output and cell state (and the gates).

    Parameters
    ----------
    xs : ndarray of shape (T, d_in) or (T, batch, d_in), T >= 1
    h0, c0 : ndarray of shape (d_hidden,) or (batch, d_hidden)
    W, b : as in :func:`lstm_step`
    return_gates : bool
        Also return the gate activations, for plotting them.

    Returns
    -------
    hs, cs : ndarrays of shape (T, d_hidden) or (T, batch, d_hidden); ``hs[t]``, ``cs[t]`` are the
        states after reading ``xs[t]``.
    gates : dict, only if ``return_gates``; keys ``"forget", "input", "candidate", "output"``, each
        an array shaped like ``hs``.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> W, b = 0.3 * rng.normal(size=(16, 7)), np.zeros(16)
    >>> hs, cs, gates = lstm_forward(rng.normal(size=(5, 3)), np.zeros(4), np.zeros(4), W, b,
    ...                              return_gates=True)
    >>> hs.shape, cs.shape, sorted(gates), gates["forget"].shape
    ((5, 4), (5, 4), ['candidate', 'forget', 'input', 'output'], (5, 4))
    """
    xs, h0, c0, W, b, d_hidden, d_in = _check_sequence_inputs(xs, h0, c0, W, b)
    hs, cs, gates = _forward(xs, h0, c0, W, b, d_hidden, d_in)
    if return_gates:
        return hs, cs, dict(zip(GATES, gates))
    return hs, cs


def lstm_backward(xs, h0, c0, W, b, dhs, dcs=None) -> dict[str, np.ndarray]:
    """Backpropagation through time: gradients of ``L = sum(hs * dhs) + sum(cs * dcs)``.

    ``dhs[t]`` (and optionally ``dcs[t]``) is the gradient arriving at ``hs[t]`` (``cs[t]``) from
    outside the recurrence. Walking back from ``t = T - 1``, with ``tc = tanh(cs[t])``::

        dh = dhs[t] + dh_next                          # from outside + from step t+1
        dc = dcs[t] + dc_next + dh * o * (1 - tc**2)   # through h_t = o * tanh(c_t)
        do = dh * tc;  df = dc * c_prev;  di = dc * g;  dg = dc * i
        dz = [df * f(1-f), di * i(1-i), dg * (1-g**2), do * o(1-o)]
        dW += dz^T [x_t, h_prev];  db += dz
        dxs[t] = dz W[:, :d_in];  dh_next = dz W[:, d_in:];  dc_next = dc * f

    The last line is the LSTM's point: the cell gradient goes back one step multiplied only by the
    forget gate ``f``, not by a weight matrix and a squashing slope.

    Parameters
    ----------
    xs, h0, c0, W, b : as in :func:`lstm_forward`
    dhs : ndarray shaped like ``hs``
    dcs : ndarray shaped like ``cs``, optional (zero if omitted)

    Returns
    -------
    dict with keys ``"W", "b", "h0", "c0", "xs"``, each shaped like that argument.

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> W, b = 0.3 * rng.normal(size=(12, 5)), np.zeros(12)
    >>> grads = lstm_backward(rng.normal(size=(4, 2)), np.zeros(3), np.zeros(3), W, b, np.ones((4, 3)))
    >>> sorted(grads), grads["W"].shape, grads["xs"].shape
    (['W', 'b', 'c0', 'h0', 'xs'], (12, 5), (4, 2))
    """
    xs, h0, c0, W, b, H, d_in = _check_sequence_inputs(xs, h0, c0, W, b)
    hs, cs, (f, i, g, o) = _forward(xs, h0, c0, W, b, H, d_in)
    dhs = as_float_array("dhs", dhs, ndims=(hs.ndim,))
    check_shape("dhs", dhs, hs.shape, "like hs: (T, [batch,] d_hidden)")
    if dcs is not None:
        dcs = as_float_array("dcs", dcs, ndims=(cs.ndim,))
        check_shape("dcs", dcs, cs.shape, "like cs: (T, [batch,] d_hidden)")

    dW, db = np.zeros_like(W), np.zeros_like(b)
    dxs = np.empty_like(xs)
    dh_next, dc_next = np.zeros_like(h0), np.zeros_like(c0)
    dz = np.empty(hs.shape[1:-1] + (4 * H,))  # ([B,] 4H)
    for t in reversed(range(xs.shape[0])):
        h_prev, c_prev = (hs[t - 1], cs[t - 1]) if t > 0 else (h0, c0)
        tc = np.tanh(cs[t])
        dh = dhs[t] + dh_next
        dc = dc_next + dh * o[t] * (1.0 - tc ** 2)
        if dcs is not None:
            dc = dc + dcs[t]
        dz[..., :H] = dc * c_prev * f[t] * (1.0 - f[t])
        dz[..., H:2 * H] = dc * g[t] * i[t] * (1.0 - i[t])
        dz[..., 2 * H:3 * H] = dc * i[t] * (1.0 - g[t] ** 2)
        dz[..., 3 * H:] = dh * tc * o[t] * (1.0 - o[t])
        dz2 = dz.reshape(-1, 4 * H)  # (B or 1, 4H)
        dW[:, :d_in] += dz2.T @ xs[t].reshape(-1, d_in)
        dW[:, d_in:] += dz2.T @ h_prev.reshape(-1, H)
        db += dz2.sum(axis=0)
        dxs[t] = dz @ W[:, :d_in]
        dh_next = dz @ W[:, d_in:]
        dc_next = dc * f[t]
    return {"W": dW, "b": db, "h0": dh_next, "c0": dc_next, "xs": dxs}


def init_lstm(d_in: int, d_hidden: int, rng: np.random.Generator, forget_bias: float = 1.0):
    """Random LSTM weights: ``W`` entries ``N(0, 1 / (d_in + d_hidden))``, ``b`` zero except the
    forget block, which is ``forget_bias``.

    A positive forget bias starts every forget gate above one half (``sigmoid(1) = 0.73``), so the
    cell keeps most of its content before training has taught it anything; this is the common
    initialisation recommended by Gers et al. (2000) and Jozefowicz et al. (2015).

    Returns
    -------
    W : ndarray of shape (4 * d_hidden, d_in + d_hidden)
    b : ndarray of shape (4 * d_hidden,)

    >>> import numpy as np
    >>> W, b = init_lstm(3, 2, np.random.default_rng(0))
    >>> W.shape, b
    ((8, 5), array([1., 1., 0., 0., 0., 0., 0., 0.]))
    """
    if d_in < 1 or d_hidden < 1:
        raise ValueError(f"d_in and d_hidden must be >= 1, got d_in={d_in}, d_hidden={d_hidden}")
    if not np.isfinite(forget_bias):
        raise ValueError(f"forget_bias must be finite, got {forget_bias}")
    W = rng.normal(scale=1.0 / np.sqrt(d_in + d_hidden), size=(4 * d_hidden, d_in + d_hidden))
    b = np.zeros(4 * d_hidden)
    b[:d_hidden] = forget_bias
    return W, b
