# `make check`: the instructor check (reference at full marks, untouched release at zero).
# `make test`: the kit's own tests; `make unit`: the unit tests alone (docs/CHANGING.md says which those are).
# `make bundle`: what students receive, as dist/students.zip.
# Each installs what it needs into .venv on first use, with the Jupyter kernel the notebooks ask for.
VENV := .venv
PYTHON := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
# PyPI's torch for Linux brings several GB of CUDA packages: where the machine has no NVIDIA driver (no nvidia-smi),
# the pinned torch comes first from PyTorch's CPU index, and then satisfies requirements.txt's pin (docs/TERM.md says
# how to install for --device cuda). Where that index cannot be reached (a machine that sees only a package mirror,
# which serves the CPU build itself), pip asks its own index: pointed at the CPU index alone, it retried every package.
TORCH := $(shell grep -E '^torch==' requirements.txt)
CPU_INDEX := $(if $(filter Linux,$(shell uname -s)),$(if $(shell command -v nvidia-smi),,--index-url https://download.pytorch.org/whl/cpu))

.PHONY: check test catalog unit drift lint typecheck generate benchmark bundle

check: $(INSTALLED)
	$(PYTHON) -m autograder check-solutions

# In parallel: tests/support/scheduling.py says how many workers, and which tests must share one. The slowest 15 are listed.
# Where PYTHONDONTWRITEBYTECODE is set, each of the hundreds of processes the tests start (graders, kernels,
# nbgrader) would compile the kit's modules again, and each worker would rewrite the tests' asserts
# again: the kit is compiled first (the jail, which reads it, cannot write), and the tests may write bytecode.
test: $(INSTALLED)
	@start=$$(date +%s); $(PYTHON) -m compileall -q autograder >/dev/null; \
	PYTHONDONTWRITEBYTECODE= $(PYTHON) -m pytest -q -n auto --durations=15; status=$$?; \
	echo "make test: the kit's tests took $$(( $$(date +%s) - start )) s"; exit $$status

# Every member of the mistake catalog graded by the hidden suites and by the public checks, where make test grades
# those that show the grading something new (docs/CHANGING.md): CI runs it after make test.
catalog: $(INSTALLED)
	KIT_WHOLE_CATALOG=1 PYTHONDONTWRITEBYTECODE= $(PYTHON) -m pytest -q -n auto \
	  tests/system/test_mutations.py::test_mistake_loses_points_and_is_named \
	  tests/system/test_public.py::test_public_checks_catch_the_mistake_and_name_it

# The tests that start no process, in parallel as make test runs them (and writing bytecode likewise).
unit: $(INSTALLED)
	PYTHONDONTWRITEBYTECODE= $(PYTHON) -m pytest -q -m unit -n auto

# What make test checks by stamp, rebuilt aside and compared (minutes): CI runs it after the tests.
drift: $(INSTALLED)
	$(PYTHON) -m autograder generate --check

# The kit's code style (pyproject.toml's [tool.ruff]); `ruff format .` mends what the second line finds.
lint: $(INSTALLED)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# The kit's types (pyproject.toml's [tool.mypy]: every module checked, contract/ and judge/ strictly).
typecheck: $(INSTALLED)
	$(PYTHON) -m mypy

# Every generated part but the built ones whose stamp is current, a process per core (docs/CHANGING.md: --part,
# --component, --all).
generate: $(INSTALLED)
	$(PYTHON) -m autograder generate

benchmark: $(INSTALLED)
	$(PYTHON) benchmarks/grading_speed.py

bundle: $(INSTALLED)
	rm -f dist/students.zip && mkdir -p dist
	$(PYTHON) -m autograder bundle dist/students.zip

# The .pth makes the kit importable from this environment wherever it runs: nbgrader loads the kit's
# autograde step from the course's nbgrader_config.py.
$(INSTALLED): requirements.txt Makefile
	python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --upgrade pip
	$(PYTHON) -m pip install --quiet $$($(PYTHON) -c 'import urllib.request; urllib.request.urlopen("https://download.pytorch.org/whl/cpu/", timeout=10)' 2>/dev/null && echo '$(CPU_INDEX)') '$(TORCH)'
	$(PYTHON) -m pip install --quiet -r requirements.txt
	$(PYTHON) -c 'import pathlib, sysconfig; pathlib.Path(sysconfig.get_path("purelib"), "transformers-kit.pth").write_text("$(CURDIR)\n")'
	$(PYTHON) -m autograder kernel
	touch $@
