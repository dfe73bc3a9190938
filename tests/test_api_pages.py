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


def test_each_layer_has_its_page_in_the_api_contents():
    layers = sorted(m.split(".")[1] for m in public_modules() if m.count(".") == 1)
    pages = sorted(p.stem for p in API.glob("*.md") if p.stem != "index")
    assert layers == pages, f"layers {layers}, API pages {pages}: one page per layer"
    contents = re.search(r"```\{toctree\}\n(.*?)```", (API / "index.md").read_text(), re.S).group(1)
    assert sorted(line.strip() for line in contents.splitlines()[1:] if line.strip()) == layers


def test_the_built_api_pages_hold_every_module(site):
    anchors = set()
    for page in (site / "api").glob("*.html"):
        soup = BeautifulSoup(page.read_text(), "html.parser")
        anchors |= {tag["id"] for tag in soup.find_all(id=re.compile(r"^module-"))}
    assert anchors == {f"module-{m}" for m in public_modules()}
