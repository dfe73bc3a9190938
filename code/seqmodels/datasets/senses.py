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

:func:`make_distant_corpus` is harder: its cue phrases join two sense words ("the loan and the
fee") three to five words away from "bank", and its test cue phrases occur in training in neither
order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seqmodels.common._checks import positive_int

TARGET = "bank"
#: The two senses of "bank": the financial one and the riverside one.
SENSES = ("money", "river")
BOS, EOS = "<s>", "</s>"
#: Where a sentence's sense phrases sit: left of "bank", right of it, on both sides, or nowhere.
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
#: The phrase after "bank", by kind (see :data:`LEFT`).
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
        ``words`` not a tuple of str holding "bank" exactly once, ``sense`` not one of
        :data:`SENSES` or None, ``cue`` not one of :data:`CUES`.
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
        ``held_out`` not an integer in ``[1, 7]``, ``seed`` not an integer >= 0.

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
        a member of ``sentences`` that is not a :class:`Sentence`.

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


# --- A harder corpus: cues several words away, cue phrases never seen in training ------------------

#: Cue words of the harder corpus: each names one sense, and a cue phrase joins two of them.
CUE_WORDS: dict[str, tuple[str, ...]] = {
    "money": ("loan", "mortgage", "deposit", "teller", "account", "cheque", "salary", "fee"),
    "river": ("river", "reeds", "ducks", "willows", "mud", "stream", "fishermen", "flood"),
}
#: Words between a cue phrase and "bank": before it (cue first) and after it (cue last).
GAP_BEFORE = ("we saw the", "we passed the old", "they found the little", "she reached the nearby")
GAP_AFTER = ("was quiet", "looked empty", "was far away", "stood there")
#: Neutral words on the side of "bank" that has no cue.
FILL_AFTER = ("at noon", "again", "that day", "once more")
FILL_BEFORE = ("the", "the old", "the little", "the nearby")


def _cue_phrase(a: str, b: str) -> str:
    return f"the {a} and the {b}"


def make_distant_corpus(seed: int = 0, held_out: int = 7, per_pair: int = 2) -> Corpus:
    """Sentences whose cue sits several words from "bank" and whose test cue phrases are new.

    A cue phrase is ``"the A and the B"`` for two different cue words of one sense
    (:data:`CUE_WORDS`). Cue before "bank"::

        after <cue phrase> <GAP_BEFORE> bank <FILL_AFTER>
        after the loan and the fee we saw the bank at noon

    and cue after it::

        <FILL_BEFORE> bank <GAP_AFTER> with <cue phrase>
        the old bank was quiet with the reeds and the ducks

    so three to five words separate "bank" from the nearest cue word. For each sense ``held_out``
    of the 28 unordered pairs ``{A, B}`` are drawn (seeded) as test pairs, and the test set holds
    both orders, "the A and the B" and "the B and the A": neither order occurs in training, on
    either side of "bank". Each cue word keeps a training pair when ``held_out`` < 7 (a word is in
    7 pairs); with more, a draw can hold out all of one word's pairs. Every (ordered pair, side) yields
    ``per_pair`` sentences with gap and filler phrases (seeded in training; in the test set each
    phrase occurs equally often with each sense, so the side without the cue says nothing). Training
    also holds sentences with training cue phrases on both sides (``cue="both"``, ``per_pair`` per
    training pair), in which the words before "bank" predict the words after it, and unlabelled
    sentences with no cue.

    Returns
    -------
    Corpus; its test sentences all have a cue (``"before"`` or ``"after"``) and a held-out pair.

    Raises
    ------
    ValueError
        ``held_out`` outside ``1 .. 27`` or ``per_pair`` < 1.

    >>> c = make_distant_corpus()
    >>> len(c.train), len(c.test)
    (536, 112)
    >>> c.test[0].text, c.test[0].cue
    ('after the loan and the deposit we saw the bank at noon', 'before')
    """
    n_words = len(CUE_WORDS["money"])
    n_pairs = n_words * (n_words - 1) // 2  # unordered
    if isinstance(held_out, bool) or not isinstance(held_out, (int, np.integer)) or not 1 <= held_out < n_pairs:
        raise ValueError(f"held_out must be an integer between 1 and {n_pairs - 1}, got {held_out!r}")
    if isinstance(per_pair, bool) or not isinstance(per_pair, (int, np.integer)) or per_pair < 1:
        raise ValueError(f"per_pair must be an integer >= 1, got {per_pair!r}")
    rng = np.random.default_rng(seed)
    train: list[Sentence] = []
    test: list[Sentence] = []
    for sense in SENSES:
        words = CUE_WORDS[sense]
        pairs = [(a, b) for a in words for b in words if a != b]
        unordered = [(a, b) for k, a in enumerate(words) for b in words[k + 1:]]
        held = {frozenset(unordered[k]) for k in rng.choice(len(unordered), size=held_out, replace=False)}
        chosen = {k for k, pair in enumerate(pairs) if frozenset(pair) in held}  # both orders
        n_test = 0
        for k, (a, b) in enumerate(pairs):
            for _ in range(per_pair):
                if k in chosen:  # test: every filler and gap phrase equally often with each sense
                    j, n_test = n_test % 4, n_test + 1
                    gap_b, fill_a, fill_b, gap_a = GAP_BEFORE[j], FILL_AFTER[j], FILL_BEFORE[j], GAP_AFTER[j]
                else:
                    gap_b, fill_a = GAP_BEFORE[rng.integers(4)], FILL_AFTER[rng.integers(4)]
                    fill_b, gap_a = FILL_BEFORE[rng.integers(4)], GAP_AFTER[rng.integers(4)]
                before = f"after {_cue_phrase(a, b)} {gap_b} {TARGET} {fill_a}".split()
                after = f"{fill_b} {TARGET} {gap_a} with {_cue_phrase(a, b)}".split()
                out = test if k in chosen else train
                out.append(Sentence(tuple(before), sense, "before"))
                out.append(Sentence(tuple(after), sense, "after"))
        # cues on both sides, from training pairs only: here the words before "bank" predict the
        # words after it, the signal that teaches a language model to carry the sense across "bank"
        kept = [pair for k, pair in enumerate(pairs) if k not in chosen]
        for k in range(per_pair * len(kept)):
            (a, b), (c, e) = kept[k % len(kept)], kept[rng.integers(len(kept))]
            both = (f"after {_cue_phrase(a, b)} {GAP_BEFORE[rng.integers(4)]} {TARGET} "
                    f"{GAP_AFTER[rng.integers(4)]} with {_cue_phrase(c, e)}")
            train.append(Sentence(tuple(both.split()), sense, "both"))
    for fill_b, gap_b in zip(FILL_BEFORE, GAP_BEFORE):  # no cue: unlabelled
        train += [Sentence(tuple(f"{fill_b} {TARGET} {gap_a}".split()), None, "none") for gap_a in GAP_AFTER]
        train += [Sentence(tuple(f"{gap_b} {TARGET} {fill_a}".split()), None, "none") for fill_a in FILL_AFTER]
    return Corpus(train=tuple(train), test=tuple(test))
