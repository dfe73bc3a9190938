"""Principal component analysis with numpy's SVD, for drawing high-dimensional vectors in 2-D.

The projection centres the rows of ``X`` and keeps the top ``k`` right singular vectors:
``X_c = X - mean``, ``X_c = U S V^T``, ``Z = X_c V[:k]^T``. The sign of each component is fixed
(its largest loading is positive) so figures do not flip between machines or numpy versions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seqmodels.common._checks import as_float_array, check_shape


@dataclass(frozen=True)
class PCA:
    """A fitted projection: ``transform(Y) = (Y - mean) @ components.T``.

    Attributes
    ----------
    mean : ndarray of shape (d,)
    components : ndarray of shape (k, d), orthonormal rows
    explained : ndarray of shape (k,), fraction of the variance each component explains

    Raises
    ------
    ValueError
        ``mean`` not a finite vector, ``components`` not a finite ``(k, d)`` array with ``mean``'s
        ``d``, ``explained`` not a finite ``(k,)`` vector.
    """

    mean: np.ndarray
    components: np.ndarray
    explained: np.ndarray

    def __post_init__(self):
        mean = as_float_array("mean", self.mean, ndims=(1,))
        components = as_float_array("components", self.components, ndims=(2,))
        if components.shape[1] != mean.shape[0]:
            raise ValueError(f"components must have shape (k, d) with d = {mean.shape[0]} like mean, got {components.shape}")
        check_shape("explained", as_float_array("explained", self.explained, ndims=(1,)), components.shape[:1], "(k,)")

    def transform(self, Y) -> np.ndarray:
        """Project rows of ``Y`` (shape ``(n, d)``) to shape ``(n, k)``.

        Raises
        ------
        ValueError
            ``Y`` not a finite 2-D array with ``d`` columns.
        """
        Y = as_float_array("Y", Y, ndims=(2,))
        if Y.shape[1] != self.mean.shape[0]:
            raise ValueError(f"Y must have {self.mean.shape[0]} columns, got shape {Y.shape}")
        return (Y - self.mean) @ self.components.T


def pca(X, k: int = 2) -> PCA:
    """Fit a ``k``-component PCA to the rows of ``X`` (shape ``(n, d)``, ``n >= 2``).

    Raises
    ------
    ValueError
        ``X`` not a finite 2-D array of at least 2 rows; ``k`` not an integer in ``[1, min(n, d)]``.

    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [2.0, 1.0], [4.0, 2.0]])
    >>> p = pca(X, k=1)
    >>> p.components.round(3)
    array([[0.894, 0.447]])
    >>> p.transform(X).ravel().round(3)
    array([-2.236,  0.   ,  2.236])
    >>> float(p.explained[0])
    1.0
    """
    X = as_float_array("X", X, ndims=(2,))
    n, d = X.shape
    if n < 2:
        raise ValueError(f"X must have at least 2 rows to find directions of variance, got shape {X.shape}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= min(n, d):
        raise ValueError(f"k must be between 1 and min(n, d) = {min(n, d)}, got {k}")
    mean = X.mean(axis=0)
    _, s, vt = np.linalg.svd(X - mean, full_matrices=False)
    comps = vt[:k]
    signs = np.sign(comps[np.arange(k), np.abs(comps).argmax(axis=1)])
    comps = comps * signs[:, None]
    var = s**2
    explained = var[:k] / var.sum() if var.sum() > 0 else np.zeros(k)
    return PCA(mean=mean, components=comps, explained=explained)
