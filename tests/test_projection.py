"""seqmodels.common.projection: PCA against its definition."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from seqmodels.common.projection import pca


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(3, 20), st.integers(2, 6))
def test_pca_components_are_orthonormal_and_capture_most_variance(seed, n, d):
    X = np.random.default_rng(seed).normal(size=(n, d)) * np.arange(1, d + 1)
    p = pca(X, k=2)
    np.testing.assert_allclose(p.components @ p.components.T, np.eye(2), atol=1e-10)
    Z = p.transform(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0, atol=1e-9)
    # variance along the components equals the top eigenvalues of the covariance
    eig = np.sort(np.linalg.eigvalsh(np.cov(X.T, bias=True)))[::-1][:2]
    np.testing.assert_allclose(Z.var(axis=0), eig, rtol=1e-8, atol=1e-10)


def test_pca_bad_input():
    with pytest.raises(ValueError, match=r"X must have at least 2 rows"):
        pca(np.zeros((1, 3)))
    with pytest.raises(ValueError, match=r"k must be between 1 and min\(n, d\) = 3, got 4"):
        pca(np.zeros((5, 3)), k=4)
    with pytest.raises(ValueError, match=r"Y must have 3 columns, got shape \(2, 2\)"):
        pca(np.eye(3)).transform(np.zeros((2, 2)))
