"""Input checks shared by every module: each message names the argument, what was expected and
what arrived, so a reader who passes the wrong thing learns which thing it was.

Which exception for which mistake follows the one rule of the package's Conventions (``Errors``
in ``seqmodels/__init__.py``); :func:`one_of` is the check for an option. Nothing here is public
API: the modules call these helpers and document the errors in their own "Raises" sections.
"""

from __future__ import annotations

import numbers

import numpy as np


def as_float_array(name: str, value, ndims: tuple[int, ...], keep_float32: bool = False) -> np.ndarray:
    """Return ``value`` as a finite float64 array whose number of dimensions is in ``ndims``
    (with ``keep_float32``, a float32 array stays float32).

    Lists are accepted (they are unambiguous); object, bool, string and complex arrays are not.

    >>> as_float_array("x", [1, 2], ndims=(1,))
    array([1., 2.])
    >>> as_float_array("x", [1.0, float("nan")], ndims=(1,))
    Traceback (most recent call last):
    ...
    ValueError: x must be finite, got NaN or inf at index (1,)
    """
    try:
        arr = np.asarray(value)
    except ValueError as err:  # ragged nested lists
        raise ValueError(f"{name} must be a rectangular numeric array, got {type(value).__name__} ({err})") from None
    if arr.dtype.kind not in "fiu":
        raise ValueError(f"{name} must be a real numeric array, got dtype {arr.dtype}")
    if arr.ndim not in ndims:
        want = " or ".join(f"{d}-D" for d in ndims)
        raise ValueError(f"{name} must be {want}, got shape {arr.shape}")
    if not (keep_float32 and arr.dtype == np.float32):
        arr = arr.astype(np.float64, copy=False)
    if not np.isfinite(arr).all():
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise ValueError(f"{name} must be finite, got NaN or inf at index {bad}")
    return arr


def check_shape(name: str, arr: np.ndarray, expected: tuple[int, ...], described: str) -> None:
    """Raise ``ValueError`` unless ``arr.shape == expected``; ``described`` names the axes.

    >>> import numpy as np
    >>> check_shape("W_h", np.zeros((3, 2)), (3, 3), "(d_hidden, d_hidden)")
    Traceback (most recent call last):
    ...
    ValueError: W_h must have shape (d_hidden, d_hidden) = (3, 3), got (3, 2)
    """
    if np.shape(arr) != tuple(expected):
        raise ValueError(f"{name} must have shape {described} = {tuple(expected)}, got {np.shape(arr)}")


def check_sequence(name: str, xs: np.ndarray) -> None:
    """Reject an empty sequence (``T = 0``), which has no state to return."""
    if xs.shape[0] == 0:
        raise ValueError(f"{name} must hold at least one time step (T >= 1), got shape {xs.shape}")


def as_sequence(name: str, xs, d_in: int) -> tuple[np.ndarray, int | None]:
    """Check a time-major sequence of inputs, ``(T, d_in)`` or ``(T, batch, d_in)``, ``T, batch >= 1``.

    Returns the float64 array and the batch size (``None`` for an unbatched sequence).

    >>> import numpy as np
    >>> as_sequence("xs", np.zeros((4, 2, 3)), d_in=3)[1]
    2
    >>> as_sequence("xs", np.zeros((4, 5)), d_in=3)
    Traceback (most recent call last):
    ...
    ValueError: xs must have shape (T, d_in) = (4, 3), got (4, 5)
    """
    xs = as_float_array(name, xs, ndims=(2, 3))
    check_sequence(name, xs)
    batch = xs.shape[1] if xs.ndim == 3 else None
    if batch == 0:
        raise ValueError(f"{name} must hold at least one sequence (batch >= 1), got shape {xs.shape}")
    want = (xs.shape[0], d_in) if batch is None else (xs.shape[0], batch, d_in)
    check_shape(name, xs, want, "(T, d_in)" if batch is None else "(T, batch, d_in)")
    return xs, batch


def as_state(name: str, h, d_hidden: int, batch: int | None) -> np.ndarray:
    """A recurrent state: ``(d_hidden,)`` without a batch, ``(batch, d_hidden)`` with one.

    >>> as_state("h0", [[0.0, 0.0]], d_hidden=2, batch=1).shape
    (1, 2)
    """
    h = as_float_array(name, h, ndims=(1,) if batch is None else (2,))
    if batch is None:
        check_shape(name, h, (d_hidden,), "(d_hidden,)")
    else:
        check_shape(name, h, (batch, d_hidden), "(batch, d_hidden)")
    return h


def positive_int(name: str, value, minimum: int = 1) -> int:
    """``value`` as an ``int`` that is at least ``minimum``; floats (even ``2.0``) and bools are refused.

    >>> positive_int("d_hidden", 4)
    4
    >>> positive_int("d_hidden", 2.5)
    Traceback (most recent call last):
    ...
    ValueError: d_hidden must be an integer >= 1, got 2.5
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def finite_float(name: str, value, low: float | None = None, high: float | None = None,
                 low_open: bool = False) -> float:
    """``value`` as a finite ``float`` in ``[low, high]`` (``(low, high]`` with ``low_open``).

    >>> finite_float("lr", 0.1, low=0, low_open=True)
    0.1
    >>> finite_float("lr", float("nan"), low=0, low_open=True)
    Traceback (most recent call last):
    ...
    ValueError: lr must be a finite number > 0, got nan
    """
    bound = ""
    if low is not None:
        bound = f" {'>' if low_open else '>='} {low:g}"
    if high is not None:
        bound += (" and" if bound else "") + f" <= {high:g}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a finite number{bound}, got {value!r}")
    x = float(value)
    if not np.isfinite(x) or (low is not None and (x <= low if low_open else x < low)) \
            or (high is not None and x > high):
        raise ValueError(f"{name} must be a finite number{bound}, got {value!r}")
    return x


def as_ids(name: str, ids, n: int, ndims: tuple[int, ...] = (1,), what: str = "ids",
           min_length: int = 0) -> np.ndarray:
    """An integer array of indices in ``[0, n)`` whose number of dimensions is in ``ndims``.

    Lists of ints are accepted; floats (even ``1.0``), bools and objects are not. An index outside
    ``[0, n)`` (negative ones included) is a ``ValueError``: it is a bad value, not a missing key.

    >>> as_ids("centers", [0, 2], n=3)
    array([0, 2])
    >>> as_ids("centers", [0, 3], n=3)
    Traceback (most recent call last):
    ...
    ValueError: centers must hold ids in [0, 3), got values from 0 to 3
    """
    arr = np.asarray(ids) if not isinstance(ids, str) else np.array(ids, dtype=object)
    if arr.size == 0 and arr.dtype.kind == "f":  # np.asarray([]) is float64; an empty list is unambiguous
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise ValueError(f"{name} must be an integer array of {what}, got dtype {arr.dtype}")
    if arr.ndim not in ndims:
        want = " or ".join(f"{d}-D" for d in ndims)
        raise ValueError(f"{name} must be {want}, got shape {arr.shape}")
    if arr.ndim and arr.shape[0] < min_length:
        raise ValueError(f"{name} must be at least {min_length} long (axis 0), got shape {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() >= n):
        raise ValueError(f"{name} must hold {what} in [0, {n}), got values from {arr.min()} to {arr.max()}")
    return arr.astype(np.int64, copy=False)


def as_token_ids(name: str, ids, vocab_size: int, min_length: int = 2) -> np.ndarray:
    """Token ids a language model reads: ``(T,)`` or ``(T, batch)`` in ``[0, vocab_size)``, with
    ``T >= min_length`` (2 by default: a token and one to predict from it) and ``batch >= 1``.

    >>> as_token_ids("ids", [0, 3, 1], vocab_size=4)
    array([0, 3, 1])
    >>> as_token_ids("ids", np.zeros((3, 0), int), vocab_size=4)
    Traceback (most recent call last):
    ...
    ValueError: ids must hold at least one sequence (batch >= 1), got shape (3, 0)
    """
    ids = as_ids(name, ids, vocab_size, ndims=(1, 2), what="token ids", min_length=min_length)
    if ids.ndim == 2 and ids.shape[1] == 0:
        raise ValueError(f"{name} must hold at least one sequence (batch >= 1), got shape {ids.shape}")
    return ids


def as_rng(name: str, rng) -> np.random.Generator:
    """A ``numpy.random.Generator`` from a Generator or a non-negative int seed.

    >>> as_rng("rng", 0).integers(10)
    np.int64(8)
    >>> as_rng("rng", "zero")
    Traceback (most recent call last):
    ...
    ValueError: rng must be a numpy.random.Generator or an int seed >= 0, got 'zero'
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, (bool, np.bool_)) and rng >= 0:
        return np.random.default_rng(int(rng))
    raise ValueError(f"{name} must be a numpy.random.Generator or an int seed >= 0, got {rng!r}")


def as_int_list(name: str, values, minimum: int = 1) -> list[int]:
    """A non-empty list of integers, each at least ``minimum`` (sizes, lengths, depths).

    >>> as_int_list("lengths", [1, 4])
    [1, 4]
    """
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ValueError(f"{name} must be a non-empty list of integers >= {minimum}, got {values!r}")
    out = [positive_int(f"{name}[{i}]", v, minimum) for i, v in enumerate(values)]
    if not out:
        raise ValueError(f"{name} must be a non-empty list of integers >= {minimum}, got none")
    return out


def one_of(name: str, value, choices) -> None:
    """``ValueError`` unless ``value`` is one of ``choices``: an option outside its allowed set is
    a bad value, not a missing key (see the module's docstring).

    >>> one_of("model", "GRU", ("RNN", "LSTM"))
    Traceback (most recent call last):
    ...
    ValueError: model must be one of ('RNN', 'LSTM'), got 'GRU'
    """
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
