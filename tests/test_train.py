"""seqmodels.training.train and seqmodels.experiments.lstm.delay: head and end-to-end gradients against finite differences,
optimiser and clipping properties, the delay task, and bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from gradcheck import numerical_gradient, relative_error
from seqmodels.experiments.lstm.delay import DelayTask
from seqmodels.common.numeric import softmax_cross_entropy
from seqmodels.common.optim import Adam, clip_grad_norm
from seqmodels.training.train import (LSTM, RNN, TrainConfig, accuracy, classifier_head, init_classifier, input_sensitivity,
                             loss_and_grads, lstm_cell, rnn_cell, train_classifier)


@pytest.mark.parametrize("seed,batch,n_classes", [(0, 1, 2), (1, 5, 3), (2, 8, 7)])
def test_softmax_cross_entropy_gradient(seed, batch, n_classes):
    rng = np.random.default_rng(seed)
    logits = rng.normal(scale=3.0, size=(batch, n_classes))
    labels = rng.integers(0, n_classes, size=batch)
    _, dlogits = softmax_cross_entropy(logits, labels)
    numeric = numerical_gradient(lambda: softmax_cross_entropy(logits, labels)[0], logits)
    assert relative_error(dlogits, numeric) <= 1e-6


def test_softmax_cross_entropy_is_stable_for_huge_logits():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss, d = softmax_cross_entropy(np.array([[1e4, -1e4, 0.0]]), np.array([1]))
    assert loss == pytest.approx(2e4) and np.isfinite(d).all()
    np.testing.assert_allclose(d, [[1.0, -1.0, 0.0]], atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_classifier_head_gradients(seed):
    rng = np.random.default_rng(seed)
    h, W_out, b_out = rng.normal(size=(6, 4)), rng.normal(size=(3, 4)), rng.normal(size=3)
    labels = rng.integers(0, 3, size=6)
    _, grads = classifier_head(h, W_out, b_out, labels)
    for name, arr in [("h", h), ("W_out", W_out), ("b_out", b_out)]:
        numeric = numerical_gradient(lambda: classifier_head(h, W_out, b_out, labels)[0], arr)
        err = relative_error(grads[name], numeric)
        assert err <= 1e-6, f"d{name}: relative error {err:.2e}"


@pytest.mark.parametrize("cell", [rnn_cell(0.9), lstm_cell(1.0)], ids=["RNN", "LSTM"])
def test_loss_and_grads_end_to_end(cell):
    """Head plus BPTT: every parameter and the inputs, against central differences."""
    rng = np.random.default_rng(3)
    params = init_classifier(cell, d_in=3, n_classes=4, d_hidden=5, rng=rng)
    xs, labels = rng.normal(size=(6, 2, 3)), np.array([1, 3])
    _, grads = loss_and_grads(cell, params, xs, labels)
    for name in [*params, "xs"]:
        arr = xs if name == "xs" else params[name]
        numeric = numerical_gradient(lambda: loss_and_grads(cell, params, xs, labels)[0], arr)
        err = relative_error(grads[name], numeric)
        assert err <= 1e-6, f"{cell.name} d{name}: relative error {err:.2e}"


@pytest.mark.parametrize("cell", [RNN, LSTM], ids=["RNN", "LSTM"])
def test_input_sensitivity_matches_finite_difference_jacobian(cell):
    rng = np.random.default_rng(4)
    params = cell.init(2, 3, rng)
    xs = rng.normal(size=(4, 2, 2))
    got = input_sensitivity(cell, params, xs)
    norms = np.empty((4, 2))
    for t in range(4):
        for k in range(2):
            J = np.empty((3, 2))  # dh_T / dx_t of sequence k
            for j in range(2):
                up, down = xs.copy(), xs.copy()
                up[t, k, j] += 1e-6
                down[t, k, j] -= 1e-6
                J[:, j] = (cell.forward(params, up)[-1, k] - cell.forward(params, down)[-1, k]) / 2e-6
            norms[t, k] = np.linalg.norm(J)
    np.testing.assert_allclose(got, np.exp(np.log(norms).mean(axis=1)), rtol=1e-6)


def test_path_sensitivity_splits_input_sensitivity_at_the_frozen_h_jacobian():
    """seqmodels.experiments.lstm.paths.lstm_path_sensitivity: its "full" is input_sensitivity's, and its
    "cell path" is the norm of the finite-difference Jacobian of the model whose gates read
    h_{t-1} as a constant (the intact pass's values)."""
    from seqmodels.experiments.lstm.ablation import lstm_forward_ablated
    from seqmodels.experiments.lstm.paths import lstm_path_sensitivity
    rng = np.random.default_rng(5)
    params = LSTM.init(2, 3, rng)
    params["b"][:3] = 2.0
    xs = rng.normal(size=(5, 2, 2))
    got = lstm_path_sensitivity(params, xs)
    np.testing.assert_allclose(got["full"], input_sensitivity(LSTM, params, xs), rtol=1e-12)
    z = np.zeros((2, 3))
    hs = LSTM.forward(params, xs)
    h_read = (True, np.concatenate([z[None], hs[:-1]]))  # h_{t-1} of the intact pass, held fixed
    norms = np.empty((5, 2))
    for t in range(5):
        for k in range(2):
            J = np.empty((3, 2))
            for j in range(2):
                up, down = xs.copy(), xs.copy()
                up[t, k, j] += 1e-6
                down[t, k, j] -= 1e-6
                h_up = lstm_forward_ablated(up, z, z, params["W"], params["b"], h_read=h_read)[0][-1, k]
                h_down = lstm_forward_ablated(down, z, z, params["W"], params["b"], h_read=h_read)[0][-1, k]
                J[:, j] = (h_up - h_down) / 2e-6
            norms[t, k] = np.linalg.norm(J)
    np.testing.assert_allclose(got["cell path"], np.exp(np.log(norms).mean(axis=1)), rtol=1e-6)
    assert got["through h"][-1] == 0.0 and got["cell path"][-1] == got["full"][-1]


@settings(max_examples=50, deadline=None)
@given(arrays(np.float64, 5, elements=st.floats(-1e3, 1e3)), arrays(np.float64, (2, 2), elements=st.floats(-1e3, 1e3)),
       st.floats(1e-3, 1e3))
def test_clip_grad_norm_bounds_norm_and_keeps_direction(a, B, max_norm):
    grads = {"a": a, "B": B}
    clipped, norm = clip_grad_norm(grads, max_norm)
    assert norm == pytest.approx(np.sqrt(np.sum(a * a) + np.sum(B * B)))
    new_norm = np.sqrt(sum(np.sum(g * g) for g in clipped.values()))
    assert new_norm <= max_norm * (1 + 1e-12) + 1e-300
    if norm <= max_norm:
        np.testing.assert_array_equal(clipped["a"], a)
    else:
        np.testing.assert_allclose(clipped["a"] * norm, a * new_norm, rtol=1e-9, atol=1e-9)


@settings(max_examples=50, deadline=None)
@given(arrays(np.float64, 6, elements=st.floats(-1e3, 1e3).filter(lambda v: abs(v) > 1e-3)), st.floats(1e-4, 1.0))
def test_adam_first_step_moves_every_entry_by_lr(g, lr):
    p = {"w": np.zeros(6)}
    Adam(lr=lr).step(p, {"w": g})
    np.testing.assert_allclose(p["w"], -lr * np.sign(g), rtol=1e-5)  # eps / |g| <= 1e-5


def test_adam_minimises_a_quadratic():
    target = np.array([3.0, -2.0, 0.5])
    p, opt = {"w": np.zeros(3)}, Adam(lr=0.05)
    for _ in range(2000):
        opt.step(p, {"w": 2 * (p["w"] - target)})
    np.testing.assert_allclose(p["w"], target, atol=1e-3)


@pytest.mark.parametrize("cell", [RNN, LSTM], ids=["RNN", "LSTM"])
def test_training_learns_and_is_reproducible(cell):
    task = DelayTask()
    cfg = TrainConfig(steps=80, seed=5)
    runs = [train_classifier(cell, lambda rng, n: task.sample(rng, n, 2), task.d_in, task.n_symbols, cfg)
            for _ in range(2)]
    np.testing.assert_array_equal(runs[0].losses, runs[1].losses)
    assert runs[0].losses[-10:].mean() < 0.3 * runs[0].losses[:10].mean()
    xs, y = task.sample(np.random.default_rng(9), 200, 2)
    assert accuracy(cell, runs[0].params, xs, y) > 0.9


def test_training_stops_early_once_the_loss_is_low():
    task = DelayTask()
    run = train_classifier(LSTM, lambda rng, n: task.sample(rng, n, 1), task.d_in, task.n_symbols,
                           TrainConfig(steps=500, stop_loss=0.05))
    assert 10 <= len(run.losses) < 500 and run.losses[-10:].mean() < 0.05
    assert len(run.grad_norms) == len(run.losses)


def test_delay_task_sequences():
    task = DelayTask(n_symbols=3, n_distractors=2)
    xs, labels = task.sample(np.random.default_rng(0), 50, delay=7)
    tokens = xs.argmax(axis=-1)
    assert xs.shape == (9, 50, 6) and np.all(xs.sum(axis=-1) == 1)
    np.testing.assert_array_equal(tokens[0], labels)  # one key, at position 0
    assert np.all((tokens[1:-1] >= 3) & (tokens[1:-1] <= 4)) and np.all(tokens[-1] == 5)


def test_delay_task_with_new_keys_answers_the_last_one():
    task = DelayTask(n_symbols=4, n_distractors=4, p_new_key=0.3)
    xs, labels = task.sample(np.random.default_rng(1), 200, delay=10)
    tokens = xs.argmax(axis=-1)
    for k in range(200):
        keys = tokens[:, k][tokens[:, k] < 4]
        assert labels[k] == keys[-1]
    assert np.mean([(tokens[1:-1, k] < 4).any() for k in range(200)]) > 0.5


@pytest.mark.parametrize("call,match", [
    (lambda: softmax_cross_entropy(np.zeros((2, 3)), np.array([0, 3])),
     r"labels must hold class labels in \[0, 3\), got values from 0 to 3"),
    (lambda: softmax_cross_entropy(np.zeros((2, 3)), np.array([0.0, 1.0])), r"labels must be an integer array of class labels, got dtype float64"),
    (lambda: softmax_cross_entropy(np.zeros((2, 3)), np.array([0, 1, 2])), r"labels must have shape \(batch,\) = \(2,\), got \(3,\)"),
    (lambda: softmax_cross_entropy(np.array([[0.0, np.nan]]), np.array([0])), r"logits must be finite"),
    (lambda: classifier_head(np.zeros((2, 4)), np.zeros((3, 5)), np.zeros(3), np.array([0, 1])),
     r"W_out must have shape \(n_classes, d_hidden\) = \(3, 4\), got \(3, 5\)"),
    (lambda: classifier_head(np.zeros((2, 4)), np.zeros((3, 4)), np.zeros(2), np.array([0, 1])),
     r"b_out must have shape \(n_classes,\) = \(3,\), got \(2,\)"),
    (lambda: clip_grad_norm({"a": np.ones(2)}, 0.0), r"max_norm\ must\ be\ a\ finite\ number\ >\ 0,\ got\ 0\.0"),
    (lambda: DelayTask(n_symbols=1), r"n_symbols\ must\ be\ an\ integer\ >=\ 2,\ got\ 1"),
    (lambda: DelayTask(p_new_key=1.5), r"p_new_key\ must\ be\ a\ finite\ number\ >=\ 0\ and\ <=\ 1,\ got\ 1\.5"),
    (lambda: DelayTask().sample(np.random.default_rng(0), 0, 3), r"n\ must\ be\ an\ integer\ >=\ 1,\ got\ 0"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
