"""`python -m rlvr_support claims`: one row per claim of the papers (by short title): effect, CI, verdict, source.

Run by `claims_table` (workflow/rules/support.smk); registered by cli/main.py.
"""

from __future__ import annotations

from pathlib import Path

from rlvr_support.cli.args import json_arg as _json, label_pairs

CFG_HELP = "the config's `analysis` section as JSON"


def cmd_claims(a):
    import pandas as pd

    from rlvr_support.analysis.claims import (claims_markdown, claims_table, seed_stability_markdown,
                                              seed_stability_table)
    from rlvr_support.analysis.runs import parse_files
    from rlvr_support.storage.atomic import write_text

    def opt(p):
        return pd.read_csv(p) if p else None

    dec = {k: pd.read_csv(v) for k, v in label_pairs(a.decomposition or [], "decomposition").items()}
    sources = {"passk": a.passk_source, "support": a.support_source, "entropy": a.entropy, "js": a.js_share,
               "openings": a.openings_source, "perplexity": a.perplexity, "association": a.association,
               "intervention": label_pairs(a.decomposition or [], "decomposition"),
               "trainability": a.trainability_source,
               "reasoning_if": a.reasoning_if or "", "single_token": a.single_token or ""}
    c = a.cfg
    scores, support, modes = parse_files(a.scores, a.scores_root), opt(a.support_per_prompt), opt(a.opening_modes)
    opts = dict(sources=sources, m=c["opening_tokens"], n_boot=c["bootstrap"], ci=c["ci"], seed=c["seed"],
                group_size=c.get("group_size"))
    t = claims_table(scores, support_per_prompt=support, entropy=opt(a.entropy), js_share=opt(a.js_share),
                     modes=modes, perplexity=opt(a.perplexity), association=opt(a.association),
                     reasoning_if=opt(a.reasoning_if), single_token=opt(a.single_token),
                     decomposition=dec, **opts)
    write_text(a.out, t.to_csv(index=False, float_format="%.6f"))
    md = claims_markdown(t)
    write_text(Path(a.out).with_suffix(".md"), md)
    print(md)
    if a.out_seed_stability:
        st = seed_stability_table(scores, t, support_per_prompt=support, modes=modes, **opts)
        write_text(a.out_seed_stability, st.to_csv(index=False, float_format="%.6f"))
        write_text(Path(a.out_seed_stability).with_suffix(".md"), seed_stability_markdown(st))


def register(verb) -> None:
    s = verb("claims", cmd_claims, "One row per claim of the papers (named by short title, analysis/papers.py): "
             "effect, CI, verdict, source file.")
    s.add_argument("--scores", nargs="+", required=True)
    s.add_argument("--scores-root", required=True)
    s.add_argument("--passk-source", required=True, help="the pass@k table the pass@k claims refer to")
    s.add_argument("--support-per-prompt")
    s.add_argument("--support-source", default="", help="the support table the support claims refer to")
    s.add_argument("--entropy")
    s.add_argument("--js-share")
    s.add_argument("--opening-modes", help="opening_modes.csv: the DAI share the opening claims read")
    s.add_argument("--openings-source", default="")
    s.add_argument("--perplexity")
    s.add_argument("--decomposition", nargs="*", help="eval_set=intervention decomposition CSV pairs")
    s.add_argument("--association", help="the checkpoint-level association table (trajectories)")
    s.add_argument("--reasoning-if", help="reasoning_if.csv: the bypass claim reads its bypass_diff")
    s.add_argument("--single-token", help="single_token.csv: the single-token claims read its best@k changes")
    s.add_argument("--trainability-source", default="",
                   help="the trainability table the mixed-group claim refers to (the claim is computed from --scores "
                        "at the cfg's group_size)")
    s.add_argument("--cfg", type=_json, required=True, help=CFG_HELP)
    s.add_argument("--out", required=True)
    s.add_argument("--out-seed-stability", help="CSV of each claim's verdict per RL seed and pooled (.md beside it)")
