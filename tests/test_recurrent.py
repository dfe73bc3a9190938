"""seqmodels.kernels.recurrent: the batched kernel computes what the readable references compute."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcheck import numerical_gradient, relative_error
from seqmodels.kernels import recurrent
from seqmodels.models.gru import gru_backward, gru_forward, init_gru
from seqmodels.models.lstm import init_lstm, lstm_backward, lstm_forward
from seqmodels.models.rnn import init_rnn, rnn_backward, rnn_forward

SHAPES = [(1, 1, 1, 1, 1), (1, 3, 2, 2, 3), (5, 1, 1, 3, 2), (4, 3, 5, 2, 4), (7, 2, 3, 1, 5)]  # T, S, B, d_in, H


def _models(kind, S, d_in, H, rng):
    """S models of one kind with biases moved off their initial values, as (W, b) packs."""
    Ws, bs = [], []
    for _ in range(S):
        if kind == "rnn":
            W_h, W_x, b = init_rnn(d_in, H, rng, spectral_radius=0.9)
            W = np.hstack([W_x, W_h])
        elif kind == "lstm":
            W, b = init_lstm(d_in, H, rng)
        else:
            W, b = init_gru(d_in, H, rng)
        Ws.append(W + 0.2 * rng.normal(size=W.shape))
        bs.append(b + 0.3 * rng.normal(size=b.shape))
    return np.stack(Ws), np.stack(bs)


def _reference(kind, W, b, xs, d):
    """States and gradients (W, b, xs) of one model from its reference module, zero initial state."""
    B, H = xs.shape[1], d.shape[-1]
    h0 = np.zeros((B, H))
    d_in = xs.shape[-1]
    if kind == "rnn":
        hs = rnn_forward(xs, h0, W[:, d_in:], W[:, :d_in], b)
        g = rnn_backward(xs, h0, W[:, d_in:], W[:, :d_in], b, d)
        return hs, np.hstack([g["W_x"], g["W_h"]]), g["b"], g["xs"]
    if kind == "lstm":
        hs = lstm_forward(xs, h0, h0, W, b)[0]
        g = lstm_backward(xs, h0, h0, W, b, d)
    else:
        hs = gru_forward(xs, h0, W, b)
        g = gru_backward(xs, h0, W, b, d)
    return hs, g["W"], g["b"], g["xs"]


@pytest.mark.parametrize("shared", [True, False], ids=["shared input", "input per model"])
@pytest.mark.parametrize("T,S,B,d_in,H", SHAPES)
@pytest.mark.parametrize("kind", recurrent.KINDS)
def test_kernel_matches_the_references(kind, T, S, B, d_in, H, shared):
    rng = np.random.default_rng([T, S, B, d_in, H])
    W, b = _models(kind, S, d_in, H, rng)
    xs = rng.normal(size=(T, B, d_in) if shared else (T, S, B, d_in))
    dhs, dh_last = rng.normal(size=(T, S, B, H)), rng.normal(size=(S, B, H))
    run = recurrent.forward(kind, W, b, xs)
    hs = run.states()
    g = recurrent.backward(run, dhs=dhs, dh_last=dh_last, inputs=True)
    assert hs.shape == (T, S, B, H) and g["xs"].shape == (T, S, B, d_in)
    np.testing.assert_array_equal(run.h_last(), hs[-1])
    for s in range(S):
        d = dhs[:, s].copy()
        d[-1] += dh_last[s]
        ref_hs, ref_W, ref_b, ref_xs = _reference(kind, W[s], b[s], xs if shared else xs[:, s], d)
        np.testing.assert_allclose(hs[:, s], ref_hs, atol=1e-13)
        np.testing.assert_allclose(g["W"][s], ref_W, atol=1e-12)
        np.testing.assert_allclose(g["b"][s], ref_b, atol=1e-12)
        np.testing.assert_allclose(g["xs"][:, s], ref_xs, atol=1e-12)


@pytest.mark.parametrize("T,S,B,d_in,H", [(1, 1, 1, 1, 1), (3, 2, 2, 2, 3), (5, 1, 3, 2, 2)])
@pytest.mark.parametrize("kind", recurrent.KINDS)
def test_kernel_gradients_match_central_differences(kind, T, S, B, d_in, H):
    rng = np.random.default_rng([7, T, S, B])
    W, b = _models(kind, S, d_in, H, rng)
    xs = rng.normal(size=(T, S, B, d_in))
    dhs, dh_last = rng.normal(size=(T, S, B, H)), rng.normal(size=(S, B, H))

    def loss():
        run = recurrent.forward(kind, W, b, xs, tag="fd")
        return float((run.states() * dhs).sum() + (run.h_last() * dh_last).sum())

    g = recurrent.backward(recurrent.forward(kind, W, b, xs), dhs=dhs, dh_last=dh_last, inputs=True)
    for name, arr in (("W", W), ("b", b), ("xs", xs)):
        err = relative_error(g[name], numerical_gradient(loss, arr))
        assert err < 1e-7, f"{kind} d{name}: relative error {err:.1e}"


@pytest.mark.parametrize("kind", recurrent.KINDS)
def test_last_state_only_equals_full_pass_and_float32_follows_float64(kind):
    rng = np.random.default_rng(3)
    W, b = _models(kind, 3, 2, 4, rng)
    xs = rng.normal(size=(9, 5, 2))
    full = recurrent.forward(kind, W, b, xs)
    lean = recurrent.forward(kind, W, b, xs, keep=False, tag="lean")
    np.testing.assert_allclose(lean.h_last(), full.h_last(), atol=1e-14)
    with pytest.raises(ValueError, match="keep=True"):
        lean.states()
    with pytest.raises(ValueError, match="keep=True"):
        recurrent.backward(lean, dh_last=np.ones((3, 5, 4)))
    single = recurrent.forward(kind, W.astype(np.float32), b.astype(np.float32), xs.astype(np.float32), tag="f32")
    assert single.states().dtype == np.float32
    np.testing.assert_allclose(single.states(), full.states(), atol=1e-5)
    g32 = recurrent.backward(single, dh_last=np.ones((3, 5, 4), np.float32))
    g64 = recurrent.backward(full, dh_last=np.ones((3, 5, 4)))
    assert g32["W"].dtype == np.float32
    assert relative_error(g32["W"], g64["W"]) < 1e-5


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(recurrent.KINDS), st.integers(1, 6), st.integers(1, 3), st.integers(1, 4),
       st.integers(0, 2 ** 16))
def test_models_do_not_interact(kind, T, S, B, seed):
    # each model's states and gradients depend on its own weights only: the pack of S models
    # equals S packs of one (to round-off: a BLAS kernel may round a batched product differently)
    rng = np.random.default_rng(seed)
    W, b = _models(kind, S, 2, 3, rng)
    xs, dhs = rng.normal(size=(T, B, 2)), rng.normal(size=(T, S, B, 3))
    run = recurrent.forward(kind, W, b, xs)
    hs, g = run.states(), recurrent.backward(run, dhs=dhs)
    for s in range(S):
        one = recurrent.forward(kind, W[s:s + 1], b[s:s + 1], xs, tag="one")
        np.testing.assert_allclose(one.states()[:, 0], hs[:, s], atol=1e-13)
        g1 = recurrent.backward(one, dhs=dhs[:, s:s + 1])
        np.testing.assert_allclose(g1["W"][0], g["W"][s], atol=1e-12)
        np.testing.assert_allclose(g1["b"][0], g["b"][s], atol=1e-12)


def test_bad_input_names_the_argument():
    rng = np.random.default_rng(0)
    W, b = _models("lstm", 2, 3, 4, rng)
    xs = rng.normal(size=(5, 2, 3))
    with pytest.raises(ValueError, match="kind"):
        recurrent.forward("transformer", W, b, xs)
    with pytest.raises(ValueError, match="W must have shape"):
        recurrent.forward("gru", W, b, xs)  # 16 rows is no multiple of 3
    with pytest.raises(ValueError, match="b must have shape"):
        recurrent.forward("lstm", W, b[:, :-1], xs)
    with pytest.raises(ValueError, match="xs must have shape"):
        recurrent.forward("lstm", W, b, xs[:, :, :2])
    with pytest.raises(ValueError, match="xs must have shape"):
        recurrent.forward("lstm", W, b, np.zeros((0, 2, 3)))
    with pytest.raises(ValueError, match="xs must have shape"):
        recurrent.forward("lstm", W, b, np.zeros((5, 3, 2, 3)))  # 3 models' inputs for 2 models
    with pytest.raises(ValueError, match="xs must be finite"):
        recurrent.forward("lstm", W, b, np.full((5, 2, 3), np.nan))
    run = recurrent.forward("lstm", W, b, xs)
    with pytest.raises(ValueError, match="neither"):
        recurrent.backward(run)
    with pytest.raises(ValueError, match="dhs must have shape"):
        recurrent.backward(run, dhs=np.zeros((5, 2, 2, 3)))
    with pytest.raises(ValueError, match="dh_last must have shape"):
        recurrent.backward(run, dh_last=np.zeros((2, 4, 4)))
    with pytest.raises(ValueError, match="dh_last must be finite"):
        recurrent.backward(run, dh_last=np.full((2, 2, 4), np.inf))
    with pytest.raises(ValueError, match="p must be a Pass"):
        recurrent.backward({"W": W}, dh_last=np.zeros((2, 2, 4)))
