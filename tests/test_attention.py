"""seqmodels.models.attention: softmax rows, causal mask, stability, gradients, the KV cache, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from gradcheck import numerical_gradient, relative_error
from seqmodels.models.attention import (KVCache, attention_stack, causal_mask, decode, decode_flops, decode_step,
                                 decode_step_without_cache, generate,
                                 init_attention, multi_head_attention, self_attention,
                                 self_attention_backward, sinusoidal_positions, softmax)


def weights(seed, d_model, d_k, d_v, scale=1.0):
    W_q, W_k, W_v = init_attention(d_model, d_k, d_v, np.random.default_rng(seed))
    return scale * W_q, scale * W_k, W_v


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 7), st.integers(1, 5)), elements=st.floats(-100, 100)),
       st.integers(0, 2**32 - 1), st.booleans())
def test_rows_are_probability_distributions(X, seed, causal):
    out, A = self_attention(X, *weights(seed, X.shape[1], 3, 2), causal=causal)
    assert A.shape == (X.shape[0], X.shape[0]) and out.shape == (X.shape[0], 2)
    assert np.all(A >= 0) and np.isfinite(A).all()
    np.testing.assert_allclose(A.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_causal_mask_hides_the_future(T, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, 4))
    W = weights(seed, 4, 4, 3)
    out, A = self_attention(X, *W, causal=True)
    assert np.all(A[~causal_mask(T)] == 0.0)
    # Changing a later position changes nothing at earlier ones.
    for i in range(T - 1):
        Y = X.copy()
        Y[i + 1:] = rng.normal(size=(T - i - 1, 4))
        np.testing.assert_array_equal(self_attention(Y, *W, causal=True)[0][: i + 1], out[: i + 1])


def test_without_mask_every_position_reads_every_other():
    X = np.random.default_rng(0).normal(size=(5, 4))
    _, A = self_attention(X, *weights(0, 4, 4, 4))
    assert np.all(A > 0)


def test_softmax_is_stable_at_large_logits():
    s = np.array([1e4, 1e4 - 1.0, -1e4, 0.0])
    expect = np.exp([0.0, -1.0]) / (1 + np.exp(-1.0))
    with np.errstate(over="raise", invalid="raise"):
        p = softmax(s)
    np.testing.assert_allclose(p[:2], expect, rtol=1e-15)
    assert p[2] == 0.0 and p[3] == 0.0
    with np.errstate(over="ignore", invalid="ignore"):  # the naive formula overflows: inf / inf = nan
        assert np.isnan(np.exp(s) / np.exp(s).sum()).any()


def test_attention_is_stable_when_scores_reach_1e4():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(6, 4))
    W_q, W_k, W_v = weights(1, 4, 4, 4)
    W_q = W_q * 1e4 / np.abs(X @ W_q @ (X @ W_k).T / 2).max()  # largest |score| is exactly 1e4
    with np.errstate(over="raise", invalid="raise"):
        out, A = self_attention(X, W_q, W_k, W_v, causal=True)
    S = (X @ W_q) @ (X @ W_k).T / 2
    assert np.isclose(np.abs(S).max(), 1e4)
    assert np.isfinite(out).all()
    np.testing.assert_allclose(A.sum(axis=-1), 1.0, atol=1e-12)
    # At such scales the softmax is (almost) a hard max over the allowed positions.
    allowed = np.where(causal_mask(6), S, -np.inf)
    assert np.array_equal(A.argmax(axis=-1), allowed.argmax(axis=-1))


def test_batch_equals_one_sequence_at_a_time():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(3, 5, 4))
    W = weights(2, 4, 3, 2)
    out, A = self_attention(X, *W, causal=True)
    for b in range(3):
        o, a = self_attention(X[b], *W, causal=True)
        np.testing.assert_allclose(out[b], o, rtol=0, atol=1e-14)
        np.testing.assert_allclose(A[b], a, rtol=0, atol=1e-14)


@pytest.mark.parametrize("seed,shape,d_k,d_v,causal", [
    (0, (1, 2), 1, 1, False), (1, (4, 3), 2, 3, False), (2, (5, 3), 4, 2, True),
    (3, (2, 4, 3), 3, 3, True), (4, (3, 3, 2), 2, 4, False),
])
def test_backward_matches_central_differences(seed, shape, d_k, d_v, causal):
    rng = np.random.default_rng(seed)
    params = {"X": rng.normal(size=shape)}
    params["W_q"], params["W_k"], params["W_v"] = (w * 1.5 for w in init_attention(shape[-1], d_k, d_v, rng))
    dout = rng.normal(size=shape[:-1] + (d_v,))
    grads = self_attention_backward(**params, dout=dout, causal=causal)

    def loss():
        return float(np.sum(self_attention(**params, causal=causal)[0] * dout))

    for name in ["X", "W_q", "W_k", "W_v"]:
        err = relative_error(grads[name], numerical_gradient(loss, params[name]))
        assert err <= 1e-6, f"d{name}: relative error {err:.2e} against central differences"


def test_causal_gradient_does_not_reach_the_future():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(5, 3))
    dout = np.zeros((5, 3))
    dout[2] = 1.0  # a loss on position 2 only
    g = self_attention_backward(X, *weights(5, 3, 3, 3), dout=dout, causal=True)["X"]
    assert np.all(g[3:] == 0) and np.all(np.abs(g[:3]).sum(axis=1) > 0)


def test_multi_head_equals_heads_run_separately():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(2, 5, 6))
    W_q, W_k, W_v = (rng.normal(size=(6, 6)) / np.sqrt(6) for _ in range(3))
    W_o = rng.normal(size=(6, 4))
    out, A = multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads=3, causal=True)
    heads = []
    for h in range(3):
        cols = slice(2 * h, 2 * h + 2)
        o, a = self_attention(X, W_q[:, cols], W_k[:, cols], W_v[:, cols], causal=True)
        np.testing.assert_allclose(A[:, h], a, atol=1e-14)
        heads.append(o)
    np.testing.assert_allclose(out, np.concatenate(heads, axis=-1) @ W_o, atol=1e-13)
    one, _ = multi_head_attention(X[0], W_q, W_k, W_v, np.eye(6), n_heads=1)
    np.testing.assert_allclose(one, self_attention(X[0], W_q, W_k, W_v)[0], atol=1e-14)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.sampled_from([2, 4, 6]), st.integers(1, 3), st.integers(1, 5),
       st.integers(0, 2**32 - 1))
def test_kv_cache_and_recomputation_equal_full_causal_attention(T, d_model, n_layers, d_k, seed):
    rng = np.random.default_rng(seed)
    layers = [init_attention(d_model, d_k, d_model, rng) for _ in range(n_layers)]
    X = rng.normal(size=(T, d_model))
    full = attention_stack(X, layers, causal=True)
    with_cache, without = decode(X, layers, cache=True), decode(X, layers, cache=False)
    np.testing.assert_allclose(with_cache, full, rtol=0, atol=1e-12)
    np.testing.assert_allclose(without, full, rtol=0, atol=1e-12)


def test_one_layer_stack_is_residual_attention():
    rng = np.random.default_rng(7)
    layers = [init_attention(4, 3, 4, rng)]
    X = rng.normal(size=(5, 4))
    np.testing.assert_allclose(attention_stack(X, layers, causal=False),
                               X + self_attention(X, *layers[0])[0], atol=1e-15)


def test_generation_is_the_same_with_and_without_cache():
    rng = np.random.default_rng(8)
    vocab, d = 11, 8
    E, W_out = rng.normal(size=(vocab, d)), rng.normal(size=(d, vocab))
    layers = [init_attention(d, d, d, rng) for _ in range(2)]
    a = generate([3, 1, 4], 20, E, layers, W_out, cache=True)
    b = generate([3, 1, 4], 20, E, layers, W_out, cache=False)
    assert a.tolist() == b.tolist() and a[:3].tolist() == [3, 1, 4] and len(a) == 23
    # Teacher-forced check: every generated token is the argmax at the position before it.
    X = E[a] + sinusoidal_positions(len(a), d)
    H = attention_stack(X, layers, causal=True)
    assert np.array_equal(np.argmax(H[2:-1] @ W_out, axis=-1), a[3:])


def test_cache_memory_grows_linearly():
    rng = np.random.default_rng(9)
    layers = [init_attention(4, 2, 4, rng) for _ in range(3)]
    sizes = []
    from seqmodels.models.attention import decode_step
    kv = KVCache.empty(layers, capacity=1)
    for t in range(10):
        decode_step(rng.normal(size=4), layers, kv)
        sizes.append(kv.n_numbers())
    assert sizes == [(t + 1) * 3 * (2 + 4) for t in range(10)]


@pytest.mark.parametrize("n,d,d_k,L", [(1, 1, 1, 1), (7, 5, 3, 1), (10, 4, 4, 3), (33, 8, 2, 2)])
def test_flop_counts_add_up_to_the_closed_forms(n, d, d_k, L):
    with_cache = decode_flops(n, d, d_k, n_layers=L, cache=True).sum()
    assert with_cache == L * (2 * n * d * (2 * d_k + d) + n * (n + 1) * (d_k + d))
    without = decode_flops(n, d, d_k, n_layers=L, cache=False).sum()
    top = n * (n + 1) * d * (d_k + d) + 2 * n * d * d_k + n * (n + 1) * (d_k + d)
    lower = n * (n + 1) * d * (2 * d_k + d) + n * (n + 1) * (2 * n + 1) * (d_k + d) // 3
    assert without == top + (L - 1) * lower
    assert without >= with_cache


def test_sinusoidal_positions_are_bounded_and_distinct():
    P = sinusoidal_positions(50, 8)
    assert np.all(np.abs(P) <= 1) and len({tuple(r) for r in P.round(6)}) == 50


GOOD = dict(X=np.zeros((3, 4)), W_q=np.zeros((4, 2)), W_k=np.zeros((4, 2)), W_v=np.zeros((4, 5)))


@pytest.mark.parametrize("change,match", [
    ({"X": np.zeros(4)}, r"X must be 2-D or 3-D, got shape \(4,\)"),
    ({"X": np.zeros((0, 4))}, r"X must hold at least one position \(T >= 1\), got shape \(0, 4\)"),
    ({"X": np.full((3, 4), np.nan)}, r"X must be finite, got NaN or inf at index \(0, 0\)"),
    ({"W_q": np.zeros((3, 2))}, r"W_q must have shape \(d_model, d_k\) with d_model = 4 and d_k >= 1, got \(3, 2\)"),
    ({"W_k": np.zeros((4, 3))}, r"W_k must have shape \(d_model, d_k\), like W_q = \(4, 2\), got \(4, 3\)"),
    ({"W_v": np.zeros((5, 5))}, r"W_v must have shape \(d_model, d_v\) with d_model = 4 and d_v >= 1, got \(5, 5\)"),
    ({"W_v": np.array(["a"])}, r"W_v must be a real numeric array, got dtype <U1"),
])
def test_self_attention_rejects_bad_input(change, match):
    with pytest.raises(ValueError, match=match):
        self_attention(**{**GOOD, **change})


def test_other_functions_reject_bad_input():
    rng = np.random.default_rng(0)
    W = init_attention(4, 4, 4, rng)
    with pytest.raises(ValueError, match=r"dout must have shape like out"):
        self_attention_backward(np.zeros((3, 4)), *W, dout=np.zeros((2, 4)))
    with pytest.raises(ValueError, match=r"n_heads must be a positive divisor of d_k = 4, got 3"):
        multi_head_attention(np.zeros((3, 4)), *W, np.eye(4), n_heads=3)
    with pytest.raises(ValueError, match=r"W_o must have shape \(d_k, d_out\) with d_k = 4, got \(3, 4\)"):
        multi_head_attention(np.zeros((3, 4)), *W, np.zeros((3, 4)), n_heads=2)
    with pytest.raises(ValueError, match=r"layers must hold at least one"):
        decode(np.zeros((3, 4)), [])
    with pytest.raises(ValueError, match=r"layers\[0\] W_v must have shape \(d_model, d_model\)"):
        decode(np.zeros((3, 4)), [init_attention(4, 4, 2, rng)])
    with pytest.raises(ValueError, match=r"X must hold at least one time step"):
        decode(np.zeros((0, 4)), [W])
    with pytest.raises(ValueError, match=r"scores must have at least one finite entry per row"):
        softmax(np.array([-np.inf, -np.inf]))
    with pytest.raises(ValueError, match=r"T\ must\ be\ an\ integer\ >=\ 1,\ got\ 0"):
        causal_mask(0)
    E, W_out = np.zeros((5, 4)), np.zeros((4, 5))
    with pytest.raises(ValueError, match=r"prompt must hold token ids in \[0, 5\)"):
        generate([1, 7], 3, E, [W], W_out)
    with pytest.raises(ValueError, match=r"prompt\ must\ be\ at\ least\ 1\ long\ \(axis\ 0\),\ got\ shape\ \(0,\)"):
        generate([], 3, E, [W], W_out)
    with pytest.raises(ValueError, match=r"W_unembed must have shape \(d_model, vocab\) = \(4, 5\), got \(5, 4\)"):
        generate([1], 3, E, [W], W_out.T)
    with pytest.raises(ValueError, match=r"n\ must\ be\ an\ integer\ >=\ 1,\ got\ 0"):
        decode_flops(0, 4)




def test_unchecked_decode_steps_compute_what_the_checked_ones_do():
    rng = np.random.default_rng(3)
    layers = [init_attention(6, 4, 6, rng) for _ in range(2)]
    X = rng.normal(size=(5, 6))
    a, b = KVCache.empty(layers), KVCache.empty(layers)
    for x in X:
        assert np.array_equal(decode_step(x, layers, a), decode_step(x, layers, b, check=False))
    assert np.array_equal(decode_step_without_cache(X, layers), decode_step_without_cache(X, layers, check=False))
