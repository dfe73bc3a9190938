"""The maintainer's tools: programs the Makefile runs, not tests and not part of a build.

- ``seqbook.tools.bench`` (`make bench`, `make bench-kernels`): build, kernel and page-weight
  benchmark; `make bench` writes its tables into the README's generated blocks.
- ``seqbook.tools.portability`` (`make portability`): every chapter executed under other OpenBLAS
  kernels and in float64, compared with the main build.
- ``seqbook.tools.browser_path``: where the browser tests and the page-weight benchmark find the
  user's Chromium or Chrome.
- ``seqbook.tools.make_minilm_fixture``: the pretrained encoder's reference outputs from PyTorch
  (run by hand, from a scratch environment with torch; never by `make`).
- ``pip_to_uv.py`` and ``pip_prune.py``: the installer's two helpers. They run with ``.venv``'s
  Python before anything is installed into it, so they use the standard library only and the
  Makefile runs them by path (``.venv/bin/python code/seqbook/tools/pip_to_uv.py``).

The modules run as ``python -m seqbook.tools.<name>`` from the repository's root; they work on the
repository they sit in (``code/seqbook/tools/`` → the folder three levels up). Importing one runs
nothing.
"""
