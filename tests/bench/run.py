"""`make bench`: how fast the book builds, what its pages weigh, and how fast the numpy kernels run.

Every build is timed on a scratch copy of the repository (the working tree is never edited), with
the project's .venv and the scratch copy's own code/ first on PYTHONPATH, so edits to the copy's
code/ reach the notebook kernels. Absolute times drift on shared machines, so the headline numbers
are ratios of builds run side by side in this one process tree:

- cold / (floor + pure compute): the whole cost of a cold build against Sphinx's own cost (a build
  with execution off) plus the arithmetic of every chapter's cells run in one plain Python process;
- warm / floor: a rebuild with nothing changed against a build with execution off.

Writes ``BUILDDIR/bench/report.md`` and ``report.json`` and prints the markdown table.
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

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(?P<body>.*?)^```\s*$", re.M | re.S)


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
    if result.returncode != 0 and "-W" in extra:
        raise RuntimeError(f"build failed:\n{result.stderr[-3000:]}")
    return elapsed


def executed_notebooks(copy: Path, builddir: str) -> set[tuple[int, str]]:
    """Records in the execution cache: a new record means a notebook was executed."""
    from jupyter_cache import get_cache

    found = set()
    for cache in (copy / builddir / ".jupyter_cache").glob("*"):
        found |= {(r.pk, r.hashkey) for r in get_cache(cache).list_cache_records()}
    return found


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    if old not in text:
        raise RuntimeError(f"{path.name}: cannot find {old!r} to edit")
    path.write_text(text.replace(old, new, 1))


def build_timings(repeats: int, chapter: str, modules: list[str]) -> dict:
    rows: dict[str, list[float]] = {}
    executed: dict[str, list[int]] = {}

    def record(name: str, seconds: float, copy: Path, before: set, builddir: str = "_b") -> None:
        rows.setdefault(name, []).append(seconds)
        executed.setdefault(name, []).append(len(executed_notebooks(copy, builddir) - before))

    for i in range(repeats):
        with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
            copy = make_copy(Path(tmp))
            page = copy / "book" / f"{chapter}.md"
            strict = ("-W", "-n")
            record("cold build", sphinx(copy, "_b", *strict), copy, set())
            before = executed_notebooks(copy, "_b")
            record("warm rebuild, nothing changed", sphinx(copy, "_b", *strict), copy, before)
            edit(page, "\n## ", f"\nA sentence added by the benchmark, run {i}.\n\n## ")
            before = executed_notebooks(copy, "_b")
            record("prose-only edit of one chapter", sphinx(copy, "_b", *strict), copy, before)
            # the first cell without options: add a line of code to it
            text = page.read_text()
            at = re.search(r"```\{code-cell\} ipython3\n(?![:-])", text).end()
            page.write_text(text[:at] + f"_bench = {i}\n" + text[at:])
            before = executed_notebooks(copy, "_b")
            record("code-cell edit of one chapter", sphinx(copy, "_b", *strict), copy, before)
            for module in modules:  # a comment added to one module re-executes its importers
                with (copy / "code" / "seqmodels" / module).open("a") as f:
                    f.write(f"\n# benchmark edit {i}\n")
                before = executed_notebooks(copy, "_b")
                record(f"edit in code/ (seqmodels/{module})", sphinx(copy, "_b", *strict), copy, before)
            # Sphinx's own cost: execution off (glue keys are then missing, so no -W here).
            record("floor: execution off", sphinx(copy, "_f", "-D", "nb_execution_mode=off"), copy, set(), "_f")
    return {name: {"median_s": statistics.median(v), "runs_s": v,
                   "notebooks_executed": executed[name]} for name, v in rows.items()}


# --- pure compute ---------------------------------------------------------------------------------
def cell_code(text: str) -> str:
    """The source of every ``{code-cell}`` of a MyST notebook, options stripped, in page order."""
    cells = []
    for m in CELL.finditer(text):
        body = m["body"]
        if body.startswith("---\n"):
            body = body.split("\n---\n", 1)[1]
        lines = body.splitlines()
        while lines and lines[0].startswith(":"):
            lines.pop(0)
        cells.append("\n".join(lines))
    return "\n\n".join(cells)


RUNNER = r"""
import json, os, sys, time
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
plt.show = lambda *args, **kwargs: plt.close("all")
os.chdir(sys.argv[1])
out = {}
for path in sys.argv[2:]:
    code = compile(open(path).read(), path, "exec")
    start = time.perf_counter()
    exec(code, {"__name__": "__chapter__"})
    out[os.path.basename(path)] = time.perf_counter() - start
    plt.close("all")
sys.__stdout__.write("\nBENCH " + json.dumps(out) + "\n")
"""


def pure_compute(repeats: int) -> dict:
    """Every chapter's cells, run one after the other in one plain Python process (no kernel,
    no Sphinx): the arithmetic a build cannot avoid."""
    pages = sorted(p for p in (ROOT / "book").glob("*.md") if "{code-cell}" in p.read_text())
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench-pure-") as tmp:
        scripts = []
        for page in pages:
            script = Path(tmp) / f"{page.stem}.py"
            script.write_text(cell_code(page.read_text()))
            scripts.append(str(script))
        for _ in range(repeats):
            result = subprocess.run([PY, "-c", RUNNER, str(ROOT / "book"), *scripts], capture_output=True,
                                    text=True, env=dict(os.environ, MPLBACKEND="Agg"))
            line = [l for l in result.stdout.splitlines() if l.startswith("BENCH ")]
            if result.returncode != 0 or not line:
                raise RuntimeError(f"pure compute failed:\n{result.stderr[-3000:]}")
            runs.append(json.loads(line[-1][6:]))
    per_page = {page: statistics.median(r[page] for r in runs) for page in runs[0]}
    return {"per_page_s": per_page, "total_s": sum(per_page.values())}


# --- kernels --------------------------------------------------------------------------------------
def best_of(fn, repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def kernels(repeats: int) -> list[dict]:
    """Forward and forward+backward of the numpy models, in tokens per second."""
    import numpy as np

    from seqmodels import rnn

    try:
        from seqmodels import lstm
    except ImportError:  # the benchmark also runs on a book without the LSTM chapter
        lstm = None

    rows = []
    rng = np.random.default_rng(0)

    def measure(kernel: str, shape: str, tokens: int, fn) -> None:
        seconds = best_of(fn, repeats)
        rows.append({"kernel": kernel, "shape": shape, "seconds": seconds, "tokens_per_s": tokens / seconds})

    for batch, T, d in [(1, 50, 128), (32, 50, 128), (32, 200, 64)]:
        xs, dhs = rng.normal(size=(T, batch, d)), rng.normal(size=(T, batch, d))
        h0 = np.zeros((batch, d))
        W_h, W_x, b = rnn.init_rnn(d, d, rng, spectral_radius=0.9)
        shape = f"batch {batch}, T {T}, d {d}"
        measure("RNN forward", shape, batch * T, lambda: rnn.rnn_forward(xs, h0, W_h, W_x, b))
        measure("RNN forward+backward", shape, batch * T, lambda: rnn.rnn_backward(xs, h0, W_h, W_x, b, dhs))
        if lstm is not None:
            W, bl = rng.normal(scale=d ** -0.5, size=(4 * d, 2 * d)), np.zeros(4 * d)
            measure("LSTM forward", shape, batch * T, lambda: lstm.lstm_forward(xs, h0, h0, W, bl))
            measure("LSTM forward+backward", shape, batch * T, lambda: lstm.lstm_backward(xs, h0, h0, W, bl, dhs))
    try:
        from seqmodels import attention
    except ImportError:
        return rows
    d = 64
    for n in [128, 512, 2048]:
        X = rng.normal(size=(n, d))
        Wq, Wk, Wv = (rng.normal(scale=d ** -0.5, size=(d, d)) for _ in range(3))
        measure("causal self-attention", f"n {n}, d {d}", n,
                lambda: attention.self_attention(X, Wq, Wk, Wv, causal=True))
    return rows


# --- reference implementation ---------------------------------------------------------------------
def reference(repeats: int, batch: int = 32, T: int = 50, d: int = 128) -> dict:
    """The same RNN and LSTM in PyTorch on the CPU, when torch is installed in .venv (it is not a
    requirement of the book: `.venv/bin/pip install torch==2.13.0`). Both are given the same
    weights; reported are the largest differences of outputs and gradients and the time ratio
    numpy / PyTorch for forward and forward+backward."""
    try:
        import torch
    except ImportError:
        return {"available": False, "why": "torch is not installed in .venv"}
    import numpy as np

    from seqmodels import lstm, rnn

    torch.set_default_dtype(torch.float64)
    rng = np.random.default_rng(0)
    xs, dhs = rng.normal(size=(T, batch, d)), rng.normal(size=(T, batch, d))
    h0 = np.zeros((batch, d))
    t_xs, t_dhs = torch.tensor(xs, requires_grad=True), torch.tensor(dhs)
    rows = []

    def compare(name, ours_fwd, ours_both, ours_out, ours_grads, module, torch_grads, state):
        def torch_fwd():
            return module(t_xs, state)[0]

        def torch_both():
            module.zero_grad()
            t_xs.grad = None
            (torch_fwd() * t_dhs).sum().backward()

        torch_both()
        out = torch_fwd().detach().numpy()
        grad_diff = max(float(np.abs(a - b().numpy()).max()) for a, b in zip(ours_grads, torch_grads))
        times = {k: best_of(f, repeats) for k, f in
                 {"ours_fwd": ours_fwd, "torch_fwd": torch_fwd, "ours_both": ours_both, "torch_both": torch_both}.items()}
        rows.append({"model": name, "shape": f"batch {batch}, T {T}, d {d}", "float64": True,
                     "max_output_diff": float(np.abs(ours_out - out).max()), "max_grad_diff": grad_diff,
                     "forward_ratio": times["ours_fwd"] / times["torch_fwd"],
                     "forward_backward_ratio": times["ours_both"] / times["torch_both"], **times})

    W_h, W_x, b = rnn.init_rnn(d, d, rng, spectral_radius=0.9)
    net = torch.nn.RNN(d, d, nonlinearity="tanh")
    with torch.no_grad():
        net.weight_hh_l0.copy_(torch.tensor(W_h)); net.weight_ih_l0.copy_(torch.tensor(W_x))
        net.bias_ih_l0.copy_(torch.tensor(b)); net.bias_hh_l0.zero_()
    g = rnn.rnn_backward(xs, h0, W_h, W_x, b, dhs)
    compare("RNN (tanh)", lambda: rnn.rnn_forward(xs, h0, W_h, W_x, b),
            lambda: rnn.rnn_backward(xs, h0, W_h, W_x, b, dhs), rnn.rnn_forward(xs, h0, W_h, W_x, b),
            [g["W_h"], g["W_x"], g["xs"]], net,
            [lambda: net.weight_hh_l0.grad, lambda: net.weight_ih_l0.grad, lambda: t_xs.grad],
            torch.tensor(h0[None]))

    W, bl = rng.normal(scale=d ** -0.5, size=(4 * d, 2 * d)), rng.normal(scale=0.1, size=4 * d)
    order = np.r_[d:2 * d, 0:d, 2 * d:4 * d]  # ours: forget, input, cand., output; torch: input, forget, ...
    cell = torch.nn.LSTM(d, d)
    with torch.no_grad():
        cell.weight_ih_l0.copy_(torch.tensor(W[order, :d])); cell.weight_hh_l0.copy_(torch.tensor(W[order, d:]))
        cell.bias_ih_l0.copy_(torch.tensor(bl[order])); cell.bias_hh_l0.zero_()
    g = lstm.lstm_backward(xs, h0, h0, W, bl, dhs)
    zero = torch.tensor(h0[None])
    compare("LSTM", lambda: lstm.lstm_forward(xs, h0, h0, W, bl),
            lambda: lstm.lstm_backward(xs, h0, h0, W, bl, dhs), lstm.lstm_forward(xs, h0, h0, W, bl)[0],
            [g["W"][order, :d], g["W"][order, d:], g["xs"]], cell,
            [lambda: cell.weight_ih_l0.grad, lambda: cell.weight_hh_l0.grad, lambda: t_xs.grad], (zero, zero))
    return {"available": True, "torch": torch.__version__, "threads": torch.get_num_threads(), "rows": rows}


# --- page weight ----------------------------------------------------------------------------------
def page_weight(site: Path) -> list[dict]:
    """Bytes of each page with everything a browser loads to show it: HTML, CSS, scripts, the
    fonts it actually uses, images, and MathJax's on-demand components. Measured by loading the
    page in headless Chromium from a local server and adding up the response bodies; ``gzip_bytes``
    is the same files gzip-compressed (level 6), as a static host such as GitHub Pages sends them."""
    import functools
    import gzip
    import shutil
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    from playwright.sync_api import sync_playwright

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    if not shutil.which("chromium"):
        raise RuntimeError("page weight needs Debian's chromium (apt-get install chromium)")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    rows = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=shutil.which("chromium"), args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            for page_file in sorted(site.glob("*.html")):
                responses = []
                page = browser.new_page()
                page.on("response", lambda r: responses.append(r))
                page.goto(base + page_file.name, wait_until="networkidle")
                page.wait_for_timeout(500)  # MathJax typesets after load and may fetch more
                # Bodies are read before the page closes: reading them in the response handler
                # raced with page.close() and dropped files (a page once counted without MathJax).
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
    import numpy as np

    return (f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"numpy {np.__version__}, {platform.platform()}")


def markdown(report: dict) -> str:
    b, floor = report["build"], report["build"]["floor: execution off"]["median_s"]
    pure = report["pure_compute"]["total_s"]
    out = [f"Measured on {report['machine']} ({report['date']}), `{report['command']}`.", "",
           "| build | median (s) | runs (s) | notebooks executed |", "| --- | ---: | --- | --- |"]
    for name, row in b.items():
        runs = ", ".join(f"{s:.1f}" for s in row["runs_s"])
        out.append(f"| {name} | {row['median_s']:.1f} | {runs} | {row['notebooks_executed']} |")
    out.append(f"| pure compute of every chapter's cells, one process | {pure:.1f} | | |")
    h = report["headline"]
    out += ["", "| headline ratio | value | target |", "| --- | ---: | ---: |",
            f"| cold / (floor + pure compute) | {h['cold_over_floor_plus_compute']:.2f} | 1.3 |",
            f"| warm / floor | {h['warm_over_floor']:.2f} | 1.5 |",
            f"| notebooks re-executed by a prose-only edit | {h['prose_edit_executions']} | 0 |", "",
            "| kernel | shape | seconds | tokens/s |", "| --- | --- | ---: | ---: |"]
    out += [f"| {k['kernel']} | {k['shape']} | {k['seconds']:.4f} | {k['tokens_per_s']:,.0f} |"
            for k in report["kernels"]]
    ref = report["reference"]
    if ref["available"]:
        out += ["", f"Against PyTorch {ref['torch']} on the CPU ({ref['threads']} threads), same weights, float64:", "",
                "| model | shape | max output diff | max gradient diff | numpy/torch time, forward | "
                "numpy/torch time, forward+backward |", "| --- | --- | ---: | ---: | ---: | ---: |"]
        out += [f"| {r['model']} | {r['shape']} | {r['max_output_diff']:.1e} | {r['max_grad_diff']:.1e} | "
                f"{r['forward_ratio']:.2f} | {r['forward_backward_ratio']:.2f} |" for r in ref["rows"]]
    else:
        out += ["", f"Reference comparison skipped: {ref['why']} (`.venv/bin/pip install torch==2.13.0`)."]
    if not report["pages"]:
        return "\n".join(out + ["", f"Page weight skipped: {report['pages_note']}."]) + "\n"
    out += ["", "| page | HTML (kB) | with what it loads (kB) | gzip-compressed (kB) | files | largest figure (kB) |",
            "| --- | ---: | ---: | ---: | ---: | ---: |"]
    out += [f"| {p['page']} | {p['html_bytes'] / 1e3:.0f} | {p['total_bytes'] / 1e3:.0f} | "
            f"{p['gzip_bytes'] / 1e3:.0f} | {p['files']} | {p['largest_figure_bytes'] / 1e3:.0f} |"
            for p in report["pages"]]
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="builds of each kind (median reported)")
    parser.add_argument("--chapter", default="rnn", help="chapter edited in the rebuild timings")
    parser.add_argument("--module", action="append", dest="modules",
                        help="module of code/seqmodels to edit (repeatable; default vectors.py, rnn.py)")
    parser.add_argument("--out", default=os.environ.get("SEQMODELS_BUILDDIR", str(ROOT / "_build")))
    args = parser.parse_args()

    build = build_timings(args.repeats, args.chapter, args.modules or ["vectors.py", "rnn.py"])
    pure = pure_compute(args.repeats)
    floor = build["floor: execution off"]["median_s"]
    try:
        pages, pages_note = page_weight(Path(args.out) / "html"), ""
    except RuntimeError as err:  # no Chromium on this machine: report the rest
        pages, pages_note = [], str(err)
    report = {
        "pages_note": pages_note,
        "machine": machine(), "date": time.strftime("%Y-%m-%d"),
        "command": f"make bench (repeats={args.repeats})",
        "build": build, "pure_compute": pure,
        "headline": {
            "cold_over_floor_plus_compute": build["cold build"]["median_s"] / (floor + pure["total_s"]),
            "warm_over_floor": build["warm rebuild, nothing changed"]["median_s"] / floor,
            "prose_edit_executions": max(build["prose-only edit of one chapter"]["notebooks_executed"]),
        },
        "kernels": kernels(args.repeats),
        "reference": reference(args.repeats),
        "pages": pages,
    }
    out = Path(args.out) / "bench"
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / "report.md").write_text(markdown(report))
    print(markdown(report))
    print(f"written: {out / 'report.md'}, {out / 'report.json'}")


if __name__ == "__main__":
    main()
