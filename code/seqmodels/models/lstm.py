r"""The long short-term memory (LSTM) cell, forward and backpropagation through time, in numpy.

One step reads ``x_t``, the previous output ``h_prev`` and the previous cell state ``c_prev``.
A single matrix ``W`` acts on the concatenation ``[x_t, h_prev]`` and its four row blocks give the
four gates, in the order **forget, input, candidate, output**::

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
output. Row vectors are used inside the code, as in :mod:`seqmodels.models.rnn`.
"""

from __future__ import annotations

import numpy as np

from seqmodels.common._checks import as_float_array, as_rng, as_sequence, as_state, check_shape, finite_float, positive_int
from seqmodels.common.numeric import sigmoid

#: Gate names in the order of ``W``'s row blocks.
GATES = ("forget", "input", "candidate", "output")



def _check_params(W, b):
    W = as_float_array("W", W, ndims=(2,))
    if W.shape[0] == 0 or W.shape[0] % 4 != 0 or W.shape[1] <= W.shape[0] // 4:
        raise ValueError("W must have shape (4 * d_hidden, d_in + d_hidden) with d_hidden >= 1 and "
                         f"d_in >= 1, got {W.shape}")
    d_hidden = W.shape[0] // 4
    b = as_float_array("b", b, ndims=(1,))
    check_shape("b", b, (4 * d_hidden,), "(4 * d_hidden,)")
    return W, b, d_hidden, W.shape[1] - d_hidden


def _gates(z, H):
    """The gates of pre-activations ``z`` (..., 4H): ``f, i, o = sigmoid(.)`` of their blocks and
    the candidate ``g = tanh(.)`` of its block, each (..., H)."""
    f = sigmoid(z[..., :H])
    i = sigmoid(z[..., H:2 * H])
    g = np.tanh(z[..., 2 * H:3 * H])
    o = sigmoid(z[..., 3 * H:])
    return f, i, g, o


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

    Raises
    ------
    ValueError
        ``W`` not finite ``(4 * d_hidden, d_in + d_hidden)`` with ``d_hidden, d_in >= 1``, ``b`` not
        a finite ``(4 * d_hidden,)`` vector; ``x_t`` not finite ``(d_in,)`` or ``(batch, d_in)``;
        ``h_prev`` or ``c_prev`` not finite ``(d_hidden,)`` or ``(batch, d_hidden)`` to match ``x_t``.

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
    h_prev = as_state("h_prev", h_prev, d_hidden, batch)
    c_prev = as_state("c_prev", c_prev, d_hidden, batch)
    z = x_t @ W[:, :d_in].T + h_prev @ W[:, d_in:].T + b  # ([B,] 4 d_hidden)
    f, i, g, o = _gates(z, d_hidden)
    c_t = f * c_prev + i * g
    return o * np.tanh(c_t), c_t


def _check_sequence_inputs(xs, h0, c0, W, b):
    W, b, d_hidden, d_in = _check_params(W, b)
    xs, batch = as_sequence("xs", xs, d_in)
    h0 = as_state("h0", h0, d_hidden, batch)
    c0 = as_state("c0", c0, d_hidden, batch)
    return xs, h0, c0, W, b, d_hidden, d_in


def _forward(xs, h0, c0, W, b, d_hidden, d_in):
    """The loop on checked arrays; returns ``hs, cs`` and the gates ``(f, i, g, o)``, each like hs."""
    H = d_hidden
    shape = xs.shape[:-1] + (H,)  # (T, [B,] H)
    hs, cs = np.empty(shape), np.empty(shape)
    f, i, g, o = (np.empty(shape) for _ in GATES)
    h, c = h0, c0
    for t in range(xs.shape[0]):
        z = xs[t] @ W[:, :d_in].T + h @ W[:, d_in:].T + b  # ([B,] 4H)
        f[t], i[t], g[t], o[t] = _gates(z, H)
        c = f[t] * c + i[t] * g[t]
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

    Raises
    ------
    ValueError
        ``W``, ``b`` as :func:`lstm_step` refuses them; ``xs`` not a finite ``(T, d_in)`` or
        ``(T, batch, d_in)`` array with ``T, batch >= 1``; ``h0`` or ``c0`` not finite
        ``(d_hidden,)`` or ``(batch, d_hidden)`` to match ``xs``. (``return_gates`` is read as a flag.)

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
        dz[t] = [dc * c_prev * f*(1-f),                # forget block of z
                 dc * g * i*(1-i),                     # input block
                 dc * i * (1-g**2),                    # candidate block
                 dh * tc * o*(1-o)]                    # output block
        dh_next = dz[t] @ W[:, d_in:];  dc_next = dc * f

    and then, for all steps at once, ``dW = sum_t dz[t]^T [x_t, h_{t-1}]``, ``db = sum_t dz[t]``,
    ``dxs = dz @ W[:, :d_in]``.

    ``dc_next = dc * f`` is the LSTM's point: the cell gradient goes back one step multiplied only by the
    forget gate ``f``, not by a weight matrix and a squashing slope.

    Parameters
    ----------
    xs, h0, c0, W, b : as in :func:`lstm_forward`
    dhs : ndarray shaped like ``hs``
    dcs : ndarray shaped like ``cs``, optional (zero if omitted)

    Returns
    -------
    dict with keys ``"W", "b", "h0", "c0", "xs"``, each shaped like that argument.

    Raises
    ------
    ValueError
        ``xs, h0, c0, W, b`` as :func:`lstm_forward` refuses them; ``dhs`` (``dcs``) not finite or
        not shaped like ``hs`` (``cs``).

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> W, b = 0.3 * rng.normal(size=(12, 5)), np.zeros(12)
    >>> grads = lstm_backward(rng.normal(size=(4, 2)), np.zeros(3), np.zeros(3), W, b, np.ones((4, 3)))
    >>> sorted(grads), grads["W"].shape, grads["xs"].shape
    (['W', 'b', 'c0', 'h0', 'xs'], (12, 5), (4, 2))
    """
    xs, h0, c0, W, H, d_in, (hs, f, i, g, o), local, dhs, dcs = _backward_setup(xs, h0, c0, W, b, dhs, dcs)
    dc_from_h, dzf, dzi, dzg, dzo = local
    T = xs.shape[0]
    W_h = W[:, d_in:]
    dzs = np.empty(hs.shape[:-1] + (4 * H,))  # (T, [B,] 4H): dL/dz of every step
    dh_next, dc_next = np.zeros_like(h0), np.zeros_like(c0)
    for t in reversed(range(T)):
        dh = dhs[t] + dh_next  # from outside + from step t+1
        dc = dc_next + dh * dc_from_h[t]
        if dcs is not None:
            dc = dc + dcs[t]
        dzs[t, ..., :H] = dc * dzf[t]
        dzs[t, ..., H:2 * H] = dc * dzi[t]
        dzs[t, ..., 2 * H:3 * H] = dc * dzg[t]
        dzs[t, ..., 3 * H:] = dh * dzo[t]
        dh_next = dzs[t] @ W_h
        dc_next = dc * f[t]  # the cell path: multiplied by the forget gate only
    return _parameter_grads(xs, h0, hs, W, dzs, dh_next, dc_next)


def lstm_backward_paths(xs, h0, c0, W, b, dhs, dcs=None) -> dict[str, dict[str, np.ndarray]]:
    r"""The gradient of :func:`lstm_backward`, split by path: along the cell only, and through ``h``.

    Every path of the gradient back from the outputs either stays on the cell path, where each step
    back multiplies it by the forget gate (``dc_next = dc * f``) and by the local derivatives of
    the gates and the candidate at its two ends, or it crosses at least once from some ``z_t`` back
    into ``h_{t-1}`` (``dz[t] @ W[:, d_in:]``), the loop through the previous output into the next
    step's gates and candidate. The backward pass here carries the two families separately, in the
    *same* forward pass of the intact model: the first stream never takes the step from ``z_t`` to
    ``h_{t-1}`` (what crosses it joins the second), so it is a stop-gradient on ``h_{t-1}`` where
    the gates and the candidate read it, in the backward pass only::

        dh_cell = dhs[t]                               # never from step t+1 (that is via h)
        dh_h    = dh_next                              # everything that crossed into h
        dc_s    = dcs[t] (cell only) + dc_next_s + dh_s * o * (1 - tc**2)    for s = cell, h
        dz_s[t] = [dc_s * c_prev f(1-f), dc_s g i(1-i), dc_s i (1-g**2), dh_s tc o(1-o)]
        dh_next = (dz_cell[t] + dz_h[t]) @ W[:, d_in:];  dc_next_s = dc_s * f

    The cell stream is the gradient of a model whose gates and candidate read ``h_{t-1}`` as a
    constant, equal to the intact model's values in this forward pass: a derivative the intact model
    has, not that of another model (zeroing ``W[:, d_in:]`` would change the forward pass too). The
    two parts add up to :func:`lstm_backward`'s gradient, for every entry, up to rounding.

    Parameters
    ----------
    xs, h0, c0, W, b, dhs, dcs : as in :func:`lstm_backward`

    Returns
    -------
    dict ``{"cell path": grads, "through h": grads}``, each ``grads`` a dict with the keys of
    :func:`lstm_backward` (``"W", "b", "h0", "c0", "xs"``). ``"cell path"`` has ``"h0"`` all zero:
    ``h0`` reaches the outputs only through the gates of step 0.

    Raises
    ------
    ValueError
        as :func:`lstm_backward`.

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> xs, W, b, z = rng.normal(size=(6, 2)), 0.5 * rng.normal(size=(12, 5)), np.zeros(12), np.zeros(3)
    >>> dhs = np.zeros((6, 3)); dhs[-1] = 1.0                       # L = sum(h_T)
    >>> parts, full = lstm_backward_paths(xs, z, z, W, b, dhs), lstm_backward(xs, z, z, W, b, dhs)
    >>> bool(np.allclose(parts["cell path"]["xs"] + parts["through h"]["xs"], full["xs"]))
    True
    >>> bool(np.allclose(parts["cell path"]["xs"][-1], full["xs"][-1]))   # the last input: no path via h
    True
    """
    xs, h0, c0, W, H, d_in, (hs, f, i, g, o), local, dhs, dcs = _backward_setup(xs, h0, c0, W, b, dhs, dcs)
    dc_from_h, dzf, dzi, dzg, dzo = local
    W_h = W[:, d_in:]
    dzs = {"cell path": np.empty(hs.shape[:-1] + (4 * H,)), "through h": np.empty(hs.shape[:-1] + (4 * H,))}
    dh_next = np.zeros_like(h0)
    dc_next = {name: np.zeros_like(c0) for name in dzs}
    for t in reversed(range(xs.shape[0])):
        for name, dh in (("cell path", dhs[t]), ("through h", dh_next)):
            dc = dc_next[name] + dh * dc_from_h[t]
            if dcs is not None and name == "cell path":
                dc = dc + dcs[t]
            dz = dzs[name][t]
            dz[..., :H] = dc * dzf[t]
            dz[..., H:2 * H] = dc * dzi[t]
            dz[..., 2 * H:3 * H] = dc * dzg[t]
            dz[..., 3 * H:] = dh * dzo[t]
            dc_next[name] = dc * f[t]
        dh_next = (dzs["cell path"][t] + dzs["through h"][t]) @ W_h  # every crossing into h_{t-1}
    return {"cell path": _parameter_grads(xs, h0, hs, W, dzs["cell path"], np.zeros_like(h0), dc_next["cell path"]),
            "through h": _parameter_grads(xs, h0, hs, W, dzs["through h"], dh_next, dc_next["through h"])}


def _backward_setup(xs, h0, c0, W, b, dhs, dcs):
    """The checks and the forward pass of :func:`lstm_backward`, and every step's local derivatives:
    ``dc_from_h`` (dh_t -> dc_t) and the z blocks' ``dzf, dzi, dzg`` (per unit of dc_t) and ``dzo``
    (per unit of dh_t)."""
    xs, h0, c0, W, b, H, d_in = _check_sequence_inputs(xs, h0, c0, W, b)
    hs, cs, (f, i, g, o) = _forward(xs, h0, c0, W, b, H, d_in)
    dhs = as_float_array("dhs", dhs, ndims=(hs.ndim,))
    check_shape("dhs", dhs, hs.shape, "like hs: (T, [batch,] d_hidden)")
    if dcs is not None:
        dcs = as_float_array("dcs", dcs, ndims=(cs.ndim,))
        check_shape("dcs", dcs, cs.shape, "like cs: (T, [batch,] d_hidden)")

    c_prevs = np.concatenate([c0[None], cs[:-1]])  # (T, [B,] H): c_{t-1} of every step
    tc = np.tanh(cs)
    # Local derivatives of every step at once; the backward loops only carry dh and dc back.
    dc_from_h = o * (1.0 - tc ** 2)  # dh_t -> dc_t through h_t = o * tanh(c_t)
    dzf, dzi = c_prevs * f * (1.0 - f), g * i * (1.0 - i)  # dc_t -> z blocks (f, i)
    dzg, dzo = i * (1.0 - g ** 2), tc * o * (1.0 - o)  # dc_t -> z block g; dh_t -> z block o
    return xs, h0, c0, W, H, d_in, (hs, f, i, g, o), (dc_from_h, dzf, dzi, dzg, dzo), dhs, dcs


def _parameter_grads(xs, h0, hs, W, dzs, dh0, dc0):
    """The dict :func:`lstm_backward` returns, from every step's ``dL/dz`` and the gradients that
    reached ``h0`` and ``c0``."""
    H, d_in = W.shape[0] // 4, W.shape[1] - W.shape[0] // 4
    h_prevs = np.concatenate([h0[None], hs[:-1]])
    dz2 = dzs.reshape(-1, 4 * H)  # (T * B, 4H)
    dW = np.concatenate([dz2.T @ xs.reshape(-1, d_in), dz2.T @ h_prevs.reshape(-1, H)], axis=1)
    return {"W": dW, "b": dz2.sum(axis=0), "h0": dh0, "c0": dc0, "xs": dzs @ W[:, :d_in]}


def init_lstm(d_in: int, d_hidden: int, rng, *, forget_bias: float = 1.0):
    """Random LSTM weights: ``W`` entries ``N(0, 1 / (d_in + d_hidden))``, ``b`` zero except the
    forget block, which is ``forget_bias``.

    A positive forget bias starts every forget gate above one half (``sigmoid(1) = 0.73``), so the
    cell keeps most of its content before training has taught it anything. A bias of 1 is the
    common default (Jozefowicz et al., 2015); a larger one starts with a longer memory, about
    ``1 / (1 - sigmoid(forget_bias))`` steps (Tallec & Ollivier, 2018, match it to the task).

    Parameters
    ----------
    d_in, d_hidden : int >= 1
    rng : numpy.random.Generator or int seed
    forget_bias : float, keyword only

    Returns
    -------
    W : ndarray of shape (4 * d_hidden, d_in + d_hidden)
    b : ndarray of shape (4 * d_hidden,)

    Raises
    ------
    ValueError
        a size that is not an integer >= 1, a non-finite ``forget_bias``, or a bad ``rng``.

    >>> import numpy as np
    >>> W, b = init_lstm(3, 2, np.random.default_rng(0))
    >>> W.shape, b
    ((8, 5), array([1., 1., 0., 0., 0., 0., 0., 0.]))
    """
    d_in, d_hidden = positive_int("d_in", d_in), positive_int("d_hidden", d_hidden)
    forget_bias = finite_float("forget_bias", forget_bias)
    rng = as_rng("rng", rng)
    W = rng.normal(scale=1.0 / np.sqrt(d_in + d_hidden), size=(4 * d_hidden, d_in + d_hidden))
    b = np.zeros(4 * d_hidden)
    b[:d_hidden] = forget_bias
    return W, b
