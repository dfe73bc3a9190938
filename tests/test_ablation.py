"""seqmodels.experiments.lstm.ablation: with nothing ablated it is the LSTM; each intervention does what it says."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from seqmodels.experiments.lstm.ablation import lstm_forward_ablated
from seqmodels.models.lstm import init_lstm, lstm_forward


def _model(seed=0, d_in=3, d_h=4, T=6, batch=5):
    rng = np.random.default_rng(seed)
    W, b = init_lstm(d_in, d_h, rng, forget_bias=1.0)
    W *= 3.0                                          # gates well away from one half
    return rng.normal(size=(T, batch, d_in)), np.zeros((batch, d_h)), rng.normal(size=(batch, d_h)), W, b


def test_no_ablation_is_the_lstm():
    xs, h0, c0, W, b = _model()
    hs, cs, gates = lstm_forward(xs, h0, c0, W, b, return_gates=True)
    hs_a, cs_a, gates_a = lstm_forward_ablated(xs, h0, c0, W, b)
    assert np.allclose(hs, hs_a, atol=1e-12) and np.allclose(cs, cs_a, atol=1e-12)
    assert all(np.allclose(gates[k], gates_a[k], atol=1e-12) for k in gates)


def test_reading_zero_for_h_is_zeroing_the_recurrent_columns():
    xs, h0, c0, W, b = _model(1)
    cut = W.copy()
    cut[:, xs.shape[-1]:] = 0.0
    hs, cs = lstm_forward(xs, h0, c0, cut, b)
    hs_a, cs_a, _ = lstm_forward_ablated(xs, h0, c0, W, b, h_read=(True, 0.0))
    assert np.allclose(hs, hs_a, atol=1e-12) and np.allclose(cs, cs_a, atol=1e-12)


def test_forget_one_and_input_zero_keep_the_cell_exactly_where_asked():
    xs, h0, c0, W, b = _model(2)
    where = np.zeros((xs.shape[0], 1, 1), bool)
    where[2:4] = True
    _, cs, gates = lstm_forward_ablated(xs, h0, c0, W, b, clamp={"forget": (where, 1.0), "input": (where, 0.0)})
    assert np.array_equal(cs[3], cs[1]) and np.array_equal(cs[2], cs[1])     # exact: 1 * c + 0 * g
    assert np.all(gates["forget"][2:4] == 1.0) and not np.all(gates["forget"][4:] == 1.0)
    _, cs_free = lstm_forward(xs, h0, c0, W, b)
    assert np.allclose(cs[:2], cs_free[:2], atol=1e-12) and not np.allclose(cs[4:], cs_free[4:])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["forget", "input", "candidate", "output"]))
def test_clamping_a_gate_to_its_own_value_changes_nothing(seed, name):
    xs, h0, c0, W, b = _model(seed % 7)
    _, _, gates = lstm_forward(xs, h0, c0, W, b, return_gates=True)
    where = np.random.default_rng(seed).random(gates[name].shape) < 0.5
    hs, cs = lstm_forward(xs, h0, c0, W, b)
    hs_a, cs_a, _ = lstm_forward_ablated(xs, h0, c0, W, b, clamp={name: (where, gates[name])})
    assert np.allclose(hs, hs_a, atol=1e-12) and np.allclose(cs, cs_a, atol=1e-12)


def test_a_mean_ablation_removes_what_h_says_about_each_sequence():
    xs, h0, c0, W, b = _model(3)
    xs[:, :] = xs[:, :1]                             # every sequence of the batch the same
    hs = lstm_forward(xs, h0, np.zeros_like(c0), W, b)[0]
    mean = np.concatenate([np.zeros((1, 1, hs.shape[-1])), hs[:-1].mean(axis=1, keepdims=True)])
    hs_a = lstm_forward_ablated(xs, h0, np.zeros_like(c0), W, b, h_read=(True, mean))[0]
    assert np.allclose(hs, hs_a, atol=1e-12)         # identical sequences: the mean is each one's own h
