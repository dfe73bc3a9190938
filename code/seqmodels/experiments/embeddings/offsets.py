r"""Relations as offsets: how consistently the pairs of one relation point the same way.

For pairs ``(a_i, b_i)`` of a relation (man -> woman, france -> paris) with unit vectors
``a^_i``, ``b^_i``, the offsets are ``o_i = b^_i - a^_i`` and their consistency is the mean cosine
over all pairs of offsets::

    C = mean_{i < j} cos(o_i, o_j)                                   (mean_offset_cosine)

A control must keep everything but the relation. Random pairs of words give ``C`` near 0 by
construction (an offset and its reverse are equally likely); the **mispaired** control keeps the
same words and pairs them wrongly, ``o_i^(s) = b^_{i+s} - a^_i`` for a shift ``s``, so it keeps the
step from one word class to the other (countries to cities) and drops only the right pairing.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from seqmodels.common._checks import as_float_array, check_shape
from seqmodels.common.vectors import WordVectors


def mean_offset_cosine(offsets) -> float:
    """``C``: the mean cosine over all pairs of rows of ``offsets``, shape ``(n, d)`` with n >= 2.

    Raises
    ------
    ValueError
        ``offsets`` not a finite 2-D array with at least 2 rows, or holding a zero row (it has
        no direction).

    >>> mean_offset_cosine(np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]))   # (0.71 + 0 + 0.71) / 3
    0.4714...
    """
    offsets = as_float_array("offsets", offsets, ndims=(2,))
    if offsets.shape[0] < 2:
        raise ValueError(f"offsets must have at least 2 rows, got shape {offsets.shape}")
    norms = np.linalg.norm(offsets, axis=1, keepdims=True)  # (n, 1)
    if not norms.all():
        raise ValueError(f"offsets row {int(np.argmin(norms[:, 0]))} is zero: it has no direction")
    unit = offsets / norms
    return float((unit @ unit.T)[np.triu_indices(len(unit), k=1)].mean())


def relation_pairs(emb: WordVectors, questions: Sequence[tuple[str, str, str, str]]) -> list[tuple[str, str]]:
    """The distinct pairs ``(a, b)`` and ``(c, d)`` of analogy questions whose two words ``emb``
    knows, sorted.

    Raises ``ValueError`` for ``emb`` that is not :class:`~seqmodels.common.vectors.WordVectors` or a question that is not
    four words.

    >>> emb = WordVectors(["a", "b", "c", "d"], np.eye(4))
    >>> relation_pairs(emb, [("a", "b", "c", "d"), ("c", "d", "x", "y")])
    [('a', 'b'), ('c', 'd')]
    """
    if not isinstance(emb, WordVectors):
        raise ValueError(f"emb must be WordVectors, got {type(emb).__name__}")
    pairs = set()
    for q in questions:
        if isinstance(q, str) or len(q) != 4 or not all(isinstance(w, str) for w in q):
            raise ValueError(f"questions must be 4-tuples of words (a, b, c, d), got {q!r}")
        for a, b in (q[:2], q[2:]):
            if a in emb and b in emb:
                pairs.add((a, b))
    return sorted(pairs)


def pair_vectors(emb: WordVectors, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
    """Unit vectors of the paired words in float64, shape ``(n, 2, d)``: ``[i, 0]`` is ``a^_i``,
    ``[i, 1]`` is ``b^_i``.

    Raises ``KeyError`` for a word ``emb`` does not know, ``ValueError`` for a pair that is not
    two words.
    """
    if not isinstance(emb, WordVectors):
        raise ValueError(f"emb must be WordVectors, got {type(emb).__name__}")
    rows = []
    for p in pairs:
        if isinstance(p, str) or len(p) != 2:
            raise ValueError(f"pairs must hold (a, b) pairs of words, got {p!r}")
        rows.append([emb.index(w) for w in p])
    return np.asarray(emb.unit, dtype=np.float64)[np.array(rows, dtype=np.int64)]  # (n, 2, d)


def mispaired_offset_cosines(vecs, pairs: Sequence[tuple[str, str]] | None = None) -> np.ndarray:
    """``C`` of the same words wrongly paired, one value per shift ``s = 1 .. n-1``, shape ``(n-1,)``.

    Shift ``s`` pairs ``a_i`` with ``b_{(i+s) mod n}``: offsets ``b^_{i+s} - a^_i``. When ``pairs``
    names the words, a shifted pairing that is itself a right pair (a capital shared by two
    questions, a currency used by several countries) or joins a word to itself is left out of
    that shift's offsets, so the control holds wrong pairings only.

    Parameters
    ----------
    vecs : ndarray of shape (n, 2, d), as :func:`pair_vectors` returns, n >= 3
    pairs : the n word pairs of ``vecs``, or None to keep every shifted pairing

    Raises
    ------
    ValueError
        ``vecs`` not a finite ``(n, 2, d)`` array with n >= 3; ``pairs`` not n pairs.

    >>> e = np.eye(4)
    >>> v = np.array([[e[i], e[i] + e[3]] for i in range(3)])   # offsets e_{i+s} - e_i + e_3
    >>> mispaired_offset_cosines(v).round(12) + 0.0
    array([0., 0.])
    """
    vecs = as_float_array("vecs", vecs, ndims=(3,))
    n = vecs.shape[0]
    if n < 3 or vecs.shape[1] != 2:
        raise ValueError(f"vecs must have shape (n, 2, d) with n >= 3, got {vecs.shape}")
    if pairs is not None:
        pairs = [tuple(p) for p in pairs]
        if len(pairs) != n:
            raise ValueError(f"pairs must name the {n} pairs of vecs, got {len(pairs)}")
        right = set(pairs)
    out = []
    for s in range(1, n):
        j = (np.arange(n) + s) % n  # (n,) b of pair i + s
        ok = np.ones(n, dtype=bool)
        if pairs is not None:
            ok = np.array([(pairs[i][0], pairs[j[i]][1]) not in right and pairs[i][0] != pairs[j[i]][1]
                           for i in range(n)])
        offsets = vecs[j, 1] - vecs[:, 0]  # (n, d)
        out.append(mean_offset_cosine(offsets[ok]) if ok.sum() >= 2 else np.nan)
    return np.array(out)


def offset_gain(vecs, pairs: Sequence[tuple[str, str]] | None = None) -> tuple[float, float, float]:
    """``(right, mispaired, share)``: ``C`` of the right pairing, the mean ``C`` over the shifts of
    :func:`mispaired_offset_cosines`, and the share of shifts whose ``C`` reaches the right
    pairing's (a permutation p-value over the n - 1 shifts; 0 when the right pairing beats all).

    Raises ``ValueError`` as :func:`mispaired_offset_cosines` does.

    Three pairs ``(e_i, e_i + e_3)`` share one offset exactly; shifted, they share nothing:

    >>> e = np.eye(4)
    >>> v = np.array([[e[i], e[i] + e[3]] for i in range(3)])
    >>> [round(x, 2) + 0.0 for x in offset_gain(v)]
    [1.0, 0.0, 0.0]
    """
    vecs = as_float_array("vecs", vecs, ndims=(3,))
    check_shape("vecs", vecs, (vecs.shape[0], 2, vecs.shape[2]), "(n, 2, d)")
    right = mean_offset_cosine(vecs[:, 1] - vecs[:, 0])
    wrong = mispaired_offset_cosines(vecs, pairs)
    wrong = wrong[np.isfinite(wrong)]
    return right, float(wrong.mean()), float((wrong >= right).mean())
