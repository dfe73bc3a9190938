r"""Subject-verb number agreement across a distance, in the style of Linzen, Dupoux & Goldberg (2016).

"The *keys* to the cabinet *are* ...": to choose *is* or *are*, a reader must carry the number
of the subject across the words in between, and must not be misled by *attractors*, nouns of the
other number on the way ("cabinet"). Linzen et al. trained LSTMs on English sentences to predict
the verb's number and found errors rising with the number of attractors.

This module generates a synthetic version in which distance and attractors are set exactly. A
sequence is one-hot coded over ``2 * n_nouns + n_fillers + 2`` tokens::

    positions 0..prefix - 1      a preceding clause: fillers and nouns (by default of the other number in tests)
    position prefix              the marker "|" that opens the main clause
    position prefix + 1          the subject: one of n_nouns nouns, singular or plural   <- the answer
    next ``distance`` positions  fillers (words without number) and other nouns (attractors)
    last position                the verb slot: predict singular (0) or plural (1)

Tokens ``0 .. n_nouns - 1`` are singular nouns, ``n_nouns .. 2 n_nouns - 1`` their plurals, then
the fillers, the marker and the verb slot. The subject is neither the first noun nor the last: it
is identifiable only by its place, right after the marker, and the model must keep its number and
ignore every other noun. In training sequences the prefix length is drawn per batch from
``0 .. max_prefix``, and every prefix and in-between position holds a noun with probability
``p_noun`` (of either number, at random). Test sequences (:meth:`AgreementTask.sample` with
``attractors=k``) have a prefix of ``max_prefix`` words whose nouns are all of the other number,
and exactly ``k`` nouns of the other number at random in-between positions, fillers elsewhere.
The same method sets the preceding clause of a test apart from the attractors after the subject:
its length (``prefix``, so the subject's position), how many nouns it holds (``before``) and
their number (``prefix_nouns``: the other number, either at random, or the subject's).

:func:`agreement_experiment` trains arms for a fixed budget, or (``stop_when_solved=True``) each
model until it solves a held-out set of the training distribution (:func:`solve_set`) or reaches
a cap, recording its steps to solve.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field, replace

import numpy as np

from seqmodels.common._checks import as_int_list, as_rng, finite_float, one_of, positive_int
from seqmodels.training.pack import StepsToSolve, pack_accuracy, train_arms
from seqmodels.training.train import TrainConfig


@dataclass(frozen=True)
class AgreementTask:
    """The vocabulary of the agreement task; ``d_in`` is the one-hot width.

    Raises ``ValueError`` unless ``n_nouns`` and ``n_fillers`` are integers >= 1, ``max_prefix``
    an integer >= 0 and ``p_noun`` a number in [0, 1].
    """

    n_nouns: int = 4  #: noun stems, each with a singular and a plural token
    n_fillers: int = 4  #: words with no number (determiners, adjectives, prepositions)
    p_noun: float = 0.3  #: chance that a prefix or in-between position holds a noun
    max_prefix: int = 6  #: longest preceding clause (training draws 0 .. max_prefix; tests use it)

    def __post_init__(self):
        positive_int("n_nouns", self.n_nouns)
        positive_int("n_fillers", self.n_fillers)
        finite_float("p_noun", self.p_noun, low=0, high=1)
        positive_int("max_prefix", self.max_prefix, minimum=0)

    @property
    def d_in(self) -> int:
        return 2 * self.n_nouns + self.n_fillers + 2

    @property
    def marker(self) -> int:
        """The token that opens the main clause; the subject follows it."""
        return 2 * self.n_nouns + self.n_fillers

    def sample(self, rng: np.random.Generator, n: int, distance: int, attractors: int | None = None,
               prefix: int | None = None, before: int | None = None, prefix_nouns: str = "other"):
        """``n`` sequences whose verb slot is ``distance`` words after the subject.

        Parameters
        ----------
        rng : numpy.random.Generator
        n : int >= 1
        distance : int >= 0, words between the subject and the verb slot
        attractors : None for training sequences (nouns of either number with probability
            ``p_noun``, in the prefix and in between), or an int ``k`` with ``0 <= k <= distance``:
            exactly ``k`` nouns of the other number in between, the rest fillers, and prefix nouns
            all of the other number (unless ``before`` or ``prefix_nouns`` say otherwise)
        prefix : words before the marker, ``0 .. max_prefix``; default ``max_prefix``. The subject
            is at position ``prefix + 1``.
        before : test sequences only. None: each prefix position holds a noun with probability
            ``p_noun``; an int ``0 <= b <= prefix``: exactly ``b`` prefix positions, at random,
            hold nouns, the rest fillers (the attractors before the subject, counted as
            ``attractors`` counts those after it)
        prefix_nouns : test sequences only, the number of the prefix nouns: ``"other"`` (the
            default, the other number than the subject's), ``"either"`` (each at random, as in
            training) or ``"same"`` (the subject's). The subjects, the in-between words and
            (with ``before=None``) the prefix positions of nouns are drawn as with the defaults,
            so the same ``rng`` state gives sequences that differ in the prefix nouns only.

        Returns
        -------
        xs : ndarray of shape (prefix + distance + 3, n, d_in), one-hot rows
        labels : int ndarray of shape (n,), 0 for a singular subject, 1 for a plural one

        Raises
        ------
        ValueError
            ``n < 1``, ``distance < 0``, ``attractors`` outside ``[0, distance]``, ``prefix``
            outside ``[0, max_prefix]``, ``before`` outside ``[0, prefix]``, ``prefix_nouns`` not
            one of the three, ``before`` or ``prefix_nouns`` set without ``attractors``, or a bad
            ``rng``.

        >>> task = AgreementTask(n_nouns=2, n_fillers=2, max_prefix=2, p_noun=0.5)
        >>> xs, y = task.sample(np.random.default_rng(0), 1, distance=4, attractors=2)
        >>> xs[:, 0].argmax(axis=1), y  # two fillers, marker 6, plural subject 3, two singular nouns, verb 7
        (array([5, 5, 6, 3, 1, 4, 4, 1, 7]), array([1]))
        >>> xs, y = task.sample(np.random.default_rng(0), 1, distance=4, attractors=2, before=2)
        >>> xs[:, 0].argmax(axis=1)  # the same but for the prefix: two singular nouns before the subject
        array([1, 0, 6, 3, 1, 4, 4, 1, 7])
        >>> xs, y = task.sample(np.random.default_rng(0), 1, distance=4, attractors=2, before=2, prefix_nouns="same")
        >>> xs[:, 0].argmax(axis=1)  # ... now plural, the subject's number
        array([3, 2, 6, 3, 1, 4, 4, 1, 7])
        >>> xs, y = task.sample(np.random.default_rng(0), 1, distance=4, attractors=2, prefix=0)
        >>> xs[:, 0].argmax(axis=1)  # no preceding clause: the marker first, the subject at position 1
        array([6, 2, 1, 4, 1, 4, 7])
        """
        rng = as_rng("rng", rng)
        n = positive_int("n", n)
        distance = positive_int("distance", distance, minimum=0)
        prefix = self.max_prefix if prefix is None else positive_int("prefix", prefix, minimum=0)
        if prefix > self.max_prefix:
            raise ValueError(f"prefix must be <= max_prefix = {self.max_prefix}, got {prefix}")
        if attractors is not None:
            attractors = positive_int("attractors", attractors, minimum=0)
            if attractors > distance:
                raise ValueError(f"attractors must be <= distance = {distance}, got {attractors}")
        one_of("prefix_nouns", prefix_nouns, ("other", "either", "same"))
        if attractors is None and (before is not None or prefix_nouns != "other"):
            raise ValueError("before and prefix_nouns shape test sequences: give attractors too")
        if before is not None:
            before = positive_int("before", before, minimum=0)
            if before > prefix:
                raise ValueError(f"before must be <= prefix = {prefix}, got {before}")
        N, F = self.n_nouns, self.n_fillers
        number = rng.integers(0, 2, size=n)  # (n,) 0 singular, 1 plural
        tokens = 2 * N + rng.integers(0, F, size=(prefix + distance + 3, n))  # fillers everywhere first
        tokens[prefix] = self.marker
        tokens[prefix + 1] = rng.integers(0, N, size=n) + N * number
        tokens[-1] = self.marker + 1
        body = np.r_[0:prefix, prefix + 2:prefix + 2 + distance]  # the prefix and in-between positions
        is_noun = rng.random((len(body), n)) < self.p_noun
        stems = rng.integers(0, N, size=(len(body), n))
        if attractors is None:
            nouns = stems + N * rng.integers(0, 2, size=(len(body), n))
        else:
            nouns = stems + N * (1 - number)  # every other noun has the other number
            is_noun[prefix:] = False
            slots = np.argsort(rng.random((distance, n)), axis=0)[:attractors]  # (k, n) distinct positions
            is_noun[prefix + slots, np.arange(n)] = True
            # drawn after everything else, so that the defaults' sequences are unchanged
            if before is not None:
                is_noun[:prefix] = False
                is_noun[np.argsort(rng.random((prefix, n)), axis=0)[:before], np.arange(n)] = True
            if prefix_nouns == "either":
                nouns[:prefix] = stems[:prefix] + N * rng.integers(0, 2, size=(prefix, n))
            elif prefix_nouns == "same":
                nouns[:prefix] = stems[:prefix] + N * number
        tokens[body] = np.where(is_noun, nouns, tokens[body])
        return np.eye(self.d_in)[tokens], number


@dataclass
class AgreementResult(StepsToSolve):
    """What :func:`agreement_experiment` measured."""

    arms: tuple[str, ...]
    distances: np.ndarray  #: (n_distances,) test distances
    attractors: tuple[int, ...]  #: attractor counts tested
    seeds: tuple[int, ...]
    accuracy: np.ndarray  #: (n_arms, n_distances, n_attractor_counts, n_seeds); NaN where k > distance
    n_params: dict  #: arm name -> trained numbers per model
    chance: float = 0.5
    #: With ``stop_when_solved``: (n_arms, n_seeds) the updates after which each model was found to
    #: solve the held-out solve set (and stopped); ``cap`` where it never did. Else None.
    steps_to_solve: np.ndarray | None = None
    #: With ``stop_when_solved``: (n_arms, n_seeds) bool, True where a model was not found solved by
    #: the cap (its ``steps_to_solve`` is then the cap, a lower bound). Else None.
    censored: np.ndarray | None = None
    cap: int | None = None  #: the most updates a model got with ``stop_when_solved``; else None
    #: arm name -> its trained models (:class:`seqmodels.training.pack.PackRun`), for :meth:`test`
    runs: dict | None = field(default=None, repr=False, compare=False)
    task: AgreementTask | None = field(default=None, repr=False, compare=False)  #: the task trained on
    n_test: int = 400  #: test sequences per cell

    experiment = "agreement_experiment"  #: named in the error of the stopping-rule summaries

    def test(self, distances=None, attractors=None, *, prefix=None, before: int | None = None,
             prefix_nouns: str = "other", n_test: int | None = None, seed: int = 2000) -> np.ndarray:
        """Accuracy of the same trained models on other test sets, without training again.

        Each cell (distance ``d``, attractor count ``k``) is a batch of ``n_test`` sequences from
        :meth:`AgreementTask.sample` with ``attractors=k`` and the given ``prefix``, ``before``
        and ``prefix_nouns``, drawn from ``np.random.default_rng([seed, d, k])``: with the defaults
        these are the sets behind :attr:`accuracy`, which it returns again. ``prefix`` may also be
        a list of prefix lengths: then the ``n_test`` sequences of a cell are spread as evenly as
        possible over them, a batch for each length ``p`` (from ``default_rng([seed, d, k, p])``),
        so the subject is at every position ``p + 1``, as in training, and the accuracy is over
        all of them.

        Returns
        -------
        ndarray of shape (n_arms, n_distances, n_attractor_counts, n_seeds), NaN where ``k > d``
        (``distances`` and ``attractors`` default to the result's own).

        Raises
        ------
        ValueError
            a result without trained models (``runs``, kept by :func:`agreement_experiment`),
            ``distances`` or ``attractors`` not integers >= 0, ``prefix`` not None, an integer or a
            non-empty list of integers in ``[0, max_prefix]``, ``n_test`` not an integer >= 1 (or
            fewer than the prefix lengths), ``seed`` not an integer >= 0, or ``before`` or
            ``prefix_nouns`` as :meth:`AgreementTask.sample` refuses them (``before`` above a
            prefix length among them).
        """
        if self.runs is None or self.task is None:
            raise ValueError("runs is None: this result holds no trained models (make it with agreement_experiment)")
        task = self.task
        distances = as_int_list("distances", self.distances if distances is None else distances, minimum=0)
        attractors = as_int_list("attractors", self.attractors if attractors is None else attractors, minimum=0)
        n_test = self.n_test if n_test is None else positive_int("n_test", n_test)
        seed = positive_int("seed", seed, minimum=0)
        many = prefix is not None and not isinstance(prefix, numbers.Integral)
        prefixes = as_int_list("prefix", prefix, minimum=0) if many else [task.max_prefix if prefix is None else prefix]
        if n_test < len(prefixes):
            raise ValueError(f"n_test must be at least the number of prefix lengths ({len(prefixes)}), got {n_test}")
        sizes = np.full(len(prefixes), n_test // len(prefixes))  # the cell's sequences, spread over the prefixes
        sizes[:n_test % len(prefixes)] += 1
        for p in prefixes:  # every setting checked before any sequence is made
            task.sample(np.random.default_rng(0), 1, 0, attractors=0, prefix=p, before=before, prefix_nouns=prefix_nouns)
        acc = np.full((len(self.arms), len(distances), len(attractors), len(self.seeds)), np.nan)
        for j, d in enumerate(distances):
            for m, k in enumerate(attractors):
                if k > d:
                    continue
                right = np.zeros((len(self.arms), len(self.seeds)))  # answers right, counted
                for p, size in zip(prefixes, sizes):
                    rng = np.random.default_rng([seed, d, k, p] if many else [seed, d, k])
                    xs, y = task.sample(rng, int(size), d, attractors=k, prefix=p, before=before,
                                        prefix_nouns=prefix_nouns)
                    right += np.rint(size * np.array([pack_accuracy(self.runs[arm], xs, y) for arm in self.arms]))
                acc[:, j, m] = right / n_test
        return acc


def solve_set(task: AgreementTask, train_distances=(1, 20), n_per_distance: int = 64, seed: int = 3000,
              attractors=None):
    """Held-out sequences at the training distances, one batch per distance (and attractor count).

    Without ``attractors``, sequences of the training distribution: for each distance ``d`` of
    ``train_distances`` (inclusive) a batch of ``n_per_distance`` training-style sequences (nouns
    of either number with probability ``p_noun``) with one prefix length drawn uniformly from
    ``0 .. max_prefix``, as a training batch has. With ``attractors`` (counts ``k``), sequences
    built as the tests are (:meth:`AgreementTask.sample` with ``attractors=k``: a full prefix of
    other-number nouns, exactly ``k`` attractors), one batch per distance and count ``k <= d``,
    still only at the training distances. All come from ``np.random.default_rng([seed, low,
    high])`` (the test sets use seed 2000 and their own distances). The list is the ``solve`` of
    :func:`seqmodels.training.pack.train_arms` (the batches differ in length).

    Raises
    ------
    ValueError
        ``task`` not an :class:`AgreementTask`, bad ``train_distances``, ``n_per_distance`` not an
        integer >= 1, ``seed`` not an integer >= 0, or ``attractors`` not None or a non-empty list
        of integers >= 0.

    >>> batches = solve_set(AgreementTask(), (1, 3), 5)
    >>> len(batches), batches[0][0].shape[1:], batches[0][1].shape
    (3, (5, 14), (5,))
    >>> [xs.shape[0] for xs, _ in solve_set(AgreementTask(), (1, 3), 5, attractors=(0, 2))]  # 6 + d + 3
    [10, 11, 11, 12, 12]
    """
    if not isinstance(task, AgreementTask):
        raise ValueError(f"task must be an AgreementTask, got {type(task).__name__}")
    lo, hi = _distance_range(train_distances)
    n = positive_int("n_per_distance", n_per_distance)
    rng = np.random.default_rng([positive_int("seed", seed, minimum=0), lo, hi])
    if attractors is None:
        return [task.sample(rng, n, d, prefix=int(rng.integers(0, task.max_prefix + 1))) for d in range(lo, hi + 1)]
    counts = as_int_list("attractors", attractors, minimum=0)
    return [task.sample(rng, n, d, attractors=k) for d in range(lo, hi + 1) for k in counts if k <= d]


def _distance_range(train_distances) -> tuple[int, int]:
    lo, hi = (positive_int("train_distances", d) for d in train_distances)
    if lo > hi:
        raise ValueError(f"train_distances must be (low, high) with low <= high, got {train_distances}")
    return lo, hi


def agreement_experiment(arms, distances, attractors=(0, 1, 2), seeds=range(10),
                         task: AgreementTask = AgreementTask(), train_distances=(1, 20),
                         config: TrainConfig = TrainConfig(steps=300), n_test: int = 400, *,
                         stop_when_solved: bool = False, cap: int = 2000, check_every: int = 25,
                         solved_at: float = 0.95, n_solve: int = 64, solve_attractors=None,
                         dtype=np.float64) -> AgreementResult:
    """Train every arm from every seed on mixed distances, then test at each distance and attractor count.

    Each training batch has one distance drawn uniformly from ``train_distances`` (inclusive), so
    every sequence of a batch has the same length; all arms see the same batches
    (:func:`seqmodels.training.pack.train_arms`). Test sets are seeded by distance and attractor count and
    are the same for every arm. The result keeps the trained models, so that
    :meth:`AgreementResult.test` measures them on other test sets (another preceding clause, the
    subject elsewhere) without training again.

    With ``stop_when_solved`` the models train to a stopping rule instead of ``config.steps``
    updates: up to ``cap``, each stopping once it answers at least ``solved_at`` of a held-out
    set correctly (:func:`solve_set` with ``n_solve`` sequences per training distance, from its
    own generator; the test sets are not used), checked every ``check_every`` updates. The held-out
    set is of the training distribution, or with ``solve_attractors`` (attractor counts) built as
    the tests are but at the training distances only: a stricter rule, since the training
    distribution seldom puts nouns of the other number in the way. The tests then measure each
    model where it stopped, and the result holds ``steps_to_solve``, ``censored`` and ``cap``. By
    default nothing changes. ``dtype`` (float64 or float32) is the arithmetic's
    (:func:`seqmodels.training.pack.train_arms`).

    Raises
    ------
    ValueError
        bad ``train_distances`` or sizes (see :func:`seqmodels.training.pack.train_arms`),
        ``stop_when_solved`` not a bool, ``cap``, ``check_every``, ``n_solve`` or ``n_test`` not
        integers >= 1, ``solved_at`` not in (0, 1], or ``solve_attractors`` neither None nor
        integers >= 0.
    """
    lo, hi = _distance_range(train_distances)
    distances = np.asarray([positive_int("distances", int(d), minimum=0) for d in distances])
    attractors = tuple(positive_int("attractors", int(k), minimum=0) for k in attractors)
    seeds = tuple(int(s) for s in seeds)
    arms = list(arms)
    n_test = positive_int("n_test", n_test)
    if not isinstance(stop_when_solved, (bool, np.bool_)):
        raise ValueError(f"stop_when_solved must be True or False, got {stop_when_solved!r}")
    cap, check_every = positive_int("cap", cap), positive_int("check_every", check_every)
    solved_at = finite_float("solved_at", solved_at, low=0, high=1, low_open=True)
    n_solve = positive_int("n_solve", n_solve)
    if solve_attractors is not None:
        solve_attractors = tuple(as_int_list("solve_attractors", solve_attractors, minimum=0))

    def sample(rng, n):
        distance = int(rng.integers(lo, hi + 1))
        return task.sample(rng, n, distance, prefix=int(rng.integers(0, task.max_prefix + 1)))

    if stop_when_solved:
        runs = train_arms(arms, sample, task.d_in, 2, seeds, replace(config, steps=cap),
                          solve=solve_set(task, (lo, hi), n_solve, attractors=solve_attractors),
                          solved_at=solved_at, check_every=check_every, dtype=dtype)
    else:
        runs = train_arms(arms, sample, task.d_in, 2, seeds, config, dtype=dtype)
    stopping = {}
    if stop_when_solved:
        stopping = dict(steps_to_solve=np.array([runs[a.name].steps_to_solve for a in arms]),
                        censored=~np.array([runs[a.name].solved for a in arms]), cap=cap)
    result = AgreementResult(tuple(a.name for a in arms), distances, attractors, seeds, None,
                             {a.name: a.n_params(task.d_in, 2) for a in arms}, **stopping,
                             runs=runs, task=task, n_test=n_test)
    result.accuracy = result.test()
    return result
