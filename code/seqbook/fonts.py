"""Fonts cut down to what the site shows.

The theme's icon font (Font Awesome Free, solid; SIL OFL 1.1) holds about 2,000 icons, 115 kB as
WOFF2, loaded by every page for the dozen it shows. The copy in the built site is cut down, when the
build finishes, to the icons the site can show (``icon_codepoints``): those named by a class
(``fa-bars``) in a page or a script, through the theme's table of classes to characters, and every
private-use character that a stylesheet puts on the page itself (the theme's admonition and
breadcrumb icons, the book theme's chevron). The source fonts in the theme's package are not
touched. ``subset`` is also how ``seqbook.mathml`` cuts down the math font.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

#: The theme's icon fonts, by file name.
ICON_FONTS = ("fa-solid-900.woff2", "fa-regular-400.woff2")


def subset(source: Path, unicodes: set[int], *, notdef_outline: bool = False):
    """The font at ``source`` cut down to the characters ``unicodes`` (those it has), with every
    layout feature and name record kept, as WOFF2; the source's date is kept, so two builds write
    the same bytes."""
    import logging

    from fontTools import subset as fontsubset
    from fontTools.ttLib import TTFont

    font = TTFont(source, recalcTimestamp=False)
    options = fontsubset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = notdef_outline
    subsetter = fontsubset.Subsetter(options)
    # fontTools logs every table it subsets at INFO: shown in the build's output wherever another
    # package has configured the root logger (a11y_pygments does when the theme loads its styles).
    quiet = logging.getLogger("fontTools")
    level = quiet.level
    quiet.setLevel(logging.WARNING)
    try:
        subsetter.populate(unicodes=sorted(c for c in unicodes if c in font.getBestCmap()))
        subsetter.subset(font)
    finally:
        quiet.setLevel(level)
    font.flavor = "woff2"
    return font


def icon_codepoints(static: Path, pages) -> set[int]:
    """The icon font's characters that the stylesheets under ``static``, the scripts there and the
    HTML ``pages`` can show."""
    css = "".join(p.read_text(encoding="utf-8") for p in sorted(static.rglob("*.css")))
    table = {}
    entry = r"([^{}]+)\{--fa:\"([^\"]+)\"(?:;--fa--fa:\"[^\"]+\")?\}"  # .fa-a,.fa-b{--fa:"\f002"}
    for selectors, value in re.findall(entry, css):
        chars = {int(code, 16) for code in re.findall(r"\\([0-9a-fA-F]{2,6}) ?", value)} | {
            ord(c) for c in re.sub(r"\\[0-9a-fA-F]{2,6} ?", "", value)}
        for name in re.findall(r"\.fa-([a-z0-9-]+)$", "\n".join(s.strip() for s in selectors.split(",")), re.M):
            table[name] = chars
    # the table's own entries aside, what the stylesheets write as private-use characters
    rest = re.sub(entry, "", css)
    codes = {ord(c) for c in rest if 0xE000 <= ord(c) <= 0xF8FF}
    codes |= {int(c, 16) for c in re.findall(r"\\([eEfF][0-9a-fA-F]{3})\b", rest)}
    texts = [p.read_text(encoding="utf-8") for p in pages]
    texts += [p.read_text(encoding="utf-8") for p in sorted(static.rglob("*.js")) if p.name != "fontawesome.js"]
    for text in texts:
        for name in set(re.findall(r"\bfa-([a-z0-9-]+)", text)):
            codes |= table.get(name, set())
    return codes


def subset_icon_fonts(app, exception) -> None:
    """``build-finished``: the theme's icon fonts in the built site, cut down to the icons the site
    uses (``icon_codepoints``)."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    static = out / "_static"
    codes = icon_codepoints(static, sorted(out.rglob("*.html")))
    theme = Path(metadata.distribution("pydata-sphinx-theme").locate_file("pydata_sphinx_theme"))
    for name in ICON_FONTS:
        dest = next(static.rglob(name), None)
        source = next(theme.rglob(name), None)
        if dest is None or source is None:
            continue
        subset(source, codes, notdef_outline=True).save(dest, reorderTables=True)


def setup(app):
    app.connect("build-finished", subset_icon_fonts)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
