"""The Makefile's installer helpers, ``code/seqbook/tools/pip_to_uv.py`` and ``pip_prune.py``.

uv ignores pip.conf and ``PIP_*`` variables, so a machine whose packages come from a configured
index or folder would see uv find nothing: ``pip_to_uv.py`` turns ``pip config list`` into uv's
options. Here it runs, as the Makefile runs it (by path), on configurations made for the test
(``PIP_CONFIG_FILE`` pointing at the null device hides the machine's own files). Where uv cannot be
had, pip installs the pins and ``pip_prune.py`` removes what they no longer name; here it runs in a
scratch environment holding a package no requirements file names.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "code" / "seqbook" / "tools"
HELPERS = ("pip_to_uv.py", "pip_prune.py")


def uv_args(env_vars: dict[str, str], config: str | None, tmp_path: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    if config is None:
        env["PIP_CONFIG_FILE"] = os.devnull
    else:
        (tmp_path / "pip.conf").write_text(config)
        env["PIP_CONFIG_FILE"] = str(tmp_path / "pip.conf")
    env.update(env_vars)
    out = subprocess.run([sys.executable, str(TOOLS / "pip_to_uv.py")], env=env, capture_output=True,
                         text=True, check=True, cwd=tmp_path).stdout
    return shlex.split(out)


@pytest.mark.parametrize("name", HELPERS)
def test_the_makefile_runs_each_helper_by_path_and_it_imports_the_standard_library_only(name):
    """They run with .venv's Python before the requirements (and the package) are installed."""
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(rf"\$\(BIN\)/python \$\(TOOLS\)/{re.escape(name)}", makefile), name
    assert "TOOLS      := code/seqbook/tools" in makefile
    tree = ast.parse((TOOLS / name).read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.level == 0}
    assert imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)


def test_no_configuration_gives_no_options(tmp_path):
    assert uv_args({}, None, tmp_path) == []


def test_variables_become_uv_options_with_pips_choice_among_indexes(tmp_path):
    got = uv_args({"PIP_INDEX_URL": "https://mirror.example/simple",
                   "PIP_EXTRA_INDEX_URL": "file:///a/simple file:///b/simple",
                   "PIP_FIND_LINKS": "/wheels dir"}, None, tmp_path)
    assert got[:2] == ["--index-url", "https://mirror.example/simple"]
    assert got.count("--extra-index-url") == 2 and "file:///b/simple" in got
    assert ["--find-links", "/wheels"] == got[got.index("--find-links"):got.index("--find-links") + 2]
    assert got[-2:] == ["--index-strategy", "unsafe-best-match"]


def test_a_file_and_a_variable_naming_the_same_folder_give_it_once(tmp_path):
    got = uv_args({"PIP_FIND_LINKS": "/opt/wheels"}, "[global]\nfind-links = /opt/wheels\n", tmp_path)
    assert got.count("/opt/wheels") == 1


def test_the_variables_index_wins_over_the_files_and_no_index_passes(tmp_path):
    got = uv_args({"PIP_INDEX_URL": "https://from-variable/simple", "PIP_NO_INDEX": "1"},
                  "[global]\nindex-url = https://from-file/simple\n", tmp_path)
    assert got.count("--index-url") == 1 and "https://from-variable/simple" in got
    assert "--no-index" in got


def test_a_constraint_file_passes_and_a_single_index_needs_no_strategy(tmp_path):
    got = uv_args({"PIP_CONSTRAINT": "/etc/c.txt", "PIP_INDEX_URL": "https://only/simple"}, None,
                  tmp_path)
    assert got == ["--index-url", "https://only/simple", "--constraint", "/etc/c.txt"]


@pytest.fixture(scope="module")
def scratch_env(tmp_path_factory) -> Path:
    """A venv without pip holding three installed distributions: ``pinned-one`` (listed),
    ``Left_Over`` (listed nowhere) and the book's ``seqmodels`` (always kept)."""
    home = tmp_path_factory.mktemp("prune-env")
    venv.create(home, with_pip=False)
    python = home / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    for name, version in (("pinned-one", "1.0"), ("Left_Over", "2.0"), ("seqmodels", "0.1.0")):
        info = site / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    return python


def test_prune_names_exactly_what_the_requirements_no_longer_list(scratch_env, tmp_path):
    (tmp_path / "requirements.txt").write_text("Pinned_One==1.0  # a comment\n-e ./code\n# left-over==2.0\n")
    out = subprocess.run([str(scratch_env), str(TOOLS / "pip_prune.py"), "requirements.txt", "--dry-run"],
                         cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "would remove what requirements.txt no longer lists: left-over"


def test_prune_with_everything_listed_says_nothing(scratch_env, tmp_path):
    (tmp_path / "requirements.txt").write_text("pinned-one==1.0\nleft.over==2.0\n")
    out = subprocess.run([str(scratch_env), str(TOOLS / "pip_prune.py"), "requirements.txt", "--dry-run"],
                         cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert out == ""
