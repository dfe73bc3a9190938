r"""Skip-gram with negative sampling (SGNS, Mikolov et al. 2013): the word2vec trainer.

Every word ``w`` has an input vector ``W_in[w]`` and an output vector ``W_out[w]``, both of length
``d`` (the word2vec names: ``W_in`` rows are the word vectors, ``W_out`` rows the context vectors;
neither is a read-out in the sense of :mod:`seqmodels.training.train`). For a centre word ``c``, an observed
context word ``o`` and ``K`` negative words ``n_1..n_K`` drawn from the unigram distribution raised
to the power 3/4, the loss of one pair is::

    l(c, o) = -log sigma(W_out[o] . W_in[c]) - sum_k log sigma(-W_out[n_k] . W_in[c])

and its gradients, with ``s_pos = W_out[o] . W_in[c]`` and ``s_neg_k = W_out[n_k] . W_in[c]``::

    dl/ds_pos   = sigma(s_pos) - 1            (g_pos)
    dl/ds_neg_k = sigma(s_neg_k)              (g_neg)
    dl/dW_in[c]   = g_pos W_out[o] + sum_k g_neg_k W_out[n_k]
    dl/dW_out[o]  = g_pos W_in[c]
    dl/dW_out[n_k] = g_neg_k W_in[c]

Training visits every (centre, context) pair inside a window around each word of the corpus,
after frequent words have been randomly dropped (subsampling), in shuffled minibatches. The
trained vectors are searched with :mod:`seqmodels.common.vectors`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from seqmodels.common._checks import as_float_array, as_ids, as_rng, check_shape, finite_float, positive_int
from seqmodels.common.numeric import log_sigmoid
from seqmodels.common.vectors import WordVectors

# --- vocabulary, subsampling, negative table, training pairs ----------------------------------


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """Words kept for training, most frequent first (ties in alphabetical order).

    Attributes
    ----------
    words : tuple of str, length V
    counts : ndarray of shape (V,), how often each word occurs in the corpus

    Raises
    ------
    ValueError
        ``words`` not distinct str; ``counts`` not one integer >= 1 per word.
    """

    words: tuple[str, ...]
    counts: np.ndarray
    _ids: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        """Raises ``ValueError`` for words that are not distinct str or counts that are not one
        positive integer per word."""
        words = tuple(self.words)
        if not all(isinstance(w, str) for w in words):
            raise ValueError(f"words must all be str, got {sorted({type(w).__name__ for w in words})}")
        if len(set(words)) != len(words):
            raise ValueError(f"words must be distinct, got {len(words) - len(set(words))} repeated")
        counts = np.asarray(self.counts)
        if counts.shape != (len(words),) or counts.dtype.kind not in "iu" or (counts.size and counts.min() < 1):
            raise ValueError(f"counts must be {len(words)} positive integers, one per word, got {counts.dtype} {counts.shape}")
        object.__setattr__(self, "words", words)
        object.__setattr__(self, "_ids", {w: i for i, w in enumerate(words)})

    def __len__(self) -> int:
        return len(self.words)

    def __eq__(self, other) -> bool:
        return isinstance(other, Vocabulary) and self.words == other.words \
            and np.array_equal(self.counts, other.counts)

    def __contains__(self, word) -> bool:
        return word in self._ids

    def index(self, word: str) -> int:
        """Row of ``word``; ``KeyError`` naming it when it is not in the vocabulary.

        Raises
        ------
        ValueError
            ``word`` not a str.
        KeyError
            ``word`` not in the vocabulary.
        """
        if not isinstance(word, str):
            raise ValueError(f"word must be a str, got {type(word).__name__}")
        try:
            return self._ids[word]
        except KeyError:
            raise KeyError(f"word {word!r} is not in the vocabulary of {len(self)} words") from None

    def encode(self, tokens: Iterable[str]) -> np.ndarray:
        """Indices of the tokens that are in the vocabulary (the others are dropped), shape ``(n,)``.

        Raises ``ValueError`` if ``tokens`` is one str (it would be read letter by letter) or holds
        something other than str.
        """
        if isinstance(tokens, str):
            raise ValueError(f"tokens must be a list of str, not one str (got {tokens[:40]!r}; tokenize it first)")
        tokens = list(tokens)
        if not all(isinstance(t, str) for t in tokens):
            raise ValueError(f"tokens must all be str, got {sorted({type(t).__name__ for t in tokens})}")
        ids = self._ids
        return np.fromiter((ids[t] for t in tokens if t in ids), dtype=np.int64)


def build_vocabulary(documents: Iterable[Sequence[str]], min_count: int = 5) -> Vocabulary:
    """Count the tokens of ``documents`` and keep the words seen at least ``min_count`` times.

    Raises
    ------
    ValueError
        ``min_count`` not an integer >= 1; ``documents`` one str, or holding a str where a token
        list belongs, or no token at all; no word occurring ``min_count`` times.

    >>> vocab = build_vocabulary([["the", "cat", "sat"], ["the", "cat"], ["a"]], min_count=2)
    >>> vocab.words, vocab.counts
    (('cat', 'the'), array([2, 2]))
    """
    min_count = positive_int("min_count", min_count)
    if isinstance(documents, str):
        raise ValueError("documents must be a list of token lists, got one str")
    counts = Counter()
    for doc in documents:
        if isinstance(doc, str):
            raise ValueError("documents must be a list of token lists, got a str where a token list belongs")
        counts.update(doc)
    if not counts:
        raise ValueError("documents must hold at least one token, got an empty corpus (0 tokens)")
    kept = sorted(((w, n) for w, n in counts.items() if n >= min_count), key=lambda wn: (-wn[1], wn[0]))
    if not kept:
        raise ValueError(f"no word occurs at least min_count = {min_count} times "
                         f"(the most frequent occurs {max(counts.values())} times)")
    return Vocabulary(tuple(w for w, _ in kept), np.array([n for _, n in kept], dtype=np.int64))


def keep_probabilities(counts, threshold: float = 1e-3) -> np.ndarray:
    """Probability of keeping each occurrence of a word in subsampling, shape ``(V,)``.

    A word with corpus frequency ``f = count / total`` is kept with probability
    ``min(1, sqrt(threshold / f))``: Mikolov et al. (2013b) discard it with probability
    ``1 - sqrt(t / f)``. Words rarer than ``threshold`` are always kept.

    Raises
    ------
    ValueError
        ``counts`` not a non-empty finite 1-D array of numbers > 0; ``threshold`` not a finite
        number > 0.

    >>> keep_probabilities([900, 90, 10], threshold=0.01).round(3)
    array([0.105, 0.333, 1.   ])
    """
    counts = as_float_array("counts", counts, ndims=(1,))
    if counts.size == 0 or counts.min() <= 0:
        raise ValueError(f"counts must be positive, got shape {counts.shape} with minimum "
                         f"{counts.min() if counts.size else 'none'}")
    threshold = finite_float("threshold", threshold, low=0, low_open=True)
    freq = counts / counts.sum()
    return np.minimum(1.0, np.sqrt(threshold / freq))


def negative_table(counts, power: float = 0.75, size: int = 1_000_000) -> np.ndarray:
    """A table of word indices in which word ``w`` fills a share ``count_w**power / sum`` of the
    entries, as in the word2vec tool: a uniform draw from the table is a draw from the smoothed
    unigram distribution. Shape ``(size,)``.

    Raises
    ------
    ValueError
        ``counts`` not a non-empty finite 1-D array of numbers > 0; ``power`` not a finite number
        >= 0; ``size`` not an integer >= 1.

    >>> negative_table([16, 1], power=0.75, size=9)
    array([0, 0, 0, 0, 0, 0, 0, 0, 1])
    """
    counts = as_float_array("counts", counts, ndims=(1,))
    if counts.size == 0 or counts.min() <= 0:
        raise ValueError(f"counts must be positive, got shape {counts.shape}")
    power = finite_float("power", power, low=0)
    size = positive_int("size", size)
    p = counts**power
    cdf = np.cumsum(p / p.sum())
    cdf[-1] = 1.0
    return np.searchsorted(cdf, (np.arange(size) + 0.5) / size).astype(np.int64)


def skipgram_pairs(documents: Sequence[np.ndarray], window: int, rng: np.random.Generator):
    """Every (centre, context) pair within a random window, the same way word2vec samples them.

    Each position ``i`` draws a window ``b_i`` uniformly from ``1..window`` and pairs with every
    word at distance ``1..b_i`` on either side inside its own document (so near neighbours are
    used more often than far ones). Returns ``(centers, contexts)``, two index arrays of shape
    ``(n_pairs,)``.

    Raises
    ------
    ValueError
        ``window`` not an integer >= 1; ``rng`` not a Generator or an int seed >= 0; a member of
        ``documents`` not a 1-D array of integer ids >= 0.

    >>> c, o = skipgram_pairs([np.array([7, 8, 9])], window=1, rng=np.random.default_rng(0))
    >>> sorted(zip(c.tolist(), o.tolist()))
    [(7, 8), (8, 7), (8, 9), (9, 8)]
    """
    window = positive_int("window", window)
    rng = as_rng("rng", rng)
    docs = [as_ids(f"documents[{i}]", d, np.iinfo(np.int64).max, what="word ids") for i, d in enumerate(documents)]
    ids = np.concatenate(docs) if docs else np.zeros(0, np.int64)
    doc = np.repeat(np.arange(len(docs)), [d.size for d in docs])  # (n,) document of each position
    reach = rng.integers(1, window + 1, size=ids.size)  # (n,) b_i
    centers, contexts = [], []
    for off in range(1, window + 1):
        same = doc[:-off] == doc[off:]  # (n - off,) both ends in one document
        fwd = same & (reach[:-off] >= off)  # centre i, context i + off
        bwd = same & (reach[off:] >= off)  # centre i + off, context i
        centers += [ids[:-off][fwd], ids[off:][bwd]]
        contexts += [ids[off:][fwd], ids[:-off][bwd]]
    return np.concatenate(centers), np.concatenate(contexts)


# --- the SGNS loss and its gradients ----------------------------------------------------------


def _sgns_pairs(W_in, W_out, centers, contexts, negatives):
    """Per-pair losses and the row gradients of their **sum** (the shared core of the public
    loss and of the training step).

    Shapes: ``centers`` and ``contexts`` ``(B,)``, ``negatives`` ``(B, K)``. Returns ``losses``
    ``(B,)``, ``dv`` ``(B, d)`` for rows ``centers`` of ``W_in``, ``du_pos`` ``(B, d)`` for rows
    ``contexts`` and ``du_neg`` ``(B, K, d)`` for rows ``negatives`` of ``W_out``.
    """
    v = W_in[centers]  # (B, d)
    u_pos = W_out[contexts]  # (B, d)
    u_neg = W_out[negatives]  # (B, K, d)
    s_pos = np.einsum("bd,bd->b", u_pos, v)  # (B,)
    s_neg = np.einsum("bkd,bd->bk", u_neg, v)  # (B, K)
    log_p_pos = log_sigmoid(s_pos)  # (B,)    log sigma(s_pos)
    log_p_neg = log_sigmoid(-s_neg)  # (B, K)  log sigma(-s_neg)
    losses = -log_p_pos - log_p_neg.sum(axis=1)
    g_pos = np.expm1(log_p_pos)  # (B,)    dl/ds_pos = sigma(s_pos) - 1
    g_neg = -np.expm1(log_p_neg)  # (B, K)  dl/ds_neg = 1 - sigma(-s_neg) = sigma(s_neg)
    dv = g_pos[:, None] * u_pos + np.einsum("bk,bkd->bd", g_neg, u_neg)  # (B, d)
    du_pos = g_pos[:, None] * v  # (B, d)
    du_neg = g_neg[:, :, None] * v[:, None, :]  # (B, K, d)
    return losses, dv, du_pos, du_neg


def _scatter_add(W: np.ndarray, rows: np.ndarray, G: np.ndarray) -> None:
    """``W[rows[i]] += G[i]`` for every ``i``, repeated rows accumulating (``np.add.at``).

    Done on the flattened array, where ``np.add.at`` takes its fast one-dimensional path: a few
    times faster than on rows of a 2-D array.
    """
    d = W.shape[1]
    flat = (rows[:, None] * d + np.arange(d)).ravel()  # (n * d,) positions in W.ravel()
    np.add.at(W.reshape(-1), flat, G.reshape(-1))


def _check_sgns_inputs(W_in, W_out, centers, contexts, negatives):
    W_in = as_float_array("W_in", W_in, ndims=(2,))
    W_out = as_float_array("W_out", W_out, ndims=(2,))
    check_shape("W_out", W_out, W_in.shape, "(V, d) like W_in")
    V = W_in.shape[0]
    centers, contexts, negatives = (np.asarray(a) for a in (centers, contexts, negatives))
    if centers.ndim != 1 or centers.size == 0:
        raise ValueError(f"centers must be a non-empty 1-D index array, got shape {centers.shape}")
    check_shape("contexts", contexts, centers.shape, "(B,) like centers")
    if negatives.ndim != 2 or negatives.shape[0] != centers.shape[0]:
        raise ValueError(f"negatives must have shape (B, K) with B = {centers.shape[0]}, got {negatives.shape}")
    for name, a in (("centers", centers), ("contexts", contexts), ("negatives", negatives)):
        if a.size and (a.dtype.kind not in "iu" or a.min() < 0 or a.max() >= V):
            raise ValueError(f"{name} must hold integer word indices in [0, V) = [0, {V})")
    return W_in, W_out, centers, contexts, negatives


def sgns_loss_and_grads(W_in, W_out, centers, contexts, negatives):
    r"""Mean SGNS loss over a batch of pairs and its gradients with respect to both matrices.

    ``L = (1/B) sum_b l(centers[b], contexts[b])`` with the per-pair loss ``l`` of the module
    docstring, using the negatives ``negatives[b, :]`` for pair ``b``.

    Parameters
    ----------
    W_in, W_out : ndarray of shape (V, d)
    centers, contexts : int ndarray of shape (B,)
    negatives : int ndarray of shape (B, K)

    Returns
    -------
    loss : float
    dW_in, dW_out : ndarray of shape (V, d), zero in the rows the batch does not touch

    With all vectors zero every score is 0, so each pair costs ``(K + 1) log 2``:

    Raises
    ------
    ValueError
        ``W_in`` not a finite 2-D array, ``W_out`` not finite and shaped like it; ``centers`` not a
        non-empty 1-D array, ``contexts`` not shaped like it, ``negatives`` not (B, K); any of the
        three holding something other than integer ids in ``[0, V)``.

    >>> import numpy as np
    >>> W = np.zeros((4, 3))
    >>> loss, dW_in, dW_out = sgns_loss_and_grads(W, W, [0, 1], [1, 2], [[3, 3], [0, 3]])
    >>> round(float(loss / np.log(2)), 6), bool(dW_in.any()), bool(dW_out.any())
    (3.0, False, False)
    """
    W_in, W_out, centers, contexts, negatives = _check_sgns_inputs(W_in, W_out, centers, contexts, negatives)
    losses, dv, du_pos, du_neg = _sgns_pairs(W_in, W_out, centers, contexts, negatives)
    B = centers.shape[0]
    dW_in, dW_out = np.zeros_like(W_in), np.zeros_like(W_out)
    _scatter_add(dW_in, centers, dv / B)
    _scatter_add(dW_out, np.concatenate([contexts, negatives.ravel()]),
                 np.concatenate([du_pos, du_neg.reshape(-1, W_in.shape[1])]) / B)
    return float(losses.mean()), dW_in, dW_out


# --- training --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SGNSConfig:
    """Settings of :func:`train_sgns`; the defaults are the word2vec tool's unless noted.

    ``dim``
        50, the width ``d`` of a word vector (the word2vec tool's ``-size``); small enough to train in seconds (the tool's default is 100).
    ``window``
        3, the largest distance of a context word (the tool: 5; a narrower window costs
        fewer pairs and favours similar words over merely related ones).
    ``negatives``
        5 negative words per pair.
    ``min_count``
        5, rarer words are dropped before training.
    ``subsample``
        1e-3, the threshold ``t`` of :func:`keep_probabilities`.
    ``epochs``
        2 passes, each over freshly subsampled and shuffled pairs (the tool: 5), to train in seconds.
    ``batch_size``
        1024 pairs per vectorised update (the tool updates after every pair).
    ``lr``
        0.05 per pair (the tool: 0.025 for skip-gram; the larger step makes up for fewer
        passes), decaying linearly to ``lr * 1e-4`` over training.
    ``seed``
        everything random (initial vectors, subsampling, windows, order, negatives) derives from it.

    Raises
    ------
    ValueError
        ``dim``, ``window``, ``negatives``, ``min_count``, ``epochs`` or ``batch_size`` not an
        integer >= 1; ``subsample`` or ``lr`` not a finite number > 0; ``seed`` not an integer >= 0.
    """

    dim: int = 50
    window: int = 3
    negatives: int = 5
    min_count: int = 5
    subsample: float = 1e-3
    epochs: int = 2
    batch_size: int = 1024
    lr: float = 0.05
    seed: int = 0

    def __post_init__(self):
        """Raises ``ValueError`` for a size that is not an integer >= 1, ``subsample`` or ``lr`` not
        a finite number > 0, or a negative seed."""
        for name in ("dim", "window", "negatives", "min_count", "epochs", "batch_size"):
            positive_int(name, getattr(self, name))
        finite_float("subsample", self.subsample, low=0, low_open=True)
        finite_float("lr", self.lr, low=0, low_open=True)
        positive_int("seed", self.seed, minimum=0)


@dataclass(frozen=True)
class SGNSResult:
    """Trained vectors and the record of training.

    vocab : Vocabulary of V words
    W_in, W_out : ndarray of shape (V, d); ``W_in`` rows are the word vectors
    W_in_initial : ndarray of shape (V, d), the random starting point (for before/after views)
    losses : ndarray of shape (n_steps,), the mean loss of each minibatch before its update
    steps_per_epoch : ndarray of shape (epochs,), number of minibatches in each epoch
    """

    vocab: Vocabulary
    W_in: np.ndarray
    W_out: np.ndarray
    W_in_initial: np.ndarray
    losses: np.ndarray
    steps_per_epoch: np.ndarray

    def vectors(self, initial: bool = False) -> WordVectors:
        """The input vectors as :class:`~seqmodels.common.vectors.WordVectors`, ready for
        :func:`~seqmodels.common.vectors.nearest`."""
        return WordVectors(list(self.vocab.words), self.W_in_initial if initial else self.W_in)


def train_sgns(documents: Sequence[Sequence[str]], config: SGNSConfig = SGNSConfig()) -> SGNSResult:
    """Train skip-gram with negative sampling on tokenised ``documents`` with minibatch SGD.

    Each step takes ``batch_size`` pairs, draws ``negatives`` words per pair from
    :func:`negative_table`, and moves every touched row by ``-lr`` times its summed per-pair
    gradient (:func:`sgns_loss_and_grads` times ``B``), as the word2vec tool does pair by pair.
    ``W_in`` starts uniform in ``[-0.5/d, 0.5/d)`` and ``W_out`` at zero, as in the tool.

    Raises
    ------
    ValueError
        ``config`` not an :class:`SGNSConfig`; ``documents`` as :func:`build_vocabulary` refuses
        it (with ``config.min_count``), or without a document holding two words of the vocabulary
        (no (centre, context) pair would exist).

    >>> docs = [["a", "b", "a", "b", "c"]] * 20
    >>> res = train_sgns(docs, SGNSConfig(dim=4, min_count=1, epochs=2, batch_size=8, seed=1))
    >>> res.vocab.words, res.W_in.shape, res.losses.shape == (res.steps_per_epoch.sum(),)
    (('a', 'b', 'c'), (3, 4), True)
    """
    if not isinstance(config, SGNSConfig):
        raise ValueError(f"config must be an SGNSConfig, got {type(config).__name__}")
    cfg = config
    documents = list(documents)
    vocab = build_vocabulary(documents, cfg.min_count)
    rng = np.random.default_rng(cfg.seed)
    V, d = len(vocab), cfg.dim
    W_in = ((rng.random((V, d)) - 0.5) / d).astype(np.float32)  # float32, as in the tool
    W_out = np.zeros((V, d), dtype=np.float32)
    W_in_initial = W_in.copy()
    encoded = [vocab.encode(doc) for doc in documents]
    if not any(ids.size >= 2 for ids in encoded):
        raise ValueError(f"documents must hold a document with at least two words of the vocabulary "
                         f"(min_count = {cfg.min_count}), got {len(encoded)} documents of at most one: "
                         "no (centre, context) pair exists to train on")
    keep = keep_probabilities(vocab.counts, cfg.subsample)
    table = negative_table(vocab.counts)

    # Pairs are drawn per epoch, so the number of steps is known only approximately up front;
    # the learning rate decays with the expected total, the tokens kept in expectation.
    expected_tokens = float((keep * vocab.counts).sum()) * cfg.epochs
    seen_tokens, losses, steps = 0.0, [], []
    for _ in range(cfg.epochs):
        kept = [ids[rng.random(ids.size) < keep[ids]] for ids in encoded]
        centers, contexts = skipgram_pairs(kept, cfg.window, rng)
        order = rng.permutation(centers.size)
        centers, contexts = centers[order], contexts[order]
        n_tokens = sum(k.size for k in kept)
        n_steps = int(np.ceil(centers.size / cfg.batch_size))
        for s in range(n_steps):
            c = centers[s * cfg.batch_size:(s + 1) * cfg.batch_size]  # (B,)
            o = contexts[s * cfg.batch_size:(s + 1) * cfg.batch_size]  # (B,)
            neg = table[rng.integers(0, table.size, size=(c.size, cfg.negatives))]  # (B, K)
            progress = min(1.0, (seen_tokens + n_tokens * s / n_steps) / expected_tokens)
            lr = np.float32(cfg.lr * max(1e-4, 1.0 - progress))
            pair_losses, dv, du_pos, du_neg = _sgns_pairs(W_in, W_out, c, o, neg)
            _scatter_add(W_in, c, -lr * dv)
            _scatter_add(W_out, np.concatenate([o, neg.ravel()]),
                         -lr * np.concatenate([du_pos, du_neg.reshape(-1, d)]))
            losses.append(pair_losses.mean())
        seen_tokens += n_tokens
        steps.append(n_steps)
    return SGNSResult(vocab, W_in, W_out, W_in_initial, np.array(losses), np.array(steps))
