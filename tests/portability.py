"""Execute every chapter under several OpenBLAS kernels and compare what they glue into the prose.

Readers' CPUs use other BLAS kernels than the build machine's. OpenBLAS picks one at start-up from
the CPU, and ``OPENBLAS_CORETYPE`` overrides the choice; different kernels sum in a different order
and so round differently in the last bits. Every chapter must execute, and every ``assert`` in it
hold, under each. ``make portability`` runs this script::

    python tests/portability.py [--kernels Haswell,Zen,...] [--jobs 2] [--min-kernels 3]

1. The base is the main build (``make portability`` builds it first, as ``make html``; a build
   runs every chapter on one kernel, which its status page names): the values each chapter glued,
   read from ``<BUILDDIR>/jupyter_execute``, after checking that its code cells are the sources'
   and that the build used the default precision. Where that cannot be used (no build, a stale
   one, ``--base run``), the base kernel executes every chapter like the others.
2. Probe each candidate kernel in a small process: the CPU may lack its instructions (it then
   dies with SIGILL and is skipped, saying so), and some names resolve to the same kernel as
   another or as the base (then it is not run again).
3. Every distinct other kernel executes each chapter (``book/*.md`` with code cells, read by
   myst-nb's own reader, executed by nbclient on the ``python3`` kernel in ``book/``, as the build
   does) in a worker process with ``OPENBLAS_CORETYPE`` set. One job is one chapter under one
   kernel, the longest first (as long as the main build took), so two jobs keep two cores busy to
   the end. A cell appended to each chapter reports the kernel OpenBLAS actually uses there, and a
   mismatch fails the check.
4. Compare the glued values with the base's: how many differ as stored (the full ``repr``), and
   how many differ as printed on the page (with the format the prose gives them, e.g.
   ``{glue:text}`loss_last:.2f```).
5. Execute once more, on the base kernel, every chapter that reads ``SEQMODELS_DTYPE`` (the
   precision of its training runs, float32 by default), with ``SEQMODELS_DTYPE=float64``: the
   precision is another setting whose change every ``assert`` must survive.
6. Execute the pages that measure times (``TIMING_PAGES``) once more on the base kernel, one at a
   time, while ``--load`` other CPU-bound processes (2 by default) compete for the cores: a reader's
   build may share its machine, and every timing ``assert`` must hold on a loaded machine too.

It fails (exit 1) if any chapter raises under any kernel or precision, or fewer than ``--min-kernels`` kernels
besides the base could run. Differences of glued values are reported, not failed: a claim is
guarded by an ``assert`` in its chapter, which is what must hold everywhere. The report goes to
``$SEQMODELS_BUILDDIR/portability/`` (``report.md``, ``report.json``) and to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
BUILDDIR = Path(os.environ.get("SEQMODELS_BUILDDIR", ROOT / "_build"))
# The kernels most readers' machines pick, newest first: AVX-512 servers, AVX2 Intel, AMD Zen,
# AVX Intel, SSE4 Intel, SSE3.
CANDIDATES = ("SkylakeX", "Haswell", "Zen", "SandyBridge", "Nehalem", "Prescott")
KERNEL_MARK = "PORTABILITY-KERNEL "
PROBE = r"""
import numpy as np
from threadpoolctl import threadpool_info
a = np.random.default_rng(0).standard_normal((96, 96))
(a @ a).sum(), np.linalg.solve(a + 96 * np.eye(96), a[0])
print(next(i["architecture"] for i in threadpool_info() if i["internal_api"] == "openblas"))
"""
DTYPE_MARK = "PORTABILITY-DTYPE "
REPORT_CELL = (
    "import numpy as _portability_numpy  # loads OpenBLAS on pages that do not use numpy\n"
    "import os as _portability_os\n"
    "from threadpoolctl import threadpool_info as _portability_info\n"
    f"print({KERNEL_MARK!r} + next(i['architecture'] for i in _portability_info() if i['internal_api'] == 'openblas'))\n"
    f"print({DTYPE_MARK!r} + _portability_os.environ.get('SEQMODELS_DTYPE', 'unset'))"
)
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # the colours of IPython's tracebacks
GLUE_ROLE = re.compile(r"\{glue:text\}`([^`]+)`")


def chapters() -> list[Path]:
    """Every executed page of the book: a MyST notebook with at least one code cell."""
    from myst_nb.core.read import is_myst_markdown_notebook

    return sorted(p for p in BOOK.glob("*.md")
                  if "{code-cell}" in (text := p.read_text()) and is_myst_markdown_notebook(text))


DTYPE_VARIABLE = "SEQMODELS_DTYPE"


def kernel_env(kernel: str | None, dtype: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop(DTYPE_VARIABLE, None)
    if kernel is not None:
        env["OPENBLAS_CORETYPE"] = kernel
    if dtype is not None:
        env[DTYPE_VARIABLE] = dtype
    return env


DTYPE_READ = re.compile(r"np\.dtype\(os\.environ\.get\(\"" + DTYPE_VARIABLE + "\"")


def dtype_chapters(only: list[str]) -> list[str]:
    """The chapters whose training precision ``SEQMODELS_DTYPE`` sets (``np.dtype(os.environ.get(
    "SEQMODELS_DTYPE", ...))`` in their code; the status page only prints the variable)."""
    return [p.stem for p in chapters() if DTYPE_READ.search(p.read_text()) and (not only or p.stem in only)]


def probe(kernel: str | None) -> tuple[str | None, str]:
    """The architecture OpenBLAS reports under ``kernel`` (None: the default), or None and why not."""
    result = subprocess.run([sys.executable, "-c", PROBE], env=kernel_env(kernel), capture_output=True, text=True)
    if result.returncode == -signal.SIGILL:
        return None, "the CPU lacks its instructions (SIGILL)"
    if result.returncode != 0:
        raise RuntimeError(f"probing OPENBLAS_CORETYPE={kernel} failed:\n{result.stderr[-2000:]}")
    return result.stdout.strip().splitlines()[-1], ""


# --- worker: one kernel, every chapter -----------------------------------------------------------
def glued_values(nb) -> dict[str, str]:
    """``name -> text/plain`` of every value a notebook glued (myst-nb's ``scrapbook`` outputs)."""
    values = {}
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            meta = out.get("metadata", {}).get("scrapbook")
            if out.get("output_type") == "display_data" and meta:
                prefix = meta.get("mime_prefix", "")
                values[meta["name"]] = out["data"].get(prefix + "text/plain", "")
    return values


def execute(path: Path) -> dict:
    import nbformat
    from myst_nb.core.read import read_myst_markdown_notebook
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = read_myst_markdown_notebook(path.read_text(), path=path)
    nb.cells.append(nbformat.v4.new_code_cell(REPORT_CELL))
    kernel_name = nb.metadata.get("kernelspec", {}).get("name", "python3")
    client = NotebookClient(nb, timeout=300, kernel_name=kernel_name, allow_errors=False,
                            resources={"metadata": {"path": str(BOOK)}})
    start = time.perf_counter()
    error = None
    try:
        client.execute()
    except CellExecutionError as exc:
        error = ANSI.sub("", str(exc))[-3000:]
    except Exception as exc:  # a kernel that dies, a timeout
        error = f"{type(exc).__name__}: {exc}"[-3000:]
    seconds = time.perf_counter() - start
    reported = dtype = None
    for out in nb.cells[-1].get("outputs", []):
        for line in out.get("text", "").splitlines():
            if line.startswith(KERNEL_MARK):
                reported = line[len(KERNEL_MARK):].strip()
            if line.startswith(DTYPE_MARK):
                dtype = line[len(DTYPE_MARK):].strip()
    return {"seconds": round(seconds, 2), "error": error, "kernel_in_notebook": reported,
            "dtype_in_notebook": dtype, "glue": glued_values(nb)}


def worker(out: Path, only: list[str]) -> None:
    result = {p.stem: execute(p) for p in chapters() if not only or p.stem in only}
    out.write_text(json.dumps(result, indent=1, sort_keys=True))


# --- comparison ----------------------------------------------------------------------------------
def printed_forms(chapter: str) -> list[tuple[str, str]]:
    """``(name, format spec)`` of every ``{glue:text}`` role in a chapter's source, in order, unique."""
    seen = []
    for m in GLUE_ROLE.finditer((BOOK / f"{chapter}.md").read_text()):
        key, colon, spec = m.group(1).rpartition(":")
        key, spec = (key, spec) if colon else (spec, "s")  # myst-nb's default format is "s"
        if "::" not in key and (key, spec) not in seen:
            seen.append((key, spec))
    return seen


def timing_pages() -> set[str]:
    """The pages that print times measured while they execute (``TIMING_PAGES`` of seqmodels):
    those values differ from run to run on any kernel, so they are counted apart."""
    import importlib
    import pkgutil

    import seqmodels

    pages: set[str] = set()
    for info in pkgutil.walk_packages(seqmodels.__path__, "seqmodels."):
        pages |= set(getattr(importlib.import_module(info.name), "TIMING_PAGES", ()))
    return pages


def compare(base: dict, other: dict) -> dict:
    """Glued values of ``other`` that differ from ``base``: stored and as printed on the page, the
    latter also without the timing pages."""
    from myst_nb.core.variables import format_plain_text

    timed = timing_pages()
    stored = printed = total_stored = total_printed = printed_timed = 0
    examples = []
    for chapter, run in base.items():
        if chapter not in other:  # a run of some chapters only (the float64 one)
            continue
        a, b = run["glue"], other[chapter]["glue"]
        total_stored += len(a)
        stored += sum(a[k] != b.get(k) for k in a)
        for key, spec in printed_forms(chapter):
            if key not in a or key not in b:
                continue
            total_printed += 1
            shown_a, shown_b = format_plain_text(a[key], spec), format_plain_text(b[key], spec)
            if shown_a != shown_b:
                printed += 1
                if chapter in timed:
                    printed_timed += 1
                else:
                    examples.append(f"{chapter}: {key} printed {shown_a} / {shown_b}")
    return {"stored_differ": stored, "stored_total": total_stored, "printed_differ": printed,
            "printed_total": total_printed, "printed_differ_on_timing_pages": printed_timed,
            "printed_examples": examples}


def run_job(kernel: str, chapter: str, out: Path, dtype: str | None = None) -> dict:
    """One chapter under one kernel (and precision), in its own worker process."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, __file__, "--worker", str(out), "--chapters", chapter],
                          env=kernel_env(kernel, dtype), capture_output=True, text=True)
    if proc.returncode != 0 or not out.is_file():
        raise RuntimeError(f"worker for {chapter} with OPENBLAS_CORETYPE={kernel} failed:\n{proc.stderr[-3000:]}")
    run = json.loads(out.read_text())[chapter]
    run["wall_s"] = round(time.perf_counter() - start, 1)
    return run


STATUS_KERNEL = re.compile(r"OpenBLAS [^|\n]*\|\s*kernel (\w+)")
STATUS_DTYPE = re.compile(r"`SEQMODELS_DTYPE`\s*\|\s*([^|\n]+?)\s*\|")


def code_sources(nb) -> list[str]:
    return [cell.source for cell in nb.cells if cell.cell_type == "code"]


def main_build(names: list[str]) -> tuple[dict | None, str, str]:
    """The main build's glued values per chapter, the kernel it ran on (from its status page), and
    why it cannot serve as the base ("" if it can)."""
    import nbformat
    from myst_nb.core.read import read_myst_markdown_notebook

    folder = BUILDDIR / "jupyter_execute"
    status = folder / "status.ipynb"
    if not status.is_file():
        return None, "", f"no main build in {BUILDDIR} (its status page {status} is missing)"
    text = "\n".join(str(v) for cell in nbformat.read(status, as_version=4).cells
                     for out in cell.get("outputs", []) for v in out.get("data", {}).values())
    kernel, dtype = STATUS_KERNEL.search(text), STATUS_DTYPE.search(text)
    if not kernel:
        return None, "", f"the main build's status page ({status}) names no OpenBLAS kernel"
    if dtype and not dtype.group(1).startswith("unset"):
        return None, kernel.group(1), f"the main build ran with {DTYPE_VARIABLE}={dtype.group(1)}, not the default"
    base = {}
    for name in names:
        executed = folder / f"{name}.ipynb"
        if not executed.is_file():
            return None, kernel.group(1), f"{executed} is missing"
        source = read_myst_markdown_notebook((BOOK / f"{name}.md").read_text(), path=BOOK / f"{name}.md")
        if code_sources(nbformat.read(executed, as_version=4)) != code_sources(source):
            return None, kernel.group(1), f"{executed} is older than book/{name}.md (run `make html`)"
        glue_file = folder / f"{name}.glue.json"
        glue = json.loads(glue_file.read_text()) if glue_file.is_file() else {}
        base[name] = {"seconds": None, "error": None, "kernel_in_notebook": kernel.group(1),
                      "dtype_in_notebook": "unset",
                      "glue": {k: v.get("data", {}).get("text/plain", "") for k, v in glue.items()}}
    return base, kernel.group(1), ""


def build_seconds() -> dict[str, float]:
    """How long each chapter took to execute in the main build, to start the longest jobs first:
    the execution cache's records as ``make bench`` reads them (``bench/run.py``'s
    ``cache_records``); empty when there is no cache or it cannot be read (only an estimate)."""
    from bench.run import cache_records

    try:
        records = cache_records(BUILDDIR.parent, BUILDDIR.name)
    except Exception:  # noqa: BLE001 - an unreadable cache gives no estimate, not a failure
        return {}
    return {page: seconds for _, (page, seconds) in sorted(records.items()) if seconds == seconds}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", default=",".join(CANDIDATES),
                        help="OPENBLAS_CORETYPE values to try besides the base (comma-separated)")
    parser.add_argument("--jobs", type=int, default=2, help="jobs (one chapter under one kernel) at the same time")
    parser.add_argument("--min-kernels", type=int, default=3,
                        help="fail unless this many kernels besides the base could run")
    parser.add_argument("--chapters", default="", help="only these chapters (comma-separated stems)")
    parser.add_argument("--base", choices=("auto", "build", "run"), default="auto",
                        help="the values to compare with: the main build's (build), the default kernel "
                             "executed here (run), or the build where it can be used (auto, the default)")
    parser.add_argument("--load", type=int, default=2,
                        help="CPU-bound processes competing while the timing pages run once more (0: skip)")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    only = [c.strip() for c in args.chapters.split(",") if c.strip()]
    if args.worker:
        worker(args.worker, only)
        return 0

    names = [p.stem for p in chapters() if not only or p.stem in only]
    base, base_arch, why_not = main_build(names) if args.base != "run" else (None, "", "--base run")
    if base is None and args.base == "build":
        print(f"portability: the main build cannot be the base: {why_not}", file=sys.stderr)
        return 1
    if base is None:
        base_arch, _ = probe(None)
        base_label = f"default ({base_arch}), executed here"
        lines = [f"Base: the default kernel on this CPU, {base_arch}, executed here ({why_not}).", ""]
    else:
        base_label = f"main build ({base_arch})"
        lines = [f"Base: the main build in {BUILDDIR}, which ran on the {base_arch} kernel "
                 f"(left to itself, with OPENBLAS_CORETYPE unset, OpenBLAS picks {probe(None)[0]} here).", ""]
    base_kernel = base_arch
    runs: dict[str, str] = {}
    expected: dict[str, str] = {}  # label -> the kernel its notebooks must report
    seen = {base_arch.lower()}
    skipped = []
    for kernel in [k.strip() for k in args.kernels.split(",") if k.strip()]:
        arch, why = probe(kernel)
        if arch is None:
            skipped.append(f"{kernel}: not run, {why}")
        elif arch.lower() in seen:
            skipped.append(f"{kernel}: not run again, OpenBLAS resolves it to the {arch} kernel already run")
        else:
            seen.add(arch.lower())
            label = kernel if arch.lower() == kernel.lower() else f"{kernel} ({arch})"
            runs[label], expected[label] = kernel, arch
    n_other = len(runs)
    precision = dtype_chapters(only)
    dtype_label = f"{base_arch}, {DTYPE_VARIABLE}=float64"

    outdir = BUILDDIR / "portability"
    outdir.mkdir(parents=True, exist_ok=True)
    estimate = build_seconds()
    jobs = [(label, kernel, name, None) for label, kernel in runs.items() for name in names]
    jobs += [(dtype_label, base_kernel, name, "float64") for name in precision]
    if base is None:
        jobs += [(base_label, base_kernel, name, None) for name in names]
    jobs.sort(key=lambda job: -estimate.get(job[2], 0.0))  # longest first: both cores busy to the end
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {job: pool.submit(run_job, job[1], job[2],
                                    outdir / f"{re.sub(r'[^A-Za-z0-9]+', '-', job[0])}-{job[2]}.json", job[3])
                   for job in jobs}
        done = {job: f.result() for job, f in futures.items()}
    results: dict[str, dict] = {}
    for (label, _, name, _), run in sorted(done.items(), key=lambda item: item[0][2]):
        results.setdefault(label, {})[name] = run
    load_label = f"{base_arch}, with {args.load} competing CPU-bound processes"
    loaded = [name for name in names if name in timing_pages()] if args.load > 0 else []
    if loaded:
        spin = [subprocess.Popen([sys.executable, "-c", "while True:\n    pass"]) for _ in range(args.load)]
        try:
            for name in loaded:  # one at a time: the page and the spinners share the cores
                results.setdefault(load_label, {})[name] = run_job(base_kernel, name, outdir / f"load-{name}.json")
        finally:
            for proc in spin:
                proc.kill()
                proc.wait()
        expected[load_label] = base_arch
    wall = time.perf_counter() - start
    if base is None:
        base = results.pop(base_label)
    expected[dtype_label] = base_arch

    failures = []
    lines += ["| kernel | chapters passed | seconds, summed over its chapters | glued values that differ "
              "from the base (stored) | ... as printed on the page | ... of which measured times |",
              "| --- | ---: | ---: | ---: | ---: | ---: |"]
    comparisons = {}
    base_seconds = sum(r["seconds"] for r in base.values() if r["seconds"] is not None)
    lines.append(f"| {base_label} (the base) | {len(base)}/{len(base)} | "
                 f"{round(base_seconds, 1) if base_seconds else 'in the build'} | | | |")
    for label in [*runs, *([dtype_label] if precision else []), *([load_label] if loaded else [])]:
        chapters_run = results.get(label, {})
        passed = 0
        for name, run in chapters_run.items():
            if run["error"]:
                failures.append(f"{label}, {name}: {run['error']}")
            elif label == dtype_label and run.get("dtype_in_notebook") != "float64":
                failures.append(f"{label}, {name}: the notebook saw {DTYPE_VARIABLE}="
                                f"{run.get('dtype_in_notebook')}, expected float64 (it did not reach it)")
            elif (run["kernel_in_notebook"] or "").lower() != expected[label].lower():
                failures.append(f"{label}, {name}: the notebook kernel used {run['kernel_in_notebook']}, "
                                f"expected {expected[label]} (OPENBLAS_CORETYPE did not reach it)")
            else:
                passed += 1
        c = comparisons[label] = compare(base, chapters_run)
        seconds = round(sum(r["seconds"] for r in chapters_run.values()), 1)
        lines.append(f"| {label} | {passed}/{len(chapters_run)} | {seconds} | "
                     f"{c['stored_differ']} of {c['stored_total']} | {c['printed_differ']} of {c['printed_total']} | "
                     f"{c['printed_differ_on_timing_pages']} |")
    lines += [""] + [f"- {s}" for s in skipped]
    examples = sorted({e for c in comparisons.values() for e in c["printed_examples"]})
    lines += ["", f"Measured times ({', '.join(sorted(timing_pages()))}) differ from run to run on any "
              "kernel. Other values printed differently (base / other kernel):" if examples else
              "No other value is printed differently on any kernel."]
    if examples:
        lines += [""]
        lines += [f"- {label}: {e}" for label, c in comparisons.items() for e in c["printed_examples"]]
    lines += ["", f"Chapters: {', '.join(names)}. {len(jobs)} jobs, {args.jobs} at a time"
              + (f", then {len(loaded)} under load" if loaded else "") + f"; total wall time {wall:.0f} s."]
    if n_other < args.min_kernels:
        failures.append(f"only {n_other} kernel(s) besides the base could run here; "
                        f"--min-kernels is {args.min_kernels}")
    if failures:
        lines += ["", "FAILED:", ""] + [f"- {f}" for f in failures]
    report = "\n".join(lines) + "\n"
    (outdir / "report.md").write_text(report)
    (outdir / "report.json").write_text(json.dumps(
        {"base": base_label, "base_kernel": base_arch, "runs": runs, "skipped": skipped,
         "comparisons": comparisons, "failures": failures,
         "seconds": {label: {n: r["seconds"] for n, r in results.get(label, {}).items()}
                     for label in [*runs, dtype_label, *([load_label] if loaded else [])]}},
        indent=1))
    print(report)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
