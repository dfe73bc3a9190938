"""seqmodels.experiments.bottlenecks.complexity, timing, gradient_paths, probe (ridge read-out), capacity (state probe) and comparison: graphs, counts, probes and experiments (deterministic parts), bad input."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from seqmodels.models.attention import init_attention, self_attention
from seqmodels.experiments.bottlenecks.comparison import comparison_table
from seqmodels.experiments.bottlenecks.complexity import MODELS, critical_path, dependency_graph, layer_flops, max_path_length
from seqmodels.experiments.bottlenecks.gradient_paths import DEPTH_ARMS, depth_arms, gradient_by_distance, token_uniformity
from seqmodels.experiments.bottlenecks.capacity import count_probe, count_r2, final_states, next_token_leak, positions_recovered, state_probe
from seqmodels.common.probe import linear_probe
from seqmodels.experiments.production.timing import (TIMING_PAGES, attention_split_times, kv_step_times, kv_total_times,
                              prefill_decode_times, recurrence_costs)
from seqmodels.common.clock import interleaved_best
from seqmodels.models.lstm import init_lstm
from seqmodels.models.rnn import init_rnn

BOOK = Path(__file__).resolve().parent.parent / "book"


def test_timing_pages_exist_and_say_so():
    for page in TIMING_PAGES:
        text = (BOOK / f"{page}.md").read_text()
        assert "measured on the build machine" in text, f"{page}.md does not label its timings"


def test_only_timing_pages_read_the_clock():
    """A page that times something prints a number no rebuild repeats; the reproducibility test
    lets only ``TIMING_PAGES`` (and the status page) differ, so every other page must not time."""
    clock = re.compile(r"\b(perf_counter|process_time|monotonic|timeit|time\.time)\b")
    timing = {p for p in BOOK.glob("*.md") if clock.search(p.read_text())}
    assert {p.stem for p in timing} <= set(TIMING_PAGES), (
        f"pages that read the clock but are not in TIMING_PAGES: {sorted(p.stem for p in timing)}")


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 40))
def test_critical_paths_and_path_lengths(n):
    expect = {"Word2Vec": (1, None), "RNN": (n, n if n > 1 else None), "LSTM": (n, n if n > 1 else None),
              "Bi-LSTM": (n + 1, n + 1 if n > 1 else None),
              "Transformer self-attention": (3, 2 if n > 1 else None), "causal attention": (3, 2 if n > 1 else None)}
    for model, (steps, path) in expect.items():
        g = dependency_graph(model, n)
        assert critical_path(g) == steps, model
        assert max_path_length(g, n) == path, model


def test_graph_nodes_come_after_their_parents():
    for model in MODELS + ("causal attention",):
        seen = set()
        for node, parents in dependency_graph(model, 6).items():
            assert all(p in seen for p in parents), (model, node)
            seen.add(node)


def test_causal_graph_never_reads_the_future():
    g = dependency_graph("causal attention", 7)
    for i in range(7):
        assert all(j <= i for kind, j in g[("s", i)] if kind == "p")


@pytest.mark.parametrize("n,d", [(1, 3), (7, 4), (100, 16)])
def test_flop_counts_match_the_models_own_matrices(n, d):
    """Two FLOPs per multiply-add, counted from the shapes of the arrays the models multiply, not
    from the formula: a layer that read more inputs per gate, or forgot a product, would differ."""
    rng = np.random.default_rng(0)
    W_h, W_x, _ = init_rnn(d, d, rng, spectral_radius=0.9)
    W, _ = init_lstm(d, d, rng)
    W_q, W_k, W_v = init_attention(d, d, d, rng)
    out, A = self_attention(rng.normal(size=(n, d)), W_q, W_k, W_v)
    per_step = {"RNN": W_h.size + W_x.size, "LSTM": W.size}  # one [x_t, h_{t-1}] product per step
    for model, weights in per_step.items():
        assert layer_flops(model, n, d) == 2 * n * weights, model
    projections = 2 * n * (W_q.size + W_k.size + W_v.size)
    scores_and_sum = 2 * A.size * W_k.shape[1] + 2 * A.size * out.shape[1]  # Q K^T and A V
    assert layer_flops("attention", n, d) == projections + scores_and_sum

def test_linear_probe_reads_what_is_there_and_nothing_else():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 5, size=(600, 2))
    informative = np.eye(5)[labels[:, 0]] + 0.05 * rng.normal(size=(600, 5))  # holds column 0 only
    acc = linear_probe(informative[:400], labels[:400], informative[400:], labels[400:], 5)
    assert acc[0] == 1.0 and abs(acc[1] - 0.2) < 0.1


def test_positions_recovered():
    assert positions_recovered(np.full(10, 0.25), vocab_size=4) == 0.0
    assert positions_recovered(np.ones(7), vocab_size=8) == 7.0


def test_state_probe_is_deterministic_and_attention_reads_everything():
    a = state_probe(models=("RNN",), sizes=(4, 16), T=10, n_train=300, n_test=200)
    b = state_probe(models=("RNN",), sizes=(4, 16), T=10, n_train=300, n_test=200)
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    assert np.all(a[("attention", None)] == 1.0)
    assert positions_recovered(a[("RNN", 16)], 8) > positions_recovered(a[("RNN", 4)], 8)
    assert a[("RNN", 16)][0] > 0.9  # the last token is always readable


def test_final_states_shapes():
    xs = np.eye(3)[np.random.default_rng(0).integers(0, 3, size=(5, 4))]  # (T=5, N=4, 3)
    assert final_states("RNN", xs, 6).shape == (4, 6)
    assert final_states("Bi-LSTM", xs, 6).shape == (4, 12)
    assert np.array_equal(final_states("Word2Vec", xs, 6), xs[-1])


def test_next_token_leak_only_without_the_mask():
    leak = next_token_leak(T=8, n_seq=1500)
    assert abs(leak["causal"] - leak["chance"]) < 0.03
    assert leak["bidirectional"] > 1.4 * leak["chance"]


def test_gradient_by_distance_shapes_and_orders():
    g = gradient_by_distance(T=30, d=8, n_draws=3)
    assert all(v.shape == (30,) for v in g.values())
    assert g["RNN"][-1] < 1e-3 * g["RNN"][0]
    assert g["attention"][1:].max() / g["attention"][1:].min() < 10


def test_depth_arms_pure_collapses_and_pre_ln_holds():
    r = depth_arms(max_depth=12, T=8, d=16, seeds=(0, 1))
    assert set(r) == set(DEPTH_ARMS)
    for parts in r.values():
        assert parts["uniformity"].shape == (2, 13) and parts["norm"].shape == (2, 13)
    assert np.all(r["pure attention"]["uniformity"][:, -1] < 1e-2 * r["pure attention"]["uniformity"][:, 0])
    assert np.all(r["residual, pre-LN"]["uniformity"][:, -1] > r["pure attention"]["uniformity"][:, -1])
    assert np.all(r["residual"]["norm"][:, -1] > r["residual"]["norm"][:, 0])
    # The scaled control: no normalisation, each update shrunk by 1/sqrt(L); it keeps the positions apart.
    assert np.all(r["residual ×1/√L"]["uniformity"][:, -1] > 3 * r["residual"]["uniformity"][:, -1])
    # input_cosine: exactly 1 at depth 0, in [-1, 1], and unchanged by the scale of the input
    for parts in r.values():
        assert parts["input_cosine"].shape == (2, 13) and np.allclose(parts["input_cosine"][:, 0], 1)
        assert np.all(np.abs(parts["input_cosine"]) <= 1 + 1e-12)


@settings(max_examples=20, deadline=None)
@given(st.floats(1e-3, 1e3), st.integers(0, 100))
def test_token_uniformity_is_scale_free(scale, seed):
    X = np.random.default_rng(seed).normal(size=(5, 3))
    assert np.isclose(token_uniformity(scale * X), token_uniformity(X), rtol=1e-9)
    assert token_uniformity(np.ones((4, 3)) * X[0]) < 1e-12


def test_count_probe_is_flat_and_lstm_holds_counts():
    acc = count_probe(T=12, vocab_size=4, n_train=600, n_test=400)
    assert acc.shape == (12,) and acc.max() - acc.min() < 0.15 and acc.mean() > 0.3
    assert count_r2("LSTM", 32, first=6, T=12, vocab_size=4, n_train=600, n_test=400) > \
        count_r2("RNN", 32, first=6, T=12, vocab_size=4, n_train=600, n_test=400)


def test_comparison_table_deterministic_columns():
    t1 = comparison_table(n=32, d=8, T=12, distance=4, repeat=1)
    t2 = comparison_table(n=32, d=8, T=12, distance=4, repeat=1)
    assert list(t1) == list(MODELS)
    for model in MODELS:
        for key in ("steps", "path", "accuracy", "memory_per_token"):
            assert t1[model][key] == t2[model][key], (model, key)
        assert t1[model]["time_ms"] is None or t1[model]["time_ms"] > 0
    assert t1["RNN"]["memory_per_token"] == 8 / 32 and t1["Transformer self-attention"]["memory_per_token"] == 16
    assert t1["Word2Vec"]["time_ms"] is None


def test_interleaved_best_is_the_fastest_run_of_each_on_one_blas_thread(monkeypatch):
    """A scripted clock: a's runs of 0.5 and 0.2 s give 0.2, b's of 0.1 and 0.4 s give 0.1;
    the runs alternate (a, b, a, b); inside, BLAS has one thread."""
    import time as time_module

    from threadpoolctl import threadpool_info

    clock = iter([0.0, 0.5, 1.0, 1.1, 2.0, 2.2, 3.0, 3.4])
    monkeypatch.setattr(time_module, "process_time", lambda: next(clock))
    order, threads = [], []

    def run(name):
        order.append(name)
        threads.append([i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"])

    best = interleaved_best({"a": lambda: run("a"), "b": lambda: run("b")}, repeat=2)
    assert best == pytest.approx({"a": 0.2, "b": 0.1}) and order == ["a", "b", "a", "b"]
    assert all(t == [1] * len(t) for t in threads)


def test_timing_functions_return_one_time_per_length():
    steps = kv_step_times([1, 4], d_model=4, n_layers=2, repeat=1)
    totals = kv_total_times([2, 3], d_model=4, repeat=1)
    rec = recurrence_costs([3], d=4, batch=2, repeat=1)
    split = attention_split_times([3], d=4, repeat=1)
    gen = prefill_decode_times([2, 3], d_model=4, vocab_size=5, repeat=1)
    assert set(rec) == {"floor", "one sequence", "batched", "one product", "input projection"} and set(gen) == {"prefill", "decode", "prefill_layers", "decode_layers"}
    for arr in (list(steps.values()) + list(totals.values()) + list(rec.values())
                + list(split.values()) + list(gen.values())):
        assert np.all(arr > 0)


def test_bad_input():
    with pytest.raises(ValueError, match=r"model must be one of"):
        layer_flops("GRU", 4, 4)
    with pytest.raises(ValueError, match=r"n\ must\ be\ an\ integer\ >=\ 1,\ got\ 0"):
        layer_flops("RNN", 0, 4)
    with pytest.raises(ValueError, match=r"model must be one of"):
        dependency_graph("CNN", 4)
    with pytest.raises(ValueError, match=r"n\ must\ be\ an\ integer\ >=\ 1,\ got\ 0"):
        dependency_graph("RNN", 0)
    with pytest.raises(ValueError, match=r"repeat\ must\ be\ an\ integer\ >=\ 1,\ got\ 0"):
        interleaved_best({"a": lambda: None}, repeat=0)
    with pytest.raises(ValueError, match=r"lengths\ must\ be\ a\ non\-empty\ list\ of\ integers\ >=\ 1,\ got\ none"):
        kv_step_times([], d_model=4)
    with pytest.raises(ValueError, match=r"ns\[0\]\ must\ be\ an\ integer\ >=\ 1,\ got\ 0"):
        kv_total_times([0], d_model=4)
    S = np.zeros((4, 2))
    y = np.zeros((4, 1), dtype=int)
    with pytest.raises(ValueError, match=r"train_states must be finite"):
        linear_probe(np.full((4, 2), np.nan), y, S, y, 2)
    with pytest.raises(ValueError, match=r"test_states must have 2 columns like train_states, got 3"):
        linear_probe(S, y, np.zeros((4, 3)), y, 2)
    with pytest.raises(ValueError, match=r"train_labels\ must\ be\ an\ integer\ array\ of\ labels,\ got\ dtype\ float64"):
        linear_probe(S, np.zeros((4, 1)), S, y, 2)
    with pytest.raises(ValueError, match=r"test_labels must hold labels in \[0, 2\)"):
        linear_probe(S, y, S, y + 5, 2)
    with pytest.raises(ValueError, match=r"model must be one of \('Word2Vec', 'RNN', 'LSTM', 'Bi-LSTM'\), got 'GRU'"):
        final_states("GRU", np.zeros((3, 2, 4)), 4)
    with pytest.raises(ValueError, match=r"lengths\[0\] must be an integer >= 2"):
        prefill_decode_times([1], d_model=4)
    with pytest.raises(ValueError, match=r"batch must be an integer >= 1"):
        recurrence_costs([4], batch=0)
    with pytest.raises(ValueError, match=r"first must be an integer in \[1, T=4\]"):
        count_r2("RNN", 4, first=5, T=4)
    with pytest.raises(ValueError, match=r"arms must be names from DEPTH_ARMS"):
        depth_arms(arms=("residual", "dense"))
    with pytest.raises(ValueError, match=r"X must have shape \(\[batch,\] T, d\) with T >= 2"):
        token_uniformity(np.ones((1, 3)))
    with pytest.raises(ValueError, match=r"T\ must\ be\ an\ integer\ >=\ 2,\ got\ 1"):
        gradient_by_distance(T=1)
