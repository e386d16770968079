"""`python -m rlvr_support prompt-subset`: an evenly spaced subset of a prompt file's eval prompts
(analysis.large_k, analysis.single_token), in file order.

Run by `prompt_subset` (workflow/rules/large_k.smk); registered by cli/main.py.
"""

from __future__ import annotations



def cmd_prompt_subset(a):
    from rlvr_support.data.subsets import evenly_spaced
    from rlvr_support.sampling.jobs import eval_prompts
    from rlvr_support.storage.atomic import write_jsonl

    chosen = evenly_spaced(eval_prompts(a.prompts), a.count)
    write_jsonl(a.out, chosen)
    print(f"{len(chosen)} eval prompts of {a.prompts} -> {a.out}")


def register(verb) -> None:
    s = verb("prompt-subset", cmd_prompt_subset,
             "An evenly spaced subset of a prompt file's eval prompts (analysis.large_k, analysis.single_token), "
             "in file order.")
    s.add_argument("--prompts", required=True)
    s.add_argument("--count", type=int, required=True)
    s.add_argument("--out", required=True)
