r"""Training utilities shared by every recurrent model: one loop trains an RNN and an LSTM alike.

- :class:`Recurrence` describes a recurrent layer to the trainer (``init``, ``forward``,
  ``backward``); :data:`RNN` and :data:`LSTM` wrap :mod:`seqmodels.models.rnn` and :mod:`seqmodels.models.lstm`.
- :func:`classifier_head`: a linear read-out of the final state,
  ``logits = h_T @ W_out.T + b_out``, with the mean cross-entropy loss and its gradient.
- the optimiser and clipping come from :mod:`seqmodels.common.optim`, the loss from :mod:`seqmodels.common.numeric`.
- :func:`train_classifier`: the loop itself, on freshly sampled batches.

Parameters and gradients are plain ``dict[str, ndarray]`` with matching keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from threadpoolctl import threadpool_limits

from seqmodels.common._checks import as_float_array, as_ids, as_rng, check_shape, finite_float, positive_int
from seqmodels.common.numeric import softmax_cross_entropy
from seqmodels.common.optim import Adam, clip_grad_norm
from seqmodels.models.gru import gru_backward, gru_forward, init_gru
from seqmodels.models.lstm import init_lstm, lstm_backward, lstm_forward
from seqmodels.models.rnn import init_rnn, rnn_backward, rnn_forward

Params = dict[str, np.ndarray]


@dataclass(frozen=True)
class Recurrence:
    """A recurrent layer, as :func:`train_classifier` sees it. States start at zero.

    Attributes
    ----------
    name : str
    init : ``init(d_in, d_hidden, rng) -> Params``
    forward : ``forward(params, xs) -> hs``, ``xs`` of shape (T, batch, d_in), ``hs`` of shape
        (T, batch, d_hidden)
    backward : ``backward(params, xs, dhs) -> grads``: the gradients of ``sum(hs * dhs)`` for
        every key of ``params`` and for ``"xs"`` (the readable models' backward passes run the
        forward pass again)

    Raises
    ------
    ValueError
        ``init``, ``forward`` or ``backward`` not callable.
    """

    name: str
    init: Callable[[int, int, np.random.Generator], Params]
    forward: Callable[[Params, np.ndarray], np.ndarray]
    backward: Callable[[Params, np.ndarray, np.ndarray], Params]

    def __post_init__(self):
        for name in ("init", "forward", "backward"):
            if not callable(getattr(self, name)):
                raise ValueError(f"{name} must be callable, got {type(getattr(self, name)).__name__}")


def _check_cell(cell) -> None:
    if not isinstance(cell, Recurrence):
        raise ValueError(f"cell must be a Recurrence (RNN, LSTM, rnn_cell(), lstm_cell()), got {cell!r}")


def _check_xs(xs, name: str = "xs") -> np.ndarray:
    """A batch of sequences for a classifier: ``(T, batch, d_in)``, ``T, batch >= 1``, finite."""
    xs = as_float_array(name, xs, ndims=(3,))
    if 0 in xs.shape:
        raise ValueError(f"{name} must have shape (T, batch, d_in) with every size >= 1, got {xs.shape}")
    return xs


def _check_head(params) -> None:
    if not isinstance(params, dict):
        raise ValueError(f"params must be a dict of arrays, got {type(params).__name__}")
    for key in ("W_out", "b_out"):
        if key not in params:
            raise KeyError(f"params has no entry {key!r} (see init_classifier), got keys {sorted(params)}")


def _zeros(xs, params, key):
    return np.zeros(xs.shape[1:-1] + (np.shape(params[key])[0] // (4 if key == "W" else 1),))


def rnn_cell(spectral_radius: float = 1.0) -> Recurrence:
    """The vanilla RNN of :mod:`seqmodels.models.rnn`, ``W_h`` drawn at ``spectral_radius``
    (:func:`seqmodels.models.rnn.init_rnn`). Radius 1, the default, is the edge between vanishing and
    exploding gradients (see the RNN chapter).

    Raises
    ------
    ValueError
        ``spectral_radius`` not a finite number >= 0.
    """
    spectral_radius = finite_float("spectral_radius", spectral_radius, low=0)

    def init(d_in, d_hidden, rng):
        W_h, W_x, b = init_rnn(d_in, d_hidden, spectral_radius=spectral_radius, rng=rng)
        return {"W_h": W_h, "W_x": W_x, "b": b}

    def forward(p, xs):
        return rnn_forward(xs, _zeros(xs, p, "W_h"), p["W_h"], p["W_x"], p["b"])

    def backward(p, xs, dhs):
        g = rnn_backward(xs, _zeros(xs, p, "W_h"), p["W_h"], p["W_x"], p["b"], dhs)
        return {k: g[k] for k in ("W_h", "W_x", "b", "xs")}

    return Recurrence("RNN", init, forward, backward)


def lstm_cell(forget_bias: float = 1.0) -> Recurrence:
    """The LSTM of :mod:`seqmodels.models.lstm`, initialised by :func:`seqmodels.models.lstm.init_lstm` with
    ``forget_bias`` (1 is the common default; larger values start the cell with a longer memory).

    Raises
    ------
    ValueError
        ``forget_bias`` not finite.
    """
    forget_bias = finite_float("forget_bias", forget_bias)

    def init(d_in, d_hidden, rng):
        W, b = init_lstm(d_in, d_hidden, rng, forget_bias=forget_bias)
        return {"W": W, "b": b}

    def forward(p, xs):
        z = _zeros(xs, p, "W")
        return lstm_forward(xs, z, z, p["W"], p["b"])[0]

    def backward(p, xs, dhs):
        z = _zeros(xs, p, "W")
        g = lstm_backward(xs, z, z, p["W"], p["b"], dhs)
        return {k: g[k] for k in ("W", "b", "xs")}

    return Recurrence("LSTM", init, forward, backward)


def gru_cell(update_bias: float = 0.0) -> Recurrence:
    """The GRU of :mod:`seqmodels.models.gru`, initialised by :func:`seqmodels.models.gru.init_gru` with
    ``update_bias`` (0, the default, starts the update gate at one half).

    Raises
    ------
    ValueError
        ``update_bias`` not finite.
    """
    update_bias = finite_float("update_bias", update_bias)

    def init(d_in, d_hidden, rng):
        W, b = init_gru(d_in, d_hidden, rng, update_bias=update_bias)
        return {"W": W, "b": b}

    def forward(p, xs):
        return gru_forward(xs, np.zeros(xs.shape[1:-1] + (np.shape(p["W"])[0] // 3,)), p["W"], p["b"])

    def backward(p, xs, dhs):
        g = gru_backward(xs, np.zeros(xs.shape[1:-1] + (np.shape(p["W"])[0] // 3,)), p["W"], p["b"], dhs)
        return {k: g[k] for k in ("W", "b", "xs")}

    return Recurrence("GRU", init, forward, backward)


#: :func:`rnn_cell` at spectral radius 1.
RNN = rnn_cell(1.0)
#: :func:`lstm_cell` with forget bias 1.
LSTM = lstm_cell(1.0)


def classifier_head(h, W_out, b_out, labels) -> tuple[float, Params]:
    """A linear classifier on a state: ``logits = h @ W_out.T + b_out``, loss and gradients.

    Parameters
    ----------
    h : ndarray of shape (batch, d_hidden), usually the final state ``hs[-1]``
    W_out : ndarray of shape (n_classes, d_hidden)
    b_out : ndarray of shape (n_classes,)
    labels : integer ndarray of shape (batch,)

    Returns
    -------
    loss : float, the mean cross-entropy (:func:`~seqmodels.common.numeric.softmax_cross_entropy`)
    grads : dict with ``"W_out" = dlogits^T h``, ``"b_out" = sum_n dlogits``, ``"h" = dlogits W_out``

    Raises
    ------
    ValueError
        ``h`` not a finite 2-D array, ``W_out`` not finite ``(n_classes, d_hidden)`` with ``h``'s
        ``d_hidden``, ``b_out`` not finite ``(n_classes,)``, ``labels`` not one integer in
        ``[0, n_classes)`` per row of ``h``.

    >>> h = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> loss, g = classifier_head(h, np.eye(2), np.zeros(2), np.array([0, 1]))
    >>> round(loss, 4), g["h"].round(4)
    (0.3133, array([[-0.1345,  0.1345],
           [ 0.1345, -0.1345]]))
    """
    h = as_float_array("h", h, ndims=(2,))
    W_out = as_float_array("W_out", W_out, ndims=(2,))
    check_shape("W_out", W_out, (W_out.shape[0], h.shape[1]), "(n_classes, d_hidden)")
    b_out = as_float_array("b_out", b_out, ndims=(1,))
    check_shape("b_out", b_out, (W_out.shape[0],), "(n_classes,)")
    loss, dlogits = softmax_cross_entropy(h @ W_out.T + b_out, labels)  # (batch, n_classes)
    return loss, {"W_out": dlogits.T @ h, "b_out": dlogits.sum(axis=0), "h": dlogits @ W_out}


def predict(cell: Recurrence, params: Params, xs) -> np.ndarray:
    """Logits of the classifier on the final state, shape (batch, n_classes).

    ``params`` holds the recurrence's weights and ``"W_out"``, ``"b_out"``; ``xs`` has shape
    (T, batch, d_in).

    Raises
    ------
    ValueError
        ``cell`` not a :class:`Recurrence`, ``params`` not a dict, ``xs`` not a finite
        (T, batch, d_in) array with every size >= 1, or the cell's weights in ``params`` as its
        forward pass refuses them (``W_out``, ``b_out`` are not checked here).
    KeyError
        ``params`` without ``W_out``, ``b_out`` or one of the cell's weights.
    """
    _check_cell(cell)
    _check_head(params)
    hs = cell.forward(params, _check_xs(xs))
    return hs[-1] @ np.asarray(params["W_out"]).T + params["b_out"]


def loss_and_grads(cell: Recurrence, params: Params, xs, labels) -> tuple[float, Params]:
    """Cross-entropy of the classifier on the final state and the gradient for every parameter.

    The head gives ``dL/dh_T``; it enters BPTT as ``dhs`` that is zero except at the last step.
    The returned dict also holds ``"xs"``, the gradient with respect to every input.

    Raises
    ------
    ValueError
        ``cell``, ``params``, ``xs`` as :func:`predict` refuses them; ``W_out``, ``b_out``,
        ``labels`` as :func:`classifier_head` refuses them.
    KeyError
        as :func:`predict`.
    """
    _check_cell(cell)
    _check_head(params)
    xs = _check_xs(xs)
    hs = cell.forward(params, xs)  # (T, batch, d_hidden)
    loss, g_head = classifier_head(hs[-1], params["W_out"], params["b_out"], labels)
    dhs = np.zeros_like(hs)
    dhs[-1] = g_head["h"]
    grads = cell.backward(params, xs, dhs)
    grads["W_out"], grads["b_out"] = g_head["W_out"], g_head["b_out"]
    return loss, grads


@dataclass(frozen=True)
class TrainConfig:
    """How :func:`train_classifier` trains; the same config serves every cell, so budgets match.

    Raises
    ------
    ValueError
        ``d_hidden``, ``steps`` or ``batch`` not an integer >= 1; ``lr`` or ``clip`` not a finite
        number > 0; ``seed`` not an integer >= 0; ``stop_loss`` not a finite number.
    """

    d_hidden: int = 16  #: state size; small enough that a step costs well under a millisecond
    steps: int = 300  #: parameter updates, each on a fresh batch
    batch: int = 32  #: sequences per update
    lr: float = 1e-2  #: Adam step size
    clip: float = 1.0  #: maximum global gradient norm (Pascanu et al., 2013)
    seed: int = 0  #: seeds both the initial weights and the batches
    stop_loss: float = 0.0  #: stop early once the mean loss of the last 10 batches is below this

    def __post_init__(self):
        """Raises ``ValueError`` for a size that is not an integer >= 1, a learning rate or clip that
        is not a finite number > 0, a negative seed or a non-finite ``stop_loss``."""
        for name in ("d_hidden", "steps", "batch"):
            positive_int(name, getattr(self, name))
        finite_float("lr", self.lr, low=0, low_open=True)
        finite_float("clip", self.clip, low=0, low_open=True)
        positive_int("seed", self.seed, minimum=0)
        finite_float("stop_loss", self.stop_loss)


@dataclass
class Trained:
    """The result of :func:`train_classifier`."""

    cell: Recurrence
    params: Params
    losses: np.ndarray  #: (steps_taken,) training loss of each batch, before its update
    grad_norms: np.ndarray  #: (steps_taken,) global gradient norm before clipping


def init_classifier(cell: Recurrence, d_in: int, n_classes: int, d_hidden: int,
                    rng: np.random.Generator) -> Params:
    """The cell's weights plus a read-out ``W_out`` (entries ``N(0, 1 / d_hidden)``) and ``b_out = 0``.

    Raises
    ------
    ValueError
        ``cell`` not a :class:`Recurrence`, a size that is not an integer >= 1 (``n_classes >= 2``),
        or an ``rng`` that is neither a Generator nor a seed.
    """
    _check_cell(cell)
    d_in, d_hidden = positive_int("d_in", d_in), positive_int("d_hidden", d_hidden)
    n_classes = positive_int("n_classes", n_classes, minimum=2)
    rng = as_rng("rng", rng)
    params = cell.init(d_in, d_hidden, rng)
    params["W_out"] = rng.normal(scale=1.0 / np.sqrt(d_hidden), size=(n_classes, d_hidden))
    params["b_out"] = np.zeros(n_classes)
    return params


def train_classifier(cell: Recurrence, sample, d_in: int, n_classes: int,
                     config: TrainConfig = TrainConfig()) -> Trained:
    """Train ``cell`` plus a linear head on its final state with Adam and gradient clipping.

    Parameters
    ----------
    cell : :data:`RNN`, :data:`LSTM` or any :class:`Recurrence`
    sample : ``sample(rng, batch) -> (xs, labels)`` with ``xs`` of shape (T, batch, d_in) and
        integer ``labels`` of shape (batch,); called once per step, so the model never sees the
        same batch twice
    d_in, n_classes : int
    config : :class:`TrainConfig`; training stops after ``config.steps`` updates, or earlier once
        the mean loss of the last 10 batches is below ``config.stop_loss``

    Raises
    ------
    ValueError
        as :func:`init_classifier`; ``sample`` not callable or returning arrays of the wrong shape
        (the message names ``sample``); ``config`` not a :class:`TrainConfig`.

    Matrix products run on one BLAS thread: the matrices are small, and a fixed thread count gives
    the same floating-point sums, so the same seed trains the same weights on every run.

    >>> def sample(rng, n):  # label = sign of the first input
    ...     xs = rng.normal(size=(3, n, 1))
    ...     return xs, (xs[0, :, 0] > 0).astype(int)
    >>> run = train_classifier(LSTM, sample, d_in=1, n_classes=2, config=TrainConfig(steps=60))
    >>> bool(run.losses[-10:].mean() < 0.5 * run.losses[:10].mean())
    True
    """
    if not callable(sample):
        raise ValueError(f"sample must be callable as sample(rng, batch), got {type(sample).__name__}")
    if not isinstance(config, TrainConfig):
        raise ValueError(f"config must be a TrainConfig, got {type(config).__name__}")
    rng = np.random.default_rng([config.seed, 0])
    data_rng = np.random.default_rng([config.seed, 1])
    params = init_classifier(cell, d_in, n_classes, config.d_hidden, rng)
    opt = Adam(lr=config.lr)
    losses, norms = np.empty(config.steps), np.empty(config.steps)
    with threadpool_limits(limits=1, user_api="blas"):  # small matrices; same sums on every machine
        for step in range(config.steps):
            xs, labels = _check_sample(sample(data_rng, config.batch), config.batch, d_in, n_classes)
            losses[step], grads = loss_and_grads(cell, params, xs, labels)
            grads, norms[step] = clip_grad_norm({k: grads[k] for k in params}, config.clip)
            opt.step(params, grads)
            if step >= 9 and losses[step - 9:step + 1].mean() < config.stop_loss:
                losses, norms = losses[:step + 1], norms[:step + 1]
                break
    return Trained(cell, params, losses, norms)


def _check_sample(drawn, batch: int, d_in: int, n_classes: int):
    """What ``sample(rng, batch)`` returned, checked once per step (names ``sample`` on failure)."""
    if not isinstance(drawn, tuple) or len(drawn) != 2:
        raise ValueError(f"sample must return a pair (xs, labels), got {type(drawn).__name__}")
    xs = _check_xs(drawn[0], "xs returned by sample")
    if xs.shape[1:] != (batch, d_in):
        raise ValueError(f"xs returned by sample must have shape (T, batch, d_in) = (T, {batch}, {d_in}), got {xs.shape}")
    labels = as_ids("labels returned by sample", drawn[1], n_classes, what="class labels")
    check_shape("labels returned by sample", labels, (batch,), "(batch,)")
    return xs, labels


def accuracy(cell: Recurrence, params: Params, xs, labels) -> float:
    """Fraction of sequences whose largest logit is the label.

    Raises
    ------
    ValueError
        ``xs`` not ``(T, batch, d_in)`` with every size >= 1, or ``labels`` not integers of shape
        ``(batch,)`` in ``[0, n_classes)``.
    KeyError
        ``params`` without ``W_out`` or ``b_out``.
    """
    logits = predict(cell, params, xs)  # (batch, n_classes)
    labels = as_ids("labels", labels, logits.shape[1], what="class labels")
    check_shape("labels", labels, logits.shape[:1], "(batch,)")
    return float(np.mean(logits.argmax(axis=1) == labels))


def input_sensitivity(cell: Recurrence, params: Params, xs) -> np.ndarray:
    """How strongly the final state depends on each input: ``||dh_T / dx_t||_F`` for every step.

    The Jacobian of the final state ``h_T`` (``d_hidden`` entries) with respect to the input
    ``x_t`` (``d_in`` entries) is built row by row: one backward pass with ``dhs[-1] = e_j`` per
    unit ``j``, all run at once as one batch of ``batch * d_hidden`` copies of the sequences. Its
    Frobenius norm is averaged over the sequences in log space (a geometric mean, because the norms
    span orders of magnitude).

    Parameters
    ----------
    xs : ndarray of shape (T, batch, d_in)

    Returns
    -------
    ndarray of shape (T,); entry ``t`` belongs to distance ``T - 1 - t`` from the final step.

    Raises
    ------
    ValueError
        ``cell`` not a :class:`Recurrence`, ``xs`` not a finite (T, batch, d_in) array with every
        size >= 1, or the cell's weights in ``params`` as its forward pass refuses them.
    KeyError
        ``params`` without one of the cell's weights.

    >>> rng = np.random.default_rng(0)
    >>> params = RNN.init(2, 3, rng)
    >>> input_sensitivity(RNN, params, rng.normal(size=(4, 5, 2))).shape
    (4,)
    """
    _check_cell(cell)
    xs = _check_xs(xs)
    T, n, d_in = xs.shape
    H = cell.forward(params, xs[:1, :1]).shape[-1]
    dhs = np.zeros((T, n * H, H))
    dhs[-1] = np.tile(np.eye(H), (n, 1))  # copy j of sequence k asks for row j of its Jacobian
    with threadpool_limits(limits=1, user_api="blas"):
        dxs = cell.backward(params, np.repeat(xs, H, axis=1), dhs)["xs"]  # (T, n * H, d_in)
    norms = np.linalg.norm(dxs.reshape(T, n, H * d_in), axis=-1)  # (T, n)
    return np.exp(np.log(norms).mean(axis=1))
