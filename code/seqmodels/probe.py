r"""Probes: how well a simple classifier reads a label (such as a word's sense) from vectors.

A probe is fitted on the vectors of training sentences and scored on held-out ones. Two are here:

- :func:`nearest_centroid_accuracy`: average the training vectors of each class (a centroid) and
  give a test vector the class of the nearest centroid (Euclidean). This is how Peters et al.
  (2018, Section 5.3) disambiguated word senses with biLM vectors. Every coordinate counts equally.
- :func:`linear_probe_accuracy`: logistic regression on standardised vectors,
  ``p(y | x) = softmax(W_p z + b_p)`` with ``z = (x - mean) / std``, trained by full-batch Adam with
  a small L2 penalty. It learns *which* coordinates matter.

Labels are integers ``0 .. n_classes - 1``; ties go to the smaller label. Both probes are
functions of the test vector: equal test rows get the same prediction by construction, because the
prediction is computed once per distinct row (a BLAS kernel may round equal rows of one matrix
product differently by their place in it, and a near-tie could then split them).
"""

from __future__ import annotations

import numpy as np

from ._checks import as_float_array
from .train import Adam, softmax_cross_entropy


def _check_xy(X_train, y_train, X_test, y_test):
    X_train = as_float_array("X_train", X_train, ndims=(2,))
    X_test = as_float_array("X_test", X_test, ndims=(2,))
    if X_test.shape[1] != X_train.shape[1]:
        raise ValueError(f"X_test must have {X_train.shape[1]} columns like X_train, got shape {X_test.shape}")
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    for name, y, X in (("y_train", y_train, X_train), ("y_test", y_test, X_test)):
        if y.dtype.kind not in "iu":
            raise ValueError(f"{name} must be an integer array of class labels, got dtype {y.dtype}")
        if y.shape != (X.shape[0],):
            raise ValueError(f"{name} must have shape ({X.shape[0]},), one label per row, got {y.shape}")
        if len(y) == 0:
            raise ValueError(f"{name} must hold at least one label, got none")
        if y.min() < 0:
            raise ValueError(f"{name} must be >= 0, got {y.min()}")
    n_classes = int(y_train.max()) + 1
    missing = sorted(set(range(n_classes)) - set(y_train.tolist()))
    if missing:
        raise ValueError(f"y_train must hold every class 0 .. {n_classes - 1}, missing {missing}")
    return X_train, y_train, X_test, y_test, n_classes


def _predict_distinct(predict, X_test: np.ndarray) -> np.ndarray:
    """``predict(X_test)``, computed once per distinct row and copied to the rows equal to it."""
    distinct, inverse = np.unique(X_test, axis=0, return_inverse=True)
    return predict(distinct)[inverse.reshape(-1)]


def nearest_centroid_accuracy(X_train, y_train, X_test, y_test) -> float:
    """Fraction of test rows whose nearest training-class centroid has their label.

    Parameters
    ----------
    X_train : ndarray of shape (n_train, d); y_train : integer ndarray of shape (n_train,)
    X_test : ndarray of shape (n_test, d); y_test : integer ndarray of shape (n_test,)

    >>> X = np.array([[0.0, 0.0], [0.0, 2.0], [4.0, 0.0], [4.0, 2.0]])
    >>> nearest_centroid_accuracy(X, np.array([0, 0, 1, 1]), np.array([[1.0, 5.0], [3.0, -5.0]]),
    ...                           np.array([0, 1]))
    1.0
    """
    X_train, y_train, X_test, y_test, n_classes = _check_xy(X_train, y_train, X_test, y_test)
    centroids = np.stack([X_train[y_train == k].mean(axis=0) for k in range(n_classes)])  # (K, d)

    def nearest(X):
        return ((X[:, None, :] - centroids[None]) ** 2).sum(axis=-1).argmin(axis=1)  # (n, K) -> (n,)

    return float(np.mean(_predict_distinct(nearest, X_test) == y_test))


def linear_probe_accuracy(X_train, y_train, X_test, y_test, steps: int = 300, lr: float = 0.1,
                          weight_decay: float = 1e-3) -> float:
    """Test accuracy of a logistic-regression probe fitted to the training rows.

    Features are standardised with the training mean and standard deviation (a constant feature
    stays 0). The weights start at zero and take ``steps`` full-batch Adam steps on
    ``mean cross-entropy + weight_decay / 2 * ||W_p||^2``, so the result is deterministic.

    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5))
    >>> y = (X[:, 3] > 0).astype(int)  # only coordinate 3 matters
    >>> linear_probe_accuracy(X[:100], y[:100], X[100:], y[100:]) > 0.95
    True
    """
    X_train, y_train, X_test, y_test, n_classes = _check_xy(X_train, y_train, X_test, y_test)
    if steps < 1:
        raise ValueError(f"steps must be >= 1, got {steps}")
    mean, std = X_train.mean(axis=0), X_train.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    Z_train, Z_test = (X_train - mean) / std, (X_test - mean) / std  # (n, d)
    params = {"W": np.zeros((n_classes, X_train.shape[1])), "b": np.zeros(n_classes)}
    opt = Adam(lr=lr)
    for _ in range(steps):
        _, dlogits = softmax_cross_entropy(Z_train @ params["W"].T + params["b"], y_train)
        grads = {"W": dlogits.T @ Z_train + weight_decay * params["W"], "b": dlogits.sum(axis=0)}
        opt.step(params, grads)
    pred = _predict_distinct(lambda Z: (Z @ params["W"].T + params["b"]).argmax(axis=1), Z_test)
    return float(np.mean(pred == y_test))
