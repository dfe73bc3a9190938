r"""The numerical primitives every model shares, each computed so that it cannot overflow (but
:func:`sigmoid_unchecked`, the form inner loops call on checked inputs, whose ``exp`` may overflow
to ``inf`` and give the exact limit 0).

- :func:`sigmoid` ``1 / (1 + exp(-z))`` and :func:`log_sigmoid` ``log sigmoid(z)``;
- :func:`softmax` and :func:`log_softmax` along an axis, shifted by the maximum first;
- :func:`softmax_cross_entropy`, the mean cross-entropy of integer labels and its gradient, and
  :func:`packed_cross_entropy_`, the same for a pack of models' logits at once (unchecked, for inner
  loops);
- :func:`sigmoid_from_tanh` and :func:`sigmoid_of_half`, the gate nonlinearity as the batched
  kernel (:mod:`seqmodels.kernels.recurrent`) computes it, ``sigmoid(z) = (1 + tanh(z / 2)) / 2``,
  with ``out=``; :func:`softmax_`, the softmax in place for inner loops.

Every model imports them from here. (The readable models compute their gates as their equations
say, with the plain sigmoid (:func:`sigmoid_unchecked` on inputs checked once); only the
kernel uses the ``tanh`` identity.)
"""

from __future__ import annotations

import numpy as np

from seqmodels.common._checks import as_float_array, as_ids, positive_int


def sigmoid(z) -> np.ndarray:
    """The logistic function ``1 / (1 + exp(-z))``, computed without overflow.

    ``exp`` is only ever taken of ``-|z|``, so ``|z| = 1e4`` raises no warning: for ``z >= 0`` the
    value is ``1 / (1 + e)``, for ``z < 0`` it is ``e / (1 + e)``, with ``e = exp(-|z|)``.

    Raises
    ------
    ValueError
        ``z`` is not a finite real array (NaN, inf, object or string dtype).

    >>> sigmoid(np.array([-1e4, -1.0, 0.0, 1.0, 1e4]))
    array([0.        , 0.26894142, 0.5       , 0.73105858, 1.        ])
    """
    z = as_float_array("z", z, ndims=tuple(range(33)))
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def sigmoid_unchecked(z: np.ndarray) -> np.ndarray:
    """:func:`sigmoid` for inner loops over arrays already checked: it checks only that ``z`` is a
    floating-point ndarray (no scan of its values for NaN or inf).

    ``1 / (1 + exp(-z))`` itself, one ``exp``: where ``exp(-z)`` overflows (``z`` below about
    -709 in float64, -88 in float32) it is ``inf`` and the sigmoid exactly 0, as the checked
    :func:`sigmoid` gives (the overflow is expected, so it raises no warning).

    Raises
    ------
    ValueError
        ``z`` not a numpy array of a floating-point dtype.

    >>> sigmoid_unchecked(np.array([-1e4, 0.0, 1.0, 1e4]))
    array([0.        , 0.5       , 0.73105858, 1.        ])
    """
    if not isinstance(z, np.ndarray) or z.dtype.kind != "f":
        raise ValueError(f"z must be a floating-point numpy array (checked by the caller), got "
                         f"{type(z).__name__}{' of dtype ' + str(z.dtype) if isinstance(z, np.ndarray) else ''}")
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-z))


def sigmoid_from_tanh(t: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``(1 + t) / 2``, computed as ``0.5 + 0.5 t``: ``sigmoid(z)`` given ``t = tanh(z / 2)``.

    The identity lets one ``tanh`` call serve a layer's sigmoid gates and its tanh candidate at
    once (:mod:`seqmodels.kernels.recurrent`). Written into ``out`` (which may be ``t``; a new array by default).
    It checks only that ``t`` is a floating-point ndarray.

    Raises
    ------
    ValueError
        ``t`` not a numpy array of a floating-point dtype.

    >>> z = np.array([-3.0, 0.0, 2.0])
    >>> bool(np.allclose(sigmoid_from_tanh(np.tanh(z / 2)), sigmoid(z)))
    True
    """
    if not isinstance(t, np.ndarray) or t.dtype.kind != "f":
        raise ValueError(f"t must be a floating-point numpy array, got "
                         f"{type(t).__name__}{' of dtype ' + str(t.dtype) if isinstance(t, np.ndarray) else ''}")
    out = np.multiply(t, 0.5, out=out)
    return np.add(out, 0.5, out=out)


def sigmoid_of_half(a: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``sigmoid(2 a) = (1 + tanh(a)) / 2`` for a floating-point array ``a`` that holds *half* the
    pre-activation, written into ``out`` (which may be ``a`` itself; a new array by default).

    One ``tanh`` call, which numpy vectorises in float32 and float64 and which cannot overflow;
    the batched kernel folds the factor 1/2 into its weights (a power of two: exact). For the
    hot loop it checks only that ``a`` is a floating-point ndarray, not its values.

    Raises
    ------
    ValueError
        ``a`` not a numpy array of a floating-point dtype.

    >>> a = np.array([-1e4, 0.0, 0.5])
    >>> bool(np.allclose(sigmoid_of_half(a), sigmoid(2 * a)))
    True
    """
    if not isinstance(a, np.ndarray) or a.dtype.kind != "f":
        raise ValueError(f"a must be a floating-point numpy array (checked by the caller), got "
                         f"{type(a).__name__}{' of dtype ' + str(a.dtype) if isinstance(a, np.ndarray) else ''}")
    t = np.tanh(a, out=out)
    return sigmoid_from_tanh(t, out=t)


def log_sigmoid(z) -> np.ndarray:
    """``log sigmoid(z) = -log(1 + exp(-z))``, without overflow for large ``|z|``.

    Raises
    ------
    ValueError
        ``z`` is not a finite real array.

    A float32 input gives a float32 result (word2vec trains in float32).

    >>> log_sigmoid(np.array([-1000.0, 0.0, 1000.0]))
    array([-1.00000000e+03, -6.93147181e-01, -0.00000000e+00])
    """
    z = np.asarray(z)
    if z.dtype.kind != "f":
        z = as_float_array("z", z, ndims=tuple(range(33)))
    elif not np.isfinite(z).all():
        raise ValueError("z must be finite, got NaN or inf")
    return -np.logaddexp(0.0, -z)


def _shifted(scores, axis):
    s = np.asarray(scores)
    if s.dtype.kind not in "fiu":
        raise ValueError(f"scores must be a real numeric array, got dtype {s.dtype}")
    s = s.astype(np.float64, copy=False)
    if s.ndim == 0 or not -s.ndim <= axis < s.ndim:
        raise ValueError(f"axis must index one of the {s.ndim} axes of scores, got {axis}")
    if s.shape[axis] == 0:
        raise ValueError(f"scores must hold at least one entry along axis {axis}, got shape {s.shape}")
    s_max = s.max(axis=axis, keepdims=True)
    if not np.isfinite(s_max).all() or np.isnan(s).any():
        raise ValueError("scores must have at least one finite entry per row and no +inf or NaN "
                         "(-inf marks a masked entry)")
    return s - s_max


def softmax(scores, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax: ``exp(s - max(s)) / sum(exp(s - max(s)))`` along ``axis``.

    Subtracting the row maximum changes nothing mathematically (it cancels in the ratio) but keeps
    every exponent ``<= 0``, so ``exp`` never overflows. Entries equal to ``-inf`` (masked) get
    weight exactly 0; a row must hold at least one finite entry.

    Raises
    ------
    ValueError
        ``scores`` holds NaN or ``+inf``, a row with no finite entry, or ``axis`` is out of range.

    >>> softmax(np.array([1000.0, 1000.0, -np.inf]))
    array([0.5, 0.5, 0. ])
    """
    e = np.exp(_shifted(scores, axis))
    return e / e.sum(axis=axis, keepdims=True)


def softmax_(s: np.ndarray, axis: int = -1) -> np.ndarray:
    """:func:`softmax` in place, for inner loops on arrays already checked: ``s`` (a float ndarray)
    becomes ``exp(s - max s) / sum exp(s - max s)`` along ``axis`` and is returned. No scan for NaN;
    every row must hold a finite maximum (``-inf`` entries become exactly 0).

    Raises
    ------
    ValueError
        ``s`` not a numpy array of a floating-point dtype.

    >>> softmax_(np.array([[0.0, np.log(3.0)], [5.0, -np.inf]]))
    array([[0.25, 0.75],
           [1.  , 0.  ]])
    """
    if not isinstance(s, np.ndarray) or s.dtype.kind != "f":
        raise ValueError(f"s must be a floating-point numpy array, got {type(s).__name__}")
    s -= s.max(axis=axis, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(axis=axis, keepdims=True)
    return s


def log_softmax(scores, axis: int = -1) -> np.ndarray:
    """``log softmax(s) = (s - max s) - log sum exp(s - max s)`` along ``axis``, without overflow.

    Raises
    ------
    ValueError
        as :func:`softmax`.

    >>> log_softmax(np.array([1000.0, 1000.0])).round(6)
    array([-0.693147, -0.693147])
    """
    shifted = _shifted(scores, axis)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def softmax_cross_entropy(logits, labels) -> tuple[float, np.ndarray]:
    """Mean cross-entropy of integer ``labels`` under ``softmax(logits)``, and its gradient.

    ``loss = -mean_n log p[n, labels[n]]`` with ``log p = log_softmax(logits)``, and
    ``dlogits = (p - onehot(labels)) / batch``.

    Parameters
    ----------
    logits : ndarray of shape (batch, n_classes), batch >= 1
    labels : integer ndarray of shape (batch,), entries in ``0 .. n_classes - 1``

    Raises
    ------
    ValueError
        non-finite logits, an empty batch, labels of another shape, dtype or range.

    >>> loss, dlogits = softmax_cross_entropy(np.zeros((2, 4)), np.array([0, 3]))
    >>> round(loss, 6) == round(float(np.log(4)), 6), dlogits[0]
    (True, array([-0.375,  0.125,  0.125,  0.125]))
    """
    logits = as_float_array("logits", logits, ndims=(2,))
    if logits.shape[0] == 0 or logits.shape[1] == 0:
        raise ValueError(f"logits must have shape (batch, n_classes) with both >= 1, got {logits.shape}")
    labels = as_ids("labels", labels, logits.shape[1], what="class labels")
    if labels.shape != logits.shape[:1]:
        raise ValueError(f"labels must have shape (batch,) = {logits.shape[:1]}, got {labels.shape}")
    log_p = log_softmax(logits, axis=1)  # (batch, n_classes)
    rows = np.arange(len(labels))
    loss = -float(log_p[rows, labels].mean())
    dlogits = np.exp(log_p)
    dlogits[rows, labels] -= 1.0
    return loss, dlogits / len(labels)


def packed_cross_entropy_(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`softmax_cross_entropy` for a pack of ``S`` models at once, in inner loops: ``logits``
    (S, N, n_classes), ``labels`` (N,) shared by every model or (S, N), one set per model. Returns each
    model's mean cross-entropy ``losses`` (S,) and ``dlogits`` (S, N, n_classes), model ``s``'s
    gradient of its own ``losses[s]``. The caller has checked ``labels`` once and the logits are
    finite: no scan of either (a NaN in ``logits`` gives NaN losses). In float64 whatever the
    logits' dtype: ``s = logits - max``, ``losses = mean(log sum exp s - s[label])``,
    ``dlogits = (exp s / sum exp s - onehot) / N``.

    Raises
    ------
    ValueError
        ``logits`` not a 3-D numpy array of a floating-point dtype.

    >>> losses, d = packed_cross_entropy_(np.zeros((1, 2, 2)), np.array([0, 1]))
    >>> losses.round(4).tolist(), d[0].tolist()
    ([0.6931], [[-0.25, 0.25], [0.25, -0.25]])
    """
    if not isinstance(logits, np.ndarray) or logits.dtype.kind != "f" or logits.ndim != 3:
        raise ValueError("logits must be a 3-D floating-point numpy array (S, N, n_classes), checked by the caller")
    S, N, _ = logits.shape
    shifted = logits - logits.max(axis=-1, keepdims=True)
    shifted = shifted.astype(np.float64, copy=False)
    e = np.exp(shifted)
    total = e.sum(axis=-1, keepdims=True)  # (S, N, 1)
    rows = (np.arange(S)[:, None], np.arange(N)[None], labels if labels.ndim == 2 else labels[None])
    losses = (np.log(total[..., 0]) - shifted[rows]).mean(axis=1)
    e /= total
    e[rows] -= 1.0
    e /= N
    return losses, e


def workspace(max_bytes: int):
    """A cache of reusable scratch arrays: returns ``get(name, shape, dtype)``, which gives an
    uninitialised array (contents undefined) for that name, shape and dtype, the same one on every
    call, keeping at most ``max_bytes`` of them (the least recently used are dropped first).

    Training loops write their intermediates into such arrays (``out=``) instead of letting numpy
    allocate fresh ones: the arithmetic, and so every result, is the same; what it saves is mapping
    new memory of a few hundred kilobytes on first touch, which costs more than the arithmetic done
    in it. ``get`` sits on the hot path and does not check its arguments; each module keeps its own
    cache, so two modules never share a buffer.

    Raises
    ------
    ValueError
        ``max_bytes`` not an integer >= 1.

    >>> get = workspace(2 ** 20)
    >>> a = get("h", (2, 3), np.float64)
    >>> a is get("h", (2, 3), np.float64), a is get("h", (3, 2), np.float64)
    (True, False)
    """
    max_bytes = positive_int("max_bytes", max_bytes)
    arrays: dict = {}

    def get(name: str, shape, dtype) -> np.ndarray:
        key = (name, tuple(shape), np.dtype(dtype))
        arr = arrays.pop(key, None)
        if arr is None:
            arr = np.empty(key[1], key[2])
            total = sum(a.nbytes for a in arrays.values()) + arr.nbytes
            for old in list(arrays):
                if total <= max_bytes:
                    break
                total -= arrays.pop(old).nbytes
        arrays[key] = arr  # most recently used last
        return arr

    return get
