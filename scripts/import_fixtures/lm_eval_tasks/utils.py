"""Functions the two local lm-eval tasks name with `!function utils.<name>`.

The math prompt text comes from ../prompts.py (one definition for every tool's fixture); IFEval's
scoring is lm-eval's own (`lm_eval.tasks.ifeval.utils`), so the samples file carries the harness's
`prompt_level_strict_acc` etc. exactly as its ifeval task writes them.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # lm-eval loads this file by path

from lm_eval.tasks.ifeval.utils import agg_inst_level_acc, process_results  # noqa: E402,F401
from prompts import math_prompt  # noqa: E402


def math_doc_to_text(doc: dict) -> str:
    return math_prompt(doc)
