"""Real English text and analogy questions, read from files that an installed package ships.

Nothing here downloads anything. Both data sets are test data inside the gensim wheel
(pinned in requirements.txt); gensim itself is never imported, only its files are read:

- ``enwiki-latest-pages-articles1.xml-...-shortened.bz2``: a MediaWiki XML export of the first
  pages of English Wikipedia (articles such as *Anarchism*, *Autism*, *Albedo*, *Alabama*,
  *Aristotle*). Wikipedia text is licensed CC BY-SA (authors: the Wikipedia contributors).
- ``questions-words.txt``: the word-analogy questions of Mikolov et al. (2013), released with the
  word2vec tool under the Apache 2.0 licence: 14 categories, 19,544 questions ``a b c d`` meaning
  "a is to b as c is to d".

Markup is stripped with a handful of regular expressions (:func:`strip_wiki_markup`): good
enough to train word vectors on, not a full MediaWiki parser.
"""

from __future__ import annotations

import bz2
import re
import xml.etree.ElementTree as ET
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from seqmodels.common._checks import positive_int

WIKI_FILE = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
ANALOGY_FILE = "questions-words.txt"

#: The five semantic categories of the analogy set; the other nine are syntactic.
SEMANTIC_CATEGORIES = ("capital-common-countries", "capital-world", "currency", "city-in-state", "family")

_TOKEN = re.compile(r"[a-z]+")


def package_data_path(name: str, distribution: str = "gensim") -> Path:
    """Path of ``test/test_data/<name>`` inside an installed distribution (no import needed).

    Raises ``KeyError`` naming ``name`` or ``distribution`` when either is not installed.

    >>> package_data_path("questions-words.txt").name
    'questions-words.txt'
    """
    try:
        dist = metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        raise KeyError(f"distribution {distribution!r} is not installed") from None
    path = Path(dist.locate_file(f"{distribution}/test/test_data/{name}"))
    if not path.is_file():
        raise KeyError(f"name {name!r} is not a data file of the installed {distribution} package (looked at {path})")
    return path


def _strip_nested(text: str, opening: str, closing: str) -> str:
    """Remove every ``opening ... closing`` span, nested spans included (``{{a {{b}} c}}``).

    A closing marker matches the latest opening one still open, as MediaWiki reads them; a stray
    closing marker is dropped. An opening marker that is never closed is kept as text, as MediaWiki
    shows it, with the text after it (spans closed inside it are still removed).
    """
    spans, open_at = [], []  # removed (start, end) spans; starts of the markers still open
    for m in re.finditer(re.escape(opening) + "|" + re.escape(closing), text):
        if m.group() == opening:
            open_at.append(m.start())
        else:
            spans.append((open_at.pop() if open_at else m.start(), m.end()))
    out, i = [], 0
    for start, stop in sorted(spans):
        if start >= i:  # a span inside one already removed is skipped
            out.append(text[i:start])
            i = stop
    out.append(text[i:])
    return "".join(out)


_PREFIXED_LINK = re.compile(r"\[\[(?:File|Image|Category|[a-z\-]{2,12}):")


def _strip_prefixed_links(text: str) -> str:
    """Remove ``[[File:...]]``, ``[[Image:...]]``, ``[[Category:...]]`` and interlanguage links,
    whose captions may hold links and brackets of their own. One never closed is kept as text."""
    out, pos = [], 0
    while (m := _PREFIXED_LINK.search(text, pos)) is not None:
        out.append(text[pos:m.start()])
        depth, j = 1, m.end()
        while depth and j < len(text):
            if text.startswith("[[", j):
                depth, j = depth + 1, j + 2
            elif text.startswith("]]", j):
                depth, j = depth - 1, j + 2
            else:
                j += 1
        if depth:
            out.append(m.group())  # never closed: kept as text, and the search goes on after it
            j = m.end()
        pos = j
    out.append(text[pos:])
    return "".join(out)


#: Elements whose content is not prose (formulas, chemistry, source code, music, timelines,
#: hieroglyphs): removed with their content before any other markup is read, so that braces in
#: LaTeX (``\frac{{a}}{b}``) or code never open a template or table.
_NON_PROSE = re.compile(r"<(math|chem|ce|source|syntaxhighlight|score|timeline|hiero)\b[^>]*(?<!/)>.*?</\1\s*>",
                        flags=re.S | re.I)


def strip_wiki_markup(text: str) -> str:
    """Plain text from MediaWiki markup: drop templates, tables, references, files, categories,
    formulas (``<math>``, ``<chem>``, ``<ce>``), source code (``<source>``, ``<syntaxhighlight>``)
    and tags; keep the visible text of links.

    Formulas and code go first, with their content, so their braces never open a template. A
    template ``{{``, table ``{|`` or file link ``[[File:`` that is never closed is kept as text
    with everything after it, as MediaWiki shows it (the rest of the text used to be dropped).

    Raises
    ------
    ValueError
        ``text`` not a str.

    >>> strip_wiki_markup("The '''[[river|River]] bank'''{{citation needed}}<ref>x</ref> is [[File:a.jpg|thumb|b]]wide.")
    "The '''River bank''' is wide."
    >>> strip_wiki_markup("a {{b {{c}} d")
    'a {{b  d'
    >>> strip_wiki_markup("so <math>x = {{a}+b}</math> holds{{cn}}, and more.")  # a "{{" in LaTeX
    'so  holds, and more.'
    """
    _check_text(text)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = _NON_PROSE.sub("", text)
    text = re.sub(r"<ref[^>]*/>", "", text)
    text = re.sub(r"<ref.*?</ref>", "", text, flags=re.S)
    text = _strip_nested(text, "{{", "}}")
    text = _strip_nested(text, "{|", "|}")
    text = _strip_prefixed_links(text)
    text = re.sub(r"\[\[(?:[^\]|]*\|)?([^\]]*)\]\]", r"\1", text)  # [[target|shown]] -> shown
    text = re.sub(r"\[https?://\S+ ?([^\]]*)\]", r"\1", text)  # [url shown] -> shown
    text = re.sub(r"<[^>]+>", "", text)
    return re.sub(r"&[a-z]+;", " ", text)


def tokenize(text: str) -> list[str]:
    """Lower-case runs of the letters a-z; digits and punctuation separate tokens.

    Raises
    ------
    ValueError
        ``text`` not a str.

    >>> tokenize("The river's bank, in 1990: not the Bank!")
    ['the', 'river', 's', 'bank', 'in', 'not', 'the', 'bank']
    """
    _check_text(text)
    return _TOKEN.findall(text.lower())


def _check_text(text) -> None:
    if not isinstance(text, str):
        raise ValueError(f"text must be a str, got {type(text).__name__}")


@lru_cache(maxsize=1)
def wikipedia_articles() -> tuple[tuple[str, str], ...]:
    """``(title, plain text)`` of every article in the Wikipedia sample, in file order.

    Redirects and pages outside the article namespace are left out. Cached per process. Markup is
    stripped by :func:`strip_wiki_markup`.
    """
    root = ET.fromstring(bz2.decompress(package_data_path(WIKI_FILE).read_bytes()))
    ns = {"m": root.tag[1:].split("}")[0]}
    articles = []
    for page in root.findall("m:page", ns):
        text = page.findtext("m:revision/m:text", default="", namespaces=ns)
        if page.findtext("m:ns", namespaces=ns) != "0" or page.find("m:redirect", ns) is not None \
                or text.lstrip().lower().startswith("#redirect"):
            continue
        articles.append((page.findtext("m:title", namespaces=ns), strip_wiki_markup(text)))
    return tuple(articles)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_PLAIN_SENTENCE = re.compile(r"[A-Z][A-Za-z0-9 ,;:'()\-]*[A-Za-z0-9)][.!?]")


@lru_cache(maxsize=4)
def wikipedia_sentences(min_words: int = 8, max_words: int = 20) -> tuple[str, ...]:
    """Plain sentences of the Wikipedia sample, each once, sorted: a capital letter first, then only
    letters, digits, spaces and ``, ; : ' ( ) -``, and one final ``.``, ``!`` or ``?``; between
    ``min_words`` and ``max_words`` words (split on spaces). Sentences are cut after ``.``, ``!``,
    ``?`` followed by a space, so an abbreviation ("Dr. Smith") can end one early; the rule about
    characters drops most such fragments and every line with leftover markup. Cached per process.

    Raises
    ------
    ValueError
        ``min_words`` or ``max_words`` not an integer >= 1, or ``min_words > max_words``; the
        message names the argument.

    >>> sents = wikipedia_sentences()
    >>> len(sents) > 5000, all(8 <= len(s.split()) <= 20 for s in sents)
    (True, True)
    """
    positive_int("min_words", min_words)
    positive_int("max_words", max_words)
    if min_words > max_words:
        raise ValueError(f"min_words must be at most max_words, got min_words={min_words}, max_words={max_words}")
    found = set()
    for _, text in wikipedia_articles():
        for line in text.split("\n"):
            for s in _SENTENCE_END.split(line.strip()):
                if min_words <= len(s.split()) <= max_words and _PLAIN_SENTENCE.fullmatch(s):
                    found.add(" ".join(s.split()))
    return tuple(sorted(found))


def wikipedia_tokens() -> list[list[str]]:
    """The Wikipedia sample as one token list per article (see :func:`tokenize`)."""
    return [tokenize(text) for _, text in wikipedia_articles()]


@lru_cache(maxsize=1)
def analogy_questions() -> dict[str, tuple[tuple[str, str, str, str], ...]]:
    """The word2vec analogy set, lower-cased: ``{category: ((a, b, c, d), ...)}`` in file order.

    >>> q = analogy_questions()
    >>> len(q), sum(len(v) for v in q.values())
    (14, 19544)
    >>> q["family"][0]
    ('boy', 'girl', 'brother', 'sister')
    """
    questions: dict[str, list[tuple[str, str, str, str]]] = {}
    category = None
    for line in package_data_path(ANALOGY_FILE).read_text().splitlines():
        if line.startswith(":"):
            category = line[1:].strip()
            questions[category] = []
        elif line.strip():
            a, b, c, d = line.lower().split()
            questions[category].append((a, b, c, d))
    return {k: tuple(v) for k, v in questions.items()}
