"""The API pages (``book/api/``): every public module of seqmodels is documented exactly once, and
the built pages carry every one of them."""

import pkgutil
import re

from bs4 import BeautifulSoup

import seqmodels
from conftest import BOOK

API = BOOK / "api"


def public_modules() -> list[str]:
    """Every module and subpackage of seqmodels with no ``_``-prefixed part, the package itself
    included."""
    found = ["seqmodels"]
    for info in pkgutil.walk_packages(seqmodels.__path__, "seqmodels."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            found.append(info.name)
    return sorted(found)


def documented_modules() -> list[str]:
    """The ``automodule`` directives of the API pages' sources, one entry per directive."""
    return sorted(name for page in sorted(API.glob("*.md"))
                  for name in re.findall(r"^\.\. automodule:: (\S+)\s*$", page.read_text(), re.M))


def test_every_public_module_is_on_the_api_pages_once():
    modules, documented = public_modules(), documented_modules()
    assert len(modules) > 40, f"only {modules}: the walk is blind"
    missing = sorted(set(modules) - set(documented))
    assert not missing, f"modules without an `.. automodule::` on a page of book/api/: {missing}"
    twice = sorted({m for m in documented if documented.count(m) > 1})
    assert not twice, f"modules documented more than once: {twice}"
    stale = sorted(set(documented) - set(modules))
    assert not stale, f"book/api/ documents modules that do not exist (or are private): {stale}"


def test_each_layer_has_its_page_in_the_contents():
    """One page per layer, each in the contents (book/index.md's "The seqmodels package" toctree,
    a flat list: a page with children would get a disclosure toggle with no text) and linked from
    the package's page."""
    layers = sorted(m.split(".")[1] for m in public_modules() if m.count(".") == 1)
    pages = sorted(p.stem for p in API.glob("*.md") if p.stem != "index")
    assert layers == pages, f"layers {layers}, API pages {pages}: one page per layer"
    contents = re.search(r"```\{toctree\}\n(?::.*\n)*:caption: The seqmodels package\n(?::.*\n)*\n(.*?)```",
                         (BOOK / "index.md").read_text(), re.S)
    assert contents, "book/index.md has no toctree captioned 'The seqmodels package'"
    listed = contents.group(1).split()
    assert listed[0] == "api/index" and sorted(listed[1:]) == [f"api/{layer}" for layer in layers], listed
    linked = re.findall(r"\{doc\}`(\w+)`", (API / "index.md").read_text())
    assert sorted(linked) == layers, f"api/index.md links {linked}"
    assert "{toctree}" not in "".join(p.read_text() for p in API.glob("*.md")), \
        "an API page with a toctree nests pages in the contents"


def test_the_built_api_pages_hold_every_module(site):
    anchors = set()
    for page in (site / "api").glob("*.html"):
        soup = BeautifulSoup(page.read_text(), "html.parser")
        anchors |= {tag["id"] for tag in soup.find_all(id=re.compile(r"^module-"))}
    assert anchors == {f"module-{m}" for m in public_modules()}


_CODE_FENCE = re.compile(r"^\{code-cell\}|^(python|text|console|bash|pycon|ipython3?)?\s*$")


def unlinked_mentions(text: str) -> list[str]:
    r"""The names ``seqmodels.x.y`` a page's prose writes as plain code (`` `seqmodels.x` ``)
    instead of a link to the API pages (`` {py:obj}`seqmodels.x` ``); code cells and code blocks
    are not prose. Directive bodies (an exercise, a figure's caption) are.

    >>> unlinked_mentions("See `seqmodels.models.rnn`.\n```{code-cell}\n# `seqmodels.x`\n```\n"
    ...                   "```{exercise}\nUse {py:obj}`seqmodels.models.lstm` or `seqmodels.common`.\n```\n")
    ['seqmodels.models.rnn', 'seqmodels.common']
    """
    found, stack = [], []  # stack: (fence, is code) of the blocks the line is in
    for line in text.split("\n"):
        fence = re.match(r"^(`{3,}|~{3,}|:{3,})(.*)$", line.strip())
        if fence and stack and fence[1] == stack[-1][0] and not fence[2].strip():
            stack.pop()
        elif fence and not (stack and stack[-1][1]):
            stack.append((fence[1], bool(_CODE_FENCE.match(fence[2].strip())) and fence[1][0] != ":"))
        elif not (stack and stack[-1][1]):
            found += re.findall(r"(?<![}`])`(seqmodels(?:\.\w+)+)`", line)
    return found


def test_the_chapters_link_every_package_name_they_mention():
    pages = [p for p in sorted(BOOK.rglob("*.md")) if "api" not in p.relative_to(BOOK).parts]
    assert pages, f"no pages under {BOOK}"  # (the scan's doctest shows it sees a mention)
    unlinked = {p.relative_to(BOOK).as_posix(): names for p in pages if (names := unlinked_mentions(p.read_text()))}
    assert not unlinked, ("write these as {py:obj}`seqmodels...` links to the API pages "
                          f"(page: names): {unlinked}")
