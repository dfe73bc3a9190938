"""The cache-key scanner of conf.py on a package with subpackages: a chapter depends on the modules
it imports, the subpackages above them (their ``__init__.py`` runs) and what those import in turn,
relative imports included; nothing else."""

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

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
def conf(tmp_path, monkeypatch):
    monkeypatch.setenv("SEQMODELS_BUILDDIR", str(tmp_path / "build"))
    saved = dict(os.environ)
    spec = importlib.util.spec_from_file_location("conf_under_test", ROOT / "conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    os.environ.clear()
    os.environ.update(saved)  # conf.py may set OPENBLAS_CORETYPE at import
    package = tmp_path / "seqmodels"
    for name, text in FILES.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    (package / "data").mkdir()
    monkeypatch.setattr(module, "PACKAGE", package)
    module.chapter_code = lambda text: text  # the test's "chapter" is plain Python
    return module


def deps(conf, code):
    return sorted(p.relative_to(conf.PACKAGE).as_posix() for p in conf.chapter_dependencies(code))


def test_a_module_of_a_subpackage_brings_its_package_and_relative_imports(conf):
    assert deps(conf, "from seqmodels.models import lstm\n") == [
        "__init__.py", "common/__init__.py", "common/numeric.py", "models/__init__.py",
        "models/lstm.py", "models/rnn.py"]


def test_a_subpackage_init_that_imports_its_modules_brings_them(conf):
    assert deps(conf, "import seqmodels.experiments.agreement\n") == [
        "__init__.py", "common/__init__.py", "common/numeric.py", "experiments/__init__.py",
        "experiments/agreement.py", "experiments/delay.py", "models/__init__.py", "models/lstm.py",
        "models/rnn.py"]


def test_an_unrelated_module_is_not_a_dependency(conf):
    assert deps(conf, "from seqmodels.common import plotting\n") == [
        "__init__.py", "common/__init__.py", "common/plotting.py"]


@pytest.mark.parametrize("code", ["import seqmodels\n", "from seqmodels.models import *\n",
                                  "import importlib\nimportlib.import_module(name)\n"])
def test_what_the_scanner_cannot_pin_down_depends_on_everything(conf, code):
    assert len(deps(conf, code)) == len(FILES)
