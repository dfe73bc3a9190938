r"""Training biLMs: one seed at a time, or several seeds as one batched model.

:func:`train_bilm` trains one biLM (:mod:`seqmodels.bilm`) on sentences of token ids with Adam
and gradient clipping (:mod:`seqmodels.optim`), one epoch after another over batches of sentences
of one length (:func:`length_batches`), so nothing is padded. :func:`train_bilms` trains several
seeds at once: their weights are stacked on a leading axis and every step is one pass of
:func:`seqmodels.bilm.seeds_loss_and_grads` for all of them, which costs far less than one run
per seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from ._checks import as_rng, as_token_ids, positive_int
from .bilm import BiLMConfig, Params, bilm_loss_and_grads, init_bilm, seeds_loss_and_grads
from .optim import Adam, clip_grad_norm


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
                dtype=np.float64) -> list[TrainedBiLM]:
    """:func:`train_bilm` for several seeds at once, trained as one batched model.

    Seed ``s`` starts from the weights ``train_bilm`` would draw for ``config.seed = s`` and
    shuffles the sentences of each length with its own generator; the seeds share only the order
    in which the batch lengths come (the first seed's), which lets every step run all of them in
    one pass. Each seed has its own gradient clipping and Adam moments, so the first seed's run
    is :func:`train_bilm`'s, up to round-off (tests/test_bilm_train.py). ``config.seed`` is ignored.
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
    sequences = [as_token_ids(f"sequences[{n}]", s, vocab_size) for n, s in enumerate(sequences)]
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
                loss, grads = seeds_loss_and_grads(P, ids, dtype)
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
