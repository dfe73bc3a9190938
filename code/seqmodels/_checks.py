"""Input checks shared by the models: every message names the argument, what was expected and
what arrived, so a reader who passes the wrong thing learns which thing it was."""

from __future__ import annotations

import numpy as np


def as_float_array(name: str, value, ndims: tuple[int, ...]) -> np.ndarray:
    """Return ``value`` as a finite float64 array whose number of dimensions is in ``ndims``.

    >>> as_float_array("x", [1, 2], ndims=(1,))
    array([1., 2.])
    >>> as_float_array("x", [1.0, float("nan")], ndims=(1,))
    Traceback (most recent call last):
    ...
    ValueError: x must be finite, got NaN or inf at index (1,)
    """
    arr = np.asarray(value)
    if arr.dtype.kind not in "fiu":
        raise ValueError(f"{name} must be a real numeric array, got dtype {arr.dtype}")
    if arr.ndim not in ndims:
        want = " or ".join(f"{d}-D" for d in ndims)
        raise ValueError(f"{name} must be {want}, got shape {arr.shape}")
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
    if arr.shape != tuple(expected):
        raise ValueError(f"{name} must have shape {described} = {tuple(expected)}, got {arr.shape}")


def check_sequence(name: str, xs: np.ndarray) -> None:
    """Reject an empty sequence (``T = 0``), which has no state to return."""
    if xs.shape[0] == 0:
        raise ValueError(f"{name} must hold at least one time step (T >= 1), got shape {xs.shape}")


def as_sequence(name: str, xs, d_in: int) -> tuple[np.ndarray, int | None]:
    """Check a sequence of inputs, ``(T, d_in)`` or ``(T, batch, d_in)`` with ``T >= 1``.

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
    want = (xs.shape[0], d_in) if batch is None else (xs.shape[0], batch, d_in)
    check_shape(name, xs, want, "(T, d_in)" if batch is None else "(T, batch, d_in)")
    return xs, batch
