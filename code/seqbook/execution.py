"""The execution cache: one per environment, prepared before any chapter is read.

A chapter's outputs depend on more than its code (``seqbook.cachekeys``): on the pinned packages
(numpy, matplotlib, ...), the Python version, the training precision the chapters read
(``SEQMODELS_DTYPE``, float32 when unset) and the OpenBLAS kernel. Their hash
(``environment_hash``) names the cache's folder, ``<build folder>/.jupyter_cache/<hash>``, the
build folder being the one above the HTML output (``_build``, where myst-nb writes
``jupyter_execute/``). Another environment starts an empty cache and, the hash being a config value
with rebuild 'env', makes Sphinx re-read every chapter; the status page prints the versions and the
kernel.

The kernel: OpenBLAS picks its kernel from the CPU each time a process loads it, unless
``OPENBLAS_CORETYPE`` names one, and kernels round differently in the last bits. Without a key on
it, outputs cached by a build on another kernel (one run with the variable set, or unset) would be
reused as if they were this one's. So the build takes the kernel once (``blas_kernel``: the
variable if set, else the one OpenBLAS picks in the build's process), passes it to every chapter
as ``OPENBLAS_CORETYPE`` and keys the cache on it. (``make portability`` relies on this: every
output of the main build comes from the one kernel its status page names.)

When: ``configure`` (``config-inited``) takes the kernel, sets ``OPENBLAS_CORETYPE`` in the
build's environment for the notebook kernels it starts, and sets ``seqbook_environment_hash`` and,
unless conf.py names one, ``nb_execution_cache_path``, which myst-nb reads when the builder is
set up. ``prepare_cache`` (``builder-inited``) drops the caches of other environments and creates
the cache's database before parallel readers start. Importing this module changes nothing.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path


def blas_kernel() -> str:
    """The OpenBLAS kernel of this build: ``OPENBLAS_CORETYPE`` if set, else the one OpenBLAS
    picks in this process ("" where numpy has no OpenBLAS). Changes nothing."""
    chosen = os.environ.get("OPENBLAS_CORETYPE", "")
    if not chosen:
        import numpy  # noqa: F401  (loads OpenBLAS, so threadpoolctl can name its kernel)
        from threadpoolctl import threadpool_info

        found = [i["architecture"] for i in threadpool_info() if i.get("internal_api") == "openblas"]
        chosen = found[0] if found else ""
    return chosen


def environment_hash(requirements: Path, kernel: str) -> str:
    """The pinned packages (the bytes of ``requirements``, if it exists), the Python version, the
    training precision (``SEQMODELS_DTYPE``) and the OpenBLAS ``kernel``, as 16 hex digits: a new
    pin, another precision or another kernel can change any output."""
    digest = hashlib.sha256(sys.version.encode() + b"\0")
    dtype = os.environ.get("SEQMODELS_DTYPE", "")
    if dtype and dtype != "float32":
        digest.update(b"SEQMODELS_DTYPE=" + dtype.encode() + b"\0")  # the default keeps today's key
    digest.update(b"OPENBLAS_CORETYPE=" + kernel.lower().encode() + b"\0")
    if requirements.is_file():
        digest.update(requirements.read_bytes())
    return digest.hexdigest()[:16]


def cache_root(app) -> Path:
    """Where the execution caches of this build folder live: ``<build folder>/.jupyter_cache``."""
    return Path(app.outdir).parent.resolve() / ".jupyter_cache"


def configure(app, config) -> None:
    """``config-inited``: the kernel for every chapter of this build, the environment's hash, and
    the execution cache's path (unless conf.py sets ``nb_execution_cache_path``)."""
    kernel = blas_kernel()
    if kernel:
        os.environ["OPENBLAS_CORETYPE"] = kernel  # inherited by every notebook kernel
    config.seqbook_environment_hash = environment_hash(Path(app.confdir) / "requirements.txt", kernel)
    if not config.nb_execution_cache_path:
        config.nb_execution_cache_path = str(cache_root(app) / config.seqbook_environment_hash)
        app.seqbook_cache_is_ours = True


def prepare_cache(app) -> None:
    """``builder-inited``: drop the caches of other environments (when the cache's path is this
    extension's), and create the cache database before parallel readers start (two workers
    creating it at once race on the SQLite schema). A database that cannot be read (a disk that
    filled up, a build killed while writing it) is only a cache: it is set aside with one line on
    stderr, and every chapter executes again into a new one."""
    import sqlite3

    from jupyter_cache import get_cache
    from sqlalchemy.exc import SQLAlchemyError

    path = Path(app.config.nb_execution_cache_path)
    if getattr(app, "seqbook_cache_is_ours", False) and path.parent.is_dir():
        for old in path.parent.iterdir():
            if old.name != path.name:
                shutil.rmtree(old, ignore_errors=True)
    try:
        get_cache(str(path)).list_cache_records()  # creates the database, or reads it
    except (SQLAlchemyError, sqlite3.Error) as err:
        aside = Path(app.outdir).parent.resolve() / "jupyter_cache.unreadable"
        shutil.rmtree(aside, ignore_errors=True)
        shutil.move(path, aside)
        reason = str(getattr(err, "orig", None) or err).splitlines()[0]
        print(f"seqbook.execution: the execution cache could not be read ({reason}); set aside as "
              f"{aside}, every chapter executes again", file=sys.stderr)
        get_cache(str(path)).list_cache_records()


def setup(app):
    app.setup_extension("myst_nb")  # registers nb_execution_cache_path, read when the builder is set up
    app.add_config_value("seqbook_environment_hash", "", "env", str)
    app.connect("config-inited", configure)
    app.connect("builder-inited", prepare_cache)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
