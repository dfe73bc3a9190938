"""The build pipeline itself, on scratch copies: a failing cell fails the build, a change in
code/ re-executes the chapters that import it (and only those), notebooks run on the
environment's own kernel, an interrupted build leaves no download the next build trusts, and an
unreadable execution cache is set aside and everything executes again."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

FRONT = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# Scratch

"""


def scratch_book(tmp_path: Path, cell: str) -> Path:
    """A copy of the real conf.py with a one-page book whose only cell is ``cell``."""
    (tmp_path / "book").mkdir(parents=True)
    shutil.copy(ROOT / "conf.py", tmp_path / "conf.py")
    shutil.copy(ROOT / "book" / "references.bib", tmp_path / "book" / "references.bib")
    for folder in ("_static", "_templates"):  # conf.py names them as html_static_path / templates_path
        if (ROOT / "book" / folder).is_dir():
            shutil.copytree(ROOT / "book" / folder, tmp_path / "book" / folder)
    (tmp_path / "book" / "index.md").write_text(FRONT + "```{code-cell} ipython3\n" + cell + "\n```\n")
    (tmp_path / "code").mkdir()
    return tmp_path


def build_env(**extra_env: str) -> dict[str, str]:
    """The environment ``make html`` gives a build (what the Makefile exports), so that these tests
    build the same way when pytest runs outside make: notebook kernels looked up in this Python's
    environment first (``JUPYTER_PATH``: its ``python3`` kernelspec, not one of the machine's),
    dates from the last commit (``SOURCE_DATE_EPOCH``), no debugger warning from the kernels.
    What the caller's environment sets already is kept; ``extra_env`` overrides."""
    env = dict(os.environ)
    kernels = str(Path(sys.prefix) / "share" / "jupyter")
    paths = [p for p in env.get("JUPYTER_PATH", "").split(os.pathsep) if p]
    env["JUPYTER_PATH"] = os.pathsep.join([kernels, *(p for p in paths if p != kernels)])
    if "SOURCE_DATE_EPOCH" not in env:
        last = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True)
        env["SOURCE_DATE_EPOCH"] = last.stdout.strip() or "315532800"
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    env.update(extra_env)
    return env


def sphinx(project: Path, **extra_env: str) -> subprocess.CompletedProcess:
    """``sphinx-build`` of ``project`` as ``make html`` runs it (warnings are errors), into its
    ``_build``."""
    env = build_env(**extra_env)
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-c", ".", "-d", "_build/doctrees",
         "book", "_build/html", "-W", "--keep-going", "-q"],
        cwd=project, env=env, capture_output=True, text=True, timeout=600)


def test_a_cell_that_raises_fails_the_build(tmp_path):
    project = scratch_book(tmp_path, 'raise RuntimeError("this cell must fail the build")')
    result = sphinx(project)
    assert result.returncode != 0, "a raising cell did not fail the build:\n" + result.stderr[-2000:]
    assert "this cell must fail the build" in result.stdout + result.stderr


def test_a_cell_wider_than_the_column_fails_the_build(tmp_path):
    """``seqbook.cellwidths.check_cell_widths``: a printed line over CELL_COLUMN_CHARS (78) is an error, so no
    cell is wider than the text column; 78 characters pass."""
    fits = scratch_book(tmp_path / "fits", 'print("x" * 78)')
    result = sphinx(fits, SEQMODELS_REPOSITORY_URL="https://example.org/the-book")
    assert result.returncode == 0, result.stderr[-2000:]
    # (this build also names a repository: its sidebar links it; see the next test)
    assert '<a href="https://example.org/the-book">' in (fits / "_build" / "html" / "index.html").read_text()
    wide = scratch_book(tmp_path / "wide", 'print("x" * 79)')
    result = sphinx(wide)
    assert result.returncode != 0, "a 79-character output line did not fail the build"
    assert "is 79 characters, in the text column 78 fit" in result.stderr, result.stderr[-2000:]


def test_a_build_that_knows_no_repository_links_none(tmp_path, monkeypatch):
    """conf.py links the source repository from SEQMODELS_REPOSITORY_URL or a GitHub Actions run's
    variables; with neither, no guessed link is written (the previous test sees one written)."""
    for name in ("SEQMODELS_REPOSITORY_URL", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    project = scratch_book(tmp_path, 'print("no repository")')
    result = sphinx(project)
    assert result.returncode == 0, result.stderr[-2000:]
    page = (project / "_build" / "html" / "index.html").read_text()
    assert "no repository" in page and 'class="source-link"' not in page


PROBE = """import sys, uuid
# the scratch project's own seqmodels, not the installed one
sys.path.insert(0, "../code")
{import_line}
print("{module}:", VALUE, "run:", uuid.uuid4().hex)"""

# Ways of writing one import that a line-based scanner misses; each page imports `alpha` one way.
IMPORT_STYLES = {
    "index": "from seqmodels.{module} import VALUE",
    "commented": "from seqmodels.{module} import VALUE  # a trailing comment",
    "joined": "import os; from seqmodels.{module} import VALUE",
    "continued": "from seqmodels.{module} \\\n    import VALUE",
    "parenthesised": "from seqmodels.{module} import (\n    VALUE,\n)",
}


def probe(module: str, style: str = "index") -> str:
    return PROBE.format(module=module, import_line=IMPORT_STYLES[style].format(module=module))


def run_id(page: Path, module: str) -> tuple[str, str]:
    """The (VALUE, run id) a page printed: a new run id means the page was executed again."""
    import re

    m = re.search(rf"{module}: (\w+) run: (\w+)", page.read_text())
    assert m, f"{page.name} shows no output of its cell"
    return m.group(1), m.group(2)


def test_a_change_in_code_reexecutes_exactly_the_chapters_that_import_it(tmp_path):
    project = scratch_book(tmp_path, probe("alpha"))
    styles = [style for style in IMPORT_STYLES if style != "index"]
    index = project / "book" / "index.md"
    index.write_text(index.read_text() + "\n```{toctree}\nother\n" + "\n".join(styles) + "\n```\n")
    (project / "book" / "other.md").write_text(FRONT.replace("# Scratch", "# Other") + "```{code-cell} ipython3\n"
                                               + probe("beta") + "\n```\n")
    for style in styles:
        (project / "book" / f"{style}.md").write_text(
            FRONT.replace("# Scratch", f"# {style}") + "```{code-cell} ipython3\n" + probe("alpha", style) + "\n```\n")
    alpha_pages = ["index", *styles]
    package = project / "code" / "seqmodels"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "alpha.py").write_text('VALUE = "first"\n')
    (package / "beta.py").write_text('VALUE = "beta"\n')
    html = project / "_build" / "html"

    first = sphinx(project)
    assert first.returncode == 0, first.stderr[-3000:]
    alpha_1 = {page: run_id(html / f"{page}.html", "alpha") for page in alpha_pages}
    beta_1 = run_id(html / "other.html", "beta")
    assert all(value == "first" for value, _ in alpha_1.values())

    (package / "alpha.py").write_text('VALUE = "second"\n')  # no chapter's source changes
    second = sphinx(project)
    assert second.returncode == 0, second.stderr[-3000:]
    alpha_2 = {page: run_id(html / f"{page}.html", "alpha") for page in alpha_pages}
    for page in alpha_pages:
        assert alpha_2[page][0] == "second" and alpha_2[page][1] != alpha_1[page][1], \
            f"{page}: stale output after a change in code/"
    assert run_id(html / "other.html", "beta") == beta_1, \
        "a chapter that does not import the changed module was executed again"

    third = sphinx(project)  # nothing changed: nothing executes
    assert third.returncode == 0, third.stderr[-3000:]
    assert {page: run_id(html / f"{page}.html", "alpha") for page in alpha_pages} == alpha_2
    assert run_id(html / "other.html", "beta") == beta_1

    # A docstring or a comment cannot change an output: editing them executes nothing.
    (package / "alpha.py").write_text('"""The module alpha."""\n# a comment\nVALUE = "second"\n')
    (package / "__init__.py").write_text('"""The package map: alpha, beta."""\n')
    fourth = sphinx(project)
    assert fourth.returncode == 0, fourth.stderr[-3000:]
    assert {page: run_id(html / f"{page}.html", "alpha") for page in alpha_pages} == alpha_2, \
        "a docstring-only edit executed the chapters again"
    assert run_id(html / "other.html", "beta") == beta_1


#: A chapter that checks the package against a reference file it opens itself, as the pretrained
#: chapter checks its encoder against minilm_reference.npz: the file is named in the chapter's code.
CHECK = """import sys, uuid
sys.path.insert(0, "../code")
from importlib.resources import files
import numpy as np
from seqmodels.model import hidden_states
with np.load(files("seqmodels") / "data" / "reference.npz") as ref:
    diff = np.abs(hidden_states() - ref["hidden_states"]).max()
assert diff < 1e-5, f"the model is {diff:.1e} off its reference"
print("check: passed run:", uuid.uuid4().hex)"""


def test_a_change_in_a_data_file_reexecutes_exactly_the_chapters_that_read_it(tmp_path):
    """A chapter that reads a file of seqmodels/data (itself, or through a module that names it)
    executes again when the file changes; one that does not read it does not. A reference pushed
    off by 100 times the chapter's tolerance fails the build on the chapter that checks it."""
    import numpy as np

    reader = PROBE.format(module="alpha", import_line="from seqmodels.reader import VALUE")
    project = scratch_book(tmp_path, reader)
    index = project / "book" / "index.md"
    index.write_text(index.read_text() + "\n```{toctree}\nother\ncheck\n```\n")
    (project / "book" / "other.md").write_text(FRONT.replace("# Scratch", "# Other") + "```{code-cell} ipython3\n"
                                               + probe("beta") + "\n```\n")
    (project / "book" / "check.md").write_text(FRONT.replace("# Scratch", "# Check") + "```{code-cell} ipython3\n"
                                               + CHECK + "\n```\n")
    package = project / "code" / "seqmodels"
    (package / "data").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "reader.py").write_text('from pathlib import Path\n'
                                       'VALUE = (Path(__file__).parent / "data" / "table.txt").read_text().strip()\n')
    (package / "beta.py").write_text('VALUE = "beta"\n')
    (package / "model.py").write_text("import numpy as np\n\n\ndef hidden_states():\n"
                                      "    return np.linspace(-1.0, 1.0, 12).reshape(3, 4)\n")
    (package / "data" / "table.txt").write_text("first\n")
    reference = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
    np.savez(package / "data" / "reference.npz", hidden_states=reference)
    html = project / "_build" / "html"

    first = sphinx(project)
    assert first.returncode == 0, first.stderr[-3000:]
    assert run_id(html / "index.html", "alpha")[0] == "first"
    beta = run_id(html / "other.html", "beta")
    check = run_id(html / "check.html", "check")

    (package / "data" / "table.txt").write_text("second\n")
    second = sphinx(project)
    assert second.returncode == 0, second.stderr[-3000:]
    assert run_id(html / "index.html", "alpha")[0] == "second", "stale output after a change in a data file"
    assert run_id(html / "other.html", "beta") == beta, "a chapter that does not read the file executed again"
    assert run_id(html / "check.html", "check") == check, "a chapter that does not read the file executed again"

    np.savez(package / "data" / "reference.npz", hidden_states=reference + 1e-3)
    third = sphinx(project)
    assert third.returncode != 0, "a reference pushed off its model did not fail the build"
    assert "the model is 1.0e-03 off its reference" in third.stdout + third.stderr, third.stderr[-3000:]


def test_notebooks_run_on_the_environment_kernel(tmp_path):
    """The builds of these tests (``build_env``), like the Makefile's, find the ``python3``
    kernelspec of the environment running them, even where the machine has another one first
    (a user-level kernelspec of another Python, here in a scratch HOME, with jupyter told to
    prefer user-level kernelspecs, as JUPYTER_PREFER_ENV_PATH=0 or a Python outside a venv does)."""
    import json

    other = tmp_path / "home" / ".local" / "share" / "jupyter" / "kernels" / "python3"
    other.mkdir(parents=True)
    (other / "kernel.json").write_text(json.dumps(
        {"argv": ["/elsewhere/bin/python", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
         "display_name": "Python 3 (another)", "language": "python"}))
    if not (Path(sys.prefix) / "share" / "jupyter" / "kernels" / "python3").is_dir():
        pytest.fail(f"{sys.prefix} has no python3 kernelspec: run `make venv` (it installs one)")
    find = ("from jupyter_client.kernelspec import KernelSpecManager;"
            "print(KernelSpecManager().get_kernel_spec('python3').argv[0])")
    env = build_env(HOME=str(tmp_path / "home"), JUPYTER_PREFER_ENV_PATH="0")
    env.pop("JUPYTER_DATA_DIR", None)
    found = subprocess.run([sys.executable, "-c", find], env=env, capture_output=True, text=True, check=True)
    python = Path(found.stdout.strip())
    assert python.parent.resolve() == Path(sys.executable).parent.resolve() or \
        python.resolve().is_relative_to(Path(sys.prefix).resolve()), found.stdout
    # without it, the other kernelspec comes first: the check is not blind
    env.pop("JUPYTER_PATH")
    blind = subprocess.run([sys.executable, "-c", find], env=env, capture_output=True, text=True, check=True)
    assert blind.stdout.strip() == "/elsewhere/bin/python", blind.stdout


# --- Downloads and the cache after a bad previous build -------------------------------------------
HOLD = """import pathlib, time
pathlib.Path("../started-{name}").touch()
# the test holds this chapter mid-execution, then lets go
while pathlib.Path("../hold").exists():
    time.sleep(0.05)"""


def chapter_outputs(project: Path, name: str) -> tuple[list[str], str]:
    """The printed outputs of a chapter's ``.ipynb`` download, and the text of its page."""
    import nbformat

    nb = nbformat.read(project / "_build" / "html" / "_sources" / f"{name}.ipynb", as_version=4)
    printed = [out.text.strip() for cell in nb.cells if cell.cell_type == "code"
               for out in cell.outputs if out.output_type == "stream"]
    return printed, (project / "_build" / "html" / f"{name}.html").read_text()


def two_chapter_book(tmp_path: Path) -> Path:
    """``index`` prints at once; ``slow`` prints, then waits while the file ``hold`` exists."""
    project = scratch_book(tmp_path, 'print("index: printed")')
    index = project / "book" / "index.md"
    index.write_text(index.read_text() + "\n```{toctree}\nslow\n```\n")
    cells = ['print("slow: before the wait")', HOLD.format(name="slow"), 'print("slow: after the wait")']
    (project / "book" / "slow.md").write_text(FRONT.replace("# Scratch", "# Slow") + "".join(
        "```{code-cell} ipython3\n" + cell + "\n```\n\n" for cell in cells))
    return project


def test_an_interrupted_build_leaves_no_download_the_next_build_trusts(tmp_path):
    """Ctrl-C (SIGINT to the build's process group, kernels included) while one chapter executes
    and the other has been executed and cached; the next build's downloads hold every output
    their pages show. Then the same after `make clean`, which keeps the cache."""
    import signal
    import time

    project = two_chapter_book(tmp_path)
    (project / "hold").touch()
    env = build_env()
    build = subprocess.Popen(
        [sys.executable, "-m", "sphinx", "-b", "html", "-c", ".", "-d", "_build/doctrees", "book",
         "_build/html", "-W", "--keep-going", "-q", "-j", "2"],
        cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while not (project / "started-slow").exists() or not (project / "_build" / "jupyter_execute" / "index.ipynb").exists():
            assert build.poll() is None and time.monotonic() < deadline, "the build ended before it could be interrupted"
            time.sleep(0.1)
        os.killpg(build.pid, signal.SIGINT)
        build.wait(timeout=120)
    finally:
        if build.poll() is None:
            os.killpg(build.pid, signal.SIGKILL)
            build.wait()
    assert build.returncode != 0, "the interrupted build reported success"
    (project / "hold").unlink()

    for attempt in ("after the interrupted build", "after removing the built pages (make clean)"):
        result = sphinx(project)
        assert result.returncode == 0, result.stderr[-3000:]
        for name, expected in (("index", ["index: printed"]), ("slow", ["slow: before the wait", "slow: after the wait"])):
            printed, page = chapter_outputs(project, name)
            assert printed == expected, f"{attempt}: {name}.ipynb holds {printed}, its page shows {expected}"
            assert all(text in page for text in expected), f"{attempt}: {name}.html lacks its outputs"
        for folder in ("html", "doctrees", "jupyter_execute"):
            shutil.rmtree(project / "_build" / folder)


def test_an_unreadable_execution_cache_is_set_aside_and_everything_executes_again(tmp_path):
    project = scratch_book(tmp_path, 'import uuid\nprint("run:", uuid.uuid4().hex)')
    first = sphinx(project)
    assert first.returncode == 0, first.stderr[-3000:]
    page = project / "_build" / "html" / "index.html"
    run_1 = re.search(r"run: (\w+)", page.read_text()).group(1)

    (database,) = (project / "_build" / ".jupyter_cache").glob("*/global.db")
    with database.open("r+b") as db:  # what a full disk or a kill during a write leaves
        db.truncate(3_000)
    shutil.rmtree(project / "_build" / "html")
    shutil.rmtree(project / "_build" / "doctrees")
    second = sphinx(project)
    assert second.returncode == 0, second.stderr[-3000:]
    notes = [line for line in second.stderr.splitlines() if "execution cache could not be read" in line]
    assert len(notes) == 1 and "set aside" in notes[0], second.stderr[-3000:]
    assert (project / "_build" / "jupyter_cache.unreadable" / "global.db").stat().st_size == 3_000
    run_2 = re.search(r"run: (\w+)", page.read_text()).group(1)
    assert run_2 != run_1, "the page was not executed again"

    third = sphinx(project)  # the new cache is used: nothing executes, nothing is reported
    assert third.returncode == 0 and "could not be read" not in third.stderr, third.stderr[-3000:]
