"""seqmodels.birnn: the reversal property, biLM gradients against finite differences, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from gradcheck import numerical_gradient, relative_error
from seqmodels.birnn import (BiLMConfig, TokenVectors, bilm_loss, bilm_loss_and_grads, bilm_states,
                             bilstm_forward, elmo_mix, init_bilm, length_batches, next_token_probs,
                             token_vectors, train_bilm)
from seqmodels.lstm import init_lstm, lstm_forward
from seqmodels.numeric import log_softmax


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
    with pytest.raises(KeyError, match="direction"):
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


def test_token_vectors_pick_the_right_rows_across_lengths():
    params, _ = make_bilm(6, 2)
    seqs = [np.array([0, 3, 2, 1]), np.array([0, 4, 5, 2, 1]), np.array([0, 2, 6, 1])]
    positions = [2, 3, 1]
    tv = token_vectors(params, seqs, positions)
    assert tv.forward.shape == (2, 3, 4) and tv.static.shape == (3, 3)
    for n, (seq, pos) in enumerate(zip(seqs, positions)):
        np.testing.assert_allclose(tv.static[n], params["E"][2])
        for layer, h in enumerate(bilm_states(params, seq)):
            np.testing.assert_allclose(tv.concat[layer, n], h[pos], atol=1e-14)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 2), st.lists(st.lists(st.integers(2, 6), min_size=0, max_size=4), min_size=2, max_size=9),
       st.integers(0, 2**32 - 1))
def test_token_vectors_share_a_prefix_bit_for_bit(n_layers, rights, seed):
    """Sentences with the same words up to the token get identical forward vectors, and the same
    words from it on identical backward vectors, whatever else is in the call (by construction:
    each distinct prefix and suffix is computed once); all agree with bilm_states."""
    params, rng = make_bilm(seed, n_layers)
    left = [int(w) for w in rng.integers(2, 7, size=2)]
    seqs = [np.array([0, *left, 3, *right, 1]) for right in rights]  # the token 3 at position 3
    seqs.append(np.array([0, 5, 3, *rights[0], 1]))  # another prefix, the first one's suffix
    positions = [3] * len(rights) + [2]
    tv = token_vectors(params, seqs, positions)
    for n in range(len(rights)):
        np.testing.assert_array_equal(tv.forward[:, n], tv.forward[:, 0])
        for layer, h in enumerate(bilm_states(params, seqs[n])):
            np.testing.assert_allclose(tv.concat[layer, n], h[3], rtol=0, atol=1e-14)
    np.testing.assert_array_equal(tv.backward[:, -1], tv.backward[:, 0])
    assert not np.allclose(tv.forward[:, -1], tv.forward[:, 0])


def test_elmo_mix_weights_are_a_softmax_and_layers_need_matching_sizes():
    layers = np.random.default_rng(0).normal(size=(3, 5, 4))
    mixed = elmo_mix(layers, np.array([0.0, np.log(3.0), 0.0]), gamma=2.0)
    np.testing.assert_allclose(mixed, 2.0 * (layers[0] + 3 * layers[1] + layers[2]) / 5)
    np.testing.assert_allclose(elmo_mix(layers, np.array([50.0, 0.0, 0.0])), layers[0], atol=1e-20)
    tv = TokenVectors(np.zeros((5, 2)), np.zeros((1, 5, 2)), np.ones((1, 5, 2)))
    assert tv.layers().shape == (2, 5, 4)
    with pytest.raises(ValueError, match=r"d_embed must equal d_hidden, got d_embed=3, d_hidden=2"):
        TokenVectors(np.zeros((5, 3)), np.zeros((1, 5, 2)), np.ones((1, 5, 2))).layers()
    with pytest.raises(ValueError, match=r"w must have shape \(n_layers \+ 1,\) = \(3,\), got \(2,\)"):
        elmo_mix(layers, np.zeros(2))


def test_training_lowers_the_loss_and_is_reproducible():
    seqs = [np.array([0, 2, 3, 4, 1]), np.array([0, 5, 3, 6, 1]), np.array([0, 2, 6, 1])] * 3
    config = BiLMConfig(d_embed=4, d_hidden=6, epochs=25, batch=4, seed=3)
    run = train_bilm(seqs, 7, config)
    assert run.epoch_losses[-1] < 0.5 * run.epoch_losses[0]
    again = train_bilm(seqs, 7, config)
    for k in run.params:
        np.testing.assert_array_equal(run.params[k], again.params[k])


def test_length_batches_cover_every_sequence_once():
    rng = np.random.default_rng(0)
    seqs = [np.arange(n % 4 + 2) + 10 * n for n in range(23)]
    batches = length_batches(seqs, 3, rng)
    assert all(b.shape[1] <= 3 for b in batches)
    firsts = sorted(int(v) for b in batches for v in b[0])
    assert firsts == sorted(int(s[0]) for s in seqs)


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
    # birnn trains with its own loop (one exp per nonlinearity, tanh(c) kept for the backward
    # pass); it must compute what seqmodels.lstm computes
    from seqmodels.birnn import _lstm_layer, _lstm_layer_backward
    from seqmodels.lstm import lstm_backward
    rng = np.random.default_rng(seed)
    W, b = 2.0 * rng.normal(size=(4 * H, d_in + H)), rng.normal(size=4 * H)
    xs, dhs = rng.normal(size=(T, batch, d_in)), rng.normal(size=(T, batch, H))
    z = np.zeros((batch, H))
    W2, b2 = 0.5 * rng.normal(size=W.shape), rng.normal(size=b.shape)  # a second LSTM beside it
    xs2, dhs2 = rng.normal(size=xs.shape), rng.normal(size=dhs.shape)
    forward = _lstm_layer(np.stack([xs, xs2], axis=1), np.stack([W, W2]), np.stack([b, b2]))
    grads = _lstm_layer_backward(np.stack([xs, xs2], axis=1), np.stack([W, W2]), forward,
                                 np.stack([dhs, dhs2], axis=1))
    for k, (W_k, b_k, xs_k, dhs_k) in enumerate(((W, b, xs, dhs), (W2, b2, xs2, dhs2))):
        hs, cs = lstm_forward(xs_k, z, z, W_k, b_k)
        np.testing.assert_allclose(forward[0][:, k], hs, rtol=0, atol=1e-13)
        np.testing.assert_allclose(forward[1][:, k], cs, rtol=0, atol=1e-13)
        want = lstm_backward(xs_k, z, z, W_k, b_k, dhs_k)
        scale = 1e-12 * (1.0 + np.abs(want["W"]).max())
        np.testing.assert_allclose(grads[0][k], want["W"], rtol=0, atol=scale)
        np.testing.assert_allclose(grads[1][k], want["b"], rtol=0, atol=scale)
        np.testing.assert_allclose(grads[2][:, k], want["xs"], rtol=0, atol=scale)


def test_batched_seeds_reproduce_train_bilm_for_the_first_seed_and_start_from_its_weights():
    from seqmodels.birnn import init_bilm, train_bilms

    rng = np.random.default_rng(3)
    seqs = [np.concatenate([[0], rng.integers(2, 7, size=n), [1]]) for n in (3, 3, 4, 5, 5, 5)] * 2
    config = BiLMConfig(d_embed=4, d_hidden=5, n_layers=2, epochs=4, batch=3)
    runs = train_bilms(seqs, 7, config, seeds=(2, 0, 5))
    alone = train_bilm(seqs, 7, BiLMConfig(**{**config.__dict__, "seed": 2}))
    for key in alone.params:
        assert np.allclose(runs[0].params[key], alone.params[key], rtol=1e-9, atol=1e-12), key
    assert np.allclose(runs[0].losses, alone.losses, rtol=1e-9)
    assert [r.config.seed for r in runs] == [2, 0, 5]
    # the other seeds are different models, each started from train_bilm's weights for its seed
    assert not np.allclose(runs[1].params["E"], runs[2].params["E"])
    zero_epochs = train_bilms(seqs, 7, BiLMConfig(**{**config.__dict__, "epochs": 1, "lr": 1e-12}), seeds=(0, 5))
    for r, seed in zip(zero_epochs, (0, 5)):
        start = init_bilm(7, r.config, np.random.default_rng([seed, 0]))
        assert np.allclose(r.params["W_out"], start["W_out"], atol=1e-9)
    # single precision in the LSTM layers: close to the float64 run after a few steps
    low = train_bilms(seqs, 7, config, seeds=(2,), dtype=np.float32)[0]
    assert np.allclose(low.epoch_losses, alone.epoch_losses, rtol=1e-3)


def test_batched_seed_gradients_are_each_seeds_own_gradient():
    from seqmodels.birnn import _seeds_loss_and_grads, init_bilm

    config = BiLMConfig(d_embed=3, d_hidden=4, n_layers=2)
    singles = [init_bilm(6, config, np.random.default_rng(s)) for s in (0, 1)]
    P = {k: np.stack([p[k] for p in singles]) for k in singles[0]}
    ids = np.random.default_rng(9).integers(0, 6, size=(5, 2, 3))   # (T, S, B)
    losses, g = _seeds_loss_and_grads(P, ids)
    for s, p in enumerate(singles):
        loss, g1 = bilm_loss_and_grads(p, ids[:, s])
        assert np.isclose(losses[s], loss, rtol=1e-12)
        for key in g1:
            assert relative_error(g[key][s], g1[key]) < 1e-10, key


def test_train_bilms_rejects_bad_seeds_and_dtype():
    from seqmodels.birnn import train_bilms

    seqs = [np.array([0, 2, 1])]
    for seeds in ((), (1, 1), "01", (-1,)):
        with pytest.raises(ValueError, match="seeds"):
            train_bilms(seqs, 3, BiLMConfig(epochs=1), seeds=seeds)
    with pytest.raises(ValueError, match="dtype"):
        train_bilms(seqs, 3, BiLMConfig(epochs=1), seeds=(0,), dtype=np.int64)
