# Every target sets up its own virtual environment first, so each works on a fresh clone.
# The Python the venv is made from, unless PYTHON says: the system's own python3.11 where it has one
# that can make a venv (Debian and Ubuntu, with python3.11-venv), else the first python3.11 on PATH.
# Debian builds its Python with profile-guided optimisation and links libpython into the
# executable; pyenv's default build does neither. Measured on one 2-core Debian 12 machine, Debian's
# 3.11.2 against pyenv's 3.11.7, runs alternated (whole runs of `make test` took 358-426 s there for
# one commit, with the host): `make test-fast` 78-85 s against 86-94 s in three pairs, each 9-12%
# quicker; eight loads of the real map 1.64-1.90 CPU-s against 2.07-2.44.
SYSTEM_PYTHON := /usr/bin/python3.11
ifeq ($(origin PYTHON),undefined)
PYTHON := $(shell $(SYSTEM_PYTHON) -c "import ensurepip, venv" >/dev/null 2>&1 && echo $(SYSTEM_PYTHON) || echo python3.11)
endif
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: site serve test test-fast verify verify-latest bench mutation setup clean

setup: $(STAMP)

# uv (pinned in the lock) installs the lock in a few seconds where pip takes 17 (measured on a
# 2-core machine); where uv cannot be installed or cannot reach the index, pip does the same
# installs. --compile-bytecode, as pip does: where PYTHONDONTWRITEBYTECODE is set (this machine
# sets it) every test's Python process would otherwise compile each module it imports, again
# (measured: the suite took 707 s instead of 397).
# --no-deps and the check: the lock must hold every dependency, nothing unpinned comes in.
# -qq: a machine whose pip configuration names an index folder that does not exist would get a
# warning per package from pip; errors still print. (uv reads no pip configuration: a mirror is
# given to it as UV_INDEX_URL.)
# --clear: the venv holds the lock and nothing else (a package the lock no longer names goes with it),
# made again from $(PYTHON) when the lock or pyproject.toml changes (another Python for an existing
# venv: `make clean setup PYTHON=...`). A run of the tests meanwhile loses its venv.
$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv --clear $(VENV)
	@if $(PY) -m pip install -qq --disable-pip-version-check "$$(grep -i '^uv==' requirements.lock)" \
	    && $(VENV)/bin/uv pip install -q --compile-bytecode --python $(PY) --no-deps -r requirements.lock \
	    && $(VENV)/bin/uv pip install -q --python $(PY) --no-deps --no-build-isolation -e . ; then \
	  echo "installed requirements.lock with uv"; \
	else \
	  echo "uv could not install requirements.lock; installing with pip"; \
	  $(PY) -m pip install -qq --disable-pip-version-check --no-deps -r requirements.lock \
	    && $(PY) -m pip install -qq --disable-pip-version-check --no-deps --no-build-isolation -e . ; \
	fi
	@$(PY) -m pip check > $(VENV)/pip-check.txt || { cat $(VENV)/pip-check.txt; exit 1; }
	touch $(STAMP)

site: $(STAMP)  ## fetch the pinned pi, verify every citation, build the site into site/
	$(PY) -m generator build

serve: $(STAMP)  ## preview with live reload (rebuilds when a YAML file changes)
	DECISION_MAP_SITE_URL=$${DECISION_MAP_SITE_URL:-http://127.0.0.1:8000/} $(VENV)/bin/mkdocs serve

VERIFY_FORMAT ?= text

verify: $(STAMP)  ## every citation must be ok at the pinned version, then every probe must hold
	$(PY) -m generator verify --format $(VERIFY_FORMAT)
	@if [ -n "$$DECISION_MAP_SKIP_PROBES" ]; then \
	  echo "probes skipped: DECISION_MAP_SKIP_PROBES is set (unset it to run pi's own code against the claims)"; \
	else $(PY) -m generator probe --quiet; fi

verify-latest: $(STAMP)  ## would the newest pi release drift? (the scheduled CI job)
	$(PY) -m generator verify --format $(VERIFY_FORMAT) --target "$$(npm view @earendil-works/pi-coding-agent version)"

# One worker (pytest-xdist) per core and one more, each test file on one worker: a module's
# fixtures (the browser, a built corpus) start once. The extra worker uses the time the others wait
# on the npm registry, a probe's time limit or a server (two cores, fresh clones through .ci/run:
# with two workers the cores stood idle 67 s and pytest took 456 s; with three, 26 s and 433 s).
# The real site builds in the background while the workers run the files that do not read it;
# those that do come last (tests/conftest.py orders them, and --no-loadscope-reorder keeps that
# order instead of xdist's biggest-file-first).
TEST_WORKERS ?= $(shell echo $$(( $$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2) + 1 )))
PYTEST_PARALLEL := -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

# compileall first: where PYTHONDONTWRITEBYTECODE is set, each of the suite's 200-odd Python
# processes would compile the generator's modules again (0.1 s each, measured); compileall writes
# them once and only those changed since.
test: $(STAMP)  ## every test: unit, real pi from the registry, real mkdocs build, real browser
	@$(PY) -m compileall -q generator
	$(PY) -m pytest $(PYTEST_PARALLEL)

test-fast: $(STAMP)  ## the inner loop: every test that needs neither the npm registry nor a browser
	@$(PY) -m compileall -q generator
	$(PY) -m pytest $(PYTEST_PARALLEL) -m "not network and not browser"

bench: $(STAMP)  ## speed, as ratios against a floor measured in the same run
	$(PY) bench/run.py

MUTATION_MODULES ?=

mutation: $(STAMP)  ## mutation testing (mutmut) of the core and of the modules that guard the machine and the page: a score per module; MUTATION_MODULES=generator/x.py for some
	$(PY) bench/mutation.py $(MUTATION_ARGS) $(MUTATION_MODULES)

clean:
	rm -rf site $(VENV) .pytest_cache
