r"""Training biLMs: one seed at a time, or several seeds as one batched model.

:func:`train_bilm` trains one biLM (:mod:`seqmodels.models.bilm`) on sentences of token ids with Adam
and gradient clipping (:mod:`seqmodels.common.optim`), one epoch after another over batches of sentences
of one length (:func:`length_batches`), so nothing is padded. :func:`train_bilms` trains several
seeds at once: their weights are packed on a leading axis and every step is one pass of
:func:`seqmodels.models.bilm.seeds_loss_and_grads` for all of them, which costs far less than one run
per seed. Given held-out sentences, :func:`train_bilms` also measures every seed's held-out loss
after each epoch, returns the weights of its best epoch, and with a ``patience`` stops a seed
(freezes its weights and leaves it out of the computation) once that loss has stopped improving.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from seqmodels.common._checks import as_rng, as_token_ids, positive_int
from seqmodels.models.bilm import BiLMConfig, Params, bilm_loss_and_grads, init_bilm, seeds_loss_and_grads
from seqmodels.common.optim import Adam, clip_grad_norm


@dataclass
class TrainedBiLM:
    """The result of :func:`train_bilm` or :func:`train_bilms`.

    The last three fields are measured only when :func:`train_bilms` is given ``held_out``
    sentences; otherwise they are ``None`` and ``params`` are the weights after the last epoch.
    """

    params: Params  #: the weights: after the last epoch, or with held_out those of the best epoch
    config: BiLMConfig
    losses: np.ndarray  #: (updates,) training loss of each batch, before its update (NaN after an early stop)
    epoch_losses: np.ndarray  #: (epochs,) mean training loss per token in each epoch (NaN after an early stop)
    held_out_losses: np.ndarray | None = None  #: (epochs,) held-out loss after each epoch (NaN after an early stop)
    best_epoch: int | None = None  #: the epoch (from 1) of the lowest held-out loss, whose weights are params
    stopped_epoch: int | None = None  #: epochs trained: config.epochs, or fewer after an early stop
    checkpoints: dict[int, Params] | None = None  #: with train_bilms' checkpoints: epoch -> weights after it


def length_batches(sequences, batch: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Group sequences of equal length into ``(T, n)`` id arrays of at most ``batch`` columns.

    Sentences are shuffled within each length and the batches are shuffled among themselves, so
    every epoch sees the data in a new order without padding any sentence.

    Raises
    ------
    ValueError
        ``batch`` not an integer >= 1, ``rng`` not a Generator or an int seed >= 0, or a member of
        ``sequences`` that is not 1-D. (The ids themselves are not checked.)

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
    gradient clipping (:mod:`seqmodels.training.train`), one epoch after another over length batches
    (:func:`length_batches`). Seeded by ``config.seed``: two runs give the same weights.

    Raises
    ------
    ValueError
        ``sequences`` empty, or a member that is not a 1-D array of at least 2 ids in
        ``[0, vocab_size)``; ``vocab_size`` not an integer >= 2; ``config`` not a :class:`~seqmodels.models.bilm.BiLMConfig`.

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
    sequences = [as_token_ids(f"sequences[{n}]", s, vocab_size) for n, s in enumerate(sequences)]
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


def train_bilms(sequences, vocab_size: int, config: BiLMConfig = BiLMConfig(), seeds=(0,),
                dtype=np.float64, held_out=None, patience: int | None = None,
                checkpoints=None) -> list[TrainedBiLM]:
    """:func:`train_bilm` for several seeds at once, trained as one batched model.

    Seed ``s`` starts from the weights ``train_bilm`` would draw for ``config.seed = s`` and
    shuffles the sentences of each length with its own generator; the seeds share only the order
    in which the batch lengths come (the first seed's), which lets every step run all of them in
    one pass. Each seed has its own gradient clipping and Adam moments, so the first seed's run
    is :func:`train_bilm`'s, up to round-off (tests/test_bilm_train.py). ``config.seed`` is ignored.
    With ``dtype=np.float32`` the LSTM layers compute in single precision, which costs about half
    as much here (numpy's float32 products and ``tanh`` are faster); the weights, Adam and the softmax stay
    float64, and the runs then differ from float64 ones by more than round-off, as any two
    trainings that start a rounding error apart do.

    Early stopping. With ``held_out`` (sentences like ``sequences``, not trained on) every seed's
    held-out loss is measured after every epoch: the biLM loss (:func:`seqmodels.models.bilm.bilm_loss`)
    as a mean over every prediction of both directions in all held-out sentences, computed like the
    training loss (the LSTM layers in ``dtype``, the softmax in float64), without gradients, in one
    forward pass for all seeds at once per length batch (at most ``config.batch`` held-out
    sentences of one length). Each seed then returns the weights of its
    best epoch, the one with the lowest held-out loss (the first of equals), as standard early
    stopping does, and its ``held_out_losses``, ``best_epoch`` and ``stopped_epoch``. With
    ``patience = k`` as well, a seed stops once its held-out loss has not improved on its best
    for ``k`` consecutive epochs: its weights are frozen and it is left out of every later step
    (training and held-out passes), its ``losses``, ``epoch_losses`` and ``held_out_losses`` are
    NaN from then on, and ``config.epochs`` is only the cap. A stopped seed does not change what
    the others compute (up to round-off): the batch order and every seed's shuffles are still
    drawn. Without ``patience`` every seed trains for ``config.epochs``, and patience that never
    runs out gives the same results as none. Measuring the held-out loss changes no weight: the
    training losses are those of a run without ``held_out``, whose ``params`` are the weights
    after the last epoch.

    Checkpoints. With ``checkpoints`` (epoch numbers in ``1 .. config.epochs``) every seed also
    returns a copy of its weights after each of those epochs, in ``checkpoints``, so one run
    gives the models of several training lengths (a seed stopped by ``patience`` keeps its frozen
    weights). Recording them changes no weight.

    Returns
    -------
    list of :class:`TrainedBiLM`, one per seed, each with ``config.seed`` set to its seed.

    Raises
    ------
    ValueError
        ``sequences``, ``vocab_size``, ``config`` as :func:`train_bilm` refuses them; ``seeds`` not a
        non-empty list of distinct integers >= 0; ``dtype`` not ``np.float32`` or ``np.float64``;
        ``held_out`` (unless None) not a non-empty list of sentences as ``sequences``; ``patience``
        (unless None) not an integer >= 1, or given without ``held_out``.
        ``checkpoints`` (unless None) not a list of distinct integers in ``1 .. config.epochs``.

    >>> seqs = [np.array([0, 2, 3, 1]), np.array([0, 3, 3, 2, 1])] * 4
    >>> config = BiLMConfig(d_embed=4, d_hidden=4, epochs=5, batch=8)
    >>> runs = train_bilms(seqs, 4, config, seeds=(0, 1))
    >>> alone = train_bilm(seqs, 4, config)  # seed 0 on its own
    >>> bool(np.allclose(runs[0].params["E"], alone.params["E"])), runs[1].config.seed
    (True, 1)

    Held-out sentences in which 3 follows 2, which no training sentence below has: the held-out
    loss rises from the first epoch on, and with patience 2 the seed stops two epochs later and
    returns the weights of epoch 1.

    >>> held = [np.array([0, 2, 3, 1])] * 2
    >>> run, = train_bilms([np.array([0, 3, 3, 2, 1])] * 4, 4, config, held_out=held, patience=2)
    >>> run.best_epoch, run.stopped_epoch, np.round(run.held_out_losses, 2)
    (1, 3, array([1.42, 1.42, 1.42, nan, nan]))
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
    sequences = [as_token_ids(f"sequences[{n}]", s, vocab_size) for n, s in enumerate(sequences)]
    for n, s in enumerate(sequences):
        if s.ndim != 1:
            raise ValueError(f"sequences[{n}] must be 1-D (T,), got shape {s.shape}")
    if held_out is not None:
        held_out = _check_held_out(held_out, vocab_size)
    if patience is not None:
        patience = positive_int("patience", patience)
        if held_out is None:
            raise ValueError("patience needs held_out sentences, whose loss it watches; got held_out=None")
    if checkpoints is not None:
        if not isinstance(checkpoints, (list, tuple, range)) or len(checkpoints) == 0:
            raise ValueError(f"checkpoints must be a non-empty list of epochs, got {checkpoints!r}")
        checkpoints = [positive_int(f"checkpoints[{k}]", e) for k, e in enumerate(checkpoints)]
        if len(set(checkpoints)) != len(checkpoints) or max(checkpoints) > config.epochs:
            raise ValueError(f"checkpoints must be distinct epochs in 1 .. {config.epochs} "
                             f"(config.epochs), got {checkpoints}")
    configs = [BiLMConfig(**{**config.__dict__, "seed": s}) for s in seeds]
    singles = [init_bilm(vocab_size, c, np.random.default_rng([c.seed, 0])) for c in configs]
    P = {k: np.stack([p[k] for p in singles]) for k in singles[0]}
    rngs = [np.random.default_rng([s, 1]) for s in seeds]
    opt = Adam(lr=config.lr)
    S = len(seeds)
    losses, epoch_losses = [], []
    active = np.ones(S, dtype=bool)  # seeds still training; all of them unless patience ran out
    saved: dict[int, Params] = {}  # checkpoint epoch -> the packed weights after it
    if held_out is not None:
        held_batches = length_batches(held_out, config.batch, np.random.default_rng(0))  # any order
        held = np.full((config.epochs, S), np.nan)
        best_loss, best_epoch = np.full(S, np.inf), np.zeros(S, dtype=int)
        stopped_epoch = np.full(S, config.epochs)
        best = {k: v.copy() for k, v in P.items()}
    with threadpool_limits(limits=1, user_api="blas"):
        for epoch in range(config.epochs):
            if not active.any():
                break
            on = np.flatnonzero(active)
            n = len(on)
            tokens, weighted = 0.0, np.zeros(S)
            for ids in _seed_batches(sequences, config.batch, rngs):  # drawn for every seed, as before
                if n == S:
                    loss, grads = seeds_loss_and_grads(P, ids, dtype)
                else:  # stopped seeds are left out: no cost in the biLM, only in the Adam step
                    loss_on, grads = seeds_loss_and_grads({k: v[on] for k, v in P.items()}, ids[:, on], dtype)
                norms = np.sqrt(sum(np.sum(g.reshape(n, -1) ** 2, axis=1) for g in grads.values()))
                scale = np.minimum(1.0, config.clip / np.maximum(norms, 1e-300))
                grads = {k: g * scale.reshape((n,) + (1,) * (g.ndim - 1)) for k, g in grads.items()}
                if n == S:
                    opt.step(P, grads)
                else:
                    loss = np.full(S, np.nan)
                    loss[on] = loss_on
                    frozen = {k: v[~active].copy() for k, v in P.items()}
                    full = {k: np.zeros_like(v) for k, v in P.items()}
                    for k, g in grads.items():
                        full[k][on] = g
                    opt.step(P, full)
                    for k, v in P.items():  # Adam's momentum would still move them
                        v[~active] = frozen[k]
                losses.append(loss)
                weighted += loss * ids[:, 0].size
                tokens += ids[:, 0].size
            epoch_losses.append(weighted / tokens)
            if checkpoints is not None and epoch + 1 in checkpoints:
                saved[epoch + 1] = {k: v.copy() for k, v in P.items()}
            if held_out is None:
                continue
            held[epoch, on] = _held_out_loss(P if n == S else {k: v[on] for k, v in P.items()},
                                             held_batches, dtype)
            better = on[held[epoch, on] < best_loss[on]]
            best_loss[better], best_epoch[better] = held[epoch, better], epoch + 1
            for k, v in P.items():
                best[k][better] = v[better]
            if patience is not None:
                done = on[epoch + 1 - best_epoch[on] >= patience]
                stopped_epoch[done], active[done] = epoch + 1, False
    per_epoch = len(losses) // len(epoch_losses)
    for _ in range(len(epoch_losses), config.epochs):  # every seed stopped early
        losses += [np.full(S, np.nan)] * per_epoch
        epoch_losses.append(np.full(S, np.nan))
    losses, epoch_losses = np.array(losses), np.array(epoch_losses)  # (updates, S), (epochs, S)
    for e in checkpoints or ():  # epochs after every seed stopped: the frozen weights
        saved.setdefault(e, {k: v.copy() for k, v in P.items()})

    def kept(s):
        return None if checkpoints is None else {e: {k: v[s].copy() for k, v in saved[e].items()}
                                                 for e in sorted(checkpoints)}

    if held_out is None:
        return [TrainedBiLM({k: v[s].copy() for k, v in P.items()}, configs[s], losses[:, s], epoch_losses[:, s],
                            checkpoints=kept(s)) for s in range(S)]
    return [TrainedBiLM({k: v[s].copy() for k, v in best.items()}, configs[s], losses[:, s], epoch_losses[:, s],
                        held[:, s], int(best_epoch[s]), int(stopped_epoch[s]), kept(s)) for s in range(S)]


def _check_held_out(held_out, vocab_size: int) -> list[np.ndarray]:
    """The held-out sentences of :func:`train_bilms`, checked like its ``sequences``."""
    if isinstance(held_out, (str, bytes, dict)) or not hasattr(held_out, "__len__"):
        raise ValueError(f"held_out must be a list of 1-D token-id arrays, got {type(held_out).__name__}")
    if len(held_out) == 0:
        raise ValueError("held_out must hold at least one sentence, got none")
    held_out = [as_token_ids(f"held_out[{n}]", s, vocab_size) for n, s in enumerate(held_out)]
    for n, s in enumerate(held_out):
        if s.ndim != 1:
            raise ValueError(f"held_out[{n}] must be 1-D (T,), got shape {s.shape}")
    return held_out


def _held_out_loss(P: Params, batches, dtype) -> np.ndarray:
    """(S,) each packed seed's mean loss per prediction over ``batches`` ((T, n) id arrays): one
    forward pass of all seeds per batch, no gradient."""
    S = len(P["E"])
    total, count = np.zeros(S), 0
    for ids in batches:
        loss, _ = seeds_loss_and_grads(P, np.repeat(ids[:, None], S, axis=1), dtype, grads=False)
        predictions = (ids.shape[0] - 1) * ids.shape[1]  # per direction; both directions count alike
        total += loss * predictions
        count += predictions
    return total / count
