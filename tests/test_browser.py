"""The built site in a real browser: Debian's Chromium, driven by Playwright, offline.

The site is served from ``<BUILDDIR>/html`` on 127.0.0.1 (a thread inside the test) and every page
is opened twice, once with the system in light mode and once in dark mode. Requests to any other
host are blocked and recorded. The tests fail on a request that left the site, a console error or
page error, a local file that did not load, an image with ``naturalWidth == 0``, math that did not
render (no MathML box, TeX left unconverted, or the site's math font not loaded), a theme that did
not follow the system's mode, a figure without its light card in dark mode, a search that finds nothing, or an accessibility violation of any impact
found by axe-core (vendored in ``tests/vendor/axe-core``, injected by the test, never part of the
site). Every page is also opened at a laptop's width and a phone's: no box may be wider than its
space, and no page may scroll sideways.

Screenshots of every page's first screen in both modes are written to the session's temporary
folder (its path is printed at the end of the run); set ``SEQMODELS_SCREENSHOTS=<folder>`` to keep
them somewhere else, with a screenshot of each whole page too (it costs as much as the visit's
accessibility checks, so only on request).

The browser is the user's own Chromium or Chrome (``seqbook.tools.browser_path``: ``$SEQMODELS_BROWSER``,
the usual command names, the usual install paths). Without one the tests skip with a message and
the end of the run says how many did not run and how to install it; with ``CI=true`` a missing
browser is a failure. Playwright's own browser downloads are never used (``executable_path``).
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from PIL import Image

from seqbook.tools.browser_path import find_browser, missing_message
from conftest import EXECUTED_PAGES, HTML
from seqmodels.display.plotting import INK

pytestmark = [pytest.mark.browser, pytest.mark.site]

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCHEMES = ("light", "dark")
VIEWPORT = {"width": 1280, "height": 900}
TIMEOUT_MS = 30_000
#: axe-core impact levels that fail the build: every one.
FAILING_IMPACTS = ("minor", "moderate", "serious", "critical")
#: Pages every build has, and a word that always leads to one of them in search.
ALWAYS = {"recurrent": "rnn.html"}
#: A word whose chapter the search must find once that chapter exists.
WHEN_PRESENT = {"LSTM": "lstm.html"}


def chromium() -> str:
    path = find_browser()
    if path is None:
        message = missing_message()
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + "; CI=true, so this is a failure", pytrace=False)
        pytest.skip(message)
    return path


def pages_of(site: Path) -> list[str]:
    """Every HTML page of the site, as paths relative to its root (assets excluded)."""
    skip = {"_static", "_sources", "_images", "_downloads"}
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if not skip & set(p.relative_to(site).parts[:-1]))


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="session")
def server(site):
    """The built site on a free port of 127.0.0.1, served by a thread."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="session")
def browser():
    executable = chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@dataclass
class Visit:
    """What happened while one page loaded in one colour scheme."""

    page: str
    scheme: str
    external: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_local: list[str] = field(default_factory=list)
    broken_images: list[str] = field(default_factory=list)
    math: dict = field(default_factory=dict)
    theme: dict = field(default_factory=dict)
    dark_cards: list[dict] = field(default_factory=list)
    axe: list[dict] = field(default_factory=list)
    solutions: list[dict] = field(default_factory=list)
    solutions_opened: list[dict] = field(default_factory=list)
    screenshots: list[Path] = field(default_factory=list)


def new_context(browser, server: str, scheme: str, visit_log: list[Visit]):
    """A browser context whose requests to any other host are aborted and recorded."""
    context = browser.new_context(color_scheme=scheme, viewport=VIEWPORT, service_workers="block")
    own = urlsplit(server).netloc

    def guard(route):
        url = route.request.url
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about") or parts.netloc == own:
            route.continue_()
        else:
            visit_log[-1].external.append(url)
            route.abort("blockedbyclient")

    context.route("**/*", guard)
    return context


IMAGES_JS = """async () => {
  const imgs = Array.from(document.images);
  for (const img of imgs) { if (img.loading === "lazy") img.loading = "eager"; }
  await Promise.all(imgs.map(img => img.complete ? null : new Promise(done => {
    img.addEventListener("load", done); img.addEventListener("error", done); })));
  return imgs.filter(img => img.naturalWidth === 0).map(img => img.currentSrc || img.src);
}"""

MATH_JS = """async () => {
  const nodes = Array.from(document.querySelectorAll(".math"));
  if (nodes.length === 0) return {count: 0};
  await document.fonts.ready;
  const bare = nodes.filter(n => {
    const m = n.querySelector("math");
    if (!m) return true;
    const box = m.getBoundingClientRect();
    return box.width === 0 || box.height === 0;
  });
  const font = Array.from(document.fonts).some(
      f => f.family.replace(/"/g, "") === "Book Math" && f.status === "loaded");
  const tex = nodes.filter(n => /\\\\[A-Za-z]/.test(n.textContent));
  // a square root's sign is drawn by the browser from the math font, left of what it covers: with
  // no sign in the font, the content starts at the root's own left edge (a font subset lost it once)
  const roots = Array.from(document.querySelectorAll("msqrt"));
  const signless = roots.filter(r => {
    const left = Math.min(...Array.from(r.children, c => c.getBoundingClientRect().left));
    return left - r.getBoundingClientRect().left < 0.4 * parseFloat(getComputedStyle(r).fontSize);
  });
  return {count: nodes.length, rendered: nodes.length - bare.length, loaded: font,
          roots: roots.length, signless: signless.map(r => r.textContent.slice(0, 40)),
          errors: document.querySelectorAll("merror").length + tex.length,
          unrendered: bare.concat(tex).slice(0, 3).map(n => n.textContent.slice(0, 80))};
}"""

THEME_JS = """() => ({mode: document.documentElement.dataset.mode,
                   theme: document.documentElement.dataset.theme,
                   defaultMode: document.body.dataset.defaultMode})"""

CARDS_JS = """() => Array.from(document.querySelectorAll(".bd-content img"))
  .filter(img => !img.classList.contains("only-dark") && !img.classList.contains("dark-light"))
  .map(img => ({src: img.getAttribute("src"), background: getComputedStyle(img).backgroundColor,
                filter: getComputedStyle(img).filter}))"""

#: Exercise solutions: how many there are and how many are collapsed (their body not displayed).
SOLUTIONS_JS = """() => Array.from(document.querySelectorAll("div.solution")).map(sol => ({
  id: sol.id, dropdown: sol.classList.contains("dropdown"),
  collapsed: Array.from(sol.children).filter(c => !c.classList.contains("admonition-title"))
               .every(c => c.offsetParent === null || getComputedStyle(c).visibility === "hidden")}))"""

#: Open every toggle and <details>, so that axe-core also checks what a reader can expand, and
#: wait until their opening animations have finished (a half-faded text fails a contrast check).
EXPAND_JS = """async () => {
  const details = document.querySelectorAll("details:not([open])");
  details.forEach(d => { d.open = true; });
  const hidden = document.querySelectorAll("button.toggle-button.toggle-button-hidden");
  hidden.forEach(b => b.click());
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  const finite = document.getAnimations().filter(
      a => a.effect && a.effect.getComputedTiming().endTime !== Infinity);
  await Promise.all(finite.map(a => a.finished.catch(() => null)));
  return details.length + hidden.length;
}"""

AXE_JS = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    targets: v.nodes.slice(0, 5).map(n => n.target.join(" ") + (n.any[0] && n.any[0].data && n.any[0].data.fgColor ? ` (${n.any[0].data.fgColor} on ${n.any[0].data.bgColor}, ratio ${n.any[0].data.contrastRatio})` : "")), count: v.nodes.length}));
}"""


#: Whole-page screenshots too, besides each page's first screen: only when a folder is asked for.
KEEP_FULL_PAGES = bool(os.environ.get("SEQMODELS_SCREENSHOTS"))

#: Reader widths: a laptop, where nothing may be wider than its space, and a phone, where only code,
#: outputs, tables and equations may scroll inside their own box and the page never sideways.
WIDTHS = {"laptop": 1280, "phone": 390}

#: Every box of the article wider than its space: its ``scrollWidth`` over its ``clientWidth``, or
#: its right edge past the article's, and how far the page itself scrolls sideways. Details and hidden cells are opened first.
LAYOUT_JS = """async (allowScroll) => {
  // Open everything a reader can open, so that hidden code and solutions are measured too.
  document.querySelectorAll("details:not([open])").forEach(d => { d.open = true; });
  document.querySelectorAll("button.toggle-button.toggle-button-hidden").forEach(b => b.click());
  await document.fonts.ready;
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  const finite = document.getAnimations().filter(a => a.effect && a.effect.getComputedTiming().endTime !== Infinity);
  await Promise.all(finite.map(a => a.finished.catch(() => null)));
  // Permalink marks ("#" after a caption) are hover decorations placed just past their box
  const hide = document.createElement("style");
  hide.textContent = "a.headerlink { display: none !important; }";
  document.head.appendChild(hide);
  const article = document.querySelector("article.bd-article") || document.querySelector("main");
  const root = document.documentElement;
  const out = {pageScroll: root.scrollWidth - root.clientWidth, boxes: [], equations: []};
  // the page's top bar: its height, and whether anything in it is drawn (an empty bar is a strip)
  const bar = document.querySelector("#pst-header");
  const drawn = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 &&
                                                                 getComputedStyle(el).visibility !== "hidden"; };
  out.bar = bar ? {height: Math.round(bar.getBoundingClientRect().height),
                   shows: Array.from(bar.querySelectorAll("button, a, input, img")).some(drawn)} : null;
  if (!article) return out;
  // every display equation: how much of its start is hidden, whether it overflows its box, and how
  // far its middle is from the middle of the text column
  const ap = getComputedStyle(article), ab = article.getBoundingClientRect();
  const middle = (ab.left + parseFloat(ap.paddingLeft) + ab.right - parseFloat(ap.paddingRight)) / 2;
  for (const d of article.querySelectorAll("div.math")) {
    const box = d.querySelector(".math-box"), m = d.querySelector("math");
    if (!box || !m) { out.equations.push({id: d.id, missing: true}); continue; }
    const b = box.getBoundingClientRect(), r = m.getBoundingClientRect();
    out.equations.push({id: d.id, hidden: Math.round(b.left - r.left) + box.scrollLeft,
                        overflow: box.scrollWidth - box.clientWidth,
                        offCentre: Math.round((r.left + r.right) / 2 - middle),
                        focusable: box.tabIndex >= 0 && !!box.getAttribute("aria-label")});
  }
  const right = article.getBoundingClientRect().right;
  const scrolls = el => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
  const clipsX = el => getComputedStyle(el).overflowX !== "visible";
  const describe = el => {
    const cls = Array.from(el.classList).slice(0, 3).join(".");
    const text = (el.textContent || el.getAttribute("alt") || "").replace(/\\s+/g, " ").trim().slice(0, 60);
    let id = el.id, up = el;
    while (!id && up.parentElement) { up = up.parentElement; id = up.id; }
    return `<${el.tagName.toLowerCase()}${cls ? "." + cls : ""}> in #${id || "?"}: "${text}"`;
  };
  // what may scroll sideways inside its own box at phone width: code, outputs, tables, equations
  const SCROLLERS = "pre, div.highlight, div.cell_output, .pst-scrollable-table-container, div.math-box";
  const scrollerAbove = el => {
    for (let p = el.parentElement; p && p !== article; p = p.parentElement) if (scrolls(p) && p.matches(SCROLLERS)) return true;
    return false;
  };
  const flagged = new Set();
  for (const el of article.querySelectorAll("*")) {
    // the parts of a formula overhang each other by design (italic corrections, accents):
    // a formula is measured by its <math> box only
    const tag = el.tagName.toLowerCase();
    if (tag !== "math" && el.closest("math")) continue;
    const style = getComputedStyle(el);
    if (style.display === "none" || style.visibility === "hidden") continue;
    // inside a box that clips or scrolls sideways: measured as that box
    let p = el.parentElement, inside = false;
    while (p && p !== article) { if (clipsX(p)) { inside = true; break; } p = p.parentElement; }
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    const block = !style.display.startsWith("inline");
    const own = block && el.clientWidth > 0 ? el.scrollWidth - el.clientWidth : 0;
    const past = inside ? 0 : box.right - right;
    if (Math.max(own, past) <= 1) continue;
    // at phone width, code, tables and equations may scroll inside their own box
    if (allowScroll && (inside && scrollerAbove(el) || scrolls(el) && el.matches(SCROLLERS) && past <= 1)) continue;
    const excess = Math.max(own, past);
    flagged.add(el);
    out.boxes.push({el, excess: Math.round(excess)});
  }
  // a box that scrolls sideways must take the keyboard's focus (itself or something in it)
  out.unfocusable = Array.from(article.querySelectorAll("*")).filter(el => {
    if (!scrolls(el) || el.scrollWidth <= el.clientWidth + 1 || !el.clientWidth) return false;
    return el.tabIndex < 0 && !el.querySelector("a[href], button, input, select, [tabindex='0']");
  }).map(describe);
  // the page's contents list (the theme's secondary sidebar, in the right margin at a laptop's
  // width) and every cell, figure, table, equation, code box, image or admonition whose right edge
  // passes its left edge
  const toc = document.querySelector("div.bd-sidebar-secondary");
  const t = toc ? toc.getBoundingClientRect() : null;
  out.margin = {toc: t ? Math.round(t.width) : 0, checked: 0, reaching: []};
  if (t && t.width) {
    const WHAT = ".cell, figure, table, div.math, pre, img, .admonition, details, .full-width";
    for (const el of article.querySelectorAll(":is(" + WHAT + ")")) {
      const r = el.getBoundingClientRect();
      if (!r.width || !r.height) continue;
      out.margin.checked += 1;
      if (r.right > t.left + 0.5) out.margin.reaching.push({what: describe(el), px: Math.round(r.right - t.left)});
    }
  }
  // one report per overflow: the innermost box (its ancestors overflow because of it)
  const parents = new Set();
  for (const b of out.boxes) for (let p = b.el.parentElement; p; p = p.parentElement) parents.add(p);
  out.boxes = out.boxes.filter(b => !parents.has(b.el))
                       .map(b => ({what: describe(b.el), excess: b.excess}));
  return out;
}"""


def open_page(context, server: str, page_name: str, visit: Visit, shots: Path) -> None:
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and visit.console_errors.append(
        f"{m.text} ({m.location.get('url', '')}:{m.location.get('lineNumber', '')})"))
    page.on("pageerror", lambda e: visit.page_errors.append(str(e)))
    page.on("requestfailed", lambda r: urlsplit(r.url).netloc == urlsplit(server).netloc
            and visit.failed_local.append(f"{r.url}: {r.failure}"))
    page.on("response", lambda r: r.status >= 400 and visit.failed_local.append(f"{r.url}: HTTP {r.status}"))
    try:
        page.goto(f"{server}/{page_name}", wait_until="load", timeout=TIMEOUT_MS)
        visit.math = page.evaluate(MATH_JS)
        visit.broken_images = page.evaluate(IMAGES_JS)
        # No wait for "networkidle": Chromium sometimes never reports it on a page opened after
        # another one in the same context. The fonts (math included) and the images were awaited
        # above; a late request is still recorded by the listeners until the page closes.
        visit.theme = page.evaluate(THEME_JS)
        if visit.scheme == "dark":
            visit.dark_cards = page.evaluate(CARDS_JS)
        stem = page_name.removesuffix(".html").replace("/", "__")
        first_screen = shots / f"{stem}-{visit.scheme}.png"  # what a reader sees on arrival
        if KEEP_FULL_PAGES:  # a whole page is about as slow to draw as axe-core's checks of it
            full = shots / f"{stem}-{visit.scheme}-full.png"
            page.screenshot(path=str(full), full_page=True)
            with Image.open(full) as image:
                image.crop((0, 0, VIEWPORT["width"], min(image.height, VIEWPORT["height"]))).save(first_screen)
            visit.screenshots += [first_screen, full]
        else:
            page.screenshot(path=str(first_screen))
            visit.screenshots.append(first_screen)
        visit.solutions = page.evaluate(SOLUTIONS_JS)
        page.evaluate(EXPAND_JS)
        visit.solutions_opened = page.evaluate(SOLUTIONS_JS)
        page.add_script_tag(path=str(AXE))  # inline: the site itself never loads axe
        visit.axe = page.evaluate(AXE_JS)
    finally:
        page.close()


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory) -> Path:
    chosen = os.environ.get("SEQMODELS_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def side_by_side(work, groups) -> list:
    """``[work(browser, group) for group in groups]``, each group in its own thread with its own
    Playwright and browser (Playwright's objects belong to the thread that made them): the light
    and the dark visits, or the two widths, take turns on two cores instead of one after the other."""
    executable = chromium()

    def one(group):
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            instance = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            try:
                return work(instance, group)
            finally:
                instance.close()

    with ThreadPoolExecutor(max_workers=len(groups)) as pool:
        return list(pool.map(one, groups))


@pytest.fixture(scope="session")
def visits(site, server, screenshots) -> list[Visit]:
    """Every page of the site, loaded in light and in dark mode."""
    def visit_all(browser, scheme: str) -> list[Visit]:
        log: list[Visit] = []
        context = new_context(browser, server, scheme, log)
        try:
            for name in pages_of(site):
                log.append(Visit(name, scheme))
                open_page(context, server, name, log[-1], screenshots)
        finally:
            context.close()
        return log

    log = [visit for scheme_log in side_by_side(visit_all, SCHEMES) for visit in scheme_log]
    print(f"\nscreenshots of {len(log)} page loads: {screenshots}")
    return log


def report(visits: list[Visit], attribute: str) -> dict[str, list]:
    return {f"{v.page} ({v.scheme})": getattr(v, attribute) for v in visits if getattr(v, attribute)}


def test_every_page_was_visited(site, visits):
    names = pages_of(site)
    assert {"index.html", "rnn.html", "search.html", "genindex.html"} <= set(names), names
    assert len(visits) == len(SCHEMES) * len(names)


def test_no_request_leaves_the_site(visits):
    bad = report(visits, "external")
    assert not bad, f"requests to other hosts (blocked): {bad}"


def test_no_console_or_page_errors(visits):
    bad = {**report(visits, "console_errors"), **{k + " [pageerror]": v for k, v in report(visits, "page_errors").items()}}
    assert not bad, f"console or page errors: {bad}"


def test_every_local_request_succeeds(visits):
    bad = report(visits, "failed_local")
    assert not bad, f"local files that did not load: {bad}"


def test_every_image_loaded(visits):
    bad = report(visits, "broken_images")
    assert not bad, f"images with naturalWidth == 0: {bad}"


def test_math_renders_on_every_page_with_math(visits):
    with_math = [v for v in visits if v.math.get("count")]
    assert any(v.page == "rnn.html" for v in with_math), "no math found on rnn.html: the check is blind"
    bad = {f"{v.page} ({v.scheme})": v.math for v in with_math
           if not v.math.get("loaded") or v.math["rendered"] != v.math["count"] or v.math["errors"]}
    assert not bad, f"math that did not render as MathML in the site's math font: {bad}"
    assert sum(v.math.get("roots", 0) for v in with_math) >= 10, "few square roots found: the check is blind"
    signless = {f"{v.page} ({v.scheme})": v.math["signless"] for v in with_math if v.math.get("signless")}
    assert not signless, f"square roots drawn without their sign (is √ in the math font?): {signless}"


@pytest.mark.parametrize("scheme", SCHEMES)
def test_theme_follows_the_system_mode(visits, scheme):
    """default_mode 'auto' (conf.py): no 'invalid theme mode' error, and the page follows the system."""
    bad = {v.page: v.theme for v in visits if v.scheme == scheme
           and v.theme != {"mode": "auto", "theme": scheme, "defaultMode": "auto"}}
    assert not bad, f"pages whose theme did not resolve to {scheme!r}: {bad}"


def _rgba(css: str) -> tuple[list[float], float]:
    """Channels (0-255) and alpha of a CSS ``rgb()``/``rgba()`` colour or ``#rrggbb``."""
    if css.startswith("#"):
        return [int(css[i:i + 2], 16) for i in (1, 3, 5)], 1.0
    values = [float(x) for x in css[css.index("(") + 1:-1].replace("/", ",").split(",")]
    return values[:3], (values[3] if len(values) > 3 else 1.0)


def _filtered(channels: list[float], css_filter: str) -> list[float]:
    """The colour after the CSS ``brightness()`` and ``contrast()`` filters the theme puts on images
    in dark mode (applied in order, per channel, clamped to 0-255)."""
    for name, amount in re.findall(r"(brightness|contrast)\(([\d.]+)\)", css_filter or ""):
        a = float(amount)
        channels = [min(255.0, max(0.0, c * a if name == "brightness" else (c - 127.5) * a + 127.5))
                    for c in channels]
    return channels


def _luminance(channels: list[float]) -> float:
    """Relative luminance, as WCAG 2 defines it."""
    linear = [(c / 255) / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(a: list[float], b: list[float]) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_contrast_helpers():
    assert round(contrast_ratio(_rgba("#000000")[0], _rgba("#ffffff")[0]), 1) == 21.0
    assert _rgba("rgba(1, 2, 3, 0.5)") == ([1.0, 2.0, 3.0], 0.5)
    assert _filtered([200.0, 100.0, 0.0], "brightness(0.5) contrast(2)") == [72.5, 0.0, 0.0]


def test_figures_sit_on_a_light_card_in_dark_mode(visits):
    """Figures have transparent backgrounds and dark ink (seqmodels.display.plotting.INK); in dark mode the
    theme must put an opaque light card behind them on which the ink, after the theme's image
    filter, keeps a WCAG contrast of at least 4.5."""
    ink = _rgba(INK)[0]
    cards = [(v.page, c) for v in visits if v.scheme == "dark" for c in v.dark_cards]
    assert any(page == "rnn.html" for page, _ in cards), "no figure found on rnn.html in dark mode"
    bad = []
    for page, card in cards:
        background, alpha = _rgba(card["background"])
        ratio = contrast_ratio(_filtered(background, card["filter"]), _filtered(ink, card["filter"]))
        if alpha < 1 or ratio < 4.5:
            bad.append((page, card, round(ratio, 2)))
    assert not bad, f"figures without a light card in dark mode: {bad}"


def test_no_serious_accessibility_violations(visits):
    bad = {f"{v.page} ({v.scheme})": [x for x in v.axe if x["impact"] in FAILING_IMPACTS]
           for v in visits}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, f"axe-core violations of impact {FAILING_IMPACTS}: {bad}"


def test_exercise_solutions_start_collapsed_and_open_on_click(visits):
    solutions = {(v.page, s["id"]): s for v in visits if v.scheme == "light" for s in v.solutions}
    assert any(page == "rnn.html" for page, _ in solutions), "no exercise solution found on rnn.html"
    bad = {k: s for k, s in solutions.items() if not (s["dropdown"] and s["collapsed"])}
    assert not bad, f"solutions shown before the reader opens them: {bad}"
    still_closed = [(v.page, s["id"]) for v in visits for s in v.solutions_opened if s["collapsed"]]
    assert not still_closed, f"solutions that did not open when their toggle was clicked: {still_closed}"


def test_screenshots_of_every_page_in_both_modes(visits):
    for v in visits:
        for path in v.screenshots:
            assert path.is_file() and path.stat().st_size > 5_000, f"screenshot {path} is missing or blank"
    rnn = {v.scheme: v.screenshots[0] for v in visits if v.page == "rnn.html"}
    assert rnn["light"].read_bytes() != rnn["dark"].read_bytes(), "rnn.html looks the same in both modes"



# --- Layout: nothing wider than its space, at a laptop's and a phone's width ------------------------
@contextlib.contextmanager
def page_at_width(browser, server: str, page_name: str, width: int):
    """``page_name`` loaded in light mode at ``width`` px, its images at their real size (before
    anything is measured); the context is closed on leaving."""
    log = [Visit(page_name, "light")]
    context = new_context(browser, server, "light", log)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": VIEWPORT["height"]})
    try:
        page.goto(f"{server}/{page_name}", wait_until="load", timeout=TIMEOUT_MS)
        page.evaluate(IMAGES_JS)
        yield page
    finally:
        context.close()


def measure_layout(browser, server: str, page_name: str, width: int, inject: str = "") -> dict:
    with page_at_width(browser, server, page_name, width) as page:
        if inject:
            page.evaluate(inject)
        found = page.evaluate(LAYOUT_JS, width < 600)
        if width < 600 and not inject:  # a phone's page has boxes of its own that scroll: axe again
            page.add_script_tag(path=str(AXE))
            found["axe"] = page.evaluate(AXE_JS)
        return found


@pytest.fixture(scope="session")
def layouts(site, server) -> dict[tuple[str, str], dict]:
    """``{(width name, page): {"pageScroll": px, "boxes": [...]}}`` for every page at both widths."""
    def measure_all(browser, name: str) -> dict:
        return {(name, page): measure_layout(browser, server, page, WIDTHS[name]) for page in pages_of(site)}

    found = {key: r for part in side_by_side(measure_all, list(WIDTHS)) for key, r in part.items()}
    counts = {name: sum(len(r["boxes"]) for (n, _), r in found.items() if n == name) for name in WIDTHS}
    print(f"\nboxes wider than their space: {counts}")
    return found


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_nothing_is_wider_than_its_space(layouts, width):
    bad = {page: r["boxes"] for (name, page), r in layouts.items() if name == width and r["boxes"]}
    assert not bad, f"at {WIDTHS[width]} px, boxes wider than their space (page: [element, px too wide]): {bad}"


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_the_top_bar_is_not_an_empty_strip(layouts, width):
    """The theme's top bar holds the search field at a laptop's width; on a phone all it holds is
    hidden, and layout.css hides the bar too (it was an empty 16 px strip above every page)."""
    bars = {page: r["bar"] for (name, page), r in layouts.items() if name == width}
    assert any(b is not None for b in bars.values()), f"no top bar found at {WIDTHS[width]} px: the check is blind"
    empty = {page: b for page, b in bars.items() if b and b["height"] > 0 and not b["shows"]}
    assert not empty, f"at {WIDTHS[width]} px, a top bar that shows nothing (page: bar): {empty}"
    if width == "laptop":
        assert all(b and b["shows"] for b in bars.values()), f"a page without its search bar at 1280 px: {bars}"


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_every_box_that_scrolls_takes_the_keyboard_focus(layouts, width):
    """Code, tables and equations that scroll sideways (on a phone) can be scrolled from the
    keyboard, those opened after the page loaded (a solution) too (book/_static/page.js)."""
    bad = {page: r["unfocusable"] for (name, page), r in layouts.items() if name == width and r["unfocusable"]}
    assert not bad, f"at {WIDTHS[width]} px, boxes that scroll but take no focus: {bad}"


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_no_page_scrolls_sideways(layouts, width):
    bad = {page: r["pageScroll"] for (name, page), r in layouts.items() if name == width and r["pageScroll"] > 0}
    assert not bad, f"at {WIDTHS[width]} px, pages that scroll sideways (px): {bad}"


def test_no_accessibility_violations_at_phone_width(layouts):
    bad = {page: [x for x in r["axe"] if x["impact"] in FAILING_IMPACTS]
           for (name, page), r in layouts.items() if name == "phone"}
    assert len(bad) >= 10, f"axe ran on only {sorted(bad)} at phone width"
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, f"axe-core violations at {WIDTHS['phone']} px: {bad}"


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_every_equation_shows_its_start_and_is_centred_when_it_fits(layouts, width):
    """A formula wider than its column scrolls from its start (none of it hidden on the left when
    the page opens); one that fits sits in the middle of the text column, off it by at most half the
    room its number takes (layout.css gives that room to a formula that needs it, and to every
    formula on a phone), and its box takes the keyboard's focus."""
    found = {page: r["equations"] for (name, page), r in layouts.items() if name == width}
    assert sum(map(len, found.values())) >= 20, f"only {found} display equations seen: the check is blind"
    hidden = {p: [e for e in eqs if e.get("missing") or e["hidden"] > 1] for p, eqs in found.items()}
    assert not any(hidden.values()), f"at {WIDTHS[width]} px, equations whose start is hidden: {hidden}"
    slack = 32 if width == "laptop" else 40  # px; the number's room is 3.5 em, at most 56 px here
    off = {p: [e for e in eqs if e["overflow"] <= 1 and abs(e["offCentre"]) > slack] for p, eqs in found.items()}
    assert not any(off.values()), f"at {WIDTHS[width]} px, equations that fit but are off centre: {off}"
    blind = {p: [e["id"] for e in eqs if not e["focusable"]] for p, eqs in found.items()}
    assert not any(blind.values()), f"equation boxes without tabindex and label: {blind}"
    if width == "phone":
        assert any(e["overflow"] > 50 for eqs in found.values() for e in eqs), \
            "no equation overflows at phone width: the scroll check is blind"


def test_the_layout_check_sees_what_it_must(server, browser):
    """The check is not blind: a long line of code in the column, a wide image and a long unbroken
    word, put into the RNN chapter, are each reported, and the page's sideways scroll is seen."""
    wide_code = """() => { const pre = document.createElement("pre"); pre.textContent = "x = " + "1 + ".repeat(60);
      document.querySelector("article.bd-article section p").after(pre); }"""
    laptop = measure_layout(browser, server, "rnn.html", WIDTHS["laptop"], wide_code)
    assert any(box["what"].startswith("<pre>") for box in laptop["boxes"]), laptop
    wide_block = """() => { const d = document.createElement("div"); d.style.width = "2000px"; d.textContent = "wide";
      document.querySelector("article.bd-article section p").after(d); }"""
    phone = measure_layout(browser, server, "rnn.html", WIDTHS["phone"], wide_block)
    assert any(box["what"].startswith("<div>") for box in phone["boxes"]), phone
    assert phone["pageScroll"] > 1000, phone
    # at phone width, code may scroll inside its own box: not reported
    phone_code = measure_layout(browser, server, "rnn.html", WIDTHS["phone"], wide_code)
    assert not phone_code["boxes"], phone_code


def search_results(browser, server: str, query: str) -> list[str]:
    log = [Visit("search.html", "light")]
    context = new_context(browser, server, "light", log)
    try:
        page = context.new_page()
        page.goto(f"{server}/search.html?q={query}", wait_until="load", timeout=TIMEOUT_MS)
        page.wait_for_function(
            "() => { const s = document.querySelector('#search-results .search-summary');"
            " return s && s.textContent.trim().length > 0 }", timeout=TIMEOUT_MS)
        links = page.eval_on_selector_all("#search-results ul.search li a",
                                          "els => els.map(a => a.getAttribute('href'))")
    finally:
        context.close()
    assert not log[0].external, log[0].external
    return [urlsplit(link).path for link in links]


@pytest.mark.parametrize("query,expected", sorted(ALWAYS.items()) + sorted(WHEN_PRESENT.items()))
def test_search_finds_the_chapter(site, server, browser, query, expected):
    if query in WHEN_PRESENT and not (site / expected).is_file():
        pytest.skip(f"{expected} is not in the book yet")
    found = search_results(browser, server, query)
    assert expected in found, f"search for {query!r} returned {found}, not {expected}"


# --- Explorable figures (seqmodels.display.explore, book/_static/explore.js) ------------------------------
#: Pages and how many explorable figures each must have (issue 17: at least three in the book).
EXPLORABLE = {"bottlenecks.html": 1, "lstm.html": 1, "production.html": 2}

#: The state of every explorable figure on the page: its control, value, image and alt text.
EXPLORE_STATE_JS = """() => Array.from(document.querySelectorAll("[data-sm-explore]")).map(root => {
  const control = root.querySelector("input, select"), img = root.querySelector("img.sm-explore-figure");
  const label = control && control.labels && control.labels[0];
  const out = root.querySelector("output");
  return {name: root.dataset.smExplore, tag: control ? control.tagName.toLowerCase() : "",
          value: control ? control.value : null, visible: !!control && control.offsetParent !== null,
          label: label ? label.textContent.trim() : "", output: out ? out.textContent.trim() : null,
          valuetext: control ? control.getAttribute("aria-valuetext") : null,
          n: root.querySelectorAll('script[type="image/svg+xml"]').length + 1,
          src: img.getAttribute("src"), alt: img.alt, width: img.naturalWidth, complete: img.complete};
})"""


def explore_states(page) -> list[dict]:
    page.wait_for_function("""() => Array.from(document.querySelectorAll("img.sm-explore-figure"))
                                 .every(img => img.complete)""", timeout=TIMEOUT_MS)
    return page.evaluate(EXPLORE_STATE_JS)


def set_value(page, name: str, index: int) -> None:
    """Set the control's value from script, as a test harness or an assistive tool might, and
    announce it the way a browser does after a reader's change."""
    page.evaluate("""([name, index]) => {
      const control = document.querySelector(`[data-sm-explore="${name}"]`).querySelector("input, select");
      control.value = String(index);
      control.dispatchEvent(new Event("input", {bubbles: true}));
      control.dispatchEvent(new Event("change", {bubbles: true}));
    }""", [name, index])


@pytest.fixture(scope="session")
def explored(site, server, browser) -> dict[str, dict]:
    """Every explorable figure moved by keyboard and by setting its value, with other hosts blocked:
    ``{page: {"before": [...], "keyboard": [...], "states": {name: [...]}, "log": Visit}}``."""
    found = {}
    for page_name in pages_of(site):
        if "data-sm-explore" not in (site / page_name).read_text(encoding="utf-8"):
            continue
        log = [Visit(page_name, "light")]
        context = new_context(browser, server, "light", log)
        page = context.new_page()
        page.on("console", lambda m, v=log[0]: m.type == "error" and v.console_errors.append(m.text))
        page.on("pageerror", lambda e, v=log[0]: v.page_errors.append(str(e)))
        try:
            page.goto(f"{server}/{page_name}", wait_until="load", timeout=TIMEOUT_MS)
            before = explore_states(page)
            keyboard = []
            for n, figure in enumerate(before):
                control = page.locator(f'[data-sm-explore="{figure["name"]}"]').locator("input, select")
                control.focus()
                # a slider steps right; a closed menu steps down (Chromium also takes ArrowRight)
                page.keyboard.press("ArrowRight" if figure["tag"] == "input" else "ArrowDown")
                keyboard.append(explore_states(page)[n])
            states = {}
            for n, figure in enumerate(before):
                states[figure["name"]] = []
                for index in range(figure["n"]):
                    set_value(page, figure["name"], index)
                    states[figure["name"]].append(explore_states(page)[n])
        finally:
            context.close()
        found[page_name] = {"before": before, "keyboard": keyboard, "states": states, "log": log[0]}
    return found


def test_explorable_figures_are_where_the_book_says(explored):
    counts = {page: len(r["before"]) for page, r in explored.items()}
    assert all(counts.get(page, 0) >= n for page, n in EXPLORABLE.items()), counts
    assert sum(counts.values()) >= 4, counts


def test_explorable_controls_are_shown_labelled_and_start_at_the_default(explored):
    for page, result in explored.items():
        for figure in result["before"]:
            where = f"{page} #{figure['name']}"
            assert figure["visible"] and figure["label"], f"{where}: control hidden or unlabelled: {figure}"
            assert figure["n"] >= 2 and figure["width"] > 0 and len(figure["alt"]) > 40, where
            if figure["tag"] == "input":
                assert figure["output"] and figure["output"] == figure["valuetext"], where


def test_the_keyboard_moves_every_explorable_figure(explored):
    for page, result in explored.items():
        for old, new in zip(result["before"], result["keyboard"]):
            where = f"{page} #{old['name']}"
            assert new["value"] != old["value"], f"{where}: the key did not move the control"
            assert new["src"] != old["src"] and new["alt"] != old["alt"], f"{where}: the figure did not change"
            assert new["width"] > 0, f"{where}: the new figure did not load"
            if new["tag"] == "input":
                assert new["output"] != old["output"] and new["output"] == new["valuetext"], where


def test_every_state_of_every_explorable_figure_shows_its_own_figure(explored):
    for page, result in explored.items():
        for name, states in result["states"].items():
            assert [s["value"] for s in states] == [str(i) for i in range(len(states))], (page, name)
            assert len({s["src"] for s in states}) == len(states), f"{page} #{name}: states share a figure"
            assert len({s["alt"] for s in states}) == len(states), f"{page} #{name}: states share an alt text"
            assert all(s["width"] > 0 for s in states), f"{page} #{name}: a state's figure did not load"


def test_exploring_logs_no_error_and_loads_nothing_from_elsewhere(explored):
    for page, result in explored.items():
        log = result["log"]
        assert not (log.console_errors or log.page_errors or log.external), (page, log)


def test_without_javascript_the_default_figure_shows_alone(site, server, browser, explored):
    context = browser.new_context(java_script_enabled=False, viewport=VIEWPORT)
    try:
        for page_name, result in explored.items():
            page = context.new_page()
            page.goto(f"{server}/{page_name}", wait_until="load", timeout=TIMEOUT_MS)
            bare = page.evaluate("""() => Array.from(document.querySelectorAll("[data-sm-explore]")).map(root => ({
              control: root.querySelector(".sm-explore-control").offsetParent !== null,
              img: root.querySelector("img").naturalWidth, src: root.querySelector("img").getAttribute("src")}))""")
            page.close()
            assert [b["src"] for b in bare] == [f["src"] for f in result["before"]], page_name
            assert all(b["img"] > 0 and not b["control"] for b in bare), (page_name, bare)
    finally:
        context.close()


# --- Nothing reaches the contents list ----------------------------------------------------------
def test_nothing_reaches_the_contents_list(layouts, server):
    """At 1280 px no cell, figure, table, equation or code box of any chapter reaches into the right
    margin, where the page's contents list sits, so the list covers nothing (``seqbook.cellwidths``
    keeps every cell to the column; no cell is widened). The check sees a
    cell that is made to reach the margin. A page without sections (no ``##`` heading) has no
    contents list, so nothing can reach it: a chapter needs no sections for this test."""
    found = {page: r["margin"] for (name, page), r in layouts.items()
             if name == "laptop" and page.removesuffix(".html") in EXECUTED_PAGES}
    listed = {page for page in found if 'class="bd-sidebar-secondary' in (HTML / page).read_text()}
    assert len(listed) >= 5, f"only {sorted(listed)} have a contents list: the check is blind"
    hidden = {page: found[page]["toc"] for page in listed if found[page]["toc"] <= 100}
    assert not hidden, f"pages whose contents list does not show at 1280 px (page: px wide): {hidden}"
    assert sum(r["checked"] for r in found.values()) > 500, f"few boxes measured: the check is blind: {found}"
    bad = {name: r["reaching"][:5] for name, r in found.items() if r["reaching"]}
    assert not bad, f"boxes reaching under the contents list (page: [box, px past its left edge]): {bad}"
    widened = """() => { const s = document.createElement("style");
      s.textContent = "article .cell { width: calc(100% + 120px) !important; max-width: none !important; }";
      document.head.appendChild(s); }"""
    blind = side_by_side(lambda browser, _: measure_layout(browser, server, "rnn.html", WIDTHS["laptop"], widened),
                         [0])[0]["margin"]
    assert blind["reaching"], "cells widened into the margin were not seen: the check is blind"


# --- Page weight: every page with everything it loads ---------------------------------------------
#: What a page may weigh with every file it loads (raw bytes, before any compression): the
#: README's target, measured by the same function as ``make bench``.
PAGE_BUDGET_BYTES = 1_500_000


def test_every_page_fits_the_weight_budget(site):
    from seqbook.tools import bench
    chromium()  # skips (or fails with CI=true) without a browser, as the other tests here do
    # in a thread of its own: page_weight starts its own Playwright, which cannot share a thread
    # with the session's (the browser fixture's) running one
    with ThreadPoolExecutor(max_workers=1) as pool:
        rows = pool.submit(bench.page_weight, site).result()
    weights = {r["page"]: r["total_bytes"] for r in rows}
    assert "lstm.html" in weights and weights["lstm.html"] > 300_000, f"the measurement is blind: {weights}"
    heavy = {page: f"{b / 1e6:.2f} MB" for page, b in weights.items() if b > PAGE_BUDGET_BYTES}
    assert not heavy, f"pages over the {PAGE_BUDGET_BYTES / 1e6:.1f} MB budget with what they load: {heavy}"


# --- The sidebar buttons ------------------------------------------------------------------------
SIDEBARS_JS = """async () => {
  const visible = kind => Array.from(document.querySelectorAll("button." + kind))
    .find(b => b.getBoundingClientRect().width > 0);
  const frame = () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  const out = {};
  for (const [kind, dialog, sidebar] of [["primary-toggle", "pst-primary-sidebar-modal", "pst-primary-sidebar"],
                                         ["secondary-toggle", "pst-secondary-sidebar-modal", "pst-secondary-sidebar"]]) {
    const button = visible(kind);
    if (!button) { out[kind] = "no visible button"; continue; }
    const d = document.getElementById(dialog), s = document.getElementById(sidebar);
    const hiddenBefore = s ? s.classList.contains("pst-sidebar-hidden") : null;
    button.click();
    await frame();
    out[kind] = {dialogOpen: !!(d && d.open),
                 folded: s ? s.classList.contains("pst-sidebar-hidden") !== hiddenBefore : false,
                 links: d && d.open ? d.querySelectorAll("a[href]").length : 0};
    if (d && d.open) d.close();
    await frame();
  }
  return out;
}"""


def test_the_menu_and_contents_buttons_work(site, server):
    """The article header's menu and contents buttons open the chapter list and the page's
    contents as dialogs on a phone, and the menu button folds the chapter list on a laptop (the
    themes bound them to hidden copies: book/_static/page.js)."""
    def measure(browser, _):
        found = {}
        for width in WIDTHS.values():
            with page_at_width(browser, server, "rnn.html", width) as page:
                found[width] = page.evaluate(SIDEBARS_JS)
        return found

    found = side_by_side(measure, [0])[0]
    phone, laptop = found[WIDTHS["phone"]], found[WIDTHS["laptop"]]
    for kind in ("primary-toggle", "secondary-toggle"):
        assert isinstance(phone[kind], dict) and phone[kind]["dialogOpen"] and phone[kind]["links"] > 5, \
            f"at {WIDTHS['phone']} px the {kind} button opened no sidebar: {phone}"
    assert isinstance(laptop["primary-toggle"], dict) and laptop["primary-toggle"]["folded"] \
        and not laptop["primary-toggle"]["dialogOpen"], f"at {WIDTHS['laptop']} px the menu button did not fold the list: {laptop}"


# --- The status page on a phone -------------------------------------------------------------------
STATUS_COLUMNS_JS = """() => {
  const t = document.querySelector("table.exec-table");
  if (!t) return null;
  const box = t.closest(".pst-scrollable-table-container") || t.parentElement;
  return {right: box.getBoundingClientRect().right, screen: document.documentElement.clientWidth,
          heads: [...t.querySelectorAll("thead th")].map(h => [h.textContent.trim(),
                                                              h.getBoundingClientRect().right])};
}"""


def test_the_status_table_shows_every_column_on_a_phone(site, server):
    """At 390 px the execution table's last column (whether each chapter's run succeeded) ends on
    screen, inside the table's own box: the reader sees it without scrolling the table."""
    def measure(browser, _):
        with page_at_width(browser, server, "status.html", WIDTHS["phone"]) as page:
            return page.evaluate(STATUS_COLUMNS_JS)

    found = side_by_side(measure, [0])[0]
    assert found is not None, "status.html has no table.exec-table (seqbook.status.status_marks)"
    assert [h for h, _ in found["heads"]][-1] == "Status" and len(found["heads"]) == 5, found
    cut = [(h, round(r)) for h, r in found["heads"] if r > min(found["right"], found["screen"]) + 1]
    assert not cut, f"status table columns past the screen's edge at 390 px (column, right edge): {cut}"


def test_glued_numbers_read_as_ordinary_text(server, browser):
    """A number glued into prose has the weight of the sentence around it (myst-nb makes it bold)."""
    with page_at_width(browser, server, "embeddings.html", 1280) as page:
        weights = page.evaluate("""() => [...document.querySelectorAll('article p span.pasted-text')]
            .map(s => [getComputedStyle(s).fontWeight, getComputedStyle(s.parentElement).fontWeight])""")
    assert len(weights) > 10 and all(own == around for own, around in weights), weights[:5]
