r"""A generated corpus in which "bank" has two senses and the cue sits before or after it.

Every sentence is ``left + ["bank"] + right``. A *frame* fixes the role "bank" plays (the object
of a verb or preposition, or the subject of a clause); within a frame, each side is drawn from one
of three lists of phrases:

- ``"neutral"``: words that occur with both senses ("he went to the", "today");
- ``"money"``: words that occur only with the financial sense ("she cashed a check at the");
- ``"river"``: words that occur only with the riverside sense ("we fished from the").

So a sentence's *cue* is ``"before"`` (a sense phrase on the left, a neutral one on the right),
``"after"`` (the reverse), ``"both"`` or ``"none"``. Its sense is the sense of its cue phrases
(``None`` when there is no cue: "he went to the bank today" is ambiguous, and stays unlabelled).

Train and test are kept apart by *combination*: every test sentence pairs a left part and a right
part that never occur together in training, and every test sentence has exactly one cue side. The
test set is balanced: each neutral phrase of a test sentence occurs equally often with both senses,
so the neutral side alone says nothing about the sense.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TARGET = "bank"
SENSES = ("money", "river")
BOS, EOS = "<s>", "</s>"
CUES = ("before", "after", "both", "none")


@dataclass(frozen=True)
class Frame:
    """One sentence shape: ``left[kind] + ["bank"] + right[kind]`` for kind in neutral/money/river."""

    name: str
    left: dict[str, tuple[str, ...]]
    right: dict[str, tuple[str, ...]]


GRAMMAR: tuple[Frame, ...] = (
    Frame(
        name="object",  # "bank" after a verb or preposition
        left={
            "neutral": ("he went to the", "she walked to the", "we looked at the",
                        "they drove past the", "i met her near the", "we waited by the"),
            "money": ("she cashed a check at the", "he deposited his salary at the",
                      "they opened an account at the", "we asked for a loan at the",
                      "i withdrew some cash at the", "he paid the fee at the"),
            "river": ("we fished from the", "the ducks swam to the", "they moored the canoe at the",
                      "she watched the fish from the", "he sat on the river", "the otters played on the"),
        },
        right={
            "neutral": ("", "today", "this morning", "after lunch", "again", "with a friend"),
            "money": ("to cash a check", "to deposit the money", "to open an account",
                      "to withdraw some cash", "to ask about a loan", "to pay the fee"),
            "river": ("to watch the ducks", "to catch fish", "to launch the canoe",
                      "to see the otters", "to dip our feet in the water", "to look at the reeds"),
        },
    ),
    Frame(
        name="subject",  # "bank" begins a clause
        left={
            "neutral": ("the", "that old", "the nearby", "this", "the little", "the same"),
            "money": ("the savings", "the investment", "the central", "the national",
                      "the mortgage", "the commercial"),
            "river": ("the river", "the grassy", "the steep", "the sandy", "the mossy", "the muddy"),
        },
        right={
            "neutral": ("was quiet today", "was empty", "is old", "was near the road",
                        "looked different", "was just ahead"),
            "money": ("raised its interest rates", "approved the loan", "charged a fee",
                      "hired new tellers", "closed the account", "lent them money"),
            "river": ("flooded after the rain", "was covered in reeds", "collapsed into the water",
                      "was full of ducks", "washed away in the storm", "gave way under the fishermen"),
        },
    ),
)


@dataclass(frozen=True)
class Sentence:
    """One generated sentence and what the generator knows about it.

    Attributes
    ----------
    words : tuple of str, the sentence without boundary tokens
    sense : ``"money"``, ``"river"``, or ``None`` for an ambiguous sentence (cue ``"none"``)
    cue : where the sense phrase sits relative to "bank": ``"before"``, ``"after"``, ``"both"``, ``"none"``
    frame : name of the :class:`Frame` it came from
    """

    words: tuple[str, ...]
    sense: str | None
    cue: str
    frame: str

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


def _sentence(frame: Frame, left_kind: str, left: str, right_kind: str, right: str) -> Sentence:
    words = tuple(left.split()) + (TARGET,) + tuple(right.split())
    cue = {(True, False): "before", (False, True): "after", (True, True): "both",
           (False, False): "none"}[(left_kind != "neutral", right_kind != "neutral")]
    kinds = {left_kind, right_kind} - {"neutral"}
    if len(kinds) > 1:
        raise ValueError(f"a sentence cannot mix senses, got left {left_kind!r} and right {right_kind!r}")
    return Sentence(words, kinds.pop() if kinds else None, cue, frame.name)


def make_corpus(seed: int = 0, held_out: int = 3) -> Corpus:
    """Generate every sentence of :data:`GRAMMAR` and split it into train and test.

    For each frame and sense, and for each neutral phrase, ``held_out`` of the sense's cue phrases
    are drawn (seeded) to pair with that neutral phrase in the test set; all other pairs go to
    training. Sentences with cues on both sides or on neither side are all training sentences.

    Parameters
    ----------
    seed : int, seeds the draw of held-out pairs
    held_out : int, 1 <= held_out < number of cue phrases (6): test pairs per neutral phrase and sense

    Returns
    -------
    Corpus whose ``test`` holds ``2 frames x 2 cue sides x 6 neutral phrases x 2 senses x held_out``
    sentences, balanced over senses for every neutral phrase.

    >>> corpus = make_corpus(seed=0)
    >>> len(corpus.train), len(corpus.test)
    (360, 144)
    >>> s = corpus.test[0]
    >>> s.text, s.sense, s.cue, s.position
    ('we asked for a loan at the bank', 'money', 'before', 7)
    >>> set(corpus.train).isdisjoint(corpus.test)
    True
    """
    n_cues = min(len(f.left[s]) for f in GRAMMAR for s in SENSES)
    if not 1 <= held_out < n_cues:
        raise ValueError(f"held_out must be between 1 and {n_cues - 1}, got {held_out}")
    rng = np.random.default_rng(seed)
    train: list[Sentence] = []
    test: list[Sentence] = []
    for frame in GRAMMAR:
        for sense in SENSES:
            # cue before "bank": a sense phrase on the left, a neutral phrase on the right
            for right in frame.right["neutral"]:
                chosen = set(rng.choice(len(frame.left[sense]), size=held_out, replace=False).tolist())
                for k, left in enumerate(frame.left[sense]):
                    s = _sentence(frame, sense, left, "neutral", right)
                    (test if k in chosen else train).append(s)
            # cue after "bank"
            for left in frame.left["neutral"]:
                chosen = set(rng.choice(len(frame.right[sense]), size=held_out, replace=False).tolist())
                for k, right in enumerate(frame.right[sense]):
                    s = _sentence(frame, "neutral", left, sense, right)
                    (test if k in chosen else train).append(s)
            # cues on both sides: training only
            train += [_sentence(frame, sense, left, sense, right)
                      for left in frame.left[sense] for right in frame.right[sense]]
        # no cue at all: ambiguous, unlabelled, training only
        train += [_sentence(frame, "neutral", left, "neutral", right)
                  for left in frame.left["neutral"] for right in frame.right["neutral"]]
    return Corpus(train=tuple(train), test=tuple(test))


def vocabulary(sentences) -> tuple[str, ...]:
    """The boundary tokens, then every word of ``sentences`` in sorted order.

    >>> vocabulary([Sentence(("the", "bank", "was", "empty"), None, "none", "subject")])
    ('<s>', '</s>', 'bank', 'empty', 'the', 'was')
    """
    words = sorted({w for s in sentences for w in s.words})
    return (BOS, EOS) + tuple(words)


def encode(words, vocab) -> np.ndarray:
    """Token ids of ``[BOS] + words + [EOS]`` in ``vocab`` (a sequence of str).

    Returns
    -------
    ids : ndarray of int, shape (len(words) + 2,)

    >>> vocab = ("<s>", "</s>", "bank", "the")
    >>> encode(("the", "bank"), vocab)
    array([0, 3, 2, 1])
    >>> encode(("the", "bench"), vocab)
    Traceback (most recent call last):
    ...
    KeyError: "word 'bench' (position 1 of words) is not in the vocabulary of 4 words"
    """
    index = {w: i for i, w in enumerate(vocab)}
    ids = [index[BOS]]
    for t, w in enumerate(words):
        if w not in index:
            raise KeyError(f"word {w!r} (position {t} of words) is not in the vocabulary of {len(vocab)} words")
        ids.append(index[w])
    ids.append(index[EOS])
    return np.array(ids)
