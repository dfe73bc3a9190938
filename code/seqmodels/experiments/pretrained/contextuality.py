r"""Corrections for reading cosines of contextual vectors: baselines, rogue dimensions, bootstrap.

Ethayarajh (2019) reads a layer's cosines against its **anisotropy baseline** ``b``, the mean cosine
of random pairs of tokens, and subtracts it. Other corrections in use change the vectors or the
scale instead; they need not agree, and the pretrained chapter compares them:

- :func:`adjust_similarity`: ``s - b`` (Ethayarajh's subtraction) or ``(s - b) / (1 - b)``
  (rescaling, which maps the baseline to 0 and a cosine of 1 to 1);
- :func:`correct_vectors`: subtract the mean vector of a reference sample (centring), or also
  divide every dimension by its standard deviation over the sample (standardising; Timkey & van
  Schijndel 2021), before any cosine is taken;
- :func:`cosine_contributions` and :func:`top_share`: how much each dimension adds to a mean
  cosine. For unit vectors ``u = x / |x|`` and ``v = y / |y|``, ``cos(x, y) = sum_i u_i v_i``, so
  the mean cosine over pairs is the sum over dimensions of ``mean(u_i v_i)``. Timkey & van Schijndel
  call the few dimensions that dominate this sum **rogue dimensions**;
- :func:`bootstrap_mean_interval`: a percentile bootstrap interval for a mean over words (or
  sentences), resampling them with replacement.
"""

from __future__ import annotations

import numpy as np

from seqmodels.common._checks import as_float_array, as_rng, finite_float, one_of, positive_int


def _vectors(name: str, x, min_ndim: int = 1) -> np.ndarray:
    x = as_float_array(name, x, ndims=tuple(range(min_ndim, 9)), keep_float32=True)
    if 0 in x.shape:
        raise ValueError(f"{name} must have no empty axis, got shape {x.shape}")
    return x


def cosine_contributions(U, V) -> np.ndarray:
    """Each dimension's share of the mean cosine of paired vectors: ``mean_n u_i v_i``.

    With ``u = U[..., n, :] / |U[..., n, :]|`` and ``v`` likewise, returns ``mean over n of
    u_i v_i`` for every dimension ``i``; its sum over ``i`` is the mean cosine of the pairs
    (Timkey & van Schijndel 2021, who call the few dimensions that dominate it rogue dimensions).

    Parameters
    ----------
    U, V : ndarray of shape (..., n, d), the same shape; row ``n`` of ``U`` is paired with row ``n``
        of ``V``. Leading axes (a layer, say) are kept.

    Returns
    -------
    ndarray of shape (..., d), in float64.

    Raises
    ------
    ValueError
        ``U`` or ``V`` not a finite float array of at least 2 dimensions with no empty axis; the
        two of different shapes; a row of zeros (it has no direction).

    >>> U = np.array([[1.0, 0.0], [3.0, 4.0]])
    >>> V = np.array([[1.0, 1.0], [3.0, 4.0]])
    >>> c = cosine_contributions(U, V)
    >>> c.round(4).tolist(), round(float(c.sum()), 4)   # the mean of the cosines 0.7071 and 1
    ([0.5336, 0.32], 0.8536)
    """
    U, V = _vectors("U", U, 2), _vectors("V", V, 2)
    if U.shape != V.shape:
        raise ValueError(f"U and V must have the same shape (..., n, d), got U {U.shape} and V {V.shape}")
    nu = np.linalg.norm(U.astype(np.float64), axis=-1, keepdims=True)
    nv = np.linalg.norm(V.astype(np.float64), axis=-1, keepdims=True)
    for name, norms in (("U", nu), ("V", nv)):
        if not (norms > 0).all():
            raise ValueError(f"{name} must have no row of zeros (a zero vector has no cosine)")
    return (U / nu * (V / nv)).mean(axis=-2)


def top_share(contributions, k: int = 3) -> np.ndarray:
    """The share of the ``k`` largest contributions in their total: ``sum(top k) / sum(all)``.

    Parameters
    ----------
    contributions : ndarray of shape (..., d), as :func:`cosine_contributions` returns them;
        every total along the last axis must be > 0 (a share of a mean cosine of 0 or less means
        nothing).
    k : int, ``1 <= k <= d``

    Returns
    -------
    ndarray of shape (...,); a value above 1 means the other dimensions add up to less than 0.

    Raises
    ------
    ValueError
        ``contributions`` not a finite float array with no empty axis, or a total <= 0; ``k`` not
        an integer in ``[1, d]``.

    >>> top_share(np.array([[0.5, 0.1, 0.3, 0.1], [0.1, 0.1, 0.1, 0.1]]), k=2).round(6).tolist()
    [0.8, 0.5]
    """
    c = _vectors("contributions", contributions).astype(np.float64)
    k = positive_int("k", k)
    if k > c.shape[-1]:
        raise ValueError(f"k must be at most the number of dimensions {c.shape[-1]}, got {k}")
    total = c.sum(axis=-1)
    if not (total > 0).all():
        raise ValueError("contributions must sum to more than 0 along the last axis, got a total "
                         f"of {float(total.min()):.3g}")
    return np.sort(c, axis=-1)[..., -k:].sum(axis=-1) / total


def adjust_similarity(similarity, baseline, method: str):
    """A mean cosine read against the baseline ``b``: ``"subtract"`` gives ``s - b``
    (Ethayarajh 2019, Section 3.4), ``"rescale"`` gives ``(s - b) / (1 - b)``, which also maps a
    cosine of 1 to 1.

    Parameters
    ----------
    similarity : float or ndarray, mean cosines in ``[-1, 1]``
    baseline : float or ndarray broadcastable against ``similarity``, in ``[-1, 1)``
    method : ``"subtract"`` or ``"rescale"``

    Returns
    -------
    ndarray (float64) of the broadcast shape.

    Raises
    ------
    ValueError
        ``similarity`` or ``baseline`` not finite, outside ``[-1, 1]`` (beyond float rounding,
        1e-6), or not broadcastable; ``baseline`` of 1 or more under ``"rescale"`` (no room left
        above it); ``method`` not one of the two.

    >>> adjust_similarity(np.array([0.6, 1.0]), 0.2, "subtract").round(3).tolist()
    [0.4, 0.8]
    >>> adjust_similarity(np.array([0.6, 1.0]), 0.2, "rescale").round(3).tolist()
    [0.5, 1.0]
    """
    one_of("method", method, ("subtract", "rescale"))
    s = as_float_array("similarity", similarity, ndims=tuple(range(9)))
    b = as_float_array("baseline", baseline, ndims=tuple(range(9)))
    for name, x in (("similarity", s), ("baseline", b)):
        if x.size and np.abs(x).max() > 1 + 1e-6:
            raise ValueError(f"{name} must hold cosines in [-1, 1], got {float(np.abs(x).max()):.6g}")
    try:
        np.broadcast_shapes(s.shape, b.shape)
    except ValueError:
        raise ValueError(f"baseline of shape {b.shape} must broadcast against similarity of shape "
                         f"{s.shape}") from None
    if method == "subtract":
        return s - b
    if b.size and b.max() >= 1:
        raise ValueError(f"baseline must be below 1 to rescale by 1 - baseline, got {float(b.max())}")
    return (s - b) / (1 - b)


def correct_vectors(X, reference, method: str, rtol: float = 1e-6) -> np.ndarray:
    """Vectors centred (``"centre"``: ``x - mean``) or standardised (``"standardise"``:
    ``(x - mean) / std`` per dimension) with statistics of a reference sample.

    Standardising is the correction of Timkey & van Schijndel (2021): after it no dimension can
    dominate a cosine by its scale. A dimension whose standard deviation is at most ``rtol`` times
    the largest one is constant to float precision; dividing by its spread would blow rounding noise
    up to unit size, so it is set to 0 instead (it carries nothing to compare).

    Parameters
    ----------
    X : ndarray of shape (..., d), the vectors to correct; with a 3-D ``reference``, of shape
        ``(L, ..., d)`` with the same ``L``, corrected slice by slice.
    reference : ndarray of shape (n, d) or (L, n, d), ``n >= 2`` vectors (per slice) the mean and
        standard deviation (population, ``ddof = 0``) are taken over.
    method : ``"centre"`` or ``"standardise"``
    rtol : float in ``[0, 1)``, the spread below which (relative to the largest) a dimension counts
        as constant.

    Returns
    -------
    ndarray of ``X``'s shape, float32 if both inputs are float32, else float64.

    Raises
    ------
    ValueError
        ``X`` or ``reference`` not a finite float array with no empty axis, ``reference`` not 2-D
        or 3-D with ``n >= 2``, widths ``d`` that differ, a 3-D ``reference`` whose ``L`` is not
        ``X``'s first axis; every dimension of a slice constant under ``"standardise"``;
        ``method`` not one of the two; ``rtol`` not a finite number in ``[0, 1)``.

    >>> R = np.array([[0.0, 1.0, 5.0], [4.0, 3.0, 5.0]])   # means 2, 2, 5; deviations 2, 1, 0
    >>> correct_vectors(np.array([[1.0, 4.0, 5.0]]), R, "centre").tolist()
    [[-1.0, 2.0, 0.0]]
    >>> correct_vectors(np.array([[1.0, 4.0, 5.0]]), R, "standardise").tolist()
    [[-0.5, 2.0, 0.0]]
    """
    one_of("method", method, ("centre", "standardise"))
    rtol = finite_float("rtol", rtol, low=0)
    if rtol >= 1:
        raise ValueError(f"rtol must be a finite number in [0, 1), got {rtol!r}")
    X, R = _vectors("X", X), _vectors("reference", reference, 2)
    if R.ndim not in (2, 3) or R.shape[-2] < 2:
        raise ValueError(f"reference must have shape (n, d) or (L, n, d) with n >= 2, got {R.shape}")
    if R.shape[-1] != X.shape[-1]:
        raise ValueError(f"reference must have X's width d = {X.shape[-1]}, got {R.shape[-1]}")
    if R.ndim == 3 and (X.ndim < 2 or X.shape[0] != R.shape[0]):
        raise ValueError(f"X must have shape (L, ..., d) with L = {R.shape[0]} for a reference of shape "
                         f"{R.shape}, got {X.shape}")
    dtype = np.float32 if X.dtype == R.dtype == np.float32 else np.float64
    R64 = R.astype(np.float64)
    mean = R64.mean(axis=-2)  # (d,) or (L, d)
    factor = None
    if method == "standardise":
        std = R64.std(axis=-2)
        largest = std.max(axis=-1, keepdims=True)
        if not (largest > 0).all():
            raise ValueError("reference must vary in at least one dimension to standardise, got "
                             "every dimension constant")
        varies = std > rtol * largest
        factor = np.where(varies, 1.0 / np.where(varies, std, 1.0), 0.0)
    if R.ndim == 3:  # (L, d) -> (L, 1, ..., 1, d)
        shape = (R.shape[0],) + (1,) * (X.ndim - 2) + (X.shape[-1],)
        mean = mean.reshape(shape)
        factor = None if factor is None else factor.reshape(shape)
    out = X.astype(dtype, copy=False) - mean.astype(dtype)
    if method == "standardise":
        out *= factor.astype(dtype)
    return out


def bootstrap_mean_interval(values, level: float = 0.95, n_resamples: int = 2000, seed=0):
    """Percentile bootstrap interval for the mean over the first axis (words, say).

    Draws ``n_resamples`` samples of the rows with replacement, each the size of ``values``,
    takes the mean of each and returns the ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles
    of those means. The interval speaks only of the rows' sampling: anything computed once for
    all rows (a baseline, say) is held fixed.

    Parameters
    ----------
    values : ndarray of shape (n, ...), ``n >= 2`` rows
    level : float in ``(0, 1)``
    n_resamples : int >= 100
    seed : int >= 0 or numpy.random.Generator

    Returns
    -------
    (low, high) : two ndarrays of shape ``values.shape[1:]`` (float64)

    Raises
    ------
    ValueError
        ``values`` not a finite float array of at least 1 dimension with ``n >= 2`` rows and no
        empty axis; ``level`` not in ``(0, 1)``; ``n_resamples`` not an integer >= 100; ``seed``
        neither a Generator nor an int >= 0.

    >>> low, high = bootstrap_mean_interval(np.arange(20.0), seed=0)
    >>> bool(low < 9.5 < high), bool(high - low < 6)
    (True, True)
    """
    x = _vectors("values", values).astype(np.float64)
    if x.shape[0] < 2:
        raise ValueError(f"values must have at least 2 rows to resample, got {x.shape[0]}")
    level = finite_float("level", level, low=0, low_open=True)
    if level >= 1:
        raise ValueError(f"level must be a finite number in (0, 1), got {level!r}")
    n_resamples = positive_int("n_resamples", n_resamples, minimum=100)
    rng = as_rng("seed", seed)
    picks = rng.integers(x.shape[0], size=(n_resamples, x.shape[0]))
    means = x[picks].mean(axis=1)  # (n_resamples, ...)
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return low, high
