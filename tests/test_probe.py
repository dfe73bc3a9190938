"""seqmodels.common.probe: equal vectors get equal predictions, the centroid rule by hand, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from seqmodels.common.probe import linear_probe_accuracy, nearest_centroid_accuracy


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 6), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_a_vector_shared_by_both_labels_scores_exactly_one_half(d, copies, seed):
    """Whatever the probe learns, a vector that occurs equally often with both labels is right
    for exactly half of its rows: the prediction is a function of the vector."""
    rng = np.random.default_rng(seed)
    X_train = rng.normal(size=(12, d))
    y_train = np.arange(12) % 2
    shared = rng.normal(size=(2, d))  # two test vectors, each with both labels `copies` times
    X_test = np.repeat(shared, 2 * copies, axis=0)
    y_test = np.tile(np.repeat([0, 1], copies), 2)
    assert nearest_centroid_accuracy(X_train, y_train, X_test, y_test) == 0.5
    assert linear_probe_accuracy(X_train, y_train, X_test, y_test, steps=20) == 0.5


def test_nearest_centroid_matches_a_loop():
    rng = np.random.default_rng(1)
    X_train, y_train = rng.normal(size=(30, 4)), rng.integers(0, 3, size=30)
    X_test, y_test = rng.normal(size=(17, 4)), rng.integers(0, 3, size=17)
    centroids = [X_train[y_train == k].mean(axis=0) for k in range(3)]
    pred = [int(np.argmin([np.sum((x - c) ** 2) for c in centroids])) for x in X_test]
    assert nearest_centroid_accuracy(X_train, y_train, X_test, y_test) == np.mean(np.array(pred) == y_test)


def test_nearest_centroid_on_repeated_rows_of_a_strided_view_matches_a_loop():
    """Rows are deduplicated by their bytes: a non-contiguous view and repeated rows change nothing."""
    rng = np.random.default_rng(2)
    X_train, y_train = rng.normal(size=(20, 3)), np.arange(20) % 2
    base = rng.normal(size=(5, 6))
    X_test = np.repeat(base, 3, axis=0)[:, ::2]                  # (15, 3), strided, rows repeated
    y_test = rng.integers(0, 2, size=15)
    centroids = [X_train[y_train == k].mean(axis=0) for k in range(2)]
    pred = [int(np.argmin([np.sum((x - c) ** 2) for c in centroids])) for x in X_test]
    assert nearest_centroid_accuracy(X_train, y_train, X_test, y_test) == np.mean(np.array(pred) == y_test)


def test_bad_input_names_the_argument():
    X = np.zeros((4, 2))
    with pytest.raises(ValueError, match="X_test must have 2 columns"):
        nearest_centroid_accuracy(X, np.array([0, 1, 0, 1]), np.zeros((3, 3)), np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="y_train must hold every class 0 .. 2, missing \\[1\\]"):
        linear_probe_accuracy(X, np.array([0, 2, 0, 2]), X, np.array([0, 1, 0, 1]))


def test_scalar_mix_gradients_match_central_differences():
    from gradcheck import numerical_gradient, relative_error
    from seqmodels.common.probe import scalar_mix_loss_and_grads

    rng = np.random.default_rng(4)
    layers, y = rng.normal(size=(3, 7, 4)), rng.integers(0, 3, size=7)
    params = {"w": rng.normal(size=3), "gamma": np.array([1.3]), "W": rng.normal(size=(3, 4)),
              "b": rng.normal(size=3)}
    _, grads = scalar_mix_loss_and_grads(params, layers, y, weight_decay=0.1)
    for key, value in params.items():
        numeric = numerical_gradient(lambda: scalar_mix_loss_and_grads(params, layers, y, 0.1)[0], value)
        assert relative_error(grads[key], numeric) < 1e-7, key


def test_scalar_mix_probe_weights_the_informative_layer_and_equals_a_probe_on_one_layer():
    from seqmodels.common.probe import scalar_mix_probe

    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, size=160)
    layers = rng.normal(size=(3, 160, 6))
    layers[2, :, 1] += 2.5 * (2 * y - 1)              # only layer 2 carries the label
    mix = scalar_mix_probe(layers[:, :80], y[:80], layers[:, 80:], y[80:])
    assert mix.weights.argmax() == 2 and np.isclose(mix.weights.sum(), 1.0)
    assert mix.accuracy > 0.85
    # a constant layer (like the static vector of one word) is standardised to zero
    flat = layers.copy()
    flat[0] = 1.0
    assert scalar_mix_probe(flat[:, :80], y[:80], flat[:, 80:], y[80:]).accuracy > 0.85
    with pytest.raises(ValueError, match="layers_test"):
        scalar_mix_probe(layers[:, :80], y[:80], layers[:2, 80:], y[80:])


def test_batched_linear_probes_equal_the_loop():
    from seqmodels.common.probe import linear_probe_accuracies

    rng = np.random.default_rng(6)
    X = rng.normal(size=(4, 90, 5))
    y = rng.integers(0, 3, size=90)
    X[1, :, 2] += 3 * y                               # one set carries the label
    batched = linear_probe_accuracies(X[:, :60], y[:60], X[:, 60:], y[60:], steps=50)
    loop = [linear_probe_accuracy(X[k, :60], y[:60], X[k, 60:], y[60:], steps=50) for k in range(4)]
    assert np.allclose(batched, loop)
    assert batched[1] == max(batched)


def test_batched_linear_probes_score_several_test_samples_with_one_training():
    from seqmodels.common.probe import linear_probe_accuracies

    rng = np.random.default_rng(8)
    X = rng.normal(size=(3, 120, 4))
    y = rng.integers(0, 2, size=120)
    X[0, :, 1] += 2 * y
    samples = np.stack([X[:, 60:90], X[:, 90:]])       # (S=2, P=3, 30, 4)
    y_shared = y[60:90]                                # scored against one set of labels
    both = linear_probe_accuracies(X[:, :60], y[:60], samples, y_shared, steps=40)
    assert both.shape == (2, 3)
    for s in range(2):   # each row is the 3-D call on that sample alone
        assert np.allclose(both[s], linear_probe_accuracies(X[:, :60], y[:60], samples[s], y_shared,
                                                            steps=40))
    with pytest.raises(ValueError, match="X_test"):
        linear_probe_accuracies(X[:, :60], y[:60], samples[:, :2], y_shared)
    with pytest.raises(ValueError, match="y_test"):
        linear_probe_accuracies(X[:, :60], y[:60], samples, y[:29])


def test_penalised_scalar_mix_gradients_match_central_differences():
    from gradcheck import numerical_gradient, relative_error
    from seqmodels.common.probe import scalar_mix_loss_and_grads

    rng = np.random.default_rng(7)
    layers, y = rng.normal(size=(3, 7, 4)), rng.integers(0, 3, size=7)
    params = {"w": rng.normal(size=3), "gamma": np.array([0.8]), "W": rng.normal(size=(3, 4)),
              "b": rng.normal(size=3)}
    for penalty in (0.001, 1.0):
        loss, grads = scalar_mix_loss_and_grads(params, layers, y, 0.1, mix_penalty=penalty)
        free, _ = scalar_mix_loss_and_grads(params, layers, y, 0.1)
        assert np.isclose(loss - free, penalty * np.sum(params["w"] ** 2))  # lambda ||w||^2, no 1/2
        for key, value in params.items():
            numeric = numerical_gradient(
                lambda: scalar_mix_loss_and_grads(params, layers, y, 0.1, mix_penalty=penalty)[0], value)
            assert relative_error(grads[key], numeric) < 1e-7, (penalty, key)


def test_batched_scalar_mix_probes_equal_the_loop_at_every_recorded_step():
    from seqmodels.common.probe import scalar_mix_probe, scalar_mix_probes

    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, size=90)
    layers = rng.normal(size=(4, 3, 90, 5))
    layers[:, 0] = layers[:, 0, :1]                    # a constant layer 0, as the static vector
    layers[:, 1, :, 0] += 1.5 * (2 * y - 1)
    layers[:, 2, :, 1] += (2 * y - 1) * np.array([0.5, 1.0, 2.0, 3.0])[:, None]
    lr, penalty = np.array([0.1, 0.01, 0.03, 0.1]), np.array([0.0, 0.001, 1.0, 0.1])
    fit = scalar_mix_probes(layers[:, :, :60], y[:60], layers[:, :, 60:], y[60:], steps=(3, 40, 120),
                            lr=lr, mix_penalty=penalty)
    assert fit.accuracy.shape == (3, 4) and fit.weights.shape == (3, 4, 3) and fit.gamma.shape == (3, 4)
    for k, steps in enumerate(fit.steps):
        for p in range(4):
            one = scalar_mix_probe(layers[p, :, :60], y[:60], layers[p, :, 60:], y[60:], steps=steps,
                                   lr=lr[p], mix_penalty=penalty[p])
            assert one.accuracy == fit.accuracy[k, p]
            np.testing.assert_allclose(fit.weights[k, p], one.weights, rtol=1e-9, atol=1e-12)
            assert np.isclose(fit.gamma[k, p], one.gamma, rtol=1e-9)
    # one number for every probe is the same as one per probe
    same = scalar_mix_probes(layers[:, :, :60], y[:60], layers[:, :, 60:], y[60:], steps=(40,), lr=0.05)
    each = scalar_mix_probes(layers[:, :, :60], y[:60], layers[:, :, 60:], y[60:], steps=(40,), lr=[0.05] * 4)
    np.testing.assert_array_equal(same.weights, each.weights)


def test_a_large_mix_penalty_holds_the_layer_weights_near_the_equal_mix():
    from seqmodels.common.probe import scalar_mix_probes

    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, size=120)
    layers = rng.normal(size=(1, 3, 120, 4))
    layers[0, 2, :, 0] += 3 * (2 * y - 1)              # only layer 2 carries the label
    stack = np.repeat(layers, 3, axis=0)
    fit = scalar_mix_probes(stack[:, :, :80], y[:80], stack[:, :, 80:], y[80:], steps=(300,),
                            mix_penalty=[0.0, 0.001, 10.0])
    s = fit.weights[0]                                  # (probes, layers)
    assert s[0, 2] > 0.6 and s[1, 2] > 0.6              # free, or nearly: weight on the informative layer
    assert np.abs(s[2] - 1 / 3).max() < 0.05            # penalised: close to 1/3 each
