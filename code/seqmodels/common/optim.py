"""Optimisation shared by every trained model: gradient clipping and the Adam optimiser.

Parameters and gradients are plain ``dict[str, ndarray]`` with matching keys; updates are in place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from seqmodels.common._checks import as_float_array, check_shape, finite_float

Params = dict[str, np.ndarray]


def clip_grad_norm(grads: Params, max_norm: float) -> tuple[Params, float]:
    """Rescale every gradient by ``min(1, max_norm / norm)``, ``norm`` the global L2 norm.

    Clipping the norm keeps the direction of the step and bounds its size, the remedy for
    exploding gradients of Pascanu et al. (2013). Returns the clipped dict (new arrays) and the
    norm before clipping.

    If the sum of squares overflows, the norm is recomputed after dividing by the largest entry, so
    finite gradients as large as ``1e300`` do not get an infinite norm (which would clip them to zero).

    Raises
    ------
    ValueError
        ``grads`` not a dict of finite arrays (an inf gradient cannot be clipped: its direction is
        undefined), or ``max_norm`` not a finite number > 0.

    >>> g, norm = clip_grad_norm({"a": np.array([3.0]), "b": np.array([4.0])}, max_norm=1.0)
    >>> norm, g["a"], g["b"]
    (5.0, array([0.6]), array([0.8]))
    """
    max_norm = finite_float("max_norm", max_norm, low=0, low_open=True)
    grads = _check_grads(grads)
    with np.errstate(over="ignore"):
        norm = float(np.sqrt(sum(float(np.sum(g * g)) for g in grads.values())))
    if not np.isfinite(norm):  # every entry is finite, so only the squares overflowed
        peak = max(float(np.abs(g).max()) for g in grads.values() if g.size)
        norm = peak * float(np.sqrt(sum(float(np.sum((g / peak) ** 2)) for g in grads.values())))
    scale = min(1.0, max_norm / norm) if norm > 0 else 1.0
    return {k: g * scale for k, g in grads.items()}, norm


def _check_grads(grads) -> Params:
    if not isinstance(grads, dict):
        raise ValueError(f"grads must be a dict of arrays, got {type(grads).__name__}")
    return {k: as_float_array(f"grads[{k!r}]", g, ndims=tuple(range(33))) for k, g in grads.items()}


@dataclass
class Adam:
    """Adam (Kingma & Ba, 2015): per-parameter steps scaled by running gradient moments.

    For every parameter ``p`` with gradient ``g``, at step ``t = 1, 2, ...``::

        m = beta1 * m + (1 - beta1) * g           # first moment
        v = beta2 * v + (1 - beta2) * g**2        # second moment
        p -= lr * (m / (1 - beta1**t)) / (sqrt(v / (1 - beta2**t)) + eps)

    Raises
    ------
    ValueError
        ``lr`` or ``eps`` not a finite number > 0, ``beta1`` or ``beta2`` not a finite number in
        ``[0, 1)``.

    >>> p, opt = {"w": np.array([1.0, -1.0])}, Adam(lr=0.1)
    >>> opt.step(p, {"w": np.array([0.5, -2.0])})
    >>> p["w"]  # the first step moves every entry by lr, against the sign of its gradient
    array([ 0.9, -0.9])
    """

    lr: float = 1e-2  #: step size; 1e-2 suits the small models of this book (the paper uses 1e-3)
    beta1: float = 0.9  #: decay of the first-moment average (the paper's default)
    beta2: float = 0.999  #: decay of the second-moment average (the paper's default)
    eps: float = 1e-8  #: keeps the division finite when a gradient is zero
    t: int = 0
    m: Params = field(default_factory=dict)
    v: Params = field(default_factory=dict)

    def __post_init__(self):
        """Raises ``ValueError`` unless ``lr, eps > 0`` and ``0 <= beta1, beta2 < 1``, all finite."""
        finite_float("lr", self.lr, low=0, low_open=True)
        finite_float("eps", self.eps, low=0, low_open=True)
        for name in ("beta1", "beta2"):
            if not finite_float(name, getattr(self, name), low=0) < 1:
                raise ValueError(f"{name} must be a finite number >= 0 and < 1, got {getattr(self, name)!r}")

    def step(self, params: Params, grads: Params) -> None:
        """Update ``params`` in place from ``grads`` (keys of ``params`` only).

        Raises
        ------
        ValueError
            a parameter that is not a float array (it could not be updated in place), or a
            gradient that is not finite or not shaped like its parameter (no broadcasting).
        KeyError
            ``grads`` without an entry for a key of ``params``.
        """
        if not isinstance(params, dict) or not isinstance(grads, dict):
            raise ValueError(f"params and grads must be dicts of arrays, got {type(params).__name__} "
                             f"and {type(grads).__name__}")
        checked = {}
        for k, p in params.items():
            if not isinstance(p, np.ndarray) or p.dtype.kind != "f":
                raise ValueError(f"params[{k!r}] must be a float ndarray (updated in place), got "
                                 f"{type(p).__name__} {getattr(p, 'dtype', '')}")
            if k not in grads:
                raise KeyError(f"grads has no entry {k!r} for params[{k!r}]")
            g = as_float_array(f"grads[{k!r}]", grads[k], ndims=(p.ndim,))
            check_shape(f"grads[{k!r}]", g, p.shape, f"like params[{k!r}]")
            checked[k] = g
        self.t += 1
        for k, p in params.items():
            g = checked[k]
            m = self.m[k] = self.beta1 * self.m.get(k, 0.0) + (1 - self.beta1) * g
            v = self.v[k] = self.beta2 * self.v.get(k, 0.0) + (1 - self.beta2) * g * g
            m_hat, v_hat = m / (1 - self.beta1 ** self.t), v / (1 - self.beta2 ** self.t)
            p -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
