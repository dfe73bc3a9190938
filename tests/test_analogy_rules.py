"""seqmodels.common.vectors.analogy_accuracy_by: 3CosAdd and 3CosMul against direct loops, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from seqmodels.common.vectors import WordVectors, analogy_accuracy, analogy_accuracy_by


def random_problem(seed, n=40, d=6, n_q=60):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(n)]
    emb = WordVectors(words, rng.normal(size=(n, d)))
    qs = [tuple(words[i] for i in rng.choice(n, size=4, replace=False)) for _ in range(n_q)]
    # make some questions answerable: d is the exact 3CosAdd answer of a, b, c
    return emb, qs


def brute_force(emb, qs, method, exclude):
    U = emb.unit / np.linalg.norm(emb.unit, axis=1, keepdims=True)
    correct = 0
    for a, b, c, d in qs:
        ia, ib, ic, id_ = (emb.index(w) for w in (a, b, c, d))
        best, best_score = None, -np.inf
        for j in range(len(emb)):
            if exclude and j in (ia, ib, ic):
                continue
            ca, cb, cc = (float(U[j] @ U[i]) for i in (ia, ib, ic))
            score = cb - ca + cc if method == "3CosAdd" else \
                ((cb + 1) / 2) * ((cc + 1) / 2) / ((ca + 1) / 2 + 1e-3)
            if score > best_score:
                best, best_score = j, score
        correct += best == id_
    return correct


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("method", ["3CosAdd", "3CosMul"])
@pytest.mark.parametrize("exclude", [True, False])
def test_matches_a_direct_loop(seed, method, exclude):
    emb, qs = random_problem(seed)
    # answer = the brute-force winner for half of the questions, so the count is not always 0
    qs = [q if i % 2 else q[:3] + (emb.words[_winner(emb, q, method, exclude)],) for i, q in enumerate(qs)]
    qs = [q for q in qs if len(set(q)) == 4 or not exclude]
    score = analogy_accuracy_by(emb, qs, method=method, exclude_inputs=exclude)
    assert score.correct == brute_force(emb, qs, method, exclude) and score.answered == len(qs)
    assert score.correct >= 1


def _winner(emb, q, method, exclude):
    U = emb.unit / np.linalg.norm(emb.unit, axis=1, keepdims=True)
    ia, ib, ic = (emb.index(w) for w in q[:3])
    ca, cb, cc = U @ U[ia], U @ U[ib], U @ U[ic]
    s = cb - ca + cc if method == "3CosAdd" else ((cb + 1) / 2) * ((cc + 1) / 2) / ((ca + 1) / 2 + 1e-3)
    if exclude:
        s[[ia, ib, ic]] = -np.inf
    return int(np.argmax(s))


def test_3cosadd_agrees_with_analogy_accuracy():
    emb, qs = random_problem(5)
    assert analogy_accuracy_by(emb, qs).correct == analogy_accuracy(emb, qs).correct


def test_bad_input():
    emb, qs = random_problem(0)
    with pytest.raises(ValueError, match="method"):
        analogy_accuracy_by(emb, qs, method="3CosSub")
    with pytest.raises(ValueError, match="4-tuples"):
        analogy_accuracy_by(emb, [("w0", "w1", "w2")])
    with pytest.raises(ValueError, match="restrict_vocab"):
        analogy_accuracy_by(emb, qs, restrict_vocab=0)
    with pytest.raises(ValueError, match="batch_size"):
        analogy_accuracy_by(emb, qs, batch_size=0)
    assert analogy_accuracy_by(emb, [("w0", "w1", "w2", "unknown")]).skipped == 1
