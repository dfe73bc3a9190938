"""`make bench` runs for half an hour before it reaches its kernel section, so a call that no
longer matches the package (as `init_rnn(d, d, 0.9, rng)` once did) would surface only then. These
tests run that section and the page-weight bookkeeping once, with one repeat; they check that the
benchmark can run and reports what it says, never how fast anything is."""
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "tests" / "bench" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TINY = dict(shapes=((1, 3, 4), (2, 3, 4)), attention_sizes=(8,))


@pytest.fixture(scope="module")
def kernel_rows(bench):
    return bench.kernels(1, **TINY)


@pytest.fixture(scope="module")
def reference(bench):
    return bench.reference(1, batch=2, T=3, d=4)


def test_kernel_section_runs_on_the_current_package(bench, kernel_rows):
    kernels = {row["kernel"] for row in kernel_rows}
    assert {"RNN forward", "RNN forward+backward", "LSTM forward", "LSTM forward+backward",
            "GRU forward", "GRU forward+backward", "causal self-attention"} <= kernels
    assert all(row["seconds"] > 0 and row["tokens_per_s"] > 0 for row in kernel_rows)
    assert len({(row["kernel"], row["shape"]) for row in kernel_rows}) == len(kernel_rows)  # no row twice


def test_kernel_rows_sit_next_to_their_references(bench, kernel_rows):
    """The batched kernel: every cell, mode and dtype at every shape, each naming a reference row
    measured at the same shape."""
    measured = {(row["kernel"], row["shape"]) for row in kernel_rows}
    kernel = [row for row in kernel_rows if row["kernel"].startswith("kernel ")]
    shapes = {f"batch {b}, T {T}, d {d}" for b, T, d in TINY["shapes"]}
    assert {(row["kernel"], row["shape"]) for row in kernel} == {
        (f"kernel {cell} {mode} ({dt})", shape) for cell in ("RNN", "LSTM", "GRU")
        for mode in ("forward", "forward+backward") for dt in ("float64", "float32") for shape in shapes}
    assert all((row["reference"], row["shape"]) in measured and row["dtype"] in row["kernel"] for row in kernel)
    text = bench.markdown_kernels({"kernels": kernel_rows, "reference": {"available": False, "why": "x"}})
    assert sum("| kernel LSTM forward+backward (float32) |" in line for line in text) == len(shapes)


def test_reference_section_runs_or_says_why_not(bench, reference):
    if not reference["available"]:
        assert reference["why"] == bench.NO_TORCH
        return
    # torch importable: the numpy models (references and kernel) and PyTorch's must agree
    rows = reference["rows"]
    assert {(r["numpy"], r["model"], r["dtype"], r["threads"]) for r in rows} == {
        (numpy, model, dt, threads) for model in ("RNN (tanh)", "LSTM") for threads, _, _ in bench.THREAD_SETTINGS
        for numpy, dt in (("reference", "float64"), ("kernel", "float64"), ("kernel", "float32"))}
    for r in rows:
        tol = 1e-9 if r["dtype"] == "float64" else 1e-4
        assert r["max_output_diff"] < tol and r["max_grad_diff"] < tol, r
        assert r["forward_ratio"] > 0 and r["forward_backward_ratio"] > 0
        assert ("torch_float32_vs_float64_output" in r) == (r["dtype"] == "float32")
    for label, torch_n, blas_n in bench.THREAD_SETTINGS:  # the limits took effect
        assert all(r["torch_threads"] == (torch_n or reference["threads"]) for r in rows if r["threads"] == label)
        assert all(r["blas_threads"] == blas_n for r in rows if r["threads"] == label and blas_n)
    text = "\n".join(bench.markdown_kernels({"kernels": [], "reference": reference}))
    assert "Target: the kernel's LSTM forward+backward within 1.5× of PyTorch's" in text


def test_kernels_only_writes_the_kernel_sections(bench, kernel_rows, reference, monkeypatch, tmp_path, capsys):
    """`run.py --kernels-only`: no build; the kernel sections' markdown printed and written."""
    monkeypatch.setattr(bench, "kernels", lambda repeats: kernel_rows)
    monkeypatch.setattr(bench, "reference", lambda repeats: reference)
    monkeypatch.setattr(bench, "build_timings", None)  # must not be called
    monkeypatch.setattr(bench, "pure_compute", None)
    monkeypatch.setattr("sys.argv", ["run.py", "--kernels-only", "--repeats", "1", "--out", str(tmp_path)])
    bench.main()
    printed = capsys.readouterr().out
    written = (tmp_path / "bench" / "kernels.md").read_text()
    assert "| kernel GRU forward (float64) |" in written and written in printed
    assert json.loads((tmp_path / "bench" / "kernels.json").read_text())["kernels"] == kernel_rows
    assert not (tmp_path / "bench" / "report.md").exists()
