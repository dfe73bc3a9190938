"""`make bench` runs for minutes before it reaches its kernel section, so a call that no longer
matches the package (as `init_rnn(d, d, 0.9, rng)` once did) would surface only then. These tests
run that section once, with one repeat, and the bookkeeping around it: which modules the build
timings edit, how the README's generated blocks are replaced, and that the README holds no
measurement outside them. They check that the benchmark can run and reports what it says, never
how fast anything is, and build nothing."""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    """The benchmark, ``code/seqbook/tools/bench.py`` (`make bench` runs it with ``-m``)."""
    from seqbook.tools import bench as module

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
    """`python -m seqbook.tools.bench --kernels-only`: no build; the kernel sections' markdown printed and written."""
    monkeypatch.setattr(bench, "kernels", lambda repeats: kernel_rows)
    monkeypatch.setattr(bench, "reference", lambda repeats: reference)
    monkeypatch.setattr(bench, "build_timings", None)  # must not be called
    monkeypatch.setattr("sys.argv", ["bench", "--kernels-only", "--repeats", "1", "--out", str(tmp_path)])
    bench.main()
    printed = capsys.readouterr().out
    written = (tmp_path / "bench" / "kernels.md").read_text()
    assert "| kernel GRU forward (float64) |" in written and written in printed
    assert json.loads((tmp_path / "bench" / "kernels.json").read_text())["kernels"] == kernel_rows
    assert not (tmp_path / "bench" / "report.md").exists()


def test_kernels_only_never_writes_the_readme(bench, monkeypatch, tmp_path):
    monkeypatch.setattr("sys.argv", ["bench", "--kernels-only", "--write-readme", str(tmp_path / "README.md")])
    with pytest.raises(SystemExit):
        bench.main()


# --- the README's generated blocks ----------------------------------------------------------------
TEXT = """intro 1 s
<!-- bench:build:start -->
old table
<!-- bench:build:end -->
between
<!-- bench:pages:start --><!-- bench:pages:end -->
end
"""


def test_replace_block_replaces_exactly_what_lies_between_its_markers(bench):
    new = bench.replace_block(TEXT, "build", "| new | table |\n")
    assert new == TEXT.replace("old table", "| new | table |")
    both = bench.replace_block(new, "pages", "\n\nweights\n\n")
    assert both == new.replace("<!-- bench:pages:start --><!-- bench:pages:end -->",
                               "<!-- bench:pages:start -->\nweights\n<!-- bench:pages:end -->")


def test_replace_block_is_idempotent(bench):
    once = bench.replace_block(TEXT, "build", "body")
    assert bench.replace_block(once, "build", "body") == once
    assert bench.replace_block(bench.replace_block(once, "build", "other"), "build", "body") == once


@pytest.mark.parametrize("broken", [
    TEXT.replace("<!-- bench:build:start -->\n", ""),                      # start missing
    TEXT.replace("<!-- bench:build:end -->\n", ""),                        # end missing
    TEXT + "<!-- bench:build:start -->\n",                                  # start twice
    TEXT + "<!-- bench:build:end -->\n",                                    # end twice
    TEXT.replace("<!-- bench:build:start -->", "@@").replace("<!-- bench:build:end -->", "<!-- bench:build:start -->")
        .replace("@@", "<!-- bench:build:end -->"),                          # end before start
])
def test_replace_block_fails_loudly_on_a_broken_marker(bench, broken):
    with pytest.raises(ValueError, match="bench:build"):
        bench.replace_block(broken, "build", "body")


def test_write_readme_writes_nothing_if_any_marker_is_wrong(bench, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(TEXT)
    with pytest.raises(ValueError, match="bench:kernels"):
        bench.write_readme(readme, {"build": "new", "kernels": "k"})
    assert readme.read_text() == TEXT
    bench.write_readme(readme, {"build": "new", "pages": "p"})
    assert "new" in readme.read_text() and "old table" not in readme.read_text()


README = (ROOT / "README.md").read_text()
#: A measurement: a number with a unit of time or size, a ratio (×) or a percentage.
MEASUREMENT = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?\s?(?:s|ms|µs|min|seconds|minutes|bytes|kB|KB|MB|GB|%|×)(?!\w)")
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")


def test_readme_has_every_generated_block_once_and_in_order(bench):
    at = []
    for name in bench.README_BLOCKS:
        start, end = bench.markers(name)
        assert README.count(start) == 1 and README.count(end) == 1, name
        at += [README.index(start), README.index(end)]
    assert at == sorted(at)


def test_readme_blocks_were_written_by_the_benchmark(bench):
    """Each block starts with the line `make bench` writes (date, commit, machine), so a block
    filled by hand, or left empty, shows."""
    for name in bench.README_BLOCKS:
        start, end = bench.markers(name)
        body = README[README.index(start) + len(start):README.index(end)].strip()
        assert body.startswith("*Generated by `make bench` on "), name
        assert re.match(r"\*Generated by `make bench` on 20\d\d-\d\d-\d\d at commit `[0-9a-f]{7,}` \(", body), name


def test_readme_has_no_measurement_outside_the_generated_blocks(bench):
    """Times, sizes and ratios in the README come from `make bench`'s blocks (or the status page),
    never from a copy that goes stale; nor does any measurement date."""
    by_hand = bench.outside_blocks(README)
    assert not MEASUREMENT.findall(by_hand), [m.group(0) for m in MEASUREMENT.finditer(by_hand)]
    assert not DATE.findall(by_hand)


def test_measurement_pattern_catches_what_it_must(bench):
    caught = ["78 s", "1.8 s", "0.81 ×", "375 kB", "1.13 MB", "12%", "428 s", "30 seconds"]
    passed = ["GloVe 6B 50-d", "Python 3.11+", "1280 and 390 px", "6 states", "78 characters", "torch==2.13.0 numpy", "REPEATS=10"]
    assert all(MEASUREMENT.search(t) for t in caught)
    assert not any(MEASUREMENT.search(t) for t in passed)
    assert bench.outside_blocks(TEXT) == "intro 1 s\n\nbetween\n\nend\n"


# --- which modules the build timings edit ---------------------------------------------------------
def test_edited_modules_exist_and_reach_the_chapters_they_should(bench, tmp_path):
    """Chosen by conf.py's own scan: one module that only the edited chapter executes, and one that
    several chapters execute but not all of them."""
    deps = bench.chapter_modules()
    only, shared = bench.modules_to_edit(deps, "rnn")
    users = bench.importers(deps)
    package = ROOT / "code" / "seqmodels"
    assert (package / only).is_file() and (package / shared).is_file()
    assert users[only] == ["rnn"]
    chapters = [page for page, modules in deps.items() if modules - {"__init__.py"}]
    assert 1 < len(users[shared]) < len(chapters)
    assert all(len(users[m]) <= len(users[shared]) for m in users if len(users[m]) < len(chapters))


def test_modules_to_edit_on_a_small_scan(bench):
    deps = {"a": {"__init__.py", "x.py", "common.py", "pair.py"}, "b": {"__init__.py", "common.py", "pair.py"},
            "c": {"__init__.py", "common.py"}, "status": {"__init__.py"}}
    assert bench.modules_to_edit(deps, "a") == ("x.py", "pair.py")
    with pytest.raises(RuntimeError, match="c.md alone"):
        bench.modules_to_edit(deps, "c")


def test_every_block_renders_from_a_report(bench, kernel_rows, reference, tmp_path):
    """The README's blocks from a made-up report of the shape main() builds (no build is run)."""
    cases = {"cold build, empty cache": {"runs_s": [80.0], "executed": [8], "expected": 8, "note": "every page"},
             "warm rebuild, nothing changed": {"runs_s": [3.0, 3.2, 2.9], "executed": [0, 0, 0], "expected": 0,
                                               "note": ""},
             "prose-only edit of rnn.md": {"runs_s": [5.0, 5.1, 4.9], "executed": [0, 0, 0], "expected": 0, "note": ""},
             "edit in code/seqmodels/x.py": {"runs_s": [40.0], "executed": [4], "expected": 5, "note": "a, b"},
             bench.FLOOR: {"runs_s": [11.0], "executed": [0], "expected": 0, "note": ""}}
    for c in cases.values():
        c["median_s"] = sorted(c["runs_s"])[len(c["runs_s"]) // 2]
    build = {"cases": cases, "execution_s": {"rnn": 10.0, "lstm": 40.0}, "chapter": "rnn", "modules": ["x.py"],
             "cold": "cold build, empty cache", "warm": "warm rebuild, nothing changed",
             "prose": "prose-only edit of rnn.md", "floor": bench.FLOOR}
    report = {"machine": "a machine", "date": "2026-12-02", "git": {"commit": "abc1234", "dirty": True,
                                                                    "changed": ["README.md"]},
              "load": {"start": 1.0, "end": 2.0}, "kernel_repeats": 1, "build": build,
              "headline": bench.headline(build), "kernels": kernel_rows, "reference": reference,
              "pages": [{"page": "a.html", "html_bytes": 1000, "total_bytes": 2_000_000, "gzip_bytes": 500,
                         "files": 3, "largest_figure_bytes": 10}], "pages_note": "",
              "sections_s": {"make html": 5.0, "build": 300.0}, "total_s": 700.0}
    assert report["headline"]["cold_over_floor_plus_execution"] == 80 / (11 + 50)
    assert not report["headline"]["executions_as_expected"]
    blocks = bench.readme_blocks(report)
    assert set(blocks) == set(bench.README_BLOCKS)
    for body in blocks.values():
        assert body.startswith("*Generated by `make bench` on 2026-12-02 at commit `abc1234` (with uncommitted "
                               "changes in 1 file (`README.md`))")
    assert "| **total** | **700** |" in blocks["summary"] and "**not met**" in blocks["summary"]
    assert "| Σ execution | 50.0 |" in blocks["build"] and "| 4 | 5 (a, b) |" in blocks["build"]
    assert "heaviest: a.html, 2.00 MB" in blocks["pages"] and "**not met**" in blocks["pages"]
    assert "| LSTM forward+backward | batch 2, T 3, d 4 |" in blocks["kernels"]
    readme = tmp_path / "README.md"
    readme.write_text("".join(f"{s}\nold\n{e}\n" for s, e in map(bench.markers, bench.README_BLOCKS)))
    bench.write_readme(readme, blocks)
    text = readme.read_text()
    assert "\nold\n" not in text and all(body.strip() in text for body in blocks.values())
    assert bench.outside_blocks(text).strip() == ""
    report["pages"], report["pages_note"] = [], "no browser"
    assert "Page weight not measured in this run: no browser." in bench.markdown_pages(report)
