"""The package's declared dependencies (code/pyproject.toml) cover what its modules import."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "code" / "seqmodels"


def third_party_imports() -> dict[str, set[str]]:
    """Top-level names of the non-standard-library modules each file of seqmodels imports."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top not in sys.stdlib_module_names and top != "seqmodels":
                    found.setdefault(top, set()).add(path.name)
    return found


def declared() -> set[str]:
    project = tomllib.loads((ROOT / "code" / "pyproject.toml").read_text())["project"]
    specs = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        specs += extra
    return {re.split(r"[<>=!~\[; ]", spec, maxsplit=1)[0].lower().replace("_", "-") for spec in specs}


def test_every_third_party_import_is_a_declared_dependency():
    providers = metadata.packages_distributions()  # import name -> distributions providing it
    missing = {}
    for module, files in third_party_imports().items():
        dists = {d.lower().replace("_", "-") for d in providers.get(module, [module])}
        if not dists & declared():
            missing[module] = sorted(files)
    assert not missing, f"imported by seqmodels but not declared in code/pyproject.toml: {missing}"


def test_the_scan_sees_imports_inside_functions():
    # plotting imports IPython only inside a function; the scan must still see it.
    assert "IPython" in third_party_imports()
