"""Uninstall from the running environment every distribution a requirements file does not pin.

The Makefile's installer takes this way when uv cannot be had: pip installs the pinned list
(``--no-deps``), then this removes what the list no longer names, as ``uv pip sync`` would. Kept
besides the pins: pip and setuptools (the installer itself) and ``seqmodels`` (the book's package,
installed editable from ``code/``).

Standard library only: it runs with ``.venv``'s Python, by path::

    .venv/bin/python code/seqbook/tools/pip_prune.py [requirements.txt] [--dry-run]

``--dry-run`` prints what it would remove and removes nothing.
"""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import distributions

#: Never removed: the installer itself, and the book's package (``-e ./code``).
KEEP = frozenset({"pip", "setuptools", "seqmodels"})
PIN = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==")


def normalise(name: str) -> str:
    """A distribution name as PEP 503 compares them.

    >>> normalise("Typing_Extensions"), normalise("zope.interface")
    ('typing-extensions', 'zope-interface')
    """
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned(text: str) -> set[str]:
    """The names ``text`` (a requirements file) pins with ``==``; comments, options and unpinned
    lines name nothing.

    >>> sorted(pinned("numpy==2.4.6  # the models\\n-e ./code\\n# pytest==1\\nSphinx == 8.2.3\\n"))
    ['numpy', 'sphinx']
    """
    return {normalise(m.group(1)) for line in text.splitlines() if (m := PIN.match(line))}


def extra(wanted: set[str], installed: set[str]) -> list[str]:
    """What is installed but neither wanted nor kept (:data:`KEEP`), sorted.

    >>> extra({"numpy"}, {"numpy", "pip", "six", "seqmodels"})
    ['six']
    """
    return sorted(installed - wanted - KEEP)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    dry_run = "--dry-run" in args
    files = [a for a in args if a != "--dry-run"]
    if len(files) > 1:
        raise SystemExit(f"usage: pip_prune.py [requirements.txt] [--dry-run]; got {args!r}")
    with open(files[0] if files else "requirements.txt", encoding="utf-8") as handle:
        wanted = pinned(handle.read())
    remove = extra(wanted, {normalise(d.metadata["Name"]) for d in distributions()})
    if remove:
        print(f"{'would remove' if dry_run else 'removing'} what requirements.txt no longer lists:",
              " ".join(remove))
        if not dry_run:
            subprocess.run([sys.executable, "-m", "pip", "uninstall", "--yes", "--quiet", *remove],
                           check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
