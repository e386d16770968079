"""The claims table: one row per claim of the three papers (registry.CLAIMS), measured on this study's runs.

Each row states the claim, the papers that make it (by short title, analysis/papers.py), the chain
and eval set it is measured on, the expected sign of the effect, the measured effect with its bootstrap CI
(paired over prompts and including RL-seed variation wherever the effect is a difference
to the base), the RL seeds behind it, the verdict of analysis.resample.claim_verdict and the
target file the number comes from. A verdict (agree / disagree, or inconclusive when the CI
touches or straddles 0) needs a CI over at least MIN_VERDICT_SEEDS = 3 RL seeds; a row with
fewer says `1 seed` or `2 seeds` instead: an effect, not a verdict.  Claims
whose chain, eval set or input table is not in the study are left out, never filled in.

A claim about an eval set is measured on each of its benchmarks (analysis.benchmarks): one row
per benchmark, named in the `benchmark` column. Input tables without that column are one
benchmark named like the eval set; pooled rows (`all`) of an input table are not claims.
"""

from __future__ import annotations

import pandas as pd

from rlvr_support.analysis.claims import registry
from rlvr_support.analysis.claims.claim import EXTERNAL, SCORES, TRAINED_TASK
from rlvr_support.analysis.claims.study import Study, Where
from rlvr_support.analysis.markdown import cell, ci_cell, markdown_table
from rlvr_support.analysis.resample import MIN_VERDICT_SEEDS, ci_side
from rlvr_support.analysis.scores import ScoreFile

COLUMNS = ["claim", "paper", "chain", "eval_set", "benchmark", "measure", "expected_sign", "effect", "ci_low",
           "ci_high", "n_seeds", "verdict", "source"]


def _places(study: Study):
    """(claim, place) in the table's order: the trained tasks' claims chain by chain, then the external
    checkpoints' one by one, then the claims of one place each."""
    for at in study.trained_tasks:
        yield from ((c, at) for c in registry.CLAIMS if c.at == TRAINED_TASK and (not c.chains or at.chain in c.chains))
    for at in study.externals:
        yield from ((c, at) for c in registry.CLAIMS if c.at == EXTERNAL)
    yield from ((c, c.at) for c in registry.CLAIMS if isinstance(c.at, Where))


def claims_table(scores: list[ScoreFile], tables: dict[str, pd.DataFrame], sources: dict[str, str] | None = None, *,
                 m: int, n_boot: int, ci: float, seed: int, group_size: int | None = None) -> pd.DataFrame:
    """The claims of registry.CLAIMS whose input table is in `tables` (`{name: table}`, registry.table_names;
    the score files are always there), each row's `source` the path `sources` gives the table it cites ("" if none)."""
    study = Study(scores, m=m, n_boot=n_boot, ci=ci, seed=seed, group_size=group_size)
    sources = sources or {}
    rows = []
    for claim, at in _places(study):
        name = claim.reads_at(at)
        if name != SCORES and name not in tables:
            continue
        table = scores if name == SCORES else tables[name]
        rows += [claim.row(at, e, sources.get(claim.cites_at(at), ""), study) for e in claim.rows(table, at, study)]
    return pd.DataFrame(rows, columns=COLUMNS)


KEY = ["claim", "chain", "eval_set", "benchmark"]


def seed_stability_table(scores: list[ScoreFile], pooled: pd.DataFrame, tables: dict[str, pd.DataFrame],
                         sources: dict[str, str] | None = None, *, m: int, n_boot: int, ci: float, seed: int,
                         group_size: int | None = None) -> pd.DataFrame:
    """Each claim measured on every RL seed alone, beside its pooled row (the rows of `pooled`, the claims table).

    A seed's claims are those of `claims_table` on that seed's checkpoints only (with the base and
    external checkpoints): the claims of the score files and of the tables with rows per RL seed
    (registry.ONE_SEED). One seed gives an effect, never a verdict (claim_verdict), so a seed's cells
    are its effect and where its CI over prompts lies (`ci_side`: above 0, below 0, spans 0). `stable`
    says whether every seed's CI lies where the pooled CI does; it needs a pooled verdict (at least
    MIN_VERDICT_SEEDS seeds) and is False without one. Claims that only pooled tables measure get
    per-seed cells `n/a` and `per_seed = False`."""
    seeds = sorted({f.seed for f in scores if f.seed is not None})
    per_seed = {}
    for s in seeds:
        seeded = {name: one_seed(tables[name], s) for name, one_seed in registry.ONE_SEED.items() if name in tables}
        t = claims_table([f for f in scores if f.seed in (None, s)], seeded, sources, m=m, n_boot=n_boot, ci=ci,
                         seed=seed, group_size=group_size)
        per_seed[s] = t.set_index(KEY)
    rows = []
    for _, r in pooled.iterrows():
        key = tuple(r[k] for k in KEY)
        pooled_side = ci_side(r["ci_low"], r["ci_high"])
        row = {**{k: r[k] for k in KEY}, "expected_sign": r["expected_sign"], "pooled_effect": r["effect"],
               "pooled_ci_side": pooled_side, "pooled_verdict": r["verdict"], "n_seeds": r["n_seeds"]}
        measured = [key in per_seed[s].index for s in seeds]
        row["per_seed"] = bool(seeds) and all(measured)
        for s in seeds:
            if key in per_seed[s].index:
                one = per_seed[s].loc[key]
                row[f"seed{s}_effect"], row[f"seed{s}_ci_side"] = float(one["effect"]), ci_side(one["ci_low"],
                                                                                               one["ci_high"])
            else:
                row[f"seed{s}_effect"], row[f"seed{s}_ci_side"] = float("nan"), "n/a"
        sides = [row[f"seed{s}_ci_side"] for s in seeds]
        row["seeds_agreeing_with_pooled"] = sum(side == pooled_side for side in sides)
        row["stable"] = row["per_seed"] and r["n_seeds"] >= MIN_VERDICT_SEEDS and all(side == pooled_side
                                                                                    for side in sides)
        rows.append(row)
    return pd.DataFrame(rows)


def seed_stability_markdown(df: pd.DataFrame) -> str:
    seeds = [c.removesuffix("_ci_side") for c in df.columns if c.startswith("seed") and c.endswith("_ci_side")]
    header = ["claim", "chain", "eval set", "benchmark", "expected", "pooled", *seeds, "stable"]
    body = [[cell(r["claim"]), cell(r["chain"]), cell(r["eval_set"]), cell(r["benchmark"]), cell(r["expected_sign"]),
             f"{r['pooled_effect']:+.3f} {r['pooled_verdict']}",
             *[(f"{r[s + '_effect']:+.3f}, CI {r[s + '_ci_side']}" if r[s + "_ci_side"] != "n/a"
                else "n/a (pooled table)") for s in seeds],
             "yes" if r["stable"] else ("no" if r["per_seed"] and r["n_seeds"] >= MIN_VERDICT_SEEDS else "n/a")]
            for _, r in df.iterrows()]
    return markdown_table(header, body)


def claims_markdown(df: pd.DataFrame) -> str:
    header = ["claim", "paper", "chain", "eval set", "benchmark", "expected", "effect [CI]", "verdict", "source"]
    return markdown_table(header, [[cell(r["claim"]), cell(r["paper"]), cell(r["chain"]), cell(r["eval_set"]),
                                    cell(r["benchmark"]),
                                    cell(r["expected_sign"]), ci_cell(r["effect"], r["ci_low"], r["ci_high"], "+.3f"),
                                    cell(r["verdict"]), cell(r["source"])] for _, r in df.iterrows()])
