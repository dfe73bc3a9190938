r"""Subject-verb number agreement across a distance, in the style of Linzen, Dupoux & Goldberg (2016).

"The *keys* to the cabinet *are* ...": to choose *is* or *are*, a reader must carry the number
of the subject across the words in between, and must not be misled by *attractors*, nouns of the
other number on the way ("cabinet"). Linzen et al. trained LSTMs on English sentences to predict
the verb's number and found errors rising with the number of attractors.

This module generates a synthetic version in which distance and attractors are set exactly. A
sequence is one-hot coded over ``2 * n_nouns + n_fillers + 1`` tokens::

    position 0               the subject: one of n_nouns nouns, singular or plural   <- the answer
    positions 1..distance    fillers (words without number) and other nouns
    position distance + 1    the verb slot: predict singular (0) or plural (1)

Tokens ``0 .. n_nouns - 1`` are singular nouns, ``n_nouns .. 2 n_nouns - 1`` their plurals, then
the fillers, then the verb slot. In training sequences each in-between position holds a noun with
probability ``p_noun`` (of either number, at random), so the model must learn that the *first*
noun decides, not the last. Test sequences (:meth:`AgreementTask.sample` with ``attractors=k``)
hold exactly ``k`` nouns of the other number at random in-between positions and fillers elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import finite_float, positive_int
from .stacked import stack_accuracy, train_arms
from .train import TrainConfig


@dataclass(frozen=True)
class AgreementTask:
    """The vocabulary of the agreement task; ``d_in`` is the one-hot width.

    Raises ``ValueError`` unless ``n_nouns`` and ``n_fillers`` are integers >= 1 and ``p_noun``
    is a number in [0, 1].
    """

    n_nouns: int = 4  #: noun stems, each with a singular and a plural token
    n_fillers: int = 4  #: words with no number (determiners, adjectives, prepositions)
    p_noun: float = 0.3  #: in training, chance that an in-between position holds a noun

    def __post_init__(self):
        positive_int("n_nouns", self.n_nouns)
        positive_int("n_fillers", self.n_fillers)
        finite_float("p_noun", self.p_noun, low=0, high=1)

    @property
    def d_in(self) -> int:
        return 2 * self.n_nouns + self.n_fillers + 1

    def sample(self, rng: np.random.Generator, n: int, distance: int, attractors: int | None = None):
        """``n`` sequences whose verb slot is ``distance`` words after the subject.

        Parameters
        ----------
        rng : numpy.random.Generator
        n : int >= 1
        distance : int >= 0, words between the subject and the verb slot
        attractors : None for training sequences (nouns of either number with probability
            ``p_noun``), or an int ``k`` with ``0 <= k <= distance``: exactly ``k`` nouns of the
            other number, the rest fillers

        Returns
        -------
        xs : ndarray of shape (distance + 2, n, d_in), one-hot rows
        labels : int ndarray of shape (n,), 0 for a singular subject, 1 for a plural one

        Raises
        ------
        ValueError
            ``n < 1``, ``distance < 0`` or ``attractors`` outside ``[0, distance]``.

        >>> task = AgreementTask(n_nouns=2, n_fillers=2)
        >>> xs, y = task.sample(np.random.default_rng(0), 1, distance=4, attractors=2)
        >>> xs[:, 0].argmax(axis=1), y  # subject 3 (plural of noun 1); singular noun 1 twice between fillers
        (array([3, 1, 4, 4, 1, 6]), array([1]))
        """
        n = positive_int("n", n)
        distance = positive_int("distance", distance, minimum=0)
        if attractors is not None:
            attractors = positive_int("attractors", attractors, minimum=0)
            if attractors > distance:
                raise ValueError(f"attractors must be <= distance = {distance}, got {attractors}")
        N = self.n_nouns
        number = rng.integers(0, 2, size=n)  # (n,) 0 singular, 1 plural
        tokens = np.empty((distance + 2, n), dtype=int)
        tokens[0] = rng.integers(0, N, size=n) + N * number
        tokens[1:-1] = 2 * N + rng.integers(0, self.n_fillers, size=(distance, n))
        if attractors is None:
            is_noun = rng.random((distance, n)) < self.p_noun
            nouns = rng.integers(0, N, size=(distance, n)) + N * rng.integers(0, 2, size=(distance, n))
            tokens[1:-1] = np.where(is_noun, nouns, tokens[1:-1])
        elif attractors:
            slots = np.argsort(rng.random((distance, n)), axis=0)[:attractors]  # (k, n) distinct positions
            other = rng.integers(0, N, size=(attractors, n)) + N * (1 - number)
            tokens[1 + slots, np.arange(n)] = other
        tokens[-1] = self.d_in - 1
        return np.eye(self.d_in)[tokens], number


@dataclass
class AgreementResult:
    """What :func:`agreement_experiment` measured."""

    arms: tuple[str, ...]
    distances: np.ndarray  #: (n_distances,) test distances
    attractors: tuple[int, ...]  #: attractor counts tested
    seeds: tuple[int, ...]
    accuracy: np.ndarray  #: (n_arms, n_distances, n_attractor_counts, n_seeds); NaN where k > distance
    n_params: dict  #: arm name -> trained numbers per model
    chance: float = 0.5


def agreement_experiment(arms, distances, attractors=(0, 1, 2), seeds=range(10),
                         task: AgreementTask = AgreementTask(), train_distances=(1, 20),
                         config: TrainConfig = TrainConfig(steps=300), n_test: int = 400) -> AgreementResult:
    """Train every arm from every seed on mixed distances, then test at each distance and attractor count.

    Each training batch has one distance drawn uniformly from ``train_distances`` (inclusive), so
    every sequence of a batch has the same length; all arms see the same batches
    (:func:`seqmodels.stacked.train_arms`). Test sets are seeded by distance and attractor count and
    are the same for every arm.

    Raises
    ------
    ValueError
        bad ``train_distances`` or sizes (see :func:`seqmodels.stacked.train_arms`).
    """
    lo, hi = (positive_int("train_distances", d) for d in train_distances)
    if lo > hi:
        raise ValueError(f"train_distances must be (low, high) with low <= high, got {train_distances}")
    distances = np.asarray([positive_int("distances", int(d), minimum=0) for d in distances])
    attractors = tuple(positive_int("attractors", int(k), minimum=0) for k in attractors)
    seeds = tuple(int(s) for s in seeds)
    arms = list(arms)

    def sample(rng, n):
        return task.sample(rng, n, int(rng.integers(lo, hi + 1)))

    runs = train_arms(arms, sample, task.d_in, 2, seeds, config)
    acc = np.full((len(arms), len(distances), len(attractors), len(seeds)), np.nan)
    for j, d in enumerate(distances):
        for m, k in enumerate(attractors):
            if k > d:
                continue
            xs, y = task.sample(np.random.default_rng([2000, int(d), k]), n_test, int(d), attractors=k)
            for i, arm in enumerate(arms):
                acc[i, j, m] = stack_accuracy(runs[arm.name], xs, y)
    return AgreementResult(tuple(a.name for a in arms), distances, attractors, seeds, acc,
                           {a.name: a.n_params(task.d_in, 2) for a in arms})
