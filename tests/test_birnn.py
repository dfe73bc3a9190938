"""seqmodels.models.birnn: the reversal property of the bidirectional LSTM, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from seqmodels.models.birnn import bilstm_forward
from seqmodels.models.lstm import init_lstm, lstm_forward


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 9), st.integers(1, 4), st.integers(1, 5), st.integers(1, 5),
       st.sampled_from([None, 1, 3]), st.integers(0, 2**32 - 1))
def test_backward_half_is_the_forward_lstm_on_the_reversed_sequence(T, d_in, d_fwd, d_bwd, batch, seed):
    rng = np.random.default_rng(seed)
    fwd, bwd = init_lstm(d_in, d_fwd, rng), init_lstm(d_in, d_bwd, rng)
    lead = (T,) if batch is None else (T, batch)
    xs = rng.normal(scale=2.0, size=lead + (d_in,))
    hs = bilstm_forward(xs, fwd, bwd)
    assert hs.shape == lead + (d_fwd + d_bwd,)
    zb = np.zeros(lead[1:] + (d_bwd,))
    reversed_run = lstm_forward(xs[::-1], zb, zb, *bwd)[0][::-1]
    np.testing.assert_allclose(hs[..., d_fwd:], reversed_run, rtol=0, atol=1e-14)
    zf = np.zeros(lead[1:] + (d_fwd,))
    np.testing.assert_allclose(hs[..., :d_fwd], lstm_forward(xs, zf, zf, *fwd)[0], rtol=0, atol=1e-14)


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, (6, 2), elements=st.floats(-50, 50)), st.integers(0, 5), st.integers(0, 2**32 - 1))
def test_each_half_sees_only_its_own_side(xs, t, seed):
    """Changing the input at t moves the forward half only from t on, the backward half only up to t."""
    rng = np.random.default_rng(seed)
    fwd, bwd = init_lstm(2, 3, rng), init_lstm(2, 3, rng)
    hs = bilstm_forward(xs, fwd, bwd)
    changed = xs.copy()
    changed[t] += 1.0
    hs2 = bilstm_forward(changed, fwd, bwd)
    np.testing.assert_array_equal(hs2[:t, :3], hs[:t, :3])  # forward: positions before t untouched
    np.testing.assert_array_equal(hs2[t + 1:, 3:], hs[t + 1:, 3:])  # backward: positions after t


W3 = init_lstm(2, 3, np.random.default_rng(0))


@pytest.mark.parametrize("xs,fwd,bwd,error,match", [
    (np.zeros((0, 2)), W3, W3, ValueError, r"xs must hold at least one time step \(T >= 1\), got shape \(0, 2\)"),
    (np.zeros((4, 3)), W3, W3, ValueError, r"fwd\[0\]\ \(W\)\ reads\ inputs\ of\ width\ 2,\ but\ xs\ has\ d_in\ =\ 3"),
    (np.array([[0.0, np.nan]]), W3, W3, ValueError, r"xs must be finite, got NaN or inf at index \(0, 1\)"),
    (np.zeros(2), W3, W3, ValueError, r"xs must be 2-D or 3-D, got shape \(2,\)"),
    (np.zeros((4, 2)), W3[0], W3, ValueError, r"fwd must be a \(W, b\) pair in the lstm_step layout, got ndarray"),
    (np.zeros((4, 2)), W3, (W3[0],), ValueError, r"bwd must be a \(W, b\) pair .*, got tuple of length 1"),
    (np.zeros((4, 2)), W3, (W3[0], np.zeros(5)), ValueError, r"bwd\[1\]\ \(b\)\ must\ have\ shape\ \(4\ \*\ d_hidden,\)\ =\ \(12,\),\ got\ \(5,\)"),
])
def test_bilstm_forward_rejects_bad_input(xs, fwd, bwd, error, match):
    with pytest.raises(error, match=match):
        bilstm_forward(xs, fwd, bwd)
