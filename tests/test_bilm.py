"""seqmodels.models.bilm: biLM gradients against finite differences, the loss written out, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gradcheck import numerical_gradient, relative_error
from seqmodels.models.bilm import (BiLMConfig, bilm_loss, bilm_loss_and_grads, bilm_states, init_bilm, next_token_probs,
                            seeds_loss_and_grads)
from seqmodels.training.bilm_train import train_bilm
from seqmodels.models.birnn import bilstm_forward
from seqmodels.models.elmo import token_vectors
from seqmodels.models.lstm import lstm_forward
from seqmodels.common.numeric import log_softmax


def make_bilm(seed, n_layers, vocab=7, d_embed=3, d_hidden=4):
    rng = np.random.default_rng(seed)
    params = init_bilm(vocab, BiLMConfig(d_embed=d_embed, d_hidden=d_hidden, n_layers=n_layers), rng)
    for k in params:  # move off the initial point (b_out = 0, forget bias exactly 1)
        params[k] = params[k] + 0.2 * rng.normal(size=params[k].shape)
    return params, rng


@pytest.mark.parametrize("seed,n_layers,T,batch", [(0, 1, 2, None), (1, 1, 5, 3), (2, 2, 4, 2), (3, 2, 6, None)])
def test_bilm_gradients_match_central_differences(seed, n_layers, T, batch):
    params, rng = make_bilm(seed, n_layers)
    ids = rng.integers(0, 7, size=(T,) if batch is None else (T, batch))
    loss, grads = bilm_loss_and_grads(params, ids)
    assert loss == pytest.approx(bilm_loss(params, ids), abs=1e-15)
    for name in params:
        numeric = numerical_gradient(lambda: bilm_loss(params, ids), params[name])
        err = relative_error(grads[name], numeric)
        assert err <= 1e-6, f"d{name}: relative error {err:.2e} against central differences"


def test_bilm_loss_is_the_mean_of_both_directions_written_out():
    """An independent computation of the loss from bilm_states and the shared softmax."""
    params, rng = make_bilm(4, 1)
    ids = rng.integers(0, 7, size=6)
    hs = bilm_states(params, ids)[0]  # (T, 2H)
    H = params["W_out"].shape[1]

    def nll(h, targets):
        logits = h @ params["W_out"].T + params["b_out"]
        logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        return -logp[np.arange(len(targets)), targets].mean()

    expected = (nll(hs[:-1, :H], ids[1:]) + nll(hs[1:, H:], ids[:-1])) / 2
    assert bilm_loss(params, ids) == pytest.approx(expected, rel=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 2), st.integers(2, 7), st.integers(1, 3), st.integers(0, 2 ** 32 - 1))
def test_next_token_probs_are_the_softmax_of_the_last_states(n_layers, T, batch, seed):
    """fwd: the top forward state after all of ids; bwd: the top backward state after reading back to ids[0]."""
    rng = np.random.default_rng(seed)
    V = 7
    p = init_bilm(V, BiLMConfig(d_embed=3, d_hidden=4, n_layers=n_layers), rng)
    p = {k: v + rng.normal(scale=0.5, size=v.shape) for k, v in p.items()}   # away from the symmetric start
    ids = rng.integers(0, V, size=(T, batch))
    states = bilm_states(p, ids)[-1]                                          # (T, B, 2H)
    H = p["W_out"].shape[1]
    for direction, state in (("fwd", states[-1, :, :H]), ("bwd", states[0, :, H:])):
        probs = next_token_probs(p, ids, direction)
        logits = state @ p["W_out"].T + p["b_out"]
        ref = np.exp(logits - logits.max(-1, keepdims=True))
        np.testing.assert_allclose(probs, ref / ref.sum(-1, keepdims=True), rtol=0, atol=1e-12)
        np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        np.testing.assert_allclose(next_token_probs(p, ids[:, 0], direction), probs[0], rtol=0, atol=1e-12)


def test_next_token_probs_average_to_the_loss_and_reject_an_unknown_direction():
    rng = np.random.default_rng(3)
    p = init_bilm(6, BiLMConfig(d_embed=3, d_hidden=4), rng)
    ids = rng.integers(0, 6, size=(6, 2))
    # every prediction of the loss made from at least two tokens, in both directions
    terms = [-np.log(next_token_probs(p, ids[:t], "fwd")[np.arange(2), ids[t]]) for t in range(2, 6)]
    terms += [-np.log(next_token_probs(p, ids[t + 1:], "bwd")[np.arange(2), ids[t]]) for t in range(0, 4)]
    # the loss also scores the predictions from <one token>; add them from bilm_states
    H = p["W_out"].shape[1]
    s0 = bilm_states(p, ids)[-1]
    for state, target in ((s0[0, :, :H], ids[1]), (s0[-1, :, H:], ids[-2])):
        logp = log_softmax(state @ p["W_out"].T + p["b_out"], axis=-1)
        terms.append(-logp[np.arange(2), target])
    assert np.isclose(np.mean(terms), bilm_loss(p, ids), rtol=1e-12, atol=0)
    with pytest.raises(ValueError, match="direction"):
        next_token_probs(p, ids, "up")


def test_one_layer_states_are_bilstm_forward_of_the_embeddings_and_batches_are_independent():
    params, rng = make_bilm(5, 2)
    ids = rng.integers(0, 7, size=(5, 3))
    layers = bilm_states(params, ids)
    first = bilstm_forward(params["E"][ids], (params["fwd0.W"], params["fwd0.b"]),
                           (params["bwd0.W"], params["bwd0.b"]))
    np.testing.assert_allclose(layers[0], first, atol=1e-14)
    for j in range(3):
        for alone, together in zip(bilm_states(params, ids[:, j]), layers):
            np.testing.assert_allclose(alone, together[:, j], atol=1e-14)


def test_bilm_rejects_bad_ids_and_params():
    params, _ = make_bilm(0, 1)
    with pytest.raises(ValueError, match=r"ids\ must\ hold\ token\ ids\ in\ \[0,\ 7\),\ got\ values\ from\ 0\ to\ 7"):
        bilm_loss(params, np.array([0, 7, 1]))
    with pytest.raises(ValueError, match=r"ids\ must\ be\ at\ least\ 2\ long\ \(axis\ 0\),\ got\ shape\ \(1,\)"):
        bilm_loss(params, np.array([0]))
    with pytest.raises(ValueError, match=r"ids must be an integer array of token ids, got dtype float64"):
        bilm_states(params, np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"ids\ must\ be\ 1\-D\ or\ 2\-D,\ got\ shape\ \(2,\ 2,\ 2\)"):
        bilm_states(params, np.zeros((2, 2, 2), dtype=int))
    with pytest.raises(ValueError, match=r"params\['E'\] must be finite, got NaN or inf at index \(2, 1\)"):
        bad = dict(params, E=params["E"].copy())
        bad["E"][2, 1] = np.nan
        bilm_loss(bad, np.array([0, 2, 1]))
    with pytest.raises(KeyError, match=r"params has no entry 'W_out'"):
        bilm_loss({k: v for k, v in params.items() if k != "W_out"}, np.array([0, 2, 1]))
    with pytest.raises(ValueError, match=r"params\['fwd0.W'\] must have shape \(4 \* d_hidden, d_in \+ d_hidden\) = \(16, 7\), got \(16, 6\)"):
        bilm_loss(dict(params, **{"fwd0.W": np.zeros((16, 6))}), np.array([0, 2, 1]))
    with pytest.raises(ValueError, match=r"positions\[1\] must lie in 0 \.\. 2, got 3"):
        token_vectors(params, [np.array([0, 2, 1])] * 2, [1, 3])
    with pytest.raises(ValueError, match=r"sequences must hold at least one sentence, got none"):
        train_bilm([], 7)
    with pytest.raises(ValueError, match=r"sequences\[0\] must be 1-D \(T,\), got shape \(3, 1\)"):
        train_bilm([np.zeros((3, 1), dtype=int)], 7)
    with pytest.raises(ValueError, match=r"vocab_size\ must\ be\ an\ integer\ >=\ 2,\ got\ 1"):
        init_bilm(1, BiLMConfig(), np.random.default_rng(0))


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 9), st.integers(1, 4), st.integers(1, 5), st.integers(1, 3), st.integers(0, 2 ** 16))
def test_the_training_loop_is_lstm_forward_and_lstm_backward_to_round_off(T, d_in, H, batch, seed):
    # bilm trains its layers in the batched kernel (seqmodels.kernels.recurrent), two LSTMs side by side
    # with inputs of their own; it must compute what seqmodels.models.lstm computes
    from seqmodels.models.bilm import _lstm_layer, _lstm_layer_backward
    from seqmodels.models.lstm import lstm_backward
    rng = np.random.default_rng(seed)
    W, b = 2.0 * rng.normal(size=(4 * H, d_in + H)), rng.normal(size=4 * H)
    xs, dhs = rng.normal(size=(T, batch, d_in)), rng.normal(size=(T, batch, H))
    z = np.zeros((batch, H))
    W2, b2 = 0.5 * rng.normal(size=W.shape), rng.normal(size=b.shape)  # a second LSTM beside it
    xs2, dhs2 = rng.normal(size=xs.shape), rng.normal(size=dhs.shape)
    forward = _lstm_layer(np.stack([xs, xs2], axis=1), np.stack([W, W2]), np.stack([b, b2]))
    grads = _lstm_layer_backward(forward, np.stack([dhs, dhs2], axis=1))
    for k, (W_k, b_k, xs_k, dhs_k) in enumerate(((W, b, xs, dhs), (W2, b2, xs2, dhs2))):
        hs, _ = lstm_forward(xs_k, z, z, W_k, b_k)
        np.testing.assert_allclose(forward[0][:, k], hs, rtol=0, atol=1e-13)
        want = lstm_backward(xs_k, z, z, W_k, b_k, dhs_k)
        scale = 1e-12 * (1.0 + np.abs(want["W"]).max())
        np.testing.assert_allclose(grads[0][k], want["W"], rtol=0, atol=scale)
        np.testing.assert_allclose(grads[1][k], want["b"], rtol=0, atol=scale)
        np.testing.assert_allclose(grads[2][:, k], want["xs"], rtol=0, atol=scale)


def test_batched_seed_gradients_are_each_seeds_own_gradient():
    config = BiLMConfig(d_embed=3, d_hidden=4, n_layers=2)
    singles = [init_bilm(6, config, np.random.default_rng(s)) for s in (0, 1)]
    P = {k: np.stack([p[k] for p in singles]) for k in singles[0]}
    ids = np.random.default_rng(9).integers(0, 6, size=(5, 2, 3))   # (T, S, B)
    losses, g = seeds_loss_and_grads(P, ids)
    for s, p in enumerate(singles):
        loss, g1 = bilm_loss_and_grads(p, ids[:, s])
        assert np.isclose(losses[s], loss, rtol=1e-12)
        for key in g1:
            assert relative_error(g[key][s], g1[key]) < 1e-10, key


def test_batched_seed_losses_without_gradients_are_the_same_forward_pass():
    config = BiLMConfig(d_embed=3, d_hidden=4, n_layers=2)
    singles = [init_bilm(6, config, np.random.default_rng(s)) for s in (0, 1, 2)]
    P = {k: np.stack([p[k] for p in singles]) for k in singles[0]}
    ids = np.random.default_rng(4).integers(0, 6, size=(4, 3, 2))
    for dtype in (np.float64, np.float32):
        losses, _ = seeds_loss_and_grads(P, ids, dtype)
        alone, empty = seeds_loss_and_grads(P, ids, dtype, grads=False)
        np.testing.assert_array_equal(alone, losses)
        assert empty == {}
