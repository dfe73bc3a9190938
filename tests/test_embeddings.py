"""seqmodels.models.word2vec, seqmodels.common.vectors, seqmodels.datasets.glove and seqmodels.datasets.corpus: SGNS gradients against finite differences, training
pieces, GloVe loading, nearest neighbours and analogies on the real vectors, properties, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from gradcheck import numerical_gradient, relative_error
from seqmodels.datasets.corpus import analogy_questions, strip_wiki_markup, tokenize, wikipedia_articles
from seqmodels.datasets.glove import load_glove
from seqmodels.common.vectors import WordVectors, analogy, analogy_accuracy, analogy_rank, cosine_similarity, nearest, one_hot
from seqmodels.models.word2vec import (SGNSConfig, build_vocabulary, keep_probabilities, negative_table, sgns_loss_and_grads,
                                skipgram_pairs, train_sgns)

# ------------------------------------------------------------------------------ SGNS gradients


def sgns_problem(seed, V, d, B, K):
    rng = np.random.default_rng(seed)
    W_in = rng.normal(scale=0.7, size=(V, d))
    W_out = rng.normal(scale=0.7, size=(V, d))
    centers = rng.integers(0, V, size=B)
    contexts = rng.integers(0, V, size=B)
    negatives = rng.integers(0, V, size=(B, K))
    return W_in, W_out, centers, contexts, negatives


@pytest.mark.parametrize("seed,V,d,B,K", [(0, 3, 2, 1, 1), (1, 6, 4, 5, 3), (2, 4, 3, 9, 5), (3, 10, 5, 7, 2)])
def test_sgns_gradients_match_central_differences(seed, V, d, B, K):
    # Small vocabularies force repeated rows (a word that is centre and negative, the same
    # negative twice), so the accumulation of gradients is checked too.
    W_in, W_out, c, o, n = sgns_problem(seed, V, d, B, K)
    _, dW_in, dW_out = sgns_loss_and_grads(W_in, W_out, c, o, n)
    loss = lambda: sgns_loss_and_grads(W_in, W_out, c, o, n)[0]  # noqa: E731
    for name, W, analytic in (("W_in", W_in, dW_in), ("W_out", W_out, dW_out)):
        numeric = numerical_gradient(loss, W)
        err = relative_error(analytic, numeric)
        assert err <= 1e-6, f"d{name}: relative error {err:.2e} against central differences"


def test_sgns_loss_matches_a_loop_over_pairs():
    W_in, W_out, c, o, n = sgns_problem(4, 8, 3, 6, 4)
    sig = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    total = 0.0
    for b in range(6):
        total -= np.log(sig(W_out[o[b]] @ W_in[c[b]]))
        for k in range(4):
            total -= np.log(sig(-W_out[n[b, k]] @ W_in[c[b]]))
    loss, _, _ = sgns_loss_and_grads(W_in, W_out, c, o, n)
    assert np.isclose(loss, total / 6, rtol=1e-12)


def test_sgns_loss_is_finite_for_huge_scores():
    W = np.full((2, 3), 100.0)
    loss, dW_in, dW_out = sgns_loss_and_grads(W, -W, [0], [1], [[1]])
    assert np.isfinite(loss) and np.isfinite(dW_in).all() and np.isfinite(dW_out).all()
    assert loss > 1e4  # the observed pair scores -3e4: a huge, finite loss


# ------------------------------------------------------------------------------ training pieces


def test_skipgram_pairs_with_window_one_are_the_adjacent_pairs():
    docs = [np.array([0, 1, 2]), np.array([3, 4])]
    c, o = skipgram_pairs(docs, window=1, rng=np.random.default_rng(0))
    assert sorted(zip(c.tolist(), o.tolist())) == [(0, 1), (1, 0), (1, 2), (2, 1), (3, 4), (4, 3)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=6), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_skipgram_pairs_stay_in_window_and_document(lengths, window, seed):
    # Ids are positions, so every pair tells where its two words stand.
    starts = np.cumsum([0] + lengths[:-1])
    docs = [np.arange(s, s + n) for s, n in zip(starts, lengths)]
    doc_of = np.repeat(np.arange(len(lengths)), lengths)
    c, o = skipgram_pairs(docs, window, np.random.default_rng(seed))
    assert c.shape == o.shape
    if c.size:
        assert np.all((np.abs(c - o) >= 1) & (np.abs(c - o) <= window))
        assert np.all(doc_of[c] == doc_of[o])
    # Every adjacent pair inside a document is always used (b_i >= 1), in both directions.
    adjacent = sum(max(n - 1, 0) for n in lengths)
    assert np.sum(np.abs(c - o) == 1) == 2 * adjacent


@settings(max_examples=50, deadline=None)
@given(arrays(np.int64, st.integers(1, 30), elements=st.integers(1, 10**6)), st.floats(1e-6, 1.0))
def test_keep_probabilities_are_probabilities_and_favour_rare_words(counts, threshold):
    keep = keep_probabilities(counts, threshold)
    assert np.all((keep > 0) & (keep <= 1))
    order = np.argsort(counts, kind="stable")
    assert np.all(np.diff(keep[order]) <= 1e-12)  # more frequent, never more likely kept
    assert np.all(keep[counts / counts.sum() <= threshold] == 1.0)


@settings(max_examples=30, deadline=None)
@given(arrays(np.int64, st.integers(1, 20), elements=st.integers(1, 5000)))
def test_negative_table_follows_unigram_to_the_three_quarters(counts):
    size = 10_000
    table = negative_table(counts, size=size)
    assert table.shape == (size,) and table.min() >= 0 and table.max() < counts.size
    p = counts**0.75 / np.sum(counts**0.75)
    share = np.bincount(table, minlength=counts.size)
    assert np.all(np.abs(share - p * size) <= 1.0)  # each word gets its share, to one entry


def test_vocabulary_counts_orders_and_encodes():
    docs = [["b", "a", "b", "c"], ["a", "b", "d"]]
    vocab = build_vocabulary(docs, min_count=2)
    assert vocab.words == ("b", "a") and vocab.counts.tolist() == [3, 2]
    assert vocab.encode(["a", "zzz", "b"]).tolist() == [1, 0]
    assert build_vocabulary(list(reversed(docs)), min_count=2) == vocab  # order of documents is irrelevant
    with pytest.raises(KeyError, match="word 'c' is not in the vocabulary of 2 words"):
        vocab.index("c")


def test_bad_corpus_and_config_are_rejected():
    with pytest.raises(ValueError, match=r"documents must hold at least one token, got an empty corpus"):
        build_vocabulary([])
    with pytest.raises(ValueError, match=r"documents must hold at least one token"):
        train_sgns([[], []])
    with pytest.raises(ValueError, match=r"no word occurs at least min_count = 3 times \(the most frequent occurs 2"):
        build_vocabulary([["a", "a", "b"]], min_count=3)
    with pytest.raises(ValueError, match="documents must be a list of token lists, got a str"):
        build_vocabulary(["the cat sat"])
    with pytest.raises(ValueError, match=r"window\ must\ be\ an\ integer\ >=\ 1,\ got\ 0"):
        train_sgns([["a", "b"]], SGNSConfig(window=0, min_count=1))
    with pytest.raises(ValueError, match=r"lr\ must\ be\ a\ finite\ number\ >\ 0,\ got\ nan"):
        train_sgns([["a", "b"]], SGNSConfig(lr=float("nan"), min_count=1))
    with pytest.raises(ValueError, match=r"min_count\ must\ be\ an\ integer\ >=\ 1,\ got\ 0"):
        build_vocabulary([["a"]], min_count=0)


def test_bad_sgns_inputs_are_rejected():
    W = np.zeros((4, 3))
    with pytest.raises(ValueError, match=r"W_out must have shape \(V, d\) like W_in = \(4, 3\), got \(4, 2\)"):
        sgns_loss_and_grads(W, np.zeros((4, 2)), [0], [1], [[2]])
    with pytest.raises(ValueError, match=r"negatives must have shape \(B, K\) with B = 1, got \(2,\)"):
        sgns_loss_and_grads(W, W, [0], [1], [2, 3])
    with pytest.raises(ValueError, match=r"contexts must hold integer word indices in \[0, V\) = \[0, 4\)"):
        sgns_loss_and_grads(W, W, [0], [4], [[2]])
    with pytest.raises(ValueError, match=r"centers must be a non-empty 1-D index array, got shape \(0,\)"):
        sgns_loss_and_grads(W, W, [], [], np.zeros((0, 1), int))
    with pytest.raises(ValueError, match=r"W_in must be finite, got NaN or inf at index \(0, 0\)"):
        sgns_loss_and_grads(np.full((4, 3), np.nan), W, [0], [1], [[2]])


def topic_corpus(seed, n_docs=160, length=20):
    """Documents that each draw their words from one of two disjoint topics."""
    rng = np.random.default_rng(seed)
    topics = [[f"a{i}" for i in range(8)], [f"b{i}" for i in range(8)]]
    return [list(rng.choice(topics[t], size=length)) for t in rng.integers(0, 2, size=n_docs)]


def test_training_is_seeded_and_learns_which_words_share_contexts():
    docs = topic_corpus(0)
    cfg = SGNSConfig(dim=8, window=3, negatives=3, min_count=1, epochs=3, batch_size=64, subsample=1.0, seed=3)
    res = train_sgns(docs, cfg)
    again = train_sgns(docs, cfg)
    assert np.array_equal(res.W_in, again.W_in) and np.array_equal(res.losses, again.losses)
    assert not np.array_equal(res.W_in, train_sgns(docs, SGNSConfig(**{**cfg.__dict__, "seed": 4})).W_in)
    assert res.losses.shape == (res.steps_per_epoch.sum(),)
    assert np.isclose(res.losses[0], 4 * np.log(2), rtol=1e-6)  # W_out starts at zero: (K+1) log 2
    assert res.losses[-20:].mean() < 0.8 * res.losses[:20].mean()
    U = res.vectors().unit
    topic = np.array([w[0] for w in res.vocab.words])
    cos = U @ U.T
    same = cos[np.equal.outer(topic, topic) & ~np.eye(len(topic), dtype=bool)].mean()
    other = cos[~np.equal.outer(topic, topic)].mean()
    assert same > other + 0.3, (same, other)


# ------------------------------------------------------------------------------ one-hot, cosine


def test_one_hot_rows_are_orthonormal():
    X = one_hot([0, 3, 1], vocab_size=5)
    np.testing.assert_array_equal(X @ X.T, np.eye(3))
    assert cosine_similarity(X[0], X[1]) == 0.0
    with pytest.raises(ValueError, match=r"indices must lie in \[0, vocab_size\) = \[0, 5\), got values from 0 to 5"):
        one_hot([0, 5], 5)
    with pytest.raises(ValueError, match=r"indices must be a 1-D array of integers, got shape \(2,\) and dtype float64"):
        one_hot([0.0, 1.0], 5)


def test_cosine_rejects_zero_vectors_by_name():
    with pytest.raises(ValueError, match=r"^u is the zero vector"):
        cosine_similarity([0.0, 0.0, 0.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"^v is the zero vector"):
        cosine_similarity([1.0, 2.0, 3.0], np.zeros(3))
    with pytest.raises(ValueError, match=r"v must have shape \(d,\) like u = \(3,\), got \(2,\)"):
        cosine_similarity([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"u must be finite, got NaN or inf at index \(1,\)"):
        cosine_similarity([1.0, np.nan], [1.0, 2.0])


vec = arrays(np.float64, 5, elements=st.floats(-100, 100)).filter(lambda v: np.linalg.norm(v) > 1e-3)


@settings(max_examples=100, deadline=None)
@given(vec, vec, st.floats(0.01, 100))
def test_cosine_is_bounded_symmetric_and_scale_free(u, v, scale):
    c = cosine_similarity(u, v)
    assert -1.0 <= c <= 1.0
    assert c == pytest.approx(cosine_similarity(v, u), abs=1e-12)
    assert c == pytest.approx(cosine_similarity(scale * u, v), abs=1e-9)
    assert cosine_similarity(u, u) == pytest.approx(1.0, abs=1e-12)


# ------------------------------------------------------------------------------ GloVe


@pytest.fixture(scope="module")
def glove():
    return load_glove()


def test_load_glove_reads_the_wheel_once(glove):
    assert load_glove() is glove  # cached per process
    assert len(glove) == 400_000 and len(glove.words) == 400_000
    assert glove.vectors.shape == (400_000, 50) and glove.vectors.dtype == np.float32
    assert isinstance(glove.vectors, np.memmap)
    assert glove.words[:4] == ["the", ",", ".", "of"]
    assert glove.words[glove.index("king")] == "king" and glove.index("KING") == glove.index("king")
    np.testing.assert_allclose(np.linalg.norm(glove.unit[:1000], axis=1), 1.0, rtol=1e-5)


def test_unknown_words_raise_key_error_naming_them(glove):
    with pytest.raises(KeyError, match="word 'qzxwvkjhg' is not in the vocabulary of 400000 words"):
        glove.index("qzxwvkjhg")
    with pytest.raises(KeyError, match="qzxwvkjhg"):
        nearest(glove, "qzxwvkjhg")
    with pytest.raises(KeyError, match="qzxwvkjhg"):
        analogy(glove, "man", "woman", "qzxwvkjhg")


def test_king_minus_man_plus_woman_is_queen_at_rank_one(glove):
    top = analogy(glove, "man", "woman", "king", k=3)
    assert top[0][0] == "queen" and top[0][1] > top[1][1] > top[2][1]
    rank, cos = analogy_rank(glove, "man", "woman", "king", "queen")
    assert rank == 1 and cos == pytest.approx(top[0][1], abs=1e-6)
    assert analogy(glove, "Man", "WOMAN", "King")[0][0] == "queen"  # matched lower-case
    assert not {"man", "woman", "king"} & {w for w, _ in analogy(glove, "man", "woman", "king", k=50)}


def test_analogy_and_nearest_match_brute_force(glove):
    U = np.asarray(glove.vectors[:5000], dtype=np.float64)
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    target = U[glove.index("italy")] - U[glove.index("france")] + U[glove.index("paris")]
    scores = U @ target / np.linalg.norm(target)
    for w in ("france", "italy", "paris"):
        scores[glove.index(w)] = -np.inf
    best = np.argsort(-scores)[:5]
    got = analogy(glove, "france", "italy", "paris", k=5, restrict_vocab=5000)
    assert [w for w, _ in got] == [glove.words[i] for i in best]
    np.testing.assert_allclose([c for _, c in got], scores[best], atol=1e-5)

    near = nearest(glove, "frog", k=5, restrict_vocab=20000)
    assert "frog" not in [w for w, _ in near] and all(a[1] >= b[1] for a, b in zip(near, near[1:]))
    by_vector = nearest(glove, glove["frog"], k=6, restrict_vocab=20000)
    assert by_vector[0][0] == "frog" and by_vector[0][1] == pytest.approx(1.0, abs=1e-5)
    assert [w for w, _ in by_vector[1:]] == [w for w, _ in near]


def test_restrict_vocab_searches_only_the_most_frequent_words(glove):
    near = nearest(glove, "cat", k=10, restrict_vocab=1000)
    assert all(glove.index(w) < 1000 for w, _ in near)
    with pytest.raises(ValueError, match="restrict_vocab must be a positive integer or None, got 0"):
        nearest(glove, "cat", restrict_vocab=0)
    with pytest.raises(KeyError, match="not among the restrict_vocab = 100 words searched"):
        analogy_rank(glove, "man", "woman", "king", "queen", restrict_vocab=100)


def test_nearest_rejects_bad_vectors(glove):
    with pytest.raises(ValueError, match="word_or_vector is the zero vector"):
        nearest(glove, np.zeros(50))
    with pytest.raises(ValueError, match=r"word_or_vector must have shape \(d,\) = \(50,\), got \(3,\)"):
        nearest(glove, np.ones(3))
    with pytest.raises(ValueError, match="word_or_vector must be finite"):
        nearest(glove, np.full(50, np.nan))
    with pytest.raises(ValueError, match="k must be a positive integer, got 0"):
        nearest(glove, "cat", k=0)


def test_analogy_accuracy_agrees_with_analogy_one_question_at_a_time(glove):
    questions = analogy_questions()["family"][:40] + (("man", "woman", "qzxwvkjhg", "queen"),)
    score = analogy_accuracy(glove, questions, restrict_vocab=20000, batch_size=7)
    answerable = [q for q in questions if all(w in glove and glove.index(w) < 20000 for w in q)]
    correct = sum(analogy(glove, a, b, c, restrict_vocab=20000)[0][0] == d for a, b, c, d in answerable)
    assert (score.correct, score.answered, score.skipped) == (correct, len(answerable), len(questions) - len(answerable))
    assert 0 < score.accuracy < 1


def test_word_vectors_rejects_mismatched_input():
    with pytest.raises(ValueError, match=r"vectors must have one row per word: 3 words, got shape \(2, 2\)"):
        WordVectors(["a", "b", "c"], np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"vectors must be a 2-D float array \(n, d\), got shape \(2,\)"):
        WordVectors(["a", "b"], np.zeros(2))
    with pytest.raises(ValueError, match="words must not be empty"):
        WordVectors([], np.zeros((0, 2)))


# ------------------------------------------------------------------------------ corpus


def test_wikipedia_sample_is_real_text_without_markup():
    articles = wikipedia_articles()
    titles = [t for t, _ in articles]
    assert len(articles) == 106 and titles[:3] == ["Anarchism", "Autism", "Albedo"]
    text = " ".join(body for _, body in articles)
    assert "{{" not in text and "[[" not in text and "<ref" not in text
    assert len(tokenize(text)) > 400_000


def test_markup_stripping_handles_nesting():
    assert strip_wiki_markup("a{{b|{{c}}|d}}e") == "ae"
    assert strip_wiki_markup("x [[File:a.png|thumb|a [[link]] here]] y") == "x  y"
    assert strip_wiki_markup("[[Paris]] and [[France|the country]]") == "Paris and the country"
    assert tokenize("") == []


def test_math_and_code_are_removed_before_templates():
    """Braces in LaTeX or code never open a template: the element goes, with its content, first."""
    assert strip_wiki_markup("so <math>x = {{a}+b}</math> holds{{cn}}, and more.") == "so  holds, and more."
    assert strip_wiki_markup('a <math display="block">\\frac{{1}}{2}</math> b') == "a  b"
    assert strip_wiki_markup("a <MATH>{{</MATH> b <chem>{{</chem> c <ce>{{x}</ce> d") == "a  b  c  d"
    assert strip_wiki_markup('x <source lang="c">int f() {{ return 0; }</source> y') == "x  y"
    assert strip_wiki_markup("<center>a</center> <math>b</math>") == "a "  # <center> is not <ce>


def test_unclosed_template_is_kept_as_text_with_the_rest():
    assert strip_wiki_markup("a {{b|c [[d|e]] f") == "a {{b|c e f"
    assert strip_wiki_markup("a {{b}} {{c {{d}} e") == "a  {{c  e"


def test_acid_is_read_to_its_end():
    """The LaTeX "{{" in Acid's formulas used to drop the article's last 14,263 characters."""
    acid = dict(wikipedia_articles())["Acid"]
    assert "\\alpha" not in acid and "==External links==" in acid
    assert "Nucleic acids" in acid and len(acid) > 28_000


# ------------------------------------------------------------------------------ the built chapter


def test_embeddings_chapter_shows_its_numbers(site):
    """The chapter's figures are checked with every other chapter's in tests/test_site.py."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((site / "embeddings.html").read_text(), "html.parser")
    body = " ".join(soup.find("main").get_text(" ").split())
    assert "{glue" not in body, "a glue role was not resolved"
    assert "Queen comes out at rank 1 ," in body


def test_one_hot_of_no_indices_is_no_rows():
    from seqmodels.common.vectors import one_hot

    assert one_hot([], 3).shape == (0, 3)
    assert one_hot(np.array([], dtype=int), 5).shape == (0, 5)
