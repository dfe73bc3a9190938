"""The cache-key scanner (seqbook.cachekeys) on a package with subpackages: a chapter depends on the modules
it imports, the subpackages above them (their ``__init__.py`` runs) and what those import in turn,
relative imports included; nothing else."""

from pathlib import Path

import pytest

from seqbook import cachekeys

FILES = {
    "__init__.py": '"""The package map."""\n',
    "models/__init__.py": "",
    "models/lstm.py": "from ..common import numeric\nfrom . import rnn\n",
    "models/rnn.py": "from ..common.numeric import sigmoid\n",
    "common/__init__.py": "",
    "common/numeric.py": "import numpy as np\n",
    "common/plotting.py": "",
    "experiments/__init__.py": "from .delay import run  # noqa\n",
    "experiments/delay.py": "from seqmodels.models.lstm import lstm_forward\n",
    "experiments/agreement.py": "from ..models import rnn\n",
}


@pytest.fixture
def package(tmp_path, monkeypatch):
    """The scanner, on a package ``seqmodels`` of ``FILES`` (and an empty ``data/``)."""
    package = tmp_path / "seqmodels"
    for name, text in FILES.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    (package / "data").mkdir()
    monkeypatch.setattr(cachekeys, "chapter_code", lambda text: text)  # the test's "chapter" is plain Python
    return package


def deps(package: Path, code: str) -> list[str]:
    return sorted(p.relative_to(package).as_posix() for p in cachekeys.chapter_dependencies(code, package))


def test_a_module_of_a_subpackage_brings_its_package_and_relative_imports(package):
    assert deps(package, "from seqmodels.models import lstm\n") == [
        "__init__.py", "common/__init__.py", "common/numeric.py", "models/__init__.py",
        "models/lstm.py", "models/rnn.py"]


def test_a_subpackage_init_that_imports_its_modules_brings_them(package):
    assert deps(package, "import seqmodels.experiments.agreement\n") == [
        "__init__.py", "common/__init__.py", "common/numeric.py", "experiments/__init__.py",
        "experiments/agreement.py", "experiments/delay.py", "models/__init__.py", "models/lstm.py",
        "models/rnn.py"]


def test_an_unrelated_module_is_not_a_dependency(package):
    assert deps(package, "from seqmodels.common import plotting\n") == [
        "__init__.py", "common/__init__.py", "common/plotting.py"]


@pytest.mark.parametrize("code", ["import seqmodels\n", "from seqmodels.models import *\n",
                                  "import importlib\nimportlib.import_module(name)\n"])
def test_what_the_scanner_cannot_pin_down_depends_on_everything(package, code):
    assert len(deps(package, code)) == len(FILES)
