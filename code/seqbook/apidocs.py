"""The API pages: seqmodels' docstrings through autodoc and napoleon, as the book shows them.

The package's docstrings follow the NumPy style, with one habit of their own: a docstring may go
on after its last section (often ``Raises``) with a paragraph or doctests and no heading; see
`close_sections`. Attributes are listed as parameters are (a type is prose, not a cross-reference).

napoleon is used as a library, on the docstrings of modules, classes, functions and methods only.
Its extension would also read a data or attribute docstring's first line as ``type: text``
("The characters the model reads: ..." would become a type to cross-reference), and these
docstrings are sentences.
"""

from __future__ import annotations

import re

from sphinx.ext.napoleon import Config
from sphinx.ext.napoleon.docstring import NumpyDocstring

_SECTION = re.compile(r"^(\S.*)\n-{3,}\s*$", re.M)


def close_sections(lines: list[str]) -> None:
    """End each NumPy-style section where the docstring goes back to prose or doctests.

    The package's docstrings write a section's entries with no blank line between them, and may
    go on after the last section with a paragraph or doctests and no heading. napoleon would read
    those as more entries of the section (each ``>>>`` line an exception to cross-reference), so a
    heading is put before them: ``Examples`` before doctests, ``Notes`` before a paragraph. Edits
    ``lines`` (a docstring as autodoc hands it over, dedented) in place.

    >>> doc = ["Sum.", "", "Raises", "------", "ValueError", "    bad.", "", ">>> 1 + 1", "2"]
    >>> close_sections(doc); doc[6:]
    ['', 'Examples', '--------', '>>> 1 + 1', '2']
    >>> doc = ["Sum.", "", "Returns", "-------", "s : int", "", "Exact for ints.", "", ">>> 1 + 1"]
    >>> close_sections(doc); doc[6:]
    ['Notes', '-----', 'Exact for ints.', '', 'Examples', '--------', '>>> 1 + 1']
    >>> doc = ["Sum.", "", "Raises", "------", "KeyError", "    missing.", ">>> {}[1]"]
    >>> close_sections(doc); doc[6:]
    ['', 'Examples', '--------', '>>> {}[1]']
    >>> plain = ["Sum.", "", ">>> 1 + 1", "2"]
    >>> close_sections(plain); plain
    ['Sum.', '', '>>> 1 + 1', '2']
    """
    def heading(i: int) -> bool:
        return (i + 1 < len(lines) and bool(lines[i].strip()) and not lines[i].startswith(" ")
                and re.fullmatch(r"-{3,}\s*", lines[i + 1]) is not None)

    section = None  # the heading of the section being read, if any
    i = 0
    while i < len(lines):
        if heading(i):
            section = lines[i].strip()
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


_NAPOLEON_READS = {"module", "class", "exception", "function", "method"}


def _process_docstring(app, what, name, obj, options, lines) -> None:
    if what not in _NAPOLEON_READS:
        return
    close_sections(lines)
    config = Config(napoleon_google_docstring=False, napoleon_use_param=False,
                    napoleon_use_rtype=False, napoleon_custom_sections=[("Attributes", "params_style")])
    lines[:] = NumpyDocstring(lines, config, app, what, name, obj, options).lines()


def setup(app):
    app.setup_extension("sphinx.ext.autodoc")
    app.connect("autodoc-process-docstring", _process_docstring)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
