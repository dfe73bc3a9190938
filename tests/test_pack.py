"""seqmodels.training.pack: a pack of S models computes what S single models compute, and trains fast."""

from __future__ import annotations

import numpy as np
import pytest

from gradcheck import numerical_gradient, relative_error
from pack_reference import train_arms_before_stopping
from seqmodels.experiments.lstm.delay import DelayTask
from seqmodels.training.pack import (Arm, init_pack, median_steps_to_solve, pack_accuracy, pack_logits,
                               pack_loss_and_grads, train_arms, unpack)
from seqmodels.training.train import TrainConfig, init_classifier, loss_and_grads, predict

ARMS = [Arm("RNN", "rnn", 5, 1.0), Arm("LSTM", "lstm", 4, 3.0), Arm("GRU", "gru", 3, 0.5)]


@pytest.mark.parametrize("arm", ARMS, ids=lambda a: a.kind)
def test_stack_matches_single_models(arm):
    rng = np.random.default_rng(0)
    xs, labels = rng.normal(size=(6, 7, 3)), rng.integers(0, 4, size=7)
    seeds = (3, 1, 4)
    params = init_pack(arm, 3, 4, seeds)
    for p in params.values():  # move away from the initial draw so every weight matters
        p += 0.1 * rng.normal(size=p.shape)
    losses, grads = pack_loss_and_grads(arm.kind, params, xs, labels)
    logits = pack_logits(arm.kind, params, xs)
    for k, seed in enumerate(seeds):
        single = unpack(params, k)
        loss, g = loss_and_grads(arm.cell(), single, xs, labels)
        assert abs(losses[k] - loss) < 1e-12
        np.testing.assert_allclose(logits[k], predict(arm.cell(), single, xs), atol=1e-12)
        for name in single:
            err = relative_error(grads[name][k], g[name])
            assert err < 1e-10, f"{arm.kind} seed {seed} d{name}: relative error {err:.1e}"


@pytest.mark.parametrize("S,B,T", [(1, 1, 1), (1, 3, 4), (3, 1, 1), (2, 5, 3), (4, 2, 6)])
@pytest.mark.parametrize("arm", ARMS, ids=lambda a: a.kind)
def test_stack_gradients_match_central_differences(arm, S, B, T):
    # the packed layout (hidden-major states, inputs of all steps side by side) against the
    # definition of the gradient, including one step, one model and a batch of one
    rng = np.random.default_rng([S, B, T])
    xs, labels = rng.normal(size=(T, B, 3)), rng.integers(0, 4, size=B)
    params = init_pack(arm, 3, 4, range(S))
    for p in params.values():
        p += 0.3 * rng.normal(size=p.shape)
    losses, grads = pack_loss_and_grads(arm.kind, params, xs, labels)
    assert losses.shape == (S,)
    for name, p in params.items():
        assert grads[name].shape == p.shape
        numeric = numerical_gradient(lambda: pack_loss_and_grads(arm.kind, params, xs, labels)[0].sum(), p)
        err = relative_error(grads[name], numeric)
        assert err < 1e-6, f"{arm.kind} S={S} B={B} T={T} d{name}: relative error {err:.1e}"


def test_stack_logits_agree_with_the_training_forward_pass():
    # pack_logits keeps two steps' intermediates, the training pass all of them: same numbers
    rng = np.random.default_rng(5)
    xs, labels = rng.normal(size=(7, 6, 3)), rng.integers(0, 4, size=6)
    for arm in ARMS:
        params = init_pack(arm, 3, 4, (0, 1, 2))
        logits = pack_logits(arm.kind, params, xs)
        logp = logits - logits.max(axis=-1, keepdims=True)
        logp -= np.log(np.exp(logp).sum(axis=-1, keepdims=True))
        losses, _ = pack_loss_and_grads(arm.kind, params, xs, labels)
        np.testing.assert_allclose(losses, -logp[:, np.arange(6), labels].mean(axis=1), atol=1e-12)


@pytest.mark.parametrize("arm", ARMS, ids=lambda a: a.kind)
def test_stack_starts_from_the_single_models_draw(arm):
    params = init_pack(arm, 3, 4, (7, 2))
    for k, seed in enumerate((7, 2)):
        single = init_classifier(arm.cell(), 3, 4, arm.d_hidden, np.random.default_rng([seed, 0]))
        for name in single:
            np.testing.assert_array_equal(params[name][k], single[name])


def test_n_params_counts_the_arrays():
    for arm in ARMS:
        params = init_pack(arm, 9, 4, (0,))
        assert arm.n_params(9, 4) == sum(v[0].size for v in params.values())


def test_train_arms_learns_and_models_are_independent():
    task = DelayTask()
    sample = lambda rng, n: task.sample(rng, n, 3)
    config = TrainConfig(steps=120, batch=32, stop_loss=0.05)
    runs = train_arms([Arm("LSTM", "lstm", 8, 3.0), Arm("LSTM0", "lstm", 8, 0.0)], sample, task.d_in,
                      task.n_symbols, seeds=(0, 1), config=config)
    xs, y = task.sample(np.random.default_rng(9), 200, 3)
    assert pack_accuracy(runs["LSTM"], xs, y).min() > 0.9
    # training a pack of one gives the same weights as that model inside a bigger pack
    alone = train_arms([Arm("LSTM", "lstm", 8, 3.0)], sample, task.d_in, task.n_symbols, seeds=(1,), config=config)
    for name, v in alone["LSTM"].params.items():
        np.testing.assert_allclose(v[0], runs["LSTM"].params[name][1], atol=1e-9)
    assert alone["LSTM"].steps_taken[0] == runs["LSTM"].steps_taken[1] <= config.steps


def test_checkpoints_of_stopped_models_are_their_final_accuracy():
    # train_arms measures at a checkpoint only the models that trained since the previous one;
    # the result must equal measuring every model at every checkpoint (one checkpoint per run)
    task = DelayTask()
    sample = lambda rng, n: task.sample(rng, n, 3)
    config = TrainConfig(steps=90, batch=32, stop_loss=0.2)
    arms = [Arm("LSTM", "lstm", 8, 3.0), Arm("RNN", "rnn", 8, 1.0)]
    test = task.sample(np.random.default_rng(9), 100, 3)
    checkpoints = (10, 40, 70, 90)
    runs = train_arms(arms, sample, task.d_in, task.n_symbols, seeds=(0, 1, 2), config=config, test=test,
                      checkpoints=checkpoints)
    assert (runs["LSTM"].steps_taken < 70).any(), "some model must stop before a later checkpoint"
    for c in checkpoints:
        alone = train_arms(arms, sample, task.d_in, task.n_symbols, seeds=(0, 1, 2), config=config, test=test,
                           checkpoints=(c,))
        for arm in arms:
            np.testing.assert_array_equal(runs[arm.name].checkpoint_accuracy[c], alone[arm.name].checkpoint_accuracy[c])
    for arm in arms:
        np.testing.assert_array_equal(runs[arm.name].checkpoint_accuracy[90], pack_accuracy(runs[arm.name], *test))


def test_an_arm_budget_stops_that_arm_only_and_kept_weights_are_those_of_a_shorter_run():
    # arm_steps: the limited arm's models are those of a run with that budget, its later checkpoints
    # NaN; the other arm (same pack: same kind and width) trains on exactly as without the limit.
    # keep_params: the weights after a checkpoint are those a run ending there returns.
    task = DelayTask()
    sample = lambda rng, n: task.sample(rng, n, 3)
    arms = [Arm("LSTM", "lstm", 8, 3.0), Arm("LSTM0", "lstm", 8, 0.0)]
    test = task.sample(np.random.default_rng(9), 50, 3)
    kw = dict(d_in=task.d_in, n_classes=task.n_symbols, seeds=(0, 1), test=test)
    long = TrainConfig(steps=40, batch=16, stop_loss=0.05)
    short = TrainConfig(steps=15, batch=16, stop_loss=0.05)
    runs = train_arms(arms, sample, config=long, checkpoints=(15, 40), arm_steps={"LSTM0": 15}, keep_params=(15,), **kw)
    free = train_arms(arms, sample, config=long, checkpoints=(15, 40), **kw)
    cut = train_arms(arms, sample, config=short, checkpoints=(15,), **kw)
    limited, other = runs["LSTM0"], runs["LSTM"]
    assert np.all(limited.steps_taken <= 15) and np.isnan(limited.checkpoint_accuracy[40]).all()
    np.testing.assert_array_equal(limited.checkpoint_accuracy[15], cut["LSTM0"].checkpoint_accuracy[15])
    np.testing.assert_array_equal(other.checkpoint_accuracy[40], free["LSTM"].checkpoint_accuracy[40])
    np.testing.assert_array_equal(other.steps_taken, free["LSTM"].steps_taken)
    for k in other.params:
        np.testing.assert_array_equal(limited.params[k], cut["LSTM0"].params[k])
        np.testing.assert_array_equal(other.params[k], free["LSTM"].params[k])
        for name in ("LSTM", "LSTM0"):
            np.testing.assert_array_equal(runs[name].checkpoint_params[15][k], cut[name].params[k])
    assert free["LSTM"].checkpoint_params == {}


# --- the solve-based stopping rule ----------------------------------------------------------------

SOLVE_TASK = DelayTask()
SOLVE_ARMS = [Arm("LSTM", "lstm", 8, 3.0), Arm("RNN", "rnn", 6, 1.0), Arm("GRU", "gru", 4, 0.5)]


def _delay_sample(rng, n, delay=2):
    return SOLVE_TASK.sample(rng, n, delay)


def _assert_runs_equal(new, old):
    for name, (params, losses, taken, at) in old.items():
        run = new[name]
        np.testing.assert_array_equal(run.losses, losses)
        np.testing.assert_array_equal(run.steps_taken, taken)
        assert run.checkpoint_accuracy.keys() == at.keys()
        for c in at:
            np.testing.assert_array_equal(run.checkpoint_accuracy[c], at[c])
        for k in params:
            np.testing.assert_array_equal(run.params[k], params[k])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_without_solve_train_arms_computes_what_it_did_before_the_stopping_rule(dtype):
    # the chapters' glued numbers depend on the fixed-budget path: bit for bit the frozen copy of
    # the loop before the stopping rule (tests/pack_reference.py), loss-based stops and
    # checkpoints included
    arms = SOLVE_ARMS + [Arm("LSTM0", "lstm", 8, 0.0)]
    test = SOLVE_TASK.sample(np.random.default_rng(9), 60, 3)
    config = TrainConfig(steps=70, batch=16, stop_loss=0.6)
    kw = dict(sample=lambda rng, n: _delay_sample(rng, n, 3), d_in=SOLVE_TASK.d_in, n_classes=SOLVE_TASK.n_symbols,
              seeds=(0, 1, 2), config=config, data_seed=4, dtype=dtype, test=test, checkpoints=(20, 50, 70))
    new = train_arms(arms, **kw)
    old = train_arms_before_stopping(arms, **kw)
    assert any((r.steps_taken < config.steps).any() for r in new.values()), "some model must stop on its loss"
    _assert_runs_equal(new, old)
    assert all(r.steps_to_solve is None and r.solved is None for r in new.values())


def test_an_unreachable_solve_batch_changes_nothing_but_the_record():
    # held-out labels drawn at random: no model can answer them all, so none stops on them, and the
    # checks every few steps (pack_logits on the same workspace) must not perturb the training
    config = TrainConfig(steps=60, batch=16, stop_loss=0.3)
    test = SOLVE_TASK.sample(np.random.default_rng(9), 40, 2)
    xs, _ = SOLVE_TASK.sample(np.random.default_rng(11), 100, 2)
    noise = np.random.default_rng(12).integers(0, SOLVE_TASK.n_symbols, size=100)
    kw = dict(sample=_delay_sample, d_in=SOLVE_TASK.d_in, n_classes=SOLVE_TASK.n_symbols, seeds=(0, 1),
              config=config, test=test, checkpoints=(30, 60))
    plain = train_arms(SOLVE_ARMS, **kw)
    ruled = train_arms(SOLVE_ARMS, **kw, solve=(xs, noise), solved_at=1.0, check_every=7)
    _assert_runs_equal(ruled, {n: (r.params, r.losses, r.steps_taken, r.checkpoint_accuracy) for n, r in plain.items()})
    for run in ruled.values():  # censored at the cap
        assert not run.solved.any() and (run.steps_to_solve == config.steps).all()


def test_solvers_stop_when_found_solved_and_the_unsolvable_train_to_the_cap():
    cap, every = 600, 25
    config = TrainConfig(steps=cap, batch=32)  # no loss-based stop: only the rule stops a model
    held_out = SOLVE_TASK.sample(np.random.default_rng(5), 200, 2)
    test = SOLVE_TASK.sample(np.random.default_rng(9), 200, 2)
    kw = dict(sample=_delay_sample, d_in=SOLVE_TASK.d_in, n_classes=SOLVE_TASK.n_symbols, seeds=(0, 1, 2),
              config=config, test=test, checkpoints=(100, cap))
    runs = train_arms(SOLVE_ARMS[:1], **kw, solve=held_out, check_every=every)["LSTM"]
    assert runs.solved.all() and (runs.steps_to_solve < cap).all()
    assert (runs.steps_to_solve % every == 0).all()
    np.testing.assert_array_equal(runs.steps_taken, runs.steps_to_solve)
    assert (pack_accuracy(runs, *held_out) >= 0.95).all()
    for k, stop in enumerate(runs.steps_to_solve):
        assert np.isfinite(runs.losses[:stop, k]).all() and np.isnan(runs.losses[stop:, k]).all()
    # a stopped model's weights are those after its steps_to_solve updates, unchanged since: the
    # same seed trained for exactly that many steps, without the rule, ends where it stopped
    for k, seed in enumerate((0, 1, 2)):
        alone = train_arms(SOLVE_ARMS[:1], _delay_sample, SOLVE_TASK.d_in, SOLVE_TASK.n_symbols, seeds=(seed,),
                           config=TrainConfig(steps=int(runs.steps_to_solve[k]), batch=32))["LSTM"]
        for name, v in alone.params.items():
            np.testing.assert_allclose(runs.params[name][k], v[0], rtol=0, atol=1e-12)
    # the accuracy at the cap is the stopped model's final accuracy
    np.testing.assert_array_equal(runs.checkpoint_accuracy[cap], pack_accuracy(runs, *test))
    # the same batch with random labels cannot be solved: every model trains to the cap
    noise = np.random.default_rng(12).integers(0, SOLVE_TASK.n_symbols, size=200)
    stuck = train_arms(SOLVE_ARMS[:1], **kw, solve=(held_out[0], noise), check_every=every)["LSTM"]
    assert not stuck.solved.any() and (stuck.steps_to_solve == cap).all() and (stuck.steps_taken == cap).all()
    assert np.isfinite(stuck.losses).all()


def test_solve_as_several_batches_pools_their_sequences():
    # a list of (xs, labels) pairs (lengths may differ) is scored as one set: the same batch twice
    # decides exactly as it does once; batches of two delays are accepted side by side
    config = TrainConfig(steps=200, batch=32)
    held_out = SOLVE_TASK.sample(np.random.default_rng(5), 100, 2)
    kw = dict(sample=_delay_sample, d_in=SOLVE_TASK.d_in, n_classes=SOLVE_TASK.n_symbols, seeds=(0, 1), config=config,
              check_every=20)
    once = train_arms(SOLVE_ARMS[:1], **kw, solve=held_out)["LSTM"]
    twice = train_arms(SOLVE_ARMS[:1], **kw, solve=[held_out, held_out])["LSTM"]
    np.testing.assert_array_equal(once.steps_to_solve, twice.steps_to_solve)
    np.testing.assert_array_equal(once.solved, twice.solved)
    mixed = train_arms(SOLVE_ARMS[:1], **kw, solve=[held_out, SOLVE_TASK.sample(np.random.default_rng(6), 50, 3)])
    assert mixed["LSTM"].steps_to_solve.shape == (2,)


def test_a_model_frozen_by_its_loss_is_measured_when_it_stops():
    # check_every beyond the cap: the only checks are at a loss-based stop and at the cap
    cap = 400
    config = TrainConfig(steps=cap, batch=32, stop_loss=0.05)
    held_out = SOLVE_TASK.sample(np.random.default_rng(5), 200, 2)
    runs = train_arms(SOLVE_ARMS, _delay_sample, SOLVE_TASK.d_in, SOLVE_TASK.n_symbols, seeds=(0, 1),
                      config=config, solve=held_out, check_every=10 * cap)
    stopped = np.concatenate([r.steps_taken < cap for r in runs.values()])
    assert stopped.any(), "some model must stop on its loss"
    for run in runs.values():
        early = run.steps_taken < cap
        np.testing.assert_array_equal(run.steps_to_solve[run.solved], run.steps_taken[run.solved])
        assert (run.steps_to_solve[~run.solved] == cap).all()
        acc = pack_accuracy(run, *held_out)
        np.testing.assert_array_equal(run.solved[early], acc[early] >= 0.95)


def test_median_steps_to_solve_leaves_the_censored_out():
    steps = np.array([[[25, 50, 2000]], [[2000, 2000, 2000]]])
    solved = steps < 2000
    np.testing.assert_array_equal(median_steps_to_solve(steps, solved), [[37.5], [np.nan]])
    np.testing.assert_array_equal(median_steps_to_solve(steps, solved, axis=0), [[25, 50, np.nan]])


@pytest.mark.parametrize("call,error,match", [
    (lambda: Arm("X", "lstmx"), ValueError, "kind must be one of"),
    (lambda: Arm("X", "rnn", 0), ValueError, "d_hidden must be an integer"),
    (lambda: Arm("X", "rnn", 4, float("nan")), ValueError, "option must be a finite number"),
    (lambda: init_pack(ARMS[0], 3, 4, ()), ValueError, "seeds must hold at least one seed"),
    (lambda: pack_logits("rnn", init_pack(ARMS[0], 3, 4, (0,)), np.zeros((4, 2, 5))), ValueError,
     r"xs must have shape \(T, batch, d_in\)"),
    (lambda: pack_logits("rnn", init_pack(ARMS[0], 3, 4, (0,)), np.zeros((0, 2, 3))), ValueError, "T, batch >= 1"),
    (lambda: pack_loss_and_grads("rnn", init_pack(ARMS[0], 3, 4, (0,)), np.zeros((4, 2, 3)), [0, 4]),
     ValueError, "labels must be integers"),
    (lambda: pack_logits("lstm", init_pack(ARMS[0], 3, 4, (0,)), np.zeros((4, 2, 3))), KeyError, "no entry 'W'"),
    (lambda: train_arms([], None, 3, 4, (0,)), ValueError, "arms must hold at least one"),
    (lambda: train_arms(ARMS[:1] * 2, None, 3, 4, (0,)), ValueError, "distinct names"),
    (lambda: train_arms(ARMS[:1], None, 3, 4, (0,), solve=(np.zeros((2, 3, 4)), [0, 1, 2])), ValueError,
     r"solve xs must have shape \(T, n, d_in\) = \(T, n, 3\)"),
    (lambda: train_arms(ARMS[:1], None, 3, 4, (0,), solve=(np.zeros((2, 3, 3)), [0, 1, 4])), ValueError,
     r"solve labels must be in \[0, n_classes\)"),
    (lambda: train_arms(ARMS[:1], None, 3, 4, (0,), solve=(np.zeros((2, 3, 3)), [0, 1])), ValueError,
     r"solve labels must be integers of shape \(n,\) = \(3,\)"),
    (lambda: train_arms(ARMS[:1], None, 3, 4, (0,), solve=[(np.zeros((2, 3, 3)), [0, 1, 2]), np.zeros(3)]),
     ValueError, r"solve\[1\] must be a pair"),
    (lambda: train_arms(ARMS[:1], None, 3, 4, (0,), solve=[]), ValueError, "solve must be a held-out batch"),
    (lambda: train_arms(ARMS[:1], None, 3, 4, (0,), check_every=0), ValueError, "check_every must be an integer"),
    (lambda: train_arms(ARMS[:1], None, 3, 4, (0,), solved_at=0.0), ValueError, "solved_at must be a finite number"),
    (lambda: train_arms(ARMS[:1], None, 3, 4, (0,), solved_at=1.5), ValueError, "solved_at must be a finite number"),
    (lambda: median_steps_to_solve([1, 2], [True]), ValueError, "solved must be a bool array"),
    (lambda: median_steps_to_solve([1, 2], [True, False], axis=1), ValueError, "axis must be"),
])
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()
