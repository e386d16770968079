"""Score math responses with math-verify itself (run in its own venv): `verify(parse(gold), parse(response))`.

Run by scripts/make_smollm2_fixtures.sh (stage math), never by the project. Both sides as math-verify's
README writes them: the gold answer as LaTeX between dollars (`parse("$" + gold + "$")`), the response
text whole, with `parse`'s default extraction (LaTeX and plain expressions; "final answer is", \\boxed,
"answer:", else the last expression) and `verify`'s defaults (its own timeouts included).

Inputs: MMATH's en.json, and SmolLM2's responses (math_responses.jsonl). Writes one row per scored text:
`set` ("response": a model response; "gold-boxed" / "gold-final": the gold itself written as
`So the result follows. \\boxed{gold}` / `So the result follows.\\nThe final answer is gold`, the
writings tests/test_real_benchmarks.py scores), gid, sample_idx (responses only), correct, and what
parse found in the response (`extracted`: the matched text, or null).
Usage: python math_verdicts.py mmath_en.json math_responses.jsonl OUT.jsonl
"""

import json
import sys
from importlib.metadata import version

from math_verify import parse, verify

GOLD_WRITINGS = {"gold-boxed": "So the result follows. \\boxed{{{}}}",
                 "gold-final": "So the result follows.\nThe final answer is {}"}


def judge(gold: str, text: str) -> tuple[bool, str | None]:
    g, p = parse("$" + gold + "$"), parse(text)
    found = (p[-1] if isinstance(p[-1], str) else str(p[0])) if p else None
    return bool(g) and bool(p) and bool(verify(g, p)), found


def main(mmath_path, responses_path, out_path):
    rows = json.load(open(mmath_path))
    gold = {r["gid"]: r["answer"] for r in rows}
    with open(out_path, "w") as out:
        for name, writing in GOLD_WRITINGS.items():
            for r in rows:
                ok, found = judge(r["answer"], writing.format(r["answer"]))
                out.write(json.dumps({"set": name, "gid": r["gid"], "correct": ok, "extracted": found}) + "\n")
        for line in open(responses_path):
            row = json.loads(line)
            ok, found = judge(gold[row["gid"]], row["response"])
            out.write(json.dumps({"set": "response", "gid": row["gid"], "sample_idx": row["sample_idx"],
                                  "correct": ok, "extracted": found}) + "\n")
    print(f"scored with math-verify {version('math-verify')}", file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:4])
