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


def third_party_imports(files=None, own: str = "seqmodels") -> dict[str, set[str]]:
    """Top-level names of the non-standard-library modules each of ``files`` (default: every file
    of seqmodels) imports, with the files that import each."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")) if files is None else files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top not in sys.stdlib_module_names and top != own:
                    found.setdefault(top, set()).add(path.name)
    return found


def declared(*extras: str) -> set[str]:
    """The distributions code/pyproject.toml declares: its dependencies and ``extras`` (default:
    every extra)."""
    project = tomllib.loads((ROOT / "code" / "pyproject.toml").read_text())["project"]
    specs = list(project["dependencies"])
    for name, extra in project.get("optional-dependencies", {}).items():
        if not extras or name in extras:
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


def test_the_build_extra_covers_what_the_sphinx_extensions_import_and_read():
    """seqbook's modules (the book's Sphinx extensions; its tools aside) import, or read the files
    of (``metadata.distribution("...")``), only packages that the package's dependencies or its
    ``build`` extra declare."""
    modules = sorted((ROOT / "code" / "seqbook").glob("*.py"))
    needed = third_party_imports(modules, own="seqbook")
    for path in modules:
        for name in re.findall(r"metadata\.distribution\(\"([\w.-]+)\"\)", path.read_text()):
            needed.setdefault(name, set()).add(path.name)
    assert {"fontTools", "ziamath"} <= set(needed), "the scan is blind"
    providers = metadata.packages_distributions()
    missing = {module: sorted(files) for module, files in needed.items()
               if not {d.lower().replace("_", "-") for d in providers.get(module, [module])} & declared("build")}
    assert not missing, f"needed by seqbook but not in code/pyproject.toml's build extra: {missing}"
