"""Timing on one BLAS thread: the same arithmetic in the same order on every machine, and the
fastest of interleaved runs.

- :func:`one_blas_thread`: run a function with matrix products on one thread (same sums on every
  machine, no contention on a busy one);
- :func:`interleaved_best`: the shortest CPU time of each of several functions, their runs
  interleaved (the timed experiments of :mod:`seqmodels.experiments.production.timing` and
  :mod:`seqmodels.experiments.bottlenecks.comparison` compare variants with it).
"""

from __future__ import annotations

import functools
import time

import numpy as np
from threadpoolctl import threadpool_limits

from seqmodels.common._checks import positive_int


def one_blas_thread(fn):
    """Run ``fn`` with matrix products on one thread: the same arithmetic, in the same order, on
    every machine, and no slowdown from threads competing with other processes.

    Raises ``ValueError`` if ``fn`` is not callable."""
    if not callable(fn):
        raise ValueError(f"fn must be callable, got {type(fn).__name__}")
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with threadpool_limits(limits=1, user_api="blas"):
            return fn(*args, **kwargs)
    return wrapper


def interleaved_best(fns: dict, repeat: int) -> dict[str, float]:
    """The shortest of ``repeat`` times of each function, in seconds of this process's CPU time
    (``time.process_time``), the runs interleaved (one of each per round).

    Unlike wall time, CPU time does not count the time the process waits while other processes
    hold the cores. It still counts what a busy machine does to the process while it runs: caches
    and memory bandwidth shared with other processes slow it, and not every variant by the same
    factor. Interleaving spreads load that changes over time across
    the variants; it does not make the load slow them alike. ``make portability`` runs the timing
    pages again under such load, and their asserts must hold there too.

    >>> sorted(interleaved_best({"a": lambda: None, "b": lambda: sum(range(100))}, repeat=2))
    ['a', 'b']

    Raises
    ------
    ValueError
        ``fns`` not a non-empty dict of callables, or ``repeat`` not an integer >= 1.
    """
    if not isinstance(fns, dict) or not fns or not all(callable(f) for f in fns.values()):
        raise ValueError(f"fns must be a non-empty dict of name -> callable, got {fns!r}")
    repeat = positive_int("repeat", repeat)
    best = {name: np.inf for name in fns}
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(repeat):
            for name, fn in fns.items():
                start = time.process_time()
                fn()
                best[name] = min(best[name], time.process_time() - start)
    return {name: float(t) for name, t in best.items()}
