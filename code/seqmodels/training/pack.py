r"""A pack: many seeds of one recurrent classifier side by side on a leading model axis, trained as one.

An experiment that needs ten seeds per arm would train ten small models one after another, and a
Python loop over time steps dominates each. Here the ``S`` models' weights are packed along a
new leading axis and run side by side: one time step of all of them is one batched matrix product,
``(S, batch, d_hidden) @ (S, d_hidden, k d_hidden)``, so the loop over time is paid once. The
models share nothing but the data: each has its own initial weights (drawn exactly as
:func:`seqmodels.training.train.init_classifier` draws them for its seed), its own gradient, its own
clipping and its own early stop; Adam works entry by entry, so one Adam over the pack is ``S``
independent Adams.

Shapes: inputs ``xs`` are ``(T, batch, d_in)``, shared by every model; logits are
``(S, batch, n_classes)``; a packed weight is ``(S, out, in)``, row blocks as in
:mod:`seqmodels.models.rnn`, :mod:`seqmodels.models.lstm` and :mod:`seqmodels.models.gru`. The cells run in the batched
kernel :mod:`seqmodels.kernels.recurrent`; this module adds the read-out, the loss and the training loop.

- :class:`Arm`: one configuration (cell kind, width, initial bias or radius) of an experiment.
- :func:`init_pack`, :func:`pack_loss_and_grads`: the packed classifier and its gradient.
- :func:`train_arms`: every arm from every seed on the same batches; models of the same kind and
  width are trained as one pack.
- :func:`unpack`: one model of a pack as the parameter dict of :func:`seqmodels.training.train.predict`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from seqmodels.common._checks import as_float_array, finite_float, one_of, positive_int
from seqmodels.kernels import recurrent
from seqmodels.common.numeric import packed_cross_entropy_
from seqmodels.common.optim import Adam
from seqmodels.training.train import Recurrence, TrainConfig, gru_cell, init_classifier, lstm_cell, rnn_cell

Params = dict[str, np.ndarray]
KINDS = recurrent.KINDS


@dataclass(frozen=True)
class Arm:
    """One arm of an experiment: a cell kind, its width and the one initial setting that differs.

    ``option`` is the spectral radius of ``W_h`` for ``"rnn"``, the forget bias for ``"lstm"`` and
    the update-gate bias for ``"gru"``.

    Raises
    ------
    ValueError
        ``kind`` not ``"rnn"``, ``"lstm"`` or ``"gru"``, ``d_hidden`` not an integer >= 1, or
        ``option`` not finite.
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
        """The single-model :class:`seqmodels.training.train.Recurrence` this arm packs."""
        return {"rnn": rnn_cell, "lstm": lstm_cell, "gru": gru_cell}[self.kind](self.option)

    def n_params(self, d_in: int, n_classes: int) -> int:
        """Trained numbers of one model: the recurrent layer and the linear read-out.

        Raises ``ValueError`` unless ``d_in`` and ``n_classes`` are integers >= 1.

        >>> Arm("LSTM", "lstm").n_params(9, 4), Arm("RNN", "rnn").n_params(9, 4)
        (1732, 484)
        """
        d_in, n_classes = positive_int("d_in", d_in), positive_int("n_classes", n_classes)
        H, k = self.d_hidden, recurrent.BLOCKS[self.kind]
        return k * H * (d_in + H) + k * H + n_classes * H + n_classes


def init_pack(arm: Arm, d_in: int, n_classes: int, seeds) -> Params:
    """The models of ``arm`` for every seed, packed: each entry has a leading axis of ``len(seeds)``.

    Model ``k`` starts from exactly the weights :func:`seqmodels.training.train.init_classifier` draws from
    ``np.random.default_rng([seeds[k], 0])``, the draw :func:`seqmodels.training.train.train_classifier`
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


def unpack(params: Params, k: int) -> Params:
    """Model ``k`` of a pack, in the layout of :func:`seqmodels.training.train.predict` (copies).

    Raises ``ValueError`` unless ``k`` is an integer index into the pack's leading axis.
    """
    n = len(next(iter(params.values()))) if params else 0
    k = positive_int("k", k, minimum=0)
    if k >= n:
        raise ValueError(f"k must be < {n}, the number of packed models, got {k}")
    return {name: np.array(v[k]) for name, v in params.items()}


def _cell_weights(kind: str, p: Params) -> np.ndarray:
    """The recurrent weights in the kernel's layout (:mod:`seqmodels.kernels.recurrent`): ``[W_x | W_h]``
    for the RNN, ``W`` as it is for the gated cells."""
    return np.concatenate([p["W_x"], p["W_h"]], axis=2) if kind == "rnn" else p["W"]


def _cell_grads(kind: str, g: Params, d_in: int) -> Params:
    """The kernel's gradients in the keys of this module's parameters."""
    if kind == "rnn":
        return {"W_x": g["W"][:, :, :d_in], "W_h": g["W"][:, :, d_in:], "b": g["b"]}
    return {"W": g["W"], "b": g["b"]}


def _check_pack(kind, params, xs):
    one_of("kind", kind, KINDS)
    for key in ("W_h", "W_x", "b") if kind == "rnn" else ("W", "b"):
        if key not in params:
            raise KeyError(f"params has no entry {key!r} for a packed {kind}")
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


def pack_logits(kind: str, params: Params, xs) -> np.ndarray:
    """Logits of every model on the final state, shape (S, batch, n_classes).

    Raises
    ------
    ValueError
        ``kind`` not ``"rnn"``, ``"lstm"`` or ``"gru"``; ``xs`` not (T, batch, d_in) with the
        pack's ``d_in``, or not finite; the cell's weights of the wrong shape or not finite (as
        :func:`seqmodels.kernels.recurrent.forward` refuses them; the read-out is not checked).
    KeyError
        a parameter missing from ``params``.
    """
    xs = _check_pack(kind, params, xs).astype(params["b"].dtype, copy=False)
    h = recurrent.forward(kind, _cell_weights(kind, params), params["b"], xs, keep=False, tag="pack_eval").h_last()
    return h @ np.swapaxes(params["W_out"], 1, 2) + params["b_out"][:, None]  # (S, B, C)


def pack_loss_and_grads(kind: str, params: Params, xs, labels) -> tuple[np.ndarray, Params]:
    """Each model's mean cross-entropy on ``(xs, labels)`` and its gradient, for all models at once.

    Returns
    -------
    losses : ndarray of shape (S,)
    grads : dict with the keys of ``params``; ``grads[k][s]`` is model ``s``'s gradient of its own
        loss ``losses[s]`` (the models do not interact)

    Raises
    ------
    KeyError, ValueError
        as :func:`pack_logits`, and ``labels`` not integers in ``[0, n_classes)`` of shape (batch,).
    """
    xs = _check_pack(kind, params, xs)
    labels = np.asarray(labels)
    C = params["W_out"].shape[1]
    if labels.dtype.kind not in "iu" or labels.shape != (xs.shape[1],) or labels.min() < 0 or labels.max() >= C:
        raise ValueError(f"labels must be integers in [0, {C}) of shape (batch,) = ({xs.shape[1]},), "
                         f"got dtype {labels.dtype}, shape {labels.shape}")
    xs = xs.astype(params["b"].dtype, copy=False)
    run = recurrent.forward(kind, _cell_weights(kind, params), params["b"], xs, tag="pack")
    h = run.h_last()  # (S, B, H)
    logits = h @ np.swapaxes(params["W_out"], 1, 2) + params["b_out"][:, None]  # (S, B, C)
    losses, dlogits = packed_cross_entropy_(logits, labels)  # labels checked above
    dlogits = dlogits.astype(h.dtype, copy=False)
    grads = _cell_grads(kind, recurrent.backward(run, dh_last=dlogits @ params["W_out"]), xs.shape[2])
    grads["W_out"] = np.swapaxes(dlogits, 1, 2) @ h  # (S, C, H)
    grads["b_out"] = dlogits.sum(axis=1)
    return losses, grads


@dataclass
class PackRun:
    """What :func:`train_arms` trained for one arm."""

    arm: Arm
    seeds: tuple[int, ...]
    params: Params  #: packed final weights, leading axis = seeds
    losses: np.ndarray  #: (steps, S) training loss of each batch (NaN after a model stopped)
    steps_taken: np.ndarray  #: (S,) updates each model made before its early stop (or the budget)
    checkpoint_accuracy: dict  #: step count -> (S,) test accuracy after that many steps
    #: (S,) with ``solve``: the updates after which each model was found to solve the held-out
    #: batch (and stopped); ``config.steps`` (the cap) for a model that never did (censored).
    #: None without ``solve``.
    steps_to_solve: np.ndarray | None = None
    #: (S,) bool with ``solve``: whether the model was found solved by the cap (False: censored at
    #: ``config.steps``). None without ``solve``.
    solved: np.ndarray | None = None
    #: step count -> packed weights after that many steps, for the ``keep_params`` of
    #: :func:`train_arms` (a stopped model's are its final ones)
    checkpoint_params: dict = None

    def __post_init__(self):
        if self.checkpoint_params is None:
            self.checkpoint_params = {}


def train_arms(arms, sample, d_in: int, n_classes: int, seeds, config: TrainConfig = TrainConfig(),
               data_seed: int = 0, dtype=np.float64, test=None, checkpoints=(), solve=None,
               solved_at: float = 0.95, check_every: int = 25, arm_steps=None,
               keep_params=()) -> dict[str, PackRun]:
    """Train every arm from every seed with one budget, on one stream of batches.

    Arms of the same kind and width are packed with their seeds into one model, so one Python loop
    over time serves ``len(arms) * len(seeds)`` models. Every model sees the same batches, drawn by
    ``sample(rng, config.batch)`` from ``np.random.default_rng([data_seed, 1])``: the arms differ
    only in their cells and initial weights. Each model's gradient is clipped to ``config.clip`` by
    its own norm, and a model stops (its weights are frozen) once the mean loss of its last 10
    batches is below ``config.stop_loss``, as in :func:`seqmodels.training.train.train_classifier`.
    ``config.d_hidden`` and ``config.seed`` are ignored: the widths are the arms', the seeds ``seeds``.
    Models that have stopped are left out of the computation. ``dtype=np.float32`` halves the cost
    of the arithmetic (the initial weights are the same draws, rounded). With ``test = (xs, labels)``
    every model's test accuracy is also recorded after each step count in ``checkpoints`` (a
    stopped model keeps its final accuracy), so one run answers several training budgets.
    ``keep_params`` (some of the ``checkpoints``) also keeps every model's weights after those step
    counts (:attr:`PackRun.checkpoint_params`).

    Budgets per arm. ``arm_steps`` maps some arms' names to fewer updates than ``config.steps``:
    their models stop there (frozen like a model stopped early, ``steps_taken`` at most that), and
    their test accuracy at a checkpoint beyond it is NaN (not trained that long). The other arms'
    models are unaffected: a model's numbers do not depend on which others share its pack.

    Stopping when solved. With ``solve`` (a held-out batch ``(xs, labels)``, or a list of such
    pairs whose sequences may differ in length; keep it apart from any ``test`` set reported on),
    ``config.steps`` is a cap: after every ``check_every`` updates, and after the last, each model
    still training answers ``solve``, and a model whose accuracy over all its sequences is at least
    ``solved_at`` stops there (its weights are frozen, as after the loss-based stop). A model the
    loss-based stop freezes is measured on ``solve`` at that step. Each run then records
    ``steps_to_solve``, the updates after which it was found solved (a multiple of ``check_every``,
    the cap, or the step of its loss-based stop), and ``solved``; a model never found solved is
    censored: ``steps_to_solve = config.steps`` and ``solved = False``. Without ``solve`` (the
    default) nothing is measured and the training is exactly what it is with no stopping rule.

    Returns
    -------
    dict from arm name to :class:`PackRun`

    Raises
    ------
    ValueError
        no arms, two arms with one name, no seeds, or a bad size; ``solve`` not ``(xs, labels)`` (or
        a non-empty list of them) with ``xs`` finite of shape (T, n, ``d_in``) and ``labels``
        integers in ``[0, n_classes)`` of shape (n,); ``solved_at`` not a number in (0, 1];
        ``check_every`` not an integer >= 1; ``arm_steps`` not a dict from arm names to integers in
        ``[1, config.steps]``; ``keep_params`` not among the ``checkpoints``.

    >>> from seqmodels.experiments.lstm.delay import DelayTask
    >>> task = DelayTask()
    >>> runs = train_arms([Arm("LSTM", "lstm", 8, 3.0)], lambda rng, n: task.sample(rng, n, 2),
    ...                   task.d_in, task.n_symbols, seeds=(0, 1), config=TrainConfig(steps=5))
    >>> runs["LSTM"].params["W"].shape, runs["LSTM"].losses.shape
    ((2, 32, 17), (5, 2))

    With a held-out batch to solve, ``config.steps`` is only the cap:

    >>> held_out = task.sample(np.random.default_rng(5), 200, 2)
    >>> runs = train_arms([Arm("LSTM", "lstm", 8, 3.0)], lambda rng, n: task.sample(rng, n, 2),
    ...                   task.d_in, task.n_symbols, seeds=(0, 1), config=TrainConfig(steps=500),
    ...                   solve=held_out, check_every=25)
    >>> runs["LSTM"].solved, runs["LSTM"].steps_to_solve % 25, runs["LSTM"].steps_taken < 500
    (array([ True,  True]), array([0, 0]), array([ True,  True]))
    """
    arms = list(arms)
    seeds = tuple(int(s) for s in seeds)
    if not arms:
        raise ValueError("arms must hold at least one Arm, got none")
    if len({a.name for a in arms}) != len(arms):
        raise ValueError(f"arms must have distinct names, got {[a.name for a in arms]}")
    if not seeds:
        raise ValueError("seeds must hold at least one seed, got none")
    solved_at = finite_float("solved_at", solved_at, low=0, high=1, low_open=True)
    check_every = positive_int("check_every", check_every)
    groups: dict[tuple[str, int], list[Arm]] = {}
    for arm in arms:
        groups.setdefault((arm.kind, arm.d_hidden), []).append(arm)
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}")
    solve_sets = None if solve is None else _solve_batches(solve, d_in, n_classes, dtype)
    arm_steps = {} if arm_steps is None else arm_steps
    if not isinstance(arm_steps, dict):
        raise ValueError(f"arm_steps must be a dict from arm names to numbers of updates, got {type(arm_steps).__name__}")
    for name, n in arm_steps.items():
        if name not in {a.name for a in arms}:
            raise ValueError(f"arm_steps: {name!r} is not one of the arms {[a.name for a in arms]}")
        if positive_int("arm_steps", n) > config.steps:
            raise ValueError(f"arm_steps must be at most config.steps = {config.steps}, got {n} for {name!r}")
    packs = {key: {k: np.concatenate([init_pack(a, d_in, n_classes, seeds)[k] for a in members]).astype(dtype)
                    for k in init_pack(members[0], d_in, n_classes, seeds[:1])}
              for key, members in groups.items()}
    opts = {key: Adam(lr=config.lr) for key in groups}
    n_models = {key: len(members) * len(seeds) for key, members in groups.items()}
    losses = {key: np.full((config.steps, n), np.nan) for key, n in n_models.items()}
    active = {key: np.ones(n, dtype=bool) for key, n in n_models.items()}
    limit = {key: np.repeat([int(arm_steps.get(a.name, config.steps)) for a in members], len(seeds))
             for key, members in groups.items()}  # (S,) updates each model may make
    taken = {key: limit[key].copy() for key in groups}
    to_solve = {key: limit[key].copy() for key in groups}  # censored at the cap
    solved = {key: np.zeros(n, dtype=bool) for key, n in n_models.items()}
    data_rng = np.random.default_rng([data_seed, 1])
    checkpoints = sorted({positive_int("checkpoints", c) for c in checkpoints})
    if checkpoints and test is None:
        raise ValueError("checkpoints need test = (xs, labels) to measure accuracy on")
    if checkpoints and checkpoints[-1] > config.steps:
        raise ValueError(f"checkpoints must be <= config.steps = {config.steps}, got {checkpoints[-1]}")
    keep_params = sorted({positive_int("keep_params", c) for c in keep_params})
    if set(keep_params) - set(checkpoints):
        raise ValueError(f"keep_params must be among the checkpoints {checkpoints}, got {keep_params}")
    at = {key: {} for key in groups}
    kept = {key: {} for key in groups}
    # models whose weights may have changed since the last checkpoint (all, before the first one);
    # the others are frozen and keep the accuracy measured then (each model's numbers do not
    # depend on which other models share its pack)
    changed = {key: np.ones(n, dtype=bool) for key, n in n_models.items()}

    def record(after):
        for key, params in packs.items():
            acc = np.zeros(n_models[key]) if not at[key] else at[key][max(at[key])].copy()
            todo = np.flatnonzero(changed[key])
            if todo.size:
                logits = pack_logits(key[0], {k: v[todo] for k, v in params.items()}, np.asarray(test[0], dtype))
                acc[todo] = (logits.argmax(axis=-1) == np.asarray(test[1])).mean(axis=1)
            acc[limit[key] < after] = np.nan  # not trained that long
            at[key][after] = acc
            changed[key] = active[key].copy()
            if after in keep_params:
                kept[key][after] = {k: v.copy() for k, v in params.items()}

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
            for key, params in packs.items():
                on = np.flatnonzero(active[key])  # models still training; stopped ones cost nothing
                if on.size == 0:
                    continue
                sub = {k: v[on] for k, v in params.items()}
                loss, g_sub = pack_loss_and_grads(key[0], sub, xs.astype(dtype), labels)
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
                stopped_by_loss = None
                if step >= 9 and config.stop_loss > 0:
                    recent = losses[key][step - 9:step + 1].mean(axis=0)  # NaN for stopped models
                    done = active[key] & (recent < config.stop_loss)
                    taken[key][done] = step + 1
                    active[key] &= ~done
                    stopped_by_loss = done
                after = step + 1
                if solve_sets is not None:
                    ask = active[key] & ((after % check_every == 0) | (after == limit[key]))
                    if stopped_by_loss is not None:
                        ask = ask | stopped_by_loss  # frozen now: measured once, at this step
                    which = np.flatnonzero(ask)
                    if which.size:
                        acc = _solve_accuracy(key[0], {k: v[which] for k, v in params.items()}, solve_sets)
                        hit = which[acc >= solved_at]
                        solved[key][hit] = True
                        to_solve[key][hit] = after
                        taken[key][hit] = after  # (the loss-based stop, if it froze one, says the same)
                        active[key][hit] = False
                active[key] &= after < limit[key]  # an arm's own budget
        if config.steps in checkpoints:
            record(config.steps)
    out = {}
    for key, members in groups.items():
        S = len(seeds)
        for j, arm in enumerate(members):
            part = slice(j * S, (j + 1) * S)
            extra = {} if solve_sets is None else {"steps_to_solve": to_solve[key][part].copy(),
                                                   "solved": solved[key][part].copy()}
            out[arm.name] = PackRun(arm, seeds, {k: v[part].copy() for k, v in packs[key].items()},
                                     losses[key][:, part], taken[key][part],
                                     {c: a[part] for c, a in at[key].items()}, **extra,
                                     checkpoint_params={c: {k: v[part].copy() for k, v in p.items()}
                                                        for c, p in kept[key].items()})
    return {arm.name: out[arm.name] for arm in arms}


def pack_accuracy(run: PackRun, xs, labels) -> np.ndarray:
    """(S,) fraction of ``labels`` each model of ``run`` gets right on ``xs`` (T, n, d_in).

    Raises
    ------
    ValueError
        ``labels`` not of shape (n,), or ``xs`` as in :func:`pack_logits`.
    """
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.shape[0] != np.shape(xs)[1]:
        raise ValueError(f"labels must have shape (n,) = ({np.shape(xs)[1]},), got {labels.shape}")
    with threadpool_limits(limits=1, user_api="blas"):
        xs = np.asarray(xs, dtype=run.params["b_out"].dtype)
        return (pack_logits(run.arm.kind, run.params, xs).argmax(axis=-1) == labels).mean(axis=1)


def median_steps_to_solve(steps_to_solve, solved, axis: int = -1) -> np.ndarray:
    """Median of ``steps_to_solve`` over ``axis`` among the entries ``solved``; NaN where none is.

    The censored entries (not ``solved``, their steps the cap) are left out, so the median describes
    the solvers only; report it beside how many were censored (``(~solved).sum(axis)``).

    Raises
    ------
    ValueError
        ``steps_to_solve`` not a finite numeric array, ``solved`` not a bool array of its shape, or
        ``axis`` not an axis of them.

    >>> median_steps_to_solve([[50, 2000, 75], [2000, 2000, 2000]], [[True, False, True], [False, False, False]])
    array([62.5,  nan])
    """
    steps = np.asarray(steps_to_solve)
    ok = np.asarray(solved)
    if steps.dtype.kind not in "iuf" or steps.ndim == 0 or not np.isfinite(steps).all():
        raise ValueError(f"steps_to_solve must be a finite numeric array with at least one axis, "
                         f"got dtype {steps.dtype}, shape {steps.shape}")
    if ok.dtype != bool or ok.shape != steps.shape:
        raise ValueError(f"solved must be a bool array of the shape of steps_to_solve {steps.shape}, "
                         f"got dtype {ok.dtype}, shape {ok.shape}")
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)) \
            or not -steps.ndim <= axis < steps.ndim:
        raise ValueError(f"axis must be an integer axis of an array of {steps.ndim} dimensions, got {axis!r}")
    steps = np.moveaxis(steps, axis, -1).astype(np.float64)
    ok = np.moveaxis(ok, axis, -1)
    flat, mask = steps.reshape(-1, steps.shape[-1]), ok.reshape(-1, ok.shape[-1])
    out = np.array([np.median(row[m]) if m.any() else np.nan for row, m in zip(flat, mask)])
    return out.reshape(steps.shape[:-1])


def _solve_batches(solve, d_in: int, n_classes: int, dtype) -> list[tuple[np.ndarray, np.ndarray]]:
    """``solve`` of :func:`train_arms` checked, as a list of ``(xs in dtype, int labels)`` pairs."""
    if isinstance(solve, tuple):
        pairs, names = [solve], ["solve"]
    elif isinstance(solve, list) and solve:
        pairs, names = solve, [f"solve[{i}]" for i in range(len(solve))]
    else:
        raise ValueError(f"solve must be a held-out batch (xs, labels) or a non-empty list of them, "
                         f"got {type(solve).__name__}")
    d_in, n_classes = positive_int("d_in", d_in), positive_int("n_classes", n_classes)
    out = []
    for pair, name in zip(pairs, names):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError(f"{name} must be a pair (xs, labels), got {type(pair).__name__}")
        xs = as_float_array(f"{name} xs", pair[0], ndims=(3,))
        if xs.shape[0] == 0 or xs.shape[1] == 0 or xs.shape[2] != d_in:
            raise ValueError(f"{name} xs must have shape (T, n, d_in) = (T, n, {d_in}) with T, n >= 1, "
                             f"got {xs.shape}")
        labels = np.asarray(pair[1])
        if labels.dtype.kind not in "iu" or labels.shape != (xs.shape[1],):
            raise ValueError(f"{name} labels must be integers of shape (n,) = ({xs.shape[1]},), "
                             f"got dtype {labels.dtype}, shape {labels.shape}")
        if labels.min() < 0 or labels.max() >= n_classes:
            raise ValueError(f"{name} labels must be in [0, n_classes) = [0, {n_classes}), "
                             f"got values from {labels.min()} to {labels.max()}")
        out.append((xs.astype(dtype), labels.astype(np.int64)))
    return out


def _solve_accuracy(kind: str, params: Params, batches) -> np.ndarray:
    """(S,) share of all the sequences of ``batches`` each model of the pack ``params`` gets right."""
    right = sum((pack_logits(kind, params, xs).argmax(axis=-1) == labels).sum(axis=1) for xs, labels in batches)
    return right / sum(len(labels) for _, labels in batches)


class StepsToSolve:
    """What a result trained to the stopping rule adds (a mixin of :class:`seqmodels.experiments.lstm.delay.ArmsResult`
    and :class:`seqmodels.experiments.lstm.agreement.AgreementResult`): their fields ``steps_to_solve`` and
    ``censored`` (arrays whose last axis is the seeds, ``None`` without the rule)."""

    def _stopping(self) -> None:
        if self.steps_to_solve is None:
            raise ValueError(f"this result has no steps to solve: run {self.experiment} with stop_when_solved=True")

    def median_steps_to_solve(self) -> np.ndarray:
        """Median updates to solve among the seeds solved by the cap, over the last axis (NaN where
        none was); the censored seeds are counted by :meth:`n_censored`.

        Raises ``ValueError`` for a result trained without ``stop_when_solved``.
        """
        self._stopping()
        return median_steps_to_solve(self.steps_to_solve, ~self.censored)

    def n_censored(self) -> np.ndarray:
        """Seeds not found solved by the cap, over the last axis.

        Raises ``ValueError`` for a result trained without ``stop_when_solved``.
        """
        self._stopping()
        return self.censored.sum(axis=-1)
