"""The build pipeline itself, on scratch copies: a failing cell fails the build, a change in
code/ re-executes the chapters that import it (and only those), and notebooks run on the
environment's own kernel."""

from __future__ import annotations

import os
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
    (tmp_path / "book").mkdir()
    shutil.copy(ROOT / "conf.py", tmp_path / "conf.py")
    shutil.copy(ROOT / "book" / "references.bib", tmp_path / "book" / "references.bib")
    for folder in ("_static", "_templates"):  # conf.py names them as html_static_path / templates_path
        if (ROOT / "book" / folder).is_dir():
            shutil.copytree(ROOT / "book" / folder, tmp_path / "book" / folder)
    (tmp_path / "book" / "index.md").write_text(FRONT + "```{code-cell} ipython3\n" + cell + "\n```\n")
    (tmp_path / "code").mkdir()
    return tmp_path


def sphinx(project: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, SEQMODELS_BUILDDIR=str(project / "_build"))
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-c", ".", "-d", "_build/doctrees",
         "book", "_build/html", "-W", "--keep-going", "-q"],
        cwd=project, env=env, capture_output=True, text=True, timeout=600)


def test_a_cell_that_raises_fails_the_build(tmp_path):
    project = scratch_book(tmp_path, 'raise RuntimeError("this cell must fail the build")')
    result = sphinx(project)
    assert result.returncode != 0, "a raising cell did not fail the build:\n" + result.stderr[-2000:]
    assert "this cell must fail the build" in result.stdout + result.stderr


PROBE = """import sys, uuid
sys.path.insert(0, "../code")  # the scratch project's own seqmodels, not the installed one
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


def test_notebooks_run_on_the_environment_kernel():
    """With the Makefile's JUPYTER_PATH the `python3` kernelspec is the one in .venv."""
    from jupyter_client.kernelspec import KernelSpecManager

    venv = ROOT / ".venv"
    if Path(sys.prefix).resolve() != venv.resolve():
        pytest.skip("tests are not running from .venv (run them with `make test`)")
    env_path = os.environ.get("JUPYTER_PATH", "")
    assert str(venv / "share" / "jupyter") in env_path.split(os.pathsep), "make did not set JUPYTER_PATH"
    spec = KernelSpecManager().get_kernel_spec("python3")
    assert Path(spec.argv[0]).resolve().is_relative_to(venv.resolve()) or \
        Path(spec.argv[0]).parent.resolve() == (venv / "bin").resolve(), spec.argv
