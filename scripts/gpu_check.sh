#!/usr/bin/env bash
# GPU checks on one GPU node (no internet needed), scripts/gpu_check.py:
#   --plan: the memory plan's and the throughput model's terms measured on one GPU (planning/plan_check.py), in
#           measurements/plan_check.json, which `budget --measured` reads; a bare node's own torch, transformers,
#           accelerate and safetensors suffice, with the wheelhouse of `make gpu-wheelhouse` (docs/cluster.md)
#   else:   the toy world's pretraining, GRPO and sampling on the GPU and on the CPU, with throughput ratios
#
#   scripts/gpu_check.sh --plan --wheelhouse gpu-wheelhouse    # about 6 minutes on one H100 (--time-limit 450)
#   scripts/gpu_check.sh --plan --cpu                          # seconds; a tiny model on a CPU-only machine
#   scripts/gpu_check.sh                      # the toy check, full size, about 2-4 minutes on one GPU node
#   scripts/gpu_check.sh --quick              # seconds; also runs on a CPU-only machine
#   srun --gpus=1 --cpus-per-task=16 --time=15 scripts/gpu_check.sh --plan --wheelhouse gpu-wheelhouse
#
# --wheelhouse DIR: every wheel in DIR is installed, without dependencies or the network, into a scratch folder
# put first on PYTHONPATH (RLVR_GPU_CHECK_SITE, default ${TMPDIR:-/tmp}/rlvr-gpu-check-site): the node's own
# packages stay as they are. Uses .venv/ of the checkout when present, else the python3 on PATH.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

wheelhouse=""
args=()
while [[ $# -gt 0 ]]; do
    case $1 in
        --wheelhouse) wheelhouse=$2; shift 2 ;;
        *) args+=("$1"); shift ;;
    esac
done

if [[ -x .venv/bin/python ]]; then
    py=.venv/bin/python
else
    py=$(command -v python3 || command -v python)
fi
site=""
if [[ -n "$wheelhouse" ]]; then
    site=${RLVR_GPU_CHECK_SITE:-${TMPDIR:-/tmp}/rlvr-gpu-check-site}
    rm -rf "$site"
    "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" "$wheelhouse"/*.whl
fi
export PYTHONPATH="$repo/src${site:+:$site}${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
# a GPU node has no network: nothing here reads the hub (random weights, stored configs), and nothing may wait on it
export HF_HUB_OFFLINE=${HF_HUB_OFFLINE:-1} HF_DATASETS_OFFLINE=${HF_DATASETS_OFFLINE:-1} \
    TRANSFORMERS_OFFLINE=${TRANSFORMERS_OFFLINE:-1}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "nvidia-smi: not available"
exec "$py" "$repo/scripts/gpu_check.py" ${args[@]+"${args[@]}"}
