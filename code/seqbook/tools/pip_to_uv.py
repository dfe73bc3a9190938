"""pip's configuration as uv's options: the Makefile's installer hands them to ``uv pip sync``.

uv does not read pip's configuration (pip.conf, ``PIP_*`` variables), so on a machine whose
packages come from a configured index or folder uv would find nothing. This prints, on one line
quoted for a shell, the options that give uv what ``pip config list`` shows:

- ``--index-url``: one index, the variable's (``PIP_INDEX_URL``) over a file's, as pip takes it;
- ``--extra-index-url``, ``--find-links``, ``--constraint``: every value, variables first, each
  once;
- ``--index-strategy unsafe-best-match`` when there is more than one place to look (pip's way: the
  best version from any of them);
- ``--no-index`` when pip is configured with it.

Standard library only: it runs with ``.venv``'s Python before anything is installed there, by path::

    .venv/bin/python code/seqbook/tools/pip_to_uv.py
"""

from __future__ import annotations

import shlex
import subprocess
import sys

#: pip's option names and uv's flags for them, in the order the flags are printed.
OPTIONS = (("index-url", "--index-url"), ("extra-index-url", "--extra-index-url"),
           ("find-links", "--find-links"), ("constraint", "--constraint"))
TRUE = ("1", "true", "yes", "on")


def parse(listed: str) -> dict[str, list[tuple[bool, str]]]:
    """``pip config list`` output (``global.index-url='https://x'``, ``:env:.no-index='1'``) as
    ``{name: [(from_a_variable, value), ...]}`` in the order listed.

    >>> parse(":env:.index-url='https://a/simple'\\nglobal.find-links='/w'")
    {'index-url': [(True, 'https://a/simple')], 'find-links': [(False, '/w')]}
    """
    found: dict[str, list[tuple[bool, str]]] = {}
    for line in listed.splitlines():
        key, _, value = line.partition("=")
        where, _, name = key.rpartition(".")
        found.setdefault(name, []).append((where == ":env:", value.strip().strip("'\"")))
    return found


def uv_args(found: dict[str, list[tuple[bool, str]]]) -> list[str]:
    """uv's options for pip's configuration as :func:`parse` returns it.

    >>> uv_args({"index-url": [(False, "https://file/simple"), (True, "https://env/simple")]})
    ['--index-url', 'https://env/simple']
    >>> uv_args({"find-links": [(False, "/w /w")], "no-index": [(True, "yes")]})
    ['--find-links', '/w', '--index-strategy', 'unsafe-best-match', '--no-index']
    """
    args: list[str] = []
    for name, flag in OPTIONS:
        values = [v for _, v in sorted(found.get(name, []), key=lambda item: not item[0])]
        if name == "index-url":
            values = values[:1]  # one index: the variable's over the file's, as pip takes it
        for value in dict.fromkeys(word for v in values for word in v.split()):
            args += [flag, value]
    if "--extra-index-url" in args or "--find-links" in args:
        args += ["--index-strategy", "unsafe-best-match"]  # pip's way: the best version from any
    if any(v.lower() in TRUE for _, v in found.get("no-index", [])):
        args.append("--no-index")
    return args


def main() -> None:
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True,
                            text=True).stdout
    print(shlex.join(uv_args(parse(listed))))


if __name__ == "__main__":
    main()
