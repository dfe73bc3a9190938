"""seqmodels.datasets.senses and seqmodels.common.probe: the corpus keeps its promises, the probes their definitions."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from seqmodels.common.probe import linear_probe_accuracy, nearest_centroid_accuracy
from seqmodels.datasets.senses import BOS, EOS, LEFT, RIGHT, SENSES, TARGET, encode, make_corpus, vocabulary


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 7))
def test_corpus_is_split_by_combination_and_balanced(seed, held_out):
    corpus = make_corpus(seed=seed, held_out=held_out)
    assert set(corpus.train).isdisjoint(corpus.test)
    assert len(corpus.test) == 2 * 8 * 2 * held_out
    assert len(corpus.train) + len(corpus.test) == 2 * 3 * 64 + 64  # every sentence of the grammar once
    for s in corpus.train + corpus.test:
        assert s.words.count(TARGET) == 1 and s.words[s.position] == TARGET
    # test sentences have exactly one cue side, and every neutral side meets both senses equally often
    neutral_side = Counter()
    for s in corpus.test:
        assert s.cue in ("before", "after") and s.sense in SENSES
        side = s.words[s.position + 1:] if s.cue == "before" else s.words[:s.position]
        neutral_side[(s.cue, side, s.sense)] += 1
    for (cue, side, sense), n in neutral_side.items():
        other = "river" if sense == "money" else "money"
        assert neutral_side[(cue, side, other)] == n == held_out
    # every test word also occurs in training
    assert set(vocabulary(corpus.test)) <= set(vocabulary(corpus.train))


def test_cue_words_belong_to_one_sense():
    words = {kind: set() for kind in ("neutral", *SENSES)}
    for side in (LEFT, RIGHT):
        for kind, phrases in side.items():
            words[kind] |= {w for p in phrases for w in p.split()}
    assert not (words["money"] - words["neutral"]) & (words["river"] - words["neutral"])
    assert TARGET not in set().union(*words.values())


def test_labels_follow_the_cue():
    corpus = make_corpus(seed=0)
    counts = Counter((s.cue, s.sense) for s in corpus.train)
    assert counts[("none", None)] == 64 and counts[("both", "money")] == counts[("both", "river")] == 64
    assert all((s.sense is None) == (s.cue == "none") for s in corpus.train)


def test_encode_adds_boundaries_and_rejects_unknown_words():
    vocab = vocabulary(make_corpus().train)
    assert vocab[:2] == (BOS, EOS)
    ids = encode(("the", "bank"), vocab)
    assert [vocab[i] for i in ids] == [BOS, "the", "bank", EOS]
    with pytest.raises(KeyError, match=r"word 'bench' \(position 2 of words\) is not in the vocabulary"):
        encode(("the", "old", "bench"), vocab)
    with pytest.raises(ValueError, match=r"held_out\ must\ be\ an\ integer\ between\ 1\ and\ 7,\ got\ 8"):
        make_corpus(held_out=8)


def test_probes_on_a_known_geometry():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 50)
    signal = np.where(y == 1, 3.0, -3.0)
    # column 0 carries the label, column 1 is large noise: a centroid rule is swamped, a probe is not
    X = np.column_stack([signal + rng.normal(size=100), 40 * rng.normal(size=100)])
    tr, te = np.arange(100) % 2 == 0, np.arange(100) % 2 == 1
    assert linear_probe_accuracy(X[tr], y[tr], X[te], y[te]) == 1.0
    assert nearest_centroid_accuracy(X[tr], y[tr], X[te], y[te]) < 0.9
    # vectors that are equal for both classes carry nothing: every probe is right for exactly half
    same = np.ones((100, 3))
    assert linear_probe_accuracy(same[tr], y[tr], same[te], y[te]) == 0.5
    assert nearest_centroid_accuracy(same[tr], y[tr], same[te], y[te]) == 0.5


def test_probes_reject_bad_input():
    X, y = np.zeros((4, 2)), np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"X_test must have 2 columns like X_train, got shape \(4, 3\)"):
        nearest_centroid_accuracy(X, y, np.zeros((4, 3)), y)
    with pytest.raises(ValueError, match=r"y_train must hold every class 0 \.\. 2, missing \[1\]"):
        linear_probe_accuracy(X, np.array([0, 2, 0, 2]), X, y)
    with pytest.raises(ValueError, match=r"y_test must have shape \(4,\), one label per row, got \(3,\)"):
        linear_probe_accuracy(X, y, X, y[:3])
    with pytest.raises(ValueError, match=r"y_train must be an integer array of class labels, got dtype float64"):
        nearest_centroid_accuracy(X, y.astype(float), X, y)
    with pytest.raises(ValueError, match=r"X_train must be finite"):
        linear_probe_accuracy(np.full((4, 2), np.nan), y, X, y)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), held_out=st.integers(1, 27))
def test_distant_test_cue_phrases_occur_in_training_in_neither_order(seed, held_out):
    from seqmodels.datasets.senses import CUE_WORDS, make_distant_corpus

    c = make_distant_corpus(seed=seed, held_out=held_out, per_pair=1)
    texts = [s.text for s in c.train]
    pairs = set()
    for s in c.test:
        k = s.words.index("and")
        pairs.add((s.words[k - 1], s.words[k + 2]))
    assert len(pairs) == 2 * 2 * held_out                      # two senses, both orders
    for a, b in pairs:
        assert (b, a) in pairs
        assert not any(f"the {a} and the {b}" in t or f"the {b} and the {a}" in t for t in texts)
    used = {w for t in texts for w in t.split()}
    if held_out <= 6:            # a cue word is in 7 pairs: holding out 6 or fewer leaves it one in training
        assert all(w in used for ws in CUE_WORDS.values() for w in ws)
