"""seqmodels.stacked: a stack of S models computes what S single models compute, and trains fast."""

from __future__ import annotations

import numpy as np
import pytest

from gradcheck import numerical_gradient, relative_error
from seqmodels.delay import DelayTask
from seqmodels.stacked import Arm, init_stack, stack_accuracy, stack_logits, stack_loss_and_grads, train_arms, unstack
from seqmodels.train import TrainConfig, init_classifier, loss_and_grads, predict

ARMS = [Arm("RNN", "rnn", 5, 1.0), Arm("LSTM", "lstm", 4, 3.0), Arm("GRU", "gru", 3, 0.5)]


@pytest.mark.parametrize("arm", ARMS, ids=lambda a: a.kind)
def test_stack_matches_single_models(arm):
    rng = np.random.default_rng(0)
    xs, labels = rng.normal(size=(6, 7, 3)), rng.integers(0, 4, size=7)
    seeds = (3, 1, 4)
    params = init_stack(arm, 3, 4, seeds)
    for p in params.values():  # move away from the initial draw so every weight matters
        p += 0.1 * rng.normal(size=p.shape)
    losses, grads = stack_loss_and_grads(arm.kind, params, xs, labels)
    logits = stack_logits(arm.kind, params, xs)
    for k, seed in enumerate(seeds):
        single = unstack(params, k)
        loss, g = loss_and_grads(arm.cell(), single, xs, labels)
        assert abs(losses[k] - loss) < 1e-12
        np.testing.assert_allclose(logits[k], predict(arm.cell(), single, xs), atol=1e-12)
        for name in single:
            err = relative_error(grads[name][k], g[name])
            assert err < 1e-10, f"{arm.kind} seed {seed} d{name}: relative error {err:.1e}"


@pytest.mark.parametrize("S,B,T", [(1, 1, 1), (1, 3, 4), (3, 1, 1), (2, 5, 3), (4, 2, 6)])
@pytest.mark.parametrize("arm", ARMS, ids=lambda a: a.kind)
def test_stack_gradients_match_central_differences(arm, S, B, T):
    # the stacked layout (hidden-major states, inputs of all steps side by side) against the
    # definition of the gradient, including one step, one model and a batch of one
    rng = np.random.default_rng([S, B, T])
    xs, labels = rng.normal(size=(T, B, 3)), rng.integers(0, 4, size=B)
    params = init_stack(arm, 3, 4, range(S))
    for p in params.values():
        p += 0.3 * rng.normal(size=p.shape)
    losses, grads = stack_loss_and_grads(arm.kind, params, xs, labels)
    assert losses.shape == (S,)
    for name, p in params.items():
        assert grads[name].shape == p.shape
        numeric = numerical_gradient(lambda: stack_loss_and_grads(arm.kind, params, xs, labels)[0].sum(), p)
        err = relative_error(grads[name], numeric)
        assert err < 1e-6, f"{arm.kind} S={S} B={B} T={T} d{name}: relative error {err:.1e}"


def test_stack_logits_agree_with_the_training_forward_pass():
    # stack_logits keeps two steps' intermediates, the training pass all of them: same numbers
    rng = np.random.default_rng(5)
    xs, labels = rng.normal(size=(7, 6, 3)), rng.integers(0, 4, size=6)
    for arm in ARMS:
        params = init_stack(arm, 3, 4, (0, 1, 2))
        logits = stack_logits(arm.kind, params, xs)
        logp = logits - logits.max(axis=-1, keepdims=True)
        logp -= np.log(np.exp(logp).sum(axis=-1, keepdims=True))
        losses, _ = stack_loss_and_grads(arm.kind, params, xs, labels)
        np.testing.assert_allclose(losses, -logp[:, np.arange(6), labels].mean(axis=1), atol=1e-12)


@pytest.mark.parametrize("arm", ARMS, ids=lambda a: a.kind)
def test_stack_starts_from_the_single_models_draw(arm):
    params = init_stack(arm, 3, 4, (7, 2))
    for k, seed in enumerate((7, 2)):
        single = init_classifier(arm.cell(), 3, 4, arm.d_hidden, np.random.default_rng([seed, 0]))
        for name in single:
            np.testing.assert_array_equal(params[name][k], single[name])


def test_n_params_counts_the_arrays():
    for arm in ARMS:
        params = init_stack(arm, 9, 4, (0,))
        assert arm.n_params(9, 4) == sum(v[0].size for v in params.values())


def test_train_arms_learns_and_models_are_independent():
    task = DelayTask()
    sample = lambda rng, n: task.sample(rng, n, 3)
    config = TrainConfig(steps=120, batch=32, stop_loss=0.05)
    runs = train_arms([Arm("LSTM", "lstm", 8, 3.0), Arm("LSTM0", "lstm", 8, 0.0)], sample, task.d_in,
                      task.n_symbols, seeds=(0, 1), config=config)
    xs, y = task.sample(np.random.default_rng(9), 200, 3)
    assert stack_accuracy(runs["LSTM"], xs, y).min() > 0.9
    # training a stack of one gives the same weights as that model inside a bigger stack
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
        np.testing.assert_array_equal(runs[arm.name].checkpoint_accuracy[90], stack_accuracy(runs[arm.name], *test))


@pytest.mark.parametrize("call,error,match", [
    (lambda: Arm("X", "lstmx"), KeyError, "kind must be one of"),
    (lambda: Arm("X", "rnn", 0), ValueError, "d_hidden must be an integer"),
    (lambda: Arm("X", "rnn", 4, float("nan")), ValueError, "option must be a finite number"),
    (lambda: init_stack(ARMS[0], 3, 4, ()), ValueError, "seeds must hold at least one seed"),
    (lambda: stack_logits("rnn", init_stack(ARMS[0], 3, 4, (0,)), np.zeros((4, 2, 5))), ValueError,
     r"xs must have shape \(T, batch, d_in\)"),
    (lambda: stack_logits("rnn", init_stack(ARMS[0], 3, 4, (0,)), np.zeros((0, 2, 3))), ValueError, "T, batch >= 1"),
    (lambda: stack_loss_and_grads("rnn", init_stack(ARMS[0], 3, 4, (0,)), np.zeros((4, 2, 3)), [0, 4]),
     ValueError, "labels must be integers"),
    (lambda: stack_logits("lstm", init_stack(ARMS[0], 3, 4, (0,)), np.zeros((4, 2, 3))), KeyError, "no entry 'W'"),
    (lambda: train_arms([], None, 3, 4, (0,)), ValueError, "arms must hold at least one"),
    (lambda: train_arms(ARMS[:1] * 2, None, 3, 4, (0,)), ValueError, "distinct names"),
])
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()
