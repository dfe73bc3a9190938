"""The API pages: seqmodels' docstrings through autodoc and napoleon, as the book shows them.

The package's docstrings follow the NumPy style with habits of their own, which napoleon would
misread; each is mended before napoleon sees the docstring:

- a docstring may go on after its last section (often ``Raises``) with a paragraph or doctests and
  no heading (`close_sections`);
- an entry's type may run on to the next lines, and an unnamed ``Returns`` may be a paragraph
  over several lines (`join_continued_entries`).

Attributes are listed as parameters are (a type is prose, not a cross-reference). napoleon is used
as a library, on the docstrings of modules, classes, functions and methods only: its extension
would also read a data or attribute docstring's first line as ``type: text`` ("The characters the
model reads: ..." would become a type to cross-reference), and these docstrings are sentences.
"""

from __future__ import annotations

import re

from sphinx.ext.napoleon import Config
from sphinx.ext.napoleon.docstring import NumpyDocstring

#: The section headings napoleon reads (NumPy style); any other heading is the docstring's own.
SECTIONS = {"Args", "Arguments", "Attributes", "Examples", "Example", "Keyword Args", "Keyword Arguments",
            "Methods", "Notes", "Note", "Other Parameters", "Parameters", "Raises", "References",
            "Returns", "Return", "See Also", "Warns", "Warnings", "Warning", "Yields", "Yield", "Receives"}
#: Sections whose entries are ``name : type`` lines with an indented description.
FIELD_SECTIONS = {"Attributes", "Other Parameters", "Parameters", "Returns", "Yields", "Receives"}


def _heading(lines: list[str], i: int) -> str | None:
    """The heading at line ``i`` (its text, underlined by dashes on the next line), or None."""
    if (i + 1 < len(lines) and lines[i].strip() and not lines[i].startswith(" ")
            and re.fullmatch(r"-{3,}\s*", lines[i + 1])):
        return lines[i].strip()
    return None


def close_sections(lines: list[str]) -> None:
    """End each NumPy-style section where the docstring goes back to prose or doctests.

    The package's docstrings write a section's entries with no blank line between them, and may
    go on after the last section with a paragraph or doctests and no heading. napoleon would read
    those as more entries of the section (each ``>>>`` line an exception to cross-reference), so a
    heading is put before them: ``Examples`` before doctests, ``Notes`` before a paragraph. A
    heading napoleon does not know (a module's own "Layout") is left alone, and so is what follows
    it. Edits ``lines`` (a docstring as autodoc hands it over, dedented) in place.

    >>> doc = ["Sum.", "", "Raises", "------", "ValueError", "    bad.", "", ">>> 1 + 1", "2"]
    >>> close_sections(doc); doc[6:]
    ['', 'Examples', '--------', '>>> 1 + 1', '2']
    >>> doc = ["Sum.", "", "Returns", "-------", "s : int", "", "Exact for ints.", "", ">>> 1 + 1"]
    >>> close_sections(doc); doc[6:]
    ['Notes', '-----', 'Exact for ints.', '', 'Examples', '--------', '>>> 1 + 1']
    >>> doc = ["Sum.", "", "Raises", "------", "KeyError", "    missing.", ">>> {}[1]"]
    >>> close_sections(doc); doc[6:]
    ['', 'Examples', '--------', '>>> {}[1]']
    >>> own = ["Map.", "", "Layout", "------", "Models.", "", "Kernels."]
    >>> close_sections(own); own
    ['Map.', '', 'Layout', '------', 'Models.', '', 'Kernels.']
    """
    section = None  # the napoleon section being read, if any
    i = 0
    while i < len(lines):
        heading = _heading(lines, i)
        if heading is not None:
            section = heading if heading in SECTIONS else None
            i += 2
            continue
        after_gap = i > 0 and not lines[i - 1].strip()
        doctest = lines[i].startswith(">>>")  # ends a section even right after its last entry
        if section and (after_gap or doctest) and lines[i].strip() and not lines[i].startswith(" "):
            name = "Examples" if doctest else "Notes"
            inserted = [] if name == section else ([] if after_gap else [""]) + [name, "-" * len(name)]
            lines[i:i] = inserted
            section = name
            i += len(inserted) + 1
            continue
        i += 1


def join_continued_entries(lines: list[str]) -> None:
    """Join what the package's docstrings write over several lines but napoleon reads line by line.

    - In a section of ``name : type`` entries, a type that runs on: indented lines after the entry
      that start with anything but a capital letter continue its type (a description, as NumPy
      style writes it, starts a sentence), so they are joined to it.
    - In ``Returns`` (or ``Yields``), an unnamed entry written as a paragraph: lines with no
      ``" : "`` that follow one another, unindented, are one entry.

    Edits ``lines`` in place.

    >>> doc = ["Returns", "-------", "hs : ndarray of shape (T, d); hs[t] is the", "    state after x[t]"]
    >>> join_continued_entries(doc); doc[2:]
    ['hs : ndarray of shape (T, d); hs[t] is the state after x[t]']
    >>> doc = ["Parameters", "----------", "causal : bool", "    If True, look back only."]
    >>> join_continued_entries(doc); doc[2:]
    ['causal : bool', '    If True, look back only.']
    >>> doc = ["Returns", "-------", "ndarray of shape (T,), the accuracy at", "each position"]
    >>> join_continued_entries(doc); doc[2:]
    ['ndarray of shape (T,), the accuracy at each position']
    """
    section = None
    i = 0
    while i < len(lines):
        heading = _heading(lines, i)
        if heading is not None:
            section = heading
            i += 2
            continue
        line = lines[i]
        if section in FIELD_SECTIONS and line.strip() and not line.startswith(" "):
            named = " : " in line
            while i + 1 < len(lines) and lines[i + 1].strip():
                nxt = lines[i + 1]
                if named and nxt.startswith(" ") and not nxt.strip()[0].isupper():
                    pass  # the type runs on
                elif (not named and section in ("Returns", "Yields") and not nxt.startswith(" ")
                      and " : " not in nxt and _heading(lines, i + 1) is None):
                    pass  # an unnamed return written as a paragraph
                else:
                    break
                lines[i] = lines[i].rstrip() + " " + lines.pop(i + 1).strip()
        i += 1


_NAPOLEON_READS = {"module", "class", "exception", "function", "method"}


def _process_docstring(app, what, name, obj, options, lines) -> None:
    if what not in _NAPOLEON_READS:
        return
    close_sections(lines)
    join_continued_entries(lines)
    config = Config(napoleon_google_docstring=False, napoleon_use_param=False,
                    napoleon_use_rtype=False, napoleon_custom_sections=[("Attributes", "params_style")])
    lines[:] = NumpyDocstring(lines, config, app, what, name, obj, options).lines()


def setup(app):
    app.setup_extension("sphinx.ext.autodoc")
    app.connect("autodoc-process-docstring", _process_docstring)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
