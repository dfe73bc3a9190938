r"""A generated corpus in which "bank" has two senses and the cue sits before or after it.

Every sentence is ``left + ["bank"] + right``, and each side is drawn from one of three lists of
eight phrases (:data:`LEFT`, :data:`RIGHT`):

- ``"neutral"``: words that occur with both senses ("the old", "was empty");
- ``"money"``: words that occur only with the financial sense ("the savings", "approved the loan");
- ``"river"``: words that occur only with the riverside sense ("the grassy", "flooded after the rain").

So a sentence's *cue* is ``"before"`` (a sense phrase on the left, a neutral one on the right),
``"after"`` (the reverse), ``"both"`` or ``"none"``. Its sense is the sense of its cue phrases
(``None`` when there is no cue: "the old bank was empty" is ambiguous, and stays unlabelled).

Train and test are kept apart by *combination*: every test sentence pairs a left part and a right
part that never occur together in training, and every test sentence has exactly one cue side. The
test set is balanced: each neutral side of a test sentence occurs equally often with both senses,
so the neutral side alone says nothing about the sense.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import positive_int

TARGET = "bank"
SENSES = ("money", "river")
BOS, EOS = "<s>", "</s>"
CUES = ("before", "after", "both", "none")


#: The phrase just before "bank" (``LEFT``) and the phrase after it (``RIGHT``), by kind.
LEFT: dict[str, tuple[str, ...]] = {
    "neutral": ("the", "the old", "the nearby", "the little", "the same", "the big", "the new",
                "the other"),
    "money": ("the savings", "the investment", "the central", "the national", "the mortgage",
              "the commercial", "the merchant", "the retail"),
    "river": ("the river", "the grassy", "the steep", "the sandy", "the mossy", "the muddy",
              "the rocky", "the shady"),
}
RIGHT: dict[str, tuple[str, ...]] = {
    "neutral": ("was quiet today", "was empty", "was far away", "was near the road",
                "looked different", "was just ahead", "was hard to find", "was in the photo"),
    "money": ("raised its interest rates", "approved the loan", "charged a fee", "hired new tellers",
              "closed the account", "lent them money", "issued new bonds", "opened a branch downtown"),
    "river": ("flooded after the rain", "was covered in reeds", "collapsed into the water",
              "was full of ducks", "washed away in the storm", "gave way under the fishermen",
              "sloped down to the stream", "was lined with willows"),
}


@dataclass(frozen=True)
class Sentence:
    """One generated sentence and what the generator knows about it.

    Attributes
    ----------
    words : tuple of str, the sentence without boundary tokens
    sense : ``"money"``, ``"river"``, or ``None`` for an ambiguous sentence (cue ``"none"``)
    cue : where the sense phrase sits relative to "bank": ``"before"``, ``"after"``, ``"both"``, ``"none"``

    Raises
    ------
    ValueError
        a bad argument, for example ``cue``, ``sense``, ``words``: wrong type, shape or size, NaN or inf,
        or out of range; the message names the argument.
    """

    words: tuple[str, ...]
    sense: str | None
    cue: str

    def __post_init__(self):
        """Raises ``ValueError`` for words that are not a tuple of str holding "bank" once, a sense
        outside :data:`SENSES` (or None), or a cue outside :data:`CUES`."""
        if not isinstance(self.words, tuple) or not all(isinstance(w, str) for w in self.words) \
                or self.words.count(TARGET) != 1:
            raise ValueError(f"words must be a tuple of str holding {TARGET!r} exactly once, got {self.words!r}")
        if self.sense is not None and self.sense not in SENSES:
            raise ValueError(f"sense must be one of {SENSES} or None, got {self.sense!r}")
        if self.cue not in CUES:
            raise ValueError(f"cue must be one of {CUES}, got {self.cue!r}")

    @property
    def position(self) -> int:
        """Index of "bank" in ``words`` (each sentence holds it exactly once)."""
        return self.words.index(TARGET)

    @property
    def text(self) -> str:
        return " ".join(self.words)


@dataclass(frozen=True)
class Corpus:
    """Training and test sentences; no test sentence occurs in training."""

    train: tuple[Sentence, ...]
    test: tuple[Sentence, ...]


def _sentence(left_kind: str, left: str, right_kind: str, right: str) -> Sentence:
    words = tuple(left.split()) + (TARGET,) + tuple(right.split())
    cue = {(True, False): "before", (False, True): "after", (True, True): "both",
           (False, False): "none"}[(left_kind != "neutral", right_kind != "neutral")]
    kinds = {left_kind, right_kind} - {"neutral"}
    if len(kinds) > 1:
        raise ValueError(f"a sentence cannot mix senses, got left {left_kind!r} and right {right_kind!r}")
    return Sentence(words, kinds.pop() if kinds else None, cue)


def make_corpus(seed: int = 0, held_out: int = 4) -> Corpus:
    """Generate every sentence ``left + bank + right`` of the grammar and split them.

    For each sense and each neutral phrase (on either side), ``held_out`` of the sense's eight cue
    phrases are drawn (seeded) to pair with that neutral phrase in the test set; the other pairs go
    to training. Sentences with cues on both sides or on neither are all training sentences.

    Parameters
    ----------
    seed : int, seeds the draw of held-out pairs
    held_out : int, 1 <= held_out < 8: test pairs per neutral phrase and sense

    Returns
    -------
    Corpus whose ``test`` holds ``2 cue sides x 8 neutral phrases x 2 senses x held_out``
    sentences, and whose ``train`` holds every other sentence.

    Raises
    ------
    ValueError
        a bad argument, for example ``held_out``, ``seed``: wrong type, shape or size, NaN or inf,
        or out of range; the message names the argument.

    >>> corpus = make_corpus(seed=0)
    >>> len(corpus.train), len(corpus.test)
    (320, 128)
    >>> s = corpus.test[0]
    >>> s.text, s.sense, s.cue, s.position
    ('the central bank was quiet today', 'money', 'before', 2)
    >>> set(corpus.train).isdisjoint(corpus.test)
    True
    """
    n_cues = min(len(side[s]) for side in (LEFT, RIGHT) for s in SENSES)
    if isinstance(held_out, bool) or not isinstance(held_out, (int, np.integer)) or not 1 <= held_out < n_cues:
        raise ValueError(f"held_out must be an integer between 1 and {n_cues - 1}, got {held_out!r}")
    rng = np.random.default_rng(positive_int("seed", seed, minimum=0))
    train: list[Sentence] = []
    test: list[Sentence] = []
    for sense in SENSES:
        # cue before "bank": a sense phrase on the left, a neutral phrase on the right
        for right in RIGHT["neutral"]:
            chosen = set(rng.choice(len(LEFT[sense]), size=held_out, replace=False).tolist())
            for k, left in enumerate(LEFT[sense]):
                (test if k in chosen else train).append(_sentence(sense, left, "neutral", right))
        # cue after "bank": a neutral phrase on the left, a sense phrase on the right
        for left in LEFT["neutral"]:
            chosen = set(rng.choice(len(RIGHT[sense]), size=held_out, replace=False).tolist())
            for k, right in enumerate(RIGHT[sense]):
                (test if k in chosen else train).append(_sentence("neutral", left, sense, right))
        # cues on both sides: training only
        train += [_sentence(sense, left, sense, right) for left in LEFT[sense] for right in RIGHT[sense]]
    # no cue at all: ambiguous, unlabelled, training only
    train += [_sentence("neutral", left, "neutral", right)
              for left in LEFT["neutral"] for right in RIGHT["neutral"]]
    return Corpus(train=tuple(train), test=tuple(test))


def vocabulary(sentences) -> tuple[str, ...]:
    """The boundary tokens, then every word of ``sentences`` in sorted order.

    Raises
    ------
    ValueError
        a bad argument, for example ``sentences``: wrong type, shape or size, NaN or inf,
        or out of range; the message names the argument.

    >>> vocabulary([Sentence(("the", "bank", "was", "empty"), None, "none")])
    ('<s>', '</s>', 'bank', 'empty', 'the', 'was')
    """
    sentences = list(sentences)
    if not all(isinstance(s, Sentence) for s in sentences):
        raise ValueError("sentences must be Sentence objects (see make_corpus), got "
                         f"{sorted({type(s).__name__ for s in sentences})}")
    words = sorted({w for s in sentences for w in s.words})
    return (BOS, EOS) + tuple(words)


def encode(words, vocab) -> np.ndarray:
    """Token ids of ``[BOS] + words + [EOS]`` in ``vocab`` (a sequence of str).

    Returns
    -------
    ids : ndarray of int, shape (len(words) + 2,)

    Raises
    ------
    ValueError
        ``words`` a single str, or ``vocab`` without the boundary tokens.
    KeyError
        a word that is not in ``vocab``.

    >>> vocab = ("<s>", "</s>", "bank", "the")
    >>> encode(("the", "bank"), vocab)
    array([0, 3, 2, 1])
    >>> encode(("the", "bench"), vocab)
    Traceback (most recent call last):
    ...
    KeyError: "word 'bench' (position 1 of words) is not in the vocabulary of 4 words"
    """
    if isinstance(words, str):
        raise ValueError(f"words must be a sequence of words, not one str (got {words!r}; split it first)")
    index = {w: i for i, w in enumerate(vocab)}
    if BOS not in index or EOS not in index:
        raise ValueError(f"vocab must hold the boundary tokens {BOS!r} and {EOS!r} (see vocabulary)")
    ids = [index[BOS]]
    for t, w in enumerate(words):
        if w not in index:
            raise KeyError(f"word {w!r} (position {t} of words) is not in the vocabulary of {len(vocab)} words")
        ids.append(index[w])
    ids.append(index[EOS])
    return np.array(ids)
