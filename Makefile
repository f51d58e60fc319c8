# `make check`: the instructor check (reference at full marks, untouched release at zero).
# `make test`: the kit's own tests. Both install what they need into .venv on first use.
VENV := .venv
PYTHON := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed

.PHONY: check test generate benchmark

check: $(INSTALLED)
	$(PYTHON) -m autograder check-solutions

test: $(INSTALLED)
	$(PYTHON) -m pytest -q

generate: $(INSTALLED)
	$(PYTHON) -m autograder generate

benchmark: $(INSTALLED)
	$(PYTHON) benchmarks/grading_speed.py

$(INSTALLED): requirements.txt
	python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --upgrade pip
	$(PYTHON) -m pip install --quiet -r requirements.txt
	touch $@
