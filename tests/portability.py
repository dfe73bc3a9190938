"""Execute every chapter under several OpenBLAS kernels and compare what they glue into the prose.

Readers' CPUs use other BLAS kernels than the build machine's. OpenBLAS picks one at start-up from
the CPU, and ``OPENBLAS_CORETYPE`` overrides the choice; different kernels sum in a different order
and so round differently in the last bits. Every chapter must execute, and every ``assert`` in it
hold, under each. ``make portability`` runs this script::

    python tests/portability.py [--kernels Haswell,Zen,...] [--jobs 2] [--min-kernels 3]

1. Probe each candidate kernel in a small process: the CPU may lack its instructions (it then
   dies with SIGILL and is skipped, saying so), and some names resolve to the same kernel as
   another (then it is not run twice).
2. For the machine's default kernel and every distinct other one, a worker process with
   ``OPENBLAS_CORETYPE`` set executes each chapter (``book/*.md`` with code cells, read by myst-nb's
   own reader, executed by nbclient on the ``python3`` kernel in ``book/``, as the build does). The
   notebook kernels inherit the variable; a cell appended to each chapter reports the kernel
   OpenBLAS actually uses there, and a mismatch fails the check.
3. Compare the glued values with the default kernel's: how many differ as stored (the full
   ``repr``), and how many differ as printed on the page (with the format the prose gives them,
   e.g. ``{glue:text}`loss_last:.2f```).

4. Execute once more, on the default kernel, every chapter that reads ``SEQMODELS_DTYPE`` (the
   precision of its training runs, float32 by default), with ``SEQMODELS_DTYPE=float64``: the
   precision is another setting whose change every ``assert`` must survive.

It fails (exit 1) if any chapter raises under any kernel or precision, or fewer than ``--min-kernels`` kernels
besides the default could run. Differences of glued values are reported, not failed: a claim is
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


def dtype_chapters(only: list[str]) -> list[str]:
    """The chapters whose training precision ``SEQMODELS_DTYPE`` sets."""
    return [p.stem for p in chapters() if DTYPE_VARIABLE in p.read_text() and (not only or p.stem in only)]


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
    for info in pkgutil.iter_modules(seqmodels.__path__):
        pages |= set(getattr(importlib.import_module(f"seqmodels.{info.name}"), "TIMING_PAGES", ()))
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


def run_kernel(kernel: str | None, out: Path, only: list[str], dtype: str | None = None) -> dict:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, __file__, "--worker", str(out), "--chapters", ",".join(only)],
                          env=kernel_env(kernel, dtype),
                          capture_output=True, text=True)
    if proc.returncode != 0 or not out.is_file():
        raise RuntimeError(f"worker for OPENBLAS_CORETYPE={kernel} failed:\n{proc.stderr[-3000:]}")
    result = json.loads(out.read_text())
    return {"wall_s": round(time.perf_counter() - start, 1), "chapters": result}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", default=",".join(CANDIDATES),
                        help="OPENBLAS_CORETYPE values to try besides the default (comma-separated)")
    parser.add_argument("--jobs", type=int, default=2, help="kernels executed at the same time")
    parser.add_argument("--min-kernels", type=int, default=3,
                        help="fail unless this many kernels besides the default could run")
    parser.add_argument("--chapters", default="", help="only these chapters (comma-separated stems)")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    only = [c.strip() for c in args.chapters.split(",") if c.strip()]
    if args.worker:
        worker(args.worker, only)
        return 0

    default_arch, _ = probe(None)
    lines = [f"Default kernel on this CPU: {default_arch}.", ""]
    runs: dict[str, str | None] = {f"default ({default_arch})": None}
    seen = {default_arch}
    skipped = []
    for kernel in [k.strip() for k in args.kernels.split(",") if k.strip()]:
        arch, why = probe(kernel)
        if arch is None:
            skipped.append(f"{kernel}: not run, {why}")
        elif arch in seen:
            skipped.append(f"{kernel}: not run again, OpenBLAS resolves it to the {arch} kernel already run")
        else:
            seen.add(arch)
            runs[kernel if arch.lower() == kernel.lower() else f"{kernel} ({arch})"] = kernel
    n_other = len(runs) - 1

    outdir = BUILDDIR / "portability"
    outdir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    precision = dtype_chapters(only)
    dtype_label = f"default ({default_arch}), {DTYPE_VARIABLE}=float64"
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {label: pool.submit(run_kernel, kernel, outdir / f"{kernel or 'default'}.json", only)
                   for label, kernel in runs.items()}
        if precision:
            futures[dtype_label] = pool.submit(run_kernel, None, outdir / "default-float64.json", precision, "float64")
        results = {label: f.result() for label, f in futures.items()}
    if precision:
        runs[dtype_label] = None
    wall = time.perf_counter() - start

    failures = []
    base_label = next(iter(runs))
    base = results[base_label]["chapters"]
    names = sorted(base)
    lines += ["| kernel | chapters passed | wall (s) | glued values that differ from the default "
              "(stored) | ... as printed on the page | ... of which measured times |",
              "| --- | ---: | ---: | ---: | ---: | ---: |"]
    comparisons = {}
    for label, kernel in runs.items():
        chapters_run = results[label]["chapters"]
        expected = default_arch if kernel is None else probe(kernel)[0]
        passed = 0
        for name in [n for n in names if n in chapters_run]:
            run = chapters_run[name]
            if run["error"]:
                failures.append(f"{label}, {name}: {run['error']}")
            elif label == dtype_label and run.get("dtype_in_notebook") != "float64":
                failures.append(f"{label}, {name}: the notebook saw {DTYPE_VARIABLE}="
                                f"{run.get('dtype_in_notebook')}, expected float64 (it did not reach it)")
            elif run["kernel_in_notebook"] != expected:
                failures.append(f"{label}, {name}: the notebook kernel used {run['kernel_in_notebook']}, "
                                f"expected {expected} (OPENBLAS_CORETYPE did not reach it)")
            else:
                passed += 1
        c = comparisons[label] = compare(base, chapters_run)
        lines.append(f"| {label} | {passed}/{len(chapters_run)} | {results[label]['wall_s']} | "
                     f"{c['stored_differ']} of {c['stored_total']} | {c['printed_differ']} of {c['printed_total']} | "
                     f"{c['printed_differ_on_timing_pages']} |")
    lines += [""] + [f"- {s}" for s in skipped]
    examples = sorted({e for c in comparisons.values() for e in c["printed_examples"]})
    lines += ["", f"Measured times ({', '.join(sorted(timing_pages()))}) differ from run to run on any "
              "kernel. Other values printed differently (default / other kernel):" if examples else
              "No other value is printed differently on any kernel."]
    if examples:
        lines += [""]
        lines += [f"- {label}: {e}" for label, c in comparisons.items() for e in c["printed_examples"]]
    lines += ["", f"Chapters: {', '.join(names)}. Total wall time {wall:.0f} s with {args.jobs} job(s)."]
    if n_other < args.min_kernels:
        failures.append(f"only {n_other} kernel(s) besides the default could run here; "
                        f"--min-kernels is {args.min_kernels}")
    if failures:
        lines += ["", "FAILED:", ""] + [f"- {f}" for f in failures]
    report = "\n".join(lines) + "\n"
    (outdir / "report.md").write_text(report)
    (outdir / "report.json").write_text(json.dumps(
        {"default": default_arch, "runs": {k: v or None for k, v in runs.items()}, "skipped": skipped,
         "comparisons": comparisons, "failures": failures,
         "seconds": {label: {n: r["seconds"] for n, r in results[label]["chapters"].items()} for label in runs}},
        indent=1))
    print(report)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
