"""seqmodels.experiments.embeddings.pmi, seqmodels.experiments.embeddings.offsets and vectors.analogy_hits: against direct computations, the
invariants they promise, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqmodels.experiments.embeddings import pmi
from seqmodels.experiments.embeddings.offsets import (mean_offset_cosine, mispaired_offset_cosines, offset_gain,
                               pair_vectors, relation_pairs)
from seqmodels.common.vectors import WordVectors, analogy_accuracy_by, analogy_hits


# --- pmi -----------------------------------------------------------------------------------


def test_pair_counts_match_a_direct_count():
    rng = np.random.default_rng(0)
    docs = [rng.integers(0, 6, size=n) for n in (7, 1, 12)]
    pc = pmi.pair_counts(docs, np.ones(6), window=2, epochs=1, rng=3)
    # the same draws by hand: keep everything, then the windows of skipgram_pairs
    from seqmodels.models.word2vec import skipgram_pairs
    r = np.random.default_rng(3)
    kept = [d[r.random(d.size) < 1.0] for d in docs]
    c, o = skipgram_pairs(kept, 2, r)
    direct = {}
    for ci, oi in zip(c.tolist(), o.tolist()):
        direct[ci, oi] = direct.get((ci, oi), 0) + 1
    got = dict(zip(zip(pc.centres.tolist(), pc.contexts.tolist()), pc.counts.tolist()))
    assert got == direct
    np.testing.assert_allclose(pc.centre_totals, np.bincount(c, minlength=6))


def test_pair_counts_average_over_draws():
    docs = [np.array([0, 1, 2, 1, 0])]
    one = pmi.pair_counts(docs, np.ones(3), window=1, epochs=1, rng=0)
    ten = pmi.pair_counts(docs, np.ones(3), window=1, epochs=1, rng=0, draws=10)
    # window 1 and nothing dropped: every draw is the same, so the average equals one draw
    np.testing.assert_allclose(ten.counts, one.counts)
    assert ten.draws == 10 and ten.at_least(2).sum() == (one.counts >= 2).sum()


def test_optimum_is_pmi_minus_log_k():
    counts = np.array([4.0, 1.0, 3.0])
    totals = np.array([5.0, 5.0, 3.0])
    noise = np.array([0.5, 0.25, 0.25])
    k1 = pmi.sgns_optimum(counts, totals, noise, negatives=1)
    k5 = pmi.sgns_optimum(counts, totals, noise, negatives=5)
    np.testing.assert_allclose(k1 - k5, np.log(5))
    np.testing.assert_allclose(k1, np.log(counts / (totals * noise)))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_without_words_removes_any_additive_word_effects(seed):
    rng = np.random.default_rng(seed)
    c, o = rng.integers(0, 5, size=40), rng.integers(0, 6, size=40)
    a, b, noise = rng.normal(size=5), rng.normal(size=6), rng.normal(size=40)
    r_pure = pmi.without_words(noise, c, o)
    r_shifted = pmi.without_words(noise + a[c] + b[o], c, o)
    np.testing.assert_allclose(r_shifted, r_pure, atol=1e-6)
    # the residual has mean zero within every centre word and every context word
    for g, n in ((c, 5), (o, 6)):
        sums = np.bincount(g, weights=r_pure, minlength=n)
        np.testing.assert_allclose(sums, 0, atol=1e-6)


def test_without_words_matches_least_squares():
    rng = np.random.default_rng(1)
    c, o = rng.integers(0, 4, size=30), rng.integers(0, 5, size=30)
    y = rng.normal(size=30)
    X = np.column_stack([np.eye(4)[c], np.eye(5)[o]])
    direct = y - X @ np.linalg.lstsq(X, y, rcond=None)[0]
    np.testing.assert_allclose(pmi.without_words(y, c, o), direct, atol=1e-7)


def test_fixed_effect_dof_counts_components():
    # two separate 2 x 2 blocks: 8 pairs, 2 * (2 + 2) parameters less 2 components
    c = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    o = np.array([0, 1, 0, 1, 2, 3, 2, 3])
    assert pmi.fixed_effect_dof(c, o) == (8, 2)
    rng = np.random.default_rng(2)
    c, o = rng.integers(0, 4, size=30), rng.integers(0, 5, size=30)
    X = np.column_stack([np.eye(4)[c], np.eye(5)[o]])
    n, dof = pmi.fixed_effect_dof(c, o)
    assert dof == n - np.linalg.matrix_rank(X)


def test_without_log_counts_removes_a_line_in_the_log_counts():
    rng = np.random.default_rng(3)
    log_count = rng.normal(size=6)
    c, o = rng.integers(0, 6, size=25), rng.integers(0, 6, size=25)
    y = 2.0 + 0.5 * log_count[o] - 1.5 * log_count[c]
    np.testing.assert_allclose(pmi.without_log_counts(y, c, o, log_count), 0, atol=1e-10)


def test_scores_and_shuffled_null():
    rng = np.random.default_rng(4)
    W_in, W_out = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    c, o = np.array([0, 1, 4]), np.array([2, 2, 3])
    np.testing.assert_allclose(pmi.pair_scores(W_in, W_out, c, o),
                               [W_out[j] @ W_in[i] for i, j in zip(c, o)])
    shuffled = pmi.shuffled_scores(W_in, W_out, c, o, rng=np.random.default_rng(5))
    perm = np.random.default_rng(5).permutation(5)
    np.testing.assert_allclose(shuffled, [W_out[j] @ W_in[perm[i]] for i, j in zip(c, o)])


def test_partial_correlation_of_identical_residuals_is_one():
    rng = np.random.default_rng(6)
    c, o = rng.integers(0, 4, size=30), rng.integers(0, 4, size=30)
    y = rng.normal(size=30)
    assert pmi.partial_correlation(y, 3 * y + 1, c, o, pmi.without_words) == pytest.approx(1.0)


@pytest.mark.parametrize("call, name", [
    (lambda: pmi.pair_counts([np.array([0, 1])], [0.5, 2.0], 1, 1, 0), "keep"),
    (lambda: pmi.pair_counts([np.array([0, 1])], [1.0, 1.0], 0, 1, 0), "window"),
    (lambda: pmi.pair_counts([np.array([0, 1])], [1.0, 1.0], 1, 1, 0, draws=0), "draws"),
    (lambda: pmi.pair_counts([np.array([0, 5])], [1.0, 1.0], 1, 1, 0), r"encoded\[0\]"),
    (lambda: pmi.sgns_optimum([1.0, 0.0], [1.0, 1.0], [0.5, 0.5], 1), "counts"),
    (lambda: pmi.sgns_optimum([1.0], [1.0, 1.0], [0.5], 1), "centre_totals"),
    (lambda: pmi.sgns_optimum([1.0], [1.0], [0.5], 0), "negatives"),
    (lambda: pmi.without_words([1.0, 2.0], [0, 1, 1], [0, 1]), "centres"),
    (lambda: pmi.without_words([1.0, 2.0], [0, 1], [0, 1], tol=0), "tol"),
    (lambda: pmi.without_log_counts([1.0, 2.0], [0, 3], [0, 1], [0.0, 1.0]), "log_count"),
    (lambda: pmi.pair_scores(np.ones((3, 2)), np.ones((3, 2)), [0, 3], [0, 1]), "centres"),
])
def test_pmi_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# --- offsets ---------------------------------------------------------------------------------


def test_mean_offset_cosine_against_a_loop():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(6, 4))
    cos = [X[i] @ X[j] / np.linalg.norm(X[i]) / np.linalg.norm(X[j])
           for i in range(6) for j in range(i + 1, 6)]
    assert mean_offset_cosine(X) == pytest.approx(np.mean(cos))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 8))
def test_a_shared_offset_is_perfectly_consistent(seed, n):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, 5))
    step = rng.normal(size=5)
    vecs = np.stack([a, a + step], axis=1)
    right, wrong, share = offset_gain(vecs)
    assert right == pytest.approx(1.0)
    assert wrong < 1.0 and share == 0.0


def test_mispaired_control_leaves_out_right_pairs():
    words = ["a0", "a1", "a2", "b0", "b1"]
    emb = WordVectors(words, np.random.default_rng(8).normal(size=(5, 4)))
    pairs = [("a0", "b0"), ("a1", "b0"), ("a2", "b1")]   # b0 is the answer for two words
    vecs = pair_vectors(emb, pairs)
    with_names = mispaired_offset_cosines(vecs, pairs)
    # shift 1: (a0, b0) is right, so it is left out; shift 2: (a0, b1), (a1, b0)? right -> out
    assert with_names.shape == (2,)
    shift2 = [(pairs[i][0], pairs[(i + 2) % 3][1]) for i in range(3)]
    assert sum(p not in pairs for p in shift2) == 2


def test_relation_pairs_and_pair_vectors():
    emb = WordVectors(["man", "woman", "king", "queen"], np.eye(4) + 0.1)
    pairs = relation_pairs(emb, [("man", "woman", "king", "queen"), ("man", "woman", "x", "y")])
    assert pairs == [("king", "queen"), ("man", "woman")]
    v = pair_vectors(emb, pairs)
    assert v.shape == (2, 2, 4)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-1), 1.0)


@pytest.mark.parametrize("call, err, name", [
    (lambda: mean_offset_cosine(np.ones((1, 3))), ValueError, "offsets"),
    (lambda: mean_offset_cosine(np.zeros((2, 3))), ValueError, "offsets"),
    (lambda: mispaired_offset_cosines(np.ones((2, 2, 3))), ValueError, "vecs"),
    (lambda: mispaired_offset_cosines(np.ones((3, 2, 3)), [("a", "b")]), ValueError, "pairs"),
    (lambda: pair_vectors(WordVectors(["a"], np.ones((1, 2))), [("a", "zz")]), KeyError, "zz"),
    (lambda: relation_pairs([1], []), ValueError, "emb"),
])
def test_offsets_bad_input_names_the_argument(call, err, name):
    with pytest.raises(err, match=name):
        call()


# --- analogy_hits ------------------------------------------------------------------------------


@pytest.mark.parametrize("method, exclude", [("3CosAdd", True), ("3CosMul", True), ("3CosAdd", False)])
def test_analogy_hits_sum_to_the_accuracy(method, exclude):
    rng = np.random.default_rng(9)
    words = [f"w{i}" for i in range(30)]
    emb = WordVectors(words, rng.normal(size=(30, 5)))
    qs = [tuple(words[i] for i in rng.choice(30, size=4, replace=False)) for _ in range(50)]
    qs += [("w0", "w1", "w2", "unknown")]
    hits, skipped = analogy_hits(emb, qs, method=method, exclude_inputs=exclude, restrict_vocab=20)
    score = analogy_accuracy_by(emb, qs, method=method, exclude_inputs=exclude, restrict_vocab=20)
    assert hits.shape == (len(qs),) and hits[-1] == -1
    assert skipped == score.skipped == int((hits < 0).sum())
    assert int((hits == 1).sum()) == score.correct and int((hits >= 0).sum()) == score.answered
