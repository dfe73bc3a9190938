"""Counting solved seeds: a confidence interval for a proportion and a test of two proportions.

- :func:`wilson_interval`: the Wilson score interval of ``k`` successes in ``n`` trials;
- :func:`fisher_exact`: Fisher's exact test that two proportions share one rate (two-sided);
- :func:`geometric_mean`: the mean in log space of non-negative measurements (gradient norms that
  span orders of magnitude).
"""

from __future__ import annotations

import math

import numpy as np

from seqmodels.common._checks import as_float_array, finite_float, positive_int


def wilson_interval(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for a proportion ``k / n`` (default: 95%).

    Raises ``ValueError`` unless ``n >= 1`` and ``0 <= k <= n`` are integers and ``z > 0``.

    >>> [round(x, 3) for x in wilson_interval(6, 10)]
    [0.313, 0.832]
    >>> [round(x, 3) for x in wilson_interval(10, 10)]
    [0.722, 1.0]
    """
    n = positive_int("n", n)
    k = positive_int("k", k, minimum=0)
    if k > n:
        raise ValueError(f"k must be <= n = {n}, got {k}")
    z = finite_float("z", z, low=0)
    if z == 0:
        raise ValueError("z must be > 0, got 0")
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def fisher_exact(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided p-value of Fisher's exact test that ``k1 / n1`` and ``k2 / n2`` share one rate.

    Sums the hypergeometric probabilities of every table with the margins of the observed one that
    is no more probable than it (the usual two-sided rule, with a relative tolerance of 1e-7).

    Raises ``ValueError`` unless ``n1, n2 >= 1`` and ``0 <= k1 <= n1``, ``0 <= k2 <= n2`` are integers.

    >>> round(fisher_exact(10, 10, 6, 10), 4)
    0.0867
    >>> round(fisher_exact(3, 10, 10, 10), 4), fisher_exact(5, 10, 5, 10)
    (0.0031, 1.0)
    """
    n1, n2 = positive_int("n1", n1), positive_int("n2", n2)
    k1, k2 = positive_int("k1", k1, minimum=0), positive_int("k2", k2, minimum=0)
    if k1 > n1 or k2 > n2:
        raise ValueError(f"k1 must be <= n1 and k2 <= n2, got k1={k1}, n1={n1}, k2={k2}, n2={n2}")
    total, K = n1 + n2, k1 + k2
    denom = math.comb(total, K)
    probs = {a: math.comb(n1, a) * math.comb(n2, K - a) / denom
             for a in range(max(0, K - n2), min(K, n1) + 1)}
    observed = probs[k1]
    return min(1.0, sum(q for q in probs.values() if q <= observed * (1 + 1e-7)))


def geometric_mean(rows, axis: int = 0) -> np.ndarray:
    """``exp(mean(log rows))`` along ``axis``: the geometric mean of non-negative measurements; a
    zero among them makes the mean zero.

    Raises
    ------
    ValueError
        ``rows`` not a finite array of at least one dimension with no negative entry, or empty
        along ``axis``; ``axis`` not an axis of ``rows``.

    >>> geometric_mean([[1.0, 0.0], [100.0, 5.0]]).tolist()
    [10.0, 0.0]
    """
    rows = as_float_array("rows", rows, ndims=tuple(range(1, 33)))
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool) or not -rows.ndim <= axis < rows.ndim:
        raise ValueError(f"axis must be an axis of rows (ndim {rows.ndim}), got {axis!r}")
    if rows.shape[axis] == 0:
        raise ValueError(f"rows must hold at least one measurement along axis {axis}, got shape {rows.shape}")
    if (rows < 0).any():
        raise ValueError("rows must be non-negative (norms, counts), got a negative entry")
    with np.errstate(divide="ignore"):
        return np.exp(np.log(rows).mean(axis=axis))
