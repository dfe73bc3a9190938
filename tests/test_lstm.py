"""seqmodels.models.lstm: BPTT against finite differences, gate behaviour, properties and bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from gradcheck import numerical_gradient, relative_error
from seqmodels.models.lstm import init_lstm, lstm_backward, lstm_backward_paths, lstm_forward, lstm_step
from seqmodels.common.numeric import sigmoid


def make_problem(seed, T, d_in, d_hidden, batch=None):
    rng = np.random.default_rng(seed)
    W = rng.normal(scale=0.8 / np.sqrt(d_in + d_hidden), size=(4 * d_hidden, d_in + d_hidden))
    b = rng.normal(scale=0.3, size=4 * d_hidden)
    lead = (T,) if batch is None else (T, batch)
    xs = rng.normal(size=lead + (d_in,))
    h0 = rng.normal(scale=0.5, size=lead[1:] + (d_hidden,))
    c0 = rng.normal(scale=0.5, size=lead[1:] + (d_hidden,))
    dhs = rng.normal(size=lead + (d_hidden,))
    dcs = rng.normal(size=lead + (d_hidden,))
    return {"xs": xs, "h0": h0, "c0": c0, "W": W, "b": b}, dhs, dcs


@pytest.mark.parametrize("seed,T,d_in,d_hidden,batch,with_dcs", [
    (0, 1, 1, 1, None, False), (1, 5, 3, 4, None, False), (2, 7, 2, 5, 3, False),
    (3, 4, 6, 2, 1, True), (4, 9, 4, 3, 2, True), (5, 6, 2, 3, None, True),
])
def test_backward_matches_central_differences(seed, T, d_in, d_hidden, batch, with_dcs):
    params, dhs, dcs = make_problem(seed, T, d_in, d_hidden, batch)
    dcs = dcs if with_dcs else None
    grads = lstm_backward(**params, dhs=dhs, dcs=dcs)

    def loss():
        hs, cs = lstm_forward(**params)
        return float(np.sum(hs * dhs) + (0.0 if dcs is None else np.sum(cs * dcs)))

    for name in ["W", "b", "h0", "c0", "xs"]:
        numeric = numerical_gradient(loss, params[name])
        err = relative_error(grads[name], numeric)
        assert err <= 1e-6, f"d{name}: relative error {err:.2e} against central differences"


def test_step_and_forward_agree_and_batch_is_independent():
    params, _, _ = make_problem(6, 6, 3, 4, batch=3)
    hs, cs, gates = lstm_forward(**params, return_gates=True)
    h, c = params["h0"], params["c0"]
    for t in range(6):
        h, c = lstm_step(params["xs"][t], h, c, params["W"], params["b"])
        np.testing.assert_allclose(hs[t], h, rtol=0, atol=1e-15, err_msg=f"h at step {t}")
        np.testing.assert_allclose(cs[t], c, rtol=0, atol=1e-15, err_msg=f"c at step {t}")
    # The returned gates reproduce the two state equations.
    c_prev = np.concatenate([params["c0"][None], cs[:-1]])
    np.testing.assert_allclose(cs, gates["forget"] * c_prev + gates["input"] * gates["candidate"], atol=1e-15)
    np.testing.assert_allclose(hs, gates["output"] * np.tanh(cs), atol=1e-15)
    for i in range(3):
        single = dict(params, xs=params["xs"][:, i], h0=params["h0"][i], c0=params["c0"][i])
        hs1, cs1 = lstm_forward(**single)
        np.testing.assert_allclose(hs1, hs[:, i], atol=1e-14)
        np.testing.assert_allclose(cs1, cs[:, i], atol=1e-14)


def test_gate_order_is_forget_input_candidate_output():
    d_in, H = 2, 3
    W, x, h = np.zeros((4 * H, d_in + H)), np.zeros(d_in), np.zeros(H)
    c_prev = np.array([1.0, -2.0, 0.5])
    for block, name in enumerate(["forget", "input", "candidate", "output"]):
        b = np.zeros(4 * H)
        b[block * H:(block + 1) * H] = 3.0  # only this block's pre-activation changes
        _, _, gates = lstm_forward(x[None], h, c_prev, W, b, return_gates=True)
        expected = np.tanh(3.0) if name == "candidate" else sigmoid(3.0)
        np.testing.assert_allclose(gates[name][0], expected, err_msg=name)
        for other in set(gates) - {name}:
            assert np.allclose(gates[other][0], 0.0 if other == "candidate" else 0.5), (name, other)


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, (2, 3), elements=st.floats(-5, 5)),
       arrays(np.float64, (2, 4), elements=st.floats(-50, 50)), st.integers(0, 2**32 - 1))
def test_saturated_forget_open_input_closed_carries_cell_unchanged(x, c_prev, seed):
    """f = 1, i = 0: c_t = c_prev exactly, whatever the input and the other weights."""
    rng = np.random.default_rng(seed)
    d_in, H = 3, 4
    W, b = init_lstm(d_in, H, rng)
    W[:2 * H] = 0.0  # forget and input gates ignore x and h ...
    b[:H], b[H:2 * H] = 1e4, -1e4  # ... and sit saturated: f = sigmoid(1e4) = 1, i = sigmoid(-1e4) = 0
    h_prev = rng.normal(size=(2, H))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning from the saturated sigmoid
        h, c = lstm_step(x, h_prev, c_prev, W, b)
    np.testing.assert_array_equal(c, c_prev)
    assert np.all(np.abs(h) <= np.abs(np.tanh(c_prev)))  # h = o * tanh(c) with 0 <= o <= 1


@settings(max_examples=50, deadline=None)
@given(arrays(np.float64, (6, 3), elements=st.floats(-1e6, 1e6)), st.integers(0, 2**32 - 1))
def test_outputs_bounded_and_cell_grows_at_most_one_per_step(xs, seed):
    rng = np.random.default_rng(seed)
    W, b = init_lstm(3, 4, rng)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hs, cs, gates = lstm_forward(xs, np.zeros(4), np.zeros(4), W, b, return_gates=True)
    assert np.isfinite(hs).all() and np.isfinite(cs).all()
    assert np.all(np.abs(hs) <= 1.0)
    # |c_t| <= |c_{t-1}| + 1 because f, i are in [0, 1] and |g| <= 1.
    assert np.all(np.abs(cs) <= np.arange(1, 7)[:, None] + 1e-12)
    for name in ["forget", "input", "output"]:
        assert np.all((gates[name] >= 0) & (gates[name] <= 1)), name


@settings(max_examples=50, deadline=None)
@given(arrays(np.float64, 20, elements=st.floats(-1e4, 1e4)))
def test_sigmoid_is_stable_and_symmetric(z):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = sigmoid(z)
    assert np.all((s >= 0) & (s <= 1))
    np.testing.assert_allclose(s + sigmoid(-z), 1.0, atol=1e-15)
    with np.errstate(over="ignore"):
        np.testing.assert_allclose(s, 1.0 / (1.0 + np.exp(-z)), rtol=1e-12, atol=1e-300)


def test_init_lstm_sets_forget_bias():
    W, b = init_lstm(5, 3, np.random.default_rng(0), forget_bias=2.0)
    assert W.shape == (12, 8)
    np.testing.assert_array_equal(b, [2.0] * 3 + [0.0] * 9)
    with pytest.raises(ValueError, match=r"d_in must be an integer >= 1, got 0"):
        init_lstm(0, 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"forget_bias\ must\ be\ a\ finite\ number,\ got\ nan"):
        init_lstm(2, 3, np.random.default_rng(0), forget_bias=float("nan"))


GOOD = dict(x_t=np.zeros(3), h_prev=np.zeros(4), c_prev=np.zeros(4), W=np.zeros((16, 7)), b=np.zeros(16))


@pytest.mark.parametrize("change,match", [
    ({"W": np.zeros((15, 7))}, r"W must have shape \(4 \* d_hidden, d_in \+ d_hidden\) .*got \(15, 7\)"),
    ({"W": np.zeros((16, 4))}, r"W must have shape \(4 \* d_hidden, d_in \+ d_hidden\) .*got \(16, 4\)"),
    ({"W": np.zeros((0, 3))}, r"W must have shape .*got \(0, 3\)"),
    ({"W": np.zeros(16)}, r"W must be 2-D, got shape \(16,\)"),
    ({"b": np.zeros(4)}, r"b must have shape \(4 \* d_hidden,\) = \(16,\), got \(4,\)"),
    ({"x_t": np.zeros(2)}, r"x_t must have shape \(d_in,\) = \(3,\), got \(2,\)"),
    ({"h_prev": np.zeros(5)}, r"h_prev must have shape \(d_hidden,\) = \(4,\), got \(5,\)"),
    ({"c_prev": np.zeros(3)}, r"c_prev must have shape \(d_hidden,\) = \(4,\), got \(3,\)"),
    ({"c_prev": np.zeros((2, 4))}, r"c_prev must be 1-D, got shape \(2, 4\)"),
    ({"x_t": np.array([0.0, np.nan, 0.0])}, r"x_t must be finite, got NaN or inf at index \(1,\)"),
    ({"c_prev": np.array([0.0, 0.0, np.inf, 0.0])}, r"c_prev must be finite, got NaN or inf at index \(2,\)"),
    ({"W": np.full((16, 7), np.nan)}, r"W must be finite"),
    ({"x_t": np.array(["a", "b", "c"])}, r"x_t must be a real numeric array, got dtype <U1"),
])
def test_step_rejects_bad_input(change, match):
    with pytest.raises(ValueError, match=match):
        lstm_step(**{**GOOD, **change})


def test_forward_and_backward_reject_bad_sequences():
    W = dict(W=np.zeros((16, 7)), b=np.zeros(16))
    z4 = np.zeros(4)
    with pytest.raises(ValueError, match=r"xs must hold at least one time step \(T >= 1\), got shape \(0, 3\)"):
        lstm_forward(np.zeros((0, 3)), z4, z4, **W)
    with pytest.raises(ValueError, match=r"xs must have shape \(T, d_in\) = \(2, 3\), got \(2, 5\)"):
        lstm_forward(np.zeros((2, 5)), z4, z4, **W)
    with pytest.raises(ValueError, match=r"c0 must have shape \(batch, d_hidden\) = \(2, 4\), got \(3, 4\)"):
        lstm_forward(np.zeros((5, 2, 3)), np.zeros((2, 4)), np.zeros((3, 4)), **W)
    with pytest.raises(ValueError, match=r"xs must be 2-D or 3-D, got shape \(3,\)"):
        lstm_forward(np.zeros(3), z4, z4, **W)
    with pytest.raises(ValueError, match=r"dhs must have shape like hs"):
        lstm_backward(np.zeros((2, 3)), z4, z4, **W, dhs=np.zeros((3, 4)))
    with pytest.raises(ValueError, match=r"dcs must have shape like cs"):
        lstm_backward(np.zeros((2, 3)), z4, z4, **W, dhs=np.zeros((2, 4)), dcs=np.zeros((2, 5)))
    with pytest.raises(ValueError, match=r"dhs must be finite"):
        lstm_backward(np.zeros((2, 3)), z4, z4, **W, dhs=np.full((2, 4), np.nan))


# --- The gradient split by path: along the cell, and through h -------------------------------------

def frozen_h_loss(params, h_read, dhs, dcs=None):
    """``sum(hs * dhs) + sum(cs * dcs)`` of the LSTM whose gates and candidate read ``h_read[t]``
    (a constant) in place of ``h_{t-1}``: each step is :func:`lstm_step` on the model's own cell."""
    c, hs, cs = params["c0"], [], []
    for t in range(params["xs"].shape[0]):
        h, c = lstm_step(params["xs"][t], h_read[t], c, params["W"], params["b"])
        hs.append(h)
        cs.append(c)
    hs, cs = np.array(hs), np.array(cs)
    return float(np.sum(hs * dhs) + (0.0 if dcs is None else np.sum(cs * dcs)))


@pytest.mark.parametrize("seed,T,d_in,d_hidden,batch,with_dcs", [
    (10, 1, 1, 1, None, False), (11, 5, 3, 4, None, False), (12, 7, 2, 5, 3, True), (13, 6, 4, 3, 2, False),
])
def test_cell_path_is_the_gradient_with_h_read_as_a_constant(seed, T, d_in, d_hidden, batch, with_dcs):
    """The cell stream is the derivative of the model whose gates read h_{t-1} frozen at the intact
    forward pass's values (central differences of that model, every argument), and the two streams
    add up to the full gradient, itself checked against central differences above."""
    params, dhs, dcs = make_problem(seed, T, d_in, d_hidden, batch)
    dcs = dcs if with_dcs else None
    parts = lstm_backward_paths(**params, dhs=dhs, dcs=dcs)
    hs, _ = lstm_forward(**params)
    h_read = np.concatenate([params["h0"][None], hs[:-1]])  # h_{t-1} of the intact pass, held fixed
    for name in ["W", "b", "c0", "xs"]:
        numeric = numerical_gradient(lambda: frozen_h_loss(params, h_read, dhs, dcs), params[name])
        err = relative_error(parts["cell path"][name], numeric)
        assert err <= 1e-6, f"cell path d{name}: relative error {err:.2e} against central differences"
    assert np.all(parts["cell path"]["h0"] == 0.0)  # h0 reaches the outputs only through the gates
    full = lstm_backward(**params, dhs=dhs, dcs=dcs)
    for name in full:
        np.testing.assert_allclose(parts["cell path"][name] + parts["through h"][name], full[name],
                                   rtol=1e-12, atol=1e-12, err_msg=name)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8), st.integers(1, 4), st.integers(1, 5), st.integers(1, 3),
       st.floats(-4, 6), st.floats(0.1, 3))
def test_cell_path_and_through_h_add_up_to_the_full_gradient(seed, T, d_in, d_hidden, batch, forget_bias, scale):
    """For any sizes, forget bias and weight scale: the two parts sum to lstm_backward's gradient up
    to rounding (a few ulps of the largest term), for every argument."""
    rng = np.random.default_rng(seed)
    W, b = init_lstm(d_in, d_hidden, rng, forget_bias=forget_bias)
    W = scale * W
    xs, dhs = rng.normal(size=(T, batch, d_in)), rng.normal(size=(T, batch, d_hidden))
    h0, c0 = rng.normal(size=(batch, d_hidden)), rng.normal(size=(batch, d_hidden))
    parts = lstm_backward_paths(xs, h0, c0, W, b, dhs)
    full = lstm_backward(xs, h0, c0, W, b, dhs)
    for name in full:
        total = parts["cell path"][name] + parts["through h"][name]
        size = np.abs(parts["cell path"][name]).max() + np.abs(parts["through h"][name]).max() + 1e-300
        assert np.abs(total - full[name]).max() <= 1e-12 * size, name


def test_paths_without_recurrent_weights_and_at_the_last_input():
    """With W's recurrent columns zero nothing flows through h, so the cell path is the whole
    gradient; and the last input never reaches the outputs through an earlier h."""
    params, dhs, _ = make_problem(14, 6, 3, 4, batch=2)
    cut = dict(params, W=params["W"].copy())
    cut["W"][:, 3:] = 0.0
    parts = lstm_backward_paths(**cut, dhs=dhs)
    full = lstm_backward(**cut, dhs=dhs)
    for name in full:
        np.testing.assert_array_equal(parts["through h"][name], 0.0, err_msg=name)
        np.testing.assert_allclose(parts["cell path"][name], full[name], rtol=0, atol=1e-15, err_msg=name)
    last = np.zeros_like(dhs)
    last[-1] = dhs[-1]
    parts = lstm_backward_paths(**params, dhs=last)
    np.testing.assert_array_equal(parts["through h"]["xs"][-1], 0.0)
