"""seqmodels.models.rnn: shapes, BPTT against finite differences, properties and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from gradcheck import numerical_gradient, relative_error
from seqmodels.models.rnn import (gradient_decay, init_rnn, rnn_backward, rnn_forward, rnn_step,
                           state_jacobian_norms)


def make_problem(seed, T, d_in, d_hidden, batch=None):
    rng = np.random.default_rng(seed)
    W_h = rng.normal(scale=0.6 / np.sqrt(d_hidden), size=(d_hidden, d_hidden))
    W_x = rng.normal(scale=1 / np.sqrt(d_in), size=(d_hidden, d_in))
    b = rng.normal(scale=0.1, size=d_hidden)
    lead = (T,) if batch is None else (T, batch)
    xs = rng.normal(size=lead + (d_in,))
    h0 = rng.normal(scale=0.5, size=lead[1:] + (d_hidden,))
    dhs = rng.normal(size=lead + (d_hidden,))
    return {"xs": xs, "h0": h0, "W_h": W_h, "W_x": W_x, "b": b}, dhs


@pytest.mark.parametrize("seed,T,d_in,d_hidden,batch", [
    (0, 1, 1, 1, None), (1, 5, 3, 4, None), (2, 7, 2, 5, 3), (3, 4, 6, 2, 1), (4, 9, 4, 6, 2),
])
def test_backward_matches_central_differences(seed, T, d_in, d_hidden, batch):
    params, dhs = make_problem(seed, T, d_in, d_hidden, batch)
    grads = rnn_backward(**params, dhs=dhs)

    def loss():
        return float(np.sum(rnn_forward(**params) * dhs))

    for name in ["W_h", "W_x", "b", "h0", "xs"]:
        numeric = numerical_gradient(loss, params[name])
        err = relative_error(grads[name], numeric)
        assert err <= 1e-6, f"d{name}: relative error {err:.2e} against central differences"


def test_step_and_forward_agree_and_batch_is_independent():
    params, _ = make_problem(5, 6, 3, 4, batch=3)
    hs = rnn_forward(**params)
    h = params["h0"]
    for t in range(6):
        h = rnn_step(params["xs"][t], h, params["W_h"], params["W_x"], params["b"])
        np.testing.assert_allclose(hs[t], h, rtol=0, atol=1e-15, err_msg=f"step {t}")
    for i in range(3):  # each sequence of a batch gives what it gives alone
        single = dict(params, xs=params["xs"][:, i], h0=params["h0"][i])
        np.testing.assert_allclose(rnn_forward(**single), hs[:, i], atol=1e-14)


@settings(max_examples=50, deadline=None)
@given(arrays(np.float64, (5, 3), elements=st.floats(-1e6, 1e6)), st.integers(0, 2**32 - 1))
def test_forward_is_the_step_applied_in_turn_and_stays_finite_when_saturated(xs, seed):
    """rnn_forward (which projects every input at once) equals rnn_step applied T times; inputs up
    to 1e6 saturate tanh to exactly +-1 in floating point, and nothing overflows into NaN."""
    rng = np.random.default_rng(seed)
    W_h, W_x, b = init_rnn(3, 4, rng, spectral_radius=1.5)
    hs = rnn_forward(xs, np.zeros(4), W_h, W_x, b)
    h = np.zeros(4)
    for t in range(xs.shape[0]):
        h = rnn_step(xs[t], h, W_h, W_x, b)
        np.testing.assert_allclose(hs[t], h, rtol=0, atol=1e-12)
    assert np.isfinite(hs).all() and np.all(np.abs(hs) <= 1.0)


def test_jacobian_norms_match_finite_differences():
    params, _ = make_problem(6, 5, 2, 3)
    norms = state_jacobian_norms(**params)
    # dh_T/dh_0 by central differences, column by column, against the last entry (k = T).
    J = np.empty((3, 3))
    for j in range(3):
        e = np.zeros(3)
        e[j] = 1e-6
        up = rnn_forward(**dict(params, h0=params["h0"] + e))[-1]
        down = rnn_forward(**dict(params, h0=params["h0"] - e))[-1]
        J[:, j] = (up - down) / 2e-6
    assert abs(norms[-1] - np.linalg.norm(J, 2)) <= 1e-6 * np.linalg.norm(J, 2)


def test_init_rnn_sets_spectral_radius_and_gradient_decay_orders_radii():
    W_h, _, _ = init_rnn(2, 10, np.random.default_rng(3), spectral_radius=1.3)
    assert np.isclose(np.abs(np.linalg.eigvals(W_h)).max(), 1.3)
    curves = gradient_decay([0.5, 1.0, 2.0], T=30, n_sequences=4, linear=True)
    assert curves[0, -1] < curves[1, -1] < curves[2, -1]
    assert np.all(np.diff(np.log(curves[0])) < 0)  # radius 0.5: strictly shrinking


GOOD = dict(x_t=np.zeros(3), h_prev=np.zeros(4), W_h=np.zeros((4, 4)), W_x=np.zeros((4, 3)), b=np.zeros(4))


@pytest.mark.parametrize("change,match", [
    ({"W_h": np.zeros((4, 3))}, r"W_h must have shape \(d_hidden, d_hidden\) = \(4, 4\), got \(4, 3\)"),
    ({"W_x": np.zeros((5, 3))}, r"W_x must have shape \(d_hidden, d_in\) with d_hidden = 4, got \(5, 3\)"),
    ({"b": np.zeros(5)}, r"b must have shape \(d_hidden,\) = \(4,\), got \(5,\)"),
    ({"x_t": np.zeros(2)}, r"x_t must have shape \(d_in,\) = \(3,\), got \(2,\)"),
    ({"h_prev": np.zeros(5)}, r"h_prev must have shape \(d_hidden,\) = \(4,\), got \(5,\)"),
    ({"h_prev": np.zeros((2, 4))}, r"h_prev must be 1-D, got shape \(2, 4\)"),
    ({"x_t": np.array([0.0, np.nan, 0.0])}, r"x_t must be finite, got NaN or inf at index \(1,\)"),
    ({"W_h": np.full((4, 4), np.inf)}, r"W_h must be finite"),
    ({"x_t": np.array(["a", "b", "c"])}, r"x_t must be a real numeric array, got dtype <U1"),
    ({"b": np.zeros(4, dtype=bool)}, r"b must be a real numeric array, got dtype bool"),
])
def test_step_rejects_bad_input(change, match):
    with pytest.raises(ValueError, match=match):
        rnn_step(**{**GOOD, **change})


def test_forward_and_backward_reject_bad_sequences():
    W = dict(W_h=np.zeros((4, 4)), W_x=np.zeros((4, 3)), b=np.zeros(4))
    with pytest.raises(ValueError, match=r"xs must hold at least one time step \(T >= 1\), got shape \(0, 3\)"):
        rnn_forward(np.zeros((0, 3)), np.zeros(4), **W)
    with pytest.raises(ValueError, match=r"xs must have shape \(T, d_in\) = \(2, 3\), got \(2, 5\)"):
        rnn_forward(np.zeros((2, 5)), np.zeros(4), **W)
    with pytest.raises(ValueError, match=r"h0 must have shape \(batch, d_hidden\) = \(2, 4\), got \(3, 4\)"):
        rnn_forward(np.zeros((5, 2, 3)), np.zeros((3, 4)), **W)
    with pytest.raises(ValueError, match=r"xs must be 2-D or 3-D, got shape \(3,\)"):
        rnn_forward(np.zeros(3), np.zeros(4), **W)
    with pytest.raises(ValueError, match=r"dhs must have shape like hs"):
        rnn_backward(np.zeros((2, 3)), np.zeros(4), **W, dhs=np.zeros((3, 4)))
    with pytest.raises(ValueError, match=r"dhs must be finite"):
        rnn_backward(np.zeros((2, 3)), np.zeros(4), **W, dhs=np.full((2, 4), np.nan))
    with pytest.raises(ValueError, match=r"spectral_radius must be a finite number >= 0, got nan"):
        init_rnn(3, 4, np.random.default_rng(0), spectral_radius=float("nan"))


def test_gradient_decay_rows_keep_the_networks_and_input_seed_keeps_the_weights():
    radii = [0.5, 1.0, 1.5]
    full = gradient_decay(radii, T=12, n_sequences=3, burn_in=5, per_draw=True)
    only = gradient_decay(radii, T=12, n_sequences=3, burn_in=5, per_draw=True, rows=[2, 0])
    assert only.shape == (2, 3, 12) and np.array_equal(only[0], full[2]) and np.array_equal(only[1], full[0])
    # linear: the norms depend on the weights only, so new inputs change nothing there
    lin = gradient_decay(radii, T=6, n_sequences=2, linear=True, per_draw=True)
    assert np.array_equal(lin, gradient_decay(radii, T=6, n_sequences=2, linear=True, per_draw=True, input_seed=3))
    # with the tanh, new inputs change the norms
    other = gradient_decay(radii, T=12, n_sequences=3, burn_in=5, per_draw=True, input_seed=1)
    assert not np.allclose(other, full)
