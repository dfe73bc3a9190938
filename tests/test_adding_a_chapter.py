"""The README's "Adding a chapter", followed step by step on a scratch book, then built and tested.

The scratch project is this repository's frame (``conf.py``, ``book/_static``, ``book/_templates``,
the bibliography, an empty glossary, ``code/``, ``tests/``) with an index whose reading path and
"Chapters" and "How we know" tables of contents are empty, so no chapter of the book executes. The
fixture then adds a chapter, ``counting``, exactly as the checklist says, one step at a time:

1. ``book/counting.md``: the front matter copied from ``book/embeddings.md``, a
   ``(chapter-counting)=`` label, a ``{chapter-opening}``, a figure with a caption, a name and alt
   text, and no ``##`` heading (a chapter needs none);
2. ``book/evidence/counting.md``: a labelled section with the sweep, its ``assert`` and the value
   the chapter pastes;
3. the module ``running`` where the package map says a chapter's code goes (a subpackage
   ``experiments/counting/`` when the package has layers, else the package's folder), its line in
   the map of ``code/seqmodels/__init__.py``, its bad-input case in ``tests/test_bad_input.py``
   and its unit tests in ``tests/test_running.py``;
4. the two entries and the reading-path line in ``book/index.md``.

Before the map line and the bad-input case are added, the package's tests must fail naming the file
that lacks them: a step left out is reported, not silently passed. After the last step the scratch
book builds with warnings as errors, and the tests that concern a new chapter pass on it: its unit
and doctests, the package map, the bad-input cases, the sources, and the built-site checks of its
figures, links, prose budget and evidence links. ``test_the_readme_lists_the_steps_this_test_follows``
holds the README's checklist and this file to the same files (it builds nothing, so `make check`
runs it; the others are marked ``build``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NAME = "counting"
MODULE = "running"
#: Every file of the repository the README's checklist names, with ``<name>`` for the chapter's
#: name; the fixture below writes each of them (``test_bad_input.py`` and ``__init__.py`` by an edit).
CHECKLIST_FILES = {"book/<name>.md", "book/evidence/<name>.md", "book/embeddings.md", "book/index.md",
                   "book/references.bib", "code/seqmodels/", "code/seqmodels/__init__.py",
                   "code/seqmodels/experiments/<name>/", "book/api/<layer>.md", "book/api/experiments.md",
                   "tests/test_api_pages.py",
                   "tests/test_bad_input.py", "tests/", "tests/test_two_layers.py", "tests/test_site.py",
                   "tests/test_package.py"}


def readme_checklist() -> str:
    text = (ROOT / "README.md").read_text()
    found = re.search(r"^## Adding a chapter\n(.*?)(?=^## )", text, re.S | re.M)
    assert found, "README.md has no '## Adding a chapter' section"
    return found.group(1)


def test_the_readme_lists_the_steps_this_test_follows():
    """Every file the checklist names is one this test writes or checks, and the other way round."""
    named = set(re.findall(r"`((?:book|code|tests)/[^`\s]*)`", readme_checklist())) - {"tests/test_adding_a_chapter.py"}
    assert named == CHECKLIST_FILES, (f"the README names {sorted(named - CHECKLIST_FILES)} that "
                                      f"tests/test_adding_a_chapter.py does not follow, and omits "
                                      f"{sorted(CHECKLIST_FILES - named)} that it does")


def chapters_and_reading_path(index: str) -> tuple[list[str], list[str]]:
    """The pages of the "Chapters" toctree of ``index`` (book/index.md's text), and the chapters its
    reading path names (``{ref}`chapter-<name>```), each in order.

    >>> chapters_and_reading_path("## The reading path\\n\\n1. {ref}`chapter-a` (x).\\n2. {ref}`chapter-b`.\\n\\n"
    ...                           "```{toctree}\\n:maxdepth: 2\\n:caption: Chapters\\n\\na\\nb\\n```\\n")
    (['a', 'b'], ['a', 'b'])
    """
    block = re.search(r"```\{toctree\}\n(?::.*\n)*?:caption: Chapters\n(?::.*\n)*((?:.*\n)*?)```", index)
    path = re.search(r"^## The reading path\n(.*?)(?=^#|^```)", index, re.S | re.M)
    assert block and path, "book/index.md has no 'Chapters' toctree or no '## The reading path'"
    chapters = [line.strip() for line in block.group(1).splitlines() if line.strip()]
    return chapters, re.findall(r"^\d+\. \{ref\}`chapter-([\w-]+)`", path.group(1), re.M)


def test_every_chapter_has_its_line_in_the_reading_path():
    """Step 4's line in the reading path: one per chapter, in the order of the contents (the
    ``(chapter-<name>)=`` label it links to is the build's to check)."""
    chapters, named = chapters_and_reading_path((ROOT / "book" / "index.md").read_text())
    assert chapters, "the 'Chapters' toctree of book/index.md is empty"
    assert named == chapters, (f"book/index.md's reading path names {named}, its 'Chapters' toctree "
                               f"{chapters}: give each chapter one line, "
                               f"'N. {{ref}}`chapter-<name>` ({{reading-time}}`<name>`): ...', in that order")


# --- The scratch project --------------------------------------------------------------------------

def empty_index(text: str) -> str:
    """``book/index.md`` with its reading path and its "Chapters" and "How we know" tables of
    contents emptied, and the executed status page left out of the back matter (the API pages'
    contents are kept: the frame copies them).

    >>> print(empty_index("## The reading path\\n\\nRead.\\n\\n1. {ref}`a`: b\\n   c.\\n2. d\\n\\n"
    ...                   "```{toctree}\\n:caption: Chapters\\n\\nrnn\\n```\\n\\n"
    ...                   "```{toctree}\\n:caption: Back matter\\n\\nglossary\\nstatus\\n```\\n"), end="")
    ## The reading path
    <BLANKLINE>
    Read.
    <BLANKLINE>
    ```{toctree}
    :caption: Chapters
    <BLANKLINE>
    ```
    <BLANKLINE>
    ```{toctree}
    :caption: Back matter
    <BLANKLINE>
    glossary
    ```
    """
    text = re.sub(r"^\d+\. .*\n(?:   .*\n)*\n?", "", text, flags=re.M)

    def toctree(match: re.Match) -> str:
        head, body = match.group(1), match.group(2)
        if ":caption: Back matter" in head:
            return head + "".join(line for line in body.splitlines(True) if line.strip() != "status") + "```"
        if ":caption: The seqmodels package" in head:
            return head + body + "```"  # the API pages, copied whole
        return head + "```"

    return re.sub(r"(```\{toctree\}\n(?::.*\n)*\n?)((?:.*\n)*?)```", toctree, text)


def copy_frame(project: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    book = project / "book"
    book.mkdir(parents=True)
    for folder in ("_static", "_templates"):
        shutil.copytree(ROOT / "book" / folder, book / folder, ignore=ignore)
    for name in ("references.bib", "references.md"):
        shutil.copy(ROOT / "book" / name, book / name)
    shutil.copytree(ROOT / "book" / "api", book / "api")
    (book / "glossary.md").write_text("# Glossary\n\nThe book's terms (its entries name the chapters, left out here).\n")
    (book / "index.md").write_text(empty_index((ROOT / "book" / "index.md").read_text()))
    shutil.copytree(ROOT / "code", project / "code", ignore=ignore)
    shutil.copytree(ROOT / "tests", project / "tests", ignore=ignore)
    for name in ("conf.py", "README.md", "Makefile", "requirements.txt"):
        shutil.copy(ROOT / name, project / name)


def environment(project: Path) -> dict[str, str]:
    """The scratch project's code first on the path (the kernels inherit it), its own build folder,
    and the environment's kernel first, as the Makefile sets them."""
    env = dict(os.environ, PYTHONPATH=str(project / "code"), SEQMODELS_BUILDDIR=str(project / "_build"),
               PYDEVD_DISABLE_FILE_VALIDATION="1")
    env.setdefault("JUPYTER_PATH", str(Path(sys.prefix) / "share" / "jupyter"))
    env.setdefault("SOURCE_DATE_EPOCH", "315532800")
    return env


def pytest_in(project: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           f"--rootdir={project}", *args], cwd=project, env=environment(project),
                          capture_output=True, text=True, timeout=900)


def sphinx_in(project: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-c", ".", "-d", "_build/doctrees",
                           "book", "_build/html", "-W", "--keep-going", "-n", "-q"],
                          cwd=project, env=environment(project), capture_output=True, text=True, timeout=900)


# --- The steps ------------------------------------------------------------------------------------

def front_matter() -> str:
    """Step 1: "copy it from book/embeddings.md"."""
    found = re.match(r"---\n.*?\n---\n", (ROOT / "book" / "embeddings.md").read_text(), re.S)
    assert found, "book/embeddings.md opens with no front matter"
    return found.group(0)


def module_home(project: Path) -> tuple[Path, str]:
    """Step 3: where the package map says a chapter's code goes, its own subpackage of
    ``experiments``. The module's path and its dotted name below ``seqmodels``."""
    home = project / "code" / "seqmodels" / "experiments" / NAME
    home.mkdir()
    (home / "__init__.py").write_text(f'"""The {NAME} chapter\'s code."""\n')
    return home / f"{MODULE}.py", f"experiments.{NAME}.{MODULE}"


CHAPTER = """
(chapter-counting)=
# Counting

```{chapter-opening}
After this chapter you will be able to:

- compute the running mean of a sequence;
- say what it ends at;
- draw it against the step.

It assumes:

- Python and numpy.
```

The running mean of a sequence is the mean of its first $t$ values, at every $t$. On the sequence
$1, 2, \\dots, 10$ it ends at {glue:text}`evidence/counting.md::last:.2f` ({evidence}`ev-running`).

```python
>>> from seqmodels.DOTTED import running_mean
>>> running_mean([1.0, 3.0])
array([1., 2.])
```

```{code-cell} ipython3
---
tags: [hide-input]
mystnb:
  image:
    alt: >-
      A line rising from 1 at step 1 to 5.5 at step 10 in equal steps of one half: the running
      mean of the numbers one to ten.
  figure:
    caption: >-
      The running mean of the numbers 1 to 10, against the step.
    name: fig-counting-mean
---
import numpy as np
import matplotlib.pyplot as plt

from seqmodels.DOTTED import running_mean

xs = np.arange(1.0, 11.0)
fig, ax = plt.subplots(figsize=(4, 2.5))
ax.plot(np.arange(1, 11), running_mean(xs))
ax.set_xlabel("step")
ax.set_ylabel("running mean")
plt.show()
```
"""

EVIDENCE = """
# How we know: counting

(ev-running)=
## The running mean of 1 to 10

Over the numbers 1 to 10 the running mean ends at their mean.

```{code-cell} ipython3
import numpy as np
from myst_nb import glue

from seqmodels.DOTTED import running_mean

means = running_mean(np.arange(1.0, 11.0))
assert means[-1] == 5.5 and np.all(np.diff(means) == 0.5)
glue("last", float(means[-1]), display=False)
```

```{code-cell} ipython3
---
tags: [hide-input]
mystnb:
  image:
    alt: >-
      Ten bars of equal height one half: the step from each running mean to the next, over the
      numbers one to ten.
  figure:
    caption: >-
      Each step of the running mean of 1 to 10 adds one half.
    name: fig-counting-steps
---
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(4, 2.5))
ax.bar(range(2, 11), np.diff(means))
ax.set_xlabel("step")
ax.set_ylabel("change of the mean")
plt.show()
```
"""

MODULE_SOURCE = '''"""The running mean of a sequence (the counting chapter)."""

from __future__ import annotations

import numpy as np


def running_mean(xs) -> np.ndarray:
    r"""The mean of the first ``t`` values at every step ``t``:

    .. math:: m_t = \\frac{1}{t} \\sum_{s=1}^{t} x_s

    ``xs`` (T,) with T >= 1, finite; returns (T,) float64.

    Raises ValueError, naming ``xs``, when it is empty, not one-dimensional or not finite.

    >>> running_mean([2.0, 4.0, 9.0])
    array([2., 3., 5.])
    """
    xs = np.asarray(xs, dtype=np.float64)
    if xs.ndim != 1 or xs.size == 0:
        raise ValueError(f"xs must be a non-empty 1-D sequence, got shape {xs.shape}")
    if not np.all(np.isfinite(xs)):
        raise ValueError("xs must be finite")
    return np.cumsum(xs) / np.arange(1, xs.size + 1)
'''

UNIT_TESTS = '''"""seqmodels.DOTTED: the running mean against its definition."""

import numpy as np
from hypothesis import given, strategies as st

from seqmodels.DOTTED import running_mean


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=30))
def test_running_mean_is_the_mean_of_each_prefix(values):
    got = running_mean(values)
    assert np.allclose(got, [np.mean(values[:t]) for t in range(1, len(values) + 1)], atol=1e-6)
'''

BAD_INPUT = '''
# the counting chapter's module (added by tests/test_adding_a_chapter.py)
case("running.running_mean", "empty sequence", "xs",
     lambda: importlib.import_module("seqmodels.DOTTED").running_mean([]), ValueError)
case("running.running_mean", "NaN value", "xs",
     lambda: importlib.import_module("seqmodels.DOTTED").running_mean([1.0, NAN]), ValueError)

'''


def add_to_map(project: Path, dotted: str) -> None:
    """Step 3: the module's line in the package map, before the map's first entry."""
    init = project / "code" / "seqmodels" / "__init__.py"
    text = init.read_text()
    first = re.search(r"^- ``seqmodels\.", text, re.M)
    assert first, "code/seqmodels/__init__.py has no package map (lines '- ``seqmodels.x``: ...')"
    line = f"- ``seqmodels.{dotted}``: the running mean of a sequence (the counting chapter).\n"
    init.write_text(text[:first.start()] + line + text[first.start():])


def add_bad_input_case(project: Path, dotted: str) -> None:
    """Step 3: the module's cases in tests/test_bad_input.py, after the last case."""
    path = project / "tests" / "test_bad_input.py"
    text = path.read_text()
    anchor = text.index("\ndef test_every_public_callable_has_a_bad_input_case")
    path.write_text(text[:anchor] + BAD_INPUT.replace("DOTTED", dotted) + text[anchor:])


def add_to_api_page(project: Path, dotted: str) -> None:
    """Step 3: the chapter's package and its module on the API page of their layer."""
    page = project / "book" / "api" / f"{dotted.split('.')[0]}.md"
    package = "seqmodels." + dotted.rpartition(".")[0]
    page.write_text(page.read_text() + f"## `{package}`\n\n```{{eval-rst}}\n.. automodule:: {package}\n"
                    f"   :no-members:\n```\n\n### `seqmodels.{dotted}`\n\n```{{eval-rst}}\n"
                    f".. automodule:: seqmodels.{dotted}\n```\n")


def add_to_index(project: Path) -> None:
    """Step 4: the chapter in the "Chapters" toctree, its evidence page in "How we know", a line
    in the reading path."""
    index = project / "book" / "index.md"
    text = index.read_text()
    for caption, entry in (("Chapters", NAME), ("How we know", f"evidence/{NAME}")):
        text, count = re.subn(rf"(```\{{toctree\}}\n(?::.*\n)*?:caption: {caption}\n(?::.*\n)*\n?)",
                              rf"\g<1>{entry}\n", text)
        assert count == 1, f"book/index.md has no toctree captioned {caption!r}"
    text, count = re.subn(r"(## The reading path\n\n.*?\n\n)",
                          rf"\g<1>1. {{ref}}`chapter-{NAME}` ({{reading-time}}`{NAME}`): the running mean.\n\n",
                          text, count=1, flags=re.S)
    assert count == 1, "book/index.md has no '## The reading path' section"
    index.write_text(text)


@pytest.fixture(scope="module")
def added(tmp_path_factory):
    """The scratch project with the chapter added step by step; what each check said on the way."""
    project = tmp_path_factory.mktemp("add-a-chapter")
    copy_frame(project)
    book = project / "book"
    said = {}
    # 1. the chapter; 2. its evidence page
    module_path, dotted = module_home(project)
    (book / f"{NAME}.md").write_text(front_matter() + CHAPTER.replace("DOTTED", dotted))
    (book / "evidence").mkdir()
    (book / "evidence" / f"{NAME}.md").write_text(front_matter() + EVIDENCE.replace("DOTTED", dotted))
    # 3. the module and its unit tests, first without its map line or its bad-input case
    module_path.write_text(MODULE_SOURCE)
    (project / "tests" / f"test_{MODULE}.py").write_text(UNIT_TESTS.replace("DOTTED", dotted))
    said["without map line"] = pytest_in(project, "tests/test_package.py", "-k", "lists_every_module")
    said["without bad-input case"] = pytest_in(project, "tests/test_bad_input.py", "-k", "every_public_callable")
    said["without api entry"] = pytest_in(project, "tests/test_api_pages.py", "-k", "once")
    add_to_map(project, dotted)
    add_to_api_page(project, dotted)
    add_bad_input_case(project, dotted)
    # 4. the index
    add_to_index(project)
    said["build"] = sphinx_in(project)
    return project, dotted, said


@pytest.mark.build
def test_a_module_left_out_of_the_package_map_is_named(added):
    project, dotted, said = added
    result = said["without map line"]
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-2000:]
    assert "missing from seqmodels/__init__.py" in result.stdout and dotted in result.stdout, result.stdout[-3000:]


@pytest.mark.build
def test_a_function_without_a_bad_input_case_is_named(added):
    project, dotted, said = added
    result = said["without bad-input case"]
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-2000:]
    assert "tests/test_bad_input.py" in result.stdout and "running.running_mean" in result.stdout, result.stdout[-3000:]


@pytest.mark.build
def test_a_module_left_off_the_api_pages_is_named(added):
    project, dotted, said = added
    result = said["without api entry"]
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-2000:]
    assert "book/api/" in result.stdout and f"seqmodels.{dotted}" in result.stdout, result.stdout[-3000:]


@pytest.mark.build
def test_the_chapter_builds_with_warnings_as_errors(added):
    project, dotted, said = added
    result = said["build"]
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    html = project / "_build" / "html"
    assert (html / f"{NAME}.html").is_file() and (html / "evidence" / f"{NAME}.html").is_file()
    page = (html / f"{NAME}.html").read_text()
    assert "5.50" in page, "the value glued on the evidence page is not in the chapter"
    assert 'id="fig-counting-mean"' in page


@pytest.mark.build
def test_the_new_chapters_tests_pass(added):
    """The tests that concern a new chapter, on the scratch project: its module's unit tests and
    doctests, the package map, the bad-input cases, the sources and their doctests, the reading path."""
    project, dotted, said = added
    assert said["build"].returncode == 0, "the scratch book did not build"
    module = Path("code", "seqmodels", *dotted.split(".")).with_suffix(".py")
    result = pytest_in(project, "--doctest-modules", f"tests/test_{MODULE}.py", str(module),
                       "tests/test_package.py", "tests/test_book_sources.py", "tests/test_book_doctests.py",
                       "tests/test_api_pages.py",
                       "tests/test_adding_a_chapter.py::test_every_chapter_has_its_line_in_the_reading_path",
                       # the scratch book has none of the other chapters' pages that a layered package's
                       # experiments/<chapter>/ must match (the new one's page is step 1's)
                       "--deselect", "tests/test_package.py::test_every_subpackage_is_a_layer_and_every_chapter_package_a_page")
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
    result = pytest_in(project, "tests/test_bad_input.py", "-k", f"{MODULE} or every_public_callable or documents")
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
    assert re.search(r"\b[4-9] passed|\b\d\d+ passed", result.stdout), result.stdout[-2000:]


@pytest.mark.build
def test_the_built_chapter_passes_the_site_checks(added):
    """Its figures (caption, alt text, file), links and images, prose budget, opening and
    evidence links, on the scratch build."""
    project, dotted, said = added
    assert said["build"].returncode == 0, "the scratch book did not build"
    checks = ("every_figure_has", "no_broken_internal_link", "every_image_has_real_alt_text", "prose_budget",
              "opens_and_links")
    result = pytest_in(project, "-rA", "tests/test_site.py", "tests/test_site_links.py", "tests/test_two_layers.py",
                       "-k", " or ".join(checks))
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
    passed = [line for line in result.stdout.splitlines() if "PASSED" in line]
    assert all(any(check in line for line in passed) for check in checks), result.stdout[-3000:]
    assert any(f"[{NAME}]" in line for line in passed if "prose_budget" in line), result.stdout[-3000:]
