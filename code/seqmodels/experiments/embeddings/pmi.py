r"""Skip-gram with negative sampling as implicit shifted-PMI factorisation (Levy & Goldberg 2014).

With ``#(c, o)`` the number of times the pair (centre ``c``, context ``o``) is trained on,
``#(c) = sum_o #(c, o)`` and ``P_n`` the distribution negatives are drawn from, SGNS with enough
dimensions reaches its optimum at::

    u_o . v_c = log( #(c, o) / (#(c) K P_n(o)) )                                  (optimum)

which is ``PMI(c, o) - log K`` when ``P_n`` is the unigram distribution of the contexts. This module
counts the pairs as training draws them (:func:`pair_counts`), computes that optimum
(:func:`sgns_optimum`) and the trained scores (:func:`pair_scores`), and compares the two after word
frequency is taken out: a straight-line fit on the two words' log counts
(:func:`without_log_counts`) or one fixed effect per centre word and per context word
(:func:`without_words`, with its residual degrees of freedom from :func:`fixed_effect_dof`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from seqmodels.common._checks import as_float_array, as_ids, as_rng, check_shape, finite_float, positive_int
from seqmodels.models.word2vec import skipgram_pairs


@dataclass(frozen=True)
class PairCounts:
    """Sparse pair counts over a vocabulary of ``V`` words.

    centres, contexts : int ndarray of shape (P,), the distinct pairs drawn
    counts : ndarray of shape (P,), ``#(c, o)``: times drawn, averaged over the draws
    centre_totals : ndarray of shape (V,), ``#(c) = sum_o #(c, o)``
    draws : int, how many independent draws the counts average

    Raises
    ------
    ValueError
        ``centres``, ``contexts`` not ids of one shape ``(P,)``; ``counts`` not a finite ``(P,)``
        vector; ``centre_totals`` not a finite 1-D vector covering the centres; ``draws`` not an
        integer >= 1.
    """

    centres: np.ndarray
    contexts: np.ndarray
    counts: np.ndarray
    centre_totals: np.ndarray
    draws: int

    def __post_init__(self):
        """Raises ``ValueError`` for arrays of mismatched shapes or a ``draws`` below 1."""
        c = as_ids("centres", self.centres, np.iinfo(np.int64).max)
        o = as_ids("contexts", self.contexts, np.iinfo(np.int64).max)
        check_shape("contexts", o, c.shape, "(P,) like centres")
        counts = as_float_array("counts", self.counts, ndims=(1,))
        check_shape("counts", counts, c.shape, "(P,) like centres")
        totals = as_float_array("centre_totals", self.centre_totals, ndims=(1,))
        if c.size and c.max() >= totals.size:
            raise ValueError(f"centre_totals must cover every centre id, got {totals.size} entries for id {c.max()}")
        positive_int("draws", self.draws)

    def at_least(self, threshold: float) -> np.ndarray:
        """Boolean mask ``(P,)`` of the pairs counted at least ``threshold`` times (per draw).

        Raises ``ValueError`` for a ``threshold`` that is not a finite number > 0.
        """
        threshold = finite_float("threshold", threshold, low=0, low_open=True)
        return self.counts >= threshold


def pair_counts(encoded: Sequence[np.ndarray], keep, window: int, epochs: int, rng,
                draws: int = 1) -> PairCounts:
    """Count the (centre, context) pairs that ``epochs`` passes of training draw, as training
    draws them: every occurrence kept with probability ``keep[w]`` (subsampling), then every pair
    within a random window of up to ``window`` words (:func:`seqmodels.models.word2vec.skipgram_pairs`).

    With ``draws > 1`` the whole draw (``epochs`` passes) is repeated with fresh randomness and
    the counts are averaged: ``counts = (1/draws) sum_r #_r(c, o)``, which shrinks the noise of
    subsampling and windows by about ``1/sqrt(draws)`` while keeping their expected value.

    Parameters
    ----------
    encoded : list of int ndarray, one ``(n_d,)`` array of word ids per document
    keep : ndarray of shape (V,), keep probabilities in [0, 1]
    window, epochs, draws : int >= 1
    rng : numpy Generator or int seed

    Returns
    -------
    PairCounts

    Raises
    ------
    ValueError
        ``keep`` not a 1-D array of probabilities; ``window``, ``epochs`` or ``draws`` not an
        integer >= 1; ``rng`` not a Generator or seed; a document not 1-D ids in ``[0, V)``.

    >>> docs = [np.array([0, 1, 2])]
    >>> pc = pair_counts(docs, np.ones(3), window=1, epochs=2, rng=0)
    >>> pc.centres.tolist(), pc.contexts.tolist(), pc.counts.tolist(), pc.centre_totals.tolist()
    ([0, 1, 1, 2], [1, 0, 2, 1], [2.0, 2.0, 2.0, 2.0], [2.0, 4.0, 2.0])
    """
    keep = as_float_array("keep", keep, ndims=(1,))
    if keep.size == 0 or keep.min() < 0 or keep.max() > 1:
        raise ValueError(f"keep must be a non-empty vector of probabilities in [0, 1], got shape {keep.shape}")
    V = keep.size
    window = positive_int("window", window)
    epochs = positive_int("epochs", epochs)
    draws = positive_int("draws", draws)
    rng = as_rng("rng", rng)
    encoded = [as_ids(f"encoded[{i}]", d, V, what="word ids") for i, d in enumerate(encoded)]
    codes = []
    for _ in range(draws * epochs):
        kept = [ids[rng.random(ids.size) < keep[ids]] for ids in encoded]
        centres, contexts = skipgram_pairs(kept, window, rng)
        codes.append(centres * V + contexts)  # (n_pairs,) one code per pair
    distinct, n = np.unique(np.concatenate(codes), return_counts=True)
    centres, contexts = np.divmod(distinct, V)
    counts = n / draws
    totals = np.bincount(centres, weights=counts, minlength=V)  # (V,) #(c)
    return PairCounts(centres, contexts, counts, totals, draws)


def sgns_optimum(counts, centre_totals, noise, negatives: int) -> np.ndarray:
    """The SGNS optimum of every pair, ``log(#(c, o) / (#(c) K P_n(o)))``, shape ``(P,)``.

    Parameters
    ----------
    counts : ndarray of shape (P,), ``#(c, o)`` of each pair
    centre_totals : ndarray of shape (P,), ``#(c)`` of each pair's centre word
    noise : ndarray of shape (P,), ``P_n(o)`` of each pair's context word
    negatives : int, ``K``

    Raises
    ------
    ValueError
        the three arrays not positive, finite and of one shape ``(P,)``; ``negatives`` not an
        integer >= 1.

    >>> sgns_optimum([4.0], [10.0], [0.1], negatives=2)   # log(4 / (10 * 2 * 0.1)) = log 2
    array([0.693...])
    """
    counts = as_float_array("counts", counts, ndims=(1,))
    centre_totals = as_float_array("centre_totals", centre_totals, ndims=(1,))
    noise = as_float_array("noise", noise, ndims=(1,))
    check_shape("centre_totals", centre_totals, counts.shape, "(P,) like counts")
    check_shape("noise", noise, counts.shape, "(P,) like counts")
    for name, a in (("counts", counts), ("centre_totals", centre_totals), ("noise", noise)):
        if a.size and a.min() <= 0:
            raise ValueError(f"{name} must be positive, got minimum {a.min()}")
    negatives = positive_int("negatives", negatives)
    return np.log(counts) - np.log(centre_totals) - np.log(negatives * noise)


def pair_scores(W_in, W_out, centres, contexts) -> np.ndarray:
    """The trained scores ``u_o . v_c = W_out[o] . W_in[c]`` of every pair, in float64, shape ``(P,)``.

    Raises
    ------
    ValueError
        ``W_in``, ``W_out`` not finite ``(V, d)`` arrays of one shape; ``centres``, ``contexts`` not
        ``(P,)`` ids in ``[0, V)``.
    """
    W_in = as_float_array("W_in", W_in, ndims=(2,))
    W_out = as_float_array("W_out", W_out, ndims=(2,))
    check_shape("W_out", W_out, W_in.shape, "(V, d) like W_in")
    c = as_ids("centres", centres, W_in.shape[0])
    o = as_ids("contexts", contexts, W_in.shape[0])
    check_shape("contexts", o, c.shape, "(P,) like centres")
    return np.einsum("pd,pd->p", W_out[o].astype(np.float64), W_in[c].astype(np.float64))  # (P,)


def _groups(c, o, y):
    y = as_float_array("y", y, ndims=(1,))
    c = as_ids("centres", c, np.iinfo(np.int64).max)
    o = as_ids("contexts", o, np.iinfo(np.int64).max)
    check_shape("centres", c, y.shape, "(P,) like y")
    check_shape("contexts", o, y.shape, "(P,) like y")
    if y.size < 2:
        raise ValueError(f"y must hold at least 2 pairs, got {y.size}")
    return y, c, o


def without_log_counts(y, centres, contexts, log_count) -> np.ndarray:
    """``y`` minus its least-squares fit on ``[1, log count(o), log count(c)]``, shape ``(P,)``.

    A straight line in the two words' log counts: it removes the part of ``y`` that is linear in
    them, not every function of frequency (:func:`without_words` does that).

    Raises
    ------
    ValueError
        ``y``, ``centres``, ``contexts`` not of one shape ``(P,)`` with ``P >= 2``; ``log_count``
        not a finite ``(V,)`` vector covering the ids.

    >>> y = np.log([1.0, 2.0, 4.0, 8.0])
    >>> without_log_counts(y, [0, 0, 1, 1], [0, 1, 0, 1], np.log([1.0, 2.0])).round(12) + 0.0
    array([0., 0., 0., 0.])
    """
    y, c, o = _groups(centres, contexts, y)
    log_count = as_float_array("log_count", log_count, ndims=(1,))
    if max(c.max(), o.max()) >= log_count.size:
        raise ValueError(f"log_count must cover every id, got {log_count.size} entries for id {max(c.max(), o.max())}")
    X = np.column_stack([np.ones(y.size), log_count[o], log_count[c]])  # (P, 3)
    return y - X @ np.linalg.lstsq(X, y, rcond=None)[0]


def without_words(y, centres, contexts, tol: float = 1e-9, max_sweeps: int = 2000) -> np.ndarray:
    """``y`` minus its least-squares fit on one indicator per centre word and one per context word.

    The two-way fixed-effects residual ``y_co - a_c - b_o`` (the ``a``, ``b`` that minimise its
    sum of squares), found by alternating projections: subtract each centre word's mean, then each
    context word's, until a sweep changes nothing by more than ``tol * max|y|``. It absorbs any
    function of either word's frequency. Shape ``(P,)``.

    Raises
    ------
    ValueError
        ``y``, ``centres``, ``contexts`` not of one shape ``(P,)`` with ``P >= 2``; ``tol`` not a
        number > 0; ``max_sweeps`` not an integer >= 1.
    RuntimeError
        no convergence within ``max_sweeps``.

    >>> y = np.array([1.0, 2.0, 11.0, 12.0])   # a_c + b_o exactly: nothing is left
    >>> bool(np.abs(without_words(y, [0, 0, 1, 1], [0, 1, 0, 1])).max() < 1e-9)
    True
    """
    y, c, o = _groups(centres, contexts, y)
    tol = finite_float("tol", tol, low=0, low_open=True)
    max_sweeps = positive_int("max_sweeps", max_sweeps)
    groups = [(g, np.bincount(g)) for g in (c, o)]
    r = y - y.mean()
    scale = max(np.abs(y).max(), 1e-300)
    for _ in range(max_sweeps):
        before = r
        for g, n in groups:
            means = np.bincount(g, weights=r, minlength=n.size) / np.maximum(n, 1)
            r = r - means[g]
        if np.abs(r - before).max() < tol * scale:
            return r
    raise RuntimeError(f"the two-way demeaning did not converge in max_sweeps = {max_sweeps} sweeps")


def fixed_effect_dof(centres, contexts) -> tuple[int, int]:
    """``(pairs, residual degrees of freedom)`` of the two-way fixed-effects fit.

    The fit has one parameter per distinct centre word and per distinct context word, less one per
    connected component of the bipartite graph of pairs (a constant can move between the two
    sides of each component): ``dof = P - (n_centres + n_contexts - components)``.

    Raises ``ValueError`` for ``centres``, ``contexts`` that are not ids of one shape ``(P,)``.

    >>> fixed_effect_dof([0, 0, 1, 1], [0, 1, 0, 1])   # 2 x 2 table: 4 cells, 3 parameters
    (4, 1)
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    c = as_ids("centres", centres, np.iinfo(np.int64).max)
    o = as_ids("contexts", contexts, np.iinfo(np.int64).max)
    check_shape("contexts", o, c.shape, "(P,) like centres")
    _, ci = np.unique(c, return_inverse=True)
    _, oi = np.unique(o, return_inverse=True)
    nc, no = int(ci.max()) + 1, int(oi.max()) + 1
    graph = coo_matrix((np.ones(c.size), (ci, nc + oi)), shape=(nc + no, nc + no))
    components = connected_components(graph, directed=False)[0]
    return int(c.size), int(c.size - (nc + no - components))


def partial_correlation(a, b, centres, contexts, remove) -> float:
    """Pearson correlation of ``a`` and ``b`` after ``remove`` took frequency out of both.

    ``remove(y, centres, contexts)`` returns a residual of shape ``(P,)`` (:func:`without_words`,
    or a :func:`without_log_counts` with its ``log_count`` bound).

    Raises ``ValueError`` when ``remove`` is not callable or a residual is constant (the
    correlation is undefined).
    """
    if not callable(remove):
        raise ValueError(f"remove must be a function (y, centres, contexts) -> residual, got {type(remove).__name__}")
    ra, rb = remove(a, centres, contexts), remove(b, centres, contexts)
    if np.ptp(ra) == 0 or np.ptp(rb) == 0:
        raise ValueError("a residual of a or b is constant: the correlation is undefined")
    return float(np.corrcoef(ra, rb)[0, 1])


def shuffled_scores(W_in, W_out, centres, contexts, rng) -> np.ndarray:
    """The null's scores: ``W_out[o] . W_in[perm[c]]`` with the centre vectors handed to the
    words in a random order ``perm`` (frequency, the pairs and the context vectors untouched).
    Shape ``(P,)``.

    Raises ``ValueError`` as :func:`pair_scores` does, or for an ``rng`` that is not a Generator
    or seed.
    """
    rng = as_rng("rng", rng)
    W_in = as_float_array("W_in", W_in, ndims=(2,))
    perm = rng.permutation(W_in.shape[0])
    return pair_scores(W_in[perm], W_out, centres, contexts)
