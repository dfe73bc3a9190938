"""Two builds of the same sources, in two different folders, write the same bytes.

The first is the main build that ``make reproducible`` (or ``make html``) made before the test
(``<BUILDDIR>/html``); the second is a clean one: the project (every file git tracks or would
track, as it is in the working tree) is copied into the test's temporary folder, sharing the warm
``.venv`` through a symlink but with its own empty build folder and execution cache, and ``make
html`` runs in the copy. Reusing the main build saves a whole cold build, and it checks more: the
main build may have come from the execution cache, the copy never does. The copy runs on the
OpenBLAS kernel the main build ran on (its status page names it; ``OPENBLAS_CORETYPE``), so that an
environment that sets or unsets the variable between the two builds still compares like with like.
The main build may have been made in several steps (``make html`` run again, after an edit): Sphinx
then writes only the pages that are out of date, and the site must still be the one a clean build
writes (``seqbook.assets`` keeps the stylesheets' ``?v=`` queries, ``seqbook.searchindex`` the
search index's entries, from depending on that history; ``tests/test_seqbook.py`` checks both on a
fixture book). Every file of the two sites must be identical, except the pages in
:data:`VARYING_PAGES`:

- ``status``: execution times and dates of this build (by design);
- the pages that print wall-clock timings measured on the build machine, listed once in
  ``seqmodels.experiments.production.timing.TIMING_PAGES``.

For those pages the HTML, the executed notebook and the images only they show may differ, and the
search index is compared with their entries removed.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parent.parent

try:
    from seqmodels.experiments.production.timing import TIMING_PAGES
except ModuleNotFoundError as error:  # a book without the bottlenecks chapter has no timings
    if error.name != "seqmodels.experiments.production.timing":
        raise
    TIMING_PAGES = ()

#: Pages (names of ``book/*.md`` without suffix) allowed to differ between two builds.
VARYING_PAGES = ("status", *TIMING_PAGES)


def project_files(root: Path) -> list[str]:
    """Tracked and untracked-but-not-ignored files: what a build of this working tree reads."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=root, capture_output=True, check=True).stdout
    return sorted({f for f in out.decode().split("\0") if f and (root / f).is_file()})


def snapshot(dest: Path) -> Path:
    """One copy of the project's files; both builds start from copies of it, so an edit made in
    the working tree while the test runs cannot make them differ."""
    for name in project_files(ROOT):
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)  # keeps mtimes, so make sees .venv as up to date
    return dest


def copy_project(source: Path, dest: Path) -> Path:
    shutil.copytree(source, dest, symlinks=True)
    (dest / ".venv").symlink_to(ROOT / ".venv", target_is_directory=True)
    return dest


def build_kernel(site: Path) -> str:
    """The OpenBLAS kernel a build ran on, as its status page prints it."""
    text = BeautifulSoup((site / "status.html").read_text(), "html.parser").get_text(" ")
    found = re.search(r"OpenBLAS\s+[\d.]+\s+kernel (\w+)", text)
    assert found, f"{site / 'status.html'} names no OpenBLAS kernel"
    return found.group(1)


def build(project: Path, kernel: str) -> Path:
    """``make html`` in ``project``: a cold build (empty execution cache) on the shared .venv, with
    OpenBLAS on ``kernel``."""
    epoch = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True,
                           text=True).stdout.strip() or "315532800"
    env = dict(os.environ, PYTHONPATH=str(project / "code"), OPENBLAS_CORETYPE=kernel)  # the copy's seqmodels
    for name in ("SEQMODELS_BUILDDIR", "JUPYTER_PATH", "MAKELEVEL", "MAKEFLAGS", "MFLAGS"):
        env.pop(name, None)
    result = subprocess.run(
        ["make", "--no-print-directory", "-o", ".venv/.installed", "html",
         f"BUILDDIR={project / '_build'}", f"SOURCE_DATE_EPOCH={epoch}"],
        cwd=project, env=env, capture_output=True, text=True, timeout=3600)  # cold: minutes of training
    assert result.returncode == 0, f"build in {project} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return project / "_build" / "html"


def files_of(site: Path) -> dict[str, Path]:
    return {p.relative_to(site).as_posix(): p for p in sorted(site.rglob("*")) if p.is_file()}


def allowed_to_differ(site: Path) -> set[str]:
    """The varying pages, their executed notebooks, and the images that only they show."""
    allowed = {f"{page}.html" for page in VARYING_PAGES} | {f"_sources/{page}.ipynb" for page in VARYING_PAGES}
    shown_by = {}
    for page in site.glob("*.html"):
        for img in BeautifulSoup(page.read_text(), "html.parser").find_all("img"):
            src = (img.get("src") or "").split("?")[0]
            if src.startswith("_images/"):
                shown_by.setdefault(src, set()).add(page.stem)
    allowed |= {src for src, pages in shown_by.items() if pages <= set(VARYING_PAGES)}
    return allowed


def search_index(site: Path) -> dict:
    """searchindex.js without the entries of the varying pages."""
    text = (site / "searchindex.js").read_text()
    index = json.loads(text[text.index("(") + 1:text.rindex(")")])
    varying = {n for n, doc in enumerate(index["docnames"]) if doc in VARYING_PAGES}

    def keep(docs):
        docs = docs if isinstance(docs, list) else [docs]
        kept = [d for d in docs if (d[0] if isinstance(d, list) else d) not in varying]
        return kept or None

    for key in ("terms", "titleterms", "alltitles", "indexentries"):
        index[key] = {k: kept for k, v in index.get(key, {}).items() if (kept := keep(v))}
    return index


def first_difference(a: Path, b: Path) -> str:
    try:
        lines = list(difflib.unified_diff(a.read_text().splitlines(), b.read_text().splitlines(),
                                          lineterm="", n=0))
        return "\n".join(line[:300] for line in lines[2:12])
    except UnicodeDecodeError:
        return "(binary files differ)"


def test_search_index_filter_drops_only_the_varying_pages(tmp_path):
    index = {"docnames": ["rnn", "status"], "terms": {"gradient": 0, "seconds": 1, "python": [0, 1]},
             "titleterms": {}, "alltitles": {"Build status": [[1, None]], "Summary": [[0, "summary"]]}}
    (tmp_path / "searchindex.js").write_text("Search.setIndex(" + json.dumps(index) + ")")
    got = search_index(tmp_path)
    assert got["terms"] == {"gradient": [0], "python": [0]}
    assert got["alltitles"] == {"Summary": [[0, "summary"]]}


@pytest.mark.cold
def test_the_main_build_and_a_clean_one_write_identical_sites(tmp_path, site):
    if shutil.which("make") is None or not (ROOT / ".venv" / ".installed").is_file():
        pytest.fail("needs make and a built .venv (run it with `make reproducible`)")
    source = snapshot(tmp_path / "source")
    sites = [site, build(copy_project(source, tmp_path / "second"), build_kernel(site))]
    assert build_kernel(sites[1]).lower() == build_kernel(site).lower(), "the copy ran on another kernel"
    files = [files_of(site) for site in sites]
    allowed = allowed_to_differ(sites[0]) | allowed_to_differ(sites[1])
    for page in VARYING_PAGES:
        if (ROOT / "book" / f"{page}.md").is_file():
            assert f"{page}.html" in files[0], f"varying page {page} is not in the site"

    only = sorted((set(files[0]) ^ set(files[1])) - allowed)
    assert not only, (f"files in only one of the two builds: {only} (Sphinx leaves the files of earlier builds "
                      "in an incremental one: run `make clean html` first)")
    differ = {}
    for name in sorted(set(files[0]) & set(files[1]) - allowed - {"searchindex.js"}):
        if files[0][name].read_bytes() != files[1][name].read_bytes():
            differ[name] = first_difference(files[0][name], files[1][name])
    assert not differ, "files that differ between two builds:\n" + "\n\n".join(
        f"== {name}\n{diff}" for name, diff in differ.items())
    assert search_index(sites[0]) == search_index(sites[1]), "the search index differs beyond the varying pages"
