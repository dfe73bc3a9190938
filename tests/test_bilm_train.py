"""seqmodels.training.bilm_train: training lowers the loss, batched seeds reproduce one seed, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from seqmodels.models.bilm import BiLMConfig, bilm_loss, init_bilm
from seqmodels.training.bilm_train import length_batches, train_bilm, train_bilms


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


# --- early stopping on held-out loss --------------------------------------------------------------

# Training sentences in which 3 never follows 2, held-out ones in which it does: each seed's
# held-out loss falls while it learns what the two share (<s>, </s>, 3) and then rises.
CONFLICT_TRAIN = [np.array([0, 3, 3, 2, 1])] * 4
CONFLICT_HELD = [np.array([0, 2, 3, 1])] * 2 + [np.array([0, 3, 2, 3, 3, 1])]
CONFLICT = BiLMConfig(d_embed=4, d_hidden=4, epochs=30, batch=8, lr=3e-2)


def mean_loss_per_prediction(params, sentences):
    """The held-out loss written out: bilm_loss of each sentence, weighted by its T - 1 predictions."""
    return sum(bilm_loss(params, s) * (len(s) - 1) for s in sentences) / sum(len(s) - 1 for s in sentences)


def test_patience_stops_a_seed_whose_held_out_loss_rises_and_returns_its_best_weights():
    runs = train_bilms(CONFLICT_TRAIN, 4, CONFLICT, seeds=(0, 2), held_out=CONFLICT_HELD, patience=3)
    free = train_bilms(CONFLICT_TRAIN, 4, CONFLICT, seeds=(0, 2), held_out=CONFLICT_HELD)  # no patience
    assert runs[0].stopped_epoch < CONFLICT.epochs  # at least one seed stopped early
    for r, f in zip(runs, free):
        ran, curve = r.stopped_epoch, r.held_out_losses
        assert curve.shape == (CONFLICT.epochs,) and r.epoch_losses.shape == (CONFLICT.epochs,)
        assert np.isfinite(curve[:ran]).all() and np.isnan(curve[ran:]).all()
        assert np.isnan(r.epoch_losses[ran:]).all() and np.isnan(r.losses[ran:]).all()  # one update per epoch
        assert r.best_epoch == int(np.argmin(curve[:ran])) + 1
        if ran < CONFLICT.epochs:  # stopped: patience epochs in a row without a new best
            assert ran == r.best_epoch + 3 and curve[r.best_epoch:ran].min() >= curve[r.best_epoch - 1]
        # until it stopped, a seed computes what it computes without patience, whatever the other does
        np.testing.assert_allclose(curve[:ran], f.held_out_losses[:ran], rtol=1e-10)
        np.testing.assert_allclose(r.losses[:ran], f.losses[:ran], rtol=1e-10)
        # the held-out loss is the mean loss per prediction, and params are the best epoch's weights
        assert np.isclose(curve[r.best_epoch - 1], mean_loss_per_prediction(r.params, CONFLICT_HELD), rtol=1e-10)
        assert np.isclose(np.nanmin(curve), mean_loss_per_prediction(r.params, CONFLICT_HELD), rtol=1e-10)
    # both fall, then rise (margins of 1e-3 and more, far above round-off); seed 0 stops first
    assert [(r.best_epoch, r.stopped_epoch) for r in runs] == [(3, 6), (13, 16)]
    for s, r in enumerate(runs):  # the best weights are those of a run capped at the best epoch
        def capped(epochs):
            return train_bilms(CONFLICT_TRAIN, 4, BiLMConfig(**{**CONFLICT.__dict__, "epochs": epochs}),
                               seeds=(0, 2))[s].params
        best, last = capped(r.best_epoch), capped(r.stopped_epoch)
        for key in best:
            np.testing.assert_allclose(r.params[key], best[key], rtol=1e-9, atol=1e-12, err_msg=key)
        assert not np.allclose(r.params["E"], last["E"])  # not the weights it stopped with


def test_patience_that_never_runs_out_changes_nothing_and_held_out_passes_do_not_disturb_training():
    rng = np.random.default_rng(3)
    seqs = [np.concatenate([[0], rng.integers(2, 7, size=n), [1]]) for n in (3, 3, 4, 5, 5, 5)] * 2
    held = [np.concatenate([[0], rng.integers(2, 7, size=n), [1]]) for n in (2, 4, 4, 6)]
    config = BiLMConfig(d_embed=4, d_hidden=5, n_layers=2, epochs=6, batch=3)
    plain = train_bilms(seqs, 7, config, seeds=(0, 1))
    watched = train_bilms(seqs, 7, config, seeds=(0, 1), held_out=held)
    patient = train_bilms(seqs, 7, config, seeds=(0, 1), held_out=held, patience=config.epochs)  # cannot run out
    for p, w, q in zip(plain, watched, patient):
        assert p.held_out_losses is None and p.best_epoch is None and p.stopped_epoch is None
        np.testing.assert_array_equal(w.losses, p.losses)  # measuring the held-out loss changes no weight
        np.testing.assert_array_equal(w.epoch_losses, p.epoch_losses)
        assert w.stopped_epoch == q.stopped_epoch == config.epochs and w.best_epoch == q.best_epoch
        assert w.best_epoch == int(np.argmin(w.held_out_losses)) + 1 and np.isfinite(w.held_out_losses).all()
        np.testing.assert_allclose(q.held_out_losses, w.held_out_losses, rtol=1e-12)
        np.testing.assert_allclose(q.losses, w.losses, rtol=1e-12)
        for key in w.params:
            np.testing.assert_allclose(q.params[key], w.params[key], rtol=1e-12, atol=1e-15)
        if w.best_epoch == config.epochs:  # then the best weights are the last ones
            for key in w.params:
                np.testing.assert_array_equal(w.params[key], p.params[key])
        assert np.isclose(np.min(w.held_out_losses), mean_loss_per_prediction(w.params, held), rtol=1e-10)
    low = train_bilms(seqs, 7, config, seeds=(0, 1), held_out=held, dtype=np.float32)
    for lo, w in zip(low, watched):  # the held-out pass computes in the training's dtype
        np.testing.assert_allclose(lo.held_out_losses, w.held_out_losses, rtol=1e-3)


def test_train_bilms_rejects_bad_held_out_and_patience():
    seqs = [np.array([0, 2, 1])]
    config = BiLMConfig(epochs=1)
    with pytest.raises(ValueError, match=r"patience must be an integer >= 1, got 0"):
        train_bilms(seqs, 3, config, held_out=seqs, patience=0)
    with pytest.raises(ValueError, match=r"patience must be an integer >= 1, got -2"):
        train_bilms(seqs, 3, config, held_out=seqs, patience=-2)
    with pytest.raises(ValueError, match=r"patience needs held_out"):
        train_bilms(seqs, 3, config, patience=2)
    with pytest.raises(ValueError, match=r"held_out must hold at least one sentence, got none"):
        train_bilms(seqs, 3, config, held_out=[])
    with pytest.raises(ValueError, match=r"held_out\[1\] must hold token ids in \[0, 3\), got values from 0 to 3"):
        train_bilms(seqs, 3, config, held_out=[np.array([0, 2, 1]), np.array([0, 3, 1])])
    with pytest.raises(ValueError, match=r"held_out\[0\] must be 1-D \(T,\), got shape \(3, 1\)"):
        train_bilms(seqs, 3, config, held_out=[np.zeros((3, 1), dtype=int)])
    with pytest.raises(ValueError, match=r"held_out must be a list of 1-D token-id arrays, got str"):
        train_bilms(seqs, 3, config, held_out="0 2 1")


def test_checkpoints_hold_the_weights_a_shorter_run_ends_with():
    rng = np.random.default_rng(5)
    seqs = [np.concatenate([[0], rng.integers(2, 7, size=n), [1]]) for n in (3, 3, 4, 5, 5)] * 2
    held = [np.concatenate([[0], rng.integers(2, 7, size=n), [1]]) for n in (2, 4)]
    config = BiLMConfig(d_embed=4, d_hidden=5, n_layers=2, epochs=5, batch=3)
    runs = train_bilms(seqs, 7, config, seeds=(0, 1), checkpoints=[2, 5])
    plain = train_bilms(seqs, 7, config, seeds=(0, 1))
    short = train_bilms(seqs, 7, BiLMConfig(**{**config.__dict__, "epochs": 2}), seeds=(0, 1))
    for r, p, s in zip(runs, plain, short):
        assert sorted(r.checkpoints) == [2, 5] and p.checkpoints is None
        for key in r.params:  # recording changes no weight; each checkpoint is that run's end, bit for bit
            np.testing.assert_array_equal(r.params[key], p.params[key])
            np.testing.assert_array_equal(r.checkpoints[5][key], p.params[key])
            np.testing.assert_array_equal(r.checkpoints[2][key], s.params[key])
    # with held_out and patience: a seed that stopped keeps its frozen weights at later checkpoints
    stopped = train_bilms(seqs, 7, config, seeds=(0, 1), held_out=held, patience=1, checkpoints=[1, 5])
    for r in stopped:
        if r.stopped_epoch < 5:
            last_trained = train_bilms(seqs, 7, BiLMConfig(**{**config.__dict__, "epochs": r.stopped_epoch}),
                                       seeds=(0, 1))[r.config.seed]
            for key in r.params:
                np.testing.assert_allclose(r.checkpoints[5][key], last_trained.params[key], rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match=r"checkpoints must be distinct epochs in 1 .. 5"):
        train_bilms(seqs, 7, config, checkpoints=[6])
