r"""Words as vectors: one-hot codes, cosine similarity, and search over any set of word vectors.

**One-hot codes and cosine similarity.** Word ``i`` of a vocabulary of ``vocab_size`` words is the
unit vector ``e_i`` of length ``vocab_size``; ``cos(u, v) = u . v / (|u| |v|)``, undefined when
either vector is zero.

**Search.** :class:`WordVectors` holds words and one vector per word (trained by
:mod:`seqmodels.models.word2vec` or read by :mod:`seqmodels.datasets.glove`); :func:`nearest`, :func:`analogy`,
:func:`analogy_rank`, :func:`analogy_accuracy` and :func:`analogy_accuracy_by` (3CosAdd or 3CosMul)
search it by cosine similarity.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Iterable, Sequence

import numpy as np

from seqmodels.common._checks import as_float_array, check_shape, one_of, positive_int


def one_hot(indices, vocab_size: int) -> np.ndarray:
    """One row ``e_i`` per index: shape ``(n, vocab_size)`` for ``n`` indices.

    Raises
    ------
    ValueError
        ``indices`` not a 1-D array of integers in ``[0, vocab_size)`` (an empty one gives no
        rows); ``vocab_size`` not an integer >= 1.

    >>> one_hot([2, 0], vocab_size=4)
    array([[0., 0., 1., 0.],
           [1., 0., 0., 0.]])
    """
    idx = np.asarray(indices)
    if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
        raise ValueError(f"indices must be a 1-D array of integers, got shape {idx.shape} and dtype {idx.dtype}")
    if not isinstance(vocab_size, (int, np.integer)) or vocab_size < 1:
        raise ValueError(f"vocab_size must be a positive integer, got {vocab_size!r}")
    if idx.size and (idx.min() < 0 or idx.max() >= vocab_size):
        raise ValueError(f"indices must lie in [0, vocab_size) = [0, {vocab_size}), got values from "
                         f"{idx.min()} to {idx.max()}")
    out = np.zeros((idx.size, vocab_size))
    if idx.size:  # no indices: no rows (np.asarray([]) is a float array, which cannot index)
        out[np.arange(idx.size), idx] = 1.0
    return out


def cosine_similarity(u, v) -> float:
    """``cos(u, v) = u . v / (|u| |v|)`` for two vectors of the same length ``d``.

    A zero vector has no direction, so its cosine with anything is undefined: that is an error
    naming the argument, not a silent ``nan``. Vectors whose squares overflow (``1e200``) or
    underflow are rescaled first, so every finite non-zero pair gets its cosine.

    Raises
    ------
    ValueError
        ``u`` or ``v`` not a finite 1-D vector, of different lengths, or zero.

    >>> cosine_similarity([1.0, 0.0], [1.0, 1.0])
    0.7071...
    >>> cosine_similarity([0.0, 0.0], [1.0, 1.0])
    Traceback (most recent call last):
    ...
    ValueError: u is the zero vector: cosine similarity divides by |u| = 0 and is undefined
    """
    u = as_float_array("u", u, ndims=(1,))
    v = as_float_array("v", v, ndims=(1,))
    check_shape("v", v, u.shape, "(d,) like u")
    for name, x in (("u", u), ("v", v)):
        if not x.any():
            raise ValueError(f"{name} is the zero vector: cosine similarity divides by |{name}| = 0 and is undefined")
    with np.errstate(over="ignore", under="ignore"):
        nu, nv = np.linalg.norm(u), np.linalg.norm(v)
        ok = np.isfinite(nu * nv) and nu * nv > 0 and np.isfinite(u @ v)
    if not ok:  # squares overflowed or underflowed: the cosine does not change when each is rescaled
        u, v = u / np.abs(u).max(), v / np.abs(v).max()
        nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    return float(np.clip(u @ v / (nu * nv), -1.0, 1.0))


class WordVectors:
    """A vocabulary and one vector per word, searched by cosine similarity.

    Attributes
    ----------
    words : list of str, length n (for GloVe: most frequent first)
    vectors : ndarray of shape (n, d)

    >>> import numpy as np
    >>> emb = WordVectors(["cat", "dog"], np.array([[1.0, 0.0], [0.6, 0.8]]))
    >>> len(emb), emb.index("dog"), "cow" in emb
    (2, 1, False)

    A word is found as stored; failing that, lower-cased (GloVe's words are lower-case), so
    ``emb.index("Dog")`` is also 1, and a vocabulary that stores "Paris" finds "Paris".

    Raises
    ------
    ValueError
        ``vectors`` not a finite 2-D float array with one row per word, or ``words`` empty or
        holding something other than str.
    >>> emb.index("cow")
    Traceback (most recent call last):
    ...
    KeyError: "word 'cow' is not in the vocabulary of 2 words"
    """

    def __init__(self, words: Sequence[str], vectors):
        vectors = np.asanyarray(vectors)  # a memory-mapped array stays memory-mapped
        if vectors.ndim != 2 or vectors.dtype.kind != "f":
            raise ValueError(f"vectors must be a 2-D float array (n, d), got shape {vectors.shape} "
                             f"and dtype {vectors.dtype}")
        if isinstance(words, str):
            raise ValueError(f"words must be a sequence of str, one per row of vectors, got one str {words[:40]!r}")
        words = list(words)
        if len(words) != vectors.shape[0]:
            raise ValueError(f"vectors must have one row per word: {len(words)} words, got shape {vectors.shape}")
        if len(words) == 0:
            raise ValueError("words must not be empty, got 0 words")
        if not all(isinstance(w, str) for w in words):
            raise ValueError(f"words must all be str, got {sorted({type(w).__name__ for w in words})}")
        if not np.isfinite(vectors).all():
            raise ValueError(f"vectors must be finite, got NaN or inf in row {int(np.argwhere(~np.isfinite(vectors))[0, 0])}")
        self.words = words
        self.vectors = vectors
        ids: dict[str, int] = {}
        for i, w in enumerate(words):
            ids.setdefault(w, i)  # a repeated word keeps its first (most frequent) row
        self._ids = ids

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word) -> bool:
        return isinstance(word, str) and self._find(word) is not None

    @cached_property
    def _lower_ids(self) -> dict[str, int]:
        ids: dict[str, int] = {}
        for i, w in enumerate(self.words):
            ids.setdefault(w.lower(), i)
        return ids

    def _find(self, word: str) -> int | None:
        """Row of ``word`` as stored, else of its lower-case form, else None."""
        i = self._ids.get(word)
        return i if i is not None else self._lower_ids.get(word.lower())

    def __repr__(self) -> str:
        return f"WordVectors({len(self)} words, d={self.vectors.shape[1]})"

    def index(self, word: str, argument: str = "word") -> int:
        """Row of ``word`` (as stored, else lower-cased).

        Raises ``KeyError`` naming the word (and ``argument``, the caller's name for it) if it is
        unknown, ``ValueError`` if it is not a str.
        """
        if not isinstance(word, str):
            raise ValueError(f"{argument} must be a str, got {type(word).__name__}")
        i = self._find(word)
        if i is None:
            prefix = "" if argument == "word" else f"{argument}: "
            raise KeyError(f"{prefix}word {word!r} is not in the vocabulary of {len(self)} words")
        return i

    def __getitem__(self, word: str) -> np.ndarray:
        """The vector of ``word``, shape ``(d,)``."""
        return np.asarray(self.vectors[self.index(word)])

    @cached_property
    def unit(self) -> np.ndarray:
        """Every vector divided by its length, shape ``(n, d)``; a zero vector stays zero."""
        V = np.asarray(self.vectors)
        norms = np.linalg.norm(V, axis=1, keepdims=True)
        return V / np.where(norms == 0, 1, norms).astype(V.dtype)


def _check_emb(emb) -> None:
    if not isinstance(emb, WordVectors):
        raise ValueError(f"emb must be WordVectors, got {type(emb).__name__}")


def _candidates(emb: WordVectors, restrict_vocab) -> np.ndarray:
    """Unit vectors of the words searched: all, or the first ``restrict_vocab``."""
    if restrict_vocab is None:
        return emb.unit
    if isinstance(restrict_vocab, bool) or not isinstance(restrict_vocab, (int, np.integer)) or restrict_vocab < 1:
        raise ValueError(f"restrict_vocab must be a positive integer or None, got {restrict_vocab!r}")
    return emb.unit[:restrict_vocab]


def _top_k(scores: np.ndarray, exclude: Iterable[int], k: int, words: Sequence[str]) -> list[tuple[str, float]]:
    """The ``k`` best-scoring rows, best first (ties: lower row first), as ``(word, score)``."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    scores = np.array(scores, dtype=np.float64)
    for i in exclude:
        if i < scores.size:
            scores[i] = -np.inf
    available = int(np.isfinite(scores).sum())
    if k > available:
        raise ValueError(f"k must be at most the {available} candidate words, got {k}")
    top = np.argpartition(-scores, k - 1)[:k]
    top = top[np.lexsort((top, -scores[top]))]
    return [(words[i], float(scores[i])) for i in top]


def nearest(emb: WordVectors, word_or_vector, k: int = 10, restrict_vocab: int | None = None):
    """The ``k`` words whose vectors have the highest cosine with a word or a vector.

    A query word is left out of its own neighbours. ``restrict_vocab=N`` searches only the
    first ``N`` words (the ``N`` most frequent, for GloVe). Returns ``[(word, cosine), ...]``.

    Raises
    ------
    ValueError
        ``emb`` not :class:`WordVectors`; ``word_or_vector`` neither a str nor a finite ``(d,)``
        vector, or the zero vector; ``k`` not an integer in ``[1, candidates]``; ``restrict_vocab``
        not None or an integer >= 1, or leaving no word besides the query.
    KeyError
        ``word_or_vector`` a word not in ``emb``.

    >>> import numpy as np
    >>> emb = WordVectors(["cat", "kitten", "car"], np.array([[1.0, 0.1], [0.9, 0.2], [0.0, 1.0]]))
    >>> [(w, round(c, 3)) for w, c in nearest(emb, "cat", k=2)]
    [('kitten', 0.993), ('car', 0.1)]
    >>> nearest(emb, np.zeros(2))
    Traceback (most recent call last):
    ...
    ValueError: word_or_vector is the zero vector: it has no direction to compare by cosine
    """
    _check_emb(emb)
    if isinstance(word_or_vector, str):
        i = emb.index(word_or_vector, "word_or_vector")
        query, exclude = emb.unit[i], [i]
    else:
        query = as_float_array("word_or_vector", word_or_vector, ndims=(1,))
        check_shape("word_or_vector", query, (emb.vectors.shape[1],), "(d,)")
        norm = np.linalg.norm(query)
        if norm == 0:
            raise ValueError("word_or_vector is the zero vector: it has no direction to compare by cosine")
        query, exclude = query / norm, []
    cand = _candidates(emb, restrict_vocab)
    if not set(range(cand.shape[0])) - set(exclude):
        raise ValueError(f"restrict_vocab={restrict_vocab} leaves no word to search besides the query itself")
    return _top_k(cand @ query.astype(cand.dtype), exclude, k, emb.words)


def analogy_target(emb: WordVectors, a: str, b: str, c: str) -> np.ndarray:
    """``b^ - a^ + c^`` from the unit vectors of the three words, shape ``(d,)``.

    Raises ``KeyError`` naming the argument of an unknown word, ``ValueError`` for a word that is
    not a str or a target of length 0 (it has no direction).
    """
    _check_emb(emb)
    U = emb.unit
    target = U[emb.index(b, "b")] - U[emb.index(a, "a")] + U[emb.index(c, "c")]
    if not target.any():
        raise ValueError(f"a, b, c = {a!r}, {b!r}, {c!r} give the zero target b^ - a^ + c^: no direction to search")
    return target


def analogy(emb: WordVectors, a: str, b: str, c: str, k: int = 1, restrict_vocab: int | None = None):
    """"``a`` is to ``b`` as ``c`` is to ?": the words ``d`` maximising ``cos(d, b^ - a^ + c^)``.

    Every vector is unit-normalised first and ``a``, ``b``, ``c`` themselves are excluded (the
    3CosAdd rule of Mikolov et al. 2013). Returns ``[(word, cosine), ...]``, best first.

    Raises
    ------
    ValueError
        ``emb`` not :class:`WordVectors`; ``a``, ``b`` or ``c`` not a str, or giving the zero target;
        ``k`` not an integer in ``[1, candidates]``; ``restrict_vocab`` not None or an integer >= 1.
    KeyError
        ``a``, ``b`` or ``c`` not in ``emb`` (the message names which).

    >>> import numpy as np
    >>> emb = WordVectors(["man", "woman", "king", "queen", "apple"],
    ...                   np.array([[1.0, 0, 0], [1, 1, 0], [1, 0, 1], [1, 1, 1], [0, 0.2, 0.1]]))
    >>> [(w, round(s, 3)) for w, s in analogy(emb, "man", "woman", "king", k=2)]
    [('queen', 0.975), ('apple', 0.876)]
    """
    target = analogy_target(emb, a, b, c)
    cand = _candidates(emb, restrict_vocab)
    scores = cand @ target.astype(cand.dtype) / np.linalg.norm(target)
    return _top_k(scores, {emb.index(w) for w in (a, b, c)}, k, emb.words)


def analogy_rank(emb: WordVectors, a: str, b: str, c: str, d: str, restrict_vocab: int | None = None):
    """Where the expected answer ``d`` lands in :func:`analogy`'s ranking: ``(rank, cosine)``,
    rank 1 being the top (ties count against ``d``).

    Raises
    ------
    ValueError
        ``emb``, ``a``, ``b``, ``c``, ``restrict_vocab`` as :func:`analogy` refuses them, or ``d``
        not a str.
    KeyError
        ``a``, ``b``, ``c`` or ``d`` not in ``emb``, or ``d`` not among the ``restrict_vocab`` words
        searched (the message names which).
    """
    target = analogy_target(emb, a, b, c)
    cand = _candidates(emb, restrict_vocab)
    j = emb.index(d, "d")
    if j >= cand.shape[0]:
        raise KeyError(f"d: word {d!r} is not among the restrict_vocab = {cand.shape[0]} words searched")
    scores = cand @ target.astype(cand.dtype) / np.linalg.norm(target)
    excluded = np.zeros(scores.size, dtype=bool)
    excluded[[i for i in {emb.index(w) for w in (a, b, c)} if i < scores.size]] = True
    better = (scores >= scores[j]) & ~excluded
    better[j] = False
    return int(better.sum()) + 1, float(scores[j])


@dataclass(frozen=True)
class AnalogyScore:
    """Result of :func:`analogy_accuracy`: ``correct`` of ``answered`` questions right, and
    ``skipped`` questions left out because a word was missing from the searched vocabulary.

    Raises
    ------
    ValueError
        ``correct``, ``answered`` or ``skipped`` not an integer >= 0, or ``correct > answered``.
    """

    correct: int
    answered: int
    skipped: int

    def __post_init__(self):
        """Raises ``ValueError`` unless the counts are integers >= 0 with ``correct <= answered``."""
        for name in ("correct", "answered", "skipped"):
            positive_int(name, getattr(self, name), minimum=0)
        if self.correct > self.answered:
            raise ValueError(f"correct must be at most answered = {self.answered}, got {self.correct}")

    @property
    def accuracy(self) -> float:
        """``correct / answered``; ``ValueError`` when no question was answered (it is undefined)."""
        if not self.answered:
            raise ValueError(f"accuracy is undefined: answered = 0 ({self.skipped} questions skipped)")
        return self.correct / self.answered


def _question_ids(emb: WordVectors, questions, n: int) -> tuple[np.ndarray | None, int]:
    """The ids ``(Q, 4)`` of the questions whose four words are among the first ``n`` rows of
    ``emb`` (each word found as stored, then lower-cased), and how many questions were skipped."""
    if isinstance(questions, (str, bytes)):
        raise ValueError(f"questions must be a list of (a, b, c, d) tuples, got a str {questions[:40]!r}")
    rows, skipped = [], 0
    for q in questions:
        if isinstance(q, str) or len(q) != 4 or not all(isinstance(w, str) for w in q):
            raise ValueError(f"questions must be 4-tuples of words (a, b, c, d), got {q!r}")
        ids = [n if i is None else i for i in (emb._find(w) for w in q)]
        if max(ids) >= n:
            skipped += 1
        else:
            rows.append(ids)
    return (np.array(rows) if rows else None), skipped


def analogy_accuracy(emb: WordVectors, questions: Sequence[tuple[str, str, str, str]],
                     restrict_vocab: int | None = None, batch_size: int = 256) -> AnalogyScore:
    """Score 3CosAdd on questions ``(a, b, c, d)``: right when :func:`analogy`'s top word is ``d``.

    Questions with a word outside the searched vocabulary are skipped (and counted), as the
    GloVe and word2vec evaluation scripts do. Vectorised over ``batch_size`` questions at a time.

    Raises
    ------
    ValueError
        ``emb`` not :class:`WordVectors`; ``questions`` a str, or holding something other than a
        4-tuple of str; ``batch_size`` not an integer >= 1; ``restrict_vocab`` not None or an
        integer >= 1.

    >>> import numpy as np
    >>> emb = WordVectors(["man", "woman", "king", "queen"],
    ...                   np.array([[1.0, 0, 0], [1, 1, 0], [1, 0, 1], [1, 1, 1]]))
    >>> analogy_accuracy(emb, [("man", "woman", "king", "queen"), ("man", "woman", "emperor", "empress")])
    AnalogyScore(correct=1, answered=1, skipped=1)
    """
    _check_emb(emb)
    batch_size = positive_int("batch_size", batch_size)
    cand = _candidates(emb, restrict_vocab)
    idx, skipped = _question_ids(emb, questions, cand.shape[0])
    if idx is None:
        return AnalogyScore(0, 0, skipped)
    U = emb.unit
    correct = 0
    for s in range(0, len(idx), batch_size):
        a, b, c, d = idx[s:s + batch_size].T  # each (q,)
        target = U[b] - U[a] + U[c]  # (q, dim)
        scores = target @ cand.T  # (q, n); the target's length does not change the argmax
        r = np.arange(a.size)
        scores[r, a] = scores[r, b] = scores[r, c] = -np.inf
        correct += int((scores.argmax(axis=1) == d).sum())
    return AnalogyScore(correct, len(idx), skipped)


#: The ways an analogy is answered: 3CosAdd (Mikolov et al. 2013) and 3CosMul (Levy & Goldberg 2014).
ANALOGY_METHODS = ("3CosAdd", "3CosMul")


def analogy_accuracy_by(emb: WordVectors, questions: Sequence[tuple[str, str, str, str]], *,
                        method: str = "3CosAdd", exclude_inputs: bool = True,
                        restrict_vocab: int | None = None, batch_size: int = 256) -> AnalogyScore:
    """Analogy accuracy under a chosen rule, with or without leaving out the three input words.

    ``3CosAdd`` (Mikolov et al. 2013c) ranks ``d`` by ``cos(d, b) - cos(d, a) + cos(d, c)``, which
    orders candidates as the cosine with ``b^ - a^ + c^`` does (:func:`analogy_accuracy`).
    ``3CosMul`` (Levy & Goldberg 2014, CoNLL) ranks by ``cos'(d, b) cos'(d, c) / (cos'(d, a) + 1e-3)``
    with every cosine shifted to ``[0, 1]``, ``cos' = (cos + 1) / 2``, so that no single large
    similarity dominates the sum. With ``exclude_inputs=False`` the inputs ``a, b, c`` may be
    returned (Linzen 2016 shows how often they would be). Questions with a word outside the
    searched vocabulary are skipped and counted, as in :func:`analogy_accuracy`.

    Raises
    ------
    ValueError
        ``emb`` that is not a :class:`WordVectors`, ``method`` not one of :data:`ANALOGY_METHODS`,
        ``questions`` that is a str or holds something other than a 4-tuple of words, a bad
        ``restrict_vocab`` or ``batch_size``.

    >>> import numpy as np
    >>> emb = WordVectors(["man", "woman", "king", "queen"],
    ...                   np.array([[1.0, 0, 0, 0], [1, 0.3, 0, 0], [1, 0, 1, 0], [1, 0.3, 1, 0.6]]))
    >>> q = [("man", "woman", "king", "queen")]
    >>> analogy_accuracy_by(emb, q, method="3CosMul").correct
    1
    >>> analogy_accuracy_by(emb, q, exclude_inputs=False).correct  # without exclusion: 'king' wins
    0
    """
    hits, skipped = analogy_hits(emb, questions, method=method, exclude_inputs=exclude_inputs,
                                 restrict_vocab=restrict_vocab, batch_size=batch_size)
    answered = hits[hits >= 0]
    return AnalogyScore(int(answered.sum()), int(answered.size), skipped)


def analogy_hits(emb: WordVectors, questions: Sequence[tuple[str, str, str, str]], *,
                 method: str = "3CosAdd", exclude_inputs: bool = True,
                 restrict_vocab: int | None = None, batch_size: int = 256) -> tuple[np.ndarray, int]:
    """Question by question: was :func:`analogy_accuracy_by`'s answer right? ``(hits, skipped)``.

    ``hits`` has shape ``(Q,)``, one entry per question in order: 1 right, 0 wrong, -1 skipped
    (a word outside the searched vocabulary). Scoring, as in :func:`analogy_accuracy_by`, for a
    question ``(a, b, c, d)`` and every candidate ``w`` among the searched words::

        3CosAdd: score(w) = cos(w, b) - cos(w, a) + cos(w, c)
        3CosMul: score(w) = cos'(w, b) cos'(w, c) / (cos'(w, a) + 1e-3),  cos' = (cos + 1) / 2

    right when ``argmax_w score(w) == d`` (``w`` ranging over all but ``a, b, c`` when
    ``exclude_inputs``). Per-question results let one set of questions be scored under several
    search vocabularies or rules, so that a comparison changes one thing at a time.

    Raises
    ------
    ValueError
        as :func:`analogy_accuracy_by`.

    >>> import numpy as np
    >>> emb = WordVectors(["man", "woman", "king", "queen"],
    ...                   np.array([[1.0, 0, 0, 0], [1, 0.3, 0, 0], [1, 0, 1, 0], [1, 0.3, 1, 0.6]]))
    >>> analogy_hits(emb, [("man", "woman", "king", "queen"), ("man", "woman", "king", "prince")])
    (array([ 1, -1]), 1)
    """
    _check_emb(emb)
    one_of("method", method, ANALOGY_METHODS)
    batch_size = positive_int("batch_size", batch_size)
    cand = _candidates(emb, restrict_vocab)
    if isinstance(questions, (str, bytes)):
        raise ValueError(f"questions must be a list of (a, b, c, d) tuples, got a str {questions[:40]!r}")
    questions = list(questions)
    hits = np.full(len(questions), -1, dtype=np.int64)  # (Q,)
    idx, skipped = _question_ids(emb, questions, cand.shape[0])
    if idx is None:
        return hits, skipped
    answered = np.array([max(i if i is not None else cand.shape[0] for i in (emb._find(w) for w in q))
                         < cand.shape[0] for q in questions])  # (Q,) the rows of idx, in order
    U = emb.unit
    right = np.zeros(len(idx), dtype=np.int64)
    for s in range(0, len(idx), batch_size):
        a, b, c, d = idx[s:s + batch_size].T  # each (q,)
        if method == "3CosAdd":  # cos(w, b) - cos(w, a) + cos(w, c) = w^ . (b^ - a^ + c^)
            scores = (U[b] - U[a] + U[c]) @ cand.T  # (q, n)
        else:
            cos_a, cos_b, cos_c = (U[w] @ cand.T for w in (a, b, c))  # each (q, n)
            scores = ((cos_b + 1) / 2) * ((cos_c + 1) / 2) / ((cos_a + 1) / 2 + 1e-3)
        if exclude_inputs:
            r = np.arange(a.size)
            scores[r, a] = scores[r, b] = scores[r, c] = -np.inf
        right[s:s + a.size] = scores.argmax(axis=1) == d
    hits[answered] = right
    return hits, skipped
