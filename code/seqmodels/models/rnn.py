r"""The vanilla (Elman) recurrent network and backpropagation through time, in numpy.

One step reads one input and updates the state::

    h_t = tanh(W_h h_{t-1} + W_x x_t + b)

Shapes (``B`` is an optional batch axis, ``T`` the number of time steps):

========== =========================================
``x_t``    ``(d_in,)`` or ``(B, d_in)``
``h_prev`` ``(d_hidden,)`` or ``(B, d_hidden)``
``W_h``    ``(d_hidden, d_hidden)``
``W_x``    ``(d_hidden, d_in)``
``b``      ``(d_hidden,)``
``xs``     ``(T, d_in)`` or ``(T, B, d_in)``
``hs``     ``(T, d_hidden)`` or ``(T, B, d_hidden)``
========== =========================================

Sequences are time-major and weights are ``(out, in)`` (the package conventions). Row vectors
are used inside the code (``h @ W_h.T``) so that one line serves both the
single-sequence and the batched case.
"""

from __future__ import annotations

import numpy as np

from seqmodels.common._checks import as_float_array, as_rng, as_sequence, as_state, check_shape, finite_float, positive_int


def _check_params(W_h, W_x, b):
    W_h = as_float_array("W_h", W_h, ndims=(2,))
    d_hidden = W_h.shape[0]
    check_shape("W_h", W_h, (d_hidden, d_hidden), "(d_hidden, d_hidden)")
    W_x = as_float_array("W_x", W_x, ndims=(2,))
    if W_x.shape[0] != d_hidden:
        raise ValueError(f"W_x must have shape (d_hidden, d_in) with d_hidden = {d_hidden}, got {W_x.shape}")
    b = as_float_array("b", b, ndims=(1,))
    check_shape("b", b, (d_hidden,), "(d_hidden,)")
    return W_h, W_x, b



def rnn_step(x_t, h_prev, W_h, W_x, b) -> np.ndarray:
    """One step of the recurrence, ``h_t = tanh(W_h h_prev + W_x x_t + b)``.

    Parameters
    ----------
    x_t : ndarray of shape (d_in,) or (batch, d_in)
    h_prev : ndarray of shape (d_hidden,) or (batch, d_hidden)
    W_h : ndarray of shape (d_hidden, d_hidden)
    W_x : ndarray of shape (d_hidden, d_in)
    b : ndarray of shape (d_hidden,)

    Returns
    -------
    h_t : ndarray shaped like ``h_prev``, every entry in (-1, 1)

    Raises
    ------
    ValueError
        ``W_h`` not a finite square matrix, ``W_x`` not finite with ``d_hidden`` rows, ``b`` not a
        finite ``(d_hidden,)`` vector; ``x_t`` not finite ``(d_in,)`` or ``(batch, d_in)``;
        ``h_prev`` not finite ``(d_hidden,)`` or ``(batch, d_hidden)`` to match ``x_t``.

    >>> import numpy as np
    >>> W_h, W_x, b = 0.5 * np.eye(2), np.array([[1.0], [-1.0]]), np.zeros(2)
    >>> rnn_step(np.array([1.0]), np.zeros(2), W_h, W_x, b).round(4)
    array([ 0.7616, -0.7616])
    """
    W_h, W_x, b = _check_params(W_h, W_x, b)
    d_hidden, d_in = W_x.shape
    x_t = as_float_array("x_t", x_t, ndims=(1, 2))
    batch = x_t.shape[0] if x_t.ndim == 2 else None
    check_shape("x_t", x_t, (d_in,) if batch is None else (batch, d_in),
                "(d_in,)" if batch is None else "(batch, d_in)")
    h_prev = as_state("h_prev", h_prev, d_hidden, batch)
    return np.tanh(h_prev @ W_h.T + x_t @ W_x.T + b)


def _check_sequence_inputs(xs, h0, W_h, W_x, b):
    W_h, W_x, b = _check_params(W_h, W_x, b)
    d_hidden, d_in = W_x.shape
    xs, batch = as_sequence("xs", xs, d_in)
    h0 = as_state("h0", h0, d_hidden, batch)
    return xs, h0, W_h, W_x, b


def _forward(xs, h0, W_h, W_x, b) -> np.ndarray:
    """The loop itself, on checked float64 arrays."""
    hs = np.empty(xs.shape[:-1] + (W_h.shape[0],))  # (T, [B,] d_hidden)
    pre_x = xs @ W_x.T + b  # input projections of every step at once: (T, [B,] d_hidden)
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(h @ W_h.T + pre_x[t])
        hs[t] = h
    return hs


def rnn_forward(xs, h0, W_h, W_x, b) -> np.ndarray:
    """Run the recurrence over a sequence and return the state after every step.

    Parameters
    ----------
    xs : ndarray of shape (T, d_in) or (T, batch, d_in), T >= 1
    h0 : ndarray of shape (d_hidden,) or (batch, d_hidden)
    W_h, W_x, b : as in :func:`rnn_step`

    Returns
    -------
    hs : ndarray of shape (T, d_hidden) or (T, batch, d_hidden); ``hs[t]`` is the state after
        reading ``xs[t]``, so ``hs[-1]`` is the final state.

    Raises
    ------
    ValueError
        ``W_h``, ``W_x``, ``b`` as :func:`rnn_step` refuses them; ``xs`` not a finite ``(T, d_in)``
        or ``(T, batch, d_in)`` array with ``T, batch >= 1``; ``h0`` not finite ``(d_hidden,)`` or
        ``(batch, d_hidden)`` to match ``xs``.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> W_h, W_x, b = 0.1 * rng.normal(size=(4, 4)), rng.normal(size=(4, 3)), np.zeros(4)
    >>> hs = rnn_forward(rng.normal(size=(5, 3)), np.zeros(4), W_h, W_x, b)
    >>> hs.shape
    (5, 4)
    """
    xs, h0, W_h, W_x, b = _check_sequence_inputs(xs, h0, W_h, W_x, b)
    return _forward(xs, h0, W_h, W_x, b)


def rnn_backward(xs, h0, W_h, W_x, b, dhs) -> dict[str, np.ndarray]:
    """Backpropagation through time: the gradients of ``L = sum(hs * dhs)``.

    ``dhs[t]`` is the gradient that arrives at ``hs[t]`` from outside the recurrence (from a loss
    on every step, or only on the last). Walking back from ``t = T - 1``::

        dh   = dhs[t] + dh_next              # from outside + from step t+1
        da   = dh * (1 - hs[t]**2)           # through tanh
        dW_h += da^T h_{t-1};  dW_x += da^T x_t;  db += da
        dxs[t] = da W_x;  dh_next = da W_h    # to the input and to the previous state

    Parameters
    ----------
    xs, h0, W_h, W_x, b : as in :func:`rnn_forward`
    dhs : ndarray shaped like ``hs``

    Returns
    -------
    dict with keys ``"W_h", "W_x", "b", "h0", "xs"``, each shaped like that argument.

    Raises
    ------
    ValueError
        ``xs``, ``h0``, ``W_h``, ``W_x``, ``b`` as :func:`rnn_forward` refuses them; ``dhs`` not
        finite or not shaped like ``hs``.

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> W_h, W_x, b = 0.3 * rng.normal(size=(3, 3)), rng.normal(size=(3, 2)), np.zeros(3)
    >>> xs, h0 = rng.normal(size=(4, 2)), np.zeros(3)
    >>> grads = rnn_backward(xs, h0, W_h, W_x, b, np.ones((4, 3)))
    >>> sorted(grads), grads["W_h"].shape, grads["xs"].shape
    (['W_h', 'W_x', 'b', 'h0', 'xs'], (3, 3), (4, 2))
    """
    xs, h0, W_h, W_x, b = _check_sequence_inputs(xs, h0, W_h, W_x, b)
    hs = _forward(xs, h0, W_h, W_x, b)
    dhs = as_float_array("dhs", dhs, ndims=(hs.ndim,))
    check_shape("dhs", dhs, hs.shape, "like hs: (T, [batch,] d_hidden)")

    d_hidden, d_in = W_x.shape
    dW_h, dW_x, db = np.zeros_like(W_h), np.zeros_like(W_x), np.zeros_like(b)
    dxs = np.empty_like(xs)
    dh_next = np.zeros_like(h0)
    for t in reversed(range(xs.shape[0])):
        h_prev = hs[t - 1] if t > 0 else h0
        da = (dhs[t] + dh_next) * (1.0 - hs[t] ** 2)  # ([B,] d_hidden)
        da2 = da.reshape(-1, d_hidden)  # (B or 1, d_hidden)
        dW_h += da2.T @ h_prev.reshape(-1, d_hidden)
        dW_x += da2.T @ xs[t].reshape(-1, d_in)
        db += da2.sum(axis=0)
        dxs[t] = da @ W_x
        dh_next = da @ W_h
    return {"W_h": dW_h, "W_x": dW_x, "b": db, "h0": dh_next, "xs": dxs}


def state_jacobian_norms(xs, h0, W_h, W_x, b) -> np.ndarray:
    r"""Spectral norms of :math:`\partial h_T / \partial h_{T-k}` for ``k = 1 .. T``.

    One step's Jacobian is ``J_t = diag(1 - h_t**2) W_h``, so the chain rule gives
    ``dh_T/dh_{T-k} = J_T J_{T-1} ... J_{T-k+1}``: ``k`` matrix products, each shrinking or
    stretching by the tanh slope and by ``W_h``. Unbatched sequences only (``xs`` of shape
    ``(T, d_in)``).

    Returns
    -------
    norms : ndarray of shape (T,); ``norms[k - 1]`` is the largest factor by which a change of
        ``h_{T-k}`` can be amplified by the time it reaches ``h_T``.

    Raises
    ------
    ValueError
        the arguments as :func:`rnn_forward` refuses them, or a batched ``xs`` (only ``(T, d_in)``).

    >>> import numpy as np
    >>> W_h = 0.5 * np.eye(2)
    >>> xs = np.zeros((3, 1))  # zero input keeps h = 0, where tanh' = 1
    >>> state_jacobian_norms(xs, np.zeros(2), W_h, np.ones((2, 1)), np.zeros(2))
    array([0.5  , 0.25 , 0.125])
    """
    xs, h0, W_h, W_x, b = _check_sequence_inputs(xs, h0, W_h, W_x, b)
    if xs.ndim != 2:
        raise ValueError(f"xs must be one unbatched sequence of shape (T, d_in), got {xs.shape}")
    hs = _forward(xs, h0, W_h, W_x, b)
    T = xs.shape[0]
    norms = np.empty(T)
    P = np.eye(W_h.shape[0])
    for k in range(1, T + 1):
        P = P @ ((1.0 - hs[T - k] ** 2)[:, None] * W_h)  # dh_T/dh_{T-k}
        norms[k - 1] = np.linalg.norm(P, 2)
    return norms


def init_rnn(d_in: int, d_hidden: int, rng, *, spectral_radius: float, input_scale: float = 1.0):
    """Random RNN weights with ``W_h`` rescaled to a chosen spectral radius.

    ``W_h`` is drawn Gaussian and divided by its largest absolute eigenvalue, then multiplied by
    ``spectral_radius``; ``W_x`` has entries ``N(0, input_scale**2 / d_in)``; ``b = 0``.

    Parameters
    ----------
    d_in, d_hidden : int >= 1
    rng : numpy.random.Generator or int seed
    spectral_radius : float >= 0, keyword only
    input_scale : float >= 0, keyword only

    Returns
    -------
    W_h : ndarray of shape (d_hidden, d_hidden)
    W_x : ndarray of shape (d_hidden, d_in)
    b : ndarray of shape (d_hidden,)

    Raises
    ------
    ValueError
        a size that is not an integer >= 1, a radius or scale that is not finite and >= 0, or an
        ``rng`` that is neither a Generator nor a seed.

    >>> import numpy as np
    >>> W_h, W_x, b = init_rnn(3, 8, np.random.default_rng(0), spectral_radius=0.9)
    >>> round(float(np.abs(np.linalg.eigvals(W_h)).max()), 6), W_x.shape, b.shape
    (0.9, (8, 3), (8,))
    """
    d_in, d_hidden = positive_int("d_in", d_in), positive_int("d_hidden", d_hidden)
    spectral_radius = finite_float("spectral_radius", spectral_radius, low=0)
    input_scale = finite_float("input_scale", input_scale, low=0)
    rng = as_rng("rng", rng)
    W_h = rng.normal(size=(d_hidden, d_hidden))
    W_h *= spectral_radius / np.abs(np.linalg.eigvals(W_h)).max()
    W_x = rng.normal(scale=input_scale / np.sqrt(d_in), size=(d_hidden, d_in))
    return W_h, W_x, np.zeros(d_hidden)


def gradient_decay(radii, *, T: int = 60, d_in: int = 8, d_hidden: int = 32, input_scale: float = 0.1,
                   n_sequences: int = 20, seed: int = 0, linear: bool = False,
                   burn_in: int = 0, per_draw: bool = False, rows=None, input_seed=None) -> np.ndarray:
    """How fast ``||dh_T/dh_{T-k}||`` shrinks or grows with the distance ``k``, per spectral radius.

    For every radius in ``radii`` and each of ``n_sequences`` seeded draws (weights from
    :func:`init_rnn` and a Gaussian input sequence) the spectral norms from
    :func:`state_jacobian_norms` are averaged in log space (a geometric mean, because the norms
    span many orders of magnitude). With ``linear=True`` the tanh is dropped, so the Jacobian is
    ``W_h`` itself and the product is the matrix power ``W_h^k``. With ``burn_in > 0`` every
    network first reads ``burn_in`` further random inputs from ``h = 0``, and the ``T`` measured
    steps start from the state they leave (the stationary regime rather than the transient from
    ``h0 = 0``).

    Draw ``j`` of ``radii[i]`` is seeded with ``[seed, i, j]``: the networks depend on the
    radius's *position* in ``radii``, so two calls compare the same networks only when they pass
    the same list. ``rows`` (positions in ``radii``) computes only those radii, with the same
    networks as a call without it; the result then has ``len(rows)`` rows. ``input_seed`` keeps
    every network's weights but draws its input sequence from ``[seed, i, j, input_seed]`` instead
    (by default the inputs follow the weights from the same generator).

    Returns
    -------
    ndarray of shape (len(radii), T); row ``i``, column ``k - 1`` is the geometric-mean norm at
    distance ``k`` for ``radii[i]``. With ``per_draw=True``, shape (len(radii), n_sequences, T):
    every draw's norms, not averaged.

    >>> curves = gradient_decay([0.5, 1.5], T=10, n_sequences=3)
    >>> curves.shape, bool(curves[0, -1] < curves[1, -1])
    ((2, 10), True)

    Raises
    ------
    ValueError
        ``radii`` empty or holding a value that is not finite and >= 0, or a size that is not an
        integer >= 1.
    """
    T, n_sequences = positive_int("T", T), positive_int("n_sequences", n_sequences)
    d_in, d_hidden = positive_int("d_in", d_in), positive_int("d_hidden", d_hidden)
    if isinstance(radii, (str, bytes)) or not hasattr(radii, "__len__") or len(radii) == 0:
        raise ValueError(f"radii must be a non-empty list of spectral radii >= 0, got {radii!r}")
    radii = [finite_float(f"radii[{i}]", r, low=0) for i, r in enumerate(radii)]
    if rows is None:
        rows = list(range(len(radii)))
    elif isinstance(rows, (str, bytes)) or not hasattr(rows, "__len__") or not len(rows) or not all(
            isinstance(r, (int, np.integer)) and not isinstance(r, bool) and 0 <= r < len(radii) for r in rows):
        raise ValueError(f"rows must be a non-empty list of positions in radii (0 .. {len(radii) - 1}), got {rows!r}")
    if input_seed is not None:
        input_seed = positive_int("input_seed", input_seed, minimum=0)
    input_scale = finite_float("input_scale", input_scale, low=0)
    if isinstance(burn_in, bool) or not isinstance(burn_in, (int, np.integer)) or burn_in < 0:
        raise ValueError(f"burn_in must be an integer >= 0, got {burn_in!r}")
    out = np.empty((len(rows), n_sequences, T))
    for row, i in enumerate(rows):
        radius = radii[i]
        for j in range(n_sequences):
            rng = np.random.default_rng([seed, i, j])
            W_h, W_x, b = init_rnn(d_in, d_hidden, rng, spectral_radius=radius, input_scale=input_scale)
            if input_seed is not None:
                rng = np.random.default_rng([seed, i, j, input_seed])
            if linear:
                P, norms = np.eye(d_hidden), np.empty(T)
                for k in range(T):
                    P = P @ W_h
                    norms[k] = np.linalg.norm(P, 2)
            else:
                xs = rng.normal(size=(burn_in + T, d_in))
                h_start = _forward(xs[:burn_in], np.zeros(d_hidden), W_h, W_x, b)[-1] if burn_in \
                    else np.zeros(d_hidden)
                norms = state_jacobian_norms(xs[burn_in:], h_start, W_h, W_x, b)
            out[row, j] = norms
    if per_draw:
        return out
    return np.exp(np.log(out).mean(axis=1))
