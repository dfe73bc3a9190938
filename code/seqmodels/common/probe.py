r"""Probes: how well a simple read-out recovers a label (a word's sense, an earlier token) from vectors.

A probe is fitted on the vectors of training examples and scored on held-out ones:

- :func:`nearest_centroid_accuracy`: average the training vectors of each class (a centroid) and
  give a test vector the class of the nearest centroid (Euclidean). This is how Peters et al.
  (2018, Section 5.3) disambiguated word senses with biLM vectors. Every coordinate counts equally.
- :func:`linear_probe_accuracy`: logistic regression on standardised vectors,
  ``p(y | x) = softmax(W_p z + b_p)`` with ``z = (x - mean) / std``, trained by full-batch Adam with
  a small L2 penalty. It learns *which* coordinates matter.
- :func:`linear_probe_accuracies`: the same for many sets of vectors at once, one batched run.
- :func:`scalar_mix_probe`: ELMo's scalar mix of several layers (softmax-normalised weights and
  a scale) fitted jointly with a logistic-regression probe, optionally with ELMo's penalty
  ``mix_penalty * ||w||^2`` on the layer weights; :func:`scalar_mix_loss_and_grads` is its loss and
  gradient, and :func:`scalar_mix_probes` fits many of them, each with its own step size and
  penalty, in one batched run and reads them after several step counts.
- :func:`linear_probe`: ridge regression onto one-hot codes of several labels at once, in closed
  form; fast enough to probe every earlier position of thousands of sequences.


The bottlenecks chapter's experiments on what a fixed-size state holds, which read states out with
:func:`linear_probe`, are in :mod:`seqmodels.experiments.bottlenecks.capacity`.

Labels are integers ``0 .. n_classes - 1``; ties go to the smaller label. Both probes are
functions of the test vector: equal test rows get the same prediction by construction, because the
prediction is computed once per distinct row (a BLAS kernel may round equal rows of one matrix
product differently by their place in it, and a near-tie could then split them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seqmodels.common._checks import as_float_array, as_ids, finite_float, positive_int
from seqmodels.common.numeric import softmax, softmax_cross_entropy, packed_cross_entropy_
from seqmodels.common.optim import Adam


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
    if y_test.max() >= n_classes:
        raise ValueError(f"y_test holds class {y_test.max()}, which y_train never shows (classes 0 .. {n_classes - 1})")
    return X_train, y_train, X_test, y_test, n_classes


def _predict_distinct(predict, X_test: np.ndarray) -> np.ndarray:
    """``predict(X_test)``, computed once per distinct row and copied to the rows equal to it."""
    distinct, inverse = np.unique(X_test, axis=0, return_inverse=True)
    return predict(distinct)[inverse.reshape(-1)]


def _distinct_rows(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct, inverse)`` with ``distinct[inverse] == X``: rows equal byte for byte count once.

    Much faster than ``np.unique(X, axis=0)`` (which compares rows as records, field by field),
    but the distinct rows come in the order of their bytes, not sorted by value: use it only where
    a row's prediction does not depend on where the row stands (no matrix product over the rows).
    """
    X = np.ascontiguousarray(X)
    rows = X.view(np.dtype((np.void, X.dtype.itemsize * X.shape[1]))).reshape(-1)
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    return X[first], inverse.reshape(-1)


def nearest_centroid_accuracy(X_train, y_train, X_test, y_test) -> float:
    """Fraction of test rows whose nearest training-class centroid has their label.

    Parameters
    ----------
    X_train : ndarray of shape (n_train, d); y_train : integer ndarray of shape (n_train,)
    X_test : ndarray of shape (n_test, d); y_test : integer ndarray of shape (n_test,)

    Raises
    ------
    ValueError
        ``X_train`` or ``X_test`` not a finite 2-D array, or of different widths; ``y_train`` or
        ``y_test`` not integers >= 0, one per row, at least one; ``y_train`` missing a class below
        its largest; ``y_test`` holding a class ``y_train`` never shows.

    >>> X = np.array([[0.0, 0.0], [0.0, 2.0], [4.0, 0.0], [4.0, 2.0]])
    >>> nearest_centroid_accuracy(X, np.array([0, 0, 1, 1]), np.array([[1.0, 5.0], [3.0, -5.0]]),
    ...                           np.array([0, 1]))
    1.0
    """
    X_train, y_train, X_test, y_test, n_classes = _check_xy(X_train, y_train, X_test, y_test)
    centroids = np.stack([X_train[y_train == k].mean(axis=0) for k in range(n_classes)])  # (K, d)

    distinct, inverse = _distinct_rows(X_test)  # elementwise distances: the order does not matter
    nearest = ((distinct[:, None, :] - centroids[None]) ** 2).sum(axis=-1).argmin(axis=1)  # (n,)
    return float(np.mean(nearest[inverse] == y_test))


def linear_probe_accuracy(X_train, y_train, X_test, y_test, steps: int = 300, lr: float = 0.1,
                          weight_decay: float = 1e-3) -> float:
    """Test accuracy of a logistic-regression probe fitted to the training rows.

    Features are standardised with the training mean and standard deviation (a constant feature
    stays 0). The weights start at zero and take ``steps`` full-batch Adam steps on
    ``mean cross-entropy + weight_decay / 2 * ||W_p||^2``, so the result is deterministic.

    Raises
    ------
    ValueError
        ``X_train``, ``y_train``, ``X_test``, ``y_test`` as :func:`nearest_centroid_accuracy`
        refuses them; ``steps`` not an integer >= 1, ``lr`` not a finite number > 0,
        ``weight_decay`` not a finite number >= 0.

    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5))
    >>> y = (X[:, 3] > 0).astype(int)  # only coordinate 3 matters
    >>> linear_probe_accuracy(X[:100], y[:100], X[100:], y[100:]) > 0.95
    True
    """
    X_train, y_train, X_test, y_test, n_classes = _check_xy(X_train, y_train, X_test, y_test)
    steps = positive_int("steps", steps)
    lr = finite_float("lr", lr, low=0, low_open=True)
    weight_decay = finite_float("weight_decay", weight_decay, low=0)
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


def linear_probe_accuracies(X_train, y_train, X_test, y_test, steps: int = 300, lr: float = 0.1,
                            weight_decay: float = 1e-3) -> np.ndarray:
    """:func:`linear_probe_accuracy` for ``P`` sets of vectors with the same labels at once.

    ``X_train`` is (P, n_train, d) and ``X_test`` (P, n_test, d); entry ``p`` of the result is
    ``linear_probe_accuracy(X_train[p], y_train, X_test[p], y_test)``, computed by one Adam run on
    the ``P`` packed probes (Adam is elementwise, so they do not interact), which costs far less
    than ``P`` separate runs of small matrices. Equal to the loop up to round-off (tests/test_probe.py).

    ``X_test`` may also be (S, P, n_test, d): ``S`` samples of test vectors with the same labels
    ``y_test``, all scored by the same trained probes. The result is then (S, P), entry ``[s, p]``
    the accuracy of probe ``p`` on sample ``s``; the probes are trained once, not ``S`` times.

    Raises
    ------
    ValueError
        ``X_train`` not a finite (P, n_train, d) array with every size >= 1, ``X_test`` not a finite
        (P, n_test, d) or (S, P, n_test, d) array with every size >= 1 and the same ``P`` and
        ``d``; the labels, ``steps``, ``lr`` and ``weight_decay`` as :func:`linear_probe_accuracy`
        refuses them.

    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2, 200, 5))
    >>> y = (X[0, :, 3] > 0).astype(int)  # set 0 carries the label, set 1 does not
    >>> acc = linear_probe_accuracies(X[:, :100], y[:100], X[:, 100:], y[100:])
    >>> bool(acc[0] > 0.95 and acc[1] < 0.75)
    True
    >>> linear_probe_accuracies(X[:, :100], y[:100], np.stack([X[:, 100:], X[:, 100:]]), y[100:]).shape
    (2, 2)
    """
    X_test = as_float_array("X_test", X_test, ndims=(3, 4))
    n_samples = X_test.shape[0] if X_test.ndim == 4 else None
    if n_samples is not None:  # (S, P, n, d) -> (P, S n, d): one test set per probe, labels repeated
        X_train = _check_layers("X_train", X_train)
        if 0 in X_test.shape or X_test.shape[1] != X_train.shape[0] or X_test.shape[3] != X_train.shape[2]:
            raise ValueError(f"X_test must have shape (S, {X_train.shape[0]}, n_test, {X_train.shape[2]}) "
                             f"with S, n_test >= 1 like X_train, got {X_test.shape}")
        y_test = np.asarray(y_test)
        if y_test.shape != (X_test.shape[2],):
            raise ValueError(f"y_test must have shape ({X_test.shape[2]},), one label per test vector of "
                             f"a sample, got {y_test.shape}")
        X_test = np.swapaxes(X_test, 0, 1).reshape(X_test.shape[1], -1, X_test.shape[3])
        y_test = np.tile(y_test, n_samples)
    Z_train, Z_test, y_train, y_test, n_classes, steps, lr, weight_decay = _standardised_sets(
        ("X_train", X_train), ("X_test", X_test), y_train, y_test, steps, lr, weight_decay)
    P, n, d = Z_train.shape
    params = {"W": np.zeros((P, n_classes, d)), "b": np.zeros((P, n_classes))}
    opt = Adam(lr=lr)
    for _ in range(steps):
        logits = Z_train @ np.swapaxes(params["W"], 1, 2) + params["b"][:, None]  # (P, n, K)
        _, dlogits = packed_cross_entropy_(logits, y_train)  # each probe's own mean over its n rows
        grads = {"W": np.swapaxes(dlogits, 1, 2) @ Z_train + weight_decay * params["W"],
                 "b": dlogits.sum(axis=1)}
        opt.step(params, grads)
    correct = np.empty((P, Z_test.shape[1]), dtype=bool)
    for k in range(P):
        pred = _predict_distinct(lambda Z: (Z @ params["W"][k].T + params["b"][k]).argmax(axis=1), Z_test[k])
        correct[k] = pred == y_test
    if n_samples is None:
        return correct.mean(axis=1)
    return correct.reshape(P, n_samples, -1).mean(axis=2).T


def _check_layers(name: str, layers) -> np.ndarray:
    layers = as_float_array(name, layers, ndims=(3,))
    if 0 in layers.shape:
        raise ValueError(f"{name} must have shape (n_layers, n, d) with every size >= 1, got {layers.shape}")
    return layers



def _standardised_sets(train, test, y_train, y_test, steps, lr, weight_decay):
    """Checked arguments of the batched probes: ``train`` and ``test`` are (name, array) pairs of
    shape (sets, n, d) with the same sets and d; every coordinate is standardised with the training
    mean and standard deviation of its set (a constant coordinate becomes 0). Returns the
    standardised arrays, the checked labels, the number of classes and the checked settings."""
    (train_name, X_train), (test_name, X_test) = train, test
    X_train, X_test = _check_layers(train_name, X_train), _check_layers(test_name, X_test)
    if X_test.shape[0] != X_train.shape[0] or X_test.shape[2] != X_train.shape[2]:
        raise ValueError(f"{test_name} must have shape ({X_train.shape[0]}, n_test, {X_train.shape[2]}) "
                         f"like {train_name}, got {X_test.shape}")
    _, y_train, _, y_test, n_classes = _check_xy(X_train[0], y_train, X_test[0], y_test)
    steps = positive_int("steps", steps)
    lr = finite_float("lr", lr, low=0, low_open=True)
    weight_decay = finite_float("weight_decay", weight_decay, low=0)
    mean, std = X_train.mean(axis=1, keepdims=True), X_train.std(axis=1, keepdims=True)
    std = np.where(std > 0, std, 1.0)
    return (X_train - mean) / std, (X_test - mean) / std, y_train, y_test, n_classes, steps, lr, weight_decay

def scalar_mix_loss_and_grads(params: dict, layers, y, weight_decay: float = 1e-3,
                              mix_penalty: float = 0.0) -> tuple[float, dict]:
    r"""Loss and gradient of a logistic-regression probe on ELMo's scalar mix of ``layers``.

    The probe reads :math:`m = \gamma \sum_j s_j Z_j` with :math:`s = \operatorname{softmax}(w)`
    (Peters et al. 2018, eq. 1) and predicts ``softmax(m @ W.T + b)``; the loss is the mean
    cross-entropy plus ``weight_decay / 2 * ||W||^2`` plus ``mix_penalty * ||w||^2``, the penalty
    :math:`\lambda \lVert w \rVert_2^2` on the unnormalised layer weights that Peters et al. add
    to the task loss (their Section 3.3) and compare at :math:`\lambda = 1` and
    :math:`\lambda = 0.001` (their Section 5.1 and Table 2); it pulls ``w`` towards 0, the equal
    mix. Backwards::

        dm      = dlogits @ W                       # (n, d)
        dgamma  = sum(dm * sum_j s_j Z_j)
        ds_j    = gamma * sum(dm * Z_j);   dw = s * (ds - s . ds) + 2 mix_penalty w

    Parameters
    ----------
    params : dict with ``"w"`` (n_layers,), ``"gamma"`` (1,), ``"W"`` (n_classes, d), ``"b"`` (n_classes,)
    layers : ndarray of shape (n_layers, n, d), the vectors ``Z_j`` of every layer
    y : integer ndarray of shape (n,), labels ``0 .. n_classes - 1``

    Raises
    ------
    ValueError
        ``params`` not a dict, or ``params['w']`` not one finite weight per layer, ``params['gamma']``
        not finite of shape (1,), ``params['W']`` not finite ``(n_classes, d)`` with ``n_classes >=
        1``, ``params['b']`` not finite ``(n_classes,)``; ``layers`` not a finite (n_layers, n, d)
        array with every size >= 1; ``y`` not ``n`` integers in ``[0, n_classes)``;
        ``weight_decay`` not a finite number >= 0.
        ``mix_penalty`` not a finite number >= 0.
    KeyError
        ``params`` without one of its four entries.

    >>> Z = np.array([[[1.0], [-1.0]], [[0.0], [0.0]]])  # layer 0 separates, layer 1 is constant
    >>> p = {"w": np.zeros(2), "gamma": np.ones(1), "W": np.array([[-1.0], [1.0]]), "b": np.zeros(2)}
    >>> loss, g = scalar_mix_loss_and_grads(p, Z, np.array([1, 0]), weight_decay=0.0)
    >>> bool(g["w"][0] < 0 < g["w"][1])  # descent moves weight onto the layer that separates
    True
    """
    if not isinstance(params, dict):
        raise ValueError(f"params must be a dict with w, gamma, W, b, got {type(params).__name__}")
    for key in ("w", "gamma", "W", "b"):
        if key not in params:
            raise KeyError(f"params has no entry {key!r}; it needs w, gamma, W and b")
    layers = _check_layers("layers", layers)
    J, n, d = layers.shape
    w = as_float_array("params['w']", params["w"], ndims=(1,))
    if w.shape != (J,):
        raise ValueError(f"params['w'] must have shape ({J},), one weight per layer, got {w.shape}")
    gamma = as_float_array("params['gamma']", params["gamma"], ndims=(1,))
    if gamma.shape != (1,):
        raise ValueError(f"params['gamma'] must have shape (1,), got {gamma.shape}")
    W = as_float_array("params['W']", params["W"], ndims=(2,))
    if W.shape[1] != d or W.shape[0] < 1:
        raise ValueError(f"params['W'] must have shape (n_classes, {d}), got {W.shape}")
    b = as_float_array("params['b']", params["b"], ndims=(1,))
    if b.shape != (W.shape[0],):
        raise ValueError(f"params['b'] must have shape ({W.shape[0]},), got {b.shape}")
    y = as_ids("y", y, W.shape[0], what="class labels")
    if y.shape != (n,):
        raise ValueError(f"y must have shape ({n},), one label per row of layers, got {y.shape}")
    weight_decay = finite_float("weight_decay", weight_decay, low=0)
    mix_penalty = finite_float("mix_penalty", mix_penalty, low=0)
    s = softmax(w)
    unscaled = np.tensordot(s, layers, axes=1)  # (n, d)
    mix = gamma[0] * unscaled
    loss, dlogits = softmax_cross_entropy(mix @ W.T + b, y)
    loss += 0.5 * weight_decay * float(np.sum(W * W)) + mix_penalty * float(np.sum(w * w))
    dmix = dlogits @ W
    ds = gamma[0] * np.einsum("nd,jnd->j", dmix, layers)
    grads = {"w": s * (ds - s @ ds) + 2 * mix_penalty * w, "gamma": np.array([np.sum(dmix * unscaled)]),
             "W": dlogits.T @ mix + weight_decay * W, "b": dlogits.sum(axis=0)}
    return float(loss), grads


@dataclass(frozen=True)
class ScalarMix:
    """What :func:`scalar_mix_probe` learned and scored."""

    accuracy: float  #: fraction of test rows classified correctly
    weights: np.ndarray  #: (n_layers,) the softmax-normalised layer weights s_j
    gamma: float  #: the overall scale


def scalar_mix_probe(layers_train, y_train, layers_test, y_test, steps: int = 300, lr: float = 0.1,
                     weight_decay: float = 1e-3, mix_penalty: float = 0.0) -> ScalarMix:
    """Fit ELMo's scalar mix jointly with a logistic-regression probe; score it on the test rows.

    Each layer is standardised with its own training mean and standard deviation per coordinate
    (a constant coordinate stays 0), so a layer's scale cannot pass for its importance; ELMo
    applies layer normalisation for the same reason in some tasks (Peters et al. 2018, Section
    3.2). ``w``, ``W`` and ``b`` start at zero and ``gamma`` at one, and take ``steps`` full-batch
    Adam steps on :func:`scalar_mix_loss_and_grads` (with its ``mix_penalty``, ELMo's lambda;
    0 leaves the layer weights free), so the result is deterministic.

    Parameters
    ----------
    layers_train : ndarray of shape (n_layers, n_train, d); y_train : integer ndarray (n_train,)
    layers_test : ndarray of shape (n_layers, n_test, d); y_test : integer ndarray (n_test,)

    Raises
    ------
    ValueError
        ``layers_train``, ``layers_test`` and the labels, ``steps``, ``lr``, ``weight_decay`` as
        :func:`linear_probe_accuracies` refuses its ``X_train``, ``X_test`` and the rest.
        ``mix_penalty`` not a finite number >= 0.

    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(2, size=200)
    >>> noise = rng.normal(size=(2, 200, 4))
    >>> noise[1, :, 0] += 3 * (2 * y - 1)  # only layer 1 carries the label
    >>> mix = scalar_mix_probe(noise[:, :100], y[:100], noise[:, 100:], y[100:])
    >>> bool(mix.accuracy > 0.9 and mix.weights[1] > mix.weights[0])
    True
    """
    Z_train, Z_test, y_train, y_test, n_classes, steps, lr, weight_decay = _standardised_sets(
        ("layers_train", layers_train), ("layers_test", layers_test), y_train, y_test, steps, lr, weight_decay)
    mix_penalty = finite_float("mix_penalty", mix_penalty, low=0)
    J, _, d = Z_train.shape
    params = {"w": np.zeros(J), "gamma": np.ones(1), "W": np.zeros((n_classes, d)), "b": np.zeros(n_classes)}
    opt = Adam(lr=lr)
    for _ in range(steps):
        opt.step(params, scalar_mix_loss_and_grads(params, Z_train, y_train, weight_decay, mix_penalty)[1])
    s = softmax(params["w"])
    mixed = params["gamma"][0] * np.tensordot(s, Z_test, axes=1)
    pred = _predict_distinct(lambda M: (M @ params["W"].T + params["b"]).argmax(axis=1), mixed)
    return ScalarMix(float(np.mean(pred == y_test)), s, float(params["gamma"][0]))


@dataclass(frozen=True)
class ScalarMixes:
    """What :func:`scalar_mix_probes` learned and scored: entry ``[k, p]`` is probe ``p`` after
    ``steps[k]`` Adam steps."""

    steps: tuple  #: the step counts at which the probes were read, increasing
    accuracy: np.ndarray  #: (len(steps), P) fraction of test rows classified correctly
    weights: np.ndarray  #: (len(steps), P, n_layers) the softmax-normalised layer weights s_j
    gamma: np.ndarray  #: (len(steps), P) the overall scale


def _per_probe(name: str, value, P: int, low_open: bool) -> np.ndarray:
    """A setting of :func:`scalar_mix_probes`: one finite number for all probes, or one per probe."""
    if np.ndim(value) == 0:
        return np.full(P, finite_float(name, value, low=0, low_open=low_open))
    value = as_float_array(name, value, ndims=(1,))
    if value.shape != (P,):
        raise ValueError(f"{name} must be one number or one per probe, shape ({P},), got shape {value.shape}")
    for k, v in enumerate(value):
        finite_float(f"{name}[{k}]", float(v), low=0, low_open=low_open)
    return value


def scalar_mix_probes(layers_train, y_train, layers_test, y_test, steps=(300,), lr=0.1,
                      weight_decay: float = 1e-3, mix_penalty=0.0) -> ScalarMixes:
    r""":func:`scalar_mix_probe` for ``P`` stacks of layers with the same labels, in one batched run.

    ``layers_train`` is (P, n_layers, n_train, d) and ``layers_test`` (P, n_layers, n_test, d).
    ``lr`` and ``mix_penalty`` (ELMo's :math:`\lambda`) are one number for every probe or one per
    probe, so one run can fit the same vectors under several settings. Every probe takes
    ``max(steps)`` full-batch Adam steps and is read (test accuracy, :math:`s_j`, :math:`\gamma`)
    after each count in ``steps``; entry ``[k, p]`` is ``scalar_mix_probe(layers_train[p], y_train,
    layers_test[p], y_test, steps[k], lr[p], weight_decay, mix_penalty[p])`` up to round-off
    (tests/test_probe.py). Adam is elementwise, so the probes do not interact.

    Raises
    ------
    ValueError
        ``layers_train`` not a finite (P, n_layers, n_train, d) array with every size >= 1,
        ``layers_test`` not a finite (P, n_layers, n_test, d) array with the same P, n_layers and
        d; the labels and ``weight_decay`` as :func:`linear_probe_accuracy` refuses them;
        ``steps`` not a non-empty increasing list of integers >= 1; ``lr`` (> 0) or
        ``mix_penalty`` (>= 0) not one finite number or one per probe.

    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(2, size=200)
    >>> noise = rng.normal(size=(2, 200, 4))
    >>> noise[1, :, 0] += 3 * (2 * y - 1)  # only layer 1 carries the label
    >>> stack = np.stack([noise, noise])   # the same layers, fitted without and with a large penalty
    >>> fit = scalar_mix_probes(stack[:, :, :100], y[:100], stack[:, :, 100:], y[100:],
    ...                         mix_penalty=[0.0, 10.0])
    >>> fit.weights[0].round(2)  # after 300 steps: free, layer 1 takes the weight; penalised, about 1/2
    array([[0.01, 0.99],
           [0.49, 0.51]])
    """
    train, test = as_float_array("layers_train", layers_train, ndims=(4,)), \
        as_float_array("layers_test", layers_test, ndims=(4,))
    if 0 in train.shape:
        raise ValueError("layers_train must have shape (P, n_layers, n, d) with every size >= 1, "
                         f"got {train.shape}")
    if test.shape[:2] != train.shape[:2] or test.shape[3] != train.shape[3] or test.shape[2] == 0:
        raise ValueError(f"layers_test must have shape ({train.shape[0]}, {train.shape[1]}, n_test >= 1, "
                         f"{train.shape[3]}) like layers_train, got {test.shape}")
    P, J, n, d = train.shape
    if isinstance(steps, (bool, np.bool_)) or not isinstance(steps, (list, tuple, range)) or len(steps) == 0:
        raise ValueError(f"steps must be a non-empty increasing list of step counts, got {steps!r}")
    steps = tuple(positive_int(f"steps[{k}]", t) for k, t in enumerate(steps))
    if any(b <= a for a, b in zip(steps, steps[1:])):
        raise ValueError(f"steps must be increasing, got {steps}")
    lr = _per_probe("lr", lr, P, low_open=True)
    mix_penalty = _per_probe("mix_penalty", mix_penalty, P, low_open=False)
    Z_train, Z_test, y_train, y_test, n_classes, _, _, weight_decay = _standardised_sets(
        ("layers_train", train.reshape(P * J, n, d)), ("layers_test", test.reshape(P * J, -1, d)),
        y_train, y_test, 1, 1.0, weight_decay)
    Z_train, Z_test = Z_train.reshape(P, J, n, d), Z_test.reshape(P, J, -1, d)
    params = {"w": np.zeros((P, J)), "gamma": np.ones(P), "W": np.zeros((P, n_classes, d)),
              "b": np.zeros((P, n_classes))}
    moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in params.items()}
    beta1, beta2, eps = Adam.beta1, Adam.beta2, Adam.eps  # optim.Adam's defaults, as scalar_mix_probe uses
    out = {"accuracy": [], "weights": [], "gamma": []}
    flat = Z_train.reshape(P, J, n * d)  # the layers as rows: the sums over j, n, d are matrix products
    for t in range(1, steps[-1] + 1):
        w, gamma, W = params["w"], params["gamma"], params["W"]
        s = softmax(w, axis=-1)  # (P, J)
        mix = (gamma[:, None] * s)[:, None] @ flat  # (P, 1, n d): gamma sum_j s_j Z_j
        mix = mix.reshape(P, n, d)
        _, dlogits = packed_cross_entropy_(mix @ np.swapaxes(W, 1, 2) + params["b"][:, None], y_train)
        dmix = dlogits @ W  # (P, n, d)
        r = (flat @ dmix.reshape(P, n * d, 1))[..., 0]  # (P, J): sum(dmix * Z_j)
        ds = gamma[:, None] * r
        grads = {"w": s * (ds - np.sum(s * ds, axis=1, keepdims=True)) + 2 * mix_penalty[:, None] * w,
                 "gamma": np.sum(s * r, axis=1),  # sum(dmix * sum_j s_j Z_j)
                 "W": np.swapaxes(dlogits, 1, 2) @ mix + weight_decay * W, "b": dlogits.sum(axis=1)}
        for k, p in params.items():  # Adam (seqmodels.common.optim.Adam), with one step size per probe
            m, v = moments[k]
            m *= beta1
            m += (1 - beta1) * grads[k]
            v *= beta2
            v += (1 - beta2) * grads[k] * grads[k]
            step = lr.reshape((P,) + (1,) * (p.ndim - 1)) * (m / (1 - beta1 ** t))
            p -= step / (np.sqrt(v / (1 - beta2 ** t)) + eps)
        if t in steps:
            s = softmax(params["w"], axis=-1)
            acc = np.empty(P)
            for k in range(P):
                mixed = params["gamma"][k] * np.tensordot(s[k], Z_test[k], axes=1)
                pred = _predict_distinct(lambda M: (M @ params["W"][k].T + params["b"][k]).argmax(axis=1), mixed)
                acc[k] = np.mean(pred == y_test)
            out["accuracy"].append(acc)
            out["weights"].append(s)
            out["gamma"].append(params["gamma"].copy())
    return ScalarMixes(steps, *(np.array(out[k]) for k in ("accuracy", "weights", "gamma")))


# --- a ridge read-out ---------------------------------------------------------------------------


def linear_probe(train_states, train_labels, test_states, test_labels, n_classes: int,
                 ridge: float = 1e-3) -> np.ndarray:
    """Accuracy of least-squares linear read-outs, one per label column.

    One ridge regression maps a state (plus a constant 1) to the one-hot codes of all ``P`` labels at
    once, ``W = (S^T S + ridge I)^{-1} S^T Y``; a label is predicted by the largest of its
    ``n_classes`` outputs.

    Parameters
    ----------
    train_states : ndarray of shape (N_train, d_hidden)
    train_labels : int ndarray of shape (N_train, P), entries in ``[0, n_classes)``
    test_states : ndarray of shape (N_test, d_hidden)
    test_labels : int ndarray of shape (N_test, P)

    Returns
    -------
    accuracy : ndarray of shape (P,)

    Raises
    ------
    ValueError
        ``n_classes`` not an integer >= 2, ``ridge`` not a finite number >= 0; ``train_states`` or
        ``test_states`` not a finite 2-D array with a row, or of different widths; ``train_labels``
        or ``test_labels`` not integers in ``[0, n_classes)`` of shape (rows, P), ``P >= 1``, the
        same ``P`` for both.

    >>> rng = np.random.default_rng(0)
    >>> labels = rng.integers(0, 3, size=(200, 1))
    >>> states = np.eye(3)[labels[:, 0]] + 0.1 * rng.normal(size=(200, 3))
    >>> linear_probe(states[:150], labels[:150], states[150:], labels[150:], 3)
    array([1.])
    """
    n_classes = positive_int("n_classes", n_classes, minimum=2)
    ridge = finite_float("ridge", ridge, low=0)
    S_train = as_float_array("train_states", train_states, ndims=(2,))
    S_test = as_float_array("test_states", test_states, ndims=(2,))
    for name, S in (("train_states", S_train), ("test_states", S_test)):
        if S.shape[0] == 0:
            raise ValueError(f"{name} must hold at least one row, got shape {S.shape}")
    if S_test.shape[1] != S_train.shape[1]:
        raise ValueError(f"test_states must have {S_train.shape[1]} columns like train_states, "
                         f"got {S_test.shape[1]}")
    y_train = as_ids("train_labels", train_labels, n_classes, ndims=(2,), what="labels")
    y_test = as_ids("test_labels", test_labels, n_classes, ndims=(2,), what="labels")
    for name, y, S in (("train_labels", y_train, S_train), ("test_labels", y_test, S_test)):
        if y.shape[0] != S.shape[0] or y.shape[1] == 0:
            raise ValueError(f"{name} must have shape ({S.shape[0]}, P) with P >= 1, got {y.shape}")
    P = y_train.shape[1]
    if y_test.shape[1] != P:
        raise ValueError(f"test_labels must have {P} columns like train_labels, got {y_test.shape[1]}")
    A = np.hstack([S_train, np.ones((len(S_train), 1))])
    B = np.hstack([S_test, np.ones((len(S_test), 1))])
    Y = np.eye(n_classes)[y_train].reshape(len(S_train), P * n_classes)  # one-hot, (N, P * C)
    W = np.linalg.solve(A.T @ A + ridge * np.eye(A.shape[1]), A.T @ Y)
    predicted = (B @ W).reshape(len(S_test), P, n_classes).argmax(axis=-1)
    return (predicted == y_test).mean(axis=0)
