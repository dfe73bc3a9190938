"""`make bench` runs for half an hour before it reaches its kernel section, so a call that no
longer matches the package (as `init_rnn(d, d, 0.9, rng)` once did) would surface only then. These
tests run that section and the page-weight bookkeeping once, with one repeat; they check that the
benchmark can run and reports what it says, never how fast anything is."""
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "tests" / "bench" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_kernel_section_runs_on_the_current_package(bench):
    rows = bench.kernels(1)
    kernels = {row["kernel"] for row in rows}
    assert {"RNN forward", "RNN forward+backward", "LSTM forward", "LSTM forward+backward",
            "causal self-attention"} <= kernels
    assert all(row["seconds"] > 0 and row["tokens_per_s"] > 0 for row in rows)


def test_reference_section_runs_or_says_why_not(bench):
    result = bench.reference(1, batch=2, T=3, d=4)
    if not result["available"]:
        assert result["why"] == "torch is not installed in .venv"
    else:  # torch installed by hand: the numpy and PyTorch models must agree
        assert all(row["max_output_diff"] < 1e-9 and row["max_grad_diff"] < 1e-9 for row in result["rows"])
