"""Importing ``conf.py`` or any module of seqbook (the book's Sphinx extensions) changes no file
and no environment variable. ``conf.py`` used to prepare the execution cache when imported
(deleting the caches of other environments beside it, creating a database) and to set
``OPENBLAS_CORETYPE``; a test that imported it for one pure helper did both. The build does those
things in its ``config-inited`` and ``builder-inited`` handlers (``seqbook.execution``)."""

from __future__ import annotations

import json
import subprocess
import sys

from test_build import ROOT, build_env

#: Run in a fresh interpreter: import conf.py and every module of seqbook, and report what changed
#: in the environment and in the listed folders (every file's size and mtime; a sibling execution
#: cache planted under the build folder is one of them).
PROBE = """
import importlib, importlib.util, json, os, pkgutil, sys
from pathlib import Path

folders = [Path(p) for p in sys.argv[2:]]

def listing():
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for folder in folders
            for p in [folder, *folder.rglob("*")] if "__pycache__" not in p.parts}

env, files = dict(os.environ), listing()
spec = importlib.util.spec_from_file_location("conf_under_test", Path(sys.argv[1]) / "conf.py")
spec.loader.exec_module(importlib.util.module_from_spec(spec))
import seqbook
names = ["seqbook"] + [m.name for m in pkgutil.walk_packages(seqbook.__path__, "seqbook.")]
for name in names:
    importlib.import_module(name)
after = listing()
print(json.dumps({
    "modules": names,
    "environment": sorted(k for k in set(env) | set(os.environ) if env.get(k) != os.environ.get(k)),
    "files": sorted(k for k in set(files) | set(after) if files.get(k) != after.get(k)),
}))
"""


def test_importing_conf_or_any_seqbook_module_changes_nothing(tmp_path):
    build = tmp_path / "_build"
    (build / ".jupyter_cache" / "0123456789abcdef").mkdir(parents=True)  # another environment's cache
    (build / ".jupyter_cache" / "0123456789abcdef" / "global.db").write_bytes(b"kept")
    env = build_env(SEQMODELS_BUILDDIR=str(build), PYTHONDONTWRITEBYTECODE="1")
    env.pop("OPENBLAS_CORETYPE", None)  # unset: a build would choose a kernel and set it
    result = subprocess.run([sys.executable, "-c", PROBE, str(ROOT), str(tmp_path), str(ROOT / "code")],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert {"seqbook.execution", "seqbook.cachekeys", "seqbook.downloads"} <= set(found["modules"])
    assert found["environment"] == [], f"importing changed environment variables: {found['environment']}"
    assert found["files"] == [], f"importing changed files: {found['files']}"


