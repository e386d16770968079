# Two commands do everything on a fresh machine:  `make run`  (set up + the toy study)  and  `make test`.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORES ?= 2
STAMP := $(VENV)/.installed

.PHONY: setup run test report dry-run-slurm bench clean

$(STAMP): requirements.txt requirements-test.txt pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -r requirements.txt
	$(BIN)/pip install -q --no-deps -r requirements-test.txt
	$(BIN)/pip install -q --no-deps -e .
	touch $(STAMP)

setup: $(STAMP)

run: setup  ## the whole toy study on config.yaml
	source $(BIN)/activate && snakemake --cores $(CORES) all

test: setup  ## the test suite (unit tests + the smoke DAG end to end)
	source $(BIN)/activate && python -m pytest -q

report: setup  ## an HTML report of every figure and table of the last run
	source $(BIN)/activate && snakemake --cores $(CORES) all --report report.html

dry-run-slurm: setup  ## plan the study under the SLURM profile
	source $(BIN)/activate && snakemake --profile slurm all -n

clean:
	rm -rf results .snakemake report.html
