"""seqmodels.display.diagrams: what each diagram draws, and bad input."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from seqmodels.display.diagrams import SHAPES, draw_folded_and_unrolled, draw_unrolled  # noqa: E402


@pytest.mark.parametrize("shape,T,cells", [("many_to_one", 4, 4), ("many_to_many", 3, 3), ("seq2seq", 4, 7)])
def test_cell_counts_and_outputs(shape, T, cells):
    fig, ax = plt.subplots()
    assert draw_unrolled(ax, shape, T) == cells
    outputs = [t.get_text() for t in ax.texts if t.get_text().startswith("$y")]
    expected = {"many_to_one": 1, "many_to_many": T, "seq2seq": T - 1}[shape]
    assert len(outputs) - (T - 2 if shape == "seq2seq" else 0) == expected
    plt.close(fig)


def test_folded_and_unrolled_labels_every_step_with_the_same_weights():
    fig, ax = plt.subplots()
    assert draw_folded_and_unrolled(ax, 5) == 5
    labels = [t.get_text() for t in ax.texts]
    assert labels.count("$W_h$") == 1 + 5 and labels.count("$W_x$") == 1 + 5
    plt.close(fig)


def test_bad_input():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="shape"):
        draw_unrolled(ax, "one_to_many")
    with pytest.raises(ValueError, match="T"):
        draw_unrolled(ax, SHAPES[0], T=1)
    with pytest.raises(ValueError, match="T"):
        draw_folded_and_unrolled(ax, T=1.5)
    plt.close(fig)


# --- the skip-gram window ----------------------------------------------------------------------

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from seqmodels.display.diagrams import draw_skipgram_window, window_pairs  # noqa: E402
from seqmodels.models.word2vec import skipgram_pairs  # noqa: E402

SENTENCE = "for instance the word bank has several distinct lexical definitions".split()


@given(n=st.integers(1, 30), data=st.data(), window=st.integers(1, 8))
@settings(max_examples=60, deadline=None)
def test_window_pairs_are_the_words_within_the_window(n, data, window):
    centre = data.draw(st.integers(0, n - 1))
    tokens = [f"w{j}" for j in range(n)]
    pairs = window_pairs(tokens, centre, window)
    assert len(pairs) == min(centre, window) + min(n - 1 - centre, window)
    assert all(c == tokens[centre] for c, _ in pairs)
    assert [int(o[1:]) for _, o in pairs] == [j for j in range(n) if 1 <= abs(j - centre) <= window]


def test_window_pairs_are_skipgram_pairs_at_the_full_window():
    """skipgram_pairs shrinks each window at random; over many draws its pairs for one centre are
    exactly the figure's, and never more."""
    ids = np.arange(len(SENTENCE))
    seen = set()
    for seed in range(60):
        c, o = skipgram_pairs([ids], window=3, rng=np.random.default_rng(seed))
        seen |= {(SENTENCE[a], SENTENCE[b]) for a, b in zip(c, o) if a == 4}
    assert seen == set(window_pairs(SENTENCE, 4, 3))


def test_draw_skipgram_window_returns_and_lists_its_pairs():
    fig, ax = plt.subplots(figsize=(4.2, 2.4))
    pairs = draw_skipgram_window(ax, SENTENCE, 4, 2)
    assert pairs == [("bank", "the"), ("bank", "word"), ("bank", "has"), ("bank", "several")]
    texts = [t.get_text() for t in ax.texts]
    assert all(word in texts for word in SENTENCE)
    assert all(f"({c}, {o})" in texts for c, o in pairs)
    assert "window: 2 words each side of the centre" in texts
    assert all(t.get_fontsize() == 9.0 for t in ax.texts)  # 9 px or more at a 342 px column for 4.2 in
    plt.close(fig)


def test_draw_skipgram_window_wraps_rows_to_the_axes():
    """A narrower figure needs more rows: the lowest word box sits lower."""
    lows = []
    for width in (6.0, 3.0):
        fig, ax = plt.subplots(figsize=(width, 2.4))
        draw_skipgram_window(ax, SENTENCE, 4, 2)
        lows.append(min(p.get_y() for p in ax.patches))
        plt.close(fig)
    assert lows[1] < lows[0]


def test_skipgram_window_bad_input():
    fig, ax = plt.subplots(figsize=(4.2, 2.4))
    with pytest.raises(ValueError, match="tokens"):
        window_pairs("bank", 0, 2)
    with pytest.raises(ValueError, match="tokens"):
        window_pairs([], 0, 2)
    with pytest.raises(ValueError, match="tokens"):
        window_pairs(["a", ""], 0, 2)
    with pytest.raises(ValueError, match="centre"):
        window_pairs(SENTENCE, len(SENTENCE), 2)
    with pytest.raises(ValueError, match="centre"):
        window_pairs(SENTENCE, -1, 2)
    with pytest.raises(ValueError, match="window"):
        window_pairs(SENTENCE, 0, 0)
    with pytest.raises(ValueError, match="ax"):
        draw_skipgram_window(None, SENTENCE, 0, 2)
    with pytest.raises(ValueError, match="fontsize"):
        draw_skipgram_window(ax, SENTENCE, 0, 2, fontsize=0)
    with pytest.raises(ValueError, match="fontsize"):
        draw_skipgram_window(ax, ["a" * 200], 0, 2)
    plt.close(fig)


from seqmodels.display.diagrams import draw_pmi_factorisation  # noqa: E402


def test_draw_pmi_factorisation_labels_its_three_blocks():
    width = 4.2
    fig, ax = plt.subplots(figsize=(width, 2.3))
    blocks = draw_pmi_factorisation(ax)
    assert blocks == {"shifted PMI": ("V", "V"), "W_out": ("V", "d"), "W_in^T": ("d", "V")}
    texts = [t.get_text() for t in ax.texts]
    for label in ("shifted PMI", r"$V \times V$", r"$V \times d$", r"$d \times V$", r"$u_o \cdot v_c$"):
        assert label in texts
    assert min(t.get_fontsize() for t in ax.texts) >= 1.9 * width  # 9 px or more at a 342 px column
    # the table is square, W_out tall and thin, W_in^T short and wide
    (table, w_out, w_in_t) = [p for p in ax.patches if p.get_facecolor()[3] == 0][:3]
    assert table.get_width() == table.get_height()
    assert w_out.get_height() == table.get_height() and w_out.get_width() < table.get_width() / 2
    assert w_in_t.get_width() == table.get_width() and w_in_t.get_height() == w_out.get_width()
    plt.close(fig)


def test_draw_pmi_factorisation_bad_input():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="ax"):
        draw_pmi_factorisation(None)
    with pytest.raises(ValueError, match="fontsize"):
        draw_pmi_factorisation(ax, fontsize=float("nan"))
    with pytest.raises(ValueError, match="thin"):
        draw_pmi_factorisation(ax, thin=0.8)
    with pytest.raises(ValueError, match="thin"):
        draw_pmi_factorisation(ax, thin=0)
    plt.close(fig)
