"""What a chapter reads, as the key of its execution cache.

jupyter-cache keys a notebook on its cells' source and its ``kernelspec`` metadata, nothing else,
so an edit inside the book's package would reuse stale outputs. Each chapter's code cells, as
myst-nb reads them, are parsed with ``ast`` for the package's modules they import; those modules
(and what they import in turn, also found with ``ast``, through subpackages and relative imports),
and the package's data files whose name the chapter or one of those modules writes, are hashed,
and the hash is written into the chapter's kernelspec metadata as it is read
(``stamp_code_dependencies``, on ``source-read``). Sphinx is also told the chapter depends on those
files. An edit in one module, or in one data file, then re-reads and re-executes exactly the
chapters that reach it, directly or not. What of a module counts is its code without docstrings
and comments (``code_bytes``): editing either executes nothing again. Whatever the parser cannot
pin down (a bare ``import seqmodels``, ``from seqmodels import *``, a computed
``import_module(...)``, a cell that does not parse) counts as depending on every module and data
file: a needless re-execution, never a stale page.

Config value ``seqbook_package``: the package's folder, relative to the folder of ``conf.py``
(``code/seqmodels``); its imports are found by the folder's name. Its data files are those under
its ``data/`` folder.

Importing this module reads and writes nothing; the functions take the package's folder.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

_EVERYTHING = None  # marker: the code can reach any module of the package


def package_modules(package: Path) -> set[str]:
    """Every module and subpackage of seqmodels, by dotted name below it: ``models`` and
    ``models.lstm`` for ``seqmodels/models/__init__.py`` and ``seqmodels/models/lstm.py``;
    ``__init__`` for the package's own ``__init__.py``."""
    found = set()
    for path in package.rglob("*.py"):
        parts = path.relative_to(package).with_suffix("").parts
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        found.add(".".join(parts))
    return found


def module_path(package: Path, name: str) -> Path:
    """The file of module ``name`` (a dotted name below seqmodels, as ``package_modules`` gives)."""
    if name == "__init__":
        return package / "__init__.py"
    folder = package.joinpath(*name.split("."))
    return folder / "__init__.py" if folder.is_dir() else folder.with_suffix(".py")


def imported_modules(source: str, package: Path, *, inside: str | None) -> set[str] | None:
    """The seqmodels modules that Python ``source`` imports, by dotted name below the package
    (``models.lstm`` for ``seqmodels/models/lstm.py``), with the subpackages whose ``__init__.py``
    the import runs; None when it may reach any of them.
    ``inside``: the dotted name of the seqmodels module ``source`` is (``__init__`` for the
    package's own), so its relative imports count too; None for a chapter's code."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return _EVERYTHING
    modules = package_modules(package)
    found: set[str] = set()

    def add(name: str) -> None:  # a module, and every subpackage above it (their __init__ runs)
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            if ".".join(parts[:i]) in modules:
                found.add(".".join(parts[:i]))

    def relative_base(level: int) -> str | None:  # the package `from .` (level dots) names, or None
        if inside is None:
            return None
        holder = [] if inside == "__init__" else inside.split(".")
        if inside != "__init__" and not module_path(package, inside).name == "__init__.py":
            holder = holder[:-1]  # a plain module: `.` is the package that holds it
        if level - 1 > len(holder):
            return None
        return ".".join(holder[:len(holder) - (level - 1)])

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top, _, rest = alias.name.partition(".")
                if top == package.name:
                    if not rest:
                        return _EVERYTHING  # `import seqmodels`: attribute access can reach anything
                    add(rest)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module is not None and node.module.partition(".")[0] == package.name:
                base = node.module.partition(".")[2]
            elif node.level > 0 and inside is not None:
                base = relative_base(node.level)
                if base is None:
                    return _EVERYTHING
                if node.module:
                    base = f"{base}.{node.module}" if base else node.module
            else:
                continue
            if base:
                add(base)
            for alias in node.names:  # `from seqmodels[.sub] import a`: a may be a module
                if alias.name == "*":
                    return _EVERYTHING
                add(f"{base}.{alias.name}" if base else alias.name)
        elif isinstance(node, ast.Call):  # importlib.import_module("seqmodels.x") / __import__(...)
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in ("import_module", "__import__"):
                arg = node.args[0] if node.args else None
                if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                    return _EVERYTHING
                top, _, rest = arg.value.partition(".")
                if top == package.name:
                    if not rest:
                        return _EVERYTHING
                    add(rest)
                elif arg.value.startswith(".") and inside is not None:
                    return _EVERYTHING
    return found


def chapter_code(text: str) -> str:
    """The Python of a MyST notebook's code cells, as myst-nb reads them, with IPython syntax
    (magics, ``!`` commands) turned into the Python the kernel runs."""
    from IPython.core.inputtransformer2 import TransformerManager
    from myst_nb.core.read import read_myst_markdown_notebook

    notebook = read_myst_markdown_notebook(text)
    transform = TransformerManager().transform_cell
    return "\n".join(transform(cell.source) for cell in notebook.cells if cell.cell_type == "code")


def data_files(package: Path) -> list[Path]:
    """The package's data files (``code/seqmodels/data/``), sorted."""
    return sorted(p for p in (package / "data").rglob("*") if p.is_file())


def chapter_dependencies(text: str, package: Path) -> list[Path]:
    """The files of seqmodels a chapter's code can execute or read: imported modules, their imports,
    the package's ``__init__.py``, and the data files (``seqmodels/data/``) whose file name the
    chapter's code or one of those modules writes (``files("seqmodels") / "data" / "x.npz"``).
    Sorted, so the hash does not depend on scan order."""
    every = sorted(package.rglob("*.py")) + data_files(package)
    cells = chapter_code(text)
    named = imported_modules(cells, package, inside=None)
    if named is None:
        return every
    seen: set[str] = set()
    todo = sorted(named | {"__init__"})
    while todo:
        name = todo.pop()
        path = module_path(package, name)
        if name in seen or not path.is_file():
            continue
        seen.add(name)
        inner = imported_modules(path.read_text(), package, inside=name)
        if inner is None:
            return every
        todo += sorted(inner - seen)
    modules = sorted(module_path(package, name) for name in seen)
    sources = [cells] + [path.read_text() for path in modules]
    return modules + [path for path in data_files(package) if any(path.name in source for source in sources)]


def code_bytes(path: Path) -> bytes:
    """What of a file can change a chapter's outputs: a module's code without its docstrings and
    comments (its ``ast``, so an edit to either executes nothing again, the package map in
    ``__init__.py`` included), a data file's bytes. A module that does not parse counts whole."""
    import ast

    if path.suffix != ".py":
        return path.read_bytes()
    try:
        tree = ast.parse(path.read_text())
    except SyntaxError:
        return path.read_bytes()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            del body[0]  # ast.dump does not need a body to be non-empty
    return ast.dump(tree).encode()


def files_hash(paths, root: Path) -> str:
    """The cache key of ``paths``: a SHA-256 (16 hex digits) of each file's path relative to
    ``root`` and its ``code_bytes``, in the order given."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + code_bytes(path) + b"\0")
    return digest.hexdigest()[:16]


def stamp_code_dependencies(app, docname, source) -> None:
    """``source-read``: note the chapter's files of the package (``seqbook_package``) as Sphinx
    dependencies and write their hash into the front matter's ``kernelspec`` block (jupyter-cache
    hashes that block), as ``seqmodels_code: <hash>``."""
    text = source[0]
    if "{code-cell}" not in text:
        return
    root = Path(app.confdir)
    package = root / app.config.seqbook_package
    deps = chapter_dependencies(text, package)
    for path in deps:
        app.env.note_dependency(str(path))
    stamped, count = re.subn(r"\A(---\n(?:.*\n)*?kernelspec:[ \t]*\n)", rf"\g<1>  seqmodels_code: {files_hash(deps, root)}\n",
                             text, count=1)
    if not count:
        raise RuntimeError(f"{docname}: executed chapters need a `kernelspec:` block in their front matter")
    source[0] = stamped


def setup(app):
    app.add_config_value("seqbook_package", "code/seqmodels", "env", str)
    app.connect("source-read", stamp_code_dependencies)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
