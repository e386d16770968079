"""The claims table: one row per claim of the three papers, measured on this study's runs.

Each row states the claim, the papers that make it (by short title, analysis/papers.py), the chain
and eval set it is measured on, the expected sign of the effect, the measured effect with its bootstrap CI
(paired over prompts and including RL-seed variation wherever the effect is a difference
to the base), the RL seeds behind it, the verdict of analysis.resample.claim_verdict and the
target file the number comes from. A verdict (agree / disagree, or inconclusive when the CI
touches or straddles 0) needs a CI over at least MIN_VERDICT_SEEDS = 3 RL seeds; a row with
fewer says `1 seed` or `2 seeds` instead: an effect, not a verdict.  Claims
whose chain or eval set is not in the study are left out, never filled in.  Nothing here
is tuned: the effect definitions are fixed below, before any data are seen.

A claim about an eval set is measured on each of its benchmarks (analysis.benchmarks): one row
per benchmark, named in the `benchmark` column. Input tables without that column are one
benchmark named like the eval set; pooled rows (`all`) of an input table are not claims.
"""

from __future__ import annotations

import pandas as pd

from rlvr_support.metrics.bootstrap import bootstrap_ci_grouped
from rlvr_support.analysis.benchmarks import POOLED, split_benchmarks
from rlvr_support.analysis.markdown import cell, ci_cell, markdown_table
from rlvr_support.analysis.papers import INVISIBLE_LEASH, SHARPENING_COLLAPSE, SUPPORT_RESHAPING, cite
from rlvr_support.analysis.passk_table import per_prompt_metrics
from rlvr_support.analysis.resample import MIN_VERDICT_SEEDS, ci_side, claim_verdict, paired_grouped_diff
from rlvr_support.analysis.runs import by_chain, is_trained
from rlvr_support.analysis.scores import PromptBlock, ScoreFile, benchmark_matrices
from rlvr_support.analysis.trainability import mixed_share_effects

COLUMNS = ["claim", "paper", "chain", "eval_set", "benchmark", "measure", "expected_sign", "effect", "ci_low",
           "ci_high", "n_seeds", "verdict", "source"]

TASK_NAME = {"math": "Math", "if": "IF", "joint": "Joint"}

# the `paper` cells: the short titles of analysis/papers.py
RESHAPING, LEASH = cite(SUPPORT_RESHAPING), cite(INVISIBLE_LEASH)
RESHAPING_LEASH, LEASH_COLLAPSE = cite(SUPPORT_RESHAPING, INVISIBLE_LEASH), cite(INVISIBLE_LEASH, SHARPENING_COLLAPSE)


def _row(claim, paper, chain, eval_set, benchmark, measure, sign, effect, lo, hi, n_seeds, source) -> dict:
    return {"claim": claim, "paper": paper, "chain": chain, "eval_set": eval_set, "benchmark": benchmark,
            "measure": measure,
            "expected_sign": "+" if sign > 0 else "-", "effect": float(effect), "ci_low": float(lo),
            "ci_high": float(hi), "n_seeds": int(n_seeds), "verdict": claim_verdict(lo, hi, sign, int(n_seeds)),
            "source": source}


def _by_benchmark(table: pd.DataFrame | None, eval_set: str, match: dict) -> dict[str, pd.DataFrame]:
    """{benchmark: the rows of `table` whose columns equal `match`}, benchmarks of eval set `eval_set`
    in the table's order (a table without the column: one, named like the eval set); no pooled rows."""
    if table is None:
        return {}
    mask = pd.Series(True, index=table.index)
    for col, value in match.items():
        mask &= table[col] == value
    return {b: g for b, g in split_benchmarks(table[mask], eval_set).items() if b != POOLED and len(g)}


def _passk_effects(files: list[ScoreFile], *, n_boot, ci, seed) -> dict[tuple[str, str], dict[str, dict[str, tuple]]]:
    """{(chain, eval_set): {benchmark: {'pass@1': (d, lo, hi, n_seeds), 'best@kmax': ...}}} as
    checkpoint - base, paired per prompt; k max is the benchmark's n."""
    groups = by_chain(files)
    out = {}
    for (chain, eval_set), group in groups.items():
        if chain == "base" or ("base", eval_set) not in groups:
            continue
        base_file = groups[("base", eval_set)][0]
        base_mats = benchmark_matrices(base_file.path)
        seed_mats = [benchmark_matrices(f.path) for f in group]
        out[(chain, eval_set)] = {}
        for bench, (ids_b, s_b, g_b) in base_mats.items():
            n = s_b.shape[1]
            base = per_prompt_metrics(PromptBlock(ids_b, s_b, g_b, None), [1, n], seed=seed)
            per_seed = []
            for f, mats in zip(group, seed_mats):
                if list(mats) != list(base_mats):
                    raise ValueError(f"{f.path}: benchmarks {list(mats)} differ from the base's {list(base_mats)}")
                ids, s, g = mats[bench]
                if ids != ids_b or s.shape[1] != n:
                    raise ValueError(f"{f.path} [{bench}]: prompts or n differ from the base's")
                per_seed.append(per_prompt_metrics(PromptBlock(ids, s, g, None), [1, n], seed=seed))
            eff = {}
            for name, metric, j in (("pass@1", "pass@k", 0), ("best@kmax", "best@k", 1),
                                    ("coverage@kmax", "coverage", 1)):
                d = paired_grouped_diff(base[metric][:, j], [p[metric][:, j] for p in per_seed], n_boot=n_boot,
                                        ci=ci, seed=seed)
                eff[name] = (*d[:3], len(group))
            out[(chain, eval_set)][bench] = eff
    return out


def claims_table(scores: list[ScoreFile], *, support_per_prompt: pd.DataFrame | None, entropy: pd.DataFrame | None,
                 js_share: pd.DataFrame | None, modes: pd.DataFrame | None, perplexity: pd.DataFrame | None,
                 decomposition: dict[str, pd.DataFrame], sources: dict[str, str], m: int,
                 n_boot: int, ci: float, seed: int, association: pd.DataFrame | None = None,
                 reasoning_if: pd.DataFrame | None = None, single_token: pd.DataFrame | None = None,
                 group_size: int | None = None) -> pd.DataFrame:
    opts = dict(n_boot=n_boot, ci=ci, seed=seed)
    modes = _seed_rows(modes, "all")
    pk = _passk_effects(scores, **opts)
    rows = []
    # the papers' claims concern plain chains; mitigation variants (`math-if~kl`) have their own table;
    # checkpoints trained elsewhere get the claims that need no knowledge of how they were trained
    chains = sorted({c for c, _ in pk if "~" not in c and is_trained(c)}, key=lambda c: (c.count("-"), c))
    externals = sorted({c for c, _ in pk if not is_trained(c)})

    def pk_row(claim, paper, chain, ev, metric, sign):
        for bench, eff in pk.get((chain, ev), {}).items():
            d, lo, hi, ns = eff[metric]
            rows.append(_row(claim, paper, chain, ev, bench, f"{metric} checkpoint - base (paired)", sign, d, lo, hi,
                             ns, sources["passk"]))

    # --- same task: the last (only) stage trained on the eval set's task
    for chain in chains:
        if "-" in chain:
            continue
        T = TASK_NAME[chain]
        pk_row(f"{T}-RLVR raises pass@1 on the trained task", RESHAPING_LEASH, chain, chain, "pass@1", +1)
        pk_row(f"{T}-RLVR lowers best@kmax on the trained task (sharpening)", LEASH_COLLAPSE, chain, chain, "best@kmax",
               -1)
        for bench, sp in _by_benchmark(support_per_prompt, chain, {"chain": chain, "eval_set": chain}).items():
            per_seed = [(g["category"] == "shrinkage").to_numpy(float) - (g["category"] == "expansion").to_numpy(float)
                        for _, g in sp.groupby("seed", sort=True)]
            p, lo, hi, _ = bootstrap_ci_grouped(per_seed, **opts)
            rows.append(_row(f"{T}-RLVR: empirical support shrinkage exceeds expansion", LEASH, chain, chain, bench,
                             "share of prompts shrunk - share expanded (k = n)", +1, p, lo, hi, len(per_seed),
                             sources["support"]))
        for metric, claim, sign in (("answer_entropy", "answer-level entropy falls", -1),
                                    ("token_entropy", "token-level entropy rises", +1)):
            match = {"chain": chain, "eval_set": chain, "metric": metric}
            for bench, e in _by_benchmark(entropy, chain, match).items():
                r = e.iloc[0]
                rows.append(_row(f"{T}-RLVR: {claim}", LEASH, chain, chain, bench,
                                 f"{metric} checkpoint - base (paired)", sign, r["diff"], r["diff_lo"],
                                 r["diff_hi"], r["n_seeds"], sources["entropy"]))
        for bench, j in _by_benchmark(js_share, chain, {"chain": chain, "eval_set": chain, "source": "base"}).items():
            r = j.iloc[0]
            rows.append(_row(f"{T}-RLVR: divergence concentrates in the first m={m} tokens", RESHAPING, chain, chain,
                             bench,
                             "mean JS in positions < m - mean JS after (base prefixes)", +1, r["early_minus_late"],
                             r["early_minus_late_lo"], r["early_minus_late_hi"], r["n_seeds"], sources["js"]))
        for bench, d in _by_benchmark(decomposition.get(chain), chain, {"chain": chain}).items():
            pooled = d[d["model"] == f"{chain}/pooled"]  # pooled over RL seeds, not over benchmarks
            r = (pooled if len(pooled) else d).iloc[0]
            # NaN (no forced opening ever sampled by the checkpoint) -> inconclusive
            r = r.reindex(["rerank_gain", "rerank_gain_lo", "rerank_gain_hi"]).astype(float)
            rows.append(_row(f"{T}-RLVR re-ranks openings toward more successful ones", RESHAPING, chain, chain, bench,
                             "base continuations' success under checkpoint - base opening frequencies (forced set)",
                             +1, r["rerank_gain"], r["rerank_gain_lo"], r["rerank_gain_hi"],
                             max(1, len(d) - len(pooled)), sources["intervention"][chain]))
    if "math" in chains:
        for bench, p in _by_benchmark(perplexity, "math", {"chain": "math", "style": "all"}).items():
            r = p.iloc[0]
            rows.append(_row("Math-RLVR raises the perplexity of reference solutions", LEASH, "math", "math", bench,
                             "NLL per token of reference solutions, checkpoint - base (paired)", +1,
                             r["nll_diff"], r["nll_diff_lo"], r["nll_diff_hi"], r["n_seeds"], sources["perplexity"]))
    # --- checkpoints trained elsewhere, each against its base, on every eval set (Invisible Leash)
    for name in externals:
        for ev in sorted({e for c, e in pk if c == name}):
            pk_row("RLVR raises pass@1", LEASH, name, ev, "pass@1", +1)
            pk_row("RLVR lowers best@kmax (sharpening)", LEASH_COLLAPSE, name, ev, "best@kmax", -1)
            for bench, sp in _by_benchmark(support_per_prompt, ev, {"chain": name, "eval_set": ev}).items():
                shrink = ((sp["category"] == "shrinkage").to_numpy(float)
                          - (sp["category"] == "expansion").to_numpy(float))
                p, lo, hi, _ = bootstrap_ci_grouped([shrink], **opts)
                rows.append(_row("RLVR: empirical support shrinkage exceeds expansion", LEASH, name, ev, bench,
                                 "share of prompts shrunk - share expanded (k = n)", +1, p, lo, hi, 1,
                                 sources["support"]))
            for metric, claim, sign in (("answer_entropy", "answer-level entropy falls", -1),
                                        ("token_entropy", "token-level entropy rises", +1)):
                for bench, e in _by_benchmark(entropy, ev, {"chain": name, "eval_set": ev, "metric": metric}).items():
                    r = e.iloc[0]
                    rows.append(_row(f"RLVR: {claim}", LEASH, name, ev, bench, f"{metric} checkpoint - base (paired)",
                                     sign, r["diff"], r["diff_lo"], r["diff_hi"], r["n_seeds"], sources["entropy"]))
    # --- cross task (Support reshaping)
    pk_row("Math-RLVR raises IF pass@1", RESHAPING, "math", "if", "pass@1", +1)
    pk_row("Math-RLVR lowers IF best@kmax", RESHAPING, "math", "if", "best@kmax", -1)
    pk_row("IF-RLVR lowers math best@kmax (searchability)", RESHAPING, "if", "math", "best@kmax", -1)
    for chain, claim in (("if", "IF-RLVR moves math openings toward direct answers"),
                         ("math-if", "Math-then-IF RLVR moves math openings toward direct answers")):
        # the DAI share of the opening-mode classifier (metrics/opening_modes.py; toy `answer :` is DAI),
        # so the claim reads the same on real models' text
        for bench, st in _by_benchmark(modes, "math", {"chain": chain, "eval_set": "math", "mode": "DAI"}).items():
            r = st.iloc[0]
            rows.append(_row(claim, RESHAPING, chain, "math", bench,
                             "share of direct-answer (DAI) openings, checkpoint - base (paired)",
                             +1, r["diff"], r["diff_lo"], r["diff_hi"], r["n_seeds"], sources["openings"]))
    # --- future trainability (Support reshaping): a later Math-RLVR stage learns only from mixed groups of G rollouts
    if group_size and "if" in chains:
        ifs = [f for f in scores if f.chain in ("base", "if") and f.eval_set == "math"]
        for bench, (d, lo, hi, ns) in mixed_share_effects(ifs, group_size, **opts).get(("if", "math"), {}).items():
            rows.append(_row("IF-RLVR lowers the mixed-group share on math for a later Math-RLVR stage", RESHAPING,
                             "if", "math", bench, f"share of mixed groups of G={group_size} rollouts, checkpoint - "
                             "base (paired)", -1, d, lo, hi, ns, sources.get("trainability", "")))
    # --- instruction following by skipping the reasoning (Support reshaping's mechanism, ReasonIF-style segments)
    for bench, r in _by_benchmark(reasoning_if, "if", {"chain": "if", "eval_set": "if"}).items():
        r = r.iloc[0]
        rows.append(_row("IF-RLVR: more of the constraint-following responses skip the reasoning (bypass)", RESHAPING,
                         "if", "if", bench, "share of all-constraints-met responses with no reasoning segment, "
                         "checkpoint - base (paired)", +1, r["bypass_diff"], r["bypass_diff_lo"], r["bypass_diff_hi"],
                         int(r["n_seeds"]), sources.get("reasoning_if", "")))
    # --- single-token interventions (Support reshaping's single-token table): IF-RLVR's math responses with one
    # token of the base, the base's with one of IF-RLVR's; the first position against the deepest swept
    st = single_token
    if st is not None and len(st):
        last = int(st.loc[st["condition"] == "swap", "position"].max())  # 1 alone: no fade to measure
        for claim, recipient, position, col, measure, sign in (
                ("A base first token raises IF-RLVR's math best@k (single-token swap)", "if", 1, "best@k_diff",
                 "best@k after the swap - own samples (paired)", +1),
                ("An IF-RLVR first token lowers the base's math best@k (single-token swap)", "base", 1, "best@k_diff",
                 "best@k after the swap - own samples (paired)", -1),
                (f"A base token moves IF-RLVR's math best@k more at position 1 than at {last}", "if", last,
                 "best@k_fade", f"best@k after a swap at 1 - after a swap at {last} (paired)", +1)):
            if col == "best@k_fade" and last == 1:
                continue
            match = {"chain": "if", "eval_set": "math", "recipient": recipient, "condition": "swap",
                     "position": position}
            for bench, r in _by_benchmark(st, "math", match).items():
                r = r.iloc[0]
                rows.append(_row(claim, RESHAPING, "if", "math", bench, measure, sign, r[col], r[f"{col}_lo"],
                                 r[f"{col}_hi"], int(r["n_seeds"]), sources.get("single_token", "")))
    # --- across checkpoints (Support reshaping: Pearson r = -0.85 between direct-answer openings and math best@k)
    for bench, a in _by_benchmark(association, "math", {"eval_set": "math", "x": "share:answer",
                                                        "y": "best@k"}).items():
        r = a.iloc[0]
        # an interval from fewer than half the resamples (most drew a constant share: few distinct
        # points) says little; the claim is then inconclusive, whatever the point estimate
        lo, hi = (r["ci_low"], r["ci_high"]) if r["n_boot_used"] >= n_boot / 2 else (float("nan"), float("nan"))
        rows.append(_row("Direct-answer openings and math best@k are negatively associated across checkpoints",
                         RESHAPING, "trajectory", "math", bench,
                         f"Pearson r over {int(r['n_points'])} trajectory points ({int(r['n_runs'])} runs), "
                         "CI over points",
                         -1, r["pearson_r"], lo, hi, _association_seeds(r), sources["association"]))
    return pd.DataFrame(rows, columns=COLUMNS)


def _association_seeds(r: pd.Series) -> int:
    """RL seeds behind an association row: those of its trajectory runs (several chains of one seed are one)."""
    return int(r["n_seeds"])


def _seed_rows(table: pd.DataFrame | None, seed: str) -> pd.DataFrame | None:
    """The rows of a table with a `seed` column (`all` = pooled over RL seeds) for one seed; the base
    and external checkpoints (no RL seed) keep their pooled rows. A table without the column is pooled."""
    if table is None or "seed" not in table.columns:
        return table
    s = table["seed"].astype(str)
    keep = (s == seed) | ((s == "all") & ~table["chain"].map(is_trained)) if seed != "all" else s == "all"
    return table[keep].drop(columns="seed").reset_index(drop=True)


# the claims measured per RL seed come from the score files and the tables with per-seed rows;
# the others (entropy, JS, intervention, perplexity, association, reasoning_if, single_token) are read from tables
# pooled over seeds
PER_SEED_INPUTS = ("scores", "support_per_prompt", "modes")
KEY = ["claim", "chain", "eval_set", "benchmark"]


def seed_stability_table(scores: list[ScoreFile], pooled: pd.DataFrame, *, support_per_prompt: pd.DataFrame | None,
                         modes: pd.DataFrame | None, sources: dict[str, str], m: int, n_boot: int, ci: float,
                         seed: int, group_size: int | None = None) -> pd.DataFrame:
    """Each claim measured on every RL seed alone, beside its pooled row (the rows of `pooled`, the claims table).

    A seed's claims are those of `claims_table` on that seed's checkpoints only (with the base and
    external checkpoints). One seed gives an effect, never a verdict (claim_verdict), so a seed's cells
    are its effect and where its CI over prompts lies (`ci_side`: above 0, below 0, spans 0). `stable`
    says whether every seed's CI lies where the pooled CI does; it needs a pooled verdict (at least
    MIN_VERDICT_SEEDS seeds) and is False without one. Claims that only pooled tables measure get
    per-seed cells `n/a` and `per_seed = False`."""
    seeds = sorted({f.seed for f in scores if f.seed is not None})
    per_seed = {}
    for s in seeds:
        sp = None if support_per_prompt is None else support_per_prompt[
            support_per_prompt["seed"].isin([s]) | support_per_prompt["seed"].isna()]  # external: no RL seed
        t = claims_table([f for f in scores if f.seed in (None, s)], support_per_prompt=sp, entropy=None,
                         js_share=None, modes=_seed_rows(modes, str(s)), perplexity=None, decomposition={},
                         sources=sources, m=m, n_boot=n_boot, ci=ci, seed=seed, group_size=group_size)
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
