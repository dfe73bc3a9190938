r"""Bidirectional LSTMs and a small bidirectional language model in the style of ELMo.

A bidirectional LSTM runs one LSTM left to right and another right to left over the same inputs,
and puts their states side by side::

    hf[t] = LSTM_fwd(xs[0], ..., xs[t])           # has read the sentence up to t
    hb[t] = LSTM_bwd(xs[T-1], ..., xs[t])         # has read the sentence from its end back to t
    hs[t] = [hf[t], hb[t]]                        # (T, [B,] d_fwd + d_bwd)

The bidirectional language model (biLM) of Peters et al. (2018) trains such a pair on raw text:
a shared embedding ``E`` turns token ids into vectors, the forward LSTM's state at ``t`` predicts
the token at ``t + 1``, the backward LSTM's state at ``t`` predicts the token at ``t - 1``, and
both directions share one softmax layer ``(W_out, b_out)``::

    x[t]      = E[ids[t]]                                       # (T, B, d_embed)
    p_fwd[t]  = softmax(hf[t] @ W_out.T + b_out)   predicts ids[t + 1],  t = 0 .. T-2
    p_bwd[t]  = softmax(hb[t] @ W_out.T + b_out)   predicts ids[t - 1],  t = 1 .. T-1
    loss      = (mean_t -log p_fwd[t][ids[t+1]] + mean_t -log p_bwd[t][ids[t-1]]) / 2

With ``n_layers > 1`` each direction is a stack: layer ``l`` of the forward LSTM reads the states
of layer ``l - 1`` of the forward LSTM (and likewise backwards), and the top layer feeds the
softmax. Every sequence starts with ``<s>`` and ends with ``</s>`` (see :mod:`seqmodels.senses`),
so every word has a left and a right neighbour to be predicted from.

Parameters are a ``dict[str, ndarray]``:

================  =================================  =======================================
key               shape                              role
================  =================================  =======================================
``"E"``           ``(vocab, d_embed)``               token embedding, the static vectors
``"fwd{l}.W"``    ``(4 d_hidden, d_in + d_hidden)``  forward LSTM of layer ``l`` (lstm_step)
``"fwd{l}.b"``    ``(4 d_hidden,)``
``"bwd{l}.W"``    ``(4 d_hidden, d_in + d_hidden)``  backward LSTM of layer ``l``
``"bwd{l}.b"``    ``(4 d_hidden,)``
``"W_out"``       ``(vocab, d_hidden)``              softmax shared by both directions
``"b_out"``       ``(vocab,)``
================  =================================  =======================================

(``d_in = d_embed`` for layer 0, ``d_hidden`` above it.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from ._checks import as_float_array, as_ids, as_rng, check_shape, finite_float, positive_int
from .lstm import init_lstm, lstm_forward
from .numeric import softmax, softmax_cross_entropy, workspace
from .optim import Adam, clip_grad_norm

Params = dict[str, np.ndarray]
DIRECTIONS = ("fwd", "bwd")


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
    :func:`seqmodels.lstm.lstm_forward` on the reversed sequence, and its states are reversed back
    so that both halves of row ``t`` belong to the same position).

    Parameters
    ----------
    xs : ndarray of shape (T, d_in) or (T, batch, d_in), T >= 1
    fwd, bwd : (W, b) pairs in the :func:`seqmodels.lstm.lstm_step` layout, ``W`` of shape
        (4 * d_fwd, d_in + d_fwd) and (4 * d_bwd, d_in + d_bwd)

    Returns
    -------
    hs : ndarray of shape (T, d_fwd + d_bwd) or (T, batch, d_fwd + d_bwd)

    The last row's forward half has read the whole sentence, and so has the first row's backward
    half; the backward half of the last row has read only the last input:

    Raises
    ------
    ValueError
        a bad argument, for example ``fwd``, ``bwd``, ``xs``: wrong type, shape or size, NaN or inf,
        or out of range; the message names the argument.

    >>> import numpy as np
    >>> from seqmodels.lstm import init_lstm, lstm_forward
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


# --- The bidirectional language model ------------------------------------------------------------


@dataclass(frozen=True)
class BiLMConfig:
    """Size and training budget of a :func:`train_bilm` run.

    Raises
    ------
    ValueError
        a bad argument, for example ``d_hidden``, ``d_embed``, ``lr``, ``epochs``, ``clip``, ``seed``: wrong type, shape or size, NaN or inf,
        or out of range; the message names the argument.
    """

    d_embed: int = 32  #: static vector size; equal to d_hidden so ELMo's layer 0, [x, x], has 2 * d_hidden
    d_hidden: int = 32  #: state size of each direction, so a contextual vector has 2 * d_hidden
    n_layers: int = 1  #: LSTM layers per direction; ELMo uses 2
    epochs: int = 40  #: passes over the training sentences; the sense clusters are settled by then
    batch: int = 32  #: sentences per update (all of one length, so no padding is needed)
    lr: float = 1e-2  #: Adam step size
    clip: float = 5.0  #: maximum global gradient norm; a guard, rarely reached on this corpus
    seed: int = 0  #: seeds the initial weights and the order of the batches

    def __post_init__(self):
        """Raises ``ValueError`` for a size that is not an integer >= 1, ``lr`` or ``clip`` not a
        finite number > 0, or a negative seed."""
        for name in ("d_embed", "d_hidden", "n_layers", "epochs", "batch"):
            positive_int(name, getattr(self, name))
        finite_float("lr", self.lr, low=0, low_open=True)
        finite_float("clip", self.clip, low=0, low_open=True)
        positive_int("seed", self.seed, minimum=0)


def n_layers_of(params: Params) -> int:
    """Number of LSTM layers per direction in ``params``.

    Raises
    ------
    ValueError
        ``params`` not a dict.
    KeyError
        ``params`` without a first layer ``"fwd0.W"``.
    """
    if not isinstance(params, dict):
        raise ValueError(f"params must be a dict of arrays (see init_bilm), got {type(params).__name__}")
    if "fwd0.W" not in params:
        raise KeyError(f"params has no entry 'fwd0.W' (see init_bilm), got keys {sorted(params)}")
    n = 0
    while f"fwd{n}.W" in params:
        n += 1
    return n


def init_bilm(vocab_size: int, config: BiLMConfig, rng: np.random.Generator) -> Params:
    """Random biLM weights: ``E`` entries ``N(0, 1)``, LSTMs from :func:`seqmodels.lstm.init_lstm`
    (forget bias 1), ``W_out`` entries ``N(0, 1 / d_hidden)``, ``b_out = 0``.

    Raises
    ------
    ValueError
        a bad argument, for example ``vocab_size``, ``config``, ``rng``: wrong type, shape or size, NaN or inf,
        or out of range; the message names the argument.

    >>> p = init_bilm(10, BiLMConfig(d_embed=3, d_hidden=4, n_layers=2), np.random.default_rng(0))
    >>> {k: v.shape for k, v in p.items()}  # doctest: +NORMALIZE_WHITESPACE
    {'E': (10, 3), 'fwd0.W': (16, 7), 'fwd0.b': (16,), 'bwd0.W': (16, 7), 'bwd0.b': (16,),
     'fwd1.W': (16, 8), 'fwd1.b': (16,), 'bwd1.W': (16, 8), 'bwd1.b': (16,), 'W_out': (10, 4),
     'b_out': (10,)}
    """
    vocab_size = positive_int("vocab_size", vocab_size, minimum=2)
    if not isinstance(config, BiLMConfig):
        raise ValueError(f"config must be a BiLMConfig, got {type(config).__name__}")
    rng = as_rng("rng", rng)
    H = config.d_hidden
    params = {"E": rng.normal(size=(vocab_size, config.d_embed))}
    for layer in range(config.n_layers):
        d_in = config.d_embed if layer == 0 else H
        for direction in DIRECTIONS:
            params[f"{direction}{layer}.W"], params[f"{direction}{layer}.b"] = init_lstm(d_in, H, rng)
    params["W_out"] = rng.normal(scale=1.0 / np.sqrt(H), size=(vocab_size, H))
    params["b_out"] = np.zeros(vocab_size)
    return params


def _check_params(params: Params) -> tuple[int, int]:
    """Shapes of every entry; returns ``(vocab_size, d_hidden)``."""
    if not isinstance(params, dict):
        raise ValueError(f"params must be a dict of arrays (see init_bilm), got {type(params).__name__}")
    for key in ("E", "fwd0.W", "W_out", "b_out"):
        if key not in params:
            raise KeyError(f"params has no entry {key!r}; it must hold E, fwd0.W, ..., W_out, b_out "
                           f"(see init_bilm), got keys {sorted(params)}")
    E = as_float_array("params['E']", params["E"], ndims=(2,))
    V, d_embed = E.shape
    W_out = as_float_array("params['W_out']", params["W_out"], ndims=(2,))
    H = W_out.shape[1]
    check_shape("params['W_out']", W_out, (V, H), "(vocab, d_hidden)")
    check_shape("params['b_out']", as_float_array("params['b_out']", params["b_out"], ndims=(1,)),
                (V,), "(vocab,)")
    for layer in range(n_layers_of(params)):
        d_in = d_embed if layer == 0 else H
        for direction in DIRECTIONS:
            key = f"{direction}{layer}"
            if f"{key}.W" not in params or f"{key}.b" not in params:
                raise KeyError(f"params has no entry {key + '.W'!r} or {key + '.b'!r}")
            check_shape(f"params['{key}.W']", as_float_array(f"params['{key}.W']", params[f"{key}.W"], (2,)),
                        (4 * H, d_in + H), "(4 * d_hidden, d_in + d_hidden)")
            check_shape(f"params['{key}.b']", as_float_array(f"params['{key}.b']", params[f"{key}.b"], (1,)),
                        (4 * H,), "(4 * d_hidden,)")
    return V, H


def _check_ids(ids, vocab_size: int, name: str = "ids") -> np.ndarray:
    ids = as_ids(name, ids, vocab_size, ndims=(1, 2), what="token ids", min_length=2)
    if ids.ndim == 2 and ids.shape[1] == 0:
        raise ValueError(f"{name} must hold at least one sequence (batch >= 1), got shape {ids.shape}")
    return ids


_ws = workspace(64 * 2 ** 20)  #: reusable scratch arrays of this module (numeric.workspace)


def _lstm_layer(xs: np.ndarray, W: np.ndarray, b: np.ndarray, tag: str | None = None):
    """:func:`seqmodels.lstm.lstm_forward` from zero states for ``D`` LSTMs side by side (the two
    directions of a layer): ``xs`` (T, D, B, d_in), ``W`` (D, 4H, d_in + H), ``b`` (D, 4H), all
    checked. The same recurrence, computed more cheaply: one time step of the ``D`` LSTMs is one
    batched product, every sigmoid is ``1 / (1 + exp(-a))`` and every tanh ``2 sigmoid(2 a) - 1``,
    one ``exp`` each, which numpy vectorises while its float64 ``tanh`` is several times slower.
    The results agree with :func:`~seqmodels.lstm.lstm_forward` to round-off (tests/test_birnn.py).
    Returns ``hs, cs`` (T, D, B, H), the activations ``acts`` (T, D, B, 4H) of the gates f, i, g, o
    and ``tanh(cs)``.

    With a ``tag``, these arrays are workspace buffers (:func:`_ws`) named by
    it, reused by the next call with the same tag: a fresh array of this size is memory the system
    maps on first touch, which costs more than the arithmetic. Without one they are new arrays."""
    T, D, B, d_in = xs.shape
    H = W.shape[1] // 4
    def new(name, shape):
        return np.empty(shape, xs.dtype) if tag is None else _ws(tag + name, shape, xs.dtype)

    scale = np.repeat([-1.0, -1.0, -2.0, -1.0], H)  # exp(-a) for the gates, exp(-2 a) for g
    pre = np.matmul(xs, np.swapaxes(W[:, :, :d_in] * scale[:, None], 1, 2), out=new("pre", (T, D, B, 4 * H)))
    np.add(pre, b[:, None] * scale, out=pre)  # every step's input part of -a (-2 a for g)
    W_hT = np.swapaxes(W[:, :, d_in:] * scale[:, None], 1, 2)  # (D, H, 4H), scaled the same way
    acts, hs, cs, tcs = (new(name, (T, D, B, k * H))
                         for name, k in (("acts", 4), ("hs", 1), ("cs", 1), ("tcs", 1)))
    hw = np.empty((D, B, 4 * H), xs.dtype)
    h, c = np.zeros((D, B, H), xs.dtype), np.zeros((D, B, H), xs.dtype)
    for t in range(T):
        a = acts[t]
        np.matmul(h, W_hT, out=hw)
        np.add(pre[t], hw, out=a)
        np.minimum(a, 80.0, out=a)  # exp(80) is finite
        np.exp(a, out=a)
        np.add(a, 1.0, out=a)
        np.divide(1.0, a, out=a)  # sigmoid of every block; g's block is sigmoid(2 a_g)
        g = a[..., 2 * H:3 * H]
        np.multiply(g, 2.0, out=g)
        np.subtract(g, 1.0, out=g)  # tanh(a_g)
        c = np.add(a[..., :H] * c, a[..., H:2 * H] * g, out=cs[t])
        tc = tcs[t]
        np.multiply(c, -2.0, out=tc)
        np.minimum(tc, 80.0, out=tc)
        np.exp(tc, out=tc)
        np.add(tc, 1.0, out=tc)
        np.divide(2.0, tc, out=tc)
        np.subtract(tc, 1.0, out=tc)  # tanh(c)
        h = np.multiply(a[..., 3 * H:], tc, out=hs[t])
    return hs, cs, acts, tcs


def _lstm_layer_backward(xs: np.ndarray, W: np.ndarray, forward, dhs: np.ndarray, tag: str = "bwd"):
    """:func:`seqmodels.lstm.lstm_backward` from zero states for a :func:`_lstm_layer` pass
    ``forward``: the gradients ``(dW, db, dxs)`` of ``sum(hs * dhs)``, shaped like ``W``, ``b``
    and ``xs``. The same formulas, with ``tanh(c)`` kept from the forward pass and the three
    cell-driven blocks of ``dz`` written by one product per step; equal to
    :func:`~seqmodels.lstm.lstm_backward` to round-off (tests/test_birnn.py). The intermediate
    arrays, and ``dxs``, are workspace buffers named by ``tag`` (valid until the next call with it)."""
    hs, cs, acts, tcs = forward
    T, D, B, d_in = xs.shape
    H = hs.shape[-1]
    ws = lambda name, shape: _ws(tag + name, shape, xs.dtype)  # noqa: E731
    f, i, g, o = (acts[..., k * H:(k + 1) * H] for k in range(4))
    # local derivatives of every step at once; the loop below only carries dh and dc back
    dc_from_h = ws("dc_from_h", (T, D, B, H))  # dh_t -> dc_t through h_t = o * tanh(c_t)
    tmp = ws("tmp", (T, D, B, H))
    np.multiply(tcs, tcs, out=tmp)
    np.subtract(1.0, tmp, out=tmp)
    np.multiply(o, tmp, out=dc_from_h)
    dc_to_z = ws("dc_to_z", (T, D, B, 3, H))  # dc_t -> z blocks f, i, g
    dzf = dc_to_z[..., 0, :]
    dzf[0] = 0.0  # c_{-1} = 0
    np.subtract(1.0, f, out=tmp)
    np.multiply(f, tmp, out=tmp)
    np.multiply(cs[:-1], tmp[1:], out=dzf[1:])
    np.subtract(1.0, i, out=tmp)
    np.multiply(i, tmp, out=tmp)
    np.multiply(g, tmp, out=dc_to_z[..., 1, :])
    np.multiply(g, g, out=tmp)
    np.subtract(1.0, tmp, out=tmp)
    np.multiply(i, tmp, out=dc_to_z[..., 2, :])
    dh_to_z = ws("dh_to_z", (T, D, B, H))  # dh_t -> z block o
    np.subtract(1.0, o, out=tmp)
    np.multiply(o, tmp, out=tmp)
    np.multiply(tcs, tmp, out=dh_to_z)
    dzs = ws("dzs", (T, D, B, 4, H))  # dL/dz of every step, blocks f, i, g, o
    W_h = W[:, :, d_in:]  # (D, 4H, H)
    dh_next, dc_next = np.zeros((D, B, H), xs.dtype), np.zeros((D, B, H), xs.dtype)
    dh, dc = np.empty((D, B, H), xs.dtype), np.empty((D, B, H), xs.dtype)
    for t in reversed(range(T)):
        np.add(dhs[t], dh_next, out=dh)  # from outside + from step t+1
        np.multiply(dh, dc_from_h[t], out=dc)
        np.add(dc_next, dc, out=dc)
        np.multiply(dc[:, :, None], dc_to_z[t], out=dzs[t, :, :, :3])
        np.multiply(dh, dh_to_z[t], out=dzs[t, :, :, 3])
        np.matmul(dzs[t].reshape(D, B, 4 * H), W_h, out=dh_next)
        np.multiply(dc, f[t], out=dc_next)  # the cell path: multiplied by the forget gate only
    dz = ws("dz", (D, 4 * H, T, B))
    np.copyto(dz, dzs.reshape(T, D, B, 4 * H).transpose(1, 3, 0, 2))
    dz = dz.reshape(D, 4 * H, T * B)
    x2 = ws("x2", (D, T, B, d_in))
    np.copyto(x2, xs.transpose(1, 0, 2, 3))
    h2 = ws("h2", (D, T, B, H))  # h_{t-1} of every step
    h2[:, 0] = 0.0
    np.copyto(h2[:, 1:], hs[:-1].transpose(1, 0, 2, 3))
    dW = np.concatenate([dz @ x2.reshape(D, T * B, d_in), dz @ h2.reshape(D, T * B, H)], axis=2)
    dxs = np.matmul(dzs.reshape(T, D, B, 4 * H), W[:, :, :d_in], out=ws("dxs", (T, D, B, d_in)))
    return dW, dz.sum(axis=2), dxs


def _run_layers(params: Params, ids: np.ndarray, directions=DIRECTIONS, tag: str | None = None):
    """The stacks of ``directions`` side by side over ``ids`` (T, B); each direction reads the
    tokens in its own order (``"bwd"`` reads ``ids[::-1]``).

    Returns the input of every layer and every layer's :func:`_lstm_layer` result (states first),
    each (T, D, B, .), for :func:`_lstm_layer_backward`, which then need not run it again."""
    orders = np.stack([ids if d == "fwd" else ids[::-1] for d in directions], axis=1)  # (T, D, B)
    inputs, forwards = [], []
    x = params["E"][orders]  # (T, D, B, d_embed)
    for layer in range(n_layers_of(params)):
        forward = _lstm_layer(x, _stacked(params, layer, "W", directions),
                              _stacked(params, layer, "b", directions), None if tag is None else f"{tag}{layer}")
        inputs.append(x)
        forwards.append(forward)
        x = forward[0]
    return inputs, forwards


def _stacked(params: Params, layer: int, what: str, directions=DIRECTIONS) -> np.ndarray:
    return np.stack([params[f"{d}{layer}.{what}"] for d in directions])


def _run_direction(params: Params, direction: str, ids: np.ndarray) -> list[np.ndarray]:
    """The states (T, B, d_hidden) of every layer of one direction over ``ids`` (T, B), which are
    in its reading order already."""
    order = ids if direction == "fwd" else ids[::-1]  # _run_layers reverses "bwd" itself
    return [fw[0][:, 0] for fw in _run_layers(params, order, (direction,))[1]]


def bilm_states(params: Params, ids) -> list[np.ndarray]:
    """Contextual vectors of every token: one ``(T, [batch,] 2 * d_hidden)`` array per layer.

    Row ``t`` of layer ``l`` is ``[hf, hb]``: the forward stack's layer-``l`` state after reading
    ``ids[0] .. ids[t]`` and the backward stack's after reading ``ids[T-1] .. ids[t]``. For one layer
    this is :func:`bilstm_forward` applied to the embedded tokens.

    Parameters
    ----------
    params : dict from :func:`init_bilm` or :func:`train_bilm`
    ids : integer ndarray of shape (T,) or (T, batch), T >= 2

    Raises
    ------
    ValueError
        a bad argument, for example ``ids``: wrong type, shape or size, NaN or inf,
        or out of range; the message names the argument.
    KeyError
        an unknown or missing key in ``params``.

    >>> p = init_bilm(6, BiLMConfig(d_embed=3, d_hidden=4), np.random.default_rng(0))
    >>> layers = bilm_states(p, np.array([0, 3, 2, 1]))
    >>> len(layers), layers[0].shape
    (1, (4, 8))
    """
    V, _ = _check_params(params)
    ids = _check_ids(ids, V)
    batched = ids if ids.ndim == 2 else ids[:, None]  # (T, B)
    h_f = _run_direction(params, "fwd", batched)
    h_b = _run_direction(params, "bwd", batched[::-1])
    layers = [np.concatenate([f, b[::-1]], axis=-1) for f, b in zip(h_f, h_b)]  # (T, B, 2H)
    return layers if ids.ndim == 2 else [h[:, 0] for h in layers]


def next_token_probs(params: Params, ids, direction: str = "fwd") -> np.ndarray:
    """What one direction of the biLM predicts next: for ``"fwd"`` the distribution over the token
    after ``ids``, for ``"bwd"`` over the token before them (the softmax of the top state after
    reading all of ``ids`` in that direction's order).

    Parameters
    ----------
    params : dict from :func:`init_bilm` or :func:`train_bilm`
    ids : integer ndarray of shape (T,) or (T, batch), T >= 2
    direction : ``"fwd"`` or ``"bwd"``

    Returns
    -------
    ndarray of shape (vocab,) or (batch, vocab), each row summing to 1

    Raises
    ------
    ValueError
        a bad argument, for example ``ids``: wrong type, shape or size, or out of range.
    KeyError
        an unknown ``direction``, or a missing key in ``params``.

    >>> p = init_bilm(6, BiLMConfig(d_embed=3, d_hidden=4), np.random.default_rng(0))
    >>> next_token_probs(p, np.array([0, 3, 2])).shape, next_token_probs(p, np.array([[0], [3]]), "bwd").shape
    ((6,), (1, 6))
    """
    if direction not in DIRECTIONS:
        raise KeyError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    V, H = _check_params(params)
    ids = _check_ids(ids, V)
    batched = ids if ids.ndim == 2 else ids[:, None]  # (T, B)
    order = batched if direction == "fwd" else batched[::-1]
    top = _run_direction(params, direction, order)[-1][-1]  # (B, H): the state after the last token read
    probs = softmax(top @ params["W_out"].T + params["b_out"], axis=-1)
    return probs if ids.ndim == 2 else probs[0]


def bilm_loss(params: Params, ids) -> float:
    """The biLM's loss on ``ids`` (see the module docstring); :func:`bilm_loss_and_grads` without
    the gradients.

    Raises
    ------
    ValueError
        a bad argument, for example ``ids``: wrong type, shape or size, NaN or inf,
        or out of range; the message names the argument.
    """
    return bilm_loss_and_grads(params, ids, grads=False)[0]


def bilm_loss_and_grads(params: Params, ids, grads: bool = True) -> tuple[float, Params]:
    """Mean next-token and previous-token cross-entropy on ``ids``, and its gradient.

    Each direction runs over the tokens in its own reading order (the backward one over
    ``ids[::-1]``), so both do the same thing: the top state at step ``t`` predicts the token read
    at step ``t + 1``. Backwards through each direction::

        dlogits          = (p - onehot(next)) / (2 N)      # N = (T - 1) * batch predictions
        dW_out          += dlogits^T h_top;   db_out += sum dlogits
        dh_top[:-1]      = dlogits W_out                   # the last state predicts nothing
        dW, db, dxs      = lstm_backward(layer input, dh)  # layer by layer, top to bottom
                                                            # (its formulas, in _lstm_layer_backward)
        dE[ids[t]]      += dxs[t]                           # the embedding rows that were read

    Parameters
    ----------
    params : dict from :func:`init_bilm`
    ids : integer ndarray of shape (T,) or (T, batch), T >= 2
    grads : bool, if False only the loss is computed (the gradient dict is empty)

    Returns
    -------
    loss : float, the mean of the two directions' mean cross-entropies (nats per token)
    grads : dict with the keys of ``params``

    Raises
    ------
    ValueError
        a bad argument, for example ``ids``, ``params``: wrong type, shape or size, NaN or inf,
        or out of range; the message names the argument.

    >>> p = init_bilm(6, BiLMConfig(d_embed=3, d_hidden=4), np.random.default_rng(0))
    >>> loss, g = bilm_loss_and_grads(p, np.array([[0, 0], [3, 4], [2, 5], [1, 1]]))
    >>> round(loss, 3), sorted(g) == sorted(p)
    (1.762, True)
    """
    V, H = _check_params(params)
    ids = _check_ids(ids, V)
    ids = ids if ids.ndim == 2 else ids[:, None]  # (T, B)
    T, B = ids.shape
    W_out, b_out = params["W_out"], params["b_out"]
    total = 0.0
    g: Params = {k: np.zeros_like(v, dtype=np.float64) for k, v in params.items()} if grads else {}
    # both directions at once, on a leading axis of size 2 (fwd, bwd); each predicts N tokens
    inputs, forwards = _run_layers(params, ids, tag="bilm")  # workspace: used here only
    D = len(DIRECTIONS)
    top = forwards[-1][0][:-1].reshape(-1, H)  # ((T-1) D B, H): every state that predicts a token
    targets = np.stack([ids[1:], ids[::-1][1:]], axis=1)  # (T-1, D, B): the token read next
    total, dlogits = softmax_cross_entropy(top @ W_out.T + b_out, targets.ravel())
    # the mean over both directions' predictions is the mean of the two directions' means
    if grads:
        g["W_out"] += dlogits.T @ top
        g["b_out"] += dlogits.sum(axis=0)
        dhs = np.zeros((T, D, B, H))
        dhs[:-1] = (dlogits @ W_out).reshape(T - 1, D, B, H)
        for layer in reversed(range(len(forwards))):
            dW, db, dhs = _lstm_layer_backward(inputs[layer], _stacked(params, layer, "W"),
                                               forwards[layer], dhs, tag=f"bilm_bwd{layer}")
            for k, direction in enumerate(DIRECTIONS):
                g[f"{direction}{layer}.W"] += dW[k]
                g[f"{direction}{layer}.b"] += db[k]
            # dhs is now the gradient at this layer's input: the states of the layer below
        orders = np.stack([ids, ids[::-1]], axis=1)
        np.add.at(g["E"], orders, dhs)  # dhs is now dL/dx for every token read: (T, D, B, d_embed)
    return float(total), g


@dataclass
class TrainedBiLM:
    """The result of :func:`train_bilm`."""

    params: Params
    config: BiLMConfig
    losses: np.ndarray  #: (updates,) training loss of each batch, before its update
    epoch_losses: np.ndarray  #: (epochs,) mean training loss per token in each epoch


def length_batches(sequences, batch: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Group sequences of equal length into ``(T, n)`` id arrays of at most ``batch`` columns.

    Sentences are shuffled within each length and the batches are shuffled among themselves, so
    every epoch sees the data in a new order without padding any sentence.

    Raises
    ------
    ValueError
        a bad argument, for example ``batch``, ``rng``, ``sequences``: wrong type, shape or size, NaN or inf,
        or out of range; the message names the argument.

    >>> seqs = [np.array([0, 5, 1]), np.array([0, 4, 1]), np.array([0, 3, 2, 1])]
    >>> sorted(b.shape for b in length_batches(seqs, 8, np.random.default_rng(0)))
    [(3, 2), (4, 1)]
    """
    batch = positive_int("batch", batch)
    rng = as_rng("rng", rng)
    sequences = [np.asarray(seq) for seq in sequences]
    by_length: dict[int, list[int]] = {}
    for n, seq in enumerate(sequences):
        if seq.ndim != 1:
            raise ValueError(f"sequences[{n}] must be a 1-D id array, got shape {seq.shape}")
        by_length.setdefault(len(seq), []).append(n)
    batches = []
    for length in sorted(by_length):
        members = np.array(by_length[length])[rng.permutation(len(by_length[length]))]
        for start in range(0, len(members), batch):
            batches.append(np.stack([sequences[n] for n in members[start:start + batch]], axis=1))
    return [batches[k] for k in rng.permutation(len(batches))]


def train_bilm(sequences, vocab_size: int, config: BiLMConfig = BiLMConfig()) -> TrainedBiLM:
    """Train a biLM on ``sequences`` (1-D integer id arrays, each ``<s> ... </s>``) with Adam and
    gradient clipping (:mod:`seqmodels.train`), one epoch after another over length batches
    (:func:`length_batches`). Seeded by ``config.seed``: two runs give the same weights.

    Raises
    ------
    ValueError
        a bad argument, for example ``sequences``, ``vocab_size``: wrong type, shape or size, NaN or inf,
        or out of range; the message names the argument.

    >>> seqs = [np.array([0, 2, 3, 1]), np.array([0, 3, 3, 2, 1])] * 4
    >>> run = train_bilm(seqs, 4, BiLMConfig(d_embed=4, d_hidden=4, epochs=40, batch=8))
    >>> bool(run.epoch_losses[-1] < 0.5 * run.epoch_losses[0])
    True
    """
    if len(sequences) == 0:
        raise ValueError("sequences must hold at least one sentence, got none")
    vocab_size = positive_int("vocab_size", vocab_size, minimum=2)
    if not isinstance(config, BiLMConfig):
        raise ValueError(f"config must be a BiLMConfig, got {type(config).__name__}")
    sequences = [_check_ids(s, vocab_size, name=f"sequences[{n}]") for n, s in enumerate(sequences)]
    for n, s in enumerate(sequences):
        if s.ndim != 1:
            raise ValueError(f"sequences[{n}] must be 1-D (T,), got shape {s.shape}")
    rng = np.random.default_rng([config.seed, 0])
    order_rng = np.random.default_rng([config.seed, 1])
    params = init_bilm(vocab_size, config, rng)
    opt = Adam(lr=config.lr)
    losses, epoch_losses = [], []
    # The matrices are tiny, so extra BLAS threads only add overhead (several times on a busy machine).
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(config.epochs):
            tokens = weighted = 0.0
            for ids in length_batches(sequences, config.batch, order_rng):
                loss, grads = bilm_loss_and_grads(params, ids)
                grads, _ = clip_grad_norm(grads, config.clip)
                opt.step(params, grads)
                losses.append(loss)
                weighted += loss * ids.size
                tokens += ids.size
            epoch_losses.append(weighted / tokens)
    return TrainedBiLM(params, config, np.array(losses), np.array(epoch_losses))


def _seed_batches(sequences, batch: int, rngs) -> list[np.ndarray]:
    """:func:`length_batches` for several seeds at once: ``(T, S, n)`` id arrays, column block
    ``s`` drawn by ``rngs[s]``. Every seed shuffles the sentences of each length with its own
    generator, so batch ``k`` has the same length and size for all seeds but other members; the
    order of the batches is the first seed's. For the first seed the result is exactly
    :func:`length_batches` with ``rngs[0]``."""
    by_length: dict[int, list[int]] = {}
    for n, seq in enumerate(sequences):
        by_length.setdefault(len(seq), []).append(n)
    per_seed = []
    for rng in rngs:
        batches = []
        for length in sorted(by_length):
            members = np.array(by_length[length])[rng.permutation(len(by_length[length]))]
            for start in range(0, len(members), batch):
                batches.append(np.stack([sequences[n] for n in members[start:start + batch]], axis=1))
        per_seed.append(batches)
    order = rngs[0].permutation(len(per_seed[0]))
    return [np.stack([batches[k] for batches in per_seed], axis=1) for k in order]


def _seeds_loss_and_grads(P: Params, ids: np.ndarray, dtype=np.float64) -> tuple[np.ndarray, Params]:
    """:func:`bilm_loss_and_grads` for ``S`` independent biLMs stacked on a leading axis of every
    entry of ``P``, each on its own column block of ``ids`` (T, S, B). All ``2 S`` LSTMs of a
    layer run as one :func:`_lstm_layer`. Returns the ``S`` losses and the gradient of their sum,
    which for each seed is the gradient of its own loss (the seeds share no weight). The LSTM
    layers compute in ``dtype``; the softmax, the losses and the gradients are float64."""
    T, S, B = ids.shape
    E, W_out = P["E"], P["W_out"]  # (S, V, d_embed), (S, V, H)
    V, H = W_out.shape[1:]
    D = 2 * S
    orders = np.stack([ids, ids[::-1]], axis=2)  # (T, S, 2, B): each direction's reading order
    seed_ix = np.arange(S)[None, :, None, None]
    x = E[seed_ix, orders].reshape(T, D, B, -1).astype(dtype)
    n_layers = sum(1 for k in P if k.startswith("fwd") and k.endswith(".W"))
    inputs, forwards, Ws = [], [], []
    for layer in range(n_layers):
        W = np.stack([P[f"fwd{layer}.W"], P[f"bwd{layer}.W"]], axis=1).reshape(D, 4 * H, -1).astype(dtype)
        b = np.stack([P[f"fwd{layer}.b"], P[f"bwd{layer}.b"]], axis=1).reshape(D, 4 * H).astype(dtype)
        forward = _lstm_layer(x, W, b, f"seeds{layer}")
        inputs.append(x)
        forwards.append(forward)
        Ws.append(W)
        x = forward[0]
    N = (T - 1) * 2 * B  # predictions per seed
    top = x[:-1].reshape(T - 1, S, 2 * B, H).transpose(1, 0, 2, 3).reshape(S, N, H).astype(np.float64)
    targets = np.stack([ids[1:], ids[::-1][1:]], axis=2).transpose(1, 0, 2, 3).reshape(S, N)
    logits = top @ np.swapaxes(W_out, 1, 2) + P["b_out"][:, None]  # (S, N, V)
    logits -= logits.max(axis=-1, keepdims=True)
    np.exp(logits, out=logits)
    total = logits.sum(axis=-1, keepdims=True)
    rows = np.arange(S)[:, None], np.arange(N)[None], targets
    losses = np.mean(np.log(total[..., 0]) - np.log(logits[rows]), axis=1)
    dlogits = logits / total
    dlogits[rows] -= 1.0
    dlogits /= N
    g: Params = {"W_out": np.swapaxes(dlogits, 1, 2) @ top, "b_out": dlogits.sum(axis=1)}
    dhs = np.zeros((T, D, B, H), dtype)
    dhs[:-1] = (dlogits @ W_out).reshape(S, T - 1, 2 * B, H).transpose(1, 0, 2, 3).reshape(T - 1, D, B, H)
    for layer in reversed(range(n_layers)):
        dW, db, dhs = _lstm_layer_backward(inputs[layer], Ws[layer], forwards[layer], dhs,
                                           tag=f"seeds_bwd{layer}")
        dW, db = dW.reshape(S, 2, *dW.shape[1:]).astype(np.float64), db.reshape(S, 2, -1).astype(np.float64)
        g[f"fwd{layer}.W"], g[f"bwd{layer}.W"] = dW[:, 0], dW[:, 1]
        g[f"fwd{layer}.b"], g[f"bwd{layer}.b"] = db[:, 0], db[:, 1]
    gE = np.zeros_like(E)
    np.add.at(gE, (seed_ix, orders), dhs.reshape(T, S, 2, B, -1).astype(np.float64))
    g["E"] = gE
    return losses, g


def train_bilms(sequences, vocab_size: int, config: BiLMConfig = BiLMConfig(), seeds=(0,),
                dtype=np.float64) -> list[TrainedBiLM]:
    """:func:`train_bilm` for several seeds at once, trained as one batched model.

    Seed ``s`` starts from the weights ``train_bilm`` would draw for ``config.seed = s`` and
    shuffles the sentences of each length with its own generator; the seeds share only the order
    in which the batch lengths come (the first seed's), which lets every step run all of them in
    one pass. Each seed has its own gradient clipping and Adam moments, so the first seed's run
    is :func:`train_bilm`'s, up to round-off (tests/test_birnn.py). ``config.seed`` is ignored.
    With ``dtype=np.float32`` the LSTM layers compute in single precision, which costs about half
    as much here (numpy's float32 ``exp`` is faster); the weights, Adam and the softmax stay
    float64, and the runs then differ from float64 ones by more than round-off, as any two
    trainings that start a rounding error apart do.

    Returns
    -------
    list of :class:`TrainedBiLM`, one per seed, each with ``config.seed`` set to its seed.

    Raises
    ------
    ValueError
        a bad argument, for example ``sequences``, ``vocab_size``, ``config``, ``seeds``: wrong
        type, shape or size, NaN or inf, or out of range; the message names the argument.

    >>> seqs = [np.array([0, 2, 3, 1]), np.array([0, 3, 3, 2, 1])] * 4
    >>> config = BiLMConfig(d_embed=4, d_hidden=4, epochs=5, batch=8)
    >>> runs = train_bilms(seqs, 4, config, seeds=(0, 1))
    >>> alone = train_bilm(seqs, 4, config)  # seed 0 on its own
    >>> bool(np.allclose(runs[0].params["E"], alone.params["E"])), runs[1].config.seed
    (True, 1)
    """
    if len(sequences) == 0:
        raise ValueError("sequences must hold at least one sentence, got none")
    vocab_size = positive_int("vocab_size", vocab_size, minimum=2)
    if not isinstance(config, BiLMConfig):
        raise ValueError(f"config must be a BiLMConfig, got {type(config).__name__}")
    seeds = [positive_int(f"seeds[{k}]", s, minimum=0) for k, s in enumerate(seeds)] \
        if isinstance(seeds, (list, tuple, range)) else None
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError("seeds must be a non-empty list of distinct integers >= 0")
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be np.float32 or np.float64, got {dtype!r}")
    sequences = [_check_ids(s, vocab_size, name=f"sequences[{n}]") for n, s in enumerate(sequences)]
    for n, s in enumerate(sequences):
        if s.ndim != 1:
            raise ValueError(f"sequences[{n}] must be 1-D (T,), got shape {s.shape}")
    configs = [BiLMConfig(**{**config.__dict__, "seed": s}) for s in seeds]
    singles = [init_bilm(vocab_size, c, np.random.default_rng([c.seed, 0])) for c in configs]
    P = {k: np.stack([p[k] for p in singles]) for k in singles[0]}
    rngs = [np.random.default_rng([s, 1]) for s in seeds]
    opt = Adam(lr=config.lr)
    S = len(seeds)
    losses, epoch_losses = [], []
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(config.epochs):
            tokens, weighted = 0.0, np.zeros(S)
            for ids in _seed_batches(sequences, config.batch, rngs):
                loss, grads = _seeds_loss_and_grads(P, ids, dtype)
                norms = np.sqrt(sum(np.sum(g.reshape(S, -1) ** 2, axis=1) for g in grads.values()))
                scale = np.minimum(1.0, config.clip / np.maximum(norms, 1e-300))
                grads = {k: g * scale.reshape((S,) + (1,) * (g.ndim - 1)) for k, g in grads.items()}
                opt.step(P, grads)
                losses.append(loss)
                weighted += loss * ids[:, 0].size
                tokens += ids[:, 0].size
            epoch_losses.append(weighted / tokens)
    losses, epoch_losses = np.array(losses), np.array(epoch_losses)  # (updates, S), (epochs, S)
    return [TrainedBiLM({k: v[s].copy() for k, v in P.items()}, configs[s], losses[:, s], epoch_losses[:, s])
            for s in range(S)]


# --- Contextual vectors of one token per sentence ------------------------------------------------


@dataclass(frozen=True)
class TokenVectors:
    """The representations of one chosen token in each of ``N`` sentences.

    Attributes
    ----------
    static : ndarray of shape (N, d_embed), the embedding row: the same for every occurrence
    forward : ndarray of shape (n_layers, N, d_hidden), forward states (left context and the token)
    backward : ndarray of shape (n_layers, N, d_hidden), backward states (right context and the token)

    Raises
    ------
    ValueError
        a bad argument, for example ``backward``, ``static``: wrong type, shape or size, NaN or inf,
        or out of range; the message names the argument.
    """

    static: np.ndarray
    forward: np.ndarray
    backward: np.ndarray

    def __post_init__(self):
        forward = as_float_array("forward", self.forward, ndims=(3,))
        check_shape("backward", as_float_array("backward", self.backward, ndims=(3,)), forward.shape,
                    "(n_layers, N, d_hidden) like forward")
        static = as_float_array("static", self.static, ndims=(2,))
        if static.shape[0] != forward.shape[1]:
            raise ValueError(f"static must have shape (N, d_embed) with N = {forward.shape[1]}, got {static.shape}")

    @property
    def concat(self) -> np.ndarray:
        """``[forward, backward]`` per layer, shape (n_layers, N, 2 * d_hidden)."""
        return np.concatenate([self.forward, self.backward], axis=-1)

    def layers(self) -> np.ndarray:
        """ELMo's stack of representations, shape (n_layers + 1, N, 2 * d_hidden): layer 0 is the
        static vector repeated for both directions, ``[x, x]`` (needs ``d_embed == d_hidden``),
        layers 1.. are :attr:`concat`.

        Raises
        ------
        ValueError
            a bad argument, for example ``d_embed``: wrong type, shape or size, NaN or inf,
            or out of range; the message names the argument.
        """
        if self.static.shape[1] != self.forward.shape[2]:
            raise ValueError("layer 0 is [x, x], so d_embed must equal d_hidden, got "
                             f"d_embed={self.static.shape[1]}, d_hidden={self.forward.shape[2]}")
        return np.concatenate([np.concatenate([self.static] * 2, axis=-1)[None], self.concat])


def token_vectors(params: Params, sequences, positions) -> TokenVectors:
    """Static and contextual vectors of the token at ``positions[n]`` of ``sequences[n]``.

    ``positions`` index the id arrays, which start with ``<s>``: the word ``words[k]`` of a
    sentence sits at position ``k + 1``.

    The forward state at position ``p`` is a function of ``seq[:p + 1]`` only, and the backward
    state of ``seq[p:]`` only. So each distinct prefix runs once through the forward stack and each
    distinct suffix once through the backward stack (prefixes of equal length as one batch, so
    nothing is padded), and sentences that share a prefix get the same forward vector bit for bit.
    Computed separately, say as rows of different batches, they would agree only up to rounding:
    a BLAS kernel may round a row differently by its place in the batch.

    Raises
    ------
    ValueError
        a bad argument, for example ``positions``, ``sequences``: wrong type, shape or size, NaN or inf,
        or out of range; the message names the argument.

    >>> p = init_bilm(6, BiLMConfig(d_embed=3, d_hidden=4), np.random.default_rng(0))
    >>> tv = token_vectors(p, [np.array([0, 3, 2, 1]), np.array([0, 3, 2, 5, 1])], [2, 2])
    >>> tv.static.shape, tv.forward.shape, tv.concat.shape
    ((2, 3), (1, 2, 4), (1, 2, 8))
    >>> bool(np.array_equal(tv.forward[0, 0], tv.forward[0, 1]))  # the same words up to position 2
    True
    >>> bool(np.allclose(tv.backward[0, 0], tv.backward[0, 1]))  # different words after it
    False
    """
    V, H = _check_params(params)
    sequences, positions = list(sequences), list(positions)
    if len(sequences) != len(positions):
        raise ValueError(f"positions must have one entry per sequence ({len(sequences)}), got {len(positions)}")
    if len(sequences) == 0:
        raise ValueError("sequences must hold at least one sentence, got none")
    checked = []
    for n, seq in enumerate(sequences):
        seq = _check_ids(seq, V, name=f"sequences[{n}]")
        if seq.ndim != 1:
            raise ValueError(f"sequences[{n}] must be a 1-D id array, got shape {seq.shape}")
        if isinstance(positions[n], (bool, np.bool_)) or not isinstance(positions[n], (int, np.integer)) \
                or not 0 <= positions[n] < len(seq):
            raise ValueError(f"positions[{n}] must lie in 0 .. {len(seq) - 1}, got {positions[n]}")
        checked.append(seq)
    # What each direction reads, in its own reading order, up to and including the token.
    read = {"fwd": [tuple(seq[:p + 1].tolist()) for seq, p in zip(checked, positions)],
            "bwd": [tuple(seq[p:][::-1].tolist()) for seq, p in zip(checked, positions)]}
    halves = {}
    for direction, pieces in read.items():
        distinct = list(dict.fromkeys(pieces))  # first-occurrence order: no dependence on hashing
        states = np.empty((n_layers_of(params), len(distinct), H))
        by_length: dict[int, list[int]] = {}
        for k, piece in enumerate(distinct):
            by_length.setdefault(len(piece), []).append(k)
        for members in by_length.values():
            ids = np.array([distinct[k] for k in members]).T  # (length, n), reading order
            for layer, h in enumerate(_run_direction(params, direction, ids)):  # (length, n, H)
                states[layer, members] = h[-1]  # the state after reading the token
        row = {piece: k for k, piece in enumerate(distinct)}
        halves[direction] = states[:, [row[piece] for piece in pieces]]  # (L, N, H)
    static = params["E"][[seq[p] for seq, p in zip(checked, positions)]]
    return TokenVectors(static, halves["fwd"], halves["bwd"])


def elmo_mix(layers, w, gamma: float = 1.0) -> np.ndarray:
    r"""ELMo's task-specific combination of the layers, ``gamma * sum_j softmax(w)_j * layers[j]``.

    Peters et al. (2018, eq. 1): :math:`\mathrm{ELMo}_k = \gamma \sum_{j=0}^{L} s_j h_{k,j}` with
    ``s = softmax(w)``; a downstream task learns ``w`` and ``gamma``.

    Parameters
    ----------
    layers : ndarray of shape (L + 1, ..., D), e.g. :meth:`TokenVectors.layers`
    w : ndarray of shape (L + 1,), unnormalised layer weights
    gamma : float, overall scale

    Raises
    ------
    ValueError
        a bad argument, for example ``w``, ``gamma``, ``layers``: wrong type, shape or size, NaN or inf,
        or out of range; the message names the argument.

    >>> layers = np.array([[[1.0, 0.0]], [[0.0, 1.0]]])  # 2 layers, 1 token, D = 2
    >>> elmo_mix(layers, np.zeros(2))  # equal weights: the average
    array([[0.5, 0.5]])
    """
    layers = as_float_array("layers", layers, ndims=tuple(range(2, 8)))
    w = as_float_array("w", w, ndims=(1,))
    check_shape("w", w, (layers.shape[0],), "(n_layers + 1,)")
    gamma = finite_float("gamma", gamma)
    return gamma * np.tensordot(softmax(w), layers, axes=1)
