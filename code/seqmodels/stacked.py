r"""Many seeds of one recurrent classifier trained as a single stacked model.

An experiment that needs ten seeds per arm would train ten small models one after another, and a
Python loop over time steps dominates each. Here the ``S`` models' weights are stacked along a
new leading axis and run side by side: one time step of all of them is one batched matrix product,
``(S, batch, d_hidden) @ (S, d_hidden, k d_hidden)``, so the loop over time is paid once. The
models share nothing but the data: each has its own initial weights (drawn exactly as
:func:`seqmodels.train.init_classifier` draws them for its seed), its own gradient, its own
clipping and its own early stop; Adam works entry by entry, so one Adam over the stack is ``S``
independent Adams.

Shapes: inputs ``xs`` are ``(T, batch, d_in)``, shared by every model; states are
``(T, S, batch, d_hidden)``; a stacked weight is ``(S, out, in)``, row blocks as in
:mod:`seqmodels.rnn`, :mod:`seqmodels.lstm` and :mod:`seqmodels.gru`.

- :class:`Arm`: one configuration (cell kind, width, initial bias or radius) of an experiment.
- :func:`init_stack`, :func:`stack_loss_and_grads`: the stacked classifier and its gradient.
- :func:`train_arms`: every arm from every seed on the same batches; models of the same kind and
  width are trained as one stack.
- :func:`unstack`: one model of a stack as the parameter dict of :func:`seqmodels.train.predict`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from ._checks import as_float_array, finite_float, one_of, positive_int
from .numeric import sigmoid_unchecked, workspace
from .optim import Adam
from .train import Recurrence, TrainConfig, gru_cell, init_classifier, lstm_cell, rnn_cell

Params = dict[str, np.ndarray]
KINDS = ("rnn", "lstm", "gru")
_BLOCKS = {"rnn": 1, "lstm": 4, "gru": 3}


@dataclass(frozen=True)
class Arm:
    """One arm of an experiment: a cell kind, its width and the one initial setting that differs.

    ``option`` is the spectral radius of ``W_h`` for ``"rnn"``, the forget bias for ``"lstm"`` and
    the update-gate bias for ``"gru"``.

    Raises
    ------
    KeyError
        an unknown ``kind``.
    ValueError
        ``d_hidden`` not an integer >= 1, or ``option`` not finite.
    """

    name: str
    kind: str
    d_hidden: int = 16
    option: float = 1.0

    def __post_init__(self):
        one_of("kind", self.kind, KINDS)
        positive_int("d_hidden", self.d_hidden)
        finite_float("option", self.option)

    def cell(self) -> Recurrence:
        """The single-model :class:`seqmodels.train.Recurrence` this arm stacks."""
        return {"rnn": rnn_cell, "lstm": lstm_cell, "gru": gru_cell}[self.kind](self.option)

    def n_params(self, d_in: int, n_classes: int) -> int:
        """Trained numbers of one model: the recurrent layer and the linear read-out.

        Raises ``ValueError`` unless ``d_in`` and ``n_classes`` are integers >= 1.

        >>> Arm("LSTM", "lstm").n_params(9, 4), Arm("RNN", "rnn").n_params(9, 4)
        (1732, 484)
        """
        d_in, n_classes = positive_int("d_in", d_in), positive_int("n_classes", n_classes)
        H, k = self.d_hidden, _BLOCKS[self.kind]
        return k * H * (d_in + H) + k * H + n_classes * H + n_classes


def init_stack(arm: Arm, d_in: int, n_classes: int, seeds) -> Params:
    """The models of ``arm`` for every seed, stacked: each entry has a leading axis of ``len(seeds)``.

    Model ``k`` starts from exactly the weights :func:`seqmodels.train.init_classifier` draws from
    ``np.random.default_rng([seeds[k], 0])``, the draw :func:`seqmodels.train.train_classifier`
    begins from.

    Raises
    ------
    ValueError
        ``seeds`` empty, or sizes that are not integers >= 1.
    """
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("seeds must hold at least one seed, got none")
    d_in, n_classes = positive_int("d_in", d_in), positive_int("n_classes", n_classes)
    cell = arm.cell()
    models = [init_classifier(cell, d_in, n_classes, arm.d_hidden, np.random.default_rng([s, 0])) for s in seeds]
    return {k: np.stack([m[k] for m in models]) for k in models[0]}


def unstack(params: Params, k: int) -> Params:
    """Model ``k`` of a stack, in the layout of :func:`seqmodels.train.predict` (copies).

    Raises ``ValueError`` unless ``k`` is an integer index into the stack's leading axis.
    """
    n = len(next(iter(params.values()))) if params else 0
    k = positive_int("k", k, minimum=0)
    if k >= n:
        raise ValueError(f"k must be < {n}, the number of stacked models, got {k}")
    return {name: np.array(v[k]) for name, v in params.items()}


def _sig(a):
    return sigmoid_unchecked(a)


def _tanh(a):
    return 2.0 * _sig(2.0 * a) - 1.0


# --- Workspace ------------------------------------------------------------------------------------
# The loops below write every intermediate into preallocated arrays (``out=``) instead of letting
# numpy allocate a fresh one per operation. The arithmetic is the same operation for operation, so
# the results are bit for bit those of the allocating expressions; what changes is the cost: a
# fresh array of a few hundred kilobytes is new memory the system must map on first touch, which on
# the machines measured cost 10-20 times the arithmetic itself.
_ws = workspace(512 * 2 ** 20)  #: reusable scratch arrays of this module (numeric.workspace)


def _sig_(a):
    """``a = sigmoid_unchecked(a)`` in place, the same operations in the same order."""
    np.negative(a, out=a)
    np.minimum(a, 80.0, out=a)
    np.exp(a, out=a)
    np.add(a, 1.0, out=a)  # 1.0 + e: addition commutes exactly
    np.divide(1.0, a, out=a)
    return a


def _tanh_into(c, out):
    """``out = _tanh(c)`` (``2 sigmoid(2c) - 1``) without allocating."""
    np.multiply(c, 2.0, out=out)
    _sig_(out)
    np.multiply(out, 2.0, out=out)
    np.subtract(out, 1.0, out=out)
    return out


def _project(xs, W_x, b, tag="p"):
    """``xs @ W_x[s].T + b[s]`` for every model: one matrix product, shape (T, S, B, k)."""
    T, B, d_in = xs.shape
    S, k, _ = W_x.shape
    flat = np.matmul(xs.reshape(T * B, d_in), W_x.transpose(2, 0, 1).reshape(d_in, S * k),
                     out=_ws(tag + "flat", (T * B, S * k), xs.dtype))  # (T B, S k)
    np.add(flat, b.reshape(S * k), out=flat)  # the same sum, in the product's own (contiguous) layout
    # a strided view, not a transposed copy: each step reads its (S, B, k) slice of it once
    return flat.reshape(T, B, S, k).transpose(0, 2, 1, 3)


def _outer_x(das, xs):
    """``sum_t,b das[t, s, b]^T xs[t, b]`` for every model, shape (S, k, d_in)."""
    T, S, B, k = das.shape
    tr = _ws("ox", (S, k, T, B), das.dtype)
    np.copyto(tr, das.transpose(1, 3, 0, 2))
    return (tr.reshape(S * k, T * B) @ xs.reshape(T * B, -1)).reshape(S, k, -1)


def _outer_h(das, h_prevs):
    """``sum_t,b das[t, s, b]^T h_prevs[t, s, b]`` for every model, shape (S, k, H)."""
    T, S, B, k = das.shape
    tr = _ws("oh_d", (S, k, T, B), das.dtype)
    np.copyto(tr, das.transpose(1, 3, 0, 2))
    hp = _ws("oh_h", (S, T, B, h_prevs.shape[-1]), h_prevs.dtype)
    np.copyto(hp, h_prevs.transpose(1, 0, 2, 3))
    return tr.reshape(S, k, T * B) @ hp.reshape(S, T * B, -1)


def _forward(kind: str, p: Params, xs: np.ndarray):
    """States (T, S, B, H) and what the backward pass needs (workspace arrays: use, don't keep)."""
    T, B, d_in = xs.shape
    dt = xs.dtype
    if kind == "rnn":
        pre = _project(xs, p["W_x"], p["b"])  # (T, S, B, H)
        W_hT = np.swapaxes(p["W_h"], 1, 2)  # (S, H, H)
        S, H = pre.shape[1], pre.shape[-1]
        hs, h = _ws("rnn_hs", pre.shape, dt), np.zeros((S, B, H), dt)
        hw = _ws("rnn_hw", (S, B, H), dt)
        for t in range(T):
            np.matmul(h, W_hT, out=hw)
            h = hs[t]
            np.add(pre[t], hw, out=h)
            _tanh_into(h, h)
        return hs, None
    W, b = p["W"], p["b"]
    S, kH = b.shape
    H = kH // _BLOCKS[kind]
    hs, h = _ws(kind + "_hs", (T, S, B, H), dt), np.zeros((S, B, H), dt)
    if kind == "lstm":
        # sigmoid gates and the tanh candidate from one exp: tanh(a) = 2 sigmoid(2a) - 1
        scale = np.repeat([1.0, 1.0, 2.0, 1.0], H).astype(dt)
        pre = _project(xs, W[:, :, :d_in] * scale[:, None], b * scale)  # (T, S, B, 4H)
        W_hT = np.swapaxes(W[:, :, d_in:] * scale[:, None], 1, 2)  # (S, H, 4H)
        acts, cs, tcs = (_ws(n, shape, dt) for n, shape in
                         (("lstm_acts", (T, S, B, kH)), ("lstm_cs", (T, S, B, H)), ("lstm_tcs", (T, S, B, H))))
        c = np.zeros((S, B, H), dt)
        hw, tmp = _ws("lstm_hw", (S, B, kH), dt), _ws("lstm_tmp", (S, B, H), dt)
        for t in range(T):
            a = acts[t]
            np.matmul(h, W_hT, out=hw)
            np.add(pre[t], hw, out=a)
            _sig_(a)
            g = a[..., 2 * H:3 * H]
            np.multiply(g, 2.0, out=g)
            np.subtract(g, 1.0, out=g)
            c_new = cs[t]
            np.multiply(a[..., :H], c, out=c_new)
            np.multiply(a[..., H:2 * H], g, out=tmp)
            np.add(c_new, tmp, out=c_new)
            c = c_new
            _tanh_into(c, tcs[t])
            h = hs[t]
            np.multiply(a[..., 3 * H:], tcs[t], out=h)
        return hs, (acts, cs, tcs)
    pre = _project(xs, W[:, :, :d_in], b)  # (T, S, B, 3H)
    W_hT = np.swapaxes(W[:, :, d_in:], 1, 2)  # (S, H, 3H)
    acts = _ws("gru_acts", (T, S, B, kH), dt)  # r, z, n
    hw, rh, tmp = _ws("gru_hw", (S, B, 2 * H), dt), _ws("gru_rh", (S, B, H), dt), _ws("gru_tmp", (S, B, H), dt)
    for t in range(T):
        # the nonlinearities run on contiguous buffers, as in the allocating expressions
        rz = acts[t, ..., :2 * H]
        np.matmul(h, W_hT[..., :2 * H], out=hw)
        np.add(pre[t, ..., :2 * H], hw, out=hw)
        rz[...] = _sig_(hw)
        np.multiply(rz[..., :H], h, out=rh)
        n = acts[t, ..., 2 * H:]
        np.matmul(rh, W_hT[..., 2 * H:], out=tmp)
        np.add(pre[t, ..., 2 * H:], tmp, out=tmp)
        n[...] = _tanh_into(tmp, tmp)
        h_new = hs[t]
        np.multiply(rz[..., H:], h, out=h_new)
        np.subtract(1.0, rz[..., H:], out=tmp)
        np.multiply(tmp, n, out=tmp)
        np.add(h_new, tmp, out=h_new)
        h = h_new
    return hs, acts


def _h_prevs(hs):
    """``[0, hs[0], ..., hs[T-2]]`` (T, S, B, H) in the workspace."""
    out = _ws("h_prevs", hs.shape, hs.dtype)
    out[0] = 0.0
    out[1:] = hs[:-1]
    return out


def _backward(kind: str, p: Params, xs: np.ndarray, hs: np.ndarray, cache, dh_last: np.ndarray) -> Params:
    """Gradients of ``sum(hs[-1] * dh_last)`` for the recurrent weights (the head is separate)."""
    T, B, d_in = xs.shape
    S, _, H = hs.shape[1:]
    dt = xs.dtype
    kH = _BLOCKS[kind] * H
    h_prevs = _h_prevs(hs)
    if kind == "rnn":
        W_h = p["W_h"]
        das = _ws("rnn_das", hs.shape, dt)
        tmp = _ws("rnn_btmp", (S, B, H), dt)
        dh = dh_last
        for t in reversed(range(T)):
            da = das[t]
            np.square(hs[t], out=tmp)
            np.subtract(1.0, tmp, out=tmp)
            np.multiply(dh, tmp, out=da)
            dh = da @ W_h
        return {"W_h": _outer_h(das, h_prevs), "W_x": _outer_x(das, xs), "b": das.sum(axis=(0, 2))}
    W = p["W"]
    W_h = W[:, :, d_in:]  # (S, kH, H)
    if kind == "lstm":
        acts, cs, tc = cache
        f, i, g, o = (acts[..., k * H:(k + 1) * H] for k in range(4))
        c_prevs = _ws("lstm_cprev", cs.shape, dt)
        c_prevs[0] = 0.0
        c_prevs[1:] = cs[:-1]
        # local derivatives of every step at once; the loop only carries dh and dc back
        dc_from_h = _ws("lstm_dcfh", cs.shape, dt)
        np.square(tc, out=dc_from_h)
        np.subtract(1.0, dc_from_h, out=dc_from_h)
        np.multiply(o, dc_from_h, out=dc_from_h)
        # dz blocks per unit of dc (f, i, g) and of dh (o), each as in the expressions
        #   c_prev * f * (1 - f),  g * i * (1 - i),  i * (1 - g ** 2),  tc * o * (1 - o)
        # computed over the whole width 4H at once (contiguous) and patched in the g block.
        local = _ws("lstm_local", acts.shape, dt)  # (T, S, B, 4H): first factors, then the product
        one_minus = _ws("lstm_1m", acts.shape, dt)  # (1 - gate), and (1 - g ** 2) in the g block
        local[..., :H] = c_prevs
        local[..., H:2 * H] = g
        local[..., 3 * H:] = tc
        np.multiply(local, acts, out=local)
        local[..., 2 * H:3 * H] = i
        np.subtract(1.0, acts, out=one_minus)
        gm = one_minus[..., 2 * H:3 * H]
        np.square(g, out=gm)
        np.subtract(1.0, gm, out=gm)
        np.multiply(local, one_minus, out=local)
        local = local.reshape(T, S, B, 4, H)
        f = _ws("lstm_f", cs.shape, dt)
        np.copyto(f, acts[..., :H])
        das = _ws("lstm_das", (T, S, B, 4, H), dt)
        dh, dc = dh_last, np.zeros((S, B, H), dt)
        tmp, dh_buf = _ws("lstm_btmp", (S, B, H), dt), _ws("lstm_dh", (S, B, H), dt)
        for t in reversed(range(T)):
            np.multiply(dh, dc_from_h[t], out=tmp)
            np.add(dc, tmp, out=dc)
            np.multiply(dc[:, :, None], local[t, :, :, :3], out=das[t, :, :, :3])
            np.multiply(dh, local[t, :, :, 3], out=das[t, :, :, 3])
            dh = np.matmul(das[t].reshape(S, B, kH), W_h, out=dh_buf)
            np.multiply(dc, f[t], out=dc)
        das = das.reshape(T, S, B, kH)
        dW_h = _outer_h(das, h_prevs)
    else:
        r, z, n = (cache[..., k * H:(k + 1) * H] for k in range(3))
        das = _ws("gru_das", cache.shape, dt)
        dh = dh_last
        for t in reversed(range(T)):
            da_n = das[t, ..., 2 * H:] = dh * (1.0 - z[t]) * (1.0 - n[t] ** 2)
            das[t, ..., H:2 * H] = dh * (h_prevs[t] - n[t]) * z[t] * (1.0 - z[t])
            drh = da_n @ W_h[:, 2 * H:]
            das[t, ..., :H] = drh * h_prevs[t] * r[t] * (1.0 - r[t])
            dh = dh * z[t] + drh * r[t] + das[t, ..., :2 * H] @ W_h[:, :2 * H]
        rh = _ws("gru_rhp", h_prevs.shape, dt)
        np.multiply(r, h_prevs, out=rh)
        dW_h = np.concatenate([_outer_h(das[..., :2 * H], h_prevs), _outer_h(das[..., 2 * H:], rh)], axis=1)
    return {"W": np.concatenate([_outer_x(das, xs), dW_h], axis=2), "b": das.sum(axis=(0, 2))}


def _check_stack(kind, params, xs):
    one_of("kind", kind, KINDS)
    for key in ("W_h", "W_x", "b") if kind == "rnn" else ("W", "b"):
        if key not in params:
            raise KeyError(f"params has no entry {key!r} for a stacked {kind}")
    for key in ("W_out", "b_out"):
        if key not in params:
            raise KeyError(f"params has no entry {key!r} (the read-out)")
    xs = as_float_array("xs", xs, ndims=(3,))
    if xs.shape[0] == 0 or xs.shape[1] == 0:
        raise ValueError(f"xs must have shape (T, batch, d_in) with T, batch >= 1, got {xs.shape}")
    d_in = params["W_x"].shape[2] if kind == "rnn" else params["W"].shape[2] - params["W_out"].shape[2]
    if xs.shape[2] != d_in:
        raise ValueError(f"xs must have shape (T, batch, d_in) = (T, batch, {d_in}), got {xs.shape}")
    return xs


def stack_logits(kind: str, params: Params, xs) -> np.ndarray:
    """Logits of every model on the final state, shape (S, batch, n_classes).

    Raises
    ------
    KeyError
        an unknown ``kind`` or a missing parameter.
    ValueError
        ``xs`` not (T, batch, d_in) with the stack's ``d_in``, or not finite.
    """
    xs = _check_stack(kind, params, xs)
    hs, _ = _forward(kind, params, xs)
    return hs[-1] @ np.swapaxes(params["W_out"], 1, 2) + params["b_out"][:, None]  # (S, B, C)


def stack_loss_and_grads(kind: str, params: Params, xs, labels) -> tuple[np.ndarray, Params]:
    """Each model's mean cross-entropy on ``(xs, labels)`` and its gradient, for all models at once.

    Returns
    -------
    losses : ndarray of shape (S,)
    grads : dict with the keys of ``params``; ``grads[k][s]`` is model ``s``'s gradient of its own
        loss ``losses[s]`` (the models do not interact)

    Raises
    ------
    KeyError, ValueError
        as :func:`stack_logits`, and ``labels`` not integers in ``[0, n_classes)`` of shape (batch,).
    """
    xs = _check_stack(kind, params, xs)
    labels = np.asarray(labels)
    C = params["W_out"].shape[1]
    if labels.dtype.kind not in "iu" or labels.shape != (xs.shape[1],) or labels.min() < 0 or labels.max() >= C:
        raise ValueError(f"labels must be integers in [0, {C}) of shape (batch,) = ({xs.shape[1]},), "
                         f"got dtype {labels.dtype}, shape {labels.shape}")
    hs, cache = _forward(kind, params, xs)
    B = xs.shape[1]
    logits = hs[-1] @ np.swapaxes(params["W_out"], 1, 2) + params["b_out"][:, None]  # (S, B, C)
    logits = logits - logits.max(axis=-1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))  # (S, B, C)
    losses = -logp[:, np.arange(B), labels].mean(axis=1)
    dlogits = np.exp(logp)
    dlogits[:, np.arange(B), labels] -= 1.0
    dlogits /= B
    grads = _backward(kind, params, xs, hs, cache, dlogits @ params["W_out"])  # (S, B, H)
    grads["W_out"] = np.swapaxes(dlogits, 1, 2) @ hs[-1]  # (S, C, H)
    grads["b_out"] = dlogits.sum(axis=1)
    return losses, grads


@dataclass
class StackRun:
    """What :func:`train_arms` trained for one arm."""

    arm: Arm
    seeds: tuple[int, ...]
    params: Params  #: stacked final weights, leading axis = seeds
    losses: np.ndarray  #: (steps, S) training loss of each batch (NaN after a model stopped)
    steps_taken: np.ndarray  #: (S,) updates each model made before its early stop (or the budget)
    checkpoint_accuracy: dict  #: step count -> (S,) test accuracy after that many steps


def train_arms(arms, sample, d_in: int, n_classes: int, seeds, config: TrainConfig = TrainConfig(),
               data_seed: int = 0, dtype=np.float64, test=None, checkpoints=()) -> dict[str, StackRun]:
    """Train every arm from every seed with one budget, on one stream of batches.

    Arms of the same kind and width are stacked with their seeds into one model, so one Python loop
    over time serves ``len(arms) * len(seeds)`` models. Every model sees the same batches, drawn by
    ``sample(rng, config.batch)`` from ``np.random.default_rng([data_seed, 1])``: the arms differ
    only in their cells and initial weights. Each model's gradient is clipped to ``config.clip`` by
    its own norm, and a model stops (its weights are frozen) once the mean loss of its last 10
    batches is below ``config.stop_loss``, as in :func:`seqmodels.train.train_classifier`.
    ``config.d_hidden`` and ``config.seed`` are ignored: the widths are the arms', the seeds ``seeds``.
    Models that have stopped are left out of the computation. ``dtype=np.float32`` halves the cost
    of the arithmetic (the initial weights are the same draws, rounded). With ``test = (xs, labels)``
    every model's test accuracy is also recorded after each step count in ``checkpoints`` (a
    stopped model keeps its final accuracy), so one run answers several training budgets.

    Returns
    -------
    dict from arm name to :class:`StackRun`

    Raises
    ------
    ValueError
        no arms, two arms with one name, no seeds, or a bad size.

    >>> from seqmodels.delay import DelayTask
    >>> task = DelayTask()
    >>> runs = train_arms([Arm("LSTM", "lstm", 8, 3.0)], lambda rng, n: task.sample(rng, n, 2),
    ...                   task.d_in, task.n_symbols, seeds=(0, 1), config=TrainConfig(steps=5))
    >>> runs["LSTM"].params["W"].shape, runs["LSTM"].losses.shape
    ((2, 32, 17), (5, 2))
    """
    arms = list(arms)
    seeds = tuple(int(s) for s in seeds)
    if not arms:
        raise ValueError("arms must hold at least one Arm, got none")
    if len({a.name for a in arms}) != len(arms):
        raise ValueError(f"arms must have distinct names, got {[a.name for a in arms]}")
    if not seeds:
        raise ValueError("seeds must hold at least one seed, got none")
    groups: dict[tuple[str, int], list[Arm]] = {}
    for arm in arms:
        groups.setdefault((arm.kind, arm.d_hidden), []).append(arm)
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}")
    stacks = {key: {k: np.concatenate([init_stack(a, d_in, n_classes, seeds)[k] for a in members]).astype(dtype)
                    for k in init_stack(members[0], d_in, n_classes, seeds[:1])}
              for key, members in groups.items()}
    opts = {key: Adam(lr=config.lr) for key in groups}
    n_models = {key: len(members) * len(seeds) for key, members in groups.items()}
    losses = {key: np.full((config.steps, n), np.nan) for key, n in n_models.items()}
    active = {key: np.ones(n, dtype=bool) for key, n in n_models.items()}
    taken = {key: np.full(n, config.steps) for key, n in n_models.items()}
    data_rng = np.random.default_rng([data_seed, 1])
    checkpoints = sorted({positive_int("checkpoints", c) for c in checkpoints})
    if checkpoints and test is None:
        raise ValueError("checkpoints need test = (xs, labels) to measure accuracy on")
    if checkpoints and checkpoints[-1] > config.steps:
        raise ValueError(f"checkpoints must be <= config.steps = {config.steps}, got {checkpoints[-1]}")
    at = {key: {} for key in groups}

    def record(after):
        for key, params in stacks.items():
            logits = stack_logits(key[0], params, np.asarray(test[0], dtype))
            at[key][after] = (logits.argmax(axis=-1) == np.asarray(test[1])).mean(axis=1)

    with threadpool_limits(limits=1, user_api="blas"):
        for step in range(config.steps):
            xs, labels = sample(data_rng, config.batch)
            if step in checkpoints:
                record(step)
            if not any(a.any() for a in active.values()):
                for c in checkpoints:  # every model has stopped: the later budgets change nothing
                    if c > step:
                        record(c)
                break
            for key, params in stacks.items():
                on = np.flatnonzero(active[key])  # models still training; stopped ones cost nothing
                if on.size == 0:
                    continue
                sub = {k: v[on] for k, v in params.items()}
                loss, g_sub = stack_loss_and_grads(key[0], sub, xs.astype(dtype), labels)
                losses[key][step, on] = loss
                norm = np.sqrt(sum((g.reshape(len(g), -1) ** 2).sum(axis=1) for g in g_sub.values()))  # (S_on,)
                scale = np.minimum(1.0, config.clip / np.maximum(norm, 1e-30))
                grads = {k: np.zeros_like(v) for k, v in params.items()}
                for k, g in g_sub.items():
                    grads[k][on] = g * scale.reshape((-1,) + (1,) * (g.ndim - 1))
                frozen = {k: v[~active[key]].copy() for k, v in params.items()}
                opts[key].step(params, grads)
                for k, v in params.items():
                    v[~active[key]] = frozen[k]
                if step >= 9 and config.stop_loss > 0:
                    recent = losses[key][step - 9:step + 1].mean(axis=0)  # NaN for stopped models
                    done = active[key] & (recent < config.stop_loss)
                    taken[key][done] = step + 1
                    active[key] &= ~done
        if config.steps in checkpoints:
            record(config.steps)
    out = {}
    for key, members in groups.items():
        S = len(seeds)
        for j, arm in enumerate(members):
            part = slice(j * S, (j + 1) * S)
            out[arm.name] = StackRun(arm, seeds, {k: v[part].copy() for k, v in stacks[key].items()},
                                     losses[key][:, part], taken[key][part],
                                     {c: a[part] for c, a in at[key].items()})
    return {arm.name: out[arm.name] for arm in arms}


def stack_accuracy(run: StackRun, xs, labels) -> np.ndarray:
    """(S,) fraction of ``labels`` each model of ``run`` gets right on ``xs`` (T, n, d_in).

    Raises
    ------
    ValueError
        ``labels`` not of shape (n,), or ``xs`` as in :func:`stack_logits`.
    """
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.shape[0] != np.shape(xs)[1]:
        raise ValueError(f"labels must have shape (n,) = ({np.shape(xs)[1]},), got {labels.shape}")
    with threadpool_limits(limits=1, user_api="blas"):
        xs = np.asarray(xs, dtype=run.params["b_out"].dtype)
        return (stack_logits(run.arm.kind, run.params, xs).argmax(axis=-1) == labels).mean(axis=1)
