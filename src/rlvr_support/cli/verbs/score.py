"""`python -m rlvr_support score`: score samples with the verifiers (math-verify, IFEval, joint).

Run by `score_large_k` (workflow/rules/large_k.smk), `score_routed` (workflow/rules/routed.smk),
`score` (workflow/rules/score.smk); registered by cli/main.py.
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.verifier_args import add_verifier_args


def cmd_score(a):
    from rlvr_support.storage.atomic import read_samples, write_parquet
    from rlvr_support.scoring.score import SAMPLE_INPUTS, load_prompts, score_samples, scoring_options

    samples = read_samples(a.samples, columns=list(SAMPLE_INPUTS))
    scores = score_samples(samples, load_prompts(a.prompts), **scoring_options(a.cfg), sources=(a.samples, a.prompts))
    write_parquet(a.out, scores)
    print(f"{len(scores)} samples scored, mean reward {scores['reward'].mean():.4f}, "
          f"{int(scores['timeout'].sum())} timeouts")


def register(verb) -> None:
    s = verb("score", cmd_score, "Score samples with the verifiers (math-verify, IFEval, joint).")
    s.add_argument("--samples", required=True)
    s.add_argument("--prompts", required=True)
    s.add_argument("--cfg", type=_json, required=True,
                   help="the config's `scoring` section as JSON: timeout_s, workers, reasoning (none | after_think), "
                        "math_extraction (strict | lenient; default strict)")
    s.add_argument("--out", required=True)
    add_verifier_args(s)
