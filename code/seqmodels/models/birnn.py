r"""Bidirectional LSTMs: a forward and a backward LSTM over the same inputs, side by side.

A bidirectional LSTM runs one LSTM left to right and another right to left over the same inputs,
and puts their states side by side::

    hf[t] = LSTM_fwd(xs[0], ..., xs[t])           # has read the sentence up to t
    hb[t] = LSTM_bwd(xs[T-1], ..., xs[t])         # has read the sentence from its end back to t
    hs[t] = [hf[t], hb[t]]                        # (T, [B,] d_fwd + d_bwd)

Row ``t`` then describes position ``t`` in the light of the whole sentence. The bidirectional
language model that trains such a pair on raw text is :mod:`seqmodels.models.bilm`; its trainers are in
:mod:`seqmodels.training.bilm_train`, and the ELMo read-out of its states in :mod:`seqmodels.models.elmo`.
"""

from __future__ import annotations

import numpy as np

from seqmodels.common._checks import as_float_array, check_shape
from seqmodels.models.lstm import lstm_forward


def _check_pair(name, pair):
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise ValueError(f"{name} must be a (W, b) pair in the lstm_step layout, got {type(pair).__name__}"
                         + (f" of length {len(pair)}" if isinstance(pair, (tuple, list)) else ""))
    W = as_float_array(f"{name}[0] (W)", pair[0], ndims=(2,))
    if W.shape[0] == 0 or W.shape[0] % 4 or W.shape[1] <= W.shape[0] // 4:
        raise ValueError(f"{name}[0] (W) must have shape (4 * d_hidden, d_in + d_hidden), got {W.shape}")
    b = as_float_array(f"{name}[1] (b)", pair[1], ndims=(1,))
    check_shape(f"{name}[1] (b)", b, (W.shape[0],), "(4 * d_hidden,)")
    return W, b


def _zero_state(xs: np.ndarray, W: np.ndarray) -> np.ndarray:
    return np.zeros(xs.shape[1:-1] + (W.shape[0] // 4,))  # ([B,] d_hidden)


def bilstm_forward(xs, fwd, bwd) -> np.ndarray:
    """Run a forward and a backward LSTM over ``xs`` from zero states; concatenate their states.

    ``hs[t, ..., :d_fwd]`` is the forward LSTM's state after reading ``xs[0] .. xs[t]``;
    ``hs[t, ..., d_fwd:]`` is the backward LSTM's state after reading ``xs[T-1] .. xs[t]`` (it runs
    :func:`seqmodels.models.lstm.lstm_forward` on the reversed sequence, and its states are reversed back
    so that both halves of row ``t`` belong to the same position).

    Parameters
    ----------
    xs : ndarray of shape (T, d_in) or (T, batch, d_in), T >= 1
    fwd, bwd : (W, b) pairs in the :func:`seqmodels.models.lstm.lstm_step` layout, ``W`` of shape
        (4 * d_fwd, d_in + d_fwd) and (4 * d_bwd, d_in + d_bwd)

    Returns
    -------
    hs : ndarray of shape (T, d_fwd + d_bwd) or (T, batch, d_fwd + d_bwd)

    The last row's forward half has read the whole sentence, and so has the first row's backward
    half; the backward half of the last row has read only the last input:

    Raises
    ------
    ValueError
        ``fwd`` or ``bwd`` not a ``(W, b)`` pair with ``W`` finite ``(4 * d_hidden, d_in +
        d_hidden)`` and ``b`` finite ``(4 * d_hidden,)``, or reading another ``d_in`` than ``xs``;
        ``xs`` not a finite ``(T, d_in)`` or ``(T, batch, d_in)`` array with ``T, batch >= 1``.

    >>> import numpy as np
    >>> from seqmodels.models.lstm import init_lstm, lstm_forward
    >>> rng = np.random.default_rng(0)
    >>> fwd, bwd = init_lstm(3, 2, rng), init_lstm(3, 2, rng)
    >>> xs = rng.normal(size=(4, 3))
    >>> hs = bilstm_forward(xs, fwd, bwd)
    >>> hs.shape
    (4, 4)
    >>> last_only = lstm_forward(xs[-1:], np.zeros(2), np.zeros(2), *bwd)[0][0]
    >>> bool(np.allclose(hs[-1, 2:], last_only))
    True
    """
    W_f, b_f = _check_pair("fwd", fwd)
    W_b, b_b = _check_pair("bwd", bwd)
    xs = as_float_array("xs", xs, ndims=(2, 3))
    for name, W in (("fwd", W_f), ("bwd", W_b)):
        if W.shape[1] - W.shape[0] // 4 != xs.shape[-1]:
            raise ValueError(f"{name}[0] (W) reads inputs of width {W.shape[1] - W.shape[0] // 4}, but xs has "
                             f"d_in = {xs.shape[-1]}")
    z_f, z_b = _zero_state(xs, W_f), _zero_state(xs, W_b)
    h_f = lstm_forward(xs, z_f, z_f, W_f, b_f)[0]  # (T, [B,] d_fwd)
    h_b = lstm_forward(xs[::-1], z_b, z_b, W_b, b_b)[0][::-1]  # read backwards, stored forwards
    return np.concatenate([h_f, h_b], axis=-1)  # (T, [B,] d_fwd + d_bwd)
