"""seqmodels.diagrams: what each diagram draws, and bad input."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from seqmodels.diagrams import SHAPES, draw_folded_and_unrolled, draw_unrolled  # noqa: E402


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
