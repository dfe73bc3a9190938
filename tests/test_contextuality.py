"""The corrections of seqmodels.experiments.pretrained.contextuality on small constructed examples with known answers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from seqmodels.experiments.pretrained.contextuality import (adjust_similarity, bootstrap_mean_interval, correct_vectors,
                                     cosine_contributions, top_share)


def _unit(X):
    return X / np.linalg.norm(X, axis=-1, keepdims=True)


@settings(max_examples=50, deadline=None)
@given(arrays(np.float64, (2, 7, 5), elements=st.floats(-10, 10)))
def test_contributions_sum_to_the_mean_cosine(x):
    U, V = x[0] + 0.5, x[1] - 0.25            # shifted so that no row is exactly zero ...
    if (np.linalg.norm(U, axis=1) < 1e-3).any() or (np.linalg.norm(V, axis=1) < 1e-3).any():
        return                                  # ... or nearly
    c = cosine_contributions(U, V)
    assert c.shape == (5,)
    np.testing.assert_allclose(c.sum(), (_unit(U) * _unit(V)).sum(axis=1).mean(), atol=1e-12)
    # A positive rescaling of any row changes no cosine and no contribution.
    np.testing.assert_allclose(cosine_contributions(U * np.arange(1, 8)[:, None], V), c, atol=1e-12)


def test_one_shared_dimension_carries_the_whole_mean_cosine():
    # Every vector is 3 e_0 plus a part of length 1 in dimensions 1..4 that points a different way
    # for each row of U and V (opposite parts: their products cancel pairwise).
    rng = np.random.default_rng(0)
    parts = _unit(rng.normal(size=(50, 4)))
    U = np.hstack([np.full((50, 1), 3.0), parts])
    V = np.hstack([np.full((50, 1), 3.0), -parts])
    c = cosine_contributions(U, V)
    np.testing.assert_allclose(c[0], 9 / 10, atol=1e-12)          # 3 * 3 / |x|^2, |x|^2 = 10
    np.testing.assert_allclose(c[1:].sum(), -1 / 10, atol=1e-12)  # the parts: cos -1, scaled
    assert top_share(c[None], 1)[0] == pytest.approx(0.9 / 0.8)
    # Leading axes are kept: two layers at once give each layer's own contributions.
    both = cosine_contributions(np.stack([U, V]), np.stack([V, U]))
    np.testing.assert_allclose(both, np.stack([c, c]), atol=1e-12)


def test_top_share_known_values():
    c = np.array([[0.5, 0.1, 0.3, 0.1], [0.1, 0.1, 0.1, 0.1]])
    np.testing.assert_allclose(top_share(c, 2), [0.8, 0.5])
    np.testing.assert_allclose(top_share(c, 4), [1.0, 1.0])


def test_adjustments_known_values():
    s = np.array([0.2, 0.6, 1.0])
    np.testing.assert_allclose(adjust_similarity(s, 0.2, "subtract"), [0.0, 0.4, 0.8])
    np.testing.assert_allclose(adjust_similarity(s, 0.2, "rescale"), [0.0, 0.5, 1.0])  # b -> 0, 1 -> 1
    per_layer = adjust_similarity(np.array([[0.5, 0.5]]), np.array([0.0, 0.5]), "rescale")
    np.testing.assert_allclose(per_layer, [[0.5, 0.0]])
    with pytest.raises(ValueError, match="baseline must be below 1"):
        adjust_similarity(0.9, 1.0, "rescale")
    assert adjust_similarity(0.9, 1.0, "subtract") == pytest.approx(-0.1)


def test_centring_and_standardising_known_values():
    R = np.array([[0.0, 1.0, 5.0], [4.0, 3.0, 5.0]])
    np.testing.assert_allclose(correct_vectors(R, R, "centre"), [[-2, -1, 0], [2, 1, 0]])
    np.testing.assert_allclose(correct_vectors(R, R, "standardise"), [[-1, -1, 0], [1, 1, 0]])
    X = np.random.default_rng(1).normal(3.0, [1.0, 5.0, 1e-9], size=(200, 3))
    Z = correct_vectors(X, X, "standardise")
    np.testing.assert_allclose(Z.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(Z.std(axis=0), [1, 1, 0], atol=1e-12)  # 1e-9 of 5: constant, set to 0
    np.testing.assert_allclose(correct_vectors(X, X, "standardise", rtol=0).std(axis=0), 1, atol=1e-9)


def test_a_three_dimensional_reference_corrects_each_slice_with_its_own_statistics():
    rng = np.random.default_rng(2)
    R = rng.normal(size=(3, 40, 4)) * np.array([1.0, 2.0, 3.0])[:, None, None] + 5.0
    X = rng.normal(size=(3, 2, 6, 4)).astype(np.float32)
    out = correct_vectors(X, R.astype(np.float32), "standardise")
    assert out.dtype == np.float32 and out.shape == X.shape
    for l in range(3):
        np.testing.assert_allclose(out[l], correct_vectors(X[l], R[l], "standardise"), atol=1e-5)
    assert correct_vectors(X, R, "centre").dtype == np.float64


def test_rescaling_is_centring_when_every_vector_is_a_shared_vector_plus_a_part_of_one_length():
    # x = m + r with |r| = rho and r orthogonal to m; the reference's mean is exactly m.
    rng = np.random.default_rng(3)
    a, rho = 2.0, 0.5
    r = rho * _unit(rng.normal(size=(10, 5)))
    m = np.concatenate([[a], np.zeros(5)])
    reference = np.vstack([m + np.hstack([np.zeros((10, 1)), r]), m - np.hstack([np.zeros((10, 1)), r])])
    x1, x2 = reference[0], reference[1]
    b = a**2 / (a**2 + rho**2)       # the cosine of two vectors whose parts are orthogonal
    raw = float(_unit(x1) @ _unit(x2))
    c1, c2 = correct_vectors(np.stack([x1, x2]), reference, "centre")
    assert adjust_similarity(raw, b, "rescale") == pytest.approx(float(_unit(c1) @ _unit(c2)), abs=1e-12)
    # ... and subtracting the baseline gives (1 - b) times the centred cosine.
    assert adjust_similarity(raw, b, "subtract") == pytest.approx((1 - b) * float(_unit(c1) @ _unit(c2)),
                                                                  abs=1e-12)


def test_bootstrap_interval():
    x = np.arange(40.0)
    low, high = bootstrap_mean_interval(x, seed=0)
    assert low < x.mean() < high and high - low < 12
    assert bootstrap_mean_interval(x, seed=0) == (low, high)               # seeded
    l50, h50 = bootstrap_mean_interval(x, level=0.5, seed=0)
    assert low < l50 < h50 < high
    lo, hi = bootstrap_mean_interval(np.full((5, 3), 2.0), seed=1)           # no spread, no width
    np.testing.assert_array_equal(lo, 2.0) and np.testing.assert_array_equal(hi, 2.0)
    # Per column: a column of the constant 1 gets the interval [1, 1].
    lo, hi = bootstrap_mean_interval(np.stack([x, np.ones(40)], axis=1), seed=0)
    assert lo.shape == (2,) and (lo[1], hi[1]) == (1.0, 1.0) and lo[0] == low


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(2, 30), st.integers(1, 3)), elements=st.floats(-1e3, 1e3)))
def test_bootstrap_interval_lies_within_the_data(x):
    low, high = bootstrap_mean_interval(x, n_resamples=200, seed=0)
    assert np.all(low <= high + 1e-9)
    assert np.all(low >= x.min(axis=0) - 1e-9) and np.all(high <= x.max(axis=0) + 1e-9)
