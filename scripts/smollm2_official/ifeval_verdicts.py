"""Score SmolLM2's responses to IFEval's 541 prompts with lm-evaluation-harness's IFEval (run in its own venv).

Run by scripts/make_smollm2_fixtures.sh (stage ifeval), never by the project. It runs lm-eval's own
`lm_eval/tasks/ifeval/utils.process_results(doc, [response])` (Google's checks as lm-eval 0.4.13 vendors
them) on every stored response, doc = the prompt's row of Google's input_data.jsonl. Offline, and otherwise
unchanged:

* lm-eval is installed with --no-deps plus the packages its ifeval modules import (the script's venv);
  `lm_eval.tasks` and `lm_eval.tasks.ifeval` are registered as bare packages first, so that
  lm_eval/tasks/__init__.py (the task manager, which needs datasets, torch...) is not imported.
* NLTK: NLTK_DATA must hold tokenizers/punkt_tab (nltk_data's own archive, sha256-checked by the wrapper).
  lm-eval's `nltk.data.load("nltk:tokenizers/punkt/english.pickle")` and `nltk.word_tokenize` get nltk
  3.10's pickle-free Punkt built from it. `nltk.download` (called at import when the data is missing) is a
  no-op that records what was asked for.
* Randomness: lm-eval replaces a kwarg it rejects by a random value (a `letter` outside a-z, such as
  IFEval's "#" of prompt 1122 and "!" of prompt 1129, becomes a random ASCII letter); `random` is seeded with
  0 before each response, so the verdicts are reproducible (and do not depend on the order).
* langdetect: seeded with 0 (`DetectorFactory.seed`), as Google's current instructions.py does; lm-eval's
  copy leaves it unseeded, so its `response_language` and `english_capital` verdicts could vary by run.

Writes one row per response: key, sample_idx, instruction_id_list, strict and loose (one bool each).
Usage: python ifeval_verdicts.py input_data.jsonl ifeval_responses.jsonl OUT.jsonl
"""

import importlib
import json
import random
import sys
import types
from pathlib import Path

import lm_eval
import nltk
from langdetect import DetectorFactory

DetectorFactory.seed = 0
asked = []
nltk.download = lambda *a, **k: asked.append(a) or False

base = Path(lm_eval.__file__).parent / "tasks"
for name, path in (("lm_eval.tasks", base), ("lm_eval.tasks.ifeval", base / "ifeval")):
    stub = types.ModuleType(name)  # a bare package: its modules load, its __init__ does not run
    stub.__path__ = [str(path)]
    sys.modules[name] = stub
utils = importlib.import_module("lm_eval.tasks.ifeval.utils")


def main(prompts_path, responses_path, out_path):
    docs = {}
    for line in open(prompts_path):
        doc = json.loads(line)
        docs[doc["key"]] = doc
    with open(out_path, "w") as out:
        n = 0
        for line in open(responses_path):
            row = json.loads(line)
            doc = docs[row["key"]]
            random.seed(0)
            res = utils.process_results(doc, [row["response"]])
            out.write(json.dumps({"key": row["key"], "sample_idx": row["sample_idx"],
                                  "instruction_id_list": doc["instruction_id_list"],
                                  "strict": res["inst_level_strict_acc"], "loose": res["inst_level_loose_acc"]}) + "\n")
            n += 1
    print(f"{n} responses scored by lm-eval {lm_eval.__version__}'s IFEval; nltk data asked for "
          f"(not downloaded): {asked or 'none'}", file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:4])
