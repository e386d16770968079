#!/usr/bin/env bash
# GPU check on one GPU node (no internet needed): the toy world's pretraining, GRPO and sampling on
# the GPU and on the CPU, with GPU/CPU throughput ratios (src/rlvr_support/cli/gpu_check.py).
#
#   scripts/gpu_check.sh                      # full size, about 2-4 minutes on one GPU node
#   scripts/gpu_check.sh --quick              # seconds; also runs on a CPU-only machine
#   scripts/gpu_check.sh --wheelhouse DIR ... # first install missing packages from local wheels
#   srun --gpus=1 --cpus-per-task=16 --time=15 scripts/gpu_check.sh --out gpu_check.json
#
# Uses .venv/ of the checkout when present, else the python on PATH (which needs requirements.txt).
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
if [[ -n "$wheelhouse" ]]; then
    # everything but torch (the node's own CUDA build of torch stays)
    grep -v -E '^(torch|#|$)' requirements.txt > /tmp/gpu_check_requirements.txt
    "$py" -m pip install --no-index --find-links "$wheelhouse" -r /tmp/gpu_check_requirements.txt
fi
export PYTHONPATH="$repo/src${PYTHONPATH:+:$PYTHONPATH}"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "nvidia-smi: not available"
exec "$py" -m rlvr_support.cli.gpu_check "${args[@]}"
