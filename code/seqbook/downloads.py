"""Readable downloads: each chapter's executed notebook, as a reader opens it in Jupyter.

The site offers every chapter's ``.ipynb`` in its download menu, with the outputs of the build that
made the page and text that reads as the page does in plain Jupyter:

- a first cell saying how to run it again (``INSTALL_NOTE``; the config value
  ``seqbook_download_extra_install`` adds a chapter's own install line, by docname);
- every ``{glue:text}`` role replaced by the value the page shows, formatted as myst-nb formats it
  (``readable_download``; values pasted from another page by ``plain_myst``);
- every cross-reference written as its page text ("Fig. 29", "(12)", a citation), ``{math}`` blocks
  as ``$$`` displays, exercises as bold headings, the status page's execution table as a Markdown
  table (``plain_markdown``).

When: ``write_download`` (``doctree-read``) keeps the notebook of each read, its outputs merged
from the same execution-cache record its page was rendered from, out of the site (in the doctrees
folder); ``finish_downloads`` (``env-get-updated``, once every chapter is read and numbered) writes
every chapter's copy into the site and records its SHA-256; ``stale_downloads``
(``env-get-outdated``) makes a chapter whose copy is missing or differs be read again, and
``offer_notebook`` (``html-page-context``) lists the download, failing the build if it still differs.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from .status import RUN_MARKS


def split_glue_key(text: str) -> tuple[str, str]:
    """A glued value's key and format, as ``{glue:text}`` writes them: ``"key:fmt"`` gives
    ``("key", "fmt")``; ``"key"`` (or ``"key:"``) gives ``("key", "s")``, myst-nb's default.

    >>> split_glue_key("loss:.3f"), split_glue_key("steps")
    (('loss', '.3f'), ('steps', 's'))
    """
    key, _, fmt = text.rpartition(":") if ":" in text else (text, "", "s")
    return key, fmt or "s"


def download_path(app, docname: str) -> Path:
    """Where the site serves a chapter's download: ``_sources/<docname>.ipynb``."""
    return Path(app.outdir) / "_sources" / f"{docname}.ipynb"


def read_notebook_path(app, docname: str) -> Path:
    """Where the read keeps a chapter's download before its cross-references are written out: in
    the doctrees folder, next to the environment it belongs with, not in the site."""
    return Path(app.doctreedir) / "downloads" / f"{docname}.ipynb"


def write_download(app, doctree) -> None:
    """``doctree-read``: keep the chapter's ``.ipynb`` download as the read that built its page has it.

    myst-nb writes the notebook it read to ``<builddir>/jupyter_execute/`` but, for a chapter whose
    outputs come from the execution cache, without those outputs (it merges them into a copy). So
    the outputs are merged here from the same cache record the page was rendered from, in the same
    read, with the page's glued values filled in (``readable_download``). Its cross-references
    (figure, equation and exercise numbers, citations) are only known once every chapter is read,
    so this notebook is kept out of the site (``read_notebook_path``) and the chapter is marked as
    having a download; ``finish_downloads`` writes the site's copy from it.
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
        _, nb = get_cache(app.env.mystnb_config.execution_cache_path).merge_match_into_notebook(nb)
    except KeyError:
        raise RuntimeError(f"{docname}: its page was built, but the execution cache holds no run of "
                           "its cells, so its .ipynb download would have no outputs") from None
    readable_download(nb, docname, app.config.seqbook_download_extra_install.get(docname, ""))
    target = read_notebook_path(app, docname)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)
    app.env.metadata[docname]["seqmodels_download_sha256"] = ""  # the site's copy: finish_downloads


def finish_downloads(app, env) -> list[str]:
    """``env-get-updated``, after Sphinx numbers figures and equations: every chapter's download
    written into the site from the notebook its read kept, its MyST made plain Markdown
    (``plain_markdown``), with its SHA-256 recorded in the chapter's metadata.

    Every chapter, not only those read in this build: numbers are global, so a figure added to one
    chapter renumbers the next ones' references. This runs in the main process after the (parallel)
    reads and before the environment is saved and pages are written. A download that is missing or
    differs from that record (an interrupted build, a deleted folder) makes the chapter be read
    again (``stale_downloads``); one that still differs when its page is written fails the build.
    nbformat gives every cell a random id on each read, so the cells get ids derived from their
    position and source: two builds write the same bytes."""
    import nbformat

    for docname in sorted(d for d in env.all_docs if "seqmodels_download_sha256" in env.metadata[d]):
        nb = nbformat.read(read_notebook_path(app, docname), as_version=4)
        plain_markdown(app, nb, docname)
        for number, cell in enumerate(nb.cells):
            digest = hashlib.sha256(cell.source.encode()).hexdigest()[:8]
            cell.id = f"cell-{number}-{digest}"
        nbformat.validate(nb)
        data = nbformat.writes(nb).encode() + b"\n"
        target = download_path(app, docname)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        env.metadata[docname]["seqmodels_download_sha256"] = hashlib.sha256(data).hexdigest()
    return []


#: What the downloaded notebook of a chapter says first: how to run it again.
INSTALL_NOTE = """\
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


def readable_download(nb, docname: str, extra_install: str = "") -> None:
    """The download as a reader opens it in Jupyter: a first cell saying how to run it again
    (``INSTALL_NOTE``, with ``extra_install`` after its install line), and every ``{glue:text}``
    role of the text replaced by the value the page shows (plain Jupyter would show the role
    itself). The page's formatting is used (``myst_nb``'s own)."""
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
            return match[0]  # pasted from another page: filled in by plain_myst, once every page is read
        key, fmt = split_glue_key(match.group(1))
        if key not in values:
            raise RuntimeError(f"{docname}: the download cannot fill in {{glue:text}}`{match.group(1)}`")
        return format_plain_text(values[key], fmt)

    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = re.sub(r"\{glue:text\}`([^`]+)`", paste, cell.source)
    title = next((m.group(1) for c in nb.cells if c.cell_type == "markdown"
                  for m in [re.search(r"^# (.+)$", c.source, re.M)] if m), docname)
    note = INSTALL_NOTE.format(title=title, name=docname, extra=extra_install)
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


def plain_markdown(app, nb, docname: str) -> None:
    """The download's text as plain Jupyter renders it, reading as the page does: every
    cross-reference role becomes its page text ("Fig. 29", "(12)", a section's title, a term,
    "[Elman, 1990]"), resolved by the domain that resolves it on the page; label lines go;
    ``{math}`` blocks become ``$$`` displays, numbered by a ``\\tag``; exercises and solutions become
    bold headings ("**Exercise 3.**"); the status page's execution table a Markdown table. Other
    MyST is left as it is (tests/test_downloads.py fails on any left). Code cells are not touched;
    a Markdown cell left empty (a solution's end) is dropped."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = plain_myst(app, docname, cell.source).strip("\n")
    nb.cells = [c for c in nb.cells if c.cell_type != "markdown" or c.source.strip()]


def plain_myst(app, docname: str, text: str) -> str:
    """A Markdown cell's ``text`` (or a directive's body) with its MyST written out."""
    def directive(match: re.Match) -> str:
        name, arg = match["name"], match["arg"].strip()
        lines = match["body"].splitlines(keepends=True)
        options = {}
        while lines and (option := re.match(r":([\w-]+):[ \t]*(.*)", lines[0])):
            options[option[1]] = option[2].strip()
            lines.pop(0)
        body = "".join(lines).strip("\n")
        if name == "math":  # blank-line-separated parts are aligned rows, as seqbook.mathml.visit_displaymath sets them
            parts = [part for part in body.split("\n\n") if part.strip()]
            latex = body if len(parts) == 1 else r"\begin{aligned}" + r"\\".join(parts) + r"\end{aligned}"
            if "label" in options:
                latex += "\n" + rf"\tag{{{equation_number(app.env, docname, options['label'])}}}"
            block = f"$$\n{latex}\n$$"
        elif name == "exercise":
            if "label" not in options:
                raise RuntimeError(f"{docname}: the download numbers exercises by their :label:, "
                                   f"and one has none: {body[:60]!r}")
            block = f"**{exercise_title(app, docname, options['label'])}.**\n\n{plain_myst(app, docname, body)}"
        elif name == "solution-start":
            block = f"**Solution to {exercise_title(app, docname, arg)}.**"
        elif name == "solution-end":
            return ""  # with the blank lines after it
        elif name == "chapter-opening":
            reading = twolayers.reading_time_text(app.env, docname)
            block = f"{plain_myst(app, docname, body)}\n\n**Reading time:** {reading}."
        elif name == "nb-exec-table":
            block = exec_table_markdown(app, docname)
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
            return pasted_text(app, docname, content)
        if name.startswith("cite:"):
            return xref_text(app, docname, "cite", name.partition(":")[2], content, content, False)
        if name.startswith("py:"):  # a link to the API pages: the name as code, as the page shows it
            explicit, title, target = split_explicit_title(content)
            if not explicit and target.startswith("~"):  # `~a.b.c` shows `c`
                title = target.rpartition(".")[2]
            return f"`{title}`"
        if name not in _XREF_ROLES:
            return match[0]
        domain, typ = _XREF_ROLES[name]
        explicit, title, target = split_explicit_title(content)
        if typ in ("ref", "numref"):
            target = target.lower()  # as Sphinx's roles take it
        entry = getattr(app.env, "sphinx_exercise_registry", {}).get(target)
        if typ == "ref" and not explicit and entry and is_numbered_exercise(entry["node"]):
            typ = "numref"  # sphinx-exercise makes such a ref a numref
        return xref_text(app, docname, domain, typ, target, title, explicit)

    from sphinx.util.nodes import split_explicit_title

    from . import twolayers

    text = _DIRECTIVE.sub(directive, text)
    text = _LABEL_LINE.sub("", text)
    return _ROLE.sub(role, text)


def pasted_text(app, docname: str, content: str) -> str:
    """A ``{glue:text}`doc.md::key:fmt``` role's text, as the page shows it: the value that page
    glued (its ``.glue.json``, written when it was read), formatted as myst-nb formats it."""
    import json

    from myst_nb.core.variables import format_plain_text

    path, _, rest = content.partition("::")
    key, fmt = split_glue_key(rest)
    refdoc = app.env.path2doc(app.env.relfn2path(path, docname)[1])
    glued = Path(app.env.mystnb_config.output_folder) / f"{refdoc}.glue.json"
    values = json.loads(glued.read_text()) if refdoc and glued.is_file() else {}
    if key not in values:
        raise RuntimeError(f"{docname}: the download cannot fill in {{glue:text}}`{content}` "
                           f"(no key {key!r} glued on {refdoc or path!r})")
    try:
        return format_plain_text(values[key]["data"]["text/plain"], fmt)
    except ValueError as err:  # e.g. numpy 2's repr, "np.float64(0.31)", read as a float
        raise RuntimeError(f"{docname}: {{glue:text}}`{content}` cannot format the value glued as "
                           f"{key!r} on {refdoc!r} ({err}); glue a Python number there, e.g. "
                           f"glue({key!r}, float(x))") from None


def xref_text(app, docname: str, domain: str, typ: str, target: str, title: str, explicit: bool) -> str:
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
    return inline_markdown(resolved)


def inline_markdown(node) -> str:
    """A resolved reference's text in Markdown: its emphasis (a citation's *et al.*, a title's
    word) and code kept, links dropped."""
    from docutils import nodes

    if isinstance(node, nodes.Text):
        return node.astext()
    if isinstance(node, nodes.literal):
        return f"`{node.astext()}`"
    inner = "".join(inline_markdown(child) for child in node.children)
    return f"*{inner}*" if isinstance(node, nodes.emphasis) else inner


def equation_number(env, docname: str, label: str) -> str:
    """A labelled equation's number as the page prints it (``get_node_equation_number``: numfig)."""
    from docutils.nodes import make_id

    return ".".join(map(str, env.toc_fignumbers[docname]["displaymath"][make_id(f"equation-{label}")]))


def is_numbered_exercise(node) -> bool:
    from sphinx_exercise.nodes import exercise_enumerable_node

    return isinstance(node, exercise_enumerable_node)


def exercise_title(app, docname: str, label: str) -> str:
    """An exercise's title as its box shows it: "Exercise 3" (the page's number), with its own
    title, if it has one, in parentheses."""
    node = app.env.sphinx_exercise_registry[label]["node"]
    heading = node[0]
    numbered = is_numbered_exercise(node)
    title = xref_text(app, docname, "std", "numref", label, label, False) if numbered else heading[0].astext()
    return title + (f" ({heading[1].astext()})" if len(heading) > 1 else "")


def exec_table_markdown(app, docname: str) -> str:
    """myst-nb's table of executed notebooks, as the status page shows it (``seqbook.status.status_marks``'s words)."""
    from docutils import nodes
    from myst_nb.ext.execution_tables import make_stat_table
    from myst_nb.sphinx_ import NbMetadataCollector

    table = make_stat_table(docname, NbMetadataCollector.get_doc_data(app.env))
    rows = [[RUN_MARKS.get(entry.astext(), (entry.astext(),))[0] for entry in row.findall(nodes.entry)]
            for row in table.findall(nodes.row)]
    lines = ["| " + " | ".join(cells) + " |" for cells in rows]
    lines.insert(1, "|" + " --- |" * len(rows[0]))
    return "\n".join(lines)


def download_is_current(app, docname: str) -> bool:
    """The site's download is the one ``finish_downloads`` recorded, and the notebook it was made
    from is still kept (the next build makes the download again from it)."""
    expected = app.env.metadata.get(docname, {}).get("seqmodels_download_sha256")
    path = download_path(app, docname)
    return expected is None or (read_notebook_path(app, docname).is_file() and path.is_file()
                                and hashlib.sha256(path.read_bytes()).hexdigest() == expected)


def stale_downloads(app, env, added, changed, removed) -> list[str]:
    """``env-get-outdated``: chapters whose download is missing or not the one their build wrote."""
    return sorted(d for d in env.found_docs - added - changed - removed
                  if d in env.all_docs and not download_is_current(app, d))


def offer_notebook(app, pagename, templatename, context, doctree) -> None:
    """Offer the chapter's executed notebook (written by ``finish_downloads``) in the download menu;
    the book theme lists an ``.ipynb`` only when ``ipynb_source`` is set."""
    if app.builder.format != "html" or "seqmodels_download_sha256" not in app.env.metadata.get(pagename, {}):
        return
    if not download_is_current(app, pagename):
        raise RuntimeError(f"{pagename}: _sources/{pagename}.ipynb is not the notebook its page was "
                           "built from; run `make clean html`")
    context["ipynb_source"] = f"{pagename}.ipynb"



def setup(app):
    app.setup_extension("myst_nb")  # the notebooks, the execution cache, glue
    app.setup_extension("seqbook.twolayers")  # its roles are written out as text
    # docname -> lines appended to the install line of that chapter's first cell (conf.py)
    app.add_config_value("seqbook_download_extra_install", {}, "env", dict)
    # Before the theme's own handler (priority 501) builds the download menu.
    app.connect("html-page-context", offer_notebook, priority=450)
    app.connect("doctree-read", write_download)
    app.connect("env-get-outdated", stale_downloads)
    # After Sphinx's own handler (priority 500) numbers the figures and equations of the whole book.
    app.connect("env-get-updated", finish_downloads, priority=900)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
