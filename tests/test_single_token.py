"""Single-token interventions (seed 000's single-token table): the swap and top-2 logic on scripted
samplers whose every token is known, the same on toy Llamas (hf and fast), the top-2 query against
a forward pass per prompt, the table against hand-computed values, the claims, the config checks,
the budget row, the smoke outputs and what an edit reruns."""

from __future__ import annotations

import copy
import json

import numpy as np
import pandas as pd
import pytest
import torch

from conftest import REPO
from rlvr_support.probes.single_token import per_prompt_values, single_token_table
from rlvr_support.config.validate import ConfigError, load_config, validate_config
from rlvr_support.sampling.single_token import generate_single_token

EOS = 0


class _Tok:
    eos_token_id = EOS


class Scripted:
    """A Sampler stand-in: `script(prompt ids, sample index, max_new_tokens)` gives (tokens, ended)."""

    def __init__(self, script, top=None):
        self.script, self.top, self.tokenizer, self.requests = script, top, _Tok(), []

    def generate(self, request):
        return self.generate_many([request])[0]

    def generate_many(self, requests):
        out = []
        for r in requests:
            self.requests.append(r)
            rows = []
            for p, ids in enumerate(r.prompts):
                for j in range(r.n):
                    toks, ended = self.script(list(ids), j, r.max_new_tokens)
                    toks = toks[:r.max_new_tokens]
                    rows.append({"prompt_index": p, "sample_idx": j, "token_ids": toks,
                                 "n_tokens": len(toks) + ended, "finish_reason": "stop" if ended else "length"})
            out.append(rows)
        return out

    def top_tokens(self, prompts, k):
        return [self.top[:k] for _ in prompts]


OWN = {1: [10, 11, 12, 13, 14], 2: [30, 31]}  # prompt [1] writes 5 tokens then eos, prompt [2] two


def recipient_script(ids, j, max_new):
    if len(ids) == 1:  # a bare prompt: the recipient's own response
        return OWN[ids[0]], True
    return [99], True  # a continuation after a forced token: one token, then eos


def donor_script(ids, j, max_new):
    return [50 + len(ids)], True  # the token says where it was drawn: prompt + prefix length


def _rows(recipient, donor, positions=(1, 3, 4), n=3, max_new=8):
    rows = generate_single_token(recipient, donor, [[1], [2]], positions=list(positions), n=n, temperature=1.0,
                                 top_p=1.0, max_new_tokens=max_new, seed=7)
    return {(r["condition"], r["position"], r["prompt_index"], r["sample_idx"]): r for r in rows}


def test_a_swap_keeps_the_own_prefix_puts_in_the_donor_token_and_the_recipient_continues():
    rows = _rows(Scripted(recipient_script, top=[20, 21]), Scripted(donor_script))
    assert len(rows) == 2 * 3 * (1 + 3 + 1)  # prompts x n x (own, three positions, top-2)
    own = rows[("own", 0, 0, 0)]
    assert own["token_ids"] == OWN[1] and own["n_tokens"] == 6 and not own["swapped"]
    # prompt [1], t = 3: own tokens 1..2, the donor's token (drawn after 1 + 2 ids), the recipient's 99, eos
    r = rows[("swap", 3, 0, 1)]
    assert r["token_ids"] == [10, 11, 53, 99] and r["n_tokens"] == 5 and r["finish_reason"] == "stop"
    assert r["swapped"] and r["own_token"] == 12 and r["forced_token"] == 53
    assert rows[("swap", 1, 0, 0)]["token_ids"] == [51, 99] and rows[("swap", 1, 0, 0)]["own_token"] == 10
    # prompt [2] wrote 2 tokens and eos: position 3 was its eos (swapped: own_token is eos), 4 never came
    r = rows[("swap", 3, 1, 2)]
    assert r["token_ids"] == [30, 31, 53, 99] and r["own_token"] == EOS
    r = rows[("swap", 4, 1, 0)]
    assert not r["swapped"] and r["token_ids"] == OWN[2] and r["forced_token"] == -1
    assert rows[("swap", 4, 0, 0)]["token_ids"] == [10, 11, 12, 54, 99]


def test_continuations_get_the_budget_left_after_the_swapped_position():
    recipient = Scripted(recipient_script, top=[20, 21])
    _rows(recipient, Scripted(donor_script), positions=(1, 3), max_new=8)
    budgets = sorted(r.max_new_tokens for r in recipient.requests)
    assert budgets == [5, 7, 8]  # continuations after t = 3 and t = 1 (swap and top-2 share it); own samples


def test_a_token_the_recipient_had_keeps_its_own_sample_and_asks_for_no_continuation():
    recipient = Scripted(recipient_script, top=[10, 21])  # prompt [1]'s own first token is 10
    same = Scripted(lambda ids, j, m: ([OWN[ids[0]][len(ids) - 1]] if len(ids) - 1 < len(OWN[ids[0]]) else [], True))
    rows = _rows(recipient, same, positions=(1, 3), n=20)
    for (c, t, p, j), r in rows.items():
        if c == "swap" and r["swapped"]:  # the donor always puts in the recipient's own token (or its eos)
            assert r["token_ids"] == OWN[p + 1] and r["forced_token"] == r["own_token"]
    picked = [r for k, r in rows.items() if k[0] == "top2" and k[2] == 0]
    assert {r["forced_token"] for r in picked} == {10, 21}
    assert all(r["token_ids"] == (OWN[1] if r["forced_token"] == 10 else [21, 99]) for r in picked)
    # continuations were asked for the top-2 draws that changed the token only, all at t = 1
    conts = [r for r in recipient.requests if r.max_new_tokens < 8]
    assert len(conts) == 1 and len(conts[0].prompts) == sum(r["forced_token"] != r["own_token"] for k, r in rows.items()
                                                            if k[0] == "top2")


def test_a_donor_eos_ends_the_response_at_that_position():
    rows = _rows(Scripted(recipient_script, top=[20, 21]), Scripted(lambda ids, j, m: ([], True)))
    r = rows[("swap", 3, 0, 0)]
    assert r["token_ids"] == [10, 11] and r["n_tokens"] == 3 and r["finish_reason"] == "stop"
    assert r["forced_token"] == EOS and r["swapped"]


def test_top2_draws_each_of_the_two_first_tokens_uniformly():
    rows = _rows(Scripted(recipient_script, top=[20, 21, 22]), Scripted(donor_script), n=200)
    firsts = [r["token_ids"][0] for k, r in rows.items() if k[0] == "top2"]
    assert set(firsts) == {20, 21}
    share = firsts.count(20) / len(firsts)
    assert 0.43 < share < 0.57  # 400 fair draws: 3.5 standard deviations
    assert all(r["token_ids"][1:] == [99] for k, r in rows.items() if k[0] == "top2")


def test_positions_must_leave_room_for_the_rest():
    with pytest.raises(ValueError, match="positions"):
        _rows(Scripted(recipient_script, top=[20, 21]), Scripted(donor_script), positions=(1, 8), max_new=8)


# ---- on real (toy) models, both local backends


@pytest.fixture(scope="module", params=["hf", "fast"])
def pair(request):
    from rlvr_support.data.toyworld.tokenizer import build_tokenizer
    from rlvr_support.models.loading import toy_llama
    from rlvr_support.sampling.backends import Sampler

    arch = {"hidden_size": 32, "intermediate_size": 64, "num_layers": 1, "num_heads": 2, "max_positions": 64}
    tok = build_tokenizer()
    models = []
    for seed in (0, 1):
        torch.manual_seed(seed)
        models.append(Sampler.from_model(toy_llama(len(tok), arch, tok).eval(), tok, request.param, prompt_batch=3))
    return models[0], models[1], tok


PROMPTS = ["Q : solve 12 + 34 . A :", "Q : write about cats . A :", "Q : 5 * 6 + 7 ?"]


def test_real_models_swap_exactly_one_token_of_the_own_sample(pair):
    recipient, donor, tok = pair
    ids = [tok(p)["input_ids"] for p in PROMPTS]
    rows = generate_single_token(recipient, donor, ids, positions=[1, 2, 4], n=4, temperature=1.0, top_p=1.0,
                                 max_new_tokens=12, seed=3)
    own = {(r["prompt_index"], r["sample_idx"]): r for r in rows if r["condition"] == "own"}
    top2 = recipient.top_tokens(ids, 2)
    for r in rows:
        assert r["n_tokens"] <= 12
        if r["condition"] == "swap" and r["swapped"]:
            t, mine = r["position"], own[(r["prompt_index"], r["sample_idx"])]["token_ids"]
            assert r["token_ids"][:t - 1] == mine[:t - 1]
            if r["forced_token"] != tok.eos_token_id:
                assert r["token_ids"][t - 1] == r["forced_token"]
        if r["condition"] == "top2":
            assert r["forced_token"] in top2[r["prompt_index"]] and r["token_ids"][0] == r["forced_token"]


def test_top_tokens_match_a_forward_pass_of_each_prompt_alone(pair):
    recipient, _, tok = pair
    ids = [tok(p)["input_ids"] for p in PROMPTS]  # different lengths: the batch is left-padded
    with torch.no_grad():
        alone = [recipient.model(torch.tensor([i])).logits[0, -1].topk(3).indices.tolist() for i in ids]
    assert recipient.top_tokens(ids, 3) == alone


def test_the_run_scores_both_directions_on_tiny_checkpoints(tmp_path):
    from support_helpers import tiny_checkpoint

    from rlvr_support.probes.single_token import single_token_run

    ckpt, base = tiny_checkpoint(tmp_path / "ckpt", 0), tiny_checkpoint(tmp_path / "base", 1)
    prompts = tmp_path / "math.jsonl"
    with prompts.open("w") as f:
        for i, (q, a) in enumerate([("12 + 7", "19"), ("3 * 4", "12")]):
            f.write(json.dumps({"id": f"math-eval-{i}", "task": "math", "prompt": f"Q : solve {q} . A :", "answer": a,
                                "instruction_id_list": [], "kwargs": [], "split": "eval"}) + "\n")
    sampling = {"backend": "fast", "temperature": 1.0, "top_p": 1.0, "seed": 0, "prompt_batch": 4}
    run = single_token_run(str(ckpt), str(base), str(prompts), cfg={"n": 3, "positions": [1, 2], "max_new_tokens": 6},
                           sampling=sampling, scoring={"timeout_s": 1.0, "workers": 1, "reasoning": "none"})
    assert len(run) == 2 * 2 * 3 * 4  # directions x prompts x n x (own, two swaps, top-2)
    assert set(run["recipient"]) == {"checkpoint", "base"} and set(run["eval_set"]) == {"math"}
    assert run["reward"].isin([0.0, 1.0]).all() and run["text"].map(type).eq(str).all()
    again = single_token_run(str(ckpt), str(base), str(prompts), cfg={"n": 3, "positions": [1, 2], "max_new_tokens": 6},
                             sampling=sampling, scoring={"timeout_s": 1.0, "workers": 1, "reasoning": "none"})
    pd.testing.assert_frame_equal(run, again)  # seeded: a rerun gives the same samples


# ---- the table


def _run(rewards: dict, texts: dict | None = None, eval_set="math") -> pd.DataFrame:
    """A run frame from {(recipient, condition, position): {prompt: [rewards of its samples]}}."""
    rows = []
    for (recipient, condition, position), per in rewards.items():
        for pid, rs in per.items():
            for j, r in enumerate(rs):
                text = (texts or {}).get((recipient, condition, position), "answer : 1")
                rows.append({"eval_set": eval_set, "recipient": recipient, "condition": condition,
                             "position": position, "prompt_id": pid, "benchmark": eval_set, "sample_idx": j,
                             "text": text, "reward": float(r), "swapped": condition != "own",
                             "changed": condition != "own" and j == 0})
    return pd.DataFrame(rows)


PATTERNS = {"dri": [r"step\b"], "dai": [r"answer\s*:"]}


def test_table_values_by_hand():
    rewards = {
        ("checkpoint", "own", 0): {"p": [0, 0], "q": [1, 1]},
        ("checkpoint", "swap", 1): {"p": [1, 0], "q": [1, 1]},
        ("checkpoint", "swap", 4): {"p": [0, 0], "q": [1, 0]},
        ("checkpoint", "top2", 1): {"p": [0, 0], "q": [1, 1]},
        ("base", "own", 0): {"p": [1, 0], "q": [1, 1]},
        ("base", "swap", 1): {"p": [0, 0], "q": [1, 1]},
        ("base", "swap", 4): {"p": [1, 0], "q": [1, 1]},
        ("base", "top2", 1): {"p": [1, 1], "q": [1, 1]},
    }
    texts = {("checkpoint", "own", 0): "answer : 3", ("checkpoint", "swap", 1): "step : 1 + 2 . answer : 3"}
    t = single_token_table({"if/seed0": _run(rewards, texts)}, patterns=PATTERNS, n_boot=200, ci=0.9, seed=0)
    t = t.set_index(["recipient", "condition", "position"])
    # best@2 of two 0/1 samples = 1 if either succeeded; per prompt p, q
    sw = t.loc[("if", "swap", 1)]
    assert sw["best@k"] == 1.0 and sw["best@k_diff"] == pytest.approx(0.5)  # p: 0 -> 1, q: 1 -> 1
    assert sw["pass@1"] == pytest.approx(0.75) and sw["DRI"] == 1.0 and sw["DAI"] == 0.0
    assert sw["DAI_diff"] == pytest.approx(-1.0) and sw["donor"] == "base" and sw["chain"] == "if"
    assert sw["best@k_fade"] == pytest.approx(0.0)  # swap@1 minus itself
    late = t.loc[("if", "swap", 4)]
    assert late["best@k_diff"] == pytest.approx(0.0) and late["best@k_fade"] == pytest.approx(0.5)
    assert late["changed"] == pytest.approx(0.5) and late["swapped"] == 1.0
    assert t.loc[("base", "swap", 1), "best@k_diff"] == pytest.approx(-0.5)
    assert t.loc[("base", "swap", 1), "donor"] == "if"
    assert t.loc[("base", "top2", 1), "best@k_diff"] == 0.0 and t.loc[("base", "top2", 1), "donor"] == "self (top 2)"
    own = t.loc[("if", "own", 0)]
    assert own["best@k_diff"] == 0.0 and np.isnan(own["changed"]) and own["n"] == 2 and own["n_prompts"] == 2


def test_seeds_pool_and_must_share_prompts():
    one = {("checkpoint", "own", 0): {"p": [0, 0]}, ("checkpoint", "swap", 1): {"p": [1, 1]},
           ("base", "own", 0): {"p": [1, 1]}, ("base", "swap", 1): {"p": [0, 0]}}
    two = {**one, ("checkpoint", "swap", 1): {"p": [0, 0]}}
    t = single_token_table({"if/seed0": _run(one), "if/seed1": _run(two)}, patterns=PATTERNS, n_boot=100, ci=0.9,
                           seed=0).set_index(["recipient", "condition", "position"])
    assert t.loc[("if", "swap", 1), "best@k_diff"] == pytest.approx(0.5) and t.loc[("if", "swap", 1), "n_seeds"] == 2
    other = {k: {"r": v["p"]} for k, v in one.items()}
    with pytest.raises(ValueError, match="different prompts"):
        single_token_table({"if/seed0": _run(one), "if/seed1": _run(other)}, patterns=PATTERNS, n_boot=10, ci=0.9,
                           seed=0)


def test_per_prompt_best_at_k_is_the_expected_max_of_k_of_n():
    df = _run({("checkpoint", "own", 0): {"p": [1, 0, 0, 0]}})
    v = per_prompt_values(df, PATTERNS).iloc[0]
    assert v["best@k"] == 1.0 and v["pass@1"] == 0.25  # k = n = 4: the one success is always in


def test_the_claims_read_the_swap_rows():
    from rlvr_support.analysis.claims.table import claims_table

    rewards = {("checkpoint", "own", 0): {"p": [0, 0], "q": [0, 0]},
               ("checkpoint", "swap", 1): {"p": [1, 0], "q": [1, 1]},
               ("checkpoint", "swap", 2): {"p": [0, 0], "q": [0, 0]},
               ("base", "own", 0): {"p": [1, 0], "q": [1, 1]}, ("base", "swap", 1): {"p": [0, 0], "q": [0, 0]},
               ("base", "swap", 2): {"p": [1, 0], "q": [1, 1]}}
    # three seeds alike: a verdict needs >= 3 (analysis.resample.MIN_VERDICT_SEEDS)
    t = single_token_table({f"if/seed{s}": _run(rewards) for s in range(3)}, patterns=PATTERNS, n_boot=100, ci=0.9,
                           seed=0)
    claims = claims_table([], {"single_token": t}, {"single_token": "single_token.csv"}, m=3, n_boot=50, ci=0.9,
                          seed=0).set_index("claim")
    up = claims.loc["A base first token raises IF-RLVR's math best@k (single-token swap)"]
    assert up["effect"] == pytest.approx(1.0) and up["verdict"] == "agree" and up["source"] == "single_token.csv"
    down = claims.loc["An IF-RLVR first token lowers the base's math best@k (single-token swap)"]
    assert down["effect"] == pytest.approx(-1.0) and down["verdict"] == "agree"
    fade = claims.loc["A base token moves IF-RLVR's math best@k more at position 1 than at 2"]
    assert fade["effect"] == pytest.approx(1.0) and fade["expected_sign"] == "+"


# ---- config, budget


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.update(checkpoints=["nope"]), r"analysis.single_token.checkpoints: \['nope'\]"),
    (lambda s: s.update(checkpoints=["base", "if"]), "the base is every pair's other model"),
    (lambda s: s.update(positions=[1, 64]), "analysis.single_token.positions: 64 is not before max_new_tokens"),
    (lambda s: s.update(prompts=101), "analysis.single_token.prompts: 101 prompts"),
    (lambda s: s.update(eval_sets=["math", "if"]) or None, None),
])
def test_bad_single_token_settings_name_the_key(edit, message):
    cfg = copy.deepcopy(load_config(REPO / "config.yaml"))
    edit(cfg["analysis"]["single_token"])
    if message is None:
        validate_config(cfg)  # a valid edit passes
        return
    with pytest.raises(ConfigError, match=message):
        validate_config(cfg)


def test_a_budget_longer_than_the_toy_model_reaches_names_the_key():
    from rlvr_support.data.toyworld.limits import check_toy_world

    cfg = copy.deepcopy(load_config(REPO / "config.yaml"))
    cfg["analysis"]["single_token"]["max_new_tokens"] = 120
    with pytest.raises(ConfigError, match="analysis.single_token.max_new_tokens: 120 new tokens"):
        check_toy_world(cfg)


def test_the_budget_counts_the_single_token_samples():
    from rlvr_support.planning.budget import Lengths, budget_config, plan_model
    from rlvr_support.config.defaults import fill_defaults

    cfg = budget_config(fill_defaults(load_config(REPO / "config.yaml")))
    counts = {e: {e: 100} for e in ("math", "if", "joint")}
    rows = {r.kind: r for r in plan_model(cfg, "base", counts, Lengths(0.5, None))}
    st = cfg["analysis"]["single_token"]
    pairs = len(st["checkpoints"]) * len(cfg["rl"]["seeds"])
    assert rows["single_token"].jobs == pairs * len(st["eval_sets"])
    per_job = st["prompts"] * 2 * (len(st["positions"]) + 2) * st["n"]
    assert rows["single_token"].sequences == pairs * len(st["eval_sets"]) * per_job


def test_the_sample_jobs_code_hash_leaves_the_single_token_modules_out():
    """An edit of the interventions resamples nothing: the sample rules hash sampling.jobs and what it
    imports, the single_token rule hashes the interventions and what they import."""
    from rlvr_support.lineage.codehash import files_of
    from rlvr_support.lineage.job_code import job_code

    sample = {f.name for f in files_of(*job_code("sample"))}
    assert {"backends.py", "fast.py", "routed.py", "top_tokens.py"} <= sample
    assert "single_token.py" not in sample
    single = {str(f) for f in files_of(*job_code("single-token", ("math",)))}
    assert any(f.endswith("sampling/single_token.py") for f in single)
    assert any(f.endswith("scoring/score.py") for f in single) and any(f.endswith("metrics/passk.py") for f in single)


# ---- end to end


@pytest.mark.slow
def test_the_smoke_run_writes_the_single_token_table_figure_and_claims(smoke_run):
    import yaml

    from conftest import SMOKE_CONFIG

    res = smoke_run / "results"
    st = yaml.safe_load(SMOKE_CONFIG.read_text())["analysis"]["single_token"]
    t = pd.read_csv(res / "tables" / "single_token.csv")
    assert set(t["chain"]) == set(st["checkpoints"]) and set(t["eval_set"]) == set(st["eval_sets"])
    assert set(t.loc[t["condition"] == "swap", "position"]) == set(st["positions"])
    assert set(t["recipient"]) == {"base", *st["checkpoints"]}
    assert (t["n"] == st["n"]).all() and (t["n_prompts"] == st["prompts"]).all()
    for e in st["eval_sets"]:
        assert (res / "figures" / f"single_token_{e}.png").is_file()
    assert (res / "tables" / "single_token.csv.prov.json").is_file()
    # the claims table carries the single-token rows (smoke pairs IF-RLVR with the base on math)
    claims = pd.read_csv(res / "tables" / "claims.csv")
    rows = claims[claims["source"].astype(str).str.endswith("tables/single_token.csv")]
    assert len(rows) == 3 and rows["ci_low"].notna().all() and set(rows["chain"]) == {"if"}


@pytest.mark.slow
def test_an_edit_of_the_sweep_reruns_only_the_single_token_jobs(smoke_run, tmp_path):
    from test_rerun_plans import edited_config, plan, rules

    jobs = plan(smoke_run, edited_config(tmp_path, lambda c: c["analysis"]["single_token"].update(positions=[1, 3])))
    assert rules(jobs) == {"single_token", "single_token_table", "figure_single_token", "claims_table", "budget"}, \
        rules(jobs)
