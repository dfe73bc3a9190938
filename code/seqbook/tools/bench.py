"""`make bench`: how fast the book builds, what its pages weigh, and how fast the numpy kernels run;
``--write-readme README.md`` (which `make bench` passes) writes the tables into the README.

Every build is timed on a scratch copy of the repository (the working tree is never edited), with
the project's .venv and the scratch copy's own code/ first on PYTHONPATH, so edits to the copy's
code/ reach the notebook kernels. The builds reuse one another: one cold build (empty execution
cache) is the state that the warm rebuilds, the prose and code-cell edits of one chapter and the
edits in code/ then rebuild, in that order. Each case runs as often as its spread and cost allow:
the expensive ones (cold build, code-cell edit, edits in code/, the floor) once, the cheap ones
(warm rebuild, prose edit) ``--repeats`` times (default 3), every run reported. Every build runs
with ``-W -n``, so a build that fails stops the benchmark instead of being timed. The two modules edited in code/ are chosen by the build's own dependency scan:
one that only the edited chapter imports, and the one that the most chapters import short of all
of them; the scan also says how many notebooks each edit must re-execute.

The headline ratios, of builds run side by side in this one process tree:

- cold / (floor + Σ execution): the cold build against the floor plus the execution time of every
  notebook as jupyter-cache recorded it inside that same cold build (kernel start included; under
  ``-j auto`` notebooks execute side by side and share the CPU). The floor is everything a build
  does but execute: a build into a new folder that is given a copy of the execution cache, so every
  page is read, rendered with its outputs and written, and no notebook runs. (A build with
  execution off cannot be the floor: seqbook.downloads refuses to write a chapter's .ipynb download without
  outputs, and fails the build.)
- warm / floor: a rebuild with nothing changed against that floor.

Then the numpy kernels, on one BLAS thread: tokens per second of the readable reference models
(rnn.py, lstm.py, gru.py) next to the batched kernel recurrent.py (one model, float64 and float32),
and attention; and, where torch can be imported, the RNN and LSTM against torch.nn.RNN / nn.LSTM
with the same weights (differences of outputs and gradients, time ratios numpy / PyTorch, one
thread on both sides, torch default against numpy on one BLAS thread, and both defaults). Last,
the page weight of the site `make html` built (headless Chromium, found by seqbook.tools.browser_path).

Each section has a time budget (:data:`BUDGET_S`, printed at the start, and against what it took at
the end); the whole of `make bench` is meant to stay within :data:`TARGETS` ``"bench_s"``.

Writes ``BUILDDIR/bench/report.md`` and ``report.json`` and prints the markdown. With
``--write-readme PATH`` it replaces the blocks between ``<!-- bench:NAME:start -->`` and
``<!-- bench:NAME:end -->`` in PATH (:data:`README_BLOCKS`), each block saying when, at which commit
and on which machine it was measured; a marker missing or doubled fails the run before anything is
written.

Only the kernel sections, without building anything (``make bench-kernels``; never writes the
README)::

    .venv/bin/python -m seqbook.tools.bench --kernels-only [--repeats 10]

writes ``BUILDDIR/bench/kernels.md`` and ``kernels.json`` and prints the markdown. torch is not a
requirement of the book and must not be installed into .venv; for the PyTorch section run the same
command from a separate environment with the package's code on the path::

    python3 -m venv /tmp/torchvenv
    /tmp/torchvenv/bin/pip install torch==2.13.0 numpy==2.4.6 threadpoolctl==3.8.0 matplotlib==3.11.2
    PYTHONPATH=code /tmp/torchvenv/bin/python -m seqbook.tools.bench --kernels-only
    # or: make bench-kernels BENCH_PYTHON=/tmp/torchvenv/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]  # the repository: code/seqbook/tools/bench.py
PY = sys.executable

#: Seconds each section of `make bench` is planned to take on a 2-core machine; printed, and
#: reported against what each took. ``make html``: the build `make bench` starts with (seconds when
#: _build is up to date, a cold build when it is empty).
BUDGET_S = {"make html": 150, "build": 360, "kernels": 30, "page weight": 60}
#: What the measurements are held against (targets, not measurements).
TARGETS = {"cold_ratio": 1.3, "warm_ratio": 1.5, "page_bytes": 1.5e6, "bench_s": 600,
           "chapter_s": 25, "chapters_total_s": 110}
#: Runs of each kernel in `make bench` (the fastest is reported); ``--kernels-only`` takes ``--repeats``.
KERNEL_REPEATS = 10
#: The README's generated blocks, in the order they appear.
README_BLOCKS = ("summary", "build", "kernels", "pages")


def log(message: str) -> None:
    print(f"[bench] {message}", flush=True)


# --- the README's generated blocks ----------------------------------------------------------------
def markers(name: str) -> tuple[str, str]:
    return f"<!-- bench:{name}:start -->", f"<!-- bench:{name}:end -->"


def replace_block(text: str, name: str, body: str) -> str:
    """``text`` with what lies between the start and end markers of block ``name`` replaced by
    ``body`` (on lines of its own). Each marker must appear exactly once, the start first; otherwise
    ValueError, so a README whose markers were mangled is never half-written."""
    start, end = markers(name)
    for marker in (start, end):
        count = text.count(marker)
        if count != 1:
            raise ValueError(f"marker {marker!r} appears {count} times; it must appear exactly once")
    i, j = text.index(start) + len(start), text.index(end)
    if j < i:
        raise ValueError(f"marker {end!r} comes before {start!r}")
    return text[:i] + "\n" + body.strip("\n") + "\n" + text[j:]


def outside_blocks(text: str, names=README_BLOCKS) -> str:
    """``text`` with every generated block (markers included) cut out: what was written by hand."""
    for name in names:
        start, end = markers(name)
        text = re.sub(re.escape(start) + r".*?" + re.escape(end), "", text, flags=re.S)
    return text


def write_readme(path: Path, blocks: dict[str, str]) -> None:
    """Replace every block of ``blocks`` in the file at ``path``; nothing is written unless every
    block's markers are in order."""
    text = path.read_text()
    for name, body in blocks.items():
        text = replace_block(text, name, body)
    path.write_text(text)


def git_state(root: Path = ROOT) -> dict:
    """The commit measured and whether the tree had changes (the scratch copy takes them too)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout

    changed = [line[3:] for line in git("status", "--porcelain").splitlines() if line.strip()]
    return {"commit": git("rev-parse", "--short", "HEAD").strip(), "dirty": bool(changed), "changed": changed}


def provenance(report: dict) -> str:
    """The line that heads each generated block: date, commit, machine, load."""
    git = report["git"]
    if git["dirty"]:
        shown = ", ".join(f"`{p}`" for p in git["changed"][:5]) + (", ..." if len(git["changed"]) > 5 else "")
        n = len(git["changed"])
        tree = f"with uncommitted changes in {n} file{'s' if n > 1 else ''} ({shown})"
    else:
        tree = "clean tree"
    load = report["load"]
    return (f"*Generated by `make bench` on {report['date']} at commit `{git['commit']}` ({tree}), on "
            f"{report['machine']}; load average {load['start']:.2f} at the start, {load['end']:.2f} at the "
            f"end.*")


# --- build timings --------------------------------------------------------------------------------
def make_copy(dest: Path) -> Path:
    """A scratch copy of the tracked files, sharing the project's .venv."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    for rel in files:
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    (dest / ".venv").symlink_to(ROOT / ".venv")
    return dest


def sphinx(copy: Path, builddir: str, *extra: str) -> float:
    """One `sphinx-build` as `make html` runs it; returns wall seconds."""
    env = dict(os.environ, SEQMODELS_BUILDDIR=str(copy / builddir),
               PYTHONPATH=str(copy / "code"), JUPYTER_PATH=str(ROOT / ".venv" / "share" / "jupyter"))
    env.setdefault("SOURCE_DATE_EPOCH", "315532800")
    cmd = [PY, "-m", "sphinx", "-b", "html", "-c", ".", "-d", f"{builddir}/doctrees", "book",
           f"{builddir}/html", "-q", "-j", "auto", "--keep-going", *extra]
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:  # a failed build is not a measurement
        raise RuntimeError(f"build failed:\n{result.stderr[-3000:]}")
    return elapsed


def cache_records(copy: Path, builddir: str) -> dict[int, tuple[str, float]]:
    """The execution cache's records, ``pk: (page, execution seconds)``; a new record means a
    notebook was executed, and jupyter-cache keeps how long its execution took (kernel start
    included)."""
    from jupyter_cache import get_cache

    found = {}
    for cache in (copy / builddir / ".jupyter_cache").glob("*"):
        for r in get_cache(cache).list_cache_records():
            found[r.pk] = (Path(r.uri).stem, float((r.data or {}).get("execution_seconds", "nan")))
    return found


def chapter_modules(root: Path = ROOT) -> dict[str, set[str]]:
    """The build's own dependency scan (``seqbook.cachekeys.chapter_dependencies``): for every page
    of ``root/book`` with code cells, the files of seqmodels its cells can execute, as paths below
    ``code/seqmodels/`` (``{"rnn": {"__init__.py", "models/rnn.py", ...}, ...}``); an edit of one of
    them re-executes the page."""
    from seqbook.cachekeys import chapter_dependencies

    package = root / "code" / "seqmodels"
    return {page.stem: {p.relative_to(package).as_posix() for p in chapter_dependencies(page.read_text(), package)}
            for page in sorted((root / "book").glob("*.md")) if "{code-cell}" in page.read_text()}


def importers(deps: dict[str, set[str]]) -> dict[str, list[str]]:
    """For each module, the pages that execute it."""
    out: dict[str, list[str]] = {}
    for page, modules in sorted(deps.items()):
        for module in modules:
            out.setdefault(module, []).append(page)
    return out


def modules_to_edit(deps: dict[str, set[str]], chapter: str) -> tuple[str, str]:
    """The two modules whose edit the benchmark times: one that only ``chapter`` executes (the same
    notebook the code-cell edit re-executes), and the one that the most chapters execute short of
    every chapter that uses the package (those would re-execute everything, like a cold build);
    ties go to the first name."""
    users = importers(deps)
    chapters = [page for page, modules in deps.items() if modules - {"__init__.py"}]
    only = sorted(m for m, pages in users.items() if pages == [chapter] and not m.endswith("__init__.py"))
    if not only:
        raise RuntimeError(f"no module of code/seqmodels is executed by {chapter}.md alone")
    shared = sorted((m for m, pages in users.items() if 1 < len(pages) < len(chapters) and not m.endswith("__init__.py")),
                    key=lambda m: (-len(users[m]), m))
    if not shared:
        raise RuntimeError("no module of code/seqmodels is executed by several chapters but not all")
    return only[0], shared[0]


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    if old not in text:
        raise RuntimeError(f"{path.name}: cannot find {old!r} to edit")
    path.write_text(text.replace(old, new, 1))


FLOOR = "floor: new build folder, execution cache copied (nothing executes)"


def build_timings(repeats: int, chapter: str, modules: list[str] | None = None) -> dict:
    """Every build case, each run's seconds and notebooks executed, and what the dependency scan
    expects it to execute; the per-page execution seconds of the cold build; the floor."""
    deps = chapter_modules()
    users = importers(deps)
    modules = modules or list(modules_to_edit(deps, chapter))
    for module in modules:
        if module not in users:
            raise RuntimeError(f"no chapter executes code/seqmodels/{module}")
    cases: dict[str, dict] = {}

    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        copy = make_copy(Path(tmp))
        page = copy / "book" / f"{chapter}.md"
        strict = ("-W", "-n")

        def run(name: str, expected: int, builddir: str = "_b", *extra: str, note: str = "") -> dict:
            before = cache_records(copy, builddir)
            seconds = sphinx(copy, builddir, *(extra or strict))
            new = {pk: v for pk, v in cache_records(copy, builddir).items() if pk not in before}
            case = cases.setdefault(name, {"runs_s": [], "executed": [], "expected": expected, "note": note})
            case["runs_s"].append(seconds)
            case["executed"].append(len(new))
            log(f"  {name}: {seconds:.1f} s, {len(new)} notebooks executed (expected {expected})")
            return new

        cold = run("cold build, empty cache", len(deps), note="every page with code cells")
        execution = {page_name: s for page_name, s in sorted(cold.values())}
        for _ in range(repeats):
            run("warm rebuild, nothing changed", 0)
        for i in range(repeats):
            edit(page, "\n## ", f"\nA sentence added by the benchmark, run {i}.\n\n## ")
            run(f"prose-only edit of {chapter}.md", 0)
        # the first cell without options: add a line of code to it
        text = page.read_text()
        at = re.search(r"```\{code-cell\} ipython3\n(?![:-])", text).end()
        page.write_text(text[:at] + "_bench = 0\n" + text[at:])
        run(f"code-cell edit of {chapter}.md", 1, note=chapter)
        for module in modules:  # a line of code added to one module re-executes the pages that execute it
            with (copy / "code" / "seqmodels" / module).open("a") as f:
                f.write("\n_bench_edit = 0\n")  # code, not a comment: the cache keys may ignore comments
            run(f"edit in code/seqmodels/{module}", len(users[module]), note=", ".join(users[module]))
        # The floor: everything but execution, a build into a new folder given the cache's records.
        shutil.copytree(copy / "_b" / ".jupyter_cache", copy / "_f" / ".jupyter_cache")
        run(FLOOR, 0, "_f")
    for case in cases.values():
        case["median_s"] = statistics.median(case["runs_s"])
    return {"cases": cases, "execution_s": execution, "chapter": chapter, "modules": modules,
            "cold": "cold build, empty cache", "warm": "warm rebuild, nothing changed",
            "prose": f"prose-only edit of {chapter}.md", "floor": FLOOR}


def headline(build: dict) -> dict:
    """The ratios and checks held against :data:`TARGETS`."""
    cases, floor = build["cases"], build["cases"][build["floor"]]["median_s"]
    execution = sum(build["execution_s"].values())
    return {"execution_total_s": execution,
            "cold_over_floor_plus_execution": cases[build["cold"]]["median_s"] / (floor + execution),
            "warm_over_floor": cases[build["warm"]]["median_s"] / floor,
            "prose_edit_executions": max(cases[build["prose"]]["executed"]),
            "executions_as_expected": all(n == c["expected"] for c in cases.values() for n in c["executed"])}


# --- kernels --------------------------------------------------------------------------------------
#: (batch, T, d) of the recurrent rows of :func:`kernels`.
KERNEL_SHAPES = ((1, 50, 128), (32, 50, 128), (32, 200, 64))
#: Sequence lengths of the attention rows (d 64).
ATTENTION_SIZES = (128, 512, 2048)
#: The kernel's name for each cell of the reference modules.
KINDS = {"RNN": "rnn", "LSTM": "lstm", "GRU": "gru"}
DTYPES = ("float64", "float32")


def best_of(fn, repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def best_of_each(fns: dict, repeats: int) -> dict[str, float]:
    """The fastest of ``repeats`` runs of every function, the runs interleaved (one of each per
    round), so that a slow spell of a shared machine hits every contestant alike."""
    for fn in fns.values():
        fn()  # warm-up
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: min(v) for name, v in times.items()}


def blas_threads() -> int:
    """Threads of numpy's BLAS right now (under threadpoolctl's limits, if any)."""
    from threadpoolctl import threadpool_info

    return max((i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"), default=1)


def _cell_weights(name: str, d: int, rng):
    """One model's weights in the layout of the kernel, (k d, 2 d) and (k d,), and the reference
    module's call for forward and forward+backward from zero states."""
    import numpy as np

    from seqmodels.models import gru, lstm, rnn

    if name == "RNN":
        W_h, W_x, b = rnn.init_rnn(d, d, rng, spectral_radius=0.9)
        return (np.hstack([W_x, W_h]), b,
                lambda xs, h0: rnn.rnn_forward(xs, h0, W_h, W_x, b),
                lambda xs, h0, dhs: rnn.rnn_backward(xs, h0, W_h, W_x, b, dhs))
    if name == "LSTM":
        W, b = rng.normal(scale=d ** -0.5, size=(4 * d, 2 * d)), np.zeros(4 * d)
        return (W, b, lambda xs, h0: lstm.lstm_forward(xs, h0, h0, W, b),
                lambda xs, h0, dhs: lstm.lstm_backward(xs, h0, h0, W, b, dhs))
    W, b = gru.init_gru(d, d, rng)
    return (W, b, lambda xs, h0: gru.gru_forward(xs, h0, W, b),
            lambda xs, h0, dhs: gru.gru_backward(xs, h0, W, b, dhs))


def kernels(repeats: int, shapes=KERNEL_SHAPES, attention_sizes=ATTENTION_SIZES) -> list[dict]:
    """Forward and forward+backward of the numpy models, in tokens per second, on one BLAS thread
    (as the book's experiments run them).

    For every shape, each readable reference (``RNN forward``, ...) is followed by the batched
    kernel :mod:`seqmodels.kernels.recurrent` computing the same thing for one model (S = 1) in float64 and
    in float32 (``kernel RNN forward (float32)``, ...; those rows name their ``reference`` row).
    The kernel's forward returns every state (:meth:`~seqmodels.kernels.recurrent.Pass.states`), as the
    references do, and its backward also the gradient at the inputs (``inputs=True``), as the
    references' do; its float32 inputs are converted once, outside the timing."""
    import numpy as np
    from threadpoolctl import threadpool_limits

    from seqmodels.kernels import recurrent

    try:
        from seqmodels.models import lstm  # noqa: F401
    except ImportError:  # the benchmark also runs on a book without the LSTM chapter
        cells = ("RNN",)
    else:
        cells = tuple(KINDS)

    rows = []
    rng = np.random.default_rng(0)

    def measure(kernel: str, shape: str, tokens: int, fn, **extra) -> None:
        seconds = best_of(fn, repeats)
        rows.append({"kernel": kernel, "shape": shape, "seconds": seconds, "tokens_per_s": tokens / seconds, **extra})

    def kernel_forward(kind, W, b, xs, tag):
        return lambda: recurrent.forward(kind, W, b, xs, tag=tag).states()

    def kernel_both(kind, W, b, xs, dhs, tag):
        return lambda: recurrent.backward(recurrent.forward(kind, W, b, xs, tag=tag), dhs=dhs, inputs=True)

    with threadpool_limits(limits=1, user_api="blas"):
        for batch, T, d in shapes:
            xs, dhs = rng.normal(size=(T, batch, d)), rng.normal(size=(T, batch, d))
            h0 = np.zeros((batch, d))
            shape = f"batch {batch}, T {T}, d {d}"
            for name in cells:
                W, b, ref_forward, ref_backward = _cell_weights(name, d, rng)
                kind = KINDS[name]
                for mode, ref in (("forward", lambda: ref_forward(xs, h0)),
                                  ("forward+backward", lambda: ref_backward(xs, h0, dhs))):
                    measure(f"{name} {mode}", shape, batch * T, ref)
                    for dt in DTYPES:
                        Wk, bk = W[None].astype(dt), b[None].astype(dt)
                        xk, dk = xs.astype(dt), dhs[:, None].astype(dt)
                        tag = f"bench-{dt}-"
                        fn = (kernel_forward(kind, Wk, bk, xk, tag) if mode == "forward"
                              else kernel_both(kind, Wk, bk, xk, dk, tag))
                        measure(f"kernel {name} {mode} ({dt})", shape, batch * T, fn,
                                reference=f"{name} {mode}", dtype=dt)
        try:
            from seqmodels.models import attention
        except ImportError:
            return rows
        d = 64
        for n in attention_sizes:
            X = rng.normal(size=(n, d))
            Wq, Wk, Wv = (rng.normal(scale=d ** -0.5, size=(d, d)) for _ in range(3))
            measure("causal self-attention", f"n {n}, d {d}", n,
                    lambda: attention.self_attention(X, Wq, Wk, Wv, causal=True))
    return rows


# --- reference implementation ---------------------------------------------------------------------
#: What the issue asks of the kernel: forward+backward within this factor of PyTorch's CPU time.
TARGET_RATIO = 1.5
NO_TORCH = "torch is not installed in this Python"
#: (label, torch threads, numpy BLAS threads) of the PyTorch comparison; None: the library's default.
THREAD_SETTINGS = (("1 thread", 1, 1), ("torch default, numpy 1", None, 1), ("default threads", None, None))


def reference(repeats: int, batch: int = 32, T: int = 50, d: int = 128) -> dict:
    """The same RNN and LSTM in PyTorch on the CPU (torch.nn.RNN, torch.nn.LSTM), given the same
    weights, against the readable numpy references (float64) and against the batched kernel
    :mod:`seqmodels.kernels.recurrent` (S = 1) in float64 and float32, each against torch in the same
    dtype. torch is not a requirement of the book and does not belong in .venv; run this section
    from a separate environment (see the module docstring).

    Reported per row: the largest differences of outputs (every state) and of gradients (weights,
    biases, inputs); for float32 rows also torch float32's own distance from torch float64, the
    size of float32 round-off here; and the time ratios numpy / PyTorch for forward and
    forward+backward (fastest of ``repeats``, runs interleaved). Both sides compute the same:
    torch's backward computes the gradient at the inputs, so the kernel is asked for it
    (``inputs=True``); the forward passes keep what their backward needs (torch records its graph,
    the kernel keeps every step). Three thread settings (:data:`THREAD_SETTINGS`): one thread on
    both sides (``torch.set_num_threads(1)``, numpy's BLAS limited by threadpoolctl); torch with its
    default threads against numpy on one BLAS thread, as the book's experiments run; and both
    libraries with their defaults. The GRU is not compared: torch's applies the reset gate after the
    recurrent product, ``r * (W_hn h + b_hn)``, the book's (Cho et al.) before it, ``W_n (r * h)``."""
    try:
        import torch
    except ImportError:
        return {"available": False, "why": NO_TORCH}
    import contextlib

    import numpy as np
    from threadpoolctl import threadpool_limits

    from seqmodels.models import lstm, rnn
    from seqmodels.kernels import recurrent

    tdt = {"float64": torch.float64, "float32": torch.float32}
    rng = np.random.default_rng(0)
    xs, dhs = rng.normal(size=(T, batch, d)), rng.normal(size=(T, batch, d))
    h0 = np.zeros((batch, d))
    shape = f"batch {batch}, T {T}, d {d}"

    # The models: torch's in both dtypes with the same weights, and how to read its gradients in
    # the kernel's layout (rows in the book's order, columns [x | h]).
    W_h, W_x, b = rnn.init_rnn(d, d, rng, spectral_radius=0.9)
    W_lstm, b_lstm = rng.normal(scale=d ** -0.5, size=(4 * d, 2 * d)), rng.normal(scale=0.1, size=4 * d)
    order = np.r_[d:2 * d, 0:d, 2 * d:4 * d]  # ours: forget, input, cand., output; torch: input, forget, ...
    models = {
        "RNN (tanh)": dict(kind="rnn", W=np.hstack([W_x, W_h]), b=b, rows=np.arange(d),
                           module=lambda dt: torch.nn.RNN(d, d, nonlinearity="tanh", dtype=dt),
                           ref_fwd=lambda: rnn.rnn_forward(xs, h0, W_h, W_x, b),
                           ref_both=lambda: rnn.rnn_backward(xs, h0, W_h, W_x, b, dhs)),
        "LSTM": dict(kind="lstm", W=W_lstm, b=b_lstm, rows=order,
                     module=lambda dt: torch.nn.LSTM(d, d, dtype=dt),
                     ref_fwd=lambda: lstm.lstm_forward(xs, h0, h0, W_lstm, b_lstm)[0],
                     ref_both=lambda: lstm.lstm_backward(xs, h0, h0, W_lstm, b_lstm, dhs)),
    }

    def torch_side(m, dt):
        """Forward and forward+backward of torch's model, its outputs and gradients (in the kernel's
        layout: W (k d, 2 d), b (k d,), xs (T, B, d))."""
        net = m["module"](tdt[dt])
        with torch.no_grad():
            Wt = torch.tensor(m["W"][m["rows"]], dtype=tdt[dt])
            net.weight_ih_l0.copy_(Wt[:, :d]); net.weight_hh_l0.copy_(Wt[:, d:])
            net.bias_ih_l0.copy_(torch.tensor(m["b"][m["rows"]], dtype=tdt[dt])); net.bias_hh_l0.zero_()
        t_xs = torch.tensor(xs, dtype=tdt[dt], requires_grad=True)
        t_dhs = torch.tensor(dhs, dtype=tdt[dt])
        zero = torch.zeros(1, batch, d, dtype=tdt[dt])
        state = (zero, zero) if m["kind"] == "lstm" else zero

        def fwd():
            return net(t_xs, state)[0]

        def both():
            net.zero_grad()
            t_xs.grad = None
            (fwd() * t_dhs).sum().backward()

        both()
        unorder = np.argsort(m["rows"])
        grads = {"W": np.hstack([net.weight_ih_l0.grad.numpy(), net.weight_hh_l0.grad.numpy()])[unorder],
                 "b": net.bias_ih_l0.grad.numpy()[unorder], "xs": t_xs.grad.numpy()}
        return fwd, both, fwd().detach().numpy(), grads

    def kernel_side(m, dt):
        W, b_, xk = m["W"][None].astype(dt), m["b"][None].astype(dt), xs.astype(dt)
        dk = dhs[:, None].astype(dt)
        tag = f"bench-ref-{dt}-"

        def fwd():
            return recurrent.forward(m["kind"], W, b_, xk, tag=tag).states()

        def both():
            return recurrent.backward(recurrent.forward(m["kind"], W, b_, xk, tag=tag), dhs=dk, inputs=True)

        g = both()
        return fwd, both, fwd()[:, 0], {"W": g["W"][0], "b": g["b"][0], "xs": g["xs"][:, 0]}

    def reference_side(m):
        g = m["ref_both"]()
        if m["kind"] == "rnn":
            G = {"W": np.hstack([g["W_x"], g["W_h"]]), "b": g["b"], "xs": g["xs"]}
        else:
            G = {"W": g["W"], "b": g["b"], "xs": g["xs"]}
        return m["ref_fwd"], m["ref_both"], m["ref_fwd"](), G

    def diff(a, b_):
        return float(np.abs(np.asarray(a, np.float64) - np.asarray(b_, np.float64)).max())

    def grad_diff(g1, g2):
        return max(diff(g1[k], g2[k]) for k in ("W", "b", "xs"))

    default_threads = torch.get_num_threads()
    rows = []
    try:
        for label, torch_n, blas_n in THREAD_SETTINGS:
            torch.set_num_threads(torch_n or default_threads)
            limit = threadpool_limits(limits=blas_n, user_api="blas") if blas_n else contextlib.nullcontext()
            with limit:
                threads = {"torch_threads": torch.get_num_threads(), "blas_threads": blas_threads()}
                for name, m in models.items():
                    sides = {f"torch_{dt}": torch_side(m, dt) for dt in DTYPES}
                    sides["reference"] = reference_side(m)
                    sides.update({f"kernel_{dt}": kernel_side(m, dt) for dt in DTYPES})
                    fns = {}
                    for key, (fwd, both, _, _) in sides.items():
                        fns[f"{key}_fwd"], fns[f"{key}_both"] = fwd, both
                    times = best_of_each(fns, repeats)
                    for numpy_side, dt in (("reference", "float64"), ("kernel", "float64"), ("kernel", "float32")):
                        key = "reference" if numpy_side == "reference" else f"kernel_{dt}"
                        _, _, out, grads = sides[key]
                        _, _, t_out, t_grads = sides[f"torch_{dt}"]
                        row = {"model": name, "numpy": numpy_side, "dtype": dt, "float64": dt == "float64",
                               "threads": label, **threads, "shape": shape,
                               "max_output_diff": diff(out, t_out), "max_grad_diff": grad_diff(grads, t_grads),
                               "ours_fwd": times[f"{key}_fwd"], "ours_both": times[f"{key}_both"],
                               "torch_fwd": times[f"torch_{dt}_fwd"], "torch_both": times[f"torch_{dt}_both"]}
                        if dt == "float32":  # the scale of float32 round-off: torch float32 against float64
                            _, _, t64_out, t64_grads = sides["torch_float64"]
                            row["torch_float32_vs_float64_output"] = diff(t_out, t64_out)
                            row["torch_float32_vs_float64_grad"] = grad_diff(t_grads, t64_grads)
                        row["forward_ratio"] = row["ours_fwd"] / row["torch_fwd"]
                        row["forward_backward_ratio"] = row["ours_both"] / row["torch_both"]
                        rows.append(row)
    finally:
        torch.set_num_threads(default_threads)
    return {"available": True, "torch": torch.__version__, "threads": default_threads, "shape": shape,
            "target_ratio": TARGET_RATIO, "rows": rows}


# --- page weight ----------------------------------------------------------------------------------
def page_weight(site: Path) -> list[dict]:
    """Bytes of each page with everything a browser loads to show it: HTML, CSS, scripts, the
    fonts it actually uses (the math font and the icon font) and images. Measured by loading the
    page in headless Chromium from a local server and adding up the response bodies; ``gzip_bytes``
    is the same files gzip-compressed (level 6), as a static host such as GitHub Pages sends them."""
    import functools
    import gzip
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    from playwright.sync_api import sync_playwright

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    from seqbook.tools.browser_path import find_browser, missing_message

    executable = find_browser()
    if executable is None:
        raise RuntimeError("page weight needs a browser: " + missing_message())
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    rows = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=executable, args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            for page_file in sorted(site.glob("*.html")):
                responses = []
                page = browser.new_page()
                page.on("response", lambda r: responses.append(r))
                page.goto(base + page_file.name, wait_until="networkidle")
                page.wait_for_timeout(500)  # fonts and late images may still be on their way
                # Bodies are read before the page closes: reading them in the response handler
                # raced with page.close() and dropped files (a page was once counted without them).
                loaded: dict[str, bytes] = {r.url: r.body() for r in responses if r.ok}
                page.close()
                kinds: dict[str, int] = {}
                for url, body in loaded.items():
                    suffix = Path(url.split("?")[0]).suffix or ".html"
                    kinds[suffix] = kinds.get(suffix, 0) + len(body)
                figures = {u: len(b) for u, b in loaded.items() if "/_images/" in u}
                rows.append({"page": page_file.name, "html_bytes": page_file.stat().st_size,
                             "total_bytes": sum(map(len, loaded.values())),
                             "gzip_bytes": sum(len(gzip.compress(b, 6, mtime=0)) for b in loaded.values()),
                             "by_type": kinds, "files": len(loaded),
                             "largest_figure": max(figures, key=figures.get).rsplit("/", 1)[-1] if figures else "",
                             "largest_figure_bytes": max(figures.values(), default=0)})
            browser.close()
    finally:
        httpd.shutdown()
    return rows


# --- report ---------------------------------------------------------------------------------------
def machine() -> str:
    """The machine and the numerical libraries, including which of its kernels numpy's BLAS runs
    (OPENBLAS_CORETYPE, when set, overrides OpenBLAS's own choice; it changes kernel timings)."""
    import numpy as np
    from threadpoolctl import threadpool_info

    blas = ", ".join(f"{i['internal_api']} {i['version']}"
                     + (f" ({i['architecture']} kernels)" if i.get("architecture") else "")
                     for i in threadpool_info() if i["user_api"] == "blas")
    coretype = os.environ.get("OPENBLAS_CORETYPE")
    return (f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"numpy {np.__version__}, BLAS {blas or 'unknown'}"
            + (f", OPENBLAS_CORETYPE={coretype}" if coretype is not None else "") + f", {platform.platform()}")


def markdown_kernels(report: dict) -> list[str]:
    """The kernel and PyTorch sections of the report, as markdown lines: every kernel row."""
    out = ["| kernel | shape | seconds | tokens/s | × reference |", "| --- | --- | ---: | ---: | ---: |"]
    tokens = {(k["kernel"], k["shape"]): k["tokens_per_s"] for k in report["kernels"]}
    for k in report["kernels"]:
        ref = tokens.get((k.get("reference"), k["shape"]))
        speedup = f"{k['tokens_per_s'] / ref:.1f}" if ref else ""
        out.append(f"| {k['kernel']} | {k['shape']} | {k['seconds']:.4f} | {k['tokens_per_s']:,.0f} | {speedup} |")
    return out + [""] + markdown_torch(report["reference"])


def markdown_torch(ref: dict) -> list[str]:
    """The PyTorch comparison, or why it did not run."""
    out: list[str] = []
    if not ref["available"]:
        return out + [f"PyTorch comparison skipped: {ref['why']}. torch is not a requirement of the book and "
                      "does not belong in .venv; measure from a separate environment, e.g. "
                      "`python3 -m venv /tmp/torchvenv && /tmp/torchvenv/bin/pip install torch==2.13.0 numpy==2.4.6 "
                      "threadpoolctl==3.8.0 matplotlib==3.11.2`, then "
                      "`make bench-kernels BENCH_PYTHON=/tmp/torchvenv/bin/python`."]
    out += [f"Against PyTorch {ref['torch']} on the CPU, same weights, {ref['shape']}; each numpy side against "
            "torch in the same dtype. \"numpy\": the readable reference modules (rnn.py, lstm.py) or the batched "
            "kernel (recurrent.py, S = 1, backward with `inputs=True`). Threads: one on both sides; torch's "
            "default against numpy on one BLAS thread (as the book runs); or each library's default. Gradient differences cover weights, biases and inputs; for float32, torch "
            "float32's own distance from torch float64 shows the size of float32 round-off.", "",
            "| numpy | model | dtype | threads (torch, BLAS) | max output diff | max gradient diff | "
            "torch f32 vs f64 (output, gradient) | numpy/torch time, forward | "
            "numpy/torch time, forward+backward | forward+backward ms (numpy, torch) |",
            "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in ref["rows"]:
        scale = (f"{r['torch_float32_vs_float64_output']:.1e}, {r['torch_float32_vs_float64_grad']:.1e}"
                 if "torch_float32_vs_float64_output" in r else "")
        out.append(f"| {r['numpy']} | {r['model']} | {r['dtype']} | {r['threads']} ({r['torch_threads']}, "
                   f"{r['blas_threads']}) | {r['max_output_diff']:.1e} | {r['max_grad_diff']:.1e} | {scale} | "
                   f"{r['forward_ratio']:.2f} | {r['forward_backward_ratio']:.2f} | "
                   f"{r['ours_both'] * 1e3:.1f}, {r['torch_both'] * 1e3:.1f} |")
    target = [r for r in ref["rows"] if r["numpy"] == "kernel" and r["model"] == "LSTM"]
    if target:
        met = ", ".join(f"{r['threads']} {r['dtype']} {r['forward_backward_ratio']:.2f}"
                        f" ({'met' if r['forward_backward_ratio'] <= ref['target_ratio'] else 'not met'})"
                        for r in target)
        out += ["", f"Target: the kernel's LSTM forward+backward within {ref['target_ratio']}× of PyTorch's "
                f"({ref['shape']}): kernel/torch = {met}."]
    return out



def met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def runs(values, fmt: str = "{:.1f}") -> str:
    return ", ".join(fmt.format(v) for v in values)


def markdown_summary(report: dict) -> str:
    """How long each section of this run took, against its budget."""
    sections = report["sections_s"]
    out = [provenance(report), "",
           "| section of `make bench` | took (s) | budget (s) |", "| --- | ---: | ---: |"]
    for name, seconds in sections.items():
        out.append(f"| {name} | {seconds:.0f} | {BUDGET_S.get(name, '')} |")
    total = report["total_s"]
    out += [f"| **total** | **{total:.0f}** | {sum(BUDGET_S.values())} |", "",
            f"Target: `make bench` within {TARGETS['bench_s']} s on this machine: {met(total <= TARGETS['bench_s'])}."
            + ("" if "make html" in sections else
               " (The `make html` that `make bench` starts with was not timed: the benchmark was started by hand.)")]
    return "\n".join(out) + "\n"


def markdown_build(report: dict) -> str:
    b, h = report["build"], report["headline"]
    out = [provenance(report), "",
           "| build | runs | median (s) | each run (s) | notebooks executed | expected (the build's scan) |",
           "| --- | ---: | ---: | --- | --- | --- |"]
    for name, c in b["cases"].items():
        executed = runs(c["executed"], "{}") if len(set(c["executed"])) > 1 else str(c["executed"][0])
        expected = f"{c['expected']}" + (f" ({c['note']})" if c["note"] else "")
        out.append(f"| {name} | {len(c['runs_s'])} | {c['median_s']:.1f} | {runs(c['runs_s'])} | {executed} | {expected} |")
    out += ["", "Each page's execution inside that cold build, as jupyter-cache recorded it (kernel start "
            "included; `-j auto` runs notebooks side by side, so they shared the CPU):", "",
            "| page | execution (s) | budget (s) | |", "| --- | ---: | ---: | --- |"]
    out += [f"| {page} | {s:.1f} | {TARGETS['chapter_s']} | {met(s <= TARGETS['chapter_s'])} |"
            for page, s in b["execution_s"].items()]
    out += [f"| Σ execution | {h['execution_total_s']:.1f} | {TARGETS['chapters_total_s']} | "
            f"{met(h['execution_total_s'] <= TARGETS['chapters_total_s'])} |", "",
            "| headline | value | target | |", "| --- | ---: | ---: | --- |",
            f"| cold / (floor + Σ execution) | {h['cold_over_floor_plus_execution']:.2f} | ≤ {TARGETS['cold_ratio']} | "
            f"{met(h['cold_over_floor_plus_execution'] <= TARGETS['cold_ratio'])} |",
            f"| warm / floor | {h['warm_over_floor']:.2f} | ≤ {TARGETS['warm_ratio']} | "
            f"{met(h['warm_over_floor'] <= TARGETS['warm_ratio'])} |",
            f"| notebooks executed by a prose-only edit | {h['prose_edit_executions']} | 0 | "
            f"{met(h['prose_edit_executions'] == 0)} |",
            f"| every build executed exactly the notebooks the scan expects | "
            f"{'yes' if h['executions_as_expected'] else 'no'} | yes | {met(h['executions_as_expected'])} |", "",
            "Σ execution is measured inside the cold build, not in a separate run of the cells; notebooks that "
            "executed side by side both count their shared time, so a ratio below 1 means that execution "
            "overlapped, not that the build cost less than its parts. The same sharing inflates each page's "
            "time against its budget (a page's compute on 2 cores), so a page over budget here may be within it "
            "alone; one within it here is within it. Medians of the runs above; the cases that "
            "execute notebooks, and the floor, ran once."]
    return "\n".join(out) + "\n"


def markdown_kernels_compact(report: dict) -> str:
    """The kernel section for the README: one row per model, pass and shape."""
    k = report["kernels"]
    by = {(r["kernel"], r["shape"]): r for r in k}
    out = [provenance(report), "",
           f"Tokens per second on one BLAS thread, the fastest of {report['kernel_repeats']} runs; the kernel "
           "(`recurrent.py`, one model) against the readable reference (`rnn.py`, `lstm.py`, `gru.py`), "
           "× its speed-up:", "",
           "| model, pass | shape | reference | kernel float64 | × | kernel float32 | × |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in k:
        if r["kernel"].startswith("kernel ") or r["kernel"] == "causal self-attention":
            continue
        cells = [f"{r['tokens_per_s']:,.0f}"]
        for dt in DTYPES:
            kr = by.get((f"kernel {r['kernel']} ({dt})", r["shape"]))
            cells += [f"{kr['tokens_per_s']:,.0f}", f"{kr['tokens_per_s'] / r['tokens_per_s']:.1f}"] if kr else ["", ""]
        out.append(f"| {r['kernel']} | {r['shape']} | " + " | ".join(cells) + " |")
    attention = [r for r in k if r["kernel"] == "causal self-attention"]
    if attention:
        out += ["", "| causal self-attention | tokens/s |", "| --- | ---: |"]
        out += [f"| {r['shape']} | {r['tokens_per_s']:,.0f} |" for r in attention]
    out += [""] + markdown_torch(report["reference"])
    return "\n".join(out) + "\n"


def markdown_pages(report: dict) -> str:
    if not report["pages"]:
        return provenance(report) + f"\n\nPage weight not measured in this run: {report['pages_note']}.\n"
    limit = TARGETS["page_bytes"]
    out = [provenance(report), "",
           "Every page of the site `make html` built, loaded in headless Chromium: its HTML, and everything "
           "the browser fetched to show it (raw, and gzip-compressed as a static host sends it). An explorable "
           "figure's states are SVGs inside its page, so they count as HTML, not as figures.", "",
           "| page | HTML (kB) | with what it loads (kB) | gzip-compressed (kB) | files | largest figure (kB) |",
           "| --- | ---: | ---: | ---: | ---: | ---: |"]
    out += [f"| {p['page']} | {p['html_bytes'] / 1e3:.0f} | {p['total_bytes'] / 1e3:.0f} | "
            f"{p['gzip_bytes'] / 1e3:.0f} | {p['files']} | {p['largest_figure_bytes'] / 1e3:.0f} |"
            for p in report["pages"]]
    heaviest = max(report["pages"], key=lambda p: p["total_bytes"])
    out += ["", f"Target: every page with what it loads within {limit / 1e6:g} MB: "
            f"{met(heaviest['total_bytes'] <= limit)} (heaviest: {heaviest['page']}, "
            f"{heaviest['total_bytes'] / 1e6:.2f} MB)."]
    return "\n".join(out) + "\n"


def readme_blocks(report: dict) -> dict[str, str]:
    return {"summary": markdown_summary(report), "build": markdown_build(report),
            "kernels": markdown_kernels_compact(report), "pages": markdown_pages(report)}


def markdown(report: dict) -> str:
    """report.md: the README's blocks, then every kernel row."""
    blocks = readme_blocks(report)
    return "\n".join([blocks[name] for name in README_BLOCKS]
                     + ["All kernel rows:", "", *markdown_kernels(report)]) + "\n"


def markdown_kernels_only(report: dict) -> str:
    """The report of ``--kernels-only``: the kernel and PyTorch sections alone."""
    return "\n".join([f"Measured on {report['machine']} ({report['date']}), `{report['command']}`.", "",
                      *markdown_kernels(report)]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=None,
                        help="runs of each cheap build case (warm rebuild, prose edit; every run reported; "
                             "default 3); with --kernels-only, runs of each kernel (fastest reported; default 10)")
    parser.add_argument("--kernels-only", action="store_true",
                        help="only the kernel and PyTorch sections (no builds, no page weight, no README)")
    parser.add_argument("--chapter", default="rnn", help="chapter edited in the rebuild timings")
    parser.add_argument("--module", action="append", dest="modules",
                        help="module of code/seqmodels to edit (repeatable; default: chosen by the build's "
                             "dependency scan, one executed by --chapter alone and one by most chapters)")
    parser.add_argument("--out", default=os.environ.get("SEQMODELS_BUILDDIR", str(ROOT / "_build")))
    parser.add_argument("--write-readme", type=Path, metavar="PATH",
                        help="replace the generated blocks of this README (`make bench` passes README.md)")
    parser.add_argument("--started", type=float, metavar="EPOCH",
                        help="when `make bench` started (before its `make html`), to time the whole run")
    args = parser.parse_args()
    out = Path(args.out) / "bench"

    if args.kernels_only:
        if args.write_readme:
            parser.error("--kernels-only never writes the README (only `make bench` does)")
        repeats = args.repeats or KERNEL_REPEATS
        report = {"machine": machine(), "date": time.strftime("%Y-%m-%d"),
                  "command": f"python -m seqbook.tools.bench --kernels-only (repeats={repeats})",
                  "kernels": kernels(repeats), "reference": reference(repeats)}
        out.mkdir(parents=True, exist_ok=True)
        (out / "kernels.json").write_text(json.dumps(report, indent=2) + "\n")
        (out / "kernels.md").write_text(markdown_kernels_only(report))
        print(markdown_kernels_only(report))
        print(f"written: {out / 'kernels.md'}, {out / 'kernels.json'}")
        return

    if args.write_readme:  # fail now, not after the builds, if the README's markers are wrong
        readme = args.write_readme.read_text()
        for name in README_BLOCKS:
            replace_block(readme, name, "")
    repeats = args.repeats or 3
    began = time.time()
    sections: dict[str, float] = {}
    if args.started is not None:
        sections["make html"] = began - args.started
    load_start, git = os.getloadavg()[0], git_state()  # the state the scratch copy takes
    if sys.flags.dont_write_bytecode:
        log("PYTHONDONTWRITEBYTECODE is set: every build and kernel compiles its imports again, "
            "and the times include that (the README's blocks say so)")
    log("budget (s): " + ", ".join(f"{k} {v}" for k, v in BUDGET_S.items())
        + f"; total {sum(BUDGET_S.values())} (target: make bench within {TARGETS['bench_s']} s)")

    def section(name: str, fn):
        log(f"{name}: started (budget {BUDGET_S[name]} s)")
        start = time.time()
        result = fn()
        sections[name] = time.time() - start
        over = " OVER BUDGET" if sections[name] > BUDGET_S[name] else ""
        log(f"{name}: took {sections[name]:.0f} s of its {BUDGET_S[name]} s budget{over}")
        return result

    build = section("build", lambda: build_timings(repeats, args.chapter, args.modules))
    kernel_rows = section("kernels", lambda: (kernels(KERNEL_REPEATS), reference(KERNEL_REPEATS)))

    def weigh():
        try:
            return page_weight(Path(args.out) / "html"), ""
        except RuntimeError as err:  # no Chromium on this machine: report the rest
            return [], str(err)

    pages, pages_note = section("page weight", weigh)
    report = {
        "machine": machine() + (", PYTHONDONTWRITEBYTECODE set" if sys.flags.dont_write_bytecode else ""),
        "date": time.strftime("%Y-%m-%d"), "git": git,
        "load": {"start": load_start, "end": os.getloadavg()[0]},
        "command": f"make bench (repeats={repeats})", "repeats": repeats, "kernel_repeats": KERNEL_REPEATS,
        "build": build, "headline": headline(build),
        "kernels": kernel_rows[0], "reference": kernel_rows[1],
        "pages": pages, "pages_note": pages_note,
        "sections_s": sections, "budget_s": BUDGET_S, "targets": TARGETS,
        "total_s": time.time() - (args.started if args.started is not None else began),
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / "report.md").write_text(markdown(report))
    print(markdown(report))
    print(f"written: {out / 'report.md'}, {out / 'report.json'}")
    if args.write_readme:
        write_readme(args.write_readme, readme_blocks(report))
        print(f"written: the blocks {', '.join(README_BLOCKS)} of {args.write_readme}")


if __name__ == "__main__":
    main()
