r"""A small bidirectional language model (biLM) in the style of ELMo: weights, states, loss, gradient.

The bidirectional language model of Peters et al. (2018) trains a bidirectional LSTM
(:mod:`seqmodels.models.birnn`) on raw text: a shared embedding ``E`` turns token ids into vectors, the
forward LSTM's state at ``t`` predicts the token at ``t + 1``, the backward LSTM's state at ``t``
predicts the token at ``t - 1``, and both directions share one softmax layer ``(W_out, b_out)``::

    x[t]      = E[ids[t]]                                       # (T, B, d_embed)
    p_fwd[t]  = softmax(hf[t] @ W_out.T + b_out)   predicts ids[t + 1],  t = 0 .. T-2
    p_bwd[t]  = softmax(hb[t] @ W_out.T + b_out)   predicts ids[t - 1],  t = 1 .. T-1
    loss      = (mean_t -log p_fwd[t][ids[t+1]] + mean_t -log p_bwd[t][ids[t-1]]) / 2

With ``n_layers > 1`` each direction is a stack: layer ``l`` of the forward LSTM reads the states
of layer ``l - 1`` of the forward LSTM (and likewise backwards), and the top layer feeds the
softmax. Every sequence starts with ``<s>`` and ends with ``</s>`` (see :mod:`seqmodels.datasets.senses`),
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

:func:`bilm_loss_and_grads` is the loss and its gradient for one biLM; :func:`seeds_loss_and_grads`
computes the same for ``S`` biLMs whose weights are packed on a leading axis, all ``2 S`` LSTMs of
a layer in one pass, which is how :func:`seqmodels.training.bilm_train.train_bilms` trains several seeds
at once (and, with ``grads=False``, measures their held-out loss). Every LSTM layer runs in the
batched kernel :mod:`seqmodels.kernels.recurrent`. Training itself is in :mod:`seqmodels.training.bilm_train`, and
the token vectors and ELMo's mix of layers read from a trained biLM in :mod:`seqmodels.models.elmo`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seqmodels.common._checks import as_float_array, as_ids, as_rng, as_token_ids, check_shape, finite_float, positive_int
from seqmodels.kernels import recurrent
from seqmodels.models.lstm import init_lstm
from seqmodels.common.numeric import softmax, softmax_cross_entropy, packed_cross_entropy_

Params = dict[str, np.ndarray]
DIRECTIONS = ("fwd", "bwd")


@dataclass(frozen=True)
class BiLMConfig:
    """Size and training budget of a :func:`seqmodels.training.bilm_train.train_bilm` run.

    Raises
    ------
    ValueError
        ``d_embed``, ``d_hidden``, ``n_layers``, ``epochs`` or ``batch`` not an integer >= 1;
        ``lr`` or ``clip`` not a finite number > 0; ``seed`` not an integer >= 0.
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
    """Random biLM weights: ``E`` entries ``N(0, 1)``, LSTMs from :func:`seqmodels.models.lstm.init_lstm`
    (forget bias 1), ``W_out`` entries ``N(0, 1 / d_hidden)``, ``b_out = 0``.

    Raises
    ------
    ValueError
        ``vocab_size`` not an integer >= 2, ``config`` not a :class:`BiLMConfig`, ``rng`` not a
        Generator or an int seed >= 0.

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


def _check_params(params: Params, name: str = "params", packed: bool = False) -> tuple[int, int]:
    """Shapes of every entry; returns ``(vocab_size, d_hidden)``. With ``packed``, every entry
    starts with an axis of ``S = len(params["E"])`` seeds (:func:`seeds_loss_and_grads`)."""
    if not isinstance(params, dict):
        raise ValueError(f"{name} must be a dict of arrays (see init_bilm), got {type(params).__name__}")
    for key in ("E", "fwd0.W", "W_out", "b_out"):
        if key not in params:
            raise KeyError(f"{name} has no entry {key!r}; it must hold E, fwd0.W, ..., W_out, b_out "
                           f"(see init_bilm), got keys {sorted(params)}")
    k = int(packed)  # leading axes before each entry's own shape
    E = as_float_array(f"{name}['E']", params["E"], ndims=(2 + k,))
    lead, pre = E.shape[:k], "S, " * k
    V, d_embed = E.shape[k:]
    W_out = as_float_array(f"{name}['W_out']", params["W_out"], ndims=(2 + k,))
    H = W_out.shape[-1]
    check_shape(f"{name}['W_out']", W_out, lead + (V, H), f"({pre}vocab, d_hidden)")
    check_shape(f"{name}['b_out']", as_float_array(f"{name}['b_out']", params["b_out"], ndims=(1 + k,)),
                lead + (V,), f"({pre}vocab,)")
    for layer in range(n_layers_of(params)):
        d_in = d_embed if layer == 0 else H
        for direction in DIRECTIONS:
            key = f"{direction}{layer}"
            if f"{key}.W" not in params or f"{key}.b" not in params:
                raise KeyError(f"{name} has no entry {key + '.W'!r} or {key + '.b'!r}")
            check_shape(f"{name}['{key}.W']", as_float_array(f"{name}['{key}.W']", params[f"{key}.W"], (2 + k,)),
                        lead + (4 * H, d_in + H), f"({pre}4 * d_hidden, d_in + d_hidden)")
            check_shape(f"{name}['{key}.b']", as_float_array(f"{name}['{key}.b']", params[f"{key}.b"], (1 + k,)),
                        lead + (4 * H,), f"({pre}4 * d_hidden,)")
    return V, H


def bilm_sizes(params: Params) -> tuple[int, int]:
    """``(vocab_size, d_hidden)`` of a biLM's ``params``, after checking the shape of every entry
    (the table in the module docstring) and that every value is finite.

    Raises
    ------
    ValueError
        ``params`` not a dict, or an entry of the wrong shape, not numeric, or with NaN or inf;
        the message names the entry.
    KeyError
        a missing entry.

    >>> bilm_sizes(init_bilm(10, BiLMConfig(d_embed=3, d_hidden=4), np.random.default_rng(0)))
    (10, 4)
    """
    return _check_params(params)


def _lstm_layer(xs: np.ndarray, W: np.ndarray, b: np.ndarray, tag: str | None = None):
    """:func:`seqmodels.models.lstm.lstm_forward` from zero states for ``D`` LSTMs side by side (the two
    directions of a layer, of every seed), run in the batched kernel :mod:`seqmodels.kernels.recurrent`:
    ``xs`` (T, D, B, d_in), ``W`` (D, 4H, d_in + H), ``b`` (D, 4H), all checked, in the dtype of
    ``W``. Returns the states ``hs`` (T, D, B, H) (a new array) and the kernel's pass, which
    :func:`_lstm_layer_backward` reads (valid until the next call with the same ``tag``)."""
    run = recurrent.forward("lstm", W, b, xs, tag="bilm" if tag is None else tag)
    return run.states(), run


def _lstm_layer_backward(forward, dhs: np.ndarray):
    """The gradients ``(dW, db, dxs)`` of ``sum(hs * dhs)`` for a :func:`_lstm_layer` result
    ``forward`` (:func:`seqmodels.kernels.recurrent.backward`; the formulas of
    :func:`~seqmodels.models.lstm.lstm_backward`), shaped like that layer's ``W``, ``b`` and ``xs``: the
    kernel's pass holds the weights and inputs it ran on."""
    g = recurrent.backward(forward[1], dhs=dhs, inputs=True)
    return g["W"], g["b"], g["xs"]


def _run_layers(params: Params, ids: np.ndarray, directions=DIRECTIONS, tag: str | None = None):
    """The stacks of ``directions`` side by side over ``ids`` (T, B); each direction reads the
    tokens in its own order (``"bwd"`` reads ``ids[::-1]``).

    Returns every layer's :func:`_lstm_layer` result (states (T, D, B, H) first), for
    :func:`_lstm_layer_backward`, which then need not run it again."""
    orders = np.stack([ids if d == "fwd" else ids[::-1] for d in directions], axis=1)  # (T, D, B)
    forwards = []
    x = params["E"][orders]  # (T, D, B, d_embed)
    for layer in range(n_layers_of(params)):
        forward = _lstm_layer(x, _packed(params, layer, "W", directions),
                              _packed(params, layer, "b", directions), None if tag is None else f"{tag}{layer}")
        forwards.append(forward)
        x = forward[0]
    return forwards


def _packed(params: Params, layer: int, what: str, directions=DIRECTIONS) -> np.ndarray:
    return np.stack([params[f"{d}{layer}.{what}"] for d in directions])


def _run_direction(params: Params, direction: str, ids: np.ndarray) -> list[np.ndarray]:
    """The states (T, B, d_hidden) of every layer of one direction over ``ids`` (T, B), which are
    in its reading order already."""
    order = ids if direction == "fwd" else ids[::-1]  # _run_layers reverses "bwd" itself
    return [fw[0][:, 0] for fw in _run_layers(params, order, (direction,))]


def direction_states(params: Params, direction: str, ids) -> list[np.ndarray]:
    """The states of every layer of one direction's stack after each token of ``ids``, which are
    in that direction's reading order already: for ``"bwd"``, ``ids[0]`` is the last token of the
    sentence. Row ``t`` has read ``ids[0] .. ids[t]``, so the last row has read all of ``ids``.

    Parameters
    ----------
    params : dict from :func:`init_bilm` or :func:`seqmodels.training.bilm_train.train_bilm`
    direction : ``"fwd"`` or ``"bwd"``
    ids : integer ndarray of shape (T,) or (T, batch), T >= 1

    Returns
    -------
    list of ``n_layers`` ndarrays of shape (T, d_hidden) or (T, batch, d_hidden), bottom layer first

    Raises
    ------
    ValueError
        ``direction`` not ``"fwd"`` or ``"bwd"``; ``params`` as :func:`bilm_sizes` refuses them;
        ``ids`` not integers in ``[0, vocab)`` of shape (T,) or (T, batch) with T, batch >= 1.
    KeyError
        an entry missing from ``params``.

    >>> p = init_bilm(6, BiLMConfig(d_embed=3, d_hidden=4), np.random.default_rng(0))
    >>> ids = np.array([0, 3, 2, 1])
    >>> hb = direction_states(p, "bwd", ids[::-1])[-1]  # read from the end
    >>> bool(np.allclose(hb[::-1], bilm_states(p, ids)[-1][:, 4:]))
    True
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    V, _ = _check_params(params)
    ids = as_token_ids("ids", ids, V, min_length=1)
    states = _run_direction(params, direction, ids if ids.ndim == 2 else ids[:, None])
    return states if ids.ndim == 2 else [h[:, 0] for h in states]


def bilm_states(params: Params, ids) -> list[np.ndarray]:
    """Contextual vectors of every token: one ``(T, [batch,] 2 * d_hidden)`` array per layer.

    Row ``t`` of layer ``l`` is ``[hf, hb]``: the forward stack's layer-``l`` state after reading
    ``ids[0] .. ids[t]`` and the backward stack's after reading ``ids[T-1] .. ids[t]``. For one layer
    this is :func:`seqmodels.models.birnn.bilstm_forward` applied to the embedded tokens.

    Parameters
    ----------
    params : dict from :func:`init_bilm` or :func:`seqmodels.training.bilm_train.train_bilm`
    ids : integer ndarray of shape (T,) or (T, batch), T >= 2

    Raises
    ------
    ValueError
        ``params`` as :func:`bilm_sizes` refuses them; ``ids`` not integers in ``[0, vocab)`` of
        shape (T,) or (T, batch) with ``T >= 2``, ``batch >= 1``.
    KeyError
        an entry missing from ``params``.

    >>> p = init_bilm(6, BiLMConfig(d_embed=3, d_hidden=4), np.random.default_rng(0))
    >>> layers = bilm_states(p, np.array([0, 3, 2, 1]))
    >>> len(layers), layers[0].shape
    (1, (4, 8))
    """
    V, _ = _check_params(params)
    ids = as_token_ids("ids", ids, V)
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
    params : dict from :func:`init_bilm` or :func:`seqmodels.training.bilm_train.train_bilm`
    ids : integer ndarray of shape (T,) or (T, batch), T >= 2
    direction : ``"fwd"`` or ``"bwd"``

    Returns
    -------
    ndarray of shape (vocab,) or (batch, vocab), each row summing to 1

    Raises
    ------
    ValueError
        ``direction`` not ``"fwd"`` or ``"bwd"``; ``params`` as :func:`bilm_sizes` refuses them;
        ``ids`` not integers in ``[0, vocab)`` of shape (T,) or (T, batch), T >= 2, batch >= 1.
    KeyError
        an entry missing from ``params``.

    >>> p = init_bilm(6, BiLMConfig(d_embed=3, d_hidden=4), np.random.default_rng(0))
    >>> next_token_probs(p, np.array([0, 3, 2])).shape, next_token_probs(p, np.array([[0], [3]]), "bwd").shape
    ((6,), (1, 6))
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    V, H = _check_params(params)
    ids = as_token_ids("ids", ids, V)
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
    ValueError, KeyError
        as :func:`bilm_loss_and_grads`.
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
        ``params`` as :func:`bilm_sizes` refuses them; ``ids`` not integers in ``[0, vocab)`` of
        shape (T,) or (T, batch) with ``T >= 2``, ``batch >= 1``.
    KeyError
        an entry missing from ``params``.

    >>> p = init_bilm(6, BiLMConfig(d_embed=3, d_hidden=4), np.random.default_rng(0))
    >>> loss, g = bilm_loss_and_grads(p, np.array([[0, 0], [3, 4], [2, 5], [1, 1]]))
    >>> round(loss, 3), sorted(g) == sorted(p)
    (1.762, True)
    """
    V, H = _check_params(params)
    ids = as_token_ids("ids", ids, V)
    ids = ids if ids.ndim == 2 else ids[:, None]  # (T, B)
    T, B = ids.shape
    W_out, b_out = params["W_out"], params["b_out"]
    total = 0.0
    g: Params = {k: np.zeros_like(v, dtype=np.float64) for k, v in params.items()} if grads else {}
    # both directions at once, on a leading axis of size 2 (fwd, bwd); each predicts N tokens
    forwards = _run_layers(params, ids, tag="bilm")  # workspace: used here only
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
            dW, db, dhs = _lstm_layer_backward(forwards[layer], dhs)
            for k, direction in enumerate(DIRECTIONS):
                g[f"{direction}{layer}.W"] += dW[k]
                g[f"{direction}{layer}.b"] += db[k]
            # dhs is now the gradient at this layer's input: the states of the layer below
        orders = np.stack([ids, ids[::-1]], axis=1)
        np.add.at(g["E"], orders, dhs)  # dhs is now dL/dx for every token read: (T, D, B, d_embed)
    return float(total), g


def seeds_loss_and_grads(P: Params, ids, dtype=np.float64, grads: bool = True) -> tuple[np.ndarray, Params]:
    """:func:`bilm_loss_and_grads` for ``S`` independent biLMs packed on a leading axis of every
    entry of ``P``, each on its own column block of ``ids`` (T, S, B). All ``2 S`` LSTMs of a
    layer run as one ``_lstm_layer``. Returns the ``S`` losses and the gradient of their sum,
    which for each seed is the gradient of its own loss (the seeds share no weight). The LSTM
    layers compute in ``dtype``; the softmax, the losses and the gradients are float64.

    Parameters
    ----------
    P : dict with the keys of :func:`init_bilm`, each entry of shape ``(S,)`` followed by its shape there
    ids : integer ndarray of shape (T, S, batch), T >= 2: column block ``s`` is seed ``s``'s batch
    dtype : ``np.float32`` or ``np.float64``, the precision of the LSTM layers
    grads : bool, if False only the losses are computed, by one forward pass (the dict is empty)

    Returns
    -------
    losses : ndarray of shape (S,), each seed's :func:`bilm_loss` on its block (to round-off)
    grads : dict with the keys of ``P``, each entry shaped like it

    Raises
    ------
    ValueError
        ``P`` as :func:`bilm_sizes` refuses a biLM's ``params``, each entry with a leading seed axis;
        ``ids`` not integers in ``[0, vocab)`` of shape (T, S, batch) with ``T >= 2``, the seeds'
        ``S`` and ``batch >= 1``; ``dtype`` not ``np.float32`` or ``np.float64``.
    KeyError
        an entry missing from ``P``.

    >>> singles = [init_bilm(6, BiLMConfig(d_embed=3, d_hidden=4), np.random.default_rng(s)) for s in (0, 1)]
    >>> P = {k: np.stack([p[k] for p in singles]) for k in singles[0]}
    >>> ids = np.array([[0, 0], [3, 4], [2, 5], [1, 1]])[:, None, :].repeat(2, axis=1)  # (T, S, B)
    >>> losses, g = seeds_loss_and_grads(P, ids)
    >>> bool(np.isclose(losses[1], bilm_loss(singles[1], ids[:, 1]))), g["E"].shape
    (True, (2, 6, 3))
    """
    V, _ = _check_params(P, "P", packed=True)
    S = P["E"].shape[0]
    ids = as_ids("ids", ids, V, ndims=(3,), what="token ids", min_length=2)
    if ids.shape[1] != S or ids.shape[2] == 0:
        raise ValueError(f"ids must have shape (T, S, batch) with S = {S} seeds and batch >= 1, got {ids.shape}")
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be np.float32 or np.float64, got {dtype!r}")
    T, S, B = ids.shape
    E, W_out = P["E"], P["W_out"]  # (S, V, d_embed), (S, V, H)
    V, H = W_out.shape[1:]
    D = 2 * S
    orders = np.stack([ids, ids[::-1]], axis=2)  # (T, S, 2, B): each direction's reading order
    seed_ix = np.arange(S)[None, :, None, None]
    x = E[seed_ix, orders].reshape(T, D, B, -1).astype(dtype)
    n_layers = sum(1 for k in P if k.startswith("fwd") and k.endswith(".W"))
    forwards = []
    for layer in range(n_layers):
        W = np.stack([P[f"fwd{layer}.W"], P[f"bwd{layer}.W"]], axis=1).reshape(D, 4 * H, -1).astype(dtype)
        b = np.stack([P[f"fwd{layer}.b"], P[f"bwd{layer}.b"]], axis=1).reshape(D, 4 * H).astype(dtype)
        forward = _lstm_layer(x, W, b, f"seeds{layer}")
        forwards.append(forward)
        x = forward[0]
    N = (T - 1) * 2 * B  # predictions per seed
    top = x[:-1].reshape(T - 1, S, 2 * B, H).transpose(1, 0, 2, 3).reshape(S, N, H).astype(np.float64)
    targets = np.stack([ids[1:], ids[::-1][1:]], axis=2).transpose(1, 0, 2, 3).reshape(S, N)
    logits = top @ np.swapaxes(W_out, 1, 2) + P["b_out"][:, None]  # (S, N, V)
    losses, dlogits = packed_cross_entropy_(logits, targets)  # ids checked above
    if not grads:
        return losses, {}
    g: Params = {"W_out": np.swapaxes(dlogits, 1, 2) @ top, "b_out": dlogits.sum(axis=1)}
    dhs = np.zeros((T, D, B, H), dtype)
    dhs[:-1] = (dlogits @ W_out).reshape(S, T - 1, 2 * B, H).transpose(1, 0, 2, 3).reshape(T - 1, D, B, H)
    for layer in reversed(range(n_layers)):
        dW, db, dhs = _lstm_layer_backward(forwards[layer], dhs)
        dW, db = dW.reshape(S, 2, *dW.shape[1:]).astype(np.float64), db.reshape(S, 2, -1).astype(np.float64)
        g[f"fwd{layer}.W"], g[f"bwd{layer}.W"] = dW[:, 0], dW[:, 1]
        g[f"fwd{layer}.b"], g[f"bwd{layer}.b"] = db[:, 0], db[:, 1]
    gE = np.zeros_like(E)
    np.add.at(gE, (seed_ix, orders), dhs.reshape(T, S, 2, B, -1).astype(np.float64))
    g["E"] = gE
    return losses, g
