"""seqmodels.bilm_train: training lowers the loss, batched seeds reproduce one seed, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from seqmodels.bilm import BiLMConfig, init_bilm
from seqmodels.bilm_train import length_batches, train_bilm, train_bilms


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


def test_batched_seeds_reproduce_train_bilm_for_the_first_seed_and_start_from_its_weights():
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


def test_train_bilms_rejects_bad_seeds_and_dtype():
    seqs = [np.array([0, 2, 1])]
    for seeds in ((), (1, 1), "01", (-1,)):
        with pytest.raises(ValueError, match="seeds"):
            train_bilms(seqs, 3, BiLMConfig(epochs=1), seeds=seeds)
    with pytest.raises(ValueError, match="dtype"):
        train_bilms(seqs, 3, BiLMConfig(epochs=1), seeds=(0,), dtype=np.int64)
