"""The package's layout: the docstring lists every module, and modules keep their privates to themselves."""

from __future__ import annotations

import ast
import pkgutil
import re
from pathlib import Path

import seqmodels

PACKAGE = Path(seqmodels.__file__).parent
MODULES = sorted(m.name for m in pkgutil.iter_modules([str(PACKAGE)]))


def test_package_docstring_lists_every_module():
    listed = set(re.findall(r"``seqmodels\.(\w+)``", seqmodels.__doc__))
    assert listed == set(MODULES), (f"missing from seqmodels/__init__.py: {sorted(set(MODULES) - listed)}; "
                                    f"listed but absent: {sorted(listed - set(MODULES))}")


def _imports(path: Path):
    """``(module, name)`` for every ``from .module import name`` / ``from seqmodels.module import name``."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 1 or module.startswith("seqmodels"):
                yield module.removeprefix("seqmodels").lstrip("."), [a.name for a in node.names]


def test_no_module_imports_another_modules_private_names():
    offences = [f"{path.name} imports {name} from {module or 'seqmodels'}"
                for path in sorted(PACKAGE.glob("*.py"))
                for module, names in _imports(path)
                for name in names
                if name.startswith("_") and module != "_checks"]
    assert not offences, offences


def test_check_catches_a_private_import(tmp_path):
    """The scan above would see an offence if there were one."""
    bad = tmp_path / "bad.py"
    bad.write_text("from .rnn import _forward\nfrom seqmodels._checks import as_rng\n")
    assert list(_imports(bad)) == [("rnn", ["_forward"]), ("_checks", ["as_rng"])]


def test_numerical_primitives_live_in_one_module():
    """sigmoid, softmax and their logs are defined once, in seqmodels.numeric, and used from there."""
    names = {"sigmoid", "log_sigmoid", "softmax", "log_softmax", "softmax_cross_entropy"}
    defined = {(path.name, node.name) for path in PACKAGE.glob("*.py")
               for node in ast.walk(ast.parse(path.read_text()))
               if isinstance(node, ast.FunctionDef) and node.name.lstrip("_") in names}
    assert {f for f, _ in defined} == {"numeric.py"}, sorted(defined)
    inline = [path.name for path in PACKAGE.glob("*.py") if path.name != "numeric.py"
              and re.search(r"logaddexp|1\.0 / \(1\.0 \+ np\.exp", path.read_text())]
    assert not inline, f"inline sigmoid/log-sigmoid in {inline}"
