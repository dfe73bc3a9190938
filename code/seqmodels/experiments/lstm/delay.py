r"""Memory across a delay: recall the first symbol of a sequence after ``delay`` distractors.

A sequence of length ``T = delay + 2`` is one-hot coded over ``n_symbols + n_distractors + 1``
tokens::

    position 0            one of the n_symbols "key" tokens     <- the answer
    positions 1..delay    random distractor tokens
    position delay + 1    the "recall" token                    <- the answer is read here

A model sees the whole sequence and must name the key from its final state. Chance accuracy is
``1 / n_symbols``; nothing in the distractors carries any information about the key, so a model
beats chance only by carrying the key through ``delay`` steps.

:func:`arms_experiment` trains the arms of :data:`DELAY_ARMS` (RNN, a
parameter-matched RNN, the LSTM at four forget biases, the GRU), ten seeds each, trained as packed
models on the same batches, with the test accuracy recorded after several training budgets, or
(``stop_when_solved=True``) each trained until it solves a held-out batch or reaches a cap, with
its steps to solve recorded (:meth:`~seqmodels.training.pack.StepsToSolve.median_steps_to_solve`,
:meth:`~seqmodels.training.pack.StepsToSolve.n_censored`).
Some arms can be given a shorter budget than the others (``arm_steps``), and :meth:`ArmsResult.up_to`
reads one run at an earlier budget, with the weights it had then.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from seqmodels.common._checks import as_rng, finite_float, positive_int
from seqmodels.training.pack import Arm, StepsToSolve, train_arms
from seqmodels.training.train import TrainConfig, accuracy
from seqmodels.common.statistics import wilson_interval
from seqmodels.display.tables import Column, Table, result_table


@dataclass(frozen=True)
class DelayTask:
    """The task's vocabulary; ``d_in`` is the one-hot width.

    Raises
    ------
    ValueError
        ``n_symbols`` not an integer >= 2, ``n_distractors`` not an integer >= 1, ``p_new_key`` not
        a finite number in ``[0, 1]``.
    """

    n_symbols: int = 4  #: keys to remember: chance accuracy is 1 / n_symbols
    n_distractors: int = 4  #: distinct filler tokens between the key and the recall token
    #: chance that a filler position holds a new key instead; the answer is then the *last* key,
    #: so an old key must be forgotten when a new one arrives (0: one key, at position 0)
    p_new_key: float = 0.0

    def __post_init__(self):
        """Raises ``ValueError`` unless ``n_symbols >= 2`` and ``n_distractors >= 1`` are integers and
        ``p_new_key`` is a number in [0, 1]."""
        positive_int("n_symbols", self.n_symbols, minimum=2)
        positive_int("n_distractors", self.n_distractors)
        finite_float("p_new_key", self.p_new_key, low=0, high=1)

    @property
    def d_in(self) -> int:
        return self.n_symbols + self.n_distractors + 1

    def sample(self, rng: np.random.Generator, n: int, delay: int) -> tuple[np.ndarray, np.ndarray]:
        """``n`` sequences with ``delay`` filler positions each.

        Returns
        -------
        xs : ndarray of shape (delay + 2, n, d_in), one-hot rows
        labels : int ndarray of shape (n,), the last key of each sequence

        Raises
        ------
        ValueError
            ``n`` not an integer >= 1, ``delay`` not an integer >= 0, or a bad ``rng``.

        >>> xs, labels = DelayTask(n_symbols=3, n_distractors=2).sample(np.random.default_rng(0), 2, delay=3)
        >>> xs.shape, labels
        ((5, 2, 6), array([2, 1]))
        >>> xs[:, 0].argmax(axis=1)  # key 2, three distractors (3 or 4), then the recall token 5
        array([2, 4, 3, 3, 5])
        """
        rng = as_rng("rng", rng)
        n, delay = positive_int("n", n), positive_int("delay", delay, minimum=0)
        tokens = np.empty((delay + 2, n), dtype=int)
        tokens[0] = rng.integers(0, self.n_symbols, size=n)
        tokens[1:-1] = self.n_symbols + rng.integers(0, self.n_distractors, size=(delay, n))
        if self.p_new_key > 0:
            is_key = rng.random((delay, n)) < self.p_new_key
            tokens[1:-1][is_key] = rng.integers(0, self.n_symbols, size=int(is_key.sum()))
        tokens[-1] = self.d_in - 1
        is_key = tokens < self.n_symbols
        last = np.where(is_key, np.arange(delay + 2)[:, None], -1).max(axis=0)  # (n,)
        labels = tokens[last, np.arange(n)]
        return np.eye(self.d_in)[tokens], labels  # (T, n, d_in)


#: The training budget of every arm in the chapter's runs of :func:`arms_experiment`.
DELAY_CONFIG = TrainConfig(d_hidden=16, steps=300, batch=32, lr=1e-2, clip=1.0, stop_loss=0.01)


# --- The controlled experiment: arms, ten seeds, several budgets ---------------------------------

#: The arms of :func:`arms_experiment`: the RNN, an RNN as wide as the LSTM has parameters, the
#: LSTM at four forget biases (0: gates start at one half; 1: the common default; 3 and 5: longer
#: initial memories), and the GRU with its update gates starting at one half (bias 0) and at
#: ``sigmoid(3) = 0.95`` (bias 3, the GRU's analogue of a large forget bias).
DELAY_ARMS = (
    Arm("RNN", "rnn", 16, 1.0),
    Arm("RNN, 36 units", "rnn", 36, 1.0),
    Arm("LSTM, forget bias 0", "lstm", 16, 0.0),
    Arm("LSTM, forget bias 1", "lstm", 16, 1.0),
    Arm("LSTM, forget bias 3", "lstm", 16, 3.0),
    Arm("LSTM, forget bias 5", "lstm", 16, 5.0),
    Arm("GRU", "gru", 16, 0.0),
    Arm("GRU, update bias 3", "gru", 16, 3.0),
)


@dataclass
class ArmsResult(StepsToSolve):
    """What :func:`arms_experiment` measured."""

    arms: tuple[Arm, ...]
    delays: np.ndarray  #: (n_delays,)
    budgets: tuple[int, ...]  #: training steps after which the test accuracy was recorded
    seeds: tuple[int, ...]
    #: (n_arms, n_delays, n_budgets, n_seeds) test accuracy; NaN after an arm's own budget
    #: (``arm_steps`` of :func:`arms_experiment`)
    accuracy: np.ndarray
    runs: dict  #: delay -> {arm name: :class:`seqmodels.training.pack.PackRun`}
    n_params: dict  #: arm name -> trained numbers per model (recurrent layer and read-out)
    chance: float
    solved_at: float = 0.95  #: a run with at least this test accuracy counts as solved
    #: With ``stop_when_solved``: (n_arms, n_delays, n_seeds) the updates after which each model was
    #: found to solve its held-out solve batch (and stopped); ``cap`` where it never did. Else None.
    steps_to_solve: np.ndarray | None = None
    #: With ``stop_when_solved``: (n_arms, n_delays, n_seeds) bool, True where a model was not found
    #: solved by the cap (its ``steps_to_solve`` is then the cap, a lower bound). Else None.
    censored: np.ndarray | None = None
    cap: int | None = None  #: the most updates a model got with ``stop_when_solved``; else None

    @classmethod
    def combine(cls, parts) -> "ArmsResult":
        """One result from runs of the same arms, seeds and budgets at different delays.

        Raises
        ------
        ValueError
            no parts, or parts whose arms, seeds, budgets, ``solved_at`` or stopping rule differ.
        """
        parts = list(parts)
        if not parts:
            raise ValueError("parts must hold at least one ArmsResult, got none")
        first = parts[0]
        for p in parts[1:]:
            if p.arms != first.arms or p.seeds != first.seeds or p.budgets != first.budgets:
                raise ValueError("parts must share arms, seeds and budgets")
            if p.cap != first.cap or p.solved_at != first.solved_at:
                raise ValueError("parts must share solved_at and the stopping rule's cap "
                                 "(all with stop_when_solved and one cap, or all without)")
        stopping = {}
        if first.cap is not None:
            stopping = {"steps_to_solve": np.concatenate([p.steps_to_solve for p in parts], axis=1),
                        "censored": np.concatenate([p.censored for p in parts], axis=1), "cap": first.cap}
        return cls(first.arms, np.concatenate([p.delays for p in parts]), first.budgets, first.seeds,
                   np.concatenate([p.accuracy for p in parts], axis=1), {k: v for p in parts for k, v in p.runs.items()},
                   first.n_params, first.chance, first.solved_at, **stopping)

    def index(self, name: str) -> int:
        """Position of the arm called ``name``.

        Raises
        ------
        KeyError
            no arm of this result is called ``name`` (the arms are the result's data, as the
            words of a vocabulary are).
        """
        names = [a.name for a in self.arms]
        if not isinstance(name, str) or name not in names:
            raise KeyError(f"name {name!r} is not an arm of this result, whose arms are {names}")
        return names.index(name)

    def final(self) -> np.ndarray:
        """(n_arms, n_delays, n_seeds): accuracy after the full budget."""
        return self.accuracy[:, :, -1]

    def solved(self) -> np.ndarray:
        """(n_arms, n_delays, n_budgets): how many seeds reached ``solved_at`` (0 where the arm was
        not trained to that budget: see :meth:`ran`)."""
        return (self.accuracy >= self.solved_at).sum(axis=-1)

    def ran(self) -> np.ndarray:
        """(n_arms, n_delays, n_budgets) bool: whether the arm was trained to that budget (False
        after its ``arm_steps``)."""
        return ~np.isnan(self.accuracy).any(axis=-1)

    def up_to(self, budget: int) -> "ArmsResult":
        """This result as it stood after ``budget`` steps: the budgets up to it, and every run's
        weights (``runs[delay][name].params``) as they were then, so that the models analysed are
        the ones those budgets' accuracies describe. Needs the weights kept at ``budget``
        (``keep_params`` of :func:`arms_experiment`) and every arm trained to it.

        Raises
        ------
        ValueError
            ``budget`` not one of ``budgets``, an arm not trained to it, its weights not kept, or a
            result of ``stop_when_solved`` (whose steps to solve belong to its cap).
        """
        if self.cap is not None:
            raise ValueError("up_to reads a fixed-budget result; this one was trained with stop_when_solved")
        if isinstance(budget, (bool, np.bool_)) or budget not in self.budgets:
            raise ValueError(f"budget must be one of the budgets {self.budgets}, got {budget!r}")
        m = self.budgets.index(budget)
        if not self.ran()[:, :, m].all():
            raise ValueError(f"budget {budget}: not every arm was trained that long (see arm_steps)")
        runs = {}
        for delay, by_arm in self.runs.items():
            runs[delay] = {}
            for name, run in by_arm.items():
                if budget not in run.checkpoint_params:
                    raise ValueError(f"budget {budget}: the weights after it were not kept "
                                     f"(arms_experiment(..., keep_params=({budget},)))")
                runs[delay][name] = replace(run, params=run.checkpoint_params[budget], losses=run.losses[:budget],
                                            steps_taken=np.minimum(run.steps_taken, budget),
                                            checkpoint_accuracy={c: a for c, a in run.checkpoint_accuracy.items()
                                                                 if c <= budget},
                                            checkpoint_params={c: p for c, p in run.checkpoint_params.items()
                                                               if c <= budget})
        return replace(self, budgets=self.budgets[:m + 1], accuracy=self.accuracy[:, :, :m + 1], runs=runs)

    def budget_table(self, delay: int) -> Table:
        """One row per arm at ``delay``: seeds solved after each budget, "not run" after an arm's
        own budget (shown as an HTML table in the book).

        Raises ``ValueError`` for a ``delay`` this result did not run.
        """
        if isinstance(delay, (bool, np.bool_)) or delay not in self.delays.tolist():
            raise ValueError(f"delay must be one of the delays {self.delays.tolist()}, got {delay!r}")
        j, n = self.delays.tolist().index(delay), len(self.seeds)
        solved, ran = self.solved()[:, j], self.ran()[:, j]
        rows = [[arm.name] + [f"{solved[i, m]} of {n}" if ran[i, m] else "not run" for m in range(len(self.budgets))]
                for i, arm in enumerate(self.arms)]
        return result_table(rows, [Column("arm")] + [Column(f"after {b:,} steps") for b in self.budgets])

    def table(self) -> Table:
        """One row per arm: parameters, then mean ± sd (min–max) and solved seeds at each delay,
        after the full budget (shown as an HTML table in the book)."""
        n = len(self.seeds)
        acc = self.final()
        columns = [Column("arm"), Column("parameters", fmt=",")]
        for d in self.delays:
            columns += [Column(f"delay {d}: mean ± sd (min–max)"), Column(f"delay {d}: solved")]
        rows = []
        for i, arm in enumerate(self.arms):
            row = [arm.name, self.n_params[arm.name]]
            for j in range(len(self.delays)):
                a = acc[i, j]
                row += [f"{a.mean():.0%} ± {a.std():.0%} ({a.min():.0%}–{a.max():.0%})",
                        f"{(a >= self.solved_at).sum()} of {n}"]
            rows.append(row)
        return result_table(rows, columns)

    def solved_table(self) -> Table:
        """Seeds solved after the full budget with the Wilson 95% interval of the share, one row per
        arm and one column per delay (shown as an HTML table in the book)."""
        n = len(self.seeds)
        solved = self.solved()[:, :, -1]
        rows = [[arm.name] + [f"{k} of {n} ({lo:.0%}–{hi:.0%})"
                              for k in solved[i] for lo, hi in [wilson_interval(int(k), n)]]
                for i, arm in enumerate(self.arms)]
        columns = [Column("arm")] + [Column(f"delay {d}: solved (95% interval)") for d in self.delays]
        return result_table(rows, columns)

    experiment = "arms_experiment"  #: named in the error of the stopping-rule summaries

    def steps_table(self) -> Table:
        """One row per arm: at each delay, the seeds found solved by the cap (on the held-out solve
        batch) and their median updates to solve (shown as an HTML table in the book).

        Raises ``ValueError`` for a result of ``arms_experiment`` without ``stop_when_solved``.
        """
        self._stopping()
        n = len(self.seeds)
        median, censored = self.median_steps_to_solve(), self.n_censored()
        columns = [Column("arm")]
        for d in self.delays:
            columns += [Column(f"delay {d}: solved by step {self.cap:,}"),
                        Column(f"delay {d}: median steps to solve", fmt=",.0f")]
        rows = [[arm.name] + [value for j in range(len(self.delays))
                              for value in (f"{n - censored[i, j]} of {n}",
                                            None if np.isnan(median[i, j]) else float(median[i, j]))]
                for i, arm in enumerate(self.arms)]
        return result_table(rows, columns)


def arms_experiment(delays, arms=DELAY_ARMS, seeds=range(10), budgets=(100, 200, 300),
                    task: DelayTask = DelayTask(), config: TrainConfig = DELAY_CONFIG,
                    n_test: int = 500, *, stop_when_solved: bool = False, cap: int = 2000,
                    check_every: int = 25, solved_at: float = 0.95, n_solve: int = 500,
                    dtype=np.float64, arm_steps=None, keep_params=()) -> ArmsResult:
    """Train every arm from every seed at every delay on the same batches; test after each budget.

    At each delay all arms and seeds are trained together by :func:`seqmodels.training.pack.train_arms`
    (models of one kind and width as one packed model) on one stream of batches seeded by the
    delay, for ``max(budgets)`` steps with ``config``'s batch, learning rate, clipping and early
    stop; every model answers the same ``n_test`` test sequences after each budget.

    With ``stop_when_solved`` the models train to a stopping rule instead: up to ``cap`` updates,
    each stopping once it answers at least ``solved_at`` of ``n_solve`` held-out sequences (drawn
    at each delay from their own generator, ``default_rng([3000, delay])``; the test set's is
    ``default_rng([1000, delay])``) correctly, checked every ``check_every`` updates
    (:func:`seqmodels.training.pack.train_arms` with ``solve``); ``config.stop_loss`` still applies and
    ``config.steps`` is not used. The test accuracy is recorded after each budget and after the
    cap, which is appended to ``budgets`` (so :meth:`ArmsResult.final` is the accuracy where each
    model stopped), and the result holds ``steps_to_solve``, ``censored`` and ``cap``. By default
    the experiment is the fixed budget, unchanged. ``dtype`` (float64 or float32) is the
    arithmetic's (:func:`seqmodels.training.pack.train_arms`); float32 costs about half as much.

    ``arm_steps`` gives some arms (by name) a smaller budget, one of ``budgets``: they train for
    that many steps, and their accuracy after the later budgets is NaN (:meth:`ArmsResult.ran`).
    ``keep_params`` (some of ``budgets``) keeps every model's weights after those budgets, for
    :meth:`ArmsResult.up_to`.

    Raises
    ------
    ValueError
        empty ``delays`` or ``budgets``, a budget above ``config.steps`` (above ``cap`` with
        ``stop_when_solved``), bad arms or seeds, ``stop_when_solved`` not a bool, or ``cap``,
        ``check_every``, ``n_solve`` not integers >= 1 or ``solved_at`` not in (0, 1]; ``arm_steps``
        not a dict from arm names to budgets; ``keep_params`` not among the budgets.

    >>> r = arms_experiment([2], arms=DELAY_ARMS[:1], seeds=(0, 1), budgets=(5, 10),
    ...                     config=TrainConfig(steps=10), n_test=50)
    >>> r.accuracy.shape, r.n_params["RNN"]
    ((1, 1, 2, 2), 484)
    >>> r = arms_experiment([2], arms=DELAY_ARMS[4:5], seeds=(0, 1), budgets=(50,), n_test=50,
    ...                     stop_when_solved=True, cap=400, n_solve=100)
    >>> r.budgets, r.accuracy.shape, r.steps_to_solve.shape, r.n_censored()
    ((50, 400), (1, 1, 2, 2), (1, 1, 2), array([[0]]))
    """
    delays = np.asarray([positive_int("delays", int(d), minimum=0) for d in delays])
    budgets = tuple(sorted(positive_int("budgets", b) for b in budgets))
    if delays.size == 0 or not budgets:
        raise ValueError("delays and budgets must each hold at least one value")
    if not isinstance(stop_when_solved, (bool, np.bool_)):
        raise ValueError(f"stop_when_solved must be True or False, got {stop_when_solved!r}")
    solved_at = finite_float("solved_at", solved_at, low=0, high=1, low_open=True)
    cap, n_solve = positive_int("cap", cap), positive_int("n_solve", n_solve)
    check_every = positive_int("check_every", check_every)
    if stop_when_solved:
        if budgets[-1] > cap:
            raise ValueError(f"budgets must be <= cap = {cap} with stop_when_solved, got {budgets[-1]}")
        budgets = tuple(sorted(set(budgets) | {cap}))
    elif budgets[-1] > config.steps:
        raise ValueError(f"budgets must be <= config.steps = {config.steps}, got {budgets[-1]}")
    arms, seeds = tuple(arms), tuple(int(s) for s in seeds)
    arm_steps = {} if arm_steps is None else arm_steps
    if not isinstance(arm_steps, dict) or not all(b in budgets for b in arm_steps.values()):
        raise ValueError(f"arm_steps must be a dict from arm names to budgets {budgets}, got {arm_steps!r}")
    keep_params = tuple(keep_params)
    if not all(b in budgets for b in keep_params):
        raise ValueError(f"keep_params must be among the budgets {budgets}, got {keep_params!r}")
    acc = np.empty((len(arms), len(delays), len(budgets), len(seeds)))
    steps = np.empty((len(arms), len(delays), len(seeds)), dtype=int)
    censored = np.empty((len(arms), len(delays), len(seeds)), dtype=bool)
    runs = {}
    for j, delay in enumerate(int(d) for d in delays):
        test = task.sample(np.random.default_rng([1000, delay]), n_test, delay)

        def sample(rng, n, delay=delay):
            return task.sample(rng, n, delay)

        rule = {}
        if stop_when_solved:
            rule = dict(solve=task.sample(np.random.default_rng([3000, delay]), n_solve, delay),
                        solved_at=solved_at, check_every=check_every)
        runs[delay] = train_arms(arms, sample, task.d_in, task.n_symbols, seeds, replace(config, steps=budgets[-1]),
                                 data_seed=delay, test=test, checkpoints=budgets, dtype=dtype,
                                 arm_steps=arm_steps, keep_params=keep_params, **rule)
        for i, arm in enumerate(arms):
            run = runs[delay][arm.name]
            for m, b in enumerate(budgets):
                acc[i, j, m] = run.checkpoint_accuracy[b]
            if stop_when_solved:
                steps[i, j], censored[i, j] = run.steps_to_solve, ~run.solved
    stopping = dict(steps_to_solve=steps, censored=censored, cap=cap) if stop_when_solved else {}
    return ArmsResult(arms, delays, budgets, seeds, acc, runs,
                      {a.name: a.n_params(task.d_in, task.n_symbols) for a in arms}, 1.0 / task.n_symbols,
                      solved_at, **stopping)
