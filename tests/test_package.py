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
    bad.write_text("from .rnn import _forward\nfrom seqmodels.common._checks import as_rng\n")
    assert list(_imports(bad)) == [("rnn", ["_forward"]), ("_checks", ["as_rng"])]


def _np_call(node, name):
    """Is ``node`` a call of ``np.<name>`` (or ``numpy.<name>``)?"""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name
            and isinstance(node.func.value, ast.Name) and node.func.value.id in {"np", "numpy"})


def _const(node, value):
    return isinstance(node, ast.Constant) and node.value == value


def _own_primitives(tree) -> list[str]:
    """What in ``tree`` computes a sigmoid, a softmax or a log-softmax itself, by the shapes those
    computations take: ``1 / (1 + exp(.))``, ``0.5 + 0.5 * t`` (sigmoid from tanh), ``logaddexp``,
    ``log(... exp(.) ...)`` (log-sum-exp), ``exp(.)`` divided by a sum, and the in-place forms
    (a function that calls ``np.exp`` and also ``np.divide(1.0 or 2.0, .)``)."""
    found = []
    for fn in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Module))]:
        nodes = list(ast.walk(fn))
        exps = [n for n in nodes if _np_call(n, "exp")]
        if exps and any(_np_call(n, "divide") and n.args and (_const(n.args[0], 1.0) or _const(n.args[0], 2.0))
                        for n in nodes):
            found.append(f"{getattr(fn, 'name', '<module>')}: exp then divide (in-place sigmoid)")
    for n in ast.walk(tree):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div) and isinstance(n.right, ast.BinOp) \
                and isinstance(n.right.op, ast.Add) and any(_np_call(m, "exp") for m in ast.walk(n.right)):
            found.append(f"line {n.lineno}: 1 / (1 + exp)")
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add) and any(_const(side, 0.5) for side in (n.left, n.right)) \
                and any(isinstance(side, ast.BinOp) and isinstance(side.op, ast.Mult)
                        and (_const(side.left, 0.5) or _const(side.right, 0.5)) for side in (n.left, n.right)):
            found.append(f"line {n.lineno}: 0.5 + 0.5 * t (sigmoid from tanh)")
        if _np_call(n, "logaddexp"):
            found.append(f"line {n.lineno}: logaddexp")
        if _np_call(n, "log") and any(_np_call(m, "exp") for m in ast.walk(n)):
            found.append(f"line {n.lineno}: log of a sum of exp (log-softmax)")
        if isinstance(n, (ast.BinOp, ast.AugAssign)) and isinstance(n.op, ast.Div):
            right = n.right if isinstance(n, ast.BinOp) else n.value
            left = n.left if isinstance(n, ast.BinOp) else n.target
            if isinstance(right, ast.Call) and isinstance(right.func, ast.Attribute) and right.func.attr == "sum" \
                    and (_np_call(left, "exp") or any(_np_call(m, "exp") for m in ast.walk(right))):
                found.append(f"line {n.lineno}: exp divided by its sum (softmax)")
    return found


def test_numerical_primitives_live_in_one_module():
    """sigmoid, softmax, their logs and the cross-entropy are defined once, in seqmodels.common.numeric;
    no other module computes one itself, and the models that need them import them from there."""
    names = {"sigmoid", "log_sigmoid", "softmax", "log_softmax", "softmax_cross_entropy"}
    defined = {(path.name, node.name) for path in PACKAGE.glob("*.py")
               for node in ast.walk(ast.parse(path.read_text()))
               if isinstance(node, ast.FunctionDef) and node.name.lstrip("_") in names}
    assert {f for f, _ in defined} == {"numeric.py"}, sorted(defined)
    own = {path.name: hits for path in sorted(PACKAGE.glob("*.py")) if path.name != "numeric.py"
           for hits in [_own_primitives(ast.parse(path.read_text()))] if hits}
    assert not own, f"modules computing a sigmoid or softmax of their own: {own}"
    needs = {"recurrent": "sigmoid_of_half", "gru": "sigmoid_of_half", "lstm": "sigmoid_from_tanh",
             "stacked": "packed_cross_entropy_", "bilm": "packed_cross_entropy_", "charlm": "softmax_cross_entropy", "pretrained": "softmax_"}
    for module, name in needs.items():
        assert any(m == "numeric" and name in ns for m, ns in _imports(PACKAGE / f"{module}.py")), \
            f"{module} does not import {name} from seqmodels.common.numeric"


def test_the_primitive_scan_sees_each_shape():
    """The scan above would see each way of writing a sigmoid or softmax inline."""
    cases = ["s = 1.0 / (1.0 + np.exp(-z))", "s = 0.5 + 0.5 * np.tanh(z / 2)", "y = np.logaddexp(0, z)",
             "lp = z - np.log(np.exp(z).sum(axis=-1))", "p = np.exp(z) / np.exp(z).sum()",
             "def f(a):\n    np.exp(a, out=a)\n    np.add(a, 1.0, out=a)\n    np.divide(1.0, a, out=a)"]
    for code in cases:
        assert _own_primitives(ast.parse(code)), code
    assert not _own_primitives(ast.parse("y = np.exp(np.log(x).mean())\nh = np.tanh(a)"))
