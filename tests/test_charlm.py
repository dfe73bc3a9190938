"""seqmodels.models.charlm: the LM loss against finite differences, baselines, training, bad input."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from gradcheck import numerical_gradient, relative_error
from seqmodels.models.charlm import (ALPHABET, PARAM_NAMES, CharLMConfig, bits_per_char, charlm_loss_and_grads,
                              decode, encode, init_charlm, interpolated_ngram_bits_per_char,
                              ngram_bits_per_char, normalize_text, sample, train_charlm)
from hypothesis import given, settings, strategies as st


def small_problem(seed=0, V=6, d_hidden=5, T=4, batch=3):
    rng = np.random.default_rng(seed)
    params = init_charlm(V, d_hidden, rng)
    params["b"] = rng.normal(scale=0.3, size=d_hidden)
    params["b_out"] = rng.normal(scale=0.3, size=V)
    ids = rng.integers(0, V, size=(T + 1, batch))
    h0 = rng.normal(scale=0.5, size=(batch, d_hidden))
    return params, ids, h0


@pytest.mark.parametrize("seed,T,batch", [(0, 1, 1), (1, 4, 3), (2, 6, 2)])
def test_lm_gradients_match_central_differences(seed, T, batch):
    params, ids, h0 = small_problem(seed, T=T, batch=batch)
    _, grads, _ = charlm_loss_and_grads(params, ids, h0)

    def loss():
        return charlm_loss_and_grads(params, ids, h0)[0]

    for name in PARAM_NAMES:
        err = relative_error(grads[name], numerical_gradient(loss, params[name]))
        assert err <= 1e-6, f"d{name}: relative error {err:.2e}"


def test_carried_state_is_the_state_after_the_chunk():
    params, ids, h0 = small_problem(3, T=5, batch=2)
    _, _, h_mid = charlm_loss_and_grads(params, ids[:3], h0)
    _, _, h_end = charlm_loss_and_grads(params, ids[2:], h_mid)
    _, _, h_all = charlm_loss_and_grads(params, ids, h0)
    np.testing.assert_allclose(h_end, h_all, rtol=1e-12, atol=1e-12)


def test_uniform_model_scores_log2_vocab_bits():
    V = len(ALPHABET)
    params = init_charlm(V, 4, 0)
    params["W_out"][:] = 0.0
    ids = np.random.default_rng(0).integers(0, V, size=500)
    assert bits_per_char(params, ids, batch=4, chunk=16) == pytest.approx(np.log2(V), rel=1e-12)


def test_ngram_baselines():
    rng = np.random.default_rng(0)
    period = np.tile([0, 1, 2], 300)  # a deterministic cycle: the bigram model all but knows it
    assert ngram_bits_per_char(period, period, 3, order=2, alpha=1e-3) < 0.01
    assert ngram_bits_per_char(period, period, 3, order=1) == pytest.approx(np.log2(3), abs=1e-3)
    noise = rng.integers(0, 4, size=5000)
    assert abs(ngram_bits_per_char(noise, noise[::-1].copy(), 4, order=1) - 2.0) < 0.01


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 4), st.integers(2, 5))
def test_interpolated_ngram_probabilities_sum_to_one(seed, order, V):
    """For any context, the model's probabilities of the V next characters sum to 1 (each is read
    back from a one-position test stream: context then character)."""
    rng = np.random.default_rng(seed)
    train = rng.integers(0, V, size=200)
    context = list(rng.integers(0, V, size=order - 1))
    probs = [2.0 ** -interpolated_ngram_bits_per_char(train, context + [c], V, order) for c in range(V)]
    assert abs(sum(probs) - 1) < 1e-9
    # an order-1 model with an unseen character still gives it mass (the uniform order below)
    assert interpolated_ngram_bits_per_char(np.zeros(50, dtype=int), [V - 1], V, 1) < np.inf


def test_interpolated_ngram_beats_add_one_on_a_cycle_with_noise():
    rng = np.random.default_rng(1)
    text = np.tile([0, 1, 2, 3], 400)
    text[rng.random(text.size) < 0.05] = 4
    train, test = text[:1200], text[1200:]
    assert interpolated_ngram_bits_per_char(train, test, 5, 3) < ngram_bits_per_char(train, test, 5, 3)


def test_text_round_trip_and_normalisation():
    text = normalize_text("== Heading ==\n'''Bold''' text: 3 é\t(ok)")
    assert text == "bold text 3 (ok)"
    assert decode(encode(text)) == text
    with pytest.raises(KeyError, match="not in the alphabet"):
        encode("A")


def test_training_lowers_held_out_bits():
    rng = np.random.default_rng(0)
    cycle = encode("the cat sat on the mat. ")
    train = np.tile(cycle, 80)
    cfg = CharLMConfig(d_hidden=16, T=8, batch=4, steps=60, lr=2e-2, eval_every=30, eval_chars=400)
    result = train_charlm(train, train[:400], cfg)
    assert result.eval_bpc[-1] < 0.5 * result.eval_bpc[0]
    assert result.losses.shape == (60,) and result.n_params == sum(p.size for p in result.params.values())
    text = sample(result.params, "the ", 40, 0.5, rng)
    assert len(text) == 40 and set(text) <= set(ALPHABET)


def test_bad_input():
    params, ids, h0 = small_problem()
    with pytest.raises(ValueError, match="ids"):
        charlm_loss_and_grads(params, ids[:1], None)  # T = 0
    with pytest.raises(ValueError, match="ids"):
        charlm_loss_and_grads(params, ids + 10, None)
    with pytest.raises(ValueError, match="ids"):
        charlm_loss_and_grads(params, ids.astype(float), None)
    with pytest.raises(ValueError, match="h0"):
        charlm_loss_and_grads(params, ids, h0[:, :2])
    with pytest.raises(ValueError, match="h0"):
        charlm_loss_and_grads(params, ids, np.full_like(h0, np.nan))
    with pytest.raises(KeyError, match="W_h"):
        charlm_loss_and_grads({k: v for k, v in params.items() if k != "W_h"}, ids, None)
    with pytest.raises(ValueError, match="temperature"):
        sample(init_charlm(len(ALPHABET), 4, 0), "a", 5, 0.0, 0)
    with pytest.raises(ValueError, match="prefix"):
        sample(init_charlm(len(ALPHABET), 4, 0), "", 5, 1.0, 0)
    with pytest.raises(ValueError, match="order"):
        ngram_bits_per_char([0, 1], [0, 1], 2, order=0)
    with pytest.raises(ValueError, match="alpha"):
        ngram_bits_per_char([0, 1], [0, 1], 2, order=1, alpha=0.0)
    with pytest.raises(ValueError, match="config.steps"):
        CharLMConfig(steps=0)
    with pytest.raises(ValueError, match="vocab_size"):
        init_charlm(1, 4, 0)
    with pytest.raises(ValueError, match="batch"):
        bits_per_char(init_charlm(len(ALPHABET), 4, 0), [0, 1, 2], batch=4)


def _overfitting_problem():
    # training text is one short cycle, held-out text the cycle with 1 character in 10 replaced at
    # random: the held-out bits per character fall at first, then rise as the model grows sure of
    # the cycle (it puts ever less probability on the replaced characters)
    cycle = encode("the cat sat on the mat. ")
    train = np.tile(cycle, 80)
    rng = np.random.default_rng(1)
    held = np.tile(cycle, 17)[:400].copy()
    replaced = rng.random(400) < 0.1
    held[replaced] = rng.integers(0, len(ALPHABET), size=int(replaced.sum()))
    cfg = CharLMConfig(d_hidden=16, T=8, batch=4, steps=300, lr=2e-2, eval_every=10, eval_chars=400)
    return train, held, cfg


def test_patience_stops_when_held_out_bits_stop_improving():
    train, held, cfg = _overfitting_problem()
    full = train_charlm(train, held, cfg)
    assert full.stopped_at is None and not full.kept_best and len(full.losses) == cfg.steps
    r = train_charlm(train, held, cfg, patience=3)
    assert r.stopped_at is not None and 0 < r.best_step < r.stopped_at < cfg.steps
    assert r.stopped_at == r.eval_steps[-1] and r.losses.shape == r.grad_norms.shape == (r.stopped_at,)
    # the last 3 evaluations did not improve on the best before them, and no earlier run of 3 did
    best_before = np.minimum.accumulate(r.eval_bpc)
    assert (r.eval_bpc[-3:] >= best_before[-4]).all()
    stale = np.r_[False, r.eval_bpc[1:] >= best_before[:-1]]
    runs = np.convolve(stale.astype(int), np.ones(3, dtype=int), mode="valid")
    assert (runs[:-1] < 3).all() and runs[-1] == 3
    # up to the stop it is the same training as without the rule
    np.testing.assert_array_equal(r.eval_bpc, full.eval_bpc[:len(r.eval_bpc)])
    np.testing.assert_array_equal(r.losses, full.losses[:r.stopped_at])
    assert r.best_step == r.stopped_at - 3 * cfg.eval_every


def test_keep_best_returns_the_weights_of_the_lowest_held_out_bits():
    train, held, cfg = _overfitting_problem()
    r = train_charlm(train, held, cfg, patience=3, keep_best=True)
    assert r.kept_best and 0 < r.best_step < r.stopped_at
    at_best = train_charlm(train, held, replace(cfg, steps=r.best_step))
    for k in PARAM_NAMES:
        np.testing.assert_array_equal(r.params[k], at_best.params[k])
    assert bits_per_char(r.params, held) == pytest.approx(r.eval_bpc.min(), rel=1e-12)


def test_the_defaults_train_the_full_budget_as_before():
    train, held, cfg = _overfitting_problem()
    cfg = replace(cfg, steps=40)
    a = train_charlm(train, held, cfg)
    b = train_charlm(train, held, cfg, patience=10 ** 6)  # a rule that never fires changes nothing
    assert a.stopped_at is None and b.stopped_at is None
    np.testing.assert_array_equal(a.eval_bpc, b.eval_bpc)
    for k in PARAM_NAMES:
        np.testing.assert_array_equal(a.params[k], b.params[k])
    with pytest.raises(ValueError, match="patience must be an integer >= 1"):
        train_charlm(train, held, cfg, patience=0)
