"""The built site, read as files: every local link and anchor resolves, every image has real alt text.

External links are not fetched (the tests run offline); everything else that a page points to,
with ``href`` or ``src``, must exist in the built site, and a ``#fragment`` must name an ``id`` on
the target page. Stylesheets are checked the same way for their ``url(...)`` references.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

#: Attributes that point at another file or anchor.
POINTERS = {"a": ["href"], "area": ["href"], "link": ["href"], "img": ["src"], "script": ["src"],
            "source": ["src"], "iframe": ["src"], "video": ["src", "poster"], "audio": ["src"],
            "track": ["src"], "embed": ["src"], "object": ["data"]}
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)
CSS_URL = re.compile(r"""url\(\s*['"]?(?P<url>[^'")\s]+)""", re.I)
#: What matplotlib and Jupyter write when nobody wrote alt text, and names that describe nothing.
PLACEHOLDER_ALT = re.compile(r"^\s*(<Figure size|<matplotlib|Figure\s*\d*\s*$|image\s*$|png\s*$|svg\s*$|"
                             r"[0-9a-f]{16,}\.(png|svg|jpe?g)$|output_\d)", re.I)
DECORATIVE = {"presentation", "none"}


@cache
def soup_of(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(errors="replace"), "html.parser")


@cache
def anchors_of(path: Path) -> frozenset[str]:
    soup = soup_of(path)
    return frozenset([el["id"] for el in soup.find_all(id=True)] +
                     [el["name"] for el in soup.find_all("a", attrs={"name": True})])


def html_pages(site: Path) -> list[Path]:
    """The pages (not the theme's Jinja macro files that Sphinx copies into ``_static/``)."""
    return sorted(p for p in site.rglob("*.html")
                  if p.is_file() and p.relative_to(site).parts[0] not in ("_static", "_sources"))


def local_pointers(page: Path):
    """``(tag, url)`` for every local ``href``/``src`` of the page (remote and ``mailto:`` etc. skipped)."""
    soup = soup_of(page)
    for tag, attrs in POINTERS.items():
        for el in soup.find_all(tag):
            for attr in attrs:
                url = (el.get(attr) or "").strip()
                if url and not SCHEME.match(url) and not url.startswith("//"):
                    yield f"<{tag} {attr}>", url


def broken(site: Path, page: Path, url: str) -> str | None:
    """Why ``url`` on ``page`` does not resolve inside ``site``, or None when it does."""
    parts = urlsplit(url)
    target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
    if not target.is_relative_to(site.resolve()):
        return "points outside the site"
    if target.is_dir():
        target = target / "index.html"
    if not target.is_file():
        return "no such file"
    fragment = unquote(parts.fragment)
    if fragment and target.suffix == ".html" and fragment not in anchors_of(target):
        return f"no id {fragment!r} in {target.relative_to(site.resolve())}"
    return None


def broken_links(site: Path) -> dict[str, list[str]]:
    site = site.resolve()
    found = {}
    for page in html_pages(site):
        bad = [f"{tag} {url}: {why}" for tag, url in local_pointers(page)
               if (why := broken(site, page, url))]
        if bad:
            found[str(page.relative_to(site))] = bad
    for css in sorted(site.rglob("*.css")):
        bad = [f"url({m['url']}): {why}" for m in CSS_URL.finditer(css.read_text(errors="replace"))
               if not SCHEME.match(m["url"]) and not m["url"].startswith(("//", "#"))
               and (why := broken(site, css, m["url"]))]
        if bad:
            found[str(css.relative_to(site))] = bad
    return found


def test_the_link_checker_catches_broken_files_and_anchors(tmp_path):
    (tmp_path / "a.html").write_text(
        '<p id="here"><a href="b.html#there">ok</a> <a href="b.html#gone">bad anchor</a> '
        '<a href="#here">self</a> <a href="#nowhere">bad self</a> <a href="c.html">missing</a> '
        '<img src="_images/x.svg" alt="x"> <a href="https://example.org/#x">external</a> '
        '<a href="mailto:a@b.c">mail</a> <a href="../outside.html">outside</a></p>')
    (tmp_path / "b.html").write_text('<h1 id="there">B</h1>')
    (tmp_path / "s.css").write_text("@font-face{src:url(fonts/f.woff2) format('woff2')}")
    found = broken_links(tmp_path)
    assert sorted(found) == ["a.html", "s.css"]
    assert [entry.split(":")[0] for entry in found["a.html"]] == [
        "<a href> b.html#gone", "<a href> #nowhere", "<a href> c.html", "<a href> ../outside.html",
        "<img src> _images/x.svg"]


def test_no_broken_internal_link_or_anchor(site):
    pages = html_pages(site)
    assert len(pages) >= 5, f"only {len(pages)} pages found in {site}"
    found = broken_links(site)
    assert not found, f"broken local links: {found}"


def test_chapters_link_to_glossary_bibliography_and_numbered_items(site):
    """The back matter is reachable and used: glossary terms, citations, figures and equations."""
    hrefs = [a.get("href", "") for a in soup_of(site / "rnn.html").find_all("a")]
    assert any(h.startswith("glossary.html#term-") for h in hrefs), "rnn.html links no glossary term"
    assert any(h.startswith("references.html#") for h in hrefs), "rnn.html cites nothing"
    assert any("#fig-" in h for h in hrefs) and any("#equation-" in h for h in hrefs)
    text = soup_of(site / "rnn.html").get_text(" ")
    # Numbers run through the whole book (numfig_secnum_depth = 0), so rnn.html need not hold "Fig. 1".
    assert re.search(r"Fig\.\s*\d+\b", text) and re.search(r"\(\d+\)", text), "figures or equations unnumbered"


def test_every_image_has_real_alt_text(site):
    images = 0
    problems = []
    for page in html_pages(site):
        for img in soup_of(page).find_all("img"):
            images += 1
            alt = img.get("alt")
            decorative = img.get("role") in DECORATIVE or img.get("aria-hidden") == "true"
            src = img.get("src", "")
            if alt is None:
                problems.append(f"{page.name}: {src} has no alt attribute")
            elif not alt.strip() and not decorative:
                problems.append(f"{page.name}: {src} has empty alt text but is not marked decorative")
            elif alt.strip() and (PLACEHOLDER_ALT.match(alt) or alt.strip() == Path(src).name
                                  or len(alt.split()) < 4):
                problems.append(f"{page.name}: {src} has placeholder alt text {alt!r}")
    assert images >= 2, f"only {images} images found: the check is blind"
    assert not problems, "\n".join(problems)
