"""The package's layout and conventions (``seqmodels/__init__.py``), checked on its source: the map
lists every module, the subpackages import in one direction, modules keep their privates to
themselves, the readable models carry no speed tricks, cells train where the Conventions say, and
one word names one idea."""

from __future__ import annotations

import ast
import pkgutil
import re
from pathlib import Path

import pytest

import seqmodels

PACKAGE = Path(seqmodels.__file__).parent
BOOK = PACKAGE.parents[1] / "book"


def _dotted(path: Path) -> str:
    """``models.lstm`` for ``seqmodels/models/lstm.py``, ``models`` for ``seqmodels/models/__init__.py``."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


#: Every module (not subpackage) of seqmodels, by dotted name below ``seqmodels``.
MODULES = {_dotted(p): p for p in sorted(PACKAGE.rglob("*.py")) if p.name != "__init__.py"}
#: The layers, top first: a subpackage imports from its own and from those of a smaller rank only.
RANK = {"common": 0, "display": 1, "datasets": 1, "kernels": 1, "models": 2, "training": 3, "experiments": 4}


def _imports(path: Path):
    """``(module, names)`` for every ``from seqmodels.x.y import a, b`` and relative import in
    ``path``; ``module`` is dotted below ``seqmodels`` (``"models.lstm"``; ``"models"`` for
    ``from seqmodels.models import lstm``), relative imports resolved against ``path``."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                here = _dotted(path).split(".")
                base = here[:len(here) - node.level] if path.name != "__init__.py" else here[:len(here) - node.level + 1]
                yield ".".join(base + ([module] if module else [])), [a.name for a in node.names]
            elif module == "seqmodels" or module.startswith("seqmodels."):
                yield module.removeprefix("seqmodels").lstrip("."), [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("seqmodels."):
                    yield alias.name.removeprefix("seqmodels."), []


def _targets(path: Path) -> set[str]:
    """The modules of seqmodels that ``path`` imports, by dotted name (``from seqmodels.models import
    lstm`` counts as ``models.lstm``)."""
    found = set()
    for module, names in _imports(path):
        found |= {f"{module}.{n}" if module else n for n in names if (f"{module}.{n}" if module else n) in MODULES}
        if module in MODULES:
            found.add(module)
    return found


def test_package_docstring_lists_every_module():
    listed = {name for name in re.findall(r"``seqmodels\.([\w.]+)``", seqmodels.__doc__) if "." in name}
    assert listed == set(MODULES), (f"missing from seqmodels/__init__.py: {sorted(set(MODULES) - listed)}; "
                                    f"listed but absent: {sorted(listed - set(MODULES))}")


def test_every_subpackage_is_a_layer_and_every_chapter_package_a_page():
    subpackages = {p.parent.relative_to(PACKAGE).parts[0] for p in PACKAGE.glob("*/__init__.py")}
    assert subpackages == set(RANK), sorted(subpackages ^ set(RANK))
    chapters = {p.parent.name for p in (PACKAGE / "experiments").glob("*/__init__.py")}
    assert chapters and all((BOOK / f"{c}.md").is_file() for c in chapters), sorted(chapters)
    assert [p.name for p in PACKAGE.glob("*.py")] == ["__init__.py"], "modules belong in a layer's subpackage"


def _layer_offences(modules: dict[str, Path]) -> list[str]:
    offences = []
    for name, path in modules.items():
        layer = name.split(".")[0]
        for target in sorted(_targets(path)):
            other = target.split(".")[0]
            if other != layer and RANK[other] >= RANK[layer]:
                offences.append(f"{name} ({layer}) imports {target} ({other})")
            if layer == other == "experiments" and target.split(".")[1] != name.split(".")[1]:
                offences.append(f"{name} imports another chapter's {target}")
    return offences


def test_layers_import_in_one_direction():
    """common imports no other layer; display, datasets and kernels only common; models no
    training or experiments; training no experiments; a chapter's experiments no other chapter's."""
    assert not _layer_offences(MODULES), _layer_offences(MODULES)
    assert any(_targets(p) for p in MODULES.values()), "the import scan is blind"


def test_layer_check_catches_an_upward_import(tmp_path):
    """The scan above would see an offence if there were one (absolute, relative, cross-chapter)."""
    (tmp_path / "common").mkdir()
    (tmp_path / "experiments" / "lstm").mkdir(parents=True)
    up = tmp_path / "common" / "numeric.py"
    up.write_text("from seqmodels.models.lstm import lstm_step\nfrom seqmodels.training import pack\n")
    sideways = tmp_path / "experiments" / "lstm" / "delay.py"
    sideways.write_text("from ...experiments.production.timing import TIMING_PAGES\n")
    global PACKAGE
    saved, PACKAGE = PACKAGE, tmp_path
    try:
        offences = _layer_offences({"common.numeric": up, "experiments.lstm.delay": sideways})
    finally:
        PACKAGE = saved
    assert offences == ["common.numeric (common) imports models.lstm (models)",
                        "common.numeric (common) imports training.pack (training)",
                        "experiments.lstm.delay imports another chapter's experiments.production.timing"], offences


def test_no_module_imports_another_modules_private_names():
    offences = [f"{name} imports {n} from {module or 'seqmodels'}"
                for name, path in MODULES.items()
                for module, names in _imports(path)
                for n in names
                if n.startswith("_") and module != "common._checks" and n != "_checks"]
    assert not offences, offences


def test_check_catches_a_private_import(tmp_path):
    """The scan above would see an offence if there were one."""
    bad = tmp_path / "bad.py"
    bad.write_text("from seqmodels.models.rnn import _forward\nfrom seqmodels.common._checks import as_rng\n")
    assert list(_imports(bad)) == [("models.rnn", ["_forward"]), ("common._checks", ["as_rng"])]


def test_chapters_import_no_private_names():
    """A chapter's code uses the package's public API only."""
    offences = [f"{page.name}: {line.strip()}" for page in sorted(BOOK.rglob("*.md"))
                for line in page.read_text().splitlines()
                if re.match(r"\s*from seqmodels[\w.]* import .*\b_\w", line)]
    assert not offences, offences


#: What only the kernel and the inner loops use: the tanh-half gate forms, the in-place softmax,
#: the scratch-array workspace. (``sigmoid_unchecked`` is the sigmoid's own formula without the
#: scan of its input, which the readable cells' loops use on pre-activations of checked inputs.)
SPEED_FORMS = {"sigmoid_from_tanh", "sigmoid_of_half", "softmax_", "workspace"}


@pytest.mark.parametrize("name", ["models.rnn", "models.lstm", "models.gru", "models.attention"])
def test_readable_models_carry_no_speed_tricks(name):
    """The readable references compute as their docstrings' equations: none of the kernel's forms
    of the nonlinearities, no byte copies of their inputs, no pre-scaled weights."""
    source = MODULES[name].read_text()
    used = {n for module, names in _imports(MODULES[name]) if module == "common.numeric" for n in names}
    assert not used & SPEED_FORMS, f"{name} imports {sorted(used & SPEED_FORMS)} from common.numeric"
    assert "tobytes" not in source and "_half" not in source, name


def test_cells_train_where_the_conventions_say():
    """Packs and biLMs run their cells in kernels.recurrent; only charlm and training.train train
    through the readable cells' backward passes."""
    readable = {"rnn_backward", "lstm_backward", "gru_backward"}
    trainers = {name for name, path in MODULES.items()
                if any(module == "common.optim" for module, _ in _imports(path))}
    on_readable = {name for name in trainers
                   if any(set(names) & readable for _, names in _imports(MODULES[name]))}
    assert on_readable == {"models.charlm", "training.train"}, sorted(on_readable)
    on_kernel = {name for name, path in MODULES.items() if "kernels.recurrent" in _targets(path)}
    assert {"training.pack", "models.bilm"} <= on_kernel, sorted(on_kernel)
    assert "models.charlm" in trainers and "training.pack" in trainers, "the trainer scan is blind"


def test_stack_means_layers_and_pack_means_models_side_by_side():
    """One word per idea: no identifier or sentence of the package says "stacked" or "unstack"
    (a pack of models is not a stack), and every identifier with "stack" in it is about layers."""
    layers_in_depth = {"attention_stack", "block_stack_states", "_check_stack"}
    for name, path in MODULES.items():
        text = path.read_text()
        assert not re.search(r"\b(stacked|unstack\w*)\b", text, re.IGNORECASE), name
        identifiers = {n.name for n in ast.walk(ast.parse(text)) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        identifiers |= {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
        assert {i for i in identifiers if "stack" in i.lower()} <= layers_in_depth, name


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
    defined = {(module, node.name) for module, path in MODULES.items()
               for node in ast.walk(ast.parse(path.read_text()))
               if isinstance(node, ast.FunctionDef) and node.name.lstrip("_") in names}
    assert {m for m, _ in defined} == {"common.numeric"}, sorted(defined)
    own = {module: hits for module, path in MODULES.items() if module != "common.numeric"
           for hits in [_own_primitives(ast.parse(path.read_text()))] if hits}
    assert not own, f"modules computing a sigmoid or softmax of their own: {own}"
    needs = {"kernels.recurrent": "sigmoid_of_half", "models.gru": "sigmoid_unchecked", "models.lstm": "sigmoid_unchecked",
             "training.pack": "packed_cross_entropy_", "models.bilm": "packed_cross_entropy_",
             "models.charlm": "softmax_cross_entropy", "models.pretrained": "softmax_"}
    for module, name in needs.items():
        assert any(m == "common.numeric" and name in ns for m, ns in _imports(MODULES[module])), \
            f"{module} does not import {name} from seqmodels.common.numeric"


def test_the_primitive_scan_sees_each_shape():
    """The scan above would see each way of writing a sigmoid or softmax inline."""
    cases = ["s = 1.0 / (1.0 + np.exp(-z))", "s = 0.5 + 0.5 * np.tanh(z / 2)", "y = np.logaddexp(0, z)",
             "lp = z - np.log(np.exp(z).sum(axis=-1))", "p = np.exp(z) / np.exp(z).sum()",
             "def f(a):\n    np.exp(a, out=a)\n    np.add(a, 1.0, out=a)\n    np.divide(1.0, a, out=a)"]
    for code in cases:
        assert _own_primitives(ast.parse(code)), code
    assert not _own_primitives(ast.parse("y = np.exp(np.log(x).mean())\nh = np.tanh(a)"))


def test_module_names_are_unique_across_the_layers():
    """tests/test_bad_input.py keys its cases by a module's own name (``"lstm.lstm_step"``), so two
    modules of one name in two layers would share their cases; a new module takes a name of its own."""
    names = {}
    for info in pkgutil.walk_packages(seqmodels.__path__, "seqmodels."):
        if not info.ispkg:
            names.setdefault(info.name.rpartition(".")[2], []).append(info.name)
    assert len(names) > 40, f"only {sorted(names)}: the walk is blind"
    twice = {name: where for name, where in names.items() if len(where) > 1}
    assert not twice, f"module names used in more than one layer (rename one): {twice}"
