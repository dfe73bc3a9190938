"""The Makefile's installer reads pip's configuration and hands it to uv (``PIP_TO_UV``).

uv ignores pip.conf and ``PIP_*`` variables, so a machine whose packages come from a configured
index or folder would see uv find nothing. The Makefile's snippet turns ``pip config list`` into
uv's options; here it runs on configurations made for the test (``PIP_CONFIG_FILE`` pointing at
the null device hides the machine's own files).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def snippet(name: str) -> str:
    found = re.search(rf"^define {name}\n(.*?)^endef$", (ROOT / "Makefile").read_text(), re.S | re.M)
    assert found, f"the Makefile defines no {name}"
    return found.group(1)


def uv_args(env_vars: dict[str, str], config: str | None, tmp_path: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    if config is None:
        env["PIP_CONFIG_FILE"] = os.devnull
    else:
        (tmp_path / "pip.conf").write_text(config)
        env["PIP_CONFIG_FILE"] = str(tmp_path / "pip.conf")
    env.update(env_vars)
    out = subprocess.run([sys.executable, "-c", snippet("PIP_TO_UV")], env=env, capture_output=True,
                         text=True, check=True).stdout
    return shlex.split(out)


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
