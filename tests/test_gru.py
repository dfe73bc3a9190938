"""seqmodels.models.gru: BPTT against finite differences, the step equations, properties and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gradcheck import numerical_gradient, relative_error
from seqmodels.models.gru import gru_backward, gru_forward, gru_step, init_gru


def make_problem(seed, T, d_in, d_hidden, batch=None):
    rng = np.random.default_rng(seed)
    W = rng.normal(scale=0.9 / np.sqrt(d_in + d_hidden), size=(3 * d_hidden, d_in + d_hidden))
    b = rng.normal(scale=0.3, size=3 * d_hidden)
    lead = (T,) if batch is None else (T, batch)
    xs = rng.normal(size=lead + (d_in,))
    h0 = rng.normal(scale=0.5, size=lead[1:] + (d_hidden,))
    return {"xs": xs, "h0": h0, "W": W, "b": b}, rng.normal(size=lead + (d_hidden,))


@pytest.mark.parametrize("seed,T,d_in,d_hidden,batch", [
    (0, 1, 1, 1, None), (1, 5, 3, 4, None), (2, 7, 2, 5, 3), (3, 4, 6, 2, 1), (4, 9, 4, 3, 2),
])
def test_backward_matches_central_differences(seed, T, d_in, d_hidden, batch):
    params, dhs = make_problem(seed, T, d_in, d_hidden, batch)
    grads = gru_backward(**params, dhs=dhs)

    def loss():
        return float(np.sum(gru_forward(**params) * dhs))

    for name in ["W", "b", "h0", "xs"]:
        numeric = numerical_gradient(loss, params[name])
        err = relative_error(grads[name], numeric)
        assert err <= 1e-6, f"d{name}: relative error {err:.2e} against central differences"


def test_step_matches_the_equations_and_forward():
    params, _ = make_problem(5, 6, 3, 4, batch=2)
    W, b, H, d_in = params["W"], params["b"], 4, 3
    hs, gates = gru_forward(**params, return_gates=True)
    h = params["h0"]
    for t in range(6):
        x = params["xs"][t]
        sig = lambda a: 1 / (1 + np.exp(-a))
        r = sig(np.concatenate([x, h], -1) @ W[:H].T + b[:H])
        z = sig(np.concatenate([x, h], -1) @ W[H:2 * H].T + b[H:2 * H])
        n = np.tanh(np.concatenate([x, r * h], -1) @ W[2 * H:].T + b[2 * H:])
        h_eq = z * h + (1 - z) * n
        np.testing.assert_allclose(gru_step(x, h, W, b), h_eq, atol=1e-12, err_msg=f"step {t}")
        np.testing.assert_allclose(hs[t], h_eq, atol=1e-12, err_msg=f"forward at step {t}")
        np.testing.assert_allclose(gates["update"][t], z, atol=1e-12)
        h = h_eq


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 6), st.integers(1, 4), st.integers(1, 5))
def test_state_stays_in_minus_one_one_and_batch_rows_are_independent(seed, T, d_in, d_hidden):
    rng = np.random.default_rng(seed)
    W, b = init_gru(d_in, d_hidden, rng)
    xs = 3 * rng.normal(size=(T, 3, d_in))
    hs = gru_forward(xs, np.zeros((3, d_hidden)), W, b)
    assert np.all(np.abs(hs) < 1)  # a convex mix of h_prev and tanh values, from h0 = 0
    alone = gru_forward(xs[:, 1], np.zeros(d_hidden), W, b)
    np.testing.assert_allclose(hs[:, 1], alone, atol=1e-12)


@pytest.mark.parametrize("call,match", [
    (lambda W, b: gru_forward(np.zeros((0, 2)), np.zeros(3), W, b), "xs must hold at least one time step"),
    (lambda W, b: gru_forward(np.zeros((4, 5)), np.zeros(3), W, b), r"xs must have shape \(T, d_in\)"),
    (lambda W, b: gru_forward(np.full((4, 2), np.nan), np.zeros(3), W, b), "xs must be finite"),
    (lambda W, b: gru_forward(np.zeros((4, 2)), np.zeros(4), W, b), "h0 must have shape"),
    (lambda W, b: gru_forward(np.zeros((4, 2)), np.zeros(3), W[:8], b), "W must have shape"),
    (lambda W, b: gru_forward(np.zeros((4, 2)), np.zeros(3), W, b[:5]), "b must have shape"),
    (lambda W, b: gru_backward(np.zeros((4, 2)), np.zeros(3), W, b, np.zeros((3, 3))), "dhs must have shape"),
    (lambda W, b: gru_step(np.zeros((0, 2)), np.zeros((0, 3)), W, b), "x_t must hold at least one row"),
    (lambda W, b: init_gru(0, 3, 0), "d_in must be an integer"),
    (lambda W, b: init_gru(2, 3, 0, update_bias=float("inf")), "update_bias must be a finite number"),
    (lambda W, b: init_gru(2, 3, "seed"), "rng must be"),
])
def test_bad_input_names_the_argument(call, match):
    W, b = init_gru(2, 3, 0)
    with pytest.raises(ValueError, match=match):
        call(W, b)
